#!/bin/sh
# The netconf driver over TLS with mutual certificates (RFC 7589), against
# tests/unit/nc_tls_peer, a NETCONF-over-TLS ROADM test double on
# libnetconf2's server (netconfd has no TLS), one process per ROADM on
# 127.0.0.1, stopped by PID.  Certificates are made here with openssl
# (agentlib.sh's mk_ca and mk_cert): CA "ca" signs the ROADMs (r1..r4,
# each certificate naming its ROADM) and the controller ("lightraild");
# CA "other" signs an impostor ROADM and an impostor controller.  What a
# peer holds is read independently of the driver, from the datastore
# file it rewrites after every change (--dump).
#
#   1. the driver (sbctl) applies, reads back and deletes media channels;
#   2. a schema-violating edit is refused with the device's words and
#      changes nothing;
#   3. a device certificate from another CA, or one that does not name
#      the device, is refused with a clear error (EACCES); a TLS server
#      that is not NETCONF, or sends a broken <hello>, is a clear error
#      (and no crash);
#   4. a controller certificate from a CA the device does not trust, and
#      no certificate at all, are refused by the device;
#   5. a peer killed and restarted: the next read is made on a new
#      session;
#   6. a hung peer (SIGSTOP): EHOSTUNREACH for a new connection (no
#      session, nothing sent; ETIMEDOUT until 2026-12-06), ETIMEDOUT
#      for an edit on a live session (outcome unknown);
#   7. lightraild on four TLS peers (tests/data/netconf/line4.json):
#      a job's lightpaths are exactly what the peers hold, deleting it
#      leaves nothing, lightrail-check agrees, a restart changes nothing,
#      and lightraild refuses to start when the devices' certificates do
#      not chain to its CA.
# With LR_VALGRIND set (make check LR_VALGRIND=1), the driver's round
# trips (1-4) run under valgrind's memcheck; a leak or error fails them.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/agentlib.sh"
. "$srcdir/tests/cli/daemon.sh"
. "$srcdir/tests/cli/devlib.sh"
PEER=${PEER:-./tests/unit/nc_tls_peer}
SBCTL_BIN=${SBCTL:-./tests/cli/sbctl}
PEER_PIDS=
trap 'kill -9 $PID $PEER_PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
command -v openssl > /dev/null || { echo "skip: no openssl"; exit 77; }

if [ -n "${LR_VALGRIND:-}" ]; then
    VG="valgrind -q --error-exitcode=66 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite"
else
    VG=
fi
top=$(cd "$srcdir" && pwd)
SCHEMA=$top/yang:/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:/usr/share/yuma/modules/netconfcentral
P=$tmp/peers
mkdir -p "$P"

mk_ca ca && mk_ca other \
    && mk_cert ca ctl lightraild && mk_cert other ctl_other lightraild \
    && mk_cert other r1_other r1 \
    || { echo "FAIL: openssl cannot make the certificates"; exit 99; }
for r in r1 r2 r3 r4; do
    mk_cert ca "$r" "$r" || { echo "FAIL: certificate of $r"; exit 99; }
done

# The driver's settings for sbctl (a generous timeout for valgrind and a
# busy machine; the hang checks set their own).
export SB_TRANSPORT=tls SB_TLS_CERT=$C/ctl.pem SB_TLS_KEY=$C/ctl.key \
    SB_TLS_CA=$C/ca.pem SB_SCHEMA_PATH=$SCHEMA SB_TIMEOUT_MS=5000
sbctl() { $VG "$SBCTL_BIN" "$@"; }

# start_peer NAME [PORT [CERT]]: a peer with certificate $C/CERT.pem
# (default NAME's) on PORT (default: any free one); sets NAME's port in
# $P/NAME.port, its PID in $P/NAME.pid and PEER_PIDS.
start_peer() {
    rm -f "$P/$1.port"
    $PEER --cert "$C/${3:-$1}.pem" --key "$C/${3:-$1}.key" --ca "$C/ca.pem" \
        --schema-path "$SCHEMA" --port "${2:-0}" --port-file "$P/$1.port" \
        --dump "$P/$1.json" > /dev/null 2>> "$P/$1.log" &
    echo $! > "$P/$1.pid"
    PEER_PIDS="$PEER_PIDS $!"
    await_file "$P/$1.port" $! "$P/$1.log" "peer $1" 200
}
port() { cat "$P/$1.port"; }
pid() { cat "$P/$1.pid"; }
addr() { echo "127.0.0.1:$(port "$1")"; }
kill_peer() { kill -9 "$(pid "$1")" 2>/dev/null; wait "$(pid "$1")" 2>/dev/null; }

# first_read SBPID: waits (up to 20 s) until the sbctl in the
# background has printed its first read into $tmp/out (emptied before
# it started), so that what the test does to the peer next falls in
# sbctl's sleep, however loaded the machine.
first_read() {
    i=0
    while [ ! -s "$tmp/out" ] && kill -0 "$1" 2>/dev/null && [ $i -lt 400 ]; do
        sleep 0.05
        i=$((i + 1))
    done
}
# held NAME...: what the peers hold, from their own datastore files, one
# line per media channel: DEVICE NAME IN OUT LOWER-MHZ UPPER-MHZ STATE.
held() {
    for r in "$@"; do
        /usr/bin/python3 - "$r" "$P/$r.json" <<'PY'
import json, sys
dev, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
chans = doc.get("lightrail-roadm:roadm", {}).get("media-channels", {}).get("channel", [])
for c in chans:
    print(dev, c["name"], c.get("in-port", "-"), c.get("out-port", "-"),
          c["lower-frequency"], c["upper-frequency"], c.get("admin-state", "enabled"))
PY
    done | sort
}

start_peer r1 || { notok "peer r1 did not start"; lr_summary; exit 1; }

# 1. Apply, read back, delete.
sbctl netconf r1 "$(addr r1)" add j1/lp1 - r1-r2 0 4 -- add j1/lp2 r0-r1 r1-r2 -8 2 -- read > "$tmp/out" 2> "$tmp/err"
rc=$?
printf 'j1/lp1 - r1-r2 0 4 enabled\nj1/lp2 r0-r1 r1-r2 -8 2 enabled\n' > "$tmp/want"
if [ $rc -eq 0 ] && cmp -s "$tmp/want" "$tmp/out"; then
    ok "two media channels applied over TLS and read back through the driver"
else
    notok "apply/read over TLS: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
held r1 > "$tmp/held"
printf 'r1 j1/lp1 - r1-r2 193075000 193125000 enabled\nr1 j1/lp2 r0-r1 r1-r2 193037500 193062500 enabled\n' > "$tmp/want"
cmp -s "$tmp/want" "$tmp/held" && ok "the peer's own datastore holds exactly those two channels" \
    || notok "peer r1 holds: $(cat "$tmp/held")"
sbctl netconf r1 "$(addr r1)" del j1/lp1 -- read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "j1/lp2 r0-r1 r1-r2 -8 2 enabled" ] \
   && [ "$(held r1 | cut -d' ' -f2)" = "j1/lp2" ]; then
    ok "a deleted channel is gone from the driver's reading and the peer's datastore"
else
    notok "delete over TLS: rc $rc, $(cat "$tmp/out" "$tmp/err"), peer: $(held r1)"
fi

# 2. A schema-violating edit: the device's words, nothing changed.
held r1 > "$tmp/before"
sbctl netconf r1 "$(addr r1)" add bad/lp1 r1-r2 r2-r3 0 0 > /dev/null 2> "$tmp/err"
rc=$?
held r1 > "$tmp/after"
if [ $rc -eq 1 ] && grep -q "EPROTO: r1: the device refused the edit (operation-failed, lrroadm-frequency-order at /lightrail-roadm:roadm/media-channels/channel\[index='[0-9]*'\]): the upper frequency must be above the lower frequency: give the channel a width of at least 12.5 GHz; nothing applied" "$tmp/err" \
   && cmp -s "$tmp/before" "$tmp/after"; then
    ok "a zero-width channel is refused by the device's must, nothing changed"
else
    notok "zero-width channel: rc $rc, $(cat "$tmp/err"), changed: $(diff "$tmp/before" "$tmp/after")"
fi
sbctl netconf r1 "$(addr r1)" add bad/lp2 "not a port" - 0 4 > /dev/null 2> "$tmp/err"
rc=$?
held r1 > "$tmp/after"
if [ $rc -eq 1 ] && grep -q 'EPROTO: r1: the device refused the edit (invalid-value at .*in-port): .*pattern.*; nothing applied' "$tmp/err" \
   && cmp -s "$tmp/before" "$tmp/after"; then
    ok "a port name with spaces is refused by the device's pattern, nothing changed"
else
    notok "port with spaces: rc $rc, $(cat "$tmp/err"), changed: $(diff "$tmp/before" "$tmp/after")"
fi

# 3. The device's certificate: from another CA, or not naming the device.
start_peer impostor 0 r1_other || notok "peer impostor did not start"
sbctl netconf r1 "$(addr impostor)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] \
   && grep -q "EACCES: r1: TLS handshake with $(addr impostor) failed: certificate verify failed ([a-z ]*certificate[a-z ]*): give the CA that signed the device's certificate in southbound/netconf/tls/ca (now $C/ca.pem)" "$tmp/err"; then
    ok "a device certificate from another CA is refused: $(cat "$tmp/err")"
else
    notok "device certificate from another CA: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
kill_peer impostor
sbctl netconf r2 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "EACCES: r2: TLS handshake with $(addr r1) failed: the device's certificate does not name 'r2'" "$tmp/err"; then
    ok "a certificate that names another device is refused"
else
    notok "certificate of another device: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi

# A TLS server with r1's certificate that is not a (working) NETCONF
# server: a greeting that is not XML is refused before libnetconf2 sees
# it; a broken <hello> fails inside libnetconf2 (whose cleanup would
# crash the process without the driver's workaround, sb_netconf_tls.c).
# bad_server PAYLOAD: python3 serving PAYLOAD on every TLS connection,
# sets BPID and BPORT.
bad_server() {
    rm -f "$P/bad.port"
    /usr/bin/python3 - "$C" "$P/bad.port" "$1" <<'PY' 2> "$P/bad.log" &
import socket, ssl, sys, threading, time
c, portfile, payload = sys.argv[1], sys.argv[2], sys.argv[3].encode()
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(c + "/r1.pem", c + "/r1.key")
ctx.load_verify_locations(c + "/ca.pem")
ctx.verify_mode = ssl.CERT_REQUIRED
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(8)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % ls.getsockname()[1])
import os
os.rename(portfile + ".tmp", portfile)
def serve(s):
    try:
        t = ctx.wrap_socket(s, server_side=True)
        t.sendall(payload)
        time.sleep(1)
        t.close()
    except Exception:
        s.close()
while True:
    s, _ = ls.accept()
    threading.Thread(target=serve, args=(s,), daemon=True).start()
PY
    BPID=$!
    PEER_PIDS="$PEER_PIDS $BPID"
    await_file "$P/bad.port" $BPID "$P/bad.log" "bad server" 200 || return 1
    BPORT=$(cat "$P/bad.port")
}
if bad_server 'SSH-2.0-OpenSSH_9.2'; then
    sbctl netconf r1 "127.0.0.1:$BPORT" read > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "EHOSTUNREACH: r1: TLS session with 127.0.0.1:$BPORT: the device's first bytes are not a NETCONF <hello> ('SSH-2.0-OpenSSH_9.2'): is it a NETCONF over TLS server?" "$tmp/err"; then
        ok "a TLS server that does not speak NETCONF is refused with a clear error"
    else
        notok "not NETCONF: rc $rc, $(cat "$tmp/out" "$tmp/err")"
    fi
    kill "$BPID"; wait "$BPID" 2>/dev/null
else
    notok "the bad server did not start: $(cat "$P/bad.log")"
fi
if bad_server '<hello>no namespace</hello>]]>]]>'; then
    sbctl netconf r1 "127.0.0.1:$BPORT" read > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "EHOSTUNREACH: r1: NETCONF over TLS with 127.0.0.1:$BPORT failed after the TLS handshake: .*: check that the device speaks NETCONF" "$tmp/err"; then
        ok "a broken <hello> is a clear error, not a crash: $(cat "$tmp/err")"
    else
        notok "broken hello: rc $rc, $(cat "$tmp/out" "$tmp/err")"
    fi
    kill "$BPID"; wait "$BPID" 2>/dev/null
else
    notok "the bad server did not start: $(cat "$P/bad.log")"
fi

# A schema path without ietf-netconf (libnetconf2 2.0.24 would crash on
# it after the hello): refused before the session is handed over.
SB_SCHEMA_PATH=$top/yang sbctl netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "EINVAL: r1: the schema path $top/yang has no ietf-netconf module: add its directory" "$tmp/err"; then
    ok "a schema path without ietf-netconf is a clear error, not a crash"
else
    notok "schema path without ietf-netconf: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi

# 4. Our certificate: from a CA the device does not trust, or none.
SB_TLS_CERT=$C/ctl_other.pem SB_TLS_KEY=$C/ctl_other.key sbctl netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] \
   && grep -q "EACCES: r1: TLS session with $(addr r1) failed: the device refused our client certificate (tlsv1 alert unknown ca): give a certificate and key signed by a CA the device trusts in southbound/netconf/tls/certificate and key" "$tmp/err"; then
    ok "the device refuses a controller certificate from another CA, and the driver says so"
else
    notok "client certificate from another CA: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
SB_TLS_KEY=$C/ctl_other.key sbctl netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] \
   && grep -q "EINVAL: r1: the key $C/ctl_other.key is not the private key of the certificate $C/ctl.pem: give the matching pair" "$tmp/err"; then
    ok "a client key of another certificate: $(cat "$tmp/err")"
else
    notok "client key of another certificate: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
SB_TLS_CERT= sbctl netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "EINVAL: r1: NETCONF over TLS needs a client certificate, its key and the CA that signs the devices" "$tmp/err"; then
    ok "the driver will not connect without a client certificate"
else
    notok "no client certificate: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
# ... and the device refuses a client without one (openssl s_client).
sleep 1 | openssl s_client -connect "$(addr r1)" -CAfile "$C/ca.pem" -quiet > "$tmp/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "alert certificate required" "$tmp/out" && ! grep -q "<hello" "$tmp/out"; then
    ok "the device refuses a client without a certificate (certificate required, no hello)"
else
    notok "client without certificate: rc $rc, $(cat "$tmp/out")"
fi
held r1 > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && ok "the refused clients changed nothing on the device" \
    || notok "refused clients changed r1: $(diff "$tmp/before" "$tmp/after")"

# 5. The peer dies and comes back on the same port: the driver's next
# read is made on a new session (one sbctl, one device handle).
: > "$tmp/out"    # empty before sbctl starts: first_read reads it
"$SBCTL_BIN" netconf r1 "$(addr r1)" read -- sleep 3000 -- read -- add j2/lp1 - r1-r2 16 4 -- read > "$tmp/out" 2> "$tmp/err" &
SB=$!
first_read $SB
R1PORT=$(port r1)
kill_peer r1
start_peer r1 "$R1PORT" || notok "peer r1 did not restart on port $R1PORT"
wait $SB
rc=$?
# Before: j1/lp2; after the restart the new peer is empty, then j2/lp1.
printf 'j1/lp2 r0-r1 r1-r2 -8 2 enabled\nj2/lp1 - r1-r2 16 4 enabled\n' > "$tmp/want"
if [ $rc -eq 0 ] && cmp -s "$tmp/want" "$tmp/out" \
   && [ "$(held r1 | cut -d' ' -f2)" = "j2/lp1" ]; then
    ok "after the peer was killed and restarted, the driver re-made its session and applied on it"
else
    notok "peer restart: rc $rc, $(cat "$tmp/out" "$tmp/err"), peer: $(held r1)"
fi

# 6. A hung peer (SIGSTOP).  A new connection: no TLS handshake within
# the connection timeout, no session, nothing sent.  A live session: the edit's reply never comes
# (the outcome is unknown).
kill -STOP "$(pid r1)"
SB_TIMEOUT_MS=300 "$SBCTL_BIN" netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err"
rc=$?
kill -CONT "$(pid r1)"
if [ $rc -eq 1 ] && grep -q "EHOSTUNREACH: r1: no TLS handshake from $(addr r1) within [0-9]* ms (device hung?): nothing sent" "$tmp/err"; then
    ok "a hung peer times out at connection: $(cat "$tmp/err")"
else
    notok "hung peer at connection: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
# The read (r1 holds j2/lp1) is printed before the peer stops; the
# edit after the sleep finds it hung.  2 s, not 300 ms: the session must
# come up first on a loaded machine (the handshake is given twice that).
: > "$tmp/out"
SB_TIMEOUT_MS=2000 "$SBCTL_BIN" netconf r1 "$(addr r1)" read -- sleep 1500 -- add j3/lp1 - r1-r2 32 4 > "$tmp/out" 2> "$tmp/err" &
SB=$!
first_read $SB
kill -STOP "$(pid r1)"
wait $SB
rc=$?
kill -CONT "$(pid r1)"
if [ $rc -eq 1 ] && grep -q "ETIMEDOUT: r1: no reply from $(addr r1) within 2000 ms: the outcome is unknown; read the device back" "$tmp/err"; then
    ok "an edit on a live session to a hung peer is ETIMEDOUT, outcome unknown"
else
    notok "hung peer on a live session: rc $rc, $(cat "$tmp/out" "$tmp/err")"
fi
"$SBCTL_BIN" netconf r1 "$(addr r1)" read > "$tmp/out" 2> "$tmp/err" \
    && ok "the peer answers again after SIGCONT" \
    || notok "after SIGCONT: $(cat "$tmp/err")"
kill_peer r1

# 7. lightraild on four TLS peers.
for r in r1 r2 r3 r4; do
    start_peer "$r" || notok "peer $r did not start"
done
{
    devcfg_head "$top/tests/data/netconf/line4.json" \
        "$top/tests/data/netconf/line4-cluster.json" netconf
    cat <<CFG
      "netconf": { "transport": "tls",
                   "tls": { "certificate": "$C/ctl.pem", "key": "$C/ctl.key",
                            "ca": "$C/ca.pem" },
                   "schema-path": "$SCHEMA", "timeout-ms": 5000 },
CFG
    devcfg_devices addr r1 r2 r3 r4
} > "$D/lightraild.json"

# expected() (devlib.sh) prints the store's media channels in held()'s
# format.
if start_daemon; then
    submit j1
    [ "$STATUS" = 201 ] && [ "$(phase)" = active ] && ok "lightraild: j1 active on four TLS ROADMs" \
        || notok "lightraild j1: $STATUS $(cat "$tmp/body")"
    expected > "$tmp/want"
    held r1 r2 r3 r4 > "$tmp/held"
    if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/held"; then
        ok "the peers hold exactly the store's $(wc -l < "$tmp/want") media channels"
    else
        notok "peers differ from the store: want: $(cat "$tmp/want") | held: $(cat "$tmp/held")"
    fi
    # lightrail-check opens the store: the daemon must not hold it.
    stop_daemon
    check_store "lightrail-check: store and TLS devices agree"
    start_daemon || notok "lightraild did not restart on TLS devices: $(cat "$D/log")"
    held r1 r2 r3 r4 > "$tmp/held"
    cmp -s "$tmp/want" "$tmp/held" && ok "a restarted lightraild leaves the peers as the store says" \
        || notok "after a restart: want: $(cat "$tmp/want") | held: $(cat "$tmp/held")"
    api DELETE "$JOBS/job=j1"
    [ "$STATUS" = 204 ] && ok "lightraild: j1 deleted" || notok "DELETE j1: $STATUS $(cat "$tmp/body")"
    held r1 r2 r3 r4 > "$tmp/held"
    [ ! -s "$tmp/held" ] && ok "a deleted job leaves nothing on any TLS ROADM" \
        || notok "left behind: $(cat "$tmp/held")"
    # Stopped here rather than by stop_daemon, for its exit status (a
    # sanitizer's report fails it).
    kill "$PID" && wait "$PID"
    rc=$?
    PID=
    [ $rc -eq 0 ] && ok "lightraild stops cleanly after driving TLS ROADMs" \
        || notok "lightraild exit $rc on SIGTERM: $(tail -n 20 "$D/log")"
else
    notok "lightraild did not start on TLS devices: $(cat "$D/log")"
fi

# lightraild refuses to start when the devices' certificates do not chain
# to its CA, and says which device and why.
sed "s|\"ca\": \"$C/ca.pem\"|\"ca\": \"$C/other.pem\"|" "$D/lightraild.json" > "$D/wrong.json"
if ! daemon_exits "$D/wrong.json" "$D/wrong.log"; then
    notok "lightraild started although the devices' certificates are from another CA"
elif [ $RC -ne 0 ] && grep -q "r1: TLS handshake with $(addr r1) failed: certificate verify failed" "$D/wrong.log"; then
    ok "lightraild refuses to start on devices its CA did not sign (exit $RC)"
else
    notok "lightraild with another CA: exit $RC, $(cat "$D/wrong.log")"
fi

# lightraild refuses to start when its certificate, key or CA for the
# devices does not load, and says which file and what is wrong with it
# (it said OpenSSL's 'PEM lib' or 'no certificate or crl found'); exit 2,
# a configuration refused before anything is made (lightraild(8)); it
# was exit 1, found when the devices were opened.
mkdir -p "$C/folder"
echo "not a certificate" > "$C/notpem.txt"
for c in "certificate $C/folder client certificate $C/folder (Is a directory): give a PEM certificate chain in southbound/netconf/tls/certificate" \
         "key $C/notpem.txt client key $C/notpem.txt (not a PEM private key: no -----BEGIN line): give the PEM private key in southbound/netconf/tls/key" \
         "ca $C/ctl.key CA file $C/ctl.key (not a PEM certificate: its PEM blocks are 'PRIVATE KEY'): give the PEM certificate of the CA"; do
    leaf=${c%% *}; rest=${c#* }; file=${rest%% *}; want=${rest#* }
    jq --arg leaf "$leaf" --arg file "$file" \
        '.["lightrail-config:lightraild"].southbound.netconf.tls[$leaf] = $file' \
        "$D/lightraild.json" > "$D/badfile.json"
    if ! daemon_exits "$D/badfile.json" "$D/badfile.log"; then
        notok "lightraild started with the devices' $leaf $file"
    elif [ $RC -eq 2 ] && grep -qF "southbound: ROADM r1: cannot use the $want" "$D/badfile.log"; then
        ok "lightraild refuses the devices' $leaf $file (exit 2): $(grep -F "cannot use" "$D/badfile.log")"
    else
        notok "lightraild with the devices' $leaf $file: exit $RC, $(cat "$D/badfile.log")"
    fi
done

for r in r1 r2 r3 r4; do kill "$(pid "$r")" 2>/dev/null; done
for r in r1 r2 r3 r4; do
    wait "$(pid "$r")"
    [ $? -eq 0 ] || notok "peer $r did not stop cleanly on SIGTERM: $(cat "$P/$r.log")"
done
PEER_PIDS=
lr_summary
