/*
 * lr_model: see lr_model.h.
 *
 * The model (../shared/reference/training.md, "Model presets"):
 *     per block, GPT/BERT   W = 4h^2 + 2hf       (Q, K, V, O; two FFN mats)
 *                LLaMA      W = 2h^2 + 2h^2 (kv/heads) + 3hf
 *                                                (Q, O; K, V shrunk by
 *                                                 grouped-query attention;
 *                                                 SwiGLU's three mats)
 *     forward FLOPs per sample  F = s (2W + 4sh)  (2 per multiply-add on
 *                                                 the weights, plus QK^T
 *                                                 and the weighted sum of V)
 *     output activation         A = s h elements per sample
 *     layer 1 also holds the embedding, V h parameters (a lookup: no
 *     FLOPs); layer L also does the output head, 2 s h V FLOPs per sample
 *     with the embedding's weights (tied, so no parameters of its own).
 *
 * Our implementation: sizes are ints, everything derived is computed in
 * double, where every preset's numbers are integers below 2^53 and so
 * exact.  Biases, layer norms and position embeddings are left out, as
 * the reference's formulas leave them out; LLaMA's output head is in
 * truth untied (V h more parameters).  That is why the presets' totals
 * come out up to 2% under the published counts (tests/unit/test_model.c).
 *
 * Prefix sums make every range sum two loads and a subtraction.  A range
 * sum then carries an absolute error of a few ulps of the whole model's
 * sum rather than of the range's (n ulps at worst, 1e-12 of the total
 * for the longest model): far below what the planner's estimates can
 * tell apart, and exact for the presets.  Plain double, not long double,
 * so that valgrind (which computes long double as double) and native runs
 * agree to the bit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_model.h"
#include "planner/lr_util.h"

struct lr_model_preset_row {
    const char *name;
    struct lr_transformer shape;
};

/* Order as in the reference's table; lr_model_presets[] lists the same
 * names in the same order. */
static const struct lr_model_preset_row lr_model_preset_rows[] = {
    /* name, { arch, layers, hidden, heads, kv_heads, ffn, vocab, seq } */
    { "bert-large", { LR_ARCH_GPT,   24,  1024, 16, 16,  4096, 30522,  512 } },
    /* No public configuration: the reference's own assumption. */
    { "gpt-1.9b",   { LR_ARCH_GPT,   36,  2048, 16, 16,  8192, 50257, 1024 } },
    { "gpt3-175b",  { LR_ARCH_GPT,   96, 12288, 96, 96, 49152, 50257, 2048 } },
    { "llama2-7b",  { LR_ARCH_LLAMA, 32,  4096, 32, 32, 11008, 32000, 4096 } },
    { "llama2-13b", { LR_ARCH_LLAMA, 40,  5120, 40, 40, 13824, 32000, 4096 } },
    { "llama2-70b", { LR_ARCH_LLAMA, 80,  8192, 64,  8, 28672, 32000, 4096 } },
};

#define LR_MODEL_N_PRESETS \
    (sizeof lr_model_preset_rows / sizeof lr_model_preset_rows[0])

const char *const lr_model_presets[] = {
    "bert-large", "gpt-1.9b", "gpt3-175b",
    "llama2-7b", "llama2-13b", "llama2-70b",
    NULL,
};

void
lr_model_free(struct lr_model *m)
{
    if (!m)
        return;
    free(m->layers);
    free(m->pre_flops);
    free(m->pre_params);
    free(m->pre_act);
    free(m);
}

/* A model named 'name' with room for n layers (zeroed) and their prefix
 * sums; the caller fills the layers and then calls lr_model_sum(). */
static int
lr_model_alloc(const char *name, int n, struct lr_model **out)
{
    struct lr_model *m = NULL;
    int ret = 0;

    *out = NULL;
    m = calloc(1, sizeof *m);
    if (!m) {
        ret = ENOMEM;
        goto cleanup;
    }
    ret = lr_copy_name(m->name, sizeof m->name, name);
    if (ret)
        goto cleanup;
    m->n_layers = n;
    m->layers = calloc((size_t) n, sizeof *m->layers);
    m->pre_flops = calloc((size_t) n + 1, sizeof *m->pre_flops);
    m->pre_params = calloc((size_t) n + 1, sizeof *m->pre_params);
    m->pre_act = calloc((size_t) n + 1, sizeof *m->pre_act);
    if (!m->layers || !m->pre_flops || !m->pre_params || !m->pre_act)
        ret = ENOMEM;

cleanup:
    if (ret) {
        lr_model_free(m);
        m = NULL;
    }
    *out = m;
    return ret;
}

static void
lr_model_sum(struct lr_model *m)
{
    double f = 0, w = 0, a = 0;

    m->pre_flops[0] = m->pre_params[0] = m->pre_act[0] = 0;
    for (int i = 0; i < m->n_layers; i++) {
        f += m->layers[i].flops;
        w += m->layers[i].params;
        a += m->layers[i].act;
        m->pre_flops[i + 1] = f;
        m->pre_params[i + 1] = w;
        m->pre_act[i + 1] = a;
    }
}

static const struct lr_model_preset_row *
lr_model_find_preset(const char *name)
{
    for (size_t i = 0; name && i < LR_MODEL_N_PRESETS; i++)
        if (!strcmp(lr_model_preset_rows[i].name, name))
            return &lr_model_preset_rows[i];
    return NULL;
}

int
lr_model_preset_shape(const char *name, struct lr_transformer *out)
{
    const struct lr_model_preset_row *row = lr_model_find_preset(name);
    if (!row)
        return ENOENT;
    *out = row->shape;
    return 0;
}

int
lr_model_preset(const char *name, struct lr_model **out)
{
    const struct lr_model_preset_row *row = lr_model_find_preset(name);

    *out = NULL;
    if (!row)
        return ENOENT;
    return lr_model_from_transformer(row->name, &row->shape, out);
}

static int
lr_model_shape_ok(const struct lr_transformer *t)
{
    if (t->arch != LR_ARCH_GPT && t->arch != LR_ARCH_LLAMA)
        return 0;
    if (t->layers <= 0 || t->layers > LR_MODEL_MAX_LAYERS)
        return 0;
    if (t->hidden <= 0 || t->heads <= 0 || t->kv_heads <= 0 || t->ffn <= 0
        || t->vocab <= 0 || t->seq <= 0)
        return 0;
    return t->heads % t->kv_heads == 0;
}

int
lr_model_from_transformer(const char *name, const struct lr_transformer *t,
                          struct lr_model **out)
{
    struct lr_model *m = NULL;

    *out = NULL;
    if (!t || !lr_model_shape_ok(t))
        return EINVAL;
    int ret = lr_model_alloc(name, t->layers, &m);
    if (ret)
        return ret;

    double h = t->hidden, f = t->ffn, s = t->seq, v = t->vocab;
    double w;
    if (t->arch == LR_ARCH_GPT)
        w = 4 * h * h + 2 * h * f;
    else
        w = 2 * h * h + 2 * h * h * t->kv_heads / t->heads + 3 * h * f;
    struct lr_layer block = {
        .flops = s * (2 * w + 4 * s * h),
        .params = w,
        .act = s * h,
    };
    for (int i = 0; i < t->layers; i++)
        m->layers[i] = block;
    m->layers[0].params += v * h;
    m->layers[t->layers - 1].flops += 2 * s * h * v;
    lr_model_sum(m);
    *out = m;
    return 0;
}

static int
lr_model_value_ok(double x)
{
    return isfinite(x) && x >= 0;
}

int
lr_model_from_layers(const char *name, const struct lr_layer *layers, int n,
                     struct lr_model **out)
{
    struct lr_model *m = NULL;

    *out = NULL;
    if (!layers || n < 1 || n > LR_MODEL_MAX_LAYERS)
        return EINVAL;
    for (int i = 0; i < n; i++)
        if (!lr_model_value_ok(layers[i].flops) || !(layers[i].flops > 0)
            || !lr_model_value_ok(layers[i].params)
            || !lr_model_value_ok(layers[i].act))
            return EINVAL;
    int ret = lr_model_alloc(name, n, &m);
    if (ret)
        return ret;
    memcpy(m->layers, layers, (size_t) n * sizeof *layers);
    lr_model_sum(m);
    *out = m;
    return 0;
}
