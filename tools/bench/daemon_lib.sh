# Shared by tools/bench/api.sh, netconf.sh, plan_loop.sh and jobs_get.sh
# (sourced, after `tmp` (a directory of their own) and `top` (the tree)
# are set):
# a lightraild of the benchmark's own on 127.0.0.1, over HTTPS with a
# certificate made here, stopped by PID by the caller's trap.

TOKEN=bench-token-0123456789abcdef
PID=

# bench_config TOPOLOGY CLUSTER [MEMBERS]: $tmp/lightraild.json, with a
# self-signed certificate for 127.0.0.1 in $tmp; MEMBERS (JSON, without
# the leading comma) are added to the configuration, e.g. its
# "southbound".
bench_config() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
        -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
    cat > "$tmp/lightraild.json" <<CFG
{"lightrail-config:lightraild": {
  "listen": {"address": "127.0.0.1", "port": 0, "tls": true,
             "certificate": "cert.pem", "key": "key.pem"},
  "token": [{"name": "bench", "secret": "$TOKEN"}],
  "state-dir": "state",
  "topology-file": "$1",
  "cluster-file": "$2"${3:+,
  $3}}}
CFG
}

# bench_start [LIGHTRAILD]: starts it (default ./lightraild) on
# $tmp/lightraild.json and waits up to 20 s for its port: sets PID and
# URL, or says why on stderr and returns 1.
bench_start() {
    "${1:-./lightraild}" --config "$tmp/lightraild.json" --foreground \
        2> "$tmp/log" &
    PID=$!
    for i in $(seq 1 400); do
        [ -s "$tmp/state/lightraild.port" ] && break
        kill -0 $PID 2>/dev/null || break
        sleep 0.05
    done
    if [ ! -s "$tmp/state/lightraild.port" ]; then
        echo "lightraild did not start:" >&2
        cat "$tmp/log" >&2
        return 1
    fi
    URL=https://127.0.0.1:$(cat "$tmp/state/lightraild.port")
}
