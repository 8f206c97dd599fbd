/*
 * libFuzzer target for the parsers of the API's POST bodies: the job
 * intent (lr_yang_parse_intent(), every POST to /data/lightrail-job:jobs)
 * and the reconcile operation's input (lr_yang_parse_reconcile()), both
 * run on every input.  Any bytes must either give what the controller
 * can take or be refused with a one-line reason, never crash, leak or
 * trip UBSan.
 *
 * Accepted, an intent holds what the schema and the parser promise
 * (yang/lightrail-job.yang, yang/lr_yang_job.h): a name of 1 to 63
 * characters without white space, a batch a multiple of its positive
 * microbatch, 1 <= gpus min <= max, a known algorithm or none, and a
 * model that is a preset unless a custom shape came with it.  Refused,
 * the intent is all zero and the reason and the path are one line each;
 * the reconcile parser's refusals too have a one-line reason.
 * A broken promise aborts, so that libFuzzer keeps the input.
 *
 * Build and run with `make fuzz` (tests/yang.am); seeded with the
 * example jobs, a few other forms, reconcile bodies and the refused
 * bodies of tests/data/bad/.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_model.h"
#include "yang/lr_yang_job.h"

#define LR_FUZZ_NAME "fuzz_intent"
#define LR_FUZZ_YANG 1
#include "tests/fuzz/lr_fuzz.h"

static int
all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

static void
reconcile(const uint8_t *data, size_t size)
{
    char path[512], msg[512];
    bool dry = false, again = false;
    int rc = lr_yang_parse_reconcile(ctx, (const char *) data, size, &dry,
                                     &again, path, sizeof path, msg,
                                     sizeof msg);
    if (rc) {
        check(msg[0] != '\0', "reconcile: a refusal without a reason");
        check(!strchr(msg, '\n') && !strchr(path, '\n'),
              "reconcile: a reason or a path of more than one line");
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lr_intent in;
    char path[512], msg[512];

    reconcile(data, size);

    memset(&in, 0xa5, sizeof in);
    int rc = lr_yang_parse_intent(ctx, (const char *) data, size, &in, path,
                                  sizeof path, msg, sizeof msg);
    if (rc) {
        check(all_zero(&in, sizeof in), "a refused intent is not zeroed");
        check(msg[0] != '\0', "a refusal without a reason");
        check(!strchr(msg, '\n') && !strchr(path, '\n'),
              "a reason or a path of more than one line");
        return 0;
    }
    size_t nl = strnlen(in.name, sizeof in.name);
    check(nl >= 1 && nl < sizeof in.name, "a name of no or too many chars");
    for (size_t i = 0; i < nl; i++)
        check(!isspace((unsigned char) in.name[i]), "white space in a name");
    check(in.batch >= 1 && in.micro >= 1, "a batch or microbatch below 1");
    check((long long) in.batch % (long long) in.micro == 0,
          "a batch that is not a multiple of its microbatch");
    check(in.gpus_min >= 1 && in.gpus_min <= in.gpus_max,
          "gpus min not in 1..max");
    static const char *algs[] = { "", "cdynp", "exact", "dp", "pipedream",
                                  "spp", "zone", "ppo" };
    int known = 0;
    for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
        known |= !strcmp(in.algorithm, algs[i]);
    check(known, "an unknown algorithm");
    struct lr_transformer shape;
    check(in.custom || lr_model_preset_shape(in.model, &shape) == 0,
          "a model that is neither a preset nor a custom shape");
    check(in.priority >= 0, "a negative priority");
    return 0;
}
