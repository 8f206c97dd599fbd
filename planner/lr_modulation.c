/* lr_modulation: see lr_modulation.h for the model. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "planner/lr_modulation.h"
#include "planner/lr_util.h"

void
lr_modtable_default(struct lr_modtable *t)
{
    t->n = 0;
    lr_modtable_add(t, "BPSK", 100000, 1);
    lr_modtable_add(t, "QPSK", 2500, 2);
    lr_modtable_add(t, "8QAM", 1250, 3);
    lr_modtable_add(t, "16QAM", 625, 4);
}

int
lr_modtable_add(struct lr_modtable *t, const char *name, double reach_km,
                double se)
{
    if (t->n >= LR_MOD_MAX)
        return ENOSPC;
    struct lr_modformat *f = &t->f[t->n];
    if (lr_copy_name(f->name, sizeof f->name, name) || !(reach_km > 0)
        || !(se > 0))
        return EINVAL;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->f[i].name, name))
            return EEXIST;
    f->reach_km = reach_km;
    f->se = se;
    t->n++;
    return 0;
}

int
lr_mod_choose(const struct lr_modtable *t, double length_km)
{
    /* A path's length is a sum of doubles: 297.8 + 258.1 + 69.1 km reads
     * 625.0000000000001, past 16QAM's 625.  Lengths are given to the
     * metre (lightrail-topology, 3 fraction digits), so a relative slack
     * of 1e-9, 0.1 m at 100,000 km, forgives the rounding and no real
     * excess. */
    double len = length_km * (1 - 1e-9);
    int best = -1;
    for (int i = 0; i < t->n; i++)
        if (t->f[i].reach_km >= len
            && (best < 0 || t->f[i].se > t->f[best].se))
            best = i;
    return best;
}

int
lr_mod_slots(const struct lr_modformat *f, double rate_gbps, int guard)
{
    /* The epsilon keeps an exact multiple (100 Gb/s at 25 Gb/s per slot)
     * from rounding up through floating-point noise. */
    double need = ceil(rate_gbps / (f->se * LR_SLOT_GHZ) - 1e-9) + guard;
    /* A need beyond INT_MAX (a tiny SE, a huge rate, or NaN) is far more
     * than any spectrum holds: saturate, since converting it to int is
     * undefined (x86 gives INT_MIN, a negative block every policy then
     * "fits"). */
    if (!(need < INT_MAX))
        return INT_MAX;
    return need > 0 ? (int) need : 0;
}

double
lr_mod_capacity(const struct lr_modformat *f, int slots, int guard)
{
    return slots > guard ? (slots - guard) * f->se * LR_SLOT_GHZ : 0;
}

double
lr_mod_osnr_db(const char *name)
{
    static const struct {
        const char *name;
        double db;
    } t[] = { { "BPSK", 9 }, { "QPSK", 12 }, { "8QAM", 16 },
              { "16QAM", 20 } };
    for (size_t i = 0; name && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, name))
            return t[i].db;
    return NAN;
}
