#!/bin/sh
# Algorithm ppo in lightraild (docs/ppo.md "In the controller"): with
# ppo-policy naming a missing, then a corrupt file, the daemon starts,
# logs one line saying why the policy is unusable, and a ppo intent is
# planned by CDynP with that reason in its planner-note; with the shipped
# metro policy it logs that the policy is in use and the intent is placed
# by the policy; a policy trained with --known-work reads the intent's
# iterations (and ppo-mean-job-s); with ppo-rollout the policy's rollout
# decides (the start log and the notes say so), off the event loop and
# one decision at a time (intents at once, and a stop while they wait),
# SIGHUP loads the file again (a bad file is not taken), and a
# ppo-rollout without its load is refused at start.  The state's
# ppo-policy shows the policy in use (usable or why not, its checksum,
# what it was trained for), and the operation reload-ppo-policy (and
# `lightrail policy reload`) loads it again as SIGHUP does, queued behind
# the ppo intents before it; its refusal's reason is whole past 768
# bytes (a long path), a truncated file's "checksum mismatch" too.  Ends
# with lightrail-check.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
. "$srcdir/tests/cli/devlib.sh"     # daemon_exits
POLICY=$(cd "$srcdir" && pwd)/examples/policies/metro.pol

# use_policy PATH: the test's configuration with ppo-policy = PATH.
use_policy() {
    jq --arg p "$1" '."lightrail-config:lightraild"."ppo-policy" = $p' \
        "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
}

# ppo_intent NAME MODEL MIN MAX > file
ppo_intent() {
    printf '{"lightrail-job:job":[{"name":"%s","model":"%s","batch":32,"microbatch":1,"gpus":{"min":%s,"max":%s},"algorithm":"ppo"}]}\n' "$1" "$2" "$3" "$4"
}

await_log() {   # await_log REGEX: up to 10 s for a line of the log
    for _ in $(seq 100); do
        grep -q "$1" "$D/log" && return 0
        sleep 0.1
    done
    return 1
}

note_of() {   # the planner-note in $tmp/body
    jq -r '."lightrail-job:job"[0].state."planner-note" // ""' "$tmp/body"
}
STATE=/restconf/data/lightrail-state:state
RELOAD=/restconf/operations/lightrail-state:reload-ppo-policy
get_state() {   # the state into $tmp/state
    api GET $STATE
    cp "$tmp/body" "$tmp/state"
}
pp() {   # pp LEAF: a leaf of the state's ppo-policy, "" when absent
    jq -r --arg k "$1" '."lightrail-state:state"."ppo-policy" // {}
        | if has($k) then .[$k] | tostring else "" end' "$tmp/state"
}
trailer() {   # trailer FILE: a policy file's checksum, its last 8 bytes
    tail -c 8 "$1" | od -An -tx1 | tr -d ' \n'
}
policy_cli() {   # policy_cli ACTION [OPTIONS]: lightrail policy, RC set
    RC=0
    $LIGHTRAIL policy "$@" --server "$URL" --cacert "$D/tls/cert.pem" \
        --token $TOKEN > "$tmp/out" 2> "$tmp/err" || RC=$?
}
# The note of an intent without iterations under a known-work policy.
NOTE_NO_ITERATIONS="ppo: the ppo policy reads each job's length: give iterations in the intent; planned by cdynp"

# 0. No ppo-policy: the state has none, and there is nothing to reload.
: > "$D/log"
start_daemon || { notok "lightraild did not start without a policy"; lr_summary; exit 1; }
get_state
if [ "$STATUS" = 200 ] && jq -e '."lightrail-state:state" | has("counters") and (has("ppo-policy") | not)' "$tmp/state" > /dev/null; then
    ok "no ppo-policy: the state shows none"
else
    notok "no ppo-policy: state $STATUS $(cat "$tmp/state")"
fi
api GET /metrics
[ "$STATUS" = 200 ] && ! grep -q "lightrail_ppo_policy" "$tmp/body" \
    && ok "no ppo-policy: no lightrail_ppo_policy_* in /metrics" \
    || notok "no ppo-policy, /metrics: $STATUS $(grep ppo_policy "$tmp/body")"
api POST $RELOAD
if [ "$STATUS" = 409 ] && jq -e '."ietf-restconf:errors".error[0]."error-message" | test("no ppo-policy in the configuration: nothing to reload; name a policy file")' "$tmp/body" > /dev/null; then
    ok "no ppo-policy: reload-ppo-policy is 409, saying what to do"
else
    notok "no ppo-policy, reload: $STATUS $(cat "$tmp/body")"
fi
policy_cli show
[ $RC = 4 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "no ppo-policy configured" "$tmp/err" \
    && ok "no ppo-policy: lightrail policy show exits 4: $(cat "$tmp/err")" \
    || notok "no ppo-policy, policy show: exit $RC, $(cat "$tmp/err")"
policy_cli reload
[ $RC = 3 ] && grep -q "409: no ppo-policy in the configuration" "$tmp/err" \
    && ok "no ppo-policy: lightrail policy reload exits 3" \
    || notok "no ppo-policy, policy reload: exit $RC, $(cat "$tmp/err")"
stop_daemon

# 1. A missing file.
use_policy policies/missing.pol
: > "$D/log"
start_daemon || { notok "lightraild did not start with a missing policy"; lr_summary; exit 1; }
if grep -q "ppo policy unusable.*$D/policies/missing.pol" "$D/log"; then
    ok "missing policy: the start log says so and names the file"
else
    notok "missing policy: log is $(cat "$D/log")"
fi
ppo_intent m1 gpt-1.9b 8 8 > "$tmp/m1.json"
api POST $JOBS "$tmp/m1.json"
note=$(note_of)
if [ "$STATUS" = 201 ] && jq -e '."lightrail-job:job"[0].state.phase == "active"' "$tmp/body" > /dev/null \
   && jq -e '."lightrail-job:job"[0].algorithm == "ppo"' "$tmp/body" > /dev/null \
   && echo "$note" | grep -q '^ppo: .*missing.pol.*; planned by cdynp$'; then
    ok "missing policy: a ppo intent is admitted by cdynp, the note says why"
else
    notok "missing policy: $STATUS $(cat "$tmp/body")"
fi
api GET "$JOBS/job=m1"
[ "$(note_of)" = "$note" ] && ok "the note is in the job's state on GET" \
    || notok "GET m1: $(cat "$tmp/body")"
api GET /metrics
grep -qx "lightrail_ppo_policy_usable 0" "$tmp/body" \
    && ok "missing policy: /metrics lightrail_ppo_policy_usable 0" \
    || notok "missing policy, /metrics: $(grep ppo_policy "$tmp/body")"
get_state
if [ "$(pp usable)" = false ] && [ "$(pp reloads)" = 0 ] && [ -z "$(pp checksum)" ] \
   && [ -z "$(pp loaded)" ] && [ "ppo: $(pp reason); planned by cdynp" = "$note" ] \
   && pp file | grep -q "/policies/missing.pol$"; then
    ok "missing policy: the state's ppo-policy is unusable with the note's reason, no checksum, no load time"
else
    notok "missing policy, state: $(jq -c '."lightrail-state:state"."ppo-policy"' "$tmp/state")"
fi
# A reload that finds the file still missing: its log line says it was
# a reload (not the start's line again) and why, and the API says 500.
: > "$D/log"
api POST $RELOAD
if [ "$STATUS" = 500 ] \
   && await_log "ppo policy .*missing.pol reloaded, unusable: intents for ppo will be planned by cdynp: .*missing.pol: No such file" \
   && ! grep -q "^.*ppo policy unusable, " "$D/log"; then
    ok "missing policy, reloaded: the log says reloaded, unusable, and why"
else
    notok "missing policy, reload: $STATUS; log: $(cat "$D/log")"
fi
stop_daemon

# 2. A corrupt file (truncated).
mkdir -p "$D/policies"
head -c 5000 "$POLICY" > "$D/policies/bad.pol"
use_policy policies/bad.pol
: > "$D/log"
start_daemon || { notok "lightraild did not start with a corrupt policy"; lr_summary; exit 1; }
grep -q "ppo policy unusable.*bad.pol" "$D/log" \
    && ok "corrupt policy: the start log says so" \
    || notok "corrupt policy: log is $(cat "$D/log")"
ppo_intent c1 bert-large 4 4 > "$tmp/c1.json"
api POST $JOBS "$tmp/c1.json"
if [ "$STATUS" = 201 ] && note_of | grep -q '^ppo: .*bad.pol.*; planned by cdynp$'; then
    ok "corrupt policy: a ppo intent falls back with the reason"
else
    notok "corrupt policy: $STATUS $(cat "$tmp/body")"
fi
stop_daemon

# 3. The shipped policy for this network.
use_policy "$POLICY"
: > "$D/log"
start_daemon || { notok "lightraild did not start with the metro policy"; lr_summary; exit 1; }
grep -q "ppo policy .*metro.pol loaded" "$D/log" \
    && ok "metro policy: the start log says it is in use" \
    || notok "metro policy: log is $(cat "$D/log")"
ppo_intent p1 llama2-7b 16 16 > "$tmp/p1.json"
api POST $JOBS "$tmp/p1.json"
if [ "$STATUS" = 201 ] && jq -e '."lightrail-job:job"[0].state.phase == "active"' "$tmp/body" > /dev/null \
   && note_of | grep -q '^ppo: candidate [0-9]*, '; then
    ok "metro policy: a ppo intent is placed by the policy ($(note_of))"
else
    notok "metro policy: $STATUS $(cat "$tmp/body")"
fi
ppo_intent p2 gpt-1.9b 1 3 > "$tmp/p2.json"
api POST $JOBS "$tmp/p2.json"
if [ "$STATUS" = 201 ] && note_of | grep -q 'no GPU demand of the policy (4,8,16) lies in \[1, 3\]; planned by cdynp'; then
    ok "metro policy: an intent of no class falls back with the reason"
else
    notok "metro policy, unmapped: $STATUS $(cat "$tmp/body")"
fi
api GET /metrics
if [ "$STATUS" = 200 ] \
   && grep -qx 'lightrail_ppo_decisions_total{outcome="candidate"} 1' "$tmp/body" \
   && grep -qx 'lightrail_ppo_decisions_total{outcome="cdynp"} 1' "$tmp/body" \
   && grep -qx 'lightrail_ppo_decisions_total{outcome="refused"} 0' "$tmp/body" \
   && grep -qx 'lightrail_ppo_policy_usable 1' "$tmp/body" \
   && grep -qx 'lightrail_ppo_policy_reloads_total 0' "$tmp/body"; then
    ok "/metrics: one ppo intent on the policy's candidate, one planned by cdynp; the policy usable"
else
    notok "/metrics: $STATUS $(grep ppo "$tmp/body")"
fi
get_state
if [ "$(pp usable)" = true ] && [ "$(pp checksum)" = "$(trailer "$POLICY")" ] \
   && [ "$(pp holding)" = exp ] && [ "$(pp known-work)" = false ] \
   && [ "$(pp triples)" = false ] && [ "$(pp observe-load)" = false ] \
   && [ "$(pp rollout)" = false ] && [ "$(pp topology)" = metro ] \
   && [ -z "$(pp reason)" ] && pp command | grep -q "^lightrail train " \
   && pp loaded | grep -q '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T'; then
    ok "metro policy: the state's ppo-policy is usable, with the file's checksum $(pp checksum)"
else
    notok "metro policy, state: $(jq -c '."lightrail-state:state"."ppo-policy"' "$tmp/state")"
fi
policy_cli show
if [ $RC = 0 ] && grep -q "^checksum    $(trailer "$POLICY")$" "$tmp/out" \
   && grep -q "^usable      yes: intents for ppo are decided by it$" "$tmp/out"; then
    ok "lightrail policy show: usable, with its checksum"
else
    notok "lightrail policy show: exit $RC, $(cat "$tmp/out" "$tmp/err")"
fi
policy_cli show --format json
[ $RC = 0 ] && jq -e '."lightrail-state:ppo-policy".usable == true' "$tmp/out" > /dev/null \
    && ok "lightrail policy show --format json: the server's ppo-policy" \
    || notok "policy show --format json: exit $RC, $(cat "$tmp/out" "$tmp/err")"
# The same file on disk, without the daemon: the checksum in use.
if $LIGHTRAIL policy show "$POLICY" > "$tmp/out" 2> "$tmp/err" \
   && grep -qx "checksum    $(pp checksum)" "$tmp/out" \
   && grep -q "^trained     on metro, holding exp; refusal no" "$tmp/out" \
   && grep -q "^agent       [0-9]* observations, [0-9]* actions" "$tmp/out"; then
    ok "lightrail policy show FILE: the file's header, the checksum lightraild shows"
else
    notok "policy show FILE: $(cat "$tmp/out" "$tmp/err")"
fi
expect_bad "bad.pol: checksum mismatch" $LIGHTRAIL policy show "$D/policies/bad.pol"
# A policy with pipelines over three DCs: `policy show` says so, as the
# state does (and `policy show FILE`).
use_policy "$(cd "$srcdir" && pwd)/examples/policies/metro-triples.pol"
stop_daemon
start_daemon || { notok "lightraild did not start with metro-triples.pol"; lr_summary; exit 1; }
policy_cli show
[ $RC = 0 ] && grep -qx "also        pipelines over three DCs" "$tmp/out" \
    && ok "lightrail policy show: a triples policy says so" \
    || notok "policy show, triples: exit $RC, $(cat "$tmp/out" "$tmp/err")"
stop_daemon
use_policy "$POLICY"
start_daemon || { notok "lightraild did not start with the metro policy again"; lr_summary; exit 1; }
expect_bad "a file's header is text only" $LIGHTRAIL policy show "$POLICY" --format json
# A new inventory that renames a DC makes the policy unusable, and the
# old one usable again: each said in the log (the gauge alerts on it).
# Every job goes first: a network is replaced only when none holds it.
api GET $JOBS
for j in $(jq -r '."lightrail-job:jobs".job[]?.name' "$tmp/body"); do
    api DELETE "$JOBS/job=$j"
done
COMPUTE=/restconf/data/lightrail-compute:compute
sed 's/"dc3"/"dc9"/g' "$srcdir/examples/clusters/metro.json" > "$tmp/c9.json"
: > "$D/log"
api PUT $COMPUTE "$tmp/c9.json"
put=$STATUS
get_state
if [ "$put" = 204 ] && [ "$(pp usable)" = false ] \
   && await_log "ppo policy .*metro.pol checked against the new inventory, unusable: intents for ppo will be planned by cdynp: .*DCs dc1,dc2,dc9: train a policy"; then
    ok "PUT of an inventory the policy does not fit: logged, unusable"
else
    notok "PUT, renamed DC: $put, $(pp usable); log: $(cat "$D/log")"
fi
: > "$D/log"
api PUT $COMPUTE "$srcdir/examples/clusters/metro.json"
put=$STATUS
get_state
if [ "$put" = 204 ] && [ "$(pp usable)" = true ] \
   && await_log "ppo policy .*metro.pol checked against the new inventory: intents for ppo use it"; then
    ok "PUT of the inventory back: logged, usable again"
else
    notok "PUT, back: $put, $(pp usable); log: $(cat "$D/log")"
fi
stop_daemon

# 4. A policy trained with known work (a short run: its choices do not
# matter here, only that it reads the intent's iterations): loaded, a
# ppo intent with iterations is placed with its work in the note, one
# without falls back saying what to do; ppo-mean-job-s halved doubles
# the work of the same intent.
if $LIGHTRAIL train --topology "$srcdir/examples/topologies/metro.json" \
       --cluster "$srcdir/examples/clusters/metro.json" --holding work \
       --known-work --steps 1024 --rollout 256 --hidden 16 --quiet --seed 3 \
       --out "$D/policies/kw.pol" 2> "$tmp/err"; then
    use_policy policies/kw.pol
    : > "$D/log"
    start_daemon || { notok "lightraild did not start with a known-work policy"; lr_summary; exit 1; }
    grep -q "ppo policy .*kw.pol loaded" "$D/log" \
        && ok "known-work policy: the start log says it is in use" \
        || notok "known-work policy: log is $(cat "$D/log")"
    ppo_intent k1 gpt-1.9b 8 8 | jq -c '."lightrail-job:job"[0].iterations = "200000"' > "$tmp/k1.json"
    api POST $JOBS "$tmp/k1.json"
    w1=$(note_of | sed -n 's/.*, work \([0-9.]*\) x mean$/\1/p')
    if [ "$STATUS" = 201 ] && note_of | grep -q '^ppo: candidate [0-9]*, ' && [ -n "$w1" ] \
       && jq -e '."lightrail-job:job"[0].iterations == "200000"' "$tmp/body" > /dev/null; then
        ok "known-work policy: placed with its work ($(note_of))"
    else
        notok "known-work policy: $STATUS $(cat "$tmp/body")"
    fi
    ppo_intent k2 gpt-1.9b 8 8 > "$tmp/k2.json"
    api POST $JOBS "$tmp/k2.json"
    if [ "$STATUS" = 201 ] && [ "$(note_of)" = "$NOTE_NO_ITERATIONS" ]; then
        ok "known-work policy: an intent without iterations falls back, saying what to do"
    else
        notok "known-work policy, no iterations: $STATUS $(cat "$tmp/body")"
    fi
    api DELETE "$JOBS/job=k1"
    stop_daemon
    jq '."lightrail-config:lightraild"."ppo-mean-job-s" = "1800"' \
        "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
    start_daemon || { notok "lightraild did not start with ppo-mean-job-s"; lr_summary; exit 1; }
    sed 's/"k1"/"k3"/' "$tmp/k1.json" > "$tmp/k3.json"
    api POST $JOBS "$tmp/k3.json"
    w3=$(note_of | sed -n 's/.*, work \([0-9.]*\) x mean$/\1/p')
    if [ "$STATUS" = 201 ] && [ -n "$w3" ] && [ -n "$w1" ] \
       && awk -v a="$w1" -v b="$w3" 'BEGIN { d = b - 2 * a; exit !(d < 0.02 && d > -0.02) }'; then
        ok "ppo-mean-job-s 1800: the same intent's work doubles ($w1 -> $w3)"
    else
        notok "ppo-mean-job-s: work $w1 then $w3: $STATUS $(cat "$tmp/body")"
    fi
    stop_daemon

    # 4b. SIGHUP loads the file again (a policy retrained in place): a
    # truncated file is not taken, the metro policy goes on deciding; the
    # known-work file is, and then reads the intent's iterations.
    cp "$POLICY" "$D/policies/live.pol"
    use_policy policies/live.pol
    : > "$D/log"
    start_daemon || { notok "lightraild did not start with live.pol"; lr_summary; exit 1; }
    head -c 5000 "$POLICY" > "$D/policies/live.pol"
    kill -HUP $PID
    await_log "ppo policy .*live.pol not reloaded: .*the policy loaded before stays in use"
    ppo_intent s1 bert-large 4 4 > "$tmp/s1.json"
    api POST $JOBS "$tmp/s1.json"
    if [ "$STATUS" = 201 ] && grep -q "live.pol not reloaded: .*stays in use" "$D/log" \
       && note_of | grep -q '^ppo: candidate [0-9]*, '; then
        ok "SIGHUP with a truncated file: not reloaded, the log says why, the policy decides on"
    else
        notok "SIGHUP, truncated: $STATUS $(note_of); log: $(tail -n 2 "$D/log")"
    fi
    cp "$D/policies/kw.pol" "$D/policies/live.pol"
    kill -HUP $PID
    await_log "ppo policy .*live.pol reloaded: intents for ppo use it"
    ppo_intent s2 gpt-1.9b 8 8 > "$tmp/s2.json"
    api POST $JOBS "$tmp/s2.json"
    if [ "$STATUS" = 201 ] && [ "$(note_of)" = "$NOTE_NO_ITERATIONS" ]; then
        ok "SIGHUP with a new file: reloaded, the new policy decides"
    else
        notok "SIGHUP, new file: $STATUS $(note_of); log: $(tail -n 2 "$D/log")"
    fi
    get_state
    [ "$(pp checksum)" = "$(trailer "$D/policies/kw.pol")" ] && [ "$(pp reloads)" = 1 ] \
       && [ "$(pp known-work)" = true ] \
        && ok "SIGHUP: the state shows the new file (known work, reloads 1)" \
        || notok "SIGHUP, state: $(jq -c '."lightrail-state:state"."ppo-policy"' "$tmp/state")"

    # 4c. The same through the API: reload-ppo-policy with a body is 400;
    # with a truncated file 500, saying why, and nothing changes; with
    # the metro file again (lightrail policy reload) 204 and the state
    # shows it.
    # Bodies the operation refuses (it has no input), each 400 with its tag.
    printf '{"lightrail-state:input":{"force":true}}\n' > "$tmp/in1.json"
    printf '{"lightrail-state:input":\n' > "$tmp/in2.json"
    printf '{"lightrail-job:input":{}}\n' > "$tmp/in3.json"
    for c in "in1 invalid-value force" "in2 malformed-message ." \
             "in3 invalid-value is ..lightrail-job:input.:"; do
        set -- $c
        f=$1 tag=$2; shift 2
        api POST $RELOAD "$tmp/$f.json"
        if [ "$STATUS" = 400 ] \
           && jq -e --arg t "$tag" '."ietf-restconf:errors".error[0]."error-tag" == $t' "$tmp/body" > /dev/null \
           && jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/body" | grep -q "$*"; then
            ok "reload-ppo-policy, body $(head -c 40 "$tmp/$f.json"): 400 $tag"
        else
            notok "reload-ppo-policy, body $(cat "$tmp/$f.json"): $STATUS $(cat "$tmp/body")"
        fi
    done
    api POST $RELOAD "" ""
    [ "$STATUS" = 401 ] && ok "reload-ppo-policy without a token: 401" \
        || notok "reload-ppo-policy without a token: $STATUS $(cat "$tmp/body")"
    head -c 5000 "$POLICY" > "$D/policies/live.pol"
    : > "$D/log"
    api POST $RELOAD
    msg=$(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/body")
    cp "$tmp/body" "$tmp/reload.body"
    get_state
    if [ "$STATUS" = 200 ] && echo "$msg" | grep -q "live.pol: checksum mismatch.*the policy loaded before stays in use" \
       && [ "$(pp checksum)" = "$(trailer "$D/policies/kw.pol")" ] && [ "$(pp reloads)" = 1 ] \
       && [ "$(pp usable)" = true ] && grep -q "ppo policy .*live.pol not reloaded: " "$D/log"; then
        ok "reload-ppo-policy, truncated file: $(jq -r '.["ietf-restconf:errors"].error[0]."error-tag"' "$tmp/reload.body"), the policy in use unchanged, logged"
    else
        notok "reload-ppo-policy, truncated: $msg; state $(jq -c '."lightrail-state:state"."ppo-policy"' "$tmp/state")"
    fi
    ppo_intent s3 gpt-1.9b 8 8 > "$tmp/s3.json"
    api POST $JOBS "$tmp/s3.json"
    [ "$STATUS" = 201 ] && [ "$(note_of)" = "$NOTE_NO_ITERATIONS" ] \
        && ok "reload-ppo-policy refused: the known-work policy decides on" \
        || notok "after a refused reload: $STATUS $(note_of)"
    policy_cli reload
    [ $RC = 1 ] && grep -q "500: .*stays in use" "$tmp/err" \
        && ok "lightrail policy reload, truncated file: exit 1, the server's reason" \
        || notok "policy reload, truncated: exit $RC, $(cat "$tmp/err")"
    cp "$POLICY" "$D/policies/live.pol"
    policy_cli reload
    get_state
    if [ $RC = 0 ] && grep -q "^checksum    $(trailer "$POLICY")$" "$tmp/out" \
       && [ "$(pp reloads)" = 2 ] && [ "$(pp known-work)" = false ] \
       && grep -q "ppo policy .*live.pol reloaded: intents for ppo use it" "$D/log"; then
        ok "lightrail policy reload: the metro file again, shown and logged (reloads 2)"
        api GET /metrics
        grep -qx "lightrail_ppo_policy_reloads_total 2" "$tmp/body" \
            && ok "/metrics: lightrail_ppo_policy_reloads_total 2" \
            || notok "/metrics after two reloads: $(grep ppo_policy "$tmp/body")"
    else
        notok "policy reload: exit $RC, $(cat "$tmp/out" "$tmp/err"); log: $(tail -n 2 "$D/log")"
    fi
    api DELETE "$JOBS/job=s3"
    api DELETE "$JOBS/job=s1"
    api DELETE "$JOBS/job=s2"
    stop_daemon
else
    notok "train --known-work: $(cat "$tmp/err")"
fi
# 4d. A policy named by a path of 1,021 bytes (through a directory of
# 247, four times; the file-path type allows 1,023), more than 1,024
# once joined to the directory of the configuration file, replaced by
# one trained for another network:
# reload-ppo-policy is 500 with the whole reason, the path, what the
# file was trained for and what to do, then that the policy loaded
# before stays in use (nb_restconf took it into 768 bytes until
# 2026-12-07 and cut the end; lr_ctl_ppo held the path in 1024 bytes
# until then too, and its reason named the path cut, unmarked).
L=$(printf '%0247d' 0 | tr 0 l)
mkdir -p "$D/policies/$L"
cp "$POLICY" "$D/policies/long.pol"
LONG="policies/$L/../$L/../$L/../$L/../long.pol"
use_policy "$LONG"
: > "$D/log"
start_daemon || { notok "lightraild did not start with a long policy path: $(cat "$D/log")"; lr_summary; exit 1; }
cp "$(dirname "$POLICY")/nsfnet6-equal.pol" "$D/policies/long.pol"
api POST $RELOAD
msg=$(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/body")
if [ "$STATUS" = 500 ] && [ ${#msg} -gt 1100 ] \
   && echo "$msg" | grep -F -q "$LONG: trained for " \
   && echo "$msg" | grep -q ": train a policy for this network (lightrail train); the policy loaded before stays in use$"; then
    ok "reload-ppo-policy, a long path to a policy for another network: 500, the reason whole (${#msg} bytes)"
else
    notok "reload-ppo-policy, long path: $STATUS, ${#msg} bytes, ending $(echo "$msg" | tail -c 160)"
fi
# The same path to a truncated file: the loader's message (path, then
# "checksum mismatch" and what to do) whole in the reason.  lr_ctl_ppo
# took it into 512 bytes until 2026-12-07: the reason ended in the path.
head -c 5000 "$POLICY" > "$D/policies/long.pol"
api POST $RELOAD
msg=$(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/body")
if [ "$STATUS" = 500 ] \
   && echo "$msg" | grep -q "/long.pol: checksum mismatch: the file is truncated or corrupt; copy or train it again; fix ppo-policy in the configuration or train the policy again (lightrail train); the policy loaded before stays in use$"; then
    ok "reload-ppo-policy, a long path to a truncated file: 500, checksum mismatch in the reason (${#msg} bytes)"
else
    notok "reload-ppo-policy, long path, truncated: $STATUS, ${#msg} bytes, ending $(echo "$msg" | tail -c 160)"
fi
stop_daemon
# 5. The metro policy decided by its rollout (small futures: a test,
# not a tuning).
use_policy "$POLICY"
jq '."lightrail-config:lightraild"."ppo-rollout" = {"load": "2.5", "samples": 4, "screen": 0, "horizon": 5, "top": 2, "min-gpus": 0}' \
    "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
: > "$D/log"
start_daemon || { notok "lightraild did not start with ppo-rollout: $(cat "$D/log")"; lr_summary; exit 1; }
grep -q "ppo policy .*metro.pol loaded: intents for ppo use its rollout (4 futures, horizon 5, load 2.5 E)" "$D/log" \
    && ok "ppo-rollout: the start log says the rollout decides" \
    || notok "ppo-rollout: log is $(cat "$D/log")"
# The earlier sections' jobs go first: the futures need room.
api GET $JOBS
for j in $(jq -r '."lightrail-job:jobs".job[]?.name' "$tmp/body"); do
    api DELETE "$JOBS/job=$j"
done
deliberated=0
for i in 1 2 3; do
    ppo_intent "q$i" llama2-7b 16 16 > "$tmp/q.json"
    api POST $JOBS "$tmp/q.json"
    if [ "$STATUS" != 201 ] || ! note_of | grep -q '^ppo: \(candidate [0-9]*, \|refused the job\)'; then
        notok "ppo-rollout, q$i: $STATUS $(cat "$tmp/body")"
    fi
    note_of | grep -q '; the rollout \(kept\|left\) the policy.s choice$' \
        && deliberated=$((deliberated + 1))
done
[ $deliberated -ge 1 ] \
    && ok "ppo-rollout: $deliberated of 3 ppo intents decided after futures (last: $(note_of))" \
    || notok "ppo-rollout: no note says the rollout ran futures; last: $(cat "$tmp/body")"
for i in 1 2 3; do api DELETE "$JOBS/job=q$i"; done

# post_bg NAME FILE: POST FILE in the background; the status goes to
# $tmp/NAME.status, the body to $tmp/NAME.body, curl's trace to
# $tmp/NAME.trace, the PID to BG.
BG=
post_bg() {
    rm -f "$tmp/$1.trace"
    curl -s -o "$tmp/$1.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        --trace-ascii "$tmp/$1.trace" \
        -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/yang-data+json' \
        -X POST --data-binary @"$2" "$URL$JOBS" > "$tmp/$1.status" &
    BG="$BG $!"
}
# await_sent NAME...: waits (up to 600 x 50 ms: curl and a sanitizer
# build on a loaded machine) until each post_bg NAME has sent its whole
# request (its body in curl's trace); 1 when one has not.
await_sent() {
    for n in "$@"; do
        for _ in $(seq 600); do
            grep -q '^=> Send data' "$tmp/$n.trace" 2>/dev/null && continue 2
            sleep 0.05
        done
        echo "# $n: request not sent in 30 s: $(cat "$tmp/$n.trace" 2>/dev/null | tail -3)"
        return 1
    done
}
# Decided off the loop, one at a time: five ppo intents at once (one of
# them a second c1), with a cdynp intent beside them; each is answered,
# the second c1 409 when its turn comes.
sizes="c1:llama2-7b:16 c2:gpt-1.9b:8 c3:bert-large:4 c4:gpt-1.9b:8 c1:bert-large:4"
k=0
for s in $sizes; do
    IFS=: read -r n m g <<EOF2
$s
EOF2
    k=$((k + 1))
    ppo_intent "$n" "$m" "$g" "$g" > "$tmp/c$k.json"
    post_bg "p$k" "$tmp/c$k.json"
done
intent cd bert-large 4 > "$tmp/cd.json"
post_bg cd "$tmp/cd.json"
kill -HUP $PID      # a reload among them: after any decision in flight
# and one through the API: queued behind the intents before it.
# (its body the RFC 8040 form of no input)
curl -s -o "$tmp/rl.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/yang-data+json' \
    --data-binary '{"lightrail-state:input":{}}' -X POST "$URL$RELOAD" > "$tmp/rl.status" &
BG="$BG $!"
wait $BG
BG=
# Two reloads, SIGHUP's and the API's, each logged once.
for _ in $(seq 100); do
    [ "$(grep -c "ppo policy .*metro.pol reloaded: intents for ppo use its rollout" "$D/log")" -ge 2 ] && break
    sleep 0.1
done
if await_log "ppo policy .*metro.pol reloaded: intents for ppo use its rollout"; then
    ok "ppo-rollout: SIGHUP among the intents reloads the policy (in its turn)"
else
    notok "ppo-rollout: SIGHUP: $(tail -n 3 "$D/log")"
fi
get_state
[ "$(cat "$tmp/rl.status")" = 204 ] && [ "$(pp rollout)" = true ] && [ "$(pp reloads)" = 2 ] \
    && ok "ppo-rollout: reload-ppo-policy among the intents is 204 (SIGHUP and it: reloads 2)" \
    || notok "ppo-rollout, API reload: $(cat "$tmp/rl.status" "$tmp/rl.body"); state $(jq -c '."lightrail-state:state"."ppo-policy"' "$tmp/state")"
statuses=$(for k in 1 2 3 4 5; do cat "$tmp/p$k.status"; echo; done | sort | tr '\n' ' ')
[ "$statuses" = "201 201 201 201 409 " ] && [ "$(cat "$tmp/cd.status")" = 201 ] \
    && ok "ppo-rollout: five ppo intents at once, each answered ($statuses), a cdynp one beside them" \
    || notok "ppo-rollout at once: ppo $statuses, cdynp $(cat "$tmp/cd.status")"
for k in 1 2 3 4 5; do
    [ "$(cat "$tmp/p$k.status")" = 409 ] || continue
    if grep -q "exists" "$tmp/p$k.body"; then
        ok "ppo-rollout at once: the second c1 is refused: $(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/p$k.body")"
    else
        notok "ppo-rollout at once: a 409 that does not say the job exists: $(cat "$tmp/p$k.body")"
    fi
done
api GET $JOBS
[ "$(jq '[."lightrail-job:jobs".job[] | select(.state."planner-note" // "" | startswith("ppo: "))] | length' "$tmp/body")" = 4 ] \
    && ok "ppo-rollout at once: the four ppo jobs were decided by the policy" \
    || notok "ppo-rollout at once: $(cat "$tmp/body")"
for j in c1 c2 c3 c4 cd; do api DELETE "$JOBS/job=$j"; done

# SIGTERM with ppo intents waiting for the decider: every request sent is
# answered (201, or 503 once the server drains) and the store stays
# consistent (lightrail-check below).
for k in 1 2 3 4; do post_bg "t$k" "$tmp/c$k.json"; done
# Stopped once the four requests are sent, not after a fixed pause: a
# curl that has not connected when the draining server exits gets no
# answer (000), however correct the server.
await_sent t1 t2 t3 t4 || notok "ppo-rollout stopped: the four requests were not all sent"
stop_daemon
wait $BG
BG=
codes=$(for k in 1 2 3 4; do cat "$tmp/t$k.status"; echo; done)
[ "$(echo "$codes" | grep -c '^\(201\|503\)$')" = 4 ] \
    && ok "ppo-rollout: stopped with decisions waiting, each request answered ($(echo $codes))" \
    || notok "ppo-rollout stopped: $(echo $codes)"
# Without its mandatory load: refused at start, naming it.
jq 'del(."lightrail-config:lightraild"."ppo-rollout".load)' \
    "$D/lightraild.json" > "$D/noload.json"
if ! daemon_exits "$D/noload.json" "$D/noload.log"; then
    notok "lightraild started with a ppo-rollout without load"
elif [ $RC -ne 0 ] && grep -q "ppo-rollout.*load\|load.*ppo-rollout" "$D/noload.log"; then
    ok "ppo-rollout without load: refused at start (exit $RC): $(head -n 1 "$D/noload.log")"
else
    notok "ppo-rollout without load: exit $RC, $(cat "$D/noload.log")"
fi

check_store "lightrail-check: consistent"
lr_summary
