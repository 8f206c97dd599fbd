#!/bin/sh
# The fixed limits met by a bigger case than the examples: each input
# just over a bound is refused with a message that names it, and one at
# the bound works.  Inputs are generated here (tests/cli/gen_big.py).
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"
GEN="/usr/bin/python3 $srcdir/tests/cli/gen_big.py"

# use_files TOPO CLUSTER: the daemon of daemon.sh on these files.
use_files() {
    jq --arg t "$1" --arg c "$2" \
       '."lightrail-config:lightraild" |= (."topology-file" = $t | ."cluster-file" = $c)' \
       "$D/lightraild.json" > "$tmp/cfg" && mv "$tmp/cfg" "$D/lightraild.json"
    rm -rf "$D/state"
}

# 64 data centers (lightrail-compute's max-elements): 65 passed the
# schema, lightrail topo check took them, and plan and lightraild refused
# them with "the cluster has no data center, or more than 64" and "more
# than 64 data centers" (no file, no path).  Now every reader of the file
# names the list and the limit.
$GEN ring 65 > "$tmp/ring65.json"
$GEN cluster 65 > "$tmp/c65.json"
$GEN cluster 64 > "$tmp/c64.json"
expect_bad "/lightrail-compute:compute/dc[name='dc64']: too many \"dc\" entries: at most 64" \
    $LIGHTRAIL topo check "$tmp/ring65.json" --cluster "$tmp/c65.json"
expect_bad "c65.json: /lightrail-compute:compute/dc[name='dc64']: too many \"dc\" entries: at most 64" \
    $LIGHTRAIL plan --model bert-large --cluster "$tmp/c65.json"
$LIGHTRAIL plan --model bert-large --cluster "$tmp/c64.json" --algo zone > "$tmp/out" 2>&1 \
    && ok "plan on 64 DCs" || notok "plan on 64 DCs: $(cat "$tmp/out")"
use_files "$tmp/ring65.json" "$tmp/c65.json"
if $LIGHTRAILD --config "$D/lightraild.json" --foreground 2> "$tmp/err"; then
    notok "lightraild started on 65 DCs"
elif grep -q "c65.json: /lightrail-compute:compute/dc\[name='dc64'\]: too many \"dc\" entries: at most 64" "$tmp/err" \
     && [ ! -e "$D/state/lightraild.port" ]; then
    ok "lightraild refuses 65 DCs at start, the limit named"
else
    notok "lightraild on 65 DCs: $(cat "$tmp/err")"
fi

# 4096 explicit layers: 4097 was "index: Unsatisfied range - value
# "4097" is out of the allowed range", which did not say the limit.
$GEN model 4097 > "$tmp/m4097.json"
expect_bad "layer/index: a layer's index is 1 to 4096: a model has at most 4096 explicit layers" \
    $LIGHTRAIL plan --model-file "$tmp/m4097.json" --cluster "$srcdir/examples/clusters/metro.json"

# A bound of the schema met by a value says the bound: libyang's
# "Unsatisfied range - value "4097" is out of the allowed range." and
# "... length is not allowed." said neither the range nor the length.
sed 's/"layers": 0/"layers": 4097/' "$srcdir/tests/data/bad/model_zero_layers.json" > "$tmp/m4097t.json"
expect_bad 'transformer/layers: Unsatisfied range - value "4097" is out of the allowed range. Allowed: 1 to 4096.' \
    $LIGHTRAIL plan --model-file "$tmp/m4097t.json" --cluster "$srcdir/examples/clusters/metro.json"
long=$(printf 'd%.0s' $(seq 1 64))
sed "s/\"dc1\"/\"$long\"/g" "$srcdir/examples/clusters/metro.json" > "$tmp/clong.json"
expect_bad "dc/name: Unsatisfied length - string \"$long\" length is not allowed. Allowed: 1 to 63 characters." \
    $LIGHTRAIL topo check "$srcdir/examples/topologies/metro.json" --cluster "$tmp/clong.json"
expect_bad 'device-count: Unsatisfied range - value "2147483647" is out of the allowed range. Allowed: 1 to 1000000.' \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$srcdir/tests/data/bad/cluster_huge_devices.json"

# rsa-sim's modulation table holds 16 formats of names within 15
# characters: a 17th was "too many formats" and a long name "invalid".
{ echo name,maximum_length,spectral_efficiency
  for i in $(seq 1 17); do echo "m$i,$((i * 100)),$((18 - i))"; done
} > "$tmp/mod17.csv"
head -n 17 "$tmp/mod17.csv" > "$tmp/mod16.csv"
printf 'name,maximum_length,spectral_efficiency\nabcdefghijklmnop,100,2\n' > "$tmp/modlong.csv"
RS="rsa-sim --topology $srcdir/examples/topologies/metro.json --load 10 --requests 100 --warmup 10 --seeds 1 --quiet"
expect_bad "line 18: format 'm17': more than 16 formats" $LIGHTRAIL $RS --modulations "$tmp/mod17.csv"
expect_bad "format 'abcdefghijklmnop': its name is 16 bytes: give 1 to 15 bytes" \
    $LIGHTRAIL $RS --modulations "$tmp/modlong.csv"
$LIGHTRAIL $RS --modulations "$tmp/mod16.csv" > "$tmp/out" 2>&1 \
    && ok "rsa-sim with 16 formats" || notok "rsa-sim with 16 formats: $(cat "$tmp/out")"

# A lightpath crosses at most 32 links (LR_JOB_MAX_HOPS): a route of 40
# was cut to its first 32, the job active on a lightpath that ended 8
# ROADMs short of its DC.  Now the job is blocked and says why; over 32
# links it still works.
$GEN ring 80 0:0 1:40 > "$tmp/ring80.json"
$GEN cluster 2 0:0 1:40 > "$tmp/c40.json"
use_files "$tmp/ring80.json" "$tmp/c40.json"
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
printf '{"lightrail-job:job":[{"name":"far","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":16,"max":16}}]}\n' > "$tmp/far.json"
# A job's name is 1 to 63 characters, and the API's 400 says so.
printf '{"lightrail-job:job":[{"name":"%s","model":"bert-large"}]}\n' "$long" > "$tmp/longname.json"
api POST $JOBS "$tmp/longname.json"
if [ "$STATUS" = 400 ] && grep -q 'length is not allowed. Allowed: 1 to 63 characters' "$tmp/body"; then
    ok "a job name of 64 characters: 400, the limit named"
else
    notok "a job name of 64 characters: $STATUS $(cat "$tmp/body")"
fi
api POST $JOBS "$tmp/far.json"
if jq -e '."lightrail-job:job"[0].state | .phase == "blocked" and (.reason | test("route has 40 links, more than the 32 a lightpath may cross"))' "$tmp/body" > /dev/null; then
    ok "a route of 40 links: blocked, the limit named"
else
    notok "a route of 40 links: $STATUS $(cat "$tmp/body")"
fi
api GET /restconf/data/lightrail-state:state
jq -e '[."lightrail-state:state".dc[]."in-use"] | add == 0' "$tmp/body" > /dev/null \
    && ok "the blocked job holds no GPUs" || notok "GPUs held: $(cat "$tmp/body")"
stop_daemon
check_store "a route of 40 links: store and devices agree"
$GEN ring 64 0:0 1:32 > "$tmp/ring64.json"
$GEN cluster 2 0:0 1:32 > "$tmp/c32.json"
use_files "$tmp/ring64.json" "$tmp/c32.json"
start_daemon || { notok "lightraild did not start"; lr_summary; exit 1; }
api POST $JOBS "$tmp/far.json"
if jq -e '."lightrail-job:job"[0].state | .phase == "active" and ([.lightpath[].node | length] == [33, 33])' "$tmp/body" > /dev/null; then
    ok "a route of 32 links: active, every ROADM on its lightpaths"
else
    notok "a route of 32 links: $STATUS $(cat "$tmp/body")"
fi
stop_daemon

# A job holds at most 32 lightpaths, 16 DC boundaries: pipedream over 24
# DCs of 8 GPUs needed 46, and the job was blocked as "no spectrum ...:
# ok".  Now the reason counts them and says what to do.
$GEN ring 64 > "$tmp/ring64all.json"
use_files "$tmp/ring64all.json" "$tmp/c64.json"
# Every ROADM of the ring is a DC's: 4,032 ordered pairs.  lr_ksp ran Yen
# (|V|^2 per pair over a ring) for all of them before lightraild listened,
# 26 s under ASan, and this start was given 150 s; lightraild's engine now
# computes a pair's K paths on its first request (lr_ksp_lazy_ends), so
# the default wait is enough.
start_daemon \
    || { notok "lightraild did not start on 64 DCs"; lr_summary; exit 1; }
ok "lightraild starts on 64 DCs"
printf '{"lightrail-job:job":[{"name":"wide","model":"bert-large","batch":32,"microbatch":1,"gpus":{"max":512},"algorithm":"pipedream"}]}\n' > "$tmp/wide.json"
api POST $JOBS "$tmp/wide.json"
if jq -e '."lightrail-job:job"[0].state | .phase == "blocked" and (.reason | test("need 46 lightpaths, more than the 32 a job holds"))' "$tmp/body" > /dev/null; then
    ok "46 lightpaths: blocked, the limit named"
else
    notok "46 lightpaths: $STATUS $(cat "$tmp/body")"
fi
stop_daemon
check_store "46 lightpaths: store and devices agree"

lr_summary
