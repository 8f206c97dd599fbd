/*
 * lr_ctl_ppo: the trained PPO policy inside the controller (issue 6,
 * item 7; docs/ppo.md "In the controller").
 *
 * lightraild's configuration may name a policy file (ppo-policy, written
 * by `lightrail train`, tools/lightrail/lr_policy_file.h).  The controller
 * loads it at start, and again on lr_ctl_ppo_reload() (lightraild's
 * SIGHUP), and builds the joint environment it was trained
 * for (planner/lr_jenv.h: the file's models, demands, batch, microbatch,
 * K and block penalty over the controller's own topology and inventory),
 * then checks that the agent fits it: topology name, DC names in order,
 * the GPUs of each DC, their specifications and the network's signature
 * (when the file records them, lr_policy_meta.gpus, gpu_sig and net_sig),
 * observation and action sizes.  A missing, corrupt or incompatible file
 * leaves the policy unusable with a one-line reason (lr_ctl_ppo_why());
 * the daemon still starts, and intents that ask for `ppo` are planned by
 * CDynP with that reason in their planner-note.
 *
 * A decision (lr_ctl_ppo_prepare, then lr_ctl_ppo_choose) mirrors the
 * controller's state into the environment (GPUs used per DC, the
 * spectrum of every link:
 * lr_jenv_set_state), presents the intent's job class (lr_jenv_present)
 * and takes the most probable allowed action of the actor under the
 * feasibility mask (lr_ppo_act with sample = false: deterministic, the
 * argmax of the masked policy, as `lightrail sim` evaluates it).
 *
 * A policy trained with the refusal action (`lightrail train --refuse`,
 * refuse=1 in its file) may choose it: lr_ctl_ppo_choose() then returns
 * LR_CTL_PPO_REFUSED and the controller blocks the job with the reason
 * "refused by the ppo policy: ..." (no fallback to CDynP: the refusal is
 * the policy's decision, as in `lightrail sim`).
 *
 * A policy trained with known work (`lightrail train --known-work`,
 * known-work=1 in its file) observes each job's length: its work X, the
 * job's duration at its best placement over the mean duration the
 * policy's unit of time stands for.  The controller builds the
 * environment with known_work and takes X from the intent:
 *     X = iterations x T_ref / mean_job_s,
 * T_ref the class's least iteration time on an empty network (seconds:
 * lr_jenv_job_tref() once the class is presented, the environment's own
 * table, so the same T_ref the policy was trained with), mean_job_s the
 * configuration's ppo-mean-job-s (default 3600 s); the pending job then
 * gets X (lr_jenv_set_job_work).  An intent without
 * iterations cannot be decided by such a policy: it falls back to CDynP
 * with "the ppo policy reads each job's length ...: give iterations in
 * the intent".  A policy without known work ignores iterations.  A
 * policy trained with held work (held-work=1) also observes, per DC, the
 * GPU-time the running jobs hold: the mirror then gets the running jobs
 * as for a rollout (below; lr_ctl_ppo_reads_running()).
 *
 * With ppo-rollout configured (lr_ctl_ppo_set_rollout) the decision is
 * the rollout's (planner/lr_jenv_rollout.h, the agent as its base, as
 * `lightrail sim --rollout ppo`): the mirror also gets the running jobs
 * (lr_jenv_set_running: what each holds and the time it has left in the
 * policy's unit, which the controller computes from its iterations), and
 * the futures draw arrivals at the configured load (lr_jenv_set_load)
 * with seeds from the configured seed.  A refusal by the rollout is
 * LR_CTL_PPO_REFUSED with its own reason; lr_ctl_ppo_rollout_note() says
 * whether futures ran and whether they left the agent's choice.
 *
 * An intent maps to a job class when its model is one of the file's
 * models (a preset, by name), its batch and microbatch are the file's,
 * and some GPU demand of the file lies in [gpus min, gpus max]: the
 * largest such demand is taken.
 *
 * Ownership: lr_ctl_ppo_open() always returns an object (NULL only when
 * out of memory); it owns the agent, the models and the environment,
 * which borrows the topology and cluster given to lr_ctl_ppo_bind()
 * (they must outlive the binding: bind again after replacing them).
 * Free with lr_ctl_ppo_free().
 */
#ifndef LR_CTL_PPO_H
#define LR_CTL_PPO_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/lr_job.h"
#include "planner/lr_cluster.h"
#include "planner/lr_jenv.h"
#include "planner/lr_topo.h"

struct lr_ctl_ppo;

/* The default of ppo-mean-job-s (lightrail-config), seconds. */
#define LR_CTL_PPO_MEAN_JOB_S 3600.0
/* 'mean_job_s' when positive and finite, else the default above. */
double lr_ctl_ppo_mean_job_or_default(double mean_job_s);

/* Loads 'path'; on failure the object says why (lr_ctl_ppo_why()).
 * 'mean_job_s' is the duration in seconds the policy's unit of time
 * stands for (ppo-mean-job-s; not positive: the default), read only by
 * a policy trained with known work. */
struct lr_ctl_ppo *lr_ctl_ppo_open(const char *path, double mean_job_s);
void lr_ctl_ppo_free(struct lr_ctl_ppo *);

/* Builds the environment over 'topo' and 'cl' and checks the agent
 * against it; the policy is usable after when lr_ctl_ppo_why() is NULL. */
void lr_ctl_ppo_bind(struct lr_ctl_ppo *, const struct lr_topo *topo,
                     const struct lr_cluster *cl);

/* NULL when usable, else one line: what is wrong and what to do. */
const char *lr_ctl_ppo_why(const struct lr_ctl_ppo *);

/* What the file says of itself (its header and checksum; borrowed, valid
 * until lr_ctl_ppo_free), or NULL when it did not load. */
struct lr_policy_meta;
const struct lr_policy_meta *lr_ctl_ppo_meta(const struct lr_ctl_ppo *);

/* The environment (borrowed), for the controller and the tests. */
struct lr_jenv *lr_ctl_ppo_env(struct lr_ctl_ppo *);

/* Maps 'in' to a job class: 0 with '*model' and '*demand' (indices into
 * the file's lists), or ENOENT with why[] saying which rule failed. */
int lr_ctl_ppo_class(const struct lr_ctl_ppo *, const struct lr_intent *in,
                     int *model, int *demand, char *why, size_t len);

/* ppo-rollout (lightrail-config): decide by the rollout of the policy
 * (planner/lr_jenv_rollout.h, the agent as the base) on the mirror with
 * its running jobs (lr_jenv_set_running). */
struct lr_ctl_ppo_rollout {
    double load;                 /* Erlang the futures draw arrivals at */
    int samples, screen, top, min_gpus;
    long horizon;
    double margin;
    bool refusal;
    uint64_t seed;
};

/* Decide by the rollout from the next lr_ctl_ppo_bind() on.  EINVAL with
 * err[] for a value out of range (lr_jenv_rollout.h). */
int lr_ctl_ppo_set_rollout(struct lr_ctl_ppo *,
                           const struct lr_ctl_ppo_rollout *, char *err,
                           size_t len);
/* Decide with 'base', a policy of planner/lr_jenv.h (greedy,
 * greedy-work, ...; 'arg' is its own, borrowed), instead of the agent,
 * on the same mirror and job classes: a baseline through the
 * controller's own path, for benchmarks (tools/bench/lr-bench-replay)
 * and tests.  Its refusal (-1) is LR_CTL_PPO_REFUSED.  A rollout keeps
 * the agent as its base.  NULL: the agent again. */
void lr_ctl_ppo_set_base(struct lr_ctl_ppo *, const struct lr_jenv_policy *,
                         void *arg);
/* Whether decisions are the rollout's (tens of milliseconds each:
 * lr_ctl_decide_begin takes them off the owner's thread). */
bool lr_ctl_ppo_has_rollout(const struct lr_ctl_ppo *);
/* Whether decisions read the running jobs (a rollout, or a policy that
 * observes the GPU-time they hold, held-work=1 in its file); otherwise
 * lr_ctl_ppo_prepare ignores them and the caller need not build them. */
bool lr_ctl_ppo_reads_running(const struct lr_ctl_ppo *);
/* ppo-mean-job-s in seconds: the policy's unit of time. */
double lr_ctl_ppo_mean_job_s(const struct lr_ctl_ppo *);
/* The offered load (Erlang, >= 0) the next lr_ctl_ppo_prepare shows a
 * policy that observes it (observe-load=1 in its file; others ignore
 * it): lightraild's estimate from its intents' arrival times, the one
 * lr_jenv_load_estimate() keeps in simulation (planner/lr_rate.h). */
void lr_ctl_ppo_set_load(struct lr_ctl_ppo *, double load);
/* What the last decision's rollout did, for the job's note: "" when it
 * ran no futures (none configured, a small job, one alternative). */
const char *lr_ctl_ppo_rollout_note(const struct lr_ctl_ppo *);

/* The policy in use as GET shows it (lightrail-state's ppo-policy,
 * printed by yang/lr_yang_state.c), filled by lr_ctl_ppo_info()
 * (controller/lr_ctl.h). */
struct lr_ctl_ppo_info {
    const char *file;          /* ppo-policy, resolved against the
                                * configuration's directory */
    bool usable;
    const char *why;           /* NULL when usable (lr_ctl_ppo_status) */
    bool rollout;              /* ppo-rollout configured */
    long long loaded_ms;       /* when the policy in use was loaded, the
                                * controller's clock (Unix ms) */
    unsigned long reloads;     /* reloads that replaced it since start */
    /* From the file, when it loaded ('loaded'); else zero and NULL. */
    bool loaded;
    uint64_t checksum;         /* its FNV-1a 64 trailer */
    const char *holding;       /* "exp" or "work" */
    bool refuse, known_work, held_work, triples, quads, observe_load;
    const char *topology, *command;
    const char *teacher;       /* NULL: PPO alone, no imitation */
};

#define LR_CTL_PPO_REFUSED (-2)

/* A decision in two steps, so that the slow one (a rollout: tens of
 * milliseconds) can run off the owner's thread.
 *
 * Prepare (owner's thread) mirrors the state ('used' GPUs per DC, 'occ'
 * with 'nw' words per link as lr_spectrum keeps them; when
 * lr_ctl_ppo_reads_running(), also the 'running' jobs holding them,
 * lr_jenv_set_running, borrowed for the call) and presents class (model,
 * demand) with the intent's 'iterations' (0: not given; read only by a
 * policy with known work).  '*work' is the work X presented (above), or
 * -1 when the policy does not read it.  Returns the number of feasible
 * actions, or -1 with why[] (no iterations for a known-work policy, no
 * feasible candidate, or a state the environment refuses). */
int lr_ctl_ppo_prepare(struct lr_ctl_ppo *, const int *used,
                       const uint64_t *occ, int nw,
                       const struct lr_jenv_running *running, int n_running,
                       int model, int demand, uint64_t iterations,
                       double *work, char *why, size_t len);
/* Choose (any one thread, while nothing else calls into this object)
 * decides on the mirror as prepared: by the rollout when 'rollout' and
 * one is configured, else by the actor (or the base of
 * lr_ctl_ppo_set_base).  Returns the candidate (lr_jenv_cand());
 * LR_CTL_PPO_REFUSED when it refuses the job (why[] says why: the job's
 * least slowdown, or what the rollout found); or -1 with why[].
 * lr_ctl_ppo_rollout_note() then says what the rollout did. */
int lr_ctl_ppo_choose(struct lr_ctl_ppo *, bool rollout, char *why,
                      size_t len);
/* Whether candidate 'a' is feasible on the mirror as last prepared. */
bool lr_ctl_ppo_allowed(const struct lr_ctl_ppo *, int a);

#endif
