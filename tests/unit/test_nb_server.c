/*
 * nb_server, driven over real sockets with libcurl.
 *
 * The suite's setup starts five servers on one event_base, served by a
 * thread of their own: plain HTTP on 127.0.0.1 (the route table below),
 * a second plain one that the drain test may ruin, a third that holds
 * CAPPED connections at most, and two HTTPS ones
 * with a self-signed certificate made by `openssl req` in a temporary
 * directory (one also takes client certificates).  The tests run curl
 * in the main thread.  The loop thread is stopped through a pipe, the
 * only thing the two threads share after setup, so no libevent locking
 * is needed.  Nothing asserts on time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <curl/curl.h>
#include <event2/event.h>
#include <json-c/json.h>

#include "northbound/nb_server.h"
#include "tests/lr_test.h"

#ifndef LR_OPENSSL_BIN
#define LR_OPENSSL_BIN "openssl"
#endif

#define TOKEN "s3cret-alice-0123456789"
#define MAX_BODY ((size_t) 1 << 20)
#define CAPPED 3

struct fixture {
    struct event_base *base;
    struct nb_server *plain, *drainable, *tls, *mtls;
    struct nb_server *capped;   /* plain, max_conns CAPPED */
    struct event *stop;
    int pipe[2];
    pthread_t loop;
    bool loop_started;
    bool have_tls;
    char dir[64];
    char server_crt[128], server_key[128], client_crt[128], client_key[128];
};
static struct fixture fx = { .pipe = { -1, -1 } };

/* What the plain server's nb_error_check saw last, written on the
 * loop's thread before the reply, read by the test after it. */
static struct {
    int calls, status;
    char body[1024];
} judged;

/* Judges as lightraild's would, but by status: a 409 is "invalid", so
 * that the refusals are counted. */
static bool
judge_error(void *arg, int status, const char *body)
{
    (void) arg;
    judged.calls++;
    judged.status = status;
    snprintf(judged.body, sizeof judged.body, "%s", body);
    return status != 409;
}

/* Handlers ---------------------------------------------------------------- */

static const char *
method_str(enum nb_method m)
{
    switch (m) {
    case NB_GET: return "GET";
    case NB_POST: return "POST";
    case NB_PUT: return "PUT";
    case NB_DELETE: return "DELETE";
    case NB_PATCH: return "PATCH";
    }
    return "?";
}

static void
reply_json(struct nb_response *resp, int status, json_object *j)
{
    resp->status = status;
    resp->body = strdup(json_object_to_json_string_ext(
        j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(j);
}

/* Says back what the server handed over. */
static void
h_echo(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "method", json_object_new_string(method_str(rq->method)));
    json_object_object_add(j, "path", json_object_new_string(rq->path));
    json_object_object_add(j, "query", rq->query ? json_object_new_string(rq->query) : NULL);
    json_object_object_add(j, "principal", json_object_new_string(rq->principal));
    json_object_object_add(j, "body", json_object_new_string_len(rq->body, (int) rq->body_len));
    json_object_object_add(j, "body-length", json_object_new_int64((int64_t) rq->body_len));
    reply_json(resp, 200, j);
}

/* The key after ".../job=", decoded by the server, and the path as
 * sent. */
static void
h_job(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    const char *key = strstr(rq->path, "job=") + 4;
    if (!*key) {
        nb_error(resp, 400, "missing-attribute", rq->path, "no job name");
        return;
    }
    json_object *j = json_object_new_object();
    json_object_object_add(j, "name", json_object_new_string(key));
    json_object_object_add(j, "raw-path", json_object_new_string(rq->raw_path));
    reply_json(resp, 200, j);
}

/* A refusal whose message needs escaping in JSON. */
static void
h_conflict(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    nb_error(resp, 409, "data-exists", "/test:jobs/job[name='a\"b']",
             "job \"%s\" exists\n\t(\\ and / too)", "a\"b");
}

static void
h_metrics(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    struct nb_server **srv = arg;
    size_t len = 0;
    resp->body = NULL;
    if (nb_server_metrics(*srv, &resp->body, &len)) {
        nb_error(resp, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4";
}

static void
h_drain(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    struct nb_server **srv = arg;
    nb_server_drain(*srv);
    resp->status = 204;
}

/* The deferred request of the tests below; the loop thread's only. */
static struct nb_pending *held;

static void
h_defer(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    if (held || !(held = nb_defer(rq)))
        nb_error(resp, 500, "operation-failed", NULL, "cannot defer");
}

/* How many requests wait, and whether the held one's client left. */
static void
h_held(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    struct nb_server **srv = arg;
    json_object *j = json_object_new_object();
    json_object_object_add(j, "pending", json_object_new_int(nb_server_pending(*srv)));
    json_object_object_add(j, "gone", json_object_new_boolean(held && nb_pending_gone(held)));
    reply_json(resp, 200, j);
}

static void
h_answer(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    struct nb_response late = { .status = 200, .body = strdup("{\"late\":true}") };
    if (!held) {
        nb_error(resp, 404, "invalid-value", NULL, "nothing held");
        return;
    }
    nb_pending_reply(held, &late);
    held = NULL;
    resp->status = 204;
}

/* Defers, then finds nothing to wait for and answers through the token
 * before returning; what it leaves in 'resp' must not be sent. */
static void
h_defer_now(void *arg, const struct nb_request *rq, struct nb_response *resp)
{
    struct nb_pending *p = nb_defer(rq);
    if (!p) {
        nb_error(resp, 500, "operation-failed", NULL, "cannot defer");
        return;
    }
    CU_ASSERT(!nb_pending_gone(p));
    CU_ASSERT_PTR_NULL(nb_defer(rq));   /* one token per request */
    struct nb_response now = { .status = 201, .body = strdup("{\"now\":true}") };
    nb_pending_reply(p, &now);
    CU_ASSERT_PTR_NULL(now.body);        /* the server took it */
    CU_ASSERT_PTR_NULL(nb_defer(rq));   /* answered: no second token */
    resp->status = 500;
}

/* The row "/test/ds/" serves the store 'a' alone: any other name is
 * 404 from the row's nb_exists, whatever the method or query.  Its
 * resource 'c' takes content, not the row's depth; none of 'a' takes
 * origin, which the store b would (with advice). */
static bool
test_ds_exists(void *arg, const struct nb_request *rq,
               struct nb_query_rule *rule, struct nb_response *resp)
{
    const char *name = rq->path + strlen("/test/ds/");
    if (!strcmp(name, "a/c"))
        rule->taken = "content";
    rule->refused = "origin";
    rule->advice = "applies to the store b only: send it there";
    if (!strcmp(name, "a") || !strncmp(name, "a/", 2))
        return true;
    nb_error(resp, 404, "invalid-value", rq->path, "no store '%s': this "
             "server has a", name);
    return false;
}

static const struct nb_route routes[] = {
    { NB_GET | NB_POST, "/restconf/data/test:echo", h_echo, false,
      "depth content", false, NULL, NULL },
    { NB_GET | NB_DELETE, "/restconf/data/test:jobs/job=", h_job, false, NULL,
      false, "POST jobs to /restconf/data/test:jobs", NULL },
    { NB_GET, "/restconf/data/test:conflict", h_conflict, false, NULL, false,
      NULL, NULL },
    { NB_GET, "/metrics", h_metrics, true, NULL, false, NULL, NULL },
    { NB_GET, "/restconf", h_echo, false, NULL, false, NULL, NULL },
    { NB_GET, "/restconfig", h_echo, false, NULL, false, NULL, NULL },
    { NB_POST, "/test/drain", h_drain, false, NULL, false, NULL, NULL },
    { NB_GET, "/test/defer", h_defer, false, NULL, false, NULL, NULL },
    { NB_GET, "/test/defer-now", h_defer_now, false, NULL, false, NULL, NULL },
    { NB_GET, "/test/held", h_held, false, NULL, false, NULL, NULL },
    { NB_POST, "/test/answer", h_answer, false, NULL, false, NULL, NULL },
    { NB_GET, "/test/ds/", h_echo, false, "depth", false, "read only",
      test_ds_exists },
    /* One resource, two rows: its methods take different parameters. */
    { NB_GET, "/test/pair", h_echo, false, "depth", false, NULL, NULL },
    { NB_POST, "/test/pair", h_echo, false, "dry-run", false, NULL, NULL },
};
#define N_ROUTES ((int) (sizeof routes / sizeof routes[0]))

static const struct nb_token tokens[] = {
    { "bob", "another-secret-for-bob" },
    { "alice", TOKEN },
};

/* Setup and teardown ------------------------------------------------------ */

static void
on_stop(evutil_socket_t fd, short what, void *arg)
{
    event_base_loopbreak(fx.base);
}

static void *
loop_main(void *arg)
{
    event_base_dispatch(fx.base);
    return NULL;
}

static int
make_certs(void)
{
    char cmd[1024];
    strcpy(fx.dir, "/tmp/lr-nb-test.XXXXXX");
    if (!mkdtemp(fx.dir))
        return errno;
    snprintf(fx.server_crt, sizeof fx.server_crt, "%s/server.crt", fx.dir);
    snprintf(fx.server_key, sizeof fx.server_key, "%s/server.key", fx.dir);
    snprintf(fx.client_crt, sizeof fx.client_crt, "%s/client.crt", fx.dir);
    snprintf(fx.client_key, sizeof fx.client_key, "%s/client.key", fx.dir);
    if (!strcmp(LR_OPENSSL_BIN, "no"))
        return ENOENT;
    snprintf(cmd, sizeof cmd,
             "'%s' req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
             "-nodes -days 2 -subj /CN=127.0.0.1 "
             "-addext subjectAltName=IP:127.0.0.1 -keyout '%s' -out '%s' "
             ">/dev/null 2>&1 && "
             "'%s' req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
             "-nodes -days 2 -subj /CN=carol -keyout '%s' -out '%s' "
             ">/dev/null 2>&1",
             LR_OPENSSL_BIN, fx.server_key, fx.server_crt,
             LR_OPENSSL_BIN, fx.client_key, fx.client_crt);
    return system(cmd) ? ENOENT : 0;
}

static int
start(struct nb_server **out, bool tls, bool client_ca, int max_conns)
{
    struct nb_server_config c = {
        .max_conns = max_conns,
        .address = "127.0.0.1", .port = 0, .tls = tls,
        .cert_file = tls ? fx.server_crt : NULL,
        .key_file = tls ? fx.server_key : NULL,
        .client_ca_file = client_ca ? fx.client_crt : NULL,
        .tokens = tokens, .n_tokens = 2, .max_body = MAX_BODY,
    };
    char err[512];
    /* Handlers get the address of the server pointer, filled below
     * before the loop thread starts. */
    int rc = nb_server_new(fx.base, &c, routes, N_ROUTES, out, out, err,
                           sizeof err);
    if (rc)
        fprintf(stderr, "nb_server_new: %s\n", err);
    return rc;
}

static int
setup(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) || !(fx.base = event_base_new())
        || pipe(fx.pipe))
        return 1;
    if (start(&fx.plain, false, false, 0) || start(&fx.drainable, false, false, 0)
        || start(&fx.capped, false, false, CAPPED))
        return 1;
    nb_server_set_error_check(fx.plain, judge_error, NULL);
    if (make_certs() == 0) {
        if (start(&fx.tls, true, false, 0) || start(&fx.mtls, true, true, 0))
            return 1;
        fx.have_tls = true;
    } else {
        fprintf(stderr, "openssl (%s) could not make certificates: the "
                "HTTPS tests are skipped\n", LR_OPENSSL_BIN);
    }
    fx.stop = event_new(fx.base, fx.pipe[0], EV_READ, on_stop, NULL);
    if (!fx.stop || event_add(fx.stop, NULL)
        || pthread_create(&fx.loop, NULL, loop_main, NULL))
        return 1;
    fx.loop_started = true;
    return 0;
}

static int
teardown(void)
{
    if (fx.loop_started) {
        if (write(fx.pipe[1], "q", 1) != 1)
            return 1;
        pthread_join(fx.loop, NULL);
    }
    nb_server_free(fx.plain);
    nb_server_free(fx.drainable);
    nb_server_free(fx.capped);
    nb_server_free(fx.tls);
    nb_server_free(fx.mtls);
    if (fx.stop)
        event_free(fx.stop);
    if (fx.base)
        event_base_free(fx.base);
    close(fx.pipe[0]);
    close(fx.pipe[1]);
    if (fx.dir[0]) {
        unlink(fx.server_crt);
        unlink(fx.server_key);
        unlink(fx.client_crt);
        unlink(fx.client_key);
        rmdir(fx.dir);
    }
    curl_global_cleanup();
    return 0;
}

/* The client -------------------------------------------------------------- */

struct reply {
    CURLcode curl;
    long status;
    char *body;
    size_t len;
    char allow[128], www_auth[128], ctype[128];
};

struct call {
    const char *method;       /* NULL: GET */
    const char *token;        /* NULL: no Authorization header */
    const char *body;
    size_t body_len;
    const char *cacert;       /* HTTPS: the CA to trust */
    const char *cert, *key;   /* HTTPS: a client certificate */
    const char *ctype;        /* NULL: application/yang-data+json with a
                               * body */
    const char *accept;       /* NULL: no Accept header */
    const char *header;       /* one more header line, or NULL */
    long timeout_ms;          /* 0: none */
};

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    char *b = realloc(r->body, r->len + size * n + 1);
    if (!b)
        return 0;
    memcpy(b + r->len, p, size * n);
    r->len += size * n;
    b[r->len] = '\0';
    r->body = b;
    return size * n;
}

static size_t
on_body_discard(char *p, size_t size, size_t n, void *arg)
{
    return size * n;
}

static void
keep_header(const char *line, size_t n, const char *name, char *dst,
            size_t dstlen)
{
    size_t k = strlen(name);
    if (n <= k + 1 || strncasecmp(line, name, k) || line[k] != ':')
        return;
    line += k + 1;
    n -= k + 1;
    while (n && *line == ' ')
        line++, n--;
    while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        n--;
    snprintf(dst, dstlen, "%.*s", (int) n, line);
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    keep_header(p, size * n, "Allow", r->allow, sizeof r->allow);
    keep_header(p, size * n, "WWW-Authenticate", r->www_auth, sizeof r->www_auth);
    keep_header(p, size * n, "Content-Type", r->ctype, sizeof r->ctype);
    return size * n;
}

static void
fetch(const char *url, const struct call *c, struct reply *r)
{
    CURL *h = curl_easy_init();
    struct curl_slist *hdrs = NULL;
    char auth[256];
    memset(r, 0, sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    if (c->method && !strcmp(c->method, "HEAD"))
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    else if (c->method)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, c->method);
    if (c->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) c->body_len);
    }
    if (c->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token);
        hdrs = curl_slist_append(hdrs, auth);
    }
    /* No 100-continue round trip: the server reads what it is sent. */
    hdrs = curl_slist_append(hdrs, "Expect:");
    char ctype[128], accept[128];
    if (c->body) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s",
                 c->ctype ? c->ctype : "application/yang-data+json");
        hdrs = curl_slist_append(hdrs, ctype);
    }
    if (c->accept) {
        snprintf(accept, sizeof accept, "Accept: %s", c->accept);
        hdrs = curl_slist_append(hdrs, accept);
    }
    if (c->header)
        hdrs = curl_slist_append(hdrs, c->header);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    if (c->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->cacert);
    if (c->cert) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key);
    }
    if (c->timeout_ms)
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    r->curl = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(h);
}

static void
url_of(char *buf, size_t len, const struct nb_server *srv, bool https,
       const char *path)
{
    snprintf(buf, len, "%s://127.0.0.1:%d%s", https ? "https" : "http",
             nb_server_port(srv), path);
}

/* GET or another method on the plain server. */
static void
call_plain(const char *path, const struct call *c, struct reply *r)
{
    char url[512];
    url_of(url, sizeof url, fx.plain, false, path);
    fetch(url, c, r);
}

/* The error entry of an RFC 8040 body, or NULL; the caller puts '*top'. */
static json_object *
rfc8040_error(const struct reply *r, json_object **top)
{
    json_object *errors, *list, *e;
    *top = r->body ? json_tokener_parse(r->body) : NULL;
    if (!*top || !json_object_object_get_ex(*top, "ietf-restconf:errors", &errors)
        || !json_object_object_get_ex(errors, "error", &list)
        || json_object_array_length(list) != 1
        || !(e = json_object_array_get_idx(list, 0)))
        return NULL;
    return e;
}

static const char *
field(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* Asserts an error reply: status, type, tag. */
static void
expect_error(const struct reply *r, long status, const char *type,
             const char *tag)
{
    json_object *top;
    json_object *e = rfc8040_error(r, &top);
    CU_ASSERT_EQUAL(r->curl, CURLE_OK);
    CU_ASSERT_EQUAL(r->status, status);
    CU_ASSERT_PTR_NOT_NULL(e);
    CU_ASSERT_STRING_EQUAL(r->ctype, "application/yang-data+json");
    if (e) {
        CU_ASSERT_STRING_EQUAL(field(e, "error-type"), type);
        CU_ASSERT_STRING_EQUAL(field(e, "error-tag"), tag);
        CU_ASSERT_PTR_NOT_NULL(field(e, "error-message"));
    } else {
        fprintf(stderr, "not an RFC 8040 error body: %s\n", r->body ? r->body : "(none)");
    }
    json_object_put(top);
}

/* Tests ------------------------------------------------------------------- */

static void
test_token_ok(void)
{
    struct reply r;
    struct call c = { .token = TOKEN };
    call_plain("/restconf/data/test:echo", &c, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_STRING_EQUAL(r.ctype, "application/yang-data+json");
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "principal"), "alice");
    CU_ASSERT_STRING_EQUAL(field(j, "method"), "GET");
    CU_ASSERT_STRING_EQUAL(field(j, "path"), "/restconf/data/test:echo");
    CU_ASSERT_PTR_NULL(field(j, "query"));
    json_object_put(j);
    free(r.body);
}

static void
test_post_body_and_query(void)
{
    static const char body[] = "{\"test:x\":{\"y\":\"1\"}}";
    struct reply r;
    struct call c = { .method = "POST", .token = "another-secret-for-bob",
                      .body = body, .body_len = strlen(body) };
    call_plain("/restconf/data/test:echo?depth=2&content=all", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "principal"), "bob");
    CU_ASSERT_STRING_EQUAL(field(j, "method"), "POST");
    CU_ASSERT_STRING_EQUAL(field(j, "query"), "depth=2&content=all");
    CU_ASSERT_STRING_EQUAL(field(j, "body"), body);
    json_object_put(j);
    free(r.body);
}

/* RFC 8040, 4.8: a query parameter the resource does not take, or one
 * given twice, is 400 invalid-value before the handler runs. */
static void
test_query_parameters_checked(void)
{
    static const char *const bad[] = {
        "/restconf/data/test:echo?colour=red",
        "/restconf/data/test:echo?depth=1&depth=2",
        "/restconf/data/test:echo?=1",
        "/restconf/data/test:echo?dept",
        "/restconf/data/test:echo?%ff",
        "/restconf/data/test:conflict?depth=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct reply r;
        struct call c = { .method = "GET",
                          .token = "another-secret-for-bob" };
        call_plain(bad[i], &c, &r);
        CU_ASSERT_EQUAL(r.status, 400);
        json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
        CU_ASSERT_PTR_NOT_NULL(j);
        CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "invalid-value"));
        CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "query parameter"));
        json_object_put(j);
        free(r.body);
    }
    struct reply r;
    struct call c = { .method = "GET", .token = "another-secret-for-bob" };
    call_plain("/restconf/data/test:echo?content=all&&depth&", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
}

/* RFC 3986 6.2.2.2: a parameter's name and value reach the handler
 * percent-decoded ('+' stays '+': no form decoding), so %64epth=%32 is
 * depth=2, also when it comes twice; a broken escape or a control
 * character is 400 malformed-message naming the parameter, an escaped
 * '&' in a value 400 invalid-value. */
static void
test_query_decoded(void)
{
    static const struct {
        const char *query, *tag, *says;
    } bad[] = {
        { "depth=1&%64epth=2", "invalid-value",
          "a repeated query parameter 'depth'" },
        { "%64epth=1&depth", "invalid-value",
          "a repeated query parameter 'depth'" },
        { "%63olour=red", "invalid-value",
          "an unknown query parameter 'colour'" },
        { "depth=%G1", "malformed-message", "the query's depth has a "
          "malformed percent-escape or a control character in its value "
          "'%G1': send each escape as '%' and two hex digits" },
        { "depth=%3", "malformed-message", "value '%3'" },
        { "depth=1%3&content=all", "malformed-message", "value '1%3'" },
        { "depth=%00", "malformed-message", "value '%00'" },
        { "depth=%0a", "malformed-message", "value '%0a'" },
        { "dep%7", "malformed-message", "the query parameter 'dep%7' has "
          "a malformed percent-escape" },
        { "de%00pth=1", "malformed-message", "parameter 'de%00pth'" },
        { "depth=1%262", "invalid-value", "an escaped '&'" },
        { "=1", "invalid-value", "a query parameter without a name: this "
          "resource takes only depth content" },
        { "depth=1&=", "invalid-value", "a query parameter without a name" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char url[128];
        struct reply r;
        struct call c = { .method = "GET",
                          .token = "another-secret-for-bob" };
        snprintf(url, sizeof url, "/restconf/data/test:echo?%s",
                 bad[i].query);
        call_plain(url, &c, &r);
        expect_error(&r, 400, "protocol", bad[i].tag);
        if (!r.body || !strstr(r.body, bad[i].says))
            fprintf(stderr, "?%s: %s\n", bad[i].query,
                    r.body ? r.body : "(none)");
        CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, bad[i].says));
        free(r.body);
    }
    struct reply r;
    struct call c = { .method = "GET", .token = "another-secret-for-bob" };
    call_plain("/restconf/data/test:echo?%64ept%68=%32&&content=a+%2Bb%3D",
               &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "query"), "depth=2&&content=a++b=");
    json_object_put(j);
    free(r.body);
}

/* A route without validators (test:jobs/job=): no entity-tag can match
 * it, so If-Match other than '*' is 412 and the handler does not run
 * (it would answer 200); '*' and If-Unmodified-Since let it run. */
static void
test_if_match_untagged(void)
{
    static const struct {
        const char *method, *header;
        long status;
        const char *says;
    } cases[] = {
        { "DELETE", "If-Match: \"stale\"", 412, "this resource has no "
          "entity-tag, so no tag in If-Match can match it: If-Match can "
          "only be '*' here; send the request without If-Match" },
        { "GET", "If-Match: W/\"x\", \"y\"", 412, "has no entity-tag" },
        { "DELETE", "If-Match: stale", 412, "has no entity-tag" },
        { "DELETE", "If-Match: *", 200, NULL },
        { "DELETE", "If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT", 200,
          NULL },
        { "DELETE", NULL, 200, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct reply r;
        struct call c = { .method = cases[i].method, .token = TOKEN,
                          .header = cases[i].header };
        call_plain("/restconf/data/test:jobs/job=a", &c, &r);
        CU_ASSERT_EQUAL(r.status, cases[i].status);
        if (cases[i].says)
            expect_error(&r, 412, "application", "operation-failed");
        else
            CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "\"a\""));
        if (cases[i].says && (!r.body || !strstr(r.body, cases[i].says)))
            fprintf(stderr, "%s: %s\n", cases[i].header,
                    r.body ? r.body : "(none)");
        CU_ASSERT_PTR_NOT_NULL(!cases[i].says
                               || (r.body && strstr(r.body, cases[i].says)));
        free(r.body);
    }
}

static void
test_no_or_wrong_token(void)
{
    static const char *const wrong[] = {
        "s3cret-alice-012345678",       /* a prefix */
        TOKEN "9",                      /* longer */
        "S3CRET-ALICE-0123456789",      /* case */
        "x",
    };
    struct reply r;
    struct call none = { 0 };
    call_plain("/restconf/data/test:echo", &none, &r);
    expect_error(&r, 401, "protocol", "access-denied");
    CU_ASSERT_EQUAL(strncmp(r.www_auth, "Bearer", 6), 0);
    CU_ASSERT_PTR_NULL(strstr(r.www_auth, "invalid_token"));
    free(r.body);
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        struct call c = { .token = wrong[i] };
        call_plain("/restconf/data/test:echo", &c, &r);
        expect_error(&r, 401, "protocol", "access-denied");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.www_auth, "invalid_token"));
        free(r.body);
    }
    /* Unknown paths and wrong methods too: strangers learn nothing. */
    call_plain("/nowhere", &none, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    free(r.body);
}

static void
test_public_route(void)
{
    struct reply r;
    struct call c = { 0 };
    call_plain("/metrics", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_STRING_EQUAL(r.ctype, "text/plain; version=0.0.4");
    free(r.body);
    /* A wrong token on a public route is no reason to refuse. */
    struct call w = { .token = "wrong" };
    call_plain("/metrics", &w, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
}

static void
test_not_found(void)
{
    struct reply r;
    struct call c = { .token = TOKEN };
    call_plain("/restconf/data/test:nothing", &c, &r);
    expect_error(&r, 404, "protocol", "invalid-value");
    free(r.body);
    /* An exact row does not match a longer path. */
    call_plain("/restconf/data/test:echo/more", &c, &r);
    CU_ASSERT_EQUAL(r.status, 404);
    free(r.body);
}

static void
test_method_not_allowed(void)
{
    struct reply r;
    struct call c = { .method = "PUT", .token = TOKEN, .body = "{}", .body_len = 2 };
    call_plain("/restconf/data/test:echo", &c, &r);
    expect_error(&r, 405, "protocol", "operation-not-supported");
    CU_ASSERT_STRING_EQUAL(r.allow, "GET, HEAD, POST, OPTIONS");
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "allowed: GET, HEAD, "
                                            "POST, OPTIONS\""));
    free(r.body);
    /* A row's words on where else to go follow the methods it takes. */
    struct call p = { .method = "PATCH", .token = TOKEN, .body = "{}", .body_len = 2 };
    call_plain("/restconf/data/test:jobs/job=x", &p, &r);
    expect_error(&r, 405, "protocol", "operation-not-supported");
    CU_ASSERT_STRING_EQUAL(r.allow, "GET, HEAD, DELETE, OPTIONS");
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "allowed: GET, HEAD, "
                                            "DELETE, OPTIONS: POST jobs to "
                                            "/restconf/data/test:jobs\""));
    free(r.body);
    /* Methods libevent would answer 501 for get our 405 too. */
    struct call t = { .method = "TRACE", .token = TOKEN };
    call_plain("/restconf/data/test:echo", &t, &r);
    CU_ASSERT_EQUAL(r.status, 405);
    free(r.body);
    /* OPTIONS lists them. */
    struct call o = { .method = "OPTIONS", .token = TOKEN };
    call_plain("/restconf/data/test:echo", &o, &r);
    CU_ASSERT_EQUAL(r.status, 204);
    CU_ASSERT_STRING_EQUAL(r.allow, "GET, HEAD, POST, OPTIONS");
    free(r.body);
    /* With a query, the query the resource takes (any of its
     * methods') as without one; one it does not take is the GET's 400,
     * no Allow (any query was 204). */
    call_plain("/restconf/data/test:echo?depth=1&content=all", &o, &r);
    CU_ASSERT_EQUAL(r.status, 204);
    CU_ASSERT_STRING_EQUAL(r.allow, "GET, HEAD, POST, OPTIONS");
    free(r.body);
    static const char *const refused[] = { "nope=1", "depth=1&depth=2",
                                           "=1", "de%ZZpth=1" };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char path[96];
        snprintf(path, sizeof path, "/restconf/data/test:echo?%s",
                 refused[i]);
        struct reply g;
        struct call get = { .method = "GET", .token = TOKEN };
        call_plain(path, &get, &g);
        call_plain(path, &o, &r);
        CU_ASSERT_EQUAL(g.status, 400);
        CU_ASSERT_EQUAL(r.status, g.status);
        CU_ASSERT_STRING_EQUAL(r.allow, "");
        CU_ASSERT_STRING_EQUAL(r.body ? r.body : "", g.body ? g.body : "-");
        if (r.status != 400)
            fprintf(stderr, "OPTIONS %s: %ld\n", path, r.status);
        free(g.body);
        free(r.body);
    }
}

/* A resource whose methods are rows of their own, each taking its
 * parameters (GET depth, POST dry-run): OPTIONS takes a parameter any
 * of its methods takes (204 with all of them in Allow), and answers
 * one none takes as the first row's GET (its 400, its list); each
 * method is judged by its own row. */
static void
test_options_rows(void)
{
    static const struct {
        const char *method, *query;
        long status;
        const char *allow;
    } cases[] = {
        { "OPTIONS", "dry-run", 204, "GET, HEAD, POST, OPTIONS" },
        { "OPTIONS", "depth=1", 204, "GET, HEAD, POST, OPTIONS" },
        { "OPTIONS", "nope=1", 400, "" },
        { "OPTIONS", "dry-run&dry-run", 400, "" },
        { "OPTIONS", "dry-run&depth=1", 400, "" },
        { "GET", "dry-run", 400, "" },
        { "POST", "dry-run", 200, "" },
        { "POST", "depth=1", 400, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[64];
        snprintf(path, sizeof path, "/test/pair?%s", cases[i].query);
        struct reply r;
        struct call c = { .method = cases[i].method, .token = TOKEN,
                          .body = "{}", .body_len = 2 };
        call_plain(path, &c, &r);
        CU_ASSERT_EQUAL(r.status, cases[i].status);
        CU_ASSERT_STRING_EQUAL(r.allow, cases[i].allow);
        if (r.status != cases[i].status)
            fprintf(stderr, "%s %s: %ld %s\n", cases[i].method, path,
                    r.status, r.body ? r.body : "");
        if (!strcmp(cases[i].method, "OPTIONS") && r.status == 400) {
            struct reply g;
            struct call get = { .method = "GET", .token = TOKEN };
            call_plain(path, &get, &g);
            CU_ASSERT_STRING_EQUAL(r.body ? r.body : "",
                                   g.body ? g.body : "-");
            free(g.body);
        }
        free(r.body);
    }
}

/* A row's nb_exists answers for a path it says names nothing before
 * OPTIONS, the method and the query are judged (they were 204, 405 and
 * 400 before), after authentication; a path it says is there goes on
 * as any row's, its query judged by what nb_exists says the resource
 * takes when it says (a/c: content, not the row's depth), OPTIONS'
 * too. */
static void
test_row_exists(void)
{
    static const struct {
        const char *method, *path;
        int status;
        const char *allow;
    } cases[] = {
        { "GET", "/test/ds/b", 404, NULL },
        { "OPTIONS", "/test/ds/b", 404, NULL },
        { "PUT", "/test/ds/b/x", 404, NULL },
        { "GET", "/test/ds/b?nope=1", 404, NULL },
        { "GET", "/test/ds/a?depth=1", 200, NULL },
        { "OPTIONS", "/test/ds/a/x", 204, "GET, HEAD, OPTIONS" },
        { "PUT", "/test/ds/a", 405, "GET, HEAD, OPTIONS" },
        { "GET", "/test/ds/a?nope=1", 400, NULL },
        { "GET", "/test/ds/a/c?content=config", 200, NULL },
        { "GET", "/test/ds/a/c?depth=1", 400, NULL },
        { "OPTIONS", "/test/ds/a/c?depth=1", 400, NULL },
        { "OPTIONS", "/test/ds/a/c?content=config", 204,
          "GET, HEAD, OPTIONS" },
        { "OPTIONS", "/test/ds/a?depth=1", 204, "GET, HEAD, OPTIONS" },
        { "OPTIONS", "/test/ds/a?nope=1", 400, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct reply r;
        struct call c = { .method = cases[i].method, .token = TOKEN,
                          .body = "{}", .body_len = 2 };
        call_plain(cases[i].path, &c, &r);
        CU_ASSERT_EQUAL(r.status, cases[i].status);
        if (cases[i].status == 404) {
            CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "no store "
                                                    "'b"));
        }
        /* The list is the resource's: c's, or the row's. */
        if (cases[i].status == 400) {
            CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, strstr(
                cases[i].path, "/a/c") ? "this resource takes only "
                "content\"" : "this resource takes only depth\""));
        }
        CU_ASSERT_STRING_EQUAL(r.allow, cases[i].allow ? cases[i].allow
                                                       : "");
        if (r.status != cases[i].status)
            fprintf(stderr, "%s %s: %ld %s\n", cases[i].method,
                    cases[i].path, r.status, r.body ? r.body : "");
        free(r.body);
    }
    /* A stranger learns nothing of it. */
    struct reply r;
    struct call c = { .method = "OPTIONS" };
    call_plain("/test/ds/b", &c, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    free(r.body);
}

/* A parameter a resource knows of but does not take (its nb_exists'
 * rule) is refused with the rule's advice before the list of what the
 * resource takes (the row's, or its exists'), however sent:
 * percent-encoded, with a value, twice, to OPTIONS.  Any other
 * parameter gets the generic words. */
static void
test_query_refused(void)
{
    static const struct {
        const char *method, *path, *body;
    } cases[] = {
        { "GET", "/test/ds/a?origin", "the query parameter 'origin' "
          "applies to the store b only: send it there; this resource "
          "takes only depth\"" },
        { "GET", "/test/ds/a?%6Frigin=1", "the query parameter 'origin' "
          "applies to the store b only: send it there; this resource "
          "takes only depth\"" },
        { "GET", "/test/ds/a?depth=1&origin&origin", "the query parameter "
          "'origin' applies to the store b only: send it there; this "
          "resource takes only depth\"" },
        { "OPTIONS", "/test/ds/a/c?origin", "the query parameter 'origin' "
          "applies to the store b only: send it there; this resource "
          "takes only content\"" },
        { "GET", "/test/ds/a?depth=1&depth=2", "a repeated query "
          "parameter 'depth': this resource takes only depth\"" },
        { "GET", "/test/ds/a?origins", "an unknown query parameter "
          "'origins': this resource takes only depth\"" },
        { "GET", "/restconf/data/test:echo?origin", "an unknown query "
          "parameter 'origin': this resource takes only depth content\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct reply r;
        struct call c = { .method = cases[i].method, .token = TOKEN };
        call_plain(cases[i].path, &c, &r);
        expect_error(&r, 400, "protocol", "invalid-value");
        CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, cases[i].body));
        CU_ASSERT_STRING_EQUAL(r.allow, "");
        if (!r.body || !strstr(r.body, cases[i].body))
            fprintf(stderr, "%s %s: %ld %s\n", cases[i].method,
                    cases[i].path, r.status, r.body ? r.body : "");
        free(r.body);
    }
}

static void
test_head(void)
{
    struct reply r;
    struct call c = { .method = "HEAD", .token = TOKEN };
    call_plain("/restconf/data/test:echo", &c, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_EQUAL(r.len, 0);
    free(r.body);
}

static void
test_body_too_large(void)
{
    size_t n = 2 * MAX_BODY;
    char *big = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, 'x', n);
    struct reply r;
    struct call c = { .method = "POST", .token = TOKEN, .body = big, .body_len = n };
    call_plain("/restconf/data/test:echo", &c, &r);
    expect_error(&r, 413, "protocol", "too-big");
    free(r.body);
    /* Exactly the limit is fine. */
    c.body_len = MAX_BODY;
    call_plain("/restconf/data/test:echo", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
    free(big);
    /* Beyond libevent's own limit (4 x ours) the 413 is libevent's. */
    n = 5 * MAX_BODY;
    big = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, 'y', n);
    c.body = big;
    c.body_len = n;
    call_plain("/restconf/data/test:echo", &c, &r);
    CU_ASSERT_EQUAL(r.status, 413);
    free(r.body);
    free(big);
}

static void
test_prefix_and_decoding(void)
{
    struct reply r;
    struct call c = { .token = TOKEN };
    call_plain("/restconf/data/test:jobs/job=a%20b%2Fc%3D", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "name"), "a b/c=");
    CU_ASSERT_STRING_EQUAL(field(j, "raw-path"),
                           "/restconf/data/test:jobs/job=a%20b%2Fc%3D");
    json_object_put(j);
    free(r.body);
    c.method = "DELETE";
    call_plain("/restconf/data/test:jobs/job=x+y", &c, &r);
    j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "name"), "x+y");
    json_object_put(j);
    free(r.body);
    /* The handler's own refusal: an application error. */
    c.method = NULL;
    call_plain("/restconf/data/test:jobs/job=", &c, &r);
    expect_error(&r, 400, "application", "missing-attribute");
    free(r.body);
    static const char *const bad[] = {
        "/restconf/data/test:jobs/job=%zz",
        "/restconf/data/test:jobs/job=%4",
        "/restconf/data/test:jobs/job=%",
        "/restconf/data/test:jobs/job=a%00b",
        "/restconf/data/test:jobs/job=a%0Ab",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        call_plain(bad[i], &c, &r);
        expect_error(&r, 400, "protocol", "malformed-message");
        free(r.body);
    }
}

static void
test_error_body_escaped(void)
{
    struct reply r;
    struct call c = { .token = TOKEN };
    json_object *top;
    call_plain("/restconf/data/test:conflict", &c, &r);
    expect_error(&r, 409, "application", "data-exists");
    json_object *e = rfc8040_error(&r, &top);
    CU_ASSERT_STRING_EQUAL(field(e, "error-message"),
                           "job \"a\"b\" exists\n\t(\\ and / too)");
    CU_ASSERT_STRING_EQUAL(field(e, "error-path"),
                           "/test:jobs/job[name='a\"b']");
    json_object_put(top);
    free(r.body);
}

/* Each error body the server sends goes to its nb_error_check first,
 * with its status: a refusal is counted in /metrics; a path that names
 * no resource is no instance-identifier, so its 404 and 405 carry no
 * error-path (ietf-restconf's yang-errors would refuse it). */
static void
test_error_check(void)
{
    struct reply r;
    struct call c = { .token = TOKEN };
    json_object *top;
    int before = judged.calls;
    call_plain("/restconf/data/nowhere", &c, &r);
    expect_error(&r, 404, "protocol", "invalid-value");
    CU_ASSERT_EQUAL(judged.calls, before + 1);
    CU_ASSERT_EQUAL(judged.status, 404);
    CU_ASSERT_STRING_EQUAL(judged.body, r.body ? r.body : "");
    json_object *e = rfc8040_error(&r, &top);
    CU_ASSERT_FALSE(json_object_object_get_ex(e, "error-path", NULL));
    json_object_put(top);
    free(r.body);
    c.method = "PATCH";
    call_plain("/restconf/data/test:echo", &c, &r);
    expect_error(&r, 405, "protocol", "operation-not-supported");
    e = rfc8040_error(&r, &top);
    CU_ASSERT_FALSE(json_object_object_get_ex(e, "error-path", NULL));
    json_object_put(top);
    free(r.body);
    /* A 2xx is no error body: not judged. */
    before = judged.calls;
    call_plain("/restconf/data/test:echo", &(struct call) {
        .token = TOKEN }, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_EQUAL(judged.calls, before);
    free(r.body);
    /* The handler's 409, "invalid" to this check: counted. */
    call_plain("/restconf/data/test:conflict", &(struct call) {
        .token = TOKEN }, &r);
    CU_ASSERT_EQUAL(judged.status, 409);
    free(r.body);
    call_plain("/metrics", &(struct call) { 0 }, &r);
    unsigned long n = 0;
    const char *p = r.body ? strstr(r.body, "\nlightrail_http_error_bodies_"
                                            "invalid_total ") : NULL;
    CU_ASSERT(p && sscanf(p, "\nlightrail_http_error_bodies_invalid_total "
                             "%lu", &n) == 1);
    CU_ASSERT(n >= 1);
    free(r.body);
}

static void
test_drain(void)
{
    char url[256];
    struct reply r;
    struct call c = { .token = TOKEN };
    url_of(url, sizeof url, fx.drainable, false, "/restconf/data/test:echo");
    fetch(url, &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
    struct call d = { .method = "POST", .token = TOKEN };
    url_of(url, sizeof url, fx.drainable, false, "/test/drain");
    fetch(url, &d, &r);
    CU_ASSERT_EQUAL(r.status, 204);
    free(r.body);
    static const char *const paths[] = {
        "/restconf/data/test:echo", "/metrics", "/nowhere",
    };
    for (size_t i = 0; i < 3; i++) {
        url_of(url, sizeof url, fx.drainable, false, paths[i]);
        fetch(url, &c, &r);
        expect_error(&r, 503, "protocol", "resource-denied");
        free(r.body);
    }
    /* The other server is not affected. */
    call_plain("/restconf/data/test:echo", &c, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
}

static void
test_https(void)
{
    char url[256];
    struct reply r;
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    url_of(url, sizeof url, fx.tls, true, "/restconf/data/test:echo");
    struct call c = { .token = TOKEN, .cacert = fx.server_crt };
    fetch(url, &c, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "principal"), "alice");
    json_object_put(j);
    free(r.body);
    /* Errors over TLS are the same JSON. */
    struct call none = { .cacert = fx.server_crt };
    fetch(url, &none, &r);
    expect_error(&r, 401, "protocol", "access-denied");
    free(r.body);
    /* A client that does not trust the certificate stops. */
    struct call untrusted = { .token = TOKEN, .cacert = fx.client_crt };
    fetch(url, &untrusted, &r);
    CU_ASSERT_NOT_EQUAL(r.curl, CURLE_OK);
    free(r.body);
    /* Clear text to the TLS port gets no answer. */
    url_of(url, sizeof url, fx.tls, false, "/restconf/data/test:echo");
    fetch(url, &c, &r);
    CU_ASSERT(r.curl != CURLE_OK || r.status != 200);
    free(r.body);
}

/* A GET with a token on 'h', a handle kept open between calls (its
 * connection kept alive): the status, and into '*connects' how many new
 * connections it took (0: the connection of the last call served it). */
static long
keepalive_get(CURL *h, const char *url, long *connects)
{
    static struct curl_slist *hdrs;
    long status = 0;
    if (!hdrs)
        hdrs = curl_slist_append(NULL, "Authorization: Bearer " TOKEN);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_CAINFO, fx.server_crt);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body_discard);
    *connects = -1;
    if (curl_easy_perform(h) != CURLE_OK)
        return 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, connects);
    return status;
}

/* How many of the 'n' sockets the server has closed (EOF or reset). */
static int
closed_by_server(const int *fds, int n)
{
    int closed = 0;
    char c;
    for (int i = 0; i < n; i++) {
        ssize_t r = recv(fds[i], &c, 1, MSG_DONTWAIT);
        closed += r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
    }
    return closed;
}

/* Strangers holding TLS connections open (no handshake, no request):
 * at most 64 connections are kept (each may hold a body of 4 x max_body
 * before its token is read), and past that a new one takes the place of
 * the oldest stranger's, so clients are still served and a client's
 * kept-alive connection stays.  Once 64 connections are all clients',
 * one more is refused at once. */
static void
test_tls_connection_cap(void)
{
    enum { STRANGERS = 80 };
    char url[256];
    struct reply r;
    int fds[STRANGERS];
    long connects;
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    url_of(url, sizeof url, fx.tls, true, "/restconf/data/test:echo");
    CURL *kept = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
    CU_ASSERT_EQUAL(keepalive_get(kept, url, &connects), 200);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t) nb_server_port(fx.tls)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    for (int i = 0; i < STRANGERS; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        CU_ASSERT_FATAL(fds[i] >= 0);
        CU_ASSERT_EQUAL_FATAL(connect(fds[i], (struct sockaddr *) &a,
                                      sizeof a), 0);
    }
    /* The strangers' connections past the 63 beside the client's are
     * closed, the oldest first, as the server accepts the others. */
    int closed = 0;
    for (int t = 0; t < 50 && closed < STRANGERS - 63; t++) {
        closed = closed_by_server(fds, STRANGERS);
        if (closed < STRANGERS - 63)
            usleep(100000);
    }
    CU_ASSERT(closed >= STRANGERS - 63);
    CU_ASSERT_EQUAL(closed_by_server(fds, 1), 1);
    struct call c = { .token = TOKEN, .cacert = fx.server_crt };
    fetch(url, &c, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
    CU_ASSERT_EQUAL(keepalive_get(kept, url, &connects), 200);
    CU_ASSERT_EQUAL(connects, 0);
    for (int i = 0; i < STRANGERS; i++)
        close(fds[i]);

    /* 64 clients, each with its connection kept alive: one more is
     * refused, and served once one of them has gone. */
    CURL *clients[64] = { kept };
    for (int i = 1; i < 64; i++) {
        clients[i] = curl_easy_init();
        CU_ASSERT_PTR_NOT_NULL_FATAL(clients[i]);
        CU_ASSERT_EQUAL(keepalive_get(clients[i], url, &connects), 200);
    }
    fetch(url, &c, &r);
    CU_ASSERT_NOT_EQUAL(r.curl, CURLE_OK);
    free(r.body);
    curl_easy_cleanup(clients[63]);
    clients[63] = NULL;
    bool served = false;
    for (int t = 0; t < 50 && !served; t++) {
        fetch(url, &c, &r);
        served = r.curl == CURLE_OK && r.status == 200;
        free(r.body);
        if (!served)
            usleep(100000);
    }
    CU_ASSERT(served);
    for (int i = 0; i < 64; i++)
        if (clients[i])
            curl_easy_cleanup(clients[i]);
}

/* A GET on the capped server, within 'timeout_ms': whether it got 200. */
static bool
capped_get(long timeout_ms)
{
    char url[256];
    struct reply r;
    struct call c = { .token = TOKEN, .timeout_ms = timeout_ms };
    url_of(url, sizeof url, fx.capped, false, "/restconf/data/test:echo");
    fetch(url, &c, &r);
    free(r.body);
    return r.curl == CURLE_OK && r.status == 200;
}

/* Plain HTTP holds CAPPED connections at most: past them a client waits
 * in the backlog, served as soon as one has closed.  libevent says
 * nothing when a connection without a request ends; the server counts
 * its sockets again, so closed ones must not hold their slots. */
static void
test_plain_connection_cap(void)
{
    int fds[CAPPED];
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t) nb_server_port(fx.capped)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    /* Slots given back: more connections one after the other than the
     * cap, each closed before the next, all served. */
    for (int i = 0; i < 3 * CAPPED; i++)
        CU_ASSERT(capped_get(20000));
    for (int i = 0; i < CAPPED; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        CU_ASSERT_FATAL(fds[i] >= 0);
        CU_ASSERT_EQUAL_FATAL(connect(fds[i], (struct sockaddr *) &a,
                                      sizeof a), 0);
    }
    /* The kernel accepts in order: the idle ones hold every slot.  (A
     * server without the cap answers this in milliseconds; this can
     * only pass wrongly, on a machine too slow to answer in 1.5 s.) */
    CU_ASSERT_FALSE(capped_get(1500));
    close(fds[0]);
    CU_ASSERT(capped_get(20000));
    for (int i = 1; i < CAPPED; i++)
        close(fds[i]);
    for (int i = 0; i < CAPPED; i++)
        CU_ASSERT(capped_get(20000));
}

/* A TLS server freed while a client's connection is open, then its
 * base, as lightraild stops (nb_server_free, event_base_free): libevent
 * frees the connection's SSL in event_base_free, after the server, and
 * the connection's record must not reach back into the freed server
 * (AddressSanitizer: heap-use-after-free in nb_ssl_gone). */
static void
test_tls_server_freed_with_connection(void)
{
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    struct event_base *base = event_base_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    struct nb_server_config cfg = {
        .address = "127.0.0.1", .port = 0, .tls = true,
        .cert_file = fx.server_crt, .key_file = fx.server_key,
        .tokens = tokens, .n_tokens = 2, .max_body = MAX_BODY,
    };
    struct nb_server *srv = NULL;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(nb_server_new(base, &cfg, routes, N_ROUTES, &srv,
                                        &srv, err, sizeof err), 0);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t) nb_server_port(srv)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *) &a, sizeof a), 0);
    /* A few turns of the loop: the server accepts, its TLS accept waits
     * for a ClientHello that does not come. */
    for (int i = 0; i < 20; i++) {
        event_base_loop(base, EVLOOP_NONBLOCK);
        usleep(10000);
    }
    nb_server_free(srv);
    event_base_free(base);
    close(fd);
}

static void
test_client_certificate(void)
{
    char url[256];
    struct reply r;
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    url_of(url, sizeof url, fx.mtls, true, "/restconf/data/test:echo");
    struct call c = { .cacert = fx.server_crt, .cert = fx.client_crt,
                      .key = fx.client_key };
    fetch(url, &c, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "principal"), "carol");
    json_object_put(j);
    free(r.body);
    /* The certificate is optional: a token still works. */
    struct call t = { .cacert = fx.server_crt, .token = TOKEN };
    fetch(url, &t, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
    /* A certificate the server does not trust ends the handshake. */
    struct call bad = { .cacert = fx.server_crt, .cert = fx.server_crt,
                        .key = fx.server_key, .token = TOKEN };
    fetch(url, &bad, &r);
    CU_ASSERT_NOT_EQUAL(r.curl, CURLE_OK);
    free(r.body);
}

static void
test_config_refused(void)
{
    static const char *const open_addrs[] = {
        "0.0.0.0", "192.0.2.1", "::", "localhost", "128.0.0.1",
    };
    /* A base of its own: the suite's belongs to the loop thread. */
    struct event_base *base = event_base_new();
    struct nb_server *s = NULL;
    char err[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    for (size_t i = 0; i < sizeof open_addrs / sizeof open_addrs[0]; i++) {
        struct nb_server_config c = { .address = open_addrs[i] };
        err[0] = '\0';
        CU_ASSERT_EQUAL(nb_server_new(base, &c, routes, N_ROUTES, NULL,
                                      &s, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "plain HTTP is allowed only on a "
                                      "loopback address"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, open_addrs[i]));
    }
    struct nb_server_config notls = { .address = "127.0.0.1", .tls = true };
    CU_ASSERT_EQUAL(nb_server_new(base, &notls, routes, N_ROUTES, NULL,
                                  &s, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "certificate"));
    struct nb_server_config missing = {
        .address = "127.0.0.1", .tls = true,
        .cert_file = "/nonexistent/server.crt", .key_file = "/nonexistent/k",
    };
    CU_ASSERT_EQUAL(nb_server_new(base, &missing, routes, N_ROUTES, NULL,
                                  &s, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/server.crt"));
    struct nb_route bad_route = { NB_GET, "no-slash", h_echo, false, NULL,
                                  false, NULL, NULL };
    struct nb_server_config ok = { .address = "127.0.0.1" };
    CU_ASSERT_EQUAL(nb_server_new(base, &ok, &bad_route, 1, NULL, &s,
                                  err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "route 0"));
    struct nb_server_config port = { .address = "127.0.0.1", .port = 70000 };
    CU_ASSERT_EQUAL(nb_server_new(base, &port, routes, N_ROUTES, NULL,
                                  &s, err, sizeof err), EINVAL);
    struct nb_server_config neg = { .address = "127.0.0.1", .max_conns = -1 };
    CU_ASSERT_EQUAL(nb_server_new(base, &neg, routes, N_ROUTES, NULL,
                                  &s, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "invalid arguments"));
    /* The port of a running server is taken. */
    struct nb_server_config busy = { .address = "127.0.0.1",
                                     .port = nb_server_port(fx.plain) };
    CU_ASSERT_EQUAL(nb_server_new(base, &busy, routes, N_ROUTES, NULL,
                                  &s, err, sizeof err), EADDRINUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot listen"));
    CU_ASSERT_PTR_NULL(s);
    event_base_free(base);
}

/* A certificate, key or client CA file that is a folder, holds no PEM
 * or PEM of the other kind is refused with the file and what is wrong
 * with it (lr_tls_file_reason()), not OpenSSL's "PEM lib". */
static void
test_tls_files_refused(void)
{
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    char notpem[160];
    snprintf(notpem, sizeof notpem, "%s/notpem.txt", fx.dir);
    FILE *f = fopen(notpem, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("hello\n", f);
    fclose(f);
    const char *crt = fx.server_crt, *key = fx.server_key;
    const struct {
        const char *cert, *key, *ca, *bad, *want;
    } cases[] = {
        { fx.dir, key, NULL, fx.dir, "TLS certificate '%s': Is a directory "
          "(want a PEM certificate chain)" },
        { notpem, key, NULL, notpem, "TLS certificate '%s': not a PEM "
          "certificate: no -----BEGIN line (want a PEM certificate chain)" },
        { key, key, NULL, key, "TLS certificate '%s': not a PEM "
          "certificate: its PEM blocks are 'PRIVATE KEY' (want a PEM "
          "certificate chain)" },
        { crt, fx.dir, NULL, fx.dir, "TLS key '%s': Is a directory (want "
          "an unencrypted PEM private key)" },
        { crt, notpem, NULL, notpem, "TLS key '%s': not a PEM private key: "
          "no -----BEGIN line (want an unencrypted PEM private key)" },
        { crt, crt, NULL, crt, "TLS key '%s': not a PEM private key: its "
          "PEM blocks are 'CERTIFICATE' (want an unencrypted PEM private "
          "key)" },
        { crt, key, fx.dir, fx.dir, "TLS client CA '%s': Is a directory "
          "(want PEM certificates)" },
        { crt, key, notpem, notpem, "TLS client CA '%s': not a PEM "
          "certificate: no -----BEGIN line (want PEM certificates)" },
        { crt, key, key, key, "TLS client CA '%s': not a PEM certificate: "
          "its PEM blocks are 'PRIVATE KEY' (want PEM certificates)" },
    };
    struct event_base *base = event_base_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nb_server_config c = {
            .address = "127.0.0.1", .tls = true, .cert_file = cases[i].cert,
            .key_file = cases[i].key, .client_ca_file = cases[i].ca,
            .tokens = tokens, .n_tokens = 2,
        };
        struct nb_server *s = NULL;
        char err[512] = "", want[512];
        snprintf(want, sizeof want, cases[i].want, cases[i].bad);
        CU_ASSERT_EQUAL(nb_server_new(base, &c, routes, N_ROUTES, NULL, &s,
                                      err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(s);
        if (!strstr(err, want))
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        /* The check lightraild makes first says the same, and keeps no
         * context. */
        struct nb_server_tls *tls = (struct nb_server_tls *) &c; /* set */
        err[0] = '\0';
        CU_ASSERT_EQUAL(nb_server_config_check(&c, &tls, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(tls);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    }
    event_base_free(base);
    unlink(notpem);
}

static void
on_own_stop(evutil_socket_t fd, short what, void *base)
{
    event_base_loopbreak(base);
}

static void *
own_loop(void *base)
{
    event_base_dispatch(base);
    return NULL;
}

/* The listener's files are loaded once, by nb_server_config_check(): a
 * server made with the check's context reads none of them.  With the
 * certificate, key and client CA removed after the check it is still
 * made, and serves with what they held (the client certificate the CA
 * signed is verified: its CN is the principal); without the context
 * the same configuration fails on the missing file. */
static void
test_tls_loaded_once(void)
{
    if (!fx.have_tls) {
        fprintf(stderr, "skipped: no certificates\n");
        return;
    }
    char crt[160], key[160], ca[160], err[512] = "";
    snprintf(crt, sizeof crt, "%s/once.crt", fx.dir);
    snprintf(key, sizeof key, "%s/once.key", fx.dir);
    snprintf(ca, sizeof ca, "%s/once-ca.crt", fx.dir);
    CU_ASSERT_EQUAL_FATAL(link(fx.server_crt, crt), 0);
    CU_ASSERT_EQUAL_FATAL(link(fx.server_key, key), 0);
    CU_ASSERT_EQUAL_FATAL(link(fx.client_crt, ca), 0);
    struct nb_server_config c = {
        .address = "127.0.0.1", .tls = true, .cert_file = crt,
        .key_file = key, .client_ca_file = ca, .tokens = tokens,
        .n_tokens = 2, .max_body = MAX_BODY,
    };
    struct nb_server_tls *tls = NULL;
    CU_ASSERT_EQUAL(nb_server_config_check(&c, &tls, err, sizeof err), 0);
    unlink(crt);
    unlink(key);
    unlink(ca);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tls);

    struct event_base *base = event_base_new();
    int stop[2];
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    CU_ASSERT_EQUAL_FATAL(pipe(stop), 0);
    struct nb_server *s = NULL;
    CU_ASSERT_EQUAL(nb_server_new(base, &c, routes, N_ROUTES, &s, &s, err,
                                  sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file or directory"));
    /* A context is HTTPS's only. */
    struct nb_server_config plain = { .address = "127.0.0.1",
                                      .loaded = tls };
    CU_ASSERT_EQUAL(nb_server_new(base, &plain, routes, N_ROUTES, &s, &s,
                                  err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "invalid arguments"));
    c.loaded = tls;
    err[0] = '\0';
    CU_ASSERT_EQUAL(nb_server_new(base, &c, routes, N_ROUTES, &s, &s, err,
                                  sizeof err), 0);
    if (err[0])
        fprintf(stderr, "nb_server_new: %s\n", err);
    /* The server holds a reference of its own. */
    nb_server_tls_free(tls);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);

    struct event *ev = event_new(base, stop[0], EV_READ, on_own_stop, base);
    pthread_t loop;
    CU_ASSERT_FATAL(ev && !event_add(ev, NULL)
                    && !pthread_create(&loop, NULL, own_loop, base));
    char url[256];
    struct reply r;
    url_of(url, sizeof url, s, true, "/restconf/data/test:echo");
    struct call cc = { .cacert = fx.server_crt, .cert = fx.client_crt,
                       .key = fx.client_key };
    fetch(url, &cc, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *j = r.body ? json_tokener_parse(r.body) : NULL;
    CU_ASSERT_STRING_EQUAL(field(j, "principal"), "carol");
    json_object_put(j);
    free(r.body);
    CU_ASSERT_EQUAL(write(stop[1], "q", 1), 1);
    pthread_join(loop, NULL);
    event_free(ev);
    nb_server_free(s);
    event_base_free(base);
    close(stop[0]);
    close(stop[1]);
}

/* Runs after the others: the counters have seen 2xx, 4xx and 413s. */
static void
test_metrics(void)
{
    struct reply r;
    struct call c = { 0 };
    call_plain("/metrics", &c, &r);
    CU_ASSERT_EQUAL_FATAL(r.status, 200);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.body);
    static const char *const want[] = {
        "# HELP lightrail_http_requests_total ",
        "# TYPE lightrail_http_requests_total counter\n",
        "lightrail_http_requests_total{code=\"2xx\"} ",
        "lightrail_http_requests_total{code=\"5xx\"} 0\n",
        "# HELP lightrail_http_request_seconds ",
        "# TYPE lightrail_http_request_seconds histogram\n",
        "lightrail_http_request_seconds_bucket{le=\"0.0005\"} ",
        "lightrail_http_request_seconds_bucket{le=\"0.25\"} ",
        "lightrail_http_request_seconds_bucket{le=\"1\"} ",
        "lightrail_http_request_seconds_bucket{le=\"+Inf\"} ",
        "lightrail_http_request_seconds_sum ",
        "lightrail_http_request_seconds_count ",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(r.body, want[i])) {
            CU_FAIL("metrics line missing");
            fprintf(stderr, "missing '%s' in:\n%s", want[i], r.body);
        }
    unsigned long inf = 0, count = 0, c2 = 0, c4 = 0, prev = 0;
    const char *p = strstr(r.body, "{le=\"+Inf\"} ");
    CU_ASSERT(p && sscanf(p, "{le=\"+Inf\"} %lu", &inf) == 1);
    p = strstr(r.body, "_count ");
    CU_ASSERT(p && sscanf(p, "_count %lu", &count) == 1);
    p = strstr(r.body, "code=\"2xx\"} ");
    CU_ASSERT(p && sscanf(p, "code=\"2xx\"} %lu", &c2) == 1);
    p = strstr(r.body, "code=\"4xx\"} ");
    CU_ASSERT(p && sscanf(p, "code=\"4xx\"} %lu", &c4) == 1);
    CU_ASSERT_EQUAL(inf, count);
    CU_ASSERT(c2 > 0 && c4 > 0);
    /* libevent's own 413 (test_body_too_large) is not counted. */
    CU_ASSERT(count > 0 && count <= c2 + c4 + 1);
    /* Buckets are cumulative. */
    for (p = r.body; (p = strstr(p, "_bucket{le=\"")); ) {
        unsigned long v;
        p = strchr(p, '}');
        CU_ASSERT(p && sscanf(p, "} %lu", &v) == 1 && v >= prev);
        prev = v;
    }
    free(r.body);
}

/* Polls /test/held until its "pending" is 'n' and (when 'gone') the
 * held client has left; false when that never comes. */
static bool
await_held(int n, bool gone)
{
    const struct call c = { .token = TOKEN };
    for (int i = 0; i < 2000; i++) {
        struct reply r;
        call_plain("/test/held", &c, &r);
        json_object *j = r.body ? json_tokener_parse(r.body) : NULL, *v;
        bool yes = j && json_object_object_get_ex(j, "pending", &v)
                   && json_object_get_int(v) == n
                   && (!gone || (json_object_object_get_ex(j, "gone", &v)
                                 && json_object_get_boolean(v)));
        json_object_put(j);
        free(r.body);
        if (yes)
            return true;
        usleep(1000);
    }
    return false;
}

static void *
deferred_client(void *arg)
{
    const struct call c = { .token = TOKEN };
    call_plain("/test/defer", &c, arg);
    return NULL;
}

static void
test_deferred_reply(void)
{
    const struct call c = { .token = TOKEN, .method = "POST", .body = "", .body_len = 0 };
    struct reply late, r;
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, deferred_client, &late), 0);
    CU_ASSERT(await_held(1, false));
    /* Other requests are served while one waits. */
    call_plain("/restconf/data/test:echo", &(struct call) { .token = TOKEN }, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    free(r.body);
    call_plain("/test/answer", &c, &r);
    CU_ASSERT_EQUAL(r.status, 204);
    free(r.body);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(late.curl, CURLE_OK);
    CU_ASSERT_EQUAL(late.status, 200);
    CU_ASSERT_PTR_NOT_NULL(late.body && strstr(late.body, "late"));
    free(late.body);
    CU_ASSERT(await_held(0, false));
}

/* A request deferred and answered before its handler returned: the
 * client gets that answer, once, and nothing stays pending. */
static void
test_deferred_answered_at_once(void)
{
    struct reply r;
    call_plain("/test/defer-now", &(struct call) { .token = TOKEN }, &r);
    CU_ASSERT_EQUAL(r.curl, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 201);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "now"));
    free(r.body);
    CU_ASSERT(await_held(0, false));
}

static void
test_deferred_client_leaves(void)
{
    const struct call c = { .token = TOKEN, .method = "POST", .body = "", .body_len = 0 };
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t) nb_server_port(fx.plain)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    char req[256];
    struct reply r;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *) &a, sizeof a), 0);
    int n = snprintf(req, sizeof req, "GET /test/defer HTTP/1.1\r\nHost: x\r\n"
                     "Authorization: Bearer %s\r\n\r\n", TOKEN);
    CU_ASSERT_EQUAL_FATAL(write(fd, req, (size_t) n), n);
    CU_ASSERT(await_held(1, false));
    close(fd);
    /* The server notices at once (EV_CLOSED), before any reply. */
    CU_ASSERT(await_held(1, true));
    call_plain("/test/answer", &c, &r);
    CU_ASSERT_EQUAL(r.status, 204);
    free(r.body);
    CU_ASSERT(await_held(0, false));
    call_plain("/metrics", &(struct call) { 0 }, &r);
    CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body, "lightrail_http_abandoned_total 1\n"));
    free(r.body);
}

/* Sends 'req' (of 'n' bytes, it may hold a second request) to the plain
 * server and reads until it closes or 5 s pass, into buf[size]. */
static void
raw_exchange(const char *req, size_t n, char *buf, size_t size)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons((uint16_t) nb_server_port(fx.plain)),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    struct timeval tv = { 5, 0 };
    size_t got = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(fd >= 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *) &a, sizeof a), 0);
    CU_ASSERT_EQUAL_FATAL(write(fd, req, n), (ssize_t) n);
    for (ssize_t k; got + 1 < size
                    && (k = read(fd, buf + got, size - 1 - got)) > 0;)
        got += (size_t) k;
    buf[got] = '\0';
    close(fd);
}

/* A request whose end is in doubt (Content-Length twice, or a body on
 * HEAD) is 400 and closes the connection: what follows is never taken
 * for a request of its own (libevent took the first length and served
 * the "body" as a second request). */
static void
test_framing_in_doubt(void)
{
    char req[512], buf[8192];
    static const char smuggled[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    int n = snprintf(req, sizeof req, "POST /restconf/data/test:echo HTTP/1.1"
                     "\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/yang-data+json\r\n"
                     "Content-Length: 0\r\nContent-Length: %zu\r\n\r\n%s",
                     TOKEN, strlen(smuggled), smuggled);
    raw_exchange(req, (size_t) n, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 400"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "conflicting message framing"));
    CU_ASSERT_PTR_NULL(strstr(buf, "HTTP/1.1 200"));
    n = snprintf(req, sizeof req, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n"
                 "Content-Length: %zu\r\n\r\n%s", strlen(smuggled),
                 smuggled);
    raw_exchange(req, (size_t) n, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 400"));
    CU_ASSERT_PTR_NULL(strstr(buf, "HTTP/1.1 200"));
}

/* A request still deferred when the server is freed: the token stays
 * valid, and answering it later sends nothing. */
static void
test_deferred_outlives_server(void)
{
    struct nb_pending *p;
    struct nb_response late = { .status = 200, .body = strdup("x") };
    /* No test runs after this one: the loop thread is stopped so that
     * this thread may free the plain server under a held request. */
    CU_ASSERT(await_held(0, false));
    {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET,
                                 .sin_port = htons((uint16_t) nb_server_port(fx.plain)),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        char req[256];
        int n = snprintf(req, sizeof req, "GET /test/defer HTTP/1.1\r\nHost: x\r\n"
                         "Authorization: Bearer %s\r\n\r\n", TOKEN);
        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT_EQUAL_FATAL(connect(fd, (struct sockaddr *) &a, sizeof a), 0);
        CU_ASSERT_EQUAL_FATAL(write(fd, req, (size_t) n), n);
        CU_ASSERT(await_held(1, false));
        /* Stop the loop, free the server under the held request. */
        CU_ASSERT_EQUAL_FATAL(write(fx.pipe[1], "q", 1), 1);
        pthread_join(fx.loop, NULL);
        fx.loop_started = false;
        nb_server_free(fx.plain);
        fx.plain = NULL;
        close(fd);
    }
    p = held;
    held = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(nb_pending_gone(p));
    nb_pending_reply(p, &late);
    CU_ASSERT_PTR_NULL(late.body);
}

/* An error-path and a message that are not UTF-8 (a handler quoting
 * what a client sent): the body stays UTF-8 (RFC 8259), each bad byte
 * U+FFFD, a good sequence kept.  A path not UTF-8 once decoded, whose
 * 404 no longer echoes it (no error-path for a URL), is UTF-8 too. */
static void
test_error_body_utf8(void)
{
    struct nb_response resp = { 0 };
    nb_error(&resp, 400, "invalid-value", "/t:x[k='x\xff\xc3y\xc3\xa9']",
             "m\xed\xa0\x80n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(resp.body);
    CU_ASSERT_PTR_NULL(strchr(resp.body, '\xff'));
    CU_ASSERT_PTR_NULL(strstr(resp.body, "\xed\xa0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body,
                                  "x\xef\xbf\xbd\xef\xbf\xbdy\xc3\xa9"));
    free(resp.body);
    struct reply r;
    struct call c = { .method = "GET", .token = "another-secret-for-bob" };
    call_plain("/restconf/data/x%ff%c3y%c3%a9%ed%a0%80", &c, &r);
    CU_ASSERT_EQUAL(r.status, 404);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.body);
    CU_ASSERT_PTR_NULL(strchr(r.body, '\xff'));
    CU_ASSERT_PTR_NULL(strstr(r.body, "\xed\xa0"));
    free(r.body);
}

/* RFC 8040 5.2: a body in a type other than JSON is 415, an Accept that
 * takes no JSON 406 (/restconf and under it; /metrics is text), before
 * the handler. */
static void
test_media_types(void)
{
    static const char body[] = "{\"test:x\":{}}";
    static const struct {
        const char *path, *ctype, *accept;
        long status;
    } cases[] = {
        { "/restconf/data/test:echo", "application/yang-data+xml", NULL, 415 },
        { "/restconf/data/test:echo", "application/x-www-form-urlencoded",
          NULL, 415 },
        { "/restconf/data/test:echo", "text/plain", NULL, 415 },
        { "/restconf/data/test:echo", "application/yang-data+json; "
          "charset=utf-8", NULL, 200 },
        { "/restconf/data/test:echo", "Application/JSON", NULL, 200 },
        { "/restconf/data/test:echo", NULL, "application/yang-data+xml", 406 },
        { "/restconf/data/test:echo", NULL, "text/html, application/xml;q=0.9",
          406 },
        { "/restconf/data/test:echo", NULL,
          "application/yang-data+xml, application/yang-data+json;q=0.5", 200 },
        { "/restconf/data/test:echo", NULL, "*/*", 200 },
        { "/restconf/data/test:echo", NULL, "application/*;q=0.2", 200 },
        { "/metrics", NULL, "text/plain", 200 },
        /* The root itself is RESTCONF's (its API resource), a path that
         * only begins with its name is not. */
        { "/restconf", NULL, "application/yang-data+xml", 406 },
        { "/restconf", NULL, "application/yang-data+json", 200 },
        { "/restconfig", NULL, "text/plain", 200 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct reply r;
        /* Every path but test:echo takes GET only. */
        bool get = strncmp(cases[i].path, "/restconf/", 10) != 0;
        struct call c = { .method = get ? "GET" : "POST",
                          .token = "another-secret-for-bob",
                          .body = get ? NULL : body,
                          .body_len = get ? 0 : strlen(body),
                          .ctype = cases[i].ctype,
                          .accept = cases[i].accept };
        call_plain(cases[i].path, &c, &r);
        if (r.status != cases[i].status)
            fprintf(stderr, "case %zu: %ld, want %ld: %s\n", i, r.status,
                    cases[i].status, r.body ? r.body : "");
        CU_ASSERT_EQUAL(r.status, cases[i].status);
        if (cases[i].status >= 400)
            CU_ASSERT_PTR_NOT_NULL(r.body && strstr(r.body,
                                                    "invalid-value"));
        free(r.body);
    }
}

/* A client's Content-Type or Accept is quoted in its 415 or 406 with a
 * bound ("%.64s" cut inside a character, which the error's printer then
 * turned into U+FFFD): cut at a character now, and marked.  One of the
 * two paddings (none, one byte) puts the bound inside a character. */
static void
test_media_type_cut_at_character(void)
{
    static const char body[] = "{\"test:x\":{}}";
    for (int odd = 0; odd < 2; odd++) {
        char type[160];
        snprintf(type, sizeof type, "text/%s", odd ? "x" : "");
        while (strlen(type) + 3 < sizeof type)
            strcat(type, "\xc3\xa9");
        for (int accept = 0; accept < 2; accept++) {
            struct reply r;
            struct call c = { .method = accept ? "GET" : "POST",
                              .token = "another-secret-for-bob",
                              .body = accept ? NULL : body,
                              .body_len = accept ? 0 : strlen(body),
                              .ctype = accept ? NULL : type,
                              .accept = accept ? type : NULL };
            call_plain(accept ? "/restconf" : "/restconf/data/test:echo", &c,
                       &r);
            CU_ASSERT_EQUAL(r.status, accept ? 406 : 415);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r.body);
            if (strstr(r.body, "\xef\xbf\xbd") || !strstr(r.body, "[...]"))
                fprintf(stderr, "%s, padding %d: %s\n",
                        accept ? "Accept" : "Content-Type", odd, r.body);
            CU_ASSERT_PTR_NULL(strstr(r.body, "\xef\xbf\xbd"));
            CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "text/"));
            CU_ASSERT_PTR_NOT_NULL(strstr(r.body, "[...]"));
            free(r.body);
        }
    }
}

/* A route's own part percent-encoded is no path to it: only the key
 * after ".../job=" is decoded. */
static void
test_route_not_encoded(void)
{
    static const char *const paths[] = {
        "/restconf/data/test:jobs%2Fjob=x",
        "/restconf/data/test%3Ajobs/job=x",
        "/restconf/data/test:ech%6F",
    };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct reply r;
        struct call c = { .token = "another-secret-for-bob" };
        call_plain(paths[i], &c, &r);
        CU_ASSERT_EQUAL(r.status, 404);
        free(r.body);
    }
}

/* A label value as the Prometheus text format wants it: '\\', '"'
 * and a line feed escaped, the rest as given; cut whole, never in an
 * escape, when the room ends. */
static void
test_metrics_label(void)
{
    static const struct { const char *in, *out; } rows[] = {
        { "roadm-1", "roadm-1" },
        { "a\"b", "a\\\"b" },
        { "c\\d", "c\\\\d" },
        { "l1\nl2", "l1\\nl2" },
        { "", "" },
    };
    char out[64];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        nb_metrics_label(rows[i].in, out, sizeof out);
        CU_ASSERT_STRING_EQUAL(out, rows[i].out);
    }
    char small[4];
    nb_metrics_label("ab\"", small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "ab");
    nb_metrics_label("abc\"", small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "abc");
}

static CU_TestInfo tests[] = {
    { "a metric's label value escaped", test_metrics_label },
    { "a valid token: 200 and the principal", test_token_ok },
    { "POST body and query reach the handler", test_post_body_and_query },
    { "unknown and repeated query parameters are refused",
      test_query_parameters_checked },
    { "query names and values are percent-decoded, broken escapes refused",
      test_query_decoded },
    { "If-Match on a route without validators: 412 unless '*'",
      test_if_match_untagged },
    { "an error body is UTF-8 whatever the path", test_error_body_utf8 },
    { "a route's own part percent-encoded is not found",
      test_route_not_encoded },
    { "415 for a body not JSON, 406 for an Accept without JSON",
      test_media_types },
    { "a media type quoted is cut at a character",
      test_media_type_cut_at_character },
    { "no or a wrong token: 401 with WWW-Authenticate", test_no_or_wrong_token },
    { "public route without a token", test_public_route },
    { "unknown path: 404", test_not_found },
    { "other method: 405 with Allow; OPTIONS", test_method_not_allowed },
    { "a row's nb_exists: 404 before OPTIONS, 405 and 400",
      test_row_exists },
    { "a parameter a row refuses with advice", test_query_refused },
    { "OPTIONS of a resource served by two rows", test_options_rows },
    { "HEAD is GET without the body", test_head },
    { "body over the limit: 413", test_body_too_large },
    { "prefix routes see the decoded path; bad escapes 400", test_prefix_and_decoding },
    { "handler errors are escaped JSON", test_error_body_escaped },
    { "error bodies judged, without a URL for error-path",
      test_error_check },
    { "drain: 503 for everything", test_drain },
    { "HTTPS with a self-signed certificate", test_https },
    { "client certificate: principal = CN", test_client_certificate },
    { "plain HTTP off loopback and bad configs refused", test_config_refused },
    { "a TLS file that is a folder, not PEM or the other kind is named",
      test_tls_files_refused },
    { "the listener's TLS files are loaded once, by the check",
      test_tls_loaded_once },
    { "metrics: counters and histogram", test_metrics },
    { "a deferred reply comes later; others are served meanwhile", test_deferred_reply },
    { "a deferred request answered before its handler returns", test_deferred_answered_at_once },
    { "a deferred request whose client leaves is dropped", test_deferred_client_leaves },
    { "past 64 TLS connections a stranger's makes room, a client's stays",
      test_tls_connection_cap },
    { "past max_conns plain connections a client waits for a slot",
      test_plain_connection_cap },
    { "a TLS server freed with a connection open, then its base",
      test_tls_server_freed_with_connection },
    { "a request whose end is in doubt is 400 and closed",
      test_framing_in_doubt },
    /* Last: it stops the loop and frees the plain server. */
    { "a deferred request outlives its server", test_deferred_outlives_server },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("nb_server", tests, setup, teardown)
