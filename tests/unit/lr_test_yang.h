/*
 * What the YANG tests share: one libyang context for the suite and
 * whole files read into memory (input files under $srcdir: src() of
 * tests/lr_test.h).
 * Include it before tests/lr_test.h and hand suite_setup/suite_teardown
 * to LR_TEST_MAIN_WITH.
 */
#ifndef LR_TEST_YANG_H
#define LR_TEST_YANG_H 1

#include <stdio.h>
#include <stdlib.h>

#include "yang/lr_yang.h"

static struct ly_ctx *ctx;

static int
suite_setup(void)
{
    char err[512];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

static int
suite_teardown(void)
{
    lr_yang_ctx_free(ctx);
    return 0;
}

/* The text of the file at 'path'; the caller frees it. */
static inline char *
slurp(const char *path, size_t *len)
{
    char *buf = NULL, err[512];
    if (lr_yang_read_file(path, &buf, len, err, sizeof err))
        fprintf(stderr, "%s\n", err);
    return buf;
}

#endif
