/* lr_timemodel: the v1 iteration-time model; see lr_timemodel.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_baseline.h"
#include "planner/lr_timemodel.h"

int
lr_tm_new(const struct lr_model *model, const struct lr_cluster *cluster,
          const struct lr_train *train, struct lr_tm **out)
{
    if (!(train->batch > 0) || !(train->micro > 0)
        || !isfinite(train->batch) || !isfinite(train->micro)
        || !(train->elem_bytes > 0) || cluster->n_dcs < 1
        || cluster->n_dcs > LR_TM_MAX_DCS || model->n_layers < 1)
        return EINVAL;
    double m = train->batch / train->micro;
    /* (An infinite m made the test below NaN, which passed.) */
    if (!(m >= 1 && m <= LR_TM_MAX_MICROBATCHES)
        || fabs(m - round(m)) > 1e-9)
        return EINVAL;
    struct lr_tm *tm = calloc(1, sizeof *tm);
    if (!tm)
        return ENOMEM;
    tm->model = model;
    tm->train = *train;
    tm->m = (int) round(m);
    tm->n_dcs = cluster->n_dcs;
    for (int k = 0; k < cluster->n_dcs; k++) {
        const struct lr_dc *d = &cluster->dcs[k];
        const struct lr_device_type *t = &cluster->types[d->device_type];
        struct lr_tm_dc *o = &tm->dcs[k];
        memcpy(o->name, d->name, sizeof o->name);
        o->peak = t->peak_flops;
        o->eff = t->efficiency;
        o->mem = t->memory_bytes;
        o->n_devices = d->n_devices;
        o->beta = d->intra_bw;
        o->alpha = d->intra_latency;
    }
    for (int i = 0; i < cluster->n_links; i++) {
        const struct lr_dc_link *l = &cluster->links[i];
        lr_tm_set_link(tm, l->a, l->b, l->bw, l->latency);
    }
    *out = tm;
    return 0;
}

void
lr_tm_free(struct lr_tm *tm)
{
    free(tm);
}

void
lr_tm_set_link(struct lr_tm *tm, int a, int b, double bw, double lat)
{
    tm->link[a][b] = tm->link[b][a] = (struct lr_tm_link) { bw, lat };
}

double
lr_tm_stage_time(const struct lr_tm *tm, int dc, int first, int last, int g)
{
    const struct lr_tm_dc *d = &tm->dcs[dc];
    return 3 * tm->train.micro * lr_model_flops(tm->model, first, last)
           / (g * d->peak * d->eff);
}

double
lr_tm_stage_sync(const struct lr_tm *tm, int dc, int first, int last, int g)
{
    if (g <= 1)
        return 0;
    const struct lr_tm_dc *d = &tm->dcs[dc];
    double bytes = tm->train.elem_bytes
                   * lr_model_params(tm->model, first, last);
    return 2.0 * (g - 1) / g * bytes / d->beta + 2.0 * (g - 1) * d->alpha;
}

double
lr_tm_stage_mem(const struct lr_tm *tm, int first, int last, int g,
                int n_stages)
{
    int inflight = tm->m < n_stages ? tm->m : n_stages;
    return 16 * lr_model_params(tm->model, first, last)
           + inflight * (tm->train.micro / g) * tm->train.elem_bytes
             * lr_model_act(tm->model, first, last);
}

double
lr_tm_boundary_bytes(const struct lr_tm *tm, int layer)
{
    return tm->train.micro * tm->model->layers[layer].act
           * tm->train.elem_bytes;
}

bool
lr_tm_boundary(const struct lr_tm *tm, int layer, int from, int to, double *c,
               double *x)
{
    double X = lr_tm_boundary_bytes(tm, layer);
    if (from == to) {
        *x = X / tm->dcs[from].beta;
        *c = tm->dcs[from].alpha + *x;
        return true;
    }
    const struct lr_tm_link *l = &tm->link[from][to];
    if (!(l->bw > 0))
        return false;
    *x = X / l->bw;
    *c = l->lat + *x;
    return true;
}

/* The text of LR_TM_STAGES spells the bound out. */
_Static_assert(LR_PLAN_MAX_STAGES == 512, "update lr_tm_why_str()");

const char *
lr_tm_why_str(enum lr_tm_why w)
{
    switch (w) {
    case LR_TM_OK:
        return "ok";
    case LR_TM_MEMORY:
        return "a stage does not fit in device memory";
    case LR_TM_DEVICES:
        return "a data center's stages need more devices than it has";
    case LR_TM_NO_LINK:
        return "consecutive data centers have no inter-DC link";
    case LR_TM_SHAPE:
        return "the stages do not cover the layers in order, or revisit a "
               "data center";
    case LR_TM_NOMEM:
        return "the planner ran out of memory (its tables grow with the "
               "layers times the devices of a data center)";
    case LR_TM_STAGES:
        return "the plan would have more stages than the 512 a plan holds";
    case LR_TM_WORK:
        return "the search over these layers and devices would take too "
               "long";
    }
    return "unknown";
}

static enum lr_tm_why
fail(struct lr_tm_eval *out, enum lr_tm_why why, int stage)
{
    out->why = why;
    out->bad_stage = stage;
    out->T = INFINITY;
    return why;
}

enum lr_tm_why
lr_tm_evaluate(const struct lr_tm *tm, const struct lr_plan *plan,
               struct lr_tm_eval *out)
{
    const int p = plan->n_stages, L = tm->model->n_layers;
    int used[LR_TM_MAX_DCS] = { 0 };
    bool done[LR_TM_MAX_DCS] = { false };

    memset(out, 0, sizeof *out);
    out->bad_stage = -1;
    if (p < 1 || p > LR_PLAN_MAX_STAGES)
        return fail(out, LR_TM_SHAPE, -1);

    for (int s = 0; s < p; s++) {
        const struct lr_stage *st = &plan->stages[s];
        int want_first = s ? plan->stages[s - 1].last + 1 : 0;
        if (st->first != want_first || st->last < st->first
            || st->last >= L || st->dc < 0 || st->dc >= tm->n_dcs
            || st->g < 1)
            return fail(out, LR_TM_SHAPE, s);
        /* The pipeline visits each DC once: a DC left behind is closed. */
        if (s > 0 && plan->stages[s - 1].dc != st->dc)
            done[plan->stages[s - 1].dc] = true;
        if (done[st->dc])
            return fail(out, LR_TM_SHAPE, s);
        used[st->dc] += st->g;
        if (used[st->dc] > tm->dcs[st->dc].n_devices)
            return fail(out, LR_TM_DEVICES, s);

        out->t[s] = lr_tm_stage_time(tm, st->dc, st->first, st->last, st->g);
        out->sync[s] = lr_tm_stage_sync(tm, st->dc, st->first, st->last,
                                        st->g);
        out->mem[s] = lr_tm_stage_mem(tm, st->first, st->last, st->g, p);
        if (out->mem[s] > tm->dcs[st->dc].mem)
            return fail(out, LR_TM_MEMORY, s);
        out->compute_sum += out->t[s];
        if (out->t[s] > out->bottleneck)
            out->bottleneck = out->t[s];
        if (out->sync[s] > out->sync_max)
            out->sync_max = out->sync[s];

        if (s > 0) {
            int b = s - 1;
            const struct lr_stage *prev = &plan->stages[b];
            out->bytes[b] = lr_tm_boundary_bytes(tm, prev->last);
            if (!lr_tm_boundary(tm, prev->last, prev->dc, st->dc, &out->c[b],
                                &out->x[b]))
                return fail(out, LR_TM_NO_LINK, s);
            out->comm_sum += 2 * out->c[b];
            if (out->x[b] > out->bottleneck)
                out->bottleneck = out->x[b];
        }
    }
    if (plan->stages[p - 1].last != L - 1)
        return fail(out, LR_TM_SHAPE, p - 1);
    out->T = out->compute_sum + out->comm_sum
             + (tm->m - 1) * out->bottleneck + out->sync_max;
    out->why = LR_TM_OK;
    return LR_TM_OK;
}

void
lr_tm_explain(const struct lr_tm *tm, enum lr_tm_why why, char *buf, size_t len)
{
    const struct lr_model *m = tm->model;
    if (why == LR_TM_MEMORY) {
        /* The least any layer can need: alone, on a whole DC, one stage.
         * Only the DCs the plan may use count: a DC given no devices (one
         * outside a candidate's chain, say) lends none of its memory. */
        double need = INFINITY, have = 0;
        int worst = 0;
        for (int l = 0; l < m->n_layers; l++) {
            double least = INFINITY;
            for (int k = 0; k < tm->n_dcs; k++)
                if (tm->dcs[k].n_devices > 0)
                    least = fmin(least,
                                 lr_tm_stage_mem(tm, l, l,
                                                 tm->dcs[k].n_devices, 1));
            if (!isfinite(need) || least > need) {
                need = least;
                worst = l;
            }
        }
        int devices = 0;
        for (int k = 0; k < tm->n_dcs; k++)
            if (tm->dcs[k].n_devices > 0) {
                have = fmax(have, tm->dcs[k].mem);
                devices += tm->dcs[k].n_devices;
            }
        if (!devices) {
            /* Not "layer 1 alone needs inf GB": no memory to compare. */
            snprintf(buf, len, "memory: no data center has a device the "
                     "plan may use (their devices are held by other jobs, "
                     "or none were given): wait for jobs to end, or free "
                     "some");
            return;
        }
        /* Devices under 0.1 GB (test rigs) would read as "0.0 GB". */
        int prec = have < 1e8 ? 4 : 1;
        if (need > have)
            snprintf(buf, len, "memory: layer %d alone needs %.1f GB per "
                     "device (16 bytes per parameter for mixed-precision "
                     "Adam plus activations), the largest device it may "
                     "use has %.*f GB", worst + 1, need / 1e9, prec, have / 1e9);
        else
            /* A microbatch of one sample cannot be made smaller. */
            snprintf(buf, len, "memory: no cut of the %d layers into stages "
                     "fits the devices it may use (the largest has "
                     "%.*f GB); use more devices%s", m->n_layers, prec,
                     have / 1e9,
                     tm->train.micro > 1 ? " or a smaller microbatch"
                                         : " (the microbatch is one sample "
                                           "already)");
        return;
    }
    if (why == LR_TM_STAGES) {
        /* A stage has one layer and one device at least: either count at
         * most LR_PLAN_MAX_STAGES keeps the cut within the bound, and so
         * does CDynP's device step S, whose stages have S devices at
         * least, from n / LR_PLAN_MAX_STAGES up. */
        int n = 0;
        for (int k = 0; k < tm->n_dcs; k++)
            n += tm->dcs[k].n_devices;
        int step = (n + LR_PLAN_MAX_STAGES - 1) / LR_PLAN_MAX_STAGES;
        snprintf(buf, len, "stages: the best cut of the %d layers over %d "
                 "devices has more than %d stages, the most a plan holds; "
                 "plan on at most %d devices, with CDynP at a device step "
                 "of %d or more, or with another algorithm", m->n_layers, n,
                 LR_PLAN_MAX_STAGES, LR_PLAN_MAX_STAGES,
                 step > 1 ? step : 2);
        return;
    }
    if (why == LR_TM_WORK) {
        int n = 0;
        for (int k = 0; k < tm->n_dcs; k++)
            n += tm->dcs[k].n_devices;
        snprintf(buf, len, "work: pipedream's search over the %d layers "
                 "and %d devices would take about %.2g steps (L^2 N^2 / 4), "
                 "more than its bound of %.0e (seconds on the planner's "
                 "thread); plan with CDynP, whose device step bounds its "
                 "work, or on fewer devices", m->n_layers, n,
                 lr_baseline_pipedream_steps(m->n_layers, n),
                 LR_BASELINE_PIPEDREAM_MAX_STEPS);
        return;
    }
    snprintf(buf, len, "%s", lr_tm_why_str(why));
}

