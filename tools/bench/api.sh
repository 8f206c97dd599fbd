#!/bin/sh
# Admitted intents per second over HTTPS keep-alive, against a lightraild
# of our own (dummy ROADMs, the metro example) on 127.0.0.1:
#     tools/bench/api.sh [CLIENTS] [SECONDS] [MODEL] [GPUS]
# Run from the top of a built tree; prints a Markdown row (lr-bench-api).
set -eu
CLIENTS=${1:-8} SECONDS_=${2:-10} MODEL=${3:-bert-large} GPUS=${4:-8}
top=$(pwd)
tmp=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$tmp"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 2>/dev/null
TOKEN=bench-token-0123456789abcdef
cat > "$tmp/lightraild.json" <<CFG
{"lightrail-config:lightraild": {
  "listen": {"address": "127.0.0.1", "port": 0, "tls": true,
             "certificate": "cert.pem", "key": "key.pem"},
  "token": [{"name": "bench", "secret": "$TOKEN"}],
  "state-dir": "state",
  "topology-file": "$top/examples/topologies/metro.json",
  "cluster-file": "$top/examples/clusters/metro.json"}}
CFG
./lightraild --config "$tmp/lightraild.json" --foreground 2> "$tmp/log" &
PID=$!
for i in $(seq 1 100); do [ -s "$tmp/state/lightraild.port" ] && break; sleep 0.05; done
PORT=$(cat "$tmp/state/lightraild.port")
tools/bench/lr-bench-api --server "https://127.0.0.1:$PORT" --token "$TOKEN" \
    --cacert "$tmp/cert.pem" --clients "$CLIENTS" --seconds "$SECONDS_" \
    --model "$MODEL" --gpus "$GPUS"
