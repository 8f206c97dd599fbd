#!/bin/sh
# An agent from before objectives lex-one/time-one (2026-12-04) and
# lex-bound/time-bound (2026-12-05), end to end (docs/agent-protocol.md,
# "An agent older than the coordinator"): a real `lightrail agent`
# behind tests/cli/agent_old.py, which answers every request of
# objective 2-5 as such an agent did (an ERROR of id 0, EINVAL,
# "malformed frame: closing") and closes.  `lightrail plan
# --distributed` plans without those runs: the plan CDynP makes with the
# ordinary runs alone at that DC, its note last ("note: ...") and in
# JSON ("note"), naming the agent and what to do; lightraild admits
# the job with "cdynp: <that note>" in its planner-note.
#
# The instance is tight instance 3699 of tests/unit/lr_test_tight.h,
# the one test_agent_party's fake old agent plans, written as the files
# a user gives (tests/data/tight-3699/*.json: its figures rounded to
# the files' decimals, its device memory scaled into memory-gb): in
# process CDynP gives T 19.5386 s, and 26.0676 s when DC dc1 (DC 0)
# makes only the ordinary runs (what test_agent_party's plan_here()
# computes, on these rounded figures).  dc1 is remote, dc2 and dc3
# planned in the coordinator's process.
# Servers are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
. "${srcdir:-.}/tests/cli/daemon.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
DATA=$srcdir/tests/data/tight-3699
MODEL=$DATA/model.json
FULL_T=19.5386      # current agents (and in process)
PLAIN_T=26.0676     # dc1 without the runs of objectives 2-5

{ mk_ca ca && mk_cert ca dc1 dc1 && mk_cert ca dc2 dc2 &&
  mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"

# The agent of dc1: its inventory as the cluster file has it.
agent_file dc1 3 125 0.4 4.262 91.227
start_agent dc1 "$A/dc1.json" || { lr_summary; exit 1; }
AGENT=$APORT AGENT_PID=$APID

# start_proxy MODE [DC AGENT-PORT]: agent_old.py in MODE before the agent
# of DC (default dc1's); sets PPORT, PPID_, its log $A/MODE.log.
start_proxy() {
    rm -f "$A/$1.port"
    : > "$A/$1.log"
    python3 "$srcdir/tests/cli/agent_old.py" "$1" "$C" "${2:-dc1}" \
        coordinator "${3:-$AGENT}" "$A/$1.port" "$A/$1.log" 2> "$A/$1.err" &
    PPID_=$!
    PIDS="$PIDS $PPID_"
    await_file "$A/$1.port" $PPID_ "$A/$1.err" "proxy $1" || return 1
    PPORT=$(cat "$A/$1.port")
}
# cluster PORT [DC [FILE]]: the coordinator's file, DC (default dc1) at
# PORT; FILE, default tight 3699's.
cluster() {
    jq --argjson p "$1" --arg dc "${2:-dc1}" '(."lightrail-compute:compute".dc[]
        | select(.name == $dc)) += {remote: {address: "127.0.0.1", port: $p}}' \
        "${3:-$DATA/cluster.json}"
}
# near T WANT: T (s) is WANT to its 4 decimals.
near() {
    awk -v t="$1" -v w="$2" 'BEGIN { d = t - w; exit !(d < 5e-5 && d > -5e-5) }'
}

# ---- the instance: in process, and through the proxy passing all ----
$LIGHTRAIL plan --model-file "$MODEL" --cluster "$DATA/cluster.json" \
    --format json > "$tmp/local.out" 2> "$tmp/err"
T=$(jq .iteration_time_s "$tmp/local.out")
if near "$T" $FULL_T; then
    ok "tight 3699 from its files, in process: T $T s"
else
    notok "tight 3699 in process: T '$T' s, want $FULL_T: $(cat "$tmp/err")"
fi
start_proxy pass || { lr_summary; exit 1; }
cluster "$PPORT" > "$tmp/pass.json"
$LIGHTRAIL plan --distributed --model-file "$MODEL" --cluster "$tmp/pass.json" \
    $TLS --format json > "$tmp/pass.out" 2> "$tmp/err"
rc=$?
T=$(jq .iteration_time_s "$tmp/pass.out" 2>/dev/null)
# The runs of objectives 2-5 are asked, and win.
if [ $rc -eq 0 ] && near "$T" $FULL_T \
   && [ "$(jq 'has("note")' "$tmp/pass.out")" = false ] \
   && grep -q '^passed .* objective [2-5]$' "$A/pass.log"; then
    ok "a current agent behind the proxy passing every frame: T $T s, no note, $(grep -c '^passed' "$A/pass.log") requests of objectives 2-5"
else
    notok "through the proxy passing all: exit $rc, T '$T', $(cat "$tmp/err") $(head -c 300 "$tmp/pass.out"), proxy: $(sort "$A/pass.log" | uniq -c | tr '\n' ';')"
fi
kill $PPID_; wait $PPID_ 2>/dev/null

# ---- the same agent playing an old one ----
start_proxy old || { lr_summary; exit 1; }
cluster "$PPORT" > "$tmp/old.json"
NOTE="agent dc1 (127.0.0.1 port $PPORT) is from before 2026-12-04: it refused objective"
UPGRADE="-one, so the one-stage-per-DC and count-bounded runs were skipped with it and the plan may be dearer than with current agents; upgrade it to the agent of this coordinator's release"
$LIGHTRAIL plan --distributed --model-file "$MODEL" --cluster "$tmp/old.json" \
    $TLS --format json > "$tmp/old.out" 2> "$tmp/err"
rc=$?
T=$(jq .iteration_time_s "$tmp/old.out" 2>/dev/null)
note=$(jq -r '.note // empty' "$tmp/old.out" 2>/dev/null)
if [ $rc -eq 0 ] && near "$T" $PLAIN_T && [ ! -s "$tmp/err" ] \
   && case $note in "$NOTE "*"$UPGRADE") true ;; *) false ;; esac; then
    ok "an old agent: the plan without its runs (T $T s, $FULL_T with current agents), JSON note"
else
    notok "an old agent, JSON: exit $rc, T '$T' (want $PLAIN_T), note '$note', $(cat "$tmp/err")"
fi
# The agent was asked one such request, refused it and closed; the
# coordinator connected again for the ordinary runs.
if [ "$(grep -c '^refused .* objective [2-5]$' "$A/old.log")" -eq 1 ] \
   && [ "$(grep -c '^connection$' "$A/old.log")" -ge 2 ]; then
    ok "an old agent: one refusal, then a new connection"
else
    notok "an old agent's connections: $(tr '\n' ';' < "$A/old.log")"
fi
$LIGHTRAIL plan --distributed --model-file "$MODEL" --cluster "$tmp/old.json" \
    $TLS > "$tmp/out" 2> "$tmp/err"
rc=$?
last=$(tail -n 1 "$tmp/out")
if [ $rc -eq 0 ] && grep -q "^iteration time T = $PLAIN_T" "$tmp/out" \
   && case $last in "note: $NOTE "*"$UPGRADE") true ;; *) false ;; esac; then
    ok "an old agent: the text's last line is the note"
else
    notok "an old agent, text: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
kill $PPID_; wait $PPID_ 2>/dev/null

# ---- an agent from before protocol revision 2 (2026-12-07) ----
# It refuses the HELLO naming revision 2 and closes; the coordinator
# greets it again with a plain HELLO, and asks it BACKTRACKs as before:
# the same plan as with current agents, and a note saying so, with the
# count of those BACKTRACKs of objectives 0-3 the proxy passed (those
# of the count-bounded runs, 4-5, are asked at revision 2 too, and not
# counted).  A plan of revision 2 (the proxy passing all, above) has no
# note.
start_proxy rev1 || { lr_summary; exit 1; }
cluster "$PPORT" > "$tmp/rev1.json"
$LIGHTRAIL plan --distributed --model-file "$MODEL" --cluster "$tmp/rev1.json" \
    $TLS --format json > "$tmp/rev1.out" 2> "$tmp/err"
rc=$?
T=$(jq .iteration_time_s "$tmp/rev1.out" 2>/dev/null)
note=$(jq -r '.note // empty' "$tmp/rev1.out" 2>/dev/null)
n=$(grep -c '^passed backtrack objective [0-3]$' "$A/rev1.log")
REV1="agent dc1 (127.0.0.1 port $PPORT) speaks protocol revision 1: it refused a HELLO naming revision 2, as agents from before 2026-12-07 do, so it is asked the BACKTRACKs that revision 2's predecessors in STEP_OK spare, for the same plan: $n in this plan; upgrade it to the agent of this coordinator's release"
if [ $rc -eq 0 ] && near "$T" $FULL_T && [ ! -s "$tmp/err" ] \
   && [ "$n" -gt 0 ] && [ "$note" = "$REV1" ] \
   && [ "$(grep -c '^refused hello revision 2$' "$A/rev1.log")" -eq 1 ]; then
    ok "an agent from before revision 2: the same plan (T $T s), one refused HELLO, $n BACKTRACKs, JSON note"
else
    notok "an agent from before revision 2, JSON: exit $rc, T '$T' (want $FULL_T), $n BACKTRACKs, note '$note', want '$REV1', $(cat "$tmp/err"), proxy: $(tr '\n' ';' < "$A/rev1.log")"
fi
$LIGHTRAIL plan --distributed --model-file "$MODEL" --cluster "$tmp/rev1.json" \
    $TLS > "$tmp/out" 2> "$tmp/err"
rc=$?
last=$(tail -n 1 "$tmp/out")
if [ $rc -eq 0 ] && [ "$last" = "note: $REV1" ]; then
    ok "an agent from before revision 2: the text's last line is the note"
else
    notok "an agent from before revision 2, text: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
kill $PPID_; wait $PPID_ 2>/dev/null
stop_agent $AGENT_PID
PIDS=

# ---- lightraild with an old agent: the job's planner-note ----
# A job's model is a preset or a transformer's shape, not layers: here
# a small GPT (6 blocks, h 768, 4 heads, f 3072, V 1000, s 2048) on
# tight 3699's cluster with devices of 0.25 GB, attached to metro's
# ROADMs.  Of the 32,146 shapes and memories a sweep planned with
# test_agent_party's plan_here() (h 64-1024, 1-8 blocks, s 1024-32768,
# 0.125-16 GB), it is the one where a DC's ordinary runs alone plan
# dearer: T 0.1750 s, 0.1856 s when dc2 makes only those.  dc2's agent
# is behind the proxy playing old.
SMALL_T=0.1750
SMALL_PLAIN_T=0.1856
SHAPE='{"arch": "gpt", "layers": 6, "hidden": 768, "heads": 4, "ffn": 3072, "vocab": 1000, "seq": 2048}'
printf '{"lightrail-model:model": {"name": "small", "transformer": %s}}\n' \
    "$SHAPE" > "$tmp/small-model.json"
jq '."lightrail-compute:compute" |= (
      (."device-type"[] | select(.name == "V100"))."memory-gb" = "0.250"
      | .dc |= map(. + {"attachment-node": {"dc1": "r1", "dc2": "r3",
                                            "dc3": "r5"}[.name]}))' \
    "$DATA/cluster.json" > "$tmp/small.json"
$LIGHTRAIL plan --model-file "$tmp/small-model.json" --cluster "$tmp/small.json" \
    --format json > "$tmp/small.out" 2> "$tmp/err"
T=$(jq .iteration_time_s "$tmp/small.out")
if near "$T" $SMALL_T; then
    ok "the small GPT in process: T $T s"
else
    notok "the small GPT in process: T '$T' s, want $SMALL_T: $(cat "$tmp/err")"
fi
agent_file dc2 4 125 0.4 0.25 70.444
start_agent dc2 "$A/dc2.json" || { lr_summary; exit 1; }
AGENT_PID=$APID
start_proxy old dc2 "$APORT" || { lr_summary; exit 1; }
cluster "$PPORT" dc2 "$tmp/small.json" > "$D/cluster.json"
jq --arg c "$C" '.["lightrail-config:lightraild"] += {
    "cluster-file": "cluster.json",
    "coordinator": {"certificate": ($c + "/coordinator.pem"),
                    "key": ($c + "/coordinator.key"),
                    "ca": ($c + "/ca.pem"), "timeout": "5"}}' \
    "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
printf '{"lightrail-job:job":[{"name":"j1","model":"small","batch":32,"microbatch":1,"gpus":{"min":1,"max":64},"transformer":%s}]}\n' \
    "$SHAPE" > "$tmp/j1.json"
api POST "$JOBS" "$tmp/j1.json"
post=$STATUS
api GET "$JOBS/job=j1"
state() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/body"; }
T=$(state '"iteration-time-s"')
note=$(state '"planner-note"')
if [ "$post" = 201 ] && [ "$(state phase)" = active ] && near "$T" $SMALL_PLAIN_T \
   && case $note in *"cdynp: agent dc2 (127.0.0.1 port $PPORT) is from before 2026-12-04: it refused objective "*"$UPGRADE") true ;; *) false ;; esac; then
    ok "lightraild with an old agent: job active, T $T s ($SMALL_T s with current agents), planner-note 'cdynp: agent dc2 ...'"
else
    notok "lightraild with an old agent: POST $post, phase $(state phase), T $T (want $SMALL_PLAIN_T), planner-note '$note', reason '$(state reason)'"
fi
if [ "$(grep -c '^refused .* objective [2-5]$' "$A/old.log")" -eq 1 ]; then
    ok "lightraild with an old agent: one refusal"
else
    notok "lightraild's old agent: $(tr '\n' ';' < "$A/old.log")"
fi
stop_daemon
kill $PPID_; wait $PPID_ 2>/dev/null
stop_agent $AGENT_PID
PIDS=
lr_summary
