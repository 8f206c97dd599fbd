/*
 * libFuzzer target for list pagination's where and sort-by on the jobs
 * (lr_yang_job_select(), GET .../lightrail-job:jobs/job?where=&sort-by=):
 * a client's XPath, which libyang 2.1 parses and evaluates on every job.
 * Any text must either select jobs or be refused with a one-line
 * reason (EINVAL: 400), never crash, leak, trip UBSan or fail as the
 * server's own error (EIO, ENOMEM: 500).
 *
 * The input is the where, then a line feed and the sort-by (no line
 * feed: no sort-by; an empty part is absent, as nb_query refuses empty
 * values before the yang layer sees them).  The jobs, built once, hold
 * every kind of node of a job's entry: an active job with stages, GPUs
 * and lightpaths (leaf-lists), a blocked and a failed one with reasons,
 * a custom transformer with iterations, a submitted one with little.
 *
 * libyang is not instrumented, so coverage stops at our own code: the
 * dictionary (tests/fuzz/job_where.dict: XPath's tokens, its and
 * libyang's functions, the job's node names) and the seeds
 * (tests/fuzz/corpus/where/) carry most of the search.
 *
 * LeakSanitizer is on for every input: re-match(), whose bad patterns
 * leaked in libyang, is refused before libyang reads it.  So is a
 * variable reference ('$'), which libyang refused only as it evaluated:
 * its message in a refusal is a failure.
 *
 * A where that selects is evaluated again under a budget with a clock
 * of its own (budget_check()): refused whole once past it, with one
 * line saying how far it got, or the same selection within it.
 *
 * Build and run with `make fuzz` (tests/yang.am); tools/fuzz-where-gen.py
 * writes inputs from XPath's grammar for it (`-runs=0 DIR` runs them).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "planner/lr_model.h"
#include "planner/lr_modulation.h"
#include "planner/lr_topo.h"
#include "yang/lr_yang_job.h"

#define LR_FUZZ_NAME "fuzz_job_where"
#define LR_FUZZ_YANG 1
#include "tests/fuzz/lr_fuzz.h"

#ifndef LR_FUZZ_SRCDIR
#define LR_FUZZ_SRCDIR "."
#endif

#define N_JOBS 5

static struct lr_topo *topo;
static struct lr_cluster *cluster;
static struct lr_modtable mods;
static struct lr_job jobs[N_JOBS];
static const struct lr_job *refs[N_JOBS];

static int
link_of(const char *name)
{
    int l = lr_topo_find_link(topo, name);
    check(l >= 0, "the metro topology lost a link");
    return l;
}

/* An active gpt-1.9b job over dc1 and dc2, one lightpath each way
 * (tests/unit/test_yang_job.c's active_job()). */
static void
active_job(struct lr_job *j, const char *name, int n_layers)
{
    memset(j, 0, sizeof *j);
    snprintf(j->intent.name, sizeof j->intent.name, "%s", name);
    snprintf(j->intent.model, sizeof j->intent.model, "gpt-1.9b");
    j->intent.batch = 64;
    j->intent.micro = 4;
    j->intent.gpus_min = 4;
    j->intent.gpus_max = 32;
    snprintf(j->intent.algorithm, sizeof j->intent.algorithm, "cdynp");
    j->intent.priority = 3;
    j->phase = LR_JOB_ACTIVE;
    j->plan.n_stages = 2;
    j->plan.stages[0] = (struct lr_stage) { 0, n_layers / 2 - 1, 0, 8 };
    j->plan.stages[1] = (struct lr_stage) { n_layers / 2, n_layers - 1, 1, 6 };
    j->iteration_s = 1.2345678;
    j->gpus[0] = 8;
    j->gpus[1] = 6;
    j->n_lightpaths = 2;
    struct lr_lightpath *lp = &j->lp[0];
    lp->from_dc = 0;
    lp->to_dc = 1;
    lp->n_links = 2;
    lp->links[0] = link_of("r1-r2");
    lp->links[1] = link_of("r2-r3");
    lp->length_km = 65;
    snprintf(lp->modulation, sizeof lp->modulation, "16QAM");
    lp->first = 10;
    lp->m = 5;
    lp->n = -291 + 2 * 10 + 4;
    lp->capacity_gbps = 200;
    lp = &j->lp[1];
    *lp = j->lp[0];
    lp->from_dc = 1;
    lp->to_dc = 0;
    lp->links[0] = link_of("r3-r2");
    lp->links[1] = link_of("r2-r1");
    lp->first = 0;
    lp->n = -291 + 4;
    j->created_ms = 1796040000123;
    j->updated_ms = 1796040061005;
}

/* Every kind of job, so that each of the entry's nodes is there in one
 * of them and absent in another. */
static void
jobs_build(void)
{
    char err[1024];
    struct lr_model *m = NULL;
    if (lr_yang_load_topo(ctx, LR_FUZZ_SRCDIR "/examples/topologies/metro.json",
                          &topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, LR_FUZZ_SRCDIR
                                "/examples/clusters/metro.json", &cluster,
                                err, sizeof err)) {
        fprintf(stderr, LR_FUZZ_NAME ": %s\n", err);
        abort();
    }
    lr_modtable_default(&mods);
    check(!lr_model_preset("gpt-1.9b", &m), "no preset gpt-1.9b");
    int n_layers = m->n_layers;
    lr_model_free(m);

    active_job(&jobs[0], "ja", n_layers);
    active_job(&jobs[1], "jb", n_layers);
    jobs[1].phase = LR_JOB_BLOCKED;
    jobs[1].plan.n_stages = 0;
    jobs[1].n_lightpaths = 0;
    memset(jobs[1].gpus, 0, sizeof jobs[1].gpus);
    jobs[1].intent.priority = 10;
    snprintf(jobs[1].reason, sizeof jobs[1].reason, "no spectrum on r1-r2");
    snprintf(jobs[1].note, sizeof jobs[1].note, "ppo: no policy; planned "
             "by cdynp");
    active_job(&jobs[2], "jc", n_layers);
    jobs[2].intent.custom = true;
    snprintf(jobs[2].intent.model, sizeof jobs[2].intent.model, "tiny");
    jobs[2].intent.shape = (struct lr_transformer) {
        .arch = LR_ARCH_LLAMA, .layers = n_layers, .hidden = 512,
        .heads = 8, .kv_heads = 2, .ffn = 1376, .vocab = 32000, .seq = 512,
    };
    jobs[2].intent.iterations = 18446744073709551615ULL;
    jobs[2].intent.priority = 255;
    jobs[2].iteration_s = 9e12;
    active_job(&jobs[3], "jd", n_layers);
    jobs[3].phase = LR_JOB_FAILED;
    jobs[3].n_lightpaths = 0;
    snprintf(jobs[3].reason, sizeof jobs[3].reason, "device r2: 'timeout'");
    active_job(&jobs[4], "j.e_-9", n_layers);
    jobs[4].phase = LR_JOB_SUBMITTED;
    jobs[4].plan.n_stages = 0;
    jobs[4].n_lightpaths = 0;
    memset(jobs[4].gpus, 0, sizeof jobs[4].gpus);
    jobs[4].intent.priority = 0;
    jobs[4].created_ms = 0;
    for (int i = 0; i < N_JOBS; i++)
        refs[i] = &jobs[i];

    /* The jobs print: a fuzz run over jobs the function refuses would
     * find nothing. */
    const struct lr_job **sel = NULL;
    int n = 0;
    const struct lr_yang_job_query q = { .where = "name", .sort_by = "name" };
    const struct lr_yang_job_net net = {
        .topo = topo, .cluster = cluster, .mods = &mods,
    };
    if (lr_yang_job_select(ctx, refs, N_JOBS, &q, &net, &sel, &n, err,
                           sizeof err)
        || n != N_JOBS) {
        fprintf(stderr, LR_FUZZ_NAME ": %s\n", err);
        check(0, "the fuzz target's jobs do not print");
    }
    free(sel);
}

/* 'len' bytes at 'p' as a string (cut at a NUL, as a C string is), or
 * NULL when empty. */
static char *
part(const uint8_t *p, size_t len)
{
    if (!len)
        return NULL;
    char *s = strndup((const char *) p, len);
    check(s != NULL, "out of memory");
    if (!*s) {
        free(s);
        return NULL;
    }
    return s;
}

/* Whether libyang refused a variable reference during the last call:
 * one of the errors it stored on 'ctx' (lr_yang_ctx_new() has it store
 * them all) is its own, whose words begin its message (the client's
 * text, which a message may quote, comes after them). */
static bool
libyang_refused_variable(void)
{
    for (const struct ly_err_item *e = ly_err_first(ctx); e; e = e->next)
        if (e->msg && (!strncmp(e->msg, "XPath variable ", 15)
                       || !strncmp(e->msg, "Variable with prefix", 20)))
            return true;
    return false;
}

/* A clock that moves one unit each time it is read ('arg': the reads
 * so far): a budget of K + 0.5 runs out after job K + 1's evaluation,
 * whatever the machine's speed. */
static double
fuzz_tick(void *arg)
{
    int *reads = arg;
    return (double) (*reads)++;
}

/* The where's budget (lightraild's where-budget) over a where that
 * selected 'want' ('n_want' jobs) without one.  With K = 'size' %
 * (N_JOBS + 1) and a budget of K + 0.5: K < N_JOBS runs out after job
 * K + 1, and the selection is refused whole (ETIMEDOUT, nothing
 * returned, one line saying how far it got); K = N_JOBS never runs
 * out, and the selection is the same. */
static void
budget_check(const char *where, const char *sort_by, size_t size,
             const struct lr_job *const *want, int n_want)
{
    int k = (int) (size % (N_JOBS + 1)), reads = 0, n = -1;
    const struct lr_yang_where_budget b = { k + 0.5, fuzz_tick, &reads };
    const struct lr_job **sel = (const struct lr_job **) &sel;
    char err[1024] = "", said[64];
    const struct lr_yang_job_query q = {
        .where = where, .sort_by = sort_by, .budget = &b,
    };
    const struct lr_yang_job_net net = {
        .topo = topo, .cluster = cluster, .mods = &mods,
    };
    int rc = lr_yang_job_select(ctx, refs, N_JOBS, &q, &net, &sel, &n, err,
                                sizeof err);
    if (k == N_JOBS) {
        check(rc == 0, "a where within its budget was refused");
        check(n == n_want && !memcmp(sel, want, (size_t) n * sizeof *sel),
              "a budget changed the selection");
        free(sel);
        return;
    }
    if (rc != ETIMEDOUT)
        fprintf(stderr, LR_FUZZ_NAME ": where '%s', budget %d.5: %d %s\n",
                where, k, rc, err);
    check(rc == ETIMEDOUT, "a where past its budget was not refused");
    check(sel == NULL && n == 0, "a where past its budget left a selection");
    check(reads == k + 2, "the budget's clock not read once before the "
          "first job and once after each");
    check(!strchr(err, '\n'), "a reason of more than one line");
    snprintf(said, sizeof said, "evaluated on %d of the %d jobs in %d s", k + 1,
             N_JOBS, k + 1);
    check(strstr(err, said) != NULL, "the budget's reason does not say how "
          "far it got");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool built;
    if (!built) {
        jobs_build();
        built = true;
    }
    const uint8_t *nl = memchr(data, '\n', size);
    char *where = part(data, nl ? (size_t) (nl - data) : size);
    char *sort_by = nl ? part(nl + 1, size - (size_t) (nl + 1 - data)) : NULL;
    const struct lr_job **sel = (const struct lr_job **) &sel;
    int n = -1;
    char err[1024] = "";

    ly_err_clean(ctx, NULL);
    const struct lr_yang_job_query q = { .where = where, .sort_by = sort_by };
    const struct lr_yang_job_net net = {
        .topo = topo, .cluster = cluster, .mods = &mods,
    };
    int rc = lr_yang_job_select(ctx, refs, N_JOBS, &q, &net, &sel, &n, err,
                                sizeof err);
    if (rc) {
        if (rc != EINVAL)
            fprintf(stderr, LR_FUZZ_NAME ": where '%s' sort-by '%s': %d %s\n",
                    where ? where : "-", sort_by ? sort_by : "-", rc, err);
        check(rc == EINVAL, "a client's query failed as the server's own "
              "error (500), not EINVAL (400)");
        check(err[0] != '\0', "a refusal without a reason");
        /* No variable is bound: our parse refuses a reference in a
         * where at its '$' (yang/lr_xpath.c), so libyang's own refusal
         * of one, reached only when it evaluates, never reaches a
         * client.  A sort-by is a path libyang parses itself
         * (lys_find_path()), which our parse never sees: its words on
         * a '$' there are a 400 as for any path that is no leaf
         * (seed77). */
        check(!libyang_refused_variable()
              || strstr(err, "the query's sort-by '"),
              "a variable reference our parse took reached libyang");
        check(!strchr(err, '\n'), "a reason of more than one line");
        check(sel == NULL && n == 0, "a refusal left a selection");
    } else {
        check(n >= 0 && n <= N_JOBS, "more jobs selected than there are");
        check(sel != NULL, "no array for the selection");
        bool seen[N_JOBS] = { false };
        for (int i = 0; i < n; i++) {
            int k = (int) (sel[i] - jobs);
            check(k >= 0 && k < N_JOBS, "a job selected that was not given");
            check(!seen[k], "a job selected twice");
            seen[k] = true;
        }
        /* Without sort-by the list's order stays. */
        for (int i = 1; !sort_by && i < n; i++)
            check(sel[i - 1] < sel[i], "where reordered the jobs");
        if (where)
            budget_check(where, sort_by, size, sel, n);
        free(sel);
    }
    free(where);
    free(sort_by);
    return 0;
}
