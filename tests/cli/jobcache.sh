#!/bin/sh
# The jobs tree lightraild keeps across GETs (lr_yang_job_cache): GET,
# POST, GET, DELETE, GET of the jobs, each GET also with a where, a
# sort-by and under running, on a lightraild of our own on 127.0.0.1
# (stopped by its PID).  Each GET after a change must show the change,
# and a GET repeated with no change in between (answered from the tree
# kept) must send the same bytes as the first.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"

RUN=/restconf/ds/ietf-datastores:running/lightrail-job:jobs
WHERE="$JOBS?where=state/phase%3D'active'"
SORT="$JOBS?sort-by=state/created"

# names PATH: the jobs' names a GET of PATH sends, one a line, and the
# body kept in $tmp/PATH's digest; the same GET again must send the same.
names() {
    api GET "$1"
    [ "$STATUS" = 200 ] || { notok "GET $1: $STATUS $(cat "$tmp/body")"; return; }
    cp "$tmp/body" "$tmp/first"
    api GET "$1"
    cmp -s "$tmp/first" "$tmp/body" \
        || notok "GET $1 twice, no change between: the bodies differ"
    jq -r '(."lightrail-job:jobs".job // [])[] | .name' "$tmp/first" | tr '\n' ' '
}

# expect LABEL WANT PATH...: each PATH's names are WANT.
expect() {
    label=$1 want=$2
    shift 2
    for p in "$@"; do
        got=$(names "$p")
        [ "$got" = "$want" ] && ok "$label: GET $p: ${got:-none}" \
            || notok "$label: GET $p: '$got', expected '$want'"
    done
}

start_daemon || exit 1
expect "no job" "" "$JOBS" "$WHERE" "$SORT" "$RUN"

intent c1 bert-large 4 > "$tmp/c1.json"
api POST "$JOBS" "$tmp/c1.json"
[ "$STATUS" = 201 ] && ok "POST c1: 201" || notok "POST c1: $STATUS $(cat "$tmp/body")"
expect "after the POST" "c1 " "$JOBS" "$WHERE" "$SORT" "$RUN"
api GET "$JOBS"
[ "$(jq -r '."lightrail-job:jobs".job[0].state.phase' "$tmp/body")" = active ] \
    && ok "c1 is active in the GET after its POST" \
    || notok "c1's phase after its POST: $(cat "$tmp/body")"

intent c2 bert-large 2000 > "$tmp/c2.json"
jq '."lightrail-job:job"[0].gpus.min = 1000' "$tmp/c2.json" > "$tmp/c2b.json"
api POST "$JOBS" "$tmp/c2b.json"
[ "$STATUS" = 201 ] && ok "POST c2 (blocked): 201" || notok "POST c2: $STATUS $(cat "$tmp/body")"
expect "after the second POST" "c1 c2 " "$JOBS" "$RUN"
expect "after the second POST, active only" "c1 " "$WHERE"

api DELETE "$JOBS/job=c1"
[ "$STATUS" = 204 ] && ok "DELETE c1: 204" || notok "DELETE c1: $STATUS $(cat "$tmp/body")"
expect "after the DELETE" "c2 " "$JOBS" "$RUN" "$SORT"
expect "after the DELETE, active only" "" "$WHERE"
api DELETE "$JOBS/job=c2"
expect "after the last DELETE" "" "$JOBS" "$RUN"

stop_daemon
check_store "the store and the devices agree after the GETs"
lr_summary
