/*
 * lightrail demo --emulate: the plan's lightpaths carry real packets,
 * and the time model is checked against them.
 *
 * The controller core (controller/lr_ctl.c, what lightraild runs) works
 * in this process on the embedded metro data, with dummy ROADMs in a
 * temporary directory and the emulated data plane (southbound/sb_linux.h:
 * a network namespace per DC, a tbf-shaped veth pair per lightpath).  It
 * admits the sample jobs, then for every boundary of an active job that
 * crosses DCs it sends the boundary's per-microbatch activation volume
 * X = b A_j e over TCP on the boundary's forward lightpath (the probe,
 * southbound/sb_linux_probe.c) and prints the time beside the time
 * model's c = delta + X / C (planner/lr_timemodel.h).
 *
 * What is emulated and what is modelled:
 *   - the transfer X / C is emulated: real bytes through a shaper set to
 *     C x scale; the measured time is scaled back (x scale / 1000, scale
 *     in real Mb/s per emulated Gb/s);
 *   - the propagation delay delta (5 us per km) is modelled: this kernel
 *     has no netem, so it is added to the measured transfer, and shown on
 *     its own.
 * measured_s = measured_transfer_s + propagation_s; predicted_s = c.
 *
 * Everything it makes goes on exit, on an error and on SIGINT, SIGTERM
 * or SIGHUP (the signal sets a flag; the probe polls it and kills its
 * children; then the normal cleanup runs); SIGPIPE is ignored, so that
 * output into a closed pipe cannot kill it before the cleanup.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "controller/lr_ctl.h"
#include "planner/lr_timemodel.h"
#include "southbound/sb_linux.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_demo_emulate.h"
#include "yang/lr_yang.h"

#define CMD "demo"
#define LR_EMU_S_PER_KM 5e-6      /* as controller/lr_ctl_int.h */

extern const char lr_demo_topology[];
extern const char lr_demo_cluster[];

struct emu_sample {
    const char *name, *model;
    double batch, micro;
    int gmin, gmax;
};

/* A job whose plan crosses all three data centers of the metro cluster
 * (two inter-DC boundaries, four lightpaths), then one that finds no GPU
 * left: a job that fits one DC has no lightpath to probe.  The second's
 * 'blocked' is the demo's point; a job that ends 'failed' was planned
 * and could not be provisioned, and fails the demo (exit 3). */
static const struct emu_sample emu_samples[] = {
    { "llama2-13b-e", "llama2-13b", 32, 1, 16, 56 },
    { "gpt-1.9b-e", "gpt-1.9b", 64, 4, 4, 32 },
};
#define N_EMU_SAMPLES (int) (sizeof emu_samples / sizeof emu_samples[0])

static volatile int emu_stop;

static void
emu_on_signal(int sig)
{
    (void) sig;
    emu_stop = 1;
}

/* One probed boundary. */
struct emu_row {
    char job[LR_JOB_NAME_MAX], lightpath[SB_NAME_MAX];
    int boundary;             /* after stage 'boundary', 1-based */
    int layer;                /* the boundary's last layer, 1-based */
    char from[LR_NAME_MAX], to[LR_NAME_MAX];
    double gbps, km, bytes;
    double predicted, predicted_transfer, propagation;
    double real_s, measured_transfer, goodput_bps;
};

static int
emu_probe_job(const struct lr_demo_emulate *opt, struct sb_linux *dp,
              const struct lr_cluster *cl, const struct lr_job *job,
              struct emu_row *rows, int *n_rows, int max_rows)
{
    struct lr_model *model = NULL;
    struct lr_tm *tm = NULL;
    struct lr_train tr = { job->intent.batch, job->intent.micro, 2 };
    int rc = LR_EXIT_OK;
    char err[512];
    if (lr_intent_model(&job->intent, &model)
        || lr_tm_new(model, cl, &tr, &tm)) {
        lr_cli_err(CMD, "job %s: cannot rebuild its time model",
                   job->intent.name);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    const struct lr_plan *p = &job->plan;
    for (int s = 0; s + 1 < p->n_stages && *n_rows < max_rows; s++) {
        int a = p->stages[s].dc, b = p->stages[s + 1].dc;
        if (a == b)
            continue;
        int k = 0;
        while (k < job->n_lightpaths
               && !(job->lp[k].from_dc == a && job->lp[k].to_dc == b))
            k++;
        if (k == job->n_lightpaths)
            continue;
        const struct lr_lightpath *lp = &job->lp[k];
        struct emu_row *r = &rows[(*n_rows)++];
        memset(r, 0, sizeof *r);
        snprintf(r->job, sizeof r->job, "%s", job->intent.name);
        snprintf(r->lightpath, sizeof r->lightpath, "%s/lp%d",
                 job->intent.name, k + 1);
        snprintf(r->from, sizeof r->from, "%s", cl->dcs[a].name);
        snprintf(r->to, sizeof r->to, "%s", cl->dcs[b].name);
        r->boundary = s + 1;
        r->layer = p->stages[s].last + 1;
        r->gbps = lp->capacity_gbps;
        r->km = lp->length_km;
        r->bytes = round(lr_tm_boundary_bytes(tm, p->stages[s].last));
        /* The model's c over this lightpath: lr_ctl's optical mode. */
        r->propagation = lp->length_km * LR_EMU_S_PER_KM;
        r->predicted_transfer = r->bytes / (lp->capacity_gbps * 1e9 / 8);
        r->predicted = r->propagation + r->predicted_transfer;
        if (!opt->json) {
            printf("probe %-24s %s -> %s  %.0f bytes ...", r->lightpath,
                   r->from, r->to, r->bytes);
            fflush(stdout);
        }
        int prc = sb_linux_probe(dp, r->lightpath, (uint64_t) r->bytes,
                                 &emu_stop, &r->real_s, &r->goodput_bps, err,
                                 sizeof err);
        if (prc) {
            if (!opt->json)
                printf("\n");
            lr_cli_err(CMD, "%s", err);
            rc = prc == EINTR ? LR_EXIT_FAIL : LR_EXIT_INFEASIBLE;
            goto cleanup;
        }
        r->measured_transfer = r->real_s * sb_linux_scale(dp) / 1000;
        if (!opt->json)
            printf(" %.3f s real\n", r->real_s);
    }

cleanup:
    lr_tm_free(tm);
    lr_model_free(model);
    return rc;
}

static void
emu_print_text(const struct emu_row *rows, int n, struct sb_linux *dp)
{
    printf("\nBoundaries (per microbatch, forward activations; scale %g "
           "real Mb/s per emulated Gb/s;\npropagation modelled at 5 us/km, "
           "not emulated):\n\n", sb_linux_scale(dp));
    printf("%-14s %2s %5s %-10s %6s %11s %12s %12s %12s %7s\n", "JOB", "B",
           "LAYER", "DCS", "GB/S", "BYTES", "PREDICTED S", "MEASURED S",
           "PROPAG. S", "ERROR");
    for (int i = 0; i < n; i++) {
        const struct emu_row *r = &rows[i];
        char dcs[2 * LR_NAME_MAX + 4];
        snprintf(dcs, sizeof dcs, "%s>%s", r->from, r->to);
        double measured = r->measured_transfer + r->propagation;
        printf("%-14s %2d %5d %-10s %6.0f %11.0f %12.6f %12.6f %12.6f "
               "%+6.1f%%\n", r->job, r->boundary, r->layer, dcs, r->gbps,
               r->bytes, r->predicted, measured, r->propagation,
               100 * (measured - r->predicted) / r->predicted);
    }
    struct sb_linux_link *links = NULL;
    int nl = 0;
    char err[256];
    if (sb_linux_sample(dp, err, sizeof err) || sb_linux_links(dp, &links,
                                                                &nl)) {
        free(links);
        return;
    }
    printf("\nEmulated links (netlink counters):\n\n%-18s %-16s %10s %12s "
           "%8s %7s %6s %7s\n", "LIGHTPATH", "INTERFACE", "RATE MB/S",
           "TX BYTES", "TX PKTS", "ERRORS", "DROPS", "TBF DROPS");
    for (int i = 0; i < nl; i++) {
        const struct sb_linux_link *l = &links[i];
        char ifs[96];
        snprintf(ifs, sizeof ifs, "%s:%s", l->src_ns, l->src_if);
        printf("%-18s %-16s %10.1f %12llu %8llu %7llu %6llu %7llu\n",
               l->name, ifs, l->rate_bps / 1e6,
               (unsigned long long) l->tx_bytes,
               (unsigned long long) l->tx_packets,
               (unsigned long long) (l->tx_errors + l->rx_errors),
               (unsigned long long) (l->tx_dropped + l->rx_dropped),
               (unsigned long long) l->qdisc_drops);
    }
    free(links);
}

static void
emu_print_json(const struct emu_row *rows, int n, struct sb_linux *dp,
               json_object *jobs)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    json_object_object_add(o, "scale_mbps_per_gbps",
                           json_object_new_double(sb_linux_scale(dp)));
    json_object_object_add(o, "propagation",
                           json_object_new_string("modelled"));
    json_object_object_add(o, "jobs", jobs);
    for (int i = 0; i < n; i++) {
        const struct emu_row *r = &rows[i];
        json_object *b = json_object_new_object();
#define ADD_S(k, v) json_object_object_add(b, k, json_object_new_string(v))
#define ADD_D(k, v) json_object_object_add(b, k, json_object_new_double(v))
#define ADD_I(k, v) json_object_object_add(b, k, json_object_new_int(v))
        ADD_S("job", r->job);
        ADD_I("boundary", r->boundary);
        ADD_I("after_layer", r->layer);
        ADD_S("from", r->from);
        ADD_S("to", r->to);
        ADD_S("lightpath", r->lightpath);
        ADD_D("capacity_gbps", r->gbps);
        ADD_D("length_km", r->km);
        ADD_D("bytes", r->bytes);
        ADD_D("predicted_s", r->predicted);
        ADD_D("predicted_transfer_s", r->predicted_transfer);
        ADD_D("propagation_s", r->propagation);
        ADD_D("measured_transfer_s", r->measured_transfer);
        ADD_D("measured_s", r->measured_transfer + r->propagation);
        ADD_D("real_s", r->real_s);
        ADD_D("goodput_mbps", r->goodput_bps / 1e6);
#undef ADD_S
#undef ADD_D
#undef ADD_I
        json_object_array_add(arr, b);
    }
    json_object_object_add(o, "boundaries", arr);
    struct sb_linux_link *links = NULL;
    int nl = 0;
    char err[256];
    json_object *la = json_object_new_array();
    if (!sb_linux_sample(dp, err, sizeof err)
        && !sb_linux_links(dp, &links, &nl))
        for (int i = 0; i < nl; i++) {
            const struct sb_linux_link *l = &links[i];
            json_object *j = json_object_new_object();
            json_object_object_add(j, "lightpath",
                                   json_object_new_string(l->name));
            json_object_object_add(j, "namespace",
                                   json_object_new_string(l->src_ns));
            json_object_object_add(j, "interface",
                                   json_object_new_string(l->src_if));
            json_object_object_add(j, "rate_bps",
                                   json_object_new_double(l->rate_bps));
            json_object_object_add(j, "tx_bytes",
                                   json_object_new_int64((int64_t) l->tx_bytes));
            json_object_object_add(j, "tx_packets",
                                   json_object_new_int64((int64_t) l->tx_packets));
            json_object_object_add(j, "errors", json_object_new_int64(
                (int64_t) (l->tx_errors + l->rx_errors)));
            json_object_object_add(j, "drops", json_object_new_int64(
                (int64_t) (l->tx_dropped + l->rx_dropped)));
            json_object_object_add(j, "qdisc_drops",
                                   json_object_new_int64((int64_t) l->qdisc_drops));
            json_object_array_add(la, j);
        }
    free(links);
    json_object_object_add(o, "links", la);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

int
lr_demo_emulate(const struct lr_demo_emulate *opt)
{
    char dir[] = "/tmp/lightrail-emulate-XXXXXX", db[PATH_MAX];
    char err[1024];
    struct ly_ctx *ly = NULL;
    struct lr_topo *topo = NULL;
    struct lr_cluster *cl = NULL;
    struct sb_linux *dp = NULL;
    struct lr_ctl *ctl = NULL;
    char *report = NULL;
    json_object *jobs = json_object_new_array();
    struct emu_row rows[64];
    int n_rows = 0, rc = LR_EXIT_FAIL;
    /* Sample jobs that ended failed, and the first one's name and why. */
    int n_failed = 0;
    char failed[LR_JOB_NAME_MAX + LR_JOB_REASON_MAX + 2] = "";
    struct lr_cli_signals sigs;
    emu_stop = 0;
    lr_cli_signals_catch(&sigs, emu_on_signal);

    if (!mkdtemp(dir)) {
        lr_cli_err(CMD, "cannot make a temporary directory: %s",
                   strerror(errno));
        goto cleanup_signals;
    }
    if (lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_topo_mem(ly, lr_demo_topology,
                                 strlen(lr_demo_topology), "metro topology",
                                 &topo, err, sizeof err)
        || lr_yang_load_cluster_mem(ly, lr_demo_cluster,
                                    strlen(lr_demo_cluster), "metro cluster",
                                    &cl, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        goto cleanup;
    }
    const char *names[LR_TM_MAX_DCS];
    for (int k = 0; k < cl->n_dcs; k++)
        names[k] = cl->dcs[k].name;
    struct sb_linux_config dc = { opt->prefix, opt->scale, cl->n_dcs, names };
    int drc = sb_linux_new(&dc, &dp, err, sizeof err);
    if (drc) {
        lr_cli_err(CMD, "%s", err);
        rc = drc == EINVAL ? LR_EXIT_USAGE : LR_EXIT_INFEASIBLE;
        goto cleanup;
    }
    snprintf(db, sizeof db, "%s/lightrail.db", dir);
    struct lr_ctl_config cc = {
        .db_path = db, .topo = topo, .cluster = cl,
        .default_driver = "dummy", .dummy_dir = dir, .dataplane = dp,
    };
    if (lr_ctl_new(&cc, &ctl, &report, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        goto cleanup;
    }
    if (!opt->json) {
        printf("Emulated data plane: namespaces");
        for (int k = 0; k < cl->n_dcs; k++)
            printf(" %s", sb_linux_dc_ns(dp, k));
        printf("; 1 Gb/s emulated = %g Mb/s real\n\n", sb_linux_scale(dp));
    }
    for (int i = 0; i < N_EMU_SAMPLES && !emu_stop; i++) {
        const struct emu_sample *s = &emu_samples[i];
        struct lr_intent in;
        struct lr_job job;
        memset(&in, 0, sizeof in);
        snprintf(in.name, sizeof in.name, "%s", s->name);
        snprintf(in.model, sizeof in.model, "%s", s->model);
        in.batch = s->batch;
        in.micro = s->micro;
        in.gpus_min = s->gmin;
        in.gpus_max = s->gmax;
        if (lr_ctl_submit(ctl, &in, &job, err, sizeof err)) {
            lr_cli_err(CMD, "job %s: %s", s->name, err);
            goto cleanup;
        }
        json_object *j = json_object_new_object();
        json_object_object_add(j, "name", json_object_new_string(s->name));
        json_object_object_add(j, "model", json_object_new_string(s->model));
        json_object_object_add(j, "phase", json_object_new_string(
            lr_job_phase_name(job.phase)));
        if (job.reason[0])
            json_object_object_add(j, "reason",
                                   json_object_new_string(job.reason));
        json_object_object_add(j, "lightpaths",
                               json_object_new_int(job.n_lightpaths));
        json_object_object_add(j, "iteration_time_s",
                               json_object_new_double(job.iteration_s));
        json_object_array_add(jobs, j);
        if (!opt->json) {
            printf("job %-14s %-8s %d lightpath(s)%s%s\n", s->name,
                   lr_job_phase_name(job.phase), job.n_lightpaths,
                   job.reason[0] ? ": " : "", job.reason);
            for (int k = 0; k < job.n_lightpaths; k++) {
                struct sb_linux_link l;
                char name[SB_NAME_MAX];
                snprintf(name, sizeof name, "%s/lp%d", s->name, k + 1);
                if (!sb_linux_get(dp, name, &l))
                    printf("  %-18s %s:%s %s -> %s:%s %s  %.0f Gb/s shaped "
                           "at %.0f Mb/s (tbf)\n", name, l.src_ns, l.src_if,
                           l.src_addr, l.dst_ns, l.dst_if, l.dst_addr,
                           l.gbps, l.rate_bps / 1e6);
            }
        }
        if (job.phase == LR_JOB_FAILED && !n_failed++)
            snprintf(failed, sizeof failed, "%s: %s", s->name, job.reason);
        if (job.phase == LR_JOB_ACTIVE) {
            int prc = emu_probe_job(opt, dp, cl, &job, rows, &n_rows,
                                    (int) (sizeof rows / sizeof *rows));
            if (prc) {
                rc = prc;
                goto cleanup;
            }
        }
    }
    if (emu_stop) {
        lr_cli_err(CMD, "interrupted: removing the emulated data plane");
        goto cleanup;
    }
    if (opt->json) {
        emu_print_json(rows, n_rows, dp, jobs);
        jobs = NULL;
    } else {
        emu_print_text(rows, n_rows, dp);
    }
    rc = LR_EXIT_OK;
    if (n_failed) {
        lr_cli_err(CMD, "%d of %d sample jobs could not be provisioned "
                   "(%d boundaries probed); the first, %s", n_failed,
                   N_EMU_SAMPLES, n_rows, failed);
        rc = LR_EXIT_INFEASIBLE;
    }

cleanup:
    lr_ctl_free(ctl);
    sb_linux_free(dp);
    free(report);
    lr_cluster_free(cl);
    lr_topo_free(topo);
    lr_yang_ctx_free(ly);
    {
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            lr_cli_err(CMD, "could not remove %s", dir);
    }
cleanup_signals:
    json_object_put(jobs);
    lr_cli_signals_restore(&sigs);
    if (emu_stop && rc == LR_EXIT_OK)
        rc = LR_EXIT_FAIL;
    return rc;
}
