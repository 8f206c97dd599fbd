#!/bin/sh
# `lightrail topology | inventory show | get | put` against lightraild on
# 127.0.0.1 (dummy ROADMs): show's tables and its "etag:" line (the
# server's ETag), --format json the server's JSON alone, get --out the
# server's text with the tag alone on stdout, put with that tag (quoted
# or not) replaced and said what changed, put with a stale tag exit 3
# with the server's 412 message and the document unchanged on the
# server, a file that is no topology or inventory exit 2 with nothing
# sent, the server's 400 (an inventory naming a node the topology
# lacks) exit 2 with nothing changed, a job holding what a put replaces
# exit 3; the options' misuse.  Before, `lightrail inventory` did not
# exist and `topology` had show only: replacing either needed curl.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
NETS=/restconf/data/ietf-network:networks
COMP=/restconf/data/lightrail-compute:compute

start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
export LIGHTRAIL_TOKEN=$TOKEN
L() { $LIGHTRAIL "$@" --server "$URL" --cacert "$D/tls/cert.pem"; }
# server_tag PATH: the ETag a GET of PATH answers now; $tmp/body its text.
server_tag() {
    api GET "$1"
    tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'
}
# run CMD...: $tmp/out, $tmp/err, $rc.
run() { "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; }

# inventory show: each DC, its ROADM, kind, GPUs, none held, all free.
tag=$(server_tag "$COMP")
run L inventory show
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] \
   && grep -Eq '^dc1 +r1 +A100-80GB +16 +0 +16 +-$' "$tmp/out" \
   && grep -Eq '^dc2 +r3 +V100-32GB +32 +0 +32 +-$' "$tmp/out" \
   && grep -Eq '^H100-80GB +989\.0 +0\.4 +80\.0 +8$' "$tmp/out" \
   && grep -Eq '^dc1 -> dc3 +10\.0 +3\.0$' "$tmp/out" \
   && grep -q '^inventory: 3 data centers, 3 GPU kinds, 3 inter-DC links$' "$tmp/out" \
   && [ "$(tail -n 1 "$tmp/out")" = "etag: $tag" ]; then
    ok "inventory show: DCs, kinds, links, the server's etag last"
else
    notok "inventory show -> $rc: $(cat "$tmp/out" "$tmp/err") (etag $tag)"
fi
# --format json: the server's JSON, nothing else on stdout or stderr.
run L inventory show --format json
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] \
   && [ "$(jq -S . "$tmp/out")" = "$(api GET "$COMP"; jq -S . "$tmp/body")" ]; then
    ok "inventory show --format json: the server's JSON alone"
else
    notok "inventory show --format json -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi

# A job holds devices: IN USE and FREE follow the state.
intent j1 gpt-1.9b 4 > "$tmp/j1.json"
api POST "$JOBS" "$tmp/j1.json"
run L inventory show
if [ $rc -eq 0 ] && awk 'NF == 7 && /^dc[0-9]/ { if ($4 != $5 + $6) bad = 1; held += $5 }
                         END { exit bad || held != 4 }' "$tmp/out"; then
    ok "inventory show: the job's 4 GPUs in use, the rest free"
else
    notok "inventory show with a job: $(cat "$tmp/out" "$tmp/err")"
fi
# A job holds the network: put is refused (409), exit 3, unchanged.
before=$(server_tag "$NETS"); cp "$tmp/body" "$tmp/nets0"
run L topology put "$tmp/nets0"
if [ $rc -eq 3 ] && grep -q '^lightrail topology: 409: ' "$tmp/err" \
   && grep -q 'the topology was not changed' "$tmp/err" \
   && [ "$(server_tag "$NETS")" = "$before" ]; then
    ok "topology put while a job holds it: exit 3, unchanged"
else
    notok "topology put with a job -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
api DELETE "$JOBS/job=j1"
for i in $(seq 1 100); do
    api GET "$JOBS"; grep -q '"j1"' "$tmp/body" || break; sleep 0.1
done

# topology show: the table and the server's tag.
tag=$(server_tag "$NETS")
run L topology show
if [ $rc -eq 0 ] && grep -Eq '^r1-r2 +r1 -> r2 +25\.0 +320$' "$tmp/out" \
   && [ "$(tail -n 1 "$tmp/out")" = "etag: $tag" ]; then
    ok "topology show: the links and the server's etag last"
else
    notok "topology show -> $rc: $(cat "$tmp/out" "$tmp/err") (etag $tag)"
fi
# get --out: the server's text in the file, its tag alone on stdout.
run L topology get --out "$tmp/net.json"
if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$tag" ] && [ ! -s "$tmp/err" ] \
   && cmp -s "$tmp/net.json" "$tmp/body"; then
    ok "topology get --out: the server's JSON, the tag on stdout"
else
    notok "topology get --out -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
# The round trip: the same text back with its tag changes nothing.
run L topology put "$tmp/net.json" --if-match "$tag"
if [ $rc -eq 0 ] && grep -q '^topology unchanged' "$tmp/out" \
   && [ "$(tail -n 1 "$tmp/out")" = "etag: $tag" ] \
   && [ "$(server_tag "$NETS")" = "$tag" ]; then
    ok "topology put of what get wrote, with its tag: 0, unchanged"
else
    notok "topology put round trip -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
# Data lightraild does not keep (a termination point): dropped, and put
# says the server's topology is as it was, not that it held the data.
jq '."ietf-network:networks".network[0].node |=
    map(if ."node-id" == "r1" then ."ietf-network-topology:termination-point" = [{"tp-id": "tp9"}] else . end)' \
    "$tmp/net.json" > "$tmp/net-tp.json"
run L topology put "$tmp/net-tp.json" --if-match "$tag"
if [ $rc -eq 0 ] && grep -q "^topology unchanged: the server's topology is as it was (the file held nothing new, or only data lightraild does not keep" "$tmp/out" \
   && [ "$(server_tag "$NETS")" = "$tag" ] && ! grep -q tp9 "$tmp/body"; then
    ok "topology put of a termination point: unchanged, 'data lightraild does not keep'"
else
    notok "topology put of a termination point -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
# An edit with the tag show printed (the shell's quotes gone): taken.
jq '."ietf-network:networks".network[0]."ietf-network-topology:link" |=
    map(if ."link-id" == "r1-r2" then ."lightrail-topology:length-km" = "26.5" else . end)' \
    "$tmp/net.json" > "$tmp/net1.json"
bare=$(echo "$tag" | tr -d '"')
run L topology put "$tmp/net1.json" --if-match "$bare"
new=$(server_tag "$NETS")
if [ $rc -eq 0 ] && [ "$new" != "$tag" ] \
   && [ "$(sed -n 2,3p "$tmp/out")" = "  network metro changed
  link r1-r2 changed" ] && [ "$(wc -l < "$tmp/out")" -eq 4 ] \
   && [ "$(tail -n 1 "$tmp/out")" = "etag: $new" ] \
   && jq -e '."ietf-network:networks".network[0]."ietf-network-topology:link"[]
             | select(."link-id" == "r1-r2") | ."lightrail-topology:length-km" == "26.5"' \
          "$tmp/body" > /dev/null; then
    ok "topology put --if-match (show's tag): 0, r1-r2 changed, new etag"
else
    notok "topology put --if-match -> $rc: $(cat "$tmp/out" "$tmp/err") (server $new)"
fi
# The second operator's edit with the tag read before: 412, exit 3,
# the server's words and what to do; the topology stays the first's.
cp "$tmp/body" "$tmp/nets1"
jq '."ietf-network:networks".network[0]."ietf-network-topology:link" |=
    map(if ."link-id" == "r2-r3" then ."lightrail-topology:length-km" = "41.0" else . end)' \
    "$tmp/net.json" > "$tmp/net2.json"
run L topology put "$tmp/net2.json" --if-match "$tag"
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] \
   && grep -q '^lightrail topology: 412: the resource changed since the entity-tag in If-Match was read: GET the resource again' "$tmp/err" \
   && grep -q 'the topology was not changed: lightrail topology get --out FILE' "$tmp/err" \
   && [ "$(server_tag "$NETS")" = "$new" ] && cmp -s "$tmp/body" "$tmp/nets1"; then
    ok "topology put with a stale tag: exit 3, the 412's message, unchanged"
else
    notok "topology put stale -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
# A file that is no topology: exit 2, one line naming the file, nothing
# sent (the server's tag and text as before).
echo '{"ietf-network:networks":{}}' > "$tmp/bad.json"
expect_bad "$tmp/bad.json: /ietf-network:networks: " L topology put "$tmp/bad.json" --if-match "$new"
grep -q 'nothing was sent' "$tmp/err" && [ "$(server_tag "$NETS")" = "$new" ] \
    && cmp -s "$tmp/body" "$tmp/nets1" \
    && ok "topology put of a bad file: the server's topology unchanged" \
    || notok "topology put bad: $(cat "$tmp/err")"
echo '{"ietf-network:networks": [' > "$tmp/broken.json"
expect_bad "$tmp/broken.json" L inventory put "$tmp/broken.json"

# The inventory: an edit with the tag, then one the server refuses (a
# DC on a node the topology lacks: 400, exit 2, unchanged).
run L inventory get --out "$tmp/inv.json"
itag=$(cat "$tmp/out")
jq '."lightrail-compute:compute".dc |= map(if .name == "dc2" then ."device-count" = 24 else . end)' \
    "$tmp/inv.json" > "$tmp/inv1.json"
run L inventory put "$tmp/inv1.json" --if-match "$itag"
inew=$(server_tag "$COMP")
if [ $rc -eq 0 ] && [ "$(sed -n 2p "$tmp/out")" = "  DC dc2 changed" ] \
   && [ "$(tail -n 1 "$tmp/out")" = "etag: $inew" ] && [ "$inew" != "$itag" ] \
   && L inventory show | grep -Eq '^dc2 +r3 +V100-32GB +24 +0 +24 +-$'; then
    ok "inventory put --if-match: dc2 changed, shown with 24 GPUs"
else
    notok "inventory put -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi
cp "$tmp/body" "$tmp/inv1"
jq '."lightrail-compute:compute".dc |= map(if .name == "dc2" then ."attachment-node" = "r9" else . end)' \
    "$tmp/inv.json" > "$tmp/inv2.json"
run L inventory put "$tmp/inv2.json" --if-match "$inew"
if [ $rc -eq 2 ] && grep -q "^lightrail inventory: 400: .*node 'r9' is not in topology metro" "$tmp/err" \
   && grep -q 'the inventory was not changed' "$tmp/err" \
   && [ "$(server_tag "$COMP")" = "$inew" ] && cmp -s "$tmp/body" "$tmp/inv1"; then
    ok "inventory put the server refuses: exit 2, its message, unchanged"
else
    notok "inventory put 400 -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi

# Only the order of the DCs changed: said so, not 'other leaves' alone.
L inventory get --out "$tmp/inv3.json" > "$tmp/itag"
jq '."lightrail-compute:compute".dc |= reverse' "$tmp/inv3.json" > "$tmp/inv4.json"
run L inventory put "$tmp/inv4.json" --if-match "$(cat "$tmp/itag")"
if [ $rc -eq 0 ] && [ "$(sed -n 2p "$tmp/out")" = "  (no item added, removed or changed: their order or other leaves changed)" ]; then
    ok "inventory put of the DCs reversed: their order changed"
else
    notok "inventory put reversed -> $rc: $(cat "$tmp/out" "$tmp/err")"
fi

# The options' misuse: exit 2, one line, before any request.
expect_bad "get needs --out FILE" L topology get
expect_bad "--out goes with get only" L inventory show --out "$tmp/x"
expect_bad "--if-match goes with put only" L topology show --if-match "$new"
expect_bad "--if-match * matches any version: leave --if-match out" L topology put "$tmp/net.json" --if-match '*'
expect_bad "--if-match wants the etag show or get printed" L topology put "$tmp/net.json" --if-match 'a b'
expect_bad "a weak tag (W/...) never matches a PUT's If-Match: give the etag show or get printed, without W/" L topology put "$tmp/net.json" --if-match "W/$new"
expect_bad "topology put needs a FILE" L topology put
expect_bad "--format json goes with show" L inventory put "$tmp/inv.json" --format json
expect_bad "--out goes with topology and inventory get only" L job list --out "$tmp/x"
expect_bad "unknown action 'edit': show, get or put" L inventory edit
expect_bad "which action: show, get or put?" $LIGHTRAIL inventory
expect_bad "--out $tmp/none/x: cannot write a file there" L inventory get --out "$tmp/none/x"
expect_bad "--out - is not stdout here: get prints the etag there" L topology get --out -
[ ! -e ./- ] && ok "no file named - made" || { rm -f ./-; notok "get --out - made ./-"; }
[ ! -e "$tmp/x" ] && ok "no --out file made by a refused command" || notok "$tmp/x made"
# --help says what put without --if-match does, and how a script goes.
$LIGHTRAIL topology --help > "$tmp/help"
tr -s ' \n' ' ' < "$tmp/help" | grep -q 'Without --if-match put overwrites whatever the server holds' \
    && grep -q 'tag=$(lightrail topology get --out f.json)' "$tmp/help" \
    && $LIGHTRAIL inventory --help | grep -q '^usage: lightrail inventory show' \
    && ok "--help: put without --if-match overwrites; the script's way" \
    || notok "topology --help: $(cat "$tmp/help")"

stop_daemon
check_store "the store and the devices agree after the puts"
lr_summary
