#!/bin/sh
# A wall clock set back before a CRL's last update (thisUpdate) or a
# peer certificate's notBefore while a connection is up
# (docs/agent-protocol.md, "Revocation"): OpenSSL then refuses every new
# handshake ("not yet valid"), so each end judges its connections up
# again and closes those refused, as it does when the clock passes a
# next update or a notAfter.  The step is the tested process's alone:
# the tests/cli/clockshift.c shim (LD_PRELOAD) shifts its time(),
# gettimeofday() and CLOCK_REALTIME by the (here negative) seconds in a
# file; the event loop's monotonic clock does not move.
#   a. the agent, no CRL: the coordinator's chain, made now, is not
#      yet valid 15 minutes earlier; the coordinator's certificate,
#      made after its CA's, is the one named (until 2026-12-07 the
#      CA's was, the first OpenSSL finds: it checks from the top);
#   b. the agent with a CRL made now: the CRL and the certificate are;
#   c. lightraild with coordinator/crl, its connection kept to dc2's
#      agent since a job.
# Each waits for its log line for 40 s (4 times the timer's cap), bounded;
# asserts no timing.  Agents and lightraild are stopped by their PID.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
mk_clock_shim

# A CRL of 'ca' revoking none, last updated now, good for a day.
mk_crl crl 2> "$tmp/crl.err" ||
    { echo "skip: openssl ca cannot make a CRL: $(cat "$tmp/crl.err")"; exit 77; }

# agent_case NAME CONFIG TEXT OK-MESSAGE: an agent under the shim, a
# HELLO on a connection, its clock set 15 minutes back, TEXT awaited in
# its log for 40 s, HELLO again: answered before, closed after.
agent_case() {
    SHIFT=$tmp/$1.shift
    echo 0 > "$SHIFT"
    if ! shimmed start_agent "$1" "$2"; then
        notok "agent $1 under the clock shim did not start: $(tail -3 "$A/$1.log")"
        return
    fi
    python3 - "$C" "$APORT" "$A/$1.log" "$SHIFT" "$3" \
        "$srcdir/tests/cli" > "$tmp/$1.out" 2>&1 <<'PY'
import sys, time
certs, port, log, shift, text, lib = sys.argv[1:7]
sys.path.insert(0, lib)
from agentwire import connect, hello_until_logged
s = connect(certs, port, "dc2", "coordinator")


def shift_back():
    with open(shift, "w") as f:
        f.write("-900\n")


hello_until_logged(s, log, text, time.time() + 40, between=shift_back)
PY
    if grep -q '^hello 1: ok$' "$tmp/$1.out" && grep -q '^hello 2: closed$' "$tmp/$1.out" &&
       grep -F "$3" "$A/$1.log" | grep -F -q "(coordinator): closed: its certificate is refused: "; then
        ok "$4"
    else
        notok "agent $1 kept a connection after its clock went back 15 minutes: $(cat "$tmp/$1.out"; tail -3 "$A/$1.log")"
    fi
    stop_agent "$APID" || notok "agent $1 did not stop cleanly"
}

# ---- a. the agent, no CRL: the coordinator's notBefore ----
agent_file dc2 4 311.111 0.45 80 45.678
agent_case nocrl "$A/dc2.json" \
    "certificate /CN=coordinator is not yet valid (its notBefore is ahead of this host's clock): refused until the clock is set right" \
    "agent: a clock set back before the coordinator's notBefore closes the connection up"

# ---- b. the agent with a CRL: its last update ----
jq '."lightrail-agent:agent".tls.crl = "../certs/crl.pem"' "$A/dc2.json" \
    > "$A/back.json"
agent_case back "$A/back.json" \
    "(coordinator): closed: its certificate is refused: CRL '$A/../certs/crl.pem' is not yet valid (its last update is ahead of this host's clock): every peer is refused until the clock is set right" \
    "agent: a clock set back before its CRL's last update closes the connection up"

# ---- c. lightraild: coordinator/crl, its clock set back ----
agent_file dc2 4 311.111 0.45 80 45.678
start_agent plain "$A/dc2.json" || { notok "agent without a CRL did not start"; lr_summary; exit; }
PLAIN=$APORT PLAINPID=$APID
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$PLAIN" crl.pem
SHIFT=$tmp/dshift
echo 0 > "$SHIFT"
if shimmed start_daemon; then
    # j1 leaves its connection to dc2's agent kept; then lightraild's
    # clock is set 15 minutes back, before the CRL's last update and
    # dc2's notBefore, and its log line awaited for 40 s.
    printf '{"lightrail-job:job":[{"name":"j1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        > "$tmp/j1.json"
    api POST "$JOBS" "$tmp/j1.json"
    api GET "$JOBS/job=j1"
    j1=$(jq -r '.["lightrail-job:job"][0].state.phase' "$tmp/body")
    echo -900 > "$SHIFT"
    said="agent dc2: connection closed: its certificate is refused: CRL '$C/crl.pem' is not yet valid (its last update is ahead of this host's clock): every peer is refused until the clock is set right"
    if [ "$j1" = active ] && await_log "$D/log" "$said" $(($(date +%s) + 40)); then
        ok "lightraild: a clock set back before coordinator/crl's last update closes the connection kept to dc2"
    else
        notok "lightraild kept dc2's connection after its clock went back 15 minutes: j1 $j1, $(grep -F -e CRL -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild under the clock shim did not start: $(tail -3 "$D/log")"
fi
stop_agent "$PLAINPID" || notok "agent $PLAINPID did not stop cleanly"
lr_summary
