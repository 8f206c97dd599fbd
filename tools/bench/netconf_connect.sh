#!/bin/sh
# New NETCONF sessions to a real device, with and without the driver's
# hedged connection (southbound/sb_netconf.c, sb_nc_connect), side by
# side: one netconfd behind a private sshd on 127.0.0.1 (tests/cli/
# netconf.sh), LOAD busy loops beside it (the machine CI runs on is
# shared and busy), then N reads with tests/cli/sbctl, each a process of
# its own and so a session of its own, alternating SB_NC_HEDGE=0 and the
# default so that both see the same machine:
#     tools/bench/netconf_connect.sh [N] [LOAD]
# N reads of each kind (default 300), LOAD busy loops (default 3).  Run
# from the top of a built tree after `make check` (or `make
# tests/cli/sbctl`), as root.  Prints a Markdown table: reads that failed
# (no session within 3 x timeout-ms, 15 s), reads slower than timeout-ms
# (5 s: where a hedge starts), and the median, 99th percentile and
# largest time of a read in milliseconds.
N=${1:-300}
LOAD=${2:-3}
srcdir=${SRCDIR:-.}
SBCTL=${SBCTL:-./tests/cli/sbctl}
tmp=$(mktemp -d) || exit 1
. "$srcdir/tests/cli/netconf.sh"
BUSY=
trap '[ -n "$BUSY" ] && kill $BUSY 2>/dev/null; nc_stop; rm -rf "$tmp"' EXIT
if ! nc_can_run; then
    echo "netconf connect bench skipped"
    exit 0
fi
[ -x "$SBCTL" ] || { echo "netconf_connect.sh: no $SBCTL: run make check (or make tests/cli/sbctl) first" >&2; exit 1; }
nc_start r1 || { echo "netconf_connect.sh: the device did not start" >&2; exit 1; }
top=$(cd "$srcdir" && pwd)
export SB_KEY="$NC_KEY" SB_KNOWN_HOSTS="$NC_KNOWN" SB_TIMEOUT_MS=5000 \
    SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:/usr/share/yuma/modules/netconfcentral"
for i in $(seq 1 "$LOAD"); do
    sh -c 'while :; do :; done' &
    BUSY="$BUSY $!"
done

now_ms() { date +%s%3N; }
: > "$tmp/off"
: > "$tmp/on"
for i in $(seq 1 "$N"); do
    for mode in off on; do
        [ $mode = off ] && h=0 || h=1
        t0=$(now_ms)
        if SB_NC_HEDGE=$h "$SBCTL" netconf r1 "$(nc_address r1)" read > /dev/null 2> "$tmp/err"; then
            ok=1
        else
            ok=0
        fi
        echo "$(( $(now_ms) - t0 )) $ok" >> "$tmp/$mode"
    done
    [ $((i % 50)) = 0 ] && echo "netconf_connect.sh: $i of $N" >&2
done

echo "| hedging | reads | failed | slower than 5 s | median ms | p99 ms | max ms |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for mode in off on; do
    sort -n "$tmp/$mode" | awk -v mode=$mode '
        { t[NR] = $1; if ($2 == 0) failed++; if ($1 > 5000) slow++ }
        END {
            p99 = int(NR * 0.99); if (p99 < 1) p99 = 1
            printf "| %s | %d | %d | %d | %d | %d | %d |\n", mode, NR,
                   failed, slow, t[int((NR + 1) / 2)], t[p99], t[NR]
        }'
done
echo
echo "($N reads of each kind, alternating, $LOAD busy loops, $(nproc) cores, $(date -u +%Y-%m-%d))"
