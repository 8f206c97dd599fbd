#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Is greedy nearly optimal?
# Rollouts of every other choice (work mode)": greedy's advantage along
# its own run on the metro (futures that know what a policy observes,
# then futures that know every job's work) and on NSFNET with six DCs
# (the 20 fastest alternatives).  Run from the top of a built tree:
#     tools/experiments/advantage.sh OUTDIR
# About 40 minutes of one core on the machine it was written on (two
# cores shared with others; one job at a time).  Writes one JSON object
# per run to OUTDIR/*.json and the summaries to OUTDIR/summary.txt.
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/advantage.sh OUTDIR}
mkdir -p "$out"
MT="--topology examples/topologies/metro.json --cluster examples/clusters/metro.json"
NT="--topology examples/topologies/nsfnet.json --cluster examples/clusters/nsfnet6.json"
A="--holding work --refusal --quiet --format json"

nice $L advantage $MT $A --load 1 --states 300 --samples 2000 \
    > "$out/metro-observable.json"
nice $L advantage $MT $A --load 1 --states 300 --samples 2000 --known-work \
    > "$out/metro-known-work.json"
nice $L advantage $NT $A --load 2.5 --states 200 --samples 1000 --top 20 \
    > "$out/nsfnet6-observable.json"

for f in "$out"/*.json; do
    jq -r --arg f "$(basename "$f")" '
        def pct(x): (x * 10000 | round) / 100;
        "\($f): greedy blocks \(pct(.blocking))%; gain per decision "
        + "\(.gain_per_decision) +- \(.gain_per_decision_ci95) = "
        + "\(pct(.gain_share_of_blocking))% of the blocking (upper "
        + "estimate); held-out \(.heldout_gain_per_decision) +- "
        + "\(.heldout_gain_per_decision_ci95) = "
        + "\(pct(.heldout_share_of_blocking))%; states with "
        + "a gain > 1.96 SE: \([.states[] | select(.gain > 0 and
              .gain > 1.96 * .gain_se)] | length) of \(.states | length)"
    ' "$f"
done | tee "$out/summary.txt"
