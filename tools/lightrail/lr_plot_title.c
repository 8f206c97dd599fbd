/* lr_plot_title: see lr_plot_title.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lightrail/lr_plot_title.h"

const char *
lr_plot_time_unit(double seconds, double *factor)
{
    /* The thresholds are where 3 significant digits round up to 1000
     * of the smaller unit (999.6 ms prints as 1.00 s, not 1.00e+03 ms). */
    double a = fabs(seconds);
    if (a >= 0.9995 || a == 0) {
        *factor = 1;
        return "s";
    }
    if (a >= 0.9995e-3) {
        *factor = 1e3;
        return "ms";
    }
    *factor = 1e6;
    return "µs";
}

const char *
lr_plot_duration(double seconds, char *buf, size_t size)
{
    double f;
    const char *unit = lr_plot_time_unit(seconds, &f);
    /* Rounded to 3 significant digits first, so that 9.996 counts as
     * 10.0 (one decimal, not two); then the decimals that keep 3 digits
     * (2.40, not 2.4, beside a 2.50).  %g would write 1.23e+03 past
     * 999.5 s and %#g a bare point (671.); whole seconds beyond. */
    char r[32];
    snprintf(r, sizeof r, "%.3g", seconds * f);
    double v = strtod(r, NULL);
    int decimals = v ? 2 - (int) floor(log10(fabs(v))) : 2;
    snprintf(buf, size, "%.*f %s", decimals > 0 ? decimals : 0,
             decimals > 0 ? v : seconds * f, unit);
    return buf;
}

const char *
lr_plot_seeds(unsigned long long first, int n, char *buf, size_t size)
{
    if (n == 1)
        snprintf(buf, size, "seed %llu", first);
    else
        snprintf(buf, size, "seeds %llu-%llu", first,
                 first + (unsigned long long) n - 1);
    return buf;
}

const char *
lr_plot_load_title(const char *topo, const char *what, const char *extra,
                   unsigned long long first, int n, char *buf, size_t size)
{
    char seeds[64];
    snprintf(buf, size, "%s: %s against load (%s%s%s, %s)", topo, what,
             extra ? extra : "", extra ? ", " : "",
             lr_plot_seeds(first, n, seeds, sizeof seeds),
             n == 1 ? "one run: no CI" : "mean and 95% CI");
    return buf;
}

/* 'path' without its folders: a cluster is named by its file. */
static const char *
file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *
lr_plot_train_title(const char *topo, const char *cluster_file, double load,
                    double load_to, unsigned long long seed, int window,
                    char *buf, size_t size)
{
    /* Two lines: one would run past the PNG's 960 pixels. */
    char range[64] = "";
    if (load_to > load)
        snprintf(range, sizeof range, "-%g", load_to);
    snprintf(buf, size, "PPO training on %s, cluster %s, load %g%s Erlang%s, "
             "seed %llu\nmoving averages over the last %d rollouts", topo,
             file_name(cluster_file), load, range,
             load_to > load ? " (drawn per episode)" : "", seed, window);
    return buf;
}

const char *
lr_plot_plan_title(const char *model, const char *cluster_file,
                   const char *algo, double makespan_s, double T_s,
                   char *buf, size_t size)
{
    char span[32], T[32];
    snprintf(buf, size, "%s on %s, %s: one iteration, simulated GPipe "
             "schedule (makespan %s; the model's T = %s)", model,
             file_name(cluster_file), algo,
             lr_plot_duration(makespan_s, span, sizeof span),
             lr_plot_duration(T_s, T, sizeof T));
    return buf;
}
