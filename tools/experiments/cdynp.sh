#!/bin/sh
# Reproduces the tables of docs/cdynp.md: the four experiments of the
# CDynP paper with every algorithm side by side.  Run from the top of a
# built tree:  tools/experiments/cdynp.sh > /tmp/cdynp-tables.md
# Settings: B = 32 samples, b = 1 (m = 32), e = 2 bytes, fixed inter-DC
# links from the cluster files; CDynP with its default window (+-4).
set -u
L=${LIGHTRAIL:-./lightrail}
C=examples/clusters
ALGOS="cdynp spp pipedream dp"

# plan MODEL CLUSTER ALGO [ARGS...] -> "T search" or "- reason"
plan() {
    m=$1 c=$2 a=$3
    shift 3
    $L plan --model "$m" --cluster "$c" --algo "$a" --format json "$@" 2>/dev/null \
        | jq -r 'if .feasible then "\(.iteration_time_s) \(.search_time_s) \(.stages | length)"
                 else "- \(.reason)" end'
}

cell() {   # format one result: T (stages) or "no plan"
    set -- $1
    if [ "$1" = - ]; then echo "no plan"; else printf '%.4f s (%d st.)' "$1" "$3"; fi
}

echo "## (a) 16 V100 spread over 1 to 4 DCs"
for model in gpt-1.9b bert-large; do
    echo
    echo "$model, B=32, b=1; T per algorithm (number of stages):"
    echo
    echo "| algorithm | 1 DC | 2 DCs | 3 DCs | 4 DCs | growth 1 -> 4 |"
    echo "|---|---:|---:|---:|---:|---:|"
    for a in $ALGOS; do
        row="| $a |"; first=""; last=""
        for k in 1 2 3 4; do
            r=$(plan $model $C/scale-${k}dc.json $a)
            row="$row $(cell "$r") |"
            t=${r%% *}
            [ $k = 1 ] && first=$t
            [ $k = 4 ] && last=$t
        done
        if [ "$first" != - ] && [ "$last" != - ]; then
            g=$(jq -n "($last / $first - 1) * 100")
            row="$row $(printf '%+.1f%%' "$g") |"
        else
            row="$row - |"
        fi
        echo "$row"
    done
done

echo
echo "## (b) Four models on man3"
echo
echo "| model | $(echo $ALGOS | sed 's/ / | /g') | CDynP vs SPP |"
echo "|---|---:|---:|---:|---:|---:|"
for model in bert-large gpt-1.9b llama2-7b llama2-13b; do
    row="| $model |"; tc=""; ts=""
    for a in $ALGOS; do
        r=$(plan $model $C/man3.json $a)
        row="$row $(cell "$r") |"
        [ $a = cdynp ] && tc=${r%% *}
        [ $a = spp ] && ts=${r%% *}
    done
    if [ "$tc" != - ] && [ "$ts" != - ]; then
        row="$row $(printf '%+.1f%%' "$(jq -n "($tc / $ts - 1) * 100")") |"
    else
        row="$row - |"
    fi
    echo "$row"
done

echo
echo "## (c) Inter-DC bandwidth, GPT-1.9B on man3 (every inter-DC link at the rate, latencies kept)"
echo
echo "| Gb/s | $(echo $ALGOS | sed 's/ / | /g') |"
echo "|---:|---:|---:|---:|---:|"
for g in 10 5 2 1; do
    row="| $g |"
    for a in $ALGOS; do
        row="$row $(cell "$(plan gpt-1.9b $C/man3.json $a --inter-dc-gbps $g)") |"
    done
    echo "$row"
done

echo
echo "## (d) Search time, GPT-1.9B on man3 (median of 5 runs)"
echo
echo "| algorithm | search time | T |"
echo "|---|---:|---:|"
for a in $ALGOS; do
    times=""
    for i in 1 2 3 4 5; do
        r=$(plan gpt-1.9b $C/man3.json $a)
        set -- $r
        times="$times $2"
        T=$1
    done
    med=$(echo $times | tr ' ' '\n' | sort -g | sed -n 3p)
    printf '| %s | %.3f ms | %.4f s |\n' "$a" "$(jq -n "$med * 1000")" "$T"
done
