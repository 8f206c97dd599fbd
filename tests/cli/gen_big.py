#!/usr/bin/env python3
"""Inputs bigger than the examples, for tests/cli/limits.sh, on stdout.

  gen_big.py ring N [DC:NODE...]   a ring of N ROADMs r0..rN-1 (10 km
                                   fibres both ways), DC dcK attached to
                                   rNODE for each DC:NODE
  gen_big.py mesh N [DC:NODE...]   the ring plus a chord from each rI to
                                   rI+7 (both ways): degree 4
  gen_big.py cluster N [DC:NODE...] N DCs dc0.. of 8 A100s, dcK attached
                                   to rNODE (default rK), a chain of
                                   inter-DC links
  gen_big.py model N               a model of N explicit layers
"""
import json
import sys


def pairs(args):
    return dict(tuple(int(x) for x in a.split(":")) for a in args)


def ring(n, at, chords=()):
    where = {node: dc for dc, node in at.items()}
    nodes = []
    for i in range(n):
        d = {"node-id": "r%d" % i}
        if i in where:
            d["lightrail-topology:dc-attachment"] = [{"dc": "dc%d" % where[i]}]
        nodes.append(d)
    links = []
    for i in range(n):
        for step in (1,) + tuple(chords):
            j = (i + step) % n
            for a, b in ((i, j), (j, i)):
                links.append({"link-id": "l%d-%d" % (a, b),
                              "source": {"source-node": "r%d" % a},
                              "destination": {"dest-node": "r%d" % b},
                              "lightrail-topology:length-km": "10",
                              "lightrail-topology:slots": 100})
    return {"ietf-network:networks": {"network": [{
        "network-id": "ring%d" % n,
        "network-types": {"lightrail-topology:lightrail-optical": {}},
        "node": nodes, "ietf-network-topology:link": links}]}}


def cluster(n, at):
    dcs = [{"name": "dc%d" % k, "device-type": "A100-80GB",
            "device-count": 8, "intra-dc-bandwidth-gbytes-per-s": "600",
            "intra-dc-latency-us": "5",
            "attachment-node": "r%d" % at.get(k, k)} for k in range(n)]
    links = [{"from": "dc%d" % k, "to": "dc%d" % (k + 1),
              "bandwidth-gbps": "10", "latency-ms": "1"}
             for k in range(n - 1)]
    return {"lightrail-compute:compute": {
        "device-type": [{"name": "A100-80GB", "peak-tflops": "312",
                         "efficiency": "0.45", "memory-gb": "80"}],
        "dc": dcs, "inter-dc-link": links}}


def model(n):
    return {"lightrail-model:model": {"name": "big%d" % n, "layer": [
        {"index": i + 1, "forward-gflops-per-sample": "1",
         "parameters": "1000", "activation-elements": "100"}
        for i in range(n)]}}


if __name__ == "__main__":
    kind, n, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    doc = {"ring": lambda: ring(n, pairs(rest)),
           "mesh": lambda: ring(n, pairs(rest), (7,)),
           "cluster": lambda: cluster(n, pairs(rest)),
           "model": lambda: model(n)}[kind]()
    json.dump(doc, sys.stdout, indent=1)
    print()
