/* lr_jenv_cli: see lr_jenv_cli.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_jenv_cli.h"
#include "yang/lr_yang.h"

const char lr_jenv_cli_help[] =
"  --topology FILE     lightrail-topology JSON (ROADMs, fibres, slots)\n"
"  --cluster FILE      lightrail-compute JSON of 1 to 16 DCs; every DC\n"
"                      needs its attachment-node in the topology\n"
"  --models LIST       model presets of the job mix, drawn uniformly, at\n"
"                      most 8 (default bert-large,gpt-1.9b,llama2-7b)\n"
"  --demands LIST      GPU demands, drawn uniformly, at most 8 (default\n"
"                      4,8,16)\n"
"  --batch B           samples per iteration of every job (default 32)\n"
"  --microbatch b      samples per microbatch (default 1)\n"
"  --k N               routes per DC pair, 1 to 16 (default 3)\n"

"  --block-penalty P   reward of a blocked job is -P (default 2)\n"
"  --holding MODE      exp: holding time exponential of mean 1, whatever\n"
"                      the placement (default); work: that draw times\n"
"                      the job's slowdown T / T_ref on its placement, so\n"
"                      slow placements hold GPUs longer\n"
"  --splits LIST       shares of a two-DC job's GPUs in its first DC,\n"
"                      at most 4, num/den with 0 < num < den,\n"
"                      comma-separated, each adding a candidate per\n"
"                      ordered DC pair, route and tier: floor(g num /\n"
"                      den) GPUs in the first DC, the rest in the second\n"
"                      (default 1/2; e.g. 1/4,1/2)\n"
"  --known-work        each job's length (its number of iterations) is\n"
"                      known when it arrives: PPO observes it, and the\n"
"                      baseline greedy-work reads it (default: unknown)\n"
"  --held-work         with --known-work: PPO also observes, per DC, the\n"
"                      GPU-time its running jobs still hold (default: not)\n"
"  --triples           also pipelines over three DCs: a third of the GPUs\n"
"                      in each (the rest in the last), a lightpath each\n"
"                      way on both hops, K routes x 3 tiers per ordered\n"
"                      triple (default: one or two DCs)\n"
"  --quads             also pipelines over four DCs: a quarter of the GPUs\n"
"                      in each (the remainder one each in the last DCs),\n"
"                      a lightpath each way on the three hops, K routes x\n"
"                      3 tiers per ordered quadruple (with or without\n"
"                      --triples; default: not)\n"
"  --observe-load      PPO also observes the offered load as the arrivals\n"
"                      so far show it (an estimate over about 100 mean\n"
"                      holding times), for training over a range of\n"
"                      loads, --load FROM:TO (default: not)\n";

const char *
lr_jenv_cli_option(int code, const char *arg, struct lr_jenv_cli_opts *o)
{
    long v;
    switch (code) {
    case LR_JENV_O_MODELS:
        o->models = arg;
        o->given |= LR_JENV_GIVEN_MODELS;
        return NULL;
    case LR_JENV_O_DEMANDS:
        o->demands = arg;
        o->given |= LR_JENV_GIVEN_DEMANDS;
        return NULL;
    case LR_JENV_O_BATCH:
        o->given |= LR_JENV_GIVEN_BATCH;
        return lr_parse_double(arg, 1, 1e9, &o->batch)
               ? "--batch wants a number of samples from 1 to 1e9" : NULL;
    case LR_JENV_O_MICRO:
        o->given |= LR_JENV_GIVEN_MICRO;
        return lr_parse_double(arg, 1e-9, 1e9, &o->micro)
               ? "--microbatch wants a number of samples from 1e-9 to 1e9" : NULL;
    case LR_JENV_O_K:
        if (lr_parse_long(arg, 1, 16, &v))
            return "--k wants an integer in 1..16";
        o->k = (int) v;
        o->given |= LR_JENV_GIVEN_K;
        return NULL;
    case LR_JENV_O_PENALTY:
        o->given |= LR_JENV_GIVEN_PENALTY;
        return lr_parse_double(arg, 0, 1e6, &o->block_penalty)
               ? "--block-penalty wants a number in [0, 1e6]" : NULL;
    case LR_JENV_O_HOLDING:
        o->holding_set = true;
        return lr_jenv_holding_parse(arg, &o->holding_mode)
               ? "--holding wants exp or work" : NULL;
    case LR_JENV_O_SPLITS: {
        static char why[256];
        char err[200];
        int n = lr_jenv_splits_parse(arg, o->splits, err, sizeof err);
        if (n < 0) {
            snprintf(why, sizeof why, "--splits: %s", err);
            return why;
        }
        o->n_splits = n;
        o->splits_set = true;
        return NULL;
    }
    case LR_JENV_O_KNOWN_WORK:
        o->known_work = true;
        return NULL;
    case LR_JENV_O_HELD_WORK:
        o->held_work = true;
        return NULL;
    case LR_JENV_O_TRIPLES:
        o->triples = true;
        return NULL;
    case LR_JENV_O_QUADS:
        o->quads = true;
        return NULL;
    case LR_JENV_O_OBSERVE_LOAD:
        o->observe_load = true;
        return NULL;
    }
    return "not an environment option";
}

void
lr_jenv_cli_close(struct lr_jenv_cli *j)
{
    lr_jenv_free(j->env);
    for (int i = 0; i < j->n_models; i++)
        lr_model_free(j->models[i]);
    lr_cluster_free(j->cl);
    lr_topo_free(j->topo);
    memset(j, 0, sizeof *j);
}

int
lr_jenv_cli_open(const char *cmd, const struct lr_jenv_cli_opts *o,
                 struct lr_jenv_cli *j)
{
    memset(j, 0, sizeof *j);
    if (!o->topology || !o->cluster) {
        lr_cli_err(cmd, "--topology FILE and --cluster FILE are required, "
                   "e.g. --topology examples/topologies/metro.json "
                   "--cluster examples/clusters/metro.json");
        return LR_EXIT_USAGE;
    }
    if (o->held_work && !o->known_work) {
        lr_cli_err(cmd, "--held-work observes the GPU-time the running "
                   "jobs hold, which only their known lengths tell: add "
                   "--known-work");
        return LR_EXIT_USAGE;
    }
    /* As lightrail plan says it, not the time model's EINVAL for every
     * job class when the environment is tabulated. */
    if (lr_cli_check_microbatch(cmd, o->batch, o->micro))
        return LR_EXIT_USAGE;
    struct lr_jenv_config *c = &j->cfg;
    *c = (struct lr_jenv_config) {
        .load = o->load, .holding = 1, .holding_mode = o->holding_mode,
        .refuse = o->refuse, .n_splits = o->n_splits,
        .known_work = o->known_work, .held_work = o->held_work,
        .reward_blocking_only = o->reward_blocking_only, .k = o->k,
        .triples = o->triples, .quads = o->quads,
        .observe_load = o->observe_load,
        .guard = 1,
        .block_penalty = o->block_penalty,
        .train = { .batch = o->batch, .micro = o->micro, .elem_bytes = 2 },
    };
    memcpy(c->splits, o->splits, sizeof c->splits);
    char buf[512], err[1024], *names[LR_JENV_MAX_MODELS];
    char *counts[LR_JENV_MAX_DEMANDS];
    int rc = LR_EXIT_USAGE;
    int n_items = lr_cli_split_list(cmd, "--models", "models", o->models,
                                    buf, sizeof buf, names,
                                    LR_JENV_MAX_MODELS);
    if (n_items < 0)
        goto fail;
    for (int m = 0; m < n_items; m++) {
        const char *t = names[m];
        if (lr_model_preset(t, &j->models[j->n_models])) {
            char known[256] = "";
            for (int i = 0; lr_model_presets[i]; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known),
                         "%s%s", i ? ", " : "", lr_model_presets[i]);
            lr_cli_err(cmd, "--models: unknown preset '%s' (known: %s)", t,
                       known);
            goto fail;
        }
        c->models[j->n_models] = j->models[j->n_models];
        j->n_models++;
    }
    c->n_models = j->n_models;
    n_items = lr_cli_split_list(cmd, "--demands", "GPU counts", o->demands,
                                buf, sizeof buf, counts,
                                LR_JENV_MAX_DEMANDS);
    if (n_items < 0)
        goto fail;
    for (int i = 0; i < n_items; i++) {
        long v;
        if (lr_parse_long(counts[i], 1, 100000, &v)) {
            lr_cli_err(cmd, "--demands wants up to %d GPU counts >= 1, "
                       "comma-separated, not '%s'", LR_JENV_MAX_DEMANDS,
                       counts[i]);
            goto fail;
        }
        c->demands[c->n_demands++] = (int) v;
    }
    struct ly_ctx *ctx = NULL;
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        lr_cli_err(cmd, "%s", err);
        rc = LR_EXIT_FAIL;
        goto fail;
    }
    if (lr_yang_load_topo(ctx, o->topology, &j->topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, o->cluster, &j->cl, err, sizeof err)
        || lr_yang_check_attachments(j->topo, o->topology, j->cl, o->cluster,
                                     err, sizeof err)) {
        lr_yang_ctx_free(ctx);
        lr_cli_err(cmd, "%s", err);
        goto fail;
    }
    lr_yang_ctx_free(ctx);
    /* A chain needs its DCs on distinct ROADMs: say so rather than add
     * nothing. */
    int roadms = 0;
    for (int d = 0; d < j->cl->n_dcs; d++) {
        bool seen = false;
        int node = lr_topo_attach_node(j->topo, j->cl->dcs[d].name,
                                       j->cl->dcs[d].attach_node);
        for (int x = 0; x < d && !seen; x++)
            seen = lr_topo_attach_node(j->topo, j->cl->dcs[x].name,
                                       j->cl->dcs[x].attach_node) == node;
        roadms += !seen;
    }
    static const struct {
        const char *opt, *count;
        int need;
    } chains[] = { { "--quads", "four", 4 }, { "--triples", "three", 3 } };
    for (size_t k = 0; k < sizeof chains / sizeof chains[0]; k++) {
        bool on = chains[k].need == 4 ? c->quads : c->triples;
        if (on && roadms < chains[k].need) {
            lr_cli_err(cmd, "%s: %s adds pipelines over %s DCs on distinct "
                       "ROADMs, and this cluster's DCs sit on %d: drop it",
                       o->cluster, chains[k].opt, chains[k].count, roadms);
            goto fail;
        }
    }
    int e = lr_jenv_new(j->topo, j->cl, c, &j->env, err, sizeof err);
    if (e) {
        lr_cli_err(cmd, "%s: %s", o->cluster, err);
        rc = e == ENOMEM ? LR_EXIT_FAIL : LR_EXIT_USAGE;
        goto fail;
    }
    return LR_EXIT_OK;
fail:
    lr_jenv_cli_close(j);
    return rc;
}
