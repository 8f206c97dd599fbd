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
. "$top/tools/bench/daemon_lib.sh"
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$tmp"' EXIT
jq --argjson n "$GPUS" \
    '.["lightrail-compute:compute"].dc |= map(.["device-count"] = $n)' \
    "$top/examples/clusters/metro.json" > "$tmp/cluster.json"
bench_config "$top/examples/topologies/metro.json" "$tmp/cluster.json"
bench_start "$LIGHTRAILD"
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
