#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Pipelines over four DCs":
# every baseline on NSFNET with six DCs with triples, with triples and
# quadruples, and with quadruples alone (jobs of 3, 6 and 12 GPUs, exp,
# 10 E; and the default jobs of 4, 8 and 16 GPUs at 7 E), each policy
# paired seed by seed against itself without quadruples; then PPO
# agents with both, paired against the best baselines and greedy.  Run
# from the top of a built tree:
#     tools/experiments/quads.sh OUTDIR
# About 3 minutes of one core for the baselines and 5-6 per agent (11
# agents), 40 minutes for part 4; BASE=0, PPO=0, HEAVY=0 or GOAL=0 skip
# a part (part 4 evaluates part 3's agents where it finds them);
# STEPS=N trains N steps instead of the rows' own and EV="--seeds 2
# --arrivals 600 --warmup 100" evaluates on less, for a quick try that
# reproduces nothing.  Writes
# the baselines' JSON in OUTDIR/base-*.json, their paired comparison in
# OUTDIR/base-paired.txt, the agents in OUTDIR/*.pol and one line per
# agent, baseline and seed set in OUTDIR/ppo.txt.  Seeds: training 1-3,
# evaluation 1001-1010 and 2001-2010, 20,000 arrivals (never used by
# training).
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/quads.sh OUTDIR}
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1
NT="--topology examples/topologies/nsfnet.json
    --cluster examples/clusters/nsfnet6.json"
POLICIES="static,nearest,resource,greedy,zone,cdynp,random"
EV=${EV:-"--seeds 10 --arrivals 20000"}

# 1. The baselines: NAME LOAD CHAINS [OPTIONS...], CHAINS one of t
#    (triples), tq (triples and quadruples), q (quadruples), p (pairs).
base() {
    n=$1 ld=$2 ch=$3
    shift 3
    case $ch in
        p) c= ;;
        t) c=--triples ;;
        q) c=--quads ;;
        tq) c="--triples --quads" ;;
    esac
    for set in 1001 2001; do
        # shellcheck disable=SC2086
        nice $L sim $NT $c --policy $POLICIES --loads "$ld:$ld:1" $EV \
            --seed $set --format json --quiet "$@" \
            > "$out/base-$n-$ch-$set.json"
    done
}
# paired NAME A B: per policy and seed set, B's blocking against A's,
# seed by seed (mean relative change, its 95% interval by t over the
# seeds, and in how many seeds B blocks less).
paired() {
    for set in 1001 2001; do
        jq -n -r --arg n "$1 $3 vs $2, $set" \
            --slurpfile a "$out/base-$1-$2-$set.json" \
            --slurpfile b "$out/base-$1-$3-$set.json" '
            def mean: add / length;
            def sd: mean as $m | (map((. - $m) * (. - $m)) | add
                                  / (length - 1)) | sqrt;
            # t at 97.5% for 1..10 degrees of freedom, then about 2.
            def t: [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                    2.306, 2.262, 2.228][. - 1] // 2.0;
            def r3: . * 1000 | round / 1000;
            def r1: . * 10 | round / 10;
            range($a | length) as $i | $a[$i] as $x | $b[$i] as $y
            | [$x.blocking_per_seed, $y.blocking_per_seed] | transpose
            | map(100 * (.[1] - .[0]) / .[0]) as $r | ($r | length) as $k
            | "\($n): \($x.policy) \($x.blocking * 100 | r3)% -> \(
                $y.blocking * 100 | r3)%, \($r | mean | r1)% +- \($r | sd
                * ($k - 1 | t) / ($k | sqrt) | r1), lower in \($r
                | map(select(. < 0)) | length) of \($k)"'
    done
}
if [ "${BASE:-1}" = 1 ]; then
    for ch in t tq q; do
        base d3 10 "$ch" --demands 3,6,12
    done
    for ch in p t tq; do
        base d4 7 "$ch"
    done
    { paired d3 t tq; paired d3 t q; paired d4 t tq; } > "$out/base-paired.txt"
fi

# evaluate NAME SEED: OUTDIR/NAME-SEED.pol paired against each baseline
# of AGAINST (default nearest, resource, zone and greedy, with the same
# candidates) at LOAD (default 10 E), on both seed sets.
evaluate() {
    ld=${LOAD:-10}
    for b in ${AGAINST:-nearest resource zone greedy}; do
        for set in 1001 2001; do
            # shellcheck disable=SC2086
            r=$(nice $L sim $NT --policy "$b" --paired "$b" \
                    --policy-file "$out/$1-$2.pol" \
                    --loads "$ld:$ld:1" $EV --seed $set 2>&1 \
                | grep '^ppo .*blocking' | sed 's/^ppo *[0-9.]* //')
            echo "$1 seed $2 vs $b, $set, $ld E: $r" >> "$out/ppo.txt"
        done
    done
}
# 2. PPO with triples and quadruples, jobs of 3, 6 and 12 GPUs, trained
#    at LOAD (default 10 E): NAME STEPS SEEDS OPTIONS..., each agent
#    then evaluated as above.
ppo() {
    n=$1 st=${STEPS:-$2} seeds=$3
    shift 3
    for s in $seeds; do
        # shellcheck disable=SC2086
        nice $L train $NT --demands 3,6,12 --triples --quads \
            --load "${LOAD:-10}" --lr 3e-4 --quiet --steps "$st" \
            --seed "$s" --out "$out/$n-$s.pol" "$@"
        evaluate "$n" "$s"
    done
}
# OUTDIR/ppo.txt holds the lines of this run's parts 2-4.  The
# anchored agents train the critic alone for their first tenth; those
# of parts 3 and 4 share the options PH.
: > "$out/ppo.txt"
cw=$((${STEPS:-1000000} / 10))
PH="--gamma 0.9 --hidden 32 --epochs 2 --teacher resource"
if [ "${PPO:-1}" = 1 ]; then
    P="--gamma 0.9 --block-penalty 10 --hidden 32 --epochs 2"
    # shellcheck disable=SC2086
    ppo scratch 1000000 "1 2" $P
    # An imitation of resource (200,000 decisions of DAgger) alone, then
    # PPO from it anchored to it (and one from zone).
    # shellcheck disable=SC2086
    ppo imitate-resource 0 1 $P --teacher resource
    for a in 0.1:"1 2" 0.07:"1 2 3" 0.05:"1 2"; do
        # shellcheck disable=SC2086
        ppo "resource-anchor${a%%:*}" 1000000 "${a#*:}" $P \
            --teacher resource --anchor "${a%%:*}" --critic-warmup $cw
    done
    # shellcheck disable=SC2086
    ppo zone-anchor0.1 1000000 1 $P --teacher zone --anchor 0.1 \
        --critic-warmup $cw
fi
# 3. Blocking weighs more (docs/ppo.md, "Blocking weighs more"): the
#    anchored agents of part 2 with a block penalty of 30 instead of 10,
#    or with the blocking reward alone (an admission earns 0).
if [ "${HEAVY:-1}" = 1 ]; then
    for a in 0.1:"1 2" 0.07:"1 2" 0.05:1; do
        # shellcheck disable=SC2086
        ppo "resource-anchor${a%%:*}-bp30" 1000000 "${a#*:}" $PH \
            --block-penalty 30 --anchor "${a%%:*}" --critic-warmup $cw
    done
    # shellcheck disable=SC2086
    ppo resource-anchor0.1-blocking 1000000 1 $PH --block-penalty 10 \
        --reward blocking --anchor 0.1 --critic-warmup $cw
fi
# 4. At the goal's load (docs/ppo.md, "At the goal's load"): the
#    baselines at 10.5-11.5 E (the best blocks 5% at about 10.75 E), the
#    anchor-0.07 agents of part 3 evaluated there, and the same recipe
#    trained there.
if [ "${GOAL:-1}" = 1 ]; then
    # shellcheck disable=SC2086
    nice $L sim $NT --demands 3,6,12 --triples --quads \
        --policy static,nearest,resource,zone,greedy --loads 10.5:11.5:0.5 \
        $EV --seed 2001 --format json --quiet > "$out/base-goal.json"
    LOAD=10.75
    AGAINST="resource zone nearest static greedy"
    for s in 1 2; do
        if [ -f "$out/resource-anchor0.07-bp30-$s.pol" ]; then
            evaluate resource-anchor0.07-bp30 $s
        fi
    done
    # shellcheck disable=SC2086
    ppo resource-anchor0.07-bp30-at10.75 1000000 "1 2" $PH \
        --block-penalty 30 --anchor 0.07 --critic-warmup $cw
fi
echo "quads.sh: results in $out" >&2
