#!/bin/sh
# How long lightraild's loop is held by a plan: GET /metrics, one after
# another, while a POST is planned by CDynP over the metro's three DCs
# with GPUS GPUs each (dummy ROADMs, 127.0.0.1).  Prints the POST's time
# and the GETs' median and longest time, as a Markdown row:
#     tools/bench/plan_loop.sh [LIGHTRAILD] [GPUS]
# Run from the top of a built tree (LIGHTRAILD: ./lightraild).  Before
# 2026-12-04 the plan ran on the loop: a GET waited for it.  GPUS was
# 256 until 2026-12-05, when that plan went from 3 s to 0.5 s.
set -eu
LIGHTRAILD=${1:-./lightraild} GPUS=${2:-1024}
top=$(pwd)
tmp=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$tmp"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 2>/dev/null
TOKEN=bench-token-0123456789abcdef
jq --argjson n "$GPUS" \
    '.["lightrail-compute:compute"].dc |= map(.["device-count"] = $n)' \
    "$top/examples/clusters/metro.json" > "$tmp/cluster.json"
cat > "$tmp/lightraild.json" <<CFG
{"lightrail-config:lightraild": {
  "listen": {"address": "127.0.0.1", "port": 0, "tls": true,
             "certificate": "cert.pem", "key": "key.pem"},
  "token": [{"name": "bench", "secret": "$TOKEN"}],
  "state-dir": "state",
  "topology-file": "$top/examples/topologies/metro.json",
  "cluster-file": "$tmp/cluster.json"}}
CFG
"$LIGHTRAILD" --config "$tmp/lightraild.json" --foreground 2> "$tmp/log" &
PID=$!
for i in $(seq 1 200); do [ -s "$tmp/state/lightraild.port" ] && break; sleep 0.05; done
URL=https://127.0.0.1:$(cat "$tmp/state/lightraild.port")
printf '{"lightrail-job:job":[{"name":"big","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":%d}}]}\n' \
    $((3 * GPUS)) > "$tmp/intent.json"
curl -s -o /dev/null -w '%{time_total}\n' --cacert "$tmp/cert.pem" \
    -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/yang-data+json' \
    --data-binary @"$tmp/intent.json" \
    "$URL/restconf/data/lightrail-job:jobs" > "$tmp/post" &
CURL=$!
sleep 0.2
: > "$tmp/gets"
while kill -0 $CURL 2>/dev/null; do
    curl -s -o /dev/null -w '%{time_total}\n' --cacert "$tmp/cert.pem" \
        -H "Authorization: Bearer $TOKEN" "$URL/metrics" >> "$tmp/gets"
done
wait $CURL
sort -n "$tmp/gets" | awk -v post="$(cat "$tmp/post")" -v g="$GPUS" '
    { t[NR] = $1 }
    END { printf "| %d GPUs x 3 DCs | %.2f s | %d | %.1f ms | %.1f ms |\n",
          g, post, NR, 1000 * t[int((NR + 1) / 2)], 1000 * t[NR] }'
