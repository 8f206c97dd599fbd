/*
 * lr_stats: sample mean and the 95% confidence interval of the mean.
 *
 * For n independent runs x_1..x_n (one per seed):
 *     mean = (1/n) sum x_i,  s^2 = sum (x_i - mean)^2 / (n - 1),
 *     ci95 = t_{0.975, n-1} s / sqrt(n)
 * with Student's t quantile (exact table to 30 degrees of freedom, then
 * the Cornish-Fisher expansion, good to 1e-4 beyond).  ci95 is 0 for n < 2.
 */
#ifndef LR_STATS_H
#define LR_STATS_H 1

struct lr_stats {
    int n;
    double mean;
    double stddev;
    double ci95;              /* half-width */
};

void lr_stats_compute(const double *x, int n, struct lr_stats *out);

/* The 0.975 quantile of Student's t with 'df' >= 1 degrees of freedom. */
double lr_stats_t975(int df);

/* Median of x[0..n) (sorts x in place); 0 for n = 0. */
double lr_stats_median(double *x, int n);

#endif
