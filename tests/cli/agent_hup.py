#!/usr/bin/env python3
"""SIGHUP reads the agent's leaf predecessors again (tests/cli/agent.sh).

The agent runs with predecessors false in CONFIG.  A connection greeted
at revision 2 is answered 1, and its STEP_OK carries no predecessor.
CONFIG is then rewritten with predecessors true (and a device-count
one more) and the agent sent SIGHUP: a new connection's HELLO of
revision 2 is answered 2 and its STEP_OK carries a predecessor for each
entry (-1 at the head), while the connection of before keeps the
revision its HELLO agreed (1); the device-count is not taken (said in
LOG; HELLO_OK's compute, N P eta, as before).
CONFIG rewritten back to false and SIGHUP again: the connection of
revision 2 is closed at its next STEP with an ERROR of id 0 saying why
("closed: ...", as an agent making room says it: its coordinator
connects again), and a new connection is answered 1; the connection of
revision 1 is still served.  A CONFIG that does not load changes
nothing, said in the log.  Each SIGHUP is waited for in LOG (the line
"SIGHUP: predecessors read again: ..."), not for a time.  Prints one
line per check, "ok: " or "FAIL: ", and exits 1 on any failure.

    agent_hup.py CERTS_DIR PORT AGENT_NAME COORDINATOR PID CONFIG LOG
"""
import json
import os
import signal
import struct
import sys
import time

from agentwire import ERROR, HELLO, HELLO_OK, OK, STEP_OK, Checks, ask, \
    connect, job, read_frame, step_head
from agentrev import checker, hello_revision, step_prev

certs, port, agent, coord, pid, config, log = sys.argv[1:8]
checks = Checks()
check = checker(checks)

computes = []


def greet(revision=2):
    s = connect(certs, port, agent, coord)
    t, p = ask(s, HELLO, struct.pack(">H", revision))
    if t == HELLO_OK:
        computes.append(struct.unpack(">d", p[:8])[0])
    return s, (hello_revision(p) if t == HELLO_OK else ("no HELLO_OK", t))


def head_step(s):
    """A head STEP over layers 0..3: (entries, predecessors) or the
    answer that is no STEP_OK."""
    t, p = step_head(s, 0, 3)
    return step_prev(p) if t == STEP_OK else (t, p)


def rewrite(predecessors, more_devices=0):
    with open(config) as f:
        doc = json.load(f)
    doc["lightrail-agent:agent"]["predecessors"] = predecessors
    doc["lightrail-agent:agent"]["device-count"] += more_devices
    with open(config + ".tmp", "w") as f:
        json.dump(doc, f)
    os.replace(config + ".tmp", config)


def hup(says):
    """SIGHUP; waits (up to 30 s) for the log line that says it read
    the file, and returns it, with the lines logged before it."""
    start = os.path.getsize(log)
    os.kill(int(pid), signal.SIGHUP)
    for _ in range(300):
        with open(log, errors="replace") as f:
            f.seek(start)
            before = []
            for line in f:
                if says in line:
                    return line.strip(), before
                before.append(line.strip())
        time.sleep(0.1)
    return None, []


# Started with predecessors false: revision 1.
a, rev = greet()
check("predecessors false: a HELLO of revision 2 answered 1", rev == 1, rev)
checks.expect("... JOB", job(a, 4), OK)
entries, prev = head_step(a)
check(f"... its STEP_OK of {entries} entries carries no predecessor",
      isinstance(entries, int) and entries > 0 and prev is None,
      (entries, prev))

# predecessors true in the file, SIGHUP: taken for new connections;
# a device-count changed with it is not.
rewrite(True, 1)
line, before = hup("SIGHUP: predecessors read again:")
check("SIGHUP says predecessors true, was false, revision 2",
      line is not None and "predecessors read again: true, was false: new "
      "connections speak protocol revision 2" in line, line)
check("... and that the device-count changed is not taken",
      any("device-count changed, not taken: a change of these needs a "
          "restart" in b for b in before), before)
b, rev = greet()
check("after SIGHUP: a HELLO of revision 2 answered 2", rev == 2, rev)
check("... its HELLO_OK's compute as before (the inventory of the start)",
      len(computes) == 2 and computes[0] == computes[1], computes)
checks.expect("... JOB", job(b, 4), OK)
entries, prev = head_step(b)
check(f"... its STEP_OK carries a predecessor for each of its {entries} "
      f"entries, -1 at the head",
      isinstance(entries, int) and entries > 0 and prev == [-1] * entries,
      (entries, prev))
entries, prev = head_step(a)
check("the connection of before keeps revision 1: no predecessor",
      isinstance(entries, int) and entries > 0 and prev is None,
      (entries, prev))

# A file that does not load: nothing changes.
with open(config) as f:
    good = f.read()
with open(config, "w") as f:
    f.write("{\"lightrail-agent:agent\": {\"dc\": ")
line, _ = hup("not read again")
check("a file that does not load: said, predecessors stays true",
      line is not None and "SIGHUP: the configuration not read again, "
      "predecessors stays true: " + config in line, line)
with open(config, "w") as f:
    f.write(good)
c, rev = greet()
check("... a new connection still answered 2", rev == 2, rev)
c.close()

# Back to false: revision 2's connection closed at its next request.
rewrite(False, -1)
line, _ = hup("SIGHUP: predecessors read again:")
check("SIGHUP says predecessors false, was true, revision 1",
      line is not None and "predecessors read again: false, was true: new "
      "connections speak protocol revision 1" in line, line)
t, p = step_head(b, 0, 3)
check("the connection of revision 2: its STEP answered an ERROR "
      "'closed: ...'",
      t == ERROR and b"closed: this connection agreed protocol revision 2"
      in p and b"predecessors false" in p, (t, p))
try:
    more = read_frame(b)
except (EOFError, OSError) as e:
    more = None
check("... and the connection closed", more is None, more)
entries, prev = head_step(a)
check("the connection of revision 1 still served, no predecessor",
      isinstance(entries, int) and entries > 0 and prev is None,
      (entries, prev))
d, rev = greet()
check("a new connection: a HELLO of revision 2 answered 1", rev == 1, rev)
sys.exit(1 if checks.failed else 0)
