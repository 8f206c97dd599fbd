#!/usr/bin/env python3
"""The agent's goodbye on SIGTERM (tests/cli/agent_term.sh).

A coordinator's connection, its handshake done and a HELLO answered,
idle; the agent (PID given) is sent SIGTERM: the connection receives an
ERROR of id 0 whose text begins "closed: the agent is shutting down
(SIGTERM)" (what the coordinator takes for an agent's close, run again
or reconnected, not a crash), then the TLS close_notify (recv() of b''
with ragged EOFs not suppressed: a bare FIN raises SSLEOFError).
Before, the agent closed the connection with no word and no
close_notify.

With RECORD (the agent's --record file, the agent started with a
--delay-ms under its AGENT_LEAVE_S of 1 s): the HELLO is sent, SIGTERM
once the agent has read it (RECORD has it), while its answer is held:
the HELLO_OK comes first, then that ERROR, then close_notify (a request
in progress is answered first within the bound).

With RECORD and LAYERS (the agent started with --threads 1 and
--max-step-cells 0): connections A and B each send a JOB of LAYERS
layers, then a STEP over all of them, A's first (B's sent once RECORD
has A's: sent together, the agent may read B's first), and SIGTERM
once RECORD has both: A's holds the one DP thread, B's is queued behind
it.  B is told at once (that ERROR, then close_notify), not answered;
A's answer is still to come, or A, its STEP not started by the thread
either, is told so too (tests/cli/agent_term.sh says when).

Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any
failure.

    agent_term.py CERTS_DIR PORT AGENT_NAME COORDINATOR AGENT_PID
                  [RECORD [LAYERS]]
"""
import os
import signal
import socket
import ssl
import struct
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, OK, STEP, Checks, \
    answer_pending, ask, connect, frame, job, read_frame

certs, port, agent, coord, pid = sys.argv[1:6]
record = sys.argv[6] if len(sys.argv) > 6 else None
layers = int(sys.argv[7]) if len(sys.argv) > 7 else None
checks = Checks()
SHUTDOWN = "closed: the agent is shutting down (SIGTERM)"


def answer(sock):
    try:
        t, ident, payload = read_frame(sock)
        return (t if ident == 0 or t != ERROR else f"{t} of id {ident}",
                payload)
    except (EOFError, OSError, ssl.SSLError, socket.timeout) as e:
        return (None, repr(e).encode())


def close_notify(sock, what):
    """The TLS close_notify, what the peer sends after its last frame."""
    try:
        rest = sock.recv(1)
        got = (None if rest else "eof", rest)
    except (OSError, ssl.SSLError, socket.timeout) as e:
        got = (None, repr(e).encode())
    checks.expect(what, got, "eof")


def recorded(what, n, within=60):
    """Waits (at most 'within' s) until RECORD has n messages 'what'."""
    until = time.time() + within
    while time.time() < until and \
            open(record).read().count(f'"type":"{what}"') < n:
        time.sleep(0.02)


if layers is not None:
    step = struct.pack(">IBHHiiddI", 1, 0, 1, 0, 0, layers - 1, 0.0, 0.0,
                       0)
    a = connect(certs, port, agent, coord, timeout=300)
    b = connect(certs, port, agent, coord, timeout=300,
                suppress_ragged_eofs=False)
    checks.expect("A: JOB", job(a, layers), OK)
    checks.expect("B: JOB", job(b, layers), OK)
    a.sendall(frame(STEP, 7, step))
    recorded("step", 1)
    b.sendall(frame(STEP, 8, step))
    recorded("step", 2)
    os.kill(int(pid), signal.SIGTERM)
    checks.expect("B, its STEP queued: told the agent shuts down, not "
                  "answered", answer(b), ERROR, says=SHUTDOWN)
    # B was told at once, not after A's DP: A's answer is still to come,
    # or A was told so too (tests/cli/agent_term.sh says when).
    if answer_pending(a):
        print("ok: B told while A's STEP still holds the DP thread")
    else:
        try:
            t, ident, _ = read_frame(a)
        except (EOFError, OSError) as e:
            t, ident = repr(e), None
        if t == ERROR and ident == 0:
            print("ok: B told, and A, its STEP not started either, told too")
        else:
            checks.failed = True
            print(f"FAIL: A answered {t} (id {ident}) before B was told")
    close_notify(b, "B: then the TLS close_notify")
    sys.exit(1 if checks.failed else 0)

a = connect(certs, port, agent, coord, timeout=20, suppress_ragged_eofs=False)
if record is None:
    checks.expect("HELLO answered", ask(a, HELLO), HELLO_OK)
    os.kill(int(pid), signal.SIGTERM)
else:
    a.sendall(frame(HELLO, 1, b""))
    recorded("hello", 1, within=20)
    os.kill(int(pid), signal.SIGTERM)
    checks.expect("SIGTERM while the HELLO's answer is held: answered first",
                  answer(a), HELLO_OK)
got = answer(a)
checks.expect("SIGTERM: an ERROR of id 0 saying the agent shuts down", got,
              ERROR, says=SHUTDOWN)
if got[0] == ERROR:
    code = struct.unpack(">H", got[1][:2])[0]
    if code == 108:   # ESHUTDOWN
        print("ok: its code is ESHUTDOWN")
    else:
        checks.failed = True
        print(f"FAIL: its code is {code}, want ESHUTDOWN (108)")
close_notify(a, "then the TLS close_notify")
sys.exit(1 if checks.failed else 0)
