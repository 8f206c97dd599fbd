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
 * Double precision (the finite-difference test wants doubles), one sample
 * at a time through BLAS (dgemv forward; dger and dgemv backward):
 * tools/bench/lr-bench-ppo measured OpenBLAS 3.4-4.7x faster than plain
 * loops per forward pass (docs/benchmarks.md).  Results are bit-for-bit
 * reproducible only with one BLAS thread: the commands call
 * openblas_set_num_threads(1).
 *
 * Ownership: lr_mlp_new() returns a network the caller frees with
 * lr_mlp_free(); params and grad are arrays of n_params doubles it owns.
 */
#ifndef LR_MLP_H
#define LR_MLP_H 1

#include <stdbool.h>
#include <stddef.h>

#include "planner/lr_rng.h"

#define LR_MLP_MAX_LAYERS 4   /* weight layers: hidden + output */

struct lr_mlp {
    int n_layers;
    int sizes[LR_MLP_MAX_LAYERS + 1];   /* in, hidden..., out */
    int n_params;
    double *params;           /* per layer: W (out x in, row-major), b */
    double *grad;             /* the same layout, accumulated */
    double *h;                /* activations of the last forward pass */
    double *g;                /* scratch for backward */
    int h_off[LR_MLP_MAX_LAYERS + 1];
};

/* 'n_hidden' hidden layers of sizes hidden[]; EINVAL for a size < 1 or
 * too many layers; ENOMEM. */
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

#endif
