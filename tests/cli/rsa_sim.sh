#!/bin/sh
# `lightrail rsa-sim`: JSON output and its keys, reproducibility, the plot,
# and one clear error (exit 2) for every kind of bad input.
. "${srcdir:-.}/tests/cli/lib.sh"
T=$srcdir/examples/topologies/nsfnet.json
SMALL="--requests 2000 --warmup 500 --seeds 2 --quiet"

# JSON: one object per (policy, load) with the documented keys.
if $LIGHTRAIL rsa-sim --topology "$T" --loads 100:300:200 \
       --policy ksp-ff,mscl $SMALL --format json > "$tmp/a.json"; then
    n=$(wc -l < "$tmp/a.json")
    [ "$n" -eq 4 ] && ok "4 JSON lines for 2 policies x 2 loads" \
                   || notok "got $n JSON lines, want 4"
    bad_keys=$(jq -c 'select((.policy|type) != "string" or (.load|type) != "number"
                 or .blocking < 0 or .blocking > 1 or .ci95 < 0 or .runs != 2
                 or .requests_per_s <= 0)' "$tmp/a.json")
    [ -z "$bad_keys" ] && ok "keys policy, load, blocking, ci95, runs, requests_per_s" \
                       || notok "bad objects: $bad_keys"
    # Blocking grows with load for the same policy and seeds.
    if jq -s -e '[.[] | select(.policy == "ksp-ff") | .blocking] | .[0] < .[1]' \
          "$tmp/a.json" > /dev/null; then
        ok "ksp-ff blocks more at 300 E than at 100 E"
    else
        notok "blocking did not grow with load: $(cat "$tmp/a.json")"
    fi
else
    notok "rsa-sim --format json failed"
fi

# Every setting that changes the numbers is in each JSON line, as in the
# text's first lines: guard, rates, a --slots override, a --modulations file.
printf 'name,maximum_length,spectral_efficiency\nQPSK,2500,2\nBPSK,100000,1\n' > "$tmp/two.csv"
$LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 300 --warmup 10 \
    --seeds 2 --quiet --guard 0 --rate 10:40 --slots 50 \
    --modulations "$tmp/two.csv" --format json > "$tmp/set.json"
jq -e --arg m "$tmp/two.csv" '.guard == 0 and .rate_min_gbps == 10
        and .rate_max_gbps == 40 and .slots == 50 and .modulations == $m' \
    "$tmp/set.json" > /dev/null \
    && ok "JSON names guard, rates, slots and modulations" \
    || notok "JSON settings: $(cat "$tmp/set.json")"
$LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 300 --warmup 10 \
    --seeds 2 --quiet --format json > "$tmp/def.json"
jq -e '.guard == 1 and .rate_min_gbps == 25 and .rate_max_gbps == 100
        and .slots == null and .modulations == null' "$tmp/def.json" > /dev/null \
    && ok "JSON: the defaults (the topology's slots, the DeepRMSA table)" \
    || notok "JSON default settings: $(cat "$tmp/def.json")"
out=$($LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 300 --warmup 10 \
    --seeds 2 --quiet --slots 50 --modulations "$tmp/two.csv")
echo "$out" | grep -q "^# 50 slots on every link (--slots); modulations of $tmp/two.csv\$" \
    && ok "text names --slots and --modulations" \
    || notok "text settings: $out"

# Same seeds, same numbers.
$LIGHTRAIL rsa-sim --topology "$T" --loads 100:300:200 --policy ksp-ff,mscl \
    $SMALL --format json > "$tmp/b.json"
if [ -s "$tmp/a.json" ] \
   && [ "$(jq -c '[.blocking, .ci95]' "$tmp/a.json")" = "$(jq -c '[.blocking, .ci95]' "$tmp/b.json")" ]; then
    ok "reproducible for the same seeds"
else
    notok "two identical runs differ"
fi

# A format so weak that a request needs more slots than an int holds
# (100000 Gb/s at 1e-6 b/s/Hz: 8e9 slots) is blocked, not "simulation
# failed: Bad address" (the slot count wrapped to a negative block).
printf 'name,maximum_length,spectral_efficiency\nTINY,100000,1e-6\n' > "$tmp/tiny.csv"
$LIGHTRAIL rsa-sim --topology "$T" --load 10 --requests 200 --warmup 10 \
    --seeds 1 --quiet --rate 100000:100000 --modulations "$tmp/tiny.csv" \
    --format json > "$tmp/tiny.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && jq -e '.blocking == 1 and .blocked_by.no_spectrum == 190' \
    "$tmp/tiny.json" > /dev/null \
    && ok "a block wider than an int: every request blocked for spectrum" \
    || notok "a block wider than an int: exit $rc, $(cat "$tmp/tiny.json" "$tmp/err")"

# Text: the table and the load at the target blocking.
out=$($LIGHTRAIL rsa-sim --topology "$T" --loads 150:350:100 $SMALL --target 0.01)
if echo "$out" | grep -q '^ksp-ff  *150.0 ' && echo "$out" | grep -q 'load (E) at 1% blocking'; then
    ok "text table and load at target"
else
    notok "text output: $out"
fi

# A load is printed with the digits it has: --loads 10:10.5:0.25 read
# 10.0, 10.2 and 10.5 (one decimal); the last, FROM + 2 x STEP, keeps no
# float noise.
out=$($LIGHTRAIL rsa-sim --topology "$T" --loads 10:10.5:0.25 --requests 200 \
      --warmup 10 --seeds 1 --quiet)
if [ "$(echo "$out" | awk '$1 == "ksp-ff" && NF == 7 { printf "%s ", $2 }')" = "10.0 10.25 10.5 " ]; then
    ok "loads in the table: 10.0 10.25 10.5"
else
    notok "loads in the table: $out"
fi

# --help lists every policy.
if $LIGHTRAIL rsa-sim --help > "$tmp/help" \
   && grep -q mscl-link "$tmp/help" && grep -q ksp-ef "$tmp/help"; then
    ok "--help"
else
    notok "--help"
fi

# --plot writes a PNG (when gnuplot is there).
if command -v gnuplot > /dev/null; then
    $LIGHTRAIL rsa-sim --topology "$T" --loads 200:300:100 $SMALL \
        --plot "$tmp/p.png" > /dev/null
    if [ "$(head -c 4 "$tmp/p.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then
        ok "--plot wrote a PNG"
    else
        notok "--plot wrote no PNG"
    fi
    # One load over two seeds whose CI reaches below 0: the log axis
    # keeps the point's decade, and gnuplot (which drops such a bar and
    # then finds the range flat) has nothing to warn about on stderr.
    $LIGHTRAIL rsa-sim --topology "$T" --load 250 --requests 1000 \
        --warmup 100 --seeds 2 --quiet --format json \
        --plot "$tmp/one.png" > "$tmp/one.json" 2> "$tmp/one.err"
    rc=$?
    [ $rc -eq 0 ] && jq -e '.ci95 > .blocking' "$tmp/one.json" > /dev/null \
        && [ ! -s "$tmp/one.err" ] && [ -s "$tmp/one.png" ] \
        && ok "--plot of one load whose CI reaches 0: a PNG, nothing on stderr" \
        || notok "--plot of one load, CI past 0: exit $rc, $(cat "$tmp/one.json" "$tmp/one.err")"
    # Blocking 0 at every load has no place on the log axis: no PNG,
    # the table still printed, exit 3 (a valid request nothing can
    # satisfy, not an internal failure) and a reason that says what to
    # change.
    $LIGHTRAIL rsa-sim --topology "$T" --loads 10:20:10 --requests 500 \
        --warmup 10 --seeds 1 --quiet --format json \
        --plot "$tmp/zero.png" > "$tmp/zero.json" 2> "$tmp/zero.err"
    rc=$?
    [ $rc -eq 3 ] && [ ! -e "$tmp/zero.png" ] \
        && [ "$(jq -s 'map(.blocking) | add' "$tmp/zero.json")" = 0 ] \
        && grep -q "blocking was 0 at every load.*higher loads" "$tmp/zero.err" \
        && ok "--plot of no blocking at all: exit 3, $(cat "$tmp/zero.err")" \
        || notok "--plot of no blocking: exit $rc, $(cat "$tmp/zero.err")"
else
    echo "skip: gnuplot absent, --plot not tested"
fi

# The title names the seed run and gives one seed no interval: it once
# read "(K=5, km order, 1 seeds, 95% CI)".  The requests are not the
# default's, and the title says so.
lr_fake_gnuplot
LIGHTRAIL_GNUPLOT=$tmp/gnuplot $LIGHTRAIL rsa-sim --topology "$T" --load 300 \
    --requests 2000 --warmup 500 --seeds 1 --seed 5 --quiet \
    --plot "$tmp/fake.png" > /dev/null
has_line "set title 'nsfnet: blocking probability against load (K=5, km order, 2000 requests (500 warm-up), seed 5, one'.\"\\n\".'run: no CI)'" \
    && has_line "set ylabel 'blocking probability (blocked / requests)'" \
    && ok "--plot title: K, order, the seed run, no CI of one seed" \
    || notok "--plot title: $(grep -e '^set title' -e '^set ylabel' "$tmp/gnuplot.script")"

# Every option that changes the curves and is on no axis is in the
# title (it once named only K, the path order and the seeds): the
# slots, the guard, the rates, the requests, the holding and the
# modulation table, by its file's name.
printf 'name,maximum_length,spectral_efficiency\nbpsk,8000,1\nqpsk,4000,2\n' \
    > "$tmp/mods.csv"
lr_fake_gnuplot
LIGHTRAIL_GNUPLOT=$tmp/gnuplot $LIGHTRAIL rsa-sim --topology "$T" --load 300 \
    --requests 2000 --warmup 500 --seeds 2 --seed 5 --quiet --k 3 \
    --path-order hops --slots 100 --guard 2 --rate 50:200 --no-truncate \
    --modulations "$tmp/mods.csv" --plot "$tmp/fake.png" > /dev/null
title=$(grep '^set title' "$tmp/gnuplot.script" | tr -d '\n')
want="nsfnet: blocking probability against load (K=3, hops order, 100 slots, guard 2, rates 50-200 Gb/s, 2000 requests (500 warm-up), plain exponential holding, modulations mods.csv, seeds 5-6, mean and 95% CI)"
# The title is wrapped: its lines joined by a space read as the whole.
got=$(printf '%s' "$title" | sed -e "s/^set title '//" -e "s/'\$//" \
      -e "s/'\\.\"\\\\n\"\\.'/ /g")
[ "$got" = "$want" ] \
    && ok "--plot title: every option off its default that changes the curves" \
    || notok "--plot title: '$got'"

# Bad input: one line, exit 2.
# A --plot that cannot be written is refused before the runs, not after.
expect_bad "--plot $tmp/no/p.png: cannot write a file there: No such file or directory" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 100 $SMALL --plot "$tmp/no/p.png"
expect_bad "--plot $tmp: cannot write a file there: Is a directory" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 100 $SMALL --plot "$tmp"
printf 'name,maximum_length,spectral_efficiency\nQPSK,2500,two\n' > "$tmp/bad.csv"
printf 'id,reach\n' > "$tmp/nohdr.csv"
expect_bad "unknown policy 'nope'" $LIGHTRAIL rsa-sim --topology "$T" --load 100 --policy nope
out=$($LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 200 --warmup 100 --seeds 1 --policy ksp-ff)
echo "$out" | grep -q '^# one seed: no confidence interval (ci95 reads 0)' \
    && ok "one seed: the text says there is no confidence interval" \
    || notok "one seed's note: $out"
expect_bad "'all' names every policy and stands alone" $LIGHTRAIL rsa-sim --topology "$T" --load 100 --policy all,mscl
# A policy named twice would run twice and print two rows of one name.
expect_bad "--policy: 'mscl' listed twice" $LIGHTRAIL rsa-sim --topology "$T" --load 100 --policy mscl,ksp-ff,MSCL
expect_bad "--policy: item 3 of 'mscl,ksp-ff,' is empty: give the policies separated by single commas" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 100 --policy mscl,ksp-ff,
n=$($LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 200 --warmup 100 \
    --seeds 1 --policy ALL --format json 2> "$tmp/err" | wc -l)
[ "$n" -eq "$($LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 200 \
    --warmup 100 --seeds 1 --policy all --format json | wc -l)" ] && [ "$n" -gt 1 ] \
    && ok "--policy ALL is --policy all ($n policies)" \
    || notok "--policy ALL: $n lines, $(cat "$tmp/err")"
expect_bad "--loads wants a load E > 0, or FROM:TO:STEP" $LIGHTRAIL rsa-sim --topology "$T" --loads 10:5
expect_bad "--loads wants a load E > 0" $LIGHTRAIL rsa-sim --topology "$T" --loads -3
expect_bad "--topology FILE is required" $LIGHTRAIL rsa-sim --load 100
expect_bad "give --load E or --loads" $LIGHTRAIL rsa-sim --topology "$T"
expect_bad "give --load E or --loads FROM:TO:STEP, not both" $LIGHTRAIL rsa-sim --topology "$T" --load 100 --loads 1:3:1
expect_bad "/no/such.json: No such file" $LIGHTRAIL rsa-sim --topology /no/such.json --load 1
expect_bad "--path-order wants 'km' or 'hops'" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --path-order miles
expect_bad "--warmup (500) must be below --requests (500)" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --requests 500 --warmup 500
expect_bad "--k wants an integer" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --k 0
expect_bad "--slots wants an integer" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --slots 0
# A value past the bound is told the bound: the message named only the
# kind of number ('a non-negative integer'), which the value was.
expect_bad "--seed wants a non-negative integer, up to 2147483647, not '2147483648'" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 1 --seed 2147483648
expect_bad "--requests wants a positive integer, up to 1000000000, not '1e10'" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 1 --requests 1e10
expect_bad "unknown or incomplete option '--frobnicate'" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --frobnicate
# The columns as the header names them (it said reach_km, a name the
# file does not have).
expect_bad "$tmp/bad.csv: line 2: expected name,maximum_length,spectral_efficiency as the header names them" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --modulations "$tmp/bad.csv"
expect_bad "$tmp/nohdr.csv: line 1:" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --modulations "$tmp/nohdr.csv"
# The table's OSNR thresholds are read with it, so a bad one is refused
# by line and column, though rsa-sim does not use them.
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\nQPSK,2500,2,12.6\n16QAM,625,4,22,4\n8QAM,1250,3,1e3\n' > "$tmp/osnr.csv"
expect_bad "$tmp/osnr.csv: line 4: format '8QAM': column 4, minimum_osnr, is '1e3': give the OSNR its receiver needs in dB, from 0 to 50, or leave the cell empty for the default's" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 1 --modulations "$tmp/osnr.csv"
# A directory opens; only its read fails: that is the reason, not "no
# modulation formats".
mkdir "$tmp/mods.d"
expect_bad "$tmp/mods.d: Is a directory" $LIGHTRAIL rsa-sim --topology "$T" --load 1 --modulations "$tmp/mods.d"
# One loader with lightraild's modulation-table (lr_modtable_load): the
# same words, the option named as the way back to the default table.
expect_bad "$tmp/none.csv: No such file or directory: give the path of a readable modulation CSV (or leave --modulations out for the default table)" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 1 --modulations "$tmp/none.csv"
expect_bad "node 'A' has no path to node 'C'" $LIGHTRAIL rsa-sim --topology "$srcdir/tests/data/bad/disconnected.json" --load 1
# Cut short after the top member's name: libyang read it as a file
# without networks ('no network has network-types ...').
printf '{\n  "ietf-network:networks": ' > "$tmp/cut.json"
expect_bad "$tmp/cut.json: malformed JSON: the text ends inside its object (line 2)" \
    $LIGHTRAIL rsa-sim --topology "$tmp/cut.json" --load 1
for f in link_unknown_node negative_length zero_slots wide_slots malformed unknown_leaf; do
    expect_bad "lightrail rsa-sim: $srcdir/tests/data/bad/$f.json: " \
        $LIGHTRAIL rsa-sim --topology "$srcdir/tests/data/bad/$f.json" --load 1
done

# At most 1000 loads, rounding slack included (a 1001st was written past
# the array; ASan in the sanitizer build).
n=$($LIGHTRAIL rsa-sim --topology "$T" --loads 1:1000.9999999995:1 \
    --requests 20 --warmup 1 --seeds 1 --format json 2> "$tmp/err" | wc -l)
[ "$n" -eq 1000 ] && ok "--loads 1:1000.9999999995:1: 1000 loads, not 1001" \
    || notok "--loads near the limit: $n rows, $(cat "$tmp/err")"
# A plot that cannot be drawn: an error, and the results on stdout stay
# the results (gnuplot drew its PNG on stdout); results that cannot be
# written: an error, not exit 0.
if command -v gnuplot > /dev/null; then
    $LIGHTRAIL rsa-sim --topology "$T" --load 300 --requests 500 --warmup 10 \
        --seeds 1 --format json --plot /nonexistent/b.png > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -ne 0 ] && jq -e . "$tmp/out" > /dev/null \
        && grep -q "/nonexistent/b.png" "$tmp/err" \
        && ok "an unwritable --plot: exit $rc, stdout still JSON" \
        || notok "unwritable --plot: exit $rc, $(head -c 200 "$tmp/out" | od -c | head -2)"
fi
if [ -w /dev/full ]; then
    $LIGHTRAIL rsa-sim --topology "$T" --load 300 --requests 500 --warmup 10 \
        --seeds 1 > /dev/full 2> "$tmp/err"
    rc=$?
    [ $rc -ne 0 ] && grep -q "cannot write the results" "$tmp/err" \
        && ok "results to a full disk: exit $rc, $(cat "$tmp/err")" \
        || notok "results to /dev/full: exit $rc, $(cat "$tmp/err")"
fi

# Loads of a range are the decimal loads meant: 0.1:0.3:0.1 runs 0.3 (as
# --load 0.3 does), not 0.1 + 2 x 0.1 = 0.30000000000000004, and JSON
# prints each as its shortest text, not json-c's %.17g.
$LIGHTRAIL rsa-sim --topology "$T" --loads 0.1:0.3:0.1 --requests 100 \
    --warmup 10 --seeds 1 --quiet --format json > "$tmp/dec.json"
[ "$(jq -c -s 'map(.load)' "$tmp/dec.json")" = "[0.1,0.2,0.3]" ] \
    && jq -s -e '.[2].load == 0.3' "$tmp/dec.json" > /dev/null \
    && ok "--loads 0.1:0.3:0.1 runs 0.1, 0.2 and 0.3 exactly" \
    || notok "loads of 0.1:0.3:0.1: $(jq -c -s 'map(.load)' "$tmp/dec.json")"
loads=$(grep -o '"load":[^,]*' "$tmp/dec.json" | tr '\n' ' ')
[ "$loads" = '"load":0.1 "load":0.2 "load":0.3 ' ] \
    && ok "JSON prints the loads 0.1, 0.2 and 0.3 as such" \
    || notok "JSON loads printed as: $loads"
$LIGHTRAIL rsa-sim --topology "$T" --loads 100:300:200 --requests 100 \
    --warmup 10 --seeds 1 --quiet --format json > "$tmp/whole.json"
loads=$(grep -o '"load":[^,]*' "$tmp/whole.json" | tr '\n' ' ')
[ "$loads" = '"load":100.0 "load":300.0 ' ] \
    && ok "JSON prints whole loads as before (100.0, 300.0)" \
    || notok "JSON whole loads printed as: $loads"

# The text table's policy column is as wide as its longest name
# (mscl-link has 9 characters), and so is the list of loads at target.
out=$($LIGHTRAIL rsa-sim --topology "$T" --policy ksp-ff,mscl-link \
    --loads 100:200:100 --requests 100 --warmup 10 --seeds 1 --quiet)
bad=$(echo "$out" | awk '/^policy / { end = index($0, "load(E)") + 6; next }
         /^$/ { done = 1 }
         end && !done && /^[a-z]/ { match($0, /^[^ ]+ +[^ ]+/)
                                    if (RLENGTH != end) bad = bad "|" $0 }
         /^  [a-z]/ { match($0, /^  [^ ]+ +/); at[RLENGTH]++ }
         END { if (!end) print "no header"; else if (bad) print bad
               n = 0; for (k in at) n++; if (n != 1) print "targets:", n }')
[ -z "$bad" ] && ok "rsa-sim's table and targets aligned with mscl-link" \
    || notok "rsa-sim's table misaligned: $bad"

# An option that takes a value is given once: a second --seed was taken
# silently over the first.  A flag given twice changes nothing and runs.
expect_bad "lightrail rsa-sim: --seed given twice ('1', then '2'): give it once" \
    $LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 100 --warmup 10 \
    --seeds 1 --quiet --seed 1 --seed 2
expect_bad "lightrail rsa-sim: --loads given twice ('100:200:100', then '300'): give it once" \
    $LIGHTRAIL rsa-sim --topology "$T" --loads 100:200:100 --loads=300 \
    --requests 100 --warmup 10 --seeds 1 --quiet
$LIGHTRAIL rsa-sim --topology "$T" --load 100 --requests 100 --warmup 10 \
    --seeds 1 --quiet --quiet > /dev/null 2> "$tmp/err" \
    && ok "--quiet twice runs" || notok "--quiet twice: $(cat "$tmp/err")"

lr_summary
