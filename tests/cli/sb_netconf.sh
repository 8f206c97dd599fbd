#!/bin/sh
# The netconf driver and lightraild on real NETCONF devices: four
# netconfd ROADMs in a line (tests/data/netconf/line4.json, r1-r2-r3-r4,
# a DC at each end) behind one private sshd on 127.0.0.1, started here
# (tests/cli/netconf.sh).  Every check of what the devices hold is made
# twice: through the driver (lightrail-check: the store against every
# device, and sbctl) and independently with python3-ncclient, against
# the media channels the store's jobs imply.
#
#   - a job spanning the two DCs puts JOB/lp1 and JOB/lp2 on all four
#     ROADMs, exactly; deleting it leaves nothing;
#   - a device dies (netconfd SIGKILLed while the controller waits on it)
#     in the middle of provisioning a 4-ROADM lightpath: the job fails
#     with a reason naming it and no device holds anything; r3 is down
#     (the state's device list with the driver's line, lightrail_device_up,
#     the log once), the others up, r3 up again once the DELETE reaches
#     it;
#   - a schema-violating edit is refused with the device's message and
#     changes nothing; a wrong pinned host key is refused;
#   - a session swallowed in its setup (a proxy that never answers the
#     first connection) is overtaken by the driver's second attempt;
#   - a hung device (SIGSTOP) times out, the job fails, and after SIGCONT
#     `reconcile` leaves the devices equal to the store; while the POST
#     waits for the hung device, a GET is answered (the device work runs
#     off lightraild's event loop);
#   - a channel made behind the controller's back on the index its next
#     create would take does not fail the next job;
#   - a restarted lightraild finds the devices as the store says; it
#     refuses to start on a device whose host key is not the pinned one.
# Needs root (a user of its own, sshd): skipped (77) otherwise.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/netconf.sh"
nc_can_run || exit 77
. "$srcdir/tests/cli/daemon.sh"
. "$srcdir/tests/cli/devlib.sh"
PROXY=
trap 'kill -9 $PID $PROXY 2>/dev/null; nc_stop; rm -rf "$tmp"' EXIT
SBCTL=${SBCTL:-./tests/cli/sbctl}
ROADMS="r1 r2 r3 r4"

nc_start $ROADMS || { echo "FAIL: the NETCONF devices did not start"; exit 99; }
top=$(cd "$srcdir" && pwd)
SCHEMA=$top/yang:/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:/usr/share/yuma/modules/netconfcentral
{
    devcfg_head "$top/tests/data/netconf/line4.json" \
        "$top/tests/data/netconf/line4-cluster.json" netconf
    cat <<CFG
      "netconf": { "ssh-key": "$NC_KEY", "known-hosts": "$NC_KNOWN",
                   "schema-path": "$SCHEMA", "timeout-ms": 1500 },
CFG
    devcfg_devices nc_address $ROADMS
} > "$D/lightraild.json"
# sbctl is not used to provoke timeouts: a generous one, for a busy
# machine (the daemon's is 1500 ms, for the hung-device case).
export SB_KEY=$NC_KEY SB_KNOWN_HOSTS=$NC_KNOWN SB_SCHEMA_PATH=$SCHEMA SB_TIMEOUT_MS=5000

# expected() (devlib.sh) prints the store's media channels in nc_get's
# format.

# What the devices hold, read with ncclient (not Lightrail's code).
actual_ncclient() {
    for r in $ROADMS; do
        nc_get "$r" | sed "s/^/$r /" || echo "$r: ncclient failed"
    done | sort
}

# What they hold through the driver, in the same format.
actual_driver() {
    for r in $ROADMS; do
        $SBCTL netconf "$r" "$(nc_address "$r")" read 2>&1 |
            awk -v r="$r" '{ if (NF != 6) { print r, "sbctl:", $0; next }
                             lo = 193100000 + $4 * 6250 - $5 * 6250
                             hi = 193100000 + $4 * 6250 + $5 * 6250
                             print r, $1, $2, $3, lo, hi, $6 }'
    done | sort
}

# read_devices WANT-FILE WHAT: reads the devices with ncclient and with the
# driver into $tmp/nc and $tmp/drv until both equal WANT-FILE, at most
# three readings two seconds apart; 0 when they do.  A new SSH session
# can be dropped by sshd's MaxStartups while others are being set up (one
# empty sbctl reading of r3 seen once in an ASan run), and on a machine
# loaded to 4.6 on 2 cores sbctl once waited 15 s in vain for a device's
# hello (r4, after j1's delete; ncclient read it at the same time); a
# real difference persists.
read_devices() {
    for try in 1 2 3; do
        actual_ncclient > "$tmp/nc" 2>&1
        actual_driver > "$tmp/drv" 2>&1
        cmp -s "$1" "$tmp/nc" && cmp -s "$1" "$tmp/drv" && return 0
        [ $try != 3 ] && echo "# $2: reading again after: ncclient: $(cat "$tmp/nc") | driver: $(cat "$tmp/drv")" && sleep 2
    done
    return 1
}

# devices_match WHAT: both readings equal the store's.
devices_match() {
    expected > "$tmp/want" 2>&1
    if read_devices "$tmp/want" "$1"; then
        ok "$1: the devices hold exactly the store's $(wc -l < "$tmp/want") media channels (ncclient and driver)"
    else
        notok "$1: devices differ from the store: want: $(cat "$tmp/want") | ncclient: $(cat "$tmp/nc") | driver: $(cat "$tmp/drv")"
    fi
}

devices_empty() {
    : > "$tmp/none"
    if read_devices "$tmp/none" "$1"; then
        ok "$1: no device holds a media channel (ncclient and driver)"
    else
        notok "$1: left behind: ncclient: $(cat "$tmp/nc") | driver: $(cat "$tmp/drv")"
    fi
}

start_daemon || { notok "lightraild did not start on NETCONF devices"; lr_summary; exit 1; }

# 1. Provision, read back, delete.
submit j1
if [ "$STATUS" = 201 ] && [ "$(phase)" = active ] && [ "$(n_lightpaths)" = 2 ]; then
    ok "j1 active with two lightpaths"
else
    notok "j1: $STATUS $(cat "$tmp/body")"
fi
devices_match "j1 provisioned"
if [ "$(wc -l < "$tmp/want")" -eq 8 ]; then
    ok "j1: two 4-ROADM lightpaths are 8 media channels"
else
    notok "j1: want 8 channels, the store implies $(wc -l < "$tmp/want")"
fi
api DELETE "$JOBS/job=j1"
[ "$STATUS" = 204 ] && ok "j1 deleted" || notok "DELETE j1: $STATUS $(cat "$tmp/body")"
devices_empty "j1 deleted"

# 2. A device dies mid-provisioning: r3's netconfd is stopped so that the
# controller waits on it while r1, r2 and r4 (programmed at the same
# time) take their channels, then killed while it waits: once r1 holds
# one (every device was empty), read with ncclient, rather than after a
# guess of a sleep.
nc_stop_dev r3
(submit j2; echo "$STATUS" > "$tmp/status") &
SUBMIT=$!
for i in $(seq 1 60); do
    [ -n "$(nc_get r1 2>/dev/null)" ] && break
    kill -0 $SUBMIT 2>/dev/null || break
    sleep 0.25
done
[ -n "$(nc_get r1 2>/dev/null)" ] || echo "# r1 took no channel of j2 before r3 was killed"
nc_kill r3
wait $SUBMIT
# Whether r3 took its channels is unknown and r3 cannot be asked: the
# job keeps its slots (releasing) until a DELETE finds r3 again.
if [ "$(cat "$tmp/status")" = 201 ] && [ "$(phase)" = releasing ] \
   && reason | grep -q '^provisioning failed and removing its channels again failed: the job keeps its slots, DELETE it to retry; ROADM r3 refused'; then
    ok "j2 keeps its slots when r3 died mid-provisioning: $(reason)"
else
    notok "j2 after r3 died: $(cat "$tmp/status") $(cat "$tmp/body")"
fi
# With r3's netconfd dead behind a live sshd, the driver says so, not
# what libnetconf2 logs while it cleans up (libyang's dictionary).
$SBCTL netconf r3 "$(nc_address r3)" read > /dev/null 2> "$tmp/err"
if grep -q "EHOSTUNREACH: r3: .*SSH channel unexpected EOF. (is the NETCONF server running behind sshd?)" "$tmp/err" \
   && ! grep -q dictionary "$tmp/err"; then
    ok "a device whose netconfd is dead: $(cat "$tmp/err")"
else
    notok "r3 with its netconfd dead: $(cat "$tmp/err")"
fi
# r3 gone: down in the state with the driver's line, in the metric and
# in the log, once; the other ROADMs answered and are up.
api GET /restconf/data/lightrail-state:state
jq -e '."lightrail-state:state".device[] | select(.name == "r3")
       | .up == false and .driver == "netconf"
         and (.reason | startswith("r3: ")) and has("last-failure")' \
    "$tmp/body" > /dev/null \
    && ok "state: r3 down: $(jq -r '."lightrail-state:state".device[] | select(.name == "r3") | .reason' "$tmp/body")" \
    || notok "state's r3 after it died: $(jq -c '."lightrail-state:state".device' "$tmp/body")"
[ "$(jq '[."lightrail-state:state".device[] | select(.up)] | length' "$tmp/body")" = 3 ] \
    && ok "state: r1, r2 and r4 up" \
    || notok "state's devices: $(jq -c '."lightrail-state:state".device' "$tmp/body")"
api GET /metrics "" ""
grep -q '^lightrail_device_up{device="r3",driver="netconf"} 0$' "$tmp/body" \
    && ok "lightrail_device_up of r3 at 0" \
    || notok "metrics after r3 died: $(grep '^lightrail_device_up' "$tmp/body")"
[ "$(grep -c 'ROADM r3 down: r3: ' "$D/log")" = 1 ] \
    && ok "log: 'ROADM r3 down' once" \
    || notok "log: $(grep 'ROADM r3' "$D/log")"
nc_restart r3 || notok "r3's netconfd did not restart"
api DELETE "$JOBS/job=j2"
[ "$STATUS" = 204 ] && ok "j2 deleted once r3 is back" \
    || notok "DELETE j2: $STATUS $(cat "$tmp/body")"
devices_empty "j2 rolled back after r3 died"
api GET /restconf/data/lightrail-state:state
jq -e '."lightrail-state:state".device[] | select(.name == "r3")
       | .up and (.reason | startswith("r3: "))' "$tmp/body" > /dev/null \
    && ok "state: r3 up again once the DELETE reached it, its last reason kept" \
    || notok "state's r3 after its restart: $(jq -c '."lightrail-state:state".device' "$tmp/body")"
[ "$(grep -c 'ROADM r3 answers again' "$D/log")" = 1 ] \
    && ok "log: 'ROADM r3 answers again' once" \
    || notok "log after: $(grep 'ROADM r3' "$D/log")"

# 3. The device is back: provisioning works again, on a new session.
submit j3
[ "$(phase)" = active ] && ok "j3 active after r3 came back" \
    || notok "j3: $STATUS $(cat "$tmp/body")"
devices_match "j3 provisioned"

# 4. A schema-violating edit: refused with the device's own words,
# nothing changes.
actual_ncclient > "$tmp/before"
$SBCTL netconf r2 "$(nc_address r2)" add bad/lp1 r1-r2 r2-r3 0 0 > /dev/null 2> "$tmp/err"
rc=$?
actual_ncclient > "$tmp/after"
if [ $rc -ne 0 ] && grep -q 'EPROTO: r2: the device refused the edit (operation-failed, lrroadm-frequency-order at .*channel.*): the upper frequency must be above the lower frequency' "$tmp/err" \
   && cmp -s "$tmp/before" "$tmp/after"; then
    ok "a zero-width channel is refused by the device's must, nothing changed: $(cat "$tmp/err")"
else
    notok "zero-width channel: rc $rc, $(cat "$tmp/err"), changed: $(diff "$tmp/before" "$tmp/after")"
fi
$SBCTL netconf r2 "$(nc_address r2)" add "bad/lp2" "not a port" - 0 4 > /dev/null 2> "$tmp/err"
if grep -q 'EPROTO: .*pattern-test-failed at .*in-port' "$tmp/err"; then
    ok "a port name with spaces is refused by the device's pattern"
else
    notok "port with spaces: $(cat "$tmp/err")"
fi
$SBCTL netconf r2 "$(nc_address r2)" add j3/lp1 - - 0 4 > /dev/null 2> "$tmp/err"
grep -q "EEXIST: r2: media channel 'j3/lp1' already exists" "$tmp/err" \
    && ok "a second j3/lp1 is refused" || notok "duplicate: $(cat "$tmp/err")"
actual_ncclient > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && ok "the refused edits changed nothing" \
    || notok "refused edits changed: $(diff "$tmp/before" "$tmp/after")"

# 5. A host key that is not the pinned one is refused.
SB_KNOWN_HOSTS=$NC_WRONG_KNOWN $SBCTL netconf r1 "$(nc_address r1)" read > "$tmp/out" 2> "$tmp/err"
if [ $? -ne 0 ] && [ ! -s "$tmp/out" ] \
   && grep -q "EACCES: r1: .*host key refused: the server's host key differs from the one pinned in $NC_WRONG_KNOWN" "$tmp/err"; then
    ok "a wrong pinned host key is refused"
else
    notok "wrong host key: $(cat "$tmp/out" "$tmp/err")"
fi
: > "$tmp/empty_known"
SB_KNOWN_HOSTS=$tmp/empty_known $SBCTL netconf r1 "$(nc_address r1)" read > /dev/null 2> "$tmp/err"
grep -q "host key refused: no host key is pinned" "$tmp/err" \
    && ok "an unpinned host is refused, not asked about" \
    || notok "unpinned host: $(cat "$tmp/err")"

# 5b. A session lost in its setup: a proxy in front of r1 swallows the
# first connection (accepted, never answered; netconfd does the same to
# about one session in 200 on a loaded machine, see sb_nc_connect).  The
# driver's second attempt, started timeout-ms (5 s) after the first,
# reads r1 within the connection timeout (15 s); without it the read
# fails after 15 s.  At least two connections: on a loaded machine (an
# ASan build beside other work) the second setup may itself outlast
# 5 s, and a third attempt is the driver working as meant.
python3 "$srcdir/tests/cli/stallproxy.py" "$(nc_var NC_PORT_r1)" "$tmp/proxy.count" > "$tmp/proxy.port" &
PROXY=$!
for i in $(seq 1 100); do
    [ -s "$tmp/proxy.port" ] && break
    sleep 0.05
done
pport=$(cat "$tmp/proxy.port")
echo "[127.0.0.1]:$pport $(cut -d' ' -f1,2 "$NC_DIR/hostkey.pub")" > "$tmp/proxy_known"
SB_KNOWN_HOSTS=$tmp/proxy_known $SBCTL netconf r1 "$NC_USER@127.0.0.1:$pport" read > "$tmp/out" 2> "$tmp/err"
rc=$?
$SBCTL netconf r1 "$(nc_address r1)" read > "$tmp/direct" 2>&1
if [ $rc -eq 0 ] && [ -s "$tmp/direct" ] && cmp -s "$tmp/out" "$tmp/direct" \
   && [ "$(cat "$tmp/proxy.count")" -ge 2 ]; then
    ok "a session lost in its setup: attempt $(cat "$tmp/proxy.count") read r1's $(wc -l < "$tmp/out") channels"
else
    notok "swallowed first session: rc $rc, $(cat "$tmp/err"), connections $(cat "$tmp/proxy.count" 2>/dev/null), read $(cat "$tmp/out") | direct $(cat "$tmp/direct")"
fi
kill $PROXY 2>/dev/null
wait $PROXY 2>/dev/null
PROXY=

# 6. A hung device: r2 stops; j4's edit there times out (outcome
# unknown), the read-back and the undo there time out too, so j4 keeps
# its slots (releasing), undone where the devices answer.  r2 may still
# apply the edit when it resumes: reconcile removes those channels (no
# active job holds them), and a DELETE of j4 frees its slots.
api DELETE "$JOBS/job=j3"
[ "$STATUS" = 204 ] || notok "DELETE j3: $STATUS $(cat "$tmp/body")"
nc_stop_dev r2
# The POST waits for r2 on lightraild's device thread; meanwhile the
# loop answers: j4 shows provisioning while that POST is still open.
printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":10,"max":10}}]}\n' j4 > "$tmp/j4.json"
curl -s -o "$tmp/j4.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/yang-data+json" --data-binary "@$tmp/j4.json" \
    --max-time 60 "$URL$JOBS" > "$tmp/j4.status" &
J4=$!
seen=
for i in $(seq 1 200); do
    STATUS=$(curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" --max-time 5 "$URL$JOBS/job=j4")
    if [ "$STATUS" = 200 ] && [ "$(phase)" = provisioning ] && kill -0 $J4 2>/dev/null; then
        seen=yes
        break
    fi
    kill -0 $J4 2>/dev/null || break
done
[ -n "$seen" ] && ok "with r2 hung, a GET answers while j4's POST waits: j4 provisioning" \
    || notok "no GET saw j4 provisioning while its POST waited on the hung r2"
wait $J4
STATUS=$(cat "$tmp/j4.status")
cp "$tmp/j4.body" "$tmp/body"
if [ "$STATUS" = 201 ] && [ "$(phase)" = releasing ] \
   && reason | grep -q 'the job keeps its slots, DELETE it to retry; ROADM r2 refused'; then
    ok "j4 keeps its slots on the hung r2: $(reason)"
else
    notok "j4 with r2 hung: $STATUS $(cat "$tmp/body")"
fi
nc_cont_dev r2
# Wait until r2 answers again (and so has read what was queued for it).
for i in $(seq 1 50); do
    nc_get r2 > /dev/null 2>&1 && break
    sleep 0.2
done
api POST "/restconf/operations/lightrail-job:reconcile"
if [ "$STATUS" = 200 ]; then
    ok "reconcile after r2 resumed: $(recon_text "$tmp/body" | tr '\n' ' ')"
else
    notok "reconcile: $STATUS $(cat "$tmp/body")"
fi
devices_match "after SIGCONT and reconcile"
api DELETE "$JOBS/job=j4"
[ "$STATUS" = 204 ] && ok "j4 deleted once r2 answers" \
    || notok "DELETE j4: $STATUS $(cat "$tmp/body")"
api POST "/restconf/operations/lightrail-job:reconcile?dry-run"
if [ "$STATUS" = 200 ] && [ "$(recon_text "$tmp/body")" = "0 difference(s)" ]; then
    ok "a second reconcile finds no drift"
else
    notok "second reconcile: $STATUS $(cat "$tmp/body")"
fi

# 7. Drift made behind the controller's back is found and repaired.
submit j5
[ "$(phase)" = active ] && ok "j5 active after r2 resumed" \
    || notok "j5: $STATUS $(cat "$tmp/body")"
$SBCTL netconf r4 "$(nc_address r4)" add stranger/lp1 r3-r4 - 100 4 -- del j5/lp2 2> "$tmp/err" \
    || notok "making drift on r4: $(cat "$tmp/err")"
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --dry-run --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q 'r4: channel stranger/lp1' "$tmp/out" && grep -q 'r4: channel j5/lp2 of job j5 is missing' "$tmp/out"; then
    ok "lightrail reconcile --dry-run reports the stranger and the missing channel on r4 (exit 3)"
else
    notok "reconcile --dry-run: exit $rc, $(cat "$tmp/out")"
fi
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^2 difference(s), repaired' "$tmp/out" \
    && ok "lightrail reconcile repairs them" || notok "reconcile: exit $rc, $(cat "$tmp/out")"
devices_match "drift on r4 repaired"

# 8. A restart finds the devices as the store says.
stop_daemon
start_daemon || notok "lightraild did not restart"
devices_match "after a restart"

# 8b. A channel made behind the controller's back takes the index the
# driver's next create on that device would use (r2 is empty after j5's
# delete, for the driver as for sbctl): the device refuses that edit
# (data-exists, nothing applied), and the driver plans it again on what
# the device holds instead of failing the job.
api DELETE "$JOBS/job=j5"
[ "$STATUS" = 204 ] || notok "DELETE j5: $STATUS $(cat "$tmp/body")"
$SBCTL netconf r2 "$(nc_address r2)" add stranger/lp9 r1-r2 - 200 4 2> "$tmp/err" \
    || notok "a stranger on r2: $(cat "$tmp/err")"
submit j6
[ "$(phase)" = active ] && ok "j6 active although a stranger took r2's next index" \
    || notok "j6 beside a stranger on r2: $STATUS $(cat "$tmp/body")"
$SBCTL netconf r2 "$(nc_address r2)" del stranger/lp9 2> "$tmp/err" \
    || notok "removing the stranger from r2: $(cat "$tmp/err")"
devices_match "j6 provisioned beside the stranger, now gone"
stop_daemon

# 9. lightraild refuses to start against a device whose host key is not
# the pinned one, and says which.
sed "s|\"known-hosts\": \"$NC_KNOWN\"|\"known-hosts\": \"$NC_WRONG_KNOWN\"|" \
    "$D/lightraild.json" > "$D/wrong.json"
if ! daemon_exits "$D/wrong.json" "$D/wrong.log"; then
    notok "lightraild started with a wrong pinned host key"
elif [ $RC -ne 0 ] && grep -q "ROADM r1: .*host key refused: the server's host key differs from the one pinned" "$D/wrong.log"; then
    ok "lightraild refuses to start on a wrong host key (exit $RC): $(tail -n 1 "$D/wrong.log")"
else
    notok "lightraild with a wrong host key: exit $RC, $(cat "$D/wrong.log")"
fi

# A known-hosts file that does not exist: refused as such, not as a
# key "not pinned" there.
sed "s|\"known-hosts\": \"$NC_KNOWN\"|\"known-hosts\": \"$NC_KNOWN.absent\"|" \
    "$D/lightraild.json" > "$D/absent.json"
if ! daemon_exits "$D/absent.json" "$D/absent.log"; then
    notok "lightraild started without its known-hosts file"
elif [ $RC -ne 0 ] && grep -q "ROADM r1: .*host key refused: cannot read the known-hosts file $NC_KNOWN.absent (No such file or directory): set known-hosts to a file that pins" "$D/absent.log"; then
    ok "lightraild refuses to start without its known-hosts file (exit $RC): $(tail -n 1 "$D/absent.log")"
else
    notok "lightraild without its known-hosts file: exit $RC, $(cat "$D/absent.log")"
fi

# A loaded machine can keep a device's hello past lightrail-check's
# deadline ("no NETCONF hello ... retry later", nothing sent): retry as
# that message says, twice, before failing.
for try in 1 2; do
    $CHECK --config "$D/lightraild.json" 2> "$tmp/check" && break
    grep -q "retry later" "$tmp/check" || break
    echo "# lightrail-check, try $try: $(cat "$tmp/check"); retrying"
    sleep 2
done
check_store "lightrail-check: store and devices agree"

# No device died but by this test's hand (r3, restarted): a netconfd
# that crashed would explain every check after it.
dead=
for r in $ROADMS; do
    kill -0 "$(nc_var "NC_PID_$r")" 2>/dev/null \
        || dead="$dead $r: $(tail -n 3 "$NC_DIR/$r.log" "$NC_DIR/$r.out" 2>/dev/null | tr '\n' ' ');"
done
[ -z "$dead" ] && ok "every netconfd is still running" \
    || notok "netconfd died:$dead"
lr_summary
