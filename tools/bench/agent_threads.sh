#!/bin/sh
# The agents' DP threads (lightrail agent --threads): two coordinators
# planning at once against the same three agents, with the agents at
# --threads 1 and --threads 2, against one coordinator alone:
#     tools/bench/agent_threads.sh [RUNS]
# GPT-1.9B over man3's three DCs with DEVICES devices each (default
# 256), one agent per DC on 127.0.0.1 (mutual TLS 1.3).  For each
# setting, RUNS rounds (default 7): the wall time of one `lightrail plan
# --distributed` alone, then of two started together (until both end).
# Prints a Markdown table of medians and the ratio of the pair's time to
# one's: 2 when the agents serve one request at a time, towards 1 when
# two DPs run at once (on a machine with two cores free).  Run from the
# top of a built tree (SRCDIR=... when building elsewhere).
set -eu
RUNS=${1:-7}
DEVICES=${DEVICES:-256}
SRCDIR=${SRCDIR:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
tmp=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
. "$SRCDIR/tools/bench/agent_lib.sh"
bench_certs dc1 dc2 dc3
jq --argjson n "$DEVICES" '."lightrail-compute:compute".dc |=
        map(."device-count" = $n)' \
    "$SRCDIR/examples/clusters/man3.json" > "$tmp/cluster.json"
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
plan() {   # plan OUT: one coordinator's plan over the agents
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
        $TLS --format json > "$1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure THREADS: "one_ms pair_ms T" (medians; T of the last plan)
measure() {
    bench_agents "$tmp/cluster.json" --threads "$1"
    : > "$tmp/one"
    : > "$tmp/pair"
    for i in $(seq 1 "$RUNS"); do
        t0=$(now_ms)
        plan "$tmp/a.out"
        t1=$(now_ms)
        plan "$tmp/b.out" &
        B=$!
        plan "$tmp/c.out"
        wait $B
        t2=$(now_ms)
        echo $((t1 - t0)) >> "$tmp/one"
        echo $((t2 - t1)) >> "$tmp/pair"
        # The same plan each time, alone or two at once.
        [ "$(jq .iteration_time_s "$tmp/a.out")" = "$(jq .iteration_time_s "$tmp/b.out")" ] &&
        [ "$(jq .iteration_time_s "$tmp/a.out")" = "$(jq .iteration_time_s "$tmp/c.out")" ] ||
            { echo "plans differ: $(cat "$tmp/a.out" "$tmp/b.out")" >&2; exit 1; }
    done
    bench_agents_stop
    echo "$(median < "$tmp/one") $(median < "$tmp/pair") $(jq .iteration_time_s "$tmp/a.out")"
}
set -- $(measure 1)
ONE1=$1 PAIR1=$2 T=$3
set -- $(measure 2)
ONE2=$1 PAIR2=$2

echo "| GPT-1.9B, man3 with $DEVICES devices a DC | one coordinator | two at once | ratio |"
echo "|---|---:|---:|---:|"
awk -v a="$ONE1" -v b="$PAIR1" 'BEGIN { printf "| agents at --threads 1 | %d ms | %d ms | %.2f |\n", a, b, b / a }'
awk -v a="$ONE2" -v b="$PAIR2" 'BEGIN { printf "| agents at --threads 2 | %d ms | %d ms | %.2f |\n", a, b, b / a }'
echo
echo "Medians of $RUNS rounds; every plan T = $T s."
