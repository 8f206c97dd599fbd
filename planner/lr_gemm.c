/* lr_gemm: see lr_gemm.h for the model, the order of operations and why. */
#include <math.h>

#include "planner/lr_clones.h"
#include "planner/lr_gemm.h"

/* One MR x NR block of C: MR x NR accumulators (gcc keeps them in vector
 * registers: the loops have constant bounds), the k loop outermost, the
 * block stored whole (a store of a variable number of columns would make
 * gcc keep the accumulators in memory: the caller stores a partial block
 * through a copy).  Inlined into each clone of lr_gemm. */
#define LR_GEMM_KERNEL(MR, NR)                                               \
static inline __attribute__((always_inline)) void                          \
kernel_##MR##x##NR(int k, const float *restrict a, size_t ars, size_t acs, \
                   const float *restrict b, size_t ldb, float *restrict c, \
                   size_t ldc, bool add)                                   \
{                                                                          \
    float acc[MR][NR];                                                     \
    for (int r = 0; r < MR; r++)                                           \
        for (int j = 0; j < NR; j++)                                       \
            acc[r][j] = 0.0f;                                              \
    for (int p = 0; p < k; p++) {                                          \
        const float *bp = b + (size_t) p * ldb;                            \
        _Pragma("GCC unroll 8")                                            \
        for (int r = 0; r < MR; r++) {                                     \
            float x = a[r * ars + (size_t) p * acs];                       \
            for (int j = 0; j < NR; j++)                                   \
                acc[r][j] = fmaf(x, bp[j], acc[r][j]);                     \
        }                                                                  \
    }                                                                      \
    if (add)                                                               \
        for (int r = 0; r < MR; r++)                                       \
            for (int j = 0; j < NR; j++)                                   \
                c[r * ldc + j] += acc[r][j];                               \
    else                                                                   \
        for (int r = 0; r < MR; r++)                                       \
            for (int j = 0; j < NR; j++)                                   \
                c[r * ldc + j] = acc[r][j];                                \
}

LR_GEMM_KERNEL(8, 32)
LR_GEMM_KERNEL(8, 16)
LR_GEMM_KERNEL(8, 8)
LR_GEMM_KERNEL(8, 1)
LR_GEMM_KERNEL(4, 32)
LR_GEMM_KERNEL(4, 16)
LR_GEMM_KERNEL(4, 8)
LR_GEMM_KERNEL(4, 1)
LR_GEMM_KERNEL(1, 32)
LR_GEMM_KERNEL(1, 16)
LR_GEMM_KERNEL(1, 8)
LR_GEMM_KERNEL(1, 1)

/* A block of MR x NR whose last columns lie past n (B's rows are padded
 * that far): computed whole into 'part', its first nc columns stored. */
#define LR_GEMM_PART(MR, NR)                                                 \
    do {                                                                   \
        float part[MR * NR];                                               \
        kernel_##MR##x##NR(k, ai, ars, acs, b + j, ldb, part, NR, false);  \
        for (int r = 0; r < MR; r++)                                       \
            for (int jj = 0; jj < n - j; jj++) {                           \
                float *cc = ci + (size_t) r * ldc + j + jj;                \
                *cc = add ? *cc + part[r * NR + jj] : part[r * NR + jj];   \
            }                                                              \
        j = n;                                                             \
    } while (0)

/* The columns of MR rows (a and c at their first row), widest blocks
 * first.  When the rows of B are padded, the last 25 to 31 columns in
 * one block of 32 reaching past n (a 16 and a 8 column block would run
 * at half the rate), or the last 1 to 7 in one block of 8. */
#define LR_GEMM_ROWS(MR)                                                     \
    do {                                                                   \
        int j = 0;                                                         \
        for (; j + 32 <= n; j += 32)                                       \
            kernel_##MR##x32(k, ai, ars, acs, b + j, ldb, ci + j, ldc, add); \
        if (n - j > 24 && j + 32 <= nb)                                    \
            LR_GEMM_PART(MR, 32);                                          \
        for (; j + 16 <= n; j += 16)                                       \
            kernel_##MR##x16(k, ai, ars, acs, b + j, ldb, ci + j, ldc, add); \
        for (; j + 8 <= n; j += 8)                                         \
            kernel_##MR##x8(k, ai, ars, acs, b + j, ldb, ci + j, ldc, add); \
        if (j < n && j + 8 <= nb)                                          \
            LR_GEMM_PART(MR, 8);                                           \
        for (; j < n; j++)                                                 \
            kernel_##MR##x1(k, ai, ars, acs, b + j, ldb, ci + j, ldc, add); \
    } while (0)

LR_CLONES void
lr_gemm(int m, int n, int k, const float *a, size_t ars, size_t acs,
        const float *b, size_t ldb, int nb, float *c, size_t ldc, bool add)
{
    int i = 0;
    for (; i + 8 <= m; i += 8) {
        const float *ai = a + (size_t) i * ars;
        float *ci = c + (size_t) i * ldc;
        LR_GEMM_ROWS(8);
    }
    for (; i + 4 <= m; i += 4) {
        const float *ai = a + (size_t) i * ars;
        float *ci = c + (size_t) i * ldc;
        LR_GEMM_ROWS(4);
    }
    for (; i < m; i++) {
        const float *ai = a + (size_t) i * ars;
        float *ci = c + (size_t) i * ldc;
        LR_GEMM_ROWS(1);
    }
}
