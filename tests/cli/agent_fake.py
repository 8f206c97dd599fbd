#!/usr/bin/env python3
"""A fake agent for tests/cli/agent.sh: it answers HELLO as DC_NAME and
refuses JOB with ERROR CODE, as an agent of another version might; any
other request gets the same ERROR.  It writes the server name each
ClientHello gave (None without one) to PORT_FILE.sni.  It serves one connection at a time
on 127.0.0.1, writes its port to PORT_FILE once listening, and runs until
the test stops it by its PID.  With SPLIT_S, the HELLO_OK's length field
goes at once and the rest of the frame SPLIT_S seconds later (an answer
begun, then late).

    agent_fake.py CERTS_DIR CERT_NAME DC_NAME CODE PORT_FILE [SPLIT_S]
"""
import os
import socket
import ssl
import struct
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, frame, read_frame, text

certs, cert, dc, code, port_file = sys.argv[1:6]
split = float(sys.argv[6]) if len(sys.argv) > 6 else 0
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
ctx.load_cert_chain(f"{certs}/{cert}.pem", f"{certs}/{cert}.key")
ctx.load_verify_locations(f"{certs}/ca.pem")
ctx.verify_mode = ssl.CERT_REQUIRED
# What the client's ClientHello named (SNI, in clear): PORT_FILE.sni.
sni_seen = open(port_file + ".sni", "w")


def sni(sock, name, context):
    sni_seen.write(f"{name}\n")
    sni_seen.flush()


ctx.sni_callback = sni
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(8)
with open(port_file + ".tmp", "w") as f:
    f.write(str(ls.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)


while True:
    raw, _ = ls.accept()
    try:
        sock = ctx.wrap_socket(raw, server_side=True)
        while True:
            mtype, ident, _ = read_frame(sock)
            if mtype == HELLO:
                f = frame(HELLO_OK, ident, struct.pack(">d", 1e15) + text(dc))
                if split > 0:
                    sock.sendall(f[:4])
                    time.sleep(split)
                    f = f[4:]
                sock.sendall(f)
            else:
                sock.sendall(frame(ERROR, ident, struct.pack(
                    ">H", int(code)) + text("job: this agent refuses it")))
    except (EOFError, OSError, ssl.SSLError):
        pass
    finally:
        raw.close()
