#!/usr/bin/env python3
"""A coordinator at its 16 connections, all silent, is served on a 17th
(tests/cli/agent_bounds.sh), and the connection that makes room is one
holding no job when there is one.

The agent runs with --idle-timeout 60: a connection with nothing in
flight and no whole frame for a tenth of it (6 s) may make room.  The
coordinator opens 16 connections and says HELLO on each; a 17th at once
is refused (each of the 16 was heard from just now: a plan may be
between two requests on it).  Then the first connection is sent a JOB
(its coordinator may be waiting on other DCs in the middle of a plan)
and the others HELLO again in order, so that the first is the longest
silent and the second, holding no job, the next.  After 6.5 s of
silence a 17th is served, the second (not the first) gets an ERROR that
says why and is closed, and the first's job still answers a STEP.
(Before 2026-12-07 the first was closed, its job with it: the plan on
it failed while a connection holding nothing stayed.)

When every connection silent long enough holds a job, the longest
silent of them still makes room: the 16 are given a JOB each, the third
connection first, and after 6.5 s an 18th is served in the third's
place.  (Refusing the 18th instead would keep a coordinator whose
leaked connections had each carried a plan out for the whole idle
timeout.)  Prints one line per step, "ok: " or "FAIL: ", and exits 1 on
any failure.

    agent_evict.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import sys
import time

from agentwire import (ERROR, HELLO, HELLO_OK, OK, STEP_OK, Checks, ask,
                       connect, job, read_frame, step_head)

certs, port, agent, coord = sys.argv[1:5]
checks = Checks()


def safely(request, *args):
    """request(*args)'s (type, payload), or (None, why) when the
    connection broke."""
    try:
        return request(*args)
    except (EOFError, OSError) as e:
        return None, repr(e).encode()


def hello(s):
    return safely(ask, s, HELLO)


def told_why(s):
    """The frame the agent sent unasked on 's' (an ERROR when it closed
    it to make room), as (type, payload)."""
    try:
        t, _, payload = read_frame(s)
        return t, payload
    except (EOFError, OSError) as e:
        return None, repr(e).encode()


conns = [connect(certs, port, agent, coord) for _ in range(16)]
answers = [hello(s)[0] for s in conns]
if answers == [HELLO_OK] * 16:
    print("ok: 16 connections served")
else:
    checks.failed = True
    print(f"FAIL: the 16 connections' HELLOs: {answers!r}")
late = connect(certs, port, agent, coord)
checks.expect("a 17th at once refused: none of the 16 silent for 6 s",
              hello(late), ERROR, says="at most 16 connections")
late.close()

# The first holds a job and is the longest silent; the second holds
# none and is the next longest.
checks.expect("JOB on the first connection", safely(job, conns[0]), OK)
for s in conns[1:]:
    hello(s)
time.sleep(6.5)
late = connect(certs, port, agent, coord)
checks.expect("after 6.5 s of silence a 17th is served", hello(late),
              HELLO_OK)
checks.expect("the longest silent one without a job is told why it closes",
              told_why(conns[1]), ERROR,
              says="makes room for a new connection of 'coordinator'")
checks.expect("the longest silent one, holding a job, keeps it: its STEP "
              "is answered", safely(step_head, conns[0], 0, 3), STEP_OK)
checks.expect("the third still answers", hello(conns[2]), HELLO_OK)

# Every one of the 16 holds a job; the third is the longest silent.
holders = [conns[2]] + conns[3:] + [late, conns[0]]
got = [safely(job, s)[0] for s in holders]
if got == [OK] * 16:
    print("ok: a JOB on each of the 16")
else:
    checks.failed = True
    print(f"FAIL: the 16 connections' JOBs: {got!r}")
time.sleep(6.5)
last = connect(certs, port, agent, coord)
checks.expect("all 16 holding a job, an 18th is still served after 6.5 s",
              hello(last), HELLO_OK)
checks.expect("the longest silent of them is told why it closes, and that "
              "its job goes with it", told_why(conns[2]), ERROR,
              says="its job 1 dropped")
checks.expect("the next still answers its STEP",
              safely(step_head, conns[3], 0, 3), STEP_OK)
sys.exit(1 if checks.failed else 0)
