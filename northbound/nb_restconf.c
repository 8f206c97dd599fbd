/* nb_restconf: see nb_restconf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/http.h>

#include "controller/lr_ctl.h"
#include "controller/lr_log.h"
#include "controller/lr_worker.h"
#include "northbound/nb_cond.h"
#include "northbound/nb_int.h"
#include "northbound/nb_query.h"
#include "northbound/nb_restconf.h"
#include "planner/lr_utf8.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"
#include "yang/lr_yang_restconf.h"

#define DATA "/restconf/data/"
#define OPS "/restconf/operations/"
#define JOBS "/restconf/data/lightrail-job:jobs"
#define JOB_LIST JOBS "/job"
#define JOB JOB_LIST "="
/* RFC 8040 9's monitoring, and what a write there is told. */
#define RCMON DATA "ietf-restconf-monitoring:restconf-state"
/* RFC 8525's library, and RFC 7895's deprecated one for the clients that
 * read only that (h_yang_library). */
#define YLIB DATA "ietf-yang-library:yang-library"
#define YLIB_STATE DATA "ietf-yang-library:modules-state"
#define RCMON_WRITES "ietf-restconf-monitoring's restconf-state is state " \
    "(config false) that lightraild keeps itself: it is read-only"

/* The datastores of RFC 8527 3.1 that lightraild serves under
 * /restconf/ds: operational (everything /restconf/data holds) and
 * running (its configuration).  Each resource there takes the
 * parameters it takes under /restconf/data, and on operational
 * with-origin (RFC 8527 3.2.2): the datastores' own rows list them,
 * ds_exists() gives those of a resource below (ds_query()). */
#define DS "/restconf/ds/"
#define DS_OPERATIONAL "ietf-datastores:operational"
#define DS_RUNNING "ietf-datastores:running"
#define DS_WITH_ORIGIN "with-origin"
/* What a 400 for with-origin on running says after its name (the
 * server's words, nb_query_rule). */
#define DS_WITH_ORIGIN_ADVICE "applies to the operational datastore only " \
    "(RFC 8527 3.2.2): send it to " DS DS_OPERATIONAL " or its resources"
/* What a 405 of their rows adds: where the writes go. */
#define DS_WRITE_TO "write through /restconf/data instead (PUT " \
    ".../ietf-network:networks or .../lightrail-compute:compute, POST " \
    ".../lightrail-job:jobs, DELETE .../lightrail-job:jobs/job=NAME)"
#define DS_READ_ONLY "the operational datastore is read-only (RFC 8342 " \
    "5.3): " DS_WRITE_TO
#define DS_WRITES "lightraild serves the datastores under /restconf/ds " \
    "for reading: " DS_WRITE_TO
/* The datastores there are, for the 404 of one that is not
 * (ds_exists(), whatever the method or query). */
#define DS_SERVED "lightraild serves " DS DS_OPERATIONAL " (all it holds) " \
    "and " DS DS_RUNNING " (its configuration); it has no candidate, " \
    "startup or intended"

static void
json_reply(struct nb_response *resp, int status, char *body)
{
    resp->status = status;
    resp->body = body;
    resp->content_type = "application/yang-data+json";
}

static void api_reply(struct nb_response *, int rc, char *out,
                      const char *err);

/* A body the YANG edge refused (lr_yang_parse_*: EBADMSG, EINVAL or
 * ENOMEM) as RFC 8040 says: malformed-message or invalid-value, with the
 * data path when there is one. */
static void
bad_body(struct nb_app *app, struct nb_response *resp, int rc,
         const char *path, const char *msg)
{
    /* libyang's location is not always an instance-identifier of the
     * schema, as ietf-restconf's error-path must be: the path of a
     * member the client sent that no module has, or of metadata
     * (".../@job/..."), is not.  Such a one leads the message instead,
     * so that the client still learns where. */
    bool iid = path[0] && lr_yang_error_path_ok(app->ly, path);
    if (rc == ENOMEM)
        nb_error(resp, 500, "operation-failed", NULL, "%s", msg);
    else if (path[0] && !iid)
        nb_error(resp, 400, rc == EBADMSG ? "malformed-message"
                                          : "invalid-value",
                 NULL, "%s: %s", path, msg);
    else
        nb_error(resp, 400, rc == EBADMSG ? "malformed-message"
                                          : "invalid-value",
                 iid ? path : NULL, "%s", msg);
}

/* The network the controller's jobs are printed against (borrowed from
 * it, as lr_yang_job_net's fields are). */
static struct lr_yang_job_net
jobs_net(struct nb_app *app)
{
    return (struct lr_yang_job_net) {
        .topo = lr_ctl_topo(app->ctl), .cluster = lr_ctl_cluster(app->ctl),
        .mods = lr_ctl_modtable(app->ctl),
    };
}

/* One job (or all) as the YANG edge prints it into '*out' (the
 * caller's to free), without the state with 'config_only' (for a cut
 * to the configuration: lr_yang_job_refs_config_to_json()): 0, or a 500
 * in 'resp'. */
static int
job_refs_text(struct nb_app *app, struct nb_response *resp,
              const struct lr_job *const *jobs, int n, int single,
              bool config_only, char **out)
{
    char err[512];
    /* The controller's table: each lightpath is judged against it
     * (modulation-mismatch). */
    const struct lr_yang_job_net net = jobs_net(app);
    if ((config_only ? lr_yang_job_refs_config_to_json
                     : lr_yang_job_refs_to_json)(
            app->ly, jobs, n, &net, single, out, err, sizeof err)) {
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
        return EIO;
    }
    return 0;
}

/* Prints one job (or all) through the YANG edge. */
static void
reply_job_refs(struct nb_app *app, struct nb_response *resp, int status,
               const struct lr_job *const *jobs, int n, int single)
{
    char *out = NULL;
    if (!job_refs_text(app, resp, jobs, n, single, false, &out))
        json_reply(resp, status, out);
}

/* A 200 of 'out' (taken) with its entity-tag, or the answer to the
 * preconditions of 'req' (304, 412, 400; 'out' freed) judged against
 * that tag.  For the jobs: a strong tag of the text sent and no date
 * (docs/controller.md "Concurrent edits" says why). */
static void
tagged_reply(const struct nb_request *req, struct nb_response *resp,
             char *out)
{
    char etag[NB_ETAG_MAX];
    nb_etag_of(out, strlen(out), etag);
    if (nb_cond_check(req, etag, 0, resp)) {
        free(out);
        return;
    }
    json_reply(resp, 200, out);
    memcpy(resp->etag, etag, sizeof etag);
}

/* RFC 8040 4.8.1 content=, 4.8.2 depth=, 4.8.3 fields= and 4.8.9
 * with-defaults= of a GET of a data resource into '*rd': 0, or a 400
 * invalid-value in 'resp' that names the parameter and the values it
 * takes.  Judged before anything
 * is read or any precondition; the paths of fields against the
 * resource's schema, when it is cut (read_cut()). */
static int
read_query(const struct nb_request *req, struct nb_response *resp,
           struct nb_read *rd)
{
    char err[256];
    if (!nb_read_parse(req->query, rd, err, sizeof err))
        return 0;
    nb_error(resp, 400, "invalid-value", NULL, "%s", err);
    return EINVAL;
}

/* content, depth, fields and with-defaults on a method other than GET
 * (RFC 8040 4.8.1 to 4.8.3, 4.8.9: "only allowed for GET methods"): a
 * 400 in 'resp', nonzero. */
static int
read_query_refused(const struct nb_request *req, struct nb_response *resp)
{
    static const char *const names[] = {
        "content", "depth", "fields", "with-defaults",
    };
    const char *v;
    size_t len;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (nb_query_value(req->query, names[i], &v, &len)) {
            nb_error(resp, 400, "invalid-value", NULL, "the query "
                     "parameter '%s' applies to GET and HEAD only: send "
                     "the %s without it", names[i],
                     req->method == NB_PUT ? "PUT" : req->method == NB_POST
                     ? "POST" : "DELETE");
            return EINVAL;
        }
    return 0;
}

/* The yang layer's word for 'rd''s content. */
static enum lr_yang_content
read_content(const struct nb_read *rd)
{
    return rd->content == NB_CONTENT_CONFIG ? LR_YANG_CONTENT_CONFIG
           : rd->content == NB_CONTENT_NONCONFIG ? LR_YANG_CONTENT_NONCONFIG
           : LR_YANG_CONTENT_ALL;
}

/* The query's fields as a string in '*fields' (NULL when it has none;
 * the caller's to free): 0, or ENOMEM with err[] saying so. */
static int
read_fields(const struct nb_read *rd, char **fields, char *err,
            size_t errlen)
{
    *fields = rd->fields ? strndup(rd->fields, rd->fields_len) : NULL;
    if (rd->fields && !*fields) {
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    return 0;
}

/* Whether the cuts 'a' and 'b' are one: the same content, depth,
 * with-defaults and with-origin, and the same fields or none.  A text
 * that read_cut() cut as 'a' is then already as 'b' cuts it
 * (lr_yang_read_json() parsing and printing its own answer again gives
 * the same bytes), so a caller holding it need not cut it again. */
static bool
read_cut_same(const struct nb_read *a, const struct nb_read *b)
{
    return a->content == b->content && a->depth == b->depth
           && a->with_defaults == b->with_defaults
           && a->with_origin == b->with_origin
           && !a->fields == !b->fields
           && (!a->fields || (a->fields_len == b->fields_len
                              && !memcmp(a->fields, b->fields,
                                         a->fields_len)));
}

/* The answer to 'rc' from the yang layer's reading of a query (err[]
 * its words): 400 invalid-value for EINVAL (the client's query), else
 * api_reply()'s (0: none).  Returns 'rc'. */
static int
read_refused(struct nb_response *resp, int rc, const char *err)
{
    if (rc == EINVAL)
        nb_error(resp, 400, "invalid-value", NULL, "%s", err);
    else if (rc)
        api_reply(resp, rc, NULL, err);
    return rc;
}

/* The yang layer's mode for each of nb_query's, in its order. */
static const enum lr_yang_wd nb_wd_modes[] = {
    [NB_WD_NONE] = LR_YANG_WD_NONE,
    [NB_WD_REPORT_ALL] = LR_YANG_WD_REPORT_ALL,
    [NB_WD_TRIM] = LR_YANG_WD_TRIM,
    [NB_WD_EXPLICIT] = LR_YANG_WD_EXPLICIT,
    [NB_WD_REPORT_ALL_TAGGED] = LR_YANG_WD_REPORT_ALL_TAGGED,
};

/* '*out' (a data resource's text, taken) as 'rd' cuts it (the yang
 * layer's lr_yang_read_json(); 'datastore': the text is the
 * datastore's); unchanged when 'rd' cuts nothing.  0, or with '*out'
 * freed and NULL a 400 invalid-value in 'resp' for fields that name no
 * node of the resource or do not parse, a 500 for the server's own
 * failure. */
static int
read_cut(struct nb_app *app, const struct nb_read *rd, bool datastore,
         char **out, struct nb_response *resp)
{
    char *fields, *cut = NULL, err[1024];
    if (!nb_read_cuts(rd))
        return 0;
    int rc = read_fields(rd, &fields, err, sizeof err);
    if (!rc)
        rc = lr_yang_read_json(app->ly, *out, fields, read_content(rd),
                               rd->depth, nb_wd_modes[rd->with_defaults],
                               rd->with_origin, datastore, &cut, err,
                               sizeof err);
    free(fields);
    free(*out);
    *out = cut;
    return read_refused(resp, rc, err);
}

/* The schema nodes of the jobs' resources, as lr_yang_cut_keeps_state()
 * takes them: the container, and the list (its resource and one
 * entry's). */
#define JOBS_NODE "/lightrail-job:jobs"
#define JOB_NODE JOBS_NODE "/job"

/* Whether the cut of 'rd' of the resource 'target' (a schema node; NULL:
 * the datastore) can keep any state (config false node) under 'under'
 * (the target, or a member of the datastore), judged on the schema
 * (lr_yang_cut_keeps_state()).  Fields it refuses keep it: the text is
 * built whole, as before, and read_cut() refuses them with its words. */
static bool
read_keeps_state(struct nb_app *app, const struct nb_read *rd,
                 const char *target, const char *under)
{
    char *fields, err[1024];
    bool keeps = true;
    if (!rd->fields && rd->content != NB_CONTENT_CONFIG && !rd->depth)
        return true;
    if (read_fields(rd, &fields, err, sizeof err))
        return true;
    if (lr_yang_cut_keeps_state(app->ly, target, fields, read_content(rd),
                                rd->depth, under, &keeps, err, sizeof err))
        keeps = true;
    free(fields);
    return keeps;
}

/* Whether the text of a GET's resource, of schema node 'target', can be
 * built without the state, as its cut keeps none of it: content=config,
 * fields that select nothing of it or a depth that cuts all of it in
 * its own query 'rd', or its caller's cut (req->config_text: running,
 * a datastore's content=config, fields or depth; req->cut: a
 * datastore's parameters on this resource).  The cut of that text is
 * the cut of the whole, byte for byte (lr_yang_job_page_config_to_json(),
 * lr_yang_cut_keeps_state()). */
static bool
read_config_text(struct nb_app *app, const struct nb_request *req,
                 const struct nb_read *rd, const char *target)
{
    return req->config_text || !read_keeps_state(app, rd, target, target)
           || (req->cut && !read_keeps_state(app, req->cut, target, target));
}

/* A POST or DELETE whose devices are being programmed. */
struct job_work {
    struct nb_app *app;
    struct nb_pending *pending;
    bool release;
};

/* The answer to an admission that ended (lr_ctl_op_end's result). */
static void
answer_submit(struct nb_app *app, struct nb_response *resp, int rc,
              const struct lr_job *job, const char *err)
{
    if (rc) {
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
        return;
    }
    reply_job_refs(app, resp, 201, &job, 1, 1);
    /* RFC 8040 4.4.1: where the new job is (its name percent-encoded,
     * RFC 3986 unreserved characters as they are). */
    char *key = evhttp_uriencode(job->intent.name, -1, 0);
    if (key && strlen(JOB) + strlen(key) < sizeof resp->location)
        snprintf(resp->location, sizeof resp->location, JOB "%s", key);
    free(key);
}

static void
answer_delete(struct nb_response *resp, int rc, const char *err)
{
    if (rc == ENOENT)
        nb_error(resp, 404, "invalid-value", NULL, "%s", err);
    else if (rc == EBUSY)
        nb_error(resp, 409, "in-use", NULL, "%s", err);
    else if (rc)
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    else
        resp->status = 204;
}

/* Ends 'op' after its device step and answers 'pending'. */
static void
answer_devices(struct nb_app *app, struct nb_pending *pending,
               struct lr_ctl_op *op, bool release)
{
    struct nb_response resp = { .status = 0 };
    struct lr_job job;
    char err[LR_CTL_ERR_MAX];
    int rc = lr_ctl_op_end(app->ctl, op, &job, err, sizeof err);
    if (release)
        answer_delete(&resp, rc, err);
    else
        answer_submit(app, &resp, rc, &job, err);
    nb_pending_reply(pending, &resp);
}

/* The worker is done with a job's devices: on the loop again. */
static void
job_work_done(void *cookie, struct lr_ctl_op *op)
{
    struct job_work *w = cookie;
    answer_devices(w->app, w->pending, op, w->release);
    free(w);
}

/* The device step of 'op' for a deferred request: on the worker, or
 * here when there is none (or no memory to queue it); 'pending' is
 * answered either way. */
static void
devices_deferred(struct nb_app *app, struct nb_pending *pending,
                 struct lr_ctl_op *op, bool release)
{
    struct job_work *w = app->worker ? calloc(1, sizeof *w) : NULL;
    if (w) {
        *w = (struct job_work) { app, pending, release };
        if (!lr_worker_push(app->worker, op, job_work_done, w))
            return;
        free(w);
    }
    lr_ctl_op_run(op);
    answer_devices(app, pending, op, release);
}

/* The device step of 'op': on the worker with the answer deferred, or
 * here when there is no worker (or no memory to defer); true when the
 * answer is deferred (or already given through the token). */
static bool
run_devices(struct nb_app *app, const struct nb_request *req,
            struct lr_ctl_op *op, bool release)
{
    struct nb_pending *pending = app->worker ? nb_defer(req) : NULL;
    if (!pending) {
        lr_ctl_op_run(op);
        return false;
    }
    devices_deferred(app, pending, op, release);
    return true;
}

/* The answer to an admission begun ('rc' from lr_ctl_submit_begin or
 * lr_ctl_submit_decided) or ended. */
static void
answer_begin(struct nb_app *app, struct nb_response *resp, int rc,
             const struct lr_job *job, const char *name, const char *err)
{
    char p[256];
    snprintf(p, sizeof p, "/lightrail-job:jobs/job[name='%s']", name);
    if (rc == EEXIST)
        nb_error(resp, 409, "data-exists", p, "%s", err);
    else if (rc == EINVAL)
        nb_error(resp, 400, "invalid-value", p, "%s", err);
    else if (rc == EBUSY)
        nb_error(resp, 409, "in-use", p, "%s", err);
    else
        answer_submit(app, resp, rc, job, err);
}

/* Begins admitting 'in' (with 'decision' when not NULL) for a request
 * already deferred, and answers 'pending' now or when its devices are
 * done. */
static void
submit_deferred(struct nb_app *app, struct nb_pending *pending,
                const struct lr_intent *in, struct lr_ctl_op *decision)
{
    struct nb_response resp = { .status = 0 };
    struct lr_ctl_op *op = NULL;
    struct lr_job job;
    /* lr_ctl's words whole (LR_CTL_ERR_MAX): a refusal quotes the
     * store's message, up to 1,023 bytes, and the loop's admission
     * (h_jobs_post()) takes it so too. */
    char err[LR_CTL_ERR_MAX];
    int rc = decision
             ? lr_ctl_submit_decided(app->ctl, decision, &job, &op, err,
                                     sizeof err)
             : lr_ctl_submit_begin(app->ctl, in, &job, &op, err, sizeof err);
    if (!rc && op) {
        devices_deferred(app, pending, op, false);
        return;
    }
    answer_begin(app, &resp, rc, &job, in->name, err);
    nb_pending_reply(pending, &resp);
}

/* A ppo intent waiting for the decider (app->waiting), then decided; or
 * a reload of the policy ('reload'), done in its turn. */
struct nb_decision {
    struct nb_app *app;
    struct nb_pending *pending;       /* NULL: nobody to answer */
    struct lr_intent in;
    bool reload;
    const char *how;                  /* a reload's, for app->reloaded */
    struct nb_decision *next;
};

static void reload_policy(struct nb_app *, const char *how,
                          struct nb_response *, int *rc);

static void decide_next(struct nb_app *);
static bool queue_planned(struct nb_app *, struct nb_pending *,
                          const struct lr_intent *);

/* The decider is done with a decision: on the loop again. */
static void
decision_done(void *cookie, struct lr_ctl_op *op)
{
    struct nb_decision *w = cookie;
    struct nb_app *app = w->app;
    submit_deferred(app, w->pending, &w->in, op);
    free(w);
    decide_next(app);
}

/* Hands the first waiting intent to the decider unless a decision is in
 * flight; those with nothing to decide (lr_ctl_decide_begin) are begun
 * at once, in their turn. */
static void
decide_next(struct nb_app *app)
{
    while (app->waiting) {
        struct nb_decision *w = app->waiting;
        struct nb_response resp = { .status = 0 };
        struct lr_ctl_op *op = NULL;
        char err[LR_CTL_ERR_MAX];     /* lr_ctl's, as submit_deferred() */
        int rc;
        if (w->reload)
            reload_policy(app, w->how, &resp, &rc);
        else
            rc = lr_ctl_decide_begin(app->ctl, &w->in, &op, err, sizeof err);
        if (rc == EBUSY)
            return;                   /* decision_done calls again */
        app->waiting = w->next;
        if (!app->waiting)
            app->waiting_tail = &app->waiting;
        if (w->reload && w->pending) {
            nb_pending_reply(w->pending, &resp);
        } else if (w->reload) {
            free(resp.body);
        } else if (rc) {
            answer_begin(app, &resp, rc, NULL, w->in.name, err);
            nb_pending_reply(w->pending, &resp);
        } else if (!op) {
            /* Nothing to decide off the loop: in the planner's turn (a
             * policy that is not usable leaves the intent to CDynP). */
            if (!app->planner || !queue_planned(app, w->pending, &w->in))
                submit_deferred(app, w->pending, &w->in, NULL);
        } else if (lr_worker_push(app->decider, op, decision_done, w)) {
            lr_ctl_op_run(op);
            submit_deferred(app, w->pending, &w->in, op);
        } else {
            return;
        }
        free(w);
    }
}

/* Queues a ppo intent ('in'), or a reload ('in' NULL, asked by 'how'),
 * behind those waiting for the decider, answered to 'req' (NULL: nobody
 * to answer); false when out of memory (the caller answers now). */
static bool
queue_decision(struct nb_app *app, const struct nb_request *req,
               const struct lr_intent *in, const char *how)
{
    struct nb_decision *w = calloc(1, sizeof *w);
    if (!w || (req && !(w->pending = nb_defer(req)))) {
        free(w);
        return false;
    }
    w->app = app;
    if (in) {
        w->in = *in;
    } else {
        w->reload = true;
        w->how = how;
    }
    if (!app->waiting_tail)
        app->waiting_tail = &app->waiting;
    *app->waiting_tail = w;
    app->waiting_tail = &w->next;
    decide_next(app);
    return true;
}

/* An intent waiting for its plan (app->planning), then admitted. */
struct nb_planned {
    struct nb_app *app;
    struct nb_pending *pending;
    struct lr_intent in;
    int tries;                        /* plans made for it */
    struct nb_planned *next;
};

static void plan_next(struct nb_app *);

/* Tells app->agent_changed of each agent seen down, or up again, since
 * it was last seen, and app->agent_idle_closed of its idle closes since
 * then. */
static void
agents_watch(struct nb_app *app)
{
    struct lr_ctl_agent_status st;
    _Static_assert(LR_TM_MAX_DCS <= 64, "agents_down is 64 bits");
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        if (lr_ctl_agent_status(app->ctl, k, &st))
            continue;
        if (st.idle_closes != app->agent_idle_seen[k]) {
            if (st.idle_closes > app->agent_idle_seen[k]
                && app->agent_idle_closed)
                app->agent_idle_closed(app->agent_idle_closed_arg, st.dc,
                                       st.idle_closes
                                       - app->agent_idle_seen[k],
                                       st.idle_close);
            app->agent_idle_seen[k] = st.idle_closes;
        }
        uint64_t bit = UINT64_C(1) << k;
        if (st.up == !(app->agents_down & bit))
            continue;
        app->agents_down ^= bit;
        if (app->agent_changed)
            app->agent_changed(app->agent_changed_arg, st.dc, st.up, st.why);
    }
}

/* Reads the agents' TLS files again now (lr_ctl_agents_reload_tls),
 * unless the agents are lent: the reload then stays due, for the
 * planner's next free turn (plan_next()). */
static void
reload_tls_now(struct nb_app *app)
{
    char report[4096], err[2048];
    int rc = lr_ctl_agents_reload_tls(app->ctl, app->tls_how, report,
                                      sizeof report, err, sizeof err);
    if (rc == EBUSY && app->planner)
        return;
    app->tls_due = false;
    if (app->tls_reloaded)
        app->tls_reloaded(app->tls_reloaded_arg, app->tls_how, rc, report,
                          err);
    agents_watch(app);                /* those it closed are down */
}

/* Judges the agents' connections again now (lr_ctl_agents_recheck_tls),
 * unless the agents are lent: the judgment then stays due, for the
 * planner's next free turn (plan_next()). */
static void
recheck_tls_now(struct nb_app *app)
{
    char report[4096], err[LR_CTL_ERR_MAX];
    int rc = lr_ctl_agents_recheck_tls(app->ctl, report, sizeof report, err,
                                       sizeof err);
    if (rc == EBUSY && app->planner)
        return;
    app->crl_due = false;
    if (app->tls_rechecked)
        app->tls_rechecked(app->tls_rechecked_arg, rc, report, err);
    agents_watch(app);                /* those it closed are down */
}

/* The agents are the loop's again after a plan, RELEASEs or an
 * admission that planned with them: the connections they keep may have
 * changed (app->agents_back), and so may what each agent is seen as. */
static void
agents_back(struct nb_app *app)
{
    if (app->agents_back)
        app->agents_back(app->agents_back_arg);
    agents_watch(app);
}

/* The planner is done with a plan: on the loop again. */
static void
plan_done(void *cookie, struct lr_ctl_op *op)
{
    struct nb_planned *w = cookie;
    struct nb_app *app = w->app;
    lr_ctl_plan_end(app->ctl, op);
    app->plan_busy = false;
    agents_back(app);
    plan_next(app);
}

/* The planner is done with RELEASEs: on the loop again. */
static void
releases_done(void *cookie, struct lr_ctl_op *op)
{
    struct nb_app *app = cookie;
    lr_ctl_release_end(app->ctl, op);
    app->plan_busy = false;
    agents_back(app);
    plan_next(app);
}

/* Hands the RELEASEs to the agents that wait (lr_ctl.h) to the planner,
 * which is free: they take their turn there as a plan. */
static void
releases_next(struct nb_app *app)
{
    struct lr_ctl_op *op;
    if (lr_ctl_release_begin(app->ctl, &op) || !op)
        return;                       /* none, or no memory: a later turn */
    if (!lr_worker_push(app->planner, op, releases_done, app)) {
        app->plan_busy = true;
        return;
    }
    lr_ctl_op_run(op);                /* no memory to queue it: here */
    lr_ctl_release_end(app->ctl, op);
    agents_back(app);
}

void
nb_restconf_reload_tls(struct nb_app *app, const char *how)
{
    app->tls_due = true;
    app->tls_how = how;
    if (app->planner)
        plan_next(app);
    else
        reload_tls_now(app);
}

void
nb_restconf_recheck_tls(struct nb_app *app)
{
    app->crl_due = true;
    if (app->planner)
        plan_next(app);
    else
        recheck_tls_now(app);
}

void
nb_restconf_agents_seen(struct nb_app *app)
{
    agents_watch(app);
}

void
nb_restconf_releases(struct nb_app *app)
{
    if (app->planner)
        plan_next(app);
}

/* Plans the first waiting intent off the loop unless a plan is in
 * flight, and admits it once lr_ctl_plan_begin has nothing left to plan:
 * the memo has the answer (or nothing needs one).  A job that came or
 * went while its plan ran changes the question: it is planned again, at
 * most three times in all; then its admission plans on the loop.  With
 * no intent waiting, the RELEASEs waiting take the planner's turn. */
static void
plan_next(struct nb_app *app)
{
    agents_watch(app);
    while (!app->plan_busy) {
        if (app->tls_due)
            reload_tls_now(app);
        if (app->crl_due)
            recheck_tls_now(app);
        if (!app->planning) {
            releases_next(app);
            return;
        }
        struct nb_planned *w = app->planning;
        struct lr_ctl_op *op = NULL;
        char err[512];
        if (w->tries < 3
            && !lr_ctl_plan_begin(app->ctl, &w->in, &op, err, sizeof err)
            && op) {
            w->tries++;
            if (!lr_worker_push(app->planner, op, plan_done, w)) {
                app->plan_busy = true;
                return;
            }
            lr_ctl_op_run(op);        /* no memory to queue it: here */
            lr_ctl_plan_end(app->ctl, op);
            agents_back(app);
            continue;
        }
        app->planning = w->next;
        if (!app->planning)
            app->planning_tail = &app->planning;
        app->n_planning--;
        submit_deferred(app, w->pending, &w->in, NULL);
        agents_back(app);             /* it may have planned with them */
        free(w);
    }
}

/* Queues 'in' behind the intents waiting for the planner, answered to
 * 'req'; false when out of memory (the caller admits it now). */
static bool
queue_plan(struct nb_app *app, const struct nb_request *req,
           const struct lr_intent *in)
{
    struct nb_pending *pending = nb_defer(req);
    if (!pending)
        return false;
    if (!queue_planned(app, pending, in)) {
        struct nb_response resp = { .status = 0 };
        nb_error(&resp, 500, "operation-failed", NULL, "out of memory");
        nb_pending_reply(pending, &resp);
    }
    return true;
}

/* queue_plan() for a request deferred already ('pending'); false when
 * out of memory (the caller answers it). */
static bool
queue_planned(struct nb_app *app, struct nb_pending *pending,
              const struct lr_intent *in)
{
    struct nb_planned *w = calloc(1, sizeof *w);
    if (!w)
        return false;
    w->pending = pending;
    w->app = app;
    w->in = *in;
    if (!app->planning_tail)
        app->planning_tail = &app->planning;
    *app->planning_tail = w;
    app->planning_tail = &w->next;
    app->n_planning++;
    plan_next(app);
    return true;
}

static void
h_jobs_post(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    struct lr_intent in;
    struct lr_job job;
    char path[512], msg[512], err[LR_CTL_ERR_MAX];
    int prc = lr_yang_parse_intent(app->ly, req->body, req->body_len, &in,
                                   path, sizeof path, msg, sizeof msg);
    if (prc) {
        bad_body(app, resp, prc, path, msg);
        return;
    }
    if (app->decider && !strcmp(in.algorithm, "ppo")
        && queue_decision(app, req, &in, NULL))
        return;
    if (app->planner && strcmp(in.algorithm, "ppo")
        && queue_plan(app, req, &in))
        return;
    /* Admitted on the loop: no planner, or no memory to queue for it.
     * An admission that plans with the agents here may leave a
     * connection kept, as one planned off the loop does: the loop is
     * told alike (agents_back(), as plan_next() after
     * submit_deferred()), or lightraild's TLS timer misses its chain. */
    struct lr_ctl_op *op = NULL;
    int rc = lr_ctl_submit_begin(app->ctl, &in, &job, &op, err, sizeof err);
    agents_back(app);
    if (!rc && op) {
        if (run_devices(app, req, op, false))
            return;
        rc = lr_ctl_op_end(app->ctl, op, &job, err, sizeof err);
    }
    answer_begin(app, resp, rc, &job, in.name, err);
}

/* A GET took app->jobs_cache: the idle time starts again. */
static void
jobs_cache_touch(struct nb_app *app)
{
    if (app->jobs_cache_timer)
        evtimer_add(app->jobs_cache_timer, &app->jobs_cache_idle);
}

/* The jobs, or the page of them the query asks for (list pagination,
 * draft-ietf-netconf-list-pagination-rc: limit, offset or cursor,
 * direction, and where and sort-by, which lr_yang_job_select() applies
 * before the slice: remaining then counts the matching entries), in
 * the jobs container or, with 'list', as the list resource .../jobs/job
 * (the draft's target; lr_yang_job_page_to_json).  Both answer the same
 * entries and refusals: one parse, one slice, one printer.  The list is
 * in the order of its key, the job's name (lr_ctl_list_refs sorts by
 * name; the list is ordered-by system), so two GETs page the same order
 * as long as no job comes or goes between them; a cursor (a job's name
 * in base64url, nb_cursor_encode()) starts the page at the job it names
 * wherever it now is, so jobs that come or go before it shift nothing.
 * Only the page's jobs are built and printed (without their state when
 * the cut keeps none of it, content=config, fields that select none or
 * a depth that cuts it: read_config_text()), or after a where or a
 * sort-by, which built every job, taken from that tree; every job, and
 * the tree a where or a sort-by is judged on, are taken from the tree
 * kept across GETs (app->jobs_cache) while lr_ctl_jobs_gen() says no
 * job, topology or inventory changed since it was built; with a limit,
 * the page's first entry carries the annotations
 * lightrail-job:remaining (when the limit left some out), next and
 * previous (the cursors of the jobs after and before it). */
/* The jobs '*jobs' ('*n', from lr_ctl_list_refs()) replaced by those
 * the page's where selects, in its sort-by's order ('config_only': both
 * judged as running's, lr_yang_job_select()) and '*tree' by the tree
 * they were judged on (the caller frees it, lr_yang_job_tree_free(); NULL
 * when the query was refused); false, or true when the
 * query was refused (400 invalid-value, 'advice' after its words when
 * not NULL and the refusal is of state under running) or failed (500),
 * answered in 'resp'.  A where whose evaluation outlasts
 * app->where_budget_s is refused too, with nothing sent but the error:
 * 400 invalid-value (error-app-tag where-budget-exceeded), the where's
 * value being what the client must change; not 503, which tells a
 * client to retry (RFC 9110 15.6.4) and would have the same where
 * hold the loop again, nor 413, which is the request's content. */
static bool
jobs_select(struct nb_app *app, const struct nb_page *pg, bool config_only,
            const char *advice, const struct lr_job ***jobs, int *n,
            struct lr_yang_job_tree **tree, struct nb_response *resp)
{
    const struct lr_job **sel = NULL;
    char *where = pg->where ? strndup(pg->where, pg->where_len) : NULL;
    char *sort_by = pg->sort_by ? strndup(pg->sort_by, pg->sort_by_len)
                                : NULL;
    const struct lr_yang_where_budget budget = {
        .seconds = app->where_budget_s,
    };
    const struct lr_yang_job_query query = {
        .where = where, .sort_by = sort_by, .config_only = config_only,
        .budget = &budget,
    };
    const struct lr_yang_job_net net = jobs_net(app);
    char err[1024];
    int m = 0, rc = ENOMEM;
    if ((!pg->where || where) && (!pg->sort_by || sort_by))
        rc = lr_yang_job_cache_select_tree(app->ly, app->jobs_cache,
                                           lr_ctl_jobs_gen(app->ctl), *jobs,
                                           *n, &query, &net, &sel, &m, tree,
                                           err, sizeof err);
    else
        snprintf(err, sizeof err, "out of memory");
    jobs_cache_touch(app);
    free(where);
    free(sort_by);
    /* The advice only for state under running (ENODATA): a query
     * refused for anything else operational refuses too. */
    if (rc == EINVAL || rc == ENODATA)
        nb_error(resp, 400, "invalid-value", NULL, "%s%s%s", err,
                 rc == ENODATA && advice ? ": " : "",
                 rc == ENODATA && advice ? advice : "");
    else if (rc == ETIMEDOUT) {
        nb_error(resp, 400, "invalid-value", NULL, "%s", err);
        nb_error_app_tag(resp, "where-budget-exceeded");
    } else if (rc)
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    if (rc) {
        free(sel);
        return true;
    }
    free(*jobs);
    *jobs = sel;
    *n = m;
    return false;
}

/* false, or true with a 400 in 'resp' when the page's cursor names a
 * key no job can have (lightrail-job's name: 1 to 63 bytes of letters,
 * digits, '.', '_' and '-'): a cursor this server never gave, not a
 * job gone since (404 cursor-not-found), so paging again would not
 * help. */
static bool
jobs_cursor_refused(const struct nb_request *req, const struct nb_page *pg,
                    struct nb_response *resp)
{
    size_t kl = strlen(pg->cursor);
    bool too_long = kl >= LR_JOB_NAME_MAX;
    if (!too_long && strspn(pg->cursor, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "abcdefghijklmnopqrstuvwxyz0123456789._-") == kl)
        return false;
    const char *v;
    size_t vl;
    char why[128];
    nb_query_value(req->query, "cursor", &v, &vl);
    if (too_long)
        snprintf(why, sizeof why, "a key of %zu bytes, longer than a job's "
                 "name can be (%d at most)", kl, LR_JOB_NAME_MAX - 1);
    else
        snprintf(why, sizeof why, "a key with a character a job's name "
                 "cannot hold (letters, digits, '.', '_' and '-' only)");
    nb_error(resp, 400, "invalid-value", NULL, "the query's cursor '%.*s' "
             "names %s: no job has it; send a page's 'next' or 'previous' "
             "annotation as it came, or page with offset",
             (int) (vl < 40 ? vl : 40), v, why);
    return true;
}

static void
jobs_page(struct nb_app *app, const struct nb_request *req,
          struct nb_response *resp, bool list)
{
    const struct lr_job **jobs = NULL, **page = NULL;
    struct lr_yang_job_tree *tree = NULL;
    struct nb_page pg;
    struct nb_read rd;
    size_t count = 0, remaining = 0;
    char err[512];
    int n = 0, rc = nb_page_parse(req->query, &pg, err, sizeof err);
    if (!rc && read_query(req, resp, &rd))
        return;
    if (rc) {
        nb_error(resp, rc == ENOTSUP ? 501 : 400, rc == ENOTSUP
                 ? "operation-not-supported" : "invalid-value", NULL, "%s",
                 err);
        return;
    }
    if (pg.cursor[0] && jobs_cursor_refused(req, &pg, resp))
        return;
    if (lr_ctl_list_refs(app->ctl, &jobs, &n)) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    /* Under running (req->config_only), a query that names state is
     * refused with where to send it instead: operational holds it. */
    char advice[512] = "";
    if (req->config_only)
        snprintf(advice, sizeof advice, "send it to " DS DS_OPERATIONAL
                 "/%s", req->path + strlen(DATA));
    if ((pg.where || pg.sort_by)
        && jobs_select(app, &pg, req->config_only,
                       req->config_only ? advice : NULL, &jobs, &n, &tree,
                       resp))
        goto cleanup;
    if (pg.cursor[0]) {
        /* The job the cursor names, where the where and sort-by put it:
         * one pass over the pointers (the selection is in sort-by's
         * order, not the name's). */
        int at = 0;
        while (at < n && strcmp(jobs[at]->intent.name, pg.cursor))
            at++;
        if (at == n) {
            const char *v;
            size_t vl;
            nb_query_value(req->query, "cursor", &v, &vl);
            nb_error(resp, 404, "invalid-value", NULL, "the query's cursor "
                     "'%.*s' names a job that is not in the list%s (deleted "
                     "since the page that gave it%s): page again from the "
                     "start, without a cursor, or from an offset",
                     (int) (vl < 40 ? vl : 40), v,
                     pg.where ? " the query's where selects" : "",
                     pg.where ? ", or no longer selected by the where" : "");
            nb_error_app_tag(resp, "cursor-not-found");
            goto cleanup;
        }
        nb_page_at(&pg, (size_t) n, (size_t) at);
    }
    if (nb_page_slice(&pg, (size_t) n, &count, &remaining, err,
                      sizeof err)) {
        /* 416 has no row in RFC 8040 section 7: the offset's value is
         * what is wrong (lr_yang_error_pair_ok() takes the pair). */
        nb_error(resp, 416, "invalid-value", NULL, "%s", err);
        nb_error_app_tag(resp, "offset-out-of-range");
        goto cleanup;
    }
    if (count && !(page = malloc(count * sizeof *page))) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    for (size_t k = 0; k < count; k++)
        page[k] = jobs[nb_page_entry(&pg, (size_t) n, k)];
    /* The cursors of a limited page: the draft's next and previous. */
    struct lr_yang_page_meta meta = { .remaining = (uint32_t) remaining };
    char next[NB_CURSOR_TEXT_MAX], previous[NB_CURSOR_TEXT_MAX];
    size_t at;
    if (pg.limit && nb_page_next(&pg, (size_t) n, count, &at)
        && nb_cursor_encode(jobs[at]->intent.name, next))
        meta.next = next;
    if (pg.limit && nb_page_previous(&pg, (size_t) n, &at)
        && nb_cursor_encode(jobs[at]->intent.name, previous))
        meta.previous = previous;
    char *out = NULL;
    /* The state, when the cut keeps none of it (content=config, fields
     * that select none, a depth that cuts it: read_config_text()), is
     * not built: the where above saw it as asked (operational's), the
     * text does not need it.  After a where or a sort-by the page's
     * entries are taken from the tree they were judged on, not built
     * again (the same bytes: test_yang_job_tree), unless the text wants
     * the state that tree was built without. */
    bool config_text = read_config_text(app, req, &rd,
                                        list ? JOB_NODE : JOBS_NODE);
    /* Every job in the list's order, no annotation: the tree kept
     * across GETs (app->jobs_cache), when there is one. */
    const struct lr_yang_job_net net = jobs_net(app);
    bool whole = !tree && count == (size_t) n && !meta.remaining
                 && !meta.next && !meta.previous
                 && (!count || !memcmp(page, jobs, count * sizeof *page));
    if (whole)
        jobs_cache_touch(app);
    if (whole
        ? lr_yang_job_cache_to_json(app->ly, app->jobs_cache,
                                    lr_ctl_jobs_gen(app->ctl), jobs, n, list,
                                    config_text, &net, &out, err,
                                    sizeof err)
        : tree && (config_text || lr_yang_job_tree_has_state(tree))
        ? lr_yang_job_tree_page_to_json(app->ly, tree, page, (int) count,
                                        &meta, list, config_text, &out, err,
                                        sizeof err)
        : (config_text ? lr_yang_job_page_config_to_json
                       : lr_yang_job_page_to_json)(
              app->ly, page, (int) count, &meta, list, &net, &out, err,
              sizeof err))
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    else if (!read_cut(app, &rd, false, &out, resp))
        /* The page first, then fields, content and depth: the tag is
         * that of what is sent. */
        tagged_reply(req, resp, out);

cleanup:
    lr_yang_job_tree_free(tree);
    free(page);
    free(jobs);
}

/* GET (and HEAD) of the list resource .../jobs/job. */
static void
h_job_list(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    jobs_page(arg, req, resp, true);
}

static void
h_job(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    const char *name = req->path + strlen(JOB);
    struct lr_job job;
    char err[LR_CTL_ERR_MAX];
    if (!*name || strchr(name, '/')) {
        nb_error(resp, 404, "invalid-value", NULL, "no such resource: %s",
                 req->path);
        return;
    }
    if (req->method == NB_DELETE) {
        struct lr_ctl_op *op = NULL;
        if (read_query_refused(req, resp))
            return;
        /* Preconditions against what a GET would send now; the loop
         * does nothing between them and the delete.  A job that is not
         * there is the delete's 404, one in flight its 409: RFC 9110
         * 13.2.1 ignores them when the answer without them is no 2xx
         * (If-Match: * too).  A job has no date: If-Unmodified-Since is
         * ignored. */
        if ((req->if_match || req->if_none_match)
            && !lr_ctl_job_in_flight(app->ctl, name)
            && !lr_ctl_get(app->ctl, name, &job)) {
            const struct lr_job *ref = &job;
            char *out = NULL, etag[NB_ETAG_MAX];
            if (job_refs_text(app, resp, &ref, 1, 1, false, &out))
                return;
            nb_etag_of(out, strlen(out), etag);
            free(out);
            if (nb_cond_check(req, etag, 0, resp))
                return;
        }
        int rc = lr_ctl_delete_begin(app->ctl, name, &op, err, sizeof err);
        if (!rc && op) {
            if (run_devices(app, req, op, true))
                return;
            rc = lr_ctl_op_end(app->ctl, op, NULL, err, sizeof err);
        }
        answer_delete(resp, rc, err);
        return;
    }
    struct nb_read rd;
    if (read_query(req, resp, &rd))
        return;
    if (lr_ctl_get(app->ctl, name, &job)) {
        nb_error(resp, 404, "invalid-value", NULL, "no job named '%s'", name);
        return;
    }
    const struct lr_job *ref = &job;
    char *out = NULL;
    if (!job_refs_text(app, resp, &ref, 1, 1,
                       read_config_text(app, req, &rd, JOB_NODE), &out)
        && !read_cut(app, &rd, false, &out, resp))
        tagged_reply(req, resp, out);
}

/* The topology or the inventory as GET sends it, and its validators
 * (nb_cond.h): the tag is the text's digest, the time the one when
 * lightraild first saw that text (app->started for the one it started
 * with).  0, or a 500 in 'resp'.  The caller frees '*out'. */
static int
inventory_text(struct nb_app *app, bool is_topology, char **out,
               const struct nb_version **ver, struct nb_response *resp)
{
    struct nb_version *v = is_topology ? &app->topo_version
                                       : &app->compute_version;
    char err[512], etag[NB_ETAG_MAX];
    int rc = is_topology
             ? lr_yang_topo_to_json(app->ly, lr_ctl_topo(app->ctl), out, err,
                                    sizeof err)
             : lr_yang_cluster_to_json(app->ly, lr_ctl_cluster(app->ctl),
                                       out, err, sizeof err);
    if (rc) {
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
        return rc;
    }
    nb_etag_of(*out, strlen(*out), etag);
    if (strcmp(etag, v->etag)) {
        v->modified = !v->etag[0] && app->started ? app->started
                                                  : time(NULL);
        memcpy(v->etag, etag, sizeof etag);
    }
    *ver = v;
    return 0;
}

static void
set_validators(struct nb_response *resp, const struct nb_version *v)
{
    memcpy(resp->etag, v->etag, sizeof resp->etag);
    resp->last_modified = nb_last_modified(v->modified, time(NULL));
}

static void put_inventory(struct nb_app *, const struct nb_request *,
                          struct nb_response *, bool);

/* GET of the topology or the inventory, conditional (RFC 8040 3.5.2,
 * RFC 9110 13): 304 to an If-None-Match or If-Modified-Since that
 * already has it. */
static void
get_inventory(struct nb_app *app, const struct nb_request *req,
              struct nb_response *resp, bool is_topology)
{
    const struct nb_version *v;
    struct nb_read rd;
    char *out = NULL, etag[NB_ETAG_MAX];
    if (read_query(req, resp, &rd)
        || inventory_text(app, is_topology, &out, &v, resp))
        return;
    /* A cut text has its own tag, the digest of what is sent; its date
     * stays the whole text's, which moves whenever the cut one does. */
    memcpy(etag, v->etag, sizeof etag);
    if (nb_read_cuts(&rd)) {
        if (read_cut(app, &rd, false, &out, resp))
            return;
        nb_etag_of(out, strlen(out), etag);
    }
    if (nb_cond_check(req, etag, v->modified, resp)) {
        free(out);
        return;
    }
    json_reply(resp, 200, out);
    set_validators(resp, v);
    memcpy(resp->etag, etag, sizeof etag);
}

static void
h_topology(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    if (req->method == NB_PUT && !read_query_refused(req, resp))
        put_inventory(arg, req, resp, true);
    else if (req->method == NB_PUT)
        return;
    else
        get_inventory(arg, req, resp, true);
}

/* PUT of the topology or the inventory: the new document replaces the
 * old one when its preconditions hold (If-Match...: RFC 8040 3.4.1.2,
 * 3.4.1.3; judged before the body, as RFC 9110 13.2.1 says), it loads,
 * agrees with the other, and no job holds resources of the network it
 * replaces.  The loop does nothing else from the check to the change,
 * so no other PUT comes between them.  204 carries the new validators. */
static void
put_inventory(struct nb_app *app, const struct nb_request *req,
              struct nb_response *resp, bool is_topology)
{
    struct lr_topo *topo = NULL;
    struct lr_cluster *cluster = NULL;
    const struct nb_version *v;
    char err[1024], *now = NULL;
    if (inventory_text(app, is_topology, &now, &v, resp))
        return;
    free(now);
    now = NULL;
    if (nb_cond_check(req, v->etag, v->modified, resp))
        return;
    int rc = is_topology
             ? lr_yang_load_topo_mem(app->ly, req->body, req->body_len,
                                     "body", &topo, err, sizeof err)
             : lr_yang_load_cluster_mem(app->ly, req->body, req->body_len,
                                        "body", &cluster, err, sizeof err);
    if (rc) {
        nb_error(resp, 400, "invalid-value", NULL, "%s", err);
        goto cleanup;
    }
    const struct lr_topo *t = topo ? topo : lr_ctl_topo(app->ctl);
    const struct lr_cluster *c = cluster ? cluster : lr_ctl_cluster(app->ctl);
    /* The stored topology goes by its network-id ("not in topology
     * metro"); its word "topology" read "not in topology topology". */
    if (lr_yang_check_attachments(t, is_topology ? "body" : t->name, c,
                                  is_topology ? "inventory" : "body", err,
                                  sizeof err)) {
        nb_error(resp, 400, "invalid-value", NULL, "%s", err);
        goto cleanup;
    }
    /* A policy is configured when it is usable or its status says why
     * not (lr_ctl_ppo_status() is NULL for none and for a usable one). */
    bool was_usable, usable;
    bool has_policy = lr_ctl_ppo_status(app->ctl, &was_usable) != NULL
                      || was_usable;
    rc = lr_ctl_set_inventory(app->ctl, t, c,
                              is_topology ? req->body : NULL,
                              is_topology ? NULL : req->body, err,
                              sizeof err);
    lr_ctl_ppo_status(app->ctl, &usable);
    if (!rc && has_policy && usable != was_usable && app->ppo_rechecked)
        app->ppo_rechecked(app->ppo_rechecked_arg,
                           is_topology ? "topology" : "inventory");
    if (!rc)                          /* new agents, counting from 0 */
        memset(app->agent_idle_seen, 0, sizeof app->agent_idle_seen);
    if (!rc && app->agents_renewed)
        app->agents_renewed(app->agents_renewed_arg);
    /* EINVAL: the new network cannot stand (a node name its driver
     * refuses, a remote DC without the coordinator's certificate...). */
    if (rc == EBUSY)
        nb_error(resp, 409, "in-use", NULL, "%s", err);
    else if (rc == EINVAL)
        nb_error(resp, 400, "invalid-value", NULL, "%s", err);
    else if (rc)
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    else
        resp->status = 204;
    /* The change is made: a text that does not print now leaves the
     * 204 without validators, not a 500. */
    struct nb_response unsaid = { .status = 0 };
    if (!rc && !inventory_text(app, is_topology, &now, &v, &unsaid))
        set_validators(resp, v);
    free(unsaid.body);
    free(now);
    /* DC indices change: each agent seen anew, without a word (one down
     * before is down still, lr_ctl.h; said when it answers again). */
    for (int k = 0; !rc && k < LR_TM_MAX_DCS; k++) {
        struct lr_ctl_agent_status st;
        uint64_t bit = UINT64_C(1) << k;
        if (!lr_ctl_agent_status(app->ctl, k, &st) && !st.up)
            app->agents_down |= bit;
        else
            app->agents_down &= ~bit;
    }

cleanup:
    lr_topo_free(topo);
    lr_cluster_free(cluster);
}

static void
h_compute(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    if (req->method == NB_PUT && !read_query_refused(req, resp))
        put_inventory(arg, req, resp, false);
    else if (req->method == NB_PUT)
        return;
    else
        get_inventory(arg, req, resp, false);
}

static void
h_state(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    const struct lr_topo *t = lr_ctl_topo(app->ctl);
    const struct lr_cluster *cl = lr_ctl_cluster(app->ctl);
    const struct lr_job **jobs = NULL;
    struct nb_read rd;
    int n_jobs = 0;
    if (read_query(req, resp, &rd))
        return;
    if (lr_ctl_list_refs(app->ctl, &jobs, &n_jobs)) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    int total = 0;
    for (int j = 0; j < n_jobs; j++)
        for (int k = 0; k < jobs[j]->n_lightpaths; k++)
            total += jobs[j]->lp[k].n_links;
    struct lr_state_link *links = calloc((size_t) t->n_links + 1,
                                         sizeof *links);
    struct lr_state_channel *ch = calloc((size_t) total + 1, sizeof *ch);
    struct lr_state_dc *dcs = calloc((size_t) cl->n_dcs + 1, sizeof *dcs);
    struct lr_state_emulated *em = NULL;
    /* The agents' reasons, read by the view until it is printed. */
    struct lr_ctl_agent_status *agents = calloc((size_t) cl->n_dcs + 1,
                                                sizeof *agents);
    int n_devs = lr_ctl_devices(app->ctl);
    struct lr_state_device *devs = calloc((size_t) n_devs + 1, sizeof *devs);
    char *out = NULL, err[512];
    if (!links || !ch || !dcs || !agents || !devs) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    /* Channels grouped by link, in link order. */
    int used_ch = 0;
    for (int l = 0; l < t->n_links; l++) {
        struct lr_state_link *sl = &links[l];
        snprintf(sl->id, sizeof sl->id, "%s", t->links[l].name);
        sl->slots = t->links[l].n_slots;
        sl->channels = ch + used_ch;
        for (int j = 0; j < n_jobs; j++)
            for (int k = 0; k < jobs[j]->n_lightpaths; k++) {
                const struct lr_lightpath *lp = &jobs[j]->lp[k];
                for (int h = 0; h < lp->n_links; h++)
                    if (lp->links[h] == l) {
                        struct lr_state_channel *c = &ch[used_ch++];
                        c->first = lp->first;
                        c->m = lp->m;
                        snprintf(c->job, sizeof c->job, "%s",
                                 jobs[j]->intent.name);
                        sl->n_channels++;
                        sl->used += lp->m;
                    }
            }
    }
    const int *gpus = lr_ctl_gpus_used(app->ctl);
    for (int k = 0; k < cl->n_dcs; k++) {
        snprintf(dcs[k].name, sizeof dcs[k].name, "%s", cl->dcs[k].name);
        dcs[k].devices = cl->dcs[k].n_devices;
        dcs[k].in_use = gpus[k];
        if (!lr_ctl_agent_status(app->ctl, k, &agents[k])) {
            dcs[k].agent = true;
            dcs[k].agent_up = agents[k].up;
            dcs[k].agent_why = agents[k].why;
        }
    }
    for (int i = 0; i < n_devs; i++) {
        struct lr_ctl_device_status st;
        if (lr_ctl_device_status(app->ctl, i, &st))
            continue;
        devs[i] = (struct lr_state_device) {
            .name = st.name, .driver = st.driver, .address = st.address,
            .up = st.up, .ok_ms = st.ok_ms, .fail_ms = st.fail_ms,
            .why = st.why, .ops = st.ops, .failures = st.failures,
            .channels = st.channels,
        };
    }
    struct lr_ctl_emulated *emu = NULL;
    int n_emu = 0;
    if (lr_ctl_emulated_links(app->ctl, &emu, &n_emu)) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    em = calloc((size_t) n_emu + 1, sizeof *em);
    if (!em) {
        free(emu);
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n_emu; i++) {
        const struct sb_linux_link *l = &emu[i].link;
        struct lr_state_emulated *e = &em[i];
        snprintf(e->lightpath, sizeof e->lightpath, "%s", l->name);
        snprintf(e->from, sizeof e->from, "%s", cl->dcs[l->from_dc].name);
        snprintf(e->to, sizeof e->to, "%s", cl->dcs[l->to_dc].name);
        snprintf(e->ns, sizeof e->ns, "%s", l->src_ns);
        snprintf(e->ifname, sizeof e->ifname, "%s", l->src_if);
        e->capacity_gbps = l->gbps;
        e->shaped_bps = (uint64_t) l->rate_bps;
        e->tx_bytes = l->tx_bytes;
        e->tx_packets = l->tx_packets;
        e->rx_bytes = l->rx_bytes;
        e->rx_packets = l->rx_packets;
        e->errors = l->tx_errors + l->rx_errors;
        e->drops = l->tx_dropped + l->rx_dropped;
        e->qdisc_drops = l->qdisc_drops;
        e->measured = emu[i].measured;
        e->throughput_bps = (uint64_t) emu[i].throughput_bps;
        e->loss = emu[i].loss;
        e->delay_us = emu[i].delay_s * 1e6;
    }
    free(emu);
    struct lr_ctl_ppo_info ppo;
    bool has_ppo = !lr_ctl_ppo_info(app->ctl, &ppo);
    const struct lr_ctl_counters *cn = lr_ctl_counters(app->ctl);
    struct lr_state_view v = {
        .ppo = has_ppo ? &ppo : NULL,
        .n_links = t->n_links, .links = links, .n_dcs = cl->n_dcs,
        .dcs = dcs, .n_devices = n_devs, .devices = devs,
        .n_emulated = n_emu, .emulated = em,
        .counters = { .admissions = cn->admissions, .blocks = cn->blocks,
                      .deletes = cn->deletes },
    };
    for (int j = 0; j < n_jobs; j++) {
        v.counters.jobs_active += jobs[j]->phase == LR_JOB_ACTIVE;
        v.counters.jobs_blocked += jobs[j]->phase == LR_JOB_BLOCKED;
        v.counters.jobs_failed += jobs[j]->phase == LR_JOB_FAILED;
    }
    if (lr_yang_state_to_json(app->ly, &v, &out, err, sizeof err))
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    else if (!read_cut(app, &rd, false, &out, resp))
        json_reply(resp, 200, out);

cleanup:
    free(links);
    free(ch);
    free(dcs);
    free(agents);
    free(devs);
    free(em);
    free(jobs);
}

/* The answer to a reconciliation (lr_ctl_reconcile_end's result):
 * lightrail-job's reconcile output, one 'difference' per line of the
 * report, 'reinstalled' when the input asked for it (>= 0).  A device that could not be read or repaired is a 500, whose
 * error-info still carries the output (repaired false): what the other
 * devices differed in, and what was done there, must not be lost.
 * Takes 'report'. */
static void
answer_reconcile(struct nb_app *app, struct nb_response *resp, int rc,
                 bool repair, char *report, int drift, int reinstalled,
                 const char *err)
{
    char *out = NULL, perr[512];
    if (rc) {
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
        if (report && *report
            && !lr_yang_reconcile_to_json(app->ly, drift, false, reinstalled,
                                          report, &out, perr, sizeof perr))
            nb_error_info(resp, out);
        free(out);
    } else if (lr_yang_reconcile_to_json(app->ly, drift, repair, reinstalled,
                                         report, &out, perr, sizeof perr))
        nb_error(resp, 500, "operation-failed", NULL, "%s", perr);
    else
        json_reply(resp, 200, out);
    free(report);
}

/* A reconciliation whose devices are being read (and repaired): a
 * request's ('pending' its answer) or a periodic one (NULL). */
struct recon_work {
    struct nb_app *app;
    struct nb_pending *pending;
    bool repair;
};

/* A periodic reconciliation ended with lr_ctl_reconcile_end's 'rc',
 * 'report' (taken), 'drift' and 'err': counted, and told to
 * app->reconciled. */
static void
periodic_ended(struct nb_app *app, int rc, char *report, int drift,
               const char *err)
{
    app->periodic_reconciles++;
    app->periodic_reconcile_failures += rc != 0;
    if (app->reconciled)
        app->reconciled(app->reconciled_arg, rc, report, drift, err);
    free(report);
}

/* The worker is done with the devices: on the loop again. */
static void
recon_work_done(void *cookie, struct lr_ctl_op *op)
{
    struct recon_work *w = cookie;
    struct nb_response resp = { .status = 0 };
    char *report = NULL, err[LR_CTL_ERR_MAX];
    int drift = 0, reinstalled = -1;
    int rc = lr_ctl_reconcile_end(w->app->ctl, op, &report, &drift,
                                  &reinstalled, err, sizeof err);
    if (!w->pending) {
        periodic_ended(w->app, rc, report, drift, err);
        free(w);
        return;
    }
    answer_reconcile(w->app, &resp, rc, w->repair, report, drift,
                     reinstalled, err);
    nb_pending_reply(w->pending, &resp);
    free(w);
}

/* Boolean query parameter 'name' of the decoded 'query' (nb_server has
 * let through only known names, each once) into '*on': absent false,
 * "name" or "name=true" true, "name=false" false; EINVAL for another
 * value. */
static int
query_bool(const char *query, const char *name, bool *on)
{
    const char *v;
    size_t vl;
    *on = false;
    if (!nb_query_value(query, name, &v, &vl))
        return 0;
    if (!v || (vl == 4 && !strncmp(v, "true", 4)))
        *on = true;
    else if (!(vl == 5 && !strncmp(v, "false", 5)))
        return EINVAL;
    return 0;
}

/* Three steps like a job's (docs/controller.md "Threads"): the snapshot
 * here, the devices on the worker behind the jobs queued before it, the
 * answer deferred.  Without a worker: all here.  A dry run is asked by
 * the input's dry-run, or by the query ?dry-run (kept from before the
 * input was modelled).  The input's reinstall: lr_ctl.h
 * lr_ctl_reconcile_set_reinstall(). */
static void
h_reconcile(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    char *report = NULL, err[LR_CTL_ERR_MAX], path[256];
    int drift = 0;
    bool dry_run = false, reinstall = false;
    int rc = lr_yang_parse_reconcile(app->ly, req->body, req->body_len,
                                     &dry_run, &reinstall, path, sizeof path,
                                     err, sizeof err);
    if (rc) {
        bad_body(app, resp, rc, path, err);
        return;
    }
    bool query_dry = false;
    if (query_bool(req->query, "dry-run", &query_dry)) {
        nb_error(resp, 400, "invalid-value", NULL, "the query's dry-run "
                 "is 'true', 'false' or nothing ('?dry-run')");
        return;
    }
    bool repair = !dry_run && !query_dry;
    struct lr_ctl_op *op = NULL;
    rc = lr_ctl_reconcile_begin(app->ctl, repair, &op, err, sizeof err);
    if (rc) {
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
        return;
    }
    if (reinstall)
        lr_ctl_reconcile_set_reinstall(op);
    struct recon_work *w = app->worker ? calloc(1, sizeof *w) : NULL;
    if (w) {
        w->app = app;
        w->repair = repair;
        w->pending = nb_defer(req);
    }
    if (w && w->pending) {
        if (lr_worker_push(app->worker, op, recon_work_done, w)) {
            /* The token must be answered: do it after the work, here. */
            lr_ctl_op_run(op);
            recon_work_done(w, op);
        }
        return;
    }
    free(w);
    lr_ctl_op_run(op);
    int reinstalled = -1;
    rc = lr_ctl_reconcile_end(app->ctl, op, &report, &drift, &reinstalled,
                              err, sizeof err);
    answer_reconcile(app, resp, rc, repair, report, drift, reinstalled, err);
}

int
nb_restconf_reconcile(struct nb_app *app)
{
    struct lr_ctl_op *op = NULL;
    char err[512];
    struct recon_work *w = calloc(1, sizeof *w);
    if (!w)
        return ENOMEM;
    *w = (struct recon_work) { .app = app, .pending = NULL, .repair = true };
    int rc = lr_ctl_reconcile_begin(app->ctl, true, &op, err, sizeof err);
    if (rc) {
        free(w);
        return rc;
    }
    if (!app->worker || lr_worker_push(app->worker, op, recon_work_done, w)) {
        /* Begun, so ended: here, on the loop, as a request's would be. */
        lr_ctl_op_run(op);
        recon_work_done(w, op);
    }
    return 0;
}

/* Reloads the ppo policy now and answers in 'resp' (204, or why not);
 * '*rc' is lr_ctl_ppo_reload's, EBUSY leaving 'resp' untouched. */
static void
reload_policy(struct nb_app *app, const char *how, struct nb_response *resp,
              int *rc)
{
    /* lr_ctl's words whole (LR_CTL_ERR_MAX): a policy refused is named
     * by its path (up to 1,023 bytes) before why and what to do, an
     * end that 768 bytes cut (tests/cli/ppo.sh, "a long path"). */
    char err[LR_CTL_ERR_MAX];
    *rc = lr_ctl_ppo_reload(app->ctl, err, sizeof err);
    if (*rc == EBUSY)
        return;
    if (app->reloaded)
        app->reloaded(app->reloaded_arg, how, *rc, err);
    if (*rc == 0)
        resp->status = 204;
    else if (*rc == ENOENT)
        nb_error(resp, 409, "data-missing", NULL, "%s; name a policy file "
                 "in ppo-policy of lightraild's configuration and restart "
                 "it", err);
    else
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
}

/* POST .../lightrail-state:reload-ppo-policy: no input (no body, or
 * {"lightrail-state:input":{}}), no output (204).  With a decider it
 * queues behind the ppo intents before it, whose decisions hold the
 * policy. */
static void
h_reload(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    char path[256], msg[512];
    int prc = lr_yang_parse_no_input(app->ly, "lightrail-state",
                                     "reload-ppo-policy", req->body,
                                     req->body_len, path, sizeof path, msg,
                                     sizeof msg);
    if (prc) {
        bad_body(app, resp, prc, path, msg);
        return;
    }
    if (app->decider && queue_decision(app, req, NULL, "reload-ppo-policy"))
        return;
    int rc;
    reload_policy(app, "reload-ppo-policy", resp, &rc);
    if (rc == EBUSY)   /* a decision in flight and no queue to wait in */
        nb_error(resp, 409, "in-use", NULL, "a ppo decision is in flight: "
                 "try again");
}

int
nb_restconf_reload(struct nb_app *app, const char *how)
{
    if (app->decider)
        return queue_decision(app, NULL, NULL, how) ? 0 : ENOMEM;
    struct nb_response resp = { .status = 0 };
    int rc;
    reload_policy(app, how, &resp, &rc);
    free(resp.body);
    return 0;
}

/* Appends printf output to a growing buffer. */
static void
put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = *cap - *len;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t) n < room) {
            *len += (size_t) n;
            return;
        }
        size_t ncap = (*cap + (size_t) n + 1) * 2;
        char *p = realloc(*buf, ncap);
        if (!p)
            return;
        *buf = p;
        *cap = ncap;
    }
}

/* The emulated data plane's telemetry, when there is one. */
static void
put_emulated(struct nb_app *app, char **buf, size_t *len, size_t *cap)
{
    struct lr_ctl_emulated *emu = NULL;
    int n = 0;
    if (!lr_ctl_dataplane(app->ctl) || lr_ctl_emulated_links(app->ctl, &emu,
                                                             &n))
        return;
    const struct lr_cluster *cl = lr_ctl_cluster(app->ctl);
    static const struct {
        const char *name, *type, *help;
    } fam[] = {
        { "lightrail_emulated_link_bytes_total", "counter",
          "Bytes the emulated lightpath's source end sent (real bytes: the "
          "data plane is scaled down)." },
        { "lightrail_emulated_link_packets_total", "counter",
          "Packets the source end sent." },
        { "lightrail_emulated_link_errors_total", "counter",
          "Transmit and receive errors of both ends." },
        { "lightrail_emulated_link_drops_total", "counter",
          "Packets dropped by either end or by the shaper." },
        { "lightrail_emulated_link_throughput_bps", "gauge",
          "Emulated bits/s over the last sampling interval." },
        { "lightrail_emulated_link_loss_ratio", "gauge",
          "Dropped over offered packets in the last sampling interval." },
        { "lightrail_emulated_link_capacity_bps", "gauge",
          "The lightpath's emulated capacity, bits/s." },
    };
    for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
        put(buf, len, cap, "# HELP %s %s\n# TYPE %s %s\n", fam[f].name,
            fam[f].help, fam[f].name, fam[f].type);
        for (int i = 0; i < n; i++) {
            const struct sb_linux_link *l = &emu[i].link;
            char lp[2 * SB_NAME_MAX], from[2 * LR_NAME_MAX],
                 to[2 * LR_NAME_MAX];
            double v;
            nb_metrics_label(l->name, lp, sizeof lp);
            nb_metrics_label(cl->dcs[l->from_dc].name, from, sizeof from);
            nb_metrics_label(cl->dcs[l->to_dc].name, to, sizeof to);
            switch (f) {
            case 0: v = (double) l->tx_bytes; break;
            case 1: v = (double) l->tx_packets; break;
            case 2: v = (double) (l->tx_errors + l->rx_errors); break;
            case 3: v = (double) (l->tx_dropped + l->rx_dropped
                                  + l->qdisc_drops); break;
            case 4: v = emu[i].throughput_bps; break;
            case 5: v = emu[i].loss; break;
            default: v = l->gbps * 1e9; break;
            }
            if (f >= 4 && f <= 5 && !emu[i].measured)
                continue;
            put(buf, len, cap, "%s{lightpath=\"%s\",from=\"%s\",to=\"%s\"} "
                "%.17g\n", fam[f].name, lp, from, to, v);
        }
    }
    free(emu);
}

/* A family of /metrics with one sample per remote DC's agent
 * (lr_ctl_agent_status()): its HELP and TYPE lines, then
 * "NAME{dc="DC"} VALUE" for each DC in the inventory's order; nothing
 * when no DC has an agent. */
struct agent_family {
    const char *name;
    const char *head;                 /* the "# HELP" and "# TYPE" lines */
    unsigned (*value)(const struct lr_ctl_agent_status *);
};

static unsigned
agent_up_value(const struct lr_ctl_agent_status *st)
{
    return st->up ? 1 : 0;
}

static unsigned
agent_idle_closes_value(const struct lr_ctl_agent_status *st)
{
    return st->idle_closes;
}

static const struct agent_family agent_up = {
    "lightrail_agent_up",
    "# HELP lightrail_agent_up Each remote DC's agent: 0 when the last "
    "exchange with it got no answer (unreachable, broken, too slow; the "
    "log and the jobs it blocked say why), else 1 (a refusal is an "
    "answer: the job's reason says it). Seen when the planner last had "
    "the agents.\n"
    "# TYPE lightrail_agent_up gauge\n",
    agent_up_value,
};

static const struct agent_family agent_idle_closes = {
    "lightrail_agent_idle_closes_total",
    "# HELP lightrail_agent_idle_closes_total Each remote DC's agent: "
    "connections kept idle that it closed (its idle timeout, a restart), "
    "each replaced by a new one with no failure; lightraild logs them as "
    "it sees them, with the agent's words.  From 0 again with a new "
    "network.  Seen when the planner last had the agents.\n"
    "# TYPE lightrail_agent_idle_closes_total counter\n",
    agent_idle_closes_value,
};

static void
put_agent_family(struct nb_app *app, char **buf, size_t *len, size_t *cap,
                 const struct agent_family *f)
{
    struct lr_ctl_agent_status st;
    bool first = true;
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        if (lr_ctl_agent_status(app->ctl, k, &st))
            continue;
        if (first)
            put(buf, len, cap, "%s", f->head);
        first = false;
        char dc[2 * LR_NAME_MAX + 1];
        nb_metrics_label(st.dc, dc, sizeof dc);
        put(buf, len, cap, "%s{dc=\"%s\"} %u\n", f->name, dc, f->value(&st));
    }
}

/* Each ROADM's health (lr_ctl_device_status): up, its operations by
 * result, the media channels the jobs hold there.  Each status is asked
 * once: it counts the channels over every job. */
static void
put_devices(struct nb_app *app, char **buf, size_t *len, size_t *cap)
{
    int n = lr_ctl_devices(app->ctl);
    struct lr_ctl_device_status *st = n > 0 ? calloc((size_t) n, sizeof *st)
                                            : NULL;
    /* Labels: each character escaped is two. */
    char (*dev)[2 * 64] = n > 0 ? calloc((size_t) n, sizeof *dev) : NULL;
    if (!st || !dev)
        goto cleanup;
    for (int i = 0; i < n; i++)
        if (!lr_ctl_device_status(app->ctl, i, &st[i]))
            nb_metrics_label(st[i].name, dev[i], sizeof dev[i]);
    put(buf, len, cap, "# HELP lightrail_device_up Each ROADM: 0 when the "
        "last operation on it (apply, read) got no answer "
        "(unreachable, session broken or refused, timed out), else 1 (a "
        "refusal is an answer); the state's device list says why.\n"
        "# TYPE lightrail_device_up gauge\n");
    for (int i = 0; i < n; i++) {
        char drv[2 * 32];
        if (!st[i].name)
            continue;
        nb_metrics_label(st[i].driver, drv, sizeof drv);
        put(buf, len, cap, "lightrail_device_up{device=\"%s\",driver=\"%s\"} "
            "%d\n", dev[i], drv, st[i].up ? 1 : 0);
    }
    put(buf, len, cap, "# HELP lightrail_device_operations_total Operations "
        "on each ROADM since the start, by result (failed: refused or "
        "unanswered).\n"
        "# TYPE lightrail_device_operations_total counter\n");
    for (int i = 0; i < n; i++)
        if (st[i].name)
            put(buf, len, cap, "lightrail_device_operations_total{device="
                "\"%s\",result=\"ok\"} %llu\n"
                "lightrail_device_operations_total{device=\"%s\","
                "result=\"failed\"} %llu\n", dev[i],
                st[i].ops - st[i].failures, dev[i], st[i].failures);
    put(buf, len, cap, "# HELP lightrail_device_media_channels Media "
        "channels the jobs hold on each ROADM (or are adding or removing "
        "there), from their plans.\n"
        "# TYPE lightrail_device_media_channels gauge\n");
    for (int i = 0; i < n; i++)
        if (st[i].name)
            put(buf, len, cap, "lightrail_device_media_channels{device="
                "\"%s\"} %d\n", dev[i], st[i].channels);

cleanup:
    free(st);
    free(dev);
}

static void
h_metrics(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    (void) req;
    if (!buf) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    buf[0] = '\0';
    const struct lr_job **jobs = NULL;
    int n = 0;
    lr_ctl_list_refs(app->ctl, &jobs, &n);
    static const enum lr_job_phase phases[] = {
        LR_JOB_PROVISIONING, LR_JOB_ACTIVE, LR_JOB_RELEASING,
        LR_JOB_BLOCKED, LR_JOB_FAILED,
    };
    put(&buf, &len, &cap, "# HELP lightrail_jobs Jobs by phase.\n"
        "# TYPE lightrail_jobs gauge\n");
    for (size_t p = 0; p < sizeof phases / sizeof *phases; p++) {
        int count = 0;
        for (int j = 0; j < n; j++)
            count += jobs[j]->phase == phases[p];
        put(&buf, &len, &cap, "lightrail_jobs{phase=\"%s\"} %d\n",
            lr_job_phase_name(phases[p]), count);
    }
    free(jobs);
    /* The jobs tree kept across GETs (lr_yang_job_cache): what it holds
     * (about 150 bytes a node) and how often it spared a build. */
    struct lr_yang_job_cache_stats js;
    lr_yang_job_cache_stats(app->jobs_cache, &js);
    put(&buf, &len, &cap,
        "# HELP lightrail_jobs_cache_nodes Data nodes of the jobs trees "
        "kept across GETs (about 150 bytes each), until the jobs change.\n"
        "# TYPE lightrail_jobs_cache_nodes gauge\n"
        "lightrail_jobs_cache_nodes %zu\n"
        "# HELP lightrail_jobs_cache_gets_total GETs of every job, or with "
        "a where or a sort-by, by the jobs tree they were answered from: "
        "the one kept since an earlier GET, or one built for them.\n"
        "# TYPE lightrail_jobs_cache_gets_total counter\n"
        "lightrail_jobs_cache_gets_total{tree=\"kept\"} %llu\n"
        "lightrail_jobs_cache_gets_total{tree=\"built\"} %llu\n"
        "# HELP lightrail_jobs_cache_too_large_total Jobs trees not kept "
        "for their size (past lightraild's bound): each GET builds "
        "them again.\n"
        "# TYPE lightrail_jobs_cache_too_large_total counter\n"
        "lightrail_jobs_cache_too_large_total %llu\n",
        js.nodes, js.hits, js.builds, js.too_large);
    const struct lr_ctl_counters *c = lr_ctl_counters(app->ctl);
    put(&buf, &len, &cap,
        "# HELP lightrail_admissions_total Jobs admitted and provisioned.\n"
        "# TYPE lightrail_admissions_total counter\n"
        "lightrail_admissions_total %llu\n"
        "# HELP lightrail_blocks_total Jobs blocked, by reason.\n"
        "# TYPE lightrail_blocks_total counter\n"
        "lightrail_blocks_total{reason=\"gpus\"} %llu\n"
        "lightrail_blocks_total{reason=\"plan\"} %llu\n"
        "lightrail_blocks_total{reason=\"spectrum\"} %llu\n"
        "# HELP lightrail_failures_total Jobs a device refused.\n"
        "# TYPE lightrail_failures_total counter\n"
        "lightrail_failures_total %llu\n"
        "# HELP lightrail_deletes_total Jobs released.\n"
        "# TYPE lightrail_deletes_total counter\n"
        "lightrail_deletes_total %llu\n"
        "# HELP lightrail_reconciles_total Reconciliations with the devices "
        "ended.\n"
        "# TYPE lightrail_reconciles_total counter\n"
        "lightrail_reconciles_total %llu\n"
        "# HELP lightrail_reconcile_drift_total Differences between the "
        "devices and the store that reconciliations found.\n"
        "# TYPE lightrail_reconcile_drift_total counter\n"
        "lightrail_reconcile_drift_total %llu\n"
        "# HELP lightrail_reconcile_reinstalled_total Channels of active "
        "jobs a start installed again on ROADMs whose driver's record "
        "starts empty (mnoptical), and those a reconcile with reinstall "
        "sent again: no drift, not counted in "
        "lightrail_reconcile_drift_total.\n"
        "# TYPE lightrail_reconcile_reinstalled_total counter\n"
        "lightrail_reconcile_reinstalled_total %llu\n"
        "# HELP lightrail_reconciles_periodic_total Reconciliations of "
        "reconcile-interval's timer ended (lightrail_reconciles_total "
        "counts them too).\n"
        "# TYPE lightrail_reconciles_periodic_total counter\n"
        "lightrail_reconciles_periodic_total %llu\n"
        "# HELP lightrail_reconcile_periodic_failures_total Periodic "
        "reconciliations that ended in an error: a device that could not "
        "be read or refused its repair (the log says which).\n"
        "# TYPE lightrail_reconcile_periodic_failures_total counter\n"
        "lightrail_reconcile_periodic_failures_total %llu\n"
        "# HELP lightrail_reconcile_periodic_skipped_total Ticks of "
        "reconcile-interval's timer skipped because the last periodic "
        "reconciliation was still queued or running (rising: the interval "
        "is too short for the devices).\n"
        "# TYPE lightrail_reconcile_periodic_skipped_total counter\n"
        "lightrail_reconcile_periodic_skipped_total %llu\n",
        c->admissions, c->blocks_gpus, c->blocks_plan, c->blocks_spectrum,
        c->failures, c->deletes, c->reconciles, c->drift, c->reinstalled,
        app->periodic_reconciles, app->periodic_reconcile_failures,
        app->periodic_reconcile_skips);
    put(&buf, &len, &cap,
        "# HELP lightrail_tls_timer_wakes_total Wakes of the timer that "
        "judges the connections kept to the agents again (a CRL's next "
        "update, a peer certificate's notAfter, the wall clock read "
        "every 10 s meanwhile); it rests while there is nothing to "
        "judge.\n"
        "# TYPE lightrail_tls_timer_wakes_total counter\n"
        "lightrail_tls_timer_wakes_total %llu\n", app->tls_timer_wakes);
    put(&buf, &len, &cap,
        "# HELP lightrail_ppo_decisions_total Intents for algorithm ppo, by "
        "what planned them: the policy's candidate, the policy's refusal, "
        "or CDynP instead (the job's planner-note says why).\n"
        "# TYPE lightrail_ppo_decisions_total counter\n"
        "lightrail_ppo_decisions_total{outcome=\"candidate\"} %llu\n"
        "lightrail_ppo_decisions_total{outcome=\"refused\"} %llu\n"
        "lightrail_ppo_decisions_total{outcome=\"cdynp\"} %llu\n"
        "# HELP lightrail_ppo_stale_decisions_total Rollout decisions that "
        "found the network changed when they ended: their choice kept, or "
        "decided again by the policy alone.\n"
        "# TYPE lightrail_ppo_stale_decisions_total counter\n"
        "lightrail_ppo_stale_decisions_total{then=\"kept\"} %llu\n"
        "lightrail_ppo_stale_decisions_total{then=\"redecided\"} %llu\n"
        "# HELP lightrail_agent_release_failures_total RELEASEs of a job's "
        "commitment an agent did not confirm (unreachable, or refused), "
        "each try counted: it may still hold the job's devices.  One it "
        "did not answer is tried again with the agents' next turn "
        "(lightrail_agent_releases_retrying), up to %d times.\n"
        "# TYPE lightrail_agent_release_failures_total counter\n"
        "lightrail_agent_release_failures_total %llu\n"
        "# HELP lightrail_agent_releases_given_up_total RELEASEs an agent "
        "never answered, tried %d times (or when the agents were replaced "
        "or lightraild stopped): it holds the job's devices until "
        "lightraild starts again (KEEP), a job of the same name commits "
        "there, or it restarts without --state-dir.\n"
        "# TYPE lightrail_agent_releases_given_up_total counter\n"
        "lightrail_agent_releases_given_up_total %llu\n"
        "# HELP lightrail_plans_off_loop_total Plans made off the event "
        "loop before their admission and kept for it.\n"
        "# TYPE lightrail_plans_off_loop_total counter\n"
        "lightrail_plans_off_loop_total %llu\n"
        "# HELP lightrail_intents_planning Intents waiting for their plan, "
        "the one being planned included (their POST not yet answered).\n"
        "# TYPE lightrail_intents_planning gauge\n"
        "lightrail_intents_planning %d\n"
        "# HELP lightrail_agent_releases_pending RELEASEs to the agents "
        "never tried, waiting for the planner's thread, and those being "
        "sent there (those a plan took along count until it ends).\n"
        "# TYPE lightrail_agent_releases_pending gauge\n"
        "lightrail_agent_releases_pending %d\n"
        "# HELP lightrail_agent_releases_retrying RELEASEs an agent did "
        "not answer, waiting for the agents' next turn to be tried again.\n"
        "# TYPE lightrail_agent_releases_retrying gauge\n"
        "lightrail_agent_releases_retrying %d\n"
        "# HELP lightrail_agent_keeps_due Agents that did not answer the "
        "KEEP sent at start: the agents' next turn (a plan, RELEASEs) "
        "carries one to them (until then they may hold devices for jobs "
        "deleted before the start).\n"
        "# TYPE lightrail_agent_keeps_due gauge\n"
        "lightrail_agent_keeps_due %d\n",
        c->ppo_candidate, c->ppo_refused, c->ppo_cdynp, c->ppo_stale_kept,
        c->ppo_stale_redecided, LR_CTL_RELEASE_TRIES,
        c->agent_release_failures, LR_CTL_RELEASE_TRIES,
        c->agent_releases_given_up, c->plans_off_loop, app->n_planning,
        lr_ctl_releases_pending(app->ctl),
        lr_ctl_releases_retrying(app->ctl), lr_ctl_keeps_due(app->ctl));
    put_agent_family(app, &buf, &len, &cap, &agent_up);
    put_agent_family(app, &buf, &len, &cap, &agent_idle_closes);
    put_devices(app, &buf, &len, &cap);
    struct lr_ctl_ppo_info pi;
    if (!lr_ctl_ppo_info(app->ctl, &pi))
        put(&buf, &len, &cap,
            "# HELP lightrail_ppo_policy_usable Whether the configured ppo "
            "policy decides intents for ppo (0: they are planned by CDynP; "
            "the state's ppo-policy says why).\n"
            "# TYPE lightrail_ppo_policy_usable gauge\n"
            "lightrail_ppo_policy_usable %d\n"
            "# HELP lightrail_ppo_policy_reloads_total Reloads that replaced "
            "the ppo policy (SIGHUP, reload-ppo-policy).\n"
            "# TYPE lightrail_ppo_policy_reloads_total counter\n"
            "lightrail_ppo_policy_reloads_total %lu\n",
            pi.usable ? 1 : 0, pi.reloads);
    long used, total;
    lr_spectrum_usage(lr_ctl_rsa(app->ctl)->sp, &used, &total);
    put(&buf, &len, &cap,
        "# HELP lightrail_spectrum_utilisation Share of slots booked over "
        "all links.\n# TYPE lightrail_spectrum_utilisation gauge\n"
        "lightrail_spectrum_utilisation %.6f\n",
        total ? (double) used / total : 0.0);
    put_emulated(app, &buf, &len, &cap);
    put(&buf, &len, &cap,
        "# HELP lightrail_http_pending Requests whose answer waits for "
        "work off the event loop (devices) now.\n"
        "# TYPE lightrail_http_pending gauge\n"
        "lightrail_http_pending %d\n", nb_server_pending(app->srv));
    char *more = NULL;
    size_t more_len = 0;
    if (!nb_server_metrics(app->srv, &more, &more_len) && more) {
        put(&buf, &len, &cap, "%s", more);
        free(more);
    }
    resp->status = 200;
    resp->body = buf;
    resp->content_type = "text/plain; version=0.0.4";
}

/* RFC 8040 3.1: where the RESTCONF root is.  Public: it says only that
 * the root is /restconf, which every client of lightraild is told
 * anyway, and a client asks it before it knows where its token goes;
 * everything under the root wants the token. */
static void
h_host_meta(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    (void) arg;
    (void) req;
    resp->body = strdup("<XRD xmlns='http://docs.oasis-open.org/ns/xri/"
                        "xrd-1.0'>\n    <Link rel='restconf' "
                        "href='/restconf'/>\n</XRD>\n");
    if (!resp->body) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    resp->status = 200;
    resp->content_type = "application/xrd+xml";
}

/* A body of lr_yang_restconf.h's printers, or their refusal as a 500
 * (out of memory too: RFC 8040 section 7 gives 500 operation-failed,
 * resource-denied only 409). */
static void
api_reply(struct nb_response *resp, int rc, char *out, const char *err)
{
    if (rc)
        nb_error(resp, 500, "operation-failed", NULL, "%s", err);
    else
        json_reply(resp, 200, out);
}

bool
nb_restconf_error_check(void *arg, int status, const char *body)
{
    struct nb_app *app = arg;
    char err[512];
    if (!lr_yang_errors_check(app->ly, status, body, err, sizeof err))
        return true;
    /* Loud, as tests/cli/api.sh looks for it after every request. */
    lr_log(LR_LOG_ERR, "error body invalid (a bug): a %d's body is no "
           "ietf-restconf:errors (RFC 8040 7.1): %s; sent: %s", status,
           err, LR_UTF8_CLIP(body, 300));
    return false;
}

/* GET /restconf, the API resource (RFC 8040 3.3). */
static void
h_api(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    char *out = NULL, err[256];
    (void) req;
    int rc = lr_yang_api_to_json(app->ly, &out, err, sizeof err);
    api_reply(resp, rc, out, err);
}

/* GET /restconf/yang-library-version (RFC 8040 3.3.3). */
static void
h_api_version(void *arg, const struct nb_request *req,
              struct nb_response *resp)
{
    struct nb_app *app = arg;
    char *out = NULL, err[256];
    (void) req;
    int rc = lr_yang_api_version_to_json(app->ly, &out, err, sizeof err);
    api_reply(resp, rc, out, err);
}

/* RFC 8040 9.1.1's capabilities of this server: RFC 6243's basic mode
 * of its answers, then one URI per optional query parameter it supports
 * (no filter or replay: it has no event stream; with-origin, RFC 8527
 * 3.2.2, on the operational datastore, h_ds).  The basic mode is
 * report-all: every printer sets each leaf it holds, one left at its
 * default by the client included (a job's priority 0, a link's
 * first-slot-n -291), so no data node is default data in RFC 6243
 * 2.1's sense. */
static const char *const nb_capabilities[] = {
    "urn:ietf:params:restconf:capability:defaults:1.0?basic-mode=report-all",
    "urn:ietf:params:restconf:capability:depth:1.0",
    "urn:ietf:params:restconf:capability:fields:1.0",
    "urn:ietf:params:restconf:capability:with-defaults:1.0",
    "urn:ietf:params:restconf:capability:with-origin:1.0",
};

/* GET .../ietf-restconf-monitoring:restconf-state and its capabilities
 * (RFC 8040 9): content, depth, fields and with-defaults cut it as any
 * data resource, and its tag is the digest of what is sent
 * (tagged_reply()), no date; streams is empty
 * (lr_yang_restconf_state_to_json()). */
static void
h_restconf_state(void *arg, const struct nb_request *req,
                 struct nb_response *resp)
{
    struct nb_app *app = arg;
    char *out = NULL, err[512];
    struct nb_read rd;
    if (read_query(req, resp, &rd))
        return;
    int rc = lr_yang_restconf_state_to_json(
        app->ly, nb_capabilities,
        (int) (sizeof nb_capabilities / sizeof *nb_capabilities),
        strcmp(req->path, RCMON) != 0, &out, err, sizeof err);
    if (rc)
        api_reply(resp, rc, NULL, err);
    else if (!read_cut(app, &rd, false, &out, resp))
        tagged_reply(req, resp, out);
}

/* Defined after the table they read (h_datastore through
 * h_yang_library, h_ds). */
static nb_handler h_operations, h_yang_library, h_datastore, h_ds;
static nb_exists ds_exists;

static struct nb_route routes[] = {
    { NB_GET | NB_POST, JOBS, NULL, false,
      NB_PAGE_PARAMS " " NB_READ_PARAMS, true, NULL, NULL },
    { NB_GET, JOB_LIST, h_job_list, false, NB_PAGE_PARAMS " " NB_READ_PARAMS,
      true, NULL, NULL },
    { NB_GET | NB_DELETE, JOB, h_job, false, NB_READ_PARAMS, true, NULL,
      NULL },
    { NB_GET | NB_PUT, "/restconf/data/ietf-network:networks", h_topology,
      false, NB_READ_PARAMS, true, NULL, NULL },
    { NB_GET | NB_PUT, "/restconf/data/lightrail-compute:compute", h_compute,
      false, NB_READ_PARAMS, true, NULL, NULL },
    { NB_GET, "/restconf/data/lightrail-state:state", h_state, false,
      NB_READ_PARAMS, false, NULL, NULL },
    { NB_POST, "/restconf/operations/lightrail-job:reconcile", h_reconcile,
      false, "dry-run", false, NULL, NULL },
    { NB_POST, "/restconf/operations/lightrail-state:reload-ppo-policy",
      h_reload, false, NULL, false, NULL, NULL },
    { NB_GET, "/metrics", h_metrics, true, NULL, false, NULL, NULL },
    { NB_GET, "/.well-known/host-meta", h_host_meta, true, NULL, false,
      NULL, NULL },
    { NB_GET, "/restconf", h_api, false, NULL, false, NULL, NULL },
    { NB_GET, "/restconf/yang-library-version", h_api_version, false, NULL,
      false, NULL, NULL },
    { NB_GET, "/restconf/operations", h_operations, false, NULL, false,
      NULL, NULL },
    { NB_GET, YLIB, h_yang_library, false, NB_READ_PARAMS, false, NULL,
      NULL },
    { NB_GET, YLIB_STATE, h_yang_library, false, NB_READ_PARAMS, false,
      NULL, NULL },
    { NB_GET, RCMON, h_restconf_state, false, NB_READ_PARAMS, true,
      RCMON_WRITES, NULL },
    { NB_GET, RCMON "/capabilities", h_restconf_state, false,
      NB_READ_PARAMS, true, RCMON_WRITES, NULL },
    { NB_GET, "/restconf/data", h_datastore, false, NB_READ_PARAMS, true,
      NULL, NULL },
    /* The datastores take what /restconf/data takes, operational
     * with-origin too; below them ds_exists() names what the resource
     * there takes (the rows' NULL is never used), and for running's
     * datastore and resources why with-origin is not among it. */
    { NB_GET, DS DS_OPERATIONAL, h_ds, false,
      NB_READ_PARAMS " " DS_WITH_ORIGIN, true, DS_READ_ONLY, NULL },
    { NB_GET, DS DS_OPERATIONAL "/", h_ds, false, NULL, true,
      DS_READ_ONLY, ds_exists },
    { NB_GET, DS DS_RUNNING, h_ds, false, NB_READ_PARAMS, true, DS_WRITES,
      ds_exists },
    { NB_GET, DS DS_RUNNING "/", h_ds, false, NULL, true, DS_WRITES,
      ds_exists },
    /* Any other datastore, or one sent percent-encoded: ds_exists()'s
     * 404 names those served, to any method and query. */
    { NB_GET, DS, h_ds, false, NULL, true, NULL, ds_exists },
};

#define N_ROUTES (sizeof routes / sizeof *routes)

/* GET /restconf/operations (RFC 8040 3.3.2): the operations of the
 * table's rows, "module:operation" as their paths name them. */
static void
h_operations(void *arg, const struct nb_request *req,
             struct nb_response *resp)
{
    struct nb_app *app = arg;
    const char *ops[N_ROUTES];
    char *out = NULL, err[256];
    int n = 0;
    (void) req;
    for (size_t i = 0; i < N_ROUTES; i++)
        if (!strncmp(routes[i].path, OPS, strlen(OPS)))
            ops[n++] = routes[i].path + strlen(OPS);
    int rc = lr_yang_api_operations_to_json(app->ly, ops, n, &out, err,
                                            sizeof err);
    api_reply(resp, rc, out, err);
}

/* The modules a YANG library of the API lists into mods[] (N_ROUTES + 3
 * room; the names borrowed from names[] or static): those the table's
 * resources and operations name (the library's own included), and the
 * three whose nodes the answers carry though no path names them.  Their
 * count. */
static int
api_modules(char names[][64], const char **mods)
{
    int n = 0;
    for (size_t i = 0; i < N_ROUTES; i++) {
        const char *p = routes[i].path;
        if (!strncmp(p, DATA, strlen(DATA)))
            p += strlen(DATA);
        else if (!strncmp(p, OPS, strlen(OPS)))
            p += strlen(OPS);
        else
            continue;
        /* Every row there names its module ("module:node"); one that
         * did not, or longer than a name, would name no module. */
        size_t len = strcspn(p, ":");
        bool seen = !p[len] || len >= sizeof names[0];
        for (int k = 0; k < n && !seen; k++)
            seen = strlen(names[k]) == len && !strncmp(names[k], p, len);
        if (seen)
            continue;
        snprintf(names[n], sizeof names[n], "%.*s", (int) len, p);
        mods[n] = names[n];
        n++;
    }
    /* No resource's path names ietf-netconf-with-defaults nor
     * ietf-origin, but with-defaults=report-all-tagged's answers carry
     * the former's 'default' tag (RFC 8040 4.8.9), with-origin's the
     * latter's 'origin' (RFC 8527 3.2.2). */
    mods[n++] = "ietf-netconf-with-defaults";
    mods[n++] = "ietf-origin";
    /* Nor ietf-restconf, whose yang-data templates every body of the API
     * resource (yang-api) and every error body (yang-errors) is (RFC
     * 8040 8); RFC 8040 servers list it. */
    mods[n++] = "ietf-restconf";
    return n;
}

/* GET /restconf/data/ietf-yang-library:yang-library (RFC 8040 section
 * 10, RFC 8525): the library of the modules the table's resources and
 * operations name (this one's included), with what they need; at
 * .../ietf-yang-library:modules-state, the same modules as RFC 7895's
 * library, deprecated by RFC 8525 but what older clients read. */
static void
h_yang_library(void *arg, const struct nb_request *req,
               struct nb_response *resp)
{
    struct nb_app *app = arg;
    char names[N_ROUTES][64], *out = NULL, err[512];
    const char *mods[N_ROUTES + 3];
    struct nb_read rd;
    if (read_query(req, resp, &rd))
        return;
    int n = api_modules(names, mods);
    int rc = strcmp(req->path, YLIB_STATE)
             ? lr_yang_library_to_json(app->ly, mods, n, &out, err,
                                       sizeof err)
             : lr_yang_modules_state_to_json(app->ly, mods, n, &out, err,
                                             sizeof err);
    if (rc || !read_cut(app, &rd, false, &out, resp))
        api_reply(resp, rc, out, err);
}

/* The datastore's member for both of the YANG library's resources
 * (yang-library and modules-state, one object holding the two), as
 * their GETs without a query answer them, but from one build of the
 * library: building it is most of either answer's time.  The answer in
 * 'part': 200 with the text, or the 500 h_yang_library() gives. */
static void
yang_library_both(struct nb_app *app, struct nb_response *part)
{
    char names[N_ROUTES][64], *out = NULL, err[512];
    const char *mods[N_ROUTES + 3];
    int n = api_modules(names, mods);
    int rc = lr_yang_library_both_to_json(app->ly, mods, n, &out, err,
                                          sizeof err);
    api_reply(part, rc, out, err);
}

/* GET and POST on the jobs list share a path: dispatch on the method. */
static void
h_jobs(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    /* The row has validators for its GET (a page's tag); a POST has no
     * tag to match, as a route without them (nb_server.c). */
    if (req->method == NB_POST && nb_cond_check_untagged(req, resp))
        return;
    if (req->method == NB_POST && read_query_refused(req, resp))
        return;
    if (req->method == NB_POST && req->query && *req->query)
        /* The row takes the pagination parameters for GET only.  A
         * parameter a request does not take is invalid-value, as the
         * server's own check says (nb_server.c): RFC 8040 section 7
         * gives operation-not-supported 405 or 501, never 400. */
        nb_error(resp, 400, "invalid-value", NULL, "list "
                 "pagination (limit, offset, direction, ...) applies to GET "
                 "of the jobs list; send the POST without a query");
    else if (req->method == NB_POST)
        h_jobs_post(arg, req, resp);
    else
        jobs_page(arg, req, resp, false);
}

/* How the text of a GET row's handler 'h' stands to running's
 * configuration, the one list of it: DS_TEXT_ASKED, built without the
 * state on nb_request's config_text (the jobs' rows, container, list
 * and one job: read_config_text()); DS_TEXT_STATELESS, holding none
 * whatever it is asked (the topology, the inventory: no config false
 * node, test_yang_job's "running's topology, inventory and datastore
 * sent as built"); DS_TEXT_STATE for the others (state, not served
 * under running). */
enum ds_text { DS_TEXT_STATE, DS_TEXT_ASKED, DS_TEXT_STATELESS };

static enum ds_text
ds_text_of(nb_handler *h)
{
    if (h == h_jobs || h == h_job_list || h == h_job)
        return DS_TEXT_ASKED;
    if (h == h_topology || h == h_compute)
        return DS_TEXT_STATELESS;
    return DS_TEXT_STATE;
}

/* Which of the datastore's 'n' members 'members' ("module:node") the
 * cut of 'rd' can send anything of (running: within its configuration),
 * as the yang layer judges on the schema (lr_yang_datastore_needs()):
 * need[i] false for one it drops whatever it holds.  0, or the answer
 * in 'resp': fields it refuses are the 400 read_cut() would give. */
static int
datastore_needs(struct nb_app *app, const struct nb_read *rd, bool running,
                const char *const *members, int n, bool *need,
                struct nb_response *resp)
{
    char *fields = NULL, err[1024];
    int rc = 0;
    for (int i = 0; i < n; i++)
        need[i] = true;
    if (running)
        rc = lr_yang_datastore_needs(app->ly, NULL, LR_YANG_CONTENT_CONFIG,
                                     0, members, n, need, err, sizeof err);
    if (!rc)
        rc = read_fields(rd, &fields, err, sizeof err);
    if (!rc)
        rc = lr_yang_datastore_needs(app->ly, fields, read_content(rd),
                                     rd->depth, members, n, need, err,
                                     sizeof err);
    free(fields);
    return read_refused(resp, rc, err);
}

/* The datastore's text (RFC 8040 3.3.1) into '*out' (the caller's to
 * free): the top-level members the data resources serve that the cut
 * of 'rd' (running: within its configuration) can keep any of
 * (datastore_needs(): those it would drop whole are not built, so that
 * fields naming the topology do not print every job), in one object,
 * each as its own GET answers it now (its handler, asked without a
 * query or a precondition: the jobs whole, not a page; without their
 * state when the cut keeps none of it), validated together
 * (lr_yang_datastore_to_json(); running's, lr_yang_running_to_json(),
 * makes no state: its text is its members' as built, side by side).
 * The members hold nothing of one another (no reference crosses
 * them), so the cut of this text is the cut of the whole datastore,
 * byte for byte.
 * When the jobs are the one member built and the query has fields,
 * '*out' is the jobs' own text, not that datastore's: each text is
 * only read by the cut that follows (h_datastore(), h_ds()), which
 * with fields parses it without validation and prints what it keeps,
 * never the text as it came (lr_yang_read_json()).  Their two parses
 * are one tree as far as that cut goes: the jobs' printer prints what
 * their tree, validated as the datastore's is (lightrail-job alone, no
 * reference to another member), would print (test_yang_job_tree checks
 * it), with the same flags, so the datastore's text adds nothing to it but,
 * to their text without the state, the empty state containers its
 * validation makes (operational's; running's makes none), which a
 * cut that let that text be built drops (read_config_text()).
 * Parsing, validating and printing every job once more was nearly half
 * of such a GET (docs/benchmarks.md "The datastore's jobs alone").  0, or the
 * answer in 'resp': the query's fields refused, a part built that
 * fails, as its own GET would give it, or a 500. */
static int
datastore_text(struct nb_app *app, const struct nb_request *req,
               const struct nb_read *rd, bool running,
               struct nb_response *resp, char **out)
{
    static const struct {
        nb_handler *handler;
        const char *path;
    } parts[] = {
        { h_topology, DATA "ietf-network:networks" },
        { h_compute, DATA "lightrail-compute:compute" },
        { h_jobs, JOBS },
        { h_state, DATA "lightrail-state:state" },
        { h_yang_library, YLIB },
        { h_yang_library, YLIB_STATE },
        { h_restconf_state, RCMON },
    };
    enum { N_PARTS = sizeof parts / sizeof *parts };
    const char *members[N_PARTS];
    char *docs[N_PARTS] = { NULL }, err[512];
    bool need[N_PARTS], jobs_alone = false;
    int n = 0, rc;
    /* Each path is DATA and the member's name. */
    for (int i = 0; i < N_PARTS; i++)
        members[i] = parts[i].path + strlen(DATA);
    if ((rc = datastore_needs(app, rd, running, members, N_PARTS, need,
                              resp)))
        return rc;
    rc = EIO;
    for (int i = 0; i < N_PARTS; i++) {
        char under[128];
        if (!need[i])
            continue;
        /* yang-library and modules-state, which follow each other in
         * parts[], from one build when the cut keeps both (neither has
         * state to leave out: config false, whole). */
        if (!strcmp(parts[i].path, YLIB) && i + 1 < N_PARTS
            && !strcmp(parts[i + 1].path, YLIB_STATE) && need[i + 1]) {
            struct nb_response part = { .status = 0 };
            yang_library_both(app, &part);
            if (part.status != 200) {
                *resp = part;
                goto cleanup;
            }
            docs[n++] = part.body;
            i++;
            continue;
        }
        /* Built without its state when the cut keeps none of it:
         * running, content=config, fields that select none or a depth
         * that cuts it (a handler that builds so on config_text alone,
         * ds_text_of(): the cut is judged for it alone). */
        snprintf(under, sizeof under, "/%s", members[i]);
        bool config_text = ds_text_of(parts[i].handler) == DS_TEXT_ASKED
                           && (running
                               || !read_keeps_state(app, rd, NULL, under));
        struct nb_request get = { .method = NB_GET, .path = parts[i].path,
                                  .body = "", .principal = req->principal,
                                  .config_text = config_text };
        struct nb_response part = { .status = 0 };
        parts[i].handler(app, &get, &part);
        if (part.status != 200) {
            *resp = part;
            goto cleanup;
        }
        docs[n++] = part.body;
        jobs_alone = n == 1 && parts[i].handler == h_jobs;
    }
    if (n == 1 && jobs_alone && rd->fields) {
        /* The jobs alone under fields (above): their text is taken. */
        *out = docs[0];
        docs[0] = NULL;
        rc = 0;
        goto cleanup;
    }
    rc = (running ? lr_yang_running_to_json : lr_yang_datastore_to_json)(
        app->ly, (const char *const *) docs, n, out, err, sizeof err);
    if (rc)
        api_reply(resp, rc, NULL, err);

cleanup:
    for (int k = 0; k < n; k++)
        free(docs[k]);
    return rc;
}

/* GET /restconf/data, the datastore resource (RFC 8040 3.3.1), as
 * datastore_text() makes it.  The tag is the digest of the text, as a
 * job's (tagged_reply()); there is no Last-Modified, as the state's
 * counters change with no time kept, so the dates of the preconditions
 * are ignored (RFC 9110 13.1.3, 13.1.4: a resource without one).
 * content, depth, fields and with-defaults cut the whole (its members
 * are descendants, level 2; fields name them by their module), and the
 * tag is of what is sent; any other query is a 400 before the handler. */
static void
h_datastore(void *arg, const struct nb_request *req,
            struct nb_response *resp)
{
    struct nb_app *app = arg;
    char *out = NULL;
    struct nb_read rd;
    if (read_query(req, resp, &rd)
        || datastore_text(app, req, &rd, false, resp, &out))
        return;
    if (!read_cut(app, &rd, true, &out, resp))
        tagged_reply(req, resp, out);
}

/* The GET row of /restconf/data that serves 'sub', a path below a
 * datastore (decoded; 'raw_sub' as sent), or NULL.  As the server
 * matches a row: its own part as written in both the decoded and the
 * raw path, only what follows a prefix decoded. */
static const struct nb_route *
ds_data_row(const char *sub, const char *raw_sub)
{
    const size_t dl = strlen(DATA);
    for (size_t i = 0; i < N_ROUTES; i++) {
        const struct nb_route *r = &routes[i];
        size_t len = strlen(r->path);
        if (!(r->methods & NB_GET) || len <= dl
            || strncmp(r->path, DATA, dl))
            continue;
        const char *own = r->path + dl;
        bool prefix = r->path[len - 1] == '=' || r->path[len - 1] == '/';
        if (prefix ? !strncmp(sub, own, len - dl)
                     && !strncmp(raw_sub, own, len - dl)
                   : !strcmp(sub, own) && !strcmp(raw_sub, own))
            return r;
    }
    return NULL;
}

/* The query parameters the resource of 'row' (a GET row of
 * /restconf/data, ds_data_row()) takes below a datastore: the row's,
 * and on operational with-origin (RFC 8527 3.2.2).  Borrowed: the
 * row's, or one built once per row here (the loop's thread alone asks,
 * and a row's query never changes). */
static const char *
ds_query(const struct nb_route *row, bool oper)
{
    /* Every row's list is at most the pagination's and the read
     * parameters (99 bytes): snprintf() could cut only a list far
     * longer than any a row has. */
    static char with_origin[N_ROUTES][256];
    char *q = with_origin[row - routes];
    if (!oper)
        return row->query;
    if (!*q)
        snprintf(q, sizeof with_origin[0], "%s%s" DS_WITH_ORIGIN,
                 row->query ? row->query : "", row->query ? " " : "");
    return q;
}

/* The resource 'sub' (a data path as under /restconf/data, after its
 * '/'; 'raw_sub' the same as sent) of a datastore under /restconf/ds,
 * as the row of the table that serves it under /restconf/data answers
 * a GET of it, into '*out' (the caller's to free): asked without the
 * read parameters (the caller cuts) or a precondition (the caller
 * judges them on what it sends), with the other parameters of the
 * query, which that row takes (the server judged the query by the
 * row's list, ds_exists()); with 'config_only' (running) the
 * row selects as running's (nb_request's config_only: the jobs' where
 * and sort-by judged on their configuration, a query naming state
 * refused before any job is evaluated); with it the row may build its
 * text without the state (nb_request's config_text), and so with 'rd'
 * (the caller's cut, nb_request's cut) when that keeps none of it
 * (content=config, fields that select none, a depth that cuts it).
 * '*config_built' tells whether, with 'config_only', the row built its
 * text without the state (ds_text_of(): the jobs' rows on
 * nb_request's config_text, whatever 'rd'; the topology's and the
 * inventory's have none to leave out); the other rows are state, not
 * served under running.  0, or the answer in 'resp': the row's own
 * refusal (a job not there, a bad page); a path no row serves was
 * ds_exists()'s 404. */
static int
ds_resource_text(struct nb_app *app, const struct nb_request *req,
                 const char *sub, const char *raw_sub, bool config_only,
                 const struct nb_read *rd, struct nb_response *resp,
                 char **out, bool *config_built)
{
    const struct nb_route *row = NULL;
    size_t pl = strlen(DATA) + strlen(sub) + 1;
    size_t rl = strlen(DATA) + strlen(raw_sub) + 1;
    char *path = malloc(pl), *raw = malloc(rl), *query = NULL;
    int rc = EINVAL;
    if (!path || !raw) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    snprintf(path, pl, DATA "%s", sub);
    snprintf(raw, rl, DATA "%s", raw_sub);
    /* ds_exists() answered 404 for a path no row serves. */
    if (!(row = ds_data_row(sub, raw_sub))) {
        nb_error(resp, 500, "operation-failed", NULL, "no row serves "
                 "a path ds_exists() took");
        goto cleanup;
    }
    /* The row's parameters pass to its handler; content, depth and
     * fields are the caller's, which cuts the text for the datastore. */
    if (req->query && !(query = calloc(1, strlen(req->query) + 1))) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        goto cleanup;
    }
    for (const char *p = req->query; p && *p;) {
        size_t end = strcspn(p, "&"), n = strcspn(p, "&=");
        if (n && !nb_word_in(NB_READ_PARAMS " " DS_WITH_ORIGIN, p, n)) {
            if (*query)
                strcat(query, "&");
            strncat(query, p, end);
        }
        p += end;
        p += *p == '&';
    }
    struct nb_request get = { .method = NB_GET, .path = path,
                              .raw_path = raw, .body = "",
                              .query = query && *query ? query : NULL,
                              .principal = req->principal,
                              .config_only = config_only,
                              .config_text = config_only,
                              .cut = rd };
    struct nb_response part = { .status = 0 };
    row->handler(app, &get, &part);
    if (part.status != 200) {
        *resp = part;
        goto cleanup;
    }
    *out = part.body;
    *config_built = config_only
                    && ds_text_of(row->handler) != DS_TEXT_STATE;
    rc = 0;

cleanup:
    free(path);
    free(raw);
    free(query);
    return rc;
}

/* Whether 'sub', the path of 'req' below a datastore served (decoded;
 * past the datastore's '/'), names a resource the datastore has: one a
 * GET row of /restconf/data serves (ds_data_row()), and under running
 * no state (config false) top node (RFC 8342 5.1.3).  true, with what
 * that resource takes in 'rule->taken' (ds_query()), or false with a
 * 404 in 'resp' saying what there is, for every method and query alike
 * (ds_exists()), as /restconf/data's unknown paths are: its entries (a
 * job of that name) are judged by the row's handler. */
static bool
ds_resource_exists(struct nb_app *app, const struct nb_request *req,
                   const char *sub, struct nb_query_rule *rule,
                   struct nb_response *resp)
{
    bool running = !strncmp(req->path + strlen(DS), DS_RUNNING "/",
                            strlen(DS_RUNNING) + 1);
    /* ds_exists() matched the datastore's segment as written: the raw
     * path holds it as the decoded one does. */
    const char *raw_sub = req->raw_path ? req->raw_path + (sub - req->path)
                                        : sub;
    size_t top = strcspn(sub, "/=");
    char node[128], err[512];
    bool config = true;
    snprintf(node, sizeof node, "%.*s",
             (int) (top < sizeof node ? top : sizeof node - 1), sub);
    if (running && !lr_yang_top_config(app->ly, node, &config, err,
                                       sizeof err) && !config) {
        nb_error(resp, 404, "invalid-value", NULL, "%s is state "
                 "(config false): the running datastore holds "
                 "configuration only; GET " DS DS_OPERATIONAL "/%s", node,
                 sub);
        return false;
    }
    const struct nb_route *row = ds_data_row(sub, raw_sub);
    if (!row) {
        nb_error(resp, 404, "invalid-value", NULL, "no resource at "
                 "this path: below a datastore, lightraild serves the "
                 "resources of /restconf/data (GET /restconf/data/%s has "
                 "none either)", sub);
        return false;
    }
    rule->taken = ds_query(row, !running);
    return true;
}

/* Whether the path of 'req', under /restconf/ds, names a datastore
 * lightraild serves (the catch-all row's nb_exists, asked by the server
 * before OPTIONS, the method and the query are judged, and by h_ds):
 * true, or false with a 404 in 'resp' naming those served.  The server
 * matched the rows of the two datastores as written; one sent
 * percent-encoded (ietf-datastores%3Arunning, or its separator
 * ietf-datastores:running%2F...) matched only the catch-all, which
 * matches anything: no datastore, as the server would say of
 * /restconf/data's resources sent so.  The comparison runs through the
 * separator: past it the raw path is where the decoded one is.  Below
 * a datastore served, the resource must be (ds_resource_exists()),
 * and 'rule' says what it takes there; running's datastore and its
 * resources refuse with-origin with advice (the server's 400, its
 * words: operational's alone).  The rows of both datastores' paths
 * ask too; h_ds asks again.  'arg' is the nb_app. */
static bool
ds_exists(void *arg, const struct nb_request *req,
          struct nb_query_rule *rule, struct nb_response *resp)
{
    const char *name = req->path + strlen(DS);
    const char *rest = name + strcspn(name, "/");
    size_t n = (size_t) (rest - name);
    bool running = n == strlen(DS_RUNNING) && !strncmp(name, DS_RUNNING, n);
    bool known = running || (n == strlen(DS_OPERATIONAL)
                             && !strncmp(name, DS_OPERATIONAL, n));
    bool encoded = req->raw_path
                   && strncmp(req->raw_path, req->path,
                              (size_t) (rest - req->path) + (*rest != '\0'));
    if (known && !encoded) {
        if (running) {
            rule->refused = DS_WITH_ORIGIN;
            rule->advice = DS_WITH_ORIGIN_ADVICE;
        }
        return !*rest || ds_resource_exists(arg, req, rest + 1, rule,
                                            resp);
    }
    /* The first segment as sent: what the client should look at. */
    const char *seg = encoded ? req->raw_path + strlen(DS) : name;
    size_t sl = encoded ? strcspn(seg, "/") : n;
    nb_error(resp, 404, "invalid-value", NULL, "no datastore '%.*s'%s "
             "here: " DS_SERVED, (int) (sl < 80 ? sl : 80), seg, encoded
             ? " sent percent-encoded (send it as written)" : "");
    return false;
}

/* GET /restconf/ds/<datastore>[/<path>] (RFC 8527 3.1): 'operational'
 * is /restconf/data's text (the datastore, or the resource at 'path'),
 * 'running' the same with only its configuration, the cut of content
 * config (RFC 8342 5.1.3: running holds config true nodes only; a
 * resource that is state, config false, is not in it: 404).  Both take
 * content, depth, fields and with-defaults as /restconf/data does,
 * running's cutting within its configuration (nonconfig leaves the
 * target and its keys).
 * The tag is the digest of what is sent (tagged_reply()), no date, as
 * the datastore resource's.  with-origin (RFC 8527 3.2.2), on
 * operational alone and without a value, annotates the configuration
 * nodes of the answer with their origin after every other cut
 * (lr_yang_read_json()); running's rows do not take it (the server's
 * 400, saying where to send it, ds_exists()).  Writes are 405
 * (the rows say where they go); a datastore lightraild does not have is
 * 404 naming those it serves. */
static void
h_ds(void *arg, const struct nb_request *req, struct nb_response *resp)
{
    struct nb_app *app = arg;
    const char *name = req->path + strlen(DS), *v;
    const char *rest = name + strcspn(name, "/");
    size_t n = (size_t) (rest - name), vl;
    bool running = n == strlen(DS_RUNNING) && !strncmp(name, DS_RUNNING, n);
    struct nb_query_rule rule = { NULL };
    char *out = NULL;
    struct nb_read rd;
    bool config_built = false;
    if (!ds_exists(app, req, &rule, resp))
        return;
    /* Only operational's rows take it (the server judged the name). */
    bool origin = nb_query_value(req->query, DS_WITH_ORIGIN, &v, &vl);
    if (origin && v) {
        nb_error(resp, 400, "invalid-value", NULL, "with-origin takes no "
                 "value (RFC 8527 3.2.2), not '%s': send it alone, "
                 "?with-origin", NB_QUERY_CLIP(v, vl, 64));
        return;
    }
    if (read_query(req, resp, &rd))
        return;
    rd.with_origin = origin;
    if (!*rest) {
        /* Running's members are built without the state (the jobs) or
         * have none (the topology, the inventory), and their validation
         * together makes none (lr_yang_running_to_json()). */
        if (datastore_text(app, req, &rd, running, resp, &out))
            return;
        config_built = running;
    } else {
        const char *sub = rest + 1;
        /* The server matched this row's prefix as written: the raw path
         * holds it as the decoded one does.  ds_exists() above judged
         * the resource there (state under running, no row: 404). */
        const char *raw = req->raw_path ? req->raw_path + (sub - req->path)
                                        : sub;
        if (ds_resource_text(app, req, sub, raw, running, &rd, resp, &out,
                             &config_built))
            return;
    }
    if (running) {
        /* Configuration only, with-defaults' defaults added to it (not
         * state ones: content config) but not tagged yet (the tag is no
         * annotation the next parse knows), then the query's cut within
         * it (fields before depth: the cut of one pass, read_cut()'s
         * order), which tags.  That second cut's content all is config
         * (running has nothing else, and a report-all then adds no state
         * default); its nonconfig leaves the targets and their keys,
         * which have no default to add, trim or tag. */
        const struct nb_read cfg = {
            .content = NB_CONTENT_CONFIG,
            .with_defaults = rd.with_defaults == NB_WD_REPORT_ALL_TAGGED
                             ? NB_WD_REPORT_ALL : rd.with_defaults,
        };
        /* A text built without the state (the jobs', the topology's,
         * the inventory's, running's datastore of them) is not cut to
         * 'cfg' first: the query's cut below, within the configuration
         * too, is that cut and then its own in one pass, byte for byte,
         * or refuses its fields alike (test_yang_job's "running's text
         * built without the state cut once": with-defaults trim,
         * report-all and report-all-tagged, content config and
         * nonconfig; docs/benchmarks.md "Running's trim and report-all
         * cut once"). */
        if (!config_built && read_cut(app, &cfg, !*rest, &out, resp))
            return;
        if (rd.content == NB_CONTENT_ALL)
            rd.content = NB_CONTENT_CONFIG;
        else if (rd.content == NB_CONTENT_NONCONFIG)
            rd.with_defaults = NB_WD_NONE;
        /* The text is the cut to 'cfg' now: made above, or as built
         * when with-defaults adds, trims and tags nothing (none or
         * explicit), byte for byte (test_yang_job's "running's jobs
         * text is its own content=config cut", "running's topology,
         * inventory and datastore sent as built"; docs/benchmarks.md
         * "Running's jobs not cut to what they are").  A query with no
         * fields nor depth, and no tagging (content all or config,
         * with-defaults other than report-all-tagged), is that cut
         * again: the text is its answer already.  Cut twice, it was
         * parsed and printed twice to the same bytes, a fifth to a
         * quarter of such a GET's instructions (docs/benchmarks.md
         * "Work repeated per request"). */
        bool is_cfg_cut = !config_built
                          || cfg.with_defaults == NB_WD_NONE
                          || cfg.with_defaults == NB_WD_EXPLICIT;
        if (is_cfg_cut && read_cut_same(&rd, &cfg)) {
            tagged_reply(req, resp, out);
            return;
        }
    }
    if (!read_cut(app, &rd, !*rest, &out, resp))
        tagged_reply(req, resp, out);
}

const struct nb_route *
nb_restconf_routes(int *n, int metrics_public)
{
    *n = (int) N_ROUTES;
    routes[0].handler = h_jobs;
    for (int i = 0; i < *n; i++)
        if (!strcmp(routes[i].path, "/metrics"))
            routes[i].public = metrics_public != 0;
    return routes;
}
