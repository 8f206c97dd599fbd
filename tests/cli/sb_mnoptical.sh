#!/bin/sh
# lightraild on Mininet-Optical ROADMs with the gOSNR check in
# provisioning: the Mininet-Optical TEST DOUBLE as a process
# (tests/cli/mno-double: t1 - r1 - r2 - r3 - t2, its monitors reporting
# the gOSNR it was started with), the network
# examples/topologies/mnoptical-line3.json (dc1 on r1, dc2 on r3; 8QAM
# at 400 Gb/s, threshold 16 dB), the DCs' terminals t1 and t2 in
# southbound/terminal.
#   - at 17 dB a job is admitted: its rules are on the emulator (whose
#     /rules answers 500 once a rule exists: the documented quirk, here
#     an independent witness), and deleting it removes them (/rules {});
#   - rules the emulator lost (each ROADM /reset): the DELETE is done
#     (the driver asks the emulator), the job gone;
#   - rules the emulator lost are put back by `lightrail reconcile
#     --reinstall` (--dry-run sends nothing), no drift, held once; the
#     output's count of them (reinstalled) on the summary line and in
#     --format json;
#   - a job admitted at 17 dB keeps gosnr 17 on each lightpath; restarted
#     with 8QAM at 18 dB, both are said below it (log, GET), kept as
#     stored; the start installs its channels again (the driver's
#     record is new), said as re-installed and counted apart from the
#     drift (lightrail_reconcile_reinstalled_total 6, drift 0), a
#     reconcile after it finds nothing to do, and deleted after the
#     restart, the emulator holds no rule; a difference found later
#     (a DELETE with the emulator gone leaves the job releasing with
#     its channels on the record) is drift as before;
#   - at 15 dB a job fails with the measured gOSNR, the threshold and the
#     margin, and the emulator holds no rule;
#   - with a modulation-table whose 8QAM needs 18.6 dB, a job fails at
#     17 dB: the check takes the configured table's threshold.
# Each double and daemon is stopped by its PID.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
. "$srcdir/tests/cli/devlib.sh"
DOUBLE=${MNO_DOUBLE:-./tests/cli/mno-double}
dpid=
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; [ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid"; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
top=$(cd "$srcdir" && pwd)

start_double() {   # start_double GOSNR_DB
    rm -f "$tmp/port"
    "$DOUBLE" "$tmp/port" "$1" >> "$tmp/double.log" 2>&1 &
    dpid=$!
    await_file "$tmp/port" "$dpid" "$tmp/double.log" "mno-double" || return 1
    EMU=http://127.0.0.1:$(cat "$tmp/port")
    {
        devcfg_head "$top/examples/topologies/mnoptical-line3.json" \
            "$top/examples/clusters/mnoptical-line3.json" mnoptical
        cat <<CFG
      "mnoptical": { "timeout-ms": 3000 },
      "device": [ { "name": "r1", "address": "$EMU" },
                  { "name": "r2", "address": "$EMU" },
                  { "name": "r3", "address": "$EMU" } ],
      "terminal": [ { "dc": "dc1", "node": "t1", "eth-port": 1 },
                    { "dc": "dc2", "node": "t2", "eth-port": 1 } ]
    }
  }
}
CFG
    } > "$D/lightraild.json"
}
stop_double() { kill "$dpid" 2>/dev/null && wait "$dpid"; dpid=; }
rules() { curl -s -o "$tmp/rules" -w '%{http_code}' "$EMU/rules"; }
metric() {   # metric NAME: its value in /metrics
    api GET /metrics
    awk -v n="$1" '$1 == n { print $2 }' "$tmp/body"
}

# 1. Received.
start_double 17 || { notok "the test double did not start"; lr_summary; exit 1; }
start_daemon || { notok "lightraild did not start on the emulator"; lr_summary; exit 1; }
[ "$(rules)" = 200 ] && ok "the emulator starts without rules" || notok "/rules: $(cat "$tmp/rules")"
submit good
if [ "$STATUS" = 201 ] && [ "$(phase)" = active ]; then
    ok "at 17 dB the job is admitted (8QAM needs 16 dB)"
else
    notok "good: $STATUS $(cat "$tmp/body")"
fi
[ "$(rules)" = 500 ] && ok "its rules are on the emulator" || notok "/rules after admission: $(cat "$tmp/rules")"
api DELETE "$JOBS/job=good"
[ "$STATUS" = 204 ] || notok "DELETE good: $STATUS $(cat "$tmp/body")"
[ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" && ok "deleted: the emulator holds no rule" \
    || notok "/rules after delete: $(cat "$tmp/rules")"

# 1a. The emulator loses an active job's rules behind lightraild's back
# (each ROADM /reset, as a restart of the emulator would): each removal
# draws its 500 for a rule it does not hold.  Until 2026-12-07 every
# DELETE failed so, the job releasing until lightraild restarted; then
# the first failed marking the rules unknown, and a second settled
# them; now the driver asks the emulator (the install again, then the
# removal again) and the first DELETE is done.
submit forgot
[ "$STATUS" = 201 ] && [ "$(phase)" = active ] || notok "forgot: $STATUS $(cat "$tmp/body")"
for n in r1 r2 r3; do
    curl -s -o /dev/null "$EMU/reset?node=$n" || notok "/reset?node=$n"
done
[ "$(rules)" = 200 ] || notok "/rules after the resets: $(cat "$tmp/rules")"
api DELETE "$JOBS/job=forgot"
[ "$STATUS" = 204 ] && ok "a DELETE of rules the emulator lost is done: 204" \
    || notok "DELETE forgot after the resets: $STATUS $(cat "$tmp/body")"
api GET "$JOBS/job=forgot"
[ "$STATUS" = 404 ] && [ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" \
    && ok "forgot is gone, the emulator holds no rule" \
    || notok "after forgot's DELETEs: GET $STATUS, /rules $(cat "$tmp/rules")"

# 1d. Rules the emulator lost while lightraild runs (each ROADM /reset)
# are put back by `lightrail reconcile --reinstall`, with no restart:
# the driver's record shows them, so no plain reconcile can see them
# (until 2026-12-07 the docs said to restart lightraild).  --dry-run
# says what it would send and sends nothing; the re-install is no
# drift; the emulator takes it as the same rules, so the DELETE after
# it leaves none.
rec() { LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --server "$URL" --cacert "$D/tls/cert.pem" "$@"; }
submit lost
[ "$STATUS" = 201 ] && [ "$(phase)" = active ] || notok "lost: $STATUS $(cat "$tmp/body")"
for n in r1 r2 r3; do
    curl -s -o /dev/null "$EMU/reset?node=$n" || notok "/reset?node=$n"
done
again0=$(metric lightrail_reconcile_reinstalled_total)
rec > "$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^0 difference(s)$' "$tmp/out" && [ "$(rules)" = 200 ] \
    || notok "a plain reconcile over lost rules: exit $rc, $(cat "$tmp/out"), /rules $(cat "$tmp/rules")"
rec --reinstall --dry-run > "$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(grep -c "of job lost: on its driver's record, not read from the ROADM: would be installed again$" "$tmp/out")" = 6 ] \
    && grep -q '^0 difference(s), 6 to re-install$' "$tmp/out" \
    && [ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" \
    && ok "reconcile --reinstall --dry-run says the 6 rules, sends nothing" \
    || notok "reconcile --reinstall --dry-run: exit $rc, $(cat "$tmp/out"), /rules $(cat "$tmp/rules")"
rec --reinstall --format json > "$tmp/json" 2>&1
rc=$?
again=$(metric lightrail_reconcile_reinstalled_total)
[ $rc = 0 ] && grep -q '"reinstalled": *6' "$tmp/json" \
    && [ "$again" = $((again0 + 6)) ] \
    && ok "reconcile --reinstall --format json counts the 6 rules (reinstalled)" \
    || notok "reconcile --reinstall --format json: exit $rc, re-installed $again0 -> $again, $(cat "$tmp/json")"
again0=$again
rec --reinstall > "$tmp/out" 2>&1
rc=$?
again=$(metric lightrail_reconcile_reinstalled_total)
[ $rc = 0 ] && grep -q '^0 difference(s), 6 re-installed$' "$tmp/out" \
    && [ "$(grep -c "of job lost: re-installed (its driver's record is no read of the ROADM)$" "$tmp/out")" = 6 ] \
    && [ "$(rules)" = 500 ] && [ "$again" = $((again0 + 6)) ] \
    && ok "reconcile --reinstall puts the 6 lost rules back, no drift: $(sed -n 2p "$tmp/out")" \
    || notok "reconcile --reinstall: exit $rc, re-installed $again0 -> $again, $(cat "$tmp/out"), /rules $(cat "$tmp/rules")"
api DELETE "$JOBS/job=lost"
[ "$STATUS" = 204 ] && [ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" \
    && ok "lost deleted at once: each rule was held once" \
    || notok "DELETE lost after the re-install: $STATUS $(cat "$tmp/body"), /rules $(cat "$tmp/rules")"

# 1b. The gOSNR each receiver measured is kept: restarted with 8QAM's
# threshold raised to 18 dB, it is below it, said at start and in GET,
# the job kept as stored (test_ctl_mnoptical witnesses that no terminal
# is tuned again: this double's process logs no calls).  The start
# re-installs every channel of the store (mnoptical's read is its
# record, empty in a new process), which the emulator takes as the same
# rules: the DELETE after it leaves none (until 2026-12-07 the double
# held the re-install as a second rule, and one was left).
submit kept
jq -e '."lightrail-job:job"[0].state | .phase == "active" and (.lightpath | length == 2 and all(.gosnr | tonumber == 17))' "$tmp/body" > /dev/null \
    && ok "each lightpath keeps the gOSNR its receiver measured: 17 dB" \
    || notok "no measured gosnr on kept's lightpaths: $STATUS $(cat "$tmp/body")"
stop_daemon
cp "$D/lightraild.json" "$D/plain.json"
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\nBPSK,100000,1,9\nQPSK,2500,2,12\n8QAM,1250,3,18\n16QAM,625,4,20\n' \
    > "$D/raised.csv"
jq '.["lightrail-config:lightraild"]["modulation-table"] = "raised.csv"' \
    "$D/plain.json" > "$D/lightraild.json"
: > "$D/log"
start_daemon || { notok "lightraild did not restart with 8QAM at 18 dB"; lr_summary; exit 1; }
want="measured 17.0 dB at provisioning, below 8QAM's 18.0 dB threshold in the modulation table"
[ "$(grep -c -F "$want: kept as stored, no device reprogrammed; give 8QAM a threshold of at most 17.0 dB back" "$D/log")" = 2 ] \
    && ok "the start says both lightpaths were measured below 18 dB: $(grep -m 1 -F "$want" "$D/log")" \
    || notok "no word of the measured gOSNR at start: $(cat "$D/log")"
api GET "$JOBS/job=kept"
[ "$STATUS" = 200 ] \
    && jq -e --arg w "$want" '."lightrail-job:job"[0].state | .phase == "active" and (.lightpath | all((.gosnr | tonumber == 17) and ."modulation-mismatch" == $w))' "$tmp/body" > /dev/null \
    && ok "GET: kept active, its lightpaths' gosnr 17 with the mismatch" \
    || notok "GET kept on a raised threshold: $STATUS $(cat "$tmp/body")"
grep -q "channel kept/lp1 of job kept: re-installed: the driver's record starts empty" "$D/log" \
    && ! grep -q 'is missing' "$D/log" \
    && ok "the start installed kept's channels again (the driver's record is new)" \
    || notok "no re-install at start: $(cat "$D/log")"
# Until 2026-12-07 each re-install was drift: 6 at every restart.
drift=$(metric lightrail_reconcile_drift_total)
again=$(metric lightrail_reconcile_reinstalled_total)
[ "$drift" = 0 ] && [ "$again" = 6 ] \
    && ok "/metrics: the start's 6 re-installs are no drift" \
    || notok "/metrics after the start: drift '$drift', re-installed '$again'"
api POST '/restconf/operations/lightrail-job:reconcile?dry-run=true'
[ "$STATUS" = 200 ] && recon_text "$tmp/body" | grep -q '^0 difference(s)$' \
    && ok "after the start a reconcile finds nothing to install again" \
    || notok "reconcile after the restart: $STATUS $(cat "$tmp/body")"
api DELETE "$JOBS/job=kept"
[ "$STATUS" = 204 ] || notok "DELETE kept: $STATUS $(cat "$tmp/body")"
[ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" \
    && ok "restarted, then deleted: the emulator holds none of kept's rules" \
    || notok "/rules after a restart and a DELETE: $(cat "$tmp/rules")"
stop_daemon
cp "$D/plain.json" "$D/lightraild.json"

# 1c. Real drift after a start is counted as before.  A rule the
# emulator loses behind lightraild's back is none it can see (the
# record is the read, docs/southbound.md); a DELETE that cannot reach
# the emulator leaves the job releasing with its channels on the
# record, which the store then wants on no ROADM.
start_daemon || { notok "lightraild did not start for 1c"; lr_summary; exit 1; }
submit late
[ "$STATUS" = 201 ] && [ "$(phase)" = active ] || notok "late: $STATUS $(cat "$tmp/body")"
stop_daemon
start_daemon || { notok "lightraild did not restart over late"; lr_summary; exit 1; }
drift=$(metric lightrail_reconcile_drift_total)
again=$(metric lightrail_reconcile_reinstalled_total)
[ "$drift" = 0 ] && [ "$again" = 6 ] \
    || notok "/metrics after the start over late: drift '$drift', re-installed '$again'"
stop_double
api DELETE "$JOBS/job=late"
[ "$STATUS" != 204 ] || notok "DELETE late with the emulator gone: 204"
api POST '/restconf/operations/lightrail-job:reconcile?dry-run=true'
recon_text "$tmp/body" > "$tmp/recon"
drift=$(metric lightrail_reconcile_drift_total)
again=$(metric lightrail_reconcile_reinstalled_total)
head -n 1 "$tmp/recon" | grep -q '^6 difference(s)$' \
    && grep -q 'r1: channel late/lp1 (.*) is of job late, which is releasing: the store wants none' "$tmp/recon" \
    && [ "$drift" = 6 ] && [ "$again" = 6 ] \
    && ok "later drift is counted: 6 differences, drift 6, re-installed still 6" \
    || notok "later drift: drift '$drift', re-installed '$again': $(cat "$tmp/recon")"
stop_daemon

# 2. Not received.
start_double 15 || { notok "the test double did not restart"; lr_summary; exit 1; }
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
submit weak
if [ "$STATUS" = 201 ] && [ "$(phase)" = failed ] \
   && reason | grep -q 'is not received: t[12] -> t[12]: gOSNR 15.0 dB on channel 5 is 1.0 dB below 8QAM'"'"'s threshold of 16.0 dB'; then
    ok "at 15 dB the job fails naming gOSNR, threshold and margin: $(reason)"
else
    notok "weak: $STATUS $(cat "$tmp/body")"
fi
[ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" && ok "refused: the emulator holds no rule" \
    || notok "/rules after the refusal: $(cat "$tmp/rules")"
stop_daemon
stop_double

# 3. The threshold is the configured table's (modulation-table): the
# DeepRMSA file's 8QAM needs 18.6 dB, so 17 dB, received above, is not.
start_double 17 || { notok "the test double did not restart"; lr_summary; exit 1; }
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\nBPSK,100000,1,12.6\nQPSK,2500,2,12.6\n8QAM,1250,3,18.6\n16QAM,625,4,22.4\n' \
    > "$D/deeprmsa.csv"
jq '.["lightrail-config:lightraild"]["modulation-table"] = "deeprmsa.csv"' \
    "$D/lightraild.json" > "$D/table.json" && mv "$D/table.json" "$D/lightraild.json"
start_daemon || { notok "lightraild did not start with the table"; lr_summary; exit 1; }
submit strict
if [ "$STATUS" = 201 ] && [ "$(phase)" = failed ] \
   && reason | grep -q 'gOSNR 17.0 dB on channel 5 is 1.6 dB below 8QAM'"'"'s threshold of 18.6 dB'; then
    ok "with the table's 18.6 dB the job fails at 17 dB: $(reason)"
else
    notok "strict: $STATUS $(cat "$tmp/body")"
fi
[ "$(rules)" = 200 ] && grep -q '^{}$' "$tmp/rules" && ok "refused by the table: the emulator holds no rule" \
    || notok "/rules after the table's refusal: $(cat "$tmp/rules")"
stop_daemon
check_store "lightrail-check: store and devices agree"
lr_summary
