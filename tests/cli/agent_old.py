#!/usr/bin/env python3
"""A man in the middle for tests/cli/agent_old.sh: in front of a real
`lightrail agent`, it plays an agent from before objectives lex-one/
time-one (2026-12-04) and lex-bound/time-bound (2026-12-05).

It accepts the coordinator's TLS as DC_CERT (client certificate
required, from CERTS_DIR/ca.pem), connects to the agent on 127.0.0.1
AGENT_PORT as COORD_CERT, and passes each request to the agent and the
agent's answer back, one at a time as the protocol goes.  In mode "old",
a STEP, BACKTRACK, FINISH or COMMIT of objective 2-5 is not passed on:
it is answered as such an agent answers a frame it cannot read (an
ERROR of id 0, EINVAL, "malformed frame: closing") and the connection is
closed.  In mode "rev1" it plays an agent of 2026-12-05 or -06, from
before protocol revision 2 (2026-12-07): a HELLO naming a revision (a
u16 payload) is refused the same way ("refused hello revision N"), a
plain HELLO and every other frame passed on (each BACKTRACK logged,
"passed backtrack objective N").  In mode "pass" every
frame is passed on.

It appends a line to LOG for each connection ("connection") and each
request of objective 2-5 ("refused TYPE objective N", in mode "pass"
"passed ..."), writes its port to PORT_FILE once
listening, serves connections on threads of their own, and runs until
the test stops it by its PID.

    agent_old.py MODE CERTS_DIR DC_CERT COORD_CERT AGENT_PORT PORT_FILE LOG
"""
import errno
import os
import socket
import ssl
import struct
import sys
import threading

from agentwire import ERROR, COMMIT, FINISH, HELLO, STEP, frame, read_frame, \
    text

BACKTRACK = 7
mode, certs, dc_cert, coord_cert, agent_port, port_file, log_path = \
    sys.argv[1:8]
# The requests whose objective (the u8 after u32 job) an old agent
# could not read.
COUNTED = {STEP: "step", BACKTRACK: "backtrack", FINISH: "finish",
           COMMIT: "commit"}

server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
server.minimum_version = ssl.TLSVersion.TLSv1_3
server.load_cert_chain(f"{certs}/{dc_cert}.pem", f"{certs}/{dc_cert}.key")
server.load_verify_locations(f"{certs}/ca.pem")
server.verify_mode = ssl.CERT_REQUIRED
client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
client.minimum_version = ssl.TLSVersion.TLSv1_3
client.load_verify_locations(f"{certs}/ca.pem")
client.load_cert_chain(f"{certs}/{coord_cert}.pem",
                       f"{certs}/{coord_cert}.key")
log_lock = threading.Lock()


def log(line):
    with log_lock, open(log_path, "a") as f:
        f.write(line + "\n")


def serve(raw):
    down = up = None
    try:
        down = server.wrap_socket(raw, server_side=True)
        up = client.wrap_socket(
            socket.create_connection(("127.0.0.1", int(agent_port)),
                                     timeout=60), server_hostname=dc_cert)
        log("connection")
        while True:
            mtype, ident, payload = read_frame(down)
            newer = mode != "rev1" and mtype in COUNTED \
                and len(payload) > 4 and 2 <= payload[4] <= 5
            if mode == "rev1" and mtype == HELLO and payload:
                revision, = struct.unpack(">H", payload[:2])
                log(f"refused hello revision {revision}")
                down.sendall(frame(ERROR, 0, struct.pack(">H", errno.EINVAL)
                                   + text("malformed frame: closing")))
                return
            if mode == "rev1" and mtype == BACKTRACK and len(payload) > 4:
                log(f"passed backtrack objective {payload[4]}")
            if newer and mode == "pass":
                log(f"passed {COUNTED[mtype]} objective {payload[4]}")
            elif newer:
                log(f"refused {COUNTED[mtype]} objective {payload[4]}")
                down.sendall(frame(ERROR, 0, struct.pack(">H", errno.EINVAL)
                                   + text("malformed frame: closing")))
                return
            up.sendall(frame(mtype, ident, payload))
            down.sendall(frame(*read_frame(up)))
    except (EOFError, OSError, ssl.SSLError):
        pass
    finally:
        # The TLS sockets own raw's descriptor once wrapped.
        for s in (up, down, raw):
            if s is not None:
                s.close()


ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(8)
with open(port_file + ".tmp", "w") as f:
    f.write(str(ls.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
while True:
    conn, _ = ls.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
