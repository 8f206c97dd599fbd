# Shared by the tests of lightraild on devices of a driver family
# (sb_netconf.sh, sb_netconf_tls.sh, sb_restconf.sh, sb_mnoptical.sh),
# sourced after lib.sh and daemon.sh: lightraild's config for a set of
# devices, the jobs they submit and read back, the media channels the
# store implies, and a start that must be refused.

# devcfg_head TOPOLOGY CLUSTER DRIVER: lightraild's config up to and
# including the southbound's default driver, on stdout; the caller
# writes the driver's settings and ends it (devcfg_devices does).
# No periodic reconciliation (reconcile-interval 0), as daemon.sh.
devcfg_head() {
    cat <<CFG
{
  "lightrail-config:lightraild": {
    "listen": { "address": "127.0.0.1", "port": 0, "tls": true,
                "certificate": "tls/cert.pem", "key": "tls/key.pem" },
    "token": [ { "name": "test", "secret": "$TOKEN" } ],
    "state-dir": "state",
    "reconcile-interval": 0,
    "topology-file": "$1",
    "cluster-file": "$2",
    "southbound": {
      "default-driver": "$3",
CFG
}

# devcfg_devices ADDRESS-COMMAND DEVICE...: the "device" list (each
# DEVICE at the address `ADDRESS-COMMAND DEVICE` prints) and the end of
# the config, on stdout.
devcfg_devices() {
    addr_cmd=$1
    shift
    printf '      "device": [\n'
    sep=
    for r in "$@"; do
        printf '%s        { "name": "%s", "address": "%s" }' "$sep" "$r" "$($addr_cmd "$r")"
        sep=",
"
    done
    printf '\n      ]\n    }\n  }\n}\n'
}

# The media channels every device must hold according to the store (the
# active jobs' lightpaths), one line each, sorted (store_channels.py):
#   DEVICE NAME IN OUT LOWER-MHZ UPPER-MHZ enabled
expected() {
    api GET "$JOBS"
    /usr/bin/python3 "${srcdir:-.}/tests/cli/store_channels.py" "$tmp/body"
}

submit() {   # submit NAME: POSTs a job spanning both DCs
    printf '{"lightrail-job:job":[{"name":"%s","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":10,"max":10}}]}\n' "$1" > "$tmp/$1.json"
    api POST "$JOBS" "$tmp/$1.json"
}

# The first job's phase, reason and number of lightpaths in $tmp/body.
phase() { sed -n 's/.*"phase": "\([a-z]*\)".*/\1/p' "$tmp/body" | head -n 1; }
reason() { sed -n 's/.*"reason": "\(.*\)".*/\1/p' "$tmp/body" | head -n 1; }
n_lightpaths() {
    /usr/bin/python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["lightrail-job:job"][0]
print(len(j.get("state", {}).get("lightpath", [])))' "$tmp/body"
}

# daemon_exits CONFIG LOG: runs lightraild on CONFIG (stderr to LOG),
# which must exit by itself within 10 s; 0 with its exit status in RC
# when it did, 1 when it still ran (it is then stopped by its PID).
daemon_exits() {
    $LIGHTRAILD --config "$1" --foreground 2> "$2" &
    WPID=$!
    i=0
    while kill -0 $WPID 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $WPID 2>/dev/null; then
        kill $WPID; wait $WPID
        return 1
    fi
    wait $WPID
    RC=$?
    return 0
}
