/*
 * sb_netconf: a ROADM reached over NETCONF (RFC 6241) on SSH (RFC 6242)
 * or on TLS with mutual certificates (RFC 7589) with libnetconf2,
 * speaking lightrail-roadm.yang.
 *
 * Transport: config.transport "ssh" (or empty) or "tls".
 *
 * TLS: address "HOST:PORT" (no user: the device maps our certificate to
 * one; PORT defaults to 6513).  config.tls_cert and tls_key are our
 * certificate chain and key, config.tls_ca the one CA that signs the
 * devices' certificates; a device's certificate must chain to it and
 * name the device (its topology name as a DNS subject alternative
 * name).  The TLS session is made by sb_netconf_tls.c, with an SSL_CTX
 * per device made at open() (at lightraild's start, the one check_files
 * made: sb_nc_kept below), and handed to nc_connect_libssl(): see
 * sb_netconf_tls.h for why not nc_connect_tls().  Everything after the
 * connection (RPCs, sessions kept and re-made, timeouts) is the same
 * for both transports.  A certificate refused by either side is
 * EACCES, like a host key that is not the pinned one.
 *
 * SSH: address "USER@HOST:PORT" (HOST may be "[v6]"; PORT defaults to
 * 830).
 * Authentication is by key only: config.ssh_key is the private key, its
 * public half is the same path plus ".pub".  The server's host key must
 * be in config.known_hosts (OpenSSH known_hosts format, e.g.
 * "[127.0.0.1]:830 ssh-ed25519 AAAA..."): our host-key callback checks it
 * with libssh and refuses anything else, never asks; libnetconf2's
 * default callback would prompt on /dev/tty and hang or fail in a
 * daemon.
 *
 * The device model: a lightpath's hop is one entry of
 * /roadm/media-channels/channel, keyed by an index this driver chooses
 * (one above the highest on the device) and found again by its unique
 * name; the spectrum is written as edges in MHz
 * (lower = 193.1 THz + n 6.25 GHz - m 6.25 GHz, upper = lower + m 12.5
 * GHz) and read back from edges or n/m alike.
 *
 * apply(): one <edit-config> on running, default operation merge, each
 * new channel with operation="create" and each removed one with
 * operation="delete", error-option rollback-on-error, test-option left
 * out (NC_RPC_EDIT_TESTOPT_UNKNOWN: netconfd does not announce
 * :validate).  The device validates the whole edit (must, ranges,
 * unique, a duplicate create, a missing delete) and applies all of it or
 * none: that is the vtable's all-or-nothing.  The name -> index map comes
 * from the last <get-config>, kept while this driver is the one writing;
 * any doubt (a timeout, a lost session, an rpc-error) drops it and the
 * next apply reads the device first.
 *
 * Sessions: one per device, opened by open() when the device answers and
 * kept; an RPC that finds it dead (NC_MSG_ERROR before anything was
 * sent) reconnects once and resends.  Timeouts: config.timeout_ms bounds
 * every RPC; a connection attempt may take SB_NC_CONNECT_FACTOR times as
 * long (SSH key exchange, authentication, <hello>, and the schemas
 * parsed into the session's context: hundreds of milliseconds of CPU on
 * a busy machine, where one RPC takes one).  A reply that does not come
 * back in time, or a session lost after the request went out, is
 * ETIMEDOUT: the outcome is unknown, the caller reads back.
 *
 * Why connections are made on a thread of their own: libnetconf2 waits
 * up to 60 s (NC_CLIENT_HELLO_TIMEOUT, not settable) for the server's
 * <hello>, and a hung device behind a live sshd (SIGSTOP in the tests)
 * accepts the SSH session and never says hello.  The connecting thread
 * may take that long; the caller waits at most the connection timeout
 * and gets EHOSTUNREACH (no session, so no edit sent: nothing to read
 * back), and a later call collects the session once the device wakes
 * up.  An attempt still pending timeout_ms after it started gets a
 * second one beside it, the first to finish wins (sb_nc_connect: netconfd
 * can lose a session in its setup).  libnetconf2's client settings
 * (user, keys, host-key callback, schema path) are per thread, so the
 * thread sets them itself.
 *
 * Schemas: the session's libyang context is filled from
 * config.schema_path (directories separated by ':'; the project's YANG
 * and /usr/share/yuma/modules) so that the client never fetches
 * ietf-netconf with <get-schema>: netconfd 2.13 crashes with a double
 * free the second time a client does (../shared/reference/southbound.md).
 *
 * Threads: a device may be used from any thread, one call at a time
 * (d->lock); different devices in parallel.
 *
 * Errors follow sb_driver.h: 0 or a positive errno, one line in err[]:
 * EPROTO the device refused (its rpc-error: tag, app-tag, path, message),
 * EEXIST/ENOENT as the dummy, EACCES a host key that is not the pinned
 * one or a certificate refused by either side (TLS), EINVAL a TLS file
 * or schema path that cannot be used, EHOSTUNREACH no session (a
 * name that does not resolve, a connect refused or timed out, no TLS
 * handshake or no <hello> in time: nothing sent), EAGAIN a resolver
 * with no answer for the device's name (either transport: nothing
 * sent), ETIMEDOUT outcome unknown (an RPC went out on a session);
 * ENOMEM the controller's host lacked something before anything was
 * sent (a thread to connect on, memory, a socket, memory or
 * descriptors for its resolver), which sb_driver.h counts as local,
 * not as the device's silence.
 * SB_NC_DEBUG=1 in the environment copies libnetconf2's messages to
 * stderr (a diagnostic for operators, off by default).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <libssh/libssh.h>
#include <libyang/libyang.h>
#include <nc_client.h>
#include <openssl/crypto.h>

#include "planner/lr_utf8.h"
#include "southbound/sb_chtab.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_kept.h"
#include "southbound/sb_netconf_tls.h"

#define SB_NC_NS "urn:lightrail:roadm"
#define SB_NC_DEFAULT_TIMEOUT_MS 5000
#define SB_NC_DEFAULT_PORT 830
#define SB_NC_DEFAULT_TLS_PORT 6513   /* RFC 7589 */
#define SB_NC_CONNECT_FACTOR 3       /* connection timeout / RPC timeout */
#define SB_NC_MAX_ATTEMPTS 16        /* connecting threads alive at once,
                                      * all devices: beyond, no hedging */
#ifndef SB_NETCONF_SCHEMA_PATH   /* set by southbound/local.am */
#define SB_NETCONF_SCHEMA_PATH "/usr/share/lightrail/yang:" \
    "/usr/share/yuma/modules/ietf:/usr/share/yuma/modules/yuma123:" \
    "/usr/share/yuma/modules/netconfcentral"
#endif

/* A channel as the device holds it: the driver's index and what it
 * means in the vtable's terms. */
struct sb_netconf {
    struct sb_device_config config;
    char user[64];
    char host[128];
    uint16_t port;
    int timeout_ms;
    bool tls;
    SSL_CTX *ssl_ctx;             /* tls: ours, made at open() */

    /* One call at a time on this device. */
    pthread_mutex_t lock;
    struct nc_session *session;   /* NULL when not connected */
    struct ly_ctx *ctx;           /* the session's schemas, ours to free */

    /* The connection attempt under way, if any (see the top comment). */
    struct sb_nc_attempt *attempt;

    /* The device's channels as last read or written; valid when
     * cache_ok. */
    struct sb_chtab cache;
};

static pthread_once_t sb_nc_once = PTHREAD_ONCE_INIT;
/* The TLS contexts check_files made, each kept for the first open() of
 * its device (the same name and files) to take (sb_kept.h: the start
 * reads a device's files once).  The list holds one reference of each
 * context. */
static void sb_nc_ctx_free(void *);
static struct sb_kept sb_nc_kept = SB_KEPT_INIT(sb_nc_ctx_free);
/* The last error libnetconf2 logged on this thread (the first, on a
 * connecting thread: sb_nc_first_err), and why our host-key check
 * refused (libnetconf2 logs its own vaguer line after it). */
static _Thread_local char sb_nc_lasterr[256];
static _Thread_local char sb_nc_hostkey_err[400];
/* A failed connection is followed by libnetconf2's own cleanup errors
 * (libyang's 'Value "127.0.0.1" was not found in the dictionary.' when
 * sshd closes the channel at once): the first error is the cause. */
static _Thread_local bool sb_nc_first_err;

static void
sb_nc_print(const struct nc_session *s, NC_VERB_LEVEL level, const char *msg)
{
    (void) s;
    if (getenv("SB_NC_DEBUG"))
        fprintf(stderr, "nc: %s\n", msg);
    /* Cut at a character: the message may quote a device's text. */
    if (level == NC_VERB_ERROR && !(sb_nc_first_err && sb_nc_lasterr[0]))
        lr_utf8_clip(sb_nc_lasterr, sizeof sb_nc_lasterr, msg);
}

/* SB_NC_HEDGE=0 in the environment turns hedging off (sb_nc_connect),
 * for tools/bench/netconf_connect.sh's side-by-side comparison. */
static bool sb_nc_hedge = true;

static void
sb_nc_init(void)
{
    const char *h = getenv("SB_NC_HEDGE");
    sb_nc_hedge = !(h && !strcmp(h, "0"));
    nc_client_init();
    nc_verbosity(getenv("SB_NC_DEBUG") ? NC_VERB_VERBOSE : NC_VERB_ERROR);
    nc_set_print_clb_session(sb_nc_print);
}

static struct sb_netconf *
sb_nc_cast(struct sb_device *dev)
{
    return (struct sb_netconf *) dev;
}

/* ---- addresses ---- */

/* "USER@HOST[:PORT]" or "USER@[V6][:PORT]", over TLS "HOST[:PORT]" or
 * "[V6][:PORT]"; NULL or what is wrong. */
static const char *
sb_nc_parse_address(struct sb_netconf *d, const char *a)
{
    const char *at = strchr(a, '@'), *host, *colon;
    size_t hl;

    if (d->tls) {
        if (at)
            return "has a user, which NETCONF over TLS does not take (the "
                   "device maps our certificate to one)";
        host = a;
    } else {
        if (!at || at == a)
            return "has no user (USER@HOST:PORT)";
        if ((size_t) (at - a) >= sizeof d->user)
            return "has a user name longer than 63 bytes";
        memcpy(d->user, a, (size_t) (at - a));
        d->user[at - a] = '\0';
        host = at + 1;
    }
    if (*host == '[') {
        const char *end = strchr(host, ']');
        if (!end)
            return "has an unclosed '[' around the host";
        hl = (size_t) (end - host - 1);
        host++;
        colon = end[1] == ':' ? end + 1 : NULL;
        if (end[1] && !colon)
            return "has something after ']' that is not ':PORT'";
    } else {
        colon = strrchr(host, ':');
        hl = colon ? (size_t) (colon - host) : strlen(host);
    }
    if (hl == 0 || hl >= sizeof d->host)
        return "has no host, or one longer than 127 bytes";
    memcpy(d->host, host, hl);
    d->host[hl] = '\0';
    d->port = d->tls ? SB_NC_DEFAULT_TLS_PORT : SB_NC_DEFAULT_PORT;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || p < 1 || p > 65535)
            return "has a port that is not a number from 1 to 65535";
        d->port = (uint16_t) p;
    }
    return NULL;
}

/* ---- connecting ---- */

/* One connection attempt, shared by the device and its thread: whoever
 * lets go of it last frees it (refs), so that close() need not wait for
 * a thread stuck in a hung device's hello. */
struct sb_nc_attempt {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;                     /* 2 while both hold it */
    bool done;
    struct timespec started;      /* CLOCK_MONOTONIC */
    struct nc_session *session;   /* the result, or NULL and err */
    struct ly_ctx *ctx;
    char err[512];
    int code;                     /* tls: the errno of a failure, whose
                                   * err is the whole line after the
                                   * device's name; 0 for ssh */
    /* What the thread needs, copied (ssl_ctx: a reference of its own). */
    char name[64], user[64], host[128];
    uint16_t port;
    int timeout_ms;
    char key[256], pubkey[264], known_hosts[256], schema_path[512];
    SSL_CTX *ssl_ctx;             /* NULL: ssh */
    char tls_ca[256];
};

/* Connecting threads alive, all devices (a hedge is started only below
 * SB_NC_MAX_ATTEMPTS). */
static atomic_int sb_nc_live_attempts;

static void
sb_nc_attempt_unref(struct sb_nc_attempt *a)
{
    pthread_mutex_lock(&a->mu);
    bool last = --a->refs == 0;
    pthread_mutex_unlock(&a->mu);
    if (!last)
        return;
    if (a->session)
        nc_session_free(a->session, NULL);
    ly_ctx_destroy(a->ctx);
    SSL_CTX_free(a->ssl_ctx);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}

/* Small RPCs, each waiting for its reply: without TCP_NODELAY, Nagle's
 * algorithm holds the tail of a message (libnetconf2 writes the chunk
 * header, the XML and the end marker separately) until the previous
 * segment is acknowledged.  libssh's own option applies only when it
 * opens the socket, which libnetconf2 does: the host-key check is the
 * first moment we hold the connected session. */
static void
sb_nc_nodelay(ssh_session ssh)
{
    int one = 1;
    socket_t fd = ssh_get_fd(ssh);
    if (fd != SSH_INVALID_SOCKET)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* libnetconf2's host-key check: the key must be the one known_hosts
 * pins for this host and port; 0 accepts, anything else refuses. */
static int
sb_nc_hostkey(const char *hostname, ssh_session ssh, void *priv)
{
    struct sb_nc_attempt *a = priv;
    const char *why;

    (void) hostname;
    if (ssh_options_set(ssh, SSH_OPTIONS_KNOWNHOSTS, a->known_hosts)
        || ssh_options_set(ssh, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null"))
        why = "cannot use the known-hosts file";
    else {
        switch (ssh_session_is_known_server(ssh)) {
        case SSH_KNOWN_HOSTS_OK:
            sb_nc_nodelay(ssh);
            return 0;
        case SSH_KNOWN_HOSTS_CHANGED:
        case SSH_KNOWN_HOSTS_OTHER:
            why = "the server's host key differs from the one pinned";
            break;
        case SSH_KNOWN_HOSTS_UNKNOWN:
        case SSH_KNOWN_HOSTS_NOT_FOUND:
            /* libssh reads a file it cannot open as one pinning
             * nothing: say which it is. */
            if (access(a->known_hosts, R_OK)) {
                int e = errno;
                snprintf(sb_nc_hostkey_err, sizeof sb_nc_hostkey_err,
                         "host key refused: cannot read the known-hosts "
                         "file %s (%s): set known-hosts to a file "
                         "that pins the device's key (ssh-keyscan -p PORT "
                         "HOST)", LR_UTF8_CLIP(a->known_hosts, 150),
                         strerror(e));
                return -1;
            }
            why = "no host key is pinned for this host and port";
            break;
        default:
            why = "the known-hosts file cannot be read";
            break;
        }
    }
    snprintf(sb_nc_hostkey_err, sizeof sb_nc_hostkey_err, "host key "
             "refused: %s in %s", why, LR_UTF8_CLIP(a->known_hosts, 150));
    return -1;
}

/* Whether one of the directories 'dirs' (NULL-terminated) holds
 * ietf-netconf.  Without it, libnetconf2 fetches the module from the
 * device with <get-schema> (over SSH), which kills netconfd 2.13 (a
 * double free, the second time a client asks), and over TLS it fails
 * after the <hello> in a state its cleanup cannot survive. */
static bool
sb_nc_dirs_have_netconf(const char * const *dirs)
{
    char *file = NULL;
    LYS_INFORMAT fmt;
    if (lys_search_localfile(dirs, 0, "ietf-netconf", NULL, &file, &fmt)
        || !file)
        return false;
    free(file);
    return true;
}

/* The same for a ':'-separated schema path; false when out of memory. */
static bool
sb_nc_path_has_netconf(const char *schema_path)
{
    char *copy = strdup(schema_path), *save = NULL;
    const char **dirs = calloc(strlen(schema_path) / 2 + 2, sizeof *dirs);
    bool found = false;
    int n = 0;
    if (copy && dirs) {
        for (char *t = strtok_r(copy, ":", &save); t;
             t = strtok_r(NULL, ":", &save))
            dirs[n++] = t;
        found = sb_nc_dirs_have_netconf(dirs);
    }
    free(dirs);
    free(copy);
    return found;
}

static void
sb_nc_schema_err(const char *schema_path, char *err, size_t errlen)
{
    sb_errf(err, errlen, 0, "the schema path %s has no ietf-netconf "
            "module: add its directory (e.g. /usr/share/yuma/modules/ietf) "
            "to schema-path", LR_UTF8_CLIP(schema_path, 150));
}

/* Frees a TLS session that libnetconf2 did not take, and its socket. */
static void
sb_nc_ssl_free(SSL *ssl)
{
    int fd = SSL_get_fd(ssl);
    SSL_free(ssl);
    if (fd >= 0)
        close(fd);
}

/* The TLS half of sb_nc_connect_thread(): a session or NULL with
 * a->code and a->err.  The TCP connection, the handshake and the
 * device's first bytes take at most two thirds of the connection
 * timeout, so that a hung device fails here (EHOSTUNREACH) before the
 * caller stops waiting; the <hello> itself and the schemas take the
 * rest. */
static struct nc_session *
sb_nc_connect_tls(struct sb_nc_attempt *a, struct ly_ctx **ctx)
{
    struct nc_session *s;
    SSL *ssl = NULL;
    char e[400];
    int ret = sb_nc_tls_connect(a->ssl_ctx, a->name, a->host, a->port,
                                (SB_NC_CONNECT_FACTOR - 1) * a->timeout_ms,
                                a->tls_ca, &ssl, e, sizeof e);
    if (ret) {
        a->code = ret;
        snprintf(a->err, sizeof a->err, "%s", e);
        return NULL;
    }
    if (ly_ctx_new(a->schema_path, 0, ctx)) {
        sb_nc_ssl_free(ssl);
        a->code = EINVAL;
        snprintf(a->err, sizeof a->err, "cannot make a YANG context on the "
                 "schema path %s: check schema-path",
                 LR_UTF8_CLIP(a->schema_path, 150));
        return NULL;
    }
    /* Without ietf-netconf on the schema path libnetconf2 2.0.24 fails
     * after the <hello>, in a state its cleanup cannot survive (it sends
     * <close-session> on the session it has just taken apart): checked
     * here first (open() has checked it too). */
    if (!sb_nc_dirs_have_netconf(ly_ctx_get_searchdirs(*ctx))) {
        sb_nc_ssl_free(ssl);
        a->code = EINVAL;
        sb_nc_schema_err(a->schema_path, a->err, sizeof a->err);
        return NULL;
    }
    /* libnetconf2 owns 'ssl' when this succeeds; when it fails, 2.0.24
     * leaves it to us (and would crash without the SSL_get_fd() of
     * sb_netconf_tls.c). */
    s = nc_connect_libssl(ssl, *ctx);
    if (!s) {
        sb_nc_ssl_free(ssl);
        a->code = EHOSTUNREACH;
        snprintf(a->err, sizeof a->err, "NETCONF over TLS with %.128s:%u "
                 "failed after the TLS handshake: %s: check that the "
                 "device speaks NETCONF and that schema-path holds its "
                 "modules", a->host, (unsigned) a->port,
                 LR_UTF8_CLIP(sb_nc_lasterr[0] ? sb_nc_lasterr
                              : "no valid <hello>", 200));
    }
    return s;
}

/* The SSH half's lookup of the device's name, before libnetconf2's:
 * true with a->code and a->err when it fails.  libnetconf2 looks the
 * name up with no bound and says only "Unable to translate the host
 * address": a resolver that sits on the query outlasted the caller's
 * wait (ETIMEDOUT "no NETCONF hello ... device hung?", an outcome to
 * read back, for a device sent nothing), and a name that does not
 * resolve was "cannot open a NETCONF session".  Looked up here within
 * two thirds of the connection timeout, as the TLS transport does,
 * the failure has the same errno and line: "cannot resolve HOST",
 * nothing sent (EHOSTUNREACH, EAGAIN; ENOMEM the resolver's own).
 * What it finds is dropped: libnetconf2 is given the name, which
 * libssh matches against known-hosts, and looks it up again, from an
 * answer the resolver has just given. */
static bool
sb_nc_ssh_resolve(struct sb_nc_attempt *a)
{
    struct addrinfo *res = NULL;
    char e[400];
    int ret = sb_nc_resolve(a->host, a->port,
                            (SB_NC_CONNECT_FACTOR - 1) * a->timeout_ms,
                            (SB_NC_CONNECT_FACTOR - 1) * a->timeout_ms,
                            &res, e, sizeof e);
    if (res)
        freeaddrinfo(res);
    if (!ret)
        return false;
    a->code = ret;
    snprintf(a->err, sizeof a->err, "%s", e);
    return true;
}

static void *
sb_nc_connect_thread(void *arg)
{
    struct sb_nc_attempt *a = arg;
    struct nc_session *s = NULL;
    struct ly_ctx *ctx = NULL;

    sb_nc_lasterr[0] = '\0';
    sb_nc_hostkey_err[0] = '\0';
    sb_nc_first_err = true;
    /* libnetconf2's client settings live in this thread.  No search
     * path of libnetconf2's own: it takes one directory and writes
     * fetched schemas into it; the context below has them all. */
    nc_client_set_schema_searchpath(NULL);
    if (a->ssl_ctx) {
        s = sb_nc_connect_tls(a, &ctx);
        goto done;
    }
    nc_client_ssh_set_username(a->user);
    nc_client_ssh_set_auth_pref(NC_SSH_AUTH_PUBLICKEY, 1);
    nc_client_ssh_set_auth_pref(NC_SSH_AUTH_PASSWORD, -1);
    nc_client_ssh_set_auth_pref(NC_SSH_AUTH_INTERACTIVE, -1);
    nc_client_ssh_set_auth_hostkey_check_clb(sb_nc_hostkey, a);
    /* A key pair or a schema path this thread cannot use (libnetconf2
     * refuses a private key it cannot read a line of; a directory gone
     * since open() checked the path) stops the connection before
     * anything is sent: EINVAL, the controller's files (sb_local()),
     * as on the TLS side, not "no session" with the ROADM shown down.
     * The name is looked up between the two: after the key pair (a
     * few small files, read at once), so that a file to fix is said
     * before a resolver's silence, and before the YANG context, which
     * can take long on a busy machine: the lookup's bound (two thirds
     * of the connection's time) then starts with the attempt, and a
     * name that cannot be reached is said before the caller stops
     * waiting, not hidden behind "no NETCONF hello". */
    if (nc_client_ssh_add_keypair(a->pubkey, a->key)) {
        a->code = EINVAL;
        snprintf(a->err, sizeof a->err, "cannot use the key pair "
                 "%s(.pub): nothing sent; give a readable OpenSSH "
                 "key pair in ssh-key", LR_UTF8_CLIP(a->key, 150));
    } else if (sb_nc_ssh_resolve(a)) {
        /* a->code and a->err are set. */
    } else if (ly_ctx_new(a->schema_path, 0, &ctx)) {
        a->code = EINVAL;
        snprintf(a->err, sizeof a->err, "cannot make a YANG context on "
                 "the schema path %s: nothing sent; check "
                 "schema-path", LR_UTF8_CLIP(a->schema_path, 150));
    } else
        s = nc_connect_ssh(a->host, a->port, ctx);

done:
    if (!s) {
        ly_ctx_destroy(ctx);
        ctx = NULL;
    }
    /* This thread's OpenSSL state (its random generators, its error
     * queue) goes now, before the caller learns the result: OpenSSL
     * frees it at thread exit otherwise, and a program that exits as
     * soon as it has the result would leave it behind. */
    OPENSSL_thread_stop();
    pthread_mutex_lock(&a->mu);
    a->session = s;
    a->ctx = ctx;
    if (!s && !a->code)
        snprintf(a->err, sizeof a->err, "%s%s",
                 sb_nc_hostkey_err[0] ? sb_nc_hostkey_err
                 : sb_nc_lasterr[0] ? sb_nc_lasterr
                                    : "no NETCONF session",
                 /* Authenticated, then the channel closed: sshd ran the
                  * subsystem and nothing answered behind it. */
                 !a->ssl_ctx && !sb_nc_hostkey_err[0] && (!sb_nc_lasterr[0]
                     || strstr(sb_nc_lasterr, "unexpected EOF"))
                 ? " (is the NETCONF server running behind sshd?)" : "");
    a->done = true;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    atomic_fetch_sub(&sb_nc_live_attempts, 1);
    sb_nc_attempt_unref(a);
    return NULL;
}

/* Starts a connection attempt for 'd'; NULL when out of resources. */
static struct sb_nc_attempt *
sb_nc_attempt_start(const struct sb_netconf *d)
{
    struct sb_nc_attempt *a = calloc(1, sizeof *a);
    pthread_condattr_t ca;
    pthread_attr_t ta;
    pthread_t t;

    if (!a)
        return NULL;
    pthread_mutex_init(&a->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->cv, &ca);
    pthread_condattr_destroy(&ca);
    a->refs = 2;
    clock_gettime(CLOCK_MONOTONIC, &a->started);
    snprintf(a->name, sizeof a->name, "%s", d->config.name);
    a->timeout_ms = d->timeout_ms;
    if (d->ssl_ctx) {
        SSL_CTX_up_ref(d->ssl_ctx);
        a->ssl_ctx = d->ssl_ctx;
        snprintf(a->tls_ca, sizeof a->tls_ca, "%s", d->config.tls_ca);
    }
    snprintf(a->user, sizeof a->user, "%s", d->user);
    snprintf(a->host, sizeof a->host, "%s", d->host);
    a->port = d->port;
    snprintf(a->key, sizeof a->key, "%s", d->config.ssh_key);
    snprintf(a->pubkey, sizeof a->pubkey, "%s.pub", d->config.ssh_key);
    snprintf(a->known_hosts, sizeof a->known_hosts, "%s",
             d->config.known_hosts);
    snprintf(a->schema_path, sizeof a->schema_path, "%s",
             d->config.schema_path[0] ? d->config.schema_path
                                      : SB_NETCONF_SCHEMA_PATH);
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&sb_nc_live_attempts, 1);
    int rc = pthread_create(&t, &ta, sb_nc_connect_thread, a);
    pthread_attr_destroy(&ta);
    if (rc) {
        atomic_fetch_sub(&sb_nc_live_attempts, 1);
        a->refs = 1;
        sb_nc_attempt_unref(a);
        return NULL;
    }
    return a;
}

/* *ts = base + ms (base NULL: now). */
static void
sb_nc_deadline_from(struct timespec *ts, const struct timespec *base, int ms)
{
    if (base)
        *ts = *base;
    else
        clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long) (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static bool
sb_nc_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec
           || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Milliseconds from now to 'until' (CLOCK_MONOTONIC), rounded up; 0
 * once it has passed. */
static int
sb_nc_ms_left(const struct timespec *until)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long) (until->tv_sec - now.tv_sec) * 1000000000LL
                   + (until->tv_nsec - now.tv_nsec);
    return ns <= 0 ? 0 : (int) ((ns + 999999) / 1000000);
}

/* Waits until 'a' is done or 'until' (CLOCK_MONOTONIC); a->done. */
static bool
sb_nc_attempt_wait(struct sb_nc_attempt *a, const struct timespec *until)
{
    pthread_mutex_lock(&a->mu);
    while (!a->done)
        if (pthread_cond_timedwait(&a->cv, &a->mu, until) == ETIMEDOUT)
            break;
    bool done = a->done;
    pthread_mutex_unlock(&a->mu);
    return done;
}

static void
sb_nc_drop(struct sb_netconf *d)
{
    if (d->session)
        nc_session_free(d->session, NULL);
    ly_ctx_destroy(d->ctx);
    d->session = NULL;
    d->ctx = NULL;
    d->cache.ok = false;
}

/* Makes d->session a live session (see the top comment); d->lock held.
 * EHOSTUNREACH (refused, unreachable, authentication, or no session
 * within the connection timeout: nothing sent), EAGAIN (a resolver
 * with no answer); EACCES, EINVAL or ENOMEM as the top comment says.
 * Never ETIMEDOUT: no RPC goes out before this succeeds.
 *
 * Hedged: an attempt still pending timeout_ms after it started (a
 * connection takes hundreds of milliseconds) gets a second one beside
 * it, and the first to finish is taken; the other is left to end on its
 * own (sb_nc_attempt_unref).  A session can be lost in its setup: netconfd
 * (yuma123 2.13) leaves a request that arrives in the same read() as the
 * client's <hello> unanswered until more input comes, and libnetconf2
 * sends one (<get-schema> of ietf-netconf-nmda) right after its hello
 * and waits minutes for the reply; about one session in 200 on a
 * loaded machine.  A second session has the same small chance, not the
 * same fate.  A hung device costs one more thread, bounded by
 * SB_NC_MAX_ATTEMPTS over all devices; the caller still waits at most
 * SB_NC_CONNECT_FACTOR * timeout_ms. */
static int
sb_nc_connect(struct sb_netconf *d, char *err, size_t errlen)
{
    struct timespec end, hedge, now;
    int ret = 0;

    if (d->session && nc_session_get_status(d->session) == NC_STATUS_RUNNING)
        return 0;
    sb_nc_drop(d);
    /* No thread (or no memory for the attempt) is the controller's
     * host, not the device, which was sent nothing: ENOMEM, local
     * (sb_local()), where EAGAIN would show the ROADM down. */
    if (!d->attempt && !(d->attempt = sb_nc_attempt_start(d)))
        return sb_errf(err, errlen, ENOMEM, "%s: cannot start a thread "
                       "to connect (the controller's host is out of "
                       "threads or memory): nothing sent; retry",
                       d->config.name);
    struct sb_nc_attempt *a = d->attempt, *b = NULL, *won = NULL;
    sb_nc_deadline_from(&end, NULL, SB_NC_CONNECT_FACTOR * d->timeout_ms);
    sb_nc_deadline_from(&hedge, &a->started, d->timeout_ms);
    if (sb_nc_attempt_wait(a, sb_nc_before(&hedge, &end) ? &hedge : &end))
        won = a;
    else if (sb_nc_hedge
             && atomic_load(&sb_nc_live_attempts) < SB_NC_MAX_ATTEMPTS)
        b = sb_nc_attempt_start(d);
    /* Both pending: whichever finishes first, looking every 20 ms. */
    while (!won && b) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!sb_nc_before(&now, &end))
            break;
        struct timespec step;
        sb_nc_deadline_from(&step, &now, 20);
        if (sb_nc_attempt_wait(a, sb_nc_before(&step, &end) ? &step : &end))
            won = a;
        else if (sb_nc_attempt_wait(b, &now))
            won = b;
    }
    if (!won && !b && sb_nc_attempt_wait(a, &end))
        won = a;
    if (!won) {
        /* A later call waits on the newer attempt; the older one is
         * left to end on its own. */
        if (b) {
            sb_nc_attempt_unref(a);
            d->attempt = b;
        }
        /* The attempt had not given us a session, and an RPC goes
         * out only on one (sb_nc_rpc() connects first): whatever the
         * thread exchanged (SSH, TLS, <hello>, libnetconf2's own
         * <get-schema>) changed nothing on the device.  EHOSTUNREACH,
         * not ETIMEDOUT, whose "outcome unknown" would have the caller
         * read back (or try to undo on) a device sent no edit. */
        return sb_errf(err, errlen, EHOSTUNREACH, "%s: no NETCONF hello from "
                       "%s:%u within %d ms (device hung?): nothing sent; "
                       "retry later", d->config.name, d->host,
                       (unsigned) d->port,
                       SB_NC_CONNECT_FACTOR * d->timeout_ms);
    }
    pthread_mutex_lock(&won->mu);
    d->session = won->session;
    d->ctx = won->ctx;
    won->session = NULL;
    won->ctx = NULL;
    if (!d->session && won->code)
        ret = sb_errf(err, errlen, won->code, "%s: %s", d->config.name,
                      won->err);
    else if (!d->session)
        ret = sb_errf(err, errlen, strstr(won->err, "host key refused")
                      ? EACCES : EHOSTUNREACH, "%s: cannot open a "
                      "NETCONF session to %s@%s:%u: %s: check the "
                      "device, its address, ssh-key and known-hosts",
                      d->config.name, d->user, d->host,
                      (unsigned) d->port, won->err);
    pthread_mutex_unlock(&won->mu);
    sb_nc_attempt_unref(a);
    if (b)
        sb_nc_attempt_unref(b);
    d->attempt = NULL;
    return ret;
}

/* ---- RPCs ---- */

static const char *
sb_nc_opaq_child(const struct lyd_node *parent, const char *name)
{
    for (const struct lyd_node *c = lyd_child(parent); c; c = c->next)
        if (!strcmp(LYD_NAME(c), name))
            return lyd_get_value(c);
    return NULL;
}

/* 0 for <ok/> or data, EPROTO with the first rpc-error in one line. */
static int
sb_nc_reply_error(struct sb_netconf *d, const struct lyd_node *envp,
                  char *err, size_t errlen)
{
    for (const struct lyd_node *c = envp ? lyd_child(envp) : NULL; c;
         c = c->next) {
        if (strcmp(LYD_NAME(c), "rpc-error"))
            continue;
        const char *tag = sb_nc_opaq_child(c, "error-tag");
        const char *app = sb_nc_opaq_child(c, "error-app-tag");
        const char *path = sb_nc_opaq_child(c, "error-path");
        const char *msg = sb_nc_opaq_child(c, "error-message");
        return sb_errf(err, errlen, EPROTO, "%s: the device refused the "
                       "edit (%s%s%s%s%s): %s; nothing applied",
                       d->config.name, tag ? tag : "rpc-error",
                       app ? ", " : "", app ? app : "",
                       path ? " at " : "", path ? path : "",
                       msg ? msg : "no error-message");
    }
    return 0;
}

/* Sends 'rpc' and waits for its reply ('*op' gets the output data, the
 * caller frees it with lyd_free_all()).  'idempotent': a session lost
 * after sending may be retried on a new one. */
static int
sb_nc_rpc(struct sb_netconf *d, struct nc_rpc *rpc, bool idempotent,
          struct lyd_node **op, char *err, size_t errlen)
{
    struct lyd_node *envp = NULL;
    uint64_t msgid;
    int ret;

    *op = NULL;
    for (int attempt = 0;; attempt++) {
        ret = sb_nc_connect(d, err, errlen);
        if (ret)
            return ret;
        sb_nc_lasterr[0] = '\0';
        NC_MSG_TYPE t = nc_send_rpc(d->session, rpc, d->timeout_ms, &msgid);
        if (t == NC_MSG_ERROR && attempt == 0) {
            /* Dead before anything went out: a new session. */
            sb_nc_drop(d);
            continue;
        }
        if (t != NC_MSG_RPC) {
            sb_nc_drop(d);
            return sb_errf(err, errlen, t == NC_MSG_WOULDBLOCK
                           ? ETIMEDOUT : EHOSTUNREACH, "%s: cannot send "
                           "to %s:%u (%s): %s", d->config.name, d->host,
                           (unsigned) d->port, sb_nc_lasterr[0]
                           ? sb_nc_lasterr : "session lost",
                           t == NC_MSG_WOULDBLOCK ? "the outcome is "
                           "unknown; read the device back" : "nothing "
                           "applied; retry");
        }
        /* One deadline for the reply: notifications and replies to
         * other messages do not start the wait again. */
        struct timespec until;
        sb_nc_deadline_from(&until, NULL, d->timeout_ms);
        do {
            lyd_free_all(envp);
            lyd_free_all(*op);
            envp = *op = NULL;
            int left = sb_nc_ms_left(&until);
            t = left > 0 ? nc_recv_reply(d->session, rpc, msgid, left, &envp,
                                         op)
                         : NC_MSG_WOULDBLOCK;
        } while (t == NC_MSG_REPLY_ERR_MSGID || t == NC_MSG_NOTIF);
        if (t == NC_MSG_REPLY)
            break;
        lyd_free_all(envp);
        lyd_free_all(*op);
        envp = *op = NULL;
        sb_nc_drop(d);
        if (t == NC_MSG_ERROR && idempotent && attempt == 0)
            continue;
        if (t == NC_MSG_WOULDBLOCK)
            return sb_errf(err, errlen, ETIMEDOUT, "%s: no reply from "
                           "%s:%u within %d ms: the outcome is unknown; "
                           "read the device back", d->config.name,
                           d->host, (unsigned) d->port, d->timeout_ms);
        return sb_errf(err, errlen, ETIMEDOUT, "%s: session to %s:%u lost "
                       "before the reply (%s): the outcome is unknown; "
                       "read the device back", d->config.name, d->host,
                       (unsigned) d->port, sb_nc_lasterr[0]
                       ? sb_nc_lasterr : "connection closed");
    }
    ret = sb_nc_reply_error(d, envp, err, errlen);
    lyd_free_all(envp);
    if (ret) {
        lyd_free_all(*op);
        *op = NULL;
        d->cache.ok = false;
    }
    return ret;
}

/* ---- the device's channels ---- */

static bool
sb_nc_copy(char *dst, size_t size, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n >= size)
        return false;
    memcpy(dst, s ? s : "", n + 1);
    return true;
}

/* One <channel> node into an entry; false when it cannot be one. */
static bool
sb_nc_parse_channel(const struct lyd_node *ch, struct sb_chent *e)
{
    const char *index = NULL, *lo = NULL, *up = NULL, *n = NULL, *m = NULL;
    const char *admin = NULL;

    memset(e, 0, sizeof *e);
    for (const struct lyd_node *c = lyd_child(ch); c; c = c->next) {
        const char *k = LYD_NAME(c), *v = lyd_get_value(c);
        if (!strcmp(k, "index"))
            index = v;
        else if (!strcmp(k, "name")) {
            if (!sb_nc_copy(e->mc.name, sizeof e->mc.name, v))
                return false;
        } else if (!strcmp(k, "in-port")) {
            if (!sb_nc_copy(e->mc.in_port, sizeof e->mc.in_port, v))
                return false;
        } else if (!strcmp(k, "out-port")) {
            if (!sb_nc_copy(e->mc.out_port, sizeof e->mc.out_port, v))
                return false;
        } else if (!strcmp(k, "lower-frequency"))
            lo = v;
        else if (!strcmp(k, "upper-frequency"))
            up = v;
        else if (!strcmp(k, "n"))
            n = v;
        else if (!strcmp(k, "m"))
            m = v;
        else if (!strcmp(k, "admin-state"))
            admin = v;
    }
    if (!index || !e->mc.name[0])
        return false;
    char *end;
    errno = 0;
    unsigned long long ix = strtoull(index, &end, 10);
    if (errno || *end || ix < 1 || ix > UINT32_MAX || index[0] == '-')
        return false;
    e->index = (uint32_t) ix;
    if (n && m) {
        if (!sb_grid_from_nm(n, m, &e->mc.n, &e->mc.m))
            return false;
    } else if (!lo || !up
               || !sb_grid_from_edges(lo, up, &e->mc.n, &e->mc.m, NULL,
                                     NULL))
        return false;
    e->mc.enabled = !admin || !strcmp(admin, "enabled");
    return true;
}

static void
sb_nc_collect(struct sb_netconf *d, const struct lyd_node *tree, int *bad)
{
    const struct lyd_node *node;

    LY_LIST_FOR(tree, node) {
        const char *name = LYD_NAME(node);
        if (!strcmp(name, "channel")) {
            struct sb_chent e;
            if (!sb_nc_parse_channel(node, &e)) {
                (*bad)++;
                continue;
            }
            if (sb_chtab_add(&d->cache, &e)) {
                (*bad)++;
                return;
            }
        } else {
            /* The reply's <get-config> output, its <data> anydata,
             * <roadm>, <media-channels>. */
            if (node->schema && (node->schema->nodetype & LYS_ANYDATA)) {
                const struct lyd_node_any *any =
                    (const struct lyd_node_any *) node;
                if (any->value_type == LYD_ANYDATA_DATATREE)
                    sb_nc_collect(d, any->value.tree, bad);
            } else
                sb_nc_collect(d, lyd_child(node), bad);
        }
    }
}

/* Reads the device's channels into the cache. */
static int
sb_nc_refresh(struct sb_netconf *d, char *err, size_t errlen)
{
    struct nc_rpc *rpc = nc_rpc_getconfig(NC_DATASTORE_RUNNING,
                                          "<roadm xmlns=\"" SB_NC_NS "\">"
                                          "<media-channels/></roadm>",
                                          NC_WD_UNKNOWN, NC_PARAMTYPE_CONST);
    struct lyd_node *op = NULL;
    int bad = 0, ret;

    if (!rpc)
        return sb_errf(err, errlen, ENOMEM, "%s: out of memory",
                       d->config.name);
    d->cache.ok = false;
    ret = sb_nc_rpc(d, rpc, true, &op, err, errlen);
    nc_rpc_free(rpc);
    if (ret)
        return ret;
    d->cache.n = 0;
    sb_nc_collect(d, op, &bad);
    lyd_free_all(op);
    if (bad)
        return sb_errf(err, errlen, EPROTO, "%s: %d media channel(s) in "
                       "the running config cannot be read (no index, "
                       "name or spectrum): fix the device's config",
                       d->config.name, bad);
    d->cache.ok = true;
    return 0;
}

/* ---- the edit ---- */

struct sb_nc_buf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void
sb_nc_put(struct sb_nc_buf *b, const char *fmt, ...)
{
    va_list ap;
    if (b->oom)
        return;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL,
                          b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->s && (size_t) n < b->cap - b->len) {
            b->len += (size_t) n;
            return;
        }
        size_t ncap = b->cap ? 2 * b->cap : 1024;
        while (ncap < b->len + (size_t) n + 1)
            ncap *= 2;
        char *p = realloc(b->s, ncap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = ncap;
    }
}

static void
sb_nc_put_text(struct sb_nc_buf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': sb_nc_put(b, "&lt;"); break;
        case '>': sb_nc_put(b, "&gt;"); break;
        case '&': sb_nc_put(b, "&amp;"); break;
        case '"': sb_nc_put(b, "&quot;"); break;
        default: sb_nc_put(b, "%c", *s); break;
        }
}

static void
sb_nc_put_channel(struct sb_nc_buf *b, const struct sb_chent *e)
{
    const struct sb_media_channel *mc = &e->mc;
    long long centre = SB_GRID_BASE_MHZ + (long long) mc->n * SB_GRID_SLOT_MHZ;
    long long half = (long long) mc->m * SB_GRID_SLOT_MHZ;

    sb_nc_put(b, "<channel nc:operation=\"create\"><index>%" PRIu32
              "</index><name>", e->index);
    sb_nc_put_text(b, mc->name);
    sb_nc_put(b, "</name>");
    if (mc->in_port[0]) {
        sb_nc_put(b, "<in-port>");
        sb_nc_put_text(b, mc->in_port);
        sb_nc_put(b, "</in-port>");
    }
    if (mc->out_port[0]) {
        sb_nc_put(b, "<out-port>");
        sb_nc_put_text(b, mc->out_port);
        sb_nc_put(b, "</out-port>");
    }
    sb_nc_put(b, "<lower-frequency>%lld</lower-frequency><upper-frequency>"
              "%lld</upper-frequency><admin-state>%s</admin-state></channel>",
              centre - half, centre + half,
              mc->enabled ? "enabled" : "disabled");
}

static int
sb_netconf_apply_locked(struct sb_netconf *d, const struct sb_change *changes,
                        int n, char *err, size_t errlen)
{
    struct sb_chent *work = NULL;         /* the device after the batch */
    struct sb_chstep *steps = NULL;
    int n_work = 0, ret = 0;
    struct sb_nc_buf b = { 0 };
    struct nc_rpc *rpc = NULL;
    struct lyd_node *op = NULL;

    if ((!d->cache.ok && (ret = sb_nc_refresh(d, err, errlen)))
        || (ret = sb_chtab_plan(&d->cache, d->config.name, changes, n, &work,
                                &n_work, &steps, err, errlen)))
        goto cleanup;

    /* One edit: the deletes of channels the device holds, then the
     * channels new to it (one created and deleted again in the batch is
     * neither). */
    sb_nc_put(&b, "<roadm xmlns=\"" SB_NC_NS "\" xmlns:nc=\"urn:ietf:params:"
              "xml:ns:netconf:base:1.0\"><media-channels>");
    int n_edit = 0;
    for (int i = 0; i < n; i++)
        if (!steps[i].create
            && sb_chtab_has_index(&d->cache, steps[i].e.index)) {
            sb_nc_put(&b, "<channel nc:operation=\"delete\"><index>%" PRIu32
                      "</index></channel>", steps[i].e.index);
            n_edit++;
        }
    for (int i = 0; i < n_work; i++)
        if (!sb_chtab_has_index(&d->cache, work[i].index)) {
            sb_nc_put_channel(&b, &work[i]);
            n_edit++;
        }
    sb_nc_put(&b, "</media-channels></roadm>");
    if (b.oom) {
        ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory; nothing "
                      "applied", d->config.name);
        goto cleanup;
    }
    if (n_edit == 0)
        goto cleanup;
    rpc = nc_rpc_edit(NC_DATASTORE_RUNNING, NC_RPC_EDIT_DFLTOP_MERGE,
                      NC_RPC_EDIT_TESTOPT_UNKNOWN, NC_RPC_EDIT_ERROPT_ROLLBACK,
                      b.s, NC_PARAMTYPE_CONST);
    if (!rpc) {
        ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory; nothing "
                      "applied", d->config.name);
        goto cleanup;
    }
    ret = sb_nc_rpc(d, rpc, false, &op, err, errlen);
    if (ret)
        goto cleanup;
    /* Applied: the device now holds 'work'. */
    sb_chtab_set(&d->cache, work, n_work);

cleanup:
    lyd_free_all(op);
    nc_rpc_free(rpc);
    free(b.s);
    free(work);
    free(steps);
    return ret;
}

static int
sb_netconf_apply(struct sb_device *dev, const struct sb_change *changes,
                 int n, char *err, size_t errlen)
{
    struct sb_netconf *d = sb_nc_cast(dev);
    struct sb_chent *seen = NULL;
    int ret, n_seen = 0;

    if (n < 0 || (n && !changes))
        return sb_errf(err, errlen, EINVAL, "%s: %d changes: fix the "
                       "request", d->config.name, n);
    pthread_mutex_lock(&d->lock);
    /* The channels the batch is planned on, when they come from the
     * cache rather than from a read made for this batch. */
    bool cached = sb_chtab_snapshot(&d->cache, &seen, &n_seen);
    ret = sb_netconf_apply_locked(d, changes, n, err, errlen);
    /* A channel made behind the driver's back since it last read the
     * device takes the index the batch's create was given, and the
     * device refuses the whole edit (data-exists; rollback-on-error:
     * nothing applied).  When the device now holds other channels than
     * the batch was planned on, it is planned again on them and sent
     * once more; a refusal for any other reason comes back the same. */
    if (ret == EPROTO && cached) {
        char e[512];
        if (!sb_nc_refresh(d, e, sizeof e)
            && !sb_chtab_holds(&d->cache, seen, n_seen))
            ret = sb_netconf_apply_locked(d, changes, n, err, errlen);
    }
    pthread_mutex_unlock(&d->lock);
    free(seen);
    return ret;
}

static int
sb_netconf_read(struct sb_device *dev, struct sb_media_channel **out, int *n,
                char *err, size_t errlen)
{
    struct sb_netconf *d = sb_nc_cast(dev);
    int ret;

    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&d->lock);
    ret = sb_nc_refresh(d, err, errlen);
    if (!ret)
        ret = sb_chtab_read(&d->cache, d->config.name, out, n, err, errlen);
    pthread_mutex_unlock(&d->lock);
    return ret;
}

static void
sb_netconf_close(struct sb_device *dev)
{
    struct sb_netconf *d = sb_nc_cast(dev);

    if (!d)
        return;
    /* A connecting thread still waiting for a hung device's hello
     * finishes on its own and frees what it made. */
    if (d->attempt)
        sb_nc_attempt_unref(d->attempt);
    sb_nc_drop(d);
    SSL_CTX_free(d->ssl_ctx);
    pthread_mutex_destroy(&d->lock);
    sb_chtab_free(&d->cache);
    free(d);
}

/* Whether every string of 'config' the driver reads ends in its
 * buffer. */
static bool
sb_nc_terminated(const struct sb_device_config *config)
{
    return memchr(config->name, '\0', sizeof config->name)
           && memchr(config->address, '\0', sizeof config->address)
           && memchr(config->ssh_key, '\0', sizeof config->ssh_key)
           && memchr(config->known_hosts, '\0', sizeof config->known_hosts)
           && memchr(config->transport, '\0', sizeof config->transport)
           && memchr(config->tls_cert, '\0', sizeof config->tls_cert)
           && memchr(config->tls_key, '\0', sizeof config->tls_key)
           && memchr(config->tls_ca, '\0', sizeof config->tls_ca);
}

/* The TLS client context of a device whose transport is tls, made of
 * its certificate, key and CA files ('*out' the caller's, freed with
 * SSL_CTX_free()), NULL for any other: the rules of the files, which
 * open() applies and check_files applies alone.  A tls device short of
 * a file gets NULL too: open() refuses it in its own words. */
static int
sb_nc_tls_files(const struct sb_device_config *config, SSL_CTX **out,
                char *err, size_t errlen)
{
    char e[400];
    int r;

    *out = NULL;
    if (strcmp(config->transport, "tls") || !config->tls_cert[0]
        || !config->tls_key[0] || !config->tls_ca[0])
        return 0;
    if ((r = sb_nc_tls_ctx(config->tls_cert, config->tls_key,
                           config->tls_ca, out, e, sizeof e)))
        return sb_errf(err, errlen, r, "%s: %s", config->name, e);
    return 0;
}

static void
sb_nc_ctx_free(void *ctx)
{
    SSL_CTX_free(ctx);
}

/* The key of what is kept for 'config' ('key' holds 5): its name and
 * the paths of its three files. */
static const char *const *
sb_nc_kept_key(const struct sb_device_config *config, const char **key)
{
    key[0] = config->name;
    key[1] = config->tls_cert;
    key[2] = config->tls_key;
    key[3] = config->tls_ca;
    key[4] = NULL;
    return key;
}

static void
sb_netconf_forget_files(void)
{
    sb_kept_clear(&sb_nc_kept);
}

static int
sb_netconf_check_files(const struct sb_device_config *config, char *err,
                       size_t errlen)
{
    const char *key[5];
    SSL_CTX *ctx;

    if (!sb_nc_terminated(config))
        return sb_errf(err, errlen, EINVAL, "%.63s: a NETCONF setting is "
                       "not terminated", config->name);
    sb_kept_drop(&sb_nc_kept, sb_nc_kept_key(config, key));
    int r = sb_nc_tls_files(config, &ctx, err, errlen);
    if (!r && ctx)
        sb_kept_put(&sb_nc_kept, key, ctx, 0);
    return r;
}

static int
sb_netconf_open(const struct sb_device_config *config,
                struct sb_device **out, char *err, size_t errlen)
{
    struct sb_netconf *d;
    const char *bad;

    *out = NULL;
    pthread_once(&sb_nc_once, sb_nc_init);
    if (!sb_nc_terminated(config))
        return sb_errf(err, errlen, EINVAL, "%.63s: a NETCONF setting is "
                       "not terminated", config->name);
    bool tls = !strcmp(config->transport, "tls");
    if (!tls && config->transport[0] && strcmp(config->transport, "ssh"))
        return sb_errf(err, errlen, EINVAL, "%s: unknown NETCONF transport "
                       "'%s': write ssh or tls", config->name,
                       config->transport);
    if (tls && (!config->tls_cert[0] || !config->tls_key[0]
                || !config->tls_ca[0]))
        return sb_errf(err, errlen, EINVAL, "%s: NETCONF over TLS needs a "
                       "client certificate, its key and the CA that signs "
                       "the devices (mutual authentication; the system's "
                       "CAs are not trusted): set certificate, key and ca "
                       "in southbound/netconf/tls (or the device's tls)",
                       config->name);
    if (!tls && (!config->ssh_key[0] || !config->known_hosts[0]))
        return sb_errf(err, errlen, EINVAL, "%.63s: the netconf driver "
                       "needs an ssh-key and a known-hosts file (host "
                       "keys are pinned, never asked): set both in the "
                       "southbound configuration", config->name);
    d = calloc(1, sizeof *d);
    if (!d)
        return sb_errf(err, errlen, ENOMEM, "%.63s: out of memory",
                       config->name);
    d->config = *config;
    d->tls = tls;
    bad = sb_nc_parse_address(d, config->address);
    if (bad) {
        free(d);
        return sb_errf(err, errlen, EINVAL, "%.63s: NETCONF address '%s' "
                       "%s: write %s", config->name, config->address, bad,
                       tls ? "HOST:PORT" : "USER@HOST:PORT");
    }
    /* A key pair that cannot be read is a configuration error, said
     * now: otherwise every device looks like one refusing us ("Unable
     * to authenticate") while lightraild runs on. */
    for (int half = 0; !tls && half < 2; half++) {
        char path[sizeof config->ssh_key + 4];
        snprintf(path, sizeof path, "%s%s", config->ssh_key,
                 half ? ".pub" : "");
        if (access(path, R_OK)) {
            int e = errno;
            free(d);
            return sb_errf(err, errlen, EINVAL, "%.63s: cannot read the "
                           "ssh-key's %s half %s (%s): set ssh-key to "
                           "the private key, with its public key beside it "
                           "as FILE.pub", config->name,
                           half ? "public" : "private",
                           LR_UTF8_CLIP(path, 250), strerror(e));
        }
    }
    /* The context check_files loaded at the start, else the files as
     * they are now. */
    int r = 0;
    const char *key[5];
    if (tls && !(d->ssl_ctx = sb_kept_take(&sb_nc_kept,
                                           sb_nc_kept_key(config, key),
                                           NULL)))
        r = sb_nc_tls_files(config, &d->ssl_ctx, err, errlen);
    if (r) {
        free(d);
        return r;
    }
    /* A schema path without ietf-netconf is a configuration error,
     * said now and not on every connection: a session made with it
     * would fetch the module from the device and crash a netconfd. */
    const char *schema_path = config->schema_path[0] ? config->schema_path
                                                     : SB_NETCONF_SCHEMA_PATH;
    if (!sb_nc_path_has_netconf(schema_path)) {
        char e[300];
        sb_nc_schema_err(schema_path, e, sizeof e);
        SSL_CTX_free(d->ssl_ctx);
        free(d);
        return sb_errf(err, errlen, EINVAL, "%.63s: %s", config->name, e);
    }
    d->timeout_ms = config->timeout_ms > 0 ? config->timeout_ms
                                           : SB_NC_DEFAULT_TIMEOUT_MS;
    pthread_mutex_init(&d->lock, NULL);

    /* A device that does not answer now is no error: the controller
     * starts anyway and the session is made on first use.  A refused
     * host key is a configuration error and says so now. */
    char e[512];
    pthread_mutex_lock(&d->lock);
    int ret = sb_nc_connect(d, e, sizeof e);
    if (!ret)
        ret = sb_nc_refresh(d, e, sizeof e);
    pthread_mutex_unlock(&d->lock);
    if (ret == EACCES) {
        sb_errf(err, errlen, EACCES, "%s", e);
        sb_netconf_close((struct sb_device *) d);
        return EACCES;
    }
    *out = (struct sb_device *) d;
    return 0;
}

const struct sb_driver_class sb_netconf_class = {
    .name = "netconf",
    .check_files = sb_netconf_check_files,
    .forget_files = sb_netconf_forget_files,
    .open = sb_netconf_open,
    .apply = sb_netconf_apply,
    .read = sb_netconf_read,
    .close = sb_netconf_close,
};
