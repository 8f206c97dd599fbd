#!/bin/sh
# `lightrail demo`: the main job runs end to end (a real lightraild on
# 127.0.0.1, sample jobs over HTTPS) and reports what it did.
. "${srcdir:-.}/tests/cli/lib.sh"
if $LIGHTRAIL demo --format json --lightraild ./lightraild > "$tmp/demo.json" 2> "$tmp/err"; then
    if jq -e '.jobs_submitted == 5 and .jobs_active >= 2 and .jobs_blocked >= 1
              and .lightpaths >= 2 and .lightpaths % 2 == 0 and .jobs_failed == 0
              and ([.jobs[] | select(.phase == "blocked") | .reason | length > 0] | all)' \
          "$tmp/demo.json" > /dev/null; then
        ok "demo: jobs admitted and blocked, lightpaths in pairs"
    else
        notok "demo summary: $(cat "$tmp/demo.json")"
    fi
    # The ROADMs it programmed: the metro's six, each answering, and a
    # media channel on every ROADM of each lightpath (two or more).
    if jq -e '.roadms == 6 and .roadms_up == 6
              and .media_channels >= 2 * .lightpaths' "$tmp/demo.json" > /dev/null; then
        ok "demo: six ROADMs up, the lightpaths' media channels on them"
    else
        notok "demo ROADMs: $(jq -c '{roadms, roadms_up, media_channels, lightpaths}' "$tmp/demo.json")"
    fi
else
    notok "demo failed: $(cat "$tmp/err")"
fi
# The text shows the ROADMs as `lightrail devices` does: a row for each,
# up.
$LIGHTRAIL demo --lightraild ./lightraild > "$tmp/demo.txt" 2> "$tmp/err"
sed -n '/^\$ lightrail devices$/,/^$/p' "$tmp/demo.txt" > "$tmp/devices.txt"
if [ "$(grep -c '^r[1-6] .* dummy .* yes ' "$tmp/devices.txt")" = 6 ] \
   && grep -q '^NAME .*DRIVER .*UP .*CHANNELS' "$tmp/devices.txt"; then
    ok "demo text: the devices table, six ROADMs up"
else
    notok "demo text devices: $(cat "$tmp/devices.txt" "$tmp/err")"
fi
# It cleans up after itself.
if ls -d /tmp/lightrail-demo-* 2>/dev/null | while read -r d; do
       [ -e "$d/state/lightraild.pid" ] && kill -0 "$(cat "$d/state/lightraild.pid")" 2>/dev/null && echo alive
   done | grep -q alive; then
    notok "a demo daemon is still running"
else
    ok "no demo daemon left running"
fi
# It stops its daemon (by PID) and removes its directory however it
# ends.  Output into a closed pipe must not kill it first.
$LIGHTRAIL demo --lightraild ./lightraild 2> /dev/null | head -n 1 > "$tmp/first"
dir=$(sed -n 's/.*(state in \(.*\))$/\1/p' "$tmp/first")
if [ -n "$dir" ] && [ ! -e "$dir" ] && ! pgrep -f -- "$dir" > /dev/null; then
    ok "'| head -n 1': daemon stopped, its directory removed"
else
    notok "'| head -n 1' left ${dir:-?}: $(ls "$dir" 2>&1)"
    [ -s "$dir/state/lightraild.pid" ] && kill "$(cat "$dir/state/lightraild.pid")"
    [ -n "$dir" ] && rm -rf "$dir"
fi
# A signal while it waits for its daemon (a stand-in that never serves
# and records its PID and --config) stops both and removes the directory.
printf '#!/bin/sh\necho "$2" > "%s/fake.config"\necho $$ > "%s/fake.pid"\nexec sleep 60\n' \
    "$tmp" "$tmp" > "$tmp/fake-daemon"
chmod +x "$tmp/fake-daemon"
for sig in TERM INT HUP; do
    rm -f "$tmp/fake.pid" "$tmp/fake.config"
    $LIGHTRAIL demo --lightraild "$tmp/fake-daemon" > /dev/null 2> "$tmp/sig.err" &
    demo=$!
    for _ in $(seq 1 200); do
        [ -s "$tmp/fake.pid" ] && break
        sleep 0.05
    done
    kill -"$sig" "$demo"
    wait "$demo"
    rc=$?
    fake=$(cat "$tmp/fake.pid" 2> /dev/null)
    dir=$(dirname "$(cat "$tmp/fake.config" 2> /dev/null)")
    if [ "$rc" -eq 1 ] && [ -n "$fake" ] && ! kill -0 "$fake" 2> /dev/null \
       && [ "$dir" != . ] && [ ! -e "$dir" ] \
       && grep -q "interrupted" "$tmp/sig.err"; then
        ok "SIG$sig: exit 1, daemon stopped, directory removed"
    else
        notok "SIG$sig: exit $rc, $(cat "$tmp/sig.err"); daemon ${fake:-?} $(kill -0 "$fake" 2> /dev/null && echo alive); $(ls -d "$dir" 2>&1)"
        [ -n "$fake" ] && kill "$fake" 2> /dev/null
        [ "$dir" != . ] && rm -rf "$dir"
    fi
done
# A daemon that cannot be run: exit 1, the directory kept, and its log
# says why (the child's line was lost in stderr's buffer: an empty log).
$LIGHTRAIL demo --lightraild "$tmp/no-such-lightraild" > /dev/null 2> "$tmp/nod.err"
rc=$?
dir=$(sed -n 's/^lightrail demo: kept \(.*\)$/\1/p' "$tmp/nod.err")
if [ "$rc" -eq 1 ] && [ -n "$dir" ] && grep -q -x \
       "cannot run $tmp/no-such-lightraild: No such file or directory" \
       "$dir/lightraild.log"; then
    ok "a daemon that cannot be run: exit 1, the log says why"
else
    notok "no daemon: exit $rc, $(cat "$tmp/nod.err"), log: $(cat "$dir/lightraild.log" 2>&1)"
fi
[ -n "$dir" ] && rm -rf "$dir"
# A temporary directory it cannot write (a 4 KB /tmp in a mount namespace
# of its own; root only): exit 1 and one line that says why.
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    unshare -m sh -c "mount -t tmpfs -o size=4k tmpfs /tmp && exec $LIGHTRAIL demo --lightraild ./lightraild" \
        > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
       && grep -q "No space left" "$tmp/err"; then
        ok "full /tmp: exit 1, one line"
    else
        notok "full /tmp: exit $rc, $(cat "$tmp/err")"
    fi
fi
# --keep and --lightraild belong to the daemon demo: with --emulate (no
# daemon, its directory always removed) they are refused, not ignored.
expect_bad "without --emulate" $LIGHTRAIL demo --emulate --keep
expect_bad "without --emulate" $LIGHTRAIL demo --emulate --lightraild ./lightraild
$LIGHTRAIL demo --format yaml > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "format wants" "$tmp/err" && ok "bad --format: exit 2" || notok "bad --format"
# An option without its value is said as such, not as unknown.
expect_bad "unknown or incomplete option '--format' (see lightrail demo --help)" \
    $LIGHTRAIL demo --keep --format
expect_bad "unknown or incomplete option '--kep' (see lightrail demo --help)" \
    $LIGHTRAIL demo --kep
# Sample jobs the devices refuse (the daemon started by a wrapper that
# makes every dummy ROADM refuse its applies, state-dir/devices/R.fail):
# the demo exits 3 and says how many failed and the first one's reason,
# in both formats (it exited 0).
cat > "$tmp/refusing" <<EOF
#!/bin/sh
d=\$(dirname "\$2")
mkdir -p "\$d/state/devices"
for n in \$(jq -r '.["ietf-network:networks"].network[0].node[]["node-id"]' "\$d/metro-topology.json"); do
    echo always > "\$d/state/devices/\$n.fail"
done
exec "$(pwd)/lightraild" "\$@"
EOF
chmod +x "$tmp/refusing"
for fmt in text json; do
    $LIGHTRAIL demo --format $fmt --lightraild "$tmp/refusing" > "$tmp/refused.out" 2> "$tmp/refused.err"
    rc=$?
    line=$(grep "lightrail demo:" "$tmp/refused.err")
    if [ $rc -eq 3 ] && [ "$(echo "$line" | wc -l)" -eq 1 ] \
       && echo "$line" | grep -q "sample jobs could not be provisioned; the first, [a-z0-9.-]*: ROADM r[0-9] refused the lightpaths"; then
        ok "--format $fmt, devices refusing: exit 3, the first failure said"
    else
        notok "--format $fmt, devices refusing: exit $rc, stderr: $(cat "$tmp/refused.err")"
    fi
done
if jq -e '.jobs_failed >= 1' "$tmp/refused.out" > /dev/null; then
    ok "its JSON counts the failed jobs"
else
    notok "JSON with devices refusing: $(cat "$tmp/refused.out")"
fi

lr_summary
