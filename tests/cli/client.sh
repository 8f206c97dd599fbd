#!/bin/sh
# `lightrail job | topology | spectrum` against fake-lightraild (canned
# answers on nb_server, tests/cli/fake_lightraild.c): usage errors (exit
# 2), a refused connection (6), 401 (5), 404 (4), 409 and blocked jobs
# (3), the server's 400 (2), the tables and spectrum maps, the JSON that
# --name ... builds, and HTTPS with --cacert / --insecure.  The real
# end-to-end tests run against lightraild itself.
. "${srcdir:-.}/tests/cli/lib.sh"
FAKE=${FAKE:-./tests/cli/fake-lightraild}
unset LIGHTRAIL_SERVER LIGHTRAIL_TOKEN
fake_pid=
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# expect_rc RC WANT CMD...: CMD exits RC and its stderr contains WANT.
expect_rc() {
    want_rc=$1 want=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq "$want_rc" ] && grep -F -q -- "$want" "$tmp/err"; then
        ok "exit $want_rc: $*"
    else
        notok "$* -> exit $rc, stderr: $(cat "$tmp/err"), want exit $want_rc and '$want'"
    fi
}

# Usage errors: exit 2, one line, before any connection.
expect_bad "which action: submit, list, show or delete?" $LIGHTRAIL job
expect_bad "which action: show or reload?" $LIGHTRAIL policy
expect_bad "which action: show?" $LIGHTRAIL spectrum
expect_bad "unknown action 'frob'" $LIGHTRAIL job frob
expect_bad "job show needs a job NAME" $LIGHTRAIL job show
expect_bad "unexpected argument 'b'" $LIGHTRAIL job show a b
expect_bad "needs a FILE, or --name NAME and --model MODEL" $LIGHTRAIL job submit
expect_bad "needs a FILE, or --name NAME and --model MODEL" $LIGHTRAIL job submit --name x
expect_bad "not both" $LIGHTRAIL job submit f.json --name x --model y
expect_bad "go with job submit only" $LIGHTRAIL job list --model x
expect_bad "--format wants 'text' or 'json', not 'xml'" $LIGHTRAIL job list --format xml
expect_bad "lightrail job: --limit wants a positive integer, up to 4294967295, not '0'" $LIGHTRAIL job list --limit 0
expect_bad "lightrail job: --limit wants a positive integer, up to 4294967295, not '4294967296'" $LIGHTRAIL job list --limit 4294967296
expect_bad "lightrail job: --offset wants a non-negative integer, up to 4294967295, not '-1'" $LIGHTRAIL job list --offset -1
expect_bad "lightrail job: --limit and --offset go with job list only" $LIGHTRAIL job show a --limit 2
expect_bad "lightrail job: --limit and --offset go with job list only" $LIGHTRAIL job submit f.json --offset 2
expect_bad "lightrail spectrum: --limit and --offset go with job list only" $LIGHTRAIL spectrum show --limit 2
expect_bad "lightrail job: --where and --sort-by go with job list only" $LIGHTRAIL job show a --where "name='a'"
expect_bad "lightrail job: --where and --sort-by go with job list only" $LIGHTRAIL job delete a --sort-by name
expect_bad "lightrail job: --if-match goes with job delete only" $LIGHTRAIL job show a --if-match '"abc"'
expect_bad "lightrail job: --if-match goes with job delete only" $LIGHTRAIL job list --if-match '"abc"'
expect_bad "lightrail spectrum: --if-match goes with topology put, inventory put and job delete only" $LIGHTRAIL spectrum show --if-match '"abc"'
expect_bad "lightrail job: --if-match * matches any version: leave --if-match out to delete the job whatever version the server holds" $LIGHTRAIL job delete a --if-match '*'
expect_bad "lightrail job: --if-match: a weak tag (W/...) never matches a DELETE's If-Match: give the etag show printed, without W/" $LIGHTRAIL job delete a --if-match 'W/"abc"'
expect_bad "lightrail job: --if-match wants the etag show printed" $LIGHTRAIL job delete a --if-match 'a b'
expect_bad "lightrail topology: --where and --sort-by go with job list only" $LIGHTRAIL topology show --sort-by name
expect_bad "lightrail job: --where wants an XPath expression" $LIGHTRAIL job list --where ""
expect_bad "lightrail job: --sort-by wants the path of a leaf" $LIGHTRAIL job list --sort-by ""
expect_bad "lightrail job: --cursor wants the 'next:' of a page" $LIGHTRAIL job list --cursor ""
expect_bad "lightrail job: --cursor and --offset: give one (the cursor starts at the job it names, the offset skips that many jobs)" $LIGHTRAIL job list --limit 2 --cursor cDE --offset 1
expect_bad "lightrail job: --cursor goes with job list only" $LIGHTRAIL job show a --cursor cDE
expect_bad "lightrail topology: --cursor goes with job list only" $LIGHTRAIL topology show --cursor cDE
expect_bad "lightrail job: --direction wants 'forwards' or 'backwards', not 'up'" $LIGHTRAIL job list --direction up
expect_bad "lightrail job: --direction wants 'forwards' or 'backwards', not ''" $LIGHTRAIL job list --direction ""
expect_bad "lightrail job: --direction goes with job list only" $LIGHTRAIL job show a --direction backwards
expect_bad "lightrail topology: --direction goes with job list only" $LIGHTRAIL topology show --direction backwards
expect_bad "lightrail job: --batch wants a positive whole number, not '0'" $LIGHTRAIL job submit --name x --model y --batch 0
expect_bad "lightrail job: --gpus-max wants a positive whole number, not 'many'" \
    $LIGHTRAIL job submit --name x --model y --gpus-min 4 --gpus-max many
expect_bad "--iterations wants a positive whole number, not '-3'" $LIGHTRAIL job submit --name x --model y --iterations -3
expect_bad "--server wants http://HOST:PORT or https://HOST:PORT, not 'ftp://x'" $LIGHTRAIL job list --server ftp://x
expect_bad "--cert and --key go together" $LIGHTRAIL job list --cert c.pem
expect_bad "unknown or incomplete option '--bogus'" $LIGHTRAIL spectrum show --bogus
expect_bad "unknown action 'list'" $LIGHTRAIL topology list
expect_bad "unexpected argument 'x'" $LIGHTRAIL topology show x
expect_bad "$tmp/none.json: " $LIGHTRAIL job submit "$tmp/none.json"
echo '{"lightrail-job:job": [' > "$tmp/broken.json"
expect_bad "$tmp/broken.json: not JSON" $LIGHTRAIL job submit "$tmp/broken.json"
if $LIGHTRAIL job --help | grep -q '^exit status: 0 done'; then
    ok "job --help documents the exit status"
else
    notok "job --help"
fi
# --gpus-min is lightrail-job's gpus min: the free GPUs the job needs to
# be planned, not a floor on what its plan holds (test_ctl's
# test_gpus_min_is_free_gpus); --help said "the fewest devices the job
# accepts".
if $LIGHTRAIL job --help | grep -A1 -e '--gpus-min N' | tr -s ' \n' ' ' |
       grep -q 'fewest free devices the job is planned with (fewer free: blocked); its plan may hold fewer'; then
    ok "job --help: --gpus-min is what the job needs free, not a floor on what it holds"
else
    notok "job --help --gpus-min: $($LIGHTRAIL job --help | grep -e '--gpus-min N')"
fi

# Nobody listens on port 1: exit 6 and one clear line.
expect_rc 6 "lightrail job: cannot talk to http://127.0.0.1:1: " \
    $LIGHTRAIL job list --server http://127.0.0.1:1
if [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
    ok "connection refused: one line on stderr"
else
    notok "connection refused: $(cat "$tmp/err")"
fi
LIGHTRAIL_SERVER=http://127.0.0.1:1 expect_rc 6 "127.0.0.1:1" $LIGHTRAIL spectrum show

# start_fake [--tls CERT KEY]: sets $port and $fake_pid.
start_fake() {
    rm -f "$tmp/port"
    "$FAKE" --port-file "$tmp/port" "$@" &
    fake_pid=$!
    i=0
    while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    port=$(cat "$tmp/port" 2>/dev/null)
    [ -n "$port" ]
}
stop_fake() {
    kill "$fake_pid" 2>/dev/null
    wait "$fake_pid" 2>/dev/null
    fake_pid=
}

if ! start_fake; then
    notok "fake-lightraild did not start"
    lr_summary
    exit
fi
export LIGHTRAIL_SERVER=http://127.0.0.1:$port

expect_rc 5 "lightrail job: 401: authentication required" $LIGHTRAIL job list
expect_rc 5 "give a token with --token or LIGHTRAIL_TOKEN" $LIGHTRAIL job list
expect_rc 5 "lightrail job: 401: the bearer token is not valid" $LIGHTRAIL job list --token nope
export LIGHTRAIL_TOKEN=test-token

# job list: a table with a header and one row per job.
if $LIGHTRAIL job list > "$tmp/list" \
   && head -n 1 "$tmp/list" | grep -q '^NAME .*MODEL .*PHASE .*GPUS .*ITERATION (s) .*STAGES .*LIGHTPATHS .*REASON$' \
   && grep -q '^gpt-a .*gpt-1.9b .*active .* 12 .*0.432100 .* 2 .* 1$' "$tmp/list" \
   && grep -q '^a b/c .*llama2-70b .*blocked .*memory: layer 1' "$tmp/list" \
   && grep -q '^gpt-f .*gpt-1.9b .*failed  *0  *- .* 1 .* 0  ROADM r6' "$tmp/list"; then
    ok "job list: table"
else
    notok "job list: $(cat "$tmp/list")"
fi
if $LIGHTRAIL job list --format json | jq -e '."lightrail-job:jobs".job | length == 3' > /dev/null; then
    ok "job list --format json"
else
    notok "job list --format json"
fi

# job show: the summary, stages and lightpaths; names are percent-encoded.
if $LIGHTRAIL job show gpt-a > "$tmp/show" \
   && grep -q '^job gpt-a: active$' "$tmp/show" \
   && grep -q '^  iteration   0.432100 s (predicted)$' "$tmp/show" \
   && grep -q '^  gpus        1..16 wanted, 12 held$' "$tmp/show" \
   && grep -q '^2 .*21-36 .*dc2 .* 4 .*0.011500$' "$tmp/show" \
   && grep -q '^1 .*dc1 -> dc2 .*55.000 .*16QAM .*0-3 (4) .*-30 .*2 .*200.0  r1-r2,r2-r3$' "$tmp/show"; then
    ok "job show: text"
else
    notok "job show: $(cat "$tmp/show")"
fi
# A lightpath's measured gOSNR and its mismatch with the table in use,
# under its row, when the server gives them; --format json passes them.
want_mm="measured 21.5 dB at provisioning, below 16QAM's 22.4 dB threshold in the modulation table"
if $LIGHTRAIL job show gpt-a > "$tmp/show" \
   && grep -A 2 '^1 .*dc1 -> dc2' "$tmp/show" | grep -q '^          gosnr     21.50 dB (measured at provisioning)$' \
   && grep -A 2 '^1 .*dc1 -> dc2' "$tmp/show" | grep -q -F -x "          mismatch  $want_mm"; then
    ok "job show: a lightpath's gosnr and modulation-mismatch"
else
    notok "job show, gosnr and modulation-mismatch: $(cat "$tmp/show")"
fi
if $LIGHTRAIL job show gpt-a --format json \
   | jq -e --arg w "$want_mm" '.. | objects | select(has("gosnr")) | .gosnr == "21.50" and ."modulation-mismatch" == $w' > /dev/null; then
    ok "job show --format json: gosnr and modulation-mismatch as the server gave them"
else
    notok "job show --format json: $($LIGHTRAIL job show gpt-a --format json)"
fi
if $LIGHTRAIL job show 'a b/c' | grep -q '^  reason      memory: layer 1'; then
    ok "job show: a name with a space and a slash"
else
    notok "job show 'a b/c'"
fi
# A failed job keeps its plan but holds no GPU.
if $LIGHTRAIL job show gpt-f > "$tmp/show" \
   && grep -q '^job gpt-f: failed$' "$tmp/show" \
   && grep -q '^  gpus        4..32 wanted, 0 held$' "$tmp/show" \
   && grep -q '^1 .*1-36 .*dc1 .* 16 ' "$tmp/show"; then
    ok "job show: a failed job holds nothing, its plan shown"
else
    notok "job show gpt-f: $(cat "$tmp/show")"
fi
expect_rc 4 "lightrail job: 404: no job named 'nope'" $LIGHTRAIL job show nope
expect_rc 4 "lightrail job: 404: no job named 'nope'" $LIGHTRAIL job delete nope
if [ "$($LIGHTRAIL job delete gpt-a)" = "job gpt-a deleted" ]; then
    ok "job delete"
else
    notok "job delete"
fi

# job submit --name ...: the body built here, echoed by the fake.
if $LIGHTRAIL job submit --name n1 --model gpt-1.9b --batch 64 --microbatch 2 \
       --gpus-min 4 --gpus-max 8 --algorithm exact --iterations 250000 \
       --format json > "$tmp/sub.json" \
   && jq -e '."lightrail-job:job"[0] | .name == "n1" and .model == "gpt-1.9b"
             and .batch == 64 and .microbatch == 2 and .gpus.min == 4
             and .gpus.max == 8 and .algorithm == "exact"
             and .iterations == "250000"
             and .state.phase == "active"' "$tmp/sub.json" > /dev/null; then
    ok "job submit --name ...: the intent"
else
    notok "job submit --name: $(cat "$tmp/sub.json")"
fi
if $LIGHTRAIL job submit --name n2 --model bert-large --format json \
   | jq -e '."lightrail-job:job"[0] | has("batch") or has("gpus") or has("algorithm")
            or has("iterations") | not' > /dev/null; then
    ok "job submit: what is not given is left to the server"
else
    notok "job submit: defaults"
fi
cat > "$tmp/job.json" <<'EOF'
{ "lightrail-job:job": [ { "name": "from-file", "model": "gpt-1.9b", "priority": 3 } ] }
EOF
if $LIGHTRAIL job submit "$tmp/job.json" --format json \
   | jq -e '."lightrail-job:job"[0] | .name == "from-file" and .priority == 3' > /dev/null \
   && $LIGHTRAIL job submit - < "$tmp/job.json" | grep -q '^job from-file: active$'; then
    ok "job submit FILE and stdin: sent as is"
else
    notok "job submit FILE"
fi
expect_rc 3 "lightrail job: blocked: memory: layer 1 alone needs" \
    $LIGHTRAIL job submit --name big --model llama2-70b
expect_rc 3 "lightrail job: 409: job 'dup' exists" \
    $LIGHTRAIL job submit --name dup --model gpt-1.9b
# The server's error-path says which node of the body is at fault: the
# client prints it before the message (until 2026-12-07 it dropped it).
expect_rc 2 "lightrail job: 400: /lightrail-job:jobs/job: a job needs a name and a model" \
    $LIGHTRAIL job submit --name x --model ''

# topology show.
if $LIGHTRAIL topology show > "$tmp/topo" \
   && grep -q '^network metro: 2 nodes, 1 link$' "$tmp/topo" \
   && grep -q '^r1 .*ROADM R1 .*dc1$' "$tmp/topo" \
   && grep -q '^r1-r2 .*r1 -> r2 .* 25 .*320$' "$tmp/topo"; then
    ok "topology show"
else
    notok "topology show: $(cat "$tmp/topo")"
fi

# spectrum show: one map per link, 100 slots per row.
$LIGHTRAIL spectrum show > "$tmp/spec"
dots() { printf "%${1}s" "" | tr ' ' .; }
{
    echo 'a-b    [####....##..]  6/12 used'
    echo "r1-r2  [$(dots 99)#]"
    echo "       [##$(dots 98)]"
    echo "       [$(dots 50)]  3/250 used"
    echo 'r2-r3  [........]  0/8 used'
} > "$tmp/spec.want"
if diff -u "$tmp/spec.want" "$tmp/spec"; then
    ok "spectrum show: maps"
else
    notok "spectrum show"
fi
if $LIGHTRAIL spectrum show a-b > "$tmp/spec1" \
   && [ "$(head -n 1 "$tmp/spec1")" = "a-b  [####....##..]  6/12 used" ] \
   && grep -q '^     slots 8-9 (2): gpt-b$' "$tmp/spec1" \
   && $LIGHTRAIL spectrum show a-b --format json \
      | jq -e '."lightrail-state:state".link | length == 1 and .[0].id == "a-b"' > /dev/null; then
    ok "spectrum show LINK: map and channels"
else
    notok "spectrum show a-b: $(cat "$tmp/spec1")"
fi
expect_rc 4 "lightrail spectrum: no link 'x-y'" $LIGHTRAIL spectrum show x-y
stop_fake

# HTTPS: trust by --cacert, refuse without, --insecure skips the check.
if command -v openssl > /dev/null \
   && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
        -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$tmp/key.pem" -out "$tmp/cert.pem" > /dev/null 2>&1 \
   && start_fake --tls "$tmp/cert.pem" "$tmp/key.pem"; then
    export LIGHTRAIL_SERVER=https://127.0.0.1:$port
    if $LIGHTRAIL job show gpt-a --cacert "$tmp/cert.pem" | grep -q '^job gpt-a: active$'; then
        ok "https with --cacert"
    else
        notok "https with --cacert"
    fi
    expect_rc 6 "give the server's CA with --cacert FILE" $LIGHTRAIL job list
    # What to do when trust fails for another reason than a CA not
    # given, or the scheme is not the server's (until 2026-12-07 each
    # said "give the server's CA with --cacert FILE", or nothing).
    expect_rc 6 "the server's certificate does not name the host in --server" \
        $LIGHTRAIL job list --cacert "$tmp/cert.pem" --server https://localhost:$port
    expect_rc 6 "--cacert FILE must be a PEM certificate" \
        $LIGHTRAIL job list --cacert "$tmp/key.pem"
    expect_rc 6 "give --server https://" \
        $LIGHTRAIL job list --server http://127.0.0.1:$port
    if $LIGHTRAIL job list --insecure > /dev/null; then
        ok "https with --insecure"
    else
        notok "https with --insecure"
    fi
    stop_fake
    # A certificate past its notAfter (the demo's lasts 30 days) wants a
    # new one, not a CA: until 2026-12-07 "give the server's CA with
    # --cacert FILE", which was given.  openssl 3.0's req cannot date
    # one in the past; python3's cryptography can.
    if python3 - "$tmp/old-key.pem" "$tmp/old-cert.pem" <<'PY' 2> /dev/null \
       && start_fake --tls "$tmp/old-cert.pem" "$tmp/old-key.pem"; then
import datetime, ipaddress, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
now = datetime.datetime.now(datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=40))
        .not_valid_after(now - datetime.timedelta(days=10))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256()))
open(sys.argv[1], "wb").write(key.private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
    serialization.NoEncryption()))
open(sys.argv[2], "wb").write(cert.public_bytes(serialization.Encoding.PEM))
PY
        expect_rc 6 "the server's certificate has expired" \
            $LIGHTRAIL job list --cacert "$tmp/old-cert.pem" \
            --server https://127.0.0.1:$port
        stop_fake
    else
        echo "skipped: an expired certificate (no python3 cryptography)"
    fi
else
    echo "skipped: HTTPS (no openssl, or the fake did not start)"
fi

lr_summary
