/* lr_ctl: the agents of the DCs the inventory marks remote, from the
 * controller's side (docs/agent-protocol.md, docs/cdynp.md): CDynP with
 * the agents (lr_ctl_plan_with_agents), the COMMIT of a chain and its
 * RELEASE, the queue of RELEASEs that wait while the agents are lent to
 * an op (c->deferred) and their retries, the KEEPs an op carries
 * (c->keep_due), and the plan made with the agents off the owner's
 * thread and kept for its admission (c->agent_plan).  lr_ctl.c admits,
 * lends the agents to ops and takes them back through the lr_ctl_
 * functions below (declared in lr_ctl_int.h); lr_ctl_op.c runs the
 * KEEPs and RELEASEs an op carries (lr_ctl_keep_run, lr_ctl_release_run).
 * Everything here runs on the owner's thread but for those two, the
 * plan's run (lr_ctl_plan_run in lr_ctl.c) and what it calls. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509.h>

#include "controller/lr_agent_party.h"
#include "controller/lr_ctl.h"
#include "controller/lr_ctl_int.h"
#include "controller/lr_tls.h"
#include "planner/lr_cdynp.h"
/* CDynP over the DCs of 'cl', the remote ones (agent[k] not NULL)
 * planned by their agents.  'plan' gets the local DCs' stages and, for
 * each remote DC of the chain, one stage with no devices (g = 0) over its
 * layers, in chain order.  A failed agent: LR_TM_DEVICES with its reason
 * in why[len]; LR_TM_OK with why[0] = '\0', or the note of an agent too
 * old for some runs (lr_agent_plan()).  'step' is the local DCs' device
 * step, 'beam' the chain search's width (lr_cdynp_options).  Reads
 * nothing of the controller:
 * it runs on the loop (admit, 'on_loop') or on the planner's thread
 * (lr_ctl_plan_run), with 'cl' and the agents borrowed from it.  On the
 * loop an agent that says it is shutting down is not waited for
 * (lr_agent_party_set_restart_wait(): a wait would stop the daemon;
 * its failure says "a plan on lightraild's event loop does not wait");
 * on the planner's thread it is, LR_AGENT_RESTART_WAIT_S at most.  The
 * agents keep 'tm' as their job's (lr_agent_party_set_job): it must
 * outlive their COMMIT. */
enum lr_tm_why
lr_ctl_plan_with_agents(const struct lr_cluster *cl,
                        struct lr_cdynp_party *const *agent,
                        const struct lr_tm *tm, int step, int beam,
                        bool on_loop, struct lr_cdynp_result *res,
                        struct lr_plan *plan,
                        char *why, size_t len)
{
    struct lr_cdynp_party *parties[LR_TM_MAX_DCS] = { NULL };
    struct lr_plan *local = malloc(sizeof *local);
    enum lr_tm_why verdict = LR_TM_DEVICES;
    int n = cl->n_dcs;
    snprintf(why, len, "out of memory");
    if (!local)
        return verdict;
    for (int k = 0; k < n; k++) {
        if (agent[k]) {
            parties[k] = agent[k];
            lr_agent_party_set_job(parties[k], tm);
            lr_agent_party_set_restart_wait(parties[k], on_loop ? 0
                                            : LR_AGENT_RESTART_WAIT_S,
                                            "a plan on lightraild's event "
                                            "loop does not wait");
        } else if (!(parties[k] = lr_cdynp_local_party_new(tm, k))) {
            goto cleanup;
        } else {
            lr_cdynp_local_party_set_step(parties[k], step);
        }
    }
    struct lr_cdynp_view view = lr_cdynp_view_of(tm);
    const struct lr_cdynp_options opts = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .beam = beam,
    };
    if (lr_agent_plan(cl, parties, &opts, &view, res, local, &verdict, why,
                      len)) {
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
        if (agent[dc]) {
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
        if (parties[k] && !agent[k])
            parties[k]->cls->free(parties[k]);
    free(local);
    return verdict;
}

/* What came of a RELEASE: the agent confirmed it (ENOENT, a tag it does
 * not hold, included), refused it (an ERROR answer), or did not answer
 * (unreachable, a timeout, a broken connection: it may still hold the
 * devices, and may answer another time). */
enum release_outcome { RELEASED, REFUSED, UNANSWERED };

/* RELEASE of 'tag' at 'agent' now, on this thread. */
static enum release_outcome
release_send(struct lr_cdynp_party *agent, const char *tag)
{
    int rc = lr_agent_party_release(agent, tag);
    if (!rc || rc == ENOENT)
        return RELEASED;
    return lr_agent_party_connected(agent) ? REFUSED : UNANSWERED;
}

static bool
release_now(struct lr_cdynp_party *agent, const char *tag)
{
    return release_send(agent, tag) == RELEASED;
}

/* Appends the RELEASE of 'tag' at 'agent', sent 'tries' times so far,
 * to c->deferred, unless one of that tag at that agent waits already
 * (it then counts the fewer tries of the two: one never tried asks for
 * an op at once): the same RELEASE, due twice (a COMMIT's that the
 * agent did not answer, and one of its name that waited before it), is
 * sent once.  False when there is no memory to keep it. */
static bool
queue_release(struct lr_ctl *c, struct lr_cdynp_party *agent,
              const char *tag, int tries)
{
    for (int i = 0; i < c->n_deferred; i++) {
        struct lr_ctl_release *q = &c->deferred[i];
        if (q->agent == agent && !strcmp(q->tag, tag)) {
            q->tries = q->tries < tries ? q->tries : tries;
            return true;
        }
    }
    if (c->n_deferred == c->cap_deferred) {
        int cap = c->cap_deferred ? 2 * c->cap_deferred : 8;
        struct lr_ctl_release *d = realloc(c->deferred,
                                           (size_t) cap * sizeof *d);
        if (!d)
            return false;
        c->deferred = d;
        c->cap_deferred = cap;
    }
    struct lr_ctl_release *r = &c->deferred[c->n_deferred++];
    r->agent = agent;
    snprintf(r->tag, sizeof r->tag, "%s", tag);
    r->tries = tries;
    return true;
}

/* RELEASE of 'tag' at 'agent', counted when the agent does not confirm
 * it (lr_ctl_counters.agent_release_failures): best effort, nothing
 * waits for it.  It is sent now unless it must wait in c->deferred:
 * while a plan or RELEASEs have the agents (c->agents_lent), or always
 * with a release hook (lr_ctl.h, "RELEASEs off the owner's thread").
 * Counted as failed when there is no memory to keep it. */
static void
release_at(struct lr_ctl *c, struct lr_cdynp_party *agent, const char *tag)
{
    if (!c->agents_lent && !c->release_hook) {
        enum release_outcome o = release_send(agent, tag);
        if (o != RELEASED)
            c->counters.agent_release_failures++;
        if (o == UNANSWERED)
            c->counters.agent_releases_given_up++;
        return;
    }
    if (!queue_release(c, agent, tag, 0)) {
        c->counters.agent_release_failures++;
        return;
    }
    if (c->release_hook)
        c->release_hook(c->release_arg);
}

/* A RELEASE of 'tag' the agent did not answer, sent 'tries' times so
 * far: queued to be tried again with the agents' next turn (with a
 * release hook, below LR_CTL_RELEASE_TRIES tries, memory permitting),
 * else given up. */
static void
retry_or_give_up(struct lr_ctl *c, struct lr_cdynp_party *agent,
                 const char *tag, int tries)
{
    if (tries >= LR_CTL_RELEASE_TRIES || !c->release_hook
        || !queue_release(c, agent, tag, tries))
        c->counters.agent_releases_given_up++;
}

/* The RELEASEs of 'tag' a failed COMMIT sent (lr_ctl_commit_chain()) that the
 * agents of the DCs marked in lost[] did not answer: tried once. */
void
lr_ctl_retry_lost(struct lr_ctl *c, const bool lost[], const char *tag)
{
    for (int dc = 0; dc < LR_TM_MAX_DCS; dc++)
        if (lost[dc])
            retry_or_give_up(c, c->agent[dc], tag, 1);
}

/* Sends the RELEASEs that wait, on this thread, in their order, once
 * each; an unanswered one is given up. */
void
lr_ctl_send_deferred(struct lr_ctl *c)
{
    for (int i = 0; i < c->n_deferred; i++) {
        const struct lr_ctl_release *r = &c->deferred[i];
        enum release_outcome o = release_send(r->agent, r->tag);
        if (o != RELEASED)
            c->counters.agent_release_failures++;
        if (o == UNANSWERED)
            c->counters.agent_releases_given_up++;
    }
    c->n_deferred = 0;
}

/* Takes the RELEASEs of 'tag' that wait out of the queue, unsent, into
 * late[] (room for 'cap'; beyond, given up), before a COMMIT of 'tag'
 * on this thread: sent after it, one would undo it.  They were just
 * tried (lr_ctl_settle_before_plan() sends the queue before the plan), and the
 * COMMIT itself releases a leftover of its name at the agents of its
 * chain (lr_ctl_commit_chain(), EEXIST), so they are not sent again here:
 * requeue_late() drops or queues them once the COMMIT's outcome is
 * known.  Returns their count. */
static int
take_deferred(struct lr_ctl *c, const char *tag, struct lr_ctl_release *late,
              int cap)
{
    int kept = 0, n_late = 0;
    for (int i = 0; i < c->n_deferred; i++) {
        struct lr_ctl_release r = c->deferred[i];
        if (strcmp(r.tag, tag))
            c->deferred[kept++] = r;
        else if (n_late < cap)
            late[n_late++] = r;
        else
            c->counters.agent_releases_given_up++;
    }
    c->n_deferred = kept;
    return n_late;
}

/* The RELEASEs of take_deferred()'s late[0..n) once the COMMIT of their
 * name is done: one at an agent of the chain 'res' it committed (NULL:
 * the COMMIT failed) is dropped, as that COMMIT released the leftover of
 * its name there; the others wait again (retry_or_give_up()), their
 * tries as they were. */
static void
requeue_late(struct lr_ctl *c, const struct lr_ctl_release *late, int n,
             const struct lr_cdynp_result *res)
{
    for (int i = 0; i < n; i++) {
        bool in_chain = false;
        for (int j = 0; res && j < res->n_dcs; j++)
            in_chain |= c->agent[res->dc[j]] == late[i].agent;
        if (!in_chain)
            retry_or_give_up(c, late[i].agent, late[i].tag, late[i].tries);
    }
}

/* Whether a RELEASE waits that was never tried (the others wait for the
 * agents' next turn to be tried again). */
static bool
any_fresh(const struct lr_ctl *c)
{
    for (int i = 0; i < c->n_deferred; i++)
        if (!c->deferred[i].tries)
            return true;
    return false;
}

/* A job's name is its tag at the agents, whole. */
_Static_assert(LR_JOB_NAME_MAX <= LR_WIRE_NAME_MAX,
               "a job name must fit a wire tag");

/* Whether 'job' has a range at DC k's agent (a remote stage). */
static bool
holds_at(const struct lr_ctl *c, const struct lr_job *job, int k)
{
    for (int s = 0; s < job->plan.n_stages; s++)
        if (job->plan.stages[s].dc == k && job->plan.stages[s].g == 0
            && c->agent[k])
            return true;
    return false;
}

static const char *kept_plan_at(const struct lr_ctl *, int k);

/* The names of the jobs that hold a range at DC k's agent into
 * tags[cap] (NULL: counted only); their count, or -1 when over 'cap'.
 * A job holds what its agents committed from its admission, provisioning
 * (the COMMIT came before its lightpaths, which the device thread may be
 * placing while an op takes the agents), until its RELEASE, sent once it
 * is deleted: active or releasing meanwhile.  So does the plan kept for
 * an admission (kept_plan_at()), committed before its job exists. */
int
lr_ctl_held_tags(const struct lr_ctl *c, int k, char (*tags)[LR_WIRE_NAME_MAX],
                 int cap)
{
    int n = 0;
    const char *kept = kept_plan_at(c, k);
    for (int i = 0; i <= c->n_jobs; i++) {
        const char *name = kept;                /* after the jobs */
        if (i < c->n_jobs) {
            const struct lr_job *j = &c->jobs[i];
            bool holds = (j->phase == LR_JOB_PROVISIONING
                          || j->phase == LR_JOB_ACTIVE
                          || j->phase == LR_JOB_RELEASING)
                         && holds_at(c, j, k);
            name = holds ? j->intent.name : NULL;
        }
        if (!name)
            continue;
        if (n == cap)
            return -1;
        if (tags)
            snprintf(tags[n], LR_WIRE_NAME_MAX, "%s", name);
        n++;
    }
    return n;
}

/* A KEEP for each agent that owes its start's (c->keep_due), handed to
 * 'op', which sends them first: the agents are the op's from here, so
 * no job commits or goes at an agent until they are sent.  One with
 * more tags than a KEEP takes, or no memory, waits for another op. */
void
lr_ctl_hand_keeps(struct lr_ctl *c, struct lr_ctl_op *op)
{
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        if (!c->keep_due[k] || !c->agent[k])
            continue;
        int n = lr_ctl_held_tags(c, k, NULL, LR_WIRE_KEEP_MAX);
        if (n < 0)
            continue;
        if (!op->keep && !(op->keep = calloc(LR_TM_MAX_DCS,
                                             sizeof *op->keep)))
            return;
        struct lr_ctl_keep *kp = &op->keep[op->n_keep];
        if (!(kp->tags = calloc((size_t) n + 1, sizeof *kp->tags)))
            return;
        kp->dc = k;
        kp->agent = c->agent[k];
        kp->n = lr_ctl_held_tags(c, k, kp->tags, n);
        op->n_keep++;
    }
}

void
lr_ctl_keep_run(struct lr_ctl_op *op)
{
    for (int i = 0; i < op->n_keep; i++) {
        struct lr_ctl_keep *kp = &op->keep[i];
        kp->answered = !lr_agent_party_keep(
            kp->agent, (const char (*)[LR_WIRE_NAME_MAX]) kp->tags, kp->n);
    }
}

void
lr_ctl_keep_free(struct lr_ctl_op *op)
{
    for (int i = 0; i < op->n_keep; i++)
        free(op->keep[i].tags);
    free(op->keep);
    op->keep = NULL;
    op->n_keep = 0;
}

int
lr_ctl_keeps_due(const struct lr_ctl *c)
{
    int n = 0;
    for (int k = 0; k < LR_TM_MAX_DCS; k++)
        n += c->keep_due[k] && c->agent[k];
    return n;
}

/* The RELEASEs waiting in c->deferred, handed to 'op' (which owns them
 * from here), or false when there are none. */
bool
lr_ctl_hand_deferred(struct lr_ctl *c, struct lr_ctl_op *op)
{
    if (!c->n_deferred)
        return false;
    op->rel = c->deferred;
    op->n_rel = c->n_deferred;
    c->n_releasing = c->n_deferred;
    c->deferred = NULL;
    c->n_deferred = c->cap_deferred = 0;
    return true;
}

void
lr_ctl_release_run(struct lr_ctl_op *op)
{
    int again = 0;
    for (int i = 0; i < op->n_rel; i++) {
        struct lr_ctl_release r = op->rel[i];
        enum release_outcome o = release_send(r.agent, r.tag);
        if (o == RELEASED)
            continue;
        op->rel_failed++;
        if (o == UNANSWERED && ++r.tries < LR_CTL_RELEASE_TRIES)
            op->rel[again++] = r;
        else if (o == UNANSWERED)
            op->rel_given_up++;
    }
    op->n_rel = again;
}

/* Whether 'r' is a RELEASE of 'tag' at one of the agents 'chain[0..n)'. */
static bool
released_by_commit(const struct lr_ctl_release *r, const char *tag,
                   struct lr_cdynp_party *const chain[], int n)
{
    if (!tag || strcmp(r->tag, tag))
        return false;
    for (int k = 0; k < n; k++)
        if (chain[k] == r->agent)
            return true;
    return false;
}

/* The RELEASEs of 'op' to try again put back in front of those queued
 * meanwhile (they are older), but for those of 'committed' (not NULL:
 * the name the op's plan has just committed) at the agents of its chain
 * ('chain[0..n_chain)'): each COMMIT released a leftover of its name
 * there, and a late RELEASE would undo it.  Elsewhere the leftover is
 * still due. */
static void
requeue(struct lr_ctl *c, struct lr_ctl_op *op, const char *committed,
        struct lr_cdynp_party *const chain[], int n_chain)
{
    int n = 0;
    for (int i = 0; i < op->n_rel; i++)
        if (!released_by_commit(&op->rel[i], committed, chain, n_chain))
            op->rel[n++] = op->rel[i];
    if (!n)
        return;
    struct lr_ctl_release *d = malloc((size_t) (n + c->n_deferred)
                                      * sizeof *d);
    if (!d) {
        c->counters.agent_releases_given_up += (unsigned) n;
        return;
    }
    memcpy(d, op->rel, (size_t) n * sizeof *d);
    if (c->n_deferred)
        memcpy(d + n, c->deferred, (size_t) c->n_deferred * sizeof *d);
    free(c->deferred);
    c->deferred = d;
    c->n_deferred += n;
    c->cap_deferred = c->n_deferred;
}

/* The agents back from 'op' (a plan's or RELEASEs'), with the count of
 * its RELEASEs they did not confirm.  Without a hook those that waited
 * meanwhile go now (after the plan's COMMIT, which its run sent: none
 * is of its name, as no job of that name exists while it is planned),
 * and none is tried again; with one, those the agents did
 * not answer wait to be tried again (requeue(): 'committed', the name
 * the plan committed at the agents 'chain[0..n_chain)', or NULL), and
 * the hook is asked for an op when RELEASEs never tried wait. */
void
lr_ctl_agents_back(struct lr_ctl *c, struct lr_ctl_op *op,
                   const char *committed,
                   struct lr_cdynp_party *const chain[], int n_chain)
{
    c->agents_lent = false;
    c->n_releasing = 0;
    for (int i = 0; i < op->n_keep; i++)
        if (op->keep[i].answered)
            c->keep_due[op->keep[i].dc] = false;
    c->counters.agent_release_failures += (unsigned) op->rel_failed;
    c->counters.agent_releases_given_up += (unsigned) op->rel_given_up;
    if (!c->release_hook) {
        c->counters.agent_releases_given_up += (unsigned) op->n_rel;
        lr_ctl_send_deferred(c);
        return;
    }
    requeue(c, op, committed, chain, n_chain);
    if (any_fresh(c))
        c->release_hook(c->release_arg);
}

void
lr_ctl_set_release_hook(struct lr_ctl *c, void (*hook)(void *), void *arg)
{
    c->release_hook = hook;
    c->release_arg = arg;
}

/* Keeps what lr_ctl_agent_status() says of each agent while they are
 * lent (owner's thread, before lending them). */
void
lr_ctl_snapshot_agents(struct lr_ctl *c)
{
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        const char *e = c->agent[k] ? lr_agent_party_error(c->agent[k])
                                    : NULL;
        snprintf(c->agent_why[k], sizeof c->agent_why[k], "%s", e ? e : "");
        c->agent_answered[k] = c->agent[k]
                               && lr_agent_party_connected(c->agent[k]);
        c->agent_idle_closes[k] = c->agent[k]
            ? lr_agent_party_idle_closes(c->agent[k], NULL) : 0;
    }
}

int
lr_ctl_agent_status(const struct lr_ctl *c, int k,
                    struct lr_ctl_agent_status *out)
{
    if (k < 0 || k >= c->cluster->n_dcs || k >= LR_TM_MAX_DCS
        || !c->agent[k])
        return ENOENT;
    const char *e = c->agents_lent ? c->agent_why[k]
                                   : lr_agent_party_error(c->agent[k]);
    /* A failure with the connection kept is an ERROR answer (a refusal:
     * ENOSPC when another job took the devices, EIO when the agent could
     * not save): the agent is there; the job's reason says it. */
    bool answered = c->agents_lent ? c->agent_answered[k]
                                   : lr_agent_party_connected(c->agent[k]);
    out->dc = c->cluster->dcs[k].name;
    out->up = !e || !e[0] || answered;
    snprintf(out->why, sizeof out->why, "%s", out->up ? "" : e);
    /* While lent, the count when lent; the words are read once they are
     * back (the planner's thread may write them meanwhile). */
    const char *last = "";
    out->idle_closes = c->agents_lent
        ? c->agent_idle_closes[k]
        : lr_agent_party_idle_closes(c->agent[k], &last);
    snprintf(out->idle_close, sizeof out->idle_close, "%s", last);
    return 0;
}

int
lr_ctl_release_begin(struct lr_ctl *c, struct lr_ctl_op **op)
{
    *op = NULL;
    if (!any_fresh(c) || c->agents_lent)
        return 0;
    struct lr_ctl_op *o = calloc(1, sizeof *o);
    if (!o)
        return ENOMEM;
    o->agents_only = true;
    lr_ctl_hand_keeps(c, o);
    lr_ctl_hand_deferred(c, o);
    lr_ctl_snapshot_agents(c);
    c->agents_lent = true;
    *op = o;
    return 0;
}

void
lr_ctl_release_end(struct lr_ctl *c, struct lr_ctl_op *op)
{
    lr_ctl_agents_back(c, op, NULL, NULL, 0);
    lr_ctl_op_free(op);
}

int
lr_ctl_releases_pending(const struct lr_ctl *c)
{
    int n = c->n_releasing;
    for (int i = 0; i < c->n_deferred; i++)
        n += !c->deferred[i].tries;
    return n;
}

int
lr_ctl_releases_retrying(const struct lr_ctl *c)
{
    int n = 0;
    for (int i = 0; i < c->n_deferred; i++)
        n += c->deferred[i].tries > 0;
    return n;
}

/* RELEASE to the agent of every remote range of 'job' (best effort: an
 * agent that forgot the job, or cannot be reached, is passed over). */

void
lr_ctl_release_remote(struct lr_ctl *c, const struct lr_job *job)
{
    for (int s = 0; s < job->plan.n_stages; s++) {
        const struct lr_stage *st = &job->plan.stages[s];
        if (st->g == 0 && st->dc >= 0 && st->dc < LR_TM_MAX_DCS
            && c->agent[st->dc])
            release_at(c, c->agent[st->dc], job->intent.name);
    }
}

/* COMMIT of 'tag' to the agent of every remote DC of the chain 'res'
 * (agent[] by DC index, NULL for this controller's DCs), on the calling
 * thread, which must have the agents.  On the first failure the agents
 * committed so far get RELEASE, and why[] says which agent failed and
 * why.  The agent that failed gets RELEASE too unless it answered (an
 * ERROR: it reserved nothing): after a timeout or a broken connection
 * the outcome is unknown, and an agent that did reserve would keep the
 * devices until a KEEP frees them (RELEASE of a tag it does not hold is a
 * harmless ENOENT).  '*unconfirmed' counts the RELEASEs the agents did
 * not confirm; lost[] (by DC index) marks the agents that did not answer
 * one of these, which may still hold 'tag' (lr_ctl_retry_lost()).  0 or the
 * failure's errno. */
int
lr_ctl_commit_chain(struct lr_cdynp_party *const agent[],
                    const struct lr_cluster *cl,
                    const struct lr_cdynp_result *res, const char *tag,
                    char *why, size_t whylen, int *unconfirmed, bool lost[])
{
    *unconfirmed = 0;
    memset(lost, 0, LR_TM_MAX_DCS * sizeof *lost);
    for (int i = 0; i < res->n_dcs; i++) {
        int dc = res->dc[i], n_stages, rc = EEXIST;
        if (!agent[dc])
            continue;
        /* EEXIST: the agent holds this name for us already.  Tags are
         * each coordinator's own and two jobs never share a name, so it
         * is a leftover of an earlier job whose RELEASE was lost (the
         * agent unreachable then): release it and commit once more, or
         * the name stays blocked until a KEEP frees it. */
        for (int tries = 0; rc == EEXIST && tries < 2; tries++) {
            if (tries && !release_now(agent[dc], tag))
                (*unconfirmed)++;
            rc = lr_agent_party_commit(agent[dc], res->objective,
                                       res->assumed, res->first[i],
                                       res->last[i], res->n_stages[i], tag,
                                       &n_stages);
        }
        if (rc) {
            const char *e = lr_agent_party_error(agent[dc]);
            snprintf(why, whylen, "agent %s did not commit its layers "
                     "%d-%d: %s", cl->dcs[dc].name, res->first[i] + 1,
                     res->last[i] + 1, e ? e : strerror(rc));
            bool unknown = !lr_agent_party_connected(agent[dc]);
            for (int j = 0; j < i + unknown; j++) {
                struct lr_cdynp_party *a = agent[res->dc[j]];
                enum release_outcome o = a ? release_send(a, tag) : RELEASED;
                *unconfirmed += o != RELEASED;
                lost[res->dc[j]] |= o == UNANSWERED;
            }
            return rc;
        }
    }
    return 0;
}

/* RELEASE of 'tag' at the agent of every remote DC of the chain 'res'
 * (best effort, release_at()). */
void
lr_ctl_release_chain(struct lr_ctl *c, const struct lr_cdynp_result *res,
                     const char *tag)
{
    for (int i = 0; i < res->n_dcs; i++)
        if (c->agent[res->dc[i]])
            release_at(c, c->agent[res->dc[i]], tag);
}

/* lr_ctl_commit_chain() of 'job' on the owner's thread, when the plan was made
 * there; the job's reason says why it failed. */
int
lr_ctl_commit_remote(struct lr_ctl *c, struct lr_job *job,
                     const struct lr_cdynp_result *res)
{
    char why[LR_JOB_REASON_MAX];
    int unconfirmed;
    bool lost[LR_TM_MAX_DCS];
    struct lr_ctl_release late[LR_TM_MAX_DCS];
    /* A RELEASE of this name still waiting (an earlier job's) would undo
     * the COMMIT if it went after it. */
    int n_late = take_deferred(c, job->intent.name, late, LR_TM_MAX_DCS);
    int rc = lr_ctl_commit_chain(c->agent, c->cluster, res, job->intent.name,
                                 why, sizeof why, &unconfirmed, lost);
    c->counters.agent_release_failures += (unsigned) unconfirmed;
    requeue_late(c, late, n_late, rc ? NULL : res);
    lr_ctl_retry_lost(c, lost, job->intent.name);
    if (rc)
        lr_ctl_fail(job->reason, sizeof job->reason, rc, "%s", why);
    return rc;
}

/* True when c->agent_plan (lr_ctl_plan_end kept it) answers the
 * question 'key' of intent 'in' on the network as it is. */
bool
lr_ctl_kept_answers(const struct lr_ctl *c, const struct lr_intent *in,
                    const struct plan_memo *key)
{
    const struct lr_ctl_plan *p = c->agent_plan;
    return p && p->network_gen == c->network_gen
        && !strcmp(p->name, in->name) && lr_ctl_memo_same(&p->key, key);
}

/* The name c->agent_plan committed at DC k's agent, which holds it for
 * the plan's admission (no job of that name exists meanwhile: it is
 * planned only while there is none), or NULL. */
static const char *
kept_plan_at(const struct lr_ctl *c, int k)
{
    const struct lr_ctl_plan *p = c->agent_plan;
    if (!p || !p->committed || p->network_gen != c->network_gen
        || !c->agent[k])
        return NULL;
    for (int i = 0; i < p->res.n_dcs; i++)
        if (p->res.dc[i] == k)
            return p->name;
    return NULL;
}

/* Frees c->agent_plan, which no admission took: the agents that
 * committed it get RELEASE (release_at()). */
void
lr_ctl_drop_agent_plan(struct lr_ctl *c)
{
    struct lr_ctl_plan *p = c->agent_plan;
    c->agent_plan = NULL;
    if (p && p->committed && p->network_gen == c->network_gen)
        lr_ctl_release_chain(c, &p->res, p->name);
    lr_ctl_plan_free(p);
}

/* Whether the agents can be worked on now, for lr_ctl_agents_reload_tls()
 * and _recheck_tls(), 'what' being what they do ("read the agent TLS
 * files again"): 0; ENOENT when no coordinator is configured (there is
 * no agent), err[] saying how to have one; EBUSY while the agents are
 * lent to a plan or to RELEASEs, err[] saying to do 'what' when they
 * are done. */
static int
agents_guard(const struct lr_ctl *c, const char *what, char *err,
             size_t errlen)
{
    if (!c->agent_cert[0] || !c->agent_key[0] || !c->agent_ca[0])
        return lr_ctl_fail(err, errlen, ENOENT, "cannot %s: no "
                           "coordinator in the configuration (configure "
                           "one, with its certificate, key and ca, to "
                           "coordinate remote data centers)", what);
    if (c->agents_lent)
        return lr_ctl_fail(err, errlen, EBUSY, "the data centers' agents "
                           "are busy (a plan or RELEASEs in flight): %s "
                           "when they are done", what);
    return 0;
}

int
lr_ctl_agents_reload_tls(struct lr_ctl *c, const char *how, char *report,
                         size_t rlen, char *err, size_t errlen)
{
    char e[2048];
    struct lr_ctl_report r = { report, rlen, 0, 0 };
    report[0] = '\0';
    int rc = agents_guard(c, "read the agent TLS files again", err, errlen);
    if (rc)
        return rc;
    /* One context for every party: the files are read once; a file
     * that does not load leaves every party as it was.  (A party that
     * cannot take a reference to the new context, which OpenSSL's
     * up_ref does not refuse in practice, keeps its own and says so.) */
    SSL_CTX *ctx = lr_agent_party_tls_new(c->agent_cert, c->agent_key,
                                          c->agent_ca, c->agent_crl, e,
                                          sizeof e);
    if (!ctx)
        return lr_ctl_fail(err, errlen, EINVAL, "%s", e);
    for (int k = 0; c->cluster && k < c->cluster->n_dcs
                    && k < LR_TM_MAX_DCS; k++) {
        if (!c->agent[k])
            continue;
        rc = lr_agent_party_use_tls(c->agent[k], ctx, e, sizeof e);
        if (rc == EACCES)
            lr_ctl_report_line(&r, "agent %s: connection closed: its "
                               "certificate is refused since %s: %s",
                               c->cluster->dcs[k].name, how, e);
        else if (rc)
            lr_ctl_report_line(&r, "agent %s: the files read before stay: "
                               "%s", c->cluster->dcs[k].name, e);
    }
    lr_ctl_report_end(&r);
    /* A plan kept for its admission (c->agent_plan) stays: it was made
     * and committed before the files were read again, as the intent was
     * queued before the SIGHUP, and its admission asks no agent. */
    SSL_CTX_free(ctx);
    return 0;
}

void
lr_ctl_agents_tls_span(const struct lr_ctl *c, time_t now,
                       struct lr_tls_span *s)
{
    for (int k = 0; c->cluster && k < c->cluster->n_dcs
                    && k < LR_TM_MAX_DCS; k++) {
        if (!c->agent[k])
            continue;
        lr_agent_party_span_crls(c->agent[k], now, s);
        /* A plan in flight makes and closes the connections: their
         * chains are read when the agents are back (the owner asks
         * again then: nb_app.agents_back). */
        if (!c->agents_lent)
            lr_agent_party_span_peer(c->agent[k], s);
    }
}

void
lr_ctl_report_line(struct lr_ctl_report *r, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Room is kept for the tail "\n... and N more lines" (at most
     * LR_CTL_REPORT_TAIL with its NUL), so that it always fits once a
     * line is dropped.  It counts lines, not connections closed: a
     * reload's report also has lines of agents that keep the files read
     * before. */
    size_t need = (r->len ? 1 : 0) + (size_t) (n < 0 ? 0 : n);
    if (n < 0 || (size_t) n >= sizeof line || r->more
        || r->len + need + LR_CTL_REPORT_TAIL > r->cap) {
        r->more++;
        return;
    }
    snprintf(r->buf + r->len, r->cap - r->len, "%s%s", r->len ? "\n" : "",
             line);
    r->len += need;
}

void
lr_ctl_report_end(struct lr_ctl_report *r)
{
    if (r->more)
        snprintf(r->buf + r->len, r->cap - r->len, "%s... and %u more "
                 "line%s", r->len ? "\n" : "", r->more,
                 r->more == 1 ? "" : "s");
}

int
lr_ctl_agents_recheck_tls(struct lr_ctl *c, char *report, size_t rlen,
                          char *err, size_t errlen)
{
    char e[1024], when[32];
    struct lr_ctl_report r = { report, rlen, 0, 0 };
    report[0] = '\0';
    int rc = agents_guard(c, "judge the agents' connections again", err,
                          errlen);
    if (rc)
        return rc;
    for (int k = 0; c->cluster && k < c->cluster->n_dcs
                    && k < LR_TM_MAX_DCS; k++) {
        if (!c->agent[k])
            continue;
        long v = lr_agent_party_verify_again(c->agent[k], e, sizeof e);
        const struct lr_tls_peer *p = lr_agent_party_verified(c->agent[k]);
        if (v == X509_V_OK)
            continue;
        if (v == X509_V_ERR_CERT_HAS_EXPIRED && p->error == v) {
            lr_ctl_report_line(&r, "certificate %s expired at %s: "
                               "connection to %s closed; the agent must "
                               "present a renewed certificate", p->subject,
                               p->not_after, c->cluster->dcs[k].name);
        } else if (v == X509_V_ERR_CRL_HAS_EXPIRED) {
            lr_agent_party_crl_update(c->agent[k], true, when, sizeof when);
            lr_ctl_report_line(&r, "CRL '%s' expired at %s (nextUpdate): "
                               "connection to %s closed; install a fresh "
                               "CRL and send SIGHUP", c->agent_crl, when,
                               c->cluster->dcs[k].name);
        } else {
            lr_ctl_report_line(&r, "agent %s: connection closed: its "
                               "certificate is refused: %s",
                               c->cluster->dcs[k].name, e);
        }
    }
    lr_ctl_report_end(&r);
    return 0;
}

/* Before a plan with the agents made on this thread (an admission that
 * plans itself): what a plan op would send first, the KEEPs owed and the
 * RELEASEs queued, sent here the same way (those unanswered wait for a
 * retry), so that the agents free their devices before they are asked
 * for them. */
void
lr_ctl_settle_before_plan(struct lr_ctl *c)
{
    struct lr_ctl_op now = { .agents_only = true };
    lr_ctl_hand_keeps(c, &now);
    lr_ctl_hand_deferred(c, &now);
    lr_ctl_op_run(&now);
    lr_ctl_agents_back(c, &now, NULL, NULL, 0);
    lr_ctl_keep_free(&now);
    free(now.rel);
}

/* What the agents are owed, sent now on this thread, which has them:
 * the RELEASEs of a plan kept and never taken, and those queued.  For
 * a new network and the controller's end, which free the agents. */
void
lr_ctl_settle_agents(struct lr_ctl *c)
{
    lr_ctl_drop_agent_plan(c);
    lr_ctl_send_deferred(c);
}

/* The plan made with the agents off the owner's thread for 'in' over the
 * devices 'tm' offers now, taken from c->agent_plan: the caller owns it,
 * and its COMMITs (when 'committed'), which it must release unless the
 * job is admitted.  NULL when there is none for this question, or the
 * network was replaced since (lr_ctl_drop_agent_plan()).  Either way
 * c->agent_plan is emptied. */
struct lr_ctl_plan *
lr_ctl_take_agent_plan(struct lr_ctl *c, const struct lr_intent *in,
                       const struct lr_tm *tm)
{
    struct lr_ctl_plan *p = c->agent_plan;
    struct plan_memo key;
    lr_ctl_memo_key(in, "cdynp", tm, &key);
    if (!lr_ctl_kept_answers(c, in, &key)) {
        lr_ctl_drop_agent_plan(c);
        return NULL;
    }
    c->agent_plan = NULL;
    return p;
}
