/*
 * The controller core on the metro example with dummy ROADMs: admission,
 * the devices programmed, all-or-nothing on a device failure, release,
 * restart, recovery of a job caught in provisioning, and reconciliation.
 * After every step lr_ctl_check() proves that memory, store and devices
 * agree.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controller/lr_ctl.h"
#include "controller/lr_ctl_int.h"
#include "controller/lr_store.h"
#include "tests/unit/lr_test_ctl.h"
#include "tests/unit/lr_test_dev.h"

static int
setup(void)
{
    return lr_test_ctl_setup("ctl");
}

static struct lr_ctl *
open_ctl(void)
{
    struct lr_ctl_config cfg = { 0 };
    return lr_test_ctl_open(&cfg);
}

static struct lr_intent
intent(const char *name, const char *model, int gmin, int gmax)
{
    return lr_test_ctl_intent(name, model, gmin, gmax, "cdynp");
}

/* No GPU of any DC is held. */
static bool
holds_nothing(struct lr_ctl *c)
{
    for (int k = 0; k < cluster->n_dcs; k++)
        if (lr_ctl_gpus_used(c)[k])
            return false;
    return true;
}

static void
test_admit_and_release(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent in = intent("j1", "gpt-1.9b", 1, 64);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(job.iteration_s > 0);
    CU_ASSERT(job.plan.n_stages >= 1);
    /* Every inter-DC boundary has a lightpath each way, and each
     * lightpath is a channel on each ROADM of its path. */
    int cross = 0, hops = 0;
    for (int s = 0; s + 1 < job.plan.n_stages; s++)
        cross += job.plan.stages[s].dc != job.plan.stages[s + 1].dc;
    CU_ASSERT_EQUAL(job.n_lightpaths, 2 * cross);
    for (int k = 0; k < job.n_lightpaths; k++)
        hops += job.lp[k].n_links + 1;
    CU_ASSERT_EQUAL(lr_test_ctl_channels("j1/"), hops);
    assert_consistent(c);

    /* Duplicate name and unknown model: refused, nothing changes. */
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), EEXIST);
    struct lr_intent bad = intent("j2", "gpt-42", 1, 8);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &bad, &job, err, sizeof err), EINVAL);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "j2", &job), ENOENT);
    /* More microbatches than the time model takes: said so (it was
     * 'batch 2e+06 is not a multiple of microbatch 1'). */
    bad = intent("j2", "gpt-1.9b", 1, 8);
    bad.batch = 2e6;
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &bad, &job, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "batch 2e+06 over microbatch 1 is 2000000 "
                           "microbatches, more than the 1000000 the time "
                           "model takes: raise microbatch");
    bad.batch = 33;
    bad.micro = 2;
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &bad, &job, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "batch 33 is not a multiple of microbatch 2");
    CU_ASSERT_EQUAL(lr_ctl_get(c, "j2", &job), ENOENT);
    assert_consistent(c);

    /* More GPUs than exist: blocked, with the reason, holding nothing. */
    struct lr_intent big = intent("j3", "bert-large", 1000, 2000);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &big, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "no GPUs"));
    assert_consistent(c);

    CU_ASSERT_EQUAL(lr_ctl_delete(c, "j1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("j1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "j1", err, sizeof err), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "j3", err, sizeof err), 0);
    const int *used = lr_ctl_gpus_used(c);
    for (int k = 0; k < cluster->n_dcs; k++)
        CU_ASSERT_EQUAL(used[k], 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

static void
test_device_failure_leaves_nothing(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    /* Every ROADM fails its next apply: the first device of the first
     * lightpath refuses, the job fails, and nothing is left anywhere. */
    lr_test_ctl_fail(NULL, "always");
    struct lr_intent in = intent("f1", "gpt-1.9b", 1, 64);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    if (job.phase == LR_JOB_ACTIVE) {
        /* A plan inside one DC needs no lightpath: nothing to fail. */
        CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    } else {
        CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused"));
        CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    }
    CU_ASSERT_EQUAL(lr_test_ctl_channels("f1/"), 0);
    lr_test_ctl_fail(NULL, NULL);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "f1", err, sizeof err), 0);
    lr_ctl_free(c);
}

static void
test_restart_recovery_reconcile(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job, again;
    char err[1024];
    struct lr_intent in = intent("r1", "gpt-1.9b", 1, 64);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    lr_ctl_free(c);

    /* A restart keeps the job and what it holds. */
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "r1", &again), 0);
    CU_ASSERT_EQUAL(again.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(again.n_lightpaths, job.n_lightpaths);
    assert_consistent(c);
    lr_ctl_free(c);

    /* A crash in the middle of provisioning: the store says provisioning
     * and the devices hold the channels.  Recovery rolls it back. */
    struct lr_store *st;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(st, "r1", LR_JOB_PROVISIONING, "",
                                       0), 0);
    lr_store_close(st);
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "r1", &again), 0);
    CU_ASSERT_EQUAL(again.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(again.n_lightpaths, 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("r1/"), 0);
    assert_consistent(c);

    /* An orphan channel on a device: reported, then removed. */
    struct sb_device_config dc = { .driver = "dummy" };
    snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[0].name);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    struct sb_device *d;
    struct sb_change ch = { .op = SB_ADD };
    snprintf(ch.mc.name, sizeof ch.mc.name, "ghost/lp1");
    ch.mc.n = -280;
    ch.mc.m = 4;
    CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_dummy_class.apply(d, &ch, 1, err, sizeof err), 0);
    sb_dummy_class.close(d);
    char *report = NULL;
    int drift = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 1);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "ghost/lp1"));
    free(report);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("ghost/"), 1);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, NULL, &drift, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("ghost/"), 0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "r1", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The zone baseline through admission: GPT-1.9B fits in one metro DC,
 * so it stays in one, with no lightpath; the one of least T alone. */
static void
test_zone_admission(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent in = intent("z1", "gpt-1.9b", 1, 64);
    snprintf(in.algorithm, sizeof in.algorithm, "zone");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(job.plan.n_stages >= 1);
    for (int s = 1; s < job.plan.n_stages; s++)
        CU_ASSERT_EQUAL(job.plan.stages[s].dc, job.plan.stages[0].dc);
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "z1", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* Intent 'name' for its own model 'model': gpt-1.9b's shape with
 * 'layers' layers. */
static struct lr_intent
custom_intent(const char *name, const char *model, int layers)
{
    struct lr_intent in = intent(name, model, 1, 64);
    CU_ASSERT_EQUAL_FATAL(lr_model_preset_shape("gpt-1.9b", &in.shape), 0);
    in.shape.layers = layers;
    in.custom = true;
    return in;
}

/* Plans are remembered by model (struct plan_memo): an intent that gives
 * its own shape a name used before, by another intent's shape or by a
 * preset, gets a plan of its own layers, not the one remembered. */
static void
test_memo_knows_shapes(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent deep = custom_intent("m1", "mine", 48);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &deep, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(job.plan.stages[job.plan.n_stages - 1].last, 47);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "m1", err, sizeof err), 0);

    /* The same name and the same free devices, four layers. */
    struct lr_intent shallow = custom_intent("m2", "mine", 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &shallow, &job, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(job.plan.stages[job.plan.n_stages - 1].last, 3);
    CU_ASSERT(isfinite(job.iteration_s) && job.iteration_s > 0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "m2", err, sizeof err), 0);

    /* A preset's name on a shape of one's own, after the preset. */
    struct lr_intent preset = intent("m3", "gpt-1.9b", 1, 64);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &preset, &job, err, sizeof err),
                          0);
    int preset_last = job.plan.stages[job.plan.n_stages - 1].last;
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "m3", err, sizeof err), 0);
    struct lr_intent named = custom_intent("m4", "gpt-1.9b", 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &named, &job, err, sizeof err), 0);
    CU_ASSERT(preset_last > 3);
    CU_ASSERT_EQUAL(job.plan.stages[job.plan.n_stages - 1].last, 3);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "m4", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* A plan off the owner's thread (lr_ctl_plan_begin): run and ended, it
 * is the memo's, and the admission takes it (the same plan as the same
 * intent admitted later on this thread, which the memo answers too);
 * nothing to plan off the thread for a question the memo knows, a zone
 * intent, a name taken, or an intent blocked for GPUs; a ppo intent
 * without a policy asks CDynP's question; a plan that ends after the
 * network was replaced is not kept. */
static void
test_plan_off_thread(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job, again;
    struct lr_ctl_op *op = NULL;
    char err[1024];
    struct lr_intent in = intent("p1", "gpt-1.9b", 1, 64);
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &in, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    CU_ASSERT_STRING_EQUAL(lr_ctl_op_job(op), "p1");
    CU_ASSERT(holds_nothing(c));
    lr_ctl_op_run(op);
    lr_ctl_plan_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->plans_off_loop, 1);
    /* Known now: nothing to plan off the thread. */
    op = NULL;
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &in, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(job.plan.n_stages >= 1);
    /* The name is taken; ppo and zone are not the memo's; 10,000 GPUs
     * are blocked before any plan. */
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &in, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    struct lr_intent other = intent("p2", "bert-large", 1, 64);
    snprintf(other.algorithm, sizeof other.algorithm, "zone");
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &other, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    struct lr_intent huge = intent("p3", "bert-large", 10000, 10000);
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &huge, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "p1", err, sizeof err), 0);
    /* The same question on this thread: the memo's plan again. */
    in.name[1] = '4';
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &again, err, sizeof err), 0);
    CU_ASSERT_EQUAL(again.plan.n_stages, job.plan.n_stages);
    CU_ASSERT(!memcmp(again.plan.stages, job.plan.stages,
                      (size_t) job.plan.n_stages * sizeof *job.plan.stages));
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "p4", err, sizeof err), 0);

    /* ppo without a policy (none is configured here) is CDynP's: its
     * question, that of a cdynp intent, is planned off the thread. */
    struct lr_intent ppo = intent("p6", "bert-large", 1, 32);
    snprintf(ppo.algorithm, sizeof ppo.algorithm, "ppo");
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &ppo, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_ctl_op_run(op);
    lr_ctl_plan_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->plans_off_loop, 2);
    snprintf(ppo.algorithm, sizeof ppo.algorithm, "cdynp");
    op = NULL;
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &ppo, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(op);

    /* Begun on one network, ended on another: not kept. */
    other = intent("p5", "bert-large", 1, 64);
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &other, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_ctl_op_run(op);
    CU_ASSERT_EQUAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL, err,
                                         sizeof err), 0);
    lr_ctl_plan_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->plans_off_loop, 2);
    op = NULL;
    CU_ASSERT_EQUAL(lr_ctl_plan_begin(c, &other, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    lr_ctl_op_run(op);
    lr_ctl_plan_end(c, op);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->plans_off_loop, 3);
    assert_consistent(c);
    lr_ctl_free(c);
}

static bool
same_used(const int *before, struct lr_ctl *c)
{
    return !memcmp(before, lr_ctl_gpus_used(c),
                   (size_t) cluster->n_dcs * sizeof *before);
}

/* A store that refuses a write (here a trigger; a full or failing disk
 * in life) leaves memory saying what the store says: a DELETE it cannot
 * record frees nothing, so that the retry frees it once, and an
 * admission it cannot record active stays provisioning, holding what
 * it holds, until a DELETE or a restart. */
static void
test_store_failure_frees_nothing(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    int used[LR_TM_MAX_DCS];
    /* More GPUs than a metro DC has: a pipeline over two, lightpaths. */
    struct lr_intent wide = intent("s1", "gpt-1.9b", 40, 40);
    struct lr_intent small = intent("s2", "bert-large", 1, 4);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_FATAL(job.n_lightpaths > 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &small, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(job.n_lightpaths, 0);
    lr_ctl_free(c);

    lr_test_ctl_db_exec(
        db, "CREATE TRIGGER test_no_delete BEFORE DELETE ON jobs "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    c = open_ctl();
    memcpy(used, lr_ctl_gpus_used(c), (size_t) cluster->n_dcs * sizeof *used);
    for (int attempt = 0; attempt < 2; attempt++) {
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "s1", err, sizeof err), EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "DELETE it again"));
        CU_ASSERT(same_used(used, c));
        CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), 0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "s2", err, sizeof err), EIO);
        CU_ASSERT(same_used(used, c));
        CU_ASSERT_EQUAL(lr_ctl_get(c, "s2", &job), 0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    }
    lr_ctl_free(c);

    lr_test_ctl_db_exec(
        db, "DROP TRIGGER test_no_delete;"
            "CREATE TRIGGER test_no_active BEFORE UPDATE OF phase ON jobs "
            "WHEN NEW.phase = 'active' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    c = open_ctl();
    /* Recovery at the restart has finished s1's release. */
    CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), ENOENT);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("s1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "s2", err, sizeof err), 0);
    CU_ASSERT(holds_nothing(c));
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "stays provisioning"));
    CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_PROVISIONING);
    CU_ASSERT(job.n_lightpaths > 0);
    for (int k = 0; k < cluster->n_dcs; k++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[k], job.gpus[k]);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "s1", err, sizeof err), 0);
    CU_ASSERT(holds_nothing(c));
    CU_ASSERT_EQUAL(lr_test_ctl_channels("s1/"), 0);
    assert_consistent(c);
    lr_ctl_free(c);

    /* A device refuses and the store cannot record the job failed: the
     * store still holds it provisioning with its GPUs and slots, so
     * memory must too, or the next job is given slots the store refuses
     * ("link 11 slot 0 is already held by job 's1'"). */
    lr_test_ctl_db_exec(
        db, "DROP TRIGGER test_no_active;"
            "CREATE TRIGGER test_no_failed BEFORE UPDATE OF phase ON jobs "
            "WHEN NEW.phase = 'failed' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;"
            "CREATE TRIGGER test_no_delete BEFORE DELETE ON jobs "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    c = open_ctl();
    lr_test_ctl_fail(NULL, "always");
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "injected failure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "stays provisioning"));
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_PROVISIONING);
    CU_ASSERT(job.n_lightpaths > 0);
    for (int k = 0; k < cluster->n_dcs; k++)
        CU_ASSERT_EQUAL(lr_ctl_gpus_used(c)[k], job.gpus[k]);
    /* Its DELETE the store cannot finish: releasing, and no longer with
     * the reason that said it stays provisioning (the store cleared it
     * when the job became releasing; memory kept it). */
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "s1", err, sizeof err), EIO);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_PTR_NULL(strstr(job.reason, "stays provisioning"));
    lr_ctl_free(c);
    lr_test_ctl_db_exec(db, "DROP TRIGGER test_no_delete;");
    c = open_ctl();
    /* Recovery at the restart has finished s1's release. */
    CU_ASSERT_EQUAL(lr_ctl_get(c, "s1", &job), ENOENT);
    CU_ASSERT(holds_nothing(c));
    CU_ASSERT_EQUAL(lr_test_ctl_channels("s1/"), 0);
    lr_ctl_free(c);
    lr_test_ctl_db_exec(db, "DROP TRIGGER test_no_failed;");
    c = open_ctl();
    assert_consistent(c);
    lr_ctl_free(c);
}

/* A store that lost a lightpath's row (here deleted by hand; a corrupt
 * index hides it alike) while its slots remain: the start refuses it
 * before recovery touches a device.  It loaded the job without that
 * lightpath, and recovery removed the lightpath's channels from every
 * ROADM as orphans. */
static void
test_corrupt_store_touches_no_device(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024], *report = NULL;
    struct lr_intent wide = intent("k1", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_FATAL(job.n_lightpaths > 1);
    int before = lr_test_ctl_channels("k1/");
    CU_ASSERT(before > 0);
    lr_ctl_free(c);

    lr_test_ctl_db_exec(
        db, "DELETE FROM lightpaths WHERE job = 'k1' AND idx = 1");
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = topo, .cluster = cluster,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    c = NULL;
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), EIO);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "lightpath 1, which does not exist"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "restore a backup"));
    CU_ASSERT_EQUAL(lr_test_ctl_channels("k1/"), before);
    free(report);
    lr_ctl_free(c);
    /* Mended (the job deleted by hand), it starts, and its channels
     * go as orphans. */
    lr_test_ctl_db_exec(
        db, "PRAGMA foreign_keys = ON; DELETE FROM jobs WHERE name = 'k1'");
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_test_ctl_channels("k1/"), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* A start that fails after the store opened (here a terminal for a DC
 * the inventory lacks; a topology or inventory file with a wrong name
 * alike) must not have seeded the store with the files' network: the
 * files seed a store that holds none (lr_stored.h), so the operator's
 * fix of a file was ignored at every later start, which took the
 * network stored by the failed one and failed the same way. */
static void
test_failed_start_stores_no_network(void)
{
    char path[256], err[1024], *report = NULL, *json = NULL;
    snprintf(path, sizeof path, "%s/failed-start.db", dir);
    struct sb_terminal term = { .dc = "nowhere", .node = "t1" };
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = topo, .cluster = cluster,
        .topo_json = "{\"ietf-network:networks\":{}}",
        .cluster_json = "{\"lightrail-compute:compute\":{}}",
        .default_driver = "dummy", .dummy_dir = devdir,
        .terminals = &term, .n_terminals = 1,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "'nowhere'"));
    free(report);
    struct lr_store *st = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(path, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_get_doc(st, "topology", &json), ENOENT);
    free(json);
    json = NULL;
    CU_ASSERT_EQUAL(lr_store_get_doc(st, "cluster", &json), ENOENT);
    free(json);
    lr_store_close(st);
    /* Fixed, the start stores them. */
    cfg.n_terminals = 0;
    c = lr_test_ctl_open(&cfg);
    lr_ctl_free(c);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(path, &st, err, sizeof err), 0);
    json = NULL;
    CU_ASSERT_EQUAL(lr_store_get_doc(st, "topology", &json), 0);
    CU_ASSERT_PTR_NOT_NULL(json && strstr(json, "ietf-network"));
    free(json);
    lr_store_close(st);
}

/* Starts lightrail on 'network' and 'inventory' in place of the stored
 * ones and asserts it is refused (EINVAL) for a job beyond them, with
 * 'want' in the reason, no device touched: the channels under 'prefix'
 * are 'channels' still. */
static void
assert_start_refused(const struct lr_topo *network,
                     const struct lr_cluster *inventory, const char *want,
                     const char *prefix, int channels)
{
    char err[1024], *report = NULL;
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = network, .cluster = inventory,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "which the network does not have"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no device was touched"));
    if (!strstr(err, want))
        fprintf(stderr, "start beyond the network: %s\n", err);
    CU_ASSERT_EQUAL(lr_test_ctl_channels(prefix), channels);
    free(report);
    lr_ctl_free(c);
}

/* A store whose jobs name links the network does not have (its
 * documents replaced by files of another network, as docs/controller.md
 * tells how for files "of the same network"; a hand edit): the start
 * read the topology's links out of bounds to name the ROADMs of a job
 * it rolled back, and refused an active one for slots that "collide".
 * It is now refused, naming the job, the link and the network's size,
 * before a device is touched. */
static void
test_jobs_beyond_the_network(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent wide = intent("b1", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_FATAL(job.n_lightpaths > 0);
    int before = lr_test_ctl_channels("b1/");
    CU_ASSERT(before > 0);
    lr_ctl_free(c);
    /* The network of that name with fewer links: the job's last link is
     * beyond it. */
    int top = 0;
    for (int k = 0; k < job.n_lightpaths; k++)
        for (int i = 0; i < job.lp[k].n_links; i++)
            top = job.lp[k].links[i] > top ? job.lp[k].links[i] : top;
    struct lr_topo *small = lr_topo_clone(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(small);
    small->n_links = top;
    for (int phase = 0; phase < 2; phase++) {
        lr_test_ctl_db_exec(db, phase ? "UPDATE jobs SET phase = "
                                        "'provisioning' WHERE name = 'b1'"
                                      : "SELECT 1");
        assert_start_refused(small, cluster, "job b1: lightpath ", "b1/",
                             before);
    }
    lr_topo_free(small);
    /* On its own network it starts, and rolls the job back. */
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "b1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("b1/"), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "b1", err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* The files of another network put in the place of the stored one as
 * docs/controller.md says for files of the same network (the stored
 * documents deleted, the files seed the store again): 3418f49 refuses
 * the start for the jobs they do not fit, and says to put back the
 * topology and inventory the jobs were planned on; but the start had
 * stored the files' network first, and every later start took that one
 * and ignored the files put back, refused the same way.  A start so
 * refused stores no network. */
static void
test_jobs_beyond_the_files_store_nothing(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024], *report = NULL, *json = NULL;
    struct lr_intent wide = intent("b2", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &wide, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    int top = 0;
    for (int k = 0; k < job.n_lightpaths; k++)
        for (int i = 0; i < job.lp[k].n_links; i++)
            top = job.lp[k].links[i] > top ? job.lp[k].links[i] : top;
    struct lr_topo *small = lr_topo_clone(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(small);
    small->n_links = top;
    lr_test_ctl_db_exec(
        db, "DELETE FROM docs WHERE key IN ('topology', 'cluster')");
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = small, .cluster = cluster,
        .topo_json = "{\"ietf-network:networks\":{}}",
        .cluster_json = "{\"lightrail-compute:compute\":{}}",
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    c = NULL;
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "which the network does not have"));
    free(report);
    lr_topo_free(small);
    struct lr_store *st = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_get_doc(st, "topology", &json), ENOENT);
    free(json);
    json = NULL;
    CU_ASSERT_EQUAL(lr_store_get_doc(st, "cluster", &json), ENOENT);
    free(json);
    lr_store_close(st);
    /* On its own network it starts, the job as it was. */
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "b2", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "b2", err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* The data centers' side of 3418f49's check (job_fits_network()): a
 * stored job's lightpath ending in, or its only stage in, a data center
 * the inventory does not have refuses the start, naming them; before
 * only the links' side was tested.  The stage's case is a job of one
 * data center moved by hand to one past the inventory (the store checks
 * that its GPUs and stages agree, not that the data center exists). */
static void
test_jobs_beyond_the_inventory(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job wide, one;
    char err[1024], sql[256];
    struct lr_intent in = intent("b3", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &wide, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(wide.phase, LR_JOB_ACTIVE);
    CU_ASSERT_FATAL(wide.n_lightpaths > 0);
    in = intent("b4", "gpt-1.9b", 1, 1);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &one, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(one.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(one.n_lightpaths, 0);
    int channels = lr_test_ctl_channels("b3/");
    CU_ASSERT(channels > 0);
    lr_ctl_free(c);

    /* The inventory without the last data center the wide job's
     * lightpaths reach. */
    int top = 0;
    for (int k = 0; k < wide.n_lightpaths; k++) {
        top = wide.lp[k].from_dc > top ? wide.lp[k].from_dc : top;
        top = wide.lp[k].to_dc > top ? wide.lp[k].to_dc : top;
    }
    CU_ASSERT_FATAL(top > 0);
    struct lr_cluster *fewer = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fewer);
    fewer->n_dcs = top;
    int n_links = 0;    /* and without the links that reach it */
    for (int i = 0; i < fewer->n_links; i++)
        if (fewer->links[i].a < top && fewer->links[i].b < top)
            fewer->links[n_links++] = fewer->links[i];
    fewer->n_links = n_links;
    assert_start_refused(topo, fewer, "job b3: lightpath ", "b3/", channels);
    lr_cluster_free(fewer);

    /* The wide job gone, the one-DC job moved past the inventory. */
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "b3", err, sizeof err), 0);
    lr_ctl_free(c);
    snprintf(sql, sizeof sql, "UPDATE stages SET dc = %d WHERE job = 'b4'",
             cluster->n_dcs);
    lr_test_ctl_db_exec(db, sql);
    snprintf(sql, sizeof sql, "UPDATE gpus SET dc = %d WHERE job = 'b4'",
             cluster->n_dcs);
    lr_test_ctl_db_exec(db, sql);
    struct lr_cluster *same = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(same);
    char want[64];
    snprintf(want, sizeof want, "job b4: stage 0 is in data center %d",
             cluster->n_dcs);
    assert_start_refused(topo, same, want, "b4/", 0);
    lr_cluster_free(same);
    /* Put back, it starts with the job as it was. */
    snprintf(sql, sizeof sql, "UPDATE stages SET dc = %d WHERE job = 'b4'",
             one.plan.stages[0].dc);
    lr_test_ctl_db_exec(db, sql);
    snprintf(sql, sizeof sql, "UPDATE gpus SET dc = %d WHERE job = 'b4'",
             one.plan.stages[0].dc);
    lr_test_ctl_db_exec(db, sql);
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "b4", &one), 0);
    CU_ASSERT_EQUAL(one.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "b4", err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* Replaces channel 'mc' on dummy ROADM 'node' by 'with' (the same
 * name), behind the controller's back. */
static void
tamper(const char *node, const struct sb_media_channel *mc,
       const struct sb_media_channel *with)
{
    struct sb_device_config dc = { .driver = "dummy" };
    snprintf(dc.name, sizeof dc.name, "%s", node);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    struct sb_device *d;
    struct sb_change ch[2] = { { .op = SB_DELETE, .mc = *mc },
                               { .op = SB_ADD, .mc = *with } };
    char err[512];
    CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_dummy_class.apply(d, ch, 2, err, sizeof err), 0);
    sb_dummy_class.close(d);
}

/* The first channel of 'prefix' on any ROADM: its node in node[size]. */
static bool
first_channel(const char *prefix, char *node, size_t size,
              struct sb_media_channel *out)
{
    for (int i = 0; i < topo->n_nodes; i++) {
        struct sb_device_config dc = { .driver = "dummy" };
        snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[i].name);
        snprintf(dc.address, sizeof dc.address, "%s", devdir);
        struct sb_device *d;
        struct sb_media_channel *mc = NULL;
        int n = 0;
        char err[256];
        bool found = false;
        if (sb_dummy_class.open(&dc, &d, err, sizeof err))
            continue;
        if (!sb_dummy_class.read(d, &mc, &n, err, sizeof err))
            for (int k = 0; k < n && !found; k++)
                if (!strncmp(mc[k].name, prefix, strlen(prefix))) {
                    *out = mc[k];
                    snprintf(node, size, "%s", topo->nodes[i].name);
                    found = true;
                }
        free(mc);
        sb_dummy_class.close(d);
        if (found)
            return true;
    }
    return false;
}

/* A channel of an active job that is on its device but not as the store
 * has it (another port, disabled) is one difference, replaced by the
 * repair; a repair the device refuses is EIO and its line says it was
 * not done. */
static void
test_reconcile_replaces_what_differs(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024], node[SB_NAME_MAX], *report = NULL;
    int drift = -1;
    struct lr_intent in = intent("d1", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_FATAL(job.n_lightpaths > 0);
    struct sb_media_channel mc, odd;
    CU_ASSERT_FATAL(first_channel("d1/", node, sizeof node, &mc));
    int total = lr_test_ctl_channels("d1/");

    odd = mc;
    snprintf(odd.out_port, sizeof odd.out_port, "elsewhere");
    tamper(node, &mc, &odd);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 1);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "differs from the store"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "-> elsewhere"));
    CU_ASSERT_PTR_NULL(report && strstr(report, "missing"));
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, ": replaced"));
    free(report);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("d1/"), total);
    assert_consistent(c);

    /* Disabled on the device: a difference too.  The device refuses
     * every change: EIO, and nothing claimed. */
    odd = mc;
    odd.enabled = false;
    tamper(node, &mc, &odd);
    lr_test_ctl_fail(node, "always");
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), EIO);
    CU_ASSERT_EQUAL(drift, 1);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "disabled"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "not replaced"));
    CU_ASSERT_PTR_NULL(report && strstr(report, ": replaced"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the repair failed"));
    free(report);
    lr_test_ctl_fail(node, NULL);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, NULL, &drift, err, sizeof err),
                    0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "d1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("d1/"), 0);
    lr_ctl_free(c);
}

/* A repair sent one change at a time stops at a ROADM that does not
 * answer (sb_parallel, sb_unanswered()): the report says of the change
 * whose answer was lost that its outcome is unknown (the dummy's
 * 'timeout' made it: a failure it is not), of the next that it was not
 * tried; the next reconciliation reads the device again and finishes. */
static void
test_reconcile_stops_at_silent_device(void)
{
    struct lr_ctl *c = open_ctl();
    const char *r0 = topo->nodes[0].name;
    char err[1024], *report = NULL;
    int drift = -1;
    struct sb_device_config dc = { .driver = "dummy" };
    snprintf(dc.name, sizeof dc.name, "%s", r0);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    struct sb_device *d;
    struct sb_change ch[2] = { { .op = SB_ADD }, { .op = SB_ADD } };
    for (int i = 0; i < 2; i++) {
        snprintf(ch[i].mc.name, sizeof ch[i].mc.name, "x/lp%d", i + 1);
        ch[i].mc.n = 8 * i;
        ch[i].mc.m = 4;
        ch[i].mc.enabled = true;
    }
    CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_dummy_class.apply(d, ch, 2, err, sizeof err), 0);
    sb_dummy_class.close(d);

    lr_test_ctl_fail(r0, "timeout");
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), EIO);
    CU_ASSERT_EQUAL(drift, 2);
    char want[256];
    snprintf(want, sizeof want, "%s: channel x/lp1 (n=0 m=4) is not in the "
             "store: not removed: no answer, the outcome is unknown (a "
             "reconciliation reads the device again)", r0);
    if (!report || !strstr(report, want))
        fprintf(stderr, "report: %s\nwants: %s\n", report, want);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    snprintf(want, sizeof want, "%s: channel x/lp2 (n=8 m=4) is not in the "
             "store: not removed: not tried, the device had stopped "
             "answering", r0);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    free(report);
    report = NULL;
    CU_ASSERT_EQUAL(lr_test_ctl_channels_on(r0, "x/"), 1);
    lr_test_ctl_fail(r0, NULL);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 1);
    free(report);
    CU_ASSERT_EQUAL(lr_test_ctl_channels_on(r0, "x/"), 0);
    lr_ctl_free(c);
}

/* The dummy driver, except that every add answers EHOSTUNREACH and
 * does nothing: a ROADM that stops answering after a repair's removals,
 * before its adds. */
static int
adds_unreached_apply(struct sb_device *dev, const struct sb_change *ch,
                     int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++)
        if (ch[i].op == SB_ADD) {
            snprintf(err, errlen, "unreachable (test: the adds)");
            return EHOSTUNREACH;
        }
    return sb_dummy_class.apply(dev, ch, n, err, errlen);
}

/* A topology node whose dummy ROADM holds two channels or more: its
 * index, the first two into mc[2]; -1 when none does. */
static int
node_with_two_channels(struct sb_media_channel mc[2])
{
    for (int i = 0; i < topo->n_nodes; i++) {
        struct sb_device_config dc = { .driver = "dummy" };
        snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[i].name);
        snprintf(dc.address, sizeof dc.address, "%s", devdir);
        struct sb_device *d;
        struct sb_media_channel *have = NULL;
        int n = 0;
        char err[256];
        if (sb_dummy_class.open(&dc, &d, err, sizeof err))
            continue;
        if (sb_dummy_class.read(d, &have, &n, err, sizeof err))
            n = 0;
        if (n >= 2) {
            mc[0] = have[0];
            mc[1] = have[1];
        }
        free(have);
        sb_dummy_class.close(d);
        if (n >= 2)
            return i;
    }
    return -1;
}

/* The dummy driver's channels, but its first apply is refused (EPROTO,
 * nothing done) and every later one gets no answer (ETIMEDOUT, nothing
 * done): a ROADM that refuses a change and then stops answering. */
static int refused_then_silent_calls;

static int
refused_then_silent_apply(struct sb_device *dev, const struct sb_change *ch,
                          int n, char *err, size_t errlen)
{
    if (refused_then_silent_calls++ == 0) {
        snprintf(err, errlen, "refused (test)");
        return EPROTO;
    }
    snprintf(err, errlen, "no answer (test): the outcome is unknown");
    return ETIMEDOUT;
}

/* A repair's batch on a ROADM that refuses its first change and does
 * not answer its second: the device's last answer is none, so it is
 * down with that reason, though the batch's first failure was an
 * answer of its own (sb_parallel: the item's answer is the one that
 * stopped it).  The lines say each change's fate. */
static void
test_reconcile_refused_then_silent(void)
{
    struct lr_ctl *c = open_ctl();
    const char *r0 = topo->nodes[0].name;
    char err[1024], *report = NULL;
    int drift = -1;
    struct sb_device_config dc = { .driver = "dummy" };
    snprintf(dc.name, sizeof dc.name, "%s", r0);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    struct sb_device *d;
    struct sb_change ch[2] = { { .op = SB_ADD }, { .op = SB_ADD } };
    for (int i = 0; i < 2; i++) {
        snprintf(ch[i].mc.name, sizeof ch[i].mc.name, "y/lp%d", i + 1);
        ch[i].mc.n = 8 * i;
        ch[i].mc.m = 4;
        ch[i].mc.enabled = true;
    }
    CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_dummy_class.apply(d, ch, 2, err, sizeof err), 0);
    sb_dummy_class.close(d);

    struct sb_driver_class odd = sb_dummy_class;
    odd.apply = refused_then_silent_apply;
    const struct sb_driver_class *was = c->cls[0];
    c->cls[0] = &odd;
    refused_then_silent_calls = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), EIO);
    c->cls[0] = was;
    CU_ASSERT_EQUAL(refused_then_silent_calls, 2);
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "y/lp1 (n=0 m=4) is not "
                                            "in the store: not removed: the "
                                            "removal failed"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "y/lp2 (n=8 m=4) is not "
                                            "in the store: not removed: no "
                                            "answer, the outcome is "
                                            "unknown"));
    free(report);
    struct lr_ctl_device_status st = lr_test_device_named(c, r0);
    if (st.up)
        fprintf(stderr, "%s up, reason '%s'\n", r0, st.why);
    CU_ASSERT(!st.up);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "no answer (test)"));
    /* The ROADM back: the next repair removes both, and it is up. */
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, NULL, &drift, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels_on(r0, "y/"), 0);
    CU_ASSERT(lr_test_device_named(c, r0).up);
    lr_ctl_free(c);
}

/* A replaced channel is removed, then applied again (one change at a
 * time): a ROADM that stops answering between the two has lost the
 * job's channel, and the report must say it was removed and not
 * applied again, not that it was "not replaced" (which reads as the old
 * channel still there), whether its add failed or was never sent.  The
 * next reconciliation finds the channels missing and re-applies them. */
static void
test_reconcile_replace_half_done(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024], *report = NULL;
    int drift = -1;
    struct lr_intent in = intent("h1", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    in = intent("h2", "gpt-1.9b", 8, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    struct sb_media_channel mc[2];
    int k = node_with_two_channels(mc);
    CU_ASSERT_FATAL(k >= 0);
    const char *node = topo->nodes[k].name;
    for (int i = 0; i < 2; i++) {
        struct sb_media_channel odd = mc[i];
        snprintf(odd.out_port, sizeof odd.out_port, "elsewhere");
        tamper(node, &mc[i], &odd);
    }
    struct sb_driver_class adds_unreached = sb_dummy_class;
    adds_unreached.apply = adds_unreached_apply;
    const struct sb_driver_class *was = c->cls[k];
    c->cls[k] = &adds_unreached;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), EIO);
    c->cls[k] = was;
    CU_ASSERT_EQUAL(drift, 2);
    if (!report || strstr(report, "not replaced"))
        fprintf(stderr, "report: %s\n", report ? report : "(none)");
    CU_ASSERT_PTR_NULL(report && strstr(report, "not replaced"));
    int removed = 0;
    for (const char *p = report; p && (p = strstr(p, ": removed, not "
                                                   "applied again: "));
         p++)
        removed++;
    CU_ASSERT_EQUAL(removed, 2);
    /* The first add failed, the second was not sent. */
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, ": removed, not applied "
                                            "again: applying it failed"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, ": removed, not applied "
                                            "again: not tried, the device "
                                            "had stopped answering"));
    free(report);
    report = NULL;
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(lr_test_ctl_channels_on(node, mc[i].name), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "is missing: "
                                            "re-applied"));
    free(report);
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(lr_test_ctl_channels_on(node, mc[i].name), 1);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "h1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "h2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("h"), 0);
    lr_ctl_free(c);
}

/* The ROADMs holding channels of 'prefix', into node[max] (names in
 * topo); how many. */
static int
nodes_with(const char *prefix, const char **node, int max)
{
    int n = 0;
    for (int i = 0; i < topo->n_nodes && n < max; i++)
        if (lr_test_ctl_channels_on(topo->nodes[i].name, prefix) > 0)
            node[n++] = topo->nodes[i].name;
    return n;
}

static bool
holds_its_gpus(struct lr_ctl *c, const struct lr_job *job)
{
    for (int k = 0; k < cluster->n_dcs; k++)
        if (lr_ctl_gpus_used(c)[k] != job->gpus[k])
            return false;
    return true;
}

/* Channels a failed add could not remove again (one device refused the
 * add, another lost its answers) keep the job releasing with its GPUs
 * and slots, not failed with its slots free for the next job on them;
 * a restart that cannot remove a job's channels keeps it releasing too.
 * A DELETE finishes both once the devices answer. */
static void
test_channels_left_keep_their_slots(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    const char *node[8];
    struct lr_intent in = intent("p0", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_FATAL(nodes_with("p0/", node, 8) >= 2);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "p0", err, sizeof err), 0);

    /* The same job again takes the same path. */
    lr_test_ctl_fail(node[0], "always");
    lr_test_ctl_fail(node[1], "timeout");
    snprintf(in.name, sizeof in.name, "p1");
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "refused the lightpaths"));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "again failed: the job keeps its slots, DELETE it"));
    CU_ASSERT(job.n_lightpaths > 0);
    CU_ASSERT(holds_its_gpus(c, &job));
    CU_ASSERT(lr_test_ctl_channels_on(node[1], "p1/") > 0);
    lr_test_ctl_fail(node[0], NULL);
    lr_test_ctl_fail(node[1], NULL);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "p1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("p1/"), 0);
    CU_ASSERT(holds_nothing(c));
    assert_consistent(c);

    /* A DELETE the devices refuse, then a restart while they still do. */
    snprintf(in.name, sizeof in.name, "p2");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_test_ctl_fail(node[0], "always");
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "p2", err, sizeof err), 0);
    /* The refusal says what became of the job and what to do. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "job 'p2' stays releasing with its "
                                       "GPUs and slots"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "injected failure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "DELETE it to retry"));
    /* It says why it stays releasing (its reason was empty). */
    CU_ASSERT_EQUAL(lr_ctl_get(c, "p2", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_EQUAL(strncmp(job.reason, "removing its channels failed, "
                            "DELETE it to retry: ", 50), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "injected failure"));
    CU_ASSERT(holds_its_gpus(c, &job));
    lr_ctl_free(c);
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "p2", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "DELETE it to retry"));
    CU_ASSERT(holds_its_gpus(c, &job));
    CU_ASSERT(lr_test_ctl_channels_on(node[0], "p2/") > 0);
    lr_test_ctl_fail(node[0], NULL);
    /* A reconciliation names the job its leftovers belong to, and its
     * phase (it said "not in the store" of a job the store holds). */
    char *report = NULL;
    int drift = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(report);
    CU_ASSERT(drift > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(report, "is of job p2, which is "
                                          "releasing: the store wants none"));
    CU_ASSERT_PTR_NULL(strstr(report, "not in the store"));
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "p2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("p2/"), 0);
    CU_ASSERT(holds_nothing(c));
    assert_consistent(c);
    lr_ctl_free(c);
}

/* An admission whose channels cannot be removed again (one ROADM
 * refuses, another's answer is lost and its removal too) while the store
 * cannot record the job releasing: memory said releasing (it was set
 * before the store was asked) where the store says provisioning, and
 * the error said only "store: ...".  Memory now says what the store
 * says, and the error what became of the job and what to do. */
static void
test_stuck_unrecorded_stays_provisioning(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job, stored;
    char err[1024];
    const char *node[8];
    struct lr_intent in = intent("u0", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_FATAL(nodes_with("u0/", node, 8) >= 2);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "u0", err, sizeof err), 0);
    lr_ctl_free(c);
    lr_test_ctl_db_exec(
        db, "CREATE TRIGGER test_no_releasing BEFORE UPDATE OF phase ON jobs "
            "WHEN NEW.phase = 'releasing' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    c = open_ctl();

    /* The same job again takes the same path. */
    lr_test_ctl_fail(node[0], "always");
    lr_test_ctl_fail(node[1], "timeout");
    snprintf(in.name, sizeof in.name, "u1");
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "job 'u1' stays provisioning"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "DELETE it"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "injected failure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused the lightpaths"));
    CU_ASSERT_EQUAL(lr_ctl_get(c, "u1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_PROVISIONING);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "stays provisioning"));
    CU_ASSERT(holds_its_gpus(c, &job));
    lr_ctl_free(c);
    struct lr_store *st = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(st, "u1", &stored), 0);
    CU_ASSERT_EQUAL(stored.phase, job.phase);
    lr_store_close(st);

    /* Once the devices answer, a restart rolls it back. */
    lr_test_ctl_db_exec(db, "DROP TRIGGER test_no_releasing;");
    lr_test_ctl_fail(node[0], NULL);
    lr_test_ctl_fail(node[1], NULL);
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "u1", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("u1/"), 0);
    CU_ASSERT(holds_nothing(c));
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "u1", err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* The most channels of 'prefix' one ROADM holds. */
static int
most_on_one(const char *prefix)
{
    int most = 0;
    for (int i = 0; i < topo->n_nodes; i++) {
        int n = lr_test_ctl_channels_on(topo->nodes[i].name, prefix);
        most = n > most ? n : most;
    }
    return most;
}

/* Removes the channels of 'prefix' from every dummy ROADM behind the
 * controller's back, as a device does that carries out a removal whose
 * answer is lost. */
static void
remove_behind(const char *prefix)
{
    for (int i = 0; i < topo->n_nodes; i++) {
        struct sb_device_config dc = { .driver = "dummy" };
        struct sb_device *d;
        struct sb_media_channel *mc = NULL;
        int n = 0;
        char e[256];
        snprintf(dc.name, sizeof dc.name, "%s", topo->nodes[i].name);
        snprintf(dc.address, sizeof dc.address, "%s", devdir);
        CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&dc, &d, e, sizeof e), 0);
        CU_ASSERT_EQUAL(sb_dummy_class.read(d, &mc, &n, e, sizeof e), 0);
        for (int k = 0; k < n; k++)
            if (!strncmp(mc[k].name, prefix, strlen(prefix))) {
                struct sb_change ch = { .op = SB_DELETE, .mc = mc[k] };
                CU_ASSERT_EQUAL(sb_dummy_class.apply(d, &ch, 1, e, sizeof e),
                                0);
            }
        free(mc);
        sb_dummy_class.close(d);
    }
}

/* A removal whose answers are lost (ETIMEDOUT: the outcome is unknown)
 * is read back, as an add is: the job stays releasing, saying what is
 * left where, while a ROADM still holds some of its channels or cannot
 * be read, and is deleted, its GPUs and slots freed, once none does.
 * (It stayed releasing, "the outcome is unknown", whatever the devices
 * held, until a DELETE the devices answered.) */
static void
test_timed_out_release_is_read_back(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent in = intent("tr", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    /* A removal stops at a device's first unanswered change: one ROADM
     * holding two channels of the job keeps one, or this proves
     * nothing. */
    CU_ASSERT_FATAL(most_on_one("tr/") == 2);

    /* A ROADM that cannot be read back: the job stays releasing. */
    const char *node[8];
    CU_ASSERT_FATAL(nodes_with("tr/", node, 8) >= 1);
    char state[600], saved[610];
    snprintf(state, sizeof state, "%s/%s.json", devdir, node[0]);
    snprintf(saved, sizeof saved, "%s.saved", state);
    CU_ASSERT_EQUAL_FATAL(rename(state, saved), 0);
    FILE *f = fopen(state, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{ not json", f);
    fclose(f);
    lr_test_ctl_fail(node[0], "timeout");
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "tr", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be read back"));
    CU_ASSERT_EQUAL(lr_ctl_get(c, "tr", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT(holds_its_gpus(c, &job));
    CU_ASSERT_EQUAL_FATAL(rename(saved, state), 0);

    /* Every ROADM loses its answers: some still hold a channel. */
    lr_test_ctl_fail(NULL, "timeout");
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "tr", err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "read back, still holds 1 of the "
                                       "job's 2 channels there"));
    CU_ASSERT_EQUAL(lr_ctl_get(c, "tr", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_EQUAL(strncmp(job.reason, "removing its channels failed, "
                            "DELETE it to retry: ", 50), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "still holds 1"));
    CU_ASSERT(holds_its_gpus(c, &job));
    CU_ASSERT(lr_test_ctl_channels("tr/") > 0);

    /* They remove the rest and lose those answers too: none is left. */
    lr_test_ctl_fail(NULL, NULL);
    remove_behind("tr/");
    lr_test_ctl_fail(NULL, "timeout");
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "tr", err, sizeof err), 0);
    lr_test_ctl_fail(NULL, NULL);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "tr", &job), ENOENT);
    CU_ASSERT(holds_nothing(c));
    assert_consistent(c);
    /* Its slots are free, in the store too: the job is admitted again,
     * after a restart as well. */
    lr_ctl_free(c);
    c = open_ctl();
    CU_ASSERT_EQUAL(lr_ctl_get(c, "tr", &job), ENOENT);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "tr", err, sizeof err), 0);
    assert_consistent(c);
    lr_ctl_free(c);
}

/* A device's message quoted in another message is bounded by a byte
 * count (lr_ctl_op.c: "%.150s" of a read-back's error, "%.200s" of the
 * lost answer's, lr_ctl.c "%.400s"): a cut there inside a character
 * left a job's reason and the DELETE's error no UTF-8, which the store
 * keeps and the job's GET prints with U+FFFD.  Here the dummy ROADMs
 * live in a directory named in 2-byte characters, so that the paths in
 * the messages of a removal neither answered nor read back cross those
 * cuts; one of the two paddings (none, one byte) puts each cut inside a
 * character.  What is cut says so (LR_UTF8_CUT_MARK). */
static void
test_device_message_cut_at_character(void)
{
    char saved[sizeof devdir], store[sizeof db + 16];
    memcpy(saved, devdir, sizeof saved);
    for (int odd = 0; odd < 2; odd++) {
        snprintf(devdir, sizeof devdir, "%s/%s", dir, odd ? "x" : "");
        while (strlen(devdir) + 2 < sizeof devdir)
            strcat(devdir, "\xc3\xa9");
        snprintf(store, sizeof store, "%s/utf8-%d.db", dir, odd);
        struct lr_ctl_config cfg = { .db_path = store };
        struct lr_ctl *c = lr_test_ctl_open(&cfg);
        struct lr_job job;
        char err[1024];
        struct lr_intent in = intent("u8", "gpt-1.9b", 40, 40);
        CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
        const char *node[8];
        CU_ASSERT_FATAL(nodes_with("u8/", node, 8) >= 1);
        char state[600], kept[610];
        snprintf(state, sizeof state, "%s/%s.json", devdir, node[0]);
        snprintf(kept, sizeof kept, "%s.kept", state);
        CU_ASSERT_EQUAL_FATAL(rename(state, kept), 0);
        FILE *f = fopen(state, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs("{ not json", f);
        fclose(f);
        lr_test_ctl_fail(node[0], "timeout");

        CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "u8", err, sizeof err), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be read back"));
        CU_ASSERT(lr_test_utf8("the DELETE's error", err));
        CU_ASSERT_EQUAL(lr_ctl_get(c, "u8", &job), 0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
        CU_ASSERT(lr_test_utf8("the job's reason", job.reason));
        CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, LR_UTF8_CUT_MARK));
        /* The store keeps the reason memory has. */
        lr_ctl_free(c);
        struct lr_store *st = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_store_open(store, &st, err, sizeof err), 0);
        CU_ASSERT_EQUAL(lr_store_get_job(st, "u8", &job), 0);
        CU_ASSERT(lr_test_utf8("the stored reason", job.reason));
        lr_store_close(st);
        /* The ROADM healed, a restart's recovery finishes the release. */
        CU_ASSERT_EQUAL(rename(kept, state), 0);
        lr_test_ctl_fail(node[0], NULL);
        c = lr_test_ctl_open(&cfg);
        CU_ASSERT_EQUAL(lr_ctl_get(c, "u8", &job), ENOENT);
        lr_ctl_free(c);
    }
    memcpy(devdir, saved, sizeof devdir);
}

/* Listed ROADMs without an address, of the dummy driver, keep their
 * state in the dummy devices' directory, as unlisted dummy ones do (they
 * were refused: "the dummy driver needs a state directory as its
 * address").  An unlisted ROADM whose default driver is another has no
 * address to be reached at, and is refused by name rather than with the
 * driver's complaint about settings the configuration gave. */
static void
test_device_list_defaults(void)
{
    struct sb_device_config devs[16];
    char path[300], err[1024], *report = NULL;
    struct lr_ctl *c = NULL;
    CU_ASSERT_FATAL(topo->n_nodes <= 16);
    memset(devs, 0, sizeof devs);
    for (int i = 0; i < topo->n_nodes; i++) {
        snprintf(devs[i].name, sizeof devs[i].name, "%s",
                 topo->nodes[i].name);
        snprintf(devs[i].driver, sizeof devs[i].driver, "dummy");
    }
    snprintf(path, sizeof path, "%s/devlist.db", dir);
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = topo, .cluster = cluster,
        .default_driver = "netconf", .dummy_dir = devdir,
        .devices = devs, .n_devices = topo->n_nodes,
    };
    int rc = lr_ctl_new(&cfg, &c, &report, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_ctl_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(report);
    report = NULL;
    struct lr_job job;
    /* 40 GPUs: more than any one DC holds, so lightpaths. */
    struct lr_intent in = intent("dl1", "gpt-1.9b", 40, 40);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    int hops = 0;
    for (int k = 0; k < job.n_lightpaths; k++)
        hops += job.lp[k].n_links + 1;
    CU_ASSERT(hops > 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("dl1/"), hops);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "dl1", err, sizeof err), 0);
    lr_ctl_free(c);
    c = NULL;

    /* The first ROADM left out: netconf, the default, cannot reach it. */
    cfg.devices = devs + 1;
    cfg.n_devices = topo->n_nodes - 1;
    err[0] = '\0';
    CU_ASSERT_EQUAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(c);
    char want[256];
    snprintf(want, sizeof want, "ROADM %s: not in the configuration's "
             "southbound device list, and the default driver netconf needs "
             "its address (and its keys or CA): list it there",
             topo->nodes[0].name);
    CU_ASSERT_STRING_EQUAL(err, want);
    free(report);
}

/* A plan whose iteration would take longer than lightrail-job can state
 * (decimal64 with 6 fraction digits, under 9.3e12 s) is blocked with the
 * reason: on devices of 10^6 FLOP/s, gpt3-175b's batch of 10^6 samples
 * was admitted at about 2.8e14 s, and every GET of the jobs then failed
 * ("Invalid type decimal64 value").  The same job at batch 8 is
 * planned. */
static void
test_iteration_beyond_the_module(void)
{
    struct lr_cluster *slow = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slow);
    for (int i = 0; i < slow->n_types; i++) {
        slow->types[i].peak_flops = 1e9;
        slow->types[i].efficiency = 0.001;
        slow->types[i].memory_bytes = 1e18;
    }
    char path[300], err[1024], *report = NULL;
    snprintf(path, sizeof path, "%s/slow.db", dir);
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = topo, .cluster = slow,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    struct lr_job job;
    struct lr_intent in = intent("slow", "gpt3-175b", 1, 64);
    in.batch = 1e6;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "more than the 9e+12 s a job "
                                  "may: give it more or faster GPUs or a "
                                  "smaller batch"));
    CU_ASSERT(holds_nothing(c));
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "slow", err, sizeof err), 0);
    in.batch = 8;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT(job.iteration_s > 0 && job.iteration_s <= 9e12);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "slow", err, sizeof err), 0);
    lr_ctl_free(c);
    lr_cluster_free(slow);
}

/* A job whose pipeline crosses a DC that neither file attaches to a
 * ROADM is blocked for that reason, not as "no spectrum ... (?) ... no
 * path between the nodes".  dc3 renamed dcx loses its attachment (the
 * topology attaches dc3); gpt-1.9b's plan on 10 or more GPUs runs over
 * dc3 and dc2 (lightrail plan on the metro cluster). */
static void
test_unattached_dc(void)
{
    struct lr_cluster *cl = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    CU_ASSERT_STRING_EQUAL_FATAL(cl->dcs[2].name, "dc3");
    snprintf(cl->dcs[2].name, sizeof cl->dcs[2].name, "dcx");
    cl->dcs[2].attach_node[0] = '\0';
    char path[300], err[1024], *report = NULL;
    snprintf(path, sizeof path, "%s/unattached.db", dir);
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = topo, .cluster = cl,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    struct lr_job job;
    struct lr_intent in = intent("ux", "gpt-1.9b", 10, 56);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, ": dcx attaches to no ROADM; "
                                  "attach it (lightrail-topology "
                                  "dc-attachment or lightrail-compute "
                                  "attachment-node)"));
    CU_ASSERT(holds_nothing(c));
    lr_ctl_free(c);
    lr_cluster_free(cl);
}

/* Links of 2 slots, all free: 100 Gb/s needs more on any format, so a
 * pipeline over two DCs is blocked, the reason saying what was needed
 * and what there was (lr_rsa_explain), and nothing is held. */
static void
test_no_spectrum_says_why(void)
{
    struct lr_topo *narrow = lr_topo_clone(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(narrow);
    for (int l = 0; l < narrow->n_links; l++)
        narrow->links[l].n_slots = 2;
    char path[300], err[1024], *report = NULL;
    snprintf(path, sizeof path, "%s/narrow.db", dir);
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = narrow, .cluster = cluster,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    struct lr_job job;
    struct lr_intent in = intent("narrow", "gpt-1.9b", 10, 56);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "no spectrum: no lightpath of "
                                  "100 Gb/s or more from dc"));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, " contiguous slots free on "
                                  "every link of any of its "));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "(the longest: 2 slots)"));
    CU_ASSERT(holds_nothing(c));
    lr_ctl_free(c);
    lr_topo_free(narrow);
}

/* DCs with 63-character names make the spectrum refusal about 300 bytes:
 * the reason keeps its end, what the network lacked, in memory and in
 * the store a restart reads (it was cut at 255 bytes, in both). */
static void
test_long_reason_kept_whole(void)
{
    struct lr_topo *narrow = lr_topo_clone(topo);
    struct lr_cluster *cl = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(narrow);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    for (int l = 0; l < narrow->n_links; l++)
        narrow->links[l].n_slots = 2;
    CU_ASSERT_FATAL(cl->n_dcs < 26);
    for (int d = 0; d < cl->n_dcs; d++) {
        char *name = cl->dcs[d].name;
        memset(name, 'x', LR_NAME_MAX - 1);
        name[0] = (char) ('a' + d);
        name[LR_NAME_MAX - 1] = '\0';
    }
    char path[300], err[1024], *report = NULL;
    snprintf(path, sizeof path, "%s/longreason.db", dir);
    struct lr_ctl_config cfg = {
        .db_path = path, .topo = narrow, .cluster = cl,
        .default_driver = "dummy", .dummy_dir = devdir,
    };
    struct lr_ctl *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    struct lr_job job, again;
    struct lr_intent in = intent("long", "gpt-1.9b", 10, 56);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT(strlen(job.reason) > 290);
    const char *tail = "(the longest: 2 slots)";
    size_t n = strlen(job.reason), tn = strlen(tail);
    CU_ASSERT_FATAL(n >= tn);
    CU_ASSERT_STRING_EQUAL(job.reason + n - tn, tail);
    lr_ctl_free(c);

    /* Restarted, from the store. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_new(&cfg, &c, &report, err, sizeof err), 0);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "long", &again), 0);
    CU_ASSERT_STRING_EQUAL(again.reason, job.reason);
    lr_ctl_free(c);
    lr_cluster_free(cl);
    lr_topo_free(narrow);
}

/* gpus min is the fewest free GPUs (within max) the job needs to be
 * planned, not a floor on what the plan holds (lightrail-job said "the
 * fewest devices the job accepts"): on the metro cluster gpt-1.9b's
 * fastest plan takes dc3's 8 and dc2's 32, 40 of the 56 free (lightrail
 * plan), so a minimum of 48 is admitted holding 40; then 16 are free
 * and a second job's minimum of 48 is blocked. */
static void
test_gpus_min_is_free_gpus(void)
{
    struct lr_ctl *c = open_ctl();
    struct lr_job job;
    char err[1024];
    struct lr_intent in = intent("gm", "gpt-1.9b", 48, 56);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    int held = 0;
    for (int k = 0; k < cluster->n_dcs; k++)
        held += lr_ctl_gpus_used(c)[k];
    CU_ASSERT_EQUAL(held, 40);
    struct lr_intent more = intent("gm2", "gpt-1.9b", 48, 56);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &more, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_BLOCKED);
    CU_ASSERT_STRING_EQUAL(job.reason, "no GPUs: 16 free in all data "
                           "centers, at least 48 wanted");
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "gm2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "gm", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The RMSA engine has paths only between the DCs' ROADMs, the only pairs
 * a lightpath joins: it computed K shortest paths for every ordered pair
 * of ROADMs, |V|^4 over a ring, and a 300-ROADM ring had not started
 * after 2 minutes. */
static void
test_paths_only_between_dcs(void)
{
    struct lr_ctl *c = open_ctl();
    const struct lr_ksp *ksp = lr_ctl_rsa(c)->ksp;
    unsigned char dc[64] = { 0 };
    int n_dc = 0;
    CU_ASSERT_FATAL(topo->n_nodes <= 64);
    for (int k = 0; k < cluster->n_dcs; k++) {
        int v = lr_topo_find_node(topo, cluster->dcs[k].attach_node);
        if (v < 0)
            v = lr_topo_dc_node(topo, cluster->dcs[k].name);
        CU_ASSERT_FATAL(v >= 0);
        n_dc += !dc[v];
        dc[v] = 1;
    }
    CU_ASSERT(n_dc >= 2 && n_dc < topo->n_nodes);
    for (int s = 0; s < topo->n_nodes; s++)
        for (int d = 0; d < topo->n_nodes; d++) {
            int np;
            lr_ksp_paths(ksp, s, d, &np);
            if (s != d && dc[s] && dc[d]) {
                CU_ASSERT(np > 0);
            } else {
                CU_ASSERT_EQUAL(np, 0);
            }
        }
    lr_ctl_free(c);
}

/* A clock the test moves, so that a success after a failure is later
 * than it whatever the machine's speed. */
static long long dev_clock_ms = 1000;

static long long
dev_clock(void *arg)
{
    (void) arg;
    return dev_clock_ms;
}

/* What the device hook was told, in order: "NAME up" or "NAME down:
 * WHY", one a line. */
static char dev_said[1024];

static void
dev_hook(void *arg, const char *name, bool up, const char *why)
{
    size_t n = strlen(dev_said);
    (void) arg;
    /* The reason up to its first comma: the rest names a path. */
    snprintf(dev_said + n, sizeof dev_said - n, "%s %s%.*s\n", name,
             up ? "up" : "down: ", (int) strcspn(why, ","), why);
}

/* Each ROADM's health from its operations: opened (up, one success),
 * a job's channels counted on its path, a refusal (up, the reason
 * kept), a device that does not answer (down, its reason; the job
 * stays releasing with its channels counted there), back up once a
 * reconciliation reads it. */
static void
test_device_health(void)
{
    struct lr_ctl_config cfg = { .clock_ms = dev_clock };
    dev_clock_ms = 1000;
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    struct lr_ctl_device_status st;
    dev_said[0] = '\0';
    lr_ctl_set_device_hook(c, dev_hook, NULL);
    struct lr_job job;
    char err[1024];
    CU_ASSERT_EQUAL(lr_ctl_devices(c), topo->n_nodes);
    CU_ASSERT_EQUAL(lr_ctl_device_status(c, topo->n_nodes, &st), ENOENT);
    for (int i = 0; i < topo->n_nodes; i++) {
        CU_ASSERT_EQUAL_FATAL(lr_ctl_device_status(c, i, &st), 0);
        CU_ASSERT_STRING_EQUAL(st.name, topo->nodes[i].name);
        CU_ASSERT_STRING_EQUAL(st.driver, "dummy");
        CU_ASSERT_STRING_EQUAL(st.address, devdir);
        CU_ASSERT(st.up);
        CU_ASSERT(st.ops >= 1);
        CU_ASSERT_EQUAL(st.failures, 0);
        CU_ASSERT_EQUAL(st.ok_ms, 1000);
        CU_ASSERT_EQUAL(st.fail_ms, 0);
        CU_ASSERT_STRING_EQUAL(st.why, "");
        CU_ASSERT_EQUAL(st.channels, 0);
    }

    struct lr_intent in = intent("hd", "gpt-1.9b", 40, 40);
    dev_clock_ms = 2000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    const char *node[8];
    int nn = nodes_with("hd/", node, 8);
    CU_ASSERT_FATAL(nn >= 1);
    st = lr_test_device_named(c, node[0]);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ok_ms, 2000);
    CU_ASSERT_EQUAL(st.channels, lr_test_ctl_channels_on(node[0], "hd/"));
    unsigned long long ops = st.ops;
    int held = st.channels;
    CU_ASSERT(held > 0);
    /* A refusal of the device's own: up, counted, said (the delete
     * fails, the job stays releasing). */
    lr_test_ctl_fail(node[0], "always");
    dev_clock_ms = 3000;
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "hd", err, sizeof err), 0);
    st = lr_test_device_named(c, node[0]);
    CU_ASSERT(st.ops > ops);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.failures, 1);
    CU_ASSERT_EQUAL(st.fail_ms, 3000);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "injected failure"));
    CU_ASSERT_STRING_EQUAL(dev_said, "");     /* a refusal: no change */

    /* Unreachable: the delete fails, the device is down with its
     * reason, the job's channels still counted there. */
    lr_test_ctl_fail(node[0], "down");
    dev_clock_ms = 4000;
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "hd", err, sizeof err), 0);
    st = lr_test_device_named(c, node[0]);
    CU_ASSERT(!st.up);
    CU_ASSERT_EQUAL(st.fail_ms, 4000);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "unreachable (injected 'down'"));
    CU_ASSERT_EQUAL(st.channels, held);     /* the driver cannot read it */
    char want[256];
    snprintf(want, sizeof want, "%s down: %s: unreachable (injected 'down'\n",
             node[0], node[0]);
    CU_ASSERT_STRING_EQUAL(dev_said, want);
    /* Down again: no second word. */
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "hd", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(dev_said, want);
    for (int i = 1; i < nn; i++)
        CU_ASSERT(lr_test_device_named(c, node[i]).up);

    /* Back: a reconciliation reads it, up again, the failure kept. */
    lr_test_ctl_fail(node[0], NULL);
    dev_clock_ms = 5000;
    char *report = NULL;
    int drift = 0;
    lr_ctl_reconcile(c, false, &report, &drift, err, sizeof err);
    free(report);
    st = lr_test_device_named(c, node[0]);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ok_ms, 5000);
    CU_ASSERT_EQUAL(st.fail_ms, 4000);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "unreachable"));
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s up\n",
             node[0]);
    CU_ASSERT_STRING_EQUAL(dev_said, want);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "hd", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_test_device_named(c, node[0]).channels, 0);
    lr_ctl_free(c);
}

/* A ROADM that does not answer from the start: its opening reached
 * nothing (the netconf and restconf drivers open a device that does not
 * answer without error: first use connects), so it claims no success
 * and counts nothing; the start's reconciliation, whose read gets no
 * answer, finds it down, which the device hook is told when it is set.
 * A new network keeps the history of a ROADM
 * it keeps (down stays down: nothing has reached it since, and nothing
 * is said), and a renamed one starts afresh. */
static void
test_device_health_network(void)
{
    struct lr_ctl_config cfg = { .clock_ms = dev_clock };
    const char *r0 = topo->nodes[0].name;
    char err[1024];
    dev_clock_ms = 1000;
    lr_test_ctl_fail(r0, "down");
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    dev_said[0] = '\0';
    /* Down from the start: said once the hook is there (lightraild
     * sets it after the start). */
    lr_ctl_set_device_hook(c, dev_hook, NULL);
    char want[256];
    snprintf(want, sizeof want, "%s down: %s: unreachable (injected "
             "'down'\n", r0, r0);
    CU_ASSERT_STRING_EQUAL(dev_said, want);
    dev_said[0] = '\0';
    struct lr_ctl_device_status st = lr_test_device_named(c, r0);
    CU_ASSERT(!st.up);
    CU_ASSERT_EQUAL(st.ops, 1);                 /* the start's read */
    CU_ASSERT_EQUAL(st.failures, 1);
    CU_ASSERT_EQUAL(st.fail_ms, 1000);
    CU_ASSERT_EQUAL(st.ok_ms, 0);
    unsigned long long r1_ops =
        lr_test_device_named(c, topo->nodes[1].name).ops;
    CU_ASSERT_EQUAL(r1_ops, 1);

    /* The same network again (a PUT of the topology as it is). */
    dev_clock_ms = 3000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL,
                                               err, sizeof err), 0);
    st = lr_test_device_named(c, r0);
    CU_ASSERT(!st.up);
    CU_ASSERT_EQUAL(st.ops, 1);
    CU_ASSERT_EQUAL(st.failures, 1);
    CU_ASSERT_EQUAL(st.fail_ms, 1000);
    CU_ASSERT_EQUAL(st.ok_ms, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.why, "unreachable (injected 'down'"));
    CU_ASSERT_STRING_EQUAL(dev_said, "");

    /* r0 renamed: a ROADM with no history; the others keep theirs. */
    struct lr_topo *renamed = lr_topo_clone(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(renamed);
    snprintf(renamed->nodes[0].name, sizeof renamed->nodes[0].name,
             "%.50s-new", r0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, renamed, cluster, NULL,
                                               NULL, err, sizeof err), 0);
    st = lr_test_device_named(c, renamed->nodes[0].name);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ops, 0);
    CU_ASSERT_EQUAL(st.fail_ms, 0);
    CU_ASSERT_STRING_EQUAL(st.why, "");
    CU_ASSERT_EQUAL(lr_test_device_named(c, topo->nodes[1].name).ops, r1_ops);
    CU_ASSERT_STRING_EQUAL(dev_said, "");
    lr_ctl_free(c);
    lr_topo_free(renamed);
    lr_test_ctl_fail(r0, NULL);
}

/* A ROADM that keeps its name but is reached elsewhere (another driver
 * or address) is another device: a new network starts its history
 * afresh (up, nothing counted, no reason) and says nothing of it, in
 * particular not that it answers again; what reaches it next judges
 * it.  lightraild cannot do this with a PUT (a name's driver and
 * address come from its configuration, fixed for its life): the test
 * moves the dummy ROADMs' directory under the controller
 * (lr_ctl_int.h), as a configuration that gave them other addresses
 * would. */
static void
test_device_health_readdressed(void)
{
    struct lr_ctl_config cfg = { .clock_ms = dev_clock };
    const char *r0 = topo->nodes[0].name;
    char err[1024], moved[sizeof devdir + 8], *report = NULL;
    int drift = 0;
    dev_clock_ms = 1000;
    lr_test_ctl_fail(r0, "down");
    struct lr_ctl *c = lr_test_ctl_open(&cfg);
    lr_ctl_set_device_hook(c, dev_hook, NULL);
    dev_said[0] = '\0';
    CU_ASSERT(!lr_test_device_named(c, r0).up);

    /* Every unlisted dummy ROADM to another directory. */
    snprintf(moved, sizeof moved, "%s/moved", devdir);
    CU_ASSERT_EQUAL_FATAL(mkdir(moved, 0755) == 0 || errno == EEXIST, 1);
    snprintf(c->dummy_dir, sizeof c->dummy_dir, "%s", moved);
    dev_clock_ms = 2000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL,
                                               err, sizeof err), 0);
    struct lr_ctl_device_status st = lr_test_device_named(c, r0);
    CU_ASSERT(st.up);
    CU_ASSERT_STRING_EQUAL(st.address, moved);
    CU_ASSERT_EQUAL(st.ops, 0);
    CU_ASSERT_EQUAL(st.failures, 0);
    CU_ASSERT_EQUAL(st.fail_ms, 0);
    CU_ASSERT_EQUAL(st.ok_ms, 0);
    CU_ASSERT_STRING_EQUAL(st.why, "");
    CU_ASSERT_EQUAL(lr_test_device_named(c, topo->nodes[1].name).ops, 0);
    CU_ASSERT_STRING_EQUAL(dev_said, "");
    /* The new device answers: a success, and still no word (it was
     * never down). */
    lr_ctl_reconcile(c, false, &report, &drift, err, sizeof err);
    free(report);
    report = NULL;
    st = lr_test_device_named(c, r0);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ops, 1);
    CU_ASSERT_EQUAL(st.ok_ms, 2000);
    CU_ASSERT_STRING_EQUAL(dev_said, "");

    /* Back to the old directory, where r0 is down: afresh again, up
     * until an operation meets it down, which is said. */
    snprintf(c->dummy_dir, sizeof c->dummy_dir, "%s", devdir);
    dev_clock_ms = 3000;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_set_inventory(c, topo, cluster, NULL, NULL,
                                               err, sizeof err), 0);
    st = lr_test_device_named(c, r0);
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ops, 0);
    CU_ASSERT_STRING_EQUAL(st.address, devdir);
    CU_ASSERT_STRING_EQUAL(dev_said, "");
    lr_ctl_reconcile(c, false, &report, &drift, err, sizeof err);
    free(report);
    st = lr_test_device_named(c, r0);
    CU_ASSERT(!st.up);
    CU_ASSERT_EQUAL(st.ops, 1);
    CU_ASSERT_EQUAL(st.fail_ms, 3000);
    char want[256];
    snprintf(want, sizeof want, "%s down: %s: unreachable (injected "
             "'down'\n", r0, r0);
    CU_ASSERT_STRING_EQUAL(dev_said, want);
    lr_ctl_free(c);
    lr_test_ctl_fail(r0, NULL);
}

/* 64 agents (the most a cluster has) closed at once, each line as long
 * as a real one, into the 4096 bytes nb_restconf.c gives: the lines
 * kept are whole, the last says how many more lines there were, and
 * every one is counted once. */
static void
test_report_cut_at_a_line(void)
{
    char buf[4096];
    struct lr_ctl_report r = { buf, sizeof buf, 0, 0 };
    buf[0] = '\0';
    for (int k = 0; k < 64; k++)
        lr_ctl_report_line(&r, "agent dc%d: connection closed: its "
                           "certificate is refused since SIGHUP: revoked "
                           "by CRL '/etc/lightrail/agents-crl.pem' (serial "
                           "1A2B3C4D, /CN=dc%d)", k, k);
    lr_ctl_report_end(&r);
    int whole = 0;
    unsigned more = 0;
    for (char *line = buf, *end; line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        size_t n = end ? (size_t) (end - line) : strlen(line);
        char expect[64];
        snprintf(expect, sizeof expect, "agent dc%d: ", whole);
        if (!strncmp(line, expect, strlen(expect))) {
            char tail[32];
            size_t t = (size_t) snprintf(tail, sizeof tail, "/CN=dc%d)",
                                         whole);
            CU_ASSERT(n > t && !strncmp(line + n - t, tail, t));
            whole++;
        } else {
            CU_ASSERT_PTR_NULL(end);
            CU_ASSERT_EQUAL(sscanf(line, "... and %u more lines",
                                   &more), 1);
        }
    }
    CU_ASSERT(whole > 0);
    CU_ASSERT(more > 0);
    CU_ASSERT_EQUAL(whole + (int) more, 64);
    /* Lines that all fit: no tail. */
    struct lr_ctl_report few = { buf, sizeof buf, 0, 0 };
    lr_ctl_report_line(&few, "agent dc1: connection closed");
    lr_ctl_report_line(&few, "agent dc2: connection closed");
    lr_ctl_report_end(&few);
    CU_ASSERT_STRING_EQUAL(buf, "agent dc1: connection closed\n"
                           "agent dc2: connection closed");
}

/* A reload's report mixes connections closed with lines that are not
 * (an agent that keeps the files read before): the tail counts what it
 * names, so that a count of connections closed is never one of lines. */
static void
test_report_tail_counts_what_it_says(void)
{
    char buf[4096];
    struct lr_ctl_report r = { buf, sizeof buf, 0, 0 };
    int closed = 0, other = 0;
    buf[0] = '\0';
    for (int k = 0; k < 64; k++) {
        if (k % 2)
            lr_ctl_report_line(&r, "agent dc%d: the files read before "
                               "stay: out of memory, the context read "
                               "again was not taken (/CN=dc%d)", k, k);
        else
            lr_ctl_report_line(&r, "agent dc%d: connection closed: its "
                               "certificate is refused since SIGHUP: "
                               "revoked by CRL '/etc/lightrail/agents-crl"
                               ".pem' (serial 1A2B3C4D, /CN=dc%d)", k, k);
    }
    lr_ctl_report_end(&r);
    char *tail = strrchr(buf, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(tail);
    *tail++ = '\0';
    for (char *line = buf, *end; line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (strstr(line, ": connection closed: "))
            closed++;
        else if (strstr(line, ": the files read before stay: "))
            other++;
    }
    int kept = closed + other;
    CU_ASSERT(kept > 0 && kept < 64);
    unsigned more = 0;
    char word[16] = "";
    int got = sscanf(tail, "... and %u more %15s", &more, word);
    CU_ASSERT_EQUAL(got, 2);
    if (!strncmp(word, "connection", 10)) {
        CU_ASSERT_EQUAL(more, (unsigned) (32 - closed));
    } else if (!strncmp(word, "line", 4)) {
        CU_ASSERT_EQUAL(more, (unsigned) (64 - kept));
    } else {
        CU_FAIL("the tail names neither connections nor lines");
    }
}

static CU_TestInfo tests[] = {
    { "each ROADM's health: up, refused, down, back",
      test_device_health },
    { "each ROADM's health: down from the start, a new network",
      test_device_health_network },
    { "each ROADM's health: a ROADM reached elsewhere starts afresh",
      test_device_health_readdressed },
    { "admit, refuse, block, release", test_admit_and_release },
    { "paths only between the DCs' ROADMs", test_paths_only_between_dcs },
    { "the zone baseline keeps a job in one DC", test_zone_admission },
    { "a device failure leaves nothing behind",
      test_device_failure_leaves_nothing },
    { "restart, recovery and reconciliation",
      test_restart_recovery_reconcile },
    { "a remembered plan is not one of another shape of that name",
      test_memo_knows_shapes },
    { "a plan made off the owner's thread", test_plan_off_thread },
    { "a corrupt store is refused before a device is touched",
      test_corrupt_store_touches_no_device },
    { "a store that fails a write frees nothing",
      test_store_failure_frees_nothing },
    { "a start that fails stores no network",
      test_failed_start_stores_no_network },
    { "jobs on links the network does not have are refused at start",
      test_jobs_beyond_the_network },
    { "jobs in data centers the inventory does not have are refused",
      test_jobs_beyond_the_inventory },
    { "a start refused for jobs beyond the files stores no network",
      test_jobs_beyond_the_files_store_nothing },
    { "reconcile replaces a channel that differs, and says what it did",
      test_reconcile_replaces_what_differs },
    { "a repair stops at a ROADM that does not answer, and says so",
      test_reconcile_stops_at_silent_device },
    { "a replace removed but not applied again says so",
      test_reconcile_replace_half_done },
    { "a repair refused, then unanswered: the ROADM down",
      test_reconcile_refused_then_silent },
    { "channels left on a device keep their slots",
      test_channels_left_keep_their_slots },
    { "a stuck admission the store cannot record releasing stays "
      "provisioning", test_stuck_unrecorded_stays_provisioning },
    { "a release whose answers are lost is read back",
      test_timed_out_release_is_read_back },
    { "a device's message is cut at a character",
      test_device_message_cut_at_character },
    { "listed dummy ROADMs default their address; unlisted others are "
      "refused by name", test_device_list_defaults },
    { "an iteration longer than lightrail-job states is blocked",
      test_iteration_beyond_the_module },
    { "no spectrum says what was needed and what was free",
      test_no_spectrum_says_why },
    { "a long reason is kept whole, in memory and in the store",
      test_long_reason_kept_whole },
    { "a DC attached to no ROADM is the reason given", test_unattached_dc },
    { "gpus min is a count of free GPUs", test_gpus_min_is_free_gpus },
    { "a report of 64 connections closed is cut at a line, and counts "
      "the rest", test_report_cut_at_a_line },
    { "a report's tail counts what it says, closures mixed with other "
      "lines", test_report_tail_counts_what_it_says },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("controller", tests, setup, lr_test_ctl_teardown)
