/*
 * The controller core with the emulated data plane (root only; exit 77
 * when not root or without network namespaces), on the metro example
 * with dummy ROADMs: an admitted job's lightpaths become pairs between
 * the right namespaces at their capacity; a ROADM that refuses leaves no
 * pair; a data plane that refuses leaves no channel on any ROADM and the
 * job failed with its reason; delete removes the pairs; a restart with a
 * new (empty) data plane re-makes them; two samples around a transfer
 * give throughput per lightpath and per DC pair; reconciliation finds
 * and repairs a pair gone and a stranger.  After each step
 * lr_ctl_check() proves that memory, store and devices agree.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "controller/lr_ctl.h"
#include "tests/unit/lr_test_ctl.h"
#include "tests/unit/lr_test_netns.h"

static char prefix[16];

static int
setup(void)
{
    return lr_test_ctl_setup("ctl-linux");
}

static int
teardown(void)
{
    char err[256];
    sb_linux_cleanup(prefix, NULL, err, sizeof err);
    return lr_test_ctl_teardown();
}

static struct sb_linux *
open_dp(double scale)
{
    const char *names[LR_TM_MAX_DCS];
    for (int k = 0; k < cluster->n_dcs; k++)
        names[k] = cluster->dcs[k].name;
    struct sb_linux_config cfg = { prefix, scale, cluster->n_dcs, names };
    struct sb_linux *dp = NULL;
    char err[256];
    int rc = sb_linux_new(&cfg, &dp, err, sizeof err);
    if (rc)
        fprintf(stderr, "sb_linux_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return dp;
}

static struct lr_ctl *
open_ctl(struct sb_linux *dp)
{
    struct lr_ctl_config cfg = { .dataplane = dp };
    return lr_test_ctl_open(&cfg);
}

/* GPT-1.9B over up to 32 GPUs: dc1 and dc3 on the metro cluster, one
 * boundary, two lightpaths. */
static struct lr_intent
gpt(const char *name)
{
    struct lr_intent in = { .batch = 64, .micro = 4, .gpus_min = 4,
                            .gpus_max = 32 };
    snprintf(in.name, sizeof in.name, "%s", name);
    snprintf(in.model, sizeof in.model, "gpt-1.9b");
    snprintf(in.algorithm, sizeof in.algorithm, "cdynp");
    return in;
}

static int
n_links(struct sb_linux *dp)
{
    struct sb_linux_link *l = NULL;
    int n = -1;
    sb_linux_links(dp, &l, &n);
    free(l);
    return n;
}

static void
test_admit_release(void)
{
    struct sb_linux *dp = open_dp(1);
    struct lr_ctl *c = open_ctl(dp);
    struct lr_intent in = gpt("a1");
    struct lr_job job;
    char err[1024];
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(job.n_lightpaths, 2);
    CU_ASSERT_EQUAL(n_links(dp), job.n_lightpaths);
    for (int k = 0; k < job.n_lightpaths; k++) {
        char name[SB_NAME_MAX];
        struct sb_linux_link l;
        snprintf(name, sizeof name, "a1/lp%d", k + 1);
        CU_ASSERT_EQUAL_FATAL(sb_linux_get(dp, name, &l), 0);
        CU_ASSERT_EQUAL(l.from_dc, job.lp[k].from_dc);
        CU_ASSERT_EQUAL(l.to_dc, job.lp[k].to_dc);
        CU_ASSERT_DOUBLE_EQUAL(l.gbps, job.lp[k].capacity_gbps, 1e-9);
    }
    assert_consistent(c);

    /* Drift behind the controller's back: a pair gone, a stranger. */
    char *report = NULL;
    int drift = -1;
    CU_ASSERT_EQUAL(sb_linux_remove(dp, "a1/lp1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_linux_add(dp, "ghost/lp1", 0, 1, 100, err,
                                 sizeof err), 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "pair a1/lp1 of job a1 "
                                            "is missing"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "pair ghost/lp1"));
    free(report);
    CU_ASSERT_EQUAL(n_links(dp), 2);   /* a dry run changes nothing */
    report = NULL;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    free(report);
    CU_ASSERT_EQUAL(drift, 2);
    struct sb_linux_link l;
    CU_ASSERT_EQUAL(sb_linux_get(dp, "a1/lp1", &l), 0);
    CU_ASSERT_EQUAL(sb_linux_get(dp, "ghost/lp1", &l), ENOENT);
    assert_consistent(c);

    /* A pair deleted in the kernel, not through the data plane: a
     * sample says to reconcile, and reconciliation makes it again. */
    CU_ASSERT_EQUAL_FATAL(sb_linux_get(dp, "a1/lp1", &l), 0);
    CU_ASSERT_EQUAL_FATAL(lr_test_netns_link_del(l.src_ns, l.src_if), 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_sample(c, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "reconcile"));
    report = NULL;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 1);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "a1/lp1 of job a1 is "
                                            "missing: re-made"));
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_sample(c, err, sizeof err), 0);
    assert_consistent(c);

    CU_ASSERT_EQUAL(lr_ctl_delete(c, "a1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(n_links(dp), 0);
    assert_consistent(c);
    lr_ctl_free(c);
    sb_linux_free(dp);
}

static void
test_roadm_refuses(void)
{
    struct sb_linux *dp = open_dp(1);
    struct lr_ctl *c = open_ctl(dp);
    struct lr_intent in = gpt("f1");
    struct lr_job job;
    char err[1024];
    lr_test_ctl_fail(NULL, "always");
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(n_links(dp), 0);
    lr_test_ctl_fail(NULL, NULL);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "f1", err, sizeof err), 0);
    lr_ctl_free(c);
    sb_linux_free(dp);
}

static void
test_dataplane_refuses(void)
{
    /* 400 Gb/s at 100 Mb/s per Gb/s is 40 Gb/s: more than tbf shapes. */
    struct sb_linux *dp = open_dp(100);
    struct lr_ctl *c = open_ctl(dp);
    struct lr_intent in = gpt("d1");
    struct lr_job job;
    char err[1024];
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "emulated data plane"));
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "change the scale"));
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    CU_ASSERT_EQUAL(n_links(dp), 0);
    CU_ASSERT_EQUAL(lr_test_ctl_channels("d1/"), 0);
    const int *used = lr_ctl_gpus_used(c);
    for (int k = 0; k < cluster->n_dcs; k++)
        CU_ASSERT_EQUAL(used[k], 0);
    assert_consistent(c);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "d1", err, sizeof err), 0);
    lr_ctl_free(c);
    sb_linux_free(dp);
}

static void
test_restart_and_telemetry(void)
{
    struct sb_linux *dp = open_dp(1);
    struct lr_ctl *c = open_ctl(dp);
    struct lr_intent in = gpt("r1");
    struct lr_job job;
    char err[1024];
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    sb_linux_free(dp);

    /* A new data plane starts empty; recovery makes the pairs again. */
    dp = open_dp(1);
    CU_ASSERT_EQUAL(n_links(dp), 0);
    c = open_ctl(dp);
    CU_ASSERT_EQUAL(n_links(dp), 2);
    assert_consistent(c);

    /* Telemetry: a sample, 2 MB over lightpath 1, another sample. */
    struct lr_ctl_emulated *emu = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(lr_ctl_sample(c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_emulated_links(c, &emu, &n), 0);
    CU_ASSERT_EQUAL(n, 2);
    for (int i = 0; i < n; i++)
        CU_ASSERT_FALSE(emu[i].measured);
    free(emu);
    double t;
    CU_ASSERT_EQUAL(sb_linux_probe(dp, "r1/lp1", 2000000, NULL, &t, NULL,
                                   err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_sample(c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_emulated_links(c, &emu, &n), 0);
    for (int i = 0; i < n; i++) {
        CU_ASSERT_TRUE(emu[i].measured);
        CU_ASSERT(emu[i].delay_s > 0);
        if (!strcmp(emu[i].link.name, "r1/lp1")) {
            CU_ASSERT(emu[i].link.tx_bytes >= 2000000);
            CU_ASSERT(emu[i].throughput_bps > 0);
            /* Scaled back: never above the emulated capacity (+ the
             * shaper's bucket). */
            CU_ASSERT(emu[i].throughput_bps <= 1.1 * 400e9);
            CU_ASSERT_DOUBLE_EQUAL(emu[i].loss, 0, 1e-9);
        }
    }
    free(emu);
    const struct lr_telemetry *tel = lr_ctl_telemetry(c);
    int a = job.lp[0].from_dc, b = job.lp[0].to_dc;
    CU_ASSERT_TRUE(tel->link[a][b].valid);
    CU_ASSERT(tel->link[a][b].throughput > 0);
    CU_ASSERT_DOUBLE_EQUAL(tel->link[a][b].capacity, 400e9 / 8, 1);
    CU_ASSERT(lr_telemetry_available(tel, a, b) < 400e9 / 8);

    CU_ASSERT_EQUAL(lr_ctl_delete(c, "r1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(n_links(dp), 0);
    lr_ctl_free(c);
    sb_linux_free(dp);
}

static CU_TestInfo tests[] = {
    { "admitted lightpaths become pairs; delete removes them",
      test_admit_release },
    { "a ROADM that refuses leaves no pair", test_roadm_refuses },
    { "a data plane that refuses leaves no channel", test_dataplane_refuses },
    { "restart re-makes the pairs; telemetry", test_restart_and_telemetry },
    CU_TEST_INFO_NULL,
};

/* LR_TEST_MAIN's main() under another name, so that ours can skip. */
#define main lr_test_main
int lr_test_main(void);
LR_TEST_MAIN_WITH("ctl with the emulated data plane", tests, setup, teardown)
#undef main

int
main(void)
{
    return lr_test_netns_main("c", prefix, sizeof prefix, lr_test_main);
}
