/*
 * lr_test_stuck: a TCP listener on 127.0.0.1 whose connect()s never
 * complete, for the southbound's "the connect timed out" (nothing was
 * sent) without a network: the test may not use an unroutable address.
 *
 * How: listen() with a backlog of 0 takes one connection into its
 * accept queue; nobody accepts it, and the kernel drops every later SYN
 * while the queue is full, so a later connect() waits for an answer
 * that never comes, until its caller's timeout.  The listener fills its
 * queue with connections of its own, and checks that one of them is
 * left waiting, before it is handed out.
 *
 * Header-only like the other lr_test_*.h; no CUnit.
 */
#ifndef LR_TEST_STUCK_H
#define LR_TEST_STUCK_H 1

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define LR_TEST_STUCK_FILL 8

struct lr_test_stuck {
    int listener;                     /* -1: none */
    int fill[LR_TEST_STUCK_FILL];     /* our connections; -1 unused */
    int port;
};

/* Closes whatever 's' holds; safe on a zeroed or failed one. */
static inline void
lr_test_stuck_stop(struct lr_test_stuck *s)
{
    if (s->listener >= 0)
        close(s->listener);
    s->listener = -1;
    for (int i = 0; i < LR_TEST_STUCK_FILL; i++) {
        if (s->fill[i] >= 0)
            close(s->fill[i]);
        s->fill[i] = -1;
    }
}

/* 0 with s->port a port on 127.0.0.1 where a connect() hangs, or -1
 * (nothing held).  The 200 ms wait only tells a connection that is
 * still waiting from one the kernel took at once (loopback answers in
 * microseconds); nothing is asserted of it.  Stop with
 * lr_test_stuck_stop(). */
static inline int
lr_test_stuck_start(struct lr_test_stuck *s)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof a;

    s->listener = -1;
    s->port = 0;
    for (int i = 0; i < LR_TEST_STUCK_FILL; i++)
        s->fill[i] = -1;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listener < 0
        || bind(s->listener, (struct sockaddr *) &a, sizeof a)
        || listen(s->listener, 0)
        || getsockname(s->listener, (struct sockaddr *) &a, &alen))
        goto fail;
    s->port = ntohs(a.sin_port);
    for (int i = 0; i < LR_TEST_STUCK_FILL; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        0);
        if (fd < 0)
            goto fail;
        s->fill[i] = fd;
        if (connect(fd, (struct sockaddr *) &a, sizeof a) == 0)
            continue;
        if (errno != EINPROGRESS)
            goto fail;
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        if (poll(&p, 1, 200) == 0)
            return 0;   /* this one waits: the queue is full */
    }
fail:
    lr_test_stuck_stop(s);
    return -1;
}

#endif
