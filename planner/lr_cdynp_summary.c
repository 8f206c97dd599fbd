/*
 * lr_cdynp_summary: the CDynP state summary on the wire.
 *
 * Layout, all integers big-endian, doubles as IEEE 754 binary64 bits:
 *     "LRCS"  magic (4 bytes)
 *     u16     version (LR_CDYNP_VERSION)
 *     u16     from: the sender's chain position
 *     u16     n: entries
 *     u16     reserved, 0
 *     n x { u32 layer, f64 bottleneck, f64 sum, f64 sync }   28 bytes each
 * Decoding reads only within [buf, buf + len) and refuses anything that
 * is not exactly this (see lr_cdynp_summary_decode in lr_cdynp.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "planner/lr_cdynp.h"

#define HEADER 12
#define ENTRY 28

size_t
lr_cdynp_summary_size(int n)
{
    return HEADER + (size_t) n * ENTRY;
}

static void
put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t) (v >> 8);
    p[1] = (uint8_t) v;
}

static void
put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t) (v >> (56 - 8 * i));
}

static uint16_t
get16(const uint8_t *p)
{
    return (uint16_t) (p[0] << 8 | p[1]);
}

static uint64_t
get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static uint64_t
dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double
bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

size_t
lr_cdynp_summary_encode(const struct lr_cdynp_summary *s, uint8_t *buf,
                        size_t len)
{
    if (s->n > LR_CDYNP_MAX_ENTRIES || len < lr_cdynp_summary_size(s->n))
        return 0;
    memcpy(buf, "LRCS", 4);
    put16(buf + 4, s->version);
    put16(buf + 6, s->from);
    put16(buf + 8, s->n);
    put16(buf + 10, 0);
    for (int i = 0; i < s->n; i++) {
        uint8_t *p = buf + HEADER + (size_t) i * ENTRY;
        uint32_t l = s->e[i].layer;
        p[0] = (uint8_t) (l >> 24);
        p[1] = (uint8_t) (l >> 16);
        p[2] = (uint8_t) (l >> 8);
        p[3] = (uint8_t) l;
        put64(p + 4, dbits(s->e[i].cost.bottleneck));
        put64(p + 12, dbits(s->e[i].cost.sum));
        put64(p + 20, dbits(s->e[i].cost.sync));
    }
    return lr_cdynp_summary_size(s->n);
}

int
lr_cdynp_summary_decode(const uint8_t *buf, size_t len,
                        struct lr_cdynp_summary *out)
{
    if (len < HEADER)
        return EINVAL;
    if (memcmp(buf, "LRCS", 4) || get16(buf + 4) != LR_CDYNP_VERSION)
        return EPROTO;
    uint16_t n = get16(buf + 8);
    if (n > LR_CDYNP_MAX_ENTRIES || len != lr_cdynp_summary_size(n)
        || get16(buf + 10) != 0)
        return EINVAL;
    out->version = LR_CDYNP_VERSION;
    out->from = get16(buf + 6);
    out->n = n;
    for (int i = 0; i < n; i++) {
        const uint8_t *p = buf + HEADER + (size_t) i * ENTRY;
        uint32_t l = (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
                     | (uint32_t) p[2] << 8 | p[3];
        double b = bitsd(get64(p + 4)), s = bitsd(get64(p + 12)),
               y = bitsd(get64(p + 20));
        if ((i > 0 && l <= out->e[i - 1].layer) || !isfinite(b) || b < 0
            || !isfinite(s) || s < 0 || !isfinite(y) || y < 0)
            return EINVAL;
        out->e[i].layer = l;
        out->e[i].cost = (struct lr_cdynp_cost) { b, s, y };
    }
    return 0;
}
