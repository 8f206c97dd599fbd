/*
 * nb_server: the northbound HTTP(S) server; the contract is in
 * nb_server.h.
 *
 * One request, in this order; each step that refuses answers and stops
 * (tags as in RFC 8040 section 7's table, but for 415 and 503, which
 * it has no row for: lr_yang_error_pair_ok() says which tag and why):
 *   0. framing in doubt (Content-Length twice or with Transfer-Encoding,
 *      a body on HEAD)                       400 malformed-message, closed
 *   1. draining                              503 resource-denied
 *   2. a TLS server, a connection without TLS 500 operation-failed
 *      (SSL_new failed; past max_conns of clients' connections the
 *      handshake fails)
 *   3. a path that is absolute, well percent-encoded, free of control
 *      characters once decoded             400 malformed-message
 *   4. a body within max_body                413 too-big
 *   5. the route table: the rows that know the path, the first that
 *      takes the method (HEAD is GET without the body); a row's own
 *      part must be sent as it is written, only a list key after it
 *      percent-encoded
 *   6. authentication unless that row is public    401 access-denied
 *      (before 404 and 405, so that a stranger learns nothing of the
 *      table; public rows try it too, to name the principal if they can)
 *   7. no row knows the path                 404 invalid-value
 *      the first row that knows it says it names nothing (its
 *      'exists')                             its answer, a 404
 *      no row takes the method (not OPTIONS) 405 operation-not-supported
 *                                                with Allow
 *      a broken percent-escape or a control character in a query
 *      parameter's name or value             400 malformed-message
 *      a query parameter the row does not take (the resource's list
 *      when 'exists' gave one, with its advice for one it refuses;
 *      OPTIONS: the first row's, unless another row knowing the path
 *      takes the whole query), or one given twice (names compared
 *      decoded)                              400 invalid-value
 *      OPTIONS                               204 with Allow
 *      a body whose Content-Type is not JSON 415 invalid-value
 *      under /restconf, an Accept without JSON 406 invalid-value
 *   8. the handler; it answers now, or defers (nb_defer): then the
 *      request is kept, and its connection watched for the client's
 *      close, until nb_pending_reply().
 *
 * The body limit is enforced twice.  libevent's own limit
 * (evhttp_set_max_body_size) is what bounds memory, but the 413 it sends
 * is an HTML page that libevent 2.1 offers no hook to replace.  So
 * libevent's limit is NB_BODY_SLACK times ours, a body between the two
 * gets our RFC 8040 413 from step 4, and only a body beyond the slack
 * sees libevent's page.  EVHTTP_SERVER_LINGERING_CLOSE makes libevent
 * read the rest of an oversized body before answering, so the client
 * reads the 413 instead of a connection reset.  libevent's own answers
 * (that one, 400 for an unparsable request line) bypass the metrics.
 *
 * libevent answers 501 to a method outside evhttp_set_allowed_methods,
 * so every method is allowed there and step 7 answers 405 itself.
 *
 * Bearer tokens are compared as SHA-256 digests with CRYPTO_memcmp:
 * equal-length digests make the comparison constant-time whatever the
 * length of the secret offered, and every token is compared, so the
 * time says nothing about which one (if any) matched.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>

#include "northbound/nb_cond.h"
#include "northbound/nb_int.h"
#include "planner/lr_utf8.h"

#define NB_CONTENT_TYPE "application/yang-data+json"
#define NB_DEFAULT_MAX_BODY ((size_t) 1 << 20)
#define NB_BODY_SLACK 4
/* Headers beyond this are an attack or a bug; libevent answers 400. */
#define NB_MAX_HEADERS (64 * 1024)
/* A connection silent this long is dropped (slow-loris clients). */
#define NB_TIMEOUT_S 60
/* TLS connections open at once, at most (cfg->max_conns): with
 * libevent's body limit (NB_BODY_SLACK x max_body, read before the token
 * can be checked: libevent 2.1 has no hook between the headers and the
 * body), what strangers can make the server hold.  At the cap a new
 * connection takes the place of the oldest one that never sent a
 * request with valid credentials (nb_tls_evict): strangers holding
 * every slot, idle or trickling bytes, would otherwise lock every client
 * out.  When all are a client's, one more is handed a plain socket, on
 * which its TLS handshake fails at once.
 *
 * Plain HTTP (loopback only) has the same cap for another reason: each
 * connection is a descriptor, and a local process opening thousands
 * would leave lightraild none for its devices and its store.  libevent
 * does not say when a plain connection ends, so the kernel is asked
 * (nb_conns_count) once the accepts since the last count reach the cap;
 * at the cap the listener stops accepting (new connections wait in the
 * kernel's backlog) and is counted again every NB_RESUME_MS until one
 * has closed.  No eviction: a local process may still hold every slot,
 * which denies the API only, not the daemon's descriptors. */
#define NB_RESUME_MS 200
#define NB_PRINCIPAL_MAX 256
#define NB_ALL_METHODS (NB_GET | NB_POST | NB_PUT | NB_DELETE | NB_PATCH)

/* A row of the caller's table, copied so the caller's may go away. */
struct nb_srv_route {
    struct nb_route r;          /* r.path points at 'path' */
    char *path;
    size_t len;
    bool prefix;                /* the path ends in '=' or '/' */
};

/* A TLS connection, from nb_server_bevcb until OpenSSL frees its SSL
 * (nb_ssl_gone), whose ex_data points here. */
struct nb_tls_conn {
    struct nb_tls_conn *next, **prev;   /* srv->conns, newest first */
    struct nb_server *srv;              /* NULL once the server is freed */
    struct bufferevent *bev;            /* libevent's; lives as long */
    bool trusted;       /* a request on it had valid credentials */
    bool evicted;       /* its socket shut down, no longer counted */
};

/* The SSL ex_data slot of a connection's nb_tls_conn. */
static int nb_ssl_index = -1;
static pthread_once_t nb_ssl_once = PTHREAD_ONCE_INIT;

struct nb_srv_token {
    char *name;
    unsigned char digest[SHA256_DIGEST_LENGTH];  /* of the secret */
};

struct nb_server {
    struct event_base *base;    /* the caller's */
    struct evhttp *http;        /* owned, with its listener */
    SSL_CTX *ssl;               /* owned; NULL for plain HTTP */
    struct nb_srv_route *routes;
    int n_routes;
    struct nb_srv_token *tokens;
    int n_tokens;
    void *arg;                  /* the handlers' */
    size_t max_body;
    int port;
    bool draining;
    struct nb_metrics metrics;
    struct nb_pending *pending;  /* deferred requests, newest first */
    int n_pending;
    struct nb_tls_conn *conns;  /* TLS connections open */
    int n_tls;                  /* of them, those not evicted */
    int max_conns;
    /* Plain HTTP: the listener, its address, the connections counted
     * by nb_conns_count plus those accepted since, and, while the
     * listener is paused at the cap, the timer that counts again. */
    struct evconnlistener *listener;    /* libevent's, in 'http' */
    struct sockaddr_storage local;
    int n_plain;
    struct event *resume;
    nb_error_check *error_check;        /* NULL: error bodies unjudged */
    void *error_check_arg;              /* the caller's */
};

/* A deferred request.  'req' is NULL once libevent no longer has it for
 * us (the client went away, or the server was freed); 'srv' is NULL once
 * the server is gone.  The token itself is freed by nb_pending_reply()
 * alone, so whoever holds it never sees it dangle. */
struct nb_pending {
    struct nb_pending *next, **prev;  /* srv->pending */
    /* While its handler still runs: where an answer given meanwhile goes
     * (nb_pending_reply), to be sent as the handler's own. */
    struct nb_defer_ctx *ctx;
    struct nb_server *srv;
    struct evhttp_request *req;
    struct event *watch;              /* the client's close, or NULL */
    bool head;
    double t0;
};

/* What a handler may defer: filled by nb_server_on_request. */
struct nb_defer_ctx {
    struct nb_pending *pending;       /* set by nb_defer() */
    bool answered;                    /* answered before the handler
                                       * returned: 'resp' is the answer */
    struct nb_response resp;
};

static double
nb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool
nb_is_loopback(const char *address)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, address, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, address, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6)
               || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
    return false;
}

static int
nb_digest(const char *s, size_t n, unsigned char out[SHA256_DIGEST_LENGTH])
{
    unsigned int len = 0;
    if (EVP_Digest(s, n, out, &len, EVP_sha256(), NULL) != 1
        || len != SHA256_DIGEST_LENGTH)
        return ENOMEM;
    return 0;
}

static int
nb_hex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes the 'n' bytes at 's' into 'w' (room for 'n' bytes; no
 * NUL is added): the decoded length, or -1 for a broken escape ('%' not
 * followed by two hex digits) or a control character (NUL included)
 * before or after decoding.  '+' stays '+': RFC 3986 gives it no
 * meaning, and '+' for a space is HTML forms' (x-www-form-urlencoded),
 * which RFC 8040's paths and queries are not.  libevent's
 * evhttp_uridecode() would do, but it copies a broken escape as it is
 * where a request with one must be refused. */
static long
nb_decode(const char *s, size_t n, char *w)
{
    const char *end = s + n;
    char *w0 = w;
    for (; s < end; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '%') {
            int hi = end - s >= 3 ? nb_hex(s[1]) : -1;
            int lo = hi >= 0 ? nb_hex(s[2]) : -1;
            if (lo < 0)
                return -1;
            c = (unsigned char) (hi * 16 + lo);
            s += 2;
        }
        if (c < 0x20 || c == 0x7f)
            return -1;
        *w++ = (char) c;
    }
    return (long) (w - w0);
}

/* Percent-decodes 'raw' into a malloc'ed '*out': 0, EINVAL for what
 * nb_decode() refuses, or ENOMEM. */
static int
nb_decode_path(const char *raw, char **out)
{
    size_t n = strlen(raw);
    char *p = malloc(n + 1);
    if (!p)
        return ENOMEM;
    long len = nb_decode(raw, n, p);
    if (len < 0) {
        free(p);
        return EINVAL;
    }
    p[len] = '\0';
    *out = p;
    return 0;
}

static bool
nb_route_matches(const struct nb_srv_route *r, const char *path)
{
    return r->prefix ? !strncmp(path, r->path, r->len) : !strcmp(path, r->path);
}

/* Whether the media type at 't' (up to ';', ',' or the end, case and
 * blanks aside) is one of the JSON types this server speaks, or, with
 * 'ranges', a range that covers them (an Accept's star forms). */
static bool
nb_json_type(const char *t, bool ranges)
{
    static const char *const ok[] = {
        "application/yang-data+json", "application/json",
        "application/*", "*/*",
    };
    while (*t == ' ' || *t == '\t')
        t++;
    size_t n = strcspn(t, ";, \t");
    for (size_t i = 0; i < (ranges ? 4 : 2); i++)
        if (strlen(ok[i]) == n && !strncasecmp(t, ok[i], n))
            return true;
    return false;
}

/* RFC 8040 5.2: 0, or the status (415: a body in another type than
 * JSON; 406: an Accept that takes no JSON) with its line in err[]. */
static int
nb_media_check(struct evhttp_request *req, size_t body_len, char *err,
               size_t errlen)
{
    struct evkeyvalq *h = evhttp_request_get_input_headers(req);
    const char *ct = evhttp_find_header(h, "Content-Type");
    if (body_len && ct && !nb_json_type(ct, false)) {
        snprintf(err, errlen, "a body of type '%s': send "
                 "application/yang-data+json", LR_UTF8_CLIP(ct, 64));
        return 415;
    }
    /* Accept is RFC 8040's concern for the root /restconf and under it
     * only (/metrics answers Prometheus's text, host-meta XRD);
     * strchr() finds the terminator too: "/restconf" itself. */
    const char *acc = evhttp_find_header(h, "Accept");
    const char *uri = evhttp_request_get_uri(req);
    if (!uri || strncmp(uri, "/restconf", 9) || !strchr("/?", uri[9]))
        return 0;
    if (!acc || !*acc)
        return 0;
    for (const char *p = acc; *p; p += *p == ',') {
        if (nb_json_type(p, true))
            return 0;
        p += strcspn(p, ",");
    }
    snprintf(err, errlen, "Accept '%s' takes no JSON: this server "
             "answers application/yang-data+json", LR_UTF8_CLIP(acc, 64));
    return 406;
}

/* Whether the request's framing is in doubt: Content-Length given twice,
 * Content-Length with Transfer-Encoding, or either on HEAD (whose body,
 * unread by libevent, would be taken for the next request). */
static bool
nb_framing_bad(struct evhttp_request *req)
{
    const struct evkeyvalq *h = evhttp_request_get_input_headers(req);
    const struct evkeyval *kv;
    int lengths = 0, encodings = 0;
    for (kv = h->tqh_first; kv; kv = kv->next.tqe_next) {
        lengths += !strcasecmp(kv->key, "Content-Length");
        encodings += !strcasecmp(kv->key, "Transfer-Encoding");
    }
    if (lengths > 1 || (lengths && encodings))
        return true;
    if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD)
        return false;
    const char *cl = evhttp_find_header(h, "Content-Length");
    return encodings || (cl && strcmp(cl, "0"));
}

bool
nb_word_in(const char *words, const char *name, size_t n)
{
    for (const char *w = words; w && *w;) {
        size_t len = strcspn(w, " ");
        if (len == n && !memcmp(w, name, n))
            return true;
        w += len;
        w += *w == ' ';
    }
    return false;
}

/* Whether the 'n' bytes at 's' print as they are in a message. */
static bool
nb_printable(const char *s, size_t n)
{
    bool ok = n > 0;
    for (size_t i = 0; i < n && ok; i++)
        ok = s[i] > ' ' && s[i] < 0x7f;
    return ok;
}

/* The raw 'query' ("a&b=c") with each parameter's name and value
 * percent-decoded (RFC 3986 6.2.2.2: %6Cimit=%31 is limit=1), into a
 * malloc'ed '*out' that the caller frees (NULL for no query), which the
 * handlers match and parse; the separators '&' and '=' stay as sent.
 * 0 when every parameter is one 'rule' takes ('allowed', its 'taken'),
 * none comes twice once decoded and every escape is whole;
 * else, with the line in err[]: EILSEQ for a broken escape or a control
 * character in a name or a value (400 malformed-message, as in the
 * path), EINVAL for a parameter not allowed (one the rule refuses in
 * the words of its advice), one twice, or a value with an escaped '&'
 * (the decoded query could not show where it ends; no value of an
 * allowed parameter has one) (400 invalid-value), or ENOMEM. */
static int
nb_query_decode(const char *query, const struct nb_query_rule *rule,
                char **out, char *err, size_t errlen)
{
    const char *allowed = rule->taken;
    *out = NULL;
    if (!query)
        return 0;
    char *d = malloc(strlen(query) + 1), *w = d;
    if (!d)
        return ENOMEM;
    int rc = 0;
    for (const char *p = query; *p;) {
        const char *end = p + strcspn(p, "&");
        size_t n = strcspn(p, "&=");
        if (end == p) {               /* "a&&b": nothing between */
            *w++ = *p++;
            continue;
        }
        char *name = w;
        long len = nb_decode(p, n, name);
        if (len < 0) {
            bool printable = nb_printable(p, n);
            snprintf(err, errlen, "the query parameter %s%.*s%s has a "
                     "malformed percent-escape or a control character: "
                     "send each escape as '%%' and two hex digits "
                     "(%%6Cimit is limit), and no control character",
                     printable ? "'" : "", printable ? (int) (n < 40 ? n
                                                                : 40) : 0,
                     p, printable ? "'" : "(not printable)");
            rc = EILSEQ;
            goto cleanup;
        }
        size_t nl = (size_t) len;
        w += nl;
        /* The names before this one are allowed ones, so none holds a
         * decoded '&' or '=', nor does a value before it a '&'. */
        bool twice = false;
        for (const char *q = d; q < name && !twice;) {
            size_t m = strcspn(q, "&=");
            twice = m == nl && !memcmp(q, name, nl);
            q += strcspn(q, "&");
            q += *q == '&';
        }
        if (!nl) {                    /* "?=1": nothing to name */
            snprintf(err, errlen, "a query parameter without a name: "
                     "this resource takes %s%s", allowed ? "only " : "none",
                     allowed ? allowed : "");
            rc = EINVAL;
            goto cleanup;
        }
        if (!twice && !nb_word_in(allowed, name, nl)
            && nb_word_in(rule->refused, name, nl)) {
            snprintf(err, errlen, "the query parameter '%.*s' %s; this "
                     "resource takes %s%s", (int) nl, name, rule->advice,
                     allowed ? "only " : "none", allowed ? allowed : "");
            rc = EINVAL;
            goto cleanup;
        }
        if (!nb_word_in(allowed, name, nl) || twice) {
            bool printable = nb_printable(name, nl);
            snprintf(err, errlen, "%s query parameter %s%.*s%s: this "
                     "resource takes %s%s", twice ? "a repeated" : "an "
                     "unknown", printable ? "'" : "",
                     printable ? (int) nl : 0, name,
                     printable ? "'" : "(not printable)",
                     allowed ? "only " : "none", allowed ? allowed : "");
            rc = EINVAL;
            goto cleanup;
        }
        if (p[n] == '=') {
            const char *v = p + n + 1;
            *w++ = '=';
            len = nb_decode(v, (size_t) (end - v), w);
            if (len < 0 || memchr(w, '&', (size_t) len)) {
                size_t vl = (size_t) (end - v);
                snprintf(err, errlen, "the query's %.*s has %s in its "
                         "value '%.*s': send each escape as '%%' and two "
                         "hex digits (%.*s=%%31 is %.*s=1)%s", (int) nl,
                         name, len < 0 ? "a malformed percent-escape or a "
                         "control character" : "an escaped '&'",
                         nb_printable(v, vl) ? (int) (vl < 40 ? vl : 40)
                                             : 0, v, (int) nl, name,
                         (int) nl, name, len < 0 ? ", and no control "
                         "character" : ", and no '&' (%26) in a value");
                rc = len < 0 ? EILSEQ : EINVAL;
                goto cleanup;
            }
            w += len;
        }
        p = end;
        if (*p)
            *w++ = *p++;
    }
    *w = '\0';
    *out = d;
    d = NULL;

cleanup:
    free(d);
    return rc;
}

/* Whether a row after 'first' that knows the path ('path' decoded,
 * 'raw' as sent; as nb_server_on_request() matches) takes 'query' by its
 * own list: OPTIONS of a resource whose methods are rows of their own
 * is no 400 for a query one of those methods takes. */
static bool
nb_later_row_takes(const struct nb_server *srv,
                   const struct nb_srv_route *first, const char *path,
                   const char *raw, const char *query)
{
    char *decoded, err[512];
    for (const struct nb_srv_route *r = first + 1;
         r < srv->routes + srv->n_routes; r++) {
        if (!nb_route_matches(r, path) || !nb_route_matches(r, raw))
            continue;
        struct nb_query_rule rule = { .taken = r->r.query };
        if (!nb_query_decode(query, &rule, &decoded, err, sizeof err)) {
            free(decoded);
            return true;
        }
    }
    return false;
}

static void
nb_allow_string(unsigned methods, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%sOPTIONS",
             methods & NB_GET ? "GET, HEAD, " : "",
             methods & NB_POST ? "POST, " : "",
             methods & NB_PUT ? "PUT, " : "",
             methods & NB_PATCH ? "PATCH, " : "",
             methods & NB_DELETE ? "DELETE, " : "");
}

static const char *
nb_method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    case EVHTTP_REQ_TRACE: return "TRACE";
    case EVHTTP_REQ_CONNECT: return "CONNECT";
    case EVHTTP_REQ_PATCH: return "PATCH";
    }
    return "this method";
}

/* The TLS session under a request, or NULL on a plain connection. */
static SSL *
nb_request_ssl(struct evhttp_request *req)
{
    struct evhttp_connection *c = evhttp_request_get_connection(req);
    struct bufferevent *bev = c ? evhttp_connection_get_bufferevent(c) : NULL;
    return bev ? bufferevent_openssl_get_ssl(bev) : NULL;
}

/* Who sent 'req': a verified client certificate's CN first, else the
 * name of the bearer token.  0; ENOENT when no credential was offered
 * (or only another scheme); EACCES when the token offered is wrong. */
static int
nb_authenticate(const struct nb_server *srv, struct evhttp_request *req,
                SSL *ssl, char *principal, size_t len)
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    if (ssl && !nb_tls_peer_cn(ssl, principal, len))
        return 0;
    const char *h = evhttp_find_header(evhttp_request_get_input_headers(req),
                                       "Authorization");
    if (!h || strncasecmp(h, "Bearer", 6) || (h[6] != ' ' && h[6] != '\t'))
        return ENOENT;
    const char *s = h + 6;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (!n || nb_digest(s, n, d))
        return EACCES;
    int found = -1;
    for (int i = 0; i < srv->n_tokens; i++)
        if (!CRYPTO_memcmp(d, srv->tokens[i].digest, sizeof d))
            found = i;
    if (found < 0)
        return EACCES;
    snprintf(principal, len, "%s", srv->tokens[found].name);
    return 0;
}

/* The preconditions of 'req' into 'rq' (RFC 9110 13.1).  A field sent
 * on several lines is one list (RFC 9110 5.3): its lines are joined with
 * ", " into one header of 'req' (libevent's find would give the first
 * alone, which could match where the whole list should not; two dates
 * joined are no date, and are ignored).  0, or ENOMEM. */
static int
nb_conditions(struct evhttp_request *req, struct nb_request *rq)
{
    static const char *const names[] = {
        "If-Match", "If-None-Match", "If-Modified-Since",
        "If-Unmodified-Since",
    };
    const char **fields[] = {
        &rq->if_match, &rq->if_none_match, &rq->if_modified_since,
        &rq->if_unmodified_since,
    };
    struct evkeyvalq *h = evhttp_request_get_input_headers(req);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = 0, len = 0;
        for (struct evkeyval *kv = h->tqh_first; kv; kv = kv->next.tqe_next)
            if (!strcasecmp(kv->key, names[i])) {
                n++;
                len += strlen(kv->value) + 2;
            }
        if (n > 1) {
            char *joined = malloc(len);
            if (!joined)
                return ENOMEM;
            joined[0] = '\0';
            for (struct evkeyval *kv = h->tqh_first; kv;
                 kv = kv->next.tqe_next)
                if (!strcasecmp(kv->key, names[i]))
                    strcat(strcat(joined, joined[0] ? ", " : ""),
                          kv->value);
            while (!evhttp_remove_header(h, names[i]))
                continue;
            int rc = evhttp_add_header(h, names[i], joined);
            free(joined);
            if (rc)
                return ENOMEM;
        }
        *fields[i] = evhttp_find_header(h, names[i]);
    }
    return 0;
}

/* Asks the caller's check (nb_server_set_error_check()) of the error
 * body in 'resp', if any, and counts a refusal.  'srv' may be NULL (the
 * server gone before a deferred answer). */
static void
nb_error_judge(struct nb_server *srv, const struct nb_response *resp)
{
    if (srv && srv->error_check && resp->status >= 400 && resp->body
        && !srv->error_check(srv->error_check_arg, resp->status,
                             resp->body))
        srv->metrics.invalid_errors++;
}

void
nb_server_set_error_check(struct nb_server *srv, nb_error_check *check,
                          void *arg)
{
    srv->error_check = check;
    srv->error_check_arg = arg;
}

/* Sends 'resp'; 'allow' (when not 0) goes into an Allow header,
 * 'www_auth' (when not NULL) into WWW-Authenticate. */
static void
nb_send(struct evhttp_request *req, const struct nb_response *resp,
        unsigned allow, bool head, const char *www_auth, bool close)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    char buf[96];
    if (allow) {
        nb_allow_string(allow, buf, sizeof buf);
        evhttp_add_header(h, "Allow", buf);
    }
    if (www_auth)
        evhttp_add_header(h, "WWW-Authenticate", www_auth);
    if (resp->location[0])
        evhttp_add_header(h, "Location", resp->location);
    if (resp->etag[0])
        evhttp_add_header(h, "ETag", resp->etag);
    if (resp->last_modified) {
        nb_http_date(resp->last_modified, buf, sizeof buf);
        evhttp_add_header(h, "Last-Modified", buf);
    }
    if (close)
        evhttp_add_header(h, "Connection", "close");
    /* Answers carry job and resource state: never from a cache. */
    evhttp_add_header(h, "Cache-Control", "no-store");
    if (resp->body && resp->status != 204 && resp->status != 304) {
        size_t n = strlen(resp->body);
        evhttp_add_header(h, "Content-Type", resp->content_type
                          ? resp->content_type : NB_CONTENT_TYPE);
        if (head) {
            /* libevent leaves Content-Length to us for HEAD. */
            snprintf(buf, sizeof buf, "%zu", n);
            evhttp_add_header(h, "Content-Length", buf);
        } else {
            evbuffer_add(evhttp_request_get_output_buffer(req),
                         resp->body, n);
        }
    }
    evhttp_send_reply(req, resp->status, NULL, NULL);
}

static void
nb_pending_unlink(struct nb_pending *p)
{
    if (!p->srv)
        return;
    *p->prev = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->srv->n_pending--;
    p->srv = NULL;
}

/* Lets go of the request: libevent detached it from its connection
 * (client gone: evhttp_connection_incoming_fail) and it is ours to free,
 * or it is still attached and libevent frees it with the connection. */
static void
nb_pending_unwatch(struct nb_pending *p)
{
    if (p->watch)
        event_free(p->watch);
    p->watch = NULL;
}

static void
nb_pending_drop_request(struct nb_pending *p)
{
    struct evhttp_connection *c;
    nb_pending_unwatch(p);
    if (!p->req)
        return;
    c = evhttp_request_get_connection(p->req);
    if (c)
        evhttp_connection_set_closecb(c, NULL, NULL);
    else
        evhttp_request_free(p->req);
    p->req = NULL;
}

/* The deferred request's connection is going away. */
static void
nb_pending_on_close(struct evhttp_connection *c, void *p_)
{
    struct nb_pending *p = p_;
    (void) c;
    nb_pending_drop_request(p);
}

/* The client closed its end while its answer was pending.  libevent
 * 2.1 reads nothing from a connection between a request and its reply
 * (and aborts on data it reads then), so it would notice only when the
 * reply fails; an EV_CLOSED watch (EPOLLRDHUP) sees the close at once,
 * even behind unread data such as a TLS close_notify.  The connection
 * goes now: evhttp_connection_free calls nb_pending_on_close, and frees
 * the request that is still on it.  A client that half-closes after its
 * request (shutdown(SHUT_WR), which HTTP/1.1 clients do not do) is taken
 * as gone too: its answer is dropped, the work it asked for is not. */
static void
nb_pending_on_hangup(evutil_socket_t fd, short what, void *p_)
{
    struct nb_pending *p = p_;
    (void) fd;
    (void) what;
    nb_pending_unwatch(p);
    struct evhttp_connection *c = p->req
                                  ? evhttp_request_get_connection(p->req)
                                  : NULL;
    if (c)
        evhttp_connection_free(c);
}

/* Watches the connection of 'p' for the client's close; without a
 * backend that reports it (EV_FEATURE_EARLY_CLOSE) the close is noticed
 * when the reply fails, which is as safe, only later. */
static void
nb_pending_watch(struct nb_pending *p, struct evhttp_connection *c)
{
    struct bufferevent *bev = evhttp_connection_get_bufferevent(c);
    evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
    if (fd < 0 || !(event_base_get_features(p->srv->base)
                    & EV_FEATURE_EARLY_CLOSE))
        return;
    p->watch = event_new(p->srv->base, fd, EV_CLOSED, nb_pending_on_hangup,
                         p);
    if (p->watch && event_add(p->watch, NULL))
        nb_pending_unwatch(p);
}

struct nb_pending *
nb_defer(const struct nb_request *rq)
{
    struct nb_defer_ctx *ctx = rq->server_ctx;
    if (!ctx || ctx->pending || ctx->answered)
        return NULL;
    ctx->pending = calloc(1, sizeof *ctx->pending);
    if (ctx->pending)
        ctx->pending->ctx = ctx;
    return ctx->pending;
}

bool
nb_pending_gone(const struct nb_pending *p)
{
    return !p->ctx && !p->req;
}

int
nb_server_pending(const struct nb_server *srv)
{
    return srv->n_pending;
}

void
nb_pending_reply(struct nb_pending *p, struct nb_response *resp)
{
    if (p->ctx) {
        /* Its handler has not returned yet: the server sends this as the
         * handler's answer. */
        p->ctx->pending = NULL;
        p->ctx->answered = true;
        p->ctx->resp = *resp;
        resp->body = NULL;
        free(p);
        return;
    }
    bool gone = !p->req;
    if (p->req && (resp->status < 100 || resp->status > 599)) {
        free(resp->body);
        resp->body = NULL;
        nb_error_protocol(resp, 500, "operation-failed", NULL,
                          "the handler gave no status (a bug; see the "
                          "controller's log)");
    }
    nb_pending_unwatch(p);
    if (p->req) {
        struct evhttp_connection *c = evhttp_request_get_connection(p->req);
        if (c)
            evhttp_connection_set_closecb(c, NULL, NULL);
        nb_error_judge(p->srv, resp);
        /* Sent, or freed by libevent when it has no connection left. */
        nb_send(p->req, resp, 0, p->head, NULL, false);
        p->req = NULL;
    }
    if (p->srv) {
        p->srv->metrics.deferred++;
        p->srv->metrics.abandoned += gone;
        nb_metrics_observe(&p->srv->metrics, resp->status, nb_now() - p->t0);
    }
    nb_pending_unlink(p);
    free(resp->body);
    resp->body = NULL;
    free(p);
}

static void
nb_server_on_request(struct evhttp_request *req, void *srv_)
{
    struct nb_server *srv = srv_;
    const double t0 = nb_now();
    struct nb_response resp = { .status = 0 };
    struct nb_defer_ctx defer = { NULL };
    struct nb_request rq = { .body = "", .principal = "",
                             .server_ctx = &defer };
    /* The longest line: a refused parameter's advice and a list. */
    char principal[NB_PRINCIPAL_MAX] = "", err_query[512];
    char *path = NULL, *query = NULL, *body = NULL;
    const char *www_auth = NULL;
    unsigned allow = 0;
    bool head = false, options = false, close = false;
    int rc;

    if (srv->draining) {
        /* RFC 8040 section 7 has no row for 503, which RFC 9110 15.6.4
         * makes the status a client retries; resource-denied is the
         * table's tag for want of a resource (lr_yang_error_pair_ok()
         * takes the pair as lightraild's exception). */
        nb_error_protocol(&resp, 503, "resource-denied", NULL,
                          "the server is shutting down; retry later or "
                          "on another controller");
        close = true;
        goto send;
    }
    if (nb_framing_bad(req)) {
        /* RFC 9112 6.3: the message's end is in doubt, so is the next
         * request on the connection: answer and close it. */
        nb_error_protocol(&resp, 400, "malformed-message", NULL,
                          "conflicting message framing (Content-Length "
                          "twice, with Transfer-Encoding, or a body on "
                          "HEAD)");
        close = true;
        goto send;
    }
    SSL *ssl = nb_request_ssl(req);
    if (srv->ssl && !ssl) {
        /* Only when SSL_new failed in nb_server_bevcb: never serve the
         * request in clear. */
        nb_error_protocol(&resp, 500, "operation-failed", NULL,
                          "the connection has no TLS session; reconnect");
        close = true;
        goto send;
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *raw = uri ? evhttp_uri_get_path(uri) : NULL;
    if (!raw || raw[0] != '/') {
        nb_error_protocol(&resp, 400, "malformed-message", NULL,
                          "the request target has no absolute path");
        goto send;
    }
    if ((rc = nb_decode_path(raw, &path))) {
        if (rc == ENOMEM)
            nb_error_protocol(&resp, 500, "operation-failed", NULL,
                              "out of memory");
        else
            nb_error_protocol(&resp, 400, "malformed-message", NULL,
                              "the path has a malformed percent-escape or "
                              "a control character");
        goto send;
    }
    rq.path = path;
    rq.raw_path = raw;

    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    switch (cmd) {
    case EVHTTP_REQ_GET: rq.method = NB_GET; break;
    case EVHTTP_REQ_HEAD: rq.method = NB_GET; head = true; break;
    case EVHTTP_REQ_POST: rq.method = NB_POST; break;
    case EVHTTP_REQ_PUT: rq.method = NB_PUT; break;
    case EVHTTP_REQ_DELETE: rq.method = NB_DELETE; break;
    case EVHTTP_REQ_PATCH: rq.method = NB_PATCH; break;
    case EVHTTP_REQ_OPTIONS: options = true; break;
    default: break;     /* TRACE, CONNECT: allowed nowhere */
    }

    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t body_len = evbuffer_get_length(in);
    if (body_len > srv->max_body) {
        nb_error_protocol(&resp, 413, "too-big", NULL,
                          "the request body has %zu bytes, more than the "
                          "%zu this server accepts", body_len, srv->max_body);
        close = true;
        goto send;
    }

    const struct nb_srv_route *hit = NULL, *known = NULL;
    bool all_public = true;
    for (int i = 0; i < srv->n_routes; i++) {
        const struct nb_srv_route *r = &srv->routes[i];
        /* The route's own part as sent, not percent-encoded: only what
         * follows a prefix (a list key) is decoded.  ".../jobs%2Fjob=x"
         * is no path to a job (a proxy's rule on ".../job=" would not
         * see it). */
        if (!nb_route_matches(r, path) || !nb_route_matches(r, raw))
            continue;
        if (!known)
            known = r;
        allow |= r->r.methods;
        all_public = all_public && r->r.public;
        if (!hit && (r->r.methods & (unsigned) rq.method))
            hit = r;
    }
    bool public = hit ? hit->r.public : known && all_public;
    rc = nb_authenticate(srv, req, ssl, principal, sizeof principal);
    if (rc && !public) {
        /* RFC 6750 section 3: no error code when nothing was offered. */
        www_auth = rc == EACCES
                   ? "Bearer realm=\"lightrail\", error=\"invalid_token\""
                   : "Bearer realm=\"lightrail\"";
        nb_error_protocol(&resp, 401, "access-denied", NULL, "%s",
                          rc == EACCES
                          ? "the bearer token is not valid"
                          : "authentication required: send 'Authorization: "
                            "Bearer <token>' or a client certificate");
        allow = 0;
        goto send;
    }
    if (!rc) {
        rq.principal = principal;
        struct nb_tls_conn *conn = ssl && nb_ssl_index >= 0
                                   ? SSL_get_ex_data(ssl, nb_ssl_index)
                                   : NULL;
        if (conn)
            conn->trusted = true;
    }
    if (!known) {
        /* No error-path: it is an instance-identifier of the schema
         * (nb_error()), and a URL naming nothing has none; the client
         * knows the URL it sent.  So for the 405 and the 500 below. */
        nb_error_protocol(&resp, 404, "invalid-value", NULL,
                          "no resource at this path");
        allow = 0;
        goto send;
    }
    /* What the resource takes: the row's list, unless its exists names
     * the resource's own (a row serving many). */
    struct nb_query_rule rule = { .taken = known->r.query };
    if (known->r.exists
        && !known->r.exists(srv->arg, &rq, &rule, &resp)) {
        allow = 0;
        goto send;
    }
    if (!hit && !options) {
        char list[96];
        nb_allow_string(allow, list, sizeof list);
        nb_error_protocol(&resp, 405, "operation-not-supported", NULL,
                          "%s is not allowed on this resource; allowed: "
                          "%s%s%s", nb_method_name(cmd), list,
                          known->r.not_allowed ? ": " : "",
                          known->r.not_allowed ? known->r.not_allowed : "");
        goto send;
    }
    /* The row taking the method judges the query by its own list (the
     * resource's when it is the first row, whose exists may have named
     * it); OPTIONS by the first row's, or any later row's that takes
     * it (another method's), its 400 the first's. */
    if (hit && hit != known)
        rule = (struct nb_query_rule) { .taken = hit->r.query };
    rc = nb_query_decode(evhttp_uri_get_query(uri), &rule, &query,
                         err_query, sizeof err_query);
    if (rc == EINVAL && options
        && nb_later_row_takes(srv, known, path, raw,
                              evhttp_uri_get_query(uri)))
        rc = 0;
    if (rc) {
        allow = 0;
        if (rc == ENOMEM)
            nb_error_protocol(&resp, 500, "operation-failed", NULL,
                              "out of memory");
        else
            nb_error_protocol(&resp, 400, rc == EILSEQ
                              ? "malformed-message" : "invalid-value",
                              NULL, "%s", err_query);
        goto send;
    }
    if (options) {
        resp.status = 204;
        goto send;
    }
    allow = 0;
    rq.query = query;
    int media = nb_media_check(req, body_len, err_query, sizeof err_query);
    if (media) {
        /* 406 is invalid-value's in RFC 8040 section 7; 415 has no row
         * there, and the header's value is as much what is wrong
         * (lr_yang_error_pair_ok() takes the pair as an exception). */
        nb_error_protocol(&resp, media, "invalid-value", NULL, "%s",
                          err_query);
        goto send;
    }

    if (nb_conditions(req, &rq)) {
        nb_error_protocol(&resp, 500, "operation-failed", NULL,
                          "out of memory");
        goto send;
    }
    /* Before the body is read, as RFC 9110 13.2.1 says. */
    if (!hit->r.validators && nb_cond_check_untagged(&rq, &resp))
        goto send;

    body = malloc(body_len + 1);
    if (!body) {
        nb_error_protocol(&resp, 500, "operation-failed", NULL,
                          "out of memory");
        goto send;
    }
    evbuffer_copyout(in, body, body_len);
    body[body_len] = '\0';
    rq.body = body;
    rq.body_len = body_len;
    hit->r.handler(srv->arg, &rq, &resp);
    if (defer.answered) {
        free(resp.body);
        resp = defer.resp;
    } else if (defer.pending) {
        struct nb_pending *p = defer.pending;
        struct evhttp_connection *c = evhttp_request_get_connection(req);
        free(resp.body);
        p->ctx = NULL;
        p->srv = srv;
        p->req = req;
        p->head = head;
        p->t0 = t0;
        p->next = srv->pending;
        p->prev = &srv->pending;
        if (p->next)
            p->next->prev = &p->next;
        srv->pending = p;
        srv->n_pending++;
        if (c) {
            evhttp_connection_set_closecb(c, nb_pending_on_close, p);
            nb_pending_watch(p, c);
        }
        free(body);
        free(query);
        free(path);
        return;
    }
    if (resp.status < 100 || resp.status > 599)
        nb_error_protocol(&resp, 500, "operation-failed", NULL,
                          "the handler gave no status (a bug; see the "
                          "controller's log)");

send:
    nb_error_judge(srv, &resp);
    nb_send(req, &resp, allow, head, www_auth, close);
    nb_metrics_observe(&srv->metrics, resp.status, nb_now() - t0);
    free(resp.body);
    free(body);
    free(query);
    free(path);
}

/* Every connection of an HTTPS server starts as a TLS accept.  NULL
 * makes libevent fall back to a plain bufferevent; nb_server_on_request
 * then refuses the connection's requests rather than serve them in
 * clear. */
/* An SSL of a connection freed (libevent closed it): one fewer open. */
static void
nb_ssl_gone(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
            void *argp)
{
    struct nb_tls_conn *conn = ptr;
    (void) parent;
    (void) ad;
    (void) idx;
    (void) argl;
    (void) argp;
    if (!conn)
        return;
    if (conn->srv) {
        *conn->prev = conn->next;
        if (conn->next)
            conn->next->prev = conn->prev;
        if (!conn->evicted)
            conn->srv->n_tls--;
    }
    free(conn);
}

static void
nb_ssl_index_init(void)
{
    nb_ssl_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, nb_ssl_gone);
}

/* Makes room for one more connection: the oldest that has not yet sent
 * a request with valid credentials (in its handshake, idle after it,
 * or sending slowly) has its socket shut down for reading; libevent
 * reads the end at once and frees it.  Not for writing: what OpenSSL
 * still writes (an alert) would raise SIGPIPE in a process that does
 * not ignore it.  A client's own first request may be
 * what is cut, when strangers open max_conns connections while
 * it is on the way: it reconnects, as after any reset.  Whether one was
 * found. */
static bool
nb_tls_evict(struct nb_server *srv)
{
    struct nb_tls_conn *victim = NULL;
    for (struct nb_tls_conn *c = srv->conns; c; c = c->next)
        if (!c->trusted && !c->evicted && bufferevent_getfd(c->bev) >= 0)
            victim = c;
    if (!victim)
        return false;
    shutdown(bufferevent_getfd(victim->bev), SHUT_RD);
    victim->evicted = true;
    srv->n_tls--;
    return true;
}

static struct bufferevent *
nb_server_bevcb(struct event_base *base, void *srv_)
{
    struct nb_server *srv = srv_;
    pthread_once(&nb_ssl_once, nb_ssl_index_init);
    if (nb_ssl_index < 0
        || (srv->n_tls >= srv->max_conns && !nb_tls_evict(srv)))
        return NULL;
    struct nb_tls_conn *conn = calloc(1, sizeof *conn);
    SSL *ssl = conn ? SSL_new(srv->ssl) : NULL;
    if (!ssl) {
        free(conn);
        return NULL;
    }
    conn->bev = bufferevent_openssl_socket_new(base, -1, ssl,
                                               BUFFEREVENT_SSL_ACCEPTING,
                                               BEV_OPT_CLOSE_ON_FREE);
    if (!conn->bev) {
        SSL_free(ssl);
        free(conn);
        return NULL;
    }
    conn->srv = srv;
    conn->next = srv->conns;
    conn->prev = &srv->conns;
    if (conn->next)
        conn->next->prev = &conn->next;
    srv->conns = conn;
    srv->n_tls++;
    SSL_set_ex_data(ssl, nb_ssl_index, conn);
    /* Clients that close without close_notify are the common case. */
    bufferevent_openssl_set_allow_dirty_shutdown(conn->bev, 1);
    return conn->bev;
}

/* While the plain listener is paused at the cap: accepts again once
 * a connection has closed. */
static void
nb_plain_resume(evutil_socket_t fd, short what, void *srv_)
{
    struct nb_server *srv = srv_;
    srv->n_plain = nb_conns_count(&srv->local);
    if (srv->n_plain < srv->max_conns) {
        evconnlistener_enable(srv->listener);
        return;
    }
    const struct timeval tv = { 0, NB_RESUME_MS * 1000 };
    evtimer_add(srv->resume, &tv);
}

/* libevent's hook into each plain accept (the socket already accepted);
 * NULL lets libevent make the socket's bufferevent as it would without
 * the hook.  Disabling the listener from here is allowed: libevent's
 * accept loop checks for it after each callback. */
static struct bufferevent *
nb_plain_bevcb(struct event_base *base, void *srv_)
{
    struct nb_server *srv = srv_;
    if (++srv->n_plain < srv->max_conns)
        return NULL;
    srv->n_plain = nb_conns_count(&srv->local);
    if (srv->n_plain >= srv->max_conns) {
        evconnlistener_disable(srv->listener);
        const struct timeval tv = { 0, NB_RESUME_MS * 1000 };
        evtimer_add(srv->resume, &tv);
    }
    return NULL;
}

/* Copies the routes and tokens into 'srv', checking each. */
static int
nb_server_copy_tables(struct nb_server *srv, const struct nb_route *routes,
                      int n_routes, const struct nb_token *tokens,
                      int n_tokens, char *err, size_t errlen)
{
    srv->routes = calloc((size_t) n_routes + 1, sizeof *srv->routes);
    srv->tokens = calloc((size_t) n_tokens + 1, sizeof *srv->tokens);
    if (!srv->routes || !srv->tokens) {
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    for (int i = 0; i < n_routes; i++) {
        const struct nb_route *r = &routes[i];
        struct nb_srv_route *c = &srv->routes[i];
        if (!r->path || r->path[0] != '/' || !r->handler || !r->methods
            || (r->methods & ~(unsigned) NB_ALL_METHODS)) {
            snprintf(err, errlen, "route %d (%s): want a path starting "
                     "with '/', a handler and methods among NB_GET ... "
                     "NB_PATCH", i, r->path ? r->path : "no path");
            return EINVAL;
        }
        if (!(c->path = strdup(r->path))) {
            snprintf(err, errlen, "out of memory");
            return ENOMEM;
        }
        srv->n_routes = i + 1;
        c->r = *r;
        c->r.path = c->path;
        c->len = strlen(c->path);
        c->prefix = c->path[c->len - 1] == '=' || c->path[c->len - 1] == '/';
    }
    for (int i = 0; i < n_tokens; i++) {
        const struct nb_token *t = &tokens[i];
        if (!t->name || !t->secret || !t->secret[0]) {
            snprintf(err, errlen, "token %d: want a name and a non-empty "
                     "secret", i);
            return EINVAL;
        }
        if (!(srv->tokens[i].name = strdup(t->name))
            || nb_digest(t->secret, strlen(t->secret),
                         srv->tokens[i].digest)) {
            free(srv->tokens[i].name);
            snprintf(err, errlen, "out of memory");
            return ENOMEM;
        }
        srv->n_tokens = i + 1;
    }
    return 0;
}

/* Listens on 'address' port 'port' with TCP_NODELAY and records the
 * port bound. */
static int
nb_server_listen(struct nb_server *srv, const char *address, int port,
                 char *err, size_t errlen)
{
    errno = 0;
    struct evhttp_bound_socket *bs =
        evhttp_bind_socket_with_handle(srv->http, address, (ev_uint16_t) port);
    if (!bs) {
        int e = errno ? errno : EADDRNOTAVAIL;
        snprintf(err, errlen, "cannot listen on %s port %d: %s", address,
                 port, strerror(e));
        return e;
    }
    evutil_socket_t fd = evhttp_bound_socket_get_fd(bs);
    /* Accepted sockets inherit it.  Without it Nagle holds back the last
     * TLS record of each response for the peer's delayed ACK, ~40 ms
     * per keep-alive request (reference/libraries.md). */
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one)) {
        int e = errno;
        snprintf(err, errlen, "TCP_NODELAY on %s port %d: %s", address, port,
                 strerror(e));
        return e;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *) &ss, &sl)) {
        int e = errno;
        snprintf(err, errlen, "getsockname: %s", strerror(e));
        return e;
    }
    srv->listener = evhttp_bound_socket_get_listener(bs);
    srv->local = ss;
    srv->port = ss.ss_family == AF_INET6
                ? ntohs(((struct sockaddr_in6 *) &ss)->sin6_port)
                : ntohs(((struct sockaddr_in *) &ss)->sin_port);
    return 0;
}

/* nb_server_config_check() but the TLS files, which are loaded once:
 * by the check, for the server, or else by nb_server_new(). */
static int
nb_server_config_sane(const struct nb_server_config *cfg, char *err,
                      size_t errlen)
{
    const char *address = cfg->address ? cfg->address : "127.0.0.1";
    if (cfg->port < 0 || cfg->port > 65535) {
        snprintf(err, errlen, "port %d is outside 0..65535", cfg->port);
        return EINVAL;
    }
    if (cfg->tls && (!cfg->cert_file || !cfg->key_file)) {
        snprintf(err, errlen, "HTTPS needs a certificate file and a key "
                 "file");
        return EINVAL;
    }
    if (!cfg->tls && cfg->client_ca_file) {
        snprintf(err, errlen, "client certificates (a client CA file) "
                 "need HTTPS: give a certificate and a key");
        return EINVAL;
    }
    /* Tokens travel in clear over plain HTTP: only this host may see
     * them. */
    if (!cfg->tls && !nb_is_loopback(address)) {
        snprintf(err, errlen, "plain HTTP is allowed only on a loopback "
                 "address (127.0.0.0/8 or ::1), not on '%s': configure "
                 "HTTPS with a certificate and key, or listen on 127.0.0.1",
                 address);
        return EINVAL;
    }
    return 0;
}

int
nb_server_config_check(const struct nb_server_config *cfg,
                       struct nb_server_tls **tls, char *err, size_t errlen)
{
    struct nb_server_tls *t = NULL;
    int rc;

    if (tls)
        *tls = NULL;
    if ((rc = nb_server_config_sane(cfg, err, errlen)) || !cfg->tls)
        goto cleanup;
    /* A file that does not load is the configuration's fault as much as
     * a port out of range; one that does is kept for the server, which
     * then reads no file: they are loaded once. */
    if (!(t = calloc(1, sizeof *t))) {
        snprintf(err, errlen, "out of memory");
        rc = ENOMEM;
        goto cleanup;
    }
    if ((rc = nb_tls_ctx_new(cfg->cert_file, cfg->key_file,
                             cfg->client_ca_file, &t->ctx, err, errlen)))
        goto cleanup;
    if (tls) {
        *tls = t;
        t = NULL;
    }

cleanup:
    nb_server_tls_free(t);
    return rc;
}

void
nb_server_tls_free(struct nb_server_tls *tls)
{
    if (!tls)
        return;
    SSL_CTX_free(tls->ctx);
    free(tls);
}

int
nb_server_new(struct event_base *base, const struct nb_server_config *cfg,
              const struct nb_route *routes, int n_routes, void *arg,
              struct nb_server **out, char *err, size_t errlen)
{
    char scratch[1];
    struct nb_server *srv = NULL;
    int rc = EINVAL;

    if (!err) {
        err = scratch;
        errlen = sizeof scratch;
    }
    if (!out || !base || !cfg || n_routes < 0 || (n_routes && !routes)
        || cfg->n_tokens < 0 || (cfg->n_tokens && !cfg->tokens)
        || cfg->max_conns < 0 || (cfg->loaded && !cfg->tls)) {
        snprintf(err, errlen, "nb_server_new: invalid arguments");
        goto cleanup;
    }
    *out = NULL;
    const char *address = cfg->address ? cfg->address : "127.0.0.1";
    if (nb_server_config_sane(cfg, err, errlen))
        goto cleanup;

    if (!(srv = calloc(1, sizeof *srv))) {
        snprintf(err, errlen, "out of memory");
        rc = ENOMEM;
        goto cleanup;
    }
    srv->base = base;
    srv->arg = arg;
    srv->max_body = cfg->max_body ? cfg->max_body : NB_DEFAULT_MAX_BODY;
    srv->max_conns = cfg->max_conns > 0 ? cfg->max_conns : NB_MAX_CONNS;
    if ((rc = nb_server_copy_tables(srv, routes, n_routes, cfg->tokens,
                                    cfg->n_tokens, err, errlen)))
        goto cleanup;
    /* The server's own reference to the check's context: the caller
     * frees its nb_server_tls whatever this returns, and
     * nb_server_free() lets go of this one. */
    if (cfg->loaded) {
        if (!SSL_CTX_up_ref(cfg->loaded->ctx)) {
            snprintf(err, errlen, "TLS: cannot share the context: out of "
                     "memory");
            rc = ENOMEM;
            goto cleanup;
        }
        srv->ssl = cfg->loaded->ctx;
    } else if (cfg->tls && (rc = nb_tls_ctx_new(cfg->cert_file,
                                                cfg->key_file,
                                                cfg->client_ca_file,
                                                &srv->ssl, err, errlen)))
        goto cleanup;
    if (!(srv->http = evhttp_new(base))) {
        snprintf(err, errlen, "out of memory");
        rc = ENOMEM;
        goto cleanup;
    }
    evhttp_set_allowed_methods(srv->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST
                               | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT
                               | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS
                               | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT
                               | EVHTTP_REQ_PATCH);
    evhttp_set_max_body_size(srv->http,
                             srv->max_body <= EV_SSIZE_MAX / NB_BODY_SLACK
                             ? (ev_ssize_t) srv->max_body * NB_BODY_SLACK
                             : EV_SSIZE_MAX);
    evhttp_set_max_headers_size(srv->http, NB_MAX_HEADERS);
    evhttp_set_timeout(srv->http, NB_TIMEOUT_S);
    evhttp_set_flags(srv->http, EVHTTP_SERVER_LINGERING_CLOSE);
    evhttp_set_default_content_type(srv->http, NB_CONTENT_TYPE);
    evhttp_set_gencb(srv->http, nb_server_on_request, srv);
    if (srv->ssl)
        evhttp_set_bevcb(srv->http, nb_server_bevcb, srv);
    else if (!(srv->resume = evtimer_new(base, nb_plain_resume, srv))) {
        snprintf(err, errlen, "out of memory");
        rc = ENOMEM;
        goto cleanup;
    } else
        evhttp_set_bevcb(srv->http, nb_plain_bevcb, srv);
    if ((rc = nb_server_listen(srv, address, cfg->port, err, errlen)))
        goto cleanup;
    *out = srv;
    srv = NULL;
    rc = 0;

cleanup:
    nb_server_free(srv);
    return rc;
}

void
nb_server_free(struct nb_server *srv)
{
    if (!srv)
        return;
    /* The tokens outlive the server: they only let go of the requests
     * (evhttp_free frees those still on a connection). */
    while (srv->pending) {
        struct nb_pending *p = srv->pending;
        nb_pending_drop_request(p);
        nb_pending_unlink(p);
    }
    if (srv->resume)
        event_free(srv->resume);
    if (srv->http)
        evhttp_free(srv->http);
    /* libevent frees the connections' bufferevents, and OpenSSL their
     * SSLs (nb_ssl_gone), later: in the loop, or in event_base_free. */
    for (struct nb_tls_conn *c = srv->conns; c; c = c->next)
        c->srv = NULL;
    SSL_CTX_free(srv->ssl);
    for (int i = 0; i < srv->n_routes; i++)
        free(srv->routes[i].path);
    free(srv->routes);
    for (int i = 0; i < srv->n_tokens; i++)
        free(srv->tokens[i].name);
    if (srv->tokens)
        OPENSSL_cleanse(srv->tokens, (size_t) srv->n_tokens
                        * sizeof *srv->tokens);
    free(srv->tokens);
    free(srv);
}

int
nb_server_port(const struct nb_server *srv)
{
    return srv->port;
}

void
nb_server_drain(struct nb_server *srv)
{
    srv->draining = true;
}

int
nb_server_metrics(const struct nb_server *srv, char **buf, size_t *len)
{
    return nb_metrics_append(&srv->metrics, buf, len);
}
