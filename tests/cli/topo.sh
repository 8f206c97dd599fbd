#!/bin/sh
# `lightrail topo`: import against a golden file, check, and the one-line
# errors (exit 2, "lightrail topo: FILE: ...") on bad input.
#
# Run by `make check` from the build directory, where ./lightrail is;
# inputs are under $srcdir.  LR_REGEN=1 rewrites the golden file instead
# of comparing with it.
srcdir=${srcdir:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
DATA=$srcdir/tests/data/nodelink
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
notok() { fail=$((fail + 1)); echo "FAIL: $*"; }

# The golden conversion: undirected input, a node without a name, a
# fractional distance, non-default spectrum options.
golden=$DATA/tiny.yang.json
args="topo import $DATA/tiny.json --slots 8 --first-slot-n 0"
if [ "${LR_REGEN:-}" = 1 ]; then
    $LIGHTRAIL $args > "$golden" && echo "regenerated $golden"
fi
if $LIGHTRAIL $args > "$tmp/tiny.json" 2> "$tmp/err" \
   && [ ! -s "$tmp/err" ] && diff -u "$golden" "$tmp/tiny.json"; then
    ok "import tiny.json matches tiny.yang.json"
else
    notok "import tiny.json differs from the golden file"
    cat "$tmp/err"
fi

# What import prints, check loads.
out=$($LIGHTRAIL topo check "$tmp/tiny.json" 2>&1)
want="$tmp/tiny.json: network tiny: 3 nodes, 4 directed links, 0 DC attachments, 8 slots of 12.5 GHz per link"
if [ "$out" = "$want" ]; then
    ok "check of the import"
else
    notok "check: got '$out', want '$want'"
fi

# --name and the directed example keep every link once.
if $LIGHTRAIL topo import "$srcdir/tests/data/nodelink/tiny.json" --name x \
       > "$tmp/x.json" && grep -q '"network-id": "x"' "$tmp/x.json"; then
    ok "--name"
else
    notok "--name not honoured"
fi

# Bad input: exit 2, exactly one line on stderr naming the file, the
# JSON Pointer or line, and the reason; nothing on stdout.
bad() {
    file=$1 want=$2
    shift 2
    $LIGHTRAIL topo "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] \
       && grep -F -q -- "lightrail topo: $file: $want" "$tmp/err"; then
        ok "$*"
    else
        notok "$*: rc $rc, $lines lines: $(cat "$tmp/err"); want 'lightrail topo: $file: $want'"
    fi
}
bad "$DATA/bad_malformed.json" "line 2, column 1: malformed JSON" \
    import "$DATA/bad_malformed.json"
bad "$DATA/bad_unknown_node.json" "/links/1/target: no node has id 9" \
    import "$DATA/bad_unknown_node.json"
bad "$DATA/bad_negative_distance.json" "/links/0/distance: must be a length in km greater than 0" \
    import "$DATA/bad_negative_distance.json"
bad "$DATA/bad_not_object.json" "/: must be a node-link object, not array" \
    import "$DATA/bad_not_object.json"
bad "$DATA/bad_duplicate_link.json" "/links/1: link-id 'n2-n1' is taken" \
    import "$DATA/bad_duplicate_link.json"
bad "$tmp/missing.json" "No such file or directory" \
    import "$tmp/missing.json"
bad "$tmp/missing.json" "No such file or directory" \
    check "$tmp/missing.json"
# check on a node-link file: libyang names the first stray member.
bad "$DATA/tiny.json" "line 2: Top-level JSON object member \"directed\" must be namespace-qualified" \
    check "$DATA/tiny.json"
bad "$srcdir/tests/data/bad/link_unknown_node.json" \
    "/ietf-network:networks/network[network-id='bad']/ietf-network-topology:link[link-id='A-X']/destination/dest-node: Invalid leafref value \"X\"" \
    check "$srcdir/tests/data/bad/link_unknown_node.json"

# A file holds its own module's data only: another module's top-level
# node beside it is named (it was loaded, and ietf-yang-library's state
# was refused for a mandatory node of its own).
jq '. + {"ietf-yang-library:yang-library":{"content-id":"x"}}' \
    "$srcdir/examples/topologies/metro.json" > "$tmp/lib.json"
bad "$tmp/lib.json" \
    "/ietf-yang-library:yang-library: a topology holds ietf-network data only: its one top-level member is \"ietf-network:networks\"; remove this one" \
    check "$tmp/lib.json"
jq '. + {"lightrail-job:jobs":{}}' "$srcdir/examples/clusters/metro.json" \
    > "$tmp/jobs.json"
bad "$tmp/jobs.json" \
    "/lightrail-job:jobs: an inventory holds lightrail-compute data only" \
    check "$srcdir/examples/topologies/metro.json" --cluster "$tmp/jobs.json"

# Garbage never crashes (a crash would exit with 128 + signal).
printf '\001\002{["\377\n\000x' > "$tmp/garbage.json"
for sub in import check; do
    $LIGHTRAIL topo $sub "$tmp/garbage.json" > /dev/null 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then ok "$sub garbage"; else notok "$sub garbage: rc $rc"; fi
done

# Usage errors and help.
$LIGHTRAIL topo import > /dev/null 2>&1
[ $? -eq 2 ] && ok "import without FILE" || notok "import without FILE"
$LIGHTRAIL topo import "$DATA/tiny.json" --slots 0 > /dev/null 2>&1
[ $? -eq 2 ] && ok "--slots 0" || notok "--slots 0 accepted"
$LIGHTRAIL topo import "$DATA/tiny.json" --first-slot-n -40000 > /dev/null 2>&1
[ $? -eq 2 ] && ok "--first-slot-n out of the grid" || notok "--first-slot-n -40000 accepted"
if $LIGHTRAIL topo --help | grep -q "lightrail topo import FILE.json"; then
    ok "--help"
else
    notok "--help"
fi

# Too many slots for a link is said of --slots (it was a YANG path of
# the output, under the network's name).
usage_err() {
    want=$1
    shift
    $LIGHTRAIL topo "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] \
       && [ "$(cat "$tmp/err")" = "lightrail topo: $want" ]; then
        ok "$*"
    else
        notok "$*: rc $rc: $(cat "$tmp/err"); want 'lightrail topo: $want'"
    fi
}
usage_err "--slots: '2000' is not an integer from 1 to 1024" \
    import "$DATA/tiny.json" --slots 2000
# A whole number and nothing around it (strtol() skipped the blank).
usage_err "--slots: ' 80' is not an integer from 1 to 1024" \
    import "$DATA/tiny.json" --slots " 80"

# A misspelt option is unknown, also as the last word; a known one
# without its value is missing it (each was said as the other).
usage_err "import: unknown option '--bogus' (see lightrail topo --help)" \
    import "$DATA/tiny.json" --bogus
usage_err "import: missing value for '--slots' (see lightrail topo --help)" \
    import "$DATA/tiny.json" --slots
usage_err "check: missing value for '--cluster' (see lightrail topo --help)" \
    check "$srcdir/examples/topologies/metro.json" --cluster
usage_err "check: unknown option '--clusters' (see lightrail topo --help)" \
    check "$srcdir/examples/topologies/metro.json" --clusters x

# An option is given once: a second --slots (or --name, --cluster) was
# taken silently over the first.
usage_err "import: --slots given twice ('8', then '16'): give it once" \
    import "$DATA/tiny.json" --slots 8 --slots 16
usage_err "import: --name given twice ('a', then 'b'): give it once" \
    import "$DATA/tiny.json" --name a --name b
usage_err "check: --cluster given twice ('$srcdir/examples/clusters/metro.json', then 'x'): give it once" \
    check "$srcdir/examples/topologies/metro.json" \
    --cluster "$srcdir/examples/clusters/metro.json" --cluster x

echo "lr-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
