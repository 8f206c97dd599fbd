/*
 * lr_agent_party: a DC agent as a CDynP party; see lr_agent_party.h.
 *
 * One connection per party, used by one thread at a time: a vtable call
 * encodes one request, writes it, reads one answer frame and decodes it,
 * all under a deadline of 'timeout' seconds from the start of the call
 * (connect and handshake, when needed, get a deadline of their own).
 * The socket is non-blocking; OpenSSL's WANT_READ/WANT_WRITE become a
 * poll() for the remaining time.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "controller/lr_agent_party.h"
#include "controller/lr_resolve.h"
#include "controller/lr_tls.h"
#include "planner/lr_cdynp_wire.h"

/* The largest frame a party sends or accepts, with its length field:
 * a JOB of LR_MODEL_MAX_LAYERS layers, or a STEP with a full summary;
 * or a KEEP of LR_WIRE_KEEP_MAX tags of LR_WIRE_NAME_MAX - 1 bytes, the
 * larger (twice the others). */
#define AP_JOB_STEP (64 + 24 * (size_t) LR_MODEL_MAX_LAYERS                  \
                     + 64 + 32 * (size_t) LR_CDYNP_MAX_ENTRIES)
#define AP_KEEP (64 + (size_t) LR_WIRE_KEEP_MAX * (2 + LR_WIRE_NAME_MAX))
#define AP_BUF (AP_KEEP > AP_JOB_STEP ? AP_KEEP : AP_JOB_STEP)

/* Certificate names are matched exactly, as the subject CN or a DNS
 * SAN: the names are configured one by one, a wildcard would let one
 * DC's certificate pass for another's. */
#define AP_HOSTFLAGS (X509_CHECK_FLAG_ALWAYS_CHECK_SUBJECT                   \
                      | X509_CHECK_FLAG_NO_WILDCARDS)

struct agent_party {
    struct lr_cdynp_party base;
    char address[256];
    int port;
    char name[64];                /* expected certificate name */
    double timeout;               /* s */
    /* What a whole plan may take (lr_agent_party_set_budget; 0: no
     * bound), and while lr_agent_plan() runs, when it ends (now_s()). */
    double budget, plan_deadline;
    bool out_of_budget;           /* the sticky failure is the budget's */
    bool starved;                 /* ... spent before its request was sent,
                                     its connection up in time */
    bool answered;                /* the failure came as its answer (an
                                     ERROR, then it closed): reachable */
    bool closed_by_agent;         /* the failure is the agent's closing
                                     of a connection that had answered,
                                     with its word ("closed: ...", an
                                     ERROR of id 0: it makes room for
                                     another), before it read the
                                     request in flight (exchange()):
                                     nothing of that request ran,
                                     lr_agent_plan() may run the plan
                                     again */
    bool closed_silently;         /* the failure is the end of a
                                     connection that had answered, with
                                     no word (no ERROR): a crash, the OOM
                                     killer, a restart; the request in
                                     flight may be what killed it, so
                                     the plan is not run again
                                     (closed_without_a_word()) */
    /* When the connection's address was resolved, its TCP connection
     * accepted and its handshake finished (now_s()): which of them a
     * budget ran out in. */
    double resolved_at, accepted_at, up_at;
    SSL_CTX *ctx;
    enum { AP_DOWN, AP_TCP, AP_TLS, AP_UP } state;
    int fd;                       /* -1 when AP_DOWN */
    struct addrinfo *ai_list, *ai;    /* while connecting */
    struct lr_lookup *lookup;     /* started, not yet waited for */
    SSL *ssl;
    struct lr_tls_peer verified;  /* what the agent's chain failed at */
    char crl[1024];               /* the CRL file, "" when none */
    char serial[80];              /* our certificate's, for its refusal */
    bool hello;                   /* HELLO_OK received on this connection */
    /* The protocol revision HELLO_OK agreed on this connection
     * (lr_cdynp_wire.h; 1 when it named none), 0 before it. */
    int revision;
    /* The agent refused a HELLO naming a revision as a malformed frame:
     * it is from before 2026-12-07, and each later connection of this
     * party says a plain HELLO (revision 1), as coordinators did before:
     * in this job and the next ones (since 2026-12-07; before, each job
     * asked at revision 2 again, one connection more each time), until
     * 'revision_retry' seconds have passed since the refusal
     * ('plain_at', now_s()): the first new connection after that asks
     * at revision 2 again, so that an agent upgraded in place is found
     * within that time (since 2026-12-07, later; before, only a new
     * party asked: a PUT of the network, a restart of lightraild).
     * 'plain_job' is the job it refused in. */
    bool plain_hello;
    uint32_t plain_job;
    double plain_at, revision_retry;
    /* How long lr_agent_plan() waits for the agent to accept again
     * after its goodbye (lr_agent_party_set_restart_wait; 0: one try,
     * no wait). */
    double restart_wait;
    /* Why a refusal after the goodbye is not waited for (with
     * restart_wait 0): the caller's short phrase, kept here, quoted in
     * the failure (lr_agent_party_set_restart_wait). */
    char restart_why[160];
    /* The connection was up when the job was set (kept from the last
     * job) and has answered nothing since: ensure_hello() looks whether
     * the agent closed it (drop_if_stale()) right before the job's
     * first request is written. */
    bool kept;
    /* The agent's closes of a connection kept idle seen before a
     * request (drop_if_stale()), and the last one said. */
    unsigned idle_closes;
    char idle_close[768];
    /* The revision the last HELLO_OK named (0: none), and the BACKTRACKs
     * of objectives 0-3 sent in the plan lr_agent_plan() runs (reset at
     * its start): what revision_notes() tells the operator of an agent
     * at revision 1, whose requests revision 2 would have spared. */
    int hello_ok_revision;
    int spared_backtracks;
    /* The lowest revision agreed on any connection of that plan (0:
     * none): a connection may end before the plan does. */
    int plan_revision;
    double compute;
    char dc_name[LR_WIRE_NAME_MAX];
    const struct lr_tm *tm;       /* the job, borrowed */
    uint32_t job;
    bool job_sent;                /* on this connection */
    uint32_t next_id;
    int failed;                   /* sticky errno, 0 when none */
    char why[1024];
    /* The agent refused an objective newer than itself (is_old_refusal())
     * in this job: the refusal as lr_agent_party_error() would have said
     * it, "" when none.  Not a failure: the party answered ENOTSUP and
     * the coordinator plans without that objective (lr_agent_plan()). */
    char refused[1024];
    enum lr_cdynp_objective refused_obj;  /* the last refused, the oldest:
                                             newer ones are not asked again
                                             (lr_cdynp_chain.c) */
    FILE *record;
    uint8_t *buf;                 /* AP_BUF bytes */
    struct lr_cdynp_summary *sum; /* decoded answers' summaries */
};

static const struct lr_cdynp_party_class agent_class;

static struct agent_party *
ap_of(const struct lr_cdynp_party *p)
{
    return (struct agent_party *) p;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

SSL_CTX *
lr_agent_tls_ctx(const SSL_METHOD *method, const char *cert,
                 const char *key, char *err, size_t errlen)
{
    char why[256];
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (!ctx) {
        snprintf(err, errlen, "TLS: cannot create a context: %s",
                 lr_tls_reason(why, sizeof why));
        return NULL;
    }
    if (!SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION)) {
        snprintf(err, errlen, "TLS: cannot require TLS 1.3: %s",
                 lr_tls_reason(why, sizeof why));
        goto fail;
    }
    switch (lr_tls_use_pair(ctx, cert, key)) {
    case LR_TLS_PAIR_OK:
        return ctx;
    case LR_TLS_PAIR_CERT:
        snprintf(err, errlen, "TLS certificate '%s': %s (want a PEM "
                 "certificate chain)", cert,
                 lr_tls_file_reason(cert, LR_TLS_PEM_CERT, why, sizeof why));
        break;
    case LR_TLS_PAIR_KEY:
        snprintf(err, errlen, "TLS key '%s': %s (want an unencrypted "
                 "PEM private key)", key,
                 lr_tls_file_reason(key, LR_TLS_PEM_KEY, why, sizeof why));
        break;
    case LR_TLS_PAIR_MISMATCH:
        snprintf(err, errlen, "TLS key '%s' does not match certificate "
                 "'%s': %s", key, cert, lr_tls_reason(why, sizeof why));
        break;
    }

fail:
    SSL_CTX_free(ctx);
    return NULL;
}

/* Records a failure (sticky) and drops the connection; returns 'err'. */
static int
fail(struct agent_party *ap, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
disconnect(struct agent_party *ap)
{
    if (ap->ssl) {
        /* A close_notify, without waiting for the agent's. */
        SSL_shutdown(ap->ssl);
        SSL_free(ap->ssl);
        ap->ssl = NULL;
    }
    if (ap->fd >= 0)
        close(ap->fd);
    ap->fd = -1;
    if (ap->ai_list)
        freeaddrinfo(ap->ai_list);
    ap->ai_list = ap->ai = NULL;
    if (ap->lookup) {
        struct addrinfo *res;
        if (!lr_lookup_wait(ap->lookup, 0, &res, NULL, 0))
            freeaddrinfo(res);
        ap->lookup = NULL;
    }
    ap->state = AP_DOWN;
    ap->hello = false;
    ap->revision = 0;
    ap->job_sent = false;
    ap->kept = false;
}

static int
fail(struct agent_party *ap, int err, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    vsnprintf(ap->why, sizeof ap->why, fmt, va);
    va_end(va);
    ap->failed = err;
    ap->answered = false;     /* the caller says when it was an answer */
    ap->closed_by_agent = false;  /* ... or the agent's closing */
    ap->closed_silently = false;
    disconnect(ap);
    return err;
}

/* Forgets a sticky failure (lr_agent_party.h): the next call tries
 * again. */
static void
clear_failure(struct agent_party *ap)
{
    ap->failed = 0;
    ap->out_of_budget = false;
    ap->starved = false;
    ap->answered = false;
    ap->closed_by_agent = false;
    ap->closed_silently = false;
    ap->why[0] = '\0';
    ap->refused[0] = '\0';
}

/* Waits until 'fd' is ready for 'events' or 'deadline' passes. */
static int
wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0)
            return ETIMEDOUT;
        struct pollfd pfd = { .fd = fd, .events = events };
        int n = poll(&pfd, 1, (int) ceil(left * 1e3));
        if (n > 0)
            return 0;
        if (n == 0)
            return ETIMEDOUT;
        if (errno != EINTR)
            return errno;
    }
}

/* The reason for a socket error 'err' under TLS into why[len] (0: the
 * agent closed with no error), in the words of a request ('handshake'
 * false) or of our TLS handshake ('handshake' true): the one place a
 * close is worded.  A reset is the agent's close too: an agent that
 * dies (SIGKILL, the OOM killer) with bytes of ours unread in its socket
 * sends a reset, not a FIN, and under load our request is often still
 * unread; "Connection reset by peer" sent the operator looking at the
 * network.  During the handshake, a close is most often an agent at
 * its connection limit closing what it accepts. */
static void
sys_reason(int err, bool handshake, char *why, size_t len)
{
    if (!err)
        snprintf(why, len, "the agent closed the connection%s", handshake
                 ? " (at its connection limit? see its log)" : "");
    else if (handshake && (err == ECONNRESET || err == EPIPE))
        snprintf(why, len, "the agent closed the connection (%s: at its "
                 "connection limit, or killed? see its log)",
                 err == ECONNRESET ? "reset" : "before our hello was "
                 "written");
    else if (err == ECONNRESET)
        snprintf(why, len, "the agent closed the connection (reset: it "
                 "was killed, or closed with our request unread)");
    else if (err == EPIPE)
        snprintf(why, len, "the agent closed the connection (before our "
                 "request was all written)");
    else
        snprintf(why, len, "%s", strerror(err));
}

/* Waits as OpenSSL asks after a call returned 'ret'.  0 to retry, else
 * an errno value with the reason in why[len]. */
static int
ssl_wait(struct agent_party *ap, int ret, double deadline, char *why,
         size_t len)
{
    int sys = errno;
    int e = SSL_get_error(ap->ssl, ret), rc;
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        rc = wait_fd(ap->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                     deadline);
        if (rc == ETIMEDOUT)
            snprintf(why, len, "no answer within %g s (timed out)",
                     ap->timeout);
        else if (rc)
            snprintf(why, len, "poll: %s", strerror(rc));
        return rc;
    case SSL_ERROR_ZERO_RETURN:
        snprintf(why, len, "the agent closed the connection");
        return ECONNRESET;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_last_error()) {
            lr_tls_reason(why, len);
            return EPROTO;
        }
        sys_reason(sys, false, why, len);
        return sys ? sys : ECONNRESET;
    default:
        lr_tls_reason(why, len);
        return EPROTO;
    }
}

/* Connecting is a small state machine (down -> TCP -> TLS -> up), so
 * that lr_agent_parties_connect() can bring up every agent at once: a
 * TLS 1.3 handshake with certificates both ways costs a few milliseconds
 * of CPU at each end, and three in a row were a quarter of a plan's
 * time.  ap_advance() is called each time the socket is ready for what
 * it last asked. */

/* Starts a TCP connect to ap->ai or the next address that takes one.
 * TCP_NODELAY: each request is one small write answered at once, Nagle
 * would hold the next one for the delayed ACK. */
static int
tcp_start(struct agent_party *ap)
{
    int rc = EHOSTUNREACH;
    for (; ap->ai; ap->ai = ap->ai->ai_next) {
        const struct addrinfo *a = ap->ai;
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK
                        | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            rc = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!connect(fd, a->ai_addr, a->ai_addrlen) || errno == EINPROGRESS) {
            ap->fd = fd;
            ap->state = AP_TCP;
            return EAGAIN;
        }
        rc = errno;
        close(fd);
    }
    return fail(ap, rc, "connect to %s port %d: %s", ap->address, ap->port,
                strerror(rc));
}

/* Starts looking the address up (a numeric one needs no lookup). */
static int
ap_lookup(struct agent_party *ap)
{
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
        .ai_flags = AI_NUMERICSERV,
    };
    char port[16];
    snprintf(port, sizeof port, "%d", ap->port);
    if (ap->lookup)
        return 0;
    if (lr_lookup_start(ap->address, port, &hints, &ap->lookup))
        return fail(ap, ENOMEM, "cannot resolve '%s': out of memory",
                    ap->address);
    return 0;
}

/* Resolves the address (the lookup ap_lookup() started, or a new one)
 * by 'deadline' at the latest, into ap->ai_list: 0 or a failure.  An
 * address resolved already (ap->ai_list, not yet connected to) is
 * kept. */
static int
ap_resolve(struct agent_party *ap, double deadline)
{
    char why[128];
    if (ap->ai_list)
        return 0;
    int rc = ap_lookup(ap);
    if (rc)
        return rc;
    rc = lr_lookup_wait(ap->lookup, deadline - now_s(), &ap->ai_list, why,
                        sizeof why);
    ap->lookup = NULL;
    if (rc == ETIMEDOUT)
        return fail(ap, ETIMEDOUT, "cannot resolve '%s': %s within %g s "
                    "(timed out): check the resolver (/etc/resolv.conf), or "
                    "give the agent's address as an IP address", ap->address,
                    why, ap->timeout);
    /* EAGAIN means "wait for the socket" in this file: a resolver that
     * cannot answer now fails the party as any unreachable agent. */
    if (rc == EAGAIN)
        return fail(ap, EHOSTUNREACH, "cannot resolve '%s': %s (the "
                    "resolver cannot answer now): try again, and check the "
                    "resolver (/etc/resolv.conf) if it lasts", ap->address,
                    why);
    if (rc)
        return fail(ap, rc, "cannot resolve '%s': %s", ap->address, why);
    ap->ai = ap->ai_list;
    ap->resolved_at = now_s();
    return 0;
}

/* Resolves the address by 'deadline' and starts connecting: EAGAIN
 * (wait for POLLOUT) or a failure. */
static int
ap_begin(struct agent_party *ap, double deadline)
{
    int rc = ap_resolve(ap, deadline);
    return rc ? rc : tcp_start(ap);
}

/* One move once the socket is ready: 0 when up, EAGAIN with the events
 * to wait for in '*events', else a failure (recorded). */
static int
ap_advance(struct agent_party *ap, short *events)
{
    char why[1024];
    if (ap->state == AP_TCP) {
        int so = 0;
        socklen_t sl = sizeof so;
        if (getsockopt(ap->fd, SOL_SOCKET, SO_ERROR, &so, &sl))
            so = errno;
        if (so) {
            close(ap->fd);
            ap->fd = -1;
            ap->ai = ap->ai->ai_next;
            if (!ap->ai)
                return fail(ap, so, "connect to %s port %d: %s", ap->address,
                            ap->port, strerror(so));
            *events = POLLOUT;
            return tcp_start(ap);
        }
        ap->accepted_at = now_s();
        ERR_clear_error();
        ap->ssl = SSL_new(ap->ctx);
        if (!ap->ssl || !SSL_set_fd(ap->ssl, ap->fd))
            return fail(ap, ENOMEM, "TLS: %s",
                        lr_tls_reason(why, sizeof why));
        /* No SNI: the server name would cross the network in clear
         * in the ClientHello, and it is the DC's name (docs/privacy.md).
         * The agent's certificate is checked against it all the same. */
        SSL_set_hostflags(ap->ssl, AP_HOSTFLAGS);
        if (!SSL_set1_host(ap->ssl, ap->name))
            return fail(ap, ENOMEM, "TLS: %s",
                        lr_tls_reason(why, sizeof why));
        /* Without it a revoked certificate is said without its serial:
         * no reason to refuse the connection. */
        lr_tls_watch(ap->ssl, &ap->verified);
        ap->state = AP_TLS;
    }
    ERR_clear_error();
    errno = 0;
    int ret = SSL_connect(ap->ssl);
    int sys = errno;
    if (ret == 1) {
        ap->state = AP_UP;
        ap->up_at = now_s();
        freeaddrinfo(ap->ai_list);
        ap->ai_list = ap->ai = NULL;
        return 0;
    }
    int e = SSL_get_error(ap->ssl, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        *events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        return EAGAIN;
    }
    long v = SSL_get_verify_result(ap->ssl);
    if (v != X509_V_OK)
        return fail(ap, EPROTO, "TLS handshake with %s port %d: the agent's "
                    "certificate is refused: %s (expected name '%s')",
                    ap->address, ap->port,
                    lr_tls_verify_text(v, &ap->verified,
                                       ap->crl[0] ? ap->crl : NULL, why,
                                       sizeof why), ap->name);
    /* A close without an alert: the agent at its connection limit
     * closes what it accepts (SSL_OP_IGNORE_UNEXPECTED_EOF makes that
     * a ZERO_RETURN, which OpenSSL gives no reason for). */
    if (e == SSL_ERROR_ZERO_RETURN)
        sys_reason(0, true, why, sizeof why);
    else if (e == SSL_ERROR_SYSCALL && !ERR_peek_last_error())
        sys_reason(sys, true, why, sizeof why);
    else
        lr_tls_reason(why, sizeof why);
    return fail(ap, EPROTO, "TLS handshake with %s port %d: %s", ap->address,
                ap->port, why);
}

/* The failure of a connection not up by its deadline. */
static int
ap_timed_out(struct agent_party *ap)
{
    return fail(ap, ETIMEDOUT, "%s %s port %d: no answer within %g s "
                "(timed out)", ap->state == AP_TLS ? "TLS handshake with"
                                                   : "connect to",
                ap->address, ap->port, ap->timeout);
}

/* Connects and shakes hands when not connected. */
static int
ensure_connected(struct agent_party *ap)
{
    if (ap->state == AP_UP)
        return 0;
    double deadline = now_s() + ap->timeout;
    short events = POLLOUT;
    int rc = ap_begin(ap, deadline);
    while (rc == EAGAIN) {
        if ((rc = wait_fd(ap->fd, events, deadline)))
            return rc == ETIMEDOUT ? ap_timed_out(ap)
                                   : fail(ap, rc, "poll: %s", strerror(rc));
        rc = ap_advance(ap, &events);
    }
    return rc;
}

void
lr_agent_parties_connect(struct lr_cdynp_party *const *parties, int n)
{
    struct agent_party *ap[LR_TM_MAX_DCS];
    double deadline[LR_TM_MAX_DCS];
    short events[LR_TM_MAX_DCS];
    int k = 0;
    const double start = now_s();
    for (int i = 0; i < n; i++) {
        if (!lr_agent_party_is(parties[i]))
            continue;
        struct agent_party *a = ap_of(parties[i]);
        if (!a->failed && a->state == AP_DOWN)
            ap_lookup(a);
    }
    /* Every lookup's deadline counts from the start: they were all
     * started above and run at once.  Connecting waits until they are
     * all answered (or given up): a connection started earlier would
     * make no progress while a later lookup is waited for (its TLS
     * handshake needs this thread), and would be failed for the time
     * that lookup took.  So connects and handshakes get a deadline of
     * their own, from when they start. */
    for (int i = 0; i < n; i++) {
        if (!lr_agent_party_is(parties[i]))
            continue;
        struct agent_party *a = ap_of(parties[i]);
        if (!a->failed && a->state == AP_DOWN)
            ap_resolve(a, start + a->timeout);
    }
    for (int i = 0; i < n && k < LR_TM_MAX_DCS; i++) {
        if (!lr_agent_party_is(parties[i]))
            continue;
        struct agent_party *a = ap_of(parties[i]);
        if (a->failed || a->state != AP_DOWN || tcp_start(a) != EAGAIN)
            continue;
        ap[k] = a;
        deadline[k] = now_s() + a->timeout;
        events[k++] = POLLOUT;
    }
    while (k > 0) {
        struct pollfd pfd[LR_TM_MAX_DCS];
        double first = deadline[0];
        for (int i = 0; i < k; i++) {
            pfd[i] = (struct pollfd) { .fd = ap[i]->fd, .events = events[i] };
            if (deadline[i] < first)
                first = deadline[i];
        }
        double left = first - now_s();
        int got = poll(pfd, (nfds_t) k, left > 0 ? (int) ceil(left * 1e3) : 0);
        if (got < 0 && errno != EINTR)
            break;   /* each party goes on in its own calls */
        double now = now_s();
        for (int i = 0; i < k; i++) {
            int rc = EAGAIN;
            if (got > 0 && pfd[i].revents)
                rc = ap_advance(ap[i], &events[i]);
            else if (now >= deadline[i])
                rc = ap_timed_out(ap[i]);
            if (rc != EAGAIN) {
                ap[i] = ap[k - 1];
                deadline[i] = deadline[k - 1];
                events[i] = events[k - 1];
                pfd[i] = pfd[k - 1];
                k--;
                i--;
            }
        }
    }
}

/* The failure of an exchange because the agent refused our certificate
 * as revoked ('why' holds its alert), said so. */
static int
fail_revoked(struct agent_party *ap, int rc, const char *doing,
             const char *why)
{
    return fail(ap, rc, "%s %s port %d: %s (the agent refused our "
                "certificate, serial %s: its CRL revokes it; the "
                "coordinator needs a new certificate from the CA)", doing,
                ap->address, ap->port, why, ap->serial);
}

/* After a write the agent reset right after the handshake: the alert it
 * sent before closing, when it is still to be read (Linux keeps what
 * arrived before the reset readable), into why[len].  True when one
 * was. */
static bool
pending_alert(struct agent_party *ap, char *why, size_t len)
{
    unsigned char b;
    ERR_clear_error();
    if (SSL_read(ap->ssl, &b, 1) > 0 || !ERR_peek_last_error())
        return false;
    lr_tls_reason(why, len);
    return strstr(why, "alert") != NULL;
}

static int
write_all(struct agent_party *ap, const uint8_t *p, size_t n,
          double deadline)
{
    char why[256];
    while (n > 0) {
        ERR_clear_error();
        errno = 0;
        int ret = SSL_write(ap->ssl, p, (int) n);
        if (ret > 0) {
            p += ret;
            n -= (size_t) ret;
            continue;
        }
        int rc = ssl_wait(ap, ret, deadline, why, sizeof why);
        /* An agent that refuses our certificate after the handshake (TLS
         * 1.3) closes at once, and our first write may meet the reset
         * rather than its alert: the alert may still be read. */
        char alert[256];
        if (rc && !ap->hello && (rc == ECONNRESET || rc == EPIPE)
            && pending_alert(ap, alert, sizeof alert)
            && lr_tls_alert_revoked(alert))
            return fail_revoked(ap, rc, "sending to", alert);
        if (rc)
            return fail(ap, rc, "sending to %s port %d: %s%s", ap->address,
                        ap->port, why,
                        !ap->hello && (rc == ECONNRESET || rc == EPIPE)
                        ? " (right after the handshake: did the agent "
                          "refuse our certificate? see its log)" : "");
    }
    return 0;
}

/* In TLS 1.3 the client's handshake ends before the server has checked
 * the client certificate: a refusal arrives as an alert on the first
 * read.  The reason then names the alert ("tlsv13 alert certificate
 * required", "tlsv1 alert unknown ca", ...). */
static int
read_all(struct agent_party *ap, uint8_t *p, size_t n, double deadline)
{
    char why[256];
    while (n > 0) {
        ERR_clear_error();
        errno = 0;
        int ret = SSL_read(ap->ssl, p, (int) n);
        if (ret > 0) {
            p += ret;
            n -= (size_t) ret;
            continue;
        }
        int rc = ssl_wait(ap, ret, deadline, why, sizeof why);
        if (rc && lr_tls_alert_revoked(why))
            return fail_revoked(ap, rc, "reading from", why);
        if (rc)
            return fail(ap, rc, "reading from %s port %d: %s%s", ap->address,
                        ap->port, why, strstr(why, "alert")
                        ? " (the agent refused our certificate?)" : "");
    }
    return 0;
}

/* A failure 'rc' of an exchange whose deadline was the plan's: a time-out
 * is the plan's budget running out, said as such (agent_failure(): "too
 * slow"), not as the exchange's own timeout.  Returns 'rc'. */
static int
out_of_budget(struct agent_party *ap, int rc, const struct lr_wire_msg *req)
{
    if (rc == ETIMEDOUT) {
        snprintf(ap->why, sizeof ap->why, "the plan's budget of %g s ran "
                 "out waiting for %s port %d to answer %s: give the plan "
                 "a larger budget", ap->budget, ap->address, ap->port,
                 lr_wire_type_name(req->type));
        ap->out_of_budget = true;
    }
    return rc;
}

/* A connection made within a plan keeps its own timeout (connecting
 * runs for all agents at once, lr_agent_parties_connect), and its time
 * counts against the plan's budget.  A connection finished after the
 * budget's end failed the plan in its lookup, its TCP connect or its
 * handshake, whichever the end fell in: that is recorded as the budget's
 * failure (ETIMEDOUT), and 0 returned for any other connection. */
static int
connect_out_of_budget(struct agent_party *ap)
{
    const double end = ap->plan_deadline;
    char what[320];
    if (end <= 0 || ap->state != AP_UP || ap->up_at <= end)
        return 0;
    if (ap->resolved_at > end)
        snprintf(what, sizeof what, "for the address of '%s' (name "
                 "resolution)", ap->address);
    else if (ap->accepted_at > end)
        snprintf(what, sizeof what, "for %s port %d to accept the "
                 "connection", ap->address, ap->port);
    else
        snprintf(what, sizeof what, "for %s port %d to finish the TLS "
                 "handshake", ap->address, ap->port);
    fail(ap, ETIMEDOUT, "the plan's budget of %g s ran out waiting %s, "
         "before any request was sent: give the plan a larger budget",
         ap->budget, what);
    ap->out_of_budget = true;
    return ETIMEDOUT;
}

/* When 'req' carries an objective newer than some agents (lr_cdynp.h),
 * what to tell the operator whose agent refused it; "" otherwise. */
static void
newer_hint(const struct lr_wire_msg *req, char *buf, size_t len)
{
    const char *since = NULL;
    buf[0] = '\0';
    if (req->type != LR_WIRE_STEP && req->type != LR_WIRE_BACKTRACK
        && req->type != LR_WIRE_FINISH && req->type != LR_WIRE_COMMIT)
        return;
    if (lr_cdynp_obj_one(req->objective))
        since = "2026-12-04";
    else if (lr_cdynp_obj_bound(req->objective))
        since = "2026-12-05";
    if (since)
        snprintf(buf, len, ": objective %s is unknown to agents from before "
                 "%s; run the agent of this coordinator's release",
                 lr_wire_objective_name(req->objective), since);
}

/* True when 'ans', an ERROR of id 0 to 'req', is how an agent from
 * before req's objective refuses it (newer_hint() names one): the
 * objective byte fails its lr_wire_decode() (EINVAL), and its reader
 * answers "malformed frame: closing" and closes the connection
 * (cmd_agent.c's conn_refuse(), the same since the first agent).  Any
 * other refusal is no such agent's. */
static bool
is_old_refusal(const struct lr_wire_msg *req, const struct lr_wire_msg *ans)
{
    return (lr_cdynp_obj_one(req->objective)
            || lr_cdynp_obj_bound(req->objective))
           && (req->type == LR_WIRE_STEP || req->type == LR_WIRE_BACKTRACK
               || req->type == LR_WIRE_FINISH || req->type == LR_WIRE_COMMIT)
           && ans->type == LR_WIRE_ERROR && ans->id == 0
           && ans->code == EINVAL
           && !strcmp(ans->text, "malformed frame: closing");
}

/* True when 'ans', an ERROR of id 0 to a HELLO naming a revision, is
 * how an agent from before 2026-12-07 refuses it: its lr_wire_decode()
 * takes the revision for trailing bytes (EINVAL), and it answers
 * "malformed frame: closing" and closes, as is_old_refusal() says. */
static bool
is_old_hello_refusal(const struct lr_wire_msg *req,
                     const struct lr_wire_msg *ans)
{
    return req->type == LR_WIRE_HELLO && req->revision
           && ans->type == LR_WIRE_ERROR && ans->id == 0
           && ans->code == EINVAL
           && !strcmp(ans->text, "malformed frame: closing");
}

/* The agent ended a connection that had answered before (or the answer
 * to 'req' it had begun, when 'begun'), with no word: an agent closes a
 * plan's connection on purpose with an ERROR of id 0 ("closed: ...",
 * cmd_agent.c's peer_at_limit(), when it makes room for another), so
 * this is a crash or the OOM killer, or a stop, or one of its rules
 * that closes without an answer (the idle timeout, a certificate
 * refused since SIGHUP): its log says which.  ap->why, the failure
 * fail() recorded, is said so (ap->closed_silently), and lr_agent_plan()
 * does not run the plan again: the request in flight may be what ended
 * the agent, and sent again it would end it again, with the other
 * coordinators' jobs there; and one that died is not up again yet.
 * Until 2026-12-07 it was run again as for that ERROR, against a dead
 * agent, and failed as unreachable.  A connection kept idle from the
 * last job is no exception (since 2026-12-07, later): the agent's idle
 * close, or a restart, between the jobs is looked for right before the
 * job's first request is written (ensure_hello(), drop_if_stale()), so
 * a close after it is the request's; it was run again before, as the
 * idle timeout met as the job began, which a crash the request caused
 * looked the same as. */
static void
closed_without_a_word(struct agent_party *ap, const struct lr_wire_msg *req,
                      bool begun)
{
    /* fail()'s words, "reading from ADDR port P: the agent closed the
     * connection", cut to leave room for ours. */
    char what[480];
    snprintf(what, sizeof what, "%.479s", ap->why);
    snprintf(ap->why, sizeof ap->why, "the agent at %s port %d closed "
             "without a word %s %s (%s): it may have crashed or been "
             "killed (OOM?); see its log", ap->address, ap->port,
             begun ? "in the middle of its answer to" : "before answering",
             lr_wire_type_name(req->type), what);
    ap->closed_silently = true;
}

/* Sends 'req' (its id set here) and reads the answer into 'ans' (its
 * summary decoded into ap->sum).  0 with an answer of type 'want'; the
 * code of an ERROR answer; ENOTSUP when an agent older than req's
 * objective refused it (is_old_refusal(): recorded in ap->refused, the
 * connection dropped, no failure) or older than a HELLO's revision
 * (is_old_hello_refusal(): the connection dropped, no failure); or a
 * failure. */
static int
exchange(struct agent_party *ap, struct lr_wire_msg *req,
         enum lr_wire_type want, struct lr_wire_msg *ans)
{
    if (ap->failed)
        return ap->failed;
    int rc = ensure_connected(ap);
    if (rc)
        return rc;
    double deadline = now_s() + ap->timeout;
    /* Within a plan's budget: the answer is waited for until whichever
     * comes first, and a time-out then is the plan's. */
    const bool by_plan = ap->plan_deadline > 0 && ap->plan_deadline < deadline;
    if (by_plan)
        deadline = ap->plan_deadline;
    /* A connection that has answered before: its close now is the
     * agent's (an eviction, an idle limit, a restart), not a refusal of
     * our certificate, which comes at the first request. */
    const bool answered_before = ap->hello;
    req->id = ++ap->next_id;
    size_t n = lr_wire_encode(req, ap->buf, AP_BUF);
    if (!n)
        return fail(ap, EINVAL, "cannot encode a %s message",
                    lr_wire_type_name(req->type));
    /* The budget spent before 'req' could be sent: in this agent's
     * connect, or by the others (their connects and answers).  In the
     * latter case nothing went out: the connection is sound and stays
     * (the agent is up, lr_agent_party_connected()), the failure sticky
     * for this plan as any other. */
    if (by_plan && deadline <= now_s()) {
        if ((rc = connect_out_of_budget(ap)))
            return rc;
        snprintf(ap->why, sizeof ap->why, "the plan's budget of %g s ran "
                 "out before %s was sent to %s port %d (spent on the other "
                 "agents): give the plan a larger budget", ap->budget,
                 lr_wire_type_name(req->type), ap->address, ap->port);
        ap->failed = ETIMEDOUT;
        ap->out_of_budget = ap->starved = true;
        return ETIMEDOUT;
    }
    if (!(rc = write_all(ap, ap->buf, n, deadline)))
        rc = read_all(ap, ap->buf, 4, deadline);
    if (rc) {
        /* Closed before the answer's length came, with no word: the
         * agent's ERROR of id 0 ("closed: ...") when it makes room for
         * another connection is read as an answer, below. */
        if (answered_before && (rc == ECONNRESET || rc == EPIPE))
            closed_without_a_word(ap, req, false);
        return by_plan ? out_of_budget(ap, rc, req) : rc;
    }
    int err;
    size_t size = lr_wire_frame_size(ap->buf, 4, &err);
    uint32_t announced = (uint32_t) ap->buf[0] << 24
                         | (uint32_t) ap->buf[1] << 16
                         | (uint32_t) ap->buf[2] << 8 | ap->buf[3];
    if (err || size > AP_BUF)
        return fail(ap, EPROTO, "%s port %d announced a frame of %u bytes, "
                    "%s", ap->address, ap->port, announced,
                    announced <= LR_WIRE_MAX_FRAME && err
                    ? "less than a header" : "larger than any answer");
    /* A frame begun: its end is waited for until the same deadline. */
    if ((rc = read_all(ap, ap->buf + 4, size - 4, deadline))) {
        if (rc == ECONNRESET || rc == EPIPE)
            closed_without_a_word(ap, req, true);
        return by_plan ? out_of_budget(ap, rc, req) : rc;
    }
    ans->layers = NULL;
    ans->layers_cap = 0;
    ans->summary = ap->sum;
    if ((rc = lr_wire_decode(ap->buf, size, ans)))
        return fail(ap, EPROTO, "%s port %d answered a malformed frame "
                    "(%s)", ap->address, ap->port, strerror(rc));
    if (ap->record)
        lr_agent_record(ap->record, ans);
    ap->kept = false;
    if (ans->id != req->id) {
        /* Id 0 (requests count from 1): the agent could not read the
         * request and closes the connection.  An agent older than a
         * request's objective refuses it so. */
        if (ans->type == LR_WIRE_ERROR && ans->id == 0) {
            char hint[160];
            newer_hint(req, hint, sizeof hint);
            /* The agent has closed its end: the next request connects
             * again (HELLO, JOB), and the plan goes on without the
             * objective (lr_cdynp_chain.c skips it for this party). */
            if (is_old_hello_refusal(req, ans)) {
                disconnect(ap);
                return ENOTSUP;
            }
            if (is_old_refusal(req, ans)) {
                snprintf(ap->refused, sizeof ap->refused, "%s port %d "
                         "refused %s as a malformed frame (%s)%s",
                         ap->address, ap->port,
                         lr_wire_type_name(req->type), ans->text, hint);
                ap->refused_obj = req->objective;
                disconnect(ap);
                return ENOTSUP;
            }
            /* Not every such refusal is of a frame: an agent at its
             * limit of connections for us refuses the first request of a
             * new one so (its text says why, cmd_agent.c). */
            const bool malformed = !ans->text[0]
                || !strncmp(ans->text, "malformed frame", 15)
                || !strncmp(ans->text, "frame length", 12);
            int refused = fail(ap, ans->code > 0 ? ans->code : EPROTO,
                               "%s port %d refused %s%s (%s)%s",
                               ap->address, ap->port,
                               lr_wire_type_name(req->type),
                               malformed ? " as a malformed frame"
                                         : " and closed the connection",
                               ans->text[0] ? ans->text
                                            : "no reason given",
                               malformed ? hint : "");
            ap->answered = true;
            /* The agent closed a quiet connection of ours to make room
             * for another (cmd_agent.c's peer_at_limit(): "closed: ...",
             * sent before our request was read, so it never ran). */
            ap->closed_by_agent = !strncmp(ans->text, "closed: ", 8);
            return refused;
        }
        return fail(ap, EPROTO, "%s port %d answered request %u instead "
                    "of %u", ap->address, ap->port, ans->id, req->id);
    }
    if (ans->type == LR_WIRE_ERROR) {
        int code = ans->code > 0 ? ans->code : EPROTO;
        /* No feasible layer is an answer, not a failure of the agent.
         * Any other error is sticky, but the connection stays: the
         * frames were sound. */
        if (code != ENOENT) {
            snprintf(ap->why, sizeof ap->why, "%s port %d refused %s: %s",
                     ap->address, ap->port, lr_wire_type_name(req->type),
                     ans->text[0] ? ans->text : strerror(code));
            ap->failed = code;
        }
        return code;
    }
    if (ans->type != want)
        return fail(ap, EPROTO, "%s port %d answered %s to %s",
                    ap->address, ap->port, lr_wire_type_name(ans->type),
                    lr_wire_type_name(req->type));
    return 0;
}

/* An answer of the right type that does not answer its request: the
 * agent's failure (sticky, as an ERROR answer's), said with what was
 * wrong.  The frames were sound, so the connection stays.  Returns
 * EPROTO.  Taken as it came, such an answer read as the planner's own
 * verdict (an entry past the window as 'does not fit memory'), or went
 * on to the next DC, which refused it and was blamed. */
static int
not_an_answer(struct agent_party *ap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
not_an_answer(struct agent_party *ap, const char *fmt, ...)
{
    char what[512];
    va_list va;
    va_start(va, fmt);
    vsnprintf(what, sizeof what, fmt, va);
    va_end(va);
    snprintf(ap->why, sizeof ap->why, "%s port %d answered %s: no answer "
             "to the request (a fault of the agent's)", ap->address,
             ap->port, what);
    ap->failed = EPROTO;
    return EPROTO;
}

/* 0 when STEP_OK's summary 's' answers STEP (obj, assumed, lo, hi): of
 * the version that goes with the objective, every entry's layer in
 * lo..hi and, counted, its stage count in 1..assumed (the decoder has
 * checked their order); else the agent's failure. */
static int
check_step_answer(struct agent_party *ap, enum lr_cdynp_objective obj,
                  int assumed, int lo, int hi,
                  const struct lr_cdynp_summary *s)
{
    const bool counted = lr_cdynp_obj_bound(obj);
    if ((s->version == LR_CDYNP_VERSION_COUNTS) != counted)
        return not_an_answer(ap, "step (%s) with a summary of version %u, "
                             "which goes with %s", lr_wire_objective_name(obj),
                             s->version, counted ? "lex and time"
                             : "lex-bound and time-bound only");
    for (int i = 0; i < s->n; i++) {
        const struct lr_cdynp_entry *e = &s->e[i];
        if (e->layer < (uint32_t) lo || e->layer > (uint32_t) hi)
            return not_an_answer(ap, "step with an entry for layer %u, "
                                 "outside the layers %d-%d it was asked "
                                 "for", e->layer, lo, hi);
        if (counted && (e->stages < 1 || e->stages > assumed))
            return not_an_answer(ap, "step with an entry of %u stages, "
                                 "outside 1-%d (the stages assumed)",
                                 e->stages, assumed);
    }
    return 0;
}

/* Whether 'layer' ends an entry of summary 'in' (of version
 * LR_CDYNP_VERSION: its layers increase). */
static bool
summary_has_layer(const struct lr_cdynp_summary *in, int layer)
{
    int lo = 0, hi = in->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if ((int64_t) in->e[mid].layer == layer)
            return true;
        if ((int64_t) in->e[mid].layer < layer)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return false;
}

/* 0 when STEP_OK's summary 's' carries predecessors exactly when this
 * connection's revision and the objective call for them (revision 2,
 * objectives 0-3; an empty summary carries none), each the last layer
 * of an entry of the STEP's summary 'in', or -1 at the head (the
 * decoder has checked each is before its entry's layer); else the
 * agent's failure.  A predecessor taken on trust would make a plan of
 * layers no DC was asked about. */
static int
check_step_prev(struct agent_party *ap, enum lr_cdynp_objective obj,
                const struct lr_cdynp_summary *in,
                const struct lr_cdynp_summary *s)
{
    const bool want = ap->revision >= LR_WIRE_REVISION_PREV
                      && !lr_cdynp_obj_bound(obj) && s->n > 0;
    if (!s->has_prev != !want)
        return not_an_answer(ap, "step (%s) %s its entries' predecessors, "
                             "at protocol revision %d",
                             lr_wire_objective_name(obj),
                             want ? "without" : "with", ap->revision);
    for (int i = 0; want && i < s->n; i++) {
        const int prev = s->e[i].prev_last;
        if (in ? !summary_has_layer(in, prev) : prev != -1)
            return not_an_answer(ap, "step with layer %u's predecessor "
                                 "ending at layer %d, %s", s->e[i].layer,
                                 prev, in ? "which the summary it was sent "
                                 "has no entry for"
                                 : "where the head of the chain has none "
                                   "(-1)");
    }
    return 0;
}

/* HELLO on a new connection, naming our revision; an agent from
 * before 2026-12-07 refuses that and closes, and is then greeted again
 * on a new connection as before, at revision 1: the plan is the same,
 * its BACKTRACKs asked (docs/agent-protocol.md, "Predecessors in
 * STEP_OK"). */
static void drop_if_stale(struct agent_party *ap);

/* The connection's revision counted in the plan's lowest
 * (ap->plan_revision), once its HELLO_OK came: at each request, as a
 * connection kept from the job before is known to be used only once
 * drop_if_stale() has looked at it. */
static void
count_revision(struct agent_party *ap)
{
    if (!ap->plan_revision || ap->revision < ap->plan_revision)
        ap->plan_revision = ap->revision;
}

static int
ensure_hello(struct agent_party *ap)
{
    if (ap->failed)
        return ap->failed;
    /* The connection kept from the last job, with nothing asked yet:
     * closed by the agent while idle (its idle timeout, a restart)
     * shows now, before our request is written, and a new connection
     * is made without a word of failure.  A close after the write is
     * then the agent's answer to the request: a crash
     * (closed_without_a_word()). */
    if (ap->kept)
        drop_if_stale(ap);
    if (ap->state == AP_UP && ap->hello) {
        count_revision(ap);      /* a connection kept from the job before */
        return 0;
    }
    /* An agent found old is asked again once the fallback is
     * 'revision_retry' old: one refused HELLO (a connection and a
     * handshake) that often at most, against an upgrade unseen. */
    const bool plain = ap->plain_hello
                       && now_s() - ap->plain_at < ap->revision_retry;
    struct lr_wire_msg req = {
        .type = LR_WIRE_HELLO,
        .revision = plain ? 0 : LR_WIRE_REVISION,
    }, ans;
    int rc = exchange(ap, &req, LR_WIRE_HELLO_OK, &ans);
    if (rc == ENOTSUP && req.revision) {
        ap->plain_hello = true;
        ap->plain_job = ap->job;
        ap->plain_at = now_s();
        req.revision = 0;
        rc = exchange(ap, &req, LR_WIRE_HELLO_OK, &ans);
    }
    if (rc)
        return rc;
    /* Asked again and not refused: upgraded. */
    if (req.revision)
        ap->plain_hello = false;
    /* The agent speaks the lesser of its revision and ours: one above
     * ours, or one to a HELLO naming none, is no answer. */
    if (ans.revision > req.revision)
        return not_an_answer(ap, "hello with protocol revision %d, above "
                             "the %d it was asked in", ans.revision,
                             req.revision ? req.revision : 1);
    ap->revision = ans.revision ? ans.revision : 1;
    ap->hello_ok_revision = ans.revision;
    count_revision(ap);
    ap->hello = true;
    ap->compute = ans.compute;
    snprintf(ap->dc_name, sizeof ap->dc_name, "%s", ans.name);
    return 0;
}

static int
ensure_job(struct agent_party *ap)
{
    int rc = ensure_hello(ap);
    if (rc || ap->job_sent)
        return rc;
    if (!ap->tm) {
        snprintf(ap->why, sizeof ap->why, "no job: lr_agent_party_set_job() "
                 "was not called");
        return EINVAL;
    }
    const struct lr_tm *tm = ap->tm;
    struct lr_wire_msg req = {
        .type = LR_WIRE_JOB, .job = ap->job,
        .batch = tm->train.batch, .micro = tm->train.micro,
        .elem_bytes = tm->train.elem_bytes,
        .n_layers = tm->model->n_layers, .layers = tm->model->layers,
    }, ans;
    if ((rc = exchange(ap, &req, LR_WIRE_OK, &ans)))
        return rc;
    ap->job_sent = true;
    return 0;
}

static int
ap_compute(struct lr_cdynp_party *p, double *flops)
{
    struct agent_party *ap = ap_of(p);
    int rc = ensure_hello(ap);
    if (!rc)
        *flops = ap->compute;
    return rc;
}

static int
ap_step(struct lr_cdynp_party *p, enum lr_cdynp_objective obj, int assumed,
        const struct lr_cdynp_summary *in, const struct lr_tm_link *in_link,
        uint16_t position, int lo, int hi, struct lr_cdynp_summary *out)
{
    struct agent_party *ap = ap_of(p);
    int rc = ensure_job(ap);
    if (rc)
        return rc;
    struct lr_wire_msg req = {
        .type = LR_WIRE_STEP, .job = ap->job, .objective = obj,
        .assumed = assumed, .position = position, .lo = lo, .hi = hi,
        .has_summary = in != NULL,
        /* The encoder only reads it. */
        .summary = (struct lr_cdynp_summary *) in,
    }, ans;
    if (in_link)
        req.link = *in_link;
    if ((rc = exchange(ap, &req, LR_WIRE_STEP_OK, &ans))
        || (rc = check_step_answer(ap, obj, assumed, lo, hi, ap->sum))
        || (rc = check_step_prev(ap, obj, in, ap->sum)))
        return rc;
    /* The entries in use only: a summary is 32 KiB when full. */
    out->version = ap->sum->version;
    out->from = ap->sum->from;
    out->n = ap->sum->n;
    out->has_prev = ap->sum->has_prev;
    memcpy(out->e, ap->sum->e, ap->sum->n * sizeof out->e[0]);
    return 0;
}

static int
ap_backtrack(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
             int assumed, int last, int stages, int *prev_last,
             int *prev_stages)
{
    struct agent_party *ap = ap_of(p);
    int rc = ensure_job(ap);
    if (rc)
        return rc;
    const bool counted = lr_cdynp_obj_bound(obj);
    struct lr_wire_msg req = {
        .type = LR_WIRE_BACKTRACK, .job = ap->job, .objective = obj,
        .assumed = assumed, .last = last, .stages = counted ? stages : 0,
    }, ans;
    /* Counted once sent, answered or not: the agent was asked it. */
    if (!counted)
        ap->spared_backtracks++;
    if ((rc = exchange(ap, &req, LR_WIRE_BACKTRACK_OK, &ans)))
        return rc;
    /* A count exactly when one was asked: anything else is no answer
     * to this request. */
    if (ans.has_stages != counted)
        return fail(ap, EPROTO, "%s port %d answered backtrack (%s) %s a "
                    "stage count", ap->address, ap->port,
                    lr_wire_objective_name(obj),
                    counted ? "without" : "with");
    /* The predecessor ends before 'last' (-1: this DC is the head), and
     * counted, holds fewer stages than the prefix up to 'last'. */
    if (ans.prev_last >= last
        || (counted && (ans.prev_stages >= stages
                        || (ans.prev_last < 0) != (ans.prev_stages == 0))))
        return counted
               ? not_an_answer(ap, "backtrack from layer %d with %d stages "
                               "with its predecessor's last layer %d with %d "
                               "stages", last, stages, ans.prev_last,
                               ans.prev_stages)
               : not_an_answer(ap, "backtrack from layer %d with its "
                               "predecessor's last layer %d, not before it",
                               last, ans.prev_last);
    *prev_last = ans.prev_last;
    *prev_stages = ans.prev_stages;
    return 0;
}

/* FINISH, or COMMIT under 'tag': the same layers, the same answer. */
static int
finish_request(struct agent_party *ap, enum lr_wire_type type,
               enum lr_cdynp_objective obj, int assumed, int first, int last,
               int stages, const char *tag, int *n_stages)
{
    int rc = ensure_job(ap);
    if (rc)
        return rc;
    struct lr_wire_msg req = {
        .type = type, .job = ap->job, .objective = obj,
        .assumed = assumed, .first = first, .last = last,
        .stages = lr_cdynp_obj_bound(obj) ? stages : 0,
    }, ans;
    if (tag)
        snprintf(req.name, sizeof req.name, "%s", tag);
    if ((rc = exchange(ap, &req, LR_WIRE_FINISH_OK, &ans)))
        return rc;
    /* A stage holds a layer at least; counted, the DC lays out exactly
     * the stages asked.  A COMMIT's count is not judged: the agent that
     * answered FINISH_OK has reserved, and the coordinator releases
     * only what failed to commit (lr_ctl_agents.c); the count it plans
     * with is FINISH's. */
    if (type == LR_WIRE_FINISH
        && (ans.n_stages < 1 || ans.n_stages > last - first + 1
            || (lr_cdynp_obj_bound(obj) && ans.n_stages != stages)))
        return not_an_answer(ap, "%s of layers %d-%d with %d stages (want "
                             "%s%d)", lr_wire_type_name(type), first, last,
                             ans.n_stages,
                             lr_cdynp_obj_bound(obj) ? "" : "1 to ",
                             lr_cdynp_obj_bound(obj) ? stages
                                                     : last - first + 1);
    *n_stages = ans.n_stages;
    return 0;
}

/* The stages stay with the agent: 'plan' is left alone. */
static int
ap_finish(struct lr_cdynp_party *p, enum lr_cdynp_objective obj, int assumed,
          int first, int last, int stages, int dc_index,
          struct lr_plan *plan, int *n_stages)
{
    return finish_request(ap_of(p), LR_WIRE_FINISH, obj, assumed, first,
                          last, stages, NULL, n_stages);
}

int
lr_agent_party_commit(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
                      int assumed, int first, int last, int stages,
                      const char *tag, int *n_stages)
{
    return finish_request(ap_of(p), LR_WIRE_COMMIT, obj, assumed, first,
                          last, stages, tag, n_stages);
}

/* The frame the agent sent unasked on a connection kept idle, read
 * without waiting (the socket is non-blocking): true with it decoded in
 * '*m' when a whole one had come. */
static bool
read_unasked(struct agent_party *ap, struct lr_wire_msg *m)
{
    size_t got = 0, want = 4;
    int err;
    while (got < want) {
        ERR_clear_error();
        int n = SSL_read(ap->ssl, ap->buf + got, (int) (want - got));
        if (n <= 0)
            return false;
        got += (size_t) n;
        if (got == 4 && want == 4) {
            want = lr_wire_frame_size(ap->buf, 4, &err);
            if (err || want > AP_BUF)
                return false;
        }
    }
    memset(m, 0, sizeof *m);
    m->summary = ap->sum;
    return lr_wire_decode(ap->buf, want, m) == 0;
}

/* What the agent has sent on a connection kept idle (from the last job,
 * or since a job's COMMIT), looked at without waiting: false when
 * nothing (the connection is still open), else true with what ended it
 * in what[len].  An idle connection has nothing to read, so anything
 * readable ends it: its TCP reset (POLLHUP, POLLERR) or FIN (POLLIN,
 * then a recv() of 0), its TLS close_notify (SSL_peek()'s ZERO_RETURN:
 * an agent that shuts TLS down first may hold the socket open), or a
 * frame.  A frame is read: the ERROR of id 0 an agent closes with
 * (cmd_agent.c's conn_goodbye() on SIGTERM, "closed: the agent is
 * shutting down ...", or an eviction) is quoted, its words the reason
 * (until 2026-12-07, later, any frame was "a frame sent unasked");
 * another is said as sent unasked.  A TLS record that carries no data
 * (a session ticket: the agent sends none, SSL_OP_NO_TICKET) is read
 * and ends nothing.  The socket is non-blocking: SSL_peek() never
 * waits. */
static bool
peer_closed(struct agent_party *ap, char *what, size_t len)
{
    const char *idle = "while idle (its idle timeout, or a restart)";
    const char *said = NULL;
    struct lr_wire_msg m;
    unsigned char b;
    if (ap->state != AP_UP)
        return false;
    if (SSL_pending(ap->ssl) > 0)
        goto frame;
    struct pollfd pfd = { .fd = ap->fd, .events = POLLIN };
    int n = poll(&pfd, 1, 0);
    if (n < 0 && errno == EINTR)
        return false;
    if (n < 0) {
        said = "poll failed";
    } else if (n == 0) {
        return false;
    } else if (pfd.revents & (POLLERR | POLLHUP)) {
        said = "it reset the connection";
    } else {
        /* Under the TLS records: a FIN with nothing before it (OpenSSL
         * would say a close_notify, SSL_OP_IGNORE_UNEXPECTED_EOF). */
        ssize_t got = recv(ap->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                        || errno == EINTR))
            return false;
        if (got == 0)
            said = "it closed the connection";
        else if (got < 0)
            said = "it reset the connection";
    }
    if (!said) {
        ERR_clear_error();
        int ret = SSL_peek(ap->ssl, &b, 1);
        if (ret > 0)
            goto frame;
        switch (SSL_get_error(ap->ssl, ret)) {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE:
            /* Only a record with no data: still open. */
            return false;
        case SSL_ERROR_ZERO_RETURN:
            said = "it closed the connection (TLS close_notify)";
            break;
        default:
            said = "it broke the connection (a TLS record cut short)";
            break;
        }
    }
    snprintf(what, len, "%s %s", said, idle);
    return true;

frame:
    if (!read_unasked(ap, &m)) {
        snprintf(what, len, "it sent a frame unasked %s", idle);
        return true;
    }
    if (ap->record)
        lr_agent_record(ap->record, &m);
    if (m.type == LR_WIRE_ERROR && m.id == 0)
        snprintf(what, len, "it closed the connection while idle, saying "
                 "\"%s\"", m.text);
    else
        snprintf(what, len, "it sent a frame unasked (%s) %s",
                 lr_wire_type_name(m.type), idle);
    return true;
}

/* Drops a connection kept idle that the agent has closed meanwhile
 * (peer_closed(): it restarted, or its idle limit of 600 s passed), so
 * that the next request starts afresh rather than fail on it: the
 * agent's idle close, counted (ap->idle_closes) and kept in
 * ap->idle_close for lr_agent_party_idle_closes(), no failure and no run
 * again. */
static void
drop_if_stale(struct agent_party *ap)
{
    char what[LR_WIRE_TEXT_MAX + 128];
    if (!peer_closed(ap, what, sizeof what))
        return;
    ap->idle_closes++;
    snprintf(ap->idle_close, sizeof ap->idle_close, "%.256s port %d: %s: "
             "a new connection for the next request", ap->address, ap->port,
             what);
    disconnect(ap);
}

int
lr_agent_party_release(struct lr_cdynp_party *p, const char *tag)
{
    struct agent_party *ap = ap_of(p);
    clear_failure(ap);
    /* A job's RELEASE comes when it is deleted, often hours after the
     * connection last carried anything. */
    drop_if_stale(ap);
    int rc = ensure_hello(ap);
    if (rc)
        return rc;
    struct lr_wire_msg req = { .type = LR_WIRE_RELEASE }, ans;
    snprintf(req.name, sizeof req.name, "%s", tag);
    return exchange(ap, &req, LR_WIRE_OK, &ans);
}

int
lr_agent_party_keep(struct lr_cdynp_party *p,
                    const char (*tags)[LR_WIRE_NAME_MAX], int n)
{
    struct agent_party *ap = ap_of(p);
    if (n < 0 || n > LR_WIRE_KEEP_MAX)
        return EINVAL;
    clear_failure(ap);
    drop_if_stale(ap);
    int rc = ensure_hello(ap);
    if (rc)
        return rc;
    /* The encoder reads the tags, never writes them. */
    struct lr_wire_msg req = { .type = LR_WIRE_KEEP, .n_tags = n,
                               .tags = (char (*)[LR_WIRE_NAME_MAX]) tags },
                       ans;
    return exchange(ap, &req, LR_WIRE_OK, &ans);
}

static void
ap_free(struct lr_cdynp_party *p)
{
    struct agent_party *ap = ap_of(p);
    if (!ap)
        return;
    disconnect(ap);
    SSL_CTX_free(ap->ctx);
    free(ap->buf);
    free(ap->sum);
    free(ap);
}

static const struct lr_cdynp_party_class agent_class = {
    .compute = ap_compute,
    .step = ap_step,
    .backtrack = ap_backtrack,
    .finish = ap_finish,
    .free = ap_free,
};

/* The client context: TLS 1.3 only (both ends are ours, nothing older to
 * talk to), our certificate for the agent to check, the CA (and the CRL
 * file 'crl' when not NULL) for the agent's.  No session cache: one
 * connection per party. */
static SSL_CTX *
client_ctx(const char *cert, const char *key, const char *ca,
           const char *crl, char *err, size_t errlen)
{
    char why[256];
    SSL_CTX *ctx = lr_agent_tls_ctx(TLS_client_method(), cert, key, err,
                                    errlen);
    if (!ctx)
        return NULL;
    /* An agent that dies sends no close_notify: OpenSSL 3 calls that
     * "unexpected eof while reading"; this way it is a close, said as
     * "the agent closed the connection". */
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET
                        | SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
        snprintf(err, errlen, "TLS CA '%s': %s (want PEM certificates)", ca,
                 lr_tls_file_reason(ca, LR_TLS_PEM_CERT, why, sizeof why));
        goto fail;
    }
    char cwhy[1024];
    if (crl && lr_tls_use_crl(ctx, crl, cwhy, sizeof cwhy)) {
        snprintf(err, errlen, "TLS CRL '%s': %s", crl, cwhy);
        goto fail;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, lr_tls_verify_cb);
    return ctx;

fail:
    SSL_CTX_free(ctx);
    return NULL;
}

struct lr_cdynp_party *
lr_agent_party_new(const char *address, int port, const char *expected_name,
                   const char *cert, const char *key, const char *ca,
                   const char *crl, double timeout_s, char *err,
                   size_t errlen)
{
    struct agent_party *ap = NULL;
    char scratch[1];
    if (!err) {
        err = scratch;
        errlen = sizeof scratch;
    }
    if (!address || !*address || strlen(address) >= sizeof ap->address
        || port < 1 || port > 65535 || !expected_name || !*expected_name
        || strlen(expected_name) >= sizeof ap->name || !cert || !key || !ca
        || !(timeout_s > 0) || timeout_s > 86400) {
        snprintf(err, errlen, "agent party: an address, a port in 1..65535, "
                 "a certificate name, the coordinator's certificate, key "
                 "and CA, and a timeout in (0, 86400] s are needed");
        return NULL;
    }
    ap = calloc(1, sizeof *ap);
    if (!ap || !(ap->buf = malloc(AP_BUF))
        || !(ap->sum = malloc(sizeof *ap->sum))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    ap->base.cls = &agent_class;
    ap->fd = -1;
    snprintf(ap->address, sizeof ap->address, "%s", address);
    ap->port = port;
    snprintf(ap->name, sizeof ap->name, "%s", expected_name);
    ap->timeout = timeout_s;
    ap->revision_retry = LR_AGENT_REVISION_RETRY_S;
    ap->restart_wait = LR_AGENT_RESTART_WAIT_S;
    snprintf(ap->restart_why, sizeof ap->restart_why, "%s",
             LR_AGENT_RESTART_WHY_NONE);
    if (crl && !*crl)
        crl = NULL;
    if (crl && strlen(crl) >= sizeof ap->crl) {
        snprintf(err, errlen, "TLS CRL '%s': its name is longer than %zu "
                 "bytes", crl, sizeof ap->crl - 1);
        goto fail;
    }
    snprintf(ap->crl, sizeof ap->crl, "%s", crl ? crl : "");
    if (!(ap->ctx = client_ctx(cert, key, ca, crl, err, errlen)))
        goto fail;
    lr_tls_own_serial(ap->ctx, ap->serial, sizeof ap->serial);
    return &ap->base;

fail:
    if (ap) {
        free(ap->buf);
        free(ap->sum);
    }
    free(ap);
    return NULL;
}

SSL_CTX *
lr_agent_party_tls_new(const char *cert, const char *key, const char *ca,
                       const char *crl, char *err, size_t errlen)
{
    if (crl && !*crl)
        crl = NULL;
    return client_ctx(cert, key, ca, crl, err, errlen);
}

int
lr_agent_party_use_tls(struct lr_cdynp_party *p, SSL_CTX *ctx, char *why,
                       size_t len)
{
    struct agent_party *ap = ap_of(p);
    if (!SSL_CTX_up_ref(ctx)) {
        snprintf(why, len, "out of memory");
        return ENOMEM;
    }
    /* The SSL of the connection holds its own reference to the context
     * it was made with: freeing ours here ends nothing. */
    SSL_CTX_free(ap->ctx);
    ap->ctx = ctx;
    lr_tls_own_serial(ap->ctx, ap->serial, sizeof ap->serial);
    why[0] = '\0';
    /* Only a connection whose handshake ended has a chain to judge; one
     * still connecting is dropped, and starts again under 'ctx'. */
    if (ap->state != AP_UP) {
        if (ap->state != AP_DOWN)
            disconnect(ap);
        return 0;
    }
    return lr_agent_party_verify_again(p, why, len) == X509_V_OK ? 0
                                                                 : EACCES;
}

long
lr_agent_party_verify_again(struct lr_cdynp_party *p, char *why, size_t len)
{
    struct agent_party *ap = ap_of(p);
    char text[1024];
    why[0] = '\0';
    if (ap->state != AP_UP)
        return X509_V_OK;
    long v = lr_tls_verify_again(ap->ctx, ap->ssl);
    if (v == X509_V_OK)
        return v;
    snprintf(why, len, "%s", lr_tls_verify_text(v, &ap->verified,
                                                ap->crl[0] ? ap->crl : NULL,
                                                text, sizeof text));
    disconnect(ap);
    /* Said as down (lr_agent_party_error()) until the agent is tried
     * again, whose handshake then fails in the same words. */
    snprintf(ap->why, sizeof ap->why, "TLS connection to %s port %d closed: "
             "the agent's certificate is refused: %s (expected name '%s')",
             ap->address, ap->port, why, ap->name);
    return v;
}

void
lr_agent_party_span_peer(const struct lr_cdynp_party *p,
                         struct lr_tls_span *s)
{
    const struct agent_party *ap = ap_of(p);
    if (ap->state == AP_UP)
        lr_tls_span_peer(s, ap->ssl);
}

void
lr_agent_party_span_crls(const struct lr_cdynp_party *p, time_t now,
                         struct lr_tls_span *s)
{
    lr_tls_span_crls(s, ap_of(p)->ctx, now);
}

const struct lr_tls_peer *
lr_agent_party_verified(const struct lr_cdynp_party *p)
{
    return &ap_of(p)->verified;
}

time_t
lr_agent_party_crl_update(const struct lr_cdynp_party *p, bool past,
                          char *buf, size_t len)
{
    return lr_tls_crl_update(ap_of(p)->ctx, past, buf, len);
}

void
lr_agent_party_set_job(struct lr_cdynp_party *p, const struct lr_tm *tm)
{
    struct agent_party *ap = ap_of(p);
    ap->tm = tm;
    ap->job++;
    ap->job_sent = false;
    /* Looked at once, right before the job's first request is written
     * (ensure_hello(), drop_if_stale()): a close seen here would be
     * seen there all the same, and one that comes between would not. */
    ap->kept = ap->state == AP_UP;
    /* An agent found old stays so for this party (ap->plain_hello)
     * for ap->revision_retry; a new party (a PUT of the network, a
     * restart) asks it again at once. */
    clear_failure(ap);
}

/* The first agent among parties[0..n-1] that failed, as "agent DC
 * unreachable: why" (or "failed" when it answered but refused, on a
 * connection still up or in the ERROR it closed after, or closed a
 * connection that had answered before); 'err' when none
 * says why.  One that failed on its own comes before one that
 * ran out of the plan's budget, which all share: an agent whose connect
 * took its whole timeout leaves the others none, and they are not the
 * cause.  Among those out of budget, one that ran out in its own
 * connect or answer comes before one left no time to send a request. */
static int
agent_failure(const struct lr_cluster *cl,
              struct lr_cdynp_party *const *parties, int err, char *why,
              size_t len)
{
    if (err == EOVERFLOW)
        /* A party's own layout (lr_cdynp_dc_stages), not a failure. */
        snprintf(why, len, "%s: plan with a larger cdynp-device-step (and "
                 "the agents' --device-step), so that each stage has more "
                 "devices", lr_tm_why_str(LR_TM_STAGES));
    else
        snprintf(why, len, "a data center failed: %s", strerror(err));
    for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < cl->n_dcs; k++) {
            const char *e = lr_agent_party_is(parties[k])
                            ? lr_agent_party_error(parties[k]) : NULL;
            if (!e || (pass == 0 && ap_of(parties[k])->out_of_budget)
                || (pass == 1 && ap_of(parties[k])->starved))
                continue;
            snprintf(why, len, "agent %s %s: %s", cl->dcs[k].name,
                     ap_of(parties[k])->out_of_budget ? "too slow"
                     : lr_agent_party_connected(parties[k])
                       || ap_of(parties[k])->answered
                       || ap_of(parties[k])->closed_by_agent
                       || ap_of(parties[k])->closed_silently ? "failed"
                                                      : "unreachable",
                     e);
            return err;
        }
    return err;
}

/* After lr_cdynp_plan_parties() answered 'verdict' with no party's
 * failure: what the agents that refused an objective newer than
 * themselves (ap->refused) mean.  None: why[0] = '\0', 0.  A plan found
 * without their runs: a note in why[len] naming each, 0.  No plan: the
 * first one's refusal becomes its failure, said as it was before the
 * plan went on without it (agent_failure()), EINVAL. */
static int
old_agents(const struct lr_cluster *cl, struct lr_cdynp_party *const *parties,
           enum lr_tm_why verdict, char *why, size_t len)
{
    why[0] = '\0';
    for (int k = 0; k < cl->n_dcs; k++) {
        if (!lr_agent_party_is(parties[k]) || !ap_of(parties[k])->refused[0])
            continue;
        struct agent_party *ap = ap_of(parties[k]);
        if (verdict != LR_TM_OK) {
            fail(ap, EINVAL, "%s", ap->refused);
            ap->answered = true;      /* its refusal, then it closed */
            return agent_failure(cl, parties, EINVAL, why, len);
        }
        const bool one = lr_cdynp_obj_one(ap->refused_obj);
        size_t at = strlen(why);
        snprintf(why + at, len - at, "%sagent %s (%s port %d) is from "
                 "before %s: it refused objective %s, so the %s runs were "
                 "skipped with it and the plan may be dearer than with "
                 "current agents; upgrade it to the agent of this "
                 "coordinator's release", at ? "; " : "", cl->dcs[k].name,
                 ap->address, ap->port, one ? "2026-12-04" : "2026-12-05",
                 lr_wire_objective_name(ap->refused_obj),
                 one ? "one-stage-per-DC and count-bounded" : "count-bounded");
    }
    return 0;
}

/* After a plan was found: a note in why[len] (appended, "; " between)
 * for each agent that spoke protocol revision 1 in it.  Its STEP_OKs
 * carried no predecessors, so the plan asked it BACKTRACKs instead: the
 * same plan, 1.7-1.8x the requests at beam width 8 (docs/benchmarks.md,
 * "The beam over agents, no BACKTRACK"), which an operator who sees
 * the request counts jump could not explain otherwise.  Which of the causes it was, as far as the coordinator can
 * tell: an agent that refused the HELLO naming our revision
 * (ap->plain_hello) or whose HELLO_OK named none is from before
 * 2026-12-07; one whose HELLO_OK answered 1 has its leaf predecessors
 * false (cmd_agent.c's agent_revision()). */
static void
revision_notes(const struct lr_cluster *cl,
               struct lr_cdynp_party *const *parties, char *why, size_t len)
{
    for (int k = 0; k < cl->n_dcs; k++) {
        if (!lr_agent_party_is(parties[k]))
            continue;
        const struct agent_party *ap = ap_of(parties[k]);
        if (!ap->plan_revision
            || ap->plan_revision >= LR_WIRE_REVISION_PREV)
            continue;
        const bool old = ap->plain_hello || !ap->hello_ok_revision;
        char earlier[320] = "";
        if (ap->plain_hello && ap->plain_job != ap->job)
            snprintf(earlier, sizeof earlier, "it refused a HELLO naming "
                     "revision 2 in an earlier job, as agents from before "
                     "2026-12-07 do, and is greeted with a plain HELLO "
                     "since, until a new connection %g s after that refusal "
                     "asks revision 2 again (or a new network (PUT), or a "
                     "restart of the coordinator)", ap->revision_retry);
        size_t at = strlen(why);
        snprintf(why + at, len - at, "%sagent %s (%s port %d) speaks "
                 "protocol revision 1: %s, so it is asked the BACKTRACKs "
                 "that revision 2's predecessors in STEP_OK spare, for the "
                 "same plan: %d in this plan; %s",
                 at ? "; " : "", cl->dcs[k].name, ap->address, ap->port,
                 ap->plain_hello && ap->plain_job == ap->job
                 ? "it refused a HELLO naming revision 2, as agents from "
                   "before 2026-12-07 do"
                 : ap->plain_hello ? earlier
                 : old ? "its HELLO_OK named no revision, so it is from "
                         "before 2026-12-07"
                       : "its HELLO_OK answered 1, as an agent whose "
                         "leaf predecessors is false does",
                 ap->spared_backtracks,
                 old ? "upgrade it to the agent of this coordinator's "
                       "release"
                     : "set predecessors true in its configuration for "
                       "fewer requests");
    }
}

/* When memo party 'm' around agent 'ap' failed the plan because the
 * agent answered a STEP sent again otherwise than the first time, that
 * is the agent's failure, said so: the memo's EPROTO names no one, and
 * agent_failure() would say only "a data center failed: Protocol
 * error". */
static void
memo_differed(const struct lr_cdynp_party *m, struct agent_party *ap)
{
    enum lr_cdynp_objective obj;
    int lo, hi;
    if (ap->failed || !lr_cdynp_memo_party_differed(m, &obj, &lo, &hi))
        return;
    fail(ap, EPROTO, "%s port %d answered the same step (%s, last layer "
         "in %d-%d) otherwise than the first time, sent again before a "
         "backtrack: an agent must answer a request as it did; see its "
         "log, and restart it", ap->address, ap->port,
         lr_wire_objective_name(obj), lo, hi);
    ap->answered = true;
}

/* One run of lr_agent_plan() (its contract), the plan's deadline set. */
static int
plan_once(const struct lr_cluster *cl, struct lr_cdynp_party *const *parties,
          const struct lr_cdynp_options *opts,
          const struct lr_cdynp_view *view, struct lr_cdynp_result *res,
          struct lr_plan *plan, enum lr_tm_why *verdict, char *why,
          size_t len)
{
    int rc = 0, perr = 0;
    lr_agent_parties_connect(parties, cl->n_dcs);
    /* Each connect that ends after the budget is the cause, whichever
     * agent's HELLO comes first and finds no time left. */
    for (int k = 0; k < cl->n_dcs; k++)
        if (lr_agent_party_is(parties[k]))
            connect_out_of_budget(ap_of(parties[k]));
    for (int k = 0; k < cl->n_dcs && !rc; k++) {
        double flops;
        if (!lr_agent_party_is(parties[k]))
            continue;
        int e = parties[k]->cls->compute(parties[k], &flops);
        if (e) {
            rc = agent_failure(cl, parties, e, why, len);
        } else if (strcmp(lr_agent_party_dc_name(parties[k]),
                          cl->dcs[k].name)) {
            snprintf(why, len, "the agent at %s port %d serves data center "
                     "'%s', not '%s'", cl->dcs[k].remote_address,
                     cl->dcs[k].remote_port,
                     lr_agent_party_dc_name(parties[k]), cl->dcs[k].name);
            rc = EINVAL;
        }
    }
    if (!rc) {
        /* Each agent behind a memo for this run: the beam search asks
         * many requests again (lr_cdynp_memo.c), each a round trip.
         * Per run, as a retry's agent has lost its caches and its last
         * STEP with its connection. */
        struct lr_cdynp_party *asked[LR_TM_MAX_DCS];
        for (int k = 0; k < cl->n_dcs; k++) {
            asked[k] = parties[k];
            struct lr_cdynp_party *m
                = lr_agent_party_is(parties[k])
                  ? lr_cdynp_memo_party_new(parties[k], view->m) : NULL;
            if (m)
                asked[k] = m;
        }
        *verdict = lr_cdynp_plan_parties(view, asked, opts, res, plan,
                                         &perr);
        for (int k = 0; k < cl->n_dcs; k++)
            if (asked[k] != parties[k]) {
                if (perr)
                    memo_differed(asked[k], ap_of(parties[k]));
                asked[k]->cls->free(asked[k]);
            }
        if (perr)
            rc = agent_failure(cl, parties, perr, why, len);
        else
            rc = old_agents(cl, parties, *verdict, why, len);
    }
    return rc;
}


/* After the agent's goodbye (ESHUTDOWN, its failure cleared): connects
 * until it accepts, within ap->restart_wait and the plan's budget, a
 * refusal (ECONNREFUSED: its listener closed, not yet open again) tried
 * again 0.1 s later, then 0.2, 0.4, 0.8, 1 s at most between tries.
 * Another failure (a timeout, a handshake refused), or the time out:
 * that failure stays, sticky, for the run again to report (lr_agent_plan()
 * says the goodbye before it).  Until 2026-12-07, later, the run again
 * connected at once, and an agent restarted by systemd was found
 * refusing.  With no wait (lightraild's event loop planning: a nap
 * here stops the daemon), one try: a refusal fails at once, saying so.
 * Until 2026-12-07, later, the loop napped up to 3 s too. */
static void
await_restart(struct agent_party *ap)
{
    double end = now_s() + ap->restart_wait;
    if (ap->plan_deadline > 0 && ap->plan_deadline < end)
        end = ap->plan_deadline;
    double pause = 0.1;
    const double start = now_s();
    while (ensure_connected(ap) == ECONNREFUSED) {
        double left = end - now_s();
        if (left <= 0) {
            size_t at = strlen(ap->why);
            if (ap->restart_wait > 0)
                snprintf(ap->why + at, sizeof ap->why - at, " (tried for "
                         "%.1f s after it said it was shutting down: plan "
                         "again once it is started again)", now_s() - start);
            else
                snprintf(ap->why + at, sizeof ap->why - at, " (tried once "
                         "after it said it was shutting down, not waited "
                         "for: %s; plan again once it is started again)",
                         ap->restart_why);
            return;
        }
        clear_failure(ap);
        double nap = pause < left ? pause : left;
        struct timespec ts = { (time_t) nap,
                               (long) ((nap - (time_t) nap) * 1e9) };
        while (nanosleep(&ts, &ts) && errno == EINTR)
            continue;
        pause = pause * 2 < 1 ? pause * 2 : 1;
    }
}

/* The DC index of the one agent party whose failure is the agent's
 * closing of its connection (ap->closed_by_agent), when no other party
 * failed; -1 otherwise.  A failure is sticky, so the first one ends a
 * run: another party's would be its own, and running again would not
 * mend it. */
static int
closed_party(const struct lr_cluster *cl,
             struct lr_cdynp_party *const *parties)
{
    int found = -1;
    for (int k = 0; k < cl->n_dcs; k++) {
        if (!lr_agent_party_is(parties[k]) || !ap_of(parties[k])->failed)
            continue;
        if (!ap_of(parties[k])->closed_by_agent || found >= 0)
            return -1;
        found = k;
    }
    return found;
}

int
lr_agent_plan(const struct lr_cluster *cl,
              struct lr_cdynp_party *const *parties,
              const struct lr_cdynp_options *opts,
              const struct lr_cdynp_view *view, struct lr_cdynp_result *res,
              struct lr_plan *plan, enum lr_tm_why *verdict, char *why,
              size_t len)
{
    const double start = now_s();
    char retried[2048] = "";
    int rc;
    for (int k = 0; k < cl->n_dcs; k++)
        if (lr_agent_party_is(parties[k])) {
            struct agent_party *ap = ap_of(parties[k]);
            ap->plan_deadline = ap->budget > 0 ? start + ap->budget : 0;
            ap->spared_backtracks = 0;
            ap->plan_revision = 0;   /* ensure_hello() counts each */
        }
    /* An agent closes a connection in the middle of a plan, saying so
     * (an ERROR of id 0, "closed: ..."), when it makes room for another
     * of this coordinator's (cmd_agent.c's peer_at_limit(): a
     * connection quiet for a tenth of its idle timeout, while we waited
     * on the other DCs).  A close with no word is not run again
     * (closed_without_a_word(): a crash, the OOM killer).
     * The job's DP caches went with the connection, and a BACKTRACK
     * reads its last STEP's: the plan runs again from its start, the
     * agent given HELLO and JOB on a new connection (each run's T is
     * the same: CDynP is deterministic), within the same budget.  Not
     * after a time-out (the agent may still be computing the request:
     * sent again, it would run twice on a slow agent and likely time
     * out again, the plan waiting the timeout once more each time), nor
     * after an ERROR answer (E2BIG, EINVAL, ...: the same request gets
     * the same answer). */
    for (int run = 0;; run++) {
        rc = plan_once(cl, parties, opts, view, res, plan, verdict, why,
                       len);
        const int k = rc ? closed_party(cl, parties) : -1;
        if (k < 0) {
            /* A run again that failed for a cause of its own: the
             * failure says what came before it, which explains a second
             * connection (the agent's log shows two) and the time the
             * plan took. */
            if (rc && retried[0]) {
                size_t at = strlen(why);
                snprintf(why + at, len - at, "; in the run%s before: %s",
                         run > 1 ? "s" : "", retried);
            }
            break;
        }
        struct agent_party *ap = ap_of(parties[k]);
        if (run == LR_AGENT_PLAN_RETRIES) {
            size_t at = strlen(why);
            /* The runs before may have met another agent's close. */
            snprintf(why + at, len - at, "; the plan was run again from "
                     "its start %d times, the most it is, an agent closing "
                     "its connection in each run (see the agents' logs for "
                     "why)", LR_AGENT_PLAN_RETRIES);
            break;
        }
        size_t at = strlen(retried);
        snprintf(retried + at, sizeof retried - at, "%sagent %s closed its "
                 "connection in the middle of the plan (%s): the plan was "
                 "run again from its start on a new connection (retry %d "
                 "of at most %d)", at ? "; " : "", cl->dcs[k].name, ap->why,
                 run + 1, LR_AGENT_PLAN_RETRIES);
        const bool leaving = ap->failed == ESHUTDOWN;
        clear_failure(ap);
        if (leaving)
            await_restart(ap);
    }
    if (!rc && retried[0]) {
        size_t at = strlen(why);
        snprintf(why + at, len - at, "%s%s", at ? "; " : "", retried);
    }
    if (!rc && *verdict == LR_TM_OK)
        revision_notes(cl, parties, why, len);
    /* The budget is the plan's: a COMMIT or RELEASE after it is not. */
    for (int k = 0; k < cl->n_dcs; k++)
        if (lr_agent_party_is(parties[k]))
            ap_of(parties[k])->plan_deadline = 0;
    return rc;
}

void
lr_agent_party_set_revision_retry(struct lr_cdynp_party *p, double seconds)
{
    ap_of(p)->revision_retry = seconds > 0 ? seconds : 0;
}

void
lr_agent_party_set_restart_wait(struct lr_cdynp_party *p, double seconds,
                                const char *why)
{
    struct agent_party *ap = ap_of(p);
    ap->restart_wait = seconds > 0 ? seconds : 0;
    snprintf(ap->restart_why, sizeof ap->restart_why, "%s",
             why ? why : LR_AGENT_RESTART_WHY_NONE);
}

void
lr_agent_party_set_budget(struct lr_cdynp_party *p, double seconds)
{
    ap_of(p)->budget = seconds > 0 ? seconds : 0;
}

const char *
lr_agent_party_error(const struct lr_cdynp_party *p)
{
    const struct agent_party *ap = ap_of(p);
    return ap->why[0] ? ap->why : NULL;
}

unsigned
lr_agent_party_idle_closes(const struct lr_cdynp_party *p, const char **last)
{
    const struct agent_party *ap = ap_of(p);
    if (last)
        *last = ap->idle_close;
    return ap->idle_closes;
}

void
lr_agent_party_carry_error(struct lr_cdynp_party *p, const char *why)
{
    struct agent_party *ap = ap_of(p);
    snprintf(ap->why, sizeof ap->why, "%s", why ? why : "");
}

bool
lr_agent_party_connected(const struct lr_cdynp_party *p)
{
    return ap_of(p)->state == AP_UP;
}

const char *
lr_agent_party_dc_name(const struct lr_cdynp_party *p)
{
    return ap_of(p)->dc_name;
}

void
lr_agent_party_set_record(struct lr_cdynp_party *p, FILE *f)
{
    ap_of(p)->record = f;
}

bool
lr_agent_party_is(const struct lr_cdynp_party *p)
{
    return p && p->cls == &agent_class;
}

/* ---- the record of received messages ---- */

/* A JSON string: everything outside printable ASCII escaped, so that
 * the line stays valid JSON whatever bytes a peer sent. */
static void
json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p > 0x7e)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void
json_summary(FILE *f, const struct lr_wire_msg *m)
{
    const struct lr_cdynp_summary *s = m->summary;
    if (!m->has_summary || !s) {
        fputs(",\"summary\":null", f);
        return;
    }
    fprintf(f, ",\"summary\":{\"version\":%u,\"from\":%u,\"entries\":[",
            s->version, s->from);
    /* Version 2 (counted): each entry's stage count after its layer. */
    for (int i = 0; i < s->n; i++) {
        fprintf(f, "%s[%u,", i ? "," : "", s->e[i].layer);
        if (s->version == LR_CDYNP_VERSION_COUNTS)
            fprintf(f, "%u,", s->e[i].stages);
        fprintf(f, "%.17g,%.17g,%.17g]", s->e[i].cost.bottleneck,
                s->e[i].cost.sum, s->e[i].cost.sync);
    }
    fputc(']', f);
    /* A STEP_OK of revision 2: each entry's predecessor, in order. */
    if (m->type == LR_WIRE_STEP_OK && s->has_prev) {
        fputs(",\"prev\":[", f);
        for (int i = 0; i < s->n; i++)
            fprintf(f, "%s%d", i ? "," : "", s->e[i].prev_last);
        fputc(']', f);
    }
    fputc('}', f);
}

void
lr_agent_record(FILE *f, const struct lr_wire_msg *m)
{
    if (!f)
        return;
    fprintf(f, "{\"type\":\"%s\",\"id\":%u", lr_wire_type_name(m->type),
            m->id);
    switch (m->type) {
    case LR_WIRE_HELLO:
        fprintf(f, ",\"revision\":%d", m->revision);
        break;
    case LR_WIRE_OK:
        break;
    case LR_WIRE_HELLO_OK:
        fprintf(f, ",\"compute\":%.17g,\"name\":", m->compute);
        json_str(f, m->name);
        fprintf(f, ",\"revision\":%d", m->revision);
        break;
    case LR_WIRE_JOB:
        fprintf(f, ",\"job\":%u,\"batch\":%.17g,\"micro\":%.17g,"
                "\"elem_bytes\":%.17g,\"layers\":[", m->job, m->batch,
                m->micro, m->elem_bytes);
        for (int i = 0; m->layers && i < m->n_layers; i++)
            fprintf(f, "%s[%.17g,%.17g,%.17g]", i ? "," : "",
                    m->layers[i].flops, m->layers[i].params,
                    m->layers[i].act);
        fputc(']', f);
        break;
    case LR_WIRE_STEP:
        fprintf(f, ",\"job\":%u,\"objective\":\"%s\",\"assumed\":%d,"
                "\"position\":%d,\"lo\":%d,\"hi\":%d,\"link_bw\":%.17g,"
                "\"link_lat\":%.17g", m->job, lr_wire_objective_name(m->objective),
                m->assumed, m->position, m->lo, m->hi, m->link.bw,
                m->link.lat);
        json_summary(f, m);
        break;
    case LR_WIRE_STEP_OK:
        json_summary(f, m);
        break;
    case LR_WIRE_BACKTRACK:
        fprintf(f, ",\"job\":%u,\"objective\":\"%s\",\"assumed\":%d,"
                "\"last\":%d,\"stages\":%d", m->job,
                lr_wire_objective_name(m->objective), m->assumed, m->last,
                m->stages);
        break;
    case LR_WIRE_BACKTRACK_OK:
        fprintf(f, ",\"prev_last\":%d,\"prev_stages\":%d", m->prev_last,
                m->prev_stages);
        break;
    case LR_WIRE_FINISH:
    case LR_WIRE_COMMIT:
        fprintf(f, ",\"job\":%u,\"objective\":\"%s\",\"assumed\":%d,"
                "\"first\":%d,\"last\":%d,\"stages\":%d", m->job,
                lr_wire_objective_name(m->objective), m->assumed, m->first,
                m->last, m->stages);
        if (m->type == LR_WIRE_COMMIT) {
            fputs(",\"tag\":", f);
            json_str(f, m->name);
        }
        break;
    case LR_WIRE_RELEASE:
        fputs(",\"tag\":", f);
        json_str(f, m->name);
        break;
    case LR_WIRE_KEEP:
        fputs(",\"tags\":[", f);
        for (int i = 0; m->tags && i < m->n_tags; i++) {
            if (i)
                fputc(',', f);
            json_str(f, m->tags[i]);
        }
        fputc(']', f);
        break;
    case LR_WIRE_FINISH_OK:
        fprintf(f, ",\"n_stages\":%d", m->n_stages);
        break;
    case LR_WIRE_ERROR:
        fprintf(f, ",\"code\":%d,\"text\":", m->code);
        json_str(f, m->text);
        break;
    }
    fputs("}\n", f);
    fflush(f);
}
