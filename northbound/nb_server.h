/*
 * nb_server: the controller's HTTPS server (libevent evhttp + OpenSSL),
 * the edge where requests become calls into the controller.
 *
 * Routing is a table of {method, path prefix, handler} rows (FRRouting's
 * northbound tables are the model); the server authenticates (bearer
 * token or client certificate), enforces the body limit, answers what no
 * row claims (404, or 405 when the path exists with another method),
 * times every request into a latency histogram, and while draining
 * answers 503.  Errors are RFC 8040 "ietf-restconf:errors" bodies.
 *
 * One event_base, owned by main; handlers run in its callbacks and must
 * not block.  Ownership: a handler fills 'resp'; the server frees
 * resp->body (malloc'ed) after sending.
 *
 * Deferred replies: a handler whose answer needs work off the loop
 * (lightraild: the devices of a job) calls nb_defer() and leaves 'resp'
 * alone; the server keeps the request and answers it when the loop's
 * thread calls nb_pending_reply().  A client that goes away meanwhile
 * costs nothing: the server drops what it held of the request at once
 * (libevent's connection close callback), and the reply, when it comes,
 * is counted and thrown away.  Draining (nb_server_drain) refuses new
 * requests only; the owner of the pending work decides when to stop
 * (lightraild waits until none is left), and nb_server_free() leaves
 * the tokens valid: a later nb_pending_reply() sends nothing.
 */
#ifndef NB_SERVER_H
#define NB_SERVER_H 1

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct event_base;
struct nb_read;
struct nb_server;

enum nb_method {
    NB_GET = 1,
    NB_POST = 2,
    NB_PUT = 4,
    NB_DELETE = 8,
    NB_PATCH = 16,
};

struct nb_request {
    enum nb_method method;
    const char *path;         /* decoded, without the query */
    const char *raw_path;     /* as sent (percent-encoded), for a handler
                               * that routes below its own prefix row as
                               * the server does (a row's own part must be
                               * sent as written); NULL when not sent */
    const char *query;        /* each name and value percent-decoded,
                               * '&' and '=' as sent; or NULL */
    const char *body;         /* NUL-terminated; "" when none */
    size_t body_len;
    const char *principal;    /* who: the token's name or the cert CN */
    void *server_ctx;         /* the server's, for nb_defer() */
    /* The preconditions (RFC 9110 section 13.1) as sent, or NULL when
     * absent: a handler whose resource has validators judges them with
     * nb_cond_check() (nb_cond.h); for other routes the server has.  A field sent on several lines
     * comes joined with ", " (RFC 9110 5.3). */
    const char *if_match, *if_none_match;
    const char *if_modified_since, *if_unmodified_since;
    /* Set by a handler that calls another's row for a datastore holding
     * configuration only (RFC 8342 5.1.3's running, under /restconf/ds):
     * what the called handler selects by (the jobs' where and sort-by)
     * is judged on the configuration alone.  The server sets false. */
    bool config_only;
    /* Set by a handler that cuts what the called one answers to its
     * configuration (content=config, or running, RFC 8342 5.1.3): the
     * called handler may build its text without the state (config false
     * nodes) the cut drops, which selects as before (config_only says
     * how).  The server sets false.  Also set by the datastore's
     * handler for a member whose state its fields keep none of. */
    bool config_text;
    /* Set by a handler that cuts what the called one answers with read
     * parameters the called resource's own query does not hold (a
     * resource under /restconf/ds: content, depth and fields judged on
     * that resource): the called handler may build its text without the
     * state these keep none of, as it would for its own query.  The
     * server sets NULL. */
    const struct nb_read *cut;
};

/* An entity-tag as sent in ETag: '"', 32 hex digits, '"' (nb_cond.h). */
#define NB_ETAG_MAX 35

struct nb_response {
    int status;
    char *body;               /* malloc'ed; freed by the server */
    const char *content_type; /* default "application/yang-data+json" */
    char location[320];       /* a Location header when not "" (RFC 8040
                               * 4.4.1: a 201's new resource) */
    /* The resource's validators (RFC 8040 3.4.1.2, 3.4.1.3): an ETag
     * header when not "" (the tag with its quotes), a Last-Modified
     * header (an HTTP-date) when not 0. */
    char etag[NB_ETAG_MAX];
    time_t last_modified;
};

typedef void nb_handler(void *arg, const struct nb_request *,
                        struct nb_response *);

/* What the resource a path names takes in its query (nb_exists). */
struct nb_query_rule {
    /* The parameters taken, space-separated as nb_route's 'query'
     * (NULL: none). */
    const char *taken;
    /* Parameters (space-separated; NULL: none) the resource knows of
     * but does not take here, and what to do instead: a phrase after
     * "the query parameter 'NAME' ".  One of them is refused as any
     * parameter not taken, in these words before the list taken (e.g.
     * with-origin on the running datastore: operational's alone). */
    const char *refused;
    const char *advice;
};

/* Whether the path of 'req' (req->path decoded, req->raw_path as sent)
 * names a resource of a prefix row that matches more than it serves,
 * and what that resource takes: true, or false with the answer (a 404
 * saying what there is) in the response.  On true, '*rule' may be set
 * to the query parameters of the resource found, its strings borrowed
 * for as long as the route table lives: the server then judges the
 * query by them, not by the row's 'query', so that a row serving
 * resources that take different parameters (the NMDA datastores' rows,
 * each resource below one taking what it takes under /restconf/data)
 * refuses each parameter as the resource's own row would, in the same
 * words.  The server sets it to the row's 'query' (nothing refused)
 * before it asks. */
typedef bool nb_exists(void *arg, const struct nb_request *,
                       struct nb_query_rule *rule, struct nb_response *);

struct nb_route {
    unsigned methods;         /* NB_GET | NB_POST ... */
    const char *path;         /* exact path, or a prefix ending in '=' or
                               * '/' that matches anything after it */
    nb_handler *handler;
    bool public;              /* answered without authentication */
    /* The query parameters the resource takes, space-separated (NULL:
     * none): a request with another, or with one twice, is answered 400
     * invalid-value before the handler runs (RFC 8040, 4.8), one with a
     * broken percent-escape 400 malformed-message; the handler judges
     * the decoded values.  'exists' may name others for the resource a
     * path names (nb_exists).  OPTIONS is judged by the same list (of
     * the first row that knows the path), or by a later row's that
     * knows it (another method's) when that one takes the query: its
     * target is the resource the query names too (RFC 9110 7.1), so a
     * query no method of it takes is the first row's 400, and one a
     * method takes is no question OPTIONS answers: 204 as without it. */
    const char *query;
    /* The handler knows the resource's validators and judges the
     * preconditions itself (nb_cond_check()); false: the server does
     * before the handler runs (nb_cond_check_untagged(): an If-Match
     * other than '*' is 412, nothing done). */
    bool validators;
    /* What a 405 from this row adds to its message (NULL: nothing),
     * e.g. where the writes it refuses go instead; the first row that
     * knows the path gives it.  Borrowed, as 'query'. */
    const char *not_allowed;
    /* NULL: every path the row matches is a resource.  Otherwise asked
     * when this row is the first that knows the path, after
     * authentication and before OPTIONS, the method and the query are
     * judged, so that a path naming nothing is 404 to every method
     * (the NMDA datastores' catch-all: a datastore lightraild has not),
     * and what it names may take its own query parameters. */
    nb_exists *exists;
};

struct nb_token {
    const char *name;         /* who holds it, for logs */
    const char *secret;
};

/* The listener's TLS context: its certificate, key and client CA as
 * nb_server_config_check() loaded them, for nb_server_new() (opaque). */
struct nb_server_tls;

struct nb_server_config {
    const char *address;      /* "127.0.0.1" */
    int port;                 /* 0 = any free port (see nb_server_port) */
    bool tls;
    const char *cert_file, *key_file;
    const char *client_ca_file;   /* client certificates, or NULL */
    const struct nb_token *tokens;
    int n_tokens;
    size_t max_body;          /* bytes; larger bodies get 413 */
    /* Connections open at once; 0: NB_MAX_CONNS.  Over TLS, at the cap a
     * new connection takes the place of the oldest one that never sent
     * valid credentials, else it is refused.  Plain HTTP stops accepting
     * at the cap: new connections wait in the kernel's backlog until one
     * closes (idle ones close after a minute). */
    int max_conns;
    /* HTTPS: the context nb_server_config_check() made of cert_file,
     * key_file and client_ca_file, or NULL: nb_server_new() then loads
     * the files itself.  Borrowed: the server takes a reference of its
     * own to the one context, and the caller still frees its
     * nb_server_tls, whatever nb_server_new() returned. */
    struct nb_server_tls *loaded;
};
#define NB_MAX_CONNS 64

/* What nb_server_new() refuses of 'cfg' before it opens anything (the
 * port's range, HTTPS without its files, a client CA without HTTPS,
 * plain HTTP on an address that is not a loopback one, a certificate,
 * key or client CA file that does not load): 0, or EINVAL (ENOMEM when
 * OpenSSL cannot make a context) with the reason in 'err'.  For a caller
 * that must refuse such a configuration before it makes anything else
 * (lightraild, before its state directory and store).  Of an HTTPS
 * configuration the files are loaded once, here: '*tls' gets the
 * context, which the caller gives nb_server_new() as cfg->loaded and
 * frees with nb_server_tls_free(); NULL for plain HTTP and on error.
 * 'tls' NULL: the context is let go (a check alone). */
int nb_server_config_check(const struct nb_server_config *,
                           struct nb_server_tls **tls,
                           char *err, size_t errlen);
void nb_server_tls_free(struct nb_server_tls *);

/* Listens and serves on 'base'.  Plain HTTP (tls = false) is refused
 * unless the address is a loopback one (nb_server_config_check()).
 * With cfg->loaded the server uses that context and reads no file.  The
 * caller frees the server with nb_server_free() before the base. */
int nb_server_new(struct event_base *, const struct nb_server_config *,
                  const struct nb_route *routes, int n_routes, void *arg,
                  struct nb_server **out, char *err, size_t errlen);
void nb_server_free(struct nb_server *);

/* A request whose answer comes later (see the top). */
struct nb_pending;

/* In a handler: answer 'req' later.  Returns the token, or NULL when
 * out of memory (then the handler answers now, as usual).  The token is
 * the caller's until it gives it to nb_pending_reply(), exactly once,
 * from the loop's thread, whatever became of the client or the
 * server. */
struct nb_pending *nb_defer(const struct nb_request *req);

/* Sends 'resp' (the server takes resp->body) for the deferred request
 * if its client is still there, counts it in the metrics, and frees
 * 'pending'.  Called before the handler that deferred returns (the
 * work turned out to need no wait), it answers as the handler itself
 * would have: the server sends 'resp' when the handler returns. */
void nb_pending_reply(struct nb_pending *pending, struct nb_response *resp);

/* True once the client of 'pending' has left: the reply will be
 * dropped (the token must still be given to nb_pending_reply()). */
bool nb_pending_gone(const struct nb_pending *pending);

/* Requests deferred and not answered yet; clients that left included. */
int nb_server_pending(const struct nb_server *);

/* The port actually bound. */
int nb_server_port(const struct nb_server *);

/* From now on every request gets 503 (shutdown in progress). */
void nb_server_drain(struct nb_server *);

/* Judges an error body the server is about to send (a status of 400 or
 * above, with a body: RFC 8040 7.1's ietf-restconf:errors), for a
 * caller that knows the schema the server, free of libyang, does not
 * (lightraild: ietf-restconf's yang-errors).  True when it is valid; the
 * caller reports why it is not.  Called on the loop's thread, before the
 * body is sent, as it is whatever the answer; one judged invalid counts
 * in lightrail_http_error_bodies_invalid_total. */
typedef bool nb_error_check(void *arg, int status, const char *body);

/* Sets the check of every error body the server sends ('check' NULL:
 * none, the default).  'arg' is borrowed until the server is freed. */
void nb_server_set_error_check(struct nb_server *, nb_error_check *check,
                               void *arg);

/* Appends the server's own metrics in Prometheus text format
 * (lightrail_http_requests_total, lightrail_http_request_seconds
 * histogram, lightrail_http_error_bodies_invalid_total...) to a
 * malloc'ed string '*buf' of length '*len'. */
int nb_server_metrics(const struct nb_server *, char **buf, size_t *len);

/* 'in' as a label value of the Prometheus text format (0.0.4: '\\',
 * '"' and a line feed escaped) into out[len], cut before a character
 * that does not fit whole. */
void nb_metrics_label(const char *in, char *out, size_t len);

/* Whether the 'n' bytes at 'name' are one of the space-separated
 * 'words' (NULL: none), as a row's 'query' is matched. */
bool nb_word_in(const char *words, const char *name, size_t n);

/* Fills 'resp' with an RFC 8040 error: status, error-tag (e.g.
 * "invalid-value", "data-exists", "access-denied"), error-path and a
 * message.  The error-path is ietf-restconf's instance-identifier (RFC
 * 7951 6.11: "/lightrail-job:jobs/job[name='j1']"), naming a node of
 * the server's schema, never a request's URL: NULL when there is none
 * (a path that names no resource, a refusal of the request as a
 * whole). */
void nb_error(struct nb_response *resp, int status, const char *tag,
              const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Adds 'json' (a JSON object in a string, e.g. an operation's output)
 * as the error-info of the first error in the RFC 8040 error body of
 * 'resp' (RFC 8040 7.1: anydata); the body stays as it was when either
 * does not parse or memory runs out. */
void nb_error_info(struct nb_response *resp, const char *json);

/* Adds 'app_tag' as the error-app-tag of the first error in the RFC 8040
 * error body of 'resp' (RFC 8040 7.1: a more specific reason than the
 * error-tag, e.g. "offset-out-of-range"); the body stays as it was when
 * it does not parse or memory runs out. */
void nb_error_app_tag(struct nb_response *resp, const char *app_tag);

#endif
