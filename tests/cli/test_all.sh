#!/bin/sh
# tools/test-all, what CI runs, in a tree configured in place (the
# README's first command runs ./configure at the top): its builds are
# out of the tree (build-asan/, build/), which configure refuses then,
# so it cleans the tree with 'make distclean' first, saying so, and
# stops with what to do when that fails; and a step that fails where no
# test log says so counts in its totals.  It runs a copy of the script
# in scratch trees: a stand-in Makefile and tools/install-deps that
# record they ran, and fail, so that nothing is installed or built.
. "${srcdir:-.}/tests/cli/lib.sh"

scratch() {   # scratch DIR: a tree with the script and a config.status
    mkdir -p "$1/tools"
    cp "$srcdir/tools/test-all" "$1/tools/test-all"
    : > "$1/config.status"
    printf '#!/bin/sh\necho install-deps ran >&2\nexit 1\n' > "$1/tools/install-deps"
    chmod +x "$1/tools/install-deps"
}

# make distclean works: the tree is cleaned, then test-all goes on.
scratch "$tmp/a"
printf 'distclean:\n\trm -f config.status\n' > "$tmp/a/Makefile"
"$tmp/a/tools/test-all" > "$tmp/out" 2> "$tmp/err"
if [ ! -e "$tmp/a/config.status" ] \
   && grep -q "was configured in place" "$tmp/err" \
   && grep -q "cleaning it with 'make distclean'" "$tmp/err" \
   && grep -q "install-deps ran" "$tmp/err"; then
    ok "test-all in a tree configured in place: cleaned it, went on"
else
    notok "test-all after make distclean: $(cat "$tmp/err" "$tmp/out")"
fi

# make distclean fails (no Makefile): exit 1 at once, saying what to do.
scratch "$tmp/b"
"$tmp/b/tools/test-all" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ -e "$tmp/b/config.status" ] \
   && grep -q "'make distclean' in $tmp/b failed: clean the tree by hand" "$tmp/err" \
   && ! grep -q "install-deps ran" "$tmp/err" \
   && [ ! -e "$tmp/b/build-asan" ] && [ ! -e "$tmp/b/build" ]; then
    ok "test-all where make distclean fails: exit 1, said what to do"
else
    notok "test-all, distclean failing: exit $rc, $(cat "$tmp/err" "$tmp/out")"
fi

# Builds that fail are failures in the totals, not "0 passed, 0 failed"
# (a stand-in configure that fails, autoreconf and install-deps that
# succeed; no make runs).
mkdir -p "$tmp/c/tools" "$tmp/bin"
cp "$srcdir/tools/test-all" "$tmp/c/tools/test-all"
printf '#!/bin/sh\nexit 0\n' > "$tmp/c/tools/install-deps"
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/autoreconf"
printf '#!/bin/sh\necho configure refused >&2\nexit 1\n' > "$tmp/c/configure"
chmod +x "$tmp/c/tools/install-deps" "$tmp/bin/autoreconf" "$tmp/c/configure"
PATH="$tmp/bin:$PATH" "$tmp/c/tools/test-all" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "^steps that failed:" "$tmp/out" \
   && grep -q "build-asan: configure or make failed" "$tmp/out" \
   && grep -q "build: configure or make failed" "$tmp/out" \
   && [ "$(tail -n 1 "$tmp/out")" = "0 passed, 2 failed" ]; then
    ok "test-all: two builds that fail count as two failures"
else
    notok "test-all with failing builds: exit $rc, $(tail -n 5 "$tmp/out")"
fi

lr_summary
