/*
 * lr_agent_store: `lightrail agent`'s reservations file, written off its
 * event loop.  The loop hands over each new state of its reservations as
 * text (lightrail-agent reservations, YANG JSON, printed on the loop);
 * one thread of its own (controller/lr_worker.h) writes them in the order
 * they were handed over, each durably: a temporary file, synced, renamed
 * over the file, then the directory synced.  A crash leaves the file of
 * one save or the next, never a mix.  The loop hears of each save, done
 * or failed, through a callback on its own thread, and answers the
 * request that waited for it then (cmd_agent.c).
 *
 * Why a thread: the two fsyncs of a save take milliseconds on a local
 * disk, seconds on a busy or network one; on the loop they would hold
 * every coordinator's requests and handshakes meanwhile.  Why one
 * thread: saves must land in order, or an older state could be renamed
 * over a newer one.
 *
 * Threads: lr_agent_store_new(), _save() and _free() are for the loop's
 * thread; the writer touches only the save it runs (its text, the
 * directory's name and descriptor, both read-only).  Ownership: the
 * directory's descriptor stays the caller's and must outlive the store.
 */
#ifndef LR_AGENT_STORE_H
#define LR_AGENT_STORE_H 1

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct lr_agent_reservation;
struct lr_agent_store;
struct ly_ctx;

/* The file's name in the state directory, and its temporary twin's. */
#define LR_AGENT_STORE_FILE "reservations.json"
#define LR_AGENT_STORE_TMP "reservations.json.tmp"

/* Opens the state directory 'dir' as '*fd' and locks it (flock, held
 * until '*fd' is closed): one agent per directory, or two would each
 * write only what they hold over the other's reservations.json.  0; or
 * EWOULDBLOCK, another process holds it (err[] says so, the caller says
 * what to do), or another errno with err[]. */
int lr_agent_store_lock(const char *dir, int *fd, char *err, size_t errlen);

/* Reads dir/LR_AGENT_STORE_FILE (its path into path[pathlen]) into
 * '*r' (malloc'ed, the caller's; NULL when none) and '*n', '*found' true:
 * 0.  No file: 0, '*found' false, none.  A file that cannot be looked at
 * (a symlink loop, EACCES, EIO) may hold reservations: its errno; one
 * that does not validate: EINVAL; either with err[]. */
int lr_agent_store_load(struct ly_ctx *ctx, const char *dir,
                        struct lr_agent_reservation **r, int *n, bool *found,
                        char *path, size_t pathlen, char *err,
                        size_t errlen);

/* A save is done: 'rc' 0, or an errno with 'why' (one line: what was
 * not saved, where and why).  On the loop's thread. */
typedef void lr_agent_store_done(void *cookie, int rc, const char *why);

/* Starts the writer for directory 'dir' (open as 'dir_fd', for the
 * directory's fsync).  'delay_ms' > 0 holds each save back that long
 * before it writes (--delay-save-ms: tests of a slow disk).  0, or an
 * errno with one line in err[]. */
int lr_agent_store_new(struct event_base *base, const char *dir, int dir_fd,
                       int delay_ms, struct lr_agent_store **out, char *err,
                       size_t errlen);

/* Queues 'text' (malloc'ed) to be written after the saves queued before;
 * done(cookie, rc, why) follows on the loop.  0: 'text' is the store's;
 * or ENOMEM: nothing queued, 'text' still the caller's, 'done' never
 * called: a save that failed (not one to write now with
 * lr_agent_store_write(), which the saves queued before would then
 * overwrite with older states). */
int lr_agent_store_save(struct lr_agent_store *, char *text,
                        lr_agent_store_done *done, void *cookie);

/* Writes 'text' to dir/LR_AGENT_STORE_FILE now, on this thread, as the
 * writer does; the file keeps the owner, group and mode of the one it
 * replaces, where this process may give them.  0, or an errno with
 * why[]. */
int lr_agent_store_write(const char *dir, int dir_fd, const char *text,
                         char *why, size_t len);

/* Saves queued but not yet written. */
int lr_agent_store_pending(const struct lr_agent_store *);

/* Writes what is queued (a stopping agent's last states matter most),
 * calls each 'done' on this thread, stops the thread and frees the
 * store.  NULL is fine. */
void lr_agent_store_free(struct lr_agent_store *);

#endif
