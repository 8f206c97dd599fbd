/*
 * sb_parallel: one batch of changes on each of several devices, all
 * devices at once.  See sb_parallel.c for why threads.
 */
#ifndef SB_PARALLEL_H
#define SB_PARALLEL_H 1

#include "southbound/sb_driver.h"

/* The bytes of a device's line (sb_par_item.err), its NUL included:
 * enough for the longest a driver writes whole.  That is mnoptical's
 * refusal of a removal whose probe is refused too, which ends with its
 * way out, "/reset?node=NODE, then lightrail reconcile --reinstall":
 * the device's name (< 64, sb_device_config.name), the request refused
 * (< 640, sb_mno_get()'s line of it), the emulator's text (< 200), the
 * channel's name (< SB_NAME_MAX) and the node's (< 64, the emulator's
 * node names as sb_mnoptical keeps them) in about 400 bytes of words:
 * under 1,500.  At 512 (until 2026-12-07) that line, 514 bytes and
 * more with two-letter names, lost its way out. */
#define SB_PAR_ERR_MAX 2048

/* One device's share.  The caller fills the first four fields and owns
 * them; sb_apply_parallel() fills rc and err. */
struct sb_par_item {
    const struct sb_driver_class *cls;
    struct sb_device *dev;
    const struct sb_change *changes;
    int n;
    bool each;                /* one change at a time, ENOENT is done
                               * (for removing what may be gone
                               * already); stops at a device that does
                               * not answer (sb_unanswered()), not at a
                               * failure of the controller's (sb_local()) */
    int *each_rc;             /* each, optional, [n]: every change's
                               * answer (0 done, ENOENT included; an
                               * errno; -1 never sent: the device had
                               * stopped answering) */
    bool read;                /* read the device instead (changes and
                               * n unused): 'mc' gets its channels */
    int rc;                   /* the driver's answer: 0 or errno;
                               * each: the first failure, or the
                               * answer that stopped the batch (the
                               * device did not answer) */
    char err[SB_PAR_ERR_MAX]; /* its line when rc != 0 */
    struct sb_media_channel *mc;  /* read: the driver's malloc'ed
                                   * array, the caller frees it */
    int n_mc;
};

/* Applies items[i].changes on items[i].dev for every i, concurrently,
 * and returns once every device has answered (or its driver's timeout
 * has passed): the time of the slowest device, not the sum.  Each item
 * is all-or-nothing as its driver's apply(); across items nothing is
 * undone here (the caller decides).  An item whose 'read' is set is
 * read instead (items[i].mc and n_mc; NULL and 0 when its rc != 0): a
 * reconciliation reads every device at once the same way.  Returns how
 * many items failed.
 * A device must not appear in two items. */
int sb_apply_parallel(struct sb_par_item *items, int n);

#endif
