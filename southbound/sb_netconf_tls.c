/*
 * sb_netconf_tls: TCP, the TLS handshake and the device's identity for
 * NETCONF over TLS (RFC 7589); see sb_netconf_tls.h for why the driver
 * does this rather than libnetconf2.
 *
 * One detail of TLS 1.3 shapes sb_nc_tls_connect(): the client's
 * handshake ends before the server has checked the client's
 * certificate, so a device that refuses ours says so (an alert, or a
 * closed connection) only on the first read.  The function therefore
 * also waits for the device's first bytes (its <hello>, which a NETCONF
 * server sends at once) with SSL_peek(), which leaves them for
 * libnetconf2 to read: a refusal becomes a clear EACCES here instead of
 * a vague failure inside nc_connect_libssl().  The first bytes must look
 * like XML, or the server is not a NETCONF one and the session is not
 * handed over at all (see the workaround below for why that matters).
 */
#define _GNU_SOURCE 1   /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "controller/lr_resolve.h"
#include "controller/lr_tls.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_netconf_tls.h"

/* OpenSSL's most recent reason on this thread, or 'dflt'. */
static const char *
sb_nct_reason(const char *dflt)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    return r ? r : dflt;
}

/* ---- a workaround for libnetconf2 2.0.24 ----
 *
 * When nc_connect_libssl() fails (no valid <hello>, the connection lost
 * during the NETCONF handshake), it clears the session's SSL pointer,
 * leaving the SSL to its caller, but not the transport type, so its own
 * cleanup calls SSL_get_fd(NULL) and the process dies (SIGSEGV; seen
 * with a TLS server that answers garbage, tests/cli/sb_netconf_tls.sh).
 * A broken device must not crash lightraild, so Lightrail's programs
 * define SSL_get_fd() themselves: the dynamic linker binds libnetconf2's
 * call to the executable's definition, which answers -1 for NULL (what
 * OpenSSL answers for an SSL without a socket) and forwards every other
 * call to OpenSSL's own.  The caller then frees the SSL (sb_netconf.c).
 * Newer libnetconf2 resets the transport type too; this can go when
 * Debian ships one. */
int
SSL_get_fd(const SSL *s)
{
    static int (*real)(const SSL *);
    int (*f)(const SSL *) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);

    if (!s)
        return -1;
    if (!f) {
        void *p = dlsym(RTLD_NEXT, "SSL_get_fd");
        memcpy(&f, &p, sizeof f);   /* ISO C: no object-to-function cast */
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    return f ? f(s) : -1;
}

int
sb_nc_tls_ctx(const char *cert, const char *key, const char *ca,
              SSL_CTX **out, char *err, size_t errlen)
{
    SSL_CTX *ctx;
    char why[256];
    int ret = 0;

    *out = NULL;
    ERR_clear_error();
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx)
        return sb_errf(err, errlen, ENOMEM, "cannot make a TLS "
                       "context: %s", sb_nct_reason("out of memory"));
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    /* A file that does not load is named with what is wrong with it (a
     * folder, no PEM, PEM of the other kind): OpenSSL's "PEM lib" or
     * "no start line" says neither. */
    switch (lr_tls_use_pair(ctx, cert, key)) {
    case LR_TLS_PAIR_OK:
        break;
    case LR_TLS_PAIR_CERT:
        ret = sb_errf(err, errlen, EINVAL, "cannot use the client "
                      "certificate %s (%s): give a PEM certificate "
                      "chain in southbound/netconf/tls/certificate", cert,
                      lr_tls_file_reason(cert, LR_TLS_PEM_CERT, why,
                                         sizeof why));
        break;
    case LR_TLS_PAIR_KEY:
        ret = sb_errf(err, errlen, EINVAL, "cannot use the client key "
                      "%s (%s): give the PEM private key in "
                      "southbound/netconf/tls/key", key,
                      lr_tls_file_reason(key, LR_TLS_PEM_KEY, why,
                                         sizeof why));
        break;
    case LR_TLS_PAIR_MISMATCH:
        ret = sb_errf(err, errlen, EINVAL, "the key %s is not the "
                      "private key of the certificate %s: give the "
                      "matching pair", key, cert);
        break;
    }
    if (!ret && SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
        ret = sb_errf(err, errlen, EINVAL, "cannot use the CA file %s "
                      "(%s): give the PEM certificate of the CA that "
                      "signs the devices in southbound/netconf/tls/ca",
                      ca, lr_tls_file_reason(ca, LR_TLS_PEM_CERT, why,
                                             sizeof why));
    if (ret) {
        SSL_CTX_free(ctx);
        return ret;
    }
    *out = ctx;
    return 0;
}

static long long
sb_nct_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until 'fd' is ready for 'events' or the deadline passes: 1
 * ready, 0 deadline, -1 error (errno). */
static int
sb_nct_wait(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - sb_nct_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = { .fd = fd, .events = events };
        int r = poll(&p, 1, (int) left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* lr_resolve()'s answers, whose errno values speak of the lookup, in
 * the driver convention's, which speak of the device.  A name that does
 * not resolve (EHOSTUNREACH) stays so: it is as far as the controller
 * can tell an address nobody answers at, like a wrong or gone IP
 * address, which it cannot tell from a device that is down either.  A
 * resolver that answers nothing (EAGAIN: EAI_AGAIN, no server answered,
 * or one failed; ETIMEDOUT: none within the connection's time) leaves a
 * device known by its name unreachable from here until it answers:
 * EAGAIN, no session for now (sb_unanswered(): the ROADM shown down,
 * with this line as the reason, and a batch stops there rather than
 * wait once per change).  Not ETIMEDOUT, whose outcome is unknown:
 * nothing was sent.  Not a failure of the controller's own
 * (sb_local()): a ROADM shown up that no operation can reach would
 * hide the outage it is in; the line names the resolver. */
int
sb_nc_tls_resolve_errno(int rc)
{
    return rc == ETIMEDOUT ? EAGAIN : rc;
}

int
sb_nc_resolve(const char *host, uint16_t port, int wait_ms, int timeout_ms,
              struct addrinfo **res, char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    char service[8], why[128];
    int gai;

    *res = NULL;
    snprintf(service, sizeof service, "%u", (unsigned) port);
    gai = lr_resolve(host, service, &hints, wait_ms / 1e3, res, why,
                     sizeof why);
    if (gai == ETIMEDOUT)
        return sb_errf(err, errlen, sb_nc_tls_resolve_errno(gai),
                       "cannot resolve %s (%s within the connection's %d "
                       "ms): nothing sent; check the resolver "
                       "(/etc/resolv.conf), or give the device's address "
                       "as an IP address", host, why, timeout_ms);
    if (gai == EAGAIN)
        return sb_errf(err, errlen, sb_nc_tls_resolve_errno(gai),
                       "cannot resolve %s (%s): the resolver cannot answer "
                       "now; nothing sent: retry, and check the resolver "
                       "(/etc/resolv.conf) if it lasts", host, why);
    if (gai == ENOMEM)
        /* The resolver's own failure (lr_lookup_error()): this host's. */
        return sb_errf(err, errlen, ENOMEM, "cannot resolve %s (%s): this "
                       "host is short of memory or descriptors; nothing "
                       "sent: retry", host, why);
    if (gai)
        return sb_errf(err, errlen, sb_nc_tls_resolve_errno(gai),
                       "cannot resolve %s (%s): nothing sent; check the "
                       "address", host, why);
    return 0;
}

/* A non-blocking TCP connection to HOST:PORT by 'deadline' (the
 * connection's 'timeout_ms', for the messages) or -1 and err. */
static int
sb_nct_tcp(const char *host, uint16_t port, long long deadline,
           int timeout_ms, int *ret, char *err, size_t errlen)
{
    struct addrinfo *res, *ai;
    int fd = -1, e = ECONNREFUSED;

    *ret = sb_nc_resolve(host, port, (int) (deadline - sb_nct_now_ms()),
                         timeout_ms, &res, err, errlen);
    if (*ret)
        return -1;
    /* 'local': the last failure was the host's (no socket, a poll that
     * failed), and no address was refused by anything on the network
     * after it: the device was not tried, which is no sign of it. */
    bool local = false;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    0);
        if (fd < 0) {
            e = errno;
            local = true;
            continue;
        }
        local = false;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        if (errno == EINPROGRESS) {
            int w = sb_nct_wait(fd, POLLOUT, deadline);
            socklen_t len = sizeof e;
            if (w == 0)
                e = ETIMEDOUT;
            else if (w < 0) {
                e = errno;
                local = true;
            } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0
                     && e == 0)
                break;
        } else
            e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0 && local) {
        *ret = sb_errf(err, errlen, ENOMEM, "cannot connect to %s:%u (%s): "
                       "the controller's host cannot make or wait on a "
                       "socket (descriptors or memory): nothing sent; retry",
                       host, (unsigned) port, strerror(e));
        return -1;
    }
    /* A connect that timed out (ours, or the kernel's SYN retries) has
     * sent the device nothing: no session, EHOSTUNREACH as for one
     * refused, not ETIMEDOUT, whose "outcome unknown" would have the
     * caller read back a device that was never asked anything. */
    if (fd < 0 && e == ETIMEDOUT) {
        *ret = sb_errf(err, errlen, EHOSTUNREACH, "cannot connect to "
                       "%s:%u: the connect timed out (no answer within "
                       "the connection's %d ms): nothing sent; is the "
                       "device up and reachable, listening for NETCONF "
                       "over TLS there?", host, (unsigned) port,
                       timeout_ms);
        return -1;
    }
    if (fd < 0) {
        *ret = sb_errf(err, errlen, EHOSTUNREACH, "cannot connect to %s:%u "
                       "(%s): is the device up and listening for NETCONF "
                       "over TLS there?", host, (unsigned) port,
                       strerror(e));
        return -1;
    }
    int one = 1;
    /* Small RPCs each waiting for a reply: no Nagle (as for SSH). */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* The line for a TLS step that failed with SSL_get_error() 'e'. */
static int
sb_nct_failed(SSL *ssl, int e, bool handshake, const char *name,
              const char *host, uint16_t port, const char *ca, char *err,
              size_t errlen)
{
    long v = SSL_get_verify_result(ssl);
    const char *step = handshake ? "TLS handshake" : "TLS session";

    if (handshake && v == X509_V_ERR_HOSTNAME_MISMATCH)
        return sb_errf(err, errlen, EACCES, "%s with %s:%u failed: the "
                       "device's certificate does not name '%s': give "
                       "the device a certificate for its name (a DNS "
                       "subject alternative name) signed by the CA in "
                       "southbound/netconf/tls/ca", step, host,
                       (unsigned) port, name);
    if (handshake && v != X509_V_OK)
        return sb_errf(err, errlen, EACCES, "%s with %s:%u failed: "
                       "certificate verify failed (%s): give the CA that "
                       "signed the device's certificate in "
                       "southbound/netconf/tls/ca (now %s)", step, host,
                       (unsigned) port, X509_verify_cert_error_string(v),
                       ca);
    if (e == SSL_ERROR_SSL) {
        const char *r = sb_nct_reason("protocol error");
        if (strstr(r, "alert"))
            /* The device's alert: under TLS 1.3 this is how a refused
             * client certificate arrives ("certificate required",
             * "unknown ca", "bad certificate", ...). */
            return sb_errf(err, errlen, EACCES, "%s with %s:%u failed: "
                           "the device refused our client certificate "
                           "(%s): give a certificate and key signed by "
                           "a CA the device trusts in "
                           "southbound/netconf/tls/certificate and key",
                           step, host, (unsigned) port, r);
        return sb_errf(err, errlen, EHOSTUNREACH, "%s with %s:%u failed: "
                       "%s: is it a NETCONF over TLS server?", step, host,
                       (unsigned) port, r);
    }
    if (!handshake)
        /* A closed connection after a good handshake: a device that
         * maps no user to our certificate closes without an alert. */
        return sb_errf(err, errlen, EACCES, "%s with %s:%u closed before "
                       "the device's NETCONF hello: most likely the "
                       "device does not accept our client certificate "
                       "(no user for it): give one it trusts and maps "
                       "to a user in southbound/netconf/tls", step, host,
                       (unsigned) port);
    return sb_errf(err, errlen, EHOSTUNREACH, "%s with %s:%u failed: the "
                   "connection closed (%s): is it a NETCONF over TLS "
                   "server?", step, host, (unsigned) port,
                   errno ? strerror(errno) : "end of file");
}

int
sb_nc_tls_connect(SSL_CTX *ctx, const char *name, const char *host,
                  uint16_t port, int timeout_ms, const char *ca, SSL **out,
                  char *err, size_t errlen)
{
    long long deadline = sb_nct_now_ms() + timeout_ms;
    SSL *ssl = NULL;
    int ret = 0, fd, r, e;
    bool handshake = true;

    *out = NULL;
    fd = sb_nct_tcp(host, port, deadline, timeout_ms, &ret, err, errlen);
    if (fd < 0)
        return ret;
    ERR_clear_error();
    ssl = SSL_new(ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) {
        ret = sb_errf(err, errlen, ENOMEM, "cannot make a TLS session: "
                      "%s", sb_nct_reason("out of memory"));
        goto fail;
    }
    /* The device's name, checked against its certificate; also sent as
     * SNI so that a device with several certificates can choose. */
    if (SSL_set1_host(ssl, name) != 1
        || SSL_set_tlsext_host_name(ssl, name) != 1) {
        ret = sb_errf(err, errlen, EINVAL, "the device name '%s' cannot "
                      "be checked against a certificate", name);
        goto fail;
    }
    char first[32];
    for (;;) {
        errno = 0;
        ERR_clear_error();
        r = handshake ? SSL_connect(ssl)
                      : SSL_peek(ssl, first, (int) sizeof first - 1);
        if (r == 1 && handshake) {
            handshake = false;
            continue;
        }
        if (r > 0)
            break;
        e = SSL_get_error(ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            int w = sb_nct_wait(fd, e == SSL_ERROR_WANT_READ ? POLLIN
                                                             : POLLOUT,
                                deadline);
            if (w > 0)
                continue;
            if (w < 0) {
                /* poll() itself failed: the host's, not the device's. */
                ret = sb_errf(err, errlen, ENOMEM, "%s with %s:%u: cannot "
                              "wait on the socket (%s): retry",
                              handshake ? "TLS handshake" : "TLS session",
                              host, (unsigned) port, strerror(errno));
                goto fail;
            }
            /* No NETCONF session yet, so no RPC can have reached
             * the device (an edit needs one): EHOSTUNREACH, as for a
             * connect that timed out, not ETIMEDOUT, whose "outcome
             * unknown" would have the controller read back a device
             * it never changed. */
            ret = sb_errf(err, errlen, EHOSTUNREACH,
                          "%s from %s:%u within %d ms (device hung?): "
                          "nothing sent; retry later", handshake
                          ? "no TLS handshake" : "no NETCONF hello",
                          host, (unsigned) port, timeout_ms);
            goto fail;
        }
        ret = sb_nct_failed(ssl, e, handshake, name, host, port, ca, err,
                            errlen);
        goto fail;
    }
    /* A NETCONF server's first bytes are its <hello> (or the XML
     * declaration before it). */
    first[r] = '\0';
    const char *p = first + strspn(first, " \t\r\n");
    if (*p && *p != '<') {
        for (char *q = first; *q; q++)
            if ((unsigned char) *q < ' ' || (unsigned char) *q > '~')
                *q = '?';
        ret = sb_errf(err, errlen, EHOSTUNREACH, "TLS session with "
                      "%s:%u: the device's first bytes are not a NETCONF "
                      "<hello> ('%s'): is it a NETCONF over TLS server?",
                      host, (unsigned) port, first);
        goto fail;
    }
    *out = ssl;
    return 0;

fail:
    SSL_free(ssl);
    close(fd);
    return ret;
}
