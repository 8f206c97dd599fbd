#!/bin/sh
# tools/bench/lr-bench-cdynp --tight, the command docs/cdynp.md cites for
# its figures on tight memory: on seeds 1801..1900 it counts the
# instances with a plan as exact does, and CDynP plans every one at
# exact's T (seed 1842, which it missed until the count-bounded runs of
# 2026-12-05, docs/cdynp.md, among them); its misuse is refused.  The
# other sections of the program measure time and are make bench's.
. "${srcdir:-.}/tests/cli/lib.sh"
B=${LR_BENCH_CDYNP:-tools/bench/lr-bench-cdynp}

if "$B" --tight 100 --first-seed 1801 > "$tmp/out" 2> "$tmp/err"; then
    ok "--tight 100 --first-seed 1801 exits 0"
else
    notok "--tight 100 --first-seed 1801 failed: $(cat "$tmp/err")"
fi
if grep -q 'seeds 1801\.\.1900' "$tmp/out" \
   && grep -q '^CDynP found none: none$' "$tmp/out" \
   && grep -q '^More than 5% above exact .*: none$' "$tmp/out"; then
    ok "seeds 1801..1900: CDynP misses none (1842 included)"
else
    notok "want no miss (seed 1842 was one) in: $(cat "$tmp/out")"
fi
# The table's row: instances with a plan, CDynP's misses, plans above
# exact, more than 5% above.
row=$(grep -E '^\| [0-9]+ \| [0-9]+ \|' "$tmp/out")
case "$row" in
"| 69 | 0 | 0 | 0 |"*) ok "69 instances with a plan, all at exact's T" ;;
*) notok "table row '$row', want 69 with a plan, none missed or above" ;;
esac

if "$B" --help > "$tmp/help" 2>&1 && grep -q -- '--tight' "$tmp/help"; then
    ok "--help describes --tight"
else
    notok "--help: $(cat "$tmp/help")"
fi
expect_bad "--first-seed is the first seed of --tight" "$B" --first-seed 3
expect_bad "--tight" "$B" --tight 0

# --wide: instances of 7 and 8 DCs, beyond the chains CDynP tries all
# of.  On seeds 11..14 the greedy chain's prefixes leave three plans
# more than 5% above exact (seed 13 93%); the default beam none above.
if "$B" --wide 4 --first-seed 11 > "$tmp/out" 2> "$tmp/err" \
   && grep -q 'beyond 6 DCs: 4 instances .*seeds 11\.\.14' "$tmp/out"; then
    ok "--wide 4 --first-seed 11 exits 0"
else
    notok "--wide 4 --first-seed 11: $(cat "$tmp/out" "$tmp/err")"
fi
if grep -qE '^\| greedy prefixes \| 4 \| 0 \| 3 \| 3 \|' "$tmp/out" \
   && grep -qE '^\| beam 8 \(default\) \| 4 \| 0 \| 0 \| 0 \|' "$tmp/out"
then
    ok "--wide: greedy prefixes 3 of 4 above exact, the beam none"
else
    notok "--wide rows, want greedy 3 of 4 above, beam 8 none: $(cat "$tmp/out")"
fi
expect_bad "--wide" "$B" --wide 0
expect_bad "two sweeps" "$B" --wide 2 --tight 2
expect_bad "--wide runs instead" "$B" --wide 2 --runs 3
expect_bad "--plot and --beam" "$B" --wide 2 --beam 3
expect_bad "--beam" "$B" --beam 65

# --beam 0 is the greedy chain's prefixes, as lightrail plan --beam 0 and
# lightraild's cdynp-beam 0 take it (-1, its older spelling, still is);
# it was the default width 8.  The bench says the search first and reads
# --man3 before measuring: a missing file ends it at once (exit 2, the
# file named), the settings line already out, and nothing measured.
if "$B" --beam 0 --man3 "$tmp/none.json" > "$tmp/beam" 2> "$tmp/beam.err"; then
    notok "--beam 0 with a missing --man3 exited 0"
elif grep -q "^Beyond 6 DCs: the greedy chain's prefixes only (--beam 0)" \
          "$tmp/beam" \
     && grep -q "none.json" "$tmp/beam.err" \
     && ! grep -q "^## " "$tmp/beam"; then
    ok "--beam 0: the greedy chain's prefixes, as plan --beam 0"
else
    notok "--beam 0: $(cat "$tmp/beam" "$tmp/beam.err")"
fi
lr_summary
