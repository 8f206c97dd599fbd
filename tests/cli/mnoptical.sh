#!/bin/sh
# `lightrail mnoptical check` against the Mininet-Optical REST TEST DOUBLE
# (tests/cli/mno-double, tests/unit/mno_double.h: t1-r1-r2-r3-t2, its
# receiver's monitor reporting a gOSNR of 17 dB, with a bare Infinity
# beside it): 8QAM (16 dB) is received with +1.0 dB, 16QAM (20 dB) is
# refused with exit 3 naming the 3.0 dB shortfall; bad input is exit 2
# with one line, an emulator nobody serves exit 6.  The double is started
# here on 127.0.0.1 (a free port) and stopped by its PID, also on failure.
# With --modulations the thresholds are the CSV's minimum_osnr.
. "${srcdir:-.}/tests/cli/lib.sh"
DOUBLE=${MNO_DOUBLE:-./tests/cli/mno-double}
dpid=
trap '[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid"; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

"$DOUBLE" "$tmp/port" 17 > "$tmp/double.log" 2>&1 &
dpid=$!
await_file "$tmp/port" "$dpid" "$tmp/double.log" "mno-double" \
    || { notok "the test double did not start"; lr_summary; exit 1; }
EMU=http://127.0.0.1:$(cat "$tmp/port")
# Channels 5-6 (n - m = 8 x 5 - 292, m = 8).
chk() { $LIGHTRAIL mnoptical check --emulator "$EMU" --path t1,r1,r2,r3,t2 \
        --eth-ports 1,1 --n -244 --m 8 "$@"; }

chk --modulation 8QAM > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q -x 't1 -> t2 on channel 5: gOSNR 17.0 dB (OSNR 17.5 dB), 8QAM needs 16.0 dB: margin +1.0 dB, received' "$tmp/out"; then
    ok "8QAM received with +1.0 dB"
else
    notok "8QAM: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi

chk --modulation 16QAM > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q 'margin -3.0 dB, NOT received' "$tmp/out" \
   && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
   && grep -q -F 'lightrail mnoptical: t1 -> t2: gOSNR 17.0 dB on channel 5 is 3.0 dB below 16QAM'"'"'s threshold of 20.0 dB' "$tmp/err"; then
    ok "16QAM refused (exit 3) naming the margin"
else
    notok "16QAM: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi

# --modulations: the threshold is the table's.  8QAM at the DeepRMSA
# file's 18.6 dB is refused at 17 dB; a format only the file names is
# judged by its minimum_osnr; one the file gives no threshold is bad
# input naming the column; 16QAM keeps its default where the cell is
# empty.
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\n8QAM,1250,3,18.6\n64QAM,300,6,16.5\n32QAM,500,5,\n16QAM,625,4,\n' > "$tmp/mods.csv"
chk --modulation 8QAM --modulations "$tmp/mods.csv" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q -x 't1 -> t2 on channel 5: gOSNR 17.0 dB (OSNR 17.5 dB), 8QAM needs 18.6 dB: margin -1.6 dB, NOT received' "$tmp/out" \
   && grep -q -F "1.6 dB below 8QAM's threshold of 18.6 dB" "$tmp/err"; then
    ok "--modulations: 8QAM at the file's 18.6 dB refused (exit 3)"
else
    notok "--modulations 8QAM: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
# The gOSNR, threshold and margin in hundredths, as GET keeps a
# measurement (lr_mod_gosnr_text()): at one decimal 17 against a
# table's 17.04 read "needs 17.0 dB: margin -0.0 dB, NOT received".
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\n8QAM,1250,3,17.04\n' > "$tmp/mods2.csv"
chk --modulation 8QAM --modulations "$tmp/mods2.csv" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 3 ] && grep -q -x 't1 -> t2 on channel 5: gOSNR 17.0 dB (OSNR 17.5 dB), 8QAM needs 17.04 dB: margin -0.04 dB, NOT received' "$tmp/out" \
   && grep -q -F "gOSNR 17.0 dB on channel 5 is 0.04 dB below 8QAM's threshold of 17.04 dB" "$tmp/err"; then
    ok "a threshold of 17.04 dB and its margin said in hundredths"
else
    notok "17.04 dB: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
chk --modulation 64QAM --modulations "$tmp/mods.csv" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q '64QAM needs 16.5 dB: margin +0.5 dB, received' "$tmp/out"; then
    ok "--modulations: a format only the file names, judged by its minimum_osnr"
else
    notok "--modulations 64QAM: exit $rc, $(cat "$tmp/out" "$tmp/err")"
fi
chk --modulation 16QAM --modulations "$tmp/mods.csv" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q '16QAM needs 20.0 dB' "$tmp/out" \
    && ok "--modulations: an empty cell keeps the default's 20 dB" \
    || notok "--modulations 16QAM: exit $rc, $(cat "$tmp/out" "$tmp/err")"
expect_bad "--modulation: '32QAM' has no OSNR threshold in $tmp/mods.csv: give it in the file's minimum_osnr column (dB), or choose another format" \
    chk --modulation 32QAM --modulations "$tmp/mods.csv"
expect_bad "--modulation: one of 8QAM, 64QAM, 32QAM, 16QAM (the formats of $tmp/mods.csv), not 'QPSK'" \
    chk --modulation QPSK --modulations "$tmp/mods.csv"
printf 'name,maximum_length,spectral_efficiency,minimum_osnr\n8QAM,1250,3,18.6 dB\n' > "$tmp/badmods.csv"
expect_bad "$tmp/badmods.csv: line 2: format '8QAM': column 4, minimum_osnr, is '18.6 dB'" \
    chk --modulation 8QAM --modulations "$tmp/badmods.csv"

expect_bad "check needs --emulator" $LIGHTRAIL mnoptical check --path t1,r1,t2
expect_bad "--path: item 2 of 't1,,r1,r2,r3,t2' is empty: give the nodes separated by single commas" \
    $LIGHTRAIL mnoptical check --emulator "$EMU" --path t1,,r1,r2,r3,t2 \
    --eth-ports 1,1 --n -244 --m 8 --modulation 8QAM
expect_bad "--modulation: one of BPSK, QPSK, 8QAM, 16QAM, not '64QAM'" \
    chk --modulation 64QAM
expect_bad "is 75.0 GHz wide, not a whole number of the emulator's 50 GHz channels" \
    $LIGHTRAIL mnoptical check --emulator "$EMU" --path t1,r1,r2,r3,t2 \
    --eth-ports 1,1 --n -244 --m 6 --modulation QPSK
expect_bad "the emulator's node 't9' is unknown, not a Terminal" \
    $LIGHTRAIL mnoptical check --emulator "$EMU" --path t1,r1,r2,r3,t9 \
    --eth-ports 1,1 --n -244 --m 8 --modulation QPSK
# Written out: chk's own --eth-ports 1,1 and this one would be a repeat,
# refused as such before the value is judged.
expect_bad "--eth-ports: two port numbers E1,E2" \
    $LIGHTRAIL mnoptical check --emulator "$EMU" --path t1,r1,r2,r3,t2 \
    --eth-ports 1 --n -244 --m 8 --modulation QPSK
expect_bad "unknown subcommand 'frob'" $LIGHTRAIL mnoptical frob
# A bad option is one line, ours (getopt's "check: option ..." was first).
expect_bad "unknown or incomplete option '--n' (see lightrail mnoptical --help)" \
    $LIGHTRAIL mnoptical check --n
expect_bad "unknown or incomplete option '--bogus' (see lightrail mnoptical --help)" \
    $LIGHTRAIL mnoptical check --bogus

$LIGHTRAIL mnoptical check --emulator http://127.0.0.1:1 --path t1,r1,t2 \
    --eth-ports 1,1 --n -244 --m 8 --modulation QPSK > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 6 ] && grep -q 'cannot connect to http://127.0.0.1:1/.*: refused, nothing listens on port 1 of 127.0.0.1: nothing sent; check' "$tmp/err"; then
    ok "no emulator: exit 6"
else
    notok "no emulator: exit $rc, $(cat "$tmp/err")"
fi

$LIGHTRAIL mnoptical --help > "$tmp/out" 2>&1 && grep -q 'usage: lightrail mnoptical check' "$tmp/out" \
    && ok "--help" || notok "--help: $(cat "$tmp/out")"

lr_summary
