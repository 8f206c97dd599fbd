/*
 * lr_exact: the true minimum of T (lr_timemodel.h) over every plan, for
 * small instances: the yardstick for every other planner.
 */
#ifndef LR_EXACT_H
#define LR_EXACT_H 1

#include "planner/lr_timemodel.h"

struct lr_exact_stats {
    long nodes;               /* search-tree nodes visited */
    long leaves;              /* complete plans evaluated */
    bool complete;            /* false when max_nodes cut the search */
};

/* Finds a plan of least T.  'max_nodes' bounds the search (0 = no bound);
 * when the bound is hit, stats->complete is false and the best plan found
 * so far is returned (not a proven optimum).  Returns LR_TM_OK with
 * 'plan' and 'eval' filled, or why no plan exists. */
enum lr_tm_why lr_exact_plan(const struct lr_tm *, long max_nodes,
                             struct lr_plan *plan, struct lr_tm_eval *eval,
                             struct lr_exact_stats *stats);

#endif
