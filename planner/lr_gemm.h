/*
 * lr_gemm: the single-precision matrix products of training (lr_mlp's
 * batched passes), C = A B or C += A B, with every element of C computed
 * in one fixed order:
 *
 *     acc = 0;  for p = 0 .. k-1:  acc = fmaf(A(i,p), B(p,j), acc);
 *     C(i,j) = acc            (add false)
 *     C(i,j) = C(i,j) + acc   (add true)
 *
 * fmaf is correctly rounded (IEEE 754 fusedMultiplyAdd), so the result is
 * the same bits in each of the three clones (x86-64-v4: AVX-512 vfmadd,
 * v3: AVX2 vfmadd, baseline: glibc's fmaf, slow but exact) and on any
 * CPU: training's products no longer depend on which kernel OpenBLAS
 * picks.
 *
 * Blocking (the GotoBLAS/BLIS register kernel, K. Goto and R. van de
 * Geijn, ACM TOMS 34(3), 2008, without the packing): blocks of 8 rows of
 * C (then 4, then 1) by 32 columns (then 16, 8, 1) held in vector
 * registers for the whole k loop; per p one row of B is loaded and each
 * row's A(i,p) broadcast.  8 x 32 gives 16 independent AVX-512 chains
 * of fused multiply-adds, enough to hide their latency; the narrower
 * blocks run at about half that rate.  B's rows and C's rows are read
 * contiguously; A has two strides, so A or its transpose is read in
 * place.  No packing: at these sizes (k <= a few hundred, B a few tens
 * of KB, in L1/L2) packing is what costs.
 *
 * Why not OpenBLAS's sgemm: on the shapes of training (a minibatch of 128
 * or 16 rows by 64-wide layers) this file runs about twice as fast on
 * this machine, 1.3 to 4 times by shape (about 200 GFLOP/s on the
 * 64-wide ones; docs/benchmarks.md, "Training: our own sgemm"):
 * Debian 12's OpenBLAS 0.3.21 does not know this CPU (an AMD Zen 4) and
 * runs its Haswell kernels, packing both operands on every call.
 * OpenBLAS keeps the double products (the decision path, lr_mlp_forward).
 *
 * Cost: 2 m n k flops; no allocation; m, n, k >= 0 (0 writes nothing or,
 * for k = 0 and add false, zeros).
 */
#ifndef LR_GEMM_H
#define LR_GEMM_H 1

#include <stdbool.h>
#include <stddef.h>

/* C (m x n, row stride ldc) = [C +] A B where A(i,p) = a[i ars + p acs]
 * (a row-major m x k matrix: ars = k, acs = 1; its transpose stored k x m:
 * ars = 1, acs = m) and B(p,j) = b[p ldb + j].  The rows of B may be read
 * up to column nb - 1 (nb >= n; columns n .. nb-1 are computed and
 * dropped: pad B's rows to a multiple of 32 to spare the narrower,
 * slower blocks).  Neither a nor b may overlap c. */
void lr_gemm(int m, int n, int k, const float *a, size_t ars, size_t acs,
             const float *b, size_t ldb, int nb, float *c, size_t ldc,
             bool add);

#endif
