#!/bin/sh
# lightraild's timer that judges the connections kept to the agents
# (a CRL's next update, a peer chain's notAfter) rests while there is
# nothing to judge, and is armed when the planner hands the agents back
# with a connection kept (docs/controller.md, the coordinator's `crl`).
# Its wakes are counted in /metrics (lightrail_tls_timer_wakes_total):
#   a. a coordinator without a CRL, dc2's agent down at start (the
#      start's KEEP finds none): no connection is kept, and over 25 s
#      (2.5 times the timer's 10 s cap, at which it used to wake all
#      the same) the timer never wakes;
#   b. dc2's agent up, j1 planned with it on the planner's thread,
#      which leaves its connection kept, with dc2's chain (notAfter a
#      day ahead) and tells the loop only by handing the agents back:
#      the timer wakes again, within 25 s (awaited, bounded);
#   c. a coordinator with a CRL good for a day, dc2's agent down: no
#      connection is kept, and over 25 s the timer never wakes (until
#      2026-12-07 a CRL's bounds armed it with nothing to judge: every
#      10 s until its next update, for ever without one; a clock set
#      back before its last update only matters to a connection kept,
#      and a plan's connection is judged when the agents are back).
# Asserts counts, no timing.  The agent and lightraild are stopped by
# their PID, never by name.
# Part b cannot tell the agents_back() of nb_restconf.c's plan_done()
# from the one plan_next() makes after the admission: plan_done() runs
# plan_next() at once, on the same loop turn, and every way out of it
# for the intent just planned admits it (a blocked job too) and calls
# agents_back() again, which re-arms the timer from the same
# connections (crl_arm() computes the span anew).  The only way they
# differ is when the job set changed while the plan ran, so that
# plan_next() hands the planner a plan again before admitting: only a
# wake during that second plan would tell, which needs it held for
# more than the timer's 10 s cap, and a job to come or go during the
# first one -- timing, which this test does not assert.  A RELEASE
# turn ends in releases_done(), which is another call.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

agent_file dc2 4 311.111 0.45 80 45.678
# The agent's port, free again once it stops: dc2 is down at start.
start_agent probe "$A/dc2.json" || { notok "agent did not start"; lr_summary; exit; }
IPORT=$APORT
stop_agent "$APID"
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$IPORT"

metric() {
    api GET /metrics
    awk -v n="$1" '$1 == n { print $2 }' "$tmp/body"
}
wakes() { metric lightrail_tls_timer_wakes_total; }

if start_daemon; then
    # ---- a. nothing to judge: no wake ----
    sleep 25
    w0=$(wakes)
    if grep -q '^# TYPE lightrail_tls_timer_wakes_total counter$' "$tmp/body" &&
       grep -q '^# HELP lightrail_tls_timer_wakes_total ' "$tmp/body" &&
       [ "$w0" = 0 ] && grep -q 'agent dc2.*KEEP of 0 job(s) not sent' "$D/log"; then
        ok "lightraild: no CRL, no connection kept: the timer did not wake in 25 s"
    else
        notok "lightraild: no CRL, no connection kept: the timer woke '$w0' times in 25 s; $(grep 'agent dc2' "$D/log" | head -2)"
    fi
    # ---- b. a connection kept: the timer wakes again ----
    LISTEN=127.0.0.1:$IPORT start_agent idle "$A/dc2.json" ||
        { notok "agent did not start again on port $IPORT: $(tail -3 "$A/idle.log")"; stop_daemon; lr_summary; exit; }
    IPID=$APID
    printf '{"lightrail-job:job":[{"name":"j1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        > "$tmp/j1.json"
    api POST "$JOBS" "$tmp/j1.json"
    api GET "$JOBS/job=j1"
    j1=$(jq -r '.["lightrail-job:job"][0].state.phase' "$tmp/body")
    until=$(($(date +%s) + 25))
    w1=$(wakes)
    while [ "$(date +%s)" -le $until ] && [ "$w1" = "$w0" ]; do
        sleep 0.5
        w1=$(wakes)
    done
    if [ "$j1" = active ] && [ -n "$w1" ] && [ "$w1" -gt "$w0" ]; then
        ok "lightraild: a connection kept since j1: the timer wakes again ($w0 -> $w1)"
    else
        notok "lightraild: j1 $j1 kept dc2's connection, and the timer woke $w0 -> '$w1' times in 25 s"
    fi
    stop_daemon
else
    notok "lightraild did not start: $(tail -3 "$D/log")"
fi
stop_agent "$IPID" || notok "agent $IPID did not stop cleanly"

# ---- c. a CRL, no connection kept: no wake ----
mk_crl crl 2> "$tmp/crl.err" ||
    { echo "skip: openssl ca cannot make a CRL: $(cat "$tmp/crl.err")"; lr_summary; exit; }
coordinator_crl "$C/crl.pem"
# A fresh store (j1 gone) and log, as in part a.
rm -rf "$D/state"
: > "$D/log"
if start_daemon; then
    sleep 25
    w0=$(wakes)
    if [ "$w0" = 0 ] && grep -q 'agent dc2.*KEEP of 0 job(s) not sent' "$D/log"; then
        ok "lightraild: a CRL, no connection kept: the timer did not wake in 25 s"
    else
        notok "lightraild: a CRL, no connection kept: the timer woke '$w0' times in 25 s; $(grep 'agent dc2' "$D/log" | head -2)"
    fi
    stop_daemon
else
    notok "lightraild with coordinator/crl did not start: $(tail -3 "$D/log")"
fi
lr_summary
