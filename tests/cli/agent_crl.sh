#!/bin/sh
# Certificate revocation on both ends of the agents' mutual TLS
# (docs/agent-protocol.md, "Revocation"), with CRLs made by `openssl ca
# -gencrl` from a minimal openssl.cnf: one agent (dc2), dc1 and dc3
# planned in the coordinator's process.
#   a. the coordinator's certificate revoked by the agent's CRL: the
#      agent refuses it, by serial, and the plan says why;
#   b. dc2's certificate revoked by the coordinator's --crl: the plan
#      names the agent and the serial, and the agent's log says why;
#   c. CRLs that revoke neither: the plan is the one made without CRLs;
#   d. a CRL missing, not PEM, of another CA, stale (next update past)
#      or of a CA without cRLSign: refused at start by both ends, exit
#      2, one line naming the file and why, nothing made;
#   e. SIGHUP: the agent reads its CRL again, and closes a connection
#      up whose certificate it now revokes; a bad one is not taken; one
#      before the agent serves is held, not fatal;
#   f. the whole chain is checked: an intermediate CA revoked by the
#      root's CRL refuses the agent it signed, and the intermediate's own
#      CRL is needed;
#   g. lightraild's coordinator/crl: a job blocked by a revoked agent,
#      planned with a CRL revoking none, no start with a stale one;
#      SIGHUP reads it again: a stale one is logged and not taken, one
#      revoking dc2 closes the connection kept to dc2's agent, and the
#      next job is blocked in the CRL's words; one during a plan over
#      the agent waits for it, and that job is admitted.
# Agents are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }

PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_ca otherca && mk_cert ca dc2 dc2 &&
  mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }
# A CA whose keyUsage lacks cRLSign, as agentlib.sh made them before.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$C/nosign.key" -out "$C/nosign.pem" -days 1 -subj /CN=nosign \
    -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign 2>/dev/null

{ mk_crl none && mk_crl coord -revoke coordinator &&
  mk_crl dc2crl -revoke dc2 && mk_crl other -ca otherca &&
  mk_crl nosign-crl -ca nosign &&
  mk_crl stale -crl_lastupdate 20200101000000Z \
      -crl_nextupdate 20200102000000Z; } ||
    { echo "skip: openssl ca cannot make CRLs"; exit 77; }
SERIAL_COORD=$(openssl x509 -noout -serial -in "$C/coordinator.pem" | sed 's/^serial=//')
SERIAL_DC2=$(openssl x509 -noout -serial -in "$C/dc2.pem" | sed 's/^serial=//')

# agent_crl NAME CRL [CERT]: $A/NAME.json, dc2's agent file with tls/crl
# CRL (a path relative to the file, as the others; "" for none) and the
# certificate $C/CERT.pem (default dc2's).
agent_crl() {
    agent_file dc2 4 311.111 0.45 80 45.678 "${3:-}"
    if [ -n "$2" ]; then
        jq --arg c "$2" '."lightrail-agent:agent".tls.crl = $c' \
            "$A/dc2.json" > "$A/$1.json"
    else
        cp "$A/dc2.json" "$A/$1.json"
    fi
}
cluster() {   # cluster PORT: dc2 is the agent at PORT
    cat <<EOF
{"lightrail-compute:compute": {
  "device-type": [
    {"name": "t1", "peak-tflops": "123.457", "efficiency": "0.4", "memory-gb": "32"},
    {"name": "t3", "peak-tflops": "987.654", "efficiency": "0.4", "memory-gb": "80"},
    {"name": "unknown", "peak-tflops": "1", "efficiency": "1", "memory-gb": "1"}],
  "dc": [
    {"name": "dc1", "device-type": "t1", "device-count": 8,
     "intra-dc-bandwidth-gbytes-per-s": "23.456", "intra-dc-latency-us": "5"},
    {"name": "dc2", "device-type": "unknown", "device-count": 1,
     "intra-dc-bandwidth-gbytes-per-s": "1", "intra-dc-latency-us": "0",
     "remote": {"address": "127.0.0.1", "port": $1}},
    {"name": "dc3", "device-type": "t3", "device-count": 4,
     "intra-dc-bandwidth-gbytes-per-s": "67.891", "intra-dc-latency-us": "5"}],
  "inter-dc-link": [
    {"from": "dc1", "to": "dc2", "bandwidth-gbps": "10", "latency-ms": "1"},
    {"from": "dc2", "to": "dc3", "bandwidth-gbps": "5", "latency-ms": "2"},
    {"from": "dc1", "to": "dc3", "bandwidth-gbps": "1", "latency-ms": "3"}]}}
EOF
}
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"
# plan PORT [ARGS...]: plan --distributed with dc2's agent at PORT, JSON
# on $tmp/plan.out, stderr on $tmp/err, its exit status in $rc.
plan() {
    port=$1
    shift
    cluster "$port" > "$tmp/cluster.json"
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
        $TLS --format json "$@" > "$tmp/plan.out" 2> "$tmp/err"
    rc=$?
}

# ---- the plan without any CRL, the reference ----
agent_crl plain ""
start_agent plain "$A/plain.json" || { notok "agent without a CRL did not start"; lr_summary; exit; }
plan "$APORT"
if [ $rc -eq 0 ] && T0=$(jq -e .iteration_time_s "$tmp/plan.out"); then
    ok "without CRLs: plan --distributed, T = $T0 s"
else
    notok "without CRLs: exit $rc, $(cat "$tmp/err")"; lr_summary; exit
fi
PLAIN=$APORT PLAINPID=$APID

# ---- c. CRLs revoking neither: the same plan ----
# Its own copy of the CRL, which SIGHUP (e) changes.
cp "$C/none.pem" "$C/hup.pem"
agent_crl none ../certs/hup.pem
start_agent none "$A/none.json" || notok "agent with a CRL revoking none did not start"
NONE=$APORT NONEPID=$APID
plan "$NONE" --crl "$C/none.pem"
if [ $rc -eq 0 ] && [ "$(jq .iteration_time_s "$tmp/plan.out")" = "$T0" ]; then
    ok "CRLs on both ends revoking neither: the same plan (T = $T0 s)"
else
    notok "CRLs revoking neither: exit $rc, $(cat "$tmp/err"), $(head -c 200 "$tmp/plan.out")"
fi

# ---- a. the coordinator's certificate revoked by the agent's CRL ----
agent_crl coord ../certs/coord.pem
start_agent coord "$A/coord.json" || notok "agent with the coordinator revoked did not start"
COORD=$APORT COORDPID=$APID
plan "$COORD"
if [ $rc -eq 3 ] && [ ! -s "$tmp/plan.out" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
   grep -E -q "no plan: agent dc2 unreachable: (reading from|sending to) 127.0.0.1 port $COORD: " "$tmp/err" &&
   grep -F -q "alert certificate revoked (the agent refused our certificate, serial $SERIAL_COORD: its CRL revokes it; the coordinator needs a new certificate from the CA)" "$tmp/err"; then
    ok "coordinator revoked by the agent's CRL: no plan, and why: $(cat "$tmp/err")"
else
    notok "coordinator revoked: exit $rc, stderr $(cat "$tmp/err"), stdout $(head -c 200 "$tmp/plan.out")"
fi
if await_log "$A/coord.log" "refused: client certificate: revoked by CRL '$A/../certs/coord.pem' (serial $SERIAL_COORD, /CN=coordinator)"; then
    ok "the agent's log names the revoked coordinator certificate and the CRL"
else
    notok "the agent's log lacks the revocation: $(tail -3 "$A/coord.log")"
fi
# In TLS 1.3 the agent judges our certificate after our handshake ended:
# its alert and its closing race our first write, which may meet the
# reset first.  Either way the plan says why.
n=0
for i in $(seq 20); do
    plan "$COORD"
    grep -F -q "alert certificate revoked (the agent refused our certificate, serial $SERIAL_COORD" "$tmp/err" &&
        n=$((n + 1))
done
if [ $n -eq 20 ]; then
    ok "20 plans against the agent that revoked us: each says why"
else
    notok "of 20 plans against the agent that revoked us, $((20 - n)) did not say why, e.g. $(cat "$tmp/err")"
fi

# ---- b. the agent's certificate revoked by the coordinator's CRL ----
plan "$PLAIN" --crl "$C/dc2crl.pem"
if [ $rc -eq 3 ] && [ ! -s "$tmp/plan.out" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
   grep -F -q "no plan: agent dc2 unreachable: TLS handshake with 127.0.0.1 port $PLAIN: the agent's certificate is refused: revoked by CRL '$C/dc2crl.pem' (serial $SERIAL_DC2, /CN=dc2) (expected name 'dc2')" "$tmp/err"; then
    ok "agent dc2 revoked by the coordinator's CRL: refused by name and serial"
else
    notok "agent revoked: exit $rc, stderr $(cat "$tmp/err"), stdout $(head -c 200 "$tmp/plan.out")"
fi
if await_log "$A/plain.log" "TLS handshake failed: " &&
   grep -F -q "alert certificate revoked (the coordinator refused our certificate, serial $SERIAL_DC2: its CRL revokes it; this agent needs a new certificate from the CA)" "$A/plain.log"; then
    ok "the agent's log says the coordinator revoked its certificate"
else
    notok "the agent's log lacks why: $(tail -3 "$A/plain.log")"
fi
# The agents served on: a plan without the revoked end.
plan "$PLAIN"
[ $rc -eq 0 ] && ok "agent dc2 serves on after a revoked handshake" ||
    notok "after a revoked handshake: exit $rc, $(cat "$tmp/err")"

# ---- d. bad CRLs, refused at start by both ends ----
printf 'not a CRL\n' > "$C/text.pem"
# bad NAME FILE WHY: the agent (with and without --check) and the
# coordinator refuse CRL FILE, exit 2, one line with the file and WHY,
# nothing made: no agent.pid or agent.port, no --record file.
bad() {
    name=$1 file=$2 why=$3
    agent_crl "bad-$name" "$file"
    case $file in /*) path=$file ;; *) path=$A/$file ;; esac
    mkdir -p "$A/bad-$name.state"
    expect_bad "$A/bad-$name.json: TLS CRL '$path': $why" \
        timeout 60 $LIGHTRAIL agent --config "$A/bad-$name.json" \
        --listen 127.0.0.1:0 --state-dir "$A/bad-$name.state"
    if [ -z "$(ls "$A/bad-$name.state")" ]; then
        ok "CRL $name: the agent made nothing in its --state-dir"
    else
        notok "CRL $name: the agent made $(ls "$A/bad-$name.state")"
    fi
    expect_bad "$A/bad-$name.json: TLS CRL '$path': $why" \
        timeout 60 $LIGHTRAIL agent --config "$A/bad-$name.json" \
        --listen 127.0.0.1:0 --check
    cluster "$PLAIN" > "$tmp/cluster.json"
    expect_bad "TLS CRL '$path': $why" \
        $LIGHTRAIL plan --distributed --model gpt-1.9b \
        --cluster "$tmp/cluster.json" $TLS --crl "$path" \
        --record "$tmp/bad-$name.jsonl"
    if [ ! -e "$tmp/bad-$name.jsonl" ]; then
        ok "CRL $name: the coordinator made no --record file"
    else
        notok "CRL $name: the coordinator made its --record file"
    fi
}
bad missing "$C/nonexistent.pem" "No such file or directory"
bad text "$C/text.pem" "not a PEM CRL: no -----BEGIN line"
bad cert "$C/ca.pem" "not a PEM CRL: its PEM blocks are 'CERTIFICATE'"
bad other "$C/other.pem" "CRL 1 is of /CN=otherca, which is none of the CA file's certificates: give the CRLs of the CAs in the CA file (an intermediate CA's CRL needs the intermediate's certificate there too)"
bad stale "$C/stale.pem" "CRL 1 (of /CN=ca) expired at 2020-01-02T00:00:00Z, its next update: a stale list may lack the latest revocations, so it is refused (fail closed); have the CA issue a fresh one (openssl ca -gencrl)"
# A CRL signed by another key under the CA's name.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$C/fakeca.key" -out "$C/fakeca.pem" -days 1 -subj /CN=ca \
    -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
mk_crl forged -ca fakeca || notok "cannot make the forged CRL"
bad forged "$C/forged.pem" "CRL 1 claims to be of /CN=ca, but its signature does not verify with that CA's key: give a CRL the CA signed"
# Two CAs in the CA file, the CRL of one: the other's certificates
# would fail every handshake.
cat "$C/ca.pem" "$C/otherca.pem" > "$C/two-cas.pem"
cluster "$PLAIN" > "$tmp/cluster.json"
expect_bad "TLS CRL '$C/none.pem': holds no CRL of CA /CN=otherca: the whole chain is checked, so each CA certificate needs its CRL in the file (cat them together)" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$C/two-cas.pem" \
    --crl "$C/none.pem"
cat "$C/none.pem" "$C/other.pem" > "$C/two-crls.pem"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$C/two-cas.pem" \
    --crl "$C/two-crls.pem" --format json > "$tmp/plan.out" 2> "$tmp/err"
[ $? -eq 0 ] && ok "two CAs, a file of both CRLs: planned" ||
    notok "two CAs and their CRLs: $(cat "$tmp/err")"
# The CA without cRLSign: its CRLs would be refused at each handshake.
cluster "$PLAIN" > "$tmp/cluster.json"
expect_bad "TLS CRL '$C/nosign-crl.pem': CRL 1 is of /CN=nosign, whose keyUsage lacks cRLSign: no CRL it signs is trusted; issue the CA certificate again with keyUsage cRLSign" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
    --cert "$C/coordinator.pem" --key "$C/coordinator.key" --ca "$C/nosign.pem" \
    --crl "$C/nosign-crl.pem"
# An empty --crl (a variable left unset) is refused, not taken for no
# CRL: the plan would be made with no revocation check, silently.
expect_bad "--crl: an empty file name" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/cluster.json" \
    $TLS --crl ""
# --crl goes with --distributed, as --ca.
expect_bad "--cert, --key, --ca, --crl, --timeout, --plan-timeout and --record go with --distributed" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/cluster.json" --crl "$C/none.pem"
# --check says the CRL was loaded.
if $LIGHTRAIL agent --config "$A/none.json" --listen 127.0.0.1:0 --check > "$tmp/out" 2> "$tmp/err" &&
   grep -q 'certificate, key, CA and CRL loaded' "$tmp/out"; then
    ok "agent --check: $(cat "$tmp/out")"
else
    notok "agent --check with a CRL: $(cat "$tmp/out" "$tmp/err")"
fi

# ---- e. SIGHUP: the agent reads its CRL again ----
# Agent 'none' takes the coordinator; its CRL file now revokes it.  A
# connection the coordinator holds across the SIGHUP is judged by the
# new CRL too: closed, rather than kept for as long as it keeps asking.
if command -v python3 > /dev/null; then
    python3 - "$C" "$NONE" "$NONEPID" "$A/none.log" "$srcdir/tests/cli" \
        > "$tmp/live.out" 2>&1 <<'PY'
import os, shutil, signal, sys, time
certs, port, pid, log, lib = sys.argv[1:6]
sys.path.insert(0, lib)
from agentwire import HELLO, HELLO_OK, ask, connect
s = connect(certs, port, "dc2", "coordinator")
t, _ = ask(s, HELLO)
print("hello before:", "ok" if t == HELLO_OK else t)
said = "SIGHUP: certificate, key, CA and CRL read again"


def hup():
    before = open(log).read().count(said)
    os.kill(int(pid), signal.SIGHUP)
    for _ in range(200):
        if open(log).read().count(said) > before:
            return
        time.sleep(0.05)


def hello(what):
    s.settimeout(10)
    try:
        t, p = ask(s, HELLO)
        print(f"hello {what}:", "ok" if t == HELLO_OK else f"answered {t} {p}")
    except (EOFError, OSError) as e:
        print(f"hello {what}: closed")


# The same CRL again: the connection, still admitted, stays.
hup()
hello("after a SIGHUP revoking none")
shutil.copy(f"{certs}/coord.pem", f"{certs}/hup.pem")
hup()
hello("after")
PY
    if grep -q '^hello before: ok$' "$tmp/live.out" &&
       grep -q '^hello after a SIGHUP revoking none: ok$' "$tmp/live.out" &&
       grep -q '^hello after: closed$' "$tmp/live.out" &&
       grep -F -q "closed: its certificate is refused since SIGHUP: revoked by CRL '$A/../certs/hup.pem' (serial $SERIAL_COORD, /CN=coordinator)" "$A/none.log"; then
        ok "SIGHUP: the coordinator's connection up stays, and is closed once revoked"
    else
        notok "SIGHUP kept a revoked coordinator's connection: $(cat "$tmp/live.out"; grep SIGHUP -A2 "$A/none.log" | tail -3)"
    fi
else
    cp "$C/coord.pem" "$C/hup.pem"
    kill -HUP "$NONEPID"
fi
if await_log "$A/none.log" "SIGHUP: certificate, key, CA and CRL read again"; then
    plan "$NONE"
    if [ $rc -eq 3 ] && grep -F -q "the agent refused our certificate, serial $SERIAL_COORD" "$tmp/err"; then
        ok "SIGHUP: the agent took the new CRL, which revokes the coordinator"
    else
        notok "after SIGHUP: exit $rc, $(cat "$tmp/err")"
    fi
else
    notok "SIGHUP not logged: $(tail -3 "$A/none.log")"
fi
# A stale CRL is not taken: the one read before stays.
cp "$C/stale.pem" "$C/hup.pem"
kill -HUP "$NONEPID"
if await_log "$A/none.log" "SIGHUP: not reloaded, the files loaded before stay: TLS CRL '$A/../certs/hup.pem': CRL 1 (of /CN=ca) expired at 2020-01-02T00:00:00Z" &&
   kill -0 "$NONEPID" 2>/dev/null; then
    plan "$NONE"
    if [ $rc -eq 3 ] && grep -F -q "serial $SERIAL_COORD" "$tmp/err"; then
        ok "SIGHUP with a stale CRL: refused, logged, the CRL before kept"
    else
        notok "after a refused SIGHUP: exit $rc, $(cat "$tmp/err")"
    fi
else
    notok "a stale CRL on SIGHUP: $(tail -3 "$A/none.log")"
fi

# A SIGHUP that comes before the agent catches it (systemctl reload just
# after systemctl start) is held until the agent serves, then read as
# any: it used to end the agent, which systemd counts as a clean exit
# and does not restart.  The agent waits at its --config, a FIFO, while
# the SIGHUP is sent.
if command -v python3 > /dev/null && mkfifo "$A/early.json"; then
    mkdir -p "$A/early.state"
    $LIGHTRAIL agent --config "$A/early.json" --listen 127.0.0.1:0 \
        --state-dir "$A/early.state" 2>> "$A/early.log" &
    EARLYPID=$!
    PIDS="$PIDS $EARLYPID"
    python3 - "$A/early.json" "$EARLYPID" "$A/plain.json" \
        > "$tmp/early.out" 2>&1 <<'PY'
import errno, os, signal, sys, time
fifo, pid, cfg = sys.argv[1:4]
# A writer that does not wait opens once the agent is reading it.
for _ in range(1200):
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError as e:
        if e.errno != errno.ENXIO:
            raise
        time.sleep(0.05)
else:
    sys.exit("the agent never opened its --config")
os.kill(int(pid), signal.SIGHUP)
time.sleep(0.2)
try:
    os.set_blocking(fd, True)
    os.write(fd, open(cfg, "rb").read())
    os.close(fd)
    print("config written")
except OSError as e:
    print(f"config not written: {e}")
PY
    if await_file "$A/early.state/agent.port" "$EARLYPID" "$A/early.log" \
           "agent early" > "$tmp/early.err" &&
       await_log "$A/early.log" "SIGHUP: certificate, key, CA read again"; then
        ok "a SIGHUP before the agent serves: held, then the files read again"
    else
        notok "a SIGHUP before the agent serves: $(cat "$tmp/early.out" "$tmp/early.err"; tail -3 "$A/early.log")"
    fi
    stop_agent "$EARLYPID"
fi

# ---- f. the whole chain: an intermediate CA ----
# dc2's certificate from CA 'inter', which the root 'ca' signed; the
# agent presents both.  The coordinator's CA file holds both CAs, its
# CRL file the CRL of each.
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$C/inter.key" -out "$C/inter.csr" -subj /CN=inter 2>/dev/null &&
printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' \
    > "$C/inter.ext" &&
openssl x509 -req -in "$C/inter.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" \
    -CAcreateserial -out "$C/inter.pem" -days 1 -extfile "$C/inter.ext" 2>/dev/null &&
mk_cert inter dc2i dc2 &&
cat "$C/dc2i.pem" "$C/inter.pem" > "$C/dc2chain.pem" &&
cp "$C/dc2i.key" "$C/dc2chain.key" &&
mk_crl interrev -revoke inter && mk_crl intercrl -ca inter ||
    notok "cannot make the intermediate CA"
SERIAL_INTER=$(openssl x509 -noout -serial -in "$C/inter.pem" | sed 's/^serial=//')
agent_crl chain "" dc2chain
start_agent chain "$A/chain.json" || notok "agent with a chain did not start"
CHAIN=$APORT CHAINPID=$APID
cat "$C/none.pem" "$C/intercrl.pem" > "$C/chain-ok.pem"
cat "$C/ca.pem" "$C/inter.pem" > "$C/cas-inter.pem"
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/cas-inter.pem"
plan "$CHAIN" --crl "$C/chain-ok.pem"
if [ $rc -eq 0 ] && [ "$(jq .iteration_time_s "$tmp/plan.out")" = "$T0" ]; then
    ok "a chain through an intermediate CA, the CRLs of both revoking none: planned"
else
    notok "chain, CRLs revoking none: exit $rc, $(cat "$tmp/err")"
fi
cat "$C/interrev.pem" "$C/intercrl.pem" > "$C/chain-rev.pem"
plan "$CHAIN" --crl "$C/chain-rev.pem"
if [ $rc -eq 3 ] && grep -F -q "the agent's certificate is refused: the certificate of its CA is revoked by CRL '$C/chain-rev.pem' (serial $SERIAL_INTER, /CN=inter) (expected name 'dc2')" "$tmp/err"; then
    ok "the intermediate CA revoked by the root's CRL: its agent refused, the CA named"
else
    notok "intermediate revoked: exit $rc, $(cat "$tmp/err")"
fi
# The intermediate's CRL missing: refused at start with the intermediate
# in the CA file, at the handshake without it.
plan "$CHAIN" --crl "$C/none.pem"
if [ $rc -eq 2 ] && grep -F -q "TLS CRL '$C/none.pem': holds no CRL of CA /CN=inter: " "$tmp/err"; then
    ok "no CRL of the intermediate CA of the CA file: refused at start"
else
    notok "intermediate without its CRL: exit $rc, $(cat "$tmp/err")"
fi
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"
plan "$CHAIN" --crl "$C/none.pem"
if [ $rc -eq 3 ] && grep -F -q "the agent's certificate is refused: CRL '$C/none.pem' holds no CRL of the issuer of /CN=dc2: put each CA of the chain in the CA file and its CRL in the CRL file" "$tmp/err"; then
    ok "an intermediate CA neither in the CA file nor in the CRLs: the agent refused, and why"
else
    notok "intermediate unknown: exit $rc, $(cat "$tmp/err")"
fi
stop_agent $CHAINPID

# ---- g. lightraild's coordinator/crl ----
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
dc2_remote "$PLAIN"
job() {   # job NAME: POSTs a job, its state into $tmp/job
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        "$1" > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
    post=$STATUS
    api GET "$JOBS/job=$1"
    cp "$tmp/body" "$tmp/job"
}
jq_job() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/job"; }
coordinator_crl "$C/dc2crl.pem"
if start_daemon; then
    job j1
    if [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "agent dc2 unreachable: TLS handshake with 127.0.0.1 port $PLAIN: the agent's certificate is refused: revoked by CRL '$C/dc2crl.pem' (serial $SERIAL_DC2, /CN=dc2)"; then
        ok "lightraild, dc2 revoked by coordinator/crl: the job blocked, and why"
    else
        notok "lightraild with dc2 revoked: POST $post, $(jq_job phase): $(jq_job reason)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL did not start"
fi
coordinator_crl "$C/none.pem"
if start_daemon; then
    job j2
    if [ "$post" = 201 ] && [ "$(jq_job phase)" = active ]; then
        ok "lightraild, a coordinator/crl revoking none: the job active"
    else
        notok "lightraild with a CRL revoking none: POST $post, $(jq_job phase): $(jq_job reason)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL did not start"
fi
# A PUT that replaces the network reads coordinator/crl again (the
# file may have changed since the start), and one with a stale CRL is
# refused in the CRL's words, the network before kept.
cp "$C/none.pem" "$C/put-crl.pem"
coordinator_crl "$C/put-crl.pem"
if start_daemon; then
    # j2 (above) holds devices of the network: no PUT while it does.
    api DELETE "$JOBS/job=j2"
    api GET /restconf/data/lightrail-compute:compute
    cp "$tmp/body" "$tmp/inv.json"
    cp "$C/dc2crl.pem" "$C/put-crl.pem"
    api PUT /restconf/data/lightrail-compute:compute "$tmp/inv.json"
    put=$STATUS
    job j3
    if [ "$put" = 204 ] && [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "revoked by CRL '$C/put-crl.pem' (serial $SERIAL_DC2, /CN=dc2)"; then
        ok "lightraild: a PUT of the network reads coordinator/crl again"
    else
        notok "lightraild, coordinator/crl after a PUT: PUT $put, POST $post, $(jq_job phase): $(jq_job reason)"
    fi
    api DELETE "$JOBS/job=j3"
    cp "$C/stale.pem" "$C/put-crl.pem"
    api PUT /restconf/data/lightrail-compute:compute "$tmp/inv.json"
    put=$STATUS
    cp "$tmp/body" "$tmp/put.body"
    cp "$C/none.pem" "$C/put-crl.pem"
    job j4
    if [ "$put" = 400 ] &&
       grep -F -q "TLS CRL '$C/put-crl.pem': CRL 1 (of /CN=ca) expired at 2020-01-02T00:00:00Z" "$tmp/put.body" &&
       [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "revoked by CRL '$C/put-crl.pem' (serial $SERIAL_DC2"; then
        ok "lightraild: a PUT with a stale coordinator/crl refused, the parties before kept"
    else
        notok "lightraild, a PUT with a stale CRL: PUT $put $(head -c 300 "$tmp/put.body"), POST $post, $(jq_job phase): $(jq_job reason)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL did not start"
fi
# SIGHUP reads coordinator/crl again (and the certificate, key and CA):
# the connection to dc2's agent that h1 leaves kept is judged by the new
# CRL, so a job after a CRL revoking dc2 is blocked, where before it was
# planned over that connection.  A stale CRL is logged, and the files
# loaded before stay.
cp "$C/none.pem" "$C/hup-crl.pem"
coordinator_crl "$C/hup-crl.pem"
if start_daemon; then
    job h1
    h1=$(jq_job phase)
    api DELETE "$JOBS/job=h1"
    cp "$C/stale.pem" "$C/hup-crl.pem"
    kill -HUP $PID
    if await_log "$D/log" "SIGHUP: the coordinator's TLS files are not read again, those loaded before stay: TLS CRL '$C/hup-crl.pem': CRL 1 (of /CN=ca) expired at 2020-01-02T00:00:00Z"; then
        job h2
        if [ "$post" = 201 ] && [ "$(jq_job phase)" = active ]; then
            ok "lightraild: SIGHUP with a stale coordinator/crl logged, the files before kept"
        else
            notok "lightraild, SIGHUP with a stale CRL: POST $post, $(jq_job phase): $(jq_job reason)"
        fi
        api DELETE "$JOBS/job=h2"
    else
        notok "lightraild, SIGHUP with a stale CRL: no log line: $(tail -3 "$D/log")"
    fi
    cp "$C/dc2crl.pem" "$C/hup-crl.pem"
    kill -HUP $PID
    await_log "$D/log" "SIGHUP: the coordinator's certificate, key, CA and CRL read again"
    job h3
    if [ "$h1" = active ] && [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "agent dc2 unreachable: TLS handshake with 127.0.0.1 port $PLAIN: the agent's certificate is refused: revoked by CRL '$C/hup-crl.pem' (serial $SERIAL_DC2, /CN=dc2)" &&
       grep -F -q "agent dc2: connection closed: its certificate is refused since SIGHUP: revoked by CRL '$C/hup-crl.pem' (serial $SERIAL_DC2, /CN=dc2)" "$D/log"; then
        ok "lightraild: SIGHUP reads coordinator/crl again, dc2's kept connection closed"
    else
        notok "lightraild, coordinator/crl after SIGHUP: h1 $h1, POST $post, $(jq_job phase): $(jq_job reason); $(grep -F SIGHUP "$D/log" | tail -2)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL did not start"
fi
# A SIGHUP while a plan holds the agents' connections (dc2's agent
# answers each request 200 ms late) waits for the plan: the job planned
# over the connection ends active, and the CRL read after it blocks the
# next job.  Were the connection judged in the middle of the plan, on
# the loop while the planner's thread uses it, the plan would lose it.
start_agent slow "$A/plain.json" --delay-ms 200 ||
    notok "agent answering late did not start"
SLOW=$APORT SLOWPID=$APID
cp "$C/none.pem" "$C/hup-crl.pem"
: > "$D/log"
if start_daemon; then
    # The store keeps the inventory: a PUT moves dc2 to the late agent.
    api GET /restconf/data/lightrail-compute:compute
    jq --argjson p "$SLOW" '(.["lightrail-compute:compute"].dc[]
        | select(.name == "dc2") | .remote.port) = $p' "$tmp/body" \
        > "$tmp/inv-slow.json"
    api PUT /restconf/data/lightrail-compute:compute "$tmp/inv-slow.json"
    [ "$STATUS" = 204 ] || notok "PUT of the late agent's inventory: $STATUS $(cat "$tmp/body")"
    printf '{"lightrail-job:job":[{"name":"s1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' > "$tmp/s1.json"
    curl -s -o "$tmp/s1.body" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: application/yang-data+json' \
        -X POST --data-binary @"$tmp/s1.json" "$URL$JOBS" > "$tmp/s1.status" &
    s1pid=$!
    # The agent read the job: the plan is under way on its connection.
    await_log "$A/slow.log" "layers, batch 32" ||
        notok "the late agent was not asked: $(tail -2 "$A/slow.log")"
    cp "$C/dc2crl.pem" "$C/hup-crl.pem"
    kill -HUP $PID
    wait $s1pid
    api GET "$JOBS/job=s1"
    cp "$tmp/body" "$tmp/job"
    s1="$(jq_job phase) $(jq_job reason)"
    await_log "$D/log" "SIGHUP: the coordinator's certificate, key, CA and CRL read again"
    job s2
    if [ "$(cat "$tmp/s1.status")" = 201 ] && [ "${s1%% *}" = active ] &&
       [ "$post" = 201 ] && [ "$(jq_job phase)" = blocked ] &&
       jq_job reason | grep -F -q "revoked by CRL '$C/hup-crl.pem' (serial $SERIAL_DC2, /CN=dc2)" &&
       grep -F -q "agent dc2: connection closed: its certificate is refused since SIGHUP" "$D/log"; then
        ok "lightraild: a SIGHUP during a plan over the agents waits for it"
    else
        notok "lightraild, SIGHUP during a plan: s1 $(cat "$tmp/s1.status") $s1, s2 POST $post, $(jq_job phase): $(jq_job reason); $(grep -F -e SIGHUP -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild with a CRL did not start"
fi
stop_agent $SLOWPID || notok "agent $SLOWPID did not stop cleanly"
coordinator_crl "$C/stale.pem"
timeout 60 $LIGHTRAILD --config "$D/lightraild.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] &&
   grep -F -q "TLS CRL '$C/stale.pem': CRL 1 (of /CN=ca) expired at 2020-01-02T00:00:00Z" "$tmp/err"; then
    ok "lightraild with a stale coordinator/crl: no start (exit $rc), $(tail -1 "$tmp/err")"
else
    notok "lightraild with a stale CRL: exit $rc, $(cat "$tmp/err")"
fi

for p in $PLAINPID $NONEPID $COORDPID; do
    stop_agent $p || notok "agent $p did not stop cleanly"
done
lr_summary
