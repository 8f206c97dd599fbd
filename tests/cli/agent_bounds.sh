#!/bin/sh
# The agent's resource bounds (docs/agent-protocol.md, "Bounds"), each
# with an agent of its own on 127.0.0.1, stopped by its PID:
#   1. the DP caches of all its connections together are bounded
#      (--max-total-cache-bytes), and what is counted is the memory
#      reserved, not only the rows computed;
#   2. a coordinator at its 16 connections, all silent, is served on a
#      17th: its oldest idle one holding no job makes room, else its
#      oldest idle one;
#   3. a 'sent' line of the log is bounded: a long answer is logged as a
#      head line (type, length, SHA-256) and numbered parts that join
#      back into the message.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator &&
  mk_cert ca coord2 coord2; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
agent_file dc2 4 311.111 0.45 80 45.678
jq '.["lightrail-agent:agent"].tls["peer-name"] += ["coord2"]' \
    "$A/dc2.json" > "$A/dc2-two.json"
WIRE="PYTHONPATH=$srcdir/tests/cli"

# ---- 1. the DP caches of all connections together ----
start_agent total "$A/dc2.json" --max-total-cache-bytes 2e5 && TOTPID=$APID
if python3 "$srcdir/tests/cli/agent_total.py" "$C" "$APORT" dc2 \
       coordinator > "$tmp/total.out" 2>&1 &&
   grep -q "step refused: the DP caches of all [0-9]* connections hold [0-9.e+]* bytes (this one [0-9.e+]*), at --max-total-cache-bytes 2e+05" "$A/total.log"; then
    ok "the DP caches of all connections are bounded together ($(grep -c '^ok: ' "$tmp/total.out") steps)"
else
    notok "--max-total-cache-bytes: $(grep -v '^ok: ' "$tmp/total.out" | head -5; grep refused "$A/total.log" | tail -2)"
fi
stop_agent $TOTPID
expect_bad "--max-total-cache-bytes wants a number of bytes" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --max-total-cache-bytes x

# ---- 2. a coordinator at its connection limit ----
start_agent evict "$A/dc2.json" --idle-timeout 60 && EVPID=$APID
if python3 "$srcdir/tests/cli/agent_evict.py" "$C" "$APORT" dc2 \
       coordinator > "$tmp/evict.out" 2>&1 &&
   grep -q "closed: no whole frame for [0-9]* s, it makes room for" "$A/evict.log"; then
    ok "16 silent connections of a coordinator: a 17th is served in the place of the longest silent, one without a job first ($(grep -c '^ok: ' "$tmp/evict.out") steps)"
else
    notok "a 17th connection: $(grep -v '^ok: ' "$tmp/evict.out" | head -5; grep -i "room\|refused" "$A/evict.log" | tail -2)"
fi
stop_agent $EVPID

# ---- 3. the log's lines are bounded ----
# A STEP over layers 0..799 of an 800-layer job: its STEP_OK carries 800
# entries, about 55 KB as JSON, over journald's 48 KiB line.  (Before,
# it was one line of that length.)
start_agent log "$A/dc2.json" && LOGPID=$APID
if PYTHONPATH="$srcdir/tests/cli" python3 - "$C" "$APORT" > "$tmp/log.out" 2>&1 <<'PY'
import struct
import sys
from agentwire import JOB, OK, STEP_OK, Checks, ask, connect, step_head
certs, port = sys.argv[1:3]
checks = Checks()
a = connect(certs, port, "dc2", "coordinator")
# Layers small enough that all 800 fit on one stage: every layer of the
# window is an entry.
layers = b"".join(struct.pack(">ddd", 1e12, 1e6, 1e4) for _ in range(800))
checks.expect("JOB of 800 layers",
              ask(a, JOB, struct.pack(">IdddI", 1, 32.0, 1.0, 2.0, 800)
                  + layers), OK)
checks.expect("STEP over layers 0..799", step_head(a, 0, 799), STEP_OK)
sys.exit(1 if checks.failed else 0)
PY
then
    ok "a STEP with an answer of 800 entries"
else
    notok "the long answer: $(cat "$tmp/log.out")"
fi
stop_agent $LOGPID
longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$A/log.log")
if [ "$longest" -le 17000 ]; then
    ok "the log's longest line is $longest bytes"
else
    notok "a log line of $longest bytes (journald splits lines past 48 KiB)"
fi
# The head names the type and gives length and digest; the parts,
# joined, are the message: that length, that digest, 800 entries.
head=$(grep ': sent step-ok [0-9]* in [0-9]* parts: ' "$A/log.log")
n=$(echo "$head" | sed -n 's/.* in \([0-9]*\) parts: .*/\1/p')
len=$(echo "$head" | sed -n 's/.* parts: \([0-9]*\) bytes, .*/\1/p')
sum=$(echo "$head" | sed -n 's/.* sha256 \([0-9a-f]*\)$/\1/p')
sed -n 's/^[^ ]* lightrail agent dc2: [^ ]* ([^)]*): sent part [0-9]*\/[0-9]* //p' \
    "$A/log.log" | tr -d '\n' > "$tmp/joined.json"
if [ -n "$n" ] && [ "$n" -ge 4 ] &&
   [ "$(grep -c ": sent part [0-9]*/$n " "$A/log.log")" -eq "$n" ] &&
   [ "$(wc -c < "$tmp/joined.json")" -eq "$len" ] &&
   [ "$(sha256sum < "$tmp/joined.json" | cut -d' ' -f1)" = "$sum" ] &&
   [ "$(jq '.summary.entries | length' "$tmp/joined.json")" = 800 ]; then
    ok "the long answer logged in $n parts that join back into it ($len bytes, its SHA-256)"
else
    notok "the long answer's parts: head '$head', joined $(wc -c < "$tmp/joined.json") bytes"
fi

lr_summary
