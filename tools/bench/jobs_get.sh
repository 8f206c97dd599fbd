#!/bin/sh
# The GET of every job, against a lightraild of our own (dummy ROADMs,
# the metro example) on 127.0.0.1 holding JOBS jobs:
#     tools/bench/jobs_get.sh [JOBS] [RUNS] [LIMIT]
# Submits JOBS intents (the first ones admitted, the rest blocked: no
# spectrum or devices left), then GETs the jobs RUNS times, one at a
# time (the whole list).  Prints the jobs, the body's bytes and the
# median and slowest GET in seconds: that long, lightraild's loop serves
# no other client.  With LIMIT, a second row: RUNS GETs of a page of
# LIMIT jobs from the middle of the list (?limit=LIMIT&offset=JOBS/2);
# then a page of LIMIT of the blocked jobs (where=), of the jobs by
# their creation time (sort-by=), and of the jobs by name cut to their
# intent (content=config) and to two levels (depth=2); then offset
# against cursor from the same job, the middle one: a page of LIMIT
# backwards from offset JOBS/2, and forwards and backwards from the
# cursor of the job at offset JOBS/2 (the next cursor of the page of
# one before it).
# With DATASTORE=1 in the environment, three rows of RUNS GETs of the
# datastore, /restconf/data: whole, with fields naming the topology's
# network ids, and with content=config.  With FIELDS=1, three rows of
# RUNS GETs of every job cut by fields: to their names
# (fields=job/name), to their names and priorities
# (fields=job(name;priority)), and to their phases (fields=job/state/
# phase, which needs the state).  With DEPTH=1, three rows of RUNS GETs
# of every job cut by depth alone: depth=2 (the container, its jobs'
# keys: no state), depth=3 (each job's state an empty container: built)
# and the list resource with depth=1 (no state).  With RUNNING=1, four
# rows of RUNS GETs of running's jobs: plain, with-defaults=explicit
# (both sent as built, without the state), fields=job/name and
# with-defaults=trim (both cut).  LIGHTRAILD=PATH runs
# another lightraild than ./lightraild (an older build, to compare in
# turn).
# Run from the top of a built tree.
set -eu
JOBS=${1:-10000} RUNS=${2:-5} LIMIT=${3:-}
top=$(pwd)
tmp=$(mktemp -d)
. "$top/tools/bench/daemon_lib.sh"
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$tmp"' EXIT
bench_config "$top/examples/topologies/metro.json" \
    "$top/examples/clusters/metro.json"
bench_start "${LIGHTRAILD:-./lightraild}"
python3 - "$URL" "$TOKEN" "$tmp/cert.pem" "$JOBS" <<'PY'
import http.client, json, ssl, sys, urllib.parse
url, token, ca, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
hdr = {"Authorization": "Bearer " + token,
       "Content-Type": "application/yang-data+json"}
for i in range(n):
    body = json.dumps({"lightrail-job:job": [{
        "name": "j%d" % i, "model": "bert-large", "batch": 32,
        "microbatch": 1, "gpus": {"min": 1, "max": 8}}]})
    c.request("POST", "/restconf/data/lightrail-job:jobs", body, hdr)
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("POST j%d: %d" % (i, r.status))
PY
# get PATH WHAT: RUNS GETs of PATH (with its query), one row saying
# WHAT.
get() {
    rm -f "$tmp/times"
    for i in $(seq 1 "$RUNS"); do
        curl -sS --cacert "$tmp/cert.pem" -H "Authorization: Bearer $TOKEN" \
            -o "$tmp/body" -w '%{time_total}\n' \
            "$URL$1" >> "$tmp/times"
    done
    sort -n "$tmp/times" | awk -v jobs="$2" -v bytes="$(wc -c < "$tmp/body")" \
        '{ t[NR] = $1 } END { printf "| %s | %d | %.3f | %.3f |\n", jobs,
          bytes, t[int((NR + 1) / 2)], t[NR] }'
}
J=/restconf/data/lightrail-job:jobs
get "$J" "$JOBS"
[ -z "$LIMIT" ] || {
    get "$J?limit=$LIMIT&offset=$((JOBS / 2))" "$LIMIT of $JOBS"
    get "$J?where=state/phase%3D'blocked'&limit=$LIMIT&offset=$((JOBS / 2))" \
        "$LIMIT of $JOBS, where= blocked"
    get "$J?sort-by=state/created&limit=$LIMIT&offset=$((JOBS / 2))" \
        "$LIMIT of $JOBS, sort-by=created"
    get "$J?content=config&limit=$LIMIT&offset=$((JOBS / 2))" \
        "$LIMIT of $JOBS, content=config"
    get "$J?depth=2&limit=$LIMIT&offset=$((JOBS / 2))" \
        "$LIMIT of $JOBS, depth=2"
    get "$J?limit=$LIMIT&offset=$((JOBS / 2))&direction=backwards" \
        "$LIMIT of $JOBS, offset, backwards"
    curl -sS --cacert "$tmp/cert.pem" -H "Authorization: Bearer $TOKEN" \
        -o "$tmp/mid" \
        "$URL/restconf/data/lightrail-job:jobs?limit=1&offset=$((JOBS / 2 - 1))"
    cur=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["lightrail-job:jobs"]["job"][0]
print(j["@"]["lightrail-job:next"])' "$tmp/mid")
    get "$J?limit=$LIMIT&cursor=$cur" "$LIMIT of $JOBS, cursor, forwards"
    get "$J?limit=$LIMIT&cursor=$cur&direction=backwards" \
        "$LIMIT of $JOBS, cursor, backwards"
}
[ -z "${FIELDS:-}" ] || {
    get "$J?fields=job/name" "$JOBS, fields=job/name"
    get "$J?fields=job(name;priority)" "$JOBS, fields=job(name;priority)"
    get "$J?fields=job/state/phase" "$JOBS, fields=job/state/phase"
}
[ -z "${DEPTH:-}" ] || {
    get "$J?depth=2" "$JOBS, depth=2"
    get "$J?depth=3" "$JOBS, depth=3"
    get "$J/job?depth=1" "$JOBS, the list, depth=1"
}
[ -z "${RUNNING:-}" ] || {
    R=/restconf/ds/ietf-datastores:running/lightrail-job:jobs
    get "$R" "running's $JOBS"
    get "$R?with-defaults=explicit" "running's $JOBS, with-defaults=explicit"
    get "$R?fields=job/name" "running's $JOBS, fields=job/name"
    get "$R?with-defaults=trim" "running's $JOBS, with-defaults=trim"
}
[ -z "${DATASTORE:-}" ] || {
    get /restconf/data "datastore of $JOBS jobs, whole"
    get "/restconf/data?fields=ietf-network:networks/network/network-id" \
        "datastore of $JOBS jobs, fields= network ids"
    get "/restconf/data?content=config" \
        "datastore of $JOBS jobs, content=config"
}
