#!/bin/sh
# Admitted intents per second over HTTPS keep-alive, against a lightraild
# of our own (dummy ROADMs, the metro example) on 127.0.0.1:
#     tools/bench/api.sh [CLIENTS] [SECONDS] [MODEL] [GPUS]
# Run from the top of a built tree; prints a Markdown row (lr-bench-api).
set -eu
CLIENTS=${1:-8} SECONDS_=${2:-10} MODEL=${3:-bert-large} GPUS=${4:-8}
top=$(pwd)
tmp=$(mktemp -d)
. "$top/tools/bench/daemon_lib.sh"
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$tmp"' EXIT
bench_config "$top/examples/topologies/metro.json" \
    "$top/examples/clusters/metro.json"
bench_start
tools/bench/lr-bench-api --server "$URL" --token "$TOKEN" \
    --cacert "$tmp/cert.pem" --clients "$CLIENTS" --seconds "$SECONDS_" \
    --model "$MODEL" --gpus "$GPUS"
