#!/bin/sh
# Every benchmark of tools/bench reads a number option as lightrail does
# (bench_opt.h: lr_parse_long, lr_parse_double): atoi() and strtod() read
# "x" as 0, so "--runs x" ran nothing, and " 5", "0x10" or "1e6" as
# numbers nobody wrote ("--requests 1e6" was 1).  Each bad value is
# refused before anything is read, started or connected to, with one
# line naming the option, what it wants and the value.  The programs
# from before measured some of these: timeout stops them (exit 124).
. "${srcdir:-.}/tests/cli/lib.sh"
B=tools/bench

# bad PROG OPT VALUE WANT [ARGS...]: PROG ARGS --OPT VALUE is refused.
bad() {
    prog=$1 opt=$2 val=$3 want=$4
    shift 4
    expect_bad "$prog: --$opt wants $want, not '$val'" \
        timeout 20 "$B/$prog" "$@" --"$opt" "$val"
}
W='a whole number from'
bad lr-bench-api clients x "$W 1 to 256"
bad lr-bench-api clients 257 "$W 1 to 256"
bad lr-bench-api seconds 0x10 "a positive number, up to 86400"
bad lr-bench-api gpus " 8" "$W 1 to 2147483647"
bad lr-bench-cdynp runs " 5" "$W 1 to 2147483647"
bad lr-bench-cdynp beam x "$W -1 to 64"
bad lr-bench-jenv runs x "$W 1 to 32"
bad lr-bench-ksp runs x "$W 1 to 100"
bad lr-bench-ksp max-n 15 "$W 16 to 128"
bad lr-bench-linux pairs x "$W 1 to 2147483647"
bad lr-bench-linux runs 0 "$W 1 to 2147483647"
bad lr-bench-linux scale nan "a positive number, up to 1000000"
bad lr-bench-netconf runs x "$W 1 to 2147483647"
bad lr-bench-netconf batch 1001 "$W 1 to 1000"
bad lr-bench-ppo runs 33 "$W 1 to 32"
bad lr-bench-ppo steps 1e5 "$W 1000 to 9223372036854775807"
bad lr-bench-replay load x "a positive number, up to 1000000000"
bad lr-bench-replay arrivals 1e3 "$W 1 to 1000000000"
bad lr-bench-replay warmup -1 "$W 0 to 1000000000"
bad lr-bench-replay seeds x "$W 1 to 64"
bad lr-bench-replay seed " 1" "$W 0 to 2147483647"
bad lr-bench-replay mean-job-s 0 "a positive number, up to 1000000000"
bad lr-bench-replay work-cap inf "a positive number, up to 1000000000"
bad lr-bench-rsa runs x "$W 1 to 2147483647"
bad lr-bench-rsa requests 1e6 "$W 1000 to 9223372036854775807"
bad lr-bench-rsa decisions " 5" "$W 1 to 9223372036854775807"
bad lr-bench-rsa jpn-load x "a positive number, up to 1000000000"
# The timeout of each NETCONF session, from the environment, likewise
# (atoi() read "5s" as 5 ms); refused before the device is connected to.
expect_bad "lr-bench-netconf: SB_TIMEOUT_MS wants a whole number of milliseconds from 0 to 2147483647, not '5s'" \
    env SB_TIMEOUT_MS=5s timeout 20 "$B/lr-bench-netconf" a=127.0.0.1:1
# A number as a person writes it is read: with --help after it, exit 0.
for args in "lr-bench-rsa --runs +3 --jpn-load 1.5e2" \
            "lr-bench-replay --seed 007 --load .5"; do
    if $B/$args --help > /dev/null 2> "$tmp/err" && [ ! -s "$tmp/err" ]; then
        ok "read: $args"
    else
        notok "$args --help: $(cat "$tmp/err")"
    fi
done
lr_summary
