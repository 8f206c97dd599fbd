/* lr_mlp: see lr_mlp.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "planner/lr_gemm.h"
#include "planner/lr_mlp.h"
#include "planner/lr_simd.h"

/* tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2 |x|) in (0, 1]:
 * one exp instead of glibc's tanh (which goes through expm1), 2.4 times
 * faster here, and tanh was the largest single cost of training
 * (docs/benchmarks.md).  Absolute error under 3e-16 against glibc's tanh
 * (4096 points in [-3, 3]); the relative error grows only where |tanh|
 * is small (8e-15 at 1e-3), and what the next layer sees is the absolute
 * one.  The one-sample path (decisions, the reference) uses it; the
 * batched path of training computes in float with lr_simd_tanhf(). */
static inline double
act_tanh(double x)
{
    double e = exp(-2 * fabs(x));
    return copysign((1 - e) / (1 + e), x);
}

/* Columns of a layer's transposed float weights: out rounded up to 32,
 * so that lr_gemm's last block of 32 reads the zero padding. */
static long
pad32(long out)
{
    return (out + 31) / 32 * 32;
}

long
lr_mlp_param_count(int n_in, const int *hidden, int n_hidden, int n_out)
{
    if (n_in < 1 || n_out < 1 || n_hidden < 0
        || n_hidden + 1 > LR_MLP_MAX_LAYERS)
        return -1;
    long sizes[LR_MLP_MAX_LAYERS + 1];
    sizes[0] = n_in;
    for (int i = 0; i < n_hidden; i++) {
        if (hidden[i] < 1)
            return -1;
        sizes[i + 1] = hidden[i];
    }
    sizes[n_hidden + 1] = n_out;
    /* Each size is below 2^31 and each sum stays under 2^27 before the
     * next term is added, so no product or sum here exceeds 2^63. */
    long n = 0, n_pt = 0;
    for (int i = 0; i <= n_hidden; i++) {
        n += sizes[i + 1] * (sizes[i] + 1);
        n_pt += sizes[i] * pad32(sizes[i + 1]);
        if (n > LR_MLP_MAX_PARAMS || n_pt > LR_MLP_MAX_PARAMS)
            return -1;
    }
    return n;
}

int
lr_mlp_new(int n_in, const int *hidden, int n_hidden, int n_out,
           struct lr_mlp **out)
{
    *out = NULL;
    long n_params = lr_mlp_param_count(n_in, hidden, n_hidden, n_out);
    if (n_params < 0)
        return EINVAL;
    struct lr_mlp *m = calloc(1, sizeof *m);
    if (!m)
        return ENOMEM;
    m->n_layers = n_hidden + 1;
    m->sizes[0] = n_in;
    for (int i = 0; i < n_hidden; i++)
        m->sizes[i + 1] = hidden[i];
    m->sizes[m->n_layers] = n_out;
    int acts = 0, widest = 0;
    m->n_params = (int) n_params;
    for (int i = 0; i <= m->n_layers; i++) {
        m->h_off[i] = acts;
        acts += m->sizes[i];
        if (m->sizes[i] > widest)
            widest = m->sizes[i];
    }
    m->params = calloc((size_t) m->n_params, sizeof *m->params);
    m->grad = calloc((size_t) m->n_params, sizeof *m->grad);
    m->h = calloc((size_t) acts, sizeof *m->h);
    m->g = calloc((size_t) 2 * widest, sizeof *m->g);
    if (!m->params || !m->grad || !m->h || !m->g) {
        lr_mlp_free(m);
        return ENOMEM;
    }
    *out = m;
    return 0;
}

void
lr_mlp_free(struct lr_mlp *m)
{
    if (!m)
        return;
    free(m->params);
    free(m->grad);
    free(m->h);
    free(m->g);
    free(m->hb);
    free(m->gb);
    free(m->pf);
    free(m->gf);
    free(m->pt);
    free(m);
}

static double
gauss(struct lr_rng *r)
{
    double u = lr_rng_uniform(r), v = lr_rng_uniform(r);
    return sqrt(-2 * log1p(-u)) * cos(2 * M_PI * v);
}

/* Orthonormal rows (rows <= cols) or columns (rows > cols) of the
 * rows x cols matrix w, times 'gain'. */
static void
orthogonal(double *w, int rows, int cols, struct lr_rng *r, double gain)
{
    int n = rows <= cols ? rows : cols;     /* vectors */
    int len = rows <= cols ? cols : rows;   /* their length */
    int stride_v = rows <= cols ? cols : 1; /* from one vector to the next */
    int stride_e = rows <= cols ? 1 : cols; /* between elements */
    for (int i = 0; i < rows * cols; i++)
        w[i] = gauss(r);
    for (int a = 0; a < n; a++) {
        double *va = w + a * stride_v;
        for (int b = 0; b < a; b++) {
            const double *vb = w + b * stride_v;
            double dot = 0;
            for (int e = 0; e < len; e++)
                dot += va[e * stride_e] * vb[e * stride_e];
            for (int e = 0; e < len; e++)
                va[e * stride_e] -= dot * vb[e * stride_e];
        }
        double norm = 0;
        for (int e = 0; e < len; e++)
            norm += va[e * stride_e] * va[e * stride_e];
        norm = sqrt(norm);
        for (int e = 0; e < len; e++)
            va[e * stride_e] = norm > 0 ? va[e * stride_e] / norm : 0;
    }
    for (int i = 0; i < rows * cols; i++)
        w[i] *= gain;
}

void
lr_mlp_init(struct lr_mlp *m, struct lr_rng *r, double out_gain)
{
    double *p = m->params;
    lr_mlp_params_changed(m);
    for (int i = 0; i < m->n_layers; i++) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        orthogonal(p, out, in, r, i == m->n_layers - 1 ? out_gain : sqrt(2));
        p += out * in;
        memset(p, 0, (size_t) out * sizeof *p);
        p += out;
    }
}

void
lr_mlp_forward(struct lr_mlp *m, const double *x, double *y)
{
    const double *p = m->params;
    memcpy(m->h, x, (size_t) m->sizes[0] * sizeof *x);
    for (int i = 0; i < m->n_layers; i++) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        const double *hin = m->h + m->h_off[i];
        double *hout = m->h + m->h_off[i + 1];
        memcpy(hout, p + out * in, (size_t) out * sizeof *hout);
        cblas_dgemv(CblasRowMajor, CblasNoTrans, out, in, 1.0, p, in, hin, 1,
                    1.0, hout, 1);
        if (i < m->n_layers - 1)
            for (int o = 0; o < out; o++)
                hout[o] = act_tanh(hout[o]);
        p += out * (in + 1);
    }
    memcpy(y, m->h + m->h_off[m->n_layers],
           (size_t) m->sizes[m->n_layers] * sizeof *y);
}

void
lr_mlp_backward(struct lr_mlp *m, const double *dy)
{
    int L = m->n_layers;
    /* Offsets of each layer's parameters. */
    int off[LR_MLP_MAX_LAYERS];
    for (int i = 0, o = 0; i < L; i++) {
        off[i] = o;
        o += m->sizes[i + 1] * (m->sizes[i] + 1);
    }
    int widest = 0;
    for (int i = 0; i <= L; i++)
        if (m->sizes[i] > widest)
            widest = m->sizes[i];
    double *g = m->g, *gprev = m->g + widest;
    memcpy(g, dy, (size_t) m->sizes[L] * sizeof *g);
    for (int i = L - 1; i >= 0; i--) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        const double *w = m->params + off[i];
        double *gw = m->grad + off[i], *gb = gw + out * in;
        const double *hin = m->h + m->h_off[i];
        cblas_dger(CblasRowMajor, out, in, 1.0, g, 1, hin, 1, gw, in);
        for (int o = 0; o < out; o++)
            gb[o] += g[o];
        if (i == 0)
            break;
        cblas_dgemv(CblasRowMajor, CblasTrans, out, in, 1.0, w, in, g, 1, 0.0,
                    gprev, 1);
        for (int k = 0; k < in; k++)
            gprev[k] *= 1 - hin[k] * hin[k];
        double *t = g;
        g = gprev;
        gprev = t;
    }
}

void
lr_mlp_zero_grad(struct lr_mlp *m)
{
    memset(m->grad, 0, (size_t) m->n_params * sizeof *m->grad);
}

static int
widest_layer(const struct lr_mlp *m)
{
    int w = 0;
    for (int i = 0; i <= m->n_layers; i++)
        if (m->sizes[i] > w)
            w = m->sizes[i];
    return w;
}

int
lr_mlp_reserve(struct lr_mlp *m, int n)
{
    if (n < 1)
        return EINVAL;
    if (n <= m->cap)
        return 0;
    int acts = m->h_off[m->n_layers] + m->sizes[m->n_layers];
    size_t n_pt = 0;
    for (int i = 0; i < m->n_layers; i++)
        n_pt += (size_t) m->sizes[i] * pad32(m->sizes[i + 1]);
    float *hb = malloc((size_t) n * acts * sizeof *hb);
    float *gb = malloc((size_t) 2 * n * widest_layer(m) * sizeof *gb);
    float *pf = m->pf ? m->pf : malloc((size_t) m->n_params * sizeof *pf);
    float *gf = m->gf ? m->gf : malloc((size_t) m->n_params * sizeof *gf);
    float *pt = m->pt ? m->pt : calloc(n_pt, sizeof *pt);
    if (!hb || !gb || !pf || !gf || !pt) {
        free(hb);
        free(gb);
        if (pf != m->pf)
            free(pf);
        if (gf != m->gf)
            free(gf);
        if (pt != m->pt)
            free(pt);
        return ENOMEM;
    }
    free(m->hb);
    free(m->gb);
    m->hb = hb;
    m->gb = gb;
    m->pf = pf;
    m->gf = gf;
    m->pt = pt;
    for (int i = 0, o = 0; i < m->n_layers; i++) {
        m->t_off[i] = o;
        o += m->sizes[i] * pad32(m->sizes[i + 1]);
    }
    m->cap = n;
    return 0;
}

/* pf and pt up to date with params: pf is kept in step by
 * lr_mlp_adam_step() and taken again after anything else wrote params
 * (pf_ok false); pt, the transposes the forward products read, is taken
 * from pf after either changed. */
static void
float_weights(struct lr_mlp *m)
{
    if (!m->pf_ok) {
        lr_simd_to_float(m->pf, m->params, (size_t) m->n_params);
        m->pf_ok = true;
        m->pt_ok = false;
    }
    if (m->pt_ok)
        return;
    const float *p = m->pf;
    for (int i = 0; i < m->n_layers; i++) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        lr_simd_transpose(m->pt + m->t_off[i], (size_t) pad32(out), p,
                          (size_t) out, (size_t) in);
        p += out * (in + 1);
    }
    m->pt_ok = true;
}

/* The batched pass from its input x (n rows, in float; kept as xb for
 * the backward pass): H_{i+1} = 1 b_i^T + H_i W_i^T (lr_gemm with B =
 * W_i^T, then tanh). */
static void
forward_batch_hb(struct lr_mlp *m, int n, const float *x, double *y)
{
    int L = m->n_layers;
    float_weights(m);
    m->xb = x;
    const float *hin = x, *p = m->pf;
    for (int i = 0; i < L; i++) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        float *hout = m->hb + (size_t) m->cap * m->h_off[i + 1];
        const float *b = p + out * in;
        for (int r = 0; r < n; r++)
            memcpy(hout + (size_t) r * out, b, (size_t) out * sizeof *hout);
        lr_gemm(n, out, in, hin, (size_t) in, 1, m->pt + m->t_off[i],
                (size_t) pad32(out), pad32(out), hout, (size_t) out, true);
        if (i < L - 1)
            lr_simd_tanhf(hout, (size_t) n * out);
        p += out * (in + 1);
        hin = hout;
    }
    lr_simd_to_double(y, hin, (size_t) n * m->sizes[L]);
}

void
lr_mlp_forward_batch(struct lr_mlp *m, int n, const double *x, double *y)
{
    lr_simd_to_float(m->hb, x, (size_t) n * m->sizes[0]);
    forward_batch_hb(m, n, m->hb, y);
}

void
lr_mlp_forward_batchf(struct lr_mlp *m, int n, const float *x, double *y)
{
    forward_batch_hb(m, n, x, y);
}

void
lr_mlp_backward_batch(struct lr_mlp *m, int n, const double *dy)
{
    int L = m->n_layers, widest = widest_layer(m);
    int off[LR_MLP_MAX_LAYERS];
    for (int i = 0, o = 0; i < L; i++) {
        off[i] = o;
        o += m->sizes[i + 1] * (m->sizes[i] + 1);
    }
    float *buf[2] = { m->gb, m->gb + (size_t) m->cap * widest };
    float *g = buf[0];
    lr_simd_to_float(g, dy, (size_t) n * m->sizes[L]);
    int next = 1;
    for (int i = L - 1; i >= 0; i--) {
        int in = m->sizes[i], out = m->sizes[i + 1];
        const float *w = m->pf + off[i];
        float *gwf = m->gf + off[i];
        double *gw = m->grad + off[i], *gbias = gw + out * in;
        const float *hin = i ? m->hb + (size_t) m->cap * m->h_off[i]
                             : m->xb;
        /* This batch's dW = G_i^T H_i in float (G_i read transposed in
         * place), added to the double accumulator. */
        lr_gemm(out, in, n, g, 1, (size_t) out, hin, (size_t) in, in, gwf,
                (size_t) in, false);
        lr_simd_add_float(gw, gwf, (size_t) out * in);
        lr_simd_add_rows(gbias, g, (size_t) n, (size_t) out);
        if (i == 0)
            break;
        float *gprev = buf[next];
        next ^= 1;
        lr_gemm(n, in, out, g, (size_t) out, 1, w, (size_t) in, in, gprev,
                (size_t) in, false);
        lr_simd_tanh_grad(gprev, hin, (size_t) n * in);
        g = gprev;
    }
}

int
lr_adam_init(struct lr_adam *a, int n)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->b1 = 0.9;
    a->b2 = 0.999;
    a->eps = 1e-5;
    a->m = calloc((size_t) n, sizeof *a->m);
    a->v = calloc((size_t) n, sizeof *a->v);
    if (!a->m || !a->v) {
        lr_adam_free(a);
        return ENOMEM;
    }
    return 0;
}

void
lr_adam_free(struct lr_adam *a)
{
    free(a->m);
    free(a->v);
    a->m = a->v = NULL;
}

/* lr mhat / (sqrt(vhat) + eps) = (lr / c1) m / (sqrt(v) / sqrt(c2) + eps):
 * one square root and one division per weight instead of three divisions
 * (equal up to rounding); the loop itself is lr_simd_adam(). */
static void
adam_step(struct lr_adam *a, double *p, float *pf, const double *g,
          double lr, double gscale)
{
    a->t++;
    double c1 = 1 - pow(a->b1, (double) a->t);
    double c2 = 1 - pow(a->b2, (double) a->t);
    struct lr_simd_adam k = {
        .b1 = a->b1, .k1 = 1 - a->b1, .b2 = a->b2, .k2 = 1 - a->b2,
        .step = lr / c1, .rs = 1 / sqrt(c2), .eps = a->eps,
        .gscale = gscale,
    };
    lr_simd_adam(&k, (size_t) a->n, p, pf, a->m, a->v, g);
}

void
lr_adam_step(struct lr_adam *a, double *p, const double *g, double lr)
{
    adam_step(a, p, NULL, g, lr, 1.0);
}

void
lr_mlp_adam_step(struct lr_mlp *m, struct lr_adam *a, double lr,
                 double gscale)
{
    adam_step(a, m->params, m->pf_ok ? m->pf : NULL, m->grad, lr, gscale);
    m->pt_ok = false;
}

void
lr_mlp_params_changed(struct lr_mlp *m)
{
    m->pf_ok = false;
    m->pt_ok = false;
}

bool
lr_mlp_copy_widened(const struct lr_mlp *from, struct lr_mlp *to)
{
    if (from->n_layers != to->n_layers || from->sizes[0] > to->sizes[0])
        return false;
    for (int l = 1; l <= from->n_layers; l++)
        if (from->sizes[l] != to->sizes[l])
            return false;
    int out = from->sizes[1], in0 = from->sizes[0], in1 = to->sizes[0];
    for (int r = 0; r < out; r++) {
        memcpy(to->params + (size_t) r * in1, from->params + (size_t) r * in0,
               (size_t) in0 * sizeof *to->params);
        memset(to->params + (size_t) r * in1 + in0, 0,
               (size_t) (in1 - in0) * sizeof *to->params);
    }
    size_t f0 = (size_t) out * in0, t0 = (size_t) out * in1;
    memcpy(to->params + t0, from->params + f0,
           ((size_t) from->n_params - f0) * sizeof *to->params);
    lr_mlp_params_changed(to);
    return true;
}

bool
lr_mlp_average(struct lr_mlp *to, const struct lr_mlp *const *src, int n)
{
    if (n < 1)
        return false;
    for (int i = 0; i < n; i++) {
        if (src[i]->n_layers != to->n_layers)
            return false;
        for (int l = 0; l <= to->n_layers; l++)
            if (src[i]->sizes[l] != to->sizes[l])
                return false;
    }
    /* In ascending source order for each weight, so 'to' may be a
     * source: its weight is read before it is written. */
    for (int j = 0; j < to->n_params; j++) {
        double sum = 0;
        for (int i = 0; i < n; i++)
            sum += src[i]->params[j];
        to->params[j] = sum / n;
    }
    lr_mlp_params_changed(to);
    return true;
}

