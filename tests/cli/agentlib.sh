# Shared by the agent tests (sourced after lib.sh): certificates and
# agents of our own on 127.0.0.1, each stopped by its PID (PIDS collects
# them for the caller's trap), never by name.
# Uses $tmp; certificates go to $C, agent state and logs to $A.
C=$tmp/certs
A=$tmp/agents
mkdir -p "$C" "$A"
PIDS=

mk_ca() {   # mk_ca NAME
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$C/$1.key" -out "$C/$1.pem" -days 1 -subj "/CN=$1" \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
mk_cert() {   # mk_cert CA FILE NAME [SAN]: CN = NAME (UTF-8), DNS SAN = SAN or NAME
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -utf8 \
        -keyout "$C/$2.key" -out "$C/$2.csr" -subj "/CN=$3" 2>/dev/null &&
    printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n' "${4:-$3}" \
        > "$C/$2.ext" &&
    openssl x509 -req -in "$C/$2.csr" -CA "$C/$1.pem" -CAkey "$C/$1.key" \
        -CAcreateserial -out "$C/$2.pem" -days 1 -extfile "$C/$2.ext" \
        2>/dev/null
}
# mk_crl NAME [-ca CA] [-revoke CERT]... [GENCRL-ARGS...]: $C/NAME.pem,
# a CRL of CA (default 'ca': $C/CA.pem, $C/CA.key) from a database of its
# own, revoking the certificates $C/CERT.pem (none when not given), last
# updated now, good for a day unless GENCRL-ARGS say otherwise (-crlsec
# 600); openssl's complaint on stderr and 1 when it cannot.
mk_crl() {
    name=$1 ca=ca
    shift
    d=$tmp/ca-$name
    mkdir -p "$d"
    : > "$d/index.txt"
    echo 01 > "$d/crlnumber"
    cat > "$d/openssl.cnf" <<EOF
[ ca ]
default_ca = lr
[ lr ]
database = $d/index.txt
crlnumber = $d/crlnumber
default_md = sha256
default_crl_days = 1
EOF
    while [ $# -gt 1 ] && { [ "$1" = -ca ] || [ "$1" = -revoke ]; }; do
        if [ "$1" = -ca ]; then
            ca=$2
        else
            openssl ca -config "$d/openssl.cnf" -keyfile "$C/$ca.key" \
                -cert "$C/$ca.pem" -revoke "$C/$2.pem" 2> "$d/err" ||
                { cat "$d/err" >&2; return 1; }
        fi
        shift 2
    done
    openssl ca -config "$d/openssl.cnf" -keyfile "$C/$ca.key" \
        -cert "$C/$ca.pem" -gencrl -out "$C/$name.pem" "$@" 2> "$d/err" ||
        { cat "$d/err" >&2; return 1; }
}
# await_log LOG TEXT [UNTIL]: 0 once a line of LOG has TEXT (fixed
# string), 1 when none has by the epoch second UNTIL (default: 10 s from
# now); a bounded wait, no timing asserted.
await_log() {
    al_until=${3:-$(($(date +%s) + 10))}
    while [ "$(date +%s)" -le "$al_until" ]; do
        grep -F -q -- "$2" "$1" && return 0
        sleep 0.1
    done
    grep -F -q -- "$2" "$1"
}
# mk_clock_shim: tests/cli/clockshift.c built into $tmp/clockshift.so,
# plain (no sanitizer of its own in the process it is preloaded into);
# the test is skipped (exit 77) without a compiler or when it fails.
mk_clock_shim() {
    CC=${CC:-cc}
    command -v "$CC" > /dev/null ||
        { echo "skip: no C compiler for the shim"; exit 77; }
    "$CC" -shared -fPIC -o "$tmp/clockshift.so" \
        "$srcdir/tests/cli/clockshift.c" -ldl 2> "$tmp/cc.err" ||
        { echo "skip: cannot build the clock shim: $(cat "$tmp/cc.err")"; exit 77; }
}
# shimmed CMD...: CMD (a function that starts a process in the
# background, start_agent or start_daemon) with the clock shim of
# mk_clock_shim preloaded on the file $SHIFT (and ASan told that its
# runtime is not first); the test's own clock is the real one.  CMD's
# status.
shimmed() {
    sh_asan=${ASAN_OPTIONS-}
    export LD_PRELOAD="$tmp/clockshift.so" LR_CLOCKSHIFT_FILE="$SHIFT"
    export ASAN_OPTIONS="${sh_asan:+$sh_asan:}verify_asan_link_order=0"
    "$@"
    sh_rc=$?
    unset LD_PRELOAD LR_CLOCKSHIFT_FILE
    ASAN_OPTIONS=$sh_asan
    return $sh_rc
}
# dc2_remote PORT [CRL]: after daemon.sh, lightraild's configuration
# with the metro's dc2 planned by the agent on 127.0.0.1:PORT (a
# placeholder device; $D/cluster.json) and the coordinator's
# certificate, key and CA of $C, and CRL when given (a file of $C).
dc2_remote() {
    jq --argjson p "$1" '
      .["lightrail-compute:compute"]["device-type"] += [{"name": "placeholder",
          "peak-tflops": "1", "efficiency": "0.01", "memory-gb": "1"}]
      | .["lightrail-compute:compute"].dc |= map(
          if .name == "dc2" then
            . + {"device-type": "placeholder", "device-count": 1,
                 "intra-dc-bandwidth-gbytes-per-s": "1",
                 "intra-dc-latency-us": "0",
                 "remote": {"address": "127.0.0.1", "port": $p}}
          else . end)' "$(cd "$srcdir" && pwd)/examples/clusters/metro.json" \
        > "$D/cluster.json" || return 1
    if [ -n "${2:-}" ]; then coordinator_crl "$C/$2"; else coordinator_crl; fi
}
# coordinator_crl [PATH]: lightraild's configuration (after daemon.sh)
# with the cluster file cluster.json and the coordinator's certificate,
# key and CA of $C, its CRL PATH (any path, even a bad one; none when
# not given).
coordinator_crl() {
    jq --arg c "$C" --arg crl "${1-}" --argjson has "$#" '.["lightrail-config:lightraild"] += {
        "cluster-file": "cluster.json",
        "coordinator": ({"certificate": ($c + "/coordinator.pem"),
                         "key": ($c + "/coordinator.key"),
                         "ca": ($c + "/ca.pem")}
                        + if $has > 0 then {"crl": $crl} else {} end)}' \
        "$D/lightraild.json" > "$D/cfg.tmp" &&
    mv "$D/cfg.tmp" "$D/lightraild.json"
}
# agent_file DC COUNT PEAK EFF MEM BW [CERT [LATENCY]]: $A/DC.json, a
# lightrail-agent file for DC with certificate $C/CERT.pem (default: DC's)
# and an intra-DC latency of LATENCY us (default 5); the coordinator may
# connect.
agent_file() {
    cat > "$A/$1.json" <<EOF
{"lightrail-agent:agent": {"dc": "$1",
  "device-type": {"peak-tflops": "$3", "efficiency": "$4", "memory-gb": "$5"},
  "device-count": $2,
  "intra-dc-bandwidth-gbytes-per-s": "$6", "intra-dc-latency-us": "${8:-5}",
  "tls": {"certificate": "../certs/${7:-$1}.pem", "key": "../certs/${7:-$1}.key",
          "ca": "../certs/ca.pem", "peer-name": ["coordinator"]}}}
EOF
}
# start_agent NAME CONFIG [ARGS...]: sets APID, APORT.  It listens on
# $LISTEN, any free port of 127.0.0.1 when unset.
start_agent() {
    name=$1 cfg=$2
    shift 2
    mkdir -p "$A/$name.state"
    rm -f "$A/$name.state/agent.port"
    $LIGHTRAIL agent --config "$cfg" --listen "${LISTEN:-127.0.0.1:0}" \
        --state-dir "$A/$name.state" "$@" 2>> "$A/$name.log" &
    APID=$!
    PIDS="$PIDS $APID"
    await_file "$A/$name.state/agent.port" $APID "$A/$name.log" \
        "agent $name" 600 || return 1
    APORT=$(cat "$A/$name.state/agent.port")
}
stop_agent() {   # stop_agent PID: SIGTERM, wait, and its exit status
    kill "$1" 2>/dev/null
    wait "$1"
}

# hup_agent NAME PID: SIGHUP, and waits (10 s at most) for the agent to
# say it read its files again (one more such line in $A/NAME.log); 1 when
# it did not.
hup_agent() {
    said="SIGHUP: certificate, key, CA and CRL read again"
    before=$(grep -c -F "$said" "$A/$1.log")
    kill -HUP "$2"
    for i in $(seq 200); do
        [ "$(grep -c -F "$said" "$A/$1.log")" -gt "$before" ] && return 0
        sleep 0.05
    done
    return 1
}
