/* lr_ctl: the controller's core; see lr_ctl.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pthread.h>

#include "controller/lr_agent_party.h"
#include "controller/lr_ctl.h"
#include "controller/lr_ctl_ppo.h"
#include "controller/lr_store.h"
#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"
#include "planner/lr_jenv.h"
#include "planner/lr_modulation.h"
#include "planner/lr_util.h"
#include "southbound/sb_linux.h"
#include "southbound/sb_parallel.h"
#include "tools/lightrail/lr_policy_file.h"

/* Rates tried for a lightpath, best first (Gb/s). */
static const double lr_ctl_rates[] = { 400, 200, 100 };
/* Propagation delay in fibre, s per km (../shared/reference/training.md). */
#define LR_CTL_S_PER_KM 5e-6
/* The exact planner is exponential: bound it inside the daemon. */
#define LR_CTL_EXACT_NODES 2000000
/* Plans remembered (see struct plan_memo). */
#define LR_CTL_MEMO 256

/* A plan depends only on the model, the training shape, the algorithm
 * and the devices it may use, and the planners are deterministic: the
 * same question gets the same answer, so it is asked once.  Operators
 * submit the same job templates again and again, and a released job
 * gives back exactly the devices it took, so the same free-device vector
 * comes back; planning (milliseconds) would otherwise dominate an
 * admission (tens of microseconds for the rest). */
struct plan_memo {
    char model[LR_NAME_MAX];
    double batch, micro;
    char algorithm[16];
    int n_dcs;
    int devices[LR_TM_MAX_DCS];
    enum lr_tm_why why;
    struct lr_plan plan;
    unsigned long long used;  /* for least-recently-used eviction */
};

struct lr_ctl {
    struct lr_topo *topo;
    struct lr_cluster *cluster;
    struct lr_rsa *rsa;               /* owns the spectrum */
    struct lr_store *store;
    int dc_node[LR_TM_MAX_DCS];       /* ROADM each DC attaches to */
    int gpus_used[LR_TM_MAX_DCS];
    struct lr_job *jobs;              /* every stored job, by name */
    int n_jobs, cap_jobs;
    const struct sb_driver_class **cls;   /* per topology node */
    struct sb_device **dev;
    struct lr_ctl_counters counters;
    struct plan_memo *memo;           /* [LR_CTL_MEMO] */
    unsigned long long memo_clock;
    /* How to reach the ROADMs, kept for a new topology (PUT). */
    char default_driver[32];
    char dummy_dir[256];      /* as sb_device_config.address */
    struct sb_device_config *dev_cfg;
    int n_dev_cfg;
    struct sb_terminal *term;         /* the DCs' terminals, copied */
    int n_term;
    /* The agents of the DCs the inventory marks remote (NULL for the
     * others), made with the inventory, and how to reach them. */
    struct lr_cdynp_party *agent[LR_TM_MAX_DCS];
    int n_remote;
    char agent_cert[1024], agent_key[1024], agent_ca[1024];
    double agent_timeout;
    bool inspect;             /* lr_ctl_config.inspect: no agents either */
    struct sb_linux *dp;              /* borrowed, may be NULL */
    /* Telemetry (lr_ctl_sample): the last sample of each emulated
     * lightpath and, per DC pair, what it measured. */
    struct lr_ctl_emulated *emu;
    int n_emu;
    struct lr_telemetry *tel;
    struct lr_ctl_ppo *ppo;           /* NULL: no ppo-policy configured */
    /* What lr_ctl_config said of it, for lr_ctl_ppo_reload(). */
    char *ppo_path;
    double ppo_mean_job_s;
    struct lr_ctl_ppo_rollout ppo_ro;
    bool ppo_has_ro;
    /* When the policy in use was loaded (ctl_now_ms) and how many reloads
     * replaced it since lr_ctl_new(), for lr_ctl_ppo_info(). */
    long long ppo_loaded_ms;
    unsigned long ppo_reloads;
    const struct lr_jenv_policy *ppo_base;
    void *ppo_base_arg;
    long long (*clock_ms)(void *);    /* lr_ctl_config's, or NULL */
    void *clock_arg;
    /* Device work begun and not yet ended (lr_ctl_op_end), newest
     * first; their devices are lent to them meanwhile. */
    struct lr_ctl_op *ops;
    /* The ppo decision in flight (lr_ctl_decide_begin), or NULL: the
     * policy and its mirror are lent to it meanwhile. */
    struct lr_ctl_op *deciding;
    /* Held around every call into the data plane: the device step may
     * run on another thread than lr_ctl_sample(). */
    pthread_mutex_t dp_lock;
};

static int
fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* The job's reason, truncated to fit (vsnprintf: no truncation
 * warning for a message that is allowed to be cut). */
static void
set_reason(struct lr_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->reason, sizeof job->reason, fmt, ap);
    va_end(ap);
}

static long long
now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The controller's clock: lr_ctl_config.clock_ms, or the real one. */
static long long
ctl_now_ms(const struct lr_ctl *c)
{
    return c->clock_ms ? c->clock_ms(c->clock_arg) : now_ms();
}

static struct lr_job *
find_job(struct lr_ctl *c, const char *name)
{
    for (int i = 0; i < c->n_jobs; i++)
        if (!strcmp(c->jobs[i].intent.name, name))
            return &c->jobs[i];
    return NULL;
}

/* Keeps the in-memory table equal to the store's rows. */
static int
remember_job(struct lr_ctl *c, const struct lr_job *job)
{
    struct lr_job *j = find_job(c, job->intent.name);
    if (!j) {
        if (lr_grow((void **) &c->jobs, &c->cap_jobs, c->n_jobs + 1,
                    sizeof *c->jobs))
            return ENOMEM;
        j = &c->jobs[c->n_jobs++];
    }
    *j = *job;
    return 0;
}

static void
forget_job(struct lr_ctl *c, const char *name)
{
    struct lr_job *j = find_job(c, name);
    if (j)
        *j = c->jobs[--c->n_jobs];
}

/* ---- what a job holds, in memory ---- */

static int
book(struct lr_ctl *c, const struct lr_job *job)
{
    for (int i = 0; i < job->n_lightpaths; i++) {
        const struct lr_lightpath *lp = &job->lp[i];
        int err = lr_spectrum_alloc(c->rsa->sp, lp->links, lp->n_links,
                                    lp->first, lp->m);
        if (err) {
            while (i-- > 0)
                lr_spectrum_release(c->rsa->sp, job->lp[i].links,
                                    job->lp[i].n_links, job->lp[i].first,
                                    job->lp[i].m);
            return err;
        }
    }
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] += job->gpus[k];
    return 0;
}

static void
unbook(struct lr_ctl *c, const struct lr_job *job)
{
    for (int i = 0; i < job->n_lightpaths; i++)
        lr_spectrum_release(c->rsa->sp, job->lp[i].links, job->lp[i].n_links,
                            job->lp[i].first, job->lp[i].m);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] -= job->gpus[k];
}

/* ---- devices ---- */

/* The media channel lightpath 'k' of 'job' puts on hop 'h' (0 = the
 * first ROADM, n_links = the last). */
static void
channel_at(const struct lr_ctl *c, const struct lr_job *job, int k, int h,
           struct sb_media_channel *mc)
{
    const struct lr_lightpath *lp = &job->lp[k];
    memset(mc, 0, sizeof *mc);
    snprintf(mc->name, sizeof mc->name, "%s/lp%d", job->intent.name, k + 1);
    if (h > 0)
        snprintf(mc->in_port, sizeof mc->in_port, "%s",
                 c->topo->links[lp->links[h - 1]].name);
    if (h < lp->n_links)
        snprintf(mc->out_port, sizeof mc->out_port, "%s",
                 c->topo->links[lp->links[h]].name);
    mc->n = lp->n;
    mc->m = lp->m;
    mc->enabled = true;
}

static int
hop_node(const struct lr_ctl *c, const struct lr_lightpath *lp, int h)
{
    return h == 0 ? c->topo->links[lp->links[0]].src
                  : c->topo->links[lp->links[h - 1]].dst;
}

/* The changes 'op' of 'job' on ROADM 'node' into ch[] (room for
 * LR_JOB_MAX_LIGHTPATHS); returns how many. */
static int
changes_for(const struct lr_ctl *c, const struct lr_job *job, int node,
            enum sb_op op, struct sb_change *ch)
{
    int n = 0;
    for (int k = 0; k < job->n_lightpaths; k++)
        for (int h = 0; h <= job->lp[k].n_links; h++)
            if (hop_node(c, &job->lp[k], h) == node) {
                ch[n].op = op;
                channel_at(c, job, k, h, &ch[n].mc);
                n++;
            }
    return n;
}

/* ---- device work: one job's, prepared here, run anywhere ---- */

/* Step 6b of one lightpath, as the device step needs it. */
struct lr_ctl_lpcheck {
    const struct sb_driver_class *cls;    /* NULL: not judged */
    struct sb_device *a, *b;              /* its first and last ROADM */
    struct sb_lightpath p;
    char from[64], to[64];                /* the DCs, for the message */
};

static void check_prepare(const struct lr_ctl *, const struct lr_job *, int,
                          struct lr_ctl_lpcheck *);
struct lr_ctl_recon;
static void recon_free(struct lr_ctl_recon *);
static void recon_run(struct lr_ctl_op *);
struct lr_ctl_decision;
static void decision_free(struct lr_ctl_decision *);
static void decision_run(struct lr_ctl_decision *);
static int end_reconcile(struct lr_ctl *, struct lr_ctl_op *, char **, int *,
                         char *, size_t);

/* The device work of one job (an admission or a release), prepared on
 * the controller's thread from the job and the network, so that running
 * it (op_run) reads nothing of the controller: it holds a copy of the
 * job, the changes per device, and the device handles and data plane
 * the controller lends it for as long as it is in flight (c->ops; the
 * controller touches none of those devices meanwhile: reconcile and a
 * new network wait, see lr_ctl.h). */
struct lr_ctl_op {
    struct lr_ctl_op *next;           /* c->ops, the controller's thread */
    bool release;                     /* remove (true) or add */
    struct lr_job job;                /* a copy, read only */
    int n_items;
    struct sb_par_item *items;        /* [n_items]: the adds or removes */
    struct sb_par_item *undo;         /* [n_items]: removes, for adds */
    struct sb_change *ch;             /* the items' changes */
    char (*node)[SB_NAME_MAX];        /* [n_items]: the ROADM's name */
    struct lr_ctl_lpcheck check[LR_JOB_MAX_LIGHTPATHS];   /* step 6b */
    struct sb_linux *dp;              /* NULL: no emulated data plane */
    pthread_mutex_t *dp_lock;
    struct lr_ctl_recon *recon;       /* a reconciliation, else NULL */
    struct lr_ctl_decision *dec;      /* a ppo decision, else NULL */
    /* Set by op_run. */
    int rc;
    char err[512];
};

static void
op_free(struct lr_ctl_op *op)
{
    if (!op)
        return;
    free(op->items);
    free(op->undo);
    free(op->ch);
    free(op->node);
    recon_free(op->recon);
    decision_free(op->dec);
    free(op);
}

/* The work of adding ('release' false) or removing the channels and
 * pairs of 'job' into a new '*out' (op_free()); ENOMEM. */
static int
op_new(struct lr_ctl *c, const struct lr_job *job, bool release,
       struct lr_ctl_op **out)
{
    int nn = c->topo->n_nodes;
    struct lr_ctl_op *op = calloc(1, sizeof *op);
    *out = NULL;
    if (!op)
        return ENOMEM;
    op->items = calloc((size_t) nn + 1, sizeof *op->items);
    op->undo = calloc((size_t) nn + 1, sizeof *op->undo);
    op->ch = calloc(((size_t) nn + 1) * 2 * LR_JOB_MAX_LIGHTPATHS,
                    sizeof *op->ch);
    op->node = calloc((size_t) nn + 1, sizeof *op->node);
    if (!op->items || !op->undo || !op->ch || !op->node) {
        op_free(op);
        return ENOMEM;
    }
    op->release = release;
    op->job = *job;
    op->dp = c->dp;
    op->dp_lock = &c->dp_lock;
    for (int node = 0; node < nn; node++) {
        struct sb_change *add = &op->ch[(size_t) op->n_items * 2
                                        * LR_JOB_MAX_LIGHTPATHS];
        struct sb_change *del = add + LR_JOB_MAX_LIGHTPATHS;
        int n = changes_for(c, job, node, SB_ADD, add);
        if (n == 0)
            continue;
        changes_for(c, job, node, SB_DELETE, del);
        /* Removal one change at a time: a channel already gone is no
         * failure. */
        op->undo[op->n_items] = (struct sb_par_item) {
            .cls = c->cls[node], .dev = c->dev[node], .changes = del,
            .n = n, .each = true,
        };
        op->items[op->n_items] = release ? op->undo[op->n_items]
            : (struct sb_par_item) {
                .cls = c->cls[node], .dev = c->dev[node], .changes = add,
                .n = n,
            };
        snprintf(op->node[op->n_items], SB_NAME_MAX, "%s",
                 c->topo->nodes[node].name);
        op->n_items++;
    }
    for (int k = 0; !release && k < job->n_lightpaths; k++)
        check_prepare(c, job, k, &op->check[k]);
    *out = op;
    return 0;
}

/* Removes the op's channels from every device (missing ones are fine),
 * the devices at once (sb_parallel).  Returns the first error. */
static int
op_unprovision(struct lr_ctl_op *op, char *err, size_t errlen)
{
    int first_err = 0;
    sb_apply_parallel(op->undo, op->n_items);
    for (int i = 0; i < op->n_items && !first_err; i++)
        if (op->undo[i].rc)
            first_err = fail(err, errlen, op->undo[i].rc, "%s",
                             op->undo[i].err);
    return first_err;
}

/* How many of the 'n' channels 'ch' the device of 'it' holds (one
 * read); -1 when the device cannot be read. */
static int
device_holds(const struct sb_par_item *it, const struct sb_change *ch, int n)
{
    struct sb_media_channel *mc = NULL;
    int have = 0, found = 0;
    char e[256];
    if (it->cls->read(it->dev, &mc, &have, e, sizeof e))
        return -1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < have; i++)
            if (!strcmp(mc[i].name, ch[k].mc.name)) {
                found++;
                break;
            }
    free(mc);
    return found;
}

/* The terminal configured for DC 'k', or NULL. */
static const struct sb_terminal *
terminal_of(const struct lr_ctl *c, int k)
{
    for (int i = 0; k >= 0 && k < c->cluster->n_dcs && i < c->n_term; i++)
        if (!strcmp(c->term[i].dc, c->cluster->dcs[k].name))
            return &c->term[i];
    return NULL;
}

/* Step 6b (lr_ctl.h) of lightpath 'k' of 'job', prepared on the
 * controller's thread: the driver that can judge it as a whole and both
 * ends' devices and terminals, or ck->cls NULL when nothing is judged. */
static void
check_prepare(const struct lr_ctl *c, const struct lr_job *job, int k,
              struct lr_ctl_lpcheck *ck)
{
    const struct lr_lightpath *lp = &job->lp[k];
    int a = hop_node(c, lp, 0), b = hop_node(c, lp, lp->n_links);
    const struct sb_driver_class *cls = c->cls[a];
    const struct sb_terminal *tx = terminal_of(c, lp->from_dc),
                             *rx = terminal_of(c, lp->to_dc);
    struct sb_lightpath *p = &ck->p;

    memset(ck, 0, sizeof *ck);
    if (!cls->check_lightpath || c->cls[b] != cls || !tx || !rx)
        return;
    ck->cls = cls;
    ck->a = c->dev[a];
    ck->b = c->dev[b];
    snprintf(ck->from, sizeof ck->from, "%s", c->cluster->dcs[lp->from_dc].name);
    snprintf(ck->to, sizeof ck->to, "%s", c->cluster->dcs[lp->to_dc].name);
    snprintf(p->name, sizeof p->name, "%s/lp%d", job->intent.name, k + 1);
    p->tx = *tx;
    p->rx = *rx;
    p->n = lp->n;
    p->m = lp->m;
    if (lp->mod >= 0 && lp->mod < c->rsa->mods.n)
        snprintf(p->modulation, sizeof p->modulation, "%s",
                 c->rsa->mods.f[lp->mod].name);
    p->threshold_db = lr_mod_osnr_db(p->modulation);
    p->rate_gbps = lp->capacity_gbps;
}

/* Step 6b on the devices: 0 when the lightpath is received or not
 * judged, else the driver's error with its line.  Reads only 'ck'. */
static int
check_run(const struct lr_ctl_lpcheck *ck, char *err, size_t errlen)
{
    const struct sb_lightpath *p = &ck->p;
    struct sb_lightpath_quality q;
    char e[512];
    if (!ck->cls)
        return 0;
    if (isnan(p->threshold_db))
        return fail(err, errlen, EINVAL, "lightpath %s: no gOSNR threshold "
                    "is known for modulation '%s': it cannot be checked; "
                    "add the format to lr_mod_osnr_db()", p->name,
                    p->modulation);
    int rc = ck->cls->check_lightpath(ck->a, ck->b, p, &q, e, sizeof e);
    if (rc)
        return fail(err, errlen, rc, "lightpath %s (%s -> %s, %s) is not "
                    "received: %s", p->name, ck->from, ck->to,
                    p->modulation, e);
    return 0;
}

/* All or nothing over the devices of the op's job: every ROADM of its
 * paths is programmed at once (sb_parallel: the slowest device's round
 * trip, not the sum over the path); a device that refuses, or times out
 * and does not hold the channels when read back, fails the job, and the
 * channels of every device are removed again. */
static int
op_provision(struct lr_ctl_op *op, char *err, size_t errlen)
{
    int rc = 0;
    sb_apply_parallel(op->items, op->n_items);
    for (int i = 0; i < op->n_items && !rc; i++) {
        struct sb_par_item *it = &op->items[i];
        if (it->rc == ETIMEDOUT) {
            /* Outcome unknown: what the device holds decides. */
            it->rc = device_holds(it, it->changes, it->n) == it->n
                     ? 0 : ETIMEDOUT;
        }
        if (it->rc) {
            rc = fail(err, errlen, EIO, "ROADM %s refused the lightpaths: %s",
                      op->node[i], it->err);
            char ignore[256];
            op_unprovision(op, ignore, sizeof ignore);
        }
    }
    /* Every ROADM holds its channels: judge each lightpath as a whole
     * where a driver can (step 6b). */
    for (int k = 0; !rc && k < op->job.n_lightpaths; k++)
        if ((rc = check_run(&op->check[k], err, errlen))) {
            char ignore[256];
            op_unprovision(op, ignore, sizeof ignore);
        }
    return rc;
}

/* ---- the emulated data plane ---- */

/* The data plane's name of lightpath 'k': the name of its channels. */
static void
lp_name(const struct lr_job *job, int k, char *out, size_t len)
{
    snprintf(out, len, "%s/lp%d", job->intent.name, k + 1);
}

/* Removes the job's pairs (missing ones are fine); the first error.
 * Any thread: the lock keeps the sampler off the data plane. */
static int
dp_remove(struct sb_linux *dp, pthread_mutex_t *lock,
          const struct lr_job *job, char *err, size_t errlen)
{
    int first_err = 0;
    if (!dp)
        return 0;
    pthread_mutex_lock(lock);
    for (int k = 0; k < job->n_lightpaths; k++) {
        char name[SB_NAME_MAX], e[256];
        lp_name(job, k, name, sizeof name);
        int rc = sb_linux_remove(dp, name, e, sizeof e);
        if (rc && rc != ENOENT && !first_err)
            first_err = fail(err, errlen, rc, "%s", e);
    }
    pthread_mutex_unlock(lock);
    return first_err;
}

/* Makes the job's pairs, all or nothing; 'exist_ok' for recovery. */
static int
dp_add(struct sb_linux *dp, pthread_mutex_t *lock, const struct lr_job *job,
       bool exist_ok, char *err, size_t errlen)
{
    int rc = 0;
    char e[512];
    if (!dp)
        return 0;
    pthread_mutex_lock(lock);
    for (int k = 0; k < job->n_lightpaths && !rc; k++) {
        const struct lr_lightpath *lp = &job->lp[k];
        char name[SB_NAME_MAX];
        lp_name(job, k, name, sizeof name);
        rc = sb_linux_add(dp, name, lp->from_dc, lp->to_dc,
                          lp->capacity_gbps, e, sizeof e);
        if (rc && exist_ok && rc == EEXIST)
            rc = 0;
    }
    pthread_mutex_unlock(lock);
    if (rc) {
        char ignore[256];
        dp_remove(dp, lock, job, ignore, sizeof ignore);
        return fail(err, errlen, EIO, "the emulated data plane refused "
                    "the lightpaths: %s", e);
    }
    return 0;
}

/* The device step: an add programs the ROADMs and then the data plane
 * (all or nothing with them); a release removes the pairs before the
 * channels, trying both.  Any one thread; reads only 'op'. */
static void
op_run(struct lr_ctl_op *op)
{
    char ignore[256];
    op->err[0] = '\0';
    if (op->recon) {
        recon_run(op);
        return;
    }
    if (op->dec) {
        decision_run(op->dec);
        return;
    }
    if (op->release) {
        int rc = dp_remove(op->dp, op->dp_lock, &op->job, op->err,
                           sizeof op->err);
        int rc2 = op_unprovision(op, rc ? ignore : op->err,
                                 rc ? sizeof ignore : sizeof op->err);
        op->rc = rc ? rc : rc2;
        return;
    }
    op->rc = op_provision(op, op->err, sizeof op->err);
    if (!op->rc && (op->rc = dp_add(op->dp, op->dp_lock, &op->job, false,
                                    op->err, sizeof op->err)))
        op_unprovision(op, ignore, sizeof ignore);
}

/* Synchronous removal of everything 'job' may hold on the devices and
 * the data plane (recovery); the first error. */
static int
unprovision_now(struct lr_ctl *c, const struct lr_job *job, char *err,
                size_t errlen)
{
    struct lr_ctl_op *op;
    if (op_new(c, job, true, &op))
        return fail(err, errlen, ENOMEM, "out of memory");
    op_run(op);
    int rc = op->rc ? fail(err, errlen, op->rc, "%s", op->err) : 0;
    op_free(op);
    return rc;
}

/* ---- telemetry ---- */

static struct lr_counter_sample
counters_of(const struct sb_linux_link *l)
{
    return (struct lr_counter_sample) {
        l->tx_bytes, l->tx_packets,
        l->tx_dropped + l->rx_dropped + l->qdisc_drops, l->sampled_ms,
    };
}

/* The modelled delay of lightpath 'name' ("JOB/lpK"), 0 if unknown. */
static double
lp_delay(struct lr_ctl *c, const char *name)
{
    for (int i = 0; i < c->n_jobs; i++)
        for (int k = 0; k < c->jobs[i].n_lightpaths; k++) {
            char n[SB_NAME_MAX];
            lp_name(&c->jobs[i], k, n, sizeof n);
            if (!strcmp(n, name))
                return c->jobs[i].lp[k].length_km * LR_CTL_S_PER_KM;
        }
    return 0;
}

int
lr_ctl_sample(struct lr_ctl *c, char *err, size_t errlen)
{
    if (!c->dp)
        return 0;
    /* The device step may be adding or removing pairs meanwhile. */
    pthread_mutex_lock(&c->dp_lock);
    int rc = sb_linux_sample(c->dp, err, errlen);
    struct sb_linux_link *links = NULL;
    int n = 0;
    int lrc = sb_linux_links(c->dp, &links, &n);
    pthread_mutex_unlock(&c->dp_lock);
    if (lrc)
        return fail(err, errlen, ENOMEM, "out of memory");
    struct lr_ctl_emulated *emu = calloc((size_t) n + 1, sizeof *emu);
    if (!emu) {
        free(links);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    /* Emulated bytes per real byte: the shaper runs at gbps x scale
     * Mb/s. */
    double scale = 1000 / sb_linux_scale(c->dp);
    lr_telemetry_reset(c->tel, c->cluster->n_dcs);
    for (int i = 0; i < n; i++) {
        struct lr_ctl_emulated *e = &emu[i];
        e->link = links[i];
        e->delay_s = lp_delay(c, links[i].name);
        for (int j = 0; j < c->n_emu; j++) {
            if (strcmp(c->emu[j].link.name, links[i].name))
                continue;
            struct lr_counter_sample b = counters_of(&c->emu[j].link),
                                     a = counters_of(&links[i]);
            double th, loss;
            if (!lr_telemetry_measure(&b, &a, scale, &th, &loss)) {
                e->measured = true;
                e->throughput_bps = th * 8;
            } else if (c->emu[j].measured && a.ms == b.ms) {
                /* Sampled twice in a millisecond: keep the last rates. */
                e->measured = true;
                e->throughput_bps = c->emu[j].throughput_bps;
                loss = c->emu[j].loss;
            } else {
                break;
            }
            e->loss = loss;
            break;
        }
        if (e->measured)
            lr_telemetry_add(c->tel, e->link.from_dc, e->link.to_dc,
                             e->link.gbps * 1e9 / 8, e->throughput_bps / 8,
                             e->loss, e->delay_s);
    }
    free(links);
    free(c->emu);
    c->emu = emu;
    c->n_emu = n;
    return rc;
}

int
lr_ctl_emulated_links(const struct lr_ctl *c, struct lr_ctl_emulated **out,
                      int *n)
{
    *out = malloc(((size_t) c->n_emu + 1) * sizeof **out);
    if (!*out)
        return ENOMEM;
    if (c->n_emu)
        memcpy(*out, c->emu, (size_t) c->n_emu * sizeof **out);
    *n = c->n_emu;
    return 0;
}

const struct lr_telemetry *
lr_ctl_telemetry(const struct lr_ctl *c)
{
    return c->tel;
}

/* ---- admission ---- */

static int
dc_node_of(const struct lr_topo *t, const struct lr_cluster *cl, int k)
{
    int node = lr_topo_dc_node(t, cl->dcs[k].name);
    if (node < 0 && cl->dcs[k].attach_node[0])
        node = lr_topo_find_node(t, cl->dcs[k].attach_node);
    return node;
}

static enum lr_tm_why
run_planner(const struct lr_tm *tm, const char *algo, struct lr_plan *plan,
            struct lr_tm_eval *ev);

/* run_planner() through the memo (see struct plan_memo). */
static enum lr_tm_why
plan_memoised(struct lr_ctl *c, const struct lr_intent *in, const char *algo,
              const struct lr_tm *tm, struct lr_plan *plan,
              struct lr_tm_eval *ev)
{
    struct plan_memo key;
    memset(&key, 0, sizeof key);
    snprintf(key.model, sizeof key.model, "%s", in->model);
    snprintf(key.algorithm, sizeof key.algorithm, "%s", algo);
    key.batch = in->batch;
    key.micro = in->micro;
    key.n_dcs = tm->n_dcs;
    for (int k = 0; k < tm->n_dcs; k++)
        key.devices[k] = tm->dcs[k].n_devices;
    struct plan_memo *victim = &c->memo[0];
    for (int i = 0; i < LR_CTL_MEMO; i++) {
        struct plan_memo *m = &c->memo[i];
        if (m->used && !strcmp(m->model, key.model)
            && !strcmp(m->algorithm, key.algorithm)
            && m->batch == key.batch && m->micro == key.micro
            && m->n_dcs == key.n_dcs
            && !memcmp(m->devices, key.devices,
                       (size_t) key.n_dcs * sizeof *key.devices)) {
            m->used = ++c->memo_clock;
            *plan = m->plan;
            return m->why;
        }
        if (m->used < victim->used)
            victim = m;
    }
    key.why = run_planner(tm, algo, plan, ev);
    key.plan = *plan;
    key.used = ++c->memo_clock;
    *victim = key;
    return key.why;
}

static enum lr_tm_why
run_planner(const struct lr_tm *tm, const char *algo, struct lr_plan *plan,
            struct lr_tm_eval *ev)
{
    if (!strcmp(algo, "exact")) {
        struct lr_exact_stats st;
        return lr_exact_plan(tm, LR_CTL_EXACT_NODES, plan, ev, &st);
    }
    if (!strcmp(algo, "dp"))
        return lr_baseline_dp(tm, plan, ev);
    if (!strcmp(algo, "pipedream"))
        return lr_baseline_pipedream(tm, plan, ev);
    if (!strcmp(algo, "spp"))
        return lr_baseline_spp(tm, plan, ev);
    if (!strcmp(algo, "zone"))
        return lr_baseline_zone(tm, NULL, plan, ev);
    return lr_cdynp_plan(tm, NULL, plan, ev);
}

/* ---- DCs planned by their agents ---- */

/* CDynP with the remote DCs planned by their agents.  'plan' gets the
 * local DCs' stages and, for each remote DC of the chain, one stage with
 * no devices (g = 0) over its layers, in chain order.  A failed agent:
 * LR_TM_DEVICES with its reason in why[len]. */
static enum lr_tm_why
plan_with_agents(struct lr_ctl *c, const struct lr_tm *tm,
                 struct lr_cdynp_result *res, struct lr_plan *plan,
                 char *why, size_t len)
{
    struct lr_cdynp_party *parties[LR_TM_MAX_DCS] = { NULL };
    struct lr_plan *local = malloc(sizeof *local);
    enum lr_tm_why verdict = LR_TM_DEVICES;
    int n = c->cluster->n_dcs;
    snprintf(why, len, "out of memory");
    if (!local)
        return verdict;
    for (int k = 0; k < n; k++) {
        if (c->agent[k]) {
            parties[k] = c->agent[k];
            lr_agent_party_set_job(parties[k], tm);
        } else if (!(parties[k] = lr_cdynp_local_party_new(tm, k))) {
            goto cleanup;
        }
    }
    struct lr_cdynp_view view = lr_cdynp_view_of(tm);
    if (lr_agent_plan(c->cluster, parties, NULL, &view, res, local,
                      &verdict, why, len)) {
        verdict = LR_TM_DEVICES;
        goto cleanup;
    }
    if (verdict != LR_TM_OK) {
        /* lr_tm_explain() would read the remote DCs' placeholders. */
        snprintf(why, len, "no chain of data centers can hold the model "
                 "(%s)", lr_tm_why_str(verdict));
        goto cleanup;
    }
    plan->n_stages = 0;
    for (int i = 0; i < res->n_dcs; i++) {
        int dc = res->dc[i];
        if (c->agent[dc]) {
            plan->stages[plan->n_stages++] = (struct lr_stage) {
                .first = res->first[i], .last = res->last[i], .dc = dc,
                .g = 0,
            };
            continue;
        }
        for (int s = 0; s < local->n_stages; s++)
            if (local->stages[s].dc == dc
                && plan->n_stages < LR_PLAN_MAX_STAGES)
                plan->stages[plan->n_stages++] = local->stages[s];
    }

cleanup:
    for (int k = 0; k < n; k++)
        if (parties[k] && !c->agent[k])
            parties[k]->cls->free(parties[k]);
    free(local);
    return verdict;
}

/* RELEASE to the agent of every remote range of 'job' (best effort: an
 * agent that forgot the job, or cannot be reached, is passed over). */
static void
release_remote(struct lr_ctl *c, const struct lr_job *job)
{
    for (int s = 0; s < job->plan.n_stages; s++) {
        const struct lr_stage *st = &job->plan.stages[s];
        if (st->g == 0 && st->dc >= 0 && st->dc < LR_TM_MAX_DCS
            && c->agent[st->dc])
            lr_agent_party_release(c->agent[st->dc], job->intent.name);
    }
}

/* COMMIT to the agent of every remote DC of the chain 'res'; on the
 * first failure the agents committed so far get RELEASE, and the job's
 * reason says why.  0 or the failure's errno. */
static int
commit_remote(struct lr_ctl *c, struct lr_job *job,
              const struct lr_cdynp_result *res)
{
    for (int i = 0; i < res->n_dcs; i++) {
        int dc = res->dc[i], n_stages;
        if (!c->agent[dc])
            continue;
        int rc = lr_agent_party_commit(c->agent[dc], res->objective,
                                       res->assumed, res->first[i],
                                       res->last[i], job->intent.name,
                                       &n_stages);
        if (rc) {
            const char *e = lr_agent_party_error(c->agent[dc]);
            set_reason(job, "agent %s did not commit its layers %d-%d: %s",
                       c->cluster->dcs[dc].name, res->first[i] + 1,
                       res->last[i] + 1, e ? e : strerror(rc));
            for (int j = 0; j < i; j++)
                if (c->agent[res->dc[j]])
                    lr_agent_party_release(c->agent[res->dc[j]],
                                           job->intent.name);
            return rc;
        }
    }
    return 0;
}

/* ---- algorithm ppo (lr_ctl_ppo.h) ---- */

/* Opens the policy file of c->ppo_path and binds it to the network as
 * lr_ctl_config asked (its rollout, its base): '*out' is owned by the
 * caller, usable or saying why not (lr_ctl_ppo_why()); ENOMEM, or EINVAL
 * for rollout settings out of range, with nothing made. */
static int
ppo_load(struct lr_ctl *c, struct lr_ctl_ppo **out, char *err,
         size_t errlen)
{
    struct lr_ctl_ppo *p = lr_ctl_ppo_open(c->ppo_path, c->ppo_mean_job_s);
    int rc;
    if (!p)
        return fail(err, errlen, ENOMEM, "out of memory");
    if (c->ppo_has_ro
        && (rc = lr_ctl_ppo_set_rollout(p, &c->ppo_ro, err, errlen))) {
        lr_ctl_ppo_free(p);
        return rc;
    }
    lr_ctl_ppo_set_base(p, c->ppo_base, c->ppo_base_arg);
    lr_ctl_ppo_bind(p, c->topo, c->cluster);
    *out = p;
    return 0;
}

/* The jobs that hold GPUs or spectrum now, for the policy's rollout
 * (lr_jenv_set_running): what each holds, and the time it has left in the
 * policy's unit (ppo-mean-job-s): from its creation, its iterations at
 * its predicted iteration time; a job without iterations has the mean
 * left (1), one past its predicted end a thousandth of it.  Returns how
 * many, with '*run' and '*blocks' (the caller frees both), or -1 when
 * out of memory. */
static int
ppo_running(const struct lr_ctl *c, struct lr_jenv_running **run,
            struct lr_jenv_block **blocks)
{
    int n = 0, nb = 0;
    for (int i = 0; i < c->n_jobs; i++)
        for (int l = 0; l < c->jobs[i].n_lightpaths; l++)
            nb += c->jobs[i].lp[l].n_links;
    *run = calloc((size_t) c->n_jobs + 1, sizeof **run);
    *blocks = malloc(((size_t) nb + 1) * sizeof **blocks);
    if (!*run || !*blocks) {
        free(*run);
        free(*blocks);
        *run = NULL;
        *blocks = NULL;
        return -1;
    }
    double now_s = (double) ctl_now_ms(c) / 1000;
    double mean = lr_ctl_ppo_mean_job_s(c->ppo);
    nb = 0;
    for (int i = 0; i < c->n_jobs; i++) {
        const struct lr_job *job = &c->jobs[i];
        struct lr_jenv_running *r = &(*run)[n];
        bool holds = job->n_lightpaths > 0;
        for (int k = 0; k < c->cluster->n_dcs && k < LR_JENV_MAX_DCS; k++) {
            r->gpus[k] = job->gpus[k];
            holds = holds || job->gpus[k] > 0;
        }
        if (!holds)
            continue;
        r->blocks = *blocks + nb;
        for (int l = 0; l < job->n_lightpaths; l++)
            for (int h = 0; h < job->lp[l].n_links; h++)
                (*blocks)[nb++] = (struct lr_jenv_block) {
                    job->lp[l].links[h], job->lp[l].first, job->lp[l].m,
                };
        r->n_blocks = (int) (*blocks + nb - r->blocks);
        if (job->intent.iterations && job->iteration_s > 0) {
            double end = (double) job->created_ms / 1000
                         + (double) job->intent.iterations * job->iteration_s;
            r->remaining = fmax((end - now_s) / mean, 1e-3);
        } else {
            r->remaining = 1;
        }
        n++;
    }
    return n;
}

/* Mirrors the state now and presents 'in' to the policy
 * (lr_ctl_ppo_prepare): the number of feasible actions, or -1 with
 * why[]; '*work' is the work X shown, -1 for none. */
static int
ppo_prepare(struct lr_ctl *c, const struct lr_intent *in, double *work,
            char *why, size_t len)
{
    int mi, di;
    *work = -1;
    if (!c->ppo) {
        snprintf(why, len, "no ppo-policy in lightraild's configuration");
        return -1;
    }
    if (lr_ctl_ppo_why(c->ppo)) {
        snprintf(why, len, "%s", lr_ctl_ppo_why(c->ppo));
        return -1;
    }
    if (lr_ctl_ppo_class(c->ppo, in, &mi, &di, why, len))
        return -1;
    struct lr_jenv_running *run = NULL;
    struct lr_jenv_block *blocks = NULL;
    /* Only a rollout, or a policy observing the GPU-time they hold,
     * reads the running jobs. */
    int n_run = lr_ctl_ppo_reads_running(c->ppo)
                ? ppo_running(c, &run, &blocks) : 0;
    if (n_run < 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    int n = lr_ctl_ppo_prepare(c->ppo, c->gpus_used, c->rsa->sp->occ,
                               c->rsa->sp->nw, run, n_run, mi, di,
                               in->iterations, work, why, len);
    free(run);
    free(blocks);
    return n;
}

/* The policy's candidate for 'in' on the state now (its rollout's when
 * one is configured), LR_CTL_PPO_REFUSED, or -1 with why[]; '*ro' what
 * the rollout did (static text, "" for nothing). */
static int
ppo_choose(struct lr_ctl *c, const struct lr_intent *in, double *work,
           const char **ro, char *why, size_t len)
{
    *ro = "";
    if (ppo_prepare(c, in, work, why, len) < 0)
        return -1;
    int a = lr_ctl_ppo_choose(c->ppo, true, why, len);
    *ro = lr_ctl_ppo_rollout_note(c->ppo);
    return a;
}

/* A ppo decision taken off the owner's thread (lr_ctl_decide_begin):
 * prepared on the owner's thread, chosen by decision_run on any one
 * thread, used by the admission (ppo_decided).  It borrows the policy,
 * which nothing else calls meanwhile (c->deciding). */
struct lr_ctl_decision {
    struct lr_ctl_ppo *ppo;           /* borrowed */
    int n;                            /* feasible actions; -1: none */
    int a;                            /* the choice; -1 with why[] */
    double work;                      /* the work X shown, -1: none */
    const char *ro;                   /* what the rollout did (static) */
    char why[LR_JOB_REASON_MAX - 40];
    /* The state it was prepared on: GPUs used per DC and every link's
     * spectrum words, to tell whether it still holds. */
    int used[LR_TM_MAX_DCS];
    uint64_t *occ;
    size_t n_occ;
};

static void
decision_free(struct lr_ctl_decision *d)
{
    if (!d)
        return;
    free(d->occ);
    free(d);
}

static void
decision_run(struct lr_ctl_decision *d)
{
    if (d->n <= 0)
        return;
    d->a = lr_ctl_ppo_choose(d->ppo, true, d->why, sizeof d->why);
    d->ro = lr_ctl_ppo_rollout_note(d->ppo);
}

/* The decision 'd' on the state now: its own when the state is the one
 * it was prepared on (or it refused the job, or had nothing feasible).
 * Otherwise (another job came or went while it ran) the mirror is
 * prepared again: its candidate when still feasible, else the actor's
 * own choice on the state now (a fast decision; the rollout is not run
 * twice). */
static int
ppo_decided(struct lr_ctl *c, const struct lr_intent *in,
            const struct lr_ctl_decision *d, double *work, const char **ro,
            char *why, size_t len)
{
    *work = d->work;
    *ro = d->ro;
    snprintf(why, len, "%s", d->why);
    const struct lr_spectrum *sp = c->rsa->sp;
    if (d->n <= 0 || d->a == LR_CTL_PPO_REFUSED
        || (!memcmp(d->used, c->gpus_used,
                    (size_t) c->cluster->n_dcs * sizeof *d->used)
            && d->n_occ == (size_t) sp->n_links * (size_t) sp->nw
            && !memcmp(d->occ, sp->occ, d->n_occ * sizeof *d->occ)))
        return d->a;
    int n = ppo_prepare(c, in, work, why, len);
    if (n >= 0 && lr_ctl_ppo_allowed(c->ppo, d->a)) {
        c->counters.ppo_stale_kept++;
        *ro = "the network changed while its rollout ran; its choice was "
              "still feasible";
        return d->a;
    }
    c->counters.ppo_stale_redecided++;
    if (n < 0)
        return -1;
    *ro = "the network changed while its rollout ran and took its choice; "
          "the policy alone chose";
    return lr_ctl_ppo_choose(c->ppo, false, why, len);
}

/* Appends to job's note the work X a known-work policy was shown and
 * what its rollout did ('ro'). */
static void
ppo_note_work(struct lr_job *job, double work, const char *ro)
{
    size_t n = strlen(job->note);
    if (work >= 0 && n < sizeof job->note)
        snprintf(job->note + n, sizeof job->note - n, ", work %.2f x mean",
                 work);
    n = strlen(job->note);
    if (*ro && n < sizeof job->note)
        snprintf(job->note + n, sizeof job->note - n, "; %s", ro);
}

/* Realises candidate 'a' of the policy for 'job': the stages by CDynP
 * over the candidate's chain and GPU split, the lightpaths on its route
 * and tier, the slots first fit gave on the mirror.  0: the job is
 * planned and holds them (in memory); -1: nothing is held and why[] says
 * why (the caller falls back); or a positive errno. */
static int
admit_ppo(struct lr_ctl *c, const struct lr_model *model,
          const struct lr_train *tr, struct lr_job *job, int a, double work,
          const char *ro, char *why, size_t len)
{
    struct lr_jenv *env = lr_ctl_ppo_env(c->ppo);
    const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
    struct lr_tm *tm = NULL;
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_plan *plan = &job->plan;
    int rc = -1;
    if (!ev || lr_tm_new(model, c->cluster, tr, &tm)) {
        free(ev);
        return ENOMEM;
    }
    for (int k = 0; k < tm->n_dcs; k++)
        tm->dcs[k].n_devices = 0;
    for (int i = 0; i < cd->n_dcs; i++)
        tm->dcs[cd->dc[i]].n_devices = lr_jenv_cand_gpus(env, a, i);
    const struct lr_path *p[2] = { NULL, NULL };
    int rate = 0;
    if (cd->n_dcs == 2) {
        p[0] = lr_jenv_cand_path(env, a, 0);
        p[1] = lr_jenv_cand_path(env, a, 1);
        rate = lr_jenv_tier_gbps[cd->tier];
        /* As the environment tabulated it: the forward route's delay. */
        lr_tm_set_link(tm, cd->dc[0], cd->dc[1], rate * 1e9 / 8,
                       p[0]->length_km * LR_CTL_S_PER_KM);
    }
    struct lr_cdynp_options opt = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .order = cd->dc,
        .n_order = cd->n_dcs,
    };
    enum lr_tm_why v = lr_cdynp_plan(tm, &opt, plan, ev);
    if (v != LR_TM_OK) {
        char detail[160];
        lr_tm_explain(tm, v, detail, sizeof detail);
        snprintf(why, len, "candidate %d has no plan over its chain: %s", a,
                 detail);
        plan->n_stages = 0;
        goto cleanup;
    }
    if (cd->n_dcs == 2) {
        int m = lr_jenv_cand_slots(env, a);
        double km = fmax(p[0]->length_km, p[1]->length_km);
        int mod = lr_mod_choose(&c->rsa->mods, km);
        for (int dir = 0; dir < 2; dir++) {
            int first = lr_jenv_cand_first(env, a, dir);
            if (mod < 0 || first < 0
                || lr_spectrum_alloc(c->rsa->sp, p[dir]->links,
                                     p[dir]->n_links, first, m)) {
                snprintf(why, len, "candidate %d: its slots are not free "
                         "on route %d", a, cd->route);
                for (int i = 0; i < job->n_lightpaths; i++)
                    lr_spectrum_release(c->rsa->sp, job->lp[i].links,
                                        job->lp[i].n_links, job->lp[i].first,
                                        job->lp[i].m);
                job->n_lightpaths = 0;
                plan->n_stages = 0;
                goto cleanup;
            }
            struct lr_lightpath *lp = &job->lp[job->n_lightpaths++];
            memset(lp, 0, sizeof *lp);
            lp->from_dc = cd->dc[dir];
            lp->to_dc = cd->dc[1 - dir];
            lp->n_links = p[dir]->n_links < LR_JOB_MAX_HOPS
                          ? p[dir]->n_links : LR_JOB_MAX_HOPS;
            memcpy(lp->links, p[dir]->links,
                   (size_t) lp->n_links * sizeof(int));
            lp->length_km = p[dir]->length_km;
            lp->mod = mod;
            lp->first = first;
            lp->m = m;
            int mm;
            lr_topo_block_nm(&c->topo->links[p[dir]->links[0]], first, m,
                             &lp->n, &mm);
            lp->capacity_gbps = rate;
        }
    }
    for (int s = 0; s < plan->n_stages; s++)
        job->gpus[plan->stages[s].dc] += plan->stages[s].g;
    job->iteration_s = ev->T;
    job->phase = LR_JOB_PLANNED;
    const struct lr_cluster *cl = c->cluster;
    if (cd->n_dcs == 1)
        snprintf(job->note, sizeof job->note, "ppo: candidate %d, %s with "
                 "%d GPUs", a, cl->dcs[cd->dc[0]].name,
                 lr_jenv_cand_gpus(env, a, 0));
    else
        snprintf(job->note, sizeof job->note, "ppo: candidate %d, %s (%d "
                 "GPUs) then %s (%d GPUs), route %d at %d Gb/s", a,
                 cl->dcs[cd->dc[0]].name, lr_jenv_cand_gpus(env, a, 0),
                 cl->dcs[cd->dc[1]].name, lr_jenv_cand_gpus(env, a, 1),
                 cd->route, rate);
    ppo_note_work(job, work, ro);
    rc = 0;
cleanup:
    lr_tm_free(tm);
    free(ev);
    return rc;
}

/* Plans and places lightpaths; the job ends planned (holding, in memory,
 * what it will need) or blocked with a reason.  Nothing is stored.  A
 * ppo intent takes decision 'dec' (lr_ctl_decide_begin) when not NULL. */
static int
admit(struct lr_ctl *c, const struct lr_model *model, struct lr_job *job,
      const struct lr_ctl_decision *dec, char *err, size_t errlen)
{
    const struct lr_intent *in = &job->intent;
    const struct lr_cluster *cl = c->cluster;
    struct lr_tm *tm = NULL;
    struct lr_plan *plan = &job->plan;
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_cdynp_result *res = c->n_remote ? malloc(sizeof *res) : NULL;
    struct lr_train tr = { in->batch, in->micro, 2 };
    int rc = 0, free_total = 0;
    const char *algo = in->algorithm;
    if (!ev || (c->n_remote && !res)) {
        free(ev);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    if (lr_tm_new(model, cl, &tr, &tm)) {
        rc = fail(err, errlen, EINVAL, "batch %g is not a multiple of "
                  "microbatch %g", in->batch, in->micro);
        goto cleanup;
    }
    /* ppo: the policy's decision, else CDynP with the reason noted. */
    if (!strcmp(algo, "ppo")) {
        char why[LR_JOB_REASON_MAX - 40];
        double work;
        const char *ro;
        int a = dec ? ppo_decided(c, in, dec, &work, &ro, why, sizeof why)
                    : ppo_choose(c, in, &work, &ro, why, sizeof why);
        if (a == LR_CTL_PPO_REFUSED) {
            job->phase = LR_JOB_BLOCKED;
            set_reason(job, "refused by the ppo policy: %s", why);
            snprintf(job->note, sizeof job->note, "ppo: refused the job");
            ppo_note_work(job, work, ro);
            c->counters.blocks_plan++;
            c->counters.ppo_refused++;
            goto cleanup;
        }
        int prc = a < 0 ? -1 : admit_ppo(c, model, &tr, job, a, work, ro,
                                         why, sizeof why);
        if (prc > 0) {
            rc = fail(err, errlen, prc, "out of memory");
            goto cleanup;
        }
        if (prc == 0) {
            c->counters.ppo_candidate++;
            goto cleanup;
        }
        c->counters.ppo_cdynp++;
        snprintf(job->note, sizeof job->note, "ppo: %s; planned by cdynp",
                 why);
        algo = "cdynp";
    }
    /* 1. Free GPUs, trimmed to the maximum, most compute first. */
    int order[LR_TM_MAX_DCS];
    for (int k = 0; k < cl->n_dcs; k++) {
        order[k] = k;
        if (!c->agent[k])
            free_total += cl->dcs[k].n_devices - c->gpus_used[k];
    }
    for (int i = 1; i < cl->n_dcs; i++)
        for (int j = i; j > 0; j--) {
            const struct lr_tm_dc *a = &tm->dcs[order[j]],
                                  *b = &tm->dcs[order[j - 1]];
            if (a->n_devices * a->peak * a->eff
                <= b->n_devices * b->peak * b->eff)
                break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    /* A remote DC's free devices are its agent's to know. */
    if (free_total < in->gpus_min && !c->n_remote) {
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no GPUs: %d free in all "
                 "data centers, at least %d wanted", free_total,
                 in->gpus_min);
        c->counters.blocks_gpus++;
        goto cleanup;
    }
    int budget = in->gpus_max;
    for (int i = 0; i < cl->n_dcs; i++) {
        int k = order[i], f = cl->dcs[k].n_devices - c->gpus_used[k];
        if (c->agent[k])
            continue;
        tm->dcs[k].n_devices = f < budget ? f : budget;
        budget -= tm->dcs[k].n_devices;
    }

    /* 2. The plan, over the fixed inter-DC links. */
    if (c->n_remote) {
        char why[LR_JOB_REASON_MAX - 32];
        if (plan_with_agents(c, tm, res, plan, why, sizeof why)
            != LR_TM_OK) {
            job->phase = LR_JOB_BLOCKED;
            set_reason(job, "no plan (cdynp): %s", why);
            c->counters.blocks_plan++;
            goto cleanup;
        }
    }
    /* zone scores over the network as last measured, which the memo
     * does not key on. */
    enum lr_tm_why why = c->n_remote ? LR_TM_OK
                         : !strcmp(algo, "zone")
                         ? lr_baseline_zone(tm, c->dp ? c->tel : NULL, plan,
                                            ev)
                         : plan_memoised(c, in, algo, tm, plan, ev);
    if (why != LR_TM_OK) {
        char detail[LR_JOB_REASON_MAX];
        lr_tm_explain(tm, why, detail, sizeof detail);
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no plan (%s): %s", algo, detail);
        c->counters.blocks_plan++;
        goto cleanup;
    }
    if (!strcmp(algo, "dp")) {
        /* Data parallelism across DCs syncs over the WAN, which needs a
         * lightpath mesh this controller does not provision yet: it runs
         * in its first DC only, a one-stage pipeline in the model. */
        plan->n_stages = 1;
        plan->stages[0].g = tm->dcs[plan->stages[0].dc].n_devices;
    }
    for (int s = 0; s < plan->n_stages; s++)
        job->gpus[plan->stages[s].dc] += plan->stages[s].g;

    /* 3. Two lightpaths per boundary between DCs. */
    for (int s = 0; s + 1 < plan->n_stages; s++) {
        int a = plan->stages[s].dc, b = plan->stages[s + 1].dc;
        if (a == b)
            continue;
        double cap = INFINITY, lat = 0;
        for (int dir = 0; dir < 2; dir++) {
            int from = dir ? b : a, to = dir ? a : b;
            struct lr_rsa_request req = {
                c->dc_node[from], c->dc_node[to], 0,
            };
            struct lr_rsa_choice ch;
            enum lr_rsa_block blk = LR_RSA_NO_PATH;
            double rate = 0;
            if (req.src < 0 || req.dst < 0) {
                blk = LR_RSA_NO_PATH;
            } else if (req.src == req.dst) {
                blk = LR_RSA_NO_PATH;
            } else {
                for (size_t r = 0; r < sizeof lr_ctl_rates
                                       / sizeof *lr_ctl_rates; r++) {
                    req.rate_gbps = lr_ctl_rates[r];
                    blk = lr_rsa_decide(c->rsa, &req, &ch);
                    if (blk == LR_RSA_OK) {
                        rate = lr_ctl_rates[r];
                        break;
                    }
                }
            }
            if (blk != LR_RSA_OK || job->n_lightpaths
                                    == LR_JOB_MAX_LIGHTPATHS) {
                job->phase = LR_JOB_BLOCKED;
                set_reason(job, "no spectrum: no lightpath of 100 Gb/s or more "
                         "from %s (%s) to %s (%s): %s",
                         cl->dcs[from].name,
                         req.src >= 0 ? c->topo->nodes[req.src].name : "?",
                         cl->dcs[to].name,
                         req.dst >= 0 ? c->topo->nodes[req.dst].name : "?",
                         req.src == req.dst && req.src >= 0
                         ? "both attach to the same ROADM"
                         : lr_rsa_block_reason(blk));
                c->counters.blocks_spectrum++;
                goto cleanup;
            }
            lr_rsa_commit(c->rsa, &ch);
            const struct lr_path *p = &c->rsa->ksp->paths[ch.path];
            struct lr_lightpath *lp = &job->lp[job->n_lightpaths++];
            memset(lp, 0, sizeof *lp);
            lp->from_dc = from;
            lp->to_dc = to;
            lp->n_links = p->n_links < LR_JOB_MAX_HOPS ? p->n_links
                                                       : LR_JOB_MAX_HOPS;
            memcpy(lp->links, p->links, (size_t) lp->n_links * sizeof(int));
            lp->length_km = p->length_km;
            lp->mod = ch.mod;
            lp->first = ch.first;
            lp->m = ch.m;
            int mm;
            lr_topo_block_nm(&c->topo->links[p->links[0]], ch.first, ch.m,
                             &lp->n, &mm);
            lp->capacity_gbps = rate;
            cap = fmin(cap, rate);
            lat = fmax(lat, p->length_km * LR_CTL_S_PER_KM);
        }
        /* 4. Optical mode for this pair. */
        lr_tm_set_link(tm, a, b, cap * 1e9 / 8, lat);
    }
    /* A plan that fitted over the fixed links may not fit over the
     * lightpaths only by time, never by memory: T is always defined.
     * Private stages cannot be evaluated here: the chain's T stays. */
    if (c->n_remote) {
        job->iteration_s = res->T;
        if (commit_remote(c, job, res)) {
            job->phase = LR_JOB_BLOCKED;
            c->counters.blocks_plan++;
            goto cleanup;
        }
    } else {
        lr_tm_evaluate(tm, plan, ev);
        job->iteration_s = ev->T;
    }
    job->phase = LR_JOB_PLANNED;

cleanup:
    if (job->phase == LR_JOB_BLOCKED) {
        /* Give back the spectrum booked before the block. */
        for (int i = 0; i < job->n_lightpaths; i++)
            lr_spectrum_release(c->rsa->sp, job->lp[i].links,
                                job->lp[i].n_links, job->lp[i].first,
                                job->lp[i].m);
        job->n_lightpaths = 0;
        memset(job->gpus, 0, sizeof job->gpus);
        job->plan.n_stages = 0;
    }
    lr_tm_free(tm);
    free(ev);
    free(res);
    return rc;
}

/* The op of job 'name' in flight, or NULL. */
static struct lr_ctl_op *
op_in_flight(const struct lr_ctl *c, const char *name)
{
    for (struct lr_ctl_op *op = c->ops; op; op = op->next)
        if (!op->recon && !strcmp(op->job.intent.name, name))
            return op;
    return NULL;
}

static void
op_lend(struct lr_ctl *c, struct lr_ctl_op *op)
{
    op->next = c->ops;
    c->ops = op;
}

static void
op_unlend(struct lr_ctl *c, struct lr_ctl_op *op)
{
    for (struct lr_ctl_op **p = &c->ops; *p; p = &(*p)->next)
        if (*p == op) {
            *p = op->next;
            return;
        }
}

static int
fail_exists(const struct lr_ctl *c, const char *name, char *err,
            size_t errlen)
{
    return fail(err, errlen, EEXIST, "a job named '%s' exists%s; delete it "
                "first or choose another name", name,
                op_in_flight(c, name) ? " (its devices are being programmed)"
                                      : "");
}

/* EBUSY while a ppo decision is in flight: "...; <what> when it has". */
static int
fail_deciding(const struct lr_ctl *c, char *err, size_t errlen,
              const char *what)
{
    return fail(err, errlen, EBUSY, "the ppo policy is deciding job '%s'; "
                "%s when it has", lr_ctl_op_job(c->deciding), what);
}

/* lr_ctl_submit_begin, with the ppo decision 'dec' when not NULL. */
static int
submit_begin(struct lr_ctl *c, const struct lr_intent *intent,
             const struct lr_ctl_decision *dec, struct lr_job *job,
             struct lr_ctl_op **op, char *err, size_t errlen)
{
    struct lr_model *model = NULL;
    *op = NULL;
    if (find_job(c, intent->name))
        return fail_exists(c, intent->name, err, errlen);
    if (lr_intent_model(intent, &model))
        return fail(err, errlen, EINVAL, intent->custom
                    ? "model '%s': the planner cannot build this shape"
                    : "unknown model '%s'", intent->model);
    if (intent->gpus_min < 1 || intent->gpus_max < intent->gpus_min) {
        lr_model_free(model);
        return fail(err, errlen, EINVAL, "gpus: min %d, max %d: want "
                    "1 <= min <= max", intent->gpus_min, intent->gpus_max);
    }
    if (c->n_remote && intent->algorithm[0]
        && strcmp(intent->algorithm, "cdynp")) {
        lr_model_free(model);
        return fail(err, errlen, EINVAL, "algorithm '%s' needs every data "
                    "center's devices, and %d are planned by their agents: "
                    "ask for cdynp", intent->algorithm, c->n_remote);
    }
    memset(job, 0, sizeof *job);
    job->intent = *intent;
    if (!job->intent.algorithm[0])
        snprintf(job->intent.algorithm, sizeof job->intent.algorithm,
                 "cdynp");
    job->created_ms = job->updated_ms = ctl_now_ms(c);
    job->phase = LR_JOB_SUBMITTED;
    int rc = admit(c, model, job, dec, err, errlen);
    lr_model_free(model);
    if (rc)
        return rc;

    if (job->phase == LR_JOB_BLOCKED) {
        c->counters.blocks++;
        rc = lr_store_put_job(c->store, job);
        if (rc)
            return fail(err, errlen, EIO, "store: %s",
                        lr_store_error(c->store));
        return remember_job(c, job);
    }

    /* 5. Reserve in one transaction.  A job without lightpaths touches no
     * device and goes straight to active: one transaction is the whole
     * admission.  Otherwise it is stored as provisioning first, so that a
     * crash during step 6 is rolled back at restart; from here its GPUs
     * and slots are taken for every later admission. */
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] += job->gpus[k];
    job->phase = job->n_lightpaths ? LR_JOB_PROVISIONING : LR_JOB_ACTIVE;
    if (job->n_lightpaths && op_new(c, job, false, op)) {
        unbook(c, job);
        release_remote(c, job);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    rc = lr_store_put_job(c->store, job);
    if (rc) {
        op_free(*op);
        *op = NULL;
        unbook(c, job);
        release_remote(c, job);
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    }
    if ((rc = remember_job(c, job))) {
        /* Stored as provisioning: recovery rolls it back at restart. */
        op_free(*op);
        *op = NULL;
        return fail(err, errlen, rc, "out of memory");
    }
    if (job->phase == LR_JOB_ACTIVE) {
        c->counters.admissions++;
        return 0;
    }
    op_lend(c, *op);
    return 0;
}

int
lr_ctl_submit_begin(struct lr_ctl *c, const struct lr_intent *intent,
                    struct lr_job *job, struct lr_ctl_op **op, char *err,
                    size_t errlen)
{
    *op = NULL;
    if (c->deciding && !strcmp(intent->algorithm, "ppo"))
        return fail_deciding(c, err, errlen, "submit again");
    return submit_begin(c, intent, NULL, job, op, err, errlen);
}

int
lr_ctl_decide_begin(struct lr_ctl *c, const struct lr_intent *intent,
                    struct lr_ctl_op **op, char *err, size_t errlen)
{
    *op = NULL;
    if (strcmp(intent->algorithm, "ppo") || !c->ppo || lr_ctl_ppo_why(c->ppo)
        || !lr_ctl_ppo_has_rollout(c->ppo))
        return 0;
    if (c->deciding)
        return fail_deciding(c, err, errlen, "submit again");
    if (find_job(c, intent->name))
        return fail_exists(c, intent->name, err, errlen);
    struct lr_ctl_op *o = calloc(1, sizeof *o);
    struct lr_ctl_decision *d = calloc(1, sizeof *d);
    const struct lr_spectrum *sp = c->rsa->sp;
    size_t n_occ = (size_t) sp->n_links * (size_t) sp->nw;
    uint64_t *occ = malloc((n_occ + 1) * sizeof *occ);
    if (!o || !d || !occ) {
        free(o);
        free(d);
        free(occ);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    o->job.intent = *intent;
    o->dec = d;
    d->ppo = c->ppo;
    d->a = -1;
    d->ro = "";
    d->n = ppo_prepare(c, intent, &d->work, d->why, sizeof d->why);
    memcpy(d->used, c->gpus_used,
           (size_t) c->cluster->n_dcs * sizeof *d->used);
    memcpy(occ, sp->occ, n_occ * sizeof *occ);
    d->occ = occ;
    d->n_occ = n_occ;
    c->deciding = *op = o;
    return 0;
}

int
lr_ctl_submit_decided(struct lr_ctl *c, struct lr_ctl_op *decision,
                      struct lr_job *job, struct lr_ctl_op **op, char *err,
                      size_t errlen)
{
    if (c->deciding == decision)
        c->deciding = NULL;
    int rc = submit_begin(c, &decision->job.intent, decision->dec, job, op,
                          err, errlen);
    op_free(decision);
    return rc;
}

void
lr_ctl_op_run(struct lr_ctl_op *op)
{
    op_run(op);
}

const char *
lr_ctl_op_job(const struct lr_ctl_op *op)
{
    return op->job.intent.name;
}

/* EBUSY while the first op in flight has the devices: "<what> is being
 * <done> on the devices<then>". */
static int
fail_busy(const struct lr_ctl *c, char *err, size_t errlen,
          const char *then)
{
    const struct lr_ctl_op *op = c->ops;
    return fail(err, errlen, EBUSY, "%s%s is being %s on the devices%s",
                op->recon ? "a reconciliation" : "job ",
                lr_ctl_op_job(op),
                op->recon ? "run" : op->release ? "released" : "provisioned",
                then);
}

/* Step 3 of an admission: 7. active, or the job fails holding nothing. */
static int
end_submit(struct lr_ctl *c, const struct lr_ctl_op *op, struct lr_job *job,
           char *err, size_t errlen)
{
    *job = op->job;
    if (op->rc) {
        unbook(c, job);
        release_remote(c, job);
        job->phase = LR_JOB_FAILED;
        set_reason(job, "%s", op->err);
        job->n_lightpaths = 0;
        memset(job->gpus, 0, sizeof job->gpus);
        job->updated_ms = ctl_now_ms(c);
        c->counters.failures++;
        /* Memory first: the GPUs and slots are free whatever the store
         * says, and a store that failed is rolled back at restart. */
        int rc = remember_job(c, job);
        if (lr_store_put_job(c->store, job))
            return fail(err, errlen, EIO, "store: %s",
                        lr_store_error(c->store));
        return rc;
    }
    job->phase = LR_JOB_ACTIVE;
    job->updated_ms = ctl_now_ms(c);
    int rc = remember_job(c, job);
    if (lr_store_set_phase(c->store, job->intent.name, LR_JOB_ACTIVE, "",
                           job->updated_ms))
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    c->counters.admissions++;
    return rc;
}

/* Step 3 of a release: the job and all it holds deleted, or it stays
 * releasing (a retried DELETE or recovery finishes it). */
static int
end_delete(struct lr_ctl *c, const struct lr_ctl_op *op, char *err,
           size_t errlen)
{
    const struct lr_job *job = &op->job;
    const char *name = job->intent.name;
    if (op->rc)
        return fail(err, errlen, op->rc, "%s", op->err);
    unbook(c, job);
    release_remote(c, job);
    if (lr_store_delete_job(c->store, name))
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    forget_job(c, name);
    c->counters.deletes++;
    return 0;
}

int
lr_ctl_op_end(struct lr_ctl *c, struct lr_ctl_op *op, struct lr_job *job,
              char *err, size_t errlen)
{
    struct lr_job scratch;
    int rc = 0;
    op_unlend(c, op);
    if (c->deciding == op)
        c->deciding = NULL;
    if (op->recon)
        rc = end_reconcile(c, op, NULL, NULL, err, errlen);
    else if (op->release)
        rc = end_delete(c, op, err, errlen);
    else if (!op->dec)                /* a decision is only dropped */
        rc = end_submit(c, op, job ? job : &scratch, err, errlen);
    op_free(op);
    return rc;
}

int
lr_ctl_submit(struct lr_ctl *c, const struct lr_intent *intent,
              struct lr_job *job, char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    int rc = lr_ctl_submit_begin(c, intent, job, &op, err, errlen);
    if (rc || !op)
        return rc;
    lr_ctl_op_run(op);
    return lr_ctl_op_end(c, op, job, err, errlen);
}

int
lr_ctl_delete_begin(struct lr_ctl *c, const char *name, struct lr_ctl_op **op,
                    char *err, size_t errlen)
{
    struct lr_job *j = find_job(c, name);
    const struct lr_ctl_op *busy = op_in_flight(c, name);
    *op = NULL;
    if (!j)
        return fail(err, errlen, ENOENT, "no job named '%s'", name);
    if (busy)
        return fail(err, errlen, EBUSY, "job '%s' is %s: try again when "
                    "its phase is no longer %s (GET it)", name,
                    busy->release ? "being released" : "being provisioned",
                    busy->release ? "releasing" : "provisioning");
    struct lr_job job = *j;
    /* Only a job with channels on devices needs the releasing phase; a
     * job that holds GPUs alone is released by the delete itself. */
    if (job.n_lightpaths > 0) {
        if (op_new(c, &job, true, op))
            return fail(err, errlen, ENOMEM, "out of memory");
        if (lr_store_set_phase(c->store, name, LR_JOB_RELEASING, "",
                               ctl_now_ms(c))) {
            op_free(*op);
            *op = NULL;
            return fail(err, errlen, EIO, "store: %s",
                        lr_store_error(c->store));
        }
        j->phase = LR_JOB_RELEASING;
        (*op)->job.phase = LR_JOB_RELEASING;
        op_lend(c, *op);
        return 0;
    }
    if (job.phase == LR_JOB_ACTIVE)
        unbook(c, &job);
    if (job.phase == LR_JOB_ACTIVE || job.phase == LR_JOB_RELEASING)
        release_remote(c, &job);
    if (lr_store_delete_job(c->store, name))
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    forget_job(c, name);
    c->counters.deletes++;
    return 0;
}

int
lr_ctl_delete(struct lr_ctl *c, const char *name, char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    int rc = lr_ctl_delete_begin(c, name, &op, err, errlen);
    if (rc || !op)
        return rc;
    lr_ctl_op_run(op);
    return lr_ctl_op_end(c, op, NULL, err, errlen);
}

int
lr_ctl_busy(const struct lr_ctl *c)
{
    int n = 0;
    for (const struct lr_ctl_op *op = c->ops; op; op = op->next)
        n++;
    return n;
}

int
lr_ctl_get(struct lr_ctl *c, const char *name, struct lr_job *job)
{
    struct lr_job *j = find_job(c, name);
    if (!j)
        return ENOENT;
    *job = *j;
    return 0;
}

static int
cmp_job(const void *a, const void *b)
{
    return strcmp(((const struct lr_job *) a)->intent.name,
                  ((const struct lr_job *) b)->intent.name);
}

int
lr_ctl_list(struct lr_ctl *c, struct lr_job **jobs, int *n)
{
    *jobs = malloc(((size_t) c->n_jobs + 1) * sizeof **jobs);
    if (!*jobs)
        return ENOMEM;
    if (c->n_jobs)      /* c->jobs is NULL before the first job */
        memcpy(*jobs, c->jobs, (size_t) c->n_jobs * sizeof **jobs);
    qsort(*jobs, (size_t) c->n_jobs, sizeof **jobs, cmp_job);
    *n = c->n_jobs;
    return 0;
}

/* ---- reconciliation ---- */

/* Appends a line, of any length, to a growing report. */
static void
say(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n < 0 ? NULL : realloc(*buf, *len + (size_t) n + 2);
    if (p) {
        vsnprintf(p + *len, (size_t) n + 1, fmt, ap2);
        *len += (size_t) n;
        p[(*len)++] = '\n';
        p[*len] = '\0';
        *buf = p;
    }
    va_end(ap2);
}

/* What a reconciliation compares the devices with, snapshot on the
 * controller's thread when it begins (lr_ctl_reconcile_begin), so that
 * its device step reads nothing of the controller. */
struct lr_ctl_want {                  /* a channel an active job holds */
    int node;
    struct sb_media_channel mc;
    char job[LR_JOB_NAME_MAX];
};
struct lr_ctl_pair {                  /* an active job's emulated pair */
    char name[SB_NAME_MAX];
    int from_dc, to_dc;
    double capacity_gbps;
    char job[LR_JOB_NAME_MAX];
};
struct lr_ctl_skip {                  /* a channel (dev) or pair (NULL) of */
    const struct sb_device *dev;      /* a job whose device work is */
    char name[SB_NAME_MAX];           /* queued ahead: not judged */
};
struct lr_ctl_recon {
    bool repair;
    int n_nodes;
    struct sb_par_item *rd;           /* [n_nodes]: the reads */
    char (*node)[SB_NAME_MAX];        /* [n_nodes] */
    struct lr_ctl_want *want;
    int n_want;
    struct lr_ctl_pair *pair;
    int n_pair;
    struct lr_ctl_skip *skip;
    int n_skip;
    /* Set by the device step. */
    char *report;
    size_t len;
    int drift;
};

static void
recon_free(struct lr_ctl_recon *r)
{
    if (!r)
        return;
    for (int i = 0; r->rd && i < r->n_nodes; i++)
        free(r->rd[i].mc);
    free(r->rd);
    free(r->node);
    free(r->want);
    free(r->pair);
    free(r->skip);
    free(r->report);
    free(r);
}

static bool
recon_skipped(const struct lr_ctl_recon *r, const struct sb_device *dev,
              const char *name)
{
    for (int i = 0; i < r->n_skip; i++)
        if (r->skip[i].dev == dev && !strcmp(r->skip[i].name, name))
            return true;
    return false;
}

/* The emulated data plane against the snapshot: pairs nobody holds and
 * pairs an active job misses.  Under the data plane's lock. */
static void
recon_dataplane(struct lr_ctl_op *op)
{
    struct lr_ctl_recon *r = op->recon;
    struct sb_linux_link *links = NULL;
    int n = 0;
    char e[512];
    if (!op->dp)
        return;
    pthread_mutex_lock(op->dp_lock);
    if (sb_linux_links(op->dp, &links, &n)) {
        pthread_mutex_unlock(op->dp_lock);
        return;
    }
    for (int i = 0; i < n; i++) {
        bool held = recon_skipped(r, NULL, links[i].name);
        for (int j = 0; j < r->n_pair && !held; j++)
            held = !strcmp(r->pair[j].name, links[i].name)
                   && links[i].from_dc == r->pair[j].from_dc
                   && links[i].to_dc == r->pair[j].to_dc;
        if (held)
            continue;
        r->drift++;
        say(&r->report, &r->len, "data plane: pair %s (%s -> %s) is not "
            "in the store%s", links[i].name, links[i].src_ns,
            links[i].dst_ns, r->repair ? ": removed" : "");
        if (r->repair)
            sb_linux_remove(op->dp, links[i].name, e, sizeof e);
    }
    for (int j = 0; j < r->n_pair; j++) {
        const struct lr_ctl_pair *p = &r->pair[j];
        struct sb_linux_link l;
        if (!sb_linux_get(op->dp, p->name, &l))
            continue;
        r->drift++;
        int rc = r->repair ? sb_linux_add(op->dp, p->name, p->from_dc,
                                          p->to_dc, p->capacity_gbps, e,
                                          sizeof e)
                           : 0;
        say(&r->report, &r->len, "data plane: pair %s of job %s is "
            "missing%s%s", p->name, p->job,
            !r->repair ? "" : rc ? ": cannot re-make it: " : ": re-made",
            r->repair && rc ? e : "");
    }
    pthread_mutex_unlock(op->dp_lock);
    free(links);
}

/* The device step of a reconciliation: every device read at once
 * (sb_parallel), the drift against the snapshot, and with 'repair' the
 * orphans removed and the missing channels re-applied, every device at
 * once again.  Any one thread; reads only 'op'. */
static void
recon_run(struct lr_ctl_op *op)
{
    struct lr_ctl_recon *r = op->recon;
    struct sb_par_item *fix = calloc((size_t) r->n_nodes + 1, sizeof *fix);
    struct sb_change **fch = calloc((size_t) r->n_nodes + 1, sizeof *fch);
    int n_fix = 0;
    free(r->report);
    r->report = NULL;
    r->len = 0;
    r->drift = 0;
    op->rc = 0;
    op->err[0] = '\0';
    if (!fix || !fch) {
        free(fix);
        free(fch);
        op->rc = ENOMEM;
        snprintf(op->err, sizeof op->err, "out of memory");
        return;
    }
    sb_apply_parallel(r->rd, r->n_nodes);
    for (int node = 0; node < r->n_nodes; node++) {
        const struct sb_par_item *rd = &r->rd[node];
        const struct sb_media_channel *mc = rd->mc;
        int n = rd->n_mc, nf = 0;
        if (rd->rc) {
            say(&r->report, &r->len, "%s: cannot read: %s", r->node[node],
                rd->err);
            op->rc = EIO;
            snprintf(op->err, sizeof op->err, "%s", rd->err);
            continue;
        }
        struct sb_change *ch = calloc((size_t) n + (size_t) r->n_want + 1,
                                      sizeof *ch);
        /* Orphans and strangers on the device. */
        for (int i = 0; i < n; i++) {
            if (recon_skipped(r, rd->dev, mc[i].name))
                continue;
            bool ok = false;
            for (int w = 0; w < r->n_want && !ok; w++) {
                const struct sb_media_channel *want = &r->want[w].mc;
                ok = r->want[w].node == node && !strcmp(want->name, mc[i].name)
                     && want->n == mc[i].n && want->m == mc[i].m
                     && !strcmp(want->in_port, mc[i].in_port)
                     && !strcmp(want->out_port, mc[i].out_port);
            }
            if (ok)
                continue;
            r->drift++;
            say(&r->report, &r->len, "%s: channel %s (n=%d m=%d) is not in "
                "the store%s", r->node[node], mc[i].name, mc[i].n, mc[i].m,
                r->repair ? ": removed" : "");
            if (ch)
                ch[nf++] = (struct sb_change) { .op = SB_DELETE,
                                                .mc = mc[i] };
        }
        /* Missing channels of active jobs. */
        for (int w = 0; w < r->n_want; w++) {
            const struct lr_ctl_want *want = &r->want[w];
            bool present = false;
            if (want->node != node)
                continue;
            for (int i = 0; i < n && !present; i++)
                present = !strcmp(mc[i].name, want->mc.name)
                          && mc[i].n == want->mc.n && mc[i].m == want->mc.m;
            if (present)
                continue;
            r->drift++;
            say(&r->report, &r->len, "%s: channel %s of job %s is missing%s",
                r->node[node], want->mc.name, want->job,
                r->repair ? ": re-applied" : "");
            if (ch)
                ch[nf++] = (struct sb_change) { .op = SB_ADD,
                                                .mc = want->mc };
        }
        if (r->repair && ch && nf) {
            fch[n_fix] = ch;
            fix[n_fix++] = (struct sb_par_item) {
                .cls = rd->cls, .dev = rd->dev, .changes = ch, .n = nf,
                .each = true,
            };
        } else {
            free(ch);
        }
    }
    if (n_fix && sb_apply_parallel(fix, n_fix))
        for (int i = 0; i < n_fix; i++)
            if (fix[i].rc)
                for (int node = 0; node < r->n_nodes; node++)
                    if (r->rd[node].dev == fix[i].dev)
                        say(&r->report, &r->len, "%s: the repair failed: %s",
                            r->node[node], fix[i].err);
    for (int i = 0; i < n_fix; i++)
        free(fch[i]);
    free(fch);
    free(fix);
    recon_dataplane(op);
}

int
lr_ctl_reconcile_begin(struct lr_ctl *c, bool repair, struct lr_ctl_op **out,
                       char *err, size_t errlen)
{
    int nn = c->topo->n_nodes, n_want = 0, n_pair = 0, n_skip = 0;
    struct lr_ctl_op *op = calloc(1, sizeof *op);
    struct lr_ctl_recon *r = calloc(1, sizeof *r);
    *out = NULL;
    for (int j = 0; j < c->n_jobs; j++)
        if (c->jobs[j].phase == LR_JOB_ACTIVE) {
            n_pair += c->jobs[j].n_lightpaths;
            for (int k = 0; k < c->jobs[j].n_lightpaths; k++)
                n_want += c->jobs[j].lp[k].n_links + 1;
        }
    for (const struct lr_ctl_op *o = c->ops; o; o = o->next)
        if (!o->recon) {
            n_skip += o->job.n_lightpaths;
            for (int i = 0; i < o->n_items; i++)
                n_skip += o->items[i].n;
        }
    if (op && r) {
        r->rd = calloc((size_t) nn + 1, sizeof *r->rd);
        r->node = calloc((size_t) nn + 1, sizeof *r->node);
        r->want = calloc((size_t) n_want + 1, sizeof *r->want);
        r->pair = calloc((size_t) n_pair + 1, sizeof *r->pair);
        r->skip = calloc((size_t) n_skip + 1, sizeof *r->skip);
    }
    if (!op || !r || !r->rd || !r->node || !r->want || !r->pair
        || !r->skip) {
        recon_free(r);
        free(op);
        return fail(err, errlen, ENOMEM, "out of memory");
    }
    op->recon = r;
    op->dp = c->dp;
    op->dp_lock = &c->dp_lock;
    r->repair = repair;
    r->n_nodes = nn;
    for (int node = 0; node < nn; node++) {
        r->rd[node] = (struct sb_par_item) { .cls = c->cls[node],
                                             .dev = c->dev[node],
                                             .read = true };
        snprintf(r->node[node], SB_NAME_MAX, "%s", c->topo->nodes[node].name);
    }
    for (int j = 0; j < c->n_jobs; j++) {
        const struct lr_job *job = &c->jobs[j];
        if (job->phase != LR_JOB_ACTIVE)
            continue;
        for (int node = 0; node < nn; node++) {
            struct sb_change ch[LR_JOB_MAX_LIGHTPATHS];
            int nc = changes_for(c, job, node, SB_ADD, ch);
            for (int k = 0; k < nc && r->n_want < n_want; k++) {
                struct lr_ctl_want *w = &r->want[r->n_want++];
                w->node = node;
                w->mc = ch[k].mc;
                snprintf(w->job, sizeof w->job, "%s", job->intent.name);
            }
        }
        for (int k = 0; k < job->n_lightpaths; k++) {
            struct lr_ctl_pair *p = &r->pair[r->n_pair++];
            lp_name(job, k, p->name, sizeof p->name);
            p->from_dc = job->lp[k].from_dc;
            p->to_dc = job->lp[k].to_dc;
            p->capacity_gbps = job->lp[k].capacity_gbps;
            snprintf(p->job, sizeof p->job, "%s", job->intent.name);
        }
    }
    /* The device work queued ahead of this one ends before it runs, but
     * how (done, undone) is not known yet: its channels and pairs are
     * neither expected nor orphans. */
    for (const struct lr_ctl_op *o = c->ops; o; o = o->next) {
        if (o->recon)
            continue;
        for (int i = 0; i < o->n_items; i++)
            for (int k = 0; k < o->items[i].n; k++) {
                struct lr_ctl_skip *sk = &r->skip[r->n_skip++];
                sk->dev = o->items[i].dev;
                snprintf(sk->name, sizeof sk->name, "%s",
                         o->items[i].changes[k].mc.name);
            }
        for (int k = 0; k < o->job.n_lightpaths; k++)
            lp_name(&o->job, k, r->skip[r->n_skip++].name, SB_NAME_MAX);
    }
    op_lend(c, op);
    *out = op;
    return 0;
}

/* Step 3 of a reconciliation: the report and the counters. */
static int
end_reconcile(struct lr_ctl *c, struct lr_ctl_op *op, char **report,
              int *drift, char *err, size_t errlen)
{
    struct lr_ctl_recon *r = op->recon;
    c->counters.reconciles++;
    c->counters.drift += (unsigned long long) r->drift;
    if (drift)
        *drift = r->drift;
    if (report) {
        *report = r->report ? r->report : strdup("");
        r->report = NULL;
    }
    if (op->rc)
        return fail(err, errlen, op->rc, "%s", op->err);
    return 0;
}

int
lr_ctl_reconcile_end(struct lr_ctl *c, struct lr_ctl_op *op, char **report,
                     int *drift, char *err, size_t errlen)
{
    int rc;
    op_unlend(c, op);
    rc = op->recon ? end_reconcile(c, op, report, drift, err, errlen)
                   : fail(err, errlen, EINVAL, "not a reconciliation");
    op_free(op);
    return rc;
}

bool
lr_ctl_op_is_reconcile(const struct lr_ctl_op *op)
{
    return op->recon != NULL;
}

int
lr_ctl_reconcile(struct lr_ctl *c, bool repair, char **report, int *drift,
                 char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    if (report)
        *report = NULL;
    if (drift)
        *drift = 0;
    /* On the caller's thread: the devices of an op in flight are lent
     * to whoever runs it. */
    if (c->ops)
        return fail_busy(c, err, errlen, ": reconcile when no job is "
                         "provisioning or releasing");
    int rc = lr_ctl_reconcile_begin(c, repair, &op, err, errlen);
    if (rc)
        return rc;
    lr_ctl_op_run(op);
    return lr_ctl_reconcile_end(c, op, report, drift, err, errlen);
}

/* ---- start and recovery ---- */

static int
open_devices(struct lr_ctl *c, char *err, size_t errlen)
{
    int n = c->topo->n_nodes;
    c->cls = calloc((size_t) n + 1, sizeof *c->cls);
    c->dev = calloc((size_t) n + 1, sizeof *c->dev);
    if (!c->cls || !c->dev)
        return fail(err, errlen, ENOMEM, "out of memory");
    for (int node = 0; node < n; node++) {
        struct sb_device_config dc;
        memset(&dc, 0, sizeof dc);
        snprintf(dc.name, sizeof dc.name, "%s", c->topo->nodes[node].name);
        snprintf(dc.driver, sizeof dc.driver, "%s", c->default_driver);
        snprintf(dc.address, sizeof dc.address, "%s", c->dummy_dir);
        for (int i = 0; i < c->n_dev_cfg; i++)
            if (!strcmp(c->dev_cfg[i].name, dc.name))
                dc = c->dev_cfg[i];
        c->cls[node] = sb_driver_find(dc.driver);
        if (!c->cls[node])
            return fail(err, errlen, EINVAL, "ROADM %s: unknown southbound "
                        "driver '%s'", dc.name, dc.driver);
        char e[512];
        int rc = c->cls[node]->open(&dc, &c->dev[node], e, sizeof e);
        if (rc)
            return fail(err, errlen, rc, "ROADM %s: %s", dc.name, e);
    }
    return 0;
}

/* A party per DC the inventory marks remote; nothing is sent yet. */
static int
open_agents(struct lr_ctl *c, char *err, size_t errlen)
{
    c->n_remote = 0;
    for (int k = 0; k < c->cluster->n_dcs && !c->inspect; k++) {
        const struct lr_dc *dc = &c->cluster->dcs[k];
        if (dc->remote_port <= 0)
            continue;
        if (!c->agent_cert[0] || !c->agent_key[0] || !c->agent_ca[0])
            return fail(err, errlen, EINVAL, "data center %s is planned by "
                        "its agent (%s port %d): give the controller the "
                        "coordinator's certificate, key and the agents' CA "
                        "(lightrail-config: coordinator)", dc->name,
                        dc->remote_address, dc->remote_port);
        char e[1024];
        c->agent[k] = lr_agent_party_new(dc->remote_address, dc->remote_port,
                                         dc->remote_name, c->agent_cert,
                                         c->agent_key, c->agent_ca,
                                         c->agent_timeout, e, sizeof e);
        if (!c->agent[k])
            return fail(err, errlen, EINVAL, "agent of %s: %s", dc->name, e);
        c->n_remote++;
    }
    return 0;
}

/* Everything that follows from the topology and the inventory: copies
 * of both, the DCs' ROADMs, the RMSA engine (and its spectrum), the
 * devices; the memo of plans is forgotten. */
static int
open_network(struct lr_ctl *c, const struct lr_topo *topo,
             const struct lr_cluster *cluster, char *err, size_t errlen)
{
    c->topo = lr_topo_clone(topo);
    c->cluster = lr_cluster_clone(cluster);
    if (!c->topo || !c->cluster)
        return fail(err, errlen, ENOMEM, "out of memory");
    if (c->cluster->n_dcs > LR_TM_MAX_DCS)
        return fail(err, errlen, EINVAL, "more than %d data centers",
                    LR_TM_MAX_DCS);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->dc_node[k] = dc_node_of(c->topo, c->cluster, k);
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config rc_cfg = { .k = 5, .order = LR_KSP_HOPS,
                                    .guard = 1 };
    int rc = lr_rsa_new(c->topo, &rc_cfg, &mods, &lr_rsa_ksp_ff, &c->rsa);
    if (rc)
        return fail(err, errlen, rc, "cannot build the RMSA engine over the "
                    "topology: %s", strerror(rc));
    if (c->memo)
        memset(c->memo, 0, LR_CTL_MEMO * sizeof *c->memo);
    if ((rc = open_agents(c, err, errlen)))
        return rc;
    return open_devices(c, err, errlen);
}

static void
close_network(struct lr_ctl *c)
{
    for (int i = 0; c->dev && c->topo && i < c->topo->n_nodes; i++)
        if (c->dev[i])
            c->cls[i]->close(c->dev[i]);
    free(c->dev);
    free(c->cls);
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        if (c->agent[k])
            c->agent[k]->cls->free(c->agent[k]);
        c->agent[k] = NULL;
    }
    c->n_remote = 0;
    lr_rsa_free(c->rsa);
    lr_cluster_free(c->cluster);
    lr_topo_free(c->topo);
    c->dev = NULL;
    c->cls = NULL;
    c->rsa = NULL;
    c->cluster = NULL;
    c->topo = NULL;
}

int
lr_ctl_set_inventory(struct lr_ctl *c, const struct lr_topo *topo,
                     const struct lr_cluster *cluster, const char *topo_json,
                     const char *cluster_json, char *err, size_t errlen)
{
    if (c->ops)
        return fail_busy(c, err, errlen, " of the current network; try "
                         "again when it is done");
    if (c->deciding)
        return fail_deciding(c, err, errlen, "try the new network again");
    for (int i = 0; i < c->n_jobs; i++)
        if (c->jobs[i].phase == LR_JOB_ACTIVE
            || c->jobs[i].phase == LR_JOB_PROVISIONING
            || c->jobs[i].phase == LR_JOB_RELEASING)
            return fail(err, errlen, EBUSY, "job %s holds resources of the "
                        "current network; delete the active jobs before "
                        "replacing it", c->jobs[i].intent.name);
    /* The data plane has a namespace per DC of the cluster it was made
     * for, index for index. */
    for (int k = 0; c->dp && k < c->cluster->n_dcs; k++) {
        const char *ns = sb_linux_dc_ns(c->dp, k), *dash = ns ? strchr(ns, '-')
                                                              : NULL;
        if (cluster->n_dcs != c->cluster->n_dcs || !dash
            || strcmp(dash + 1, cluster->dcs[k].name))
            return fail(err, errlen, EINVAL, "the emulated data plane was "
                        "made for the data centers of the current "
                        "inventory; keep their names and order, or restart "
                        "lightraild with the new inventory");
    }
    /* Keep the old network until the new one stands. */
    struct lr_ctl old = *c;
    c->topo = NULL;
    c->cluster = NULL;
    c->rsa = NULL;
    c->cls = NULL;
    c->dev = NULL;
    memset(c->agent, 0, sizeof c->agent);
    int rc = open_network(c, topo, cluster, err, errlen);
    if (!rc && ((topo_json && lr_store_put_doc(c->store, "topology",
                                               topo_json))
                || (cluster_json && lr_store_put_doc(c->store, "cluster",
                                                     cluster_json))))
        rc = fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    if (rc) {
        close_network(c);
        c->topo = old.topo;
        c->cluster = old.cluster;
        c->rsa = old.rsa;
        c->cls = old.cls;
        c->dev = old.dev;
        memcpy(c->agent, old.agent, sizeof c->agent);
        c->n_remote = old.n_remote;
        memcpy(c->dc_node, old.dc_node, sizeof c->dc_node);
        return rc;
    }
    /* The policy's environment borrows the network: the new one now. */
    if (c->ppo)
        lr_ctl_ppo_bind(c->ppo, c->topo, c->cluster);
    close_network(&old);
    return 0;
}

/* Loads the store as it is, for lr_ctl_check(): active jobs are booked,
 * nothing is rolled back or repaired. */
static int
inspect(struct lr_ctl *c, char *err, size_t errlen)
{
    struct lr_job *jobs = NULL;
    int n = 0, rc = 0;
    if (lr_store_list_jobs(c->store, &jobs, &n))
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    for (int i = 0; i < n && !rc; i++) {
        if (jobs[i].phase == LR_JOB_ACTIVE && book(c, &jobs[i]))
            rc = fail(err, errlen, EINVAL, "job %s: its slots collide with "
                      "another job's", jobs[i].intent.name);
        else
            rc = remember_job(c, &jobs[i]);
    }
    free(jobs);
    return rc;
}

static int
recover(struct lr_ctl *c, char **report, char *err, size_t errlen)
{
    struct lr_job *jobs = NULL;
    int n = 0, rc = lr_store_list_jobs(c->store, &jobs, &n);
    char *buf = NULL;
    size_t len = 0;
    if (rc)
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    for (int i = 0; i < n && !rc; i++) {
        struct lr_job *j = &jobs[i];
        char e[512];
        switch (j->phase) {
        case LR_JOB_PROVISIONING:
        case LR_JOB_SUBMITTED:
        case LR_JOB_PLANNED:
            /* Interrupted before it was active: roll back. */
            unprovision_now(c, j, e, sizeof e);
            release_remote(c, j);
            j->phase = LR_JOB_FAILED;
            set_reason(j, "provisioning was interrupted by a controller "
                       "restart and rolled back");
            j->n_lightpaths = 0;
            memset(j->gpus, 0, sizeof j->gpus);
            j->updated_ms = ctl_now_ms(c);
            if (lr_store_put_job(c->store, j))
                rc = fail(err, errlen, EIO, "store: %s",
                          lr_store_error(c->store));
            say(&buf, &len, "job %s: provisioning interrupted: rolled back",
                j->intent.name);
            remember_job(c, j);
            break;
        case LR_JOB_RELEASING:
            unprovision_now(c, j, e, sizeof e);
            release_remote(c, j);
            if (lr_store_delete_job(c->store, j->intent.name))
                rc = fail(err, errlen, EIO, "store: %s",
                          lr_store_error(c->store));
            say(&buf, &len, "job %s: release interrupted: finished",
                j->intent.name);
            break;
        case LR_JOB_ACTIVE:
            if (book(c, j)) {
                rc = fail(err, errlen, EIO, "job %s: its slots collide with "
                          "another job's in the store; run lightrail "
                          "reconcile after fixing the store",
                          j->intent.name);
                break;
            }
            /* A data plane starts empty: make the pairs again.  One that
             * cannot be made is reported; the job stays active on its
             * ROADMs, which are what it holds. */
            if (dp_add(c->dp, &c->dp_lock, j, true, e, sizeof e))
                say(&buf, &len, "job %s: %s", j->intent.name, e);
            remember_job(c, j);
            break;
        case LR_JOB_BLOCKED:
        case LR_JOB_FAILED:
            remember_job(c, j);
            break;
        }
    }
    free(jobs);
    if (!rc) {
        char *rep = NULL;
        int drift = 0;
        lr_ctl_reconcile(c, true, &rep, &drift, err, errlen);
        if (rep && *rep)
            say(&buf, &len, "%s", rep);
        free(rep);
    }
    if (report)
        *report = buf ? buf : strdup("");
    else
        free(buf);
    return rc;
}

int
lr_ctl_new(const struct lr_ctl_config *cfg, struct lr_ctl **out,
           char **report, char *err, size_t errlen)
{
    struct lr_ctl *c = calloc(1, sizeof *c);
    int rc;
    if (!c)
        return fail(err, errlen, ENOMEM, "out of memory");
    pthread_mutex_init(&c->dp_lock, NULL);
    c->memo = calloc(LR_CTL_MEMO, sizeof *c->memo);
    c->tel = calloc(1, sizeof *c->tel);
    snprintf(c->default_driver, sizeof c->default_driver, "%s",
             cfg->default_driver ? cfg->default_driver : "dummy");
    if (cfg->dummy_dir && strlen(cfg->dummy_dir) >= sizeof c->dummy_dir) {
        rc = fail(err, errlen, ENAMETOOLONG, "the dummy devices' directory "
                  "%s is longer than %zu bytes", cfg->dummy_dir,
                  sizeof c->dummy_dir - 1);
        goto fail;
    }
    snprintf(c->dummy_dir, sizeof c->dummy_dir, "%s",
             cfg->dummy_dir ? cfg->dummy_dir : ".");
    c->n_dev_cfg = cfg->n_devices;
    c->dev_cfg = calloc((size_t) cfg->n_devices + 1, sizeof *c->dev_cfg);
    if (!c->memo || !c->dev_cfg || !c->tel) {
        rc = fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    c->n_term = cfg->n_terminals > 0 ? cfg->n_terminals : 0;
    c->term = calloc((size_t) c->n_term + 1, sizeof *c->term);
    if (!c->term) {
        rc = fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    if (c->n_term)
        memcpy(c->term, cfg->terminals, (size_t) c->n_term * sizeof *c->term);
    c->dp = cfg->dataplane;
    if (cfg->n_devices)
        memcpy(c->dev_cfg, cfg->devices,
               (size_t) cfg->n_devices * sizeof *c->dev_cfg);
    if ((cfg->agent_cert && strlen(cfg->agent_cert) >= sizeof c->agent_cert)
        || (cfg->agent_key && strlen(cfg->agent_key) >= sizeof c->agent_key)
        || (cfg->agent_ca && strlen(cfg->agent_ca) >= sizeof c->agent_ca)) {
        rc = fail(err, errlen, ENAMETOOLONG, "a coordinator TLS file name "
                  "is longer than %zu bytes", sizeof c->agent_cert - 1);
        goto fail;
    }
    snprintf(c->agent_cert, sizeof c->agent_cert, "%s",
             cfg->agent_cert ? cfg->agent_cert : "");
    snprintf(c->agent_key, sizeof c->agent_key, "%s",
             cfg->agent_key ? cfg->agent_key : "");
    snprintf(c->agent_ca, sizeof c->agent_ca, "%s",
             cfg->agent_ca ? cfg->agent_ca : "");
    c->agent_timeout = cfg->agent_timeout_s > 0 ? cfg->agent_timeout_s : 5;
    c->inspect = cfg->inspect;
    c->clock_ms = cfg->clock_ms;
    c->clock_arg = cfg->clock_arg;
    rc = lr_store_open(cfg->db_path, &c->store, err, errlen);
    if (rc)
        goto fail;
    if ((cfg->topo_json
         && lr_store_put_doc(c->store, "topology", cfg->topo_json))
        || (cfg->cluster_json
            && lr_store_put_doc(c->store, "cluster", cfg->cluster_json))) {
        rc = fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
        goto fail;
    }
    rc = open_network(c, cfg->topo, cfg->cluster, err, errlen);
    if (rc)
        goto fail;
    for (int i = 0; i < c->n_term; i++) {
        int k = 0;
        while (k < c->cluster->n_dcs
               && strcmp(c->cluster->dcs[k].name, c->term[i].dc))
            k++;
        if (k == c->cluster->n_dcs) {
            rc = fail(err, errlen, EINVAL, "southbound terminal '%s' is "
                      "for data center '%s', which the inventory does not "
                      "have: fix its dc", c->term[i].node, c->term[i].dc);
            goto fail;
        }
    }
    if (cfg->ppo_policy && !cfg->inspect) {
        if (!(c->ppo_path = strdup(cfg->ppo_policy))) {
            rc = fail(err, errlen, ENOMEM, "out of memory");
            goto fail;
        }
        c->ppo_mean_job_s = cfg->ppo_mean_job_s;
        if ((c->ppo_has_ro = cfg->ppo_rollout != NULL))
            c->ppo_ro = *cfg->ppo_rollout;
        c->ppo_base = cfg->ppo_base;
        c->ppo_base_arg = cfg->ppo_base_arg;
        if ((rc = ppo_load(c, &c->ppo, err, errlen)))
            goto fail;
        c->ppo_loaded_ms = ctl_now_ms(c);
    }
    rc = cfg->inspect ? inspect(c, err, errlen)
                      : recover(c, report, err, errlen);
    if (rc)
        goto fail;
    *out = c;
    return 0;

fail:
    lr_ctl_free(c);
    return rc;
}

void
lr_ctl_free(struct lr_ctl *c)
{
    if (!c)
        return;
    lr_ctl_ppo_free(c->ppo);
    close_network(c);
    lr_store_close(c->store);
    free(c->jobs);
    free(c->memo);
    free(c->dev_cfg);
    free(c->term);
    free(c->emu);
    free(c->tel);
    /* Work still in flight is a caller's bug (lr_ctl.h); its op and
     * the devices it borrows go with the controller either way. */
    while (c->ops) {
        struct lr_ctl_op *op = c->ops;
        c->ops = op->next;
        op_free(op);
    }
    op_free(c->deciding);
    free(c->ppo_path);
    pthread_mutex_destroy(&c->dp_lock);
    free(c);
}

int
lr_ctl_ppo_reload(struct lr_ctl *c, char *err, size_t errlen)
{
    if (!c->ppo)
        return fail(err, errlen, ENOENT, "no ppo-policy in the "
                    "configuration: nothing to reload");
    if (c->deciding)
        return fail_deciding(c, err, errlen, "reload");
    struct lr_ctl_ppo *p;
    int rc = ppo_load(c, &p, err, errlen);
    if (rc)
        return rc;
    const char *why = lr_ctl_ppo_why(p);
    if (why && !lr_ctl_ppo_why(c->ppo)) {
        rc = fail(err, errlen, EINVAL, "%s; the policy loaded before stays "
                  "in use", why);
        lr_ctl_ppo_free(p);
        return rc;
    }
    lr_ctl_ppo_free(c->ppo);
    c->ppo = p;
    c->ppo_loaded_ms = ctl_now_ms(c);
    c->ppo_reloads++;
    return why ? fail(err, errlen, EINVAL, "%s", why) : 0;
}

int
lr_ctl_ppo_info(const struct lr_ctl *c, struct lr_ctl_ppo_info *info)
{
    *info = (struct lr_ctl_ppo_info) { 0 };
    if (!c->ppo)
        return ENOENT;
    const struct lr_policy_meta *m = lr_ctl_ppo_meta(c->ppo);
    info->file = c->ppo_path;
    info->why = lr_ctl_ppo_why(c->ppo);
    info->usable = !info->why;
    info->rollout = c->ppo_has_ro;
    info->loaded_ms = c->ppo_loaded_ms;
    info->reloads = c->ppo_reloads;
    if (m) {
        info->loaded = true;
        info->checksum = m->checksum;
        info->holding = lr_jenv_holding_name(m->holding_mode);
        info->refuse = m->refuse;
        info->known_work = m->known_work;
        info->held_work = m->held_work;
        info->topology = m->topology;
        info->teacher = m->teacher[0] ? m->teacher : NULL;
        info->command = m->command;
    }
    return 0;
}

const char *
lr_ctl_ppo_status(const struct lr_ctl *c, bool *usable)
{
    *usable = c->ppo && !lr_ctl_ppo_why(c->ppo);
    return c->ppo ? lr_ctl_ppo_why(c->ppo) : NULL;
}

const struct lr_jenv *
lr_ctl_ppo_mirror(const struct lr_ctl *c)
{
    return c->ppo ? lr_ctl_ppo_env(c->ppo) : NULL;
}

const struct lr_topo *lr_ctl_topo(const struct lr_ctl *c) { return c->topo; }
const struct lr_cluster *lr_ctl_cluster(const struct lr_ctl *c)
{
    return c->cluster;
}
const struct lr_rsa *lr_ctl_rsa(const struct lr_ctl *c) { return c->rsa; }
const int *lr_ctl_gpus_used(const struct lr_ctl *c) { return c->gpus_used; }
const struct lr_ctl_counters *lr_ctl_counters(const struct lr_ctl *c)
{
    return &c->counters;
}
struct sb_linux *lr_ctl_dataplane(const struct lr_ctl *c) { return c->dp; }

const char *
lr_ctl_slot_owner(const struct lr_ctl *c, int link, int slot)
{
    for (int i = 0; i < c->n_jobs; i++)
        for (int k = 0; k < c->jobs[i].n_lightpaths; k++) {
            const struct lr_lightpath *lp = &c->jobs[i].lp[k];
            if (slot < lp->first || slot >= lp->first + lp->m)
                continue;
            for (int l = 0; l < lp->n_links; l++)
                if (lp->links[l] == link)
                    return c->jobs[i].intent.name;
        }
    return NULL;
}

int
lr_ctl_check(struct lr_ctl *c, char *err, size_t errlen)
{
    int rc = lr_store_check(c->store, err, errlen);
    if (rc)
        return rc;
    /* Memory against the store. */
    struct lr_job *jobs = NULL;
    int n = 0;
    if (lr_store_list_jobs(c->store, &jobs, &n))
        return fail(err, errlen, EIO, "store: %s", lr_store_error(c->store));
    int gpus[LR_TM_MAX_DCS] = { 0 };
    long slots = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].phase == LR_JOB_PROVISIONING
            || jobs[i].phase == LR_JOB_RELEASING) {
            rc = fail(err, errlen, EINVAL, "job %s is still %s",
                      jobs[i].intent.name, lr_job_phase_name(jobs[i].phase));
            free(jobs);
            return rc;
        }
        for (int k = 0; k < c->cluster->n_dcs; k++)
            gpus[k] += jobs[i].gpus[k];
        for (int l = 0; l < jobs[i].n_lightpaths; l++)
            slots += (long) jobs[i].lp[l].m * jobs[i].lp[l].n_links;
    }
    free(jobs);
    if (n != c->n_jobs)
        return fail(err, errlen, EINVAL, "store holds %d jobs, memory %d", n,
                    c->n_jobs);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        if (gpus[k] != c->gpus_used[k])
            return fail(err, errlen, EINVAL, "DC %s: store reserves %d GPUs, "
                        "memory %d", c->cluster->dcs[k].name, gpus[k],
                        c->gpus_used[k]);
    long used, total;
    lr_spectrum_usage(c->rsa->sp, &used, &total);
    if (used != slots)
        return fail(err, errlen, EINVAL, "store reserves %ld slot-links, the "
                    "spectrum map %ld", slots, used);
    /* Devices against the store. */
    char *rep = NULL;
    int drift = 0;
    rc = lr_ctl_reconcile(c, false, &rep, &drift, err, errlen);
    if (!rc && drift)
        rc = fail(err, errlen, EINVAL, "devices differ from the store: %s",
                  rep ? rep : "");
    free(rep);
    return rc;
}
