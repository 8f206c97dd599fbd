/*
 * lr_yang_model: lightrail-model data -> struct lr_model.  See lr_yang.h.
 *
 * libyang checks what the schema says (one of the two shapes, sizes in
 * range, kv-heads dividing heads and only for llama, one unit of FLOPs per
 * layer, unique indices).  This file adds the one rule YANG cannot say,
 * explicit layers numbered 1..n without gaps, and converts GFLOP to FLOP;
 * the formulas that turn a shape into layers are the planner's
 * (planner/lr_model.c), not repeated here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_model.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

#define LR_GIGA 1e9

/* An integer leaf of lightrail-model; 0 when absent (every leaf read
 * here is mandatory or defaulted by the caller, so absent means a schema
 * change we missed, which the planner's checks then refuse). */
static unsigned long long
lr_yang_model_uint(const struct lyd_node *parent, const char *name)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRM, name);
    return v ? strtoull(v, NULL, 10) : 0;
}

/* Maps an lr_model constructor's error to a message at 'node'. */
static int
lr_yang_model_err(int rc, char *err, size_t errlen, const char *file,
                  const struct lyd_node *node)
{
    if (rc == ENOMEM) {
        lr_yang_errf(err, errlen, file, NULL, "out of memory");
        return ENOMEM;
    }
    return lr_yang_node_err(err, errlen, file, node,
                            "cannot build the model: %s", strerror(rc));
}

static int
lr_yang_model_transformer(const char *mname, const struct lyd_node *tr,
                          const char *file, struct lr_model **out,
                          char *err, size_t errlen)
{
    /* The schema bounds every size within int. */
    struct lr_transformer t = {
        .layers = (int) lr_yang_model_uint(tr, "layers"),
        .hidden = (int) lr_yang_model_uint(tr, "hidden"),
        .heads = (int) lr_yang_model_uint(tr, "heads"),
        .ffn = (int) lr_yang_model_uint(tr, "ffn"),
        .vocab = (int) lr_yang_model_uint(tr, "vocab"),
        .seq = (int) lr_yang_model_uint(tr, "seq"),
    };
    const char *arch = lr_yang_leaf(tr, LR_YANG_LRM, "arch");
    t.arch = arch && !strcmp(arch, "llama") ? LR_ARCH_LLAMA : LR_ARCH_GPT;
    t.kv_heads = lr_yang_leaf(tr, LR_YANG_LRM, "kv-heads")
                     ? (int) lr_yang_model_uint(tr, "kv-heads")
                     : t.heads;
    int rc = lr_model_from_transformer(mname, &t, out);
    return rc ? lr_yang_model_err(rc, err, errlen, file, tr) : 0;
}

static int
lr_yang_model_layers(const char *mname, const struct lyd_node *model,
                     const char *file, struct lr_model **out,
                     char *err, size_t errlen)
{
    const struct lyd_node *first = lr_yang_child(model, LR_YANG_LRM, "layer");
    const struct lyd_node *n;
    struct lr_layer *layers = NULL;
    unsigned char *seen = NULL;
    int count = 0, ret = 0;

    for (n = first; n; n = lr_yang_next_same(n))
        count++;
    /* The schema's max-elements keeps count within the planner's limit;
     * the planner refuses anything else. */
    layers = calloc(count ? (size_t) count : 1, sizeof *layers);
    seen = calloc((size_t) count + 1, 1);
    if (!layers || !seen) {
        lr_yang_errf(err, errlen, file, NULL, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }

    /* Keys are unique, so 'count' indices all within 1..count are a
     * permutation of it; an index past 'count' means a gap below it.
     * libyang keeps list entries in the file's order, so each layer goes
     * to the slot its index names. */
    const struct lyd_node *past = NULL;
    for (n = first; n; n = lr_yang_next_same(n)) {
        unsigned long long idx = lr_yang_model_uint(n, "index");
        if (idx < 1 || idx > (unsigned long long) count) {
            if (!past)
                past = n;
            continue;
        }
        seen[idx] = 1;
        struct lr_layer *l = &layers[idx - 1];
        const char *g = lr_yang_leaf(n, LR_YANG_LRM,
                                     "forward-gflops-per-sample");
        l->flops = g ? strtod(g, NULL) * LR_GIGA
                     : (double) lr_yang_model_uint(n,
                                                   "forward-flops-per-sample");
        l->params = (double) lr_yang_model_uint(n, "parameters");
        l->act = (double) lr_yang_model_uint(n, "activation-elements");
    }
    if (past) {
        int missing = 1;
        while (missing < count && seen[missing])
            missing++;
        ret = lr_yang_node_err(err, errlen, file, past,
                               "layer indices must run from 1 to %d without "
                               "gaps; %d is missing", count, missing);
        goto cleanup;
    }
    ret = lr_model_from_layers(mname, layers, count, out);
    if (ret)
        ret = lr_yang_model_err(ret, err, errlen, file, model);

cleanup:
    free(layers);
    free(seen);
    return ret;
}

int
lr_yang_load_model_mem(struct ly_ctx *ctx, const char *data, size_t len,
                       const char *name, struct lr_model **out,
                       char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    int ret;

    *out = NULL;
    ret = lr_yang_parse(ctx, data, len, name, LR_YANG_LRM, "model",
                        "a model file", &tree, err, errlen);
    if (ret)
        goto cleanup;
    const struct lyd_node *model = lr_yang_sibling(tree, LR_YANG_LRM,
                                                   "model");
    if (!model) {
        lr_yang_errf(err, errlen, name, "/lightrail-model:model",
                     "missing: not a lightrail-model file");
        ret = EINVAL;
        goto cleanup;
    }
    /* The schema makes the name mandatory and the shape a mandatory
     * choice, so one of the two branches below applies. */
    const char *mname = lr_yang_leaf(model, LR_YANG_LRM, "name");
    const struct lyd_node *tr = lr_yang_child(model, LR_YANG_LRM,
                                              "transformer");
    if (tr)
        ret = lr_yang_model_transformer(mname, tr, name, out, err, errlen);
    else
        ret = lr_yang_model_layers(mname, model, name, out, err, errlen);

cleanup:
    lyd_free_all(tree);
    return ret;
}

int
lr_yang_load_model(struct ly_ctx *ctx, const char *path,
                   struct lr_model **out, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;

    *out = NULL;
    int ret = lr_yang_read_file(path, &buf, &len, err, errlen);
    if (!ret)
        ret = lr_yang_load_model_mem(ctx, buf, len, path, out, err, errlen);
    free(buf);
    return ret;
}
