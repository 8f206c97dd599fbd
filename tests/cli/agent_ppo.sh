#!/bin/sh
# A ppo intent over DCs that agents plan, with ppo-rollout (lightraild's
# decider would run the policy's rollout off the loop first): refused,
# 400, "ask for cdynp", no job.  lr_ctl_decide_begin() refuses it in its
# turn before any decision, with begin_admission()'s words (one check,
# lr_ctl.c refuse_for_agents(); test_ctl_ppo holds that no decision is
# begun).  nb_restconf.c's decision_done() and decide_next() hand a
# decision to submit_deferred(), which calls no agents_back(): that is
# right only while the admission of a ppo intent never reaches the
# agents (begin_admission() refuses every algorithm but cdynp when a DC
# is remote, before admit() and its lr_ctl_plan_with_agents()).  Should
# this refusal go, those paths must tell the loop as plan_next() does
# (agents_back()), or an agent's down line, its idle closes and
# lightraild's TLS timer wait for a later plan.  The agent and
# lightraild are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

agent_file dc2 4 311.111 0.45 80 45.678
start_agent up "$A/dc2.json" || { notok "agent did not start"; lr_summary; exit; }
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$APORT"
# A policy for this network (dc2 a placeholder, as the cluster file
# says), so that it is usable and the decider runs: a few hundred
# steps, it need not be good.
TOPO=$(cd "$srcdir" && pwd)/examples/topologies/metro.json
$LIGHTRAIL train --topology "$TOPO" --cluster "$D/cluster.json" --steps 512 \
    --rollout 512 --seed 1 --out "$D/remote.pol" --quiet 2> "$tmp/train.err" ||
    { notok "train: $(tail -3 "$tmp/train.err")"; lr_summary; exit; }
jq --arg p "$D/remote.pol" '."lightrail-config:lightraild" += {"ppo-policy": $p,
      "ppo-rollout": {"load": "2.5", "samples": 2, "screen": 0, "horizon": 2,
                      "top": 1, "min-gpus": 0}}' \
    "$D/lightraild.json" > "$D/cfg.tmp" && mv "$D/cfg.tmp" "$D/lightraild.json"

if start_daemon; then
    grep -q "ppo policy .*remote.pol loaded" "$D/log" \
        && ok "lightraild: the policy for the network with dc2's agent is in use" \
        || notok "lightraild: policy not in use: $(grep ppo "$D/log" | head -3)"
    for m in gpt-1.9b llama2-13b; do
        printf '{"lightrail-job:job":[{"name":"p1","model":"%s","batch":32,"microbatch":1,"gpus":{"min":4,"max":4},"algorithm":"ppo"}]}\n' \
            "$m" > "$tmp/p1.json"
        api POST "$JOBS" "$tmp/p1.json"
        msg=$(jq -r '."ietf-restconf:errors".error[0]."error-message" // empty' "$tmp/body")
        if [ "$STATUS" = 400 ] \
           && [ "$msg" = "algorithm 'ppo' needs every data center's devices, and 1 are planned by their agents: ask for cdynp" ]; then
            ok "ppo intent ($m) over an agent's DC, in the decider's turn: 400, $msg"
        else
            notok "ppo intent ($m) over an agent's DC: $STATUS $(head -c 600 "$tmp/body")"
        fi
        api GET "$JOBS/job=p1"
        [ "$STATUS" = 404 ] && ok "ppo intent ($m): no job p1" \
            || notok "ppo intent ($m): GET p1 is $STATUS"
    done
    stop_daemon
else
    notok "lightraild did not start: $(tail -3 "$D/log")"
fi
stop_agent "$APID" || notok "agent $APID did not stop cleanly"
lr_summary
