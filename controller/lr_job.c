/* lr_job: see lr_job.h. */
#include <errno.h>
#include <string.h>

#include "controller/lr_job.h"

static const char *const names[] = {
    [LR_JOB_SUBMITTED] = "submitted",
    [LR_JOB_PLANNED] = "planned",
    [LR_JOB_PROVISIONING] = "provisioning",
    [LR_JOB_ACTIVE] = "active",
    [LR_JOB_RELEASING] = "releasing",
    [LR_JOB_BLOCKED] = "blocked",
    [LR_JOB_FAILED] = "failed",
};

const char *
lr_job_phase_name(enum lr_job_phase p)
{
    return (unsigned) p < sizeof names / sizeof *names ? names[p] : "unknown";
}

int
lr_job_phase_parse(const char *s, enum lr_job_phase *out)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum lr_job_phase) i;
            return 0;
        }
    return EINVAL;
}
