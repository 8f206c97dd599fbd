/*
 * sb_driver: the table of device families.  See sb_driver.h.
 *
 * A static table rather than registration at start-up: the families are
 * known when the program is linked, and a table cannot be half filled.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "planner/lr_utf8.h"
#include "southbound/sb_driver.h"

static const struct sb_driver_class *const sb_driver_classes[] = {
    &sb_dummy_class,
    &sb_netconf_class,
    &sb_restconf_class,
    &sb_mnoptical_class,
};

const struct sb_driver_class *
sb_driver_find(const char *name)
{
    size_t n = sizeof sb_driver_classes / sizeof sb_driver_classes[0];

    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(sb_driver_classes[i]->name, name))
            return sb_driver_classes[i];
    return NULL;
}

void
sb_driver_forget_files(void)
{
    size_t n = sizeof sb_driver_classes / sizeof sb_driver_classes[0];

    for (size_t i = 0; i < n; i++)
        if (sb_driver_classes[i]->forget_files)
            sb_driver_classes[i]->forget_files();
}

bool
sb_unanswered(int rc)
{
    switch (rc) {
    case ETIMEDOUT:           /* no answer: the outcome is unknown */
    case EHOSTUNREACH:        /* no session (netconf, restconf) */
    case EAGAIN:              /* no session for now; restconf: a 503 */
    case EACCES:              /* TLS or SSH refused: no session */
    case ECONNREFUSED:
    case ECONNRESET:
    case ECONNABORTED:
    case ENOTCONN:
    case EPIPE:
    case ENETUNREACH:
    case ENETDOWN:
    case EHOSTDOWN:
        return true;
    default:
        return false;
    }
}

/* Two codes, not one per cause: the callers need only "not the
 * device's", and the line says which file, or which resource, it was. */
bool
sb_local(int rc)
{
    return rc == EINVAL || rc == ENOMEM;
}

int
sb_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        /* A device's message may be longer than the caller's buffer: the
         * cut is marked, so that whoever reads it knows its end (what to
         * do, often) was lost. */
        lr_utf8_vsetf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return ret;
}
