/*
 * Tests of controller/lr_agent_party.c without a network: the record of
 * received messages (one JSON line per message, exactly the documented
 * field names per type: the privacy test leans on it), the refusals of
 * lr_agent_party_new(), and the errors of a party whose agent is not
 * there (refused at once, sticky, cleared by a new job).
 *
 * Real agents are driven by tests/cli/agent.sh.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "controller/lr_agent_party.h"
#include "planner/lr_cdynp_wire.h"
#include "planner/lr_instance.h"

#include "tests/lr_test.h"

/* The field names of each type's record, as docs/agent-protocol.md
 * lists them ("type" and "id" in every one). */
static const struct {
    enum lr_wire_type type;
    const char *fields;
} documented[] = {
    { LR_WIRE_HELLO, "id type" },
    { LR_WIRE_HELLO_OK, "compute id name type" },
    { LR_WIRE_JOB, "batch elem_bytes id job layers micro type" },
    { LR_WIRE_OK, "id type" },
    { LR_WIRE_STEP, "assumed hi id job link_bw link_lat lo objective "
                    "position summary type" },
    { LR_WIRE_STEP_OK, "id summary type" },
    { LR_WIRE_BACKTRACK, "assumed id job last objective type" },
    { LR_WIRE_BACKTRACK_OK, "id prev_last type" },
    { LR_WIRE_FINISH, "assumed first id job last objective type" },
    { LR_WIRE_FINISH_OK, "id n_stages type" },
    { LR_WIRE_ERROR, "code id text type" },
    { LR_WIRE_COMMIT, "assumed first id job last objective tag type" },
    { LR_WIRE_RELEASE, "id tag type" },
};

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The sorted keys of a JSON object, space-separated, into buf. */
static void
keys_of(json_object *o, char *buf, size_t len)
{
    const char *k[32];
    int n = 0;
    json_object_object_foreach(o, key, val) {
        (void) val;
        if (n < 32)
            k[n++] = key;
    }
    qsort(k, (size_t) n, sizeof k[0], cmp_str);
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "",
                 k[i]);
}

static void
test_record_fields(void)
{
    struct lr_layer layers[2] = { { 1e9, 2e6, 3e3 }, { 4e9, 5e6, 6e3 } };
    struct lr_cdynp_summary *sum = calloc(1, sizeof *sum);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    sum->version = LR_CDYNP_VERSION;
    sum->from = 1;
    sum->n = 2;
    sum->e[0] = (struct lr_cdynp_entry) { 3, { 0.5, 1.5, 0.25 } };
    sum->e[1] = (struct lr_cdynp_entry) { 4, { 0.75, 2.5, 0.125 } };

    for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) {
        struct lr_wire_msg m = {
            .type = documented[i].type, .id = 7, .job = 3, .compute = 1e15,
            .batch = 32, .micro = 2, .elem_bytes = 2, .n_layers = 2,
            .layers = layers, .objective = LR_CDYNP_TIME, .assumed = 4,
            .position = 1, .lo = 2, .hi = 5, .link = { 1.25e9, 1e-3 },
            .has_summary = 1, .summary = sum, .last = 5, .first = 3,
            .prev_last = 2, .n_stages = 2, .code = ENOENT,
        };
        snprintf(m.name, sizeof m.name, "dc\"1\n");
        snprintf(m.text, sizeof m.text, "no \\ way");
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        lr_agent_record(f, &m);
        fclose(f);
        /* One line, valid JSON, the documented keys and nothing else. */
        CU_ASSERT(len > 0 && buf[len - 1] == '\n');
        CU_ASSERT_PTR_EQUAL(strchr(buf, '\n'), buf + len - 1);
        json_object *o = json_tokener_parse(buf);
        CU_ASSERT_PTR_NOT_NULL(o);
        if (o) {
            char keys[512];
            keys_of(o, keys, sizeof keys);
            if (strcmp(keys, documented[i].fields))
                fprintf(stderr, "%s: keys '%s', documented '%s'\n",
                        lr_wire_type_name(m.type), keys,
                        documented[i].fields);
            CU_ASSERT_STRING_EQUAL(keys, documented[i].fields);
            CU_ASSERT_STRING_EQUAL(json_object_get_string(
                                       json_object_object_get(o, "type")),
                                   lr_wire_type_name(m.type));
            if (m.type == LR_WIRE_HELLO_OK)
                CU_ASSERT_STRING_EQUAL(json_object_get_string(
                                           json_object_object_get(o, "name")),
                                       "dc\"1\n");
            if (m.type == LR_WIRE_STEP) {
                json_object *s = json_object_object_get(o, "summary");
                json_object *e = json_object_object_get(s, "entries");
                CU_ASSERT_EQUAL(json_object_array_length(e), 2);
                CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(
                    json_object_array_get_idx(
                        json_object_array_get_idx(e, 1), 3)), 0.125, 0);
            }
            json_object_put(o);
        }
        free(buf);
    }
    free(sum);
}

static void
test_new_refusals(void)
{
    char err[512] = "";
    CU_ASSERT_PTR_NULL(lr_agent_party_new("127.0.0.1", 0, "dc1", "c", "k",
                                          "a", 1, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "port in 1..65535"));
    err[0] = '\0';
    CU_ASSERT_PTR_NULL(lr_agent_party_new("127.0.0.1", 7001, "dc1",
                                          "/nonexistent/c.pem", "k", "a", 1,
                                          err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "TLS certificate '/nonexistent/c.pem'"));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

/* A party whose agent is not listening: the first call fails with the
 * reason, the next ones at once with the same, until a new job. */
static void
test_unreachable(void)
{
    char cert[1024], key[1024], err[512];
    /* Any certificate and key will do: the connection never gets as far
     * as the handshake. */
    snprintf(cert, sizeof cert, "/tmp/lr-test-party-%d.pem", (int) getpid());
    snprintf(key, sizeof key, "/tmp/lr-test-party-%d.key", (int) getpid());
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "openssl req -x509 -newkey ec -pkeyopt "
             "ec_paramgen_curve:P-256 -nodes -keyout %s -out %s -days 1 "
             "-subj /CN=coordinator >/dev/null 2>&1", key, cert);
    if (system(cmd) != 0) {
        fprintf(stderr, "openssl cannot make a certificate: skipped\n");
        return;
    }
    struct lr_instance in;
    struct lr_tm *tm = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_instance_random(1, &in), 0);
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(in.model, in.cluster, &in.train, &tm), 0);
    /* Port 1 on loopback: nobody listens there. */
    struct lr_cdynp_party *p = lr_agent_party_new("127.0.0.1", 1, "dc1",
                                                  cert, key, cert, 2, err,
                                                  sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(lr_agent_party_is(p));
    CU_ASSERT_PTR_NULL(lr_agent_party_error(p));
    lr_agent_party_set_job(p, tm);
    double flops;
    CU_ASSERT_EQUAL(p->cls->compute(p, &flops), ECONNREFUSED);
    const char *why = lr_agent_party_error(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_STRING_EQUAL(why, "connect to 127.0.0.1 port 1: Connection "
                                "refused");
    CU_ASSERT(!lr_agent_party_connected(p));
    int prev;
    CU_ASSERT_EQUAL(p->cls->backtrack(p, LR_CDYNP_LEX, 1, 0, &prev),
                    ECONNREFUSED);
    lr_agent_party_set_job(p, tm);
    CU_ASSERT_PTR_NULL(lr_agent_party_error(p));
    struct lr_cdynp_party *parties[1] = { p };
    lr_agent_parties_connect(parties, 1);
    CU_ASSERT_PTR_NOT_NULL(lr_agent_party_error(p));
    CU_ASSERT_EQUAL(p->cls->compute(p, &flops), ECONNREFUSED);
    p->cls->free(p);
    lr_tm_free(tm);
    lr_instance_free(&in);
    unlink(cert);
    unlink(key);
}

static CU_TestInfo tests[] = {
    { "record fields", test_record_fields },
    { "new refusals", test_new_refusals },
    { "unreachable agent", test_unreachable },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("agent party", tests)
