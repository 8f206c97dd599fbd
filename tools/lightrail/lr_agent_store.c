/*
 * lr_agent_store: see lr_agent_store.h.  The writer is an lr_worker (one
 * thread, its items run in the order pushed, completions on the loop
 * through a pipe); a save is one item.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "controller/lr_worker.h"
#include "planner/lr_utf8.h"
#include "tools/lightrail/lr_agent_store.h"
#include "yang/lr_yang_agent.h"

struct lr_agent_store {
    struct lr_worker *w;
    const char *dir;              /* the caller's, as dir_fd */
    int dir_fd;
    int delay_ms;
    int pending;                  /* saves pushed, 'done' not yet called */
};

/* One save, from lr_agent_store_save() to its 'done'. */
struct save {
    struct lr_agent_store *s;
    char *text;
    lr_agent_store_done *done;
    void *cookie;
    int rc;                       /* the writer's result, and */
    char why[512];
};

int
lr_agent_store_lock(const char *dir, int *out, char *err, size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    *out = -1;
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "--state-dir %s: %s", dir, strerror(e));
        return e;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int e = errno;
        if (e == EWOULDBLOCK)
            snprintf(err, errlen, "--state-dir %s is in use by an agent",
                     dir);
        else
            snprintf(err, errlen, "--state-dir %s: cannot lock it: %s", dir,
                     strerror(e));
        close(fd);
        return e;
    }
    *out = fd;
    return 0;
}

int
lr_agent_store_load(struct ly_ctx *ctx, const char *dir,
                    struct lr_agent_reservation **r, int *n, bool *found,
                    char *path, size_t pathlen, char *err, size_t errlen)
{
    *r = NULL;
    *n = 0;
    *found = false;
    snprintf(path, pathlen, "%s/%s", dir, LR_AGENT_STORE_FILE);
    if (access(path, F_OK)) {
        int e = errno;
        if (e == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return e;
    }
    *found = true;
    return lr_yang_load_reservations(ctx, path, r, n, err, errlen);
}

int
lr_agent_store_write(const char *dir, int dir_fd, const char *text,
                     char *why, size_t len)
{
    char path[4096], tmp[4096];
    int rc = 0, fd;
    snprintf(path, sizeof path, "%s/%s", dir, LR_AGENT_STORE_FILE);
    snprintf(tmp, sizeof tmp, "%s/%s", dir, LR_AGENT_STORE_TMP);
    size_t n = strlen(text), done = 0;
    /* The step that failed, the directory last: a message cut short
     * (the wire's ERROR text) keeps what and why. */
    const char *op = "write " LR_AGENT_STORE_TMP;
    struct stat st;
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
        rc = errno;
    /* The file replaced keeps its owner, group and mode: lightrail
     * reservations run as root on the directory of an agent of its own
     * user would leave a file of root's, 0600, which that agent cannot
     * read and will not start on.  Best effort: one that may not give
     * its file away (not root) still writes. */
    else if (!stat(path, &st)) {
        if (st.st_uid != geteuid() || st.st_gid != getegid())
            (void) !fchown(fd, st.st_uid, st.st_gid);
        (void) !fchmod(fd, st.st_mode & 0777);
    }
    while (!rc && done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno != EINTR)
            rc = errno;
        else if (w > 0)
            done += (size_t) w;
    }
    if (!rc && fsync(fd)) {
        rc = errno;
        op = "sync " LR_AGENT_STORE_TMP;
    }
    if (fd >= 0 && close(fd) && !rc)
        rc = errno;
    /* Without the directory's fsync the rename may not outlive a power
     * cut. */
    if (!rc && rename(tmp, path)) {
        rc = errno;
        op = "rename " LR_AGENT_STORE_TMP " over " LR_AGENT_STORE_FILE;
    } else if (!rc && fsync(dir_fd)) {
        rc = errno;
        op = "sync the directory";
    }
    if (rc) {
        unlink(tmp);
        snprintf(why, len, "reservations not saved: cannot %s: %.60s (in "
                 "%s)", op, strerror(rc), LR_UTF8_CLIP(dir, 300));
    }
    return rc;
}

/* On the writer's thread. */
static void
save_run(void *arg)
{
    struct save *sv = arg;
    const struct lr_agent_store *s = sv->s;
    if (s->delay_ms > 0) {
        struct timespec ts = { s->delay_ms / 1000,
                               (long) (s->delay_ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
    }
    sv->rc = lr_agent_store_write(s->dir, s->dir_fd, sv->text, sv->why,
                                  sizeof sv->why);
}

/* On the loop's thread. */
static void
save_done(void *cookie, void *arg)
{
    struct save *sv = arg;
    (void) cookie;
    sv->s->pending--;
    sv->done(sv->cookie, sv->rc, sv->rc ? sv->why : "");
    free(sv->text);
    free(sv);
}

int
lr_agent_store_new(struct event_base *base, const char *dir, int dir_fd,
                   int delay_ms, struct lr_agent_store **out, char *err,
                   size_t errlen)
{
    struct lr_agent_store *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return ENOMEM;
    }
    int rc = lr_worker_new(base, &s->w, err, errlen);
    if (rc) {
        free(s);
        return rc;
    }
    s->dir = dir;
    s->dir_fd = dir_fd;
    s->delay_ms = delay_ms;
    *out = s;
    return 0;
}

int
lr_agent_store_save(struct lr_agent_store *s, char *text,
                    lr_agent_store_done *done, void *cookie)
{
    struct save *sv = calloc(1, sizeof *sv);
    if (!sv)
        return ENOMEM;
    sv->s = s;
    sv->text = text;
    sv->done = done;
    sv->cookie = cookie;
    if (lr_worker_push_fn(s->w, save_run, sv, save_done, NULL)) {
        free(sv);
        return ENOMEM;
    }
    s->pending++;
    return 0;
}

int
lr_agent_store_pending(const struct lr_agent_store *s)
{
    return s ? s->pending : 0;
}

void
lr_agent_store_free(struct lr_agent_store *s)
{
    if (!s)
        return;
    lr_worker_free(s->w);
    free(s);
}
