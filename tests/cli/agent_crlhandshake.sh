#!/bin/sh
# A handshake whose client chain the agent verified while its CRL was
# good, and which ends after the agent's timer judged the connections
# up for that CRL going stale (docs/agent-protocol.md, "Revocation"):
# the connection must be judged again when its handshake ends, as
# conn_event() says, not kept under a stale CRL that no timer will look
# at again (the span armed after the judgment no longer counts it).
# The coordinator's last flight is held between the agent's reading of
# its Certificate and the rest by a relay in this test (TLS records
# passed whole), while the agent's clock (tests/cli/clockshift.c, the
# agent's alone) is set 15 minutes forward, past the CRL's next update,
# and a first connection, up, is closed by the timer; then the rest
# goes on.  The relay awaits log lines, bounded; asserts no timing.
# The agent is stopped by its PID.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
mk_clock_shim

# A CRL of 'ca' revoking none, good for ten minutes.
mk_crl crl -crlsec 600 2> "$tmp/crl.err" ||
    { echo "skip: openssl ca cannot make a CRL: $(cat "$tmp/crl.err")"; exit 77; }

agent_file dc2 4 311.111 0.45 80 45.678
jq '."lightrail-agent:agent".tls.crl = "../certs/crl.pem"' "$A/dc2.json" \
    > "$A/held.json"
SHIFT=$tmp/shift
echo 0 > "$SHIFT"
shimmed start_agent held "$A/held.json" || { notok "agent under the clock shim did not start: $(tail -3 "$A/held.log")"; lr_summary; exit; }

python3 - "$C" "$APORT" "$A/held.log" "$SHIFT" "$srcdir/tests/cli" \
    > "$tmp/out" 2>&1 <<'PY'
import select, socket, sys, threading, time
certs, port, log, shift, lib = sys.argv[1:6]
sys.path.insert(0, lib)
from agentwire import connect, hello


def logged(text, until):
    while time.time() <= until:
        if text in open(log).read():
            return True
        time.sleep(0.1)
    return False


# The first connection: its handshake's end arms the agent's timer
# (at most 10 s ahead), which then finds the CRL stale and closes it.
s1 = connect(certs, port, "dc2", "coordinator")
hello(s1, 1)

# The relay: the client's records go to the agent whole, up to its
# first encrypted one (TLS 1.3: the Certificate), the rest held until
# 'go' is set; the agent's go back as they come.
lsn = socket.socket()
lsn.bind(("127.0.0.1", 0))
lsn.listen(1)
held = threading.Event()
go = threading.Event()
sent = threading.Event()


def relay():
    cli, _ = lsn.accept()
    srv = socket.create_connection(("127.0.0.1", int(port)))
    buf, wait = b"", []
    while True:
        if go.is_set() and wait:
            if not sent.is_set():
                print("held:", len(wait), "records", flush=True)
                sent.set()
            srv.sendall(b"".join(wait))
            wait = []
        r, _, _ = select.select([cli, srv], [], [], 0.1)
        for s in r:
            data = s.recv(65536)
            if not data:
                return
            if s is srv:
                cli.sendall(data)
                continue
            buf += data
            while len(buf) >= 5 and len(buf) >= 5 + int.from_bytes(buf[3:5], "big"):
                n = 5 + int.from_bytes(buf[3:5], "big")
                rec, buf = buf[:n], buf[n:]
                if held.is_set():         # in order, once 'go' is set
                    wait.append(rec)
                    continue
                srv.sendall(rec)
                if rec[0] == 23:
                    held.set()


threading.Thread(target=relay, daemon=True).start()
# Four seconds on: the timer wakes about six seconds after the second
# connection's accept, four before its handshake's 10 s are up.
time.sleep(4)
s2 = connect(certs, lsn.getsockname()[1], "dc2", "coordinator")
if not held.wait(5):
    print("relay: nothing held")
# The agent has read the Certificate and verified the chain under the
# CRL still good; its clock is now set past the CRL's next update.
time.sleep(1)
with open(shift, "w") as f:
    f.write("900\n")
# The timer judges the connections up (the first), within its 10 s
# cap; the second's handshake (10 s from accept) is still waiting.
print("first closed:", logged("(nextUpdate): connection to 127.0.0.1:", time.time() + 8))
go.set()
sent.wait(5)
hello(s2, 2)
PY
# The rest of the handshake was held (the Certificate alone went first):
# else it ended before the timer, which judged it with the first.
if grep -q '^hello 1: ok$' "$tmp/out" && grep -q '^first closed: True$' "$tmp/out" &&
   grep -q '^held: [1-9][0-9]* records$' "$tmp/out" &&
   grep -q '^hello 2: closed$' "$tmp/out" &&
   [ "$(grep -c "(nextUpdate): connection to 127.0.0.1:" "$A/held.log")" = 2 ]; then
    ok "agent: a handshake verified before the CRL went stale, ended after the timer judged, is closed"
else
    notok "agent kept a connection whose handshake ended after its CRL went stale: $(cat "$tmp/out"; tail -4 "$A/held.log")"
fi
stop_agent "$APID" || notok "agent did not stop cleanly"
lr_summary
