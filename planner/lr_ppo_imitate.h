/*
 * lr_ppo_imitate: starting a PPO agent (lr_ppo.h) from a teacher policy
 * by imitation, before (or instead of) PPO's own updates.
 *
 * Model.
 *   Behaviour cloning (D. Pomerleau, "Efficient training of artificial
 *   neural networks for autonomous navigation", Neural Computation 3(1),
 *   1991; as supervised learning of a policy: S. Ross and D. Bagnell,
 *   "Efficient reductions for imitation learning", AISTATS 2010): given
 *   states s with masks m and the teacher's action a*(s), minimise over
 *   the actor's weights the cross-entropy
 *     L_pi = E[-log pi(a* | s)],  pi = the masked softmax of the actor's
 *     logits exactly as PPO's (lr_ppo.h: a masked action has probability
 *     0 and no gradient; the teacher's action must be allowed),
 *   whose gradient in the logits is dL/dz_j = p_j - [j = a*] for the
 *   allowed j, 0 for the masked ones.
 *   DAgger (S. Ross, G. Gordon and D. Bagnell, "A reduction of imitation
 *   learning and structured prediction to no-regret online learning",
 *   AISTATS 2011): iteration i runs the mixture beta_i teacher + (1 -
 *   beta_i) student in the environment, labels every visited state with
 *   the teacher's action, adds them to the aggregate data set D and
 *   trains the student on D.  Cloning alone trains on the teacher's
 *   states only, and a student that errs reaches states the teacher
 *   never showed it (errors compound, O(T^2 eps)); DAgger's states are
 *   the student's own (O(T eps)).  The schedule is the caller's
 *   (lightrail train: beta = 1 in the first iteration, 0 after).
 *   The critic, optionally in the same step: L_V = E[0.5 (V(s) - R)^2]
 *   with R the discounted return observed from s (lr_ppo's gamma, cut at
 *   an episode's end, bootstrapped from the critic at a segment's end
 *   and at an episode cut by a time limit, lr_ppo_imitate_truncate:
 *   PPO's R_t with lambda = 1): gradient Monte Carlo evaluation of the
 *   behaviour that produced the states (R. Sutton and A. Barto,
 *   "Reinforcement learning: an introduction", 2nd ed., 2018, section
 *   9.3), so that PPO starts with a value function of (nearly) the
 *   imitated policy instead of one of a random policy.  Supervised
 *   pre-training followed by RL fine-tuning is AlphaStar's recipe (O.
 *   Vinyals et al., Nature 575, 2019).
 *   Each network's gradient is clipped to the agent's max_grad_norm on
 *   its own and applied by the agent's Adam (lr_ppo.c's clip_scale says
 *   why on their own).
 *
 * Our implementation:
 *   - one step (lr_ppo_imitate_step) is one minibatch, in the batched
 *     single-precision passes of lr_mlp and the masked softmax and logit
 *     gradient of lr_simd that PPO's batched update uses (the gradient is
 *     lr_simd_logit_grad with dL/dlog p_a = -1 and no entropy term);
 *   - the aggregate data set is bounded: a replay buffer of 'capacity'
 *     labelled states; once full, the k-th state offered replaces a
 *     uniformly drawn one with probability capacity / k (reservoir
 *     sampling, J. Vitter, ACM TOMS 11(1), 1985), so the buffer stays a
 *     uniform sample of every state offered so far, as DAgger's D is
 *     all of them;
 *   - states arrive in segments (lr_ppo_imitate_store, as lr_ppo_store:
 *     time-major over n_envs environments in lockstep) whose returns are
 *     computed when the segment closes (lr_ppo_imitate_close), then
 *     offered to the buffer;
 *   - lr_ppo_imitate_fit() runs minibatch steps on minibatches drawn
 *     from shuffles of the whole buffer (old and new states alike);
 *   - lr_ppo_imitate_finish() clears the agent's Adam moments, so that
 *     PPO starts from the imitated weights with the optimiser state of a
 *     new agent.
 * Deterministic for a seed: every draw (the reservoir, the shuffles)
 * comes from the imitation's own lr_rng; the networks' weights change
 * only through the steps.  Pure: no I/O.
 *
 * Ownership: lr_ppo_imitate_new() returns a buffer the caller frees with
 * lr_ppo_imitate_free(); it does not keep the agent, which every call
 * takes as an argument.  Functions return 0 or a positive errno value.
 */
#ifndef LR_PPO_IMITATE_H
#define LR_PPO_IMITATE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/lr_ppo.h"

struct lr_ppo_imitate_stats {
    double loss;              /* mean -log pi(a*|s), unweighted */
    double value_loss;        /* mean 0.5 (V - R)^2; 0 without returns */
    double agreement;         /* share of rows with argmax pi = a* */
    /* The L2 norms of the actor's and the critic's gradient before
     * clipping (lr_ppo_stats's); the critic's 0 when no returns are
     * fitted. */
    double actor_grad_norm, critic_grad_norm;
    long rows;                /* rows the means are over */
    /* With a label weight (lr_ppo_imitate_config): the rows labelled
     * label_action, and the share of them with argmax pi = a*. */
    long label_rows;
    double label_agreement;
    /* The rows stored with a weight other than 1
     * (lr_ppo_imitate_store_w), and the share of them with argmax pi =
     * a*. */
    long heavy_rows;
    double heavy_agreement;
};

/* One supervised step on the n rows obs[n][n_obs], mask[n][n_act],
 * teacher actions act[n] and returns ret[n] (NULL: the critic is not
 * fitted): the gradient of L_pi (and of L_V) over the n rows, clipped,
 * then one Adam step of each network fitted at learning rate 'lr'.
 * Rows beyond the agent's batch capacity are taken in several passes of
 * the same step.  EINVAL, and no change, for n < 1, lr not positive, or
 * an action out of range or masked in its row.  'st' (may be NULL) gets
 * the loss, value loss and agreement of the rows before the step.  Every
 * row weighs 1 (lr_ppo_imitate_fit applies the config's label weight). */
int lr_ppo_imitate_step(struct lr_ppo *, int n, const float *obs,
                        const uint8_t *mask, const int *act,
                        const double *ret, double lr,
                        struct lr_ppo_imitate_stats *st);

/* The loss L_pi of the n rows (as above; with label_weight > 0 the
 * weighted one of lr_ppo_imitate_config) and its gradient, left in
 * actor->grad (zeroed first; not clipped, no step): for the tests.
 * NAN for bad rows (as lr_ppo_imitate_step's EINVAL) or a bad weight. */
double lr_ppo_imitate_loss_grad(struct lr_ppo *, int n, const float *obs,
                                const uint8_t *mask, const int *act,
                                int label_action, double label_weight);

/* As lr_ppo_imitate_loss_grad, without a label weight and with a weight
 * per row instead: (1/n) sum_r w_r (-log pi(a*_r | s_r)); row_weight
 * NULL: every row 1.  NAN for bad rows or a weight not finite and
 * positive. */
double lr_ppo_imitate_loss_grad_rows(struct lr_ppo *, int n,
                                     const float *obs, const uint8_t *mask,
                                     const int *act,
                                     const double *row_weight);

struct lr_ppo_imitate_config {
    int capacity;             /* labelled states kept, >= minibatch */
    int segment;              /* states per segment, a multiple of
                               * n_envs */
    int n_envs;               /* environments in lockstep, >= 1 */
    int minibatch;            /* rows per step, >= 1 */
    double gamma;             /* the returns' discount, in [0, 1] */
    uint64_t seed;
    /* A class weight for one teacher action (a rare one: refusals).
     * label_weight > 0: each row whose label is label_action weighs
     * label_weight in L_pi, every other row 1 (the weighted
     * cross-entropy (1/n) sum_r w_r (-log pi(a*_r | s_r)), the gradient
     * scaled alike), and the statistics count those rows; 1 counts them
     * and changes nothing else.  0 (the default): off. */
    int label_action;
    double label_weight;
};

struct lr_ppo_imitate {
    struct lr_ppo_imitate_config cfg;
    int n_obs, n_act;
    struct lr_rng rng;
    /* The replay buffer: 'size' states of 'capacity'. */
    int size;
    long offered;             /* states offered since the start */
    float *obs;
    uint8_t *mask;
    int *act;
    double *w;                /* each state's weight in L_pi */
    double *ret;
    /* The open segment, time-major over n_envs. */
    int seg_n;
    float *s_obs;
    uint8_t *s_mask;
    int *s_act;
    double *s_w;
    double *s_reward, *s_done, *s_ret;
    double *s_boot;           /* V(s') of a cut episode's last state
                               * (lr_ppo_imitate_truncate), else 0 */
    uint8_t *s_cut;           /* 1 where lr_ppo_imitate_truncate marked */
    /* States closed as the last of an episode cut by a time limit, their
     * return bootstrapped (since the start; a dropped segment's are not
     * counted): what a caller can show to say its cuts reached the
     * returns, as lr_ppo_stats' truncated does for PPO. */
    long truncated;
    /* Scratch of lr_ppo_imitate_fit(): a permutation and a minibatch. */
    int *perm;
    float *b_obs;
    uint8_t *b_mask;
    int *b_act;
    double *b_w;
    double *b_ret;
};

/* EINVAL for sizes < 1 (n_obs, n_act and the config above), a segment
 * that n_envs does not divide, a bad gamma, or a label weight that is
 * negative or whose label_action is out of range; ENOMEM. */
int lr_ppo_imitate_new(int n_obs, int n_act,
                       const struct lr_ppo_imitate_config *,
                       struct lr_ppo_imitate **out);
void lr_ppo_imitate_free(struct lr_ppo_imitate *);

/* Adds a state of the open segment: its observation, mask, the
 * teacher's action (allowed by the mask), and the reward and end flag
 * of the step that followed it (whoever chose that step's action).
 * With n_envs = N, store the N environments' states of each step in
 * environment order.  Returns true when the segment is full and
 * lr_ppo_imitate_close() must run before the next store. */
bool lr_ppo_imitate_store(struct lr_ppo_imitate *, const float *obs,
                          const uint8_t *mask, int teacher_action,
                          double reward, bool done);
/* The same with the state's weight in L_pi: the state weighs 'weight'
 * (finite and positive; anything else is 1) times the label weight
 * whenever a minibatch draws it (a rare kind of label made to count
 * more, as the label weight does for one action).  A weight of 1 is
 * lr_ppo_imitate_store() exactly. */
bool lr_ppo_imitate_store_w(struct lr_ppo_imitate *, const float *obs,
                            const uint8_t *mask, int teacher_action,
                            double weight, double reward, bool done);

/* Marks environment e's last stored state of the open segment (of
 * index e mod n_envs; its done set) as the last of an episode cut by a
 * time limit, not ended: its return is r + gamma next_value, V of the
 * state after it, instead of r (lr_ppo_truncate's rule).  EINVAL
 * (nothing changed) for e not in 0..n_envs-1, no state of e stored, its
 * last one not done, or next_value not finite. */
int lr_ppo_imitate_truncate(struct lr_ppo_imitate *, int e,
                            double next_value);

/* Closes the segment: computes each state's discounted return along its
 * environment's sequence, last_values[e] being V of environment e's
 * state after its last stored one (n_envs values; not read after an
 * end), and offers the states to the buffer (reservoir); adds its cut
 * episodes to 'truncated'.  A segment of fewer states than n_envs or
 * not a multiple of it is dropped. */
void lr_ppo_imitate_close(struct lr_ppo_imitate *,
                          const double *last_values);

/* 'epochs' x segment / minibatch steps (at least one) of the agent on
 * minibatches of the buffer: a shuffle of the buffer is cut into
 * minibatches in order, a new shuffle when it runs out; with
 * 'fit_critic', the critic is fitted to the returns too; rows weigh as
 * the config's label weight and their stored weights say.  EINVAL for
 * an empty buffer or epochs < 1.  'st' (may be NULL) gets the means
 * over the steps, the label rows' agreement over all of them. */
int lr_ppo_imitate_fit(struct lr_ppo_imitate *, struct lr_ppo *, int epochs,
                       double lr, bool fit_critic,
                       struct lr_ppo_imitate_stats *st);

/* Clears the agent's Adam moments and step counts (the weights stay):
 * the state of a new agent's optimiser, for PPO to start from. */
void lr_ppo_imitate_finish(struct lr_ppo *);

#endif
