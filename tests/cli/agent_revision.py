#!/usr/bin/env python3
"""The protocol revision, at a real agent (tests/cli/agent.sh).

A coordinator from before 2026-12-07 greets with a plain HELLO: the
agent's HELLO_OK names no revision, and its STEP_OK carries the summary
alone, byte for byte as before (so such a coordinator, whose decoder
refuses trailing bytes, is served as it was).  A HELLO naming revision
2 is answered 2, and each STEP_OK then carries one predecessor per
entry (i32, -1 at the head of the chain: the only DC before it is
none); a HELLO naming a revision from the future is answered the
agent's own, 2.  A JOB of 4 layers, a head STEP over layers 0..3.

With "no-predecessors", the agent's file sets predecessors false: it
speaks revision 1 at most, so a HELLO of revision 2 (or 7) is answered
1 and the STEP_OK carries the summary alone, as to a coordinator from
before.  Prints one line per check, "ok: " or "FAIL: ", and exits 1 on
any failure.

    agent_revision.py CERTS_DIR PORT AGENT_NAME COORDINATOR
                      [no-predecessors]
"""
import struct
import sys

from agentwire import HELLO, HELLO_OK, OK, STEP_OK, Checks, ask, connect, \
    job, step_head
from agentrev import checker, hello_revision, step_prev

certs, port, agent, coord = sys.argv[1:5]
no_prev = sys.argv[5:] == ["no-predecessors"]
ours = 1 if no_prev else 2
checks = Checks()
check = checker(checks)

# A coordinator from before: as before.
a = connect(certs, port, agent, coord)
t, p = ask(a, HELLO)
check("a plain HELLO answered with no revision",
      t == HELLO_OK and hello_revision(p) is None, (t, p))
checks.expect("... JOB", job(a, 4), OK)
t, p = step_head(a, 0, 3)
entries, prev = step_prev(p) if t == STEP_OK else (0, "no STEP_OK")
check(f"... its STEP_OK of {entries} entries carries no predecessor",
      t == STEP_OK and entries > 0 and prev is None, (t, p))

# A coordinator of revision 2.
b = connect(certs, port, agent, coord)
t, p = ask(b, HELLO, struct.pack(">H", 2))
check(f"a HELLO of revision 2 answered {ours}",
      t == HELLO_OK and hello_revision(p) == ours, (t, p))
checks.expect("... JOB", job(b, 4), OK)
t, p = step_head(b, 0, 3)
entries, prev = step_prev(p) if t == STEP_OK else (0, "no STEP_OK")
if no_prev:
    check(f"... its STEP_OK of {entries} entries carries no predecessor",
          t == STEP_OK and entries > 0 and prev is None, (t, p))
else:
    check(f"... its STEP_OK carries a predecessor for each of its "
          f"{entries} entries, -1 at the head",
          t == STEP_OK and entries > 0 and prev == [-1] * entries, (t, p))

# A coordinator of a later revision: told ours.
c = connect(certs, port, agent, coord)
t, p = ask(c, HELLO, struct.pack(">H", 7))
check(f"a HELLO of revision 7 answered {ours}",
      t == HELLO_OK and hello_revision(p) == ours, (t, p))
sys.exit(1 if checks.failed else 0)
