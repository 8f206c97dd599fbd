/* lr_ctl_dev: each ROADM's health; see lr_ctl_dev.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "controller/lr_ctl_dev.h"
#include "planner/lr_utf8.h"

/* EINVAL is, by sb_driver.h's conventions, what a driver says of what
 * it was given rather than of what it met: a netconf connection that
 * stops at the schema path or a key file before anything is sent, a
 * restconf ca-file that does not load.  ENOMEM is what the controller's
 * host lacked: memory, a thread to connect on, a socket, an answer from
 * its own resolver.  Counting either as the device's answer showed a
 * device up that was never asked; counting it as down would blame the
 * device (and page its operator) for something on the controller's
 * host.  So it judges nothing: up or down stays as the last answer that
 * came from the device left it, while the failure is counted and its
 * line shown as the reason, which names the file or the resource. */
bool
lr_ctl_dev_local(int rc)
{
    return sb_local(rc);
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

/* 'line' made fit for where a reason goes, in place: the state (RFC
 * 7951 JSON, UTF-8 only), the log and an operator's terminal (`lightrail
 * devices`).  A driver's line is one line of text, but it may carry a
 * device's own message (an rpc-error's, an HTTP body's) with line
 * breaks, tabs or escape sequences, in any encoding: control characters
 * become spaces and a byte that is no UTF-8 '?' (lr_utf8_len()).  A
 * line too long was cut at a character already (lr_ctl_dev_see()). */
static void
dev_line_clean(char *line)
{
    unsigned char *p = (unsigned char *) line;
    while (*p) {
        size_t n = lr_utf8_len(p);
        if (n == 0)
            *p = '?';
        else if (n == 1 && (*p < 0x20 || *p == 0x7f))
            *p = ' ';
        p += n ? n : 1;
    }
}

void
lr_ctl_dev_see(struct lr_ctl_dev_seen *s, int rc, const char *err)
{
    s->ops++;
    if (!lr_ctl_dev_local(rc)) {
        s->judged = true;
        s->last_rc = rc;
    }
    if (!rc)
        return;
    s->failures++;
    /* Cut at a character and marked, as the job's reasons are. */
    s->why[0] = '\0';
    lr_utf8_appendf(s->why, sizeof s->why, "%s",
                    err && *err ? err : strerror(rc));
    dev_line_clean(s->why);
}

void
lr_ctl_dev_fold(struct lr_ctl_dev *d, const struct lr_ctl_dev_seen *s,
                long long now_ms)
{
    if (!s->ops)
        return;
    d->ops += s->ops;
    d->failures += s->failures;
    if (s->judged)
        d->up = !sb_unanswered(s->last_rc);
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
