/*
 * The modulation CSV read from a file (tools/lightrail/lr_modtable_file.h),
 * on its own: until now only the CLI and daemon tests reached it.  Each
 * refusal's whole line is asserted (the file named, what is wrong, what
 * to give), and the table passed in is left as it was.  The CSV's text
 * itself is test_modulation's (lr_modtable_parse_csv()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/lr_modulation.h"
#include "tools/lightrail/lr_modtable_file.h"
#include "tests/lr_test.h"

static char dir[64];

static const char good_csv[] =
    "name,maximum_length,spectral_efficiency,minimum_osnr\n"
    "QPSK,2000,2,12.5\n"
    "16QAM,500,4,18.6\n";

static int
setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/lr-test-modfile-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int
teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) ? 1 : 0;
}

/* Writes 'len' bytes of 'text' to DIR/name; its path in 'path'. */
static void
put_file(const char *name, const char *text, size_t len, char *path,
         size_t plen)
{
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

/* A CSV of exactly 'size' bytes: the good one, padded with blank lines
 * (which the parser skips).  The caller frees it. */
static char *
padded_csv(size_t size)
{
    char *b = malloc(size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    memset(b, '\n', size);
    memcpy(b, good_csv, sizeof good_csv - 1);
    return b;
}

/* lr_modtable_load(path, opt) must fail with 'rc' and the line 'want'
 * (a printf format whose one %s is the path), the table as it was. */
static void
check_refused(const char *path, const char *opt, int rc, const char *want)
{
    struct lr_modtable t, before;
    char err[512] = "", line[512];
    memset(&t, 0, sizeof t);
    lr_modtable_default(&t);
    before = t;
    snprintf(line, sizeof line, want, path);
    int got = lr_modtable_load(path, opt, &t, err, sizeof err);
    CU_ASSERT_EQUAL(got, rc);
    CU_ASSERT_STRING_EQUAL(err, line);
    if (got != rc || strcmp(err, line))
        fprintf(stderr, "%s: %d (want %d): %s\n", path, got, rc, err);
    CU_ASSERT_EQUAL(t.n, before.n);
    CU_ASSERT_EQUAL(memcmp(t.f, before.f, sizeof t.f), 0);
}

/* A path that does not exist, and one with opt NULL (no "leave it
 * out" then). */
static void
test_missing(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/none.csv", dir);
    check_refused(path, "--modulations", ENOENT, "%s: No such file or "
                  "directory: give the path of a readable modulation CSV "
                  "(or leave --modulations out for the default table)");
    check_refused(path, NULL, ENOENT, "%s: No such file or directory: give "
                  "the path of a readable modulation CSV");
}

/* A directory opens; its read fails with EISDIR, the reason given. */
static void
test_directory(void)
{
    check_refused(dir, "modulation-table", EISDIR, "%s: Is a directory: "
                  "give the path of a readable modulation CSV (or leave "
                  "modulation-table out for the default table)");
}

/* A FIFO with no writer: open() for reading blocked for good, so
 * lightraild (its modulation-table) and lightrail-check never started
 * nor said why.  Refused at once, as lr_policy_load() refuses one; the
 * alarm ends the test program if it blocks (before: killed by it).
 * /dev/zero, a character device, is refused the same way. */
static void
test_not_regular(void)
{
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    alarm(5);
    check_refused(fifo, "modulation-table", EINVAL, "%s: not a regular "
                  "file: give the path of a readable modulation CSV (or "
                  "leave modulation-table out for the default table)");
    check_refused("/dev/zero", NULL, EINVAL, "%s: not a regular file: "
                  "give the path of a readable modulation CSV");
    alarm(0);
    unlink(fifo);
}

/* One byte over the limit is refused before it is parsed; a file of
 * exactly the limit loads. */
static void
test_size_limit(void)
{
    char path[128], err[512] = "";
    char *b = padded_csv(LR_MODTABLE_FILE_MAX + 1);
    put_file("big.csv", b, LR_MODTABLE_FILE_MAX + 1, path, sizeof path);
    check_refused(path, "--modulations", EFBIG, "%s: larger than 64 KiB, "
                  "no modulation CSV (a header and at most 16 formats)");
    put_file("limit.csv", b, LR_MODTABLE_FILE_MAX, path, sizeof path);
    struct lr_modtable t;
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(lr_modtable_load(path, "--modulations", &t, err,
                                     sizeof err), 0);
    CU_ASSERT_EQUAL(t.n, 2);
    free(b);
}

/* An empty file is said to be empty, with what to give: not the
 * parser's "line 1: expected the header", which reads as a header
 * written wrong. */
static void
test_empty(void)
{
    char path[128];
    put_file("empty.csv", "", 0, path, sizeof path);
    check_refused(path, "--modulations", EINVAL, "%s: the file is empty: "
                  "give a modulation CSV, the header name,maximum_length,"
                  "spectral_efficiency and a line per format (or leave "
                  "--modulations out for the default table)");
    check_refused(path, NULL, EINVAL, "%s: the file is empty: give a "
                  "modulation CSV, the header name,maximum_length,"
                  "spectral_efficiency and a line per format");
}

/* A good file replaces the table, OSNR thresholds included. */
static void
test_good(void)
{
    char path[128], err[512] = "";
    put_file("good.csv", good_csv, sizeof good_csv - 1, path, sizeof path);
    struct lr_modtable t;
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_load(path, "--modulations", &t, err,
                                           sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(t.n, 2);
    CU_ASSERT_STRING_EQUAL(t.f[0].name, "QPSK");
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].reach_km, 2000, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].se, 2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.f[0].osnr_db, 12.5, 1e-9);
    CU_ASSERT_STRING_EQUAL(t.f[1].name, "16QAM");
    CU_ASSERT_DOUBLE_EQUAL(t.f[1].osnr_db, 18.6, 1e-9);
}

/* A spreadsheet's "CSV UTF-8": a byte order mark before the header,
 * and CRLF line ends. */
static void
test_bom(void)
{
    static const char bom_csv[] =
        "\xEF\xBB\xBFname,maximum_length,spectral_efficiency\r\n"
        "QPSK,2000,2\r\n";
    char path[128], err[512] = "";
    put_file("bom.csv", bom_csv, sizeof bom_csv - 1, path, sizeof path);
    struct lr_modtable t;
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_load(path, NULL, &t, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL_FATAL(t.n, 1);
    CU_ASSERT_STRING_EQUAL(t.f[0].name, "QPSK");
}

/* The text's refusal is the parser's line after the path, its control
 * characters (here a name's escape byte, C0 or C1) made spaces: one
 * line. */
static void
test_bad_text(void)
{
    static const char bad_csv[] =
        "name,maximum_length,spectral_efficiency\n"
        "\"Q\x1b[2J\",2000,2\n";
    char path[128];
    put_file("bad.csv", bad_csv, sizeof bad_csv - 1, path, sizeof path);
    check_refused(path, "--modulations", EINVAL, "%s: line 2: format "
                  "'\"Q [2J\"': a name in quotes or with spaces around it: "
                  "write it bare, as QPSK (CSV quoting is not read)");
    /* A C1 control (U+009B, CSI to a terminal) in the same place: made
     * one space, as a C0 one. */
    static const char c1_csv[] =
        "name,maximum_length,spectral_efficiency\n"
        "\"Q\xc2\x9b" "2J\",2000,2\n";
    put_file("c1.csv", c1_csv, sizeof c1_csv - 1, path, sizeof path);
    check_refused(path, "--modulations", EINVAL, "%s: line 2: format "
                  "'\"Q 2J\"': a name in quotes or with spaces around it: "
                  "write it bare, as QPSK (CSV quoting is not read)");
    put_file("header.csv", "name,reach\nQPSK,2000\n", 21, path, sizeof path);
    check_refused(path, NULL, EINVAL, "%s: line 1: expected the header "
                  "'name,maximum_length,spectral_efficiency,...'");
}

static CU_TestInfo tests[] = {
    { "a missing file: named, what to give", test_missing },
    { "a directory: EISDIR, what to give", test_directory },
    { "a FIFO, a device: refused at once", test_not_regular },
    { "over 64 KiB refused, 64 KiB loads", test_size_limit },
    { "an empty file is said to be empty", test_empty },
    { "a good file replaces the table", test_good },
    { "a byte order mark and CRLF are read", test_bom },
    { "bad text: the parser's line, one line", test_bad_text },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("modtable_file", tests, setup, teardown)
