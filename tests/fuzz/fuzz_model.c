/*
 * libFuzzer target for the model loader, lr_yang_load_model_mem()
 * (lightrail-model files: `lightrail plan --model-file`, a transformer
 * shape or explicit layers).  Any bytes must either load or fail with
 * one line starting with the file's name, never crash, leak or trip
 * UBSan.
 *
 * A model that loads keeps what the planner relies on (planner/
 * lr_model.h): at least one layer, every layer's FLOPs, parameters and
 * activations finite and not negative, and prefix sums that start at 0,
 * never decrease and end at the totals.  A broken promise aborts, so
 * that libFuzzer keeps the input.
 *
 * Build and run with `make fuzz` (tests/yang.am); seeded with
 * examples/models/.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_model.h"

#define LR_FUZZ_NAME "fuzz_model"
#define LR_FUZZ_YANG 1
#include "tests/fuzz/lr_fuzz.h"

static int
fine(double x)
{
    return isfinite(x) && x >= 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lr_model *m = NULL;
    char err[1024] = "";

    int rc = lr_yang_load_model_mem(ctx, (const char *) data, size, "fuzz",
                                    &m, err, sizeof err);
    if (rc) {
        check(m == NULL, "a failed load returned a model");
        check(!strchr(err, '\n') && !strncmp(err, "fuzz: ", 6),
              "an error is not one line starting with the file name");
        return 0;
    }
    check(m->n_layers >= 1, "a model without layers");
    check(m->pre_flops[0] == 0 && m->pre_params[0] == 0
          && m->pre_act[0] == 0, "prefix sums not starting at 0");
    for (int i = 0; i < m->n_layers; i++) {
        const struct lr_layer *l = &m->layers[i];
        check(fine(l->flops) && fine(l->params) && fine(l->act),
              "a layer's size negative or not finite");
        check(m->pre_flops[i + 1] >= m->pre_flops[i]
              && m->pre_params[i + 1] >= m->pre_params[i]
              && m->pre_act[i + 1] >= m->pre_act[i],
              "prefix sums that decrease");
    }
    check(fine(m->pre_flops[m->n_layers]) && fine(m->pre_params[m->n_layers])
          && fine(m->pre_act[m->n_layers]), "totals not finite");
    lr_model_free(m);
    return 0;
}
