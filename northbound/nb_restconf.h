/*
 * nb_restconf: the RESTCONF-style resources of lightraild, a table of
 * {method, path, handler} rows over the controller (lr_ctl) and the YANG
 * edge (yang/lr_yang_job.h).
 *
 *   POST   /restconf/data/lightrail-job:jobs            submit an intent
 *   GET    /restconf/data/lightrail-job:jobs            every job, or a
 *                                                       page (?limit,
 *                                                       offset, direction:
 *                                                       nb_query.h)
 *   GET    /restconf/data/lightrail-job:jobs/job        the list resource
 *                                                       (draft-ietf-netconf-
 *                                                       list-pagination-rc):
 *                                                       the same jobs or
 *                                                       page, as
 *                                                       {"lightrail-job:
 *                                                       job":[...]}
 *   GET    /restconf/data/lightrail-job:jobs/job=NAME   one job, with ETag
 *                                                       (304 to If-None-
 *                                                       Match); the jobs'
 *                                                       pages have one too
 *   DELETE /restconf/data/lightrail-job:jobs/job=NAME   release it (412
 *                                                       when If-Match no
 *                                                       longer holds)
 *   GET    /restconf/data/ietf-network:networks         the topology,
 *                                                       with ETag and
 *                                                       Last-Modified (304
 *                                                       to If-None-Match...)
 *   PUT    (same)                                       replace it (409
 *                                                       while jobs hold it;
 *                                                       412 when If-Match
 *                                                       no longer holds)
 *   GET    /restconf/data/lightrail-compute:compute     the inventory (as
 *                                                       the topology)
 *   PUT    (same)                                       replace it (same)
 *   GET    /restconf/data/lightrail-state:state         spectrum, GPUs,
 *                                                       counters
 *   POST   /restconf/operations/lightrail-job:reconcile compare devices
 *                                                       with the store
 *                                                       (input dry-run)
 *   POST   /restconf/operations/lightrail-state:reload-ppo-policy
 *                                                       load the ppo
 *                                                       policy file again
 *   GET    /metrics                                     Prometheus text
 *   GET    /.well-known/host-meta                       the root, as XRD
 *                                                       (RFC 8040 3.1;
 *                                                       public)
 *   GET    /restconf                                    the API resource
 *   GET    /restconf/yang-library-version               (RFC 8040 3.3)
 *   GET    /restconf/operations                         the table's
 *                                                       operations
 *   GET    /restconf/data/ietf-yang-library:yang-library
 *                                                       the modules the
 *                                                       payloads use
 *                                                       (RFC 8525)
 *   GET    /restconf/data                               all of the above
 *                                                       data in one (RFC
 *                                                       8040 3.3.1), with
 *                                                       an ETag
 *   GET    /restconf/ds/ietf-datastores:operational[/PATH]
 *                                                       the same, and the
 *                                                       resources below
 *                                                       it (RFC 8527)
 *   GET    /restconf/ds/ietf-datastores:running[/PATH]  their
 *                                                       configuration
 *                                                       only; writes 405
 *                                                       (they go to
 *                                                       /restconf/data)
 *
 * Every GET under /restconf/data and /restconf/ds takes RFC 8040 4.8.1
 * content=, 4.8.2 depth= and 4.8.3 fields= (nb_query.h's
 * nb_read_parse(); the cut is the YANG layer's lr_yang_select_json(),
 * one function for every resource, which judges the fields' paths
 * against its schema: 400 when one names no node there), the ETag then
 * being that of the cut text; any other method with them is 400.
 *
 * With a device worker, a POST or DELETE of a job that has devices to
 * program is answered later (nb_defer): the loop plans and reserves
 * (lr_ctl_submit_begin / lr_ctl_delete_begin), the worker programs the
 * devices, and the loop commits and answers (lr_ctl_op_end), so every
 * other request is answered meanwhile and sees the job provisioning or
 * releasing.  A second POST of the name meanwhile: 409 data-exists; a
 * DELETE of a job whose devices are being programmed: 409 in-use, "try
 * again when ..." (it does not queue behind the admission: a client
 * that gave up on its POST must not find its DELETE silently waiting).
 * A client that leaves before its answer leaves the job to end as it
 * would have (active, failed, or deleted).
 */
#ifndef NB_RESTCONF_H
#define NB_RESTCONF_H 1

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#include "northbound/nb_server.h"

struct lr_ctl;
struct ly_ctx;
struct nb_decision;
struct nb_planned;

/* A resource's validators as last seen (nb_restconf.c's
 * inventory_text): its entity-tag, and when it took that tag. */
struct nb_version {
    char etag[NB_ETAG_MAX];
    time_t modified;
};

struct nb_app {
    struct lr_ctl *ctl;       /* borrowed */
    struct ly_ctx *ly;        /* borrowed */
    struct nb_server *srv;    /* borrowed, set after nb_server_new() */
    const char *topo_json;    /* the topology as loaded, borrowed */
    /* The device worker (borrowed), or NULL: then a POST or DELETE of a
     * job waits for its devices on the loop's thread. */
    struct lr_worker *worker;
    /* The ppo decisions' worker (borrowed), or NULL: then a ppo intent
     * is decided on the loop's thread.  With one, ppo intents queue in
     * 'waiting' (the northbound's, in arrival order) and are decided one
     * at a time off the loop (lr_ctl_decide_begin): a rollout's tens of
     * milliseconds never hold the other requests up. */
    struct lr_worker *decider;
    struct nb_decision *waiting, **waiting_tail;
    /* The plans' worker (borrowed), or NULL: then every other intent is
     * planned on the loop's thread.  With one, intents for the other
     * algorithms queue in 'planning' (in arrival order) and each is
     * planned off the loop before its admission (lr_ctl_plan_begin): a
     * CDynP plan over DCs of hundreds of GPUs takes seconds, during
     * which GET, /metrics and DELETE are answered.  'n_planning' counts
     * the queue, the one being planned included; 'plan_busy' is set
     * while one is, or while RELEASEs to the agents are sent there
     * (nb_restconf_releases). */
    struct lr_worker *planner;
    struct nb_planned *planning, **planning_tail;
    int n_planning;
    bool plan_busy;
    /* Called after each reload of the ppo policy, through the API or
     * nb_restconf_reload() ('how' says which), with lr_ctl_ppo_reload's
     * code and message (lightraild logs it), or NULL. */
    void (*reloaded)(void *arg, const char *how, int rc, const char *err);
    void *reloaded_arg;
    /* Called when the agents' TLS files were read again
     * (nb_restconf_reload_tls(), 'how' says who asked), with
     * lr_ctl_agents_reload_tls()'s code, report (the connections it
     * closed, one a line) and message, or NULL (lightraild logs them).
     * 'tls_due' and 'tls_how': a reload waiting for the agents. */
    void (*tls_reloaded)(void *arg, const char *how, int rc,
                         const char *report, const char *err);
    void *tls_reloaded_arg;
    bool tls_due;
    const char *tls_how;
    /* Called when the agents' connections were judged again for a CRL's
     * next update, a chain's notAfter or a clock set back
     * (nb_restconf_recheck_tls()), with
     * lr_ctl_agents_recheck_tls()'s code, report (the connections it
     * closed, one a line) and message, or NULL: lightraild logs them,
     * and arms its timer at the next one.  'crl_due': such a judgment
     * waiting for the agents. */
    void (*tls_rechecked)(void *arg, int rc, const char *report,
                          const char *err);
    void *tls_rechecked_arg;
    bool crl_due;
    /* Called when the agents are the loop's again after a plan or
     * RELEASEs on the planner's thread, or an admission that planned
     * with them on the loop: a connection may have been made (or
     * closed) that the planner's thread tells nobody of, whose chain's
     * bounds may be the next to leave (lr_ctl_agents_tls_span()),
     * or NULL: lightraild arms its timer again.  'tls_timer_wakes' is
     * counted by lightraild's timer (each wake, judging or not), /metrics'
     * lightrail_tls_timer_wakes_total. */
    void (*agents_back)(void *arg);
    void *agents_back_arg;
    unsigned long long tls_timer_wakes;
    /* Called when a PUT of the topology or inventory replaced the
     * network, whose agents' parties read coordinator/crl anew (its
     * updates may have changed: lr_ctl_agents_tls_span()), or NULL. */
    void (*agents_renewed)(void *arg);
    void *agents_renewed_arg;
    /* Called when a PUT of the topology or inventory ('what':
     * "topology", "inventory") left the ppo policy usable where it was
     * not, or the reverse (lr_ctl_ppo_status), or NULL: lightraild logs
     * it. */
    void (*ppo_rechecked)(void *arg, const char *what);
    void *ppo_rechecked_arg;
    /* Called when a DC's agent is seen down (its last exchange failed:
     * 'why'), or up again, after each turn of the planner and each
     * admission planned on the loop (lr_ctl_agent_status), or NULL:
     * lightraild logs it.  'agents_down': bit k, DC k's agent was down
     * when last seen. */
    void (*agent_changed)(void *arg, const char *dc, bool up,
                          const char *why);
    void *agent_changed_arg;
    uint64_t agents_down;
    /* Called, when set, once for each DC whose agent closed connections
     * kept idle since it was last seen (lr_ctl_agent_status()'s
     * idle_closes past 'agent_idle_seen[k]'): 'n' of them, 'last' the
     * last one's words; lightraild logs it.  A new network's agents
     * start at 0 again. */
    void (*agent_idle_closed)(void *arg, const char *dc, unsigned n,
                              const char *last);
    void *agent_idle_closed_arg;
    unsigned agent_idle_seen[LR_TM_MAX_DCS];
    /* Called when a periodic reconciliation (nb_restconf_reconcile)
     * ended, with lr_ctl_reconcile_end's code, report (borrowed for the
     * call: one line per difference), drift and message, or NULL:
     * lightraild logs it.  The counts are /metrics'
     * lightrail_reconciles_periodic_total and
     * lightrail_reconcile_periodic_failures_total.
     * 'periodic_reconcile_skips' is counted by the caller of
     * nb_restconf_reconcile (lightraild's timer): ticks it skipped, the
     * last one still queued or running, /metrics'
     * lightrail_reconcile_periodic_skipped_total. */
    void (*reconciled)(void *arg, int rc, const char *report, int drift,
                       const char *err);
    void *reconciled_arg;
    unsigned long long periodic_reconciles, periodic_reconcile_failures;
    unsigned long long periodic_reconcile_skips;
    /* The validators of the topology and of the inventory (RFC 8040
     * 3.4.1.2, 3.4.1.3), computed from the text a GET sends; a text not
     * seen before takes 'started' (when lightraild loaded what it
     * started with; 0: the time it is first printed) the first time,
     * then the time it is seen. */
    struct nb_version topo_version, compute_version;
    time_t started;
    /* How long a jobs list's where may take to evaluate over the jobs,
     * in seconds (lightraild's where-budget; lr_yang_job_select()'s
     * budget, read on CLOCK_MONOTONIC); 0: no bound. */
    double where_budget_s;
    /* The jobs tree kept across GETs (borrowed: its maker frees it,
     * after the server), or NULL: built for each GET.  A GET of every
     * job, and a where or a sort-by, take it while
     * lr_ctl_jobs_gen(ctl) says the jobs are those it was built from. */
    struct lr_yang_job_cache *jobs_cache;
    /* A timer (borrowed: its maker frees it, after the server), or
     * NULL: each GET that took jobs_cache arms it again to wake
     * 'jobs_cache_idle' from then, and its maker then drops the trees
     * kept (lr_yang_job_cache_clear()), so that an idle daemon does not
     * hold them until the next change. */
    struct event *jobs_cache_timer;
    struct timeval jobs_cache_idle;
};

/* A reload of the ppo policy asked outside the API ('how', e.g.
 * "SIGHUP"): with a decider it takes its turn behind the ppo intents
 * queued before it (a retry while decisions run back to back would wait
 * for as long as they come), else it is done now.  The outcome goes to
 * app->reloaded.  0, or ENOMEM (nothing queued). */
int nb_restconf_reload(struct nb_app *app, const char *how);

/* The coordinator's TLS files read again for the agents ('how', e.g.
 * "SIGHUP"; a static string), lr_ctl_agents_reload_tls(): now when the
 * agents are free, else in the planner's next free turn, before the
 * next plan (a plan or RELEASEs in flight hold the agents' connections,
 * which it may close).  The outcome goes to app->tls_reloaded. */
void nb_restconf_reload_tls(struct nb_app *app, const char *how);

/* The agents' connections judged again under the CRLs loaded, the wall
 * clock having left the span their verdicts hold in (a CRL's next update
 * or a chain's notAfter passed, a clock set back before a last update or
 * a notBefore: lr_ctl_agents_tls_span()), by
 * lr_ctl_agents_recheck_tls(): now when the
 * agents are free, else in the planner's next free turn, as
 * nb_restconf_reload_tls() waits.  The outcome goes to
 * app->tls_rechecked. */
void nb_restconf_recheck_tls(struct nb_app *app);

/* A reconciliation asked outside the API (lightraild's
 * reconcile-interval timer): a repair, begun and queued on app->worker
 * behind the device work begun before it, exactly as POST
 * .../lightrail-job:reconcile (no worker, or none to queue on: run now,
 * on the caller's thread).  Its end goes to app->reconciled.  0, or
 * ENOMEM: nothing begun, no call. */
int nb_restconf_reconcile(struct nb_app *app);

/* RELEASEs to the agents wait (lr_ctl_set_release_hook): with a planner,
 * they are sent there in its next free turn (a plan begun takes them
 * along, and sends them first); without one, nothing. */
void nb_restconf_releases(struct nb_app *app);

/* Tells app->agent_changed of each agent down now (lr_ctl_agent_status),
 * as after a turn of the planner: once app->agent_changed is set, for
 * those the start's KEEP did not reach. */
void nb_restconf_agents_seen(struct nb_app *app);

/* The server's nb_error_check (nb_server_set_error_check(), 'arg' the
 * nb_app): whether 'body', an error body about to be sent with
 * 'status', is ietf-restconf's yang-errors (lr_yang_errors_check()).
 * One that is not is lightraild's bug: logged at LR_LOG_ERR, "error
 * body invalid", with libyang's words and the body's beginning (the
 * body is still sent). */
bool nb_restconf_error_check(void *arg, int status, const char *body);

/* The route table; 'metrics_public' makes /metrics answer without
 * authentication. */
const struct nb_route *nb_restconf_routes(int *n, int metrics_public);

#endif
