/*
 * lr_model: a neural network as the pipeline planner sees it — a chain of
 * layers, each with its forward FLOPs per sample F_l, parameters W_l and
 * output activation elements per sample A_l
 * (../shared/reference/training.md, "Model presets").
 *
 * Transformer shapes (presets and custom files) are turned into layers by
 *     GPT/BERT:  W = 4h^2 + 2hf
 *     LLaMA:     W = 2h^2 + 2h^2 (kv_heads / heads) + 3hf
 *     F = s (2W + 4sh)  per sample,   A = s h  per sample;
 * the embedding (V h parameters) is added to the first layer's W and the
 * output head (2 s h V FLOPs per sample) to the last layer's F.
 *
 * Range sums over layers are O(1) through prefix sums kept in the model.
 *
 * Ownership: every constructor returns a model the caller frees with
 * lr_model_free().  Functions return 0 or a positive errno value.
 */
#ifndef LR_MODEL_H
#define LR_MODEL_H 1

#include "planner/lr_topo.h"   /* LR_NAME_MAX */

struct lr_layer {
    double flops;             /* F_l: forward FLOPs per sample */
    double params;            /* W_l: parameters */
    double act;               /* A_l: output activation elements per sample */
};

enum lr_arch {
    LR_ARCH_GPT,              /* GPT and BERT blocks: W = 4h^2 + 2hf */
    LR_ARCH_LLAMA,            /* SwiGLU + grouped-query attention */
};

struct lr_transformer {
    enum lr_arch arch;
    int layers;               /* L */
    int hidden;               /* h */
    int heads;
    int kv_heads;             /* = heads unless grouped-query */
    int ffn;                  /* f */
    int vocab;                /* V */
    int seq;                  /* s */
};

struct lr_model {
    char name[LR_NAME_MAX];
    int n_layers;
    struct lr_layer *layers;  /* [n_layers] */
    /* prefix[i] = sum of layers[0 .. i-1]; prefix[0] = 0. */
    double *pre_flops, *pre_params, *pre_act;
};

/* The names of the presets, NULL-terminated. */
extern const char *const lr_model_presets[];

/* Builds preset 'name' (bert-large, gpt-1.9b, gpt3-175b, llama2-7b,
 * llama2-13b, llama2-70b); ENOENT for an unknown name. */
int lr_model_preset(const char *name, struct lr_model **out);

/* The shape of preset 'name', or ENOENT. */
int lr_model_preset_shape(const char *name, struct lr_transformer *out);

/* Builds a model from a transformer shape; EINVAL when a size is not
 * positive, kv_heads does not divide heads, or layers exceeds
 * LR_MODEL_MAX_LAYERS. */
int lr_model_from_transformer(const char *name, const struct lr_transformer *,
                              struct lr_model **out);

/* Builds a model from explicit layers (copied); EINVAL when n is out of
 * 1..LR_MODEL_MAX_LAYERS or a value is negative or not finite, or a
 * layer has no FLOPs. */
int lr_model_from_layers(const char *name, const struct lr_layer *layers,
                         int n, struct lr_model **out);

void lr_model_free(struct lr_model *);

#define LR_MODEL_MAX_LAYERS 4096

/* Sums over layers first..last (0-based, inclusive). */
static inline double
lr_model_flops(const struct lr_model *m, int first, int last)
{
    return m->pre_flops[last + 1] - m->pre_flops[first];
}

static inline double
lr_model_params(const struct lr_model *m, int first, int last)
{
    return m->pre_params[last + 1] - m->pre_params[first];
}

static inline double
lr_model_act(const struct lr_model *m, int first, int last)
{
    return m->pre_act[last + 1] - m->pre_act[first];
}

#endif
