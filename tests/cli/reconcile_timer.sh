#!/bin/sh
# lightraild's periodic reconciliation (reconcile-interval) against dummy
# ROADMs, whose state files this test edits behind the daemon's back: at
# 1 s, drift (a job's channel removed, a stranger added) is repaired with
# nobody asking, counted in /metrics and logged with its lines; a tick
# while the last one is held in a device is skipped, said and counted
# (the counter equals the lines said); a device that refuses the repair
# fails every tick (each counted, one warning for them all), the daemon
# keeps serving and a later tick repairs once the device accepts, said
# once with the count of failed ticks; at 0 the same drift stays and the
# counters do not move (none skipped); a bad interval is refused at
# start, exit 2.  Nothing is timed: each step polls (every
# 0.1 s, at most 20 s) for the state it expects, and the interval-0 check
# waits 3 s, three ticks of the 1 s interval that repaired above.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
# A repair's apply can be held (southbound/sb_dummy.c).
LIGHTRAIL_TEST_DUMMY_HOLD=1
export LIGHTRAIL_TEST_DUMMY_HOLD
DEV=$D/state/devices

# interval N: the daemon's configuration with reconcile-interval N.
interval() {
    jq --argjson n "$1" '."lightrail-config:lightraild"."reconcile-interval" = $n' \
        "$D/lightraild.json" > "$tmp/cfg" && cp "$tmp/cfg" "$D/lightraild.json"
}
# metric NAME: its value in /metrics.
metric() {
    api GET /metrics
    awk -v n="$1" '$1 == n { print $2 }' "$tmp/body"
}
# await CMD...: until CMD succeeds (every 0.1 s, at most 20 s).
await() {
    for i in $(seq 1 200); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
repaired() {
    ! grep -q stranger "$DEV/$odev.json" && grep -q 'r1job/lp1' "$DEV/$fdev.json"
}
drifted() {
    grep -q stranger "$DEV/$odev.json" && ! grep -q 'r1job/lp1' "$DEV/$fdev.json"
}
counted() {   # counted NAME BEFORE: NAME rose above BEFORE
    [ "$(metric "$1")" -gt "$2" ] 2>/dev/null
}
logged() { grep -q "$1" "$D/log"; }

interval 1
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
printf '{"lightrail-job:job":[{"name":"r1job","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":20,"max":20}}]}\n' > "$tmp/j.json"
api POST "$JOBS" "$tmp/j.json"
grep -q '"phase": "active"' "$tmp/body" && grep -q '"lightpath"' "$tmp/body" \
    || { notok "the job is not active with lightpaths: $(cat "$tmp/body")"; lr_summary; exit 1; }
first=$(ls "$DEV"/*.json | while read -r f; do grep -q 'r1job/lp1' "$f" && echo "$f" && break; done)
other=$(ls "$DEV"/*.json | while read -r f; do grep -q 'r1job' "$f" || { echo "$f"; break; }; done)
[ -n "$first" ] && [ -n "$other" ] || { notok "cannot find the devices to tamper with"; lr_summary; exit 1; }
fdev=$(basename "$first" .json)
odev=$(basename "$other" .json)

# 1 s: repaired with nobody asking, counted, logged with its lines.
rec0=$(metric lightrail_reconciles_total)
drift0=$(metric lightrail_reconcile_drift_total)
per0=$(metric lightrail_reconciles_periodic_total)
fail0=$(metric lightrail_reconcile_periodic_failures_total)
skip0=$(metric lightrail_reconcile_periodic_skipped_total)
[ -n "$rec0" ] && [ -n "$drift0" ] && [ -n "$per0" ] && [ "$fail0" = 0 ] \
    && [ -n "$skip0" ] \
    && grep -q '^# TYPE lightrail_reconcile_periodic_skipped_total counter$' "$tmp/body" \
    && grep -q '^# HELP lightrail_reconcile_periodic_skipped_total ' "$tmp/body" \
    && ok "/metrics has the reconciliation counters (periodic: $per0 ended, $fail0 failed, $skip0 skipped)" \
    || notok "/metrics: '$rec0' '$drift0' '$per0' '$fail0' '$skip0'"
dummy_drift "$first" r1job/lp1 "$other"
if await repaired; then
    ok "interval 1 s: the stranger removed from $odev, r1job/lp1 back on $fdev, nobody asking"
else
    notok "interval 1 s: not repaired within 20 s: $(cat "$DEV/$fdev.json" "$DEV/$odev.json"; tail -n 20 "$D/log")"
fi
await counted lightrail_reconcile_drift_total $((drift0 + 1)) \
    && counted lightrail_reconciles_total "$rec0" \
    && counted lightrail_reconciles_periodic_total "$per0" \
    && ok "the counters rose: drift $drift0 -> $(metric lightrail_reconcile_drift_total) (2 or more), reconciles $rec0 -> $(metric lightrail_reconciles_total)" \
    || notok "the counters: drift $drift0 -> $(metric lightrail_reconcile_drift_total), reconciles $rec0 -> $(metric lightrail_reconciles_total), periodic $per0 -> $(metric lightrail_reconciles_periodic_total)"
await logged "channel stranger/lp1 (n=100 m=4) is not in the store: removed" \
    && logged "periodic reconciliation: [12] difference(s), repaired" \
    && logged "r1job/lp1 of job r1job is missing: re-applied" \
    && ok "the log says what the periodic reconciliation repaired" \
    || notok "the log: $(grep -A3 periodic "$D/log")"
# Nothing to say, nothing said: one line per repair above at most.
n=$(grep -c "periodic reconciliation" "$D/log")
[ "$n" -le 2 ] && ok "no line for the reconciliations without drift ($n lines in all)" \
    || notok "$n lines for periodic reconciliations: $(grep periodic "$D/log")"

# A tick while the last is held in a device: skipped, and said.
# The hold first: a tick between the drift and it would repair unheld.
: > "$DEV/$fdev.hold"
dummy_drift "$first" r1job/lp1 "$other"
if await ls "$DEV/$fdev.held" > /dev/null 2>&1 \
   && await logged "the last one is still queued or running; this tick skipped"; then
    ok "a tick while a periodic reconciliation is held in $fdev: skipped, and logged"
else
    notok "held: no skipped tick: $(tail -n 5 "$D/log")"
fi
await counted lightrail_reconcile_periodic_skipped_total "$skip0" \
    && ok "the skipped tick counted: lightrail_reconcile_periodic_skipped_total $skip0 -> $(metric lightrail_reconcile_periodic_skipped_total)" \
    || notok "held: lightrail_reconcile_periodic_skipped_total '$skip0' -> '$(metric lightrail_reconcile_periodic_skipped_total)'"
api GET "$JOBS"
[ "$STATUS" = 200 ] && ok "GET answers while a periodic reconciliation is held" \
    || notok "GET while held: $STATUS"
rm -f "$DEV/$fdev.hold"
await repaired && ok "released: repaired" || notok "released: not repaired"

# A device that refuses the repair: every tick fails, each counted, the
# first said as a warning and the next ones at debug; the daemon serves;
# a later tick repairs once the device accepts, said once with how many
# ticks failed (the counter's rise).  The log and the counter from here.
log0=$(wc -l < "$D/log")
since() { tail -n "+$((log0 + 1))" "$D/log"; }
fail1=$(metric lightrail_reconcile_periodic_failures_total)
echo always > "$DEV/$fdev.fail"
dummy_drift "$first" r1job/lp1 "$other"
if await counted lightrail_reconcile_periodic_failures_total "$fail1" \
   && await logged "periodic reconciliation failed: $fdev: .*the next tick tries again"; then
    ok "$fdev refuses: the tick failed, counted and logged ($(grep -m1 'periodic reconciliation failed' "$D/log" | cut -c1-160))"
else
    notok "$fdev refuses: $(metric lightrail_reconcile_periodic_failures_total) failures, $(grep -A2 'periodic' "$D/log" | tail -n 6)"
fi
if await counted lightrail_reconcile_periodic_failures_total $((fail1 + 2)); then
    n=$(since | grep -c 'warning: periodic reconciliation failed')
    [ "$n" = 1 ] && since | grep -q "debug: periodic reconciliation failed again ([0-9]* ticks in a row): $fdev: " \
        && ok "3 or more ticks failed ($(metric lightrail_reconcile_periodic_failures_total) counted): one warning, the next ones at debug" \
        || notok "$n warnings for $(metric lightrail_reconcile_periodic_failures_total) failed ticks: $(since | grep 'periodic reconciliation failed' | cut -c1-160)"
else
    notok "$fdev refuses: only $(metric lightrail_reconcile_periodic_failures_total) failed ticks in 20 s"
fi
api GET "$JOBS/job=r1job"
[ "$STATUS" = 200 ] && ok "the daemon serves while ticks fail" || notok "GET while failing: $STATUS"
rm -f "$DEV/$fdev.fail"
await repaired && ok "$fdev accepts again: a later tick repairs" \
    || notok "after the refusal: not repaired"
failed=$(( $(metric lightrail_reconcile_periodic_failures_total) - fail1 ))
if await logged "info: periodic reconciliation succeeded again after $failed failed tick(s): 1 difference(s), repaired"; then
    n=$(since | grep -c 'periodic reconciliation succeeded again')
    [ "$n" = 1 ] && since | grep -A1 'periodic reconciliation succeeded again' | grep -q 'r1job/lp1 of job r1job is missing: re-applied' \
        && ok "recovered: said once, with the $failed failed ticks and what it repaired" \
        || notok "recovered: $n lines: $(since | grep -A1 'succeeded again')"
else
    notok "recovered after $failed failed ticks: $(since | grep 'periodic' | tail -n 4 | cut -c1-200)"
fi
# Every skipped tick counted: the lines said lie between two reads of
# the counter (a skip is counted and said in one turn of the loop).
s1=$(metric lightrail_reconcile_periodic_skipped_total)
n=$(grep -c 'this tick skipped' "$D/log")
s2=$(metric lightrail_reconcile_periodic_skipped_total)
[ "$n" -ge 1 ] && [ "$s1" -le "$n" ] && [ "$n" -le "$s2" ] \
    && ok "lightrail_reconcile_periodic_skipped_total counts every skipped tick ($n said, $s1..$s2 counted)" \
    || notok "skipped ticks: $n said, '$s1'..'$s2' counted"
stop_daemon

# 0: the same drift stays, the counters do not move (after 3 s: three
# ticks of the interval that repaired above).
interval 0
start_daemon || { notok "lightraild (interval 0) did not start"; lr_summary; exit 1; }
rec0=$(metric lightrail_reconciles_total)
drift0=$(metric lightrail_reconcile_drift_total)
per0=$(metric lightrail_reconciles_periodic_total)
dummy_drift "$first" r1job/lp1 "$other"
sleep 3
if drifted && [ "$(metric lightrail_reconciles_total)" = "$rec0" ] \
   && [ "$(metric lightrail_reconcile_drift_total)" = "$drift0" ] \
   && [ "$(metric lightrail_reconciles_periodic_total)" = "$per0" ] && [ "$per0" = 0 ] \
   && [ "$(metric lightrail_reconcile_periodic_skipped_total)" = 0 ]; then
    ok "interval 0: the drift stays and the counters are unchanged (none skipped)"
else
    notok "interval 0: drifted=$(drifted && echo yes || echo no), reconciles $rec0 -> $(metric lightrail_reconciles_total), drift $drift0 -> $(metric lightrail_reconcile_drift_total), periodic $per0, skipped $(metric lightrail_reconcile_periodic_skipped_total)"
fi
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1 \
    && repaired && ok "interval 0: a requested reconciliation still repairs" \
    || notok "interval 0, lightrail reconcile: $(cat "$tmp/out")"
stop_daemon
check_store "lightrail-check: store and devices agree"

# A bad interval: refused at start, exit 2, with the leaf and what it takes.
for case in '86401|Unsatisfied range - value "86401" is out of the allowed range. Allowed: 0 to 86400 seconds.' \
            '-1|Value "-1" is out of type uint32 min/max bounds; want 0 to 86400 seconds.' \
            '"5m"|Invalid non-number-encoded uint32 value "5m"; want 0 to 86400 seconds.'; do
    bad=${case%%|*}
    want=${case#*|}
    interval "$bad"
    rm -rf "$D/state"
    $LIGHTRAILD --config "$D/lightraild.json" --foreground > /dev/null 2> "$tmp/bad.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -F "lightraild.json: /lightrail-config:lightraild/reconcile-interval: $want" "$tmp/bad.err" \
       && [ ! -e "$D/state" ]; then
        ok "reconcile-interval $bad: exit 2, nothing made ($(sed "s|$D/||" "$tmp/bad.err" | cut -c1-200))"
    else
        notok "reconcile-interval $bad: exit $rc: $(cat "$tmp/bad.err")"
    fi
done
lr_summary
