/* lr_telemetry: measured links and the telemetry-aware score; see
 * lr_telemetry.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_telemetry.h"

int
lr_telemetry_measure(const struct lr_counter_sample *b,
                     const struct lr_counter_sample *a, double scale,
                     double *throughput, double *loss)
{
    if (a->ms <= b->ms || a->bytes < b->bytes || a->packets < b->packets
        || a->drops < b->drops)
        return EINVAL;
    double dt = (double) (a->ms - b->ms) / 1000;
    double sent = (double) (a->packets - b->packets);
    double dropped = (double) (a->drops - b->drops);
    *throughput = scale * (double) (a->bytes - b->bytes) / dt;
    *loss = sent + dropped > 0 ? dropped / (sent + dropped) : 0;
    return 0;
}

void
lr_telemetry_reset(struct lr_telemetry *t, int n_dcs)
{
    memset(t, 0, sizeof *t);
    t->n_dcs = n_dcs;
}

void
lr_telemetry_add(struct lr_telemetry *t, int a, int b, double capacity,
                 double throughput, double loss, double delay)
{
    if (a < 0 || b < 0 || a >= t->n_dcs || b >= t->n_dcs)
        return;
    struct lr_link_telemetry *l = &t->link[a][b];
    if (!l->valid) {
        *l = (struct lr_link_telemetry) { true, capacity, throughput, loss,
                                          delay };
        return;
    }
    double w0 = l->throughput, w1 = throughput;
    if (!(w0 + w1 > 0)) {
        w0 = l->capacity;
        w1 = capacity;
    }
    if (w0 + w1 > 0)
        l->loss = (l->loss * w0 + loss * w1) / (w0 + w1);
    l->capacity += capacity;
    l->throughput += throughput;
    l->delay = fmax(l->delay, delay);
}

double
lr_telemetry_available(const struct lr_telemetry *t, int a, int b)
{
    if (a < 0 || b < 0 || a >= t->n_dcs || b >= t->n_dcs)
        return 0;
    const struct lr_link_telemetry *l = &t->link[a][b];
    if (!l->valid)
        return 0;
    return fmax(l->capacity - l->throughput, 0) * (1 - l->loss);
}

void
lr_telemetry_apply(const struct lr_telemetry *t, struct lr_tm *tm)
{
    int n = t->n_dcs < tm->n_dcs ? t->n_dcs : tm->n_dcs;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            const struct lr_link_telemetry *ab = &t->link[a][b],
                                           *ba = &t->link[b][a];
            if (!ab->valid && !ba->valid)
                continue;
            double bw = tm->link[a][b].bw > 0 ? tm->link[a][b].bw : INFINITY;
            double lat = tm->link[a][b].lat;
            if (ab->valid) {
                bw = fmin(bw, lr_telemetry_available(t, a, b));
                lat = fmax(lat, ab->delay);
            }
            if (ba->valid) {
                bw = fmin(bw, lr_telemetry_available(t, b, a));
                lat = fmax(lat, ba->delay);
            }
            lr_tm_set_link(tm, a, b, bw, lat);
        }
}

double
lr_telemetry_score(const struct lr_tm *tm, const struct lr_telemetry *t,
                   const struct lr_plan *plan)
{
    struct lr_tm *view = malloc(sizeof *view);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    double T = INFINITY;
    if (view && ev) {
        *view = *tm;
        lr_telemetry_apply(t, view);
        if (lr_tm_evaluate(view, plan, ev) == LR_TM_OK && isfinite(ev->T))
            T = ev->T;
    }
    free(view);
    free(ev);
    return T;
}
