/*
 * The fake agents of the agent party's tests (test_agent_party.c) and
 * of the controller's with agents (test_ctl_agents.c): see
 * lr_test_fake_agent.h.
 */
#define _GNU_SOURCE 1           /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "tests/unit/lr_test_fake_agent.h"

/* Certificates made once for the fake agents: a CA, the agent "dc1" and
 * the coordinator, in fk_dir; fk_ok false when openssl cannot make
 * them (the tests are then skipped). */
char fk_dir[256];
bool fk_ok;

const char *
fk_path(const char *file)
{
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", fk_dir, file);
    return b;
}

bool
fk_certs(void)
{
    if (fk_dir[0])
        return fk_ok;
    snprintf(fk_dir, sizeof fk_dir, "/tmp/lr-test-party-%d.d", (int) getpid());
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "{ set -e; mkdir -p %s; cd %s; "
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
             "-nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=ca "
             "-addext basicConstraints=critical,CA:TRUE "
             "-addext keyUsage=critical,keyCertSign; "
             "for n in dc1 coordinator; do "
             "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
             "-keyout $n.key -out $n.csr -subj /CN=$n; "
             "printf 'subjectAltName=DNS:%%s\\nbasicConstraints=CA:FALSE\\n' "
             "$n > $n.ext; "
             "openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key "
             "-CAcreateserial -out $n.pem -days 1 -extfile $n.ext; done; } "
             ">/dev/null 2>&1", fk_dir, fk_dir);
    fk_ok = system(cmd) == 0;
    if (!fk_ok)
        fprintf(stderr, "openssl cannot make certificates: skipped\n");
    return fk_ok;
}

void
fk_cleanup(void)
{
    if (!fk_dir[0])
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fk_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", fk_dir);
}

/* In the fake's process: its listening socket, which a script may close
 * (-1, as a stopping agent does: connections refused); the fake opens it
 * again on the same port fk_restart_ms after the connection ends. */
int fk_listen = -1;
int fk_restart_ms = 300;

struct lr_layer fk_layers[LR_MODEL_MAX_LAYERS];
struct lr_cdynp_summary fk_sum;
char fk_tags[LR_WIRE_KEEP_MAX][LR_WIRE_NAME_MAX];
static uint8_t fk_buf[LR_WIRE_MAX_FRAME + 4];

/* In the fake's process: fk_stop() asked it to end (SIGTERM). */
static volatile sig_atomic_t fk_stopping;

static void
fk_on_term(int sig)
{
    (void) sig;
    fk_stopping = 1;
}

/* Reads one request into 'm' (false at EOF or on a bad frame). */
bool
fk_read(struct fk_conn *c, struct lr_wire_msg *m)
{
    size_t got = 0, want = 4;
    int err;
    while (got < want) {
        int n = SSL_read(c->ssl, fk_buf + got, (int) (want - got));
        if (n <= 0)
            return false;
        got += (size_t) n;
        if (got == 4 && want == 4) {
            want = lr_wire_frame_size(fk_buf, 4, &err);
            if (err)
                return false;
        }
    }
    memset(m, 0, sizeof *m);
    m->layers = fk_layers;
    m->layers_cap = LR_MODEL_MAX_LAYERS;
    m->summary = &fk_sum;
    m->tags = fk_tags;
    m->tags_cap = LR_WIRE_KEEP_MAX;
    return lr_wire_decode(fk_buf, want, m) == 0;
}

/* Writes 'm' as one frame, in pieces of 'chunk' bytes (0: at once),
 * 'pause_ms' apart. */
void
fk_send(struct fk_conn *c, const struct lr_wire_msg *m, size_t chunk,
        int pause_ms)
{
    static uint8_t out[LR_WIRE_MAX_FRAME + 4];
    size_t n = lr_wire_encode(m, out, sizeof out);
    if (!n)
        _exit(3);
    for (size_t at = 0; at < n;) {
        size_t k = chunk && chunk < n - at ? chunk : n - at;
        if (SSL_write(c->ssl, out + at, (int) k) != (int) k)
            return;
        at += k;
        if (pause_ms && at < n)
            usleep((useconds_t) pause_ms * 1000);
    }
}

void
fk_hello_ok(struct fk_conn *c, uint32_t id)
{
    struct lr_wire_msg a = { .type = LR_WIRE_HELLO_OK, .id = id,
                             .compute = 1e15 };
    snprintf(a.name, sizeof a.name, "dc1");
    fk_send(c, &a, 0, 0);
}

/* Tells the test a step is done. */
void
fk_note(struct fk_conn *c)
{
    if (write(c->note, "x", 1) != 1)
        _exit(3);
}

/* Tells the test a request of kind 'k' came (fk_count_kinds()). */
void
fk_note_kind(struct fk_conn *c, char k)
{
    if (write(c->note, &k, 1) != 1)
        _exit(3);
}

/* FK_NOTE_WAIT_S at most (lr_test_fake_agent.h). */
void
fk_wait_note(struct fake *f)
{
    struct pollfd pfd = { .fd = f->note, .events = POLLIN };
    int n;
    do
        n = poll(&pfd, 1, FK_NOTE_WAIT_S * 1000);
    while (n < 0 && errno == EINTR);
    CU_ASSERT_EQUAL(n, 1);      /* not fatal: the test goes on to fk_stop() */
    char x;
    if (n == 1)
        CU_ASSERT_EQUAL(read(f->note, &x, 1), 1);
}

/* A fake agent for 'conns' connections, each served by 'script'. */
bool
fk_start(struct fake *f, fk_script *script, int conns)
{
    int pfd[2] = { -1, -1 }, gfd[2] = { -1, -1 };
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    /* The pipes close on exec and on every failure here: a later fake's
     * fork or a failed start keeps none of them. */
    if (ls < 0 || bind(ls, (struct sockaddr *) &sa, sizeof sa)
        || listen(ls, 8) || getsockname(ls, (struct sockaddr *) &sa, &sl)
        || pipe2(pfd, O_CLOEXEC) || pipe2(gfd, O_CLOEXEC)) {
        perror("fake agent");
        goto fail;
    }
    fflush(NULL);
    f->pid = fork();
    if (f->pid < 0) {
        perror("fake agent: fork");
        goto fail;
    }
    if (f->pid == 0) {
        /* Gone with the test program: a FATAL assertion between
         * fk_start() and fk_stop() skips the stop, and a fake left
         * behind would hold make's pipe open (make check hangs). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
            _exit(3);
        close(pfd[0]);
        close(gfd[1]);
        signal(SIGPIPE, SIG_IGN);
        /* fk_stop()'s SIGTERM ends what the fake is doing (no
         * SA_RESTART: a nap, an accept or a read returns EINTR), the
         * script frees what it holds, and the fake exits below.  Killed
         * by the signal's default action instead, a script's memory was
         * lost under valgrind (script_old_planner()'s held request). */
        struct sigaction term = { .sa_handler = fk_on_term };
        sigemptyset(&term.sa_mask);
        sigaction(SIGTERM, &term, NULL);
        char err[512];
        SSL_CTX *ctx = lr_agent_tls_ctx(TLS_server_method(),
                                        fk_path("dc1.pem"),
                                        fk_path("dc1.key"), err, sizeof err);
        if (!ctx || SSL_CTX_load_verify_locations(ctx, fk_path("ca.pem"),
                                                  NULL) != 1)
            _exit(3);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER
                           | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
        SSL_CTX_set_num_tickets(ctx, 0);
        fk_listen = ls;
        for (int i = 0; i < conns && !fk_stopping; i++) {
            struct fk_conn c = { .index = i, .note = pfd[1],
                                 .go = gfd[0] };
            if (fk_listen < 0) {
                /* Started again on the same port. */
                usleep((useconds_t) fk_restart_ms * 1000);
                if (fk_stopping)
                    break;
                int on = 1;
                fk_listen = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fk_listen < 0
                    || setsockopt(fk_listen, SOL_SOCKET, SO_REUSEADDR, &on,
                                  sizeof on)
                    || bind(fk_listen, (struct sockaddr *) &sa, sizeof sa)
                    || listen(fk_listen, 8))
                    _exit(3);
            }
            if ((c.fd = accept(fk_listen, NULL, NULL)) < 0) {
                if (fk_stopping)
                    break;
                _exit(3);
            }
            /* As the agent's (cmd_agent.c): without it a small frame
             * after an answer not yet acknowledged (a close_notify) waits
             * for the coordinator's delayed ACK, up to 40 ms. */
            int one = 1;
            setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            c.ssl = SSL_new(ctx);
            SSL_set_fd(c.ssl, c.fd);
            if (SSL_accept(c.ssl) == 1)
                script(&c);
            SSL_shutdown(c.ssl);
            SSL_free(c.ssl);
            close(c.fd);
        }
        /* Until the test stops us: a closed listener would refuse. */
        sigset_t block, wait;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigprocmask(SIG_BLOCK, &block, &wait);
        while (!fk_stopping)
            sigsuspend(&wait);
        if (fk_listen >= 0)
            close(fk_listen);
        SSL_CTX_free(ctx);
        _exit(0);
    }
    close(ls);
    close(pfd[1]);
    close(gfd[0]);
    f->note = pfd[0];
    f->go = gfd[1];
    f->port = ntohs(sa.sin_port);
    return true;
fail:
    if (ls >= 0)
        close(ls);
    for (int i = 0; i < 2; i++) {
        if (pfd[i] >= 0)
            close(pfd[i]);
        if (gfd[i] >= 0)
            close(gfd[i]);
    }
    return false;
}

void
fk_stop(struct fake *f)
{
    /* SIGTERM again every 10 ms: one that came between the fake's look
     * at fk_stopping and its accept() or nap is not lost.  A fake still
     * there after FK_STOP_WAIT_S (a script that waits on the test) is
     * killed. */
    int st = 0;
    for (int i = 0; i < FK_STOP_WAIT_S * 100; i++) {
        kill(f->pid, SIGTERM);
        if (waitpid(f->pid, &st, WNOHANG) == f->pid)
            goto closed;
        usleep(10 * 1000);
    }
    kill(f->pid, SIGKILL);
    waitpid(f->pid, &st, 0);
closed:
    /* Under `make check LR_VALGRIND=1` the fake is valgrind's too: an
     * error or a definite leak of its own is its exit status
     * FK_VALGRIND_ERROR, which the test's would not show. */
    if (WIFEXITED(st) && WEXITSTATUS(st) == FK_VALGRIND_ERROR)
        fprintf(stderr, "the fake agent (pid %d): valgrind found errors in "
                "it (above)\n", (int) f->pid);
    CU_ASSERT(!WIFEXITED(st) || WEXITSTATUS(st) != FK_VALGRIND_ERROR);
    close(f->note);
    close(f->go);
}

/* A party of the coordinator for fake agent 'f', with a job set. */
struct lr_cdynp_party *
fk_party(const struct fake *f, const struct lr_tm *tm, double timeout)
{
    char err[512];
    struct lr_cdynp_party *p = lr_agent_party_new(
        "127.0.0.1", f->port, "dc1", fk_path("coordinator.pem"),
        fk_path("coordinator.key"), fk_path("ca.pem"), NULL, timeout, err,
        sizeof err);
    if (!p)
        fprintf(stderr, "party: %s\n", err);
    else
        lr_agent_party_set_job(p, tm);
    return p;
}

int
fk_party_answer(struct lr_cdynp_party *p, const struct lr_wire_msg *m,
                struct lr_wire_msg *a, struct lr_cdynp_summary *out, int dc)
{
    switch (m->type) {
    case LR_WIRE_STEP:
        a->type = LR_WIRE_STEP_OK;
        a->has_summary = 1;
        a->summary = out;
        return p->cls->step(p, m->objective, m->assumed,
                            m->has_summary ? m->summary : NULL, &m->link,
                            m->position, m->lo, m->hi, out);
    case LR_WIRE_BACKTRACK:
        a->type = LR_WIRE_BACKTRACK_OK;
        a->has_stages = lr_cdynp_obj_bound(m->objective);
        return p->cls->backtrack(p, m->objective, m->assumed, m->last,
                                 m->stages, &a->prev_last, &a->prev_stages);
    case LR_WIRE_FINISH:
    case LR_WIRE_COMMIT:
        a->type = LR_WIRE_FINISH_OK;
        return p->cls->finish(p, m->objective, m->assumed, m->first, m->last,
                              m->stages, dc, NULL, &a->n_stages);
    default:
        return 0;
    }
}

void
fk_goodbye(struct fk_conn *c)
{
    struct lr_wire_msg a = { .type = LR_WIRE_ERROR, .code = ESHUTDOWN }, m;
    close(fk_listen);
    fk_listen = -1;
    snprintf(a.text, sizeof a.text, "%s", GOODBYE);
    fk_send(c, &a, 0, 0);
    SSL_shutdown(c->ssl);
    while (fk_read(c, &m))
        continue;
}
