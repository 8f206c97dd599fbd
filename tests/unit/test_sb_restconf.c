/*
 * sb_restconf against a TEST DOUBLE: a small in-process RESTCONF server
 * (RFC 8040) over HTTPS on 127.0.0.1, on a thread of its own, that holds
 * lightrail-roadm media channels and answers as the RFC says (201/204,
 * 404 for a missing resource, RFC 8040 error bodies, the module's must),
 * with two injectable faults: fail the Nth change with 500, answer late.
 * No RESTCONF server is packaged for Debian 12; this double is not one.
 *
 * Asserted: round trips (edges in MHz as RFC 7951 strings), a batch that
 * fails half-way is undone on the device, a refusal's RFC 8040 message
 * reaches the caller, ENOENT/EEXIST, a certificate that does not chain
 * to the pinned CA is refused, a late answer is ETIMEDOUT, a device
 * nobody listens on, bad configurations.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <json-c/json.h>
#include <openssl/ssl.h>

#include "southbound/sb_driver.h"
#include "tests/lr_test.h"
#include "tools/lightrail/lr_tls_selfsigned.h"

#define PREFIX "/restconf/data/lightrail-roadm:roadm/media-channels"
#define MAX_CH 64

/* ---- the test double ---- */

static struct {
    struct event_base *base;
    struct evhttp *http;
    SSL_CTX *ssl;
    struct event *tick;
    pthread_t thread;
    int port;
    atomic_bool stop;
    /* state, touched only on the server thread while it runs */
    json_object *ch[MAX_CH];      /* by slot; NULL = free */
    /* faults, set by the test between requests */
    atomic_int fail_change;       /* the Nth PUT/DELETE from now fails: 1 = next */
    atomic_int delay_ms;
    atomic_int changes;           /* PUT/DELETE answered */
} dbl;

static char dir[64], cert[128], key[128], other_cert[128], other_key[128];

static void
dbl_error(struct evhttp_request *req, int status, const char *tag,
          const char *path, const char *msg)
{
    struct evbuffer *b = evhttp_request_get_output_buffer(req);
    evbuffer_add_printf(b, "{\"ietf-restconf:errors\":{\"error\":[{"
                        "\"error-type\":\"application\",\"error-tag\":\"%s\""
                        "%s%s%s,\"error-message\":\"%s\"}]}}", tag,
                        path ? ",\"error-path\":\"" : "", path ? path : "",
                        path ? "\"" : "", msg);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      "application/yang-data+json");
    evhttp_send_reply(req, status, NULL, NULL);
}

static int
dbl_find(long index)
{
    for (int i = 0; i < MAX_CH; i++) {
        json_object *v;
        if (dbl.ch[i] && json_object_object_get_ex(dbl.ch[i], "index", &v)
            && json_object_get_int64(v) == index)
            return i;
    }
    return -1;
}

static const char *
jstr(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v)
                                                : NULL;
}

static void
dbl_on_request(struct evhttp_request *req, void *arg)
{
    (void) arg;
    const char *uri = evhttp_request_get_uri(req);
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    int d = atomic_load(&dbl.delay_ms);
    if (d > 0)
        usleep((useconds_t) d * 1000);
    if (strncmp(uri, PREFIX, strlen(PREFIX))) {
        dbl_error(req, 404, "invalid-value", NULL, "no such resource");
        return;
    }
    const char *rest = uri + strlen(PREFIX);
    if (!*rest) {
        if (cmd != EVHTTP_REQ_GET) {
            dbl_error(req, 405, "operation-not-supported", NULL, "GET only");
            return;
        }
        json_object *top = json_object_new_object(), *mcs =
            json_object_new_object(), *l = json_object_new_array();
        for (int i = 0; i < MAX_CH; i++)
            if (dbl.ch[i])
                json_object_array_add(l, json_object_get(dbl.ch[i]));
        json_object_object_add(mcs, "channel", l);
        json_object_object_add(top, "lightrail-roadm:media-channels", mcs);
        evbuffer_add_printf(evhttp_request_get_output_buffer(req), "%s",
                            json_object_to_json_string(top));
        json_object_put(top);
        evhttp_send_reply(req, 200, NULL, NULL);
        return;
    }
    long index = -1;
    if (sscanf(rest, "/channel=%ld", &index) != 1 || index < 1) {
        dbl_error(req, 404, "invalid-value", NULL, "no such resource");
        return;
    }
    if (cmd != EVHTTP_REQ_PUT && cmd != EVHTTP_REQ_DELETE) {
        dbl_error(req, 405, "operation-not-supported", NULL, "PUT, DELETE");
        return;
    }
    int n = atomic_fetch_add(&dbl.changes, 1) + 1;
    int f = atomic_load(&dbl.fail_change);
    if (f > 0 && n == f) {
        dbl_error(req, 500, "operation-failed", NULL,
                  "injected failure (test double)");
        return;
    }
    int at = dbl_find(index);
    if (cmd == EVHTTP_REQ_DELETE) {
        if (at < 0) {
            dbl_error(req, 404, "invalid-value", NULL,
                      "no such media channel");
            return;
        }
        json_object_put(dbl.ch[at]);
        dbl.ch[at] = NULL;
        evhttp_send_reply(req, 204, NULL, NULL);
        return;
    }
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    char *body = calloc(1, len + 1);
    evbuffer_copyout(in, body, len);
    json_object *top = json_tokener_parse(body), *l, *o;
    free(body);
    if (!top || !json_object_object_get_ex(top, "lightrail-roadm:channel", &l)
        || json_object_array_length(l) != 1) {
        json_object_put(top);
        dbl_error(req, 400, "malformed-message", NULL,
                  "want {\\\"lightrail-roadm:channel\\\":[{...}]}");
        return;
    }
    o = json_object_array_get_idx(l, 0);
    const char *lo = jstr(o, "lower-frequency"), *up = jstr(o, "upper-frequency");
    const char *name = jstr(o, "name");
    json_object *iv;
    char path[128];
    snprintf(path, sizeof path, "/lightrail-roadm:roadm/media-channels/"
             "channel[index='%ld']", index);
    if (!json_object_object_get_ex(o, "index", &iv)
        || json_object_get_int64(iv) != index || !name || !lo || !up) {
        json_object_put(top);
        dbl_error(req, 400, "invalid-value", path,
                  "index, name and both frequencies are required");
        return;
    }
    if (strtoll(up, NULL, 10) <= strtoll(lo, NULL, 10)) {
        json_object_put(top);
        dbl_error(req, 400, "invalid-value", path,
                  "the upper frequency must be above the lower frequency");
        return;
    }
    for (int i = 0; i < MAX_CH; i++)
        if (dbl.ch[i] && i != at && !strcmp(jstr(dbl.ch[i], "name"), name)) {
            json_object_put(top);
            dbl_error(req, 409, "data-exists", path, "name is not unique");
            return;
        }
    if (at < 0)
        for (at = 0; at < MAX_CH && dbl.ch[at]; at++)
            continue;
    json_object_put(dbl.ch[at]);
    dbl.ch[at] = json_object_get(o);
    json_object_put(top);
    evhttp_send_reply(req, 201, NULL, NULL);
}

static struct bufferevent *
dbl_bevcb(struct event_base *base, void *arg)
{
    (void) arg;
    return bufferevent_openssl_socket_new(base, -1, SSL_new(dbl.ssl),
                                          BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE);
}

static void
dbl_tick(evutil_socket_t fd, short what, void *arg)
{
    (void) fd;
    (void) what;
    (void) arg;
    if (atomic_load(&dbl.stop))
        event_base_loopbreak(dbl.base);
}

static void *
dbl_run(void *arg)
{
    (void) arg;
    event_base_dispatch(dbl.base);
    return NULL;
}

static int
dbl_clear(void)
{
    for (int i = 0; i < MAX_CH; i++) {
        json_object_put(dbl.ch[i]);
        dbl.ch[i] = NULL;
    }
    return 0;
}

/* How many channels the double holds (read between requests). */
static int
dbl_count(void)
{
    int n = 0;
    for (int i = 0; i < MAX_CH; i++)
        n += dbl.ch[i] != NULL;
    return n;
}

static int
setup(void)
{
    char err[256];
    snprintf(dir, sizeof dir, "/tmp/lr-test-sbrc-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(other_cert, sizeof other_cert, "%s/other.pem", dir);
    snprintf(other_key, sizeof other_key, "%s/other.key", dir);
    if (lr_tls_selfsigned(cert, key, err, sizeof err)
        || lr_tls_selfsigned(other_cert, other_key, err, sizeof err))
        return 1;
    dbl.ssl = SSL_CTX_new(TLS_server_method());
    if (!dbl.ssl || SSL_CTX_use_certificate_chain_file(dbl.ssl, cert) != 1
        || SSL_CTX_use_PrivateKey_file(dbl.ssl, key, SSL_FILETYPE_PEM) != 1)
        return 1;
    dbl.base = event_base_new();
    dbl.http = evhttp_new(dbl.base);
    evhttp_set_allowed_methods(dbl.http, EVHTTP_REQ_GET | EVHTTP_REQ_PUT
                                         | EVHTTP_REQ_DELETE);
    evhttp_set_bevcb(dbl.http, dbl_bevcb, NULL);
    evhttp_set_gencb(dbl.http, dbl_on_request, NULL);
    struct evhttp_bound_socket *s = evhttp_bind_socket_with_handle(
        dbl.http, "127.0.0.1", 0);
    if (!s)
        return 1;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(evhttp_bound_socket_get_fd(s), (struct sockaddr *) &ss, &sl);
    dbl.port = ntohs(((struct sockaddr_in *) &ss)->sin_port);
    struct timeval tv = { 0, 20000 };
    dbl.tick = event_new(dbl.base, -1, EV_PERSIST, dbl_tick, NULL);
    event_add(dbl.tick, &tv);
    return pthread_create(&dbl.thread, NULL, dbl_run, NULL) ? 1 : 0;
}

static int
teardown(void)
{
    atomic_store(&dbl.stop, true);
    pthread_join(dbl.thread, NULL);
    dbl_clear();
    event_free(dbl.tick);
    evhttp_free(dbl.http);
    event_base_free(dbl.base);
    SSL_CTX_free(dbl.ssl);
    unlink(cert);
    unlink(key);
    unlink(other_cert);
    unlink(other_key);
    return rmdir(dir);
}

/* ---- the tests ---- */

static struct sb_device_config
config(const char *ca, int timeout_ms)
{
    struct sb_device_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "r7");
    snprintf(c.driver, sizeof c.driver, "restconf");
    snprintf(c.address, sizeof c.address, "https://127.0.0.1:%d/", dbl.port);
    snprintf(c.ca_file, sizeof c.ca_file, "%s", ca);
    c.timeout_ms = timeout_ms;
    return c;
}

static void
change(struct sb_change *c, enum sb_op op, const char *name, int n, int m)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    snprintf(c->mc.name, sizeof c->mc.name, "%s", name);
    snprintf(c->mc.in_port, sizeof c->mc.in_port, "r6-r7");
    c->mc.n = n;
    c->mc.m = m;
    c->mc.enabled = true;
}

static struct sb_device *
open_dev(void)
{
    struct sb_device_config c = config(cert, 2000);
    struct sb_device *d = NULL;
    char err[512];
    int rc = sb_restconf_class.open(&c, &d, err, sizeof err);
    if (rc)
        fprintf(stderr, "open: %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return d;
}

static void
test_round_trip(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[2];
    struct sb_media_channel *mc = NULL;
    char err[512];
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    change(&ch[0], SB_ADD, "j/lp1", -10, 4);
    change(&ch[1], SB_ADD, "j/lp2", 20, 2);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl_count(), 2);
    /* RFC 7951: uint64 as strings; edges of n = -10, m = 4. */
    int at = dbl_find(1);
    CU_ASSERT_TRUE_FATAL(at >= 0);
    CU_ASSERT_STRING_EQUAL(jstr(dbl.ch[at], "lower-frequency"), "193012500");
    CU_ASSERT_STRING_EQUAL(jstr(dbl.ch[at], "upper-frequency"), "193062500");
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    for (int i = 0; i < n; i++) {
        bool first = !strcmp(mc[i].name, "j/lp1");
        CU_ASSERT_EQUAL(mc[i].n, first ? -10 : 20);
        CU_ASSERT_EQUAL(mc[i].m, first ? 4 : 2);
        CU_ASSERT_STRING_EQUAL(mc[i].in_port, "r6-r7");
        CU_ASSERT_STRING_EQUAL(mc[i].out_port, "");
    }
    free(mc);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    EEXIST);
    change(&ch[0], SB_DELETE, "j/lp1", 0, 0);
    change(&ch[1], SB_DELETE, "j/lp2", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dbl_count(), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    ENOENT);
    sb_restconf_class.close(d);
}

static void
test_all_or_nothing(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[3];
    char err[512];

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    change(&ch[0], SB_ADD, "keep/lp1", 0, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err), 0);
    /* The batch's third request fails: the first two are undone. */
    change(&ch[0], SB_DELETE, "keep/lp1", 0, 0);
    change(&ch[1], SB_ADD, "b/lp1", 8, 4);
    change(&ch[2], SB_ADD, "b/lp2", 16, 4);
    atomic_store(&dbl.changes, 0);
    atomic_store(&dbl.fail_change, 3);
    int rc = sb_restconf_class.apply(d, ch, 3, err, sizeof err);
    atomic_store(&dbl.fail_change, 0);
    CU_ASSERT_EQUAL(rc, EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: the device refused PUT "
                                       "channel=3 (HTTP 500, operation-failed"
                                       "): injected failure (test double); "
                                       "nothing applied"));
    CU_ASSERT_EQUAL(dbl_count(), 1);
    CU_ASSERT_STRING_EQUAL(jstr(dbl.ch[dbl_find(1)], "name"), "keep/lp1");

    /* The device's own validation, its RFC 8040 message passed on. */
    change(&ch[0], SB_ADD, "zero/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "HTTP 400, invalid-value at "
                                       "/lightrail-roadm:roadm/media-"
                                       "channels/channel[index='"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the upper frequency must be above "
                                       "the lower frequency"));
    CU_ASSERT_EQUAL(dbl_count(), 1);

    /* Removed behind the driver's back after it last read the device:
     * the device's 404 is ENOENT. */
    struct sb_media_channel *mc = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 1);
    free(mc);
    dbl_clear();
    change(&ch[0], SB_DELETE, "keep/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "HTTP 404"));
    sb_restconf_class.close(d);
}

static void
test_pinned_ca_and_faults(void)
{
    struct sb_device_config c = config(other_cert, 2000);
    struct sb_device *d = NULL;
    struct sb_media_channel *mc = NULL;
    struct sb_change ch;
    char err[512];
    int n;

    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EACCES);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "it must chain to the pinned CA"));

    /* A late answer. */
    c = config(cert, 300);
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    atomic_store(&dbl.delay_ms, 800);
    change(&ch, SB_ADD, "late/lp1", 0, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, &ch, 1, err, sizeof err),
                    ETIMEDOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the outcome is unknown"));
    usleep(1200 * 1000);   /* let the double finish the late request */
    atomic_store(&dbl.delay_ms, 0);
    sb_restconf_class.close(d);
    dbl_clear();

    /* Nobody listening: open succeeds (first use says so). */
    c = config(cert, 2000);
    snprintf(c.address, sizeof c.address, "https://127.0.0.1:1");
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: cannot reach https://127.0.0.1:1"));
    sb_restconf_class.close(d);

    /* Bad configurations. */
    c = config("", 0);
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a ca-file"));
    snprintf(c.address, sizeof c.address, "http://192.0.2.1:80");
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "plain http only on 127.0.0.1"));
}

static CU_TestInfo tests[] = {
    { "round trip, EEXIST, ENOENT", test_round_trip },
    { "a failing batch is undone; RFC 8040 errors", test_all_or_nothing },
    { "pinned CA, timeout, unreachable, bad config",
      test_pinned_ca_and_faults },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("sb_restconf", tests, setup, teardown)
