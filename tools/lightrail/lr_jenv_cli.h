/*
 * lr_jenv_cli: what `lightrail sim` and `lightrail train` share: the
 * options that describe the joint environment (planner/lr_jenv.h), and
 * loading the files and presets they name into one.
 *
 * Ownership: lr_jenv_cli_open() fills a struct lr_jenv_cli that owns the
 * topology, the cluster, the models and the environment; free them all
 * with lr_jenv_cli_close().
 */
#ifndef LR_JENV_CLI_H
#define LR_JENV_CLI_H 1

#include <stdbool.h>

#include "planner/lr_jenv.h"

struct lr_jenv_cli_opts {
    const char *topology, *cluster;
    const char *models;           /* comma-separated presets */
    const char *demands;          /* comma-separated GPU counts */
    double batch, micro;
    int k;
    double block_penalty;
    double load;                  /* the first load */
    enum lr_jenv_holding holding_mode;
    bool holding_set;             /* --holding was given */
    /* The refusal action (lr_jenv_config.refuse): set by `train --refuse`
     * and by a policy file's refuse=1, never an option of its own here. */
    bool refuse;
    /* --splits: the shares of a pair's GPUs in its first DC
     * (lr_jenv_config.splits; n_splits = 0: the default, 1/2). */
    int n_splits;
    struct lr_jenv_split splits[LR_JENV_MAX_SPLITS];
    bool splits_set;              /* --splits was given */
    /* --known-work: each job's length is observed
     * (lr_jenv_config.known_work). */
    bool known_work;
    /* --held-work: the GPU-time running jobs still hold per DC is
     * observed (lr_jenv_config.held_work; needs known_work). */
    bool held_work;
    /* --triples: candidates over three DCs (lr_jenv_config.triples). */
    bool triples;
    /* --quads: candidates over four DCs (lr_jenv_config.quads). */
    bool quads;
    /* --observe-load: PPO observes the load estimate
     * (lr_jenv_config.observe_load). */
    bool observe_load;
    /* `train --reward blocking` (lr_jenv_config.reward_blocking_only). */
    bool reward_blocking_only;
    /* Which of the job mix and shape options were given (LR_JENV_GIVEN_*
     * bits): a policy file's values replace the defaults, and a given
     * value that differs is refused rather than silently replaced. */
    unsigned given;
};

enum {
    LR_JENV_GIVEN_MODELS = 1 << 0,
    LR_JENV_GIVEN_DEMANDS = 1 << 1,
    LR_JENV_GIVEN_BATCH = 1 << 2,
    LR_JENV_GIVEN_MICRO = 1 << 3,
    LR_JENV_GIVEN_K = 1 << 4,
    LR_JENV_GIVEN_PENALTY = 1 << 5,
};

/* The defaults every command starts from. */
#define LR_JENV_CLI_DEFAULTS                                                \
    .models = "bert-large,gpt-1.9b,llama2-7b", .demands = "4,8,16",          \
    .batch = 32, .micro = 1, .k = 3, .block_penalty = 2, .load = 1

/* getopt_long() codes and table entries of these options, for a
 * command's own option table (its own codes stay below LR_JENV_O_FIRST). */
enum {
    LR_JENV_O_FIRST = 0x1000,
    LR_JENV_O_MODELS = LR_JENV_O_FIRST, LR_JENV_O_DEMANDS, LR_JENV_O_BATCH,
    LR_JENV_O_MICRO, LR_JENV_O_K, LR_JENV_O_PENALTY, LR_JENV_O_HOLDING,
    LR_JENV_O_SPLITS, LR_JENV_O_KNOWN_WORK, LR_JENV_O_HELD_WORK,
    LR_JENV_O_TRIPLES, LR_JENV_O_QUADS, LR_JENV_O_OBSERVE_LOAD,
    LR_JENV_O_LAST,
};
#define LR_JENV_CLI_LONGOPTS                                                \
    { "models", required_argument, NULL, LR_JENV_O_MODELS },                \
    { "demands", required_argument, NULL, LR_JENV_O_DEMANDS },              \
    { "batch", required_argument, NULL, LR_JENV_O_BATCH },                  \
    { "microbatch", required_argument, NULL, LR_JENV_O_MICRO },             \
    { "k", required_argument, NULL, LR_JENV_O_K },                          \
    { "block-penalty", required_argument, NULL, LR_JENV_O_PENALTY },       \
    { "holding", required_argument, NULL, LR_JENV_O_HOLDING },              \
    { "splits", required_argument, NULL, LR_JENV_O_SPLITS },              \
    { "known-work", no_argument, NULL, LR_JENV_O_KNOWN_WORK },            \
    { "held-work", no_argument, NULL, LR_JENV_O_HELD_WORK },              \
    { "triples", no_argument, NULL, LR_JENV_O_TRIPLES },                  \
    { "quads", no_argument, NULL, LR_JENV_O_QUADS },                      \
    { "observe-load", no_argument, NULL, LR_JENV_O_OBSERVE_LOAD }

/* Applies option 'code' (LR_JENV_O_FIRST <= code < LR_JENV_O_LAST) with
 * value 'arg' to 'o'; NULL, or why the value is wrong (for
 * lr_cli_bad_value()). */
const char *lr_jenv_cli_option(int code, const char *arg,
                               struct lr_jenv_cli_opts *o);

/* The option lines of --help for these options. */
extern const char lr_jenv_cli_help[];

struct lr_jenv_cli {
    struct lr_topo *topo;
    struct lr_cluster *cl;
    struct lr_model *models[LR_JENV_MAX_MODELS];
    int n_models;
    struct lr_jenv *env;
    struct lr_jenv_config cfg;
};

/* Loads and builds; on failure prints "lightrail CMD: reason" and
 * returns an exit code (LR_EXIT_USAGE for bad input). */
int lr_jenv_cli_open(const char *cmd, const struct lr_jenv_cli_opts *,
                     struct lr_jenv_cli *out);
void lr_jenv_cli_close(struct lr_jenv_cli *);


#endif
