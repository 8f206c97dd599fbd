#!/bin/sh
# `lightrail plan`: the JSON contract, plans that cover every layer once,
# CDynP against exact on a small model, exit 3 with a reason, and one
# clear error (exit 2) for every kind of bad input.
. "${srcdir:-.}/tests/cli/lib.sh"
MAN3=$srcdir/examples/clusters/man3.json
TOY=$srcdir/examples/models/toy-4.json
BAD=$srcdir/tests/data/bad

# Every algorithm: the documented keys; stages cover layers 1..L in order;
# boundaries sit between consecutive stages.
for algo in cdynp exact dp pipedream spp; do
    if [ $algo = exact ]; then model="--model-file $TOY"; L=4; else model="--model gpt-1.9b"; L=36; fi
    if $LIGHTRAIL plan $model --cluster "$MAN3" --algo $algo --format json > "$tmp/$algo.json"; then
        if jq -e --argjson L $L --arg a $algo '
              .algorithm == $a and .feasible == true
              and (.iteration_time_s > 0) and (.search_time_s >= 0)
              and (.stages | length > 0)
              and (.stages | all(has("first_layer") and has("last_layer") and has("dc")
                                 and has("devices") and has("time_s") and has("memory_bytes")))
              and (if $a == "dp" then (.stages | all(.first_layer == 1 and .last_layer == $L))
                   else (.stages[0].first_layer == 1 and .stages[-1].last_layer == $L
                         and ([range(1; .stages | length) as $i
                               | .stages[$i].first_layer == .stages[$i - 1].last_layer + 1] | all)
                         and (.boundaries | length) == (.stages | length) - 1
                         and ([.boundaries[] | has("after_layer") and has("from_dc") and has("to_dc")
                               and has("bytes") and has("time_s")] | all))
                   end)' "$tmp/$algo.json" > /dev/null; then
            ok "$algo: a well-formed plan"
        else
            notok "$algo: malformed plan: $(cat "$tmp/$algo.json")"
        fi
    else
        notok "$algo: exit $?"
    fi
done

# On the toy model the exact optimum is never above CDynP.
$LIGHTRAIL plan --model-file "$TOY" --cluster "$MAN3" --format json > "$tmp/c.json"
if jq -e -s '.[0].iteration_time_s <= .[1].iteration_time_s * (1 + 1e-12)' \
      "$tmp/exact.json" "$tmp/c.json" > /dev/null; then
    ok "exact <= cdynp on toy-4"
else
    notok "exact above cdynp: $(jq -c .iteration_time_s "$tmp/exact.json" "$tmp/c.json")"
fi

# Text output names the iteration time; --plot writes a PNG.
if $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" | grep -q '^iteration time T = '; then
    ok "text table"
else
    notok "text table"
fi
if command -v gnuplot > /dev/null; then
    $LIGHTRAIL plan --model bert-large --cluster "$MAN3" --plot "$tmp/g.png" > /dev/null
    if [ "$(head -c 4 "$tmp/g.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; then
        ok "--plot wrote a PNG"
    else
        notok "--plot wrote no PNG"
    fi
fi

# The Gantt chart's title and axis in the unit that fits: toy-4's 2.42 ms
# and 2.51 ms once read "0.002 s; the model's T = 0.003 s".
lr_fake_gnuplot
LIGHTRAIL_GNUPLOT=$tmp/gnuplot $LIGHTRAIL plan --model-file "$TOY" \
    --cluster "$MAN3" --algo exact --plot "$tmp/toy.png" > /dev/null
has_line "set title 'toy-4 on man3.json, exact: one iteration, simulated GPipe schedule (makespan 2.42 ms; the model''s T = 2.51 ms)'" \
    && has_line "set xlabel 'time (ms)'" \
    && ok "--plot: the title names the cluster, times in ms" \
    || notok "--plot title: $(grep -e '^set title' -e '^set xlabel' "$tmp/gnuplot.script")"
# A LIGHTRAIL_GNUPLOT that is not there is named, with the way back.
LIGHTRAIL_GNUPLOT=$tmp/no-gnuplot $LIGHTRAIL plan --model-file "$TOY" \
    --cluster "$MAN3" --plot "$tmp/toy.png" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -F -q "LIGHTRAIL_GNUPLOT=$tmp/no-gnuplot: not a program this user can run (No such file or directory), so no plot was drawn; unset it to use the one configure found" "$tmp/err" \
    && ok "a LIGHTRAIL_GNUPLOT not there: exit 1, named" \
    || notok "LIGHTRAIL_GNUPLOT not there: exit $rc, $(cat "$tmp/err")"

# A slower WAN can only make the iteration longer.
t10=$($LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --inter-dc-gbps 10 --format json | jq .iteration_time_s)
t1=$($LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --inter-dc-gbps 1 --format json | jq .iteration_time_s)
if [ -n "$t1" ] && jq -n -e "$t1 >= $t10" > /dev/null; then
    ok "1 Gb/s no faster than 10 Gb/s ($t1 >= $t10)"
else
    notok "bandwidth sweep: 10 Gb/s $t10, 1 Gb/s $t1"
fi

# Every setting that changes the plan is in its JSON, as rsa-sim and sim
# name theirs: the cluster, the inter-DC rate of a bandwidth sweep (null:
# the cluster's own links), CDynP's window, order and device step, and
# exact's node bound; the text's first line names a --inter-dc-gbps too.
# Before, a sweep's JSON files could not tell their rates apart.
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --inter-dc-gbps 10 \
    --window 2 --order dc1,dc2 --device-step 2 --format json > "$tmp/set.json"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --format json > "$tmp/def.json"
$LIGHTRAIL plan --model-file "$TOY" --cluster "$MAN3" --algo exact \
    --format json > "$tmp/ex.json"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo dp \
    --format json > "$tmp/dp.json"
if jq -e --arg c "$MAN3" '.cluster == $c and .inter_dc_gbps == 10
        and .window == 2 and .order == "dc1,dc2" and .device_step == 2
        and has("beam") and .beam == null' \
        "$tmp/set.json" > /dev/null \
   && jq -e --arg c "$MAN3" '.cluster == $c and .inter_dc_gbps == null
        and .window == 4 and .order == null and .device_step == "auto"
        and .beam == 8' \
        "$tmp/def.json" > /dev/null \
   && jq -e '.max_nodes == 50000000 and (has("window") or has("beam") | not)' \
        "$tmp/ex.json" > /dev/null \
   && jq -e '(has("window") or has("max_nodes") or has("device_step")
              or has("beam")) | not' \
        "$tmp/dp.json" > /dev/null \
   && $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --inter-dc-gbps 10 \
        | head -1 | grep -q '; inter-DC links at 10 Gb/s (--inter-dc-gbps)$'; then
    ok "the JSON names cluster, inter-DC rate and the algorithm's settings"
else
    notok "plan settings: $(jq -c 'del(.stages, .boundaries)' "$tmp/set.json" "$tmp/def.json" "$tmp/ex.json")"
fi

# Well-formed but impossible: exit 3, the reason on stderr and in JSON.
$LIGHTRAIL plan --model llama2-70b --cluster "$MAN3" --format json > "$tmp/no.json" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q 'no plan: memory' "$tmp/err" \
   && jq -e '.feasible == false and (.reason | startswith("memory"))' "$tmp/no.json" > /dev/null; then
    ok "llama2-70b on man3: exit 3, memory"
else
    notok "llama2-70b on man3: exit $rc, $(cat "$tmp/err")"
fi

# The advice fits the request: a microbatch of one sample cannot shrink.
$LIGHTRAIL plan --model llama2-70b --cluster "$MAN3" --microbatch 1 2> "$tmp/err"
grep -q 'use more devices (the microbatch is one sample already)$' "$tmp/err" \
    && ok "memory, microbatch 1: no smaller microbatch advised" \
    || notok "memory, microbatch 1: $(cat "$tmp/err")"
$LIGHTRAIL plan --model llama2-70b --cluster "$MAN3" --microbatch 2 2> "$tmp/err"
grep -q 'use more devices or a smaller microbatch$' "$tmp/err" \
    && ok "memory, microbatch 2: a smaller microbatch advised" \
    || notok "memory, microbatch 2: $(cat "$tmp/err")"

# Bad input: exit 2 and one line.
expect_bad "unknown model preset 'gpt-5'" $LIGHTRAIL plan --model gpt-5 --cluster "$MAN3"
expect_bad "--order: item 2 of 'dc1,,dc2' is empty: give the data centers separated by single commas" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --order dc1,,dc2
expect_bad "--microbatch 3 does not divide --batch 32" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --microbatch 3
expect_bad "is 1e+07 microbatches, more than the 1000000" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --batch 1e7
expect_bad "--batch wants a number of samples from 1 to 1e9, not '2147483647'" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --batch 2147483647
expect_bad "device-count: Unsatisfied range" $LIGHTRAIL plan --model gpt-1.9b --cluster "$BAD/cluster_zero_devices.json"
expect_bad "device-count: Unsatisfied range" $LIGHTRAIL plan --model gpt-1.9b --cluster "$BAD/cluster_huge_devices.json"
expect_bad "bandwidth-gbps: Unsatisfied range" $LIGHTRAIL plan --model gpt-1.9b --cluster "$BAD/cluster_negative_bw.json"
expect_bad "--algo wants cdynp, exact" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo greedy
expect_bad "--order: no data center 'dc9'" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --order dc1,dc9
# Neighbours of the chain that no inter-DC link joins are named before
# planning (it said only "no plan: consecutive data centers have no
# inter-DC link", exit 3).
jq 'del(."lightrail-compute:compute"."inter-dc-link"[]
        | select(.from == "dc1" and .to == "dc4"))' \
    "$srcdir/examples/clusters/scale-4dc.json" > "$tmp/nolink.json"
expect_bad "--order: no inter-DC link joins dc1 and dc4 in the cluster: give an order whose neighbours are linked" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/nolink.json" --order dc2,dc1,dc4
expect_bad "give one of --model NAME or --model-file FILE" $LIGHTRAIL plan --cluster "$MAN3"
expect_bad "--cluster FILE is required" $LIGHTRAIL plan --model gpt-1.9b
expect_bad "model_layer_gap.json: " $LIGHTRAIL plan --model-file "$BAD/model_layer_gap.json" --cluster "$MAN3"
expect_bad "model_malformed.json" $LIGHTRAIL plan --model-file "$BAD/model_malformed.json" --cluster "$MAN3"
# Cut short after the top member's name: libyang read it as a file
# without that member ('missing: not a lightrail-compute file').
printf '{"lightrail-compute:compute": ' > "$tmp/cut.json"
expect_bad "$tmp/cut.json: malformed JSON: the text ends inside its object (line 1)" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$tmp/cut.json"
expect_bad "$tmp/cut.json: malformed JSON: the text ends inside its object (line 1)" \
    $LIGHTRAIL plan --model-file "$tmp/cut.json" --cluster "$MAN3"
expect_bad "--window wants an integer" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --window -5
# A value past the bound is told the bound: the message named only the
# kind of number ('a non-negative integer'), which the value was.
expect_bad "--max-nodes wants a positive integer, up to 1099511627776, not '1099511627777'" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo exact --max-nodes 1099511627777
# Above the layer limit: the message gives the bound it broke.
expect_bad "--window wants an integer from -1 to 4096 (-1: the whole range), not '5000'" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --window 5000
# Another algorithm's options are refused, not ignored.
expect_bad "--algo dp does not use them" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo dp --order dc2
expect_bad "--algo spp does not use them" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo spp --window 2
expect_bad "--algo pipedream does not use it" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo pipedream --max-nodes 10
expect_bad "--algo spp does not use them" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo spp --device-step 2
# auto too: an option given that the plan would not use is refused.
expect_bad "--algo spp does not use them" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo spp --device-step auto
expect_bad "--device-step do not apply" $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$MAN3" --device-step auto
expect_bad "--device-step wants a number of devices" $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step 0
# --plot is checked before planning (which can take minutes): a folder
# that does not exist, a folder as the file, or a data-parallel plan is
# refused with nothing printed.
expect_bad "--plot $tmp/no/such/g.png: cannot write a file there: No such file or directory" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --plot "$tmp/no/such/g.png"
expect_bad "--plot $tmp: cannot write a file there: Is a directory" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --plot "$tmp"
expect_bad "--plot draws a pipeline; a data-parallel plan (--algo dp) has none" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --algo dp --plot "$tmp/dp.png"

# --device-step: stages on multiples of it (man3's DCs hold 8, 4 and 4),
# and 1 (every count) is what the automatic step gives DCs this small.
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step 2 \
    --format json > "$tmp/step2.json" 2> "$tmp/err"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step 1 \
    --format json > "$tmp/step1.json" 2>> "$tmp/err"
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step auto \
    --format json > "$tmp/stepa.json" 2>> "$tmp/err"
if jq -e '.feasible and (.stages | length) >= 2
          and all(.stages[]; .devices % 2 == 0)' "$tmp/step2.json" > /dev/null \
   && jq -e '[.stages[].devices] | any(. % 2 == 1)' "$tmp/step1.json" > /dev/null \
   && [ "$(jq -c '[.iteration_time_s, .stages]' "$tmp/step1.json")" \
        = "$(jq -c '[.iteration_time_s, .stages]' "$tmp/stepa.json")" ]; then
    ok "--device-step 2: every stage on an even number of devices; 1 = auto here"
else
    notok "--device-step: $(cat "$tmp/err") $(jq -c '[.stages[].devices]' "$tmp/step2.json" "$tmp/step1.json")"
fi

# A step above a DC's devices is the DC's (planner/lr_cdynp.h): man3's
# DCs of 8, 4 and 4 get stages of all their devices, as --help says.
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step 16 \
    --format json > "$tmp/step16.json" 2> "$tmp/err"
if jq -e '.feasible and all(.stages[]; .devices == (if .dc == "dc1" then 8 else 4 end))' \
       "$tmp/step16.json" > /dev/null \
   && $LIGHTRAIL plan --help | tr -s ' \n' ' ' \
      | grep -q "a DC of fewer than S devices: all of them, one stage"; then
    ok "--device-step 16: each of man3's DCs of 8 and 4 on all its devices, as --help says"
else
    notok "--device-step 16: $(cat "$tmp/err") $(jq -c '[.stages[] | [.dc, .devices]]' "$tmp/step16.json")"
fi

# --device-step best: a plan whose stages hold every layer once, in order,
# none on more devices than its DC has; a misspelt mode is refused.
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step best \
    --format json > "$tmp/stepb.json" 2> "$tmp/err"
if jq -e '.feasible and .stages[0].first_layer == 1
          and .stages[-1].last_layer == 36
          and ([.stages[].last_layer] | . == sort)
          and all(.stages[]; .devices >= 1
                  and .devices <= (if .dc == "dc1" then 8 else 4 end))' \
       "$tmp/stepb.json" > /dev/null; then
    ok "--device-step best: a plan over man3 ($(jq -c '[.stages[].devices]' "$tmp/stepb.json"))"
else
    notok "--device-step best: $(cat "$tmp/err") $(cat "$tmp/stepb.json")"
fi
expect_bad "--device-step wants a number of devices from 1 to 1000000, auto or best" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --device-step Best

# An option that takes a value is given once (a second --inter-dc-gbps
# was taken silently over the first).
expect_bad "lightrail plan: --inter-dc-gbps given twice ('10', then '5'): give it once" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --inter-dc-gbps 10 \
    --inter-dc-gbps 5

# --distributed (man3 has no remote DC: every DC is planned in this
# process) names what it planned with as plan's cdynp does: the cluster,
# the inter-DC rate (the cluster's: null), --window and --order; its
# device step is each DC's own (null).  Its sum_s, the one part of T it
# shares with plan, is plan's too (before, plan had no sum_s and
# --distributed none of the settings).
$LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --window 2 \
    --order dc1,dc2,dc3 --format json > "$tmp/nd.json"
$LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$MAN3" \
    --window 2 --order dc1,dc2,dc3 --format json > "$tmp/d.json"
jq -e -n --slurpfile a "$tmp/nd.json" --slurpfile b "$tmp/d.json" '
    $a[0] as $n | $b[0] as $d
    | $d.algorithm == "cdynp-distributed"
    and all("model", "batch", "microbatch", "microbatches", "cluster",
            "inter_dc_gbps", "window", "order", "beam", "feasible";
            . as $k | $d | has($k) and .[$k] == $n[$k])
    and $d.window == 2 and $d.order == "dc1,dc2,dc3"
    and $d.inter_dc_gbps == null and ($d | has("device_step"))
    and $d.device_step == null
    and ($n.sum_s - ($n.compute_sum_s + $n.comm_sum_s) | fabs) < 1e-12
    and ($d.sum_s - $n.sum_s | fabs) <= 1e-9 * $n.sum_s
    and ($d.iteration_time_s - $n.iteration_time_s | fabs)
        <= 1e-9 * $n.iteration_time_s' > /dev/null \
    && ok "plan --distributed JSON: the settings and sum_s of plan's" \
    || notok "plan --distributed JSON against plan's: $(jq -c 'del(.stages, .boundaries, .dcs)' "$tmp/nd.json" "$tmp/d.json")"

# --beam B: CDynP's beam width beyond 6 DCs (0: the greedy chain's
# prefixes only, the search before 2026-12-06), which only
# lr-bench-cdynp set before.  tests/data/wide-7 and wide-13 are seeds 7
# (7 DCs) and 13 (8 DCs) of lr_instance_random_dcs(seed, 7, 8), the
# instances test_cdynp_beam_beyond_all_orders plans, written as a
# user's files (figures rounded to the files' decimals; seed 13 draws
# microbatch 2): the greedy prefixes stay far above the beam's T (0.539
# against 0.322 s, and 0.553 against 0.286 s), whose chains are no
# greedy prefix.  The default is width 8, and the JSON names the width;
# plan --distributed (every DC in this process here) takes it too.
WIDE=$srcdir/tests/data
: > "$tmp/err"
for w in 7:1 13:2; do
    s=${w%:*} m=${w#*:}
    for b in 0 8 def; do
        [ $b = def ] && beam= || beam="--beam $b"
        $LIGHTRAIL plan --model-file "$WIDE/wide-$s/model.json" \
            --cluster "$WIDE/wide-$s/cluster.json" --microbatch $m $beam \
            --format json > "$tmp/w$s.$b.json" 2>> "$tmp/err"
        $LIGHTRAIL plan --distributed --model-file "$WIDE/wide-$s/model.json" \
            --cluster "$WIDE/wide-$s/cluster.json" --microbatch $m $beam \
            --format json > "$tmp/wd$s.$b.json" 2>> "$tmp/err"
    done
    if jq -e -n --slurpfile g "$tmp/w$s.0.json" --slurpfile b "$tmp/w$s.8.json" \
         --slurpfile d "$tmp/w$s.def.json" --slurpfile dg "$tmp/wd$s.0.json" \
         --slurpfile db "$tmp/wd$s.8.json" '
        $g[0].beam == 0 and $b[0].beam == 8 and $d[0].beam == 8
        and $dg[0].beam == 0 and $db[0].beam == 8
        and $g[0].iteration_time_s > 1.5 * $b[0].iteration_time_s
        and $d[0].iteration_time_s == $b[0].iteration_time_s
        and ($dg[0].iteration_time_s - $g[0].iteration_time_s | fabs)
            <= 1e-9 * $g[0].iteration_time_s
        and ($db[0].iteration_time_s - $b[0].iteration_time_s | fabs)
            <= 1e-9 * $b[0].iteration_time_s' > /dev/null; then
        ok "--beam on wide-$s: width 0 T $(jq .iteration_time_s "$tmp/w$s.0.json") s, width 8 (the default) $(jq .iteration_time_s "$tmp/w$s.8.json") s, --distributed alike"
    else
        notok "--beam on wide-$s: $(cat "$tmp/err") $(jq -c '[.beam, .iteration_time_s]' "$tmp/w$s.0.json" "$tmp/w$s.8.json" "$tmp/w$s.def.json" "$tmp/wd$s.0.json" "$tmp/wd$s.8.json" | tr '\n' ' ')"
    fi
done
expect_bad "lightrail plan: --beam wants a width from 0 to 64 (0: the greedy chain's prefixes only), not '65'" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --beam 65
expect_bad "lightrail plan: --beam wants a width from 0 to 64 (0: the greedy chain's prefixes only), not '-1'" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --beam -1
expect_bad "lightrail plan: --beam wants a width from 0 to 64 (0: the greedy chain's prefixes only), not 'wide'" \
    $LIGHTRAIL plan --distributed --model gpt-1.9b --cluster "$MAN3" --beam wide
expect_bad "lightrail plan: --beam given twice ('4', then '8'): give it once" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --beam 4 --beam 8
expect_bad "--algo exact does not use them" \
    $LIGHTRAIL plan --model-file "$TOY" --cluster "$MAN3" --algo exact --beam 4
expect_bad "lightrail plan: --beam searches chains of DCs and --order gives the one chain: give one of them" \
    $LIGHTRAIL plan --model gpt-1.9b --cluster "$MAN3" --order dc1,dc2 --beam 4

lr_summary
