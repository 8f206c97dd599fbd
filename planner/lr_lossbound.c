/* lr_lossbound: see lr_lossbound.h for the model and its sources. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_lossbound.h"

static int
check(int capacity, const struct lr_lossbound_class *cl, int n)
{
    if (capacity < 1 || n < 1 || n > LR_LOSSBOUND_MAX_CLASSES)
        return EINVAL;
    for (int k = 0; k < n; k++)
        if (cl[k].demand < 1 || !(cl[k].load > 0) || !isfinite(cl[k].load))
            return EINVAL;
    return 0;
}

int
lr_lossbound_cs(int capacity, const struct lr_lossbound_class *cl, int n,
                struct lr_lossbound *out)
{
    memset(out, 0, sizeof *out);
    if (check(capacity, cl, n))
        return EINVAL;
    double *q = calloc((size_t) capacity + 1, sizeof *q);
    if (!q)
        return ENOMEM;
    /* q grows like a^j / j!: rescale whenever it gets large so that the
     * sums stay finite for any capacity. */
    q[0] = 1;
    for (int j = 1; j <= capacity; j++) {
        double s = 0;
        for (int k = 0; k < n; k++)
            if (j >= cl[k].demand)
                s += cl[k].load * cl[k].demand * q[j - cl[k].demand];
        q[j] = s / j;
        if (q[j] > 1e200)
            for (int i = 0; i <= j; i++)
                q[i] *= 1e-200;
    }
    double total = 0, load = 0;
    for (int j = 0; j <= capacity; j++)
        total += q[j];
    for (int k = 0; k < n; k++) {
        double b = 0;
        for (int j = capacity - cl[k].demand + 1; j <= capacity; j++)
            if (j >= 0)
                b += q[j];
        out->per_class[k] = b / total;
        out->blocking += cl[k].load * out->per_class[k];
        load += cl[k].load;
    }
    out->blocking /= load;
    free(q);
    return 0;
}

/* The state space: mixed radix over n_k in 0..capacity / b_k; 'idx' maps
 * a radix code to a dense state number or -1 when it does not fit. */
struct space {
    int n;
    long radix[LR_LOSSBOUND_MAX_CLASSES], codes;
    long n_states;
    long *idx;                /* codes entries */
    int *count;               /* n_states x n: n_k of each state */
    int *jobs;                /* n_states: sum n_k */
};

static int
space_build(struct space *sp, int capacity,
            const struct lr_lossbound_class *cl, int n)
{
    memset(sp, 0, sizeof *sp);
    sp->n = n;
    sp->codes = 1;
    for (int k = 0; k < n; k++) {
        sp->radix[k] = capacity / cl[k].demand + 1;
        if (sp->codes > LR_LOSSBOUND_MAX_STATES / sp->radix[k])
            return E2BIG;
        sp->codes *= sp->radix[k];
    }
    sp->idx = malloc((size_t) sp->codes * sizeof *sp->idx);
    if (!sp->idx)
        return ENOMEM;
    for (long c = 0; c < sp->codes; c++) {
        long r = c, used = 0;
        for (int k = 0; k < n; k++) {
            used += (r % sp->radix[k]) * cl[k].demand;
            r /= sp->radix[k];
        }
        sp->idx[c] = used <= capacity ? sp->n_states++ : -1;
    }
    sp->count = malloc((size_t) sp->n_states * (size_t) n
                       * sizeof *sp->count);
    sp->jobs = malloc((size_t) sp->n_states * sizeof *sp->jobs);
    if (!sp->count || !sp->jobs)
        return ENOMEM;
    for (long c = 0; c < sp->codes; c++) {
        long s = sp->idx[c], r = c;
        if (s < 0)
            continue;
        sp->jobs[s] = 0;
        for (int k = 0; k < n; k++) {
            sp->count[s * n + k] = (int) (r % sp->radix[k]);
            sp->jobs[s] += sp->count[s * n + k];
            r /= sp->radix[k];
        }
    }
    return 0;
}

static void
space_free(struct space *sp)
{
    free(sp->idx);
    free(sp->count);
    free(sp->jobs);
}

int
lr_lossbound_optimal(int capacity, const struct lr_lossbound_class *cl,
                     int n, double tol, int max_iter,
                     struct lr_lossbound *out)
{
    memset(out, 0, sizeof *out);
    if (check(capacity, cl, n) || !(tol > 0) || max_iter < 1)
        return EINVAL;
    struct space sp;
    int rc = space_build(&sp, capacity, cl, n);
    if (rc) {
        space_free(&sp);
        return rc;
    }
    long S = sp.n_states;
    /* Neighbours as dense state numbers, -1 where there is none. */
    long *up = malloc((size_t) S * (size_t) n * sizeof *up);
    long *down = malloc((size_t) S * (size_t) n * sizeof *down);
    double *h = calloc((size_t) S, sizeof *h);
    double *h2 = malloc((size_t) S * sizeof *h2);
    if (!up || !down || !h || !h2) {
        rc = ENOMEM;
        goto done;
    }
    double lam = 0;
    int max_jobs = 0;
    for (int k = 0; k < n; k++)
        lam += cl[k].load;
    for (long c = 0, mult; c < sp.codes; c++) {
        long s = sp.idx[c];
        if (s < 0)
            continue;
        mult = 1;
        for (int k = 0; k < n; k++) {
            int nk = sp.count[s * n + k];
            long cu = nk + 1 < sp.radix[k] ? c + mult : -1;
            up[s * n + k] = cu >= 0 ? sp.idx[cu] : -1;
            down[s * n + k] = nk > 0 ? sp.idx[c - mult] : -1;
            mult *= sp.radix[k];
        }
        if (sp.jobs[s] > max_jobs)
            max_jobs = sp.jobs[s];
    }
    double L = lam + max_jobs + 1, g = 0;
    rc = ETIMEDOUT;
    for (out->iterations = 1; out->iterations <= max_iter;
         out->iterations++) {
        for (long s = 0; s < S; s++) {
            double v = (L - lam - sp.jobs[s]) * h[s];
            for (int k = 0; k < n; k++) {
                double refuse = 1 + h[s];
                long u = up[s * n + k], d = down[s * n + k];
                v += cl[k].load * (u >= 0 && h[u] < refuse ? h[u] : refuse);
                if (d >= 0)
                    v += sp.count[s * n + k] * h[d];
            }
            h2[s] = v / L;
        }
        g = h2[0];
        double lo = INFINITY, hi = -INFINITY;
        for (long s = 0; s < S; s++) {
            h2[s] -= g;
            double dlt = h2[s] - h[s];
            lo = dlt < lo ? dlt : lo;
            hi = dlt > hi ? dlt : hi;
        }
        double *t = h;
        h = h2;
        h2 = t;
        if (hi - lo < tol) {
            rc = 0;
            break;
        }
    }
    if (out->iterations > max_iter)
        out->iterations = max_iter;
    out->blocking = g * L / lam;
    /* Where refusing is strictly better (beyond rounding). */
    for (long s = 0; s < S; s++)
        for (int k = 0; k < n; k++) {
            long u = up[s * n + k];
            if (u >= 0 && h[u] > 1 + h[s] + 1e-9) {
                out->refusing_states++;
                break;
            }
        }
done:
    free(up);
    free(down);
    free(h);
    free(h2);
    space_free(&sp);
    return rc;
}
