"""Reading the protocol revision's bytes, for the tests of the revision
(agent_revision.py) and of SIGHUP's re-read of predecessors
(agent_hup.py); the frames themselves are agentwire.py's.
"""
import struct


def checker(checks):
    """check(what, ok, got): prints "ok: WHAT" or "FAIL: WHAT: GOT" and
    marks 'checks' (an agentwire.Checks) failed on a failure."""
    def check(what, ok, got):
        if ok:
            print(f"ok: {what}")
        else:
            checks.failed = True
            print(f"FAIL: {what}: {got!r}")
    return check


def hello_revision(payload):
    """HELLO_OK's revision, None when it names none, or the bytes after
    its name when they are no revision."""
    n = struct.unpack(">H", payload[8:10])[0]
    rest = payload[10 + n:]
    return struct.unpack(">H", rest)[0] if len(rest) == 2 else \
        (None if not rest else rest)


def step_prev(payload):
    """STEP_OK's entries and predecessors (None when it carries none)."""
    n = struct.unpack(">I", payload[:4])[0]
    entries = struct.unpack(">H", payload[4 + 8:4 + 10])[0]
    rest = payload[4 + n:]
    if not rest:
        return entries, None
    return entries, list(struct.unpack(f">{len(rest) // 4}i", rest))
