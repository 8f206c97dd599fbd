/*
 * Tests of the agent's configuration (yang/lr_yang_agent.c) and of the
 * 'remote' container of lightrail-compute (yang/lr_yang_cluster.c): units
 * in SI, paths resolved against the file's directory, the schema's
 * refusals with the data path they name.
 *
 * Inputs are written to a scratch directory, so that path resolution is
 * tested against a directory that is not the working one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "planner/lr_cluster.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_agent.h"

#include "tests/lr_test.h"

static struct ly_ctx *ctx;
static char dir[64];

static int
setup(void)
{
    char err[512];
    snprintf(dir, sizeof dir, "/tmp/lr-test-agent.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

static int
teardown(void)
{
    char path[128];
    static const char *const files[] = { "a.json", "c.json", "r.json" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    lr_yang_ctx_free(ctx);
    return 0;
}

/* Writes 'text' to dir/name and returns the path (a static buffer). */
static const char *
put(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define AGENT_HEAD                                                           \
    "{\"lightrail-agent:agent\": {\"dc\": \"dc2\",\n"                        \
    " \"device-type\": {\"peak-tflops\": \"312\", \"efficiency\": \"0.45\"," \
    " \"memory-gb\": \"80\"},\n"                                             \
    " \"device-count\": 6, \"intra-dc-bandwidth-gbytes-per-s\": \"12.5\","   \
    " \"intra-dc-latency-us\": \"5\",\n"

static void
test_agent_ok(void)
{
    struct lr_agent_config c;
    char err[1024], want[256];
    const char *p = put("a.json", AGENT_HEAD
        " \"tls\": {\"certificate\": \"dc2.pem\", \"key\": \"/abs/dc2.key\","
        " \"ca\": \"../ca.pem\", \"peer-name\": [\"coord\", \"coord2\"]}}}\n");
    int rc = lr_yang_load_agent(ctx, p, &c, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(c.dc, "dc2");
    CU_ASSERT_DOUBLE_EQUAL(c.peak_flops, 312e12, 1);
    CU_ASSERT_DOUBLE_EQUAL(c.efficiency, 0.45, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c.memory_bytes, 80e9, 1);
    CU_ASSERT_EQUAL(c.n_devices, 6);
    CU_ASSERT_DOUBLE_EQUAL(c.intra_bw, 12.5e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(c.intra_latency, 5e-6, 1e-15);
    snprintf(want, sizeof want, "%s/dc2.pem", dir);
    CU_ASSERT_STRING_EQUAL(c.cert, want);
    CU_ASSERT_STRING_EQUAL(c.key, "/abs/dc2.key");
    snprintf(want, sizeof want, "%s/../ca.pem", dir);
    CU_ASSERT_STRING_EQUAL(c.ca, want);
    CU_ASSERT_EQUAL(c.n_peers, 2);
    CU_ASSERT_STRING_EQUAL(c.peer_names[0], "coord");
    CU_ASSERT_STRING_EQUAL(c.peer_names[1], "coord2");
    /* Absent, predecessors are sent (the leaf's default). */
    CU_ASSERT_TRUE(c.predecessors);
}

/* The leaf predecessors read as given: false makes the agent speak
 * protocol revision 1 (tools/lightrail/cmd_agent.c). */
static void
test_agent_predecessors(void)
{
    static const char *const values[] = { "false", "true" };
    for (int i = 0; i < 2; i++) {
        struct lr_agent_config c;
        char err[1024], text[1024];
        snprintf(text, sizeof text, AGENT_HEAD " \"predecessors\": %s,"
                 " \"tls\": {\"certificate\": \"c\", \"key\": \"k\","
                 " \"ca\": \"a\", \"peer-name\": [\"x\"]}}}\n",
                 values[i]);
        int rc = lr_yang_load_agent(ctx, put("a.json", text), &c, err,
                                    sizeof err);
        if (rc)
            fprintf(stderr, "%s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL(c.predecessors, i == 1);
    }
}

/* Each bad file and a piece of the one-line error it must give. */
static void
test_agent_bad(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        { AGENT_HEAD " \"tls\": {\"certificate\": \"c\", \"key\": \"k\","
          " \"ca\": \"ca\"}}}",
          "/lightrail-agent:agent/tls" },
        { AGENT_HEAD " \"tls\": {\"certificate\": \"c\", \"key\": \"k\","
          " \"peer-name\": [\"x\"]}}}",
          "Mandatory node \"ca\"" },
        { "{\"lightrail-agent:agent\": {\"dc\": \"dc2\", \"device-count\": 0}}",
          "device-count" },
        { AGENT_HEAD " \"secret\": 1,"
          " \"tls\": {\"certificate\": \"c\", \"key\": \"k\", \"ca\": \"a\","
          " \"peer-name\": [\"x\"]}}}",
          "secret" },
        /* A boolean, not a string nor a number: the error names the
         * leaf and what it wants. */
        { AGENT_HEAD " \"predecessors\": \"no\","
          " \"tls\": {\"certificate\": \"c\", \"key\": \"k\", \"ca\": \"a\","
          " \"peer-name\": [\"x\"]}}}",
          "/lightrail-agent:agent/predecessors: invalid value \"no\": "
          "want true or false, unquoted" },
        { AGENT_HEAD " \"predecessors\": 0,"
          " \"tls\": {\"certificate\": \"c\", \"key\": \"k\", \"ca\": \"a\","
          " \"peer-name\": [\"x\"]}}}",
          "invalid value \"0\": want true or false" },
        /* Another module's file (an empty compute is refused by its
         * own schema now: at least one dc). */
        { "{\"ietf-network:networks\": {}}",
          "not a lightrail-agent file" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct lr_agent_config c;
        char err[1024] = "";
        const char *p = put("a.json", cases[i].text);
        int rc = lr_yang_load_agent(ctx, p, &c, err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        if (!strstr(err, cases[i].want)) {
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err,
                    cases[i].want);
            CU_FAIL("error text");
        }
        CU_ASSERT_PTR_NULL(strchr(err, '\n'));
        CU_ASSERT_EQUAL(c.n_peers, 0);
    }
}

#define CLUSTER_HEAD                                                         \
    "{\"lightrail-compute:compute\": {\n"                                    \
    " \"device-type\": [{\"name\": \"t\", \"peak-tflops\": \"100\","         \
    " \"efficiency\": \"0.5\", \"memory-gb\": \"40\"}],\n"                   \
    " \"dc\": [\n"                                                           \
    "  {\"name\": \"dc1\", \"device-type\": \"t\", \"device-count\": 2,"     \
    " \"intra-dc-bandwidth-gbytes-per-s\": \"10\","                          \
    " \"intra-dc-latency-us\": \"5\"},\n"                                    \
    "  {\"name\": \"dc2\", \"device-type\": \"t\", \"device-count\": 1,"     \
    " \"intra-dc-bandwidth-gbytes-per-s\": \"10\","                          \
    " \"intra-dc-latency-us\": \"5\",\n"

static void
test_cluster_remote(void)
{
    struct lr_cluster *c = NULL;
    char err[1024];
    const char *p = put("c.json", CLUSTER_HEAD
        "   \"remote\": {\"address\": \"127.0.0.1\", \"port\": 7001}},\n"
        "  {\"name\": \"dc3\", \"device-type\": \"t\", \"device-count\": 1,"
        " \"intra-dc-bandwidth-gbytes-per-s\": \"10\","
        " \"intra-dc-latency-us\": \"5\",\n"
        "   \"remote\": {\"address\": \"agent3.example\", \"port\": 443,"
        " \"certificate-name\": \"dc3.example\"}}]}}\n");
    int rc = lr_yang_load_cluster(ctx, p, &c, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(c->n_dcs, 3);
    CU_ASSERT_EQUAL(c->dcs[0].remote_port, 0);
    CU_ASSERT_STRING_EQUAL(c->dcs[0].remote_address, "");
    CU_ASSERT_STRING_EQUAL(c->dcs[1].remote_address, "127.0.0.1");
    CU_ASSERT_EQUAL(c->dcs[1].remote_port, 7001);
    CU_ASSERT_STRING_EQUAL(c->dcs[1].remote_name, "dc2");
    CU_ASSERT_STRING_EQUAL(c->dcs[2].remote_address, "agent3.example");
    CU_ASSERT_EQUAL(c->dcs[2].remote_port, 443);
    CU_ASSERT_STRING_EQUAL(c->dcs[2].remote_name, "dc3.example");
    lr_cluster_free(c);
}

static void
test_cluster_remote_bad(void)
{
    static const struct {
        const char *tail, *want;
    } cases[] = {
        { "   \"remote\": {\"port\": 7001}}]}}",
          "Mandatory node \"address\"" },
        { "   \"remote\": {\"address\": \"127.0.0.1\", \"port\": 0}}]}}",
          "/lightrail-compute:compute/dc[name='dc2']/remote/port" },
        { "   \"remote\": {\"address\": \"a23456789.b23456789.c23456789."
          "d23456789.e23456789.f23456789.example\", \"port\": 1}}]}}",
          "remote/address: longer than 63 characters" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct lr_cluster *c = NULL;
        char err[1024] = "", text[2048];
        snprintf(text, sizeof text, "%s%s", CLUSTER_HEAD, cases[i].tail);
        int rc = lr_yang_load_cluster(ctx, put("c.json", text), &c, err,
                                      sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT_PTR_NULL(c);
        if (!strstr(err, cases[i].want)) {
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err,
                    cases[i].want);
            CU_FAIL("error text");
        }
    }
}

/* The reservations document: what print writes, load reads back whole
 * (an empty owner and a tag with spaces and non-ASCII included); what
 * the schema refuses, print refuses; a tag of 63 characters but more
 * bytes does not fit the wire's 63, and load says so. */
static void
test_reservations(void)
{
    char err[512], *text = NULL;
    struct lr_agent_reservation in[3] = {
        { "coordinator", "j1", 3 },
        { "", "a job \xc3\xa9t\xc3\xa9", 1 },
        { "coord2", "j1", 2 },
    };
    CU_ASSERT_EQUAL_FATAL(lr_yang_reservations_print(ctx, in, 3, &text, err,
                                                     sizeof err), 0);
    struct lr_agent_reservation *out = NULL;
    int n = 0;
    CU_ASSERT_EQUAL_FATAL(lr_yang_load_reservations(ctx, put("r.json", text),
                                                    &out, &n, err,
                                                    sizeof err), 0);
    free(text);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    for (int i = 0; i < 3; i++) {
        int found = 0;
        for (int j = 0; j < n; j++)
            found += !strcmp(out[j].owner, in[i].owner)
                     && !strcmp(out[j].tag, in[i].tag)
                     && out[j].devices == in[i].devices;
        CU_ASSERT_EQUAL(found, 1);
    }
    free(out);
    /* None: an empty container, read back as none. */
    CU_ASSERT_EQUAL_FATAL(lr_yang_reservations_print(ctx, NULL, 0, &text,
                                                     err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_yang_load_reservations(ctx, put("r.json", text), &out,
                                              &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(out);
    free(text);
    /* Refused by the schema: a control character, no devices. */
    struct lr_agent_reservation bad = { "coordinator", "a\tb", 1 };
    CU_ASSERT_EQUAL(lr_yang_reservations_print(ctx, &bad, 1, &text, err,
                                               sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(text);
    bad = (struct lr_agent_reservation) { "coordinator", "t", 0 };
    CU_ASSERT_EQUAL(lr_yang_reservations_print(ctx, &bad, 1, &text, err,
                                               sizeof err), EINVAL);
    /* U+FFFE: printed by libyang, refused by its parser, so a file that
     * would stop the agent at its next start. */
    bad = (struct lr_agent_reservation) { "coordinator", "a\xef\xbf\xbe", 1 };
    CU_ASSERT_EQUAL(lr_yang_reservations_print(ctx, &bad, 1, &text, err,
                                               sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(text);
    /* 63 characters, 126 bytes. */
    char tag[200] = "";
    for (int i = 0; i < 63; i++)
        strcat(tag, "\xc3\xa9");
    char doc[400];
    snprintf(doc, sizeof doc, "{\"lightrail-agent:reservations\": "
             "{\"reservation\": [{\"owner\": \"c\", \"tag\": \"%s\", "
             "\"devices\": 1}]}}", tag);
    CU_ASSERT_EQUAL(lr_yang_load_reservations(ctx, put("r.json", doc), &out,
                                              &n, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "longer than 63 bytes"));
    CU_ASSERT_PTR_NULL(out);
    /* Another module's document. */
    CU_ASSERT_EQUAL(lr_yang_load_reservations(
                        ctx, put("r.json", "{\"ietf-network:networks\": {}}"),
                        &out, &n, err, sizeof err), EINVAL);
}

static CU_TestInfo tests[] = {
    { "agent file", test_agent_ok },
    { "agent file refusals", test_agent_bad },
    { "agent file: predecessors", test_agent_predecessors },
    { "cluster remote DCs", test_cluster_remote },
    { "cluster remote refusals", test_cluster_remote_bad },
    { "reservations: print, load, refusals", test_reservations },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("yang agent", tests, setup, teardown)
