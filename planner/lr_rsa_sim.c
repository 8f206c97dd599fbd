/* lr_rsa_sim: see lr_rsa_sim.h for the model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_rng.h"
#include "planner/lr_rsa_sim.h"

struct departure {
    double t;
    struct lr_rsa_choice c;
};

struct heap {
    struct departure *a;
    int n, cap;
};

static int
heap_push(struct heap *h, const struct departure *d)
{
    if (h->n == h->cap) {
        int ncap = h->cap ? 2 * h->cap : 256;
        struct departure *a = realloc(h->a, (size_t) ncap * sizeof *a);
        if (!a)
            return ENOMEM;
        h->a = a;
        h->cap = ncap;
    }
    int i = h->n++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (h->a[parent].t <= d->t)
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i] = *d;
    return 0;
}

/* Removes the earliest departure into '*out'. */
static void
heap_pop(struct heap *h, struct departure *out)
{
    *out = h->a[0];
    struct departure last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= h->n)
            break;
        if (child + 1 < h->n && h->a[child + 1].t < h->a[child].t)
            child++;
        if (last.t <= h->a[child].t)
            break;
        h->a[i] = h->a[child];
        i = child;
    }
    if (h->n > 0)
        h->a[i] = last;
}

void
lr_rsa_sim_defaults(struct lr_rsa_sim_config *cfg)
{
    *cfg = (struct lr_rsa_sim_config) {
        .load = 0, .n_requests = 13000, .warmup = 3000, .seed = 1,
        .rate_min = 25, .rate_max = 100, .truncate = true,
    };
}

void
lr_rsa_sim_demand_sizes(const struct lr_modtable *mods, int guard,
                        int rate_min, int rate_max,
                        uint64_t set[LR_RSA_DEMAND_WORDS])
{
    memset(set, 0, LR_RSA_DEMAND_WORDS * sizeof *set);
    for (int f = 0; f < mods->n; f++)
        for (long r = rate_min; r <= rate_max; r++) {   /* to INT_MAX */
            int m = lr_mod_slots(&mods->f[f], (double) r, guard);
            if (m >= 1 && m <= LR_RSA_MAX_DEMAND_SIZE)
                lr_bits_set(set, m, 1);
        }
}

static double
holding_time(struct lr_rng *rng, bool truncate)
{
    const double mean = 1.0;
    double t;
    do
        t = lr_rng_exp(rng, mean);
    while (truncate && !(t > 0 && t < 2 * mean));
    return t;
}

int
lr_rsa_sim_run(struct lr_rsa *rsa, const struct lr_rsa_sim_config *cfg,
               struct lr_rsa_sim_result *out)
{
    const int n = rsa->topo->n_nodes;
    if (!(cfg->load > 0) || cfg->n_requests <= cfg->warmup
        || cfg->warmup < 0 || cfg->rate_min < 1
        || cfg->rate_max < cfg->rate_min || n < 2)
        return EINVAL;

    struct lr_rng rng;
    struct heap heap = { 0 };
    struct lr_rsa_sim_result r = { 0 };
    double now = 0, used_time = 0, t_start = 0, req_gbps = 0, blk_gbps = 0;
    long used = 0, total = 0;
    const double rate = cfg->load;   /* arrivals per unit mean holding time */
    int err = 0;

    lr_spectrum_reset(rsa->sp);
    lr_spectrum_usage(rsa->sp, &used, &total);
    lr_rng_seed(&rng, cfg->seed);

    for (long i = 0; i < cfg->n_requests; i++) {
        double next = now + lr_rng_exp(&rng, 1.0 / rate);
        while (heap.n > 0 && heap.a[0].t <= next) {
            struct departure d;
            heap_pop(&heap, &d);
            if (i > cfg->warmup)
                used_time += (double) used * (d.t - now);
            now = d.t;
            used -= (long) d.c.m * rsa->ksp->paths[d.c.path].n_links;
            lr_rsa_release(rsa, &d.c);
        }
        if (i > cfg->warmup)
            used_time += (double) used * (next - now);
        now = next;
        if (i == cfg->warmup)
            t_start = now;

        struct lr_rsa_request req;
        req.src = (int) lr_rng_below(&rng, (uint32_t) n);
        req.dst = (int) lr_rng_below(&rng, (uint32_t) n - 1);
        if (req.dst >= req.src)
            req.dst++;
        req.rate_gbps = cfg->rate_min
            + (int) lr_rng_below(&rng, (uint32_t) (cfg->rate_max
                                                   - cfg->rate_min + 1));
        double hold = holding_time(&rng, cfg->truncate);

        struct departure d = { .t = now + hold };
        enum lr_rsa_block b = lr_rsa_decide(rsa, &req, &d.c);
        bool counted = i >= cfg->warmup;
        if (counted) {
            r.counted++;
            req_gbps += req.rate_gbps;
        }
        if (b != LR_RSA_OK) {
            if (counted) {
                r.blocked++;
                r.blocked_by[b]++;
                blk_gbps += req.rate_gbps;
            }
            continue;
        }
        /* A decision the spectrum refuses is a policy bug, not traffic. */
        if (lr_rsa_commit(rsa, &d.c)) {
            err = EFAULT;
            goto cleanup;
        }
        used += (long) d.c.m * rsa->ksp->paths[d.c.path].n_links;
        err = heap_push(&heap, &d);
        if (err)
            goto cleanup;
    }
    r.blocking = r.counted ? (double) r.blocked / r.counted : 0;
    r.bit_blocking = req_gbps > 0 ? blk_gbps / req_gbps : 0;
    r.utilisation = now > t_start && total > 0
                    ? used_time / ((now - t_start) * (double) total) : 0;
    *out = r;

cleanup:
    free(heap.a);
    return err;
}
