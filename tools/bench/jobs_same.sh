#!/bin/sh
# The same GETs of the jobs answered by two lightraild builds serving
# one store in turn, to show that a change in how the text is built
# left what is sent alone:
#     tools/bench/jobs_same.sh OLD [NEW] [JOBS]
# OLD (a lightraild binary) starts first and is sent JOBS intents
# (default 30; the metro example: the first admitted, with stages and
# lightpaths, the rest blocked with a reason; some with a custom
# transformer, some with an algorithm; 0 leaves the list empty); then
# OLD, NEW (default ./lightraild) and OLD again, each started on the
# store the one before left, answer every query below: the jobs
# container, the list, one job, operational, running and the
# datastore, with fields (most selecting nothing of the state, some
# selecting it; module prefixes, nested parentheses) x depth x content
# x with-defaults, with-origin, a depth alone (1 to 5) x content x
# with-defaults on each (with-defaults=explicit on the jobs alone at
# the datastore too), pages with a where and a sort-by on the state
# or the configuration and cursors, refused fields, HEAD, and
# If-None-Match with the ETag OLD first gave; running's resources with
# content and with-defaults alone, and running's jobs with each
# with-defaults x depth x fields x content.  Each answer's status,
# ETag, Content-Length and body are compared between OLD and NEW, and
# between OLD's two runs (a store that moved between runs shows there,
# not as a difference of the builds), the state's device list left out
# (below).  Prints the number of queries and
# each that differs; exit 1 when any does.  KEEP=1 in the environment
# leaves the answers in the temporary directory.  Run from the top of a
# built tree.
set -eu
OLD=$1 NEW=${2:-./lightraild} JOBS=${3:-30}
top=$(pwd)
tmp=$(mktemp -d)
. "$top/tools/bench/daemon_lib.sh"
trap '[ -n "$PID" ] && kill $PID 2>/dev/null
      [ -n "${KEEP:-}" ] && echo "answers in $tmp" >&2 || rm -rf "$tmp"' EXIT
bench_config "$top/examples/topologies/metro.json" \
    "$top/examples/clusters/metro.json"

# stop: the daemon started last, by its PID, and the port it wrote, so
# that the next bench_start waits for its own.
stop() {
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
    rm -f "$tmp/state/lightraild.port"
}

J=/restconf/data/lightrail-job:jobs
O=/restconf/ds/ietf-datastores:operational
R=/restconf/ds/ietf-datastores:running
ST=lightrail-state:state
# The queries, one a line: PATH?QUERY.
{
    for d in '' '&depth=1' '&depth=2' '&depth=3'; do
        for c in '' '&content=config' '&content=nonconfig'; do
            for w in '' '&with-defaults=report-all' '&with-defaults=trim' \
                     '&with-defaults=report-all-tagged'; do
                q="$d$c$w"
                for f in job/name 'job(name;priority)' 'job/gpus(min)' \
                         'job(model;transformer;iterations)' \
                         job/state/phase 'job(name;state)' job; do
                    echo "$J?fields=$f$q"
                    echo "$O/lightrail-job:jobs?fields=$f$q"
                done
                for f in name 'name;priority' gpus 'algorithm;iterations' \
                         state/phase 'state(stage;reason)'; do
                    echo "$J/job?fields=$f$q"
                    echo "$J/job=j1?fields=$f$q"
                    echo "$J/job=j$((JOBS - 1))?fields=$f$q"
                done
                for f in lightrail-job:jobs/job/name \
                         'lightrail-job:jobs/job(name;priority);lightrail-state:state' \
                         'lightrail-job:jobs/job(name;state/phase)'; do
                    echo "/restconf/data?fields=$f$q"
                done
                echo "$J$(echo "$q" | sed 's/^&/?/')"
            done
        done
    done
    for f in job/name 'job(name;priority)' 'job/state(phase;reason)'; do
        for p in 'limit=3&offset=2' 'limit=2&direction=backwards' \
                 "where=state/phase='blocked'&limit=4" \
                 "where=state/phase='active'" \
                 'sort-by=state/created&limit=5&offset=1' \
                 "where=priority>=0&sort-by=state/phase&limit=3"; do
            for w in '' '&with-defaults=report-all-tagged' '&depth=2'; do
                echo "$J?fields=$f&$p$w"
                echo "$O/lightrail-job:jobs?fields=$f&$p$w"
            done
        done
    done
    for f in name 'name;priority' state/phase; do
        echo "$J/job?fields=$f&limit=2&offset=3"
        echo "$J/job?fields=$f&where=state/phase='blocked'&limit=2"
    done
    for f in job/name 'job(name;priority)' job/state; do
        echo "$O/lightrail-job:jobs?with-origin&fields=$f"
        echo "$R/lightrail-job:jobs?fields=$f"
        echo "$O?fields=lightrail-job:jobs/$f"
    done
    echo "$R?fields=lightrail-job:jobs/job/name"
    # The datastore with fields naming one member (the jobs alone, whose
    # own text the cut reads then, with or without their state; or
    # another) and two, under running too.
    for f in lightrail-job:jobs 'lightrail-job:jobs/job(name;state)' \
             ietf-network:networks/network/network-id \
             'lightrail-job:jobs/job/name;lightrail-compute:compute' \
             'lightrail-job:jobs/job/name;ietf-yang-library:modules-state/module-set-id'; do
        for q in '' '&depth=3' '&content=nonconfig' \
                 '&with-defaults=report-all-tagged'; do
            echo "/restconf/data?fields=$f$q"
            echo "$R?fields=$f$q"
        done
    done
    # The jobs alone at the datastore with the modes the loops above
    # leave out: with-defaults=explicit, content with with-defaults or
    # depth, with-origin with content, and HEAD and If-None-Match of
    # those cuts (each cut of the jobs' own text, efc10ee).
    for f in lightrail-job:jobs 'lightrail-job:jobs(job/state/phase)' \
             lightrail-job:jobs/job/state; do
        for q in '&with-defaults=explicit' '&content=config&with-defaults=explicit' \
                 '&content=nonconfig&with-defaults=report-all-tagged' \
                 '&depth=4&with-defaults=explicit' \
                 '&content=nonconfig&depth=3&with-defaults=trim'; do
            echo "/restconf/data?fields=$f$q"
            echo "$R?fields=$f$q"
            echo "$O?with-origin&fields=$f$q"
        done
        for r in "/restconf/data?fields=$f&content=nonconfig" \
                 "$R?fields=$f&with-defaults=explicit" \
                 "$O?with-origin&fields=$f&content=config"; do
            echo "$r"
            echo "INM $r"
            echo "HEAD $r"
        done
    done
    echo "$J?fields=job/nosuch"
    echo "$J?fields=job(name"
    # Module prefixes, nested parentheses, a path given twice, the
    # state's nodes beside config ones, parentheses at the datastore.
    for f in lightrail-job:job/name 'job/lightrail-job:name' \
             'lightrail-job:job(lightrail-job:name;priority)' \
             'job(gpus(min;max);transformer(layers))' 'job(name;gpus/min)' \
             'job(name);job(priority)' 'job/name;job/state/phase' \
             'job(name;state/gpus/count)' 'job/transformer' 'job/gpus/max'; do
        # The same under a job (a refusal where it starts job().
        e=$(echo "$f" | sed 's,^[a-z-]*:*job/,,')
        for q in '' '&content=nonconfig' '&with-defaults=report-all-tagged' \
                 '&depth=1' '&with-defaults=trim&depth=3'; do
            echo "$J?fields=$f$q"
            echo "$J/job?fields=$e$q"
            echo "$O/lightrail-job:jobs?fields=$f$q"
            echo "$O/lightrail-job:jobs?with-origin&fields=$f$q"
            echo "$O/lightrail-job:jobs/job=j1?with-origin&fields=$e$q"
            echo "$R/lightrail-job:jobs?fields=$f$q"
            echo "$O?with-origin&fields=lightrail-job:jobs/$f$q"
            echo "/restconf/data?fields=lightrail-job:jobs/$f;$ST$q"
        done
    done
    for f in 'lightrail-job:jobs(job/name)' \
             'lightrail-job:jobs(job(name;priority));ietf-network:networks' \
             'lightrail-job:jobs/job(name;gpus);lightrail-job:jobs/job/state'; do
        for q in '' '&content=config' '&content=nonconfig' '&depth=2' \
                 '&with-defaults=report-all'; do
            echo "/restconf/data?fields=$f$q"
            echo "$O?with-origin&fields=$f$q"
            echo "$R?fields=$f$q"
        done
    done
    # with-origin with every other parameter, on each resource.
    for f in job/name 'job(name;priority;gpus)' job/state/phase; do
        for q in '&content=config' '&content=nonconfig' '&depth=2' \
                 '&with-defaults=report-all' '&with-defaults=trim' \
                 '&with-defaults=report-all-tagged'; do
            echo "$O/lightrail-job:jobs?with-origin&fields=$f$q"
            echo "$O/lightrail-job:jobs/job?with-origin&fields=${f#job/}$q"
        done
    done
    # Pages: cursors, where and sort-by on the state or the
    # configuration, under operational, running and /restconf/data.
    c3=$(printf j3 | base64 | tr '+/' '-_' | tr -d '=')
    c12=$(printf j12 | base64 | tr '+/' '-_' | tr -d '=')
    for f in name 'name;priority' 'gpus(max)' state/phase; do
        for p in "limit=2&cursor=$c3" \
                 "limit=3&cursor=$c12&direction=backwards" \
                 "where=state/phase='blocked'&limit=2&cursor=$c12" \
                 "sort-by=priority&limit=4&offset=2" \
                 "where=priority>1&sort-by=state/phase&limit=3" \
                 "where=count(state/stage)>0" "where=priority=2&limit=1" \
                 "sort-by=state/updated&limit=2&cursor=$c3"; do
            echo "$J/job?fields=$f&$p"
            echo "$J?fields=job/$f&$p&with-defaults=report-all"
            echo "$O/lightrail-job:jobs/job?fields=$f&$p"
            echo "$O/lightrail-job:jobs/job?with-origin&fields=$f&$p&depth=2"
            echo "$R/lightrail-job:jobs/job?fields=$f&$p"
        done
    done
    # A depth alone, at the levels around each resource's state (the
    # container's 3, the list's and a job's 2, the datastore's 4), with
    # each content and some with-defaults, on every resource; pages.
    for d in 1 2 3 4 5; do
        for c in '' '&content=config' '&content=nonconfig'; do
            for w in '' '&with-defaults=report-all-tagged' \
                     '&with-defaults=trim'; do
                q="depth=$d$c$w"
                echo "$J?$q"
                echo "$J/job?$q"
                echo "$J/job=j1?$q"
                echo "$J/job=j$((JOBS - 1))?$q"
                echo "$O/lightrail-job:jobs?$q"
                echo "$O/lightrail-job:jobs?with-origin&$q"
                echo "$O/lightrail-job:jobs/job=j1?with-origin&$q"
                echo "$R/lightrail-job:jobs?$q"
                echo "$R/lightrail-job:jobs/job?$q"
                echo "/restconf/data?$q"
                echo "$O?$q"
                echo "$O?with-origin&$q"
                echo "$R?$q"
            done
        done
        for p in 'limit=3&offset=2' "limit=2&cursor=$c3" \
                 "where=state/phase='blocked'&limit=2" \
                 'sort-by=state/created&limit=4' \
                 'limit=2&direction=backwards' 'where=priority>1'; do
            echo "$J?depth=$d&$p"
            echo "$J/job?depth=$d&$p"
            echo "$O/lightrail-job:jobs/job?with-origin&depth=$d&$p"
            echo "$R/lightrail-job:jobs/job?depth=$d&$p"
        done
    done
    # Refusals: their status and words.
    for f in 'job/nosuch' 'job(name' 'nosuch:job' \
             'lightrail-job:lightrail-job:job' \
             'job/state/nosuch' 'job(name;)' 'job//name' '*' 'job/*' \
             'lightrail-state:state'; do
        for q in '' '&content=config' '&content=nonconfig'; do
            echo "$J?fields=$f$q"
            echo "$J/job=j1?fields=${f#job/}$q"
            echo "$O/lightrail-job:jobs?fields=$f$q"
            echo "/restconf/data?fields=lightrail-job:jobs/$f$q"
        done
    done
    # running's reads without fields or depth, on each resource: content
    # and with-defaults alone, each cut within the configuration the
    # answer already is (h_ds()).
    for r in "$R" "$R/lightrail-job:jobs" "$R/lightrail-job:jobs/job" \
             "$R/lightrail-job:jobs/job=j1" "$R/ietf-network:networks" \
             "$R/lightrail-compute:compute"; do
        for q in '' content=config content=nonconfig \
                 with-defaults=report-all with-defaults=trim \
                 with-defaults=explicit with-defaults=report-all-tagged \
                 'content=config&with-defaults=trim' \
                 'content=nonconfig&with-defaults=report-all'; do
            echo "$r${q:+?$q}"
        done
    done
    # running's jobs resources with each with-defaults (none to
    # report-all-tagged) x depth x fields x content h_ds() takes: the
    # text built without the state is sent without its cut to the
    # configuration when with-defaults is none or explicit.
    for r in "$R/lightrail-job:jobs" "$R/lightrail-job:jobs/job" \
             "$R/lightrail-job:jobs/job=j1" \
             "$R/lightrail-job:jobs/job?limit=3&offset=2&"; do
        case $r in
        *job=j1) fs='name gpus;priority;state' ;;
        *jobs) fs='job/name job(gpus;priority;state)' ;;
        *) fs='name gpus;priority;state' ;;
        esac
        for w in '' with-defaults=explicit with-defaults=trim \
                 with-defaults=report-all with-defaults=report-all-tagged; do
            for d in '' depth=1 depth=2 depth=3; do
                for f in '' $fs; do
                    for c in '' content=config content=nonconfig; do
                        q=$(echo "$w&$d&${f:+fields=$f}&$c" \
                            | sed 's/&&*/\&/g; s/^&//; s/&$//')
                        case $r in
                        *'&') echo "$r$q" | sed 's/&$//' ;;
                        *) echo "$r${q:+?$q}" ;;
                        esac
                    done
                done
            done
        done
    done
    echo "$R/lightrail-job:jobs/job?fields=name&where=state/phase='blocked'"
    echo "$R/lightrail-job:jobs?fields=job/name&sort-by=state/phase"
    echo "$J/job=nosuch?fields=name"
    echo "$J/job?fields=name&limit=2&offset=999"
    echo "$J/job?fields=name&limit=2&cursor=bm9zdWNo"
    # HEAD, and If-None-Match with the ETag OLD's first run gave for
    # the query on the line before (304 when the tag is the same).
    for q in "$J?fields=job/name" "$J/job?fields=name;priority&limit=3" \
             "$J/job=j1?fields=model;gpus&with-defaults=report-all-tagged" \
             "$O/lightrail-job:jobs?with-origin&fields=job/name" \
             "/restconf/data?fields=lightrail-job:jobs/job/name" \
             "$R?fields=lightrail-job:jobs/job(name;priority)" \
             "$J?fields=job/state/phase" "$J?depth=2" "$J/job=j1?depth=1" \
             "/restconf/data?depth=3" "$R" "$R/lightrail-job:jobs/job=j1" \
             "$R/ietf-network:networks?with-defaults=trim"; do
        echo "$q"
        echo "INM $q"
        echo "HEAD $q"
    done
} > "$tmp/queries"

# run LIGHTRAILD DIR: the daemon on the store, each query's status,
# ETag and body into DIR/N.
run() {
    bench_start "$1"
    mkdir -p "$2"
    n=0
    while read -r q; do
        n=$((n + 1))
        case $q in
        "HEAD "*) m=-I; q=${q#HEAD }; inm= ;;
        "INM "*) m=; q=${q#INM }
            inm=$(sed -n 's/^[Ee][Tt][Aa][Gg]: //p' \
                      "$tmp/old/$((n - 1)).head") ;;
        *) m=; inm= ;;
        esac
        # A 304 writes no body: an empty one is what it sent.
        : > "$2/$n.body"
        curl -gsS --cacert "$tmp/cert.pem" -H "Authorization: Bearer $TOKEN" \
            ${inm:+-H "If-None-Match: $inm"} ${m:+"$m"} \
            -D "$tmp/h" -o "$2/$n.body" "$URL$q"
        # HEAD's output is its headers: its length says what GET sends.
        [ -z "$m" ] || : > "$2/$n.body"
        tr -d '\r' < "$tmp/h" \
            | grep -i '^\(HTTP/\|etag:\|content-length:\)' > "$2/$n.head"
    done < "$tmp/queries"
    stop
}

bench_start "$OLD"
python3 - "$URL" "$TOKEN" "$tmp/cert.pem" "$JOBS" <<'PY'
import http.client, json, ssl, sys, urllib.parse
url, token, ca, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
u = urllib.parse.urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
hdr = {"Authorization": "Bearer " + token,
       "Content-Type": "application/yang-data+json"}
models = ["gpt-1.9b", "bert-large", "llama2-7b"]
for i in range(n):
    job = {"name": "j%d" % i, "model": models[i % 3], "batch": 32,
           "microbatch": 1, "gpus": {"min": 1, "max": 8},
           "priority": i % 4}
    if i % 5 == 0:
        job["iterations"] = str(1000 * (i + 1))
    if i % 6 == 1:
        job["algorithm"] = "dp"
    if i % 7 == 3:
        job["model"] = "custom-%d" % i
        job["transformer"] = {"arch": "gpt", "layers": 12, "hidden": 768,
                              "heads": 12, "ffn": 3072, "vocab": 50257,
                              "seq": 1024}
    c.request("POST", "/restconf/data/lightrail-job:jobs",
              json.dumps({"lightrail-job:job": [job]}), hdr)
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("POST j%d: %d" % (i, r.status))
PY
stop
run "$OLD" "$tmp/old"
run "$NEW" "$tmp/new"
run "$OLD" "$tmp/old2"
# The state's device list says when and how often a daemon reached each
# ROADM (times stamped from its start), so two runs of one build differ
# there, and builds that count differently differ too, whatever their
# jobs: the list is dropped from each answer (and the ETag of an answer
# that held it, which digests it) before the answers are compared, in
# one pass: BODY.n and HEAD.n beside each answer.
python3 - "$tmp" <<'PY'
import glob, json, os, sys
def drop(o):
    if isinstance(o, dict):
        st = o.get("lightrail-state:state")
        if isinstance(st, dict) and "device" in st:
            del st["device"]
            return True
        return any([drop(v) for v in o.values()])
    return False
for b in glob.glob(os.path.join(sys.argv[1], "*", "*.body")):
    h = b[:-5] + ".head"
    text = open(b, "rb").read()
    cut = False
    try:
        doc = json.loads(text)
        if drop(doc):
            text, cut = json.dumps(doc).encode(), True
    except ValueError:
        pass
    open(b + ".n", "wb").write(text)
    head = open(h).read().splitlines(True) if os.path.exists(h) else []
    open(h + ".n", "w").writelines(
        l for l in head if not (cut and l.lower().startswith("etag:")))
PY
total=$(wc -l < "$tmp/queries")
diff=0 moved=0 n=0
while read -r q; do
    n=$((n + 1))
    if ! cmp -s "$tmp/old/$n.head.n" "$tmp/old2/$n.head.n" \
        || ! cmp -s "$tmp/old/$n.body.n" "$tmp/old2/$n.body.n"; then
        moved=$((moved + 1))
        echo "moved between OLD's runs: $q"
    elif ! cmp -s "$tmp/old/$n.head.n" "$tmp/new/$n.head.n" \
        || ! cmp -s "$tmp/old/$n.body.n" "$tmp/new/$n.body.n"; then
        diff=$((diff + 1))
        echo "differs: $q ($(head -1 "$tmp/old/$n.head") against" \
            "$(head -1 "$tmp/new/$n.head"))"
    fi
done < "$tmp/queries"
ok=$(cat "$tmp"/new/*.head | grep -c '^HTTP/1.1 200')
echo "$total queries ($ok answered 200 by NEW): $diff differ," \
    "$moved moved between OLD's runs"
[ "$diff" -eq 0 ] && [ "$moved" -eq 0 ]
