/*
 * sb_kept: what a driver's check_files read and checked, kept for the
 * first open() of the device it was read for.
 *
 * lightraild checks every device's files before it opens any (the
 * driver's check_files), then opens them.  A driver that read a file to
 * check it keeps what it made of it (netconf: an SSL_CTX; restconf: the
 * ca-file's bytes) here, under the device's name and the paths it read,
 * and open() takes it: the start reads each file once, and the check and
 * the device use the same load, where a file replaced between them could
 * pass the one and fail the other.  An open() that finds nothing (a
 * reopen, other paths) reads the files then.  What the start's opening
 * did not take is dropped once it is done (the driver's forget_files,
 * from lr_ctl), so that a device the network gains later reads its files
 * as they are then.
 *
 * Each driver has one list (a static struct sb_kept, SB_KEPT_INIT), which
 * owns every value it holds until taken, and frees one with the
 * list's free_value.  The calls lock the list: open() may run on another
 * thread than the check.
 */
#ifndef SB_KEPT_H
#define SB_KEPT_H 1

#include <pthread.h>
#include <stddef.h>

struct sb_kept_entry;

struct sb_kept {
    pthread_mutex_t lock;
    struct sb_kept_entry *head;
    void (*free_value)(void *);
};

#define SB_KEPT_INIT(free_value) \
    { PTHREAD_MUTEX_INITIALIZER, NULL, (free_value) }

/* A key is the strings of a NULL-terminated array (the device's name,
 * then the paths its value was read from), compared whole. */

/* Frees what is kept under 'key', if anything: a check that starts
 * drops what an earlier one kept, whatever it then finds, so that open()
 * never uses a load a later check refused. */
void sb_kept_drop(struct sb_kept *, const char *const *key);

/* Keeps 'value' ('len' bytes long, for a caller that needs it; taken)
 * under 'key', in place of anything kept under it.  Out of memory, the
 * value is freed and nothing kept: open() reads the files itself. */
void sb_kept_put(struct sb_kept *, const char *const *key, void *value,
                 size_t len);

/* Unlinks and returns what is kept under 'key' (the caller's), with its
 * length in '*len' if 'len' is not NULL; or NULL. */
void *sb_kept_take(struct sb_kept *, const char *const *key, size_t *len);

/* Frees everything kept (forget_files). */
void sb_kept_clear(struct sb_kept *);

#endif
