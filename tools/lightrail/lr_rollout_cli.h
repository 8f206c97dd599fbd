/*
 * lr_rollout_cli: the options of the rollout policy
 * (planner/lr_jenv_rollout.h) that `lightrail sim --rollout BASE` and
 * `lightrail train --teacher rollout-BASE` share: how many futures, how
 * long, which alternatives, the margin.  Each command keeps how the base
 * is named.
 */
#ifndef LR_ROLLOUT_CLI_H
#define LR_ROLLOUT_CLI_H 1

#include <getopt.h>
#include <stdbool.h>

#include "planner/lr_jenv_rollout.h"
#include "tools/lightrail/lr_jenv_cli.h"

/* getopt_long() codes and table entries, above lr_jenv_cli's. */
enum {
    LR_RO_O_FIRST = 0x1100,
    LR_RO_O_SAMPLES = LR_RO_O_FIRST, LR_RO_O_TOP, LR_RO_O_HORIZON,
    LR_RO_O_MARGIN, LR_RO_O_MIN_GPUS, LR_RO_O_REFUSAL, LR_RO_O_SCREEN,
    LR_RO_O_LAST,
};
#define LR_ROLLOUT_CLI_LONGOPTS                                              \
    { "rollout-samples", required_argument, NULL, LR_RO_O_SAMPLES },         \
    { "rollout-top", required_argument, NULL, LR_RO_O_TOP },                 \
    { "rollout-horizon", required_argument, NULL, LR_RO_O_HORIZON },         \
    { "rollout-margin", required_argument, NULL, LR_RO_O_MARGIN },           \
    { "rollout-min-gpus", required_argument, NULL, LR_RO_O_MIN_GPUS },       \
    { "rollout-refusal", no_argument, NULL, LR_RO_O_REFUSAL },               \
    { "rollout-screen", required_argument, NULL, LR_RO_O_SCREEN }

/* Applies option 'code' (LR_RO_O_FIRST <= code < LR_RO_O_LAST) with value
 * 'arg' to 'c'; NULL, or why the value is wrong (for
 * lr_cli_bad_value()). */
const char *lr_rollout_cli_option(int code, const char *arg,
                                  struct lr_jenv_rollout_config *c);

/* The long name of option 'code' ("rollout-samples"), for a message that
 * says which one does not apply. */
const char *lr_rollout_cli_name(int code);

/* For a command that takes these options and lr_jenv_cli's (sim, train):
 * applies 'code' with value 'arg' to 'ro' or to 'env' and returns true,
 * '*bad' set to NULL or why the value is wrong (for lr_cli_bad_value())
 * and '*first', when still NULL, to the name of a rollout option given;
 * false, nothing set, for a code of neither (for lr_cli_bad_option()). */
bool lr_rollout_cli_env_option(int code, const char *arg,
                               struct lr_jenv_rollout_config *ro,
                               struct lr_jenv_cli_opts *env,
                               const char **first, const char **bad);

/* The option lines of --help for these options. */
extern const char lr_rollout_cli_help[];

#endif
