/*
 * The controller planning with an agent that says goodbye in the middle
 * of the plan (SIGTERM: an ERROR of id 0, ESHUTDOWN, its listener
 * closed) and is started again FK_BACK_MS later: where the plan runs
 * decides whether it waits for the agent (lr_agent_party.h,
 * LR_AGENT_RESTART_WAIT_S).  On lightraild's event loop (the admission
 * of lr_ctl_submit(), or a plan run on the thread that began it) a wait
 * would stop the daemon: one try, the job blocked at once saying to
 * plan again.  On the planner's thread (any other) the plan waits for
 * the agent and is found.
 *
 * Metro's dc1 is planned by a fake agent (tests/unit/lr_test_fake_agent.h)
 * that answers with an in-process party over metro's dc1 for the job
 * its JOB names, as lightrail agent does over its inventory.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/lr_ctl.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_wire.h"
#include "planner/lr_model.h"
#include "planner/lr_timemodel.h"
#include "tests/unit/lr_test_ctl.h"
#include "tests/unit/lr_test_fake_agent.h"

/* How long after its goodbye's connection ends the fake agent listens
 * again: within LR_AGENT_RESTART_WAIT_S, with room on a loaded machine
 * (under valgrind) either side, for the planner's thread to find it
 * back and the loop's one try to find it still gone. */
#define FK_BACK_MS 1500

/* The STEP, BACKTRACK or FINISH after which the fake says goodbye, once
 * in its life: in the middle of the plan's first chains. */
#define FK_GOODBYE_AFTER 4

static int
setup(void)
{
    signal(SIGPIPE, SIG_IGN);   /* as lightraild does (lr_agent_party.h) */
    return lr_test_ctl_setup("ctl-agents");
}

static int
teardown(void)
{
    fk_cleanup();
    return lr_test_ctl_teardown();
}

/* In the fake's process: whether it said goodbye already. */
static bool said_goodbye;

/* The JOB's model and training over metro's dc1, as the agent's
 * do_job() makes them over its inventory; false when they cannot be. */
static bool
fk_job(const struct lr_wire_msg *m, struct lr_model **model,
       struct lr_tm **tm, struct lr_cdynp_party **p)
{
    if ((*p))
        (*p)->cls->free(*p);
    lr_tm_free(*tm);
    lr_model_free(*model);
    *p = NULL;
    *tm = NULL;
    *model = NULL;
    struct lr_train tr = { m->batch, m->micro, m->elem_bytes };
    return !lr_model_from_layers("job", m->layers, m->n_layers, model)
           && !lr_tm_new(*model, cluster, &tr, tm)
           && (*p = lr_cdynp_local_party_new(*tm, 0)) != NULL;
}

/* A connection of the fake agent: HELLO, JOB, the plan's requests,
 * COMMIT, RELEASE and KEEP answered; the FK_GOODBYE_AFTER-th plan
 * request of its life answered, then its goodbye (noted 'g' to the
 * test first), its listener closed first, as a stopping agent's is. */
static void
script_plan(struct fk_conn *c)
{
    struct lr_model *model = NULL;
    struct lr_tm *tm = NULL;
    struct lr_cdynp_party *p = NULL;
    struct lr_cdynp_summary *out = malloc(sizeof *out);
    static int requests;
    struct lr_wire_msg m;
    if (!out)
        _exit(3);
    while (fk_read(c, &m)) {
        struct lr_wire_msg a = { .type = LR_WIRE_OK, .id = m.id };
        int rc = 0;
        bool planning = m.type == LR_WIRE_STEP
                        || m.type == LR_WIRE_BACKTRACK
                        || m.type == LR_WIRE_FINISH
                        || m.type == LR_WIRE_COMMIT;
        if (planning && !p) {
            a = (struct lr_wire_msg) { .type = LR_WIRE_ERROR, .id = m.id,
                                       .code = ESRCH };
            snprintf(a.text, sizeof a.text, "send JOB first");
            fk_send(c, &a, 0, 0);
            continue;
        }
        switch (m.type) {
        case LR_WIRE_HELLO:
            fk_hello_ok(c, m.id);
            continue;
        case LR_WIRE_JOB:
            if (!fk_job(&m, &model, &tm, &p))
                rc = EINVAL;
            break;
        case LR_WIRE_STEP:
        case LR_WIRE_BACKTRACK:
        case LR_WIRE_FINISH:
        case LR_WIRE_COMMIT:
            rc = fk_party_answer(p, &m, &a, out, 0);
            break;
        default:
            break;
        }
        if (rc)
            a = (struct lr_wire_msg) { .type = LR_WIRE_ERROR, .id = m.id,
                                       .code = (uint16_t) rc };
        fk_send(c, &a, 0, 0);
        if (planning && m.type != LR_WIRE_COMMIT && !said_goodbye
            && ++requests == FK_GOODBYE_AFTER) {
            said_goodbye = true;
            /* Noted first: the test counts it once the plan is over. */
            fk_note_kind(c, 'g');
            fk_goodbye(c);
            break;
        }
    }
    if (p)
        p->cls->free(p);
    lr_tm_free(tm);
    lr_model_free(model);
    free(out);
}

/* How many goodbyes the fake has noted so far (none waited for). */
static int
goodbyes(struct fake *f)
{
    struct pollfd pfd = { .fd = f->note, .events = POLLIN };
    int n = 0;
    char x;
    while (poll(&pfd, 1, 0) == 1 && read(f->note, &x, 1) == 1)
        n += x == 'g';
    return n;
}

/* A fake agent for metro's dc1, back FK_BACK_MS after its goodbye, in
 * '*f', and a controller over store dir/'name' planning with it; NULL
 * (nothing left running) when openssl cannot make the certificates. */
static struct lr_ctl *
with_fake(struct fake *f, const char *name, struct lr_cluster **remote)
{
    if (!fk_certs())
        return NULL;
    fk_restart_ms = FK_BACK_MS;
    CU_ASSERT_FATAL(fk_start(f, script_plan, 8));
    *remote = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*remote);
    struct lr_dc *d = &(*remote)->dcs[0];
    snprintf(d->remote_address, sizeof d->remote_address, "127.0.0.1");
    d->remote_port = f->port;
    snprintf(d->remote_name, sizeof d->remote_name, "dc1");
    char path[200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct lr_ctl_config cfg = { .cluster = *remote, .db_path = path,
                                 .agent_cert = fk_path("coordinator.pem"),
                                 .agent_key = fk_path("coordinator.key"),
                                 .agent_ca = fk_path("ca.pem"),
                                 .agent_timeout_s = 60 };
    cfg.topo = topo;
    cfg.default_driver = "dummy";
    cfg.dummy_dir = devdir;
    struct lr_ctl *c = NULL;
    char err[1024], *report = NULL;
    int rc = lr_ctl_new(&cfg, &c, &report, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_ctl_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(report);
    return c;
}

static struct lr_intent
intent(const char *name)
{
    return lr_test_ctl_intent(name, "gpt-1.9b", 1, 64, "cdynp");
}

/* The job blocked at once by the plan's one try after the goodbye. */
static void
assert_not_waited(const struct lr_job *job)
{
    CU_ASSERT_EQUAL(job->phase, LR_JOB_BLOCKED);
    if (job->phase != LR_JOB_BLOCKED || !strstr(job->reason, "tried once"))
        fprintf(stderr, "on the loop: phase %d: %s\n", (int) job->phase,
                job->reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(job->reason, "no plan (cdynp): agent dc1 "
                                               "unreachable: connect to "
                                               "127.0.0.1 port "));
    CU_ASSERT_PTR_NOT_NULL(strstr(job->reason, ": Connection refused (tried "
                                               "once after it said it was "
                                               "shutting down, not waited "
                                               "for: a plan on lightraild's "
                                               "event loop does not wait; "));
    CU_ASSERT_PTR_NOT_NULL(strstr(job->reason, "plan again once it is "
                                               "started again"));
}

/* An admission that plans on the loop (lr_ctl_submit(), no plan made
 * off it: admit()) tries the agent once after its goodbye: the job is
 * blocked at once, saying to plan again. */
static void
test_admission_on_the_loop_does_not_wait(void)
{
    struct fake f;
    struct lr_cluster *remote = NULL;
    struct lr_ctl *c = with_fake(&f, "admit.db", &remote);
    if (!c)
        return;
    char err[1024];
    struct lr_intent in = intent("loop");
    struct lr_job job;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, &job, err, sizeof err), 0);
    CU_ASSERT_EQUAL(goodbyes(&f), 1);
    assert_not_waited(&job);
    lr_ctl_free(c);
    fk_stop(&f);
    lr_cluster_free(remote);
}

struct run_arg {
    struct lr_ctl_op *op;
};

static void *
run_op(void *arg)
{
    lr_ctl_op_run(((struct run_arg *) arg)->op);
    return NULL;
}

/* A plan begun on the loop (lr_ctl_plan_begin) and run 'elsewhere' (on
 * a thread of the test's, as lightraild's planner) or not (on the
 * loop's, as lightraild when it cannot queue it): the job its admission
 * then takes. */
static void
plan_then_admit(struct lr_ctl *c, const char *name, bool elsewhere,
                struct lr_job *job)
{
    char err[1024];
    struct lr_intent in = intent(name);
    struct lr_ctl_op *op = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ctl_plan_begin(c, &in, &op, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(op);
    if (elsewhere) {
        struct run_arg a = { op };
        pthread_t t;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, run_op, &a), 0);
        pthread_join(t, NULL);
    } else {
        lr_ctl_op_run(op);
    }
    lr_ctl_plan_end(c, op);
    /* The admission takes the plan kept, made or failed: it plans
     * nothing itself. */
    CU_ASSERT_EQUAL_FATAL(lr_ctl_submit(c, &in, job, err, sizeof err), 0);
}

/* A plan run on the thread that began it is the loop's: not waited. */
static void
test_plan_on_the_owner_thread_does_not_wait(void)
{
    struct fake f;
    struct lr_cluster *remote = NULL;
    struct lr_ctl *c = with_fake(&f, "owner.db", &remote);
    if (!c)
        return;
    struct lr_job job;
    plan_then_admit(c, "owner", false, &job);
    CU_ASSERT_EQUAL(goodbyes(&f), 1);
    assert_not_waited(&job);
    lr_ctl_free(c);
    fk_stop(&f);
    lr_cluster_free(remote);
}

/* A plan run on another thread (the planner's) waits for the agent to
 * listen again after its goodbye, and is found: the job is admitted,
 * its note quoting the goodbye. */
static void
test_plan_on_the_planner_thread_waits(void)
{
    struct fake f;
    struct lr_cluster *remote = NULL;
    struct lr_ctl *c = with_fake(&f, "planner.db", &remote);
    if (!c)
        return;
    struct lr_job job;
    plan_then_admit(c, "planner", true, &job);
    CU_ASSERT_EQUAL(goodbyes(&f), 1);
    if (job.phase != LR_JOB_ACTIVE)
        fprintf(stderr, "on the planner's thread: phase %d: %s\n",
                (int) job.phase, job.reason);
    CU_ASSERT_EQUAL(job.phase, LR_JOB_ACTIVE);
    CU_ASSERT_PTR_NOT_NULL(strstr(job.note, GOODBYE));
    char err[1024];
    CU_ASSERT_EQUAL(lr_ctl_delete(c, "planner", err, sizeof err), 0);
    lr_ctl_free(c);
    fk_stop(&f);
    lr_cluster_free(remote);
}

static CU_TestInfo tests[] = {
    { "an admission on the loop does not wait for an agent's restart",
      test_admission_on_the_loop_does_not_wait },
    { "a plan on the thread that began it does not wait",
      test_plan_on_the_owner_thread_does_not_wait },
    { "a plan on the planner's thread waits and is found",
      test_plan_on_the_planner_thread_waits },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("controller with agents", tests, setup, teardown)
