/*
 * Algorithm ppo in the controller (controller/lr_ctl_ppo.h) on the metro
 * example with dummy ROADMs and the shipped policy
 * examples/policies/metro.pol:
 *   - a mapped intent is admitted on the candidate the actor picks, as
 *     this test computes it itself (its own environment mirroring the
 *     controller's GPUs and spectrum, the argmax of the masked policy),
 *     with the candidate's DCs, GPU split, route and rate, its stages
 *     at cdynp-device-step;
 *   - an intent of no class of the policy falls back to CDynP with the
 *     reason in its planner-note, which the store keeps across a restart;
 *   - a missing or corrupt policy file leaves the controller working,
 *     says why, and ppo intents fall back with that reason;
 *   - a policy trained with uneven GPU shares (splits=1/4,1/2) places a
 *     job with its candidate's actual GPU counts;
 *   - a policy with triples (triples=1) places a job over three DCs with
 *     four lightpaths, one with quadruples (quads=1, on NSFNET with
 *     four of nsfnet6.json's DCs) over four DCs with six;
 *   - a policy that observes the load (observe-load=1) is shown the load
 *     of the intents' arrival times (a fake clock);
 *   - with ppo-rollout, decisions taken on a thread of their own
 *     (lr_ctl_decide_begin) are those taken on the caller's, one at a
 *     time, and are checked against the state when they end;
 *   - with ppo-rollout and a DC planned by its agent, a ppo intent is
 *     refused by lr_ctl_decide_begin() before any decision, with the
 *     admission's words ("ask for cdynp");
 *   - a candidate that stops at its second hop (a route of 33 links,
 *     slots already taken, too few slots, beyond every modulation's
 *     reach) falls back to CDynP with the reason, its first hop's
 *     lightpaths given back: spectrum, store and dummy ROADMs hold what
 *     they held before and the CDynP job's own; a feasible triple
 *     whose second hop's ROADM refuses fails, nothing of it left;
 *   - before the hops, a candidate over DCs whose devices no cut fits
 *     (no plan over its chain) and one whose plan would take more than
 *     the 9e12 s a job may fall back to CDynP the same way.
 * After every admission lr_ctl_check() proves memory, store and devices
 * agree.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "controller/lr_ctl.h"
#include "planner/lr_jenv.h"
#include "planner/lr_jenv_rollout.h"
#include "planner/lr_ppo.h"
#include "planner/lr_rng.h"
#include "tests/unit/lr_test_ctl.h"
#include "tools/lightrail/lr_policy_file.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

static char corrupt[200];
static int n_db;

/* The store restarts check_fallback() has done in the running case:
 * each case that calls it sets it to 0 first, so that which restarts
 * a case does never depends on the cases run before it. */
static int restarts;

/* Whether check_fallback() starts a controller again on its store to
 * check it: each time in the plain build; under AddressSanitizer or
 * valgrind, where a controller's start over the networks of the hop
 * and plan failures is most of the cases' time (its environment, a
 * CDynP plan per candidate and class), the first two times of each
 * case only (one without a job before, one with), the store's own code
 * being the same for every reason of a fallback. */
static bool
store_restart(void)
{
#ifdef LR_TEST_ASAN
    bool slow = true;
#else
    bool slow = RUNNING_ON_VALGRIND;
#endif
    return !slow || restarts++ < 2;
}

static int
setup(void)
{
    openblas_set_num_threads(1);
    if (lr_test_ctl_setup("ctl-ppo"))
        return 1;
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.pol", dir);
    /* The shipped policy with one byte of its weights flipped. */
    FILE *in = fopen(src("examples/policies/metro.pol"), "rb");
    FILE *out = fopen(corrupt, "wb");
    if (!in || !out)
        return 1;
    long i = 0;
    for (int ch; (ch = getc(in)) != EOF; i++)
        putc(i == 4000 ? ch ^ 0x10 : ch, out);
    fclose(in);
    return fclose(out) != 0;
}

/* A controller over a new database, its path in db (or database
 * 'reuse' when >= 0). */
static struct lr_ctl *
open_ctl(const char *policy, int reuse)
{
    snprintf(db, sizeof db, "%s/db%d", dir, reuse >= 0 ? reuse : n_db++);
    struct lr_ctl_config cfg = { .ppo_policy = policy };
    return lr_test_ctl_open(&cfg);
}

static struct lr_intent
intent(const char *name, const char *model, int gmin, int gmax)
{
    return lr_test_ctl_intent(name, model, gmin, gmax, "ppo");
}

/* The test's own copy of what the policy sees. */
struct mirror {
    struct lr_policy_meta meta;
    struct lr_ppo *agent;
    struct lr_model *models[3];
    struct lr_jenv *env;
    float *obs;
};

static void
mirror_open(struct mirror *m)
{
    char err[512];
    memset(m, 0, sizeof *m);
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("examples/policies/metro.pol"),
                                         &m->meta, &m->agent, err,
                                         sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(m->meta.models, "bert-large,gpt-1.9b,llama2-7b");
    CU_ASSERT_STRING_EQUAL(m->meta.demands, "4,8,16");
    struct lr_jenv_config cfg = {
        .load = 1, .holding = 1, .k = m->meta.k, .guard = 1,
        .block_penalty = m->meta.block_penalty,
        .train = { m->meta.batch, m->meta.micro, 2 },
        .n_models = 3, .n_demands = 3, .demands = { 4, 8, 16 },
    };
    const char *names[3] = { "bert-large", "gpt-1.9b", "llama2-7b" };
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(lr_model_preset(names[i], &m->models[i]), 0);
        cfg.models[i] = m->models[i];
    }
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cluster, &cfg, &m->env, err,
                                      sizeof err), 0);
    m->obs = calloc((size_t) lr_jenv_obs_size(m->env), sizeof *m->obs);
}

static void
mirror_close(struct mirror *m)
{
    free(m->obs);
    lr_jenv_free(m->env);
    for (int i = 0; i < 3; i++)
        lr_model_free(m->models[i]);
    lr_ppo_free(m->agent);
}

/* What the actor picks for class (model, demand) on c's state now. */
static int
expected(struct mirror *m, struct lr_ctl *c, int model, int demand)
{
    char err[256];
    const struct lr_spectrum *sp = lr_ctl_rsa(c)->sp;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m->env, lr_ctl_gpus_used(c),
                                            sp->occ, sp->nw, err,
                                            sizeof err), 0);
    if (lr_jenv_present(m->env, model, demand) <= 0)
        return -1;
    lr_jenv_observe(m->env, m->obs);
    return lr_ppo_act(m->agent, m->obs, lr_jenv_mask(m->env), false, NULL,
                      NULL);
}

static void
test_mapped_intents_follow_the_actor(void)
{
    char err[1024];
    struct lr_ctl *c = open_ctl(src("examples/policies/metro.pol"), -1);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    struct mirror m;
    mirror_open(&m);
    /* Classes (model, demand index) in an order that fills the DCs; the
     * GPU range maps to the largest demand in it. */
    static const struct { const char *model; int mi, gmin, gmax, di; } jobs[] = {
        { "llama2-7b", 2, 16, 16, 2 }, { "gpt-1.9b", 1, 6, 12, 1 },
        { "bert-large", 0, 1, 4, 0 }, { "llama2-7b", 2, 10, 20, 2 },
        { "gpt-1.9b", 1, 8, 8, 1 }, { "llama2-7b", 2, 16, 40, 2 },
    };
    int admitted = 0, pairs = 0;
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
        int a = expected(&m, c, jobs[i].mi, jobs[i].di);
        char name[32], want[64];
        snprintf(name, sizeof name, "p%zu", i);
        struct lr_intent in = intent(name, jobs[i].model, jobs[i].gmin,
                                     jobs[i].gmax);
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        CU_ASSERT_STRING_EQUAL(job.intent.algorithm, "ppo");
        if (a < 0) {
            /* The policy refuses: CDynP, and the note says so. */
            CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "planned by cdynp"));
            continue;
        }
        snprintf(want, sizeof want, "ppo: candidate %d,", a);
        CU_ASSERT_EQUAL(strncmp(job.note, want, strlen(want)), 0);
        if (strncmp(job.note, want, strlen(want)))
            fprintf(stderr, "job %s: note '%s', expected %s\n", name,
                    job.note, want);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
        admitted++;
        const struct lr_jenv_cand *cd = lr_jenv_cand(m.env, a);
        /* The stages use the candidate's DCs only, at most its split. */
        int total = 0;
        for (int s = 0; s < job.plan.n_stages; s++) {
            int dc = job.plan.stages[s].dc;
            CU_ASSERT(dc == cd->dc[0] || (cd->n_dcs == 2 && dc == cd->dc[1]));
        }
        for (int d = 0; d < cluster->n_dcs; d++)
            total += job.gpus[d];
        for (int k = 0; k < cd->n_dcs; k++)
            CU_ASSERT(job.gpus[cd->dc[k]] <= lr_jenv_cand_gpus(m.env, a, k));
        CU_ASSERT(total >= 1);
        if (cd->n_dcs == 2) {
            pairs++;
            CU_ASSERT_EQUAL(job.n_lightpaths, 2);
            CU_ASSERT_EQUAL(job.lp[0].from_dc, cd->dc[0]);
            CU_ASSERT_EQUAL(job.lp[0].to_dc, cd->dc[1]);
            CU_ASSERT_EQUAL(job.lp[1].from_dc, cd->dc[1]);
            CU_ASSERT_DOUBLE_EQUAL(job.lp[0].capacity_gbps,
                                   lr_jenv_tier_gbps[cd->tier], 1e-9);
            const struct lr_path *p = lr_jenv_cand_path(m.env, a, 0);
            CU_ASSERT_EQUAL(job.lp[0].n_links, p->n_links);
            CU_ASSERT(!memcmp(job.lp[0].links, p->links,
                              (size_t) p->n_links * sizeof(int)));
            CU_ASSERT_EQUAL(job.lp[0].m, lr_jenv_cand_slots(m.env, a));
        } else {
            CU_ASSERT_EQUAL(job.n_lightpaths, 0);
        }
        assert_consistent(c);
    }
    CU_ASSERT(admitted >= 3);
    fprintf(stderr, "(%d admitted by the policy, %d on a pair) ", admitted,
            pairs);
    const struct lr_ctl_counters *k = lr_ctl_counters(c);
    CU_ASSERT_EQUAL(k->ppo_candidate, (unsigned long long) admitted);
    CU_ASSERT_EQUAL(k->ppo_candidate + k->ppo_cdynp,
                    sizeof jobs / sizeof *jobs);
    CU_ASSERT_EQUAL(k->ppo_refused, 0);
    /* Released jobs give everything back. */
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%zu", i);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    }
    for (int d = 0; d < cluster->n_dcs; d++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[d], 0);
    assert_consistent(c);
    mirror_close(&m);
    lr_ctl_free(c);
}

static void
test_unmapped_intents_fall_back(void)
{
    char err[1024];
    struct lr_ctl *c = open_ctl(src("examples/policies/metro.pol"), -1);
    int reuse = n_db - 1;
    struct lr_job job;
    struct lr_intent in = intent("batch64", "gpt-1.9b", 1, 16);
    in.batch = 64;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "ppo: batch 64"));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; planned by cdynp"));
    in = intent("gpus", "gpt-1.9b", 5, 7);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "no GPU demand of the policy "
                                            "(4,8,16) lies in [5, 7]"));
    in = intent("model", "gpt-6.7b", 1, 8);
    if (!lr_ctl_submit(c, &in, &job, err, sizeof err))
        CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "not in the policy's job "
                                                "mix"));
    /* A shape of its own under a preset's name is not that preset: the
     * note says so rather than that the mix lacks the name it lists. */
    in = intent("shape", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_model_preset_shape("gpt-1.9b", &in.shape), 0);
    in.shape.layers = 12;
    in.custom = true;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(job.note, "ppo: model 'gpt-1.9b' is a shape of "
                           "the intent's own (transformer), and the policy "
                           "was trained for its presets (bert-large,"
                           "gpt-1.9b,llama2-7b) only; planned by cdynp");
    assert_consistent(c);
    lr_ctl_free(c);
    /* The note is stored. */
    c = open_ctl(src("examples/policies/metro.pol"), reuse);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "batch64", &job), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; planned by cdynp"));
    assert_consistent(c);
    lr_ctl_free(c);
}

static void
check_bad_policy(const char *path, const char *says)
{
    char err[1024];
    struct lr_ctl *c = open_ctl(path, -1);
    bool usable = true;
    const char *why = lr_ctl_ppo_status(c, &usable);
    CU_ASSERT_FALSE(usable);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, says));
    struct lr_intent in = intent("j", "gpt-1.9b", 8, 8);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: ", 5), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, says));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; planned by cdynp"));
    assert_consistent(c);
    lr_ctl_free(c);
}

static void
test_missing_policy(void)
{
    check_bad_policy("/nonexistent/metro.pol", "/nonexistent/metro.pol");
}

static void
test_corrupt_policy(void)
{
    check_bad_policy(corrupt, "checksum");
}

/* A valid file whose job mix this controller cannot build, one for
 * another network, one that observes job lengths: all refused with what
 * to do. */
static void
test_incompatible_policy(void)
{
    struct lr_policy_meta meta;
    struct lr_ppo *agent = NULL;
    char err[512], path[256];
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("examples/policies/metro.pol"),
                                         &meta, &agent, err, sizeof err), 0);
    struct lr_policy_meta bad = meta;
    snprintf(bad.demands, sizeof bad.demands, "4,8,banana");
    snprintf(path, sizeof path, "%s/mix.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    check_bad_policy(path, "demand 'banana' is no GPU count");
    /* A demand is lr_parse_long()'s, as the header's others are, but a
     * file that lightrail train wrote from `--demands "4, 8, 16"` (which
     * strtol() took) is read as it was trained: lr_policy_parse() drops
     * the blank (or tab) before each item, so the policy stays usable. */
    static const char *const loose[] = { "4, 8, 16", "4,\t8,\t16" };
    for (size_t i = 0; i < sizeof loose / sizeof *loose; i++) {
        bad = meta;
        snprintf(bad.demands, sizeof bad.demands, "%s", loose[i]);
        snprintf(path, sizeof path, "%s/loose%zu.pol", dir, i);
        CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err,
                                             sizeof err), 0);
        struct lr_ctl *c = open_ctl(path, -1);
        bool usable = false;
        const char *why = lr_ctl_ppo_status(c, &usable);
        CU_ASSERT_TRUE(usable);
        if (!usable && why)
            printf("(%s: %s) ", loose[i], why);
        lr_ctl_free(c);
    }
    /* strtok_r() skipped empty elements: "4,,8" loaded as 4,8 and a
     * trailing "4,8," as 4,8, a job mix the agent was not trained on,
     * and an empty list as none.  `lightrail train` writes no such list
     * (lr_cli_split_list() refuses one): a file with one was edited. */
    static const struct {
        const char *models, *demands, *says;
    } holes[] = {
        { NULL, "4,,8", "demand 2 of '4,,8' is empty: give GPU counts "
          "separated by single commas, or train the policy again" },
        { NULL, "4,8,", "demand 3 of '4,8,' is empty" },
        { NULL, ",4,8", "demand 1 of ',4,8' is empty" },
        { NULL, "", "demand 1 of '' is empty" },
        { "bert-large,,gpt-1.9b", NULL, "model 2 of 'bert-large,,gpt-1.9b' "
          "is empty: give model presets separated by single commas, or "
          "train the policy again" },
        { "bert-large,gpt-1.9b,llama2-7b,", NULL, "model 4 of 'bert-large,"
          "gpt-1.9b,llama2-7b,' is empty" },
    };
    for (size_t i = 0; i < sizeof holes / sizeof *holes; i++) {
        bad = meta;
        if (holes[i].models)
            snprintf(bad.models, sizeof bad.models, "%s", holes[i].models);
        if (holes[i].demands)
            snprintf(bad.demands, sizeof bad.demands, "%s",
                     holes[i].demands);
        snprintf(path, sizeof path, "%s/hole%zu.pol", dir, i);
        CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err,
                                             sizeof err), 0);
        check_bad_policy(path, holes[i].says);
    }
    bad = meta;
    snprintf(bad.topology, sizeof bad.topology, "nsfnet");
    snprintf(path, sizeof path, "%s/other.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    check_bad_policy(path, "trained for topology 'nsfnet'");
    /* The same DC names over other GPUs (as nsfnet6-equal.pol on
     * nsfnet6.json): the shipped file records its inventory, and another
     * is refused naming both. */
    CU_ASSERT_STRING_EQUAL(meta.gpus, "16 A100-80GB,32 V100-32GB,8 H100-80GB");
    bad = meta;
    snprintf(bad.gpus, sizeof bad.gpus, "16 A100-80GB,32 V100-32GB,12 "
             "H100-80GB");
    snprintf(path, sizeof path, "%s/gpus.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    check_bad_policy(path, "trained for the GPUs 16 A100-80GB,32 V100-32GB,"
                     "12 H100-80GB in its DCs, this controller has 16 "
                     "A100-80GB,32 V100-32GB,8 H100-80GB: train a policy for "
                     "this network");
    /* The same name over other links (an edited "metro"): the shipped
     * file records its network's signature, and another is refused. */
    char sig[17];
    lr_policy_net_sig(topo, cluster, sig);
    CU_ASSERT_STRING_EQUAL(meta.net_sig, sig);
    bad = meta;
    snprintf(bad.net_sig, sizeof bad.net_sig, "0123456789abcdef");
    snprintf(path, sizeof path, "%s/sig.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    check_bad_policy(path, "trained for another network named 'metro' "
                     "(signature 0123456789abcdef");
    char gsig[17];
    lr_policy_gpu_sig(cluster, gsig);
    CU_ASSERT_STRING_EQUAL(meta.gpu_sig, gsig);
    /* The same GPU names and counts with other specifications (dc3's
     * H100-80GB with 40 GB, or 10% slower): the stage times and memory
     * limits the agent learnt are not these; the shipped file records
     * them, and the controller refuses it. */
    struct lr_cluster *trained = cluster;
    for (int v = 0; v < 3; v++) {
        cluster = lr_cluster_clone(trained);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
        int h = lr_cluster_find_type(cluster, "H100-80GB");
        CU_ASSERT_FATAL(h >= 0);
        if (v == 0)
            cluster->types[h].memory_bytes /= 2;
        else if (v == 1)
            cluster->types[h].peak_flops *= 0.9;
        else
            cluster->dcs[2].intra_bw /= 2;
        check_bad_policy(src("examples/policies/metro.pol"), "trained for "
                         "other GPU or DC specifications (signature ");
        lr_cluster_free(cluster);
        cluster = trained;
    }
    /* A file written before the keys: checked by DC names, usable, on
     * the inventory it was trained on and on one of other GPUs. */
    bad = meta;
    bad.gpus[0] = '\0';
    bad.gpu_sig[0] = '\0';
    bad.net_sig[0] = '\0';
    snprintf(path, sizeof path, "%s/nogpus.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    struct lr_ctl *c = open_ctl(path, -1);
    bool usable = false;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    lr_ctl_free(c);
    cluster = lr_cluster_clone(trained);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
    cluster->types[0].memory_bytes /= 2;
    c = open_ctl(path, -1);
    usable = false;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    lr_ctl_free(c);
    lr_cluster_free(cluster);
    cluster = trained;
    /* known-work=1 over an agent without the work feature: the
     * environment it describes has one observation more (accepted
     * known-work policies: test_known_work_policy). */
    bad = meta;
    bad.known_work = true;
    snprintf(path, sizeof path, "%s/known.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &bad, agent, err, sizeof err),
                          0);
    char want[128];
    snprintf(want, sizeof want, "the agent has %d observations and %d "
             "actions, this network gives %d and", meta.n_obs, meta.n_act,
             meta.n_obs + 1);
    check_bad_policy(path, want);
    lr_ppo_free(agent);
}

static void
test_no_policy_configured(void)
{
    char err[1024];
    struct lr_ctl *c = open_ctl(NULL, -1);
    bool usable = true;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT_FALSE(usable);
    struct lr_intent in = intent("j", "bert-large", 4, 4);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "no ppo-policy"));
    lr_ctl_free(c);
}

/* A policy file with the refusal action (refuse=1): the shipped
 * policy's header, a new agent one observation and one action larger
 * whose actor's output bias for the refusal is 'bias' (+100: it always
 * refuses; -100: never). */
static void
write_refuse_policy(const char *path, double bias)
{
    struct lr_policy_meta meta;
    struct lr_ppo *agent = NULL, *r = NULL;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("examples/policies/metro.pol"),
                                         &meta, &agent, err, sizeof err), 0);
    meta.refuse = true;
    meta.n_obs++;
    meta.n_act++;
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, meta.n_obs, meta.n_act);
    pc.seed = 1;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&pc, &r), 0);
    r->actor->params[r->actor->n_params - 1] = bias;
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &meta, r, err, sizeof err),
                          0);
    lr_ppo_free(r);
    lr_ppo_free(agent);
}

/* A refusing policy blocks a mapped intent with its reason and holds
 * nothing; an unmapped intent still falls back to CDynP; the same file
 * format with a policy that never refuses admits on a candidate. */
static void
test_refusing_policy(void)
{
    char err[1024], path[256];
    snprintf(path, sizeof path, "%s/refuse.pol", dir);
    write_refuse_policy(path, 100);
    struct lr_ctl *c = open_ctl(path, -1);
    int reuse = n_db - 1;
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    struct lr_intent in = intent("r1", "gpt-1.9b", 8, 8);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused by the ppo policy: "
                                  "its fastest feasible placement now "
                                  "would run 1.00 times slower"));
    CU_ASSERT_STRING_EQUAL(job.note, "ppo: refused the job");
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_refused, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->blocks_plan, 1);
    for (int d = 0; d < cluster->n_dcs; d++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[d], 0);
    in = intent("r2", "gpt-1.9b", 5, 7);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; planned by cdynp"));
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_cdynp, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, 0);
    assert_consistent(c);
    lr_ctl_free(c);
    c = open_ctl(path, reuse);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "r1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused by the ppo policy"));
    assert_consistent(c);
    lr_ctl_free(c);

    write_refuse_policy(path, -100);
    c = open_ctl(path, -1);
    in = intent("a1", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_refused, 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* Copies file 'from' to 'to'. */
static void
copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int ch; (ch = getc(in)) != EOF;)
        putc(ch, out);
    fclose(in);
    CU_ASSERT_EQUAL(fclose(out), 0);
}

/* A policy file's own checksum: its last 8 bytes, big-endian. */
static uint64_t
file_trailer(const char *path)
{
    uint8_t b[8] = { 0 };
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fseek(f, -8, SEEK_END), 0);
    CU_ASSERT_EQUAL(fread(b, 1, 8, f), 8);
    fclose(f);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

/* lr_ctl_ppo_reload (SIGHUP): a file that does not load leaves the
 * policy in use deciding; a good one replaces it; the jobs placed and
 * the GPUs they hold are not touched either way.  lr_ctl_ppo_info
 * follows: the file's checksum and header, the reloads that replaced
 * it. */
static void
test_reload_policy(void)
{
    struct lr_ctl_ppo_info info;
    char err[1024], path[256];
    snprintf(path, sizeof path, "%s/live.pol", dir);
    copy_file(src("examples/policies/metro.pol"), path);
    struct lr_ctl *c = open_ctl(path, -1);
    struct lr_intent in = intent("h0", "llama2-7b", 16, 16);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    int used[LR_TM_MAX_DCS];
    memcpy(used, lr_ctl_gpus_used(c), (size_t) cluster->n_dcs * sizeof *used);
    uint64_t first = file_trailer(path);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_ppo_info(c, &info), 0);
    CU_ASSERT(info.usable && info.loaded && !info.why && !info.rollout);
    CU_ASSERT_STRING_EQUAL(info.file, path);
    CU_ASSERT_EQUAL(info.checksum, first);
    CU_ASSERT_EQUAL(info.reloads, 0);
    CU_ASSERT(info.loaded_ms > 0);
    CU_ASSERT_STRING_EQUAL(info.holding, "exp");
    CU_ASSERT_STRING_EQUAL(info.topology, "metro");
    CU_ASSERT(!info.refuse && !info.known_work && !info.held_work);
    CU_ASSERT_EQUAL(strncmp(info.command, "lightrail train ", 16), 0);

    /* Retrained in place, but the copy is corrupt: kept. */
    copy_file(corrupt, path);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the policy loaded before stays in "
                                  "use"));
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    CU_ASSERT_EQUAL(lr_ctl_ppo_info(c, &info), 0);
    CU_ASSERT(info.usable && info.checksum == first && info.reloads == 0);
    CU_ASSERT(!memcmp(used, lr_ctl_gpus_used(c),
                      (size_t) cluster->n_dcs * sizeof *used));
    in = intent("h1", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);

    /* A good file: the new policy decides (this one always refuses). */
    write_refuse_policy(path, 100);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    CU_ASSERT_EQUAL(lr_ctl_ppo_info(c, &info), 0);
    CU_ASSERT(info.usable && info.refuse && info.reloads == 1);
    CU_ASSERT_EQUAL(info.checksum, file_trailer(path));
    CU_ASSERT_NOT_EQUAL(info.checksum, first);
    in = intent("h2", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_STRING_EQUAL(job.note, "ppo: refused the job");
    CU_ASSERT_EQUAL(lr_ctl_get(c, "h0", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    assert_consistent(c);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "h%d", i);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    }
    lr_ctl_free(c);

    /* Unusable over unusable: replaced, saying why. */
    unlink(path);
    c = open_ctl(path, -1);
    CU_ASSERT_PTR_NOT_NULL(lr_ctl_ppo_status(c, &usable));
    copy_file(corrupt, path);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(strstr(err, "stays in use"));
    CU_ASSERT_PTR_NOT_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT_STRING_EQUAL(err, lr_ctl_ppo_status(c, &usable));
    CU_ASSERT_EQUAL(lr_ctl_ppo_info(c, &info), 0);
    CU_ASSERT(!info.usable && !info.loaded && info.reloads == 1);
    CU_ASSERT_STRING_EQUAL(info.why, err);
    CU_ASSERT_EQUAL(info.checksum, 0);
    CU_ASSERT_PTR_NULL(info.command);
    /* ... and a good file then makes it usable. */
    copy_file(src("examples/policies/metro.pol"), path);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    lr_ctl_free(c);

    c = open_ctl(NULL, -1);
    CU_ASSERT_EQUAL(lr_ctl_ppo_info(c, &info), ENOENT);
    CU_ASSERT_PTR_NULL(info.file);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no ppo-policy"));
    lr_ctl_free(c);
}

/* ---- a policy trained with uneven GPU shares (splits=1/4,1/2) ----
 * The shipped policy's header with the shares, and a new agent sized for
 * the 111 candidates whose actor's output bias for candidate 'pick' is
 * +100 (the argmax whenever it is feasible); n_splits_written = 0 writes
 * the header without the key (the agent then fits no environment the
 * file describes). */
/* The environment a policy file for the metro's job mix describes:
 * 'cfg' with its own options (shares, triples, the load observed) and
 * the mix's common ones filled in; 'models' receives the presets, which
 * mix_env_free() frees with it. */
static struct lr_jenv *
mix_env(struct lr_jenv_config cfg, struct lr_model *models[3])
{
    static const char *const names[3] = {
        "bert-large", "gpt-1.9b", "llama2-7b",
    };
    char err[1024];
    cfg.load = cfg.holding = 1;
    cfg.k = 3;
    cfg.guard = 1;
    cfg.block_penalty = 2;
    cfg.train = (struct lr_train) { 32, 1, 2 };
    cfg.n_models = cfg.n_demands = 3;
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(lr_model_preset(names[i], &models[i]), 0);
        cfg.models[i] = models[i];
        cfg.demands[i] = 4 << i;
    }
    struct lr_jenv *env = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cluster, &cfg, &env, err,
                                      sizeof err), 0);
    return env;
}

static void
mix_env_free(struct lr_jenv *env, struct lr_model *models[3])
{
    lr_jenv_free(env);
    for (int i = 0; i < 3; i++)
        lr_model_free(models[i]);
}

/* A fresh agent (seed 1) for n_obs observations and n_act actions, and
 * in 'meta' the header of the shipped metro policy (its job mix) with
 * those sizes, naming the network the tests open (topo, cluster: the
 * metro's, or NSFNET's in test_quads_policy); mix_policy_save() writes
 * both and frees the agent. */
static struct lr_ppo *
mix_policy_new(struct lr_policy_meta *meta, int n_obs, int n_act)
{
    struct lr_ppo *agent = NULL, *r = NULL;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("examples/policies/metro.pol"),
                                         meta, &agent, err, sizeof err), 0);
    lr_ppo_free(agent);
    meta->n_obs = n_obs;
    meta->n_act = n_act;
    snprintf(meta->topology, sizeof meta->topology, "%s", topo->name);
    meta->dcs[0] = 0;
    for (int d = 0; d < cluster->n_dcs; d++)
        snprintf(meta->dcs + strlen(meta->dcs),
                 sizeof meta->dcs - strlen(meta->dcs), "%s%s", d ? "," : "",
                 cluster->dcs[d].name);
    lr_policy_gpus(cluster, meta->gpus, sizeof meta->gpus);
    lr_policy_gpu_sig(cluster, meta->gpu_sig);
    lr_policy_net_sig(topo, cluster, meta->net_sig);
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, n_obs, n_act);
    pc.seed = 1;
    /* 16 hidden units, not the default 64: every policy made here
     * decides by its output biases (or, write_load_policy, by one unit
     * of each layer), which no width changes, while building, writing
     * and loading nets of 64 units over NSFNET's 3516 actions was a
     * fifth of test_quads_policy's time in the ASan build. */
    pc.hidden[0] = pc.hidden[1] = 16;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&pc, &r), 0);
    return r;
}

static void
mix_policy_save(const char *path, const struct lr_policy_meta *meta,
                struct lr_ppo *r)
{
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, meta, r, err, sizeof err),
                          0);
    lr_ppo_free(r);
}

/* A policy file for the metro's job mix whose actor picks candidate
 * 'pick' whenever it is allowed (its output bias), with the header keys
 * of shares {1/4, 1/2} (the first n_splits_written), triples and
 * quads. */
static void
write_biased_policy(const char *path, int n_obs, int n_act, int pick,
                    int n_splits_written, bool triples, bool quads)
{
    struct lr_policy_meta meta;
    struct lr_ppo *r = mix_policy_new(&meta, n_obs, n_act);
    meta.n_splits = n_splits_written;
    meta.triples = triples;
    meta.quads = quads;
    meta.splits[0] = (struct lr_jenv_split) { 1, 4 };
    meta.splits[1] = (struct lr_jenv_split) { 1, 2 };
    r->actor->params[r->actor->n_params - n_act + pick] = 100;
    mix_policy_save(path, &meta, r);
}

/* A controller with the policy of 'path' (usable), and the ppo intent
 * 'name' for gpt-1.9b on 16 GPUs submitted to it: active, in '*job'. */
static struct lr_ctl *
open_and_submit16(const char *path, const char *name, struct lr_job *job)
{
    char err[1024];
    struct lr_ctl *c = open_ctl(path, -1);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    struct lr_intent in = intent(name, "gpt-1.9b", 16, 16);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job->phase, LR_JOB_ACTIVE);
    fprintf(stderr, "(%s) ", job->note);
    return c;
}

/* Deletes job 'name', checks that every GPU is free and memory, store
 * and devices agree before and after, and closes 'c'. */
static void
delete_and_close(struct lr_ctl *c, const char *name)
{
    char err[1024];
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    for (int d = 0; d < cluster->n_dcs; d++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[d], 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* The controller builds the policy's shares and realises an uneven
 * candidate with its own GPU counts: a 16-GPU job as 4 + 12 over two
 * DCs, lightpaths each way, the note naming both counts. */
/* The stages of a job the policy admits, planned at cdynp-device-step
 * 'step': its stage sizes in g[] (at most 'max'); the number of stages. */
static int
admitted_stages(int step, int *g, int max)
{
    char err[1024];
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = {
        .ppo_policy = src("examples/policies/metro.pol"),
        .cdynp_step = step,
    };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct lr_intent in = intent("s", "llama2-7b", 16, 16);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    int n = job.plan.n_stages < max ? job.plan.n_stages : max;
    for (int s = 0; s < n; s++)
        g[s] = job.plan.stages[s].g;
    assert_consistent(c);
    lr_ctl_free(c);
    return n;
}

static void
test_device_step(void)
{
    /* Step 4 gives every stage a multiple of 4 GPUs, which the automatic
     * step's plan of this job does not (the case's premise). */
    enum { STEP = 4 };
    int g[LR_PLAN_MAX_STAGES], n = admitted_stages(0, g, LR_PLAN_MAX_STAGES);
    bool off_grid = false;
    for (int s = 0; s < n; s++)
        off_grid = off_grid || g[s] % STEP;
    CU_ASSERT(off_grid);
    n = admitted_stages(STEP, g, LR_PLAN_MAX_STAGES);
    CU_ASSERT(n >= 1);
    for (int s = 0; s < n; s++) {
        CU_ASSERT_EQUAL(g[s] % STEP, 0);
    }
}

static void
test_splits_policy(void)
{
    char path[256];
    struct lr_model *models[3];
    struct lr_jenv *env = mix_env((struct lr_jenv_config) {
            .n_splits = 2, .splits = { { 1, 4 }, { 1, 2 } },
        }, models);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(env), 111);
    /* The first share-1/4 candidate feasible for gpt-1.9b on 16 GPUs on
     * the empty network. */
    CU_ASSERT_FATAL(lr_jenv_present(env, 1, 2) > 0);
    int pick = -1;
    for (int a = 0; a < lr_jenv_n_cands(env) && pick < 0; a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
        if (cd->n_dcs == 2 && cd->split == 0 && lr_jenv_mask(env)[a])
            pick = a;
    }
    CU_ASSERT_FATAL(pick >= 0);
    const struct lr_jenv_cand *cd = lr_jenv_cand(env, pick);
    int g0 = lr_jenv_cand_gpus(env, pick, 0), g1 = lr_jenv_cand_gpus(env,
                                                                    pick, 1);
    CU_ASSERT_EQUAL(g0, 4);
    CU_ASSERT_EQUAL(g1, 12);
    snprintf(path, sizeof path, "%s/splits.pol", dir);
    write_biased_policy(path, lr_jenv_obs_size(env), lr_jenv_n_actions(env),
                        pick, 2, false, false);
    struct lr_job job;
    struct lr_ctl *c = open_and_submit16(path, "u1", &job);
    char want[256];
    snprintf(want, sizeof want, "ppo: candidate %d, %s (4 GPUs) then %s "
             "(12 GPUs), route %d at %d Gb/s", pick,
             cluster->dcs[cd->dc[0]].name, cluster->dcs[cd->dc[1]].name,
             cd->route, lr_jenv_tier_gbps[cd->tier]);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    /* The stages stay within the share: at most 4 and 12, both DCs. */
    CU_ASSERT(job.gpus[cd->dc[0]] >= 1 && job.gpus[cd->dc[0]] <= 4);
    CU_ASSERT(job.gpus[cd->dc[1]] >= 1 && job.gpus[cd->dc[1]] <= 12);
    for (int d = 0; d < cluster->n_dcs; d++) {
        if (d != cd->dc[0] && d != cd->dc[1])
            CU_ASSERT_EQUAL(job.gpus[d], 0);
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[d], job.gpus[d]);
    }
    CU_ASSERT_EQUAL(job.n_lightpaths, 2);
    CU_ASSERT_EQUAL(job.lp[0].from_dc, cd->dc[0]);
    CU_ASSERT_EQUAL(job.lp[0].to_dc, cd->dc[1]);
    delete_and_close(c, "u1");
    /* The same agent in a file without splits=: read as 1/2, 57
     * candidates, refused at start with the reason, CDynP plans. */
    snprintf(path, sizeof path, "%s/splits-nokey.pol", dir);
    write_biased_policy(path, lr_jenv_obs_size(env), lr_jenv_n_actions(env),
                        pick, 0, false, false);
    check_bad_policy(path, "actions, this network gives");
    mix_env_free(env, models);
}

/* A chain policy in the controller: on the empty network of 'env', the
 * first candidate over n DCs feasible for gpt-1.9b on 16 GPUs, 'share'
 * GPUs of the job in each of its DCs (in chain order).  An agent biased
 * to it, written with the key of chains of that length ('tag': triples
 * or quads), is realised hop by hop with a lightpath each way (2 (n -
 * 1)), the note naming the chain; deleting the job frees them all.  The
 * same agent without the key is refused. */
static void
check_chain_policy(struct lr_jenv *env, int n, const int *share,
                   const char *tag)
{
    char path[256], want[512];
    CU_ASSERT_FATAL(lr_jenv_present(env, 1, 2) > 0);
    int pick = -1;
    for (int a = 0; a < lr_jenv_n_cands(env) && pick < 0; a++)
        if (lr_jenv_cand(env, a)->n_dcs == n && lr_jenv_mask(env)[a])
            pick = a;
    CU_ASSERT_FATAL(pick >= 0);
    const struct lr_jenv_cand *cd = lr_jenv_cand(env, pick);
    for (int with = 1; with >= 0; with--) {
        snprintf(path, sizeof path, "%s/%s%s.pol", dir, tag,
                 with ? "" : "-nokey");
        write_biased_policy(path, lr_jenv_obs_size(env),
                            lr_jenv_n_actions(env), pick, 0,
                            with && n == 3, with && n == 4);
    }
    struct lr_job job;
    snprintf(path, sizeof path, "%s/%s.pol", dir, tag);
    struct lr_ctl *c = open_and_submit16(path, tag, &job);
    int len = snprintf(want, sizeof want, "ppo: candidate %d, ", pick);
    for (int i = 0; i < n; i++)
        len += snprintf(want + len, sizeof want - len, "%s%s (%d GPUs)",
                        i ? " then " : "", cluster->dcs[cd->dc[i]].name,
                        share[i]);
    snprintf(want + len, sizeof want - len, ", route %d of each hop at %d "
             "Gb/s", cd->route, lr_jenv_tier_gbps[cd->tier]);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    for (int i = 0; i < n; i++) {
        CU_ASSERT(job.gpus[cd->dc[i]] >= 1 && job.gpus[cd->dc[i]] <= share[i]);
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[cd->dc[i]], job.gpus[cd->dc[i]]);
    }
    /* Hop by hop, there and back. */
    CU_ASSERT_EQUAL_FATAL(job.n_lightpaths, 2 * (n - 1));
    for (int i = 0; i < 2 * (n - 1); i++) {
        int h = i / 2, back = i % 2;
        CU_ASSERT_EQUAL(job.lp[i].from_dc, cd->dc[h + back]);
        CU_ASSERT_EQUAL(job.lp[i].to_dc, cd->dc[h + 1 - back]);
        CU_ASSERT_EQUAL(job.lp[i].m, lr_jenv_cand_hop_slots(env, pick, h));
        CU_ASSERT_EQUAL(job.lp[i].capacity_gbps,
                        lr_jenv_tier_gbps[cd->tier]);
    }
    delete_and_close(c, tag);
    snprintf(path, sizeof path, "%s/%s-nokey.pol", dir, tag);
    check_bad_policy(path, "actions, this network gives");
}

/* A policy with triples (check_chain_policy): a chain over the metro's
 * three DCs, 5 + 5 + 6 GPUs for a 16-GPU job, four lightpaths. */
static void
test_triples_policy(void)
{
    struct lr_model *models[3];
    struct lr_jenv *env = mix_env(
        (struct lr_jenv_config) { .triples = true }, models);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(env), 57 + 6 * 3 * 3);
    static const int share[3] = { 5, 5, 6 };
    check_chain_policy(env, 3, share, "triples");
    mix_env_free(env, models);
}

/* A policy with quadruples (check_chain_policy), on NSFNET with the
 * first four DCs of examples/clusters/nsfnet6.json (the metro has
 * three): a chain over four DCs, 4 GPUs in each for a 16-GPU job, six
 * lightpaths.  Four DCs, not the file's six: the chain the agent takes
 * is over these four either way (dc-ca, dc-tx, dc-il, dc-ga), while
 * the environment, built here and by each of the two controllers, has
 * 328 candidates instead of 3516, each a CDynP plan per class of the
 * mix; with the six it was one of the program's two longest cases
 * under valgrind and ASan. */
static void
test_quads_policy(void)
{
    char err[1024];
    struct lr_topo *metro_topo = topo, *nsf = NULL;
    struct lr_cluster *metro_cluster = cluster, *nsf4 = NULL;
    size_t len = 0;
    char *text = (char *) lr_test_read_file(
        src("examples/clusters/nsfnet6.json"), &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *z = realloc(text, len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    text = z;
    text[len] = '\0';
    /* The list of DCs cut from the comma before dc-ny's entry to its
     * closing bracket. */
    char *ny = strstr(text, "\"dc-ny\""), *cut = ny, *end = NULL;
    while (cut && cut > text && *cut != ',')
        cut--;
    if (ny)
        end = strchr(ny, ']');
    CU_ASSERT_FATAL(cut && cut > text && end);
    memmove(cut, end, strlen(end) + 1);
    len = strlen(text);
    if (lr_yang_load_topo(ly, src("examples/topologies/nsfnet.json"), &nsf,
                          err, sizeof err)
        || lr_yang_load_cluster_mem(ly, text, len, "nsfnet4", &nsf4, err,
                                    sizeof err))
        fprintf(stderr, "quads: %s\n", err);
    free(text);
    CU_ASSERT_FATAL(nsf && nsf4);
    CU_ASSERT_EQUAL_FATAL(nsf4->n_dcs, 4);
    topo = nsf;
    cluster = nsf4;
    struct lr_model *models[3];
    struct lr_jenv *env = mix_env(
        (struct lr_jenv_config) { .quads = true }, models);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(env), 4 + 12 * 9 + 24 * 9);
    static const int share[4] = { 4, 4, 4, 4 };
    check_chain_policy(env, 4, share, "quads");
    mix_env_free(env, models);
    topo = metro_topo;
    cluster = metro_cluster;
    lr_topo_free(nsf);
    lr_cluster_free(nsf4);
}

/* ---- a policy that observes the load (observe-load=1) ---- */

static long long fake_ms;

static long long
fake_clock(void *arg)
{
    (void) arg;
    return fake_ms;
}

/* A policy file for the metro's job mix with observe_load whose actor
 * reads only the last observation, log(1 + load): its logit for 'pick'
 * exceeds that for 'other' by 100 (tanh(tanh(x)) - tanh(tanh(log(1 +
 * 'load_star')))), every other logit 0; it takes 'pick' above the load
 * load_star and 'other' below. */
static void
write_load_policy(const char *path, int n_obs, int n_act, int pick,
                  int other, double load_star)
{
    struct lr_policy_meta meta;
    struct lr_ppo *r = mix_policy_new(&meta, n_obs, n_act);
    meta.observe_load = true;
    struct lr_mlp *a = r->actor;
    CU_ASSERT_EQUAL_FATAL(a->n_layers, 3);
    int h1 = a->sizes[1], h2 = a->sizes[2];
    memset(a->params, 0, (size_t) a->n_params * sizeof *a->params);
    double *w0 = a->params, *w1 = w0 + (size_t) h1 * n_obs + h1;
    double *w2 = w1 + (size_t) h2 * h1 + h2, *b2 = w2 + (size_t) n_act * h2;
    w0[n_obs - 1] = 1;                  /* unit 0 of layer 1: x_last */
    w1[0] = 1;                          /* unit 0 of layer 2: unit 0 */
    w2[(size_t) pick * h2] = 100;
    b2[pick] = -100 * tanh(tanh(log1p(load_star))) + 0.5;
    b2[other] = 0.5;
    mix_policy_save(path, &meta, r);
}

/* Submits the ppo intent 'name' (bert-large on 4 GPUs) at fake_ms, and
 * deletes it; returns the candidate of its note, -1 for none. */
static int
probe(struct lr_ctl *c, const char *name)
{
    char err[1024];
    struct lr_intent in = intent(name, "bert-large", 4, 4);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    int a = -1;
    if (sscanf(job.note, "ppo: candidate %d,", &a) != 1)
        a = -1;
    CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    return a;
}

/* lightraild shows such a policy the load its intents' arrival times
 * give (ppo-mean-job-s 1 s: tau 100 s, warm-up 10 s): one intent in
 * 10 s reads about 0.1 E, below the policy's 0.5 (other); after 20 more
 * at 0.1 s apart, about 2 E (pick); 1,000 quiet seconds later (10 tau)
 * about 0 again (other).  The same agent's file without observe-load=1
 * is refused for its size. */
static void
test_observe_load_policy(void)
{
    char err[1024], path[256];
    struct lr_model *models[3];
    struct lr_jenv *env = mix_env(
        (struct lr_jenv_config) { .observe_load = true }, models);
    /* other: DC 0 alone; pick: the first pair feasible for the class. */
    CU_ASSERT_FATAL(lr_jenv_present(env, 0, 0) > 0);
    int other = 0, pick = -1;
    CU_ASSERT_FATAL(lr_jenv_mask(env)[other]);
    for (int a = 0; a < lr_jenv_n_cands(env) && pick < 0; a++)
        if (lr_jenv_cand(env, a)->n_dcs == 2 && lr_jenv_mask(env)[a])
            pick = a;
    CU_ASSERT_FATAL(pick >= 0);
    snprintf(path, sizeof path, "%s/load.pol", dir);
    write_load_policy(path, lr_jenv_obs_size(env), lr_jenv_n_actions(env),
                      pick, other, 0.5);
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    fake_ms = 1000000;
    struct lr_ctl_config cc = {
        .ppo_policy = path, .ppo_mean_job_s = 1, .clock_ms = fake_clock,
    };
    struct lr_ctl *c = lr_test_ctl_open(&cc);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    fake_ms += 500;
    CU_ASSERT_EQUAL(probe(c, "p0"), other);
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        fake_ms += 100;
        /* Every intent counts, whatever it asks for. */
        struct lr_intent in = intent(name, "bert-large", 4, 4);
        snprintf(in.algorithm, sizeof in.algorithm, "cdynp");
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    }
    fake_ms += 100;
    CU_ASSERT_EQUAL(probe(c, "p1"), pick);
    fake_ms += 1000000;
    CU_ASSERT_EQUAL(probe(c, "p2"), other);
    /* Intents refused (a batch no whole number of microbatches) are no
     * arrivals: 150 of them 10 ms apart leave the load about 0, where
     * as arrivals (tau 100 s) they would read about 1.5 E (pick). */
    for (int i = 0; i < 150; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        fake_ms += 10;
        struct lr_intent in = intent(name, "bert-large", 4, 4);
        snprintf(in.algorithm, sizeof in.algorithm, "cdynp");
        in.micro = 3;
        struct lr_job job;
        CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), EINVAL);
    }
    fake_ms += 100;
    CU_ASSERT_EQUAL(probe(c, "p3"), other);
    struct lr_ctl_ppo_info info;
    CU_ASSERT_EQUAL(lr_ctl_ppo_info(c, &info), 0);
    CU_ASSERT(info.observe_load);
    assert_consistent(c);
    lr_ctl_free(c);
    /* Without the key: read as a policy of one observation fewer. */
    struct lr_policy_meta meta;
    struct lr_ppo *agent = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(path, &meta, &agent, err,
                                         sizeof err), 0);
    meta.observe_load = false;
    snprintf(path, sizeof path, "%s/load-nokey.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &meta, agent, err,
                                         sizeof err), 0);
    lr_ppo_free(agent);
    check_bad_policy(path, "observations");
    mix_env_free(env, models);
}

/* ---- a policy trained with known work (known-work=1) ----
 * The metro environment the shipped policy's header describes, with
 * known_work (and the refusal action when 'refuse'): what the controller
 * builds for such a file, so the test computes T_ref and the sizes
 * itself. */
struct kw_env {
    bool held;                /* held work observed */
    struct lr_policy_meta meta;
    struct lr_model *models[3];
    struct lr_jenv *env;
};

static void
kw_env_open(struct kw_env *k, bool refuse, bool held)
{
    struct lr_ppo *agent = NULL;
    char err[512];
    memset(k, 0, sizeof *k);
    k->held = held;
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("examples/policies/metro.pol"),
                                         &k->meta, &agent, err, sizeof err),
                          0);
    lr_ppo_free(agent);
    struct lr_jenv_config cfg = {
        .load = 1, .holding = 1, .k = k->meta.k, .guard = 1,
        .block_penalty = k->meta.block_penalty,
        .train = { k->meta.batch, k->meta.micro, 2 },
        .n_models = 3, .n_demands = 3, .demands = { 4, 8, 16 },
        .refuse = refuse, .known_work = true, .held_work = held,
    };
    const char *names[3] = { "bert-large", "gpt-1.9b", "llama2-7b" };
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(lr_model_preset(names[i], &k->models[i]), 0);
        cfg.models[i] = k->models[i];
    }
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cluster, &cfg, &k->env, err,
                                      sizeof err), 0);
    /* One feature more than the shipped policy's (two with refuse; and
     * one per DC with held work). */
    CU_ASSERT_EQUAL(lr_jenv_obs_size(k->env),
                    k->meta.n_obs + 1 + (refuse ? 1 : 0)
                    + (held ? cluster->n_dcs : 0));
}

static void
kw_env_close(struct kw_env *k)
{
    lr_jenv_free(k->env);
    for (int i = 0; i < 3; i++)
        lr_model_free(k->models[i]);
}

/* Weight W[row][col] and bias b[row] of weight layer 'layer' of 'm'
 * (per layer: W out x in row-major, then b; lr_mlp.h). */
static double *
mlp_w(struct lr_mlp *m, int layer, int row, int col)
{
    double *p = m->params;
    for (int i = 0; i < layer; i++)
        p += m->sizes[i + 1] * (m->sizes[i] + 1);
    return p + row * m->sizes[layer] + col;
}

static double *
mlp_b(struct lr_mlp *m, int layer, int row)
{
    return mlp_w(m, layer, 0, 0) + m->sizes[layer + 1] * m->sizes[layer]
           + row;
}

/* A known-work policy file for k's environment whose actor takes
 * candidate 'pick' whenever it is feasible.  With k's refusal action,
 * the actor reads one feature only, observation 'in' (log(1 + X) or a
 * held-work feature log(1 + H_d)): every weight 0 but a chain from it
 * through the first unit of both hidden layers, h = tanh(tanh(v)), to
 * the refusal's logit 100 (h - 0.5); 'pick' has logit 0, the other
 * candidates -100.  It refuses when h > 0.5, i.e. X (or H_d) > 0.854,
 * and takes 'pick' below. */
static void
write_known_policy(const char *path, struct kw_env *k, int pick, int in)
{
    struct lr_policy_meta meta = k->meta;
    struct lr_ppo *r = NULL;
    char err[512];
    int refuse = lr_jenv_refuse_action(k->env);
    meta.known_work = true;
    meta.held_work = k->held;
    meta.refuse = refuse >= 0;
    meta.n_obs = lr_jenv_obs_size(k->env);
    meta.n_act = lr_jenv_n_actions(k->env);
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, meta.n_obs, meta.n_act);
    pc.seed = 1;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&pc, &r), 0);
    struct lr_mlp *m = r->actor;
    CU_ASSERT_EQUAL_FATAL(m->n_layers, 3);
    if (refuse < 0) {
        *mlp_b(m, 2, pick) = 100;
    } else {
        memset(m->params, 0, (size_t) m->n_params * sizeof *m->params);
        *mlp_w(m, 0, 0, in) = 1;
        *mlp_w(m, 1, 0, 0) = 1;
        for (int a = 0; a < lr_jenv_n_cands(k->env); a++)
            *mlp_b(m, 2, a) = a == pick ? 0 : -100;
        *mlp_w(m, 2, refuse, 0) = 100;
        *mlp_b(m, 2, refuse) = -50;
    }
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &meta, r, err, sizeof err),
                          0);
    lr_ppo_free(r);
}

/* The first one-DC candidate feasible for gpt-1.9b on 8 GPUs on the
 * empty network, and that class's T_ref (seconds). */
static int
kw_pick(struct kw_env *k, double *tref)
{
    CU_ASSERT_FATAL(lr_jenv_present(k->env, 1, 1) > 0);
    *tref = lr_jenv_job_tref(k->env);
    CU_ASSERT(*tref > 0);
    for (int a = 0; a < lr_jenv_n_cands(k->env); a++)
        if (lr_jenv_cand(k->env, a)->n_dcs == 1 && lr_jenv_mask(k->env)[a])
            return a;
    CU_FAIL_FATAL("no one-DC candidate for gpt-1.9b on 8 GPUs");
    return -1;
}

/* A held-work policy sees how long the running jobs hold their GPUs:
 * with a job of 8 GPUs running in DC d (the pick's) for X = 3 mean
 * lengths, H_d = 8 x 3 / 16 = 1.5 and the next intent is refused; with
 * one of X = 0.5 (H_d = 0.25) it is placed.  The controller gives the
 * mirror its running jobs (without a rollout) for such a policy only. */
static void
test_held_work_policy(void)
{
    char err[1024], path[256];
    struct kw_env k;
    kw_env_open(&k, true, true);
    double tref;
    int pick = kw_pick(&k, &tref);
    int d = lr_jenv_cand(k.env, pick)->dc[0];
    CU_ASSERT_EQUAL_FATAL(cluster->dcs[d].n_devices, 16);
    snprintf(path, sizeof path, "%s/held-work.pol", dir);
    write_known_policy(path, &k, pick,
                       lr_jenv_obs_size(k.env) - cluster->n_dcs + d);
    for (int run = 0; run < 2; run++) {
        double x = run == 0 ? 3 : 0.5;
        struct lr_ctl *c = open_ctl(path, -1);
        bool usable;
        lr_ctl_ppo_status(c, &usable);
        CU_ASSERT_FATAL(usable);
        struct lr_intent in = intent("h1", "gpt-1.9b", 8, 8);
        in.iterations = (uint64_t) (x * 3600 / tref);
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
        in = intent("h2", "gpt-1.9b", 8, 8);
        in.iterations = 100;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        if (run == 0) {
            CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
            CU_ASSERT_STRING_EQUAL(job.note, "ppo: refused the job, work "
                                   "0.00 x mean");
        } else {
            CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
            CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
        }
        fprintf(stderr, "(X %.1f running: %s) ", x, job.note);
        assert_consistent(c);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "h1", err, sizeof err), 0);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "h2", err, sizeof err), 0);
        lr_ctl_free(c);
    }
    kw_env_close(&k);
}

/* A known-work policy is accepted; an intent with iterations is placed
 * on the actor's candidate with the work X = iterations x T_ref /
 * ppo-mean-job-s in its note (computed here by hand, for 1800 s and for
 * the default 3600 s); the same intent without iterations falls back to
 * CDynP saying what to do; iterations and notes survive a restart. */
static void
test_known_work_policy(void)
{
    char err[1024], path[256], want[256];
    struct kw_env k;
    kw_env_open(&k, false, false);
    double tref;
    int pick = kw_pick(&k, &tref);
    const char *dcname = cluster->dcs[lr_jenv_cand(k.env, pick)->dc[0]].name;
    snprintf(path, sizeof path, "%s/known-work.pol", dir);
    write_known_policy(path, &k, pick, lr_jenv_obs_size(k.env) - 1);

    snprintf(db, sizeof db, "%s/db%d", dir, n_db);
    int reuse = n_db++;
    struct lr_ctl_config cfg = { .ppo_policy = path, .ppo_mean_job_s = 1800 };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    bool usable;
    const char *why = lr_ctl_ppo_status(c, &usable);
    CU_ASSERT(usable);
    if (why)
        fprintf(stderr, "known-work policy: %s\n", why);
    struct lr_intent in = intent("k1", "gpt-1.9b", 8, 8);
    in.iterations = 5000;
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    snprintf(want, sizeof want, "ppo: candidate %d, %s with 8 GPUs, work "
             "%.2f x mean", pick, dcname, 5000 * tref / 1800);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    fprintf(stderr, "(%s; T_ref %.4f s) ", job.note, tref);
    CU_ASSERT_EQUAL(job.intent.iterations, 5000);
    in = intent("k2", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_STRING_EQUAL(job.note, "ppo: the ppo policy reads each job's "
                           "length: give iterations in the intent; planned "
                           "by cdynp");
    assert_consistent(c);
    lr_ctl_free(c);

    /* A restart: the intents keep their iterations, the jobs their
     * notes. */
    snprintf(db, sizeof db, "%s/db%d", dir, reuse);
    cfg = (struct lr_ctl_config) { .ppo_policy = path,
                                   .ppo_mean_job_s = 1800 };
    c = lr_test_ctl_open(&cfg);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "k1", &job), 0);
    CU_ASSERT_EQUAL(job.intent.iterations, 5000);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "k2", &job), 0);
    CU_ASSERT_EQUAL(job.intent.iterations, 0);
    assert_consistent(c);
    lr_ctl_free(c);

    /* ppo-mean-job-s not given: 3600 s, half the work. */
    c = open_ctl(path, -1);
    in = intent("k3", "gpt-1.9b", 8, 8);
    in.iterations = 5000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    snprintf(want, sizeof want, "ppo: candidate %d, %s with 8 GPUs, work "
             "%.2f x mean", pick, dcname, 5000 * tref / 3600);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    /* A policy without known work ignores iterations: no work noted. */
    lr_ctl_free(c);
    c = open_ctl(src("examples/policies/metro.pol"), -1);
    in = intent("k4", "gpt-1.9b", 8, 8);
    in.iterations = 5000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    CU_ASSERT_PTR_NULL(strstr(job.note, "work"));
    lr_ctl_free(c);
    kw_env_close(&k);
}

/* X reaches the observation: a policy whose refusal is driven by the
 * work feature alone (write_known_policy) places a short job of a class
 * and refuses a long one of the same class on the same network. */
static void
test_known_work_decides(void)
{
    char err[1024], path[256], want[512];
    struct kw_env k;
    kw_env_open(&k, true, false);
    double tref;
    int pick = kw_pick(&k, &tref);
    snprintf(path, sizeof path, "%s/known-work-refuse.pol", dir);
    write_known_policy(path, &k, pick, lr_jenv_obs_size(k.env) - 1);
    struct lr_ctl *c = open_ctl(path, -1);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    /* X = 5 and X = 0.2 at the default 3600 s, on either side of 0.854. */
    uint64_t long_it = (uint64_t) (5 * 3600 / tref) + 1;
    uint64_t short_it = (uint64_t) (0.2 * 3600 / tref) + 1;
    struct lr_intent in = intent("long", "gpt-1.9b", 8, 8);
    in.iterations = long_it;
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused by the ppo policy"));
    snprintf(want, sizeof want, "ppo: refused the job, work %.2f x mean",
             (double) long_it * tref / 3600);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    /* Refused on an empty network for its length: the reason says so,
     * not only "1.00 times slower ...; submit it again later", which
     * would be refused again. */
    snprintf(want, sizeof want, "refused by the ppo policy: its fastest "
             "feasible placement now would run 1.00 times slower than on "
             "an empty network, and its work is %.2f x mean "
             "(ppo-mean-job-s 3600 s); submit it again later, shorter or "
             "with another algorithm", (double) long_it * tref / 3600);
    CU_ASSERT_STRING_EQUAL(job.reason, want);
    for (int d = 0; d < cluster->n_dcs; d++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[d], 0);
    in = intent("short", "gpt-1.9b", 8, 8);
    in.iterations = short_it;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    snprintf(want, sizeof want, "ppo: candidate %d, %s with 8 GPUs, work "
             "%.2f x mean", pick,
             cluster->dcs[lr_jenv_cand(k.env, pick)->dc[0]].name,
             (double) short_it * tref / 3600);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    fprintf(stderr, "(long %" PRIu64 " iterations refused, short %" PRIu64
            " placed) ", long_it, short_it);
    assert_consistent(c);
    lr_ctl_free(c);
    kw_env_close(&k);
}

/* A controller whose ppo intents go to the rollout of the policy
 * (ro), or to the policy alone (ro NULL). */
static struct lr_ctl *
open_rollout(const struct lr_ctl_ppo_rollout *ro)
{
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = { .ppo_policy = src("examples/policies/"
                                                   "metro.pol"),
                                 .ppo_rollout = ro };
    return lr_test_ctl_open(&cfg);
}

enum { RO_JOBS = 8 };

/* What a controller made of the test's sequence of intents. */
struct ro_run {
    enum lr_job_phase phase[RO_JOBS];
    char note[RO_JOBS][LR_JOB_REASON_MAX], reason[RO_JOBS][LR_JOB_REASON_MAX];
    int running[RO_JOBS];     /* the mirror's running jobs at decision i */
    int holding[RO_JOBS];     /* jobs holding resources before it */
};

static void *
run_op(void *op)
{
    lr_ctl_op_run(op);
    return NULL;
}

/* Submits 'in' as lightraild does with its decider: the decision begun
 * here, run on a thread of its own (while it runs, a second decision, a
 * ppo intent submitted directly and a new network are refused EBUSY),
 * then the admission begun with it and its device work done. */
static void
submit_split(struct lr_ctl *c, const struct lr_intent *in,
             struct lr_job *job)
{
    char err[1024];
    struct lr_ctl_op *dec = NULL, *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_decide_begin(c, in, &dec, err, sizeof err),
                          0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    CU_ASSERT_STRING_EQUAL(lr_ctl_op_job(dec), in->name);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, run_op, dec), 0);
    struct lr_intent other = intent("other", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL(lr_ctl_decide_begin(c, &other, &op, err, sizeof err),
                    EBUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, in->name));
    CU_ASSERT_EQUAL(lr_ctl_submit_begin(c, &other, job, &op, err,
                                        sizeof err), EBUSY);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "other", job), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), EBUSY);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_decided(c, dec, job, &op, err,
                                                sizeof err), 0);
    if (op) {
        lr_ctl_op_run(op);
        CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, job, err, sizeof err), 0);
    }
}

/* Submits the sequence to a new controller (rollout 'ro', or none;
 * each decision on a thread of its own with 'split'), records what it
 * decided, checks its store against its devices, then deletes every
 * job, so that the next controller finds the (shared) dummy ROADMs
 * empty. */
static void
ro_sequence(const struct lr_ctl_ppo_rollout *ro, bool split,
            struct ro_run *out)
{
    static const struct { const char *model; int g; } jobs[RO_JOBS] = {
        { "llama2-7b", 16 }, { "gpt-1.9b", 8 }, { "bert-large", 4 },
        { "llama2-7b", 16 }, { "gpt-1.9b", 8 }, { "gpt-1.9b", 8 },
        { "bert-large", 4 }, { "llama2-7b", 16 },
    };
    char err[1024], name[RO_JOBS][16];
    struct lr_ctl *c = open_rollout(ro);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    int holding = 0;
    for (int i = 0; i < RO_JOBS; i++) {
        snprintf(name[i], sizeof name[i], "r%d", i);
        struct lr_intent in = intent(name[i], jobs[i].model, jobs[i].g,
                                     jobs[i].g);
        struct lr_job job;
        if (split)
            submit_split(c, &in, &job);
        else
            CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err,
                                                sizeof err), 0);
        out->phase[i] = job.phase;
        snprintf(out->note[i], sizeof out->note[i], "%s", job.note);
        snprintf(out->reason[i], sizeof out->reason[i], "%s", job.reason);
        const struct lr_jenv *m = lr_ctl_ppo_mirror(c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        out->running[i] = lr_jenv_n_running(m);
        out->holding[i] = holding;
        holding += job.phase == LR_JOB_ACTIVE;
    }
    assert_consistent(c);
    for (int i = 0; i < RO_JOBS; i++)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name[i], err, sizeof err), 0);
    lr_ctl_free(c);
}

/* ppo-rollout in the controller (lr_ctl_config.ppo_rollout):
 *   - with a margin no estimate can pass, the rollout runs its futures
 *     (the note says it kept the policy's choice) and decides every job
 *     as the policy alone does;
 *   - each decision's mirror holds the jobs that hold resources then as
 *     running jobs (lr_jenv_set_running), so futures see them leave;
 *   - with margin 0 and refusal, two controllers with the same seed
 *     decide the same sequence alike, one on the caller's thread, the
 *     other each decision on a thread of its own (the intents give no
 *     iterations: every running job has the mean left, no clock is
 *     read);
 *   - a value out of range fails lr_ctl_new with the reason. */
static void
test_rollout_in_controller(void)
{
    static struct ro_run r0, r1, r2, r3;
    struct lr_ctl_ppo_rollout ro = {
        .load = 2.5, .samples = 6, .screen = 0, .horizon = 8, .top = 3,
        .margin = 1e6, .min_gpus = 0, .refusal = false, .seed = 5,
    };
    ro_sequence(NULL, false, &r0);
    ro_sequence(&ro, false, &r1);
    int kept = 0, placed = 0;
    for (int i = 0; i < RO_JOBS; i++) {
        CU_ASSERT_EQUAL(r0.phase[i], r1.phase[i]);
        /* The same candidate: the note is the policy's, and perhaps what
         * the rollout did. */
        size_t n0 = strlen(r0.note[i]);
        CU_ASSERT_EQUAL(strncmp(r0.note[i], r1.note[i], n0), 0);
        CU_ASSERT(r1.note[i][n0] == '\0'
                  || !strcmp(r1.note[i] + n0,
                             "; the rollout kept the policy's choice"));
        if (strncmp(r0.note[i], r1.note[i], n0))
            fprintf(stderr, "r%d: '%s' against '%s'\n", i, r1.note[i],
                    r0.note[i]);
        kept += r1.note[i][n0] != '\0';
        placed += r1.phase[i] == LR_JOB_ACTIVE;
        if (!strncmp(r1.note[i], "ppo: candidate", 14))
            CU_ASSERT_EQUAL(r1.running[i], r1.holding[i]);
    }
    CU_ASSERT(kept >= 2);
    CU_ASSERT(placed >= 4);
    fprintf(stderr, "(%d placed, %d with futures) ", placed, kept);

    /* Deciding for itself: the same seed, the same decisions, on the
     * caller's thread or off it (r3: lr_ctl_decide_begin). */
    ro.margin = 0;
    ro.refusal = true;
    ro_sequence(&ro, false, &r2);
    ro_sequence(&ro, true, &r3);
    int left = 0;
    for (int i = 0; i < RO_JOBS; i++) {
        CU_ASSERT_EQUAL(r2.phase[i], r3.phase[i]);
        CU_ASSERT_STRING_EQUAL(r2.note[i], r3.note[i]);
        CU_ASSERT_STRING_EQUAL(r2.reason[i], r3.reason[i]);
        left += strstr(r2.note[i], "the rollout left") != NULL;
    }
    fprintf(stderr, "(margin 0: %d of %d left the policy's choice) ", left,
            RO_JOBS);

    /* Out of range: refused at start, saying which. */
    char err[1024];
    ro.samples = 1;
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = { .ppo_policy = src("examples/policies/"
                                                   "metro.pol"),
                                 .ppo_rollout = &ro, .topo = topo,
                                 .cluster = cluster, .default_driver = "dummy",
                                 .dummy_dir = devdir, .db_path = db };
    struct lr_ctl *bad = NULL;
    char *report = NULL;
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &bad, &report, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ppo-rollout: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "samples 1"));
    free(report);

    /* No upper bound on top (every other candidate): the largest int
     * builds the rollout (UBSan: no overflow counting its alternatives)
     * and a decision runs its futures. */
    ro.samples = 6;
    ro.top = INT_MAX;
    struct lr_ctl *c = open_rollout(&ro);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    struct lr_intent in = intent("top", "gpt-1.9b", 8, 8);
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; the rollout "));
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "top", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The controller's rollout decides as the planner's rollout does on the
 * same state: the test keeps its own mirror of the metro policy, gives it
 * the controller's GPUs, spectrum and running jobs (read back with
 * lr_ctl_get; no iterations, so each has the mean left) and asks
 * lr_jenv_rollout_policy with the same options and a generator seeded
 * alike, before each submission; the controller must place the job on
 * that candidate, or refuse it when that is the answer.  Margin 0, so
 * that the rollout can leave the agent's choice (with seed 5 it does,
 * once; seeds 1-8 give 0 or 1 such decisions in this sequence). */
static void
test_rollout_matches_planner(void)
{
    static const struct { const char *model; int mi, di; } jobs[] = {
        { "llama2-7b", 2, 2 }, { "gpt-1.9b", 1, 1 }, { "bert-large", 0, 0 },
        { "llama2-7b", 2, 2 }, { "gpt-1.9b", 1, 1 }, { "gpt-1.9b", 1, 1 },
        { "bert-large", 0, 0 }, { "llama2-7b", 2, 2 }, { "gpt-1.9b", 1, 1 },
        { "llama2-7b", 2, 2 },
    };
    enum { N = sizeof jobs / sizeof *jobs };
    struct lr_ctl_ppo_rollout ro = {
        .load = 2.5, .samples = 6, .screen = 0, .horizon = 8, .top = 3,
        .margin = 0, .min_gpus = 0, .refusal = true, .seed = 5,
    };
    struct mirror m;
    mirror_open(&m);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_load(m.env, ro.load), 0);
    struct lr_jenv_rollout_config rc = {
        .base = &lr_ppo_jenv_policy, .base_arg = m.agent,
        .samples = ro.samples, .horizon = ro.horizon, .top = ro.top,
        .margin = ro.margin, .min_gpus = ro.min_gpus, .refusal = ro.refusal,
        .screen = ro.screen,
    };
    struct lr_jenv_rollout *r = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_rollout_new(m.env, &rc, &r), 0);
    struct lr_rng rng;
    lr_rng_seed(&rng, ro.seed);
    struct lr_ctl *c = open_rollout(&ro);
    char err[1024], name[N][16];
    int matched = 0, refused = 0;
    for (int i = 0; i < N; i++) {
        /* The test's mirror of c now. */
        const struct lr_spectrum *sp = lr_ctl_rsa(c)->sp;
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m.env, lr_ctl_gpus_used(c),
                                                sp->occ, sp->nw, err,
                                                sizeof err), 0);
        static struct lr_jenv_running run[N];
        static struct lr_jenv_block blocks[N][2 * LR_JOB_MAX_HOPS];
        int n_run = 0;
        for (int k = 0; k < i; k++) {
            struct lr_job job;
            CU_ASSERT_EQUAL_FATAL(lr_ctl_get(c, name[k], &job), 0);
            if (job.phase != LR_JOB_ACTIVE)
                continue;
            struct lr_jenv_running *x = &run[n_run++];
            memset(x, 0, sizeof *x);
            for (int d = 0; d < cluster->n_dcs; d++)
                x->gpus[d] = job.gpus[d];
            int nb = 0;
            for (int l = 0; l < job.n_lightpaths; l++)
                for (int h = 0; h < job.lp[l].n_links; h++)
                    blocks[k][nb++] = (struct lr_jenv_block) {
                        job.lp[l].links[h], job.lp[l].first, job.lp[l].m };
            x->blocks = blocks[k];
            x->n_blocks = nb;
            x->remaining = 1;
        }
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_running(m.env, run, n_run, err,
                                                  sizeof err), 0);
        int want = -3;
        if (lr_jenv_present(m.env, jobs[i].mi, jobs[i].di) > 0)
            want = lr_jenv_rollout_policy.choose(r, m.env,
                                                 lr_jenv_mask(m.env), &rng);
        snprintf(name[i], sizeof name[i], "m%d", i);
        struct lr_intent in = intent(name[i], jobs[i].model,
                                     (int[]) { 4, 8, 16 }[jobs[i].di],
                                     (int[]) { 4, 8, 16 }[jobs[i].di]);
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        char pre[64];
        if (want == -3) {
            CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "no candidate of the "
                                          "policy is feasible"));
        } else if (want < 0 || want == lr_jenv_refuse_action(m.env)) {
            CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
            CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused by the ppo "
                                          "policy"));
            refused++;
            matched++;
        } else {
            snprintf(pre, sizeof pre, "ppo: candidate %d,", want);
            CU_ASSERT_EQUAL(strncmp(job.note, pre, strlen(pre)), 0);
            if (strncmp(job.note, pre, strlen(pre)))
                fprintf(stderr, "m%d: want candidate %d, note '%s'\n", i,
                        want, job.note);
            else
                matched++;
        }
    }
    struct lr_jenv_rollout_stats st;
    lr_jenv_rollout_stats(r, &st);
    CU_ASSERT(matched >= 6);
    CU_ASSERT(st.deviated >= 1);
    fprintf(stderr, "(%d decisions matched, %ld off the agent's choice, %d "
            "refused) ", matched, st.deviated, refused);
    assert_consistent(c);
    /* The dummy ROADMs are shared with the other tests: leave them
     * empty. */
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name[i], err, sizeof err), 0);
    lr_ctl_free(c);
    lr_jenv_rollout_free(r);
    mirror_close(&m);
}

/* A decision is checked against the state when it ends: a job that left
 * while the rollout ran (its GPUs freed) leaves the decision as it was,
 * the candidate a controller deciding on its own thread took on the
 * same state and seed, and the note says the network changed; a job
 * that took every free GPU meanwhile leaves no candidate, and the
 * intent falls back to CDynP (blocked, no GPUs) instead of being placed
 * on GPUs that are taken. */
static void
test_rollout_decision_checked(void)
{
    struct lr_ctl_ppo_rollout ro = {
        .load = 2.5, .samples = 6, .screen = 0, .horizon = 8, .top = 3,
        .margin = 0, .min_gpus = 0, .refusal = false, .seed = 3,
    };
    char err[1024], pre[64];
    struct lr_job job, ref;
    struct lr_intent x = intent("x", "bert-large", 4, 4);
    snprintf(x.algorithm, sizeof x.algorithm, "cdynp");
    struct lr_intent j = intent("j", "llama2-7b", 16, 16);

    /* The reference: x, then j decided on this thread. */
    struct lr_ctl *r = open_rollout(&ro);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(r, &x, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(r, &j, &ref, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(ref.phase, LR_JOB_ACTIVE);
    int a = -1;
    CU_ASSERT_EQUAL_FATAL(sscanf(ref.note, "ppo: candidate %d,", &a), 1);
    CU_ASSERT_EQUAL(lr_ctl_delete(r, "j", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(r, "x", err, sizeof err), 0);
    lr_ctl_free(r);

    /* x leaves while j is decided. */
    struct lr_ctl *c = open_rollout(&ro);
    struct lr_ctl_op *dec = NULL, *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &x, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_decide_begin(c, &j, &dec, err, sizeof err),
                          0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    lr_ctl_op_run(dec);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "x", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_decided(c, dec, &job, &op, err,
                                                sizeof err), 0);
    if (op) {
        lr_ctl_op_run(op);
        CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, &job, err, sizeof err), 0);
    }
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    snprintf(pre, sizeof pre, "ppo: candidate %d,", a);
    CU_ASSERT_EQUAL(strncmp(job.note, pre, strlen(pre)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; the network changed while "
                                  "its rollout ran; its choice was still "
                                  "feasible"));
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_stale_kept, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_stale_redecided, 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, 1);
    fprintf(stderr, "(%s) ", job.note);
    assert_consistent(c);

    /* Jobs fill0, fill1, ... take every free GPU while k is decided. */
    int total = 0, used = 0, n_fill = 0;
    for (int d = 0; d < cluster->n_dcs; d++)
        total += cluster->dcs[d].n_devices;
    struct lr_intent k = intent("k", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_decide_begin(c, &k, &dec, err, sizeof err),
                          0);
    lr_ctl_op_run(dec);
    while (n_fill < 8) {
        used = 0;
        for (int d = 0; d < cluster->n_dcs; d++)
            used += lr_ctl_gpus_used(c)[d];
        if (used == total)
            break;
        char name[16];
        snprintf(name, sizeof name, "fill%d", n_fill++);
        struct lr_intent fill = intent(name, "bert-large", 1, total - used);
        snprintf(fill.algorithm, sizeof fill.algorithm, "cdynp");
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &fill, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    }
    CU_ASSERT_EQUAL_FATAL(used, total);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_decided(c, dec, &job, &op, err,
                                                sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "no candidate of the policy is "
                                  "feasible now"));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "planned by cdynp"));
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_stale_kept, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_stale_redecided, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_cdynp, 1);
    for (int d = 0; d < cluster->n_dcs; d++)
        CU_ASSERT(lr_ctl_gpus_used(c)[d] <= cluster->dcs[d].n_devices);
    assert_consistent(c);

    /* A decision dropped (lr_ctl_op_end) frees the policy again. */
    struct lr_intent q = intent("q", "gpt-1.9b", 8, 8);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_decide_begin(c, &q, &dec, err, sizeof err),
                          0);
    /* No reload under a decision: the policy is lent to it. */
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), EBUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "reload when it has"));
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, dec, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_ppo_reload(c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_decide_begin(c, &q, &dec, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, dec, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "q", &job), ENOENT);

    CU_ASSERT_EQUAL(lr_ctl_delete(c, "j", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "k", err, sizeof err), 0);
    for (int i = 0; i < n_fill; i++) {
        char name[16];
        snprintf(name, sizeof name, "fill%d", i);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name, err, sizeof err), 0);
    }
    lr_ctl_free(c);
}

/* A decision begun when no candidate of the policy was feasible ran no
 * rollout; when jobs leave before it ends, it is checked against the
 * state then as any other (lr_ctl.h): the policy decides on the state
 * now, as a controller deciding on its own thread does, instead of
 * CDynP placing the job with a reason that is no longer true ("no
 * candidate of the policy is feasible now"). */
static void
test_rollout_nothing_feasible_then_freed(void)
{
    struct lr_ctl_ppo_rollout ro = {
        .load = 2.5, .samples = 6, .screen = 0, .horizon = 8, .top = 3,
        .margin = 0, .min_gpus = 0, .refusal = false, .seed = 3,
    };
    char err[1024], name[8][16];
    struct lr_job job;
    struct lr_ctl *c = open_rollout(&ro);
    int total = 0, used = 0, n_fill = 0;
    for (int d = 0; d < cluster->n_dcs; d++)
        total += cluster->dcs[d].n_devices;
    while (n_fill < 8) {
        used = 0;
        for (int d = 0; d < cluster->n_dcs; d++)
            used += lr_ctl_gpus_used(c)[d];
        if (used == total)
            break;
        snprintf(name[n_fill], sizeof name[n_fill], "fill%d", n_fill);
        struct lr_intent fill = intent(name[n_fill], "bert-large", 1,
                                       total - used);
        snprintf(fill.algorithm, sizeof fill.algorithm, "cdynp");
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &fill, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
        n_fill++;
    }
    CU_ASSERT_EQUAL_FATAL(used, total);
    /* Nothing is feasible when k's decision begins ... */
    struct lr_intent k = intent("k", "gpt-1.9b", 8, 8);
    struct lr_ctl_op *dec = NULL, *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_decide_begin(c, &k, &dec, err, sizeof err),
                          0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
    lr_ctl_op_run(dec);
    /* ... and every GPU is free when it ends. */
    for (int i = 0; i < n_fill; i++)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name[i], err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_decided(c, dec, &job, &op, err,
                                                sizeof err), 0);
    if (op) {
        lr_ctl_op_run(op);
        CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, &job, err, sizeof err), 0);
    }
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(strncmp(job.note, "ppo: candidate ", 15), 0);
    CU_ASSERT_PTR_NULL(strstr(job.note, "planned by cdynp"));
    fprintf(stderr, "(%s) ", job.note);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_cdynp, 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_stale_redecided, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "; nothing was feasible when "
                                  "its decision began and the network "
                                  "changed since; the policy alone chose"));
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "k", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* lr_ctl_config.ppo_base: greedy decides ppo intents through the
 * controller's own path, each on the candidate lr_jenv_greedy picks on
 * the test's mirror of the same state (where that differs from the
 * agent's choice too, so the agent is not what decides). */
static void
test_base_policy(void)
{
    static const struct { const char *model; int mi, di; } jobs[] = {
        { "llama2-7b", 2, 2 }, { "gpt-1.9b", 1, 1 }, { "bert-large", 0, 0 },
        { "llama2-7b", 2, 2 }, { "gpt-1.9b", 1, 1 }, { "llama2-7b", 2, 2 },
        { "bert-large", 0, 0 }, { "gpt-1.9b", 1, 1 },
    };
    enum { N = sizeof jobs / sizeof *jobs };
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = { .ppo_policy = src("examples/policies/"
                                                   "metro.pol"),
                                 .ppo_base = &lr_jenv_greedy };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct mirror m;
    mirror_open(&m);
    char err[1024], name[N][16], pre[64];
    int placed = 0, unlike_agent = 0;
    for (int i = 0; i < N; i++) {
        int agent = expected(&m, c, jobs[i].mi, jobs[i].di);
        int want = agent < 0 ? -1
                   : lr_jenv_greedy.choose(NULL, m.env, lr_jenv_mask(m.env),
                                           NULL);
        snprintf(name[i], sizeof name[i], "g%d", i);
        int g = (int[]) { 4, 8, 16 }[jobs[i].di];
        struct lr_intent in = intent(name[i], jobs[i].model, g, g);
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        if (want < 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(job.note, "planned by cdynp"));
            continue;
        }
        snprintf(pre, sizeof pre, "ppo: candidate %d,", want);
        CU_ASSERT_EQUAL(strncmp(job.note, pre, strlen(pre)), 0);
        placed += job.phase == LR_JOB_ACTIVE;
        unlike_agent += want != agent;
        assert_consistent(c);
    }
    CU_ASSERT(placed >= 4);
    CU_ASSERT(unlike_agent >= 1);
    fprintf(stderr, "(%d placed by greedy, %d unlike the agent) ", placed,
            unlike_agent);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, name[i], err, sizeof err), 0);
    mirror_close(&m);
    lr_ctl_free(c);
}

/* ---- lr_ctl_admit_ppo(): the failures inside its loop over the hops ----
 *
 * A network of six DCs made for them (hops_net), every DC with 16
 * A100s, where one triple of each kind stops at its second hop, after
 * its first hop's two lightpaths are booked:
 *   dca-dcb-dcc   hop dcb-dcc crosses 33 links (dcb's ROADM b, then
 *                 x1..x33), one more than a lightpath records: the mask
 *                 allows it (the environment has no such limit);
 *   dca-dcd-dcb   hop dca-dcd's way back (d -> b -> a) and hop dcd-dcb's
 *                 way along (d -> b) share link d-b: each hop's first
 *                 fit, computed on its own, is the same slot, which hop
 *                 0 has booked when hop 1 asks for it;
 *   dca-dcb-dcf   link b-f carries one slot, too few for any tier;
 *   dca-dcb-dce   b-y-e is 120,000 km, beyond every modulation's reach.
 * The last three are outside the mask (the environment's first fits are
 * computed on the controller's own spectrum, and it knows each of these
 * limits): a decider that keeps to the mask never takes them, so a
 * baseline that ignores it (lr_ctl_config.ppo_base) makes each happen.
 * Each job falls back to CDynP with the reason; the spectrum, the store
 * and the dummy ROADMs then hold exactly what they held before and the
 * CDynP job's own lightpaths (none here: CDynP plans this job in one
 * DC), nothing of the triple's first hop. */

/* A decider that takes candidate *(int *) arg whatever the mask says. */
static int
fixed_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
             struct lr_rng *rng)
{
    (void) e;
    (void) mask;
    (void) rng;
    return *(const int *) arg;
}

static const struct lr_jenv_policy fixed_policy = {
    .name = "fixed", .summary = "the test's candidate, mask or not",
    .choose = fixed_choose,
};

/* Appends 'fmt' to buf (of 'cap' bytes, 'len' used); the test stops when
 * it does not fit. */
static void
json_add(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    CU_ASSERT_FATAL(n >= 0 && (size_t) n < cap - *len);
    *len += (size_t) n;
}

/* Link u-v both ways. */
static void
json_link(char *buf, size_t cap, size_t *len, const char *u, const char *v,
          const char *km, int slots)
{
    for (int back = 0; back < 2; back++)
        json_add(buf, cap, len, ",{\"link-id\":\"%s-%s\",\"source\":"
                 "{\"source-node\":\"%s\"},\"destination\":{\"dest-node\":"
                 "\"%s\"},\"lightrail-topology:length-km\":\"%s\","
                 "\"lightrail-topology:slots\":%d}", back ? v : u,
                 back ? u : v, back ? v : u, back ? u : v, km, slots);
}

/* The network above: its topology and cluster in '*t' and '*cl'. */
static void
hops_net(struct lr_topo **t, struct lr_cluster **cl)
{
    static char buf[32768];
    static const char *const dcs[6][2] = {
        { "dca", "a" }, { "dcb", "b" }, { "dcc", "x33" }, { "dcd", "d" },
        { "dce", "e" }, { "dcf", "f" },
    };
    char err[1024], x[16], y[16];
    size_t len = 0;
    json_add(buf, sizeof buf, &len, "{\"ietf-network:networks\":{"
             "\"network\":[{\"network-id\":\"hops\",\"network-types\":{"
             "\"lightrail-topology:lightrail-optical\":{}},\"node\":[");
    static const char *const named[] = { "a", "b", "d", "y", "e", "f" };
    for (size_t i = 0; i < 6; i++)
        json_add(buf, sizeof buf, &len, "%s{\"node-id\":\"%s\","
                 "\"lightrail-topology:roadm\":{\"name\":\"%s\"}}",
                 i ? "," : "", named[i], named[i]);
    for (int i = 1; i <= 33; i++)
        json_add(buf, sizeof buf, &len, ",{\"node-id\":\"x%d\","
                 "\"lightrail-topology:roadm\":{\"name\":\"x%d\"}}", i, i);
    json_add(buf, sizeof buf, &len, "],\"ietf-network-topology:link\":[");
    /* The first link without the comma json_link() puts before it. */
    size_t start = len;
    json_link(buf, sizeof buf, &len, "a", "b", "10", 320);
    memmove(buf + start, buf + start + 1, len - start);
    len--;
    json_link(buf, sizeof buf, &len, "b", "d", "10", 320);
    json_link(buf, sizeof buf, &len, "b", "x1", "10", 320);
    for (int i = 1; i < 33; i++) {
        snprintf(x, sizeof x, "x%d", i);
        snprintf(y, sizeof y, "x%d", i + 1);
        json_link(buf, sizeof buf, &len, x, y, "10", 320);
    }
    json_link(buf, sizeof buf, &len, "b", "y", "60000", 320);
    json_link(buf, sizeof buf, &len, "y", "e", "60000", 320);
    json_link(buf, sizeof buf, &len, "b", "f", "10", 1);
    json_add(buf, sizeof buf, &len, "]}]}}");
    CU_ASSERT_EQUAL_FATAL(lr_yang_load_topo_mem(ly, buf, len, "hops", t,
                                                err, sizeof err), 0);
    len = 0;
    json_add(buf, sizeof buf, &len, "{\"lightrail-compute:compute\":{"
             "\"device-type\":[{\"name\":\"A100-80GB\",\"peak-tflops\":"
             "\"312\",\"efficiency\":\"0.45\",\"memory-gb\":\"80\"}],"
             "\"dc\":[");
    for (int i = 0; i < 6; i++)
        json_add(buf, sizeof buf, &len, "%s{\"name\":\"%s\",\"device-type\":"
                 "\"A100-80GB\",\"device-count\":16,"
                 "\"intra-dc-bandwidth-gbytes-per-s\":\"600\","
                 "\"intra-dc-latency-us\":\"5\",\"attachment-node\":\"%s\"}",
                 i ? "," : "", dcs[i][0], dcs[i][1]);
    json_add(buf, sizeof buf, &len, "]}}");
    if (lr_yang_load_cluster_mem(ly, buf, len, "hops", cl, err, sizeof err))
        fprintf(stderr, "hops: %s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*cl);
}

/* The triple (d0, d1, d2) on route 0 at the first tier it has; -1 when
 * the environment has none. */
static int
triple(const struct lr_jenv *env, int d0, int d1, int d2)
{
    for (int a = 0; a < lr_jenv_n_cands(env); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
        if (cd->n_dcs == 3 && cd->dc[0] == d0 && cd->dc[1] == d1
            && cd->dc[2] == d2 && cd->route == 0)
            return a;
    }
    return -1;
}

/* The candidate fixed_policy takes. */
static int fixed_pick;

/* Candidate 'pick', taken by fixed_policy ('fixed') or the agent of
 * 'path' (biased to it), for intents like 'tmpl' (its name aside), is
 * not realised, lr_ctl_admit_ppo() saying 'why' ("candidate N ...").
 * With 'pre' >= 0, fixed_policy places job "pre" on that candidate
 * first, so that the devices and the spectrum hold a job's lightpaths
 * before.  The job is planned by CDynP with the reason; the spectrum,
 * the store and the devices hold what they held before and the CDynP
 * job's own lightpaths, and what they held before once it is
 * deleted. */
static void
check_fallback(const char *path, bool fixed, int pre, int pick,
               const struct lr_intent *tmpl, const char *why)
{
    char err[1024], want[LR_JOB_REASON_MAX];
    snprintf(db, sizeof db, "%s/db%d", dir, n_db);
    int reuse = n_db++;
    struct lr_ctl_config cfg = { .ppo_policy = path,
                                 .ppo_base = fixed ? &fixed_policy : NULL,
                                 .ppo_base_arg = &fixed_pick };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    bool usable;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT(usable);
    struct lr_job job;
    int pre_hops = 0;
    if (pre >= 0) {
        fixed_pick = pre;
        struct lr_intent in = *tmpl;
        snprintf(in.name, sizeof in.name, "pre");
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
        CU_ASSERT_EQUAL_FATAL(job.n_lightpaths, 2);
        for (int k = 0; k < job.n_lightpaths; k++)
            pre_hops += job.lp[k].n_links + 1;
    }
    fixed_pick = pick;
    const struct lr_spectrum *sp = lr_ctl_rsa(c)->sp;
    size_t words = (size_t) sp->n_links * (size_t) sp->nw;
    uint64_t *before = malloc(words * sizeof *before),
             *with = malloc(words * sizeof *with);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    CU_ASSERT_PTR_NOT_NULL_FATAL(with);
    memcpy(before, sp->occ, words * sizeof *before);
    int used[LR_TM_MAX_DCS];
    memcpy(used, lr_ctl_gpus_used(c), (size_t) cluster->n_dcs * sizeof *used);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("pre/"), pre_hops);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(""), pre_hops);
    struct lr_intent in = *tmpl;
    snprintf(in.name, sizeof in.name, "h");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    snprintf(want, sizeof want, "ppo: %s; planned by cdynp", why);
    CU_ASSERT_STRING_EQUAL(job.note, want);
    if (strcmp(job.note, want))
        fprintf(stderr, "note '%s', expected '%s'\n", job.note, want);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_cdynp, 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, pre >= 0);
    /* The spectrum: what was booked and the job's lightpaths, no more. */
    int booked = 0, want_booked = 0, hops = 0;
    for (size_t w = 0; w < words; w++) {
        CU_ASSERT_EQUAL(sp->occ[w] & before[w], before[w]);
        booked += __builtin_popcountll(sp->occ[w] & ~before[w]);
    }
    for (int k = 0; k < job.n_lightpaths; k++) {
        want_booked += job.lp[k].m * job.lp[k].n_links;
        hops += job.lp[k].n_links + 1;
    }
    CU_ASSERT_EQUAL(booked, want_booked);
    /* The devices: "pre"'s channels as they were, the job's, one on each
     * ROADM of each of its lightpaths, and nothing else. */
    CU_ASSERT_EQUAL(lr_test_ctl_channels("pre/"), pre_hops);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("h/"), hops);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(""), pre_hops + hops);
    fprintf(stderr, "(%d: %d lightpaths by cdynp) ", pick, job.n_lightpaths);
    assert_consistent(c);
    memcpy(with, sp->occ, words * sizeof *with);
    if (store_restart()) {
        /* The store: started again on it, the controller books the
         * same. */
        lr_ctl_free(c);
        snprintf(db, sizeof db, "%s/db%d", dir, reuse);
        c = lr_test_ctl_open(&cfg);
        sp = lr_ctl_rsa(c)->sp;
        CU_ASSERT_EQUAL(memcmp(sp->occ, with, words * sizeof *with), 0);
        assert_consistent(c);
    }
    /* Deleted, the job leaves the network as it found it. */
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "h", err, sizeof err), 0);
    CU_ASSERT_EQUAL(memcmp(sp->occ, before, words * sizeof *before), 0);
    CU_ASSERT_EQUAL(memcmp(lr_ctl_gpus_used(c), used,
                           (size_t) cluster->n_dcs * sizeof *used), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("pre/"), pre_hops);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(""), pre_hops);
    assert_consistent(c);
    if (pre >= 0)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "pre", err, sizeof err), 0);
    lr_ctl_free(c);
    free(before);
    free(with);
}

/* check_fallback() for gpt-1.9b on 16 GPUs, stopped inside the hop loop
 * with "candidate 'pick': 'why'". */
static void
check_hop_failure(const char *path, bool fixed, int pre, int pick,
                  const char *why)
{
    char full[512];
    struct lr_intent in = intent("h", "gpt-1.9b", 16, 16);
    snprintf(full, sizeof full, "candidate %d: %s", pick, why);
    check_fallback(path, fixed, pre, pick, &in, full);
}

/* Candidate 'pick', feasible, taken by fixed_policy after job "pre" on
 * candidate 'pre', with ROADM 'node' refusing every apply: the job fails
 * with the device's refusal, and the spectrum, the GPUs and the devices
 * hold what they held before ("pre"'s), its lightpaths configured before
 * the refusal taken down again. */
static void
check_device_refuses(const char *path, int pre, int pick, const char *node)
{
    char err[1024];
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = { .ppo_policy = path,
                                 .ppo_base = &fixed_policy,
                                 .ppo_base_arg = &fixed_pick };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct lr_job job;
    fixed_pick = pre;
    struct lr_intent in = intent("pre", "gpt-1.9b", 16, 16);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    int pre_channels = lr_test_ctl_channels("pre/");
    CU_ASSERT(pre_channels > 0);
    const struct lr_spectrum *sp = lr_ctl_rsa(c)->sp;
    size_t words = (size_t) sp->n_links * (size_t) sp->nw;
    uint64_t *before = malloc(words * sizeof *before);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    memcpy(before, sp->occ, words * sizeof *before);
    int used[LR_TM_MAX_DCS];
    memcpy(used, lr_ctl_gpus_used(c), (size_t) cluster->n_dcs * sizeof *used);
    fixed_pick = pick;
    lr_test_ctl_fail(node, "always");
    in = intent("h", "gpt-1.9b", 16, 16);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    lr_test_ctl_fail(node, NULL);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused"));
    fprintf(stderr, "(%s) ", job.reason);
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->ppo_candidate, 2);
    CU_ASSERT_EQUAL(memcmp(sp->occ, before, words * sizeof *before), 0);
    CU_ASSERT_EQUAL(memcmp(lr_ctl_gpus_used(c), used,
                           (size_t) cluster->n_dcs * sizeof *used), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("h/"), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(""), pre_channels);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "h", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "pre", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(""), 0);
    assert_consistent(c);
    lr_ctl_free(c);
    free(before);
}

/* The pair (d0, d1) on route 0 the mask allows; -1 when none. */
static int
pair(const struct lr_jenv *env, int d0, int d1)
{
    for (int a = 0; a < lr_jenv_n_cands(env); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
        if (cd->n_dcs == 2 && cd->dc[0] == d0 && cd->dc[1] == d1
            && cd->route == 0 && lr_jenv_mask(env)[a])
            return a;
    }
    return -1;
}

/* The environment of test_hop_failures' policy: mix_env()'s over
 * hops_net with triples, for one class, gpt-1.9b on 16 GPUs (the
 * intents of check_hop_failure()), and two routes per pair (route 1 of
 * dca-dcb is the missing route of the last failure), not the metro's
 * mix of three classes and three routes: a CDynP plan per candidate
 * and class is most of every controller's start (hops_policy_save()
 * writes the same header). */
static struct lr_jenv *
hops_env(struct lr_model **model)
{
    char err[1024];
    struct lr_jenv_config cfg = {
        .triples = true, .load = 1, .holding = 1, .k = 2, .guard = 1,
        .block_penalty = 2, .train = { 32, 1, 2 }, .n_models = 1,
        .n_demands = 1, .demands = { 16 },
    };
    CU_ASSERT_EQUAL_FATAL(lr_model_preset("gpt-1.9b", model), 0);
    cfg.models[0] = *model;
    struct lr_jenv *env = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cluster, &cfg, &env, err,
                                      sizeof err), 0);
    return env;
}

/* write_biased_policy() for hops_env()'s class and routes. */
static void
hops_policy_save(const char *path, const struct lr_jenv *env, int pick)
{
    struct lr_policy_meta meta;
    int n_act = lr_jenv_n_actions(env);
    struct lr_ppo *r = mix_policy_new(&meta, lr_jenv_obs_size(env), n_act);
    snprintf(meta.models, sizeof meta.models, "gpt-1.9b");
    snprintf(meta.demands, sizeof meta.demands, "16");
    meta.k = 2;
    meta.triples = true;
    r->actor->params[r->actor->n_params - n_act + pick] = 100;
    mix_policy_save(path, &meta, r);
}

static void
test_hop_failures(void)
{
    char path[256], why[256];
    struct lr_topo *metro_topo = topo, *net = NULL;
    struct lr_cluster *metro_cluster = cluster, *cl = NULL;
    hops_net(&net, &cl);
    topo = net;
    cluster = cl;
    struct lr_model *model;
    struct lr_jenv *env = hops_env(&model);
    restarts = 0;
    CU_ASSERT_FATAL(lr_jenv_present(env, 0, 0) > 0);
    int a = triple(env, 0, 1, 2), b = triple(env, 0, 3, 1),
        f = triple(env, 0, 1, 5), e = triple(env, 0, 1, 4);
    CU_ASSERT_FATAL(a >= 0 && b >= 0 && f >= 0 && e >= 0);
    /* Each stops at its second hop, the first one booked. */
    CU_ASSERT_EQUAL(lr_jenv_cand_hop_path(env, a, 0, 0)->n_links, 1);
    CU_ASSERT_EQUAL(lr_jenv_cand_hop_path(env, a, 1, 0)->n_links, 33);
    CU_ASSERT(lr_jenv_mask(env)[a]);
    CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(env, b, 0, 1), 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(env, b, 1, 0), 0);
    CU_ASSERT_FALSE(lr_jenv_mask(env)[b]);
    CU_ASSERT_FALSE(lr_jenv_mask(env)[f]);
    CU_ASSERT_FALSE(lr_jenv_mask(env)[e]);
    snprintf(path, sizeof path, "%s/hops.pol", dir);
    hops_policy_save(path, env, a);
    /* A job on dcb-dcd before, one lightpath each way. */
    int p = pair(env, 1, 3);
    CU_ASSERT_FATAL(p >= 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(env, p, 0), 8);
    /* The agent itself takes a, which its mask allows. */
    snprintf(why, sizeof why, "route 0 of hop dcb-dcc has more than the 32 "
             "links a lightpath may cross");
    check_hop_failure(path, false, -1, a, why);
    check_hop_failure(path, true, p, a, why);
    check_hop_failure(path, true, p, b, "its slots are not free on route 0 "
                      "of hop dcd-dcb");
    check_hop_failure(path, true, p, f, "its slots are not free on route 0 "
                      "of hop dcb-dcf");
    /* Its slots would be free: the reason is the reach. */
    check_hop_failure(path, true, p, e, "route 0 of hop dcb-dce is 120000 "
                      "km long, beyond the reach of every modulation");
    /* A route the pair does not have: dca reaches dcb one way only. */
    int none = -1;
    for (int k = 0; k < lr_jenv_n_cands(env) && none < 0; k++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(env, k);
        if (cd->n_dcs == 2 && cd->dc[0] == 0 && cd->dc[1] == 1
            && cd->route > 0)
            none = k;
    }
    CU_ASSERT_FATAL(none >= 0);
    CU_ASSERT_PTR_NULL(lr_jenv_cand_hop_path(env, none, 0, 0));
    snprintf(why, sizeof why, "hop dca-dcb has no route %d on this network",
             lr_jenv_cand(env, none)->route);
    check_hop_failure(path, true, p, none, why);
    /* A device that refuses: dca-dcb-dcd is feasible, and ROADM d,
     * on its second hop only, refuses once its first hop is up. */
    int ok = triple(env, 0, 1, 3);
    CU_ASSERT_FATAL(ok >= 0);
    CU_ASSERT(lr_jenv_mask(env)[ok]);
    check_device_refuses(path, p, ok, "d");
    lr_jenv_free(env);
    lr_model_free(model);
    topo = metro_topo;
    cluster = metro_cluster;
    lr_topo_free(net);
    lr_cluster_free(cl);
}

/* Before the hop loop, two failures of a candidate that the mask lets
 * through or a baseline that ignores it takes, each on a network made
 * for it: four DCs of 16 devices on a line of ROADMs a - b - s, b - t,
 *   dca, dcb   A100-80GB: a pair of them holds job "pre";
 *   dct        devices of 1 MB: no cut of any model fits them, so CDynP
 *              finds no plan over a candidate in dct (the environment's
 *              T is infinite: outside the mask);
 *   dcs        devices of 1 GFLOP/s at efficiency 0.001: llama2-7b on 4
 *              of them at batch 1e6 would take 4.75e+13 s an iteration,
 *              more than the 9e12 s a job may (LR_JOB_MAX_ITERATION_S).
 *              The environment's T is finite there: inside the mask, a
 *              policy of its own may choose it.
 * Each job falls back to CDynP (in dca or dcb) with the reason; the
 * spectrum, the store, the GPUs and the dummy ROADMs hold what they
 * held before and the CDynP job's own. */
static void
plan_net(struct lr_topo **t, struct lr_cluster **cl)
{
    static char buf[8192];
    static const char *const dcs[4][3] = {
        { "dca", "A100-80GB", "a" }, { "dcb", "A100-80GB", "b" },
        { "dcs", "slow", "s" }, { "dct", "tiny", "t" },
    };
    char err[1024];
    size_t len = 0;
    json_add(buf, sizeof buf, &len, "{\"ietf-network:networks\":{"
             "\"network\":[{\"network-id\":\"plans\",\"network-types\":{"
             "\"lightrail-topology:lightrail-optical\":{}},\"node\":[");
    for (int i = 0; i < 4; i++)
        json_add(buf, sizeof buf, &len, "%s{\"node-id\":\"%s\","
                 "\"lightrail-topology:roadm\":{\"name\":\"%s\"}}",
                 i ? "," : "", dcs[i][2], dcs[i][2]);
    json_add(buf, sizeof buf, &len, "],\"ietf-network-topology:link\":[");
    size_t start = len;
    json_link(buf, sizeof buf, &len, "a", "b", "10", 320);
    memmove(buf + start, buf + start + 1, len - start);
    len--;
    json_link(buf, sizeof buf, &len, "b", "s", "10", 320);
    json_link(buf, sizeof buf, &len, "b", "t", "10", 320);
    json_add(buf, sizeof buf, &len, "]}]}}");
    CU_ASSERT_EQUAL_FATAL(lr_yang_load_topo_mem(ly, buf, len, "plans", t,
                                                err, sizeof err), 0);
    len = 0;
    json_add(buf, sizeof buf, &len, "{\"lightrail-compute:compute\":{"
             "\"device-type\":[{\"name\":\"A100-80GB\",\"peak-tflops\":"
             "\"312\",\"efficiency\":\"0.45\",\"memory-gb\":\"80\"},"
             "{\"name\":\"slow\",\"peak-tflops\":\"0.001\","
             "\"efficiency\":\"0.001\",\"memory-gb\":\"80\"},"
             "{\"name\":\"tiny\",\"peak-tflops\":\"312\","
             "\"efficiency\":\"0.45\",\"memory-gb\":\"0.001\"}],"
             "\"dc\":[");
    for (int i = 0; i < 4; i++)
        json_add(buf, sizeof buf, &len, "%s{\"name\":\"%s\",\"device-type\":"
                 "\"%s\",\"device-count\":16,"
                 "\"intra-dc-bandwidth-gbytes-per-s\":\"600\","
                 "\"intra-dc-latency-us\":\"5\",\"attachment-node\":\"%s\"}",
                 i ? "," : "", dcs[i][0], dcs[i][1], dcs[i][2]);
    json_add(buf, sizeof buf, &len, "]}}");
    if (lr_yang_load_cluster_mem(ly, buf, len, "plans", cl, err, sizeof err))
        fprintf(stderr, "plans: %s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*cl);
}

/* The candidate of DC d alone; -1 when the environment has none. */
static int
single(const struct lr_jenv *env, int d)
{
    for (int a = 0; a < lr_jenv_n_cands(env); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
        if (cd->n_dcs == 1 && cd->dc[0] == d)
            return a;
    }
    return -1;
}

static void
test_plan_failures(void)
{
    char path[256], why[512];
    struct lr_topo *metro_topo = topo, *net = NULL;
    struct lr_cluster *metro_cluster = cluster, *cl = NULL;
    plan_net(&net, &cl);
    topo = net;
    cluster = cl;
    struct lr_model *models[3];
    struct lr_jenv *env = mix_env((struct lr_jenv_config) { 0 }, models);
    CU_ASSERT_FATAL(lr_jenv_present(env, 1, 2) > 0);
    restarts = 0;
    int t = single(env, 3), s = single(env, 2), p = pair(env, 0, 1);
    CU_ASSERT_FATAL(t >= 0 && s >= 0 && p >= 0);
    CU_ASSERT_FALSE(lr_jenv_mask(env)[t]);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(env, p, 0), 8);
    snprintf(path, sizeof path, "%s/plans.pol", dir);
    write_biased_policy(path, lr_jenv_obs_size(env), lr_jenv_n_actions(env),
                        p, 0, false, false);
    /* No layer of gpt-1.9b fits dct's devices: the reason names those,
     * not the largest device of the DCs outside the chain (80 GB). */
    struct lr_intent in = intent("h", "gpt-1.9b", 16, 16);
    snprintf(why, sizeof why, "candidate %d has no plan over its chain: "
             "memory: layer 1 alone needs 2.5 GB per device (16 bytes per "
             "parameter for mixed-precision Adam plus activations), the "
             "largest device it may use has 0.0010 GB", t);
    check_fallback(path, true, -1, t, &in, why);
    check_fallback(path, true, p, t, &in, why);
    /* dcs's four devices at batch 1e6: a policy trained at that batch
     * (the intents of its classes must have it). */
    struct lr_policy_meta meta;
    struct lr_ppo *r = mix_policy_new(&meta, lr_jenv_obs_size(env),
                                      lr_jenv_n_actions(env));
    meta.batch = 1e6;
    meta.micro = 1;
    snprintf(path, sizeof path, "%s/plans-slow.pol", dir);
    mix_policy_save(path, &meta, r);
    in = intent("h", "llama2-7b", 4, 4);
    in.batch = 1e6;
    snprintf(why, sizeof why, "candidate %d: an iteration would take "
             "4.75e+13 s", s);
    check_fallback(path, true, -1, s, &in, why);
    check_fallback(path, true, p, s, &in, why);
    mix_env_free(env, models);
    topo = metro_topo;
    cluster = metro_cluster;
    lr_topo_free(net);
    lr_cluster_free(cl);
}

/* A controller whose modulation table (lightraild's modulation-table)
 * is not the default one the policy was trained on: BPSK alone needs
 * more slots than the policy sized a pair's hop with, so such a
 * candidate is not booked under another format (it carried less than
 * its rate); CDynP plans the job, its note saying why, and every
 * lightpath admitted has its format's slots. */
static void
test_other_table_not_booked(void)
{
    char err[1024];
    struct lr_modtable bpsk = { 0 };
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&bpsk, "BPSK", 100000, 1), 0);
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = {
        .ppo_policy = src("examples/policies/metro.pol"), .mods = &bpsk,
    };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct mirror m;
    mirror_open(&m);
    static const struct { const char *model; int mi, gmin, gmax, di; } jobs[] = {
        { "llama2-7b", 2, 16, 16, 2 }, { "gpt-1.9b", 1, 6, 12, 1 },
        { "bert-large", 0, 1, 4, 0 }, { "llama2-7b", 2, 10, 20, 2 },
        { "gpt-1.9b", 1, 8, 8, 1 }, { "llama2-7b", 2, 16, 40, 2 },
    };
    int pairs = 0, refused = 0;
    for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
        int a = expected(&m, c, jobs[i].mi, jobs[i].di);
        char name[32];
        snprintf(name, sizeof name, "b%zu", i);
        struct lr_intent in = intent(name, jobs[i].model, jobs[i].gmin,
                                     jobs[i].gmax);
        struct lr_job job;
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        if (a >= 0 && lr_jenv_cand(m.env, a)->n_dcs > 1) {
            pairs++;
            refused += strstr(job.note, "in the controller's modulation "
                              "table, the policy sized it at") != NULL;
            if (!strstr(job.note, "the policy sized it at"))
                fprintf(stderr, "job %s: note '%s'\n", name, job.note);
        }
        for (int k = 0; k < job.n_lightpaths; k++) {
            CU_ASSERT_STRING_EQUAL(job.lp[k].modulation, "BPSK");
            CU_ASSERT_EQUAL(job.lp[k].m,
                            lr_mod_slots(&bpsk.f[0], job.lp[k].capacity_gbps,
                                         1));
        }
        assert_consistent(c);
    }
    CU_ASSERT_EQUAL(refused, pairs);
    fprintf(stderr, "(%d pair candidate(s) not booked) ", pairs);
    mirror_close(&m);
    lr_ctl_free(c);
}

/* A ppo intent over a DC its agent plans (dc2, an agent nobody serves:
 * port 1 of loopback) with ppo-rollout: lr_ctl_decide_begin() refuses
 * it at once, EINVAL with begin_admission()'s words and no op, rather
 * than lending it the policy for a whole rollout refused afterwards;
 * the policy is then free for the next decision (a second refusal, not
 * EBUSY), and no job is left.  An intent for cdynp is not its to say:
 * no op, no error. */
static void
test_rollout_refuses_remote_dcs(void)
{
    char key[200], cert[200], err[1024];
    struct lr_cluster *remote = lr_test_ctl_remote_dc2(dir, key, cert);
    if (!remote)
        return;
    struct lr_ctl_ppo_rollout ro = {
        .load = 2.5, .samples = 2, .screen = 0, .horizon = 2, .top = 1,
        .margin = 0, .min_gpus = 0, .refusal = false, .seed = 3,
    };
    snprintf(db, sizeof db, "%s/db%d", dir, n_db++);
    struct lr_ctl_config cfg = {
        .ppo_policy = src("examples/policies/metro.pol"), .ppo_rollout = &ro,
        .topo = topo, .cluster = remote, .default_driver = "dummy",
        .dummy_dir = devdir, .db_path = db, .agent_cert = cert,
        .agent_key = key, .agent_ca = cert, .agent_timeout_s = 1,
    };
    struct lr_ctl *c = NULL;
    char *report = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    bool usable = false;
    CU_ASSERT_PTR_NULL(lr_ctl_ppo_status(c, &usable));
    CU_ASSERT_FATAL(usable);   /* else nothing would be decided anyway */

    const char *want = "algorithm 'ppo' needs every data center's devices, "
                       "and 1 are planned by their agents: ask for cdynp";
    struct lr_intent in = intent("p1", "gpt-1.9b", 4, 4);
    for (int i = 0; i < 2; i++) {
        struct lr_ctl_op *op = NULL;
        err[0] = '\0';
        CU_ASSERT_EQUAL(lr_ctl_decide_begin(c, &in, &op, err, sizeof err),
                        EINVAL);
        CU_ASSERT_STRING_EQUAL(err, want);
        if (op) {   /* before the fix: the decision, lent the policy */
            lr_ctl_op_run(op);
            struct lr_job job;
            struct lr_ctl_op *dev = NULL;
            CU_ASSERT_EQUAL(lr_ctl_submit_decided(c, op, &job, &dev, err,
                                                  sizeof err), EINVAL);
            CU_ASSERT_STRING_EQUAL(err, want);
            CU_ASSERT_PTR_NULL(dev);
        }
    }
    /* The same words from the admission itself. */
    struct lr_job job;
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "p1", &job), ENOENT);
    struct lr_intent cd = in;
    snprintf(cd.algorithm, sizeof cd.algorithm, "cdynp");
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL(lr_ctl_decide_begin(c, &cd, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    lr_ctl_free(c);
    lr_cluster_free(remote);
}

static CU_TestInfo tests[] = {
    { "a mapped intent takes the actor's candidate",
      test_mapped_intents_follow_the_actor },
    { "a candidate sized with another modulation table is not booked",
      test_other_table_not_booked },
    { "an unmapped intent falls back with the reason",
      test_unmapped_intents_fall_back },
    { "a missing policy file: fall back, say why", test_missing_policy },
    { "a corrupt policy file: fall back, say why", test_corrupt_policy },
    { "a policy for another mix, network or observation: fall back, say "
      "why",
      test_incompatible_policy },
    { "no policy configured: fall back", test_no_policy_configured },
    { "reload: a bad file keeps the policy in use, a good one replaces it",
      test_reload_policy },
    { "a refusing policy blocks the job with its reason",
      test_refusing_policy },
    { "the chosen candidate's stages are at cdynp-device-step",
      test_device_step },
    { "a policy with uneven GPU shares places with their counts",
      test_splits_policy },
    { "a policy with triples places a chain over three DCs",
      test_triples_policy },
    { "a policy with quadruples: six lightpaths over four DCs",
      test_quads_policy },
    { "a policy observing the load sees lightraild's estimate",
      test_observe_load_policy },
    { "a known-work policy reads the intent's iterations",
      test_known_work_policy },
    { "a known-work policy's decision depends on the work",
      test_known_work_decides },
    { "a held-work policy sees how long the running jobs hold",
      test_held_work_policy },
    { "ppo-rollout: the rollout of the policy decides in the controller",
      test_rollout_in_controller },
    { "ppo-rollout: the controller's decisions are the planner's rollout's",
      test_rollout_matches_planner },
    { "a baseline decides through the controller's ppo path (ppo_base)",
      test_base_policy },
    { "ppo-rollout: a decision off the loop is checked when it ends",
      test_rollout_decision_checked },
    { "ppo-rollout: a decision with nothing feasible is checked too",
      test_rollout_nothing_feasible_then_freed },
    { "a candidate failing at a hop falls back, its first hop given back",
      test_hop_failures },
    { "a candidate with no plan, or too slow a one, falls back",
      test_plan_failures },
    { "ppo-rollout: an intent over agents' DCs is refused before deciding",
      test_rollout_refuses_remote_dcs },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("controller-ppo", tests, setup, lr_test_ctl_teardown)
