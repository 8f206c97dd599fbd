/*
 * lr_cdynp_relax: see lr_cdynp_relax.h.  The loops are the header's;
 * this file is their vectorised build, with a clone per x86-64 level
 * (lr_clones.h) and liblrsimd's flags.
 */
#include "planner/lr_cdynp_relax.h"
#include "planner/lr_clones.h"

LR_CLONES void
lr_cdynp_relax(const struct lr_cdynp_stage *st, int n,
               const struct lr_cdynp_cols *prev,
               const struct lr_cdynp_cols *best)
{
    lr_cdynp_relax_inline(st, n, prev, best);
}
