/* lr_ctl: reconciliation, the devices and the emulated data plane
 * against the store, in three steps like a job's device work; see
 * lr_ctl.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "controller/lr_ctl_int.h"
#include "planner/lr_utf8.h"
#include "southbound/sb_linux.h"
#include "southbound/sb_parallel.h"

/* ---- reconciliation ---- */

/* Appends a line, of any length, to a growing report. */
void
lr_ctl_say(char **buf, size_t *len, const char *fmt, ...)
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
struct lr_ctl_held {                  /* a job in the store, not active */
    char job[LR_JOB_NAME_MAX];
    enum lr_job_phase phase;
};
struct lr_ctl_skip {                  /* a channel (dev) or pair (NULL) of */
    const struct sb_device *dev;      /* a job whose device work is */
    char name[SB_NAME_MAX];           /* queued ahead: not judged */
};
struct lr_ctl_recon {
    bool repair;
    bool at_start;                    /* lr_ctl_reconcile_at_start() */
    bool reinstall;                   /* lr_ctl_reconcile_set_reinstall() */
    int n_nodes;
    struct sb_par_item *rd;           /* [n_nodes]: the reads */
    char (*node)[SB_NAME_MAX];        /* [n_nodes] */
    struct lr_ctl_want *want;
    int n_want;
    struct lr_ctl_pair *pair;
    int n_pair;
    struct lr_ctl_skip *skip;
    int n_skip;
    struct lr_ctl_held *held;         /* a leftover's job, when stored */
    int n_held;
    /* Set by the device step. */
    char *report;
    size_t len;
    int drift;
    int reinstalled;                  /* recon_fresh() channels applied,
                                       * and recon_again() ones */
    int would_reinstall;              /* recon_again() ones a dry run
                                       * would send */
};

void
lr_ctl_recon_free(struct lr_ctl_recon *r)
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
    free(r->held);
    free(r->report);
    free(r);
}

/* The job of channel 'name' ("JOB/lpK") when the store holds it in
 * another phase than active (a DELETE the devices refused leaves it
 * releasing with its channels), or NULL. */
static const struct lr_ctl_held *
recon_held(const struct lr_ctl_recon *r, const char *name)
{
    const char *slash = strrchr(name, '/');
    size_t n = slash ? (size_t) (slash - name) : 0;
    for (int i = 0; n && i < r->n_held; i++)
        if (strlen(r->held[i].job) == n && !strncmp(r->held[i].job, name, n))
            return &r->held[i];
    return NULL;
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
        int rc = r->repair ? sb_linux_remove(op->dp, links[i].name, e,
                                             sizeof e)
                           : 0;
        lr_ctl_say(&r->report, &r->len, "data plane: pair %s (%s -> %s) is "
                   "not in the store%s%s", links[i].name, links[i].src_ns,
                   links[i].dst_ns,
                   !r->repair ? "" : rc ? ": cannot remove it: " : ": removed",
                   r->repair && rc ? e : "");
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
        lr_ctl_say(&r->report, &r->len, "data plane: pair %s of job %s is "
                   "missing%s%s", p->name, p->job,
                   !r->repair ? ""
                   : rc ? ": cannot re-make it: " : ": re-made",
                   r->repair && rc ? e : "");
    }
    pthread_mutex_unlock(op->dp_lock);
    free(links);
}

/* A channel on a device is what the store implies only when all of it
 * is: the spectrum, the ports and the state. */
static bool
recon_same(const struct sb_media_channel *a, const struct sb_media_channel *b)
{
    return !strcmp(a->name, b->name) && a->n == b->n && a->m == b->m
           && !strcmp(a->in_port, b->in_port)
           && !strcmp(a->out_port, b->out_port) && a->enabled == b->enabled;
}

/* Whether the read 'rd' shows channel 'mc' marked unknown: a driver
 * whose read is its record (sb_driver.h read_is_record) keeps a rule
 * whose request had no answer, and the device may hold it or not.  It
 * is no channel the device has for sure: of an active job it is a
 * difference, replaced (the removal settles the mark, the add puts it
 * there), as otherwise a repair whose add was lost would leave the
 * job without it for good, every reconciliation after it finding the
 * rule on the record as the store wants. */
static bool
recon_unsure(const struct sb_par_item *rd, const struct sb_media_channel *mc)
{
    return rd->cls->read_is_record && mc->unknown;
}

/* Whether a channel the store wants and the read 'rd' lacks is only
 * missing from a record that starts empty: the start's reconciliation
 * on a driver whose read is its record (sb_driver.h read_is_record,
 * mnoptical), which a new process starts without, so that every
 * active job's channel is missing there whatever the device holds.
 * Installing it again is what puts the record (and an emulator
 * restarted meanwhile) back as the store says, not a difference found:
 * it is said and counted apart from the drift, or any alert on the
 * drift would fire at every restart and hide a real one.  Later
 * reconciliations read a record this process filled: a channel
 * missing there is drift as on any device. */
static bool
recon_fresh(const struct lr_ctl_recon *r, const struct sb_par_item *rd)
{
    return r->at_start && r->repair && rd->cls->read_is_record;
}

/* Whether a channel the store wants and the read 'rd' shows is to be
 * installed again: asked for (lr_ctl_reconcile_set_reinstall()), on a
 * driver whose read is its record and whose device takes an install of
 * a channel it holds as that channel again (sb_driver.h reinstalls).
 * The record cannot show a rule the device lost behind the
 * controller's back (an emulator restarted, a /reset), so no
 * difference is found there; the install puts it back if it was lost
 * and changes nothing if not.  Not drift: nothing was seen to differ. */
static bool
recon_again(const struct lr_ctl_recon *r, const struct sb_par_item *rd)
{
    return r->reinstall && rd->cls->read_is_record && rd->cls->reinstalls;
}

/* "n=N m=M, IN -> OUT[, disabled]" into buf[size]. */
static const char *
recon_desc(const struct sb_media_channel *mc, char *buf, size_t size)
{
    snprintf(buf, size, "n=%d m=%d, %s -> %s%s", mc->n, mc->m,
             mc->in_port[0] ? mc->in_port : "-",
             mc->out_port[0] ? mc->out_port : "-",
             mc->enabled ? "" : ", disabled");
    return buf;
}

/* One difference on a device, said once the repair has been tried so
 * that the line tells what was done. */
struct recon_line {
    int node;
    int want;                 /* the store's channel of that name, or -1 */
    int del, add;             /* its changes in the node's fix, or -1 */
    const char *verb;         /* what the repair does: "removed", ... */
    bool fresh;               /* recon_fresh(): drift only if it fails */
    bool again;               /* recon_again(): never drift */
    char text[640];
};

/* The answer of change 'k' of 'it' (0 when there is none to make). */
static int
recon_rc(const struct sb_par_item *it, int k)
{
    return k < 0 ? 0 : !it ? -1 : it->each_rc[k];
}

/* Why a repair's change 'rc' (recon_rc(), not 0) was not done, for its
 * line; 'del' when the change was a removal.  ETIMEDOUT (sb_driver.h):
 * the device may have done it, and a failure it is not said to be; this
 * repair does not read the device back, the next reconciliation does.
 * -1: never sent, sb_parallel stopped at an earlier change the device
 * did not answer (sb_unanswered()). */
static const char *
recon_why(int rc, bool del)
{
    if (rc < 0)
        return "not tried, the device had stopped answering";
    if (rc == ETIMEDOUT)
        return "no answer, the outcome is unknown (a reconciliation reads "
               "the device again)";
    return del ? "the removal failed" : "applying it failed";
}

/* Line 'l' of a re-install at start (recon_fresh()) once its add was
 * tried ('it' the node's fix, NULL when out of memory; 'rc' its
 * recon_rc()): counted as re-installed when done.  One that failed
 * leaves the job's channel off the record and maybe off the device:
 * drift, said as a failure. */
static void
recon_say_fresh(struct lr_ctl_recon *r, const struct recon_line *l,
                const struct sb_par_item *it, int rc)
{
    if (it && !rc) {
        r->reinstalled++;
        lr_ctl_say(&r->report, &r->len, "%s: re-installed: the driver's "
                   "record starts empty", l->text);
        return;
    }
    r->drift++;
    lr_ctl_say(&r->report, &r->len, "%s is not on its driver's record, "
               "which starts empty: not re-installed: %s", l->text,
               it ? recon_why(rc, false) : "out of memory");
}

/* Line 'l' of a re-install asked for (recon_again()) once its change
 * was tried, as recon_say_fresh(); a dry run says what it would send.
 * One that failed is no drift (the record shows the channel, as the
 * store wants it) and leaves the record as it was; the node's repair
 * failed, which the reconciliation's answer says. */
static void
recon_say_again(struct lr_ctl_recon *r, const struct recon_line *l,
                const struct sb_par_item *it, int rc)
{
    if (!r->repair) {
        r->would_reinstall++;
        lr_ctl_say(&r->report, &r->len, "%s: on its driver's record, not "
                   "read from the ROADM: would be installed again",
                   l->text);
    } else if (it && !rc) {
        r->reinstalled++;
        lr_ctl_say(&r->report, &r->len, "%s: re-installed (its driver's "
                   "record is no read of the ROADM)", l->text);
    } else
        lr_ctl_say(&r->report, &r->len, "%s: not re-installed: %s; kept on "
                   "its driver's record as it was", l->text,
                   it ? recon_why(rc, false) : "out of memory");
}

/* The device step of a reconciliation: every device read at once
 * (sb_parallel), the drift against the snapshot, and with 'repair' the
 * channels that are not what the store implies removed (a channel of
 * an active job that differs is replaced: removed, then applied again)
 * and the missing ones applied, every device at once again.  A repair
 * that fails is EIO, like a device that cannot be read.  Any one
 * thread; reads only 'op'. */
void
lr_ctl_recon_run(struct lr_ctl_op *op)
{
    struct lr_ctl_recon *r = op->recon;
    free(r->report);
    r->report = NULL;
    r->len = 0;
    r->drift = 0;
    r->reinstalled = 0;
    r->would_reinstall = 0;
    op->rc = 0;
    op->err[0] = '\0';
    sb_apply_parallel(r->rd, r->n_nodes);
    /* A driver's record (sb_driver.h read_is_record) is no answer of
     * the device: not counted. */
    for (int node = 0; op->seen && node < r->n_nodes; node++)
        if (!r->rd[node].cls->read_is_record)
            lr_ctl_dev_see(&op->seen[node], r->rd[node].rc,
                           r->rd[node].err);
    size_t cap = (size_t) r->n_want + 1;
    for (int node = 0; node < r->n_nodes; node++)
        cap += (size_t) r->rd[node].n_mc;
    struct sb_par_item *fix = calloc((size_t) r->n_nodes + 1, sizeof *fix);
    int *node_fix = calloc((size_t) r->n_nodes + 1, sizeof *node_fix);
    struct recon_line *lines = calloc(cap, sizeof *lines);
    int n_fix = 0, n_lines = 0;
    if (!fix || !node_fix || !lines) {
        free(fix);
        free(node_fix);
        free(lines);
        op->rc = ENOMEM;
        snprintf(op->err, sizeof op->err, "out of memory");
        return;
    }
    char d1[200], d2[200];
    for (int node = 0; node < r->n_nodes; node++) {
        const struct sb_par_item *rd = &r->rd[node];
        const struct sb_media_channel *mc = rd->mc;
        int n = rd->n_mc, nf = 0, first = n_lines;
        node_fix[node] = -1;
        if (rd->rc) {
            lr_ctl_say(&r->report, &r->len, "%s: cannot read: %s",
                       r->node[node], rd->err);
            op->rc = EIO;
            snprintf(op->err, sizeof op->err, "%s", rd->err);
            continue;
        }
        size_t room = (size_t) n + (size_t) r->n_want + 1;
        struct sb_change *ch = r->repair ? calloc(room, sizeof *ch) : NULL;
        int *ch_rc = r->repair ? calloc(room, sizeof *ch_rc) : NULL;
        bool oom = r->repair && (!ch || !ch_rc);
        /* What the device has and the store does not imply. */
        for (int i = 0; i < n; i++) {
            if (recon_skipped(r, rd->dev, mc[i].name))
                continue;
            int same = -1, named = -1;
            for (int w = 0; w < r->n_want && same < 0; w++) {
                if (r->want[w].node != node)
                    continue;
                if (recon_same(&r->want[w].mc, &mc[i]))
                    same = w;
                else if (!strcmp(r->want[w].mc.name, mc[i].name))
                    named = w;
            }
            bool unsure = recon_unsure(rd, &mc[i]);
            if (same >= 0 && !unsure)
                continue;
            if (same >= 0)
                named = same;
            r->drift++;
            struct recon_line *l = &lines[n_lines++];
            *l = (struct recon_line) { .node = node, .want = named,
                                       .del = -1, .add = -1 };
            if (named >= 0 && unsure) {
                l->verb = "replaced";
                snprintf(l->text, sizeof l->text, "%s: channel %s of job %s "
                         "is on its driver's record marked unknown (a "
                         "request on it had no answer): the ROADM may not "
                         "hold it", r->node[node], mc[i].name,
                         r->want[named].job);
            } else if (named >= 0) {
                l->verb = "replaced";
                snprintf(l->text, sizeof l->text, "%s: channel %s of job %s "
                         "differs from the store (device: %s; store: %s)",
                         r->node[node], mc[i].name, r->want[named].job,
                         recon_desc(&mc[i], d1, sizeof d1),
                         recon_desc(&r->want[named].mc, d2, sizeof d2));
            } else {
                const struct lr_ctl_held *h = recon_held(r, mc[i].name);
                l->verb = "removed";
                if (h)
                    snprintf(l->text, sizeof l->text, "%s: channel %s (n=%d "
                             "m=%d) is of job %s, which is %s: the store "
                             "wants none", r->node[node], mc[i].name,
                             mc[i].n, mc[i].m, h->job,
                             lr_job_phase_name(h->phase));
                else
                    snprintf(l->text, sizeof l->text, "%s: channel %s (n=%d "
                             "m=%d) is not in the store%s", r->node[node],
                             mc[i].name, mc[i].n, mc[i].m,
                             unsure ? " (on its driver's record marked "
                             "unknown: the ROADM may not hold it)" : "");
            }
            if (ch && ch_rc) {
                l->del = nf;
                ch[nf++] = (struct sb_change) { .op = SB_DELETE,
                                                .mc = mc[i] };
            }
        }
        /* What the store implies and the device does not have. */
        for (int w = 0; w < r->n_want; w++) {
            const struct lr_ctl_want *want = &r->want[w];
            bool present = false;
            if (want->node != node)
                continue;
            for (int i = 0; i < n && !present; i++)
                present = recon_same(&want->mc, &mc[i])
                          && !recon_unsure(rd, &mc[i]);
            if (present && recon_again(r, rd)
                && !recon_skipped(r, rd->dev, want->mc.name)) {
                struct recon_line *l = &lines[n_lines++];
                *l = (struct recon_line) { .node = node, .want = w,
                                           .del = -1, .add = -1,
                                           .verb = "re-installed",
                                           .again = true };
                snprintf(l->text, sizeof l->text, "%s: channel %s of job %s",
                         r->node[node], want->mc.name, want->job);
                if (ch && ch_rc) {
                    l->add = nf;
                    ch[nf++] = (struct sb_change) { .op = SB_REINSTALL,
                                                    .mc = want->mc };
                }
                continue;
            }
            if (present)
                continue;
            struct recon_line *l = NULL;
            for (int k = first; k < n_lines; k++)
                if (lines[k].want == w)
                    l = &lines[k];    /* differs: said above */
            if (!l && recon_fresh(r, rd)) {
                l = &lines[n_lines++];
                *l = (struct recon_line) { .node = node, .want = w,
                                           .del = -1, .add = -1,
                                           .verb = "re-installed",
                                           .fresh = true };
                snprintf(l->text, sizeof l->text, "%s: channel %s of job %s",
                         r->node[node], want->mc.name, want->job);
            } else if (!l) {
                r->drift++;
                l = &lines[n_lines++];
                *l = (struct recon_line) { .node = node, .want = w,
                                           .del = -1, .add = -1,
                                           .verb = "re-applied" };
                snprintf(l->text, sizeof l->text, "%s: channel %s of job %s "
                         "is missing", r->node[node], want->mc.name,
                         want->job);
            }
            if (ch && ch_rc) {
                l->add = nf;
                ch[nf++] = (struct sb_change) { .op = SB_ADD,
                                                .mc = want->mc };
            }
        }
        if (oom && n_lines > first) {
            op->rc = ENOMEM;
            snprintf(op->err, sizeof op->err, "%s: out of memory: nothing "
                     "repaired there", r->node[node]);
        }
        if (nf) {
            node_fix[node] = n_fix;
            fix[n_fix++] = (struct sb_par_item) {
                .cls = rd->cls, .dev = rd->dev, .changes = ch, .n = nf,
                .each = true, .each_rc = ch_rc,
            };
        } else {
            free(ch);
            free(ch_rc);
        }
    }
    if (n_fix)
        sb_apply_parallel(fix, n_fix);
    for (int node = 0; op->seen && node < r->n_nodes; node++)
        if (node_fix[node] >= 0)
            lr_ctl_dev_see(&op->seen[node], fix[node_fix[node]].rc,
                           fix[node_fix[node]].err);
    for (int k = 0; k < n_lines; k++) {
        const struct recon_line *l = &lines[k];
        const struct sb_par_item *it = node_fix[l->node] >= 0
                                       ? &fix[node_fix[l->node]] : NULL;
        int rc_del = recon_rc(it, l->del), rc_add = recon_rc(it, l->add);
        int rc = rc_del ? rc_del : rc_add;
        /* A second channel of a job's name, the first being right: no
         * add came with it, so it is only removed. */
        const char *verb = l->del >= 0 && l->add < 0 ? "removed" : l->verb;
        if (l->fresh)
            recon_say_fresh(r, l, it, rc);
        else if (l->again)
            recon_say_again(r, l, it, rc);
        else if (!r->repair)
            lr_ctl_say(&r->report, &r->len, "%s", l->text);
        else if (!it)
            lr_ctl_say(&r->report, &r->len, "%s: not %s: out of memory",
                       l->text, verb);
        else if (!rc)
            lr_ctl_say(&r->report, &r->len, "%s: %s", l->text, verb);
        else if (l->del >= 0 && l->add >= 0 && !rc_del)
            /* A replace is a removal, then an add: the device took the
             * first and not the second, so the job's channel is gone
             * from it, which "not replaced" would hide (it reads as
             * the old channel still there). */
            lr_ctl_say(&r->report, &r->len, "%s: removed, not applied "
                       "again: %s", l->text, recon_why(rc_add, false));
        else
            lr_ctl_say(&r->report, &r->len, "%s: not %s: %s", l->text,
                       verb, recon_why(rc, rc_del != 0));
    }
    for (int i = 0; i < n_fix; i++) {
        if (fix[i].rc) {
            for (int node = 0; node < r->n_nodes; node++)
                if (r->rd[node].dev == fix[i].dev) {
                    lr_ctl_say(&r->report, &r->len, "%s: the repair "
                               "failed: %s", r->node[node], fix[i].err);
                    if (!op->rc) {
                        op->rc = EIO;
                        /* The device's line whole: it may end
                         * with its way out (mnoptical's /reset). */
                        lr_ctl_fail(op->err, sizeof op->err, EIO, "%s: "
                                    "the repair failed: %s",
                                    LR_UTF8_CLIP(r->node[node], 64),
                                    fix[i].err);
                    }
                }
        }
        free((void *) fix[i].changes);
        free(fix[i].each_rc);
    }
    free(fix);
    free(node_fix);
    free(lines);
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
        op->seen = calloc((size_t) nn + 1, sizeof *op->seen);
        op->n_seen = nn;
        r->want = calloc((size_t) n_want + 1, sizeof *r->want);
        r->pair = calloc((size_t) n_pair + 1, sizeof *r->pair);
        r->skip = calloc((size_t) n_skip + 1, sizeof *r->skip);
        r->held = calloc((size_t) c->n_jobs + 1, sizeof *r->held);
    }
    if (!op || !r || !r->rd || !r->node || !r->want || !r->pair
        || !r->skip || !r->held || !op->seen) {
        lr_ctl_recon_free(r);
        if (op)
            free(op->seen);
        free(op);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
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
        if (job->phase != LR_JOB_ACTIVE) {
            struct lr_ctl_held *h = &r->held[r->n_held++];
            snprintf(h->job, sizeof h->job, "%s", job->intent.name);
            h->phase = job->phase;
            continue;
        }
        for (int node = 0; node < nn; node++) {
            struct sb_change ch[LR_JOB_MAX_LIGHTPATHS];
            int nc = lr_ctl_changes_for(c, job, node, SB_ADD, ch);
            for (int k = 0; k < nc && r->n_want < n_want; k++) {
                struct lr_ctl_want *w = &r->want[r->n_want++];
                w->node = node;
                w->mc = ch[k].mc;
                snprintf(w->job, sizeof w->job, "%s", job->intent.name);
            }
        }
        for (int k = 0; k < job->n_lightpaths; k++) {
            struct lr_ctl_pair *p = &r->pair[r->n_pair++];
            lr_ctl_lp_name(job, k, p->name, sizeof p->name);
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
            lr_ctl_lp_name(&o->job, k, r->skip[r->n_skip++].name, SB_NAME_MAX);
    }
    lr_ctl_op_lend(c, op);
    *out = op;
    return 0;
}

/* Step 3 of a reconciliation: the report and the counters. */
int
lr_ctl_end_reconcile(struct lr_ctl *c, struct lr_ctl_op *op, char **report,
                     int *drift, char *err, size_t errlen)
{
    struct lr_ctl_recon *r = op->recon;
    c->counters.reconciles++;
    c->counters.drift += (unsigned long long) r->drift;
    c->counters.reinstalled += (unsigned long long) r->reinstalled;
    if (drift)
        *drift = r->drift;
    if (report) {
        *report = r->report ? r->report : strdup("");
        r->report = NULL;
    }
    if (op->rc)
        return lr_ctl_fail(err, errlen, op->rc, "%s", op->err);
    return 0;
}

int
lr_ctl_reconcile_end(struct lr_ctl *c, struct lr_ctl_op *op, char **report,
                     int *drift, int *reinstalled, char *err, size_t errlen)
{
    int rc;
    if (reinstalled)
        *reinstalled = !op->recon || !op->recon->reinstall ? -1
                       : op->recon->repair ? op->recon->reinstalled
                                           : op->recon->would_reinstall;
    lr_ctl_op_unlend(c, op);
    lr_ctl_devs_fold(c, op);
    rc = op->recon ? lr_ctl_end_reconcile(c, op, report, drift, err, errlen)
                   : lr_ctl_fail(err, errlen, EINVAL, "not a reconciliation");
    lr_ctl_op_free(op);
    return rc;
}

bool
lr_ctl_op_is_reconcile(const struct lr_ctl_op *op)
{
    return op->recon != NULL;
}

void
lr_ctl_reconcile_set_reinstall(struct lr_ctl_op *op)
{
    if (op && op->recon)
        op->recon->reinstall = true;
}

/* lr_ctl_reconcile(), with 'at_start' the start's (recon_fresh()),
 * with 'reinstall' lr_ctl_reconcile_reinstall()'s. */
static int
reconcile_now(struct lr_ctl *c, bool repair, bool at_start, bool reinstall,
              char **report, int *drift, char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    if (report)
        *report = NULL;
    if (drift)
        *drift = 0;
    /* On the caller's thread: the devices of an op in flight are lent
     * to whoever runs it. */
    if (c->ops)
        return lr_ctl_fail_busy(c, err, errlen, ": reconcile when no job is "
                                "provisioning or releasing");
    int rc = lr_ctl_reconcile_begin(c, repair, &op, err, errlen);
    if (rc)
        return rc;
    op->recon->at_start = at_start;
    op->recon->reinstall = reinstall;
    lr_ctl_op_run(op);
    return lr_ctl_reconcile_end(c, op, report, drift, NULL, err, errlen);
}

int
lr_ctl_reconcile(struct lr_ctl *c, bool repair, char **report, int *drift,
                 char *err, size_t errlen)
{
    return reconcile_now(c, repair, false, false, report, drift, err,
                         errlen);
}

int
lr_ctl_reconcile_reinstall(struct lr_ctl *c, bool repair, char **report,
                           int *drift, char *err, size_t errlen)
{
    return reconcile_now(c, repair, false, true, report, drift, err,
                         errlen);
}

int
lr_ctl_reconcile_at_start(struct lr_ctl *c, char **report, int *drift,
                          char *err, size_t errlen)
{
    return reconcile_now(c, true, true, false, report, drift, err, errlen);
}
