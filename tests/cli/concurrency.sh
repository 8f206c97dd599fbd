#!/bin/sh
# Many clients at once: parallel submits and deletes, some on the same
# names; every answer is one of the expected statuses, and afterwards the
# invariants hold.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
CLIENTS=${CLIENTS:-6}
OPS=${OPS:-15}

start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
client() {
    for i in $(seq 1 "$OPS"); do
        name=k$(( (i + $1) % 7 ))
        intent "$name" bert-large 8 > "$tmp/c-$1.json"
        s=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/cert.pem" \
            -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/yang-data+json" --data-binary "@$tmp/c-$1.json" "$URL$JOBS")
        echo "POST $s"
        s=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/cert.pem" \
            -H "Authorization: Bearer $TOKEN" -X DELETE "$URL$JOBS/job=$name")
        echo "DELETE $s"
    done > "$tmp/client-$1.log"
}
pids=
for c in $(seq 1 "$CLIENTS"); do client "$c" & pids="$pids $!"; done
# Not a bare 'wait': lightraild is a child of this shell too.
for p in $pids; do wait "$p"; done
cat "$tmp"/client-*.log > "$tmp/all.log"
unexpected=$(grep -v -E '^(POST (201|409)|DELETE (204|404))$' "$tmp/all.log" | sort | uniq -c)
total=$(wc -l < "$tmp/all.log")
if [ -z "$unexpected" ] && [ "$total" -eq $((CLIENTS * OPS * 2)) ]; then
    ok "$total requests from $CLIENTS clients, every status expected"
else
    notok "unexpected answers: $unexpected (total $total)"
fi
created=$(grep -c '^POST 201$' "$tmp/all.log")
[ "$created" -gt 0 ] && ok "$created jobs admitted" || notok "no job admitted"
stop_daemon
check_store "consistent after the storm"
lr_summary
