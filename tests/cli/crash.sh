#!/bin/sh
# Crash test: lightraild is killed with SIGKILL at random moments while
# jobs are being admitted and deleted; after a restart (recovery) and a
# clean stop, lightrail-check must find the invariants whole: nothing in
# provisioning or releasing, the store's reservations equal to what the
# active jobs hold, no slot twice, every active job's channels on its
# ROADMs, no orphan channel.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
ROUNDS=${CRASH_ROUNDS:-6}

load() {   # submits and deletes until killed
    i=0
    while :; do
        i=$((i + 1))
        name=c$1-$((i % 4))
        intent "$name" bert-large 8 > "$tmp/load-$1.json"
        curl -s -o /dev/null --cacert "$D/tls/cert.pem" \
            -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/yang-data+json" --data-binary "@$tmp/load-$1.json" \
            "$URL$JOBS" 2>/dev/null
        [ $((i % 3)) = 0 ] && curl -s -o /dev/null --cacert "$D/tls/cert.pem" \
            -H "Authorization: Bearer $TOKEN" -X DELETE "$URL$JOBS/job=$name" 2>/dev/null
    done
}

for round in $(seq 1 "$ROUNDS"); do
    start_daemon || { notok "round $round: lightraild did not start"; break; }
    load "$round" &
    LOAD=$!
    delay=$(awk -v s="$round" 'BEGIN { srand(); printf "%.2f", 0.05 + rand() * 0.6 }')
    sleep "$delay"
    kill_daemon
    kill $LOAD 2>/dev/null; wait $LOAD 2>/dev/null
    start_daemon || { notok "round $round: no restart after the crash"; break; }
    stop_daemon
    if $CHECK --config "$D/lightraild.json" 2> "$tmp/check"; then
        ok "round $round: killed after ${delay}s, consistent after restart"
    else
        notok "round $round (killed after ${delay}s): $(cat "$tmp/check")"
    fi
done
# The crashes must have caught work in flight at least once for the test
# to mean something: recovery says so in the log.
if grep -q 'interrupted' "$D/log" || grep -q 'provisioning\|releasing' "$D/log"; then
    ok "recovery found interrupted work at least once"
else
    echo "note: no crash landed inside a transaction this time"
fi
lr_summary
