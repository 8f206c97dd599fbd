/* lr_ctl_dev: each ROADM's health; see lr_ctl_dev.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "controller/lr_ctl_dev.h"

bool
lr_ctl_dev_unreached(int rc)
{
    switch (rc) {
    case ETIMEDOUT:           /* no answer: the outcome is unknown */
    case EHOSTUNREACH:        /* no session (netconf, restconf) */
    case EAGAIN:              /* netconf: no session for now */
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

void
lr_ctl_dev_address(const char *address, char *out, size_t len)
{
    const char *scheme = strstr(address, "://");
    const char *auth = scheme ? scheme + 3 : address;
    size_t alen = strcspn(auth, "/?#");
    const char *at = memchr(auth, '@', alen);
    const char *colon = at ? memchr(auth, ':', (size_t) (at - auth)) : NULL;
    if (!colon) {
        snprintf(out, len, "%s", address);
        return;
    }
    /* The last '@' ends the user information (RFC 3986 3.2.1 allows
     * none in it, but a careless password may hold one). */
    for (const char *p = at; p < auth + alen; p++)
        if (*p == '@')
            at = p;
    snprintf(out, len, "%.*s%s", (int) (colon - address), address, at);
}

void
lr_ctl_dev_init(struct lr_ctl_dev *d, const struct sb_device_config *cfg)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", cfg->name);
    snprintf(d->driver, sizeof d->driver, "%s", cfg->driver);
    lr_ctl_dev_address(cfg->address, d->address, sizeof d->address);
    d->up = true;
}

void
lr_ctl_dev_see(struct lr_ctl_dev_seen *s, int rc, const char *err)
{
    s->ops++;
    s->last_rc = rc;
    if (!rc)
        return;
    s->failures++;
    /* One line: a driver's line has none, but a device's message may. */
    snprintf(s->why, sizeof s->why, "%s", err && *err ? err : strerror(rc));
    for (char *p = s->why; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

void
lr_ctl_dev_fold(struct lr_ctl_dev *d, const struct lr_ctl_dev_seen *s,
                long long now_ms)
{
    if (!s->ops)
        return;
    d->ops += s->ops;
    d->failures += s->failures;
    d->up = !lr_ctl_dev_unreached(s->last_rc);
    if (s->failures) {
        d->fail_ms = now_ms;
        snprintf(d->why, sizeof d->why, "%s", s->why);
    }
    /* The op's successes, unless its every operation failed. */
    if (s->ops > s->failures)
        d->ok_ms = now_ms;
}

void
lr_ctl_dev_note(struct lr_ctl_dev *d, int rc, const char *err,
                long long now_ms)
{
    struct lr_ctl_dev_seen s = { 0 };
    lr_ctl_dev_see(&s, rc, err);
    lr_ctl_dev_fold(d, &s, now_ms);
}
