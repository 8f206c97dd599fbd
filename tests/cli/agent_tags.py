#!/usr/bin/env python3
"""Commitments are each coordinator's own (tests/cli/agent.sh).

Two coordinators, each with its own certificate, speak the agent protocol
(docs/agent-protocol.md, planner/lr_cdynp_wire.h) to one agent: one
commits a tag; the other can neither release it nor is refused the same
tag for itself; each releases its own.  Prints one line per step, "ok: "
or "FAIL: ", and exits 1 on any failure.

    agent_tags.py CERTS_DIR PORT AGENT_NAME COORD_A COORD_B
"""
import socket
import ssl
import struct
import sys

HELLO, JOB, OK, FINISH_OK, ERROR, COMMIT, RELEASE = 1, 3, 4, 10, 11, 12, 13
certs, port, agent, coord_a, coord_b = sys.argv[1:6]


def connect(name):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(f"{certs}/ca.pem")
    ctx.load_cert_chain(f"{certs}/{name}.pem", f"{certs}/{name}.key")
    raw = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    return ctx.wrap_socket(raw, server_hostname=agent)


def text(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def ask(sock, mtype, payload=b"", ident=[0]):
    ident[0] += 1
    body = b"LRAG" + struct.pack(">HHI", 1, mtype, ident[0]) + payload
    sock.sendall(struct.pack(">I", len(body)) + body)

    def take(n):
        out = b""
        while len(out) < n:
            chunk = sock.recv(n - len(out))
            if not chunk:
                raise EOFError("the agent closed the connection")
            out += chunk
        return out
    n = struct.unpack(">I", take(4))[0]
    answer = take(n)
    return struct.unpack(">H", answer[6:8])[0], answer[12:]


def job(sock):
    layers = b"".join(struct.pack(">ddd", 1e12, 1e8, 1e6) for _ in range(4))
    return ask(sock, JOB, struct.pack(">IdddI", 1, 32.0, 1.0, 2.0, 4) + layers)


def commit(sock, tag):
    return ask(sock, COMMIT, struct.pack(">IBHii", 1, 0, 1, 0, 3) + text(tag))


failed = False


def expect(what, got, want, says=None, not_says=None):
    global failed
    t, payload = got
    if t == want and (says is None or says.encode() in payload) \
            and (not_says is None or not_says.encode() not in payload):
        print(f"ok: {what}")
    else:
        failed = True
        print(f"FAIL: {what}: answer type {t}, want {want}: {payload!r}")


# The job takes every device of the agent, so B's own t1 cannot be
# reserved while A's is: B is refused for want of devices, never because
# A's tag is "committed already".
a, b = connect(coord_a), connect(coord_b)
expect("A's JOB", job(a), OK)
expect("B's JOB", job(b), OK)
expect("A commits t1", commit(a, "t1"), FINISH_OK)
expect("A's t1 twice is refused", commit(a, "t1"), ERROR,
       says="committed already")
expect("B cannot release A's t1", ask(b, RELEASE, text("t1")), ERROR,
       says="by this coordinator")
expect("B's t1 is not A's", commit(b, "t1"), ERROR, says="need devices",
       not_says="committed already")
expect("A releases its t1", ask(a, RELEASE, text("t1")), OK)
expect("A's t1 is gone", ask(a, RELEASE, text("t1")), ERROR)
expect("B commits its t1 once the devices are free", commit(b, "t1"),
       FINISH_OK)
expect("B releases its t1", ask(b, RELEASE, text("t1")), OK)
sys.exit(1 if failed else 0)
