#!/usr/bin/env python3
"""A coordinator cannot hold a connection by trickling a frame
(tests/cli/agent.sh).

An agent started with --frame-timeout 2 --idle-timeout 5: a coordinator
says HELLO (it is past its handshake, then), waits 3 s between two whole
frames (a pause between frames is no trickle: its next HELLO is
answered), then sends a JOB one byte each 0.25 s.  The agent answers an
ERROR that says why and closes the connection before the frame is whole
(within 60 s: far more than the 2 s, the whole frame would take 36 s),
and serves another connection meanwhile.  Below the frame, a connection
that sends a JOB's TLS record a byte each 0.25 s after its HELLO (no
byte of the frame decrypted before the record is whole) is closed
before the record is whole (41 s), --idle-timeout after the HELLO.
(Before, each byte restarted the 600 s idle timeout, and either held
its connection for ever.)
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


def tls_trickled():
    """A connection past its handshake and a HELLO whose next frame's
    TLS record comes a byte each 0.25 s: none of the frame reaches the
    agent before the record is whole.  'closed' when the agent closed
    it (before the record was whole), else why not."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(f"{certs}/ca.pem")
    ctx.load_cert_chain(f"{certs}/{coord}.pem", f"{certs}/{coord}.key")
    raw = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname=agent)
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            raw.sendall(out.read())
            inc.write(raw.recv(65536))
    tls.write(frame(HELLO, 1, b""))
    raw.sendall(out.read())
    got = b""
    while len(got) < 4 or len(got) < 4 + struct.unpack(">I", got[:4])[0]:
        try:
            got += tls.read(65536)
        except ssl.SSLWantReadError:
            inc.write(raw.recv(65536))
    if struct.unpack(">H", got[10:12])[0] != HELLO_OK:
        return f"HELLO answered {got!r}"
    tls.write(job)
    record = out.read()
    start = time.monotonic()
    for i in range(len(record) - 1):
        if time.monotonic() - start > 60:
            return "open after 60 s"
        try:
            raw.sendall(record[i:i + 1])
        except OSError:
            return "closed"
        if select.select([raw], [], [], 0.25)[0]:
            try:
                return "closed" if raw.recv(65536) == b"" else "answered"
            except OSError:
                return "closed"
    return f"open: the record's {len(record) - 1} bytes but its last sent"


checks.expect("a frame's TLS record trickled: closed before it was whole",
              (tls_trickled(), b""), "closed")
sys.exit(1 if checks.failed else 0)
