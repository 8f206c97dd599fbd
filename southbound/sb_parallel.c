/*
 * sb_parallel: the devices of a lightpath programmed at once.
 *
 * A lightpath is one media channel on every ROADM of its path; the
 * devices are independent, so the time to program a path should be one
 * device's round trip, not the sum over the path (4 hops x ~1 ms of
 * NETCONF edit-config here).
 *
 * Why a thread per device rather than libnetconf2's non-blocking
 * receive: the vtable's apply() is synchronous and driver-neutral (the
 * dummy writes and fsyncs a file; the netconf driver may have to
 * reconnect, which libnetconf2 only does blocking, and read back), so a
 * thread can run any driver unchanged, while a non-blocking receive
 * would help the netconf driver alone and only after its session is up.
 * The drivers are written for it: a device is used by one thread at a
 * time (each sb_netconf has its own lock, each dummy its own files), and
 * different devices share nothing.  Item 0 runs on the caller's thread,
 * so a one-device batch costs no thread; a thread costs tens of
 * microseconds, well under one round trip.
 *
 * What this does not do: return before the devices answer.  The caller
 * waits for the slowest device, bounded by the driver's timeout (netconf
 * timeout-ms); in lightraild the caller is the device thread
 * (controller/lr_worker.h), never the event loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "southbound/sb_parallel.h"

static void *
sb_par_run(void *arg)
{
    struct sb_par_item *it = arg;

    it->err[0] = '\0';
    it->rc = 0;
    if (it->read) {
        it->mc = NULL;
        it->n_mc = 0;
        it->rc = it->cls->read(it->dev, &it->mc, &it->n_mc, it->err,
                               sizeof it->err);
        if (it->rc) {
            free(it->mc);
            it->mc = NULL;
            it->n_mc = 0;
        }
        return NULL;
    }
    if (!it->each) {
        if (it->n > 0)
            it->rc = it->cls->apply(it->dev, it->changes, it->n, it->err,
                                    sizeof it->err);
        return NULL;
    }
    for (int i = 0; i < it->n && it->each_rc; i++)
        it->each_rc[i] = -1;
    for (int i = 0; i < it->n; i++) {
        char e[sizeof it->err];
        int rc = it->cls->apply(it->dev, &it->changes[i], 1, e, sizeof e);
        if (rc == ENOENT)
            rc = 0;
        if (it->each_rc)
            it->each_rc[i] = rc;
        if (rc && !it->rc) {
            it->rc = rc;
            snprintf(it->err, sizeof it->err, "%s", e);
        }
        /* A device that did not answer will not answer the next
         * change either: do not wait for it (or be refused by it)
         * once per change.  The rest stay -1 in each_rc.  That answer
         * is the item's, even after an earlier refusal: it is where
         * the device is now (lr_ctl_dev judges it down by it), and a
         * lost answer (ETIMEDOUT) is what makes a caller read the
         * device back; each_rc keeps the refusal.  A failure on the
         * controller's side (sb_local()) does not stop the batch: it
         * says nothing of the device, an EINVAL fails the next change
         * at once, and an ENOMEM (a thread, memory) may be over by
         * then. */
        if (sb_unanswered(rc)) {
            it->rc = rc;
            snprintf(it->err, sizeof it->err, "%s", e);
            break;
        }
    }
    return NULL;
}

int
sb_apply_parallel(struct sb_par_item *items, int n)
{
    pthread_t *t = NULL;
    bool *started = NULL;
    int failed = 0;

    if (n <= 0)
        return 0;
    if (n > 1) {
        t = calloc((size_t) n, sizeof *t);
        started = calloc((size_t) n, sizeof *started);
    }
    for (int i = 1; t && started && i < n; i++)
        started[i] = !pthread_create(&t[i], NULL, sb_par_run, &items[i]);
    /* Item 0 here; an item without a thread (none could be made) too,
     * one after the other: slower, never wrong. */
    sb_par_run(&items[0]);
    for (int i = 1; i < n; i++) {
        if (started && started[i])
            pthread_join(t[i], NULL);
        else
            sb_par_run(&items[i]);
    }
    for (int i = 0; i < n; i++)
        failed += items[i].rc != 0;
    free(t);
    free(started);
    return failed;
}
