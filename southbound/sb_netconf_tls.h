/*
 * sb_netconf_tls: the TLS transport of the netconf driver (NETCONF over
 * TLS with mutual X.509 authentication, RFC 7589), below libnetconf2.
 *
 * Why the driver builds the TLS session itself and hands it to
 * nc_connect_libssl() rather than calling nc_connect_tls():
 * libnetconf2 2.0's client TLS settings (certificate, key, trusted CAs)
 * are per thread and its own check of the server's name is against the
 * address it connects to; lightraild reaches devices from several
 * threads (sb_parallel) with per-device certificates, and pins the CA
 * and the device's *name* rather than an address.  Built here, each
 * device has its own SSL_CTX, trusts exactly one CA, and every step of
 * the connection has the caller's deadline (libnetconf2 would wait up
 * to 60 s for a hello).
 *
 * The server's identity: its certificate must chain to the configured
 * CA (the system's CAs are never consulted) and name the device (its
 * name in the topology, e.g. "r2", as a DNS subject alternative name,
 * or as the common name when the certificate has no DNS names).
 *
 * Errors: 0 or a positive errno and one line in err[] without the
 * device's name in front (the driver adds it): EINVAL (a file cannot
 * be used), EACCES (a certificate refused by either side), EHOSTUNREACH
 * (nobody answers, the TCP connect timed out, the name does not
 * resolve, the connection broke, or connected but no handshake or no
 * hello before the deadline: device hung?; in every case before any
 * NETCONF RPC, so nothing was applied), EAGAIN (a resolver that gave
 * no answer, now or in time,
 * sb_nc_tls_resolve_errno(); nothing was sent), ENOMEM (the
 * controller's host: memory, a socket; nothing was sent, retry).
 */
#ifndef SB_NETCONF_TLS_H
#define SB_NETCONF_TLS_H 1

#include <stddef.h>
#include <stdint.h>
#include <netdb.h>

#include <openssl/ssl.h>

/* Makes the TLS client context of one device from PEM files: our
 * certificate chain 'cert' and its 'key', and 'ca', the one CA that
 * signs devices.  The caller frees '*out' with SSL_CTX_free(). */
/* lr_resolve()'s answer 'rc' as this transport returns it: 0,
 * EHOSTUNREACH (the name does not resolve), EAGAIN and EINVAL as they
 * are; ETIMEDOUT (the resolver answered nothing in time) EAGAIN: the
 * device unreachable for now, nothing sent (no outcome to read back). */
int sb_nc_tls_resolve_errno(int rc);

/* Looks up HOST:PORT (TCP) within 'wait_ms', for either transport (over
 * SSH only to say why a name cannot be reached: libnetconf2 then looks
 * it up again, sb_netconf.c).  0 with '*res' (free with
 * freeaddrinfo()), or sb_nc_tls_resolve_errno()'s errno (ENOMEM for a
 * resolver out of memory or descriptors) with one line "cannot resolve
 * HOST (...): nothing sent; ..."; 'timeout_ms' is the connection's, for
 * that line. */
int sb_nc_resolve(const char *host, uint16_t port, int wait_ms,
                  int timeout_ms, struct addrinfo **res, char *err,
                  size_t errlen);

int sb_nc_tls_ctx(const char *cert, const char *key, const char *ca,
                  SSL_CTX **out, char *err, size_t errlen);

/* Connects to HOST:PORT, makes the TLS handshake with 'ctx', checks that
 * the device's certificate names 'name', and waits until the device's
 * first bytes (its <hello>) arrive, all within 'timeout_ms'.  'ca' is
 * only named in messages.  On success '*out' is a TLS session on a
 * non-blocking socket, ready for nc_connect_libssl(), which takes it
 * (socket and all) when it succeeds; when it fails (libnetconf2 2.0.24)
 * the caller still owns both (see SSL_get_fd() in sb_netconf_tls.c). */
int sb_nc_tls_connect(SSL_CTX *ctx, const char *name, const char *host,
                      uint16_t port, int timeout_ms, const char *ca,
                      SSL **out, char *err, size_t errlen);

#endif
