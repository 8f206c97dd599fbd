#!/bin/sh
# lightraild's cdynp-beam (lightrail-config): the daemon's CDynP searches
# chains beyond six DCs at the width configured, as `lightrail plan
# --beam` does.  Before, the daemon always ran width 8.
# tests/data/wide-13 is an 8-DC inventory (seed 13 of
# lr_instance_random_dcs(), 18 GPUs), its DCs attached to ROADMs 1-8 of
# a ring of ten (tests/cli/gen_big.py); one job of gpt-1.9b on every GPU
# at microbatch 8: width 0 (the greedy chain's prefixes) plans it on
# dc2 alone, width 8 over dc8 and dc6 (plan: T 0.428 against 0.381 s).
# The job's stages (layers, DC, GPUs) are compared with plan's at the
# same width (not T: the daemon's is over the lightpaths it placed).
# Width 65 stops the daemon at start, the leaf and its range named.
. "${srcdir:-.}/tests/cli/lib.sh"
command -v curl > /dev/null || { echo "skip: curl not installed"; exit 77; }
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }
. "${srcdir:-.}/tests/cli/daemon.sh"
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
WIDE=$(cd "$srcdir" && pwd)/tests/data/wide-13/cluster.json
/usr/bin/python3 "$srcdir/tests/cli/gen_big.py" ring 10 1:1 2:2 3:3 4:4 \
    5:5 6:6 7:7 8:8 > "$tmp/ring.json"

# config WIDTH: the daemon's configuration over wide-13 and the ring,
# with cdynp-beam WIDTH ("" leaves it out: the default).
config() {
    jq --arg c "$WIDE" --arg t "$tmp/ring.json" --arg w "$1" '
        .["lightrail-config:lightraild"]["cluster-file"] = $c
        | .["lightrail-config:lightraild"]["topology-file"] = $t
        | if $w == "" then . else
            .["lightrail-config:lightraild"]["cdynp-beam"] = ($w | tonumber)
          end' "$D/base.json" > "$D/lightraild.json"
}
cp "$D/lightraild.json" "$D/base.json"

# for_width WIDTH WHAT PLAN-WIDTH: a fresh state, the daemon at WIDTH,
# the job, its stages against `lightrail plan --beam PLAN-WIDTH`'s.
for_width() {
    rm -rf "$D/state"
    config "$1"
    start_daemon || { notok "lightraild ($2) did not start: $(tail -3 "$D/log")"; return; }
    intent j gpt-1.9b 18 | jq '.["lightrail-job:job"][0].microbatch = 8' \
        > "$tmp/j.json"
    api POST "$JOBS" "$tmp/j.json"
    api GET "$JOBS/job=j"
    cp "$tmp/body" "$tmp/job.$2"
    stop_daemon
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$WIDE" --microbatch 8 \
        --beam "$3" --format json > "$tmp/plan.$2" 2>> "$tmp/err"
    if jq -e -n --slurpfile j "$tmp/job.$2" --slurpfile p "$tmp/plan.$2" '
        $j[0]["lightrail-job:job"][0].state.phase == "active"
        and [$j[0]["lightrail-job:job"][0].state.stage[]
             | [.["first-layer"], .["last-layer"], .dc, .devices]]
            == [$p[0].stages[] | [.first_layer, .last_layer, .dc, .devices]]' \
          > /dev/null; then
        ok "$2: the daemon's plan is lightrail plan --beam $3's ($(jq -c '[.stages[] | "\(.dc) x\(.devices)"]' "$tmp/plan.$2"))"
    else
        notok "$2: job $(jq -c '.["lightrail-job:job"][0].state | [.phase, .reason, [.stage[]? | [.dc, .devices]]]' "$tmp/job.$2") vs plan $(jq -c '[.iteration_time_s, [.stages[] | [.dc, .devices]]]' "$tmp/plan.$2")"
    fi
}
for_width "" default 8
for_width 0 greedy 0
for_width 8 width8 8
# The width matters here: 0 and 8 plan the job on different DCs.
if [ "$(jq -c '[.stages[].dc] | unique' "$tmp/plan.greedy")" = '["dc2"]' ] \
   && [ "$(jq -c '[.stages[].dc] | unique' "$tmp/plan.width8")" = '["dc6","dc8"]' ]; then
    ok "widths 0 and 8 plan wide-13 on different DCs"
else
    notok "widths 0 and 8: $(jq -c '[.stages[].dc]' "$tmp/plan.greedy" "$tmp/plan.width8")"
fi

# A width past 64: the daemon does not start, and says which leaf and
# what it takes.
rm -rf "$D/state"
config 65
$LIGHTRAILD --config "$D/lightraild.json" --foreground > /dev/null 2> "$tmp/bad.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'cdynp-beam: Unsatisfied range - value "65" is out of the allowed range. Allowed: 0 to 64.' "$tmp/bad.err"; then
    ok "cdynp-beam 65: refused at start ($(grep -m1 cdynp-beam "$tmp/bad.err" | cut -c1-160))"
else
    notok "cdynp-beam 65: exit $rc: $(cat "$tmp/bad.err")"
fi
lr_summary
