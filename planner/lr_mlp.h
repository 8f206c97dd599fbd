/*
 * lr_mlp: a fully connected network with tanh hidden layers and a linear
 * output, its gradient by backpropagation, and Adam.
 *
 * Model.  h_0 = x; h_{i+1} = tanh(W_i h_i + b_i) for the hidden layers;
 * y = W_L h_L + b_L.  Backward, for dL/dy = g_L:
 *   dL/dW_i = g_i h_i^T,  dL/db_i = g_i,  g_{i-1} = (W_i^T g_i) (1 - h_i^2).
 * Initialisation: orthogonal (A. Saxe et al., ICLR 2014) by Gram-Schmidt
 * on a Gaussian matrix, gain sqrt 2 in the hidden layers and 'out_gain'
 * in the last, biases 0 (the CleanRL defaults of ../shared/reference/
 * training.md).  Adam: D. Kingma and J. Ba, ICLR 2015, with bias
 * correction; eps 1e-5 as CleanRL.
 *
 * Batched, for n samples as the rows of X (n x in), H_0 = X:
 *   H_{i+1} = tanh(H_i W_i^T + 1 b_i^T);  Y = H_L W_L^T + 1 b_L^T;
 *   dL/dW_i += G_i^T H_i,  dL/db_i += G_i^T 1,
 *   G_{i-1} = (G_i W_i) .* (1 - H_i .* H_i)   (one dgemm each).
 * The batched gradient is the sum of the per-sample ones, up to rounding
 * (single precision: see Precision).  tanh is computed through one exp:
 * glibc's in double (absolute error under 3e-16; lr_mlp.c says why), the
 * vectorised approximation of lr_simd.h in float (absolute error under
 * 1e-7).
 *
 * Precision.  The weights (params), the gradient accumulator (grad) and
 * Adam's moments are double: the master copy, what the policy file
 * stores and what Adam updates, so a small step is not lost to float
 * rounding of the weight.  One sample at a time (lr_mlp_forward and
 * _backward: dgemv, dger) is all double: the path of a decision
 * (lightraild, lightrail sim) and the reference the tests check by
 * finite differences.  A batch (lr_mlp_forward_batch, _backward_batch:
 * the path of training) computes in single precision: a float copy of
 * the weights (pf: params rounded to float, written by Adam's step as it
 * writes params, lr_mlp_adam_step, and taken again by the next batched
 * pass after anything else changed params: lr_mlp_params_changed), the
 * input, the activations, dL/dY and the matrix products (lr_gemm, with
 * a transposed copy of the float weights for the forward products: pt,
 * taken again after pf changed), tanh by lr_simd_tanhf; each batch's dW
 * is added to the double grad.  Why: single precision runs about twice
 * double's rate, and the products are most of training's time
 * (docs/benchmarks.md, "single precision" and "our own sgemm").  The
 * batched outputs and gradients therefore differ from the per-sample
 * ones by float rounding (about 1e-7 of the largest entry in the tests;
 * tests/unit/test_ppo.c bounds them at 1e-5 and says why), not by the
 * order of additions only.  The batched path's products and loops do
 * not depend on the CPU's vector width nor on OpenBLAS (lr_gemm and
 * lr_simd fix the order of every operation); the per-sample path goes
 * through OpenBLAS (dgemv, dger), whose kernel depends on the CPU: the
 * commands call openblas_set_num_threads(1).
 *
 * Ownership: lr_mlp_new() returns a network the caller frees with
 * lr_mlp_free(); params and grad are arrays of n_params doubles it owns,
 * pf, gf, hb and gb float scratch of the batched path (lr_mlp_reserve).
 */
#ifndef LR_MLP_H
#define LR_MLP_H 1

#include <stdbool.h>
#include <stddef.h>

#include "planner/lr_rng.h"

#define LR_MLP_MAX_LAYERS 4   /* weight layers: hidden + output */
/* The most parameters a network may have (1 GiB of doubles), and the
 * most floats its transposed weights may take (lr_mlp_reserve): every
 * count and offset then fits an int. */
#define LR_MLP_MAX_PARAMS (1L << 27)

struct lr_mlp {
    int n_layers;
    int sizes[LR_MLP_MAX_LAYERS + 1];   /* in, hidden..., out */
    int n_params;
    double *params;           /* per layer: W (out x in, row-major), b */
    double *grad;             /* the same layout, accumulated */
    double *h;                /* activations of the last forward pass */
    double *g;                /* scratch for backward */
    int h_off[LR_MLP_MAX_LAYERS + 1];
    /* The batched path (lr_mlp_reserve): room for 'cap' rows. */
    int cap;
    float *pf;                /* params rounded to float (n_params) */
    float *gf;                /* one batch's dW in float (n_params) */
    float *hb;                /* per layer i >= 0 (0: the input):
                               * cap x sizes[i] at cap * h_off[i] */
    const float *xb;          /* the last batched pass's input rows: hb's
                               * first block (lr_mlp_forward_batch) or
                               * the caller's (lr_mlp_forward_batchf) */
    float *gb;                /* two cap x widest scratch blocks */
    float *pt;                /* per layer W_i^T of pf: in x pad32(out),
                               * at t_off[i], the padding 0 */
    int t_off[LR_MLP_MAX_LAYERS];
    bool pf_ok;               /* pf == params rounded to float */
    bool pt_ok;               /* pt == pf transposed */
};

/* The number of parameters (weights and biases) of the network
 * lr_mlp_new() would build, computed without overflow; -1 for a size < 1,
 * too many layers, or more than LR_MLP_MAX_PARAMS parameters or
 * transposed weights. */
long lr_mlp_param_count(int n_in, const int *hidden, int n_hidden,
                        int n_out);

/* 'n_hidden' hidden layers of sizes hidden[]; EINVAL where
 * lr_mlp_param_count() says -1; ENOMEM. */
int lr_mlp_new(int n_in, const int *hidden, int n_hidden, int n_out,
               struct lr_mlp **out);
void lr_mlp_free(struct lr_mlp *);

/* Orthogonal weights (gain sqrt 2, out_gain for the last layer), zero
 * biases. */
void lr_mlp_init(struct lr_mlp *, struct lr_rng *, double out_gain);

/* y = f(x); keeps the activations for lr_mlp_backward(). */
void lr_mlp_forward(struct lr_mlp *, const double *x, double *y);

/* Adds dL/dparams for the last forward pass, given dL/dy, to grad. */
void lr_mlp_backward(struct lr_mlp *, const double *dy);

void lr_mlp_zero_grad(struct lr_mlp *);

/* Makes room for batches of up to 'n' rows: 0, EINVAL for n < 1, or
 * ENOMEM (the network is unchanged then). */
int lr_mlp_reserve(struct lr_mlp *, int n);

/* Y = f(X) for the n rows of x (n x in, row-major) into y (n x out), in
 * single precision (see Precision); n must be at most the reserved
 * capacity.  Keeps the activations and a float copy of x and of the
 * weights for lr_mlp_backward_batch(). */
void lr_mlp_forward_batch(struct lr_mlp *, int n, const double *x,
                          double *y);
/* The same for an input already in float (observations are): no
 * rounding of x, the same result as lr_mlp_forward_batch() on x widened
 * to double.  x is read where it is, not copied: the caller keeps it
 * unchanged until lr_mlp_backward_batch() of this pass, if any. */
void lr_mlp_forward_batchf(struct lr_mlp *, int n, const float *x,
                           double *y);

/* Adds dL/dparams for the last batched forward pass, given dL/dY (n x
 * out, the same n), to grad: the sum over the rows, computed in float.
 * The weights must not change in between (the float copy is used). */
void lr_mlp_backward_batch(struct lr_mlp *, int n, const double *dy);

/* Says that params were written by other means than lr_mlp_init() or
 * lr_mlp_adam_step() (a load, a test's perturbation): the next batched
 * pass rounds them to float again.  Without it, a batched pass after a
 * batched pass would use the old float copy. */
void lr_mlp_params_changed(struct lr_mlp *);

/* Copies the weights of 'from' into 'to', whose input may be wider: the
 * inputs 'to' has beyond 'from''s (the last ones) get weight 0, so 'to'
 * computes what 'from' computes on its first inputs, whatever the others
 * hold, up to the rounding of the longer sums (Net2Net's
 * function-preserving widening, T. Chen, I. Goodfellow and J. Shlens,
 * ICLR 2016, applied to the input).  False,
 * and 'to' unchanged, when another size differs or 'to' is narrower. */
bool lr_mlp_copy_widened(const struct lr_mlp *from, struct lr_mlp *to);

/* Sets the weights of 'to' to the mean of those of src[0..n-1], weight
 * by weight: a uniform "model soup" (M. Wortsman et al., ICML 2022), for
 * networks fine-tuned from one start, which lie in one basin of the loss
 * (averaging networks trained from different starts is meaningless).
 * 'to' may be one of src.  False, and 'to' unchanged, when n < 1 or a
 * size differs. */
bool lr_mlp_average(struct lr_mlp *to, const struct lr_mlp *const *src,
                    int n);

struct lr_adam {
    int n;
    long t;
    double b1, b2, eps;
    double *m, *v;
};

/* ENOMEM or 0; free with lr_adam_free(). */
int lr_adam_init(struct lr_adam *, int n);
void lr_adam_free(struct lr_adam *);
/* params -= lr * mhat / (sqrt(vhat) + eps). */
void lr_adam_step(struct lr_adam *, double *params, const double *grad,
                  double lr);
/* The same on m's params and grad times 'gscale' (a clipping factor; 1:
 * grad as it is; grad itself is not written), writing the float copy of
 * the batched path in the same loop (it stays in step without a pass
 * over the weights at each batched forward pass). */
void lr_mlp_adam_step(struct lr_mlp *m, struct lr_adam *, double lr,
                      double gscale);

#endif
