#!/bin/sh
# Distributed CDynP against in-process CDynP: GPT-1.9B on
# examples/clusters/man3.json, the three DCs served by three agents on
# 127.0.0.1 (mutual TLS 1.3) against all three in one process:
#     tools/bench/agent.sh [RUNS]
# Run from the top of a built tree (SRCDIR=... when building elsewhere).
# Prints a Markdown table: the median, min and max over RUNS (default 21)
# of the search time `lightrail plan` reports (for the agents: connect,
# handshakes, HELLO and the whole chain protocol; the TLS contexts are
# made before the clock starts, as a coordinator keeps them), and the
# median wall time of the whole command (process start, YANG context,
# certificate loading included).
set -eu
RUNS=${1:-21}
SRCDIR=${SRCDIR:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
tmp=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

. "$SRCDIR/tools/bench/agent_lib.sh"
bench_certs dc1 dc2 dc3
# man3's inventory, one agent per DC.
CLUSTER=$SRCDIR/examples/clusters/man3.json
bench_agents "$CLUSTER"

# run LABEL ARGS...: RUNS runs; prints "median min max wall_median" (ms)
run() {
    : > "$tmp/search"
    : > "$tmp/wall"
    for i in $(seq 1 "$RUNS"); do
        t0=$(date +%s%N)
        $LIGHTRAIL plan --model gpt-1.9b --format json "$@" > "$tmp/out"
        t1=$(date +%s%N)
        jq .search_time_s "$tmp/out" >> "$tmp/search"
        echo $(( (t1 - t0) / 1000 )) | awk '{ print $1 / 1e6 }' >> "$tmp/wall"
    done
    mid=$(( (RUNS + 1) / 2 ))
    s=$(sort -g "$tmp/search")
    printf '%.2f %.2f %.2f %.2f %s\n' \
        "$(echo "$s" | sed -n "${mid}p" | awk '{print $1 * 1000}')" \
        "$(echo "$s" | head -n 1 | awk '{print $1 * 1000}')" \
        "$(echo "$s" | tail -n 1 | awk '{print $1 * 1000}')" \
        "$(sort -g "$tmp/wall" | sed -n "${mid}p" | awk '{print $1 * 1000}')" \
        "$(jq .iteration_time_s "$tmp/out")"
}
set -- $(run --cluster "$CLUSTER")
LOCAL="$1 $2 $3 $4 $5"
set -- $(run --distributed --cluster "$tmp/remote.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$C/ca.pem")
DIST="$1 $2 $3 $4 $5"

echo "| GPT-1.9B on man3 | median search | min | max | median command | T |"
echo "|---|---:|---:|---:|---:|---:|"
set -- $LOCAL
printf '| in-process CDynP | %s ms | %s ms | %s ms | %s ms | %.4f s |\n' "$1" "$2" "$3" "$4" "$5"
set -- $DIST
printf '| **3 agents on loopback, mutual TLS 1.3** | **%s ms** | %s ms | %s ms | %s ms | %.4f s |\n' "$1" "$2" "$3" "$4" "$5"
echo
echo "$RUNS runs each; goal: distributed planning under 50 ms."
