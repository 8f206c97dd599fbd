/*
 * lr_ppo: proximal policy optimisation with invalid-action masking, for
 * one environment with a discrete action space (planner/lr_jenv.h).
 *
 * Model (J. Schulman et al., "Proximal policy optimization algorithms",
 * arXiv:1707.06347, 2017, as CleanRL's ppo.py implements it; masking as
 * S. Huang and S. Ontañón, "A closer look at invalid action masking in
 * policy gradient algorithms", FLAIRS 2022; ../shared/reference/
 * training.md has the constants):
 *   pi(a|s) = softmax over the allowed actions of the actor's logits (a
 *     disallowed action gets logit -1e8: probability 0, never sampled,
 *     left out of the entropy; the mask is stored with the transition and
 *     applied again when the update recomputes log-probabilities);
 *   GAE: delta_t = r_t + gamma V(s_{t+1}) (1 - d_t) + gamma B_t d_t
 *          - V(s_t),
 *        A_t = delta_t + gamma lambda (1 - d_t) A_{t+1}, R_t = A_t + V(s_t),
 *        d_t = 1 after an episode's last transition, B_t = 0 when the
 *        episode ended (termination) and V of the state after it when
 *        it was cut by a time limit (truncation, lr_ppo_truncate: F.
 *        Pardo et al., "Time limits in reinforcement learning", ICML
 *        2018); CleanRL treats both as termination;
 *   per minibatch, advantages normalised to mean 0, deviation 1;
 *   L = E[max(-A rho, -A clip(rho, 1 - eps, 1 + eps))] - c_H E[H(pi)]
 *       + c_V 0.5 E[max((V - R)^2, (V_old + clip(V - V_old, -eps, eps)
 *       - R)^2)],  rho = pi(a|s) / pi_old(a|s);
 *   the gradients of actor and critic each clipped to a norm (CleanRL
 *   clips both together: see clip_scale() for why we do not), Adam with
 *   a learning rate annealed linearly to 0 over the run.
 * Two aids for fine-tuning an agent that starts from another's weights
 * (an imitation, lr_ppo_imitate.h), both off unless asked for:
 *   - the anchor (lr_ppo_anchor): L gains c_A E[KL(pi_0(.|s) || pi(.|s))],
 *     pi_0 a frozen copy of the actor when anchored, both masked by the
 *     transition's mask: the cross-entropy to the teacher of
 *     "kickstarting" (S. Schmitt et al., "Kickstarting deep
 *     reinforcement learning", arXiv:1803.03835, 2018), minus the
 *     teacher's own entropy, with the start as teacher.  Its gradient
 *     in the logits is c_A (p_j - q_j) for the allowed j (q = pi_0).
 *     Kickstarting anneals c_A to 0; we keep it fixed, as a trust
 *     region around what the imitation learnt;
 *   - a frozen actor (lr_ppo.freeze_actor, set by the caller): updates
 *     train the critic only.  Run first, it fits the critic to this
 *     run's reward and discount before the actor moves: a critic fitted
 *     under another reward (an imitation's returns, or none) gives
 *     advantages of the wrong sign until it has caught up (our
 *     rationale; in the runs of docs/ppo.md it changed nothing
 *     measurable).
 * Separate actor and critic MLPs (lr_mlp.h).  Deterministic for a seed:
 * every random draw (initialisation, sampling, minibatch shuffles) comes
 * from the agent's own lr_rng.
 *
 * Our implementation, for speed (docs/benchmarks.md):
 *   - the update computes each minibatch's loss and gradient in one
 *     batched forward and backward pass per network (lr_mlp dgemm), the
 *     masked softmax, log-probabilities and entropy row by row over the
 *     batch; the per-sample path (one dgemv pass per transition, as first
 *     written) is kept behind cfg.per_sample as the reference the tests
 *     and the benchmark compare against: the same loss, gradients equal up
 *     to rounding;
 *   - precision: the batched passes (the update's, and lr_ppo_act_batch's
 *     during training) compute the networks in single precision (lr_mlp.h:
 *     lr_gemm, float activations, about 2x double's rate); the weights,
 *     the gradient sums, Adam's moments, the masked softmax,
 *     log-probabilities, entropy, the clipped losses, GAE and the
 *     advantages stay double (cheap next to the products, and ratios and
 *     the advantages' normalisation are where rounding would hurt); the
 *     batched masked softmax takes its exp from lr_simd (a vectorised
 *     approximation, 2 ulps), the gradient's norm is summed in eight
 *     interleaved partial sums and its clipping factor applied inside
 *     Adam's loop (lr_mlp_adam_step), and the rollout keeps observations
 *     in float, as the environment gives them.  One decision
 *     (lr_ppo_act, lightraild, `lightrail sim`) and the per-sample
 *     update are all double, so a policy file gives the same
 *     decisions as before; training's weights differ from the all-double
 *     code's by rounding, and a seed still gives bit-identical weights
 *     (lr_gemm's products and lr_simd's loops give the same bits at
 *     every vector width and whatever OpenBLAS's kernel: lr_gemm.h,
 *     lr_simd.h; glibc's log and exp, also used, have CPU variants);
 *   - reward scaling (cfg.norm_reward, off by default): each reward is
 *     divided, as it is stored, by the standard deviation of the
 *     discounted returns seen so far, G_e <- gamma G_e + r per
 *     environment e (0 after an episode's end), over all environments
 *     and all of training (Welford's update; 1 until two returns are
 *     seen): CleanRL's NormalizeReward, which keeps returns, hence the
 *     critic's targets, of order 1, the scale at which the value clip
 *     of eps = 0.2 is meant to act.  Unscaled, a return of -25 moves by
 *     at most 0.2 per update wherever the clip binds.  Values and
 *     returns are then in scaled units; the actor's decisions do not
 *     depend on the scale of the critic;
 *   - vectorised environments: with cfg.n_envs = N, a rollout of n_steps
 *     transitions is T = n_steps / N steps of N environments in lockstep,
 *     stored time-major (transition t * N + e); lr_ppo_act_batch() runs
 *     the actor and the critic once over the N observations; GAE runs
 *     along each environment's own sequence, bootstrapped from its own
 *     last value.  n_steps (the transitions per update), the minibatches
 *     and the epochs keep their meaning, so N changes the data an update
 *     sees (N shorter trajectories) but not how much.
 *
 * Ownership: lr_ppo_new() returns an agent the caller frees with
 * lr_ppo_free().  Functions return 0 or a positive errno value.
 */
#ifndef LR_PPO_H
#define LR_PPO_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/lr_mlp.h"
#include "planner/lr_rng.h"

#define LR_PPO_MASKED_LOGIT (-1e8)

struct lr_ppo_config {
    int n_obs, n_act;
    int hidden[2];            /* both MLPs; 64, 64 by default */
    double lr;                /* 2.5e-4 */
    bool anneal;              /* linear to 0 over total_steps */
    long total_steps;
    int n_steps;              /* rollout length, 512 */
    int n_minibatches;        /* 4 */
    int n_epochs;             /* 4 */
    double gamma, lambda;     /* 0.99, 0.95 */
    double clip;              /* 0.2, also for the value */
    double ent_coef, vf_coef; /* 0.01, 0.5 */
    double max_grad_norm;     /* 0.5 */
    uint64_t seed;
    int n_envs;               /* environments in lockstep, 1; divides
                               * n_steps */
    bool per_sample;          /* the reference update, one transition at a
                               * time; false */
    bool norm_reward;         /* rewards scaled as they are stored (see
                               * lr_ppo_store); false */
};

/* Fills the defaults above for n_obs inputs and n_act actions. */
void lr_ppo_defaults(struct lr_ppo_config *, int n_obs, int n_act);

struct lr_ppo_stats {
    double policy_loss, value_loss, entropy, approx_kl, clip_frac;
    /* The L2 norms of the actor's and of the critic's gradient before
     * clipping, means over the update's minibatches: each network is
     * clipped to max_grad_norm on its own (lr_ppo.c's clip_scale), so
     * each is what its clip is compared with.  (Their sum, reported
     * until 2026-12-07 as one "grad_norm", was the norm of nothing.) */
    double actor_grad_norm, critic_grad_norm;
    double lr;
    double anchor_kl;         /* E[KL(pi_0 || pi)]; 0 without an anchor */
    /* Transitions of the rollout that ended an episode cut by a time
     * limit (lr_ppo_truncate), bootstrapped from V(s'): what a caller
     * can show to say its cuts reached GAE. */
    int truncated;
};

struct lr_ppo {
    struct lr_ppo_config cfg;
    struct lr_mlp *actor, *critic;
    struct lr_adam adam_actor, adam_critic;
    struct lr_rng rng;
    long updates;
    /* Set by the caller: updates leave the actor (and its Adam moments)
     * as they are and train the critic only. */
    bool freeze_actor;
    /* The anchor pi_0 (lr_ppo_anchor), owned; NULL without one. */
    struct lr_mlp *anchor;
    double anchor_coef;
    /* cfg.norm_reward: each environment's discounted return, and the
     * running moments of all returns seen (Welford). */
    double *ret_run;
    long ret_count;
    double ret_mean, ret_m2;
    /* The rollout: n_steps transitions. */
    int n;
    float *obs;               /* [n_steps * n_obs], as observed */
    uint8_t *mask;            /* [n_steps * n_act] */
    int *act;
    double *logp, *value, *reward, *done, *adv, *ret;
    double *boot;             /* B_t above: 0 unless lr_ppo_truncate */
    uint8_t *cut;             /* 1 where lr_ppo_truncate marked t */
    /* Scratch. */
    double *logits, *probs, *dlogits, *x;
    float *fobs;
    int *perm;
    /* Scratch of the batched path: 'cap' rows (the larger of a minibatch
     * and n_envs). */
    int cap;
    float *xb;                /* observations of a minibatch */
    double *lb, *pb, *db, *vb, *gvb;
    double *qz, *qp;          /* the anchor's logits and probabilities
                               * ('cap' rows, with an anchor only) */
    /* Observations and masks of lr_ppo_jenv_policy's batched decisions
     * ('cap' rows). */
    float *ob;
    uint8_t *mb;
};

/* EINVAL for sizes < 1, fewer than 2 transitions per minibatch
 * (n_minibatches > n_steps / 2: the advantage of one transition
 * normalises to 0), bad coefficients (a learning rate, entropy or
 * value coefficient that is not finite: an update would write inf or
 * NaN weights; clip and max_grad_norm may be +inf, no clipping), or
 * n_envs < 1 or not dividing n_steps; ENOMEM. */
int lr_ppo_new(const struct lr_ppo_config *, struct lr_ppo **out);
void lr_ppo_free(struct lr_ppo *);

/* Makes room for batches of 'rows' rows (lr_ppo_act_batch, the batched
 * decisions of lr_ppo_jenv_policy); never shrinks.  An agent has room
 * for the larger of a minibatch and n_envs (2 rows when read from a
 * file); lr_ppo_jenv_policy grows it on need, up to LR_PPO_BATCH_MAX.
 * EINVAL for rows < 1; ENOMEM (the agent keeps its room). */
int lr_ppo_reserve(struct lr_ppo *, int rows);
#define LR_PPO_BATCH_MAX 4096

/* Anchors the actor to a copy of its weights as they are now, with
 * coefficient 'coef' (> 0; the model above); an earlier anchor is
 * replaced, and coef = 0 removes it.  EINVAL for coef < 0 or not
 * finite; ENOMEM (the agent is unchanged then). */
int lr_ppo_anchor(struct lr_ppo *, double coef);

/* The masked policy at 'obs': with 'sample', draws an action from it;
 * else takes the most probable allowed one.  '*logp' and '*value' (may
 * be NULL) get its log-probability and the critic's value.  Returns -1
 * when the mask allows nothing. */
int lr_ppo_act(struct lr_ppo *, const float *obs, const uint8_t *mask,
               bool sample, double *logp, double *value);

/* The masked policy at the n observations obs[n][n_obs] with masks
 * mask[n][n_act], in one batched pass of each network: act[i] as
 * lr_ppo_act() would choose it (-1 when row i allows nothing), logp[i]
 * and value[i] (each may be NULL).  With 'sample', the draws come from
 * the agent's generator in row order.  EINVAL when n is not in 1..cap
 * (nothing is drawn then). */
int lr_ppo_act_batch(struct lr_ppo *, int n, const float *obs,
                     const uint8_t *mask, bool sample, int *act,
                     double *logp, double *value);

/* Stores a transition; returns true when the rollout is full and
 * lr_ppo_update() must run before the next store.  With n_envs = N,
 * store the N environments' transitions of each step in environment
 * order.  With cfg.norm_reward the reward is stored scaled (the file's
 * comment).  A transition whose action its mask does not allow (-1,
 * lr_ppo_act's answer to a mask that allows nothing, or a forbidden
 * one) records no decision: it keeps its place in GAE and trains the
 * critic, and has no policy, entropy or anchor term in the update. */
bool lr_ppo_store(struct lr_ppo *, const float *obs, const uint8_t *mask,
                  int action, double logp, double value, double reward,
                  bool done);

/* Marks environment e's last stored transition (of index e mod n_envs;
 * its done set) as the last of an episode cut by a time limit, not
 * ended: GAE bootstraps it from 'next_value', V of the state after it
 * (in the critic's units, as the stored values), instead of 0.  The
 * episode still ends there: nothing flows back from the environment's
 * next transition.  EINVAL (nothing changed) for e not in 0..n_envs-1,
 * no transition of e stored, its last one not done, or next_value not
 * finite. */
int lr_ppo_truncate(struct lr_ppo *, int e, double next_value);

/* Learns from the full rollout, 'last_value' being V of the state after
 * its last transition (of every environment's, for n_envs > 1); empties
 * it. */
void lr_ppo_update(struct lr_ppo *, double last_value,
                   struct lr_ppo_stats *stats);
/* The same for n_envs = N: last_values[e] (N values, read before the
 * update starts) is V of environment e's state after its last
 * transition.  A rollout of fewer than 2 transitions, or not a multiple
 * of N, is dropped without an update; one of n < n_steps transitions
 * is cut in min(n_minibatches, n / 2) minibatches (2 transitions or
 * more in each). */
void lr_ppo_update_envs(struct lr_ppo *, const double *last_values,
                        struct lr_ppo_stats *stats);

/* Values and gradients of the loss on a rollout, for the tests: computes
 * the loss of transitions first..first+count-1 with advantages as stored
 * (normalised over them), and leaves its gradient in actor->grad and
 * critic->grad (no clipping of the gradient); by the path cfg.per_sample
 * selects. */
double lr_ppo_loss_grad(struct lr_ppo *, int first, int count);

/* Serialised weights: a version, the sizes, the weights (big-endian IEEE
 * doubles) and an FNV-1a 64 checksum over everything before it.
 * lr_ppo_encode() returns the bytes written into buf[len], or 0 when
 * 'len' is short of lr_ppo_encoded_size(). */
#define LR_PPO_FORMAT_VERSION 1
size_t lr_ppo_encoded_size(const struct lr_ppo *);
size_t lr_ppo_encode(const struct lr_ppo *, uint8_t *buf, size_t len);
/* A new agent with the weights of buf[len] and the defaults otherwise;
 * no initialisation is run (every weight is the buffer's), so its rng is
 * as lr_ppo_defaults()'s seed seeds it, no draw taken.  A caller that
 * trains on must copy the weights into an agent of its own seed, as
 * `lightrail train --init` does (lr_ppo_new's draws then are the run's).
 * EPROTO with err[] for a wrong magic, version or checksum, EINVAL for a
 * truncated buffer, sizes out of range (more than LR_MLP_MAX_PARAMS
 * parameters) or a weight that is not finite; ENOMEM.  Sizes, length
 * and checksum are checked before anything is allocated, so what it
 * allocates is bounded by len. */
int lr_ppo_decode(const uint8_t *buf, size_t len, struct lr_ppo **out,
                  char *err, size_t errlen);

/* An lr_jenv policy (lr_jenv.h) that takes the most probable allowed
 * action of the agent passed as 'arg'. */
struct lr_jenv_policy;
extern const struct lr_jenv_policy lr_ppo_jenv_policy;

#endif
