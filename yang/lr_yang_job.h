/*
 * lr_yang_job: the daemon's YANG edge — job intents in, jobs, resource
 * state and the inventory out, and the daemon's configuration file.
 *
 * Modules: lightrail-job (jobs: intent and state), lightrail-state
 * (link spectrum, DC devices, counters), lightrail-config (lightraild's
 * configuration file), and lightrail-compute for the inventory.  They are
 * embedded like the others (lr_yang.h): any context from lr_yang_ctx_new()
 * serves these functions.
 *
 * As everywhere in yang/, libyang stays behind this header: callers pass
 * and get plain structs (controller/lr_job.h, planner/, sb_driver.h) and
 * JSON text.  Every printer builds a data tree and validates it against
 * the schema before printing, so what it prints loads back in any
 * libyang-based client; a struct the schema refuses (a negative count, a
 * DC index out of range) is an EINVAL error, never a silently wrong
 * document.
 *
 * Errors: 0 or a positive errno value (EINVAL: data that does not
 * validate; ENOMEM; ENAMETOOLONG: a resolved path too long; ENOENT and
 * friends from opening a file), and one line in err[errlen] (or, for
 * lr_yang_parse_intent(), a path and a message apart, for an RFC 8040
 * error body):
 *     FILE-or-WHAT: DATA-PATH: reason
 * e.g. "demo.json: /lightrail-config:lightraild/listen/port: Value "70000"
 * is out of type uint16 min/max bounds.".
 *
 * Contexts: one thread at a time per context (lr_yang.h).
 */
#ifndef LR_YANG_JOB_H
#define LR_YANG_JOB_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/lr_ctl_ppo.h"
#include "controller/lr_job.h"
#include "southbound/sb_driver.h"

struct ly_ctx;
struct lr_topo;
struct lr_cluster;
struct lr_modtable;

/* ---- Job intents and jobs (lightrail-job) ---- */

/* Parses the body of a POST that creates a job, 'len' bytes at 'body'
 * (need not be NUL-terminated; a NUL byte inside is an error), into
 * '*out'.  Two forms are accepted:
 *     {"lightrail-job:job":[{...}]}              RFC 8040 POST to
 *                                                .../lightrail-job:jobs
 *     {"lightrail-job:jobs":{"job":[{...}]}}     the whole container
 * each with exactly one job.  (libyang refuses a list entry written as an
 * object rather than an array of one, and so do we.)  Parsing is strict:
 * an unknown member, the config false 'state' container, data of another
 * module or a second job is an error.  The intent is validated (ranges,
 * patterns, batch a multiple of microbatch, gpus min <= max) with the
 * schema's defaults applied, and 'model' must name one of the planner's
 * presets (planner/lr_model.h).
 *
 * On error returns EBADMSG when the body is not JSON at all, no JSON
 * object, or has text after its object, EINVAL when
 * it is JSON the schema refuses (ENOMEM when out of memory), leaves '*out'
 * zeroed, and writes the data path of the offending node into
 * path[pathlen] ("" when the error has none, e.g. malformed JSON) and a
 * one-line reason into msg[msglen], e.g.
 *     path "/lightrail-job:jobs/job[name='j1']"
 *     msg  "batch must be a multiple of microbatch"
 * A libyang error that knows the line of the body ends in " (line N)".
 * 'path' and 'msg' may be NULL. */
int lr_yang_parse_intent(struct ly_ctx *, const char *body, size_t len,
                         struct lr_intent *out, char *path, size_t pathlen,
                         char *msg, size_t msglen);

/* The network the jobs are printed against, as lr_yang_jobs_to_json()
 * takes it: the topology that names nodes and links, the inventory that
 * names DCs, and the modulation table lightpaths are judged by (NULL:
 * nothing judged).  Borrowed: read during the call only (a tree kept
 * from it, lr_yang_job_select_tree(), reads it no more).  A NULL net is
 * one of every field NULL: jobs without stages, devices or lightpaths
 * only. */
struct lr_yang_job_net {
    const struct lr_topo *topo;
    const struct lr_cluster *cluster;
    const struct lr_modtable *mods;
};

/* Prints 'n' jobs as lightrail-job JSON (indented, ending in a newline)
 * into a new string stored in '*out' (NULL on error); the caller frees it
 * with free().
 *     single = 0: {"lightrail-job:jobs":{"job":[...]}}, any n >= 0 (with
 *                 n = 0, {"lightrail-job:jobs":{}});
 *     single = 1: {"lightrail-job:job":[{...}]}, n must be 1 (EINVAL).
 * Each job has its intent and a 'state' container: phase, reason (when
 * not empty), iteration-time-s (only while active), created and updated
 * (when non-zero: RFC 3339 in UTC with milliseconds,
 * "2026-11-30T12:00:00.123+00:00", libyang's canonical form), its
 * stages, its devices per DC and its lightpaths.
 *
 * Names come from the inventories of 'net' (above; NULL: none) the
 * indices refer to: DC names from net->cluster (needed when a job holds
 * stages or devices), node and link names from net->topo (needed when
 * it holds lightpaths); a lightpath names its modulation itself
 * (lr_lightpath.modulation, left out when "").  net->mods is the
 * modulation table the controller runs with (may
 * be NULL: nothing judged): a lightpath whose format it lacks, whose
 * length is beyond the format's reach in it, whose m is not what the
 * format there sizes for its rate, or whose gOSNR measured at
 * provisioning is below the format's threshold there
 * (lr_lightpath_fits()), gets the state leaf modulation-mismatch
 * saying each of these that holds.  A lightpath's gosnr is printed where it is known
 * (lr_lightpath.gosnr_known), table or not.  A stage's
 * time-s is the planner's stage time (lr_tm_stage_time()) when the
 * intent's model is a preset, and left out otherwise.  An index out of
 * range is EINVAL with the job's data path in 'err'. */
int lr_yang_jobs_to_json(struct ly_ctx *, const struct lr_job *jobs, int n,
                         const struct lr_yang_job_net *net, int single,
                         char **out, char *err, size_t errlen);

/* The same over pointers to the jobs (lr_ctl_list_refs()), which are
 * read, not kept. */
int lr_yang_job_refs_to_json(struct ly_ctx *, const struct lr_job *const *jobs,
                             int n, const struct lr_yang_job_net *net,
                             int single, char **out, char *err,
                             size_t errlen);

/* The annotations (RFC 7952) of a page of the jobs list, which its
 * first entry carries: the list pagination draft's "remaining" (the
 * entries past the page that the limit left out; 0: none, no
 * annotation) and its "next" and "previous" cursors (the text of the
 * cursor naming the entry after the page, and before it; NULL: none),
 * as lightrail-job defines them. */
struct lr_yang_page_meta {
    uint32_t remaining;
    const char *next, *previous;
};

/* A page of the jobs list (GET with limit, offset or cursor,
 * direction): 'jobs' in the order given, in the jobs container as
 * lr_yang_job_refs_to_json() with single 0, or with 'list' as the list
 * resource itself (GET of .../jobs/job,
 * draft-ietf-netconf-list-pagination-rc): {"lightrail-job:job":[...]},
 * and {"lightrail-job:job":[]} for a page of no job.  When the page
 * holds a job, its first entry carries the annotations of 'meta' (may
 * be NULL: none), in either form: "@": {"lightrail-job:remaining": N,
 * "lightrail-job:next": "...", ...} in JSON; a cursor's text is
 * validated as the annotation's type (a string). */
int lr_yang_job_page_to_json(struct ly_ctx *, const struct lr_job *const *jobs,
                             int n, const struct lr_yang_page_meta *meta,
                             bool list, const struct lr_yang_job_net *net,
                             char **out, char *err, size_t errlen);

/* lr_yang_job_refs_to_json() and lr_yang_job_page_to_json() without
 * each job's state (its config false container, which nothing adds
 * back): what content=config (RFC 8040 4.8.1) and the running
 * datastore (RFC 8342 5.1.3) keep of a job, with the page's
 * annotations as the whole's.  Its cut by lr_yang_read_json() with
 * content config is the cut of the whole text, byte for byte, for the
 * same fields, depth and with-defaults; the state, which content config
 * would drop, is neither built nor printed nor parsed again. */
int lr_yang_job_refs_config_to_json(struct ly_ctx *,
                                    const struct lr_job *const *jobs, int n,
                                    const struct lr_yang_job_net *net,
                                    int single, char **out, char *err,
                                    size_t errlen);
int lr_yang_job_page_config_to_json(struct ly_ctx *,
                                    const struct lr_job *const *jobs, int n,
                                    const struct lr_yang_page_meta *meta,
                                    bool list,
                                    const struct lr_yang_job_net *net,
                                    char **out, char *err, size_t errlen);

/* A bound on the time lr_yang_job_select() spends evaluating a where
 * over the jobs (lightraild's where-budget).  The time since the first
 * job's evaluation began is read after each job's, so a request overruns
 * it by one job's evaluation at most: the shapes that cost polynomially
 * in a job's size (two node sets compared, state/lightpath/link <
 * state/lightpath/link: 0.23 s on one job of the most lightpaths) are
 * too many to refuse each by its form, and over thousands of jobs they
 * would hold the caller's loop for minutes.  'seconds' <= 0: no bound.
 * 'now' (NULL: CLOCK_MONOTONIC) gives the time in seconds, called with
 * 'arg': a test's clock decides after which job the budget runs out. */
struct lr_yang_where_budget {
    double seconds;
    double (*now)(void *arg);
    void *arg;
};

/* What a selection of the jobs asks (lr_yang_job_select() says what
 * each field means): list pagination's 'where' and 'sort_by' (NULL:
 * none), 'config_only' for the running datastore's view, and the
 * 'budget' of the where's evaluation (NULL: no bound).  Everything it
 * points to belongs to the caller and is read during the call only.
 * A NULL query is one of every field zero: every job, in the list's
 * order, with its state, no bound. */
struct lr_yang_job_query {
    const char *where;
    const char *sort_by;
    bool config_only;
    const struct lr_yang_where_budget *budget;
};

/* The jobs of a list that list pagination's 'where' selects, in the
 * order its 'sort-by' asks for (draft-ietf-netconf-list-pagination),
 * before the page's offset and limit take their slice.  'jobs' is the
 * list in its own order (by name, lr_ctl_list_refs()), read, not kept;
 * 'query' holds the where, sort-by, config_only and budget below, and
 * 'net' the names and table the jobs print with (both may be NULL).
 * 'where' (NULL: every job) is an XPath 1.0 expression in RFC 7951's
 * form (names unprefixed within lightrail-job), evaluated with each
 * job's entry as the context node on the jobs tree as GET prints it,
 * and naming nodes of that entry only (so that its cost is the list's
 * size, not its square); the jobs for which it is false are left out.
 * 'sort_by' (NULL: the list's order) is the path of a leaf of the entry
 * ("name", "state/phase", "gpus/min"), no leaf of a list inside it:
 * the jobs in ascending order of its value (numbers by value, other
 * types by their canonical text, byte by byte), those without the leaf
 * last, ties in the list's order.  '*out' gets the jobs selected, in
 * that order: '*nout' of them, '*out' a new array of 'n' pointers
 * (the caller frees it, not the jobs).
 * 0; EINVAL when 'where' is no expression, names a node the schema
 * lacks or one outside the entry, uses what libyang 2.1 cannot evaluate
 * safely or cheaply (deref(), mod, the axes but child, self,
 * attribute, '..', a union, chained comparisons, the root, brackets
 * nested past 63: lr_yang_job.c's job_where_banned()), or 'sort_by' is
 * no leaf of the entry: err[] names the parameter and gives libyang's
 * words (RFC 8040 400 invalid-value); ENODATA, with 'config_only' (the
 * running datastore, RFC 8342 5.1.3: configuration only), when 'where'
 * names a config false node that no config true node of it shares a
 * name with (state/phase; not a wildcard, '.' or gpus) or 'sort_by' is
 * one, a query the operational datastore takes (err[] says which node;
 * also a 400, the caller says where to send it); either refused before
 * any job is evaluated.  With 'config_only' each job's
 * entry is built without its state, so 'where' and 'sort_by' see what
 * running holds;
 * ETIMEDOUT when evaluating 'where' took longer than 'budget' allows
 * (NULL: no bound): nothing is selected, and err[] quotes the where and
 * says on how many of the 'n' jobs it was evaluated, in how long, and
 * what to send instead (a 400 too: the same where over the same list
 * would run out again);
 * another errno for the server's own failure (ENOMEM; EIO when a job
 * does not print: err[] as lr_yang_job_refs_to_json()'s). */
int lr_yang_job_select(struct ly_ctx *, const struct lr_job *const *jobs,
                       int n, const struct lr_yang_job_query *query,
                       const struct lr_yang_job_net *net,
                       const struct lr_job ***out, int *nout, char *err,
                       size_t errlen);

/* The jobs tree a selection evaluated its where and sort-by on, kept
 * for printing the page it selects (lr_yang_job_tree_page_to_json())
 * instead of building the page's jobs again. */
struct lr_yang_job_tree;

/* lr_yang_job_select(), which, on success, also gives in '*tree' the
 * tree it evaluated on (the caller frees it with
 * lr_yang_job_tree_free(); it reads the jobs, topology, cluster and
 * modulation table no more: they may change after).  '*tree' is NULL
 * on failure. */
int lr_yang_job_select_tree(struct ly_ctx *,
                            const struct lr_job *const *jobs, int n,
                            const struct lr_yang_job_query *query,
                            const struct lr_yang_job_net *net,
                            const struct lr_job ***out, int *nout,
                            struct lr_yang_job_tree **tree, char *err,
                            size_t errlen);

/* The text lr_yang_job_page_to_json() (lr_yang_job_page_config_to_json()
 * with 'config_only') gives for the page 'jobs' ('n' of the jobs 'tree'
 * selected, in any order), from the entries of 'tree', byte for byte.
 * It takes the page's entries out of 'tree' and frees the others: call
 * it once, then free 'tree'.  0; EINVAL when a job of the page is none
 * 'tree' selected, or when the page wants the state and 'tree' was
 * built without it (config_only): the caller prints the page with
 * lr_yang_job_page_to_json() then; ENOMEM. */
int lr_yang_job_tree_page_to_json(struct ly_ctx *,
                                  struct lr_yang_job_tree *tree,
                                  const struct lr_job *const *jobs, int n,
                                  const struct lr_yang_page_meta *meta,
                                  bool list, bool config_only, char **out,
                                  char *err, size_t errlen);

/* Whether 'tree' holds each job's state (it was not built config_only). */
bool lr_yang_job_tree_has_state(const struct lr_yang_job_tree *tree);

void lr_yang_job_tree_free(struct lr_yang_job_tree *tree);

/* ---- The jobs trees kept across requests ---- */

/* The jobs tree a GET of the whole list, and a where or a sort-by,
 * build (with each job's state, and without it for running and the
 * cuts that keep none), kept from one request to the next until the
 * jobs change: building it is most of such a GET's CPU
 * (docs/benchmarks.md, "The jobs tree kept across GETs").  A cache
 * serves one controller's jobs: the caller gives with the jobs the
 * number lr_ctl_jobs_gen() gave for them (controller/lr_ctl.h), which
 * changes with anything the tree prints; a tree is used again only for
 * that number and the same pointers in the same order
 * (lr_ctl_list_refs()), else built again (and the former dropped).
 * One thread at a time, as its context. */
struct lr_yang_job_cache;

/* A cache that keeps trees of at most 'max_nodes' data nodes together
 * (one that would pass it is built for its request and freed; 0: none
 * kept; a node is about 150 bytes), or NULL when out of memory.  Free
 * it with lr_yang_job_cache_free() (NULL: nothing), before the context
 * its trees were built in. */
struct lr_yang_job_cache *lr_yang_job_cache_new(size_t max_nodes);
void lr_yang_job_cache_free(struct lr_yang_job_cache *);

/* The trees 'cache' keeps freed (NULL: nothing), its counts kept: the
 * next request builds again, the same bytes.  lightraild's idle drop
 * (docs/controller.md, "The jobs tree kept across GETs"): no tree
 * borrowed from it (lr_yang_job_cache_select_tree()) may be alive. */
void lr_yang_job_cache_clear(struct lr_yang_job_cache *cache);

/* What a cache did: the requests it answered from a tree kept
 * ('hits'), the trees it built ('builds'), those it did not keep for
 * their size ('too_large'), and the data nodes it holds now (those of
 * its trees, the defaults added too). */
struct lr_yang_job_cache_stats {
    unsigned long long hits, builds, too_large;
    size_t nodes;
};
void lr_yang_job_cache_stats(const struct lr_yang_job_cache *,
                             struct lr_yang_job_cache_stats *out);

/* lr_yang_job_page_to_json() of every job ('jobs', 'n': the whole list
 * of generation 'gen', in its order), with no annotation, or with
 * 'config_only' lr_yang_job_page_config_to_json(): the same bytes,
 * printed from the tree 'cache' keeps (NULL: built for this call
 * alone). */
int lr_yang_job_cache_to_json(struct ly_ctx *, struct lr_yang_job_cache *,
                              unsigned long long gen,
                              const struct lr_job *const *jobs, int n,
                              bool list, bool config_only,
                              const struct lr_yang_job_net *net, char **out,
                              char *err, size_t errlen);

/* lr_yang_job_select_tree() on the tree 'cache' keeps for the whole
 * list 'jobs' of generation 'gen' (NULL: built for this call alone).
 * '*tree' borrows it: lr_yang_job_tree_page_to_json() copies the
 * page's entries out of it (it may be called again), and
 * lr_yang_job_tree_free() leaves it to the cache; free '*tree' before
 * the cache is used again. */
int lr_yang_job_cache_select_tree(struct ly_ctx *, struct lr_yang_job_cache *,
                                  unsigned long long gen,
                                  const struct lr_job *const *jobs, int n,
                                  const struct lr_yang_job_query *query,
                                  const struct lr_yang_job_net *net,
                                  const struct lr_job ***out, int *nout,
                                  struct lr_yang_job_tree **tree, char *err,
                                  size_t errlen);

/* ---- Resource state (lightrail-state) ---- */

/* A block of slots [first, first + m) of a link, held by 'job'. */
struct lr_state_channel {
    int first, m;
    char job[LR_JOB_NAME_MAX];
};

struct lr_state_link {
    char id[LR_NAME_MAX];
    int slots, used;
    int n_channels;
    const struct lr_state_channel *channels;  /* [n_channels], borrowed */
};

struct lr_state_dc {
    char name[LR_NAME_MAX];
    int devices, in_use;
    /* Planned by its agent: whether it answered the last exchange, and
     * why not (borrowed, "" when up). */
    bool agent;
    bool agent_up;
    const char *agent_why;
};

/* A ROADM as the controller last saw it (controller/lr_ctl.h's
 * lr_ctl_device_status); the strings are borrowed. */
struct lr_state_device {
    const char *name, *driver, *address;
    bool up;
    int64_t ok_ms, fail_ms;           /* Unix ms; 0: none */
    const char *why;                  /* "" or NULL when none */
    uint64_t ops, failures;
    int channels;
};

struct lr_state_counters {
    uint64_t jobs_active, jobs_blocked, jobs_failed;
    uint64_t admissions, blocks, deletes;
};

/* One emulated lightpath (lightrail-state's emulated-link). */
struct lr_state_emulated {
    char lightpath[96];
    char from[LR_NAME_MAX], to[LR_NAME_MAX];
    char ns[64], ifname[16];
    double capacity_gbps;
    uint64_t shaped_bps;
    uint64_t tx_bytes, tx_packets, rx_bytes, rx_packets;
    uint64_t errors, drops, qdisc_drops;
    bool measured;            /* throughput and loss are set */
    uint64_t throughput_bps;
    double loss;
    double delay_us;
};

/* What GET of the resource state shows.  Every array belongs to the
 * caller and is only read. */
struct lr_state_view {
    int n_links;
    const struct lr_state_link *links;        /* [n_links] */
    int n_dcs;
    const struct lr_state_dc *dcs;            /* [n_dcs] */
    int n_devices;
    const struct lr_state_device *devices;    /* [n_devices] */
    int n_emulated;
    const struct lr_state_emulated *emulated; /* [n_emulated] */
    struct lr_state_counters counters;
    /* The ppo policy in use (controller/lr_ctl_ppo.h), NULL when none is
     * configured: the leaves with a value, 'why' only when unusable, the
     * file's own only when it loaded. */
    const struct lr_ctl_ppo_info *ppo;
};

/* Prints 'view' as {"lightrail-state:state":{...}} into a new string
 * stored in '*out' (NULL on error); the caller frees it with free(). */
int lr_yang_state_to_json(struct ly_ctx *, const struct lr_state_view *,
                          char **out, char *err, size_t errlen);

/* ---- Operations (RESTCONF, RFC 8040 section 3.6) ---- */

/* The body of POST .../lightrail-job:reconcile: no body, or
 * {"lightrail-job:input":{"dry-run":BOOL,"reinstall":BOOL}};
 * '*dry_run' and '*reinstall' get the leaves (false when absent).  0;
 * EBADMSG for text that is not JSON; EINVAL for JSON the schema refuses
 * (the data path in path[] when there is one, the message in msg[]);
 * ENOMEM. */
int lr_yang_parse_reconcile(struct ly_ctx *, const char *body, size_t len,
                            bool *dry_run, bool *reinstall, char *path,
                            size_t pathlen, char *msg, size_t msglen);

/* The body of an operation without input ('module':'op', e.g.
 * lightrail-state's reload-ppo-policy): no body, or
 * {"MODULE:input":{}}; otherwise as lr_yang_parse_reconcile. */
int lr_yang_parse_no_input(struct ly_ctx *, const char *module,
                           const char *op, const char *body, size_t len,
                           char *path, size_t pathlen, char *msg,
                           size_t msglen);

/* Prints reconcile's output {"lightrail-job:output":{...}}: the count,
 * whether it repaired, 'reinstalled' (the channels installed again of
 * the input's reinstall; negative: the leaf left out, reinstall not
 * asked) and one 'difference' per line of 'report' (NULL: none).  The
 * caller frees '*out' with free(). */
int lr_yang_reconcile_to_json(struct ly_ctx *, int differences,
                              bool repaired, int reinstalled,
                              const char *report, char **out, char *err,
                              size_t errlen);

/* ---- Inventory (lightrail-compute) ---- */

/* Prints 'cluster' as lightrail-compute JSON, SI units converted back to
 * the module's (TFLOP/s, GB, GB/s, us, Gb/s, ms) with the module's three
 * fraction digits, so the text loads back with
 * lr_yang_load_cluster_mem() to the same numbers whenever they had at
 * most three fraction digits in those units.  A number the schema refuses
 * once rounded (a latency under 0.5 ns) is EINVAL.  The caller frees
 * '*out' with free(). */
int lr_yang_cluster_to_json(struct ly_ctx *, const struct lr_cluster *,
                            char **out, char *err, size_t errlen);

/* ---- Daemon configuration (lightrail-config) ---- */

#define LR_CONFIG_PATH_MAX 4096
#define LR_CONFIG_MAX_TOKENS 16
#define LR_CONFIG_MAX_DEVICES 256
#define LR_CONFIG_MAX_TERMINALS 64

enum lr_config_log {
    LR_CONFIG_LOG_STDERR,
    LR_CONFIG_LOG_SYSLOG,
};

struct lr_config_token {
    char name[LR_NAME_MAX];
    char secret[256];
};

/* lightraild's configuration, with the schema's defaults applied.  Plain
 * data (about 120 KB: allocate it, or keep it static, rather than on a
 * small stack).  Paths are resolved: a relative path of the file is
 * prefixed with the file's directory; "" means absent. */
struct lr_config {
    char address[256];                 /* listen address, "127.0.0.1" */
    int port;                          /* 8443; 0 = any free port */
    bool tls;                          /* true */
    char cert[LR_CONFIG_PATH_MAX];     /* required when tls */
    char key[LR_CONFIG_PATH_MAX];      /* required when tls */
    char client_ca[LR_CONFIG_PATH_MAX];
    int n_tokens;
    struct lr_config_token tokens[LR_CONFIG_MAX_TOKENS];
    bool metrics_public;               /* true */
    char state_dir[LR_CONFIG_PATH_MAX];
    char topology_file[LR_CONFIG_PATH_MAX];
    char cluster_file[LR_CONFIG_PATH_MAX];
    char ppo_policy[LR_CONFIG_PATH_MAX];   /* "" when not configured */
    /* The modulation CSV, read at start (lr_modtable_load()); ""
     * when not configured: the default table. */
    char modulation_table[LR_CONFIG_PATH_MAX];
    double ppo_mean_job_s;             /* seconds, > 0; 3600 */
    int cdynp_step;                    /* 0 auto, LR_CDYNP_STEP_BEST, or
                                        * 1..1000000 */
    int cdynp_beam;                    /* cdynp-beam as
                                        * lr_cdynp_options.beam takes it
                                        * (lr_cdynp_beam_option()): -1
                                        * for width 0, else 1..64 */
    int reconcile_s;                   /* reconcile-interval, s: 300;
                                        * 0 = no periodic one */
    double where_budget_s;             /* where-budget, s: 2; 0 = none */
    bool ppo_rollout;                  /* the ppo-rollout container */
    struct lr_ctl_ppo_rollout ppo_ro;  /* its leaves, when present */
    char default_driver[32];           /* "dummy" */
    char dummy_dir[LR_CONFIG_PATH_MAX];    /* default: state_dir/devices */
    /* Listed devices; a device without a driver gets default_driver.  The
     * address is the driver's business and is left as written (a dummy
     * device without one belongs in dummy_dir/NAME, the controller's
     * choice).  Unlisted ROADMs use default_driver, which must then be
     * dummy (the controller refuses others: no address). */
    int n_devices;
    struct sb_device_config devices[LR_CONFIG_MAX_DEVICES];
    /* southbound/terminal: the data centers' terminals, for drivers that
     * judge a whole lightpath (mnoptical: tune, turn on, gOSNR). */
    int n_terminals;
    struct sb_terminal terminals[LR_CONFIG_MAX_TERMINALS];
    /* The coordinator's TLS material for the DC agents ("" when the
     * file has no 'coordinator'), and its timeout in seconds. */
    char coord_cert[LR_CONFIG_PATH_MAX];
    char coord_key[LR_CONFIG_PATH_MAX];
    char coord_ca[LR_CONFIG_PATH_MAX];
    char coord_crl[LR_CONFIG_PATH_MAX];    /* "": no revocation check */
    double coord_timeout;
    double coord_budget;               /* plan-timeout, s; 0: no bound */
    enum lr_config_log log;            /* stderr */
    /* The emulated data plane (container emulation). */
    bool emulation;                    /* false */
    char emu_prefix[16];               /* "lr" */
    double emu_scale;                  /* real Mb/s per emulated Gb/s, 1 */
    int telemetry_ms;                  /* 1000 */
};

/* Loads the lightrail-config file 'path' into '*out' (zeroed on error).
 * The files it names need not exist.  Errors as "FILE: DATA-PATH:
 * reason", e.g. "demo.json: /lightrail-config:lightraild/listen: TLS
 * needs a certificate and a key; set both, or tls false". */
int lr_yang_load_config(struct ly_ctx *, const char *path,
                        struct lr_config *out, char *err, size_t errlen);

#endif
