/* lr_dbl_loop: the thread, stop tick and port-0 server of the HTTP test
 * doubles; see lr_dbl_loop.h. */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <event2/http.h>

#include "tests/doubles/lr_dbl_loop.h"

static void
lr_dbl_tick(evutil_socket_t fd, short what, void *arg)
{
    struct lr_dbl_loop *l = arg;
    (void) fd;
    (void) what;
    if (atomic_load(&l->stop))
        event_base_loopbreak(l->base);
}

static void *
lr_dbl_run(void *arg)
{
    struct lr_dbl_loop *l = arg;
    event_base_dispatch(l->base);
    return NULL;
}

static void
lr_dbl_free(struct lr_dbl_loop *l)
{
    if (l->tick)
        event_free(l->tick);
    if (l->http)
        evhttp_free(l->http);
    if (l->base)
        event_base_free(l->base);
    l->tick = NULL;
    l->http = NULL;
    l->base = NULL;
}

int
lr_dbl_loop_start(struct lr_dbl_loop *l, int port, int methods,
                  void (*cb)(struct evhttp_request *, void *),
                  struct bufferevent *(*bevcb)(struct event_base *, void *),
                  void *arg)
{
    struct evhttp_bound_socket *s;
    struct sockaddr_in sin;
    socklen_t sl = sizeof sin;
    struct timeval tv = { 0, 20000 };

    memset(l, 0, sizeof *l);
    atomic_init(&l->stop, false);
    if (!(l->base = event_base_new()) || !(l->http = evhttp_new(l->base))) {
        fprintf(stderr, "test double: out of memory\n");
        goto fail;
    }
    evhttp_set_allowed_methods(l->http, (ev_uint16_t) methods);
    if (bevcb)
        evhttp_set_bevcb(l->http, bevcb, arg);
    evhttp_set_gencb(l->http, cb, arg);
    if (!(s = evhttp_bind_socket_with_handle(l->http, "127.0.0.1",
                                                (ev_uint16_t) port))
        || getsockname(evhttp_bound_socket_get_fd(s),
                       (struct sockaddr *) &sin, &sl)) {
        fprintf(stderr, "test double: cannot listen on 127.0.0.1:%d\n", port);
        goto fail;
    }
    l->port = ntohs(sin.sin_port);
    if (!(l->tick = event_new(l->base, -1, EV_PERSIST, lr_dbl_tick, l))
        || event_add(l->tick, &tv)
        || pthread_create(&l->thread, NULL, lr_dbl_run, l)) {
        fprintf(stderr, "test double: cannot start its thread\n");
        goto fail;
    }
    l->running = true;
    return 0;
fail:
    lr_dbl_free(l);
    return 1;
}

void
lr_dbl_loop_stop(struct lr_dbl_loop *l)
{
    if (l->running) {
        atomic_store(&l->stop, true);
        pthread_join(l->thread, NULL);
        l->running = false;
    }
    lr_dbl_free(l);
}
