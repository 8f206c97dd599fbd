/*
 * lr_ctl: the controller's core — admission, provisioning, release and
 * recovery of training jobs, the one place that touches the planner, the
 * store and the devices together.
 *
 * Admission of an intent (lr_ctl_submit):
 *   1. the GPUs free in each DC, trimmed to the intent's maximum (most
 *      compute first); fewer than its minimum -> blocked "no GPUs";
 *   2. a plan over those GPUs with the intent's algorithm (CDynP by
 *      default), inter-DC links as the cluster states them ("fixed"
 *      mode); none -> blocked with the planner's reason;
 *   3. for each boundary between DCs a and b, two lightpaths (a->b for the
 *      activations, b->a for the gradients) between the ROADMs the DCs
 *      attach to, at the highest rate of 400, 200, 100 Gb/s that the RMSA
 *      engine (KSP-FF, 5 shortest paths by hops) can place; none ->
 *      blocked "no spectrum";
 *   4. the plan's T again with the lightpaths ("optical" mode: capacity of
 *      the lightpath, 5 us per km);
 *   5. one store transaction: the job in phase provisioning with its GPUs,
 *      slots and lightpaths;
 *   6. each lightpath becomes a media channel on every ROADM of its path,
 *      every device at once (southbound/sb_parallel); a device that fails
 *      -> the devices done are undone, the job ends failed with the
 *      device's message and holds nothing; ETIMEDOUT -> the device is
 *      read back first;
 *   6b. when the driver of a lightpath's first ROADM can judge a whole
 *      lightpath (check_lightpath, e.g. mnoptical: terminals tuned and
 *      turned on, the receiver's gOSNR against the modulation's
 *      threshold), its last ROADM has the same driver and both DCs have
 *      a terminal configured, each lightpath is checked once all ROADMs
 *      accepted their channels; one not received -> every channel of
 *      the job is removed and the job ends failed with the measured
 *      gOSNR, the threshold and the margin.  Otherwise nothing is
 *      checked (the other drivers have no terminals);
 *   7. phase active.
 * Release (lr_ctl_delete): phase releasing, channels removed from every
 * device, the job and all it holds deleted in one transaction.
 * DCs planned by their agents (the inventory's 'remote' DCs,
 * docs/agent-protocol.md): step 2 runs CDynP over the agents through
 * controller/lr_agent_party.h (or takes the plan lr_ctl_plan_begin had
 * made off the owner's thread), only CDynP may plan such a cluster, and
 * the GPU range bounds this controller's own DCs (a remote DC lends what
 * its agent has free).  The job's plan holds, for each remote DC of the
 * chain, one stage with no devices: its layers, whose stages stay
 * private.  After step 3 every agent of the chain gets COMMIT (it
 * reserves its stages under the job's name; a plan made off the owner's
 * thread was committed there, right after it was found, and a job then
 * blocked or refused gets RELEASE); an agent that fails or
 * refuses blocks the job with its reason, and the agents committed
 * already get RELEASE (one unanswered is tried again as below): no
 * partial state.  Step 4 keeps the chain's T (the
 * coordinator cannot evaluate private stages).  A job that ends failed or
 * is deleted gets RELEASE too (best effort: an agent that cannot be
 * reached keeps its reservation, across its restarts with --state-dir,
 * unless a release hook's RELEASE, tried again, or a KEEP reaches it;
 * see below).  Recovery ends
 * with KEEP to every agent: the names of the jobs with a range there
 * (active, or provisioning or releasing: they hold what they committed);
 * the agent frees whatever else this controller committed.
 * With an emulated data plane (southbound/sb_linux.h), step 6 also makes
 * every lightpath a shaped veth pair between the DCs' namespaces, after
 * the ROADMs and with the same all-or-nothing: a pair that cannot be
 * made undoes the pairs and the channels already made.  Release removes
 * the pairs before the channels; recovery re-makes the pairs of active
 * jobs (a data plane starts empty).
 * Algorithm ppo (controller/lr_ctl_ppo.h): when the configured policy is
 * usable and the intent maps to one of its job classes, steps 1-3 are
 * the policy's decision instead: the candidate the actor takes on a
 * mirror of this controller's state (GPUs used, spectrum) gives the DCs
 * in chain order and their GPU counts (all g in one DC, or g/2 and the
 * rest in two), CDynP partitions the stages over that chain only, and a
 * pair's two lightpaths are the candidate's route (K shortest by km) in
 * each direction at the candidate's rate tier, on the first-fit slots of
 * the mirror (the same spectrum), with the most efficient format that
 * reaches.  Otherwise, or when the policy finds no feasible candidate,
 * the intent is admitted as cdynp would be, and the job's note says
 * "ppo: <why>; planned by cdynp".  The note of a ppo decision names the
 * candidate, and for a policy trained with known work the work X it was
 * shown ("work 1.73 x mean", from the intent's iterations; an intent
 * without iterations falls back to CDynP for such a policy).
 * Recovery (lr_ctl_new): jobs caught in provisioning are rolled back
 * (failed, "interrupted by a restart"), jobs caught in releasing are
 * finished, and every device is reconciled with the store, all on the
 * caller's thread (lightraild: before its server listens).
 *
 * Errors: functions return 0 or a positive errno and write one line into
 * err[errlen]: EINVAL bad intent (unknown model), EEXIST duplicate name,
 * ENOENT unknown job, EIO store or device failure.  A blocked job is not
 * an error: lr_ctl_submit returns 0 and the job says why.
 *
 * Ownership: lr_ctl_new() takes ownership of nothing; it copies or loads
 * what it needs.
 *
 * Three steps, and which thread owns what.  An admission (steps 1-5
 * above) and a release are split so that a daemon's event loop never
 * waits for a device:
 *   begin  (lr_ctl_submit_begin, lr_ctl_delete_begin) on the owner's
 *          thread: plan, reserve the GPUs and the spectrum in memory so
 *          that later admissions see them taken, store the job as
 *          provisioning (or set it releasing) -- a crash from here on is
 *          the recovery above -- and return the device work as an op;
 *   run    (lr_ctl_op_run) on any one thread: step 6 (or the removal),
 *          all or nothing, reading nothing but the op;
 *   end    (lr_ctl_op_end) on the owner's thread: commit (active;
 *          deleted) or roll back (failed, holding nothing; a release
 *          that failed stays releasing), in memory and in the store.
 * The owner's thread (lightraild: the event loop) owns the struct lr_ctl,
 * the store and everything the read-only views return; one struct
 * lr_ctl_op at a time is owned by the thread that runs it, from begin's
 * return until run returns, and with it the devices of its path and the
 * data plane, which the controller lends it: while any op is in flight
 * (begun, not ended) lr_ctl_set_inventory() and the synchronous
 * lr_ctl_reconcile() answer EBUSY, and the data plane is only called
 * under a lock that lr_ctl_sample() takes too.  A reconciliation is
 * three steps too (lr_ctl_reconcile_begin): its op borrows every device
 * and queues with the jobs' ops.  Ops may run one after the other in begin
 * order (lightraild's one worker thread, controller/lr_worker.h); two
 * ops must not run at once (they may share a device).
 * A job in flight refuses a second request: a submit of its name
 * EEXIST, a delete EBUSY ("try again when ...": the delete does not
 * queue behind the admission).
 * lr_ctl_submit() and lr_ctl_delete() are the three steps in one call,
 * on the caller's thread (the CLI, the tests).  Every op begun must be
 * ended before lr_ctl_free().
 */
#ifndef LR_CTL_H
#define LR_CTL_H 1

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "controller/lr_ctl_ppo.h"
#include "controller/lr_job.h"
#include "planner/lr_cluster.h"
#include "planner/lr_rsa.h"
#include "planner/lr_topo.h"
#include "planner/lr_telemetry.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_linux.h"

/* The bytes an error of the core's holds whole, its NUL included: a
 * device's line (SB_PAR_ERR_MAX, southbound/sb_parallel.h: under 1,500
 * bytes) in the core's words around it (the job, the ROADM, what to
 * do: a few hundred).  lr_ctl_op's err is this size; a caller that
 * passes less gets the text cut, marked " [...]", and may lose the
 * advice at its end (a ROADM's way out: mnoptical's /reset). */
#define LR_CTL_ERR_MAX 3072

struct lr_ctl;
struct lr_tls_span;

struct lr_ctl_config {
    const char *db_path;              /* SQLite file */
    const struct lr_topo *topo;       /* copied */
    const struct lr_cluster *cluster; /* copied */
    const char *topo_json;            /* stored as documents */
    const char *cluster_json;
    const char *default_driver;       /* "dummy" */
    const char *dummy_dir;            /* the dummy devices' state */
    const struct sb_device_config *devices;   /* overrides per ROADM */
    int n_devices;
    /* The data centers' terminals (copied), for drivers that judge a
     * whole lightpath (sb_driver.h check_lightpath, step 6b above). */
    const struct sb_terminal *terminals;
    int n_terminals;
    /* The coordinator's certificate and key and the CA that signs the DC
     * agents' certificates (PEM files), needed when the inventory marks
     * DCs remote; 'agent_timeout_s' bounds each exchange (0: 5 s).
     * 'agent_crl', the CAs' CRLs (PEM), or NULL or "": none; read when
     * the agents' parties are made (lr_agent_party_new()), refused
     * then when stale, not the CA's or not PEM. */
    const char *agent_cert, *agent_key, *agent_ca, *agent_crl;
    double agent_timeout_s;
    /* What a whole plan with the agents may take (lr_agent_party_set_
     * budget); 0: no bound. */
    double agent_budget_s;
    /* The emulated data plane, or NULL (borrowed: it must outlive the
     * controller).  Its DCs are the cluster's, index for index. */
    struct sb_linux *dataplane;
    /* Inspect only: load what the store says without recovering or
     * touching a device, so that lr_ctl_check() judges the state a
     * crash or a stop left (tools and tests). */
    bool inspect;
    /* The trained PPO policy file (lightrail train), or NULL: intents
     * for algorithm ppo then fall back to CDynP.  See lr_ctl_ppo.h and
     * docs/ppo.md "In the controller".  A missing or incompatible file
     * is not an error: lr_ctl_ppo_status() says why. */
    const char *ppo_policy;
    /* ppo-mean-job-s: the seconds a ppo policy trained with known work
     * takes for its unit of time (an intent's iterations become its work
     * X = iterations x T_ref / this); 0: the default, 3600. */
    double ppo_mean_job_s;
    /* cdynp-device-step: CDynP's device step in the DCs planned here
     * (lr_cdynp_options.device_step: 0 automatic, LR_CDYNP_STEP_BEST,
     * or a step). */
    int cdynp_step;
    /* cdynp-beam: CDynP's beam width beyond LR_CDYNP_ALL_ORDERS DCs
     * (lr_cdynp_options.beam: 0, as a zeroed config has it, the default
     * width; -1 the greedy chain's prefixes only), for the chains of
     * the DCs planned here and over the agents alike. */
    int cdynp_beam;
    /* ppo-rollout: decide ppo intents by the rollout of the policy on
     * the network as it is and its running jobs (lr_ctl_ppo.h); NULL:
     * the policy alone.  A value out of range fails lr_ctl_new(). */
    const struct lr_ctl_ppo_rollout *ppo_rollout;
    /* A baseline of the planner deciding ppo intents instead of the
     * agent (lr_ctl_ppo_set_base; 'ppo_base_arg' borrowed), or NULL.  For
     * benchmarks and tests; lightraild leaves it NULL. */
    const struct lr_jenv_policy *ppo_base;
    void *ppo_base_arg;
    /* The clock (Unix milliseconds) of the jobs' created and updated
     * times and of the running jobs' time left; NULL: the real one.  For
     * replays in simulated time (tools/bench/lr-bench-replay). */
    long long (*clock_ms)(void *arg);
    void *clock_arg;
    /* The modulation table every network is planned with (copied;
     * lr_modtable_load() reads lightraild's modulation-table), or
     * NULL: the default table.  Stored lightpaths keep their format by
     * name; recovery reports each that this table no longer fits
     * (lr_lightpath_fits()) and keeps it as stored. */
    const struct lr_modtable *mods;
};

struct lr_ctl_counters {
    unsigned long long admissions, blocks, failures, deletes;
    unsigned long long blocks_gpus, blocks_spectrum, blocks_plan;
    unsigned long long reconciles;    /* reconciliations ended */
    unsigned long long drift;         /* differences they found */
    /* Channels of active jobs a start installed again on a ROADM whose
     * driver's read is its record (sb_driver.h read_is_record), empty
     * in a new process, and those a reconciliation asked to
     * (lr_ctl_reconcile_set_reinstall()) installed again: no
     * difference found, so not in 'drift'. */
    unsigned long long reinstalled;
    /* ppo intents (algorithm "ppo"): planned on the policy's candidate,
     * refused by the policy, or planned by CDynP instead (no usable
     * policy, an intent outside its mix, no feasible candidate, or a
     * candidate without a plan); each is one of the three. */
    unsigned long long ppo_candidate, ppo_refused, ppo_cdynp;
    /* Decisions taken off the owner's thread (lr_ctl_decide_begin) that
     * found the network changed when they were submitted: the choice
     * still feasible and kept, or decided again by the policy alone. */
    unsigned long long ppo_stale_kept, ppo_stale_redecided;
    /* RELEASEs of a job's commitment an agent did not confirm (it was
     * unreachable or refused; ENOENT, nothing held, is no failure), each
     * try counted: the agent may still hold the job's devices.  With a
     * release hook one it did not answer is tried again with the agents'
     * next turn on the planner's thread (lr_ctl_releases_retrying), at
     * most LR_CTL_RELEASE_TRIES times in all, then given up: the agent
     * holds them until a job of that name commits there again or this
     * controller's next start sends it KEEP (or, without --state-dir,
     * the agent restarts). */
    unsigned long long agent_release_failures;
    unsigned long long agent_releases_given_up;
    /* Plans made off the owner's thread and kept by lr_ctl_plan_end:
     * in the memo, or (CDynP with the agents) for their own admission. */
    unsigned long long plans_off_loop;
};

/* Opens the store, the devices, and recovers (see above).  '*report' (may
 * be NULL) gets a malloc'ed text of what recovery did. */
int lr_ctl_new(const struct lr_ctl_config *, struct lr_ctl **out,
               char **report, char *err, size_t errlen);
void lr_ctl_free(struct lr_ctl *);

/* Whether the TLS files (certificates, keys, CAs) of each of the 'n'
 * southbound devices a configuration lists load, by their driver's
 * rules (sb_driver_class's check_files, which open() applies too),
 * whether or not a ROADM of the topology is the device yet (a PUT may
 * name it): 0, or EINVAL with the first that does not, "ROADM NAME:
 * what is wrong, what to give" as lr_ctl_new() would say it.  Reads
 * the files, makes nothing: lightraild and lightrail-check refuse such
 * a configuration before their state directory or store.  A device of
 * an unknown driver passes (lr_ctl_new() refuses it). */
int lr_ctl_check_device_files(const struct sb_device_config *devices, int n,
                              char *err, size_t errlen);

/* Admits 'intent'; '*job' gets the job as it ends (active, blocked or
 * failed). */
int lr_ctl_submit(struct lr_ctl *, const struct lr_intent *intent,
                  struct lr_job *job, char *err, size_t errlen);

/* Releases the job and deletes it. */
int lr_ctl_delete(struct lr_ctl *, const char *name, char *err,
                  size_t errlen);

/* The device work of one admission or release (see "Three steps"). */
struct lr_ctl_op;

/* Begins admitting 'intent' (the errors of lr_ctl_submit(), and EBUSY
 * for a ppo intent while a decision is in flight).  '*job' gets the
 * job: when it ends here (blocked, or active without lightpaths) '*op'
 * is NULL; otherwise the job is provisioning and '*op' is its device
 * work, which the caller must run and end. */
int lr_ctl_submit_begin(struct lr_ctl *, const struct lr_intent *intent,
                        struct lr_job *job, struct lr_ctl_op **op,
                        char *err, size_t errlen);

/* Begins releasing job 'name': ENOENT, EBUSY while its own device work
 * is in flight, EIO.  '*op' is NULL when the job is gone already (it
 * held no channels); otherwise the job is releasing and '*op' is the
 * work to run and end. */
int lr_ctl_delete_begin(struct lr_ctl *, const char *name,
                        struct lr_ctl_op **op, char *err, size_t errlen);

/* A ppo decision off the owner's thread.  With ppo-rollout configured a
 * decision takes tens of milliseconds, which a daemon's event loop must
 * not wait for; it is three steps too:
 *   begin  (lr_ctl_decide_begin, owner's thread) mirrors the state now
 *          into the policy and presents the intent; the policy is lent
 *          to the decision until it ends;
 *   run    (lr_ctl_op_run, any one thread) runs the rollout;
 *   end    (lr_ctl_submit_decided, owner's thread) begins the admission
 *          as lr_ctl_submit_begin() does, with that decision: as taken
 *          when no job came or went meanwhile (or it refused the job);
 *          otherwise its candidate if still feasible on the state now,
 *          else the actor's own choice on it (the job's note says
 *          which).  lr_ctl_op_end() drops a decision instead.
 * One decision at a time: lr_ctl_decide_begin() and a ppo intent's
 * lr_ctl_submit_begin() answer EBUSY while one is in flight (a daemon
 * queues them), and so does lr_ctl_set_inventory().  Intents for other
 * algorithms are admitted meanwhile.  lr_ctl_submit_begin() alone (the
 * CLI, the tests) decides on the caller's thread, the same way. */

/* '*op' is NULL when 'intent' has nothing to decide off this thread (not
 * ppo, or no usable policy with ppo-rollout): begin its admission with
 * lr_ctl_submit_begin().  Otherwise '*op' is the decision to run and
 * then end with lr_ctl_submit_decided().  EBUSY (another decision is in
 * flight), EEXIST (the name), EINVAL (a DC is planned by its agent:
 * "ask for cdynp", as the admission says, before any decision), ENOMEM;
 * the intent's other errors come from lr_ctl_submit_decided(). */
int lr_ctl_decide_begin(struct lr_ctl *, const struct lr_intent *intent,
                        struct lr_ctl_op **op, char *err, size_t errlen);

/* lr_ctl_submit_begin() for the intent of 'decision' (after
 * lr_ctl_op_run), with its decision; frees 'decision' whatever it
 * returns. */
int lr_ctl_submit_decided(struct lr_ctl *, struct lr_ctl_op *decision,
                          struct lr_job *job, struct lr_ctl_op **op,
                          char *err, size_t errlen);

/* A plan off the owner's thread.  Planning is deterministic and its
 * answers are memoised (struct plan_memo); on DCs of hundreds of GPUs a
 * CDynP plan takes seconds, which a daemon's event loop must not wait
 * for.  So a daemon asks first:
 *   begin  (lr_ctl_plan_begin, owner's thread): '*op' NULL when there is
 *          nothing to plan off it (the memo knows the answer; an
 *          algorithm the memo does not keep: zone, and ppo with a usable
 *          policy (without one, CDynP plans it: that question is asked
 *          here); an intent refused or blocked before planning,
 *          which lr_ctl_submit_begin then says), else the plan to make,
 *          over the devices an admission would offer now;
 *   run    (lr_ctl_op_run, any one thread) runs the planner;
 *   end    (lr_ctl_plan_end, owner's thread) keeps its answer in the
 *          memo (unless the network was replaced meanwhile) and frees
 *          'op'.
 * Then lr_ctl_submit_begin() finds the plan in the memo when no job
 * came or went meanwhile; otherwise it plans again, on its own thread,
 * unless the caller asks lr_ctl_plan_begin() again first.
 * With DCs planned by their agents the plan is CDynP over the agents,
 * whose parties are lent to it from begin to end: meanwhile a RELEASE
 * due waits (end sends it, or the next op with a release hook, below),
 * a new network is refused (EBUSY), and so is
 * an admission (lr_ctl_submit_begin: EBUSY), and begin plans nothing.
 * Its answer is not memoised (the agents' devices change behind the
 * controller's back, and a COMMIT follows the agent's last JOB): the
 * run commits it at the agents of its chain under the intent's name,
 * and end keeps it for the admission of that same intent over the same
 * devices, which must be the next admission begun (any admission drops
 * it, and a plan kept and not taken is released: one of another intent
 * or over other devices plans on the owner's thread then).  So the
 * owner's thread never waits for an agent's COMMIT either, unless it
 * plans itself.  0, or ENOMEM with '*op' NULL. */
int lr_ctl_plan_begin(struct lr_ctl *, const struct lr_intent *intent,
                      struct lr_ctl_op **op, char *err, size_t errlen);
void lr_ctl_plan_end(struct lr_ctl *, struct lr_ctl_op *op);

/* RELEASEs off the owner's thread.  A RELEASE is one exchange with an
 * agent, bounded by its timeout; an agent that is cut off makes the
 * owner wait that long for each job deleted.  Without a hook a RELEASE
 * is sent where it is due (as lr_ctl_submit() and lr_ctl_delete()
 * need), except while a plan has the agents (it waits for the plan's
 * end).  With a hook (lightraild's) every RELEASE waits in a queue, and
 * 'hook(arg)' is called on the owner's thread each time one is queued;
 * the queue is sent in steps too, on the thread that plans:
 *   begin  (lr_ctl_release_begin, owner's thread): '*op' holds the
 *          queue and the KEEPs owed (lr_ctl_keeps_due), NULL when no
 *          RELEASE never tried waits or the agents are lent already;
 *          the agents are lent to it as to a plan, so an admission with
 *          them waits (EBUSY) and so does a new network;
 *   run    (lr_ctl_op_run, any one thread) sends them, oldest first;
 *   end    (lr_ctl_release_end, owner's thread) counts the RELEASEs
 *          the agents did not confirm and frees 'op'.
 * A plan begun with RELEASEs queued takes them along and sends them
 * first: an agent frees its devices before it is asked for them.  A
 * RELEASE the agent did not answer (unreachable, a timeout), queued or
 * sent by a COMMIT that failed (lr_ctl_commit_chain in
 * lr_ctl_agents.c), is queued again, to be tried with the agents' next
 * turn (a plan, or RELEASEs never tried: those alone ask for an op), at
 * most LR_CTL_RELEASE_TRIES times in all; one of a name the plan has just
 * committed, at an agent of its chain, is dropped (that COMMIT released
 * the leftover itself; at the other agents the leftover is still due).
 * An
 * admission that plans with the agents on the owner's thread first
 * sends there what a plan op would (the KEEPs owed, the whole queue),
 * and does not send those of its own name that wait again a second
 * time before its COMMIT: it holds them back until the COMMIT's outcome
 * is known (a late RELEASE would undo it), then drops them at the agents
 * the COMMIT reached (it releases a leftover of its name itself) and
 * queues the others again.  A RELEASE due twice at one agent (a failed
 * COMMIT's and one that waited) waits once; a new network and
 * lr_ctl_free() send the whole queue there.  lr_ctl_release_begin: 0,
 * or ENOMEM (the queue stays). */
#define LR_CTL_RELEASE_TRIES 10

void lr_ctl_set_release_hook(struct lr_ctl *, void (*hook)(void *arg),
                             void *arg);
int lr_ctl_release_begin(struct lr_ctl *, struct lr_ctl_op **op);
void lr_ctl_release_end(struct lr_ctl *, struct lr_ctl_op *op);

/* RELEASEs never tried, queued or being sent (taken by a plan, or in a
 * release op, retries included); and those queued to be tried again. */
int lr_ctl_releases_pending(const struct lr_ctl *);
int lr_ctl_releases_retrying(const struct lr_ctl *);
/* The agents that did not answer the KEEP sent at start (recovery): an
 * op that takes the agents (a plan, RELEASEs never tried, an admission
 * that plans with them on the owner's thread) carries one
 * to each of them until it is answered, across a new network that keeps
 * the agent (its address, port and certificate name). */
int lr_ctl_keeps_due(const struct lr_ctl *);

/* The coordinator's certificate, key, CA and CRL files (lr_ctl_config
 * agent_*) read again for the agents' next connections, as lightraild does
 * on SIGHUP ('how', for the report): a CRL the CA issued anew before the one
 * loaded expires, a certificate renewed.  Each agent's connection kept since
 * a job is judged again under the new files (lr_agent_party_use_tls()) and
 * closed when they refuse it, so that an agent revoked since is not asked
 * again; the next plan connects anew, and its handshake says why.  A plan
 * made and committed before, kept for its admission, is still admitted: that
 * asks no agent.  One line per connection closed in report[rlen] ("agent
 * dc2: connection closed: its certificate is refused since SIGHUP: revoked
 * by CRL 'F' (serial S, /CN=dc2)") and per agent that could not take the
 * files ("agent dc2: the files read before stay: out of memory"), "" when
 * none.  0; ENOENT: no coordinator
 * configured, nothing read; EBUSY: the agents are lent to a plan or RELEASEs
 * in flight (take the planner's next free turn); EINVAL: a file does not
 * load (err[] names it and says why, as a start would), and every agent
 * keeps the files loaded before.  Owner's thread. */
int lr_ctl_agents_reload_tls(struct lr_ctl *, const char *how, char *report,
                             size_t rlen, char *err, size_t errlen);

/* When to judge the agents' connections again: the span of the wall
 * clock their verdicts hold in (struct lr_tls_span), folded into 's' at
 * 'now' (time(NULL)) from the CRLs they are checked against
 * (coordinator/crl, as each agent's party loaded it: at start, a PUT of
 * the network, a reload above; lr_tls_span_crls(), which also says when
 * those out of their own span went out) and from the chain of each kept
 * connection (lr_tls_span_peer(), which sets 'peers'; not read while a
 * plan or RELEASEs hold the connections: the owner asks again when they
 * are back).  The owner's timer for lr_ctl_agents_recheck_tls() runs
 * over it (lr_tls_span_wait()) only with a connection folded in: with
 * none kept, or none known, 'peers' is false and the timer rests
 * whatever the CRLs' bounds (a handshake fails by a CRL out of its span
 * itself), and a connection a plan made meanwhile is judged when the
 * agents are back, at once if a CRL went out since the last judgment
 * (lr_tls_span_judge()).  With no CRL and no connection kept 's' is
 * left as it was.  Owner's thread; reads nothing a plan in flight
 * changes. */
void lr_ctl_agents_tls_span(const struct lr_ctl *, time_t now,
                            struct lr_tls_span *s);

/* Judges every agent's connection kept since a job again under the CRLs
 * loaded (lr_agent_party_verify_again()), for a CRL whose next update
 * has passed or a certificate of a kept chain past its notAfter, or a
 * wall clock set back before a CRL's last update or a chain's notBefore
 * (lr_ctl_agents_tls_span()): from then on either refuses every
 * handshake, and a connection kept would otherwise go on unchecked for
 * as long as it is used.  One line per
 * connection closed in report[rlen] (struct lr_ctl_report: "CRL 'F'
 * expired at 2026-12-07T03:10:49Z (nextUpdate): connection to dc2
 * closed; install a fresh CRL and send SIGHUP", "certificate /CN=dc2
 * expired at 2026-12-07T03:10:49Z: connection to dc2 closed; the agent
 * must present a renewed certificate", or, refused for another cause,
 * "agent dc2: connection closed: its certificate is refused: " and
 * lr_tls_verify_text()'s words), "" when none.  The next plan
 * connects anew, and its handshake says why it fails.  0; ENOENT: no
 * coordinator configured; EBUSY: the agents are lent to a plan or
 * RELEASEs in flight (take the planner's next free turn).  Owner's
 * thread. */
int lr_ctl_agents_recheck_tls(struct lr_ctl *, char *report, size_t rlen,
                              char *err, size_t errlen);

/* A report of connections closed, one line each, in a caller's buffer
 * (lr_ctl_agents_reload_tls(), _recheck_tls(): up to 64 agents, more
 * lines than a log's buffer holds).  A line that does not fit whole is
 * dropped, never cut, and so are those after it; lr_ctl_report_end()
 * then ends the report with "... and N more lines" (lines, as a reload
 * also reports agents that keep the files read before).  'buf'
 * is the caller's, 'cap' its size (at least LR_CTL_REPORT_TAIL), 'len'
 * and 'more' start at 0, buf[0] at '\0'. */
struct lr_ctl_report {
    char *buf;
    size_t cap;
    size_t len;            /* strlen(buf) */
    unsigned more;         /* lines dropped */
};

/* The room kept for the tail, its NUL included. */
#define LR_CTL_REPORT_TAIL 48

/* Appends one line (printf's 'fmt'; at most 4095 bytes, else dropped). */
void lr_ctl_report_line(struct lr_ctl_report *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends the tail when lines were dropped. */
void lr_ctl_report_end(struct lr_ctl_report *);

/* DC k's agent as the owner last saw it: 'up' unless the last exchange with
 * it failed without an answer (unreachable, broken, too slow), with the
 * reason in 'why' (the one a job it blocked gives).  A refusal (an ERROR
 * answer, e.g. ENOSPC when another job took its devices) is an answer: up,
 * the job's reason says it; so is an agent not asked because the plan's
 * budget was spent on the others before its turn.  Each op that takes the
 * agents tries every one it needs again, so an agent down stays down until
 * an exchange works, across a new network that keeps it (the same address,
 * port and certificate name).  While the agents are lent to an op, what they
 * were when lent.  Owner's thread.  0, or ENOENT when DC k has no agent.
 * 'idle_closes': the connections kept idle that the agent closed (its
 * idle timeout, a restart), each replaced with no failure
 * (lr_agent_party_idle_closes()), since this network's agents were made
 * (a new network's start at 0); 'idle_close' the last one's words
 * ("" while the agents are lent: the planner's thread may write them). */
#define LR_CTL_AGENT_WHY 256
#define LR_CTL_AGENT_IDLE 768
struct lr_ctl_agent_status {
    const char *dc;                   /* the inventory's name (borrowed
                                       * until the network changes) */
    bool up;
    char why[LR_CTL_AGENT_WHY];       /* "" when up */
    unsigned idle_closes;
    char idle_close[LR_CTL_AGENT_IDLE];   /* "" when none */
};
int lr_ctl_agent_status(const struct lr_ctl *, int k,
                        struct lr_ctl_agent_status *out);

/* The device step: any thread, touches only 'op' and what it borrows. */
void lr_ctl_op_run(struct lr_ctl_op *op);

/* The job an op works for (borrowed from 'op'; "" for a
 * reconciliation). */
const char *lr_ctl_op_job(const struct lr_ctl_op *op);

/* Ends 'op' (after lr_ctl_op_run) and frees it (a decision is dropped,
 * and returns 0).  An admission fills
 * '*job' (may be NULL) as it ends, active or failed, and returns 0 as
 * lr_ctl_submit() does; a release returns 0 when the job is deleted,
 * else the devices' error (the job stays releasing). */
int lr_ctl_op_end(struct lr_ctl *, struct lr_ctl_op *op, struct lr_job *job,
                  char *err, size_t errlen);

/* How many ops are in flight (begun, not ended). */
int lr_ctl_busy(const struct lr_ctl *);

/* Whether job 'name' has an op in flight (its devices are being
 * programmed): a delete of it now is EBUSY. */
bool lr_ctl_job_in_flight(const struct lr_ctl *, const char *name);

/* The job, or ENOENT. */
int lr_ctl_get(struct lr_ctl *, const char *name, struct lr_job *job);

/* Every job, in name order, in a new array the caller frees with free(). */
int lr_ctl_list(struct lr_ctl *, struct lr_job **jobs, int *n);

/* Every job, in name order, as pointers to the controller's own in a new
 * array the caller frees with free() (not the jobs).  They stay valid
 * until the jobs change (a call that submits, deletes, plans, ends an
 * op or reconciles; the getters change nothing), so within one callback
 * of the loop: what reads every job there (a GET of the jobs, /metrics)
 * reads them in place, where lr_ctl_list() copies 22 KB a job (a plan
 * holds 512 stages): 220 MB for 10,000 jobs.  0 or ENOMEM. */
int lr_ctl_list_refs(const struct lr_ctl *, const struct lr_job ***jobs,
                     int *n);

/* A number that changes whenever what a GET of the jobs prints may
 * have (yang/lr_yang_job.h's lr_yang_job_cache): a job created, deleted
 * or changed in any way (planned, provisioned, released, failed,
 * reconciled, recovered at the start), and a new network (topology,
 * inventory).  Counted where every such change passes: the one
 * function that gives a writable job (the table is const everywhere
 * else in the core, so a change that bypasses the count does not
 * compile) and the one that opens a network.  The modulation table,
 * which the jobs' lightpaths are judged against, is set once by
 * lr_ctl_new(); the ppo policy prints nothing of a job that its fields
 * do not hold.  The numbers are drawn from one count of the process,
 * so two controllers (a restart within the process) never give the
 * same.  Equal numbers: the same controller, the same jobs in the same
 * memory (the pointers of lr_ctl_list_refs() too), over the same
 * network.  Never 0. */
unsigned long long lr_ctl_jobs_gen(const struct lr_ctl *);

/* Compares every device (and the emulated data plane) with the store;
 * with 'repair', removes orphan channels and pairs and re-applies
 * missing ones.  '*report' gets a malloc'ed text (one line per
 * difference, NULL on EBUSY); '*drift' the number of differences.  EIO
 * when a device cannot be read (the report says which; the others are
 * still compared and repaired).  The three steps below in one call, on
 * the caller's thread: EBUSY while any op is in flight (its devices are
 * lent to the thread that runs it). */
int lr_ctl_reconcile(struct lr_ctl *, bool repair, char **report, int *drift,
                     char *err, size_t errlen);

/* A reconciliation in three steps, like an admission.  Begin (owner's
 * thread) snapshots what the store implies for every device: the
 * channels and pairs of every active job; those of jobs whose op is in
 * flight (begun before, hence run before on a FIFO worker; how they end
 * is not known yet) are left alone, neither expected nor orphans.  It
 * never refuses for an op in flight: it queues behind it.  '*op' is the
 * device step (lr_ctl_op_run: every device read at once through
 * sb_parallel, the drift, and with 'repair' the fixes), in flight from
 * here (lr_ctl_busy() counts it, a new network waits; job requests do
 * not).  0 or ENOMEM. */
int lr_ctl_reconcile_begin(struct lr_ctl *, bool repair,
                           struct lr_ctl_op **op, char *err, size_t errlen);

/* Ends a reconciliation's op (after lr_ctl_op_run) and frees it: the
 * report and the drift as lr_ctl_reconcile() gives them, the counters;
 * '*reinstalled' (NULL: not wanted) the channels installed again of
 * lr_ctl_reconcile_set_reinstall() (with a dry run those that would
 * be), -1 when it was not asked.  lr_ctl_op_end() on such an op ends
 * it too, dropping the report. */
int lr_ctl_reconcile_end(struct lr_ctl *, struct lr_ctl_op *op,
                         char **report, int *drift, int *reinstalled,
                         char *err, size_t errlen);

/* Asks the reconciliation of 'op' (lr_ctl_reconcile_begin(), before
 * lr_ctl_op_run) to install again every channel of an active job that
 * a ROADM's driver record shows as the store wants it, on the ROADMs
 * whose driver reads its own record and whose device takes an install
 * of a channel it holds as that channel again (sb_driver.h
 * read_is_record and reinstalls: mnoptical).  Such a record cannot show
 * a rule the device lost behind the controller's back (an emulator
 * restarted, a /reset), so no reconciliation finds it missing; this
 * puts it back.  Each is a line of the report ("...: re-installed"),
 * counted in the counters' 'reinstalled', not in the drift; without
 * 'repair' the line says it would be and nothing is sent.  One that
 * fails is said, the record left as it was, and the reconciliation
 * ends EIO as for any repair that failed.  The other devices are
 * reconciled as without it. */
void lr_ctl_reconcile_set_reinstall(struct lr_ctl_op *op);

/* lr_ctl_reconcile() with lr_ctl_reconcile_set_reinstall(). */
int lr_ctl_reconcile_reinstall(struct lr_ctl *, bool repair, char **report,
                               int *drift, char *err, size_t errlen);

/* True for an op of lr_ctl_reconcile_begin(). */
bool lr_ctl_op_is_reconcile(const struct lr_ctl_op *op);

/* Replaces the topology and the inventory (the JSON texts are stored as
 * documents).  EBUSY while a job holds resources or an op is in flight;
 * on any error the controller keeps the network it had. */
int lr_ctl_set_inventory(struct lr_ctl *, const struct lr_topo *,
                         const struct lr_cluster *, const char *topo_json,
                         const char *cluster_json, char *err, size_t errlen);

/* The PPO policy: NULL when none is configured or when it is usable
 * ('*usable' true), else one line saying what is wrong with it and what
 * to do (lightraild logs it at start). */
const char *lr_ctl_ppo_status(const struct lr_ctl *, bool *usable);
/* Loads the ppo-policy file again (lightraild on SIGHUP: a policy
 * retrained in place) with the rollout and base lr_ctl_new() was given.
 * 0: the new file is in use.  EINVAL with err[] saying why when it is
 * unusable: a usable policy loaded before then stays in use (err[] says
 * so), an unusable one is replaced.  ENOENT: no ppo-policy configured;
 * EBUSY: a decision is in flight (lr_ctl_decide_begin), reload when it
 * has ended; ENOMEM.  Jobs already placed are not touched. */
int lr_ctl_ppo_reload(struct lr_ctl *, char *err, size_t errlen);
/* Fills 'info' (controller/lr_ctl_ppo.h) with the policy in use; its
 * strings are borrowed from the controller, valid until the next
 * lr_ctl_ppo_reload() or lr_ctl_free().  ENOENT (info zeroed) when no
 * ppo-policy is configured. */
int lr_ctl_ppo_info(const struct lr_ctl *, struct lr_ctl_ppo_info *info);
/* The ppo policy's mirror of the network as its last decision saw it
 * (borrowed; NULL without a usable policy): for the tests. */
const struct lr_jenv *lr_ctl_ppo_mirror(const struct lr_ctl *);

/* Read-only views for the northbound. */
const struct lr_topo *lr_ctl_topo(const struct lr_ctl *);
const struct lr_cluster *lr_ctl_cluster(const struct lr_ctl *);
const struct lr_rsa *lr_ctl_rsa(const struct lr_ctl *);
/* The modulation table the controller plans and checks with (the RMSA
 * engine's, lr_ctl_config.mods), borrowed. */
const struct lr_modtable *lr_ctl_modtable(const struct lr_ctl *);
const int *lr_ctl_gpus_used(const struct lr_ctl *);   /* per DC */
const struct lr_ctl_counters *lr_ctl_counters(const struct lr_ctl *);
/* The emulated data plane (borrowed), or NULL. */
struct sb_linux *lr_ctl_dataplane(const struct lr_ctl *);

/* ROADM i (a topology node, 0 <= i < lr_ctl_devices()) as the owner last saw
 * it: up unless the last operation on it (an apply or a read; opening it is
 * none) got no answer (sb_driver.h: ETIMEDOUT, no session; a refusal of the
 * device's own is an answer), the times of the last success and failure (the
 * controller's clock when the op that saw them ended; 0: none), the last
 * failure's line, operations and failures counted since the start, and the
 * media channels this controller's jobs hold on it (or are provisioning or
 * releasing there).  Step 6b's whole-lightpath check (check_lightpath) is
 * not counted: it judges a path, not one device.  Owner's thread; the
 * strings are borrowed until the network changes.  0, or ENOENT. */
struct lr_ctl_device_status {
    const char *name, *driver, *address;  /* address: no password */
    bool up;
    long long ok_ms, fail_ms;
    const char *why;                      /* "" when none */
    unsigned long long ops, failures;
    int channels;
};
int lr_ctl_devices(const struct lr_ctl *);
/* 'hook' (NULL: none) is called on the owner's thread each time a
 * ROADM goes down ('up' false, 'why' the failure's line) or answers
 * again ('up' true, 'why' ""), as the op that saw it ends: once per
 * change, not per operation, so that a log says it once.  A ROADM
 * already down when the hook is set (lr_ctl_new()'s reconciliation found
 * it so) is said at once, from here.  The strings are borrowed for the
 * call. */
void lr_ctl_set_device_hook(struct lr_ctl *,
                            void (*hook)(void *arg, const char *name,
                                         bool up, const char *why),
                            void *arg);
int lr_ctl_device_status(const struct lr_ctl *, int i,
                         struct lr_ctl_device_status *out);

/* One emulated lightpath as the last sample saw it. */
struct lr_ctl_emulated {
    struct sb_linux_link link;    /* the counters */
    bool measured;                /* two samples apart: the rates are set */
    double throughput_bps;        /* emulated bits/s over the interval */
    double loss;                  /* dropped / offered packets */
    double delay_s;               /* modelled (5 us per km), no netem */
};

/* Telemetry: reads the data plane's counters (sb_linux_sample()) and
 * turns the change since the previous call into throughput and loss per
 * lightpath and per DC pair (planner/lr_telemetry.h).  Without a data
 * plane it does nothing.  lightraild calls it every telemetry interval. */
int lr_ctl_sample(struct lr_ctl *, char *err, size_t errlen);

/* The lightpaths of the last sample, in a new array the caller frees
 * with free(). */
int lr_ctl_emulated_links(const struct lr_ctl *, struct lr_ctl_emulated **out,
                          int *n);

/* The last sample per DC pair, for a telemetry-aware scorer
 * (lr_telemetry_score()); borrowed, valid until the next sample. */
const struct lr_telemetry *lr_ctl_telemetry(const struct lr_ctl *);
/* The job holding slot 'slot' of link 'link', or NULL. */
const char *lr_ctl_slot_owner(const struct lr_ctl *, int link, int slot);

/* Checks that memory, store and devices agree: what the store reserves
 * equals what active jobs hold, no slot is held twice, every active job's
 * channels exist on its devices and no device holds an orphan.  0 or
 * EINVAL with the first violation in err. */
int lr_ctl_check(struct lr_ctl *, char *err, size_t errlen);

/* The stored lightpaths the modulation table in use no longer fits (it
 * lacks their format, their path is beyond the format's reach in it,
 * the format's spectral efficiency there sizes their rate at
 * another slot count, or its OSNR threshold there is above the gOSNR
 * their receivers measured at provisioning: lr_lightpath_fits(); the
 * table changed since they were planned), in the words of
 * lightraild's start report, which says the same: one line each, "job
 * J: lightpath K (A -> B, FORMAT, L km): why: kept as stored, ...",
 * 'why' every check the lightpath fails ("...; and ..."), in
 * a new string stored in '*report' (NULL when there is none, or no
 * memory for the text; the caller frees it).  Returns how many there
 * are.  Not a violation of lr_ctl_check()'s invariants: such a
 * lightpath is held and carried as stored.  Only jobs a start keeps
 * as stored (active, blocked, failed): one interrupted while
 * provisioning or releasing is rolled back or released by it. */
int lr_ctl_mod_mismatch(const struct lr_ctl *, char **report);

#endif
