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

