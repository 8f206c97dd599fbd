/*
 * lr-bench-ppo: how fast the joint environment and the PPO agent are, on
 * one core.  `make bench` runs it; docs/benchmarks.md records results.
 *
 * 1. Environment alone: steps (decisions) per second with the random
 *    baseline, median of R runs of N steps.
 * 2. Training: environment steps per second of the `lightrail train`
 *    loop, everything included (observe, copy the mask, act, step,
 *    store, a PPO update every 512 transitions with 4 epochs of 4
 *    minibatches, episodes of 5000 steps; MLPs 64-64, lr 3e-4, gamma 0.5:
 *    the shipped policy's settings), median of R runs: the per-sample
 *    update with one environment (lr_ppo cfg.per_sample, the code before
 *    the batched update), and the batched update with N environments in
 *    lockstep for N = 1, 4, 8, 16, 32, 64; for N = 16 (the default of
 *    `lightrail train --envs`) the time split into observe, act, step
 *    and update.  The batched update computes in single precision, the
 *    per-sample one in double (planner/lr_mlp.h), its products by
 *    lr_gemm (planner/lr_gemm.h).  The ceilings: the multiply-adds of one
 *    environment step (one forward pass of both networks to act, and per
 *    epoch a forward pass, dW and dX of both) at the dgemm and at the
 *    lr_gemm rate measured on this core for the first layer's shape.
 * 3. One policy decision (observe + the actor's forward pass + the masked
 *    argmax), each timed alone with CLOCK_MONOTONIC on states of a
 *    running simulation; median and 99th percentile.
 * Each on the metro example (3 DCs, 57 actions) and on NSFNET with six
 * DCs (276 actions).  --train-only runs section 2 alone.
 * 3b. One decision of lightraild (controller/lr_ctl_ppo.c): mirror a
 *    network state into the environment (lr_jenv_set_state: GPUs used
 *    per DC and a copy of every link's occupancy), present the job
 *    (lr_jenv_present: the mask), observe, the actor's argmax; on random
 *    states (random GPUs used, random blocks booked on every link).
 * 3c. The same for a policy trained with known work (lr_ctl_ppo.h): the
 *    class presented, T_ref read, the class presented again with its
 *    work X, then observe and act, on the same states.
 * 4. Does BLAS pay?  The actor's forward pass at both sizes, per sample:
 *    plain loops (what lr_mlp did before it used BLAS, kept here) against
 *    OpenBLAS on one thread, one sample at a time (dgemv, what lr_mlp
 *    does now) and 128 samples at a time (dgemm, what a batched
 *    minibatch update would use); same weights, the outputs compared.
 *    Median of R runs.
 * 5. The float products of training: OpenBLAS's sgemm against lr_gemm on
 *    each product of a step (forward, dW, dX per layer, 128 rows; the
 *    forward pass on 16), same operands.
 * 6. Imitation (planner/lr_ppo_imitate.h, `lightrail train --teacher
 *    greedy --imitate`): labelled states per second of the DAgger loop
 *    as cmd_train.c runs it (16 environments; observe and the student's
 *    batched argmax, greedy's label, step and store, and per segment of
 *    4,096 the returns, the reservoir and 64 Adam steps on minibatches
 *    of 256 with the critic), the first segment stepped by the teacher,
 *    the later ones by the student; median of R runs, and the split
 *    observe+act / label / step / fit at the median's run.
 *    --imitate-only runs this section alone.
 * 7. Loading a policy (lr_ppo_decode, what lightraild, `lightrail sim`
 *    and `train --init` do with a policy file's weights): CPU time of
 *    one decode of an agent of each case's sizes (hidden 64-64), median
 *    of R runs of 200 decodes, beside the same decode followed by the
 *    orthogonal initialisation of both networks (lr_mlp_init), the work
 *    lr_ppo_decode did before 2026-12-07 and threw away (it built the
 *    agent with lr_ppo_new, then wrote every weight from the file).
 *    --decode-only runs this section alone.
 * Rates (1, 2, 4, 5, 6 and the gemm rates of 2) are per second of this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the machine is shared,
 * and wall time would count the time slices of other processes; with
 * one BLAS thread the thread's CPU time is the one core's.  Latencies (3,
 * 3b, 3c) are wall clock, as a caller would see them.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cblas.h>

/* OpenBLAS's own: the name of the kernel set it chose for this CPU. */
char *openblas_get_corename(void);

#include "planner/lr_gemm.h"
#include "planner/lr_jenv.h"
#include "planner/lr_mlp.h"
#include "planner/lr_ppo.h"
#include "planner/lr_ppo_imitate.h"
#include "planner/lr_spectrum.h"
#include "planner/lr_stats.h"
#include "tools/bench/bench_jenv_case.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-ppo"
#include "yang/lr_yang.h"

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: see the top comment. */
static double
cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

struct setup {
    struct bench_jenv_case in;
    struct lr_jenv *env;
};

static int
open_setup(struct ly_ctx *ctx, const char *topo, const char *cluster,
           double load, struct setup *s)
{
    char err[1024];
    s->env = NULL;
    if (bench_jenv_case_load(ctx, "lr-bench-ppo", topo, cluster, &s->in))
        return 1;
    s->in.cfg.load = load;
    if (lr_jenv_new(s->in.topo, s->in.cl, &s->in.cfg, &s->env, err,
                    sizeof err)) {
        fprintf(stderr, "lr-bench-ppo: %s\n", err);
        return 1;
    }
    return 0;
}

static void
close_setup(struct setup *s)
{
    lr_jenv_free(s->env);
    bench_jenv_case_free(&s->in);
}

/* The split of a training run, seconds. */
struct split {
    double observe, act, step, update;
};

/* One training run of 'steps' environment steps with n_envs
 * environments ('envs': n_envs of them, the first the setup's), as
 * cmd_train.c runs it; returns the steps per second, adds the split to
 * 'sp' when not NULL. */
static double
train_run(struct lr_jenv **envs, int n_envs, bool per_sample, uint64_t seed,
          long steps, struct split *sp)
{
    enum { EPISODE = 5000 };
    struct lr_jenv *e0 = envs[0];
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, lr_jenv_obs_size(e0), lr_jenv_n_actions(e0));
    pc.total_steps = steps;
    pc.lr = 3e-4;
    pc.gamma = 0.5;
    pc.seed = seed;
    pc.n_envs = n_envs;
    pc.per_sample = per_sample;
    struct lr_ppo *p = NULL;
    if (lr_ppo_new(&pc, &p))
        exit(1);
    int N = n_envs, no = pc.n_obs, na = pc.n_act;
    float *obs = malloc((size_t) N * no * sizeof *obs);
    uint8_t *mask = malloc((size_t) N * na);
    int *act = malloc((size_t) N * sizeof *act);
    double *logp = malloc((size_t) N * sizeof *logp);
    double *v = malloc((size_t) N * sizeof *v);
    long ep_steps = 0, episode = 0;
    if (!obs || !mask || !act || !logp || !v)
        exit(1);
    for (int e = 0; e < N; e++)
        lr_jenv_reset(envs[e], seed * 1000003ULL + (uint64_t) e, 0);
    double t0 = cpu_s(), t1 = 0, t2 = 0, t3 = 0, t4 = 0;
    for (long i = 0; i < steps; i += N) {
        if (sp)
            t1 = cpu_s();
        for (int e = 0; e < N; e++) {
            lr_jenv_observe(envs[e], obs + (size_t) e * no);
            memcpy(mask + (size_t) e * na, lr_jenv_mask(envs[e]), (size_t) na);
        }
        if (sp)
            t2 = cpu_s();
        if (N == 1)
            act[0] = lr_ppo_act(p, obs, mask, true, logp, v);
        else
            lr_ppo_act_batch(p, N, obs, mask, true, act, logp, v);
        if (sp)
            t3 = cpu_s();
        bool full = false, end = ++ep_steps >= EPISODE;
        for (int e = 0; e < N; e++) {
            double rew = lr_jenv_step(envs[e], act[e]);
            full = lr_ppo_store(p, obs + (size_t) e * no,
                                mask + (size_t) e * na, act[e], logp[e],
                                v[e], rew, end);
        }
        if (sp)
            t4 = cpu_s();
        if (full) {
            for (int e = 0; e < N; e++) {
                lr_jenv_observe(envs[e], obs + (size_t) e * no);
                memcpy(mask + (size_t) e * na, lr_jenv_mask(envs[e]),
                       (size_t) na);
            }
            lr_ppo_act_batch(p, N, obs, mask, false, act, NULL, v);
            for (int e = 0; e < N; e++)
                if (end)
                    v[e] = 0;
            lr_ppo_update_envs(p, v, NULL);
        }
        if (end) {
            ep_steps = 0;
            episode++;
            for (int e = 0; e < N; e++)
                lr_jenv_reset(envs[e], seed * 1000003ULL
                              + (uint64_t) (episode * N + e), 0);
        }
        if (sp) {
            sp->observe += t2 - t1;
            sp->act += t3 - t2;
            sp->step += t4 - t3;
            sp->update += cpu_s() - t4;
        }
    }
    double rate = steps / (cpu_s() - t0);
    free(obs);
    free(mask);
    free(act);
    free(logp);
    free(v);
    lr_ppo_free(p);
    return rate;
}

/* Multiply-adds of one forward pass of an MLP in-64-64-out, and of its
 * backward pass (dW of every layer, dX of all but the first). */
static double
mlp_macs(int in, int out, double *bwd)
{
    double f = in * 64.0 + 64 * 64 + 64.0 * out;
    *bwd = f + 64 * 64 + 64.0 * out;
    return f;
}

/* The products of training, timed on one shape: C = A B^T (OpenBLAS's
 * NoTrans x Trans, the forward pass), dW = G^T H and dX = G W, with
 * OpenBLAS (dgemm or sgemm) or lr_gemm, the way lr_mlp calls it (the
 * forward pass reads W^T, transposed beforehand into rows padded to a
 * multiple of 32 as lr_mlp pads them). */
enum gemm_impl { GEMM_DGEMM, GEMM_SGEMM, GEMM_LR };
enum gemm_op { OP_FORWARD, OP_DW, OP_DX };

/* GFLOP/s of 'impl' doing 'op' for 'rows' samples through a layer of
 * 'in' inputs and 'out' outputs, median of 'runs'. */
static double
gemm_rate(enum gemm_impl impl, enum gemm_op op, int rows, int in, int out,
          int runs)
{
    int reps = 1 + 3000000 / (rows * in * out), ldt = (out + 31) / 32 * 32;
    size_t nh = (size_t) rows * in, nw = (size_t) ldt * in,
           ng = (size_t) rows * out;
    double *h = malloc(nh * sizeof *h), *w = malloc(nw * sizeof *w);
    double *g = malloc(ng * sizeof *g), *c = calloc(nh + nw + ng, sizeof *c);
    float *hf = malloc(nh * sizeof *hf), *wf = malloc(nw * sizeof *wf);
    float *wt = calloc(nw, sizeof *wt), *gf = malloc(ng * sizeof *gf);
    float *cf = calloc(nh + nw + ng, sizeof *cf);
    if (!h || !w || !g || !c || !hf || !wf || !wt || !gf || !cf)
        exit(1);
    for (size_t i = 0; i < nh; i++)
        hf[i] = (float) (h[i] = (int) (i % 7) * 0.1 - 0.3);
    for (size_t i = 0; i < nw; i++)
        wf[i] = (float) (w[i] = (int) (i % 5) * 0.1 - 0.2);
    for (size_t i = 0; i < ng; i++)
        gf[i] = (float) (g[i] = (int) (i % 3) * 0.01 - 0.01);
    for (int o = 0; o < out; o++)
        for (int k = 0; k < in; k++)
            wt[(size_t) k * ldt + o] = wf[(size_t) o * in + k];
    double t[32];
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_s();
        for (int k = 0; k < reps; k++) {
            if (impl == GEMM_DGEMM && op == OP_FORWARD)
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows,
                            out, in, 1.0, h, in, w, in, 1.0, c, out);
            else if (impl == GEMM_DGEMM && op == OP_DW)
                cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in,
                            rows, 1.0, g, out, h, in, 0.0, c, in);
            else if (impl == GEMM_DGEMM)
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows,
                            in, out, 1.0, g, out, w, in, 0.0, c, in);
            else if (impl == GEMM_SGEMM && op == OP_FORWARD)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows,
                            out, in, 1.0f, hf, in, wf, in, 1.0f, cf, out);
            else if (impl == GEMM_SGEMM && op == OP_DW)
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in,
                            rows, 1.0f, gf, out, hf, in, 0.0f, cf, in);
            else if (impl == GEMM_SGEMM)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows,
                            in, out, 1.0f, gf, out, wf, in, 0.0f, cf, in);
            else if (op == OP_FORWARD)
                lr_gemm(rows, out, in, hf, (size_t) in, 1, wt, (size_t) ldt,
                        ldt, cf, (size_t) out, true);
            else if (op == OP_DW)
                lr_gemm(out, in, rows, gf, 1, (size_t) out, hf, (size_t) in,
                        in, cf, (size_t) in, false);
            else
                lr_gemm(rows, in, out, gf, (size_t) out, 1, wf, (size_t) in,
                        in, cf, (size_t) in, false);
        }
        t[r] = (cpu_s() - t0) / reps;
    }
    double rate = 2.0 * rows * in * out / lr_stats_median(t, runs) / 1e9;
    free(h);
    free(w);
    free(g);
    free(c);
    free(hf);
    free(wf);
    free(wt);
    free(gf);
    free(cf);
    return rate;
}

/* Section 5: OpenBLAS's sgemm against lr_gemm on every product of a
 * training step of an MLP n_obs-64-64-n_act (the critic's head, 64 x 1,
 * left out: under 1% of the FLOPs), a minibatch of 128 rows (the update)
 * and the forward pass on 16 (acting in lockstep). */
static void
bench_products(const char *name, int n_obs, int n_act, int runs)
{
    static const char *const op_name[] = { "forward", "dW", "dX" };
    int layers[3][2] = { { n_obs, 64 }, { 64, 64 }, { 64, n_act } };
    for (int l = 0; l < 3; l++)
        for (int op = OP_FORWARD; op <= OP_DX; op++)
            for (int rows = 128; rows >= 16; rows /= 8) {
                if (rows == 16 && op != OP_FORWARD)
                    continue;
                if (l == 0 && op == OP_DX)
                    continue;           /* no dX for the input */
                int in = layers[l][0], out = layers[l][1];
                double s = gemm_rate(GEMM_SGEMM, op, rows, in, out, runs);
                double g = gemm_rate(GEMM_LR, op, rows, in, out, runs);
                printf("| %s | %d x %d -> %d | %s | %.1f | %.1f | %.2fx |\n",
                       name, rows, in, out, op_name[op], s, g, g / s);
            }
}

static void
bench_train(const char *name, struct setup *s, int runs, long steps)
{
    static const int ns[] = { 1, 4, 8, 16, 32, 64 };
    enum { N_NS = sizeof ns / sizeof ns[0], DEFAULT_N = 16 };
    struct lr_jenv *envs[64];
    envs[0] = s->env;
    for (int e = 1; e < 64; e++)
        if (lr_jenv_clone(s->env, &envs[e]))
            exit(1);
    double rate[32], per_sample, batched[N_NS];
    struct split sp = { 0 };
    for (int r = 0; r < runs; r++)
        rate[r] = train_run(envs, 1, true, (uint64_t) r + 1, steps, NULL);
    per_sample = lr_stats_median(rate, runs);
    for (int k = 0; k < N_NS; k++) {
        for (int r = 0; r < runs; r++)
            rate[r] = train_run(envs, ns[k], false, (uint64_t) r + 1, steps,
                                ns[k] == DEFAULT_N ? &sp : NULL);
        batched[k] = lr_stats_median(rate, runs);
    }
    printf("| %s | %.0f |", name, per_sample);
    for (int k = 0; k < N_NS; k++)
        printf(" %.0f |", batched[k]);
    double all = sp.observe + sp.act + sp.step + sp.update;
    printf(" %.0f / %.0f / %.0f / %.0f%% |", 100 * sp.observe / all,
           100 * sp.act / all, 100 * sp.step / all, 100 * sp.update / all);
    double ba, bc;
    int no = lr_jenv_obs_size(s->env), na = lr_jenv_n_actions(s->env);
    double fa = mlp_macs(no, na, &ba), fc = mlp_macs(no, 1, &bc);
    double flops = 2 * (fa + fc + 4 * (fa + fc + ba + bc));
    double gd = gemm_rate(GEMM_DGEMM, OP_FORWARD, 128, no, 64, runs),
           gs = gemm_rate(GEMM_LR, OP_FORWARD, 128, no, 64, runs);
    printf(" %.0f k | %.1f | %.0f | %.1f | %.0f |\n", flops / 1e3, gd,
           gd * 1e9 / flops, gs, gs * 1e9 / flops);
    fflush(stdout);
    for (int e = 1; e < 64; e++)
        lr_jenv_free(envs[e]);
}

/* The split of an imitation run, seconds. */
struct isplit {
    double act, label, step, fit;
};

/* One imitation run of 'states' decisions over 16 environments, as
 * cmd_train.c's imitate() runs it with greedy as the teacher; returns
 * the states per second, the split in *sp. */
static double
imitate_run(struct lr_jenv **envs, uint64_t seed, long states,
            struct isplit *sp)
{
    enum { N = 16, EPISODE = 5000 };
    struct lr_jenv *e0 = envs[0];
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, lr_jenv_obs_size(e0), lr_jenv_n_actions(e0));
    pc.gamma = 0.5;
    pc.seed = seed;
    pc.n_envs = N;
    struct lr_ppo *p = NULL;
    struct lr_ppo_imitate *im = NULL;
    struct lr_ppo_imitate_config ic = {
        .capacity = 32768, .segment = 4096, .n_envs = N, .minibatch = 256,
        .gamma = 0.5, .seed = seed,
    };
    int no = pc.n_obs, na = pc.n_act;
    if (lr_ppo_new(&pc, &p) || lr_ppo_imitate_new(no, na, &ic, &im))
        exit(1);
    float *obs = malloc((size_t) N * no * sizeof *obs);
    uint8_t *mask = malloc((size_t) N * na);
    int *sa = malloc(N * sizeof *sa), ta[N];
    double v[N];
    long ep_steps = 0, episode = 0;
    int seg = 0;
    struct lr_rng trng;
    lr_rng_seed(&trng, seed);
    if (!obs || !mask || !sa)
        exit(1);
    for (int e = 0; e < N; e++)
        lr_jenv_reset(envs[e], seed * 1000003ULL + (uint64_t) e, 0);
    memset(sp, 0, sizeof *sp);
    double t0 = cpu_s();
    for (long i = 0; i < states; i += N) {
        double t1 = cpu_s();
        for (int e = 0; e < N; e++) {
            lr_jenv_observe(envs[e], obs + (size_t) e * no);
            memcpy(mask + (size_t) e * na, lr_jenv_mask(envs[e]), (size_t) na);
        }
        lr_ppo_act_batch(p, N, obs, mask, false, sa, NULL, NULL);
        double t2 = cpu_s();
        for (int e = 0; e < N; e++)
            ta[e] = lr_jenv_greedy.choose(NULL, envs[e],
                                          mask + (size_t) e * na, &trng);
        double t3 = cpu_s();
        bool full = false, end = ++ep_steps >= EPISODE;
        for (int e = 0; e < N; e++) {
            double rew = lr_jenv_step(envs[e], seg ? sa[e] : ta[e]);
            full = lr_ppo_imitate_store(im, obs + (size_t) e * no,
                                        mask + (size_t) e * na, ta[e], rew,
                                        end);
        }
        double t4 = cpu_s();
        if (full) {
            for (int e = 0; e < N; e++) {
                lr_jenv_observe(envs[e], obs + (size_t) e * no);
                memcpy(mask + (size_t) e * na, lr_jenv_mask(envs[e]),
                       (size_t) na);
            }
            lr_ppo_act_batch(p, N, obs, mask, false, sa, NULL, v);
            lr_ppo_imitate_close(im, v);
            if (lr_ppo_imitate_fit(im, p, 4, 3e-3, true, NULL))
                exit(1);
            seg++;
        }
        if (end) {
            ep_steps = 0;
            episode++;
            for (int e = 0; e < N; e++)
                lr_jenv_reset(envs[e], seed * 1000003ULL
                              + (uint64_t) (episode * N + e), 0);
        }
        sp->act += t2 - t1;
        sp->label += t3 - t2;
        sp->step += t4 - t3;
        sp->fit += cpu_s() - t4;
    }
    double rate = states / (cpu_s() - t0);
    free(obs);
    free(mask);
    free(sa);
    lr_ppo_imitate_free(im);
    lr_ppo_free(p);
    return rate;
}

static void
bench_imitate(const char *name, struct setup *s, int runs, long states)
{
    struct lr_jenv *envs[16];
    envs[0] = s->env;
    for (int e = 1; e < 16; e++)
        if (lr_jenv_clone(s->env, &envs[e]))
            exit(1);
    double rate[32], sorted[32];
    struct isplit sp[32];
    for (int r = 0; r < runs; r++)
        rate[r] = imitate_run(envs, (uint64_t) r + 1, states, &sp[r]);
    double med = lr_stats_median(rate, runs);
    memcpy(sorted, rate, (size_t) runs * sizeof *rate);
    qsort(sorted, (size_t) runs, sizeof *sorted, cmp_double);
    int m = 0;
    for (int r = 0; r < runs; r++)
        if (fabs(rate[r] - med) < fabs(rate[m] - med))
            m = r;
    double all = sp[m].act + sp[m].label + sp[m].step + sp[m].fit;
    printf("| %s | %.0f | %.0f | %.0f | %.0f / %.0f / %.0f / %.0f%% |\n",
           name, med, sorted[0], sorted[runs - 1], 100 * sp[m].act / all,
           100 * sp[m].label / all, 100 * sp[m].step / all,
           100 * sp[m].fit / all);
    fflush(stdout);
    for (int e = 1; e < 16; e++)
        lr_jenv_free(envs[e]);
}

/* A random state for lightraild's decision (3b, 3c): eight blocks of 3
 * to 9 slots tried on every link of 'sp', random GPUs used per DC, a
 * random job class (model, demand). */
static void
random_state(const struct setup *s, struct lr_rng *rng,
             struct lr_spectrum *sp, int *used, int *mi, int *di)
{
    lr_spectrum_reset(sp);
    for (int l = 0; l < s->in.topo->n_links; l++)
        for (int b = 0; b < 8; b++) {
            int m = 3 + (int) lr_rng_below(rng, 7);
            int n = s->in.topo->links[l].n_slots - m;
            if (n > 0)
                lr_spectrum_alloc(sp, &l, 1,
                                  (int) lr_rng_below(rng, (uint32_t) n), m);
        }
    for (int d = 0; d < s->in.cl->n_dcs; d++)
        used[d] = (int) lr_rng_below(rng, (uint32_t)
                                     s->in.cl->dcs[d].n_devices + 1);
    *mi = (int) lr_rng_below(rng, 3);
    *di = (int) lr_rng_below(rng, 3);
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
        double t0 = cpu_s();
        for (long i = 0; i < steps; i++)
            lr_jenv_step(e, lr_jenv_random.choose(NULL, e, lr_jenv_mask(e),
                                                  &rng));
        rate[r] = steps / (cpu_s() - t0);
    }
    double env_rate = lr_stats_median(rate, runs);
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, lr_jenv_obs_size(e), lr_jenv_n_actions(e));
    float *obs = malloc((size_t) pc.n_obs * sizeof *obs);
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
    struct lr_spectrum *sp = lr_spectrum_new(s->in.topo);
    if (!sp)
        exit(1);
    lr_rng_seed(&rng, 99);
    int used[LR_JENV_MAX_DCS];
    char err[256];
    for (int i = 0; i < decisions; i++) {
        int mi, di;
        random_state(s, &rng, sp, used, &mi, &di);
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
    double lmed = lat[decisions / 2], lp99 = lat[decisions * 99 / 100];
    /* 3c. The same with a policy trained with known work, as
     * lr_ctl_ppo_prepare() and _choose() make it: mirror, present the
     * class, read T_ref, present it again with X = iterations x T_ref / 3600,
     * observe (one feature more), act; the same states (seed 99) with
     * iterations drawn in [1000, 101000). */
    struct lr_jenv_config kc = s->in.cfg;
    struct lr_jenv *ek = NULL;
    kc.known_work = true;
    if (lr_jenv_new(s->in.topo, s->in.cl, &kc, &ek, err, sizeof err))
        exit(1);
    struct lr_ppo_config kpc;
    lr_ppo_defaults(&kpc, lr_jenv_obs_size(ek), lr_jenv_n_actions(ek));
    kpc.seed = 1;
    struct lr_ppo *pk = NULL;
    float *kobs = malloc((size_t) kpc.n_obs * sizeof *kobs);
    if (!kobs || lr_ppo_new(&kpc, &pk))
        exit(1);
    lr_rng_seed(&rng, 99);
    for (int i = 0; i < decisions; i++) {
        int mi, di;
        random_state(s, &rng, sp, used, &mi, &di);
        double iters = 1000 + lr_rng_below(&rng, 100000);
        double t0 = now_s();
        if (lr_jenv_set_state(ek, used, sp->occ, sp->nw, err, sizeof err))
            exit(1);
        if (lr_jenv_present(ek, mi, di) > 0
            && !lr_jenv_set_job_work(ek, iters * lr_jenv_job_tref(ek)
                                         / 3600)) {
            lr_jenv_observe(ek, kobs);
            lr_ppo_act(pk, kobs, lr_jenv_mask(ek), false, NULL, NULL);
        }
        lat[i] = now_s() - t0;
    }
    qsort(lat, (size_t) decisions, sizeof *lat, cmp_double);
    printf("| %s | %d | %d | %.0f | %.1f us | %.1f us | %.1f us | "
           "%.1f us | %.1f us | %.1f us |\n", name, lr_jenv_n_actions(e),
           lr_jenv_obs_size(e), env_rate, med * 1e6, p99 * 1e6, lmed * 1e6,
           lp99 * 1e6, lat[decisions / 2] * 1e6,
           lat[decisions * 99 / 100] * 1e6);
    fflush(stdout);
    lr_ppo_free(pk);
    free(kobs);
    lr_jenv_free(ek);
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
bench_decode(const char *name, const struct setup *s, int runs)
{
    enum { REPS = 200 };
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, lr_jenv_obs_size(s->env), lr_jenv_n_actions(s->env));
    c.seed = 9;
    struct lr_ppo *p = NULL;
    if (lr_ppo_new(&c, &p))
        exit(1);
    size_t len = lr_ppo_encoded_size(p);
    uint8_t *buf = malloc(len);
    if (!buf || lr_ppo_encode(p, buf, len) != len)
        exit(1);
    lr_ppo_free(p);
    double t_new[32], t_old[32];
    char err[256];
    for (int run = 0; run < runs; run++) {
        double t0 = cpu_s();
        for (int k = 0; k < REPS; k++) {
            if (lr_ppo_decode(buf, len, &p, err, sizeof err)) {
                fprintf(stderr, "lr-bench-ppo: %s\n", err);
                exit(1);
            }
            lr_ppo_free(p);
        }
        t_new[run] = (cpu_s() - t0) / REPS;
        t0 = cpu_s();
        for (int k = 0; k < REPS; k++) {
            if (lr_ppo_decode(buf, len, &p, err, sizeof err))
                exit(1);
            struct lr_rng r;
            lr_rng_seed(&r, c.seed);
            lr_mlp_init(p->actor, &r, 0.01);
            lr_mlp_init(p->critic, &r, 1.0);
            lr_ppo_free(p);
        }
        t_old[run] = (cpu_s() - t0) / REPS;
    }
    double a = lr_stats_median(t_new, runs), b = lr_stats_median(t_old, runs);
    printf("| %s (%d-64-64-%d) | %zu | %.1f us | %.1f us | %.2f |\n", name,
           c.n_obs, c.n_act, len, a * 1e6, b * 1e6, b / a);
    free(buf);
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
        double t0 = cpu_s();
        for (int k = 0; k < REPS; k++)
            for (int s = 0; s < BATCH; s++)
                loop_forward(m, x + (size_t) s * n_obs,
                             y + (size_t) s * n_act, h1, h2);
        t_loop[run] = (cpu_s() - t0) / (REPS * BATCH);
        t0 = cpu_s();
        for (int k = 0; k < REPS; k++)
            for (int s = 0; s < BATCH; s++)
                blas_forward(m, 1, x + (size_t) s * n_obs,
                             yb + (size_t) s * n_act, h1, h2);
        t_gemv[run] = (cpu_s() - t0) / (REPS * BATCH);
        t0 = cpu_s();
        for (int k = 0; k < REPS; k++)
            blas_forward(m, BATCH, x, yb, h1, h2);
        t_gemm[run] = (cpu_s() - t0) / (REPS * BATCH);
    }
    for (int i = 0; i < BATCH * n_act; i++)
        diff = fmax(diff, fabs(y[i] - yb[i]));
    printf("| %s (%d-64-64-%d) | %.2f us | %.2f us | %.2f us | %.1e |\n",
           name, n_obs, n_act, lr_stats_median(t_loop, runs) * 1e6,
           lr_stats_median(t_gemv, runs) * 1e6,
           lr_stats_median(t_gemm, runs) * 1e6, diff);
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
    bool train_only = false, imitate_only = false, decode_only = false;
    static const struct option longopts[] = {
        { "metro", required_argument, NULL, 'm' },
        { "metro-cluster", required_argument, NULL, 'M' },
        { "nsfnet", required_argument, NULL, 'n' },
        { "nsfnet-cluster", required_argument, NULL, 'N' },
        { "runs", required_argument, NULL, 'r' },
        { "steps", required_argument, NULL, 's' },
        { "train-only", no_argument, NULL, 't' },
        { "imitate-only", no_argument, NULL, 'i' },
        { "decode-only", no_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-ppo", longopts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'm': mt = optarg; break;
        case 'M': mc = optarg; break;
        case 'n': nt = optarg; break;
        case 'N': nc = optarg; break;
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, 32, &runs);
            break;
        case 's':
            bad = bench_opt_long(PROG, "steps", optarg, 1000, LONG_MAX,
                                 &steps);
            break;
        case 't': train_only = true; break;
        case 'i': imitate_only = true; break;
        case 'd': decode_only = true; break;
        case 'h':
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: lr-bench-ppo --metro T --metro-cluster C "
                    "--nsfnet T --nsfnet-cluster C [--runs R] [--steps N] "
                    "[--train-only | --imitate-only | --decode-only]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (bad)
        return bad;
    if (!mt || !mc || !nt || !nc) {
        fprintf(stderr, "lr-bench-ppo: give --metro, --metro-cluster, "
                "--nsfnet, --nsfnet-cluster\n");
        return 2;
    }
    openblas_set_num_threads(1);
    struct ly_ctx *ctx = NULL;
    char err[1024];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "lr-bench-ppo: %s\n", err);
        return 1;
    }
    long train_steps = steps / 4 > 8192 ? steps / 4 : 8192;
    train_steps -= train_steps % 64;
    printf("# lr-bench-ppo: %d runs, %ld env steps per run (training: %ld); "
           "load 2.5 E metro, 7 E NSFNET; OpenBLAS core %s, one thread; rates "
           "per second of this thread's CPU time, latencies wall clock\n",
           runs, steps, train_steps, openblas_get_corename());
    if (!imitate_only && !decode_only)
        printf("| case | actions | observation | env steps/s (random) | "
               "decision median | decision p99 | "
               "lightraild decision median | lightraild decision p99 | "
               "known-work decision median | known-work decision p99 |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    struct setup s, t;
    if (open_setup(ctx, mt, mc, 2.5, &s) || open_setup(ctx, nt, nc, 7, &t))
        return 1;
    long im_states = steps / 4 > 16384 ? steps / 4 : 16384;
    if (decode_only)
        goto decode;
    if (imitate_only)
        goto imitation;
    if (!train_only) {
        bench("metro, 3 DCs", &s, runs, steps, 20000);
        bench("NSFNET, 6 DCs", &t, runs, steps, 20000);
    }
    printf("\n# training: env steps/s, everything included; per-sample "
           "update with 1 env (before), batched with N envs in lockstep; "
           "split at N = 16 (observe / act / step+store / update); "
           "FLOPs per env step, dgemm and lr_gemm GFLOP/s of the first "
           "layer's shape, and the ceilings they give (FLOPs at that rate, "
           "nothing else); the per-sample update is double, the batched "
           "one single precision (lr_mlp.h)\n"
           "| case | per-sample, N = 1 | N = 1 | N = 4 | N = 8 | N = 16 | "
           "N = 32 | N = 64 | split at N = 16 | FLOPs/step | dgemm GFLOP/s "
           "| ceiling (dgemm) | lr_gemm GFLOP/s | ceiling (lr_gemm) |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:"
           "|---:|---:|\n");
    bench_train("metro, 3 DCs", &s, runs, train_steps);
    bench_train("NSFNET, 6 DCs", &t, runs, train_steps);
imitation:
    printf("\n# imitation of greedy (DAgger, lr_ppo_imitate): labelled "
           "states/s of %ld-state runs, everything included, 16 envs; "
           "median, min, max of R; split at the median run: observe+act / "
           "label / step+store / fit\n"
           "| case | states/s | min | max | split |\n"
           "|---|---:|---:|---:|---|\n", im_states);
    bench_imitate("metro, 3 DCs", &s, runs, im_states);
    bench_imitate("NSFNET, 6 DCs", &t, runs, im_states);
decode:
    printf("\n# loading a policy: CPU time of one lr_ppo_decode, median "
           "of R runs of 200; beside it the decode plus the orthogonal "
           "initialisation of both networks it ran and overwrote before "
           "2026-12-07\n"
           "| agent | bytes | decode | decode + init (before) | ratio |\n"
           "|---|---:|---:|---:|---:|\n");
    bench_decode("metro, 3 DCs", &s, runs);
    bench_decode("NSFNET, 6 DCs", &t, runs);
    close_setup(&s);
    close_setup(&t);
    if (train_only || imitate_only || decode_only) {
        lr_yang_ctx_free(ctx);
        return 0;
    }
    printf("\n# actor forward pass per sample: plain loops, OpenBLAS "
           "dgemv (1 sample), OpenBLAS dgemm (128 samples), one thread; "
           "largest difference of the outputs\n"
           "| actor | loops | dgemv | dgemm x128 | max diff |\n"
           "|---|---:|---:|---:|---:|\n");
    bench_blas("metro", 120, 57, runs);
    bench_blas("NSFNET, 6 DCs", 504, 276, runs);
    printf("\n# the float products of training: OpenBLAS sgemm (core %s, "
           "one thread) against lr_gemm, GFLOP/s of this thread's CPU "
           "time, median of R\n"
           "| case | shape (rows x in -> out) | product | sgemm | lr_gemm "
           "| ratio |\n|---|---|---|---:|---:|---:|\n",
           openblas_get_corename());
    bench_products("metro", 120, 57, runs);
    bench_products("NSFNET, 6 DCs", 504, 276, runs);
    lr_yang_ctx_free(ctx);
    return 0;
}
