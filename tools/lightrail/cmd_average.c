/*
 * lightrail average: the uniform average of the weights of PPO policy
 * files ("model soup": M. Wortsman et al., "Model soups: averaging
 * weights of multiple fine-tuned models improves accuracy without
 * increasing inference time", ICML 2022).
 *
 *     theta = (1/n) sum_i theta_i, weight by weight, actor and critic
 *
 * What it is for: runs of `lightrail train` that start from one file
 * (--init) and differ only in their seed land in one basin of the loss,
 * where the mean of their weights decides at least as well as a typical
 * run and smooths out an unlucky one (docs/ppo.md, "Averaging the
 * students").  Files trained from different starts are accepted too (a
 * file does not record its start) but their average is meaningless: the
 * hidden units of two networks trained apart are not in the same order.
 *
 * The files must describe the same environment: every header key that
 * `sim` and lightraild read (job mix, batch, K, holding mode, refusal,
 * shares, topology and DCs, observations and actions, known and held
 * work) and the same network sizes.  The output takes the first file's
 * header, with its own command= line.  O(n x parameters).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_mlp.h"
#include "planner/lr_ppo.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_policy_file.h"

#define CMD "average"
#define AVERAGE_MAX_FILES 64

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail average --out FILE POLICY POLICY [POLICY...]\n"
"       (2 to 64 policy files)\n"
"\n"
"Writes the policy whose weights are the mean of the given policies'\n"
"(actor and critic, weight by weight): a uniform model soup.  Meant for\n"
"runs of `lightrail train` from one --init file that differ only in\n"
"--seed; averaging runs trained from different starts gives nonsense.\n"
"The files must be for the same environment (the same header keys but\n"
"the command, teacher and imitate, and the same network sizes); the\n"
"output takes the first one's header.  Evaluate it with `lightrail sim\n"
"--policy-file FILE` like any other.\n"
"\n"
"  --out FILE          the policy file to write (atomically)\n"
"  -h, --help          this text\n"
"\n"
"exit status: 0 written, 2 bad input (a file that does not load, policies\n"
"of other environments or network sizes, an --out in no folder or a\n"
"folder), 1 the output cannot be written\n");
}

/* The first header key in which 'b' differs from 'a', or NULL. */
static const char *
meta_differs(const struct lr_policy_meta *a, const struct lr_policy_meta *b)
{
    if (strcmp(a->models, b->models))
        return "models";
    if (strcmp(a->demands, b->demands))
        return "demands";
    if (a->batch != b->batch)
        return "batch";
    if (a->micro != b->micro)
        return "microbatch";
    if (a->block_penalty != b->block_penalty)
        return "block-penalty";
    if (a->k != b->k)
        return "k";
    if (a->holding_mode != b->holding_mode)
        return "holding";
    if (a->refuse != b->refuse)
        return "refuse";
    if (a->n_splits != b->n_splits
        || memcmp(a->splits, b->splits,
                  (size_t) a->n_splits * sizeof *a->splits))
        return "splits";
    if (strcmp(a->topology, b->topology))
        return "topology";
    if (strcmp(a->dcs, b->dcs))
        return "dcs";
    if (strcmp(a->gpus, b->gpus))
        return "gpus";
    if (strcmp(a->gpu_sig, b->gpu_sig))
        return "gpu-sig";
    if (strcmp(a->net_sig, b->net_sig))
        return "net-sig";
    if (a->known_work != b->known_work)
        return "known-work";
    if (a->held_work != b->held_work)
        return "held-work";
    if (a->triples != b->triples)
        return "triples";
    if (a->quads != b->quads)
        return "quads";
    if (a->observe_load != b->observe_load)
        return "observe-load";
    if (a->n_obs != b->n_obs)
        return "n-obs";
    if (a->n_act != b->n_act)
        return "n-actions";
    return NULL;
}

int
lr_cmd_average(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out = NULL;
    int c;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    /* One line, ours, for a bad option, as every command says it: not
     * getopt's "average: ..." and the whole usage after it. */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return LR_EXIT_OK;
        default: return lr_cli_bad_option(CMD, argv, optind);
        }
    }
    int n = argc - optind;
    if (!out || n < 2) {
        fprintf(stderr, "lightrail " CMD ": %s (lightrail " CMD
                " --help)\n", !out ? "--out FILE is required"
                : "give at least two policy files to average");
        return LR_EXIT_USAGE;
    }
    if (n > AVERAGE_MAX_FILES) {
        fprintf(stderr, "lightrail " CMD ": at most %d files\n",
                AVERAGE_MAX_FILES);
        return LR_EXIT_USAGE;
    }
    /* Refused as train refuses its --out: by name, before any file is
     * read, and not as the failure to rename a FILE.tmp never named. */
    if (lr_cli_output_check(CMD, "--out", out))
        return LR_EXIT_USAGE;
    struct lr_policy_meta *meta = calloc((size_t) n, sizeof *meta);
    struct lr_ppo **agent = calloc((size_t) n, sizeof *agent);
    const struct lr_mlp **actor = calloc((size_t) n, sizeof *actor),
                        **critic = calloc((size_t) n, sizeof *critic);
    char err[1024];
    int rc = LR_EXIT_USAGE;
    if (!meta || !agent || !actor || !critic) {
        fprintf(stderr, "lightrail " CMD ": out of memory\n");
        rc = LR_EXIT_FAIL;
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const char *path = argv[optind + i];
        if (lr_policy_load(path, &meta[i], &agent[i], err, sizeof err)) {
            fprintf(stderr, "lightrail " CMD ": %s\n", err);
            goto done;
        }
        const char *key = meta_differs(&meta[0], &meta[i]);
        if (key) {
            fprintf(stderr, "lightrail " CMD ": %s: its %s differs from "
                    "%s's: average policies trained for one environment\n",
                    path, key, argv[optind]);
            goto done;
        }
        actor[i] = agent[i]->actor;
        critic[i] = agent[i]->critic;
    }
    if (!lr_mlp_average(agent[0]->actor, actor, n)
        || !lr_mlp_average(agent[0]->critic, critic, n)) {
        fprintf(stderr, "lightrail " CMD ": the networks differ in size "
                "(--hidden): average runs of one training command\n");
        goto done;
    }
    struct lr_policy_meta m = meta[0];
    int len = snprintf(m.command, sizeof m.command, "lightrail " CMD
                       " --out %s", out);
    for (int i = 0; i < n && len >= 0 && (size_t) len < sizeof m.command;
         i++)
        len += snprintf(m.command + len, sizeof m.command - (size_t) len,
                        " %s", argv[optind + i]);
    if (lr_policy_save(out, &m, agent[0], err, sizeof err)) {
        fprintf(stderr, "lightrail " CMD ": %s\n", err);
        rc = LR_EXIT_FAIL;
        goto done;
    }
    printf("%s: the mean of %d policies' weights\n", out, n);
    rc = LR_EXIT_OK;
done:
    if (agent)
        for (int i = 0; i < n; i++)
            lr_ppo_free(agent[i]);
    free(agent);
    free(meta);
    free(actor);
    free(critic);
    return rc;
}
