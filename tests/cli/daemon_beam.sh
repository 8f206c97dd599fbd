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
# The same with dc2, dc6 and dc8 planned by their agents (lightraild the
# coordinator, lr_ctl_plan_with_agents()): the job's chain is dc2 at
# width 0 and dc8, dc6 at 8, its T plan's at that width (to the 6
# decimals of iteration-time-s).
# Width 65 stops the daemon at start, the leaf and its range named.
. "${srcdir:-.}/tests/cli/lib.sh"
command -v curl > /dev/null || { echo "skip: curl not installed"; exit 77; }
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }
. "${srcdir:-.}/tests/cli/daemon.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
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

# Over agents.  Each width gets fresh agents (their own state: no
# reservation of the run before) and a fresh daemon.
{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca dc6 dc6 && mk_cert ca dc8 dc8 &&
  mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
REMOTE="dc2 dc6 dc8"
for dc in $REMOTE; do
    set -- $(jq -r --arg n "$dc" '."lightrail-compute:compute" as $x
        | ($x.dc[] | select(.name == $n)) as $d
        | ($x."device-type"[] | select(.name == $d."device-type")) as $t
        | "\($d."device-count") \($t."peak-tflops") \($t.efficiency) \($t."memory-gb") \($d."intra-dc-bandwidth-gbytes-per-s") \($d."intra-dc-latency-us")"' \
        "$WIDE")
    agent_file $dc "$1" "$2" "$3" "$4" "$5" $dc "$6"
done

# over_agents WIDTH WHAT: agents for $REMOTE, the daemon at WIDTH over
# wide-13 with those DCs remote, the job; its chain's DCs into
# $tmp/chain.WHAT and a line of ok when its T is plan's ($tmp/plan.WHAT).
over_agents() {
    ports={}
    APIDS=
    for dc in $REMOTE; do
        start_agent "$dc-$2" "$A/$dc.json" || { notok "agent $dc did not start"; return; }
        APIDS="$APIDS $APID"
        ports=$(echo "$ports" | jq --arg n "$dc" --argjson p "$APORT" '. + {($n): $p}')
    done
    jq --argjson p "$ports" '."lightrail-compute:compute".dc |= map(
            if $p[.name] then . + {remote: {address: "127.0.0.1",
                                            port: $p[.name]}} else . end)' \
        "$WIDE" > "$D/cluster.json"
    rm -rf "$D/state"
    config "$1"
    jq --arg c "$C" --arg k "$D/cluster.json" '.["lightrail-config:lightraild"] += {
        "cluster-file": $k,
        "coordinator": {"certificate": ($c + "/coordinator.pem"),
                        "key": ($c + "/coordinator.key"),
                        "ca": ($c + "/ca.pem"), "timeout": "10"}}' \
        "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
    if start_daemon; then
        intent j gpt-1.9b 18 | jq '.["lightrail-job:job"][0].microbatch = 8' \
            > "$tmp/j.json"
        api POST "$JOBS" "$tmp/j.json"
        api GET "$JOBS/job=j"
        cp "$tmp/body" "$tmp/ajob.$2"
        stop_daemon
    else
        notok "lightraild over agents ($2) did not start: $(tail -3 "$D/log")"
    fi
    for p in $APIDS; do stop_agent $p; done
    jq -c '[.["lightrail-job:job"][0].state.stage[]?.dc] | unique' \
        "$tmp/ajob.$2" > "$tmp/chain.$2" 2> /dev/null
    if jq -e -n --slurpfile j "$tmp/ajob.$2" --slurpfile p "$tmp/plan.$2" '
        $j[0]["lightrail-job:job"][0].state as $s
        | $s.phase == "active"
        and ([$s.stage[].dc] | unique) == ([$p[0].stages[].dc] | unique)
        and (($s["iteration-time-s"] | tonumber) - $p[0].iteration_time_s
             | fabs) <= 1e-6' > /dev/null; then
        ok "over agents, $2: the chain $(cat "$tmp/chain.$2") and T of lightrail plan's at that width"
    else
        notok "over agents, $2: job $(jq -c '.["lightrail-job:job"][0].state | [.phase, .reason, .["iteration-time-s"], [.stage[]? | .dc]]' "$tmp/ajob.$2") vs plan $(jq -c '[.iteration_time_s, [.stages[].dc]]' "$tmp/plan.$2")"
    fi
}
over_agents 0 greedy
over_agents 8 width8

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
