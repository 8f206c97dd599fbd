#!/usr/bin/env python3
"""One connection's DP caches are bounded (tests/cli/agent.sh).

An agent started with --max-cache-bytes 2e5 and 4 devices; a JOB of 300
layers.  Each head STEP over 0..99 under a new assumed stage count makes
a cache of its own (about 35 KB for the 300 layers' starts, 16 KB for
the 100 rows: 32 bytes a cell, 5 cells a row), kept until the job ends.
Within 32 such STEPs one is refused (ENOBUFS) with what to do, and no
figure of what the caches hold (it would tell the device count); the
next is refused too; a STEP answered from rows computed already is
served; another connection is served meanwhile; after a JOB again (the
caches start afresh) a STEP is served.  (Before, all 32 were answered
and the caches grew with every STEP.)  Prints one line per step, "ok: "
or "FAIL: ", and exits 1 on any failure.

    agent_cache.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import struct
import sys

from agentwire import ERROR, OK, STEP_OK, Checks, connect, job, step_head

ENOBUFS = 105
certs, port, agent, coord = sys.argv[1:5]
checks = Checks()
a = connect(certs, port, agent, coord)
checks.expect("JOB of 300 layers", job(a, 300), OK)
answered, refused = 0, None
for q in range(1, 33):
    got = step_head(a, 0, 99, assumed=q)
    if got[0] != STEP_OK:
        refused = (q, got)
        break
    answered += 1
if refused and refused[1][0] == ERROR:
    code = struct.unpack(">H", refused[1][1][:2])[0]
    checks.expect(f"STEP {refused[0]} refused after {answered} answered, "
                  "with what to do", refused[1], ERROR,
                  says="this connection's DP caches are at this agent's "
                       "bound of 2e+05 bytes: send JOB again",
                  not_says="hold")
    if code == ENOBUFS:
        print("ok: ... with ENOBUFS")
    else:
        checks.failed = True
        print(f"FAIL: code {code}, want ENOBUFS")
else:
    checks.failed = True
    print(f"FAIL: {answered} STEPs answered, none refused: {refused!r}")
checks.expect("the next STEP refused too", step_head(a, 0, 99, assumed=33),
              ERROR, says="--max-cache-bytes")
checks.expect("a STEP over rows computed served", step_head(a, 0, 99), STEP_OK)
b = connect(certs, port, agent, coord)
checks.expect("another connection's JOB answered", job(b, 300), OK)
checks.expect("... and its STEP", step_head(b, 0, 99), STEP_OK)
checks.expect("JOB again", job(a, 300), OK)
checks.expect("a STEP after it served", step_head(a, 0, 99, assumed=33),
              STEP_OK)
sys.exit(1 if checks.failed else 0)
