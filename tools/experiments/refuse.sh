#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Deliberate refusals (work
# mode)": the greedy-cap sweep on the metro at 1.0 E, PPO agents trained
# with the refusal action (gamma x block penalty), their evaluation
# against every baseline, and the same on NSFNET/6 DCs at 2.5 E.  Run
# from the top of a built tree:
#     tools/experiments/refuse.sh OUTDIR     (about 15 minutes of one core)
# Writes OUTDIR/*.pol and one JSON line per (policy, load) in
# OUTDIR/*.json; seeds: training 1 (and 2), evaluation 2001-2010 (metro)
# and 1001-1010 (NSFNET), never used by training.
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/refuse.sh OUTDIR}
mkdir -p "$out"
MT="--topology examples/topologies/metro.json --cluster examples/clusters/metro.json"
NT="--topology examples/topologies/nsfnet.json --cluster examples/clusters/nsfnet6.json"

for th in 1.5 2 3 5 6 8 8.5 9; do
    $L sim $MT --holding work --loads 1.0:1.0:1 --seeds 10 --seed 2001 \
        --quiet --format json --policy greedy-cap --cap $th
done > "$out/metro-cap.json"

train() {   # NAME NETWORK-OPTS LOAD GAMMA PENALTY [MORE...]
    n=$1 net=$2 load=$3 g=$4 p=$5
    shift 5
    $L train $net --steps 300000 --seed 1 --load "$load" --lr 3e-4 \
        --holding work --gamma "$g" --block-penalty "$p" --out "$out/$n.pol" \
        --quiet "$@"
}
for g in 0.5 0.9 0.99; do
    for p in 2 9 25; do
        train "metro-g$g-p$p" "$MT" 1.0 "$g" "$p" --refuse
        $L sim $MT --loads 1.0:1.0:1 --seeds 10 --seed 2001 --quiet \
            --format json --policy-file "$out/metro-g$g-p$p.pol" \
            > "$out/metro-g$g-p$p.json"
    done
done
train metro-g0.9-p9-norefuse "$MT" 1.0 0.9 9
$L sim $MT --policy all --cap 8.5 --policy-file "$out/metro-g0.9-p9.pol" \
    --loads 0.5:1.5:0.25 --seeds 10 --seed 2001 --quiet --format json \
    > "$out/metro-all.json"
$L sim $MT --policy-file "$out/metro-g0.9-p9-norefuse.pol" \
    --loads 0.5:1.5:0.25 --seeds 10 --seed 2001 --quiet --format json \
    > "$out/metro-norefuse.json"

for p in 2 9 25; do
    train "nsfnet-g0.9-p$p" "$NT" 2.5 0.9 "$p" --refuse
done
$L sim $NT --policy all --cap 8.5 --policy-file "$out/nsfnet-g0.9-p9.pol" \
    --loads 2.5:3:0.5 --seeds 10 --seed 1001 --quiet --format json \
    > "$out/nsfnet-all.json"
for p in 2 25; do
    $L sim $NT --policy-file "$out/nsfnet-g0.9-p$p.pol" --loads 2.5:3:0.5 \
        --seeds 10 --seed 1001 --quiet --format json > "$out/nsfnet-p$p.json"
done
echo "wrote $out" >&2
