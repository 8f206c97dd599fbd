#!/bin/sh
# The restconf driver under lightraild, end to end: four RESTCONF ROADMs
# in a line (tests/data/netconf/line4.json, r1-r2-r3-r4, a DC at each
# end), each a RESTCONF TEST DOUBLE process of its own
# (tests/doubles/restconf-double: HTTPS on 127.0.0.1, a free port, a
# certificate from a CA made here), stopped by their PIDs.  What the
# devices hold is read back independently with curl GET and compared
# with the media channels the store's active jobs imply.
#
#   - a job spanning the two DCs puts JOB/lp1 and JOB/lp2 on all four
#     ROADMs, exactly; deleting it leaves nothing;
#   - a device that answers 500, and one that dies in the middle of its
#     batch: the job fails with the reason and no device holds anything;
#     the one that refused is up in the state's device list, the one
#     that died down (the state, lightrail_device_up, `lightrail
#     devices`), up again once the DELETE reaches it;
#   - drift made behind the daemon's back (a stranger added, a channel
#     removed) is found by `lightrail reconcile --dry-run` (exit 3) and
#     repaired by `lightrail reconcile`;
#   - a restarted lightraild finds the devices as the store says;
#   - lightraild refuses to start when the devices' certificates do not
#     chain to the pinned CA;
#   - its start reads the ca-file once per device (strace), and the
#     devices keep what it read: the file replaced by nonsense once the
#     daemon runs changes nothing, a device restarted included.
# No root needed.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
. "$srcdir/tests/cli/devlib.sh"
DOUBLE=${RESTCONF_DOUBLE:-./tests/doubles/restconf-double}
ROADMS="r1 r2 r3 r4"
dpids=
stop_doubles() {
    for p in $dpids; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    dpids=
}
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; stop_doubles; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# The devices' CA and certificate (IP 127.0.0.1), and a CA that signed
# nothing of theirs.
T=$tmp/tls
mkdir -p "$T"
mkca() {   # mkca NAME
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$T/$1.key" -out "$T/$1.pem" -days 1 -subj "/CN=lr-test-$1" \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
mkca ca && mkca other-ca \
    && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$T/roadm.key" -out "$T/roadm.csr" -subj /CN=127.0.0.1 \
        2>/dev/null \
    && printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$T/ext" \
    && openssl x509 -req -in "$T/roadm.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
        -CAcreateserial -out "$T/roadm.pem" -days 1 -extfile "$T/ext" 2>/dev/null \
    || { echo "skip: openssl cannot make the test CA"; exit 77; }

# start_double R [PORT]: R's double, on PORT when given (a restart).
start_double() {
    rm -f "$tmp/$1.port"
    "$DOUBLE" "$T/roadm.pem" "$T/roadm.key" "$tmp/$1.port" ${2:-} \
        >> "$tmp/$1.log" 2>&1 &
    eval "pid_$1=$!"
    dpids="$dpids $!"
    await_file "$tmp/$1.port" $! "$tmp/$1.log" "restconf-double $1"
}
dev_url() { echo "https://127.0.0.1:$(cat "$tmp/$1.port")"; }
MC=/restconf/data/lightrail-roadm:roadm/media-channels
# rc R METHOD PATH [BODY-FILE]: curl to R's double, as an operator would.
rc() {
    if [ -n "${4:-}" ]; then data="--data-binary @$4"; else data=; fi
    curl -s -o "$tmp/rc.body" -w '%{http_code}' --cacert "$T/ca.pem" \
        -H 'Content-Type: application/yang-data+json' $data -X "$2" "$(dev_url "$1")$3"
}

for r in $ROADMS; do
    start_double $r || { notok "restconf-double $r did not start"; lr_summary; exit 1; }
done
top=$(cd "$srcdir" && pwd)
write_config() {   # write_config CA-FILE > file
    devcfg_head "$top/tests/data/netconf/line4.json" \
        "$top/tests/data/netconf/line4-cluster.json" restconf
    cat <<CFG
      "restconf": { "ca-file": "$1", "timeout-ms": 3000 },
CFG
    devcfg_devices dev_url $ROADMS
}
# The daemon's ca-file is a copy of the CA's certificate (curl here
# uses the original), replaced by nonsense once the daemon runs.
cp "$T/ca.pem" "$T/pinned.pem"
write_config "$T/pinned.pem" > "$D/lightraild.json"

# expected() (devlib.sh) prints the store's media channels in actual()'s
# format.

# What the devices hold, read with curl (not Lightrail's code).
actual() {
    for r in $ROADMS; do
        code=$(rc $r GET "$MC")
        [ "$code" = 200 ] || { echo "$r: GET answered $code"; continue; }
        /usr/bin/python3 - "$r" "$tmp/rc.body" <<'PY'
import json, sys
doc = json.load(open(sys.argv[2]))
for c in doc["lightrail-roadm:media-channels"].get("channel", []):
    print(sys.argv[1], c["name"], c.get("in-port", "-"), c.get("out-port", "-"),
          c["lower-frequency"], c["upper-frequency"], c.get("admin-state", "enabled"))
PY
    done | sort
}

devices_match() {
    expected > "$tmp/want" 2>&1
    actual > "$tmp/have" 2>&1
    if cmp -s "$tmp/want" "$tmp/have"; then
        ok "$1: the devices hold exactly the store's $(wc -l < "$tmp/want") media channels (curl)"
    else
        notok "$1: devices differ from the store: want: $(cat "$tmp/want") | have: $(cat "$tmp/have")"
    fi
}

devices_empty() {
    actual > "$tmp/have" 2>&1
    [ ! -s "$tmp/have" ] && ok "$1: no device holds a media channel (curl)" \
        || notok "$1: left behind: $(cat "$tmp/have")"
}

# 0. A start reads each device's ca-file once: check_files keeps the
# bytes it checked for open(), and libcurl is handed them
# (CURLOPT_CAINFO_BLOB), never the path.  Counted with strace over a
# whole start and stop, four devices (until 2026-12-06: three times
# each, the check, open() and libcurl at the device's first connection).
# LeakSanitizer cannot run under ptrace: off for this run.
if strace -f -qq -e trace=openat -o /dev/null true 2>/dev/null; then
    rm -f "$D/state/lightraild.port"
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        strace -f -qq -e trace=openat -o "$tmp/start.strace" \
        $LIGHTRAILD --config "$D/lightraild.json" --foreground 2> "$tmp/traced.log" &
    SPID=$!
    if await_file "$D/state/lightraild.port" $SPID "$tmp/traced.log" "lightraild (traced)"; then
        kill "$(cat "$D/state/lightraild.pid")"
        wait $SPID
        n=$(grep -c "\"$T/pinned.pem\"" "$tmp/start.strace")
        [ "$n" -eq 4 ] && ok "a start and stop on four devices opens their ca-file 4 times, once each (strace)" \
            || notok "a start and stop on four devices opened the ca-file $n times (want 4): $(grep "pinned.pem" "$tmp/start.strace")"
    else
        notok "lightraild under strace did not start: $(cat "$tmp/traced.log")"
    fi
else
    echo "# skip: strace cannot trace here: the ca-file's openings are not counted"
fi

start_daemon || { notok "lightraild did not start on RESTCONF devices"; lr_summary; exit 1; }
# Once the daemon runs, its ca-file is nonsense: the devices trust the
# bytes read at the start, through 1 to 5 (r2's restart in 3 is a new
# connection); the file is put back before the restart of 6.
echo "not a certificate" > "$T/pinned.pem"

# 1. Provision, read back, delete.
submit j1
if [ "$STATUS" = 201 ] && [ "$(phase)" = active ] && [ "$(n_lightpaths)" = 2 ]; then
    ok "j1 active with two lightpaths"
else
    notok "j1: $STATUS $(cat "$tmp/body")"
fi
devices_match "j1 provisioned"
[ "$(wc -l < "$tmp/want")" -eq 8 ] && ok "j1: two 4-ROADM lightpaths are 8 media channels" \
    || notok "j1: want 8 channels, the store implies $(wc -l < "$tmp/want")"
api DELETE "$JOBS/job=j1"
[ "$STATUS" = 204 ] && ok "j1 deleted" || notok "DELETE j1: $STATUS $(cat "$tmp/body")"
devices_empty "j1 deleted"

# 2. A device answers 500: r3's first change.
[ "$(rc r3 GET '/test-double/fail?change=1')" = 204 ] || notok "cannot arm r3's fault"
submit j2
if [ "$STATUS" = 201 ] && [ "$(phase)" = failed ] \
   && reason | grep -q 'ROADM r3 refused the lightpaths: r3: the device refused POST channel=[0-9]* (HTTP 500, operation-failed): injected failure (test double)'; then
    ok "j2 failed on r3's 500: $(reason)"
else
    notok "j2 with r3 answering 500: $STATUS $(cat "$tmp/body")"
fi
devices_empty "j2 rolled back after r3's 500"
# A refusal is an answer: r3 is up, its reason said.
api GET /restconf/data/lightrail-state:state
jq -e '."lightrail-state:state".device[] | select(.name == "r3")
       | .up and .driver == "restconf" and (.reason | contains("HTTP 500"))
         and (.failures | tonumber) >= 1' "$tmp/body" > /dev/null \
    && ok "state: r3 refused, up, the 500 its reason" \
    || notok "state's r3 after its 500: $(jq -c '."lightrail-state:state".device' "$tmp/body")"

# 3. A device dies in the middle of its batch (r2 ends at its second
# PUT, having accepted the first, before it answers): whether r2 holds
# the channel is unknown, and r2 cannot be asked, so the job keeps its
# slots (releasing) until a DELETE finds r2 again.
[ "$(rc r2 GET '/test-double/die?change=2')" = 204 ] || notok "cannot arm r2's death"
submit j3
if [ "$STATUS" = 201 ] && [ "$(phase)" = releasing ] \
   && reason | grep -q '^provisioning failed and removing its channels again failed: the job keeps its slots, DELETE it to retry; ROADM r2 refused the lightpaths: r2: POST .* went out but its answer was lost'; then
    ok "j3 keeps its slots when r2 died mid-provisioning: $(reason)"
else
    notok "j3 with r2 dying: $STATUS $(cat "$tmp/body")"
fi
wait "$pid_r2" 2>/dev/null
[ $? -eq 9 ] && ok "r2's double died as asked (exit 9)" || notok "r2's double did not die"
# r2 gone: down in the state, the metric and `lightrail devices`.
api GET /restconf/data/lightrail-state:state
jq -e '."lightrail-state:state".device[] | select(.name == "r2")
       | .up == false and (.reason | length > 0)' "$tmp/body" > /dev/null \
    && ok "state: r2 down: $(jq -r '."lightrail-state:state".device[] | select(.name == "r2") | .reason' "$tmp/body")" \
    || notok "state's r2 after it died: $(jq -c '."lightrail-state:state".device' "$tmp/body")"
api GET /metrics "" ""
grep -q '^lightrail_device_up{device="r2",driver="restconf"} 0$' "$tmp/body" \
    && ok "lightrail_device_up of r2 at 0" \
    || notok "metrics after r2 died: $(grep '^lightrail_device_up' "$tmp/body")"
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL devices r2 --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1
rc_=$?
[ $rc_ -eq 3 ] && grep -q '^r2  *restconf  *https://127.0.0.1:[0-9]*  *no  ' "$tmp/out" \
    && ok "lightrail devices r2: no (exit 3)" \
    || notok "lightrail devices r2: exit $rc_, $(cat "$tmp/out")"
start_double r2 "$(cat "$tmp/r2.port")" || notok "r2 did not restart on its port"
api DELETE "$JOBS/job=j3"
[ "$STATUS" = 204 ] && ok "j3 deleted once r2 is back" || notok "DELETE j3: $STATUS $(cat "$tmp/body")"
devices_empty "j3 rolled back after r2 died (r2 restarted)"
api GET /restconf/data/lightrail-state:state
jq -e '."lightrail-state:state".device[] | select(.name == "r2") | .up' \
    "$tmp/body" > /dev/null \
    && ok "state: r2 up again once the DELETE reached it" \
    || notok "state's r2 after its restart: $(jq -c '."lightrail-state:state".device' "$tmp/body")"

# 4. r2 is back: provisioning works again.
submit j4
[ "$(phase)" = active ] && ok "j4 active after r2 came back (a new connection, the ca-file nonsense since the start)" || notok "j4: $STATUS $(cat "$tmp/body")"
devices_match "j4 provisioned"

# 5. Drift behind the daemon's back on r4: a stranger added, j4/lp2
# removed.
lo=$((193100000 + 100 * 6250 - 4 * 6250)); hi=$((193100000 + 100 * 6250 + 4 * 6250))
printf '{"lightrail-roadm:channel":[{"index":1000,"name":"stranger/lp1","in-port":"r3-r4","lower-frequency":"%s","upper-frequency":"%s","admin-state":"enabled"}]}' $lo $hi > "$tmp/stranger.json"
[ "$(rc r4 PUT "$MC/channel=1000" "$tmp/stranger.json")" = 201 ] || notok "PUT stranger on r4: $(cat "$tmp/rc.body")"
rc r4 GET "$MC" > /dev/null
idx=$(/usr/bin/python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["lightrail-roadm:media-channels"]["channel"]:
    if c["name"] == "j4/lp2": print(c["index"])' "$tmp/rc.body")
[ -n "$idx" ] && [ "$(rc r4 DELETE "$MC/channel=$idx")" = 204 ] || notok "DELETE j4/lp2 on r4 (index '$idx')"
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --dry-run --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1
rc_=$?
if [ $rc_ -eq 3 ] && grep -q 'r4: channel stranger/lp1 (n=100 m=4) is not in the store' "$tmp/out" \
   && grep -q 'r4: channel j4/lp2 of job j4 is missing' "$tmp/out"; then
    ok "lightrail reconcile --dry-run reports the stranger and the missing channel on r4 (exit 3)"
else
    notok "reconcile --dry-run: exit $rc_, $(cat "$tmp/out")"
fi
actual > "$tmp/have"
grep -q 'stranger' "$tmp/have" && ok "--dry-run changed nothing" || notok "--dry-run removed the stranger"
LIGHTRAIL_TOKEN=$TOKEN $LIGHTRAIL reconcile --server "$URL" --cacert "$D/tls/cert.pem" > "$tmp/out" 2>&1
rc_=$?
[ $rc_ -eq 0 ] && grep -q '^2 difference(s), repaired' "$tmp/out" \
    && ok "lightrail reconcile repairs them" || notok "reconcile: exit $rc_, $(cat "$tmp/out")"
devices_match "drift on r4 repaired"

# 6. A restart finds the devices as the store says, and keeps j4.
stop_daemon
cp "$T/ca.pem" "$T/pinned.pem"
start_daemon || notok "lightraild did not restart"
api GET "$JOBS/job=j4"
[ "$(phase)" = active ] && ok "j4 still active after a restart" || notok "j4 after restart: $(cat "$tmp/body")"
devices_match "after a restart"
stop_daemon
check_store "lightrail-check: store and devices agree"

# 7. A CA that did not sign the devices' certificates: lightraild
# refuses to start, and says why.
write_config "$T/other-ca.pem" > "$D/wrong.json"
if ! daemon_exits "$D/wrong.json" "$D/wrong.log"; then
    notok "lightraild started with the wrong CA"
elif [ $RC -ne 0 ] && grep -q "ROADM r1: the server's certificate is refused (.*): it must chain to the pinned CA $T/other-ca.pem" "$D/wrong.log"; then
    ok "lightraild refuses devices whose certificate the pinned CA did not sign (exit $RC)"
else
    notok "lightraild with the wrong CA: exit $RC, $(cat "$D/wrong.log")"
fi
# A ca-file that does not load (a folder, no PEM, a key): lightraild
# refuses to start (exit 2, a configuration refused before anything is
# made: lightraild(8); it was exit 1, when the device was opened),
# naming the file and what is wrong with it; it blamed the device ("the
# server's certificate is refused (error setting certificate file:
# ...)").
mkdir -p "$T/folder"
echo "not a certificate" > "$T/notpem.txt"
for c in "$T/folder Is a directory" \
         "$T/notpem.txt not a PEM certificate: no -----BEGIN line" \
         "$T/ca.key not a PEM certificate: its PEM blocks are 'PRIVATE KEY'"; do
    file=${c%% *}; why=${c#* }
    write_config "$file" > "$D/badca.json"
    if ! daemon_exits "$D/badca.json" "$D/badca.log"; then
        notok "lightraild started with the ca-file $file"
    elif [ $RC -eq 2 ] && grep -qF "southbound: ROADM r1: cannot use the ca-file $file ($why): give the PEM certificate of the CA" "$D/badca.log"; then
        ok "lightraild refuses the ca-file $file (exit 2): $why"
    else
        notok "lightraild with the ca-file $file: exit $RC, $(cat "$D/badca.log")"
    fi
done
actual > "$tmp/have"
expected_after=$(wc -l < "$tmp/have")
[ "$expected_after" -eq 8 ] && ok "the refused start changed no device" \
    || notok "after the refused start: $(cat "$tmp/have")"
lr_summary
