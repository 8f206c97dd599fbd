/*
 * lr_dbl_loop: what every HTTP test double shares: a libevent loop with
 * an evhttp server bound to 127.0.0.1 on a port the kernel picks (port
 * 0), run on a thread of its own, and a stop flag the loop polls every
 * 20 ms (libevent's loopbreak is not safe from another thread unless
 * libevent was built with threads enabled, which a test need not do).
 *
 * Used by tests/unit/mno_double.c (Mininet-Optical) and
 * tests/doubles/restconf_double.c (RESTCONF), in a test program or as a
 * process of their own (tests/cli/mno_double_main.c,
 * tests/doubles/restconf_double_main.c).
 *
 * Ownership: the loop owns its event base, evhttp and tick event; the
 * request callback's argument and whatever 'bevcb' uses (an SSL_CTX)
 * are borrowed and must outlive lr_dbl_loop_stop().
 */
#ifndef LR_DBL_LOOP_H
#define LR_DBL_LOOP_H 1

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct event_base;
struct evhttp;
struct evhttp_request;
struct event;
struct bufferevent;

struct lr_dbl_loop {
    struct event_base *base;
    struct evhttp *http;
    struct event *tick;
    pthread_t thread;
    int port;                 /* where it listens, once started */
    atomic_bool stop;
    bool running;
};

/* Binds 127.0.0.1:'port' (0: any free port) with the methods 'methods' (EVHTTP_REQ_* or'ed),
 * every request to 'cb' (with 'arg'), connections made by 'bevcb' when
 * not NULL (HTTPS: bufferevent_openssl_socket_new(...)), and starts the
 * thread.  0, or 1 with a line on stderr (everything made is freed). */
int lr_dbl_loop_start(struct lr_dbl_loop *l, int port, int methods,
                      void (*cb)(struct evhttp_request *, void *),
                      struct bufferevent *(*bevcb)(struct event_base *,
                                                   void *),
                      void *arg);

/* Stops the thread (within one tick) and frees the loop; a loop never
 * started, or stopped already, is fine. */
void lr_dbl_loop_stop(struct lr_dbl_loop *l);

#endif
