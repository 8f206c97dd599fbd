#!/bin/sh
# A wall clock set forward past a CRL's next update while a connection
# is up (docs/agent-protocol.md, "Revocation"): the CRL is stale from
# then on by the clock OpenSSL reads, but the agent's timer counts on
# the event loop's monotonic clock, which the step leaves behind.  The
# agent must close the connection all the same, within
# LR_TLS_CRL_RECHECK_S (10 s) of the step, not at the next update by
# the monotonic clock; so must lightraild the connection it keeps to
# dc2's agent since a job.  The step is the tested process's alone: the
# tests/cli/clockshift.c shim (LD_PRELOAD) shifts its time(),
# gettimeofday() and CLOCK_REALTIME by the seconds in a file.  Waits for
# the log line, bounded; asserts no timing.  Agents and lightraild are
# stopped by their PID.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
mk_clock_shim

# A CRL of 'ca' revoking none, good for ten minutes.
mk_crl crl -crlsec 600 2> "$tmp/crl.err" ||
    { echo "skip: openssl ca cannot make a CRL: $(cat "$tmp/crl.err")"; exit 77; }
T=$(date -u -d "$(openssl crl -noout -nextupdate -in "$C/crl.pem" | sed 's/^nextUpdate=//')" +%Y-%m-%dT%H:%M:%SZ)

agent_file dc2 4 311.111 0.45 80 45.678
jq '."lightrail-agent:agent".tls.crl = "../certs/crl.pem"' "$A/dc2.json" \
    > "$A/clock.json"
SHIFT=$tmp/shift
echo 0 > "$SHIFT"
# The agent alone runs with the shim; the test's own clock is the real one.
if shimmed start_agent clock "$A/clock.json"; then
    # HELLO on a connection; the agent's clock set 15 minutes forward,
    # past the CRL's next update; the log line awaited for 40 s (4
    # times the cap); HELLO again.
    python3 - "$C" "$APORT" "$A/clock.log" "$SHIFT" \
        "$srcdir/tests/cli" > "$tmp/out" 2>&1 <<'PY'
import sys, time
certs, port, log, shift, lib = sys.argv[1:6]
sys.path.insert(0, lib)
from agentwire import connect, hello_until_logged
s = connect(certs, port, "dc2", "coordinator")


def shift_forward():
    with open(shift, "w") as f:
        f.write("900\n")


hello_until_logged(s, log, "(nextUpdate)", time.time() + 40,
                   between=shift_forward)
PY
    if grep -q '^hello 1: ok$' "$tmp/out" && grep -q '^hello 2: closed$' "$tmp/out" &&
       grep -F -q "CRL '$A/../certs/crl.pem' expired at $T (nextUpdate): connection to 127.0.0.1:" "$A/clock.log"; then
        ok "agent: a clock set forward past the CRL's next update closes the connection up"
    else
        notok "agent kept a connection after its clock went past the CRL's next update $T: $(cat "$tmp/out"; tail -3 "$A/clock.log")"
    fi
    stop_agent "$APID" || notok "agent did not stop cleanly"
else
    notok "agent under the clock shim did not start: $(tail -3 "$A/clock.log")"
fi

# ---- lightraild: coordinator/crl, its clock set forward ----
agent_file dc2 4 311.111 0.45 80 45.678
start_agent plain "$A/dc2.json" || { notok "agent without a CRL did not start"; lr_summary; exit; }
PLAIN=$APORT PLAINPID=$APID
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$PLAIN" crl.pem
SHIFT=$tmp/dshift
echo 0 > "$SHIFT"
if shimmed start_daemon; then
    # j1 leaves its connection to dc2's agent kept (DELETE's RELEASE
    # goes over it too); then lightraild's clock is set 15 minutes
    # forward, past the CRL's next update, and its log line awaited for
    # 40 s.
    printf '{"lightrail-job:job":[{"name":"j1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        > "$tmp/j1.json"
    api POST "$JOBS" "$tmp/j1.json"
    api GET "$JOBS/job=j1"
    j1=$(jq -r '.["lightrail-job:job"][0].state.phase' "$tmp/body")
    api DELETE "$JOBS/job=j1"
    echo 900 > "$SHIFT"
    said="CRL '$C/crl.pem' expired at $T (nextUpdate): connection to dc2 closed; install a fresh CRL and send SIGHUP"
    if [ "$j1" = active ] && await_log "$D/log" "$said" $(($(date +%s) + 40)); then
        ok "lightraild: a clock set forward past coordinator/crl's next update closes the connection kept to dc2"
    else
        notok "lightraild kept dc2's connection after its clock went past the CRL's next update $T: j1 $j1, $(grep -F -e CRL -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild under the clock shim did not start: $(tail -3 "$D/log")"
fi
stop_agent "$PLAINPID" || notok "agent $PLAINPID did not stop cleanly"
lr_summary
