#!/bin/sh
# Reproduces the measurements of docs/ppo.md, "Uneven GPU splits (work
# mode)": every baseline on the metro with the GPU shares {1/2} (as
# before) and {1/4,1/2}, PPO agents trained with {1/4,1/2}, their
# evaluation against the baselines, and the paired per-seed comparison
# of PPO against the best baseline.  Run from the top of a built tree:
#     tools/experiments/splits.sh OUTDIR     (about 5 minutes of one core)
# Writes OUTDIR/*.pol, one JSON line per (policy, load) in OUTDIR/*.json
# and the paired differences in OUTDIR/paired.txt.  Seeds: training 1,
# evaluation 2001-2010 (never used by training).  One job at a time: the
# machine it was written on has two cores shared with others.
set -eu
L=${LIGHTRAIL:-./lightrail}
out=${1:?usage: tools/experiments/splits.sh OUTDIR}
mkdir -p "$out"
MT="--topology examples/topologies/metro.json --cluster examples/clusters/metro.json"
SPLITS=1/4,1/2
EVAL="--holding work --seeds 10 --seed 2001 --quiet --format json"

# METRO=0 or NSFNET=0 skip a network.
if [ "${METRO:-1}" = 1 ]; then
# 1. The baselines, shares off (1/2) and on.
nice $L sim $MT --policy all $EVAL --loads 0.5:1.5:0.25 > "$out/base-off.json"
nice $L sim $MT --policy all $EVAL --loads 0.5:1.5:0.25 --splits $SPLITS \
    > "$out/base-on.json"
# Where the best baseline blocks about 5% with the shares on.
nice $L sim $MT --policy greedy,cdynp $EVAL --loads 1.0:1.2:0.05 \
    --splits $SPLITS > "$out/base-on-fine.json"

# 2. PPO with the shares: the shipped metro-work command (gamma 0.5,
#    300,000 decisions at 1.0 E) and two variants.
train() {   # NAME GAMMA STEPS LOAD [MORE OPTIONS...]
    n=$1 g=$2 st=$3 ld=$4
    shift 4
    nice $L train $MT --steps "$st" --seed 1 --load "$ld" --lr 3e-4 \
        --holding work --gamma "$g" --splits $SPLITS --out "$out/$n.pol" \
        --quiet "$@"
}
PPOS="ppo-g0.5 ppo-g0.9 ppo-g0.5-1m ppo-g0.5-l1.1 ppo-g0.7 ppo-g0.5-p4
      ppo-g0.5-h128-1m"
train ppo-g0.5 0.5 300000 1.0
train ppo-g0.9 0.9 300000 1.0
train ppo-g0.5-1m 0.5 1000000 1.0
train ppo-g0.5-l1.1 0.5 300000 1.1
train ppo-g0.7 0.7 300000 1.0
train ppo-g0.5-p4 0.5 300000 1.0 --block-penalty 4
train ppo-g0.5-h128-1m 0.5 1000000 1.0 --hidden 128
for p in $PPOS; do
    nice $L sim $MT --policy-file "$out/$p.pol" $EVAL --loads 0.5:1.5:0.25 \
        > "$out/$p.json"
done

# 3. Paired per seed at LOADS (the same arrivals for every policy):
#    blocking of PPO minus the best baseline's, mean and 95% CI (Student
#    t, 9 degrees of freedom: 2.262).
LOADS=${LOADS:-"1.0 1.1"}
for load in $LOADS; do
    for s in 2001 2002 2003 2004 2005 2006 2007 2008 2009 2010; do
        for p in $PPOS; do
            nice $L sim $MT --holding work --seeds 1 --seed $s --quiet \
                --format json --loads $load:$load:1 --policy-file "$out/$p.pol" \
                | sed "s/\"policy\":\"ppo\"/\"policy\":\"$p\"/"
        done
        nice $L sim $MT --holding work --seeds 1 --seed $s --quiet \
            --format json --loads $load:$load:1 --policy greedy,cdynp \
            --splits $SPLITS
        nice $L sim $MT --holding work --seeds 1 --seed $s --quiet \
            --format json --loads $load:$load:1 --policy greedy \
            | sed 's/"policy":"greedy"/"policy":"greedy-even"/'
    done
done > "$out/per-seed.json"
{
    for load in $LOADS; do
        for p in $PPOS cdynp greedy-even; do
            for ref in greedy; do
                jq -r --arg p "$p" --arg r "$ref" --argjson l "$load" \
                    'select(.load == $l and (.policy == $p or .policy == $r))
                     | "\(.first_seed) \(.policy) \(.blocking) \(.mean_iteration_s)"' \
                    "$out/per-seed.json" \
                | awk -v p="$p" -v r="$ref" -v l="$load" '
                    $2 == p { b[$1] = $3; t[$1] = $4 }
                    $2 == r { rb[$1] = $3; rt[$1] = $4 }
                    END {
                        n = 0; s = 0; ss = 0; rs = 0; ts = 0; tss = 0
                        for (k in b) { d = b[k] - rb[k]; n++; s += d; ss += d * d; rs += rb[k]
                                       e = t[k] / rt[k] - 1; ts += e; tss += e * e }
                        m = s / n; sd = sqrt((ss - n * m * m) / (n - 1))
                        tm = ts / n; tsd = sqrt((tss - n * tm * tm) / (n - 1))
                        printf "%s E  %-12s - %s: blocking %+.3f +- %.3f points (%+.1f%% +- %.1f%% of %s %.3f%%); iteration time %+.2f%% +- %.2f%%  (n=%d)\n",
                            l, p, r, 100 * m, 100 * 2.262 * sd / sqrt(n),
                            100 * m / (rs / n), 100 * 2.262 * sd / sqrt(n) / (rs / n),
                            r, 100 * rs / n, 100 * tm, 100 * 2.262 * tsd / sqrt(n), n }'
            done
        done
    done
} > "$out/paired.txt"
cat "$out/paired.txt"
fi

# 4. NSFNET/6 DCs at 2.5-3 E (greedy blocks about 5% near 2.75 E in the
#    work mode), seeds 1001-1010: baselines with shares off and on, PPO
#    trained with the shares at 2.75 E (gamma 0.5 and 0.9, 300,000).
if [ "${NSFNET:-1}" = 1 ]; then
NT="--topology examples/topologies/nsfnet.json --cluster examples/clusters/nsfnet6.json"
NEVAL="--holding work --seeds 10 --seed 1001 --quiet --format json --loads 2.5:3:0.25"
nice $L sim $NT --policy greedy,cdynp,static,random $NEVAL > "$out/nsf-base-off.json"
nice $L sim $NT --policy greedy,cdynp,static,random $NEVAL --splits $SPLITS \
    > "$out/nsf-base-on.json"
for g in 0.5 0.9; do
    nice $L train $NT --steps 300000 --seed 1 --load 2.75 --lr 3e-4 \
        --holding work --gamma $g --splits $SPLITS --out "$out/nsf-g$g.pol" \
        --quiet
    nice $L sim $NT --policy-file "$out/nsf-g$g.pol" $NEVAL > "$out/nsf-g$g.json"
done
fi
echo "wrote $out" >&2
