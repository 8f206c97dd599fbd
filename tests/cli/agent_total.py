#!/usr/bin/env python3
"""The DP caches of all an agent's connections together are bounded
(tests/cli/agent_bounds.sh).

An agent with 4 devices, --max-total-cache-bytes 2e5 and the default
--max-cache-bytes (4e9, per connection).  Connections A and B each send
a JOB of 300 layers; A sends head STEPs over 0..99, each under a new
assumed stage count (a cache of its own, about 50 KB), until one is
refused: ENOBUFS, saying it is the agent's bound over all connections,
with what to do.  B's first STEP is refused too, though B holds next to
nothing itself.  Once A sends JOB again (its caches freed), B's STEP is
served.  (Before, the bound was per connection only: 64 connections
could hold 64 times it, and there was no --max-total-cache-bytes.)
Prints one line per step, "ok: " or "FAIL: ", and exits 1 on any
failure.

    agent_total.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import struct
import sys

from agentwire import ERROR, OK, STEP_OK, Checks, connect, job, step_head

ENOBUFS = 105
SAYS = "the DP caches of all this agent's connections are at its bound " \
       "of 2e+05 bytes"
certs, port, agent, coord = sys.argv[1:5]
checks = Checks()
a = connect(certs, port, agent, coord)
b = connect(certs, port, agent, coord)
checks.expect("A's JOB of 300 layers", job(a, 300), OK)
checks.expect("B's JOB of 300 layers", job(b, 300), OK)
answered, refused = 0, None
for q in range(1, 33):
    got = step_head(a, 0, 99, assumed=q)
    if got[0] != STEP_OK:
        refused = got
        break
    answered += 1
if refused and refused[0] == ERROR and answered >= 2:
    checks.expect(f"A's STEP refused after {answered} answered, with what "
                  "to do", refused, ERROR, says=SAYS, not_says="hold")
    code = struct.unpack(">H", refused[1][:2])[0]
    if code == ENOBUFS:
        print("ok: ... with ENOBUFS")
    else:
        checks.failed = True
        print(f"FAIL: code {code}, want ENOBUFS")
else:
    checks.failed = True
    print(f"FAIL: {answered} of A's STEPs answered, then {refused!r}")
checks.expect("B's STEP refused: the bound is the agent's",
              step_head(b, 0, 99), ERROR, says="--max-total-cache-bytes")
checks.expect("A's JOB again (its caches freed)", job(a, 300), OK)
checks.expect("B's STEP then served", step_head(b, 0, 99), STEP_OK)
sys.exit(1 if checks.failed else 0)
