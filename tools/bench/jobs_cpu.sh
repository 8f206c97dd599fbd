#!/bin/sh
# lightraild's CPU time per GET of the jobs, against a lightraild of our
# own (dummy ROADMs, the metro example) on 127.0.0.1 holding JOBS
# BERT-Large jobs (the first admitted, the rest blocked, as
# tools/bench/jobs_get.sh submits them):
#     tools/bench/jobs_cpu.sh [LIGHTRAILD] [JOBS] [RUNS]
# For each GET (every job; a where's page of 100 from the middle; the
# where keeping nearly every job; running's jobs; a sort-by's page of
# 100; running's jobs with fields=job/name and with-defaults=trim;
# running's topology; running's datastore whole, plain and with
# with-defaults=report-all-tagged; running's jobs with content=nonconfig
# and with-defaults=trim), one GET not counted, then RUNS GETs on one
# keep-alive connection, and the daemon's utime + stime (/proc/PID/stat)
# over them divided by RUNS: a row "| GET | bytes | seconds |".  These
# repeat a GET with no change between (since 2026-12-07 lightraild
# answers them from the jobs tree it keeps); the last row GETs every
# job after a POST each time (the GETs' CPU alone), which builds the
# tree again.
# CPU time, not the wall clock: on the shared machine the wall clock
# varies with the load, the CPU a GET costs much less.  Compare builds
# by running it on each in turn (LIGHTRAILD an older build's
# lightraild), twice.  Then the daemon's resident memory (VmRSS) after
# the POSTs and after the GETs: what a jobs tree kept across GETs
# holds.
# Defaults: ./lightraild, 10000 jobs, 10 runs.  Run from the top of a
# built tree.
set -eu
BIN=${1:-./lightraild} JOBS=${2:-10000} RUNS=${3:-10}
top=$(pwd)
tmp=$(mktemp -d)
PID=
. "$top/tools/bench/daemon_lib.sh"
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$tmp"' EXIT
bench_config "$top/examples/topologies/metro.json" \
    "$top/examples/clusters/metro.json"
bench_start "$BIN"
echo "| GET, $JOBS jobs | bytes | CPU s per GET |"
echo "|---|---:|---:|"
python3 - "$URL" "$TOKEN" "$tmp/cert.pem" "$JOBS" "$PID" "$RUNS" <<'PY'
import http.client, json, ssl, sys, urllib.parse, os
url, token, ca = sys.argv[1], sys.argv[2], sys.argv[3]
n, pid, runs = int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
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
    r = c.getresponse(); r.read()
    assert r.status == 201, r.status
tck = os.sysconf("SC_CLK_TCK")
def rss():
    for line in open("/proc/%s/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
rss0 = rss()
def cpu():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck
J = "/restconf/data/lightrail-job:jobs"
RD = "/restconf/ds/ietf-datastores:running"
R = RD + "/lightrail-job:jobs"
for path in (J,
             J + "?where=state/phase%3D'blocked'&limit=100&offset="
               + str(n // 2),
             J + "?where=state/phase%3D'blocked'", R,
             J + "?sort-by=state/created&limit=100",
             R + "?fields=job/name&with-defaults=trim",
             RD + "/ietf-network:networks", RD,
             RD + "?with-defaults=report-all-tagged",
             R + "?content=nonconfig&with-defaults=trim"):
    c.request("GET", path, headers=hdr); r = c.getresponse(); b = r.read()
    t0 = cpu()
    for i in range(runs):
        c.request("GET", path, headers=hdr); r = c.getresponse()
        b = r.read()
        assert r.status == 200, (path, r.status)
    print("| `%s` | %d | %.3f |" % (
        path.replace(J, "jobs").replace(R, "running's jobs")
            .replace(RD, "running"), len(b),
        (cpu() - t0) / runs))
# Every job again, a job POSTed before each GET (counted: the GET
# alone): what a GET costs when the jobs changed since the last.
t = 0.0
for i in range(runs):
    body = json.dumps({"lightrail-job:job": [{
        "name": "k%d" % i, "model": "bert-large", "batch": 32,
        "microbatch": 1, "gpus": {"min": 1, "max": 8}}]})
    c.request("POST", J, body, hdr)
    r = c.getresponse(); r.read()
    assert r.status == 201, r.status
    t0 = cpu()
    c.request("GET", J, headers=hdr); r = c.getresponse(); b = r.read()
    assert r.status == 200, r.status
    t += cpu() - t0
print("| `jobs`, a job POSTed before each | %d | %.3f |" % (len(b), t / runs))
print()
print("VmRSS: %.1f MB after the POSTs, %.1f MB after the GETs" % (rss0, rss()))
PY
