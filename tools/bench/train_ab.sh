#!/bin/bash
# Training throughput end to end, two builds side by side: the shipped
# metro command (examples/policies/README.md, 300,000 steps) and the
# NSFNET/6 one (docs/ppo.md, 200,000 steps), each build's `lightrail
# train` in turn, ROUNDS times, so that both see the same shared machine:
#     tools/bench/train_ab.sh BEFORE AFTER [ROUNDS]
# BEFORE and AFTER are two `lightrail` binaries (e.g. one from a `git
# worktree` of the older commit; both `./configure CFLAGS="-O2 -g"`),
# ROUNDS defaults to 5; NSFNET_OPTS, if set, adds options to the
# NSFNET/6 command (e.g. "--hidden 32 --epochs 2", the configuration of
# docs/ppo.md "Smaller networks, fewer passes").  Run from the top of
# the tree.  The figure is user CPU time less that of a 512-step run of
# the same command (which builds the environment and the networks), so
# steps/s = steps / (that difference); one BLAS thread.  Prints a
# Markdown table, the ratio of the medians per case, and whether the two
# builds wrote the same policy file bit for bit (what a change that only
# makes training faster must keep).
set -u
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    echo "usage: tools/bench/train_ab.sh BEFORE AFTER [ROUNDS]" >&2
    echo "  (two lightrail binaries; run from the top of the tree)" >&2
    exit 2
fi
before=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
after=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
rounds=${3:-5}
case $rounds in
    ''|*[!0-9]*|0) echo "train_ab.sh: ROUNDS must be a positive integer" >&2
                   exit 2 ;;
esac
top=$(pwd)
if [ ! -f "$top/examples/topologies/metro.json" ]; then
    echo "train_ab.sh: run it from the top of the tree" >&2
    exit 2
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tools/bench/train_lib.sh
. "$top/tools/bench/train_lib.sh"

echo "| case | build | seconds less 512 steps, by round | median steps/s |"
echo "|---|---|---|---:|"
for c in metro nsfnet; do
    if [ $c = metro ]; then steps=300000; args=$metro
    else steps=200000; args="$nsfnet ${NSFNET_OPTS:-}"; fi
    : > "$tmp/$c.before"
    : > "$tmp/$c.after"
    for _ in $(seq 1 "$rounds"); do
        for b in before after; do
            bin=$before
            [ $b = after ] && bin=$after
            # shellcheck disable=SC2086
            full=$(user_s "$bin" "$tmp/$c-$b" "$steps" $args)
            # shellcheck disable=SC2086
            base=$(user_s "$bin" "$tmp/$c-$b-512" 512 $args)
            awk -v f="$full" -v b="$base" 'BEGIN { printf "%.2f\n", f - b }' \
                >> "$tmp/$c.$b"
        done
    done
    for b in before after; do
        m=$(median < "$tmp/$c.$b")
        echo "$m" > "$tmp/$c.$b.median"
        label=$c
        [ $c = nsfnet ] && [ -n "${NSFNET_OPTS:-}" ] \
            && label="nsfnet $NSFNET_OPTS"
        echo "| $label, $steps steps | $b | $(paste -sd' ' "$tmp/$c.$b" \
            | sed 's/ /, /g') | $(awk -v s=$steps -v m="$m" \
            'BEGIN { printf "%d", s / m }') |"
    done
done
echo
for c in metro nsfnet; do
    b=$(cat "$tmp/$c.before.median")
    a=$(cat "$tmp/$c.after.median")
    same=no
    cmp -s "$tmp/$c-before/x.pol" "$tmp/$c-after/x.pol" && same=yes
    awk -v c=$c -v b="$b" -v a="$a" -v s=$same 'BEGIN {
        printf "%s: after / before %.2fx; same policy file: %s\n",
               c, b / a, s }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
