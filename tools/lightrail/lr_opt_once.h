/*
 * lr_opt_once: each option that takes a value given at most once.
 *
 * getopt_long() lets a later "--seed 2" replace an earlier "--seed 1"
 * without a word, so that a command line assembled from defaults and
 * overrides runs what neither part says.  lightrail's commands
 * (lr_cli_once() in lr_cli.h), the benchmarks of tools/bench and
 * lightraild (its --config) refuse the second value through this one
 * check; it depends on nothing but <getopt.h> and stdio, so a benchmark
 * or the daemon links it without lightrail's command-line code.
 *
 * Usage: a struct lr_opt_once zeroed before the getopt_long() loop, and
 * first in the loop
 *     if ((rc = lr_opt_once("lr-bench-x", longopts, c, optarg, &once)))
 *         return rc;
 * Options are found in 'longopts' by their code 'c' (rows with a 'flag'
 * are skipped): a row without an argument (a flag given twice changes
 * nothing) and a code no row has (left to the loop's default) pass.
 */
#ifndef LR_OPT_ONCE_H
#define LR_OPT_ONCE_H 1

/* The rows of a 'longopts' table the check follows. */
#define LR_OPT_ONCE_MAX 128

struct option;

/* The value each row of 'longopts' was first given, by row index; NULL
 * while not given.  The strings are the caller's (argv's), not copied. */
struct lr_opt_once {
    const char *given[LR_OPT_ONCE_MAX];
};

/* Records option code 'c' with value 'arg' (NULL for none) in 'once'.
 * Returns 0; or 2 (a usage error) after one line on stderr,
 * "WHO: --NAME given twice ('FIRST', then 'ARG'): give it once", when
 * that option was given before; or 1 after "WHO: internal error: more
 * than 128 options" when the option's row is past LR_OPT_ONCE_MAX (a
 * programming error, said rather than letting repeats through). */
int lr_opt_once(const char *who, const struct option *longopts, int c,
                const char *arg, struct lr_opt_once *once);

#endif
