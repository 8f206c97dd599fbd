/*
 * lr_modtext: the texts of a modulation's numbers, the one rule for
 * every printer of them.  A measured gOSNR is cut to hundredths, never
 * rounded up, a final 0 of the two decimals dropped, as libyang's
 * canonical decimal64 drops it ("16.99" for 16.996, "17.0" for 17): the
 * controller keeps and GET shows it so (planner/lr_modulation.h
 * lr_mod_gosnr_text()), and a threshold of hundredths at most
 * (lr_modtable_parse_csv()) is above that text exactly when it is above
 * the measurement.  A threshold is said with the fewest decimals, one
 * at least, that give it back ("17.0", "17.04"); any other number with
 * the fewest digits of "%g", six at least, that give it back.
 *
 * Header only, static inline, pure (no I/O but snprintf() into the
 * caller's buffer): the southbound library (liblrsb), which does not
 * link the planner, says the Mininet-Optical check's texts by it too
 * (southbound/sb_mnoptical.h sb_mno_gosnr_text()).
 */
#ifndef LR_MODTEXT_H
#define LR_MODTEXT_H 1

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two-decimal text buf (as "%.2f" writes it) with a final 0 of its
 * decimals dropped: "17.00" reads "17.0", "16.90" "16.9", "+0.00"
 * "+0.0". */
static inline void
lr_modtext_hundredths_canonical(char *buf)
{
    size_t n = strlen(buf);
    if (n >= 4 && buf[n - 3] == '.' && buf[n - 1] == '0')
        buf[n - 1] = '\0';
}

/* 'x' (finite) into buf[len] as "%g" writes it when that reads back as
 * 'x', else with the fewest more significant digits that do (17 always
 * do); returns the digits used.  A number said in a fact is the one
 * judged: "%g"'s six digits said a reach of 999.9996 km "1000" beside a
 * length of "1000.0" beyond it. */
static inline int
lr_modtext_g(double x, char *buf, size_t len)
{
    int p = 6;
    for (; p < 17; p++) {
        snprintf(buf, len, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            return p;
    }
    snprintf(buf, len, "%.*g", p, x);
    return p;
}

/* A measured gOSNR 'db' cut to hundredths into buf[len], the rule above;
 * -0 (a receiver's rounding) is "0.0", not "-0.00", which reads as a
 * measurement below 0.  False, buf then holding no text to use, when
 * 'db' is not finite or its hundredths do not fit buf[len] (|db| of
 * 1e28 and more in 32 bytes): the caller says the number otherwise. */
static inline bool
lr_modtext_gosnr_cut(double db, char *buf, size_t len)
{
    if (!isfinite(db))
        return false;
    if (db == 0)
        db = 0;
    int n = snprintf(buf, len, "%.2f", db);
    if (n < 0 || (size_t) n >= len)
        return false;
    if (strtod(buf, NULL) > db)
        snprintf(buf, len, "%.2f", strtod(buf, NULL) - 0.01);
    lr_modtext_hundredths_canonical(buf);
    return true;
}

/* A threshold 't' (finite) into buf[len] with the fewest decimals, one
 * at least, that give it back, as a table's CSV wrote it: "17.0",
 * "17.04"; -0 is "0.0", not "-0.0": no table holds one
 * (lr_modtable_set_osnr() takes it as +0), but sb_mno_gosnr_text()
 * says any threshold its caller gives. */
static inline void
lr_modtext_threshold(double t, char *buf, size_t len)
{
    int d = 1;
    if (t == 0)
        t = 0;
    snprintf(buf, len, "%.1f", t);
    while (d < 17 && strtod(buf, NULL) != t)
        snprintf(buf, len, "%.*f", ++d, t);
}

#endif
