#!/bin/sh
# Every benchmark of tools/bench refuses an option given twice, as every
# lightrail command does (lr_opt_once.h): "--runs 1 --runs 2" ran 2
# runs without a word, so a command line assembled from a script's
# defaults and a user's overrides measured what neither part said.
# Each is refused before anything is read, started or connected to
# (lr-bench-linux needs root and a network namespace, lr-bench-netconf
# and lr-bench-api a server: none is needed to be refused).
. "${srcdir:-.}/tests/cli/lib.sh"
B=tools/bench

twice() {
    prog=$1 opt=$2
    shift 2
    expect_bad "$prog: --$opt given twice ('1', then '2'): give it once" \
        "$B/$prog" "$@" --"$opt" 1 --"$opt" 2
}
twice lr-bench-api clients
twice lr-bench-cdynp runs
twice lr-bench-jenv runs
twice lr-bench-ksp runs
twice lr-bench-linux runs
twice lr-bench-netconf runs
twice lr-bench-netconf batch
twice lr-bench-ppo runs
twice lr-bench-replay seeds
twice lr-bench-rsa runs
# The two spellings of one option are one option.
expect_bad "lr-bench-rsa: --runs given twice ('1', then '2')" \
    "$B/lr-bench-rsa" --runs=1 --runs 2
lr_summary
