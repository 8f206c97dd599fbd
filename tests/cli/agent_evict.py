#!/usr/bin/env python3
"""A coordinator at its 16 connections, all silent, is served on a 17th
(tests/cli/agent_bounds.sh).

The agent runs with --idle-timeout 60: a connection with nothing in
flight and no whole frame for a tenth of it (6 s) may make room.  The
coordinator opens 16 connections and says HELLO on each; a 17th at once
is refused (each of the 16 was heard from just now: a plan may be
between two requests on it); HELLO again on connections 2..16 leaves
the first the longest silent.  After 6.5 s of silence a 17th is served,
the first gets an ERROR that says why and is closed, and the second
still answers.  (Before, the 17th was refused until one of the 16
idled out after 600 s.)  Prints one line per step, "ok: " or "FAIL: ",
and exits 1 on any failure.

    agent_evict.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, Checks, ask, connect, read_frame

certs, port, agent, coord = sys.argv[1:5]
checks = Checks()


def hello(s):
    try:
        return ask(s, HELLO)
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
for s in conns[1:]:
    hello(s)
time.sleep(6.5)
late = connect(certs, port, agent, coord)
checks.expect("after 6.5 s of silence a 17th is served", hello(late),
              HELLO_OK)
try:
    t, _, payload = read_frame(conns[0])
    got = (t, payload)
except (EOFError, OSError) as e:
    got = (None, repr(e).encode())
checks.expect("the longest silent one is told why it closes", got, ERROR,
              says="makes room for a new connection of 'coordinator'")
checks.expect("the second still answers", hello(conns[1]), HELLO_OK)
sys.exit(1 if checks.failed else 0)
