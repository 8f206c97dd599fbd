#!/bin/sh
# The data-center operator sees in the agent's log exactly what it sent
# (docs/agent-protocol.md, "The agent's log"): one 'sent' line per answer,
# the message as the coordinator decoded it.  One agent (dc2) with two
# DCs planned in the coordinator's process; the coordinator records every
# answer it received (--record), and the agent's 'sent' lines must be
# those, in order, and nothing else; an ERROR sent to a malformed frame
# is logged too.  The agent is stopped by its PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

agent_file dc2 4 311.111 0.45 80 45.678
start_agent dc2 "$A/dc2.json" || { notok "agent dc2 did not start"; lr_summary; exit; }
P2=$APORT PID2=$APID

cat > "$tmp/cluster.json" <<EOF
{"lightrail-compute:compute": {
  "device-type": [
    {"name": "t1", "peak-tflops": "123.457", "efficiency": "0.4", "memory-gb": "32"},
    {"name": "t3", "peak-tflops": "987.654", "efficiency": "0.4", "memory-gb": "80"},
    {"name": "unknown", "peak-tflops": "1", "efficiency": "1", "memory-gb": "1"}],
  "dc": [
    {"name": "dc1", "device-type": "t1", "device-count": 8,
     "intra-dc-bandwidth-gbytes-per-s": "23.456", "intra-dc-latency-us": "5"},
    {"name": "dc2", "device-type": "unknown", "device-count": 1,
     "intra-dc-bandwidth-gbytes-per-s": "1", "intra-dc-latency-us": "0",
     "remote": {"address": "127.0.0.1", "port": $P2}},
    {"name": "dc3", "device-type": "t3", "device-count": 4,
     "intra-dc-bandwidth-gbytes-per-s": "67.891", "intra-dc-latency-us": "5"}],
  "inter-dc-link": [
    {"from": "dc1", "to": "dc2", "bandwidth-gbps": "10", "latency-ms": "1"},
    {"from": "dc2", "to": "dc3", "bandwidth-gbps": "5", "latency-ms": "2"},
    {"from": "dc1", "to": "dc3", "bandwidth-gbps": "1", "latency-ms": "3"}]}}
EOF
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"

# sent_lines LOG: the messages of the log's 'sent' lines, one a line: a
# message logged in parts (past 16 KiB) is its parts joined, its head
# line (type, length, digest) left out.
sent_lines() {
    sed -n 's/^[^ ]* lightrail agent dc2: [^ ]* ([^)]*): sent //p' "$1" |
    awk '/^[a-z-]+ [0-9]+ in [0-9]+ parts: / { next }
         /^part [0-9]+\/[0-9]+ / {
             split($2, k, "/"); sub(/^part [0-9]+\/[0-9]+ /, "")
             acc = acc $0; if (k[1] == k[2]) { print acc; acc = "" }
             next }
         { print }'
}

if $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
       $TLS --record "$tmp/coordinator.jsonl" --format json \
       > "$tmp/plan.out" 2> "$tmp/err"; then
    ok "plan --distributed with agent dc2"
else
    notok "plan --distributed: $(cat "$tmp/err")"
fi
sent_lines "$A/dc2.log" > "$tmp/sent.jsonl"
if [ -s "$tmp/coordinator.jsonl" ] && cmp -s "$tmp/sent.jsonl" "$tmp/coordinator.jsonl"; then
    ok "the agent's log says what it sent: $(wc -l < "$tmp/sent.jsonl") answers, each as the coordinator received it"
else
    notok "the log's sent lines ($(wc -l < "$tmp/sent.jsonl")) differ from what the coordinator received ($(wc -l < "$tmp/coordinator.jsonl")): $(diff "$tmp/sent.jsonl" "$tmp/coordinator.jsonl" | head -5)"
fi
# Every kind of answer of a plan is there, each line one message; no
# backtrack-ok since protocol revision 2 (2026-12-07): each STEP_OK
# carries its entries' predecessors, one per entry, and the coordinator
# reads the backtracking off them.
types=$(jq -r .type "$tmp/sent.jsonl" 2>/dev/null | sort -u | tr '\n' ' ')
if [ "$types" = "finish-ok hello-ok ok step-ok " ] \
   && jq -e -s 'map(select(.type == "step-ok")) | length > 0 and all(.[];
          (.summary.prev | length) == (.summary.entries | length))' \
          "$tmp/sent.jsonl" > /dev/null \
   && jq -e -s 'map(select(.type == "hello-ok")) | all(.[]; .revision == 2)' \
          "$tmp/sent.jsonl" > /dev/null; then
    ok "sent lines: $types(revision 2, a predecessor per entry)"
else
    notok "sent lines' types: '$types'"
fi

# A malformed frame: the ERROR the agent closes with is logged as sent.
printf 'garbage, not a frame' | timeout 10 openssl s_client -connect 127.0.0.1:$P2 \
    -cert "$C/coordinator.pem" -key "$C/coordinator.key" -CAfile "$C/ca.pem" \
    -tls1_3 -quiet > /dev/null 2>&1
for i in $(seq 100); do
    grep -q '"type":"error"' "$A/dc2.log" && break
    sleep 0.05
done
if sent_lines "$A/dc2.log" | grep -q '^{"type":"error","id":0,"code":[0-9]*,"text":"frame length out of bounds: closing"}$'; then
    ok "the ERROR sent to a malformed frame is logged"
else
    notok "no sent ERROR in the log: $(tail -3 "$A/dc2.log")"
fi

stop_agent $PID2 || notok "agent dc2 did not stop cleanly"
lr_summary
