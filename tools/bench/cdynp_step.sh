#!/bin/sh
# CDynP's device step (lr_cdynp_dc_set_step): T and search time of
# `lightrail plan` at steps 1, 2, 4, 8, auto and best, on the first K of
# the metro's DCs with N devices each (N = 512, 1024, 2048; K = 2, 3),
# for four models; then each step's change of T and speed-up against
# step 1, the best of the whole plans at steps 1-8, and best (each DC's
# ranges the least over its grids, LR_CDYNP_STEP_BEST) against auto: its
# change of T and its time over auto's.  Run from the top of a built
# tree; about 8 minutes.  docs/benchmarks.md, "The device step".
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for N in 512 1024 2048; do
    for K in 2 3; do
        jq --argjson n "$N" --argjson k "$K" '
            .["lightrail-compute:compute"] |= (
                .dc = (.dc[:$k] | map(.["device-count"] = $n))
                | [.dc[].name] as $names
                | .["inter-dc-link"] |= map(select(.from as $f | $names
                                                  | index($f))
                                            | select(.to as $t | $names
                                                  | index($t))))' \
            examples/clusters/metro.json > "$tmp/c.json"
        for m in gpt-1.9b llama2-7b llama2-13b bert-large; do
            for st in 1 2 4 8 auto best; do
                ./lightrail plan --model $m --cluster "$tmp/c.json" \
                    --device-step $st --format json \
                    | jq -r --arg k "$N $K $m $st" \
                        '"\($k) \(.iteration_time_s) \(.search_time_s)"'
            done
        done
    done
done > "$tmp/raw"
echo "| N x K | model | step 2 | step 4 | step 8 | auto | best of 1-8 | best, against auto |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
awk '{ k = $1 " x " $2 " | " $3; T[k, $4] = $5; S[k, $4] = $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
     END {
         for (i = 1; i <= n; i++) {
             k = order[i]; line = "| " k; best = T[k, 1]
             split("2 4 8 auto", st, " ")
             for (j = 1; j <= 4; j++) {
                 s = st[j]
                 line = line sprintf(" | %+.2f%%, %.1fx", 100 * (T[k, s] / T[k, 1] - 1), S[k, 1] / S[k, s])
                 if (s != "auto" && T[k, s] < best) best = T[k, s]
             }
             print line sprintf(" | %+.2f%% | %+.2f%%, %.2fx time |", 100 * (best / T[k, 1] - 1),
                                100 * (T[k, "best"] / T[k, "auto"] - 1), S[k, "best"] / S[k, "auto"])
         }
     }' "$tmp/raw"
