#!/bin/sh
# lightraild's cdynp-device-step (lightrail-config): the daemon plans
# CDynP at the step configured, as `lightrail plan --device-step` does.
# man3's DCs (8, 4 and 4 GPUs) under the metro topology: at step 2 every
# stage holds an even number of GPUs, as plan's at step 2; the default
# (auto) is plan's at step 1, whose stages are not all even;
# best is plan's with best; a value outside the leaf's type stops the
# daemon at start with the leaf named and the values it takes.
. "${srcdir:-.}/tests/cli/lib.sh"
command -v curl > /dev/null || { echo "skip: curl not installed"; exit 77; }
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
. "${srcdir:-.}/tests/cli/daemon.sh"
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
MAN3=$(cd "$srcdir" && pwd)/examples/clusters/man3.json

# config STEP: the daemon's configuration over man3, with
# cdynp-device-step STEP ("" leaves it out: the default).
config() {
    jq --arg c "$MAN3" --arg s "$1" '
        .["lightrail-config:lightraild"]["cluster-file"] = $c
        | if $s == "" then . else
            .["lightrail-config:lightraild"]["cdynp-device-step"] =
                (if ($s | test("^[0-9]+$")) then ($s | tonumber) else $s end)
          end' "$D/base.json" > "$D/lightraild.json"
}
cp "$D/lightraild.json" "$D/base.json"

# for_step STEP WHAT: a fresh state, the daemon at STEP, one job of 16
# GPUs, its stages (layers, DC, GPUs) compared with `lightrail plan
# --device-step PLAN_STEP`'s (not T: the daemon's is over the lightpaths
# it placed, plan's over the inventory's links).
for_step() {
    rm -rf "$D/state"
    config "$1"
    start_daemon || { notok "lightraild ($2) did not start: $(tail -3 "$D/log")"; return; }
    intent j gpt-1.9b 16 > "$tmp/j.json"
    api POST "$JOBS" "$tmp/j.json"
    api GET "$JOBS/job=j"
    cp "$tmp/body" "$tmp/job.$2"
    stop_daemon
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step "$3" \
        --format json > "$tmp/plan.$2" 2>> "$tmp/err"
    if jq -e -n --slurpfile j "$tmp/job.$2" --slurpfile p "$tmp/plan.$2" '
        [$j[0]["lightrail-job:job"][0].state.stage[]
         | [.["first-layer"], .["last-layer"], .dc, .devices]]
        == [$p[0].stages[] | [.first_layer, .last_layer, .dc, .devices]]' \
          > /dev/null; then
        ok "$2: the daemon's plan is lightrail plan --device-step $3's ($(jq -c '[.stages[].devices]' "$tmp/plan.$2"))"
    else
        notok "$2: job $(jq -c '.["lightrail-job:job"][0].state | [.["iteration-time-s"], [.stage[]?.devices]]' "$tmp/job.$2") vs plan $(jq -c '[.iteration_time_s, [.stages[].devices]]' "$tmp/plan.$2")"
    fi
}
for_step "" default 1
for_step 2 step2 2
for_step best best best
# The step matters here: step 2's stages are all even, step 1's not.
if jq -e '[.stages[].devices] | all(. % 2 == 0)' "$tmp/plan.step2" > /dev/null \
   && jq -e '[.stages[].devices] | any(. % 2 == 1)' "$tmp/plan.default" > /dev/null; then
    ok "step 2 and the default plan man3 differently"
else
    notok "steps 1 and 2 alike: $(jq -c '[.stages[].devices]' "$tmp/plan.default" "$tmp/plan.step2")"
fi

# A step out of range, or a word other than auto and best: the daemon
# does not start, and says which leaf and what it takes.
for bad in 0 fast; do
    rm -rf "$D/state"
    config $bad
    $LIGHTRAILD --config "$D/lightraild.json" --foreground > /dev/null 2> "$tmp/bad.err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q "cdynp-device-step: invalid value \"$bad\": want auto, best or 1 to 1000000 devices" "$tmp/bad.err"; then
        ok "cdynp-device-step $bad: refused at start ($(grep -m1 cdynp-device-step "$tmp/bad.err" | cut -c1-160))"
    else
        notok "cdynp-device-step $bad: exit $rc: $(cat "$tmp/bad.err")"
    fi
done
lr_summary
