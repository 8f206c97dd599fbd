/*
 * What the YANG tests share: one libyang context for the suite, input
 * files found under $srcdir, and whole files read into memory.
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

/* $srcdir/rel, in one of a few rotating buffers. */
static const char *
src(const char *rel)
{
    static char bufs[4][1024];
    static int next;
    const char *dir = getenv("srcdir");
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", dir && *dir ? dir : ".", rel);
    return b;
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
