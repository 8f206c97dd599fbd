/* bench_opt: see bench_opt.h. */
#include <stdio.h>

#include "planner/lr_util.h"
#include "tools/bench/bench_opt.h"

int
bench_opt_long(const char *who, const char *name, const char *arg,
               long lo, long hi, long *out)
{
    if (!lr_parse_long(arg, lo, hi, out))
        return 0;
    fprintf(stderr, "%s: --%s wants a whole number from %ld to %ld, not "
            "'%s'\n", who, name, lo, hi, arg);
    return 2;
}

int
bench_opt_int(const char *who, const char *name, const char *arg, int lo,
              int hi, int *out)
{
    long v;
    int rc = bench_opt_long(who, name, arg, lo, hi, &v);
    if (!rc)
        *out = (int) v;
    return rc;
}

int
bench_opt_double(const char *who, const char *name, const char *arg,
                 double lo, double hi, double *out)
{
    if (!lr_parse_double(arg, lo, hi, out))
        return 0;
    /* "%.15g" says 1e9 as 1000000000, as a person would type it. */
    if (lo == BENCH_OPT_POSITIVE)
        fprintf(stderr, "%s: --%s wants a positive number, up to %.15g, "
                "not '%s'\n", who, name, hi, arg);
    else
        fprintf(stderr, "%s: --%s wants a number from %.15g to %.15g, not "
                "'%s'\n", who, name, lo, hi, arg);
    return 2;
}
