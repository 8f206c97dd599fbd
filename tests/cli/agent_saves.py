#!/usr/bin/env python3
"""The agent's reservations are saved off its loop, and a request that
changed them is answered once they are written (tests/cli/agent.sh).

slow (the agent runs with --delay-save-ms, a slow disk): connection A
sends JOB and a COMMIT and does not wait for the answer.  Connection B
then connects (a TLS handshake), sends HELLO, JOB and a RELEASE of a
tag never committed (ENOENT): each is answered while A's answer has
still not come (checked after B's last answer: ordering, not time).
Then A's FINISH_OK comes, and reservations.json holds the tag by then;
A's RELEASE is answered once the file no longer holds it.  An agent
that saved on its loop would answer B only after A's COMMIT, whose
answer would then be there already.

fail (a directory where the agent writes its temporary file, so that
each save fails): a COMMIT is refused saying why, and undone (its tag
is free, its devices too: the same COMMIT is committed once saves
work); a RELEASE whose save fails is answered OK and frees the devices
(the next COMMIT has them) while the file still holds the tag, until
the next save.

unqueued (the agent runs with --delay-save-ms under gdb, which makes its
third save fail to be queued, as with no memory): A commits x, then
sends RELEASE x, whose save is held; B's COMMIT y, whose save cannot be
queued, is refused and undone, and the file, once A's RELEASE is
answered, holds nothing.  (Such a save was written at once on the main
thread and y answered committed; the RELEASE's save, queued before,
then renamed the state without y over it: the file held less than the
agent, and a restart would hand y's devices to another job.)

Prints "ok: " or "FAIL: " lines and exits 1 on any failure.

    agent_saves.py CERTS_DIR PORT AGENT_NAME COORDINATOR STATE_DIR
                   slow|fail|unqueued
"""
import json
import os
import struct
import sys

from agentwire import COMMIT, ERROR, FINISH_OK, HELLO, HELLO_OK, OK, RELEASE, \
    Checks, answer_pending, ask, commit, connect, frame, job, read_frame, text

ENOENT, EIO = 2, 5
certs, port, agent, coord, state, mode = sys.argv[1:7]
checks = Checks()
RES = os.path.join(state, "reservations.json")
TMP = RES + ".tmp"


def tags():
    """The tags reservations.json holds (none without the file)."""
    try:
        with open(RES) as f:
            doc = json.load(f)
    except FileNotFoundError:
        return []
    return [r["tag"] for r in
            doc["lightrail-agent:reservations"].get("reservation", [])]


def check(what, good, detail=""):
    if good:
        print(f"ok: {what}")
    else:
        checks.failed = True
        print(f"FAIL: {what}: {detail}")


def error_code(got):
    return struct.unpack(">H", got[1][:2])[0] if got[0] == ERROR else None


a = connect(certs, port, agent, coord)
a.settimeout(60)
checks.expect("A: JOB", job(a), OK)

if mode == "slow":
    # COMMIT's payload as agentwire.commit() sends it, without waiting.
    a.sendall(frame(COMMIT, 9100, struct.pack(">IBHii", 1, 0, 1, 0, 3)
                    + text("s1")))
    b = connect(certs, port, agent, coord)
    b.settimeout(60)
    checks.expect("B: HELLO", ask(b, HELLO), HELLO_OK)
    checks.expect("B: JOB", job(b), OK)
    got = ask(b, RELEASE, text("never-committed"))
    check("B: RELEASE of a tag never committed: ENOENT",
          error_code(got) == ENOENT, got)
    check("A's COMMIT still being saved after B's three answers",
          answer_pending(a), "A's answer came first: the save held the agent")
    t, ident, _ = read_frame(a)
    check("A: then its FINISH_OK", t == FINISH_OK and ident == 9100,
          f"answer type {t} id {ident}")
    check("reservations.json holds s1 once the COMMIT is answered",
          tags() == ["s1"], tags())
    checks.expect("A: RELEASE s1", ask(a, RELEASE, text("s1")), OK)
    check("reservations.json holds nothing once the RELEASE is answered",
          tags() == [], tags())
elif mode == "fail":
    os.mkdir(TMP)
    got = commit(a, "f1")
    checks.expect("COMMIT f1 refused: its save fails", got, ERROR,
                  says="reservations not saved: cannot write")
    check("... with EIO, whatever the cause (here EISDIR)",
          error_code(got) == EIO, got)
    got = ask(a, RELEASE, text("f1"))
    check("f1 undone: its RELEASE answers ENOENT", error_code(got) == ENOENT,
          got)
    os.rmdir(TMP)
    checks.expect("COMMIT f1 again, all 4 devices free: committed",
                  commit(a, "f1"), FINISH_OK)
    check("the file holds f1", tags() == ["f1"], tags())
    os.mkdir(TMP)
    checks.expect("RELEASE f1 whose save fails: OK",
                  ask(a, RELEASE, text("f1")), OK)
    check("the file still holds f1 (the safe side)", tags() == ["f1"],
          tags())
    os.rmdir(TMP)
    checks.expect("JOB again", job(a), OK)
    checks.expect("COMMIT f2 takes the devices f1 held", commit(a, "f2"),
                  FINISH_OK)
    check("the file holds f2 alone", tags() == ["f2"], tags())
    checks.expect("RELEASE f2", ask(a, RELEASE, text("f2")), OK)
elif mode == "unqueued":
    checks.expect("A: COMMIT x", commit(a, "x"), FINISH_OK)
    a.sendall(frame(RELEASE, 9200, text("x")))
    b = connect(certs, port, agent, coord)
    b.settimeout(60)
    checks.expect("B: JOB", job(b), OK)
    got = ask(b, COMMIT, struct.pack(">IBHii", 1, 0, 1, 0, 3) + text("y"))
    check("A's RELEASE still being saved after B's COMMIT answer",
          answer_pending(a), "A's answer came first")
    check("B: COMMIT y, whose save cannot be queued, refused",
          got[0] == ERROR and b"reservations not saved" in got[1],
          f"answer type {got[0]}: {got[1]!r}")
    t, ident, _ = read_frame(a)
    check("A: then RELEASE x answered OK", t == OK and ident == 9200,
          f"answer type {t} id {ident}")
    check("reservations.json holds whatever was answered committed",
          tags() == ([] if got[0] == ERROR else ["y"]), tags())
    got = ask(b, RELEASE, text("y"))
    check("y undone: its RELEASE answers ENOENT", error_code(got) == ENOENT,
          got)
else:
    sys.exit("mode: slow, fail or unqueued")
sys.exit(1 if checks.failed else 0)
