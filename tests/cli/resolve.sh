#!/bin/sh
# Host names looked up within the client's timeout (controller/
# lr_resolve.h), in a network namespace made here whose resolver never
# answers (root; 77 = skipped when not root or without namespaces):
#   1. a coordinator whose agent's address is a name the resolver sits
#      on: no plan, "cannot resolve ... (timed out)", within its 1 s
#      timeout, though the namespace's resolv.conf says wait 30 s;
#   2. the NETCONF-over-TLS driver (sbctl) on a device named so: the
#      same within its connection timeout (2 x SB_TIMEOUT_MS,
#      sb_netconf.c; one retry), EAGAIN: unreachable for now, nothing
#      sent (ETIMEDOUT, an unknown outcome, until 2026-12-06);
#      The same over SSH (the driver looks the name up itself, before
#      libnetconf2: it was ETIMEDOUT "no NETCONF hello" until
#      2026-12-06);
#   3. a name the namespace's hosts file knows, looked up on the lookup's
#      thread: the plan over that agent equals the in-process plan;
#   4. dc2's agent by its address, behind a proxy that holds its answers
#      0.2 s, and dc3's by a name the resolver sits on: the plan fails on
#      dc3's name; dc2's handshake is not starved while dc3's lookup is
#      waited for (it once was, and dc2 was blamed for a time-out);
#   5. a resolver that refuses (127.0.0.1, where nothing listens on port
#      53: getaddrinfo's EAI_AGAIN, "Temporary failure in name
#      resolution"): the coordinator says the resolver cannot answer
#      now, and the driver gives EAGAIN (unreachable for now, nothing
#      sent: retry), not EHOSTUNREACH, over TLS and over SSH.
# `ip netns exec` puts /etc/netns/NS/resolv.conf and hosts in place of
# /etc's for the commands it runs; the resolver there is 10.77.0.2,
# whose queries go to a MAC address nobody has.  Everything made here
# (the namespace, /etc/netns/NS, the agent) is removed by the trap.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/agentlib.sh"

if [ "$(id -u)" != 0 ]; then
    echo "skipped: needs root"
    exit 77
fi
command -v ip > /dev/null || { echo "skipped: no ip (iproute2)"; exit 77; }
command -v jq > /dev/null || { echo "skipped: no jq"; exit 77; }
command -v openssl > /dev/null || { echo "skipped: no openssl"; exit 77; }
NS=lrdns$(($$ % 10000000))
if ! ip netns add "$NS" 2> /dev/null; then
    echo "skipped: network namespaces are unavailable here"
    exit 77
fi
cleanup() {
    [ -n "$PIDS" ] && kill $PIDS 2> /dev/null
    ip netns del "$NS" 2> /dev/null
    rm -rf "/etc/netns/$NS" "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
in_ns() { ip netns exec "$NS" "$@"; }
top=$(cd "$srcdir" && pwd)

mkdir -p "/etc/netns/$NS"
printf 'nameserver 10.77.0.2\noptions timeout:30 attempts:1\n' \
    > "/etc/netns/$NS/resolv.conf"
printf '127.0.0.1 localhost\n127.0.0.1 dc2.lightrail.test\n' \
    > "/etc/netns/$NS/hosts"
# A veth pair inside the namespace; v0 holds 10.77.0.1/24, and a
# permanent neighbour entry sends 10.77.0.2's frames to a MAC address
# nobody has: v1 drops them, and no error comes back.
in_ns ip link set lo up &&
in_ns ip link add v0 type veth peer name v1 &&
in_ns ip addr add 10.77.0.1/24 dev v0 &&
in_ns ip link set v0 up && in_ns ip link set v1 up &&
in_ns ip neigh add 10.77.0.2 lladdr 02:00:00:00:77:02 dev v0 nud permanent \
    || { echo "FAIL: the namespace's interfaces"; exit 99; }

mk_ca ca && mk_cert ca coordinator coordinator && mk_cert ca dc2 dc2 &&
mk_cert ca ctl lightraild \
    || { echo "FAIL: openssl cannot make the certificates"; exit 99; }
TLS="--cert $C/coordinator.pem --key $C/coordinator.key --ca $C/ca.pem"

# cluster ADDRESS PORT: dc1 and dc3 in this process, dc2 an agent at
# ADDRESS:PORT.
cluster() {
    jq --arg a "$1" --argjson p "$2" \
        '.["lightrail-compute:compute"].dc |= map(if .name == "dc2"
            then . + {remote: {address: $a, port: $p}} else . end)' \
        "$srcdir/examples/clusters/man3.json"
}

# took T0: seconds since T0 (date +%s.%N).
took() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

# 1. The coordinator.
cluster dc2.lightrail.invalid 7000 > "$tmp/slow.json"
t0=$(date +%s.%N)
in_ns $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/slow.json" \
    $TLS --timeout 1 > "$tmp/out" 2> "$tmp/err"
rc=$? t=$(took "$t0")
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] \
   && grep -q "agent dc2 unreachable: cannot resolve 'dc2.lightrail.invalid': no answer from the resolver within 1 s (timed out)" "$tmp/err" \
   && awk -v t="$t" 'BEGIN { exit !(t < 15) }'; then
    ok "an agent name the resolver sits on: no plan in ${t}s: $(cat "$tmp/err")"
else
    notok "agent name, silent resolver: exit $rc in ${t}s: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi

# 2. The NETCONF-over-TLS driver.
t0=$(date +%s.%N)
in_ns env SB_TRANSPORT=tls SB_TLS_CERT="$C/ctl.pem" SB_TLS_KEY="$C/ctl.key" \
    SB_TLS_CA="$C/ca.pem" SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf" SB_TIMEOUT_MS=1000 \
    ./tests/cli/sbctl netconf r1 r1.lightrail.invalid:6513 read \
    > "$tmp/out" 2> "$tmp/err"
rc=$? t=$(took "$t0")
if [ $rc -eq 1 ] \
   && grep -q "EAGAIN: .*cannot resolve r1.lightrail.invalid (no answer from the resolver within the connection's 2000 ms): nothing sent" "$tmp/err" \
   && awk -v t="$t" 'BEGIN { exit !(t < 15) }'; then
    ok "a device name the resolver sits on: EAGAIN in ${t}s: $(cat "$tmp/err")"
else
    notok "device name, silent resolver: exit $rc in ${t}s: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi


# 2b. The same over SSH: the driver looks the name up itself within the
#     connection's time (libnetconf2 would wait as long as resolv.conf
#     says, past the caller's wait: ETIMEDOUT "no NETCONF hello ...
#     device hung?" until 2026-12-06, an outcome to read back for a
#     device sent nothing).
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n' \
    > "$tmp/id" && : > "$tmp/id.pub" && : > "$tmp/known_hosts" \
    || { echo "FAIL: the SSH key files"; exit 99; }
SSH_ENV="SB_KEY=$tmp/id SB_KNOWN_HOSTS=$tmp/known_hosts"
t0=$(date +%s.%N)
in_ns env $SSH_ENV SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf" \
    SB_TIMEOUT_MS=1000 \
    ./tests/cli/sbctl netconf r1 u@r1.lightrail.invalid:830 read \
    > "$tmp/out" 2> "$tmp/err"
rc=$? t=$(took "$t0")
if [ $rc -eq 1 ] \
   && grep -q "EAGAIN: r1: cannot resolve r1.lightrail.invalid (no answer from the resolver within the connection's 2000 ms): nothing sent" "$tmp/err"; then
    ok "over SSH, a device name the resolver sits on: EAGAIN in ${t}s: $(cat "$tmp/err")"
else
    notok "SSH device name, silent resolver: exit $rc in ${t}s: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi
# 3. A name the hosts file knows, and an agent in the namespace.
agent_file dc2 4 125 0.4 32 25
LIGHTRAIL="ip netns exec $NS $LIGHTRAIL" start_agent dc2 "$A/dc2.json" \
    || { notok "the agent in the namespace did not start: $(cat "$A/dc2.log")"; lr_summary; }
cluster dc2.lightrail.test "$APORT" > "$tmp/named.json"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$srcdir/examples/clusters/man3.json" \
    --format json > "$tmp/local.out" 2> "$tmp/err"
in_ns $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/named.json" \
    $TLS --timeout 5 --format json > "$tmp/named.out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && jq -e -n --slurpfile a "$tmp/local.out" --slurpfile b "$tmp/named.out" \
    '($a[0].iteration_time_s - $b[0].iteration_time_s | fabs)
     <= 1e-9 * $a[0].iteration_time_s' > /dev/null; then
    ok "an agent by a name the hosts file knows: T = in-process T ($(jq .iteration_time_s "$tmp/named.out") s)"
else
    notok "agent by name: exit $rc, $(cat "$tmp/err"), $(head -c 300 "$tmp/named.out")"
fi

# 4. A healthy but not instant agent for dc2 (its answers 0.2 s late,
#    what the coordinator sends on time: stallproxy.py --delay), a
#    silent name for dc3.
if command -v python3 > /dev/null; then
    # Not through in_ns: a function in the background is a subshell, and
    # $! its PID; the proxy, its child, outlived the kill of the trap.
    ip netns exec "$NS" python3 "$srcdir/tests/cli/stallproxy.py" --no-stall --delay 0.2 \
        "$APORT" "$tmp/slow.count" > "$tmp/slow.port" 2> "$tmp/slow.log" &
    PPID_SLOW=$!
    PIDS="$PIDS $PPID_SLOW"
    await_file "$tmp/slow.port" $PPID_SLOW "$tmp/slow.log" "the proxy" 100 \
        || { notok "the proxy did not start: $(cat "$tmp/slow.log")"; lr_summary; }
    jq --argjson p "$(cat "$tmp/slow.port")" \
        '.["lightrail-compute:compute"].dc |= map(if .name == "dc2"
            then . + {remote: {address: "127.0.0.1", port: $p}}
            elif .name == "dc3"
            then . + {remote: {address: "dc3.lightrail.invalid", port: 7000}}
            else . end)' "$srcdir/examples/clusters/man3.json" > "$tmp/mixed.json"
    in_ns $LIGHTRAIL plan --distributed --model gpt-1.9b \
        --cluster "$tmp/mixed.json" $TLS --timeout 1 > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 3 ] \
       && grep -q "agent dc3 unreachable: cannot resolve 'dc3.lightrail.invalid': no answer from the resolver within 1 s (timed out)" "$tmp/err"; then
        ok "dc3's silent name fails the plan, dc2 is not blamed: $(cat "$tmp/err")"
    else
        notok "dc3's silent name, dc2 slow but up: exit $rc: $(cat "$tmp/err")"
    fi
else
    echo "skipped: no python3 for the slow proxy"
fi

# 5. The namespace's resolver at 127.0.0.1, where nothing listens: every
#    query is refused at once.  Each `ip netns exec` mounts the file
#    anew.
printf 'nameserver 127.0.0.1\n' > "/etc/netns/$NS/resolv.conf"
in_ns $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$tmp/slow.json" \
    $TLS --timeout 5 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] \
   && grep -q "agent dc2 unreachable: cannot resolve 'dc2.lightrail.invalid': Temporary failure in name resolution (the resolver cannot answer now): try again" "$tmp/err"; then
    ok "an agent name the resolver refuses: $(cat "$tmp/err")"
else
    notok "agent name, refusing resolver: exit $rc: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi
in_ns env SB_TRANSPORT=tls SB_TLS_CERT="$C/ctl.pem" SB_TLS_KEY="$C/ctl.key" \
    SB_TLS_CA="$C/ca.pem" SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf" SB_TIMEOUT_MS=1000 \
    ./tests/cli/sbctl netconf r1 r1.lightrail.invalid:6513 read \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] \
   && grep -q "EAGAIN: .*cannot resolve r1.lightrail.invalid (Temporary failure in name resolution): the resolver cannot answer now; nothing sent: retry" "$tmp/err"; then
    ok "a device name the resolver refuses: $(cat "$tmp/err")"
else
    notok "device name, refusing resolver: exit $rc: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi
in_ns env $SSH_ENV SB_SCHEMA_PATH="$top/yang:/usr/share/yuma/modules/ietf" \
    SB_TIMEOUT_MS=1000 \
    ./tests/cli/sbctl netconf r1 u@r1.lightrail.invalid:830 read \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] \
   && grep -q "EAGAIN: r1: cannot resolve r1.lightrail.invalid (Temporary failure in name resolution): the resolver cannot answer now; nothing sent: retry" "$tmp/err"; then
    ok "over SSH, a device name the resolver refuses: $(cat "$tmp/err")"
else
    notok "SSH device name, refusing resolver: exit $rc: $(cat "$tmp/err" "$tmp/out" | head -5)"
fi

lr_summary
