/* Distance-adaptive modulation: choice by reach and slots by rate. */
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_jenv.h"
#include "planner/lr_modulation.h"
#include "planner/lr_util.h"
#include "tests/lr_test.h"

static void
test_choose(void)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(t.n, 4);
    /* Most efficient format whose reach covers the length. */
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 100)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 625)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 626)].name, "8QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 2500)].name, "QPSK");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 2501)].name, "BPSK");
    CU_ASSERT_EQUAL(lr_mod_choose(&t, 100001), -1);
    /* A path of 297.8 + 258.1 + 69.1 km is 625 km, within 16QAM's reach,
     * though the sum of the doubles is 625.0000000000001; a length past
     * the reach by the topology's resolution (1 m) is still out. */
    double sum = 297.8;
    sum += 258.1;
    sum += 69.1;
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, sum)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 625.001)].name, "8QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 99999.999)].name, "BPSK");
    CU_ASSERT_EQUAL(lr_mod_choose(&t, 100000.001), -1);
}

static void
test_slots(void)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    const struct lr_modformat *bpsk = &t.f[0], *qpsk = &t.f[1],
                              *qam8 = &t.f[2], *qam16 = &t.f[3];
    /* ceil(R / (SE x 12.5)) + guard, by hand: */
    CU_ASSERT_EQUAL(lr_mod_slots(qam16, 100, 1), 3);   /* 100/50 = 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam16, 25, 1), 2);    /* 0.5 -> 1 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam8, 100, 1), 4);    /* 2.67 -> 3 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam8, 75, 1), 3);     /* exactly 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(qpsk, 26, 1), 3);     /* 1.04 -> 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(bpsk, 100, 1), 9);    /* 8 */
    CU_ASSERT_EQUAL(lr_mod_slots(bpsk, 100, 0), 8);
    CU_ASSERT_DOUBLE_EQUAL(lr_mod_capacity(qpsk, 5, 1), 100, 1e-12);
}

/* A format of tiny SE at a high rate needs more slots than an int holds
 * (SE 2^-20: 100000 / (12.5 x 2^-20) = 8388608000 slots): the count
 * saturates instead of wrapping to a negative block. */
static void
test_slots_saturate(void)
{
    struct lr_modtable t = { 0 };
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&t, "TINY", 1000, 0x1p-20), 0);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&t, "SMALL", 1000, 0x1p-10), 0);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], 100000, 1), INT_MAX);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], 100000, 0), INT_MAX);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], NAN, 1), INT_MAX);
    /* SE 2^-10: 10000 / (12.5 / 1024) = 819200 exactly, within range. */
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[1], 10000, 1), 819201);
}

static void
test_add_rejects(void)
{
    struct lr_modtable t = { 0 };
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 0, 2), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 10, -1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "", 10, 1), EINVAL);
    /* A name that is no text, as the CSV reader refuses it: no table
     * holds one, so that a stored name with such a byte is always a
     * format not known (lr_mod_fits() says it escaped). */
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X\xc2\x9b", 10, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X\xff", 10, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X\x1b", 10, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X\xc2\xa0", 10, 1), 0);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 10, 1), 0);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 20, 1), EEXIST);
    CU_ASSERT_EQUAL(t.n, 2);
}

/* A name escaped for a log or a client: each control character as
 * \\u00NN, each byte that is no UTF-8 as \\xNN, text as it is. */
static void
test_name_escape(void)
{
    const struct {
        const char *name, *want;
        size_t at;
    } cases[] = {
        { "16QAM", "16QAM", 5 },
        { "16QAM\xc2\x9b", "16QAM\\u009B", 5 },
        { "\xc3\xa9\x1b[2J\x7f", "\xc3\xa9\\u001B[2J\\u007F", 2 },
        { "Q\xffP\xc2", "Q\\xFFP\\xC2", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char esc[LR_MOD_NAME_ESC_MAX];
        lr_mod_name_escape(cases[i].name, esc, sizeof esc);
        CU_ASSERT_STRING_EQUAL(esc, cases[i].want);
        CU_ASSERT_EQUAL(lr_mod_name_text(cases[i].name), cases[i].at);
    }
    /* The longest a lightpath keeps, every byte a C0 control: fits. */
    char esc[LR_MOD_NAME_ESC_MAX];
    lr_mod_name_escape("\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
                       "\x01\x01\x01\x01", esc, sizeof esc);
    CU_ASSERT_EQUAL(strlen(esc), 15 * 6);
}

/* The default thresholds are the documented engineering values, and a
 * threshold outside 0..50 dB (or not a number) is refused, NAN is
 * "unknown". */
static void
test_osnr_default_and_set(void)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    static const double want[] = { 9, 12, 16, 20 };
    for (int i = 0; i < 4; i++)
        CU_ASSERT_DOUBLE_EQUAL(t.f[i].osnr_db, want[i], 0);
    CU_ASSERT_EQUAL(lr_modtable_find(&t, "8QAM"), 2);
    CU_ASSERT_EQUAL(lr_modtable_find(&t, "64QAM"), -1);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 2, 18.6), 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].osnr_db, 18.6, 0);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 2, -0.5), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 2, 50.5), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 2, INFINITY), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 4, 10), EINVAL);
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].osnr_db, 18.6, 0);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 2, NAN), 0);
    CU_ASSERT(isnan(t.f[2].osnr_db));
    /* A format added by hand has no threshold until one is set. */
    struct lr_modtable u = { 0 };
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&u, "16QAM", 625, 4), 0);
    CU_ASSERT(isnan(u.f[0].osnr_db));
}

/* lr_parse_double reads a plain decimal, [+-]digits[.digits][e[+-]digits]
 * or [+-].digits, and nothing else of what strtod() takes: hex ("0x1p3"
 * was 8), leading blanks (" 12" was 12), "inf"/"nan", "5." or a comma
 * would each be a number nobody wrote as one, in a CSV cell, a policy
 * file or a command's option.  Before: the hex and the blanks were read. */
static void
test_parse_double(void)
{
    static const struct {
        const char *s;
        double want;    /* NAN: refused */
    } cases[] = {
        { "12", 12 }, { "12.5", 12.5 }, { "-3", -3 }, { "+3", 3 },
        { ".5", 0.5 }, { "-.5", -0.5 }, { "1e3", 1000 }, { "1E3", 1000 },
        { "2.5e-1", 0.25 }, { "1e+09", 1e9 }, { "007", 7 },
        { "0x1p3", NAN }, { "0x10", NAN }, { "0X10", NAN }, { " 12", NAN },
        { "\t12", NAN }, { "\n12", NAN }, { "12 ", NAN }, { "inf", NAN },
        { "-infinity", NAN }, { "nan", NAN }, { "NAN(1)", NAN },
        { "5.", NAN }, { ".", NAN }, { "", NAN }, { "+", NAN },
        { "1e", NAN }, { "1e+", NAN }, { "e3", NAN }, { "1,5", NAN },
        { "--1", NAN }, { "+-1", NAN }, { "1e3.5", NAN }, { "1..2", NAN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -42;
        int rc = lr_parse_double(cases[i].s, -1e9, 1e9, &v);
        if (rc != (isnan(cases[i].want) ? EINVAL : 0))
            fprintf(stderr, "case %zu '%s': %d\n", i, cases[i].s, rc);
        if (isnan(cases[i].want)) {
            CU_ASSERT_EQUAL(rc, EINVAL);
            CU_ASSERT_DOUBLE_EQUAL(v, -42, 0);
        } else {
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_DOUBLE_EQUAL(v, cases[i].want, 0);
        }
    }
    /* The bounds still hold for a well-formed number. */
    double v;
    CU_ASSERT_EQUAL(lr_parse_double("2", 0, 1, &v), EINVAL);
    CU_ASSERT_EQUAL(lr_parse_double("1e999", 0, HUGE_VAL, &v), EINVAL);
}

/* lr_parse_long reads [+-]digits, in base 10, and nothing else of what
 * strtol() takes: leading white space (" 12" was 12), and the sign
 * alone or doubled; '+' is read, as lr_parse_double reads it.  "0x10"
 * and "010" were already 0-and-refused and 10 (base 10, not 0), and
 * stay so.  Before: the three blanks were read. */
static void
test_parse_long(void)
{
    static const struct {
        const char *s;
        int ok;
        long want;
    } cases[] = {
        { "12", 1, 12 }, { "-3", 1, -3 }, { "+3", 1, 3 }, { "007", 1, 7 },
        { "010", 1, 10 }, { "0", 1, 0 }, { "-0", 1, 0 },
        { "9223372036854775807", 1, LONG_MAX },
        { "-9223372036854775808", 1, LONG_MIN },
        { " 12", 0, 0 }, { "\t12", 0, 0 }, { "\n12", 0, 0 }, { "12 ", 0, 0 },
        { "0x10", 0, 0 }, { "0X10", 0, 0 }, { "1e3", 0, 0 }, { "1.0", 0, 0 },
        { "", 0, 0 }, { "+", 0, 0 }, { "-", 0, 0 }, { "--1", 0, 0 },
        { "+-1", 0, 0 }, { "1,5", 0, 0 }, { "9223372036854775808", 0, 0 },
        { "- 1", 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long v = -42;
        int rc = lr_parse_long(cases[i].s, LONG_MIN, LONG_MAX, &v);
        if (rc != (cases[i].ok ? 0 : EINVAL))
            fprintf(stderr, "case %zu '%s': %d\n", i, cases[i].s, rc);
        CU_ASSERT_EQUAL(rc, cases[i].ok ? 0 : EINVAL);
        CU_ASSERT_EQUAL(v, cases[i].ok ? cases[i].want : -42);
    }
    /* The bounds hold, and a refusal writes nothing. */
    long v = -42;
    CU_ASSERT_EQUAL(lr_parse_long("2", 0, 1, &v), EINVAL);
    CU_ASSERT_EQUAL(lr_parse_long("-1", 0, 1, &v), EINVAL);
    CU_ASSERT_EQUAL(v, -42);
    CU_ASSERT_EQUAL(lr_parse_long("1", 0, 1, &v), 0);
    CU_ASSERT_EQUAL(v, 1);
}

static int
parse(struct lr_modtable *t, const char *text, char *err, size_t errlen)
{
    err[0] = '\0';
    return lr_modtable_parse_csv(t, text, strlen(text), err, errlen);
}

/* The CSV's minimum_osnr sets each format's threshold, wherever the
 * column is after the first three; a file without it, or an empty cell,
 * takes the default's of the same name, NAN for a name the default does
 * not have. */
static void
test_csv_thresholds(void)
{
    struct lr_modtable t;
    char err[256];
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency,"
                          "minimum_osnr,inband_xt\r\n"
                          "QPSK,2500,2,12.6,-17\r\n"
                          "\r\n"
                          "16QAM,625,4,22.4,-23\r\n"
                          "64QAM,300,6,28.5,-26\r\n", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(err, "");
    CU_ASSERT_EQUAL_FATAL(t.n, 3);
    CU_ASSERT_STRING_EQUAL(t.f[2].name, "64QAM");
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 12.6, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[1].osnr_db, 22.4, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].osnr_db, 28.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].reach_km, 300, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].se, 6, 0);

    /* The column last, one cell empty, one line ending before it. */
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency,"
                          "note,minimum_osnr\n"
                          "8QAM,1250,3,x,\n"
                          "64QAM,300,6\n"
                          "QPSK,2500,2,,13\n", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 3);
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 16, 0);
    CU_ASSERT(isnan(t.f[1].osnr_db));
    CU_ASSERT_DOUBLE_EQUAL(t.f[2].osnr_db, 13, 0);

    /* Hundredths are taken (a threshold finer is refused:
     * test_csv_refusals). */
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency,"
                          "minimum_osnr\n8QAM,1250,3,17.04\n"
                          "QPSK,2500,2,1.26e1\n", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 2);
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 17.04, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[1].osnr_db, 12.6, 0);

    /* No column: the defaults by name, none for a new name. */
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency\n"
                          "16QAM,625,4\nBPSK,100000,1\n64QAM,300,6,30\n",
                          err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 3);
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 20, 0);
    CU_ASSERT_DOUBLE_EQUAL(t.f[1].osnr_db, 9, 0);
    CU_ASSERT(isnan(t.f[2].osnr_db));
}

/* Bad input: refused naming the line (and the column for a threshold),
 * and the table is left as it was. */
static void
test_csv_refusals(void)
{
    static const struct {
        const char *text;
        int rc;
        const char *err;
    } cases[] = {
        { "name,reach_km,se\nQPSK,2500,2\n", EINVAL,
          "line 1: expected the header "
          "'name,maximum_length,spectral_efficiency,...'" },
        { "", EINVAL, "line 1: expected the header" },
        { "name,maximum_length,spectral_efficiency\n\n", EINVAL,
          "no modulation formats" },
        { "name,maximum_length,spectral_efficiency\nQPSK,,2500,2\n",
          EINVAL, "line 2: expected name,maximum_length,spectral_efficiency "
          "as the header names them" },
        { "name,maximum_length,spectral_efficiency\nQPSK,2500\n", EINVAL,
          "line 2: expected name,maximum_length" },
        { "name,maximum_length,spectral_efficiency\nQPSK,2500,2\n"
          "QPSK,2500,2\n", EEXIST, "line 3: format 'QPSK': listed twice" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,12\n16QAM,625,4,abc\n", EINVAL,
          "line 3: format '16QAM': column 4, minimum_osnr, is 'abc': give "
          "the OSNR its receiver needs in dB, from 0 to 50, or leave the "
          "cell empty for the default's" },
        /* A threshold finer than the hundredths a measured gOSNR is
         * kept and shown in (GET's gosnr) would pass 16.996 dB that GET
         * shows as 16.99, below it; until 2026-12-07 taken. */
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,12.305\n", EINVAL,
          "line 2: format 'QPSK': column 4, minimum_osnr, is '12.305': "
          "give it in hundredths of a dB at most (12.3 or 12.31), as a "
          "measured gOSNR is kept and shown" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,1.2305e1\n", EINVAL,
          "is '1.2305e1': give it in hundredths of a dB at most (12.3 or "
          "12.31)" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,-3\n", EINVAL,
          "line 2: format 'QPSK': column 4, minimum_osnr, is '-3'" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,120\n", EINVAL, "is '120': give the OSNR" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,inf\n", EINVAL, "is 'inf': give the OSNR" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,nan\n", EINVAL, "is 'nan': give the OSNR" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,12 dB\n", EINVAL, "is '12 dB': give the OSNR" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2,0x1p3\n", EINVAL, "is '0x1p3': give the OSNR" },
        { "name,maximum_length,spectral_efficiency,minimum_osnr\n"
          "QPSK,2500,2, 12\n", EINVAL, "is ' 12': give the OSNR" },
        { "name,maximum_length,spectral_efficiency\nQPSK,0x9c4,2\n",
          EINVAL, "line 2: expected name,maximum_length" },
        { "name,maximum_length,spectral_efficiency\nQPSK,2500,\t2\n",
          EINVAL, "line 2: expected name,maximum_length" },
        /* A name goes into the API's JSON (a lightpath's modulation,
         * modulation-mismatch), which must be UTF-8, and into one-line
         * logs: a Latin-1 byte or a control character is refused on its
         * line, not printed as is to every client. */
        { "name,maximum_length,spectral_efficiency\nQPSK,2500,2\n"
          "16QAM\xe9,625,4\n", EINVAL,
          "line 3: a format's name must be UTF-8 text without control "
          "characters; byte 6 is 0xe9: save the file as UTF-8" },
        { "name,maximum_length,spectral_efficiency\n"
          "QP\x1bSK,2500,2\n", EINVAL,
          "line 2: a format's name must be UTF-8 text without control "
          "characters; byte 3 is 0x1b" },
        { "name,maximum_length,spectral_efficiency\n"
          "Q\xed\xa0\x80,2500,2\n", EINVAL, "byte 2 is 0xed" },
        /* C1 controls (U+0080..U+009F) are well-formed UTF-8 but
         * controls all the same: U+009B is a terminal's CSI, U+0085 a
         * line break to some readers of a log. */
        { "name,maximum_length,spectral_efficiency\n"
          "QP\xc2\x85SK,2500,2\n", EINVAL,
          "line 2: a format's name must be UTF-8 text without control "
          "characters; bytes 3-4 are U+0085, a C1 control character: "
          "write the name in printable characters" },
        { "name,maximum_length,spectral_efficiency\n"
          "\xc2\x80QAM,2500,2\n", EINVAL, "bytes 1-2 are U+0080, a C1" },
        { "name,maximum_length,spectral_efficiency\n"
          "Q\xc2\x9b" "2J,2500,2\n", EINVAL, "bytes 2-3 are U+009B, a C1" },
        { "name,maximum_length,spectral_efficiency\n"
          "8QAM\xc2\x9f,2500,2\n", EINVAL, "bytes 5-6 are U+009F, a C1" },
        /* The bound is bytes, as controller.md says: 6 characters of 3
         * bytes each were refused as over "15 characters". */
        { "name,maximum_length,spectral_efficiency\n"
          "\xe5\x85\x89\xe5\x85\x89\xe5\x85\x89\xe5\x85\x89"
          "\xe5\x85\x89\xe5\x85\x89,2500,2\n", EINVAL,
          "its name is 18 bytes: give 1 to 15 bytes of UTF-8 (a character "
          "beyond ASCII takes 2 to 4)" },
        { "name,maximum_length,spectral_efficiency\n,2500,2\n", EINVAL,
          "line 2: format '': its name is 0 bytes: give 1 to 15" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct lr_modtable t;
        char err[512];
        lr_modtable_default(&t);
        CU_ASSERT_EQUAL(parse(&t, cases[i].text, err, sizeof err),
                        cases[i].rc);
        if (!strstr(err, cases[i].err))
            fprintf(stderr, "case %zu: '%s'\n", i, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].err));
        CU_ASSERT_EQUAL(t.n, 4);
        CU_ASSERT_DOUBLE_EQUAL(t.f[3].osnr_db, 20, 0);
    }
    /* A NUL byte is refused on its line, not read as the end. */
    struct lr_modtable t;
    char err[256];
    static const char nul[] = "name,maximum_length,spectral_efficiency\n"
                              "QPSK,2500,2\n16QAM\0,625,4\n";
    CU_ASSERT_EQUAL(lr_modtable_parse_csv(&t, nul, sizeof nul - 1, err,
                                          sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 3: a NUL byte"));
    /* UTF-8 beyond ASCII is text: taken. */
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency\n"
                          "16QAM-\xc3\xa9,625,4\n", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(t.f[0].name, "16QAM-\xc3\xa9");
    /* U+00A1, just past the C1 block, is a printable character. */
    CU_ASSERT_EQUAL(parse(&t, "name,maximum_length,spectral_efficiency\n"
                          "\xc2\xa1QAM,625,4\n", err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(t.f[0].name, "\xc2\xa1QAM");
}

/* What a spreadsheet writes: a UTF-8 byte order mark before the header
 * ("CSV UTF-8"), read as the header it is; and names quoted or padded
 * with spaces, refused on their line, since such a name matches no
 * default format and left the format without a threshold (NAN), found
 * only when a lightpath was checked.  Before: the BOM's header was
 * "expected the header 'name,...'", the quoted and padded names were
 * taken as formats '"QPSK"' and 'QPSK '. */
static void
test_csv_spreadsheet(void)
{
    struct lr_modtable t;
    char err[512];
    CU_ASSERT_EQUAL(parse(&t, "\xEF\xBB\xBFname,maximum_length,"
                          "spectral_efficiency\r\nQPSK,2500,2\r\n", err,
                          sizeof err), 0);
    CU_ASSERT_EQUAL(t.n, 1);
    CU_ASSERT_STRING_EQUAL(t.f[0].name, "QPSK");
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 12, 0);
    static const struct {
        const char *text, *err;
    } cases[] = {
        { "name,maximum_length,spectral_efficiency\n\"QPSK\",2500,2\n",
          "line 2: format '\"QPSK\"': a name in quotes or with spaces "
          "around it" },
        { "name,maximum_length,spectral_efficiency\nQPSK ,2500,2\n",
          "line 2: format 'QPSK ': a name in quotes or with spaces" },
        { "name,maximum_length,spectral_efficiency\n QPSK,2500,2\n",
          "line 2: format ' QPSK': a name in quotes or with spaces" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lr_modtable_default(&t);
        CU_ASSERT_EQUAL(parse(&t, cases[i].text, err, sizeof err), EINVAL);
        if (!strstr(err, cases[i].err))
            fprintf(stderr, "case %zu: '%s'\n", i, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].err));
        CU_ASSERT_EQUAL(t.n, 4);
    }
}

/* The built-in table must be the DeepRMSA file, when it is at hand. */
static void
test_default_matches_reference_file(void)
{
    FILE *f = fopen("../shared/data/modulations_deeprmsa.csv", "r");
    if (!f)
        f = fopen(LR_SHARED_DIR "/data/modulations_deeprmsa.csv", "r");
    if (!f) {
        fprintf(stderr, "skip: ../shared/data/modulations_deeprmsa.csv "
                "absent\n");
        return;
    }
    struct lr_modtable t;
    lr_modtable_default(&t);
    char line[256];
    int rows = 0;
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));  /* header */
    while (fgets(line, sizeof line, f)) {
        char name[32];
        double reach, se;
        if (sscanf(line, "%31[^,],%lf,%lf", name, &reach, &se) != 3)
            continue;
        int found = 0;
        for (int i = 0; i < t.n; i++)
            if (!strcmp(t.f[i].name, name)) {
                found = 1;
                CU_ASSERT_DOUBLE_EQUAL(t.f[i].reach_km, reach, 0);
                CU_ASSERT_DOUBLE_EQUAL(t.f[i].se, se, 0);
            }
        CU_ASSERT(found);
        rows++;
    }
    fclose(f);
    CU_ASSERT_EQUAL(rows, t.n);
}

/* The DeepRMSA file read as a table: its reaches and efficiencies are
 * the default's, its minimum_osnr column its own (not the default's
 * thresholds; lr_modulation.h says why they differ). */
static void
test_reference_file_thresholds(void)
{
    size_t n;
    char *text = (char *) lr_test_read_file(
        "../shared/data/modulations_deeprmsa.csv",
                                   &n);
    if (!text)
        text = (char *) lr_test_read_file(LR_SHARED_DIR
                                 "/data/modulations_deeprmsa.csv", &n);
    if (!text) {
        fprintf(stderr, "skip: ../shared/data/modulations_deeprmsa.csv "
                "absent\n");
        return;
    }
    struct lr_modtable t, d;
    char err[256];
    lr_modtable_default(&d);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_parse_csv(&t, text, n, err,
                                                sizeof err), 0);
    free(text);
    static const double want[] = { 12.6, 12.6, 18.6, 22.4 };
    CU_ASSERT_EQUAL_FATAL(t.n, 4);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(t.f[i].name, d.f[i].name);
        CU_ASSERT_DOUBLE_EQUAL(t.f[i].reach_km, d.f[i].reach_km, 0);
        CU_ASSERT_DOUBLE_EQUAL(t.f[i].osnr_db, want[i], 0);
    }
}

/* A stored lightpath's format judged against a table: found by name
 * whatever its index there, refused by name when the table lacks it,
 * and by the reach there when its path is longer (with lr_mod_choose()'s
 * slack for a sum of link lengths). */
static void
test_fits(void)
{
    struct lr_modtable d, t = { 0 };
    char why[256] = "";
    lr_modtable_default(&d);
    CU_ASSERT_EQUAL(lr_mod_fits(&d, "8QAM", 1250, why, sizeof why), 0);
    CU_ASSERT_EQUAL(lr_mod_fits(&d, "16QAM", 297.8 + 258.1 + 69.1, NULL, 0),
                    0);
    /* 8QAM first in another table, shorter there. */
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "8QAM", 500, 3), 0);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "QPSK", 2000, 2), 0);
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "8QAM", 500, why, sizeof why), 0);
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "8QAM", 812.5, why, sizeof why), ERANGE);
    CU_ASSERT_STRING_EQUAL(why, "812.5 km is beyond 8QAM's reach of 500 km "
                           "in the modulation table");
    /* 40 m past the reach (lengths are to the metre): said with the
     * decimals that read past it, not "500.0 km is beyond 8QAM's reach
     * of 500 km"; and a table given the length said as its reach fits
     * the lightpath (500.0 would not). */
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "8QAM", 500.04, why, sizeof why),
                    ERANGE);
    CU_ASSERT_STRING_EQUAL(why, "500.04 km is beyond 8QAM's reach of 500 km "
                           "in the modulation table");
    t.f[0].reach_km = strtod(why, NULL);
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "8QAM", 500.04, NULL, 0), 0);
    /* The reach said as the table has it: "%g" said 999.9996 "1000",
     * beside a length of "1000.0" beyond it, until 2026-12-07. */
    t.f[0].reach_km = 999.9996;
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "8QAM", 999.9997, why, sizeof why),
                    ERANGE);
    CU_ASSERT_STRING_EQUAL(why, "1000.0 km is beyond 8QAM's reach of "
                           "999.9996 km in the modulation table");
    t.f[0].reach_km = 500;
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "16QAM", 10, why, sizeof why), ENOENT);
    CU_ASSERT_STRING_EQUAL(why, "the modulation table has no format 16QAM "
                           "(it has 8QAM, QPSK)");
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "", 10, why, sizeof why), ENOENT);
    CU_ASSERT_STRING_EQUAL(why, "its modulation format is not known");
    /* Names are exact: no case folding. */
    CU_ASSERT_EQUAL(lr_mod_fits(&t, "qpsk", 10, NULL, 0), ENOENT);
}

/* A stored lightpath's slot count judged against a table's spectral
 * efficiency for its format: lr_mod_slots() of the format there, the
 * planner's own sizing, or EDOM naming both counts; a rate not known
 * sizes nothing. */
static void
test_sized(void)
{
    struct lr_modtable d, t = { 0 };
    char why[256] = "";
    lr_modtable_default(&d);
    /* As the controller plans: 16QAM (4 b/s/Hz, 50 Gb/s per slot). */
    CU_ASSERT_EQUAL(lr_mod_sized(&d, "16QAM", 400, 9, 1, why, sizeof why), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&d, "QPSK", 100, 5, 1, why, sizeof why), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&d, "8QAM", 200, 7, 1, NULL, 0), 0);
    /* 16QAM halved: 400 Gb/s at 25 Gb/s per slot is 16 + 1. */
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "16QAM", 625, 2), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "16QAM", 400, 9, 1, why, sizeof why),
                    EDOM);
    CU_ASSERT_STRING_EQUAL(why, "it holds 9 slots for 400 Gb/s where the "
                           "modulation table's 16QAM, at 2 bits per symbol "
                           "(25 Gb/s per slot), sizes 17 (guard band "
                           "included)");
    /* Fewer slots too: an efficiency raised is a change as well. */
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "QPSK", 2500, 4), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "QPSK", 100, 5, 1, why, sizeof why),
                    EDOM);
    CU_ASSERT_STRING_EQUAL(why, "it holds 5 slots for 100 Gb/s where the "
                           "modulation table's QPSK, at 4 bits per symbol "
                           "(50 Gb/s per slot), sizes 3 (guard band "
                           "included)");
    /* Each number said reads back as the one judged: "%g" said an SE
     * of 3.9999999 "4", which sizes the 9 slots held, beside "sizes
     * 10", and a rate of 1234567.8 Gb/s "1.23457e+06", until
     * 2026-12-07. */
    t.f[0].se = 3.9999999;
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "16QAM", 400, 9, 1, why, sizeof why),
                    EDOM);
    CU_ASSERT_STRING_EQUAL(why, "it holds 9 slots for 400 Gb/s where the "
                           "modulation table's 16QAM, at 3.9999999 bits per "
                           "symbol (49.99999875 Gb/s per slot), sizes 10 "
                           "(guard band included)");
    const char *at = strstr(why, " at ");
    struct lr_modformat said = { .se = at ? strtod(at + 4, NULL) : 0 };
    CU_ASSERT_EQUAL(lr_mod_slots(&said, 400, 1), 10);
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "16QAM", 1234567.8, 9, 1, why,
                                 sizeof why), EDOM);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "for 1234567.8 Gb/s "));
    t.f[0].se = 2;
    /* The guard counts: 4 + 1 with one guard slot, 4 + 2 with two. */
    CU_ASSERT_EQUAL(lr_mod_sized(&d, "QPSK", 100, 6, 2, NULL, 0), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&d, "QPSK", 100, 6, 1, NULL, 0), EDOM);
    /* No rate known (0, NaN): nothing sized, nothing to compare. */
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "16QAM", 0, 9, 1, NULL, 0), 0);
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "16QAM", NAN, 9, 1, NULL, 0), 0);
    /* No such format: lr_mod_fits() says so. */
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "8QAM", 200, 7, 1, NULL, 0), ENOENT);
    CU_ASSERT_EQUAL(lr_mod_sized(&t, "", 200, 7, 1, NULL, 0), ENOENT);
}

/* A measurement kept from provisioning judged against the threshold of
 * the table in use: below it is ENOLINK with both numbers; at it, or
 * with either number not known, nothing is judged. */
static void
test_received(void)
{
    struct lr_modtable t;
    char why[256] = "";
    lr_modtable_default(&t);
    int q16 = lr_modtable_find(&t, "16QAM"), q8 = lr_modtable_find(&t, "8QAM");
    CU_ASSERT_FATAL(q16 >= 0 && q8 >= 0);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, q16, 15), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "16QAM", 14.2, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured 14.2 dB at provisioning, below "
                           "16QAM's 15.0 dB threshold in the modulation "
                           "table");
    /* One decimal would say "17.0 below 17.0". */
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, q8, 17), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "8QAM", 16.96, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured 16.96 dB at provisioning, below "
                           "8QAM's 17.0 dB threshold in the modulation "
                           "table");
    /* Two decimals that round up to the threshold must not say "17.00
     * below 17.0" either: the measurement is said as GET's gosnr shows
     * it, cut to hundredths, never rounded up (lr_mod_gosnr_text()),
     * which a threshold of at most two decimals (the CSV's) it is below
     * is above; until 2026-12-07 "16.996", next to GET's "16.99". */
    CU_ASSERT_EQUAL(lr_mod_received(&t, "8QAM", 16.996, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured 16.99 dB at provisioning, below "
                           "8QAM's 17.0 dB threshold in the modulation "
                           "table");
    /* A threshold of the table's CSV with two decimals is said with
     * them: "17.03 below 17.0" would read as above it. */
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, q8, 17.04), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "8QAM", 17.03, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured 17.03 dB at provisioning, below "
                           "8QAM's 17.04 dB threshold in the modulation "
                           "table");
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, q8, 17), 0);
    /* A threshold of "-0" (a CSV may give it: it is not below 0) is
     * said "0.0", not "-0.0", and so is a measurement of -0. */
    struct lr_modtable z;
    const char *csv = "name,maximum_length,spectral_efficiency,"
                      "minimum_osnr\nBPSK,100000,1,-0\n";
    CU_ASSERT_EQUAL_FATAL(lr_modtable_parse_csv(&z, csv, strlen(csv), why,
                                                sizeof why), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&z, "BPSK", -0.5, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured -0.5 dB at provisioning, below "
                           "BPSK's 0.0 dB threshold in the modulation "
                           "table");
    CU_ASSERT_EQUAL(lr_mod_received(&t, "8QAM", -0.0, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_STRING_EQUAL(why, "measured 0.0 dB at provisioning, below "
                           "8QAM's 17.0 dB threshold in the modulation "
                           "table");
    /* A margin of 0 is received, as the provisioning's check has it. */
    CU_ASSERT_EQUAL(lr_mod_received(&t, "16QAM", 15, NULL, 0), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "16QAM", 22.5, NULL, 0), 0);
    /* Not measured, or no threshold: nothing to judge. */
    CU_ASSERT_EQUAL(lr_mod_received(&t, "16QAM", NAN, NULL, 0), 0);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, q16, NAN), 0);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "16QAM", 3, NULL, 0), 0);
    /* No such format: lr_mod_fits() says so. */
    CU_ASSERT_EQUAL(lr_mod_received(&t, "64QAM", 3, NULL, 0), ENOENT);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "", 3, NULL, 0), ENOENT);
}

/* lr_mod_gosnr_text(): cut to hundredths, never rounded up, a final 0
 * dropped; and a measurement whose hundredths do not fit the 32 bytes
 * the header promises suffice (a monitor's -1e40 dB) is said as the
 * number it is, not as the first 31 digits of it (-1e30, until
 * 2026-12-07); so is lr_mod_received()'s -1e50 in its 48. */
static void
test_gosnr_text(void)
{
    static const struct {
        double db;
        const char *text;
    } cases[] = {
        { 16.996, "16.99" }, { 17, "17.0" }, { 16.29, "16.29" },
        { 16.9, "16.9" }, { -0.004, "-0.01" }, { -0.0, "0.0" },
        { 0.004, "0.0" }, { 0.007, "0.0" },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lr_mod_gosnr_text(cases[i].db, buf, sizeof buf);
        CU_ASSERT_STRING_EQUAL(buf, cases[i].text);
    }
    const double huge[] = { -1e40, 1e40, -DBL_MAX, DBL_MAX, 1e29 };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        lr_mod_gosnr_text(huge[i], buf, sizeof buf);
        CU_ASSERT_DOUBLE_EQUAL(strtod(buf, NULL), huge[i], 0);
    }
    struct lr_modtable t;
    char why[256];
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(lr_mod_received(&t, "8QAM", -1e50, why, sizeof why),
                    ENOLINK);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "measured -1e+50 dB at "
                                  "provisioning"));
}

/* The spectral efficiencies that size a stored lightpath's slots
 * (the way back when its format's SE changed in the table):
 * [rate / (12.5 (m - guard)), rate / (12.5 (m - guard - 1))), each end
 * with two decimals or more, one that sizes the slots. */
static void
test_se_range(void)
{
    static const struct {
        double rate;
        int m, guard, rc;
        const char *lo, *hi;
    } cases[] = {
        { 400, 9, 1, 0, "4", "4.57" },        /* planned at 4: the least */
        { 400, 12, 1, 0, "2.91", "3.19" },    /* 3.2 itself sizes 11 */
        { 130, 4, 1, 0, "3.47", "5.19" },     /* not "4": 3.47 sizes 4 */
        { 150, 5, 1, 0, "3", "3.99" },
        { 100, 9, 1, 0, "1", "1.14" },
        { 400, 3, 1, 0, "16", "31.99" },
        /* Up to what a table takes (64): no upper end to name. */
        { 1000, 3, 1, 0, "40", "" },
        { 100, 2, 1, 0, "8", "" },            /* one slot of data */
        { 1e6, 2, 1, ERANGE, "", "" },        /* 80000 bits per symbol */
        { 400, 1, 1, EDOM, "", "" },          /* the guard band alone */
        { 0, 9, 1, EDOM, "", "" },
        { NAN, 9, 1, EDOM, "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char lo[16] = "x", hi[16] = "x";
        int rc = lr_mod_se_range(cases[i].rate, cases[i].m, cases[i].guard,
                                 lo, hi, sizeof lo);
        if (rc != cases[i].rc || strcmp(lo, cases[i].lo)
            || strcmp(hi, cases[i].hi))
            fprintf(stderr, "case %zu: %d '%s' '%s'\n", i, rc, lo, hi);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        CU_ASSERT_STRING_EQUAL(lo, cases[i].lo);
        CU_ASSERT_STRING_EQUAL(hi, cases[i].hi);
        /* Each end named sizes the slots, as the table would read it. */
        for (int k = 0; k < 2; k++) {
            const char *s = k ? hi : lo;
            if (!*s)
                continue;
            struct lr_modformat f = { .se = strtod(s, NULL) };
            CU_ASSERT_EQUAL(lr_mod_slots(&f, cases[i].rate, cases[i].guard),
                            cases[i].m);
        }
    }
}

/* lr_mod_se_range() is ERANGE only for a slot count no planner made:
 * lightraild plans 100, 200 or 400 Gb/s (lr_jenv_tier_gbps[], the
 * controller's rates) on links of at most 1024 slots
 * (yang/lightrail-topology.yang), where the range is 400 / 12.5 = 32
 * at most and 100 / (12.5 x 1023 x 1022) = 7.6e-6 wide at least, so an
 * SE of six decimals up to 64 always names each end. */
static void
test_se_range_planned(void)
{
    int bad = 0;
    for (int r = 0; r < LR_JENV_N_TIERS; r++)
        for (int m = 2; m <= 1024; m++) {
            char lo[16], hi[16];
            double rate = lr_jenv_tier_gbps[r];
            int rc = lr_mod_se_range(rate, m, 1, lo, hi, sizeof lo);
            struct lr_modformat f = { .se = strtod(lo, NULL) };
            if (rc || lr_mod_slots(&f, rate, 1) != m) {
                if (!bad++)
                    fprintf(stderr, "%g Gb/s in %d: %d '%s'\n", rate, m, rc,
                            lo);
            }
        }
    CU_ASSERT_EQUAL(bad, 0);
}

/* A threshold of -0 (a CSV's "-0" or "-0.0", a caller's -0.0: not
 * below 0, so taken) enters a table as +0, so that no printer of a
 * table's thresholds has to mend it: lightraild's log of the table
 * printed "%.1f" of it, "-0.0 dB".  Before 2026-12-07 each was kept
 * with its sign. */
static void
test_osnr_minus_zero(void)
{
    struct lr_modtable t;
    char err[256], one[16];
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(lr_modtable_set_osnr(&t, 1, -0.0), 0);
    CU_ASSERT(t.f[1].osnr_db == 0 && !signbit(t.f[1].osnr_db));
    snprintf(one, sizeof one, "%.1f", t.f[1].osnr_db);
    CU_ASSERT_STRING_EQUAL(one, "0.0");
    const char *csv = "name,maximum_length,spectral_efficiency,"
                      "minimum_osnr\nBPSK,100000,1,-0\nQPSK,2500,2,-0.0\n"
                      "8QAM,1250,3,-0.00\n16QAM,625,4,+0\n";
    CU_ASSERT_EQUAL_FATAL(lr_modtable_parse_csv(&t, csv, strlen(csv), err,
                                                sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 4);
    for (int i = 0; i < t.n; i++) {
        snprintf(one, sizeof one, "%.1f", t.f[i].osnr_db);
        if (strcmp(one, "0.0") || signbit(t.f[i].osnr_db))
            fprintf(stderr, "%s: %s\n", t.f[i].name, one);
        CU_ASSERT(t.f[i].osnr_db == 0 && !signbit(t.f[i].osnr_db));
        CU_ASSERT_STRING_EQUAL(one, "0.0");
    }
}

static CU_TestInfo tests[] = {
    { "a gOSNR said cut to hundredths, or whole when they do not fit",
      test_gosnr_text },
    { "the SEs that size a lightpath's slots", test_se_range },
    { "the SEs of every slot count the planner makes",
      test_se_range_planned },
    { "a stored format judged by name and reach", test_fits },
    { "a measured gOSNR judged by the table's threshold", test_received },
    { "a stored slot count judged by the table's SE", test_sized },
    { "most efficient format within reach", test_choose },
    { "slots = ceil(rate / (SE x 12.5)) + guard", test_slots },
    { "slot counts beyond INT_MAX saturate", test_slots_saturate },
    { "bad formats are refused", test_add_rejects },
    { "a name that is no text escaped", test_name_escape },
    { "numbers: plain decimals only", test_parse_double },
    { "whole numbers: [+-]digits only", test_parse_long },
    { "default table equals modulations_deeprmsa.csv",
      test_default_matches_reference_file },
    { "OSNR thresholds: defaults, set, refused", test_osnr_default_and_set },
    { "OSNR thresholds: -0 enters as +0", test_osnr_minus_zero },
    { "CSV: minimum_osnr sets the thresholds", test_csv_thresholds },
    { "CSV: bad input refused by line and column", test_csv_refusals },
    { "CSV: a spreadsheet's BOM read, quoted or padded names refused",
      test_csv_spreadsheet },
    { "CSV: the DeepRMSA file's thresholds",
      test_reference_file_thresholds },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("modulation", tests)
