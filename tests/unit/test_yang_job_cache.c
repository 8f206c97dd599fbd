/*
 * Tests of the jobs tree kept across GETs (yang/lr_yang_job.h's
 * lr_yang_job_cache) over a real controller: after each kind of change
 * made through the controller's own calls (a job created, provisioned,
 * active, blocked, failed by a device, released, failing its release,
 * deleted; a reconciliation; a new inventory; a restart), every answer
 * the cache gives (the jobs container and the list resource, with the
 * state and without; a where and a sort-by and the page printed from
 * their tree) must be, byte for byte, what a build for that request
 * alone gives.  The cache is asked first, while it still holds the tree
 * of the step before: a change that lr_ctl_jobs_gen() did not count is
 * answered from that tree, and differs.  Asked twice with no change in
 * between, the cache must answer the second time from its tree (so that
 * the comparisons above compare something kept).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/lr_ctl.h"
#include "planner/lr_cluster.h"
#include "tests/unit/lr_test_ctl.h"
#include "yang/lr_yang_job.h"

static struct lr_yang_job_cache *cache;

static int
setup(void)
{
    if (lr_test_ctl_setup("yang-job-cache"))
        return 1;
    return !(cache = lr_yang_job_cache_new(1000000));
}

static int
teardown(void)
{
    lr_yang_job_cache_free(cache);
    return lr_test_ctl_teardown();
}

static struct lr_intent
intent(const char *name, const char *model, int gmin, int gmax)
{
    return lr_test_ctl_intent(name, model, gmin, gmax, "cdynp");
}

/* 'a' and 'b' the same text, else a failure naming 'when' and 'what',
 * with where they part. */
static void
same_text(const char *a, const char *b, const char *when, const char *what)
{
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (!a || !b || !strcmp(a, b))
        return;
    size_t k = 0;
    while (a[k] && a[k] == b[k])
        k++;
    fprintf(stderr, "\n%s, %s: the cache's answer differs from a build at "
            "byte %zu:\n  cache: %.80s\n  built: %.80s\n", when, what, k,
            a + (k > 20 ? k - 20 : 0), b + (k > 20 ? k - 20 : 0));
    CU_FAIL("the cache's answer is not a fresh build's");
}

/* Every answer of the cache for the jobs of 'c' now against a build for
 * that answer alone; 'when' names the step. */
static void
assert_cache_fresh(struct lr_ctl *c, const char *when)
{
    const struct lr_job **refs = NULL;
    int n = 0;
    char err[1024], what[64];
    CU_ASSERT_EQUAL_FATAL(lr_ctl_list_refs(c, &refs, &n), 0);
    unsigned long long gen = lr_ctl_jobs_gen(c);
    const struct lr_yang_job_net net = {
        .topo = lr_ctl_topo(c), .cluster = lr_ctl_cluster(c),
        .mods = lr_ctl_modtable(c),
    };

    for (int cfg = 0; cfg < 2; cfg++)
        for (int list = 0; list < 2; list++) {
            char *kept = NULL, *built = NULL;
            snprintf(what, sizeof what, "%s%s", list ? "the list" : "jobs",
                     cfg ? ", configuration only" : "");
            CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, cache, gen, refs, n,
                                                      list, cfg, &net, &kept,
                                                      err, sizeof err), 0);
            CU_ASSERT_EQUAL((cfg ? lr_yang_job_page_config_to_json
                                 : lr_yang_job_page_to_json)(ly, refs, n, NULL,
                                                             list, &net,
                                                             &built, err,
                                                             sizeof err), 0);
            same_text(kept, built, when, what);
            free(kept);
            free(built);
        }

    /* A where and a sort-by (running's: no state to sort by), and the
     * page of every job they keep printed from their tree. */
    for (int cfg = 0; cfg < 2; cfg++) {
        const char *where = "priority >= 0";
        const char *sort_by = cfg ? "gpus/min" : "state/phase";
        const struct lr_job **sel = NULL, **again = NULL;
        struct lr_yang_job_tree *tree = NULL;
        int m = 0, m2 = 0;
        char *kept = NULL, *built = NULL;
        snprintf(what, sizeof what, "where and sort-by%s",
                 cfg ? ", running" : "");
        const struct lr_yang_job_query q = {
            .where = where, .sort_by = sort_by, .config_only = cfg,
        };
        CU_ASSERT_EQUAL(lr_yang_job_cache_select_tree(
                            ly, cache, gen, refs, n, &q, &net, &sel, &m,
                            &tree, err, sizeof err), 0);
        CU_ASSERT_EQUAL(lr_yang_job_select(ly, refs, n, &q, &net, &again,
                                           &m2, err, sizeof err), 0);
        CU_ASSERT_EQUAL(m, m2);
        CU_ASSERT(m != m2 || !m || !memcmp(sel, again, (size_t) m
                                                       * sizeof *sel));
        if (tree)
            CU_ASSERT_EQUAL(lr_yang_job_tree_page_to_json(
                                ly, tree, sel, m, NULL, false, cfg, &kept,
                                err, sizeof err), 0);
        CU_ASSERT_EQUAL((cfg ? lr_yang_job_page_config_to_json
                             : lr_yang_job_page_to_json)(ly, again, m2, NULL,
                                                         false, &net, &built,
                                                         err, sizeof err), 0);
        same_text(kept, built, when, what);
        free(kept);
        free(built);
        lr_yang_job_tree_free(tree);
        free(sel);
        free(again);
    }
    free(refs);

    /* Nothing changed: all answered again from the trees kept. */
    struct lr_yang_job_cache_stats before, after;
    lr_yang_job_cache_stats(cache, &before);
    char *text = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_list_refs(c, &refs, &n), 0);
    for (int cfg = 0; cfg < 2; cfg++) {
        CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, cache, gen, refs, n,
                                                  false, cfg, &net, &text, err,
                                                  sizeof err), 0);
        free(text);
    }
    lr_yang_job_cache_stats(cache, &after);
    CU_ASSERT_EQUAL(after.builds, before.builds);
    CU_ASSERT_EQUAL(after.hits, before.hits + 2);
    CU_ASSERT(after.nodes > 0);
    free(refs);
}

static struct lr_ctl *
open_ctl(void)
{
    struct lr_ctl_config cfg = { 0 };
    return lr_test_ctl_open(&cfg);
}

static void
test_every_change(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_ctl_op *op = NULL;
    struct lr_job job;
    char err[1024], *report = NULL;
    int drift = 0;

    assert_cache_fresh(c, "no job");

    /* Created, active within one DC. */
    struct lr_intent small = intent("a-small", "bert-large", 1, 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &small, &job, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    assert_cache_fresh(c, "created, active");

    /* Provisioning over two DCs, then active: the same job, in place. */
    struct lr_intent wide = intent("b-wide", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &wide, &job, &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_PROVISIONING);
    assert_cache_fresh(c, "provisioning");
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_op_end(c, op, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(job.n_lightpaths > 0);
    assert_cache_fresh(c, "provisioned, active");

    /* Blocked: more GPUs than there are. */
    struct lr_intent big = intent("c-big", "bert-large", 1000, 2000);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &big, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    assert_cache_fresh(c, "blocked");

    /* Releasing, its release failing (a fault): it stays releasing with
     * the reason, in place. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "b-wide", &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    assert_cache_fresh(c, "releasing");
    lr_test_ctl_fail(NULL, "always");
    lr_ctl_op_run(op);
    CU_ASSERT_NOT_EQUAL(lr_ctl_op_end(c, op, NULL, err, sizeof err), 0);
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "b-wide", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT(job.reason[0] != '\0');
    assert_cache_fresh(c, "release failed");

    /* Reconciled: the channels the failed release left are compared
     * and repaired. */
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    free(report);
    report = NULL;
    assert_cache_fresh(c, "reconciled");

    /* Released and deleted; a job of GPUs alone deleted at once. */
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "b-wide", err, sizeof err), 0);
    assert_cache_fresh(c, "released");
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "a-small", err, sizeof err), 0);
    assert_cache_fresh(c, "deleted");

    /* Failed by its devices: the job keeps its plan (its stages print
     * with the time each takes on the inventory's devices). */
    lr_test_ctl_fail(NULL, "always");
    struct lr_intent doomed = intent("d-doomed", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &doomed, &job, err, sizeof err), 0);
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT(job.plan.n_stages > 1);
    assert_cache_fresh(c, "failed");

    /* A new inventory, its DCs' names kept (the failed job keeps its
     * plan) and its devices faster: the stages' times change, no job
     * does. */
    struct lr_cluster *faster = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(faster);
    for (int k = 0; k < faster->n_types; k++)
        faster->types[k].peak_flops *= 2;
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, faster, NULL, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "d-doomed", &job), 0);
    CU_ASSERT(job.plan.n_stages > 1);
    assert_cache_fresh(c, "new inventory");

    /* A restart: another controller over the same store, whose jobs may
     * sit where the former's did. */
    lr_ctl_free(c);
    c = open_ctl();
    assert_cache_fresh(c, "restarted");
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "c-big", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "d-doomed", err, sizeof err), 0);
    assert_cache_fresh(c, "all deleted");
    assert_consistent(c);
    lr_ctl_free(c);
    lr_cluster_free(faster);
}

/* A tree of more nodes than the cache takes is built for its request
 * and not kept; the answer is the same. */
static void
test_too_large_not_kept(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_yang_job_cache *small = lr_yang_job_cache_new(5);
    struct lr_yang_job_cache_stats st;
    struct lr_job job;
    const struct lr_job **refs = NULL;
    char err[1024], *kept = NULL, *built = NULL;
    int n = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(small);
    struct lr_intent in = intent("e-one", "bert-large", 1, 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    const struct lr_yang_job_net net = {
        .topo = lr_ctl_topo(c), .cluster = lr_ctl_cluster(c),
        .mods = lr_ctl_modtable(c),
    };
    CU_ASSERT_EQUAL_FATAL(lr_ctl_list_refs(c, &refs, &n), 0);
    for (int i = 0; i < 2; i++) {
        free(kept);
        CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, small,
                                                  lr_ctl_jobs_gen(c), refs, n,
                                                  false, false, &net, &kept,
                                                  err, sizeof err), 0);
    }
    CU_ASSERT_EQUAL(lr_yang_job_page_to_json(ly, refs, n, NULL, false, &net,
                                             &built, err, sizeof err), 0);
    same_text(kept, built, "a tree too large", "jobs");
    lr_yang_job_cache_stats(small, &st);
    CU_ASSERT_EQUAL(st.builds, 2);
    CU_ASSERT_EQUAL(st.too_large, 2);
    CU_ASSERT_EQUAL(st.hits, 0);
    CU_ASSERT_EQUAL(st.nodes, 0);
    free(kept);
    free(built);
    free(refs);
    lr_yang_job_cache_free(small);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "e-one", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The bound holds when a tree kept is completed with the schema's
 * defaults for a where: a tree that fit before its defaults and not
 * after is no longer kept, and the other form's is not kept past the
 * bound either (the room left was once taken as max_nodes - nodes, a
 * wrap past zero that let any tree in). */
static void
test_completed_within_bound(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_yang_job_cache *probe = lr_yang_job_cache_new(1000000);
    struct lr_yang_job_cache *small = NULL;
    struct lr_yang_job_cache_stats st;
    struct lr_yang_job_tree *tree = NULL;
    struct lr_job job;
    const struct lr_job **refs = NULL, **sel = NULL;
    char err[1024], *text = NULL;
    int n = 0, m = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(probe);
    struct lr_intent in = intent("f-one", "bert-large", 1, 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    /* The controller names the algorithm it planned with: a job of a
     * store written before it did, as a copy. */
    struct lr_job old = job;
    old.intent.algorithm[0] = '\0';
    const struct lr_job *one = &old;
    CU_ASSERT_FATAL((refs = malloc(sizeof *refs)) != NULL);
    refs[0] = one;
    n = 1;
    unsigned long long gen = lr_ctl_jobs_gen(c);
    const struct lr_yang_job_net net = {
        .topo = lr_ctl_topo(c), .cluster = lr_ctl_cluster(c),
        .mods = lr_ctl_modtable(c),
    };

    /* The tree's nodes, as printed (not completed). */
    CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, probe, gen, refs, n, false,
                                              false, &net, &text, err,
                                              sizeof err), 0);
    free(text);
    text = NULL;
    lr_yang_job_cache_stats(probe, &st);
    size_t bare = st.nodes;
    CU_ASSERT_FATAL(bare > 0);

    /* Room for that tree exactly: kept; then a where completes it. */
    small = lr_yang_job_cache_new(bare);
    CU_ASSERT_PTR_NOT_NULL_FATAL(small);
    CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, small, gen, refs, n, false,
                                              false, &net, &text, err,
                                              sizeof err), 0);
    free(text);
    text = NULL;
    lr_yang_job_cache_stats(small, &st);
    CU_ASSERT_EQUAL(st.nodes, bare);
    const struct lr_yang_job_query q = { .where = "priority >= 0" };
    CU_ASSERT_EQUAL(lr_yang_job_cache_select_tree(
                        ly, small, gen, refs, n, &q, &net, &sel, &m, &tree,
                        err, sizeof err), 0);
    CU_ASSERT_EQUAL(m, 1);
    lr_yang_job_tree_free(tree);
    free(sel);
    lr_yang_job_cache_stats(small, &st);
    CU_ASSERT(st.nodes <= bare);
    /* Running's tree of the same generation: no room is left for it. */
    CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, small, gen, refs, n, false,
                                              true, &net, &text, err,
                                              sizeof err), 0);
    free(text);
    lr_yang_job_cache_stats(small, &st);
    CU_ASSERT(st.nodes <= bare);
    free(refs);
    lr_yang_job_cache_free(small);
    lr_yang_job_cache_free(probe);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "f-one", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* A cache cleared (lightraild's idle drop) holds no node, and the next
 * request builds its tree again and answers the same bytes as before the
 * clear; a clear of an empty cache, or of none, does nothing. */
static void
test_clear(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_yang_job_cache *own = lr_yang_job_cache_new(1000000);
    struct lr_yang_job_cache_stats st;
    struct lr_job job;
    const struct lr_job **refs = NULL;
    char err[1024], *before = NULL, *after = NULL;
    int n = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(own);
    lr_yang_job_cache_clear(NULL);
    lr_yang_job_cache_clear(own);
    struct lr_intent in = intent("g-one", "bert-large", 1, 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_list_refs(c, &refs, &n), 0);
    unsigned long long gen = lr_ctl_jobs_gen(c);
    const struct lr_yang_job_net net = {
        .topo = lr_ctl_topo(c), .cluster = lr_ctl_cluster(c),
        .mods = lr_ctl_modtable(c),
    };
    for (int cfg = 0; cfg < 2; cfg++) {
        CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, own, gen, refs, n, false,
                                                  cfg, &net, &before, err,
                                                  sizeof err),
                        0);
        lr_yang_job_cache_stats(own, &st);
        CU_ASSERT(st.nodes > 0);
        CU_ASSERT_EQUAL(st.builds, 2ULL * (unsigned) cfg + 1);
        lr_yang_job_cache_clear(own);
        lr_yang_job_cache_stats(own, &st);
        CU_ASSERT_EQUAL(st.nodes, 0);
        CU_ASSERT_EQUAL(lr_yang_job_cache_to_json(ly, own, gen, refs, n, false,
                                                  cfg, &net, &after, err,
                                                  sizeof err),
                        0);
        lr_yang_job_cache_stats(own, &st);
        CU_ASSERT_EQUAL(st.builds, 2ULL * (unsigned) cfg + 2);
        CU_ASSERT_EQUAL(st.hits, 0);
        CU_ASSERT(st.nodes > 0);
        same_text(after, before, "cleared", cfg ? "running" : "jobs");
        free(before);
        free(after);
        before = after = NULL;
        lr_yang_job_cache_clear(own);
    }

    /* A where's tree, completed, cleared too: judged again the same. */
    const struct lr_yang_job_query q = { .where = "priority >= 0" };
    for (int round = 0; round < 2; round++) {
        const struct lr_job **sel = NULL;
        struct lr_yang_job_tree *tree = NULL;
        int m = 0;
        CU_ASSERT_EQUAL(lr_yang_job_cache_select_tree(
                            ly, own, gen, refs, n, &q, &net, &sel, &m, &tree,
                            err, sizeof err), 0);
        CU_ASSERT_EQUAL(m, 1);
        if (tree)
            CU_ASSERT_EQUAL(lr_yang_job_tree_page_to_json(
                                ly, tree, sel, m, NULL, false, false,
                                round ? &after : &before, err, sizeof err),
                            0);
        lr_yang_job_tree_free(tree);
        free(sel);
        lr_yang_job_cache_clear(own);
        lr_yang_job_cache_stats(own, &st);
        CU_ASSERT_EQUAL(st.nodes, 0);
    }
    same_text(after, before, "cleared", "a where's page");
    lr_yang_job_cache_stats(own, &st);
    CU_ASSERT_EQUAL(st.builds, 6);
    CU_ASSERT_EQUAL(st.hits, 0);
    free(before);
    free(after);
    free(refs);
    lr_yang_job_cache_free(own);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "g-one", err, sizeof err), 0);
    lr_ctl_free(c);
}

static CU_TestInfo tests[] = {
    { "every change, a fresh build's answer", test_every_change },
    { "a tree too large is not kept", test_too_large_not_kept },
    { "a tree completed stays within the bound",
      test_completed_within_bound },
    { "a cache cleared holds nothing and builds again", test_clear },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("yang_job_cache", tests, setup, teardown)
