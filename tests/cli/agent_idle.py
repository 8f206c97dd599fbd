#!/usr/bin/env python3
"""The agent's own time to answer is no coordinator's idleness
(tests/cli/agent.sh).

An agent started with --delay-ms 4000 --idle-timeout 5 (the delay
standing for a slow DP): a coordinator's HELLO is answered 4 s after it
came; the coordinator then waits 2.5 s, well within --idle-timeout of
the answer, and says HELLO again: answered, the connection open.
(Before, --idle-timeout counted from the request's whole frame, not from
the answer, and closed the connection 1 s after the answer: a request
the agent took 599 s to answer left its coordinator 1 s of the 600.)
Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any failure.

    agent_idle.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import socket
import ssl
import sys
import time

from agentwire import HELLO, HELLO_OK, Checks, ask, connect

certs, port, agent, coord = sys.argv[1:5]
checks = Checks()
a = connect(certs, port, agent, coord)
a.settimeout(60)
checks.expect("HELLO answered (after --delay-ms)", ask(a, HELLO), HELLO_OK)
time.sleep(2.5)
try:
    got = ask(a, HELLO)
except (EOFError, OSError, ssl.SSLError, socket.timeout) as e:
    got = (None, repr(e).encode())
checks.expect("HELLO 2.5 s after the answer answered, the connection open",
              got, HELLO_OK)
sys.exit(1 if checks.failed else 0)
