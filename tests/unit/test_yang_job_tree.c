/*
 * Tests of how yang/lr_yang_job.c completes the jobs tree it builds for
 * a GET (job_print()) and for a list's where and sort-by
 * (lr_yang_job_select()): against the reference kept here, the tree as
 * it was completed until 2026-12-07, by lyd_validate_all() with
 * LYD_VALIDATE_PRESENT (and LYD_VALIDATE_NO_STATE under running).  Over
 * jobs of every shape (blocked, active with lightpaths, a ppo fallback
 * note, a modulation mismatch, a gOSNR, custom transformers, private
 * stages, no algorithm given), each form printed (the jobs container,
 * the list resource, one entry, a page with its annotations; none) must
 * be the reference's byte for byte, and each where must select what it
 * selects on the reference's tree, the nodes counted and the text of
 * each job compared through where itself.  A page printed from the tree
 * a where was judged on (lr_yang_job_tree_page_to_json()) must be the
 * page built again (job_print()).
 *
 * The file includes lr_yang_job.c to reach its static builder
 * (lr_yang_job_add()) and printer (job_print()), which the reference
 * needs: the program defines every symbol of lr_yang_job.o, so the
 * library's copy is not linked.
 */
#include "yang/lr_yang_job.c"

#include "planner/lr_cluster.h"
#include "planner/lr_model.h"
#include "planner/lr_modulation.h"
#include "planner/lr_topo.h"

#include "tests/unit/lr_test_yang.h"
#include "tests/lr_test.h"

#define N_JOBS 7

struct tree_fixture {
    struct lr_topo *topo;
    struct lr_cluster *cluster;
    struct lr_modtable mods;
    struct lr_job jobs[N_JOBS];
    const struct lr_job *refs[N_JOBS];
};

/* The network of 'f', as the selections take it; it borrows 'f'. */
static struct lr_yang_job_net
tree_net(const struct tree_fixture *f)
{
    return (struct lr_yang_job_net) {
        .topo = f->topo, .cluster = f->cluster, .mods = &f->mods,
    };
}

static int
link_at(const struct tree_fixture *f, const char *name)
{
    int l = lr_topo_find_link(f->topo, name);
    CU_ASSERT(l >= 0);
    return l < 0 ? 0 : l;
}

/* A job whose every optional part is left out: no algorithm (its
 * default comes from the schema), no iterations, no times. */
static void
bare_job(struct lr_job *j, const char *name)
{
    memset(j, 0, sizeof *j);
    snprintf(j->intent.name, sizeof j->intent.name, "%s", name);
    snprintf(j->intent.model, sizeof j->intent.model, "gpt-1.9b");
    j->intent.batch = 32;
    j->intent.micro = 1;
    j->intent.gpus_min = 1;
    j->intent.gpus_max = 65535;
}

/* Two stages (layers 1-12 in dc1, 13-24 in dc2, 'g' devices each; 0:
 * private, planned by the DC's agent) and 'nlp' lightpaths of two links
 * each way, r1 -> r2 -> r3 and back. */
static void
plan_job(const struct tree_fixture *f, struct lr_job *j, int g, int nlp)
{
    j->plan.n_stages = 2;
    j->plan.stages[0] = (struct lr_stage) { 0, 11, 0, g };
    j->plan.stages[1] = (struct lr_stage) { 12, 23, 1, g };
    j->gpus[0] = g ? g : 2;
    j->gpus[1] = g ? g : 2;
    j->n_lightpaths = nlp;
    for (int k = 0; k < nlp; k++) {
        struct lr_lightpath *lp = &j->lp[k];
        bool back = k % 2;
        lp->from_dc = back;
        lp->to_dc = !back;
        lp->n_links = 2;
        lp->links[0] = link_at(f, back ? "r3-r2" : "r1-r2");
        lp->links[1] = link_at(f, back ? "r2-r1" : "r2-r3");
        lp->length_km = 65;
        snprintf(lp->modulation, sizeof lp->modulation, "16QAM");
        lp->first = 10 * k;
        lp->m = 5;
        lp->n = -291 + 2 * lp->first + 4;
        lp->capacity_gbps = 200;
    }
}

static int
tree_fixture_load(struct tree_fixture *f)
{
    char err[1024];
    memset(f, 0, sizeof *f);
    if (lr_yang_load_topo(ctx, src("examples/topologies/metro.json"),
                          &f->topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, src("examples/clusters/metro.json"),
                                &f->cluster, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    lr_modtable_default(&f->mods);
    struct lr_job *j = f->jobs;

    bare_job(&j[0], "a-active");
    snprintf(j[0].intent.algorithm, sizeof j[0].intent.algorithm, "cdynp");
    j[0].intent.priority = 3;
    j[0].intent.iterations = 18446744073709551615ULL;
    j[0].phase = LR_JOB_ACTIVE;
    j[0].iteration_s = 1.2345678;
    j[0].created_ms = 1796040000123;
    j[0].updated_ms = 1796040061005;
    plan_job(f, &j[0], 8, 2);

    bare_job(&j[1], "b-blocked");
    j[1].phase = LR_JOB_BLOCKED;
    snprintf(j[1].reason, sizeof j[1].reason,
             "no spectrum between dc1 and dc2");
    j[1].iteration_s = 9;
    j[1].created_ms = 1796040000000;

    /* The ppo fallback's note, a gOSNR, and a lightpath past its
     * format's reach in the table (modulation-mismatch). */
    bare_job(&j[2], "c-ppo");
    snprintf(j[2].intent.algorithm, sizeof j[2].intent.algorithm, "ppo");
    j[2].phase = LR_JOB_ACTIVE;
    snprintf(j[2].note, sizeof j[2].note, "ppo: the policy is not usable "
             "(no ppo-policy); planned by cdynp");
    j[2].iteration_s = 0.5;
    j[2].created_ms = 1796040000200;
    j[2].updated_ms = 1796040000300;
    plan_job(f, &j[2], 4, 4);
    j[2].lp[0].gosnr_known = true;
    j[2].lp[0].gosnr_db = 16.996;
    j[2].lp[3].length_km = 100000;

    /* A custom LLaMA (kv-heads, under a when) whose stages its DCs'
     * agents planned: private, no device count. */
    bare_job(&j[3], "d-llama");
    j[3].intent.custom = true;
    snprintf(j[3].intent.model, sizeof j[3].intent.model, "tiny-llama");
    j[3].intent.shape = (struct lr_transformer) {
        LR_ARCH_LLAMA, 24, 512, 8, 2, 1024, 32000, 2048,
    };
    j[3].intent.priority = 1;
    j[3].phase = LR_JOB_PROVISIONING;
    j[3].created_ms = 1796040000400;
    plan_job(f, &j[3], 0, 2);

    bare_job(&j[4], "e-gpt");
    j[4].intent.custom = true;
    snprintf(j[4].intent.model, sizeof j[4].intent.model, "tiny-gpt");
    j[4].intent.shape = (struct lr_transformer) {
        LR_ARCH_GPT, 24, 768, 12, 12, 3072, 50257, 1024,
    };
    j[4].phase = LR_JOB_SUBMITTED;
    j[4].updated_ms = 1796040000500;

    /* A reason of two lines (cut to one by the printer). */
    bare_job(&j[5], "f-failed");
    snprintf(j[5].intent.algorithm, sizeof j[5].intent.algorithm, "exact");
    j[5].intent.iterations = 1000;
    j[5].phase = LR_JOB_FAILED;
    snprintf(j[5].reason, sizeof j[5].reason, "r2 refused the channel\n"
             "and r3 did not answer");

    bare_job(&j[6], "g-releasing");
    j[6].phase = LR_JOB_RELEASING;
    j[6].intent.priority = 7;
    plan_job(f, &j[6], 2, 1);

    for (int i = 0; i < N_JOBS; i++)
        f->refs[i] = &j[i];
    return 0;
}

static void
tree_fixture_free(struct tree_fixture *f)
{
    lr_topo_free(f->topo);
    lr_cluster_free(f->cluster);
}

/* The reference: 'n' jobs built as lr_yang_job.c builds them, then
 * completed by lyd_validate_all() as before 2026-12-07.  The caller
 * frees the tree with lyd_free_all(). */
static struct lyd_node *
ref_tree(const struct tree_fixture *f, const struct lr_job *const *jobs,
         int n, bool config_only)
{
    char err[1024] = "";
    const struct lr_yang_job_net net = {
        .topo = f->topo, .cluster = f->cluster, .mods = &f->mods,
    };
    struct lr_yang_job_env env = job_env(&net, config_only, err, sizeof err);
    struct lyd_node *root = NULL;
    LY_ERR rc = LY_SUCCESS;
    env.mod = lr_yang_module(ctx, LR_YANG_LRJ, LR_YANG_JOB_DOC, err,
                             sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(env.mod);
    CU_ASSERT_EQUAL_FATAL(lyd_new_inner(NULL, env.mod, "jobs", 0, &root),
                          LY_SUCCESS);
    for (int i = 0; i < n; i++) {
        int ret = lr_yang_job_add(&env, jobs[i], root, &rc);
        if (ret || rc)
            fprintf(stderr, "%s: %s\n", jobs[i]->intent.name, err);
        CU_ASSERT_FATAL(!ret && !rc);
    }
    CU_ASSERT_EQUAL_FATAL(lyd_validate_all(&root, ctx, LYD_VALIDATE_PRESENT
                                           | (config_only
                                              ? LYD_VALIDATE_NO_STATE : 0),
                                           NULL),
                          LY_SUCCESS);
    return root;
}

/* The reference's text of 'n' jobs in 'form', with 'meta' on the first
 * entry (job_print()'s printing, kept as it was). */
static char *
ref_print(const struct tree_fixture *f, const struct lr_job *const *jobs,
          int n, const struct lr_yang_page_meta *meta, enum job_form form,
          bool config_only)
{
    struct lyd_node *root = ref_tree(f, jobs, n, config_only);
    const struct lys_module *mod = ly_ctx_get_module_implemented(ctx,
                                                                 LR_YANG_LRJ);
    char *text = NULL, v[16];
    if (meta && lyd_child(root)) {
        snprintf(v, sizeof v, "%" PRIu32, meta->remaining);
        CU_ASSERT_EQUAL(lyd_new_meta(ctx, lyd_child(root), mod,
                                     LR_YANG_LRJ ":remaining", v, 0, NULL),
                        LY_SUCCESS);
        CU_ASSERT_EQUAL(lyd_new_meta(ctx, lyd_child(root), mod,
                                     LR_YANG_LRJ ":next", meta->next, 0,
                                     NULL), LY_SUCCESS);
    }
    LY_ERR rc = LY_SUCCESS;
    if (form == JOB_FORM_LIST && !lyd_child(root))
        text = strdup("{\"" LR_YANG_LRJ ":job\":[]}");
    else if (form == JOB_FORM_LIST)
        rc = lyd_print_mem(&text, lyd_child(root), LYD_JSON,
                           LYD_PRINT_WITHSIBLINGS);
    else if (form == JOB_FORM_ONE)
        rc = lyd_print_mem(&text, lyd_child(root), LYD_JSON, 0);
    else
        rc = lyd_print_mem(&text, root, LYD_JSON, LYD_PRINT_WITHSIBLINGS
                           | LYD_PRINT_KEEPEMPTYCONT);
    CU_ASSERT_EQUAL(rc, LY_SUCCESS);
    lyd_free_all(root);
    return text;
}

/* Whether job_print() gives the reference's bytes. */
static void
check_print(const struct tree_fixture *f, const struct lr_job *const *jobs,
            int n, const struct lr_yang_page_meta *meta, enum job_form form,
            bool config_only)
{
    char *text = NULL, err[1024] = "";
    const struct lr_yang_job_net net = tree_net(f);
    int rc = job_print(ctx, jobs, n, meta, &net, form, config_only, &text,
                       err, sizeof err);
    if (rc)
        fprintf(stderr, "job_print: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char *want = ref_print(f, jobs, n, meta, form, config_only);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    if (strcmp(text, want))
        fprintf(stderr, "%d jobs, form %d, %s: printed\n%s\nwhere the "
                "reference printed\n%s\n", n, (int) form,
                config_only ? "running" : "operational", text, want);
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    free(want);
}

/* Every form job_print() prints, operational and running, with the
 * jobs of every shape, each alone, three of them and none. */
static void
test_tree_print(void)
{
    struct tree_fixture f;
    CU_ASSERT_EQUAL_FATAL(tree_fixture_load(&f), 0);
    const struct lr_yang_page_meta meta = { 4, "Yy1wcG8", NULL };
    for (int cfg = 0; cfg < 2; cfg++) {
        check_print(&f, f.refs, N_JOBS, NULL, JOB_FORM_JOBS, cfg);
        check_print(&f, f.refs, N_JOBS, NULL, JOB_FORM_LIST, cfg);
        check_print(&f, f.refs + 2, 3, &meta, JOB_FORM_JOBS, cfg);
        check_print(&f, f.refs + 2, 3, &meta, JOB_FORM_LIST, cfg);
        check_print(&f, f.refs, 0, NULL, JOB_FORM_JOBS, cfg);
        check_print(&f, f.refs, 0, NULL, JOB_FORM_LIST, cfg);
        for (int i = 0; i < N_JOBS; i++)
            check_print(&f, f.refs + i, 1, NULL, JOB_FORM_ONE, cfg);
    }
    tree_fixture_free(&f);
}

/* The names, joined by ',', of the jobs whose entry in the reference's
 * tree 'where' is true of, in 'sort_by''s order (text, ties in the
 * list's order; every job of the fixture has the leaf). */
static void
ref_select(struct lyd_node *root, const char *where, const char *sort_by,
           char *buf, size_t size)
{
    struct lyd_node *kept[N_JOBS];
    int m = 0;
    buf[0] = '\0';
    for (struct lyd_node *e = lyd_child(root); e; e = e->next) {
        ly_bool keep = 1;
        if (where)
            CU_ASSERT_EQUAL_FATAL(lyd_eval_xpath(e, where, &keep),
                                  LY_SUCCESS);
        if (keep && m < N_JOBS)
            kept[m++] = e;
    }
    for (int i = 1; sort_by && i < m; i++)
        for (int k = i; k > 0; k--) {
            struct lyd_node *a = NULL, *b = NULL;
            CU_ASSERT_EQUAL_FATAL(lyd_find_path(kept[k - 1], sort_by, 0,
                                                &a), LY_SUCCESS);
            CU_ASSERT_EQUAL_FATAL(lyd_find_path(kept[k], sort_by, 0, &b),
                                  LY_SUCCESS);
            if (strcmp(lyd_get_value(a), lyd_get_value(b)) <= 0)
                break;
            struct lyd_node *t = kept[k];
            kept[k] = kept[k - 1];
            kept[k - 1] = t;
        }
    for (int i = 0; i < m; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "",
                 lyd_get_value(lyd_child(kept[i])));
}

/* Whether lr_yang_job_select() keeps what the reference keeps. */
static void
check_select(const struct tree_fixture *f, struct lyd_node *ref,
             const char *where, const char *sort_by, bool config_only)
{
    const struct lr_job **sel = NULL;
    char err[1024] = "", got[512] = "", want[512];
    int m = 0;
    const struct lr_yang_job_query q = {
        .where = where, .sort_by = sort_by, .config_only = config_only,
    };
    const struct lr_yang_job_net net = tree_net(f);
    int rc = lr_yang_job_select(ctx, f->refs, N_JOBS, &q, &net, &sel, &m,
                                err, sizeof err);
    if (rc)
        fprintf(stderr, "where %s: %s\n", where, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    for (int i = 0; i < m; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                 i ? "," : "", sel[i]->intent.name);
    free(sel);
    ref_select(ref, where, sort_by, want, sizeof want);
    if (strcmp(got, want))
        fprintf(stderr, "%s where %s sort-by %s: got '%s', the reference "
                "'%s'\n", config_only ? "running" : "operational",
                where ? where : "-", sort_by ? sort_by : "-", got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* The value of the XPath number 'expr' (0 to 2^20) on the entry 'e':
 * libyang 2.1 answers booleans alone (lyd_eval_xpath()), so it is
 * searched for, one comparison a step. */
static unsigned
ref_number(const struct lyd_node *e, const char *expr)
{
    unsigned lo = 0, hi = 1u << 20;
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        char xp[256];
        ly_bool below = 0;
        snprintf(xp, sizeof xp, "%s < %u", expr, mid);
        CU_ASSERT_EQUAL_FATAL(lyd_eval_xpath(e, xp, &below), LY_SUCCESS);
        if (below)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* Wheres over the jobs, operational and running, and for each job the
 * one where that holds its node count and the length of its text on
 * the reference's tree: every node the reference adds (the schema's
 * defaults) must be there for where too. */
static void
test_tree_select(void)
{
    static const char *const state_wheres[] = {
        "state/phase = 'blocked'",
        "count(state/lightpath) > 0",
        "state/lightpath/modulation-mismatch",
        "state/lightpath/gosnr < 17",
        "state/stage/private = 'true'",
        "contains(state/planner-note, 'ppo')",
        "contains(string(.), 'blocked')",
        "count(.//*) > 40",
        "not(state/created)",
    };
    static const char *const config_wheres[] = {
        "algorithm = 'cdynp'",
        "transformer/kv-heads = 2",
        "transformer and not(transformer/kv-heads)",
        "iterations > 0",
        "gpus/max = 65535 and batch = 32",
        "priority = 0",
        "count(.//*) > 10",
        "string-length(string(.)) > 30",
    };
    struct tree_fixture f;
    CU_ASSERT_EQUAL_FATAL(tree_fixture_load(&f), 0);
    for (int cfg = 0; cfg < 2; cfg++) {
        struct lyd_node *ref = ref_tree(&f, f.refs, N_JOBS, cfg);
        check_select(&f, ref, NULL, NULL, cfg);
        check_select(&f, ref, NULL, "algorithm", cfg);
        for (size_t i = 0; !cfg && i < sizeof state_wheres
                                          / sizeof state_wheres[0]; i++)
            check_select(&f, ref, state_wheres[i], NULL, cfg);
        for (size_t i = 0; i < sizeof config_wheres
                               / sizeof config_wheres[0]; i++)
            check_select(&f, ref, config_wheres[i], NULL, cfg);
        check_select(&f, ref, "priority < 5", "algorithm", cfg);
        for (struct lyd_node *e = lyd_child(ref); e; e = e->next) {
            char where[256];
            snprintf(where, sizeof where, "name = '%s' and count(.//*) = "
                     "%u and string-length(string(.)) = %u",
                     lyd_get_value(lyd_child(e)), ref_number(e, "count(.//*)"),
                     ref_number(e, "string-length(string(.))"));
            check_select(&f, ref, where, NULL, cfg);
        }
        lyd_free_all(ref);
    }
    tree_fixture_free(&f);
}

/* Two jobs of one name, which validation refused (a list's key twice):
 * still refused, by job_names_unique(), with the name, in a print (500
 * at the northbound) and a selection (EIO: the server's fault, not the
 * query's), and nothing printed or selected. */
static void
test_tree_twice(void)
{
    struct tree_fixture f;
    CU_ASSERT_EQUAL_FATAL(tree_fixture_load(&f), 0);
    const struct lr_job *two[3] = { f.refs[0], f.refs[1], f.refs[0] };
    const struct lr_job **sel = NULL;
    char *text = NULL, err[1024] = "";
    int m = -1;
    const struct lr_yang_job_net net = tree_net(&f);
    for (int cfg = 0; cfg < 2; cfg++) {
        CU_ASSERT_EQUAL(job_print(ctx, two, 3, NULL, &net, JOB_FORM_JOBS, cfg,
                                  &text, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(text);
        CU_ASSERT_STRING_EQUAL(err, "lightrail-job: /lightrail-job:jobs/"
                               "job[name='a-active']: two jobs have this "
                               "name, the list's key");
        err[0] = '\0';
        const struct lr_yang_job_query q = {
            .where = "priority > 0", .config_only = cfg,
        };
        CU_ASSERT_EQUAL(lr_yang_job_select(ctx, two, 3, &q, &net, &sel, &m,
                                           err, sizeof err), EIO);
        CU_ASSERT_PTR_NULL(sel);
        CU_ASSERT_EQUAL(m, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "job[name='a-active']: two jobs "
                                      "have this name"));
    }
    tree_fixture_free(&f);
}

/* The page printed from the selection's tree
 * (lr_yang_job_tree_page_to_json()) against the page built again
 * (job_print()): for where and sort-by judged operational or running,
 * the page printed with its state or without, in both forms, every
 * job kept, some in reverse (direction=backwards), the first two with
 * their annotations, none. */
static void
check_tree_page(const struct tree_fixture *f, const char *where,
                const char *sort_by, bool judged_config, bool config_only,
                int pick, bool list)
{
    const struct lr_job **sel = NULL, *page[N_JOBS];
    struct lr_yang_job_tree *tree = NULL;
    const struct lr_yang_page_meta meta = { 5, "Yy1wcG8", "YS1hY3RpdmU" };
    char *got = NULL, *want = NULL, err[1024] = "";
    int m = 0, count = 0;
    const struct lr_yang_job_query q = {
        .where = where, .sort_by = sort_by, .config_only = judged_config,
    };
    const struct lr_yang_job_net net = tree_net(f);
    CU_ASSERT_EQUAL_FATAL(lr_yang_job_select_tree(ctx, f->refs, N_JOBS, &q,
                                                  &net, &sel, &m, &tree,
                                                  err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tree);
    CU_ASSERT_EQUAL(lr_yang_job_tree_has_state(tree), !judged_config);
    for (int k = 0; k < m; k++)
        if (pick == 0 || (pick == 1 && k < 2))
            page[count++] = sel[k];
        else if (pick == 2 && k % 2 == 0)
            page[count++] = sel[m - 1 - k];
    const struct lr_yang_page_meta *pm = pick == 1 ? &meta : NULL;
    int rc = lr_yang_job_tree_page_to_json(ctx, tree, page, count, pm, list,
                                           config_only, &got, err,
                                           sizeof err);
    if (judged_config && !config_only) {
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT_PTR_NULL(got);
    } else {
        if (rc)
            fprintf(stderr, "tree page: %s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL_FATAL(job_print(ctx, page, count, pm, &net,
                                        list ? JOB_FORM_LIST
                                             : JOB_FORM_JOBS,
                                        config_only, &want, err,
                                        sizeof err), 0);
        if (strcmp(got, want))
            fprintf(stderr, "where %s sort-by %s judged %s, printed %s, "
                    "pick %d, list %d: from the tree\n%s\nbuilt again\n"
                    "%s\n", where ? where : "-", sort_by ? sort_by : "-",
                    judged_config ? "running" : "operational",
                    config_only ? "config" : "whole", pick, (int) list, got,
                    want);
        CU_ASSERT_STRING_EQUAL(got, want);
    }
    free(got);
    free(want);
    free(sel);
    lr_yang_job_tree_free(tree);
}

static void
test_tree_page(void)
{
    static const struct {
        const char *where, *sort_by;
    } q[] = {
        { "priority < 5", NULL },
        { NULL, "algorithm" },
        { "count(.//*) > 10", "priority" },
        { "name = 'nobody'", NULL },
    };
    struct tree_fixture f;
    CU_ASSERT_EQUAL_FATAL(tree_fixture_load(&f), 0);
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        for (int judged = 0; judged < 2; judged++)
            for (int cfg = 0; cfg < 2; cfg++)
                for (int pick = 0; pick < 3; pick++)
                    for (int list = 0; list < 2; list++)
                        check_tree_page(&f, q[i].where, q[i].sort_by,
                                        judged, cfg, pick, list);
    /* A job the selection did not keep is refused, the tree freed. */
    const struct lr_job **sel = NULL;
    struct lr_yang_job_tree *tree = NULL;
    char *text = NULL, err[1024] = "";
    int m = 0;
    const struct lr_yang_job_query one = { .where = "priority = 0" };
    const struct lr_yang_job_net net = tree_net(&f);
    CU_ASSERT_EQUAL_FATAL(lr_yang_job_select_tree(ctx, f.refs, N_JOBS, &one,
                                                  &net, &sel, &m, &tree, err,
                                                  sizeof err), 0);
    CU_ASSERT_EQUAL(lr_yang_job_tree_page_to_json(ctx, tree, f.refs, 1,
                                                  NULL, false, false, &text,
                                                  err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "job 'a-active' of the page is none "
                                  "the selection kept"));
    free(sel);
    lr_yang_job_tree_free(tree);
    tree_fixture_free(&f);
}

static CU_TestInfo tests[] = {
    { "each form printed as the validated tree printed it",
      test_tree_print },
    { "each where selecting as on the validated tree", test_tree_select },
    { "two jobs of one name refused as validation refused them",
      test_tree_twice },
    { "a page printed from the selection's tree as built again",
      test_tree_page },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("yang_job_tree", tests, suite_setup, suite_teardown)
