/* lr_rollout_cli: see lr_rollout_cli.h. */
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_rollout_cli.h"

const char lr_rollout_cli_help[] =
"  --rollout-samples M futures per alternative (default 100)\n"
"  --rollout-top N     the base's choice and the N fastest other\n"
"                      candidates (default 8; 0: every feasible one)\n"
"  --rollout-horizon H arrivals simulated after the job (default 40)\n"
"  --rollout-margin Z  leave the base only when the best alternative\n"
"                      saves more than Z standard errors (default 1)\n"
"  --rollout-min-gpus G  deliberate only on jobs asking >= G GPUs\n"
"                      (default 0: all)\n"
"  --rollout-refusal   also try refusing the job\n"
"  --rollout-screen S  rate every alternative on S futures first; only\n"
"                      those that read better than the base's choice go\n"
"                      on to the M futures that decide (default 0: off)\n";

const char *
lr_rollout_cli_option(int code, const char *arg,
                      struct lr_jenv_rollout_config *c)
{
    long v;
    switch (code) {
    case LR_RO_O_SAMPLES:
        if (lr_parse_long(arg, 2, 1000000, &v))
            return "--rollout-samples wants an integer from 2";
        c->samples = (int) v;
        return NULL;
    case LR_RO_O_TOP:
        if (lr_parse_long(arg, 0, 100000, &v))
            return "--rollout-top wants a non-negative integer, up to 100000";
        c->top = (int) v;
        return NULL;
    case LR_RO_O_HORIZON:
        if (lr_parse_long(arg, 1, 1000000000L, &v))
            return "--rollout-horizon wants a positive integer, "
                "up to 1000000000";
        c->horizon = v;
        return NULL;
    case LR_RO_O_MARGIN:
        return lr_parse_double(arg, 0, 1e9, &c->margin)
               ? "--rollout-margin wants a non-negative number, "
                   "up to 1e9" : NULL;
    case LR_RO_O_MIN_GPUS:
        if (lr_parse_long(arg, 0, 1000000, &v))
            return "--rollout-min-gpus wants a non-negative integer, "
                "up to 1000000";
        c->min_gpus = (int) v;
        return NULL;
    case LR_RO_O_REFUSAL:
        c->refusal = true;
        return NULL;
    case LR_RO_O_SCREEN:
        if (lr_parse_long(arg, 0, 1000000, &v) || v == 1)
            return "--rollout-screen wants 0 (off) or an integer from 2";
        c->screen = (int) v;
        return NULL;
    }
    return "not a rollout option";
}

const char *
lr_rollout_cli_name(int code)
{
    static const struct option opts[] = { LR_ROLLOUT_CLI_LONGOPTS };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (opts[i].val == code)
            return opts[i].name;
    return "rollout-?";
}

bool
lr_rollout_cli_env_option(int code, const char *arg,
                          struct lr_jenv_rollout_config *ro,
                          struct lr_jenv_cli_opts *env, const char **first,
                          const char **bad)
{
    if (code >= LR_RO_O_FIRST && code < LR_RO_O_LAST) {
        *bad = lr_rollout_cli_option(code, arg, ro);
        if (!*first)
            *first = lr_rollout_cli_name(code);
        return true;
    }
    if (code >= LR_JENV_O_FIRST && code < LR_JENV_O_LAST) {
        *bad = lr_jenv_cli_option(code, arg, env);
        return true;
    }
    return false;
}
