#!/bin/sh
# Two CRLs in one file, of two CAs, with different next updates, on the
# agent's timer (docs/agent-protocol.md, "Revocation"): the timer is
# armed at the earliest next update of the CRLs loaded, not at the
# first CRL's nor at the latest; once that one is past, and after a
# SIGHUP that refreshes it, at the earliest of those still to come.
# The agent's CA file holds CA-A and CA-B; its CRL file holds CA-A's
# CRL first (next update TA), then CA-B's (TB, sooner).  CA-A's is
# first in OpenSSL's store too, which sorts the CRLs by issuer name
# (caa before cab).  Two connections: one as a coordinator of CA-A, one
# of CA-B.
#   a. at TB the connection of CA-B is closed, the log naming TB; the
#      one of CA-A, whose CRL is still good, is kept;
#   b. SIGHUP with CA-B's CRL refreshed (next update later than TA): a
#      new connection of CA-B is made; at TA the connection of CA-A is
#      closed, the log naming TA, and the new one of CA-B is kept.
# A timer armed at the later or at the first CRL's next update closes
# the connection of CA-B only at TA, the log naming TA (the latest next
# update past): a fails; one armed at the latest fails b too.  Each
# waits for the log line it expects, bounded short of the next event;
# no test asserts how soon it came.
#   c. lightraild's own timer (crl_arm(), the same fold of the CRLs):
#      as coordinator with a CRL file of two CAs' CRLs, the later
#      first, it closes its connection to dc2 once the earlier next
#      update is past, the log naming it (see below for what it does
#      not catch).
# The agents and lightraild are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
command -v python3 > /dev/null || { echo "skip: python3 not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca caa && mk_ca cab && mk_cert caa dc2 dc2 &&
  mk_cert caa coorda coordinator && mk_cert cab coordb coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
# The agent and the test's client (agentwire.connect) trust ca.pem.
cat "$C/caa.pem" "$C/cab.pem" > "$C/ca.pem"
mk_crl probe -ca caa -crlsec 60 || { echo "skip: openssl ca has no -crlsec"; exit 77; }

# next_update NAME: $C/NAME.pem's next update as the logs print it
# (2026-12-07T03:10:49Z); next_epoch NAME: in seconds since the epoch.
next_update() {
    date -u -d "$(openssl crl -noout -nextupdate -in "$C/$1.pem" | sed 's/^nextUpdate=//')" +%Y-%m-%dT%H:%M:%SZ
}
next_epoch() {
    date -u -d "$(openssl crl -noout -nextupdate -in "$C/$1.pem" | sed 's/^nextUpdate=//')" +%s
}

# TB a few seconds ahead (the agent of a sanitizer build starts in
# time), TA far enough after it that a timer waking at TB judges with
# TA still to come, CA-B's refreshed CRL (b2) well after TA.
{ mk_crl b1 -ca cab -crlsec 15 && mk_crl a1 -ca caa -crlsec 40 &&
  mk_crl b2 -ca cab -crlsec 120; } ||
    { echo "skip: openssl ca cannot make CRLs"; exit 77; }
cat "$C/a1.pem" "$C/b1.pem" > "$C/two-crl.pem"
cat "$C/a1.pem" "$C/b2.pem" > "$C/hup-crl.pem"
TA=$(next_update a1) TB=$(next_update b1)

agent_file dc2 4 311.111 0.45 80 45.678
jq '."lightrail-agent:agent".tls.crl = "../certs/two-crl.pem"' \
    "$A/dc2.json" > "$A/two.json"
start_agent two "$A/two.json" ||
    { notok "the agent with two CRLs did not start: $(tail -3 "$A/two.log")"; lr_summary; exit; }

# One client holds both connections through both parts: the SIGHUP of b
# is its own (the agent's PID given), after a's closing is logged.  Its
# lines: "a: ..." and "b: ..." as hello() says them.
python3 - "$C" "$APORT" "$APID" "$A/two.log" "$TA" "$TB" \
    "$(($(next_epoch a1) - 3))" "$(($(next_epoch a1) + 20))" \
    "$srcdir/tests/cli" > "$tmp/two.out" 2>&1 <<'PY'
import os, shutil, signal, sys, time
certs, port, pid, log, ta, tb, a_until, b_until, lib = sys.argv[1:10]
sys.path.insert(0, lib)
from agentwire import connect, hello


def await_line(text, until, count=1):
    while time.time() <= int(until) and open(log).read().count(text) < count:
        time.sleep(0.1)
    return open(log).read().count(text) >= count


def say(part, what, sock):
    print(part, end=" ")
    hello(sock, what)


sa = connect(certs, port, "dc2", "coorda")
sb = connect(certs, port, "dc2", "coordb")
say("a:", "A before", sa)
say("a:", "B before", sb)
await_line(f"expired at {tb} (nextUpdate)", a_until)
say("a:", "B after TB", sb)
say("a:", "A after TB", sa)
shutil.copyfile(f"{certs}/hup-crl.pem", f"{certs}/two-crl.pem")
said = "SIGHUP: certificate, key, CA and CRL read again"
n = open(log).read().count(said)
os.kill(int(pid), signal.SIGHUP)
print("b: SIGHUP", "logged" if await_line(said, time.time() + 10, n + 1)
      else "not logged")
sb2 = connect(certs, port, "dc2", "coordb")
say("b:", "B2 before", sb2)
await_line(f"expired at {ta} (nextUpdate)", b_until)
say("b:", "A after TA", sa)
say("b:", "B2 after TA", sb2)
PY
CLOSED="closed; install a fresh CRL and send SIGHUP"
LINE="CRL '$A/../certs/two-crl.pem' expired at"
if grep -q '^a: hello A before: ok$' "$tmp/two.out" &&
   grep -q '^a: hello B before: ok$' "$tmp/two.out" &&
   grep -q '^a: hello B after TB: closed$' "$tmp/two.out" &&
   grep -q '^a: hello A after TB: ok$' "$tmp/two.out" &&
   [ "$(grep -c -F "$LINE $TB (nextUpdate): connection to 127.0.0.1:" "$A/two.log")" = 1 ]; then
    ok "two CRLs, the later first: the timer at the earlier's next update closes the connection of its CA only"
else
    notok "two CRLs, next updates $TA (CA-A's, first) and $TB (CA-B's): $(cat "$tmp/two.out"; grep -F -e 'expired at' -e closed "$A/two.log" | tail -3)"
fi
if grep -q '^b: SIGHUP logged$' "$tmp/two.out" &&
   grep -q '^b: hello B2 before: ok$' "$tmp/two.out" &&
   grep -q '^b: hello A after TA: closed$' "$tmp/two.out" &&
   grep -q '^b: hello B2 after TA: ok$' "$tmp/two.out" &&
   [ "$(grep -c -F "$LINE $TA (nextUpdate): connection to 127.0.0.1:" "$A/two.log")" = 1 ] &&
   [ "$(grep -c -F "$CLOSED" "$A/two.log")" = 2 ]; then
    ok "after SIGHUP refreshed CA-B's CRL: the timer at CA-A's next update, the next earliest"
else
    notok "after SIGHUP with CA-B's CRL refreshed, CA-A's at $TA: $(cat "$tmp/two.out"; grep -F -e 'expired at' -e closed "$A/two.log" | tail -3)"
fi
stop_agent "$APID" || notok "the agent did not stop cleanly: $(tail -3 "$A/two.log")"

# ---- c. lightraild's timer: coordinator/crl of two CAs' CRLs ----
# lightraild, the coordinator of CA-A trusting both CAs, keeps its
# connection to dc2's agent (of CA-A; the agent without a CRL) after a
# job.  Its CRL file holds CA-B's CRL first (next update TDB, two
# minutes), then CA-A's (TDA, sooner: lightraild of a sanitizer build
# has started and planned the job by then).  After TDA the connection
# to dc2 is closed, the log naming TDA; awaited until TDA + 20 s, well
# short of TDB: a fold that missed CA-A's CRL (the second in the file)
# would keep the connection till TDB.  Not caught here: a timer armed
# at the later next update (crl_fold() taking the latest); lightraild
# wakes at least every LR_TLS_CRL_RECHECK_S (10 s) and its fold then
# finds CA-A's CRL stale, so such a timer closes the connection at most
# 10 s late, which only an assert on timing would tell.
agent_file dc2 4 311.111 0.45 80 45.678
start_agent plain "$A/dc2.json" ||
    { notok "the agent without a CRL did not start: $(tail -3 "$A/plain.log")"; lr_summary; exit; }
PLAINPID=$APID
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
cp "$C/coorda.pem" "$C/coordinator.pem"
cp "$C/coorda.key" "$C/coordinator.key"
{ mk_crl db -ca cab -crlsec 120 && mk_crl da -ca caa -crlsec 20; } ||
    { notok "openssl ca did not make lightraild's CRLs"; lr_summary; exit; }
cat "$C/db.pem" "$C/da.pem" > "$C/dtwo.pem"
TDA=$(next_update da) TDB=$(next_update db)
dc2_remote "$APORT" dtwo.pem
if start_daemon; then
    printf '{"lightrail-job:job":[{"name":"c1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        > "$tmp/c1.json"
    api POST "$JOBS" "$tmp/c1.json"
    api GET "$JOBS/job=c1"
    c1=$(jq -r '.["lightrail-job:job"][0].state.phase' "$tmp/body")
    api DELETE "$JOBS/job=c1"
    said="CRL '$C/dtwo.pem' expired at $TDA (nextUpdate): connection to dc2 closed; install a fresh CRL and send SIGHUP"
    if [ "$c1" = active ] &&
       await_log "$D/log" "$said" $(($(next_epoch da) + 20)); then
        ok "lightraild, two CRLs, the later first: the earlier's next update closes the connection to dc2"
    else
        notok "lightraild, two CRLs, next updates $TDB (CA-B's, first) and $TDA (CA-A's): c1 $c1, $(grep -F -e CRL -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild with two CAs' CRLs did not start: $(tail -3 "$D/log")"
fi
stop_agent "$PLAINPID" || notok "the agent without a CRL did not stop cleanly: $(tail -3 "$A/plain.log")"
lr_summary
