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

# Where the time went: each step's line has the time it began, and
# before the totals the ten slowest test programs of each build, by the
# lr-time line tests/lr-time ends each log with (a stand-in make whose
# check writes twelve logs, 1.5 to 12.5 s, and a test-suite.log, which
# is not a test).
mkdir -p "$tmp/d/tools" "$tmp/dbin"
cp "$srcdir/tools/test-all" "$tmp/d/tools/test-all"
printf '#!/bin/sh\nexit 0\n' > "$tmp/d/tools/install-deps"
printf '#!/bin/sh\nexit 0\n' > "$tmp/d/configure"
printf '#!/bin/sh\nexit 0\n' > "$tmp/dbin/autoreconf"
cat > "$tmp/dbin/make" <<'EOF'
#!/bin/sh
dir=. target=
while [ $# -gt 0 ]; do
    case $1 in -C) dir=$2; shift ;; -*|*=*) ;; *) target=$1 ;; esac
    shift
done
[ "$target" = check ] || exit 0
mkdir -p "$dir/tests/cli"
n=0
for t in a b c d e f g h i j k l; do
    n=$((n + 1))
    printf 'lr-test: 1 passed, 0 failed\nlr-time: %s.5 s\n' $n \
        > "$dir/tests/cli/$t.sh.log"
done
printf 'lr-time: 99.0 s\n' > "$dir/tests/test-suite.log"
EOF
chmod +x "$tmp/d/tools/install-deps" "$tmp/d/configure" \
    "$tmp/dbin/autoreconf" "$tmp/dbin/make"
PATH="$tmp/dbin:$PATH" "$tmp/d/tools/test-all" > "$tmp/out" 2> "$tmp/err"
rc=$?
sed -n '/^slowest tests in build-asan/,/^$/p' "$tmp/out" > "$tmp/slow"
want=$(for n in 12 11 10 9 8 7 6 5 4 3; do
           t=$(echo abcdefghijkl | cut -c$n)
           printf '%8s  %s\n' $n.5 "build-asan/tests/cli/$t.sh"
       done)
if [ $rc -eq 0 ] && [ "$(tail -n 1 "$tmp/out")" = "24 passed, 0 failed" ] \
   && [ "$(sed -n 2,11p "$tmp/slow")" = "$want" ] \
   && [ "$(grep -c '^slowest tests in build (seconds):$' "$tmp/out")" -eq 1 ] \
   && ! grep -q '99\.0' "$tmp/out" \
   && [ "$(grep -c '^=== [0-2][0-9]:[0-5][0-9]:[0-6][0-9] ' "$tmp/out")" \
        = "$(grep -c '^=== ' "$tmp/out")" ] \
   && grep -q '^=== [0-9:]* make check (ASan + UBSan)$' "$tmp/out"; then
    ok "test-all: each step timed; the ten slowest tests of each build"
else
    notok "test-all's times: exit $rc, $(cat "$tmp/out")"
fi

# tests/lr-time, make check's wrapper of each test: the test's output,
# then its seconds; its exit status (77: skipped) kept.
sh "$srcdir/tests/lr-time" sh -c 'echo hello; sleep 0.2; exit 77' \
    > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 77 ] && [ "$(sed -n 1p "$tmp/out")" = hello ] \
   && [ "$(wc -l < "$tmp/out")" -eq 2 ] \
   && sed -n 2p "$tmp/out" | grep -q '^lr-time: 0\.[2-9] s$'; then
    ok "tests/lr-time: the output, its seconds last, the exit status kept"
else
    notok "tests/lr-time: exit $rc, $(cat "$tmp/out")"
fi

lr_summary
