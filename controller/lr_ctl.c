/* lr_ctl: the controller's core; see lr_ctl.h for the model.  The
 * device work is in lr_ctl_op.c, reconciliation in lr_ctl_recon.c, the
 * remote DCs' agents in lr_ctl_agents.c, a ppo decision made a job in
 * lr_ctl_admit_ppo.c (lr_ctl_int.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pthread.h>
#include <stdatomic.h>

#include "controller/lr_agent_party.h"
#include "controller/lr_ctl.h"
#include "controller/lr_ctl_int.h"
#include "controller/lr_ctl_ppo.h"
#include "controller/lr_store.h"
#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"
#include "planner/lr_jenv.h"
#include "planner/lr_modulation.h"
#include "planner/lr_utf8.h"
#include "planner/lr_util.h"
#include "southbound/sb_linux.h"
#include "tools/lightrail/lr_policy_file.h"

/* Rates tried for a lightpath, best first (Gb/s). */
static const double lr_ctl_rates[] = { 400, 200, 100 };
/* The exact planner is exponential: bound it inside the daemon. */
#define LR_CTL_EXACT_NODES 2000000

int
lr_ctl_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* Marked when cut, as the drivers' (sb_errf) and the job's reason:
     * a device's message in it may be long. */
    lr_utf8_vsetf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* The job's reason, cut with a mark when it does not fit
 * (LR_JOB_REASON_MAX says why it may be). */
static void __attribute__((format(printf, 2, 3)))
set_reason(struct lr_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    job->reason[0] = '\0';
    lr_utf8_vappendf(job->reason, sizeof job->reason, fmt, ap);
    va_end(ap);
}

/* The job's note, as set_reason() sets the reason. */
void
lr_ctl_set_note(struct lr_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    job->note[0] = '\0';
    lr_utf8_vappendf(job->note, sizeof job->note, fmt, ap);
    va_end(ap);
}

static long long
now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long) tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The controller's clock: lr_ctl_config.clock_ms, or the real one. */
static long long
ctl_now_ms(const struct lr_ctl *c)
{
    return c->clock_ms ? c->clock_ms(c->clock_arg) : now_ms();
}

/* The numbers lr_ctl_jobs_gen() gives, one count for the process: a
 * controller made after another (a restart in the same process) never
 * gives a number the other gave. */
static _Atomic unsigned long long jobs_gens;

/* A number no controller of this process gave before: what a GET of
 * the jobs prints may have changed. */
static void
jobs_changed(struct lr_ctl *c)
{
    c->jobs_gen = atomic_fetch_add(&jobs_gens, 1) + 1;
}

unsigned long long
lr_ctl_jobs_gen(const struct lr_ctl *c)
{
    return c->jobs_gen;
}

/* The job table, writable: the one way to it (c->jobs is const), so
 * that every change of a job, its arrival and its departure are counted
 * (lr_ctl_jobs_gen(): a GET's jobs tree kept since is built again).
 * Called before the change, which the caller makes at once, on the
 * owner's thread. */
static struct lr_job *
jobs_write(struct lr_ctl *c)
{
    jobs_changed(c);
    return (struct lr_job *) c->jobs;
}

static const struct lr_job *
find_job(const struct lr_ctl *c, const char *name)
{
    for (int i = 0; i < c->n_jobs; i++)
        if (!strcmp(c->jobs[i].intent.name, name))
            return &c->jobs[i];
    return NULL;
}

/* find_job() for a change of the job (jobs_write()); NULL, and nothing
 * counted, when there is none. */
static struct lr_job *
find_job_to_change(struct lr_ctl *c, const char *name)
{
    const struct lr_job *j = find_job(c, name);
    return j ? jobs_write(c) + (j - c->jobs) : NULL;
}

/* Keeps the in-memory table equal to the store's rows. */
static int
remember_job(struct lr_ctl *c, const struct lr_job *job)
{
    struct lr_job *j = find_job_to_change(c, job->intent.name);
    if (!j) {
        struct lr_job *t = jobs_write(c);
        if (lr_grow((void **) &t, &c->cap_jobs, c->n_jobs + 1, sizeof *t))
            return ENOMEM;
        c->jobs = t;
        j = &t[c->n_jobs++];
    }
    *j = *job;
    return 0;
}

static void
forget_job(struct lr_ctl *c, const char *name)
{
    struct lr_job *j = find_job_to_change(c, name);
    if (j)
        *j = c->jobs[--c->n_jobs];
}

/* ---- what a job holds, in memory ---- */

static int
book(struct lr_ctl *c, const struct lr_job *job)
{
    for (int i = 0; i < job->n_lightpaths; i++) {
        const struct lr_lightpath *lp = &job->lp[i];
        int err = lr_spectrum_alloc(c->rsa->sp, lp->links, lp->n_links,
                                    lp->first, lp->m);
        if (err) {
            while (i-- > 0)
                lr_spectrum_release(c->rsa->sp, job->lp[i].links,
                                    job->lp[i].n_links, job->lp[i].first,
                                    job->lp[i].m);
            return err;
        }
    }
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] += job->gpus[k];
    return 0;
}

/* Gives back the slots of the job's lightpaths (the job keeps them). */
void
lr_ctl_unbook_lightpaths(struct lr_ctl *c, const struct lr_job *job)
{
    for (int i = 0; i < job->n_lightpaths; i++)
        lr_spectrum_release(c->rsa->sp, job->lp[i].links, job->lp[i].n_links,
                            job->lp[i].first, job->lp[i].m);
}

static void
unbook(struct lr_ctl *c, const struct lr_job *job)
{
    lr_ctl_unbook_lightpaths(c, job);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] -= job->gpus[k];
}

/* ---- telemetry ---- */

static struct lr_counter_sample
counters_of(const struct sb_linux_link *l)
{
    return (struct lr_counter_sample) {
        l->tx_bytes, l->tx_packets,
        l->tx_dropped + l->rx_dropped + l->qdisc_drops, l->sampled_ms,
    };
}

/* The modelled delay of lightpath 'name' ("JOB/lpK"), 0 if unknown. */
static double
lp_delay(struct lr_ctl *c, const char *name)
{
    for (int i = 0; i < c->n_jobs; i++)
        for (int k = 0; k < c->jobs[i].n_lightpaths; k++) {
            char n[SB_NAME_MAX];
            lr_ctl_lp_name(&c->jobs[i], k, n, sizeof n);
            if (!strcmp(n, name))
                return c->jobs[i].lp[k].length_km * LR_CTL_S_PER_KM;
        }
    return 0;
}

int
lr_ctl_sample(struct lr_ctl *c, char *err, size_t errlen)
{
    if (!c->dp)
        return 0;
    /* The device step may be adding or removing pairs meanwhile. */
    pthread_mutex_lock(&c->dp_lock);
    int rc = sb_linux_sample(c->dp, err, errlen);
    struct sb_linux_link *links = NULL;
    int n = 0;
    int lrc = sb_linux_links(c->dp, &links, &n);
    pthread_mutex_unlock(&c->dp_lock);
    if (lrc)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    struct lr_ctl_emulated *emu = calloc((size_t) n + 1, sizeof *emu);
    if (!emu) {
        free(links);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    }
    /* Emulated bytes per real byte: the shaper runs at gbps x scale
     * Mb/s. */
    double scale = 1000 / sb_linux_scale(c->dp);
    lr_telemetry_reset(c->tel, c->cluster->n_dcs);
    for (int i = 0; i < n; i++) {
        struct lr_ctl_emulated *e = &emu[i];
        e->link = links[i];
        e->delay_s = lp_delay(c, links[i].name);
        for (int j = 0; j < c->n_emu; j++) {
            if (strcmp(c->emu[j].link.name, links[i].name))
                continue;
            struct lr_counter_sample b = counters_of(&c->emu[j].link),
                                     a = counters_of(&links[i]);
            double th, loss;
            if (!lr_telemetry_measure(&b, &a, scale, &th, &loss)) {
                e->measured = true;
                e->throughput_bps = th * 8;
            } else if (c->emu[j].measured && a.ms == b.ms) {
                /* Sampled twice in a millisecond: keep the last rates. */
                e->measured = true;
                e->throughput_bps = c->emu[j].throughput_bps;
                loss = c->emu[j].loss;
            } else {
                break;
            }
            e->loss = loss;
            break;
        }
        if (e->measured)
            lr_telemetry_add(c->tel, e->link.from_dc, e->link.to_dc,
                             e->link.gbps * 1e9 / 8, e->throughput_bps / 8,
                             e->loss, e->delay_s);
    }
    free(links);
    free(c->emu);
    c->emu = emu;
    c->n_emu = n;
    return rc;
}

int
lr_ctl_emulated_links(const struct lr_ctl *c, struct lr_ctl_emulated **out,
                      int *n)
{
    *out = malloc(((size_t) c->n_emu + 1) * sizeof **out);
    if (!*out)
        return ENOMEM;
    if (c->n_emu)
        memcpy(*out, c->emu, (size_t) c->n_emu * sizeof **out);
    *n = c->n_emu;
    return 0;
}

const struct lr_telemetry *
lr_ctl_telemetry(const struct lr_ctl *c)
{
    return c->tel;
}

/* ---- admission ---- */

static int
dc_node_of(const struct lr_topo *t, const struct lr_cluster *cl, int k)
{
    return lr_topo_attach_node(t, cl->dcs[k].name, cl->dcs[k].attach_node);
}

static enum lr_tm_why
run_planner(const struct lr_tm *tm, const char *algo, int step, int beam,
            struct lr_plan *plan, struct lr_tm_eval *ev);

static bool
same_shape(const struct lr_transformer *a, const struct lr_transformer *b)
{
    return a->arch == b->arch && a->layers == b->layers
           && a->hidden == b->hidden && a->heads == b->heads
           && a->kv_heads == b->kv_heads && a->ffn == b->ffn
           && a->vocab == b->vocab && a->seq == b->seq;
}

/* The memo's key for planning 'in' with 'algo' over 'tm'. */
void
lr_ctl_memo_key(const struct lr_intent *in, const char *algo,
                const struct lr_tm *tm, struct plan_memo *key)
{
    memset(key, 0, sizeof *key);
    snprintf(key->model, sizeof key->model, "%s", in->model);
    key->custom = in->custom;
    if (in->custom)
        key->shape = in->shape;
    snprintf(key->algorithm, sizeof key->algorithm, "%s", algo);
    key->batch = in->batch;
    key->micro = in->micro;
    key->n_dcs = tm->n_dcs;
    for (int k = 0; k < tm->n_dcs; k++)
        key->devices[k] = tm->dcs[k].n_devices;
}

/* True when 'a' and 'b' ask the same question. */
bool
lr_ctl_memo_same(const struct plan_memo *a, const struct plan_memo *b)
{
    return !strcmp(a->model, b->model) && a->custom == b->custom
        && same_shape(&a->shape, &b->shape)
        && !strcmp(a->algorithm, b->algorithm)
        && a->batch == b->batch && a->micro == b->micro
        && a->n_dcs == b->n_dcs
        && !memcmp(a->devices, b->devices,
                   (size_t) b->n_dcs * sizeof *b->devices);
}

/* The entry for 'key', marked used; NULL when there is none. */
static struct plan_memo *
memo_find(struct lr_ctl *c, const struct plan_memo *key)
{
    for (int i = 0; i < LR_CTL_MEMO; i++) {
        struct plan_memo *m = &c->memo[i];
        if (m->used && lr_ctl_memo_same(m, key)) {
            m->used = ++c->memo_clock;
            return m;
        }
    }
    return NULL;
}

/* Keeps 'key' (its why and plan set) in place of the least recently
 * used entry. */
static void
memo_put(struct lr_ctl *c, const struct plan_memo *key)
{
    struct plan_memo *victim = &c->memo[0];
    for (int i = 1; i < LR_CTL_MEMO; i++)
        if (c->memo[i].used < victim->used)
            victim = &c->memo[i];
    *victim = *key;
    victim->used = ++c->memo_clock;
}

/* run_planner() through the memo (see struct plan_memo). */
static enum lr_tm_why
plan_memoised(struct lr_ctl *c, const struct lr_intent *in, const char *algo,
              const struct lr_tm *tm, struct lr_plan *plan,
              struct lr_tm_eval *ev)
{
    struct plan_memo key;
    lr_ctl_memo_key(in, algo, tm, &key);
    const struct plan_memo *m = memo_find(c, &key);
    if (m) {
        *plan = m->plan;
        return m->why;
    }
    key.why = run_planner(tm, algo, c->cdynp_step, c->cdynp_beam, plan, ev);
    key.plan = *plan;
    memo_put(c, &key);
    return key.why;
}

/* 'algo' over 'tm'; CDynP with device step 'step' and beam width
 * 'beam' (lr_cdynp_options.device_step and .beam). */
static enum lr_tm_why
run_planner(const struct lr_tm *tm, const char *algo, int step, int beam,
            struct lr_plan *plan, struct lr_tm_eval *ev)
{
    if (!strcmp(algo, "exact")) {
        struct lr_exact_stats st;
        return lr_exact_plan(tm, LR_CTL_EXACT_NODES, plan, ev, &st);
    }
    if (!strcmp(algo, "dp"))
        return lr_baseline_dp(tm, plan, ev);
    if (!strcmp(algo, "pipedream"))
        return lr_baseline_pipedream(tm, plan, ev);
    if (!strcmp(algo, "spp"))
        return lr_baseline_spp(tm, plan, ev);
    if (!strcmp(algo, "zone"))
        return lr_baseline_zone(tm, NULL, plan, ev);
    const struct lr_cdynp_options o = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .device_step = step,
        .beam = beam,
    };
    return lr_cdynp_plan(tm, &o, plan, ev);
}

/* ---- algorithm ppo (lr_ctl_ppo.h) ---- */

/* Opens the policy file of c->ppo_path and binds it to the network as
 * lr_ctl_config asked (its rollout, its base): '*out' is owned by the
 * caller, usable or saying why not (lr_ctl_ppo_why()); ENOMEM, or EINVAL
 * for rollout settings out of range, with nothing made. */
static int
ppo_load(struct lr_ctl *c, struct lr_ctl_ppo **out, char *err,
         size_t errlen)
{
    struct lr_ctl_ppo *p = lr_ctl_ppo_open(c->ppo_path, c->ppo_mean_job_s);
    int rc;
    if (!p)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    if (c->ppo_has_ro
        && (rc = lr_ctl_ppo_set_rollout(p, &c->ppo_ro, err, errlen))) {
        lr_ctl_ppo_free(p);
        return rc;
    }
    lr_ctl_ppo_set_base(p, c->ppo_base, c->ppo_base_arg);
    lr_ctl_ppo_bind(p, c->topo, c->cluster);
    *out = p;
    return 0;
}

/* The jobs that hold GPUs or spectrum now, for the policy's rollout
 * (lr_jenv_set_running): what each holds, and the time it has left in the
 * policy's unit (ppo-mean-job-s): from its creation, its iterations at
 * its predicted iteration time; a job without iterations has the mean
 * left (1), one past its predicted end a thousandth of it.  Returns how
 * many, with '*run' and '*blocks' (the caller frees both), or -1 when
 * out of memory. */
static int
ppo_running(const struct lr_ctl *c, struct lr_jenv_running **run,
            struct lr_jenv_block **blocks)
{
    int n = 0, nb = 0;
    for (int i = 0; i < c->n_jobs; i++)
        for (int l = 0; l < c->jobs[i].n_lightpaths; l++)
            nb += c->jobs[i].lp[l].n_links;
    *run = calloc((size_t) c->n_jobs + 1, sizeof **run);
    *blocks = malloc(((size_t) nb + 1) * sizeof **blocks);
    if (!*run || !*blocks) {
        free(*run);
        free(*blocks);
        *run = NULL;
        *blocks = NULL;
        return -1;
    }
    double now_s = (double) ctl_now_ms(c) / 1000;
    double mean = lr_ctl_ppo_mean_job_s(c->ppo);
    nb = 0;
    for (int i = 0; i < c->n_jobs; i++) {
        const struct lr_job *job = &c->jobs[i];
        struct lr_jenv_running *r = &(*run)[n];
        bool holds = job->n_lightpaths > 0;
        for (int k = 0; k < c->cluster->n_dcs && k < LR_JENV_MAX_DCS; k++) {
            r->gpus[k] = job->gpus[k];
            holds = holds || job->gpus[k] > 0;
        }
        if (!holds)
            continue;
        r->blocks = *blocks + nb;
        for (int l = 0; l < job->n_lightpaths; l++)
            for (int h = 0; h < job->lp[l].n_links; h++)
                (*blocks)[nb++] = (struct lr_jenv_block) {
                    job->lp[l].links[h], job->lp[l].first, job->lp[l].m,
                };
        r->n_blocks = (int) (*blocks + nb - r->blocks);
        if (job->intent.iterations && job->iteration_s > 0) {
            double end = (double) job->created_ms / 1000
                         + (double) job->intent.iterations * job->iteration_s;
            r->remaining = fmax((end - now_s) / mean, 1e-3);
        } else {
            r->remaining = 1;
        }
        n++;
    }
    return n;
}

/* Mirrors the state now and presents 'in' to the policy
 * (lr_ctl_ppo_prepare): the number of feasible actions, or -1 with
 * why[]; '*work' is the work X shown, -1 for none. */
static int
ppo_prepare(struct lr_ctl *c, const struct lr_intent *in, double *work,
            char *why, size_t len)
{
    int mi, di;
    *work = -1;
    if (!c->ppo) {
        snprintf(why, len, "no ppo-policy in lightraild's configuration");
        return -1;
    }
    if (lr_ctl_ppo_why(c->ppo)) {
        snprintf(why, len, "%s", lr_ctl_ppo_why(c->ppo));
        return -1;
    }
    if (lr_ctl_ppo_class(c->ppo, in, &mi, &di, why, len))
        return -1;
    struct lr_jenv_running *run = NULL;
    struct lr_jenv_block *blocks = NULL;
    /* Only a rollout, or a policy observing the GPU-time they hold,
     * reads the running jobs. */
    int n_run = lr_ctl_ppo_reads_running(c->ppo)
                ? ppo_running(c, &run, &blocks) : 0;
    if (n_run < 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    /* The load as the intents show it, this one included (it is
     * counted in c->arrivals once taken, submit_begin). */
    struct lr_rate r = c->arrivals;
    double now_s = (double) ctl_now_ms(c) / 1000;
    lr_rate_add(&r, now_s);
    lr_ctl_ppo_set_load(c->ppo, lr_rate_get(&r, now_s)
                                * lr_ctl_ppo_mean_job_s(c->ppo));
    int n = lr_ctl_ppo_prepare(c->ppo, c->gpus_used, c->rsa->sp->occ,
                               c->rsa->sp->nw, run, n_run, mi, di,
                               in->iterations, work, why, len);
    free(run);
    free(blocks);
    return n;
}

/* The policy's candidate for 'in' on the state now (its rollout's when
 * one is configured), LR_CTL_PPO_REFUSED, or -1 with why[]; '*ro' what
 * the rollout did (static text, "" for nothing). */
static int
ppo_choose(struct lr_ctl *c, const struct lr_intent *in, double *work,
           const char **ro, char *why, size_t len)
{
    *ro = "";
    if (ppo_prepare(c, in, work, why, len) < 0)
        return -1;
    int a = lr_ctl_ppo_choose(c->ppo, true, why, len);
    *ro = lr_ctl_ppo_rollout_note(c->ppo);
    return a;
}

/* A ppo decision taken off the owner's thread (lr_ctl_decide_begin):
 * prepared on the owner's thread, chosen by lr_ctl_decision_run on any
 * one thread, used by the admission (ppo_decided).  It borrows the
 * policy, which nothing else calls meanwhile (c->deciding). */
struct lr_ctl_decision {
    struct lr_ctl_ppo *ppo;           /* borrowed */
    int n;                            /* feasible actions; -1: none */
    int a;                            /* the choice; -1 with why[] */
    double work;                      /* the work X shown, -1: none */
    const char *ro;                   /* what the rollout did (static) */
    char why[LR_JOB_REASON_MAX - 40];
    /* The state it was prepared on: GPUs used per DC and every link's
     * spectrum words, to tell whether it still holds. */
    int used[LR_TM_MAX_DCS];
    uint64_t *occ;
    size_t n_occ;
};

void
lr_ctl_decision_free(struct lr_ctl_decision *d)
{
    if (!d)
        return;
    free(d->occ);
    free(d);
}

void
lr_ctl_decision_run(struct lr_ctl_decision *d)
{
    if (d->n <= 0)
        return;
    d->a = lr_ctl_ppo_choose(d->ppo, true, d->why, sizeof d->why);
    d->ro = lr_ctl_ppo_rollout_note(d->ppo);
}

/* The decision 'd' on the state now: its own when the state is the one
 * it was prepared on (or it refused the job).  Otherwise (another job
 * came or went while it ran) the mirror is prepared again: its candidate
 * when still feasible, else the actor's own choice on the state now (a
 * fast decision; the rollout is not run twice).  A decision that had
 * nothing feasible ran no rollout: on a changed state the actor decides
 * too, as lr_ctl_submit_begin would now, rather than CDynP with a reason
 * that no longer holds. */
static int
ppo_decided(struct lr_ctl *c, const struct lr_intent *in,
            const struct lr_ctl_decision *d, double *work, const char **ro,
            char *why, size_t len)
{
    *work = d->work;
    *ro = d->ro;
    snprintf(why, len, "%s", d->why);
    const struct lr_spectrum *sp = c->rsa->sp;
    if (d->a == LR_CTL_PPO_REFUSED
        || (!memcmp(d->used, c->gpus_used,
                    (size_t) c->cluster->n_dcs * sizeof *d->used)
            && d->n_occ == (size_t) sp->n_links * (size_t) sp->nw
            && !memcmp(d->occ, sp->occ, d->n_occ * sizeof *d->occ)))
        return d->a;
    int n = ppo_prepare(c, in, work, why, len);
    if (d->n <= 0) {
        /* Still nothing (or an intent of no class, which no state
         * changes): CDynP with the reason of now. */
        if (n < 0)
            return -1;
        c->counters.ppo_stale_redecided++;
        *ro = "nothing was feasible when its decision began and the "
              "network changed since; the policy alone chose";
        return lr_ctl_ppo_choose(c->ppo, false, why, len);
    }
    if (n >= 0 && lr_ctl_ppo_allowed(c->ppo, d->a)) {
        c->counters.ppo_stale_kept++;
        *ro = "the network changed while its rollout ran; its choice was "
              "still feasible";
        return d->a;
    }
    c->counters.ppo_stale_redecided++;
    if (n < 0)
        return -1;
    *ro = "the network changed while its rollout ran and took its choice; "
          "the policy alone chose";
    return lr_ctl_ppo_choose(c->ppo, false, why, len);
}

/* Step 1 of an admission: the devices 'tm' offers the planner, each
 * local DC's free GPUs, most compute first, until in->gpus_max are
 * offered (a remote DC's are its agent's to know: left as they are).
 * Returns the free GPUs of the local DCs in all, before the trim.  Does
 * nothing when free falls short of in->gpus_min and no DC is remote:
 * the job is blocked. */
static int
trim_devices(const struct lr_ctl *c, const struct lr_intent *in,
             struct lr_tm *tm)
{
    const struct lr_cluster *cl = c->cluster;
    int order[LR_TM_MAX_DCS], free_total = 0;
    for (int k = 0; k < cl->n_dcs; k++) {
        order[k] = k;
        if (!c->agent[k])
            free_total += cl->dcs[k].n_devices - c->gpus_used[k];
    }
    if (free_total < in->gpus_min && !c->n_remote)
        return free_total;
    for (int i = 1; i < cl->n_dcs; i++)
        for (int j = i; j > 0; j--) {
            const struct lr_tm_dc *a = &tm->dcs[order[j]],
                                  *b = &tm->dcs[order[j - 1]];
            if (a->n_devices * a->peak * a->eff
                <= b->n_devices * b->peak * b->eff)
                break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int budget = in->gpus_max;
    for (int i = 0; i < cl->n_dcs; i++) {
        int k = order[i], f = cl->dcs[k].n_devices - c->gpus_used[k];
        if (c->agent[k])
            continue;
        tm->dcs[k].n_devices = f < budget ? f : budget;
        budget -= tm->dcs[k].n_devices;
    }
    return free_total;
}

/* Plans and places lightpaths; the job ends planned (holding, in memory,
 * what it will need) or blocked with a reason.  Nothing is stored.  A
 * ppo intent takes decision 'dec' (lr_ctl_decide_begin) when not NULL. */
static int
admit(struct lr_ctl *c, const struct lr_model *model, struct lr_job *job,
      const struct lr_ctl_decision *dec, char *err, size_t errlen)
{
    const struct lr_intent *in = &job->intent;
    const struct lr_cluster *cl = c->cluster;
    struct lr_tm *tm = NULL;
    struct lr_plan *plan = &job->plan;
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_cdynp_result *res = c->n_remote ? malloc(sizeof *res) : NULL;
    struct lr_ctl_plan *kept = NULL;
    struct lr_train tr = { in->batch, in->micro, 2 };
    int rc = 0, free_total = 0;
    const char *algo = in->algorithm;
    if (!ev || (c->n_remote && !res)) {
        free(ev);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    }
    if (lr_tm_new(model, cl, &tr, &tm)) {
        /* The start refused a cluster the time model cannot hold: the
         * intent's numbers are what it refuses. */
        double m = in->batch / in->micro;
        if (m > LR_TM_MAX_MICROBATCHES)
            rc = lr_ctl_fail(err, errlen, EINVAL, "batch %g over microbatch "
                             "%g is %.0f microbatches, more than the %d the "
                             "time model takes: raise microbatch", in->batch,
                             in->micro, m, LR_TM_MAX_MICROBATCHES);
        else
            rc = lr_ctl_fail(err, errlen, EINVAL, "batch %g is not a "
                             "multiple of microbatch %g", in->batch,
                             in->micro);
        goto cleanup;
    }
    /* ppo: the policy's decision, else CDynP with the reason noted. */
    if (!strcmp(algo, "ppo")) {
        char why[LR_JOB_REASON_MAX - 40];
        double work;
        const char *ro;
        int a = dec ? ppo_decided(c, in, dec, &work, &ro, why, sizeof why)
                    : ppo_choose(c, in, &work, &ro, why, sizeof why);
        if (a == LR_CTL_PPO_REFUSED) {
            job->phase = LR_JOB_BLOCKED;
            set_reason(job, "refused by the ppo policy: %s", why);
            lr_ctl_set_note(job, "ppo: refused the job");
            lr_ctl_ppo_note_work(job, work, ro);
            c->counters.blocks_plan++;
            c->counters.ppo_refused++;
            goto cleanup;
        }
        int prc = a < 0 ? -1 : lr_ctl_admit_ppo(c, model, &tr, job, a, work,
                                                ro, why, sizeof why);
        if (prc > 0) {
            rc = lr_ctl_fail(err, errlen, prc, "out of memory");
            goto cleanup;
        }
        if (prc == 0) {
            c->counters.ppo_candidate++;
            goto cleanup;
        }
        c->counters.ppo_cdynp++;
        lr_ctl_set_note(job, "ppo: %s; planned by cdynp", why);
        algo = "cdynp";
    }
    /* 1. Free GPUs, trimmed to the maximum, most compute first. */
    free_total = trim_devices(c, in, tm);
    /* A remote DC's free devices are its agent's to know. */
    if (free_total < in->gpus_min && !c->n_remote) {
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no GPUs: %d free in all "
                 "data centers, at least %d wanted", free_total,
                 in->gpus_min);
        c->counters.blocks_gpus++;
        goto cleanup;
    }

    /* 2. The plan, over the fixed inter-DC links: with agents, the one
     * made off the loop for this question (lr_ctl_plan_begin), else here.
     * 'kept' was committed at the agents already (lr_ctl_plan_run), or
     * says why not; without it the COMMIT is step 4's. */
    if (c->n_remote) {
        char why[LR_JOB_REASON_MAX - 32];
        enum lr_tm_why v;
        if (c->agents_lent) {
            rc = lr_ctl_fail(err, errlen, EBUSY, "the data centers' "
                             "agents are busy (a plan or RELEASEs in "
                             "flight): submit again when they are done");
            goto cleanup;
        }
        if ((kept = lr_ctl_take_agent_plan(c, in, tm))) {
            *res = kept->res;
            *plan = kept->key.plan;
            snprintf(why, sizeof why, "%s", kept->why);
            v = kept->key.why;
            if (v == LR_TM_OK && kept->commit_rc) {
                job->phase = LR_JOB_BLOCKED;
                set_reason(job, "%s", kept->commit_why);
                c->counters.blocks_plan++;
                goto cleanup;
            }
        } else {
            lr_ctl_settle_before_plan(c);
            v = lr_ctl_plan_with_agents(c->cluster, c->agent, tm,
                                        c->cdynp_step, c->cdynp_beam, true,
                                        res, plan, why, sizeof why);
        }
        if (v != LR_TM_OK) {
            job->phase = LR_JOB_BLOCKED;
            set_reason(job, "no plan (cdynp): %s", why);
            c->counters.blocks_plan++;
            goto cleanup;
        }
        /* Planned without the runs an agent older than this controller
         * refused: the operator learns which agent, and to upgrade it
         * (lr_agent_plan()). */
        if (why[0])
            lr_utf8_appendf(job->note, sizeof job->note, "%scdynp: %s",
                            job->note[0] ? "; " : "", why);
    }
    /* zone scores over the network as last measured, which the memo
     * does not key on. */
    enum lr_tm_why why = c->n_remote ? LR_TM_OK
                         : !strcmp(algo, "zone")
                         ? lr_baseline_zone(tm, c->dp ? c->tel : NULL, plan,
                                            ev)
                         : plan_memoised(c, in, algo, tm, plan, ev);
    if (why != LR_TM_OK) {
        char detail[LR_JOB_REASON_MAX];
        lr_tm_explain(tm, why, detail, sizeof detail);
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no plan (%s): %s", algo, detail);
        c->counters.blocks_plan++;
        goto cleanup;
    }
    if (!strcmp(algo, "dp")) {
        /* Data parallelism across DCs syncs over the WAN, which needs a
         * lightpath mesh this controller does not provision yet: it runs
         * in its first DC only, a one-stage pipeline in the model. */
        plan->n_stages = 1;
        plan->stages[0].g = tm->dcs[plan->stages[0].dc].n_devices;
    }
    for (int s = 0; s < plan->n_stages; s++)
        job->gpus[plan->stages[s].dc] += plan->stages[s].g;

    /* 3. Two lightpaths per boundary between DCs, within what a job
     * record holds: counted before any spectrum is taken. */
    int n_bounds = 0;
    for (int s = 0; s + 1 < plan->n_stages; s++)
        n_bounds += plan->stages[s].dc != plan->stages[s + 1].dc;
    if (2 * n_bounds > LR_JOB_MAX_LIGHTPATHS) {
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no plan (%s): its %d stages cross %d DC boundaries "
                   "and need %d lightpaths, more than the %d a job holds: "
                   "give it fewer GPUs (gpus max) or the zone or cdynp "
                   "algorithm", algo, plan->n_stages, n_bounds, 2 * n_bounds,
                   LR_JOB_MAX_LIGHTPATHS);
        c->counters.blocks_plan++;
        goto cleanup;
    }
    for (int s = 0; s + 1 < plan->n_stages; s++) {
        int a = plan->stages[s].dc, b = plan->stages[s + 1].dc;
        if (a == b)
            continue;
        double cap = INFINITY, lat = 0;
        for (int dir = 0; dir < 2; dir++) {
            int from = dir ? b : a, to = dir ? a : b;
            struct lr_rsa_request req = {
                c->dc_node[from], c->dc_node[to], 0,
            };
            struct lr_rsa_choice ch;
            enum lr_rsa_block blk = LR_RSA_NO_PATH;
            double rate = 0;
            if (req.src < 0 || req.dst < 0) {
                blk = LR_RSA_NO_PATH;
            } else if (req.src == req.dst) {
                blk = LR_RSA_NO_PATH;
            } else {
                for (size_t r = 0; r < sizeof lr_ctl_rates
                                       / sizeof *lr_ctl_rates; r++) {
                    req.rate_gbps = lr_ctl_rates[r];
                    blk = lr_rsa_decide(c->rsa, &req, &ch);
                    if (blk == LR_RSA_OK) {
                        rate = lr_ctl_rates[r];
                        break;
                    }
                }
            }
            if (blk == LR_RSA_OK
                && c->rsa->ksp->paths[ch.path].n_links > LR_JOB_MAX_HOPS) {
                /* A job records (and configures) at most that many
                 * ROADM hops per lightpath: a longer route is refused,
                 * never cut short. */
                job->phase = LR_JOB_BLOCKED;
                set_reason(job, "no lightpath from %s (%s) to %s (%s): its "
                           "route has %d links, more than the %d a "
                           "lightpath may cross; attach the DCs to nearer "
                           "ROADMs", cl->dcs[from].name,
                           c->topo->nodes[req.src].name, cl->dcs[to].name,
                           c->topo->nodes[req.dst].name,
                           c->rsa->ksp->paths[ch.path].n_links,
                           LR_JOB_MAX_HOPS);
                c->counters.blocks_spectrum++;
                goto cleanup;
            }
            if (blk != LR_RSA_OK) {
                job->phase = LR_JOB_BLOCKED;
                if (req.src < 0 || req.dst < 0)
                    /* Not the spectrum: a DC no file attaches. */
                    set_reason(job, "no lightpath from %s to %s: %s attaches "
                               "to no ROADM; attach it (lightrail-topology "
                               "dc-attachment or lightrail-compute "
                               "attachment-node)", cl->dcs[from].name,
                               cl->dcs[to].name,
                               cl->dcs[req.src < 0 ? from : to].name);
                else {
                    /* What the least rate tried (the loop's last) needed. */
                    char detail[256];
                    lr_rsa_explain(c->rsa, &req, blk, detail, sizeof detail);
                    set_reason(job, "no spectrum: no lightpath of 100 Gb/s or "
                               "more from %s (%s) to %s (%s): %s",
                               cl->dcs[from].name,
                               c->topo->nodes[req.src].name,
                               cl->dcs[to].name,
                               c->topo->nodes[req.dst].name,
                               req.src == req.dst
                               ? "both attach to the same ROADM" : detail);
                }
                c->counters.blocks_spectrum++;
                goto cleanup;
            }
            lr_rsa_commit(c->rsa, &ch);
            const struct lr_path *p = &c->rsa->ksp->paths[ch.path];
            struct lr_lightpath *lp = &job->lp[job->n_lightpaths++];
            memset(lp, 0, sizeof *lp);
            lp->from_dc = from;
            lp->to_dc = to;
            lp->n_links = p->n_links;
            memcpy(lp->links, p->links, (size_t) lp->n_links * sizeof(int));
            lp->length_km = p->length_km;
            snprintf(lp->modulation, sizeof lp->modulation, "%s",
                     c->rsa->mods.f[ch.mod].name);
            lp->first = ch.first;
            lp->m = ch.m;
            int mm;
            lr_topo_block_nm(&c->topo->links[p->links[0]], ch.first, ch.m,
                             &lp->n, &mm);
            lp->capacity_gbps = rate;
            cap = fmin(cap, rate);
            lat = fmax(lat, p->length_km * LR_CTL_S_PER_KM);
        }
        /* 4. Optical mode for this pair. */
        lr_tm_set_link(tm, a, b, cap * 1e9 / 8, lat);
    }
    /* A plan that fitted over the fixed links may not fit over the
     * lightpaths only by time, never by memory: T is always defined.
     * Private stages cannot be evaluated here: the chain's T stays. */
    double t = c->n_remote ? res->T : 0;
    if (!c->n_remote) {
        lr_tm_evaluate(tm, plan, ev);
        t = ev->T;
    }
    if (!(t <= LR_JOB_MAX_ITERATION_S)) {
        job->phase = LR_JOB_BLOCKED;
        set_reason(job, "no plan (%s): an iteration would take %.3g s, more "
                   "than the %.0e s a job may: give it more or faster GPUs "
                   "or a smaller batch", algo, t, LR_JOB_MAX_ITERATION_S);
        c->counters.blocks_plan++;
        goto cleanup;
    }
    if (c->n_remote) {
        job->iteration_s = res->T;
        if (!kept && lr_ctl_commit_remote(c, job, res)) {
            job->phase = LR_JOB_BLOCKED;
            c->counters.blocks_plan++;
            goto cleanup;
        }
    } else {
        job->iteration_s = ev->T;
    }
    job->phase = LR_JOB_PLANNED;

cleanup:
    if (job->phase == LR_JOB_BLOCKED) {
        /* Give back the spectrum booked before the block. */
        lr_ctl_unbook_lightpaths(c, job);
        job->n_lightpaths = 0;
        memset(job->gpus, 0, sizeof job->gpus);
        job->plan.n_stages = 0;
    }
    /* A plan committed off the loop for a job that is not admitted. */
    if (kept && kept->committed && (rc || job->phase == LR_JOB_BLOCKED))
        lr_ctl_release_chain(c, &kept->res, in->name);
    lr_tm_free(tm);
    free(ev);
    free(res);
    lr_ctl_plan_free(kept);
    return rc;
}

/* The op of job 'name' in flight, or NULL. */
static struct lr_ctl_op *
op_in_flight(const struct lr_ctl *c, const char *name)
{
    for (struct lr_ctl_op *op = c->ops; op; op = op->next)
        if (!op->recon && !strcmp(op->job.intent.name, name))
            return op;
    return NULL;
}

bool
lr_ctl_job_in_flight(const struct lr_ctl *c, const char *name)
{
    return op_in_flight(c, name) != NULL;
}

void
lr_ctl_op_lend(struct lr_ctl *c, struct lr_ctl_op *op)
{
    op->next = c->ops;
    c->ops = op;
}

void
lr_ctl_op_unlend(struct lr_ctl *c, struct lr_ctl_op *op)
{
    for (struct lr_ctl_op **p = &c->ops; *p; p = &(*p)->next)
        if (*p == op) {
            *p = op->next;
            return;
        }
}

static int
fail_exists(const struct lr_ctl *c, const char *name, char *err,
            size_t errlen)
{
    return lr_ctl_fail(err, errlen, EEXIST, "a job named '%s' exists%s; "
                       "delete it first or choose another name", name,
                       op_in_flight(c, name)
                       ? " (its devices are being programmed)" : "");
}

/* EBUSY while a ppo decision is in flight: "...; <what> when it has". */
static int
fail_deciding(const struct lr_ctl *c, char *err, size_t errlen,
              const char *what)
{
    return lr_ctl_fail(err, errlen, EBUSY, "the ppo policy is deciding job "
                       "'%s'; %s when it has", lr_ctl_op_job(c->deciding),
                       what);
}

/* True when 'intent' asks for an algorithm other than cdynp and a DC
 * is planned by its agent: only cdynp plans with the agents.  The one
 * condition of refuse_for_agents() and of lr_ctl_plan_begin()'s filter,
 * which leaves such an intent to lr_ctl_submit_begin() to refuse. */
static bool
agents_refuse(const struct lr_ctl *c, const struct lr_intent *intent)
{
    return c->n_remote && intent->algorithm[0]
           && strcmp(intent->algorithm, "cdynp");
}

/* EINVAL when agents_refuse() 'intent'; else 0.  begin_admission() and
 * lr_ctl_decide_begin() both ask, the latter so that a ppo intent is
 * refused before its decision, not after. */
static int
refuse_for_agents(const struct lr_ctl *c, const struct lr_intent *intent,
                  char *err, size_t errlen)
{
    if (!agents_refuse(c, intent))
        return 0;
    return lr_ctl_fail(err, errlen, EINVAL, "algorithm '%s' needs every "
                       "data center's devices, and %d are planned by their "
                       "agents: ask for cdynp", intent->algorithm,
                       c->n_remote);
}

static int begin_admission(struct lr_ctl *, const struct lr_intent *,
                           const struct lr_ctl_decision *, struct lr_job *,
                           struct lr_ctl_op **, char *, size_t);

/* lr_ctl_submit_begin, with the ppo decision 'dec' when not NULL.  A
 * plan kept for this intent and committed at the agents is taken by its
 * admission; one refused before it took the plan drops it here, so
 * that the agents get RELEASE now rather than at the next plan. */
static int
submit_begin(struct lr_ctl *c, const struct lr_intent *intent,
             const struct lr_ctl_decision *dec, struct lr_job *job,
             struct lr_ctl_op **op, char *err, size_t errlen)
{
    int rc = begin_admission(c, intent, dec, job, op, err, errlen);
    if (c->agent_plan && !strcmp(c->agent_plan->name, intent->name))
        lr_ctl_drop_agent_plan(c);
    return rc;
}

static int
begin_admission(struct lr_ctl *c, const struct lr_intent *intent,
                const struct lr_ctl_decision *dec, struct lr_job *job,
                struct lr_ctl_op **op, char *err, size_t errlen)
{
    struct lr_model *model = NULL;
    *op = NULL;
    if (find_job(c, intent->name))
        return fail_exists(c, intent->name, err, errlen);
    if (lr_intent_model(intent, &model))
        return lr_ctl_fail(err, errlen, EINVAL, intent->custom
                           ? "model '%s': the planner cannot build this shape"
                           : "unknown model '%s'", intent->model);
    if (intent->gpus_min < 1 || intent->gpus_max < intent->gpus_min) {
        lr_model_free(model);
        return lr_ctl_fail(err, errlen, EINVAL, "gpus: min %d, max %d: want "
                           "1 <= min <= max", intent->gpus_min,
                           intent->gpus_max);
    }
    int rc = refuse_for_agents(c, intent, err, errlen);
    if (rc) {
        lr_model_free(model);
        return rc;
    }
    memset(job, 0, sizeof *job);
    job->intent = *intent;
    if (!job->intent.algorithm[0])
        snprintf(job->intent.algorithm, sizeof job->intent.algorithm,
                 "cdynp");
    job->created_ms = job->updated_ms = ctl_now_ms(c);
    job->phase = LR_JOB_SUBMITTED;
    rc = admit(c, model, job, dec, err, errlen);
    lr_model_free(model);
    if (rc)
        return rc;   /* refused (or busy): no job, no arrival */
    /* An arrival, placed, blocked or failed alike. */
    lr_rate_add(&c->arrivals, (double) job->created_ms / 1000);

    if (job->phase == LR_JOB_BLOCKED) {
        c->counters.blocks++;
        rc = lr_store_put_job(c->store, job);
        if (rc)
            return lr_ctl_fail(err, errlen, EIO, "store: %s",
                               lr_store_error(c->store));
        return remember_job(c, job);
    }

    /* 5. Reserve in one transaction.  A job without lightpaths touches no
     * device and goes straight to active: one transaction is the whole
     * admission.  Otherwise it is stored as provisioning first, so that a
     * crash during step 6 is rolled back at restart; from here its GPUs
     * and slots are taken for every later admission. */
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->gpus_used[k] += job->gpus[k];
    job->phase = job->n_lightpaths ? LR_JOB_PROVISIONING : LR_JOB_ACTIVE;
    if (job->n_lightpaths && lr_ctl_op_new(c, job, false, op)) {
        unbook(c, job);
        lr_ctl_release_remote(c, job);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    }
    rc = lr_store_put_job(c->store, job);
    if (rc) {
        lr_ctl_op_free(*op);
        *op = NULL;
        unbook(c, job);
        lr_ctl_release_remote(c, job);
        return lr_ctl_fail(err, errlen, EIO, "store: %s",
                           lr_store_error(c->store));
    }
    if ((rc = remember_job(c, job))) {
        /* Stored as provisioning, never provisioned: recovery rolls it
         * back at restart; until then memory holds nothing for it. */
        lr_ctl_op_free(*op);
        *op = NULL;
        unbook(c, job);
        lr_ctl_release_remote(c, job);
        return lr_ctl_fail(err, errlen, rc, "out of memory");
    }
    if (job->phase == LR_JOB_ACTIVE) {
        c->counters.admissions++;
        return 0;
    }
    lr_ctl_op_lend(c, *op);
    return 0;
}

int
lr_ctl_submit_begin(struct lr_ctl *c, const struct lr_intent *intent,
                    struct lr_job *job, struct lr_ctl_op **op, char *err,
                    size_t errlen)
{
    *op = NULL;
    if (c->deciding && !strcmp(intent->algorithm, "ppo"))
        return fail_deciding(c, err, errlen, "submit again");
    return submit_begin(c, intent, NULL, job, op, err, errlen);
}

int
lr_ctl_decide_begin(struct lr_ctl *c, const struct lr_intent *intent,
                    struct lr_ctl_op **op, char *err, size_t errlen)
{
    *op = NULL;
    if (strcmp(intent->algorithm, "ppo") || !c->ppo || lr_ctl_ppo_why(c->ppo)
        || !lr_ctl_ppo_has_rollout(c->ppo))
        return 0;
    if (c->deciding)
        return fail_deciding(c, err, errlen, "submit again");
    if (find_job(c, intent->name))
        return fail_exists(c, intent->name, err, errlen);
    int rc = refuse_for_agents(c, intent, err, errlen);
    if (rc)
        return rc;
    struct lr_ctl_op *o = calloc(1, sizeof *o);
    struct lr_ctl_decision *d = calloc(1, sizeof *d);
    const struct lr_spectrum *sp = c->rsa->sp;
    size_t n_occ = (size_t) sp->n_links * (size_t) sp->nw;
    uint64_t *occ = malloc((n_occ + 1) * sizeof *occ);
    if (!o || !d || !occ) {
        free(o);
        free(d);
        free(occ);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    }
    o->job.intent = *intent;
    o->dec = d;
    d->ppo = c->ppo;
    d->a = -1;
    d->ro = "";
    d->n = ppo_prepare(c, intent, &d->work, d->why, sizeof d->why);
    memcpy(d->used, c->gpus_used,
           (size_t) c->cluster->n_dcs * sizeof *d->used);
    memcpy(occ, sp->occ, n_occ * sizeof *occ);
    d->occ = occ;
    d->n_occ = n_occ;
    c->deciding = *op = o;
    return 0;
}

/* A plan off the owner's thread (struct lr_ctl_plan, lr_ctl_int.h): its
 * agents' half, and the plan kept for its admission, are
 * lr_ctl_agents.c's. */

void
lr_ctl_plan_free(struct lr_ctl_plan *p)
{
    if (!p)
        return;
    lr_tm_free(p->tm);
    lr_model_free(p->model);
    free(p);
}

void
lr_ctl_plan_run(struct lr_ctl_plan *p)
{
    if (p->agents) {
        p->key.why = lr_ctl_plan_with_agents(p->cluster, p->agent, p->tm,
                                             p->step, p->beam,
                                             pthread_equal(pthread_self(),
                                                           p->owner),
                                             &p->res, &p->key.plan, p->why,
                                             sizeof p->why);
        if (p->key.why == LR_TM_OK) {
            p->commit_rc = lr_ctl_commit_chain(p->agent, p->cluster, &p->res,
                                               p->name, p->commit_why,
                                               sizeof p->commit_why,
                                               &p->unconfirmed, p->lost);
            p->committed = !p->commit_rc;
        }
        return;
    }
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    p->key.why = ev ? run_planner(p->tm, p->key.algorithm, p->step,
                                  p->beam, &p->key.plan, ev)
                    : LR_TM_NOMEM;
    free(ev);
}

/* Algorithms admit() plans through the memo: all but zone (it reads
 * telemetry) and ppo (its decisions). */
static bool
memoised_algo(const char *algo)
{
    return strcmp(algo, "zone") && strcmp(algo, "ppo");
}

int
lr_ctl_plan_begin(struct lr_ctl *c, const struct lr_intent *in,
                  struct lr_ctl_op **op, char *err, size_t errlen)
{
    *op = NULL;
    /* A ppo intent without a usable policy is planned by CDynP, and so
     * is its question. */
    bool ppo_cdynp = !strcmp(in->algorithm, "ppo")
                     && (!c->ppo || lr_ctl_ppo_why(c->ppo));
    if ((!memoised_algo(in->algorithm) && !ppo_cdynp)
        || agents_refuse(c, in)
        || c->agents_lent || c->inspect || find_job(c, in->name)
        || in->gpus_min < 1 || in->gpus_max < in->gpus_min)
        return 0;   /* nothing to plan here, or lr_ctl_submit_begin says */
    struct lr_ctl_plan *p = calloc(1, sizeof *p);
    struct lr_train tr = { in->batch, in->micro, 2 };
    if (!p)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    if (lr_intent_model(in, &p->model)
        || lr_tm_new(p->model, c->cluster, &tr, &p->tm)
        || (trim_devices(c, in, p->tm) < in->gpus_min && !c->n_remote)) {
        lr_ctl_plan_free(p);
        return 0;   /* refused or blocked without planning */
    }
    lr_ctl_memo_key(in,
                    in->algorithm[0] && !ppo_cdynp ? in->algorithm : "cdynp",
                    p->tm, &p->key);
    if (c->n_remote) {
        /* The plan kept for this very question: admit it now. */
        if (lr_ctl_kept_answers(c, in, &p->key)) {
            lr_ctl_plan_free(p);
            return 0;
        }
        /* A plan kept for another question is not taken now: its
         * COMMITs are released first (this plan's may share its name). */
        lr_ctl_drop_agent_plan(c);
        p->agents = true;
        snprintf(p->name, sizeof p->name, "%s", in->name);
        p->cluster = c->cluster;
        memcpy(p->agent, c->agent, sizeof p->agent);
    } else if (memo_find(c, &p->key)) {
        lr_ctl_plan_free(p);
        return 0;
    }
    p->network_gen = c->network_gen;
    p->step = c->cdynp_step;
    p->beam = c->cdynp_beam;
    p->owner = pthread_self();
    struct lr_ctl_op *o = calloc(1, sizeof *o);
    if (!o) {
        lr_ctl_plan_free(p);
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    }
    o->job.intent = *in;
    o->plan = p;
    /* Until lr_ctl_plan_end: the agents are the plan's, and the RELEASEs
     * waiting for them go first. */
    if (p->agents)
        lr_ctl_snapshot_agents(c);
    c->agents_lent = p->agents;
    if (p->agents) {
        lr_ctl_hand_keeps(c, o);
        lr_ctl_hand_deferred(c, o);
    }
    *op = o;
    return 0;
}

void
lr_ctl_plan_end(struct lr_ctl *c, struct lr_ctl_op *op)
{
    struct lr_ctl_plan *p = op ? op->plan : NULL;
    if (p && p->agents) {
        /* Back from the plan (lr_ctl_agents_back()), which is kept for its
         * admission, committed at its agents already (or saying why
         * not), in place of one never taken.  A new network waits for
         * the plan: the generation cannot have changed. */
        struct lr_cdynp_party *chain[LR_TM_MAX_DCS];
        int n_chain = 0;
        for (int i = 0; p->committed && i < p->res.n_dcs; i++)
            if (p->agent[p->res.dc[i]])
                chain[n_chain++] = p->agent[p->res.dc[i]];
        lr_ctl_agents_back(c, op, p->committed ? p->name : NULL, chain,
                           n_chain);
        c->counters.agent_release_failures += (unsigned) p->unconfirmed;
        lr_ctl_retry_lost(c, p->lost, p->name);
        lr_ctl_drop_agent_plan(c);
        if (p->network_gen == c->network_gen) {
            c->agent_plan = p;
            op->plan = NULL;
            c->counters.plans_off_loop++;
        }
    } else if (p && p->network_gen == c->network_gen
               && p->key.why != LR_TM_NOMEM && !memo_find(c, &p->key)) {
        memo_put(c, &p->key);
        c->counters.plans_off_loop++;
    }
    lr_ctl_op_free(op);
}

int
lr_ctl_submit_decided(struct lr_ctl *c, struct lr_ctl_op *decision,
                      struct lr_job *job, struct lr_ctl_op **op, char *err,
                      size_t errlen)
{
    if (c->deciding == decision)
        c->deciding = NULL;
    int rc = submit_begin(c, &decision->job.intent, decision->dec, job, op,
                          err, errlen);
    lr_ctl_op_free(decision);
    return rc;
}

const char *
lr_ctl_op_job(const struct lr_ctl_op *op)
{
    return op->job.intent.name;
}

/* EBUSY while the first op in flight has the devices: "<what> is being
 * <done> on the devices<then>". */
int
lr_ctl_fail_busy(const struct lr_ctl *c, char *err, size_t errlen,
                 const char *then)
{
    const struct lr_ctl_op *op = c->ops;
    return lr_ctl_fail(err, errlen, EBUSY, "%s%s is being %s on the devices%s",
                       op->recon ? "a reconciliation" : "job ",
                       lr_ctl_op_job(op),
                       op->recon ? "run"
                       : op->release ? "released" : "provisioned", then);
}

/* Job 'job', provisioned, stored active with the gOSNR its receivers
 * measured (op_provision(): lr_lightpath.gosnr_known), in one
 * transaction: a store that cannot take both keeps neither, and the
 * job stays provisioning there as in memory.  0 or an errno value
 * (lr_store_error() says why). */
static int
set_active_measured(struct lr_ctl *c, const struct lr_job *job)
{
    int rc = lr_store_begin(c->store);
    if (rc)
        return rc;
    rc = lr_store_set_gosnr(c->store, job);
    if (!rc)
        rc = lr_store_set_phase(c->store, job->intent.name, LR_JOB_ACTIVE,
                                "", job->updated_ms);
    if (!rc)
        rc = lr_store_commit(c->store);
    if (rc)
        lr_store_rollback(c->store);
    return rc;
}

/* Step 3 of an admission: 7. active, or the job fails holding nothing. */
static int
end_submit(struct lr_ctl *c, const struct lr_ctl_op *op, struct lr_job *job,
           char *err, size_t errlen)
{
    *job = op->job;
    if (op->rc && op->stuck) {
        /* Some channels may be left on the devices: the job keeps its
         * GPUs and slots as a job being released does, until a DELETE
         * (or the recovery of a restart) removes them. */
        struct lr_job stuck = *job;
        stuck.phase = LR_JOB_RELEASING;
        set_reason(&stuck, "%s", op->err);
        stuck.updated_ms = ctl_now_ms(c);
        c->counters.failures++;
        /* The store first: when it cannot record the job releasing it
         * still holds it provisioning, and so does memory (memory equals
         * the store); either way it holds its GPUs and slots, which a
         * DELETE or a restart's rollback frees once the devices answer. */
        if (lr_store_set_phase(c->store, job->intent.name, LR_JOB_RELEASING,
                               stuck.reason, stuck.updated_ms)) {
            /* The advice first: a cut reason (LR_JOB_REASON_MAX)
             * loses the rest. */
            int rc = lr_ctl_fail(err, errlen, EIO, "job '%s' stays "
                                 "provisioning: DELETE it, or restart "
                                 "lightraild to roll it back; the store "
                                 "cannot record it releasing (%s): %s",
                                 job->intent.name, lr_store_error(c->store),
                                 op->err);
            set_reason(job, "%s", err);
            (void) remember_job(c, job);
            return rc;
        }
        *job = stuck;
        return remember_job(c, job);
    }
    if (op->rc) {
        struct lr_job failed = *job;
        failed.phase = LR_JOB_FAILED;
        set_reason(&failed, "%s", op->err);
        failed.n_lightpaths = 0;
        memset(failed.gpus, 0, sizeof failed.gpus);
        failed.updated_ms = ctl_now_ms(c);
        c->counters.failures++;
        /* The store first, as a DELETE: when it cannot record the job
         * failed it still holds it provisioning with its GPUs and slots,
         * and so does memory (else the next job is given slots the store
         * refuses), until a DELETE or a restart rolls it back.  The
         * devices hold nothing of it: the undo ran, or op->stuck. */
        if (lr_store_put_job(c->store, &failed)) {
            /* The advice first: a cut reason (LR_JOB_REASON_MAX)
             * loses the rest. */
            int rc = lr_ctl_fail(err, errlen, EIO, "job '%s' stays "
                                 "provisioning: DELETE it, or restart "
                                 "lightraild to roll it back; the store "
                                 "cannot record it failed (%s): %s",
                                 job->intent.name, lr_store_error(c->store),
                                 op->err);
            set_reason(job, "%s", err);
            (void) remember_job(c, job);
            return rc;
        }
        unbook(c, job);
        lr_ctl_release_remote(c, job);
        *job = failed;
        return remember_job(c, job);
    }
    job->updated_ms = ctl_now_ms(c);
    if (set_active_measured(c, job)) {
        /* Memory says what the store says: provisioning, holding what it
         * holds, which a restart rolls back and a DELETE releases. */
        int rc = lr_ctl_fail(err, errlen, EIO, "store: %s; job '%s' stays "
                             "provisioning: DELETE it, or restart "
                             "lightraild to roll it back",
                             lr_store_error(c->store), job->intent.name);
        set_reason(job, "%s", err);
        (void) remember_job(c, job);
        return rc;
    }
    job->phase = LR_JOB_ACTIVE;
    int rc = remember_job(c, job);
    c->counters.admissions++;
    return rc;
}

/* Step 3 of a release: the job and all it holds deleted, or it stays
 * releasing (a retried DELETE or recovery finishes it). */
static int
end_delete(struct lr_ctl *c, const struct lr_ctl_op *op, char *err,
           size_t errlen)
{
    const struct lr_job *job = &op->job;
    const char *name = job->intent.name;
    if (op->rc) {
        /* The job stays releasing with what it holds; its reason says
         * why, for GET and `lightrail job list`, as recovery's does.  In
         * memory only once the store has it (memory equals the store). */
        struct lr_job *j = find_job_to_change(c, name);
        long long now = ctl_now_ms(c);
        char before[sizeof j->reason];
        if (j) {
            memcpy(before, j->reason, sizeof before);
            /* The advice first: a long device message is what a cut
             * reason (LR_JOB_REASON_MAX) loses. */
            set_reason(j, "removing its channels failed, DELETE it to "
                       "retry: %s", op->err);
            if (lr_store_set_phase(c->store, name, LR_JOB_RELEASING,
                                   j->reason, now))
                memcpy(j->reason, before, sizeof before);
            else
                j->updated_ms = now;
        }
        /* The advice before the device's line, which is whole (until
         * 2026-12-07 it was cut to 400 bytes, and with it a ROADM's
         * way out at its end: mnoptical's /reset). */
        return lr_ctl_fail(err, errlen, op->rc, "job '%s' stays releasing "
                           "with its GPUs and slots, DELETE it to retry: "
                           "removing its channels failed: %s", name,
                           op->err);
    }
    /* The store first: when it fails the job stays releasing, still
     * holding its GPUs and slots, and a retried DELETE frees them once. */
    if (lr_store_delete_job(c->store, name))
        return lr_ctl_fail(err, errlen, EIO, "store: %s; the job stays "
                           "releasing: DELETE it again",
                           lr_store_error(c->store));
    unbook(c, job);
    lr_ctl_release_remote(c, job);
    forget_job(c, name);
    c->counters.deletes++;
    return 0;
}

int
lr_ctl_op_end(struct lr_ctl *c, struct lr_ctl_op *op, struct lr_job *job,
              char *err, size_t errlen)
{
    struct lr_job scratch;
    int rc = 0;
    lr_ctl_op_unlend(c, op);
    lr_ctl_devs_fold(c, op);
    if (c->deciding == op)
        c->deciding = NULL;
    if (op->recon)
        rc = lr_ctl_end_reconcile(c, op, NULL, NULL, err, errlen);
    else if (op->release)
        rc = end_delete(c, op, err, errlen);
    else if (!op->dec)                /* a decision is only dropped */
        rc = end_submit(c, op, job ? job : &scratch, err, errlen);
    lr_ctl_op_free(op);
    return rc;
}

int
lr_ctl_submit(struct lr_ctl *c, const struct lr_intent *intent,
              struct lr_job *job, char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    int rc = lr_ctl_submit_begin(c, intent, job, &op, err, errlen);
    if (rc || !op)
        return rc;
    lr_ctl_op_run(op);
    return lr_ctl_op_end(c, op, job, err, errlen);
}

int
lr_ctl_delete_begin(struct lr_ctl *c, const char *name, struct lr_ctl_op **op,
                    char *err, size_t errlen)
{
    const struct lr_job *j = find_job(c, name);
    const struct lr_ctl_op *busy = op_in_flight(c, name);
    *op = NULL;
    if (!j)
        return lr_ctl_fail(err, errlen, ENOENT, "no job named '%s'", name);
    if (busy)
        return lr_ctl_fail(err, errlen, EBUSY, "job '%s' is %s: try again "
                           "when its phase is no longer %s (GET it)", name,
                           busy->release ? "being released"
                                         : "being provisioned",
                           busy->release ? "releasing" : "provisioning");
    struct lr_job job = *j;
    /* Only a job with channels on devices needs the releasing phase; a
     * job that holds GPUs alone is released by the delete itself. */
    if (job.n_lightpaths > 0) {
        long long now = ctl_now_ms(c);
        if (lr_ctl_op_new(c, &job, true, op))
            return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
        if (lr_store_set_phase(c->store, name, LR_JOB_RELEASING, "",
                               now)) {
            lr_ctl_op_free(*op);
            *op = NULL;
            return lr_ctl_fail(err, errlen, EIO, "store: %s",
                               lr_store_error(c->store));
        }
        /* The store cleared the reason too: a former one (a release
         * that failed, "stays provisioning") no longer holds; and took
         * the time, which a GET shows (memory equals the store). */
        struct lr_job *w = find_job_to_change(c, name);
        w->phase = LR_JOB_RELEASING;
        w->reason[0] = '\0';
        w->updated_ms = now;
        (*op)->job.phase = LR_JOB_RELEASING;
        (*op)->job.updated_ms = now;
        lr_ctl_op_lend(c, *op);
        return 0;
    }
    if (lr_store_delete_job(c->store, name))
        return lr_ctl_fail(err, errlen, EIO, "store: %s; nothing released",
                           lr_store_error(c->store));
    if (job.phase == LR_JOB_ACTIVE)
        unbook(c, &job);
    if (job.phase == LR_JOB_ACTIVE || job.phase == LR_JOB_RELEASING)
        lr_ctl_release_remote(c, &job);
    forget_job(c, name);
    c->counters.deletes++;
    return 0;
}

int
lr_ctl_delete(struct lr_ctl *c, const char *name, char *err, size_t errlen)
{
    struct lr_ctl_op *op;
    int rc = lr_ctl_delete_begin(c, name, &op, err, errlen);
    if (rc || !op)
        return rc;
    lr_ctl_op_run(op);
    return lr_ctl_op_end(c, op, NULL, err, errlen);
}

int
lr_ctl_busy(const struct lr_ctl *c)
{
    int n = 0;
    for (const struct lr_ctl_op *op = c->ops; op; op = op->next)
        n++;
    return n;
}

int
lr_ctl_get(struct lr_ctl *c, const char *name, struct lr_job *job)
{
    const struct lr_job *j = find_job(c, name);
    if (!j)
        return ENOENT;
    *job = *j;
    return 0;
}

static int
cmp_job(const void *a, const void *b)
{
    return strcmp(((const struct lr_job *) a)->intent.name,
                  ((const struct lr_job *) b)->intent.name);
}

static int
cmp_job_ref(const void *a, const void *b)
{
    return cmp_job(*(const struct lr_job *const *) a,
                   *(const struct lr_job *const *) b);
}

int
lr_ctl_list_refs(const struct lr_ctl *c, const struct lr_job ***jobs, int *n)
{
    *jobs = malloc(((size_t) c->n_jobs + 1) * sizeof **jobs);
    if (!*jobs)
        return ENOMEM;
    for (int i = 0; i < c->n_jobs; i++)
        (*jobs)[i] = &c->jobs[i];
    qsort(*jobs, (size_t) c->n_jobs, sizeof **jobs, cmp_job_ref);
    *n = c->n_jobs;
    return 0;
}

int
lr_ctl_list(struct lr_ctl *c, struct lr_job **jobs, int *n)
{
    *jobs = malloc(((size_t) c->n_jobs + 1) * sizeof **jobs);
    if (!*jobs)
        return ENOMEM;
    if (c->n_jobs)      /* c->jobs is NULL before the first job */
        memcpy(*jobs, c->jobs, (size_t) c->n_jobs * sizeof **jobs);
    qsort(*jobs, (size_t) c->n_jobs, sizeof **jobs, cmp_job);
    *n = c->n_jobs;
    return 0;
}

/* ---- start and recovery ---- */

/* The device configuration of topology node 'node': its own in the
 * configuration, else the default driver's; false for a node the
 * configuration does not list.  A dummy device without an address keeps
 * its state in the dummy devices' directory, listed or not; the other
 * drivers have no address to give a device the configuration does not
 * list (open_devices refuses those). */
static bool
device_config(const struct lr_ctl *c, int node, struct sb_device_config *dc)
{
    bool listed = false;
    memset(dc, 0, sizeof *dc);
    snprintf(dc->name, sizeof dc->name, "%s", c->topo->nodes[node].name);
    snprintf(dc->driver, sizeof dc->driver, "%s", c->default_driver);
    for (int i = 0; i < c->n_dev_cfg && !listed; i++)
        if (!strcmp(c->dev_cfg[i].name, dc->name)) {
            *dc = c->dev_cfg[i];
            listed = true;
        }
    if (!dc->address[0] && !strcmp(dc->driver, "dummy"))
        snprintf(dc->address, sizeof dc->address, "%s", c->dummy_dir);
    return listed;
}

/* A driver's refusal 'e' of the device 'name' as lr_ctl says it:
 * "ROADM NAME: ...", without the name the drivers' messages begin
 * with already. */
static int
device_fail(char *err, size_t errlen, int rc, const char *name,
            const char *e)
{
    size_t ln = strlen(name);
    const char *m = !strncmp(e, name, ln) && !strncmp(e + ln, ": ", 2)
                    ? e + ln + 2 : e;
    return lr_ctl_fail(err, errlen, rc, "ROADM %s: %s", name, m);
}

int
lr_ctl_check_device_files(const struct sb_device_config *devices, int n,
                          char *err, size_t errlen)
{
    char e[512];
    for (int i = 0; i < n; i++) {
        const struct sb_driver_class *cls = sb_driver_find(devices[i].driver);
        int rc = cls && cls->check_files
                 ? cls->check_files(&devices[i], e, sizeof e) : 0;
        if (rc)
            return device_fail(err, errlen, rc, devices[i].name, e);
    }
    return 0;
}

static int
open_devices(struct lr_ctl *c, char *err, size_t errlen)
{
    int n = c->topo->n_nodes;
    c->cls = calloc((size_t) n + 1, sizeof *c->cls);
    c->dev = calloc((size_t) n + 1, sizeof *c->dev);
    c->devst = calloc((size_t) n + 1, sizeof *c->devst);
    if (!c->cls || !c->dev || !c->devst)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    /* Every device checked before any is opened (sb_driver_class's
     * check): opening may create one. */
    char e[512];
    for (int pass = 0; pass < 2; pass++)
        for (int node = 0; node < n; node++) {
            struct sb_device_config dc;
            bool listed = device_config(c, node, &dc);
            c->cls[node] = sb_driver_find(dc.driver);
            if (!c->cls[node])
                return lr_ctl_fail(err, errlen, EINVAL, "ROADM %s: unknown "
                                   "southbound driver '%s'", dc.name,
                                   dc.driver);
            if (!listed && strcmp(dc.driver, "dummy"))
                return lr_ctl_fail(err, errlen, EINVAL, "ROADM %s: not in "
                                   "the configuration's southbound device "
                                   "list, and the default driver %s needs "
                                   "its address (and its keys or CA): list "
                                   "it there", dc.name, dc.driver);
            int rc = pass == 0 ? c->cls[node]->check
                                 ? c->cls[node]->check(&dc, e, sizeof e) : 0
                               : c->cls[node]->open(&dc, &c->dev[node], e,
                                                    sizeof e);
            /* An opening is no operation on the device: netconf and
             * restconf open one that does not answer without error
             * (first use connects), and a refused one refuses the
             * whole network.  What reaches it first judges it. */
            if (pass == 0)
                lr_ctl_dev_init(&c->devst[node], &dc);
            if (rc)
                return device_fail(err, errlen, rc, dc.name, e);
        }
    return 0;
}

/* A party per DC the inventory marks remote; nothing is sent yet. */
static int
open_agents(struct lr_ctl *c, char *err, size_t errlen)
{
    c->n_remote = 0;
    for (int k = 0; k < c->cluster->n_dcs && !c->inspect; k++) {
        const struct lr_dc *dc = &c->cluster->dcs[k];
        if (dc->remote_port <= 0)
            continue;
        if (!c->agent_cert[0] || !c->agent_key[0] || !c->agent_ca[0])
            return lr_ctl_fail(err, errlen, EINVAL, "data center %s is "
                               "planned by its agent (%s port %d): give the "
                               "controller the coordinator's certificate, key "
                               "and the agents' CA (lightrail-config: "
                               "coordinator)", dc->name, dc->remote_address,
                               dc->remote_port);
        char e[1024];
        c->agent[k] = lr_agent_party_new(dc->remote_address, dc->remote_port,
                                         dc->remote_name, c->agent_cert,
                                         c->agent_key, c->agent_ca,
                                         c->agent_crl, c->agent_timeout, e, sizeof e);
        if (!c->agent[k])
            return lr_ctl_fail(err, errlen, EINVAL, "agent of %s: %s",
                               dc->name, e);
        lr_agent_party_set_budget(c->agent[k], c->agent_budget);
        c->n_remote++;
    }
    return 0;
}

/* Everything that follows from the topology and the inventory: copies
 * of both, the DCs' ROADMs, the RMSA engine (and its spectrum), the
 * devices; the memo of plans is forgotten. */
static int
open_network(struct lr_ctl *c, const struct lr_topo *topo,
             const struct lr_cluster *cluster, char *err, size_t errlen)
{
    /* The jobs print their DCs', nodes' and links' names from these. */
    jobs_changed(c);
    c->topo = lr_topo_clone(topo);
    c->cluster = lr_cluster_clone(cluster);
    if (!c->topo || !c->cluster)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    if (c->cluster->n_dcs > LR_TM_MAX_DCS)
        return lr_ctl_fail(err, errlen, EINVAL, "more than %d data centers",
                           LR_TM_MAX_DCS);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        c->dc_node[k] = dc_node_of(c->topo, c->cluster, k);
    /* Requests only ever join two DCs' ROADMs (place_lightpaths): only
     * those pairs are ends.  KSP-FF's table is lazy (lr_ksp_lazy_ends):
     * a pair's paths are computed on its first request, none at start;
     * an MSCL engine would compute the ends' pairs up front. */
    unsigned char *ends = calloc((size_t) c->topo->n_nodes + 1, 1);
    if (!ends)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    for (int k = 0; k < c->cluster->n_dcs; k++)
        if (c->dc_node[k] >= 0)
            ends[c->dc_node[k]] = 1;
    struct lr_rsa_config rc_cfg = { .k = 5, .order = LR_KSP_HOPS,
                                    .guard = LR_JOB_GUARD_SLOTS,
                                    .ends = ends };
    int rc = lr_rsa_new(c->topo, &rc_cfg, &c->mods, &lr_rsa_ksp_ff,
                        &c->rsa);
    free(ends);
    if (rc)
        return lr_ctl_fail(err, errlen, rc, "cannot build the RMSA engine "
                           "over the topology: %s", strerror(rc));
    if (c->memo)
        memset(c->memo, 0, LR_CTL_MEMO * sizeof *c->memo);
    c->network_gen++;
    if ((rc = open_agents(c, err, errlen)))
        return rc;
    return open_devices(c, err, errlen);
}

static void
close_network(struct lr_ctl *c)
{
    for (int i = 0; c->dev && c->topo && i < c->topo->n_nodes; i++)
        if (c->dev[i])
            c->cls[i]->close(c->dev[i]);
    free(c->dev);
    free(c->cls);
    free(c->devst);
    c->devst = NULL;
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        if (c->agent[k])
            c->agent[k]->cls->free(c->agent[k]);
        c->agent[k] = NULL;
    }
    c->n_remote = 0;
    lr_rsa_free(c->rsa);
    lr_cluster_free(c->cluster);
    lr_topo_free(c->topo);
    c->dev = NULL;
    c->cls = NULL;
    c->rsa = NULL;
    c->cluster = NULL;
    c->topo = NULL;
}

/* A ROADM the new network keeps (the same name, driver and address)
 * keeps its history whole, up or down: its opening reached nothing
 * (open_devices()), so it stays as the last operation on it left it,
 * and nothing is said.  Any other starts afresh (lr_ctl_dev_init()),
 * silently: a name reached elsewhere is another device, whose first
 * answer must not read as the old one's coming back ("answers again"),
 * nor its counts and last failure as its own.  The driver and address
 * come from the configuration (device_config()), which a PUT does not
 * change, so lightraild keeps every name's history; the comparison
 * holds for whatever gives them another way (test_ctl moves the dummy
 * directory). */
static void
carry_devices(struct lr_ctl *c, const struct lr_ctl *old)
{
    for (int i = 0; c->devst && i < c->topo->n_nodes; i++)
        for (int o = 0; old->devst && o < old->topo->n_nodes; o++) {
            struct lr_ctl_dev *now = &c->devst[i];
            const struct lr_ctl_dev *then = &old->devst[o];
            if (!strcmp(now->name, then->name)
                && !strcmp(now->driver, then->driver)
                && !strcmp(now->address, then->address)) {
                *now = *then;
                break;
            }
        }
}

/* Whether job 'j', holding nothing, keeps a plan whose DC indices
 * 'now' (the new inventory) gives other names than 'then' (the one it
 * was planned on), or no DC: a failed job keeps its plan for its
 * reason, and stages are stored by DC index. */
static bool
plan_outlived(const struct lr_job *j, const struct lr_cluster *then,
              const struct lr_cluster *now)
{
    if (j->phase != LR_JOB_BLOCKED && j->phase != LR_JOB_FAILED)
        return false;
    for (int s = 0; s < j->plan.n_stages; s++) {
        int dc = j->plan.stages[s].dc;
        if (dc < 0 || dc >= then->n_dcs || dc >= now->n_dcs
            || strcmp(then->dcs[dc].name, now->dcs[dc].name))
            return true;
    }
    return false;
}

/* Stores the documents given (NULL: kept), both or neither: a restart
 * loads them as a pair; and, 'then' being the inventory c->cluster
 * replaces (NULL: none), drops in the same transaction the plans that
 * plan_outlived() the change.  0 or EIO. */
static int
store_network(struct lr_ctl *c, const char *topo_json,
              const char *cluster_json, const struct lr_cluster *then,
              char *err, size_t errlen)
{
    bool stale = false;
    for (int i = 0; then && i < c->n_jobs; i++)
        stale |= plan_outlived(&c->jobs[i], then, c->cluster);
    if (!topo_json && !cluster_json && !stale)
        return 0;
    int rc = lr_store_begin(c->store)
             || (topo_json && lr_store_put_doc(c->store, "topology",
                                               topo_json))
             || (cluster_json && lr_store_put_doc(c->store, "cluster",
                                                  cluster_json));
    for (int i = 0; !rc && stale && i < c->n_jobs; i++) {
        if (!plan_outlived(&c->jobs[i], then, c->cluster))
            continue;
        struct lr_job j = c->jobs[i];
        j.plan.n_stages = 0;
        rc = lr_store_put_job(c->store, &j);
    }
    if (rc || lr_store_commit(c->store)) {
        rc = lr_ctl_fail(err, errlen, EIO, "store: %s",
                         lr_store_error(c->store));
        lr_store_rollback(c->store);
        return rc;
    }
    for (int i = 0; stale && i < c->n_jobs; i++)
        if (plan_outlived(&c->jobs[i], then, c->cluster))
            jobs_write(c)[i].plan.n_stages = 0;
    return 0;
}

/* The start's KEEP owed to an agent of 'old' (the network replaced) is
 * still owed by the new one when it keeps that agent (the same address,
 * port and certificate name, whatever its DC index): it holds what it
 * held.  An agent the new network drops is owed nothing.  So is its
 * last failure: down it stays down (lr_ctl_agent_status()) until an
 * exchange with it works. */
static void
carry_keeps(struct lr_ctl *c, const struct lr_ctl *old)
{
    bool due[LR_TM_MAX_DCS] = { false };
    for (int k = 0; k < c->cluster->n_dcs && k < LR_TM_MAX_DCS; k++) {
        const struct lr_dc *now = &c->cluster->dcs[k];
        for (int o = 0; c->agent[k] && o < old->cluster->n_dcs
                        && o < LR_TM_MAX_DCS; o++) {
            const struct lr_dc *then = &old->cluster->dcs[o];
            if (!old->agent[o] || now->remote_port != then->remote_port
                || strcmp(now->remote_address, then->remote_address)
                || strcmp(now->remote_name, then->remote_name))
                continue;
            due[k] |= old->keep_due[o];
            /* A refusal (the connection kept) is no agent down. */
            if (!lr_agent_party_connected(old->agent[o]))
                lr_agent_party_carry_error(c->agent[k],
                                           lr_agent_party_error(old->agent[o]));
        }
    }
    memcpy(c->keep_due, due, sizeof due);
}

int
lr_ctl_set_inventory(struct lr_ctl *c, const struct lr_topo *topo,
                     const struct lr_cluster *cluster, const char *topo_json,
                     const char *cluster_json, char *err, size_t errlen)
{
    if (c->ops)
        return lr_ctl_fail_busy(c, err, errlen, " of the current network; try "
                                "again when it is done");
    if (c->deciding)
        return fail_deciding(c, err, errlen, "try the new network again");
    if (c->agents_lent)
        return lr_ctl_fail(err, errlen, EBUSY, "the data centers' agents "
                           "are busy (a plan or RELEASEs in flight); try "
                           "the new network again when they are done");
    for (int i = 0; i < c->n_jobs; i++)
        if (c->jobs[i].phase == LR_JOB_ACTIVE
            || c->jobs[i].phase == LR_JOB_PROVISIONING
            || c->jobs[i].phase == LR_JOB_RELEASING)
            return lr_ctl_fail(err, errlen, EBUSY, "job %s holds resources of "
                               "the current network; delete the active jobs "
                               "before replacing it", c->jobs[i].intent.name);
    /* The data plane has a namespace per DC of the cluster it was made
     * for, index for index. */
    for (int k = 0; c->dp && k < c->cluster->n_dcs; k++) {
        const char *ns = sb_linux_dc_ns(c->dp, k), *dash = ns ? strchr(ns, '-')
                                                              : NULL;
        if (cluster->n_dcs != c->cluster->n_dcs || !dash
            || strcmp(dash + 1, cluster->dcs[k].name))
            return lr_ctl_fail(err, errlen, EINVAL, "the emulated data plane "
                               "was made for the data centers of the current "
                               "inventory; keep their names and order, or "
                               "restart lightraild with the new inventory");
    }
    /* A plan kept and never taken is released now (it names c->agent,
     * which the new network replaces below). */
    lr_ctl_drop_agent_plan(c);
    /* Keep the old network until the new one stands. */
    struct lr_ctl old = *c;
    c->topo = NULL;
    c->cluster = NULL;
    c->rsa = NULL;
    c->cls = NULL;
    c->dev = NULL;
    c->devst = NULL;
    memset(c->agent, 0, sizeof c->agent);
    int rc = open_network(c, topo, cluster, err, errlen);
    if (!rc)
        rc = store_network(c, topo_json, cluster_json, old.cluster, err,
                           errlen);
    if (rc) {
        close_network(c);
        jobs_changed(c);
        c->topo = old.topo;
        c->cluster = old.cluster;
        c->rsa = old.rsa;
        c->cls = old.cls;
        c->dev = old.dev;
        c->devst = old.devst;
        memcpy(c->agent, old.agent, sizeof c->agent);
        c->n_remote = old.n_remote;
        memcpy(c->dc_node, old.dc_node, sizeof c->dc_node);
        return rc;
    }
    /* The policy's environment borrows the network: the new one now. */
    if (c->ppo)
        lr_ctl_ppo_bind(c->ppo, c->topo, c->cluster);
    /* What the old network's agents are owed (the RELEASEs still queued:
     * no op has taken them yet), sent to them now, counted here: the copy
     * shares the queue, and closing it would leave them waiting for
     * agents freed with it.  A refused network keeps them queued. */
    lr_ctl_send_deferred(c);
    carry_keeps(c, &old);
    carry_devices(c, &old);
    close_network(&old);
    return 0;
}

/* Whether job 'j' of the store holds only what the network has: the
 * links and data centers of its lightpaths, the data centers of its
 * stages.  Stored jobs and network agree unless the network's documents
 * were replaced by hand (docs/controller.md says how, for files of the
 * same network); then recovery would name the ROADMs of a job's channels
 * from links beyond the topology's table, and book its GPUs in data
 * centers the inventory does not count.  0, or EINVAL saying which. */
static int
job_fits_network(const struct lr_ctl *c, const struct lr_job *j, char *err,
                 size_t errlen)
{
    static const char *const todo = "its jobs were planned on another "
        "network: restore the state directory from a backup, or put back "
        "the topology and inventory they were planned on (no device was "
        "touched)";
    const char *name = j->intent.name;
    int n_links = c->topo->n_links, n_dcs = c->cluster->n_dcs;
    for (int k = 0; k < j->n_lightpaths; k++) {
        const struct lr_lightpath *lp = &j->lp[k];
        for (int i = 0; i < lp->n_links; i++)
            if (lp->links[i] >= n_links)
                return lr_ctl_fail(err, errlen, EINVAL, "store: job %s: "
                                   "lightpath %d uses link %d, which the "
                                   "network does not have (%d links); %s",
                                   name, k, lp->links[i], n_links, todo);
        if (lp->from_dc < 0 || lp->from_dc >= n_dcs || lp->to_dc < 0
            || lp->to_dc >= n_dcs)
            return lr_ctl_fail(err, errlen, EINVAL, "store: job %s: "
                               "lightpath %d joins data centers %d and %d, "
                               "which the network does not have (%d data "
                               "centers); %s", name, k, lp->from_dc,
                               lp->to_dc, n_dcs, todo);
    }
    /* A blocked or failed job holds nothing: its plan is only read. */
    if (j->phase == LR_JOB_BLOCKED || j->phase == LR_JOB_FAILED)
        return 0;
    for (int s = 0; s < j->plan.n_stages; s++)
        if (j->plan.stages[s].dc >= n_dcs)
            return lr_ctl_fail(err, errlen, EINVAL, "store: job %s: stage %d "
                               "is in data center %d, which the network "
                               "does not have (%d data centers); %s", name,
                               s, j->plan.stages[s].dc, n_dcs, todo);
    return 0;
}

/* job_fits_network() for each of the 'n' 'jobs' of the store, before
 * any is acted on, and before the start stores the files' network in a
 * store that holds none (store_network()): a start refused here must
 * leave it none, or the next start would take the network just refused
 * and ignore the files put back, as this refusal tells the operator
 * to. */
static int
stored_jobs_fit_network(const struct lr_ctl *c, const struct lr_job *jobs,
                        int n, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        rc = job_fits_network(c, &jobs[i], err, errlen);
    return rc;
}

/* Loads the 'n' 'jobs' of the store as they are, for lr_ctl_check():
 * active jobs are booked, nothing is rolled back or repaired.  The
 * caller owns 'jobs'. */
static int
inspect(struct lr_ctl *c, struct lr_job *jobs, int n, char *err,
        size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (jobs[i].phase == LR_JOB_ACTIVE && book(c, &jobs[i]))
            rc = lr_ctl_fail(err, errlen, EINVAL, "job %s: its slots collide "
                             "with another job's", jobs[i].intent.name);
        else
            rc = remember_job(c, &jobs[i]);
    }
    return rc;
}

/* Recovery could not remove the channels of job 'j' ('e' says why): it
 * stays releasing, holding its GPUs and slots (the devices may still
 * carry them), for a DELETE (or the next restart) to finish. */
static int
keep_releasing(struct lr_ctl *c, struct lr_job *j, const char *what,
               const char *e, char **buf, size_t *len, char *err,
               size_t errlen)
{
    if (book(c, j))
        return lr_ctl_fail(err, errlen, EIO, "job %s: its slots collide "
                           "with another job's in the store; run lightrail "
                           "reconcile after fixing the store",
                           j->intent.name);
    j->phase = LR_JOB_RELEASING;
    set_reason(j, "%s; removing its channels failed (%s): DELETE it to "
               "retry", what, e);
    j->updated_ms = ctl_now_ms(c);
    lr_ctl_say(buf, len, "job %s: %s", j->intent.name, j->reason);
    if (lr_store_set_phase(c->store, j->intent.name, LR_JOB_RELEASING,
                           j->reason, j->updated_ms))
        return lr_ctl_fail(err, errlen, EIO, "store: %s",
                           lr_store_error(c->store));
    return remember_job(c, j);
}

static void keep_agents(struct lr_ctl *, char **buf, size_t *len);

/* The greatest tenth of a dB, as text into buf[size], that a
 * threshold read from that text (the modulation table's CSV, strtod())
 * does not put above 'gosnr_db' (finite): a measured gOSNR passes it.
 * The tenth of floor(gosnr_db * 10) is not always that: the product
 * may round up to a whole number, and 27.299999999999997 (a receiver's
 * sum in floating point) read "27.3", which is above it. */
static void
mod_tenth_below(double gosnr_db, char *buf, size_t size)
{
    double tenths = floor(gosnr_db * 10);
    snprintf(buf, size, "%.1f", tenths / 10);
    if (strtod(buf, NULL) > gosnr_db)
        snprintf(buf, size, "%.1f", (tenths - 1) / 10);
}

/* The way back for lightpath 'lp' that fails the checks 'bits'
 * (lr_lightpath_fits()) into back[len], up to the "DELETE" that the
 * line's "the job and submit it again" ends: "give the modulation
 * table the format back, or DELETE", or what changed of the format,
 * each failing check's in lr_lightpath_fits()'s order ("give 8QAM a
 * reach of at least 812.5 km and a threshold of at most 17.0 dB back,
 * or DELETE"), by table 't': a format's spectral efficiency, reach or
 * threshold alone is no format missing.  The reach's is the length
 * as the fact says it, which lr_mod_choose() takes as a reach (until
 * 2026-12-07 "its reach", no number).  The threshold's is the measurement cut down to a tenth of
 * a dB, which the table then passes (mod_tenth_below()); the spectral
 * efficiency's the range that sizes the slots the lightpath holds
 * (lr_mod_se_range(): "a spectral efficiency of 4 to 4.57 bits per
 * symbol", the least the one it was planned with when its rate fills
 * them; the lightpath keeps no SE of its own; until 2026-12-07 "its
 * spectral efficiency", no number).  A name no
 * table may hold, or none, or a measurement below every threshold a
 * table takes, or slots no SE a table takes sizes, has DELETE alone. */
static void
mod_way_back(const struct lr_modtable *t, const struct lr_lightpath *lp,
             int bits, char *back, size_t len)
{
    char part[3][96], at_most[32], lo[16], hi[16];
    int n = 0;
    /* A name that is no text (a store's from before the table refused
     * control characters) no table can be given back: a CSV holding it
     * is refused (lr_modtable_add()). */
    if ((bits & LR_MOD_NO_FORMAT) && lp->modulation[0]
        && lp->modulation[lr_mod_name_text(lp->modulation)]) {
        snprintf(back, len, "no modulation table can hold a name that is "
                 "no text: DELETE");
        return;
    }
    /* Nor one it has no name of ('', a migrated index no lightraild
     * wrote). */
    if ((bits & LR_MOD_NO_FORMAT) && !lp->modulation[0]) {
        snprintf(back, len, "no modulation table can give back a format "
                 "not known: DELETE");
        return;
    }
    if (bits & LR_MOD_NO_FORMAT) {
        snprintf(back, len, "give the modulation table the format back, or "
                 "DELETE");
        return;
    }
    /* A measurement below the least threshold a table takes (a store
     * may hold one) passes none: a threshold "of at most -0.6 dB" would
     * be refused by lr_modtable_set_osnr(). */
    if ((bits & LR_MOD_GOSNR) && !(lp->gosnr_db >= LR_MOD_OSNR_MIN_DB)) {
        snprintf(back, len, "no threshold a modulation table takes (%g to "
                 "%g dB) passes it: DELETE", LR_MOD_OSNR_MIN_DB,
                 LR_MOD_OSNR_MAX_DB);
        return;
    }
    /* Nor a slot count no SE sizes for its rate (lr_mod_se_range()
     * ERANGE, or EDOM for no slot beyond the guard band): a store's, no
     * planner's, as the planner's rates and links always leave one
     * (test_modulation "the SEs of every slot count the planner
     * makes").  "Its spectral efficiency back" would be no way back. */
    if ((bits & LR_MOD_SLOTS)
        && lr_mod_se_range(lp->capacity_gbps, lp->m, LR_JOB_GUARD_SLOTS, lo,
                           hi, sizeof lo)) {
        /* "Of six decimals at most": lr_mod_se_range() tries no more,
         * while a CSV may hold an SE of nine (a range narrower than a
         * millionth, a hand-edited store's, has no shorter one). */
        snprintf(back, len, "no spectral efficiency up to %g bits per "
                 "symbol, of six decimals at most, sizes them: DELETE",
                 LR_MOD_SE_MAX);
        return;
    }
    if (bits & LR_MOD_REACH) {
        /* The length as the fact says it, the least reach that takes
         * the lightpath (lr_mod_reach_needed()). */
        char km[48];
        int f = lr_modtable_find(t, lp->modulation);
        lr_mod_reach_needed(lp->length_km, f < 0 ? 0 : t->f[f].reach_km, km,
                            sizeof km);
        snprintf(part[n++], sizeof part[0], "a reach of at least %s km", km);
    }
    if ((bits & LR_MOD_SLOTS) && !hi[0])
        snprintf(part[n++], sizeof part[0], "a spectral efficiency of at "
                 "least %s bits per symbol", lo);
    else if ((bits & LR_MOD_SLOTS) && !strcmp(lo, hi))
        snprintf(part[n++], sizeof part[0], "a spectral efficiency of %s "
                 "bits per symbol", lo);
    else if (bits & LR_MOD_SLOTS)
        snprintf(part[n++], sizeof part[0], "a spectral efficiency of %s "
                 "to %s bits per symbol", lo, hi);
    if (bits & LR_MOD_GOSNR) {
        mod_tenth_below(lp->gosnr_db, at_most, sizeof at_most);
        snprintf(part[n++], sizeof part[0], "a threshold of at most %s dB",
                 at_most);
    }
    if (n == 1)
        snprintf(back, len, "give %s %s back, or DELETE", lp->modulation,
                 part[0]);
    else if (n == 2)
        snprintf(back, len, "give %s %s and %s back, or DELETE",
                 lp->modulation, part[0], part[1]);
    else
        snprintf(back, len, "give %s %s, %s and %s back, or DELETE",
                 lp->modulation, part[0], part[1], part[2]);
}

/* Each lightpath of job 'j' the table in use no longer fits as it was
 * planned (lr_lightpath_fits(): the table changed since: the format
 * gone, its reach shorter, its spectral efficiency another, or its
 * threshold above what the receiver measured at provisioning) into
 * the report, every check it fails in one line.  The job stays as
 * stored, its channels, slots and format as they are: a configuration
 * change reprograms no device, and the store is not written (GET shows
 * the same as modulation-mismatch). */
static int
say_mod_mismatch(const struct lr_ctl *c, const struct lr_job *j, char **buf,
                 size_t *len)
{
    char why[LR_MOD_JUDGE_WHY_MAX];
    int n = 0;
    for (int k = 0; k < j->n_lightpaths; k++) {
        const struct lr_lightpath *lp = &j->lp[k];
        int bits = lr_lightpath_fits(&c->rsa->mods, lp, why, sizeof why);
        if (!bits)
            continue;
        n++;
        char back[3 * 96 + 64 + LR_MOD_NAME_MAX], fmt[LR_MOD_NAME_ESC_MAX];
        mod_way_back(&c->rsa->mods, lp, bits, back, sizeof back);
        /* A name a store kept from before the table refused control
         * characters would reach the log as it is: escaped. */
        if (lp->modulation[0])
            lr_mod_name_escape(lp->modulation, fmt, sizeof fmt);
        else
            snprintf(fmt, sizeof fmt, "format not known");
        lr_ctl_say(buf, len, "job %s: lightpath %d (%s -> %s, %s, %.1f km): "
                   "%s: kept as stored, no device reprogrammed; %s the "
                   "job and submit it again to plan it with this table", j->intent.name, k + 1,
                   c->cluster->dcs[lp->from_dc].name,
                   c->cluster->dcs[lp->to_dc].name, fmt, lp->length_km, why,
                   back);
    }
    return n;
}

/* Whether a start keeps a job of 'phase' as stored (recover()): one
 * interrupted while provisioning is rolled back, one releasing has its
 * release finished, so a store read as it is (lightrail-check) may hold
 * lightpaths the start never carries. */
static bool
kept_as_stored(enum lr_job_phase phase)
{
    return phase == LR_JOB_ACTIVE || phase == LR_JOB_BLOCKED
           || phase == LR_JOB_FAILED;
}

int
lr_ctl_mod_mismatch(const struct lr_ctl *c, char **report)
{
    char *buf = NULL;
    size_t len = 0;
    int n = 0;
    for (int i = 0; i < c->n_jobs; i++)
        if (kept_as_stored(c->jobs[i].phase))
            n += say_mod_mismatch(c, &c->jobs[i], &buf, &len);
    *report = buf;
    return n;
}

/* The channels of 'j', a job the store has with its lightpaths but
 * whose provisioning or release a restart interrupted, back on the
 * record of each ROADM whose driver's read is its record (sb_driver.h
 * adopt; mnoptical), before the start removes them: a new process's
 * record is empty, the removal of a channel off it is ENOENT with
 * nothing sent (taken as already gone), and the emulator kept every
 * rule of the job, which no read could show nor reconcile remove.  An
 * active job's channels are not adopted: the start's reconciliation
 * installs them again, which Mininet-Optical takes as the same rules,
 * and so restores an emulator restarted meanwhile too.  A ROADM whose
 * record refuses them is said in the report. */
static void
adopt_job(struct lr_ctl *c, const struct lr_job *j, char **buf, size_t *len)
{
    struct sb_change ch[LR_JOB_MAX_LIGHTPATHS];
    struct sb_media_channel mc[LR_JOB_MAX_LIGHTPATHS];
    char e[512];
    for (int node = 0; node < c->topo->n_nodes; node++) {
        if (!c->dev[node] || !c->cls[node]->adopt)
            continue;
        int n = lr_ctl_changes_for(c, j, node, SB_ADD, ch);
        for (int i = 0; i < n; i++)
            mc[i] = ch[i].mc;
        if (n > 0 && c->cls[node]->adopt(c->dev[node], mc, n, e, sizeof e))
            lr_ctl_say(buf, len, "job %s: ROADM %s: its channels could not "
                       "be put back on its driver's record, so their "
                       "removal will not reach it (%s): /reset the node "
                       "if it keeps them", j->intent.name,
                       c->topo->nodes[node].name, e);
    }
}

/* The start's recovery of the 'n' 'jobs' of the store (the caller owns
 * them; each is changed in place as it is recovered): interrupted ones
 * rolled back or released, active ones booked, then the devices
 * reconciled; what it did into '*report'. */
static int
recover(struct lr_ctl *c, struct lr_job *jobs, int n, char **report,
        char *err, size_t errlen)
{
    int rc = 0;
    char *buf = NULL;
    size_t len = 0;
    for (int i = 0; i < n && !rc; i++) {
        struct lr_job *j = &jobs[i];
        /* A removal's error whole: a device's line (SB_PAR_ERR_MAX) may
         * end with its way out (mnoptical's /reset), lost at 512 until
         * 2026-12-07. */
        char e[LR_CTL_ERR_MAX];
        switch (j->phase) {
        case LR_JOB_PROVISIONING:
        case LR_JOB_SUBMITTED:
        case LR_JOB_PLANNED:
            /* Interrupted before it was active: roll back. */
            adopt_job(c, j, &buf, &len);
            if (lr_ctl_unprovision_now(c, j, e, sizeof e)) {
                rc = keep_releasing(c, j, "provisioning was interrupted by "
                                    "a controller restart", e, &buf, &len,
                                    err, errlen);
                break;
            }
            lr_ctl_release_remote(c, j);
            j->phase = LR_JOB_FAILED;
            set_reason(j, "provisioning was interrupted by a controller "
                       "restart and rolled back");
            j->n_lightpaths = 0;
            memset(j->gpus, 0, sizeof j->gpus);
            j->updated_ms = ctl_now_ms(c);
            if (lr_store_put_job(c->store, j))
                rc = lr_ctl_fail(err, errlen, EIO, "store: %s",
                                 lr_store_error(c->store));
            lr_ctl_say(&buf, &len, "job %s: provisioning interrupted: "
                       "rolled back", j->intent.name);
            remember_job(c, j);
            break;
        case LR_JOB_RELEASING:
            adopt_job(c, j, &buf, &len);
            if (lr_ctl_unprovision_now(c, j, e, sizeof e)) {
                rc = keep_releasing(c, j, "its release was interrupted by a "
                                    "controller restart", e, &buf, &len,
                                    err, errlen);
                break;
            }
            lr_ctl_release_remote(c, j);
            if (lr_store_delete_job(c->store, j->intent.name))
                rc = lr_ctl_fail(err, errlen, EIO, "store: %s",
                                 lr_store_error(c->store));
            lr_ctl_say(&buf, &len, "job %s: release interrupted: finished",
                       j->intent.name);
            break;
        case LR_JOB_ACTIVE:
            if (book(c, j)) {
                rc = lr_ctl_fail(err, errlen, EIO, "job %s: its slots collide "
                                 "with another job's in the store; run "
                                 "lightrail reconcile after fixing the store",
                                 j->intent.name);
                break;
            }
            /* A data plane starts empty: make the pairs again.  One that
             * cannot be made is reported; the job stays active on its
             * ROADMs, which are what it holds. */
            if (lr_ctl_dp_add(c->dp, &c->dp_lock, j, true, e, sizeof e))
                lr_ctl_say(&buf, &len, "job %s: %s", j->intent.name, e);
            remember_job(c, j);
            break;
        case LR_JOB_BLOCKED:
        case LR_JOB_FAILED:
            remember_job(c, j);
            break;
        }
    }
    for (int i = 0; i < c->n_jobs && !rc; i++)
        say_mod_mismatch(c, &c->jobs[i], &buf, &len);
    if (!rc)
        keep_agents(c, &buf, &len);
    if (!rc) {
        char *rep = NULL;
        int drift = 0;
        lr_ctl_reconcile_at_start(c, &rep, &drift, err, errlen);
        if (rep && *rep)
            lr_ctl_say(&buf, &len, "%s", rep);
        free(rep);
    }
    if (report)
        *report = buf ? buf : strdup("");
    else
        free(buf);
    return rc;
}

/* KEEP to every agent (lr_agent_party_keep), with the names of the
 * jobs that hold a range there (lr_ctl_held_tags()): the agent frees what this
 * controller committed for jobs it no longer has (deleted while their
 * RELEASE was queued when it stopped, or given up).  On the owner's
 * thread, at start; each agent's outcome goes to the report, and one
 * that did not answer owes it (c->keep_due): the next op that takes the
 * agents carries it (lr_ctl_hand_keeps()). */
static void
keep_agents(struct lr_ctl *c, char **buf, size_t *len)
{
    char (*tags)[LR_WIRE_NAME_MAX] = NULL;
    /* Connected all at once: agents that cannot be reached cost the start
     * one timeout, not one each; those are owed their KEEP at once. */
    lr_agent_parties_connect(c->agent, LR_TM_MAX_DCS);
    for (int k = 0; k < LR_TM_MAX_DCS && c->cluster && k < c->cluster->n_dcs;
         k++) {
        if (!c->agent[k])
            continue;
        if (!tags && !(tags = malloc(LR_WIRE_KEEP_MAX * sizeof *tags))) {
            lr_ctl_say(buf, len, "agents: no KEEP sent: out of memory");
            return;
        }
        const char *dc = c->cluster->dcs[k].name;
        int n = lr_ctl_held_tags(c, k, tags, LR_WIRE_KEEP_MAX);
        if (n < 0) {
            lr_ctl_say(buf, len, "agent %s: more than %d jobs: no "
                       "KEEP sent", dc, LR_WIRE_KEEP_MAX);
            continue;
        }
        int rc = lr_agent_party_connected(c->agent[k])
                 ? lr_agent_party_keep(c->agent[k],
                                       (const char (*)[LR_WIRE_NAME_MAX]) tags,
                                       n)
                 : EHOSTUNREACH;
        if (rc) {
            const char *e = lr_agent_party_error(c->agent[k]);
            lr_ctl_say(buf, len, "agent %s: KEEP of %d job(s) not sent: %s: "
                       "sent with the agents' next plan instead (what it "
                       "holds for jobs deleted before this start stays "
                       "until then)", dc, n, e ? e : strerror(rc));
            c->keep_due[k] = true;
        } else {
            lr_ctl_say(buf, len, "agent %s: KEEP of %d job(s): it "
                       "released any other of ours", dc, n);
        }
    }
    free(tags);
}

int
lr_ctl_new(const struct lr_ctl_config *cfg, struct lr_ctl **out,
           char **report, char *err, size_t errlen)
{
    struct lr_ctl *c = calloc(1, sizeof *c);
    int rc;
    if (!c)
        return lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
    pthread_mutex_init(&c->dp_lock, NULL);
    jobs_changed(c);    /* never 0, and none an earlier controller gave */
    c->memo = calloc(LR_CTL_MEMO, sizeof *c->memo);
    c->tel = calloc(1, sizeof *c->tel);
    snprintf(c->default_driver, sizeof c->default_driver, "%s",
             cfg->default_driver ? cfg->default_driver : "dummy");
    if (cfg->dummy_dir && strlen(cfg->dummy_dir) >= sizeof c->dummy_dir) {
        rc = lr_ctl_fail(err, errlen, ENAMETOOLONG, "the dummy devices' "
                         "directory %s is longer than %zu bytes",
                         cfg->dummy_dir, sizeof c->dummy_dir - 1);
        goto fail;
    }
    snprintf(c->dummy_dir, sizeof c->dummy_dir, "%s",
             cfg->dummy_dir ? cfg->dummy_dir : ".");
    c->n_dev_cfg = cfg->n_devices;
    c->dev_cfg = calloc((size_t) cfg->n_devices + 1, sizeof *c->dev_cfg);
    if (!c->memo || !c->dev_cfg || !c->tel) {
        rc = lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    c->n_term = cfg->n_terminals > 0 ? cfg->n_terminals : 0;
    c->term = calloc((size_t) c->n_term + 1, sizeof *c->term);
    if (!c->term) {
        rc = lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
        goto fail;
    }
    if (c->n_term)
        memcpy(c->term, cfg->terminals, (size_t) c->n_term * sizeof *c->term);
    c->dp = cfg->dataplane;
    if (cfg->n_devices)
        memcpy(c->dev_cfg, cfg->devices,
               (size_t) cfg->n_devices * sizeof *c->dev_cfg);
    if ((cfg->agent_cert && strlen(cfg->agent_cert) >= sizeof c->agent_cert)
        || (cfg->agent_key && strlen(cfg->agent_key) >= sizeof c->agent_key)
        || (cfg->agent_ca && strlen(cfg->agent_ca) >= sizeof c->agent_ca)
        || (cfg->agent_crl
            && strlen(cfg->agent_crl) >= sizeof c->agent_crl)) {
        rc = lr_ctl_fail(err, errlen, ENAMETOOLONG, "a coordinator TLS file "
                         "name is longer than %zu bytes",
                         sizeof c->agent_cert - 1);
        goto fail;
    }
    snprintf(c->agent_cert, sizeof c->agent_cert, "%s",
             cfg->agent_cert ? cfg->agent_cert : "");
    snprintf(c->agent_key, sizeof c->agent_key, "%s",
             cfg->agent_key ? cfg->agent_key : "");
    snprintf(c->agent_ca, sizeof c->agent_ca, "%s",
             cfg->agent_ca ? cfg->agent_ca : "");
    snprintf(c->agent_crl, sizeof c->agent_crl, "%s",
             cfg->agent_crl ? cfg->agent_crl : "");
    c->agent_timeout = cfg->agent_timeout_s > 0 ? cfg->agent_timeout_s : 5;
    c->agent_budget = cfg->agent_budget_s > 0 ? cfg->agent_budget_s : 0;
    c->inspect = cfg->inspect;
    c->cdynp_step = cfg->cdynp_step;
    c->cdynp_beam = cfg->cdynp_beam;
    c->clock_ms = cfg->clock_ms;
    c->clock_arg = cfg->clock_arg;
    if (cfg->mods)
        c->mods = *cfg->mods;
    else
        lr_modtable_default(&c->mods);
    rc = lr_store_open(cfg->db_path, &c->store, err, errlen);
    if (rc)
        goto fail;
    /* The store's invariants (lightrail-check's first) before recovery
     * acts on them: a store that lost rows, as a corrupt index hides
     * a job's lightpaths, would have recovery remove their channels from
     * the devices as orphans.  Inspect judges, it does not refuse. */
    if (!cfg->inspect) {
        char why[512];
        rc = lr_store_check(c->store, why, sizeof why);
        if (rc == EINVAL)
            rc = lr_ctl_fail(err, errlen, EIO, "store %s: %s: the database "
                             "is corrupt; restore a backup, or mend it until "
                             "lightrail-check passes (no device was "
                             "touched)", cfg->db_path, why);
        else if (rc)
            rc = lr_ctl_fail(err, errlen, rc, "store: %s", why);
        if (rc)
            goto fail;
    }
    rc = open_network(c, cfg->topo, cfg->cluster, err, errlen);
    /* What the early check of the TLS files kept for this opening
     * (lr_ctl_check_device_files()) has served: a device a PUT adds
     * later reads its files then. */
    sb_driver_forget_files();
    if (rc)
        goto fail;
    for (int i = 0; i < c->n_term; i++) {
        int k = 0;
        while (k < c->cluster->n_dcs
               && strcmp(c->cluster->dcs[k].name, c->term[i].dc))
            k++;
        if (k == c->cluster->n_dcs) {
            rc = lr_ctl_fail(err, errlen, EINVAL, "southbound terminal '%s' "
                             "is for data center '%s', which the inventory "
                             "does not have: fix its dc", c->term[i].node,
                             c->term[i].dc);
            goto fail;
        }
    }
    double mean = lr_ctl_ppo_mean_job_or_default(cfg->ppo_mean_job_s);
    lr_rate_reset(&c->arrivals, (double) ctl_now_ms(c) / 1000,
                  LR_JENV_LOAD_TAU * mean, LR_JENV_LOAD_WARM * mean);
    if (cfg->ppo_policy && !cfg->inspect) {
        if (!(c->ppo_path = strdup(cfg->ppo_policy))) {
            rc = lr_ctl_fail(err, errlen, ENOMEM, "out of memory");
            goto fail;
        }
        c->ppo_mean_job_s = cfg->ppo_mean_job_s;
        if ((c->ppo_has_ro = cfg->ppo_rollout != NULL))
            c->ppo_ro = *cfg->ppo_rollout;
        c->ppo_base = cfg->ppo_base;
        c->ppo_base_arg = cfg->ppo_base_arg;
        if ((rc = ppo_load(c, &c->ppo, err, errlen)))
            goto fail;
        c->ppo_loaded_ms = ctl_now_ms(c);
    }
    /* The network stored only now that the start stands on it: the
     * files seed a store that holds none (lr_stored.h), so one stored
     * by a start refused above (a terminal's DC the inventory lacks, a
     * ROADM the configuration cannot open) would have every later start
     * take it, and ignore the fixed file. */
    /* The store's jobs, read once for the check and the recovery. */
    struct lr_job *jobs = NULL;
    int n_jobs = 0;
    if (lr_store_list_jobs(c->store, &jobs, &n_jobs)) {
        rc = lr_ctl_fail(err, errlen, EIO, "store: %s",
                         lr_store_error(c->store));
        goto fail;
    }
    rc = stored_jobs_fit_network(c, jobs, n_jobs, err, errlen);
    if (!rc)
        rc = store_network(c, cfg->topo_json, cfg->cluster_json, NULL, err,
                           errlen);
    if (!rc)
        rc = cfg->inspect ? inspect(c, jobs, n_jobs, err, errlen)
                          : recover(c, jobs, n_jobs, report, err, errlen);
    free(jobs);
    if (rc)
        goto fail;
    *out = c;
    return 0;

fail:
    lr_ctl_free(c);
    return rc;
}

void
lr_ctl_free(struct lr_ctl *c)
{
    if (!c)
        return;
    lr_ctl_ppo_free(c->ppo);
    if (!c->agents_lent)
        lr_ctl_settle_agents(c);
    close_network(c);
    lr_store_close(c->store);
    free((void *) c->jobs);
    free(c->memo);
    free(c->dev_cfg);
    free(c->term);
    free(c->emu);
    free(c->tel);
    /* Work still in flight is a caller's bug (lr_ctl.h); its op and
     * the devices it borrows go with the controller either way. */
    while (c->ops) {
        struct lr_ctl_op *op = c->ops;
        c->ops = op->next;
        lr_ctl_op_free(op);
    }
    lr_ctl_op_free(c->deciding);
    lr_ctl_plan_free(c->agent_plan);
    free(c->deferred);
    free(c->ppo_path);
    pthread_mutex_destroy(&c->dp_lock);
    free(c);
}

int
lr_ctl_ppo_reload(struct lr_ctl *c, char *err, size_t errlen)
{
    if (!c->ppo)
        return lr_ctl_fail(err, errlen, ENOENT, "no ppo-policy in the "
                           "configuration: nothing to reload");
    if (c->deciding)
        return fail_deciding(c, err, errlen, "reload");
    struct lr_ctl_ppo *p;
    int rc = ppo_load(c, &p, err, errlen);
    if (rc)
        return rc;
    const char *why = lr_ctl_ppo_why(p);
    if (why && !lr_ctl_ppo_why(c->ppo)) {
        rc = lr_ctl_fail(err, errlen, EINVAL, "%s; the policy loaded before "
                         "stays in use", why);
        lr_ctl_ppo_free(p);
        return rc;
    }
    lr_ctl_ppo_free(c->ppo);
    c->ppo = p;
    c->ppo_loaded_ms = ctl_now_ms(c);
    c->ppo_reloads++;
    return why ? lr_ctl_fail(err, errlen, EINVAL, "%s", why) : 0;
}

int
lr_ctl_ppo_info(const struct lr_ctl *c, struct lr_ctl_ppo_info *info)
{
    *info = (struct lr_ctl_ppo_info) { 0 };
    if (!c->ppo)
        return ENOENT;
    const struct lr_policy_meta *m = lr_ctl_ppo_meta(c->ppo);
    info->file = c->ppo_path;
    info->why = lr_ctl_ppo_why(c->ppo);
    info->usable = !info->why;
    info->rollout = c->ppo_has_ro;
    info->loaded_ms = c->ppo_loaded_ms;
    info->reloads = c->ppo_reloads;
    if (m) {
        info->loaded = true;
        info->checksum = m->checksum;
        info->holding = lr_jenv_holding_name(m->holding_mode);
        info->refuse = m->refuse;
        info->known_work = m->known_work;
        info->held_work = m->held_work;
        info->triples = m->triples;
        info->quads = m->quads;
        info->observe_load = m->observe_load;
        info->topology = m->topology;
        info->teacher = m->teacher[0] ? m->teacher : NULL;
        info->command = m->command;
    }
    return 0;
}

const char *
lr_ctl_ppo_status(const struct lr_ctl *c, bool *usable)
{
    *usable = c->ppo && !lr_ctl_ppo_why(c->ppo);
    return c->ppo ? lr_ctl_ppo_why(c->ppo) : NULL;
}

const struct lr_jenv *
lr_ctl_ppo_mirror(const struct lr_ctl *c)
{
    return c->ppo ? lr_ctl_ppo_env(c->ppo) : NULL;
}

const struct lr_topo *lr_ctl_topo(const struct lr_ctl *c) { return c->topo; }
const struct lr_cluster *lr_ctl_cluster(const struct lr_ctl *c)
{
    return c->cluster;
}
const struct lr_rsa *lr_ctl_rsa(const struct lr_ctl *c) { return c->rsa; }
const struct lr_modtable *lr_ctl_modtable(const struct lr_ctl *c)
{
    return &c->rsa->mods;
}
const int *lr_ctl_gpus_used(const struct lr_ctl *c) { return c->gpus_used; }
/* What 'op' saw of the ROADMs, into c->devst, at the controller's
 * clock now.  Owner's thread, once the op's step is over; an op of
 * another network (none: a new network waits for the ops) is skipped. */
void
lr_ctl_devs_fold(struct lr_ctl *c, const struct lr_ctl_op *op)
{
    if (!op->seen || !c->devst || !c->topo || op->n_seen != c->topo->n_nodes)
        return;
    long long now = ctl_now_ms(c);
    for (int i = 0; i < op->n_seen; i++) {
        struct lr_ctl_dev *d = &c->devst[i];
        bool was = d->up;
        lr_ctl_dev_fold(d, &op->seen[i], now);
        if (d->up != was && c->device_hook)
            c->device_hook(c->device_arg, d->name, d->up,
                           d->up ? "" : d->why);
    }
}

void
lr_ctl_set_device_hook(struct lr_ctl *c,
                       void (*hook)(void *, const char *, bool, const char *),
                       void *arg)
{
    c->device_hook = hook;
    c->device_arg = arg;
    /* A ROADM starts up (lr_ctl_dev_init()): one the start's
     * reconciliation found down has changed already, before any hook
     * could hear it; said now, or its coming back would be the first
     * word of it. */
    for (int i = 0; hook && i < lr_ctl_devices(c); i++)
        if (!c->devst[i].up)
            hook(arg, c->devst[i].name, false, c->devst[i].why);
}

int
lr_ctl_devices(const struct lr_ctl *c)
{
    return c->devst && c->topo ? c->topo->n_nodes : 0;
}

int
lr_ctl_device_status(const struct lr_ctl *c, int i,
                     struct lr_ctl_device_status *out)
{
    if (i < 0 || i >= lr_ctl_devices(c))
        return ENOENT;
    const struct lr_ctl_dev *d = &c->devst[i];
    *out = (struct lr_ctl_device_status) {
        .name = d->name, .driver = d->driver, .address = d->address,
        .up = d->up, .ok_ms = d->ok_ms, .fail_ms = d->fail_ms,
        .why = d->why, .ops = d->ops, .failures = d->failures,
    };
    /* The jobs' channels there, as their device work puts them. */
    for (int j = 0; j < c->n_jobs; j++) {
        struct sb_change ch[LR_JOB_MAX_LIGHTPATHS];
        enum lr_job_phase ph = c->jobs[j].phase;
        if (ph == LR_JOB_PROVISIONING || ph == LR_JOB_ACTIVE
            || ph == LR_JOB_RELEASING)
            out->channels += lr_ctl_changes_for(c, &c->jobs[j], i, SB_ADD,
                                                ch);
    }
    return 0;
}

const struct lr_ctl_counters *lr_ctl_counters(const struct lr_ctl *c)
{
    return &c->counters;
}
struct sb_linux *lr_ctl_dataplane(const struct lr_ctl *c) { return c->dp; }

const char *
lr_ctl_slot_owner(const struct lr_ctl *c, int link, int slot)
{
    for (int i = 0; i < c->n_jobs; i++)
        for (int k = 0; k < c->jobs[i].n_lightpaths; k++) {
            const struct lr_lightpath *lp = &c->jobs[i].lp[k];
            if (slot < lp->first || slot >= lp->first + lp->m)
                continue;
            for (int l = 0; l < lp->n_links; l++)
                if (lp->links[l] == link)
                    return c->jobs[i].intent.name;
        }
    return NULL;
}

int
lr_ctl_check(struct lr_ctl *c, char *err, size_t errlen)
{
    int rc = lr_store_check(c->store, err, errlen);
    if (rc)
        return rc;
    /* Memory against the store. */
    struct lr_job *jobs = NULL;
    int n = 0;
    if (lr_store_list_jobs(c->store, &jobs, &n))
        return lr_ctl_fail(err, errlen, EIO, "store: %s",
                           lr_store_error(c->store));
    int gpus[LR_TM_MAX_DCS] = { 0 };
    long slots = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].phase == LR_JOB_PROVISIONING
            || jobs[i].phase == LR_JOB_RELEASING) {
            rc = lr_ctl_fail(err, errlen, EINVAL, "job %s is still %s",
                             jobs[i].intent.name,
                             lr_job_phase_name(jobs[i].phase));
            free(jobs);
            return rc;
        }
        for (int k = 0; k < c->cluster->n_dcs; k++)
            gpus[k] += jobs[i].gpus[k];
        for (int l = 0; l < jobs[i].n_lightpaths; l++)
            slots += (long) jobs[i].lp[l].m * jobs[i].lp[l].n_links;
    }
    free(jobs);
    if (n != c->n_jobs)
        return lr_ctl_fail(err, errlen, EINVAL, "store holds %d jobs, "
                           "memory %d", n, c->n_jobs);
    for (int k = 0; k < c->cluster->n_dcs; k++)
        if (gpus[k] != c->gpus_used[k])
            return lr_ctl_fail(err, errlen, EINVAL, "DC %s: store reserves %d "
                               "GPUs, memory %d", c->cluster->dcs[k].name,
                               gpus[k], c->gpus_used[k]);
    long used, total;
    lr_spectrum_usage(c->rsa->sp, &used, &total);
    if (used != slots)
        return lr_ctl_fail(err, errlen, EINVAL, "store reserves %ld "
                           "slot-links, the spectrum map %ld", slots, used);
    /* Devices against the store. */
    char *rep = NULL;
    int drift = 0;
    rc = lr_ctl_reconcile(c, false, &rep, &drift, err, errlen);
    if (!rc && drift)
        rc = lr_ctl_fail(err, errlen, EINVAL, "devices differ from the "
                         "store: %s", rep ? rep : "");
    free(rep);
    return rc;
}
