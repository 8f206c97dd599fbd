# Shared pieces of the CLI tests (sourced, not run).
# Each test script ends with lr_summary, which prints the line
#   lr-test: N passed, M failed
# that tools/test-all sums, and exits non-zero on any failure.
srcdir=${srcdir:-.}
LIGHTRAIL=${LIGHTRAIL:-./lightrail}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
notok() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_bad WANT CMD...: CMD exits 2, prints nothing on stdout and exactly
# one line on stderr that contains WANT.
expect_bad() {
    want=$1
    shift
    "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
       && [ ! -s "$tmp/out" ] && grep -F -q -- "$want" "$tmp/err"; then
        ok "refused: $*"
    else
        notok "$* -> exit $rc, stderr: $(cat "$tmp/err"), want exit 2 and '$want'"
    fi
}

# await_file FILE PID LOG WHAT [TRIES]: waits (50 ms steps, 600 tries by
# default: sanitizer and valgrind builds on a loaded machine start slowly)
# until the server PID writes FILE; 1, with LOG shown, when it died first
# or never wrote it.
await_file() {
    for i in $(seq 1 "${5:-600}"); do
        [ -s "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || { echo "$4 died:"; cat "$3"; return 1; }
        sleep 0.05
    done
    echo "$4 (pid $2) did not write $1 in ${5:-600} x 50 ms:"
    cat "$3"
    return 1
}

# lr_fake_run SCRIPT ARG COMMAND [ARGS...]: starts `python3 SCRIPT ARG
# PORTFILE`, a fake lightraild on 127.0.0.1 (tests/cli/fakerest.py), runs
# `lightrail COMMAND --server URL --token $TOKEN ARGS` against it and
# stops it by its PID; sets RC (empty when the fake did not start),
# $tmp/out, $tmp/err and FAKE (its URL).
lr_fake_run() {
    _script=$1 _arg=$2 _cmd=$3
    shift 3
    rm -f "$tmp/fake.port"
    PYTHONPATH="$srcdir/tests/cli" python3 "$_script" "$_arg" "$tmp/fake.port" &
    FPID=$!
    await_file "$tmp/fake.port" $FPID /dev/null fake-lightraild \
        || { kill $FPID 2>/dev/null; RC=; notok "the fake lightraild ($_arg) did not start"; return; }
    FAKE=http://127.0.0.1:$(cat "$tmp/fake.port")
    $LIGHTRAIL "$_cmd" --server "$FAKE" --token "$TOKEN" "$@" \
        > "$tmp/out" 2> "$tmp/err"
    RC=$?
    kill $FPID 2>/dev/null
    wait $FPID 2>/dev/null
}

# lr_make_install ROOT VAR...: sets each shell variable VAR to make's $(VAR),
# the folder as configure set it (make expands ${prefix}; one per line, so
# an empty one stays empty), then runs `make install DESTDIR=ROOT` (counted
# as a check); on failure ends the test.
lr_make_install() {
    _root=$1
    shift
    _rule=
    for _v in "$@"; do _rule="$_rule \"\$($_v)\""; done
    printf "lr-dirs:\n\t@printf '%%s\\\\n'%s\n" "$_rule" \
        | $MAKE -s -f Makefile -f - lr-dirs > "$tmp/dirs" \
        || { notok "make could not say its folders"; lr_summary; exit; }
    for _v in "$@"; do IFS= read -r "$_v"; done < "$tmp/dirs"
    if $MAKE -s install DESTDIR="$_root" > "$tmp/install.log" 2>&1; then
        ok "make install DESTDIR=$_root"
    else
        notok "make install: $(tail -5 "$tmp/install.log")"
        lr_summary
        exit
    fi
}

# lr_fake_gnuplot: $tmp/gnuplot, a stand-in for gnuplot (give it as
# LIGHTRAIL_GNUPLOT) that draws nothing and appends each script it reads
# to $tmp/gnuplot.script (emptied here), so that a test reads the titles
# and labels a PNG would show.
lr_fake_gnuplot() {
    printf '#!/bin/sh\ncat >> "%s/gnuplot.script"\n' "$tmp" > "$tmp/gnuplot"
    chmod +x "$tmp/gnuplot"
    : > "$tmp/gnuplot.script"
}

# lr_sanitized: whether $LIGHTRAIL is a sanitizer build (configure
# --enable-sanitizers, which links libasan), 10 to 30 times slower at
# training than the plain build: a check of a long run may run it
# shorter there, leaving what only the whole run shows to the plain
# build (tools/test-all runs every script in both).
lr_sanitized() {
    ldd "$LIGHTRAIL" 2> /dev/null | grep -q libasan
}

# has_line LINE: whether $tmp/gnuplot.script has LINE, whole.
has_line() {
    grep -F -x -q -- "$1" "$tmp/gnuplot.script"
}

lr_summary() {
    echo "lr-test: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
