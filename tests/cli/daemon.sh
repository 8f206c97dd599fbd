# Shared by the daemon tests (sourced after lib.sh): a lightraild of our
# own on 127.0.0.1, an any-free port, a fresh state directory and a
# throw-away certificate; stopped by its PID, never by name.
# reconcile-interval 0: a periodic repair (300 s by default) would undo
# drift a test makes on purpose and move the reconcile counters it
# reads, in a test slow enough (valgrind); reconcile_timer.sh sets it.
LIGHTRAILD=${LIGHTRAILD:-./lightraild}
CHECK=${CHECK:-./controller/lightrail-check}
TOKEN=test-token-0123456789abcdef
D=$tmp/daemon
mkdir -p "$D/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$D/tls/key.pem" -out "$D/tls/cert.pem" -days 1 \
    -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null \
    || { echo "skip: openssl cannot make a certificate"; exit 77; }
cat > "$D/lightraild.json" <<CFG
{
  "lightrail-config:lightraild": {
    "listen": { "address": "127.0.0.1", "port": 0, "tls": true,
                "certificate": "tls/cert.pem", "key": "tls/key.pem" },
    "token": [ { "name": "test", "secret": "$TOKEN" } ],
    "state-dir": "state",
    "reconcile-interval": 0,
    "topology-file": "$(cd "$srcdir" && pwd)/examples/topologies/metro.json",
    "cluster-file": "$(cd "$srcdir" && pwd)/examples/clusters/metro.json",
    "southbound": { "default-driver": "dummy" }
  }
}
CFG
PID=
PORT=

start_daemon() {
    rm -f "$D/state/lightraild.port"
    $LIGHTRAILD --config "$D/lightraild.json" --foreground 2>> "$D/log" &
    PID=$!
    await_file "$D/state/lightraild.port" $PID "$D/log" lightraild \
        "${START_TRIES:-600}" || return 1
    PORT=$(cat "$D/state/lightraild.port")
    URL=https://127.0.0.1:$PORT
}

stop_daemon() {   # SIGTERM, then wait
    [ -n "$PID" ] && kill $PID 2>/dev/null && wait $PID 2>/dev/null
    PID=
}

kill_daemon() {   # SIGKILL: a crash
    [ -n "$PID" ] && kill -9 $PID 2>/dev/null && wait $PID 2>/dev/null
    PID=
}

trap 'kill -9 $PID 2>/dev/null; rm -rf "$tmp"' EXIT

# check_store OK-MESSAGE: lightrail-check finds the store and the devices
# in agreement (it opens the store: stop the daemon first); the check's
# own words when it does not.
check_store() {
    if $CHECK --config "$D/lightraild.json" 2> "$tmp/check"; then
        ok "$1"
    else
        notok "lightrail-check: $(cat "$tmp/check")"
    fi
}

# api METHOD PATH [BODY-FILE] [TOKEN]: sets STATUS and writes $tmp/body
# (and the answer's headers to $tmp/headers); API_HEADER, when set, is
# one more request header ("If-Match: ...").
api() {
    tok=${4-$TOKEN}
    set -- "$1" "$2" "${3:-}"
    if [ -n "$3" ]; then data="--data-binary @$3"; else data=; fi
    STATUS=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' \
        --cacert "$D/tls/cert.pem" \
        ${tok:+-H "Authorization: Bearer $tok"} \
        ${API_HEADER:+-H "$API_HEADER"} \
        -H 'Content-Type: application/yang-data+json' \
        -X "$1" $data "$URL$2")
}

JOBS=/restconf/data/lightrail-job:jobs

# recon_text FILE: reconcile's output (lightrail-job) in FILE as the
# lines `lightrail reconcile` prints: "N difference(s)[, repaired]",
# then one line per difference.
recon_text() {
    jq -r '."lightrail-job:output" | "\(.differences) difference(s)\(if .repaired and .differences > 0 then ", repaired" else "" end)", (.difference // [])[]' "$1"
}

intent() {   # intent NAME MODEL GPUS-MAX > file
    printf '{"lightrail-job:job":[{"name":"%s","model":"%s","batch":32,"microbatch":1,"gpus":{"min":1,"max":%s}}]}\n' "$1" "$2" "$3"
}

# dummy_drift FILE-A CHANNEL FILE-B: drift behind the daemon's back on
# two dummy ROADMs (their JSON files): CHANNEL removed from A, a stranger
# channel "stranger/lp1" (n=100 m=4) added to B.  Each file is replaced
# whole (rename), as sb_dummy writes it: a periodic reconciliation may
# read it at any moment, and a file truncated in place fails that read
# ('is not JSON'), a failure the test did not make.
dummy_drift() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
a, name, b = sys.argv[1], sys.argv[2], sys.argv[3]
def put(path, d):
    with open(path + ".drift", "w") as f:
        json.dump(d, f)
    os.replace(path + ".drift", path)
d = json.load(open(a))
d["media-channels"] = [c for c in d["media-channels"] if c["name"] != name]
put(a, d)
d = json.load(open(b))
d["media-channels"].append({"name": "stranger/lp1", "in-port": "", "out-port": "",
                            "n": 100, "m": 4, "enabled": True})
put(b, d)
PY
}
