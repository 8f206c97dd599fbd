/*
 * sb_mnoptical: a ROADM of a Mininet-Optical emulation, programmed over
 * its REST API (../shared/reference/southbound.md, "Mininet-Optical
 * REST"; the client and the grid mapping are in sb_mnoptical_api.c).
 *
 * Address: the emulator's base URL, "http://HOST:PORT" (the ROADM is the
 * emulator node named like the device) or "http://HOST:PORT#NODE" (the
 * emulator calls it NODE).  The REST server is unauthenticated plain
 * HTTP: a lab tool, keep it on loopback or a lab network.
 *
 * open() reads /nodes, /links and /ports?node=NODE and refuses a node the
 * emulator does not have, one that is not a ROADM, or links to ports the
 * node does not list.
 *
 * apply(): each media channel becomes one rule
 *     GET /connect?node=NODE&port1=IN&port2=OUT&channels=K,K+1,...
 *         &action=install             (SB_DELETE: action=remove)
 * Channels: sb_mno_map() (a run of whole 50 GHz channels, else refused
 * with the reason).  Ports: a topology link "A-B" is the emulator's link
 * between nodes A and B (either order), and the port is this node's end
 * of it; an empty in-port (add) or out-port (drop) is the node's one link
 * to a Terminal (refused when it has none or several).  A disabled
 * channel is refused (rules have no admin state).  Everything is
 * checked before the first request; the requests then go in order and a
 * failure undoes those done, newest first (a timed-out install is
 * removed too, best effort): all or nothing per device.
 *
 * read(): Mininet-Optical has no working rule listing (/rules answers
 * 500 once a rule exists), so the driver answers from its own record of
 * what it installed through this handle.  Consequences for
 * reconciliation: rules made by anyone else are invisible -- never
 * reported as drift nor removed.  After a restart of lightraild the
 * record is empty: the start re-installs an active job's channels (the
 * emulator keys its rules by in-port and channel, so an install of a
 * rule it holds is that rule again), and puts back, marked unknown
 * (adopt()), those of a job whose provisioning or release the restart
 * interrupted, so that their removal reaches the emulator.  A rule no
 * store knows of (another controller's, or one whose job left the
 * store) stays invisible: reset the emulator's ROADMs (/reset) when
 * starting the controller against an emulation used otherwise.  A
 * rule whose request had no answer stays on the record marked unknown
 * (sb_mno_record()) and is shown, with its mark (sb_media_channel's
 * unknown); a DELETE settles it.  A removal the emulator refuses with
 * its answer for a rule it does not hold (a 500, whose page does not
 * tell that from a refusal for another reason) is asked about
 * (sb_mno_probe()): the install again, then the removal again, so that
 * a rule it lost behind our back (restarted, /reset) is removed at
 * once and one it holds and will not remove stays on the record; when
 * it refuses that install too (or it is not sent), nothing tells, and
 * the rule stays on the record marked unknown (EPROTO).  Such
 * a rule can also be put back without a removal: SB_REINSTALL
 * (sb_driver.h reinstalls) sends its install again, which the emulator
 * takes as the rule it holds, or the rule again when it lost it.
 *
 * Errors: the emulator's HTML pages become one line (404 whose page
 * says "Unknown node": ENOENT, and a removal so answered leaves the
 * record: the emulator holds no rule on a node it does not know; any
 * other 404 -- a path it does not serve, a proxy's -- and 500, a bad
 * parameter: EPROTO, the record as it was); transport errors as
 * sb_http.h.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "planner/lr_utf8.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_mnoptical.h"

struct sb_mno_rule {
    struct sb_media_channel mc;
    int port1, port2;
    int first, count;         /* channels first .. first + count - 1 */
    bool unknown;             /* on the record, but whether the emulator
                               * holds it is unknown: a request on it had
                               * no answer (sb_mno_record()) */
};

struct sb_mnoptical {
    struct sb_device_config config;
    char node[64];            /* the emulator's name of this ROADM */
    struct sb_mno c;
    pthread_mutex_t lock;
    struct sb_mno_rule *rules;   /* what this handle installed */
    int n_rules, cap_rules;
};

/* /connect for one rule; 0 or the emulator's error. */
static int
sb_mno_connect(struct sb_mnoptical *d, const struct sb_mno_rule *r,
               bool install, char *err, size_t errlen)
{
    char q[768], *esc = curl_easy_escape(d->c.h, d->node, 0);
    if (!esc) {
        /* Said of this request, which did not go out: a batch's line
         * adds what it had sent before (sb_mnoptical_apply_locked). */
        char chs[32];
        if (r->count > 1)
            snprintf(chs, sizeof chs, "%d-%d", r->first,
                     r->first + r->count - 1);
        else
            snprintf(chs, sizeof chs, "%d", r->first);
        sb_errf(err, errlen, 0, "%s: out of memory for GET /connect "
                "(channels %s, %s): it was not sent; retry",
                d->config.name, chs, install ? "install" : "remove");
        return ENOMEM;
    }
    int l = snprintf(q, sizeof q, "node=%s&port1=%d&port2=%d&channels=",
                     esc, r->port1, r->port2);
    curl_free(esc);
    for (int i = 0; i < r->count && l > 0 && (size_t) l < sizeof q; i++)
        l += snprintf(q + l, sizeof q - (size_t) l, "%s%d", i ? "," : "",
                      r->first + i);
    if (l > 0 && (size_t) l < sizeof q)
        snprintf(q + l, sizeof q - (size_t) l, "&action=%s",
                 install ? "install" : "remove");
    return sb_mno_get(&d->c, "/connect", q, NULL, err, errlen);
}

static int
sb_mno_find(const struct sb_mno_rule *r, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(r[i].mc.name, name))
            return i;
    return -1;
}

/* The rule of one media channel on this ROADM, or the refusal. */
static int
sb_mno_rule_of(struct sb_mnoptical *d, const struct sb_media_channel *mc,
               struct sb_mno_rule *r, char *err, size_t errlen)
{
    char why[384];
    int ret;

    memset(r, 0, sizeof *r);
    r->mc = *mc;
    if ((ret = sb_mno_map(mc->n, mc->m, &r->first, &r->count, why,
                          sizeof why))) {
        sb_errf(err, errlen, 0, "%s: media channel '%s': %s; nothing applied",
                d->config.name, mc->name, why);
        return ret;
    }
    if (!mc->enabled) {
        sb_errf(err, errlen, 0, "%s: media channel '%s' is disabled, and the "
                "emulator's rules have no admin state: delete it instead; "
                "nothing applied", d->config.name, mc->name);
        return EINVAL;
    }
    if (!mc->in_port[0] && !mc->out_port[0]) {
        sb_errf(err, errlen, 0, "%s: media channel '%s' has neither an in- "
                "nor an out-port: give at least one link; nothing applied",
                d->config.name, mc->name);
        return EINVAL;
    }
    for (int side = 0; side < 2; side++) {
        const char *link = side ? mc->out_port : mc->in_port;
        int *port = side ? &r->port2 : &r->port1;
        ret = link[0] ? sb_mno_link_port(&d->c, d->node, d->config.name,
                                         link, port, why, sizeof why)
                      : sb_mno_port_towards(&d->c, d->node, NULL,
                                            "Terminal", port, why,
                                            sizeof why);
        if (ret) {
            sb_errf(err, errlen, 0, "%s (%s port of media channel '%s'); "
                    "nothing applied", why, side ? "out" : "in", mc->name);
            return ret;
        }
    }
    return 0;
}

struct sb_mno_step {
    bool install;
    bool again;               /* SB_REINSTALL: a rule on the record,
                               * installed again (install is true) */
    struct sb_mno_rule r;
};

/* What the record says of a rule after a failed batch. */
enum sb_mno_held {
    SB_MNO_GONE,              /* the emulator does not hold it */
    SB_MNO_HELD,              /* it does */
    SB_MNO_UNKNOWN,           /* it may: a request on it had no answer */
};

/* The record of what this controller installed, after a rule's install
 * or removal that could not be undone, or whose answer was lost: so
 * that read() shows every rule the emulator may hold, and a DELETE (or
 * reconciliation's) can remove it.  A rule held UNKNOWN is shown as
 * any other: the emulator cannot be asked (no rule listing), and a
 * rule left off the record could never be removed but by /reset;
 * its mark tells read()'s callers, and a removal settles it once the
 * emulator answers for the rule: done, or its install taken again
 * (sb_mno_probe()).
 * Allocates nothing: the batch reserved room for every rule it may
 * leave (sb_mno_reserve()), so that a rule sent is never left off the
 * record for want of memory. */
static void
sb_mno_record(struct sb_mnoptical *d, const struct sb_mno_rule *r,
              enum sb_mno_held held)
{
    int at = sb_mno_find(d->rules, d->n_rules, r->mc.name);
    if (held == SB_MNO_GONE) {
        if (at >= 0)
            d->rules[at] = d->rules[--d->n_rules];
        return;
    }
    if (at < 0 && d->n_rules < d->cap_rules)
        d->rules[at = d->n_rules++] = *r;
    if (at >= 0)
        d->rules[at].unknown = held == SB_MNO_UNKNOWN;
}

/* Whether 'ret', with the answer's HTTP 'status' (sb_mno.status), is
 * how Mininet-Optical refuses to remove a rule it does not hold: 500
 * (EPROTO).  Any other status, or no answer, is not: a real failure. */
static bool
sb_mno_refused_as_not_held(int ret, long status)
{
    return ret == EPROTO && status == 500;
}

/* What a removal refused with the emulator's 500 turned out to be
 * (sb_mno_probe()). */
enum sb_mno_probe {
    SB_MNO_PROBE_REFUSED,     /* the install again was refused too: the
                               * 500 stays ambiguous */
    SB_MNO_PROBE_ASK_UNSENT,  /* the install again did not reach it:
                               * ambiguous too */
    SB_MNO_PROBE_REMOVED,     /* it holds the rule now, and the removal
                               * sent again was done */
    SB_MNO_PROBE_HELD,        /* it holds the rule, and refused the
                               * removal sent again: a refusal */
    SB_MNO_PROBE_LOST,        /* an answer was lost: it may hold it */
    SB_MNO_PROBE_UNSENT,      /* it holds the rule, and the removal to
                               * send again did not reach it (the
                               * controller's failure, or no session):
                               * no refusal */
};

/* The emulator answered the removal of 'r' with the 500 it gives for a
 * rule it does not hold, which its page does not tell from a refusal
 * for another reason.  Asks it: the install of 'r' again, which it
 * takes as the rule it holds (it keys a ROADM's rules by in-port and
 * channel) or as the rule again; accepted, it holds the rule now, and
 * the removal sent again answers for it: done, or a refusal of a rule
 * it holds.  A rule it had lost is switched on between the two, for
 * the time of a request.  '*ret' gets the outcome's errno (0 when
 * removed; the removal's error when held, EPROTO for its 404;
 * ETIMEDOUT when lost; the removal's when it did not reach the
 * emulator (sb_local(), or sb_unanswered() but ETIMEDOUT); as it
 * was when the install was refused or did not reach it), err[] its
 * line but then (the first removal's line stands, and the caller
 * keeps the rule, marked unknown).  Until
 * 2026-12-07 the 500 alone was judged: a rule the emulator held and
 * whose removal it refused twice left the record, the rule on the
 * node for good. */
static enum sb_mno_probe
sb_mno_probe(struct sb_mnoptical *d, const struct sb_mno_rule *r, int *ret,
             char *err, size_t errlen)
{
    char e2[512];
    int rc = sb_mno_connect(d, r, true, e2, sizeof e2);
    if (rc == ETIMEDOUT) {
        *ret = sb_errf(err, errlen, ETIMEDOUT, "%s: the emulator refused "
                       "to remove %s with a 500, and the install sent to "
                       "ask whether it holds it had no answer: %s",
                       d->config.name, r->mc.name, e2);
        return SB_MNO_PROBE_LOST;
    }
    if (sb_local(rc) || sb_unanswered(rc))
        return SB_MNO_PROBE_ASK_UNSENT;
    if (rc)
        return SB_MNO_PROBE_REFUSED;
    rc = sb_mno_connect(d, r, false, err, errlen);
    /* A 404 (ENOENT, unknown node) right after the install was taken
     * is no removal of what is gone, which sb_parallel and lr_ctl's
     * release take an ENOENT for: the rule was switched on. */
    *ret = rc == ENOENT ? EPROTO : rc;
    /* A removal that never reached the emulator is no refusal: until
     * 2026-12-07 its line said "refused its removal though it holds
     * it" for an ENOMEM that said "it was not sent". */
    if (sb_local(rc) || (rc != ETIMEDOUT && sb_unanswered(rc)))
        return SB_MNO_PROBE_UNSENT;
    return !rc ? SB_MNO_PROBE_REMOVED
           : rc == ETIMEDOUT ? SB_MNO_PROBE_LOST : SB_MNO_PROBE_HELD;
}

/* Room in the record for 'n' more rules than it holds, made before a
 * batch of 'n' changes sends anything: a batch leaves at most that many
 * (its installs, or those whose undo failed), and growing the record
 * after the emulator has them could fail with rules on the node that
 * read() and reconciliation would never see.  ENOMEM or 0; the record
 * as it was either way. */
static int
sb_mno_reserve(struct sb_mnoptical *d, int n)
{
    size_t need = (size_t) d->n_rules + (size_t) n;
    if (need <= (size_t) d->cap_rules)
        return 0;
    size_t cap = d->cap_rules ? 2 * (size_t) d->cap_rules : 8;
    if (cap < need)
        cap = need;
    if (cap > INT_MAX / 2)
        return ENOMEM;
    struct sb_mno_rule *p = realloc(d->rules, cap * sizeof *p);
    if (!p)
        return ENOMEM;
    d->rules = p;
    d->cap_rules = (int) cap;
    return 0;
}

static int
sb_mnoptical_apply_locked(struct sb_mnoptical *d,
                          const struct sb_change *changes, int n, char *err,
                          size_t errlen)
{
    struct sb_mno_rule *work = NULL;
    struct sb_mno_step *steps = NULL;
    int n_work = d->n_rules, n_steps = 0, done, ret = 0;
    long status = 0;          /* the HTTP status of the last request */
    enum sb_mno_probe probed = SB_MNO_PROBE_REFUSED;
                              /* sb_mno_probe() of the failed removal:
                               * HELD or UNSENT, its rule is on the
                               * emulator for sure */

    work = malloc(((size_t) d->n_rules + (size_t) n + 1) * sizeof *work);
    steps = malloc(((size_t) n + 1) * sizeof *steps);
    /* The record's room is the batch's memory too: all of it is had
     * before anything is sent. */
    if (!work || !steps || sb_mno_reserve(d, n)) {
        ret = ENOMEM;
        sb_errf(err, errlen, 0, "%s: out of memory for a batch of %d "
                "change(s): none was sent, nothing applied; retry",
                d->config.name, n);
        goto cleanup;
    }
    if (d->n_rules)
        memcpy(work, d->rules, (size_t) d->n_rules * sizeof *work);
    /* The whole batch is checked before anything is sent. */
    for (int i = 0; i < n; i++) {
        const struct sb_media_channel *mc = &changes[i].mc;
        if (!mc->name[0] || !memchr(mc->name, '\0', sizeof mc->name)) {
            ret = EINVAL;
            sb_errf(err, errlen, 0, "%s: change %d: a media channel needs a "
                    "name: fix the request; nothing applied",
                    d->config.name, i);
            goto cleanup;
        }
        int at = sb_mno_find(work, n_work, mc->name);
        if (changes[i].op == SB_ADD) {
            if (at >= 0) {
                ret = EEXIST;
                sb_errf(err, errlen, 0, "%s: media channel '%s' already "
                        "exists: delete it first; nothing applied",
                        d->config.name, mc->name);
                goto cleanup;
            }
            steps[n_steps].install = true;
            steps[n_steps].again = false;
            if ((ret = sb_mno_rule_of(d, mc, &steps[n_steps].r, err,
                                      errlen)))
                goto cleanup;
            work[n_work++] = steps[n_steps++].r;
        } else if (changes[i].op == SB_DELETE) {
            if (at < 0) {
                ret = ENOENT;
                sb_errf(err, errlen, 0, "%s: no media channel '%s' installed "
                        "by this controller to delete; nothing applied",
                        d->config.name, mc->name);
                goto cleanup;
            }
            steps[n_steps++] = (struct sb_mno_step) { .install = false,
                                                      .r = work[at] };
            work[at] = work[--n_work];
        } else if (changes[i].op == SB_REINSTALL) {
            /* EINVAL, not ENOENT: sb_parallel takes an ENOENT as done
             * (a removal of what is gone), and a rule off the record
             * is one this handle does not know how it was sent. */
            if (at < 0) {
                ret = EINVAL;
                sb_errf(err, errlen, 0, "%s: no media channel '%s' on this "
                        "controller's record to install again: add it "
                        "instead; nothing applied", d->config.name,
                        mc->name);
                goto cleanup;
            }
            work[at].unknown = false;
            steps[n_steps++] = (struct sb_mno_step) { .install = true,
                                                      .again = true,
                                                      .r = work[at] };
        } else {
            ret = EINVAL;
            sb_errf(err, errlen, 0, "%s: change %d: unknown operation; "
                    "nothing applied", d->config.name, i);
            goto cleanup;
        }
    }
    for (done = 0; done < n_steps; done++) {
        ret = sb_mno_connect(d, &steps[done].r, steps[done].install, err,
                             errlen);
        status = d->c.status;
        enum sb_mno_probe probe = SB_MNO_PROBE_REFUSED;
        if (!steps[done].install && sb_mno_refused_as_not_held(ret, status))
            probe = sb_mno_probe(d, &steps[done].r, &ret, err, errlen);
        probed = probe;
        /* A 404 is ENOENT (unknown node), which sb_parallel would take
         * for a removal of what is gone: a re-install so refused is
         * not done. */
        if (steps[done].again && ret == ENOENT)
            ret = EPROTO;
        if (ret)
            break;
    }
    if (ret) {
        char e2[256];
        int undo_failed = 0;
        /* A timed-out install may have happened: remove it, best effort.
         * A removal the emulator refuses (it does not hold the rule, or
         * not yet) or whose answer is lost too (it may have come before
         * the install, or not at all) leaves the rule there or not, and
         * read() and reconciliation see only the record ("read the
         * device back" would not find it): it goes on the record marked
         * unknown, in the room reserved for the batch, so that a DELETE
         * settles it either way.  Until 2026-12-07 a lost removal left
         * it off the record. */
        if (steps[done].again) {
            /* The record is left as it was: the emulator held the rule
             * or had lost it before, and an install whose answer was
             * lost put it there or changed nothing. */
        } else if (ret == ETIMEDOUT && steps[done].install) {
            int rm = sb_mno_connect(d, &steps[done].r, false, e2, sizeof e2);
            if (rm) {
                sb_mno_record(d, &steps[done].r, SB_MNO_UNKNOWN);
                lr_utf8_appendf(err, errlen, "; its removal failed too "
                                "(%s): the rule is kept on this "
                                "controller's record, marked unknown: "
                                "delete it (a refusal to remove a rule "
                                "the emulator does not hold counts as "
                                "done) or /reset the node", e2);
            }
        }
        /* A 404 (unknown node) to a removal: the emulator does not
         * know the node at all, so it holds no rule there.  (A 404
         * whose page names no unknown node is EPROTO: sb_mno_get().)  ENOENT is
         * a removal of what is gone to sb_parallel and lr_ctl's
         * release, and the record agrees: the rule leaves it.  Until
         * 2026-12-07 the record kept it, and every reconciliation after
         * found it and reported it removed, run after run. */
        else if (!steps[done].install && ret == ENOENT && status == 404) {
            sb_mno_record(d, &steps[done].r, SB_MNO_GONE);
            lr_utf8_appendf(err, errlen, "; the emulator does not know "
                            "node %s, so it holds no rule there: %s leaves "
                            "this controller's record", d->node,
                            steps[done].r.mc.name);
        }
        /* The emulator holds the rule and refused its removal
         * (sb_mno_probe()): on the record as installed, a mark unknown
         * cleared, for a DELETE again to remove it. */
        else if (probed == SB_MNO_PROBE_HELD) {
            sb_mno_record(d, &steps[done].r, SB_MNO_HELD);
            lr_utf8_appendf(err, errlen, "; the emulator holds %s (it "
                            "accepted its install again) and refused its "
                            "removal though it holds it: kept on the "
                            "record as installed; DELETE again later, or "
                            "/reset the node", steps[done].r.mc.name);
        }
        /* The same, but the removal to send again never reached the
         * emulator: not refused, and the line must not say so. */
        else if (probed == SB_MNO_PROBE_UNSENT) {
            sb_mno_record(d, &steps[done].r, SB_MNO_HELD);
            lr_utf8_appendf(err, errlen, "; the emulator holds %s (it "
                            "accepted its install again), and its removal "
                            "to send again did not reach it: kept on the "
                            "record as installed; DELETE again",
                            steps[done].r.mc.name);
        }
        /* A removal whose answer was lost may have been done: the rule
         * stays on the record, as the failed batch leaves it, marked
         * unknown: a DELETE again is done when the emulator no longer
         * holds it (its 500, then the install and removal of
         * sb_mno_probe()). */
        else if (ret == ETIMEDOUT) {
            sb_mno_record(d, &steps[done].r, SB_MNO_UNKNOWN);
            lr_utf8_appendf(err, errlen, "; %s stays on this controller's "
                            "record, marked unknown: delete it again (a "
                            "refusal to remove a rule the emulator does "
                            "not hold counts as done)",
                            steps[done].r.mc.name);
        }
        /* A rule on the record whose removal the emulator refuses as
         * it refuses a rule it does not hold, and whose install sent
         * to ask (sb_mno_probe()) it refused too, or that did not
         * reach it: it may have lost the rule (restarted, or the node
         * was /reset), or refuse it for another reason, and nothing
         * tells which.  Taken as done, a real refusal would leave the
         * rule on the node off the record, for good: until 2026-12-07
         * a rule already marked unknown was so taken (its 500 settled
         * it, the DELETE done).  So it is kept, marked unknown,
         * EPROTO, and the line says so; a DELETE again settles it once
         * the emulator takes the probe's install (removed either
         * way).  One it refuses for good would leave the job releasing
         * for ever: the line names the way out, a /reset of the node
         * (the rule lost, the next DELETE's probe is taken) and a
         * reinstall of the active jobs' rules it cleared too, last
         * (the emulator's name of the node, which the address may give
         * apart from the device's: until 2026-12-07 the device's):
         * the line's bound, SB_PAR_ERR_MAX (sb_parallel.h), counts
         * this line whole. */
        else if (!steps[done].install
                 && sb_mno_refused_as_not_held(ret, status)) {
            sb_mno_record(d, &steps[done].r, SB_MNO_UNKNOWN);
            lr_utf8_appendf(err, errlen, "; the emulator refused to remove "
                            "%s, as it does for a rule it does not hold "
                            "(restarted or reset?), and %s: kept on the "
                            "record marked unknown: DELETE again to settle "
                            "it; refused so again: /reset?node=%s, then "
                            "lightrail reconcile --reinstall",
                            steps[done].r.mc.name,
                            probed == SB_MNO_PROBE_ASK_UNSENT
                            ? "the install to send to ask whether it holds "
                              "it did not reach it"
                            : "the install sent to ask whether it holds it",
                            d->node);
        }
        /* An undone install is a rule the record did not hold: its
         * removal refused is a refusal (the rule stays, held), and a
         * re-installed removal refused leaves it gone. */
        int undone = 0;
        for (int i = done - 1; i >= 0; i--) {
            /* A re-install changed nothing the record says: its undo, a
             * removal, would take away a rule the record holds. */
            if (steps[i].again)
                continue;
            undone++;
            int un = sb_mno_connect(d, &steps[i].r, !steps[i].install, e2,
                                    sizeof e2);
            if (un) {
                undo_failed++;
                sb_mno_record(d, &steps[i].r,
                              un == ETIMEDOUT ? SB_MNO_UNKNOWN
                              : steps[i].install ? SB_MNO_HELD
                                                 : SB_MNO_GONE);
            }
        }
        if (undo_failed) {
            /* Not "nothing applied": the caller reads the node back, and
             * the record shows what is left (reconcile removes it). */
            ret = ETIMEDOUT;
            lr_utf8_appendf(err, errlen, "; %d of %d earlier rule(s) of "
                            "the batch could not be undone: the emulator "
                            "may hold part of it: read it back",
                            undo_failed, undone);
        }
        /* The failed request's line speaks of that request alone: say
         * what the batch had sent before it, undone, as the restconf
         * driver does, after a lost answer too (it said nothing of
         * them then).  "Nothing applied" only when the failed request
         * was not made: after ETIMEDOUT it may be on the node (its
         * removal above is best effort), and the line already says to
         * read it back. */
        else if (undone)
            lr_utf8_appendf(err, errlen, "; the batch's %d earlier "
                            "rule(s) had gone out and were undone%s", undone,
                            ret == ETIMEDOUT ? "" : ": nothing applied");
        goto cleanup;
    }
    /* n_work <= d->n_rules + n: the room reserved above. */
    if (n_work)
        memcpy(d->rules, work, (size_t) n_work * sizeof *work);
    d->n_rules = n_work;
cleanup:
    free(work);
    free(steps);
    return ret;
}

static int
sb_mnoptical_apply(struct sb_device *dev, const struct sb_change *changes,
                   int n, char *err, size_t errlen)
{
    struct sb_mnoptical *d = (struct sb_mnoptical *) dev;
    if (n < 0 || (n && !changes)) {
        sb_errf(err, errlen, 0, "%s: %d changes: fix the request",
                d->config.name, n);
        return EINVAL;
    }
    pthread_mutex_lock(&d->lock);
    int ret = sb_mnoptical_apply_locked(d, changes, n, err, errlen);
    pthread_mutex_unlock(&d->lock);
    return ret;
}

/* The driver's own record (see the top of the file): the emulator cannot
 * list its rules. */
static int
sb_mnoptical_read(struct sb_device *dev, struct sb_media_channel **out,
                  int *n, char *err, size_t errlen)
{
    struct sb_mnoptical *d = (struct sb_mnoptical *) dev;
    int ret = 0;

    pthread_mutex_lock(&d->lock);
    *n = 0;
    *out = malloc(((size_t) d->n_rules + 1) * sizeof **out);
    if (!*out) {
        ret = ENOMEM;
        sb_errf(err, errlen, 0, "%s: out of memory for a copy of the %d "
                "media channel(s) on record: none was read (the record is "
                "kept); retry", d->config.name, d->n_rules);
    } else {
        /* The mark goes out with the rule: lr_ctl's read-back after a
         * lost add must not take a rule that may not be there for one
         * the emulator holds (sb_driver.h). */
        for (int i = 0; i < d->n_rules; i++) {
            (*out)[i] = d->rules[i].mc;
            (*out)[i].unknown = d->rules[i].unknown;
        }
        *n = d->n_rules;
    }
    pthread_mutex_unlock(&d->lock);
    return ret;
}

/* The driver's adopt() (sb_driver.h): after a restart of lightraild the
 * record is empty, and the removal of a rule the previous process
 * installed (a rollback or release the restart interrupted) was ENOENT
 * with nothing sent, the rule left on the emulator for good.  Adopted
 * rules are marked unknown: the emulator may have lost them (restarted
 * meanwhile): a removal's 500 for one it does not hold is asked about
 * (sb_mno_probe()), done once the emulator takes the install.  The
 * rules are made whole before the record changes: all or none. */
static int
sb_mnoptical_adopt(struct sb_device *dev, const struct sb_media_channel *mc,
                   int n, char *err, size_t errlen)
{
    struct sb_mnoptical *d = (struct sb_mnoptical *) dev;
    struct sb_mno_rule *r = NULL;
    int n_r = 0, ret = 0;

    if (n < 0 || (n && !mc)) {
        sb_errf(err, errlen, 0, "%s: %d channels to adopt: fix the call",
                d->config.name, n);
        return EINVAL;
    }
    pthread_mutex_lock(&d->lock);
    r = malloc(((size_t) n + 1) * sizeof *r);
    if (!r || sb_mno_reserve(d, n)) {
        ret = ENOMEM;
        sb_errf(err, errlen, 0, "%s: out of memory for %d channel(s) of "
                "the store to put on the driver's record: none was put "
                "there", d->config.name, n);
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        if (sb_mno_find(d->rules, d->n_rules, mc[i].name) >= 0
            || sb_mno_find(r, n_r, mc[i].name) >= 0)
            continue;
        if ((ret = sb_mno_rule_of(d, &mc[i], &r[n_r], err, errlen)))
            goto cleanup;
        r[n_r++].unknown = true;
    }
    /* n_r <= n: the room reserved above. */
    for (int i = 0; i < n_r; i++)
        d->rules[d->n_rules++] = r[i];
cleanup:
    pthread_mutex_unlock(&d->lock);
    free(r);
    return ret;
}

static void
sb_mnoptical_close(struct sb_device *dev)
{
    struct sb_mnoptical *d = (struct sb_mnoptical *) dev;
    if (!d)
        return;
    sb_mno_close(&d->c);
    pthread_mutex_destroy(&d->lock);
    free(d->rules);
    free(d);
}

/* Every port /links gives this node is one /ports lists. */
static int
sb_mno_check_ports(struct sb_mnoptical *d, char *err, size_t errlen)
{
    char q[256], *body = NULL, *esc = curl_easy_escape(d->c.h, d->node, 0);
    int ret;

    if (!esc) {
        sb_errf(err, errlen, 0, "%s: out of memory for GET /ports (node "
                "%s): it was not sent, and %s is not opened; retry",
                d->config.name, d->node, d->config.name);
        return ENOMEM;
    }
    snprintf(q, sizeof q, "node=%s", esc);
    curl_free(esc);
    if ((ret = sb_mno_get(&d->c, "/ports", q, &body, err, errlen)))
        return ret;
    json_object *ports = sb_mno_parse(body);
    free(body);
    if (!json_object_is_type(ports, json_type_object)) {
        json_object_put(ports);
        sb_errf(err, errlen, 0, "%s: /ports?%s is not a JSON object: is %s "
                "Mininet-Optical?", d->config.name, q, d->c.base);
        return EPROTO;
    }
    for (int i = 0; !ret && i < d->c.n_links; i++) {
        const struct sb_mno_link *k = &d->c.links[i];
        for (int side = 0; side < 2; side++) {
            char key[16];
            if (strcmp(side ? k->b : k->a, d->node))
                continue;
            snprintf(key, sizeof key, "%d", side ? k->pb : k->pa);
            if (!json_object_object_get_ex(ports, key, NULL)) {
                sb_errf(err, errlen, 0, "%s: the emulator links port %s of %s "
                        "to %s but /ports does not list it: the emulation "
                        "is inconsistent; restart it", d->config.name, key,
                        d->node, side ? k->a : k->b);
                ret = EPROTO;
                break;
            }
        }
    }
    json_object_put(ports);
    return ret;
}

static int
sb_mnoptical_open(const struct sb_device_config *config,
                  struct sb_device **out, char *err, size_t errlen)
{
    struct sb_mnoptical *d;
    char base[256];
    int ret;

    *out = NULL;
    if (!memchr(config->address, '\0', sizeof config->address)
        || !memchr(config->name, '\0', sizeof config->name)) {
        sb_errf(err, errlen, 0, "%.63s: a Mininet-Optical setting is not "
                "terminated", config->name);
        return EINVAL;
    }
    if (!(d = calloc(1, sizeof *d))) {
        sb_errf(err, errlen, 0, "%s: out of memory for its state: nothing "
                "was sent, and %s is not opened; retry", config->name,
                config->name);
        return ENOMEM;
    }
    d->config = *config;
    snprintf(base, sizeof base, "%s", config->address);
    char *hash = strchr(base, '#');
    if (hash)
        *hash++ = '\0';
    snprintf(d->node, sizeof d->node, "%s",
             hash && *hash ? hash : config->name);
    pthread_mutex_init(&d->lock, NULL);
    if ((ret = sb_mno_open(&d->c, config->name, base, config->timeout_ms,
                           err, errlen))
        || (ret = sb_mno_discover(&d->c, err, errlen)))
        goto fail;
    const char *type = sb_mno_node_type(&d->c, d->node);
    if (!type) {
        sb_errf(err, errlen, 0, "%s: the emulator at %s has no node '%s': "
                "check the device's name or address (#NODE)",
                config->name, d->c.base, d->node);
        ret = ENOENT;
        goto fail;
    }
    if (strcmp(type, "ROADM")) {
        sb_errf(err, errlen, 0, "%s: the emulator's node '%s' is a %s, not a "
                "ROADM: only ROADMs are devices of the mnoptical driver",
                config->name, d->node, type);
        ret = EINVAL;
        goto fail;
    }
    if ((ret = sb_mno_check_ports(d, err, errlen)))
        goto fail;
    *out = (struct sb_device *) d;
    return 0;
fail:
    sb_mnoptical_close((struct sb_device *) d);
    return ret;
}

/* The driver's check_lightpath(): the check of `lightrail mnoptical
 * check` (sb_mno_lightpath_check()) for a lightpath whose ROADMs this
 * driver programmed.  Only what open() fixed is read (the emulator's
 * address and the ROADMs' node names), so no device lock is taken. */
static int
sb_mnoptical_check_lightpath(struct sb_device *first, struct sb_device *last,
                             const struct sb_lightpath *lp,
                             struct sb_lightpath_quality *q, char *err,
                             size_t errlen)
{
    const struct sb_mnoptical *a = (const struct sb_mnoptical *) first,
                              *b = (const struct sb_mnoptical *) last;
    struct sb_mno_gosnr g;

    memset(q, 0, sizeof *q);
    if (strcmp(a->c.base, b->c.base)) {
        sb_errf(err, errlen, 0, "%s: lightpath %s ends on %s, in another "
                "emulation (%s, not %s): a lightpath's ROADMs must be in "
                "one Mininet-Optical emulation", a->config.name, lp->name,
                b->config.name, b->c.base, a->c.base);
        return EINVAL;
    }
    struct sb_mno_lightpath ml = {
        .base = a->c.base, .timeout_ms = a->c.timeout_ms,
        .tx = lp->tx.node, .rx = lp->rx.node,
        .first_roadm = a->node, .last_roadm = b->node,
        .tx_eth_port = lp->tx.eth_port, .rx_eth_port = lp->rx.eth_port,
        .monitor = lp->rx.monitor[0] ? lp->rx.monitor : NULL,
        .n = lp->n, .m = lp->m, .modulation = lp->modulation,
        .threshold_db = lp->threshold_db,
    };
    int ret = sb_mno_lightpath_check(&ml, &g, err, errlen);
    q->channel = g.channel;
    q->gosnr_db = g.gosnr_db;
    q->osnr_db = g.osnr_db;
    q->margin_db = g.margin_db;
    return ret;
}

const struct sb_driver_class sb_mnoptical_class = {
    .name = "mnoptical",
    .open = sb_mnoptical_open,
    .apply = sb_mnoptical_apply,
    .read = sb_mnoptical_read,
    .read_is_record = true,
    .reinstalls = true,
    .adopt = sb_mnoptical_adopt,
    .close = sb_mnoptical_close,
    .check_lightpath = sb_mnoptical_check_lightpath,
};
