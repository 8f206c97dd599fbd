#!/bin/sh
# A connection kept past a CRL's next update (docs/agent-protocol.md,
# "Revocation"): a new handshake fails closed once a CRL is stale, so a
# connection up must not go on unchecked because it keeps asking.  Both
# ends arm a timer at the earliest next update of the CRLs they loaded,
# and close the connections that CRL no longer admits.  CRLs from
# `openssl ca -gencrl -crlsec N`, a few seconds ahead.
#   a. the agent: a connection up when its CRL's next update passes is
#      closed, and the log says so;
#   b. the agent: SIGHUP with a CRL whose next update comes sooner than
#      the one loaded re-arms the timer (closed at the new one's);
#   c. the agent: SIGHUP with a CRL whose next update comes later: the
#      connection made after it is kept past the old one's, then closed
#      at the new one's;
#   d. lightraild's coordinator/crl: the connection kept to dc2's agent
#      since a job is closed at the CRL's next update, the next job is
#      blocked in the CRL's words; SIGHUP with a fresh CRL plans again
#      and re-arms the timer at the fresh one's.
# Each waits for the event it expects (a log line), bounded by the next
# update plus a margin; no test asserts how soon after it comes.
# Agents and lightraild are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

# next_update NAME: $C/NAME.pem's next update as the logs print it
# (2026-12-07T03:10:49Z); next_epoch NAME: in seconds since the epoch.
next_update() {
    date -u -d "$(openssl crl -noout -nextupdate -in "$C/$1.pem" | sed 's/^nextUpdate=//')" +%Y-%m-%dT%H:%M:%SZ
}
next_epoch() {
    date -u -d "$(openssl crl -noout -nextupdate -in "$C/$1.pem" | sed 's/^nextUpdate=//')" +%s
}
mk_crl day || { echo "skip: openssl ca cannot make CRLs"; exit 77; }
mk_crl probe -crlsec 60 || { echo "skip: openssl ca has no -crlsec"; exit 77; }

# agent_at NAME: dc2's agent file $A/NAME.json, its CRL $C/NAME-crl.pem
# (which SIGHUP reads again).
agent_at() {
    agent_file dc2 4 311.111 0.45 80 45.678
    jq --arg c "../certs/$1-crl.pem" '."lightrail-agent:agent".tls.crl = $c' \
        "$A/dc2.json" > "$A/$1.json"
}
# kept PORT LOG TEXT KEPT UNTIL: a connection to the agent at PORT;
# HELLO; when KEPT (an epoch second, 0: none) is given, HELLO again once
# it has passed; then waits for a line of LOG with TEXT, at most until
# the epoch second UNTIL, and sends HELLO once more.  One line per HELLO
# on stdout: "hello N: ok", or "hello N: closed".
kept() {
    python3 - "$C" "$@" "$srcdir/tests/cli" <<'PY'
import sys, time
certs, port, log, text, kept, until, lib = sys.argv[1:8]
sys.path.insert(0, lib)
from agentwire import connect, hello, hello_until_logged
s = connect(certs, port, "dc2", "coordinator")


def hello_once_kept():
    while time.time() < int(kept) + 1:
        time.sleep(0.1)
    hello(s, 2)


hello_until_logged(s, log, text, int(until), last=3,
                   between=hello_once_kept if int(kept) else None)
PY
}
CLOSED="closed; install a fresh CRL and send SIGHUP"

# ---- a. the agent: closed at its CRL's next update ----
mk_crl a1 -crlsec 10
cp "$C/a1.pem" "$C/a-crl.pem"
agent_at a
if start_agent a "$A/a.json"; then
    T=$(next_update a1)
    kept "$APORT" "$A/a.log" "$CLOSED" 0 $(($(next_epoch a1) + 30)) > "$tmp/a.out" 2>&1
    if grep -q '^hello 1: ok$' "$tmp/a.out" && grep -q '^hello 3: closed$' "$tmp/a.out" &&
       grep -F -q "CRL '$A/../certs/a-crl.pem' expired at $T (nextUpdate): connection to 127.0.0.1:" "$A/a.log" &&
       grep -F -q "(coordinator) $CLOSED" "$A/a.log"; then
        ok "agent: the connection up when its CRL's next update passed is closed, and why"
    else
        notok "agent kept a connection past its CRL's next update $T: $(cat "$tmp/a.out"; tail -3 "$A/a.log")"
    fi
    stop_agent "$APID"
else
    notok "agent with a CRL ahead a few seconds did not start"
fi

# ---- b, c. the agent: SIGHUP re-arms the timer ----
# b: a CRL good for a day, then one good for seconds.  c: one good for
# a few seconds, then one good for a few more: the connection made after
# the SIGHUP outlives the first's next update.
mk_crl b1 -crldays 1 && cp "$C/b1.pem" "$C/b-crl.pem" && agent_at b
start_agent b "$A/b.json" || notok "agent b did not start"
BPORT=$APORT BPID=$APID
mk_crl c1 -crlsec 10 && cp "$C/c1.pem" "$C/c-crl.pem" && agent_at c
start_agent c "$A/c.json" || notok "agent c did not start"
CPORT=$APORT CPID=$APID
mk_crl b2 -crlsec 10 && cp "$C/b2.pem" "$C/b-crl.pem"
mk_crl c2 -crlsec 20 && cp "$C/c2.pem" "$C/c-crl.pem"
hup_agent b "$BPID" || notok "agent b: SIGHUP not logged: $(tail -2 "$A/b.log")"
hup_agent c "$CPID" || notok "agent c: SIGHUP not logged: $(tail -2 "$A/c.log")"
TB=$(next_update b2) TC1=$(next_update c1) TC=$(next_update c2)
kept "$BPORT" "$A/b.log" "expired at $TB (nextUpdate)" 0 \
    $(($(next_epoch b2) + 30)) > "$tmp/b.out" 2>&1 &
bpy=$!
kept "$CPORT" "$A/c.log" "expired at $TC (nextUpdate)" "$(next_epoch c1)" \
    $(($(next_epoch c2) + 30)) > "$tmp/c.out" 2>&1
wait $bpy
if grep -q '^hello 1: ok$' "$tmp/b.out" && grep -q '^hello 3: closed$' "$tmp/b.out" &&
   grep -F -q "CRL '$A/../certs/b-crl.pem' expired at $TB (nextUpdate): connection to 127.0.0.1:" "$A/b.log"; then
    ok "agent: SIGHUP with a CRL that expires sooner re-arms the timer"
else
    notok "agent, SIGHUP to a CRL expiring at $TB: $(cat "$tmp/b.out"; tail -3 "$A/b.log")"
fi
if grep -q '^hello 1: ok$' "$tmp/c.out" && grep -q '^hello 2: ok$' "$tmp/c.out" &&
   grep -q '^hello 3: closed$' "$tmp/c.out" &&
   ! grep -F -q "expired at $TC1" "$A/c.log" &&
   grep -F -q "CRL '$A/../certs/c-crl.pem' expired at $TC (nextUpdate): connection to 127.0.0.1:" "$A/c.log"; then
    ok "agent: after SIGHUP with a fresh CRL, a connection outlives the old one's next update"
else
    notok "agent, SIGHUP from a CRL expiring at $TC1 to one at $TC: $(cat "$tmp/c.out"; tail -3 "$A/c.log")"
fi
stop_agent "$BPID" || notok "agent b did not stop cleanly"
stop_agent "$CPID" || notok "agent c did not stop cleanly"

# ---- d. lightraild's coordinator/crl ----
agent_file dc2 4 311.111 0.45 80 45.678
start_agent plain "$A/dc2.json" || { notok "agent without a CRL did not start"; lr_summary; exit; }
PLAIN=$APORT PLAINPID=$APID
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$PLAIN" d-crl.pem
job() {   # job NAME: POSTs a job, its state into $tmp/job
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        "$1" > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
    post=$STATUS
    api GET "$JOBS/job=$1"
    cp "$tmp/body" "$tmp/job"
}
jq_job() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/job"; }
# Far enough ahead for a sanitizer build to start and plan j1 first.
mk_crl d1 -crlsec 25
cp "$C/d1.pem" "$C/d-crl.pem"
if start_daemon; then
    T=$(next_update d1)
    # j1 leaves its connection to dc2's agent kept (DELETE's RELEASE
    # goes over it too).
    job j1
    j1=$(jq_job phase)
    api DELETE "$JOBS/job=j1"
    if [ "$j1" = active ] &&
       await_log "$D/log" "CRL '$C/d-crl.pem' expired at $T (nextUpdate): connection to dc2 $CLOSED" $(($(next_epoch d1) + 30)); then
        job j2
        if [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
           jq_job reason | grep -F -q "CRL '$C/d-crl.pem' is out of date (its next update is past)"; then
            ok "lightraild: the connection kept to dc2 closed at coordinator/crl's next update, the next job blocked"
        else
            notok "lightraild after the CRL's next update: POST $post, $(jq_job phase): $(jq_job reason)"
        fi
        api DELETE "$JOBS/job=j2"
    else
        notok "lightraild kept dc2's connection past its CRL's next update $T: j1 $j1, $(grep -F -e CRL -e 'agent dc2' "$D/log" | tail -3)"
    fi
    mk_crl d2 -crlsec 15
    cp "$C/d2.pem" "$C/d-crl.pem"
    T2=$(next_update d2)
    kill -HUP $PID
    await_log "$D/log" "SIGHUP: the coordinator's certificate, key, CA and CRL read again"
    job j3
    j3=$(jq_job phase)
    if [ "$j3" = active ] &&
       await_log "$D/log" "CRL '$C/d-crl.pem' expired at $T2 (nextUpdate): connection to dc2 $CLOSED" $(($(next_epoch d2) + 30)); then
        ok "lightraild: SIGHUP with a fresh coordinator/crl re-arms the timer at its next update"
    else
        notok "lightraild after SIGHUP with a CRL expiring at $T2: j3 $j3 $(jq_job reason), $(grep -F -e CRL -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL ahead a few seconds did not start"
fi
stop_agent "$PLAINPID" || notok "agent $PLAINPID did not stop cleanly"
lr_summary
