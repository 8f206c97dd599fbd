/*
 * lr_ctl_int.h: the controller core's internal header, shared by its
 * files and by nothing else (the users of the core include lr_ctl.h,
 * where struct lr_ctl and struct lr_ctl_op are opaque):
 *   lr_ctl.c        the job table, admission, the ops' begin and end,
 *                   telemetry, start and recovery, the read-only views;
 *   lr_ctl_op.c     one job's device work (struct lr_ctl_op) and the
 *                   emulated data plane;
 *   lr_ctl_recon.c  reconciliation;
 *   lr_ctl_agents.c the remote DCs' agents: CDynP with them, COMMIT and
 *                   RELEASE, the RELEASEs that wait and the KEEPs owed,
 *                   the plan made with them and kept for its admission;
 *   lr_ctl_admit_ppo.c  a ppo decision realised as a job's stages and
 *                   lightpaths.
 * The helpers below are shared between those files; each is documented
 * where it is defined.
 */
#ifndef LR_CTL_INT_H
#define LR_CTL_INT_H 1

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "controller/lr_ctl.h"
#include "controller/lr_ctl_dev.h"
#include "controller/lr_job.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_wire.h"
#include "planner/lr_rate.h"
#include "planner/lr_timemodel.h"
#include "planner/lr_topo.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_linux.h"

/* Propagation delay in fibre, s per km (../shared/reference/training.md). */
#define LR_CTL_S_PER_KM 5e-6

/* Plans remembered (see struct plan_memo). */
#define LR_CTL_MEMO 256

/* A plan depends only on the model, the training shape, the algorithm
 * and the devices it may use, and the planners are deterministic: the
 * same question gets the same answer, so it is asked once.  Operators
 * submit the same job templates again and again, and a released job
 * gives back exactly the devices it took, so the same free-device vector
 * comes back; planning (milliseconds) would otherwise dominate an
 * admission (tens of microseconds for the rest).  A model is its name
 * and, for an intent's own model, its shape: two intents may give one
 * name to different shapes, or a preset's name to their own. */
struct plan_memo {
    char model[LR_NAME_MAX];
    bool custom;
    struct lr_transformer shape;      /* when custom; zeros otherwise */
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
    /* The configured modulation table (lr_ctl_config.mods), which every
     * network opened builds its RMSA engine with. */
    struct lr_modtable mods;
    struct lr_store *store;
    int dc_node[LR_TM_MAX_DCS];       /* ROADM each DC attaches to */
    int gpus_used[LR_TM_MAX_DCS];
    /* Every stored job (in no order): read anywhere, written only
     * through jobs_write() (lr_ctl.c), the one way to a writable job,
     * which counts the change in 'jobs_gen'. */
    const struct lr_job *jobs;
    int n_jobs, cap_jobs;
    /* lr_ctl_jobs_gen(): counts the changes to what the jobs tree of a
     * GET prints (the jobs through jobs_write(), the network through
     * open_network() and its undoing). */
    unsigned long long jobs_gen;
    const struct sb_driver_class **cls;   /* per topology node */
    struct sb_device **dev;
    /* Each ROADM's health, per topology node (lr_ctl_dev.h): written on
     * the owner's thread only, from what the ops saw (op->seen) as they
     * end and from the opens. */
    struct lr_ctl_dev *devst;
    void (*device_hook)(void *, const char *, bool, const char *);
    void *device_arg;                 /* lr_ctl_set_device_hook() */
    struct lr_ctl_counters counters;
    struct plan_memo *memo;           /* [LR_CTL_MEMO] */
    unsigned long long memo_clock;
    /* Counts the networks opened (open_network): a plan made off the
     * owner's thread on another network is not kept (lr_ctl_plan_end). */
    unsigned long network_gen;
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
    char agent_crl[1024];         /* "": no revocation check */
    double agent_timeout;
    double agent_budget;              /* s, a whole plan; 0: none */
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
    int cdynp_step;                   /* lr_ctl_config's */
    int cdynp_beam;                   /* lr_ctl_config's */
    struct lr_ctl_ppo_rollout ppo_ro;
    bool ppo_has_ro;
    /* When the policy in use was loaded (ctl_now_ms) and how many reloads
     * replaced it since lr_ctl_new(), for lr_ctl_ppo_info(). */
    long long ppo_loaded_ms;
    unsigned long ppo_reloads;
    const struct lr_jenv_policy *ppo_base;
    void *ppo_base_arg;
    /* Every intent taken for planning, at ctl_now_ms in seconds, for the
     * load a policy with observe-load=1 is shown (tau and warm-up in
     * ppo-mean-job-s; lr_rate.h). */
    struct lr_rate arrivals;
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
    /* A plan with the agents in flight (lr_ctl_plan_begin with remote
     * DCs), or RELEASEs (lr_ctl_release_begin): the agent parties are
     * lent to it, so the RELEASEs due meanwhile wait in 'deferred'
     * (oldest first) until lr_ctl_plan_end sends them (without a
     * release hook), and a new network waits.  With 'release_hook' every
     * RELEASE waits there for an op (lr_ctl.h, "RELEASEs off the owner's
     * thread"); 'n_releasing' counts those in the op in flight. */
    bool agents_lent;
    struct lr_ctl_release *deferred;
    int n_deferred, cap_deferred, n_releasing;
    void (*release_hook)(void *);
    void *release_arg;
    /* The agents that have not confirmed the KEEP of the start
     * (keep_agents: unreachable then): each op that takes the agents
     * carries one to them, until one is answered.  A new network keeps
     * it owed by the agents it keeps (carry_keeps()). */
    bool keep_due[LR_TM_MAX_DCS];
    /* Each agent's last failure (lr_agent_party_error(), "" when none)
     * as it was when the agents were lent (lr_ctl_snapshot_agents()): what
     * lr_ctl_agent_status() says while they are away. */
    char agent_why[LR_TM_MAX_DCS][LR_CTL_AGENT_WHY];
    bool agent_answered[LR_TM_MAX_DCS];   /* its connection was up */
    unsigned agent_idle_closes[LR_TM_MAX_DCS];  /* and its idle closes */
    /* The last plan made with the agents off the owner's thread, kept by
     * lr_ctl_plan_end for the admission of its intent, which follows it
     * (owned; NULL when none). */
    struct lr_ctl_plan *agent_plan;
};

/* A KEEP to DC 'dc's agent, carried by an op: the names of the jobs
 * that held a range there when the op began (lr_ctl_held_tags(): provisioning,
 * active or releasing), owned. */
struct lr_ctl_keep {
    int dc;
    struct lr_cdynp_party *agent;     /* c->agent[dc], borrowed */
    char (*tags)[LR_WIRE_NAME_MAX];
    int n;
    bool answered;                    /* set by op_run */
};

/* A RELEASE of 'tag' at 'agent' put off while the agents are lent. */
struct lr_ctl_release {
    struct lr_cdynp_party *agent;     /* c->agent[k], borrowed */
    char tag[LR_JOB_NAME_MAX];
    int tries;                        /* sent, unanswered, so far */
};

/* Step 6b of one lightpath, as the device step needs it. */
struct lr_ctl_lpcheck {
    const struct sb_driver_class *cls;    /* NULL: not judged */
    struct sb_device *a, *b;              /* its first and last ROADM */
    struct sb_lightpath p;
    char from[64], to[64];                /* the DCs, for the message */
};

struct lr_ctl_recon;                  /* lr_ctl_recon.c */
struct lr_ctl_decision;               /* lr_ctl.c, algorithm ppo */

/* A plan made off the owner's thread (lr_ctl_plan_begin, in lr_ctl.c;
 * the plan kept for an admission, c->agent_plan, is lr_ctl_agents.c's):
 * the planner's question, which it owns (the model and the time model
 * over the devices the admission would offer), and the memo entry it
 * fills.  With remote DCs it is CDynP with their agents
 * (lr_ctl_plan_with_agents), and its answer is for one admission only,
 * not the memo: the agents' devices change without this controller's
 * knowing, and a COMMIT follows the agent's last JOB
 * (docs/agent-protocol.md). */
struct lr_ctl_plan {
    struct lr_model *model;
    struct lr_tm *tm;                 /* over 'model' */
    struct plan_memo key;             /* why and plan set by the run */
    unsigned long network_gen;        /* c->network_gen when begun */
    int step;                         /* c->cdynp_step */
    int beam;                         /* c->cdynp_beam */
    /* The thread that began it (the loop's): run there too (no memory
     * to queue it for the planner), it does not wait for an agent's
     * restart (lr_ctl_plan_with_agents()). */
    pthread_t owner;
    /* With the agents: */
    bool agents;
    char name[LR_JOB_NAME_MAX];       /* the intent's */
    const struct lr_cluster *cluster; /* borrowed: c->cluster */
    struct lr_cdynp_party *agent[LR_TM_MAX_DCS];  /* lent: c->agent */
    struct lr_cdynp_result res;       /* set by the run */
    char why[LR_JOB_REASON_MAX - 32]; /* the run's, when it found none;
                                         else the note of
                                         lr_ctl_plan_with_agents() */
    /* Set by the run, which commits a plan it found at the agents of its
     * chain (lr_ctl_commit_chain()) under the intent's name:
     * 'committed', or the failure's code and reason; RELEASEs not
     * confirmed, and the agents that did not answer theirs. */
    bool committed;
    int commit_rc;
    char commit_why[LR_JOB_REASON_MAX];
    int unconfirmed;
    bool lost[LR_TM_MAX_DCS];
};

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
    /* What the device step saw of each ROADM, per topology node
     * ([n_seen], the network's n_nodes; NULL for an op that touches no
     * ROADM): written by the step's thread only, folded into c->devst
     * when the op ends (lr_ctl_devs_fold).  'item_node': each item's
     * node ([n_items]). */
    struct lr_ctl_dev_seen *seen;
    int n_seen;
    int *item_node;
    struct lr_ctl_decision *dec;      /* a ppo decision, else NULL */
    struct lr_ctl_plan *plan;         /* a plan to make, else NULL */
    /* RELEASEs to send first (owned; lr_ctl_release_begin, or taken
     * along by a plan), and how many the agents did not confirm (set by
     * op_run, which leaves in 'rel' those to try again, and counts in
     * 'rel_given_up' those tried LR_CTL_RELEASE_TRIES times).
     * 'agents_only': nothing else to run. */
    struct lr_ctl_release *rel;
    int n_rel, rel_failed, rel_given_up;
    struct lr_ctl_keep *keep;         /* [n_keep], sent before 'rel' */
    int n_keep;
    bool agents_only;
    /* Set by op_run. */
    int rc;
    char err[LR_CTL_ERR_MAX];
    bool stuck;                       /* an add failed and removing its
                                       * channels again failed too: some
                                       * may be left on the devices */
};

/* lr_ctl.c */
void lr_ctl_devs_fold(struct lr_ctl *, const struct lr_ctl_op *);
int lr_ctl_fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void lr_ctl_op_lend(struct lr_ctl *, struct lr_ctl_op *);
void lr_ctl_op_unlend(struct lr_ctl *, struct lr_ctl_op *);
int lr_ctl_fail_busy(const struct lr_ctl *, char *err, size_t errlen,
                     const char *then);
void lr_ctl_decision_free(struct lr_ctl_decision *);
void lr_ctl_decision_run(struct lr_ctl_decision *);
void lr_ctl_plan_free(struct lr_ctl_plan *);
void lr_ctl_plan_run(struct lr_ctl_plan *);
void lr_ctl_memo_key(const struct lr_intent *, const char *algo,
                     const struct lr_tm *, struct plan_memo *key);
bool lr_ctl_memo_same(const struct plan_memo *, const struct plan_memo *);
void lr_ctl_set_note(struct lr_job *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lr_ctl_unbook_lightpaths(struct lr_ctl *, const struct lr_job *);

/* lr_ctl_agents.c.  The agents (c->agent[]) stay the controller's
 * throughout: an op or a plan borrows them (struct lr_ctl_keep, struct
 * lr_ctl_release, struct lr_ctl_plan), and the RELEASEs and KEEPs handed
 * to an op are the op's to free (lr_ctl_op_free, lr_ctl_keep_free). */
enum lr_tm_why lr_ctl_plan_with_agents(const struct lr_cluster *,
                                       struct lr_cdynp_party *const *agent,
                                       const struct lr_tm *, int step,
                                       int beam, bool on_loop,
                                       struct lr_cdynp_result *,
                                       struct lr_plan *, char *why,
                                       size_t len);
int lr_ctl_commit_chain(struct lr_cdynp_party *const agent[],
                        const struct lr_cluster *,
                        const struct lr_cdynp_result *, const char *tag,
                        char *why, size_t whylen, int *unconfirmed,
                        bool lost[]);
int lr_ctl_commit_remote(struct lr_ctl *, struct lr_job *,
                         const struct lr_cdynp_result *);
void lr_ctl_release_chain(struct lr_ctl *, const struct lr_cdynp_result *,
                          const char *tag);
void lr_ctl_release_remote(struct lr_ctl *, const struct lr_job *);
void lr_ctl_retry_lost(struct lr_ctl *, const bool lost[], const char *tag);
void lr_ctl_send_deferred(struct lr_ctl *);
bool lr_ctl_hand_deferred(struct lr_ctl *, struct lr_ctl_op *);
void lr_ctl_release_run(struct lr_ctl_op *);
int lr_ctl_held_tags(const struct lr_ctl *, int k,
                     char (*tags)[LR_WIRE_NAME_MAX], int cap);
void lr_ctl_hand_keeps(struct lr_ctl *, struct lr_ctl_op *);
void lr_ctl_keep_run(struct lr_ctl_op *);
void lr_ctl_keep_free(struct lr_ctl_op *);
void lr_ctl_snapshot_agents(struct lr_ctl *);
void lr_ctl_agents_back(struct lr_ctl *, struct lr_ctl_op *,
                        const char *committed,
                        struct lr_cdynp_party *const chain[], int n_chain);
void lr_ctl_settle_before_plan(struct lr_ctl *);
void lr_ctl_settle_agents(struct lr_ctl *);
bool lr_ctl_kept_answers(const struct lr_ctl *, const struct lr_intent *,
                         const struct plan_memo *);
void lr_ctl_drop_agent_plan(struct lr_ctl *);
struct lr_ctl_plan *lr_ctl_take_agent_plan(struct lr_ctl *,
                                           const struct lr_intent *,
                                           const struct lr_tm *);

/* lr_ctl_op.c */
int lr_ctl_changes_for(const struct lr_ctl *, const struct lr_job *,
                       int node, enum sb_op op, struct sb_change *ch);
void lr_ctl_op_free(struct lr_ctl_op *);
int lr_ctl_op_new(struct lr_ctl *, const struct lr_job *, bool release,
                  struct lr_ctl_op **out);
void lr_ctl_lp_name(const struct lr_job *, int k, char *out, size_t len);
int lr_ctl_dp_add(struct sb_linux *, pthread_mutex_t *lock,
                  const struct lr_job *, bool exist_ok, char *err,
                  size_t errlen);
int lr_ctl_unprovision_now(struct lr_ctl *, const struct lr_job *,
                           char *err, size_t errlen);

/* lr_ctl_recon.c */
void lr_ctl_say(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lr_ctl_recon_free(struct lr_ctl_recon *);
void lr_ctl_recon_run(struct lr_ctl_op *);
int lr_ctl_end_reconcile(struct lr_ctl *, struct lr_ctl_op *, char **report,
                         int *drift, char *err, size_t errlen);
/* The start's reconciliation (recover(), lr_ctl.c): lr_ctl_reconcile()
 * with repair, except that an active job's channel missing from the
 * read of a driver whose read is its record (sb_driver.h
 * read_is_record), empty in a new process, is installed again as no
 * difference: "re-installed: the driver's record starts empty",
 * counted in counters.reinstalled, not in '*drift' nor counters.drift
 * (one whose install fails is, said as a failure). */
int lr_ctl_reconcile_at_start(struct lr_ctl *, char **report, int *drift,
                              char *err, size_t errlen);

/* lr_ctl_admit_ppo.c */
void lr_ctl_ppo_note_work(struct lr_job *, double work, const char *ro);
int lr_ctl_admit_ppo(struct lr_ctl *, const struct lr_model *,
                     const struct lr_train *, struct lr_job *, int a,
                     double work, const char *ro, char *why, size_t len);

#endif
