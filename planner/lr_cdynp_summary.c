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
 * Version LR_CDYNP_VERSION_COUNTS (2026-12-05, the _BOUND objectives):
 * the same with each entry's stage count after its layer,
 *     n x { u32 layer, u16 stages, f64 bottleneck, f64 sum, f64 sync }
 * 30 bytes each, stages >= 1, entries in (layer, stages) order.
 * Decoding reads only within [buf, buf + len) and refuses anything that
 * is not exactly this (see lr_cdynp_summary_decode in lr_cdynp.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "planner/lr_bytes.h"
#include "planner/lr_cdynp.h"

#define HEADER 12
#define ENTRY 28
#define ENTRY_COUNTS 30

size_t
lr_cdynp_summary_size(int n)
{
    return HEADER + (size_t) n * ENTRY;
}

size_t
lr_cdynp_summary_size_v(int version, int n)
{
    return HEADER + (size_t) n
                    * (version == LR_CDYNP_VERSION_COUNTS ? ENTRY_COUNTS
                                                          : ENTRY);
}

/* Entry i of 's' (or of version 'counts') out of order after entry i-1:
 * layers strictly increasing, or under counts (layer, stages). */
static bool
out_of_order(bool counts, uint32_t l0, uint16_t s0, uint32_t l1, uint16_t s1)
{
    return counts ? l1 < l0 || (l1 == l0 && s1 <= s0) : l1 <= l0;
}

size_t
lr_cdynp_summary_encode(const struct lr_cdynp_summary *s, uint8_t *buf,
                        size_t len)
{
    const bool counts = s->version == LR_CDYNP_VERSION_COUNTS;
    if ((s->version != LR_CDYNP_VERSION && !counts)
        || s->n > LR_CDYNP_MAX_ENTRIES
        || len < lr_cdynp_summary_size_v(s->version, s->n))
        return 0;
    /* What the decoder refuses is never written (its rules below). */
    for (int i = 0; i < s->n; i++) {
        const struct lr_cdynp_cost *c = &s->e[i].cost;
        if ((i > 0 && out_of_order(counts, s->e[i - 1].layer,
                                   s->e[i - 1].stages, s->e[i].layer,
                                   s->e[i].stages))
            || (counts && s->e[i].stages < 1)
            || !isfinite(c->bottleneck) || c->bottleneck < 0
            || !isfinite(c->sum) || c->sum < 0 || !isfinite(c->sync)
            || c->sync < 0)
            return 0;
    }
    const size_t entry = counts ? ENTRY_COUNTS : ENTRY;
    memcpy(buf, "LRCS", 4);
    lr_put16(buf + 4, s->version);
    lr_put16(buf + 6, s->from);
    lr_put16(buf + 8, s->n);
    lr_put16(buf + 10, 0);
    for (int i = 0; i < s->n; i++) {
        uint8_t *p = buf + HEADER + (size_t) i * entry;
        lr_put32(p, s->e[i].layer);
        if (counts) {
            lr_put16(p + 4, s->e[i].stages);
            p += 2;
        }
        lr_put_f64(p + 4, s->e[i].cost.bottleneck);
        lr_put_f64(p + 12, s->e[i].cost.sum);
        lr_put_f64(p + 20, s->e[i].cost.sync);
    }
    return lr_cdynp_summary_size_v(s->version, s->n);
}

int
lr_cdynp_summary_decode(const uint8_t *buf, size_t len,
                        struct lr_cdynp_summary *out)
{
    if (len < HEADER)
        return EINVAL;
    uint16_t version = lr_get16(buf + 4);
    const bool counts = version == LR_CDYNP_VERSION_COUNTS;
    if (memcmp(buf, "LRCS", 4) || (version != LR_CDYNP_VERSION && !counts))
        return EPROTO;
    uint16_t n = lr_get16(buf + 8);
    if (n > LR_CDYNP_MAX_ENTRIES || len != lr_cdynp_summary_size_v(version, n)
        || lr_get16(buf + 10) != 0)
        return EINVAL;
    const size_t entry = counts ? ENTRY_COUNTS : ENTRY;
    out->version = version;
    out->from = lr_get16(buf + 6);
    out->n = n;
    out->has_prev = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t *p = buf + HEADER + (size_t) i * entry;
        uint32_t l = lr_get32(p);
        uint16_t st = 0;
        if (counts) {
            st = lr_get16(p + 4);
            p += 2;
        }
        double b = lr_get_f64(p + 4), s = lr_get_f64(p + 12),
               y = lr_get_f64(p + 20);
        if ((i > 0 && out_of_order(counts, out->e[i - 1].layer,
                                   out->e[i - 1].stages, l, st))
            || (counts && st < 1) || !isfinite(b) || b < 0
            || !isfinite(s) || s < 0 || !isfinite(y) || y < 0)
            return EINVAL;
        out->e[i].layer = l;
        out->e[i].stages = st;
        out->e[i].cost = (struct lr_cdynp_cost) { b, s, y };
    }
    return 0;
}
