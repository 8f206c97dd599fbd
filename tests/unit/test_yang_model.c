/*
 * Tests of yang/lr_yang_model.c and of the examples of issue 3: the
 * lightrail-model module as embedded, the model loader on the examples
 * (against the planner's own constructors), its errors on the bad inputs
 * of tests/data/bad/model_*.json (each with the data path and reason it
 * must name), and the man3 and scaling cluster inventories.
 *
 * Files are found under $srcdir (set by the automake test harness), so
 * VPATH builds work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "planner/lr_model.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

#include "tests/unit/lr_test_yang.h"
#include "tests/lr_test.h"

static struct lr_model *
load_model(const char *rel)
{
    struct lr_model *m = NULL;
    char err[1024];
    int rc = lr_yang_load_model(ctx, src(rel), &m, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return m;
}

static struct lr_model *
load_mem(const char *text, char *err, size_t errlen, int *rc)
{
    struct lr_model *m = NULL;
    *rc = lr_yang_load_model_mem(ctx, text, strlen(text), "mem", &m, err,
                                 errlen);
    return m;
}

/* Same layers, bit for bit. */
static int
same_layers(const struct lr_model *a, const struct lr_model *b)
{
    return a->n_layers == b->n_layers
           && !memcmp(a->layers, b->layers,
                      sizeof *a->layers * (size_t) a->n_layers);
}

/* The generated table holds lightrail-model byte for byte, and the
 * context implements it. */
static void
test_embedded_module(void)
{
    char *text = NULL, err[256];
    size_t len;
    if (lr_yang_read_file(src("yang/lightrail-model.yang"), &text, &len, err,
                          sizeof err))
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const struct lr_yang_embedded *m = lr_yang_embedded;
    while (m->name && strcmp(m->name, LR_YANG_LRM))
        m++;
    CU_ASSERT_PTR_NOT_NULL(m->name);
    if (m->name)
        CU_ASSERT_STRING_EQUAL(m->text, text);
    free(text);
    const struct lys_module *mod = ly_ctx_get_module_implemented(ctx,
                                                                 LR_YANG_LRM);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mod);
    CU_ASSERT_STRING_EQUAL(mod->revision, "2026-11-30");
    CU_ASSERT_STRING_EQUAL(mod->ns, "urn:lightrail:model");
}

/* gpt-350m.json is GPT-3 Medium: the file's shape gives the same layers
 * as the planner's constructor, and 24 x 12,582,912 + 50,257 x 1024 =
 * 353,453,056 parameters. */
static void
test_gpt350m(void)
{
    struct lr_model *m = load_model("examples/models/gpt-350m.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(m->name, "gpt-350m");
    CU_ASSERT_EQUAL(m->n_layers, 24);
    CU_ASSERT_EQUAL(lr_model_params(m, 0, 23), 353453056.0);

    /* No kv-heads in the file: multi-head attention. */
    const struct lr_transformer t = {
        LR_ARCH_GPT, 24, 1024, 16, 16, 4096, 50257, 2048,
    };
    struct lr_model *want = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_from_transformer("x", &t, &want), 0);
    CU_ASSERT(same_layers(m, want));
    lr_model_free(want);
    lr_model_free(m);
}

/* toy-4.json, as its README tabulates it. */
static void
test_toy4(void)
{
    struct lr_model *m = load_model("examples/models/toy-4.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(m->name, "toy-4");
    CU_ASSERT_EQUAL_FATAL(m->n_layers, 4);
    static const struct lr_layer want[4] = {
        { 1.5e9, 1e6, 65536 },
        { 3e9, 2e6, 65536 },   /* given as "3000000000" FLOP */
        { 3e9, 2e6, 16384 },
        { 0.25e9, 5e5, 1000 },
    };
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(m->layers[i].flops, want[i].flops);
        CU_ASSERT_EQUAL(m->layers[i].params, want[i].params);
        CU_ASSERT_EQUAL(m->layers[i].act, want[i].act);
    }
    CU_ASSERT_EQUAL(lr_model_flops(m, 0, 3), 7.75e9);
    CU_ASSERT_EQUAL(lr_model_params(m, 0, 3), 5.5e6);
    lr_model_free(m);
}

/* Layers listed out of order go where their index says; GFLOP with six
 * fraction digits keep them. */
static void
test_layers_by_index(void)
{
    static const char text[] =
        "{\"lightrail-model:model\":{\"name\":\"shuffled\",\"layer\":["
        "{\"index\":3,\"forward-flops-per-sample\":\"30\","
        "\"parameters\":\"3\",\"activation-elements\":\"300\"},"
        "{\"index\":1,\"forward-gflops-per-sample\":\"0.000001\","
        "\"parameters\":\"1\",\"activation-elements\":\"100\"},"
        "{\"index\":2,\"forward-gflops-per-sample\":\"12345.678901\","
        "\"parameters\":\"18446744073709551615\","
        "\"activation-elements\":\"0\"}]}}";
    char err[1024] = "";
    int rc;
    struct lr_model *m = load_mem(text, err, sizeof err, &rc);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(m->n_layers, 3);
    CU_ASSERT_DOUBLE_EQUAL(m->layers[0].flops, 1e3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(m->layers[1].flops, 12345678901000.0, 1e-2);
    CU_ASSERT_EQUAL(m->layers[2].flops, 30);
    CU_ASSERT_EQUAL(m->layers[0].act, 100);
    CU_ASSERT_EQUAL(m->layers[1].act, 0);
    CU_ASSERT_EQUAL(m->layers[2].act, 300);
    /* The largest uint64 becomes the nearest double, 2^64. */
    CU_ASSERT_EQUAL(m->layers[1].params, 18446744073709551616.0);
    lr_model_free(m);
}

/* LLaMA shapes: kv-heads when given, heads when not. */
static void
test_llama_kv_heads(void)
{
    static const char gqa[] =
        "{\"lightrail-model:model\":{\"name\":\"l70\",\"transformer\":{"
        "\"arch\":\"llama\",\"layers\":80,\"hidden\":8192,\"heads\":64,"
        "\"kv-heads\":8,\"ffn\":28672,\"vocab\":32000,\"seq\":4096}}}";
    static const char mha[] =
        "{\"lightrail-model:model\":{\"name\":\"l7\",\"transformer\":{"
        "\"arch\":\"llama\",\"layers\":32,\"hidden\":4096,\"heads\":32,"
        "\"ffn\":11008,\"vocab\":32000,\"seq\":4096}}}";
    static const struct {
        const char *text, *preset, *name;
    } cases[] = {
        { gqa, "llama2-70b", "l70" },
        { mha, "llama2-7b", "l7" },
    };
    for (size_t i = 0; i < 2; i++) {
        char err[1024] = "";
        int rc;
        struct lr_model *m = load_mem(cases[i].text, err, sizeof err, &rc);
        struct lr_model *p = NULL;
        if (rc)
            fprintf(stderr, "%s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL_FATAL(lr_model_preset(cases[i].preset, &p), 0);
        CU_ASSERT_STRING_EQUAL(m->name, cases[i].name);
        CU_ASSERT(same_layers(m, p));
        lr_model_free(p);
        lr_model_free(m);
    }
}

/*
 * Bad inputs: each must fail with the right code, start with the file's
 * name, and name the data path and the reason, on one line.
 */

static const struct bad_case {
    const char *file;          /* under tests/data/bad/ unless it has a / */
    int rc;
    const char *path;          /* substring of the message */
    const char *reason;        /* another substring */
} bad_cases[] = {
    { "model_unknown_arch.json", EINVAL,
      ": /lightrail-model:model/transformer/arch: ",
      "Invalid enumeration value \"mamba\"" },
    { "model_zero_layers.json", EINVAL,
      ": /lightrail-model:model/transformer/layers: ",
      "value \"0\" is out of the allowed range" },
    { "model_layer_gap.json", EINVAL,
      ": /lightrail-model:model/layer[index='4']: ",
      "layer indices must run from 1 to 3 without gaps; 3 is missing" },
    { "model_negative_flops.json", EINVAL,
      ": /lightrail-model:model/layer[index='1']/forward-gflops-per-sample: ",
      "value \"-2.5\" is out of the allowed range" },
    { "model_malformed.json", EINVAL,
      ": /lightrail-model:model/layer[index='1']: ",
      "(line 9)" },
    { "model_unknown_leaf.json", EINVAL,
      ": /lightrail-model:model/transformer: ",
      "Node \"dropout\" not found" },
    { "model_kv_heads.json", EINVAL,
      ": /lightrail-model:model/transformer/kv-heads: ",
      "kv-heads must divide heads" },
    { "examples/clusters/man3.json", EINVAL,
      "man3.json: /lightrail-model:model: ",
      "not a lightrail-model file" },
    { "model_does_not_exist.json", ENOENT,
      "model_does_not_exist.json: ", "No such file or directory" },
};

static void
test_bad_files(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *b = &bad_cases[i];
        char rel[256], err[2048] = "";
        struct lr_model *m = (struct lr_model *) 1;

        snprintf(rel, sizeof rel, "%s%s",
                 strchr(b->file, '/') ? "" : "tests/data/bad/", b->file);
        int rc = lr_yang_load_model(ctx, src(rel), &m, err, sizeof err);
        CU_ASSERT_PTR_NULL(m);
        int ok = rc == b->rc && strstr(err, b->path)
                 && strstr(err, b->reason)
                 && !strncmp(err, src(rel), strlen(src(rel)))
                 && !strchr(err, '\n');
        if (!ok)
            fprintf(stderr, "\n%s: rc %d (want %d)\n  got:  %s\n"
                    "  want: ...%s...%s\n", b->file, rc, b->rc, err,
                    b->path, b->reason);
        CU_ASSERT(ok);
        lr_model_free(m);
    }
}

/* What the schema refuses beyond the files above, from memory. */
static void
test_bad_mem(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* Grouped-query attention only for llama. */
        { "{\"lightrail-model:model\":{\"name\":\"g\",\"transformer\":{"
          "\"arch\":\"gpt\",\"layers\":1,\"hidden\":8,\"heads\":2,"
          "\"kv-heads\":2,\"ffn\":8,\"vocab\":8,\"seq\":8}}}",
          "mem: /lightrail-model:model/transformer/kv-heads: When condition "
          "\"../arch = 'llama'\" not satisfied" },
        /* Neither shape. */
        { "{\"lightrail-model:model\":{\"name\":\"none\"}}",
          "mem: /lightrail-model:model/shape: Mandatory choice \"shape\"" },
        /* FLOPs in both units. */
        { "{\"lightrail-model:model\":{\"name\":\"two\",\"layer\":[{"
          "\"index\":1,\"forward-gflops-per-sample\":\"1\","
          "\"forward-flops-per-sample\":\"1\",\"parameters\":\"0\","
          "\"activation-elements\":\"0\"}]}}",
          "Data for both cases \"forward-gflops-per-sample\" and "
          "\"forward-flops-per-sample\" exist" },
        /* A layer without FLOPs at all. */
        { "{\"lightrail-model:model\":{\"name\":\"nf\",\"layer\":[{"
          "\"index\":1,\"parameters\":\"0\",\"activation-elements\":\"0\"}]}}",
          "Mandatory choice \"forward-work\"" },
        /* Zero FLOPs: the planner cannot place a layer that costs nothing
         * (lr_model_from_layers() refuses it), so neither does the file. */
        { "{\"lightrail-model:model\":{\"name\":\"z\",\"layer\":[{"
          "\"index\":1,\"forward-flops-per-sample\":\"0\",\"parameters\":"
          "\"0\",\"activation-elements\":\"0\"}]}}",
          "/forward-flops-per-sample: Unsatisfied range - value \"0\"" },
        /* RFC 7951: a 64-bit integer is a string, not a JSON number. */
        { "{\"lightrail-model:model\":{\"name\":\"n\",\"layer\":[{"
          "\"index\":1,\"forward-flops-per-sample\":\"5\",\"parameters\":"
          "1000,\"activation-elements\":\"0\"}]}}",
          "/parameters: Invalid non-num64-encoded uint64 value \"1000\"" },
        /* Another module's data beside the model (ietf-yang-library's
         * state, which the context implements): named, where it was
         * taken with the model (or refused for its mandatory nodes). */
        { "{\"lightrail-model:model\":{\"name\":\"toy\",\"layer\":[{"
          "\"index\":1,\"forward-flops-per-sample\":\"5\","
          "\"parameters\":\"0\",\"activation-elements\":\"0\"}]},"
          "\"lightrail-job:jobs\":{}}",
          "mem: /lightrail-job:jobs: a model file holds lightrail-model data "
          "only: its one top-level member is \"lightrail-model:model\"" },
        { "{\"ietf-yang-library:yang-library\":{\"content-id\":\"x\"}}",
          "mem: /lightrail-model:model: missing: not a lightrail-model file "
          "(its first top-level member is "
          "\"ietf-yang-library:yang-library\")" },
        /* Index 0 is not a layer. */
        { "{\"lightrail-model:model\":{\"name\":\"i0\",\"layer\":[{"
          "\"index\":0,\"forward-flops-per-sample\":\"5\",\"parameters\":"
          "\"0\",\"activation-elements\":\"0\"}]}}",
          "/index: a layer's index is 1 to 4096" },
        /* A gap at the start: the layer past n is reported, and the
         * lowest missing index. */
        { "{\"lightrail-model:model\":{\"name\":\"g2\",\"layer\":["
          "{\"index\":3,\"forward-flops-per-sample\":\"5\",\"parameters\":"
          "\"0\",\"activation-elements\":\"0\"},"
          "{\"index\":2,\"forward-flops-per-sample\":\"5\",\"parameters\":"
          "\"0\",\"activation-elements\":\"0\"}]}}",
          "mem: /lightrail-model:model/layer[index='3']: layer indices must "
          "run from 1 to 2 without gaps; 1 is missing" },
        /* A name longer than the planner's: 64 characters. */
        { "{\"lightrail-model:model\":{\"name\":\"1234567890123456789012345"
          "678901234567890123456789012345678901234\",\"transformer\":{"
          "\"arch\":\"gpt\",\"layers\":1,\"hidden\":8,\"heads\":2,"
          "\"ffn\":8,\"vocab\":8,\"seq\":8}}}",
          "mem: /lightrail-model:model/name: Unsatisfied length" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[2048] = "";
        int rc;
        struct lr_model *m = load_mem(cases[i].text, err, sizeof err, &rc);
        int ok = rc == EINVAL && !m && strstr(err, cases[i].want)
                 && !strncmp(err, "mem: ", 5);
        if (!ok)
            fprintf(stderr, "\ncase %zu: rc %d\n  got:  %s\n  want: %s\n",
                    i, rc, err, cases[i].want);
        CU_ASSERT(ok);
        lr_model_free(m);
    }
}

/* The in-memory entry point reads exactly 'len' bytes. */
static void
test_mem_no_terminator(void)
{
    char *text = NULL, err[1024];
    size_t len;
    CU_ASSERT_EQUAL_FATAL(lr_yang_read_file(src("examples/models/toy-4.json"),
                                            &text, &len, err, sizeof err), 0);
    char *copy = malloc(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, text, len);
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL(lr_yang_load_model_mem(ctx, copy, len, "toy", &m, err,
                                           sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_EQUAL(m ? m->n_layers : 0, 4);
    lr_model_free(m);
    free(copy);
    free(text);
}

/*
 * The cluster inventories of issue 3.
 */

static struct lr_cluster *
load_cluster(const char *rel)
{
    struct lr_cluster *c = NULL;
    char err[1024];
    int rc = lr_yang_load_cluster(ctx, src(rel), &c, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return c;
}

/* Every DC of these files: V100 32 GB at 125 TFLOP/s and 0.40, 25 GB/s
 * and 5 us inside the DC, no attachment node. */
static void
check_v100_dcs(const struct lr_cluster *c)
{
    CU_ASSERT_EQUAL_FATAL(c->n_types, 1);
    CU_ASSERT_STRING_EQUAL(c->types[0].name, "V100-32GB");
    CU_ASSERT_DOUBLE_EQUAL(c->types[0].peak_flops, 125e12, 1);
    CU_ASSERT_DOUBLE_EQUAL(c->types[0].efficiency, 0.40, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c->types[0].memory_bytes, 32e9, 1);
    for (int k = 0; k < c->n_dcs; k++) {
        CU_ASSERT_EQUAL(c->dcs[k].device_type, 0);
        CU_ASSERT_DOUBLE_EQUAL(c->dcs[k].intra_bw, 25e9, 1);
        CU_ASSERT_DOUBLE_EQUAL(c->dcs[k].intra_latency, 5e-6, 1e-15);
        CU_ASSERT_STRING_EQUAL(c->dcs[k].attach_node, "");
    }
}

static void
test_man3(void)
{
    struct lr_cluster *c = load_cluster("examples/clusters/man3.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    check_v100_dcs(c);
    CU_ASSERT_EQUAL_FATAL(c->n_dcs, 3);
    static const int devices[3] = { 8, 4, 4 };
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL(c->dcs[k].n_devices, devices[k]);

    /* Gb/s to bytes/s: 10 -> 1.25e9, 5 -> 6.25e8, 1 -> 1.25e8. */
    static const struct {
        const char *a, *b;
        double bw, latency;
    } links[] = {
        { "dc1", "dc2", 1.25e9, 1e-3 },
        { "dc3", "dc2", 6.25e8, 2e-3 },
        { "dc1", "dc3", 1.25e8, 3e-3 },
    };
    CU_ASSERT_EQUAL(c->n_links, 3);
    for (int i = 0; i < 3; i++) {
        int l = lr_cluster_link_between(c, lr_cluster_find_dc(c, links[i].a),
                                        lr_cluster_find_dc(c, links[i].b));
        CU_ASSERT_FATAL(l >= 0);
        CU_ASSERT_DOUBLE_EQUAL(c->links[l].bw, links[i].bw, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(c->links[l].latency, links[i].latency, 1e-15);
    }
    lr_cluster_free(c);
}

/* 16 V100 over 1 to 4 DCs, every pair linked at 10 Gb/s and 1 ms. */
static void
test_scaling_set(void)
{
    static const struct {
        const char *file;
        int n_dcs, devices[4];
    } sets[] = {
        { "examples/clusters/scale-1dc.json", 1, { 16 } },
        { "examples/clusters/scale-2dc.json", 2, { 8, 8 } },
        { "examples/clusters/scale-3dc.json", 3, { 6, 5, 5 } },
        { "examples/clusters/scale-4dc.json", 4, { 4, 4, 4, 4 } },
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        struct lr_cluster *c = load_cluster(sets[i].file);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        check_v100_dcs(c);
        int k = sets[i].n_dcs, total = 0;
        CU_ASSERT_EQUAL_FATAL(c->n_dcs, k);
        for (int d = 0; d < k; d++) {
            CU_ASSERT_EQUAL(c->dcs[d].n_devices, sets[i].devices[d]);
            total += c->dcs[d].n_devices;
        }
        CU_ASSERT_EQUAL(total, 16);
        CU_ASSERT_EQUAL(c->n_links, k * (k - 1) / 2);
        for (int a = 0; a < k; a++)
            for (int b = a + 1; b < k; b++) {
                int l = lr_cluster_link_between(c, a, b);
                CU_ASSERT_FATAL(l >= 0);
                CU_ASSERT_DOUBLE_EQUAL(c->links[l].bw, 1.25e9, 1e-3);
                CU_ASSERT_DOUBLE_EQUAL(c->links[l].latency, 1e-3, 1e-15);
            }
        lr_cluster_free(c);
    }
}

static CU_TestInfo tests[] = {
    { "embedded module", test_embedded_module },
    { "gpt-350m example", test_gpt350m },
    { "toy-4 example", test_toy4 },
    { "layers by index", test_layers_by_index },
    { "llama kv-heads", test_llama_kv_heads },
    { "bad files", test_bad_files },
    { "bad in memory", test_bad_mem },
    { "in-memory without terminator", test_mem_no_terminator },
    { "man3 cluster", test_man3 },
    { "scaling clusters", test_scaling_set },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("yang model", tests, suite_setup, suite_teardown)
