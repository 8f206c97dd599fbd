#!/bin/sh
# `lightrail demo --emulate` against the kernel (root; 77 = skipped when
# not root or when network namespaces cannot be made): the DC namespaces,
# shaped veth pairs while it runs, a probe per inter-DC boundary with its
# prediction, nothing left behind after a normal run, after Ctrl-C, and
# after a refused configuration.  Every name it makes starts with a
# prefix of this test's own ("e" + pid); the trap removes whatever is
# left with that prefix even when a check fails, and the last checks
# look at `ip netns list` and `ip link` from outside.
. "${srcdir:-.}/tests/cli/lib.sh"

if [ "$(id -u)" != 0 ]; then
    echo "skipped: needs root"
    exit 77
fi
command -v ip > /dev/null || { echo "skipped: no ip (iproute2)"; exit 77; }
command -v jq > /dev/null || { echo "skipped: no jq"; exit 77; }
p=e$(($$ % 10000000))
if ! ip netns add "$p-probe" 2> /dev/null; then
    echo "skipped: network namespaces are unavailable here"
    exit 77
fi
ip netns del "$p-probe"

demo_pid=
leftovers() {
    ip netns list 2> /dev/null | awk '{print $1}' | grep "^$p-"
    ip -o link show 2> /dev/null | grep -F " ${p}v"
    ls "/run/lightrail/$p.lock" 2> /dev/null
}
cleanup() {
    [ -n "$demo_pid" ] && kill -KILL "$demo_pid" 2> /dev/null
    for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep "^$p-"); do
        ip netns del "$ns"
    done
    rm -f "/run/lightrail/$p.lock"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. A whole run: jobs, probes beside predictions, counters, and cleanup.
if $LIGHTRAIL demo --emulate --format json --prefix "$p" > "$tmp/emu.json" 2> "$tmp/err"; then
    ok "demo --emulate ran"
else
    notok "demo --emulate failed: $(cat "$tmp/err")"
fi
if jq -e '(.boundaries | length) >= 1 and .propagation == "modelled"
          and ([.jobs[] | select(.phase == "active")] | length) >= 1
          and ([.boundaries[] | .predicted_s > 0 and .measured_s > 0
                and .measured_s == .measured_transfer_s + .propagation_s] | all)' \
      "$tmp/emu.json" > /dev/null; then
    ok "every boundary has predicted_s and measured_s"
else
    notok "boundaries: $(cat "$tmp/emu.json")"
fi
# The shaper cannot be beaten: the measured transfer is never much
# faster than the model's X / C (its 2 ms bucket aside), and a wrong
# scale would be off by orders of magnitude.
if jq -e '[.boundaries[] | .measured_transfer_s / .predicted_transfer_s
           | . >= 0.9 and . <= 5] | all' "$tmp/emu.json" > /dev/null; then
    ok "measured transfers agree with the shaped capacity"
else
    notok "measured against predicted: $(jq -c '[.boundaries[] | [.predicted_transfer_s, .measured_transfer_s]]' "$tmp/emu.json")"
fi
if jq -e '. as $d | [$d.boundaries[] | .lightpath as $lp | .bytes as $b
           | [$d.links[] | select(.lightpath == $lp) | .tx_bytes >= $b
              and .errors == 0] | (length == 1 and all)] | all' \
      "$tmp/emu.json" > /dev/null; then
    ok "link counters saw every probed byte"
else
    notok "counters: $(jq -c .links "$tmp/emu.json")"
fi
if [ -z "$(leftovers)" ]; then
    ok "nothing left after a run"
else
    notok "left after a run: $(leftovers)"
fi

# 2. While it runs, ip and tc see namespaces, addresses and tbf at the
#    scaled rate; Ctrl-C removes them.  (0.2 Mb/s per Gb/s: 400 Gb/s is
#    shaped at 80 Mb/s, so a probe takes seconds.)
$LIGHTRAIL demo --emulate --scale 0.2 --prefix "$p" > "$tmp/int.out" 2> "$tmp/int.err" &
demo_pid=$!
seen=
for _ in $(seq 1 100); do
    if ip netns exec "$p-dc1" tc qdisc show 2> /dev/null | grep -q "tbf.*rate 80Mbit"; then
        seen=yes
        break
    fi
    sleep 0.1
done
if [ -n "$seen" ] && ip netns exec "$p-dc1" ip -o addr show 2> /dev/null | grep -q "10\.77\."; then
    ok "tbf at 80Mbit and 10.77 addresses in $p-dc1 while it runs"
else
    notok "no shaped link seen in $p-dc1: $(ip netns exec "$p-dc1" tc qdisc show 2>&1)"
fi
# One live process per prefix: a second run is refused and the first
# one's namespaces stay.
$LIGHTRAIL demo --emulate --prefix "$p" > /dev/null 2> "$tmp/busy.err"
rc=$?
if [ "$rc" -eq 3 ] && grep -q "prefix '$p' is in use" "$tmp/busy.err" \
   && ip netns list | grep -q "^$p-dc1"; then
    ok "a second run with a live prefix: exit 3, the first untouched"
else
    notok "second run: exit $rc, $(cat "$tmp/busy.err"); $(ip netns list)"
fi
kill -INT "$demo_pid"
wait "$demo_pid"
rc=$?
demo_pid=
if [ "$rc" -eq 1 ] && grep -q "interrupted\|stopped" "$tmp/int.err"; then
    ok "Ctrl-C: exit 1 with a message"
else
    notok "Ctrl-C: exit $rc, stderr: $(cat "$tmp/int.err")"
fi
if [ -z "$(leftovers)" ]; then
    ok "nothing left after Ctrl-C"
else
    notok "left after Ctrl-C: $(leftovers)"
fi

# Output into a closed pipe does not kill it before its cleanup.
# (The shell waits for every command of the pipeline.)
$LIGHTRAIL demo --emulate --prefix "$p" 2> /dev/null | head -n 1 > /dev/null
if [ -z "$(leftovers)" ]; then
    ok "nothing left after output into a closed pipe"
else
    notok "left after '| head': $(leftovers)"
fi

# 3. Refusals: bad options make nothing; a scale that tbf cannot shape
#    fails the job (its ROADM channels rolled back) and leaves nothing.
expect_bad "--scale wants" $LIGHTRAIL demo --emulate --scale 0 --prefix "$p"
expect_bad "--scale wants" $LIGHTRAIL demo --emulate --scale abc --prefix "$p"
expect_bad "prefix 'Bad_One'" $LIGHTRAIL demo --emulate --prefix Bad_One
expect_bad "go with --emulate" $LIGHTRAIL demo --scale 2
expect_bad "demo --help" $LIGHTRAIL demo --emulate extra
# The demo meant to provision its first job: exit 3, and stderr says
# how many failed and why, in one line (the JSON has each job's reason).
$LIGHTRAIL demo --emulate --scale 100 --format json --prefix "$p" > "$tmp/big.json" 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 3 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
   && grep -q "^lightrail demo: 2 of 2 sample jobs could not be provisioned (0 boundaries probed); the first, llama2-13b-e: the emulated data plane refused the lightpaths: .*change the scale$" "$tmp/err" \
   && jq -e '.jobs[0].phase == "failed"
             and (.jobs[0].reason | test("emulated data plane.*change the scale"))
             and (.boundaries | length) == 0 and (.links | length) == 0' \
         "$tmp/big.json" > /dev/null; then
    ok "a rate tbf cannot shape: the jobs fail, exit 3 and stderr says why"
else
    notok "--scale 100: exit $rc, $(cat "$tmp/big.json" "$tmp/err")"
fi
if command -v setpriv > /dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        $LIGHTRAIL demo --emulate --prefix "$p" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 3 ] && grep -q "run as root" "$tmp/err"; then
        ok "not root: exit 3, 'run as root'"
    else
        notok "not root: exit $rc, $(cat "$tmp/err")"
    fi
fi
# No temporary directory (a read-only /tmp in a mount namespace of its
# own; ./lightrail is found from the working directory): exit 1, one
# line, and nothing leaked (sanitizer builds fail the exit status).
if command -v unshare > /dev/null; then
    unshare -m sh -c "mount -t tmpfs -o ro tmpfs /tmp && exec $LIGHTRAIL demo --emulate --prefix $p" \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
       && grep -q "cannot make a temporary directory" "$tmp/err"; then
        ok "no temporary directory: exit 1, one line"
    else
        notok "no temporary directory: exit $rc, $(cat "$tmp/err")"
    fi
fi
if [ -z "$(leftovers)" ]; then
    ok "nothing left at the end"
else
    notok "left at the end: $(leftovers)"
fi
lr_summary
