"""The agent protocol from Python, for the tests of tests/cli/agent.sh.

Frames as docs/agent-protocol.md and planner/lr_cdynp_wire.h lay them
out: a u32 length, then "LRAG", u16 version, u16 type, u32 id, payload;
big-endian throughout.  Each check prints one line, "ok: " or "FAIL: ".
"""
import socket
import ssl
import struct
import time

HELLO, HELLO_OK, JOB, OK, STEP, STEP_OK = 1, 2, 3, 4, 5, 6
FINISH, FINISH_OK, ERROR, COMMIT, RELEASE, KEEP = 9, 10, 11, 12, 13, 14
LEX, TIME = 0, 1


def connect(certs, port, agent, name, timeout=60,
            suppress_ragged_eofs=True):
    """A TLS 1.3 connection to the agent 'agent' as certificate 'name',
    its handshake and reads bounded by 'timeout' seconds.  With
    suppress_ragged_eofs=False a close with no TLS close_notify (a bare
    FIN) raises ssl.SSLEOFError instead of reading as b'': what a test
    of the agent's close_notify needs (agent_term.py)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(f"{certs}/ca.pem")
    ctx.load_cert_chain(f"{certs}/{name}.pem", f"{certs}/{name}.key")
    raw = socket.create_connection(("127.0.0.1", int(port)), timeout=timeout)
    return ctx.wrap_socket(raw, server_hostname=agent,
                           suppress_ragged_eofs=suppress_ragged_eofs)


def answer_pending(sock):
    """True when nothing is there to read on 'sock' yet (an answer, or
    the peer's close, would be); the socket's timeout is as before.
    (It was set to 60 s until 2026-12-07: agent_threads.py's A, given
    300 s for a long STEP, then timed out in read_frame() under load.)"""
    before = sock.gettimeout()
    sock.setblocking(False)
    try:
        got = sock.recv(1)
    except (ssl.SSLWantReadError, BlockingIOError, socket.timeout):
        return True
    finally:
        sock.settimeout(before)
    # The byte read is the next frame's first: take() gives it back
    # (until 2026-12-07 it was lost, and a read_frame() after a False
    # read the rest of the length as its start: EOFError).
    if got:
        _held[sock] = got
    return False


_held = {}   # socket -> the byte answer_pending() read ahead


def hello(sock, n):
    """HELLO on 'sock', said on stdout as "hello N: ok", "hello N:
    answered T", or "hello N: closed" when the peer closed it."""
    sock.settimeout(10)
    try:
        t, _ = ask(sock, HELLO)
        print(f"hello {n}:", "ok" if t == HELLO_OK else f"answered {t}")
    except (EOFError, OSError):
        print(f"hello {n}: closed")


def hello_until_logged(sock, log, line, until, last=2, between=None):
    """For a connection the agent should close by itself (a CRL's next
    update, a peer's notAfter): HELLO (hello 1); between() when given,
    what the test does meanwhile (a clock set forward, another HELLO);
    waits for 'line' in the file 'log', at most until the epoch second
    'until'; HELLO again (hello 'last'), which should find it closed."""
    hello(sock, 1)
    if between:
        between()
    while time.time() <= until and line not in open(log).read():
        time.sleep(0.1)
    hello(sock, last)


def text(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def frame(mtype, ident, payload):
    """One whole frame: its length, the header, the payload."""
    body = b"LRAG" + struct.pack(">HHI", 1, mtype, ident) + payload
    return struct.pack(">I", len(body)) + body


def take(sock, n):
    """Exactly n bytes from sock; EOFError when the peer closes first."""
    out = _held.pop(sock, b"")
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise EOFError("the peer closed the connection")
        out += chunk
    return out


def read_frame(sock):
    """The next frame's (type, id, payload)."""
    n = struct.unpack(">I", take(sock, 4))[0]
    body = take(sock, n)
    mtype, ident = struct.unpack(">HI", body[6:12])
    return mtype, ident, body[12:]


def ask(sock, mtype, payload=b"", ident=[0]):
    """Sends one request; returns the answer's (type, payload)."""
    ident[0] += 1
    sock.sendall(frame(mtype, ident[0], payload))
    t, _, answer = read_frame(sock)
    return t, answer


def job(sock, n_layers=4, job_id=1):
    """JOB job_id: n_layers equal layers, batch 32, microbatch 1."""
    layers = b"".join(struct.pack(">ddd", 1e12, 1e8, 1e6)
                      for _ in range(n_layers))
    return ask(sock, JOB, struct.pack(">IdddI", job_id, 32.0, 1.0, 2.0,
                                      n_layers) + layers)


def step_head(sock, lo, hi, job_id=1, assumed=1):
    """STEP at the head of the chain (no summary) over layers lo..hi."""
    return ask(sock, STEP, struct.pack(">IBHHiiddI", job_id, LEX, assumed,
                                       0, lo, hi, 0.0, 0.0, 0))


def finish(sock, first, last, job_id=1, assumed=1):
    return ask(sock, FINISH, struct.pack(">IBHii", job_id, LEX, assumed,
                                         first, last))


def commit(sock, tag, first=0, last=3, job_id=1, assumed=1, objective=LEX):
    return ask(sock, COMMIT, struct.pack(">IBHii", job_id, objective,
                                         assumed, first, last) + text(tag))


class Checks:
    def __init__(self):
        self.failed = False

    def expect(self, what, got, want, says=None, not_says=None):
        t, payload = got
        if t == want and (says is None or says.encode() in payload) \
                and (not_says is None or not_says.encode() not in payload):
            print(f"ok: {what}")
        else:
            self.failed = True
            print(f"FAIL: {what}: answer type {t}, want {want}: {payload!r}")
