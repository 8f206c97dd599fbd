#!/usr/bin/env python3
"""Commitments are each coordinator's own (tests/cli/agent.sh).

Two coordinators, each with its own certificate, speak the agent protocol
(docs/agent-protocol.md, planner/lr_cdynp_wire.h) to one agent: one
commits a tag; the other can neither release it (nor free it with a KEEP
of its own tags) nor is refused the same tag for itself; each releases
its own.  Prints one line per step, "ok: "
or "FAIL: ", and exits 1 on any failure.

    agent_tags.py CERTS_DIR PORT AGENT_NAME COORD_A COORD_B
"""
import struct
import sys

from agentwire import ERROR, FINISH_OK, KEEP, OK, RELEASE, Checks, ask, \
    commit, connect, job, text

certs, port, agent, coord_a, coord_b = sys.argv[1:6]
checks = Checks()
expect = checks.expect


# The job takes every device of the agent, so B's own t1 cannot be
# reserved while A's is: B is refused for want of devices, never because
# A's tag is "committed already".
a = connect(certs, port, agent, coord_a)
b = connect(certs, port, agent, coord_b)
expect("A's JOB", job(a), OK)
expect("B's JOB", job(b), OK)
expect("A commits t1", commit(a, "t1"), FINISH_OK)
expect("A's t1 twice is refused", commit(a, "t1"), ERROR,
       says="committed already")
expect("B's KEEP of no tag", ask(b, KEEP, struct.pack(">H", 0)), OK)
expect("B cannot release A's t1", ask(b, RELEASE, text("t1")), ERROR,
       says="by this coordinator")
expect("B's t1 is not A's", commit(b, "t1"), ERROR, says="need devices",
       not_says="committed already")
expect("A releases its t1", ask(a, RELEASE, text("t1")), OK)
expect("A's t1 is gone", ask(a, RELEASE, text("t1")), ERROR)
expect("B commits its t1 once the devices are free", commit(b, "t1"),
       FINISH_OK)
expect("B releases its t1", ask(b, RELEASE, text("t1")), OK)
sys.exit(1 if checks.failed else 0)
