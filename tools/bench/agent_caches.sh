#!/bin/sh
# What a plan's DP caches hold in each agent, to size lightrail agent's
# --max-cache-bytes and --max-total-cache-bytes by
# (docs/agent-protocol.md, "Bounded memory per connection"):
#     tools/bench/agent_caches.sh MODEL N1 N2 N3 [AGENT-ARGS...]
# Run from the top of a built tree (SRCDIR=... when building elsewhere).
# Three agents on 127.0.0.1 with tests/cli/agent.sh's device types and
# links, N1, N2 and N3 devices, started with AGENT-ARGS (the figures of
# 2026-12-06 were taken before --max-step-cells existed: give
# --max-step-cells 0 for a large model), one `lightrail plan
# --distributed --model MODEL` at the default window, then the agents
# stopped by PID; prints the plan's exit status and wall time and each
# agent's "job 1: ended, its DP caches held X bytes" (the count is
# lr_cdynp_local_party_bytes(): what the caches reserve).
set -u
[ $# -ge 4 ] || { echo "usage: $0 MODEL N1 N2 N3 [AGENT-ARGS...]" >&2; exit 2; }
MODEL=$1 N1=$2 N2=$3 N3=$4
shift 4
SRCDIR=${SRCDIR:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
tmp=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

. "$SRCDIR/tools/bench/agent_lib.sh"
bench_certs dc1 dc2 dc3
cat > "$tmp/cluster.json" <<EOJ
{"lightrail-compute:compute": {
  "device-type": [
    {"name": "t1", "peak-tflops": "123.457", "efficiency": "0.4", "memory-gb": "32"},
    {"name": "t2", "peak-tflops": "311.111", "efficiency": "0.45", "memory-gb": "80"},
    {"name": "t3", "peak-tflops": "987.654", "efficiency": "0.4", "memory-gb": "80"}],
  "dc": [
    {"name": "dc1", "device-type": "t1", "device-count": $N1,
     "intra-dc-bandwidth-gbytes-per-s": "23.456", "intra-dc-latency-us": "5"},
    {"name": "dc2", "device-type": "t2", "device-count": $N2,
     "intra-dc-bandwidth-gbytes-per-s": "45.678", "intra-dc-latency-us": "5"},
    {"name": "dc3", "device-type": "t3", "device-count": $N3,
     "intra-dc-bandwidth-gbytes-per-s": "67.891", "intra-dc-latency-us": "5"}],
  "inter-dc-link": [
    {"from": "dc1", "to": "dc2", "bandwidth-gbps": "10", "latency-ms": "1"},
    {"from": "dc2", "to": "dc3", "bandwidth-gbps": "5", "latency-ms": "2"},
    {"from": "dc1", "to": "dc3", "bandwidth-gbps": "1", "latency-ms": "3"}]}}
EOJ
bench_agents "$tmp/cluster.json" "$@"
t0=$(date +%s)
$LIGHTRAIL plan --distributed --model "$MODEL" --cluster "$tmp/remote.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$C/ca.pem" \
    --timeout 600 > "$tmp/plan.out" 2> "$tmp/plan.err"
rc=$?
echo "$MODEL on $N1/$N2/$N3 devices: plan exit $rc in $(( $(date +%s) - t0 )) s"
[ $rc -eq 0 ] || head -c 400 "$tmp/plan.err"
# The line is logged as each job ends: when the agent stops.
bench_agents_stop
for n in dc1 dc2 dc3; do
    echo "$n: $(grep -o 'job [0-9]*: ended, its DP caches held .*' "$tmp/$n.log")"
done
