/*
 * nb_int: the pieces nb_server.c is built from, shared by the files of
 * northbound/ and by nobody else (callers include nb_server.h only).
 */
#ifndef NB_INT_H
#define NB_INT_H 1

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>
#include <sys/socket.h>

#include "northbound/nb_server.h"

/* nb_error.c ------------------------------------------------------------ */

/* nb_error() with an explicit RFC 8040 error-type ("protocol" for what
 * the server itself refuses: routing, authentication, limits, draining;
 * "application" for what a handler refuses).  Replaces resp->body,
 * freeing the old one; on allocation failure the body is NULL and only
 * the status is sent. */
void nb_error_v(struct nb_response *resp, const char *type, int status,
                const char *tag, const char *path, const char *fmt,
                va_list ap) __attribute__((format(printf, 6, 0)));
void nb_error_protocol(struct nb_response *resp, int status,
                       const char *tag, const char *path,
                       const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* nb_conns.c ------------------------------------------------------------ */

/* How many connections accepted from the listener bound to 'local' this
 * process holds open (each a descriptor, the peer gone or not). */
int nb_conns_count(const struct sockaddr_storage *local);

/* nb_tls.c -------------------------------------------------------------- */

/* A server SSL_CTX: TLS 1.2 or later, the certificate chain and key from
 * PEM files, and, with 'client_ca_file', client certificates requested
 * and verified against it (but not required: a client may still use a
 * bearer token).  The caller frees '*out' with SSL_CTX_free(). */
int nb_tls_ctx_new(const char *cert_file, const char *key_file,
                   const char *client_ca_file, SSL_CTX **out,
                   char *err, size_t errlen);

/* nb_server_tls (nb_server.h) is one reference to a context of
 * nb_tls_ctx_new(). */
struct nb_server_tls {
    SSL_CTX *ctx;
};

/* The common name of the peer's verified certificate, copied into 'buf':
 * 0, or ENOENT when there is no verified certificate with a usable CN
 * (one that fits 'len' and holds no control characters). */
int nb_tls_peer_cn(SSL *ssl, char *buf, size_t len);

/* nb_metrics.c ---------------------------------------------------------- */

#define NB_METRICS_BOUNDS 11    /* finite bucket bounds; +Inf is implied */

struct nb_metrics {
    uint64_t bucket[NB_METRICS_BOUNDS]; /* not cumulative: one per bound */
    uint64_t count;
    double sum;                         /* seconds */
    uint64_t by_class[5];               /* 1xx .. 5xx */
    uint64_t deferred;                  /* answered later (nb_defer) */
    uint64_t abandoned;                 /* ... whose client had left */
    uint64_t invalid_errors;            /* error bodies the server's
                                         * nb_error_check refused */
};

void nb_metrics_observe(struct nb_metrics *, int status, double seconds);

/* Appends the Prometheus text exposition of 'm' to the malloc'ed string
 * '*buf' of length '*len' ('*buf' may be NULL); 0 or ENOMEM, in which
 * case '*buf' is unchanged. */
int nb_metrics_append(const struct nb_metrics *m, char **buf, size_t *len);

#endif
