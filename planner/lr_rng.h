/*
 * lr_rng: a small, fast, seedable random number generator.
 *
 * xoshiro256** (D. Blackman and S. Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 47(4), 2021), seeded through splitmix64 as
 * its authors recommend.  Every simulation takes its seed explicitly, so a
 * run is reproducible bit for bit on any machine with IEEE doubles and the
 * same libm log().
 */
#ifndef LR_RNG_H
#define LR_RNG_H 1

#include <math.h>
#include <stdint.h>

struct lr_rng {
    uint64_t s[4];
};

static inline uint64_t
lr_rng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline void
lr_rng_seed(struct lr_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = lr_rng_splitmix64(&seed);
}

static inline uint64_t
lr_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t
lr_rng_next(struct lr_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = lr_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = lr_rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 bits. */
static inline double
lr_rng_uniform(struct lr_rng *r)
{
    return (double) (lr_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n >= 1, without modulo bias (Lemire's
 * multiply-and-reject, ACM TOMACS 29(1), 2019). */
static inline uint32_t
lr_rng_below(struct lr_rng *r, uint32_t n)
{
    uint64_t m = (uint64_t) (uint32_t) (lr_rng_next(r) >> 32) * n;
    uint32_t low = (uint32_t) m;
    if (low < n) {
        uint32_t threshold = -n % n;
        while (low < threshold) {
            m = (uint64_t) (uint32_t) (lr_rng_next(r) >> 32) * n;
            low = (uint32_t) m;
        }
    }
    return (uint32_t) (m >> 32);
}

/* Exponential with the given mean. */
static inline double
lr_rng_exp(struct lr_rng *r, double mean)
{
    return -mean * log1p(-lr_rng_uniform(r));
}

#endif
