/*
 * lr_jenv: the joint multi-job environment.  Training jobs arrive at an
 * elastic optical network whose ROADMs host data centers; each admitted
 * job gets GPUs in one, two or (when asked) three or four DCs, a
 * pipeline-stage partition, and for each boundary between two DCs a
 * lightpath each way.
 * Policies (baselines, PPO) pick from one shared, fixed, discrete list of
 * candidates with a mask.
 *
 * Model.
 *   Arrivals: Poisson of rate lambda = load / h.  Holding time, one of
 *     (lr_jenv_config.holding_mode):
 *     - LR_JENV_HOLD_EXP: exponential with mean h (h = 1 time unit),
 *       drawn independently of the job's iteration time;
 *     - LR_JENV_HOLD_WORK: the job brings a number of iterations
 *       W = X h / T_ref, X exponential of mean 1, and holds its GPUs and
 *       lightpaths for W T(c) = X h T(c) / T_ref, i.e. the exponential
 *       draw stretched by the job's slowdown on the chosen candidate (a
 *       job placed as fast as the empty network allows holds h on
 *       average, a job placed twice as slow holds 2h).
 *     The load quoted is lambda h in Erlang: in the work mode this is the
 *     load at the fastest placements; the occupancy a policy causes is
 *     larger by its slowdown, so placement speed feeds back into
 *     blocking.
 *   A job: a model (uniform over the configured presets), a GPU demand g
 *     (uniform over the configured demands), the shared batch shape
 *     (B, b), and an origin ROADM (uniform; only nearest-node reads it).
 *   A candidate c (the action space, the same for every job):
 *     - one DC d: all g GPUs in d;
 *     - an ordered pair (a, b) of DCs with share s (one of the
 *       configured shares, lr_jenv_config.splits; by default the single
 *       share 1/2), route r (one of the K paths between their ROADMs,
 *       lr_ksp) and rate tier t (100/200/400 Gb/s): g_a = floor(g s) GPUs
 *       in a, g_b = g - g_a in b, and one lightpath per direction: route
 *       r from a to b and route r from b to a, each with the most
 *       efficient modulation that reaches (lr_modulation),
 *       ceil(t / (SE 12.5)) + guard slots, first fit on the path.
 *       A route whose two paths share a directed link (route r of a to
 *       b and route r of b to a through one fibre the same way) is never
 *       feasible: each path's first fit is computed on its own, and the
 *       two could be given the same slots (as two hops of a triple).
 *       Candidates are ordered: the single DCs, then per ordered pair,
 *       per share (in the order configured), per route, per tier.
 *       Uneven shares (say 1/4: g/4 in a, 3g/4 in b; the ordered pair
 *       (b, a) gives the mirror) let a job use GPUs left over unevenly.
 *     - with lr_jenv_config.triples only: an ordered triple (a, b, c) of
 *       DCs on three distinct ROADMs, route r and tier t: a chain of
 *       three pipeline parts, g_a = g_b = floor((g + 1) / 3) GPUs in a
 *       and b, the rest in c (4: 1/1/2, 8: 3/3/2, 16: 5/5/6; never
 *       feasible when the rest is 0), and a lightpath each way on each
 *       hop: route r of pair (a, b) and route r of pair (b, c), tier t
 *       on both, each with its own modulation and first fit.  A triple
 *       whose two hops share a directed link (in any direction of
 *       either) is left out: each hop's first fit is computed on its own,
 *       and two hops on one link could be given the same slots.
 *       Triples come after every pair, per ordered triple, per route,
 *       per tier; without the option the list is the one above, so
 *       every result before triples is unchanged.
 *     - with lr_jenv_config.quads only: an ordered quadruple (a, b, c, d)
 *       of DCs on four distinct ROADMs, route r and tier t: a chain of
 *       four pipeline parts, floor(g / 4) GPUs in each DC and one more
 *       in each of the last g mod 4 (3: never feasible; 4: 1/1/1/1, 6:
 *       1/1/2/2, 8: 2/2/2/2, 12: 3/3/3/3, 16: 4/4/4/4), and a
 *       lightpath each way on each of its three
 *       hops, route r and tier t on each, as for a triple; a quadruple
 *       any two of whose hops share a directed link is left out.
 *       Quadruples come after every triple (or after every pair without
 *       triples), in the same order; without the option the list is the
 *       one above.
 *       The action space is fixed, the GPU counts depend on the job: a
 *       share that gives g_a = 0 or g_b = 0 for demand g, or the same g_a
 *       as a share listed before it, is never feasible for that demand
 *       (its T is +inf).  The default, shares {1/2}, is exactly the
 *       environment before shares existed (g/2 rounded down in a).
 *   The stage partition of candidate c for job class (model, g) is
 *   CDynP's (lr_cdynp_plan) with the chain fixed to c's DCs, their GPU
 *   counts, and the inter-DC link of each hop's lightpath (capacity t,
 *   latency 5 us per km of the hop's forward route); T(class, c) is its
 *   iteration time (lr_timemodel), +inf when no partition fits memory.
 *   These do not depend on the network state (GPUs and slots are
 *   reserved whole), so they are tabulated once in lr_jenv_new(); a step
 *   costs O(actions).
 *   Feasible: T finite, the GPUs free, and for a pair a free block on
 *   both paths (for a triple, on all four; a quadruple, all six).  A
 *   job with no feasible candidate is blocked; a policy may also refuse
 *   (action -1).  A departure releases GPUs and slots.
 *   Deliberate refusal as an action (lr_jenv_config.refuse, for PPO):
 *     one more action after the candidates, index lr_jenv_refuse_action(),
 *     allowed whenever a job is pending (the mask is never empty then);
 *     it refuses the job as -1 does.  A refused job counts as blocked
 *     (blocking = blocked / arrivals, refusals included) and in its own
 *     count 'refused'.  A job with no feasible candidate is still blocked
 *     without a decision: the refusal is only offered when there is
 *     something to refuse.
 *   Two DCs on the same ROADM have no pair candidates (no lightpath to
 *   plan); pipelines over five or more DCs are not in the action space,
 *   over three only with lr_jenv_config.triples, over four only with
 *   lr_jenv_config.quads.
 *
 * Reward (for learning).  Admission of job j on c: -T(j, c) / T_ref(j),
 * with T_ref(j) the least T of j's class on an empty network (so -1 is
 * the best possible), or 0 with reward_blocking_only; blocking, a
 * refusal included: -block_penalty.  A
 * job that arrives with no feasible candidate is blocked without a
 * decision: its penalty is added to the reward of the decision just
 * before it.
 *
 * Metrics, counted after the first 'warmup' arrivals: blocking = blocked /
 * arrivals (refusals included); refused / arrivals; mean iteration time
 * of the admitted and their mean slowdown T / T_ref; time averages over
 * [end of warm-up, now] of GPU utilisation (used / all GPUs), of the
 * variance across DCs of each DC's used share (population variance), and
 * of spectrum utilisation (booked slots / all slots).
 *
 * Pure: no I/O.  Ownership: lr_jenv_new() keeps pointers to the topology,
 * the cluster and the models, which must outlive the environment; free it
 * with lr_jenv_free().  Functions return 0 or a positive errno value with
 * one line in err[] saying what was wrong and what to do.
 */
#ifndef LR_JENV_H
#define LR_JENV_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/lr_cluster.h"
#include "planner/lr_ksp.h"
#include "planner/lr_model.h"
#include "planner/lr_rng.h"
#include "planner/lr_timemodel.h"
#include "planner/lr_topo.h"

#define LR_JENV_MAX_MODELS 8
#define LR_JENV_MAX_DEMANDS 8
#define LR_JENV_N_TIERS 3
#define LR_JENV_MAX_DCS 16

extern const int lr_jenv_tier_gbps[LR_JENV_N_TIERS];   /* 100, 200, 400 */

/* A scripted arrival, for tests: instead of Poisson draws. */
struct lr_jenv_arrival {
    double t;                 /* arrival time, non-decreasing */
    double holding;           /* LR_JENV_HOLD_WORK: at T_ref (X h above) */
    int model, demand;        /* indices into the config's lists */
    int origin;               /* node index */
};

enum lr_jenv_holding {
    LR_JENV_HOLD_EXP = 0,     /* exponential, independent of T */
    LR_JENV_HOLD_WORK = 1,    /* exponential work x the slowdown T / T_ref */
};

/* A share of a job's GPUs in the first DC of a pair: num / den, reduced,
 * 0 < num < den. */
#define LR_JENV_MAX_SPLITS 4
struct lr_jenv_split {
    int num, den;
};

/* Parses "1/4,1/2" (shares num/den, 0 < num < den <= 64, comma-separated,
 * at most LR_JENV_MAX_SPLITS, no two equal) into out[] reduced, in the
 * order given; returns how many, or -1 with one line in err[] saying
 * what is wrong.  "1/2" alone is the default (lr_jenv_splits_default). */
int lr_jenv_splits_parse(const char *s, struct lr_jenv_split *out,
                         char *err, size_t errlen);
/* Writes "1/4,1/2" (n shares; n = 0: "1/2", the default) into buf. */
void lr_jenv_splits_format(const struct lr_jenv_split *, int n, char *buf,
                           size_t len);
/* True when the n shares are the default {1/2} (n = 0 included). */
bool lr_jenv_splits_default(const struct lr_jenv_split *, int n);

/* "exp" or "work", for files and output. */
const char *lr_jenv_holding_name(enum lr_jenv_holding);
/* 0, or EINVAL for a name that is neither. */
int lr_jenv_holding_parse(const char *, enum lr_jenv_holding *);

struct lr_jenv_config {
    double load;              /* Erlang (lambda h) */
    double holding;           /* h, mean holding time (> 0) */
    enum lr_jenv_holding holding_mode;
    int k;                    /* routes per DC pair */
    int guard;                /* guard slots per lightpath */
    double block_penalty;     /* reward of a blocked job is -this */
    struct lr_train train;    /* B, b, e for every job */
    int n_models;
    const struct lr_model *models[LR_JENV_MAX_MODELS];   /* borrowed */
    int n_demands;
    int demands[LR_JENV_MAX_DEMANDS];                    /* GPUs */
    /* NULL: Poisson arrivals; else these, in order (borrowed). */
    const struct lr_jenv_arrival *trace;
    long n_trace;
    /* Adds the refusal action (above) and one observation feature. */
    bool refuse;
    /* The shares of a pair's GPUs in its first DC (above); n_splits = 0
     * means {1/2}, the default.  Each 0 < num < den, no two equal. */
    int n_splits;
    struct lr_jenv_split splits[LR_JENV_MAX_SPLITS];
    /* The job's length is known when it arrives (an intent that carries
     * its number of iterations): adds one observation feature, the
     * pending job's work (below), and lets lr_jenv_job_work() answer.
     * Off: no policy may read a job's length (the default, and the
     * environment of every result before known work existed). */
    bool known_work;
    /* With known work only: the observation also shows, per DC, the
     * GPU-time its running jobs still hold (below): how long the GPUs in
     * use stay taken, which the ends of known-work jobs tell.  Off: the
     * observation of every policy before it. */
    bool held_work;
    /* The reward counts blocked jobs only: an admission earns 0 instead
     * of -T / T_ref (below).  Off: the reward of every result before. */
    bool reward_blocking_only;
    /* Adds the candidates over three DCs (above).  Off: the action space
     * and every result before triples. */
    bool triples;
    /* Adds the candidates over four DCs (above), with or without
     * triples.  Off: the action space and every result before them. */
    bool quads;
    /* Adds one observation feature: the offered load as the arrivals so
     * far show it (lr_jenv_load_estimate, below), for a policy trained
     * over a range of loads.  Off: the observation of every policy
     * before it. */
    bool observe_load;
};

/* The time constant of the load estimate, in mean holding times h: the
 * arrivals of the last few hundred h weigh most (at 1 E, about 100
 * arrivals per time constant: a relative spread of about 7%); and its
 * warm-up (lr_rate.h: for the first 10 h after a reset it reads low). */
#define LR_JENV_LOAD_TAU 100.0
#define LR_JENV_LOAD_WARM 10.0

/* One entry of the action space. */
#define LR_JENV_MAX_CHAIN 4
struct lr_jenv_cand {
    int n_dcs;                /* 1, 2, 3 (triples) or 4 (quads) */
    int dc[LR_JENV_MAX_CHAIN];  /* chain order; -1 past n_dcs */
    int route;                /* 0..k-1 (every hop), or -1 for one DC */
    int tier;                 /* index into lr_jenv_tier_gbps, or -1 */
    /* The ordered pair of each hop, dc[h] * n_dcs + dc[h + 1], for
     * h < n_dcs - 1; -1 past them. */
    int pair[LR_JENV_MAX_CHAIN - 1];
    int split;                /* index into the shares (a pair), or -1 */
};

struct lr_jenv_metrics {
    long arrivals;            /* counted (after warm-up) */
    long blocked;             /* refusals included */
    double blocking;
    long refused;             /* refused on purpose (action -1, the refuse
                               * action, or an infeasible one) */
    double refusing;          /* refused / arrivals */
    long admitted;
    double mean_iteration_s;  /* 0 when none was admitted */
    /* Mean of T / T_ref over the admitted: the iteration time relative to
     * the best the job could get on an empty network (>= 1), comparable
     * across policies that admit different job mixes. */
    double mean_slowdown;
    double gpu_utilisation;
    double dc_load_variance;
    double spectrum_utilisation;
    double elapsed;           /* time units counted */
};

struct lr_jenv;

/* Builds the environment: candidate list, routes, the T table (CDynP,
 * one plan per class and candidate over a pool of DC handles that share
 * each DC's local DP across candidates: about 60 ms for the default job
 * mix on NSFNET with six DCs, 20 ms on the metro; docs/benchmarks.md,
 * "Building the joint environment").  EINVAL with err[] for a DC
 * attached to no node of the topology (lr_topo_attach_node(): its
 * dc-attachment, else the inventory's attachment-node), more than
 * LR_JENV_MAX_DCS DCs, a link of more than LR_BITS_MAX_WORDS x 64 slots, an empty model
 * or demand list, a job class that fits nowhere even on an empty network,
 * bad numbers or shares; ENOMEM. */
int lr_jenv_new(const struct lr_topo *, const struct lr_cluster *,
                const struct lr_jenv_config *, struct lr_jenv **out,
                char *err, size_t errlen);
void lr_jenv_free(struct lr_jenv *);

/* A copy of 'e' in its current state (network, pending job, clock,
 * generator, metrics) that shares e's read-only tables (candidates, K
 * shortest paths, the T table, distances) instead of building them
 * again: for vectorised training, N environments at the cost of one
 * tabulation.  'e' must outlive the clone and is not changed by it.
 * ENOMEM; free the clone with lr_jenv_free(). */
int lr_jenv_clone(const struct lr_jenv *e, struct lr_jenv **out);

/* What a fork (below) keeps of the times its source drew. */
enum lr_jenv_fork_mode {
    /* Only what a policy observes: the pending job's holding and what is
     * left of each running job's are drawn afresh (from the fork's seed;
     * exponential holdings are memoryless, so the remaining time of a
     * running job has the law of a fresh one with its mean). */
    LR_JENV_FORK_OBSERVABLE = 0,
    /* The holding times as drawn: the pending job's work and every
     * running job's end are known (as they would be to a scheduler told
     * each job's number of iterations). */
    LR_JENV_FORK_KNOWN_WORK = 1,
};

/* Makes 'dst', a clone of the same environment (lr_jenv_clone of src or
 * of src's prototype), a possible future of 'src': the same network,
 * running jobs and pending job (their holding times as 'mode' says), but
 * the arrivals after the pending one drawn from 'seed' (Poisson at the
 * configured load, even when src follows a scripted trace) instead of
 * src's generator, and at most 'horizon' more arrivals after the pending
 * one before lr_jenv_done().  Its metrics restart at zero and count
 * every arrival from the pending one on.  For rollout policies
 * (lr_jenv_advantage.h): no allocation unless src's departure heap has
 * more room than dst's (lr_jenv_set_running on the prototype grows it).  EINVAL for a dst that is src or belongs to another
 * environment, horizon < 1 or an unknown mode; ENOMEM (dst unchanged). */
int lr_jenv_fork(struct lr_jenv *dst, const struct lr_jenv *src,
                 uint64_t seed, long horizon, enum lr_jenv_fork_mode mode);

/* Changes the offered load (Erlang) for the next reset; EINVAL unless
 * positive. */
int lr_jenv_set_load(struct lr_jenv *, double load);

/* Empties the network, seeds the arrivals with 'seed', counts metrics
 * after 'warmup' arrivals, and advances to the first job that has a
 * feasible candidate. */
void lr_jenv_reset(struct lr_jenv *, uint64_t seed, long warmup);
/* The same, and lr_jenv_done() once 'limit' jobs have arrived (blocked
 * ones included; 0: never): a bound on a run at a load where nearly
 * every job is blocked before any decision. */
void lr_jenv_reset_limit(struct lr_jenv *, uint64_t seed, long warmup,
                         long limit);

/* Applies 'action' (a feasible candidate index, or -1 to refuse) to the
 * pending job, then advances to the next job with a feasible candidate
 * (processing departures, blocking the jobs in between).  Returns the
 * reward (see above).  An infeasible action counts as a refusal. */
double lr_jenv_step(struct lr_jenv *, int action);

/* True when a scripted trace is exhausted (never for Poisson). */
bool lr_jenv_done(const struct lr_jenv *);

/* The action space: the candidates, then the refusal action when the
 * config asks for it.  The candidates alone: lr_jenv_n_cands(). */
int lr_jenv_n_actions(const struct lr_jenv *);
int lr_jenv_n_cands(const struct lr_jenv *);
/* The index of the refusal action (lr_jenv_n_cands()), or -1 without. */
int lr_jenv_refuse_action(const struct lr_jenv *);
/* Candidate 'action' (< lr_jenv_n_cands()). */
const struct lr_jenv_cand *lr_jenv_cand(const struct lr_jenv *, int action);
/* The pending job's mask over lr_jenv_n_actions() actions: 1 = feasible
 * (the refusal action: 1 whenever a job is pending); valid until the
 * next step. */
const uint8_t *lr_jenv_mask(const struct lr_jenv *);

/* The first feasible candidate of the pending job in lr_jenv_by_time()'s
 * order, greedy's choice; -1 when none is (or no job is pending).  The
 * same over a given mask: the first candidate it allows in that order. */
int lr_jenv_first_feasible(const struct lr_jenv *);
int lr_jenv_first_in_mask(const struct lr_jenv *, const uint8_t *mask);

/* For rollouts (lr_jenv_advantage.h): on, each arrival tests candidates
 * in lr_jenv_by_time()'s order only until one is feasible (whether the
 * job is blocked), refreshing the cached first fits of the routes it
 * reads and no others, keeps it for lr_jenv_first_feasible(), and leaves
 * the rest of the mask and of the route caches to the mask's first read
 * (lr_jenv_mask(), which lr_jenv_observe() and the first-fit and
 * free-share queries make too).  A base policy that needs only greedy's
 * choice then never pays for the whole mask (in a rollout label on
 * NSFNET/6 the whole mask and its caches were three quarters of the
 * time).
 * Every result is the same as with the eager mask, bit for bit.  Off by
 * default; kept across lr_jenv_fork() into this environment.  A lazy
 * environment's reads fill its caches: one thread at a time, reads
 * included. */
void lr_jenv_set_lazy_mask(struct lr_jenv *, bool on);

/* The offered load (Erlang) the arrivals so far show: lambda^ h, lambda^
 * the arrival rate of lr_rate.h (an exponentially weighted count of
 * arrivals with time constant tau = LR_JENV_LOAD_TAU h, corrected for
 * its start at the reset: unbiased for Poisson arrivals of any constant
 * rate after the warm-up of LR_JENV_LOAD_WARM h).  Every arrival counts,
 * blocked ones too; 0 before the first.  Kept by clones and forks; O(1)
 * per arrival. */
double lr_jenv_load_estimate(const struct lr_jenv *);
/* Makes the estimate read 'load' now, as if arrivals at that rate had
 * always come (a mirror: lightraild's own estimate of its intents);
 * later arrivals of a fork update it as above.  0, or EINVAL (nothing
 * changed) unless load >= 0 and finite. */
int lr_jenv_set_load_estimate(struct lr_jenv *, double load);

/* Observation (lr_jenv_obs_size() floats), features in this order:
 *   per DC: free GPUs / GPUs;
 *   the job: one-hot model, one-hot demand;
 *   per ordered DC pair and route (DeepRMSA style, forward path): free
 *     slots / slots, largest free block / slots (0 for no path);
 *   per candidate: T_ref / T for the pending job when feasible, else 0;
 *   with the refusal action only: the largest of those (T_ref / T of the
 *     pending job's fastest feasible candidate: 1 / its least slowdown),
 *     what refusing a slow job hinges on;
 *   with known work only: log(1 + X), X = the pending job's work over the
 *     mean work (lr_jenv_job_work());
 *   with held_work only, per DC d: log(1 + H_d), H_d = sum over the
 *     running jobs j of g_jd (end_j - now) / (G_d h): the GPU-time they
 *     still hold in d over the DC's GPUs times the mean holding time (a
 *     DC full of jobs of the mean length just started: 1).  Known-work
 *     ends are the real ones; a mirror's come from lr_jenv_set_running.
 *     O(running jobs) per observation;
 *   with observe_load only: log(1 + lr_jenv_load_estimate()). */
int lr_jenv_obs_size(const struct lr_jenv *);
void lr_jenv_observe(const struct lr_jenv *, float *obs);

/* What the baselines may read about the pending job and candidates. */
/* The clock: the pending job's arrival time, in mean holding times. */
double lr_jenv_now(const struct lr_jenv *);
/* The pending job's number among the run's arrivals, from 1 (those
 * blocked for want of any feasible candidate, never pending, included). */
long lr_jenv_job_index(const struct lr_jenv *);
int lr_jenv_job_model(const struct lr_jenv *);
int lr_jenv_job_gpus(const struct lr_jenv *);
int lr_jenv_job_origin(const struct lr_jenv *);
/* T of the pending job on candidate 'a' (inf when it never fits). */
double lr_jenv_cand_time(const struct lr_jenv *, int a);
/* T_ref of the pending job: the least T of its class on an empty
 * network. */
double lr_jenv_job_tref(const struct lr_jenv *);
/* The pending job's length relative to the mean, X (the model above:
 * its holding at T_ref over h; in the work mode its number of
 * iterations over the mean number of its class), when the config has
 * known_work; -1 without, so that no policy can read what an intent
 * does not carry. */
double lr_jenv_job_work(const struct lr_jenv *);
/* Sets the pending job's work X (> 0 and finite; the config must have
 * known_work), after lr_jenv_present(): what lightraild does for an
 * intent that carries its number of iterations.  The mask does not
 * depend on X.  0, or -1 (nothing changed) without known work or for a
 * bad X. */
int lr_jenv_set_job_work(struct lr_jenv *, double x);
/* The n_cands candidates for the pending job's class in the order
 * greedy prefers them: least T first, then fewer slots per direction,
 * then the lower index (those with T = inf last).  Fixed per class;
 * owned by the environment. */
const int *lr_jenv_by_time(const struct lr_jenv *);
/* GPUs candidate 'a' takes from its i-th DC for the pending job (its
 * share of the job's demand; 0 when the share gives no GPUs). */
int lr_jenv_cand_gpus(const struct lr_jenv *, int a, int i);
int lr_jenv_dc_free(const struct lr_jenv *, int dc);
int lr_jenv_dc_gpus(const struct lr_jenv *, int dc);
int lr_jenv_n_dcs(const struct lr_jenv *);
/* Slots a candidate books per direction, summed over its hops (0 for
 * one DC; a hop's own: lr_jenv_cand_hop_slots); its forward length in km
 * over its hops; the shortest distance from node 'node' to DC 'dc' in
 * km. */
int lr_jenv_cand_slots(const struct lr_jenv *, int a);
int lr_jenv_cand_hop_slots(const struct lr_jenv *, int a, int hop);
double lr_jenv_cand_km(const struct lr_jenv *, int a);
double lr_jenv_dc_distance(const struct lr_jenv *, int node, int dc);
/* Free slots / slots on the forward path of candidate 'a' now, the least
 * over its hops (1 for one DC). */
double lr_jenv_cand_free_share(const struct lr_jenv *, int a);

/* ---- the environment as a mirror of a live network (lightraild) ----
 * A controller that runs a trained policy makes the environment show its
 * own state instead of a simulated one: lr_jenv_set_state() replaces the
 * used GPUs per DC and the spectrum, lr_jenv_present() makes a job of
 * class (model, demand) pending and recomputes the mask and hence the
 * observation, exactly as lr_jenv_step() would for that state.  The
 * departure heap and the metrics are not touched (the controller owns
 * the jobs and their ends) unless lr_jenv_set_running() gives the
 * running jobs too; without it, stepping after a mirror is not
 * meaningful. */

/* 'used' holds lr_jenv_n_dcs() GPU counts; 'occ' the occupancy (1 =
 * booked) of every link as lr_spectrum keeps it ('nw' words per link, in
 * link order of the topology the environment was built on).  EINVAL with
 * err[] when a count is negative or over the DC's GPUs, or 'nw' is not
 * the environment's; nothing changes then. */
int lr_jenv_set_state(struct lr_jenv *, const int *used, const uint64_t *occ,
                      int nw, char *err, size_t errlen);
/* A running job of the mirror: what it holds and for how long. */
struct lr_jenv_block {
    int link, first, m;          /* slots first..first+m-1 of 'link' */
};
struct lr_jenv_running {
    int gpus[LR_JENV_MAX_DCS];   /* per DC of the environment */
    const struct lr_jenv_block *blocks;  /* borrowed for the call */
    int n_blocks;
    double remaining;            /* holding left, in the environment's
                                  * time unit (cfg.holding is the mean) */
};
/* Makes 'jobs' the running jobs, after lr_jenv_set_state(): each leaves
 * 'remaining' from now and then frees what it holds, so that futures
 * (lr_jenv_fork, and a rollout on the mirror) see the network empty as
 * it will.  A fork in LR_JENV_FORK_KNOWN_WORK mode keeps each end; one
 * in the observable mode draws it anew with mean 'remaining'.  The jobs
 * must be what the state holds: their GPUs add up to at most the used
 * ones per DC, and every block is booked, by one job only.  Otherwise
 * EINVAL with err[] naming the job and what is wrong, ENOMEM; nothing
 * changes then.  The environment keeps a copy; clones and forks made of
 * it read it until its next call (a clone made before must be forked
 * again before it steps).  EINVAL on a clone. */
int lr_jenv_set_running(struct lr_jenv *, const struct lr_jenv_running *jobs,
                        int n, char *err, size_t errlen);
/* Running jobs in the departure heap (simulated or set). */
int lr_jenv_n_running(const struct lr_jenv *);
/* The environment's own occupancy, in the layout lr_jenv_set_state()
 * takes ('*nw' words per link, link order of the topology); valid until
 * the next step or reset (borrowed).  For tests that rebuild the route
 * caches from scratch and compare. */
const uint64_t *lr_jenv_occupancy(const struct lr_jenv *, int *nw);
/* Makes a job of model 'model' and demand 'demand' (indices into the
 * config's lists; origin node 0) pending; returns how many candidates
 * are feasible, or -1 for indices out of range. */
int lr_jenv_present(struct lr_jenv *, int model, int demand);
/* The path of hop 'hop' (0: first DC to second, 1: second to third) of
 * candidate 'a' in direction 'dir' (0: along the chain, 1: back), and
 * the first slot first fit gives it on the current spectrum (-1 when
 * none; back, also -1 when along has none: the caches stop there);
 * NULL / -1 for a hop the candidate does not have.  The two
 * without 'hop' are hop 0's. */
const struct lr_path *lr_jenv_cand_hop_path(const struct lr_jenv *, int a,
                                            int hop, int dir);
int lr_jenv_cand_hop_first(const struct lr_jenv *, int a, int hop, int dir);
const struct lr_path *lr_jenv_cand_path(const struct lr_jenv *, int a,
                                        int dir);
int lr_jenv_cand_first(const struct lr_jenv *, int a, int dir);

/* The metrics so far (see above). */
void lr_jenv_metrics(const struct lr_jenv *, struct lr_jenv_metrics *out);

/* ---- policies (lr_jenv_policy.c) ---- */

struct lr_jenv_policy {
    const char *name;
    const char *summary;
    /* Returns a feasible action for the pending job (mask[a] = 1), or -1
     * to refuse.  'arg' is the policy's own state (NULL for baselines). */
    int (*choose)(void *arg, const struct lr_jenv *, const uint8_t *mask,
                  struct lr_rng *rng);
    /* NULL, or the decisions of the pending jobs of n environments at
     * once (act[i] for env[i], each as 'choose' would decide it, up to
     * rounding), for a policy that draws no random numbers: the futures
     * of a rollout (lr_jenv_advantage.h) then run side by side, so that
     * a network decides them in one batched pass.  Returns 0, or a
     * positive errno value (act[] is then undefined). */
    int (*choose_batch)(void *arg, int n, struct lr_jenv *const *env,
                        int *act);
    /* choose() takes a NULL mask, and then asks only
     * lr_jenv_first_feasible(): rollouts of this base run their futures
     * with lr_jenv_set_lazy_mask() on. */
    bool lazy_mask;
};

extern const struct lr_jenv_policy lr_jenv_static, lr_jenv_nearest,
    lr_jenv_resource, lr_jenv_greedy, lr_jenv_zone, lr_jenv_cdynp,
    lr_jenv_random, lr_jenv_pair, lr_jenv_greedy_cap, lr_jenv_greedy_work;
/* greedy-cap's 'arg': a pointer to its threshold theta (NULL: the
 * default, LR_JENV_CAP_DEFAULT). */
#define LR_JENV_CAP_DEFAULT 3.0
/* greedy-work (known work only): greedy, but refuses a job whose GPUs
 * times work times slowdown, g X T / T_ref, exceed theta times the
 * cluster's GPUs.  'arg': a pointer to theta (NULL: the default). */
#define LR_JENV_WORK_CAP_DEFAULT 1.0
/* The baselines, NULL-terminated. */
extern const struct lr_jenv_policy *const lr_jenv_policies[];
/* The baseline named 'name' (case-insensitive), or NULL. */
const struct lr_jenv_policy *lr_jenv_policy_find(const char *name);

/* Runs 'policy' on 'env' for 'arrivals' arrivals (warm-up included) from
 * seed 'seed' (the policy's own draws use seed + 1 000 003) and fills
 * 'out'. */
void lr_jenv_run(struct lr_jenv *, const struct lr_jenv_policy *, void *arg,
                 uint64_t seed, long arrivals, long warmup,
                 struct lr_jenv_metrics *out);

#endif
