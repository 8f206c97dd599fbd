#!/bin/sh
# Two CAs and their two CRLs on both ends of the agents' mutual TLS
# (docs/agent-protocol.md, "Revocation"): a CA file holding CA-A and
# CA-B, a CRL file holding one CRL of each (openssl ca -gencrl).  The
# coordinator's certificates of the two CAs have the same serial, so a
# revocation judged by serial alone, not by issuer and serial, would
# refuse both.
#   a. the agent (CA file of two, CRLs of two): the coordinator of CA-A,
#      which CA-A's CRL revokes, is refused, the log naming the CRL and
#      the serial; the coordinator of CA-B, same serial, is accepted;
#   b. SIGHUP with CA-B's CRL now revoking it: the coordinator of CA-B
#      is refused too, and CA-A's stays refused;
#   c. the coordinator (lightrail plan --distributed, --ca of two, --crl
#      of two): an agent of CA-B is refused when CA-B's CRL revokes it,
#      whichever of the two CRLs comes first in the file, and planned
#      with when neither revokes it;
#   d. lightraild's coordinator (coordinator/ca and crl of two, its
#      certificate CA-B's): the agent of CA-B planned, then after a
#      SIGHUP with CA-B's CRL revoking it, its kept connection closed
#      and the next job blocked in the CRL's words.
# Agents and lightraild are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

# mk_cert_serial CA FILE NAME SERIAL: as mk_cert (agentlib.sh), with
# the serial SERIAL (hex) instead of a random one.
mk_cert_serial() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$C/$2.key" -out "$C/$2.csr" -subj "/CN=$3" 2>/dev/null &&
    printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n' "$3" \
        > "$C/$2.ext" &&
    openssl x509 -req -in "$C/$2.csr" -CA "$C/$1.pem" -CAkey "$C/$1.key" \
        -set_serial "0x$4" -out "$C/$2.pem" -days 1 -extfile "$C/$2.ext" \
        2>/dev/null
}
{ mk_ca caa && mk_ca cab && mk_cert caa dc2 dc2 && mk_cert cab dc2b dc2 &&
  mk_cert_serial caa coorda coordinator 1CA1 &&
  mk_cert_serial cab coordb coordinator 1CA1; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
cat "$C/caa.pem" "$C/cab.pem" > "$C/cas.pem"
# Every CRL of a CA with the same last update: the one a SIGHUP reads
# must replace the one loaded before, not stand beside it (OpenSSL
# keeps the first of two CRLs of an issuer equally recent).
LAST=$(date -u -d '-1 min' +%Y%m%d%H%M%SZ)
NEXT=$(date -u -d '+1 day' +%Y%m%d%H%M%SZ)
{ mk_crl a-none -ca caa -crl_lastupdate "$LAST" -crl_nextupdate "$NEXT" &&
  mk_crl a-coord -ca caa -revoke coorda -crl_lastupdate "$LAST" -crl_nextupdate "$NEXT" &&
  mk_crl b-none -ca cab -crl_lastupdate "$LAST" -crl_nextupdate "$NEXT" &&
  mk_crl b-coord -ca cab -revoke coordb -crl_lastupdate "$LAST" -crl_nextupdate "$NEXT" &&
  mk_crl b-dc2 -ca cab -revoke dc2b -crl_lastupdate "$LAST" -crl_nextupdate "$NEXT"; } ||
    { echo "skip: openssl ca cannot make CRLs"; exit 77; }
SERIAL=$(openssl x509 -noout -serial -in "$C/coorda.pem" | sed 's/^serial=//')
[ "$SERIAL" = "$(openssl x509 -noout -serial -in "$C/coordb.pem" | sed 's/^serial=//')" ] ||
    { echo "skip: openssl did not take -set_serial"; exit 77; }
SERIAL_DC2B=$(openssl x509 -noout -serial -in "$C/dc2b.pem" | sed 's/^serial=//')

# agent_twoca NAME CERT CRL: $A/NAME.json, dc2's agent with certificate
# $C/CERT.pem, the CA file of both CAs and CRL file $C/CRL.pem ("" for
# none).
agent_twoca() {
    agent_file dc2 4 311.111 0.45 80 45.678 "$2"
    jq --arg crl "$3" '."lightrail-agent:agent".tls.ca = "../certs/cas.pem"
        | if $crl != "" then ."lightrail-agent:agent".tls.crl =
            ("../certs/" + $crl + ".pem") else . end' \
        "$A/dc2.json" > "$A/$1.json"
}
cluster() {   # cluster PORT: dc2 is the agent at PORT
    cat <<EOF
{"lightrail-compute:compute": {
  "device-type": [
    {"name": "t1", "peak-tflops": "123.457", "efficiency": "0.4", "memory-gb": "32"},
    {"name": "unknown", "peak-tflops": "1", "efficiency": "1", "memory-gb": "1"}],
  "dc": [
    {"name": "dc1", "device-type": "t1", "device-count": 8,
     "intra-dc-bandwidth-gbytes-per-s": "23.456", "intra-dc-latency-us": "5"},
    {"name": "dc2", "device-type": "unknown", "device-count": 1,
     "intra-dc-bandwidth-gbytes-per-s": "1", "intra-dc-latency-us": "0",
     "remote": {"address": "127.0.0.1", "port": $1}}],
  "inter-dc-link": [
    {"from": "dc1", "to": "dc2", "bandwidth-gbps": "10", "latency-ms": "1"}]}}
EOF
}
# plan PORT COORD [ARGS...]: plan --distributed with dc2's agent at PORT
# as the coordinator of certificate $C/COORD.pem, trusting both CAs;
# JSON on $tmp/plan.out, stderr on $tmp/err, its exit status in $rc.
plan() {
    port=$1 coord=$2
    shift 2
    cluster "$port" > "$tmp/cluster.json"
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
        --cert "$C/$coord.pem" --key "$C/$coord.key" --ca "$C/cas.pem" \
        --format json "$@" > "$tmp/plan.out" 2> "$tmp/err"
    rc=$?
}
REFUSED="alert certificate revoked (the agent refused our certificate, serial $SERIAL: its CRL revokes it; the coordinator needs a new certificate from the CA)"

# ---- a. the agent: CA-A's CRL revokes the coordinator of CA-A ----
cat "$C/a-coord.pem" "$C/b-none.pem" > "$C/hup.pem"
agent_twoca two dc2 hup
start_agent two "$A/two.json" ||
    { notok "the agent with two CAs and two CRLs did not start: $(tail -3 "$A/two.log")"; lr_summary; exit; }
TWO=$APORT TWOPID=$APID
plan "$TWO" coorda
if [ $rc -eq 3 ] && [ ! -s "$tmp/plan.out" ] && grep -F -q "$REFUSED" "$tmp/err"; then
    ok "the coordinator of CA-A, revoked by CA-A's CRL (the first of two): refused"
else
    notok "the coordinator of CA-A revoked: exit $rc, stderr $(cat "$tmp/err"), stdout $(head -c 200 "$tmp/plan.out")"
fi
if await_log "$A/two.log" "refused: client certificate: revoked by CRL '$A/../certs/hup.pem' (serial $SERIAL, /CN=coordinator)"; then
    ok "the agent's log names the CRL file and the serial revoked"
else
    notok "the agent's log lacks the revocation: $(tail -3 "$A/two.log")"
fi
plan "$TWO" coordb
if [ $rc -eq 0 ] && jq -e .iteration_time_s "$tmp/plan.out" > /dev/null; then
    ok "the coordinator of CA-B, same serial, CA-B's CRL revoking none: planned"
else
    notok "the coordinator of CA-B: exit $rc, $(cat "$tmp/err")"
fi

# ---- b. SIGHUP: CA-B's CRL now revokes the coordinator of CA-B ----
n_refused=$(grep -c -F "refused: client certificate: revoked by CRL" "$A/two.log")
cat "$C/a-coord.pem" "$C/b-coord.pem" > "$C/hup.pem"
if hup_agent two "$TWOPID"; then
    ok "SIGHUP: the agent read its two CRLs again"
else
    notok "SIGHUP: the agent did not say it read them: $(tail -3 "$A/two.log")"
fi
plan "$TWO" coordb
if [ $rc -eq 3 ] && [ ! -s "$tmp/plan.out" ] && grep -F -q "$REFUSED" "$tmp/err" &&
   await_log "$A/two.log" "refused: client certificate: revoked by CRL" &&
   [ "$(grep -c -F "refused: client certificate: revoked by CRL '$A/../certs/hup.pem' (serial $SERIAL, /CN=coordinator)" "$A/two.log")" -gt "$n_refused" ]; then
    ok "after SIGHUP, CA-B's CRL (the second) revokes the coordinator of CA-B: refused"
else
    notok "after SIGHUP, the coordinator of CA-B: exit $rc, stderr $(cat "$tmp/err"), log $(tail -2 "$A/two.log")"
fi
plan "$TWO" coorda
if [ $rc -eq 3 ] && grep -F -q "$REFUSED" "$tmp/err"; then
    ok "after SIGHUP, the coordinator of CA-A is still refused"
else
    notok "after SIGHUP, the coordinator of CA-A: exit $rc, $(cat "$tmp/err")"
fi
stop_agent "$TWOPID"

# ---- c. the coordinator: --ca of two, --crl of two ----
agent_twoca b dc2b ""
start_agent b "$A/b.json" ||
    { notok "the agent of CA-B did not start: $(tail -3 "$A/b.log")"; lr_summary; exit; }
B=$APORT BPID=$APID
cat "$C/a-none.pem" "$C/b-none.pem" > "$C/none2.pem"
plan "$B" coorda --crl "$C/none2.pem"
if [ $rc -eq 0 ] && jq -e .iteration_time_s "$tmp/plan.out" > /dev/null; then
    ok "the agent of CA-B, two CRLs revoking none: planned"
else
    notok "the agent of CA-B, no revocation: exit $rc, $(cat "$tmp/err")"
fi
cat "$C/a-none.pem" "$C/b-dc2.pem" > "$C/b-second.pem"
cat "$C/b-dc2.pem" "$C/a-none.pem" > "$C/b-first.pem"
for f in b-second b-first; do
    plan "$B" coorda --crl "$C/$f.pem"
    if [ $rc -eq 3 ] && [ ! -s "$tmp/plan.out" ] &&
       grep -F -q "the agent's certificate is refused: revoked by CRL '$C/$f.pem' (serial $SERIAL_DC2B, /CN=dc2) (expected name 'dc2')" "$tmp/err"; then
        ok "the agent of CA-B revoked by CA-B's CRL ($f of two): refused by name and serial"
    else
        notok "the agent of CA-B revoked ($f): exit $rc, stderr $(cat "$tmp/err"), stdout $(head -c 200 "$tmp/plan.out")"
    fi
done

# ---- d. lightraild's coordinator: ca of two, crl of two, SIGHUP ----
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
# lightraild's coordinator is CA-B's, trusting both CAs (dc2_remote
# takes $C/coordinator.pem, .key and $C/ca.pem).
cp "$C/coordb.pem" "$C/coordinator.pem"
cp "$C/coordb.key" "$C/coordinator.key"
cp "$C/cas.pem" "$C/ca.pem"
cp "$C/none2.pem" "$C/hupd.pem"
job() {   # job NAME: POSTs a job, its state into $tmp/job
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        "$1" > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
    post=$STATUS
    api GET "$JOBS/job=$1"
    cp "$tmp/body" "$tmp/job"
}
jq_job() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/job"; }
dc2_remote "$B" hupd.pem
if start_daemon; then
    job d1
    d1=$(jq_job phase)
    api DELETE "$JOBS/job=d1"
    # CA-B's CRL, the second of two, now revokes dc2's agent.
    cp "$C/b-second.pem" "$C/hupd.pem"
    kill -HUP $PID
    await_log "$D/log" "SIGHUP: the coordinator's certificate, key, CA and CRL read again"
    job d2
    if [ "$d1" = active ] && [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "the agent's certificate is refused: revoked by CRL '$C/hupd.pem' (serial $SERIAL_DC2B, /CN=dc2)" &&
       grep -F -q "agent dc2: connection closed: its certificate is refused since SIGHUP: revoked by CRL '$C/hupd.pem' (serial $SERIAL_DC2B, /CN=dc2)" "$D/log"; then
        ok "lightraild, CA file and CRL file of two: dc2 of CA-B planned, then revoked by CA-B's CRL after SIGHUP"
    else
        notok "lightraild, two CAs: d1 $d1, POST $post, $(jq_job phase): $(jq_job reason); $(grep -F SIGHUP "$D/log" | tail -2)"
    fi
    stop_daemon
else
    notok "lightraild with a CA file and a CRL file of two did not start: $(tail -3 "$D/log")"
fi
stop_agent "$BPID"
lr_summary
