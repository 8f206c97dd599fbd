#!/usr/bin/env python3
"""A coordinator cannot hold a connection by trickling a frame
(tests/cli/agent.sh).

An agent started with --frame-timeout 2: a coordinator says HELLO (it is
past its handshake, then), waits longer than that between two whole
frames (an idle connection is no trickle: its next HELLO is answered),
then sends a JOB one byte each 0.25 s.  The agent answers an ERROR that
says why and closes the connection before the frame is whole (within
60 s: far more than the 2 s, the whole frame would take 20 s or more),
and serves another connection meanwhile.  (Before, each byte restarted
the 600 s idle timeout, and the frame held its connection for ever.)
Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any failure.

    agent_trickle.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import select
import socket
import ssl
import struct
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, JOB, Checks, ask, connect, \
    frame, read_frame

certs, port, agent, coord = sys.argv[1:5]
checks = Checks()
a = connect(certs, port, agent, coord)
checks.expect("HELLO answered", ask(a, HELLO), HELLO_OK)
time.sleep(3)
checks.expect("HELLO answered after 3 s between frames", ask(a, HELLO),
              HELLO_OK)

layers = b"".join(struct.pack(">ddd", 1e12, 1e8, 1e6) for _ in range(4))
job = frame(JOB, 99, struct.pack(">IdddI", 1, 32.0, 1.0, 2.0, 4) + layers)
got, sent, start = None, 0, time.monotonic()
while sent < len(job) - 1 and time.monotonic() - start < 60:
    try:
        a.sendall(job[sent:sent + 1])
        sent += 1
    except (OSError, ssl.SSLError):
        break
    if a.pending() or select.select([a], [], [], 0.25)[0]:
        try:
            t, _, payload = read_frame(a)
            got = (t, payload)
        except (EOFError, OSError, ssl.SSLError) as e:
            got = (None, repr(e).encode())
        break
if got is None:
    try:
        a.settimeout(60 - min(60, time.monotonic() - start) + 1)
        t, _, payload = read_frame(a)
        got = (t, payload)
    except (EOFError, OSError, ssl.SSLError, socket.timeout) as e:
        got = (None, repr(e).encode())
checks.expect(f"a JOB trickled ({sent} of {len(job)} bytes sent) refused "
              "with the reason", got, ERROR,
              says="a frame not whole 2 s after its first byte")
closed = False
try:
    a.settimeout(30)
    closed = a.recv(1) == b""
except socket.timeout:
    closed = False
except (EOFError, OSError, ssl.SSLError):
    closed = True
if closed and sent < len(job):
    print("ok: ... and the connection closed before the frame was whole")
else:
    checks.failed = True
    print(f"FAIL: connection open after the refusal, or the frame whole "
          f"({sent} of {len(job)} bytes)")
b = connect(certs, port, agent, coord)
checks.expect("another connection served", ask(b, HELLO), HELLO_OK)
sys.exit(1 if checks.failed else 0)
