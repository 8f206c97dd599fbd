/*
 * lr_bytes: big-endian integers and IEEE doubles in byte buffers, for the
 * wire formats of planner/ (lr_cdynp_summary.c, lr_cdynp_wire.c), and
 * the 64-bit FNV-1a checksum of the policy formats (lr_ppo.c's weights,
 * tools/lightrail/lr_policy_file.c's file).  The callers check the
 * bounds; these only move bytes.
 */
#ifndef LR_BYTES_H
#define LR_BYTES_H 1

#include <stdint.h>
#include <string.h>

static inline void
lr_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t) (v >> 8);
    p[1] = (uint8_t) v;
}

static inline void
lr_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t) (v >> (24 - 8 * i));
}

static inline void
lr_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t) (v >> (56 - 8 * i));
}

static inline uint16_t
lr_get16(const uint8_t *p)
{
    return (uint16_t) (p[0] << 8 | p[1]);
}

static inline uint32_t
lr_get32(const uint8_t *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
           | (uint32_t) p[2] << 8 | p[3];
}

static inline uint64_t
lr_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static inline void
lr_put_f64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    lr_put64(p, u);
}

static inline double
lr_get_f64(const uint8_t *p)
{
    uint64_t u = lr_get64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3):
 * catches a torn or edited file, not a forged one. */
static inline uint64_t
lr_fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

#endif
