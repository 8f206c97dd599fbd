#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Demands that are not
# multiples of four": jobs of 3, 6 and 12 GPUs, every baseline with
# and without pipelines over three DCs (metro exp 3.5 E, NSFNET/6 exp
# 10 E, metro work 1.5 E), then PPO agents with triples under several
# rewards, each paired against the best baseline and greedy on the
# same arrivals.  Run from the top of a built tree:
#     tools/experiments/demands3.sh OUTDIR
# About 15 minutes of one core for the metro, 80 for NSFNET/6, 20 for
# part 3 (METRO=0, NSFNET=0, HEAVY=0 or WORK=0 skip a part; STEPS=N
# trains N steps instead of the rows' own, for a quick try that
# reproduces nothing).  Writes
# OUTDIR/*.pol, the baselines' tables in OUTDIR/base-*.txt and one
# line per agent and seed set in OUTDIR/ppo-*.txt.  Seeds: training
# 1-5 (fewer where docs/ppo.md says so), evaluation 1001-1010 and
# 2001-2010, 20,000 arrivals (never used by training).
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/demands3.sh OUTDIR}
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1
MT="--topology examples/topologies/metro.json
    --cluster examples/clusters/metro.json"
NT="--topology examples/topologies/nsfnet.json
    --cluster examples/clusters/nsfnet6.json"
D="--demands 3,6,12"
BASE="static,nearest,resource,greedy,zone,cdynp,random"
EV="--seeds 10 --arrivals 20000"
TR=--triples    # set empty for agents without triples

# 1. The baselines, pairs only and with triples.
base() {    # NAME NET LOAD [OPTIONS...]
    n=$1 net=$2 ld=$3
    shift 3
    for t in "" --triples; do
        # shellcheck disable=SC2086
        nice $L sim $net $D $t --policy $BASE --loads "$ld:$ld:1" $EV \
            --seed 2001 "$@" > "$out/base-$n${t:+-triples}.txt"
    done
}
[ "${METRO:-1}" = 1 ] && base metro "$MT" 3.5
[ "${NSFNET:-1}" = 1 ] && base nsfnet6 "$NT" 10
[ "${WORK:-1}" = 1 ] && base metro-work "$MT" 1.5 --holding work

# 2. PPO (with triples unless TR is empty): NAME NET LOAD STEPS SEEDS
#    AGAINST OPTIONS...; each agent is then paired against every
#    baseline of AGAINST (a comma-separated list) on both seed sets.
ppo() {
    n=$1 net=$2 ld=$3 st=${STEPS:-$4} seeds=$5 against=$6
    shift 6
    : > "$out/ppo-$n.txt"
    for s in $seeds; do
        # shellcheck disable=SC2086
        nice $L train $net $D $TR --load "$ld" --lr 3e-4 --quiet \
            --steps "$st" --seed "$s" --out "$out/$n-$s.pol" "$@"
        for b in $(echo "$against" | tr , ' '); do
            for set in 1001 2001; do
                # shellcheck disable=SC2086
                r=$(nice $L sim $net --policy "$b" --paired "$b" \
                        --policy-file "$out/$n-$s.pol" \
                        --loads "$ld:$ld:1" $EV --seed $set 2>&1 \
                    | grep '^ppo .*blocking' | sed 's/^ppo *[0-9.]* //')
                echo "$n seed $s vs $b, $set: $r" >> "$out/ppo-$n.txt"
            done
        done
    done
}
if [ "${METRO:-1}" = 1 ]; then
    ppo m-default "$MT" 3.5 300000 "1 2 3" static --gamma 0.5
    ppo m-p10-g0.5 "$MT" 3.5 1000000 "1 2 3 4 5" static \
        --gamma 0.5 --block-penalty 10
    # The shipped examples/policies/metro-triples.pol is m-p10-g0.9-1.
    ppo m-p10-g0.9 "$MT" 3.5 1000000 "1 2 3 4 5" static,random,greedy \
        --gamma 0.9 --block-penalty 10
    TR=
    ppo m-p10-g0.9-pairs "$MT" 3.5 1000000 "1 2 3" static \
        --gamma 0.9 --block-penalty 10
    TR=--triples
    ppo m-p10-g0.9-3m "$MT" 3.5 3000000 "1 2 3" static \
        --gamma 0.9 --block-penalty 10
    ppo m-p10-g0.99 "$MT" 3.5 1000000 "1 2 3" static \
        --gamma 0.99 --block-penalty 10
    ppo m-p20-g0.9 "$MT" 3.5 1000000 "1 2 3 4 5" static \
        --gamma 0.9 --block-penalty 20
    for g in 0.9 0.95 0.99; do
        ppo m-blocking-g$g "$MT" 3.5 1000000 "1 2 3 4 5" static \
            --gamma $g --reward blocking
    done
    for a in 0.03 0.1; do
        ppo m-static-anchor$a "$MT" 3.5 1000000 "1 2" static \
            --teacher static --anchor $a --critic-warmup 100000 \
            --gamma 0.9 --block-penalty 10
    done
fi
if [ "${NSFNET:-1}" = 1 ]; then
    ppo n-p10-g0.9 "$NT" 10 1000000 "1 2 3" nearest,greedy \
        --gamma 0.9 --block-penalty 10
    ppo n-p10-g0.9-3m "$NT" 10 3000000 "1 2" nearest,greedy \
        --gamma 0.9 --block-penalty 10
    ppo n-p10-g0.99 "$NT" 10 1000000 "1 2" nearest,greedy \
        --gamma 0.99 --block-penalty 10
    ppo n-p30-g0.9 "$NT" 10 1000000 "1 2" nearest,greedy \
        --gamma 0.9 --block-penalty 30
    ppo n-blocking-g0.9 "$NT" 10 1000000 "1 2 3" nearest,greedy \
        --gamma 0.9 --reward blocking
    ppo n-blocking-g0.99 "$NT" 10 1000000 "1 2" nearest,greedy \
        --gamma 0.99 --reward blocking
    # From an imitation of nearest (200,000 decisions), anchored.
    ppo n-imitate-nearest "$NT" 10 0 1 nearest,greedy --teacher nearest \
        --gamma 0.9 --block-penalty 10
    for a in 0.03 0.1 0.3; do
        ppo n-nearest-anchor$a "$NT" 10 1000000 "1 2" nearest,greedy \
            --teacher nearest --anchor $a --critic-warmup 100000 \
            --gamma 0.9 --block-penalty 10
    done
fi
# 3. Blocking weighs more (docs/ppo.md, "Blocking weighs more, with
#    triples alone"): quads.sh's recipe of "Blocking weighs more" (an
#    imitation, anchored PPO with a block penalty of 30, 32 units and
#    two passes) on NSFNET/6 with triples only, from nearest and from
#    resource; TEACHERS picks (default both).
if [ "${HEAVY:-1}" = 1 ]; then
    for t in ${TEACHERS:-nearest resource}; do
        for a in 0.1 0.07; do
            ppo "n-$t-anchor$a-bp30" "$NT" 10 1000000 "1 2" \
                nearest,zone,static,greedy --teacher "$t" --anchor $a \
                --critic-warmup $((${STEPS:-1000000} / 10)) --gamma 0.9 \
                --block-penalty 30 --hidden 32 --epochs 2
        done
    done
fi
if [ "${WORK:-1}" = 1 ]; then
    ppo w-default "$MT" 1.5 1000000 "1 2 3" greedy --holding work \
        --gamma 0.5
    ppo w-p10-g0.9 "$MT" 1.5 1000000 "1 2 3" greedy --holding work \
        --gamma 0.9 --block-penalty 10
fi
echo "demands3.sh: results in $out" >&2
