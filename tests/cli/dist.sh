#!/bin/sh
# `make dist` leaves out no file of the source: every file git tracks is
# in the tarball's list (DISTFILES: EXTRA_DIST, the dist_ data, the
# sources, folders), but for the few below that only a clone needs.  A file
# missing there breaks a test, a build or a link of the README in a tree
# unpacked from the tarball (examples/policies/metro-work.pol, which
# tests/cli/train.sh reads; docs/, which the README links to;
# tools/install-deps, its first step).  Outside a git clone of its own
# (a tarball, also one unpacked in another repository, as a packager's)
# there is nothing to compare with.
. "${srcdir:-.}/tests/cli/lib.sh"
command -v git > /dev/null || { echo "skip: git not installed"; exit 77; }
top=$(git -C "$srcdir" rev-parse --show-toplevel 2> /dev/null)
[ -n "$top" ] && [ "$top" = "$(cd "$srcdir" && pwd -P)" ] \
    && git -C "$srcdir" ls-files > "$tmp/git" && [ -s "$tmp/git" ] \
    || { echo "skip: $srcdir is not the top of a git clone"; exit 77; }
# The make of `make check` passes its job server in MAKEFLAGS, which a
# make run here must not take.
unset MAKEFLAGS MFLAGS MAKELEVEL
printf 'lr-distfiles:\n\t@echo $(DISTFILES)\n' \
    | ${MAKE:-make} -s -f Makefile -f - lr-distfiles > "$tmp/dist.raw" \
    || { notok "make could not list DISTFILES"; lr_summary; exit; }
# DISTFILES names files as $(srcdir)/F, $(top_srcdir)/F or F.
tr ' ' '\n' < "$tmp/dist.raw" \
    | awk -v p="$srcdir/" 'index($0, p) == 1 { $0 = substr($0, length(p) + 1) }
                           { sub(/^\.\//, ""); print }' | sort -u > "$tmp/dist"
# Only a clone's: its ignore list and CI's entry point; and a packager's
# debian/, in a packaging repository that tracks the source beside it.
grep -v -x -e '.gitignore' -e '.ci/run' "$tmp/git" | grep -v '^debian/' \
    | sort > "$tmp/want"
# A folder in EXTRA_DIST takes everything under it (tests/fuzz/corpus/wire).
awk 'NR == FNR { dist[$0] = 1; next }
     { p = $0; while (p != "" && !(p in dist)) sub(/\/?[^\/]*$/, "", p)
       if (p == "") print }' "$tmp/dist" "$tmp/want" > "$tmp/missing"
if [ -s "$tmp/want" ] && [ ! -s "$tmp/missing" ]; then
    ok "every tracked file but .gitignore and .ci/run is distributed ($(wc -l < "$tmp/want") files)"
else
    notok "tracked but not in the tarball (add them to EXTRA_DIST or a dist_ list in the folder's local.am): $(tr '\n' ' ' < "$tmp/missing")"
fi
lr_summary
