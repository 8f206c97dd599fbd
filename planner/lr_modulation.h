/*
 * lr_modulation: distance-adaptive modulation from a reach table.
 *
 * Model (../shared/reference/optical.md).  A format f has a spectral
 * efficiency SE_f (bits per symbol, b/s/Hz) and a maximum reach R_f (km).
 * A lightpath of length L uses the most efficient format with R_f >= L;
 * carrying a rate r (Gb/s) it needs
 *     slots(r, f) = ceil(r / (SE_f x 12.5 GHz)) + guard
 * frequency slots of 12.5 GHz, guard being the guard band (1 slot in the
 * RMSA benchmark protocol).  The default table is the DeepRMSA one
 * (../shared/data/modulations_deeprmsa.csv): BPSK 1/100000 km, QPSK
 * 2/2500 km, 8QAM 3/1250 km, 16QAM 4/625 km.
 */
#ifndef LR_MODULATION_H
#define LR_MODULATION_H 1

#define LR_MOD_MAX 16
#define LR_SLOT_GHZ 12.5

struct lr_modformat {
    char name[16];
    double reach_km;
    double se;                /* b/s/Hz */
};

struct lr_modtable {
    int n;
    struct lr_modformat f[LR_MOD_MAX];
};

/* Fills 't' with the DeepRMSA table. */
void lr_modtable_default(struct lr_modtable *t);

/* Adds a format; EINVAL for a bad name, reach <= 0 or se <= 0, ENOSPC when
 * full, EEXIST for a duplicate name. */
int lr_modtable_add(struct lr_modtable *t, const char *name, double reach_km,
                    double se);

/* Index of the most efficient format that reaches 'length_km', or -1 when
 * none does.  A length within a relative 1e-9 of a reach is within it:
 * the rounding of a sum of link lengths does not cost a format. */
int lr_mod_choose(const struct lr_modtable *t, double length_km);

/* Slots for 'rate_gbps' with format 'f' and 'guard' guard slots, in
 * 0..INT_MAX: a need beyond INT_MAX (or a NaN rate) reads INT_MAX, more
 * than any spectrum, so that the request blocks. */
int lr_mod_slots(const struct lr_modformat *f, double rate_gbps, int guard);

/* The OSNR in dB (0.1 nm reference bandwidth, 32 GBd) a receiver of the
 * format 'name' needs, used as the gOSNR threshold of a lightpath on an
 * emulator (southbound/sb_mnoptical.h); NAN for a format it does not know.
 * 16QAM: about 20 dB, the Mininet-Optical recipe's figure
 * (../shared/reference/southbound.md); the others follow the usual ~3-4
 * dB per bit/symbol of square/cross QAM at equal BER: BPSK 9, QPSK 12,
 * 8QAM 16 dB.  Engineering values with margin, not a transceiver's
 * datasheet: replace them with the datasheet's when known. */
double lr_mod_osnr_db(const char *name);

/* Capacity in Gb/s of 'slots' slots (guard included) with format 'f'. */
double lr_mod_capacity(const struct lr_modformat *f, int slots, int guard);

#endif
