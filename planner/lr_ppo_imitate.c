/* lr_ppo_imitate: see lr_ppo_imitate.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_ppo_imitate.h"
#include "planner/lr_simd.h"

/* True when every row's action is in range and allowed by its mask. */
static bool
rows_valid(const struct lr_ppo *p, int n, const uint8_t *mask,
           const int *act)
{
    int na = p->cfg.n_act;
    for (int r = 0; r < n; r++)
        if (act[r] < 0 || act[r] >= na || !mask[(size_t) r * na + act[r]])
            return false;
    return true;
}

/* A row's weight in L_pi: 'w' for label 'wa' (w > 0), else 1. */
struct label_weight {
    int wa;
    double w;
};

static const struct label_weight no_weight = { -1, 0 };

/* The loss of rows first..first+rows-1 (rows <= cap) and its gradient
 * added to the actor's grad (each row's share w_r / n, w_r its weight
 * rw[r] (1 when rw is NULL) times the label weight), and with 'ret' the
 * critic's; the statistics added to st. */
static double
chunk_loss_grad(struct lr_ppo *p, int first, int rows, int n,
                const float *obs, const uint8_t *mask, const int *act,
                const double *rw, const double *ret, struct label_weight lw,
                struct lr_ppo_imitate_stats *st)
{
    int na = p->cfg.n_act, no = p->cfg.n_obs;
    const float *x = obs + (size_t) first * no;
    double total = 0;
    lr_mlp_forward_batchf(p->actor, rows, x, p->lb);
    for (int r = 0; r < rows; r++) {
        const uint8_t *mk = mask + (size_t) (first + r) * na;
        const double *z = p->lb + (size_t) r * na;
        double *pr = p->pb + (size_t) r * na, *dz = p->db + (size_t) r * na;
        int a = act[first + r];
        double lz = lr_simd_masked_softmax(z, mk, (size_t) na, pr);
        double l = lz - z[a];
        bool labelled = lw.w > 0 && a == lw.wa;
        bool heavy = rw && rw[first + r] != 1.0;
        double w = (labelled ? lw.w : 1.0) * (rw ? rw[first + r] : 1.0);
        /* PPO's logit gradient with dL/dlog p_a = -w and no entropy:
         * w (p_j - [j = a]) / n where allowed, 0 where masked. */
        lr_simd_logit_grad(dz, z, pr, mk, (size_t) na, (size_t) a, -w, 0.0,
                           lz, 0.0, (double) n);
        total += w * l / n;
        if (st) {
            int best = -1;
            for (int j = 0; j < na; j++)
                if (mk[j] && (best < 0 || z[j] > z[best]))
                    best = j;
            st->loss += l;
            st->agreement += best == a;
            st->label_rows += labelled;
            st->label_agreement += labelled && best == a;
            st->heavy_rows += heavy;
            st->heavy_agreement += heavy && best == a;
        }
    }
    lr_mlp_backward_batch(p->actor, rows, p->db);
    if (ret) {
        lr_mlp_forward_batchf(p->critic, rows, x, p->vb);
        for (int r = 0; r < rows; r++) {
            double d = p->vb[r] - ret[first + r];
            p->gvb[r] = d / n;
            if (st)
                st->value_loss += 0.5 * d * d;
        }
        lr_mlp_backward_batch(p->critic, rows, p->gvb);
    }
    return total;
}

/* The loss over all n rows, by chunks of the agent's capacity. */
static double
loss_grad(struct lr_ppo *p, int n, const float *obs, const uint8_t *mask,
          const int *act, const double *rw, const double *ret,
          struct label_weight lw, struct lr_ppo_imitate_stats *st)
{
    double total = 0;
    lr_mlp_zero_grad(p->actor);
    if (ret)
        lr_mlp_zero_grad(p->critic);
    for (int first = 0; first < n; first += p->cap) {
        int rows = n - first < p->cap ? n - first : p->cap;
        total += chunk_loss_grad(p, first, rows, n, obs, mask, act, rw, ret,
                                 lw, st);
    }
    return total;
}

double
lr_ppo_imitate_loss_grad(struct lr_ppo *p, int n, const float *obs,
                         const uint8_t *mask, const int *act,
                         int label_action, double label_weight)
{
    if (n < 1 || !rows_valid(p, n, mask, act) || !(label_weight >= 0))
        return NAN;
    struct label_weight lw = { label_action, label_weight };
    return loss_grad(p, n, obs, mask, act, NULL, NULL, lw, NULL);
}

/* True when every weight is finite and positive. */
static bool
weights_valid(int n, const double *rw)
{
    for (int r = 0; rw && r < n; r++)
        if (!(rw[r] > 0 && isfinite(rw[r])))
            return false;
    return true;
}

double
lr_ppo_imitate_loss_grad_rows(struct lr_ppo *p, int n, const float *obs,
                              const uint8_t *mask, const int *act,
                              const double *row_weight)
{
    if (n < 1 || !rows_valid(p, n, mask, act)
        || !weights_valid(n, row_weight))
        return NAN;
    return loss_grad(p, n, obs, mask, act, row_weight, NULL, no_weight,
                     NULL);
}

/* As lr_ppo.c's clip_scale(): the factor that brings m's gradient to
 * norm 'max' at most; the norm in *norm. */
static double
clip_scale(const struct lr_mlp *m, double max, double *norm)
{
    *norm = sqrt(lr_simd_sum_squares(m->grad, (size_t) m->n_params));
    return *norm > max ? max / *norm : 1.0;
}

/* lr_ppo_imitate_step with the rows weighted as 'rw' (may be NULL) and
 * 'lw' say. */
static int
step_weighted(struct lr_ppo *p, int n, const float *obs, const uint8_t *mask,
              const int *act, const double *rw, const double *ret,
              double lr, struct label_weight lw,
              struct lr_ppo_imitate_stats *st)
{
    if (n < 1 || !(lr > 0) || !rows_valid(p, n, mask, act))
        return EINVAL;
    struct lr_ppo_imitate_stats s = { 0 };
    loss_grad(p, n, obs, mask, act, rw, ret, lw, &s);
    double na, nc = 0;
    double sa = clip_scale(p->actor, p->cfg.max_grad_norm, &na);
    lr_mlp_adam_step(p->actor, &p->adam_actor, lr, sa);
    if (ret) {
        double sc = clip_scale(p->critic, p->cfg.max_grad_norm, &nc);
        lr_mlp_adam_step(p->critic, &p->adam_critic, lr, sc);
    }
    if (st) {
        st->loss = s.loss / n;
        st->value_loss = s.value_loss / n;
        st->agreement = s.agreement / n;
        st->actor_grad_norm = na;
        st->critic_grad_norm = nc;
        st->rows = n;
        st->label_rows = s.label_rows;
        st->label_agreement = s.label_rows
                              ? s.label_agreement / s.label_rows : 0;
        st->heavy_rows = s.heavy_rows;
        st->heavy_agreement = s.heavy_rows
                              ? s.heavy_agreement / s.heavy_rows : 0;
    }
    return 0;
}

int
lr_ppo_imitate_step(struct lr_ppo *p, int n, const float *obs,
                    const uint8_t *mask, const int *act, const double *ret,
                    double lr, struct lr_ppo_imitate_stats *st)
{
    return step_weighted(p, n, obs, mask, act, NULL, ret, lr, no_weight, st);
}

void
lr_ppo_imitate_finish(struct lr_ppo *p)
{
    struct lr_adam *ad[2] = { &p->adam_actor, &p->adam_critic };
    for (int i = 0; i < 2; i++) {
        memset(ad[i]->m, 0, (size_t) ad[i]->n * sizeof *ad[i]->m);
        memset(ad[i]->v, 0, (size_t) ad[i]->n * sizeof *ad[i]->v);
        ad[i]->t = 0;
    }
}

/* ---- the replay buffer ---- */

void
lr_ppo_imitate_free(struct lr_ppo_imitate *im)
{
    if (!im)
        return;
    free(im->obs);
    free(im->mask);
    free(im->act);
    free(im->w);
    free(im->ret);
    free(im->s_obs);
    free(im->s_mask);
    free(im->s_act);
    free(im->s_w);
    free(im->s_reward);
    free(im->s_done);
    free(im->s_ret);
    free(im->s_boot);
    free(im->s_cut);
    free(im->perm);
    free(im->b_obs);
    free(im->b_mask);
    free(im->b_act);
    free(im->b_w);
    free(im->b_ret);
    free(im);
}

int
lr_ppo_imitate_new(int n_obs, int n_act,
                   const struct lr_ppo_imitate_config *c,
                   struct lr_ppo_imitate **out)
{
    *out = NULL;
    if (n_obs < 1 || n_act < 1 || c->minibatch < 1 || c->n_envs < 1
        || c->capacity < c->minibatch || c->segment < c->n_envs
        || c->segment % c->n_envs || !(c->gamma >= 0 && c->gamma <= 1)
        || !(c->label_weight >= 0)
        || (c->label_weight > 0
            && (c->label_action < 0 || c->label_action >= n_act)))
        return EINVAL;
    struct lr_ppo_imitate *im = calloc(1, sizeof *im);
    if (!im)
        return ENOMEM;
    im->cfg = *c;
    im->n_obs = n_obs;
    im->n_act = n_act;
    lr_rng_seed(&im->rng, c->seed);
    size_t cap = (size_t) c->capacity, seg = (size_t) c->segment;
    size_t mb = (size_t) c->minibatch, no = (size_t) n_obs;
    size_t na = (size_t) n_act;
    im->obs = malloc(cap * no * sizeof *im->obs);
    im->mask = malloc(cap * na);
    im->act = malloc(cap * sizeof *im->act);
    im->w = malloc(cap * sizeof *im->w);
    im->ret = malloc(cap * sizeof *im->ret);
    im->s_obs = malloc(seg * no * sizeof *im->s_obs);
    im->s_mask = malloc(seg * na);
    im->s_act = malloc(seg * sizeof *im->s_act);
    im->s_w = malloc(seg * sizeof *im->s_w);
    im->s_reward = malloc(seg * sizeof *im->s_reward);
    im->s_done = malloc(seg * sizeof *im->s_done);
    im->s_ret = malloc(seg * sizeof *im->s_ret);
    im->s_boot = malloc(seg * sizeof *im->s_boot);
    im->s_cut = malloc(seg * sizeof *im->s_cut);
    im->perm = malloc(cap * sizeof *im->perm);
    im->b_obs = malloc(mb * no * sizeof *im->b_obs);
    im->b_mask = malloc(mb * na);
    im->b_act = malloc(mb * sizeof *im->b_act);
    im->b_w = malloc(mb * sizeof *im->b_w);
    im->b_ret = malloc(mb * sizeof *im->b_ret);
    if (!im->obs || !im->mask || !im->act || !im->w || !im->ret
        || !im->s_obs || !im->s_mask || !im->s_act || !im->s_w
        || !im->s_reward || !im->s_done || !im->s_ret || !im->s_boot
        || !im->s_cut
        || !im->perm
        || !im->b_obs || !im->b_mask || !im->b_act || !im->b_w
        || !im->b_ret) {
        lr_ppo_imitate_free(im);
        return ENOMEM;
    }
    *out = im;
    return 0;
}

bool
lr_ppo_imitate_store(struct lr_ppo_imitate *im, const float *obs,
                     const uint8_t *mask, int teacher_action, double reward,
                     bool done)
{
    return lr_ppo_imitate_store_w(im, obs, mask, teacher_action, 1.0,
                                  reward, done);
}

bool
lr_ppo_imitate_store_w(struct lr_ppo_imitate *im, const float *obs,
                       const uint8_t *mask, int teacher_action,
                       double weight, double reward, bool done)
{
    int t = im->seg_n;
    if (t >= im->cfg.segment)
        return true;
    memcpy(im->s_obs + (size_t) t * im->n_obs, obs,
           (size_t) im->n_obs * sizeof *obs);
    memcpy(im->s_mask + (size_t) t * im->n_act, mask, (size_t) im->n_act);
    im->s_act[t] = teacher_action;
    im->s_w[t] = weight > 0 && isfinite(weight) ? weight : 1.0;
    im->s_reward[t] = reward;
    im->s_done[t] = done;
    im->s_boot[t] = 0;
    im->s_cut[t] = 0;
    im->seg_n++;
    return im->seg_n == im->cfg.segment;
}

int
lr_ppo_imitate_truncate(struct lr_ppo_imitate *im, int e, double next_value)
{
    int N = im->cfg.n_envs;
    if (e < 0 || e >= N || im->seg_n <= e || !isfinite(next_value))
        return EINVAL;
    int t = e + (im->seg_n - 1 - e) / N * N;
    if (!im->s_done[t])
        return EINVAL;
    im->s_boot[t] = next_value;
    im->s_cut[t] = 1;
    return 0;
}

/* Copies segment state t into buffer slot i. */
static void
put(struct lr_ppo_imitate *im, int i, int t)
{
    memcpy(im->obs + (size_t) i * im->n_obs, im->s_obs + (size_t) t * im->n_obs,
           (size_t) im->n_obs * sizeof *im->obs);
    memcpy(im->mask + (size_t) i * im->n_act,
           im->s_mask + (size_t) t * im->n_act, (size_t) im->n_act);
    im->act[i] = im->s_act[t];
    im->w[i] = im->s_w[t];
    im->ret[i] = im->s_ret[t];
}

void
lr_ppo_imitate_close(struct lr_ppo_imitate *im, const double *last_values)
{
    int N = im->cfg.n_envs, n = im->seg_n;
    im->seg_n = 0;
    if (n < N || n % N)
        return;
    /* R_t = r_t + gamma (d_t ? B_t : R_{t+N}) along each environment, R
     * after the last state its bootstrap value, B_t that of a cut
     * episode (0 for an ended one). */
    for (int e = 0; e < N; e++) {
        double next = last_values[e];
        for (int t = n - N + e; t >= 0; t -= N) {
            next = im->s_reward[t]
                   + im->cfg.gamma * (im->s_done[t] ? im->s_boot[t]
                                                    : next);
            im->s_ret[t] = next;
        }
    }
    for (int t = 0; t < n; t++) {
        im->truncated += im->s_cut[t];
        im->offered++;
        if (im->size < im->cfg.capacity) {
            put(im, im->size++, t);
        } else {
            /* Algorithm R: state k (1-based) is kept with probability
             * capacity / k, in place of a uniformly drawn one. */
            uint64_t j = lr_rng_next(&im->rng) % (uint64_t) im->offered;
            if (j < (uint64_t) im->cfg.capacity)
                put(im, (int) j, t);
        }
    }
}

static void
shuffle(struct lr_ppo_imitate *im)
{
    for (int i = 0; i < im->size; i++)
        im->perm[i] = i;
    for (int i = im->size - 1; i > 0; i--) {
        int j = (int) lr_rng_below(&im->rng, (uint32_t) (i + 1));
        int t = im->perm[i];
        im->perm[i] = im->perm[j];
        im->perm[j] = t;
    }
}

int
lr_ppo_imitate_fit(struct lr_ppo_imitate *im, struct lr_ppo *p, int epochs,
                   double lr, bool fit_critic,
                   struct lr_ppo_imitate_stats *out)
{
    if (im->size < 1 || epochs < 1 || p->cfg.n_obs != im->n_obs
        || p->cfg.n_act != im->n_act)
        return EINVAL;
    int mb = im->cfg.minibatch < im->size ? im->cfg.minibatch : im->size;
    struct label_weight lw = { im->cfg.label_action, im->cfg.label_weight };
    long steps = (long) epochs * im->cfg.segment / mb;
    if (steps < 1)
        steps = 1;
    struct lr_ppo_imitate_stats sum = { 0 };
    int next = im->size;      /* a shuffle first */
    for (long s = 0; s < steps; s++) {
        if (next + mb > im->size) {
            shuffle(im);
            next = 0;
        }
        for (int r = 0; r < mb; r++) {
            int i = im->perm[next + r];
            memcpy(im->b_obs + (size_t) r * im->n_obs,
                   im->obs + (size_t) i * im->n_obs,
                   (size_t) im->n_obs * sizeof *im->b_obs);
            memcpy(im->b_mask + (size_t) r * im->n_act,
                   im->mask + (size_t) i * im->n_act, (size_t) im->n_act);
            im->b_act[r] = im->act[i];
            im->b_w[r] = im->w[i];
            im->b_ret[r] = im->ret[i];
        }
        next += mb;
        struct lr_ppo_imitate_stats st;
        int rc = step_weighted(p, mb, im->b_obs, im->b_mask, im->b_act,
                               im->b_w, fit_critic ? im->b_ret : NULL, lr,
                               lw, &st);
        if (rc)
            return rc;
        sum.loss += st.loss;
        sum.value_loss += st.value_loss;
        sum.agreement += st.agreement;
        sum.actor_grad_norm += st.actor_grad_norm;
        sum.critic_grad_norm += st.critic_grad_norm;
        sum.rows += st.rows;
        sum.label_rows += st.label_rows;
        sum.label_agreement += st.label_agreement * st.label_rows;
        sum.heavy_rows += st.heavy_rows;
        sum.heavy_agreement += st.heavy_agreement * st.heavy_rows;
    }
    if (out) {
        out->loss = sum.loss / steps;
        out->value_loss = sum.value_loss / steps;
        out->agreement = sum.agreement / steps;
        out->actor_grad_norm = sum.actor_grad_norm / steps;
        out->critic_grad_norm = sum.critic_grad_norm / steps;
        out->rows = sum.rows;
        out->label_rows = sum.label_rows;
        out->label_agreement = sum.label_rows
                               ? sum.label_agreement / sum.label_rows : 0;
        out->heavy_rows = sum.heavy_rows;
        out->heavy_agreement = sum.heavy_rows
                               ? sum.heavy_agreement / sum.heavy_rows : 0;
    }
    return 0;
}
