/*
 * lr_bitset: fixed-width bit arrays for spectrum occupancy, word at a time.
 *
 * A link's spectrum of n slots is ceil(n / 64) 64-bit words; bit i set
 * means slot i is in use.  Bits at or above n ("padding") are kept set, so
 * they look occupied and no search ever returns them: the searches below
 * never need to know n.
 *
 * Model.  A block of m slots can start at slot p on a path P when
 *     F(p) = AND_{e in P} AND_{j = 0..m-1} free_e(p + j) = 1.
 * We fold the path first (free = ~(OR_e occ_e), one pass per link), then
 * take the m-fold AND along the slot axis by doubling:
 *     s_1 = free;  s_{a+d} = s_a & (s_a >> d)  with d = min(a, m - a),
 * so s_m(p) = 1 iff p..p+m-1 are all free.  That is ceil(log2 m) passes of
 * one shift and one AND per word: O(|P| W + W log m) word operations for W
 * words, with no loop over individual slots.  First fit is then the lowest
 * set bit of s_m (ctz), last fit the highest (clz).
 *
 * Free runs (maximal blocks of free slots, for best and exact fit and for
 * capacity-loss policies) are walked with ctz on free and ~free, again a
 * word at a time.
 */
#ifndef LR_BITSET_H
#define LR_BITSET_H 1

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define LR_BITS_PER_WORD 64
/* Widest spectrum supported: 1024 slots (12.8 THz of 12.5 GHz slots). */
#define LR_BITS_MAX_WORDS 16

static inline int
lr_bits_words(int n)
{
    return (n + LR_BITS_PER_WORD - 1) / LR_BITS_PER_WORD;
}

/* Sets 'w' (nw words) to an all-free spectrum of n slots: bits below n
 * clear, padding bits set. */
static inline void
lr_bits_init(uint64_t *w, int nw, int n)
{
    memset(w, 0, (size_t) nw * sizeof *w);
    for (int i = n / 64; i < nw; i++) {
        int lo = i * 64;
        w[i] = n <= lo ? ~UINT64_C(0) : ~UINT64_C(0) << (n - lo);
    }
}

/* Mask of bits [lo, hi) inside word 'i', for 0 <= lo < hi. */
static inline uint64_t
lr_bits_word_mask(int i, int lo, int hi)
{
    int a = lo - i * 64, b = hi - i * 64;
    if (a < 0)
        a = 0;
    if (b > 64)
        b = 64;
    if (a >= b)
        return 0;
    uint64_t m = b == 64 ? ~UINT64_C(0) : (UINT64_C(1) << b) - 1;
    return m & (~UINT64_C(0) << a);
}

/* True when any of slots [first, first + m) is set. */
static inline bool
lr_bits_any(const uint64_t *w, int first, int m)
{
    for (int i = first / 64; i <= (first + m - 1) / 64; i++)
        if (w[i] & lr_bits_word_mask(i, first, first + m))
            return true;
    return false;
}

/* True when all of slots [first, first + m) are set. */
static inline bool
lr_bits_all(const uint64_t *w, int first, int m)
{
    for (int i = first / 64; i <= (first + m - 1) / 64; i++) {
        uint64_t mask = lr_bits_word_mask(i, first, first + m);
        if ((w[i] & mask) != mask)
            return false;
    }
    return true;
}

static inline void
lr_bits_set(uint64_t *w, int first, int m)
{
    for (int i = first / 64; i <= (first + m - 1) / 64; i++)
        w[i] |= lr_bits_word_mask(i, first, first + m);
}

static inline void
lr_bits_clear(uint64_t *w, int first, int m)
{
    for (int i = first / 64; i <= (first + m - 1) / 64; i++)
        w[i] &= ~lr_bits_word_mask(i, first, first + m);
}

/* dst = src >> d across words (bit p of dst = bit p + d of src), d >= 1. */
static inline void
lr_bits_shr(uint64_t *dst, const uint64_t *src, int nw, int d)
{
    int ws = d / 64, bs = d % 64;
    for (int i = 0; i < nw; i++) {
        uint64_t lo = i + ws < nw ? src[i + ws] : 0;
        uint64_t hi = i + ws + 1 < nw ? src[i + ws + 1] : 0;
        dst[i] = bs ? (lo >> bs) | (hi << (64 - bs)) : lo;
    }
}

/* In place: 'free' (nw words, a set bit = a free slot) becomes the mask of
 * slots where a block of m free slots starts (see the model above). */
static inline void
lr_bits_fit_starts(uint64_t *free, int nw, int m)
{
    uint64_t tmp[LR_BITS_MAX_WORDS];
    for (int have = 1; have < m;) {
        int d = have < m - have ? have : m - have;
        lr_bits_shr(tmp, free, nw, d);
        for (int i = 0; i < nw; i++)
            free[i] &= tmp[i];
        have += d;
    }
}

/* Index of the lowest set bit at or above 'from', or -1. */
static inline int
lr_bits_next_set(const uint64_t *w, int nw, int from)
{
    int i = from / 64;
    if (i >= nw)
        return -1;
    uint64_t x = w[i] & (~UINT64_C(0) << (from % 64));
    for (;;) {
        if (x)
            return i * 64 + __builtin_ctzll(x);
        if (++i >= nw)
            return -1;
        x = w[i];
    }
}

/* Index of the lowest clear bit at or above 'from', or nw * 64. */
static inline int
lr_bits_next_clear(const uint64_t *w, int nw, int from)
{
    int i = from / 64;
    if (i >= nw)
        return nw * 64;
    uint64_t x = ~w[i] & (~UINT64_C(0) << (from % 64));
    for (;;) {
        if (x)
            return i * 64 + __builtin_ctzll(x);
        if (++i >= nw)
            return nw * 64;
        x = ~w[i];
    }
}

/* Index of the highest set bit strictly below 'below', or -1. */
static inline int
lr_bits_prev_set(const uint64_t *w, int below)
{
    if (below <= 0)
        return -1;
    int i = (below - 1) / 64;
    int b = (below - 1) % 64;
    uint64_t x = w[i] & (b == 63 ? ~UINT64_C(0) : (UINT64_C(2) << b) - 1);
    for (;;) {
        if (x)
            return i * 64 + 63 - __builtin_clzll(x);
        if (--i < 0)
            return -1;
        x = w[i];
    }
}

/* Index of the highest clear bit strictly below 'below', or -1. */
static inline int
lr_bits_prev_clear(const uint64_t *w, int below)
{
    if (below <= 0)
        return -1;
    int i = (below - 1) / 64;
    int b = (below - 1) % 64;
    uint64_t x = ~w[i] & (b == 63 ? ~UINT64_C(0) : (UINT64_C(2) << b) - 1);
    for (;;) {
        if (x)
            return i * 64 + 63 - __builtin_clzll(x);
        if (--i < 0)
            return -1;
        x = ~w[i];
    }
}

/* Index of the highest set bit, or -1. */
static inline int
lr_bits_last_set(const uint64_t *w, int nw)
{
    return lr_bits_prev_set(w, nw * 64);
}

/* Number of set bits. */
static inline int
lr_bits_count(const uint64_t *w, int nw)
{
    int c = 0;
    for (int i = 0; i < nw; i++)
        c += __builtin_popcountll(w[i]);
    return c;
}

#endif
