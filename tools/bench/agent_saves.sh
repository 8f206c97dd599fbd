#!/bin/sh
# An agent's saves of its reservations and the connections it serves
# meanwhile (docs/agent-protocol.md, COMMIT): one agent (man3's dc2),
# connection A committing and releasing ROUNDS tags, connection B
# sending HELLO all the while (tools/bench/agent_saves.py), with the
# agent's --state-dir on this disk ($TMPDIR or /tmp) and on /dev/shm
# (tmpfs: a sync costs nothing), REPEAT runs each:
#     tools/bench/agent_saves.sh [ROUNDS [REPEAT]]
#     OLD=/path/to/old/lightrail tools/bench/agent_saves.sh ...
# With OLD, the same runs with that build of the agent too, interleaved
# (an agent from before 2026-12-05 10:00 saves on its event loop).
# Run from the top of a built tree (SRCDIR=... when building elsewhere).
# Prints a Markdown table, a row per agent and directory: medians over
# the runs of A's COMMIT and RELEASE latencies (each run's median) and
# pairs per second, alone; then beside B: B's HELLOs answered while A
# ran, their round trips (each run's median, 99th percentile and max)
# and A's pairs per second.
set -eu
ROUNDS=${1:-200}
REPEAT=${2:-5}
SRCDIR=${SRCDIR:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
OLD=${OLD:-}
tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/lr-bench.XXXXXX)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$tmp" "$shm"' EXIT

. "$SRCDIR/tools/bench/agent_lib.sh"
bench_certs dc2
jq --arg c "$C" '{"lightrail-agent:agent": {dc: "dc2",
    "device-type": {"peak-tflops": "125", efficiency: "0.4",
                    "memory-gb": "32"},
    "device-count": 4, "intra-dc-bandwidth-gbytes-per-s": "300",
    "intra-dc-latency-us": "5",
    tls: {certificate: "\($c)/dc2.pem", key: "\($c)/dc2.key",
          ca: "\($c)/ca.pem", "peer-name": ["coordinator"]}}}' -n \
    > "$tmp/dc2.json"

# one BIN DIR: one run of the driver against BIN's agent on DIR; its
# JSON line appended to $tmp/BIN-LABEL.
one() {
    rm -rf "$2/state"
    mkdir -p "$2/state"
    "$1" agent --config "$tmp/dc2.json" --listen 127.0.0.1:0 \
        --state-dir "$2/state" 2> "$tmp/agent.log" &
    pid=$!
    PIDS="$PIDS $pid"
    for i in $(seq 1 200); do
        [ -s "$2/state/agent.port" ] && break
        sleep 0.05
    done
    python3 "$SRCDIR/tools/bench/agent_saves.py" "$C" \
        "$(cat "$2/state/agent.port")" dc2 "$ROUNDS"
    kill "$pid"
    wait "$pid" || true
}

# median FILE KEY: the median over FILE's JSON lines of KEY.
median() {
    jq -s --arg k "$2" 'map(.[$k]) | sort | .[(length - 1) / 2 | floor]' "$1"
}

for r in $(seq 1 "$REPEAT"); do
    for dir in disk shm; do
        d=$tmp
        [ $dir = shm ] && d=$shm
        one "$LIGHTRAIL" "$d" >> "$tmp/new-$dir"
        [ -z "$OLD" ] || one "$OLD" "$d" >> "$tmp/old-$dir"
    done
done

echo "| agent | state dir | A alone: COMMIT | RELEASE | pairs/s | beside B: HELLOs | median | p99 | max | A's pairs/s |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for who in old new; do
    for dir in disk shm; do
        f=$tmp/$who-$dir
        [ -s "$f" ] || continue
        label="saves on a thread (this build)"
        [ $who = old ] && label="saves on the loop (OLD)"
        printf '| %s | %s | %.3f ms | %.3f ms | %.0f | %d | %.3f ms | %.3f ms | %.2f ms | %.0f |\n' \
            "$label" "$dir" "$(median "$f" commit_alone_p50_ms)" \
            "$(median "$f" release_alone_p50_ms)" \
            "$(median "$f" pairs_alone_per_s)" "$(median "$f" hellos)" \
            "$(median "$f" hello_p50_ms)" \
            "$(median "$f" hello_p99_ms)" "$(median "$f" hello_max_ms)" \
            "$(median "$f" pairs_per_s)"
    done
done
echo
echo "$ROUNDS COMMIT/RELEASE pairs a run, $REPEAT runs each, $(date -u '+%Y-%m-%d %H:%M UTC')."
