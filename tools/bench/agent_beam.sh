#!/bin/sh
# What CDynP's beam (lightrail plan --beam; docs/cdynp.md, "Which
# chains") costs over agents: every chain it runs is more requests to
# the agents of its DCs, and a DC met at more positions fills more of
# its DP caches.  Widths 0 (the greedy chain's prefixes alone) and 8
# (the default) side by side:
#     tools/bench/agent_beam.sh [RUNS]
# Run from the top of a built tree (SRCDIR=... when building elsewhere).
# Cases beyond 6 DCs, each DC served by its own `lightrail agent` on
# 127.0.0.1 (mutual TLS 1.3, tools/bench/agent_lib.sh), stopped by PID:
# tests/data/wide-7 (7 DCs) and wide-13 (8 DCs) with their own models
# (seeds 7 and 13 of lr_instance_random_dcs(), at their microbatches 1
# and 2), and the same two inventories under LLaMA-2 7B (microbatch 1)
# and GPT-1.9B (microbatch 8), where the width changes the plan too.
# For each case and width, RUNS runs (default 5) of one `lightrail plan
# --distributed --beam B`; prints a Markdown row: T, the requests each
# agent answered in a run (each is one round trip: the HELLO, the JOB,
# and a STEP, BACKTRACK and FINISH for every chain through it; read
# from the agents' logs, which log every answer), least-most over the
# agents and their sum, the bytes each agent's DP caches held when the
# run ended (the agent logs it, to 3 digits), most and sum, and the
# median wall time of the command and of the search it reports.  The
# counts are the same every run (the search is deterministic); the
# script says so if not.  Each plan is checked against in-process
# CDynP's at the same width (lightrail plan --beam B): the same chain,
# layer ranges and stage counts per DC, and T within 1e-12 relative
# (the coordinator's T is the tail's sum of terms, in-process T the
# time model's evaluation of the same plan); a row that differs is
# flagged in the T column and the script exits 1.
set -eu
RUNS=${1:-5}
SRCDIR=${SRCDIR:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
tmp=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null || :; done; rm -rf "$tmp"' EXIT
. "$SRCDIR/tools/bench/agent_lib.sh"
bench_certs dc1 dc2 dc3 dc4 dc5 dc6 dc7 dc8
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"
DATA=$SRCDIR/tests/data

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
FAILED=0

# same_plan LOCAL DIST: whether the in-process plan LOCAL (lightrail
# plan --format json) and the distributed one DIST lay out the same
# chain: per DC in chain order its layers and stage count, and T.
same_plan() {
    jq -n --slurpfile a "$1" --slurpfile b "$2" '
        ([$a[0].stages[] | {dc, first_layer, last_layer}]
         | reduce .[] as $s ([];
             if length > 0 and .[-1].dc == $s.dc
             then .[-1].last_layer = $s.last_layer | .[-1].stages += 1
             else . + [$s + {stages: 1}] end)) as $here
        | ([$b[0].dcs[] | {dc, first_layer, last_layer, stages}]) as $there
        | $here == $there
          and (($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
               <= 1e-12 * $a[0].iteration_time_s)' | grep -qx true
}

# answers DC FROM: the answers agent DC logged after line FROM of its
# log (a long one is logged in parts: its first line counts).
answers() {
    tail -n +"$(( $2 + 1 ))" "$tmp/$1.log" \
        | grep -c -e ': sent {' -e ': sent [a-z-]* [0-9]* in [0-9]* parts' || :
}

# held DC FROM: the bytes DC's caches held at the end of the job it
# logged after line FROM, waiting up to 10 s for that line (logged as
# the coordinator's connection closes); 0 for a DC the coordinator
# gave no job (its connection closed without one).
held() {
    for i in $(seq 1 200); do
        tail -n +"$(( $2 + 1 ))" "$tmp/$1.log" > "$tmp/since"
        v=$(sed -n 's/.*ended, its DP caches held \([0-9.e+-]*\) bytes.*/\1/p' \
            "$tmp/since")
        [ -n "$v" ] && { echo "$v"; return; }
        if grep -q -e ': closed by the peer' -e ': connection error' \
               "$tmp/since" && ! grep -q ': job [0-9]*: [0-9]* layers' \
               "$tmp/since"; then
            echo 0
            return
        fi
        sleep 0.05
    done
    echo "agent $1 logged no end of its connection" >&2
    echo nan
}

# run_case LABEL CLUSTER MICRO MODEL-ARGS...: agents for CLUSTER, RUNS
# runs at each width, a row each.
run_case() {
    label=$1 cluster=$2 micro=$3
    shift 3
    bench_agents "$cluster"
    dcs=$(jq -r '."lightrail-compute:compute".dc[].name' "$cluster")
    for beam in 0 8; do
        : > "$tmp/wall"
        : > "$tmp/search"
        : > "$tmp/counts"
        for r in $(seq 1 "$RUNS"); do
            for n in $dcs; do
                eval "from_$n=\$(wc -l < \"\$tmp/\$n.log\")"
            done
            t0=$(date +%s%N)
            $LIGHTRAIL plan --distributed "$@" --cluster "$tmp/remote.json" \
                --microbatch "$micro" --beam "$beam" $TLS --timeout 60 \
                --format json > "$tmp/out"
            t1=$(date +%s%N)
            echo $(( (t1 - t0) / 1000 )) >> "$tmp/wall"
            jq .search_time_s "$tmp/out" >> "$tmp/search"
            line=
            for n in $dcs; do
                eval "from=\$from_$n"
                b=$(held "$n" "$from")
                line="$line $(answers "$n" "$from"):$b"
            done
            echo "$line" >> "$tmp/counts"
        done
        $LIGHTRAIL plan "$@" --cluster "$cluster" --microbatch "$micro" \
            --beam "$beam" --format json > "$tmp/here"
        mark=
        if ! same_plan "$tmp/here" "$tmp/out"; then
            mark=" (NOT in-process CDynP's plan)"
            FAILED=1
        fi
        [ "$(sort -u "$tmp/counts" | wc -l)" -eq 1 ] \
            || echo "note: $label, beam $beam: the counts differ between runs" >&2
        req=$(head -1 "$tmp/counts" | tr ' ' '\n' | sed -n 's/:.*//p')
        bytes=$(head -1 "$tmp/counts" | tr ' ' '\n' | sed -n 's/.*://p')
        printf '| %s | %d | %.4f s%s | %s-%s (%s) | %s (%s) | %.0f ms | %.0f ms |\n' \
            "$label" "$beam" "$(jq .iteration_time_s "$tmp/out")" "$mark" \
            "$(echo "$req" | sort -n | head -1)" \
            "$(echo "$req" | sort -n | tail -1)" \
            "$(echo "$req" | awk '{ s += $1 } END { print s }')" \
            "$(echo "$bytes" | sort -g | tail -1 | awk '{ printf "%.3g", $1 }')" \
            "$(echo "$bytes" | awk '{ s += $1 } END { printf "%.3g", s }')" \
            "$(median < "$tmp/wall" | awk '{ print $1 / 1000 }')" \
            "$(median < "$tmp/search" | awk '{ print $1 * 1000 }')"
    done
    bench_agents_stop
}

echo "| case | beam | T | requests per agent, least-most (sum) | cache bytes per agent, most (sum) | median command | median search |"
echo "|---|---:|---:|---:|---:|---:|---:|"
run_case "wide-7, its model, b=1" "$DATA/wide-7/cluster.json" 1 \
    --model-file "$DATA/wide-7/model.json"
run_case "wide-13, its model, b=2" "$DATA/wide-13/cluster.json" 2 \
    --model-file "$DATA/wide-13/model.json"
run_case "wide-7, LLaMA-2 7B, b=1" "$DATA/wide-7/cluster.json" 1 \
    --model llama2-7b
run_case "wide-13, GPT-1.9B, b=8" "$DATA/wide-13/cluster.json" 8 \
    --model gpt-1.9b
echo
echo "$RUNS runs each; one agent per DC on 127.0.0.1."
exit $FAILED
