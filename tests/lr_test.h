/*
 * lr_test: the main() every CUnit test program shares.
 *
 * CUnit's CU_basic_run_tests() returns success even when assertions fail
 * (../shared/reference/libraries.md), so the exit status is derived from
 * the failure counts.  The last line of every log is
 *     lr-test: N passed, M failed
 * which .ci/run sums into the project's totals.
 *
 * Usage:
 *     static CU_TestInfo tests[] = { { "name", fn }, CU_TEST_INFO_NULL };
 *     LR_TEST_MAIN("suite", tests)
 * or, with functions int setup(void) / int teardown(void) run once around
 * the suite (non-zero = the suite fails):
 *     LR_TEST_MAIN_WITH("suite", tests, setup, teardown)
 */
#ifndef LR_TEST_H
#define LR_TEST_H 1

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <CUnit/Basic.h>

#include "planner/lr_utf8.h"

/* LR_TEST_ASAN is defined when the program is built with
 * AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__, clang with
 * __has_feature): for what a test does differently under it (its
 * allocator's counts, a cheaper setting where the sanitizer's cost is
 * most of a case's time). */
#if defined(__SANITIZE_ADDRESS__)
#define LR_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LR_TEST_ASAN 1
#endif
#endif

/* $srcdir/rel (the test's input files), in one of a few rotating
 * buffers: up to four results may be used at once. */
static inline const char *
src(const char *rel)
{
    static char bufs[4][1024];
    static int next;
    const char *dir = getenv("srcdir");
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir && *dir ? dir : ".", rel);
    return b;
}

/* Whether 's' is valid UTF-8 (lr_utf8_len()'s rule, which JSON's
 * printers need); where it is not said on stderr, with 'what'. */
static inline bool
lr_test_utf8(const char *what, const char *s)
{
    for (const unsigned char *p = (const unsigned char *) s; *p;) {
        size_t n = lr_utf8_len(p);
        if (!n) {
            fprintf(stderr, "%s: no UTF-8 at byte %td of: %s\n", what,
                    (const char *) p - s, s);
            return false;
        }
        p += n;
    }
    return true;
}

/* A self-signed P-256 certificate of CN 'cn' into 'cert' and its key into
 * 'key', made by openssl(1); 0, or -1 after saying on stderr that the
 * test is skipped (no openssl). */
static inline int
lr_test_self_signed(const char *key, const char *cert, const char *cn)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "openssl req -x509 -newkey ec -pkeyopt "
             "ec_paramgen_curve:P-256 -nodes -keyout %s -out %s -days 1 "
             "-subj /CN=%s >/dev/null 2>&1", key, cert, cn);
    if (system(cmd) != 0) {
        fprintf(stderr, "openssl cannot make a certificate: skipped\n");
        return -1;
    }
    return 0;
}

/* The whole of the file at 'path' in a buffer of exactly its size (so
 * that ASan sees a read past its end; one byte for an empty file), its
 * length in '*n'; NULL when it cannot be read.  The caller frees it. */
static inline unsigned char *
lr_test_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long len = -1;
    *n = 0;
    if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0
        && !fseek(f, 0, SEEK_SET)
        && (b = malloc(len ? (size_t) len : 1))
        && fread(b, 1, (size_t) len, f) != (size_t) len) {
        free(b);
        b = NULL;
    }
    if (f)
        fclose(f);
    if (b)
        *n = (size_t) len;
    return b;
}

#define LR_TEST_MAIN(suite_name, test_table)                                 \
    LR_TEST_MAIN_WITH(suite_name, test_table, NULL, NULL)

#define LR_TEST_MAIN_WITH(suite_name, test_table, setup, teardown)           \
    int main(void)                                                           \
    {                                                                        \
        CU_SuiteInfo suites[] = {                                            \
            { suite_name, setup, teardown, NULL, NULL, test_table },         \
            CU_SUITE_INFO_NULL,                                              \
        };                                                                   \
        if (CU_initialize_registry() != CUE_SUCCESS)                         \
            return 99;                                                       \
        if (CU_register_suites(suites) != CUE_SUCCESS)                       \
            return 99;                                                       \
        CU_basic_set_mode(CU_BRM_VERBOSE);                                   \
        CU_basic_run_tests();                                                \
        unsigned run = CU_get_number_of_tests_run();                         \
        unsigned failed = CU_get_number_of_tests_failed();                   \
        unsigned suites_failed = CU_get_number_of_suites_failed();           \
        CU_cleanup_registry();                                               \
        printf("lr-test: %u passed, %u failed\n", run - failed,             \
               failed + suites_failed);                                      \
        return failed || suites_failed ? 1 : 0;                              \
    }

#endif
