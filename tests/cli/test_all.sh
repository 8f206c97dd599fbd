#!/bin/sh
# tools/test-all, what CI runs, refuses a tree configured in place (the
# README's first command runs ./configure at the top) at once, saying
# what to do, before it installs or builds anything: its builds are out
# of the tree (build-asan/, build/), which configure refuses then.
# It runs a copy of the script in a scratch tree that has only a
# config.status: nothing else there for it to run.
. "${srcdir:-.}/tests/cli/lib.sh"

mkdir -p "$tmp/top/tools"
cp "$srcdir/tools/test-all" "$tmp/top/tools/test-all"
: > "$tmp/top/config.status"
"$tmp/top/tools/test-all" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
   && grep -q "is configured in place" "$tmp/err" \
   && grep -q "run 'make distclean'" "$tmp/err" \
   && [ ! -e "$tmp/top/build-asan" ] && [ ! -e "$tmp/top/build" ]; then
    ok "test-all in a tree configured in place: exit 1, $(cat "$tmp/err")"
else
    notok "test-all in a tree configured in place: exit $rc," \
          "stderr $(cat "$tmp/err"), stdout $(cat "$tmp/out")"
fi

lr_summary
