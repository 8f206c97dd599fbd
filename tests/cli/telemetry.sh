#!/bin/sh
# lightraild with the emulated data plane (root; 77 = skipped when not
# root or when network namespaces cannot be made): the namespaces come
# with the daemon, an admitted job's lightpaths become tbf-shaped veth
# pairs, their netlink counters reach /metrics and lightrail-state, a
# delete removes the pairs, a restart re-makes them, a crash's leftovers
# are cleared by the next start, and nothing is left at the end.  Names
# start with a prefix of this test's own; the trap removes what is left
# with it even when a check fails.
. "${srcdir:-.}/tests/cli/lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "skipped: needs root"
    exit 77
fi
command -v ip > /dev/null && command -v jq > /dev/null && command -v curl > /dev/null \
    || { echo "skipped: needs ip, jq and curl"; exit 77; }
p=m$(($$ % 10000000))
if ! ip netns add "$p-probe" 2> /dev/null; then
    echo "skipped: network namespaces are unavailable here"
    exit 77
fi
ip netns del "$p-probe"
. "${srcdir:-.}/tests/cli/daemon.sh"

leftovers() {
    ip netns list 2> /dev/null | awk '{print $1}' | grep "^$p-"
    ip -o link show 2> /dev/null | grep -F " ${p}v"
    ls "/run/lightrail/$p.lock" 2> /dev/null
}
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2> /dev/null
    for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep "^$p-"); do
        ip netns del "$ns"
    done
    rm -f "/run/lightrail/$p.lock"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# daemon.sh's configuration, with the data plane.
jq --arg p "$p" '.["lightrail-config:lightraild"].emulation =
        {"enabled": true, "prefix": $p, "scale-mbps-per-gbps": "1",
         "telemetry-interval-ms": 200}' "$D/lightraild.json" > "$D/emu.json" \
    && mv "$D/emu.json" "$D/lightraild.json"
if yanglint -p "$(cd "$srcdir" && pwd)/yang" "$(cd "$srcdir" && pwd)/yang/lightrail-config.yang" \
       "$D/lightraild.json" > "$tmp/yl" 2>&1 || ! command -v yanglint > /dev/null; then
    ok "the configuration with emulation is valid YANG"
else
    notok "yanglint: $(cat "$tmp/yl")"
fi

start_daemon || { notok "lightraild with emulation did not start: $(cat "$D/log")"; lr_summary; exit 1; }
if [ "$(ip netns list | awk '{print $1}' | grep -c "^$p-dc[123]$")" -eq 3 ]; then
    ok "a namespace per DC"
else
    notok "namespaces: $(ip netns list)"
fi

printf '{"lightrail-job:job":[{"name":"gj","model":"gpt-1.9b","batch":64,"microbatch":4,"gpus":{"min":4,"max":32}}]}\n' > "$tmp/gj.json"
api POST "$JOBS" "$tmp/gj.json"
if [ "$STATUS" = 201 ] && jq -e '.["lightrail-job:job"][0].state.phase == "active"' "$tmp/body" > /dev/null; then
    ok "job admitted"
else
    notok "POST: $STATUS $(cat "$tmp/body")"
fi
# Which DCs the plan joined: the first lightpath's source end has the tbf.
src=$(jq -r '.["lightrail-job:job"][0].state.lightpath[0]["from-dc"] // empty' "$tmp/body")
dst=$(jq -r '.["lightrail-job:job"][0].state.lightpath[0]["to-dc"] // empty' "$tmp/body")
if [ -n "$src" ] && ip netns exec "$p-$src" tc qdisc show 2> /dev/null | grep -q "tbf.*rate 400Mbit"; then
    ok "lightpath 1 shaped at 400Mbit in $p-$src"
else
    notok "no tbf in $p-$src: $(ip netns exec "$p-$src" tc qdisc show 2>&1); job: $(cat "$tmp/body")"
fi
# Traffic on lightpath 1: connection attempts from its source end to its
# destination end (nothing listens: SYN out, RST back).  In the
# destination's namespace the only receiving end ("...b") of this job is
# lightpath 1's: lightpath 2 leaves from there.
peer=$(ip netns exec "$p-$dst" ip -o -4 addr show 2> /dev/null | awk -v e="^${p}v[0-9]+b\$" '$2 ~ e {print $4}' | cut -d/ -f1)
for _ in $(seq 1 20); do
    ip netns exec "$p-$src" curl -s --max-time 1 "http://$peer:9/" > /dev/null 2>&1
done
# The counters reach the state and /metrics at the next sample (every
# 200 ms), a throughput after two: wait, up to 10 s (a sanitizer build
# on a loaded machine) rather than a fixed second, until lightpath 1's
# 20 probes are sampled and each lightpath has a throughput.
for _ in $(seq 100); do
    api GET /restconf/data/lightrail-state:state
    [ "$STATUS" = 200 ] && jq -e '.["lightrail-state:state"]["emulated-link"] // []
            | length == 2 and all(has("throughput-bps"))
              and ([.[] | select(.lightpath == "gj/lp1")
                    | .["tx-packets"] | tonumber] | (.[0] // 0) >= 20)' \
            "$tmp/body" > /dev/null && break
    sleep 0.1
done
api GET /metrics
if [ "$STATUS" = 200 ] && grep -q "^lightrail_emulated_link_packets_total{lightpath=\"gj/lp1\",from=\"$src\",to=\"$dst\"} [1-9]" "$tmp/body" \
   && grep -q '^lightrail_emulated_link_throughput_bps{lightpath="gj/lp2"' "$tmp/body" \
   && grep -q '^lightrail_emulated_link_capacity_bps{lightpath="gj/lp1".*} 400000000000$' "$tmp/body"; then
    ok "/metrics: packets, throughput and capacity per emulated lightpath"
else
    notok "/metrics: $(grep emulated "$tmp/body")"
fi
api GET /restconf/data/lightrail-state:state
if [ "$STATUS" = 200 ] && jq -e --arg src "$src" '.["lightrail-state:state"]["emulated-link"]
        | length == 2 and (map(select(.lightpath == "gj/lp1"))[0]
        | (.["tx-packets"] | tonumber) >= 20 and .["from-dc"] == $src
          and .["shaped-rate-bps"] == "400000000" and has("throughput-bps")
          and .errors == "0")' "$tmp/body" > /dev/null; then
    ok "lightrail-state: emulated-link counters"
else
    notok "state: $(jq -c '.["lightrail-state:state"]["emulated-link"]' "$tmp/body")"
fi

api DELETE "$JOBS/job=gj"
if [ "$STATUS" = 204 ] && [ -z "$(ip netns exec "$p-$src" ip -o link show 2> /dev/null | grep -F "${p}v")" ]; then
    ok "delete removes the pairs"
else
    notok "after delete: $STATUS $(ip netns exec "$p-$src" ip -o link show 2>&1)"
fi

# A restart: the namespaces go with the daemon and come back with the
# active job's pairs.
api POST "$JOBS" "$tmp/gj.json"
stop_daemon
if [ -z "$(leftovers)" ]; then
    ok "a stopped daemon leaves nothing"
else
    notok "left by a stopped daemon: $(leftovers)"
fi
start_daemon
if ip netns exec "$p-$src" tc qdisc show 2> /dev/null | grep -q "tbf.*rate 400Mbit"; then
    ok "restart: the active job's pairs are made again"
else
    notok "restart: $(ip netns exec "$p-$src" tc qdisc show 2>&1); $(cat "$D/log")"
fi
# A crash leaves the namespaces; the next start clears and re-makes them.
kill_daemon
[ -n "$(leftovers)" ] && ok "a crash leaves the namespaces (as expected)" || notok "nothing after kill -9?"
start_daemon
n=$(ip netns exec "$p-$src" ip -o link show 2> /dev/null | grep -c -F "${p}v")
if [ "$n" -eq 2 ]; then
    ok "start after a crash: leftovers cleared, two ends in $p-$src"
else
    notok "after a crash: $n ends in $p-$src: $(ip netns exec "$p-$src" ip -o link show 2>&1)"
fi
stop_daemon
if [ -z "$(leftovers)" ]; then
    ok "nothing left at the end"
else
    notok "left at the end: $(leftovers)"
fi
lr_summary
