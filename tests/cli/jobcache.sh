#!/bin/sh
# The jobs tree lightraild keeps across GETs (lr_yang_job_cache): GET,
# POST, GET, DELETE, GET of the jobs, each GET also with a where, a
# sort-by and under running, on a lightraild of our own on 127.0.0.1
# (stopped by its PID).  Each GET after a change must show the change,
# and a GET repeated with no change in between (answered from the tree
# kept) must send the same bytes as the first.  A job that changes in
# place (provisioning, then active: no job comes or goes, so only
# lr_ctl_jobs_gen() tells the tree is stale) is held in the dummy
# driver's apply() (LIGHTRAIL_TEST_DUMMY_HOLD) while GETs keep its tree.
# Idle (LIGHTRAIL_TEST_JOBS_CACHE_IDLE, 300 s in service, 10 s here: the
# GETs above follow each other well within it), the trees are dropped:
# lightrail_jobs_cache_nodes falls to 0, and the next GET builds the same
# bytes.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"

RUN=/restconf/ds/ietf-datastores:running/lightrail-job:jobs
WHERE="$JOBS?where=state/phase%3D'active'"
SORT="$JOBS?sort-by=state/created"
LIGHTRAIL_TEST_DUMMY_HOLD=1
export LIGHTRAIL_TEST_DUMMY_HOLD
LIGHTRAIL_TEST_JOBS_CACHE_IDLE=10
export LIGHTRAIL_TEST_JOBS_CACHE_IDLE
DEV=$D/state/devices

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

# metric NAME: the value /metrics gives the sample NAME (its labels
# written as /metrics writes them), "" when it has none.
metric() {
    api GET /metrics
    awk -v m="$1" '$1 == m { print $2 }' "$tmp/body"
}

# counts: the GETs answered from the tree kept and from one built, and
# the data nodes kept, as "KEPT BUILT NODES".
KEPT='lightrail_jobs_cache_gets_total{tree="kept"}'
BUILT='lightrail_jobs_cache_gets_total{tree="built"}'
counts() { echo "$(metric "$KEPT") $(metric "$BUILT") $(metric lightrail_jobs_cache_nodes)"; }

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

# /metrics: a GET with no change since the last is answered from the
# tree kept (kept + 1, built as it was) and the tree's nodes are held;
# after a change the next GET builds (built + 1, kept as it was).
set -- $(counts)
k0=${1:-none} b0=${2:-none} n0=${3:-none}
api GET "$JOBS"
set -- $(counts)
[ "$k0" != none ] && [ "${1:-}" = $((k0 + 1)) ] && [ "${2:-}" = "$b0" ] \
    && ok "/metrics: a GET with no change is counted from the tree kept" \
    || notok "/metrics around a GET with no change: kept $k0 -> ${1:-none}, built $b0 -> ${2:-none}"
[ "$n0" != none ] && [ "$n0" -gt 0 ] \
    && ok "/metrics: lightrail_jobs_cache_nodes $n0 with c1's trees kept" \
    || notok "/metrics: lightrail_jobs_cache_nodes with c1's trees kept: $n0"
k1=${1:-0} b1=${2:-0}

intent c2 bert-large 2000 > "$tmp/c2.json"
jq '."lightrail-job:job"[0].gpus.min = 1000' "$tmp/c2.json" > "$tmp/c2b.json"
api POST "$JOBS" "$tmp/c2b.json"
[ "$STATUS" = 201 ] && ok "POST c2 (blocked): 201" || notok "POST c2: $STATUS $(cat "$tmp/body")"
api GET "$JOBS"
set -- $(counts)
[ "${1:-}" = "$k1" ] && [ "${2:-}" = $((b1 + 1)) ] \
    && ok "/metrics: the GET after a POST is counted as built" \
    || notok "/metrics around the GET after a POST: kept $k1 -> ${1:-none}, built $b1 -> ${2:-none}"
expect "after the second POST" "c1 c2 " "$JOBS" "$RUN"
expect "after the second POST, active only" "c1 " "$WHERE"

api DELETE "$JOBS/job=c1"
[ "$STATUS" = 204 ] && ok "DELETE c1: 204" || notok "DELETE c1: $STATUS $(cat "$tmp/body")"
expect "after the DELETE" "c2 " "$JOBS" "$RUN" "$SORT"
expect "after the DELETE, active only" "" "$WHERE"
api DELETE "$JOBS/job=c2"
expect "after the last DELETE" "" "$JOBS" "$RUN"

# In place: c3's POST held in its device step, GETs of it provisioning
# (the tree kept), then released: the GET after must say active.
intent c3 gpt-1.9b 24 > "$tmp/c3.json"
for f in "$DEV"/*.json; do : > "${f%.json}.hold"; done
curl -s -o "$tmp/c3.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/yang-data+json' --max-time 120 \
    -X POST --data-binary @"$tmp/c3.json" "$URL$JOBS" > "$tmp/c3.status" &
P3=$!
held=
for i in $(seq 1 400); do
    ls "$DEV"/*.held > /dev/null 2>&1 && { held=1; break; }
    sleep 0.05
done
[ -n "$held" ] || notok "c3's devices were never held in apply()"
c3phase() { jq -r '."lightrail-job:jobs".job[] | select(.name == "c3")
                   | .state.phase' "$tmp/body"; }
expect "c3 held in its device step" "c3 " "$JOBS" "$SORT"
api GET "$JOBS"
[ "$(c3phase)" = provisioning ] && ok "c3 provisioning while held" \
    || notok "c3 while held: $(c3phase)"
rm -f "$DEV"/*.hold
wait $P3
[ "$(cat "$tmp/c3.status")" = 201 ] && ok "c3's POST, released: 201" \
    || notok "c3's POST: $(cat "$tmp/c3.status") $(cat "$tmp/c3.body")"
api GET "$JOBS"
[ "$(c3phase)" = active ] \
    && ok "the GET after c3 became active in place says active" \
    || notok "the GET after c3 became active in place: $(c3phase)"
expect "c3 active" "c3 " "$WHERE"

# Idle: c3's trees dropped after LIGHTRAIL_TEST_JOBS_CACHE_IDLE with no
# GET of the jobs (/metrics takes none), waited for 60 s at most.
api GET "$JOBS"
cp "$tmp/body" "$tmp/before-idle"
api GET "$RUN"
set -- $(counts)
n1=${3:-none}
[ "$n1" != none ] && [ "$n1" -gt 0 ] \
    && ok "/metrics: c3's trees kept after its GET ($n1 nodes)" \
    || notok "/metrics: lightrail_jobs_cache_nodes after c3's GET: $n1"
dropped=
for i in $(seq 1 120); do
    [ "$(metric lightrail_jobs_cache_nodes)" = 0 ] && { dropped=1; break; }
    sleep 0.5
done
[ -n "$dropped" ] \
    && ok "/metrics: lightrail_jobs_cache_nodes 0 once idle" \
    || notok "/metrics: lightrail_jobs_cache_nodes $(metric lightrail_jobs_cache_nodes) 60 s after the last GET, idle 10 s"
set -- $(counts)
k2=${1:-0} b2=${2:-0}
api GET "$JOBS"
cp "$tmp/body" "$tmp/after-idle"
set -- $(counts)
cmp -s "$tmp/before-idle" "$tmp/after-idle" \
    && ok "the GET after the idle drop sends the same bytes" \
    || notok "the GET after the idle drop differs: $(cat "$tmp/after-idle")"
[ "${1:-}" = "$k2" ] && [ "${2:-}" = $((b2 + 1)) ] \
    && ok "/metrics: the GET after the idle drop is counted as built" \
    || notok "/metrics around the GET after the idle drop: kept $k2 -> ${1:-none}, built $b2 -> ${2:-none}"

api DELETE "$JOBS/job=c3"
[ "$STATUS" = 204 ] && ok "DELETE c3: 204" || notok "DELETE c3: $STATUS"

stop_daemon
check_store "the store and the devices agree after the GETs"

# LIGHTRAIL_TEST_JOBS_CACHE_IDLE is read as lr_parse_double() reads a
# number: 10 above was taken with no warning; hex (which strtod() took
# before 2026-12-07, as 16 s) and white space are warned about at start
# and ignored (the trees kept 300 s).
grep -q LIGHTRAIL_TEST_JOBS_CACHE_IDLE "$D/log" \
    && notok "LIGHTRAIL_TEST_JOBS_CACHE_IDLE=10 warned: $(grep LIGHTRAIL_TEST_JOBS_CACHE_IDLE "$D/log")" \
    || ok "LIGHTRAIL_TEST_JOBS_CACHE_IDLE=10 taken with no warning"
for bad in 0x10 ' 10'; do
    : > "$D/log"
    LIGHTRAIL_TEST_JOBS_CACHE_IDLE=$bad
    start_daemon || { notok "start with LIGHTRAIL_TEST_JOBS_CACHE_IDLE='$bad'"; continue; }
    stop_daemon
    grep -q "LIGHTRAIL_TEST_JOBS_CACHE_IDLE='$bad' is no number of seconds from 0.01 to 86400: the jobs trees are kept 300 s after a GET" "$D/log" \
        && ok "LIGHTRAIL_TEST_JOBS_CACHE_IDLE='$bad' warned and ignored" \
        || notok "LIGHTRAIL_TEST_JOBS_CACHE_IDLE='$bad', the log: $(cat "$D/log")"
done
lr_summary
