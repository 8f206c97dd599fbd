#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Six equal DCs: the agent
# pairs them": NSFNET with six DCs of 12 A100 each
# (examples/clusters/nsfnet6-equal.json), exp holding, the default job
# mix (4, 8 and 16 GPUs, pairs split 1/2).  Run from the top of a built
# tree:
#     tools/experiments/equal.sh OUTDIR
# Parts (BASE=0, PPO=0, TRACE=0, ROLLOUT=0, SPLITS=0, IMIT=0, PAIR=0
# skip one):
#   1. every baseline at 3.0-3.3 E on seeds 1001-1010 and 2001-2010
#      (about 1 minute of one core);
#   2. four PPO agents trained from scratch at 3.15 E (seeds 1-4, about
#      half a minute each), each paired against random, resource and
#      nearest on both seed sets, then the first against every
#      baseline (about 5 minutes);
#   3. the first agent's decisions on seed 1001 (sim --trace): how many
#      of its placements split a job evenly over two DCs with as many
#      free GPUs, and which pairs of DCs it uses;
#   4. that agent with its rollout at decision time, 5 seeds of 5,000
#      arrivals per set (about 10 minutes of one core per set);
#   5. the baselines with the options that let them do what the agent
#      learnt (uneven shares of a pair, pipelines over four DCs);
#   6. DAgger from the first agent with its rollout as teacher, the
#      labels that leave the agent weighing 1, 3 and 10, each paired
#      against random (about 5-9 minutes of one core each);
#   7. the agent's rule written by hand (the 'pair' baseline) beside the
#      shipped agent, pair around its 5% load, and pair's rollout at
#      decision time paired against pair (about 30 minutes per set),
#      and 128-unit students of that rollout (about 7 minutes each).
# Writes OUTDIR/eq-*.pol and the tables in OUTDIR/*.txt.  Seeds:
# training 1-4, evaluation 1001-1010 and 2001-2010 (never used by
# training), 20,000 arrivals.
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/equal.sh OUTDIR}
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1
NET="--topology examples/topologies/nsfnet.json
     --cluster examples/clusters/nsfnet6-equal.json"
EV="--seeds 10 --arrivals 20000 --quiet"
LOAD=3.15

# A student of a rollout teacher (DAgger, 24,000 labels, those that leave
# the base weighing W), then paired against BASELINE on both seed sets,
# a line each appended to TABLE.  Args: TABLE OUT.pol W BASELINE
# TRAIN-OPTIONS...
student() {
    table=$1 pol=$2 w=$3 against=$4
    shift 4
    # shellcheck disable=SC2086
    nice $L train $NET --load $LOAD --epochs 2 --gamma 0.9 \
        --block-penalty 10 --rollout-top 8 --rollout-horizon 30 \
        --rollout-samples 30 --rollout-screen 10 --imitate 24000 \
        --steps 0 --seed 3 --deviation-weight "$w" "$@" \
        --out "$pol" 2>> "$table"
    for set in 1001 2001; do
        # shellcheck disable=SC2086
        nice $L sim $NET --policy "$against" --policy-file "$pol" \
            --loads $LOAD $EV --seed $set --paired "$against" \
            | grep "^ppo .*blocking" \
            | sed "s/^/weight $w set $set: /" >> "$table"
    done
}

# 1. The baselines around the load where the best blocks 5%.
if [ "${BASE:-1}" = 1 ]; then
    for set in 1001 2001; do
        # shellcheck disable=SC2086
        nice $L sim $NET --policy all --loads 3:3.3:0.1 $EV --seed $set \
            > "$out/base-$set.txt"
    done
fi

# 2. PPO from scratch: gamma 0.9, a block penalty of 10, 32 units and
#    two passes (docs/ppo.md "Smaller networks, fewer passes").
if [ "${PPO:-1}" = 1 ]; then
    : > "$out/ppo.txt"
    for s in 1 2 3 4; do
        # shellcheck disable=SC2086
        nice $L train $NET --load $LOAD --lr 3e-4 --gamma 0.9 \
            --hidden 32 --epochs 2 --block-penalty 10 --steps 1000000 \
            --seed $s --quiet --out "$out/eq-$s.pol"
        for set in 1001 2001; do
            # shellcheck disable=SC2086
            nice $L sim $NET --policy random,resource,nearest \
                --policy-file "$out/eq-$s.pol" --loads $LOAD $EV \
                --seed $set --paired random \
                | sed "s/^/seed $s set $set: /" >> "$out/ppo.txt"
        done
    done
    for set in 1001 2001; do
        for b in random resource nearest zone static greedy; do
            # shellcheck disable=SC2086
            nice $L sim $NET --policy $b --policy-file "$out/eq-1.pol" \
                --loads $LOAD $EV --seed $set --paired $b \
                | grep "^ppo .*blocking" \
                | sed "s/^/set $set vs $b: /" >> "$out/ppo-vs.txt"
        done
    done
fi

# 3. What the agent does: its placements on seed 1001.
if [ "${TRACE:-1}" = 1 ]; then
    # shellcheck disable=SC2086
    nice $L sim $NET --policy-file "$out/eq-1.pol" --loads $LOAD \
        --seeds 1 --seed 1001 --arrivals 20000 --quiet \
        --trace "$out/trace.jsonl" > /dev/null
    {
        echo "placements after the warm-up: even over two DCs with as many free GPUs / others"
        jq -r 'select(.counted and (.blocked | not)) | . as $l
               | if (.placement | length) == 2
                    and .placement[0].gpus == .placement[1].gpus
                    and $l.free[.placement[0].dc] == $l.free[.placement[1].dc]
                 then "paired" else "other" end' "$out/trace.jsonl" \
            | sort | uniq -c
        echo "pairs of DCs used"
        jq -r 'select(.counted and (.blocked | not))
               | [.placement[].dc] | sort | join("+")' "$out/trace.jsonl" \
            | sort | uniq -c | sort -rn
    } > "$out/trace.txt"
fi

# 4. The agent with its rollout at decision time.
if [ "${ROLLOUT:-1}" = 1 ]; then
    for set in 1001 2001; do
        # shellcheck disable=SC2086
        nice $L sim $NET --policy random --policy-file "$out/eq-1.pol" \
            --loads $LOAD --seeds 5 --seed $set --arrivals 5000 \
            --warmup 500 --quiet --rollout ppo --rollout-samples 30 \
            --rollout-horizon 30 --paired random > "$out/rollout-$set.txt"
    done
fi

# 5. The baselines given uneven shares of a pair or four-DC pipelines.
if [ "${SPLITS:-1}" = 1 ]; then
    for o in "--splits 1/4,1/2" "--quads"; do
        n=$(echo "$o" | tr -dc 'a-z0-9')
        # shellcheck disable=SC2086
        nice $L sim $NET --policy static,nearest,resource,greedy,zone,random \
            $o --loads $LOAD $EV --seed 1001 > "$out/base-$n.txt"
        # Where the best of them blocks 5%, and the bound there.
        # shellcheck disable=SC2086
        nice $L sim $NET --policy static,zone,random,resource $o \
            --loads 3.3:3.7:0.1 $EV --seed 1001 > "$out/base-$n-loads.txt"
    done
fi

# 6. Imitating the agent's rollout, its deviations weighted.
if [ "${IMIT:-1}" = 1 ]; then
    : > "$out/imitate.txt"
    for w in 1 3 10; do
        student "$out/imitate.txt" "$out/pi-w$w.pol" $w random \
            --hidden 32 --init "$out/eq-1.pol" --teacher rollout-ppo
    done
fi

# 7. The agent's rule as a baseline, and one step of improvement on it.
if [ "${PAIR:-1}" = 1 ]; then
    for set in 1001 2001; do
        # shellcheck disable=SC2086
        nice $L sim $NET --policy random,pair \
            --policy-file examples/policies/nsfnet6-equal.pol \
            --loads $LOAD $EV --seed $set --paired random > "$out/pair-$set.txt"
        # shellcheck disable=SC2086
        nice $L sim $NET --policy pair --loads 3.3:3.7:0.1 $EV --seed $set \
            > "$out/pair-loads-$set.txt"
        # shellcheck disable=SC2086
        nice $L sim $NET --policy pair,random --loads $LOAD --seeds 10 \
            --seed $set --arrivals 5000 --warmup 500 --quiet --rollout pair \
            --rollout-samples 30 --rollout-horizon 30 --paired pair \
            --format json > "$out/rollout-pair-$set.json"
    done
    # A student four times the agent's width, taught by pair's rollout.
    : > "$out/rp.txt"
    for w in 1 5; do
        student "$out/rp.txt" "$out/rp-w$w.pol" $w pair \
            --hidden 128 --teacher rollout-pair --quiet
    done
fi
