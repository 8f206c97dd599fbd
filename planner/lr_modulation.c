/* lr_modulation: see lr_modulation.h for the model. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_modtext.h"
#include "planner/lr_modulation.h"
#include "planner/lr_utf8.h"
#include "planner/lr_util.h"

void
lr_mod_gosnr_text(double db, char *buf, size_t len)
{
    if (lr_modtext_gosnr_cut(db, buf, len))
        return;
    /* Not finite, or its hundredths do not fit (|db| of 1e28 and more in
     * 32 bytes, far past any hundredth a double holds): the number
     * itself, with the fewest digits that give it back, not its first
     * digits cut by snprintf(). */
    if (isfinite(db))
        lr_modtext_g(db, buf, len);
    else
        snprintf(buf, len, "%g", db);
}

/* The default table's OSNR threshold of the format 'name', NAN for a
 * format it does not have (lr_modulation.h says where the values come
 * from).  Only tables are asked for a threshold elsewhere, so that the
 * table in use decides. */
static double
mod_default_osnr_db(const char *name)
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

void
lr_modtable_default(struct lr_modtable *t)
{
    t->n = 0;
    lr_modtable_add(t, "BPSK", 100000, 1);
    lr_modtable_add(t, "QPSK", 2500, 2);
    lr_modtable_add(t, "8QAM", 1250, 3);
    lr_modtable_add(t, "16QAM", 625, 4);
    for (int i = 0; i < t->n; i++)
        t->f[i].osnr_db = mod_default_osnr_db(t->f[i].name);
}

/* Whether the UTF-8 sequence at 's' is a C1 control character,
 * U+0080..U+009F (0xc2 0x80..0x9f): well-formed text, yet U+009B is a
 * terminal's CSI and U+0085 a line break to some readers of a log, as
 * harmful there as the C0 controls. */
static bool
mod_is_c1(const unsigned char *s)
{
    return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f;
}

/* A name is printed into the API's JSON (a lightpath's modulation,
 * modulation-mismatch), which must be UTF-8 (RFC 8259), and into
 * one-line logs and reports; libyang stores a string leaf's bytes
 * unchecked, so a Latin-1 file's name would reach every client. */
size_t
lr_mod_name_text(const char *name)
{
    const unsigned char *s = (const unsigned char *) name;
    size_t i = 0;
    while (s[i]) {
        size_t n = lr_utf8_len(s + i);
        if (!n || s[i] < 0x20 || s[i] == 0x7f || mod_is_c1(s + i))
            return i;
        i += n;
    }
    return i;
}

void
lr_mod_name_fault(const char *name, size_t at, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *) name + at;
    /* Said as the character it is (0xc2 0xNN is U+00NN): its first byte
     * also starts printable ones (U+00A0..U+00BF).  Another byte is not
     * quoted: it would reach the log as it is. */
    if (mod_is_c1(b))
        snprintf(buf, len, "bytes %zu-%zu are U+%04X, a C1 control "
                 "character", at + 1, at + 2, (unsigned) b[1]);
    else
        snprintf(buf, len, "byte %zu is 0x%02x", at + 1, (unsigned) b[0]);
}

void
lr_mod_name_escape(const char *name, char *buf, size_t len)
{
    const unsigned char *s = (const unsigned char *) name;
    size_t o = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (size_t i = 0; s[i] && o < len;) {
        size_t n = lr_utf8_len(s + i);
        int w;
        if (n && mod_is_c1(s + i))
            w = snprintf(buf + o, len - o, "\\u%04X",
                         (unsigned) s[i + 1]);
        else if (n && (s[i] < 0x20 || s[i] == 0x7f))
            w = snprintf(buf + o, len - o, "\\u%04X", (unsigned) s[i]);
        else if (!n)
            w = snprintf(buf + o, len - o, "\\x%02X", (unsigned) s[i]);
        else
            w = snprintf(buf + o, len - o, "%.*s", (int) n,
                         (const char *) s + i);
        if (w < 0)
            break;
        o += (size_t) w;
        i += n ? n : 1;
    }
}

int
lr_modtable_add(struct lr_modtable *t, const char *name, double reach_km,
                double se)
{
    if (t->n >= LR_MOD_MAX)
        return ENOSPC;
    struct lr_modformat *f = &t->f[t->n];
    if (lr_copy_name(f->name, sizeof f->name, name) || !(reach_km > 0)
        || !(se > 0) || name[lr_mod_name_text(name)])
        return EINVAL;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->f[i].name, name))
            return EEXIST;
    f->reach_km = reach_km;
    f->se = se;
    f->osnr_db = NAN;
    t->n++;
    return 0;
}

int
lr_modtable_set_osnr(struct lr_modtable *t, int i, double db)
{
    if (i < 0 || i >= t->n
        || !(isnan(db) || (db >= LR_MOD_OSNR_MIN_DB
                           && db <= LR_MOD_OSNR_MAX_DB)))
        return EINVAL;
    /* -0 (a CSV's "-0", a caller's -0.0) is taken as +0, here where
     * every threshold enters a table, so that no printer of it writes
     * "-0.0" ("%.1f" does). */
    t->f[i].osnr_db = db == 0 ? 0 : db;
    return 0;
}

int
lr_modtable_find(const struct lr_modtable *t, const char *name)
{
    for (int i = 0; name && i < t->n; i++)
        if (!strcmp(t->f[i].name, name))
            return i;
    return -1;
}

/* ---- the CSV reader ---- */

/* The columns a line holds at most: a wider line is refused rather than
 * cut, as a cut line would read other columns than its header names. */
#define MODCSV_MAX_COLS 32

/* Splits the NUL-terminated 'line' in place at each comma into at most
 * MODCSV_MAX_COLS fields, keeping empty ones (strtok() would merge
 * "a,,b" into two fields and shift every column after the gap).
 * Returns the number of fields, or -1 when there are more. */
static int
modcsv_split(char *line, char **field)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n == MODCSV_MAX_COLS)
            return -1;
        field[n++] = p;
        p += strcspn(p, ",");
        if (!*p)
            return n;
        *p = '\0';
    }
}

/* The header, line 1: name,maximum_length,spectral_efficiency first;
 * '*osnr_col' the index of minimum_osnr, or -1 without it. */
static int
modcsv_header(char *line, int *osnr_col, char *err, size_t errlen)
{
    char *field[MODCSV_MAX_COLS];
    int n = modcsv_split(line, field);
    *osnr_col = -1;
    if (n < 3 || strcmp(field[0], "name") || strcmp(field[1], "maximum_length")
        || strcmp(field[2], "spectral_efficiency")) {
        lr_set_err(err, errlen, "line 1: expected the header "
                   "'name,maximum_length,spectral_efficiency,...'%s",
                   n < 0 ? " of at most 32 columns" : "");
        return EINVAL;
    }
    for (int i = 3; i < n; i++)
        if (!strcmp(field[i], "minimum_osnr"))
            *osnr_col = i;
    return 0;
}

/* One format's line 'lineno' into 't' (a table being built). */
static int
modcsv_row(struct lr_modtable *t, char *line, int lineno, int osnr_col,
           char *err, size_t errlen)
{
    char *field[MODCSV_MAX_COLS];
    int n = modcsv_split(line, field);
    double r, s, db = NAN;
    if (n < 3 || lr_parse_double(field[1], 1e-9, 1e9, &r)
        || lr_parse_double(field[2], 1e-9, LR_MOD_SE_MAX, &s)) {
        lr_set_err(err, errlen, "line %d: expected name,maximum_length,"
                   "spectral_efficiency as the header names them: a reach "
                   "in km (up to 1e9) and bits per symbol (up to 64), both "
                   "positive%s", lineno,
                   n < 0 ? ", in at most 32 columns" : "");
        return EINVAL;
    }
    const char *name = field[0];
    /* No CSV quoting is read (no format name needs a comma), and a
     * name is matched exactly: '"QPSK"' or 'QPSK ' would be a format
     * of its own, without the default's threshold, found out only when
     * a lightpath is checked.  Said here, where the file is wrong. */
    size_t nlen = strlen(name);
    if (strchr(name, '"')
        || (nlen && (isspace((unsigned char) name[0])
                     || isspace((unsigned char) name[nlen - 1])))) {
        lr_set_err(err, errlen, "line %d: format '%s': a name in quotes or "
                   "with spaces around it: write it bare, as QPSK (CSV "
                   "quoting is not read)", lineno, name);
        return EINVAL;
    }
    size_t bad = lr_mod_name_text(name);
    if (bad < nlen) {
        /* The name is not quoted: its bytes would reach the log. */
        char fault[64];
        lr_mod_name_fault(name, bad, fault, sizeof fault);
        lr_set_err(err, errlen, "line %d: a format's name must be UTF-8 "
                   "text without control characters; %s: %swrite the name "
                   "in printable characters", lineno, fault,
                   mod_is_c1((const unsigned char *) name + bad) ? ""
                   : "save the file as UTF-8 and ");
        return EINVAL;
    }
    int rc = lr_modtable_add(t, name, r, s);
    if (rc == ENOSPC)
        lr_set_err(err, errlen, "line %d: format '%s': more than %d "
                   "formats, the most a table holds: keep those the "
                   "network uses", lineno, name, LR_MOD_MAX);
    else if (rc == EEXIST)
        lr_set_err(err, errlen, "line %d: format '%s': listed twice",
                   lineno, name);
    else if (rc)
        /* The bound is the name's buffer, in bytes: a name of a few
         * characters beyond ASCII passes it. */
        lr_set_err(err, errlen, "line %d: format '%s': its name is %zu "
                   "bytes: give 1 to %d bytes of UTF-8 (a character "
                   "beyond ASCII takes 2 to 4)", lineno, name, nlen,
                   LR_MOD_NAME_MAX - 1);
    if (rc)
        return rc;
    /* An empty cell, or a line that ends before the column, says no
     * more than a file without the column. */
    if (osnr_col >= 0 && osnr_col < n && *field[osnr_col]) {
        if (lr_parse_double(field[osnr_col], LR_MOD_OSNR_MIN_DB,
                          LR_MOD_OSNR_MAX_DB, &db)) {
            lr_set_err(err, errlen, "line %d: format '%s': column %d, "
                       "minimum_osnr, is '%s': give the OSNR its receiver "
                       "needs in dB, from %g to %g, or leave the cell empty "
                       "for the default's", lineno, name, osnr_col + 1,
                       field[osnr_col], LR_MOD_OSNR_MIN_DB,
                       LR_MOD_OSNR_MAX_DB);
            return EINVAL;
        }
        /* A measured gOSNR is kept and shown cut to hundredths
         * (lr_mod_gosnr_text(): GET's gosnr, a where on it, the
         * mismatch): against a finer threshold, 16.995, a measurement
         * of 16.996 passes while it reads 16.99, below it.  At
         * hundredths the two always agree. */
        char two[32], below[32], above[32];
        snprintf(two, sizeof two, "%.2f", db);
        if (strtod(two, NULL) != db) {
            lr_mod_gosnr_text(db, below, sizeof below);
            snprintf(above, sizeof above, "%.2f",
                     strtod(below, NULL) + 0.01);
            lr_modtext_hundredths_canonical(above);
            lr_set_err(err, errlen, "line %d: format '%s': column %d, "
                       "minimum_osnr, is '%s': give it in hundredths of a "
                       "dB at most (%s or %s), as a measured gOSNR is kept "
                       "and shown", lineno, name, osnr_col + 1,
                       field[osnr_col], below, above);
            return EINVAL;
        }
    } else
        db = mod_default_osnr_db(name);
    /* Within range and of hundredths at most, checked above: taken. */
    return lr_modtable_set_osnr(t, t->n - 1, db);
}

int
lr_modtable_parse_csv(struct lr_modtable *t, const char *text, size_t len,
                      char *err, size_t errlen)
{
    struct lr_modtable next = { 0 };
    int rc = 0, lineno = 0, osnr_col = -1;
    char *copy = malloc(len + 1);
    if (!copy) {
        lr_set_err(err, errlen, "out of memory");
        return ENOMEM;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (strlen(copy) != len) {
        /* strlen() stops at the first NUL: its line is the count of
         * newlines before it, plus one. */
        int at = 1;
        for (const char *p = copy; (p = strchr(p, '\n')); p++)
            at++;
        lr_set_err(err, errlen, "line %d: a NUL byte: the file is not a "
                   "CSV text", at);
        rc = EINVAL;
        goto cleanup;
    }
    /* A UTF-8 byte order mark, which spreadsheets write before a "CSV
     * UTF-8" file's header: not part of the header's first name. */
    char *start = copy;
    if (!strncmp(start, "\xEF\xBB\xBF", 3))
        start += 3;
    for (char *line = start, *next_line; line && !rc; line = next_line) {
        next_line = strchr(line, '\n');
        if (next_line)
            *next_line++ = '\0';
        line[strcspn(line, "\r")] = '\0';
        lineno++;
        if (lineno == 1)
            rc = modcsv_header(line, &osnr_col, err, errlen);
        else if (*line)
            rc = modcsv_row(&next, line, lineno, osnr_col, err, errlen);
    }
    if (!rc && next.n == 0) {
        lr_set_err(err, errlen, "no modulation formats");
        rc = EINVAL;
    }
    if (!rc)
        *t = next;

cleanup:
    free(copy);
    return rc;
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

/* The names of 't''s formats, " A, B)", at say[n] (say[len] holds n
 * bytes of text; a negative n, snprintf()'s error, writes nothing). */
static void
mod_say_names(const struct lr_modtable *t, char *say, size_t len, int n)
{
    for (int k = 0; k < t->n && n > 0 && (size_t) n < len; k++)
        n += snprintf(say + n, len - (size_t) n, "%s%s", k ? ", " : " ",
                      t->f[k].name);
    if (n > 0 && (size_t) n < len)
        snprintf(say + n, len - (size_t) n, ")");
}

/* At one decimal 500.04 km read "500.0 km is beyond 8QAM's reach of
 * 500 km", and a reach of 500.0 given back still refused it. */
void
lr_mod_reach_needed(double length_km, double reach_km, char *a, size_t len)
{
    int d = 1;
    snprintf(a, len, "%.1f", length_km);
    while (d < 17 && !(strtod(a, NULL) > reach_km
                       && strtod(a, NULL) >= length_km * (1 - 1e-9)))
        snprintf(a, len, "%.*f", ++d, length_km);
}

int
lr_mod_fits(const struct lr_modtable *t, const char *name, double length_km,
            char *why, size_t whylen)
{
    char say[LR_MOD_WHY_MAX];
    int i = name && *name ? lr_modtable_find(t, name) : -1;
    size_t bad = name ? lr_mod_name_text(name) : 0;
    int rc = 0;
    if (i < 0 && !(name && *name)) {
        snprintf(say, sizeof say, "its modulation format is not known");
        rc = ENOENT;
    } else if (i < 0 && name[bad]) {
        /* A name no table holds (lr_modtable_add() refuses it), kept by
         * a store written before the CSV reader refused it: said
         * escaped, so that no byte of it reaches a log or a client. */
        char esc[LR_MOD_NAME_ESC_MAX], fault[64];
        lr_mod_name_escape(name, esc, sizeof esc);
        lr_mod_name_fault(name, bad, fault, sizeof fault);
        int n = snprintf(say, sizeof say, "the modulation table has no "
                         "format %s (escaped: a format's name must be "
                         "UTF-8 text without control characters; %s; it "
                         "has", esc, fault);
        mod_say_names(t, say, sizeof say, n);
        rc = ENOENT;
    } else if (i < 0) {
        int n = snprintf(say, sizeof say, "the modulation table has no "
                         "format %s (it has", name);
        mod_say_names(t, say, sizeof say, n);
        rc = ENOENT;
    } else if (lr_mod_choose(&(struct lr_modtable) { .n = 1,
                                                     .f = { t->f[i] } },
                             length_km) < 0) {
        /* lr_mod_choose() over the format alone: the same slack. */
        char km[48], reach[32];
        lr_mod_reach_needed(length_km, t->f[i].reach_km, km, sizeof km);
        lr_modtext_g(t->f[i].reach_km, reach, sizeof reach);
        snprintf(say, sizeof say, "%s km is beyond %s's reach of %s km "
                 "in the modulation table", km, t->f[i].name, reach);
        rc = ERANGE;
    }
    if (rc && why && whylen)
        snprintf(why, whylen, "%s", say);
    return rc;
}

int
lr_mod_sized(const struct lr_modtable *t, const char *name,
             double rate_gbps, int m, int guard, char *why, size_t whylen)
{
    int i = name && *name ? lr_modtable_find(t, name) : -1;
    if (i < 0)
        return ENOENT;
    /* A rate not known (a NULL column reads NaN) or 0 sized nothing
     * that could be compared. */
    if (!(rate_gbps > 0) || !isfinite(rate_gbps))
        return 0;
    const struct lr_modformat *f = &t->f[i];
    int need = lr_mod_slots(f, rate_gbps, guard);
    if (need == m)
        return 0;
    if (why && whylen) {
        char rate[32], se[32], per[32];
        lr_modtext_g(rate_gbps, rate, sizeof rate);
        /* Per slot, the SE said times 12.5 (100 / 8): three digits
         * more hold that product whole, 3.9999999 x 12.5 = 49.99999875,
         * where its double reads back only as 49.999998750000003. */
        int p = lr_modtext_g(f->se, se, sizeof se);
        snprintf(per, sizeof per, "%.*g", p + 3, f->se * LR_SLOT_GHZ);
        snprintf(why, whylen, "it holds %d slots for %s Gb/s where the "
                 "modulation table's %s, at %s bits per symbol (%s Gb/s per "
                 "slot), sizes %d (guard band included)", m, rate, f->name,
                 se, per, need);
    }
    return EDOM;
}

/* 'x' below 't' (both finite, x < t) as two decimal texts into a[len]
 * and b[len] that read so: 't' with the fewest decimals (one at
 * least) that give it back, as the modulation table's CSV wrote it
 * (two at most: modcsv_row()), and 'x' as GET's gosnr shows it, cut to
 * hundredths (lr_mod_gosnr_text()), which is below 't' whenever x is.
 * A fixed count misleads: 16.996 at two decimals rounded reads "17.00
 * below 17.0", and 17.03 against a threshold of 17.04 at one reads
 * "17.03 below 17.0"; until 2026-12-07 16.996 was said "16.996" while
 * GET showed 16.99. */
static void
lr_mod_say_below(double x, double t, char *a, char *b, size_t len)
{
    lr_modtext_threshold(t, b, len);
    lr_mod_gosnr_text(x, a, len);
}

int
lr_mod_received(const struct lr_modtable *t, const char *name,
                double gosnr_db, char *why, size_t whylen)
{
    int i = name && *name ? lr_modtable_find(t, name) : -1;
    if (i < 0)
        return ENOENT;
    const struct lr_modformat *f = &t->f[i];
    if (isnan(gosnr_db) || isnan(f->osnr_db) || gosnr_db >= f->osnr_db)
        return 0;
    if (why && whylen) {
        char a[48], b[48];
        lr_mod_say_below(gosnr_db, f->osnr_db, a, b, sizeof a);
        snprintf(why, whylen, "measured %s dB at provisioning, below %s's "
                 "%s dB threshold in the modulation table", a, f->name, b);
    }
    return ENOLINK;
}

int
lr_mod_judge(const struct lr_modtable *t, const char *name,
             double length_km, double rate_gbps, int m, int guard,
             const double *gosnr_db, char *why, size_t whylen)
{
    char fact[3][LR_MOD_WHY_MAX];
    int bits = 0, n = 0;
    int rc = lr_mod_fits(t, name, length_km, fact[0], sizeof fact[0]);
    if (rc == ENOENT) {
        bits = LR_MOD_NO_FORMAT;
        n = 1;
    } else {
        if (rc) {
            bits |= LR_MOD_REACH;
            n++;
        }
        if (lr_mod_sized(t, name, rate_gbps, m, guard, fact[n],
                         sizeof fact[n])) {
            bits |= LR_MOD_SLOTS;
            n++;
        }
        if (gosnr_db && lr_mod_received(t, name, *gosnr_db, fact[n],
                                        sizeof fact[n])) {
            bits |= LR_MOD_GOSNR;
            n++;
        }
    }
    if (why && whylen) {
        size_t at = 0;
        why[0] = '\0';
        for (int k = 0; k < n && at < whylen; k++) {
            int w = snprintf(why + at, whylen - at, "%s%s%s",
                             k ? "; " : "", k && k == n - 1 ? "and " : "",
                             fact[k]);
            if (w < 0)
                break;
            at += (size_t) w;
        }
    }
    return bits;
}

/* Whether the SE written 'text' sizes 'm' slots for 'rate_gbps' with
 * 'guard' and is one a table takes, '*v' its value. */
static bool
mod_se_sizes(const char *text, double rate_gbps, int m, int guard,
             double *v)
{
    struct lr_modformat f = { .se = strtod(text, NULL) };
    *v = f.se;
    return f.se > 0 && f.se <= LR_MOD_SE_MAX
           && lr_mod_slots(&f, rate_gbps, guard) == m;
}

/* The SE nearest 'x' on the side 'up' (true: at or above x, false: at
 * or below) with the fewest decimals from 'd0' to six that sizes 'm'
 * slots, and, when 'above' is not NULL, is above it, into buf[len],
 * its final zeros of decimals dropped; false when none does.  The
 * nearest at each count of decimals is tried before those on the side
 * asked for (4 rather than 5 for 4.0000000001), and the next one out
 * after the first: the upper end of the range is not in it, and 3.2,
 * its floor at any count of decimals, sizes another count. */
static bool
mod_se_text(double x, bool up, int d0, double rate_gbps, int m, int guard,
            const double *above, char *buf, size_t len)
{
    double p = pow(10, d0), v;
    for (int d = d0; d <= 6; d++, p *= 10) {
        double side = up ? ceil(x * p) / p : floor(x * p) / p;
        double next = up ? side + 1 / p : side - 1 / p;
        for (int k = 0; k < 3; k++) {
            snprintf(buf, len, "%.*f", d, k == 0 ? x : k == 1 ? side : next);
            if (mod_se_sizes(buf, rate_gbps, m, guard, &v)
                && (!above || v > *above)) {
                size_t n = strlen(buf);
                while (strchr(buf, '.') && buf[n - 1] == '0')
                    buf[--n] = '\0';
                if (buf[n - 1] == '.')
                    buf[--n] = '\0';
                return true;
            }
        }
    }
    return false;
}

int
lr_mod_se_range(double rate_gbps, int m, int guard, char *lo, char *hi,
                size_t len)
{
    int data = m - guard;
    double v;
    lo[0] = hi[0] = '\0';
    if (!(rate_gbps > 0) || !isfinite(rate_gbps) || data < 1)
        return EDOM;
    double least = rate_gbps / (LR_SLOT_GHZ * data);
    /* Two decimals at least at either end: "3.47 to 5.19" for
     * [3.466..., 5.2), not "4 to 5" nor "4 to 4" for [4, 4.571...);
     * final zeros dropped, "4" for 4.00. */
    if (!mod_se_text(least, true, 2, rate_gbps, m, guard, NULL, lo, len)) {
        lo[0] = '\0';
        return ERANGE;
    }
    v = strtod(lo, NULL);
    if (data == 1 || rate_gbps / (LR_SLOT_GHZ * (data - 1)) > LR_MOD_SE_MAX)
        return 0;
    if (!mod_se_text(rate_gbps / (LR_SLOT_GHZ * (data - 1)), false, 2,
                     rate_gbps, m, guard, &v, hi, len))
        snprintf(hi, len, "%s", lo);
    return 0;
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
