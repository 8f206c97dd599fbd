/*
 * The controller core on Mininet-Optical ROADMs: the mnoptical driver's
 * whole-lightpath check (sb_driver.h check_lightpath, lr_ctl.h step 6b)
 * inside provisioning, against the in-process Mininet-Optical TEST
 * DOUBLE (tests/unit/mno_double.h: t1 - r1 - r2 - r3 - t2).
 *
 * The network is examples/topologies/mnoptical-line3.json: r1 - r2 - r3, 400 km
 * links, dc1 on r1 (terminal t1), dc2 on r3 (terminal t2), its slots
 * placed so that the planner's first block is the emulator's channels
 * 5-7 (8QAM at 400 Gb/s: 11 slots + 1 guard = 12 = three 50 GHz
 * channels; 8QAM's threshold is 16 dB).
 *
 * Asserted: a job whose receivers see 17 dB is admitted, both of its
 * lightpaths checked with exactly the terminal calls expected (reset,
 * tune with ethPort and wdmPort, no power, turn on, in order, t2 -> t1
 * then t1 -> t2) and its six ROADM rules installed; at 15 dB a job fails
 * with a reason naming the gOSNR, the threshold and the margin, and no
 * ROADM keeps a rule; the spectrum it took is free again; a terminal for
 * a data center the inventory does not have is refused at start.  The
 * threshold is the controller's modulation table's: 8QAM at 18.6 dB
 * there (the DeepRMSA file's) refuses the 17 dB a 16 dB table admits,
 * and 8QAM without a threshold is refused, naming the table's column.
 * The gOSNR measured at admission is kept with each lightpath: a
 * restart with 8QAM's threshold raised above it lists both lightpaths
 * as modulation mismatches (no terminal tuned), at or below it none.
 * A rule the driver's record marks unknown (its request had no answer)
 * is not taken as added after a lost add (the job fails, r1 left
 * empty) nor as gone after a lost removal (the DELETE fails, saying
 * the ROADM may still hold it, and a DELETE again settles it), nor
 * as present by a reconciliation (a difference, replaced).  Rules the
 * emulator lost behind the controller's back (it restarted, a /reset):
 * the job's DELETE is done (the driver asks the emulator whether it
 * holds each rule), the job gone.  An emulator that refuses every
 * request: the DELETE's error carries the driver's way out whole,
 * "/reset?node=NODE, then lightrail reconcile --reinstall", and so does
 * the reason of a job refused at its check whose rollback it refuses,
 * and of a job releasing whose removal at a restart it refuses.
 * Restarted with an active job, the emulator holds each rule once, the
 * start counts its re-installs apart from the drift (a re-install that
 * fails is drift, said as a failure), a reconciliation after the start
 * sends nothing, a difference found later is drift, and a DELETE
 * leaves none; restarted during a provisioning or a release, the
 * start's removal leaves no rule, the emulator's or lost meanwhile.
 * Rules the emulator lost while the controller runs: a reconciliation
 * with reinstall puts them back (a dry run sends nothing; a ROADM that
 * does not answer is said, the job and the record as they were).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/lr_ctl.h"
#include "controller/lr_store.h"
#include "planner/lr_utf8.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_ctl.h"
#include "tests/unit/lr_test_dev.h"
#include "tests/unit/mno_double.h"
#include "yang/lr_yang.h"

/* ly, topo, cluster, dir and db are lr_test_ctl.h's; the network is
 * this file's own (setup()). */
static struct sb_device_config devs[3];
static struct sb_terminal terms[2];

static int
setup(void)
{
    char err[1024];
    snprintf(dir, sizeof dir, "/tmp/lr-test-ctlmno-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(db, sizeof db, "%s/lightrail.db", dir);
    if (lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_topo(ly, src("examples/topologies/mnoptical-line3.json"),
                             &topo, err, sizeof err)
        || lr_yang_load_cluster(ly, src("examples/clusters/"
                                        "mnoptical-line3.json"),
                                &cluster, err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        return 1;
    }
    if (mno_double_start())
        return 1;
    for (int i = 0; i < 3; i++) {
        snprintf(devs[i].name, sizeof devs[i].name, "r%d", i + 1);
        snprintf(devs[i].driver, sizeof devs[i].driver, "mnoptical");
        snprintf(devs[i].address, sizeof devs[i].address,
                 "http://127.0.0.1:%d", dbl.port);
        devs[i].timeout_ms = 5000;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(terms[i].dc, sizeof terms[i].dc, "dc%d", i + 1);
        snprintf(terms[i].node, sizeof terms[i].node, "t%d", i + 1);
        terms[i].eth_port = 1;
    }
    return 0;
}

static int
teardown(void)
{
    char cmd[600];
    mno_double_stop();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: could not remove %s\n", dir);
    lr_topo_free(topo);
    lr_cluster_free(cluster);
    lr_yang_ctx_free(ly);
    return 0;
}

/* The controller on the double, planning with 'mods' (NULL: the
 * default table), as lightraild with a modulation-table; its start's
 * report into '*report' (the caller frees it) when 'report' is not
 * NULL. */
static int
open_ctl_report(struct lr_ctl **c, const struct sb_terminal *t, int n_t,
                const struct lr_modtable *mods, char **report, char *err,
                size_t errlen)
{
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = topo, .cluster = cluster,
        .default_driver = "mnoptical", .dummy_dir = dir,
        .devices = devs, .n_devices = 3, .terminals = t, .n_terminals = n_t,
        .mods = mods,
    };
    *report = NULL;
    return lr_ctl_new(&cfg, c, report, err, errlen);
}

static int
open_ctl_mods(struct lr_ctl **c, const struct sb_terminal *t, int n_t,
              const struct lr_modtable *mods, char *err, size_t errlen)
{
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = topo, .cluster = cluster,
        .default_driver = "mnoptical", .dummy_dir = dir,
        .devices = devs, .n_devices = 3, .terminals = t, .n_terminals = n_t,
        .mods = mods,
    };
    char *report = NULL;
    int rc = lr_ctl_new(&cfg, c, &report, err, errlen);
    free(report);
    return rc;
}

static int
open_ctl(struct lr_ctl **c, const struct sb_terminal *t, int n_t, char *err,
         size_t errlen)
{
    return open_ctl_mods(c, t, n_t, NULL, err, errlen);
}

static struct lr_intent
intent(const char *name)
{
    /* 10 GPUs: dc1's 2 and dc2's 8, so the job spans both DCs. */
    return lr_test_ctl_intent(name, "gpt-1.9b", 10, 10, "cdynp");
}

/* The calls the double saw on terminals, in order, into buf. */
static void
terminal_calls(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < dbl.n_calls; i++) {
        const char *s = dbl.calls[i];
        if (strncmp(s, "reset ", 6) && strncmp(s, "turn_on ", 8)
            && strncmp(s, "node=t", 6))
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s\n", s);
    }
}

static void
test_received_and_refused(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024], calls[4096];

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);

    /* 15 dB at the receivers: 1 dB short of 8QAM's 16 dB. */
    dbl.gosnr = 15;
    in = intent("weak");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "lightpath weak/lp1 (dc2 -> "
                                              "dc1, 8QAM) is not received: "
                                              "t2 -> t1: gOSNR 15.0 dB on "
                                              "channel 5 is 1.0 dB below "
                                              "8QAM's threshold of 16.0 dB"));
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    /* Every ROADM's rule was removed, and the driver knows it. */
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    char rep[256];
    int drift = -1;
    char *report = NULL;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, rep,
                                     sizeof rep), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);

    /* 17 dB: received with +1 dB; the same spectrum (channel 5) is free
     * again. */
    mno_double_reset();
    dbl.gosnr = 17;
    in = intent("good");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    if (job.phase != LR_JOB_ACTIVE)
        fprintf(stderr, "good: %s\n", job.reason);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(job.n_lightpaths, 2);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    for (int i = 0; i < dbl.n_rules; i++)
        CU_ASSERT_STRING_EQUAL(dbl.rules[i].channels, "5,6,7");
    CU_ASSERT_FALSE(dbl.power_seen);
    terminal_calls(calls, sizeof calls);
    /* CDynP puts the first stage in dc2 (most compute): lp1 is dc2 ->
     * dc1, lp2 dc1 -> dc2. */
    CU_ASSERT_STRING_EQUAL(calls,
        "reset node=t2\nreset node=t1\n"
        "node=t2&ethPort=1&wdmPort=2&channel=5\n"
        "node=t1&ethPort=1&wdmPort=2&channel=5\n"
        "turn_on node=t2\nturn_on node=t1\n"
        "reset node=t1\nreset node=t2\n"
        "node=t1&ethPort=1&wdmPort=2&channel=5\n"
        "node=t2&ethPort=1&wdmPort=2&channel=5\n"
        "turn_on node=t1\nturn_on node=t2\n");
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);

    CU_ASSERT_EQUAL(lr_ctl_delete(c, "good", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    lr_ctl_free(c);
}

/* The controller's table, not a fixed list, sets the threshold: the
 * default table with 8QAM's threshold 'osnr_db', given to the
 * controller as lightraild gives its modulation-table. */
static struct lr_modtable
table_8qam(double osnr_db)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    int i = lr_modtable_find(&t, "8QAM");
    CU_ASSERT_FATAL(i >= 0);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_set_osnr(&t, i, osnr_db), 0);
    return t;
}

/* A job admitted against the test's expectation must not hold the GPUs
 * and channels the next job or test needs (the store outlives 'c'). */
static void
drop_if_active(struct lr_ctl *c, const struct lr_job *job)
{
    char err[256];
    if (job->phase == LR_JOB_ACTIVE)
        CU_ASSERT_EQUAL(lr_ctl_delete(c, job->intent.name, err, sizeof err),
                        0);
}

static void
test_threshold_from_table(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024];

    struct lr_modtable t = table_8qam(18.6);
    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl_mods(&c, terms, 2, &t, err, sizeof err),
                          0);
    dbl.gosnr = 17;
    in = intent("strict");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    if (!strstr(job.reason, "1.6 dB below 8QAM's threshold of 18.6 dB"))
        fprintf(stderr, "strict: %s\n", job.reason);
    drop_if_active(c, &job);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "gOSNR 17.0 dB on channel 5 "
                                              "is 1.6 dB below 8QAM's "
                                              "threshold of 18.6 dB"));
    CU_ASSERT_EQUAL(dbl.n_rules, 0);

    /* No threshold: refused before a terminal is touched, as a lightpath
     * that cannot be judged is not one that is received. */
    lr_ctl_free(c);
    c = NULL;
    t = table_8qam(NAN);
    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl_mods(&c, terms, 2, &t, err, sizeof err),
                          0);
    dbl.gosnr = 17;
    in = intent("unknown");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    if (!strstr(job.reason, "minimum_osnr"))
        fprintf(stderr, "unknown: %s\n", job.reason);
    drop_if_active(c, &job);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "lightpath unknown/lp1: no "
                                              "gOSNR threshold is known for "
                                              "modulation '8QAM': it cannot "
                                              "be checked; give the format "
                                              "its minimum_osnr in the "
                                              "modulation table "
                                              "(lightrail-config's "
                                              "modulation-table)"));
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The start of 'c' with 'mods' after a job's lightpaths were measured
 * at 17 dB: '*report' (the caller frees it) and how many lightpaths
 * lr_ctl_mod_mismatch() lists; no terminal is tuned by the start and
 * the job stays active with its measurements. */
static int
restart_judged(struct lr_ctl **c, const struct lr_modtable *mods,
               char **report)
{
    char err[1024], calls[4096], *listed = NULL;
    struct lr_job job;
    dbl.n_calls = 0;
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(c, terms, 2, mods, report, err,
                                          sizeof err), 0);
    terminal_calls(calls, sizeof calls);
    CU_ASSERT_STRING_EQUAL(calls, "");
    CU_ASSERT_EQUAL(lr_ctl_get(*c, "measured", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(job.n_lightpaths, 2);
    CU_ASSERT_TRUE(job.lp[1].gosnr_known);
    CU_ASSERT_DOUBLE_EQUAL(job.lp[1].gosnr_db, 17, 1e-9);
    CU_ASSERT_EQUAL(lr_ctl_check(*c, err, sizeof err), 0);
    int n = lr_ctl_mod_mismatch(*c, &listed);
    free(listed);
    return n;
}

/* The gOSNR each receiver measured at provisioning is kept with the
 * lightpath, and a start with a table whose threshold for its format
 * is now above it lists the lightpath as a mismatch, saying both
 * numbers, kept as stored and no terminal tuned again (with the reach
 * cut as well, both in one line); a threshold at or below the
 * measurement lists nothing.  Before the store kept the
 * measurement, no threshold was judged at start. */
static void
test_measured_gosnr_judged_at_start(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024], *report = NULL;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    in = intent("measured");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    for (int k = 0; k < job.n_lightpaths; k++) {
        CU_ASSERT_TRUE(job.lp[k].gosnr_known);
        CU_ASSERT_DOUBLE_EQUAL(job.lp[k].gosnr_db, 17, 1e-9);
    }
    lr_ctl_free(c);

    /* 8QAM at 18 dB: 1 dB above what the receivers measured. */
    struct lr_modtable t = table_8qam(18);
    CU_ASSERT_EQUAL(restart_judged(&c, &t, &report), 2);
    const char *want = "measured 17.0 dB at provisioning, below 8QAM's "
                       "18.0 dB threshold in the modulation table: kept as "
                       "stored, no device reprogrammed; give 8QAM a "
                       "threshold of at most 17.0 dB back, or DELETE the "
                       "job and submit it again to plan it with this table";
    if (!report || !strstr(report, want))
        fprintf(stderr, "18 dB: %s\n", report ? report : "(null)");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "job measured: "
                                            "lightpath 1 (dc2 -> dc1, 8QAM, "));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    free(report);
    lr_ctl_free(c);

    /* Its reach cut too: both said, in one line each lightpath, and
     * the way back gives both back.  Only the reach was said before,
     * and the threshold found at the next start; and until 2026-12-07
     * the way back said "its reach", no number: it names the length
     * the fact says, the least reach that takes the lightpath. */
    int q = lr_modtable_find(&t, "8QAM");
    CU_ASSERT_FATAL(q >= 0);
    t.f[q].reach_km = 1;
    CU_ASSERT_EQUAL(restart_judged(&c, &t, &report), 2);
    for (int k = 0; k < job.n_lightpaths; k++) {
        char line[512], km[48];
        lr_mod_reach_needed(job.lp[k].length_km, 1, km, sizeof km);
        snprintf(line, sizeof line, "%s km is beyond 8QAM's reach of 1 km "
                 "in the modulation table; and measured 17.0 dB at "
                 "provisioning, below 8QAM's 18.0 dB threshold in the "
                 "modulation table: kept as stored, no device "
                 "reprogrammed; give 8QAM a reach of at least %s km and a "
                 "threshold of at most 17.0 dB back, or DELETE the job and "
                 "submit it again to plan it with this table", km, km);
        if (!report || !strstr(report, line))
            fprintf(stderr, "reach and 18 dB: %s\n",
                    report ? report : "(null)");
        CU_ASSERT_PTR_NOT_NULL(report && strstr(report, line));
        /* That reach given back takes the lightpath. */
        struct lr_modtable back = t;
        back.f[q].reach_km = strtod(km, NULL);
        CU_ASSERT_EQUAL(lr_mod_fits(&back, "8QAM", job.lp[k].length_km,
                                    NULL, 0), 0);
    }
    free(report);
    lr_ctl_free(c);

    /* Its spectral efficiency changed alone: the way back names the
     * SEs that size the 12 slots it holds (11 and a guard slot for 400
     * Gb/s: from 400 / (12.5 x 11) up to 400 / (12.5 x 10), not
     * included), the one it was planned with (3) among them; it said
     * "give 8QAM its spectral efficiency back" before, no number. */
    t = table_8qam(17);
    t.f[q].se = 2;
    CU_ASSERT_EQUAL(restart_judged(&c, &t, &report), 2);
    want = "it holds 12 slots for 400 Gb/s where the modulation table's "
           "8QAM, at 2 bits per symbol (25 Gb/s per slot), sizes 17 (guard "
           "band included): kept as stored, no device reprogrammed; give "
           "8QAM a spectral efficiency of 2.91 to 3.19 bits per symbol back, "
           "or "
           "DELETE the job and submit it again to plan it with this table";
    if (!report || !strstr(report, want))
        fprintf(stderr, "SE 2: %s\n", report ? report : "(null)");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    free(report);
    lr_ctl_free(c);

    /* At the measurement, and below it: received, nothing listed. */
    t = table_8qam(17);
    CU_ASSERT_EQUAL(restart_judged(&c, &t, &report), 0);
    CU_ASSERT_PTR_NULL(report ? strstr(report, "at provisioning") : NULL);
    free(report);
    lr_ctl_free(c);
    t = table_8qam(16.5);
    CU_ASSERT_EQUAL(restart_judged(&c, &t, &report), 0);
    CU_ASSERT_PTR_NULL(report ? strstr(report, "at provisioning") : NULL);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "measured", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* A measured gOSNR below 0 dB (a store may hold one: it takes any up
 * to +-LR_JOB_MAX_GOSNR_DB) passes no threshold a modulation table
 * takes (LR_MOD_OSNR_MIN_DB to LR_MOD_OSNR_MAX_DB), so the way back
 * cannot be a threshold: the start says so and leaves DELETE.  It
 * advised "a threshold of at most -0.6 dB back" before, which the
 * table refuses. */
static void
test_negative_gosnr_way_back(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024], *report = NULL;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    in = intent("minus");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    lr_test_ctl_db_exec(
        db, "UPDATE lightpaths SET gosnr_db = -0.5 WHERE job = 'minus'");

    struct lr_modtable t = table_8qam(18);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    const char *want = "measured -0.5 dB at provisioning, below 8QAM's "
                       "18.0 dB threshold in the modulation table: kept as "
                       "stored, no device reprogrammed; no threshold a "
                       "modulation table takes (0 to 50 dB) passes it: "
                       "DELETE the job and submit it again";
    if (!report || !strstr(report, want))
        fprintf(stderr, "-0.5 dB: %s\n", report ? report : "(null)");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    CU_ASSERT_PTR_NULL(report ? strstr(report, "at most -") : NULL);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "minus", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* A slot count no SE a table takes sizes for its rate (a store's, no
 * planner's: lightraild plans 100 to 400 Gb/s on links of at most 1024
 * slots, which an SE of six decimals up to 64 always sizes, see
 * test_modulation "the SEs that size a lightpath's slots"): no SE can
 * be given back, so the way back says so and leaves DELETE.  It
 * advised "give 8QAM its spectral efficiency back" before, which no
 * table can do. */
static void
test_unsized_way_back(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024], *report = NULL;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    in = intent("unsized");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    /* 100000 Gb/s in the slots it holds (a dozen at most): 727 bits
     * per symbol or more. */
    CU_ASSERT_FATAL(job.lp[0].m <= 12 && job.lp[1].m <= 12);
    lr_test_ctl_db_exec(db, "UPDATE lightpaths SET capacity_gbps = 100000 "
                            "WHERE job = 'unsized'");

    struct lr_modtable t = table_8qam(17);
    int rc = open_ctl_report(&c, terms, 2, &t, &report, err, sizeof err);
    if (rc)
        fprintf(stderr, "unsized: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const char *want = "slots for 100000 Gb/s where the "
                       "modulation table's 8QAM, at 3 bits per symbol "
                       "(37.5 Gb/s per slot), sizes 2668 (guard band "
                       "included): kept as stored, no device reprogrammed; "
                       "no spectral efficiency up to 64 bits per symbol, "
                       "of six decimals at most, sizes them: DELETE the "
                       "job and submit it again";
    if (!report || !strstr(report, want))
        fprintf(stderr, "unsized: %s\n", report ? report : "(null)");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, want));
    CU_ASSERT_PTR_NULL(report ? strstr(report, "its spectral efficiency")
                              : NULL);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "unsized", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The way back the start's report gives for a threshold raised above
 * a measurement really passes: a receiver's gOSNR computed in floating
 * point (Mininet-Optical prints Python's repr) may sit a hair below a
 * tenth, 27.299999999999997, and 27.3 is then still above it.  Before,
 * the report said "at most 27.3 dB back" (the tenth of the product
 * with 10, which rounded up), and that table kept the mismatch. */
static void
test_measured_gosnr_way_back_passes(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    char err[1024], *report = NULL, *listed = NULL;
    const double g = nextafter(27.3, 0);

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = g;
    in = intent("hair");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_TRUE(job.lp[0].gosnr_known);
    CU_ASSERT_EQUAL(job.lp[0].gosnr_db, g);
    lr_ctl_free(c);

    struct lr_modtable t = table_8qam(28);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    if (!report || !strstr(report, "at most 27.2 dB back"))
        fprintf(stderr, "a hair below 27.3: %s\n",
                report ? report : "(null)");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "give 8QAM a threshold "
                                            "of at most 27.2 dB back"));
    free(report);
    lr_ctl_free(c);
    /* The advice taken: nothing listed.  27.3 would not do. */
    t = table_8qam(27.2);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_mod_mismatch(c, &listed), 0);
    free(listed);
    listed = NULL;
    free(report);
    lr_ctl_free(c);
    t = table_8qam(27.3);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_mod_mismatch(c, &listed), 2);
    free(listed);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "hair", err, sizeof err), 0);
    lr_ctl_free(c);
}


/* A stored format name no table may hold (U+009B, a C1 control, kept
 * by a store written before the table refused such names), or none
 * (''): the start
 * lists it as a format the table lacks, and its way back must be one
 * that can be followed.  "Give the modulation table the format back"
 * cannot: a CSV with that name is refused, as lr_modtable_add() refuses
 * it, so the line says so and leaves DELETE and submit again. */
static void
test_name_no_table_holds_way_back(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in;
    struct lr_modtable t;
    char err[1024], *report = NULL;
    static const char csv[] = "name,maximum_length,spectral_efficiency\n"
                              "8QAM\xc2\x9b,1200,3\n";

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    in = intent("c1name");
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    lr_test_ctl_db_exec(
        db, "UPDATE lightpaths SET modulation = modulation || char(155) "
            "WHERE job = 'c1name' AND idx = 0");

    /* The advice tried: no table takes the format back. */
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "8QAM\xc2\x9b", 1200, 3), EINVAL);
    CU_ASSERT_NOT_EQUAL(lr_modtable_parse_csv(&t, csv, sizeof csv - 1, err,
                                              sizeof err), 0);

    lr_modtable_default(&t);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    const char *line = report ? strstr(report, "job c1name: lightpath 1 (")
                              : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    const char *end = strchr(line, '\n');
    char one[2048];
    snprintf(one, sizeof one, "%.*s", (int) (end ? end - line
                                             : (ptrdiff_t) strlen(line)),
             line);
    CU_ASSERT_PTR_NULL(strstr(one, "give the modulation table the format "
                                   "back"));
    CU_ASSERT_PTR_NOT_NULL(strstr(one, "no device reprogrammed; no "
                                       "modulation table can hold a name "
                                       "that is no text: DELETE the job and "
                                       "submit it again to plan it with "
                                       "this table"));
    if (strstr(one, "the format back") || !strstr(one, "DELETE the job"))
        fprintf(stderr, "a C1 name's way back: %s\n", one);
    free(report);
    lr_ctl_free(c);

    /* No name at all (a store migrated from an index no lightraild
     * wrote keeps ''): no format to give back either. */
    lr_test_ctl_db_exec(
        db, "UPDATE lightpaths SET modulation = '' "
            "WHERE job = 'c1name' AND idx = 0");
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, &t, &report, err,
                                          sizeof err), 0);
    line = report ? strstr(report, "job c1name: lightpath 1 (") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    end = strchr(line, '\n');
    snprintf(one, sizeof one, "%.*s", (int) (end ? end - line
                                             : (ptrdiff_t) strlen(line)),
             line);
    CU_ASSERT_PTR_NOT_NULL(strstr(one, "its modulation format is not known: "
                                       "kept as stored, no device "
                                       "reprogrammed; no modulation table "
                                       "can give back a format not known: "
                                       "DELETE the job and submit it again"));
    if (strstr(one, "the format back") || !strstr(one, "DELETE the job"))
        fprintf(stderr, "no name's way back: %s\n", one);
    free(report);
    lr_ctl_free(c);
    lr_test_ctl_db_exec(
        db, "UPDATE lightpaths SET modulation = '8QAM' "
            "WHERE job = 'c1name' AND idx = 0");
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "c1name", err, sizeof err), 0);
    lr_ctl_free(c);
}

/* The rules the double holds on ROADM 'node'. */
static int
rules_on(const char *node)
{
    int n = 0;
    for (int i = 0; i < dbl.n_rules; i++)
        n += !strcmp(dbl.rules[i].node, node);
    return n;
}

/* An add whose outcome on r1 is lost for both of the job's channels
 * there: the install of lp2 (r1's second) is done and its answer cut,
 * the driver's removal of it and its undo of lp1 are done and their
 * answers cut too.  r1 holds neither rule; the driver keeps both on its
 * record marked unknown (d10d421, dec4001), and lr_ctl's read-back after
 * the lost answer took the record for the ROADM: both found, the add
 * done, the job active over a ROADM without its rules.  A rule marked
 * unknown is no proof of an add: the job fails, saying so, and its
 * rollback settles both (the emulator's 500 for a rule it does not hold
 * counts as done). */
static void
test_lost_add_unknown_not_held(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("unsure");
    char err[1024], *report = NULL;
    int drift = -1;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r1");
    atomic_store(&dbl.cut_connect, 2);
    atomic_store(&dbl.cut_removes, 2);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    /* Both cuts were spent on r1: its requests went as described. */
    CU_ASSERT_EQUAL(atomic_load(&dbl.cut_connect), 0);
    CU_ASSERT_EQUAL(atomic_load(&dbl.cut_removes), 0);
    if (job.phase != LR_JOB_FAILED)
        fprintf(stderr, "unsure: %s with %d rule(s) on r1\n",
                job.phase == LR_JOB_ACTIVE ? "active" : "not failed",
                rules_on("r1"));
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    drop_if_active(c, &job);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "ROADM r1 did not answer and, "
                                              "read back, holds 0 of the "
                                              "job's 2 channels there for "
                                              "sure; 2 more are on its "
                                              "driver's record marked "
                                              "unknown"));
    if (!strstr(job.reason, "ROADM r1 did not answer"))
        fprintf(stderr, "unsure: %s\n", job.reason);
    CU_ASSERT_EQUAL(job.n_lightpaths, 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    /* The rollback settled r1's record: nothing drifts, nothing is
     * left for a DELETE. */
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    /* The way out the reason gives works: the failed job is kept, so a
     * submission alone is refused (it said "submit the job again");
     * DELETE, then submit, and the job is active. */
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "DELETE the job and submit "
                                              "it again"));
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), EEXIST);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "unsure", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(rules_on("r1"), 2);
    drop_if_active(c, &job);
    lr_ctl_free(c);
}

/* A removal whose answer is lost leaves a rule marked unknown: there it
 * may still be, and the DELETE fails saying so (not "still holds"),
 * with what to do; a DELETE again settles it.  The driver's line is
 * quoted whole, its way out at its end included: lr_ctl_op clipped it
 * to 280 bytes, and the error ended "marked unknown: delete it ag
 * [...]". */
static void
test_lost_removal_unknown_maybe_held(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("maybe");
    char err[4096];

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r1");
    atomic_store(&dbl.cut_removes, 1);
    int rc = lr_ctl_delete(c, "maybe", err, sizeof err);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    if (!strstr(err, "may still hold"))
        fprintf(stderr, "maybe: %d: %s\n", rc, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ROADM r1 did not answer the removal "
                                       "and, read back, still holds 1 of "
                                       "the job's 2 channels there and may "
                                       "still hold 1 more (on its driver's "
                                       "record marked unknown: a request "
                                       "on it had no answer)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "DELETE it to retry"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "stays on this controller's record, "
                                       "marked unknown: delete it again (a "
                                       "refusal to remove a rule the "
                                       "emulator does not hold counts as "
                                       "done))"));
    CU_ASSERT_EQUAL(rules_on("r1"), 1);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "maybe", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    lr_ctl_free(c);
}

/* The emulator loses the rules of an active job behind the
 * controller's back (it restarted; here r2 is /reset too, its rules
 * gone with the rest).  The driver's record still holds them as
 * installed, and each removal draws the emulator's 500 for a rule it
 * does not hold.  Before, that 500 was a refusal every time: the DELETE
 * failed, and every DELETE after it, the job releasing until lightraild
 * restarted; then, until later on 2026-12-07, the first DELETE failed
 * marking them unknown and the second settled them.  Now the driver
 * asks the emulator (the install again, accepted, then the removal
 * again: sb_mnoptical.c sb_mno_probe()): the first DELETE is done. */
static void
test_emulator_lost_rules_delete(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("forgot");
    char err[1024];

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(dbl.n_rules, 6);
    dbl.n_rules = 0;
    int rc = lr_ctl_delete(c, "forgot", err, sizeof err);
    if (rc)
        fprintf(stderr, "forgot, DELETE: %d: %s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "forgot", &job), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    lr_ctl_free(c);
}

/* 'text' (an error or a job's reason, 'who' naming it when it fails)
 * carries mnoptical's way out for a rule refused for good whole, from
 * "refused so again: /reset?node=r" to its ", then lightrail reconcile
 * --reinstall". */
static void
assert_reset_hint_whole(const char *who, const char *text)
{
    const char *hint = strstr(text, "refused so again: /reset?node=r");
    const char *end = hint ? strstr(hint, ", then lightrail reconcile "
                                          "--reinstall") : NULL;
    if (!end)
        fprintf(stderr, "%s: %s\n", who, text);
    CU_ASSERT_PTR_NOT_NULL(hint);
    CU_ASSERT_PTR_NOT_NULL(end);
}

/* An emulator that refuses every /connect (500) while it holds the
 * job's rules: each removal is refused as for a rule it does not hold,
 * and so is the install sent to ask (sb_mno_probe()), so the driver's
 * line names the way out, "/reset?node=NODE, then lightrail reconcile
 * --reinstall" (0e2e2da).  That line is 514 bytes and more with a
 * node's name, and went through sb_par_item's and lr_ctl_op's err[512]:
 * the operator's message ended "... then lightrail reconcile
 * --reinst" (or before), the hint cut.  It must reach the DELETE's
 * error whole.  A DELETE once the emulator takes requests again is
 * done. */
static void
test_refused_for_good_hint_whole(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("forgood");
    char err[4096];

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    atomic_store(&dbl.fail_from, 1);
    int rc = lr_ctl_delete(c, "forgood", err, sizeof err);
    atomic_store(&dbl.fail_from, 0);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    assert_reset_hint_whole("forgood", err);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "forgood", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "forgood", &job), 0);
    lr_ctl_free(c);
}

/* An add refused at its check (15 dB against 8QAM's 16) whose rollback
 * the emulator refuses for good (every /connect after the installs and
 * the terminals' tuning: 500): the job is stuck, releasing, and its
 * reason must carry the driver's way out whole, "/reset?node=NODE,
 * then lightrail reconcile --reinstall", as a DELETE's error does
 * (test_refused_for_good_hint_whole).  op_rollback() put the removal's
 * line through a buffer of 256 bytes and clipped it to 90, so the
 * reason ended in the middle of the refused request. */
static void
test_rollback_refused_hint_whole(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("stuckadd");
    char err[4096];

    mno_double_reset();
    dbl.gosnr = 15;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    /* The six installs and the two terminals' tuning pass; the
     * rollback's removals (and the probes they send) are refused. */
    atomic_store(&dbl.fail_from, 9);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    atomic_store(&dbl.fail_from, 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.reason, "gOSNR 15.0 dB"));
    assert_reset_hint_whole("stuckadd", job.reason);
    /* The way out as the reason says: a DELETE, the emulator taking
     * requests again, removes the rules and the job. */
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "stuckadd", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "stuckadd", &job), 0);
    lr_ctl_free(c);
}

/* A lost add (test_lost_add_unknown_not_held: r1's answers cut, both of
 * its rules on the driver's record marked unknown) whose rollback the
 * emulator refuses for good (every /connect after the add's eight:
 * 500): the job is stuck, releasing, and its reason says both.  The
 * add's error is op_provision()'s "did not answer" wording (about 330
 * bytes) around the driver's line; op_rollback() clipped it to 300
 * bytes, so the reason said "[...]" where the driver's line was. */
static void
test_lost_add_rollback_refused_whole(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("lostroll");
    char err[4096];

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r1");
    atomic_store(&dbl.cut_connect, 2);
    atomic_store(&dbl.cut_removes, 2);
    /* r1: two installs, the driver's two removals; r2, r3: two
     * installs each.  The rollback's removals are refused. */
    atomic_store(&dbl.fail_from, 9);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    atomic_store(&dbl.fail_from, 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    /* The add's error, the driver's line (to its last words) in it,
     * then the removal's, its way out included; nothing cut. */
    const char *add = strstr(job.reason, "ROADM r1 did not answer and, read "
                                         "back, holds 0 of the job's 2 "
                                         "channels");
    const char *drv = add ? strstr(add, "(r1: GET /connect?node=r1") : NULL;
    const char *end = drv ? strstr(drv, "could not be undone: the emulator "
                                        "may hold part of it: read it "
                                        "back); then r1: ") : NULL;
    if (!end || strstr(job.reason, LR_UTF8_CUT_MARK))
        fprintf(stderr, "lostroll: %s\n", job.reason);
    CU_ASSERT_PTR_NOT_NULL(end);
    CU_ASSERT_PTR_NULL(strstr(job.reason, LR_UTF8_CUT_MARK));
    assert_reset_hint_whole("lostroll", job.reason);
    /* The way out as the reason says: a DELETE, the emulator taking
     * requests again, removes the rules and the job. */
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "lostroll", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "lostroll", &job), 0);
    lr_ctl_free(c);
}

/* The emulator no longer knows ROADM r2 (a 404 to every request on
 * it): the DELETE's removals there draw the 404, ENOENT, which the
 * release takes as gone, and the job goes.  The driver's record kept
 * the rules until 2026-12-07, so every reconciliation after found them
 * on r2, off the store, and reported them removed (drift), run after
 * run.  A node the emulator does not know holds no rule: the record
 * drops them too, and a reconciliation finds nothing. */
static void
test_delete_unknown_node(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("nonode");
    char err[1024], *report = NULL;
    int drift = -1;

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(rules_on("r2"), 2);
    atomic_store(&dbl.hide_r2, true);
    int rc = lr_ctl_delete(c, "nonode", err, sizeof err);
    if (rc)
        fprintf(stderr, "nonode, DELETE: %d: %s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "nonode", &job), 0);
    for (int run = 0; run < 2; run++) {
        CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                         sizeof err), 0);
        if (drift)
            fprintf(stderr, "nonode, reconcile %d: drift %d: %s\n", run + 1,
                    drift, report ? report : "-");
        CU_ASSERT_EQUAL(drift, 0);
        CU_ASSERT_PTR_NULL(report && strstr(report, "removed"));
        free(report);
        report = NULL;
    }
    atomic_store(&dbl.hide_r2, false);
    lr_ctl_free(c);
}

/* A rule the record marks unknown is no rule the ROADM holds for a
 * reconciliation either.  The start's repair re-applies an active job's
 * channels on a driver whose record is empty (lightraild restarted);
 * on r1 the first install's answer is cut and so is the driver's
 * removal of it (both done): r1 holds nothing, the record shows the
 * rule marked unknown, and the next channel is not tried.  The next
 * reconciliation took the marked rule for the job's channel, present
 * and as the store wants: it re-applied only the untried one, and r1
 * went on without the other for good.  Now it is a difference,
 * replaced (the DELETE settles the mark, the add installs it). */
static void
test_recon_unknown_not_present(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("recon");
    char err[1024], *report = NULL;
    int drift = -1;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(rules_on("r1"), 2);
    lr_ctl_free(c);
    c = NULL;

    /* The emulator restarted, and the start's repair loses r1's first
     * install and its removal.  Those two re-installs failed: said so,
     * and drift; the four done elsewhere are not. */
    mno_double_reset();
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r1");
    atomic_store(&dbl.cut_connect, 1);
    atomic_store(&dbl.cut_removes, 1);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, NULL, &report, err,
                                          sizeof err), 0);
    CU_ASSERT_EQUAL(atomic_load(&dbl.cut_connect), 0);
    CU_ASSERT_EQUAL(atomic_load(&dbl.cut_removes), 0);
    CU_ASSERT_EQUAL(rules_on("r1"), 0);
    CU_ASSERT_EQUAL(rules_on("r2"), 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r1: channel recon/lp1 "
                                            "of job recon is not on its "
                                            "driver's record, which starts "
                                            "empty: not re-installed: no "
                                            "answer"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r1: channel recon/lp2 "
                                            "of job recon is not on its "
                                            "driver's record, which starts "
                                            "empty: not re-installed: not "
                                            "tried"));
    if (lr_ctl_counters(c)->drift != 2)
        fprintf(stderr, "recon, start: %s\n", report ? report : "-");
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->drift, 2);
    CU_ASSERT_EQUAL(lr_ctl_counters(c)->reinstalled, 4);
    free(report);
    report = NULL;

    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    if (drift != 2 || rules_on("r1") != 2)
        fprintf(stderr, "recon: drift %d, %d rule(s) on r1: %s\n", drift,
                rules_on("r1"), report ? report : "-");
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "on its driver's record "
                                                    "marked unknown (a "
                                                    "request on it had no "
                                                    "answer): the ROADM may "
                                                    "not hold it: replaced"));
    free(report);
    report = NULL;
    CU_ASSERT_EQUAL(rules_on("r1"), 2);
    /* Settled: nothing marked, nothing drifts. */
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "recon", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    lr_ctl_free(c);
}

static void
test_terminal_of_unknown_dc(void)
{
    struct lr_ctl *c = NULL;
    struct sb_terminal t = { .dc = "dc9", .node = "t1", .eth_port = 1 };
    char err[1024];

    CU_ASSERT_EQUAL(open_ctl(&c, &t, 1, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "southbound terminal 't1' is for "
                                       "data center 'dc9', which the "
                                       "inventory does not have"));
}

/* The driver's read() is its own record, not the emulator (sb_driver.h
 * read_is_record): it says nothing of whether a ROADM answers, so
 * neither the start's reconciliation nor a later one counts it or
 * brings a ROADM that did not answer back up.  Last: the double is
 * stopped and started again on a new port. */
static void
test_health_without_reads(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("gone");
    char err[1024], *report = NULL;
    int drift = 0;

    mno_double_reset();
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    struct lr_ctl_device_status st = lr_test_device_named(c, "r1");
    CU_ASSERT(st.up);
    CU_ASSERT_EQUAL(st.ops, 0);                 /* the start read none */
    CU_ASSERT_EQUAL(st.ok_ms, 0);

    mno_double_stop();                          /* every ROADM gone */
    CU_ASSERT_EQUAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
    st = lr_test_device_named(c, "r1");
    CU_ASSERT(!st.up);
    CU_ASSERT_EQUAL(st.ops, 1);
    CU_ASSERT_EQUAL(st.failures, 1);
    lr_ctl_reconcile(c, false, &report, &drift, err, sizeof err);
    free(report);
    st = lr_test_device_named(c, "r1");
    CU_ASSERT(!st.up);                          /* nothing reached it */
    CU_ASSERT_EQUAL(st.ops, 1);
    CU_ASSERT_EQUAL(st.ok_ms, 0);
    lr_ctl_free(c);

    CU_ASSERT_EQUAL_FATAL(mno_double_start(), 0);
    for (int i = 0; i < 3; i++)
        snprintf(devs[i].address, sizeof devs[i].address,
                 "http://127.0.0.1:%d", dbl.port);
}

/* The driver's record starts empty in a new process, so the start's
 * reconciliation installs every channel of an active job again: the
 * emulator takes that as the same rules (tests/unit/mno_double.c,
 * dbl_held()), each held once, and the record then holds them: a
 * reconciliation after the start finds nothing to do and sends no
 * request, and a DELETE leaves no rule.  Until 2026-12-07 the double
 * held 12 after the start and 6 after the DELETE.
 *
 * Those re-installs are no drift: the start says each "re-installed:
 * the driver's record starts empty" and counts them apart (counters
 * reinstalled 6, drift 0); until 2026-12-07 each was "is missing:
 * re-applied" and the drift counter rose by 6 at every restart.  A
 * difference a later reconciliation can see is drift as before: a
 * DELETE whose removal on r1 had no answer leaves the job releasing
 * with its two channels on r1's record, 2 differences, counted.  A
 * rule the emulator lost behind the controller's back is no
 * difference it can see: the record is the read (docs/southbound.md). */
static void
test_restart_active(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("again");
    char err[1024], *report = NULL;
    int drift = -1;

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    lr_ctl_free(c);
    CU_ASSERT_EQUAL_FATAL(open_ctl_report(&c, terms, 2, NULL, &report, err,
                                          sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    /* The start says what it did (docs/southbound.md). */
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r2: channel again/lp1 "
                                            "of job again: re-installed: "
                                            "the driver's record starts "
                                            "empty"));
    CU_ASSERT_PTR_NULL(report && strstr(report, "is missing"));
    const struct lr_ctl_counters *cn = lr_ctl_counters(c);
    if (cn->drift != 0 || cn->reinstalled != 6)
        fprintf(stderr, "again: drift %llu, re-installed %llu: %s\n",
                cn->drift, cn->reinstalled, report ? report : "-");
    CU_ASSERT_EQUAL(cn->reconciles, 1);
    CU_ASSERT_EQUAL(cn->drift, 0);
    CU_ASSERT_EQUAL(cn->reinstalled, 6);
    free(report);
    report = NULL;
    dbl.n_calls = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, true, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    CU_ASSERT_EQUAL(dbl.n_calls, 0);
    free(report);
    report = NULL;

    /* Invisible: the emulator loses its rules (put back after). */
    struct dbl_rule held[MAX_RULES];
    int n_held = dbl.n_rules;
    memcpy(held, dbl.rules, sizeof held);
    dbl.n_rules = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(report);
    report = NULL;
    memcpy(dbl.rules, held, sizeof held);
    dbl.n_rules = n_held;

    /* Visible: a removal on r1 without an answer. */
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r1");
    atomic_store(&dbl.cut_removes, 1);
    CU_ASSERT_NOT_EQUAL(lr_ctl_delete(c, "again", err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    if (drift != 2)
        fprintf(stderr, "again, later: drift %d: %s\n", drift,
                report ? report : "-");
    CU_ASSERT_EQUAL(drift, 2);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "is of job again, "
                                            "which is releasing: the store "
                                            "wants none"));
    free(report);
    CU_ASSERT_EQUAL(cn->drift, 2);
    CU_ASSERT_EQUAL(cn->reinstalled, 6);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "again", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    lr_ctl_free(c);
}

/* Forgets the double's rules on 'node' behind the controller's back, as
 * an emulator restarted or a /reset would. */
static void
lose_rules_on(const char *node)
{
    for (int i = 0; i < dbl.n_rules;)
        if (!strcmp(dbl.rules[i].node, node))
            dbl.rules[i] = dbl.rules[--dbl.n_rules];
        else
            i++;
}

/* The emulator loses an active job's rules on r2 while the controller
 * runs.  The driver's read is its record, so no reconciliation finds
 * them missing (test_restart_active); until 2026-12-07 only a restart
 * of lightraild put them back.  A reconciliation asked to install
 * again (lr_ctl_reconcile_reinstall()) sends each channel of an active
 * job that a record shows as installed again: Mininet-Optical takes
 * that as the rule it holds, or the rule again when it lost it.
 * Counted as re-installed, not drift.  A dry run says what it would
 * send and sends nothing.  On a ROADM that does not answer (r2's first
 * install done, its answer cut: the second is not tried) each is said,
 * the reconciliation fails, and the job and the record are as they
 * were: a reconciliation after it finds nothing, and the next
 * re-install puts r2's rules back, each held once. */
static void
test_reinstall_lost_rules(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    struct lr_intent in = intent("lost");
    char err[1024], *report = NULL;
    int drift = -1;

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL_FATAL(rules_on("r2"), 2);
    const struct lr_ctl_counters *cn = lr_ctl_counters(c);
    unsigned long long drift0 = cn->drift, again0 = cn->reinstalled;
    lose_rules_on("r2");

    /* Dry run: said, nothing sent. */
    dbl.n_calls = 0;
    CU_ASSERT_EQUAL(lr_ctl_reconcile_reinstall(c, false, &report, &drift,
                                               err, sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    CU_ASSERT_EQUAL(dbl.n_calls, 0);
    CU_ASSERT_EQUAL(rules_on("r2"), 0);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r2: channel lost/lp1 "
                                            "of job lost: on its driver's "
                                            "record, not read from the "
                                            "ROADM: would be installed "
                                            "again"));
    CU_ASSERT_EQUAL(cn->reinstalled, again0);
    free(report);
    report = NULL;

    /* r2 does not answer: said, the record and the store as they were. */
    snprintf(dbl.cut_node, sizeof dbl.cut_node, "r2");
    atomic_store(&dbl.cut_connect, 1);
    CU_ASSERT_EQUAL(lr_ctl_reconcile_reinstall(c, true, &report, &drift, err,
                                               sizeof err), EIO);
    CU_ASSERT_EQUAL(atomic_load(&dbl.cut_connect), 0);
    CU_ASSERT_EQUAL(drift, 0);
    if (!report || !strstr(report, "not re-installed: no answer"))
        fprintf(stderr, "lost, r2 cut: %s\n", report ? report : "-");
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "of job lost: not "
                                            "re-installed: no answer, the "
                                            "outcome is unknown"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "of job lost: not "
                                            "re-installed: not tried, the "
                                            "device had stopped answering; "
                                            "kept on its driver's record "
                                            "as it was"));
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r1: channel lost/lp1 "
                                            "of job lost: re-installed"));
    CU_ASSERT_EQUAL(cn->reinstalled, again0 + 4);
    CU_ASSERT_EQUAL(cn->drift, drift0);
    free(report);
    report = NULL;
    CU_ASSERT_EQUAL(lr_ctl_get(c, "lost", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_EQUAL(lr_ctl_reconcile(c, false, &report, &drift, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(drift, 0);
    free(report);
    report = NULL;

    /* Answered: r2 holds both again, each once. */
    dbl.cut_node[0] = '\0';
    CU_ASSERT_EQUAL(lr_ctl_reconcile_reinstall(c, true, &report, &drift, err,
                                               sizeof err), 0);
    if (rules_on("r2") != 2)
        fprintf(stderr, "lost: %d rule(s) on r2: %s\n", rules_on("r2"),
                report ? report : "-");
    CU_ASSERT_EQUAL(drift, 0);
    CU_ASSERT_EQUAL(rules_on("r2"), 2);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    CU_ASSERT_PTR_NOT_NULL(report && strstr(report, "r2: channel lost/lp2 "
                                            "of job lost: re-installed (its "
                                            "driver's record is no read of "
                                            "the ROADM)"));
    CU_ASSERT_EQUAL(cn->reinstalled, again0 + 10);
    CU_ASSERT_EQUAL(cn->drift, drift0);
    free(report);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "lost", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    lr_ctl_free(c);
}

/* A job whose provisioning (or release) a restart interrupted: the
 * store has its lightpaths and the emulator its rules, and the start
 * rolls it back (or finishes the release) by deleting its channels.
 * The driver's record, empty in the new process, does not have them,
 * so each DELETE was ENOENT, taken as already gone, and the emulator
 * kept all 6 rules, which no reconciliation could see (the record is
 * its read) nor remove.  With 'emulator_lost' the emulator lost them
 * meanwhile (restarted too): each removal's 500 settles the rule. */
/* Job 'name' admitted (its six rules on the emulator), the controller
 * stopped, and the store set to say the job was in 'phase' when it
 * stopped: a restart interrupted it. */
static void
stopped_in_phase(const char *name, enum lr_job_phase phase)
{
    struct lr_ctl *c = NULL;
    struct lr_store *st = NULL;
    struct lr_job job;
    struct lr_intent in = intent(name);
    char err[1024];

    mno_double_reset();
    dbl.gosnr = 17;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(job.phase, LR_JOB_ACTIVE);
    lr_ctl_free(c);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db, &st, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(st, name, phase, "", 0), 0);
    lr_store_close(st);
}

static void
test_restart_interrupted(enum lr_job_phase phase, bool emulator_lost)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    char err[1024];

    stopped_in_phase("cut", phase);
    if (emulator_lost)
        dbl.n_rules = 0;
    CU_ASSERT_EQUAL_FATAL(open_ctl(&c, terms, 2, err, sizeof err), 0);
    if (dbl.n_rules)
        fprintf(stderr, "interrupted %s: %d rule(s) left\n",
                lr_job_phase_name(phase), dbl.n_rules);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    if (phase == LR_JOB_PROVISIONING) {
        CU_ASSERT_EQUAL(lr_ctl_get(c, "cut", &job), 0);
        CU_ASSERT_EQUAL(job.phase, LR_JOB_FAILED);
        CU_ASSERT_EQUAL(lr_ctl_delete(c, "cut", err, sizeof err), 0);
    } else
        CU_ASSERT_NOT_EQUAL(lr_ctl_get(c, "cut", &job), 0);
    CU_ASSERT_EQUAL(lr_ctl_check(c, err, sizeof err), 0);
    lr_ctl_free(c);
}

static void
test_restart_provisioning(void)
{
    test_restart_interrupted(LR_JOB_PROVISIONING, false);
}

static void
test_restart_provisioning_lost(void)
{
    test_restart_interrupted(LR_JOB_PROVISIONING, true);
}

static void
test_restart_releasing(void)
{
    test_restart_interrupted(LR_JOB_RELEASING, false);
}

/* Restarted with a job releasing, the emulator refusing every
 * /connect (the removals and the probes they send): the start's
 * removal fails for good and the job stays releasing, its reason
 * carrying the driver's way out whole, "/reset?node=NODE, then
 * lightrail reconcile --reinstall".  recover() took the removal's error
 * into 512 bytes, and the line, 514 and more, lost it. */
static void
test_restart_refused_hint_whole(void)
{
    struct lr_ctl *c = NULL;
    struct lr_job job;
    char err[4096];

    stopped_in_phase("cutgood", LR_JOB_RELEASING);
    atomic_store(&dbl.fail_from, 1);
    int rc = open_ctl(&c, terms, 2, err, sizeof err);
    atomic_store(&dbl.fail_from, 0);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(lr_ctl_get(c, "cutgood", &job), 0);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_RELEASING);
    assert_reset_hint_whole("cutgood", job.reason);
    CU_ASSERT_EQUAL(dbl.n_rules, 6);
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "cutgood", err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl.n_rules, 0);
    lr_ctl_free(c);
}

static CU_TestInfo tests[] = {
    { "gOSNR checked in provisioning: received, refused",
      test_received_and_refused },
    { "gOSNR threshold from the controller's table",
      test_threshold_from_table },
    { "a measured gOSNR judged at start against a new threshold",
      test_measured_gosnr_judged_at_start },
    { "the way back from a raised threshold passes the measurement",
      test_measured_gosnr_way_back_passes },
    { "a negative measured gOSNR: no threshold advised",
      test_negative_gosnr_way_back },
    { "a slot count no SE sizes: no SE advised", test_unsized_way_back },
    { "a stored name no table holds: a way back that can be followed",
      test_name_no_table_holds_way_back },
    { "a lost add on record as unknown is not held",
      test_lost_add_unknown_not_held },
    { "a lost removal on record as unknown may be held",
      test_lost_removal_unknown_maybe_held },
    { "reconciliation: a rule marked unknown is not present",
      test_recon_unknown_not_present },
    { "a rule refused for good: the /reset hint reaches the operator whole",
      test_refused_for_good_hint_whole },
    { "a rollback refused for good: the /reset hint in the job's reason",
      test_rollback_refused_hint_whole },
    { "a lost add whose rollback is refused: the driver's line whole",
      test_lost_add_rollback_refused_whole },
    { "a start's removal refused for good: the /reset hint whole",
      test_restart_refused_hint_whole },
    { "a node the emulator does not know: its rules leave the record",
      test_delete_unknown_node },
    { "a terminal of an unknown DC", test_terminal_of_unknown_dc },
    { "health: read() is no answer of the device",
      test_health_without_reads },
    { "restarted with an active job: each rule once, DELETE leaves none",
      test_restart_active },
    { "restarted during provisioning: the rollback leaves no rule",
      test_restart_provisioning },
    { "restarted during a release: it finishes, no rule left",
      test_restart_releasing },
    { "restarted during provisioning, the emulator's rules lost: settled",
      test_restart_provisioning_lost },
    { "the emulator lost rules: a reconcile with reinstall puts them back",
      test_reinstall_lost_rules },
    /* Last: before its fix the job it leaves releasing was counted by
     * the tests after it. */
    { "the emulator lost the job's rules: the DELETE is done",
      test_emulator_lost_rules_delete },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("ctl_mnoptical", tests, setup, teardown)
