#!/bin/sh
# A connection kept past its peer certificate's notAfter
# (docs/agent-protocol.md, "Revocation"): a new handshake is refused
# once the certificate has expired, so a connection up must not go on
# because it keeps asking.  The timer that judges the connections at a
# CRL's next update also wakes at the earliest notAfter of each kept
# connection's peer chain.  Certificates valid for a few seconds, made
# with python3's cryptography (openssl x509 -days cannot).
#   a. the agent: the connection of a coordinator whose certificate
#      expires is closed, and the log names the certificate;
#   b. lightraild: the connection kept to dc2's agent since a job is
#      closed when dc2's certificate expires.
# Each waits for the log line it expects, bounded by notAfter plus a
# margin; no test asserts how soon after it comes.  Agents and
# lightraild are stopped by their PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "${srcdir:-.}/tests/cli/agentlib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
command -v openssl > /dev/null || { echo "skip: openssl not installed"; exit 77; }
python3 -c 'import cryptography' 2>/dev/null ||
    { echo "skip: python3 cryptography not installed"; exit 77; }

trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$tmp"' EXIT

{ mk_ca ca && mk_cert ca dc2 dc2 && mk_cert ca coordinator coordinator; } ||
    { echo "skip: openssl cannot make certificates"; exit 77; }

# short FILE NAME SECONDS: $C/FILE.pem (and .key), CN and DNS SAN NAME,
# signed by 'ca', valid from a minute ago until SECONDS from now (whole
# seconds, as X.509 has them).  Prints notAfter in seconds since the
# epoch.
short() {
    python3 - "$C" "$@" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
certs, f, name, secs = sys.argv[1:5]
ca_key = serialization.load_pem_private_key(
    open(f"{certs}/ca.key", "rb").read(), None)
ca = x509.load_pem_x509_certificate(open(f"{certs}/ca.pem", "rb").read())
key = ec.generate_private_key(ec.SECP256R1())
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
end = now + datetime.timedelta(seconds=int(secs))
cert = (x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
        .sign(ca_key, hashes.SHA256()))
open(f"{certs}/{f}.pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM))
open(f"{certs}/{f}.key", "wb").write(key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
    serialization.NoEncryption()))
print(int(end.timestamp()))
PY
}
# utc EPOCH: as the logs print a time (2026-12-07T03:10:49Z).
utc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }

# ---- a. the agent: the coordinator's certificate expires ----
END=$(short coord-short coordinator 10) ||
    { echo "skip: python3 cryptography cannot make certificates"; exit 77; }
agent_file dc2 4 311.111 0.45 80 45.678
if start_agent a "$A/dc2.json"; then
    T=$(utc "$END")
    # HELLO, wait for the log line (at most notAfter + 30 s), HELLO again.
    python3 - "$C" "$APORT" "$A/a.log" "expired at $T" $((END + 30)) \
        "$srcdir/tests/cli" > "$tmp/a.out" 2>&1 <<'PY'
import sys
certs, port, log, text, until, lib = sys.argv[1:7]
sys.path.insert(0, lib)
from agentwire import connect, hello_until_logged
s = connect(certs, port, "dc2", "coord-short")
hello_until_logged(s, log, text, int(until))
PY
    if grep -q '^hello 1: ok$' "$tmp/a.out" && grep -q '^hello 2: closed$' "$tmp/a.out" &&
       grep -F -q "certificate /CN=coordinator expired at $T: connection to 127.0.0.1:" "$A/a.log"; then
        ok "agent: the connection of a peer whose certificate expired is closed, and why"
    else
        notok "agent kept a connection past its peer's notAfter $T: $(cat "$tmp/a.out"; tail -3 "$A/a.log")"
    fi
    stop_agent "$APID"
else
    notok "agent did not start"
fi

# ---- b. lightraild: dc2's certificate expires ----
. "${srcdir:-.}/tests/cli/daemon.sh"
trap 'kill -9 $PID $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
# Far enough ahead for a sanitizer build to start and plan j1 first.
END=$(short dc2-short dc2 25)
agent_file dc2 4 311.111 0.45 80 45.678 dc2-short
start_agent b "$A/dc2.json" || { notok "agent b did not start"; lr_summary; exit; }
BPORT=$APORT BPID=$APID
dc2_remote "$BPORT"
job() {   # job NAME: POSTs a job, its state into $tmp/job
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":1,"max":64}}]}\n' \
        "$1" > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
    api GET "$JOBS/job=$1"
    cp "$tmp/body" "$tmp/job"
}
jq_job() { jq -r ".[\"lightrail-job:job\"][0].state.$1" "$tmp/job"; }
if start_daemon; then
    T=$(utc "$END")
    # j1 leaves its connection to dc2's agent kept.
    job j1
    j1=$(jq_job phase)
    if [ "$j1" = active ] &&
       await_log "$D/log" "certificate /CN=dc2 expired at $T: connection to dc2 closed" $((END + 30)); then
        ok "lightraild: the connection kept to dc2 closed when dc2's certificate expired"
    else
        notok "lightraild kept dc2's connection past its notAfter $T: j1 $j1, $(grep -F -e expired -e 'agent dc2' "$D/log" | tail -3)"
    fi
    stop_daemon
else
    notok "lightraild did not start"
fi
stop_agent "$BPID" || notok "agent $BPID did not stop cleanly"
lr_summary
