/*
 * lr_spectrum: the occupancy of every directed link's spectrum.
 *
 * One lr_bitset row of 'nw' words per link (nw from the widest link;
 * narrower links have their extra slots set as padding, so they look
 * occupied).  Allocation and release are all-or-nothing over the links of
 * a path and keep two invariants that the tests check against a naive
 * model: a slot is never booked twice, and a release frees exactly the
 * slots its allocation booked.
 *
 * Ownership: lr_spectrum_new() copies what it needs from the topology;
 * free the result with lr_spectrum_free().
 */
#ifndef LR_SPECTRUM_H
#define LR_SPECTRUM_H 1

#include <stdint.h>

#include "planner/lr_bitset.h"
#include "planner/lr_topo.h"

struct lr_spectrum {
    int n_links;
    int nw;                   /* words per link */
    int *n_slots;             /* per link */
    uint64_t *occ;            /* [n_links * nw] */
};

/* NULL when out of memory or when a link is wider than
 * LR_BITS_MAX_WORDS x 64 slots. */
struct lr_spectrum *lr_spectrum_new(const struct lr_topo *);
void lr_spectrum_free(struct lr_spectrum *);

/* Frees every slot of every link. */
void lr_spectrum_reset(struct lr_spectrum *);

static inline uint64_t *
lr_spectrum_link(const struct lr_spectrum *s, int link)
{
    return s->occ + (size_t) link * s->nw;
}

/* 'free' (s->nw words) = the slots free on every one of 'links'. */
static inline void
lr_spectrum_path_free(const struct lr_spectrum *s, const int *links,
                      int n_links, uint64_t *free)
{
    const uint64_t *o = lr_spectrum_link(s, links[0]);
    for (int i = 0; i < s->nw; i++)
        free[i] = o[i];
    for (int l = 1; l < n_links; l++) {
        o = lr_spectrum_link(s, links[l]);
        for (int i = 0; i < s->nw; i++)
            free[i] |= o[i];
    }
    for (int i = 0; i < s->nw; i++)
        free[i] = ~free[i];
}

/* Books slots [first, first + m) on every link.  EINVAL for a block out
 * of a link's range, EBUSY when any of those slots is already booked on
 * any link; then nothing changes. */
int lr_spectrum_alloc(struct lr_spectrum *, const int *links, int n_links,
                      int first, int m);

/* Frees slots [first, first + m) on every link.  EINVAL when the block is
 * out of range or any of those slots is not booked; then nothing
 * changes. */
int lr_spectrum_release(struct lr_spectrum *, const int *links, int n_links,
                        int first, int m);

/* Booked slots over all links, and the total number of slots. */
void lr_spectrum_usage(const struct lr_spectrum *, long *used, long *total);

#endif
