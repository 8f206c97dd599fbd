#!/bin/sh
# Provisioning over NETCONF/TLS: four tests/unit/nc_tls_peer ROADM test
# doubles (libnetconf2's server, mutual certificates, made here with
# openssl) on 127.0.0.1, then tools/bench/lr-bench-netconf over them
# through the netconf driver's TLS transport:
#     tools/bench/netconf_tls.sh [RUNS] [BATCH]
# Run from the top of a built tree (SRCDIR=... when building elsewhere)
# after `make tests/unit/nc_tls_peer` (make bench does it); no root.
# Prints the same Markdown table as tools/bench/netconf.sh.  The devices
# are test doubles holding their datastore in memory, not netconfd:
# compare the transports with care (docs/benchmarks.md).
RUNS=${1:-50}
BATCH=${2:-100}
srcdir=${SRCDIR:-.}
BENCH=${BENCH:-./tools/bench/lr-bench-netconf}
PEER=${PEER:-./tests/unit/nc_tls_peer}
tmp=$(mktemp -d) || exit 1
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/cli/agentlib.sh"
top=$(cd "$srcdir" && pwd)
SCHEMA=$top/yang:/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:/usr/share/yuma/modules/netconfcentral
mk_ca ca && mk_cert ca ctl lightraild \
    || { echo "netconf_tls bench: openssl cannot make certificates" >&2; exit 1; }
ARGS=
for r in r1 r2 r3 r4; do
    mk_cert ca "$r" "$r" || exit 1
    $PEER --cert "$C/$r.pem" --key "$C/$r.key" --ca "$C/ca.pem" \
        --schema-path "$SCHEMA" --port-file "$tmp/$r.port" \
        > /dev/null 2> "$tmp/$r.log" &
    PIDS="$PIDS $!"
    i=0
    while [ ! -s "$tmp/$r.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$tmp/$r.port" ] || { echo "netconf_tls bench: peer $r did not start: $(cat "$tmp/$r.log")" >&2; exit 1; }
    ARGS="$ARGS $r=127.0.0.1:$(cat "$tmp/$r.port")"
done
export SB_TRANSPORT=tls SB_TLS_CERT=$C/ctl.pem SB_TLS_KEY=$C/ctl.key \
    SB_TLS_CA=$C/ca.pem SB_SCHEMA_PATH=$SCHEMA SB_TIMEOUT_MS=5000
# shellcheck disable=SC2086
"$BENCH" --runs "$RUNS" --batch "$BATCH" $ARGS
