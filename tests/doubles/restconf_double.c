/*
 * restconf_double: the RESTCONF ROADM TEST DOUBLE; see restconf_double.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "tests/doubles/restconf_double.h"

struct rc_double rcd;

static void
rcd_error(struct evhttp_request *req, int status, const char *tag,
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

/* An injected failure: 500 operation-failed, or the status of
 * 'fail_status' (502, 503, 504) as a gateway before the device sends
 * it: a page of its own, no RFC 8040 error body (section 7's table
 * pairs no error-tag with these statuses). */
static void
rcd_fail(struct evhttp_request *req)
{
    int status = atomic_load(&rcd.fail_status);
    if (!status || status == 500) {
        rcd_error(req, 500, "operation-failed", NULL,
                  "injected failure (test double)");
        return;
    }
    evbuffer_add_printf(evhttp_request_get_output_buffer(req),
                        "<html><body><h1>%d</h1>injected by the test "
                        "double</body></html>\n", status);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      "text/html");
    evhttp_send_reply(req, status, NULL, NULL);
}

int
rc_double_find(long index)
{
    for (int i = 0; i < RCD_MAX_CH; i++) {
        json_object *v;
        if (rcd.ch[i] && json_object_object_get_ex(rcd.ch[i], "index", &v)
            && json_object_get_int64(v) == index)
            return i;
    }
    return -1;
}

const char *
rc_double_str(json_object *o, const char *k)
{
    json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v)
                                                : NULL;
}

int
rc_double_count(void)
{
    int n = 0;
    for (int i = 0; i < RCD_MAX_CH; i++)
        n += rcd.ch[i] != NULL;
    return n;
}

void
rc_double_clear(void)
{
    for (int i = 0; i < RCD_MAX_CH; i++) {
        json_object_put(rcd.ch[i]);
        rcd.ch[i] = NULL;
    }
}

/* GET /test-double/{fail,die}?change=N */
static void
rcd_control(struct evhttp_request *req)
{
    const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(req);
    const char *path = evhttp_uri_get_path(u), *qs = evhttp_uri_get_query(u);
    struct evkeyvalq q;
    const char *v;
    int n;

    if (evhttp_parse_query_str(qs ? qs : "", &q)) {
        rcd_error(req, 400, "malformed-message", NULL, "bad query");
        return;
    }
    v = evhttp_find_header(&q, "change");
    n = v ? atoi(v) : 0;
    if (n < 1 || (strcmp(path, "/test-double/fail")
                  && strcmp(path, "/test-double/die"))) {
        evhttp_clear_headers(&q);
        rcd_error(req, 404, "invalid-value", NULL,
                  "want /test-double/fail or /test-double/die ?change=N");
        return;
    }
    atomic_store(&rcd.changes, 0);
    atomic_store(strcmp(path, "/test-double/die") ? &rcd.fail_change
                                                  : &rcd.die_change, n);
    evhttp_clear_headers(&q);
    evhttp_send_reply(req, 204, NULL, NULL);
}

static void
rcd_get_all(struct evhttp_request *req)
{
    const char *raw = atomic_exchange(&rcd.raw_get, NULL);
    if (raw) {
        evbuffer_add_printf(evhttp_request_get_output_buffer(req), "%s", raw);
        evhttp_add_header(evhttp_request_get_output_headers(req),
                          "Content-Type", "application/yang-data+json");
        evhttp_send_reply(req, 200, NULL, NULL);
        return;
    }
    json_object *top = json_object_new_object(), *mcs =
        json_object_new_object(), *l = json_object_new_array();
    for (int i = 0; i < RCD_MAX_CH; i++)
        if (rcd.ch[i])
            json_object_array_add(l, json_object_get(rcd.ch[i]));
    json_object_object_add(mcs, "channel", l);
    json_object_object_add(top, "lightrail-roadm:media-channels", mcs);
    evbuffer_add_printf(evhttp_request_get_output_buffer(req), "%s",
                        json_object_to_json_string(top));
    json_object_put(top);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      "application/yang-data+json");
    evhttp_send_reply(req, 200, NULL, NULL);
}

/* PUT of channel 'index' (create or replace the one in slot 'at'), or,
 * index -1, a POST to media-channels: create the channel of the body's
 * index, 409 when it exists (RFC 8040, 4.4.1). */
static void
rcd_put(struct evhttp_request *req, long index, int at)
{
    bool post = index < 0;
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    char *body = calloc(1, len + 1);
    if (!body) {
        rcd_error(req, 500, "operation-failed", NULL, "out of memory");
        return;
    }
    evbuffer_copyout(in, body, len);
    json_object *top = json_tokener_parse(body), *l, *o;
    free(body);
    if (!top || !json_object_object_get_ex(top, "lightrail-roadm:channel", &l)
        || !json_object_is_type(l, json_type_array)
        || json_object_array_length(l) != 1) {
        json_object_put(top);
        rcd_error(req, 400, "malformed-message", NULL,
                  "want {\\\"lightrail-roadm:channel\\\":[{...}]}");
        return;
    }
    o = json_object_array_get_idx(l, 0);
    const char *lo = rc_double_str(o, "lower-frequency"),
               *up = rc_double_str(o, "upper-frequency"),
               *name = rc_double_str(o, "name");
    json_object *iv;
    char path[128];
    if (post && json_object_object_get_ex(o, "index", &iv)) {
        index = (long) json_object_get_int64(iv);
        at = rc_double_find(index);
        if (at >= 0) {
            json_object_put(top);
            snprintf(path, sizeof path, "/lightrail-roadm:roadm/media-"
                     "channels/channel[index='%ld']", index);
            rcd_error(req, 409, "data-exists", path, "the channel exists");
            return;
        }
    }
    snprintf(path, sizeof path, "/lightrail-roadm:roadm/media-channels/"
             "channel[index='%ld']", index);
    if (!json_object_object_get_ex(o, "index", &iv)
        || json_object_get_int64(iv) != index || index < 1 || !name || !lo
        || !up) {
        json_object_put(top);
        rcd_error(req, 400, "invalid-value", path,
                  "index, name and both frequencies are required");
        return;
    }
    if (strtoll(up, NULL, 10) <= strtoll(lo, NULL, 10)) {
        json_object_put(top);
        rcd_error(req, 400, "invalid-value", path,
                  "the upper frequency must be above the lower frequency");
        return;
    }
    for (int i = 0; i < RCD_MAX_CH; i++)
        if (rcd.ch[i] && i != at
            && !strcmp(rc_double_str(rcd.ch[i], "name"), name)) {
            json_object_put(top);
            rcd_error(req, 409, "data-exists", path, "name is not unique");
            return;
        }
    if (at < 0)
        for (at = 0; at < RCD_MAX_CH && rcd.ch[at]; at++)
            continue;
    if (at == RCD_MAX_CH) {
        json_object_put(top);
        /* RFC 8040 section 7 gives resource-denied 409 alone. */
        rcd_error(req, 409, "resource-denied", path,
                  "the test double holds 64 channels at most");
        return;
    }
    json_object_put(rcd.ch[at]);
    rcd.ch[at] = json_object_get(o);
    json_object_put(top);
    evhttp_send_reply(req, 201, NULL, NULL);
}

static void
rcd_handle(struct evhttp_request *req)
{
    const char *uri = evhttp_request_get_uri(req);
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    int d = atomic_load(&rcd.delay_ms);
    if (d > 0)
        usleep((useconds_t) d * 1000);
    if (!strncmp(uri, "/test-double/", 13)) {
        rcd_control(req);
        return;
    }
    if (strncmp(uri, RCD_PREFIX, strlen(RCD_PREFIX))) {
        rcd_error(req, 404, "invalid-value", NULL, "no such resource");
        return;
    }
    const char *rest = uri + strlen(RCD_PREFIX);
    if (!*rest && cmd == EVHTTP_REQ_GET) {
        rcd_get_all(req);
        return;
    }
    if (!*rest && cmd != EVHTTP_REQ_POST) {
        rcd_error(req, 405, "operation-not-supported", NULL, "GET, POST");
        return;
    }
    long index = -1;
    if (*rest && (sscanf(rest, "/channel=%ld", &index) != 1 || index < 1)) {
        rcd_error(req, 404, "invalid-value", NULL, "no such resource");
        return;
    }
    if (*rest && cmd != EVHTTP_REQ_PUT && cmd != EVHTTP_REQ_DELETE) {
        rcd_error(req, 405, "operation-not-supported", NULL, "PUT, DELETE");
        return;
    }
    int n = atomic_fetch_add(&rcd.changes, 1) + 1;
    int die = atomic_load(&rcd.die_change);
    if (die > 0 && n == die)
        _exit(9);   /* as if killed: the connection closes unanswered */
    int f = atomic_load(&rcd.fail_change);
    if ((f > 0 && n == f)
        || (cmd == EVHTTP_REQ_DELETE && atomic_load(&rcd.fail_deletes))) {
        atomic_store(&rcd.fail_change, 0);
        rcd_fail(req);
        return;
    }
    int at = index > 0 ? rc_double_find(index) : -1;
    if (cmd == EVHTTP_REQ_PUT || cmd == EVHTTP_REQ_POST) {
        rcd_put(req, index, at);
        return;
    }
    if (at < 0) {
        rcd_error(req, 404, "invalid-value", NULL, "no such media channel");
        return;
    }
    json_object_put(rcd.ch[at]);
    rcd.ch[at] = NULL;
    evhttp_send_reply(req, 204, NULL, NULL);
}

/* Every request, counted as it comes and once answered (the test waits
 * for a late answer with these rather than a sleep). */
static void
rcd_on_request(struct evhttp_request *req, void *arg)
{
    (void) arg;
    atomic_fetch_add(&rcd.received, 1);
    rcd_handle(req);
    atomic_fetch_add(&rcd.answered, 1);
}

static struct bufferevent *
rcd_bevcb(struct event_base *base, void *arg)
{
    (void) arg;
    return bufferevent_openssl_socket_new(base, -1, SSL_new(rcd.ssl),
                                          BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE);
}

int
rc_double_start(const char *cert, const char *key, int port)
{
    rcd.ssl = SSL_CTX_new(TLS_server_method());
    if (!rcd.ssl || SSL_CTX_use_certificate_chain_file(rcd.ssl, cert) != 1
        || SSL_CTX_use_PrivateKey_file(rcd.ssl, key, SSL_FILETYPE_PEM) != 1) {
        fprintf(stderr, "restconf double: cannot use the certificate %s "
                "and key %s\n", cert, key);
        SSL_CTX_free(rcd.ssl);
        rcd.ssl = NULL;
        return 1;
    }
    if (lr_dbl_loop_start(&rcd.loop, port, EVHTTP_REQ_GET | EVHTTP_REQ_PUT
                                     | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE,
                          rcd_on_request, rcd_bevcb, NULL)) {
        SSL_CTX_free(rcd.ssl);
        rcd.ssl = NULL;
        return 1;
    }
    rcd.port = rcd.loop.port;
    return 0;
}

void
rc_double_stop(void)
{
    lr_dbl_loop_stop(&rcd.loop);
    rc_double_clear();
    SSL_CTX_free(rcd.ssl);
    rcd.ssl = NULL;
}
