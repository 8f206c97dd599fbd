/*
 * The controller's three steps (lr_ctl.h "Three steps") and the device
 * worker (controller/lr_worker.h) on the metro example with dummy
 * ROADMs: between begin and end a job is provisioning (or releasing),
 * holds its GPUs and spectrum, and has nothing on its devices yet; a
 * second request for it is refused, reconcile and a new network wait;
 * another job is planned meanwhile; end commits or rolls back.  A
 * reconciliation in three steps: reads meanwhile, the same report as
 * the synchronous form, the channels of work in flight ahead of it left
 * alone, its repair.  The worker runs ops (a reconciliation's too) in
 * the order pushed and hands them back on the loop's
 * thread; freeing it finishes what it holds.  lr_ctl_check() after each.
 * With a real agent for dc2 (./lightrail agent, behind a proxy of the
 * test's that drops the connections it is told to): the KEEPs sent
 * between a plan's end and its admission, and the RELEASEs of an
 * admission that plans on the owner's thread.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "controller/lr_ctl.h"
#include "controller/lr_tls.h"
#include "controller/lr_store.h"
#include "controller/lr_worker.h"
#include "yang/lr_yang_job.h"
#include "tests/unit/lr_test_ctl.h"

static int
setup(void)
{
    return lr_test_ctl_setup("ctl-async");
}

static struct lr_ctl *
open_ctl(void)
{
    struct lr_ctl_config cfg = { 0 };
    return lr_test_ctl_open(&cfg);
}

static struct lr_intent
intent(const char *name, int gmax)
{
    return lr_test_ctl_intent(name, "gpt-1.9b", 1, gmax, "cdynp");
}

static int
gpus_in_use(struct lr_ctl *c)
{
    int n = 0;
    for (int k = 0; k < cluster->n_dcs; k++)
        n += lr_ctl_gpus_used(c)[k];
    return n;
}

/* Applies one change to dummy ROADM 'i' behind the controller's back;
 * the driver's answer. */
static int
tamper(int i, enum sb_op what, const char *name)
{
    struct sb_device_config dc = { .driver = "dummy" };
    struct sb_device *d;
    struct sb_change ch = { .op = what, .mc = { .n = 100, .m = 4,
                                                .enabled = true } };
    char err[256];
    snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[i].name);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    snprintf(ch.mc.name, sizeof ch.mc.name, "%s", name);
    if (sb_dummy_class.open(&dc, &d, err, sizeof err))
        return EIO;
    int rc = sb_dummy_class.apply(d, &ch, 1, err, sizeof err);
    sb_dummy_class.close(d);
    return rc;
}

/* The first ROADM that holds a channel named 'name' (or 'name' followed
 * by more: the names used here are no prefix of another), or -1. */
static int
device_with(const char *name)
{
    for (int i = 0; i < topo->n_nodes; i++)
        if (lr_test_ctl_channels_on(topo->nodes[i].name, name) > 0)
            return i;
    return -1;
}

static void
test_steps(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_ctl_op *op1 = NULL, *op2 = NULL, *op = NULL;
    struct lr_job job, got;
    char err[1024], *report = NULL;
    int drift = 0;
    struct lr_intent j1 = intent("a1", 16), j2 = intent("a2", 24);

    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &j1, &job, &op1, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op1);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_PROVISIONING);
    CU_ASSERT(job.n_lightpaths > 0);
    CU_ASSERT_STRING_EQUAL(lr_ctl_op_job(op1), "a1");
    CU_ASSERT_EQUAL(lr_ctl_get(c, "a1", &got), 0);
    CU_ASSERT_EQUAL(got.phase, LR_JOB_PROVISIONING);
    int used1 = gpus_in_use(c);
    CU_ASSERT(used1 > 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("a1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 1);

    /* A second request for a1, reconcile, a new network: refused. */
    CU_ASSERT_EQUAL(lr_ctl_submit_begin(c, &j1, &job, &op, err, sizeof err),
                    EEXIST);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL(lr_ctl_delete_begin(c, "a1", &op, err, sizeof err),
                    EBUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "try again when"));
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), EBUSY);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), EBUSY);

    /* Another job is planned meanwhile on what a1 left. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &j2, &job, &op2, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op2);
    CU_ASSERT(gpus_in_use(c) > used1);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 2);

    lr_ctl_op_run(op1);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op1, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(lr_test_ctl_channels("a1/") > 0);
    lr_ctl_op_run(op2);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op2, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 0);
    assert_consistent(c);

    /* A release in three steps: releasing, holding all, until end. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "a1", &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "a1", &got), 0);
    CU_ASSERT_EQUAL(got.phase, LR_JOB_RELEASING);
    CU_ASSERT_EQUAL(lr_ctl_submit_begin(c, &j1, &job, &op1, err, sizeof err),
                    EEXIST);
    CU_ASSERT_EQUAL(lr_ctl_delete_begin(c, "a1", &op1, err, sizeof err),
                    EBUSY);
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "a1", &got), ENOENT);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("a1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "a2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(gpus_in_use(c), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

static void
test_failure_rolls_back(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_ctl_op *op = NULL;
    struct lr_job job;
    char err[1024];
    struct lr_intent in = intent("f1", 16);

    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &in, &job, &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT(gpus_in_use(c) > 0);
    lr_test_ctl_fail(NULL, "always");          /* after begin: the device step fails */
    lr_ctl_op_run(op);
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "injected failure"));
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    CU_ASSERT_EQUAL(gpus_in_use(c), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("f1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->failures, 1);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "f1", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* A failed job keeps its plan (for its reason) in the DC indices of the
 * inventory it was planned on.  A new inventory that gives those
 * indices other DCs, or none, drops the plan, in memory and in the
 * store: its stages would name the wrong DCs, or none, and the job
 * could no longer be printed (GET of every job answered 500). */
static void
test_inventory_drops_stale_plans(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_ctl_op *op = NULL;
    struct lr_job job;
    char err[1024], *text = NULL;
    struct lr_intent in = intent("f1", 16);

    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &in, &job, &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_test_ctl_fail(NULL, "always");
    lr_ctl_op_run(op);
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_FAILED);
    int n_stages = job.plan.n_stages, top = 0;
    for (int s = 0; s < n_stages; s++)
        if (job.plan.stages[s].dc > top)
            top = job.plan.stages[s].dc;
    CU_ASSERT_FATAL(top > 0);

    /* The same DCs at the same indices: the plan stays. */
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "f1", &job), 0);
    CU_ASSERT_EQUAL(job.plan.n_stages, n_stages);

    /* Only the DCs before the plan's last: the plan goes, the phase and
     * the reason stay. */
    struct lr_cluster *fewer = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fewer);
    fewer->n_dcs = top;
    fewer->n_links = 0;
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, fewer, NULL, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "f1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(job.plan.n_stages, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "injected failure"));
    int rc = lr_yang_jobs_to_json(ly, &job, 1,
                                  &(struct lr_yang_job_net) {
                                      topo, fewer, NULL },
                                  0, &text, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    free(text);
    assert_consistent(c);
    lr_ctl_free(c);
    lr_cluster_free(fewer);

    /* The store says the same. */
    struct lr_store *st = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(st, "f1", &job), 0);
    CU_ASSERT_EQUAL(job.plan.n_stages, 0);
    CU_ASSERT_EQUAL(lr_store_delete_job(st, "f1"), 0);
    lr_store_close(st);
}

/* A reconciliation in three steps: reads are answered between begin and
 * end, the report equals the synchronous one on the same drift, and the
 * channels of work in flight ahead of it (an admission, a release: on a
 * FIFO worker they run first, how they end is not known at begin) are
 * neither orphans nor missing. */
static void
test_reconcile_steps(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_ctl_op *op = NULL, *jop = NULL;
    struct lr_job job, *jobs = NULL;
    char err[1024], *sync_rep = NULL, *rep = NULL;
    int sync_drift = -1, drift = -1, n = 0;
    struct lr_intent r1 = intent("r1", 16), r2 = intent("r2", 16);

    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &r1, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    /* Recovery reconciled once already. */
    unsigned long long rec0 = lr_ctl_counters(c)->reconciles,
                       drift0 = lr_ctl_counters(c)->drift;
    int lost = device_with("r1/lp1");
    int other = (lost + 1) % topo->n_nodes;
    CU_ASSERT_FATAL(lost >= 0);
    CU_ASSERT_EQUAL_FATAL(tamper(lost, SB_DELETE, "r1/lp1"), 0);
    CU_ASSERT_EQUAL_FATAL(tamper(other, SB_ADD, "stranger/lp1"), 0);

    /* The synchronous dry-run: the reference. */
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &sync_rep, &sync_drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(sync_drift, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(sync_rep, "stranger/lp1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sync_rep, "r1/lp1 of job r1 is missing"));

    /* The same in three steps, behind r2's admission. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &r2, &job, &jop, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(jop);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_reconcile_begin(c, false, &op, err,
                                                 sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT(lr_ctl_op_is_reconcile(op));
    CU_ASSERT(!lr_ctl_op_is_reconcile(jop));
    CU_ASSERT_STRING_EQUAL(lr_ctl_op_job(op), "");
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 2);
    /* Between begin and end: reads answer; a new network and the
     * synchronous form wait. */
    CU_ASSERT_EQUAL(lr_ctl_list(c, &jobs, &n), 0);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT(n == 2 && jobs[0].phase == LR_JOB_ACTIVE
              && jobs[1].phase == LR_JOB_PROVISIONING);
    /* The same jobs in the same order, read in place (field by field:
     * a whole-struct memcmp reads the bytes past each string's end,
     * never written, which valgrind rightly reports). */
    const struct lr_job **refs = NULL;
    int n_refs = -1;
    CU_ASSERT_EQUAL(lr_ctl_list_refs(c, &refs, &n_refs), 0);
    CU_ASSERT_EQUAL(n_refs, n);
    for (int i = 0; i < n && i < n_refs; i++) {
        CU_ASSERT_STRING_EQUAL(refs[i]->intent.name, jobs[i].intent.name);
        CU_ASSERT_EQUAL(refs[i]->phase, jobs[i].phase);
        CU_ASSERT_STRING_EQUAL(refs[i]->reason, jobs[i].reason);
        CU_ASSERT_EQUAL(refs[i]->plan.n_stages, jobs[i].plan.n_stages);
        CU_ASSERT_EQUAL(refs[i]->n_lightpaths, jobs[i].n_lightpaths);
        CU_ASSERT_EQUAL(refs[i]->updated_ms, jobs[i].updated_ms);
    }
    free(refs);
    free(jobs);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "r1", &job), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &rep, &drift, err,
                                     sizeof err), EBUSY);
    CU_ASSERT_PTR_NULL(rep);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), EBUSY);
    /* The worker's order: r2's devices, then the reconcile's. */
    lr_ctl_op_run(jop);
    CU_ASSERT(lr_test_ctl_channels("r2/") > 0);
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, jop, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_reconcile_end(c, op, &rep, &drift, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(drift, sync_drift);
    CU_ASSERT_STRING_EQUAL(rep, sync_rep);       /* r2 not judged */
    free(rep);
    rep = NULL;
    CU_ASSERT_EQUAL(device_with("stranger/lp1"), other);   /* dry-run */
    CU_ASSERT(device_with("r1/lp1") != lost);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->reconciles, rec0 + 2);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->drift, drift0 + 4);

    /* Behind r2's release: the drift of r1 repaired, r2 not judged. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "r2", &jop, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(jop);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_reconcile_begin(c, true, &op, err,
                                                 sizeof err), 0);
    lr_ctl_op_run(jop);
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, jop, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile_end(c, op, &rep, &drift, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NULL(strstr(rep, "r2/"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "r1/lp1 of job r1 is missing: "
                                       "re-applied"));
    free(rep);
    rep = NULL;
    CU_ASSERT_EQUAL(device_with("stranger/lp1"), -1);
    CU_ASSERT_EQUAL(device_with("r1/lp1"), lost);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("r2/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &rep, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(rep);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "r1", err, sizeof err), 0);
    free(sync_rep);
    lr_ctl_free(c);
}

/* What the worker handed back, in order, and on which thread. */
struct seen {
    struct lr_ctl *c;
    struct event_base *base;
    char names[4][LR_NAME_MAX];
    int phase[4];
    int n;
    bool other_thread;
    pthread_t loop;
    /* Pushed by on_done_push, as lightraild's decider pushes the next
     * ppo intent waiting when one is handed back. */
    struct lr_worker *w;
    struct lr_ctl_op *then;
};

static void
on_done(void *cookie, struct lr_ctl_op *op)
{
    struct seen *s = cookie;
    struct lr_job job;
    char err[512];
    if (!pthread_equal(pthread_self(), s->loop))
        s->other_thread = true;
    snprintf(s->names[s->n], LR_NAME_MAX, "%s", lr_ctl_op_job(op));
    job.phase = LR_JOB_SUBMITTED;          /* a reconciliation: no job */
    lr_ctl_op_end(s->c, op, &job, err, sizeof err);
    s->phase[s->n++] = job.phase;
}

/* on_done, then pushes s->then (once) on the same worker. */
static void
on_done_push(void *cookie, struct lr_ctl_op *op)
{
    struct seen *s = cookie;
    on_done(cookie, op);
    if (s->then) {
        CU_ASSERT_EQUAL(lr_worker_push(s->w, s->then, on_done, s), 0);
        s->then = NULL;
    }
}

static void
test_worker(void)
{
    struct lr_ctl *c = open_ctl();
    struct event_base *base = event_base_new();
    struct lr_worker *w = NULL;
    struct seen s = { .c = c, .base = base, .loop = pthread_self() };
    struct lr_ctl_op *op[3];
    struct lr_job job;
    char err[1024];
    struct lr_intent in[3] = { intent("w1", 16), intent("w2", 24),
                               intent("w3", 8) };
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    CU_ASSERT_EQUAL_FATAL(lr_worker_new(base, &w, err, sizeof err), 0);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit_begin(c, &in[i], &job, &op[i],
                                                  err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(op[i]);
        CU_ASSERT_EQUAL(lr_worker_push(w, op[i], on_done, &s), 0);
    }
    /* A reconciliation queues behind them. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_reconcile_begin(c, true, &op[2], err,
                                                 sizeof err), 0);
    CU_ASSERT_EQUAL(lr_worker_push(w, op[2], on_done, &s), 0);
    CU_ASSERT_EQUAL(lr_worker_pending(w), 3);
    /* Until all are back: no timing, the loop blocks until the pipe. */
    while (s.n < 3)
        CU_ASSERT_EQUAL_FATAL(event_base_loop(base, EVLOOP_ONCE), 0);
    CU_ASSERT_EQUAL(lr_worker_pending(w), 0);
    CU_ASSERT_STRING_EQUAL(s.names[0], "w1");
    CU_ASSERT_STRING_EQUAL(s.names[1], "w2");
    CU_ASSERT_EQUAL(s.phase[0], LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(s.phase[1], LR_JOB_ACTIVE);
    CU_ASSERT_STRING_EQUAL(s.names[2], "");      /* the reconciliation */
    CU_ASSERT(!s.other_thread);
    assert_consistent(c);

    /* A release pushed and the worker freed at once: free finishes it
     * and hands it back before it returns. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "w1", &op[2], err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op[2]);
    CU_ASSERT_EQUAL(lr_worker_push(w, op[2], on_done, &s), 0);
    lr_worker_free(w);
    CU_ASSERT_EQUAL(s.n, 4);
    CU_ASSERT_STRING_EQUAL(s.names[3], "w1");
    CU_ASSERT_EQUAL(lr_ctl_get(c, "w1", &job), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("w1/"), 0);
    assert_consistent(c);

    /* What a 'done' pushes while the worker is freed is run and handed
     * back too before free returns: a reconciliation, pushed when w2's
     * release comes back. */
    CU_ASSERT_EQUAL_FATAL(lr_worker_new(base, &w, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "w2", &op[0], err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op[0]);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_reconcile_begin(c, true, &s.then, err,
                                                 sizeof err), 0);
    s.n = 0;
    s.w = w;
    CU_ASSERT_EQUAL(lr_worker_push(w, op[0], on_done_push, &s), 0);
    lr_worker_free(w);
    CU_ASSERT_EQUAL(s.n, 2);
    CU_ASSERT_STRING_EQUAL(s.names[0], "w2");
    CU_ASSERT_STRING_EQUAL(s.names[1], "");      /* the reconciliation */
    CU_ASSERT_EQUAL(lr_ctl_get(c, "w2", &job), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_busy(c), 0);
    assert_consistent(c);
    event_base_free(base);
    lr_ctl_free(c);
}

static long long
fixed_clock(void *arg)
{
    return *(const long long *) arg;
}

/* lr_ctl_config.clock_ms is the jobs' clock: created and updated at
 * the time it says, not the real one. */
static void
test_clock(void)
{
    long long t = 1234567890123LL;
    struct lr_ctl_config cfg = { .clock_ms = fixed_clock, .clock_arg = &t };
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct lr_intent in = intent("clocked", 4);
    struct lr_job job;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.created_ms, t);
    CU_ASSERT_EQUAL(job.updated_ms, t);
    t += 5000;
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "clocked", err, sizeof err), 0);
    /* A release of channels in steps: releasing from the begin's time
     * on, in memory (a GET's 'updated', its ETag) as the store has it
     * (lr_store_set_phase() at that time). */
    struct lr_intent lit = intent("lit", 16);
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &lit, &job, err, sizeof err), 0);
    CU_ASSERT_FATAL(job.n_lightpaths > 0);
    t += 5000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete_begin(c, "lit", &op, err,
                                              sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "lit", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_EQUAL(job.updated_ms, t);
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL(lr_ctl_op_end(c, op, NULL, err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* A recovery report longer than one line of lr_ctl_say()'s old buffer
 * (512 bytes) comes back whole: 24 channels on ROADM 0 behind the store's
 * back are each named (the report once overflowed a stack buffer). */
static void
test_long_recovery_report(void)
{
    enum { N = 24 };
    char name[32];
    for (int i = 0; i < N; i++) {
        struct sb_device_config dc = { .driver = "dummy" };
        struct sb_device *d;
        struct sb_change ch = { .op = SB_ADD,
                                .mc = { .n = 10 * i, .m = 4,
                                        .enabled = true } };
        char err[256];
        snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[0].name);
        snprintf(dc.address, sizeof dc.address, "%s", devdir);
        snprintf(ch.mc.name, sizeof ch.mc.name, "longreport/lp%02d", i);
        CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL(sb_dummy_class.apply(d, &ch, 1, err, sizeof err), 0);
        sb_dummy_class.close(d);
    }
    struct lr_ctl_config cfg = { .topo = topo, .cluster = cluster,
                                 .default_driver = "dummy",
                                 .dummy_dir = devdir, .db_path = db };
    struct lr_ctl *c = NULL;
    char err[1024], *report = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(report);
    CU_ASSERT(strlen(report) > 600);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "longreport/lp%02d", i);
        CU_ASSERT_PTR_NOT_NULL(strstr(report, name));
    }
    free(report);
    lr_ctl_free(c);
    /* Recovery repaired them or not: none is left for the other tests. */
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "longreport/lp%02d", i);
        tamper(0, SB_DELETE, name);
    }
    CU_ASSERT_EQUAL(device_with("longreport/"), -1);
}

static void
count_hook(void *arg)
{
    ++*(int *) arg;
}

/* The fixture of the queued RELEASEs: the test cluster with dc2's agent
 * nobody serves (lr_test_ctl_remote_dc2()), a store at dir/'file'
 * holding the active job 'name' whose one stage is dc2's agent's (no
 * GPU of ours, no lightpath, so its DELETE is a RELEASE at that agent
 * only), and 'c' started on it as the coordinator with lightraild's release hook,
 * which counts in 'queued'.  The hook's argument is in the struct: it
 * must stay where it is until release_queue_free(). */
struct release_queue {
    char key[200], cert[200], path[200];
    struct lr_cluster *remote;
    struct lr_ctl *c;
    int queued;
};

/* False when no certificate can be made (nothing to free then). */
static bool
release_queue_new(struct release_queue *q, const char *name,
                  const char *file)
{
    char err[1024];
    struct lr_store *st;
    memset(q, 0, sizeof *q);
    if (!(q->remote = lr_test_ctl_remote_dc2(dir, q->key, q->cert)))
        return false;
    struct lr_job job = { .phase = LR_JOB_ACTIVE };
    job.intent = intent(name, 4);
    job.plan.n_stages = 1;
    job.plan.stages[0] = (struct lr_stage) { .first = 0, .last = 0,
                                             .dc = 1, .g = 0 };
    snprintf(q->path, sizeof q->path, "%s/%s", dir, file);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(q->path, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_store_put_job(st, &job), 0);
    lr_store_close(st);
    struct lr_ctl_config cfg = { .topo = topo, .cluster = q->remote,
                                 .default_driver = "dummy",
                                 .dummy_dir = devdir, .db_path = q->path,
                                 .agent_cert = q->cert, .agent_key = q->key,
                                 .agent_ca = q->cert, .agent_timeout_s = 1 };
    char *report = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &q->c, &report, err, sizeof err),
                          0);
    free(report);
    lr_ctl_set_release_hook(q->c, count_hook, &q->queued);
    return true;
}

static void
release_queue_free(struct release_queue *q)
{
    lr_ctl_free(q->c);
    lr_cluster_free(q->remote);
}

/* With a release hook (lightraild's) a RELEASE waits in the queue until
 * an op takes it; a new network before that sends the queue there
 * (lr_ctl.h, "RELEASEs off the owner's thread"), to the agents of the
 * network it replaces, and leaves none waiting for an agent that is
 * gone; a network refused keeps it queued.  dc2 is planned by an agent
 * nobody serves (port 1 of loopback): the RELEASE is sent and not
 * confirmed, counted once. */
static void
test_new_network_sends_queued_releases(void)
{
    char err[1024];
    struct release_queue q;
    if (!release_queue_new(&q, "queued", "release-queue.db"))
        return;
    struct lr_ctl *c = q.c;
    struct lr_cluster *remote = q.remote;
    char *cert = q.cert;
    /* The KEEP of the recovery found nobody at dc2's agent: it is down,
     * saying why; dc1, planned here, has no agent. */
    struct lr_ctl_agent_status as;
    CU_ASSERT_EQUAL(lr_ctl_agent_status(c, 0, &as), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_agent_status(c, -1, &as), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_agent_status(c, remote->n_dcs, &as), ENOENT);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    CU_ASSERT_STRING_EQUAL(as.dc, remote->dcs[1].name);
    CU_ASSERT_FALSE(as.up);
    CU_ASSERT_PTR_NOT_NULL(strstr(as.why, "127.0.0.1 port 1"));
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete(c, "queued", err, sizeof err), 0);
    CU_ASSERT_EQUAL(q.queued, 1);
    CU_ASSERT_EQUAL(lr_ctl_releases_pending(c), 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->agent_release_failures, 0);
    /* A new network refused (its agent cannot load the coordinator's
     * certificate, moved away meanwhile) leaves the agents in use, and
     * the RELEASE queued for them, untried. */
    char away[220];
    snprintf(away, sizeof away, "%s.away", cert);
    CU_ASSERT_EQUAL_FATAL(rename(cert, away), 0);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, remote, NULL, NULL, err,
                                         sizeof err), EINVAL);
    CU_ASSERT_EQUAL_FATAL(rename(away, cert), 0);
    CU_ASSERT_EQUAL(lr_ctl_releases_pending(c), 1);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->agent_release_failures, 0);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_releases_pending(c), 0);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->agent_release_failures, 1);
    /* Nothing is left for an op to take, nor for lr_ctl_free to send. */
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL(lr_ctl_release_begin(c, &op), 0);
    CU_ASSERT_PTR_NULL(op);
    if (op) {
        lr_ctl_op_run(op);
        lr_ctl_release_end(c, op);
    }
    release_queue_free(&q);
}

/* An agent down stays down across a new network that keeps it (the same
 * address, port and certificate name): nothing was exchanged with it
 * since its last failure, and the start's KEEP is still owed it.  A new
 * network that names another agent for the DC has no failure to say. */
static void
test_agent_down_across_a_new_network(void)
{
    char key[200], cert[200], path[200], err[1024];
    struct lr_cluster *remote = lr_test_ctl_remote_dc2(dir, key, cert);
    if (!remote)
        return;
    snprintf(path, sizeof path, "%s/agent-down.db", dir);
    struct lr_ctl_config cfg = { .topo = topo, .cluster = remote,
                                 .default_driver = "dummy",
                                 .dummy_dir = devdir, .db_path = path,
                                 .agent_cert = cert, .agent_key = key,
                                 .agent_ca = cert, .agent_timeout_s = 1 };
    struct lr_ctl *c = NULL;
    char *report = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    struct lr_ctl_agent_status as;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    CU_ASSERT_FALSE(as.up);
    char why[LR_CTL_AGENT_WHY];
    snprintf(why, sizeof why, "%s", as.why);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 1);
    /* The same inventory again. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, topo, remote, NULL, NULL,
                                               err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 1);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    CU_ASSERT_FALSE(as.up);
    CU_ASSERT_STRING_EQUAL(as.why, why);
    /* Another agent for dc2: not tried yet. */
    remote->dcs[1].remote_port = 2;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, topo, remote, NULL, NULL,
                                               err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    CU_ASSERT_TRUE(as.up);
    CU_ASSERT_STRING_EQUAL(as.why, "");
    lr_ctl_free(c);
    lr_cluster_free(remote);
}

/* lr_ctl_agents_reload_tls() (lightraild's SIGHUP) while RELEASEs hold
 * the agents (lr_ctl_release_begin lends them, as a plan op does): EBUSY,
 * and no file is read then, so a certificate moved away meanwhile is
 * not reported (a read would say EINVAL); the caller reloads in the
 * planner's next free turn.  Once they are back the files are read: 0,
 * no connection to judge (dc2's agent is down).  A file that does not
 * load: EINVAL naming it, and the agent is as it was.  Without a
 * coordinator nothing is read: ENOENT. */
static void
test_reload_tls_waits_for_the_agents(void)
{
    char path[200], err[2048], report[1024];
    struct release_queue q;
    if (!release_queue_new(&q, "hup", "reload-tls.db"))
        return;
    struct lr_ctl *c = q.c;
    char *cert = q.cert;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete(c, "hup", err, sizeof err), 0);
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_release_begin(c, &op), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    char away[220];
    snprintf(away, sizeof away, "%s.away", cert);
    CU_ASSERT_EQUAL_FATAL(rename(cert, away), 0);
    report[0] = 'x';
    CU_ASSERT_EQUAL(lr_ctl_agents_reload_tls(c, "SIGHUP", report,
                                             sizeof report, err, sizeof err),
                    EBUSY);
    CU_ASSERT_STRING_EQUAL(report, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "agents are busy (a plan or "
                                  "RELEASEs in flight): read the agent "
                                  "TLS files again when they are done"));
    /* The judgment a CRL's next update calls for waits for them too
     * (lightraild's timer: the planner's next free turn). */
    report[0] = 'x';
    CU_ASSERT_EQUAL(lr_ctl_agents_recheck_tls(c, report, sizeof report, err,
                                              sizeof err), EBUSY);
    CU_ASSERT_STRING_EQUAL(report, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "agents are busy (a plan or "
                                  "RELEASEs in flight): judge the agents' "
                                  "connections again when they are done"));
    CU_ASSERT_EQUAL_FATAL(rename(away, cert), 0);
    lr_ctl_op_run(op);
    lr_ctl_release_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_agents_reload_tls(c, "SIGHUP", report,
                                             sizeof report, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(report, "");
    /* Once back: judged, none closed (no connection); no CRL, so no
     * next update for a timer. */
    report[0] = 'x';
    CU_ASSERT_EQUAL(lr_ctl_agents_recheck_tls(c, report, sizeof report, err,
                                              sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(report, "");
    struct lr_tls_span span = { 0 };
    lr_ctl_agents_tls_span(c, time(NULL), &span);
    CU_ASSERT(span.from == 0 && span.until == 0);
    /* A file that does not load changes no agent. */
    struct lr_ctl_agent_status as;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    char why[LR_CTL_AGENT_WHY];
    snprintf(why, sizeof why, "%s", as.why);
    CU_ASSERT_FALSE(as.up);
    CU_ASSERT_EQUAL_FATAL(rename(cert, away), 0);
    CU_ASSERT_EQUAL(lr_ctl_agents_reload_tls(c, "SIGHUP", report,
                                             sizeof report, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, cert));
    CU_ASSERT_EQUAL_FATAL(rename(away, cert), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_agent_status(c, 1, &as), 0);
    CU_ASSERT_FALSE(as.up);
    CU_ASSERT_STRING_EQUAL(as.why, why);
    release_queue_free(&q);
    /* No coordinator: SIGHUP is the ppo policy's alone. */
    snprintf(path, sizeof path, "%s/reload-tls-none.db", dir);
    struct lr_ctl_config plain = { .topo = topo, .cluster = cluster,
                                   .default_driver = "dummy",
                                   .dummy_dir = devdir, .db_path = path };
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&plain, &c, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_agents_reload_tls(c, "SIGHUP", report,
                                             sizeof report, err, sizeof err),
                    ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot read the agent TLS files "
                                  "again: no coordinator in the "
                                  "configuration (configure one"));
    CU_ASSERT_EQUAL(lr_ctl_agents_recheck_tls(c, report, sizeof report, err,
                                              sizeof err), ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot judge the agents' "
                                  "connections again: no coordinator in "
                                  "the configuration (configure one"));
    span = (struct lr_tls_span) { 0 };
    lr_ctl_agents_tls_span(c, time(NULL), &span);
    CU_ASSERT(span.from == 0 && span.until == 0);
    lr_ctl_free(c);
}

/* ---- a real agent for dc2 (lightrail agent), behind a proxy ---- */

/* A proxy on 127.0.0.1 in front of the agent: it closes the connections
 * it is told to drop (at accept: the client's handshake fails, its
 * request unanswered) and forwards the others, a thread each.  'drop':
 * -1 drops every connection, n >= 0 the next n, then forwards. */
struct proxy {
    int fd, port;
    atomic_int to;                    /* the agent's port */
    atomic_int drop;
    pthread_t t;
};

static void *
proxy_pipe(void *arg)
{
    int *fds = arg;
    struct pollfd pf[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
    char buf[16384];
    for (;;) {
        if (poll(pf, 2, -1) < 0)
            break;
        int i = (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 0 : 1;
        ssize_t n = read(pf[i].fd, buf, sizeof buf);
        if (n <= 0 || write(pf[1 - i].fd, buf, (size_t) n) != n)
            break;
    }
    close(fds[0]);
    close(fds[1]);
    free(fds);
    return NULL;
}

static void *
proxy_run(void *arg)
{
    struct proxy *p = arg;
    for (;;) {
        int c = accept(p->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        int d = atomic_load(&p->drop);
        if (d < 0 || (d > 0 && atomic_compare_exchange_strong(&p->drop, &d,
                                                              d - 1))) {
            close(c);
            continue;
        }
        struct sockaddr_in to = { .sin_family = AF_INET,
                                  .sin_port = htons((uint16_t) atomic_load(&p->to)),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int s = socket(AF_INET, SOCK_STREAM, 0);
        int *fds = malloc(2 * sizeof *fds);
        pthread_t t;
        if (s < 0 || !fds
            || connect(s, (struct sockaddr *) &to, sizeof to)) {
            close(c);
            if (s >= 0)
                close(s);
            free(fds);
            continue;
        }
        fds[0] = c;
        fds[1] = s;
        if (pthread_create(&t, NULL, proxy_pipe, fds)) {
            close(c);
            close(s);
            free(fds);
            continue;
        }
        pthread_detach(t);
    }
}

/* The proxy to 127.0.0.1:'to', dropping every connection until told
 * otherwise; 0, or -1. */
static int
proxy_start(struct proxy *p, int to)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    atomic_init(&p->to, to);
    atomic_init(&p->drop, -1);
    p->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (p->fd < 0 || bind(p->fd, (struct sockaddr *) &a, sizeof a)
        || listen(p->fd, 16)
        || getsockname(p->fd, (struct sockaddr *) &a, &len)
        || pthread_create(&p->t, NULL, proxy_run, p))
        return -1;
    p->port = ntohs(a.sin_port);
    return 0;
}

static void
proxy_stop(struct proxy *p)
{
    shutdown(p->fd, SHUT_RDWR);
    close(p->fd);
    pthread_join(p->t, NULL);
}

/* lightrail agent for metro's dc2 (its real figures), on a free port of
 * 127.0.0.1, with certificate dc2 and 'ca' (which must hold the
 * coordinator's); its stderr into dir/dc2-agent.log, its state in
 * dir/'state' (a restart keeps its reservations), the messages it
 * receives into dir/'record' (--record), and each save of its
 * reservations held back 'delay_save' ms.  The pid, and its port in
 * '*port'; -1 when it does not come up (no lightrail built: the caller
 * skips). */
static pid_t
agent_start(const char *ca, int *port, const char *state_name,
            const char *record, int delay_save)
{
    char cfg[300], key[300], cert[300], state[300], log[300], pf[320];
    char rec[300], delay[32];
    const char *bin = "./lightrail";
    if (access(bin, X_OK))
        return -1;
    snprintf(key, sizeof key, "%s/dc2.key", dir);
    snprintf(cert, sizeof cert, "%s/dc2.pem", dir);
    snprintf(cfg, sizeof cfg, "%s/dc2-agent.json", dir);
    snprintf(state, sizeof state, "%s/%s", dir, state_name);
    snprintf(log, sizeof log, "%s/dc2-agent.log", dir);
    snprintf(pf, sizeof pf, "%s/agent.port", state);
    snprintf(rec, sizeof rec, "%s/%s", dir, record);
    snprintf(delay, sizeof delay, "%d", delay_save);
    unlink(pf);
    FILE *f = fopen(cfg, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"lightrail-agent:agent\": {\"dc\": \"dc2\",\n"
            "  \"device-type\": {\"peak-tflops\": \"125\", \"efficiency\": "
            "\"0.40\", \"memory-gb\": \"32\"},\n  \"device-count\": 32,\n"
            "  \"intra-dc-bandwidth-gbytes-per-s\": \"300\", "
            "\"intra-dc-latency-us\": \"5\",\n  \"tls\": {\"certificate\": "
            "\"%s\", \"key\": \"%s\", \"ca\": \"%s\", \"peer-name\": "
            "[\"coordinator\"]}}}\n", cert, key, ca);
    fclose(f);
    mkdir(state, 0755);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *e = freopen(log, "a", stderr);
        (void) e;
        execl(bin, "lightrail", "agent", "--config", cfg, "--listen",
              "127.0.0.1:0", "--state-dir", state, "--record", rec,
              "--delay-save-ms", delay, (char *) NULL);
        _exit(127);
    }
    for (int i = 0; pid > 0 && i < 600; i++) {
        FILE *pp = fopen(pf, "r");
        if (pp) {
            int ok = fscanf(pp, "%d", port) == 1;
            fclose(pp);
            if (ok)
                return pid;
        }
        usleep(50 * 1000);
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    return -1;
}

static void
agent_stop(pid_t pid)
{
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

/* How many lines of the agent's log hold 'text'. */
static int
agent_said(const char *text)
{
    char path[300], line[1024];
    int n = 0;
    snprintf(path, sizeof path, "%s/dc2-agent.log", dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* How many messages of type 'type' for tag 'tag' dir/'record' holds. */
static int
agent_got(const char *record, const char *type, const char *tag)
{
    char path[300], line[2048], t[80], g[80];
    int n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, record);
    snprintf(t, sizeof t, "\"type\":\"%s\"", type);
    snprintf(g, sizeof g, "\"%s\"", tag);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, t) && strstr(line, g);
    if (f)
        fclose(f);
    return n;
}

/* The certificates of the coordinator (lr_test_ctl_remote_dc2()) and
 * of dc2, and a CA file of both, into ca[220]; 0, or -1 (skipped). */
static int
agent_certs(const char *cert, char *ca)
{
    char dkey[220], dcert[220], cmd[800];
    snprintf(dkey, sizeof dkey, "%s/dc2.key", dir);
    snprintf(dcert, sizeof dcert, "%s/dc2.pem", dir);
    snprintf(ca, 220, "%s/ca-both.pem", dir);
    snprintf(cmd, sizeof cmd, "cat %s %s > %s", cert, dcert, ca);
    return lr_test_self_signed(dkey, dcert, "dc2") || system(cmd) ? -1 : 0;
}

/* dc2's real agent behind a proxy of the test's (dropping nothing yet),
 * the coordinator's certificates, and a controller of remote dc2. */
struct dc2 {
    struct lr_cluster *remote;
    char key[200], cert[200], ca[220];
    int port;                         /* the agent's */
    pid_t agent;
    struct proxy px;
};

/* Starts the agent with its state in dir/'state' and its messages in
 * dir/'record'; 0, or -1 when it cannot be (the caller skips; nothing
 * left running). */
static int
dc2_start(struct dc2 *d, const char *state, const char *record)
{
    memset(d, 0, sizeof *d);
    d->agent = -1;
    if (!(d->remote = lr_test_ctl_remote_dc2(dir, d->key, d->cert)))
        return -1;
    if (agent_certs(d->cert, d->ca)
        || (d->agent = agent_start(d->ca, &d->port, state, record, 0)) < 0) {
        fprintf(stderr, "no lightrail agent: skipped\n");
        lr_cluster_free(d->remote);
        return -1;
    }
    CU_ASSERT_EQUAL_FATAL(proxy_start(&d->px, d->port), 0);
    atomic_store(&d->px.drop, 0);
    d->remote->dcs[1].remote_port = d->px.port;
    return 0;
}

/* A controller over database 'name' (under dir) planning with d's agent,
 * 'timeout_s' for each of its answers; its RELEASEs queued counted in
 * '*queued'. */
static struct lr_ctl *
dc2_ctl(struct dc2 *d, const char *name, int timeout_s, int *queued)
{
    char path[200], err[1024], *report = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct lr_ctl_config cfg = { .topo = topo, .cluster = d->remote,
                                 .default_driver = "dummy",
                                 .dummy_dir = devdir, .db_path = path,
                                 .agent_cert = d->cert, .agent_key = d->key,
                                 .agent_ca = d->ca,
                                 .agent_timeout_s = timeout_s };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    lr_ctl_set_release_hook(c, count_hook, queued);
    return c;
}

static void
dc2_stop(struct dc2 *d)
{
    agent_stop(d->agent);
    proxy_stop(&d->px);
    lr_cluster_free(d->remote);
}

/* An admission that plans with the agents on the owner's thread sends
 * the RELEASEs queued first, and those of its own name are not sent
 * again before its COMMIT (it sent each twice): the COMMIT releases a
 * leftover of its name itself (EEXIST).  Nor are they queued twice when
 * the COMMIT fails too.  dc2's agent saves its reservations 5 s late,
 * over the coordinator's 2 s (margins for a loaded machine): a RELEASE
 * that frees a reservation, and a COMMIT, go unanswered; one of nothing
 * (ENOENT) is answered. */
static void
test_admission_sends_its_release_once(void)
{
    char err[1024];
    struct dc2 d;
    int queued = 0;
    if (dc2_start(&d, "dup", "dup1.jsonl"))
        return;
    struct lr_ctl *c = dc2_ctl(&d, "dup.db", 2, &queued);
    struct lr_intent in = intent("dup", 64);
    in.gpus_min = 30;
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(agent_said("'dup' committed"), 1);
    /* Deleted: its RELEASE waits, untried. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete(c, "dup", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_releases_pending(c), 1);

    /* The agent again, slow to save, holding dup; a job of that name. */
    agent_stop(d.agent);
    d.agent = agent_start(d.ca, &d.port, "dup", "dup2.jsonl", 5000);
    CU_ASSERT_FATAL(d.agent > 0);
    atomic_store(&d.px.to, d.port);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    /* The queued RELEASE (unanswered), the COMMIT's (unanswered): the
     * first was not sent again before the COMMIT. */
    CU_ASSERT_EQUAL(agent_got("dup2.jsonl", "release", "dup"), 2);
    CU_ASSERT_EQUAL(agent_got("dup2.jsonl", "commit", "dup"), 1);
    /* One RELEASE of dup at dc2 waits to be tried again, not two. */
    CU_ASSERT_EQUAL(lr_ctl_releases_retrying(c), 1);
    lr_ctl_free(c);
    dc2_stop(&d);
}

/* A plan made with the agents off the owner's thread and committed at
 * them is held there under its intent's name until its admission takes
 * it (lr_ctl_plan_end keeps it): a KEEP sent meanwhile (an op between
 * the plan's end and the admission, lr_ctl API only: lightraild admits
 * at once) must list that name, or the agent frees the devices of the
 * job then admitted.  dc2's agent, behind a proxy, owes the start's
 * KEEP (dropped); the plan's op carries it first (dropped too) and then
 * reaches the agent; RELEASEs then carry it, answered. */
static void
test_keep_lists_a_kept_plan(void)
{
    char err[1024], path[200];
    struct dc2 d;
    int queued = 0;
    if (dc2_start(&d, "keep", "keep.jsonl"))
        return;
    /* The proxy drops the start's KEEP. */
    atomic_store(&d.px.drop, -1);
    /* A job with a stage at dc2 only, whose DELETE queues a RELEASE. */
    struct lr_store *st;
    struct lr_job old = { .phase = LR_JOB_ACTIVE };
    old.intent = intent("old", 4);
    old.plan.n_stages = 1;
    old.plan.stages[0] = (struct lr_stage) { .dc = 1, .g = 0 };
    snprintf(path, sizeof path, "%s/kept-plan.db", dir);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(path, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_store_put_job(st, &old), 0);
    lr_store_close(st);
    struct lr_ctl *c = dc2_ctl(&d, "kept-plan.db", 5, &queued);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 1);

    /* The plan: its KEEP dropped, then the plan reaches dc2. */
    atomic_store(&d.px.drop, 1);
    struct lr_intent in = intent("kp", 64);
    in.gpus_min = 30;
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_plan_begin(c, &in, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_ctl_op_run(op);
    lr_ctl_plan_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 1);
    CU_ASSERT_EQUAL(agent_said("'kp' committed"), 1);

    /* Before its admission, RELEASEs carry the KEEP owed. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_delete(c, "old", err, sizeof err), 0);
    CU_ASSERT_EQUAL(queued, 1);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_release_begin(c, &op), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_ctl_op_run(op);
    lr_ctl_release_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_keeps_due(c), 0);
    CU_ASSERT_EQUAL(agent_said("'old' released"), 0);   /* never held */
    /* The KEEP kept kp's devices at dc2 for its admission. */
    CU_ASSERT_EQUAL(agent_said("'kp' released"), 0);
    struct lr_job job;
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(agent_said("'kp' committed"), 1);
    bool at_dc2 = false;
    for (int s = 0; s < job.plan.n_stages; s++)
        at_dc2 |= job.plan.stages[s].dc == 1 && job.plan.stages[s].g == 0;
    CU_ASSERT(at_dc2);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "kp", err, sizeof err), 0);
    lr_ctl_free(c);
    CU_ASSERT_EQUAL(agent_said("'kp' released"), 1);
    dc2_stop(&d);
}

static CU_TestInfo tests[] = {
    { "begin, run, end: in flight, refusals, a second job, release",
      test_steps },
    { "a failure in the device step rolls the reservation back",
      test_failure_rolls_back },
    { "an agent down stays down across a new network that keeps it",
      test_agent_down_across_a_new_network },
    { "a new inventory drops the plans it no longer fits",
      test_inventory_drops_stale_plans },
    { "reconcile in three steps: reads meanwhile, the synchronous report, "
      "work in flight ahead not judged", test_reconcile_steps },
    { "the worker: order, the loop's thread, free finishes",
      test_worker },
    { "a recovery report longer than a line comes back whole",
      test_long_recovery_report },
    { "the jobs' clock is the configuration's", test_clock },
    { "a new network sends the RELEASEs queued for the old agents",
      test_new_network_sends_queued_releases },
    { "SIGHUP's TLS reload waits while RELEASEs hold the agents",
      test_reload_tls_waits_for_the_agents },
    { "a KEEP lists a plan committed and not yet admitted",
      test_keep_lists_a_kept_plan },
    { "an admission on the owner's thread sends its name's RELEASE once",
      test_admission_sends_its_release_once },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("controller-async", tests, setup, lr_test_ctl_teardown)
