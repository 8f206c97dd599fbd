/*
 * lr-bench-netconf: how long a lightpath takes to provision on real
 * NETCONF ROADMs through the netconf driver (tools/bench/netconf.sh
 * starts four netconfd devices behind an sshd on 127.0.0.1 and runs
 * this).
 *
 *   lr-bench-netconf [--runs N] [--batch N] NAME=ADDRESS...
 *
 * The devices form one path; a lightpath is one media channel on each
 * (the first without an in-port, the last without an out-port), as
 * lr_ctl makes them.  Measured, with CLOCK_MONOTONIC around the driver
 * calls (sessions already open, as in lightraild):
 *   1. one lightpath added, device after device (serial), and all
 *      devices at once (sb_apply_parallel, as lr_ctl does), alternating,
 *      N times each; then removed the same way;
 *   2. a batch of B lightpaths added one after another (each in
 *      parallel over the devices), then removed;
 *   3. the same B lightpaths in one edit-config per device.
 * Prints medians (and p90, min, max) in milliseconds, per lightpath.
 * Also the time each device's open() took (connection, hello, schemas,
 * the first <get-config>).  NETCONF settings from SB_KEY,
 * SB_KNOWN_HOSTS, SB_SCHEMA_PATH, SB_TIMEOUT_MS as for the tests, and
 * over TLS SB_TRANSPORT=tls, SB_TLS_CERT, SB_TLS_KEY, SB_TLS_CA
 * (tools/bench/netconf_tls.sh; addresses HOST:PORT).  Exit 1 when a
 * device refuses.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "southbound/sb_driver.h"
#include "southbound/sb_parallel.h"
#include "planner/lr_util.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-netconf"

#define MAX_DEV 16

static struct sb_device *dev[MAX_DEV];
static double open_ms[MAX_DEV];
static char names[MAX_DEV][64];
static int n_dev;

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
env_copy(char *dst, size_t size, const char *name)
{
    const char *v = getenv(name);
    snprintf(dst, size, "%s", v ? v : "");
}

/* SB_TIMEOUT_MS, each session's timeout (0, the driver's default, when
 * unset), into '*out': 0, or 2 after saying why.  atoi() read "5s" as
 * 5 ms and "x" as the default. */
static int
env_timeout_ms(int *out)
{
    const char *v = getenv("SB_TIMEOUT_MS");
    long ms = 0;
    if (v && lr_parse_long(v, 0, INT_MAX, &ms)) {
        fprintf(stderr, PROG ": SB_TIMEOUT_MS wants a whole number of "
                "milliseconds from 0 to %d, not '%s'\n", INT_MAX, v);
        return 2;
    }
    *out = (int) ms;
    return 0;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void
row(const char *what, double *v, int n, double scale)
{
    qsort(v, (size_t) n, sizeof *v, cmp_d);
    printf("| %s | %.2f | %.2f | %.2f | %.2f | %d |\n", what,
           v[n / 2] * scale, v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1] * scale,
           v[0] * scale, v[n - 1] * scale, n);
}

/* The channel lightpath 'k' puts on device 'd'. */
static void
channel(int k, int d, enum sb_op op, struct sb_change *c)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    snprintf(c->mc.name, sizeof c->mc.name, "bench/lp%d", k);
    if (d > 0)
        snprintf(c->mc.in_port, sizeof c->mc.in_port, "%s-%s", names[d - 1],
                 names[d]);
    if (d < n_dev - 1)
        snprintf(c->mc.out_port, sizeof c->mc.out_port, "%s-%s", names[d],
                 names[d + 1]);
    c->mc.n = -600 + 8 * (k % 150);
    c->mc.m = 4;
    c->mc.enabled = true;
}

/* One lightpath 'k' (op) on every device; serial or parallel. */
static int
lightpath(int k, enum sb_op op, bool parallel)
{
    struct sb_change ch[MAX_DEV];
    struct sb_par_item it[MAX_DEV];

    memset(it, 0, sizeof it);
    for (int d = 0; d < n_dev; d++) {
        channel(k, d, op, &ch[d]);
        it[d] = (struct sb_par_item) { .cls = &sb_netconf_class,
                                       .dev = dev[d], .changes = &ch[d],
                                       .n = 1 };
    }
    if (parallel) {
        if (sb_apply_parallel(it, n_dev) == 0)
            return 0;
    } else {
        for (int d = 0; d < n_dev; d++)
            if ((it[d].rc = sb_netconf_class.apply(dev[d], &ch[d], 1,
                                                   it[d].err,
                                                   sizeof it[d].err)))
                break;
    }
    for (int d = 0; d < n_dev; d++)
        if (it[d].rc) {
            fprintf(stderr, "lr-bench-netconf: %s\n", it[d].err);
            return 1;
        }
    return 0;
}

int
main(int argc, char **argv)
{
    int runs = 50, batch = 100, rc = 0, c, bad = 0, timeout_ms = 0;
    static const struct option longopts[] = {
        { "runs", required_argument, NULL, 'r' },
        { "batch", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    /* Each option that takes a value at most once (lr_opt_once.h); "+"
     * stops at the first device, as the hand-made loop this replaced. */
    struct lr_opt_once once = { 0 };
    while (!bad
           && (c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-netconf", longopts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, INT_MAX, &runs);
            break;
        case 'b':
            bad = bench_opt_int(PROG, "batch", optarg, 1, 1000, &batch);
            break;
        case 'h':
            printf("usage: lr-bench-netconf [--runs N] [--batch N (1..1000)] "
                   "NAME=USER@HOST:PORT... (at most %d)\n", MAX_DEV);
            return 0;
        default: goto usage;
        }
    }
    if (bad)
        return bad;
    int i = optind;
    if (argc - i < 1 || argc - i > MAX_DEV)
        goto usage;
    if ((bad = env_timeout_ms(&timeout_ms)))
        return bad;
    for (; i < argc; i++) {
        struct sb_device_config cfg;
        char err[512];
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || eq - argv[i] >= 64)
            goto usage;
        memset(&cfg, 0, sizeof cfg);
        snprintf(names[n_dev], sizeof names[n_dev], "%.*s",
                 (int) (eq - argv[i]), argv[i]);
        snprintf(cfg.name, sizeof cfg.name, "%s", names[n_dev]);
        snprintf(cfg.driver, sizeof cfg.driver, "netconf");
        snprintf(cfg.address, sizeof cfg.address, "%s", eq + 1);
        snprintf(cfg.ssh_key, sizeof cfg.ssh_key, "%s",
                 getenv("SB_KEY") ? getenv("SB_KEY") : "");
        snprintf(cfg.known_hosts, sizeof cfg.known_hosts, "%s",
                 getenv("SB_KNOWN_HOSTS") ? getenv("SB_KNOWN_HOSTS") : "");
        snprintf(cfg.schema_path, sizeof cfg.schema_path, "%s",
                 getenv("SB_SCHEMA_PATH") ? getenv("SB_SCHEMA_PATH") : "");
        cfg.timeout_ms = timeout_ms;
        env_copy(cfg.transport, sizeof cfg.transport, "SB_TRANSPORT");
        env_copy(cfg.tls_cert, sizeof cfg.tls_cert, "SB_TLS_CERT");
        env_copy(cfg.tls_key, sizeof cfg.tls_key, "SB_TLS_KEY");
        env_copy(cfg.tls_ca, sizeof cfg.tls_ca, "SB_TLS_CA");
        double t0 = now_ms();
        int e = sb_netconf_class.open(&cfg, &dev[n_dev], err, sizeof err);
        open_ms[n_dev] = now_ms() - t0;
        if (e) {
            fprintf(stderr, "lr-bench-netconf: %s\n", err);
            rc = 1;
            goto cleanup;
        }
        n_dev++;
    }

    double *ser_add = calloc((size_t) runs, sizeof(double));
    double *par_add = calloc((size_t) runs, sizeof(double));
    double *ser_del = calloc((size_t) runs, sizeof(double));
    double *par_del = calloc((size_t) runs, sizeof(double));
    double *b_add = calloc((size_t) batch, sizeof(double));
    double *b_del = calloc((size_t) batch, sizeof(double));
    if (!ser_add || !par_add || !ser_del || !par_del || !b_add || !b_del) {
        fprintf(stderr, "lr-bench-netconf: out of memory\n");
        rc = 1;
        goto done;
    }
    /* Warm-up: sessions and caches as in a running daemon. */
    if (lightpath(0, SB_ADD, true) || lightpath(0, SB_DELETE, true)) {
        rc = 1;
        goto done;
    }
    for (int r = 0; r < runs && !rc; r++) {
        for (int par = 0; par < 2 && !rc; par++) {
            double t0 = now_ms();
            rc = lightpath(1, SB_ADD, par);
            double t1 = now_ms();
            rc = rc || lightpath(1, SB_DELETE, par);
            double t2 = now_ms();
            (par ? par_add : ser_add)[r] = t1 - t0;
            (par ? par_del : ser_del)[r] = t2 - t1;
        }
    }
    double tb0 = now_ms();
    for (int k = 0; k < batch && !rc; k++) {
        double t0 = now_ms();
        rc = lightpath(100 + k, SB_ADD, true);
        b_add[k] = now_ms() - t0;
    }
    double tb1 = now_ms();
    for (int k = 0; k < batch && !rc; k++) {
        double t0 = now_ms();
        rc = lightpath(100 + k, SB_DELETE, true);
        b_del[k] = now_ms() - t0;
    }
    double tb2 = now_ms();

    /* The batch in one edit per device, all devices at once. */
    double one_add = 0, one_del = 0;
    struct sb_change *ch = calloc((size_t) batch * MAX_DEV, sizeof *ch);
    struct sb_par_item it[MAX_DEV];
    if (!rc && ch) {
        for (int op = 0; op < 2 && !rc; op++) {
            memset(it, 0, sizeof it);
            for (int d = 0; d < n_dev; d++) {
                for (int k = 0; k < batch; k++)
                    channel(1000 + k, d, op ? SB_DELETE : SB_ADD,
                            &ch[(size_t) d * batch + k]);
                it[d] = (struct sb_par_item) {
                    .cls = &sb_netconf_class, .dev = dev[d],
                    .changes = &ch[(size_t) d * batch], .n = batch };
            }
            double t0 = now_ms();
            if (sb_apply_parallel(it, n_dev)) {
                for (int d = 0; d < n_dev; d++)
                    if (it[d].rc)
                        fprintf(stderr, "lr-bench-netconf: %s\n", it[d].err);
                rc = 1;
            }
            *(op ? &one_del : &one_add) = now_ms() - t0;
        }
    }
    free(ch);
    if (rc)
        goto done;

    bool tls = getenv("SB_TRANSPORT") && !strcmp(getenv("SB_TRANSPORT"),
                                                 "tls");
    printf("%d NETCONF devices (%s on 127.0.0.1), one media channel each "
           "per lightpath; ms per lightpath\n\n", n_dev, tls
           ? "nc_tls_peer test doubles over TLS" : "netconfd behind sshd");
    printf("| what | median | p90 | min | max | samples |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    row("add, serial", ser_add, runs, 1);
    row("add, parallel", par_add, runs, 1);
    row("delete, serial", ser_del, runs, 1);
    row("delete, parallel", par_del, runs, 1);
    row("batch: add one after another, parallel", b_add, batch, 1);
    row("batch: delete one after another, parallel", b_del, batch, 1);
    row("session set-up: open() of one device", open_ms, n_dev, 1);
    printf("\nbatch of %d one after another: %.1f ms to add them all "
           "(%.2f ms each), %.1f ms to delete them all\n", batch, tb1 - tb0,
           (tb1 - tb0) / batch, tb2 - tb1);
    printf("batch of %d in one edit-config per device: %.1f ms to add "
           "(%.3f ms per lightpath), %.1f ms to delete\n", batch, one_add,
           one_add / batch, one_del);

done:
    free(ser_add);
    free(par_add);
    free(ser_del);
    free(par_del);
    free(b_add);
    free(b_del);
cleanup:
    for (int d = 0; d < n_dev; d++)
        sb_netconf_class.close(dev[d]);
    return rc;

usage:
    fprintf(stderr, "usage: lr-bench-netconf [--runs N] [--batch N (1..1000)] "
            "NAME=USER@HOST:PORT... (at most %d)\n", MAX_DEV);
    return 2;
}
