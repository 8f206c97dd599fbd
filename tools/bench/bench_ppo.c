/*
 * lr-bench-ppo: how fast the joint environment and the PPO agent are, on
 * one core.  `make bench` runs it; docs/benchmarks.md records results.
 *
 * 1. Environment alone: steps (decisions) per second with the random
 *    baseline, median of R runs of N steps.
 * 2. Training: steps per second of the `lightrail train` loop (observe,
 *    sample an action, step, store, a PPO update every 512 steps with 4
 *    epochs of 4 minibatches; MLPs 64-64), median of R runs.
 * 3. One policy decision (observe + the actor's forward pass + the masked
 *    argmax), each timed alone with CLOCK_MONOTONIC on states of a
 *    running simulation; median and 99th percentile.
 * Each on the metro example (3 DCs, 57 actions) and on NSFNET with six
 * DCs (276 actions).
 * 3b. One decision of lightraild (controller/lr_ctl_ppo.c): mirror a
 *    network state into the environment (lr_jenv_set_state: GPUs used
 *    per DC and a copy of every link's occupancy), present the job
 *    (lr_jenv_present: the mask), observe, the actor's argmax; on random
 *    states (random GPUs used, random blocks booked on every link).
 * 4. Does BLAS pay?  The actor's forward pass at both sizes, per sample:
 *    plain loops (what lr_mlp did before it used BLAS, kept here) against
 *    OpenBLAS on one thread, one sample at a time (dgemv, what lr_mlp
 *    does now) and 128 samples at a time (dgemm, what a batched
 *    minibatch update would use); same weights, the outputs compared.
 *    Median of R runs.
 * Timing is wall clock on a shared machine.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cblas.h>

#include "planner/lr_jenv.h"
#include "planner/lr_mlp.h"
#include "planner/lr_ppo.h"
#include "planner/lr_spectrum.h"
#include "planner/lr_stats.h"
#include "yang/lr_yang.h"

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

struct setup {
    struct lr_topo *topo;
    struct lr_cluster *cl;
    struct lr_model *models[3];
    struct lr_jenv *env;
};

static int
open_setup(struct ly_ctx *ctx, const char *topo, const char *cluster,
           double load, struct setup *s)
{
    static const char *const names[3] = { "bert-large", "gpt-1.9b",
                                          "llama2-7b" };
    char err[1024];
    memset(s, 0, sizeof *s);
    if (lr_yang_load_topo(ctx, topo, &s->topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, cluster, &s->cl, err, sizeof err)) {
        fprintf(stderr, "lr-bench-ppo: %s\n", err);
        return 1;
    }
    struct lr_jenv_config c = {
        .load = load, .holding = 1, .k = 3, .guard = 1, .block_penalty = 2,
        .train = { .batch = 32, .micro = 1, .elem_bytes = 2 },
        .n_models = 3, .n_demands = 3, .demands = { 4, 8, 16 },
    };
    for (int i = 0; i < 3; i++) {
        if (lr_model_preset(names[i], &s->models[i]))
            return 1;
        c.models[i] = s->models[i];
    }
    if (lr_jenv_new(s->topo, s->cl, &c, &s->env, err, sizeof err)) {
        fprintf(stderr, "lr-bench-ppo: %s\n", err);
        return 1;
    }
    return 0;
}

static void
close_setup(struct setup *s)
{
    lr_jenv_free(s->env);
    for (int i = 0; i < 3; i++)
        lr_model_free(s->models[i]);
    lr_cluster_free(s->cl);
    lr_topo_free(s->topo);
}

static double
median(double *x, int n)
{
    qsort(x, (size_t) n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static void
bench(const char *name, struct setup *s, int runs, long steps, int decisions)
{
    struct lr_jenv *e = s->env;
    double rate[32];
    struct lr_rng rng;
    /* 1. The environment alone. */
    for (int r = 0; r < runs; r++) {
        lr_rng_seed(&rng, (uint64_t) r + 1);
        lr_jenv_reset(e, (uint64_t) r + 1, 0);
        double t0 = now_s();
        for (long i = 0; i < steps; i++)
            lr_jenv_step(e, lr_jenv_random.choose(NULL, e, lr_jenv_mask(e),
                                                  &rng));
        rate[r] = steps / (now_s() - t0);
    }
    double env_rate = median(rate, runs);
    /* 2. Training. */
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, lr_jenv_obs_size(e), lr_jenv_n_actions(e));
    pc.total_steps = steps;
    float *obs = malloc((size_t) pc.n_obs * sizeof *obs);
    long train_steps = steps / 20 > 2048 ? steps / 20 : 2048;
    for (int r = 0; r < runs; r++) {
        struct lr_ppo *p = NULL;
        pc.seed = (uint64_t) r + 1;
        if (lr_ppo_new(&pc, &p))
            exit(1);
        lr_jenv_reset(e, (uint64_t) r + 1, 0);
        double t0 = now_s();
        for (long i = 0; i < train_steps; i++) {
            lr_jenv_observe(e, obs);
            const uint8_t *mask = lr_jenv_mask(e);
            double logp, v;
            int a = lr_ppo_act(p, obs, mask, true, &logp, &v);
            double rew = lr_jenv_step(e, a);
            if (lr_ppo_store(p, obs, mask, a, logp, v, rew, false)) {
                double last;
                lr_jenv_observe(e, obs);
                lr_ppo_act(p, obs, lr_jenv_mask(e), false, NULL, &last);
                lr_ppo_update(p, last, NULL);
            }
        }
        rate[r] = train_steps / (now_s() - t0);
        lr_ppo_free(p);
    }
    double train_rate = median(rate, runs);
    /* 3. One decision. */
    struct lr_ppo *p = NULL;
    pc.seed = 1;
    if (lr_ppo_new(&pc, &p))
        exit(1);
    double *lat = malloc((size_t) decisions * sizeof *lat);
    lr_jenv_reset(e, 77, 0);
    for (int i = 0; i < decisions; i++) {
        double t0 = now_s();
        lr_jenv_observe(e, obs);
        int a = lr_ppo_act(p, obs, lr_jenv_mask(e), false, NULL, NULL);
        lat[i] = now_s() - t0;
        lr_jenv_step(e, a);
    }
    qsort(lat, (size_t) decisions, sizeof *lat, cmp_double);
    double med = lat[decisions / 2], p99 = lat[decisions * 99 / 100];
    /* 3b. lightraild's decision: mirror, present, observe, act. */
    struct lr_spectrum *sp = lr_spectrum_new(s->topo);
    if (!sp)
        exit(1);
    lr_rng_seed(&rng, 99);
    int used[LR_JENV_MAX_DCS];
    char err[256];
    for (int i = 0; i < decisions; i++) {
        lr_spectrum_reset(sp);
        for (int l = 0; l < s->topo->n_links; l++)
            for (int b = 0; b < 8; b++) {
                int m = 3 + (int) lr_rng_below(&rng, 7);
                int n = s->topo->links[l].n_slots - m;
                if (n > 0)
                    lr_spectrum_alloc(sp, &l, 1,
                                      (int) lr_rng_below(&rng, (uint32_t) n),
                                      m);
            }
        for (int d = 0; d < s->cl->n_dcs; d++)
            used[d] = (int) lr_rng_below(&rng, (uint32_t)
                                         s->cl->dcs[d].n_devices + 1);
        int mi = (int) lr_rng_below(&rng, 3), di = (int) lr_rng_below(&rng, 3);
        double t0 = now_s();
        if (lr_jenv_set_state(e, used, sp->occ, sp->nw, err, sizeof err))
            exit(1);
        if (lr_jenv_present(e, mi, di) > 0) {
            lr_jenv_observe(e, obs);
            lr_ppo_act(p, obs, lr_jenv_mask(e), false, NULL, NULL);
        }
        lat[i] = now_s() - t0;
    }
    qsort(lat, (size_t) decisions, sizeof *lat, cmp_double);
    printf("| %s | %d | %d | %.0f | %.0f | %.1f us | %.1f us | %.1f us | "
           "%.1f us |\n", name, lr_jenv_n_actions(e), lr_jenv_obs_size(e),
           env_rate, train_rate, med * 1e6, p99 * 1e6,
           lat[decisions / 2] * 1e6, lat[decisions * 99 / 100] * 1e6);
    fflush(stdout);
    lr_spectrum_free(sp);
    free(lat);
    free(obs);
    lr_ppo_free(p);
}

/* The actor of 'm' with plain loops, one sample (lr_mlp.c before BLAS). */
static void
loop_forward(const struct lr_mlp *m, const double *x, double *y, double *h1,
             double *h2)
{
    const double *p = m->params, *in = x;
    for (int l = 0; l < m->n_layers; l++) {
        int ni = m->sizes[l], no = m->sizes[l + 1];
        double *out = l == m->n_layers - 1 ? y : (l % 2 ? h2 : h1);
        const double *b = p + no * ni;
        for (int o = 0; o < no; o++) {
            const double *w = p + o * ni;
            double s = b[o];
            for (int k = 0; k < ni; k++)
                s += w[k] * in[k];
            out[o] = l == m->n_layers - 1 ? s : tanh(s);
        }
        p += no * (ni + 1);
        in = out;
    }
}

/* The actor of 'm' through BLAS on 'n' samples x[n][in] -> y[n][out]
 * (row-major), h1/h2 scratch of n x widest. */
static void
blas_forward(const struct lr_mlp *m, int n, const double *x, double *y,
             double *h1, double *h2)
{
    const double *p = m->params, *in = x;
    for (int l = 0; l < m->n_layers; l++) {
        int ni = m->sizes[l], no = m->sizes[l + 1];
        double *out = l == m->n_layers - 1 ? y : (l % 2 ? h2 : h1);
        const double *w = p, *b = p + no * ni;
        for (int s = 0; s < n; s++)
            memcpy(out + (size_t) s * no, b, (size_t) no * sizeof *out);
        if (n == 1)
            cblas_dgemv(CblasRowMajor, CblasNoTrans, no, ni, 1.0, w, ni, in,
                        1, 1.0, out, 1);
        else
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, no, ni,
                        1.0, in, ni, w, ni, 1.0, out, no);
        if (l < m->n_layers - 1)
            for (size_t i = 0; i < (size_t) n * no; i++)
                out[i] = tanh(out[i]);
        p += no * (ni + 1);
        in = out;
    }
}

static void
bench_blas(const char *name, int n_obs, int n_act, int runs)
{
    enum { BATCH = 128, REPS = 40 };
    int hidden[2] = { 64, 64 };
    struct lr_mlp *m = NULL;
    if (lr_mlp_new(n_obs, hidden, 2, n_act, &m))
        exit(1);
    struct lr_rng r;
    lr_rng_seed(&r, 5);
    lr_mlp_init(m, &r, 0.01);
    for (int i = 0; i < m->n_params; i++)
        m->params[i] += 0.01 * (lr_rng_uniform(&r) - 0.5);
    double *x = malloc((size_t) BATCH * n_obs * sizeof *x);
    double *y = malloc((size_t) BATCH * n_act * sizeof *y);
    double *yb = malloc((size_t) BATCH * n_act * sizeof *yb);
    double *h1 = malloc((size_t) BATCH * 64 * sizeof *h1);
    double *h2 = malloc((size_t) BATCH * 64 * sizeof *h2);
    for (int i = 0; i < BATCH * n_obs; i++)
        x[i] = lr_rng_uniform(&r);
    double t_loop[32], t_gemv[32], t_gemm[32], diff = 0;
    for (int run = 0; run < runs; run++) {
        double t0 = now_s();
        for (int k = 0; k < REPS; k++)
            for (int s = 0; s < BATCH; s++)
                loop_forward(m, x + (size_t) s * n_obs,
                             y + (size_t) s * n_act, h1, h2);
        t_loop[run] = (now_s() - t0) / (REPS * BATCH);
        t0 = now_s();
        for (int k = 0; k < REPS; k++)
            for (int s = 0; s < BATCH; s++)
                blas_forward(m, 1, x + (size_t) s * n_obs,
                             yb + (size_t) s * n_act, h1, h2);
        t_gemv[run] = (now_s() - t0) / (REPS * BATCH);
        t0 = now_s();
        for (int k = 0; k < REPS; k++)
            blas_forward(m, BATCH, x, yb, h1, h2);
        t_gemm[run] = (now_s() - t0) / (REPS * BATCH);
    }
    for (int i = 0; i < BATCH * n_act; i++)
        diff = fmax(diff, fabs(y[i] - yb[i]));
    printf("| %s (%d-64-64-%d) | %.2f us | %.2f us | %.2f us | %.1e |\n",
           name, n_obs, n_act, median(t_loop, runs) * 1e6,
           median(t_gemv, runs) * 1e6, median(t_gemm, runs) * 1e6, diff);
    free(x);
    free(y);
    free(yb);
    free(h1);
    free(h2);
    lr_mlp_free(m);
}

int
main(int argc, char **argv)
{
    const char *mt = NULL, *mc = NULL, *nt = NULL, *nc = NULL;
    int runs = 5;
    long steps = 200000;
    static const struct option longopts[] = {
        { "metro", required_argument, NULL, 'm' },
        { "metro-cluster", required_argument, NULL, 'M' },
        { "nsfnet", required_argument, NULL, 'n' },
        { "nsfnet-cluster", required_argument, NULL, 'N' },
        { "runs", required_argument, NULL, 'r' },
        { "steps", required_argument, NULL, 's' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': mt = optarg; break;
        case 'M': mc = optarg; break;
        case 'n': nt = optarg; break;
        case 'N': nc = optarg; break;
        case 'r': runs = atoi(optarg); break;
        case 's': steps = atol(optarg); break;
        default:
            fprintf(stderr, "usage: lr-bench-ppo --metro T --metro-cluster C "
                    "--nsfnet T --nsfnet-cluster C [--runs R] [--steps N]\n");
            return 2;
        }
    }
    if (!mt || !mc || !nt || !nc || runs < 1 || runs > 32 || steps < 1000) {
        fprintf(stderr, "lr-bench-ppo: give --metro, --metro-cluster, "
                "--nsfnet, --nsfnet-cluster; 1 <= runs <= 32, steps >= "
                "1000\n");
        return 2;
    }
    openblas_set_num_threads(1);
    struct ly_ctx *ctx = NULL;
    char err[1024];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "lr-bench-ppo: %s\n", err);
        return 1;
    }
    printf("# lr-bench-ppo: %d runs, %ld env steps per run (training: 1/20 "
           "of them, at least 2048); load 2.5 E metro, 7 E NSFNET\n", runs,
           steps);
    printf("| case | actions | observation | env steps/s (random) | "
           "training steps/s | decision median | decision p99 | "
           "lightraild decision median | lightraild decision p99 |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    struct setup s;
    if (open_setup(ctx, mt, mc, 2.5, &s))
        return 1;
    bench("metro, 3 DCs", &s, runs, steps, 20000);
    close_setup(&s);
    if (open_setup(ctx, nt, nc, 7, &s))
        return 1;
    bench("NSFNET, 6 DCs", &s, runs, steps, 20000);
    close_setup(&s);
    printf("\n# actor forward pass per sample: plain loops, OpenBLAS "
           "dgemv (1 sample), OpenBLAS dgemm (128 samples), one thread; "
           "largest difference of the outputs\n"
           "| actor | loops | dgemv | dgemm x128 | max diff |\n"
           "|---|---:|---:|---:|---:|\n");
    bench_blas("metro", 120, 57, runs);
    bench_blas("NSFNET, 6 DCs", 504, 276, runs);
    lr_yang_ctx_free(ctx);
    return 0;
}
