/*
 * nb_conns: how many connections a listener of this process has open,
 * asked of the kernel.
 *
 * libevent 2.1 says nothing when a plain HTTP connection ends unless a
 * request came on it (evhttp_connection_set_closecb needs the request's
 * connection; a connection that never sends one is freed silently), so
 * the plain listener cannot keep a count of its own.  The kernel can:
 * the sockets accepted from a listener are exactly this process's
 * sockets whose local address is the listener's and that have a peer
 * (the listener itself has none; a client socket of ours cannot have a
 * bound listener's address).  A socket the peer closed but libevent has
 * not freed yet still holds a descriptor here, and is counted.
 *
 * Cost: one getsockname() per open descriptor (listed from
 * /proc/self/fd, or every number below RLIMIT_NOFILE when /proc is not
 * mounted), and a getpeername() per match.  The server counts only when
 * the accepts since its last count reach its cap (nb_server.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "northbound/nb_int.h"

/* Enough for any descriptor table lightraild runs with; beyond it the
 * /proc listing is the only way (and the one used on Linux). */
#define NB_CONNS_SCAN_MAX 65536

static bool
same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *) a, *y = (const void *) b;
        return x->sin_port == y->sin_port
               && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *) a, *y = (const void *) b;
        return x->sin6_port == y->sin6_port
               && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
    }
    return false;
}

/* 1 when descriptor 'fd' is a connection accepted from 'local'. */
static int
is_accepted(int fd, const struct sockaddr_storage *local)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    memset(&ss, 0, sizeof ss);
    if (getsockname(fd, (struct sockaddr *) &ss, &len)
        || !same_addr(&ss, local))
        return 0;
    len = sizeof ss;
    return getpeername(fd, (struct sockaddr *) &ss, &len) == 0;
}

int
nb_conns_count(const struct sockaddr_storage *local)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        const int own = dirfd(d);
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            char *end;
            long fd = strtol(e->d_name, &end, 10);
            if (*end || end == e->d_name || fd == own || fd < 0)
                continue;
            n += is_accepted((int) fd, local);
        }
        closedir(d);
        return n;
    }
    struct rlimit rl;
    rlim_t top = NB_CONNS_SCAN_MAX;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < top)
        top = rl.rlim_cur;
    for (rlim_t fd = 0; fd < top; fd++)
        n += is_accepted((int) fd, local);
    return n;
}
