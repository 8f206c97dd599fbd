#!/usr/bin/env python3
"""One request may not hold an agent (tests/cli/agent.sh).

An agent started with --max-step-cells 100000 and 4 devices: a STEP at
the head over layers 0..299 would update (300 x 301 / 2) x (4 x 5 / 2) =
451,500 cells of local DP and is refused (E2BIG) before it runs, the
count in the agent's log only (it tells the device count); a STEP
over 0..9 (550 cells) is answered, as is a second connection meanwhile;
a FINISH of 0..299 (rows 10..299 left: (300 x 301 - 10 x 11) / 2 x 10 =
450,950 cells) is refused, one of 0..9 (its rows computed by the STEP: 0
cells) is answered; 63 STEPs refused under other (objective, assumed
count) pairs leave the connection's 64 caches to its own requests.
Prints "ok: " or "FAIL: "
lines and exits 1 on any failure.

    agent_budget.py CERTS_DIR PORT AGENT_NAME COORDINATOR
"""
import struct
import sys

from agentwire import ERROR, FINISH_OK, LEX, OK, STEP, STEP_OK, TIME, \
    Checks, ask, connect, finish, job, step_head

E2BIG = 7
LEX_ONE = 2
certs, port, agent, coord = sys.argv[1:5]
checks = Checks()
a = connect(certs, port, agent, coord)
checks.expect("JOB of 300 layers", job(a, 300), OK)
got = step_head(a, 0, 299)
# The answer says the bound, never the count: 451,500 = 45,150 rows x
# N (N + 1) / 2 gave the coordinator the agent's free devices, N = 4.
# It says what to do: the coordinator's window, or the agent's bound,
# whose value the agent's log names (tests/cli/agent.sh), with the
# coordinator's timeout to match (before 2026-12-07 it named the
# option alone, and no timeout).
checks.expect("STEP over 0..299 (451,500 cells) refused, no count said",
              got, ERROR,
              says="step: over this agent's bound of 1e+05 cells of local "
                   "DP: plan with a narrower --window, or ask the agent's "
                   "operator for a larger --max-step-cells (its log names "
                   "the value that serves this request) and raise your "
                   "--timeout to match", not_says="4.")
code = struct.unpack(">H", got[1][:2])[0] if got[0] == ERROR else None
if code == E2BIG:
    print("ok: ... with E2BIG")
else:
    checks.failed = True
    print(f"FAIL: refused with code {code}, want E2BIG ({E2BIG})")
checks.expect("STEP over 0..9 (550 cells) answered", step_head(a, 0, 9),
              STEP_OK)
b = connect(certs, port, agent, coord)
checks.expect("another connection's JOB answered", job(b, 4), OK)
checks.expect("FINISH of 0..299 refused", finish(a, 0, 299), ERROR,
              says="finish: over this agent's bound", not_says="4.")
checks.expect("FINISH of 0..9 (rows computed) answered", finish(a, 0, 9),
              FINISH_OK)
# Refusals take none of the connection's 64 caches (one per objective
# and assumed count): 63 more pairs refused over 0..299 (LEX 2..32,
# TIME 1..32; the JOB's microbatches are 32), then a STEP under a pair
# of its own is answered.  Before, each refusal made its pair's cache,
# and that STEP was answered ENOMEM.
refusals = 0
for obj, first in ((LEX, 2), (TIME, 1)):
    for q in range(first, 33):
        refusals += ask(a, STEP, struct.pack(">IBHHiiddI", 1, obj, q, 0, 0,
                                             299, 0.0, 0.0, 0))[0] == ERROR
if refusals == 63:
    print("ok: 63 STEPs of other objectives and counts refused")
else:
    checks.failed = True
    print(f"FAIL: {refusals} of 63 STEPs refused")
checks.expect("... then a STEP of objective lex-one answered",
              ask(a, STEP, struct.pack(">IBHHiiddI", 1, LEX_ONE, 1, 0, 0, 9,
                                       0.0, 0.0, 0)), STEP_OK)
sys.exit(1 if checks.failed else 0)
