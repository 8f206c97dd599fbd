#!/bin/sh
# The northbound API against a real lightraild on 127.0.0.1: the resources,
# and a table of bad requests, each checked for its status and for no
# change of state (jobs, resource state and device files).
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"

start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }

intent j1 gpt-1.9b 64 > "$tmp/j1.json"
api POST $JOBS "$tmp/j1.json"
if [ "$STATUS" = 201 ] && jq -e '."lightrail-job:job"[0].state.phase == "active"' "$tmp/body" > /dev/null; then
    ok "POST a job: 201, active"
else
    notok "POST a job: $STATUS $(cat "$tmp/body")"
fi
# RFC 8040 4.4.1: a 201 says where the new resource is.
tr -d '\r' < "$tmp/headers" | grep -q -i "^Location: $JOBS/job=j1$" \
    && ok "POST a job: Location names it" \
    || notok "POST a job: no Location: $(cat "$tmp/headers")"

api GET "$JOBS/job=j1"
[ "$STATUS" = 200 ] && jq -e '."lightrail-job:job"[0].name == "j1"' "$tmp/body" > /dev/null \
    && ok "GET one job" || notok "GET one job: $STATUS"
api GET /restconf/data/lightrail-state:state
[ "$STATUS" = 200 ] && jq -e '[."lightrail-state:state".dc[]."in-use"] | add > 0' "$tmp/body" > /dev/null \
    && ok "GET state: GPUs in use" || notok "GET state: $STATUS $(cat "$tmp/body")"
api GET /restconf/data/ietf-network:networks
[ "$STATUS" = 200 ] && ok "GET topology" || notok "GET topology: $STATUS"
# Its entity-tag with a job active, for "Concurrent edits" below.
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/etag-busy"
# The ROADMs keep the names and descriptions the file gave them.
jq -e '."ietf-network:networks".network[0].node[] | select(."node-id" == "r1")
       | ."lightrail-topology:roadm" == {"name": "ROADM R1", "description": "north"}' \
    "$tmp/body" > /dev/null \
    && ok "GET topology: r1 is ROADM R1, north" \
    || notok "GET topology: r1's roadm: $(jq -c '."ietf-network:networks".network[0].node[0]' "$tmp/body")"
api GET /restconf/data/lightrail-compute:compute
[ "$STATUS" = 200 ] && ok "GET inventory" || notok "GET inventory: $STATUS"
api GET /metrics "" ""
[ "$STATUS" = 200 ] && grep -q '^lightrail_jobs{phase="active"} 1' "$tmp/body" \
    && grep -q 'lightrail_http_request_seconds_bucket' "$tmp/body" \
    && ok "GET /metrics without a token" || notok "metrics: $STATUS"

# A custom model: its shape in the intent.
printf '{"lightrail-job:job":[{"name":"gpt2","model":"gpt2-small","batch":32,"microbatch":2,"gpus":{"min":1,"max":4},"transformer":{"arch":"gpt","layers":12,"hidden":768,"heads":12,"ffn":3072,"vocab":50257,"seq":1024}}]}' > "$tmp/custom.json"
api POST $JOBS "$tmp/custom.json"
if [ "$STATUS" = 201 ] && jq -e '."lightrail-job:job"[0] | .state.phase == "active" and .transformer.layers == 12 and (.state.stage | length > 0)' "$tmp/body" > /dev/null; then
    ok "POST a custom transformer: active, shape echoed"
else
    notok "custom model: $STATUS $(cat "$tmp/body")"
fi
api DELETE "$JOBS/job=gpt2"

# An intent with its length: iterations (a JSON string, RFC 7951) is
# shown back, and kept across a restart.
printf '{"lightrail-job:job":[{"name":"iters","model":"gpt-1.9b","gpus":{"min":1,"max":8},"iterations":"250000"}]}' > "$tmp/iters.json"
api POST $JOBS "$tmp/iters.json"
if [ "$STATUS" = 201 ] && jq -e '."lightrail-job:job"[0].iterations == "250000"' "$tmp/body" > /dev/null; then
    ok "POST with iterations: 201, iterations echoed"
else
    notok "iterations: $STATUS $(cat "$tmp/body")"
fi
stop_daemon
start_daemon || notok "no restart"
api GET "$JOBS/job=iters"
if [ "$STATUS" = 200 ] && jq -e '."lightrail-job:job"[0].iterations == "250000"' "$tmp/body" > /dev/null; then
    ok "iterations survive a restart"
else
    notok "iterations after restart: $STATUS $(cat "$tmp/body")"
fi
api DELETE "$JOBS/job=iters"

# A snapshot of everything a request could change.
snapshot() {
    API_HEADER= api GET $JOBS; cp "$tmp/body" "$tmp/snap-jobs"
    API_HEADER= api GET /restconf/data/lightrail-state:state
    cp "$tmp/body" "$tmp/snap-state"
    API_HEADER= api GET /restconf/data/ietf-network:networks
    cp "$tmp/body" "$tmp/snap-net"
    API_HEADER= api GET /restconf/data/lightrail-compute:compute
    cat "$tmp/body" >> "$tmp/snap-net"
    { ls "$D/state/devices"; cat "$D/state/devices"/*.json; } 2>/dev/null \
        | md5sum > "$tmp/snap-dev"
    cat "$tmp/snap-jobs" "$tmp/snap-state" "$tmp/snap-net" "$tmp/snap-dev" \
        | md5sum
}

# bad STATUS TAG DESCRIPTION METHOD PATH [BODY-FILE] [TOKEN]
bad() {
    want=$1 tag=$2 what=$3
    shift 3
    before=$(snapshot)
    api "$@"
    got=$STATUS
    cp "$tmp/body" "$tmp/bad-body"
    cp "$tmp/headers" "$tmp/bad-headers"
    after=$(snapshot)
    if [ "$got" = "$want" ] && [ "$before" = "$after" ] \
       && { [ -z "$tag" ] || jq -e --arg t "$tag" \
              '."ietf-restconf:errors".error[0]."error-tag" == $t' "$tmp/bad-body" > /dev/null; }; then
        ok "$what: $want, nothing changed"
    else
        notok "$what: got $got (want $want), changed: $([ "$before" = "$after" ] && echo no || echo yes), body $(cat "$tmp/bad-body")"
    fi
}

printf '{"lightrail-job:job":[{"name":"x",' > "$tmp/malformed.json"
printf '{"lightrail-job:job":[{"name":"x","model":"gpt-1.9b","batch":32,"microbatch":5}]}' > "$tmp/yang.json"
printf '{"lightrail-job:job":[{"name":"x","model":"gpt-1.9b","colour":"red"}]}' > "$tmp/unknown.json"
printf '{"lightrail-job:job":[{"name":"x","model":"gpt-42"}]}' > "$tmp/model.json"
head -c 2097152 /dev/zero | tr '\0' ' ' > "$tmp/big.json"
bad 400 malformed-message "malformed JSON" POST $JOBS "$tmp/malformed.json"
bad 400 invalid-value "YANG violation (microbatch)" POST $JOBS "$tmp/yang.json"
if jq -e '."ietf-restconf:errors".error[0]."error-path" | test("job\\[name=.x.\\]")' "$tmp/bad-body" > /dev/null; then
    ok "error-path names the job"
else
    notok "error-path: $(cat "$tmp/bad-body")"
fi
bad 400 "" "unknown field" POST $JOBS "$tmp/unknown.json"
# Metadata at the top of a body: libyang 2.1.30 crashed on it when the
# body was parsed into a parent node (tests/fuzz/fuzz_intent); a body
# that is no object; text after the object (once ignored).
printf '{"@job":[{"name":"x"}]}' > "$tmp/meta.json"
printf '[{"name":"x"}]' > "$tmp/array.json"
printf '{"lightrail-job:job":[{"name":"x","model":"gpt-1.9b"}]} x' > "$tmp/trail.json"
bad 400 "" "top-level metadata" POST $JOBS "$tmp/meta.json"
bad 400 malformed-message "a body that is no object" POST $JOBS "$tmp/array.json"
bad 400 malformed-message "text after the object" POST $JOBS "$tmp/trail.json"
bad 400 "" "unknown model" POST $JOBS "$tmp/model.json"
printf '{"lightrail-job:job":[{"name":"x","model":"odd","transformer":{"arch":"llama","layers":4,"hidden":64,"heads":6,"kv-heads":4,"ffn":128,"vocab":100,"seq":16}}]}' > "$tmp/kv.json"
bad 400 "" "custom shape whose kv-heads do not divide heads" POST $JOBS "$tmp/kv.json"
# iterations: at least 1, a number; the error names the leaf.
for v in '"0"' '"lots"' '5000'; do
    printf '{"lightrail-job:job":[{"name":"x","model":"gpt-1.9b","iterations":%s}]}' "$v" > "$tmp/it.json"
    bad 400 invalid-value "iterations $v" POST $JOBS "$tmp/it.json"
    jq -e '."ietf-restconf:errors".error[0]."error-path" | endswith("/iterations")' "$tmp/bad-body" > /dev/null \
        && ok "iterations $v: the error names the leaf ($(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/bad-body"))" \
        || notok "iterations $v: $(cat "$tmp/bad-body")"
done
bad 413 "" "2 MiB body" POST $JOBS "$tmp/big.json"
bad 401 "" "missing token" POST $JOBS "$tmp/j1.json" ""
bad 401 "" "wrong token" GET $JOBS "" wrong-token-wrong-token
bad 404 "" "unknown job" GET "$JOBS/job=nope"
bad 404 "" "delete unknown job" DELETE "$JOBS/job=nope"
bad 409 data-exists "duplicate name" POST $JOBS "$tmp/j1.json"
bad 405 "" "unsupported method" PATCH $JOBS "$tmp/j1.json"
bad 404 "" "unknown resource" GET /restconf/data/nothing:here
# The network cannot change under an active job.
cp "$srcdir/examples/topologies/metro.json" "$tmp/topo.json"
bad 409 in-use "PUT topology while a job is active" PUT /restconf/data/ietf-network:networks "$tmp/topo.json"
printf '{"ietf-network:networks":{"network":[{"network-id":"x"}]}' > "$tmp/badtopo.json"
bad 400 invalid-value "PUT of a broken topology" PUT /restconf/data/ietf-network:networks "$tmp/badtopo.json"
jq '."lightrail-compute:compute".dc[0]."device-count" = 0' "$srcdir/examples/clusters/metro.json" > "$tmp/badinv.json"
bad 400 invalid-value "PUT of an invalid inventory" PUT /restconf/data/lightrail-compute:compute "$tmp/badinv.json"
jq '."lightrail-compute:compute".dc[0]."attachment-node" = "r9"' "$srcdir/examples/clusters/metro.json" > "$tmp/r9inv.json"
bad 400 invalid-value "PUT of an inventory attached to no such node" PUT /restconf/data/lightrail-compute:compute "$tmp/r9inv.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | endswith("attachment-node: node '"'r9'"' is not in topology metro")' \
    "$tmp/bad-body" > /dev/null \
    && ok "the attachment's refusal names the topology by its network-id" \
    || notok "attachment refusal: $(cat "$tmp/bad-body")"
# A device type the inventory lacks: the refusal names the one meant and
# those the body has (it named neither until 2026-12-07).
jq '."lightrail-compute:compute".dc[0]."device-type" = "H200-80GB"' "$srcdir/examples/clusters/metro.json" > "$tmp/h200inv.json"
bad 400 invalid-value "PUT of an inventory with an unknown device type" PUT /restconf/data/lightrail-compute:compute "$tmp/h200inv.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | endswith("did you mean \"H100-80GB\"? Want one of \"V100-32GB\", \"A100-80GB\", \"H100-80GB\".")' \
    "$tmp/bad-body" > /dev/null \
    && ok "an unknown device type's refusal names the one meant and those there are" \
    || notok "unknown device type: $(cat "$tmp/bad-body")"
# An operation's input is refused as a data body is, with the member
# meant (until 2026-12-07 libyang's sentence alone).
printf '{"lightrail-job:input":{"dry_run":true}}' > "$tmp/dryrun.json"
bad 400 "" "POST reconcile with a misspelt input member" POST /restconf/operations/lightrail-job:reconcile "$tmp/dryrun.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | endswith("Node \"dry_run\" not found as a child of \"reconcile\" node; did you mean \"dry-run\"?")' \
    "$tmp/bad-body" > /dev/null \
    && ok "a misspelt input member's refusal names the one meant" \
    || notok "misspelt input member: $(cat "$tmp/bad-body")"
# A member the input does not have is refused with error-tag
# invalid-value and error-path the operation's node: the 400 on which
# `lightrail reconcile --reinstall` asks the YANG library whether the
# daemon is older than that input (tests/cli/reconcile.sh, whose fake
# older daemon answers so), so it must stay so.
jq -e '."ietf-restconf:errors".error[0] | ."error-tag" == "invalid-value" and ."error-path" == "/lightrail-job:reconcile"' \
    "$tmp/bad-body" > /dev/null \
    && ok "an input member not in the schema: invalid-value at /lightrail-job:reconcile" \
    || notok "input member not in the schema: $(cat "$tmp/bad-body")"

# Where a generic client starts (RFC 8040 3.1, 3.3, section 10): the
# root's discovery, the API resource, its operations and version, and
# the YANG library.  Each: the status, Content-Type and body of a GET;
# HEAD the GET's length; OPTIONS and the 405 of another method with
# Allow: GET, HEAD, OPTIONS.
# root_get PATH TYPE [TOKEN]: GET, the status 200 and Content-Type TYPE
# checked; the body in $tmp/body.
root_get() {
    api GET "$1" "" "${3-$TOKEN}"
    ctype=$(tr -d '\r' < "$tmp/headers" | sed -n 's/^[Cc]ontent-[Tt]ype: //p')
    if [ "$STATUS" = 200 ] && [ "$ctype" = "$2" ]; then
        ok "GET $1: 200, $2"
    else
        notok "GET $1: $STATUS, $ctype: $(cat "$tmp/body")"
    fi
}
# root_methods PATH [TOKEN]: HEAD, OPTIONS, and 405 for the rest.
root_methods() {
    tok=${2-$TOKEN}
    len=$(wc -c < "$tmp/body")
    curl -s -I -o /dev/null -w '%{http_code} %header{content-length}' \
        --cacert "$D/tls/cert.pem" ${tok:+-H "Authorization: Bearer $tok"} \
        "$URL$1" > "$tmp/head"
    [ "$(cat "$tmp/head")" = "200 $len" ] \
        && ok "HEAD $1: 200, the GET's length" \
        || notok "HEAD $1: $(cat "$tmp/head"), GET $len bytes"
    curl -s -o /dev/null -D "$tmp/opt" -w '%{http_code}' -X OPTIONS \
        --cacert "$D/tls/cert.pem" ${tok:+-H "Authorization: Bearer $tok"} \
        "$URL$1" > "$tmp/optst"
    [ "$(cat "$tmp/optst")" = 204 ] \
        && tr -d '\r' < "$tmp/opt" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
        && ok "OPTIONS $1: 204, Allow: GET, HEAD, OPTIONS" \
        || notok "OPTIONS $1: $(cat "$tmp/optst") $(cat "$tmp/opt")"
    for m in POST PUT DELETE PATCH; do
        bad 405 operation-not-supported "$m $1" $m "$1" "$tmp/j1.json" "$tok"
        tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
            || notok "$m $1: no Allow: GET, HEAD, OPTIONS: $(cat "$tmp/bad-headers")"
    done
}
# RFC 8040 3.1: host-meta names the root, to anyone (it tells nothing
# else; the root's resources want the token).
root_get /.well-known/host-meta application/xrd+xml ""
printf "<XRD xmlns='http://docs.oasis-open.org/ns/xri/xrd-1.0'>\n    <Link rel='restconf' href='/restconf'/>\n</XRD>\n" > "$tmp/xrd"
cmp -s "$tmp/body" "$tmp/xrd" && ok "host-meta: the XRD with Link rel=restconf href=/restconf" \
    || notok "host-meta: $(cat "$tmp/body")"
root_methods /.well-known/host-meta ""
# The API resource, its version and its operations are ietf-restconf's
# yang-api, built and validated by libyang (RFC 8040 8): their bytes,
# compact and without a newline, are those json-c sent before.
same_bytes() {
    printf '%s' "$1" | cmp -s - "$tmp/body"
}
root_get /restconf application/yang-data+json
same_bytes '{"ietf-restconf:restconf":{"data":{},"operations":{},"yang-library-version":"2019-01-04"}}' \
    && ok "GET /restconf: the API resource, yang-library-version 2019-01-04, byte for byte" \
    || notok "GET /restconf: $(cat "$tmp/body")"
root_methods /restconf
bad 401 "" "GET /restconf without a token" GET /restconf "" ""
curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'Accept: application/yang-data+xml' \
    "$URL/restconf" > "$tmp/st"
[ "$(cat "$tmp/st")" = 406 ] && ok "GET /restconf asking for XML: 406" \
    || notok "GET /restconf, Accept XML: $(cat "$tmp/st")"
root_get /restconf/yang-library-version application/yang-data+json
same_bytes '{"ietf-restconf:yang-library-version":"2019-01-04"}' \
    && ok "GET /restconf/yang-library-version: 2019-01-04, byte for byte" \
    || notok "yang-library-version: $(cat "$tmp/body")"
root_methods /restconf/yang-library-version
# The operations listed are those served: each answers a POST (a 405
# would say the path is unknown to POST, a 404 that it is unknown).
root_get /restconf/operations application/yang-data+json
cp "$tmp/body" "$tmp/ops-body"
same_bytes '{"ietf-restconf:operations":{"lightrail-job:reconcile":[null],"lightrail-state:reload-ppo-policy":[null]}}' \
    && ok "GET /restconf/operations: reconcile and reload-ppo-policy, as [null], byte for byte" \
    || notok "operations: $(cat "$tmp/body")"
root_methods /restconf/operations
jq -r '."ietf-restconf:operations" | keys[]' "$tmp/ops-body" > "$tmp/ops"
[ "$(wc -l < "$tmp/ops")" -eq 2 ] || notok "operations listed: $(cat "$tmp/ops-body")"
while read -r op; do
    curl -s -o /dev/null -w '%{http_code}' -X OPTIONS --cacert "$D/tls/cert.pem" \
        -H "Authorization: Bearer $TOKEN" "$URL/restconf/operations/$op" > "$tmp/st"
    [ "$(cat "$tmp/st")" = 204 ] && ok "operation $op is served" \
        || notok "operation $op: OPTIONS $(cat "$tmp/st")"
done < "$tmp/ops"
# The YANG library (RFC 8525): the modules every payload names, what
# they import, the modules that augment or deviate them, and no other
# (lightraild's configuration and the agents' modules are no API's);
# ietf-restconf, whose yang-api and yang-errors every body of the API
# resource and every error is (RFC 8040 8).
YL=/restconf/data/ietf-yang-library:yang-library
root_get $YL application/yang-data+json
cp "$tmp/body" "$tmp/yl"
jq -r '."ietf-yang-library:yang-library"."module-set"[0].module[].name' "$tmp/yl" \
    | sort > "$tmp/yl-mods"
printf '%s\n' ietf-datastores ietf-network ietf-network-topology \
    ietf-netconf ietf-netconf-with-defaults ietf-origin ietf-restconf \
    ietf-restconf-monitoring ietf-yang-library lightrail-compute lightrail-job lightrail-model \
    lightrail-state lightrail-topology | sort > "$tmp/yl-want"
cmp -s "$tmp/yl-mods" "$tmp/yl-want" \
    && ok "yang-library: the API's modules, those that augment or deviate them, and what they import" \
    || notok "yang-library modules: $(tr '\n' ' ' < "$tmp/yl-mods")"
# Every module a payload's member names is listed.
: > "$tmp/used"
for p in $JOBS /restconf/data/ietf-network:networks \
         /restconf/data/lightrail-compute:compute \
         /restconf/data/lightrail-state:state /restconf/operations; do
    api GET "$p"
    jq -r '[paths | .[] | strings | select(contains(":"))
            | split(":")[0] | ltrimstr("@")] | unique[]' "$tmp/body" >> "$tmp/used"
done
sort -u "$tmp/used" > "$tmp/used-mods"
if [ -s "$tmp/used-mods" ] && [ -z "$(comm -23 "$tmp/used-mods" "$tmp/yl-mods")" ]; then
    ok "every module the payloads name is in the yang-library ($(tr '\n' ' ' < "$tmp/used-mods"))"
else
    notok "payload modules not in the yang-library: $(comm -23 "$tmp/used-mods" "$tmp/yl-mods" | tr '\n' ' ')"
fi
jq -e '."ietf-yang-library:yang-library" | (.datastore | map(.name) == ["ietf-datastores:running", "ietf-datastores:operational"])
       and (."content-id" | test("^[0-9a-f]{16}$"))' "$tmp/yl" > /dev/null \
    && ok "yang-library: running and operational, a content-id" \
    || notok "yang-library: $(jq -c '."ietf-yang-library:yang-library" | {datastore, "content-id"}' "$tmp/yl")"
api GET $YL
root_methods $YL
# RFC 7895's modules-state, deprecated by RFC 8525 and what older
# clients read: the library's modules (those it implements conformance
# implement), its module-set-id the library's content-id.
YLS=/restconf/data/ietf-yang-library:modules-state
root_get $YLS application/yang-data+json
cp "$tmp/body" "$tmp/yls"
jq -r '."ietf-yang-library:modules-state".module[] | select(."conformance-type" == "implement") | .name' "$tmp/yls" \
    | sort > "$tmp/yls-mods"
cmp -s "$tmp/yls-mods" "$tmp/yl-mods" \
    && ok "modules-state: the library's modules, implemented" \
    || notok "modules-state modules: $(tr '\n' ' ' < "$tmp/yls-mods")"
[ "$(jq -r '."ietf-yang-library:modules-state"."module-set-id"' "$tmp/yls")" \
  = "$(jq -r '."ietf-yang-library:yang-library"."content-id"' "$tmp/yl")" ] \
    && ok "modules-state: module-set-id is the library's content-id" \
    || notok "modules-state id: $(jq -c '."ietf-yang-library:modules-state"."module-set-id"' "$tmp/yls")"
jq -e '."ietf-yang-library:modules-state".module | map(select(."conformance-type" == "import")) | length > 0' "$tmp/yls" > /dev/null \
    && ok "modules-state: the import-only modules, conformance import" \
    || notok "modules-state: no import-only module"
root_methods $YLS
# The datastore resource (RFC 8040 3.3.1): every member the data
# resources serve, in one object, each as its own GET sends it (the jobs
# all of them), with an entity-tag of its own; no query.
DS=/restconf/data
for j in d1 d2; do
    intent $j bert-large 1 > "$tmp/d.json"
    api POST $JOBS "$tmp/d.json"
done
root_get $DS application/yang-data+json
cp "$tmp/body" "$tmp/ds"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/ds-etag"
[ "$(jq -c keys "$tmp/ds")" = '["ietf-network:networks","ietf-restconf-monitoring:restconf-state","ietf-yang-library:modules-state","ietf-yang-library:yang-library","lightrail-compute:compute","lightrail-job:jobs","lightrail-state:state"]' ] \
    && ok "GET $DS: the topology, the inventory, the jobs, the state, the library, modules-state and restconf-state" \
    || notok "GET $DS: members $(jq -c keys "$tmp/ds")"
for m in ietf-network:networks lightrail-compute:compute lightrail-job:jobs \
         lightrail-state:state ietf-yang-library:yang-library \
         ietf-yang-library:modules-state \
         ietf-restconf-monitoring:restconf-state; do
    api GET "$DS/$m"
    if [ "$STATUS" = 200 ] && [ "$(jq -cS . "$tmp/body")" = "$(jq -cS --arg m $m '{($m): .[$m]}' "$tmp/ds")" ]; then
        ok "GET $DS: $m as GET $DS/$m sends it"
    else
        notok "GET $DS: $m differs from its own GET ($STATUS)"
    fi
done
[ "$(jq -c '[."lightrail-job:jobs".job[].name]' "$tmp/ds")" = '["d1","d2","j1"]' ] \
    && ok "GET $DS: every job" \
    || notok "GET $DS: jobs $(jq -c '[."lightrail-job:jobs".job[].name]' "$tmp/ds")"
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/ds-etag" \
    && ! tr -d '\r' < "$tmp/headers" | grep -q -i '^Last-Modified:' \
    && ok "GET $DS: a strong ETag ($(cat "$tmp/ds-etag")), no Last-Modified" \
    || notok "GET $DS: ETag '$(cat "$tmp/ds-etag")', headers $(cat "$tmp/headers")"
rm -f "$tmp/body"     # curl makes no file of an answer without a body
API_HEADER="If-None-Match: $(cat "$tmp/ds-etag")" api GET $DS
[ "$STATUS" = 304 ] && [ ! -s "$tmp/body" ] \
    && tr -d '\r' < "$tmp/headers" | grep -q -i -x "ETag: $(cat "$tmp/ds-etag")" \
    && ok "GET $DS with If-None-Match of its tag: 304, no body, the tag" \
    || notok "GET $DS, If-None-Match of its tag: $STATUS $(cat "$tmp/body")"
# No date to judge: If-Modified-Since of now is no 304.
date=$(tr -d '\r' < "$tmp/headers" | sed -n 's/^[Dd]ate: //p')
API_HEADER="If-Modified-Since: $date" api GET $DS
[ "$STATUS" = 200 ] && ok "GET $DS with If-Modified-Since: 200 (it has no date)" \
    || notok "GET $DS, If-Modified-Since: $STATUS"
api DELETE "$JOBS/job=d1"
api DELETE "$JOBS/job=d2"
API_HEADER="If-None-Match: $(cat "$tmp/ds-etag")" api GET $DS
[ "$STATUS" = 200 ] && [ "$(jq -c '[."lightrail-job:jobs".job[].name]' "$tmp/body")" = '["j1"]' ] \
    && ! tr -d '\r' < "$tmp/headers" | grep -q -i -x "ETag: $(cat "$tmp/ds-etag")" \
    && ok "GET $DS after two jobs went: 200, a new tag" \
    || notok "GET $DS after the DELETEs: $STATUS $(cat "$tmp/headers")"
api GET $DS
root_methods $DS
bad 401 "" "GET $DS without a token" GET $DS "" ""
curl -s -o /dev/null -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'Accept: application/yang-data+xml' \
    "$URL$DS" > "$tmp/st"
[ "$(cat "$tmp/st")" = 406 ] && ok "GET $DS asking for XML: 406" \
    || notok "GET $DS, Accept XML: $(cat "$tmp/st")"

# RFC 8040 4.8.1 content and 4.8.2 depth on GET and HEAD of every data
# resource.  All of it (content=all, depth unbounded or past the leaves)
# is the answer without them; config, nonconfig and depth=1 answer 200,
# HEAD the same length; bad values are 400 naming the parameter.
J1=$JOBS/job=j1
NW=$DS/ietf-network:networks
# same_text PATH[?QUERY]: a depth that cuts nothing sends the text
# itself, the same bytes and tag as without it (65535 was re-printed);
# the state and the library have no tag: the same none.
etag_of() { tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'; }
same_text() {
    case $1 in *\?*) sep='&';; *) sep='?';; esac
    api GET "$1"; cp "$tmp/body" "$tmp/q-whole-raw"; t0=$(etag_of)
    api GET "$1${sep}depth=65535"; t1=$(etag_of)
    [ "$STATUS" = 200 ] && cmp -s "$tmp/body" "$tmp/q-whole-raw" && [ "$t0" = "$t1" ] \
        && ok "GET $1${sep}depth=65535: the same bytes and ETag as without it" \
        || notok "GET $1${sep}depth=65535: $STATUS, tag $t1 against $t0"
}
for r in $DS $NW $DS/lightrail-compute:compute $JOBS $JOBS/job $J1 \
         $DS/lightrail-state:state $YL; do
    api GET "$r"
    jq -cS . "$tmp/body" > "$tmp/q-whole"
    for q in content=all depth=unbounded 'content=all&depth=unbounded' depth=65535; do
        api GET "$r?$q"
        [ "$STATUS" = 200 ] && [ "$(jq -cS . "$tmp/body")" = "$(cat "$tmp/q-whole")" ] \
            && ok "GET $r?$q: 200, as without it" \
            || notok "GET $r?$q: $STATUS $(head -c 300 "$tmp/body")"
    done
    same_text "$r"
    for q in content=config content=nonconfig depth=1 'content=nonconfig&depth=2'; do
        api GET "$r?$q"
        len=$(wc -c < "$tmp/body")
        curl -s -I -o /dev/null -w '%{http_code} %header{content-length}' \
            --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
            "$URL$r?$q" > "$tmp/head"
        [ "$STATUS" = 200 ] && jq -e . "$tmp/body" > /dev/null \
            && [ "$(cat "$tmp/head")" = "200 $len" ] \
            && ok "GET $r?$q: 200, HEAD the same length" \
            || notok "GET $r?$q: $STATUS, HEAD $(cat "$tmp/head"), GET $len bytes"
    done
    for q in content=non-config depth=0 depth=65536 depth=all; do
        bad 400 invalid-value "GET $r?$q" GET "$r?$q"
        jq -e --arg n "the query's ${q%%=*} '${q#*=}'" \
            '."ietf-restconf:errors".error[0]."error-message" | contains($n)' \
            "$tmp/bad-body" > /dev/null \
            && ok "GET $r?$q: the refusal names ${q%%=*} and its value" \
            || notok "GET $r?$q: $(cat "$tmp/bad-body")"
    done
done
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("send a whole number from 1 (the resource alone) to 65535, or '"'unbounded'"'")' \
    "$tmp/bad-body" > /dev/null \
    && ok "a bad depth: told the values it takes" \
    || notok "a bad depth's words: $(cat "$tmp/bad-body")"
bad 400 invalid-value "GET $NW?content=config&content=all" GET "$NW?content=config&content=all"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("a repeated query parameter '"'content'"'")' \
    "$tmp/bad-body" > /dev/null \
    && ok "content twice: refused as repeated" \
    || notok "content twice: $(cat "$tmp/bad-body")"
# The jobs are configuration (the intent) with state (config false):
# config keeps the intent of every job, nonconfig its name and state.
ck() {   # ck PATH?QUERY JQ-EXPRESSION WHAT
    api GET "$1"
    [ "$STATUS" = 200 ] && jq -e "$2" "$tmp/body" > /dev/null \
        && ok "GET $1: $3" || notok "GET $1: $STATUS $(head -c 400 "$tmp/body")"
}
ck "$JOBS?content=config" '."lightrail-job:jobs".job | length == 1 and all(has("state") | not) and all(.model == "gpt-1.9b" and .name == "j1")' \
    "the intent, no state"
ck "$JOBS?content=nonconfig" '."lightrail-job:jobs".job | length == 1 and all(keys == ["name", "state"]) and all(.state.phase == "active")' \
    "the name (the key) and the state"
ck "$J1?content=nonconfig" '."lightrail-job:job" | length == 1 and (.[0] | keys == ["name", "state"] and (.state.lightpath | length > 0))' \
    "the key and the state, its lists whole"
ck "$J1?content=config" '."lightrail-job:job"[0] | has("state") | not' "no state"
ck "$J1?depth=1" '. == {"lightrail-job:job": [{"name": "j1"}]}' "the entry and its key"
ck "$J1?depth=2" '."lightrail-job:job"[0] | (.gpus == {}) and (.state == {}) and .model == "gpt-1.9b"' \
    "its children, containers empty"
ck "$JOBS/job?depth=1" '. == {"lightrail-job:job": [{"name": "j1"}]}' "each entry a target, with its key"
ck "$JOBS?depth=1" '. == {"lightrail-job:jobs": {}}' "the container alone"
ck "$NW?depth=1" '. == {"ietf-network:networks": {}}' "the container alone"
ck "$NW?content=nonconfig" '. == {"ietf-network:networks": {}}' "no state in a topology: the container, empty"
ck "$NW?content=config" '."ietf-network:networks".network[0].node | length > 0' "the whole topology"
ck "$DS/lightrail-state:state?content=config" '. == {"lightrail-state:state": {}}' "state only: the container, empty"
ck "$YL?content=config" '. == {"ietf-yang-library:yang-library": {}}' "state only: the container, empty"
# The datastore: its members are descendants, level 2.
ck "$DS?content=config" 'keys == ["ietf-network:networks", "lightrail-compute:compute", "lightrail-job:jobs"] and (."lightrail-job:jobs".job[0] | has("state") | not)' \
    "the topology, the inventory and the jobs' intents"
ck "$DS?content=nonconfig" 'keys == ["ietf-restconf-monitoring:restconf-state", "ietf-yang-library:modules-state", "ietf-yang-library:yang-library", "lightrail-job:jobs", "lightrail-state:state"] and (."lightrail-job:jobs".job[0] | keys == ["name", "state"])' \
    "the library, the jobs' state and the state"
ck "$DS?depth=1" '. == {}' "the datastore alone"
ck "$DS?depth=2" 'map_values(. == {}) | all' "each member, empty"
# Paged, then cut: the page's one job, its remaining said, its intent.
intent q1 bert-large 1 > "$tmp/q.json"
api POST $JOBS "$tmp/q.json"
for r in "$JOBS?limit=1" "$JOBS/job?limit=1&direction=backwards"; do
    same_text "$r"
done
ck "$JOBS/job?limit=1&content=config" '."lightrail-job:job" | length == 1 and (.[0] | .name == "j1" and (has("state") | not) and ."@"."lightrail-job:remaining" == 1)' \
    "the page first (j1, one remaining), then its intent"
api DELETE "$JOBS/job=q1"
# A cut answer has its own tag, the digest of what is sent: 304 to it
# with the same query, 200 without the query.
api GET "$NW?content=config"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/q-etag"
api GET "$NW?depth=2"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/q-etag2"
api GET "$NW"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/q-etag0"
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/q-etag2" && ! cmp -s "$tmp/q-etag2" "$tmp/q-etag0" \
    && ok "GET $NW?depth=2: a tag of its own" \
    || notok "GET $NW?depth=2: tag $(cat "$tmp/q-etag2"), whole $(cat "$tmp/q-etag0")"
API_HEADER="If-None-Match: $(cat "$tmp/q-etag2")" api GET "$NW?depth=2"
[ "$STATUS" = 304 ] && ok "GET $NW?depth=2 with If-None-Match of its tag: 304" \
    || notok "GET $NW?depth=2, If-None-Match: $STATUS"
API_HEADER="If-None-Match: $(cat "$tmp/q-etag2")" api GET "$NW"
[ "$STATUS" = 200 ] && ok "GET $NW with If-None-Match of the cut tag: 200" \
    || notok "GET $NW, If-None-Match of the cut tag: $STATUS"
# RFC 8040 4.8.3 fields: the named nodes of the target, list entries
# with their keys, a node of another module than its parent's by its
# module's name; with depth (the named nodes level 1), content and the
# jobs' paging; a path naming no node is 400 naming it.
ck "$NW?fields=network(network-id)" '."ietf-network:networks".network | length > 0 and all(keys == ["network-id"])' \
    "each network's key alone"
ck "$NW?fields=network(node(lightrail-topology:roadm))" '."ietf-network:networks".network[0] | keys == ["network-id", "node"] and (.node | all(keys - ["lightrail-topology:roadm", "node-id"] == [])) and (.node[] | select(."node-id" == "r1") | ."lightrail-topology:roadm".name == "ROADM R1")' \
    "the nodes' keys and roadm (lightrail-topology's augment)"
ck "$NW?fields=network/node&depth=1" '."ietf-network:networks".network[0] | keys == ["network-id", "node"] and (.node | length > 0 and all(keys == ["node-id"]))' \
    "the named list at level 1: its entries, keys alone"
ck "$J1?fields=state/phase" '. == {"lightrail-job:job": [{"name": "j1", "state": {"phase": "active"}}]}' \
    "its key and its phase"
ck "$J1?fields=model;gpus(min)" '."lightrail-job:job"[0] | keys == ["gpus", "model", "name"] and (.gpus | keys == ["min"])' \
    "two paths, one with its own in parentheses"
ck "$J1?fields=model;state&content=config" '. == {"lightrail-job:job": [{"name": "j1", "model": "gpt-1.9b"}]}' \
    "fields, then content (the state is config false)"
ck "$JOBS?fields=job(state)&depth=1" '."lightrail-job:jobs".job | length > 0 and all(keys == ["name", "state"] and .state == {})' \
    "depth counts from the named node"
ck "$DS?fields=lightrail-job:jobs/job(name);ietf-network:networks/network(network-id)" 'keys == ["ietf-network:networks", "lightrail-job:jobs"] and (."lightrail-job:jobs".job | length > 0 and all(keys == ["name"]))' \
    "two members, cut, the others gone"
# The datastore builds only the members a query can keep: each answer
# is the cut of the whole one (jq's), members left unbuilt or not.
# ds_cut URL QUERY JQ-CUT: GET URL (whole) then URL?QUERY, compared.
ds_cut() {
    api GET "$1"; jq -cS "$3" "$tmp/body" > "$tmp/ds-want"
    ck "$1?$2" ". == $(cat "$tmp/ds-want")" "the whole's cut ($3)"
}
NWID='{"ietf-network:networks": {network: [."ietf-network:networks".network[] | {"network-id"}]}}'
CFG='del(."lightrail-state:state", ."ietf-yang-library:yang-library", ."ietf-yang-library:modules-state", ."ietf-restconf-monitoring:restconf-state") | ."lightrail-job:jobs".job |= map(del(.state))'
ds_cut $DS 'fields=ietf-network:networks/network/network-id' "$NWID"
ds_cut $DS 'fields=lightrail-job:jobs/job(name;model)' \
    '{"lightrail-job:jobs": {job: [."lightrail-job:jobs".job[] | {name, model}]}}'
ds_cut $DS 'fields=lightrail-compute:compute' '{"lightrail-compute:compute"}'
ds_cut $DS 'fields=ietf-yang-library:yang-library/module-set(name)' \
    '{"ietf-yang-library:yang-library": {"module-set": [."ietf-yang-library:yang-library"."module-set"[] | {name}]}}'
# modules-state without the library (was 500: the library's mandatory
# content-id missing).
ds_cut $DS 'fields=ietf-yang-library:modules-state/module-set-id' \
    '{"ietf-yang-library:modules-state": {"module-set-id": ."ietf-yang-library:modules-state"."module-set-id"}}'
ds_cut $DS 'fields=ietf-yang-library:modules-state' '{"ietf-yang-library:modules-state"}'
ds_cut $DS 'content=config' "$CFG"
ds_cut $DS 'content=nonconfig' \
    '{"ietf-restconf-monitoring:restconf-state", "ietf-yang-library:yang-library", "ietf-yang-library:modules-state", "lightrail-state:state", "lightrail-job:jobs": {job: [."lightrail-job:jobs".job[] | {name, state}]}}'
ds_cut $DS 'depth=1' '{}'
ds_cut $DS 'fields=lightrail-job:jobs;lightrail-state:state&depth=1' \
    '{"lightrail-job:jobs": {}, "lightrail-state:state": {}}'
ds_cut $DS 'fields=lightrail-state:state&content=config' '{}'
ds_cut $DS 'fields=lightrail-compute:compute&content=nonconfig' '{}'
ck "$YL?fields=module-set(name)" '. == {"ietf-yang-library:yang-library": {"module-set": [{"name": "complete"}]}}' \
    "the module set's name (RFC 8040 B.3.3's kind)"
ck "$YLS?fields=module-set-id" '."ietf-yang-library:modules-state" | keys == ["module-set-id"]' "its id alone"
ck "$YLS?depth=1" '. == {"ietf-yang-library:modules-state": {}}' "the container alone"
ck "$YLS?content=config" '. == {"ietf-yang-library:modules-state": {}}' "state only: the container, empty"
ck "$YLS?fields=module(name)&depth=3" '."ietf-yang-library:modules-state".module | length > 0 and all(keys == ["name", "revision"])' \
    "each module's keys, name and revision"
ck "$DS/lightrail-state:state?fields=counters/admissions" '."lightrail-state:state" | keys == ["counters"] and (.counters | keys == ["admissions"])' \
    "one counter"
api GET "$J1?fields=state/phase"
len=$(wc -c < "$tmp/body")
curl -s -I -o /dev/null -w '%{http_code} %header{content-length}' \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL$J1?fields=state/phase" > "$tmp/head"
[ "$(cat "$tmp/head")" = "200 $len" ] && ok "HEAD $J1?fields=state/phase: the GET's length" \
    || notok "HEAD $J1?fields=state/phase: $(cat "$tmp/head"), GET $len bytes"
# Paged, then cut: the page's one job with its remaining.
api POST $JOBS "$tmp/q.json"
ck "$JOBS/job?limit=1&fields=state/phase" '."lightrail-job:job" | length == 1 and (.[0] | .name == "j1" and ."@"."lightrail-job:remaining" == 1 and .state == {"phase": "active"} and (keys == ["@", "name", "state"]))' \
    "the page first (j1, one remaining), then its phase"
ck "$JOBS?limit=1&offset=1&fields=job(model)" '."lightrail-job:jobs".job == [{"@": {"lightrail-job:previous": "ajE"}, "name": "q1", "model": "bert-large"}]' \
    "the container's page, cut, its cursor to j1 kept"
api DELETE "$JOBS/job=q1"
# Its own tag, the digest of what is sent: 304 to it with the query.
api GET "$J1?fields=state/phase"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/f-etag"
api GET "$J1"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/f-etag0"
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/f-etag" && ! cmp -s "$tmp/f-etag" "$tmp/f-etag0" \
    && ok "GET $J1?fields=state/phase: a tag of its own" \
    || notok "GET $J1?fields: tag $(cat "$tmp/f-etag"), whole $(cat "$tmp/f-etag0")"
API_HEADER="If-None-Match: $(cat "$tmp/f-etag")" api GET "$J1?fields=state/phase"
[ "$STATUS" = 304 ] && ok "GET $J1?fields=state/phase with If-None-Match of its tag: 304" \
    || notok "GET $J1?fields, If-None-Match: $STATUS"
# badf PATH?QUERY WORDS: 400 invalid-value, nothing changed, the words.
badf() {
    bad 400 invalid-value "GET $1" GET "$1"
    jq -e --arg m "$2" '."ietf-restconf:errors".error[0]."error-message" | contains($m)' \
        "$tmp/bad-body" > /dev/null \
        && ok "GET $1: says '$2'" || notok "GET $1: $(cat "$tmp/bad-body")"
}
badf "$NW?fields=network(nope)" "the query's fields names 'nope', which is no data node of ietf-network under 'network'"
badf "$NW?fields=network(node(roadm))" "'roadm', which is no data node of ietf-network under 'node'"
badf "$J1?fields=" "the query's fields is empty"
badf "$JOBS/job?limit=1&fields=state(phase" "has a '(' not closed at byte 12"
badf "$JOBS?fields=job;;model" "has a bad character at byte 5"
badf "$DS?fields=networks" "'networks' under the datastore without its module"
badf "$J1?fields=model&fields=name" "a repeated query parameter 'fields'"
long=$(printf 'model;%.0s' $(seq 1 200))model
badf "$J1?fields=$long" "the query's fields is 1205 bytes long: send one of at most 1024"
# No job: a bad one is refused all the same (judged on the schema).
badf "$JOBS/job?offset=1&fields=nope" "'nope', which is no data node of lightrail-job under 'job'"
# Only GET and HEAD take them (RFC 8040 4.8.1, 4.8.2, 4.8.3).
api GET "$NW"; cp "$tmp/body" "$tmp/q-nw"
bad 400 invalid-value "PUT $NW?content=config" PUT "$NW?content=config" "$tmp/q-nw"
bad 400 invalid-value "DELETE $J1?depth=1" DELETE "$J1?depth=1"
bad 400 invalid-value "POST $JOBS?content=config" POST "$JOBS?content=config" "$tmp/q.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("the query parameter '"'content'"' applies to GET and HEAD only: send the POST without it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "POST with content: told to send it without" \
    || notok "POST with content: $(cat "$tmp/bad-body")"
bad 400 invalid-value "PUT $NW?fields=network" PUT "$NW?fields=network" "$tmp/q-nw"
bad 400 invalid-value "DELETE $J1?fields=name" DELETE "$J1?fields=name"
bad 400 invalid-value "POST $JOBS?fields=job" POST "$JOBS?fields=job" "$tmp/q.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("the query parameter '"'fields'"' applies to GET and HEAD only: send the POST without it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "POST with fields: told to send it without" \
    || notok "POST with fields: $(cat "$tmp/bad-body")"

# RFC 8040 4.8.9 with-defaults (RFC 6243 3): j1's intent left priority
# (0), microbatch (1), gpus/min (1) and algorithm (cdynp) at their
# defaults and set batch to its default (32): report-all and explicit
# send them (lightraild's basic mode is report-all), trim drops every
# leaf at its default whoever set it, report-all-tagged tags each; first
# of the cuts (fields then select from what is left), on a page and on
# the datastore too, with a tag of what is sent.
api GET "$J1"; jq -cS . "$tmp/body" > "$tmp/wd-plain"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/wd-etag0"
ck "$J1?with-defaults=report-all" ". == $(cat "$tmp/wd-plain")" "as without it: every leaf (basic mode report-all)"
ck "$J1?with-defaults=explicit" ". == $(cat "$tmp/wd-plain")" "as without it: lightraild set every leaf it holds"
ck "$J1?with-defaults=trim" '."lightrail-job:job"[0] | (has("priority") or has("batch") or has("microbatch") or has("algorithm") | not) and .gpus == {"max": 64} and .model == "gpt-1.9b" and .state.phase == "active"' \
    "no leaf at its default (priority, batch, microbatch, algorithm, gpus/min)"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/wd-etag"
WDT='{"ietf-netconf-with-defaults:default": true}'
ck "$J1?with-defaults=report-all-tagged" "(.\"lightrail-job:job\"[0] | .priority == 0 and .\"@priority\" == $WDT and .\"@batch\" == $WDT and .\"@microbatch\" == $WDT and .\"@algorithm\" == $WDT and .gpus.\"@min\" == $WDT and (.gpus | has(\"@max\") | not) and (has(\"@model\") | not) and (has(\"@name\") | not))" \
    "each leaf at its default tagged, the others not"
ck "$J1?with-defaults=trim&fields=priority;model" '. == {"lightrail-job:job": [{"name": "j1", "model": "gpt-1.9b"}]}' \
    "trim first: fields then find no priority"
ck "$J1?with-defaults=trim&content=config&depth=2" '."lightrail-job:job"[0] | keys == ["gpus", "model", "name"] and .gpus == {}' \
    "trim, then content, then depth"
api POST $JOBS "$tmp/q.json"
ck "$JOBS/job?limit=1&with-defaults=trim" '."lightrail-job:job" | length == 1 and (.[0] | .name == "j1" and (has("priority") | not) and ."@"."lightrail-job:remaining" == 1)' \
    "the page first (j1, one remaining), then trimmed"
api DELETE "$JOBS/job=q1"
ck "$DS?with-defaults=trim" '."lightrail-job:jobs".job | length > 0 and all(has("priority") | not)' "the datastore's jobs trimmed"
ck "$DS?with-defaults=report-all-tagged" '."lightrail-job:jobs".job | length > 0 and all(."@priority" == {"ietf-netconf-with-defaults:default": true})' \
    "the datastore's jobs tagged"
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/wd-etag" && ! cmp -s "$tmp/wd-etag" "$tmp/wd-etag0" \
    && ok "GET $J1?with-defaults=trim: a tag of its own" \
    || notok "GET $J1?with-defaults=trim: tag $(cat "$tmp/wd-etag"), whole $(cat "$tmp/wd-etag0")"
API_HEADER="If-None-Match: $(cat "$tmp/wd-etag")" api GET "$J1?with-defaults=trim"
[ "$STATUS" = 304 ] && ok "GET $J1?with-defaults=trim with If-None-Match of its tag: 304" \
    || notok "GET $J1?with-defaults=trim, If-None-Match: $STATUS"
# Every data resource takes each mode (200), its text still parses as
# JSON, and trim never sends priority; report-all and explicit send what
# the GET without them does (the basic mode is report-all: no default
# is missing from an answer).
for p in "$NW" "$DS/lightrail-compute:compute" "$JOBS" "$JOBS/job" "$J1" \
         "$DS/lightrail-state:state" "$YL" \
         "$DS/ietf-restconf-monitoring:restconf-state" \
         "$DS/ietf-restconf-monitoring:restconf-state/capabilities" "$DS" \
         /restconf/ds/ietf-datastores:operational \
         /restconf/ds/ietf-datastores:running; do
    api GET "$p"; jq -cS . "$tmp/body" > "$tmp/wd-p"
    for m in report-all trim explicit report-all-tagged; do
        api GET "$p?with-defaults=$m"
        if [ "$STATUS" = 200 ] && jq -e . "$tmp/body" > /dev/null \
           && { [ $m != trim ] || ! grep -q '"priority"' "$tmp/body"; } \
           && { [ $m = trim ] || [ $m = report-all-tagged ] \
                || [ "$(jq -cS . "$tmp/body")" = "$(cat "$tmp/wd-p")" ]; }; then
            ok "GET $p?with-defaults=$m: 200"
        else
            notok "GET $p?with-defaults=$m: $STATUS $(head -c 300 "$tmp/body")"
        fi
    done
done
for v in bogus "" report_all; do
    bad 400 invalid-value "GET $J1?with-defaults=$v" GET "$J1?with-defaults=$v"
    jq -e --arg v "$v" '."ietf-restconf:errors".error[0]."error-message" == "the query'"'"'s with-defaults '"'"'\($v)'"'"' is not one: send '"'"'report-all'"'"', '"'"'trim'"'"', '"'"'explicit'"'"' or '"'"'report-all-tagged'"'"' (RFC 8040 4.8.9)"' \
        "$tmp/bad-body" > /dev/null \
        && ok "with-defaults=$v: the four values named" \
        || notok "with-defaults=$v: $(cat "$tmp/bad-body")"
done
bad 400 invalid-value "PUT $NW?with-defaults=trim" PUT "$NW?with-defaults=trim" "$tmp/q-nw"
bad 400 invalid-value "DELETE $J1?with-defaults=trim" DELETE "$J1?with-defaults=trim"
bad 400 invalid-value "POST $JOBS?with-defaults=trim" POST "$JOBS?with-defaults=trim" "$tmp/q.json"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("the query parameter '"'with-defaults'"' applies to GET and HEAD only: send the POST without it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "POST with with-defaults: told to send it without" \
    || notok "POST with with-defaults: $(cat "$tmp/bad-body")"

# RFC 8527 (NMDA): the datastores under /restconf/ds.  operational holds
# all that /restconf/data does, running its configuration (no
# config false node: the jobs without their state, no state, no
# library), both with content and depth as there and a tag of what is
# sent; read here only: writes are 405 saying where they go.
OPER=/restconf/ds/ietf-datastores:operational
RUN=/restconf/ds/ietf-datastores:running
api GET $DS; jq -cS . "$tmp/body" > "$tmp/nmda-ds"
jq -cS 'del(."lightrail-state:state", ."ietf-yang-library:yang-library",
            ."ietf-yang-library:modules-state",
            ."ietf-restconf-monitoring:restconf-state")
        | del(."lightrail-job:jobs".job[].state)' "$tmp/nmda-ds" > "$tmp/nmda-cfg"
root_get $OPER application/yang-data+json
[ "$(jq -cS . "$tmp/body")" = "$(cat "$tmp/nmda-ds")" ] \
    && ok "GET $OPER: what GET $DS sends" \
    || notok "GET $OPER: $(head -c 300 "$tmp/body")"
tr -d '\r' < "$tmp/headers" > "$tmp/oper-headers"
sed -n 's/^[Ee][Tt][Aa][Gg]: //p' "$tmp/oper-headers" > "$tmp/oper-etag"
root_methods $OPER
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("the operational datastore is read-only") and contains("write through /restconf/data instead (PUT")' \
    "$tmp/bad-body" > /dev/null \
    && ok "PATCH $OPER: 405 says it is read-only and where to write" \
    || notok "PATCH $OPER: $(cat "$tmp/bad-body")"
root_get $RUN application/yang-data+json
[ "$(jq -cS . "$tmp/body")" = "$(cat "$tmp/nmda-cfg")" ] \
    && ok "GET $RUN: $DS without its config false nodes (jq)" \
    || notok "GET $RUN: $(head -c 300 "$tmp/body")"
tr -d '\r' < "$tmp/headers" > "$tmp/run-headers"
sed -n 's/^[Ee][Tt][Aa][Gg]: //p' "$tmp/run-headers" > "$tmp/run-etag"
root_methods $RUN
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("PATCH is not allowed") and contains("for reading: write through /restconf/data instead (PUT")' \
    "$tmp/bad-body" > /dev/null \
    && ok "PATCH $RUN: 405 says where to write" \
    || notok "PATCH $RUN: $(cat "$tmp/bad-body")"
for t in oper run; do
    if [ $t = oper ]; then p=$OPER; else p=$RUN; fi
    grep -q -x '"[0-9a-f]\{32\}"' "$tmp/$t-etag" \
        && ! grep -q -i '^Last-Modified:' "$tmp/$t-headers" \
        && ok "GET $p: a strong ETag, no Last-Modified" \
        || notok "GET $p: $(cat "$tmp/$t-headers")"
    rm -f "$tmp/body"
    API_HEADER="If-None-Match: $(cat "$tmp/$t-etag")" api GET "$p"
    [ "$STATUS" = 304 ] && [ ! -s "$tmp/body" ] \
        && ok "GET $p with If-None-Match of its tag: 304, no body" \
        || notok "GET $p, If-None-Match of its tag: $STATUS"
    bad 401 "" "GET $p without a token" GET "$p" "" ""
done
! cmp -s "$tmp/oper-etag" "$tmp/run-etag" \
    && ok "operational and running: tags of their own" \
    || notok "operational and running: one tag $(cat "$tmp/run-etag")"
# The tag moves with what is sent: a job more, another tag.
intent n1 bert-large 1 > "$tmp/n.json"
api POST $JOBS "$tmp/n.json"
API_HEADER="If-None-Match: $(cat "$tmp/run-etag")" api GET "$RUN"
[ "$STATUS" = 200 ] && jq -e '."lightrail-job:jobs".job | map(.name) == ["j1", "n1"]' "$tmp/body" > /dev/null \
    && ok "GET $RUN after a POST: 200, the new job's intent" \
    || notok "GET $RUN after a POST: $STATUS $(head -c 300 "$tmp/body")"
api DELETE "$JOBS/job=n1"
# content and depth as on /restconf/data; running's content within its
# configuration.
for q in content=config content=nonconfig depth=1 depth=2 'content=nonconfig&depth=2'; do
    api GET "$DS?$q"; jq -cS . "$tmp/body" > "$tmp/nmda-q"
    ck "$OPER?$q" ". == $(cat "$tmp/nmda-q")" "as GET $DS?$q"
done
ck "$RUN?content=config" ". == $(cat "$tmp/nmda-cfg")" "its configuration"
ck "$RUN?content=all" ". == $(cat "$tmp/nmda-cfg")" "its configuration"
ck "$RUN?content=nonconfig" '. == {}' "no state in running: {}"
ck "$RUN?depth=1" '. == {}' "the datastore alone"
for r in "$RUN" "$OPER" "$RUN/lightrail-job:jobs/job?limit=1" \
         "$OPER/lightrail-job:jobs?limit=1&sort-by=model" "$RUN/ietf-network:networks"; do
    same_text "$r"
done
api GET "$DS?content=config&depth=2"; jq -cS . "$tmp/body" > "$tmp/nmda-q"
ck "$RUN?depth=2" ". == $(cat "$tmp/nmda-q")" "as GET $DS?content=config&depth=2"
bad 400 invalid-value "GET $RUN?depth=0" GET "$RUN?depth=0"
bad 400 invalid-value "GET $OPER?fields=x" GET "$OPER?fields=x"
# fields as on /restconf/data; running's within its configuration, a
# state node it names selecting nothing there.
F='lightrail-job:jobs/job(name;state/phase);ietf-network:networks/network(network-id)'
api GET "$DS?fields=$F"; jq -cS . "$tmp/body" > "$tmp/nmda-q"
ck "$OPER?fields=$F" ". == $(cat "$tmp/nmda-q")" "as GET $DS?fields=..."
# Running builds neither the state nor the library: its answers are
# the cuts of the operational datastore's whole.
ds_cut $OPER 'fields=ietf-network:networks/network/network-id' "$NWID"
ds_cut $OPER 'content=config' "$CFG"
ds_cut $OPER 'fields=ietf-yang-library:modules-state/module(name)' \
    '{"ietf-yang-library:modules-state": {module: [."ietf-yang-library:modules-state".module[] | {name, revision}]}}'
api GET "$OPER"; jq -cS "$CFG" "$tmp/body" > "$tmp/ds-want"
ck "$RUN" ". == $(cat "$tmp/ds-want")" "the operational datastore's configuration"
api GET "$OPER"; jq -cS "$CFG | $NWID" "$tmp/body" > "$tmp/ds-want"
ck "$RUN?fields=ietf-network:networks/network/network-id" ". == $(cat "$tmp/ds-want")" \
    "the operational datastore's network ids"
ck "$RUN?fields=$F" '(keys == ["ietf-network:networks", "lightrail-job:jobs"]) and (."lightrail-job:jobs".job | length > 0 and all(keys == ["name"]))' \
    "the jobs' names, no state"
api GET "$DS?fields=lightrail-job:jobs/job(name)&depth=1"; jq -cS . "$tmp/body" > "$tmp/nmda-q"
ck "$RUN?fields=lightrail-job:jobs/job(name)&depth=1" ". == $(cat "$tmp/nmda-q")" \
    "fields and depth as on $DS (the selected nodes level 1)"
api GET "$JOBS/job=j1?fields=model;state"; jq -cS 'del(."lightrail-job:job"[].state)' "$tmp/body" > "$tmp/nmda-q"
ck "$RUN/lightrail-job:jobs/job=j1?fields=model;state" ". == $(cat "$tmp/nmda-q")" "j1's model, its state not in running"
# RFC 8527 3.2.2's with-origin on operational: each configuration member
# carries RFC 8342's origin, intended; what is under it inherits it (no
# other annotation); the state none.  Without the annotations, the answer
# is the plain one.
OR_I='{"ietf-origin:origin": "ietf-origin:intended"}'
NOAT='walk(if type == "object" then with_entries(select(.key | startswith("@") | not)) else . end)'
ORS='[.. | objects | select(has("ietf-origin:origin"))]'
api GET "$OPER"; jq -cS . "$tmp/body" > "$tmp/or-plain"
ck "$OPER?with-origin" "(.\"ietf-network:networks\"[\"@\"] == $OR_I) and (.\"lightrail-compute:compute\"[\"@\"] == $OR_I) and (.\"lightrail-job:jobs\"[\"@\"] == $OR_I) and ($ORS | length == 3) and (.\"lightrail-state:state\" | has(\"@\") | not) and ($NOAT == $(cat "$tmp/or-plain"))" \
    "the three configuration members intended, nothing else annotated, else the plain answer"
cp "$tmp/body" "$tmp/or-ds"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/or-etag"
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/or-etag" && ! cmp -s "$tmp/or-etag" "$tmp/oper-etag" \
    && ok "GET $OPER?with-origin: a tag of its own" \
    || notok "GET $OPER?with-origin: tag $(cat "$tmp/or-etag"), plain $(cat "$tmp/oper-etag")"
API_HEADER="If-None-Match: $(cat "$tmp/or-etag")" api GET "$OPER?with-origin"
[ "$STATUS" = 304 ] && ok "GET $OPER?with-origin with If-None-Match of its tag: 304" \
    || notok "GET $OPER?with-origin, If-None-Match: $STATUS"
curl -s -I -o /dev/null -w '%{http_code} %header{content-length}' \
    --cacert "$D/tls/cert.pem" ${TOKEN:+-H "Authorization: Bearer $TOKEN"} \
    "$URL$OPER?with-origin" > "$tmp/head"
[ "$(cat "$tmp/head")" = "200 $(wc -c < "$tmp/or-ds" | tr -d ' ')" ] \
    && ok "HEAD $OPER?with-origin: 200, the GET's length" \
    || notok "HEAD $OPER?with-origin: $(cat "$tmp/head"), GET $(wc -c < "$tmp/or-ds")"
ck "$OPER/lightrail-job:jobs/job=j1?with-origin" "(.\"lightrail-job:job\"[0][\"@\"] == $OR_I) and ($ORS | length == 1) and (.\"lightrail-job:job\"[0].state | length > 0)" \
    "the entry intended, its intent inheriting, its state none"
ck "$OPER/lightrail-job:jobs/job=j1?with-origin&content=nonconfig" "(.\"lightrail-job:job\"[0] | keys == [\"@\", \"name\", \"state\"]) and ($ORS | length == 1)" \
    "content nonconfig: the entry and its key annotated, the state not"
# report-all-tagged: a node it adds (not in the store) is or:default
# beside its tag; a node set at its default is tagged but intended (the
# operator's, inherited); nothing else changes.
api GET "$OPER?with-defaults=report-all-tagged"; jq -cS "$NOAT" "$tmp/body" > "$tmp/or-plain"
ck "$OPER?with-origin&with-defaults=report-all-tagged" "($NOAT == $(cat "$tmp/or-plain")) and ([.. | objects | select(has(\"ietf-origin:origin\") and .\"ietf-origin:origin\" != \"ietf-origin:intended\")] | all(.\"ietf-origin:origin\" == \"ietf-origin:default\" and .\"ietf-netconf-with-defaults:default\" == true)) and ([.. | objects | select(.\"ietf-netconf-with-defaults:default\" == true and (has(\"ietf-origin:origin\") | not))] | length > 0)" \
    "or:default only beside the default tag; a leaf set at its default tagged, intended"
echo "# with-origin&with-defaults=report-all-tagged: $(jq '[.. | objects | select(."ietf-origin:origin" == "ietf-origin:default")] | length' "$tmp/body") or:default"
ck "$OPER?with-origin&depth=2" "(.\"lightrail-job:jobs\" == {\"@\": $OR_I}) and (.\"lightrail-state:state\" == {})" \
    "depth 2: the members, empty, with their origins"
ck "$OPER?with-origin&fields=lightrail-job:jobs/job(name;state/phase)" "(keys == [\"lightrail-job:jobs\"]) and (.\"lightrail-job:jobs\"[\"@\"] == $OR_I) and ($ORS | length == 1)" \
    "fields: the jobs, annotated at their top only"
# trim on a job whose gpus hold only their defaults leaves the operator's
# gpus empty, still intended (inherited): trim adds nothing, so nothing
# is or:default.
printf '{"lightrail-job:job":[{"name":"ortrim","model":"gpt-1.9b","gpus":{"min":1}}]}' > "$tmp/ortrim.json"
api POST $JOBS "$tmp/ortrim.json"
ck "$OPER/lightrail-job:jobs/job=ortrim?with-origin&with-defaults=trim" "(.\"lightrail-job:job\"[0].gpus == {}) and ($ORS | length == 1) and (.\"lightrail-job:job\"[0][\"@\"] == $OR_I)" \
    "trim: the emptied gpus inherits intended, no or:default"
api DELETE "$JOBS/job=ortrim"
api GET "$OPER/lightrail-job:jobs?limit=1"; jq -cS . "$tmp/body" > "$tmp/or-plain"
ck "$OPER/lightrail-job:jobs?with-origin&limit=1" "(.\"lightrail-job:jobs\"[\"@\"] == $OR_I) and ($ORS | length == 1) and (del(.\"lightrail-job:jobs\"[\"@\"]) == $(cat "$tmp/or-plain"))" \
    "a page: the container intended, the page as without it"
# Valid under libyang: the jobs of the whole answer, with lightrail-job
# and ietf-origin implemented.
if command -v yanglint > /dev/null; then
    jq '{"lightrail-job:jobs": ."lightrail-job:jobs"}' "$tmp/or-ds" > "$tmp/or-jobs.json"
    yanglint -D -p /usr/share/yuma/modules/ietf -p "$srcdir/yang" \
        "$srcdir/yang/lightrail-job.yang" /usr/share/yuma/modules/ietf/ietf-origin@2018-02-14.yang \
        "$tmp/or-jobs.json" > "$tmp/lint" 2>&1 \
        && ok "the jobs with their origin are valid lightrail-job data (yanglint)" \
        || notok "yanglint on the jobs with their origin: $(cat "$tmp/lint")"
    jq '."lightrail-job:jobs"["@"]["ietf-origin:origin"] = "ietf-origin:nowhere"' "$tmp/or-jobs.json" > "$tmp/or-bad.json"
    ! yanglint -D -p /usr/share/yuma/modules/ietf -p "$srcdir/yang" \
        "$srcdir/yang/lightrail-job.yang" /usr/share/yuma/modules/ietf/ietf-origin@2018-02-14.yang \
        "$tmp/or-bad.json" > /dev/null 2>&1 \
        && ok "yanglint refuses an origin that is no identity (the check checks)" \
        || notok "yanglint took ietf-origin:nowhere"
fi
bad 400 invalid-value "GET $OPER?with-origin=true" GET "$OPER?with-origin=true"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("with-origin takes no value (RFC 8527 3.2.2), not '"'true'"'")' \
    "$tmp/bad-body" > /dev/null \
    && ok "with-origin=true on operational: it takes no value, said" \
    || notok "with-origin=true on operational: $(cat "$tmp/bad-body")"
# A value past the 64 bytes quoted: decoded, it may hold any UTF-8, and
# it is cut at the start of a character and marked ('x' then 2-byte
# characters put byte 64 inside one: it was cut there, U+FFFD).
long_v=x$(printf '%%C3%%A9%.0s' $(seq 40))
bad 400 invalid-value "GET $OPER?with-origin=x and 40 U+00E9" GET "$OPER?with-origin=$long_v"
jq -e '."ietf-restconf:errors".error[0]."error-message" | (contains("\ufffd") | not) and contains(" [...]'"'"': send it alone")' \
    "$tmp/bad-body" > /dev/null \
    && ok "with-origin's long value: cut at a character and marked" \
    || notok "with-origin's long value: $(cat "$tmp/bad-body")"
# On running (RFC 8527 3.2.2: operational's alone) with-origin is a
# parameter running's resources do not take: the server's 400 (its
# type) says where it goes, then what is taken there (same_refusal
# below), its value unread, however the name is sent, to OPTIONS too.
WO_ADVICE="the query parameter 'with-origin' applies to the operational datastore only (RFC 8527 3.2.2): send it to $OPER or its resources; this resource takes only"
for c in "$RUN?with-origin" "$RUN?with-origin=true" "$RUN?%77ith-origin" \
         "$RUN?depth=1&with-origin&with-origin" \
         "$RUN/lightrail-job:jobs/job=j1?with-origin" \
         "$RUN/ietf-network:networks?content=config&with-origin"; do
    for m in GET OPTIONS; do
        bad 400 invalid-value "$m $c" $m "$c"
        jq -e --arg a "$WO_ADVICE content depth fields with-defaults" \
            '."ietf-restconf:errors".error[0] | ."error-message" == $a and ."error-type" == "protocol"' \
            "$tmp/bad-body" > /dev/null \
            && ok "$m $c: operational's alone, said, what is taken listed" \
            || notok "$m $c: $(cat "$tmp/bad-body")"
    done
done
bad 400 invalid-value "GET $RUN/lightrail-job:jobs?with-origin" GET "$RUN/lightrail-job:jobs?with-origin"
jq -e --arg a "$WO_ADVICE limit offset direction cursor where sort-by locale sublist-limit content depth fields with-defaults" \
    '."ietf-restconf:errors".error[0]."error-message" == $a' "$tmp/bad-body" > /dev/null \
    && ok "GET $RUN/lightrail-job:jobs?with-origin: operational's alone, said, the jobs' list" \
    || notok "GET $RUN/lightrail-job:jobs?with-origin: $(cat "$tmp/bad-body")"
# RFC 8527 defines it on the datastores' resources: /restconf/data has
# no origin to give, and says only what it takes.
bad 400 "" "GET $DS?with-origin" GET "$DS?with-origin"
jq -e '."ietf-restconf:errors".error[0]."error-message" == "an unknown query parameter '"'with-origin'"': this resource takes only content depth fields with-defaults"' \
    "$tmp/bad-body" > /dev/null \
    && ok "GET $DS?with-origin: not taken, what is taken listed" \
    || notok "GET $DS?with-origin: $(cat "$tmp/bad-body")"
# The resources below a datastore: those of /restconf/data, through the
# same handlers; running's cut to their configuration.
for m in ietf-network:networks lightrail-compute:compute lightrail-job:jobs \
         lightrail-job:jobs/job lightrail-job:jobs/job=j1 lightrail-state:state \
         ietf-yang-library:yang-library ietf-yang-library:modules-state \
         ietf-restconf-monitoring:restconf-state \
         ietf-restconf-monitoring:restconf-state/capabilities; do
    api GET "$DS/$m"; jq -cS . "$tmp/body" > "$tmp/nmda-m"
    ck "$OPER/$m" ". == $(cat "$tmp/nmda-m")" "as GET $DS/$m"
    case $m in
    lightrail-state:*|ietf-yang-library:*|ietf-restconf-monitoring:*)
        bad 404 invalid-value "GET $RUN/$m (state)" GET "$RUN/$m"
        jq -e --arg m "$m" '."ietf-restconf:errors".error[0]."error-message" | contains(($m | split("/")[0]) + " is state (config false)") and contains("GET /restconf/ds/ietf-datastores:operational/" + $m)' \
            "$tmp/bad-body" > /dev/null \
            && ok "GET $RUN/$m: state, told to GET it from operational" \
            || notok "GET $RUN/$m: $(cat "$tmp/bad-body")";;
    *)
        api GET "$DS/$m?content=config"; jq -cS . "$tmp/body" > "$tmp/nmda-m"
        ck "$RUN/$m" ". == $(cat "$tmp/nmda-m")" "as GET $DS/$m?content=config";;
    esac
done
ck "$RUN/lightrail-job:jobs/job=j1" '."lightrail-job:job"[0] | .name == "j1" and (has("state") | not)' "j1's intent"
ck "$RUN/lightrail-job:jobs?content=nonconfig" '. == {"lightrail-job:jobs": {}}' "no state in running: the container"
ck "$RUN/lightrail-job:jobs/job=j1?depth=1" '. == {"lightrail-job:job": [{"name": "j1"}]}' "the entry and its key"
ck "$OPER/lightrail-job:jobs/job=j1?content=nonconfig" '."lightrail-job:job"[0] | keys == ["name", "state"]' "its key and state"
ck "$RUN/lightrail-job:jobs/job=j1?with-defaults=report-all-tagged" '."lightrail-job:job"[0] | ."@priority" == {"ietf-netconf-with-defaults:default": true} and (has("state") | not)' \
    "the intent's defaults tagged, no state"
ck "$RUN/lightrail-job:jobs/job=j1?with-defaults=trim&content=nonconfig" '. == {"lightrail-job:job": [{"name": "j1"}]}' "the entry and its key"
api GET "$JOBS/job?limit=1&content=config"; jq -cS . "$tmp/body" > "$tmp/nmda-m"
ck "$RUN/lightrail-job:jobs/job?limit=1" ". == $(cat "$tmp/nmda-m")" "the page, then its configuration"
# where and sort-by on running test the intent only: state is not there
# (RFC 8342 5.1.3), so one naming it is 400 saying where it is, before
# any job is evaluated (derived-from-or-self(state/phase,'x') fails on
# j1's state: it was 400 'could not be evaluated' from the jobs' row).
for q in "where=state/phase='active'&sort-by=state/created" \
         "sort-by=state/created" "where=count(state/lightpath)>0" \
         "where=*/phase='active'" "where=derived-from-or-self(state/phase,'x')"; do
    bad 400 invalid-value "GET $RUN/lightrail-job:jobs/job?$q" GET "$RUN/lightrail-job:jobs/job?$q"
    jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("is state (config false): the running datastore holds configuration only: send it to /restconf/ds/ietf-datastores:operational/lightrail-job:jobs/job")' \
        "$tmp/bad-body" > /dev/null \
        && ok "GET $RUN/...job?$q: state, told to send it to operational" \
        || notok "GET $RUN/...job?$q: $(cat "$tmp/bad-body")"
done
# A where or sort-by refused for another reason than state is refused on
# operational too: no advice to send it there (it had one, from bce2e45).
for q in "sort-by=gpus" "sort-by=nosuch" "where=name=" "where=../job"; do
    bad 400 invalid-value "GET $RUN/lightrail-job:jobs/job?$q" GET "$RUN/lightrail-job:jobs/job?$q"
    jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("the query'"'"'s") and (contains("operational") | not)' \
        "$tmp/bad-body" > /dev/null \
        && ok "GET $RUN/...job?$q: not state, not sent to operational" \
        || notok "GET $RUN/...job?$q: $(cat "$tmp/bad-body")"
done
api GET "$JOBS/job?where=priority>=0&sort-by=model&content=config"; jq -cS . "$tmp/body" > "$tmp/nmda-m"
ck "$RUN/lightrail-job:jobs/job?where=priority>=0&sort-by=model" ". == $(cat "$tmp/nmda-m")" "where and sort-by on the intent"
# A where that names no state is judged on the job as running holds it:
# j1 is active, a word of its state only, and '*' finds no state there
# (running selected j1 by its state, and refused count(*), before).
ck "$OPER/lightrail-job:jobs/job?where=contains(string(.),'active')" '."lightrail-job:job" | map(.name) == ["j1"]' "j1, active in its state"
ck "$RUN/lightrail-job:jobs/job?where=contains(string(.),'active')" '(."lightrail-job:job" // []) == []' "none: no state in running"
ck "$RUN/lightrail-job:jobs/job?where=count(*)>0" '."lightrail-job:job" | map(.name) == ["j1"]' "j1, by its intent's nodes"
ck "$RUN/lightrail-job:jobs/job?where=count(*%5Blocal-name()='state'%5D)=0" '."lightrail-job:job" | map(.name) == ["j1"]' "j1: '*' finds no state there"
api GET "$RUN/ietf-network:networks"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/nmda-tag"
rm -f "$tmp/body"
API_HEADER="If-None-Match: $(cat "$tmp/nmda-tag")" api GET "$RUN/ietf-network:networks"
[ "$STATUS" = 304 ] && ok "GET $RUN/ietf-network:networks with If-None-Match of its tag: 304" \
    || notok "GET $RUN/ietf-network:networks, If-None-Match: $STATUS"
bad 404 invalid-value "GET $OPER/lightrail-job:jobs/job=nobody" GET "$OPER/lightrail-job:jobs/job=nobody"
# A query below a datastore is judged as the resource there judges it
# under /restconf/data: the same status, error-type, error-tag,
# error-app-tag and message, whose list of what the resource takes is
# /restconf/data's, with with-origin added on operational alone, and
# on running with-origin's refusal says where it goes first.  The
# rows of both datastores took the union of every resource's parameters
# (the pagination's on the topology, with-origin on running's) and
# listed it, or judged another parameter before the one not taken.
# same_refusal DATASTORE-PATH RESOURCE QUERY
same_refusal() {
    api GET "$DS${2:+/$2}?$3"
    jq -cS --arg o "$([ "$1" = "$OPER" ] && echo " with-origin")" \
        --arg w "$([ "$1" = "$RUN" ] && echo "${WO_ADVICE% this resource takes only}")" \
        '."ietf-restconf:errors".error[0] | {t: ."error-type", g: ."error-tag", a: ."error-app-tag",
         m: (."error-message" | if test("this resource takes only ") then . + $o else . end
             | if $w != "" then sub("^an unknown query parameter .with-origin.:"; $w) else . end)}' \
        "$tmp/body" > "$tmp/sr-want" 2> /dev/null
    sr_want="$STATUS $(cat "$tmp/sr-want")"
    # bad sets $got (and its own $want).
    bad "$STATUS" "" "GET $1${2:+/$2}?$3" GET "$1${2:+/$2}?$3"
    sr_got="$got $(jq -cS '."ietf-restconf:errors".error[0] | {t: ."error-type", g: ."error-tag", a: ."error-app-tag", m: ."error-message"}' "$tmp/bad-body" 2> /dev/null)"
    [ "$sr_got" = "$sr_want" ] \
        && ok "GET $1${2:+/$2}?$3: as GET $DS${2:+/$2}?$3 ($(jq -r .m "$tmp/sr-want"))" \
        || notok "GET $1${2:+/$2}?$3: $sr_got, want $sr_want"
}
for m in "" ietf-network:networks lightrail-compute:compute lightrail-job:jobs \
         lightrail-job:jobs/job lightrail-job:jobs/job=j1 lightrail-state:state \
         ietf-yang-library:yang-library ietf-restconf-monitoring:restconf-state \
         ietf-restconf-monitoring:restconf-state/capabilities; do
    for q in "nosuch=1" "depth=0&limit=1" "limit=1&limit=2" "with-origin"; do
        [ "$q" = with-origin ] || same_refusal "$OPER" "$m" "$q"
        case $m in
        lightrail-state:*|ietf-yang-library:*|ietf-restconf-monitoring:*) ;;
        *) same_refusal "$RUN" "$m" "$q";;
        esac
    done
done
# OPTIONS (RFC 9110 9.3.7) asks about the resource the target names,
# query included (RFC 9110 7.1): a parameter no method of it takes is
# the GET's 400, no Allow (any query was 204); one it takes is 204.
for c in "$JOBS?nosuch=1" "$JOBS?limit=1&limit=2" "$J1?limit=1" \
         "$OPER/ietf-network:networks?limit=1" "$RUN/lightrail-job:jobs?with-origin"; do
    api GET "$c"; cp "$tmp/body" "$tmp/opt-get"
    bad 400 invalid-value "OPTIONS $c" OPTIONS "$c"
    cmp -s "$tmp/bad-body" "$tmp/opt-get" \
        && ! tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow:' \
        && ok "OPTIONS $c: the GET's 400, no Allow" \
        || notok "OPTIONS $c: $(cat "$tmp/bad-headers" "$tmp/bad-body")"
done
for c in "$JOBS?limit=1" "$OPER/ietf-network:networks?with-origin&depth=1" "$RUN?content=config"; do
    api OPTIONS "$c"
    [ "$STATUS" = 204 ] && tr -d '\r' < "$tmp/headers" | grep -q -i '^Allow: ' \
        && ok "OPTIONS $c: 204 with Allow" \
        || notok "OPTIONS $c: $STATUS $(cat "$tmp/headers")"
done
bad 404 invalid-value "GET $OPER/nothing:here" GET "$OPER/nothing:here"
bad 404 invalid-value "GET $OPER/lightrail-job:jobs%2Fjob=j1" GET "$OPER/lightrail-job:jobs%2Fjob=j1"
bad 404 invalid-value "GET $OPER/ (no resource)" GET "$OPER/"
for m in PUT POST PATCH; do
    bad 405 operation-not-supported "$m $RUN/ietf-network:networks" $m "$RUN/ietf-network:networks" "$tmp/q-nw"
    tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
        && jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("write through /restconf/data instead")' "$tmp/bad-body" > /dev/null \
        && ok "$m $RUN/ietf-network:networks: Allow GET, HEAD, OPTIONS; told where to write" \
        || notok "$m $RUN/ietf-network:networks: $(cat "$tmp/bad-headers" "$tmp/bad-body")"
done
bad 405 operation-not-supported "DELETE $RUN/lightrail-job:jobs/job=j1" DELETE "$RUN/lightrail-job:jobs/job=j1"
bad 405 operation-not-supported "POST $OPER/lightrail-job:jobs" POST "$OPER/lightrail-job:jobs" "$tmp/q.json"
# A datastore lightraild does not have: 404 naming those it serves.
for d in ietf-datastores:intended ietf-datastores:candidate \
         ietf-datastores:startup running ietf-datastores%3Arunning; do
    bad 404 invalid-value "GET /restconf/ds/$d" GET "/restconf/ds/$d"
    jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("lightraild serves /restconf/ds/ietf-datastores:operational (all it holds) and /restconf/ds/ietf-datastores:running")' \
        "$tmp/bad-body" > /dev/null \
        && ok "GET /restconf/ds/$d: the datastores served named" \
        || notok "GET /restconf/ds/$d: $(cat "$tmp/bad-body")"
done
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("sent percent-encoded (send it as written)")' \
    "$tmp/bad-body" > /dev/null \
    && ok "a datastore's name percent-encoded: told to send it as written" \
    || notok "a datastore's name percent-encoded: $(cat "$tmp/bad-body")"
# Its separator percent-encoded: the same 404 (it named the path under
# /restconf/data two bytes off).
bad 404 invalid-value "GET /restconf/ds/ietf-datastores:running%2Flightrail-job:jobs" \
    GET /restconf/ds/ietf-datastores:running%2Flightrail-job:jobs
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("no datastore '"'ietf-datastores:running%2Flightrail-job:jobs'"' sent percent-encoded (send it as written)")' \
    "$tmp/bad-body" > /dev/null \
    && ok "a datastore's separator percent-encoded: told to send it as written" \
    || notok "a datastore's separator percent-encoded: $(cat "$tmp/bad-body")"
bad 404 invalid-value "GET /restconf/ds/ietf-datastores:startup/ietf-network:networks" \
    GET /restconf/ds/ietf-datastores:startup/ietf-network:networks
# Other methods, OPTIONS and a query there: the same 404, the server
# asking the row whether the datastore exists before it judges them
# (PUT and DELETE were 405, OPTIONS 204 with Allow, a query 400).
for c in "PUT ietf-datastores:candidate" "DELETE ietf-datastores:candidate" \
         "OPTIONS ietf-datastores:candidate" "OPTIONS ietf-datastores%3Arunning" \
         "GET ietf-datastores:candidate?nope=1" \
         "GET ietf-datastores:candidate/lightrail-job:jobs/job?limit=1&cursor=eA"; do
    m=${c%% *} d=${c#* }
    bad 404 invalid-value "$m /restconf/ds/$d" $m "/restconf/ds/$d" "$tmp/q-nw"
    jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("lightraild serves /restconf/ds/ietf-datastores:operational (all it holds) and /restconf/ds/ietf-datastores:running") and contains("it has no candidate")' \
        "$tmp/bad-body" > /dev/null \
        && ! tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow:' \
        && ok "$m /restconf/ds/$d: 404 naming the datastores served, no Allow" \
        || notok "$m /restconf/ds/$d: $(cat "$tmp/bad-headers" "$tmp/bad-body")"
done
# Below a datastore, a path no resource of /restconf/data has, or state
# under running, is 404 for OPTIONS and every method as for GET (as
# /restconf/data's own unknown paths are): OPTIONS was 204 with Allow,
# PUT 405, the catch-all row knowing any path.
for c in "OPTIONS ietf-datastores:operational/lightrail-job:nosuch" \
         "PUT ietf-datastores:operational/lightrail-job:nosuch" \
         "OPTIONS ietf-datastores:running/lightrail-state:state" \
         "DELETE ietf-datastores:running/lightrail-state:state" \
         "OPTIONS ietf-datastores:running/" \
         "GET ietf-datastores:operational/lightrail-job:nosuch?nope=1"; do
    m=${c%% *} d=${c#* }
    bad 404 invalid-value "$m /restconf/ds/$d" $m "/restconf/ds/$d" "$tmp/q-nw"
    jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("no resource at this path") or contains("is state (config false)")' \
        "$tmp/bad-body" > /dev/null \
        && ! tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow:' \
        && ok "$m /restconf/ds/$d: 404 as GET, no Allow" \
        || notok "$m /restconf/ds/$d: $(cat "$tmp/bad-headers" "$tmp/bad-body")"
done
api OPTIONS /restconf/ds/ietf-datastores:running/lightrail-job:jobs/job=nobody
[ "$STATUS" = 204 ] && tr -d '\r' < "$tmp/headers" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
    && ok "OPTIONS of a job entry under running: 204 with Allow, as under /restconf/data" \
    || notok "OPTIONS .../running/lightrail-job:jobs/job=nobody: $STATUS $(cat "$tmp/headers")"
# The library (RFC 8527 2: read from operational) names the datastores
# served, and no other.
ck "$OPER/ietf-yang-library:yang-library" '."ietf-yang-library:yang-library".datastore | map(.name) == ["ietf-datastores:running", "ietf-datastores:operational"]' \
    "running and operational"
jq -r '."ietf-yang-library:yang-library".datastore[].name' "$tmp/body" > "$tmp/nmda-names"
while read -r d; do
    api GET "/restconf/ds/$d"
    [ "$STATUS" = 200 ] && ok "the library's datastore $d is served" \
        || notok "the library's datastore $d: GET /restconf/ds/$d $STATUS"
done < "$tmp/nmda-names"

# RFC 8040 9: ietf-restconf-monitoring's restconf-state, state (config
# false) served as any data resource: its capabilities exactly (9.1.1:
# the defaults basic mode, then depth, fields, with-defaults and
# with-origin (RFC 8527 3.2.2); no filter or replay), streams empty (lightraild serves no event stream).
RCS=$DS/ietf-restconf-monitoring:restconf-state
CAPS='["urn:ietf:params:restconf:capability:defaults:1.0?basic-mode=report-all", "urn:ietf:params:restconf:capability:depth:1.0", "urn:ietf:params:restconf:capability:fields:1.0", "urn:ietf:params:restconf:capability:with-defaults:1.0", "urn:ietf:params:restconf:capability:with-origin:1.0"]'
root_get $RCS application/yang-data+json
jq -e ". == {\"ietf-restconf-monitoring:restconf-state\": {\"capabilities\": {\"capability\": $CAPS}, \"streams\": {}}}" \
    "$tmp/body" > /dev/null \
    && ok "GET $RCS: the capabilities exactly, streams empty" \
    || notok "GET $RCS: $(cat "$tmp/body")"
tr -d '\r' < "$tmp/headers" | sed -n 's/^[Ee][Tt][Aa][Gg]: //p' > "$tmp/rcs-etag"
root_methods $RCS
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("restconf-state is state (config false) that lightraild keeps itself: it is read-only")' \
    "$tmp/bad-body" > /dev/null \
    && ok "PATCH $RCS: 405 says it is read-only state" \
    || notok "PATCH $RCS: $(cat "$tmp/bad-body")"
ck "$RCS/capabilities" ". == {\"ietf-restconf-monitoring:capabilities\": {\"capability\": $CAPS}}" \
    "the capabilities alone"
root_methods $RCS/capabilities
ck "$RCS?depth=1" '. == {"ietf-restconf-monitoring:restconf-state": {}}' "the container alone"
ck "$RCS?depth=2" '. == {"ietf-restconf-monitoring:restconf-state": {"capabilities": {}, "streams": {}}}' "its two containers, empty"
ck "$RCS/capabilities?depth=1" '. == {"ietf-restconf-monitoring:capabilities": {}}' "the container alone"
ck "$RCS?content=config" '. == {"ietf-restconf-monitoring:restconf-state": {}}' "state only: the container, empty"
ck "$RCS?fields=capabilities/capability" ". == {\"ietf-restconf-monitoring:restconf-state\": {\"capabilities\": {\"capability\": $CAPS}}}" \
    "the leaf-list named: all of it"
ck "$OPER/ietf-restconf-monitoring:restconf-state/capabilities?depth=1" '. == {"ietf-restconf-monitoring:capabilities": {}}' \
    "below operational, cut as under $DS"
bad 400 invalid-value "GET $RCS?fields=streams/nope" GET "$RCS?fields=streams/nope"
API_HEADER="If-None-Match: $(cat "$tmp/rcs-etag")" api GET $RCS
grep -q -x '"[0-9a-f]\{32\}"' "$tmp/rcs-etag" && [ "$STATUS" = 304 ] \
    && ok "GET $RCS with If-None-Match of its tag: 304" \
    || notok "GET $RCS, If-None-Match $(cat "$tmp/rcs-etag"): $STATUS"
# basic-mode=report-all is what the answers do: a leaf the intent left
# at its YANG default (j1's priority, default 0; its algorithm, default
# cdynp) is sent all the same, as RFC 6243 2.1 has report-all send it.
ck "$J1" '."lightrail-job:job"[0] | .priority == 0 and .algorithm == "cdynp"' \
    "priority and algorithm, left at their defaults by the intent, sent"
grep -q '"priority"\|"algorithm"' "$tmp/j1.json" \
    && notok "j1's intent names priority or algorithm: $(cat "$tmp/j1.json")" \
    || ok "j1's intent names neither priority nor algorithm"

# List pagination (draft-ietf-netconf-list-pagination-rc): GET of the
# jobs with limit, offset and direction.  Seven jobs (j1 and p1..p6, the
# p's blocked or not, it does not matter), in the order of their names.
for i in 1 2 3 4 5 6; do
    intent "p$i" bert-large 1 > "$tmp/p.json"
    api POST $JOBS "$tmp/p.json"
done
api GET $JOBS
jq -c '[."lightrail-job:jobs".job[].name]' "$tmp/body" > "$tmp/all"
[ "$(cat "$tmp/all")" = '["j1","p1","p2","p3","p4","p5","p6"]' ] \
    && ok "GET of every job: in the order of their names" \
    || notok "GET of every job: $(cat "$tmp/all")"
# entries FILE: the jobs of a GET's body as one array, from the jobs
# container ({"lightrail-job:jobs":{"job":[...]}}) or from the list
# resource ({"lightrail-job:job":[...]}, nothing else at the top).
entries() {
    jq -c 'if keys == ["lightrail-job:job"] then ."lightrail-job:job"
           else ."lightrail-job:jobs".job // [] end' "$1"
}
# page RESOURCE LIMIT DIRECTION: pages of RESOURCE ($JOBS or $JOBS/job)
# from offset 0 until one has no remaining; prints the names in the
# order received, and "!" after a page whose remaining is not what
# follows it or whose annotation is not on its first entry alone; the
# pages' entries, one line a page, go to $tmp/pages.
page() {
    off=0
    : > "$tmp/pages"
    while :; do
        api GET "$1?limit=$2&offset=$off&direction=$3"
        [ "$STATUS" = 200 ] || { echo "status $STATUS"; return; }
        entries "$tmp/body" > "$tmp/page"
        cat "$tmp/page" >> "$tmp/pages"
        n=$(jq length "$tmp/page")
        rem=$(jq '.[0]["@"]["lightrail-job:remaining"] // 0' "$tmp/page")
        jq -r '.[].name' "$tmp/page"
        jq -e '[.[1:][] | select(has("@"))] | length == 0' \
            "$tmp/page" > /dev/null || echo "!"
        [ "$rem" -eq $((7 - off - n)) ] || echo "!"
        [ "$rem" -eq 0 ] && return
        off=$((off + n))
    done
}
for l in 1 2 3 6 7 8 unbounded; do
    f=$(page $JOBS $l forwards | jq -R . | jq -sc .)
    cp "$tmp/pages" "$tmp/pages-f"
    b=$(page $JOBS $l backwards | jq -R . | jq -sc .)
    cp "$tmp/pages" "$tmp/pages-b"
    if [ "$f" = "$(cat "$tmp/all")" ] && [ "$b" = "$(jq -c reverse "$tmp/all")" ]; then
        ok "pages of limit $l tile the list forwards and backwards, remaining right"
    else
        notok "pages of limit $l: forwards $f, backwards $b"
    fi
    # The list resource (the drafts' target): the same pages, entry for
    # entry, annotations included.
    f=$(page "$JOBS/job" $l forwards | jq -R . | jq -sc .)
    cmp -s "$tmp/pages" "$tmp/pages-f" || f="$f, pages differ from the container's"
    b=$(page "$JOBS/job" $l backwards | jq -R . | jq -sc .)
    cmp -s "$tmp/pages" "$tmp/pages-b" || b="$b, pages differ from the container's"
    if [ "$f" = "$(cat "$tmp/all")" ] && [ "$b" = "$(jq -c reverse "$tmp/all")" ]; then
        ok "pages of limit $l of .../jobs/job tile the list both ways, as the container's"
    else
        notok "pages of limit $l of .../jobs/job: forwards $f, backwards $b"
    fi
done
api GET "$JOBS?limit=2&offset=3"
jq -e '."lightrail-job:jobs".job | length == 2 and .[0].name == "p3"
       and (.[0]["@"] | keys == ["lightrail-job:next", "lightrail-job:previous",
                                 "lightrail-job:remaining"])
       and .[0]["@"]["lightrail-job:remaining"] == 2' "$tmp/body" > /dev/null \
    && ok "limit=2&offset=3: p3, p4, remaining 2 on p3 with the next and previous cursors" \
    || notok "limit=2&offset=3: $(cat "$tmp/body")"
# lint_page FILE: FILE, a jobs container, is valid lightrail-job data.
# yanglint takes the format from the name's extension: of a name without
# one it says "unknown format" and exits 0, having checked nothing.  Each
# module named is implemented, and lightrail-model's would want a model
# in the document: only lightrail-job is named (it imports the other).
lint_page() {
    cp "$1" "$tmp/page.json"
    yanglint -D -p /usr/share/yuma/modules/ietf -p "$srcdir/yang" \
        "$srcdir/yang/lightrail-job.yang" "$tmp/page.json" > "$tmp/lint" 2>&1
}
if command -v yanglint > /dev/null; then
    lint_page "$tmp/body" \
        && ok "a page with its annotation is valid lightrail-job data (yanglint)" \
        || notok "yanglint on a page: $(cat "$tmp/lint")"
fi
api GET "$JOBS?offset=7"
[ "$STATUS" = 200 ] && [ "$(jq -c . "$tmp/body")" = '{"lightrail-job:jobs":{}}' ] \
    && ok "offset=7 of 7: 200, the empty list" \
    || notok "offset=7: $STATUS $(cat "$tmp/body")"
# The list resource: its member name with the array, the annotation on
# the first entry; valid as the jobs container's list (yanglint reads no
# list without its parent, so the array goes back into the container).
api GET "$JOBS/job?limit=2&offset=3"
jq -e 'keys == ["lightrail-job:job"] and (."lightrail-job:job" | length == 2
       and .[0].name == "p3" and .[0]["@"]["lightrail-job:remaining"] == 2
       and (.[0]["@"] | length == 3))' \
    "$tmp/body" > /dev/null \
    && ok ".../jobs/job?limit=2&offset=3: {\"lightrail-job:job\":[p3, p4]}, remaining 2 on p3" \
    || notok ".../jobs/job?limit=2&offset=3: $STATUS $(cat "$tmp/body")"
if command -v yanglint > /dev/null; then
    jq '{"lightrail-job:jobs": {job: ."lightrail-job:job"}}' "$tmp/body" > "$tmp/list.json"
    lint_page "$tmp/list.json" \
        && ok "a page of .../jobs/job is valid lightrail-job data (yanglint)" \
        || notok "yanglint on a page of .../jobs/job: $(cat "$tmp/lint")"
fi
api GET "$JOBS"
entries "$tmp/body" > "$tmp/every"
api GET "$JOBS/job"
[ "$STATUS" = 200 ] && [ "$(entries "$tmp/body")" = "$(cat "$tmp/every")" ] \
    && ok "GET .../jobs/job without a query: every job, as the container's" \
    || notok "GET .../jobs/job: $STATUS $(cat "$tmp/body")"
curl -s -I -o /dev/null -w '%{http_code} %header{content-length}' \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL$JOBS/job" > "$tmp/head"
[ "$(cat "$tmp/head")" = "200 $(wc -c < "$tmp/body")" ] \
    && ok "HEAD .../jobs/job: 200, the GET's length" \
    || notok "HEAD .../jobs/job: $(cat "$tmp/head"), GET $(wc -c < "$tmp/body") bytes"
api GET "$JOBS/job?offset=7"
[ "$STATUS" = 200 ] && [ "$(jq -c . "$tmp/body")" = '{"lightrail-job:job":[]}' ] \
    && ok ".../jobs/job?offset=7 of 7: 200, the empty array" \
    || notok ".../jobs/job?offset=7: $STATUS $(cat "$tmp/body")"
# Names and values are percent-decoded (RFC 3986 6.2.2.2): %6Cimit=%32
# is limit=2, on both resources; '+' is no space (not a form).
api GET "$JOBS?limit=2&offset=3&direction=backwards"
entries "$tmp/body" > "$tmp/plain"
for r in "$JOBS" "$JOBS/job"; do
    api GET "$r?%6Cimit=%32&offset=%33&direction=%62ack%77ards"
    [ "$STATUS" = 200 ] && [ "$(entries "$tmp/body")" = "$(cat "$tmp/plain")" ] \
        && ok "${r#$JOBS}?%6Cimit=%32&offset=%33&direction=%62ack%77ards: the page of limit=2&offset=3&direction=backwards" \
        || notok "${r#$JOBS}?%6Cimit=%32...: $STATUS $(cat "$tmp/body"), want $(cat "$tmp/plain")"
done
# where (an XPath 1.0 expression over each entry) and sort-by (a leaf of
# the entry, ascending, ties in name order), before offset and limit:
# the names each gives, against what jq makes of every job; the value
# percent-encoded or not.  remaining counts the matching entries.
api GET $JOBS
entries "$tmp/body" > "$tmp/every"
# sel QUERY JQ: the names QUERY gives on both resources, and whether
# they are what JQ makes of every job (an array of names).
sel() {
    want=$(jq -c "$2" "$tmp/every")
    for r in "$JOBS" "$JOBS/job"; do
        api GET "$r?$1"
        got=$(entries "$tmp/body" | jq -c '[.[].name]')
        [ "$STATUS" = 200 ] && [ "$got" = "$want" ] \
            && ok "${r#$JOBS}?$1: $got" \
            || notok "${r#$JOBS}?$1: $STATUS $got, want $want $(cat "$tmp/body")"
    done
}
# j1 holds lightpaths (its DCs differ), the p's none; j1's model sorts
# after bert-large.
lp='[.[] | select((.state.lightpath // []) | length > 0) | .name]'
ps='[.[] | select(.name | startswith("p")) | .name]'
[ "$(jq -c "$lp" "$tmp/every")" = '["j1"]' ] \
    && ok "j1 alone holds lightpaths" \
    || notok "the lightpaths: $(jq -c "$lp" "$tmp/every")"
sel "where=count(state/lightpath)>0" "$lp"
sel "where=count(state%2Flightpath)%3E0" "$lp"
sel "where=state/phase='active'%20and%20not(count(state/lightpath))" "$ps"
sel "where=starts-with(name,'p')" "$ps"
sel "where=name='nobody'" '[]'
sel "sort-by=model" '[sort_by(.model) | .[].name]'
[ "$(jq -c '[sort_by(.model) | .[].name]' "$tmp/every")" = '["p1","p2","p3","p4","p5","p6","j1"]' ] \
    && ok "sort-by=model moves j1 last, the p's (a tie) in name order" \
    || notok "sort-by=model: $(jq -c '[sort_by(.model) | .[].name]' "$tmp/every")"
sel "sort-by=state/created" '[sort_by(.state.created) | .[].name]'
sel "sort-by=model&direction=backwards" '[sort_by(.model) | reverse | .[].name]'
sel "where=starts-with(name,'p')&sort-by=state/created&direction=backwards" \
    "[.[] | select(.name | startswith(\"p\"))] | sort_by(.state.created) | reverse | [.[].name]"
sel "where=starts-with(name,'p')&limit=2&offset=1" "$ps | .[1:3]"
sel "sort-by=model&limit=2&offset=5" '[sort_by(.model) | .[5:7][].name]'
sel "sort-by=model&limit=2&offset=5&direction=backwards" '[sort_by(.model) | reverse | .[5:7][].name]'
api GET "$JOBS/job?where=starts-with(name,'p')&limit=2"
jq -e '."lightrail-job:job"[0]["@"]["lightrail-job:remaining"] == 4' \
    "$tmp/body" > /dev/null \
    && ok "where=starts-with(name,'p')&limit=2: remaining 4, the matching entries left out" \
    || notok "where=...&limit=2: $STATUS $(cat "$tmp/body")"
# badq STATUS TAG APP-TAG MESSAGE-PART QUERY [METHOD]: as bad, on the
# resource $res, and the error-app-tag (or none) and a part of the
# message.
res=$JOBS
badq() {
    bad "$1" "$2" "${6:-GET} ${res#$JOBS}?$5" "${6:-GET}" "$res?$5" ${6:+"$tmp/p.json"}
    jq -e --arg a "$3" --arg m "$4" '."ietf-restconf:errors".error[0]
            | (."error-app-tag" // "") == $a and (."error-message" | contains($m))' \
        "$tmp/bad-body" > /dev/null \
        && ok "${res#$JOBS}?$5: error-app-tag '$3', says what to send" \
        || notok "${res#$JOBS}?$5: $(cat "$tmp/bad-body")"
}
# where-budget: a where's evaluation over the jobs is bounded (2 s by
# default, within which every where above ran).  With a microsecond the
# budget runs out: 400 invalid-value, error-app-tag
# where-budget-exceeded, the where quoted, how many of the jobs it was
# evaluated on, what to send instead, no job in the body, nothing
# changed.  The where is one that reads every node of a job: in a plain
# -O2 build starts-with(name,'p') takes 0.7 us a job, under the budget
# (the test held only as the 7 jobs added up), contains(string(.),'p')
# 7 us (1 us on running's smaller jobs).  A query without a where
# evaluates nothing and is served.  Before, no budget: the
# configuration refused the leaf.
n_every=$(jq length "$tmp/every")
stop_daemon
cp "$D/lightraild.json" "$tmp/cfg-budget"
jq '."lightrail-config:lightraild"."where-budget" = "0.000001"' \
    "$tmp/cfg-budget" > "$D/lightraild.json"
start_daemon || notok "lightraild with where-budget 0.000001 did not start"
for res in "$JOBS" "$JOBS/job"; do
    badq 400 invalid-value where-budget-exceeded \
        "the query's where 'contains(string(.),'p')' was evaluated on " \
        "where=contains(string(.),'p')"
    jq -e --arg n " of the $n_every jobs in " '."ietf-restconf:errors".error[0]."error-message"
            | contains($n) and contains("past the 0.000001 s this server gives a where, and nothing is returned: send a narrower where, with a cheap condition first joined by and")' \
        "$tmp/bad-body" > /dev/null && ! grep -q '"p1"' "$tmp/bad-body" \
        && ok "${res#$JOBS}?where=... past the budget: of how many jobs, in how long, what to send; no job sent" \
        || notok "${res#$JOBS}?where=... past the budget: $(cat "$tmp/bad-body")"
done
# Under running the advice names no state: running refuses a where
# that does (its state/phase example was refused there).
res="$RUN/lightrail-job:jobs/job"
badq 400 invalid-value where-budget-exceeded \
    "send a narrower where, with a cheap condition first joined by and (name = 'j1' and ...: the rest" \
    "where=contains(string(.),'p')"
jq -e '."ietf-restconf:errors".error[0]."error-message" | contains("state/") | not' \
    "$tmp/bad-body" > /dev/null \
    && ok "running: where=... past the budget: the advice names no state" \
    || notok "running: where=... past the budget: $(cat "$tmp/bad-body")"
res=$JOBS
sel "sort-by=model" '[sort_by(.model) | .[].name]'
cp "$tmp/cfg-budget" "$D/lightraild.json"
stop_daemon
start_daemon || notok "lightraild with the default where-budget did not start"
sel "where=starts-with(name,'p')" "$ps"
# Cursors (the drafts' cursor, and the annotations next and previous):
# a page asked with a limit carries, on its first entry, the cursor of
# the job after it (next) and of the one before it (previous), opaque to
# the client; cursor=NEXT starts the next page at that job wherever it
# now is, so a job submitted or deleted before it shifts nothing, where
# an offset shifts.
# names FILE, nextc FILE, prevc FILE: a page's names, its cursors ("" when
# absent).
names() { entries "$1" | jq -c '[.[].name]'; }
nextc() { entries "$1" | jq -r '.[0]["@"]["lightrail-job:next"] // ""'; }
prevc() { entries "$1" | jq -r '.[0]["@"]["lightrail-job:previous"] // ""'; }
api GET "$JOBS?limit=2"
c2=$(nextc "$tmp/body")
[ "$STATUS" = 200 ] && [ "$(names "$tmp/body")" = '["j1","p1"]' ] \
    && [ -n "$c2" ] && [ -z "$(prevc "$tmp/body")" ] \
    && entries "$tmp/body" | jq -e '.[0]["@"]["lightrail-job:remaining"] == 5' > /dev/null \
    && ok "limit=2: j1, p1, remaining 5, a next cursor, no previous (the start)" \
    || notok "limit=2: $STATUS $(cat "$tmp/body")"
# p0 is submitted: it sorts before p1, so the offset of the next page
# now gives p1 again.
intent p0 bert-large 1 > "$tmp/p.json"
api POST $JOBS "$tmp/p.json"
api GET "$JOBS?limit=1"
c0=$(nextc "$tmp/body")
api GET "$JOBS?limit=2&offset=2"
[ "$(names "$tmp/body")" = '["p1","p2"]' ] \
    && ok "p0 submitted: offset=2 gives p1 again (offset paging shifts)" \
    || notok "offset=2 with p0: $(cat "$tmp/body")"
api GET "$JOBS?limit=2&cursor=$c2"
c4=$(nextc "$tmp/body")
back=$(prevc "$tmp/body")
[ "$STATUS" = 200 ] && [ "$(names "$tmp/body")" = '["p2","p3"]' ] && [ -n "$c4" ] \
    && entries "$tmp/body" | jq -e '.[0]["@"]["lightrail-job:remaining"] == 3' > /dev/null \
    && ok "p0 submitted before it: the next cursor's page is p2, p3, remaining 3" \
    || notok "cursor page 2: $STATUS $(cat "$tmp/body")"
api GET "$JOBS?limit=2&cursor=$back&direction=backwards"
[ "$(names "$tmp/body")" = '["p1","p0"]' ] \
    && ok "its previous cursor backwards: p1, p0, the jobs before the page, nearest first" \
    || notok "previous backwards: $STATUS $(cat "$tmp/body")"
# p0 deleted: before the cursor's job, it shifts nothing either.
api DELETE "$JOBS/job=p0"
api GET "$JOBS?limit=2&cursor=$c4"
c6=$(nextc "$tmp/body")
[ "$STATUS" = 200 ] && [ "$(names "$tmp/body")" = '["p4","p5"]' ] && [ -n "$c6" ] \
    && ok "p0 deleted before it: the next page is p4, p5" \
    || notok "cursor page 3: $STATUS $(cat "$tmp/body")"
api GET "$JOBS/job?limit=2&cursor=$c6"
[ "$STATUS" = 200 ] && [ "$(names "$tmp/body")" = '["p6"]' ] \
    && entries "$tmp/body" | jq -e '.[0]["@"] | keys == ["lightrail-job:previous"]' > /dev/null \
    && ok "the last page (of .../jobs/job): p6, a previous cursor, no next, no remaining" \
    || notok "cursor last page: $STATUS $(cat "$tmp/body")"
if command -v yanglint > /dev/null; then
    jq '{"lightrail-job:jobs": {job: ."lightrail-job:job"}}' "$tmp/body" > "$tmp/list.json"
    api GET "$JOBS?limit=2&cursor=$c4"
    lint_page "$tmp/body" && lint_page "$tmp/list.json" \
        && ok "pages with cursors are valid lightrail-job data (yanglint)" \
        || notok "yanglint on pages with cursors: $(cat "$tmp/lint")"
fi
# follow RESOURCE QUERY: the names of the pages from QUERY on, each the
# page of the one before's next cursor, until a page has none.
follow() {
    q=$2 all='[]' i=0
    while [ $i -lt 20 ]; do
        api GET "$1?$q"
        [ "$STATUS" = 200 ] || { echo "status $STATUS"; return; }
        all=$(printf '%s %s' "$all" "$(names "$tmp/body")" | jq -sc add)
        c=$(nextc "$tmp/body")
        [ -n "$c" ] || break
        q="$2&cursor=$c" i=$((i + 1))
    done
    echo "$all"
}
api GET $JOBS
entries "$tmp/body" > "$tmp/every"
# curs RESOURCE QUERY JQ: following the cursors from QUERY gives what JQ
# makes of every job.
curs() {
    want=$(jq -c "$3" "$tmp/every")
    got=$(follow "$1" "$2")
    [ "$got" = "$want" ] \
        && ok "${1#$JOBS}?$2, then each next cursor: $got" \
        || notok "${1#$JOBS}?$2 following next: $got, want $want"
}
curs $JOBS "limit=3" '[.[].name]'
curs "$JOBS/job" "limit=3&direction=backwards" '[reverse[].name]'
curs $JOBS "limit=2&sort-by=model" '[sort_by(.model) | .[].name]'
curs "$JOBS/job" "limit=2&where=starts-with(name,'p')&sort-by=state/created&direction=backwards" \
    "[.[] | select(.name | startswith(\"p\"))] | sort_by(.state.created) | reverse | [.[].name]"
# A cursor is the job it names in the query's order: p2's with
# sort-by=model starts at p2, then the p's after it, then j1.
api GET "$JOBS?limit=3&sort-by=model&cursor=$c2"
[ "$(names "$tmp/body")" = '["p2","p3","p4"]' ] \
    && ok "sort-by=model&cursor (p2's): p2, p3, p4" \
    || notok "sort-by=model&cursor: $STATUS $(cat "$tmp/body")"
api GET "$JOBS?limit=3&sort-by=model&direction=backwards&cursor=$c2"
[ "$(names "$tmp/body")" = '["p2","p1"]' ] \
    && ok "sort-by=model&direction=backwards&cursor (p2's): p2, p1" \
    || notok "sort-by=model backwards &cursor: $STATUS $(cat "$tmp/body")"
# The refusals: a cursor this server gives no job (malformed), with an
# offset, of a job gone or not selected: 404 invalid-value, error-app-tag
# cursor-not-found (the RESTCONF draft's).
res=$JOBS
badq 400 invalid-value "" "the query's cursor 'not a cursor' is not one this server gives" "limit=2&cursor=not%20a%20cursor"
badq 400 invalid-value "" "the query has both a cursor and an offset: send one" "limit=2&cursor=$c2&offset=1"
badq 404 invalid-value cursor-not-found "the query's cursor '$c0' names a job that is not in the list (deleted since the page that gave it): page again from the start" "limit=2&cursor=$c0"
badq 404 invalid-value cursor-not-found "is not in the list the query's where selects (deleted since the page that gave it, or no longer selected by the where)" "limit=2&where=name!='p2'&cursor=$c2"
res=$JOBS/job
badq 404 invalid-value cursor-not-found "names a job that is not in the list" "limit=2&cursor=$c0"
res=$JOBS
# A cursor whose name no job can have (longer than 63 bytes, lightrail-
# job's name, or a character its pattern refuses) is no job gone: 400
# saying why (404 cursor-not-found before); 63 bytes may be a job's.
b64url() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
n64=$(printf 'a%.0s' $(seq 64)) n63=$(printf 'a%.0s' $(seq 63))
c64=$(b64url "$n64") c63=$(b64url "$n63") csp=$(b64url "a b")
badq 400 invalid-value "" "the query's cursor '${c64%${c64#????????????????????????????????????????}}' names a key of 64 bytes, longer than a job's name can be (63 at most): no job has it; send a page's 'next' or 'previous' annotation as it came, or page with offset" "limit=2&cursor=$c64"
badq 400 invalid-value "" "names a key with a character a job's name cannot hold (letters, digits, '.', '_' and '-' only): no job has it" "limit=2&cursor=$csp"
badq 404 invalid-value cursor-not-found "names a job that is not in the list" "limit=2&cursor=$c63"
res=$JOBS/job
badq 400 invalid-value "" "names a key of 64 bytes, longer than a job's name can be" "cursor=$c64"
res=$JOBS
badq 400 invalid-value "" "send a whole number from 1 to 4294967295, or 'unbounded'" "limit=0"
badq 400 invalid-value "" "limit '-1' is not a page size" "limit=-1"
badq 400 invalid-value "" "limit 'abc' is not a page size" "limit=abc"
badq 400 invalid-value "" "limit '4294967296'" "limit=4294967296"
badq 400 invalid-value "" "offset '-2' is not a count of entries to skip: send a whole number from 0" "offset=-2"
badq 416 invalid-value offset-out-of-range "offset 8 is past the end of the list, which has 7 entries: send an offset from 0 to 7" "offset=8"
badq 400 invalid-value "" "direction 'up' is not one: send 'forwards'" "direction=up"
badq 400 invalid-value "" "a repeated query parameter 'limit'" "limit=2&limit=3"
badq 400 invalid-value "" "the query's where 'state/phase=' is not an XPath 1.0 expression over a job" "where=state/phase="
badq 400 invalid-value "" "the query's where 'nosuch='x'' is not an XPath 1.0 expression over a job" "where=nosuch='x'"
badq 400 invalid-value "" "the query's where 'count(../job)>1' reaches 'jobs', outside the job it is evaluated on" "where=count(../job)>1"
badq 400 invalid-value "" "calls deref(): a job has no leafref to follow" "where=deref(name)%3D'x'"
badq 400 invalid-value "" "the query's where 'priority=\$p' is not an XPath 1.0 expression over a job (at byte 10, variables are not supported: write the value in place of '\$p')" "where=priority=%24p"
badq 400 invalid-value "" "the query's where is empty" "where="
badq 400 invalid-value "" "the query's sort-by 'nosuch' is not a leaf of a job" "sort-by=nosuch"
badq 400 invalid-value "" "the query's sort-by 'state' is not a leaf of a job (it is no leaf)" "sort-by=state"
badq 400 invalid-value "" "sort-by 'state/stage/dc' is a leaf of the list 'stage'" "sort-by=state/stage/dc"
badq 400 invalid-value "" "the query's sort-by is empty" "limit=1&sort-by="
badq 416 invalid-value offset-out-of-range "offset 1 is past the end of the list, which has 0 entries" "where=name='nobody'&offset=1"
badq 501 operation-not-supported "" "parameter 'locale'" "sort-by=name&locale=sv_SE"
badq 501 operation-not-supported "" "parameter 'sublist-limit'" "sublist-limit=1"
badq 400 invalid-value "" "the query's cursor 'p2' is not one this server gives: send the value of a page's 'next' or 'previous' annotation" "limit=2&cursor=p2"
badq 400 invalid-value "" "unknown query parameter 'page'" "page=2"
badq 400 invalid-value "" "applies to GET of the jobs list" "limit=1" POST
badq 400 invalid-value "" "a repeated query parameter 'limit'" "limit=1&%6Cimit=2"
badq 400 malformed-message "" "the query's limit has a malformed percent-escape or a control character in its value '%G1': send each escape as '%' and two hex digits (limit=%31 is limit=1)" "limit=%G1"
badq 400 malformed-message "" "in its value '%3': send each escape" "limit=%3"
badq 400 malformed-message "" "in its value '%00': send each escape" "limit=%00"
badq 400 malformed-message "" "the query parameter 'lim%6' has a malformed percent-escape" "lim%6"
badq 400 invalid-value "" "limit '+1' is not a page size" "limit=+1"
badq 400 invalid-value "" "a query parameter without a name: this resource takes only" "=1"
# The list resource refuses as the container does.
res=$JOBS/job
badq 400 invalid-value "" "send a whole number from 1 to 4294967295, or 'unbounded'" "limit=0"
badq 400 invalid-value "" "direction 'up' is not one: send 'forwards'" "direction=up"
badq 416 invalid-value offset-out-of-range "offset 8 is past the end of the list, which has 7 entries: send an offset from 0 to 7" "offset=8"
badq 400 invalid-value "" "the query's cursor 'p2' is not one this server gives: send the value of a page's 'next' or 'previous' annotation" "limit=2&cursor=p2"
badq 400 invalid-value "" "the query's where 'state/phase=' is not an XPath 1.0 expression over a job" "where=state/phase="
badq 400 invalid-value "" "the query's sort-by 'nosuch' is not a leaf of a job" "sort-by=nosuch"
badq 400 invalid-value "" "unknown query parameter 'page'" "page=2"
badq 400 invalid-value "" "a repeated query parameter 'offset'" "%6F%66fset=1&offset=1"
badq 400 malformed-message "" "in its value '%G1': send each escape" "offset=%G1"
res=$JOBS
# GET and HEAD only: a job is submitted to the container, released by
# its own resource.
for m in POST PUT DELETE PATCH; do
    bad 405 operation-not-supported "$m .../jobs/job" $m "$JOBS/job" "$tmp/p.json"
    tr -d '\r' < "$tmp/bad-headers" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
        && ok "$m .../jobs/job: Allow: GET, HEAD, OPTIONS" \
        || notok "$m .../jobs/job: $(cat "$tmp/bad-headers")"
done
curl -s -X OPTIONS -o /dev/null -D "$tmp/opt-headers" -w '%{http_code}' \
    --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL$JOBS/job" > "$tmp/opt"
[ "$(cat "$tmp/opt")" = 204 ] \
    && tr -d '\r' < "$tmp/opt-headers" | grep -q -i '^Allow: GET, HEAD, OPTIONS$' \
    && ok "OPTIONS .../jobs/job: 204, Allow: GET, HEAD, OPTIONS" \
    || notok "OPTIONS .../jobs/job: $(cat "$tmp/opt") $(cat "$tmp/opt-headers")"
# The client: one page, and what follows it.
lr_job() {
    $LIGHTRAIL job "$@" --server "$URL" --token "$TOKEN" \
        --cacert "$D/tls/cert.pem" > "$tmp/cli-out" 2> "$tmp/cli-err"
}
api GET "$JOBS?limit=2&offset=3"
c5=$(nextc "$tmp/body") cp2=$(prevc "$tmp/body")
lr_job list --limit 2 --offset 3
rc=$?
if [ $rc -eq 0 ] && [ "$(awk 'NR > 1 && NF { print $1 }' "$tmp/cli-out" | head -2 | tr '\n' ' ')" = "p3 p4 " ] \
   && [ "$(tail -2 "$tmp/cli-out")" = "2 more job(s): lightrail job list --limit 2 --cursor $c5
next: $c5" ]; then
    ok "lightrail job list --limit 2 --offset 3: p3, p4, then how to list the 2 more, and the next cursor"
else
    notok "job list --limit 2 --offset 3: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
fi
# The page's previous cursor (p2's), printed before the 'more' line (a
# script reading the last two lines reads them as before); a first page
# has none.
[ -n "$cp2" ] && grep -q -x "previous: $cp2" "$tmp/cli-out" \
    && ok "job list --limit 2 --offset 3: 'previous: C', p2's cursor" \
    || notok "job list --offset 3, previous ($cp2): $(cat "$tmp/cli-out" "$tmp/cli-err")"
# The command it printed: the next page, from p5 whatever came before.
intent p00 bert-large 1 > "$tmp/p.json"
api POST $JOBS "$tmp/p.json"
lr_job list --limit 2 --cursor "$(sed -n 's/^next: //p' "$tmp/cli-out")"
rc=$?
api DELETE "$JOBS/job=p00"
[ $rc -eq 0 ] && [ "$(awk 'NR > 1 && NF && $1 != "previous:" { print $1 }' "$tmp/cli-out" | tr '\n' ' ')" = "p5 p6 " ] \
    && grep -q "^previous: " "$tmp/cli-out" \
    && ok "job list --limit 2 --cursor (its next:), a job submitted before: p5, p6, its previous, no 'more' line" \
    || notok "job list --cursor: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --limit 2 --cursor "$c0"
rc=$?
[ $rc -eq 4 ] && grep -q "^lightrail job: 404: the query's cursor '$c0' names a job that is not in the list" "$tmp/cli-err" \
    && ok "job list --cursor of a job deleted: exit 4, the server's reason" \
    || notok "job list --cursor gone: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --limit 2 --offset 5
rc=$?
[ $rc -eq 0 ] && ! grep -q "more job" "$tmp/cli-out" && grep -q "^p6 " "$tmp/cli-out" \
    && ok "job list's last page: no 'more' line" \
    || notok "job list --limit 2 --offset 5: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --limit 2
[ $? -eq 0 ] && ! grep -q "^previous:" "$tmp/cli-out" \
    && ok "job list --limit 2: the first page, no 'previous:'" \
    || notok "job list --limit 2: $(cat "$tmp/cli-out" "$tmp/cli-err")"
# --direction backwards from the previous cursor: the jobs before the
# page, nearest first, and the command for the page before them.
api GET "$JOBS?limit=2&direction=backwards&cursor=$cp2"
cb=$(nextc "$tmp/body") cb3=$(prevc "$tmp/body")
lr_job list --limit 2 --cursor "$cp2" --direction backwards
rc=$?
[ $rc -eq 0 ] && [ "$(awk 'NR > 1 && NF { print $1 }' "$tmp/cli-out" | head -2 | tr '\n' ' ')" = "p2 p1 " ] \
    && [ -n "$cb" ] && [ -n "$cb3" ] \
    && [ "$(tail -3 "$tmp/cli-out")" = "previous: $cb3
1 more job(s): lightrail job list --limit 2 --cursor $cb --direction backwards
next: $cb" ] \
    && ok "job list --cursor (previous) --direction backwards: p2, p1, previous (p3), the command for the one before" \
    || notok "job list --direction backwards: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --limit 2 --direction forwards --offset 5
[ $? -eq 0 ] && [ "$(awk 'NR > 1 && NF { print $1 }' "$tmp/cli-out" | head -2 | tr '\n' ' ')" = "p5 p6 " ] \
    && ok "job list --direction forwards --offset 5: p5, p6" \
    || notok "job list --direction forwards: $(cat "$tmp/cli-out" "$tmp/cli-err")"
# --where and --sort-by, percent-encoded by the client (the expression
# has a space, quotes, '=' and '>'), before --offset and --limit.
lr_job list --where "starts-with(name, 'p') and priority >= 0" --sort-by state/created --limit 2 --offset 1
rc=$?
if [ $rc -eq 0 ] && [ "$(awk 'NR > 1 && NF { print $1 }' "$tmp/cli-out" | head -2 | tr '\n' ' ')" = "p2 p3 " ] \
   && [ "$(tail -2 "$tmp/cli-out" | head -1)" = "3 more job(s): lightrail job list --limit 2 --cursor $(sed -n 's/^next: //p' "$tmp/cli-out") (with the same --where and --sort-by)" ] \
   && [ -n "$(sed -n 's/^next: //p' "$tmp/cli-out")" ]; then
    ok "lightrail job list --where ... --sort-by ... --limit 2 --offset 1: p2, p3, 3 more"
else
    notok "job list --where --sort-by: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
fi
lr_job list --sort-by model
rc=$?
[ $rc -eq 0 ] && [ "$(awk 'NR > 1 && NF { print $1 }' "$tmp/cli-out" | tr '\n' ' ')" = "p1 p2 p3 p4 p5 p6 j1 " ] \
    && ok "job list --sort-by model: the p's (bert-large), then j1" \
    || notok "job list --sort-by model: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --where "state/phase = 'no such phase'"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/cli-out")" = "no jobs" ] \
    && ok "job list --where that nothing matches: 'no jobs'" \
    || notok "job list --where nothing: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
lr_job list --where "state/phase ="
rc=$?
[ $rc -eq 2 ] && grep -q "^lightrail job: 400: .*the query's where 'state/phase =' is not an XPath 1.0 expression over a job" "$tmp/cli-err" \
    && ok "job list --where with a bad expression: exit 2, the server's reason" \
    || notok "job list --where bad: exit $rc, $(cat "$tmp/cli-err")"
lr_job list --sort-by state/nosuch
rc=$?
[ $rc -eq 2 ] && grep -q "^lightrail job: 400: .*the query's sort-by 'state/nosuch' is not a leaf of a job" "$tmp/cli-err" \
    && ok "job list --sort-by of no leaf: exit 2, the server's reason" \
    || notok "job list --sort-by bad: exit $rc, $(cat "$tmp/cli-err")"
lr_job list --offset 8
rc=$?
[ $rc -eq 2 ] && grep -q "^lightrail job: 416: the query's offset 8 is past the end of the list, which has 7 entries" "$tmp/cli-err" \
    && ok "job list --offset 8 of 7: exit 2, the server's reason" \
    || notok "job list --offset 8: exit $rc, $(cat "$tmp/cli-err")"
api GET "$JOBS/job=p1?limit=1"
[ "$STATUS" = 400 ] && ok "GET of one job with limit: 400, as before" \
    || notok "GET one job ?limit: $STATUS $(cat "$tmp/body")"
# Entity-tags of the jobs (RFC 8040 3.4.1.2, 3.5.2; RFC 9110 13): one
# job's is a digest of what its GET sends, a page's of the page sent;
# no Last-Modified (docs/controller.md "Concurrent edits").
# hdr NAME: the value of header NAME in the last answer ($tmp/headers).
hdr() {
    tr -d '\r' < "$tmp/headers" | awk -v n="$1" -F': ' \
        'tolower($1) == tolower(n) { sub(/^[^:]*: /, ""); print }'
}
api GET "$JOBS/job=p1"
p1_tag=$(hdr ETag)
[ "$STATUS" = 200 ] && printf '%s\n' "$p1_tag" | grep -q -x '"[0-9a-f]\{32\}"' \
    && [ -z "$(hdr Last-Modified)" ] \
    && ok "GET one job: 200, ETag $p1_tag, no Last-Modified" \
    || notok "GET one job: $STATUS, $(cat "$tmp/headers")"
api GET "$JOBS/job=p1"
[ "$STATUS" = 200 ] && [ "$(hdr ETag)" = "$p1_tag" ] \
    && ok "GET the job again, nothing changed: the same ETag" \
    || notok "GET the job again: $STATUS, ETag $(hdr ETag), first $p1_tag"
curl -s -I --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL$JOBS/job=p1" > "$tmp/headers"
[ "$(hdr ETag)" = "$p1_tag" ] \
    && ok "HEAD of the job: the same ETag" \
    || notok "HEAD of the job: $(cat "$tmp/headers")"
api GET "$JOBS/job=p2"
[ "$STATUS" = 200 ] && [ -n "$(hdr ETag)" ] && [ "$(hdr ETag)" != "$p1_tag" ] \
    && ok "another job: another ETag" \
    || notok "GET p2: $STATUS, ETag '$(hdr ETag)' (p1's $p1_tag)"
# not_modified_at PATH TAG: a GET of PATH with If-None-Match: TAG is
# 304, no body, no Content-Type, the ETag TAG.
not_modified_at() {
    rm -f "$tmp/body"     # curl makes no file of an answer without a body
    API_HEADER="If-None-Match: $2" api GET "$1"
    if [ "$STATUS" = 304 ] && [ ! -s "$tmp/body" ] && [ "$(hdr ETag)" = "$2" ] \
       && ! grep -q -i '^Content-Type' "$tmp/headers"; then
        ok "GET ${1#$JOBS} with If-None-Match of its tag: 304, no body, the ETag"
    else
        notok "GET ${1#$JOBS} with If-None-Match: $2: $STATUS, $(cat "$tmp/headers")"
    fi
}
not_modified_at "$JOBS/job=p1" "$p1_tag"
for h in 'If-None-Match: "x"' 'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT'; do
    API_HEADER=$h api GET "$JOBS/job=p1"
    [ "$STATUS" = 200 ] && [ "$(hdr ETag)" = "$p1_tag" ] && [ -s "$tmp/body" ] \
        && ok "GET of the job with $h: 200 with the body" \
        || notok "GET of the job with $h: $STATUS"
done
# A page's tag: the page's own.
api GET "$JOBS?limit=2"
page0=$(hdr ETag)
api GET "$JOBS?limit=2&offset=3"
page3=$(hdr ETag)
api GET "$JOBS?limit=2&offset=3"
[ -n "$page0" ] && [ -n "$page3" ] && [ "$page0" != "$page3" ] \
    && [ "$(hdr ETag)" = "$page3" ] \
    && ok "pages of the jobs: an ETag each, the same one twice" \
    || notok "page ETags: $page0, $page3, again $(hdr ETag)"
not_modified_at "$JOBS?limit=2" "$page0"
api GET "$JOBS/job?limit=2"
list0=$(hdr ETag)
[ "$STATUS" = 200 ] && [ -n "$list0" ] \
    && ok ".../jobs/job?limit=2: ETag $list0" \
    || notok ".../jobs/job?limit=2: $STATUS $(cat "$tmp/headers")"
not_modified_at "$JOBS/job?limit=2" "$list0"
# p1 deleted and submitted again with more GPUs: another job text,
# another tag; a DELETE with the old one is 412, the job stays.
api DELETE "$JOBS/job=p1"
intent p1 bert-large 2 > "$tmp/p.json"
api POST $JOBS "$tmp/p.json"
api GET "$JOBS/job=p1"
p1_new=$(hdr ETag)
[ "$STATUS" = 200 ] && [ -n "$p1_new" ] && [ "$p1_new" != "$p1_tag" ] \
    && ok "the job deleted and submitted again: a new ETag" \
    || notok "p1 again: $STATUS, ETag '$p1_new' (before $p1_tag)"
API_HEADER="If-Match: $p1_tag" \
    bad 412 operation-failed "DELETE of a job with the tag it had before" DELETE "$JOBS/job=p1"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("changed since the entity-tag in If-Match was read: GET the resource again")' \
    "$tmp/bad-body" > /dev/null \
    && ok "the job's 412 says to GET it again" \
    || notok "DELETE with a stale If-Match says: $(cat "$tmp/bad-body")"
api GET "$JOBS/job=p1"
[ "$STATUS" = 200 ] && [ "$(hdr ETag)" = "$p1_new" ] \
    && ok "after the 412 the job is there, its tag unchanged" \
    || notok "after the 412: $STATUS, ETag $(hdr ETag)"
# The client: show prints the server's tag last (--format json the
# server's JSON alone); delete --if-match with the old tag exits 3 with
# the server's 412 and what to do, nothing changed.
lr_job show p1
rc=$?
api GET "$JOBS/job=p1"
[ $rc -eq 0 ] && grep -q '^job p1: ' "$tmp/cli-out" \
    && [ "$(tail -n 1 "$tmp/cli-out")" = "etag: $(hdr ETag)" ] \
    && ok "lightrail job show: the server's ETag last ($(hdr ETag))" \
    || notok "job show p1: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err") (ETag $(hdr ETag))"
lr_job show p1 --format json
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/cli-err" ] \
    && [ "$(jq -S . "$tmp/cli-out")" = "$(jq -S . "$tmp/body")" ] \
    && ok "lightrail job show --format json: the server's JSON alone" \
    || notok "job show p1 --format json: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err")"
before=$(snapshot)
lr_job delete p1 --if-match "$p1_tag"
rc=$?
after=$(snapshot)
api GET "$JOBS/job=p1"
[ $rc -eq 3 ] && [ ! -s "$tmp/cli-out" ] \
    && grep -q "^lightrail job: 412: the resource changed since the entity-tag in If-Match was read" "$tmp/cli-err" \
    && grep -q "^lightrail job: job p1 was not deleted: lightrail job show p1 for" "$tmp/cli-err" \
    && [ "$before" = "$after" ] && [ "$STATUS" = 200 ] && [ "$(hdr ETag)" = "$p1_new" ] \
    && ok "lightrail job delete --if-match of the old tag: exit 3, the 412's words, p1 there, nothing changed" \
    || notok "job delete p1 --if-match stale: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err"), changed: $([ "$before" = "$after" ] && echo no || echo yes), GET $STATUS"
API_HEADER="If-None-Match: $p1_tag" api GET "$JOBS/job=p1"
[ "$STATUS" = 200 ] && [ -s "$tmp/body" ] \
    && ok "GET with If-None-Match of the old tag: 200 with the body" \
    || notok "GET with the old tag: $STATUS"
api GET "$JOBS?limit=2"
[ "$(hdr ETag)" != "$page0" ] \
    && ok "the first page (j1, p1): a new ETag" \
    || notok "the first page kept its ETag $page0"
api GET "$JOBS?limit=2&offset=3"
[ "$(hdr ETag)" = "$page3" ] \
    && ok "the page of p3 and p4: its ETag unchanged (the page's, not the list's)" \
    || notok "the page p3, p4: ETag $(hdr ETag), before $page3"
API_HEADER="If-Match: $p1_new" api DELETE "$JOBS/job=p1"
del=$STATUS
api GET "$JOBS/job=p1"
[ "$del" = 204 ] && [ "$STATUS" = 404 ] \
    && ok "DELETE with If-Match of the job's tag: 204, gone" \
    || notok "DELETE with the tag: $del, then GET $STATUS"
lr_job delete p1 --if-match "$p1_new"
rc=$?
[ $rc -eq 4 ] && grep -q "^lightrail job: 404: no job named 'p1'" "$tmp/cli-err" \
    && ok "lightrail job delete --if-match of a job gone: exit 4, 404 as without it" \
    || notok "job delete p1 gone --if-match: exit $rc, $(cat "$tmp/cli-err")"
# No current representation: the DELETE would be 404 without the
# precondition, and 404 it stays (RFC 9110 13.2.1).
API_HEADER='If-Match: *' \
    bad 404 invalid-value "DELETE of a job that is not there with If-Match: *" DELETE "$JOBS/job=p1"
# The POST has no tag to match.
intent p9 bert-large 1 > "$tmp/p.json"
API_HEADER='If-Match: "x"' \
    bad 412 operation-failed "POST of a job with If-Match" POST $JOBS "$tmp/p.json"
# The client with the tag show printed (its quotes off): deleted.
lr_job show p2
p2_tag=$(sed -n 's/^etag: //p' "$tmp/cli-out")
lr_job delete p2 --if-match "$(printf '%s' "$p2_tag" | tr -d '"')"
rc=$?
api GET "$JOBS/job=p2"
[ -n "$p2_tag" ] && [ $rc -eq 0 ] && [ "$(cat "$tmp/cli-out")" = "job p2 deleted" ] \
    && [ "$STATUS" = 404 ] \
    && ok "lightrail job delete --if-match of show's tag (unquoted): deleted" \
    || notok "job delete p2 --if-match $p2_tag: exit $rc, $(cat "$tmp/cli-out" "$tmp/cli-err"), GET $STATUS"
# content=config and running build the jobs without their state, which
# the cut drops: each answer is jq's cut of the whole (every state
# deleted), for fields, depth, with-defaults and the pages (their
# annotations kept), on jobs active (lightpaths, stages) and blocked
# (a reason); a where on state still selects under operational.
intent pb llama2-70b 1 > "$tmp/pb.json"
api POST $JOBS "$tmp/pb.json"
ck "$JOBS" '[."lightrail-job:jobs".job[].state | select(.lightpath and .stage)] | length > 0' \
    "a job with lightpaths and stages"
ck "$JOBS" '[."lightrail-job:jobs".job[].state | select(.phase == "blocked" and .reason)] | length > 0' \
    "a blocked job with its reason"
NOSTATE='walk(if type == "object" then del(.state) else . end)'
# cfg_cut PATH QUERY [oper]: PATH?QUERY with content=config, under
# /restconf/data and operational, and PATH?QUERY under running (unless
# 'oper': a where on state), against jq's cut of PATH?QUERY.
cfg_cut() {
    api GET "$1${2:+?$2}"; jq -cS "$NOSTATE" "$tmp/body" > "$tmp/cfg-want"
    sub=${1#/restconf/data/}
    ck "$1?${2:+$2&}content=config" ". == $(cat "$tmp/cfg-want")" "the whole's cut, no state"
    ck "$OPER/$sub?${2:+$2&}content=config" ". == $(cat "$tmp/cfg-want")" "the whole's cut, no state"
    [ "${3:-}" = oper ] \
        || ck "$RUN/$sub${2:+?$2}" ". == $(cat "$tmp/cfg-want")" "the whole's cut, no state"
}
cfg_cut $JOBS ''
cfg_cut $JOBS 'depth=3'
cfg_cut $JOBS 'fields=job(name;state/phase;gpus)'
cfg_cut $JOBS 'with-defaults=report-all'
cfg_cut $JOBS 'with-defaults=trim&depth=2'
cfg_cut $JOBS 'with-defaults=report-all-tagged'
cfg_cut $JOBS 'limit=2&offset=2&fields=job(model)'
cfg_cut $JOBS/job 'limit=2&offset=1'
cfg_cut $JOBS/job 'limit=1&offset=3&direction=backwards&with-defaults=report-all'
cfg_cut $J1 ''
cfg_cut $J1 'fields=state;model&with-defaults=report-all-tagged'
cfg_cut $JOBS/job "where=state/phase='blocked'&sort-by=state/created&limit=1" oper
cfg_cut $JOBS "where=count(state/lightpath)>0&limit=1" oper
api GET "$JOBS/job?where=state/phase='blocked'&limit=1&content=config"
jq -e '."lightrail-job:job" | length == 1 and (.[0] | has("state") | not) and (.[0]."@"."lightrail-job:remaining" // 0) >= 0' "$tmp/body" > /dev/null \
    && ok "a where on state with content=config: a blocked job, its state not sent" \
    || notok "where on state, content=config: $STATUS $(head -c 300 "$tmp/body")"
api GET "$DS?with-defaults=report-all"; jq -cS "$CFG" "$tmp/body" > "$tmp/cfg-want"
ck "$DS?with-defaults=report-all&content=config" ". == $(cat "$tmp/cfg-want")" "the whole's cut"
ck "$RUN?with-defaults=report-all" ". == $(cat "$tmp/cfg-want")" "the whole's cut"
# fields= that selects nothing of a job's state builds the jobs without
# it (docs/controller.md "Fields"): each answer is the same query with
# the state added to its fields, that state deleted by jq, for the
# container, the list, one job, operational and the datastore, with
# depth, with-defaults, a page and a where on state (which selects as
# before); fields naming the state print it.
# fld_cut PATH FIELDS FIELDS-WITH-STATE [QUERY]
fld_cut() {
    api GET "$1?fields=$3${4:+&$4}"
    jq -cS "$NOSTATE" "$tmp/body" > "$tmp/fld-want"
    ck "$1?fields=$2${4:+&$4}" ". == $(cat "$tmp/fld-want")" \
        "as with its state asked, the state deleted"
}
fld_cut $JOBS 'job/name' 'job(name;state)'
fld_cut $JOBS 'job(name;priority)' 'job(name;priority;state)' 'depth=2'
fld_cut $JOBS 'job(name;priority)' 'job(name;priority;state)' \
    'with-defaults=report-all'
fld_cut $JOBS 'job/gpus' 'job(gpus;state)' 'limit=2&offset=1'
fld_cut $JOBS 'job/model' 'job(model;state)' "where=state/phase='blocked'&limit=1"
fld_cut $JOBS/job 'name;priority' 'name;priority;state' \
    'limit=1&offset=2&with-defaults=trim'
fld_cut $J1 'model;gpus' 'model;gpus;state' 'with-defaults=report-all-tagged'
fld_cut $OPER/lightrail-job:jobs 'job/name' 'job(name;state)'
fld_cut $DS 'lightrail-job:jobs/job/name' 'lightrail-job:jobs/job(name;state)'
ck "$JOBS?fields=job/state/phase" '."lightrail-job:jobs".job | length > 2 and all(keys == ["name", "state"] and (.state | keys == ["phase"]))' \
    "every job's phase"
ck "$JOBS?fields=job(name;state)" '."lightrail-job:jobs".job | length > 2 and all(keys == ["name", "state"] and (.state.phase | type == "string")) and any(.state.lightpath)' \
    "every job's state, lightpaths too"
ck "$JOBS/job?fields=state/phase&limit=1&where=state/phase='blocked'" '."lightrail-job:job" | length == 1 and .[0].state == {"phase": "blocked"}' \
    "the blocked job's phase"
ck "$DS?fields=lightrail-job:jobs/job(name;state/reason)" '[."lightrail-job:jobs".job[] | select(.state.reason)] | length > 0' \
    "a blocked job's reason"
api DELETE "$JOBS/job=pb"
for i in 1 2 3 4 5 6; do
    api DELETE "$JOBS/job=p$i"
done

# A job with channels on the devices: a DELETE with a tag it does not
# have is 412, the job, the stores and the devices as they were; with
# its tag, the channels leave the devices.
api GET "$JOBS/job=j1"
j1_tag=$(hdr ETag)
API_HEADER='If-Match: "stale"' \
    bad 412 operation-failed "DELETE of a job with If-Match: \"stale\"" DELETE "$JOBS/job=j1"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("the resource changed since the entity-tag in If-Match was read")' \
    "$tmp/bad-body" > /dev/null \
    && ok "the 412 says the job changed and what to send" \
    || notok "DELETE with a stale If-Match says: $(cat "$tmp/bad-body")"
API_HEADER='If-None-Match: *' \
    bad 412 operation-failed "DELETE of a job with If-None-Match: *" DELETE "$JOBS/job=j1"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("the resource exists, .*send the request without If-None-Match to delete it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "If-None-Match: * on a DELETE: the 412 says to leave it out to delete" \
    || notok "DELETE with If-None-Match: * says: $(cat "$tmp/bad-body")"

# The client with a tag j1 does not have: exit 3, j1, the store and
# the devices as they were.
before=$(snapshot)
lr_job delete j1 --if-match '"0123456789abcdef0123456789abcdef"'
rc=$?
after=$(snapshot)
[ $rc -eq 3 ] && grep -q "^lightrail job: 412: " "$tmp/cli-err" \
    && grep -q "job j1 was not deleted" "$tmp/cli-err" && [ "$before" = "$after" ] \
    && grep -q '"j1/' "$D/state/devices"/*.json \
    && ok "lightrail job delete j1 --if-match of another tag: exit 3, j1 and its channels kept" \
    || notok "job delete j1 stale: exit $rc, $(cat "$tmp/cli-err"), changed: $([ "$before" = "$after" ] && echo no || echo yes)"
# Delete: the channels leave the devices.
API_HEADER="If-Match: $j1_tag" api DELETE "$JOBS/job=j1"
if [ "$STATUS" = 204 ] && ! grep -q '"j1/' "$D/state/devices"/*.json; then
    ok "DELETE: 204, no channel left on any device"
else
    notok "DELETE: $STATUS"
fi

# A topology with new nodes, one of which the dummy driver cannot name
# (a file name): 400, and no device file made for the others.
jq '."ietf-network:networks".network[0].node += [{"node-id":"new1"},{"node-id":"bad/name"}]' \
    "$srcdir/examples/topologies/metro.json" > "$tmp/newnodes.json"
bad 400 invalid-value "PUT of a topology with a node the driver refuses" \
    PUT /restconf/data/ietf-network:networks "$tmp/newnodes.json"
[ ! -e "$D/state/devices/new1.json" ] && ok "no device file for the refused network's new node" \
    || notok "the refused network left $D/state/devices/new1.json"

NET=/restconf/data/ietf-network:networks
INV=/restconf/data/lightrail-compute:compute
# A topology or an inventory holds its own module's data only: another
# module's top-level node beside it (ietf-yang-library's state, which the
# YANG context implements; jobs; the other document) is 400 naming it,
# nothing changed, and the store does not keep it (read with the daemon
# stopped: it locks the store while it runs).
lib='"ietf-yang-library:yang-library":{"content-id":"x"}'
mods='"ietf-yang-library:modules-state":{"module-set-id":"x"}'
# foreign WHAT RESOURCE DOCUMENT EXTRA-MEMBERS NODE HOLDER MODULE (NODE a
# regular expression)
foreign() {
    jq -c ". + {$4}" "$3" > "$tmp/foreign.json"
    bad 400 invalid-value "$1" PUT "$2" "$tmp/foreign.json"
    want="body: /$5: $6 holds $7 data only: its one top-level member is"
    jq -e --arg w "$want" '."ietf-restconf:errors".error[0]."error-message" | test("^" + $w)' \
        "$tmp/bad-body" > /dev/null \
        && ok "$1: the error names /$5 and what the body holds" \
        || notok "$1: $(cat "$tmp/bad-body")"
}
topo="$srcdir/examples/topologies/metro.json"
inv="$srcdir/examples/clusters/metro.json"
foreign "PUT topology with the YANG library's state" $NET "$topo" "$lib,$mods" \
    "ietf-yang-library:[a-z-]*" "a topology" ietf-network
foreign "PUT topology with yang-library" $NET "$topo" "$lib" \
    ietf-yang-library:yang-library "a topology" ietf-network
foreign "PUT topology with modules-state" $NET "$topo" "$mods" \
    ietf-yang-library:modules-state "a topology" ietf-network
foreign "PUT topology with the inventory" $NET "$topo" \
    "$(jq -c '."lightrail-compute:compute"' "$inv" | sed 's/^/"lightrail-compute:compute":/')" \
    lightrail-compute:compute "a topology" ietf-network
foreign "PUT topology with jobs" $NET "$topo" '"lightrail-job:jobs":{}' \
    lightrail-job:jobs "a topology" ietf-network
foreign "PUT inventory with the YANG library's state" $INV "$inv" "$lib,$mods" \
    "ietf-yang-library:[a-z-]*" "an inventory" lightrail-compute
foreign "PUT inventory with jobs" $INV "$inv" '"lightrail-job:jobs":{}' \
    lightrail-job:jobs "an inventory" lightrail-compute
foreign "PUT inventory with the topology" $INV "$inv" \
    "$(jq -c '."ietf-network:networks"' "$topo" | sed 's/^/"ietf-network:networks":/')" \
    ietf-network:networks "an inventory" lightrail-compute
api GET $NET
cp "$tmp/body" "$tmp/net-before-stop"
stop_daemon
n=$(sqlite3 "$D/state/lightrail.db" \
    "SELECT count(*) FROM docs WHERE key IN ('topology', 'cluster') AND (json LIKE '%yang-library%' OR json LIKE '%lightrail-job:%' OR (key = 'topology' AND json LIKE '%lightrail-compute:compute%') OR (key = 'cluster' AND json LIKE '%ietf-network:%'))")
[ "$n" = 0 ] && ok "the store's topology and inventory hold no foreign node" \
    || notok "the store holds $n document(s) with a foreign node"
# A store an older lightraild wrote, which took a topology with another
# module's member beside it and stored the body as sent: the start drops
# the member (never read) rather than refuse the store (lr_stored.c).
sqlite3 "$D/state/lightrail.db" "UPDATE docs SET json = json_insert(json, '\$.\"lightrail-job:jobs\"', json('{}')) WHERE key = 'topology'"
n=$(sqlite3 "$D/state/lightrail.db" "SELECT count(*) FROM docs WHERE key = 'topology' AND json LIKE '%lightrail-job:jobs%'")
start_daemon || notok "no restart"
api GET $NET
if [ "$n" = 1 ] && [ "$STATUS" = 200 ] && cmp -s "$tmp/body" "$tmp/net-before-stop"; then
    ok "a stored topology with a foreign member (an older lightraild's) starts, the member dropped"
else
    notok "stored topology with a foreign member ($n stored): GET $STATUS: $(head -c 300 "$tmp/body")"
fi

# Concurrent edits (RFC 8040 3.4.1.2, 3.4.1.3, 3.5.2; RFC 9110 13): the
# topology and the inventory carry a strong ETag and a Last-Modified; a
# PUT whose If-Match (If-Unmodified-Since) no longer holds is 412 and
# changes nothing; a GET whose If-None-Match (If-Modified-Since) holds
# is 304 without a body.
# hdr NAME: above.
# The topology's date is the start's (the store keeps none), sent once
# that second has passed: no Last-Modified in the second of a change.
for i in $(seq 1 50); do
    api GET $NET
    [ -n "$(hdr Last-Modified)" ] && break
    sleep 0.1
done
etag=$(hdr ETag) lm=$(hdr Last-Modified)
if printf '%s\n' "$etag" | grep -q -x '"[0-9a-f]\{32\}"' \
   && printf '%s\n' "$lm" | grep -q -x '[A-Z][a-z][a-z], [0-9][0-9] [A-Z][a-z][a-z] [0-9]\{4\} [0-9:]\{8\} GMT'; then
    ok "GET topology: ETag $etag, Last-Modified $lm"
else
    notok "GET topology: ETag '$etag', Last-Modified '$lm': $(cat "$tmp/headers")"
fi
[ "$etag" = "$(cat "$tmp/etag-busy")" ] \
    && ok "the topology's ETag is the same with a job active and without" \
    || notok "topology ETag with a job $(cat "$tmp/etag-busy"), without $etag"
curl -s -I --cacert "$D/tls/cert.pem" -H "Authorization: Bearer $TOKEN" \
    "$URL$NET" > "$tmp/headers"
[ "$(hdr ETag)" = "$etag" ] && [ "$(hdr Last-Modified)" = "$lm" ] \
    && ok "HEAD topology: the same ETag and Last-Modified" \
    || notok "HEAD topology: $(cat "$tmp/headers")"
api GET $INV
inv_etag=$(hdr ETag)
[ -n "$inv_etag" ] && [ "$inv_etag" != "$etag" ] \
    && ok "GET inventory: an ETag of its own ($inv_etag)" \
    || notok "GET inventory: ETag '$inv_etag' (topology's $etag)"
# not_modified HEADER: a GET of the topology with HEADER is 304, no body,
# the ETag.
not_modified() {
    rm -f "$tmp/body"     # curl makes no file of an answer without a body
    API_HEADER=$1 api GET $NET
    if [ "$STATUS" = 304 ] && [ ! -s "$tmp/body" ] && [ "$(hdr ETag)" = "$etag" ] \
       && ! grep -q -i '^Content-Type' "$tmp/headers"; then
        ok "GET topology with $1: 304, no body, the ETag"
    else
        notok "GET topology with $1: $STATUS, ETag '$(hdr ETag)', $(cat "$tmp/body")"
    fi
}
not_modified "If-None-Match: $etag"
not_modified "If-None-Match: \"x\", W/$etag"
not_modified "If-None-Match: *"
not_modified "If-Modified-Since: $lm"
for h in 'If-None-Match: "x"' 'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT' \
         'If-Modified-Since: not a date'; do
    API_HEADER=$h api GET $NET
    [ "$STATUS" = 200 ] && [ "$(hdr ETag)" = "$etag" ] && [ -s "$tmp/body" ] \
        && ok "GET topology with $h: 200 with the body" \
        || notok "GET topology with $h: $STATUS"
done
# A second operator's PUT: a tag or a date the topology no longer has.
jq '(."ietf-network:networks".network[0].node[] | select(."node-id" == "r1")
     | ."lightrail-topology:roadm".description) = "north, edited"' \
    "$srcdir/examples/topologies/metro.json" > "$tmp/edit.json"
API_HEADER='If-Match: "0123456789abcdef0123456789abcdef"' \
    bad 412 operation-failed "PUT topology with If-Match of another tag" PUT $NET "$tmp/edit.json"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("changed since the entity-tag in If-Match was read: GET the resource again")' \
    "$tmp/bad-body" > /dev/null \
    && ok "412: the message says to GET the resource again" \
    || notok "412 message: $(cat "$tmp/bad-body")"
API_HEADER="If-Match: W/$etag" \
    bad 412 operation-failed "PUT topology with If-Match of the weak tag" PUT $NET "$tmp/edit.json"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("a weak entity-tag .W/....* never matches If-Match: send the ETag exactly as the GET gave it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "the weak tag's 412 says to send the tag as the GET gave it" \
    || notok "weak If-Match says: $(cat "$tmp/bad-body")"
API_HEADER='If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT' \
    bad 412 operation-failed "PUT topology with If-Unmodified-Since before its change" PUT $NET "$tmp/edit.json"
API_HEADER='If-None-Match: *' \
    bad 412 operation-failed "PUT topology with If-None-Match: *" PUT $NET "$tmp/edit.json"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("the resource exists, and If-None-Match: [*] lets a request only create one: send the request without If-None-Match to replace it")' \
    "$tmp/bad-body" > /dev/null \
    && ok "If-None-Match: *'s 412 says the resource exists, leave it out" \
    || notok "If-None-Match: * says: $(cat "$tmp/bad-body")"
API_HEADER="If-Match: ${etag#?}" \
    bad 400 invalid-value "PUT topology with an unquoted If-Match" PUT $NET "$tmp/edit.json"
jq -e '."ietf-restconf:errors".error[0]."error-message"
       | test("If-Match is neither .*: send the ETag a GET of the resource answered")' \
    "$tmp/bad-body" > /dev/null \
    && ok "400: the message says what to send" \
    || notok "400 message: $(cat "$tmp/bad-body")"
# Two If-Match lines are one list (RFC 9110 5.3): the second's tag
# counts, a stale first line alone does not refuse the PUT.  The list
# of two stale tags on two lines is 412.
curl -s -o "$tmp/two" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/yang-data+json' \
    -H 'If-Match: "x"' -H "If-Match: $etag" -X GET -H "If-None-Match: \"y\"" \
    -H "If-None-Match: $etag" "$URL$NET" > "$tmp/st"
[ "$(cat "$tmp/st")" = 304 ] \
    && ok "If-Match and If-None-Match on two lines each: one list each (304)" \
    || notok "two lines each: $(cat "$tmp/st") $(cat "$tmp/two")"
before=$(snapshot)
curl -s -o "$tmp/two" -w '%{http_code}' --cacert "$D/tls/cert.pem" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/yang-data+json' \
    -H 'If-Match: "x"' -H 'If-Match: "y"' -X PUT --data-binary @"$tmp/edit.json" \
    "$URL$NET" > "$tmp/st"
[ "$(cat "$tmp/st")" = 412 ] && [ "$before" = "$(snapshot)" ] \
    && ok "two If-Match lines of stale tags: 412, nothing changed" \
    || notok "two stale If-Match lines: $(cat "$tmp/st") $(cat "$tmp/two")"
# The tag it has: applied, and the answer has the new tag.
API_HEADER="If-Match: \"x\", $etag" api PUT $NET "$tmp/edit.json"
new=$(hdr ETag)
# No Last-Modified of the second the answer is sent in (its Date): a
# change later in that second would have the same date, and a GET with
# If-Modified-Since of it would be a false 304.  The ETag tells.
# no_fresh_date: the last answer has no Last-Modified equal to its Date.
no_fresh_date() {
    [ -z "$(hdr Last-Modified)" ] || [ "$(hdr Last-Modified)" != "$(hdr Date)" ]
}
if [ "$STATUS" = 204 ] && [ -n "$new" ] && [ "$new" != "$etag" ] && no_fresh_date; then
    ok "PUT topology with If-Match of its tag: 204, the new ETag $new, no Last-Modified of this second"
else
    notok "PUT topology with If-Match: $STATUS, ETag '$new': $(cat "$tmp/headers" "$tmp/body")"
fi
api GET $NET
[ "$(hdr ETag)" = "$new" ] && no_fresh_date \
    && jq -e '."ietf-network:networks".network[0].node[] | select(."node-id" == "r1")
              | ."lightrail-topology:roadm".description == "north, edited"' "$tmp/body" > /dev/null \
    && ok "GET topology after it: the edit, the ETag the PUT gave, no Last-Modified of this second" \
    || notok "GET after the PUT: ETag $(hdr ETag) (PUT's $new): $(cat "$tmp/headers")"
# From the next second on, the change's date is sent, and a GET with it
# in If-Modified-Since is 304 (polled: no duration asserted).
for i in $(seq 50); do
    api GET $NET
    lm_new=$(hdr Last-Modified)
    [ -n "$lm_new" ] && break
    sleep 0.1
done
[ -n "$lm_new" ] && [ "$lm_new" != "$lm" ] && [ "$lm_new" != "$(hdr Date)" ] \
    && ok "GET topology a second after the PUT: Last-Modified $lm_new" \
    || notok "no Last-Modified after the PUT's second: $(cat "$tmp/headers")"
etag_before=$etag etag=$new
not_modified "If-Modified-Since: $lm_new"
etag=$etag_before
# The other operator, with the tag read before: 412, the edit stays.
cp "$srcdir/examples/topologies/metro.json" "$tmp/orig.json"
API_HEADER="If-Match: $etag" \
    bad 412 operation-failed "the second PUT with the tag read before the first" PUT $NET "$tmp/orig.json"
API_HEADER='If-Match: *' api PUT $NET "$tmp/orig.json"
[ "$STATUS" = 204 ] && [ "$(hdr ETag)" = "$etag" ] \
    && ok "PUT topology with If-Match: *: 204, the first text's tag again" \
    || notok "PUT with If-Match *: $STATUS, ETag $(hdr ETag) (want $etag)"

# With no job left, a new inventory (dc1 grows to 20 devices) is taken,
# and it survives a restart: the store, not the file, holds it now; so
# does its ETag.
jq '."lightrail-compute:compute".dc[0]."device-count" = 20' "$srcdir/examples/clusters/metro.json" > "$tmp/inv.json"
API_HEADER="If-Match: $inv_etag" api PUT /restconf/data/lightrail-compute:compute "$tmp/inv.json"
inv_new=$(hdr ETag)
[ "$STATUS" = 204 ] && [ -n "$inv_new" ] && [ "$inv_new" != "$inv_etag" ] \
    && ok "PUT inventory with If-Match: 204, a new ETag" \
    || notok "PUT inventory: $STATUS $(cat "$tmp/headers" "$tmp/body")"
stop_daemon
start_daemon || notok "no restart"
# The same modules: the same content-id, whatever else changed.
api GET $YL
[ "$(jq -r '."ietf-yang-library:yang-library"."content-id"' "$tmp/body")" \
  = "$(jq -r '."ietf-yang-library:yang-library"."content-id"' "$tmp/yl")" ] \
    && ok "yang-library: the same content-id after a restart and a new inventory" \
    || notok "yang-library content-id changed: $(jq -c . "$tmp/body")"
api GET /restconf/data/lightrail-compute:compute
if [ "$STATUS" = 200 ] && jq -e '."lightrail-compute:compute".dc[0]."device-count" == 20' "$tmp/body" > /dev/null; then
    ok "the new inventory survives a restart"
else
    notok "inventory after restart: $STATUS $(cat "$tmp/body")"
fi
[ "$(hdr ETag)" = "$inv_new" ] \
    && ok "the inventory's ETag survives a restart" \
    || notok "inventory ETag after restart: $(hdr ETag), before $inv_new"

# Running's datastore whole, built without the state and cut once by
# the query (h_ds()): with report-all-tagged it is its members' own
# answers side by side, defaults tagged, no job's state; content
# nonconfig keeps nothing of it.
: > "$tmp/run-members"
for m in ietf-network:networks lightrail-compute:compute lightrail-job:jobs; do
    api GET "$RUN/$m?with-defaults=report-all-tagged"
    [ "$STATUS" = 200 ] && cat "$tmp/body" >> "$tmp/run-members"
done
ck "$RUN?with-defaults=report-all-tagged" ". == $(jq -cs add "$tmp/run-members") and ([paths(. == {\"ietf-netconf-with-defaults:default\": true})] | length > 0) and ([paths] | map(select(.[-1] == \"state\")) | length == 0)" \
    "its members' answers, defaults tagged, no state"
ck "$RUN?content=nonconfig&with-defaults=report-all" '. == {}' \
    "no state in running with report-all: {}"

# The server judges each error body it sends (this daemon has sent some
# since its start: the 404s above) and counts those yang-errors refuses.
api GET /metrics "" ""
grep -q '^lightrail_http_error_bodies_invalid_total 0$' "$tmp/body" \
    && ok "/metrics: lightrail_http_error_bodies_invalid_total 0" \
    || notok "metrics, invalid error bodies: $(grep error_bodies "$tmp/body")"

# SIGTERM: a clean stop, then the state is whole.
stop_daemon
check_store "state consistent after stop"

# A TLS key that is another certificate's: lightraild says so and does
# not start, exit 2 before anything is made (lightraild(8)).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$D/tls/other-key.pem" -out "$D/tls/other-cert.pem" -days 1 \
    -subj /CN=other 2>/dev/null
jq '.["lightrail-config:lightraild"].listen.key = "tls/other-key.pem"
    | .["lightrail-config:lightraild"]["state-dir"] = "state-wrongkey"' \
    "$D/lightraild.json" > "$D/wrongkey.json"
# Every error body every lightraild of this run sent was checked
# against ietf-restconf's yang-errors (RFC 8040 7.1, 8): none refused.
if grep -q "error body invalid" "$D/log"; then
    notok "error bodies not valid against yang-errors: $(grep -c "error body invalid" "$D/log"): $(grep "error body invalid" "$D/log" | head -5)"
else
    ok "every error body sent is ietf-restconf's yang-errors: lightraild's log has no 'error body invalid'"
fi
$LIGHTRAILD --config "$D/wrongkey.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "TLS key '.*other-key.pem' does not match certificate '.*cert.pem'" "$tmp/err" \
   && [ ! -e "$D/state-wrongkey" ]; then
    ok "a TLS key of another certificate: exit $rc, $(tail -1 "$tmp/err")"
else
    notok "wrong TLS key: exit $rc, $(cat "$tmp/err")"
fi
lr_summary
