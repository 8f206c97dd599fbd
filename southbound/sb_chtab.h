/*
 * sb_chtab: what a driver knows of one device's media channels (each
 * with the index the device keys it by), and a batch of changes planned
 * against that knowledge before anything is sent: the refusals that
 * leave the device alone (EINVAL a nameless channel or unknown
 * operation, EEXIST a name already there, ENOENT a delete of a missing
 * name, ENOSPC no index left) and the index each new channel gets (one
 * above every index held or given; the lowest free ones when the top
 * index is held).  Shared by the drivers that keep such
 * a copy: netconf and restconf.
 *
 * Conventions as southbound/sb_driver.h: 0 or a positive errno, one line
 * in err[errlen] naming the device 'dev'.  Ownership: a table owns its
 * array (sb_chtab_free()); sb_chtab_plan() returns arrays the caller
 * frees with free().
 */
#ifndef SB_CHTAB_H
#define SB_CHTAB_H 1

#include <stdbool.h>
#include <stdint.h>

#include "southbound/sb_driver.h"

struct sb_chent {
    uint32_t index;
    struct sb_media_channel mc;
    /* The device's own edges (MHz) when it gave them, 0 otherwise: a
     * channel put back (an undone delete) gets them as they were, not
     * the grid's rounding of them. */
    long long lo_mhz, up_mhz;
};

struct sb_chtab {
    struct sb_chent *e;
    int n, cap;
    bool ok;                  /* e[] is what the device holds */
};

/* One step of a planned batch, in the batch's order: create 'e', or
 * delete 'e' as the table holds it. */
struct sb_chstep {
    bool create;
    struct sb_chent e;
};

/* The flexgrid of ITU-T G.694.1 as devices give it: a channel's edges in
 * MHz (RFC 7951 uint64, as text) or its n and m (centre 193.1 THz + n x
 * 6.25 GHz, width m x 12.5 GHz).  Both false for what no channel this
 * controller holds can be: text that is not a whole decimal number, an
 * edge beyond 1 PHz, upper not above lower, |n| or m beyond
 * SB_GRID_MAX, m below 1.  From edges, '*lo' and '*up' (when not NULL)
 * get them as numbers. */
#define SB_GRID_BASE_MHZ 193100000LL
#define SB_GRID_SLOT_MHZ 6250LL
#define SB_GRID_MAX 1000000
bool sb_grid_from_edges(const char *lower_mhz, const char *upper_mhz,
                        int *n, int *m, long long *lo, long long *up);
bool sb_grid_from_nm(const char *n_text, const char *m_text, int *n, int *m);

/* Room for 'need' entries: 0 or ENOMEM. */
int sb_chtab_grow(struct sb_chtab *, int need);
/* Appends one entry: 0 or ENOMEM. */
int sb_chtab_add(struct sb_chtab *, const struct sb_chent *);
/* Replaces the entries by e[0..n-1] (what the device holds after a
 * batch); on ENOMEM the table is marked not ok (read it again). */
void sb_chtab_set(struct sb_chtab *, const struct sb_chent *e, int n);
void sb_chtab_free(struct sb_chtab *);

/* A copy of an ok table's entries, to compare with after a batch
 * (sb_chtab_holds): true with '*out' (NULL when there are none; the
 * caller frees it with free()) and '*n'; false, '*out' NULL and '*n' 0,
 * when the table is not what the device holds or out of memory. */
bool sb_chtab_snapshot(const struct sb_chtab *, struct sb_chent **out,
                       int *n);

/* Whether the table holds exactly the channels e[0..n-1], by index and
 * name, in any order: what a driver checks after a refused batch, to
 * tell a device changed behind its back from a refusal for a reason. */
bool sb_chtab_holds(const struct sb_chtab *, const struct sb_chent *e,
                    int n);

/* The position of 'name' among e[0..n-1], or -1. */
int sb_chtab_find(const struct sb_chent *e, int n, const char *name);

/* The channels, in a new array the caller frees with free(). */
int sb_chtab_read(const struct sb_chtab *, const char *dev,
                  struct sb_media_channel **out, int *n, char *err,
                  size_t errlen);

/* Plans changes[0..n-1] against the table: '*work' (n_work entries) is
 * the device after the batch, '*steps' one step per change.  A new
 * channel gets an index no entry holds, and no entry held before the
 * batch (sb_chtab_has_index() on the table tells the channels new to the
 * device; one created and deleted again within the batch appears in
 * 'steps' only).  Nothing is sent. */
int sb_chtab_plan(const struct sb_chtab *, const char *dev,
                  const struct sb_change *changes, int n,
                  struct sb_chent **work, int *n_work,
                  struct sb_chstep **steps, char *err, size_t errlen);
/* Whether an entry of the table holds 'index'. */
bool sb_chtab_has_index(const struct sb_chtab *, uint32_t index);

#endif
