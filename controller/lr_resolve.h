/*
 * lr_resolve: getaddrinfo() with a deadline.
 *
 * glibc's getaddrinfo() waits as long as the resolver's configuration
 * says (resolv.conf's timeout and attempts: 5 s x 2 tries per server by
 * default, more with search domains), and nothing can interrupt it.
 * The TLS clients of Lightrail (the CDynP agent party, the NETCONF-over-
 * TLS driver) bound every connect and handshake by their own timeout;
 * this bounds the lookup that comes before.
 *
 * How: a name that is already a numeric address is converted at once
 * (AI_NUMERICHOST, no lookup, no thread).  Otherwise the lookup runs on a
 * detached thread of its own and the caller waits for it on a condition
 * variable until its timeout.  A lookup that misses it is abandoned, not
 * cancelled (nothing can cancel it): its thread finishes when the
 * resolver gives up and frees what it found.  The two share the request
 * by reference count, so neither frees it under the other.  A thread
 * that cannot be created is not an error: the lookup then runs in the
 * caller, unbounded, as before.
 *
 * Several lookups can run at once: lr_lookup_start() each, then
 * lr_lookup_wait() each (a coordinator connecting to all its agents).
 *
 * Thread safety: any thread may call these; a lookup belongs to the
 * caller that started it until its lr_lookup_wait().
 */
#ifndef LR_RESOLVE_H
#define LR_RESOLVE_H 1

#include <stddef.h>
#include <netdb.h>

struct lr_lookup;

/* Starts getaddrinfo(host, service, hints); '*out' gets the lookup, for
 * one lr_lookup_wait().  0, or EINVAL for a NULL host (it looks names
 * up; getaddrinfo's NULL host, a local address, is not asked for here)
 * or ENOMEM, '*out' NULL. */
int lr_lookup_start(const char *host, const char *service,
                    const struct addrinfo *hints, struct lr_lookup **out);

/* Waits at most 'timeout_s' seconds (<= 0: only takes an answer already
 * there) for lookup 'l', and frees it (the caller's part of it).
 * Returns 0 with '*res' set (free with freeaddrinfo()), ETIMEDOUT when
 * the resolver had not answered by then, EAGAIN when it answered that
 * it cannot answer now (EAI_AGAIN: "Temporary failure in name
 * resolution"; try again later), ENOMEM when this host failed it
 * (EAI_MEMORY; out of memory or descriptors), or EHOSTUNREACH when it
 * answered that the name does not resolve; on failure 'err' (may be NULL) gets the
 * reason ("Name or service not known", "no answer from the resolver"),
 * without the host name or the time: the caller says what it was
 * resolving for, and its timeout as the user set it. */
int lr_lookup_wait(struct lr_lookup *l, double timeout_s,
                   struct addrinfo **res, char *err, size_t errlen);

/* getaddrinfo()'s failure 'gai' (with 'sys_errno', errno for EAI_SYSTEM)
 * as lr_lookup_wait() returns it: EAGAIN for EAI_AGAIN, ENOMEM for
 * EAI_MEMORY and EAI_SYSTEM with ENOMEM, EMFILE, ENFILE or ENOBUFS,
 * EHOSTUNREACH for any other, the reason in err[errlen] (may be
 * NULL). */
int lr_lookup_error(int gai, int sys_errno, char *err, size_t errlen);

/* Both: getaddrinfo() that gives up after 'timeout_s' seconds.  EINVAL
 * and ENOMEM too. */
int lr_resolve(const char *host, const char *service,
               const struct addrinfo *hints, double timeout_s,
               struct addrinfo **res, char *err, size_t errlen);

#endif
