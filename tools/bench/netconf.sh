#!/bin/sh
# Provisioning on real NETCONF ROADMs: four netconfd devices behind one
# private sshd on 127.0.0.1 (tests/cli/netconf.sh, as the tests start
# them), then tools/bench/lr-bench-netconf over them:
#     tools/bench/netconf.sh [RUNS] [BATCH]
# Run from the top of a built tree (SRCDIR=... when building elsewhere),
# as root (the devices need a user of their own and an sshd); prints a
# Markdown table of milliseconds per 4-ROADM lightpath: serial against
# parallel, and a batch of BATCH (default 100) lightpaths.  Then
# lightraild itself on the same devices (tests/data/netconf/line4.json):
# one client submitting and deleting GPT-1.9B jobs (two lightpaths over
# the four ROADMs each) for 5 s, through tools/bench/lr-bench-api.
RUNS=${1:-50}
BATCH=${2:-100}
srcdir=${SRCDIR:-.}
BENCH=${BENCH:-./tools/bench/lr-bench-netconf}
tmp=$(mktemp -d) || exit 1
. "$srcdir/tests/cli/netconf.sh"
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; nc_stop; rm -rf "$tmp"' EXIT
if ! nc_can_run; then
    echo "netconf bench skipped"
    exit 0
fi
nc_start r1 r2 r3 r4 || { echo "netconf bench: the devices did not start" >&2; exit 1; }
top=$(cd "$srcdir" && pwd)
export SB_KEY="$NC_KEY" SB_KNOWN_HOSTS="$NC_KNOWN" SB_TIMEOUT_MS=5000 \
    SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:/usr/share/yuma/modules/netconfcentral"
"$BENCH" --runs "$RUNS" --batch "$BATCH" r1="$(nc_address r1)" \
    r2="$(nc_address r2)" r3="$(nc_address r3)" r4="$(nc_address r4)"

# lightraild on the same ROADMs.
. "$top/tools/bench/daemon_lib.sh"
sb=$(cat <<SB
"southbound": {"default-driver": "netconf",
    "netconf": {"ssh-key": "$NC_KEY", "known-hosts": "$NC_KNOWN",
                "schema-path": "$SB_SCHEMA_PATH", "timeout-ms": 5000},
    "device": [{"name": "r1", "address": "$(nc_address r1)"},
               {"name": "r2", "address": "$(nc_address r2)"},
               {"name": "r3", "address": "$(nc_address r3)"},
               {"name": "r4", "address": "$(nc_address r4)"}]}
SB
)
bench_config "$top/tests/data/netconf/line4.json" \
    "$top/tests/data/netconf/line4-cluster.json" "$sb"
bench_start || { echo "netconf bench: see above" >&2; exit 1; }
echo
echo "lightraild on the four NETCONF ROADMs, one client, GPT-1.9B on 10 GPUs (two lightpaths, 8 media channels per job):"
tools/bench/lr-bench-api --server "$URL" \
    --token "$TOKEN" --cacert "$tmp/cert.pem" --clients 1 --seconds 5 \
    --model gpt-1.9b --gpus 10
