/*
 * lr_baseline: the planners CDynP is measured against.
 *
 *   dp         data parallelism only: every DC a full replica
 *              (lr_baseline_dp.c)
 *   pipedream  PipeDream's partitioner, built for one homogeneous cluster
 *              (lr_baseline_pipedream.c)
 *   spp        our reading of SPP (Luo et al., INFOCOM 2022)
 *              (lr_baseline_spp.c)
 *   zone       zone/telemetry-aware: the fewest DCs that can hold the
 *              job, then the least iteration time over the network as
 *              measured (lr_baseline_zone.c)
 *
 * Each fills a plan and its evaluation by the v1 model (lr_timemodel.h)
 * and returns LR_TM_OK or why it found none.  A data-parallel plan is not
 * a pipeline: its 'plan' lists one stage per DC holding every layer, and
 * its 'eval' carries T and the terms named in lr_baseline_dp.c (the
 * per-stage arrays: t = compute, sync = all-reduce, mem).
 */
#ifndef LR_BASELINE_H
#define LR_BASELINE_H 1

#include "planner/lr_telemetry.h"
#include "planner/lr_timemodel.h"

enum lr_tm_why lr_baseline_dp(const struct lr_tm *, struct lr_plan *,
                              struct lr_tm_eval *);
enum lr_tm_why lr_baseline_pipedream(const struct lr_tm *, struct lr_plan *,
                                     struct lr_tm_eval *);
/* PipeDream's search costs O(L^2 N^2): over 2 DCs of 1,000,000 devices
 * it held lightraild's planner for more than 5 minutes (days, by its
 * step count).  Past this many steps of its inner loop
 * (lr_baseline_pipedream_steps(): about 10 ns each at -O2, 20.4 s for
 * the 2.0e9 of bert-large on 3,807 devices, 2026-12-05; so about 2 s) it
 * is refused with LR_TM_WORK before any work, as the README's "Limits"
 * say. */
#define LR_BASELINE_PIPEDREAM_MAX_STEPS 2e8
/* The steps of the search over L layers and N devices:
 * sum over j < L, n <= N of j (n - 1).  Inline: lr_tm_explain() names
 * it, and the time model must not link the planners. */
static inline double
lr_baseline_pipedream_steps(int n_layers, int n_devices)
{
    return (double) n_layers * (n_layers - 1) / 2
           * ((double) n_devices * (n_devices - 1) / 2);
}
/* The same with at most 'max_stages' (1 to LR_PLAN_MAX_STAGES) stages,
 * LR_TM_STAGES when the best cut has more: lets a test reach the bound
 * with a small model, the search being O(L^2 N^2). */
enum lr_tm_why lr_baseline_pipedream_max(const struct lr_tm *,
                                         int max_stages, struct lr_plan *,
                                         struct lr_tm_eval *);
enum lr_tm_why lr_baseline_spp(const struct lr_tm *, struct lr_plan *,
                               struct lr_tm_eval *);
/* 'tel' may be NULL (no measurement: the inventory's links). */
enum lr_tm_why lr_baseline_zone(const struct lr_tm *,
                                const struct lr_telemetry *tel,
                                struct lr_plan *, struct lr_tm_eval *);

#endif
