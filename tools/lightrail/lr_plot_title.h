/*
 * lr_plot_title: the words of the --plot titles, apart from the drawing
 * (lr_plot) and from the commands, so that a test can read them.
 *
 * A PNG is read alone, away from the command line that drew it: its
 * title says what was run (topology or cluster, load, seeds) and every
 * number carries its unit.  Each function writes a NUL-terminated string
 * into buf[size] (cut to fit) and returns buf.
 */
#ifndef LR_PLOT_TITLE_H
#define LR_PLOT_TITLE_H 1

#include <stddef.h>

/* The unit that fits a duration of 'seconds' ("s", "ms" or "µs", UTF-8),
 * the one its value reads 1 to 999 in; *factor converts seconds into
 * it (1, 1e3 or 1e6). */
const char *lr_plot_time_unit(double seconds, double *factor);

/* 'seconds' in the unit that fits, to 3 significant digits: "2.40 ms",
 * "0.671 s" is "671 ms", "1.28 s". */
const char *lr_plot_duration(double seconds, char *buf, size_t size);

/* The seeds first..first+n-1 as a title says them: "seed 7" for one,
 * "seeds 7-16" for several. */
const char *lr_plot_seeds(unsigned long long first, int n, char *buf,
                          size_t size);

/* A metric against load over seeds first..first+n-1 on 'topo' (its
 * name), for lightrail sim and rsa-sim: "metro: blocking probability
 * against load (seeds 2001-2010, mean and 95% CI)".  'extra', when
 * not NULL, goes before the seeds ("K=3, hops order").  One seed has
 * no interval, and the title says so rather than "1 seeds, 95% CI". */
const char *lr_plot_load_title(const char *topo, const char *what,
                               const char *extra, unsigned long long first,
                               int n, char *buf, size_t size);

/* lightrail train's curve, in two lines: the topology (its name), the cluster (its
 * file's name), the load in Erlang (load_to > load: the range each
 * episode's load is drawn from), the seed; then 'setup' (the options
 * off their defaults, lr_plot_env_words(); NULL or "" for none) and the
 * moving average's 'window' in rollouts. */
const char *lr_plot_train_title(const char *topo, const char *cluster_file,
                                double load, double load_to,
                                unsigned long long seed, const char *setup,
                                int window, char *buf, size_t size);

struct lr_jenv_cli_opts;

/* The environment options of 'o' (lightrail sim's and train's) that
 * differ from their defaults (LR_JENV_CLI_DEFAULTS, exp holding, every
 * flag off), comma-separated in the order of --help, so that a default
 * run keeps a short title: "models bert-large, demands 8,16, K=2,
 * block penalty 5, work holding, splits 1/4, known work, held work,
 * triples, quads, observe load, refuse, reward blocking"; "" when
 * every one is its default. */
const char *lr_plot_env_words(const struct lr_jenv_cli_opts *o, char *buf,
                              size_t size);

/* Appends printf(fmt, ...) to the words in buf[size], after ", " unless
 * buf is empty (cut to fit); returns buf.  Each command's own options
 * (train's --gamma) go after lr_plot_env_words() so. */
const char *lr_plot_words_add(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 'path' without its folders: a cluster or a table is named by its
 * file.  Returns a pointer into 'path'. */
const char *lr_plot_file_name(const char *path);

/* lightrail plan's Gantt chart: the model, the cluster (its file's
 * name, without the folders), the algorithm, the simulated makespan and
 * the model's T, each in the unit that fits it. */
const char *lr_plot_plan_title(const char *model, const char *cluster_file,
                               const char *algo, double makespan_s,
                               double T_s, char *buf, size_t size);

#endif
