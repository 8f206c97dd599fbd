#!/usr/bin/env python3
"""One coordinator cannot take every connection of an agent
(tests/cli/agent.sh).

Coordinator A opens as many connections as the agent serves in all (64)
and says HELLO on each: the agent serves 16 of them (its limit for one
peer) and answers each of the others an ERROR that says so before it
closes it; coordinator B, connecting meanwhile, is served; once A closes
one of its 16, A's next connection is served.  (One peer's 64 silent
connections refused every other coordinator at accept, for as long as
they stayed open: 600 s each, or forever with a request now and then.)
Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any failure.

    agent_peers.py CERTS_DIR PORT AGENT_NAME COORD_A COORD_B
"""
import ssl
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, Checks, ask, connect

certs, port, agent, coord_a, coord_b = sys.argv[1:6]
checks = Checks()


def hello(name):
    """A new connection as 'name' and its HELLO's answer (type, payload);
    (None, why) when the agent closed it or refused it at accept."""
    try:
        s = connect(certs, port, agent, name)
        return s, ask(s, HELLO)
    except (EOFError, OSError, ssl.SSLError) as e:
        return None, (None, repr(e).encode())


served, refused, other = [], [], []
for _ in range(64):
    s, got = hello(coord_a)
    if got[0] == HELLO_OK:
        served.append(s)
    elif got[0] == ERROR and b"at most 16 connections" in got[1]:
        refused.append(got)
    else:
        other.append(got)
    if s and got[0] != HELLO_OK:
        s.close()
if len(served) == 16 and len(refused) == 48 and not other:
    print("ok: A served on 16 connections, its other 48 refused with the "
          "reason")
else:
    checks.failed = True
    print(f"FAIL: A served on {len(served)}, refused {len(refused)} with "
          f"the reason, else {other[:2]!r}")
checks.expect("B served while A holds its 16", hello(coord_b)[1], HELLO_OK)
served.pop().close()
# The agent notices the close on its next turn: retry briefly.
for _ in range(50):
    s, got = hello(coord_a)
    if got[0] == HELLO_OK:
        break
    time.sleep(0.1)
checks.expect("A served again once it closed one", got, HELLO_OK)
sys.exit(1 if checks.failed else 0)
