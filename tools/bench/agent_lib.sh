# Shared by tools/bench/agent.sh and agent_threads.sh (sourced, after
# `tmp` (a directory of their own), LIGHTRAIL and PIDS are set): a CA and
# certificates in $tmp/certs, and one `lightrail agent` per DC of an
# inventory on 127.0.0.1, stopped by PID by the caller's trap (PIDS).

C=$tmp/certs

# bench_certs DC...: the CA, the coordinator's certificate and one per DC.
bench_certs() {
    mkdir -p "$C"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$C/ca.key" -out "$C/ca.pem" -days 1 -subj /CN=bench-ca \
        -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign 2>/dev/null
    for n in "$@" coordinator; do
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
            -keyout "$C/$n.key" -out "$C/$n.csr" -subj "/CN=$n" 2>/dev/null
        printf 'subjectAltName=DNS:%s\n' "$n" > "$C/$n.ext"
        openssl x509 -req -in "$C/$n.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" \
            -CAcreateserial -out "$C/$n.pem" -days 1 -extfile "$C/$n.ext" \
            2>/dev/null
    done
}

# bench_agents CLUSTER [AGENT-ARGS...]: an agent for each DC of CLUSTER
# (its own figures, from CLUSTER), started with AGENT-ARGS, and
# $tmp/remote.json: CLUSTER with every DC remote at its agent.  The
# agents' PIDs are added to PIDS and kept in AGENTS.
bench_agents() {
    cluster=$1
    shift
    AGENTS=
    dcs=$(jq -r '."lightrail-compute:compute".dc[].name' "$cluster")
    for n in $dcs; do
        jq --arg n "$n" --arg c "$C" '."lightrail-compute:compute" as $x
            | ($x.dc[] | select(.name == $n)) as $d
            | ($x."device-type"[] | select(.name == $d."device-type")) as $t
            | {"lightrail-agent:agent": {dc: $n,
                "device-type": {"peak-tflops": $t."peak-tflops",
                                efficiency: $t.efficiency,
                                "memory-gb": $t."memory-gb"},
                "device-count": $d."device-count",
                "intra-dc-bandwidth-gbytes-per-s":
                    $d."intra-dc-bandwidth-gbytes-per-s",
                "intra-dc-latency-us": $d."intra-dc-latency-us",
                tls: {certificate: "\($c)/\($n).pem", key: "\($c)/\($n).key",
                      ca: "\($c)/ca.pem", "peer-name": ["coordinator"]}}}' \
            "$cluster" > "$tmp/$n.json"
        rm -rf "$tmp/$n"
        mkdir -p "$tmp/$n"
        $LIGHTRAIL agent --config "$tmp/$n.json" --listen 127.0.0.1:0 \
            --state-dir "$tmp/$n" "$@" 2> "$tmp/$n.log" &
        PIDS="$PIDS $!"
        AGENTS="$AGENTS $!"
    done
    ports={}
    for n in $dcs; do
        for i in $(seq 1 200); do
            [ -s "$tmp/$n/agent.port" ] && break
            sleep 0.05
        done
        ports=$(echo "$ports" | jq --arg n "$n" \
            --argjson p "$(cat "$tmp/$n/agent.port")" '. + {($n): $p}')
    done
    jq --argjson p "$ports" '."lightrail-compute:compute".dc |= map(. + {
            remote: {address: "127.0.0.1", port: $p[.name]}})' \
        "$cluster" > "$tmp/remote.json"
}

# bench_agents_stop: SIGTERM to the agents of the last bench_agents.
bench_agents_stop() {
    for p in $AGENTS; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    AGENTS=
}
