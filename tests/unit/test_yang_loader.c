/*
 * Tests of yang/: the embedded modules, the topology and compute loaders
 * on every example, their errors on the bad inputs of tests/data/bad/
 * (each with the data path and reason it must name), and printing.
 *
 * Files are found under $srcdir (set by the automake test harness), so
 * VPATH builds work.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "planner/lr_topo.h"
#include "planner/lr_utf8.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

#include "tests/unit/lr_test_yang.h"
#include "tests/lr_test.h"

/*
 * Embedded modules.
 */

/* The generated table holds our modules byte for byte (embed-yang.sh's
 * escaping), and every module the context implements. */
static void
test_embedded_modules(void)
{
    static const char *const ours[] = {
        "lightrail-topology", "lightrail-compute",
    };
    for (size_t i = 0; i < 2; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "yang/%s.yang", ours[i]);
        size_t len;
        char *text = slurp(src(rel), &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        const struct lr_yang_embedded *m = lr_yang_embedded;
        while (m->name && strcmp(m->name, ours[i]))
            m++;
        CU_ASSERT_PTR_NOT_NULL(m->name);
        if (m->name)
            CU_ASSERT_STRING_EQUAL(m->text, text);
        free(text);
        CU_ASSERT_PTR_NOT_NULL(ly_ctx_get_module_implemented(ctx, ours[i]));
    }
    CU_ASSERT_PTR_NOT_NULL(ly_ctx_get_module_implemented(ctx, LR_YANG_NW));
    CU_ASSERT_PTR_NOT_NULL(ly_ctx_get_module_implemented(ctx, LR_YANG_NT));
}

/*
 * The examples.
 */

static struct lr_topo *
load_topo(const char *rel)
{
    struct lr_topo *t = NULL;
    char err[1024];
    int rc = lr_yang_load_topo(ctx, src(rel), &t, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return t;
}

static void
test_example_counts(void)
{
    static const struct {
        const char *file, *name;
        int nodes, links, attach, slots;
    } ex[] = {
        { "examples/topologies/nsfnet.json", "nsfnet", 14, 44, 0, 100 },
        { "examples/topologies/cost239.json", "cost239", 11, 52, 0, 100 },
        { "examples/topologies/usnet.json", "usnet", 24, 86, 0, 100 },
        { "examples/topologies/jpn48.json", "jpn48", 48, 164, 0, 100 },
        { "examples/topologies/metro.json", "metro", 6, 16, 3, 320 },
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        struct lr_topo *t = load_topo(ex[i].file);
        CU_ASSERT_PTR_NOT_NULL(t);
        if (!t)
            continue;
        CU_ASSERT_STRING_EQUAL(t->name, ex[i].name);
        CU_ASSERT_EQUAL(t->n_nodes, ex[i].nodes);
        CU_ASSERT_EQUAL(t->n_links, ex[i].links);
        CU_ASSERT_EQUAL(t->n_attach, ex[i].attach);
        CU_ASSERT_EQUAL(lr_topo_max_slots(t), ex[i].slots);
        /* Every directed fibre has its reverse, with the same length. */
        for (int l = 0; l < t->n_links; l++) {
            int r = lr_topo_link_between(t, t->links[l].dst, t->links[l].src);
            CU_ASSERT(r >= 0);
            if (r >= 0)
                CU_ASSERT_DOUBLE_EQUAL(t->links[r].length_km,
                                       t->links[l].length_km, 1e-9);
        }
        lr_topo_free(t);
    }
}

static void
test_nsfnet_link(void)
{
    struct lr_topo *t = load_topo("examples/topologies/nsfnet.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int wa = lr_topo_find_node(t, "WA"), ca1 = lr_topo_find_node(t, "CA1");
    CU_ASSERT_EQUAL(wa, 0);
    CU_ASSERT_EQUAL(ca1, 1);
    int l = lr_topo_find_link(t, "WA-CA1");
    CU_ASSERT_FATAL(l >= 0);
    CU_ASSERT_EQUAL(l, lr_topo_link_between(t, wa, ca1));
    CU_ASSERT_EQUAL(t->links[l].src, wa);
    CU_ASSERT_EQUAL(t->links[l].dst, ca1);
    CU_ASSERT_DOUBLE_EQUAL(t->links[l].length_km, 1050.0, 1e-9);
    CU_ASSERT_EQUAL(t->links[l].n_slots, 100);
    CU_ASSERT_EQUAL(t->links[l].first_slot_n, -291);
    /* The longest NSFNET fibre of the DeepRMSA variant. */
    l = lr_topo_find_link(t, "WA-IL");
    CU_ASSERT_FATAL(l >= 0);
    CU_ASSERT_DOUBLE_EQUAL(t->links[l].length_km, 2400.0, 1e-9);
    lr_topo_free(t);
}

/* metro.json leaves first-slot-n out: the module's default applies, and
 * the attachments are where the file says. */
static void
test_metro_defaults(void)
{
    struct lr_topo *t = load_topo("examples/topologies/metro.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int l = 0; l < t->n_links; l++) {
        CU_ASSERT_EQUAL(t->links[l].first_slot_n,
                        LR_YANG_FIRST_SLOT_N_DEFAULT);
        CU_ASSERT_EQUAL(t->links[l].n_slots, 320);
    }
    int l = lr_topo_find_link(t, "r1-r4");
    CU_ASSERT_FATAL(l >= 0);
    CU_ASSERT_DOUBLE_EQUAL(t->links[l].length_km, 80.0, 1e-9);
    CU_ASSERT_EQUAL(lr_topo_dc_node(t, "dc1"), lr_topo_find_node(t, "r1"));
    CU_ASSERT_EQUAL(lr_topo_dc_node(t, "dc2"), lr_topo_find_node(t, "r3"));
    CU_ASSERT_EQUAL(lr_topo_dc_node(t, "dc3"), lr_topo_find_node(t, "r5"));
    CU_ASSERT_EQUAL(lr_topo_dc_node(t, "dc4"), -1);
    lr_topo_free(t);
}

static void
test_cluster_units(void)
{
    struct lr_cluster *c = NULL;
    char err[1024];
    int rc = lr_yang_load_cluster(ctx, src("examples/clusters/metro.json"),
                                  &c, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(c->n_types, 3);
    CU_ASSERT_EQUAL(c->n_dcs, 3);
    CU_ASSERT_EQUAL(c->n_links, 3);

    int a100 = lr_cluster_find_type(c, "A100-80GB");
    CU_ASSERT_FATAL(a100 >= 0);
    CU_ASSERT_DOUBLE_EQUAL(c->types[a100].peak_flops, 312e12, 1);
    CU_ASSERT_DOUBLE_EQUAL(c->types[a100].efficiency, 0.45, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c->types[a100].memory_bytes, 80e9, 1);
    int v100 = lr_cluster_find_type(c, "V100-32GB");
    CU_ASSERT_FATAL(v100 >= 0);
    CU_ASSERT_DOUBLE_EQUAL(c->types[v100].peak_flops, 125e12, 1);
    CU_ASSERT_DOUBLE_EQUAL(c->types[v100].memory_bytes, 32e9, 1);

    int dc1 = lr_cluster_find_dc(c, "dc1"), dc2 = lr_cluster_find_dc(c, "dc2");
    CU_ASSERT_FATAL(dc1 >= 0 && dc2 >= 0);
    CU_ASSERT_EQUAL(c->dcs[dc1].device_type, a100);
    CU_ASSERT_EQUAL(c->dcs[dc1].n_devices, 16);
    CU_ASSERT_DOUBLE_EQUAL(c->dcs[dc1].intra_bw, 600e9, 1);     /* B/s */
    CU_ASSERT_DOUBLE_EQUAL(c->dcs[dc1].intra_latency, 5e-6, 1e-15);
    CU_ASSERT_STRING_EQUAL(c->dcs[dc1].attach_node, "r1");
    CU_ASSERT_EQUAL(c->dcs[dc2].device_type, v100);
    CU_ASSERT_EQUAL(c->dcs[dc2].n_devices, 32);

    /* 10 Gb/s is 1.25e9 bytes/s; 1 ms is 1e-3 s. */
    int l = lr_cluster_link_between(c, dc2, dc1);
    CU_ASSERT_FATAL(l >= 0);
    CU_ASSERT_DOUBLE_EQUAL(c->links[l].bw, 1.25e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(c->links[l].latency, 1e-3, 1e-15);
    lr_cluster_free(c);
}

static void
test_attachments_agree(void)
{
    struct lr_topo *t = load_topo("examples/topologies/metro.json");
    struct lr_cluster *c = NULL;
    char err[1024] = "";
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(lr_yang_load_cluster(
        ctx, src("examples/clusters/metro.json"), &c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_yang_check_attachments(t, "metro.json", c,
                                              "cluster.json", err,
                                              sizeof err), 0);
    lr_cluster_free(c);
    lr_topo_free(t);
}

/*
 * Bad inputs: each must fail with the right code and name the data path
 * and the reason.
 */

enum bad_kind { BAD_TOPO, BAD_CLUSTER, BAD_ATTACH };

static const struct bad_case {
    const char *file;          /* see test_bad_inputs() */
    enum bad_kind kind;
    int rc;
    const char *path;          /* substring of the message */
    const char *reason;        /* another substring */
} bad_cases[] = {
    { "link_unknown_node.json", BAD_TOPO, EINVAL,
      ": /ietf-network:networks/network[network-id='bad']/"
      "ietf-network-topology:link[link-id='A-X']/destination/dest-node: ",
      "Invalid leafref value \"X\"" },
    { "negative_length.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-B']/"
      "lightrail-topology:length-km: ",
      "value \"-5.0\" is out of the allowed range" },
    { "zero_slots.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-B']/lightrail-topology:slots: ",
      "a link carries 1 to 1024 slots (at most 12.8 THz)" },
    { "wide_slots.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-B']/lightrail-topology:slots: ",
      "a link carries 1 to 1024 slots (at most 12.8 THz)" },
    { "unknown_leaf.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-B']: ",
      "Node \"colour\" not found" },
    { "missing_length.json", BAD_TOPO, EINVAL,
      "/lightrail-topology:length-km: ",
      "Mandatory node \"length-km\"" },
    { "malformed.json", BAD_TOPO, EINVAL,
      "/ietf-network:networks/network[network-id='bad']: ",
      "(line 13)" },
    /* libyang quotes the rest of the input, newlines and all: the
     * message must still be one line (found by the fuzzer). */
    { "split_member.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='r2-r1']: ",
      "expected a JSON object's name-separator" },
    /* libyang stops after the first object and ignored the rest. */
    { "two_documents.json", BAD_TOPO, EINVAL,
      "two_documents.json: ", "text after the JSON object (line 2)" },
    { "self_loop.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-A']: ",
      "link joins node 'A' to itself" },
    { "dup_dc_attachment.json", BAD_TOPO, EINVAL,
      "/node[node-id='B']/lightrail-topology:dc-attachment[dc='dc1']: ",
      "DC 'dc1' is already attached to node 'A'" },
    { "long_node_id.json", BAD_TOPO, EINVAL,
      "/node[node-id='B234567890123456789012345678901234567890123456789012"
      "345678901234']: ",
      "node-id must be 1 to 63 characters long, not 64" },
    { "spectrum_range.json", BAD_TOPO, EINVAL,
      "/ietf-network-topology:link[link-id='A-B']: ",
      "100 slots from first-slot-n -40000 leave the flexgrid" },
    { "two_networks.json", BAD_TOPO, EINVAL,
      "/ietf-network:networks/network[network-id='again']: ",
      "a second lightrail-optical network" },
    { "not_optical.json", BAD_TOPO, EINVAL,
      ": /ietf-network:networks: ",
      "no network has network-types lightrail-topology:lightrail-optical" },
    { "when_false.json", BAD_TOPO, EINVAL,
      "/node[node-id='A']/lightrail-topology:dc-attachment[dc='dc1']: ",
      "When condition" },
    { "does_not_exist.json", BAD_TOPO, ENOENT,
      "does_not_exist.json: ", "No such file or directory" },
    { "cluster_unknown_type.json", BAD_CLUSTER, EINVAL,
      ": /lightrail-compute:compute/dc[name='dc1']/device-type: ",
      "Invalid leafref value \"B200\"" },
    { "cluster_self_link.json", BAD_CLUSTER, EINVAL,
      "/lightrail-compute:compute/inter-dc-link[from='dc1'][to='dc1']: ",
      "an inter-DC link joins two different data centers" },
    { "cluster_dup_pair.json", BAD_CLUSTER, EINVAL,
      "/lightrail-compute:compute/inter-dc-link[from='dc2'][to='dc1']: ",
      "already linked" },
    { "cluster_efficiency.json", BAD_CLUSTER, EINVAL,
      "/device-type[name='A100']/efficiency: ",
      "value \"1.5\" is out of the allowed range" },
    /* Loaded as a cluster of no DC, which printed as no compute. */
    { "cluster_no_dc.json", BAD_CLUSTER, EINVAL,
      "cluster_no_dc.json: /lightrail-compute:compute/dc: ",
      "Too few \"dc\" instances" },
    { "examples/topologies/metro.json", BAD_CLUSTER, EINVAL,
      "metro.json: /lightrail-compute:compute: ",
      "missing: not a lightrail-compute file (its first top-level member "
      "is \"ietf-network:networks\")" },
    { "cluster_attach_unknown.json", BAD_ATTACH, EINVAL,
      ": /lightrail-compute:compute/dc[name='dc2']/attachment-node: ",
      "node 'r9' is not in topology metro.json" },
    { "cluster_attach_mismatch.json", BAD_ATTACH, EINVAL,
      ": /lightrail-compute:compute/dc[name='dc2']/attachment-node: ",
      "attaches DC 'dc2' to node 'r3'" },
};

static void
test_bad_inputs(void)
{
    struct lr_topo *metro = load_topo("examples/topologies/metro.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(metro);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *b = &bad_cases[i];
        char rel[256], err[2048] = "";
        struct lr_topo *t = NULL;
        struct lr_cluster *c = NULL;
        int rc;

        /* A bare name is under tests/data/bad/; a path is from the top. */
        snprintf(rel, sizeof rel, "%s%s",
                 strchr(b->file, '/') ? "" : "tests/data/bad/", b->file);
        if (b->kind == BAD_TOPO) {
            rc = lr_yang_load_topo(ctx, src(rel), &t, err, sizeof err);
            CU_ASSERT_PTR_NULL(t);
        } else {
            rc = lr_yang_load_cluster(ctx, src(rel), &c, err, sizeof err);
            if (b->kind == BAD_ATTACH) {
                CU_ASSERT_EQUAL(rc, 0);
                if (!rc)
                    rc = lr_yang_check_attachments(metro, "metro.json", c,
                                                   src(rel), err, sizeof err);
            } else
                CU_ASSERT_PTR_NULL(c);
        }
        int ok = rc == b->rc && strstr(err, b->path)
                 && strstr(err, b->reason)
                 && !strncmp(err, src(rel), strlen(src(rel)))
                 && !strchr(err, '\n');
        if (!ok)
            fprintf(stderr, "\n%s: rc %d (want %d)\n  got:  %s\n"
                    "  want: ...%s...%s\n", b->file, rc, b->rc, err,
                    b->path, b->reason);
        CU_ASSERT(ok);
        lr_topo_free(t);
        lr_cluster_free(c);
    }
    lr_topo_free(metro);
}

/* The in-memory entry point: no NUL terminator needed, embedded NUL and
 * empty input refused. */
static void
test_mem_edges(void)
{
    size_t len;
    char *text = slurp(src("examples/topologies/metro.json"), &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    struct lr_topo *t = NULL;
    char err[1024];

    /* Exactly 'len' bytes from a copy with no terminator after them. */
    char *copy = malloc(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, text, len);
    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, copy, len, "m", &t, err,
                                          sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(t);
    lr_topo_free(t);
    t = NULL;

    copy[10] = '\0';
    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, copy, len, "m", &t, err,
                                          sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "m: contains a NUL byte at offset 10"));
    CU_ASSERT_PTR_NULL(t);

    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, "", 0, "empty", &t, err,
                                          sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "empty: /ietf-network:networks: no "
                                       "network"));

    /* A tiny error buffer truncates, never overflows. */
    char small[8];
    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, "{", 1, "name-longer-than-8",
                                          &t, small, sizeof small), EINVAL);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
    free(copy);
    free(text);
}

/* 'text' (one JSON object) with 'extra' members added at its end, in a
 * new string the caller frees. */
static char *
with_members(const char *text, const char *extra)
{
    const char *close = strrchr(text, '}');
    size_t head = (size_t) (close - text);
    char *out = malloc(head + strlen(extra) + 3);
    if (!out)
        return NULL;
    memcpy(out, text, head);
    sprintf(out + head, ",%s}", extra);
    return out;
}

/* A document holds its own module's top-level node and nothing else:
 * another module's data beside it (ietf-yang-library's state, which the
 * context implements, the inventory in a topology, jobs) is refused,
 * named, before validation could speak of its mandatory nodes, so that
 * no caller stores it. */
static void
test_foreign_top(void)
{
    static const struct {
        int topo;
        const char *extra, *want;
    } cases[] = {
        { 1, "\"ietf-yang-library:yang-library\":{\"content-id\":\"x\"},"
             "\"ietf-yang-library:modules-state\":{\"module-set-id\":\"x\"}",
          "m: /ietf-yang-library:" },
        { 1, "\"ietf-yang-library:yang-library\":{\"content-id\":\"x\"}",
          "m: /ietf-yang-library:yang-library: a topology holds "
          "ietf-network data only: its one top-level member is "
          "\"ietf-network:networks\"; remove this one" },
        { 1, "\"ietf-yang-library:modules-state\":{\"module-set-id\":\"x\"}",
          "m: /ietf-yang-library:modules-state: a topology holds "
          "ietf-network data only" },
        { 1, "\"lightrail-job:jobs\":{}",
          "m: /lightrail-job:jobs: a topology holds ietf-network data "
          "only" },
        { 0, "\"ietf-yang-library:yang-library\":{\"content-id\":\"x\"}",
          "m: /ietf-yang-library:yang-library: an inventory holds "
          "lightrail-compute data only: its one top-level member is "
          "\"lightrail-compute:compute\"; remove this one" },
        { 0, "\"lightrail-job:jobs\":{}",
          "m: /lightrail-job:jobs: an inventory holds lightrail-compute "
          "data only" },
    };
    size_t tlen, clen;
    char *topo = slurp(src("examples/topologies/metro.json"), &tlen);
    char *cluster = slurp(src("examples/clusters/metro.json"), &clen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *doc = with_members(cases[i].topo ? topo : cluster,
                                 cases[i].extra);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        char err[1024] = "";
        struct lr_topo *t = NULL;
        struct lr_cluster *c = NULL;
        int rc = cases[i].topo
                 ? lr_yang_load_topo_mem(ctx, doc, strlen(doc), "m", &t, err,
                                         sizeof err)
                 : lr_yang_load_cluster_mem(ctx, doc, strlen(doc), "m", &c,
                                            err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT_PTR_NULL(t);
        CU_ASSERT_PTR_NULL(c);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\ncase %zu: want '%s', got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        lr_topo_free(t);
        lr_cluster_free(c);
        free(doc);
    }

    /* The inventory in the topology's place, and the topology in the
     * inventory's: both documents in one. */
    char *both = with_members(topo, "\"lightrail-compute:compute\":{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(both);
    char err[1024] = "";
    struct lr_topo *t = NULL;
    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, both, strlen(both), "m", &t,
                                          err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "m: /lightrail-compute:compute: a "
                                       "topology holds ietf-network data "
                                       "only"));
    free(both);

    /* The library alone is no topology at all. */
    static const char lib[] = "{\"ietf-yang-library:yang-library\":"
                              "{\"content-id\":\"x\"}}";
    CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, lib, strlen(lib), "m", &t,
                                          err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_STRING_EQUAL(err, "m: /ietf-network:networks: missing: not a "
                           "ietf-network file (its first top-level member "
                           "is \"ietf-yang-library:yang-library\")");
    free(cluster);
    free(topo);
}

/* A misspelt member the schema has from another module (an augment:
 * ietf-network-topology's link, lightrail-topology's roadm) is named
 * as RFC 7951 has it sent, "module:name"; the bare name, which libyang
 * refuses again, was suggested for it until 2026-12-07 (even the name
 * sent: 'Node "link" not found ...; did you mean "link"?'). */
static void
test_misspelt_members(void)
{
#define NET "{\"ietf-network:networks\":{\"network\":[{\"network-id\":" \
            "\"m\","
#define AT "m: /ietf-network:networks/network[network-id='m']"
    static const struct {
        const char *doc, *want;
    } cases[] = {
        { NET "\"link\":[]}]}}",
          AT ": Node \"link\" not found as a child of \"network\" node; "
          "did you mean \"ietf-network-topology:link\"? (line 1)" },
        { NET "\"lnk\":[]}]}}",
          AT ": Node \"lnk\" not found as a child of \"network\" node; "
          "did you mean \"ietf-network-topology:link\"? (line 1)" },
        { NET "\"nodes\":[]}]}}",
          AT ": Node \"nodes\" not found as a child of \"network\" node; "
          "did you mean \"node\"? (line 1)" },
        { NET "\"bogusxyz\":[]}]}}",
          AT ": Node \"bogusxyz\" not found as a child of \"network\" "
          "node; \"network\" takes network-id, network-types, "
          "supporting-network, node, ietf-network-topology:link. "
          "(line 1)" },
        { NET "\"node\":[{\"node-id\":\"r1\",\"rodm\":{}}]}]}}",
          AT "/node[node-id='r1']: Node \"rodm\" not found as a child of "
          "\"node\" node; did you mean \"lightrail-topology:roadm\"? "
          "(line 1)" },
    };
#undef NET
#undef AT
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024] = "";
        struct lr_topo *t = NULL;
        CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, cases[i].doc,
                                              strlen(cases[i].doc), "m", &t,
                                              err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(t);
        if (strcmp(err, cases[i].want))
            fprintf(stderr, "\ncase %zu: want '%s', got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_STRING_EQUAL(err, cases[i].want);
        lr_topo_free(t);
    }
}

/* A top-level member under a module with no top-level data of its own
 * (an augmenting one: ietf-network-topology, lightrail-topology) is
 * told the member meant of the module that has it; until 2026-12-07 it
 * was told 'ietf-network-topology" takes .', an empty list. */
static void
test_misspelt_top(void)
{
    static const struct {
        const char *doc, *want;
    } cases[] = {
        { "{\"ietf-network-topology:networks\":{}}",
          "m: line 1: Node \"networks\" not found in the "
          "\"ietf-network-topology\" module; did you mean "
          "\"ietf-network:networks\"?" },
        { "{\"lightrail-topology:network\":{}}",
          "m: line 1: Node \"network\" not found in the "
          "\"lightrail-topology\" module; did you mean "
          "\"ietf-network:networks\"?" },
        /* Nothing near: libyang's sentence alone, no empty list. */
        { "{\"lightrail-topology:qqqqqqqq\":{}}",
          "m: line 1: Node \"qqqqqqqq\" not found in the "
          "\"lightrail-topology\" module." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024] = "";
        struct lr_topo *t = NULL;
        CU_ASSERT_EQUAL(lr_yang_load_topo_mem(ctx, cases[i].doc,
                                              strlen(cases[i].doc), "m", &t,
                                              err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(t);
        if (strcmp(err, cases[i].want))
            fprintf(stderr, "\ncase %zu: want '%s', got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_STRING_EQUAL(err, cases[i].want);
        lr_topo_free(t);
    }
}

/*
 * Leafrefs: a name that is not there (a DC's device type, an inter-DC
 * link's end, a link's node) is refused with the names the document
 * has at that place, the first 8 and how many more, and the one meant
 * when fewer than half its characters differ.
 */

/* A compute document of 'n_types' device types named by 'type_fmt'
 * (one %d, from 1) and one DC "dc1" of device type 'dc_type', into a
 * new string the caller frees. */
static char *
compute_doc(int n_types, const char *type_fmt, const char *dc_type)
{
    size_t cap = 4096 + (size_t) n_types * 512;
    char *doc = malloc(cap);
    if (!doc)
        return NULL;
    int len = snprintf(doc, cap, "{\"lightrail-compute:compute\":"
                       "{\"device-type\":[");
    for (int i = 1; i <= n_types; i++) {
        len += snprintf(doc + len, cap - len, "%s{\"name\":\"",
                        i > 1 ? "," : "");
        len += snprintf(doc + len, cap - len, type_fmt, i);
        len += snprintf(doc + len, cap - len, "\",\"peak-tflops\":\"312\","
                        "\"efficiency\":\"0.45\",\"memory-gb\":\"80\"}");
    }
    snprintf(doc + len, cap - len, "],\"dc\":[{\"name\":\"dc1\","
             "\"device-type\":\"%s\",\"device-count\":8,"
             "\"intra-dc-bandwidth-gbytes-per-s\":\"600\","
             "\"intra-dc-latency-us\":\"5\"}]}}", dc_type);
    return doc;
}

/* 'text' with its first 'from' replaced by 'to', in a new string the
 * caller frees (NULL when 'from' is not in it). */
static char *
replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return NULL;
    size_t head = (size_t) (at - text);
    char *out = malloc(strlen(text) + strlen(to) + 1);
    if (out)
        sprintf(out, "%.*s%s%s", (int) head, text, to, at + strlen(from));
    return out;
}

/* Whether s is valid UTF-8 (planner/lr_utf8.h's reading of it). */
static int
valid_utf8(const char *s)
{
    for (const unsigned char *p = (const unsigned char *) s; *p;) {
        size_t n = lr_utf8_len(p);
        if (!n)
            return 0;
        p += n;
    }
    return 1;
}

static void
test_leafref_names(void)
{
    size_t clen, tlen;
    char *cluster = slurp(src("examples/clusters/metro.json"), &clen);
    char *topo = slurp(src("tests/data/bad/link_unknown_node.json"), &tlen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(topo);
    /* A second network whose nodes are not the first's: a link of the
     * first names a node of the first only. */
    char *two = replaced(topo, "    ]\n  }\n}",
                         "    , { \"network-id\": \"other\", \"node\": "
                         "[ { \"node-id\": \"Y\" }, { \"node-id\": \"Z\" } "
                         "] } ]\n  }\n}");
    char *many = compute_doc(12, "t%02d", "x");
    struct {
        int topo;
        char *doc;
        const char *want;
    } cases[] = {
        /* One device type is one edit away: the one meant. */
        { 0, replaced(cluster, "\"device-type\": \"V100-32GB\"",
                      "\"device-type\": \"H200-80GB\""),
          "m: /lightrail-compute:compute/dc[name='dc2']/device-type: "
          "Invalid leafref value \"H200-80GB\" - no target instance "
          "\"../../device-type/name\" with the same value; did you mean "
          "\"H100-80GB\"? Want one of \"V100-32GB\", \"A100-80GB\", "
          "\"H100-80GB\"." },
        /* Three DCs one edit away each: none is the one meant. */
        { 0, replaced(cluster, "\"from\": \"dc1\"", "\"from\": \"dc9\""),
          "/from: Invalid leafref value \"dc9\" - no target instance "
          "\"../../dc/name\" with the same value; want one of \"dc1\", "
          "\"dc2\", \"dc3\"." },
        /* Half the name changed is another name, not a slip. */
        { 0, replaced(cluster, "\"device-type\": \"V100-32GB\"",
                      "\"device-type\": \"B200\""),
          "with the same value; want one of \"V100-32GB\", "
          "\"A100-80GB\", \"H100-80GB\"." },
        { 0, many,
          "want one of \"t01\", \"t02\", \"t03\", \"t04\", \"t05\", "
          "\"t06\", \"t07\", \"t08\" and 4 more." },
        /* Characters counted, not bytes (until 2026-12-07 bytes): one
         * of three changed is a slip, though its three bytes all
         * differ ... */
        { 0, compute_doc(1, "\xe6\xa9\x9f\xe5\x99\xa8%d",  /* 機器 */
                         "\xe6\xa9\x9f\xe6\xa2\xb0" "1"),  /* 機械 */
          "with the same value; did you mean \"\xe6\xa9\x9f\xe5\x99\xa8"
          "1\"? Want one of \"\xe6\xa9\x9f\xe5\x99\xa8" "1\"." },
        /* ... and one of two is half the name, though one byte of
         * three. */
        { 0, compute_doc(1, "\xc3\xa4%d", "\xc3\xb6" "1"),  /* ä1, ö1 */
          "with the same value; want one of \"\xc3\xa4" "1\"." },
        /* No device type at all. */
        { 0, compute_doc(0, "", "x"),
          "\"../../device-type/name\" with the same value; there is none "
          "at all." },
        { 1, topo,
          "/destination/dest-node: Invalid leafref value \"X\" - no target "
          "instance \"../../../nw:node/nw:node-id\" with the same value; "
          "want one of \"A\", \"B\"." },
        { 1, two, "with the same value; want one of \"A\", \"B\"." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[2048] = "";
        struct lr_topo *t = NULL;
        struct lr_cluster *c = NULL;
        const char *doc = cases[i].doc;
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        int rc = cases[i].topo
                 ? lr_yang_load_topo_mem(ctx, doc, strlen(doc), "m", &t, err,
                                         sizeof err)
                 : lr_yang_load_cluster_mem(ctx, doc, strlen(doc), "m", &c,
                                            err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\ncase %zu: want '%s',\n  got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        lr_topo_free(t);
        lr_cluster_free(c);
        if (cases[i].doc != topo)
            free(cases[i].doc);
    }
    free(topo);
    free(cluster);

    /* Names of 63 three-byte characters: each listed is cut at the start
     * of a character, and so is the message at the end of a small
     * buffer. */
    char fmt[256] = "%03d";
    for (int i = 0; i < 60; i++)
        strcat(fmt, "\xe2\x82\xac");               /* U+20AC, the euro */
    char *wide = compute_doc(12, fmt, "x");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wide);
    char err[2048] = "", small[301] = "";
    struct lr_cluster *c = NULL;
    CU_ASSERT_EQUAL(lr_yang_load_cluster_mem(ctx, wide, strlen(wide), "m",
                                             &c, err, sizeof err), EINVAL);
    CU_ASSERT(valid_utf8(err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "want one of \"001\xe2\x82\xac"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, " and 4 more."));
    CU_ASSERT(strlen(err) < 1024);
    CU_ASSERT_EQUAL(lr_yang_load_cluster_mem(ctx, wide, strlen(wide), "m",
                                             &c, small, sizeof small),
                    EINVAL);
    if (!valid_utf8(err) || !valid_utf8(small))
        fprintf(stderr, "\nnot UTF-8: '%s'\n  or '%s'\n", err, small);
    CU_ASSERT(valid_utf8(small));
    CU_ASSERT(lr_utf8_is_cut(small, sizeof small));
    CU_ASSERT_PTR_NULL(c);
    free(wide);
}

/* A member name that shares too little with any the schema has there
 * is told the members there are, not one of them: the did-you-mean of
 * a member takes a leafref's rule (fewer than half its characters
 * changed); until 2026-12-07 "xy" was told 'did you mean "to"?' and
 * "t" the same, though nothing of "xy" is in "to". */
static void
test_misspelt_far(void)
{
    size_t clen;
    char *cluster = slurp(src("examples/clusters/metro.json"), &clen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
#define AT "m: /lightrail-compute:compute/inter-dc-link[from='dc1'][to='dc2']"
#define TAKES "not found as a child of \"inter-dc-link\" node; " \
              "\"inter-dc-link\" takes from, to, bandwidth-gbps, " \
              "latency-ms. (line "
    static const struct {
        const char *member, *want;
    } cases[] = {
        /* Both characters changed: not a slip. */
        { "xy", AT ": Node \"xy\" " TAKES },
        /* The one character changed: not a slip either. */
        { "t", AT ": Node \"t\" " TAKES },
        /* One of four changed: the one meant. */
        { "frm", AT ": Node \"frm\" not found as a child of "
          "\"inter-dc-link\" node; did you mean \"from\"? (line " },
        /* Two keys swapped are one slip, not two of four characters. */
        { "form", AT ": Node \"form\" not found as a child of "
          "\"inter-dc-link\" node; did you mean \"from\"? (line " },
    };
#undef TAKES
#undef AT
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char with[64], err[1024] = "";
        snprintf(with, sizeof with, "\"latency-ms\": \"1\", \"%s\": 1",
                 cases[i].member);
        char *doc = replaced(cluster, "\"latency-ms\": \"1\"", with);
        struct lr_cluster *c = NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        CU_ASSERT_EQUAL(lr_yang_load_cluster_mem(ctx, doc, strlen(doc), "m",
                                                 &c, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(c);
        if (strncmp(err, cases[i].want, strlen(cases[i].want)))
            fprintf(stderr, "\ncase %zu: want '%s...',\n  got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_NSTRING_EQUAL(err, cases[i].want, strlen(cases[i].want));
        lr_cluster_free(c);
        free(doc);
    }
    free(cluster);
}

/* A refused value of many-byte characters, longer than the message's
 * buffer: the number's refusal (its range and units after libyang's
 * sentence, which quotes the value whole) is cut at the start of a
 * character, as the leafref's is, never inside one: the API sends it as
 * JSON, which must be UTF-8. */
static void
test_long_value_utf8(void)
{
    char value[1400] = "";
    for (int i = 0; i < 400; i++)
        strcat(value, "\xe2\x82\xac");               /* U+20AC, the euro */
    char *base = compute_doc(1, "t%02d", "t01");
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    char *to = malloc(strlen(value) + 32);
    CU_ASSERT_PTR_NOT_NULL_FATAL(to);
    sprintf(to, "\"device-count\":\"%s\"", value);
    char *doc = replaced(base, "\"device-count\":8", to);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    char err[2048] = "";
    struct lr_cluster *c = NULL;
    CU_ASSERT_EQUAL(lr_yang_load_cluster_mem(ctx, doc, strlen(doc), "m", &c,
                                             err, sizeof err), EINVAL);
    if (!valid_utf8(err))
        fprintf(stderr, "\nnot UTF-8: '%s'\n", err);
    CU_ASSERT(valid_utf8(err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "device-count: Invalid "));
    CU_ASSERT_PTR_NULL(c);
    /* The advice after the sentence stays: the value is what is cut. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, LR_UTF8_CUT_MARK "\"; want "));

    /* An enumeration's refusal (libyang's sentence as it says it). */
    char lymsg[1500], want[1024];
    snprintf(lymsg, sizeof lymsg, "Invalid enumeration value \"%s\".",
             value);
    const char *m = lr_yang_better_msg(ctx, NULL, "/lightrail-model:model/"
                                       "transformer/arch", lymsg, want,
                                       sizeof want);
    if (!valid_utf8(m))
        fprintf(stderr, "\nnot UTF-8: '%s'\n", m);
    CU_ASSERT(valid_utf8(m));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "\"; want gpt"));
    /* A union's and a boolean's, which quote the value in their own. */
    snprintf(lymsg, sizeof lymsg, "Invalid union value \"%s\" - no "
             "matching subtype found.", value);
    m = lr_yang_better_msg(ctx, NULL, "/lightrail-config:lightraild/"
                           "cdynp-device-step", lymsg, want, sizeof want);
    CU_ASSERT(valid_utf8(m));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, LR_UTF8_CUT_MARK "\": want auto"));
    snprintf(lymsg, sizeof lymsg, "Invalid boolean value \"%s\".", value);
    m = lr_yang_better_msg(ctx, NULL, "/lightrail-config:lightraild/listen/"
                           "tls", lymsg, want, sizeof want);
    CU_ASSERT(valid_utf8(m));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, LR_UTF8_CUT_MARK "\": want true or "
                                  "false"));
    free(doc);
    free(to);
    free(base);
}

/* A number sent as a JSON string ("16" for 16) is in range: the
 * refusal says to send it unquoted, not the range it already meets.
 * A string that is no JSON number ("16x", "0x10") is told the range
 * alone. */
static void
test_quoted_number(void)
{
    size_t clen;
    char *cluster = slurp(src("examples/clusters/metro.json"), &clen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cluster);
    struct {
        const char *to, *want;
    } cases[] = {
        { "\"device-count\": \"16\"",
          "uint32 value \"16\"; want 1 to 1000000, as a JSON number "
          "(RFC 7951: unquoted). (line 27)" },
        { "\"device-count\": \"16x\"",
          "uint32 value \"16x\"; want 1 to 1000000. (line 27)" },
        /* strtod() reads it, JSON does not: no number to unquote. */
        { "\"device-count\": \"0x10\"",
          "uint32 value \"0x10\"; want 1 to 1000000. (line 27)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *doc = replaced(cluster, "\"device-count\": 16", cases[i].to);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        char err[2048] = "";
        struct lr_cluster *c = NULL;
        CU_ASSERT_EQUAL(lr_yang_load_cluster_mem(ctx, doc, strlen(doc), "m",
                                                 &c, err, sizeof err),
                        EINVAL);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\ncase %zu: want '%s',\n  got '%s'\n", i,
                    cases[i].want, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        CU_ASSERT_PTR_NULL(c);
        free(doc);
    }
    free(cluster);
}

/*
 * Printing.
 */

/* The converted examples were printed by lr_yang_topo_to_json() (through
 * `lightrail topo import`): loading and printing again gives the same
 * bytes. */
static void
test_print_golden(void)
{
    static const char *const files[] = {
        "examples/topologies/nsfnet.json", "examples/topologies/cost239.json",
    };
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        char *want = slurp(src(files[i]), &len);
        struct lr_topo *t = load_topo(files[i]);
        char *got = NULL, err[1024];
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL(lr_yang_topo_to_json(ctx, t, &got, err, sizeof err),
                        0);
        CU_ASSERT_PTR_NOT_NULL(got);
        if (got)
            CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
        free(want);
        lr_topo_free(t);
    }
}

/* A topology built in C prints, loads back, and keeps what matters. */
static void
test_print_round_trip(void)
{
    struct lr_topo *t = lr_topo_new("built");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "x'y"), 0);   /* a quote in a key */
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "z"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_link(t, "e1", 0, 1, 12.3456, 7, -100), 0);
    CU_ASSERT_EQUAL(lr_topo_add_link(t, "e2", 1, 0, 0.25, 1024, 0), 0);
    CU_ASSERT_EQUAL(lr_topo_add_attach(t, "dcA", 1), 0);
    CU_ASSERT_EQUAL(lr_topo_set_roadm(t, 1, "ROADM Z", "west \"end\""), 0);
    CU_ASSERT_EQUAL(lr_topo_set_roadm(t, 2, "no such node", NULL), EINVAL);

    char *text = NULL, err[1024];
    CU_ASSERT_EQUAL_FATAL(lr_yang_topo_to_json(ctx, t, &text, err,
                                               sizeof err), 0);
    struct lr_topo *u = NULL;
    int rc = lr_yang_load_topo_mem(ctx, text, strlen(text), "printed", &u,
                                   err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n%s\n", err, text);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(u->name, "built");
    CU_ASSERT_EQUAL(u->n_nodes, 2);
    CU_ASSERT_STRING_EQUAL(u->nodes[0].name, "x'y");
    CU_ASSERT_EQUAL(u->n_links, 2);
    /* length-km keeps three fraction digits. */
    CU_ASSERT_DOUBLE_EQUAL(u->links[0].length_km, 12.346, 1e-9);
    CU_ASSERT_EQUAL(u->links[0].n_slots, 7);
    CU_ASSERT_EQUAL(u->links[0].first_slot_n, -100);
    CU_ASSERT_EQUAL(u->links[1].n_slots, 1024);
    CU_ASSERT_EQUAL(u->links[1].src, 1);
    CU_ASSERT_EQUAL(lr_topo_dc_node(u, "dcA"), 1);
    /* The ROADM's name and description come back; a node without them
     * has none (the network GET and `lightrail topology show` print
     * them: they were dropped until 2026-12-05). */
    CU_ASSERT_PTR_NULL(u->nodes[0].roadm_name);
    CU_ASSERT_PTR_NULL(u->nodes[0].roadm_description);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u->nodes[1].roadm_name);
    CU_ASSERT_STRING_EQUAL(u->nodes[1].roadm_name, "ROADM Z");
    CU_ASSERT_PTR_NOT_NULL_FATAL(u->nodes[1].roadm_description);
    CU_ASSERT_STRING_EQUAL(u->nodes[1].roadm_description, "west \"end\"");
    struct lr_topo *c = lr_topo_clone(u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->nodes[1].roadm_name);
    CU_ASSERT_STRING_EQUAL(c->nodes[1].roadm_name, "ROADM Z");
    CU_ASSERT_PTR_NULL(c->nodes[0].roadm_name);
    lr_topo_free(c);
    free(text);
    lr_topo_free(u);
    lr_topo_free(t);
}

/* What the schema refuses, printing refuses too, with the data path. */
static void
test_print_invalid(void)
{
    struct lr_topo *t = lr_topo_new("bad");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "a"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "b"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_attach(t, "dc one", 0), 0);  /* a space */
    char *text = (char *) "unchanged", err[1024] = "";
    CU_ASSERT_EQUAL(lr_yang_topo_to_json(ctx, t, &text, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(text);
    /* libyang refuses the value as the node is created, before the list
     * has its keys: the path is the schema's, without predicates. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad: /ietf-network:networks/network/"
                                       "node/lightrail-topology:"
                                       "dc-attachment/dc: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "Unsatisfied pattern - \"dc one\""));
    lr_topo_free(t);

    /* A link wider than the planners' spectrum (1024 slots). */
    t = lr_topo_new("wide");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "a"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "b"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_link(t, "a-b", 0, 1, 10, 1025, 0), 0);
    text = (char *) "unchanged";
    CU_ASSERT_EQUAL(lr_yang_topo_to_json(ctx, t, &text, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "a link carries 1 to 1024 slots"));
    lr_topo_free(t);

    /* A node index out of range (a struct edited by hand) is the
     * printer's own refusal, in its words: libyang has none to give. */
    t = lr_topo_new("indexed");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "a"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_node(t, "b"), 0);
    CU_ASSERT_EQUAL(lr_topo_add_link(t, "a-b", 0, 1, 10, 16, 0), 0);
    t->links[0].dst = 2;
    text = (char *) "unchanged";
    CU_ASSERT_EQUAL(lr_yang_topo_to_json(ctx, t, &text, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_STRING_EQUAL(err, "indexed: a link or attachment names a "
                           "node index out of range");
    lr_topo_free(t);
}

static CU_TestInfo tests[] = {
    { "embedded modules", test_embedded_modules },
    { "example counts", test_example_counts },
    { "nsfnet link", test_nsfnet_link },
    { "metro defaults", test_metro_defaults },
    { "cluster units", test_cluster_units },
    { "attachments agree", test_attachments_agree },
    { "bad inputs", test_bad_inputs },
    { "in-memory edges", test_mem_edges },
    { "foreign top-level nodes", test_foreign_top },
    { "leafref names", test_leafref_names },
    { "long value UTF-8", test_long_value_utf8 },
    { "quoted number", test_quoted_number },
    { "misspelt members", test_misspelt_members },
    { "misspelt top-level members", test_misspelt_top },
    { "misspelt, nothing near", test_misspelt_far },
    { "print golden", test_print_golden },
    { "print round trip", test_print_round_trip },
    { "print invalid", test_print_invalid },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("yang loader", tests, suite_setup, suite_teardown)
