#!/bin/bash
# Training throughput of one build under several network sizes and
# numbers of PPO passes, side by side: the NSFNET/6 command of
# docs/ppo.md (200,000 steps, exp holding, 7 Erlang, seed 1) with
#     (default)                  --hidden 64, 4 epochs, 4 minibatches
#     --hidden 32
#     --hidden 32 --epochs 3
#     --hidden 32 --epochs 2
#     --hidden 16
# each configuration in turn, ROUNDS times, so that all see the same
# shared machine:
#     tools/bench/train_configs.sh LIGHTRAIL [ROUNDS]
# LIGHTRAIL is a `lightrail` binary (./configure CFLAGS="-O2 -g"), ROUNDS
# defaults to 5.  Run from the top of the tree.  The figure is user CPU
# time less that of a 512-step run of the same command (which builds the
# environment and the networks): steps/s = 200,000 / that difference;
# one BLAS thread.  Prints a Markdown table with each configuration's
# median and its ratio to the default's.  Whether a configuration learns
# as well is another question, answered by evaluating what it writes
# (docs/ppo.md, "Smaller networks, fewer passes").
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: tools/bench/train_configs.sh LIGHTRAIL [ROUNDS]" >&2
    echo "  (a lightrail binary; run from the top of the tree)" >&2
    exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-5}
case $rounds in
    ''|*[!0-9]*|0) echo "train_configs.sh: ROUNDS must be a positive integer" >&2
                   exit 2 ;;
esac
top=$(pwd)
if [ ! -f "$top/examples/topologies/nsfnet.json" ]; then
    echo "train_configs.sh: run it from the top of the tree" >&2
    exit 2
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/bench/train_lib.sh
. "$top/tools/bench/train_lib.sh"
steps=200000
names=("default" "--hidden 32" "--hidden 32 --epochs 3"
       "--hidden 32 --epochs 2" "--hidden 16")
opts=("" "--hidden 32" "--hidden 32 --epochs 3" "--hidden 32 --epochs 2"
      "--hidden 16")

n=${#opts[@]}
for i in $(seq 0 $((n - 1))); do : > "$tmp/$i"; done
for r in $(seq 1 "$rounds"); do
    for i in $(seq 0 $((n - 1))); do
        # shellcheck disable=SC2086
        full=$(user_s "$bin" "$tmp/c$i" $steps $nsfnet ${opts[$i]})
        # shellcheck disable=SC2086
        base=$(user_s "$bin" "$tmp/c$i-512" 512 $nsfnet ${opts[$i]})
        if [ ! -s "$tmp/c$i/x.pol" ]; then
            echo "train_configs.sh: '${names[$i]}' wrote no policy" >&2
            exit 1
        fi
        awk -v f="$full" -v b="$base" 'BEGIN { printf "%.3f\n", f - b }' \
            >> "$tmp/$i"
    done
    echo "round $r of $rounds done" >&2
done
echo "| NSFNET/6, $steps steps | seconds less 512 steps, by round | median steps/s | vs default |"
echo "|---|---|---:|---:|"
m0=$(median < "$tmp/0")
for i in $(seq 0 $((n - 1))); do
    m=$(median < "$tmp/$i")
    echo "| ${names[$i]} | $(paste -sd' ' "$tmp/$i" | sed 's/ /, /g') |" \
         "$(awk -v s=$steps -v m="$m" 'BEGIN { printf "%d", s / m }') |" \
         "$(awk -v a="$m0" -v m="$m" 'BEGIN { printf "%.2fx", a / m }') |"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
