/*
 * lr_worker: the one thread that runs the controller's device work
 * (lr_ctl_op_run, hence every sb_parallel call of an admission or a
 * release) off lightraild's event loop, and hands each op back to the
 * loop when it is done.  It runs any other work too
 * (lr_worker_push_fn): `lightrail agent` runs its DCs' DP on workers.
 *
 * Order: ops run one at a time in the order they were pushed, which is
 * the order the controller began them (lr_ctl.h): the devices see the
 * jobs' changes in the store's order, and two ops never share a device.
 * lightraild runs a second worker for the ppo decisions (lr_ctl.h,
 * lr_ctl_decide_begin), so that a rollout and a device wait never queue
 * behind each other.
 *
 * Threads: lr_worker_new(), lr_worker_push(), lr_worker_pending() and
 * lr_worker_free() are for the loop's thread only, and 'done' is called
 * there (from a libevent callback on a pipe the worker writes a byte
 * to); the worker thread touches only the op it runs and the queue
 * (under the worker's lock).  Ownership: an op pushed belongs to the
 * worker until 'done' gets it back; 'cookie' is the caller's.
 */
#ifndef LR_WORKER_H
#define LR_WORKER_H 1

#include <stddef.h>

struct event_base;
struct lr_ctl_op;
struct lr_worker;

/* Called on the loop's thread when 'op' has run. */
typedef void lr_worker_done(void *cookie, struct lr_ctl_op *op);

/* Starts the thread; its completions are events of 'base', which must
 * outlive the worker.  0, or an errno with one line in err[]. */
int lr_worker_new(struct event_base *base, struct lr_worker **out,
                  char *err, size_t errlen);

/* Queues 'op' behind the ops pushed before; 'done(cookie, op)' follows
 * on the loop.  0 or ENOMEM (the op stays the caller's). */
int lr_worker_push(struct lr_worker *, struct lr_ctl_op *op,
                   lr_worker_done *done, void *cookie);

/* Any work: 'run(arg)' on the worker's thread, then 'done(cookie, arg)'
 * on the loop, in order with the ops pushed.  0 or ENOMEM (nothing
 * queued).  'arg' belongs to the worker from push to 'done', as an op. */
typedef void lr_worker_run_fn(void *arg);
typedef void lr_worker_fn_done(void *cookie, void *arg);
int lr_worker_push_fn(struct lr_worker *, lr_worker_run_fn *run, void *arg,
                      lr_worker_fn_done *done, void *cookie);

/* Ops pushed whose 'done' has not been called yet. */
int lr_worker_pending(const struct lr_worker *);

/* Runs what is queued, calls every 'done' that is due (on this thread,
 * before returning), stops the thread and frees the worker; ops a 'done'
 * pushes meanwhile are run on this thread and handed back too.  NULL is
 * fine. */
void lr_worker_free(struct lr_worker *);

#endif
