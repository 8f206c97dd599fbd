/*
 * lr_fuzz: what the libFuzzer targets of tests/fuzz/ share.
 *
 * A target defines LR_FUZZ_NAME (its name, which starts every line it
 * prints) and, when it needs libyang, LR_FUZZ_YANG before including this
 * header; it then gets:
 *   check(cond, what)   aborts with "NAME: what" when cond is false, so
 *                       that libFuzzer keeps the input that broke a
 *                       promise;
 *   ctx                 (LR_FUZZ_YANG) a libyang context with every
 *                       Lightrail module, built once in
 *                       LLVMFuzzerInitialize (building one compiles every
 *                       module, which would dominate each run).
 */
#ifndef LR_FUZZ_H
#define LR_FUZZ_H 1

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LR_FUZZ_NAME
#error "define LR_FUZZ_NAME before including tests/fuzz/lr_fuzz.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void
check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, LR_FUZZ_NAME ": %s\n", what);
        abort();
    }
}

#ifdef LR_FUZZ_YANG
#include "yang/lr_yang.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct ly_ctx *ctx;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[512];
    (void) argc;
    (void) argv;
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, LR_FUZZ_NAME ": %s\n", err);
        abort();
    }
    return 0;
}
#endif

#endif
