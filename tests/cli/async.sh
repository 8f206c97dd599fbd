#!/bin/sh
# lightraild never waits for a device: while a job's devices are being
# programmed (held by the dummy driver's test hook, see
# southbound/sb_dummy.c: LIGHTRAIL_TEST_DUMMY_HOLD=1 and DEVICE.hold),
# other requests are answered and see the job provisioning; a second
# job is planned and queues for the devices; a reconcile queues between
# them (no 409) and, held behind a DELETE, waits while /metrics answers,
# then reports and repairs drift made behind the daemon's back (a
# dry-run changes nothing); releasing the hold answers the POST; a device failure rolls the reservation back; a client that
# leaves, a DELETE in flight, SIGTERM and kill -9 while provisioning all
# end in a defined state that lightrail-check accepts.  Nothing here is
# timed: each step waits for a file or a process, bounded only so that a
# broken daemon fails the test instead of hanging it.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
LIGHTRAIL_TEST_DUMMY_HOLD=1
export LIGHTRAIL_TEST_DUMMY_HOLD
DEV=$D/state/devices
CURLS=
trap 'kill -9 $PID $CURLS 2>/dev/null; rm -rf "$tmp"' EXIT

hold() { for f in "$DEV"/*.json; do : > "${f%.json}.hold"; done; }
release() { rm -f "$DEV"/*.hold; }

# await_held: until some device is blocked inside apply().
await_held() {
    for i in $(seq 1 400); do
        ls "$DEV"/*.held > /dev/null 2>&1 && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# bg METHOD PATH NAME [BODY-FILE]: the request in the background; its
# status lands in $tmp/NAME.status, its body in $tmp/NAME.body.
bg() {
    if [ -n "${4:-}" ]; then data="--data-binary @$4"; else data=; fi
    curl -s -o "$tmp/$3.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/yang-data+json' \
        --max-time 120 -X "$1" $data "$URL$2" > "$tmp/$3.status" &
    BG=$!
    CURLS="$CURLS $BG"
}

# fg METHOD PATH [BODY-FILE]: as api, but a daemon whose loop is stuck
# fails it (no answer within 20 s) instead of hanging the test.
fg() {
    if [ -n "${3:-}" ]; then data="--data-binary @$3"; else data=; fi
    STATUS=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/yang-data+json' \
        --max-time 20 -X "$1" $data "$URL$2")
}

phase() {   # phase NAME: the job's phase, or "none"
    fg GET "$JOBS/job=$1"
    [ "$STATUS" = 200 ] || { echo none; return; }
    sed -n 's/.*"phase": *"\([a-z]*\)".*/\1/p' "$tmp/body" | head -n 1
}

gpus_in_use() {   # the sum over the DCs
    fg GET /restconf/data/lightrail-state:state
    python3 -c 'import json,sys; print(sum(d["in-use"] for d in json.load(open(sys.argv[1]))["lightrail-state:state"]["dc"]))' "$tmp/body"
}

channels_of() {   # how many media channels of job $1 the devices hold
    cat "$DEV"/*.json | grep -c "\"$1/lp"
}

check_store() {   # lightrail-check on the stopped daemon's state
    if $CHECK --config "$D/lightraild.json" 2> "$tmp/check"; then
        ok "$1: lightrail-check finds the store, memory and devices consistent"
    else
        notok "$1: lightrail-check: $(cat "$tmp/check")"
    fi
}

RECON=/restconf/operations/lightrail-job:reconcile
pending() {   # lightrail_http_pending: answers deferred now
    fg GET /metrics
    sed -n 's/^lightrail_http_pending \([0-9]*\)$/\1/p' "$tmp/body"
}
await_pending() {   # until N answers are deferred
    for i in $(seq 1 400); do
        [ "$(pending)" = "$1" ] && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

intent j1 gpt-1.9b 16 > "$tmp/j1.json"
intent j2 gpt-1.9b 24 > "$tmp/j2.json"
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }

# 1. A POST held in the device step; the loop answers everything else.
hold
bg POST "$JOBS" j1 "$tmp/j1.json"; P1=$BG
await_held && ok "j1's devices are held in apply()" || notok "no device was held"
fg GET "$JOBS"
if [ "$STATUS" = 200 ] && grep -q '"name": "j1"' "$tmp/body" \
   && [ "$(phase j1)" = provisioning ]; then
    ok "GET jobs answers while j1's devices are held, j1 provisioning"
else
    notok "GET jobs while held: $STATUS, j1 is $(phase j1)"
fi
fg GET /metrics
grep -q '^lightrail_jobs{phase="provisioning"} 1$' "$tmp/body" && [ "$STATUS" = 200 ] \
    && ok "GET /metrics answers while held: one job provisioning" \
    || notok "/metrics while held: $STATUS $(grep provisioning "$tmp/body")"
used1=$(gpus_in_use)
[ "${used1:-0}" -gt 0 ] && ok "j1's GPUs are taken while it provisions ($used1)" \
    || notok "no GPU taken while j1 provisions"
fg POST "$JOBS" "$tmp/j1.json"
[ "$STATUS" = 409 ] && grep -q 'being programmed' "$tmp/body" \
    && ok "a second POST of j1 in flight: 409" || notok "second POST of j1: $STATUS"
fg DELETE "$JOBS/job=j1"
[ "$STATUS" = 409 ] && grep -q '"error-tag": *"in-use"' "$tmp/body" \
    && grep -q 'try again when' "$tmp/body" \
    && ok "DELETE of j1 while provisioning: 409 in-use, try again when ..." \
    || notok "DELETE in flight: $STATUS $(cat "$tmp/body")"
# With a stale If-Match too: the delete's answer without it is no 2xx,
# so the precondition is not judged (RFC 9110 13.2.1): 409, not 412.
STATUS=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'If-Match: "0000"' --max-time 20 \
    -X DELETE "$URL$JOBS/job=j1")
[ "$STATUS" = 409 ] && grep -q '"error-tag": *"in-use"' "$tmp/body" \
    && [ "$(phase j1)" = provisioning ] \
    && ok "DELETE of j1 in flight with a stale If-Match: 409 in-use, not 412" \
    || notok "DELETE in flight with If-Match: $STATUS $(cat "$tmp/body")"
# The client keeps its exit for the 409 (3) and gives no 412 advice.
$LIGHTRAIL job delete j1 --if-match '"0000"' --server "$URL" --token "$TOKEN" \
    --cacert "$D/tls/cert.pem" --timeout 20 > "$tmp/cli-out" 2> "$tmp/cli-err"
rc=$?
[ $rc -eq 3 ] && grep -q "^lightrail job: 409: .*try again when" "$tmp/cli-err" \
    && ! grep -q "not deleted" "$tmp/cli-err" && [ "$(phase j1)" = provisioning ] \
    && ok "lightrail job delete --if-match of j1 in flight: exit 3, the 409's words" \
    || notok "job delete j1 in flight --if-match: exit $rc, $(cat "$tmp/cli-err")"
# A reconcile now queues behind j1 (no 409); j2, submitted after it,
# queues behind the reconcile.  Its snapshot leaves j1 alone (in flight)
# and does not know j2: it finds nothing to do.
bg POST "$RECON?dry-run" r1; PR1=$BG
await_pending 2 && ok "reconcile behind j1: pending (deferred), not refused" \
    || notok "reconcile behind j1 is not pending: $(pending)"
# A second job on other GPUs and links: planned now, devices after j1.
bg POST "$JOBS" j2 "$tmp/j2.json"; P2=$BG
for i in $(seq 1 200); do
    [ "$(phase j2)" = provisioning ] && break
    sleep 0.05
done
used2=$(gpus_in_use)
[ "$(phase j2)" = provisioning ] && [ "$used2" -gt "$used1" ] \
    && ok "j2 is planned meanwhile (provisioning, GPUs $used1 -> $used2) and queues" \
    || notok "j2 while j1 is held: $(phase j2), GPUs $used1 -> $used2"
[ "$(channels_of j1)" = 0 ] && [ "$(channels_of j2)" = 0 ] \
    && ok "no channel of j1 or j2 on a device yet" || notok "channels while held"
release
wait $P1; wait $P2; wait $PR1
[ "$(cat "$tmp/r1.status")" = 200 ] && recon_text "$tmp/r1.body" | grep -q '^0 difference(s)$' \
    && ok "the reconcile queued between j1 and j2: 200, 0 difference(s)" \
    || notok "reconcile between j1 and j2: $(cat "$tmp/r1.status") $(cat "$tmp/r1.body")"
[ "$(cat "$tmp/j1.status")" = 201 ] && grep -q '"phase": "active"' "$tmp/j1.body" \
    && ok "releasing the hold completes j1's POST: 201 active" \
    || notok "j1's POST: $(cat "$tmp/j1.status")"
[ "$(cat "$tmp/j2.status")" = 201 ] && grep -q '"phase": "active"' "$tmp/j2.body" \
    && [ "$(channels_of j2)" -gt 0 ] && [ "$(channels_of j1)" -gt 0 ] \
    && ok "j2's POST completes too: 201 active, both jobs' channels on the devices" \
    || notok "j2's POST: $(cat "$tmp/j2.status")"

# 1b. Drift made behind the daemon's back: j1/lp1 taken off its first
# device, a stranger added on another.  A dry-run reports it and changes
# nothing; then, with j2's DELETE held on the devices, a reconcile is
# pending while /metrics answers, and after the release it reports and
# repairs the drift.  j2 goes (the jobs below are of its size, so that
# each spans two DCs and has lightpaths).
first=$(ls "$DEV"/*.json | while read -r f; do grep -q '"j1/lp1"' "$f" && echo "$f" && break; done)
other=$(ls "$DEV"/*.json | while read -r f; do [ "$f" = "$first" ] || { echo "$f"; break; }; done)
fdev=$(basename "$first" .json); odev=$(basename "$other" .json)
dummy_drift "$first" j1/lp1 "$other"
rm -rf "$tmp/before"; cp -r "$DEV" "$tmp/before"
printf '{"lightrail-job:input":{"dry-run":true}}' > "$tmp/dry.json"
fg POST "$RECON" "$tmp/dry.json"
if [ "$STATUS" = 200 ] && recon_text "$tmp/body" | grep -q '^2 difference(s)$' \
   && recon_text "$tmp/body" | grep -q "^$odev: channel stranger/lp1 (n=100 m=4) is not in the store$" \
   && recon_text "$tmp/body" | grep -q "^$fdev: channel j1/lp1 of job j1 is missing$"; then
    ok "dry-run: both differences reported"
else
    notok "dry-run with drift: $STATUS $(cat "$tmp/body")"
fi
diff -r "$tmp/before" "$DEV" > /dev/null && ok "the dry-run changed no device" \
    || notok "the dry-run changed a device"
hold
bg DELETE "$JOBS/job=j2" d2; PD2=$BG
await_held || notok "j2's DELETE was not held"
bg POST "$RECON" r2; PR2=$BG
await_pending 2 || notok "the reconcile is not pending: $(pending)"
fg GET /metrics
[ "$STATUS" = 200 ] && [ ! -s "$tmp/r2.status" ] && kill -0 $PR2 2>/dev/null \
    && ok "reconcile pending behind j2's held DELETE while GET /metrics answers" \
    || notok "reconcile while held: /metrics $STATUS, reconcile $(cat "$tmp/r2.status")"
grep -q "stranger" "$DEV/$odev.json" && ! grep -q '"j1/lp1"' "$DEV/$fdev.json" \
    && ok "nothing repaired while it waits" || notok "repaired before its turn"
release
wait $PD2; wait $PR2
[ "$(cat "$tmp/d2.status")" = 204 ] && [ "$(channels_of j2)" = 0 ] && used2=$(gpus_in_use) \
    && ok "DELETE j2: 204, its channels gone" || notok "DELETE j2: $(cat "$tmp/d2.status")"
if [ "$(cat "$tmp/r2.status")" = 200 ] && recon_text "$tmp/r2.body" | grep -q '^2 difference(s), repaired$' \
   && recon_text "$tmp/r2.body" | grep -q "^$odev: channel stranger/lp1 (n=100 m=4) is not in the store: removed$" \
   && recon_text "$tmp/r2.body" | grep -q "^$fdev: channel j1/lp1 of job j1 is missing: re-applied$" \
   && ! recon_text "$tmp/r2.body" | grep -q "j2/"; then
    ok "after the release the reconcile reports the drift (not j2's channels) and repairs it"
else
    notok "reconcile after the release: $(cat "$tmp/r2.status") $(cat "$tmp/r2.body")"
fi
! grep -q stranger "$DEV/$odev.json" && grep -q '"j1/lp1"' "$DEV/$fdev.json" \
    && ok "the stranger is gone, j1/lp1 is back" || notok "the devices after the repair"
fg POST "$RECON?dry-run"
[ "$STATUS" = 200 ] && recon_text "$tmp/body" | grep -q '^0 difference(s)$' \
    && ok "after the repair: 0 difference(s)" || notok "after the repair: $(cat "$tmp/body")"
fg GET /metrics
# The start's reconciliation and the four above; 0 + 2 + 2 + 0 drift.
grep -q '^lightrail_reconciles_total 5$' "$tmp/body" \
    && grep -q '^lightrail_reconcile_drift_total 4$' "$tmp/body" \
    && ok "/metrics: 5 reconciles (one at start), 4 differences found" \
    || notok "/metrics: $(grep reconcile "$tmp/body")"

# 2. A device that fails in the device step: the reservation is rolled back.
for f in "$DEV"/*.json; do echo once > "${f%.json}.fail"; done
intent j3 gpt-1.9b 24 > "$tmp/j3.json"
hold
bg POST "$JOBS" j3 "$tmp/j3.json"; P3=$BG
await_held || notok "j3 was not held"
held_used=$(gpus_in_use)
release
wait $P3
after_used=$(gpus_in_use)
rm -f "$DEV"/*.fail
if [ "$(cat "$tmp/j3.status")" = 201 ] && [ "$(phase j3)" = failed ] \
   && grep -q 'injected failure' "$tmp/body" \
   && [ "$after_used" -lt "$held_used" ] && [ "$after_used" = "$used2" ] \
   && [ "$(channels_of j3)" = 0 ]; then
    ok "a failure in the device step: j3 failed, GPUs $held_used -> $after_used, no channel left"
else
    notok "j3: $(cat "$tmp/j3.status") $(phase j3), GPUs $held_used -> $after_used, $(channels_of j3) channels"
fi
fg GET /restconf/data/lightrail-state:state
grep -q '"job": "j3"' "$tmp/body" && notok "j3 still holds spectrum" \
    || ok "j3 holds no spectrum"

# 3. A client that leaves while its POST is pending.
intent j4 gpt-1.9b 24 > "$tmp/j4.json"
hold
bg POST "$JOBS" j4 "$tmp/j4.json"; P4=$BG
await_held || notok "j4 was not held"
kill -9 $P4; wait $P4 2>/dev/null
fg GET "$JOBS"
[ "$STATUS" = 200 ] && ok "the daemon answers after j4's client left" \
    || notok "after the client left: $STATUS"
release
for i in $(seq 1 200); do
    [ "$(phase j4)" = provisioning ] || break
    sleep 0.05
done
p4=$(phase j4)
[ "$p4" = active ] && [ "$(channels_of j4)" -gt 0 ] && kill -0 $PID \
    && ok "j4 ends active without its client; the daemon lives" \
    || notok "j4 without its client: $p4"
fg GET /metrics
grep -q '^lightrail_http_abandoned_total 1$' "$tmp/body" \
    && ok "its answer was dropped: lightrail_http_abandoned_total 1" \
    || notok "abandoned: $(grep abandoned_total "$tmp/body")"

# 4. A DELETE held in the device step.
hold
bg DELETE "$JOBS/job=j4" d4; PD=$BG
await_held || notok "j4's delete was not held"
[ "$(phase j4)" = releasing ] && ok "j4 is releasing while its DELETE is held" \
    || notok "j4 during its DELETE: $(phase j4)"
fg POST "$JOBS" "$tmp/j4.json"
[ "$STATUS" = 409 ] && ok "POST of j4 while it is releasing: 409" \
    || notok "POST while releasing: $STATUS"
release
wait $PD
[ "$(cat "$tmp/d4.status")" = 204 ] && [ "$(phase j4)" = none ] \
    && [ "$(channels_of j4)" = 0 ] \
    && ok "the DELETE completes: 204, j4 and its channels gone" \
    || notok "j4's DELETE: $(cat "$tmp/d4.status"), $(phase j4)"

# 5. SIGTERM while a POST is pending: new requests get 503, the POST is
# answered, then the daemon exits 0.
intent j5 gpt-1.9b 24 > "$tmp/j5.json"
hold
bg POST "$JOBS" j5 "$tmp/j5.json"; P5=$BG
await_held || notok "j5 was not held"
kill -TERM $PID
fg GET "$JOBS"
[ "$STATUS" = 503 ] && ok "draining with a job in flight: 503 to new requests" \
    || notok "while draining: $STATUS"
kill -0 $PID 2>/dev/null && ok "the daemon waits for the device work in flight" \
    || notok "the daemon stopped with a job in flight"
release
wait $P5
wait $PID; rc=$?
PID=
[ $rc = 0 ] && [ "$(cat "$tmp/j5.status")" = 201 ] && grep -q '"phase": "active"' "$tmp/j5.body" \
    && ok "SIGTERM: j5 answered 201 active, then exit 0" \
    || notok "SIGTERM with j5 in flight: exit $rc, POST $(cat "$tmp/j5.status")"
check_store "after SIGTERM"

# 6. kill -9 while a job is provisioning; the restart rolls it back.
start_daemon || notok "no restart"
fg DELETE "$JOBS/job=j5"
[ "$STATUS" = 204 ] || notok "DELETE j5 after the restart: $STATUS"
intent j6 gpt-1.9b 24 > "$tmp/j6.json"
hold
bg POST "$JOBS" j6 "$tmp/j6.json"; P6=$BG
await_held || notok "j6 was not held"
kill_daemon
wait $P6 2>/dev/null
release
rm -f "$DEV"/*.held
start_daemon || notok "no restart after kill -9"
fg GET "$JOBS/job=j6"
[ "$(phase j6)" = failed ] && grep -q 'interrupted' "$tmp/body" \
    && [ "$(channels_of j6)" = 0 ] \
    && ok "kill -9 while j6 provisioned: recovered as failed (interrupted), no channel" \
    || notok "j6 after kill -9: $(phase j6)"
[ "$(phase j1)" = active ] && [ "$(channels_of j1)" -gt 0 ] \
    && ok "j1 survives the crash active" || notok "j1 after the crash: $(phase j1)"
stop_daemon
check_store "after kill -9 and recovery"
lr_summary
