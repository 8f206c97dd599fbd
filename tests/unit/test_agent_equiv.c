/*
 * test_agent_equiv: distributed CDynP over real agents equals CDynP in
 * one process, on the random instances of planner/lr_instance.h.
 * Driven by tests/cli/agent.sh, which makes the certificates:
 *
 *     test_agent_equiv LIGHTRAIL CERTDIR WORKDIR FIRST_SEED N_SEEDS
 *
 * For each seed: every DC of the instance gets a lightrail-agent file
 * with its private inventory and its own `lightrail agent` process on
 * 127.0.0.1 (a fresh one per seed: the inventory is read at start, and
 * the test wants nothing but the product's own way of learning it); the
 * coordinator plans with lr_cdynp_plan_parties() over agent parties
 * (the head DC in this process on odd seeds, to mix both kinds), and the
 * same instance is planned by lr_cdynp_plan() in this process.  The two
 * T must agree within a relative 1e-9, or both find no plan.
 *
 * The agent files hold decimals to a thousandth (lightrail-agent's
 * types); the in-process instance is given the same rounded figures,
 * converted as the loader converts them, so both sides plan the same
 * inventory.
 *
 * With a sixth argument "tight", each instance is made as
 * lr_test_tight_instance() (tests/unit/lr_test_tight.h) makes it
 * (activations 10..10^4 times heavier, device memory x 0.05..1.05), where CDynP's last try, one
 * stage per DC, goes over the wire (agent.sh finds it in the records).
 *
 * Every agent records what it receives (--record WORKDIR/seed-S-dcK.jsonl)
 * for the privacy checks of agent.sh.  Prints "ok: ..." or "FAIL: ..."
 * per seed; exits 1 on any failure.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "controller/lr_agent_party.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_instance.h"
#include "planner/lr_rng.h"

static const char *lightrail, *certdir, *workdir;
static bool tight;

static void
sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* 'v' as the agent file writes it (to a thousandth), read back as the
 * loader reads it, times 'unit'. */
static double
rounded(double v, char *text, size_t len, double unit)
{
    snprintf(text, len, "%.3f", v / unit);
    return strtod(text, NULL) * unit;
}

/* Writes DC k's agent file and rounds the instance's figures to it. */
static int
write_agent_file(struct lr_cluster *c, int k, const char *path)
{
    struct lr_dc *dc = &c->dcs[k];
    struct lr_device_type *t = &c->types[dc->device_type];
    char peak[64], eff[64], mem[64], bw[64], lat[64];
    /* A type may serve several DCs: rounding is idempotent. */
    t->peak_flops = rounded(t->peak_flops, peak, sizeof peak, 1e12);
    t->efficiency = rounded(t->efficiency, eff, sizeof eff, 1);
    t->memory_bytes = rounded(t->memory_bytes, mem, sizeof mem, 1e9);
    dc->intra_bw = rounded(dc->intra_bw, bw, sizeof bw, 1e9);
    dc->intra_latency = rounded(dc->intra_latency, lat, sizeof lat, 1e-6);
    FILE *f = fopen(path, "w");
    if (!f)
        return errno;
    fprintf(f,
            "{\"lightrail-agent:agent\": {\"dc\": \"%s\",\n"
            " \"device-type\": {\"peak-tflops\": \"%s\", \"efficiency\": "
            "\"%s\", \"memory-gb\": \"%s\"},\n"
            " \"device-count\": %d,\n"
            " \"intra-dc-bandwidth-gbytes-per-s\": \"%s\",\n"
            " \"intra-dc-latency-us\": \"%s\",\n"
            " \"tls\": {\"certificate\": \"%s/dc%d.pem\", \"key\": "
            "\"%s/dc%d.key\", \"ca\": \"%s/ca.pem\", \"peer-name\": "
            "[\"coordinator\"]}}}\n",
            dc->name, peak, eff, mem, dc->n_devices, bw, lat, certdir, k + 1,
            certdir, k + 1, certdir);
    return fclose(f) ? errno : 0;
}

/* Starts an agent; returns its PID and its port in '*port', or -1. */
static pid_t
start_agent(const char *config, const char *state, const char *record,
            const char *log, int *port)
{
    char portfile[2048];
    snprintf(portfile, sizeof portfile, "%s/agent.port", state);
    unlink(portfile);
    mkdir(state, 0700);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(log, "a", stderr))
            _exit(127);
        execl(lightrail, lightrail, "agent", "--config", config, "--listen",
              "127.0.0.1:0", "--state-dir", state, "--record", record,
              (char *) NULL);
        _exit(127);
    }
    /* Sanitizer builds start slowly: up to 30 s. */
    for (int i = 0; i < 3000; i++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            int ok = fscanf(f, "%d", port) == 1;
            fclose(f);
            if (ok)
                return pid;
        }
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return -1;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* SIGTERM and wait; false when the agent did not exit 0 (a sanitizer
 * report, for one). */
static bool
stop_agent(pid_t pid)
{
    int st = 0;
    kill(pid, SIGTERM);
    if (waitpid(pid, &st, 0) != pid)
        return false;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* One seed: 0 when both agree, 1 when they differ or something broke. */
static int
run_seed(uint64_t seed)
{
    struct lr_instance in;
    struct lr_tm *tm = NULL;
    struct lr_cdynp_party *parties[LR_TM_MAX_DCS] = { NULL };
    pid_t pids[LR_TM_MAX_DCS];
    int n_pids = 0, bad = 1;
    struct lr_plan *plan = malloc(sizeof *plan);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_cdynp_result *res = malloc(sizeof *res);
    char path[1024], state[1024], record[1024], log[1024], err[1024];

    if (!plan || !ev || !res || lr_instance_random(seed, &in)) {
        printf("FAIL: seed %llu: out of memory\n", (unsigned long long) seed);
        free(plan);
        free(ev);
        free(res);
        return 1;
    }
    const int K = in.cluster->n_dcs;
    struct lr_model *heavy = NULL;
    if (tight) {
        struct lr_rng r;
        struct lr_layer layers[16];   /* lr_instance.h: at most 10 */
        lr_rng_seed(&r, seed * 7919);
        double ascale = pow(10, 1 + 3 * lr_rng_uniform(&r));
        for (int l = 0; l < in.model->n_layers && l < 16; l++) {
            layers[l] = in.model->layers[l];
            layers[l].act *= ascale;
        }
        double mscale = 0.05 + lr_rng_uniform(&r);
        for (int t = 0; t < in.cluster->n_types; t++)
            in.cluster->types[t].memory_bytes *= mscale;
        if (in.model->n_layers > 16
            || lr_model_from_layers("heavy", layers, in.model->n_layers,
                                    &heavy)) {
            printf("FAIL: seed %llu: out of memory\n",
                   (unsigned long long) seed);
            goto cleanup;
        }
    }
    for (int k = 0; k < K; k++) {
        snprintf(path, sizeof path, "%s/seed-%llu-dc%d.json", workdir,
                 (unsigned long long) seed, k + 1);
        if (write_agent_file(in.cluster, k, path)) {
            printf("FAIL: seed %llu: cannot write %s\n",
                   (unsigned long long) seed, path);
            goto cleanup;
        }
    }
    if (lr_tm_new(heavy ? heavy : in.model, in.cluster, &in.train, &tm)) {
        printf("FAIL: seed %llu: lr_tm_new\n", (unsigned long long) seed);
        goto cleanup;
    }
    enum lr_tm_why why_local = lr_cdynp_plan(tm, NULL, plan, ev);

    for (int k = 0; k < K; k++) {
        if (seed % 2 && k == 0) {
            parties[k] = lr_cdynp_local_party_new(tm, k);
            continue;
        }
        int port = 0;
        snprintf(path, sizeof path, "%s/seed-%llu-dc%d.json", workdir,
                 (unsigned long long) seed, k + 1);
        snprintf(state, sizeof state, "%s/state-dc%d", workdir, k + 1);
        snprintf(record, sizeof record, "%s/seed-%llu-dc%d.jsonl", workdir,
                 (unsigned long long) seed, k + 1);
        snprintf(log, sizeof log, "%s/agent-dc%d.log", workdir, k + 1);
        pid_t pid = start_agent(path, state, record, log, &port);
        if (pid < 0) {
            printf("FAIL: seed %llu: agent dc%d did not start (see %s)\n",
                   (unsigned long long) seed, k + 1, log);
            goto cleanup;
        }
        pids[n_pids++] = pid;
        char cert[1024], key[1024], ca[1024];
        snprintf(cert, sizeof cert, "%s/coordinator.pem", certdir);
        snprintf(key, sizeof key, "%s/coordinator.key", certdir);
        snprintf(ca, sizeof ca, "%s/ca.pem", certdir);
        char name[16];
        snprintf(name, sizeof name, "dc%d", k + 1);
        parties[k] = lr_agent_party_new("127.0.0.1", port, name, cert, key,
                                        ca, NULL, 30, err, sizeof err);
        if (!parties[k]) {
            printf("FAIL: seed %llu: %s\n", (unsigned long long) seed, err);
            goto cleanup;
        }
        lr_agent_party_set_job(parties[k], tm);
    }
    for (int k = 0; k < K; k++)
        if (!parties[k]) {
            printf("FAIL: seed %llu: out of memory\n",
                   (unsigned long long) seed);
            goto cleanup;
        }
    lr_agent_parties_connect(parties, K);
    int perr = 0;
    struct lr_cdynp_view view = lr_cdynp_view_of(tm);
    enum lr_tm_why why_dist = lr_cdynp_plan_parties(&view, parties, NULL, res,
                                                    NULL, &perr);
    if (perr) {
        const char *why = NULL;
        for (int k = 0; k < K && !why; k++)
            if (lr_agent_party_is(parties[k]))
                why = lr_agent_party_error(parties[k]);
        printf("FAIL: seed %llu: a party failed: %s\n",
               (unsigned long long) seed, why ? why : strerror(perr));
        goto cleanup;
    }
    if (why_local != LR_TM_OK || why_dist != LR_TM_OK) {
        if (why_local != why_dist && !(why_local != LR_TM_OK
                                       && why_dist != LR_TM_OK)) {
            printf("FAIL: seed %llu: in process %s, distributed %s\n",
                   (unsigned long long) seed, lr_tm_why_str(why_local),
                   lr_tm_why_str(why_dist));
            goto cleanup;
        }
        printf("ok: seed %llu: %d DC(s), no plan either way\n",
               (unsigned long long) seed, K);
        bad = 0;
        goto cleanup;
    }
    double d = fabs(res->T - ev->T), tol = 1e-9 * fmax(res->T, ev->T);
    if (!(d <= tol)) {
        printf("FAIL: seed %llu: T in process %.17g, distributed %.17g\n",
               (unsigned long long) seed, ev->T, res->T);
        goto cleanup;
    }
    /* The chain that won, committed as lightraild commits it: each
     * agent lays out as many stages as its FINISH did (under a _BOUND
     * objective, the count COMMIT carries).  A DC in this process (odd
     * seeds' first) has nothing to commit. */
    for (int i = 0; i < res->n_dcs; i++) {
        if (!lr_agent_party_is(parties[res->dc[i]]))
            continue;
        int n_stages = -1, rc = lr_agent_party_commit(
            parties[res->dc[i]], res->objective, res->assumed,
            res->first[i], res->last[i], res->n_stages[i], "equiv",
            &n_stages);
        if (rc || n_stages != res->n_stages[i]) {
            const char *why = lr_agent_party_error(parties[res->dc[i]]);
            printf("FAIL: seed %llu: commit (%s) at DC %d: %s, %d stage(s) "
                   "where finish had %d\n", (unsigned long long) seed,
                   lr_wire_objective_name(res->objective), res->dc[i] + 1,
                   rc ? (why ? why : strerror(rc)) : "ok", n_stages,
                   res->n_stages[i]);
            goto cleanup;
        }
        /* The agents' state directories serve the next seeds: freed. */
        if ((rc = lr_agent_party_release(parties[res->dc[i]], "equiv"))) {
            printf("FAIL: seed %llu: release at DC %d: %s\n",
                   (unsigned long long) seed, res->dc[i] + 1, strerror(rc));
            goto cleanup;
        }
    }
    printf("ok: seed %llu: %d DC(s), %d layers, T %.9g s both ways "
           "(%s, committed)\n", (unsigned long long) seed, K,
           in.model->n_layers, res->T, lr_wire_objective_name(res->objective));
    bad = 0;

cleanup:
    for (int k = 0; k < K; k++)
        if (parties[k])
            parties[k]->cls->free(parties[k]);
    for (int i = 0; i < n_pids; i++)
        if (!stop_agent(pids[i])) {
            printf("FAIL: seed %llu: an agent did not stop cleanly (see "
                   "%s/agent-dc*.log)\n", (unsigned long long) seed, workdir);
            bad = 1;
        }
    lr_tm_free(tm);
    lr_model_free(heavy);
    lr_instance_free(&in);
    free(plan);
    free(ev);
    free(res);
    return bad;
}

int
main(int argc, char **argv)
{
    if ((argc != 6 && argc != 7) || (argc == 7 && strcmp(argv[6], "tight"))) {
        fprintf(stderr, "usage: test_agent_equiv LIGHTRAIL CERTDIR WORKDIR "
                "FIRST_SEED N_SEEDS [tight]\n");
        return 2;
    }
    tight = argc == 7;
    lightrail = argv[1];
    certdir = argv[2];
    workdir = argv[3];
    long first = strtol(argv[4], NULL, 10), n = strtol(argv[5], NULL, 10);
    signal(SIGPIPE, SIG_IGN);
    int failed = 0;
    for (long s = first; s < first + n; s++)
        failed += run_seed((uint64_t) s);
    printf("equivalence: %ld seeds, %d failed\n", n, failed);
    return failed ? 1 : 0;
}
