#!/bin/sh
# `lightrail reconcile [--dry-run]` against a real lightraild with dummy
# ROADMs (their state is a JSON file per device, which this test edits
# behind the controller's back): the drift is reported, --dry-run changes
# nothing and exits 3, a plain reconcile repairs and exits 0, and the
# devices then agree with the store (lightrail-check); a device that
# refuses its repair does not hide what was repaired elsewhere.  Also the
# command's bad input, and bodies the operation refuses (400, no
# device changed).
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
DEV=$D/state/devices

start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
export LIGHTRAIL_TOKEN=$TOKEN
rec() { $LIGHTRAIL reconcile --server "$URL" --cacert "$D/tls/cert.pem" "$@"; }
# --help names every kind of difference the daemon reports and repairs.
$LIGHTRAIL reconcile --help > "$tmp/help"
grep -q "missing from a device, or one whose spectrum, ports or" "$tmp/help" \
    && grep -q "replaces what differs" "$tmp/help" \
    && ok "reconcile --help: orphans, missing and differing channels" \
    || notok "reconcile --help: $(cat "$tmp/help")"

# A job with lightpaths on the metro ring.
printf '{"lightrail-job:job":[{"name":"r1job","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":20,"max":20}}]}\n' > "$tmp/j.json"
api POST "$JOBS" "$tmp/j.json"
grep -q '"phase": "active"' "$tmp/body" && grep -q '"lightpath"' "$tmp/body" \
    || { notok "the job is not active with lightpaths: $(cat "$tmp/body")"; lr_summary; exit 1; }

rec --dry-run > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^0 difference(s)$' "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "no drift: exit 0, '0 difference(s)'"
else
    notok "no drift: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi

# Drift: one channel of the job removed from its first device, a stranger
# added on another.
first=$(ls "$DEV"/*.json | while read -r f; do grep -q 'r1job/lp1' "$f" && echo "$f" && break; done)
other=$(ls "$DEV"/*.json | while read -r f; do grep -q 'r1job' "$f" || { echo "$f"; break; }; done)
[ -n "$first" ] && [ -n "$other" ] || { notok "cannot find the devices to tamper with"; lr_summary; exit 1; }
dummy_drift "$first" r1job/lp1 "$other"
cp -r "$DEV" "$tmp/before"
fdev=$(basename "$first" .json)
odev=$(basename "$other" .json)

rec --dry-run > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q '^2 difference(s)$' "$tmp/out" \
   && grep -q "^$odev: channel stranger/lp1 (n=100 m=4) is not in the store$" "$tmp/out" \
   && grep -q "^$fdev: channel r1job/lp1 of job r1job is missing$" "$tmp/out"; then
    ok "--dry-run reports both differences and exits 3"
else
    notok "--dry-run with drift: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
diff -r "$tmp/before" "$DEV" > /dev/null && ok "--dry-run changed no device" \
    || notok "--dry-run changed a device"
rec --dry-run --format json > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ] && jq -e '."lightrail-job:output" | .differences == 2 and .repaired == false and (.difference | length) == 2' "$tmp/out" > /dev/null \
    && ok "--dry-run --format json: the operation's output (2 differences, not repaired)" \
    || notok "--dry-run --format json: exit $rc, $(cat "$tmp/out" "$tmp/err")"
# Bodies the operation refuses: 400, the drift left as it was.
RECON=/restconf/operations/lightrail-job:reconcile
printf '{"lightrail-job:input":{"dry-run":"yes"}}' > "$tmp/b1.json"
printf '{"lightrail-job:input":{"dry-run":true}' > "$tmp/b2.json"
printf '{"lightrail-job:input":{"repair":false}}' > "$tmp/b3.json"
# The same leaf twice (json-c alone kept the last: a repair).
printf '{"lightrail-job:input":{"dry-run":true,"dry-run":false}}' > "$tmp/b4.json"
: > "$tmp/b0.json"
# Query parameters it does not know, or not a boolean (?dry_run=true
# once repaired: the query was searched for "dry-run").
for b in "b1 invalid-value" "b2 malformed-message" "b3 invalid-value" \
         "b4 invalid-value" "b0 invalid-value ?dry_run=true" \
         "b0 invalid-value ?dry-run=maybe" "b0 invalid-value ?dry-run&dry-run" \
         "b0 invalid-value ?dry-run&%64ry-run" "b0 malformed-message ?dry-run=%G1"; do
    set -- $b
    api POST "$RECON${3:-}" "$tmp/$1.json"
    if [ "$STATUS" = 400 ] && jq -e --arg t "$2" '."ietf-restconf:errors".error[0]."error-tag" == $t' "$tmp/body" > /dev/null \
       && diff -r "$tmp/before" "$DEV" > /dev/null; then
        ok "reconcile${3:-} with '$(cat "$tmp/$1.json")': 400 $2, no device changed"
    else
        notok "reconcile${3:-} with '$(cat "$tmp/$1.json")': $STATUS $(cat "$tmp/body")"
    fi
done
# The query percent-decoded: ?%64ry-run=%74rue is ?dry-run=true.
api POST "$RECON?%64ry-run=%74rue" "$tmp/b0.json"
[ "$STATUS" = 200 ] && jq -e '."lightrail-job:output" | .differences == 2 and .repaired == false' "$tmp/body" > /dev/null \
   && diff -r "$tmp/before" "$DEV" > /dev/null \
    && ok "reconcile?%64ry-run=%74rue: a dry run, no device changed" \
    || notok "reconcile?%64ry-run=%74rue: $STATUS $(cat "$tmp/body")"

rec > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^2 difference(s), repaired$' "$tmp/out" \
   && grep -q "stranger/lp1 .*: removed$" "$tmp/out" \
   && grep -q "r1job/lp1 of job r1job is missing: re-applied$" "$tmp/out"; then
    ok "reconcile repairs both and exits 0"
else
    notok "reconcile: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
rec --dry-run > "$tmp/out" 2>&1 && grep -q '^0 difference(s)$' "$tmp/out" \
    && ok "after the repair: no drift" || notok "after the repair: $(cat "$tmp/out")"
grep -q stranger "$DEV/$odev.json" && notok "the stranger is still on $odev" \
    || ok "the stranger is gone from $odev"
grep -q 'r1job/lp1' "$DEV/$fdev.json" && ok "r1job/lp1 is back on $fdev" \
    || notok "r1job/lp1 is not back on $fdev"

# A device that refuses its repair: the exit is 1 with the device's
# error, and the report still says what the other devices differed in
# and what was done there (the stranger removed), not just the error.
dummy_drift "$first" r1job/lp1 "$other"
echo always > "$DEV/$fdev.fail"
rec > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "500: $fdev: the repair failed" "$tmp/err" \
   && grep -q '^2 difference(s)$' "$tmp/out" \
   && grep -q "^$odev: channel stranger/lp1 (n=100 m=4) is not in the store: removed$" "$tmp/out" \
   && grep -q "^$fdev: channel r1job/lp1 of job r1job is missing: not re-applied" "$tmp/out"; then
    ok "a repair refused on $fdev: exit 1, and the report of what was done elsewhere"
else
    notok "a repair refused: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
grep -q stranger "$DEV/$odev.json" && notok "the stranger is still on $odev" \
    || ok "the stranger is gone from $odev while $fdev refused"
rec --format json > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && jq -e '."lightrail-job:output" | .differences == 1 and .repaired == false' "$tmp/out" > /dev/null \
    && ok "--format json: the output of the failed reconciliation" \
    || notok "--format json, a repair refused: exit $rc, $(cat "$tmp/out" "$tmp/err")"
rm -f "$DEV/$fdev.fail"
rec > "$tmp/out" 2>&1 && grep -q '^1 difference(s), repaired' "$tmp/out" \
    && ok "the refused repair made once $fdev accepts" || notok "repair after the refusal: $(cat "$tmp/out")"

# Bad input and an unreachable or unauthorised daemon.
expect_bad "unexpected argument 'now'" $LIGHTRAIL reconcile now
expect_bad "--dry-run goes with reconcile only" $LIGHTRAIL job list --dry-run
expect_bad "--reinstall goes with reconcile only" $LIGHTRAIL job list --reinstall
# --reinstall is for ROADMs whose driver's read is its record (mnoptical,
# tests/cli/sb_mnoptical.sh): a dummy's read is its device's, nothing
# is sent again and the answer is a plain reconcile's, its count of
# channels installed again 0.
rec --reinstall > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && head -n 1 "$tmp/out" | grep -q '^0 difference(s), 0 re-installed$' \
    && ! sed 1d "$tmp/out" | grep -q 'install' \
    && ok "reconcile --reinstall on dummy ROADMs: nothing installed again" \
    || notok "reconcile --reinstall on dummies: exit $rc, $(cat "$tmp/out" "$tmp/err")"
LIGHTRAIL_TOKEN= rec --dry-run > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 5 ] && grep -q '401' "$tmp/err" && ok "no token: exit 5" \
    || notok "no token: exit $rc, $(cat "$tmp/err")"
$LIGHTRAIL reconcile --help | grep -q '^usage: lightrail reconcile \[--dry-run\]' \
    && ok "reconcile --help" || notok "reconcile --help"

# The real daemon's YANG library, which the fake below serves with
# lightrail-job's revision put back, as a daemon before 2026-12-07 had it.
api GET /restconf/data/ietf-yang-library:yang-library
if [ "$STATUS" = 200 ] && jq -e '."ietf-yang-library:yang-library"."module-set"[].module[] | select(.name == "lightrail-job")' "$tmp/body" > /dev/null; then
    cp "$tmp/body" "$tmp/ylib.json"
else
    notok "the daemon's YANG library names no lightrail-job: $STATUS $(cat "$tmp/body")"
    echo '{}' > "$tmp/ylib.json"
fi
stop_daemon
check_store "lightrail-check: store and devices agree"

# A fake lightraild on 127.0.0.1, plain HTTP, stopped by its PID,
# whose YANG library is the real daemon's above with lightrail-job at
# REV ("none": no library, a 404, as a daemon before it had one;
# "closed": its GET unanswered, the connection closed; "401": refused): a
# plain reconcile is answered; one with reinstall gets the 400 a daemon
# before that input gives a member its input does not have (error-tag
# invalid-value, error-path the operation's node, libyang's sentence;
# tests/cli/api.sh checks the real daemon still answers so), or with
# REV ending in "+leaf" a 400 of another path (a value refused).  Only
# the library tells an older daemon: --reinstall is said older, exit 7
# as `lightrail devices`, when lightrail-job is before 2026-12-07 or
# unnamed, and the 400 of a daemon at 2026-12-07 or of another path is
# reported as any (until 2026-12-07 every one was, the older's as
# 'Node "reinstall" not found as a child of "reconcile" node'; until
# the library was asked, the tag and path alone said older).
cat > "$tmp/fake_old.py" <<'PY'
import json
import os
import sys
from fakerest import Handler, errors, serve
mode, port_file = sys.argv[1], sys.argv[2]
rev, _, kind = mode.partition("+")
LIB_PATH = "/restconf/data/ietf-yang-library:yang-library"
# The real library, saved by the test next to the port file.
with open(os.path.join(os.path.dirname(port_file), "ylib.json")) as f:
    LIB = json.load(f)
for ms in LIB.get("ietf-yang-library:yang-library", {}).get("module-set", []):
    for m in ms.get("module", []):
        if m.get("name") == "lightrail-job":
            m["revision"] = rev
class H(Handler):
    def do_GET(self):
        if self.path == LIB_PATH and rev == "modules-state":
            # RFC 7895's library alone: no RFC 8525 yang-library.
            self.reply(200, {"ietf-yang-library:modules-state": {
                "module-set-id": "1", "module": [
                    {"name": "lightrail-job", "revision": "2026-12-06",
                     "namespace": "urn:x", "conformance-type": "implement"}]}})
        elif self.path == LIB_PATH and rev == "closed":
            # No answer: the connection closed before any (curl's
            # empty reply), as a daemon gone between the two requests.
            self.close_connection = True
        elif self.path == LIB_PATH and rev == "401":
            self.reply(401)
        elif self.path == LIB_PATH and rev != "none":
            self.reply(200, LIB)
        else:
            self.reply(404)
    def do_POST(self):
        if "reinstall" not in self.body():
            self.reply(200, {"lightrail-job:output": {
                "differences": 0, "repaired": False}})
        elif kind == "leaf":
            self.reply(400, errors("invalid-value", 'invalid value "x"',
                                   "/lightrail-job:reconcile/dry-run"))
        else:
            self.reply(400, errors(
                "invalid-value",
                'Node "reinstall" not found as a child of "reconcile" node.',
                "/lightrail-job:reconcile"))
serve(H, port_file)
PY
# fake_reconcile REV [ARGS...]: `lightrail reconcile ARGS` against the
# fake; sets RC, $tmp/out, $tmp/err and FAKE (its URL).
fake_reconcile() {
    mode=$1
    shift
    lr_fake_run "$tmp/fake_old.py" "$mode" reconcile "$@"
}
UPG="upgrade it, or reconcile without --reinstall (a restart of lightraild installs an active job's channels again)"
if command -v python3 > /dev/null; then
    fake_reconcile 2026-12-06
    [ "$RC" = 0 ] && grep -qx '0 difference(s)' "$tmp/out" \
        && ok "a plain reconcile against a lightraild before reinstall: no count on its line" \
        || notok "plain reconcile against an old lightraild: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_reconcile 2026-12-06 --reinstall
    [ "$RC" = 7 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] \
        && grep -qx "lightrail reconcile: lightraild at $FAKE is older than --reinstall (lightrail-job 2026-12-06, before 2026-12-07: its reconcile has no input 'reinstall'): $UPG" "$tmp/err" \
        && ok "reconcile --reinstall against a lightraild before it: exit 7, says so" \
        || notok "reconcile --reinstall against an old lightraild: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_reconcile none --reinstall
    [ "$RC" = 7 ] && [ "$(wc -l < "$tmp/err")" = 1 ] \
        && grep -qx "lightrail reconcile: lightraild at $FAKE is older than --reinstall (its YANG library names no lightrail-job revision; the input 'reinstall' came with 2026-12-07): $UPG" "$tmp/err" \
        && ok "reconcile --reinstall against a lightraild without a YANG library: exit 7, says so" \
        || notok "reconcile --reinstall, no YANG library: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    # The same 400 from a daemon whose library says 2026-12-07 is its own
    # refusal, printed as it comes (before, the tag and path called it
    # older: exit 7).
    fake_reconcile 2026-12-07 --reinstall
    [ "$RC" = 2 ] && grep -q '400: .*Node "reinstall" not found as a child of "reconcile" node' "$tmp/err" \
        && ! grep -q "older" "$tmp/err" \
        && ok "reconcile --reinstall, the 400 of a daemon at 2026-12-07: its message, not called older" \
        || notok "reconcile --reinstall, a 400 of a daemon at 2026-12-07: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    # A 200 that is no RFC 8525 library tells nothing: said so, the 400
    # printed with its exit code (before, exit 7, "names no lightrail-job
    # revision": an old daemon).
    fake_reconcile modules-state --reinstall
    [ "$RC" = 2 ] && grep -q "is not an RFC 8525 YANG library (no ietf-yang-library:yang-library): cannot tell the server's lightrail-job revision" "$tmp/err" \
        && grep -q '400: .*Node "reinstall" not found' "$tmp/err" \
        && ! grep -q "older" "$tmp/err" \
        && ok "reconcile --reinstall, a library that is no RFC 8525 one: cannot tell, the 400 printed, not called older" \
        || notok "reconcile --reinstall, an RFC 7895 library: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    # A library that cannot be read, its GET unanswered or refused:
    # said, the 400 printed after it, and the exit code the 400's, 2
    # (docs/southbound.md, --help), not the 6 or the 5 of that GET.
    for lib in closed 401; do
        fake_reconcile $lib --reinstall
        [ "$RC" = 2 ] && grep -q '400: .*Node "reinstall" not found' "$tmp/err" \
            && [ "$(wc -l < "$tmp/err")" -ge 2 ] && ! grep -q "older" "$tmp/err" \
            && ok "reconcile --reinstall, the library's GET $lib: said, the 400 printed, exit 2" \
            || notok "reconcile --reinstall, the library's GET $lib: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    done
    fake_reconcile 2026-12-06+leaf --reinstall
    [ "$RC" = 2 ] && grep -q "400: /lightrail-job:reconcile/dry-run: invalid value" "$tmp/err" \
        && ! grep -q "older" "$tmp/err" \
        && ok "reconcile --reinstall, a 400 of another path: reported as any, not called older" \
        || notok "reconcile --reinstall, a 400 of a leaf: exit $RC: $(cat "$tmp/out" "$tmp/err")"
else
    echo "skip: python3 not installed: no fake older lightraild"
fi
lr_summary
