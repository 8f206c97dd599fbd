#!/bin/sh
# Provisioning on real NETCONF ROADMs: four netconfd devices behind one
# private sshd on 127.0.0.1 (tests/cli/netconf.sh, as the tests start
# them), then tools/bench/lr-bench-netconf over them:
#     tools/bench/netconf.sh [RUNS] [BATCH]
# Run from the top of a built tree (SRCDIR=... when building elsewhere),
# as root (the devices need a user of their own and an sshd); prints a
# Markdown table of milliseconds per 4-ROADM lightpath: serial against
# parallel, and a batch of BATCH (default 100) lightpaths.
RUNS=${1:-50}
BATCH=${2:-100}
srcdir=${SRCDIR:-.}
BENCH=${BENCH:-./tools/bench/lr-bench-netconf}
tmp=$(mktemp -d) || exit 1
. "$srcdir/tests/cli/netconf.sh"
trap 'nc_stop; rm -rf "$tmp"' EXIT
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
