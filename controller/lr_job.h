/*
 * lr_job: a training job as the controller keeps it — the operator's
 * intent, where the job is in its life, and what it holds.
 *
 * Phases (the state machine of ../shared/ARCHITECTURE.md):
 *   submitted -> planned -> provisioning -> active -> releasing -> gone
 *   or blocked (no plan: no GPUs, no spectrum, memory) or failed (a device
 *   refused or a restart interrupted provisioning), both with a reason.
 * "gone" is never stored: a released job is deleted.
 *
 * Plain data: no pointers, so a job copies with '=' and the store, the
 * northbound and the controller can pass it around freely.
 */
#ifndef LR_JOB_H
#define LR_JOB_H 1

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "planner/lr_model.h"
#include "planner/lr_modulation.h"
#include "planner/lr_timemodel.h"

#define LR_JOB_NAME_MAX 64
/* The bytes of a reason or a note, its NUL included.  Large enough for
 * what the controller says (a spectrum refusal between DCs with long
 * names, a recovery's device message and its advice): the advice ends
 * the text.  Longer text is cut at a character with " [...]" at its end
 * (lr_utf8_appendf(), planner/lr_utf8.h), so that a reader sees it was;
 * the store keeps what the struct holds. */
#define LR_JOB_REASON_MAX 4096
#define LR_JOB_MAX_LIGHTPATHS 32
#define LR_JOB_MAX_HOPS 32
/* The guard slots a lightpath's m includes: the controller's RMSA
 * engine sizes lightpaths with it (lr_ctl.c open_network()), and a
 * stored lightpath is judged with it (lr_lightpath_fits()). */
#define LR_JOB_GUARD_SLOTS 1
/* The longest iteration a job may be planned for, in seconds: within what
 * lightrail-job's iteration-time-s and time-s (decimal64, 6 fraction
 * digits, at most 9223372036854.775807) can state.  About 285,000 years:
 * a plan slower than that is blocked, not printed as an invalid value. */
#define LR_JOB_MAX_ITERATION_S 9e12
/* The largest gOSNR magnitude a lightpath keeps, in dB: within what
 * lightrail-job's gosnr (decimal64, 2 fraction digits) can state, and
 * far beyond any receiver's (tens of dB).  A measurement beyond it, or
 * not finite (+INFINITY: no noise modelled), is kept as not known: it
 * is above every threshold anyway. */
#define LR_JOB_MAX_GOSNR_DB 1e9

enum lr_job_phase {
    LR_JOB_SUBMITTED,
    LR_JOB_PLANNED,
    LR_JOB_PROVISIONING,
    LR_JOB_ACTIVE,
    LR_JOB_RELEASING,
    LR_JOB_BLOCKED,
    LR_JOB_FAILED,
};

/* What the operator asked for (lightrail-job.yang, container intent). */
struct lr_intent {
    char name[LR_JOB_NAME_MAX];
    char model[LR_NAME_MAX];  /* a preset, or the name of 'shape' */
    bool custom;              /* the model is 'shape', not a preset */
    struct lr_transformer shape;
    double batch, micro;
    int gpus_min, gpus_max;
    char algorithm[16];       /* cdynp (default), exact, dp, pipedream, spp,
                               * zone, ppo */
    int priority;             /* 0 = default; higher first (informative) */
    /* The number of training iterations the job will run, 0 when the
     * intent does not say: a ppo policy trained with known work reads it
     * (controller/lr_ctl_ppo.h). */
    uint64_t iterations;
};

/* One directed lightpath carrying one direction of an inter-DC boundary:
 * the same slots [first, first + m) on every link of 'links'. */
struct lr_lightpath {
    int from_dc, to_dc;       /* cluster DC indices */
    int n_links;
    int links[LR_JOB_MAX_HOPS];   /* topology link indices, in order */
    double length_km;
    /* The format by its name in the modulation table that chose it,
     * "" when not known (a lightpath stored by index before schema 5
     * whose index the default table lacked).  By name, not index: the
     * table is lightraild's configuration (modulation-table) and may
     * change between two starts, which must not re-read a lightpath as
     * another format (lr_ctl_mod_mismatch()). */
    char modulation[LR_MOD_NAME_MAX];
    int first, m;             /* slots, guard included */
    int n;                    /* flexgrid n of the channel (m is m) */
    double capacity_gbps;
    /* The gOSNR the receiving terminal measured when the lightpath was
     * provisioned (lr_ctl.h step 6b), in dB, when 'gosnr_known'; not
     * known (false: the zero of a new lightpath) where no terminal
     * measured it (a driver without check_lightpath, no terminals, a
     * lightpath stored before schema 6), and then never judged.  Kept
     * so that a threshold changed since can be judged without tuning
     * the terminals again (lr_lightpath_fits()). */
    bool gosnr_known;
    double gosnr_db;
};

struct lr_job {
    struct lr_intent intent;
    enum lr_job_phase phase;
    char reason[LR_JOB_REASON_MAX];   /* when blocked or failed */
    /* How the plan was made when it is not plainly the algorithm asked
     * for (an intent for ppo: the candidate taken, or why CDynP planned
     * it instead); empty otherwise.  Kept whatever the phase. */
    char note[LR_JOB_REASON_MAX];
    struct lr_plan plan;              /* stages (DC indices) */
    double iteration_s;               /* predicted T with the lightpaths */
    int gpus[LR_TM_MAX_DCS];          /* devices held per DC */
    int n_lightpaths;
    struct lr_lightpath lp[LR_JOB_MAX_LIGHTPATHS];
    int64_t created_ms, updated_ms;   /* Unix time, milliseconds */
};

/* Whether lightpath 'lp' still fits table 't' as it was planned (the
 * table may have changed since: lightraild's modulation-table): 0, or
 * the LR_MOD_* bits of every check it fails, with their facts in 'why'
 * (LR_MOD_JUDGE_WHY_MAX bytes suffice): lr_mod_judge() on the
 * lightpath's format, length, rate, slots and measured gOSNR.  One
 * judgement for the start's report, lightrail-check and GET's
 * modulation-mismatch. */
static inline int
lr_lightpath_fits(const struct lr_modtable *t, const struct lr_lightpath *lp,
                  char *why, size_t whylen)
{
    return lr_mod_judge(t, lp->modulation, lp->length_km, lp->capacity_gbps,
                        lp->m, LR_JOB_GUARD_SLOTS,
                        lp->gosnr_known ? &lp->gosnr_db : NULL, why, whylen);
}

#define LR_JOB_N_PHASES 7

/* The phases' names.  They are the API (lightrail-job's phase
 * enumeration) and the database's (the CHECK constraint of jobs.phase in
 * controller/lr_store.c): one table for all, changed with all three. */
static inline const char *
lr_job_phase_name(enum lr_job_phase p)
{
    static const char *const names[LR_JOB_N_PHASES] = {
        [LR_JOB_SUBMITTED] = "submitted",
        [LR_JOB_PLANNED] = "planned",
        [LR_JOB_PROVISIONING] = "provisioning",
        [LR_JOB_ACTIVE] = "active",
        [LR_JOB_RELEASING] = "releasing",
        [LR_JOB_BLOCKED] = "blocked",
        [LR_JOB_FAILED] = "failed",
    };
    return (unsigned) p < LR_JOB_N_PHASES ? names[p] : NULL;
}

/* Returns 0 and sets '*out', or EINVAL for an unknown name. */
static inline int
lr_job_phase_parse(const char *s, enum lr_job_phase *out)
{
    for (int i = 0; s && i < LR_JOB_N_PHASES; i++)
        if (!strcmp(s, lr_job_phase_name((enum lr_job_phase) i))) {
            *out = (enum lr_job_phase) i;
            return 0;
        }
    return EINVAL;
}

/* The model an intent names: its custom shape, or the preset.  Returns 0
 * with a model the caller frees with lr_model_free(), or ENOENT (unknown
 * preset) / EINVAL (a shape the planner refuses). */
static inline int
lr_intent_model(const struct lr_intent *in, struct lr_model **out)
{
    if (in->custom)
        return lr_model_from_transformer(in->model, &in->shape, out);
    return lr_model_preset(in->model, out);
}

#endif
