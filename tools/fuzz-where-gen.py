#!/usr/bin/env python3
"""Random XPath 1.0 expressions over a job's nodes, for fuzz_job_where.

usage: tools/fuzz-where-gen.py DIR [COUNT [SEED]]

Writes COUNT (default 10000) inputs of tests/fuzz/fuzz_job_where.c into
DIR, one per file (a where, and a sort-by after a line feed in one of
eight), drawn from XPath 1.0's grammar (OrExpr down to steps,
predicates, literals, numbers and every function of XPath 1.0 and YANG
1.1) over the nodes of yang/lightrail-job.yang's job entry, with the
numbers and strings that break implementations (0, -0, huge, a decimal
below 1, long digit strings, regular expressions that backtrack).  Run
them with

    tests/fuzz/fuzz_job_where -runs=0 -detect_leaks=0 DIR

which evaluates each once under ASan and UBSan.  libyang is not
instrumented, so libFuzzer's coverage cannot tell one well-formed
expression from another and its byte mutations mostly make syntax
errors: a grammar run reaches libyang's evaluator with every
construct, which is where its crashes are.  Deterministic for a SEED.
"""
import os
import random
import sys

# The job entry's schema: name -> children (None: a leaf or leaf-list).
SHAPE = ["arch", "layers", "hidden", "heads", "kv-heads", "ffn", "vocab",
         "seq"]
JOB = {
    "name": None, "model": None, "batch": None, "microbatch": None,
    "algorithm": None, "priority": None, "iterations": None,
    "transformer": {k: None for k in SHAPE},
    "gpus": {"min": None, "max": None},
    "state": {
        "phase": None, "reason": None, "planner-note": None,
        "iteration-time-s": None, "created": None, "updated": None,
        "stage": {k: None for k in ["index", "first-layer", "last-layer",
                                    "dc", "devices", "private", "time-s"]},
        "gpus": {"dc": None, "count": None},
        "lightpath": {k: None for k in [
            "index", "from-dc", "to-dc", "node", "link", "length-km",
            "modulation", "first-slot", "slots", "n", "m",
            "capacity-gbps"]},
    },
}
LEAVES = []


def leaves(tree, prefix=""):
    for k, v in tree.items():
        if v is None:
            LEAVES.append(prefix + k)
        else:
            leaves(v, prefix + k + "/")


leaves(JOB)

FUNCS = {  # name: (min args, max args)
    "last": (0, 0), "position": (0, 0), "count": (1, 1), "id": (1, 1),
    "local-name": (0, 1), "namespace-uri": (0, 1), "name": (0, 1),
    "string": (0, 1), "concat": (2, 4), "starts-with": (2, 2),
    "contains": (2, 2), "substring-before": (2, 2),
    "substring-after": (2, 2), "substring": (2, 3),
    "string-length": (0, 1), "normalize-space": (0, 1),
    "translate": (3, 3), "boolean": (1, 1), "not": (1, 1), "true": (0, 0),
    "false": (0, 0), "lang": (1, 1), "number": (0, 1), "sum": (1, 1),
    "floor": (1, 1), "ceiling": (1, 1), "round": (1, 1),
    "current": (0, 0), "deref": (1, 1), "re-match": (2, 2),
    "derived-from": (2, 2), "derived-from-or-self": (2, 2),
    "enum-value": (1, 1), "bit-is-set": (2, 2),
}
AXES = ["child", "self", "attribute", "descendant", "descendant-or-self",
        "parent", "ancestor", "ancestor-or-self", "following",
        "following-sibling", "preceding", "preceding-sibling"]
NUMBERS = ["0", "1", "2", "3", "10", "255", "256", "-1", "0.5", ".5",
           "1.", "-0", "4294967296", "9223372036854775807",
           "9223372036854775808", "18446744073709551616",
           "1" + "0" * 40, "0.000000000000000000001", "1" * 320]
STRINGS = ["", "ja", "jb", "active", "blocked", "dc1", "r1-r2", "gpt-1.9b",
           "cdynp", "x", " ", "NaN", "Infinity", "-Infinity", "1e3",
           "lightrail-job:x", "x:y", "(a*)*b", "(a|a)*$", "(.*)*x",
           "[a--c]", "\\p{L}+", "\\", "[", "(", "a{99999}",
           "2026-12-06T00:00:00Z", "é", "\u4e2d"]
OPS = ["or", "and", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "div",
       "mod", "|"]


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def literal(self):
        s = self.r.choice(STRINGS)
        if "'" not in s and self.r.random() < 0.8:
            return "'" + s + "'"
        return '"' + s + '"'

    def step(self, tree, depth):
        r = self.r
        names = list(tree) if tree else []
        x = r.random()
        if x < 0.06:
            test = "*"
        elif x < 0.10:
            test = r.choice(["node()", "text()"])
        elif x < 0.13:
            test = "."
        elif x < 0.15:
            test = ".."
        elif names:
            test = r.choice(names)
        else:
            test = r.choice(LEAVES).split("/")[-1]
        if test not in (".", "..") and r.random() < 0.12:
            test = r.choice(AXES) + "::" + test
        if test not in (".", "..") and r.random() < 0.04:
            test = "lightrail-job:" + test
        if depth > 0 and r.random() < 0.2:
            test += "[" + (self.expr(depth - 1) if r.random() < 0.7
                           else r.choice(NUMBERS[:8])) + "]"
        nxt = tree.get(test.split("::")[-1].split("[")[0]) \
            if isinstance(tree, dict) else None
        return test, nxt

    def path(self, depth):
        r = self.r
        out, tree = [], JOB
        if r.random() < 0.1:
            out.append(r.choice(["current()", "."]))
        n = r.randint(1, 4)
        for i in range(n):
            s, tree = self.step(tree if isinstance(tree, dict) else {},
                                depth)
            out.append(s)
            if not isinstance(tree, dict):
                break
        sep = "//" if r.random() < 0.08 else "/"
        p = sep.join(out)
        if r.random() < 0.02:
            p = r.choice(["/", "//"]) + p
        return p

    def call(self, depth):
        r = self.r
        f = r.choice(list(FUNCS))
        lo, hi = FUNCS[f]
        if r.random() < 0.05:
            hi += 1
        args = [self.expr(depth - 1) for _ in range(r.randint(lo, hi))]
        return f + "(" + ", ".join(args) + ")"

    def primary(self, depth):
        r = self.r
        x = r.random()
        if depth <= 0 or x < 0.35:
            y = r.random()
            if y < 0.5:
                return self.path(0)
            if y < 0.75:
                return r.choice(NUMBERS)
            return self.literal()
        if x < 0.65:
            return self.call(depth)
        if x < 0.85:
            return self.path(depth)
        return "(" + self.expr(depth - 1) + ")"

    def expr(self, depth):
        r = self.r
        e = self.primary(depth)
        while depth > 0 and r.random() < 0.4:
            e += " " + r.choice(OPS) + " " + self.primary(depth - 1)
        if r.random() < 0.05:
            e = "-" + e
        return e


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tools/fuzz-where-gen.py DIR [COUNT [SEED]]")
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    g = Gen(random.Random(seed))
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        text = g.expr(g.r.randint(1, 4))
        if g.r.random() < 0.125:
            text += "\n" + g.r.choice(LEAVES + ["state", "/x", ""])
        with open(os.path.join(out, "gen-%06d.xpath" % i), "w",
                  encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
