#!/usr/bin/env python3
"""A long STEP holds one of the agent's DP threads, not the agent
(tests/cli/agent.sh).

Connection A sends JOB, then a STEP at the head over all LAYERS layers
of the agent's DC (seconds of local DP), and does not wait for the
answer.  Connection B then connects (a TLS handshake), sends HELLO, JOB,
a small STEP, a FINISH and a RELEASE of a tag it never committed
(ENOENT): each is answered while A's answer has still not come (checked
after B's last answer: ordering, not time).  Then A's answer comes (a
STEP_OK), and A, reading again, answers a FINISH.  Then C closes while
its long STEP runs, and D is served after it.  An agent that ran
the DP on its loop would answer B only after A's STEP, whose answer
would then be there already.  Last, E and F (the same coordinator)
COMMIT one tag at once while X's and Y's long STEPs hold both threads,
so that both COMMITs wait for a thread: one is committed, the other is
refused EEXIST, and one RELEASE frees the tag.  Prints "ok: " or "FAIL: " lines and exits
1 on any failure.

    agent_threads.py CERTS_DIR PORT AGENT_NAME COORDINATOR LAYERS
"""
import struct
import sys

from agentwire import COMMIT, ERROR, FINISH, FINISH_OK, HELLO, HELLO_OK, JOB, \
    OK, RELEASE, STEP, STEP_OK, TIME, Checks, answer_pending, ask, connect, \
    finish, frame, job, read_frame, step_head, text

ENOENT, EEXIST = 2, 17
certs, port, agent, coord, layers = sys.argv[1:6]
layers = int(layers)
checks = Checks()


a = connect(certs, port, agent, coord)
a.settimeout(300)
checks.expect("A: JOB of %d layers" % layers, job(a, layers), OK)
a.sendall(frame(STEP, 9000, struct.pack(">IBHHiiddI", 1, 0, 1, 0, 0,
                                        layers - 1, 0.0, 0.0, 0)))
b = connect(certs, port, agent, coord)
b.settimeout(300)
checks.expect("B: HELLO", ask(b, HELLO), HELLO_OK)
checks.expect("B: JOB of 4 layers", job(b, 4), OK)
checks.expect("B: STEP over 0..3", step_head(b, 0, 3), STEP_OK)
checks.expect("B: FINISH of 0..3", finish(b, 0, 3), FINISH_OK)
got = ask(b, RELEASE, text("never-committed"))
code = struct.unpack(">H", got[1][:2])[0] if got[0] == ERROR else None
if got[0] == ERROR and code == ENOENT:
    print("ok: B: RELEASE of a tag never committed: ENOENT")
else:
    checks.failed = True
    print(f"FAIL: B: RELEASE: answer {got[0]}, code {code}")
if answer_pending(a):
    print("ok: A's STEP still running after B's five answers")
else:
    checks.failed = True
    print("FAIL: A's answer came before B's: the DP held the agent")
t, ident, _ = read_frame(a)
if t == STEP_OK and ident == 9000:
    print("ok: A: then its STEP_OK")
else:
    checks.failed = True
    print(f"FAIL: A: answer type {t} id {ident}, want STEP_OK 9000")
checks.expect("A: a FINISH after it, answered", finish(a, 0, layers - 1),
              FINISH_OK)

# A connection closed while its STEP runs: the agent frees it when the
# DP is done, and serves on (D's long STEP, on the other thread, ends
# after C's; then D's HELLO).
c = connect(certs, port, agent, coord)
c.settimeout(300)
checks.expect("C: JOB of %d layers" % layers, job(c, layers), OK)
c.sendall(frame(STEP, 9001, struct.pack(">IBHHiiddI", 1, 0, 1, 0, 0,
                                        layers - 1, 0.0, 0.0, 0)))
c.close()
d = connect(certs, port, agent, coord)
d.settimeout(300)
checks.expect("D: JOB of %d layers" % layers, job(d, layers), OK)
checks.expect("D: STEP over them, C gone meanwhile",
              step_head(d, 0, layers - 1), STEP_OK)
checks.expect("D: HELLO after it", ask(d, HELLO), HELLO_OK)


def long_step(sock, ident):
    """JOB of all layers, then a STEP over them, its answer not read."""
    checks.expect("JOB of %d layers" % layers, job(sock, layers), OK)
    sock.sendall(frame(STEP, ident, struct.pack(
        ">IBHHiiddI", 1, 0, 1, 0, 0, layers - 1, 0.0, 0.0, 0)))


# One tag COMMITted at once on two connections of one coordinator.  The
# job: 4 layers of next to no FLOPs and large parameters, planned for
# time, whose layout is a device a stage, so that both commitments would
# fit in the DC: the second is refused for its tag, not its devices.
pair = []
for name in "EF":
    s = connect(certs, port, agent, coord)
    s.settimeout(600)
    checks.expect(f"{name}: JOB of 4 light layers", ask(s, JOB, struct.pack(
        ">IdddI", 1, 32.0, 1.0, 2.0, 4) + struct.pack(">ddd", 1e3, 1e9,
                                                      1e6) * 4), OK)
    checks.expect(f"{name}: STEP", ask(s, STEP, struct.pack(
        ">IBHHiiddI", 1, TIME, 1, 0, 0, 3, 0.0, 0.0, 0)), STEP_OK)
    checks.expect(f"{name}: FINISH", ask(s, FINISH, struct.pack(
        ">IBHii", 1, TIME, 1, 0, 3)), FINISH_OK)
    pair.append(s)
x = connect(certs, port, agent, coord)
x.settimeout(600)
y = connect(certs, port, agent, coord)
y.settimeout(600)
long_step(x, 9002)
long_step(y, 9003)
for i, s in enumerate(pair):
    s.sendall(frame(COMMIT, 9100 + i, struct.pack(">IBHii", 1, TIME, 1, 0, 3)
                    + text("twice")))
got = []
for s in pair:
    t, _, payload = read_frame(s)
    got.append((t, struct.unpack(">H", payload[:2])[0] if t == ERROR
                else None))
if sorted(got, key=str) == sorted([(FINISH_OK, None), (ERROR, EEXIST)],
                                  key=str):
    print("ok: one tag COMMITted at once on two connections: one "
          "committed, the other EEXIST")
else:
    checks.failed = True
    print(f"FAIL: two COMMITs of one tag at once: answers {got}")
checks.expect("RELEASE of the tag", ask(pair[0], RELEASE, text("twice")), OK)
checks.expect("nothing left under it", ask(pair[0], RELEASE, text("twice")),
              ERROR)
for s, ident in ((x, 9002), (y, 9003)):
    t, i, _ = read_frame(s)
    checks.expect("X, Y: the long STEP's answer", (t, i), STEP_OK)
sys.exit(1 if checks.failed else 0)
