/* lr_ppo: see lr_ppo.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bytes.h"
#include "planner/lr_jenv.h"
#include "planner/lr_ppo.h"
#include "planner/lr_simd.h"
#include "planner/lr_util.h"

void
lr_ppo_defaults(struct lr_ppo_config *c, int n_obs, int n_act)
{
    *c = (struct lr_ppo_config) {
        .n_obs = n_obs, .n_act = n_act, .hidden = { 64, 64 }, .lr = 2.5e-4,
        .anneal = true, .total_steps = 1000000, .n_steps = 512,
        .n_minibatches = 4, .n_epochs = 4, .gamma = 0.99, .lambda = 0.95,
        .clip = 0.2, .ent_coef = 0.01, .vf_coef = 0.5, .max_grad_norm = 0.5,
        .seed = 1, .n_envs = 1, .per_sample = false,
    };
}

/* The batched path's row buffers but the anchor's (lr_ppo_reserve). */
static void
free_rows(struct lr_ppo *p)
{
    free(p->xb);
    free(p->lb);
    free(p->pb);
    free(p->db);
    free(p->vb);
    free(p->gvb);
    free(p->ob);
    free(p->mb);
}

void
lr_ppo_free(struct lr_ppo *p)
{
    if (!p)
        return;
    lr_mlp_free(p->actor);
    lr_mlp_free(p->critic);
    lr_adam_free(&p->adam_actor);
    lr_adam_free(&p->adam_critic);
    free(p->obs);
    free(p->mask);
    free(p->act);
    free(p->logp);
    free(p->value);
    free(p->reward);
    free(p->done);
    free(p->adv);
    free(p->ret);
    free(p->boot);
    free(p->cut);
    free(p->logits);
    free(p->probs);
    free(p->dlogits);
    free(p->x);
    free(p->fobs);
    free(p->perm);
    free_rows(p);
    free(p->ret_run);
    lr_mlp_free(p->anchor);
    free(p->qz);
    free(p->qp);
    free(p);
}

/* Grows one row buffer of the batched path to 'rows' rows of 'size'
 * bytes: into *fresh, freed by the caller on failure. */
static bool
grow(void **fresh, size_t rows, size_t size)
{
    *fresh = malloc(rows * size);
    return *fresh != NULL;
}

int
lr_ppo_reserve(struct lr_ppo *p, int rows)
{
    if (rows < 1)
        return EINVAL;
    if (rows <= p->cap)
        return 0;
    const struct lr_ppo_config *c = &p->cfg;
    size_t n = (size_t) rows, no = (size_t) c->n_obs, na = (size_t) c->n_act;
    /* Every buffer first, so that a failure leaves the agent as it was
     * (the networks' scratch only grows, which changes nothing). */
    void *b[10] = { NULL };
    bool ok = grow(&b[0], n, no * sizeof *p->xb)
              && grow(&b[1], n, na * sizeof *p->lb)
              && grow(&b[2], n, na * sizeof *p->pb)
              && grow(&b[3], n, na * sizeof *p->db)
              && grow(&b[4], n, sizeof *p->vb)
              && grow(&b[5], n, sizeof *p->gvb)
              && grow(&b[6], n, no * sizeof *p->ob)
              && grow(&b[7], n, na * sizeof *p->mb)
              && (!p->anchor || (grow(&b[8], n, na * sizeof *p->qz)
                                 && grow(&b[9], n, na * sizeof *p->qp)))
              && !lr_mlp_reserve(p->actor, rows)
              && !lr_mlp_reserve(p->critic, rows)
              && (!p->anchor || !lr_mlp_reserve(p->anchor, rows));
    if (!ok) {
        for (int i = 0; i < 10; i++)
            free(b[i]);
        return ENOMEM;
    }
    free_rows(p);
    p->xb = b[0];
    p->lb = b[1];
    p->pb = b[2];
    p->db = b[3];
    p->vb = b[4];
    p->gvb = b[5];
    p->ob = b[6];
    p->mb = b[7];
    if (p->anchor) {
        free(p->qz);
        free(p->qp);
        p->qz = b[8];
        p->qp = b[9];
    }
    p->cap = rows;
    return 0;
}

/* lr_ppo_new() without the initialisation: the weights 0 and the rng
 * as seeded, for a caller that writes every weight (lr_ppo_decode). */
static int
ppo_alloc(const struct lr_ppo_config *c, struct lr_ppo **out)
{
    *out = NULL;
    if (c->n_obs < 1 || c->n_act < 1 || c->hidden[0] < 1 || c->hidden[1] < 1
        || c->n_steps < 2 || c->n_minibatches < 1
        || c->n_minibatches > c->n_steps / 2 || c->n_epochs < 1
        || !(c->lr > 0) || !isfinite(c->lr)
        || !(c->gamma >= 0 && c->gamma <= 1)
        || !(c->lambda >= 0 && c->lambda <= 1) || !(c->clip > 0)
        || !(c->ent_coef >= 0) || !isfinite(c->ent_coef)
        || !(c->vf_coef >= 0) || !isfinite(c->vf_coef)
        || !(c->max_grad_norm > 0) || c->n_envs < 1
        || c->n_steps % c->n_envs != 0)
        return EINVAL;
    struct lr_ppo *p = calloc(1, sizeof *p);
    if (!p)
        return ENOMEM;
    p->cfg = *c;
    lr_rng_seed(&p->rng, c->seed);
    size_t n = (size_t) c->n_steps;
    int rc = lr_mlp_new(c->n_obs, c->hidden, 2, c->n_act, &p->actor);
    if (!rc)
        rc = lr_mlp_new(c->n_obs, c->hidden, 2, 1, &p->critic);
    if (!rc)
        rc = lr_adam_init(&p->adam_actor, p->actor->n_params);
    if (!rc)
        rc = lr_adam_init(&p->adam_critic, p->critic->n_params);
    /* The largest minibatch (lr_ppo_update_envs: ceil(n_steps / M)). */
    int cap = (c->n_steps + c->n_minibatches - 1) / c->n_minibatches;
    if (!rc)
        rc = lr_ppo_reserve(p, cap > c->n_envs ? cap : c->n_envs);
    if (rc) {
        lr_ppo_free(p);
        return rc;
    }
    p->obs = malloc(n * c->n_obs * sizeof *p->obs);
    p->mask = malloc(n * c->n_act);
    p->act = malloc(n * sizeof *p->act);
    p->logp = malloc(n * sizeof *p->logp);
    p->value = malloc(n * sizeof *p->value);
    p->reward = malloc(n * sizeof *p->reward);
    p->done = malloc(n * sizeof *p->done);
    p->adv = malloc(n * sizeof *p->adv);
    p->ret = malloc(n * sizeof *p->ret);
    p->boot = malloc(n * sizeof *p->boot);
    p->cut = malloc(n * sizeof *p->cut);
    p->logits = malloc((size_t) c->n_act * sizeof *p->logits);
    p->probs = malloc((size_t) c->n_act * sizeof *p->probs);
    p->dlogits = malloc((size_t) c->n_act * sizeof *p->dlogits);
    p->x = malloc((size_t) c->n_obs * sizeof *p->x);
    p->fobs = malloc((size_t) c->n_obs * sizeof *p->fobs);
    p->perm = malloc(n * sizeof *p->perm);
    p->ret_run = calloc((size_t) c->n_envs, sizeof *p->ret_run);
    if (!p->ret_run || !p->obs || !p->mask || !p->act || !p->logp || !p->value
        || !p->reward || !p->done || !p->adv || !p->ret || !p->boot || !p->cut || !p->logits
        || !p->probs || !p->dlogits || !p->x || !p->fobs || !p->perm) {
        lr_ppo_free(p);
        return ENOMEM;
    }
    *out = p;
    return 0;
}

int
lr_ppo_new(const struct lr_ppo_config *c, struct lr_ppo **out)
{
    int rc = ppo_alloc(c, out);
    if (rc)
        return rc;
    lr_mlp_init((*out)->actor, &(*out)->rng, 0.01);
    lr_mlp_init((*out)->critic, &(*out)->rng, 1.0);
    return 0;
}

/* The masked softmax of 'logits' into 'probs' (0 where masked); returns
 * log of the normaliser, or -inf when nothing is allowed. */
static double
masked_softmax(const double *logits, const uint8_t *mask, int n,
               double *probs)
{
    double mx = -INFINITY;
    for (int a = 0; a < n; a++)
        if (mask[a] && logits[a] > mx)
            mx = logits[a];
    if (mx == -INFINITY)
        return -INFINITY;
    double s = 0;
    for (int a = 0; a < n; a++) {
        probs[a] = mask[a] ? exp(logits[a] - mx) : 0;
        s += probs[a];
    }
    for (int a = 0; a < n; a++)
        probs[a] /= s;
    return mx + log(s);
}

int
lr_ppo_anchor(struct lr_ppo *p, double coef)
{
    if (!(coef >= 0) || !isfinite(coef))
        return EINVAL;
    struct lr_mlp *a = NULL;
    double *qz = NULL, *qp = NULL;
    if (coef > 0) {
        const struct lr_mlp *m = p->actor;
        size_t rows = (size_t) p->cap * p->cfg.n_act;
        int rc = lr_mlp_new(m->sizes[0], m->sizes + 1, m->n_layers - 1,
                            m->sizes[m->n_layers], &a);
        if (!rc)
            rc = lr_mlp_reserve(a, p->cap);
        qz = malloc(rows * sizeof *qz);
        qp = malloc(rows * sizeof *qp);
        if (rc || !qz || !qp) {
            lr_mlp_free(a);
            free(qz);
            free(qp);
            return rc ? rc : ENOMEM;
        }
        lr_mlp_copy_widened(m, a);        /* the same sizes: a copy */
    }
    lr_mlp_free(p->anchor);
    free(p->qz);
    free(p->qp);
    p->anchor = a;
    p->qz = qz;
    p->qp = qp;
    p->anchor_coef = coef;
    return 0;
}

/* A draw from the masked policy 'probs', or (sample false; 'probs' may
 * then be NULL) the allowed action of the largest logit, -1 when none
 * is allowed. */
static int
choose(struct lr_ppo *p, const double *logits, const double *probs,
       const uint8_t *mask, bool sample)
{
    int n = p->cfg.n_act, a = -1;
    if (sample) {
        /* The allowed actions in index order (lr_simd_allowed_word); 'a'
         * ends as the last allowed when rounding leaves c below u. */
        double u = lr_rng_uniform(&p->rng), c = 0;
        for (size_t b = 0; b < (size_t) n; b += 64)
            for (uint64_t w = lr_simd_allowed_word(mask, (size_t) n, b); w;
                 w &= w - 1) {
                a = (int) b + __builtin_ctzll(w);
                c += probs[a];
                if (u < c)
                    return a;
            }
    } else {
        for (int i = 0; i < n; i++)
            if (mask[i] && (a < 0 || logits[i] > logits[a]))
                a = i;
    }
    return a;
}

int
lr_ppo_act(struct lr_ppo *p, const float *obs, const uint8_t *mask,
           bool sample, double *logp, double *value)
{
    int n = p->cfg.n_act;
    for (int i = 0; i < p->cfg.n_obs; i++)
        p->x[i] = obs[i];
    lr_mlp_forward(p->actor, p->x, p->logits);
    int a;
    if (!sample && !logp) {
        /* The most probable allowed action is the largest allowed
         * logit: no softmax (a fifth of a rollout's time with it). */
        a = choose(p, p->logits, NULL, mask, false);
        if (a < 0)
            return -1;
    } else {
        double lz = masked_softmax(p->logits, mask, n, p->probs);
        if (lz == -INFINITY)
            return -1;
        a = choose(p, p->logits, p->probs, mask, sample);
        if (logp)
            *logp = p->logits[a] - lz;
    }
    if (value) {
        double v;
        lr_mlp_forward(p->critic, p->x, &v);
        *value = v;
    }
    return a;
}

int
lr_ppo_act_batch(struct lr_ppo *p, int n, const float *obs,
                 const uint8_t *mask, bool sample, int *act, double *logp,
                 double *value)
{
    const struct lr_ppo_config *c = &p->cfg;
    if (n < 1 || n > p->cap)
        return EINVAL;
    lr_mlp_forward_batchf(p->actor, n, obs, p->lb);
    for (int r = 0; r < n; r++) {
        const double *z = p->lb + (size_t) r * c->n_act;
        double *pr = p->pb + (size_t) r * c->n_act;
        const uint8_t *mk = mask + (size_t) r * c->n_act;
        if (!sample && !logp) {
            act[r] = choose(p, z, NULL, mk, false);   /* as lr_ppo_act */
            continue;
        }
        double lz = lr_simd_masked_softmax(z, mk, (size_t) c->n_act, pr);
        int a = lz == -INFINITY ? -1 : choose(p, z, pr, mk, sample);
        act[r] = a;
        if (logp)
            logp[r] = a < 0 ? -INFINITY : z[a] - lz;
    }
    if (value)
        lr_mlp_forward_batchf(p->critic, n, obs, value);
    return 0;
}

/* cfg.norm_reward: r over the deviation of the discounted returns so
 * far, environment e's own return updated with r first (and reset after
 * an episode's end). */
static double
scale_reward(struct lr_ppo *p, int e, double r, bool done)
{
    double g = p->ret_run[e] = p->cfg.gamma * p->ret_run[e] + r;
    p->ret_count++;
    double d = g - p->ret_mean;
    p->ret_mean += d / (double) p->ret_count;
    p->ret_m2 += d * (g - p->ret_mean);
    if (done)
        p->ret_run[e] = 0;
    double var = p->ret_count > 1 ? p->ret_m2 / (double) p->ret_count : 1;
    return r / sqrt(var + 1e-8);
}

bool
lr_ppo_store(struct lr_ppo *p, const float *obs, const uint8_t *mask,
             int action, double logp, double value, double reward, bool done)
{
    int t = p->n;
    if (t >= p->cfg.n_steps)
        return true;
    memcpy(p->obs + (size_t) t * p->cfg.n_obs, obs,
           (size_t) p->cfg.n_obs * sizeof *obs);
    memcpy(p->mask + (size_t) t * p->cfg.n_act, mask, (size_t) p->cfg.n_act);
    p->act[t] = action;
    p->logp[t] = logp;
    p->value[t] = value;
    if (p->cfg.norm_reward)
        reward = scale_reward(p, t % p->cfg.n_envs, reward, done);
    p->reward[t] = reward;
    p->done[t] = done;
    p->boot[t] = 0;
    p->cut[t] = 0;
    p->n++;
    return p->n == p->cfg.n_steps;
}

int
lr_ppo_truncate(struct lr_ppo *p, int e, double next_value)
{
    int N = p->cfg.n_envs;
    if (e < 0 || e >= N || p->n <= e || !isfinite(next_value))
        return EINVAL;
    int t = e + (p->n - 1 - e) / N * N;
    if (!p->done[t])
        return EINVAL;
    p->boot[t] = next_value;
    p->cut[t] = 1;
    return 0;
}

/* Mean and deviation of the advantages of idx[0..count). */
static void
adv_moments(const struct lr_ppo *p, const int *idx, int count, double *mean,
            double *sd)
{
    double m = 0, var = 0;
    for (int i = 0; i < count; i++)
        m += p->adv[idx[i]];
    m /= count;
    for (int i = 0; i < count; i++)
        var += (p->adv[idx[i]] - m) * (p->adv[idx[i]] - m);
    *mean = m;
    *sd = count > 1 ? sqrt(var / (count - 1)) : 1;
}

/* One transition's clipped surrogate (lr_ppo.h): max(-A r, -A clip(r,
 * 1 - eps, 1 + eps)) for the ratio r, and in *dlogp its derivative in
 * log pi(a|s): the unclipped branch carries the gradient; the clipped
 * one is flat.  Both loss paths below share it, so they agree to the
 * last bit on the same probabilities. */
static double
policy_term(double A, double ratio, double clip, double *dlogp)
{
    double l1 = -A * ratio;
    double rc = fmin(fmax(ratio, 1 - clip), 1 + clip);
    double l2 = -A * rc;
    *dlogp = l1 >= l2 ? -A * ratio : 0;
    return fmax(l1, l2);
}

/* One transition's value loss, clipped around the old estimate vold:
 * 0.5 max((v - R)^2, (vc - R)^2) with vc = vold + clip(v - vold, -eps,
 * eps); its derivative in v in *dvl. */
static double
value_term(double v, double R, double vold, double clip, double *dvl)
{
    double dv = v - vold;
    double vc = vold + fmin(fmax(dv, -clip), clip);
    double e1 = (v - R) * (v - R), e2 = (vc - R) * (vc - R);
    if (e1 >= e2)
        *dvl = v - R;
    else
        *dvl = fabs(dv) < clip ? vc - R : 0;
    return 0.5 * fmax(e1, e2);
}

/* One transition's anchor term (lr_ppo.h): returns KL(q || p) over the
 * allowed actions, q the anchor's masked softmax (logits qz, log
 * normaliser lq, probabilities qp), p the agent's (z, lz, pr), and adds
 * coef (p_j - q_j) / count, its gradient in z_j, to dz[j] for the
 * allowed j.  Both loss paths share it. */
static double
anchor_term(double coef, const double *z, double lz, const double *pr,
            const double *qz, double lq, const double *qp,
            const uint8_t *mask, int n, double count, double *dz)
{
    double kl = 0;
    for (int j = 0; j < n; j++) {
        if (!mask[j])
            continue;
        if (qp[j] > 0)
            kl += qp[j] * ((qz[j] - lq) - (z[j] - lz));
        dz[j] += coef * (pr[j] - qp[j]) / count;
    }
    return kl;
}

/* One transition's share, of 'count', of the update's statistics: its
 * policy and value losses, entropy H, and the ratio and log-ratio for
 * the approximate KL and the clipped fraction.  st may be NULL. */
static void
stats_add(struct lr_ppo_stats *st, int count, double clip, double pg,
          double vl, double H, double ratio, double logratio)
{
    if (!st)
        return;
    st->policy_loss += pg / count;
    st->value_loss += vl / count;
    st->entropy += H / count;
    st->approx_kl += ((ratio - 1) - logratio) / count;
    st->clip_frac += (fabs(ratio - 1) > clip) / (double) count;
}

/* Whether transition t records a decision: an action its mask allows.
 * Not so for lr_ppo_act's -1 on a mask that allows nothing (a softmax
 * over no action, log-probability -inf) or an action the mask forbids
 * (probability 0): such a transition has no policy term, entropy or
 * anchor term, only its value term (lr_ppo_store). */
static bool
decided(const struct lr_ppo *p, int t)
{
    int a = p->act[t];
    return a >= 0 && a < p->cfg.n_act
           && p->mask[(size_t) t * p->cfg.n_act + a];
}

/* The loss of transitions idx[0..count) and its gradient, added to the
 * networks' grad (divided by count); advantages normalised over them.
 * The reference path: one transition at a time. */
static double
loss_grad_per_sample(struct lr_ppo *p, const int *idx, int count,
                     struct lr_ppo_stats *st)
{
    const struct lr_ppo_config *c = &p->cfg;
    int n = c->n_act;
    double mean, sd;
    adv_moments(p, idx, count, &mean, &sd);
    double total = 0;
    for (int i = 0; i < count; i++) {
        int t = idx[i];
        const float *xf = p->obs + (size_t) t * c->n_obs;
        double *x = p->x;
        for (int k = 0; k < c->n_obs; k++)
            x[k] = xf[k];
        const uint8_t *mask = p->mask + (size_t) t * n;
        double A = (p->adv[t] - mean) / (sd + 1e-8);
        /* Critic, with the value clipped around the old estimate. */
        double v;
        lr_mlp_forward(p->critic, x, &v);
        double dvl, vl = value_term(v, p->ret[t], p->value[t], c->clip, &dvl);
        double g = c->vf_coef * dvl / count;
        lr_mlp_backward(p->critic, &g);
        if (!decided(p, t)) {
            total += c->vf_coef * vl / count;
            stats_add(st, count, c->clip, 0, vl, 0, 1, 0);
            continue;
        }
        /* Actor. */
        lr_mlp_forward(p->actor, x, p->logits);
        double lz = masked_softmax(p->logits, mask, n, p->probs);
        int a = p->act[t];
        double logp = p->logits[a] - lz, ratio = exp(logp - p->logp[t]);
        double dlogp, pg = policy_term(A, ratio, c->clip, &dlogp);
        double H = 0;
        for (int j = 0; j < n; j++)
            if (mask[j] && p->probs[j] > 0)
                H -= p->probs[j] * log(p->probs[j]);
        for (int j = 0; j < n; j++) {
            if (!mask[j]) {
                p->dlogits[j] = 0;
                continue;
            }
            double pj = p->probs[j];
            double lpj = pj > 0 ? log(pj) : 0;
            /* d logp_a / dz_j = [j = a] - p_j; dH/dz_j = -p_j (log p_j +
             * H); the loss has -ent_coef H. */
            p->dlogits[j] = (dlogp * ((j == a) - pj)
                             + c->ent_coef * pj * (lpj + H)) / count;
        }
        double kl = 0;
        if (p->anchor) {
            lr_mlp_forward(p->anchor, x, p->qz);
            double lq = masked_softmax(p->qz, mask, n, p->qp);
            kl = anchor_term(p->anchor_coef, p->logits, lz, p->probs, p->qz,
                             lq, p->qp, mask, n, count, p->dlogits);
            total += p->anchor_coef * kl / count;
            if (st)
                st->anchor_kl += kl / count;
        }
        lr_mlp_backward(p->actor, p->dlogits);
        total += (pg - c->ent_coef * H + c->vf_coef * vl) / count;
        stats_add(st, count, c->clip, pg, vl, H, ratio, logp - p->logp[t]);
    }
    return total;
}

/* The same loss and gradient as loss_grad_per_sample(), by batches of up
 * to 'cap' rows: one forward and one backward pass of each network per
 * batch.  log p_j is taken as z_j - log Z (no log call per action). */
static double
loss_grad_batched(struct lr_ppo *p, const int *idx, int count,
                  struct lr_ppo_stats *st)
{
    const struct lr_ppo_config *c = &p->cfg;
    int n = c->n_act, no = c->n_obs;
    double mean, sd;
    adv_moments(p, idx, count, &mean, &sd);
    double total = 0;
    for (int first = 0; first < count; first += p->cap) {
        int rows = count - first < p->cap ? count - first : p->cap;
        for (int r = 0; r < rows; r++)
            memcpy(p->xb + (size_t) r * no,
                   p->obs + (size_t) idx[first + r] * no,
                   (size_t) no * sizeof *p->xb);
        lr_mlp_forward_batchf(p->actor, rows, p->xb, p->lb);
        lr_mlp_forward_batchf(p->critic, rows, p->xb, p->vb);
        if (p->anchor)
            lr_mlp_forward_batchf(p->anchor, rows, p->xb, p->qz);
        for (int r = 0; r < rows; r++) {
            int t = idx[first + r];
            const uint8_t *mask = p->mask + (size_t) t * n;
            const double *z = p->lb + (size_t) r * n;
            double *pr = p->pb + (size_t) r * n, *dz = p->db + (size_t) r * n;
            double dvl, vl = value_term(p->vb[r], p->ret[t], p->value[t],
                                        c->clip, &dvl);
            p->gvb[r] = c->vf_coef * dvl / count;
            if (!decided(p, t)) {
                memset(dz, 0, (size_t) n * sizeof *dz);
                total += c->vf_coef * vl / count;
                stats_add(st, count, c->clip, 0, vl, 0, 1, 0);
                continue;
            }
            double A = (p->adv[t] - mean) / (sd + 1e-8);
            double lz = lr_simd_masked_softmax(z, mask, (size_t) n, pr);
            int a = p->act[t];
            double logp = z[a] - lz, ratio = exp(logp - p->logp[t]);
            double dlogp, pg = policy_term(A, ratio, c->clip, &dlogp);
            double H = lr_simd_masked_entropy(pr, z, lz, mask, (size_t) n);
            /* As in loss_grad_per_sample(); 0 where masked. */
            lr_simd_logit_grad(dz, z, pr, mask, (size_t) n, (size_t) a, dlogp,
                               c->ent_coef, lz, H, (double) count);
            if (p->anchor) {
                double *qz = p->qz + (size_t) r * n;
                double *qp = p->qp + (size_t) r * n;
                double lq = lr_simd_masked_softmax(qz, mask, (size_t) n, qp);
                double kl = anchor_term(p->anchor_coef, z, lz, pr, qz, lq, qp,
                                        mask, n, count, dz);
                total += p->anchor_coef * kl / count;
                if (st)
                    st->anchor_kl += kl / count;
            }
            total += (pg - c->ent_coef * H + c->vf_coef * vl) / count;
            stats_add(st, count, c->clip, pg, vl, H, ratio,
                      logp - p->logp[t]);
        }
        lr_mlp_backward_batch(p->actor, rows, p->db);
        lr_mlp_backward_batch(p->critic, rows, p->gvb);
    }
    return total;
}

static double
batch_loss_grad(struct lr_ppo *p, const int *idx, int count,
                struct lr_ppo_stats *st)
{
    return p->cfg.per_sample ? loss_grad_per_sample(p, idx, count, st)
                             : loss_grad_batched(p, idx, count, st);
}

double
lr_ppo_loss_grad(struct lr_ppo *p, int first, int count)
{
    for (int i = 0; i < count; i++)
        p->perm[i] = first + i;
    lr_mlp_zero_grad(p->actor);
    lr_mlp_zero_grad(p->critic);
    return batch_loss_grad(p, p->perm, count, NULL);
}

/* GAE along each environment's sequence: transitions e, e + N, e + 2N,
 * ... of the time-major rollout; an episode's last transition
 * bootstraps from boot[t] (0 for an end, V(s') for a cut). */
static void
compute_gae(struct lr_ppo *p, const double *last_values)
{
    const struct lr_ppo_config *c = &p->cfg;
    int N = c->n_envs;
    for (int e = 0; e < N; e++) {
        double next_adv = 0, next_v = last_values[e];
        for (int t = p->n - N + e; t >= 0; t -= N) {
            double nd = 1 - p->done[t];
            double next = p->done[t] != 0 ? p->boot[t] : next_v;
            double delta = p->reward[t] + c->gamma * next - p->value[t];
            next_adv = delta + c->gamma * c->lambda * nd * next_adv;
            p->adv[t] = next_adv;
            p->ret[t] = next_adv + p->value[t];
            next_v = p->value[t];
        }
    }
}

/* The factor that scales m's gradient down to norm 'max' at most (1 when
 * it is within), applied in Adam's loop (lr_mlp_adam_step); its norm in
 * *norm.  Each network is clipped on its own: with unnormalised returns
 * the critic's gradient is orders of magnitude larger than the actor's,
 * and one global norm (CleanRL's) would shrink the actor's step to
 * nothing. */
static double
clip_scale(const struct lr_mlp *m, double max, double *norm)
{
    *norm = sqrt(lr_simd_sum_squares(m->grad, (size_t) m->n_params));
    return *norm > max ? max / *norm : 1.0;
}

void
lr_ppo_update(struct lr_ppo *p, double last_value, struct lr_ppo_stats *out)
{
    for (int e = 0; e < p->cfg.n_envs; e++)
        p->vb[e] = last_value;
    lr_ppo_update_envs(p, p->vb, out);
}

void
lr_ppo_update_envs(struct lr_ppo *p, const double *last_values,
                   struct lr_ppo_stats *out)
{
    const struct lr_ppo_config *c = &p->cfg;
    struct lr_ppo_stats st = { 0 };
    int n = p->n;
    if (n < 2 || n % c->n_envs) {
        p->n = 0;
        if (out)
            *out = st;
        return;
    }
    compute_gae(p, last_values);
    for (int t = 0; t < n; t++)
        st.truncated += p->cut[t];
    double lr = c->lr;
    if (c->anneal && c->total_steps > 0) {
        double done = (double) p->updates * c->n_steps / c->total_steps;
        lr *= fmax(0.0, 1 - done);
        if (lr <= 0)
            lr = c->lr * 1e-3;
    }
    /* Minibatch b of an epoch is perm[b n / M .. (b + 1) n / M): every
     * transition once per epoch, sizes differing by at most one when M
     * does not divide n (n / M each when it does).  At least 2 in each:
     * one advantage normalises to 0 and gives the actor no gradient, so
     * a rollout shorter than 2 M is cut in fewer (never an empty one:
     * Adam would move the weights on no data). */
    int M = c->n_minibatches < n / 2 ? c->n_minibatches : n / 2;
    int batches = 0;
    for (int i = 0; i < n; i++)
        p->perm[i] = i;
    for (int ep = 0; ep < c->n_epochs; ep++) {
        for (int i = n - 1; i > 0; i--) {
            int j = (int) lr_rng_below(&p->rng, (uint32_t) (i + 1));
            int t = p->perm[i];
            p->perm[i] = p->perm[j];
            p->perm[j] = t;
        }
        for (int b = 0; b < M; b++) {
            int lo = (int) ((long) b * n / M);
            int hi = (int) ((long) (b + 1) * n / M);
            if (hi == lo)
                continue;
            lr_mlp_zero_grad(p->actor);
            lr_mlp_zero_grad(p->critic);
            batch_loss_grad(p, p->perm + lo, hi - lo, &st);
            double na, nc;
            double sa = clip_scale(p->actor, c->max_grad_norm, &na);
            double sc = clip_scale(p->critic, c->max_grad_norm, &nc);
            st.actor_grad_norm += na;
            st.critic_grad_norm += nc;
            if (!p->freeze_actor)
                lr_mlp_adam_step(p->actor, &p->adam_actor, lr, sa);
            lr_mlp_adam_step(p->critic, &p->adam_critic, lr, sc);
            batches++;
        }
    }
    p->updates++;
    p->n = 0;
    if (out) {
        st.policy_loss /= batches;
        st.value_loss /= batches;
        st.entropy /= batches;
        st.approx_kl /= batches;
        st.clip_frac /= batches;
        st.actor_grad_norm /= batches;
        st.critic_grad_norm /= batches;
        st.anchor_kl /= batches;
        st.lr = lr;
        *out = st;
    }
}

/* ---- the file format ---- */

static const uint8_t magic[8] = { 'L', 'R', 'P', 'P', 'O', 'W', 0, 0 };
/* magic, version, n_obs, n_act, hidden[2], n actor, n critic. */
#define HEADER (8 + 4 * 7)

/* Header, weights and checksum of networks of these sizes. */
static size_t
encoded_size(size_t n_actor, size_t n_critic)
{
    return HEADER + 8 * (n_actor + n_critic) + 8;
}

size_t
lr_ppo_encoded_size(const struct lr_ppo *p)
{
    return encoded_size((size_t) p->actor->n_params,
                        (size_t) p->critic->n_params);
}

size_t
lr_ppo_encode(const struct lr_ppo *p, uint8_t *buf, size_t len)
{
    size_t need = lr_ppo_encoded_size(p);
    if (len < need)
        return 0;
    memcpy(buf, magic, 8);
    uint32_t h[7] = {
        LR_PPO_FORMAT_VERSION, (uint32_t) p->cfg.n_obs,
        (uint32_t) p->cfg.n_act, (uint32_t) p->cfg.hidden[0],
        (uint32_t) p->cfg.hidden[1], (uint32_t) p->actor->n_params,
        (uint32_t) p->critic->n_params,
    };
    for (int i = 0; i < 7; i++)
        lr_put32(buf + 8 + 4 * i, h[i]);
    uint8_t *w = buf + HEADER;
    for (int i = 0; i < p->actor->n_params; i++, w += 8)
        lr_put_f64(w, p->actor->params[i]);
    for (int i = 0; i < p->critic->n_params; i++, w += 8)
        lr_put_f64(w, p->critic->params[i]);
    lr_put64(w, lr_fnv1a64(buf, (size_t) (w - buf)));
    return need;
}

static bool
all_finite(const struct lr_mlp *m)
{
    for (int i = 0; i < m->n_params; i++)
        if (!isfinite(m->params[i]))
            return false;
    return true;
}

int
lr_ppo_decode(const uint8_t *buf, size_t len, struct lr_ppo **out,
              char *err, size_t errlen)
{
    *out = NULL;
    if (len < HEADER + 8 || memcmp(buf, magic, 8)) {
        lr_set_err(err, errlen, "not a Lightrail PPO policy (bad magic)");
        return EPROTO;
    }
    uint32_t h[7];
    for (int i = 0; i < 7; i++)
        h[i] = lr_get32(buf + 8 + 4 * i);
    if (h[0] != LR_PPO_FORMAT_VERSION) {
        lr_set_err(err, errlen, "policy format version %u, this build reads "
                   "version %d: train it again with this lightrail", h[0],
                   LR_PPO_FORMAT_VERSION);
        return EPROTO;
    }
    /* Sizes, lengths and the checksum are checked before anything is
     * allocated: a header of a few bytes must not make us build a
     * network of gigabytes. */
    if (h[1] < 1 || h[1] > 1000000 || h[2] < 1 || h[2] > 1000000
        || h[3] < 1 || h[3] > 100000 || h[4] < 1 || h[4] > 100000) {
        lr_set_err(err, errlen, "policy sizes out of range");
        return EINVAL;
    }
    int hid[2] = { (int) h[3], (int) h[4] };
    long n_actor = lr_mlp_param_count((int) h[1], hid, 2, (int) h[2]);
    long n_critic = lr_mlp_param_count((int) h[1], hid, 2, 1);
    if (n_actor < 0 || n_critic < 0) {
        lr_set_err(err, errlen, "policy sizes out of range (%u inputs, %u "
                   "actions, hidden %u and %u: more than %ld parameters)",
                   h[1], h[2], h[3], h[4], (long) LR_MLP_MAX_PARAMS);
        return EINVAL;
    }
    size_t need = encoded_size((size_t) n_actor, (size_t) n_critic);
    if ((uint32_t) n_actor != h[5] || (uint32_t) n_critic != h[6]
        || len != need) {
        lr_set_err(err, errlen, "policy truncated or of inconsistent size "
                   "(%zu bytes, %zu expected)", len, need);
        return EINVAL;
    }
    if (lr_fnv1a64(buf, len - 8) != lr_get64(buf + len - 8)) {
        lr_set_err(err, errlen, "policy checksum mismatch: the file is "
                   "corrupt; copy or train it again");
        return EPROTO;
    }
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, (int) h[1], (int) h[2]);
    c.hidden[0] = hid[0];
    c.hidden[1] = hid[1];
    c.n_steps = 2;
    c.n_minibatches = 1;
    /* Every weight is the file's: no orthogonal initialisation to
     * overwrite (its Gram-Schmidt was most of a load's time,
     * docs/benchmarks.md), so the rng is as seeded, no draw taken. */
    struct lr_ppo *p = NULL;
    int rc = ppo_alloc(&c, &p);
    if (rc) {
        lr_set_err(err, errlen, "out of memory");
        return rc;
    }
    const uint8_t *w = buf + HEADER;
    for (int i = 0; i < p->actor->n_params; i++, w += 8)
        p->actor->params[i] = lr_get_f64(w);
    for (int i = 0; i < p->critic->n_params; i++, w += 8)
        p->critic->params[i] = lr_get_f64(w);
    lr_mlp_params_changed(p->actor);
    lr_mlp_params_changed(p->critic);
    if (!all_finite(p->actor) || !all_finite(p->critic)) {
        lr_set_err(err, errlen, "policy has a weight that is not finite");
        lr_ppo_free(p);
        return EINVAL;
    }
    *out = p;
    return 0;
}

/* Whether the agent's sizes are the environment's (the loaders check
 * them first; a policy must not read past either). */
static bool
fits(const struct lr_ppo *p, const struct lr_jenv *e)
{
    return lr_jenv_obs_size(e) == p->cfg.n_obs
           && lr_jenv_n_actions(e) == p->cfg.n_act;
}

static int
ppo_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
           struct lr_rng *rng)
{
    (void) rng;
    struct lr_ppo *p = arg;
    if (!fits(p, e))
        return -1;
    lr_jenv_observe(e, p->fobs);
    return lr_ppo_act(p, p->fobs, mask, false, NULL, NULL);
}

/* The same decisions for n environments in one batched pass
 * (lr_ppo_act_batch: single precision, so a near tie of two logits may
 * go the other way than in ppo_choose's double pass).  The batch grows
 * to n rows on first need (an agent read from a file has room for 2);
 * when it cannot, 'cap' rows per pass, with the same choices: a row's
 * products do not depend on the rows beside it (lr_gemm.h). */
static int
ppo_choose_batch(void *arg, int n, struct lr_jenv *const *env, int *act)
{
    struct lr_ppo *p = arg;
    const struct lr_ppo_config *c = &p->cfg;
    for (int i = 0; i < n; i++)
        if (!fits(p, env[i]))
            return EINVAL;
    if (n > p->cap && n <= LR_PPO_BATCH_MAX)
        (void) lr_ppo_reserve(p, n);    /* ENOMEM: the smaller batches */
    for (int done = 0; done < n; done += p->cap) {
        int k = n - done < p->cap ? n - done : p->cap;
        for (int r = 0; r < k; r++) {
            const struct lr_jenv *e = env[done + r];
            lr_jenv_observe(e, p->ob + (size_t) r * c->n_obs);
            memcpy(p->mb + (size_t) r * c->n_act, lr_jenv_mask(e),
                   (size_t) c->n_act);
        }
        int rc = lr_ppo_act_batch(p, k, p->ob, p->mb, false, act + done,
                                  NULL, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

const struct lr_jenv_policy lr_ppo_jenv_policy = {
    "ppo", "trained actor, most probable allowed action", ppo_choose,
    ppo_choose_batch, false,
};
