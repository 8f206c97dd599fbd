/*
 * fake-lightraild: just enough of lightraild's RESTCONF API, on
 * nb_server, for the client tests (tests/cli/client.sh) to run without
 * the controller: canned jobs, topology and spectrum, and the refusals
 * the client must turn into exit codes.
 *
 *   fake-lightraild --port-file FILE [--tls CERT KEY]
 *
 * Listens on 127.0.0.1 (any free port, written to FILE once listening)
 * and accepts the bearer token "test-token".  Submitted jobs are not
 * stored: the answer echoes the intent with a canned plan, except
 *   model "llama2-70b"   -> 201, phase blocked (memory)
 *   name "dup"           -> 409 data-exists
 *   no name or no model  -> 400 invalid-value
 * Known jobs: "gpt-a" (active), "a b/c" (blocked) and "gpt-f" (failed,
 * its plan kept); the rest is 404.
 * Stops on SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "northbound/nb_server.h"

#define JOB_PREFIX "/restconf/data/lightrail-job:jobs/job="

static const char gpt_a[] =
    "{\"name\":\"gpt-a\",\"model\":\"gpt-1.9b\",\"batch\":32,\"microbatch\":1,"
    "\"gpus\":{\"min\":1,\"max\":16},\"algorithm\":\"cdynp\","
    "\"state\":{\"phase\":\"active\",\"iteration-time-s\":\"0.432100\","
    "\"stage\":[{\"index\":1,\"first-layer\":1,\"last-layer\":20,\"dc\":\"dc1\","
    "\"devices\":8,\"time-s\":\"0.012000\"},{\"index\":2,\"first-layer\":21,"
    "\"last-layer\":36,\"dc\":\"dc2\",\"devices\":4,\"time-s\":\"0.011500\"}],"
    "\"lightpath\":[{\"index\":1,\"from-dc\":\"dc1\",\"to-dc\":\"dc2\","
    "\"link\":[\"r1-r2\",\"r2-r3\"],\"length-km\":\"55.000\","
    "\"modulation\":\"16QAM\",\"first-slot\":0,\"slots\":4,\"n\":-30,\"m\":2,"
    "\"capacity-gbps\":\"200.0\",\"gosnr\":\"21.50\","
    "\"modulation-mismatch\":\"measured 21.5 dB at provisioning, below "
    "16QAM's 22.4 dB threshold in the modulation table\"}]}}";
static const char blocked[] =
    "{\"name\":\"a b/c\",\"model\":\"llama2-70b\",\"state\":{\"phase\":"
    "\"blocked\",\"reason\":\"memory: layer 1 alone needs 90.1 GB per device\"}}";
static const char failed[] =
    "{\"name\":\"gpt-f\",\"model\":\"gpt-1.9b\",\"gpus\":{\"min\":4,"
    "\"max\":32},\"state\":{\"phase\":\"failed\",\"reason\":\"ROADM r6 "
    "refused the lightpaths\",\"stage\":[{\"index\":1,\"first-layer\":1,"
    "\"last-layer\":36,\"dc\":\"dc1\",\"devices\":16,\"time-s\":"
    "\"0.007158\"}]}}";
static const char networks[] =
    "{\"ietf-network:networks\":{\"network\":[{\"network-id\":\"metro\","
    "\"node\":[{\"node-id\":\"r1\",\"lightrail-topology:roadm\":{\"name\":"
    "\"ROADM R1\"},\"lightrail-topology:dc-attachment\":[{\"dc\":\"dc1\"}]},"
    "{\"node-id\":\"r2\"}],\"ietf-network-topology:link\":[{\"link-id\":"
    "\"r1-r2\",\"source\":{\"source-node\":\"r1\"},\"destination\":"
    "{\"dest-node\":\"r2\"},\"lightrail-topology:length-km\":\"25\","
    "\"lightrail-topology:slots\":320}]}]}}";
static const char state[] =
    "{\"lightrail-state:state\":{\"link\":["
    "{\"id\":\"a-b\",\"slots\":12,\"used\":6,\"channel\":[{\"first-slot\":0,"
    "\"slots\":4,\"job\":\"gpt-a\"},{\"first-slot\":8,\"slots\":2,\"job\":"
    "\"gpt-b\"}]},"
    "{\"id\":\"r1-r2\",\"slots\":250,\"used\":3,\"channel\":[{\"first-slot\":"
    "99,\"slots\":3,\"job\":\"gpt-a\"}]},"
    "{\"id\":\"r2-r3\",\"slots\":8,\"used\":0}],"
    "\"dc\":[{\"name\":\"dc1\",\"devices\":16,\"in-use\":8}],"
    "\"counters\":{\"jobs-active\":\"1\",\"admissions\":\"3\"}}}";

static struct event_base *base;

static void
reply(struct nb_response *resp, int status, const char *fmt, const char *s)
{
    size_t n = strlen(fmt) + (s ? strlen(s) : 0) + 1;
    resp->status = status;
    if ((resp->body = malloc(n)))
        snprintf(resp->body, n, fmt, s ? s : "");
}

static void
h_jobs_get(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    char *both = malloc(sizeof gpt_a + sizeof blocked + sizeof failed + 2);
    if (!both) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    sprintf(both, "%s,%s,%s", gpt_a, blocked, failed);
    reply(resp, 200, "{\"lightrail-job:jobs\":{\"job\":[%s]}}", both);
    free(both);
}

static void
h_jobs_post(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    json_object *top = json_tokener_parse(rq->body), *list, *job, *v;
    if (!top || !json_object_object_get_ex(top, "lightrail-job:job", &list)
        || json_object_array_length(list) != 1) {
        nb_error(resp, 400, "malformed-message", NULL,
                 "want {\"lightrail-job:job\":[{...}]}");
        goto cleanup;
    }
    job = json_object_array_get_idx(list, 0);
    const char *name = json_object_object_get_ex(job, "name", &v)
                       ? json_object_get_string(v) : NULL;
    const char *model = json_object_object_get_ex(job, "model", &v)
                        ? json_object_get_string(v) : NULL;
    if (!name || !model || !*model) {
        nb_error(resp, 400, "invalid-value", "/lightrail-job:jobs/job",
                 "a job needs a name and a model");
        goto cleanup;
    }
    if (!strcmp(name, "dup")) {
        nb_error(resp, 409, "data-exists", NULL, "job '%s' exists", name);
        goto cleanup;
    }
    json_object *st = json_object_new_object();
    bool big = !strcmp(model, "llama2-70b");
    json_object_object_add(st, "phase",
                           json_object_new_string(big ? "blocked" : "active"));
    if (big)
        json_object_object_add(st, "reason", json_object_new_string(
            "memory: layer 1 alone needs 90.1 GB per device"));
    else
        json_object_object_add(st, "iteration-time-s",
                               json_object_new_string("1.250000"));
    json_object_object_add(job, "state", st);
    resp->status = 201;
    resp->body = strdup(json_object_to_json_string_ext(
        top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));

cleanup:
    json_object_put(top);
}

static void
h_job(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    const char *name = rq->path + strlen(JOB_PREFIX);
    const char *j = !strcmp(name, "gpt-a") ? gpt_a
                    : !strcmp(name, "a b/c") ? blocked
                    : !strcmp(name, "gpt-f") ? failed : NULL;
    if (!j) {
        nb_error(resp, 404, "invalid-value", NULL, "no job named '%s'", name);
        return;
    }
    if (rq->method == NB_DELETE)
        resp->status = 204;
    else
        reply(resp, 200, "{\"lightrail-job:job\":[%s]}", j);
}

static void
h_networks(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    reply(resp, 200, "%s", networks);
}

static void
h_state(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    reply(resp, 200, "%s", state);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
    event_base_loopbreak(base);
}

int
main(int argc, char **argv)
{
    static const struct nb_route routes[] = {
        { NB_GET, "/restconf/data/lightrail-job:jobs", h_jobs_get,
          false, NULL, false, NULL, NULL },
        { NB_POST, "/restconf/data/lightrail-job:jobs", h_jobs_post,
          false, NULL, false, NULL, NULL },
        { NB_GET | NB_DELETE, JOB_PREFIX, h_job,
          false, NULL, false, NULL, NULL },
        { NB_GET, "/restconf/data/ietf-network:networks", h_networks,
          false, NULL, false, NULL, NULL },
        { NB_GET, "/restconf/data/lightrail-state:state", h_state,
          false, NULL, false, NULL, NULL },
    };
    static const struct nb_token tokens[] = { { "tester", "test-token" } };
    struct nb_server_config cfg = {
        .address = "127.0.0.1", .tokens = tokens, .n_tokens = 1,
    };
    struct nb_server *srv = NULL;
    struct event *sigterm = NULL, *sigint = NULL;
    const char *port_file = NULL;
    char err[512];
    int rc = 1;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--port-file") && i + 1 < argc) {
            port_file = argv[++i];
        } else if (!strcmp(argv[i], "--tls") && i + 2 < argc) {
            cfg.tls = true;
            cfg.cert_file = argv[++i];
            cfg.key_file = argv[++i];
        } else {
            fprintf(stderr, "usage: fake-lightraild --port-file FILE "
                    "[--tls CERT KEY]\n");
            return 2;
        }
    }
    if (!port_file || !(base = event_base_new()))
        return 2;
    /* As lightraild (controller/lightraild.c): a client that aborts its
     * handshake (a name its certificate does not hold) closes while
     * OpenSSL still writes, and SIGPIPE would end the process: the
     * cases of client.sh after it then met no server, now and then. */
    signal(SIGPIPE, SIG_IGN);
    if (nb_server_new(base, &cfg, routes, sizeof routes / sizeof routes[0],
                      NULL, &srv, err, sizeof err)) {
        fprintf(stderr, "fake-lightraild: %s\n", err);
        goto cleanup;
    }
    sigterm = evsignal_new(base, SIGTERM, on_signal, NULL);
    sigint = evsignal_new(base, SIGINT, on_signal, NULL);
    if (!sigterm || !sigint || evsignal_add(sigterm, NULL)
        || evsignal_add(sigint, NULL))
        goto cleanup;
    /* Written whole, then renamed: the test never reads half a number. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
    FILE *f = fopen(tmp, "w");
    bool written = f && fprintf(f, "%d\n", nb_server_port(srv)) > 0;
    if (f && fclose(f))
        written = false;
    if (!written || rename(tmp, port_file)) {
        perror(port_file);
        goto cleanup;
    }
    event_base_dispatch(base);
    rc = 0;

cleanup:
    if (sigterm)
        event_free(sigterm);
    if (sigint)
        event_free(sigint);
    nb_server_free(srv);
    event_base_free(base);
    return rc;
}
