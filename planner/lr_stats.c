/* lr_stats: see lr_stats.h. */
#include <math.h>
#include <stdlib.h>

#include "planner/lr_stats.h"

/* t_{0.975, df} for df = 1..30 (standard tables). */
static const double t975[31] = {
    0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
    2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
    2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    2.042,
};

double
lr_stats_t975(int df)
{
    if (df < 1)
        return NAN;
    if (df <= 30)
        return t975[df];
    /* Cornish-Fisher expansion of t around z = 1.959964. */
    double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z, v = df;
    return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
}

void
lr_stats_compute(const double *x, int n, struct lr_stats *out)
{
    out->n = n;
    out->mean = out->stddev = out->ci95 = 0;
    if (n < 1)
        return;
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    out->mean = sum / n;
    if (n < 2)
        return;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->stddev = sqrt(ss / (n - 1));
    out->ci95 = lr_stats_t975(n - 1) * out->stddev / sqrt(n);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

double
lr_stats_median(double *x, int n)
{
    if (n < 1)
        return 0;
    qsort(x, (size_t) n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}
