/* lr_plot_title: see lr_plot_title.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lightrail/lr_plot_title.h"
#include "tools/lightrail/lr_jenv_cli.h"

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

const char *
lr_plot_file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *
lr_plot_train_title(const char *topo, const char *cluster_file, double load,
                    double load_to, unsigned long long seed,
                    const char *setup, int window, char *buf, size_t size)
{
    /* Two lines: one would run past the PNG's 960 pixels. */
    char range[64] = "";
    bool has_setup = setup && *setup;
    if (load_to > load)
        snprintf(range, sizeof range, "-%g", load_to);
    snprintf(buf, size, "PPO training on %s, cluster %s, load %g%s Erlang%s, "
             "seed %llu\n%s%smoving averages over the last %d rollouts",
             topo, lr_plot_file_name(cluster_file), load, range,
             load_to > load ? " (drawn per episode)" : "", seed,
             has_setup ? setup : "", has_setup ? "; " : "", window);
    return buf;
}

const char *
lr_plot_words_add(char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strnlen(buf, size);
    if (len + 1 >= size)
        return buf;
    if (len) {
        snprintf(buf + len, size - len, ", ");
        len = strnlen(buf, size);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return buf;
}

const char *
lr_plot_env_words(const struct lr_jenv_cli_opts *o, char *buf, size_t size)
{
    const struct lr_jenv_cli_opts d = { LR_JENV_CLI_DEFAULTS };
    if (size)
        buf[0] = '\0';
    if (o->models && strcmp(o->models, d.models))
        lr_plot_words_add(buf, size, "models %s", o->models);
    if (o->demands && strcmp(o->demands, d.demands))
        lr_plot_words_add(buf, size, "demands %s", o->demands);
    if (o->batch != d.batch)
        lr_plot_words_add(buf, size, "B=%g", o->batch);
    if (o->micro != d.micro)
        lr_plot_words_add(buf, size, "b=%g", o->micro);
    if (o->k != d.k)
        lr_plot_words_add(buf, size, "K=%d", o->k);
    if (o->block_penalty != d.block_penalty)
        lr_plot_words_add(buf, size, "block penalty %g", o->block_penalty);
    if (o->holding_mode == LR_JENV_HOLD_WORK)
        lr_plot_words_add(buf, size, "work holding");
    if (o->n_splits > 0) {
        char sp[LR_JENV_MAX_SPLITS * 8] = "";
        size_t n = 0;
        for (int i = 0; i < o->n_splits && n < sizeof sp; i++)
            n += (size_t) snprintf(sp + n, sizeof sp - n, "%s%d/%d",
                                   i ? "," : "", o->splits[i].num,
                                   o->splits[i].den);
        lr_plot_words_add(buf, size, "splits %s", sp);
    }
    if (o->known_work)
        lr_plot_words_add(buf, size, "known work");
    if (o->held_work)
        lr_plot_words_add(buf, size, "held work");
    if (o->triples)
        lr_plot_words_add(buf, size, "triples");
    if (o->quads)
        lr_plot_words_add(buf, size, "quads");
    if (o->observe_load)
        lr_plot_words_add(buf, size, "observe load");
    if (o->refuse)
        lr_plot_words_add(buf, size, "refuse");
    if (o->reward_blocking_only)
        lr_plot_words_add(buf, size, "reward blocking");
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
             lr_plot_file_name(cluster_file), algo,
             lr_plot_duration(makespan_s, span, sizeof span),
             lr_plot_duration(T_s, T, sizeof T));
    return buf;
}
