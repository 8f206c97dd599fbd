#!/bin/sh
# yanglint (libyang's own tool) on our YANG modules, on every example, and
# on the bad inputs the schemas alone must refuse: what passes here is
# valid for any libyang-based client, not only for Lightrail's loader.
#
# Run by `make check` from the build directory; $srcdir comes from the
# automake harness and the IETF module directory from tests/yang-env.sh.
# Skips (77) only when yanglint is not installed.
srcdir=${srcdir:-.}
IETF_YANG_DIR=/usr/share/yuma/modules/ietf
YANGLINT=
[ -r tests/yang-env.sh ] && . ./tests/yang-env.sh
if [ -z "$YANGLINT" ] || [ "$YANGLINT" = no ]; then
    YANGLINT=$(command -v yanglint) || YANGLINT=
fi
if [ -z "$YANGLINT" ]; then
    echo "yanglint not found: skipped"
    exit 77
fi

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
notok() { fail=$((fail + 1)); echo "FAIL: $*"; }

# -D: no implicit search in the working directory, so every import comes
# from the directories we name (or the module's own, yang/).
lint() {
    "$YANGLINT" -D -p "$IETF_YANG_DIR" -p "$srcdir/yang" "$@"
}

TOPO=$srcdir/yang/lightrail-topology.yang
COMPUTE=$srcdir/yang/lightrail-compute.yang
MODEL=$srcdir/yang/lightrail-model.yang
JOB=$srcdir/yang/lightrail-job.yang
CONFIG=$srcdir/yang/lightrail-config.yang

# A job intent is a POST body, {"lightrail-job:job":[...]}: the child
# resource of the jobs container (RFC 8040, 4.4.1), no document of its
# own.  yanglint reads documents, so the body goes inside the container
# first; -t config refuses state data as the daemon does.
WRAPPED=tests/yanglint-job.$$.json
trap 'rm -f "$WRAPPED"' EXIT
lint_job() {
    mkdir -p tests
    { printf '{"lightrail-job:jobs":'; cat "$1"; printf '}'; } > "$WRAPPED"
    lint -t config "$JOB" "$WRAPPED"
}

for m in "$srcdir"/yang/*.yang; do
    if out=$(lint "$m" 2>&1) && [ -z "$out" ]; then
        ok "module $(basename "$m")"
    else
        notok "module $(basename "$m"): $out"
    fi
done

# lint_each LABEL FUNCTION SCHEMA FILE...: each file passes FUNCTION
# (lint or lint_job; SCHEMA may be "" for lint_job).
lint_each() {
    label=$1 fn=$2 schema=$3
    shift 3
    for f; do
        if out=$($fn ${schema:+"$schema"} "$f" 2>&1); then
            ok "$label $(basename "$f")"
        else
            notok "$label $(basename "$f"): $out"
        fi
    done
}
# The running config of a ROADM is config data, not a whole datastore.
lint_config() {
    lint -t config "$@"
}

# Strict by default: unknown members are errors.
lint_each topology lint "$TOPO" "$srcdir"/examples/topologies/*.json
lint_each cluster lint "$COMPUTE" "$srcdir"/examples/clusters/*.json
lint_each model lint "$MODEL" "$srcdir"/examples/models/*.json
lint_each "daemon config" lint "$CONFIG" "$srcdir"/examples/lightraild/*.json
# Each in a state directory of its own: they sit side by side, and a
# daemon started on another's directory takes that one's stored network
# and jobs for its own (mnoptical.json after demo.json stopped at "ROADM
# r4: not in the configuration's southbound device list", r4 being the
# metro's; netconf.json would have re-applied the demo's jobs to real
# ROADMs at its start).
shared=$(sed -n 's/^ *"state-dir": *"\([^"]*\)".*/\1/p' \
             "$srcdir"/examples/lightraild/*.json | sort | uniq -d)
n=$(grep -l '"state-dir"' "$srcdir"/examples/lightraild/*.json | wc -l)
if [ -z "$shared" ] && [ "$n" -eq "$(ls "$srcdir"/examples/lightraild/*.json | wc -l)" ]; then
    ok "examples/lightraild: each of the $n configurations has a state-dir of its own"
else
    notok "examples/lightraild: a state-dir shared by several configurations: $shared"
fi
lint_each agent lint "$srcdir/yang/lightrail-agent.yang" "$srcdir"/examples/agents/*.json
# A ROADM's running config as the netconf driver writes it (and as
# netconfd validates it).
lint_each "roadm config" lint_config "$srcdir/yang/lightrail-roadm.yang" \
    "$srcdir"/examples/roadm/*.json
lint_each job lint_job "" "$srcdir"/examples/lightraild/jobs/*.json

# The payloads the operator docs show, as a reader copies them: the
# intent of docs/controller.md ("What it does with an intent"), the
# agent file and the fragments of a remote DC and of the coordinator of
# docs/agent-protocol.md, and the southbound configurations of
# docs/southbound.md (their "# ..." comments removed; one that elides
# with "..." is a sketch and left out).  A fragment goes into the
# smallest document around it: a compute with the placeholder type it
# names, a configuration with the three leaves it must have.
mkdir -p tests
DOC=tests/yanglint-doc.$$
trap 'rm -f "$WRAPPED" "$DOC".*' EXIT
# block FILE FIRST-LINE: the indented block of FILE from the line FIRST
# (exactly) to the next blank line, unindented.
block() {
    awk -v first="$2" '$0 == first { on = 1 } on && /^$/ { exit }
                       on { sub(/^    /, ""); print }' "$1"
}
# fence FILE N: the Nth ```json block of FILE.
fence() {
    awk -v want="$2" '/^```json$/ { n++; on = n == want; next }
                      /^```$/ { on = 0 } on' "$1"
}
# doc_lint LABEL SCHEMA FILE [lint function]: as lint_each, one file,
# which must not be empty (a doc whose text moved fails here, not skips).
doc_lint() {
    if [ ! -s "$3" ]; then
        notok "$1: not found in the page"
    elif out=$(${4:-lint} ${2:+"$2"} "$3" 2>&1); then
        ok "$1"
    else
        notok "$1: $out"
    fi
}
config_around() {
    printf '{"lightrail-config:lightraild": {"state-dir": "s", "topology-file": "t",\n'
    printf ' "cluster-file": "c", "listen": {"tls": false},\n'
    cat
    printf '}}\n'
}
block "$srcdir/docs/controller.md" "    {\"lightrail-job:job\":[{\"name\":\"j1\",\"model\":\"gpt-1.9b\",\"batch\":64,\"microbatch\":4," \
    > "$DOC.intent"
doc_lint "docs/controller.md: the intent" "" "$DOC.intent" lint_job
fence "$srcdir/docs/agent-protocol.md" 1 > "$DOC.agent"
doc_lint "docs/agent-protocol.md: the agent's file" "$srcdir/yang/lightrail-agent.yang" "$DOC.agent"
{ printf '{"lightrail-compute:compute": {"device-type": [{"name": "unknown",\n'
  printf ' "peak-tflops": "1", "efficiency": "0.01", "memory-gb": "1"}], "dc": [\n'
  fence "$srcdir/docs/agent-protocol.md" 2
  printf ']}}\n'; } > "$DOC.remote"
doc_lint "docs/agent-protocol.md: a remote DC" "$COMPUTE" "$DOC.remote"
fence "$srcdir/docs/agent-protocol.md" 3 | config_around > "$DOC.coord"
doc_lint "docs/agent-protocol.md: the coordinator" "$CONFIG" "$DOC.coord"
awk '/^    "southbound": \{/ { on = 1; n++; text = "" }
     on && /^$/ { on = 0; if (text !~ /\.\.\. *[],}]/) print text > (prefix n) }
     on { sub(/^    /, ""); sub(/ *# .*$/, ""); text = text $0 "\n" }' \
    prefix="$DOC.sb" "$srcdir/docs/southbound.md"
n=0
for f in "$DOC".sb*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    config_around < "$f" > "$f.json"
    doc_lint "docs/southbound.md: southbound configuration ${f#"$DOC".sb}" "$CONFIG" "$f.json"
done
[ $n -ge 4 ] || notok "docs/southbound.md: $n southbound configurations found, 4 expected at least"

# Each bad input with the message the schema must give, so that a schema
# change that stops refusing it (say, losing the deviation that makes link
# ends required references) fails here.
while read -r schema file want; do
    [ -n "$file" ] || continue
    out=$(lint "$srcdir/yang/$schema" "$srcdir/tests/data/bad/$file" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -F -q -- "$want"; then
        ok "refused $file"
    else
        notok "$file: want refusal with '$want', got rc $rc: $out"
    fi
done <<'CASES'
lightrail-topology.yang link_unknown_node.json Invalid leafref value "X"
lightrail-topology.yang negative_length.json value "-5.0" is out of the allowed range
lightrail-topology.yang zero_slots.json a link carries 1 to 1024 slots
lightrail-topology.yang wide_slots.json a link carries 1 to 1024 slots
lightrail-topology.yang unknown_leaf.json Node "colour" not found
lightrail-topology.yang missing_length.json Mandatory node "length-km"
lightrail-topology.yang when_false.json When condition
lightrail-compute.yang cluster_unknown_type.json Invalid leafref value "B200"
lightrail-compute.yang cluster_self_link.json an inter-DC link joins two different data centers
lightrail-compute.yang cluster_efficiency.json value "1.5" is out of the allowed range
lightrail-model.yang model_unknown_arch.json Invalid enumeration value "mamba"
lightrail-model.yang model_zero_layers.json value "0" is out of the allowed range
lightrail-model.yang model_negative_flops.json value "-2.5" is out of the allowed range
lightrail-model.yang model_malformed.json Unexpected character
lightrail-model.yang model_unknown_leaf.json Node "dropout" not found
lightrail-model.yang model_kv_heads.json kv-heads must divide heads
lightrail-config.yang config_tls_no_cert.json TLS needs a certificate and a key
lightrail-roadm.yang roadm_frequency_order.json the upper frequency must be above the lower frequency
lightrail-roadm.yang roadm_duplicate_name.json Unique data leaf(s) "name" not satisfied
lightrail-roadm.yang roadm_no_spectrum.json Mandatory choice "spectrum" data do not exist
lightrail-config.yang config_short_secret.json a token secret must have 16 to 255 characters
lightrail-config.yang config_shared_secret.json Unique data leaf(s) "secret" not satisfied
lightrail-config.yang config_no_state_dir.json Mandatory node "state-dir"
lightrail-config.yang config_emulation_prefix.json Unsatisfied pattern - "Bad_One"
CASES

# The job intents the schema alone refuses (a second job in one body and
# an unknown model are the daemon's own checks, in
# tests/unit/test_yang_job.c).
while read -r file want; do
    [ -n "$file" ] || continue
    out=$(lint_job "$srcdir/tests/data/bad/$file" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -F -q -- "$want"; then
        ok "refused $file"
    else
        notok "$file: want refusal with '$want', got rc $rc: $out"
    fi
done <<'CASES'
job_unknown_member.json Node "colour" not found
job_microbatch.json batch must be a multiple of microbatch
job_microbatches.json batch over microbatch is at most 1000000 microbatches
job_gpus_range.json gpus min must not exceed gpus max
job_name_space.json Unsatisfied pattern - "my job"
job_state.json Unexpected data state node "state"
job_malformed.json Invalid character sequence
job_wrong_module.json No module named "lightrail-model"
CASES

echo "lr-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
