/*
 * lr_resolve: see lr_resolve.h.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller/lr_resolve.h"

/* One lookup, shared by the caller and its thread.  'refs' counts the
 * holders (2 while a thread runs, else 1); whoever drops it to 0 frees
 * the request and, if the caller never took it, the answer. */
struct lr_lookup {
    atomic_int refs;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    bool done;                /* under lock */
    int gai;                  /* getaddrinfo()'s return, under lock */
    int sys_errno;            /* errno with EAI_SYSTEM, under lock */
    struct addrinfo *res;     /* the answer until taken, under lock */
    struct addrinfo hints;
    char *host, *service;
};

static void
lookup_unref(struct lr_lookup *l)
{
    if (atomic_fetch_sub(&l->refs, 1) != 1)
        return;
    if (l->res)
        freeaddrinfo(l->res);
    pthread_cond_destroy(&l->done_cond);
    pthread_mutex_destroy(&l->lock);
    free(l->host);
    free(l->service);
    free(l);
}

/* Runs the lookup and records its answer. */
static void
lookup_do(struct lr_lookup *l)
{
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(l->host, l->service, &l->hints, &res);
    int sys_errno = errno;
    pthread_mutex_lock(&l->lock);
    l->gai = gai;
    l->sys_errno = sys_errno;
    l->res = gai ? NULL : res;
    l->done = true;
    pthread_cond_signal(&l->done_cond);
    pthread_mutex_unlock(&l->lock);
}

static void *
lookup_thread(void *arg)
{
    lookup_do(arg);
    lookup_unref(arg);
    return NULL;
}

int
lr_lookup_start(const char *host, const char *service,
                const struct addrinfo *hints, struct lr_lookup **out)
{
    *out = NULL;
    if (!host)
        return EINVAL;   /* a name is what this looks up */
    struct lr_lookup *l = *out = calloc(1, sizeof *l);
    if (!l)
        return ENOMEM;
    l->host = strdup(host);
    l->service = service ? strdup(service) : NULL;
    if (!l->host || (service && !l->service)) {
        free(l->host);
        free(l->service);
        free(l);
        *out = NULL;
        return ENOMEM;
    }
    if (hints)
        l->hints = *hints;
    l->hints.ai_addr = NULL;
    l->hints.ai_canonname = NULL;
    l->hints.ai_next = NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->done_cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&l->lock, NULL);
    atomic_init(&l->refs, 1);

    /* A numeric address: no lookup, nothing to wait for. */
    struct addrinfo numeric = l->hints, *res = NULL;
    numeric.ai_flags |= AI_NUMERICHOST;
    int gai = getaddrinfo(host, service, &numeric, &res);
    if (gai != EAI_NONAME) {
        l->gai = gai;
        l->sys_errno = errno;
        l->res = gai ? NULL : res;
        l->done = true;
        return 0;
    }

    pthread_attr_t attr;
    pthread_t tid;
    atomic_store(&l->refs, 2);
    if (!pthread_attr_init(&attr)) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&tid, &attr, lookup_thread, l);
        pthread_attr_destroy(&attr);
        if (!e)
            return 0;
    }
    /* No thread: the lookup here, unbounded, rather than none. */
    atomic_store(&l->refs, 1);
    lookup_do(l);
    return 0;
}

int
lr_lookup_wait(struct lr_lookup *l, double timeout_s, struct addrinfo **res,
               char *err, size_t errlen)
{
    *res = NULL;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout_s > 0) {
        if (timeout_s > 86400)
            timeout_s = 86400;
        double whole = floor(timeout_s);
        until.tv_sec += (time_t) whole;
        until.tv_nsec += (long) ((timeout_s - whole) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    int rc = 0, gai = 0, sys = 0;
    pthread_mutex_lock(&l->lock);
    while (!l->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&l->done_cond, &l->lock, &until);
    bool done = l->done;
    if (done) {
        gai = l->gai;
        sys = l->sys_errno;
        *res = l->res;
        l->res = NULL;   /* taken: the last reference must not free it */
    }
    pthread_mutex_unlock(&l->lock);
    lookup_unref(l);
    if (!done) {
        if (err && errlen)
            snprintf(err, errlen, "no answer from the resolver");
        return ETIMEDOUT;
    }
    return gai ? lr_lookup_error(gai, sys, err, errlen) : 0;
}

int
lr_lookup_error(int gai, int sys_errno, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", gai == EAI_SYSTEM ? strerror(sys_errno)
                                                      : gai_strerror(gai));
    /* EAI_AGAIN: the resolver could not answer now (a server failure, or
     * none reachable), which says nothing of the name: the same lookup
     * may succeed later.  EAI_MEMORY, and a system call that ran out of
     * memory or descriptors, are this host's, not the name's: ENOMEM
     * (the southbound counts it as the controller's side, sb_local()).
     * Every other failure is the name's. */
    if (gai == EAI_AGAIN)
        return EAGAIN;
    if (gai == EAI_MEMORY
        || (gai == EAI_SYSTEM
            && (sys_errno == ENOMEM || sys_errno == EMFILE
                || sys_errno == ENFILE || sys_errno == ENOBUFS)))
        return ENOMEM;
    return EHOSTUNREACH;
}

int
lr_resolve(const char *host, const char *service,
           const struct addrinfo *hints, double timeout_s,
           struct addrinfo **res, char *err, size_t errlen)
{
    struct lr_lookup *l;
    *res = NULL;
    int rc = lr_lookup_start(host, service, hints, &l);
    if (rc) {
        if (err && errlen)
            snprintf(err, errlen, "%s", rc == EINVAL ? "no host name"
                                                     : "out of memory");
        return rc;
    }
    return lr_lookup_wait(l, timeout_s, res, err, errlen);
}
