#!/usr/bin/env python3
"""A fake agent for tests/cli/agent.sh: it answers HELLO as DC_NAME and
refuses JOB with ERROR CODE, as an agent of another version might; any
other request gets the same ERROR.  It serves one connection at a time
on 127.0.0.1, writes its port to PORT_FILE once listening, and runs until
the test stops it by its PID.

    agent_fake.py CERTS_DIR CERT_NAME DC_NAME CODE PORT_FILE
"""
import os
import socket
import ssl
import struct
import sys

HELLO, HELLO_OK, ERROR = 1, 2, 11

certs, cert, dc, code, port_file = sys.argv[1:6]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.load_cert_chain(f"{certs}/{cert}.pem", f"{certs}/{cert}.key")
ctx.load_verify_locations(f"{certs}/ca.pem")
ctx.verify_mode = ssl.CERT_REQUIRED
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(8)
with open(port_file + ".tmp", "w") as f:
    f.write(str(ls.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)


def frame(mtype, ident, payload):
    body = b"LRAG" + struct.pack(">HHI", 1, mtype, ident) + payload
    return struct.pack(">I", len(body)) + body


def take(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise EOFError
        out += chunk
    return out


while True:
    raw, _ = ls.accept()
    try:
        sock = ctx.wrap_socket(raw, server_side=True)
        while True:
            n = struct.unpack(">I", take(sock, 4))[0]
            req = take(sock, n)
            mtype, ident = struct.unpack(">HI", req[6:12])
            if mtype == HELLO:
                name = dc.encode()
                sock.sendall(frame(HELLO_OK, ident, struct.pack(
                    ">dH", 1e15, len(name)) + name))
            else:
                text = b"job: this agent refuses it"
                sock.sendall(frame(ERROR, ident, struct.pack(
                    ">HH", int(code), len(text)) + text))
    except (EOFError, OSError, ssl.SSLError):
        pass
    finally:
        raw.close()
