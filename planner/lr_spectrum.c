/* lr_spectrum: see lr_spectrum.h. */
#include <errno.h>
#include <stdlib.h>

#include "planner/lr_spectrum.h"

struct lr_spectrum *
lr_spectrum_new(const struct lr_topo *t)
{
    int width = lr_topo_max_slots(t);
    if (lr_bits_words(width) > LR_BITS_MAX_WORDS)
        return NULL;
    struct lr_spectrum *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n_links = t->n_links;
    s->nw = width > 0 ? lr_bits_words(width) : 1;
    s->n_slots = calloc((size_t) t->n_links + 1, sizeof *s->n_slots);
    s->occ = calloc((size_t) (t->n_links + 1) * s->nw, sizeof *s->occ);
    if (!s->n_slots || !s->occ) {
        lr_spectrum_free(s);
        return NULL;
    }
    for (int l = 0; l < t->n_links; l++)
        s->n_slots[l] = t->links[l].n_slots;
    lr_spectrum_reset(s);
    return s;
}

void
lr_spectrum_free(struct lr_spectrum *s)
{
    if (!s)
        return;
    free(s->n_slots);
    free(s->occ);
    free(s);
}

void
lr_spectrum_reset(struct lr_spectrum *s)
{
    for (int l = 0; l < s->n_links; l++)
        lr_bits_init(lr_spectrum_link(s, l), s->nw, s->n_slots[l]);
}

static int
check_range(const struct lr_spectrum *s, const int *links, int n_links,
            int first, int m)
{
    if (n_links < 1 || first < 0 || m < 1)
        return EINVAL;
    for (int i = 0; i < n_links; i++)
        if (links[i] < 0 || links[i] >= s->n_links
            || m > s->n_slots[links[i]] - first)   /* no overflow */
            return EINVAL;
    return 0;
}

int
lr_spectrum_alloc(struct lr_spectrum *s, const int *links, int n_links,
                  int first, int m)
{
    int err = check_range(s, links, n_links, first, m);
    if (err)
        return err;
    for (int i = 0; i < n_links; i++)
        if (lr_bits_any(lr_spectrum_link(s, links[i]), first, m))
            return EBUSY;
    for (int i = 0; i < n_links; i++)
        lr_bits_set(lr_spectrum_link(s, links[i]), first, m);
    return 0;
}

int
lr_spectrum_release(struct lr_spectrum *s, const int *links, int n_links,
                    int first, int m)
{
    int err = check_range(s, links, n_links, first, m);
    if (err)
        return err;
    for (int i = 0; i < n_links; i++)
        if (!lr_bits_all(lr_spectrum_link(s, links[i]), first, m))
            return EINVAL;
    for (int i = 0; i < n_links; i++)
        lr_bits_clear(lr_spectrum_link(s, links[i]), first, m);
    return 0;
}

void
lr_spectrum_usage(const struct lr_spectrum *s, long *used, long *total)
{
    *used = *total = 0;
    for (int l = 0; l < s->n_links; l++) {
        int pad = s->nw * 64 - s->n_slots[l];
        *used += lr_bits_count(lr_spectrum_link(s, l), s->nw) - pad;
        *total += s->n_slots[l];
    }
}
