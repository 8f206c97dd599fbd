/*
 * lightrail agent: one data center's agent for distributed CDynP
 * (docs/agent-protocol.md).  It holds the DC's private inventory (a
 * lightrail-agent file), listens for the coordinator over mutual TLS 1.3
 * and answers the chain protocol with a CDynP party of its own
 * (planner/lr_cdynp.h's lr_cdynp_local_party_new() over a one-DC time
 * model).  What it sends is what the message schema allows: its
 * aggregate compute, summaries of times per layer, a predecessor's layer
 * and a stage count; never its devices, their count or type, or its
 * internal network.
 *
 * One libevent loop, and --threads workers for the local DP
 * (controller/lr_worker.h).  Each connection is a bufferevent over
 * OpenSSL; frames are cut with lr_wire_frame_size() and read only
 * through lr_wire_decode().  A malformed frame ends that connection
 * (after an ERROR saying why) and nothing else.  A connection holds at
 * most one job (the last JOB it sent).  HELLO, JOB and RELEASE are
 * answered on the loop; a STEP, BACKTRACK, FINISH or COMMIT (the DP:
 * milliseconds to seconds) goes to the least busy worker, and the
 * connection reads nothing more until its answer is queued, so that
 * answers keep the order of requests and only one thread at a time
 * touches a connection's party.  Meanwhile the loop serves the other
 * connections: handshakes, other coordinators' requests (on the other
 * workers), RELEASEs.  A COMMIT's layout runs on a worker and its
 * reservation on the loop, which alone owns the commitments (its tag
 * checked again there).  On SIGTERM a request in progress answered
 * within AGENT_LEAVE_S is answered, one still queued for a worker is
 * not run, and every connection told the agent goes (agent_leave());
 * then the requests running end, their answers dropped.  So that no
 * request (a JOB of thousands of layers, a STEP with a thousand entries:
 * legal frames) can hold a worker for minutes, a STEP, FINISH or COMMIT
 * whose local DP would update more than --max-step-cells cells (0.2-3 ns
 * each) is refused with E2BIG before any of it runs
 * (lr_cdynp_local_party_work() counts them).  As each connection's job
 * keeps the rows its requests computed, one that would compute more
 * while they hold --max-cache-bytes is refused with ENOBUFS
 * (lr_cdynp_local_party_bytes(): the memory they reserve), and so is
 * one while the caches of all connections together hold
 * --max-total-cache-bytes (over_memory()).  A frame begun must be whole
 * --frame-timeout seconds after its first byte.
 *
 * Who may connect: a client whose certificate chains to the configured
 * CA and names one of the configured peers (subject CN or a DNS SAN,
 * exactly), checked by OpenSSL during the handshake through the
 * verification parameters' host list, so a refused peer never reaches
 * the protocol.  TLS 1.3 only.  At most AGENT_MAX_CONNS_PER_PEER
 * connections of one peer: a new one past them takes the place of the
 * peer's connection silent the longest, one holding no job first, if
 * one has had nothing in flight for a tenth of --idle-timeout
 * (peer_at_limit()); else it is refused.
 *
 * The log (stderr) has every answer sent, as it left: "PEER: sent
 * {JSON}", the message in the form --record writes (log_sent()), so that
 * the operator sees what the DC revealed and that it is nothing more.
 * A line carries at most AGENT_LOG_PART (16 KiB) of it: a longer one (a
 * full STEP_OK is about 70 KB; journald splits lines past 48 KiB) is a
 * head line "sent TYPE ID in N parts: LEN bytes, sha256 HEX" and then
 * "sent part I/N PIECE" lines, which joined are the message.
 *
 * Test hooks: --record FILE appends every decoded message received as a
 * JSON line (lr_agent_record()); --delay-ms N holds each answer back N ms
 * (a timer, the loop keeps serving other connections), --delay-commit-ms
 * N a COMMIT's answer only, after its devices are reserved; --state-dir DIR
 * receives agent.pid and agent.port (the port bound, for --listen ...:0)
 * once the agent serves, both removed when it stops on SIGTERM or SIGINT.
 *
 * Reservations (COMMIT) outlive the agent when it has a --state-dir: each
 * COMMIT, and each RELEASE or KEEP that frees any, hands the new state to
 * a writer thread of its own (lr_agent_store.h: in order, each save
 * synced), and the request is answered once it is written, the
 * connection reading nothing more meanwhile (persist(), conn_saved()):
 * a COMMIT answered is on disk, a COMMIT whose save failed is undone
 * and refused.  The loop serves the other connections meanwhile.  The
 * agent reads the file back when it starts (restore_reservations()); it
 * holds a lock (flock) on the directory meanwhile, so that a second
 * agent on it stops at start.  Test hook: --delay-save-ms N holds each
 * save back N ms on the writer (a slow disk).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "controller/lr_agent_party.h"
#include "controller/lr_tls.h"
#include "controller/lr_worker.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_wire.h"
#include "planner/lr_utf8.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_agent_store.h"
#include "tools/lightrail/lr_cli.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_agent.h"

#define CMD "agent"
/* Connections served at once; more are closed at accept.  Of those, at
 * most AGENT_MAX_HANDSHAKES may still be in their TLS handshake, and
 * each has AGENT_HANDSHAKE_S for it from accept, at most
 * AGENT_MAX_HANDSHAKES_PER_HOST from one address: a stranger without a
 * certificate, who can only ever be a handshake, cannot hold the slots
 * of the coordinators.  Past AGENT_MAX_HANDSHAKES (or AGENT_MAX_CONNS)
 * a new connection takes the place of the oldest handshake: strangers
 * from four addresses or more would otherwise refuse every coordinator,
 * ten seconds at a time, for as long as they came back. */
#define AGENT_MAX_CONNS 64
/* Of those, at most this many of one peer (the peer name its certificate
 * was admitted by) once connected: a coordinator that leaks connections,
 * or opens them to hold the agent, would otherwise refuse every other
 * coordinator at accept, 600 s for each silent one (AGENT_IDLE_S), for
 * ever with a request now and then.  A quarter: four coordinators at
 * their limit fill the agent, and one plan needs one connection. */
#define AGENT_MAX_CONNS_PER_PEER 16
/* A peer at AGENT_MAX_CONNS_PER_PEER whose new connection finishes its
 * handshake is served in the place of its connection silent the
 * longest, when one has had nothing in flight (no request running,
 * being saved or held, no frame begun, no answer unread) and no whole
 * frame for --idle-timeout / AGENT_EVICT_DIV (60 s by default): the
 * coordinator left it (a leak, a plan whose connections it never
 * closed), and waiting for its idle timeout refused that coordinator
 * for 600 s.  Not sooner: a plan's connection is silent while its
 * coordinator waits for the other DCs (seconds), and closing it would
 * fail a plan to serve another.  Of those, one holding no job goes
 * first (peer_stalest()): a job's may still be in a plan. */
#define AGENT_EVICT_DIV 10
#define AGENT_MAX_HANDSHAKES 16
#define AGENT_MAX_HANDSHAKES_PER_HOST 4
#define AGENT_HANDSHAKE_S 10
/* --idle-timeout's default: a connection with no whole frame this long
 * is closed (a coordinator between jobs reconnects at once when it needs
 * us).  Whole frames, not bytes: libevent's read timeout restarted with
 * every byte of a TLS record, so a peer sending a record a byte at a
 * time (below the frame: none of it decrypted, --frame-timeout not
 * started) held its connection for ever. */
#define AGENT_IDLE_S 600
/* --frame-timeout's default: a frame begun must be whole this many
 * seconds after we first see its first byte.  Without it a peer sending
 * a frame a byte at a time held its connection (and its place under
 * AGENT_MAX_CONNS_PER_PEER) for ever: libevent's read timeout, which
 * the idle timer replaced, restarted with every byte, and the idle
 * timer waits for whole frames.  A coordinator writes each frame at
 * once (at most 1 MB). */
#define AGENT_FRAME_S 30
/* A peer that does not read its answers: reading its requests stops
 * while this much is queued for it, and a connection whose output has
 * not moved for AGENT_WRITE_S (one being closed included) is closed. */
#define AGENT_OUT_MAX (1024 * 1024)
#define AGENT_WRITE_S 60
/* SIGTERM or SIGINT: how long the agent waits for its connections to
 * take their goodbye (agent_leave()), and for a request in progress to
 * be answered first, before it exits all the same.  Short, as a stop
 * should be: an ERROR and a close_notify cross a WAN in well under it,
 * and a coordinator whose answer does not come within it runs the plan
 * again from its start, as after an eviction. */
#define AGENT_LEAVE_S 1
/* --max-step-cells' default: a few seconds of local DP at most (1.5-2.4
 * ns a cell measured before 2026-12-05, 0.2-0.4 ns since,
 * docs/agent-protocol.md), within the coordinator's default agent
 * timeout of 5 s. */
#define AGENT_MAX_STEP_CELLS 2e9
/* --max-cache-bytes' default: the DP caches one connection's job may
 * hold (lr_cdynp_local_party_bytes()).  Each request adds rows, bounded
 * by --max-step-cells, but every STEP of a new window or assumed stage
 * count adds more, kept until the job ends: an authorised coordinator
 * could grow one connection until the agent ran out of memory. */
#define AGENT_MAX_CACHE_BYTES 4e9
/* --max-total-cache-bytes' default, when the memory installed is not
 * known: --max-cache-bytes bounds one connection, and an agent serves
 * 64 (16 of one coordinator), 256e9 bytes in all.  Known, the default
 * is half of it (agent_total_default()). */
#define AGENT_MAX_TOTAL_CACHE_BYTES 16e9
/* See controller/lr_agent_party.c: exact names, CN or DNS SAN. */
#define AGENT_HOSTFLAGS (X509_CHECK_FLAG_ALWAYS_CHECK_SUBJECT                \
                         | X509_CHECK_FLAG_NO_WILDCARDS)
/* --threads: the DP's workers (default: the processors online, at most
 * this many). */
#define AGENT_MAX_THREADS 64
#define AGENT_DEFAULT_THREADS 8

struct agent;

struct conn {
    struct agent *a;
    struct conn *prev, *next;
    struct bufferevent *bev;
    char host[64];                /* the address alone */
    char cn[LR_NAME_MAX];         /* the peer's certificate CN, for logs */
    char owner[LR_NAME_MAX];      /* once connected, the peer name it was
                                   * admitted by (its CN or a DNS SAN):
                                   * whose commitments */
    char peer[96];                /* address:port, then + the cert name */
    struct lr_tls_peer verified;  /* what its chain failed at, if it did */
    bool ready;                   /* handshake done */
    bool closing;                 /* free once the output is flushed */
    bool full;                    /* reading paused: AGENT_OUT_MAX queued */
    struct event *handshake;      /* AGENT_HANDSHAKE_S from accept */
    struct event *frame_late;     /* --frame-timeout: pending while the
                                   * input holds part of a frame */
    struct event *idle;           /* --idle-timeout from the last whole
                                   * frame (or the handshake) */
    double heard;                 /* when 'idle' last started (now_s()) */
    /* The protocol revision agreed at HELLO (lr_cdynp_wire.h): 1 until
     * a HELLO names a higher one.  From LR_WIRE_REVISION_PREV on, its
     * STEP_OKs carry their entries' predecessors (conn_step_prev()). */
    int revision;
    /* The job: the public model and training shape over our inventory. */
    bool has_job;
    uint32_t job;
    struct lr_model *model;
    struct lr_tm *tm;
    struct lr_cdynp_party *party;
    /* --delay-ms: the answer held back, and its timer. */
    struct event *delay;
    struct evbuffer *held;
    /* The request a worker runs, or whose save the store writes, at most
     * one (reading pauses meanwhile); 'gone': closed meanwhile, freed
     * when the worker or the store is done.  The buffers are made at the
     * first request a worker runs. */
    bool busy, gone;
    /* 1 from the push of its request to a worker until that worker
     * starts it; then 0.  SIGTERM takes a request not yet started back
     * by setting it to 0 first (conn_unqueue()): the worker then skips
     * it.  Both threads change it, by compare-and-swap only. */
    atomic_int queued;
    uint64_t commit;              /* saving a COMMIT: its commitment's
                                   * serial; 0: a RELEASE or KEEP */
    struct lr_wire_msg req;       /* req.summary is 'in' */
    struct lr_cdynp_summary *in, *out;
    struct lr_plan *plan;
    int rc, n_stages, prev_last, prev_stages;  /* the worker's results */
    /* What its job's DP caches reserve, as last counted on the loop
     * (conn_count_bytes()): its share of a->cache_bytes. */
    double bytes;
    /* The most cells of local DP one request of its job was let run
     * (request_cells()): what --max-step-cells is to be sized by. */
    double top_cells;
};

struct agent {
    struct event_base *base;
    /* The context of new connections; SIGHUP replaces it (on_hup()),
     * and judges the connections up by it again. */
    SSL_CTX *ssl;
    char serial[80];              /* our certificate's, for its refusal */
    struct evconnlistener *listener;
    struct event *sig_term, *sig_int, *sig_hup;
    /* Since SIGTERM or SIGINT (agent_leave()): its name, for the
     * goodbyes; 'leave_late' ends the loop AGENT_LEAVE_S after it,
     * whatever is left. */
    const char *leaving;
    struct event *leave_late;
    /* Wakes when the wall clock leaves the span the connections up are
     * judged good in (a CRL of a->ssl going stale, a peer chain
     * expiring, a clock set back before a CRL's last update or a
     * chain's notBefore), and every LR_TLS_CRL_RECHECK_S meanwhile; not
     * pending with no connection up, CRL or not: the connections up
     * are judged again then (on_crl_next()).  SIGHUP arms it anew
     * (agent_crl_arm()). */
    struct event *crl_next;
    struct lr_tls_span crl_span;  /* armed over; { 0 }: none */
    struct lr_agent_config cfg;
    struct lr_cluster *cluster;   /* the one-DC inventory */
    FILE *record;
    int delay_ms;
    int delay_commit_ms;          /* --delay-commit-ms; 0: as delay_ms */
    int frame_s;                  /* --frame-timeout */
    int idle_s;                   /* --idle-timeout */
    double max_cells;             /* --max-step-cells; 0: no bound */
    double max_bytes;             /* --max-cache-bytes; 0: no bound */
    double max_total;             /* --max-total-cache-bytes; 0: none */
    double cache_bytes;           /* the connections' 'bytes', summed */
    int device_step;              /* --device-step; 0: automatic */
    const char *state_dir;
    const char *config;           /* --config, read again on SIGHUP for
                                   * its predecessors (on_hup()) */
    int state_fd;                 /* --state-dir, locked; -1: none */
    struct lr_agent_store *store; /* its writer; NULL without one */
    int delay_save_ms;            /* --delay-save-ms */
    struct ly_ctx *ly;            /* for the reservations file */
    int port;
    int n_conns;
    struct conn *conns;
    struct lr_worker *workers[AGENT_MAX_THREADS];
    int n_workers;
    /* Requests taken back unrun at SIGTERM or SIGINT, their
     * connections told so (agent_leave(); the loop's). */
    int taken;
    /* The workers are being freed: requests still queued, not taken
     * back, are dropped unrun (read by the workers); 'dropped' counts
     * them.  Each request never run is in one of the two counts. */
    atomic_bool stopping;
    atomic_int dropped;
    /* The loop's buffers: a request is decoded into them, and answered
     * from 'frame', on the loop only. */
    struct lr_layer *layers;      /* LR_MODEL_MAX_LAYERS */
    char (*tags)[LR_WIRE_NAME_MAX];   /* LR_WIRE_KEEP_MAX */
    struct lr_cdynp_summary *in;
    uint8_t *frame;               /* an encoded answer */
    /* What COMMIT reserved, by tag; a JOB plans over the rest.  Kept in
     * --state-dir's reservations.json across restarts; without one, in
     * memory only: an agent that restarts forgets it, and a RELEASE of
     * a forgotten tag answers ENOENT. */
    struct commitment {
        char owner[LR_NAME_MAX];  /* the committing peer's certificate
                                   * name: tags are its own */
        char tag[LR_WIRE_NAME_MAX];
        int devices;
        uint64_t serial;          /* this agent's own, from 1: which one a
                                   * failed save undoes */
    } *commits;
    int n_commits, cap_commits;
    uint64_t serials;             /* the last serial given */
    int reserved;                 /* devices, the sum over commits */
};

/* The largest answer: a STEP_OK with a full summary. */
#define AGENT_FRAME (64 + 32 * (size_t) LR_CDYNP_MAX_ENTRIES)

static void
alog(const struct agent *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
alog(const struct agent *a, const char *fmt, ...)
{
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    va_list va;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(stderr, "%s lightrail agent %s: ", ts, a->cfg.dc);
    va_start(va, fmt);
    vfprintf(stderr, fmt, va);
    va_end(va);
    fputc('\n', stderr);
}

/* ---- connections ---- */

/* Seconds on the monotonic clock: what the connections' silences are
 * compared by. */
static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Counts what c's job's DP caches reserve into c->bytes and its share
 * of a->cache_bytes, on the loop while no worker runs c's request: the
 * total is summed from these, so that counting it never reads a party
 * a worker is changing.  A request running elsewhere meanwhile is
 * counted once it is done. */
static void
conn_count_bytes(struct conn *c)
{
    double now = c->party ? lr_cdynp_local_party_bytes(c->party) : 0;
    c->a->cache_bytes += now - c->bytes;
    c->bytes = now;
}

/* Ends the connection's job, logging what its DP caches held and its
 * largest request (what --max-cache-bytes and --max-step-cells are to
 * be sized by; the log only: both tell N). */
static void
conn_drop_job(struct conn *c)
{
    if (c->party) {
        alog(c->a, "%s: job %u: ended, its DP caches held %.3g bytes, its "
             "largest request %.3g cells of local DP", c->peer, c->job,
             lr_cdynp_local_party_bytes(c->party), c->top_cells);
        c->party->cls->free(c->party);
    }
    c->top_cells = 0;
    lr_tm_free(c->tm);
    lr_model_free(c->model);
    c->party = NULL;
    c->tm = NULL;
    c->model = NULL;
    c->has_job = false;
    conn_count_bytes(c);
}

/* Closes 'c' and frees it, or, while a worker runs its request, closes
 * it and leaves the rest to conn_work_done(). */
static void
conn_free(struct conn *c)
{
    struct agent *a = c->a;
    if (!c->gone) {
        if (c->delay)
            event_free(c->delay);
        if (c->handshake)
            event_free(c->handshake);
        if (c->frame_late)
            event_free(c->frame_late);
        if (c->idle)
            event_free(c->idle);
        if (c->held)
            evbuffer_free(c->held);
        if (c->bev)
            bufferevent_free(c->bev);
        c->delay = c->handshake = c->frame_late = c->idle = NULL;
        c->held = NULL;
        c->bev = NULL;
        if (c->prev)
            c->prev->next = c->next;
        else
            a->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        c->gone = true;
        /* The last told since SIGTERM (agent_leave()): the agent ends. */
        if (a->leaving && !a->conns)
            event_base_loopexit(a->base, NULL);
    }
    if (c->busy)
        return;   /* its party and buffers are the worker's */
    /* Counted until now, so that connections closed with a request
     * running still take their place under AGENT_MAX_CONNS. */
    a->n_conns--;
    conn_drop_job(c);
    free(c->in);
    free(c->out);
    free(c->plan);
    free(c);
}

static void conn_read(struct bufferevent *bev, void *arg);

static void conn_idle_restart(struct conn *c);

/* Queues the answer in a->frame[0..n) now or after 'delay_ms'. */
static void
conn_answer_after(struct conn *c, size_t n, int delay_ms)
{
    struct agent *a = c->a;
    if (delay_ms <= 0) {
        bufferevent_write(c->bev, a->frame, n);
        conn_idle_restart(c);
        return;
    }
    /* Reading pauses while an answer is held, so that answers keep the
     * order of their requests. */
    evbuffer_add(c->held, a->frame, n);
    bufferevent_disable(c->bev, EV_READ);
    struct timeval tv = { delay_ms / 1000, (delay_ms % 1000) * 1000 };
    evtimer_add(c->delay, &tv);
}

/* Queues the answer in a->frame[0..n) now or after --delay-ms. */
static void
conn_answer(struct conn *c, size_t n)
{
    conn_answer_after(c, n, c->a->delay_ms);
}

static void
conn_delay_done(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    bufferevent_write_buffer(c->bev, c->held);
    conn_idle_restart(c);
    bufferevent_enable(c->bev, EV_READ);
    /* Requests that arrived meanwhile are already in the input. */
    conn_read(c->bev, c);
}

/* The longest piece of a message one 'sent' line carries: journald
 * splits a line past its LineMax (48 KiB by default) into lines that no
 * longer say whose they are, and a full STEP_OK is about 70 KB as JSON
 * (LR_CDYNP_MAX_ENTRIES entries of three %.17g numbers). */
#define AGENT_LOG_PART 16384

/* The length of the longest prefix of text[0..len) of at most 'max'
 * bytes that ends at a character: a piece cut inside a UTF-8 character
 * (an error text's) would be no text. */
static size_t
log_cut(const char *text, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char) text[n] & 0xc0) == 0x80)
        n--;
    return n ? n : max;
}

/* Logs a message longer than AGENT_LOG_PART (text[0..len), its JSON) as
 * a head line, with its type, id, length and SHA-256, then its pieces in
 * order, "sent part I/N PIECE", each a line: joined without separators
 * they are the message, whose digest the head gives. */
static void
log_sent_parts(const struct conn *c, const struct lr_wire_msg *m,
               const char *text, size_t len)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    char hex[2 * EVP_MAX_MD_SIZE + 1] = "?";
    if (EVP_Digest(text, len, md, &md_len, EVP_sha256(), NULL) == 1)
        for (unsigned int i = 0; i < md_len; i++)
            snprintf(hex + 2 * i, 3, "%02x", md[i]);
    int parts = 0;
    for (size_t off = 0; off < len; parts++)
        off += log_cut(text + off, len - off, AGENT_LOG_PART);
    alog(c->a, "%s: sent %s %u in %d parts: %zu bytes, sha256 %s",
         c->peer, lr_wire_type_name(m->type), m->id, parts, len, hex);
    int i = 0;
    for (size_t off = 0; off < len; i++) {
        size_t n = log_cut(text + off, len - off, AGENT_LOG_PART);
        alog(c->a, "%s: sent part %d/%d %.*s", c->peer, i + 1, parts,
             (int) n, text + off);
        off += n;
    }
}

/* Logs the answer 'm' as sent to the peer of 'c': the message exactly,
 * in the form --record gives what a party receives (lr_agent_record()),
 * so that the operator reads in the log what left the DC (layer
 * indices, times, the aggregate compute, stage counts, error texts) and
 * that it is nothing more.  Before, only what the agent was asked (JOB,
 * the layouts) and its own figures were logged, never what it sent.
 * Past AGENT_LOG_PART bytes, in numbered pieces (log_sent_parts()). */
static void
log_sent(const struct conn *c, const struct lr_wire_msg *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lr_agent_record(f, m);
        if (fclose(f))
            len = 0;
    }
    if (text && len && text[len - 1] == '\n')
        text[--len] = '\0';
    if (!text || !len)
        alog(c->a, "%s: sent %s %u (out of memory to log it whole)",
             c->peer, lr_wire_type_name(m->type), m->id);
    else if (len <= AGENT_LOG_PART)
        alog(c->a, "%s: sent %s", c->peer, text);
    else
        log_sent_parts(c, m, text, len);
    free(text);
}

static void
conn_error(struct conn *c, uint32_t id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
conn_error(struct conn *c, uint32_t id, int code, const char *fmt, ...)
{
    struct lr_wire_msg m = { .type = LR_WIRE_ERROR, .id = id, .code = code };
    va_list va;
    va_start(va, fmt);
    vsnprintf(m.text, sizeof m.text, fmt, va);
    va_end(va);
    size_t n = lr_wire_encode(&m, c->a->frame, AGENT_FRAME);
    if (n) {
        log_sent(c, &m);
        conn_answer(c, n);
    }
}

/* The local DP cells request 'm' (a STEP, FINISH or COMMIT) would
 * update on c's party: 0 when its rows are computed already. */
static double
request_cells(const struct conn *c, const struct lr_wire_msg *m)
{
    const bool step = m->type == LR_WIRE_STEP;
    return lr_cdynp_local_party_work(
        c->party, m->objective, m->assumed,
        step && m->has_summary ? m->summary : NULL, step ? -1 : m->first,
        m->lo, step ? m->hi : m->last);
}

/* 'x' > 0 rounded up to two significant digits: printed with %.2g, a
 * value no smaller than 'x'. */
static double
ceil2(double x)
{
    double unit = pow(10, floor(log10(x)) - 1);
    return ceil(x / unit) * unit;
}

/* A STEP, FINISH or COMMIT whose local DP would exceed --max-step-cells
 * is answered E2BIG before any of it runs: one request may not hold the
 * loop that serves every coordinator.  What would serve it is said
 * where the bound is set: our log names the value (our operator sets
 * --max-step-cells), the answer sends the coordinator's operator there
 * (the value tells N, below), and both say that a larger bound is a
 * longer request, which the coordinators' timeout must cover. */
static bool
over_budget(struct conn *c, const struct lr_wire_msg *m, double cells)
{
    struct agent *a = c->a;
    if (!(a->max_cells > 0) || cells <= a->max_cells)
        return false;
    alog(a, "%s: job %u: %s refused: %.3g cells of local DP, over "
         "--max-step-cells %.3g: to serve it, run the agent with "
         "--max-step-cells %.2g or more (0: no bound) and give its "
         "coordinators a timeout (lightrail plan --timeout, lightraild's "
         "coordinator timeout) over the DP's time at that many cells",
         c->peer, c->job, lr_wire_type_name(m->type), cells, a->max_cells,
         ceil2(cells));
    /* The count stays in our log: it is rows x N (N + 1) / 2 for the
     * rows the coordinator chose, so it would tell it our free devices
     * N exactly (docs/privacy.md: no device count is sent), and even
     * rounded, within a few devices. */
    conn_error(c, m->id, E2BIG, "%s: over this agent's bound of %.3g cells "
               "of local DP: plan with a narrower --window, or ask the "
               "agent's operator for a larger --max-step-cells (its log "
               "names the value that serves this request) and raise your "
               "--timeout to match",
               lr_wire_type_name(m->type), a->max_cells);
    return true;
}

/* A STEP, FINISH or COMMIT that would compute rows while the caches of
 * all connections together reserve --max-total-cache-bytes or more is
 * answered ENOBUFS before it runs: --max-cache-bytes bounds one
 * connection, and 64 connections (16 of one coordinator) could hold 64
 * times it.  The coordinator is told it is the agent's load, not its
 * own connection's; the figures stay in our log (the other
 * coordinators' rows, which tell their plans' sizes). */
static bool
over_total(struct conn *c, const struct lr_wire_msg *m)
{
    struct agent *a = c->a;
    if (!(a->max_total > 0) || a->cache_bytes < a->max_total)
        return false;
    alog(a, "%s: job %u: %s refused: the DP caches of all %d connections "
         "hold %.3g bytes (this one %.3g), at --max-total-cache-bytes "
         "%.3g", c->peer, c->job, lr_wire_type_name(m->type), a->n_conns,
         a->cache_bytes, c->bytes, a->max_total);
    conn_error(c, m->id, ENOBUFS, "%s: the DP caches of all this agent's "
               "connections are at its bound of %.3g bytes: plan again "
               "later (other plans' caches go as their jobs end), close "
               "connections whose jobs are done, or have the agent run "
               "with a larger --max-total-cache-bytes",
               lr_wire_type_name(m->type), a->max_total);
    return true;
}

/* A STEP, FINISH or COMMIT that would compute rows ('cells' > 0) while
 * the connection's caches hold --max-cache-bytes or more is answered
 * ENOBUFS before it runs: each request's rows are bounded, their total
 * was not, and one coordinator could run the agent out of memory.  A
 * request answered from the rows computed still is served, so that a
 * plan whose chains are done can still be finished and committed.  The
 * caches can pass the bound by what one request reserves (checked
 * before it runs, not before its allocations): not its rows alone, as a
 * start's room doubles (one row more on a start of R reserves R), but
 * at most 64 x --max-step-cells / N bytes (each row reserved costs at
 * least N (N + 1) / 2 cells); the total (over_total()) by that much per
 * request running.  Refusing before the allocation would need a second
 * model of the planner's allocator: docs/agent-protocol.md, "How far a
 * bound is passed". */
static bool
over_memory(struct conn *c, const struct lr_wire_msg *m, double cells)
{
    struct agent *a = c->a;
    if (!(cells > 0))
        return false;
    if (over_total(c, m))
        return true;
    double held = c->bytes;
    if (!(a->max_bytes > 0) || held < a->max_bytes)
        return false;
    alog(a, "%s: job %u: %s refused: its DP caches hold %.3g bytes, at "
         "--max-cache-bytes %.3g", c->peer, c->job,
         lr_wire_type_name(m->type), held, a->max_bytes);
    /* The bytes held stay in our log: the rows are the coordinator's
     * choice, 32 (N + 1) bytes each, so they would tell it N. */
    conn_error(c, m->id, ENOBUFS, "%s: this connection's DP caches are at "
               "this agent's bound of %.3g bytes: send JOB again (it "
               "starts them afresh) or plan on a new connection, or have "
               "the agent run with a larger --max-cache-bytes",
               lr_wire_type_name(m->type), a->max_bytes);
    return true;
}

/* JOB: the model and training shape over our inventory. */
static int
do_job(struct conn *c, const struct lr_wire_msg *m, char *why, size_t len)
{
    struct agent *a = c->a;
    struct lr_model *model = NULL;
    struct lr_tm *tm = NULL;
    struct lr_cdynp_party *party = NULL;
    int rc = lr_model_from_layers("job", m->layers, m->n_layers, &model);
    if (rc) {
        snprintf(why, len, "job %u: its layers are not a model (a layer "
                 "without FLOPs?)", m->job);
        goto fail;
    }
    struct lr_train tr = { m->batch, m->micro, m->elem_bytes };
    if ((rc = lr_tm_new(model, a->cluster, &tr, &tm))) {
        snprintf(why, len, "job %u: batch %g over microbatch %g is not a "
                 "whole number of microbatches from 1 to %d", m->job,
                 m->batch, m->micro, LR_TM_MAX_MICROBATCHES);
        goto fail;
    }
    /* The devices no committed job holds. */
    tm->dcs[0].n_devices = a->cfg.n_devices - a->reserved;
    if (!(party = lr_cdynp_local_party_new(tm, 0))) {
        rc = ENOMEM;
        snprintf(why, len, "out of memory");
        goto fail;
    }
    lr_cdynp_local_party_set_step(party, a->device_step);
    conn_drop_job(c);
    c->model = model;
    c->tm = tm;
    c->party = party;
    c->job = m->job;
    c->has_job = true;
    conn_count_bytes(c);
    alog(a, "%s: job %u: %d layers, batch %g, microbatch %g (%d of %d "
         "devices free)", c->peer, m->job, m->n_layers, m->batch, m->micro,
         a->cfg.n_devices - a->reserved, a->cfg.n_devices);
    return 0;

fail:
    lr_tm_free(tm);
    lr_model_free(model);
    return rc;
}

/* Logs the layout a FINISH or COMMIT found (c->plan).  The coordinator
 * finishes every chain it tries: a FINISH is a candidate, logged as such;
 * the one that won comes as COMMIT. */
static void
log_layout(struct conn *c, const struct lr_wire_msg *m)
{
    char line[1024];
    size_t off = 0;
    for (int s = 0; s < c->plan->n_stages && off < sizeof line; s++) {
        const struct lr_stage *st = &c->plan->stages[s];
        int w = snprintf(line + off, sizeof line - off, "%s%d-%d x%d",
                         s ? ", " : "", st->first + 1, st->last + 1, st->g);
        off += w > 0 ? (size_t) w : 0;
    }
    alog(c->a, "%s: job %u: %s layers %d-%d (%s, assuming %d stages): "
         "%d stage(s): %s", c->peer, c->job,
         m->type == LR_WIRE_COMMIT ? "commit" : "candidate", m->first + 1,
         m->last + 1, lr_wire_objective_name(m->objective), m->assumed,
         c->n_stages, line);
}

/* What 'owner' committed under 'tag': each coordinator its own tags, so
 * that none can release (or block) another's. */
static struct commitment *
find_commit(struct agent *a, const char *owner, const char *tag)
{
    for (int i = 0; i < a->n_commits; i++)
        if (!strcmp(a->commits[i].tag, tag)
            && !strcmp(a->commits[i].owner, owner))
            return &a->commits[i];
    return NULL;
}

/* EEXIST, with why[len] saying so, when the peer of 'c' holds the tag
 * of COMMIT 'm' already; else 0. */
static int
committed_already(struct conn *c, const struct lr_wire_msg *m, char *why,
                  size_t len)
{
    if (!find_commit(c->a, c->owner, m->name))
        return 0;
    snprintf(why, len, "commit: '%s' is committed already: release it "
             "first", m->name);
    return EEXIST;
}

/* ---- reservations kept across restarts (--state-dir) ---- */

/* a->commits as the text of reservations.json (lightrail-agent
 * reservations, YANG JSON) in '*text' (malloc'ed, the caller's).  0, or
 * an errno with why[]. */
static int
reservations_text(const struct agent *a, char **text, char *why, size_t len)
{
    struct lr_agent_reservation *r = calloc((size_t) a->n_commits + 1,
                                            sizeof *r);
    char err[512];
    *text = NULL;
    if (!r) {
        snprintf(why, len, "reservations not saved: out of memory");
        return ENOMEM;
    }
    for (int i = 0; i < a->n_commits; i++) {
        snprintf(r[i].owner, sizeof r[i].owner, "%s", a->commits[i].owner);
        snprintf(r[i].tag, sizeof r[i].tag, "%s", a->commits[i].tag);
        r[i].devices = a->commits[i].devices;
    }
    int rc = lr_yang_reservations_print(a->ly, r, a->n_commits, text, err,
                                        sizeof err);
    free(r);
    if (rc)
        snprintf(why, len, "reservations not saved: %s",
                 LR_UTF8_CLIP(err, 160));
    return rc;
}

/* Reads --state-dir's reservations.json, when there is one, into
 * a->commits: what the COMMITs of before a restart reserved.  0, or
 * an errno with err[] (a file that does not validate, reserves more
 * devices than the inventory has, or cannot be read: the agent will not
 * start on it). */
static int
restore_reservations(struct agent *a, char *err, size_t len)
{
    char path[4096];
    if (!a->state_dir)
        return 0;
    struct lr_agent_reservation *r;
    int n;
    bool found;
    int rc = lr_agent_store_load(a->ly, a->state_dir, &r, &n, &found, path,
                                 sizeof path, err, len);
    if (rc || !found)
        return rc;
    /* Summed in 64 bits: the schema allows a million devices an entry,
     * and any number of entries. */
    long long sum = 0;
    for (int i = 0; i < n; i++)
        sum += r[i].devices;
    if (sum > a->cfg.n_devices) {
        snprintf(err, len, "%s: %lld devices reserved, more than the %d of "
                 "the inventory: restore the inventory, or free some (lightrail "
                 "reservations --state-dir %s lists them, --release OWNER "
                 "[--tag TAG] frees them; the coordinator's jobs then hold "
                 "nothing here)", path, sum, a->cfg.n_devices, a->state_dir);
        free(r);
        return EINVAL;
    }
    if (n && !(a->commits = calloc((size_t) n, sizeof *a->commits))) {
        free(r);
        snprintf(err, len, "out of memory");
        return ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        snprintf(a->commits[i].owner, sizeof a->commits[i].owner, "%s",
                 r[i].owner);
        snprintf(a->commits[i].tag, sizeof a->commits[i].tag, "%s",
                 r[i].tag);
        a->commits[i].devices = r[i].devices;
        a->commits[i].serial = ++a->serials;
    }
    a->n_commits = a->cap_commits = n;
    a->reserved = (int) sum;
    free(r);
    alog(a, "restored %d reservation(s) from %s: %d of %d devices free", n,
         path, a->cfg.n_devices - a->reserved, a->cfg.n_devices);
    return 0;
}

/* COMMIT, once a worker has laid out our stages again (c->plan, from
 * the caches of FINISH): reserves their devices under the tag, as
 * commitment '*serial'.  The tag is checked again here: another
 * connection of the same coordinator may have committed it while this
 * one's layout ran.  Answered once saved (persist()). */
static int
do_commit(struct conn *c, const struct lr_wire_msg *m, uint64_t *serial,
          char *why, size_t len)
{
    struct agent *a = c->a;
    int rc = committed_already(c, m, why, len);
    if (rc)
        return rc;
    if (c->rc) {
        snprintf(why, len, "commit: %s", c->rc == ENOENT
                 ? "no feasible layout of these layers"
                 : c->rc == EOVERFLOW ? lr_tm_why_str(LR_TM_STAGES)
                                      : strerror(c->rc));
        return c->rc;
    }
    log_layout(c, m);
    int devices = 0;
    for (int s = 0; s < c->plan->n_stages; s++)
        devices += c->plan->stages[s].g;
    if (a->reserved + devices > a->cfg.n_devices) {
        snprintf(why, len, "commit '%s': its stages need devices another "
                 "job committed meanwhile: plan again", m->name);
        return ENOSPC;
    }
    if (a->n_commits == a->cap_commits) {
        int cap = a->cap_commits ? 2 * a->cap_commits : 16;
        struct commitment *n = realloc(a->commits, (size_t) cap * sizeof *n);
        if (!n) {
            snprintf(why, len, "out of memory");
            return ENOMEM;
        }
        a->commits = n;
        a->cap_commits = cap;
    }
    struct commitment *k = &a->commits[a->n_commits++];
    snprintf(k->owner, sizeof k->owner, "%s", c->owner);
    snprintf(k->tag, sizeof k->tag, "%s", m->name);
    k->devices = devices;
    k->serial = *serial = ++a->serials;
    a->reserved += devices;
    return 0;
}

/* Undoes commitment 'serial' (its save failed), if a RELEASE or KEEP has
 * not freed it meanwhile. */
static void
undo_commit(struct agent *a, uint64_t serial)
{
    for (int i = 0; i < a->n_commits; i++) {
        struct commitment *k = &a->commits[i];
        if (k->serial != serial)
            continue;
        a->reserved -= k->devices;
        alog(a, "'%s' not committed, its reservation not saved: %d "
             "device(s) free again, %d of %d free", k->tag, k->devices,
             a->cfg.n_devices - a->reserved, a->cfg.n_devices);
        *k = a->commits[--a->n_commits];
        return;
    }
}

/* KEEP: frees what this coordinator committed under any tag but those
 * listed (it holds no other job here: it restarted, or a RELEASE was
 * lost).  The number of commitments freed. */
static int
do_keep(struct conn *c, const struct lr_wire_msg *m)
{
    struct agent *a = c->a;
    int released = 0;
    for (int i = 0; i < a->n_commits;) {
        struct commitment *k = &a->commits[i];
        bool kept = strcmp(k->owner, c->owner) != 0;
        for (int t = 0; !kept && t < m->n_tags; t++)
            kept = !strcmp(k->tag, m->tags[t]);
        if (kept) {
            i++;
            continue;
        }
        a->reserved -= k->devices;
        alog(a, "%s: '%s' released, not kept by the coordinator: %d "
             "device(s), %d of %d free", c->peer, k->tag, k->devices,
             a->cfg.n_devices - a->reserved, a->cfg.n_devices);
        *k = a->commits[--a->n_commits];
        released++;
    }
    alog(a, "%s: keep %d tag(s): %d released", c->peer, m->n_tags,
         released);
    return released;
}

/* RELEASE: frees what COMMIT reserved under the tag. */
static int
do_release(struct conn *c, const struct lr_wire_msg *m, char *why,
           size_t len)
{
    struct agent *a = c->a;
    struct commitment *k = find_commit(a, c->owner, m->name);
    if (!k) {
        snprintf(why, len, "release: nothing is committed under '%s' by "
                 "this coordinator", m->name);
        return ENOENT;
    }
    a->reserved -= k->devices;
    alog(a, "%s: '%s' released: %d device(s), %d of %d free", c->peer,
         m->name, k->devices, a->cfg.n_devices - a->reserved,
         a->cfg.n_devices);
    *k = a->commits[--a->n_commits];
    return 0;
}

/* Queues the answer 'ans' to c->req or a request of the loop's. */
static void
conn_send(struct conn *c, const struct lr_wire_msg *ans)
{
    struct agent *a = c->a;
    size_t n = lr_wire_encode(ans, a->frame, AGENT_FRAME);
    if (!n) {
        conn_error(c, ans->id, EINVAL, "cannot encode the %s answer",
                   lr_wire_type_name(ans->type));
        return;
    }
    log_sent(c, ans);
    /* --delay-commit-ms: the devices are reserved now, the coordinator
     * hears of it late (or never, past its timeout). */
    conn_answer_after(c, n, ans->type == LR_WIRE_FINISH_OK
                            && c->req.type == LR_WIRE_COMMIT
                            && a->delay_commit_ms > 0
                            ? a->delay_commit_ms : a->delay_ms);
}

/* ---- answers that wait for the reservations to be saved ---- */

static void persist(struct agent *a, struct conn *c, uint64_t commit);

/* The save c->req waited for is done ('rc', 'why'): answers it.  A
 * COMMIT whose save failed is undone and refused; the file may then hold
 * it (saves queued after it hold it too), so a save of the state without
 * it follows.  A RELEASE or KEEP is answered OK either way: its devices
 * are free here, and a file that still holds them after a restart holds
 * them until the coordinator's KEEP (the safe side). */
static void
saved_answer(struct conn *c, int rc, const char *why)
{
    struct agent *a = c->a;
    const struct lr_wire_msg *m = &c->req;
    if (rc && c->commit) {
        undo_commit(a, c->commit);
        persist(a, NULL, 0);
    }
    if (rc && m->type == LR_WIRE_KEEP)
        alog(a, "%s: KEEP: %s", c->peer, why);
    else if (rc)
        alog(a, "%s: %s '%s': %s", c->peer, lr_wire_type_name(m->type),
             m->name, why);
    if (c->gone || atomic_load(&a->stopping))
        return;
    if (rc && c->commit) {
        /* EIO whatever the cause: ENOENT, ENOSPC or EEXIST (a state
         * directory removed, a full disk) mean other things to the
         * coordinator (docs/agent-protocol.md, "Errors"); the text
         * says what happened. */
        conn_error(c, m->id, EIO, "commit '%.63s': %s", m->name,
                   LR_UTF8_CLIP(why, 180));
        return;
    }
    struct lr_wire_msg ans = { .id = m->id, .type = LR_WIRE_OK };
    if (c->commit) {
        alog(a, "%s: '%s' committed: %d of %d devices free", c->peer,
             m->name, a->cfg.n_devices - a->reserved, a->cfg.n_devices);
        ans.type = LR_WIRE_FINISH_OK;
        ans.n_stages = c->n_stages;
    }
    conn_send(c, &ans);
}

/* The store's 'done' for a save a request waits for: answer it and read
 * on (or free a connection closed meanwhile). */
static void
conn_saved(void *cookie, int rc, const char *why)
{
    struct conn *c = cookie;
    c->busy = false;
    saved_answer(c, rc, why);
    if (c->gone) {
        conn_free(c);
        return;
    }
    if (atomic_load(&c->a->stopping) || c->closing
        || evtimer_pending(c->delay, NULL))
        return;   /* conn_delay_done reads on */
    bufferevent_enable(c->bev, EV_READ);
    conn_read(c->bev, c);
}

/* The store's 'done' for a save no request waits for. */
static void
agent_saved(void *cookie, int rc, const char *why)
{
    if (rc)
        alog(cookie, "%s", why);
}

/* Hands a->commits to the store, and c's request (c->req: a COMMIT of
 * commitment 'commit', or a RELEASE or KEEP with commit 0) its answer
 * once written; reading pauses meanwhile.  Without --state-dir, or when
 * the save cannot be queued, answers now.  'c' NULL: no request waits.
 * A save that cannot be queued is a failed one, never written here: the
 * saves queued before it would land after it, an older state renamed
 * over this one (a COMMIT answered, then gone from the file), and the
 * writer's temporary file shared. */
static void
persist(struct agent *a, struct conn *c, uint64_t commit)
{
    char *text = NULL, why[LR_WIRE_TEXT_MAX - 64] = "";
    int rc = 0;
    if (c)
        c->commit = commit;
    if (a->store) {
        rc = reservations_text(a, &text, why, sizeof why);
        if (!rc && !lr_agent_store_save(a->store, text,
                                        c ? conn_saved : agent_saved,
                                        c ? (void *) c : (void *) a)) {
            if (c) {
                c->busy = true;
                bufferevent_disable(c->bev, EV_READ);
            }
            return;
        }
        if (!rc) {
            rc = ENOMEM;
            snprintf(why, sizeof why, "reservations not saved: out of "
                     "memory to queue the save");
        }
        free(text);
    }
    if (c)
        saved_answer(c, rc, why);
    else
        agent_saved(a, rc, why);
}

/* At revision 2, each entry of the STEP just run (c->out) gets its
 * predecessor, what a BACKTRACK from it would answer, so that the
 * coordinator need not ask (docs/agent-protocol.md, "Predecessors in
 * STEP_OK").  Layer indices only, of the predecessor's own summary;
 * under objectives 4 and 5 none (their counts would say each entry's
 * own stage count).  0, or the backtrack's error (none expected: every
 * entry is of this STEP's window). */
static int
conn_step_prev(struct conn *c)
{
    const struct lr_wire_msg *m = &c->req;
    struct lr_cdynp_summary *out = c->out;
    out->has_prev = 0;
    if (c->revision < LR_WIRE_REVISION_PREV
        || lr_cdynp_obj_bound(m->objective))
        return 0;
    for (int i = 0; i < out->n; i++) {
        int prev, prev_stages;
        int rc = c->party->cls->backtrack(c->party, m->objective, m->assumed,
                                          (int) out->e[i].layer, 0, &prev,
                                          &prev_stages);
        if (rc)
            return rc;
        out->e[i].prev_last = (int16_t) prev;
    }
    out->has_prev = 1;
    return 0;
}

/* The DP of c->req, on a worker (or on the loop when none could take
 * it): touches only the connection's party and buffers. */
static void
conn_work_run(void *arg)
{
    struct conn *c = arg;
    const struct lr_wire_msg *m = &c->req;
    struct lr_cdynp_party *p = c->party;
    int queued = 1;
    if (!atomic_compare_exchange_strong(&c->queued, &queued, 0)) {
        /* Taken back at SIGTERM (conn_unqueue()), counted there. */
        c->rc = ECANCELED;
        return;
    }
    if (atomic_load(&c->a->stopping)) {
        atomic_fetch_add(&c->a->dropped, 1);
        c->rc = ECANCELED;   /* its answer is dropped too */
        return;
    }
    switch (m->type) {
    case LR_WIRE_STEP:
        c->rc = p->cls->step(p, m->objective, m->assumed,
                             m->has_summary ? m->summary : NULL,
                             m->has_summary ? &m->link : NULL,
                             (uint16_t) m->position, m->lo, m->hi, c->out);
        if (!c->rc)
            c->rc = conn_step_prev(c);
        break;
    case LR_WIRE_BACKTRACK:
        c->rc = p->cls->backtrack(p, m->objective, m->assumed, m->last,
                                  m->stages, &c->prev_last,
                                  &c->prev_stages);
        break;
    default:   /* FINISH, COMMIT: the layout */
        c->plan->n_stages = 0;
        c->rc = p->cls->finish(p, m->objective, m->assumed, m->first,
                               m->last, m->stages, 0, c->plan,
                               &c->n_stages);
        break;
    }
}

/* Answers c->req from what conn_work_run() found, on the loop. */
static void
conn_work_answer(struct conn *c)
{
    const struct lr_wire_msg *m = &c->req;
    struct lr_wire_msg ans = { .id = m->id };
    char why[LR_WIRE_TEXT_MAX];
    int rc = c->rc;
    conn_count_bytes(c);
    if (m->type == LR_WIRE_COMMIT) {
        uint64_t serial = 0;
        if ((rc = do_commit(c, m, &serial, why, sizeof why)))
            conn_error(c, m->id, rc, "%s", why);
        else
            persist(c->a, c, serial);   /* answers once saved */
        return;
    } else if (m->type == LR_WIRE_FINISH && !rc) {
        log_layout(c, m);
    }
    if (rc) {
        conn_error(c, m->id, rc, "%s: %s", lr_wire_type_name(m->type),
                   rc == ENOENT ? "no feasible layer in the window"
                   : rc == EOVERFLOW ? lr_tm_why_str(LR_TM_STAGES)
                                     : strerror(rc));
        return;
    }
    if (m->type == LR_WIRE_STEP) {
        ans.type = LR_WIRE_STEP_OK;
        ans.has_summary = 1;
        ans.summary = c->out;
    } else if (m->type == LR_WIRE_BACKTRACK) {
        ans.type = LR_WIRE_BACKTRACK_OK;
        ans.prev_last = c->prev_last;
        /* The count goes back exactly when it was asked with one. */
        ans.has_stages = lr_cdynp_obj_bound(m->objective);
        ans.prev_stages = c->prev_stages;
    } else {   /* FINISH */
        ans.type = LR_WIRE_FINISH_OK;
        ans.n_stages = c->n_stages;
    }
    conn_send(c, &ans);
}

/* A worker is done with c->req: answer it and read on (or free a
 * connection closed meanwhile). */
static void
conn_work_done(void *cookie, void *arg)
{
    struct conn *c = arg;
    (void) cookie;
    c->busy = false;
    if (c->gone || atomic_load(&c->a->stopping)) {
        if (c->gone)
            conn_free(c);
        return;
    }
    if (c->closing)
        return;   /* taken back unrun at SIGTERM, told so, being flushed */
    conn_work_answer(c);
    if (c->busy || c->closing || evtimer_pending(c->delay, NULL))
        return;   /* conn_saved or conn_delay_done reads on */
    bufferevent_enable(c->bev, EV_READ);
    conn_read(c->bev, c);
}

/* Hands a STEP, BACKTRACK, FINISH or COMMIT ('m', in the loop's decode
 * buffers) to the least busy worker, with a copy of what it needs;
 * reading pauses until it is done.  Runs it here when no worker can take
 * it. */
static void
conn_work(struct conn *c, const struct lr_wire_msg *m)
{
    struct agent *a = c->a;
    if (!c->in) {
        c->in = malloc(sizeof *c->in);
        c->out = malloc(sizeof *c->out);
        c->plan = malloc(sizeof *c->plan);
    }
    if (!c->in || !c->out || !c->plan) {
        free(c->in);
        free(c->out);
        free(c->plan);
        c->in = c->out = NULL;
        c->plan = NULL;
        conn_error(c, m->id, ENOMEM, "%s: out of memory",
                   lr_wire_type_name(m->type));
        return;
    }
    c->req = *m;
    c->req.layers = NULL;
    c->req.layers_cap = 0;
    c->req.summary = c->in;
    if (m->has_summary)
        memcpy(c->in, m->summary, offsetof(struct lr_cdynp_summary, e)
                                  + m->summary->n * sizeof m->summary->e[0]);
    struct lr_worker *w = NULL;
    for (int i = 0; i < a->n_workers; i++)
        if (!w || lr_worker_pending(a->workers[i]) < lr_worker_pending(w))
            w = a->workers[i];
    c->busy = true;
    atomic_store(&c->queued, 1);
    if (w && !lr_worker_push_fn(w, conn_work_run, c, conn_work_done, a)) {
        bufferevent_disable(c->bev, EV_READ);
        return;
    }
    conn_work_run(c);
    c->busy = false;
    conn_work_answer(c);
}

/* The highest protocol revision this agent speaks: the operator's
 * choice (lightrail-agent's leaf predecessors), since revision 2's
 * predecessors tell the coordinator this DC's own cost of every entry's
 * range.  Without them revision 1, whose BACKTRACKs the coordinator
 * asks instead: the same plan. */
static int
agent_revision(const struct agent *a)
{
    return a->cfg.predecessors ? LR_WIRE_REVISION
                               : LR_WIRE_REVISION_PREV - 1;
}

static void conn_refuse(struct conn *c, int code, const char *what);

/* One decoded request; queues its answer, or hands it to a worker. */
static void
conn_handle(struct conn *c, const struct lr_wire_msg *m)
{
    struct agent *a = c->a;
    struct lr_wire_msg ans = { .id = m->id };
    char why[LR_WIRE_TEXT_MAX];
    int rc = 0;

    /* Its HELLO agreed a revision above the one this agent speaks since
     * a SIGHUP read predecessors false (on_hup()): its STEP_OKs would
     * carry what the operator now withholds, and without them it would
     * speak another revision than agreed, which its coordinator takes
     * for a fault.  Closed, saying so as when it makes room
     * (peer_at_limit()): the coordinator connects again (a plan is run
     * again from its start) and is answered the revision spoken now.
     * A HELLO agrees a revision anew; RELEASE and KEEP carry none. */
    if (c->revision > agent_revision(a) && m->type != LR_WIRE_HELLO
        && m->type != LR_WIRE_RELEASE && m->type != LR_WIRE_KEEP) {
        snprintf(why, sizeof why, "closed: this connection agreed "
                 "protocol revision %d at its HELLO, and this agent "
                 "speaks %d since SIGHUP read its predecessors false "
                 "(none in STEP_OK): connect again", c->revision,
                 agent_revision(a));
        conn_refuse(c, ECONNABORTED, why);
        return;
    }

    switch (m->type) {
    case LR_WIRE_HELLO:
        ans.type = LR_WIRE_HELLO_OK;
        ans.compute = a->cfg.n_devices * a->cfg.peak_flops
                      * a->cfg.efficiency;
        snprintf(ans.name, sizeof ans.name, "%s", a->cfg.dc);
        /* A coordinator from before 2026-12-07 names no revision and is
         * answered as before; one that names a revision is told the
         * lesser of its and ours, which this connection speaks. */
        c->revision = 1;
        if (m->revision) {
            int ours = agent_revision(a);
            c->revision = m->revision < ours ? m->revision : ours;
            ans.revision = c->revision;
        }
        break;
    case LR_WIRE_JOB:
        if ((rc = do_job(c, m, why, sizeof why))) {
            conn_error(c, m->id, rc, "%s", why);
            return;
        }
        ans.type = LR_WIRE_OK;
        break;
    case LR_WIRE_RELEASE:
    case LR_WIRE_KEEP:
        if (m->type == LR_WIRE_RELEASE
            && (rc = do_release(c, m, why, sizeof why))) {
            conn_error(c, m->id, rc, "%s", why);
            return;
        }
        if (m->type == LR_WIRE_KEEP && !do_keep(c, m)) {
            ans.type = LR_WIRE_OK;   /* nothing to save */
            break;
        }
        c->req.type = m->type;
        c->req.id = m->id;
        snprintf(c->req.name, sizeof c->req.name, "%s", m->name);
        persist(a, c, 0);   /* answers once saved */
        return;
    case LR_WIRE_STEP:
    case LR_WIRE_BACKTRACK:
    case LR_WIRE_FINISH:
    case LR_WIRE_COMMIT:
        if (!c->has_job || m->job != c->job) {
            conn_error(c, m->id, ESRCH, "job %u is not this connection's "
                       "job: send JOB first", m->job);
            return;
        }
        if (m->type == LR_WIRE_COMMIT
            && (rc = committed_already(c, m, why, sizeof why))) {
            conn_error(c, m->id, rc, "%s", why);
            return;
        }
        if (m->type != LR_WIRE_BACKTRACK) {
            double cells = request_cells(c, m);
            if (over_budget(c, m, cells) || over_memory(c, m, cells))
                return;
            if (cells > c->top_cells)
                c->top_cells = cells;
        }
        conn_work(c, m);
        return;
    default:
        conn_error(c, m->id, EPROTO, "%s is an answer, not a request",
                   lr_wire_type_name(m->type));
        return;
    }
    conn_send(c, &ans);
}

/* Ends a connection whose peer broke the framing: an ERROR saying why,
 * then close once it is flushed. */
static void
conn_refuse(struct conn *c, int code, const char *what)
{
    alog(c->a, "%s: %s (%s): connection closed", c->peer, what,
         strerror(code));
    bufferevent_disable(c->bev, EV_READ);
    c->closing = true;
    struct lr_wire_msg m = { .type = LR_WIRE_ERROR, .code = code };
    snprintf(m.text, sizeof m.text, "%s: closing", what);
    /* Straight out, even with --delay-ms: reading (and so refusing) is
     * paused while an answer is held, so nothing is overtaken. */
    size_t n = lr_wire_encode(&m, c->a->frame, AGENT_FRAME);
    if (n) {
        log_sent(c, &m);
        bufferevent_write(c->bev, c->a->frame, n);
    }
    if (!evbuffer_get_length(bufferevent_get_output(c->bev)))
        conn_free(c);
}

/* SIGTERM or SIGINT (agent_leave()): 'c' is told that the agent goes,
 * with the ERROR of id 0 an eviction sends (peer_at_limit()), and
 * closed once it is flushed (conn_write(): with close_notify).  Its
 * coordinator reads "closed: ..." as the agent's close, not a crash:
 * in the middle of a plan it runs the plan again from its start on a
 * new connection, and on a connection kept idle it connects afresh for
 * the next request (controller/lr_agent_party.c).  'c' may be freed. */
static void
conn_goodbye(struct conn *c)
{
    char why[LR_WIRE_TEXT_MAX - 16];
    snprintf(why, sizeof why, "closed: the agent is shutting down (%s): "
             "connect again once it is back", c->a->leaving);
    conn_refuse(c, ESHUTDOWN, why);
}

/* --idle-timeout starts again: a whole frame came, the handshake is
 * done, an answer went out, or the peer read the answers that paused
 * reading.  The coordinator's silence is counted from our answer, not
 * from its request: counted from the request, a STEP the agent took
 * 599 s to answer left its coordinator 1 s of the 600 to send the
 * next, and a slow DP closed the connections it served. */
static void
conn_idle_restart(struct conn *c)
{
    struct timeval tv = { c->a->idle_s, 0 };
    evtimer_add(c->idle, &tv);
    c->heard = now_s();
}

/* --idle-timeout passed with no whole frame: closed, unless the wait is
 * ours (a request running or its save, an answer held, 1 MiB of answers
 * unread: reading paused), which starts it again. */
static void
conn_idle_late(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void) fd;
    (void) what;
    if (c->closing)
        return;
    if (c->busy || c->full || evtimer_pending(c->delay, NULL)) {
        conn_idle_restart(c);
        return;
    }
    alog(c->a, "%s: no whole frame for %d s: closed", c->peer,
         c->a->idle_s);
    conn_free(c);
}

/* The input holds 'avail' bytes of a frame not yet whole: its
 * --frame-timeout starts now, unless it started already. */
static void
conn_frame_begun(struct conn *c, size_t avail)
{
    if (!avail || evtimer_pending(c->frame_late, NULL))
        return;
    struct timeval tv = { c->a->frame_s, 0 };
    evtimer_add(c->frame_late, &tv);
}

/* --frame-timeout passed with a frame still partial: the peer (past its
 * handshake: a coordinator) trickles it, or has stopped mid-frame.
 * Refused and closed, so that bytes cannot hold a connection. */
static void
conn_frame_late(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    char why[LR_WIRE_TEXT_MAX - 16];
    (void) fd;
    (void) what;
    if (c->closing || c->busy)
        return;
    snprintf(why, sizeof why, "refused: a frame not whole %d s after its "
             "first byte (%zu byte(s) of it came): send each frame at once",
             c->a->frame_s, evbuffer_get_length(bufferevent_get_input(c->bev)));
    conn_refuse(c, ETIMEDOUT, why);
}

static void
conn_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;
    struct agent *a = c->a;
    struct evbuffer *in = bufferevent_get_input(bev);

    if (c->closing || c->busy || evtimer_pending(c->delay, NULL))
        return;
    if (a->leaving) {
        /* Since SIGTERM a connection is told so once it has nothing
         * left to answer: each path that reads on after an answer (a
         * worker's, a save's, one held by --delay-ms) passes here, and
         * its answer went out first.  (No connection reads meanwhile:
         * agent_leave() told those that were idle, and the others
         * paused reading.)  The requests still in its input are left
         * unread, as those not yet sent. */
        conn_goodbye(c);
        return;
    }
    while (!c->closing && !c->busy && !evtimer_pending(c->delay, NULL)) {
        if (evbuffer_get_length(bufferevent_get_output(bev))
            >= AGENT_OUT_MAX) {
            /* conn_write resumes once the peer has read it all; the
             * pause is ours, so the frame's time stops meanwhile. */
            c->full = true;
            bufferevent_disable(bev, EV_READ);
            evtimer_del(c->frame_late);
            return;
        }
        uint8_t head[4];
        size_t avail = evbuffer_get_length(in);
        if (avail < 4) {
            conn_frame_begun(c, avail);
            return;
        }
        evbuffer_copyout(in, head, 4);
        int err;
        size_t size = lr_wire_frame_size(head, 4, &err);
        if (err) {
            conn_refuse(c, err, "frame length out of bounds");
            return;
        }
        if (avail < size) {
            conn_frame_begun(c, avail);
            return;
        }
        evtimer_del(c->frame_late);
        conn_idle_restart(c);
        const uint8_t *frame = evbuffer_pullup(in, (ev_ssize_t) size);
        struct lr_wire_msg m = {
            .layers = a->layers, .layers_cap = LR_MODEL_MAX_LAYERS,
            .summary = a->in, .tags = a->tags, .tags_cap = LR_WIRE_KEEP_MAX,
        };
        int rc = frame ? lr_wire_decode(frame, size, &m) : ENOMEM;
        evbuffer_drain(in, size);
        if (rc) {
            conn_refuse(c, rc, "malformed frame");
            return;
        }
        lr_agent_record(a->record, &m);
        conn_handle(c, &m);
    }
}

static void
conn_write(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;
    if (c->closing) {
        /* Its last frame (an ERROR saying why) is out: a TLS
         * close_notify follows, which libevent does not send, so that
         * the peer reads a close, not a connection cut short. */
        SSL *ssl = bufferevent_openssl_get_ssl(bev);
        if (ssl && c->ready)
            SSL_shutdown(ssl);
        conn_free(c);
        return;
    }
    if (c->full) {
        c->full = false;
        conn_idle_restart(c);
        bufferevent_enable(bev, EV_READ);
        conn_read(bev, c);
    }
}

static void
conn_handshake_late(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void) fd;
    (void) what;
    if (c->ready)
        return;
    alog(c->a, "%s: refused: no TLS handshake within %d s", c->peer,
         AGENT_HANDSHAKE_S);
    conn_free(c);
}

/* The peer's certificate name (CN), for logs and as the owner of its
 * reservations, which reservations.json keeps as YANG strings: UTF-8,
 * cut at a character, a control character (C0, DEL, C1), U+FFFE, U+FFFF
 * (which libyang will not read) or a byte that is no UTF-8 becoming '?'.  (X509_NAME_get_text_by_NID() copied the
 * raw bytes: a long UTF-8 name cut inside a character, a BMPString's
 * NULs, and every COMMIT of such a peer failed to be saved.)  The same
 * certificate always gives the same name. */
static void
peer_cn(SSL *ssl, char *buf, size_t len)
{
    X509 *x = ssl ? SSL_get0_peer_certificate(ssl) : NULL;
    X509_NAME *name = x ? X509_get_subject_name(x) : NULL;
    int i = name ? X509_NAME_get_index_by_NID(name, NID_commonName, -1)
                 : -1;
    unsigned char *u = NULL;
    int n = i < 0 ? -1 : ASN1_STRING_to_UTF8(
                             &u, X509_NAME_ENTRY_get_data(
                                     X509_NAME_get_entry(name, i)));
    size_t o = 0;
    for (const unsigned char *p = u, *end = u + (n > 0 ? n : 0);
         p < end && *p;) {
        size_t l = lr_utf8_len(p);
        bool ctl = l == 0 || (l == 1 && (*p < 0x20 || *p == 0x7f))
                   || (l == 2 && p[0] == 0xc2 && p[1] < 0xa0)
                   || (l == 3 && p[0] == 0xef && p[1] == 0xbf
                       && p[2] >= 0xbe);
        if (ctl)
            l = l ? l : 1;
        if (o + (ctl ? 1 : l) >= len)
            break;
        if (ctl) {
            buf[o++] = '?';
        } else {
            memcpy(buf + o, p, l);
            o += l;
        }
        p += l;
    }
    buf[o] = '\0';
    OPENSSL_free(u);
}

/* True when nothing of 'c' is in flight: no request running or being
 * saved, no answer held or unread, no frame begun.  Closing it then
 * loses its peer nothing it asked for but the job kept. */
static bool
conn_quiet(struct conn *c)
{
    return c->ready && !c->closing && !c->busy && !c->full
           && !evtimer_pending(c->delay, NULL)
           && !evtimer_pending(c->frame_late, NULL)
           && !evbuffer_get_length(bufferevent_get_input(c->bev))
           && !evbuffer_get_length(bufferevent_get_output(c->bev));
}

/* True when 'o' is to make room before 'best' (NULL: none yet): one
 * holding no job before one holding a job, then the longer silent.  A
 * job's connection may be in the middle of a plan, its coordinator
 * waiting on the other DCs; closing it drops the job's DP caches, so
 * its next STEP, BACKTRACK or FINISH meets our ERROR (or the close's
 * reset) and the coordinator runs the whole plan again from its start
 * on a new connection (controller/lr_agent_party.c's lr_agent_plan(),
 * at most twice; every DC's DP of it so far redone), and a COMMIT
 * meeting it fails (the job blocked until submitted again).  A
 * connection holding nothing loses its coordinator one reconnect
 * (HELLO), made before its next request. */
static bool
evict_before(const struct conn *o, const struct conn *best)
{
    if (!best)
        return true;
    if (o->has_job != best->has_job)
        return !o->has_job;
    return o->heard < best->heard;
}

/* Of the other connections of c's peer, quiet (conn_quiet()) and
 * silent at least --idle-timeout / AGENT_EVICT_DIV seconds, the one to
 * close (evict_before()); NULL when none.  One holding a job is chosen
 * only when none without one qualifies: refusing the new connection
 * then would keep its coordinator out for up to --idle-timeout (600 s),
 * and connections a coordinator leaked have each carried a job, as
 * every plan's connection does (a job stays until the next JOB or the
 * close, so a job held says it may be in use, not that it is). */
static struct conn *
peer_stalest(struct conn *c)
{
    struct agent *a = c->a;
    double before = now_s() - (double) a->idle_s / AGENT_EVICT_DIV;
    struct conn *best = NULL;
    for (struct conn *o = a->conns; o; o = o->next)
        if (o != c && !strcmp(o->owner, c->owner) && o->heard <= before
            && conn_quiet(o) && evict_before(o, best))
            best = o;
    return best;
}

/* True, with 'c' refused (an ERROR that says why, then closed), when
 * its peer has AGENT_MAX_CONNS_PER_PEER connections open already and
 * none of them left silent to make room (peer_stalest(), which is
 * closed, with an ERROR that says why, when there is one); 'c' has just
 * finished its handshake and may be freed. */
static bool
peer_at_limit(struct conn *c)
{
    char what[LR_WIRE_TEXT_MAX - 16];
    int n = 0;
    for (const struct conn *o = c->a->conns; o; o = o->next)
        n += o != c && o->ready && !o->closing
             && !strcmp(o->owner, c->owner);
    if (n < AGENT_MAX_CONNS_PER_PEER)
        return false;
    const int after = c->a->idle_s / AGENT_EVICT_DIV;
    struct conn *stale = peer_stalest(c);
    if (stale) {
        char dropped[48] = "";
        if (stale->has_job)
            snprintf(dropped, sizeof dropped, " (its job %u dropped)",
                     stale->job);
        snprintf(what, sizeof what, "closed: no whole frame for %.0f s%s, "
                 "it makes room for a new connection of '%.63s' (at most "
                 "%d of one coordinator)", now_s() - stale->heard, dropped,
                 c->owner, AGENT_MAX_CONNS_PER_PEER);
        conn_refuse(stale, ETIMEDOUT, what);
        return false;
    }
    snprintf(what, sizeof what, "refused: at most %d connections of one "
             "coordinator, and '%.63s' has %d open, none silent for %d s "
             "(close those it no longer needs; an idle one closes after "
             "%d s)", AGENT_MAX_CONNS_PER_PEER, c->owner, n, after,
             c->a->idle_s);
    conn_refuse(c, EUSERS, what);
    return true;
}

static bool conn_revoked_since(struct conn *c);
static bool conn_refused_stale(struct conn *c);
static void agent_crl_arm(struct agent *a);

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;
    struct agent *a = c->a;
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    if (what & BEV_EVENT_CONNECTED) {
        peer_cn(ssl, c->cn, sizeof c->cn);
        /* The configured peer name the handshake matched: two
         * coordinators may share a CN and be told apart by their SANs
         * (a CN is no identity: a certificate may have none). */
        const char *pn = ssl ? SSL_get0_peername(ssl) : NULL;
        snprintf(c->owner, sizeof c->owner, "%s", pn ? pn : c->cn);
        size_t l = strlen(c->peer);
        snprintf(c->peer + l, sizeof c->peer - l, " (%s)", c->cn);
        c->ready = true;
        evtimer_del(c->handshake);
        /* A handshake begun before a SIGHUP ended with the files before;
         * one whose chain was verified before a CRL's next update may
         * end after on_crl_next() has judged the connections up. */
        if (conn_revoked_since(c) || conn_refused_stale(c)
            || peer_at_limit(c))
            return;
        conn_idle_restart(c);
        agent_crl_arm(a);
        alog(a, "%s: connected", c->peer);
        return;
    }
    if (what & BEV_EVENT_ERROR) {
        char why[256] = "";
        unsigned long e = bufferevent_get_openssl_error(bev);
        if (e)
            ERR_error_string_n(e, why, sizeof why);
        else if (EVUTIL_SOCKET_ERROR())
            snprintf(why, sizeof why, "%s",
                     evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
        while (bufferevent_get_openssl_error(bev))
            ;
        long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
        char vwhy[1024];
        if (!c->ready && v != X509_V_OK)
            alog(a, "%s: refused: client certificate: %s (%s)", c->peer,
                 lr_tls_verify_text(v, &c->verified,
                                    a->cfg.crl[0] ? a->cfg.crl : NULL,
                                    vwhy, sizeof vwhy), why);
        else if (!c->ready && lr_tls_alert_revoked(why))
            alog(a, "%s: TLS handshake failed: %s (the coordinator refused "
                 "our certificate, serial %s: its CRL revokes it; this "
                 "agent needs a new certificate from the CA)", c->peer, why,
                 a->serial);
        else if (!c->ready)
            alog(a, "%s: TLS handshake failed: %s", c->peer,
                 why[0] ? why : "connection closed");
        else
            alog(a, "%s: connection error: %s", c->peer,
                 why[0] ? why : "unknown");
    } else if (what & BEV_EVENT_TIMEOUT) {
        if (what & BEV_EVENT_WRITING)
            alog(a, "%s: its answers unread for %d s: closed", c->peer,
                 AGENT_WRITE_S);
        else   /* not armed: conn_idle_late() does it */
            alog(a, "%s: read timed out: closed", c->peer);
    } else if (what & BEV_EVENT_EOF) {
        alog(a, "%s: closed by the peer", c->peer);
    }
    conn_free(c);
}

static void
on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
          int salen, void *arg)
{
    struct agent *a = arg;
    char host[64] = "?";
    int port = 0;
    if (sa->sa_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *) sa;
        evutil_inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
    } else if (sa->sa_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) sa;
        evutil_inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
    }
    int handshakes = 0, from_host = 0;
    struct conn *oldest = NULL;   /* the oldest in its handshake */
    for (struct conn *o = a->conns; o; o = o->next) {
        handshakes += !o->ready;
        from_host += !o->ready && !strcmp(o->host, host);
        if (!o->ready)
            oldest = o;
    }
    bool full = a->n_conns >= AGENT_MAX_CONNS
                || handshakes >= AGENT_MAX_HANDSHAKES;
    if (from_host >= AGENT_MAX_HANDSHAKES_PER_HOST || (full && !oldest)) {
        alog(a, "%s:%d: refused: %d connections already, %d of them in "
             "their TLS handshake, %d from this address", host, port,
             a->n_conns, handshakes, from_host);
        evutil_closesocket(fd);
        return;
    }
    if (full) {
        alog(a, "%s: closed: still in its TLS handshake, it makes room for "
             "%s:%d (%d connections, %d of them in their handshake)",
             oldest->peer, host, port, a->n_conns, handshakes);
        conn_free(oldest);
    }
    /* Each request is one small write answered at once: without it Nagle
     * holds an answer for the peer's delayed ACK. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    struct conn *c = calloc(1, sizeof *c);
    SSL *ssl = c ? SSL_new(a->ssl) : NULL;
    if (!c || !ssl) {
        alog(a, "%s:%d: refused: out of memory", host, port);
        SSL_free(ssl);
        free(c);
        evutil_closesocket(fd);
        return;
    }
    c->a = a;
    /* Without it a revoked certificate is logged without its serial:
     * no reason to refuse the connection. */
    lr_tls_watch(ssl, &c->verified);
    snprintf(c->host, sizeof c->host, "%s", host);
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
    c->bev = bufferevent_openssl_socket_new(a->base, fd, ssl,
                                            BUFFEREVENT_SSL_ACCEPTING,
                                            BEV_OPT_CLOSE_ON_FREE);
    c->delay = evtimer_new(a->base, conn_delay_done, c);
    c->handshake = evtimer_new(a->base, conn_handshake_late, c);
    c->frame_late = evtimer_new(a->base, conn_frame_late, c);
    c->idle = evtimer_new(a->base, conn_idle_late, c);
    c->held = evbuffer_new();
    c->next = a->conns;
    if (a->conns)
        a->conns->prev = c;
    a->conns = c;
    a->n_conns++;
    if (!c->bev) {
        SSL_free(ssl);
        evutil_closesocket(fd);
    }
    if (!c->bev || !c->delay || !c->handshake || !c->frame_late
        || !c->idle || !c->held) {
        alog(a, "%s: refused: out of memory", c->peer);
        conn_free(c);
        return;
    }
    /* A coordinator that hangs up without close_notify is no error. */
    bufferevent_openssl_set_allow_dirty_shutdown(c->bev, 1);
    /* No read timeout: it restarts with every byte (conn_idle_late()). */
    struct timeval stuck = { AGENT_WRITE_S, 0 };
    struct timeval hs = { AGENT_HANDSHAKE_S, 0 };
    bufferevent_set_timeouts(c->bev, NULL, &stuck);
    evtimer_add(c->handshake, &hs);
    bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* ---- setup ---- */

/* The server context: TLS 1.3 only; a client certificate is required,
 * must chain to the configured CA, must name a configured peer and,
 * with a CRL file, must not be revoked (nor its CA's). */
static SSL_CTX *
server_ctx(const struct lr_agent_config *cfg, char *err, size_t errlen)
{
    static const unsigned char sid_ctx[] = "lightrail-agent";
    char why[256];
    SSL_CTX *ctx = lr_agent_tls_ctx(TLS_server_method(), cfg->cert,
                                    cfg->key, err, errlen);
    if (!ctx)
        return NULL;
    /* A coordinator that hangs up without close_notify has simply gone:
     * OpenSSL 3 would call that an error, which libevent 2.1 does not
     * know to forgive (bufferevent_openssl_set_allow_dirty_shutdown()). */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION
                        | SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* No session tickets: a coordinator keeps its one connection. */
    SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof sid_ctx - 1);
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(cfg->ca);
    if (!names || SSL_CTX_load_verify_locations(ctx, cfg->ca, NULL) != 1) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        snprintf(err, errlen, "TLS CA '%s': %s (want PEM certificates)",
                 cfg->ca, lr_tls_file_reason(cfg->ca, LR_TLS_PEM_CERT, why,
                                             sizeof why));
        goto fail;
    }
    SSL_CTX_set_client_CA_list(ctx, names);    /* takes 'names' */
    char cwhy[1024];
    if (cfg->crl[0] && lr_tls_use_crl(ctx, cfg->crl, cwhy, sizeof cwhy)) {
        snprintf(err, errlen, "TLS CRL '%s': %s", cfg->crl, cwhy);
        goto fail;
    }
    /* The peer names go into the verification parameters: OpenSSL then
     * checks the client's certificate against them (X509_check_host) as
     * part of the chain, and a mismatch fails the handshake. */
    X509_VERIFY_PARAM *vp = SSL_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_hostflags(vp, AGENT_HOSTFLAGS);
    for (int i = 0; i < cfg->n_peers; i++)
        if (!X509_VERIFY_PARAM_add1_host(vp, cfg->peer_names[i], 0)) {
            snprintf(err, errlen, "TLS peer name '%s': %s",
                     cfg->peer_names[i], lr_tls_reason(why, sizeof why));
            goto fail;
        }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                       lr_tls_verify_cb);
    return ctx;

fail:
    SSL_CTX_free(ctx);
    return NULL;
}

/* True, with 'c' closed and logged, when its coordinator's chain, which
 * the context it was accepted with admitted, is refused by a->ssl, the
 * context SIGHUP has loaded since (a CRL that now revokes it or its
 * CA): a leaked key the CA revoked must lose the connection it holds,
 * which would otherwise last as long as it keeps asking.  'c' has
 * finished its handshake. */
static bool
conn_revoked_since(struct conn *c)
{
    struct agent *a = c->a;
    SSL *ssl = bufferevent_openssl_get_ssl(c->bev);
    if (!ssl || SSL_get_SSL_CTX(ssl) == a->ssl)
        return false;
    long v = lr_tls_verify_again(a->ssl, ssl);
    if (v == X509_V_OK)
        return false;
    char why[1024];
    alog(a, "%s: closed: its certificate is refused since SIGHUP: %s",
         c->peer, lr_tls_verify_text(v, &c->verified,
                                     a->cfg.crl[0] ? a->cfg.crl : NULL, why,
                                     sizeof why));
    conn_free(c);
    return true;
}

/* Arms a->crl_next over the span of the wall clock in which the
 * connections up stand as judged (struct lr_tls_span): a->ssl's CRLs
 * (lr_tls_span_crls()) and each connection's peer chain
 * (lr_tls_span_peer()), waking at most LR_TLS_CRL_RECHECK_S apart
 * (lr_tls_span_wait()), or leaves it idle with no connection up, CRL
 * or not: a CRL out of its own span fails every handshake itself, and
 * one that ends after it went out is judged at its end
 * (conn_refused_stale()).  Until 2026-12-07 a CRL without a next update
 * woke it every LR_TLS_CRL_RECHECK_S for ever with nothing to judge.
 * Again whenever a handshake ends: its chain may end first.  A span the wall clock has left and the
 * timer has not judged yet stays armed, as lightraild's does (its
 * crl_arm()): a re-arm must not forget the CRL gone out of it, which
 * lr_tls_span_crls() no longer counts. */
static void
agent_crl_arm(struct agent *a)
{
    evtimer_del(a->crl_next);
    time_t now = time(NULL);
    if (!lr_tls_span_out(&a->crl_span, now)) {
        a->crl_span = (struct lr_tls_span) { 0 };
        lr_tls_span_crls(&a->crl_span, a->ssl, now);
        for (struct conn *c = a->conns; c; c = c->next)
            if (c->ready && !c->gone)
                lr_tls_span_peer(&a->crl_span,
                                 bufferevent_openssl_get_ssl(c->bev));
    }
    struct timeval tv = { lr_tls_span_wait(&a->crl_span, now), 0 };
    if (tv.tv_sec)
        evtimer_add(a->crl_next, &tv);
}

/* True, with 'c' closed and logged, when a CRL of a->ssl is out of its
 * own span (past its next update, or before its last update:
 * lr_tls_crls_out()) or c's chain is (a certificate of it past its
 * notAfter or before its notBefore), and 'c', judged again under
 * a->ssl, is refused: every handshake now fails, and so must the
 * connections up, judged otherwise only at their handshake and on
 * SIGHUP (one that keeps asking never idles out).  'c' has finished its
 * handshake.  The CRLs are read, not the span armed: a handshake whose
 * chain was verified while a CRL was good may end after on_crl_next()
 * judged the others, and the span armed since no longer counts that
 * CRL (until 2026-12-07 such a connection was kept). */
static bool
conn_refused_stale(struct conn *c)
{
    struct agent *a = c->a;
    char when[32], why[1024];
    SSL *ssl = bufferevent_openssl_get_ssl(c->bev);
    struct lr_tls_span own = { 0 };
    time_t now = time(NULL);
    lr_tls_span_peer(&own, ssl);
    if (!ssl || (!lr_tls_crls_out(a->ssl, now)
                 && !lr_tls_span_out(&own, now)))
        return false;
    long v = lr_tls_verify_again(a->ssl, ssl);
    if (v == X509_V_OK)
        return false;
    const char *crl = a->cfg.crl[0] ? a->cfg.crl : "?";
    if (v == X509_V_ERR_CERT_HAS_EXPIRED && c->verified.error == v)
        alog(a, "certificate %s expired at %s: connection to %s closed; "
             "its holder must present a renewed certificate",
             c->verified.subject, c->verified.not_after, c->peer);
    else if (v == X509_V_ERR_CRL_HAS_EXPIRED
             && lr_tls_crl_update(a->ssl, true, when, sizeof when))
        alog(a, "CRL '%s' expired at %s (nextUpdate): connection to %s "
             "closed; install a fresh CRL and send SIGHUP", crl, when,
             c->peer);
    else
        alog(a, "%s: closed: its certificate is refused: %s", c->peer,
             lr_tls_verify_text(v, &c->verified, crl, why, sizeof why));
    conn_free(c);
    return true;
}

/* The wall clock left the span armed: a CRL's next update, or a peer
 * chain's notAfter, passed, or the clock was set back before a CRL's
 * last update or a chain's notBefore.  Each connection up is judged
 * again (conn_refused_stale()); then the timer goes on over the span
 * that holds now.  One whose handshake ends later is judged then
 * (conn_event()).  Woken with the clock still in the span, by the
 * wait's cap, the timer only waits again. */
static void
on_crl_next(evutil_socket_t fd, short what, void *arg)
{
    struct agent *a = arg;
    if (!lr_tls_span_out(&a->crl_span, time(NULL))) {
        agent_crl_arm(a);
        return;
    }
    for (struct conn *c = a->conns, *next; c; c = next) {
        next = c->next;
        if (c->ready && !c->gone)
            conn_refused_stale(c);
    }
    a->crl_span = (struct lr_tls_span) { 0 };
    agent_crl_arm(a);
}

/* The leaves of 'n' that differ from 'o', but predecessors, as a list
 * "dc, device-count, ..." in buf[len] ("" when none). */
static void
cfg_changed(const struct lr_agent_config *o, const struct lr_agent_config *n,
            char *buf, size_t len)
{
    bool peers = o->n_peers != n->n_peers;
    for (int i = 0; !peers && i < o->n_peers; i++)
        peers = strcmp(o->peer_names[i], n->peer_names[i]) != 0;
    const struct { bool changed; const char *name; } leaf[] = {
        { strcmp(o->dc, n->dc) != 0, "dc" },
        { o->peak_flops != n->peak_flops || o->efficiency != n->efficiency
          || o->memory_bytes != n->memory_bytes, "device-type" },
        { o->n_devices != n->n_devices, "device-count" },
        { o->intra_bw != n->intra_bw,
          "intra-dc-bandwidth-gbytes-per-s" },
        { o->intra_latency != n->intra_latency, "intra-dc-latency-us" },
        { strcmp(o->cert, n->cert) || strcmp(o->key, n->key)
          || strcmp(o->ca, n->ca) || strcmp(o->crl, n->crl), "tls's files" },
        { peers, "tls/peer-name" },
    };
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof leaf / sizeof leaf[0]; i++)
        if (leaf[i].changed && at < len)
            at += (size_t) snprintf(buf + at, len - at, "%s%s",
                                    at ? ", " : "", leaf[i].name);
}

/* SIGHUP's reading of the configuration file again (since 2026-12-07),
 * for its leaf predecessors, which is taken: new connections' HELLO is
 * answered the revision it gives (agent_revision()); a connection up
 * keeps the revision its HELLO agreed, but one above the revision now
 * spoken is closed at its next request (conn_handle()), so that false
 * stops the predecessors of lightraild's kept connection too.  Any other
 * change is not taken, and said so: the inventory is what the jobs up
 * and the reservations were planned over, and the TLS files are read
 * from the paths of the start.  A file that does not load changes
 * nothing, and the log says why. */
static void
agent_reread_config(struct agent *a)
{
    char err[2048], changed[256];
    struct stat st;
    /* Not a FIFO, say, whose open would hold the loop until a writer
     * came (tests/cli/agent_crl.sh starts an agent from one). */
    const int se = stat(a->config, &st) ? errno : 0;
    if (se || !S_ISREG(st.st_mode)) {
        alog(a, "SIGHUP: the configuration not read again, predecessors "
             "stays %s: '%s'%s%s", a->cfg.predecessors ? "true" : "false",
             a->config, se ? ": " : " is no regular file",
             se ? strerror(se) : "");
        return;
    }
    struct lr_agent_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        alog(a, "SIGHUP: '%s' not read again (out of memory): predecessors "
             "stays %s", a->config, a->cfg.predecessors ? "true" : "false");
        return;
    }
    if (lr_yang_load_agent(a->ly, a->config, cfg, err, sizeof err)) {
        alog(a, "SIGHUP: the configuration not read again, predecessors "
             "stays %s: %s", a->cfg.predecessors ? "true" : "false", err);
        free(cfg);
        return;
    }
    cfg_changed(&a->cfg, cfg, changed, sizeof changed);
    if (changed[0])
        alog(a, "SIGHUP: '%s': %s changed, not taken: a change of these "
             "needs a restart (only predecessors is read again)", a->config,
             changed);
    const bool was = a->cfg.predecessors;
    a->cfg.predecessors = cfg->predecessors;
    free(cfg);
    if (was == a->cfg.predecessors)
        alog(a, "SIGHUP: predecessors read again: %s (unchanged), protocol "
             "revision %d", was ? "true" : "false", agent_revision(a));
    else
        alog(a, "SIGHUP: predecessors read again: %s, was %s: new "
             "connections speak protocol revision %d (%s)%s",
             a->cfg.predecessors ? "true" : "false", was ? "true" : "false",
             agent_revision(a), a->cfg.predecessors
             ? "predecessors in STEP_OK" : "none in STEP_OK",
             a->cfg.predecessors ? "; those up keep the revision their "
                                   "HELLO agreed"
             : "; one up of revision 2 is closed at its next request");
}

/* SIGHUP: the certificate, key, CA and CRL files are read again, for a
 * CRL the CA issued anew, before the one loaded expires; and the
 * configuration file, for its leaf predecessors alone
 * (agent_reread_config()).  New connections get them; those up (and
 * those still in their handshake, when it ends) are judged by them
 * again and closed when refused (conn_revoked_since()).  Files that do
 * not load leave the agent as it was, and the log says why: the CRL
 * loaded before stays, and fails closed when it expires. */
static void
on_hup(evutil_socket_t sig, short what, void *arg)
{
    struct agent *a = arg;
    char err[2048];
    agent_reread_config(a);
    SSL_CTX *ctx = server_ctx(&a->cfg, err, sizeof err);
    if (!ctx) {
        alog(a, "SIGHUP: not reloaded, the files loaded before stay: %s",
             err);
        return;
    }
    SSL_CTX_free(a->ssl);
    a->ssl = ctx;
    lr_tls_own_serial(a->ssl, a->serial, sizeof a->serial);
    alog(a, "SIGHUP: certificate, key, CA%s read again", a->cfg.crl[0]
         ? " and CRL" : "");
    for (struct conn *c = a->conns, *next; c; c = next) {
        next = c->next;
        if (c->ready && !c->gone)
            conn_revoked_since(c);
    }
    /* Every connection up was judged under the new files: the span armed
     * before, left or not, is done with. */
    a->crl_span = (struct lr_tls_span) { 0 };
    agent_crl_arm(a);
}

/* A SIGHUP before on_hup() catches them: noted, for lr_cmd_agent() to
 * read once it serves. */
static volatile sig_atomic_t agent_hup_early;

static void
early_hup(int sig)
{
    (void) sig;
    agent_hup_early = 1;
}

/* Takes back c's request from the worker it is queued on, when that
 * worker has not started it: true, and the worker will skip it
 * (conn_work_run()); false when none is queued (a DP running, a save,
 * or nothing).  On the loop; c stays busy until the worker hands it
 * back. */
static bool
conn_unqueue(struct conn *c)
{
    int queued = 1;
    return c->busy && atomic_compare_exchange_strong(&c->queued, &queued, 0);
}

/* SIGTERM or SIGINT: the agent stops accepting and tells every
 * connection past its handshake that it goes (conn_goodbye()); one in
 * its handshake is closed.  A request in progress (a DP running on a
 * worker, its save being written, its answer held by --delay-ms) is
 * answered first, then told.  A request still queued for a worker is
 * not run: its connection is told now, as one idle.  Run, it would
 * start up to AGENT_LEAVE_S late behind the others, so that its answer
 * would come within the bound rarely (a DP of seconds): its
 * coordinator would be told nothing until then, or closed with no
 * word, where told now it plans again elsewhere at once; and the
 * agent's exit would wait for a DP begun after the signal.  The loop ends once all are closed, or
 * AGENT_LEAVE_S after the signal whatever is left (agent_leave_late());
 * a second signal ends it at once.  Before, each connection was closed
 * with no word, which a coordinator waiting on it took for a crash
 * and so failed its plan. */
static void
agent_leave(evutil_socket_t sig, short what, void *arg)
{
    struct agent *a = arg;
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    (void) what;
    if (a->leaving) {
        alog(a, "%s while stopping: stopping now", name);
        event_base_loopexit(a->base, NULL);
        return;
    }
    a->leaving = name;
    /* Closed, not paused: a coordinator connecting now is refused at
     * once, not left in the backlog until we exit. */
    evconnlistener_free(a->listener);
    a->listener = NULL;
    int told = 0, unrun = 0, waiting = 0;
    for (struct conn *c = a->conns, *next; c; c = next) {
        next = c->next;
        if (!c->ready) {
            conn_free(c);
        } else if (c->closing) {
            continue;   /* its ERROR is on its way already */
        } else if (conn_unqueue(c)) {
            told++;
            unrun++;
            conn_goodbye(c);   /* freed by conn_work_done() if closed */
        } else if (c->busy || evtimer_pending(c->delay, NULL)) {
            waiting++;
        } else {
            told++;
            conn_goodbye(c);
        }
    }
    alog(a, "signal %d: stopping (%s): %d connection(s) told so (%d with "
         "its request queued, not run), %d once their request is "
         "answered (within %d s)", (int) sig, name, told, unrun, waiting,
         AGENT_LEAVE_S);
    a->taken += unrun;
    if (!a->conns) {
        event_base_loopexit(a->base, NULL);
        return;
    }
    struct timeval tv = { AGENT_LEAVE_S, 0 };
    evtimer_add(a->leave_late, &tv);
}

/* AGENT_LEAVE_S after SIGTERM: the connections still open (a request
 * still running, a goodbye not yet read) are closed as they are, with
 * no word, and the agent exits. */
static void
agent_leave_late(evutil_socket_t fd, short what, void *arg)
{
    struct agent *a = arg;
    int n = 0, busy = 0;
    (void) fd;
    (void) what;
    for (const struct conn *c = a->conns; c; c = c->next) {
        n++;
        busy += c->busy || evtimer_pending(c->delay, NULL);
    }
    alog(a, "%s: %d connection(s) not done %d s after it, %d of them with "
         "a request unanswered: closed as they are", a->leaving, n,
         AGENT_LEAVE_S, busy);
    event_base_loopexit(a->base, NULL);
}

/* Writes DIR/NAME with one number, through a temporary file so that a
 * reader never sees half of it. */
static int
write_state(const char *dir, const char *name, long v)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return errno;
    fprintf(f, "%ld\n", v);
    if (fclose(f) || rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        return e;
    }
    return 0;
}

static void
remove_state(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail agent --config DC.json --listen ADDR:PORT\n"
"                       [--state-dir DIR] [--max-step-cells N]\n"
"                       [--max-cache-bytes N] [--max-total-cache-bytes N]\n"
"                       [--device-step S] [--threads N]\n"
"                       [--frame-timeout S] [--idle-timeout S]\n"
"                       [--record FILE] [--delay-ms N]\n"
"                       [--delay-commit-ms N] [--delay-save-ms N]\n"
"       lightrail agent --config DC.json --listen ADDR:PORT --check\n"
"                       [--state-dir DIR]\n"
"\n"
"Serves one data center in distributed CDynP: keeps the DC's inventory\n"
"private and answers the coordinator (lightrail plan --distributed,\n"
"lightraild) over mutual TLS 1.3 (docs/agent-protocol.md).\n"
"\n"
"  --config FILE     a lightrail-agent JSON file: the DC's inventory, its\n"
"                    certificate, key, CA, the coordinator's names and\n"
"                    optionally the CA's CRLs (tls/crl: a coordinator\n"
"                    whose certificate is revoked is refused; a CRL\n"
"                    past its next update refuses the start, exit 2)\n"
"                    and whether STEP_OKs tell each entry's predecessor\n"
"                    (predecessors, default true; false: protocol\n"
"                    revision 1: BACKTRACKs asked instead, the same\n"
"                    plan; docs/privacy.md)\n"
"  --listen A:P      address and TCP port, e.g. 127.0.0.1:7001 or\n"
"                    [::1]:7001; port 0 picks a free one\n"
"  --check           load and check everything (the file, the certificate,\n"
"                    key and CA, whose certificates must be CAs', not\n"
"                    a leaf's, the CRL; the listening address's form, the saved\n"
"                    reservations against the inventory), say what was\n"
"                    found, and exit (0) without listening: a deployment's\n"
"                    check (systemd's ExecStartPre), also beside a\n"
"                    running agent\n"
"  --state-dir DIR   write agent.pid and agent.port there once serving\n"
"                    (removed on SIGTERM), and the reservations\n"
"                    (reservations.json), read again at the next start;\n"
"                    locked: one agent per directory\n"
"  --max-step-cells N  refuse (E2BIG) a STEP, FINISH or COMMIT whose local\n"
"                    DP would update more than N cells (0.2-0.4 ns each\n"
"                    here; default 2e9, about a second; 0: no bound): one\n"
"                    request may not hold the agent from its other\n"
"                    coordinators; the log names the N that serves a\n"
"                    request refused, and each job's largest request\n"
"  --max-cache-bytes N  refuse (ENOBUFS) a STEP, FINISH or COMMIT that\n"
"                    would compute rows of local DP while the\n"
"                    connection's caches hold N bytes or more (default\n"
"                    4e9; 0: no bound; the coordinator is told to send\n"
"                    JOB again or use a new connection): one coordinator\n"
"                    may not run the agent out of memory\n"
"  --max-total-cache-bytes N  refuse (ENOBUFS) the same while the caches\n"
"                    of all connections together hold N bytes or more\n"
"                    (default: half the memory installed; 0: no bound):\n"
"                    64 connections may not hold 64 times the above\n"
"  --device-step S   give stages multiples of S devices, the DP's cost\n"
"                    that of a DC of N/S (default auto: 1 up to %d\n"
"                    devices, else the least S keeping N/S within it;\n"
"                    fewer than S devices: all of them, one stage; best:\n"
"                    each range's least cost over several grids, slower,\n"
"                    better plans: lightrail plan --help); the DC's own\n"
"                    choice, never on the wire\n"
"  --threads N       threads for the DP, 1..%d (default: the processors\n"
"                    online, at most %d): the requests of N coordinators\n"
"                    run at once, one at a time per connection, while\n"
"                    the main thread keeps answering the others\n"
"  --frame-timeout S  close a connection (after an ERROR saying why) whose\n"
"                    frame is not whole S seconds after its first byte,\n"
"                    1..3600 (default %d): a peer cannot hold its\n"
"                    connection by sending a frame a byte at a time\n"
"  --idle-timeout S  close a connection with no whole frame for S seconds\n"
"                    after its last whole frame or answer (its bytes do\n"
"                    not count), 1..86400 (default %d); one silent for\n"
"                    S/10 makes room for its coordinator's 17th, one\n"
"                    holding no job (no JOB received) first\n"
"  --record FILE     append every message received as a JSON line (tests)\n"
"  --delay-ms N      hold each answer back N ms (tests of timeouts)\n"
"  --delay-commit-ms N  hold the answer to a COMMIT back N ms, after its\n"
"                    devices are reserved (tests of a COMMIT timed out)\n"
"  --delay-save-ms N  hold each save of the reservations back N ms, off\n"
"                    the main thread (tests of a slow disk)\n"
"\n"
"Logs to stderr, with each answer sent to a peer as it left (a 'sent' line:\n"
"the message as JSON, as --record writes one received; past 16 KiB a head\n"
"line with its length and SHA-256, then numbered parts that join back into\n"
"it); on SIGTERM or SIGINT tells each coordinator connected that it\n"
"stops (an ERROR of id 0, then close_notify), a request that ends within\n"
"1 s answered first, and exits 0; on SIGHUP reads its certificate, key,\n"
"CA and CRL files again (a new CRL needs no restart) and --config's\n"
"predecessors (a change of the inventory needs a restart),\n"
"and closes the connections up whose certificate they now refuse\n"
"(and those of revision 2, at their next request, when predecessors\n"
"is now false);\n"
"at a CRL's next update closes the connections up that the CRL, stale\n"
"from then on, refuses (a SIGHUP with a fresh CRL before keeps them).\n"
"exit status: 0 stopped by a signal,\n"
"2 bad input, 1 cannot listen or other failure\n",
            LR_CDYNP_AUTO_CELLS, AGENT_MAX_THREADS, AGENT_DEFAULT_THREADS,
            AGENT_FRAME_S, AGENT_IDLE_S);
}

struct agent_opts {
    const char *config, *listen, *state_dir, *record;
    long delay_ms, delay_commit_ms, delay_save_ms;
    double max_cells, max_bytes, max_total;
    long device_step;
    long threads;
    long frame_s, idle_s;
    bool check;
};

static int
parse_args(int argc, char **argv, struct agent_opts *o)
{
    enum { O_CONFIG = 256, O_LISTEN, O_STATE, O_RECORD, O_DELAY, O_CELLS,
           O_DELAY_COMMIT, O_DELAY_SAVE, O_HELP, O_STEP, O_THREADS,
           O_CHECK, O_FRAME, O_BYTES, O_IDLE, O_TOTAL };
    static const struct option longopts[] = {
        { "config", required_argument, NULL, O_CONFIG },
        { "listen", required_argument, NULL, O_LISTEN },
        { "state-dir", required_argument, NULL, O_STATE },
        { "record", required_argument, NULL, O_RECORD },
        { "delay-ms", required_argument, NULL, O_DELAY },
        { "delay-commit-ms", required_argument, NULL, O_DELAY_COMMIT },
        { "delay-save-ms", required_argument, NULL, O_DELAY_SAVE },
        { "max-step-cells", required_argument, NULL, O_CELLS },
        { "device-step", required_argument, NULL, O_STEP },
        { "threads", required_argument, NULL, O_THREADS },
        { "check", no_argument, NULL, O_CHECK },
        { "frame-timeout", required_argument, NULL, O_FRAME },
        { "max-cache-bytes", required_argument, NULL, O_BYTES },
        { "max-total-cache-bytes", required_argument, NULL, O_TOTAL },
        { "idle-timeout", required_argument, NULL, O_IDLE },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    int c;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case O_CONFIG: o->config = optarg; break;
        case O_LISTEN: o->listen = optarg; break;
        case O_CHECK: o->check = true; break;
        case O_STATE: o->state_dir = optarg; break;
        case O_RECORD: o->record = optarg; break;
        case O_THREADS:
            if (lr_parse_long(optarg, 1, AGENT_MAX_THREADS,
                              &o->threads)) {
                lr_cli_err(CMD, "--threads wants a number from 1 to %d, "
                           "not '%s'", AGENT_MAX_THREADS, optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_IDLE:
            if (lr_parse_long(optarg, 1, 86400, &o->idle_s)) {
                lr_cli_err(CMD, "--idle-timeout wants seconds in 1..86400, "
                           "not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_FRAME:
            if (lr_parse_long(optarg, 1, 3600, &o->frame_s)) {
                lr_cli_err(CMD, "--frame-timeout wants seconds in 1..3600, "
                           "not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_DELAY:
            if (lr_parse_long(optarg, 0, 3600000, &o->delay_ms)) {
                lr_cli_err(CMD, "--delay-ms wants milliseconds in "
                           "0..3600000, not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_DELAY_COMMIT:
            if (lr_parse_long(optarg, 0, 3600000, &o->delay_commit_ms)) {
                lr_cli_err(CMD, "--delay-commit-ms wants milliseconds in "
                           "0..3600000, not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_DELAY_SAVE:
            if (lr_parse_long(optarg, 0, 3600000, &o->delay_save_ms)) {
                lr_cli_err(CMD, "--delay-save-ms wants milliseconds in "
                           "0..3600000, not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_CELLS:
            if (lr_parse_double(optarg, 0, 1e18, &o->max_cells)) {
                lr_cli_err(CMD, "--max-step-cells wants a number of cells "
                           "in 0..1e18 (0: no bound), not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_BYTES:
            if (lr_parse_double(optarg, 0, 1e18, &o->max_bytes)) {
                lr_cli_err(CMD, "--max-cache-bytes wants a number of bytes "
                           "in 0..1e18 (0: no bound), not '%s'", optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_TOTAL:
            if (lr_parse_double(optarg, 0, 1e18, &o->max_total)) {
                lr_cli_err(CMD, "--max-total-cache-bytes wants a number of "
                           "bytes in 0..1e18 (0: no bound), not '%s'",
                           optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_STEP:
            if (!strcmp(optarg, "auto")) {
                o->device_step = 0;
            } else if (!strcmp(optarg, "best")) {
                o->device_step = LR_CDYNP_STEP_BEST;
            } else if (lr_parse_long(optarg, 1, 1000000,
                                     &o->device_step)) {
                lr_cli_err(CMD, "--device-step wants a number of devices "
                           "from 1 to 1000000, auto or best, not '%s'",
                           optarg);
                return LR_EXIT_USAGE;
            }
            break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            return lr_cli_bad_option(CMD, argv, optind);
        }
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (!o->config || !o->listen) {
        lr_cli_err(CMD, "--config FILE and --listen ADDR:PORT are required");
        return LR_EXIT_USAGE;
    }
    return 0;
}

/* "A.B.C.D:PORT" or "[V6]:PORT", port 0..65535 (0: any), into 'ss'.
 * (evutil_parse_sockaddr_port() refuses port 0.) */
static int
parse_listen(const char *s, struct sockaddr_storage *ss, int *len)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    long port;
    if (!colon || (size_t) (colon - s) >= sizeof host
        || lr_parse_long(colon + 1, 0, 65535, &port))
        return EINVAL;
    memcpy(host, s, (size_t) (colon - s));
    host[colon - s] = '\0';
    memset(ss, 0, sizeof *ss);
    size_t hl = strlen(host);
    if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;
        host[hl - 1] = '\0';
        if (evutil_inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
            return EINVAL;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t) port);
        *len = sizeof *in6;
        return 0;
    }
    struct sockaddr_in *in = (struct sockaddr_in *) ss;
    if (evutil_inet_pton(AF_INET, host, &in->sin_addr) != 1)
        return EINVAL;
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t) port);
    *len = sizeof *in;
    return 0;
}

/* --max-total-cache-bytes' default: half the memory installed, leaving
 * the rest to the system and the agent's other needs;
 * AGENT_MAX_TOTAL_CACHE_BYTES when the system does not say. */
static double
agent_total_default(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double) pages * (double) size / 2
                                 : AGENT_MAX_TOTAL_CACHE_BYTES;
}

/* The one-DC cluster of our inventory, as lr_tm_new() wants it. */
static int
inventory_cluster(const struct lr_agent_config *cfg, struct lr_cluster **out)
{
    struct lr_cluster *c = lr_cluster_new();
    int rc = c ? lr_cluster_add_type(c, "private", cfg->peak_flops,
                                     cfg->efficiency, cfg->memory_bytes)
               : ENOMEM;
    if (!rc)
        rc = lr_cluster_add_dc(c, cfg->dc, "private", cfg->n_devices,
                               cfg->intra_bw, cfg->intra_latency, NULL);
    if (rc) {
        lr_cluster_free(c);
        c = NULL;
    }
    *out = c;
    return rc;
}

int
lr_cmd_agent(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct agent_opts o = {
        .max_cells = AGENT_MAX_STEP_CELLS,
        .frame_s = AGENT_FRAME_S,
        .idle_s = AGENT_IDLE_S,
        .max_bytes = AGENT_MAX_CACHE_BYTES,
        .max_total = agent_total_default(),
        .threads = cpus < 1 ? 1 : cpus > AGENT_DEFAULT_THREADS
                                  ? AGENT_DEFAULT_THREADS : cpus,
    };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    /* Until on_hup() catches SIGHUP, it is noted (early_hup()) and read
     * once the loop can: its default action would end an agent that
     * systemctl reload meets while it loads, which systemd counts as a
     * clean exit and does not restart.  (Blocking it would not do:
     * threads of the libraries may run already, and one of them would
     * take it.)  A --check, which never serves, ignores it so, and so
     * does the agent while it stops (event_free() gives early_hup()
     * back), its saves still to write. */
    struct sigaction hup = { .sa_handler = early_hup,
                             .sa_flags = SA_RESTART };
    sigemptyset(&hup.sa_mask);
    sigaction(SIGHUP, &hup, NULL);

    struct agent a = { .delay_ms = (int) o.delay_ms,
                       .delay_commit_ms = (int) o.delay_commit_ms,
                       .delay_save_ms = (int) o.delay_save_ms,
                       .frame_s = (int) o.frame_s,
                       .idle_s = (int) o.idle_s,
                       .max_cells = o.max_cells,
                       .max_bytes = o.max_bytes,
                       .max_total = o.max_total,
                       .device_step = (int) o.device_step,
                       .state_dir = o.state_dir, .config = o.config,
                       .state_fd = -1 };
    struct ly_ctx *ctx = NULL;
    char err[8192];
    bool serving = false;

    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    a.ly = ctx;
    if (lr_yang_load_agent(ctx, o.config, &a.cfg, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if ((rc = inventory_cluster(&a.cfg, &a.cluster))) {
        lr_cli_err(CMD, "%s: cannot use the inventory: %s", o.config,
                   strerror(rc));
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (!(a.ssl = server_ctx(&a.cfg, err, sizeof err))) {
        lr_cli_err(CMD, "%s: %s", o.config, err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    lr_tls_own_serial(a.ssl, a.serial, sizeof a.serial);
    struct sockaddr_storage ss;
    int sl = 0;
    if (parse_listen(o.listen, &ss, &sl)) {
        lr_cli_err(CMD, "--listen wants ADDRESS:PORT with a numeric "
                   "address, e.g. 127.0.0.1:7001 or [::1]:7001, not '%s'",
                   o.listen);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    /* --check reads the reservations as they were last saved, beside
     * the agent that may be running on the directory: no lock. */
    if (a.state_dir && !o.check
        && (rc = lr_agent_store_lock(a.state_dir, &a.state_fd, err,
                                     sizeof err))) {
        if (rc == EWOULDBLOCK)
            lr_cli_err(CMD, "--state-dir %s is in use by another agent (its "
                       "agent.pid): give each agent a directory of its own",
                       a.state_dir);
        else
            lr_cli_err(CMD, "%s: give a directory the agent may write",
                       err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    /* --check refuses what the start would: a --state-dir that is not a
     * directory (missing, say), which the lock opens; the reservations
     * file it then lacks would read as none. */
    if (a.state_dir && o.check) {
        int dir_fd = open(a.state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd < 0) {
            lr_cli_err(CMD, "--state-dir %s: %s: give a directory the "
                       "agent may write", a.state_dir, strerror(errno));
            rc = LR_EXIT_USAGE;
            goto cleanup;
        }
        close(dir_fd);
    }
    if (restore_reservations(&a, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    /* The CA verifies the coordinators' certificates: a leaf there (the
     * agent's own certificate, say) verifies none that a CA signed, and
     * the handshakes would fail one by one long after the start.  Only
     * --check refuses it, as a deployment's check: a start keeps taking
     * a self-signed coordinator's certificate pinned as its own CA. */
    char subject[256];
    int not_ca;
    if (o.check && (not_ca = lr_tls_ca_file_check(a.cfg.ca, subject,
                                                  sizeof subject))) {
        if (not_ca < 0)
            lr_cli_err(CMD, "%s: TLS CA '%s': no certificate reads in it "
                       "(want PEM certificates)", o.config, a.cfg.ca);
        else
            lr_cli_err(CMD, "%s: TLS CA '%s': certificate %d (%s) is no "
                       "CA's (its basicConstraints lack CA:TRUE): give "
                       "the certificate of the CA that signed the "
                       "coordinators' certificates, not a leaf's",
                       o.config, a.cfg.ca, not_ca, subject);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (o.check) {
        printf("%s: dc %s, %d devices, %d allowed peer(s), certificate, key"
               "%s loaded; %d reservation(s) holding %d device(s)%s\n",
               o.config, a.cfg.dc, a.cfg.n_devices, a.cfg.n_peers,
               a.cfg.crl[0] ? ", CA and CRL" : " and CA",
               a.n_commits, a.reserved,
               a.state_dir ? "" : " (no --state-dir: none kept)");
        rc = LR_EXIT_OK;
        goto cleanup;
    }
    if (o.record && !(a.record = fopen(o.record, "a"))) {
        lr_cli_err(CMD, "--record %s: %s", o.record, strerror(errno));
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    a.layers = calloc(LR_MODEL_MAX_LAYERS, sizeof *a.layers);
    a.tags = calloc(LR_WIRE_KEEP_MAX, sizeof *a.tags);
    a.in = malloc(sizeof *a.in);
    a.frame = malloc(AGENT_FRAME);
    if (!a.layers || !a.tags || !a.in || !a.frame
        || !(a.base = event_base_new())) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    for (int i = 0; i < o.threads; i++) {
        if (lr_worker_new(a.base, &a.workers[i], err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        a.n_workers++;
    }
    if (a.state_dir
        && lr_agent_store_new(a.base, a.state_dir, a.state_fd,
                              a.delay_save_ms, &a.store, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    /* Writes to a coordinator that hung up must fail, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    a.listener = evconnlistener_new_bind(
        a.base, on_accept, &a,
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
        -1, (struct sockaddr *) &ss, sl);
    if (!a.listener) {
        lr_cli_err(CMD, "cannot listen on %s: %s", o.listen,
                   strerror(errno ? errno : EADDRNOTAVAIL));
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    struct sockaddr_storage bound;
    socklen_t bl = sizeof bound;
    if (getsockname(evconnlistener_get_fd(a.listener),
                    (struct sockaddr *) &bound, &bl) == 0)
        a.port = bound.ss_family == AF_INET6
                 ? ntohs(((struct sockaddr_in6 *) &bound)->sin6_port)
                 : ntohs(((struct sockaddr_in *) &bound)->sin_port);
    a.sig_term = evsignal_new(a.base, SIGTERM, agent_leave, &a);
    a.sig_int = evsignal_new(a.base, SIGINT, agent_leave, &a);
    a.sig_hup = evsignal_new(a.base, SIGHUP, on_hup, &a);
    a.leave_late = evtimer_new(a.base, agent_leave_late, &a);
    if (!a.sig_term || !a.sig_int || !a.sig_hup || !a.leave_late
        || event_add(a.sig_term, NULL) || event_add(a.sig_int, NULL)
        || event_add(a.sig_hup, NULL)) {
        lr_cli_err(CMD, "cannot catch signals");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (!(a.crl_next = evtimer_new(a.base, on_crl_next, &a))) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    agent_crl_arm(&a);
    /* One that came since the start is read now, in the loop. */
    if (agent_hup_early)
        event_active(a.sig_hup, EV_SIGNAL, 1);
    if (o.state_dir
        && ((rc = write_state(o.state_dir, "agent.pid", (long) getpid()))
            || (rc = write_state(o.state_dir, "agent.port", a.port)))) {
        lr_cli_err(CMD, "--state-dir %s: %s", o.state_dir, strerror(rc));
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    serving = true;
    alog(&a, "serving on port %d: %d devices (private), %d allowed peer(s), "
         "%d DP thread(s), protocol revision %d (%s)", a.port,
         a.cfg.n_devices, a.cfg.n_peers, a.n_workers, agent_revision(&a),
         a.cfg.predecessors ? "predecessors in STEP_OK"
                            : "predecessors false: none in STEP_OK");
    event_base_dispatch(a.base);
    rc = LR_EXIT_OK;

cleanup:
    /* The workers first: a request still running ends and its answer
     * is dropped (conn_work_done), those still queued are dropped unrun
     * (conn_work_run; those taken back at the signal are skipped).  Then
     * the store: the saves queued are written, their answers dropped
     * (conn_saved); then no connection is busy. */
    atomic_store(&a.stopping, true);
    for (int i = 0; i < a.n_workers; i++)
        lr_worker_free(a.workers[i]);
    /* One line, each request never run counted once: before, those
     * taken back at the signal were counted again here, as "dropped
     * unrun", after the signal's line had said them told. */
    int dropped = atomic_load(&a.dropped);
    if (a.taken || dropped)
        alog(&a, "stopped: %d request(s) never run: %d taken back at the "
             "signal (their connections told so), %d dropped unrun at the "
             "exit", a.taken + dropped, a.taken, dropped);
    if (lr_agent_store_pending(a.store))
        alog(&a, "stopping: writing %d save(s) of the reservations",
             lr_agent_store_pending(a.store));
    lr_agent_store_free(a.store);
    while (a.conns)
        conn_free(a.conns);
    if (serving && o.state_dir) {
        remove_state(o.state_dir, "agent.port");
        remove_state(o.state_dir, "agent.pid");
    }
    if (a.listener)
        evconnlistener_free(a.listener);
    if (a.sig_term)
        event_free(a.sig_term);
    if (a.sig_int)
        event_free(a.sig_int);
    if (a.sig_hup)
        event_free(a.sig_hup);
    if (a.leave_late)
        event_free(a.leave_late);
    if (a.crl_next)
        event_free(a.crl_next);
    if (a.base)
        event_base_free(a.base);
    SSL_CTX_free(a.ssl);
    if (a.record)
        fclose(a.record);
    free(a.layers);
    free(a.tags);
    free(a.in);
    free(a.frame);
    free(a.commits);
    if (a.state_fd >= 0)
        close(a.state_fd);
    lr_cluster_free(a.cluster);
    lr_yang_ctx_free(ctx);
    return rc;
}
