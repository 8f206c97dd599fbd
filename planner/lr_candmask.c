/*
 * lr_candmask: the feasible candidates as sets, a word at a time (the
 * model is in lr_candmask.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_candmask.h"

struct lr_candmask {
    int n_cands, n_classes, n_demands, n_dcs, n_routes, n_tiers, words;
    bool sealed;
    uint64_t *finite;             /* [k * words]: Finite(k) */
    uint64_t *use;                /* [(r * n_tiers + t) * words]: Use(r, t) */
    uint8_t *tiers_used;          /* [r]: bit t when Use(r, t) is not empty */
    /* Until sealed: ask[(d * n_dcs + x) * n_cands + c], 0 for none. */
    int *ask;
    /* Once sealed, per (d, x) = g: the distinct asks thr[first[g] ..
     * first[g + 1] - 1], ascending, and over[i * words], the candidates
     * asking at least thr[i]. */
    int *first, *thr;
    uint64_t *over;
    /* spread[b][i] = bit i of b: a byte of the set as 8 bytes of mask;
     * ones[b]: the bits set in b. */
    uint8_t spread[256][8], ones[256];
};

static inline void
set_bit(uint64_t *w, int c)
{
    w[c / 64] |= UINT64_C(1) << (c % 64);
}

int
lr_candmask_new(int n_cands, int n_classes, int n_demands, int n_dcs,
                int n_routes, int n_tiers, struct lr_candmask **out)
{
    *out = NULL;
    if (n_cands < 1 || n_classes < 1 || n_demands < 1 || n_dcs < 1
        || n_routes < 0 || n_tiers < 1 || n_tiers > 8)
        return EINVAL;
    struct lr_candmask *m = calloc(1, sizeof *m);
    if (!m)
        return ENOMEM;
    *m = (struct lr_candmask) {
        .n_cands = n_cands, .n_classes = n_classes, .n_demands = n_demands,
        .n_dcs = n_dcs, .n_routes = n_routes, .n_tiers = n_tiers,
        .words = (n_cands + 63) / 64,
    };
    size_t w = (size_t) m->words;
    /* One more where a network without routes would ask for none. */
    m->finite = calloc((size_t) n_classes * w, sizeof *m->finite);
    m->use = calloc((size_t) n_routes * n_tiers * w + 1, sizeof *m->use);
    m->tiers_used = calloc((size_t) n_routes + 1, 1);
    m->ask = calloc((size_t) n_demands * n_dcs * n_cands, sizeof *m->ask);
    if (!m->finite || !m->use || !m->tiers_used || !m->ask) {
        lr_candmask_free(m);
        return ENOMEM;
    }
    for (int b = 0; b < 256; b++)
        for (int i = 0; i < 8; i++) {
            m->spread[b][i] = (uint8_t) ((b >> i) & 1);
            m->ones[b] += m->spread[b][i];
        }
    *out = m;
    return 0;
}

void
lr_candmask_free(struct lr_candmask *m)
{
    if (!m)
        return;
    free(m->finite);
    free(m->use);
    free(m->tiers_used);
    free(m->ask);
    free(m->first);
    free(m->thr);
    free(m->over);
    free(m);
}

int
lr_candmask_finite(struct lr_candmask *m, int k, int c)
{
    if (m->sealed || k < 0 || k >= m->n_classes || c < 0 || c >= m->n_cands)
        return EINVAL;
    set_bit(m->finite + (size_t) k * m->words, c);
    return 0;
}

int
lr_candmask_ask(struct lr_candmask *m, int d, int x, int c, int gpus)
{
    if (m->sealed || d < 0 || d >= m->n_demands || x < 0 || x >= m->n_dcs
        || c < 0 || c >= m->n_cands || gpus < 1)
        return EINVAL;
    m->ask[((size_t) d * m->n_dcs + x) * m->n_cands + c] = gpus;
    return 0;
}

int
lr_candmask_use(struct lr_candmask *m, int r, int t, int c)
{
    if (m->sealed || r < 0 || r >= m->n_routes || t < 0 || t >= m->n_tiers
        || c < 0 || c >= m->n_cands)
        return EINVAL;
    set_bit(m->use + ((size_t) r * m->n_tiers + t) * m->words, c);
    m->tiers_used[r] |= (uint8_t) (1u << t);
    return 0;
}

static int
cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

/* The asks of group g (a demand and a DC) into vals, ascending;
 * returns how many. */
static int
sorted_asks(const struct lr_candmask *m, int g, int *vals)
{
    const int *ask = m->ask + (size_t) g * m->n_cands;
    int k = 0;
    for (int c = 0; c < m->n_cands; c++)
        if (ask[c] > 0)
            vals[k++] = ask[c];
    qsort(vals, (size_t) k, sizeof *vals, cmp_int);
    return k;
}

int
lr_candmask_seal(struct lr_candmask *m)
{
    if (m->sealed)
        return EINVAL;
    int groups = m->n_demands * m->n_dcs, n = m->n_cands;
    size_t w = (size_t) m->words;
    /* At most n distinct asks per group; counted first. */
    int *vals = malloc((size_t) n * sizeof *vals);
    m->first = calloc((size_t) groups + 1, sizeof *m->first);
    if (!vals || !m->first) {
        free(vals);
        return ENOMEM;
    }
    int total = 0;
    for (int g = 0; g < groups; g++) {
        int k = sorted_asks(m, g, vals), distinct = 0;
        for (int i = 0; i < k; i++)
            distinct += i == 0 || vals[i] != vals[i - 1];
        m->first[g] = total;
        total += distinct;
    }
    m->first[groups] = total;
    m->thr = malloc(((size_t) total + 1) * sizeof *m->thr);
    m->over = calloc(((size_t) total + 1) * w, sizeof *m->over);
    if (!m->thr || !m->over) {
        free(vals);
        return ENOMEM;
    }
    for (int g = 0; g < groups; g++) {
        const int *ask = m->ask + (size_t) g * n;
        int k = sorted_asks(m, g, vals), i = m->first[g];
        for (int j = 0; j < k; j++)
            if (j == 0 || vals[j] != vals[j - 1])
                m->thr[i++] = vals[j];
        for (i = m->first[g]; i < m->first[g + 1]; i++)
            for (int c = 0; c < n; c++)
                if (ask[c] >= m->thr[i])
                    set_bit(m->over + (size_t) i * w, c);
    }
    free(vals);
    free(m->ask);
    m->ask = NULL;
    m->sealed = true;
    return 0;
}

int
lr_candmask_words(const struct lr_candmask *m)
{
    return m->words;
}

/* bits &= ~s over w words. */
static inline void
remove_set(uint64_t *bits, const uint64_t *s, int w)
{
    for (int i = 0; i < w; i++)
        bits[i] &= ~s[i];
}

int
lr_candmask_eval(const struct lr_candmask *m, int k, int d,
                 const int *room, const uint8_t *fit, size_t fit_stride,
                 uint64_t *bits, uint8_t *mask)
{
    if (!m->sealed || k < 0 || k >= m->n_classes || d < 0
        || d >= m->n_demands)
        return -1;
    int w = m->words;
    memcpy(bits, m->finite + (size_t) k * w, (size_t) w * sizeof *bits);
    /* The GPUs: the least distinct ask above the room, if any. */
    const int *first = m->first + (size_t) d * m->n_dcs;
    for (int x = 0; x < m->n_dcs; x++)
        for (int i = first[x]; i < first[x + 1]; i++)
            if (m->thr[i] > room[x]) {
                remove_set(bits, m->over + (size_t) i * w, w);
                break;
            }
    /* The lightpaths: the (route, tier) pairs in use without a fit. */
    for (int r = 0; r < m->n_routes; r++) {
        unsigned unfit = m->tiers_used[r] & ~(unsigned) fit[r * fit_stride];
        while (unfit) {
            int t = __builtin_ctz(unfit);
            unfit &= unfit - 1;
            remove_set(bits, m->use + ((size_t) r * m->n_tiers + t) * w, w);
        }
    }
    /* Out as bytes, 8 at a time (the bits past n_cands are clear). */
    int n = m->n_cands, count = 0;
    for (int c = 0; c < n; c += 8) {
        unsigned byte = (unsigned) (bits[c / 64] >> (c % 64)) & 0xff;
        memcpy(mask + c, m->spread[byte], n - c < 8 ? (size_t) (n - c) : 8);
        count += m->ones[byte];
    }
    return count;
}
