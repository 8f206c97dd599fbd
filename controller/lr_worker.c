/*
 * lr_worker: see lr_worker.h.
 *
 * Why a pipe rather than event_active() from the worker: event_active
 * across threads needs libevent's locking (evthread_use_pthreads, one
 * more library and a lock on every event of the loop); a byte on a
 * pipe wakes the loop with no shared libevent state at all.  The pipe
 * carries no data: the queue under the lock does.  A byte per op, and
 * the loop drains every finished op per wake-up, so a full pipe (the
 * loop far behind) loses nothing: the write fails with EAGAIN and the
 * bytes already there wake the loop anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "controller/lr_ctl.h"
#include "controller/lr_worker.h"

struct lr_worker_item {
    struct lr_worker_item *next;
    struct lr_ctl_op *op;             /* an op, or */
    lr_worker_run_fn *run;            /* any work: run(arg), fn_done */
    void *arg;
    lr_worker_done *done;
    lr_worker_fn_done *fn_done;
    void *cookie;
};

/* An item's work, on whichever thread runs it. */
static void
item_run(struct lr_worker_item *it)
{
    if (it->run)
        it->run(it->arg);
    else
        lr_ctl_op_run(it->op);
}

/* A FIFO of items. */
struct lr_worker_fifo {
    struct lr_worker_item *head, *tail;
};

struct lr_worker {
    pthread_t thread;
    bool started;
    pthread_mutex_t lock;
    pthread_cond_t wake;           /* todo has items, or stop */
    struct lr_worker_fifo todo;    /* under lock */
    struct lr_worker_fifo done;    /* under lock */
    bool stop;                     /* under lock */
    int pending;                   /* the loop's: pushed, not yet done */
    int pipe[2];                   /* [1] the worker's, [0] the loop's */
    struct event *ev;              /* reads pipe[0] */
};

static void
fifo_put(struct lr_worker_fifo *f, struct lr_worker_item *it)
{
    it->next = NULL;
    if (f->tail)
        f->tail->next = it;
    else
        f->head = it;
    f->tail = it;
}

static struct lr_worker_item *
fifo_take_all(struct lr_worker_fifo *f)
{
    struct lr_worker_item *all = f->head;
    f->head = f->tail = NULL;
    return all;
}

static void *
lr_worker_main(void *arg)
{
    struct lr_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->todo.head && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        struct lr_worker_item *it = w->todo.head;
        if (!it)
            break;                 /* stop, and nothing left to run */
        w->todo.head = it->next;
        if (!w->todo.head)
            w->todo.tail = NULL;
        pthread_mutex_unlock(&w->lock);
        item_run(it);
        pthread_mutex_lock(&w->lock);
        fifo_put(&w->done, it);
        char b = 1;
        /* EAGAIN: the loop has bytes to wake it already. */
        if (write(w->pipe[1], &b, 1) < 0 && errno != EAGAIN)
            perror("lr_worker: write");
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Hands every finished op back, in the order they ran. */
static void
lr_worker_deliver(struct lr_worker *w)
{
    pthread_mutex_lock(&w->lock);
    struct lr_worker_item *it = fifo_take_all(&w->done);
    pthread_mutex_unlock(&w->lock);
    while (it) {
        struct lr_worker_item *next = it->next;
        w->pending--;
        if (it->run)
            it->fn_done(it->cookie, it->arg);
        else
            it->done(it->cookie, it->op);
        free(it);
        it = next;
    }
}

static void
lr_worker_on_pipe(evutil_socket_t fd, short what, void *arg)
{
    char buf[64];
    (void) what;
    while (read(fd, buf, sizeof buf) > 0)
        continue;
    lr_worker_deliver(arg);
}

int
lr_worker_new(struct event_base *base, struct lr_worker **out, char *err,
              size_t errlen)
{
    struct lr_worker *w = calloc(1, sizeof *w);
    int rc;
    *out = NULL;
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    w->pipe[0] = w->pipe[1] = -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pipe(w->pipe)
        || fcntl(w->pipe[0], F_SETFL, O_NONBLOCK)
        || fcntl(w->pipe[1], F_SETFL, O_NONBLOCK)
        || fcntl(w->pipe[0], F_SETFD, FD_CLOEXEC)
        || fcntl(w->pipe[1], F_SETFD, FD_CLOEXEC)) {
        rc = errno;
        snprintf(err, errlen, "the device worker's pipe: %s", strerror(rc));
        goto fail;
    }
    w->ev = event_new(base, w->pipe[0], EV_READ | EV_PERSIST,
                      lr_worker_on_pipe, w);
    if (!w->ev || event_add(w->ev, NULL)) {
        rc = ENOMEM;
        snprintf(err, errlen, "the device worker's event: out of memory");
        goto fail;
    }
    if ((rc = pthread_create(&w->thread, NULL, lr_worker_main, w))) {
        snprintf(err, errlen, "cannot start the device worker thread: %s",
                 strerror(rc));
        goto fail;
    }
    w->started = true;
    *out = w;
    return 0;

fail:
    lr_worker_free(w);
    return rc;
}

/* Queues 'it' (filled but for the links). */
static int
push_item(struct lr_worker *w, struct lr_worker_item *it)
{
    pthread_mutex_lock(&w->lock);
    fifo_put(&w->todo, it);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    w->pending++;
    return 0;
}

int
lr_worker_push(struct lr_worker *w, struct lr_ctl_op *op,
               lr_worker_done *done, void *cookie)
{
    struct lr_worker_item *it = calloc(1, sizeof *it);
    if (!it)
        return ENOMEM;
    it->op = op;
    it->done = done;
    it->cookie = cookie;
    return push_item(w, it);
}

int
lr_worker_push_fn(struct lr_worker *w, lr_worker_run_fn *run, void *arg,
                  lr_worker_fn_done *done, void *cookie)
{
    struct lr_worker_item *it = calloc(1, sizeof *it);
    if (!it)
        return ENOMEM;
    it->run = run;
    it->arg = arg;
    it->fn_done = done;
    it->cookie = cookie;
    return push_item(w, it);
}

int
lr_worker_pending(const struct lr_worker *w)
{
    return w ? w->pending : 0;
}

void
lr_worker_free(struct lr_worker *w)
{
    if (!w)
        return;
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        lr_worker_deliver(w);
        /* A 'done' may push more (lightraild's decider hands the next
         * ppo intent waiting to itself): the thread is gone, so it runs
         * here, in order, until nothing is left. */
        for (;;) {
            pthread_mutex_lock(&w->lock);
            struct lr_worker_item *it = fifo_take_all(&w->todo);
            pthread_mutex_unlock(&w->lock);
            if (!it)
                break;
            while (it) {
                struct lr_worker_item *next = it->next;
                item_run(it);
                pthread_mutex_lock(&w->lock);
                fifo_put(&w->done, it);
                pthread_mutex_unlock(&w->lock);
                it = next;
            }
            lr_worker_deliver(w);
        }
    }
    if (w->ev)
        event_free(w->ev);
    if (w->pipe[0] >= 0)
        close(w->pipe[0]);
    if (w->pipe[1] >= 0)
        close(w->pipe[1]);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
