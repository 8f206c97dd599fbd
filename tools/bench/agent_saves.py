#!/usr/bin/env python3
"""One agent, two connections (tools/bench/agent_saves.sh): connection A
commits and releases a tag ROUNDS times, each COMMIT and RELEASE a save
of the agent's reservations, first alone, then while connection B sends
HELLO after HELLO.  Prints one JSON object: B's round trips while A ran
(median, 99th percentile, max, in ms), A's COMMIT and RELEASE latencies
(median) and pairs per second, alone and beside B.  An agent that saves
on its event loop makes B wait for each save; one that saves on a
thread of its own does not.

    agent_saves.py CERTS_DIR PORT AGENT_NAME ROUNDS
"""
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "cli"))
from agentwire import FINISH_OK, HELLO, HELLO_OK, OK, RELEASE, ask, \
    commit, connect, job, text  # noqa: E402

certs, port, agent, rounds = sys.argv[1], sys.argv[2], sys.argv[3], \
    int(sys.argv[4])


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


a = connect(certs, port, agent, "coordinator")
b = connect(certs, port, agent, "coordinator")
a.settimeout(60)
b.settimeout(60)
assert job(a)[0] == OK
done = threading.Event()


def run_a(tag, commits, releases):
    try:
        for i in range(rounds):
            t0 = time.perf_counter()
            got = commit(a, "%s%d" % (tag, i))
            t1 = time.perf_counter()
            assert got[0] == FINISH_OK, got
            got = ask(a, RELEASE, text("%s%d" % (tag, i)))
            t2 = time.perf_counter()
            assert got[0] == OK, got
            commits.append(t1 - t0)
            releases.append(t2 - t1)
    finally:
        done.set()


# A alone.
alone_c, alone_r = [], []
start = time.perf_counter()
run_a("a", alone_c, alone_r)
alone_wall = time.perf_counter() - start
# A beside B.
done.clear()
commits, releases = [], []
start = time.perf_counter()
th = threading.Thread(target=run_a, args=("b", commits, releases))
th.start()
hellos = []
while not done.is_set():
    t0 = time.perf_counter()
    got = ask(b, HELLO)
    hellos.append(time.perf_counter() - t0)
    assert got[0] == HELLO_OK, got
th.join()
wall = time.perf_counter() - start
if len(commits) != rounds or len(alone_c) != rounds:
    sys.exit("connection A stopped early")
ms = 1000.0
print(json.dumps({
    "commit_alone_p50_ms": statistics.median(alone_c) * ms,
    "release_alone_p50_ms": statistics.median(alone_r) * ms,
    "pairs_alone_per_s": rounds / alone_wall,
    "hellos": len(hellos),
    "hello_p50_ms": statistics.median(hellos) * ms,
    "hello_p99_ms": pct(hellos, 99) * ms,
    "hello_max_ms": max(hellos) * ms,
    "commit_p50_ms": statistics.median(commits) * ms,
    "release_p50_ms": statistics.median(releases) * ms,
    "pairs_per_s": rounds / wall,
}))
