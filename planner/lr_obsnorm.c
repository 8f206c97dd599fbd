/*
 * lr_obsnorm: observation statistics, standardisation, and its folding
 * into a first layer (the model is in lr_obsnorm.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "planner/lr_obsnorm.h"

int
lr_obsnorm_new(int n, struct lr_obsnorm **out)
{
    if (n < 1)
        return EINVAL;
    struct lr_obsnorm *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->n = n;
    s->mean = calloc((size_t) n, sizeof *s->mean);
    s->m2 = calloc((size_t) n, sizeof *s->m2);
    s->sd = calloc((size_t) n, sizeof *s->sd);
    s->inv_sd = calloc((size_t) n, sizeof *s->inv_sd);
    if (!s->mean || !s->m2 || !s->sd || !s->inv_sd) {
        lr_obsnorm_free(s);
        return ENOMEM;
    }
    *out = s;
    return 0;
}

void
lr_obsnorm_free(struct lr_obsnorm *s)
{
    if (!s)
        return;
    free(s->mean);
    free(s->m2);
    free(s->sd);
    free(s->inv_sd);
    free(s);
}

int
lr_obsnorm_add(struct lr_obsnorm *s, const float *x)
{
    if (s->frozen)
        return EBUSY;
    s->count++;
    for (int j = 0; j < s->n; j++) {
        double d = x[j] - s->mean[j];
        s->mean[j] += d / (double) s->count;
        s->m2[j] += d * (x[j] - s->mean[j]);
    }
    return 0;
}

int
lr_obsnorm_freeze(struct lr_obsnorm *s)
{
    if (s->frozen)
        return EBUSY;
    if (s->count < 2)
        return EINVAL;
    for (int j = 0; j < s->n; j++) {
        double sd = sqrt(s->m2[j] / (double) s->count);
        s->sd[j] = sd > LR_OBSNORM_SD_FLOOR ? sd : LR_OBSNORM_SD_FLOOR;
        s->inv_sd[j] = 1 / s->sd[j];
    }
    s->frozen = true;
    return 0;
}

void
lr_obsnorm_apply(const struct lr_obsnorm *s, float *x, int rows)
{
    if (!s->frozen)
        return;
    for (int r = 0; r < rows; r++, x += s->n)
        for (int j = 0; j < s->n; j++)
            x[j] = (float) ((x[j] - s->mean[j]) * s->inv_sd[j]);
}

/* Folds (W' = W / sd, b' = b - W' mu) or unfolds (the inverse: the
 * shift is W' mu in both, taken before unfolding scales W' back) the
 * statistics into the first layer of net: W (out x in, row-major), b. */
static int
transform(const struct lr_obsnorm *s, struct lr_mlp *net, bool fold)
{
    if (!s->frozen || net->sizes[0] != s->n)
        return EINVAL;
    int out = net->sizes[1];
    double *w = net->params, *b = net->params + (size_t) out * s->n;
    for (int i = 0; i < out; i++) {
        double *row = w + (size_t) i * s->n, shift = 0;
        for (int j = 0; j < s->n; j++) {
            if (fold)
                row[j] /= s->sd[j];
            shift += row[j] * s->mean[j];
            if (!fold)
                row[j] *= s->sd[j];
        }
        b[i] += fold ? -shift : shift;
    }
    lr_mlp_params_changed(net);
    return 0;
}

int
lr_obsnorm_fold(const struct lr_obsnorm *s, struct lr_mlp *net)
{
    return transform(s, net, true);
}

int
lr_obsnorm_unfold(const struct lr_obsnorm *s, struct lr_mlp *net)
{
    return transform(s, net, false);
}
