#!/bin/sh
# Each ROADM's health as an operator sees it, against a real lightraild
# with dummy ROADMs: every device up in lightrail-state's device list and
# lightrail_device_up; one made unreachable (its .fail says 'down')
# fails a DELETE and shows down, with its reason, in the state, the
# metric and `lightrail devices` (exit 3), said once in the log; back up
# once a reconciliation reads it; down from the start of a restart (the
# list starts empty), said in the log.  A lightraild older than the
# device list (a fake one: lightrail-state 2026-12-05 in its YANG
# library, or no library, or no date) is told from one with no ROADM
# (2026-12-06): `lightrail devices` says so and exits 7, not an empty
# table.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"

STATE=/restconf/data/lightrail-state:state
DEVS=$D/state/devices
LIGHTRAIL=${LIGHTRAIL:-./lightrail}

# cli ARGS...: `lightrail devices ARGS` against our daemon; sets RC and
# writes $tmp/out, $tmp/err.
cli() {
    $LIGHTRAIL devices --server "$URL" --token "$TOKEN" \
        --cacert "$D/tls/cert.pem" "$@" > "$tmp/out" 2> "$tmp/err"
    RC=$?
}

start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }

intent d1 gpt-1.9b 64 > "$tmp/d1.json"
api POST $JOBS "$tmp/d1.json"
[ "$STATUS" = 201 ] && ok "POST d1" || notok "POST d1: $STATUS $(cat "$tmp/body")"

# Every ROADM of the topology listed, up, dummy, its directory; d1's
# channels counted where they are.
api GET $STATE
nodes=$(jq '."ietf-network:networks".network[0].node | length' \
        "$srcdir/examples/topologies/metro.json")
jq -e --argjson n "$nodes" --arg dir "$DEVS" '."lightrail-state:state".device
       | length == $n and all(.up and .driver == "dummy" and .address == $dir
                              and (."last-success" | type == "string"))' \
    "$tmp/body" > /dev/null \
    && ok "state: $nodes ROADMs, all up" \
    || notok "state's devices: $(jq -c '."lightrail-state:state".device' "$tmp/body")"
# The ROADM holding most of d1's channels, by its file.
victim=
best=0
for f in "$DEVS"/*.json; do
    n=$(jq '[."media-channels"[]? | select(.name | startswith("d1/"))] | length' "$f")
    if [ "$n" -gt "$best" ]; then best=$n; victim=$(basename "$f" .json); fi
done
[ -n "$victim" ] || { notok "no ROADM holds d1's channels"; lr_summary; exit 1; }
jq -e --arg v "$victim" --argjson n "$best" '."lightrail-state:state".device[]
       | select(.name == $v) | ."media-channels" == $n and (has("reason") | not)' \
    "$tmp/body" > /dev/null \
    && ok "state: $victim holds d1's $best channel(s), no failure" \
    || notok "state: $victim: $(jq -c --arg v "$victim" '."lightrail-state:state".device[] | select(.name == $v)' "$tmp/body")"
api GET /metrics "" ""
[ "$(grep -c '^lightrail_device_up{device="[^"]*",driver="dummy"} 1$' "$tmp/body")" = "$nodes" ] \
    && grep -q "^lightrail_device_media_channels{device=\"$victim\"} $best\$" "$tmp/body" \
    && grep -q "^lightrail_device_operations_total{device=\"$victim\",result=\"failed\"} 0\$" "$tmp/body" \
    && ok "metrics: every ROADM up, $victim's channels, no failure" \
    || notok "metrics: $(grep '^lightrail_device' "$tmp/body")"

cli
[ $RC = 0 ] && head -1 "$tmp/out" | grep -q '^NAME  *DRIVER  *ADDRESS  *UP  *CHANNELS  *LAST-OK  *LAST-FAILURE  *REASON$' \
    && [ "$(grep -c ' yes  ' "$tmp/out")" = "$nodes" ] \
    && grep -q "^$victim  *dummy  *$DEVS  *yes  *$best  *[0-9-]* [0-9:]*  *-  *-\$" "$tmp/out" \
    && ok "lightrail devices: the table, every ROADM up, exit 0" \
    || notok "lightrail devices: exit $RC: $(cat "$tmp/out" "$tmp/err")"

# The ROADM unplugged: the DELETE cannot remove d1's channels there.
echo down > "$DEVS/$victim.fail"
api DELETE "$JOBS/job=d1"
[ "$STATUS" != 204 ] && ok "DELETE d1 with $victim unreachable fails ($STATUS)" \
    || notok "DELETE d1 with $victim down: 204"
api GET $STATE
jq -e --arg v "$victim" --argjson n "$best" '."lightrail-state:state".device[]
       | select(.name == $v) | .up == false and ."media-channels" == $n
         and (.reason | test("unreachable \\(injected .down."))
         and (."last-failure" | type == "string")
         and (.failures | tonumber) > 0' "$tmp/body" > /dev/null \
    && ok "state: $victim down, its reason, d1's channels still there" \
    || notok "state: $victim: $(jq -c --arg v "$victim" '."lightrail-state:state".device[] | select(.name == $v)' "$tmp/body")"
# Said once in the log, whatever fails on it meanwhile.
api DELETE "$JOBS/job=d1"
[ "$(grep -c "ROADM $victim down: $victim: unreachable (injected 'down'" "$D/log")" = 1 ] \
    && ok "log: '$victim down' once, with its reason, after two failed DELETEs" \
    || notok "log: $(grep "ROADM $victim" "$D/log")"
api GET $STATE
# What an operator may check for themselves: the state as served is
# lightrail-state data (yanglint, with the module lightraild embeds).
if command -v yanglint > /dev/null; then
    yanglint -D -p /usr/share/yuma/modules/ietf -p "$srcdir/yang" \
        "$srcdir/yang/lightrail-state.yang" "$tmp/body" > "$tmp/lint" 2>&1 \
        && ok "the state with $victim down is valid lightrail-state data (yanglint)" \
        || notok "yanglint on the state: $(cat "$tmp/lint")"
fi
jq -e --arg v "$victim" '[."lightrail-state:state".device[]
       | select(.name != $v) | .up] | all' "$tmp/body" > /dev/null \
    && ok "state: the other ROADMs up" || notok "state: another ROADM down"
api GET /metrics "" ""
grep -q "^lightrail_device_up{device=\"$victim\",driver=\"dummy\"} 0\$" "$tmp/body" \
    && [ "$(grep -c '^lightrail_device_up{.*} 1$' "$tmp/body")" = $((nodes - 1)) ] \
    && grep -q "^lightrail_device_operations_total{device=\"$victim\",result=\"failed\"} [1-9]" "$tmp/body" \
    && ok "metrics: $victim at 0, its failure counted" \
    || notok "metrics when down: $(grep '^lightrail_device' "$tmp/body")"

cli
[ $RC = 3 ] && grep -q "^$victim  *dummy  *$DEVS  *no  *$best  .*unreachable (injected 'down'" "$tmp/out" \
    && [ "$(grep -c ' yes  ' "$tmp/out")" = $((nodes - 1)) ] \
    && ok "lightrail devices: $victim no, its reason, exit 3" \
    || notok "lightrail devices when down: exit $RC: $(cat "$tmp/out" "$tmp/err")"
cat "$tmp/out"      # the table, for the log
cli "$victim" --format json
[ $RC = 3 ] && jq -e --arg v "$victim" '."lightrail-state:state".device
       | length == 1 and .[0].name == $v and .[0].up == false' "$tmp/out" \
       > /dev/null \
    && ok "lightrail devices $victim --format json: the one, down" \
    || notok "devices --format json: exit $RC: $(cat "$tmp/out" "$tmp/err")"
if command -v yanglint > /dev/null; then
    cp "$tmp/out" "$tmp/one.json"
    yanglint -D -p /usr/share/yuma/modules/ietf -p "$srcdir/yang" \
        "$srcdir/yang/lightrail-state.yang" "$tmp/one.json" > "$tmp/lint" 2>&1 \
        && ok "lightrail devices --format json is lightrail-state data (yanglint)" \
        || notok "yanglint on devices --format json: $(cat "$tmp/lint")"
fi
cli nosuch
[ $RC = 4 ] && grep -q "no ROADM named 'nosuch'" "$tmp/err" \
    && ok "lightrail devices nosuch: exit 4, named" \
    || notok "devices nosuch: exit $RC: $(cat "$tmp/err")"
cli a b
[ $RC = 2 ] && grep -q "unexpected argument 'b'" "$tmp/err" \
    && ok "lightrail devices a b: exit 2" || notok "devices a b: exit $RC: $(cat "$tmp/err")"

# Back: a reconciliation reads it; up again, the failure still said.
rm -f "$DEVS/$victim.fail"
printf '{"lightrail-job:input":{"dry-run":true}}' > "$tmp/dry.json"
api POST /restconf/operations/lightrail-job:reconcile "$tmp/dry.json"
[ "$STATUS" = 200 ] && ok "reconcile with $victim back" \
    || notok "reconcile: $STATUS $(cat "$tmp/body")"
api GET $STATE
jq -e --arg v "$victim" '."lightrail-state:state".device[]
       | select(.name == $v) | .up and (.reason | test("unreachable"))
         and ."last-success" >= ."last-failure"' "$tmp/body" > /dev/null \
    && ok "state: $victim up again, the last failure kept" \
    || notok "state after: $(jq -c --arg v "$victim" '."lightrail-state:state".device[] | select(.name == $v)' "$tmp/body")"
[ "$(grep -c "ROADM $victim answers again" "$D/log")" = 1 ] \
    && ok "log: '$victim answers again' once" \
    || notok "log after: $(grep "ROADM $victim" "$D/log")"
api GET /metrics "" ""
[ "$(grep -c '^lightrail_device_up{.*} 1$' "$tmp/body")" = "$nodes" ] \
    && ok "metrics: every ROADM up again" \
    || notok "metrics after: $(grep '^lightrail_device_up' "$tmp/body")"
cli
[ $RC = 0 ] && grep -q "^$victim  *dummy  *$DEVS  *yes  .*unreachable (injected 'down'" "$tmp/out" \
    && ok "lightrail devices: $victim yes again, the last failure kept, exit 0" \
    || notok "lightrail devices after: exit $RC: $(cat "$tmp/out" "$tmp/err")"
api DELETE "$JOBS/job=d1"
[ "$STATUS" = 204 ] && ok "DELETE d1 once $victim is back" \
    || notok "DELETE d1 after: $STATUS $(cat "$tmp/body")"
api GET $STATE
jq -e '[."lightrail-state:state".device[]."media-channels"] | add == 0' \
    "$tmp/body" > /dev/null \
    && ok "state: no channel left" || notok "state: channels left"

stop_daemon
check_store "the store and the devices agree"

# A restart with the ROADM unreachable: the list starts empty (nothing
# stored), the start's reconciliation finds it down: no success claimed
# for its opening, one operation (that read), and the log says it.
echo down > "$DEVS/$victim.fail"
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
api GET $STATE
jq -e --arg v "$victim" '."lightrail-state:state".device[]
       | select(.name == $v) | (.up | not) and .operations == "1"
         and .failures == "1" and (has("last-success") | not)
         and (.reason | test("unreachable"))' "$tmp/body" > /dev/null \
    && ok "restart: $victim down from the start, one failed read, no success" \
    || notok "restart: $(jq -c --arg v "$victim" '."lightrail-state:state".device[] | select(.name == $v)' "$tmp/body")"
[ "$(grep -c "ROADM $victim down: " "$D/log")" = 2 ] \
    && ok "log: '$victim down' said again at the restart" \
    || notok "log at the restart: $(grep "ROADM $victim" "$D/log")"
stop_daemon
rm -f "$DEVS/$victim.fail"
# Down when the daemon stopped, answering at the next start: shown up,
# as it is, with no reason from before (the history is the log's); a
# stored health would have shown it down, or an old reason, until the
# start's reconciliation replaced it (docs/controller.md, "Each ROADM's
# health": why nothing is stored).
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
api GET $STATE
jq -e --arg v "$victim" '."lightrail-state:state".device[]
       | select(.name == $v) | .up and .operations == "1"
         and .failures == "0" and has("last-success")
         and (has("last-failure") | not) and (has("reason") | not)' \
    "$tmp/body" > /dev/null \
    && ok "restart: $victim answers again: up, one read, nothing from before" \
    || notok "restart, back: $(jq -c --arg v "$victim" '."lightrail-state:state".device[] | select(.name == $v)' "$tmp/body")"
stop_daemon

# A fake lightraild on 127.0.0.1 (plain HTTP) whose state has no device
# list, as one older than 2026-12-06 serves it or one without a ROADM;
# its YANG library names lightrail-state at REV ("none": no library, a
# 404; "status:N": the library refused with HTTP N and an RFC 8040
# error, as a proxy or an access rule in front of the daemon may).
# Stopped by its PID.
cat > "$tmp/fake_state.py" <<'PY'
import sys
from fakerest import Handler, errors, serve
rev, port_file = sys.argv[1], sys.argv[2]
STATE = {"lightrail-state:state": {"counters": {"admitted": "0"}}}
LIB = {"ietf-yang-library:yang-library": {"content-id": "1", "module-set": [
    {"name": "lightrail", "module": [
        {"name": "ietf-network", "revision": "2018-02-26"},
        {"name": "lightrail-state", "revision": rev}]}]}}
LIB_PATH = "/restconf/data/ietf-yang-library:yang-library"
class H(Handler):
    def do_GET(self):
        if self.path == LIB_PATH and rev.startswith("status:"):
            code = int(rev[7:])
            self.reply(code, errors(
                "access-denied", "the fake refuses the library (%d)" % code))
        elif self.path == "/restconf/data/lightrail-state:state":
            self.reply(200, STATE)
        elif self.path == LIB_PATH and rev != "none":
            self.reply(200, LIB)
        else:
            self.reply(404)
serve(H, port_file)
PY
# fake_devices REV [ARGS...]: `lightrail devices ARGS` against the fake
# at REV; sets RC, $tmp/out, $tmp/err and FAKE (its URL).
fake_devices() {
    rev=$1
    shift
    lr_fake_run "$tmp/fake_state.py" "$rev" devices "$@"
}
if command -v python3 > /dev/null; then
    fake_devices 2026-12-05
    [ $RC = 7 ] && [ ! -s "$tmp/out" ] \
        && grep -qx "lightrail devices: lightraild at $FAKE does not report its ROADMs' health (lightrail-state 2026-12-05, before 2026-12-06): upgrade it" "$tmp/err" \
        && ok "lightrail devices against a lightraild of 2026-12-05: exit 7, says so" \
        || notok "devices against an old lightraild: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_devices 2026-12-05 r1 --format json
    [ $RC = 7 ] && [ ! -s "$tmp/out" ] && grep -q "upgrade it" "$tmp/err" \
        && ok "lightrail devices r1 --format json against it: exit 7, not 'no ROADM named'" \
        || notok "devices r1 against an old lightraild: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_devices none
    [ $RC = 7 ] && grep -q "its YANG library names no lightrail-state revision; the device list came with 2026-12-06): upgrade it" "$tmp/err" \
        && ok "lightrail devices against a lightraild without a YANG library: exit 7" \
        || notok "devices without a library: exit $RC: $(cat "$tmp/out" "$tmp/err")"
    # A revision that is no date (here with an escape sequence) is none,
    # and never printed.
    fake_devices "$(printf '2099-01-01\033[2J')"
    [ $RC = 7 ] && grep -q "names no lightrail-state revision" "$tmp/err" \
        && ! grep -q "$(printf '\033')" "$tmp/err" \
        && ok "lightrail devices: a revision that is no date is none, not printed" \
        || notok "devices with a bad revision: exit $RC: $(cat -v "$tmp/err")"
    # A library refused (403, 503) is not a library without the module:
    # the refusal is said with its exit status, as for any request, and
    # the daemon is not called old.
    fake_devices status:403
    [ $RC = 5 ] && [ ! -s "$tmp/out" ] \
        && grep -qx "lightrail devices: 403: the fake refuses the library (403)" "$tmp/err" \
        && ! grep -q "upgrade it" "$tmp/err" \
        && ok "lightrail devices: a YANG library refused (403) is exit 5 with the reason, not 'upgrade it'" \
        || notok "devices with the library refused (403): exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_devices status:503
    [ $RC = 1 ] && [ ! -s "$tmp/out" ] \
        && grep -qx "lightrail devices: 503: the fake refuses the library (503)" "$tmp/err" \
        && ! grep -q "upgrade it" "$tmp/err" \
        && ok "lightrail devices: a YANG library unavailable (503) is exit 1 with the reason, not 'upgrade it'" \
        || notok "devices with the library unavailable (503): exit $RC: $(cat "$tmp/out" "$tmp/err")"
    fake_devices 2026-12-06
    [ $RC = 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l < "$tmp/out")" = 1 ] \
        && head -1 "$tmp/out" | grep -q '^NAME  *DRIVER' \
        && ok "lightrail devices against a lightraild of 2026-12-06 with no ROADM: the empty table, exit 0" \
        || notok "devices against a new lightraild without ROADMs: exit $RC: $(cat "$tmp/out" "$tmp/err")"
else
    echo "# skip: no python3 for the fake old lightraild"
fi
lr_summary
