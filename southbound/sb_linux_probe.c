/*
 * sb_linux_probe: a TCP transfer over one emulated lightpath, timed.
 *
 * Two child processes, one per namespace (setns on /run/netns/NAME; a
 * child is single-threaded, so entering a namespace is safe and ends
 * with the child): the receiver listens on the destination end's
 * address (an ephemeral port it reports on a pipe), reads until the
 * sender closes its half, and answers one byte; the sender connects,
 * starts the clock, writes 'bytes', closes its half, waits for that byte
 * and stops the clock.  The time therefore covers every byte reaching
 * the receiving application, not just leaving the sender's buffer.  The
 * parent only waits (poll, 100 ms at a time, so that a stop request is
 * seen) and kills both children on a stop or a timeout.
 *
 * A child dies with the parent (PR_SET_PDEATHSIG) and keeps no
 * descriptor but its report pipe and the standard ones: a run killed
 * with SIGKILL must leave no process in its namespaces, and an inherited
 * copy of the handle's prefix lock (an flock holds while any descriptor
 * of its open file does) would have the next run refused as "in use"
 * for as long as an orphan lived, and for ever with a receiver waiting
 * in accept().
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "southbound/sb_linux.h"

#define PROBE_CHUNK (256 * 1024)

static double
mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
enter(const char *ns)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/run/netns/%s", ns);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

static int
write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t) n;
    }
    return 0;
}

/* The start of either child, forked by 'parent' (see the top). */
static void
child_init(pid_t parent, int report)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
        _exit(6);
    if (report > 3 && close_range(3, (unsigned) report - 1, 0))
        _exit(6);
    if (close_range((unsigned) report + 1, ~0U, 0))
        _exit(6);
}

/* The receiver child: reports its port (or 0) on 'report'. */
static void __attribute__((noreturn))
receiver(const struct sb_linux_link *l, uint64_t bytes, pid_t parent,
         int report)
{
    child_init(parent, report);
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof a;
    int s = -1, c = -1;
    unsigned short port = 0;
    if (enter(l->dst_ns) == 0 && (s = socket(AF_INET, SOCK_STREAM, 0)) >= 0
        && inet_pton(AF_INET, l->dst_addr, &a.sin_addr) == 1
        && bind(s, (struct sockaddr *) &a, sizeof a) == 0
        && listen(s, 1) == 0
        && getsockname(s, (struct sockaddr *) &a, &alen) == 0)
        port = ntohs(a.sin_port);
    if (write_all(report, &port, sizeof port) || !port)
        _exit(2);
    c = accept(s, NULL, NULL);
    if (c < 0)
        _exit(3);
    static char buf[PROBE_CHUNK];
    uint64_t got = 0;
    for (;;) {
        ssize_t n = read(c, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (uint64_t) n;
    }
    char ack = got == bytes ? 'k' : 'x';
    if (write_all(c, &ack, 1))
        _exit(4);
    close(c);
    close(s);
    _exit(got == bytes ? 0 : 5);
}

/* The sender child: reports the seconds (or a negative number). */
static void __attribute__((noreturn))
sender(const struct sb_linux_link *l, unsigned short port, uint64_t bytes,
       pid_t parent, int report)
{
    child_init(parent, report);
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_port = htons(port) };
    double t = -1;
    int s = -1;
    static char buf[PROBE_CHUNK];
    memset(buf, 0x5a, sizeof buf);
    if (enter(l->src_ns) == 0 && (s = socket(AF_INET, SOCK_STREAM, 0)) >= 0
        && inet_pton(AF_INET, l->dst_addr, &a.sin_addr) == 1
        && connect(s, (struct sockaddr *) &a, sizeof a) == 0) {
        double t0 = mono_s();
        uint64_t left = bytes;
        int ok = 1;
        while (ok && left > 0) {
            size_t n = left < sizeof buf ? (size_t) left : sizeof buf;
            ok = !write_all(s, buf, n);
            left -= n;
        }
        char ack = 0;
        if (ok && !shutdown(s, SHUT_WR) && read(s, &ack, 1) == 1
            && ack == 'k')
            t = mono_s() - t0;
        else
            t = -2;
    }
    write_all(report, &t, sizeof t);
    _exit(t >= 0 ? 0 : 1);
}

static void
reap(pid_t pid, bool kill_it)
{
    if (pid <= 0)
        return;
    if (kill_it)
        kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Reads 'len' bytes from 'fd' within 'timeout' s; 0, ETIMEDOUT, EINTR
 * (stopped) or EIO. */
static int
wait_read(int fd, void *buf, size_t len, double timeout,
          volatile const int *stop)
{
    double end = mono_s() + timeout;
    size_t got = 0;
    while (got < len) {
        if (stop && *stop)
            return EINTR;
        if (mono_s() > end)
            return ETIMEDOUT;
        struct pollfd p = { fd, POLLIN, 0 };
        int r = poll(&p, 1, 100);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return EIO;
        if (r == 0)
            continue;
        ssize_t n = read(fd, (char *) buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return EIO;
        got += (size_t) n;
    }
    return 0;
}

int
sb_linux_probe(const struct sb_linux *lx, const char *name, uint64_t bytes,
               volatile const int *stop, double *seconds,
               double *goodput_bps, char *err, size_t errlen)
{
    struct sb_linux_link l;
    int rp[2] = { -1, -1 }, sp[2] = { -1, -1 }, rc = 0;
    pid_t rpid = -1, spid = -1;
    if (sb_linux_get(lx, name, &l))
        return sb_errf(err, errlen, ENOENT, "no emulated lightpath %s", name);
    if (bytes == 0)
        return sb_errf(err, errlen, EINVAL, "probe of %s: nothing to send",
                       name);
    /* Four times the shaped time, plus slack for a loaded machine. */
    double timeout = (double) bytes * 8 / l.rate_bps * 4 + 10;
    if (pipe2(rp, O_CLOEXEC) || pipe2(sp, O_CLOEXEC)) {
        rc = sb_errf(err, errlen, errno, "pipe: %s", strerror(errno));
        goto cleanup;
    }
    fflush(NULL);
    pid_t self = getpid();
    rpid = fork();
    if (rpid == 0)
        receiver(&l, bytes, self, rp[1]);
    if (rpid < 0) {
        rc = sb_errf(err, errlen, errno, "fork: %s", strerror(errno));
        goto cleanup;
    }
    unsigned short port = 0;
    rc = wait_read(rp[0], &port, sizeof port, 10, stop);
    if (rc || !port) {
        rc = rc == EINTR ? sb_errf(err, errlen, EINTR, "probe of %s stopped",
                                   name)
             : sb_errf(err, errlen, EIO, "probe of %s: the receiver could not "
                       "listen on %s in %s; is the namespace there?", name,
                       l.dst_addr, l.dst_ns);
        goto cleanup;
    }
    spid = fork();
    if (spid == 0)
        sender(&l, port, bytes, self, sp[1]);
    if (spid < 0) {
        rc = sb_errf(err, errlen, errno, "fork: %s", strerror(errno));
        goto cleanup;
    }
    double t = -1;
    rc = wait_read(sp[0], &t, sizeof t, timeout, stop);
    if (rc == EINTR)
        rc = sb_errf(err, errlen, EINTR, "probe of %s stopped", name);
    else if (rc == ETIMEDOUT)
        rc = sb_errf(err, errlen, ETIMEDOUT, "probe of %s: %llu bytes did not "
                     "arrive in %.0f s", name, (unsigned long long) bytes,
                     timeout);
    else if (rc || !(t > 0))
        rc = sb_errf(err, errlen, EIO,
                     "probe of %s: the transfer from %s (%s) "
                     "to %s (%s) failed", name, l.src_addr, l.src_ns,
                     l.dst_addr, l.dst_ns);
    if (!rc) {
        *seconds = t;
        if (goodput_bps)
            *goodput_bps = (double) bytes * 8 / t;
    }

cleanup:
    reap(spid, rc != 0);
    reap(rpid, rc != 0);
    for (int i = 0; i < 2; i++) {
        if (rp[i] >= 0)
            close(rp[i]);
        if (sp[i] >= 0)
            close(sp[i]);
    }
    return rc;
}
