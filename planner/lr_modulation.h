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
 *
 * Each format also carries the OSNR in dB (0.1 nm reference bandwidth,
 * 32 GBd) its receiver needs, the gOSNR threshold of a lightpath on an
 * emulator (southbound/sb_mnoptical.h), or NAN when unknown: such a
 * lightpath cannot be judged and is refused, not passed.  The default
 * table's thresholds are not the DeepRMSA file's: 16QAM 20 dB is the
 * Mininet-Optical recipe's "about 20 dB at 32 GBd"
 * (../shared/reference/southbound.md) and the others follow the usual
 * ~3-4 dB per bit/symbol of square/cross QAM at equal BER: BPSK 9, QPSK
 * 12, 8QAM 16 dB, engineering values with margin that the emulations of
 * the tests and docs are set against.  The file's minimum_osnr column
 * (BPSK 12.6, QPSK 12.6, 8QAM 18.6, 16QAM 22.4 dB) comes without its
 * reference bandwidth, baud rate or BER, and gives BPSK no easier than
 * QPSK; it is 2.4-3.6 dB stricter.  A table read from a CSV
 * (lr_modtable_parse_csv) takes the file's column when it has one.
 * Neither is a transceiver's datasheet: give the datasheet's in a CSV
 * when known.
 */
#ifndef LR_MODULATION_H
#define LR_MODULATION_H 1

#include <stddef.h>

#define LR_MOD_MAX 16
/* The bytes of a format's name, its NUL included.  A stored lightpath
 * keeps its format by this name (controller/lr_job.h). */
#define LR_MOD_NAME_MAX 16
/* The bytes lr_mod_name_escape() writes at most: 6 for each byte of a
 * name ("\u0085" for a C1 control's two), the NUL included. */
#define LR_MOD_NAME_ESC_MAX (6 * LR_MOD_NAME_MAX)
/* The bytes 'why' of lr_mod_fits(), lr_mod_sized() and
 * lr_mod_received() needs at most: the table's every name, a name
 * escaped and the words around them. */
#define LR_MOD_WHY_MAX (LR_MOD_MAX * (LR_MOD_NAME_MAX + 2) \
                        + LR_MOD_NAME_ESC_MAX + 384)
#define LR_SLOT_GHZ 12.5
/* The OSNR thresholds a table accepts, dB: below 0 dB or above 50 dB in
 * 0.1 nm no coherent receiver works or needs, so such a value is a
 * typo or another unit (a linear ratio, a BER). */
#define LR_MOD_OSNR_MIN_DB 0.0
#define LR_MOD_OSNR_MAX_DB 50.0

/* The greatest spectral efficiency, bits per symbol, a table's CSV
 * takes. */
#define LR_MOD_SE_MAX 64.0

struct lr_modformat {
    char name[LR_MOD_NAME_MAX];
    double reach_km;
    double se;                /* b/s/Hz */
    double osnr_db;           /* required OSNR, dB; NAN: unknown */
};

struct lr_modtable {
    int n;
    struct lr_modformat f[LR_MOD_MAX];
};

/* Fills 't' with the DeepRMSA table and the default OSNR thresholds
 * (above). */
void lr_modtable_default(struct lr_modtable *t);

/* Adds a format, its OSNR threshold unknown (NAN); EINVAL for a bad
 * name, reach <= 0 or se <= 0, ENOSPC when full, EEXIST for a duplicate
 * name. */
int lr_modtable_add(struct lr_modtable *t, const char *name, double reach_km,
                    double se);

/* Sets the OSNR threshold of format 'i', -0 as +0 (every threshold of
 * a table enters by it, lr_modtable_parse_csv()'s too, so that none
 * holds -0): EINVAL unless 'db' is NAN (unknown) or within
 * LR_MOD_OSNR_MIN_DB..LR_MOD_OSNR_MAX_DB, or 'i' is not a format of
 * 't'. */
int lr_modtable_set_osnr(struct lr_modtable *t, int i, double db);

/* Index of the format named 'name', or -1. */
int lr_modtable_find(const struct lr_modtable *t, const char *name);

/* The offset of the first byte of 'name' that is no text, strlen(name)
 * when all are: a control character (C0, DEL or C1, U+0080..U+009F)
 * or a byte that starts no UTF-8 sequence.  No table holds a name that
 * is not all text (lr_modtable_add() refuses it), but a store written
 * before the CSV reader refused them may keep one for a lightpath. */
size_t lr_mod_name_text(const char *name);

/* What is wrong at byte 'at' of 'name' (lr_mod_name_text()'s answer,
 * short of the end) into buf[len], as the CSV reader says it: "bytes
 * 6-7 are U+009B, a C1 control character" or "byte 6 is 0xff"; 64
 * bytes suffice. */
void lr_mod_name_fault(const char *name, size_t at, char *buf, size_t len);

/* 'name' into buf[len] with each control character written "\u009B"
 * and each byte that is no UTF-8 "\xFF", the rest as it is, so that
 * printing it sends no such byte to a log, a terminal or JSON.
 * LR_MOD_NAME_ESC_MAX bytes hold any name a lightpath keeps. */
void lr_mod_name_escape(const char *name, char *buf, size_t len);

/* The checks a stored lightpath can fail against a modulation table,
 * as the bits of lr_mod_judge()'s result.  A format the table lacks
 * fails alone: there is no reach, efficiency nor threshold to judge
 * the others by. */
#define LR_MOD_NO_FORMAT 0x1 /* the table has no such format */
#define LR_MOD_REACH 0x2     /* its path is beyond the format's reach */
#define LR_MOD_SLOTS 0x4     /* the format's efficiency sizes another m */
#define LR_MOD_GOSNR 0x8     /* measured below the format's threshold */

/* The bytes lr_mod_judge()'s 'why' needs at most: three facts and the
 * words joining them. */
#define LR_MOD_JUDGE_WHY_MAX (3 * LR_MOD_WHY_MAX + 16)

/* Whether a lightpath planned with format 'name' over 'length_km', of
 * 'rate_gbps' in 'm' slots ('guard' of them the guard band), whose
 * receiver measured '*gosnr_db' at provisioning (NULL: never measured,
 * not judged by a threshold), still fits table 't': 0, or the
 * LR_MOD_* bits of every check it fails: LR_MOD_NO_FORMAT alone, or
 * any of LR_MOD_REACH, LR_MOD_SLOTS, LR_MOD_GOSNR.  'why' (NULL: not
 * written; LR_MOD_JUDGE_WHY_MAX bytes suffice) gets each failing
 * check's fact, in that fixed order, in one line: "A", "A; and B",
 * "A; B; and C" (lr_mod_fits(), lr_mod_sized(), lr_mod_received()),
 * so that an operator mending the first learns of the next at once,
 * not at the next start. */
int lr_mod_judge(const struct lr_modtable *t, const char *name,
                 double length_km, double rate_gbps, int m, int guard,
                 const double *gosnr_db, char *why, size_t whylen);

/* Replaces 't' with the table of a modulation CSV, the 'len' bytes of
 * 'text': a header whose first columns are name,maximum_length,
 * spectral_efficiency, then one format per line (blank lines skipped,
 * CR LF and a leading UTF-8 byte order mark accepted; a name bare: no
 * CSV quoting is read, and one in quotes or with spaces around it is
 * refused, as is one that is no UTF-8 text or holds a control
 * character, C0, DEL or C1 (U+0080..U+009F), since names are printed
 * into JSON and logs).  A column
 * minimum_osnr anywhere after them gives each format its OSNR
 * threshold, in dB from LR_MOD_OSNR_MIN_DB to LR_MOD_OSNR_MAX_DB and in
 * hundredths at most (16.995 is refused: a measured gOSNR is shown in
 * hundredths, lr_mod_gosnr_text(), and 16.996 would read 16.99 and pass
 * it; taken until 2026-12-07); a format whose cell is empty, or a file
 * without the column, takes the default table's threshold of the same
 * name (so a reach-only file keeps the documented values of BPSK..16QAM)
 * and has none (NAN) when the default has no such format.  Returns 0,
 * EINVAL (bad text or value, no format), ENOSPC (more than LR_MOD_MAX
 * formats) or EEXIST (a name twice), with "line N: what is wrong, what
 * to give" (or "no modulation formats") in 'err'; 't' is then left as
 * it was.  Pure: the caller reads the file. */
int lr_modtable_parse_csv(struct lr_modtable *t, const char *text,
                          size_t len, char *err, size_t errlen);

/* Index of the most efficient format that reaches 'length_km', or -1 when
 * none does.  A length within a relative 1e-9 of a reach is within it:
 * the rounding of a sum of link lengths does not cost a format. */
int lr_mod_choose(const struct lr_modtable *t, double length_km);

/* Whether a lightpath of 'length_km' planned with the format named
 * 'name' still fits table 't' (another table may have chosen it): 0
 * when 't' has the format and its reach covers the length (within
 * lr_mod_choose()'s slack); ENOENT when 't' has no such format ("" is
 * none: a format not known), ERANGE when the length is beyond its reach
 * in 't'.  Unless 0, 'why' (NULL: not written; LR_MOD_WHY_MAX
 * bytes suffice) gets the fact: "the modulation table has no format
 * 8QAM (it has BPSK, QPSK)", "its modulation format is not known"
 * (""), or "812.5 km is beyond 8QAM's reach of 500 km in the
 * modulation table", the reach as "%g" has it or with the more digits
 * that give it back.  A name that is no text (lr_mod_name_text()) is
 * one no table has, said escaped with its fault: "the modulation table
 * has no format 8QAM\u009B (escaped: a format's name must be UTF-8
 * text without control characters; bytes 5-6 are U+009B, a C1 control
 * character; it has BPSK, QPSK)".
 * Neither the OSNR threshold (lr_mod_received(): it needs a
 * measurement) nor the slot count (lr_mod_sized()) is judged here. */
int lr_mod_fits(const struct lr_modtable *t, const char *name,
                double length_km, char *why, size_t whylen);

/* 'length_km', beyond a format's reach 'reach_km' (lr_mod_choose()
 * refuses it), as text into a[len] (48 bytes suffice) with the fewest
 * decimals, one at least, that read past the reach and that, given as
 * the reach, lr_mod_choose() takes: the length lr_mod_fits() says
 * ("500.04 km is beyond 8QAM's reach of 500 km") and the least reach
 * the way back names ("give 8QAM a reach of at least 500.04 km
 * back"). */
void lr_mod_reach_needed(double length_km, double reach_km, char *a,
                         size_t len);

/* Whether a lightpath planned with the format named 'name' to carry
 * 'rate_gbps' in 'm' slots ('guard' guard slots included) is still
 * sized so by table 't' (whose spectral efficiency for the format may
 * have changed since): 0 when lr_mod_slots() of the format in 't' is
 * 'm', or when the rate is not known (not a positive number: nothing
 * to size); ENOENT when 't' has no such format (lr_mod_fits() says
 * which); EDOM when the count differs, 'why' (NULL: not written) then
 * "it holds 9 slots for 400 Gb/s where the modulation table's 16QAM,
 * at 2 bits per symbol (25 Gb/s per slot), sizes 17 (guard band
 * included)", the rate and the SE as "%g" has them or with the more
 * digits that give them back (3.9999999, not "4", which sizes 9). */
int lr_mod_sized(const struct lr_modtable *t, const char *name,
                 double rate_gbps, int m, int guard, char *why,
                 size_t whylen);

/* The spectral efficiencies, in bits per symbol, at which lr_mod_slots()
 * sizes 'm' slots ('guard' of them the guard band) for 'rate_gbps', as
 * a modulation table's CSV would give them, into lo[len] and hi[len]
 * (16 bytes suffice): the least and the greatest of that range written
 * with two decimals, or more (six at most) where two do not size 'm',
 * final zeros dropped ("4", "4.57").
 * The range is [rate / (12.5 (m - guard)), rate / (12.5 (m - guard -
 * 1))), the upper end not in it, and LR_MOD_SE_MAX at most: hi is
 * empty when every SE from lo up to LR_MOD_SE_MAX sizes 'm' (one slot
 * of data: no upper end), and equals lo when one text alone does.
 * Returns 0; EDOM, lo and hi emptied, when the rate is not a positive
 * number or 'm' holds no slot beyond the guard band; ERANGE when no SE
 * of six decimals at most, up to LR_MOD_SE_MAX, sizes 'm'.  Never for
 * a lightpath lightraild planned: at 100 to 400 Gb/s on links of at
 * most 1024 slots the range is 32 at most and 7.6e-6 wide at least
 * (test_modulation asserts each count); only a store's count no
 * planner made (100000 Gb/s in 12 slots; 0.1 Gb/s in 65535, a range
 * narrower than a millionth).  For the way back of
 * a stored lightpath whose format's SE changed in the table (lr_ctl.c):
 * the lightpath keeps no SE of its own, and any of these gives it its
 * slots back (the least is the one it was planned with when the rate
 * fills its slots, 400 Gb/s in 8 at 4). */
int lr_mod_se_range(double rate_gbps, int m, int guard, char *lo, char *hi,
                    size_t len);

/* Whether a lightpath of the format named 'name' whose receiver
 * measured 'gosnr_db' when it was provisioned is still received by
 * table 't' (whose OSNR threshold for the format may have been raised
 * since): 0 when the measurement is at or above the format's threshold
 * there, or when either is not known (NaN: no measurement, or a format
 * without a threshold: nothing to judge); ENOENT when 't' has no such
 * format (lr_mod_fits() says which); ENOLINK when the measurement is
 * below the threshold, 'why' (NULL: not written) then "measured 14.2
 * dB at provisioning, below 16QAM's 15.0 dB threshold in the modulation
 * table" (the threshold with the decimals that give it back, one at
 * least; the measurement as lr_mod_gosnr_text() has it, as GET shows
 * it: "16.99 ... 17.0" for 16.996, "17.03 ... 17.04").  Compared as
 * the provisioning's check compares (sb_driver.h check_lightpath): a
 * margin of 0 is received. */
int lr_mod_received(const struct lr_modtable *t, const char *name,
                    double gosnr_db, char *why, size_t whylen);

/* A measured gOSNR 'db' as the controller shows and says it, into
 * buf[len] (32 bytes suffice for any finite number): cut to hundredths,
 * never rounded up, a final 0 of the two decimals dropped as libyang's
 * canonical decimal64 drops it ("16.99" for 16.996, "17.0" for 17,
 * "16.29" for 16.29, not "16.28" by its binary form; "0.0" for -0,
 * never "-0.0").  A table's
 * threshold has two decimals at most (lr_modtable_parse_csv()), so
 * this text is below it exactly when 'db' is.  A number not finite is
 * written as "%g" writes it, and one whose hundredths do not fit
 * buf[len] (-1e40 in 32 bytes) as the fewest digits of "%g" that read
 * back as it ("-1e+40"), never cut.  The rule's one home is
 * planner/lr_modtext.h, which the southbound's texts share. */
void lr_mod_gosnr_text(double db, char *buf, size_t len);

/* Slots for 'rate_gbps' with format 'f' and 'guard' guard slots, in
 * 0..INT_MAX: a need beyond INT_MAX (or a NaN rate) reads INT_MAX, more
 * than any spectrum, so that the request blocks. */
int lr_mod_slots(const struct lr_modformat *f, double rate_gbps, int guard);

/* Capacity in Gb/s of 'slots' slots (guard included) with format 'f'. */
double lr_mod_capacity(const struct lr_modformat *f, int slots, int guard);

#endif
