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

Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any
failure.

    agent_term.py CERTS_DIR PORT AGENT_NAME COORDINATOR AGENT_PID [RECORD]
"""
import os
import signal
import socket
import ssl
import struct
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, Checks, ask, connect, frame, \
    read_frame

certs, port, agent, coord, pid = sys.argv[1:6]
record = sys.argv[6] if len(sys.argv) > 6 else None
checks = Checks()
a = connect(certs, port, agent, coord, timeout=20, suppress_ragged_eofs=False)


def answer():
    try:
        t, ident, payload = read_frame(a)
        return (t if ident == 0 or t != ERROR else f"{t} of id {ident}",
                payload)
    except (EOFError, OSError, ssl.SSLError, socket.timeout) as e:
        return (None, repr(e).encode())


if record is None:
    checks.expect("HELLO answered", ask(a, HELLO), HELLO_OK)
    os.kill(int(pid), signal.SIGTERM)
else:
    a.sendall(frame(HELLO, 1, b""))
    until = time.time() + 20
    while time.time() < until and '"type":"hello"' not in open(record).read():
        time.sleep(0.02)
    os.kill(int(pid), signal.SIGTERM)
    checks.expect("SIGTERM while the HELLO's answer is held: answered first",
                  answer(), HELLO_OK)
got = answer()
checks.expect("SIGTERM: an ERROR of id 0 saying the agent shuts down", got,
              ERROR, says="closed: the agent is shutting down (SIGTERM)")
if got[0] == ERROR:
    code = struct.unpack(">H", got[1][:2])[0]
    if code == 108:   # ESHUTDOWN
        print("ok: its code is ESHUTDOWN")
    else:
        checks.failed = True
        print(f"FAIL: its code is {code}, want ESHUTDOWN (108)")
try:
    rest = a.recv(1)
    got = (None if rest else "eof", rest)
except (OSError, ssl.SSLError, socket.timeout) as e:
    got = (None, repr(e).encode())
checks.expect("then the TLS close_notify", got, "eof")
sys.exit(1 if checks.failed else 0)
