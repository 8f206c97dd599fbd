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

C=$tmp/certs
mkdir -p "$C"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$C/ca.key" -out "$C/ca.pem" -days 1 -subj /CN=bench-ca \
    -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign 2>/dev/null
for n in dc1 dc2 dc3 coordinator; do
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$C/$n.key" -out "$C/$n.csr" -subj "/CN=$n" 2>/dev/null
    printf 'subjectAltName=DNS:%s\n' "$n" > "$C/$n.ext"
    openssl x509 -req -in "$C/$n.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" \
        -CAcreateserial -out "$C/$n.pem" -days 1 -extfile "$C/$n.ext" \
        2>/dev/null
done

# man3's inventory, one agent file per DC.
CLUSTER=$SRCDIR/examples/clusters/man3.json
for n in dc1 dc2 dc3; do
    jq --arg n "$n" --arg c "$C" '."lightrail-compute:compute" as $x
        | ($x.dc[] | select(.name == $n)) as $d
        | ($x."device-type"[] | select(.name == $d."device-type")) as $t
        | {"lightrail-agent:agent": {dc: $n,
            "device-type": {"peak-tflops": $t."peak-tflops",
                            efficiency: $t.efficiency,
                            "memory-gb": $t."memory-gb"},
            "device-count": $d."device-count",
            "intra-dc-bandwidth-gbytes-per-s":
                $d."intra-dc-bandwidth-gbytes-per-s",
            "intra-dc-latency-us": $d."intra-dc-latency-us",
            tls: {certificate: "\($c)/\($n).pem", key: "\($c)/\($n).key",
                  ca: "\($c)/ca.pem", "peer-name": ["coordinator"]}}}' \
        "$CLUSTER" > "$tmp/$n.json"
    mkdir -p "$tmp/$n"
    $LIGHTRAIL agent --config "$tmp/$n.json" --listen 127.0.0.1:0 \
        --state-dir "$tmp/$n" 2> "$tmp/$n.log" &
    PIDS="$PIDS $!"
done
for n in dc1 dc2 dc3; do
    for i in $(seq 1 200); do [ -s "$tmp/$n/agent.port" ] && break; sleep 0.05; done
done
jq --argjson p1 "$(cat "$tmp/dc1/agent.port")" \
   --argjson p2 "$(cat "$tmp/dc2/agent.port")" \
   --argjson p3 "$(cat "$tmp/dc3/agent.port")" \
   '."lightrail-compute:compute".dc |= map(. + {remote: {address: "127.0.0.1",
        port: (if .name == "dc1" then $p1 elif .name == "dc2" then $p2
               else $p3 end)}})' "$CLUSTER" > "$tmp/remote.json"

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
