#!/bin/sh
# Distributed CDynP with real agents on 127.0.0.1 (issue 7):
#   1. equivalence with in-process CDynP on random instances
#      (tests/unit/test_agent_equiv), and through the CLI on a cluster of
#      three agents;
#   2. privacy: every message any party received, as recorded, carries
#      exactly the fields docs/agent-protocol.md lists for its type, and
#      none of another DC's private figures;
#   3. faults: an agent down, an agent too slow, certificates from another
#      CA on either side, a certificate with the wrong name, a malformed
#      frame; each a clear error, and the agents keep serving.
# Agents are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
EQUIV=${EQUIV:-./tests/unit/test_agent_equiv}
# Random instances of 1a, three agents started each: 100, or 25 under
# the sanitizers, where their starts made 1a the script's longest step;
# the plain build checks all 100 (tools/test-all runs both).
if lr_sanitized; then SEEDS=${LR_AGENT_SEEDS:-25}; else SEEDS=${LR_AGENT_SEEDS:-100}; fi
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

# ---- certificates: a CA, one per DC and the coordinator; another CA ----
{ mk_ca ca && mk_ca otherca && mk_cert ca dc1 dc1 && mk_cert ca dc2 dc2 &&
  mk_cert ca dc3 dc3 && mk_cert ca coordinator coordinator &&
  mk_cert otherca coordinator-other coordinator &&
  mk_cert otherca dc1-other dc1; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

# ---- 1a. equivalence on random instances ----
W=$tmp/equiv
mkdir -p "$W"
"$EQUIV" "$LIGHTRAIL" "$C" "$W" 1 "$SEEDS" > "$tmp/equiv.out" 2>&1
rc=$?
n_ok=$(grep -c '^ok: ' "$tmp/equiv.out")
if [ $rc -eq 0 ] && [ "$n_ok" -eq "$SEEDS" ]; then
    ok "equivalence: $SEEDS random instances, distributed T = in-process T"
else
    notok "equivalence (exit $rc, $n_ok of $SEEDS ok): $(grep -v '^ok: ' "$tmp/equiv.out" | head -5)"
fi

# ---- 1b. the last try, one stage per DC, over the wire ----
# Tight-memory instances (lr_test_tight_instance() of
# tests/unit/lr_test_tight.h) where CDynP finds its plan only by its
# last try: the agents are asked with the objectives lex-one and
# time-one, and plan as in process.
W=$tmp/equiv-tight
mkdir -p "$W"
: > "$tmp/tight.out"
rc=0
for s in 297 7313; do
    "$EQUIV" "$LIGHTRAIL" "$C" "$W" $s 1 tight >> "$tmp/tight.out" 2>&1 || rc=1
done
if [ $rc -eq 0 ] && [ "$(grep -c '^ok: .* T .* both ways' "$tmp/tight.out")" -eq 2 ] \
   && cat "$W"/seed-297-dc*.jsonl | grep -q '"objective":"time-one"' \
   && cat "$W"/seed-7313-dc*.jsonl | grep -q '"objective":"lex-one"\|"objective":"time-one"'; then
    ok "one stage per DC, the last try, over the wire: the same T as in process"
else
    notok "the last try over the wire (exit $rc): $(grep -v '^ok: ' "$tmp/tight.out" | head -5); objectives: $(cat "$W"/*.jsonl | grep -o '"objective":"[a-z-]*"' | sort | uniq -c | tr '\n' ' ')"
fi

# ---- 1c. the count-bounded runs over the wire ----
# Tight-memory instances where CDynP finds exact's plan only by a run
# with at most q stages in all (docs/cdynp.md): the agents are asked
# with lex-bound or time-bound, the count crossing them in the
# summaries, BACKTRACK, FINISH (stages), and plan as in process; the
# winning chain, a bounded run's, commits with its counts.
W=$tmp/equiv-bound
mkdir -p "$W"
: > "$tmp/bound.out"
rc=0
for s in 1842 3978; do
    "$EQUIV" "$LIGHTRAIL" "$C" "$W" $s 1 tight >> "$tmp/bound.out" 2>&1 || rc=1
done
# A counted FINISH that a DC answered with its own stages, > 0.
if [ $rc -eq 0 ] \
   && [ "$(grep -c '^ok: .* T .* both ways (\(lex\|time\)-bound, committed)' "$tmp/bound.out")" -eq 2 ] \
   && cat "$W"/seed-1842-dc*.jsonl | grep -q '"objective":"\(lex\|time\)-bound"' \
   && cat "$W"/seed-3978-dc*.jsonl | grep -q '"objective":"\(lex\|time\)-bound"' \
   && cat "$W"/*.jsonl | jq -e -s 'any(.[]; .type == "finish"
          and (.objective | endswith("-bound")) and .stages >= 1)' > /dev/null; then
    ok "count-bounded runs over the wire: the same T as in process"
else
    notok "count-bounded runs over the wire (exit $rc): $(grep -v '^ok: ' "$tmp/bound.out" | head -5); objectives: $(cat "$W"/*.jsonl | grep -o '"objective":"[a-z-]*"' | sort | uniq -c | tr '\n' ' ')"
fi

# ---- three agents for the CLI ----
# Private figures chosen to be recognisable in the records.
agent_file dc1 8 123.457 0.4 32 23.456
agent_file dc2 4 311.111 0.45 80 45.678
agent_file dc3 4 987.654 0.4 80 67.891
PRIVATE_NUMBERS="23456000000 45678000000 67891000000 123457000000000 311111000000000 987654000000000"

start_agent dc1 "$A/dc1.json" --record "$A/dc1.jsonl" && P1=$APORT && PID1=$APID
start_agent dc2 "$A/dc2.json" --record "$A/dc2.jsonl" && P2=$APORT && PID2=$APID
start_agent dc3 "$A/dc3.json" --record "$A/dc3.jsonl" && P3=$APORT && PID3=$APID

# cluster DC1PORT DC2PORT DC3PORT [DC1NAME]: the coordinator's file, with
# the same inventory so that in-process planning can be compared; an
# empty port keeps that DC in this process.
remote() {   # remote PORT [NAME]
    [ -n "$1" ] || return 0
    printf ', "remote": {"address": "127.0.0.1", "port": %s' "$1"
    [ -n "${2:-}" ] && printf ', "certificate-name": "%s"' "$2"
    printf '}'
}
cluster() {
    cat <<EOF
{"lightrail-compute:compute": {
  "device-type": [
    {"name": "t1", "peak-tflops": "123.457", "efficiency": "0.4", "memory-gb": "32"},
    {"name": "t2", "peak-tflops": "311.111", "efficiency": "0.45", "memory-gb": "80"},
    {"name": "t3", "peak-tflops": "987.654", "efficiency": "0.4", "memory-gb": "80"}],
  "dc": [
    {"name": "dc1", "device-type": "t1", "device-count": 8,
     "intra-dc-bandwidth-gbytes-per-s": "23.456", "intra-dc-latency-us": "5"
     $(remote "$1" "${4:-}")},
    {"name": "dc2", "device-type": "t2", "device-count": 4,
     "intra-dc-bandwidth-gbytes-per-s": "45.678", "intra-dc-latency-us": "5"
     $(remote "$2")},
    {"name": "dc3", "device-type": "t3", "device-count": 4,
     "intra-dc-bandwidth-gbytes-per-s": "67.891", "intra-dc-latency-us": "5"
     $(remote "$3")}],
  "inter-dc-link": [
    {"from": "dc1", "to": "dc2", "bandwidth-gbps": "10", "latency-ms": "1"},
    {"from": "dc2", "to": "dc3", "bandwidth-gbps": "5", "latency-ms": "2"},
    {"from": "dc1", "to": "dc3", "bandwidth-gbps": "1", "latency-ms": "3"}]}}
EOF
}
cluster "" "" "" > "$tmp/local.json"
cluster "$P1" "$P2" "$P3" > "$tmp/remote.json"
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"

# ---- 1b. equivalence through the CLI ----
$LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/local.json" --format json \
    > "$tmp/local.out" 2> "$tmp/err"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    $TLS --record "$tmp/coordinator.jsonl" --format json \
    > "$tmp/dist.out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && jq -e -n --slurpfile a "$tmp/local.out" --slurpfile b "$tmp/dist.out" \
    '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
     <= 1e-9 * $a[0].iteration_time_s
     and $b[0].algorithm == "cdynp-distributed"
     and ($b[0].dcs | length) >= 1
     and ([$b[0].dcs[] | has("stage_list")] | any | not)' > /dev/null; then
    ok "plan --distributed over 3 agents: T = in-process T ($(jq .iteration_time_s "$tmp/dist.out") s)"
else
    notok "plan --distributed: exit $rc, $(cat "$tmp/err"), $(head -c 300 "$tmp/dist.out")"
fi
# Each agent decides whether its STEP_OKs carry predecessors
# (lightrail-agent's leaf predecessors, 2026-12-07).  With it false at
# all three, this coordinator of revision 2 is answered revision 1 and
# asks BACKTRACKs, which the agents above (revision 2) were never sent:
# the plan is the same, T and every DC's range.
for k in 1 2 3; do
    jq '."lightrail-agent:agent".predecessors = false' "$A/dc$k.json" \
        > "$A/np$k.json"
    start_agent np$k "$A/np$k.json" --record "$A/np$k.jsonl" \
        && eval NP$k=\$APORT NPPID$k=\$APID
done
cluster "$NP1" "$NP2" "$NP3" > "$tmp/noprev.json"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/noprev.json" \
    $TLS --record "$tmp/coordinator-np.jsonl" --format json \
    > "$tmp/dist-np.out" 2> "$tmp/err"
rc=$?
np_backtracks=$(cat "$A"/np[123].jsonl | jq -s '[.[] | select(.type == "backtrack")] | length')
backtracks=$(cat "$A"/dc[123].jsonl | jq -s '[.[] | select(.type == "backtrack")] | length')
if [ $rc -eq 0 ] && jq -e -n --slurpfile a "$tmp/dist.out" \
        --slurpfile b "$tmp/dist-np.out" \
    '$a[0].iteration_time_s == $b[0].iteration_time_s
     and $a[0].dcs == $b[0].dcs' > /dev/null \
   && jq -e -s 'map(select(.type == "hello-ok")) | length == 3
                and all(.[]; .revision == 1)' \
        "$tmp/coordinator-np.jsonl" > /dev/null \
   && jq -e -s 'map(select(.type == "hello-ok")) | length == 3
                and all(.[]; .revision == 2)' \
        "$tmp/coordinator.jsonl" > /dev/null \
   && [ "$np_backtracks" -gt 0 ] && [ "$backtracks" -eq 0 ]; then
    ok "agents with predecessors false: revision 1, $np_backtracks BACKTRACK(s) (0 at revision 2), the same plan"
else
    notok "predecessors false over the CLI: exit $rc, $(cat "$tmp/err"); BACKTRACKs $np_backtracks (revision 2: $backtracks); $(grep hello-ok "$tmp/coordinator-np.jsonl" "$tmp/coordinator.jsonl"); $(head -c 300 "$tmp/dist-np.out")"
fi
# The coordinator says so (2026-12-07): each agent at revision 1 named
# once in the plan's note, with the BACKTRACKs it was asked (all those
# its record shows: revision 2 asks none here) and what to do; the plan
# at revision 2 has no note.  The same in the text's last line.
rev1_note() {   # rev1_note K: what the note says of agent np$K
    eval port=\$NP$1
    printf 'agent dc%s (127.0.0.1 port %s) speaks protocol revision 1: its HELLO_OK answered 1, as an agent whose leaf predecessors is false does, so it is asked the BACKTRACKs that revision 2'"'"'s predecessors in STEP_OK spare, for the same plan: %s in this plan; set predecessors true in its configuration for fewer requests' \
        "$1" "$port" \
        "$(jq -s '[.[] | select(.type == "backtrack")] | length' "$A/np$1.jsonl")"
}
note=$(jq -r '.note // empty' "$tmp/dist-np.out" 2>/dev/null)
want="$(rev1_note 1); $(rev1_note 2); $(rev1_note 3)"
if [ "$note" = "$want" ] && [ "$(jq 'has("note")' "$tmp/dist.out")" = false ]; then
    ok "agents with predecessors false: each named once in the JSON note, its BACKTRACKs counted; none at revision 2"
else
    notok "predecessors false, JSON note: '$note', want '$want'; at revision 2: $(jq .note "$tmp/dist.out")"
fi
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/noprev.json" \
    $TLS > "$tmp/out" 2> "$tmp/err"
rc=$?
# The same plan asks the same requests: the JSON's note, word for word.
last=$(tail -n 1 "$tmp/out")
if [ $rc -eq 0 ] && [ -n "$note" ] && [ "$last" = "note: $note" ] && [ ! -s "$tmp/err" ]; then
    ok "agents with predecessors false: the text's last line is the note"
else
    notok "predecessors false, text: exit $rc, last line '$(tail -n 1 "$tmp/out")', $(cat "$tmp/err")"
fi
for k in 1 2 3; do
    eval stop_agent \$NPPID$k
done
# Text output: T, each DC's range, remote stages private.
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    $TLS > "$tmp/out" 2> "$tmp/err"
if [ $? -eq 0 ] && grep -q '^iteration time T = ' "$tmp/out" &&
   grep -q 'stages private' "$tmp/out" && ! grep -q 'device(s)' "$tmp/out"; then
    ok "plan --distributed: text output"
else
    notok "plan --distributed text: $(cat "$tmp/out" "$tmp/err")"
fi
# Agents at device step 2 (lightrail agent --device-step: the DC's own
# choice, never on the wire) plan what this process plans at step 2.
start_agent s1 "$A/dc1.json" --device-step 2 && S1=$APORT && SPID1=$APID
start_agent s2 "$A/dc2.json" --device-step 2 && S2=$APORT && SPID2=$APID
start_agent s3 "$A/dc3.json" --device-step 2 && S3=$APORT && SPID3=$APID
cluster "$S1" "$S2" "$S3" > "$tmp/step2.json"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/local.json" --device-step 2 \
    --format json > "$tmp/local2.out" 2> "$tmp/err"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/step2.json" \
    $TLS --format json > "$tmp/dist2.out" 2>> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && jq -e -n --slurpfile a "$tmp/local2.out" \
        --slurpfile b "$tmp/dist2.out" --slurpfile c "$tmp/local.out" \
    '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
     <= 1e-9 * $a[0].iteration_time_s
     and all($a[0].stages[]; .devices % 2 == 0)
     and $a[0].iteration_time_s != $c[0].iteration_time_s' > /dev/null; then
    ok "agents at --device-step 2: T = in-process T at step 2 ($(jq .iteration_time_s "$tmp/dist2.out") s, step 1 $(jq .iteration_time_s "$tmp/local.out") s)"
else
    notok "agents at --device-step 2: exit $rc, $(cat "$tmp/err"), $(jq -c .iteration_time_s "$tmp/local2.out" "$tmp/dist2.out" "$tmp/local.out")"
fi
for p in $SPID1 $SPID2 $SPID3; do stop_agent $p; done
# Agents at --device-step best (each range the least over several grids,
# in the agent alone) plan what this process plans with best.
start_agent b1 "$A/dc1.json" --device-step best && S1=$APORT && SPID1=$APID
start_agent b2 "$A/dc2.json" --device-step best && S2=$APORT && SPID2=$APID
start_agent b3 "$A/dc3.json" --device-step best && S3=$APORT && SPID3=$APID
cluster "$S1" "$S2" "$S3" > "$tmp/best.json"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/local.json" --device-step best \
    --format json > "$tmp/localb.out" 2> "$tmp/err"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/best.json" \
    $TLS --format json > "$tmp/distb.out" 2>> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && jq -e -n --slurpfile a "$tmp/localb.out" \
        --slurpfile b "$tmp/distb.out" \
    '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
     <= 1e-9 * $a[0].iteration_time_s' > /dev/null; then
    ok "agents at --device-step best: T = in-process T with best ($(jq .iteration_time_s "$tmp/distb.out") s)"
else
    notok "agents at --device-step best: exit $rc, $(cat "$tmp/err"), $(jq -c .iteration_time_s "$tmp/localb.out" "$tmp/distb.out")"
fi
for p in $SPID1 $SPID2 $SPID3; do stop_agent $p; done
# --device-step takes what plan's does (tests/cli/plan.sh): a count from
# 1 to 1000000, auto or best; anything else is refused before the agent
# listens, with plan's message.  (timeout: an agent that took a bad step
# would serve on.)
for s in 0 -1 abc 2x 1000001 99999999999999999999 ""; do
    expect_bad "--device-step wants a number of devices from 1 to 1000000, auto or best, not '$s'" \
        timeout 60 $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --device-step "$s"
done
if start_agent sauto "$A/dc2.json" --device-step auto; then
    stop_agent $APID && ok "agent --device-step auto: serves, stops on SIGTERM" \
        || notok "agent --device-step auto: exit $? on SIGTERM: $(cat "$A/sauto.log")"
else
    notok "agent --device-step auto did not start: $(cat "$A/sauto.log")"
fi
# A mixed cluster: dc1 in this process, dc2 and dc3 agents.
cluster "" "$P2" "$P3" > "$tmp/mixed.json"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/mixed.json" \
    $TLS --format json > "$tmp/mixed.out" 2> "$tmp/err"
if [ $? -eq 0 ] && jq -e -n --slurpfile a "$tmp/local.out" --slurpfile b "$tmp/mixed.out" \
    '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
     <= 1e-9 * $a[0].iteration_time_s' > /dev/null; then
    ok "plan --distributed, one local DC and two agents: same T"
else
    notok "mixed: $(cat "$tmp/err") $(head -c 300 "$tmp/mixed.out")"
fi

# ---- 2. privacy ----
# The documented fields of each type, read from the table of
# docs/agent-protocol.md ("Test hooks"), so that the page and this test
# cannot part (the test had its own copy, which lacked keep, and the
# page's table was split in two by a note): {"type": [fields, "id",
# "type"], ...}, the fields sorted as jq's keys are; what is in
# brackets in the table describes a field.
awk '/^  \| type \| fields besides type and id \|$/ { on = 1; next }
     on && !/^  \|/ { exit }
     on && !/^  \|---/ { print }' "$srcdir/docs/agent-protocol.md" |
    awk -F'|' '{
        t = $2; f = $3
        while (match(f, /\([^()]*\)/))
            f = substr(f, 1, RSTART - 1) substr(f, RSTART + RLENGTH)
        gsub(/ /, "", t); gsub(/ /, "", f)
        if (f == "-") f = ""
        n = split(t, ty, ",")
        for (i = 1; i <= n; i++) print ty[i] "\t" f
    }' | jq -R -s 'split("\n") | map(select(length > 0) | split("\t"))
        | map({(.[0]): ((.[1] | split(",") | map(select(length > 0)))
                        + ["id", "type"] | sort)}) | add' > "$tmp/schema.json"
if jq -e 'length == 14 and .commit == ["assumed", "first", "id", "job",
          "last", "objective", "stages", "tag", "type"]' "$tmp/schema.json" > /dev/null; then
    ok "the record's fields of the 14 types, read from docs/agent-protocol.md"
else
    notok "the table of docs/agent-protocol.md (Test hooks) did not read: $(cat "$tmp/schema.json")"
fi
# check_records KIND FILE...: every line has its type's fields exactly;
# agents receive requests only, the coordinator answers only.
check_records() {
    kind=$1
    shift
    if [ "$kind" = agent ]; then
        types='["hello","job","step","backtrack","finish","commit","release","keep"]'
    else
        types='["hello-ok","ok","step-ok","backtrack-ok","finish-ok","error"]'
    fi
    cat "$@" | jq -e -s --slurpfile s "$tmp/schema.json" --argjson t "$types" \
        'length > 0 and all(.[]; . as $m | ($t | index($m.type)) != null
             and (keys == $s[0][$m.type]))' > /dev/null
}
if check_records agent "$A"/dc1.jsonl "$A"/dc2.jsonl "$A"/dc3.jsonl; then
    ok "privacy: the agents received only documented fields ($(cat "$A"/dc*.jsonl | wc -l) messages)"
else
    notok "privacy: an agent received an undocumented field or type"
fi
# The agents of sections 1a-1c (each commits and releases its plan).
if check_records agent "$tmp"/equiv/*.jsonl "$tmp"/equiv-tight/*.jsonl \
       "$tmp"/equiv-bound/*.jsonl; then
    ok "privacy: the agents of $SEEDS random and 4 tight instances received only documented fields"
else
    notok "privacy: an agent of the random or tight instances received an undocumented field"
fi
if check_records coordinator "$tmp/coordinator.jsonl"; then
    ok "privacy: the coordinator received only documented fields"
else
    notok "privacy: the coordinator received an undocumented field or type"
fi
# No private figure of any DC (internal bandwidth, device peak) appears in
# what another party received; the only strings are names and objectives.
leaks=$(cat "$A"/dc*.jsonl "$tmp/coordinator.jsonl" |
    jq -r '.. | numbers' | sort -u | grep -x -F "$(echo $PRIVATE_NUMBERS | tr ' ' '\n')")
strings=$(cat "$A"/dc*.jsonl "$tmp/coordinator.jsonl" |
    jq -r '[paths(strings) as $p | {k: ($p | last), v: getpath($p)}] | .[]
           | select(.k != "type" and .k != "text") | "\(.k)=\(.v)"' |
    sort -u | grep -v -x -E 'name=dc[123]|objective=(lex|time)')
if [ -z "$leaks" ] && [ -z "$strings" ]; then
    ok "privacy: no internal bandwidth or device peak in any record"
else
    notok "privacy: leaked numbers '$leaks', strings '$strings'"
fi

# ---- 3. faults ----
# expect_no_plan WANT CMD...: exit 3, stdout empty, one line on stderr
# containing WANT.  Which timer ended the plan (--timeout, the plan's
# budget) or that none did (a refusal at once) is said by WANT, not
# measured: under load (16 on 2 cores, the sanitizers) a "within 2 s"
# took 2.13 s.  A hang is cut after 300 s (timeout(1): exit 124).
expect_no_plan() {
    want=$1
    shift
    timeout -k 10 300 "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
       grep -F -q -- "$want" "$tmp/err"; then
        ok "no plan: $(cat "$tmp/err")"
    else
        notok "want exit 3 and '$want'; got exit $rc: $(cat "$tmp/err" "$tmp/out" | head -5)"
    fi
}

# An agent down: a port nobody listens on (an agent started and stopped).
start_agent gone "$A/dc2.json" && GONE=$APORT && stop_agent $APID
cluster "$P1" "$GONE" "$P3" > "$tmp/down.json"
expect_no_plan "no plan: agent dc2 unreachable: connect to 127.0.0.1 port $GONE: Connection refused" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/down.json" $TLS

# An agent slower than the timeout.
start_agent slow "$A/dc2.json" --delay-ms 3000 && SLOW=$APORT && SLOWPID=$APID
cluster "$P1" "$SLOW" "$P3" > "$tmp/slow.json"
expect_no_plan "no plan: agent dc2 unreachable: reading from 127.0.0.1 port $SLOW: no answer within 0.5 s (timed out)" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/slow.json" $TLS --timeout 0.5
stop_agent $SLOWPID

# A plan over its whole budget (--plan-timeout), each answer in time: an
# agent answering 0.04 s late, every request within --timeout 5, and a
# plan of many requests (HELLO, JOB, a STEP per chain and stage count
# ...) given 1 s in all: no plan, the budget named (with the agent it
# was waiting for then: dc2, or under the sanitizers a slow dc1 or dc3;
# or, should it end between two requests, the one not sent).
# With no budget the same plan is made.
start_agent late "$A/dc2.json" --delay-ms 40 && LATE=$APORT && LATEPID=$APID
cluster "$P1" "$LATE" "$P3" > "$tmp/late.json"
expect_no_plan "too slow: the plan's budget of 1 s ran out" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/late.json" $TLS --plan-timeout 1
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/late.json" \
    $TLS --format json > "$tmp/late.out" 2> "$tmp/err"
if [ $? -eq 0 ] && jq -e -n --slurpfile a "$tmp/late.out" --slurpfile b "$tmp/local.out" \
       '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs) <= 1e-9 * $b[0].iteration_time_s' > /dev/null; then
    ok "the same agent without --plan-timeout: the plan ($(jq -r .search_time_s "$tmp/late.out") s of search, over 1 s)"
else
    notok "no budget: $(cat "$tmp/err")"
fi
stop_agent $LATEPID
expect_bad "--plan-timeout wants seconds in [0.001, 86400]" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/late.json" $TLS --plan-timeout 0
expect_bad "--plan-timeout and --record go with --distributed" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/local.json" --plan-timeout 2

# An agent that dies while the coordinator waits for its answer (no
# close_notify): said as a close, not as OpenSSL's "unexpected eof".
# Killed once its --record has the HELLO, whose answer --delay-ms holds
# back: killed 1 s after the coordinator started, as it was until
# 2026-12-07 (later), under load it was killed before the coordinator
# connected ("Connection refused").  A kill with the HELLO unread in
# the socket is a reset, said as a close too (lr_agent_party.c).
start_agent dying "$A/dc2.json" --delay-ms 3000 --record "$A/dying.rec" \
    && DYING=$APORT && DYINGPID=$APID
cluster "$P1" "$DYING" "$P3" > "$tmp/dying.json"
(for i in $(seq 600); do
     grep -q '"type":"hello"' "$A/dying.rec" 2>/dev/null && break
     sleep 0.1
 done
 kill -9 $DYINGPID) &
KILLER=$!
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/dying.json" \
    $TLS --timeout 10 > "$tmp/out" 2> "$tmp/err"
rc=$?
wait $KILLER
wait $DYINGPID 2>/dev/null
if [ $rc -eq 3 ] && grep -q "agent dc2 unreachable: .*the agent closed the connection" "$tmp/err" \
   && ! grep -q "unexpected eof" "$tmp/err"; then
    ok "an agent killed mid-chain: $(cat "$tmp/err")"
else
    notok "an agent killed mid-chain: exit $rc, $(cat "$tmp/err")"
fi

# An agent killed (SIGKILL, as the OOM killer does) after it answered:
# it closes with no word, unlike an agent that makes room (its ERROR
# "closed: ..."), and the plan is not run again against it: it fails at
# once, saying the agent may have crashed or been killed.  Until
# 2026-12-07 (later) it was run again, twice, and failed as unreachable
# (connection refused).  Killed once its --record has the JOB, whose
# answer --delay-ms holds back.
start_agent killed "$A/dc2.json" --delay-ms 3000 --record "$A/killed.rec" \
    && KILLED=$APORT && KILLEDPID=$APID
cluster "$P1" "$KILLED" "$P3" > "$tmp/killed.json"
(for i in $(seq 300); do
     grep -q '"type":"job"' "$A/killed.rec" 2>/dev/null && break
     sleep 0.1
 done
 kill -9 $KILLEDPID) &
KILLER=$!
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/killed.json" \
    $TLS --timeout 30 > "$tmp/out" 2> "$tmp/err"
rc=$?
wait $KILLER
wait $KILLEDPID 2>/dev/null
if [ $rc -eq 3 ] && grep -q "no plan: agent dc2 failed: the agent at 127.0.0.1 port $KILLED closed without a word before answering job (reading from 127.0.0.1 port $KILLED: the agent closed the connection): it may have crashed or been killed (OOM?); see its log" "$tmp/err" \
   && ! grep -q "run again\|unreachable" "$tmp/err"; then
    ok "an agent killed after it answered: not run again: $(cat "$tmp/err")"
else
    notok "an agent killed after it answered: exit $rc, $(cat "$tmp/err")"
fi

# An agent that refuses the job with EINVAL (another version's limits):
# the agent's failure (exit 3), not a fault of the cluster file (exit 2),
# though EINVAL is also what an agent serving another DC gives.  Then an
# agent that says it serves dc7 where the cluster file has dc2: that is
# the file's fault.
if command -v python3 > /dev/null; then
    for dc in dc2 dc7; do
        rm -f "$tmp/fake.port"
        python3 "$srcdir/tests/cli/agent_fake.py" "$C" dc2 $dc 22 \
            "$tmp/fake.port" 2> "$tmp/fake.err" &
        FAKEPID=$!
        PIDS="$PIDS $FAKEPID"
        if ! await_file "$tmp/fake.port" $FAKEPID "$tmp/fake.err" "fake agent" 600; then
            notok "the fake agent did not start: $(cat "$tmp/fake.err")"
            continue
        fi
        FAKE=$(cat "$tmp/fake.port")
        cluster "$P1" "$FAKE" "$P3" > "$tmp/fake.json"
        if [ $dc = dc2 ]; then
            expect_no_plan "no plan: agent dc2 failed: 127.0.0.1 port $FAKE refused job: job: this agent refuses it" \
                $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/fake.json" $TLS
            # The DC's name stays inside TLS: no server name in clear.
            if [ -s "$tmp/fake.port.sni" ] && ! grep -qv '^None$' "$tmp/fake.port.sni"; then
                ok "the coordinator's ClientHello names no server (no SNI)"
            else
                notok "SNI in the ClientHello: $(cat "$tmp/fake.port.sni")"
            fi
        else
            $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/fake.json" \
                $TLS > "$tmp/out" 2> "$tmp/err"
            rc=$?
            if [ $rc -eq 2 ] && grep -q -F "$tmp/fake.json: the agent at 127.0.0.1 port $FAKE serves data center 'dc7', not 'dc2'" "$tmp/err"; then
                ok "an agent of another DC: exit 2, $(cat "$tmp/err")"
            else
                notok "an agent of another DC: exit $rc, $(cat "$tmp/err")"
            fi
        fi
        kill $FAKEPID 2>/dev/null
        wait $FAKEPID 2>/dev/null
    done

    # against_peer NAME WANT OPTIONS PEER-COMMAND...: PEER-COMMAND in the
    # background (it writes its port to $tmp/NAME.port), then a plan with
    # dc2 at that port and OPTIONS: no plan, saying WANT, in which PORT
    # stands for the peer's port.
    against_peer() {
        name=$1 want=$2 opts=$3
        shift 3
        rm -f "$tmp/$name.port"
        "$@" 2> "$tmp/$name.err" &
        peer=$!
        PIDS="$PIDS $peer"
        if await_file "$tmp/$name.port" $peer "$tmp/$name.err" "$name peer" 600; then
            port=$(cat "$tmp/$name.port")
            cluster "$P1" "$port" "$P3" > "$tmp/$name.json"
            expect_no_plan "$(echo "$want" | sed "s/PORT/$port/")" \
                $LIGHTRAIL plan --distributed --model gpt-1.9b \
                --cluster "$tmp/$name.json" $TLS $opts
        else
            notok "the $name peer did not start: $(cat "$tmp/$name.err")"
        fi
        kill $peer 2>/dev/null
        wait $peer 2>/dev/null
    }

    # An answer begun within the plan's budget and finished after it (its
    # length field at once, the rest 3 s later): the budget ran out, said
    # as such, not as --timeout's 5 s.
    against_peer fake \
        "no plan: agent dc2 too slow: the plan's budget of 1 s ran out waiting for 127.0.0.1 port PORT to answer hello" \
        "--timeout 5 --plan-timeout 1" \
        python3 "$srcdir/tests/cli/agent_fake.py" "$C" dc2 dc2 22 \
        "$tmp/fake.port" 3

    # Connecting keeps --timeout alone, whatever the plan's budget: a peer
    # that takes the TCP connection and never shakes hands fails the plan
    # as unreachable after --timeout (2 s).  It is the cause, named as
    # such: not dc1, connected at once but left none of the 0.5 s budget
    # for its HELLO ("too slow").
    against_peer mute \
        "no plan: agent dc2 unreachable: TLS handshake with 127.0.0.1 port PORT: no answer within 2 s (timed out)" \
        "--timeout 2 --plan-timeout 0.5" \
        python3 -c 'import os, socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)' "$tmp/mute.port"

    # A handshake that ends after the plan's budget, within --timeout:
    # dc2's agent behind a proxy that holds each of its chunks 1 s, the
    # budget 0.5 s.  No HELLO was sent, and the message says what was
    # waited for; dc2 is named, not dc1, connected at once but left no
    # time to send its HELLO.
    against_peer slowtls \
        "no plan: agent dc2 too slow: the plan's budget of 0.5 s ran out waiting for 127.0.0.1 port PORT to finish the TLS handshake, before any request was sent" \
        "--timeout 5 --plan-timeout 0.5" \
        sh -c 'exec python3 "$1" --no-stall --delay 1 "$2" "$3.count" > "$3"' \
        sh "$srcdir/tests/cli/stallproxy.py" "$P2" "$tmp/slowtls.port"
fi

# The coordinator with a certificate of another CA: the agent refuses it.
expect_no_plan "no plan: agent dc1 unreachable" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    --cert "$C/coordinator-other.pem" --key "$C/coordinator-other.key" --ca "$C/ca.pem"
if grep -q 'refused: client certificate: unable to get local issuer certificate' "$A/dc1.log"; then
    ok "agent log: a client certificate of another CA refused"
else
    notok "agent log lacks the refusal: $(tail -3 "$A/dc1.log")"
fi
# A certificate of the right CA but not a coordinator's name (another DC's).
expect_no_plan "no plan: agent dc1 unreachable" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    --cert "$C/dc2.pem" --key "$C/dc2.key" --ca "$C/ca.pem"
if grep -q 'refused: client certificate: hostname mismatch' "$A/dc1.log"; then
    ok "agent log: a certificate not named as a peer refused"
else
    notok "agent log lacks the name refusal: $(tail -3 "$A/dc1.log")"
fi

# An agent with a certificate of another CA: the coordinator refuses it.
agent_file dc1 8 123.457 0.4 32 23.456 dc1-other
mv "$A/dc1.json" "$A/dc1-other.json"
agent_file dc1 8 123.457 0.4 32 23.456
start_agent other "$A/dc1-other.json" && OTHER=$APORT && OTHERPID=$APID
cluster "$OTHER" "$P2" "$P3" > "$tmp/other.json"
expect_no_plan "the agent's certificate is refused" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/other.json" $TLS
stop_agent $OTHERPID
# The right CA but another name than the cluster file expects.
cluster "$P1" "$P2" "$P3" dc9 > "$tmp/name.json"
expect_no_plan "certificate is refused: hostname mismatch (expected name 'dc9')" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/name.json" $TLS

# A malformed frame closes that connection only.  One connection stays
# idle meanwhile (an s_client reading a FIFO we hold open); then a good
# plan.
mkfifo "$tmp/idle"
openssl s_client -connect 127.0.0.1:$P2 -cert "$C/coordinator.pem" \
    -key "$C/coordinator.key" -CAfile "$C/ca.pem" -tls1_3 -quiet \
    < "$tmp/idle" > /dev/null 2>&1 &
IDLE=$!
PIDS="$PIDS $IDLE"
exec 3> "$tmp/idle"
for frame in 'garbage, not a frame' '\000\000\000\014XXXX\000\001\000\001\000\000\000\001'; do
    (printf "$frame"; sleep 1) | timeout 10 openssl s_client -connect 127.0.0.1:$P2 \
        -cert "$C/coordinator.pem" -key "$C/coordinator.key" -CAfile "$C/ca.pem" \
        -tls1_3 -quiet > "$tmp/garbage.out" 2>/dev/null
    if grep -a -q 'closing' "$tmp/garbage.out"; then
        ok "malformed frame: the agent answered an error and closed"
    else
        notok "malformed frame: no error answer ($(od -c "$tmp/garbage.out" | head -3))"
    fi
done
if [ "$(grep -c -E 'malformed frame|frame length out of bounds' "$A/dc2.log")" -ge 2 ]; then
    ok "agent log: malformed frames logged"
else
    notok "agent log: $(tail -3 "$A/dc2.log")"
fi
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    $TLS --format json > "$tmp/again.out" 2> "$tmp/err"
if [ $? -eq 0 ] && kill -0 $IDLE 2>/dev/null &&
   [ "$(jq .iteration_time_s "$tmp/again.out")" = "$(jq .iteration_time_s "$tmp/dist.out")" ]; then
    ok "after malformed frames, with a connection idle, the agents still plan"
else
    notok "after malformed frames: $(cat "$tmp/err")"
fi
# (-quiet ignores the end of its input: stop it by its PID.)
kill $IDLE 2>/dev/null
exec 3>&-
wait $IDLE 2>/dev/null

# Strangers who never begin a TLS handshake: four from one address are
# kept AGENT_HANDSHAKE_S (10 s) and closed, a fifth is closed at once;
# the coordinators' slots stay theirs, and the agents still plan.
# "At once" is an ordering, not a time (a loaded machine may take
# seconds): the fifth is closed while the first four are still open.
if command -v python3 > /dev/null; then
    python3 - "$P2" > "$tmp/strangers.out" 2>&1 <<'PY'
import socket, sys, time
port = int(sys.argv[1])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
def closed_within(s, secs):
    s.settimeout(secs)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True
def still_open(s):
    s.setblocking(False)
    try:
        return s.recv(1) != b""
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False
    finally:
        s.setblocking(True)
fifth = closed_within(socks[4], 60)
print("fifth closed while the first four are open:",
      fifth and all(still_open(s) for s in socks[:4]))
t0 = time.time()
print("first four closed within 30 s:",
      all(closed_within(s, 30) for s in socks[:4]))
print("after at least 8 s:", time.time() - t0 >= 8)
PY
    if grep -q "fifth closed while the first four are open: True" "$tmp/strangers.out" \
       && grep -q "first four closed within 30 s: True" "$tmp/strangers.out" \
       && grep -q "after at least 8 s: True" "$tmp/strangers.out" \
       && grep -q "4 from this address" "$A/dc2.log" \
       && grep -q "no TLS handshake within 10 s" "$A/dc2.log"; then
        ok "strangers without a handshake: the fifth from one address refused, the others closed after 10 s"
    else
        notok "strangers without a handshake: $(cat "$tmp/strangers.out"; tail -3 "$A/dc2.log")"
    fi
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
        $TLS --format json > "$tmp/again.out" 2> "$tmp/err" \
        && ok "after the strangers, the agents still plan" \
        || notok "after the strangers: $(cat "$tmp/err")"
fi

# Strangers from five addresses, four each, holding every handshake
# slot (16) and coming back: a coordinator's connection takes the place
# of the oldest, and the agents plan while the strangers stay.
if command -v python3 > /dev/null; then
    python3 - "$P2" > "$tmp/crowd.out" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
held = []
for h in range(2, 7):
    for _ in range(4):
        s = socket.socket()
        s.bind(("127.0.0.%d" % h, 0))
        s.connect(("127.0.0.1", port))
        held.append(s)
print("connected", len(held), flush=True)
time.sleep(60)
PY
    CROWD=$!
    for i in $(seq 50); do
        grep -q connected "$tmp/crowd.out" && break
        sleep 0.1
    done
    if $LIGHTRAIL plan --distributed --model gpt-1.9b \
           --cluster "$tmp/remote.json" $TLS --format json \
           > "$tmp/crowd.plan" 2> "$tmp/err" \
       && grep -q "it makes room for 127.0.0.1:" "$A/dc2.log"; then
        ok "strangers from five addresses in every handshake slot: the coordinator takes the oldest's place and plans"
    else
        notok "strangers in every handshake slot: $(cat "$tmp/crowd.out" "$tmp/err"; tail -3 "$A/dc2.log")"
    fi
    kill $CROWD 2>/dev/null
    wait $CROWD 2>/dev/null
fi

# Commitments are each coordinator's own: a second coordinator the agent
# trusts can neither release the first's tag nor is refused that tag for
# itself (any authorised connection could release another's).
if command -v python3 > /dev/null && mk_cert ca coord2 coord2; then
    jq '.["lightrail-agent:agent"].tls["peer-name"] += ["coord2"]' \
        "$A/dc2.json" > "$A/dc2-two.json"
    start_agent two "$A/dc2-two.json" && TWO=$APORT && TWOPID=$APID
    if python3 "$srcdir/tests/cli/agent_tags.py" "$C" "$TWO" dc2 \
           coordinator coord2 > "$tmp/tags.out" 2>&1; then
        ok "commitments are each coordinator's own ($(grep -c '^ok: ' "$tmp/tags.out") steps)"
    else
        notok "commitments: $(grep -v '^ok: ' "$tmp/tags.out" | head -5)"
    fi
    # One coordinator cannot take every connection (64): 16 at most, the
    # others refused with the reason; the second coordinator is served.
    if python3 "$srcdir/tests/cli/agent_peers.py" "$C" "$TWO" dc2 \
           coordinator coord2 > "$tmp/peers.out" 2>&1 &&
       grep -q "refused: at most 16 connections of one coordinator" "$A/two.log"; then
        ok "one coordinator holds at most 16 connections, the other is served ($(grep -c '^ok: ' "$tmp/peers.out") steps)"
    else
        notok "connections of one coordinator: $(grep -v '^ok: ' "$tmp/peers.out" | head -5)"
    fi
    stop_agent $TWOPID
fi
# The same with two certificates that share their subject CN (a service
# name, say) and are told apart by their DNS SANs, the names the agent
# admits them by: the commitments are still each one's own.  (They were
# keyed by the CN: either could release, or KEEP away, the other's.)
if command -v python3 > /dev/null && mk_cert ca site-a lightraild site-a &&
   mk_cert ca site-b lightraild site-b; then
    jq '.["lightrail-agent:agent"].tls["peer-name"] = ["site-a", "site-b"]' \
        "$A/dc2.json" > "$A/dc2-sites.json"
    start_agent sites "$A/dc2-sites.json" && SITES=$APORT && SITESPID=$APID
    if python3 "$srcdir/tests/cli/agent_tags.py" "$C" "$SITES" dc2 \
           site-a site-b > "$tmp/sites.out" 2>&1; then
        ok "commitments are each coordinator's own, one CN for two SANs ($(grep -c '^ok: ' "$tmp/sites.out") steps)"
    else
        notok "one CN, two SANs: $(grep -v '^ok: ' "$tmp/sites.out" | head -5)"
    fi
    stop_agent $SITESPID
fi

# Reservations outlive the agent (its --state-dir's reservations.json,
# lightrail-agent YANG JSON): a tag committed before a restart holds its
# devices after it (the next JOB plans over none of the 4, so a second
# tag has no layout, and its RELEASE answers OK, then ENOENT); a file that does not validate, or that reserves more
# devices than the inventory has, stops the agent at start, saying why.
if command -v python3 > /dev/null; then
    # refuses_start MESSAGE WHAT: the agent on keep.state exits 2 at
    # start, MESSAGE (a grep pattern) on its stderr.
    refuses_start() {
        timeout 20 $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
            --state-dir "$A/keep.state" > /dev/null 2> "$tmp/err"
        rc=$?
        if [ $rc -eq 2 ] && grep -q "$1" "$tmp/err"; then
            ok "$2: $(head -1 "$tmp/err")"
        else
            notok "$2: exit $rc: $(head -3 "$tmp/err")"
        fi
    }
    start_agent keep "$A/dc2.json" && KP=$APORT && KPID=$APID
    # A second agent on the same directory would overwrite the first's
    # reservations with its own: it stops, the first's agent.port stays.
    timeout 20 $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --state-dir "$A/keep.state" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "keep.state is in use by another agent" "$tmp/err" \
       && [ "$(cat "$A/keep.state/agent.port")" = "$KP" ]; then
        ok "a second agent on a --state-dir in use stops: $(head -1 "$tmp/err")"
    else
        notok "two agents on one --state-dir: exit $rc: $(head -3 "$tmp/err")"
    fi
    keep_py() {   # keep_py PORT STEP: one side of the restart
        PYTHONPATH="$srcdir/tests/cli" python3 -c '
import sys
from agentwire import ERROR, FINISH_OK, OK, RELEASE, Checks, ask, commit, \
    connect, job, text
certs, port, step = sys.argv[1:4]
checks = Checks()
s = connect(certs, port, "dc2", "coordinator")
checks.expect("JOB", job(s), OK)
if step == "before":
    checks.expect("t1 takes every device", commit(s, "t1"), FINISH_OK)
else:
    checks.expect("t2 finds none free", commit(s, "t2"), ERROR,
                  says="no feasible layout")
    checks.expect("t1 released", ask(s, RELEASE, text("t1")), OK)
    checks.expect("t1 gone", ask(s, RELEASE, text("t1")), ERROR)
sys.exit(1 if checks.failed else 0)
' "$C" "$1" "$2"
    }
    # Traced (when strace may attach): the rename over reservations.json
    # is followed by an fsync of the directory, which makes it durable.
    STRACE=
    if command -v strace > /dev/null; then
        strace -f -y -qq -p $KPID -e trace=fsync,rename -o "$tmp/keep.strace" \
            2> /dev/null &
        STRACE=$!
        sleep 1   # attached, or failed: either way the COMMIT may come
    fi
    keep_py "$KP" before > "$tmp/keep.out" 2>&1
    if [ -n "$STRACE" ]; then
        kill $STRACE 2>/dev/null
        wait $STRACE
        if ! grep -q 'rename(".*reservations.json.tmp"' "$tmp/keep.strace" 2>/dev/null; then
            echo "skip: strace cannot attach to the agent"
        elif sed -n '/rename(".*reservations.json.tmp"/,$p' "$tmp/keep.strace" \
             | grep -q 'fsync([0-9]*<[^>]*/keep.state>)'; then
            ok "reservations.json renamed, then its directory synced"
        else
            notok "no fsync of the state directory after the rename: $(cat "$tmp/keep.strace")"
        fi
    fi
    stop_agent $KPID
    RES=$A/keep.state/reservations.json
    valid=no
    ! command -v yanglint > /dev/null ||
        yanglint -f json "$srcdir/yang/lightrail-agent.yang" "$RES" > /dev/null 2>&1 &&
        valid=yes
    start_agent keep "$A/dc2.json" && KP=$APORT && KPID=$APID
    if keep_py "$KP" after >> "$tmp/keep.out" 2>&1 \
       && grep -q "restored 1 reservation(s) from .*reservations.json: 0 of 4 devices free" "$A/keep.log" \
       && grep -q "job 1: 4 layers, .*(0 of 4 " "$A/keep.log" \
       && [ $valid = yes ]; then
        ok "a reservation outlives the agent's restart ($(grep -c '^ok: ' "$tmp/keep.out") steps; the file validates)"
    else
        notok "reservations across a restart (file valid: $valid): $(grep -v '^ok: ' "$tmp/keep.out" | head -5; tail -2 "$A/keep.log")"
    fi
    stop_agent $KPID
    printf '{"lightrail-agent:reservations": {"reservation": [{"owner": "coordinator", "tag": "t1", "devices": 0}]}}\n' > "$RES"
    refuses_start "reservations.json: .*devices" "a reservations file that does not validate stops the agent"
    printf '{"lightrail-agent:reservations": {"reservation": [{"owner": "coordinator", "tag": "t1", "devices": 3}, {"owner": "coord2", "tag": "t1", "devices": 2}]}}\n' > "$RES"
    refuses_start "5 devices reserved, more than the 4 of the inventory" "a reservations file over the inventory stops the agent"
    expect_bad "5 devices reserved, more than the 4 of the inventory" \
        $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --state-dir "$A/keep.state" --check
    # A --state-dir the agent would not start on (missing) is refused by
    # --check too: it read as one holding no reservation.
    expect_bad "--state-dir $A/no-such.state: No such file or directory" \
        $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --state-dir "$A/no-such.state" --check
    # 4,294 entries of 1,000,000 and one of 967,298: 2^32 + 2 devices,
    # which a sum in 32 bits took for 2 (and an int's overflow before).
    python3 -c '
import json, sys
r = [{"owner": "c", "tag": "t%d" % i, "devices": 1000000} for i in range(4294)]
r.append({"owner": "c", "tag": "x", "devices": 967298})
json.dump({"lightrail-agent:reservations": {"reservation": r}}, sys.stdout)
' > "$RES"
    refuses_start "4294967298 devices reserved, more than the 4 of the inventory" "a reservations file of 2^32 + 2 devices stops the agent"
    # A file the agent cannot look at may hold reservations: it stops
    # (here a symlink loop, ELOOP, once taken for no file).
    rm -f "$RES"
    ln -s reservations.json "$RES"
    refuses_start "reservations.json: Too many levels of symbolic links" "a reservations.json the agent cannot read stops it"
    # A coordinator admitted by its DNS name whose CN, 40 e-acute, is 80
    # bytes: its COMMIT is saved under the name it was admitted by, and
    # the log names it by its CN cut at a whole character (its first 63
    # bytes, cut inside one, once made every COMMIT of it fail to be
    # saved: "UTF-8 error").
    rm -f "$RES"
    LONGCN=$(printf '\303\251%.0s' $(seq 40))
    if mk_cert ca longcn "$LONGCN" coordinator &&
       start_agent keep "$A/dc2.json"; then
        KPID=$APID
        PYTHONPATH="$srcdir/tests/cli" python3 -c '
import sys
from agentwire import FINISH_OK, OK, Checks, commit, connect, job
checks = Checks()
s = connect(sys.argv[1], sys.argv[2], "dc2", "longcn")
checks.expect("JOB", job(s), OK)
checks.expect("commit", commit(s, "t3"), FINISH_OK)
sys.exit(1 if checks.failed else 0)
' "$C" "$APORT" > "$tmp/longcn.out" 2>&1
        rc=$?
        stop_agent $KPID
        owner=$(jq -r '."lightrail-agent:reservations".reservation[0].owner' "$RES" 2>/dev/null)
        if [ $rc -eq 0 ] && [ "$owner" = coordinator ] &&
           grep -q "($(printf '\303\251%.0s' $(seq 31))): 't3' committed" "$A/keep.log"; then
            ok "a coordinator whose CN is 80 bytes of UTF-8 commits, owner its DNS name, logged by its CN's first 31 characters"
        else
            notok "a long UTF-8 CN: exit $rc, owner '$owner': $(grep -v '^ok: ' "$tmp/longcn.out" | head -3)"
        fi
    fi
fi

# lightrail reservations: what a stopped agent's --state-dir holds, and
# the way to free a gone coordinator's reservations; refused while an
# agent runs on the directory (it would write its own over the change).
mkdir -p "$A/resv.state"
printf '{"lightrail-agent:reservations": {"reservation": [{"owner": "gone", "tag": "j1", "devices": 1}, {"owner": "gone", "tag": "j2", "devices": 1}, {"owner": "coordinator", "tag": "j3", "devices": 2}]}}\n' > "$A/resv.state/reservations.json"
$LIGHTRAIL reservations --state-dir "$A/resv.state" > "$tmp/out" 2>&1
if [ $? -eq 0 ] && grep -q "^gone  *j2  *1$" "$tmp/out" \
   && grep -q "^3 reservation(s), 4 device(s)$" "$tmp/out"; then
    ok "reservations lists a state directory's reservations"
else
    notok "reservations: $(cat "$tmp/out")"
fi
$LIGHTRAIL reservations --state-dir "$A/resv.state" --format json > "$tmp/out" 2>&1
[ "$(jq -c '[."lightrail-agent:reservations".reservation[].tag]' "$tmp/out" 2>/dev/null)" = '["j1","j2","j3"]' ] \
    && ok "reservations --format json: the file's YANG JSON" \
    || notok "reservations --format json: $(head -3 "$tmp/out")"
if start_agent resv "$A/dc2.json"; then
    # --check beside the running agent: no lock taken, no port bound.
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --state-dir "$A/resv.state" --check > "$tmp/check" 2> "$tmp/check.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "dc dc2, 4 devices, 1 allowed peer(s), certificate, key and CA loaded; 3 reservation(s) holding 4 device(s)$" "$tmp/check" \
       && [ "$(cat "$A/resv.state/agent.pid")" = "$APID" ]; then
        ok "agent --check beside the running agent: $(cat "$tmp/check")"
    else
        notok "agent --check: exit $rc: $(cat "$tmp/check" "$tmp/check.err")"
    fi
    # Listing reads the file while the agent runs; releasing does not.
    $LIGHTRAIL reservations --state-dir "$A/resv.state" > "$tmp/list" 2>&1 \
        && grep -q "^3 reservation(s), 4 device(s)$" "$tmp/list" \
        && ok "reservations lists while the agent runs" \
        || notok "reservations beside a running agent: $(cat "$tmp/list")"
    $LIGHTRAIL reservations --state-dir "$A/resv.state" --release gone > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "in use by a running agent" "$tmp/err" \
       && [ "$(jq '."lightrail-agent:reservations".reservation | length' "$A/resv.state/reservations.json")" = 3 ]; then
        ok "reservations --release refused while the agent runs, the file as it was: $(cat "$tmp/err")"
    else
        notok "reservations --release with the agent running: exit $rc: $(cat "$tmp/err")"
    fi
    stop_agent $APID
fi
cp "$A/resv.state/reservations.json" "$tmp/resv.before"
expect_bad "holds no tag 'j3' of 'gone'" \
    $LIGHTRAIL reservations --state-dir "$A/resv.state" --release gone --tag j3
cmp -s "$tmp/resv.before" "$A/resv.state/reservations.json" \
    && ok "a release of no reservation leaves the file as it was" \
    || notok "a refused release changed reservations.json"
# A release whose file cannot be written (a directory where its
# temporary file goes) says so, exit 1, and says nothing released: the
# file still holds it.  (It printed "released gone j1" first.)
mkdir "$A/resv.state/reservations.json.tmp"
$LIGHTRAIL reservations --state-dir "$A/resv.state" --release gone --tag j1 > "$tmp/out" 2> "$tmp/err"
rc=$?
rmdir "$A/resv.state/reservations.json.tmp"
if [ $rc -eq 1 ] && grep -q "cannot write reservations.json.tmp: Is a directory (in .*/resv.state)" "$tmp/err" \
   && ! grep -q "released" "$tmp/out" \
   && cmp -s "$tmp/resv.before" "$A/resv.state/reservations.json"; then
    ok "a release whose file cannot be written says so, not 'released', and leaves the file"
else
    notok "a release whose file cannot be written: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
expect_bad "No such file or directory: give the agent's --state-dir" \
    $LIGHTRAIL reservations --state-dir "$A/no-such.state"
expect_bad "--tag TAG goes with --release OWNER" \
    $LIGHTRAIL reservations --state-dir "$A/resv.state" --tag j3
expect_bad "--format wants 'text' or 'json'" \
    $LIGHTRAIL reservations --state-dir "$A/resv.state" --format xml
# A file that does not validate: listed or released, refused with the
# schema's reason, the file as it was.
mkdir -p "$A/badres.state"
printf '{"lightrail-agent:reservations": {"reservation": [{"owner": "gone", "tag": "j1", "devices": 0}]}}\n' \
    > "$A/badres.state/reservations.json"
cp "$A/badres.state/reservations.json" "$tmp/badres.before"
expect_bad "out of the allowed range" \
    $LIGHTRAIL reservations --state-dir "$A/badres.state"
expect_bad "out of the allowed range" \
    $LIGHTRAIL reservations --state-dir "$A/badres.state" --release gone
cmp -s "$tmp/badres.before" "$A/badres.state/reservations.json" \
    && ok "a release refused on a file that does not validate leaves it" \
    || notok "a refused release changed an invalid reservations.json"
$LIGHTRAIL reservations --state-dir "$A/resv.state" --release gone --tag j1 > "$tmp/out" 2>&1 &&
$LIGHTRAIL reservations --state-dir "$A/resv.state" --release gone >> "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^released gone j1: 1 device(s)$" "$tmp/out" \
   && grep -q "^released gone j2: 1 device(s)$" "$tmp/out" \
   && [ "$(jq -c '."lightrail-agent:reservations".reservation' "$A/resv.state/reservations.json")" = '[{"owner":"coordinator","tag":"j3","devices":2}]' ] \
   && start_agent resv "$A/dc2.json" && stop_agent $APID \
   && grep -q "restored 1 reservation(s) from .*: 2 of 4 devices free" "$A/resv.log"; then
    ok "reservations --release frees a gone coordinator's reservations, one tag or all; the agent restores the rest"
else
    notok "reservations --release: exit $rc: $(cat "$tmp/out"; tail -2 "$A/resv.log")"
fi

# The file a release writes keeps the owner, group and mode of the one
# it replaces: run as root on the directory of an agent of another user,
# it left a file of root's, 0600, and that agent would not start on it
# ("reservations.json: Permission denied").  Root only.
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$A/resvown.state"
    printf '{"lightrail-agent:reservations": {"reservation": [{"owner": "gone", "tag": "j1", "devices": 1}, {"owner": "coordinator", "tag": "j3", "devices": 2}]}}\n' > "$A/resvown.state/reservations.json"
    chown 65534:65534 "$A/resvown.state/reservations.json"
    chmod 640 "$A/resvown.state/reservations.json"
    $LIGHTRAIL reservations --state-dir "$A/resvown.state" --release gone > "$tmp/out" 2>&1
    rc=$?
    got=$(stat -c '%u:%g %a' "$A/resvown.state/reservations.json")
    if [ $rc -eq 0 ] && [ "$got" = "65534:65534 640" ] \
       && [ "$(jq -c '[."lightrail-agent:reservations".reservation[].tag]' "$A/resvown.state/reservations.json")" = '["j3"]' ]; then
        ok "reservations --release as root keeps the file's owner and mode ($got)"
    else
        notok "reservations --release as root: exit $rc, the file's owner and mode $got, not 65534:65534 640: $(cat "$tmp/out")"
    fi
fi

# A save of the reservations holds the request that made it, not the
# agent: with each save held 4 s (--delay-save-ms, a slow disk) another
# connection is served from its handshake to its third answer while a
# COMMIT's save runs, and the COMMIT and RELEASE are answered once the
# file says so; a COMMIT whose save fails is refused and undone, a
# RELEASE whose save fails frees the devices (tests/cli/agent_saves.py:
# ordering, not time).
if command -v python3 > /dev/null; then
    start_agent slowdisk "$A/dc2.json" --delay-save-ms 4000 \
        && SLOW=$APORT && SLOWPID=$APID
    if python3 "$srcdir/tests/cli/agent_saves.py" "$C" "$SLOW" dc2 \
           coordinator "$A/slowdisk.state" slow > "$tmp/saves.out" 2>&1; then
        ok "a slow save holds its request, not the agent ($(grep -c '^ok: ' "$tmp/saves.out") steps)"
    else
        notok "--delay-save-ms: $(grep -v '^ok: ' "$tmp/saves.out" | head -5; tail -2 "$A/slowdisk.log")"
    fi
    stop_agent $SLOWPID
    start_agent baddisk "$A/dc2.json" && BADD=$APORT && BADPID=$APID
    if python3 "$srcdir/tests/cli/agent_saves.py" "$C" "$BADD" dc2 \
           coordinator "$A/baddisk.state" fail > "$tmp/saves.out" 2>&1 \
       && grep -q "'f1' not committed, its reservation not saved: 4 device(s) free again" "$A/baddisk.log" \
       && grep -q "release 'f1': reservations not saved: cannot write reservations.json.tmp: Is a directory (in .*/baddisk.state)" "$A/baddisk.log"; then
        ok "a COMMIT whose save fails is refused and undone, a RELEASE's frees the devices ($(grep -c '^ok: ' "$tmp/saves.out") steps)"
    else
        notok "failed saves: $(grep -v "^ok: " "$tmp/saves.out" | head -5; grep -i "not saved\|not committed" "$A/baddisk.log")"
    fi
    stop_agent $BADPID
fi
# A save that cannot be queued (no memory: gdb makes lr_agent_store_save()
# answer ENOMEM for the third) fails, and is not written at once on the
# main thread, where the older saves queued would land after it: a
# COMMIT answered, then gone from the file (agent_saves.py unqueued).
if command -v python3 > /dev/null && command -v gdb > /dev/null; then
    mkdir -p "$A/unqueued.state"
    cat > "$tmp/unqueued.gdb" <<'EOF'
set pagination off
set confirm off
handle SIGPIPE nostop noprint pass
handle SIGTERM nostop noprint pass
break lr_agent_store_save
commands 1
silent
set $n = $n + 1
if $n == 3
  printf "lr_agent_store_save: ENOMEM\n"
  return (int) 12
end
continue
end
set $n = 0
run
EOF
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        gdb -q -batch -x "$tmp/unqueued.gdb" --args $LIGHTRAIL agent \
        --config "$A/dc2.json" --listen 127.0.0.1:0 --delay-save-ms 4000 \
        --state-dir "$A/unqueued.state" > "$tmp/unqueued.gdbout" \
        2> "$A/unqueued.log" &
    GDBPID=$!
    PIDS="$PIDS $GDBPID"
    if await_file "$A/unqueued.state/agent.port" $GDBPID "$A/unqueued.log" \
           "agent under gdb" 600 > "$tmp/unqueued.await"; then
        python3 "$srcdir/tests/cli/agent_saves.py" "$C" \
            "$(cat "$A/unqueued.state/agent.port")" dc2 coordinator \
            "$A/unqueued.state" unqueued > "$tmp/saves.out" 2>&1
        rc=$?
        kill "$(cat "$A/unqueued.state/agent.pid")"
        wait $GDBPID
        if ! grep -q "lr_agent_store_save: ENOMEM" "$tmp/unqueued.gdbout"; then
            echo "skip: gdb cannot make a save fail to be queued"
        elif [ $rc -eq 0 ]; then
            ok "a save that cannot be queued fails: the COMMIT refused, the file never holds less than the agent ($(grep -c '^ok: ' "$tmp/saves.out") steps)"
        else
            notok "a save that cannot be queued: $(grep -v '^ok: ' "$tmp/saves.out" | head -5; grep -i "not saved\|committed" "$A/unqueued.log")"
        fi
    else
        kill $GDBPID 2>/dev/null
        wait $GDBPID
        echo "skip: the agent does not run under gdb: $(head -3 "$tmp/unqueued.await")"
    fi
fi
expect_bad "--delay-save-ms wants milliseconds" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --delay-save-ms x

# One request may not hold the agent: a STEP or FINISH whose local DP
# would pass --max-step-cells is refused before it runs (a JOB of 4,096
# layers and a STEP of 1,024 entries once held an agent 102 s), the
# value that would serve it in the agent's log alone (it tells N), and
# the job's largest request served (550 cells: the STEP over 0..9) when
# it ends, to size the bound by.
if command -v python3 > /dev/null; then
    start_agent budget "$A/dc2.json" --max-step-cells 1e5 \
        && BUD=$APORT && BUDPID=$APID
    if python3 "$srcdir/tests/cli/agent_budget.py" "$C" "$BUD" dc2 \
           coordinator > "$tmp/budget.out" 2>&1 \
       && grep -q "step refused: 4.52e+05 cells of local DP, over --max-step-cells 1e+05: to serve it, run the agent with --max-step-cells 4.6e+05 or more" "$A/budget.log" \
       && grep -q "finish refused: 4.51e+05 cells .* run the agent with --max-step-cells 4.6e+05 or more" "$A/budget.log" \
       && grep -q "sent .*over this agent's bound of 1e+05" "$A/budget.log" \
       && ! grep "sent " "$A/budget.log" | grep -q "4\.5[12]e+05\|4\.6e+05" \
       && grep -q "job 1: ended, its DP caches held .* bytes, its largest request 550 cells of local DP" "$A/budget.log"; then
        ok "a request over --max-step-cells is refused before it runs ($(grep -c '^ok: ' "$tmp/budget.out") steps)"
    else
        notok "--max-step-cells: $(grep -v '^ok: ' "$tmp/budget.out" | head -5; tail -2 "$A/budget.log")"
    fi
    stop_agent $BUDPID
fi
expect_bad "--max-step-cells wants a number of cells" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --max-step-cells -1

# A frame begun must be whole --frame-timeout seconds after its first
# byte: a coordinator sending one a byte at a time is refused and closed
# (each byte restarted the 600 s idle timeout: it held its connection
# for ever); a pause between whole frames is no frame's.  A connection
# with no whole frame for --idle-timeout is closed, however many bytes
# of a TLS record it sends.
if command -v python3 > /dev/null; then
    start_agent trickle "$A/dc2.json" --frame-timeout 2 --idle-timeout 5 \
        && TRK=$APORT && TRKPID=$APID
    if python3 "$srcdir/tests/cli/agent_trickle.py" "$C" "$TRK" dc2 \
           coordinator > "$tmp/trickle.out" 2>&1 \
       && grep -q "refused: a frame not whole 2 s after its first byte .*connection closed" "$A/trickle.log" \
       && grep -q "no whole frame for 5 s: closed" "$A/trickle.log"; then
        ok "a frame, or its TLS record, trickled is closed after --frame-timeout, --idle-timeout ($(grep -c '^ok: ' "$tmp/trickle.out") steps)"
    else
        notok "--frame-timeout: $(grep -v '^ok: ' "$tmp/trickle.out" | head -5; tail -2 "$A/trickle.log")"
    fi
    stop_agent $TRKPID
fi
# --idle-timeout counts the coordinator's silence, not the agent's own
# time to answer: a HELLO answered after --delay-ms 4000 and asked
# again 2.5 s later is answered (before, the 5 s counted from the first
# HELLO's frame closed the connection 1 s after its answer).
if command -v python3 > /dev/null; then
    start_agent idle "$A/dc2.json" --idle-timeout 5 --delay-ms 4000 \
        && IDL=$APORT && IDLPID=$APID
    if python3 "$srcdir/tests/cli/agent_idle.py" "$C" "$IDL" dc2 \
           coordinator > "$tmp/idle.out" 2>&1 \
       && ! grep -q "no whole frame" "$A/idle.log"; then
        ok "--idle-timeout counts from the answer, not the request ($(grep -c '^ok: ' "$tmp/idle.out") steps)"
    else
        notok "--idle-timeout during the agent's own answer: $(grep -v '^ok: ' "$tmp/idle.out" | head -5; tail -2 "$A/idle.log")"
    fi
    stop_agent $IDLPID
fi
# One connection's DP caches are bounded: a STEP that would compute
# rows while they hold --max-cache-bytes is refused (they grew with
# every STEP of a new window or assumed count, kept until the job
# ended); the count is in the log, not in the answer.
if command -v python3 > /dev/null; then
    start_agent cache "$A/dc2.json" --max-cache-bytes 2e5 \
        && CCH=$APORT && CCHPID=$APID
    if python3 "$srcdir/tests/cli/agent_cache.py" "$C" "$CCH" dc2 \
           coordinator > "$tmp/cache.out" 2>&1 \
       && grep -q "step refused: its DP caches hold [0-9.e+]* bytes, at --max-cache-bytes 2e+05" "$A/cache.log" \
       && ! grep "sent .*\"error\"" "$A/cache.log" | grep -q "hold"; then
        ok "a STEP over --max-cache-bytes is refused, the job again served ($(grep -c '^ok: ' "$tmp/cache.out") steps)"
    else
        notok "--max-cache-bytes: $(grep -v '^ok: ' "$tmp/cache.out" | head -5; grep refused "$A/cache.log" | tail -2)"
    fi
    stop_agent $CCHPID
fi
# The protocol revision (2026-12-07): a plain HELLO (a coordinator from
# before) is answered as before, HELLO_OK naming no revision and STEP_OK
# carrying no predecessor; a HELLO of revision 2 gets them.
if command -v python3 > /dev/null; then
    start_agent revision "$A/dc2.json" && REV=$APORT && REVPID=$APID
    if python3 "$srcdir/tests/cli/agent_revision.py" "$C" "$REV" dc2 \
           coordinator > "$tmp/revision.out" 2>&1; then
        ok "revision: a plain HELLO served as before, revision 2 with predecessors ($(grep -c '^ok: ' "$tmp/revision.out") checks)"
    else
        notok "revision: $(grep -v '^ok: ' "$tmp/revision.out" | head -5)"
    fi
    stop_agent $REVPID
    # The agent decides (2026-12-07): with predecessors false in its
    # file it speaks revision 1 to a coordinator of revision 2, sends no
    # predecessor and says so when it starts.
    jq '."lightrail-agent:agent".predecessors = false' "$A/dc2.json"         > "$A/dc2-noprev.json"
    start_agent noprev "$A/dc2-noprev.json" && NPV=$APORT && NPVPID=$APID
    if python3 "$srcdir/tests/cli/agent_revision.py" "$C" "$NPV" dc2            coordinator no-predecessors > "$tmp/noprev.out" 2>&1        && grep -q "serving on port $NPV: .*, protocol revision 1 (predecessors false: none in STEP_OK)$" "$A/noprev.log"        && grep -q "serving on port $REV: .*, protocol revision 2 (predecessors in STEP_OK)$" "$A/revision.log"; then
        ok "predecessors false: revision 2 answered 1, no predecessor sent, said at start ($(grep -c '^ok: ' "$tmp/noprev.out") checks)"
    else
        notok "predecessors false: $(grep -v '^ok: ' "$tmp/noprev.out" | head -5; grep 'serving on' "$A/noprev.log" "$A/revision.log")"
    fi
    # SIGHUP reads predecessors again (2026-12-07; until then a change
    # took a restart): true, then a STEP_OK carries them on a new
    # connection; false again, and a connection of revision 2 is closed
    # at its next request (tests/cli/agent_hup.py).
    if python3 "$srcdir/tests/cli/agent_hup.py" "$C" "$NPV" dc2 coordinator \
           $NPVPID "$A/dc2-noprev.json" "$A/noprev.log" \
           > "$tmp/hup.out" 2>&1; then
        ok "SIGHUP reads predecessors again, both ways ($(grep -c '^ok: ' "$tmp/hup.out") checks)"
    else
        notok "SIGHUP and predecessors: $(grep -v '^ok: ' "$tmp/hup.out" | head -5)"
    fi
    stop_agent $NPVPID
fi
expect_bad "--max-cache-bytes wants a number of bytes" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --max-cache-bytes -1
expect_bad "--frame-timeout wants seconds in 1..3600" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --frame-timeout 0
expect_bad "--idle-timeout wants seconds in 1..86400" \
    $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 --idle-timeout 0

# A long request holds one DP thread, not the agent: with --threads 2 a
# STEP over 256 layers of 1,024 devices (1.73e10 cells: seconds of DP at
# -O2) runs while a second connection is served from its handshake to
# its fifth answer (tests/cli/agent_threads.py: ordering, not time).
# Under the sanitizers, 10 to 30 times slower at the DP, 128 layers of
# 512 devices (1.1e9 cells, a sixteenth: as long there): the checks are
# orderings, which need each long STEP to outlast a few short requests,
# not minutes of DP (the whole 1.73e10 made this step most of the
# script's time under ASan).
if command -v python3 > /dev/null; then
    if lr_sanitized; then BIGL=128 BIGD=512; else BIGL=256 BIGD=1024; fi
    agent_file big $BIGD 125 0.40 32 300 dc2
    start_agent big "$A/big.json" --max-step-cells 0 --threads 2 \
        && BIG=$APORT && BIGPID=$APID
    if python3 "$srcdir/tests/cli/agent_threads.py" "$C" "$BIG" dc2 \
           coordinator $BIGL > "$tmp/threads.out" 2>&1 \
       && grep -q "2 DP thread(s)" "$A/big.log"; then
        ok "a long STEP holds one DP thread: another connection served meanwhile ($(grep -c '^ok: ' "$tmp/threads.out") steps)"
    else
        notok "--threads: $(grep '^FAIL: ' "$tmp/threads.out" | head -5; grep -v '^ok: \|^FAIL: ' "$tmp/threads.out" | tail -4; tail -2 "$A/big.log")"
    fi
    stop_agent $BIGPID
    # SIGTERM while a STEP runs and two more wait for the one DP thread:
    # the agent tells the two queued at once and never runs them (or
    # one, should the first have ended meanwhile, or three, should the
    # thread, woken for the first, not have had a CPU yet: see
    # tests/cli/agent_term.sh, step 3), ends the one running,
    # drops its answer, and exits 0 (with nothing leaked, under the
    # sanitizers).
    start_agent bigterm "$A/big.json" --max-step-cells 0 --threads 1 \
        --record "$A/bigterm.jsonl" && BIG=$APORT && BIGPID=$APID
    PYTHONPATH="$srcdir/tests/cli" python3 -c '
import struct, sys
from agentwire import OK, STEP, connect, frame, job
socks = []
for i in range(3):
    s = connect(sys.argv[1], sys.argv[2], "dc2", "coordinator")
    s.settimeout(60)
    n = int(sys.argv[3])
    assert job(s, n)[0] == OK
    s.sendall(frame(STEP, 1, struct.pack(">IBHHiiddI", 1, 0, 1, 0, 0, n - 1, 0.0, 0.0, 0)))
    socks.append(s)
for s in socks:
    try:
        s.recv(1)   # until the agent closes
    except OSError:
        pass
' "$C" "$BIG" $BIGL > "$tmp/term.out" 2>&1 &
    PY=$!
    n=0   # the three STEPs decoded (recorded): one running, two queued
    until [ "$(grep -c '"type":"step"' "$A/bigterm.jsonl" 2>/dev/null)" = 3 ] \
          || [ $n -ge 300 ]; do
        sleep 0.1; n=$((n + 1))
    done
    stop_agent $BIGPID
    st=$?
    wait $PY
    if [ $st -eq 0 ] && grep -q "signal 15: stopping (SIGTERM): \([123]\) connection(s) told so (\1 with its request queued, not run)" "$A/bigterm.log" &&
       grep -q "stopped: \([123]\) request(s) never run: \1 taken back at the signal (their connections told so), 0 dropped unrun at the exit$" "$A/bigterm.log"; then
        ok "SIGTERM with a STEP running and two queued: exit 0, $(grep -o '[123] taken back at the signal' "$A/bigterm.log")"
    else
        notok "SIGTERM during STEPs: exit $st: $(tail -3 "$A/bigterm.log")"
    fi
fi
for s in 0 65 x ""; do
    expect_bad "--threads wants a number from 1 to 64, not '$s'" \
        timeout 60 $LIGHTRAIL agent --config "$A/dc2.json" --listen 127.0.0.1:0 \
        --threads "$s"
done

# Bad input: no TLS files for remote DCs; a bad agent file.
expect_bad "give the coordinator's --cert, --key and --ca" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json"
printf '{"lightrail-agent:agent": {"dc": "x"}}' > "$tmp/bad-agent.json"
expect_bad "bad-agent.json: /lightrail-agent:agent" \
    $LIGHTRAIL agent --config "$tmp/bad-agent.json" --listen 127.0.0.1:0
# A key that belongs to another certificate, on either end (the TLS set-up
# both share, lr_agent_tls_ctx): said with both files, nothing started.
sed 's|certs/dc1.key|certs/dc2.key|' "$A/dc1.json" > "$A/dc1-wrongkey.json"
$LIGHTRAIL agent --config "$A/dc1-wrongkey.json" --listen 127.0.0.1:0 \
    --state-dir "$tmp/wrongkey.state" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "TLS key '.*dc2.key' does not match certificate '.*dc1.pem'" "$tmp/err" \
   && [ ! -e "$tmp/wrongkey.state/agent.port" ]; then
    ok "an agent whose key is another certificate's: exit $rc, $(cat "$tmp/err")"
else
    notok "agent with a wrong key: exit $rc, $(cat "$tmp/err")"
fi
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    --cert "$C/coordinator.pem" --key "$C/dc1.key" --ca "$C/ca.pem" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] \
   && grep -q "TLS key '.*dc1.key' does not match certificate '.*coordinator.pem'" "$tmp/err"; then
    ok "a coordinator whose key is another certificate's: exit $rc, $(cat "$tmp/err")"
else
    notok "coordinator with a wrong key: exit $rc, $(cat "$tmp/err" "$tmp/out")"
fi
# TLS files that are a folder, no PEM or PEM of the other kind: the file
# and what is wrong with it, where OpenSSL said 'PEM lib' or 'no start
# line' (lr_tls_file_reason); --check refuses a leaf given as the CA.
mkdir -p "$tmp/tlsdir"
echo "a certificate, not PEM" > "$tmp/notpem.txt"
tls_bad() {   # tls_bad FILE WHAT SED: --check on dc1's file edited by SED
    sed "$3" "$A/dc1.json" > "$A/dc1-bad.json"
    expect_bad "dc1-bad.json: $2" \
        $LIGHTRAIL agent --config "$A/dc1-bad.json" --listen 127.0.0.1:0 --check
}
tls_bad dir "TLS certificate '$tmp/tlsdir': Is a directory (want a PEM certificate chain)" \
    "s|\.\./certs/dc1.pem|$tmp/tlsdir|"
tls_bad notpem "TLS certificate '$tmp/notpem.txt': not a PEM certificate: no -----BEGIN line (want a PEM certificate chain)" \
    "s|\.\./certs/dc1.pem|$tmp/notpem.txt|"
tls_bad keydir "TLS key '$tmp/tlsdir': Is a directory (want an unencrypted PEM private key)" \
    "s|\.\./certs/dc1.key|$tmp/tlsdir|"
tls_bad certkey "TLS key '$A/../certs/dc1.pem': not a PEM private key: its PEM blocks are 'CERTIFICATE'" \
    "s|\.\./certs/dc1.key|../certs/dc1.pem|"
tls_bad cadir "TLS CA '$tmp/tlsdir': Is a directory (want PEM certificates)" \
    "s|\.\./certs/ca.pem|$tmp/tlsdir|"
tls_bad canotpem "TLS CA '$tmp/notpem.txt': not a PEM certificate: no -----BEGIN line (want PEM certificates)" \
    "s|\.\./certs/ca.pem|$tmp/notpem.txt|"
tls_bad leaf "TLS CA '$A/../certs/dc2.pem': certificate 1 (/CN=dc2) is no CA's (its basicConstraints lack CA:TRUE): give the certificate of the CA that signed the coordinators' certificates, not a leaf's" \
    "s|\.\./certs/ca.pem|../certs/dc2.pem|"
# The coordinator's end (lr_agent_party, lightraild's too): its CA.
expect_bad "TLS CA '$tmp/tlsdir': Is a directory (want PEM certificates)" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/remote.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$tmp/tlsdir"

# SIGTERM: each agent exits 0 and removes its state files.
for p in "dc1 $PID1" "dc2 $PID2" "dc3 $PID3"; do
    set -- $p
    stop_agent $2
    rc=$?
    if [ $rc -eq 0 ] && [ ! -e "$A/$1.state/agent.port" ] && [ ! -e "$A/$1.state/agent.pid" ]; then
        ok "agent $1 stopped cleanly on SIGTERM"
    else
        notok "agent $1: exit $rc after SIGTERM, state: $(ls "$A/$1.state")"
    fi
done

lr_summary
