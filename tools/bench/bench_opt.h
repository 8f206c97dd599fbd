/*
 * bench_opt: the numbers of the benchmarks' options, read strictly.
 *
 * atoi() and strtod() read "x" as 0 and " 5" or "0x10" as numbers, so
 * "--runs x" ran nothing (or divided by zero) and "--seconds 0x10" ran
 * 16 s.  Each benchmark of tools/bench reads its numbers through these
 * instead: lr_parse_long() and lr_parse_double() (planner/lr_util.h,
 * the rules lightrail's options follow), and on a refusal one line
 * naming the option, what it wants and what it was given.  They need
 * only planner/liblrplanner.a and stdio, not lightrail's command-line
 * code.
 */
#ifndef BENCH_OPT_H
#define BENCH_OPT_H 1

/* The lower bound that bench_opt_double() says as "a positive number":
 * a value must be above 0, and any real setting is above this. */
#define BENCH_OPT_POSITIVE 1e-9

/* Reads 'arg', the value of option --'name' of program 'who', as a
 * whole number within [lo, hi] into '*out'.  Returns 0; or 2 (a usage
 * error), '*out' unchanged, after one line on stderr: "WHO: --NAME
 * wants a whole number from LO to HI, not 'ARG'". */
int bench_opt_long(const char *who, const char *name, const char *arg,
                   long lo, long hi, long *out);

/* bench_opt_long() into an int. */
int bench_opt_int(const char *who, const char *name, const char *arg,
                  int lo, int hi, int *out);

/* Reads 'arg' as a plain decimal number within [lo, hi] into '*out'.
 * Returns 0; or 2, '*out' unchanged, after "WHO: --NAME wants a number
 * from LO to HI, not 'ARG'" ("a positive number, up to HI" when 'lo' is
 * BENCH_OPT_POSITIVE). */
int bench_opt_double(const char *who, const char *name, const char *arg,
                     double lo, double hi, double *out);

#endif
