/*
 * Tests of planner/lr_model: the presets against hand-computed layers and
 * the published parameter counts, range sums against loops, and the
 * shapes and layers the constructors must refuse.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "planner/lr_model.h"
#include "tests/lr_test.h"

/* The plain loop the prefix sums stand in for. */
static void
loop_sums(const struct lr_model *m, int first, int last, double *f,
          double *w, double *a)
{
    *f = *w = *a = 0;
    for (int i = first; i <= last; i++) {
        *f += m->layers[i].flops;
        *w += m->layers[i].params;
        *a += m->layers[i].act;
    }
}

/*
 * bert-large (L 24, h 1024, f 4096, V 30522, s 512), by hand:
 *   W = 4 x 1024^2 + 2 x 1024 x 4096 = 4,194,304 + 8,388,608 = 12,582,912
 *   F = 512 x (2 x 12,582,912 + 4 x 512 x 1024)
 *     = 512 x (25,165,824 + 2,097,152) = 512 x 27,262,976 = 13,958,643,712
 *   A = 512 x 1024 = 524,288
 *   layer 1 W += V h = 30,522 x 1024 = 31,254,528   -> 43,837,440
 *   layer 24 F += 2 s h V = 2 x 512 x 1024 x 30,522 = 32,004,636,672
 *                                                  -> 45,963,280,384
 *   total W = 24 x 12,582,912 + 31,254,528 = 333,244,416
 *   total F = 24 x 13,958,643,712 + 32,004,636,672 = 367,012,085,760
 * Every number is an integer below 2^53, so the doubles are exact.
 */
static void
test_bert_large_by_hand(void)
{
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_preset("bert-large", &m), 0);
    CU_ASSERT_STRING_EQUAL(m->name, "bert-large");
    CU_ASSERT_EQUAL_FATAL(m->n_layers, 24);
    CU_ASSERT_EQUAL(m->layers[0].params, 43837440.0);
    CU_ASSERT_EQUAL(m->layers[0].flops, 13958643712.0);
    for (int i = 1; i < 24; i++)
        CU_ASSERT_EQUAL(m->layers[i].params, 12582912.0);
    for (int i = 0; i < 23; i++)
        CU_ASSERT_EQUAL(m->layers[i].flops, 13958643712.0);
    CU_ASSERT_EQUAL(m->layers[23].flops, 45963280384.0);
    for (int i = 0; i < 24; i++)
        CU_ASSERT_EQUAL(m->layers[i].act, 524288.0);
    CU_ASSERT_EQUAL(lr_model_params(m, 0, 23), 333244416.0);
    CU_ASSERT_EQUAL(lr_model_flops(m, 0, 23), 367012085760.0);
    CU_ASSERT_EQUAL(lr_model_act(m, 0, 23), 24 * 524288.0);
    CU_ASSERT_EQUAL(lr_model_params(m, 5, 5), 12582912.0);
    lr_model_free(m);
}

/*
 * llama2-70b (L 80, h 8192, 64 heads of which 8 KV, f 28672, V 32000,
 * s 4096), by hand; grouped-query attention shrinks K and V to 1/8:
 *   W = 2 x 8192^2 + 2 x 8192^2 x 8/64 + 3 x 8192 x 28672
 *     = 134,217,728 + 16,777,216 + 704,643,072 = 855,638,016
 *   F = 4096 x (2 x 855,638,016 + 4 x 4096 x 8192)
 *     = 4096 x (1,711,276,032 + 134,217,728) = 7,559,142,440,960
 *   A = 4096 x 8192 = 33,554,432
 *   layer 1 W += 32,000 x 8192 = 262,144,000        -> 1,117,782,016
 *   layer 80 F += 2 x 4096 x 8192 x 32,000 = 2,147,483,648,000
 *                                                  -> 9,706,626,088,960
 *   total W = 80 x 855,638,016 + 262,144,000 = 68,713,185,280
 */
static void
test_llama2_70b_by_hand(void)
{
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_preset("llama2-70b", &m), 0);
    CU_ASSERT_EQUAL_FATAL(m->n_layers, 80);
    CU_ASSERT_EQUAL(m->layers[1].params, 855638016.0);
    CU_ASSERT_EQUAL(m->layers[0].params, 1117782016.0);
    CU_ASSERT_EQUAL(m->layers[40].flops, 7559142440960.0);
    CU_ASSERT_EQUAL(m->layers[79].flops, 9706626088960.0);
    CU_ASSERT_EQUAL(m->layers[79].act, 33554432.0);
    CU_ASSERT_EQUAL(lr_model_params(m, 0, 79), 68713185280.0);
    lr_model_free(m);
}

/*
 * Every preset against the reference's table: its shape, and its total
 * parameters against the published count.
 *
 * Tolerance: the formulas leave out biases, layer norms and position
 * embeddings, and count the output head as tied to the embedding.  All
 * of that only adds parameters, so each preset must come out at or under
 * its published count, and by less than 2.5%.  The two furthest are
 * bert-large (333.2M against 340M, -2.0%: position and token-type
 * embeddings, the pooler, biases; the "340M" is itself rounded from
 * about 335M) and llama2-7b (6.607B against 6.74B, -2.0%: its untied
 * output head is 32,000 x 4096 = 131M = 1.9%).  A mistake in a formula
 * (say 2hf for SwiGLU's 3hf, or no kv_heads / heads) moves a total by
 * 10% or more and fails.
 */
static void
test_presets_table(void)
{
    static const struct {
        const char *name;
        enum lr_arch arch;
        int layers, hidden, heads, kv_heads, ffn, vocab, seq;
        double params;           /* formula's total, by hand */
        double published;
    } want[] = {
        { "bert-large", LR_ARCH_GPT, 24, 1024, 16, 16, 4096, 30522, 512,
          333244416.0, 340e6 },
        { "gpt-1.9b", LR_ARCH_GPT, 36, 2048, 16, 16, 8192, 50257, 1024,
          1914865664.0, 1.92e9 },
        { "gpt3-175b", LR_ARCH_GPT, 96, 12288, 96, 96, 49152, 50257, 2048,
          174563733504.0, 175e9 },
        { "llama2-7b", LR_ARCH_LLAMA, 32, 4096, 32, 32, 11008, 32000, 4096,
          6607077376.0, 6.74e9 },
        { "llama2-13b", LR_ARCH_LLAMA, 40, 5120, 40, 40, 13824, 32000, 4096,
          12851609600.0, 13.0e9 },
        { "llama2-70b", LR_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 32000, 4096,
          68713185280.0, 69.0e9 },
    };
    size_t n = sizeof want / sizeof want[0], listed = 0;

    while (lr_model_presets[listed])
        listed++;
    CU_ASSERT_EQUAL(listed, n);
    for (size_t i = 0; i < n; i++) {
        struct lr_transformer t;
        struct lr_model *m = NULL;

        CU_ASSERT_STRING_EQUAL(lr_model_presets[i], want[i].name);
        CU_ASSERT_EQUAL_FATAL(lr_model_preset_shape(want[i].name, &t), 0);
        CU_ASSERT_EQUAL(t.arch, want[i].arch);
        CU_ASSERT_EQUAL(t.layers, want[i].layers);
        CU_ASSERT_EQUAL(t.hidden, want[i].hidden);
        CU_ASSERT_EQUAL(t.heads, want[i].heads);
        CU_ASSERT_EQUAL(t.kv_heads, want[i].kv_heads);
        CU_ASSERT_EQUAL(t.ffn, want[i].ffn);
        CU_ASSERT_EQUAL(t.vocab, want[i].vocab);
        CU_ASSERT_EQUAL(t.seq, want[i].seq);

        CU_ASSERT_EQUAL_FATAL(lr_model_preset(want[i].name, &m), 0);
        CU_ASSERT_STRING_EQUAL(m->name, want[i].name);
        CU_ASSERT_EQUAL(m->n_layers, want[i].layers);
        double total = lr_model_params(m, 0, m->n_layers - 1);
        CU_ASSERT_EQUAL(total, want[i].params);
        double rel = (total - want[i].published) / want[i].published;
        CU_ASSERT(rel <= 0 && rel > -0.025);

        /* The same shape through the public constructor gives the same
         * model. */
        struct lr_model *m2 = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_model_from_transformer("again", &t, &m2), 0);
        CU_ASSERT_EQUAL(memcmp(m->layers, m2->layers,
                               sizeof *m->layers * (size_t) m->n_layers), 0);
        lr_model_free(m2);
        lr_model_free(m);
    }
}

static void
test_unknown_preset(void)
{
    struct lr_model *m = (struct lr_model *) 1;
    struct lr_transformer t;
    CU_ASSERT_EQUAL(lr_model_preset("gpt-4", &m), ENOENT);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(lr_model_preset("BERT-LARGE", &m), ENOENT);
    CU_ASSERT_EQUAL(lr_model_preset(NULL, &m), ENOENT);
    CU_ASSERT_EQUAL(lr_model_preset_shape("", &t), ENOENT);
}

/* A deterministic generator for uneven layers (xorshift64). */
static double
uneven(uint64_t *s, double scale)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return scale * (double) (*s >> 11) / 9007199254740992.0;
}

/* Every range sum of a model equals the loop it replaces, to within the
 * prefix sums' rounding: a few ulps of the whole model's sum, bounded
 * here by n x 2^-52 of the total. */
static void
check_ranges(const struct lr_model *m, int step)
{
    int n = m->n_layers, bad = 0;
    double tf, tw, ta;
    loop_sums(m, 0, n - 1, &tf, &tw, &ta);
    double ef = n * tf * 0x1p-52, ew = n * tw * 0x1p-52, ea = n * ta * 0x1p-52;
    for (int i = 0; i < n; i += step)
        for (int j = i;; j = j + step < n ? j + step : n - 1) {
            double f, w, a;
            loop_sums(m, i, j, &f, &w, &a);
            if (fabs(lr_model_flops(m, i, j) - f) > ef
                || fabs(lr_model_params(m, i, j) - w) > ew
                || fabs(lr_model_act(m, i, j) - a) > ea)
                bad++;
            if (j == n - 1)
                break;
        }
    CU_ASSERT_EQUAL(bad, 0);
}

static void
test_ranges_equal_loops(void)
{
    for (int p = 0; lr_model_presets[p]; p++) {
        struct lr_model *m = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_model_preset(lr_model_presets[p], &m), 0);
        check_ranges(m, 1);
        /* The presets' sums are integers below 2^53: exact. */
        double f, w, a;
        loop_sums(m, 1, m->n_layers - 2, &f, &w, &a);
        CU_ASSERT_EQUAL(lr_model_flops(m, 1, m->n_layers - 2), f);
        CU_ASSERT_EQUAL(lr_model_params(m, 1, m->n_layers - 2), w);
        CU_ASSERT_EQUAL(lr_model_act(m, 1, m->n_layers - 2), a);
        lr_model_free(m);
    }

    /* Uneven layers spanning nine orders of magnitude, the longest model
     * allowed (every 61st range start and end, and the last layer: all
     * pairs would take minutes under valgrind). */
    static struct lr_layer ls[LR_MODEL_MAX_LAYERS];
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < LR_MODEL_MAX_LAYERS; i++) {
        ls[i].flops = 1 + uneven(&s, 1e12) * (i % 3 ? 1 : 1e-9);
        ls[i].params = uneven(&s, 1e9);
        ls[i].act = i % 5 ? uneven(&s, 1e7) : 0;
    }
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_from_layers("uneven", ls,
                                               LR_MODEL_MAX_LAYERS, &m), 0);
    check_ranges(m, 61);
    lr_model_free(m);
}

/* Explicit layers are copied: the caller's array may go away. */
static void
test_from_layers_copies(void)
{
    struct lr_layer ls[3] = {
        { 1e9, 1000, 10 }, { 2e9, 0, 20 }, { 3e9, 3000, 0 },
    };
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_from_layers("toy", ls, 3, &m), 0);
    ls[1].flops = 99;
    CU_ASSERT_STRING_EQUAL(m->name, "toy");
    CU_ASSERT_EQUAL(m->n_layers, 3);
    CU_ASSERT_EQUAL(m->layers[1].flops, 2e9);
    CU_ASSERT_EQUAL(lr_model_flops(m, 0, 2), 6e9);
    CU_ASSERT_EQUAL(lr_model_flops(m, 1, 1), 2e9);
    CU_ASSERT_EQUAL(lr_model_params(m, 1, 2), 3000);
    CU_ASSERT_EQUAL(lr_model_act(m, 0, 1), 30);
    CU_ASSERT_EQUAL(m->pre_flops[0], 0);
    lr_model_free(m);
    lr_model_free(NULL);
}

/* One field broken at a time, starting from a good shape. */
static void
test_bad_shapes(void)
{
    static const struct lr_transformer good = {
        LR_ARCH_LLAMA, 4, 64, 8, 2, 256, 100, 32,
    };
    struct lr_transformer bad[24];
    int n = 0;
#define BAD(field, value)                                                    \
    do {                                                                     \
        bad[n] = good;                                                       \
        bad[n++].field = value;                                              \
    } while (0)
    BAD(arch, (enum lr_arch) 7);
    BAD(layers, 0);
    BAD(layers, -3);
    BAD(layers, LR_MODEL_MAX_LAYERS + 1);
    BAD(hidden, 0);
    BAD(hidden, -64);
    BAD(heads, 0);
    BAD(kv_heads, 0);
    BAD(kv_heads, 3);          /* does not divide 8 */
    BAD(kv_heads, 16);         /* more KV heads than heads */
    BAD(ffn, 0);
    BAD(vocab, 0);
    BAD(seq, 0);
    BAD(seq, -1);
#undef BAD
    for (int i = 0; i < n; i++) {
        struct lr_model *m = (struct lr_model *) 1;
        CU_ASSERT_EQUAL(lr_model_from_transformer("bad", &bad[i], &m), EINVAL);
        CU_ASSERT_PTR_NULL(m);
    }

    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL(lr_model_from_transformer("bad", NULL, &m), EINVAL);
    /* Names: required, and at most LR_NAME_MAX - 1 characters. */
    char longname[LR_NAME_MAX + 1];
    memset(longname, 'x', LR_NAME_MAX);
    longname[LR_NAME_MAX] = '\0';
    CU_ASSERT_EQUAL(lr_model_from_transformer(NULL, &good, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_transformer("", &good, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_transformer(longname, &good, &m), EINVAL);
    CU_ASSERT_PTR_NULL(m);
    longname[LR_NAME_MAX - 1] = '\0';
    CU_ASSERT_EQUAL(lr_model_from_transformer(longname, &good, &m), 0);
    lr_model_free(m);

    /* The good shape itself, and the longest model, are accepted; kv_heads
     * equal to heads is plain multi-head attention. */
    struct lr_transformer t = good;
    t.layers = LR_MODEL_MAX_LAYERS;
    t.kv_heads = t.heads;
    CU_ASSERT_EQUAL(lr_model_from_transformer("long", &t, &m), 0);
    CU_ASSERT_EQUAL(m->n_layers, LR_MODEL_MAX_LAYERS);
    lr_model_free(m);
}

static void
test_bad_layers(void)
{
    struct lr_layer ok[2] = { { 1e9, 10, 10 }, { 1e9, 0, 0 } };
    struct lr_model *m = NULL;

    CU_ASSERT_EQUAL(lr_model_from_layers("x", ok, 0, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_layers("x", ok, -1, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_layers("x", NULL, 2, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_layers("x", ok, LR_MODEL_MAX_LAYERS + 1,
                                         &m), EINVAL);
    CU_ASSERT_EQUAL(lr_model_from_layers("", ok, 2, &m), EINVAL);

    static const struct {
        int field;             /* 0 flops, 1 params, 2 act */
        double value;
    } bad[] = {
        { 0, 0 },              /* a layer with no FLOPs */
        { 0, -1e9 },
        { 0, NAN },
        { 0, INFINITY },
        { 1, -1 },
        { 1, NAN },
        { 1, INFINITY },
        { 2, -0.5 },
        { 2, NAN },
        { 2, -INFINITY },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct lr_layer ls[2] = { ok[0], ok[1] };
        double *v = bad[i].field == 0 ? &ls[1].flops
                    : bad[i].field == 1 ? &ls[1].params : &ls[1].act;
        *v = bad[i].value;
        m = (struct lr_model *) 1;
        CU_ASSERT_EQUAL(lr_model_from_layers("x", ls, 2, &m), EINVAL);
        CU_ASSERT_PTR_NULL(m);
    }
    CU_ASSERT_EQUAL(lr_model_from_layers("x", ok, 2, &m), 0);
    lr_model_free(m);
}

static CU_TestInfo tests[] = {
    { "bert-large by hand", test_bert_large_by_hand },
    { "llama2-70b by hand", test_llama2_70b_by_hand },
    { "presets against the table", test_presets_table },
    { "unknown preset", test_unknown_preset },
    { "range sums equal loops", test_ranges_equal_loops },
    { "explicit layers are copied", test_from_layers_copies },
    { "bad shapes refused", test_bad_shapes },
    { "bad layers refused", test_bad_layers },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("model", tests)
