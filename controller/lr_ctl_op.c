/* lr_ctl: one job's device work (struct lr_ctl_op), prepared on the
 * owner's thread and run on any one, and the emulated data plane; see
 * lr_ctl.h, "Three steps". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "controller/lr_ctl_int.h"
#include "planner/lr_modulation.h"
#include "planner/lr_utf8.h"
#include "southbound/sb_linux.h"
#include "southbound/sb_parallel.h"

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
int
lr_ctl_changes_for(const struct lr_ctl *c, const struct lr_job *job, int node,
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

/* struct lr_ctl_lpcheck and struct lr_ctl_op are in lr_ctl_int.h:
 * lr_ctl.c lends and ends ops, and a reconciliation (lr_ctl_recon.c) is
 * one too. */

static void check_prepare(const struct lr_ctl *, const struct lr_job *, int,
                          struct lr_ctl_lpcheck *);

void
lr_ctl_op_free(struct lr_ctl_op *op)
{
    if (!op)
        return;
    free(op->items);
    free(op->undo);
    free(op->ch);
    free(op->node);
    free(op->seen);
    free(op->item_node);
    free(op->rel);
    lr_ctl_keep_free(op);
    lr_ctl_recon_free(op->recon);
    lr_ctl_decision_free(op->dec);
    lr_ctl_plan_free(op->plan);
    free(op);
}

/* The work of adding ('release' false) or removing the channels and
 * pairs of 'job' into a new '*out' (lr_ctl_op_free()); ENOMEM. */
int
lr_ctl_op_new(struct lr_ctl *c, const struct lr_job *job, bool release,
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
    op->seen = calloc((size_t) nn + 1, sizeof *op->seen);
    op->item_node = calloc((size_t) nn + 1, sizeof *op->item_node);
    op->n_seen = nn;
    if (!op->items || !op->undo || !op->ch || !op->node || !op->seen
        || !op->item_node) {
        lr_ctl_op_free(op);
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
        int n = lr_ctl_changes_for(c, job, node, SB_ADD, add);
        if (n == 0)
            continue;
        lr_ctl_changes_for(c, job, node, SB_DELETE, del);
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
        op->item_node[op->n_items] = node;
        op->n_items++;
    }
    for (int k = 0; !release && k < job->n_lightpaths; k++)
        check_prepare(c, job, k, &op->check[k]);
    *out = op;
    return 0;
}

/* What the devices of 'items' (op->items or op->undo) answered, into
 * op->seen; an item that sent nothing (n 0) saw nothing.  The step's
 * thread, after sb_apply_parallel() has joined its threads. */
static void
op_see(struct lr_ctl_op *op, const struct sb_par_item *items)
{
    for (int i = 0; op->seen && i < op->n_items; i++)
        if (items[i].n > 0)
            lr_ctl_dev_see(&op->seen[op->item_node[i]], items[i].rc,
                           items[i].err);
}

/* How many of the 'n' channels 'ch' the device of 'it' holds for sure
 * (one read, its answer into 'seen' when not NULL and the read asks the
 * device: not a driver's record, sb_driver.h read_is_record); -1 when
 * the device cannot be read, with the driver's line in e[elen].
 * '*unsure' gets how many more the driver's record shows marked
 * unknown (sb_media_channel's unknown): the device may hold them or
 * not, so an add does not count them as done and a removal does not
 * count them as gone. */
static int
device_holds(const struct sb_par_item *it, const struct sb_change *ch, int n,
             struct lr_ctl_dev_seen *seen, int *unsure, char *e, size_t elen)
{
    struct sb_media_channel *mc = NULL;
    int have = 0, found = 0;
    int rc = it->cls->read(it->dev, &mc, &have, e, elen);
    *unsure = 0;
    if (seen && !it->cls->read_is_record)
        lr_ctl_dev_see(seen, rc, e);
    if (rc)
        return -1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < have; i++)
            if (!strcmp(mc[i].name, ch[k].mc.name)) {
                /* Only a record can be unsure: a driver that reads the
                 * device reports what is there. */
                if (it->cls->read_is_record && mc[i].unknown)
                    (*unsure)++;
                else
                    found++;
                break;
            }
    free(mc);
    return found;
}

/* Removes the op's channels from every device (missing ones are fine),
 * the devices at once (sb_parallel).  A device that did not answer
 * (ETIMEDOUT: the outcome is unknown) is read back, as after an add
 * (op_provision): one that holds none of them is done; one that still
 * holds some, may (a channel its driver's record marks unknown), or
 * cannot be read, fails, saying which.  Returns the first error. */
static int
op_unprovision(struct lr_ctl_op *op, char *err, size_t errlen)
{
    int first_err = 0;
    /* After an add, a device that refused its edit holds nothing of it
     * (a driver's apply is all or nothing): only those that took it, or
     * whose answer was lost, are undone. */
    for (int i = 0; i < op->n_items && !op->release; i++)
        if (op->items[i].rc && op->items[i].rc != ETIMEDOUT)
            op->undo[i].n = 0;
    sb_apply_parallel(op->undo, op->n_items);
    op_see(op, op->undo);
    for (int i = 0; i < op->n_items; i++) {
        struct sb_par_item *u = &op->undo[i];
        char e[256], lost[sizeof u->err];
        int unsure;
        if (u->rc != ETIMEDOUT)
            continue;
        int left = device_holds(u, u->changes, u->n,
                                &op->seen[op->item_node[i]], &unsure, e,
                                sizeof e);
        if (left == 0 && unsure == 0) {
            u->rc = 0;
            continue;
        }
        snprintf(lost, sizeof lost, "%s", u->err);
        /* A channel marked unknown may still be there: not gone.  The
         * driver's line is quoted whole, for the way out it may end
         * with (mnoptical's "delete it again (...)" after a lost
         * answer): until 2026-12-07 it was cut to 200-300 bytes here,
         * and a lost removal's error ended "delete it ag [...]".  A
         * line under SB_PAR_ERR_MAX's 1,500 and the read's e[] fit
         * u->err; past it lr_ctl_fail() cuts with a mark. */
        if (left >= 0 && unsure)
            lr_ctl_fail(u->err, sizeof u->err, u->rc, "ROADM %s did not "
                        "answer the removal and, read back, still holds "
                        "%d of the job's %d channels there and may still "
                        "hold %d more (on its driver's record marked "
                        "unknown: a request on %s had no answer) (%s)",
                        op->node[i], left, u->n, unsure,
                        unsure > 1 ? "them" : "it", lost);
        else if (left > 0)
            lr_ctl_fail(u->err, sizeof u->err, u->rc, "ROADM %s did not "
                        "answer the removal and, read back, still holds "
                        "%d of the job's %d channels there (%s)",
                        op->node[i], left, u->n, lost);
        else
            lr_ctl_fail(u->err, sizeof u->err, u->rc, "ROADM %s did not "
                        "answer the removal and cannot be read back (%s): "
                        "whether it still holds the job's channels is "
                        "unknown (%s)", op->node[i], e, lost);
    }
    for (int i = 0; i < op->n_items && !first_err; i++)
        if (op->undo[i].rc)
            first_err = lr_ctl_fail(err, errlen, op->undo[i].rc, "%s",
                                    op->undo[i].err);
    return first_err;
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
    /* The threshold is the table's in use, found by the format's name:
     * a format without one (NAN), or one the table no longer has, is
     * refused by check_run(), not passed. */
    snprintf(p->modulation, sizeof p->modulation, "%s", lp->modulation);
    int f = lr_modtable_find(&c->rsa->mods, lp->modulation);
    p->threshold_db = f >= 0 ? c->rsa->mods.f[f].osnr_db : NAN;
    p->rate_gbps = lp->capacity_gbps;
}

/* Step 6b on the devices: 0 when the lightpath is received or not
 * judged, else the driver's error with its line.  Reads only 'ck';
 * a lightpath received has the gOSNR its receiver measured put into
 * 'lp' (the op's copy of it: lr_lightpath.gosnr_known), which the job
 * keeps (lr_ctl.c end_submit()) so that a threshold changed later is
 * judged without tuning the terminals again; one not judged, or
 * measured beyond what the store keeps (+INFINITY: no noise), is left
 * not known. */
static int
check_run(const struct lr_ctl_lpcheck *ck, struct lr_lightpath *lp,
          char *err, size_t errlen)
{
    const struct sb_lightpath *p = &ck->p;
    struct sb_lightpath_quality q;
    char e[512] = "";
    if (!ck->cls)
        return 0;
    if (isnan(p->threshold_db))
        return lr_ctl_fail(err, errlen, EINVAL, "lightpath %s: no gOSNR "
                           "threshold is known for modulation '%s': it cannot "
                           "be checked; give the format its minimum_osnr in "
                           "the modulation table (lightrail-config's "
                           "modulation-table)",
                           p->name, p->modulation);
    int rc = ck->cls->check_lightpath(ck->a, ck->b, p, &q, e, sizeof e);
    if (rc)
        return lr_ctl_fail(err, errlen, rc, "lightpath %s (%s -> %s, %s) is "
                           "not received: %s", p->name, ck->from, ck->to,
                           p->modulation, e);
    if (fabs(q.gosnr_db) <= LR_JOB_MAX_GOSNR_DB) {
        lp->gosnr_known = true;
        lp->gosnr_db = q.gosnr_db;
    }
    return 0;
}

/* The add of 'op' failed (op->err says why): its channels removed from
 * every device again.  When that fails too the op is stuck (its job
 * must keep what it holds until a DELETE or a restart removes them),
 * and op->err says both. */
static void
op_rollback(struct lr_ctl_op *op)
{
#define ROLLBACK_WORDS "provisioning failed and removing its channels " \
    "again failed: the job keeps its slots, DELETE it to retry; %s; then %s"
    char e[sizeof op->err], first[sizeof op->err];
    if (!op_unprovision(op, e, sizeof e))
        return;
    op->stuck = true;
    /* What to do first; the add's error; then the removal's line whole
     * (a device's, under SB_PAR_ERR_MAX), which may end with the way out
     * (mnoptical's /reset): until 2026-12-07 it was cut to 90 bytes
     * here.  The add's error gets what op->err (the job's reason) leaves
     * after the words and that line, at least 'least': it was clipped to
     * 300 bytes, and op_provision()'s "did not answer" words alone are
     * about 330, so the driver's line in it was lost to " [...]".  The
     * removal's line is at most SB_PAR_ERR_MAX - 1 and the words about
     * 120, so the add's gets 900 bytes or more: its words and a driver's
     * line of up to 570 whole in any case, and of the 1,500 a driver
     * may write when the removal's line is of the usual length (a
     * cut is marked, as lr_ctl_fail() marks one of the whole). */
    const size_t least = 300,
                 used = sizeof ROLLBACK_WORDS - 1 - 4 + strlen(e) + 1;
    size_t room = used + least < sizeof first ? sizeof first - used : least;
    lr_utf8_clip(first, room, op->err);
    (void) lr_ctl_fail(op->err, sizeof op->err, op->rc, ROLLBACK_WORDS,
                       first, e);
#undef ROLLBACK_WORDS
}

/* All or nothing over the devices of the op's job: every ROADM of its
 * paths is programmed at once (sb_parallel: the slowest device's round
 * trip, not the sum over the path); a device that refuses, or times out
 * and does not hold the channels when read back, fails the job, and the
 * channels of every device are removed again (op_rollback). */
static int
op_provision(struct lr_ctl_op *op)
{
    int rc = 0;
    sb_apply_parallel(op->items, op->n_items);
    op_see(op, op->items);
    for (int i = 0; i < op->n_items && !rc; i++) {
        struct sb_par_item *it = &op->items[i];
        int unsure = 0, held = -1;
        if (it->rc == ETIMEDOUT) {
            /* Outcome unknown: what the device holds for sure decides. */
            char e[256];
            held = device_holds(it, it->changes, it->n,
                                &op->seen[op->item_node[i]], &unsure, e,
                                sizeof e);
            if (held == it->n)
                it->rc = 0;
        }
        /* A record that marks a channel unknown says the driver does
         * not know whether the ROADM holds it (its install and the
         * removal after it both lost): not a channel added. */
        if (it->rc && held >= 0 && unsure)
            rc = lr_ctl_fail(op->err, sizeof op->err, EIO, "ROADM %s did "
                             "not answer and, read back, holds %d of the "
                             "job's %d channels there for sure; %d more %s "
                             "on its driver's record marked unknown (a "
                             "request on %s had no answer: the ROADM may "
                             "not hold %s), so the lightpaths are not taken "
                             "as added; DELETE the job and submit it again "
                             "(%s)",
                             op->node[i], held, it->n, unsure,
                             unsure > 1 ? "are" : "is",
                             unsure > 1 ? "them" : "it",
                             unsure > 1 ? "them" : "it",
                             it->err);
        else if (it->rc)
            rc = lr_ctl_fail(op->err, sizeof op->err, EIO, "ROADM %s "
                             "refused the lightpaths: %s", op->node[i],
                             it->err);
    }
    /* Every ROADM holds its channels: judge each lightpath as a whole
     * where a driver can (step 6b). */
    for (int k = 0; !rc && k < op->job.n_lightpaths; k++)
        rc = check_run(&op->check[k], &op->job.lp[k], op->err,
                       sizeof op->err);
    return rc;
}

/* ---- the emulated data plane ---- */

/* The data plane's name of lightpath 'k': the name of its channels. */
void
lr_ctl_lp_name(const struct lr_job *job, int k, char *out, size_t len)
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
        lr_ctl_lp_name(job, k, name, sizeof name);
        int rc = sb_linux_remove(dp, name, e, sizeof e);
        if (rc && rc != ENOENT && !first_err)
            first_err = lr_ctl_fail(err, errlen, rc, "%s", e);
    }
    pthread_mutex_unlock(lock);
    return first_err;
}

/* Makes the job's pairs, all or nothing; 'exist_ok' for recovery. */
int
lr_ctl_dp_add(struct sb_linux *dp, pthread_mutex_t *lock,
              const struct lr_job *job, bool exist_ok, char *err,
              size_t errlen)
{
    int rc = 0;
    char e[512] = "";
    if (!dp)
        return 0;
    pthread_mutex_lock(lock);
    for (int k = 0; k < job->n_lightpaths && !rc; k++) {
        const struct lr_lightpath *lp = &job->lp[k];
        char name[SB_NAME_MAX];
        lr_ctl_lp_name(job, k, name, sizeof name);
        rc = sb_linux_add(dp, name, lp->from_dc, lp->to_dc,
                          lp->capacity_gbps, e, sizeof e);
        if (rc && exist_ok && rc == EEXIST)
            rc = 0;
    }
    pthread_mutex_unlock(lock);
    if (rc) {
        char ignore[256];
        dp_remove(dp, lock, job, ignore, sizeof ignore);
        return lr_ctl_fail(err, errlen, EIO, "the emulated data plane refused "
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
    if (op->n_keep)
        lr_ctl_keep_run(op);
    if (op->n_rel)
        lr_ctl_release_run(op);
    if (op->agents_only)
        return;
    if (op->recon) {
        lr_ctl_recon_run(op);
        return;
    }
    if (op->dec) {
        lr_ctl_decision_run(op->dec);
        return;
    }
    if (op->plan) {
        lr_ctl_plan_run(op->plan);
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
    op->rc = op_provision(op);
    if (!op->rc)
        op->rc = lr_ctl_dp_add(op->dp, op->dp_lock, &op->job, false,
                               op->err, sizeof op->err);
    if (op->rc)
        op_rollback(op);
}

void
lr_ctl_op_run(struct lr_ctl_op *op)
{
    op_run(op);
}

/* Synchronous removal of everything 'job' may hold on the devices and
 * the data plane (recovery); the first error. */
int
lr_ctl_unprovision_now(struct lr_ctl *c, const struct lr_job *job, char *err,
                       size_t errlen)
{
    struct lr_ctl_op *op;
    if (lr_ctl_op_new(c, job, true, &op))
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    op_run(op);
    lr_ctl_devs_fold(c, op);
    int rc = op->rc ? lr_ctl_fail(err, errlen, op->rc, "%s", op->err) : 0;
    lr_ctl_op_free(op);
    return rc;
}
