#!/bin/sh
# lightraild as the coordinator of distributed CDynP (issue 7, section 3):
# the metro network with dc1 planned by the daemon and dc2, dc3 by their
# agents on 127.0.0.1 over mutual TLS.  The daemon's inventory gives the
# remote DCs placeholder figures; the agents hold the real ones.
#   1. a job is admitted with the remote layers private, its T equal to
#      in-process CDynP over the real inventory, and each agent of the
#      chain has committed (and reserved) its part under the job's name;
#   2. the next job is planned over what the agents have left;
#   3. deleting a job releases the agents' reservations;
#   4. faults: an agent down, an agent too slow, a COMMIT that timed out:
#      the job blocked with the agent's reason, nothing held, no agent
#      left with a reservation;
#   5. refused: a non-CDynP algorithm, a remote inventory without the
#      coordinator's TLS material.
# Every process is ours, stopped by its PID.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
. "${srcdir:-.}/tests/cli/daemon.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca dc3 dc3 &&
  mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

# The agents hold metro's real dc2 and dc3 (examples/clusters/metro.json).
agent_file dc2 32 125 0.40 32 300 dc2 5
agent_file dc3 8 989 0.40 80 900 dc3 3
start_agent dc2 "$A/dc2.json" --record "$A/dc2.jsonl" && P2=$APORT && PID2=$APID
start_agent dc3 "$A/dc3.json" --record "$A/dc3.jsonl" && P3=$APORT && PID3=$APID

# The daemon's inventory: metro with dc2 and dc3 remote, their figures
# replaced by placeholders it must never use.
METRO=$(cd "$srcdir" && pwd)/examples/clusters/metro.json
jq --argjson p2 "$P2" --argjson p3 "$P3" '
  .["lightrail-compute:compute"]["device-type"] += [{"name": "placeholder",
      "peak-tflops": "1", "efficiency": "0.01", "memory-gb": "1"}]
  | .["lightrail-compute:compute"].dc |= map(
      if .name == "dc2" or .name == "dc3" then
        . + {"device-type": "placeholder", "device-count": 1,
             "intra-dc-bandwidth-gbytes-per-s": "1",
             "intra-dc-latency-us": "0",
             "remote": {"address": "127.0.0.1",
                        "port": (if .name == "dc2" then $p2 else $p3 end)}}
      else . end)' "$METRO" > "$D/cluster.json"
jq --arg c "$C" '.["lightrail-config:lightraild"] += {
    "cluster-file": "cluster.json",
    "coordinator": {"certificate": ($c + "/coordinator.pem"),
                    "key": ($c + "/coordinator.key"),
                    "ca": ($c + "/ca.pem"), "timeout": "1"}}' \
    "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }

# intent NAME GPUS-MIN GPUS-MAX [ALGORITHM] > file
intent() {
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":%s,"max":%s}%s}]}\n' \
        "$1" "$2" "$3" "${4:+,\"algorithm\":\"$4\"}"
}
job_state() {   # job_state NAME: the job's JSON into $tmp/job (STATUS kept)
    s=$STATUS
    api GET "$JOBS/job=$1"
    cp "$tmp/body" "$tmp/job"
    STATUS=$s
}
jq_job() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/job"; }
commits() {   # commits DC TAG: the agent's log lines committing TAG
    grep -c "'$2' committed" "$A/$1.log"
}
private_dcs() {   # the DCs of $tmp/job's private stages (its agents')
    jq -r '.["lightrail-job:job"][0].state.stage[]?
        | select(.private == true) | .dc' "$tmp/job" | sort -u | tr '\n' ' '
}
metric() {   # metric NAME: the daemon's NAME, "" if it does not answer
    curl -s -m 10 --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
        "$URL/metrics" | sed -n "s/^$1 //p"
}
# coordinator_set LEAF VALUE: the daemon's coordinator/LEAF, for its next
# start.
coordinator_set() {
    jq --arg k "$1" --arg v "$2" \
        '.["lightrail-config:lightraild"].coordinator[$k] = $v' \
        "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
}
# post_bg NAME: POSTs $tmp/NAME.json (intent NAME 1 64) in the background,
# up to 60 s, its status into $tmp/NAME.status; BG is its PID.
post_bg() {
    intent "$1" 1 64 > "$tmp/$1.json"
    curl -s -m 60 -o "$tmp/$1.out" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/yang-data+json' \
        --data-binary @"$tmp/$1.json" "$URL$JOBS" > "$tmp/$1.status" &
    BG=$!
}
# restart_dc3 NAME [ARGS...]: dc3's agent stopped and started again on its
# port as NAME (its log $A/NAME.log), with ARGS.
restart_dc3() {
    stop_agent $PID3
    name=$1
    shift
    LISTEN=127.0.0.1:$P3 start_agent "$name" "$A/dc3.json" "$@" && PID3=$APID
}
# The daemon sends RELEASEs to the agents off its loop, after the DELETE
# (or the blocked POST) is answered: waits until none is pending, at most
# 20 s.
wait_released() {
    n=0
    while [ "$(metric lightrail_agent_releases_pending)" != 0 ] && [ $n -lt 100 ]; do
        sleep 0.2
        n=$((n + 1))
    done
}

# The inventory the daemon serves keeps who is remote (a GET-edit-PUT
# round trip must not turn the agents' DCs into local placeholders).
api GET /restconf/data/lightrail-compute:compute
if [ "$STATUS" = 200 ] && jq -e --argjson p2 "$P2" '[.["lightrail-compute:compute"].dc[]
      | {(.name): (.remote.port // 0)}] | add == {"dc1": 0, "dc2": $p2, "dc3": '"$P3"'}' \
      "$tmp/body" > /dev/null; then
    ok "GET compute: dc2 and dc3 remote, dc1 not"
else
    notok "GET compute: $STATUS $(head -c 400 "$tmp/body")"
fi

# ---- 1. a job over the agents ----
$LIGHTRAIL plan --model gpt-1.9b --cluster "$METRO" --batch 32 \
    --microbatch 1 --format json > "$tmp/inproc.json" 2> "$tmp/err"
T_IN=$(jq .iteration_time_s "$tmp/inproc.json")
intent j1 1 64 > "$tmp/j1.json"
api POST "$JOBS" "$tmp/j1.json"
job_state j1
T_J1=$(jq_job '"iteration-time-s"')
if [ "$STATUS" = 201 ] && [ "$(jq_job phase)" = active ] &&
   awk -v a="$T_IN" -v b="$T_J1" 'BEGIN { d = a - b; exit !(d < 2e-6 && d > -2e-6) }'; then
    ok "j1 active, T $T_J1 s = in-process CDynP over the real inventory ($T_IN s)"
else
    notok "j1: status $STATUS, phase $(jq_job phase), T $T_J1 vs $T_IN: $(jq_job reason)"
fi
# The remote DCs' entries are private (no devices), the local ones not.
remote_dcs=$(jq -r '.["lightrail-job:job"][0].state.stage[]
    | select(.private == true and (has("devices") | not)) | .dc' "$tmp/job" | sort -u | tr '\n' ' ')
local_ok=$(jq '[.["lightrail-job:job"][0].state.stage[] | select(.dc == "dc1")
    | (has("devices") and (has("private") | not))] | all' "$tmp/job")
chain=$(jq -r '[.["lightrail-job:job"][0].state.stage[].dc] | unique | join(" ")' "$tmp/job")
case "$chain" in
    *dc2*|*dc3*) ;;
    *) notok "j1's chain $chain uses no agent: the test proves nothing" ;;
esac
want_remote=$(echo "$chain" | tr ' ' '\n' | grep -v '^dc1$' | sort -u | tr '\n' ' ')
if [ "$remote_dcs" = "$want_remote" ] && [ "$local_ok" = true ]; then
    ok "j1's stages: $chain; private for the agents' DCs ($remote_dcs)"
else
    notok "j1's stages: private '$remote_dcs', want '$want_remote', local ok $local_ok: $(cat "$tmp/job")"
fi
# Each agent of the chain committed j1, once, and received a COMMIT with
# exactly the documented fields.
all=1
for dc in $want_remote; do
    [ "$(commits $dc j1)" -eq 1 ] || all=0
    jq -e -s '[.[] | select(.type == "commit")] | length == 1 and
        (.[0] | keys == ["assumed","first","id","job","last","objective","stages","tag","type"]
         and .tag == "j1")' "$A/$dc.jsonl" > /dev/null || all=0
done
[ $all = 1 ] && ok "the agents of $want_remote committed j1, one COMMIT each" ||
    notok "commit of j1: $(grep -h "j1" "$A"/dc*.log | tail -4)"

# ---- 2. the next job plans over what the agents have left ----
intent j2 1 64 > "$tmp/j2.json"
api POST "$JOBS" "$tmp/j2.json"
job_state j2
dc=$(echo "$want_remote" | cut -d' ' -f1)
total=$(jq -r .["\"lightrail-agent:agent\""]["\"device-count\""] "$A/$dc.json")
free=$(grep 'job .*devices free' "$A/$dc.log" | tail -1 | sed 's/.*(\([0-9]*\) of .*/\1/')
if [ "$STATUS" = 201 ] && [ -n "$free" ] && [ "$free" -lt "$total" ]; then
    ok "j2 ($(jq_job phase)) was planned by $dc over $free of its $total devices"
else
    notok "j2: status $STATUS, $dc free '$free' of $total"
fi

# ---- 3. delete releases ----
api DELETE "$JOBS/job=j1"
s1=$STATUS
api DELETE "$JOBS/job=j2"
wait_released
released=1
for dc in $want_remote; do
    grep -q "'j1' released" "$A/$dc.log" || released=0
done
last_free=$(grep -h "released" "$A/$dc.log" | tail -1 | sed 's/.*, \([0-9]*\) of \([0-9]*\) free/\1 \2/')
if [ "$s1" = 204 ] && [ "$STATUS" = 204 ] && [ $released = 1 ] &&
   [ "$(echo $last_free | cut -d' ' -f1)" = "$(echo $last_free | cut -d' ' -f2)" ]; then
    ok "deleting j1 and j2 released every reservation ($dc: $last_free free)"
else
    notok "delete: $s1/$STATUS, released $released, $dc: '$last_free'"
fi

# ---- 4. faults: no partial state ----
# expect_blocked NAME WANT: the job is blocked with WANT in its reason, no
# agent committed it, and the daemon's state is consistent.
expect_blocked() {
    intent "$1" 1 64 > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
    job_state "$1"
    wait_released
    n=0
    for dc in dc2 dc3; do n=$((n + $(commits $dc "$1"))); done
    reason=$(jq_job reason)
    if [ "$STATUS" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       echo "$reason" | grep -F -q -- "$2" && [ $n -eq 0 ] &&
       [ "$(jq '.["lightrail-job:job"][0].state | has("lightpath") or has("gpus")' "$tmp/job")" = false ]; then
        ok "$1 blocked, holding nothing: $reason"
    else
        notok "$1: status $STATUS, phase $(jq_job phase), commits $n, reason '$reason', want '$2'"
    fi
}
stop_agent $PID3
expect_blocked j3 "agent dc3 unreachable: connect to 127.0.0.1 port $P3"
# Which agent is down: /metrics by DC, and one line in the log.
up2=$(metric 'lightrail_agent_up{dc="dc2"}')
up3=$(metric 'lightrail_agent_up{dc="dc3"}')
if [ "$up2" = 1 ] && [ "$up3" = 0 ] \
   && grep -q "agent dc3 down: connect to 127.0.0.1 port $P3" "$D/log"; then
    ok "lightrail_agent_up: dc2 1, dc3 0; logged: $(grep -o 'agent dc3 down: .*' "$D/log" | head -1)"
else
    notok "agents up: dc2 '$up2', dc3 '$up3'; log: $(grep 'agent dc' "$D/log" | tail -2)"
fi
# The agents' families whole, byte for byte (HELP, TYPE, then each
# remote DC in order), as /metrics printed them before one function
# took the family: only the idle closes' counts are not the test's.
cat > "$tmp/agent_families.ok" <<'EOF'
# HELP lightrail_agent_up Each remote DC's agent: 0 when the last exchange with it got no answer (unreachable, broken, too slow; the log and the jobs it blocked say why), else 1 (a refusal is an answer: the job's reason says it). Seen when the planner last had the agents.
# TYPE lightrail_agent_up gauge
lightrail_agent_up{dc="dc2"} 1
lightrail_agent_up{dc="dc3"} 0
# HELP lightrail_agent_idle_closes_total Each remote DC's agent: connections kept idle that it closed (its idle timeout, a restart), each replaced by a new one with no failure; lightraild logs them as it sees them, with the agent's words.  From 0 again with a new network.  Seen when the planner last had the agents.
# TYPE lightrail_agent_idle_closes_total counter
lightrail_agent_idle_closes_total{dc="dc2"} N
lightrail_agent_idle_closes_total{dc="dc3"} N
EOF
curl -s -m 10 --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL/metrics" > "$tmp/metrics"
sed -n '/^# HELP lightrail_agent_up /,/^# HELP lightrail_device_up /p' \
    "$tmp/metrics" | sed '$d' \
    | sed 's/^\(lightrail_agent_idle_closes_total{dc="dc[23]"}\) [0-9][0-9]*$/\1 N/' \
    > "$tmp/agent_families"
cmp -s "$tmp/agent_families" "$tmp/agent_families.ok" \
    && ok "/metrics: the agents' two families, byte for byte" \
    || notok "/metrics, the agents' families: $(diff "$tmp/agent_families.ok" "$tmp/agent_families" | head -5)"
# The same, with the reason, in lightrail-state: dc1 has no agent.
api GET "/restconf/data/lightrail-state:state"
agents=$(jq -c '[.["lightrail-state:state"].dc[] | [.name, (if .agent then .agent.up else "none" end), (.agent.reason // "")]]' "$tmp/body" 2>/dev/null)
case "$agents" in
'[["dc1","none",""],["dc2",true,""],["dc3",false,"connect to 127.0.0.1 port '"$P3"':'*)
    ok "lightrail-state: dc3's agent down, with the reason: $agents" ;;
*)  notok "lightrail-state's agents: $STATUS $agents" ;;
esac
# Too slow: the same port, every answer 3 s late; the timeout is 1 s.
LISTEN=127.0.0.1:$P3 start_agent dc3-slow "$A/dc3.json" --delay-ms 3000 && PID3=$APID
expect_blocked j4 "agent dc3"
grep -q "timed out\|timeout" "$tmp/job" && ok "j4's reason names the timeout" ||
    notok "j4's reason: $(jq_job reason)"
stop_agent $PID3
# Back to normal: the same agent answers in time, and the job is admitted.
LISTEN=127.0.0.1:$P3 start_agent dc3-again "$A/dc3.json" && PID3=$APID
intent j5 1 64 > "$tmp/j5.json"
api POST "$JOBS" "$tmp/j5.json"
job_state j5
[ "$(jq_job phase)" = active ] && ok "after the agent is back, j5 is active" ||
    notok "j5: $(jq_job phase): $(jq_job reason)"
# Down for j3 and j4, up for j5: one line each way, not one per job.
up3=$(metric 'lightrail_agent_up{dc="dc3"}')
if [ "$up3" = 1 ] && [ "$(grep -c 'agent dc3 down' "$D/log")" -eq 1 ] \
   && [ "$(grep -c 'agent dc3 answers again' "$D/log")" -eq 1 ]; then
    ok "dc3 up again: lightrail_agent_up 1, logged once each way"
else
    notok "dc3 back: up '$up3'; log: $(grep 'agent dc3' "$D/log")"
fi
# A COMMIT that timed out: the agent reserved the devices but its answer
# comes after the coordinator's 1 s.  The outcome is unknown, so that
# agent gets RELEASE too, as the agents committed before it do.
api DELETE "$JOBS/job=j5"
wait_released
# A refusal is an answer: with the agents' saves failing (a directory
# where their temporary file goes), a job that needs them is refused its
# COMMIT (EIO) and blocked with that reason, yet no agent reads down.
mkdir "$A/dc2.state/reservations.json.tmp" "$A/dc3-again.state/reservations.json.tmp"
intent jx 1 64 > "$tmp/jx.json"
api POST "$JOBS" "$tmp/jx.json"
job_state jx
rmdir "$A/dc2.state/reservations.json.tmp" "$A/dc3-again.state/reservations.json.tmp"
up2=$(metric 'lightrail_agent_up{dc="dc2"}')
up3=$(metric 'lightrail_agent_up{dc="dc3"}')
if [ "$(jq_job phase)" = blocked ] \
   && jq_job reason | grep -q "refused commit: commit 'jx': reservations not saved" \
   && [ "$up2" = 1 ] && [ "$up3" = 1 ] && ! grep -q "agent dc2 down" "$D/log" \
   && [ "$(grep -c 'agent dc3 down' "$D/log")" -eq 1 ]; then
    ok "a refused COMMIT blocks jx ($(jq_job reason | cut -c1-90)...), no agent reads down"
else
    notok "a refused COMMIT: $(jq_job phase): $(jq_job reason); up dc2 '$up2' dc3 '$up3'; $(grep 'agent dc' "$D/log" | tail -2)"
fi
api DELETE "$JOBS/job=jx"
wait_released
restart_dc3 dc3-commit --delay-commit-ms 3000
intent j7 1 64 > "$tmp/j7.json"
api POST "$JOBS" "$tmp/j7.json"
job_state j7
wait_released
held=
for dc in dc2 dc3-commit; do
    c=$(grep -c "'j7' committed" "$A/$dc.log")
    r=$(grep -c "'j7' released" "$A/$dc.log")
    [ "$c" -eq "$r" ] || held="$held $dc ($c commit(s), $r release(s))"
done
if [ "$(jq_job phase)" = blocked ] && grep -q "timed out" "$tmp/job" &&
   [ "$(commits dc3-commit j7)" -ge 1 ] && [ -z "$held" ]; then
    ok "j7's COMMIT timed out at dc3: blocked, every agent released it"
else
    notok "j7: $(jq_job phase), reason '$(jq_job reason)', still held by:$held"
fi
# leave_tag TAG: commits TAG at dc2 as this coordinator (its certificate)
# behind the daemon's back, holding one device: one layer whose gradients
# outweigh its compute (under T's own objective).
leave_tag() {
    PYTHONPATH="$srcdir/tests/cli" python3 -c '
import struct, sys
from agentwire import FINISH_OK, JOB, OK, TIME, ask, commit, connect
s = connect(sys.argv[1], sys.argv[2], "dc2", "coordinator")
one = struct.pack(">IdddI", 1, 32.0, 1.0, 2.0, 1) + struct.pack(">ddd", 1e6, 1e9, 1e3)
sys.exit(0 if ask(s, JOB, one)[0] == OK
         and commit(s, sys.argv[3], first=0, last=0, objective=TIME)[0] == FINISH_OK
         else 1)
' "$C" "$P2" "$1"
}
# A tag of a job's name left at an agent (a RELEASE lost while it was
# unreachable): the next job of that name releases it and commits again,
# where it was blocked ("committed already") until the agent restarted.
# The leftover's job is one layer whose gradients outweigh its compute
# (under T's own objective), so that it holds one device and j8's plan
# still wants dc2.
restart_dc3 dc3-again2
if command -v python3 > /dev/null; then
    leave_tag j8 || notok "could not leave a tag j8 at dc2"
    intent j8 1 64 > "$tmp/j8.json"
    api POST "$JOBS" "$tmp/j8.json"
    job_state j8
    if [ "$(jq_job phase)" = active ] && [ "$(commits dc2 j8)" -eq 2 ] &&
       [ "$(grep -c "'j8' released" "$A/dc2.log")" -eq 1 ]; then
        ok "a leftover tag j8 at dc2: released, committed again, j8 active"
    else
        notok "leftover tag: j8 $(jq_job phase), '$(jq_job reason)'; dc2: $(grep "'j8'" "$A/dc2.log")"
    fi
    # A RELEASE the agent does not confirm (dc2 stopped: the 1 s
    # timeout) is counted, for the operator to see that dc2 may still
    # hold j8's devices.
    before=$(metric lightrail_agent_release_failures_total)
    kill -STOP $PID2
    api DELETE "$JOBS/job=j8"
    st=$STATUS
    wait_released
    kill -CONT $PID2
    after=$(metric lightrail_agent_release_failures_total)
    if [ "$before" = 0 ] && [ "$after" = 1 ] && [ "$st" = 204 ]; then
        ok "a RELEASE dc2 did not confirm is counted (lightrail_agent_release_failures_total 0 -> 1)"
    else
        notok "release failures: $before -> $after, DELETE $st"
    fi
    # It is tried again with the agents' next turn: the next plan sends it
    # first, and dc2 receives it a second time.
    releases_j8() {
        jq -s '[.[] | select(.type == "release" and .tag == "j8")] | length' "$A/dc2.jsonl"
    }
    retrying=$(metric lightrail_agent_releases_retrying)
    sent=$(releases_j8)
    intent j9 1 64 > "$tmp/j9.json"
    api POST "$JOBS" "$tmp/j9.json"
    job_state j9
    if [ "$retrying" = 1 ] && [ "$(releases_j8)" -eq $((sent + 1)) ] &&
       [ "$(metric lightrail_agent_releases_retrying)" = 0 ] &&
       [ "$(metric lightrail_agent_release_failures_total)" = 1 ] &&
       [ "$(metric lightrail_agent_releases_given_up_total)" = 0 ] &&
       [ "$(jq_job phase)" = active ]; then
        ok "the unanswered RELEASE of j8 was tried again with j9's plan, and dc2 received it (j9 $(jq_job phase))"
    else
        notok "retry: retrying $retrying then $(metric lightrail_agent_releases_retrying), dc2 received j8's RELEASE $sent then $(releases_j8) time(s), failures $(metric lightrail_agent_release_failures_total), given up $(metric lightrail_agent_releases_given_up_total), j9 $(jq_job phase) '$(jq_job reason)'"
    fi
    api DELETE "$JOBS/job=j9"
    wait_released
    # A tag at dc2 that the daemon knows nothing of (its job deleted while
    # the RELEASE was still queued when the daemon died, say), beside an
    # active job's (the leftover first: it holds one device, and jk's
    # plan takes what is left): at its next start the daemon sends KEEP,
    # and dc2 frees the leftover only (checked in section 5).
    leave_tag orphan || notok "could not leave a tag 'orphan' at dc2"
    intent jk 1 64 > "$tmp/jk.json"
    api POST "$JOBS" "$tmp/jk.json"
    job_state jk
    jk_remote=$(private_dcs)
fi
stop_daemon
if $CHECK --config "$D/lightraild.json" > "$tmp/check" 2>&1; then
    ok "lightrail-check: store and devices agree after the faults"
else
    notok "lightrail-check: $(cat "$tmp/check")"
fi

# ---- 5. refused ----
start_daemon
if command -v python3 > /dev/null; then
    jk_released=0
    for dc in $jk_remote; do
        log=$dc; [ $dc = dc3 ] && log=dc3-again2
        jk_released=$((jk_released + $(grep -c "'jk' released" "$A/$log.log")))
    done
    if grep -q "'orphan' released, not kept by the coordinator" "$A/dc2.log" &&
       [ -n "$jk_remote" ] && [ $jk_released -eq 0 ] &&
       grep -q "agent dc2: KEEP of 1 job(s): it released" "$D/log"; then
        ok "restarted, the daemon sent KEEP: dc2 freed the leftover 'orphan', and no agent of jk ($jk_remote) released it"
    else
        notok "KEEP at start: dc2: $(grep -h "orphan\|keep" "$A/dc2.log" | tail -3); jk's agents '$jk_remote' released it $jk_released time(s); daemon: $(grep -h KEEP "$D/log" | tail -2)"
    fi
    api DELETE "$JOBS/job=jk"
    wait_released
fi
intent j6 1 64 exact > "$tmp/j6.json"
api POST "$JOBS" "$tmp/j6.json"
if [ "$STATUS" = 400 ] && grep -q "ask for cdynp" "$tmp/body"; then
    ok "algorithm exact over agents' DCs: 400, $(jq -r '.. | ."error-message"? // empty' "$tmp/body")"
else
    notok "exact: status $STATUS: $(cat "$tmp/body")"
fi
# An agent stopped when the daemon starts gets no KEEP then (the start's
# report says so, and the daemon owes it one): the next plan carries it
# to the agent, first.
if command -v python3 > /dev/null; then
    leave_tag orphan2 || notok "could not leave a tag 'orphan2' at dc2"
    stop_daemon
    kill -STOP $PID2
    n0=$(wc -l < "$D/log")
    start_daemon
    kill -CONT $PID2
    due=$(metric lightrail_agent_keeps_due)
    # Down from the start: said once then, as after a plan.
    if [ "$(metric 'lightrail_agent_up{dc="dc2"}')" = 0 ] \
       && [ "$(tail -n +$((n0 + 1)) "$D/log" | grep -c 'agent dc2 down: ')" -eq 1 ]; then
        ok "dc2 stopped at the start: lightrail_agent_up 0, logged: $(tail -n +$((n0 + 1)) "$D/log" | grep -o 'agent dc2 down: .*')"
    else
        notok "dc2 stopped at the start: lightrail_agent_up $(metric 'lightrail_agent_up{dc="dc2"}'), $(tail -n +$((n0 + 1)) "$D/log" | grep -c 'agent dc2 down: ') 'down' line(s) in the log since"
    fi
    # The same inventory again (a GET-edit-PUT that changed nothing of
    # dc2): dc2 is the same agent, still owed its KEEP.  (It was owed
    # none after any new network, and kept 'orphan2' until it restarted.)
    api GET /restconf/data/lightrail-compute:compute
    cp "$tmp/body" "$tmp/inv5.json"
    api PUT /restconf/data/lightrail-compute:compute "$tmp/inv5.json"
    put=$STATUS
    due_put=$(metric lightrail_agent_keeps_due)
    up_put=$(metric 'lightrail_agent_up{dc="dc2"}')
    held=$(grep -c "'orphan2' released" "$A/dc2.log")
    intent jl 1 64 > "$tmp/jl.json"
    api POST "$JOBS" "$tmp/jl.json"
    job_state jl
    if [ "$due" = 1 ] && [ "$held" -eq 0 ] && [ "$due_put" = 1 ] &&
       grep -q "agent dc2: KEEP of 0 job(s) not sent: .*sent with the agents' next plan" "$D/log" &&
       grep -q "'orphan2' released, not kept by the coordinator" "$A/dc2.log" &&
       [ "$(metric lightrail_agent_keeps_due)" = 0 ] &&
       [ "$(jq_job phase)" = active ]; then
        ok "dc2 stopped at the start got no KEEP (1 due); jl's plan carried it, and dc2 freed 'orphan2'"
    else
        notok "KEEP owed: due '$due' at start, '$due_put' after the PUT ($put), then $(metric lightrail_agent_keeps_due); dc2 released orphan2 $held time(s) before jl, now: $(grep -h "orphan2\|keep" "$A/dc2.log" | tail -2); daemon: $(grep -h "KEEP" "$D/log" | tail -2); jl $(jq_job phase) '$(jq_job reason)'"
    fi
    # Down across the PUT (the same agent, nothing exchanged since), and
    # said once when jl's plan reached it; the PUT said nothing.
    since=$(tail -n +$((n0 + 1)) "$D/log")
    if [ "$up_put" = 0 ] \
       && [ "$(printf '%s\n' "$since" | grep -c 'agent dc2 down: ')" -eq 1 ] \
       && [ "$(printf '%s\n' "$since" | grep -c 'agent dc2 answers again')" -eq 1 ] \
       && [ "$(metric 'lightrail_agent_up{dc="dc2"}')" = 1 ]; then
        ok "dc2 down across the PUT of the same inventory, up with jl's plan: logged once each way"
    else
        notok "dc2 across the PUT: lightrail_agent_up $up_put after it; $(printf '%s\n' "$since" | grep 'agent dc2 ' | head -4), now lightrail_agent_up $(metric 'lightrail_agent_up{dc="dc2"}')"
    fi
    api DELETE "$JOBS/job=jl"
    wait_released
fi
stop_daemon

# ---- 6. the plan with the agents runs off the loop ----
# With dc3's agent stopped (SIGSTOP) the planner waits for its answer up
# to the coordinator's timeout, here 30 s; meanwhile the daemon answers
# GET /metrics (the intent counted as planning) and a DELETE, whose
# RELEASEs wait for the plan to end.  Ordering, not timing: the stopped
# agent cannot answer before it is continued, so whatever the daemon
# answers before that, it answered while the plan was in flight (each
# request bounded at 10 s, a third of that timeout).
coordinator_set timeout 30
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
LOG3=$A/dc3-again2.log
intent ja 1 64 > "$tmp/ja.json"
api POST "$JOBS" "$tmp/ja.json"
job_state ja
api GET /metrics
[ "$(jq_job phase)" = active ] && [ "$(commits dc3-again2 ja)" -eq 1 ] &&
    grep -q '^lightrail_plans_off_loop_total 1$' "$tmp/body" &&
    ok "ja planned off the loop with the agents, then committed at dc3" ||
    notok "ja: $(jq_job phase) '$(jq_job reason)', dc3 commits $(commits dc3-again2 ja), $(grep '^lightrail_plans_off_loop_total' "$tmp/body")"
planning() { metric lightrail_intents_planning; }
api GET /restconf/data/lightrail-compute:compute
cp "$tmp/body" "$tmp/inv.json"
kill -STOP $PID3
post_bg jb
JB=$BG
n=0
while [ "$(planning)" != 1 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
during=$(planning)
s=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X DELETE \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" "$URL$JOBS/job=ja")
put=$(curl -s -m 10 -o "$tmp/put.out" -w '%{http_code}' -X PUT \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/yang-data+json' \
    --data-binary @"$tmp/inv.json" "$URL/restconf/data/lightrail-compute:compute")
after=$(planning)
held=$(cat "$A/dc2.log" "$LOG3" | grep -c "'ja' released")
kill -CONT $PID3
wait $JB
if [ "$during" = 1 ] && [ "$s" = 204 ] && [ "$after" = 1 ] && [ "$held" -eq 0 ]; then
    ok "while jb's plan waited for dc3, GET /metrics answered (1 planning) and DELETE ja answered 204"
else
    notok "during jb's plan: planning '$during', DELETE ja '$s', then planning '$after', dc2 and dc3 released ja $held time(s)"
fi
if [ "$put" = 409 ] && grep -q "agents' plan\|agents.* in flight" "$tmp/put.out"; then
    ok "a new inventory meanwhile: 409, $(jq -r '.. | ."error-message"? // empty' "$tmp/put.out")"
else
    notok "PUT of the inventory during jb's plan: $put $(cat "$tmp/put.out")"
fi
job_state jb
wait_released
# Each agent of jb's chain committed it once.  ja held dc2 and dc3 while
# jb was planned (its RELEASEs waited), so jb's chain may have none.
jb_remote=$(private_dcs)
committed=1
for dc in $jb_remote; do
    log=$dc; [ $dc = dc3 ] && log=dc3-again2
    [ "$(commits $log jb)" -eq 1 ] || committed=0
done
rel=0
for log in "$A/dc2.log" "$LOG3"; do
    [ "$(grep -c "'ja' released" "$log")" -eq 1 ] && rel=$((rel + 1))
done
api GET /metrics
if [ "$(cat "$tmp/jb.status")" = 201 ] && [ "$(jq_job phase)" = active ] &&
   [ $committed = 1 ] && [ $rel -eq 2 ] &&
   grep -q '^lightrail_plans_off_loop_total 2$' "$tmp/body" &&
   grep -q '^lightrail_agent_release_failures_total 0$' "$tmp/body"; then
    ok "then jb was admitted (its agents: ${jb_remote:-none}), and ja's RELEASEs reached dc2 and dc3 after the plan"
else
    notok "jb: $(cat "$tmp/jb.status") $(jq_job phase) '$(jq_job reason)', committed by its agents ($jb_remote) $committed, ja released at $rel of 2; $(grep -E '^lightrail_(plans_off_loop|agent_release_failures)_total' "$tmp/body" | tr '\n' ' ')"
fi
api DELETE "$JOBS/job=jb"
wait_released

# ---- 6b. RELEASEs run off the loop ----
# With dc3's agent stopped, a DELETE of a job it holds is answered at
# once: the RELEASEs go to the agents on the planner's thread, where dc3's
# waits (up to the 30 s timeout).  Meanwhile GET /metrics answers with
# it pending, and an intent posted waits for the planner behind it; when
# dc3 is continued it gets the RELEASE, once, and the intent is planned
# and admitted.  Ordering, not timing, as in section 6.
intent jr 1 64 > "$tmp/jr.json"
api POST "$JOBS" "$tmp/jr.json"
job_state jr
jr_remote=$(private_dcs)
case "$jr_remote" in
    *dc3*) ;;
    *) notok "jr's chain has no stage at dc3 ('$jr_remote'): the test proves nothing" ;;
esac
kill -STOP $PID3
del=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X DELETE \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" "$URL$JOBS/job=jr")
post_bg js
JS=$BG
n=0
while [ "$(planning)" != 1 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
during=$(metric lightrail_agent_releases_pending)
waiting=$(planning)
held=$(grep -c "'jr' released" "$LOG3")
kill -CONT $PID3
wait $JS
wait_released
job_state js
if [ "$del" = 204 ] && [ "${during:-0}" -ge 1 ] && [ "$waiting" = 1 ] &&
   [ "$held" -eq 0 ]; then
    ok "while dc3 was stopped: DELETE jr answered 204, GET /metrics answered ($during RELEASE(s) pending), js waited for the planner"
else
    notok "dc3 stopped: DELETE jr '$del', releases pending '$during', planning '$waiting', dc3 released jr $held time(s) before it was continued"
fi
if [ "$(grep -c "'jr' released" "$LOG3")" -eq 1 ] &&
   [ "$(cat "$tmp/js.status")" = 201 ] && [ "$(jq_job phase)" = active ] &&
   [ "$(metric lightrail_agent_release_failures_total)" = 0 ]; then
    ok "then dc3 released jr once, and js was admitted ($(jq_job phase))"
else
    notok "after dc3 was continued: dc3 released jr $(grep -c "'jr' released" "$LOG3") time(s); js $(cat "$tmp/js.status") $(jq_job phase) '$(jq_job reason)'; failures $(metric lightrail_agent_release_failures_total)"
fi
api DELETE "$JOBS/job=js"
wait_released

# ---- 6c. the COMMIT is sent off the loop too ----
# dc3's agent holds its answer to a COMMIT back 5 s (the timeout is
# 30 s).  Once it has reserved jt's devices, and before it answers, the
# daemon answers GET /metrics with jt still planning: the COMMIT is part
# of the plan's turn on the planner's thread.  (Sent from the loop, it
# held the GET until the answer came, and jt was no longer planning.)
restart_dc3 dc3-slowcommit --delay-commit-ms 5000
post_bg jt
JT=$BG
n=0
while [ "$(commits dc3-slowcommit jt)" -eq 0 ] && [ $n -lt 100 ]; do
    sleep 0.2
    n=$((n + 1))
done
during=$(planning)
wait $JT
job_state jt
if [ "$(commits dc3-slowcommit jt)" -eq 1 ] && [ "$during" = 1 ] &&
   [ "$(cat "$tmp/jt.status")" = 201 ] && [ "$(jq_job phase)" = active ]; then
    ok "while dc3 held its answer to jt's COMMIT back, GET /metrics answered (jt planning); then jt active"
else
    notok "jt: dc3 commits $(commits dc3-slowcommit jt), planning during its COMMIT '$during', POST $(cat "$tmp/jt.status"), $(jq_job phase) '$(jq_job reason)'"
fi
api DELETE "$JOBS/job=jt"
wait_released
stop_daemon

# ---- 6d. a COMMIT whose RELEASE the agent did not answer ----
# dc3 reserves jw's devices and holds its answer back 10 s; it is
# stopped (SIGSTOP) once it has reserved, so the COMMIT times out (3 s)
# and so does the RELEASE that follows it (dc3 may have reserved): that
# RELEASE never reaches dc3, which holds jw's devices.  It is tried
# again with the agents' next turn (jx's plan), as a RELEASE of a
# deleted job is, and dc3, continued meanwhile, releases jw.  (It was
# not: dc3 kept jw's devices until it restarted, and no metric said so.)
restart_dc3 dc3-stopped --delay-commit-ms 10000
coordinator_set timeout 3
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
post_bg jw
JW=$BG
n=0
while [ "$(commits dc3-stopped jw)" -eq 0 ] && [ $n -lt 200 ]; do
    sleep 0.05
    n=$((n + 1))
done
kill -STOP $PID3
wait $JW
kill -CONT $PID3
[ "$(commits dc3-stopped jw)" -eq 1 ] ||
    notok "dc3 did not commit jw: the test proves nothing"
job_state jw
retrying=$(metric lightrail_agent_releases_retrying)
intent jx 1 64 > "$tmp/jx.json"
api POST "$JOBS" "$tmp/jx.json"
wait_released
if [ "$(jq_job phase)" = blocked ] && [ "$retrying" = 1 ] &&
   [ "$(grep -c "'jw' released" "$A/dc3-stopped.log")" -eq 1 ]; then
    ok "jw's COMMIT and RELEASE unanswered by a stopped dc3: jw blocked, the RELEASE tried again with jx's plan, dc3 released jw"
else
    notok "jw: $(jq_job phase) '$(jq_job reason)'; RELEASEs retrying then '$retrying'; dc3 released jw $(grep -c "'jw' released" "$A/dc3-stopped.log") time(s), committed it $(commits dc3-stopped jw)"
fi
api DELETE "$JOBS/job=jx"
wait_released
stop_daemon

# ---- 6e. a RELEASE lost twice, then a job of its name elsewhere ----
# dc2's agent behind a proxy (on dc2's port) that, told so (SIGUSR1),
# breaks its connections and swallows the next one.  jy holds all of
# dc2; its RELEASE there is swallowed (timeout 2 s), and so is its
# retry, sent first by the plan of a new jy, which dc2 (full) is not
# part of.  That plan commits jy at other agents only, so the RELEASE
# of the old jy at dc2 is still due: it is tried again with the next
# plan (jz's), and dc2 releases it.  (It was dropped as if the new jy's
# COMMIT had released it: dc2 kept the old jy's devices, and no metric
# said so.)
if command -v python3 > /dev/null; then
restart_dc3 dc3-6e
stop_agent $PID2
start_agent dc2-cut "$A/dc2.json" && PID2=$APID
python3 "$srcdir/tests/cli/stallproxy.py" --no-stall --cut-on-usr1 \
    --port "$P2" "$APORT" "$tmp/cut.count" > "$tmp/cut.port" 2> "$tmp/cut.log" &
PROXY=$!
PIDS="$PIDS $PROXY"
await_file "$tmp/cut.port" $PROXY "$tmp/cut.log" "the proxy" 100 ||
    notok "the proxy did not start"
cut() {   # cut N: the proxy's Nth SIGUSR1, handled
    kill -USR1 $PROXY
    n=0
    while [ "$(cat "$tmp/cut.count.cut" 2>/dev/null)" != "$1" ] && [ $n -lt 100 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}
coordinator_set timeout 2
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
LOG2=$A/dc2-cut.log
intent jy 1 64 > "$tmp/jy.json"
api POST "$JOBS" "$tmp/jy.json"
job_state jy
[ "$(commits dc2-cut jy)" -eq 1 ] ||
    notok "dc2 did not commit jy ($(jq_job phase) '$(jq_job reason)'): the test proves nothing"
cut 1
api DELETE "$JOBS/job=jy"
wait_released
lost=$(metric lightrail_agent_releases_retrying)
cut 2
api POST "$JOBS" "$tmp/jy.json"
job_state jy
jy_remote=$(private_dcs)
case "$jy_remote" in
    *dc2*) notok "the new jy's chain has a stage at dc2 ('$jy_remote'): the test proves nothing" ;;
esac
intent jz 1 64 > "$tmp/jz.json"
api POST "$JOBS" "$tmp/jz.json"
wait_released
if [ "$lost" = 1 ] && [ "$(grep -c "'jy' released" "$LOG2")" -eq 1 ] &&
   [ "$(metric lightrail_agent_releases_retrying)" = 0 ]; then
    ok "the old jy's RELEASE, lost twice at dc2, was tried again after the new jy committed elsewhere ($jy_remote), and dc2 released it"
else
    notok "old jy at dc2: retrying '$lost', dc2 released jy $(grep -c "'jy' released" "$LOG2") time(s), retrying now $(metric lightrail_agent_releases_retrying), given up $(metric lightrail_agent_releases_given_up_total); new jy: $(jq_job phase) at '$jy_remote'"
fi
api DELETE "$JOBS/job=jy"
api DELETE "$JOBS/job=jz"
wait_released
stop_daemon

# ---- 6f. a KEEP owed while a job is provisioned ----
# The proxy swallows the start's KEEP to dc2 (the daemon owes dc2 one),
# then the one jp's plan carries first; the plan itself reaches dc2 and
# commits jp there.  jn, posted while jp's KEEP waits, is planned while
# jp's lightpaths are being placed: its plan carries the owed KEEP, which
# must list jp.  (It listed the active jobs only: dc2 freed jp's devices
# while jp was admitted, and jp held nothing there.)
jq '.["lightrail-config:lightraild"].coordinator.timeout = "5"' \
    "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"
cut 3
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
due=$(metric lightrail_agent_keeps_due)
accepted=$(cat "$tmp/cut.count")
cut 4
post_bg() {   # post_bg NAME: POSTs NAME's intent in the background ($!)
    intent "$1" 1 64 > "$tmp/$1.json"
    curl -s -m 60 -o "$tmp/$1.out" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/yang-data+json' \
        --data-binary @"$tmp/$1.json" "$URL$JOBS" > "$tmp/$1.status" &
}
post_bg jp
JP=$!
n=0
while [ "$(cat "$tmp/cut.count")" = "$accepted" ] && [ $n -lt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
post_bg jn
JN=$!
n=0
while [ "$(planning)" != 2 ] && [ $n -lt 50 ]; do sleep 0.05; n=$((n + 1)); done
both=$(planning)
wait $JP $JN
wait_released
job_state jp
if [ "$due" != 1 ] || [ "$both" != 2 ] || [ "$(commits dc2-cut jp)" -ne 1 ]; then
    notok "6f: keeps due '$due' after the start, planning '$both' while jp's KEEP waited, dc2 committed jp $(commits dc2-cut jp) time(s): the test proves nothing"
elif [ "$(jq_job phase)" = active ] &&
     [ "$(grep -c "'jp' released" "$LOG2")" -eq 0 ] &&
     [ "$(metric lightrail_agent_keeps_due)" = 0 ]; then
    ok "jn's plan carried the KEEP owed to dc2 while jp was provisioned, and dc2 kept jp"
else
    notok "jp $(jq_job phase) '$(jq_job reason)'; dc2: $(grep -h "'jp'\|keep" "$LOG2" | tail -3); keeps due $(metric lightrail_agent_keeps_due)"
fi
api DELETE "$JOBS/job=jp"
api DELETE "$JOBS/job=jn"
wait_released
stop_daemon
kill $PROXY 2>/dev/null
wait $PROXY 2>/dev/null
stop_agent $PID2
LISTEN=127.0.0.1:$P2 start_agent dc2-back "$A/dc2.json" && PID2=$APID
fi
coordinator_set timeout 30

# ---- 7. a plan over its whole budget (coordinator plan-timeout) ----
# dc3's agent answers 0.04 s late, each answer well within the 30 s
# timeout; a plan of many requests given 1 s in all blocks its job, the
# budget named, and nothing is committed.
restart_dc3 dc3-late --delay-ms 40
coordinator_set plan-timeout 1
start_daemon || { notok "lightraild did not restart"; lr_summary; exit 1; }
expect_blocked jc "too slow: the plan's budget of 1 s ran out"
stop_daemon
# A remote inventory and no coordinator: the daemon will not start.
jq 'del(.["lightrail-config:lightraild"].coordinator)
    | .["lightrail-config:lightraild"]["state-dir"] = "state2"' \
    "$D/lightraild.json" > "$D/nocoord.json"
$LIGHTRAILD --config "$D/nocoord.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "coordinator" "$tmp/err"; then
    ok "no coordinator TLS for a remote inventory: exit $rc, $(tail -1 "$tmp/err")"
else
    notok "no coordinator: exit $rc, $(cat "$tmp/err")"
fi

for p in $PID2 $PID3; do stop_agent $p; done
lr_summary
