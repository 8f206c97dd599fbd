/*
 * lr_clones: LR_CLONES, the attribute that gives a function of
 * liblrsimd (lr_simd.c, lr_gemm.c) three clones on x86-64 with gcc, the
 * best the CPU has chosen at load time (gcc's target_clones):
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2 and FMA) and the baseline (SSE2);
 * one function elsewhere.  lr_simd.h and lr_gemm.h say why the results
 * do not depend on which clone runs.  Private to liblrsimd.
 */
#ifndef LR_CLONES_H
#define LR_CLONES_H 1

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LR_CLONES __attribute__((target_clones("arch=x86-64-v4", \
                                               "arch=x86-64-v3", \
                                               "default")))
#else
#define LR_CLONES
#endif

#endif
