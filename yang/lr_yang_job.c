/*
 * lr_yang_job: lightrail-job data <-> struct lr_intent / struct lr_job.
 * See lr_yang_job.h.
 *
 * Parsing a POST body.  RFC 8040 (section 4.4.1) makes the body of a POST
 * to the jobs container the child resource, {"lightrail-job:job":[...]},
 * which is no top-level node of any module: libyang parses it only under
 * a parent, so this file parses it under a fresh 'jobs' container.  The
 * paths libyang reports while parsing under that parent leave the parent
 * out ("/lightrail-job:job[name='a']/colour"), its validation paths put it
 * in, and a missing mandatory leaf is reported at its schema path, without
 * the key; lr_yang_job_fix_path() turns all three into the one data path
 * a client can use, "/lightrail-job:jobs/job[name='a']/...".
 *
 * Printing.  The tree is built node by node (values as canonical text),
 * validated as operational data, then printed.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libyang/libyang.h>

#include "controller/lr_job.h"
#include "planner/lr_cluster.h"
#include "planner/lr_model.h"
#include "planner/lr_modulation.h"
#include "planner/lr_timemodel.h"
#include "planner/lr_topo.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"
#include "yang/lr_yang_job.h"

#define LR_YANG_JOB_DOC "lightrail-job"
#define LR_YANG_JOB_ENTRY "/lightrail-job:job"
#define LR_YANG_JOB_LIST "/lightrail-job:jobs/job"

/* Copies 'src' into dst[size], cut short when it does not fit. */
static void
lr_yang_job_strcpy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The one job of 'jobs' (a jobs container), or NULL when it holds none or
 * more than one. */
static const struct lyd_node *
lr_yang_job_only(const struct lyd_node *jobs)
{
    const struct lyd_node *j = jobs ? lr_yang_child(jobs, LR_YANG_LRJ, "job")
                                    : NULL;
    return j && !lr_yang_next_same(j) ? j : NULL;
}

/* Rewrites 'path' (see the top of this file) into the data path under
 * /lightrail-job:jobs.  'jobs' is the parsed container, or NULL. */
static void
lr_yang_job_fix_path(char *path, size_t size, int schema,
                     const struct lyd_node *jobs)
{
    char tmp[2048];
    size_t el = strlen(LR_YANG_JOB_ENTRY), ll = strlen(LR_YANG_JOB_LIST);

    if (!strncmp(path, LR_YANG_JOB_ENTRY, el)
        && (path[el] == '[' || path[el] == '/' || !path[el])) {
        snprintf(tmp, sizeof tmp, "%s%s", LR_YANG_JOB_LIST, path + el);
        lr_yang_job_strcpy(path, size, tmp);
        return;
    }
    const struct lyd_node *job = lr_yang_job_only(jobs);
    if (schema && job && !strncmp(path, LR_YANG_JOB_LIST, ll)
        && (path[ll] == '/' || !path[ll])) {
        char *jp = lyd_path(job, LYD_PATH_STD, NULL, 0);
        if (jp) {
            snprintf(tmp, sizeof tmp, "%s%s", jp, path + ll);
            lr_yang_job_strcpy(path, size, tmp);
        }
        free(jp);
    }
}

/* libyang's first error into path[pathlen] and msg[msglen]; returns the
 * errno value for LY_ERR 'rc'. */
static int
lr_yang_job_ly_err(const struct ly_ctx *ctx, LY_ERR rc,
                   const struct lyd_node *jobs, char *path, size_t pathlen,
                   char *msg, size_t msglen)
{
    const struct ly_err_item *e = ly_err_first(ctx);
    char where[1024], text[1024];
    int schema;
    long line;

    while (e && e->level != LY_LLERR)
        e = e->next;
    if (!e) {
        lr_yang_copy_line(path, pathlen, "");
        snprintf(text, sizeof text, "libyang error %d", (int) rc);
        lr_yang_copy_line(msg, msglen, text);
    } else {
        char better[512];
        lr_yang_split_location(e->path, where, sizeof where, &schema,
                                   &line);
        const char *m = lr_yang_better_msg(ctx, where,
                                           e->msg ? e->msg : "invalid data",
                                           better, sizeof better);
        lr_yang_job_fix_path(where, sizeof where, schema, jobs);
        lr_yang_copy_line(path, pathlen, where);
        /* libyang's words for a bare JSON number where RFC 7951 wants a
         * string say nothing of the cure. */
        const char *hint = strstr(m, "non-num64-encoded")
                           ? " 64-bit numbers are JSON strings (RFC 7951): "
                             "quote it, e.g. \"5000\""
                           : "";
        if (line)
            snprintf(text, sizeof text, "%s%s (line %ld)", m, hint, line);
        else
            snprintf(text, sizeof text, "%s%s", m, hint);
        lr_yang_copy_line(msg, msglen, text);
    }
    return rc == LY_EMEM ? ENOMEM : EINVAL;
}

/* Our own error at 'node' (NULL: no path). */
static int
lr_yang_job_node_err(const struct lyd_node *node, char *path, size_t pathlen,
                     char *msg, size_t msglen, const char *text)
{
    char *p = node ? lyd_path(node, LYD_PATH_STD, NULL, 0) : NULL;
    lr_yang_copy_line(path, pathlen, p ? p : "");
    lr_yang_copy_line(msg, msglen, text);
    free(p);
    return EINVAL;
}

/* The name of the first member of the JSON object in body[len], into
 * name[size] ("" when the text does not start with an object and a
 * simple member name).  Only chooses between the two forms of a POST
 * body; libyang judges the rest. */
static void
lr_yang_job_first_member(const char *body, size_t len, char *name,
                         size_t size)
{
    size_t i = 0, n = 0;

    name[0] = '\0';
    while (i < len && lr_yang_json_space(body[i]))
        i++;
    if (i >= len || body[i++] != '{')
        return;
    while (i < len && lr_yang_json_space(body[i]))
        i++;
    if (i >= len || body[i++] != '"')
        return;
    while (i < len && body[i] != '"' && body[i] != '\\' && n + 1 < size)
        name[n++] = body[i++];
    name[i < len && body[i] == '"' ? n : 0] = '\0';
}

/* A syntax error's message quotes the rest of the input: for a body
 * parsed wrapped in the jobs container, a quote that is the body's end
 * and the wrapper's '}' loses that '}', so that the message quotes only
 * what the client sent. */
static void
lr_yang_job_unwrap_msg(char *msg, const char *body, size_t len)
{
    for (char *q = strchr(msg, '"'); q; q = strchr(q + 1, '"')) {
        char *e = strchr(q + 1, '"');
        if (!e)
            return;
        size_t n = (size_t) (e - q - 1);
        if (n >= 1 && e[-1] == '}' && n - 1 <= len
            && !memcmp(q + 1, body + len - (n - 1), n - 1)) {
            memmove(e - 1, e, strlen(e) + 1);
            return;
        }
        q = e;
    }
}

static int
lr_yang_job_is_blank(const char *body, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!lr_yang_json_space(body[i]))
            return 0;
    return 1;
}

/* The value of leaf 'name' of 'parent' as an unsigned integer (every
 * leaf read here is mandatory or has a default, so it is present). */
static unsigned long
lr_yang_job_uint(const struct lyd_node *parent, const char *name)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRJ, name);
    return v ? strtoul(v, NULL, 10) : 0;
}

/* Reads the validated job entry 'job' into 'out', checking what the
 * schema does not: the model is a known preset. */
static int
lr_yang_job_read_intent(const struct lyd_node *job, struct lr_intent *out,
                        char *path, size_t pathlen, char *msg, size_t msglen)
{
    const struct lyd_node *gpus = lr_yang_child(job, LR_YANG_LRJ, "gpus");
    const struct lyd_node *tr = lr_yang_child(job, LR_YANG_LRJ,
                                              "transformer");
    const char *model = lr_yang_leaf(job, LR_YANG_LRJ, "model");
    const char *alg = lr_yang_leaf(job, LR_YANG_LRJ, "algorithm");
    struct lr_transformer shape;

    if (tr) {
        /* A custom shape: the schema bounded every number; the planner
         * has the last word (sizes it cannot build). */
        const char *arch = lr_yang_leaf(tr, LR_YANG_LRJ, "arch");
        const char *kv = lr_yang_leaf(tr, LR_YANG_LRJ, "kv-heads");
        struct lr_model *m = NULL;
        out->custom = true;
        out->shape = (struct lr_transformer) {
            .arch = arch && !strcmp(arch, "llama") ? LR_ARCH_LLAMA
                                                   : LR_ARCH_GPT,
            .layers = (int) lr_yang_job_uint(tr, "layers"),
            .hidden = (int) lr_yang_job_uint(tr, "hidden"),
            .heads = (int) lr_yang_job_uint(tr, "heads"),
            .ffn = (int) lr_yang_job_uint(tr, "ffn"),
            .vocab = (int) lr_yang_job_uint(tr, "vocab"),
            .seq = (int) lr_yang_job_uint(tr, "seq"),
        };
        out->shape.kv_heads = kv ? (int) strtoul(kv, NULL, 10)
                                 : out->shape.heads;
        if (lr_model_from_transformer(model, &out->shape, &m))
            return lr_yang_job_node_err(tr, path, pathlen, msg, msglen,
                                        "the planner cannot build this "
                                        "transformer shape");
        lr_model_free(m);
    } else if (!model || lr_model_preset_shape(model, &shape)) {
        char text[512];
        size_t n = (size_t) snprintf(text, sizeof text,
                                     "unknown model '%s'; known: ",
                                     model ? model : "");
        for (int i = 0; lr_model_presets[i] && n < sizeof text; i++)
            n += (size_t) snprintf(text + n, sizeof text - n, "%s%s",
                                   i ? ", " : "", lr_model_presets[i]);
        return lr_yang_job_node_err(lr_yang_child(job, LR_YANG_LRJ, "model"),
                                    path, pathlen, msg, msglen, text);
    }
    /* The schema bounds every length and number within the struct's
     * fields: names to 63 characters, counts to int. */
    snprintf(out->name, sizeof out->name, "%s",
             lr_yang_leaf(job, LR_YANG_LRJ, "name"));
    snprintf(out->model, sizeof out->model, "%s", model);
    out->batch = (double) lr_yang_job_uint(job, "batch");
    out->micro = (double) lr_yang_job_uint(job, "microbatch");
    out->gpus_min = (int) lr_yang_job_uint(gpus, "min");
    out->gpus_max = (int) lr_yang_job_uint(gpus, "max");
    snprintf(out->algorithm, sizeof out->algorithm, "%s", alg ? alg : "");
    out->priority = (int) lr_yang_job_uint(job, "priority");
    /* Optional; the schema's range keeps 0 for "not given". */
    const char *it = lr_yang_leaf(job, LR_YANG_LRJ, "iterations");
    out->iterations = it ? (uint64_t) strtoull(it, NULL, 10) : 0;
    return 0;
}

int
lr_yang_parse_intent(struct ly_ctx *ctx, const char *body, size_t len,
                     struct lr_intent *out, char *path, size_t pathlen,
                     char *msg, size_t msglen)
{
    const struct lys_module *mod;
    struct lyd_node *tree = NULL, *jobs = NULL;
    char *copy = NULL, first[64];
    int ret = 0;
    LY_ERR rc;

    memset(out, 0, sizeof *out);
    lr_yang_copy_line(path, pathlen, "");
    lr_yang_copy_line(msg, msglen, "");
    if (lr_yang_job_is_blank(body, len)) {
        ret = lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                                   "empty body; expected "
                                   "{\"lightrail-job:job\":[{...}]}");
        goto cleanup;
    }
    if (memchr(body, '\0', len)) {
        ret = lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                                   "the body contains a NUL byte");
        goto cleanup;
    }
    size_t lead = 0;
    while (lead < len && lr_yang_json_space(body[lead]))
        lead++;
    if (body[lead] != '{') {
        lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                             "the body is no JSON object; a job body is "
                             "{\"lightrail-job:job\":[{...}]}");
        ret = EBADMSG;
        goto cleanup;
    }
    long line;
    if (lr_yang_json_end(body, len, &line) < len) {
        char text[128];
        snprintf(text, sizeof text, "text after the JSON object (line %ld): "
                 "one job per body", line);
        lr_yang_job_node_err(NULL, path, pathlen, msg, msglen, text);
        ret = EBADMSG;
        goto cleanup;
    }
    mod = ly_ctx_get_module_implemented(ctx, LR_YANG_LRJ);
    if (!mod) {
        ret = lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                                   "lightrail-job is not in the context");
        goto cleanup;
    }
    /* Room for the body wrapped in the jobs container (below). */
    static const char wrap[] = "{\"lightrail-job:jobs\":";
    copy = malloc(sizeof wrap - 1 + len + 2);
    if (!copy) {
        lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                             "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    memcpy(copy, body, len);
    copy[len] = '\0';

    ly_err_clean(ctx, NULL);
    /* NO_STATE refuses the state container while parsing, with its
     * path; STRICT refuses unknown members. */
    const uint32_t popts = LYD_PARSE_STRICT | LYD_PARSE_ONLY
                           | LYD_PARSE_NO_STATE;
    const uint32_t vopts = LYD_VALIDATE_PRESENT | LYD_VALIDATE_NO_STATE;
    lr_yang_job_first_member(copy, len, first, sizeof first);
    /* libyang would say that "x:job" is no child of "jobs", true but
     * beside the point when the client named the wrong module. */
    if (strchr(first, ':') && strcmp(first, "lightrail-job:job")
        && strcmp(first, "lightrail-job:jobs")) {
        char text[256];
        snprintf(text, sizeof text, "the body starts with \"%s\"; a job "
                 "body is {\"lightrail-job:job\":[{...}]}", first);
        ret = lr_yang_job_node_err(NULL, path, pathlen, msg, msglen, text);
        goto cleanup;
    }
    /* The short form {"lightrail-job:job":[...]} is the jobs
     * container's content: parsed wrapped in it, on one line so that
     * libyang's line numbers stay the body's.  Not by parsing it into a
     * jobs node made first (lyd_parse_data with a parent): Debian 12's
     * libyang 2.1.30 then dereferences NULL on a top-level metadata
     * member such as {"@job":[...]} (libyang issue 2246, fixed in 2024;
     * found by tests/fuzz/fuzz_intent). */
    bool wrapped = strcmp(first, "lightrail-job:jobs") != 0;
    size_t end = len;    /* the body without its trailing white space */
    while (end > 0 && lr_yang_json_space(copy[end - 1]))
        end--;
    if (wrapped) {
        memmove(copy + sizeof wrap - 1, copy, end);
        memcpy(copy, wrap, sizeof wrap - 1);
        memcpy(copy + sizeof wrap - 1 + end, "}", 2);
    }
    rc = lyd_parse_data_mem(ctx, copy, LYD_JSON, popts, 0, &tree);
    jobs = tree ? lr_yang_sibling(tree, LR_YANG_LRJ, "jobs") : NULL;
    if (!rc)
        rc = lyd_validate_all(&tree, ctx, vopts, NULL);
    if (rc) {
        /* Broken JSON is another error than valid JSON that breaks the
         * schema (RFC 8040 malformed-message against invalid-value). */
        LY_VECODE code = ly_vecode(ctx);
        ret = lr_yang_job_ly_err(ctx, rc, jobs, path, pathlen, msg, msglen);
        if (ret == EINVAL && (code == LYVE_SYNTAX_JSON || code == LYVE_SYNTAX))
            ret = EBADMSG;
        /* What the client did not send: the wrapper's '}' at the end
         * of a quote, and the wrapper as the path. */
        if (wrapped && msg)
            lr_yang_job_unwrap_msg(msg, body, end);
        if (wrapped && path && !strcmp(path, "/" LR_YANG_LRJ ":jobs"))
            lr_yang_copy_line(path, pathlen, "");
        goto cleanup;
    }
    /* Validation may have added default nodes before the first sibling:
     * search from the start again. */
    jobs = tree ? lr_yang_sibling(lyd_first_sibling(tree), LR_YANG_LRJ,
                                  "jobs")
                : NULL;
    for (const struct lyd_node *n = tree ? lyd_first_sibling(tree) : NULL;
         n; n = n->next)
        if (n != jobs && !(n->flags & LYD_DEFAULT)) {
            ret = lr_yang_job_node_err(n, path, pathlen, msg, msglen,
                                       "a job body holds lightrail-job "
                                       "data only");
            goto cleanup;
        }
    const struct lyd_node *job = jobs ? lr_yang_child(jobs, LR_YANG_LRJ,
                                                      "job")
                                      : NULL;
    if (!job) {
        ret = lr_yang_job_node_err(NULL, path, pathlen, msg, msglen,
                                   "no job in the body; expected "
                                   "{\"lightrail-job:job\":[{...}]}");
        goto cleanup;
    }
    const struct lyd_node *second = lr_yang_next_same(job);
    if (second) {
        ret = lr_yang_job_node_err(second, path, pathlen, msg, msglen,
                                   "one job per request; this body holds "
                                   "more");
        goto cleanup;
    }
    ret = lr_yang_job_read_intent(job, out, path, pathlen, msg, msglen);

cleanup:
    lyd_free_all(tree);
    free(copy);
    if (ret)
        memset(out, 0, sizeof *out);
    return ret;
}

/* ---- Printing ---- */

/* What printing one job needs besides the job. */
struct lr_yang_job_env {
    const struct lys_module *mod;
    const struct lr_topo *topo;
    const struct lr_cluster *cluster;
    const struct lr_modtable *mods;
    char *err;
    size_t errlen;
    /* The entry's configuration only, no state container (the running
     * datastore's tree, RFC 8342 5.1.3). */
    bool config_only;
};

/* Our own printing error, at the job named 'name'.  Returns EINVAL. */
static int
lr_yang_job_print_err(const struct lr_yang_job_env *env, const char *name,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
lr_yang_job_print_err(const struct lr_yang_job_env *env, const char *name,
                      const char *fmt, ...)
{
    char where[256], text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "%s[name='%s']", LR_YANG_JOB_LIST, name);
    lr_yang_errf(env->err, env->errlen, LR_YANG_JOB_DOC, where, "%s", text);
    return EINVAL;
}


/* Unix milliseconds as yang:date-and-time, UTC (lr_yang_int.h). */
void
lr_yang_job_time(int64_t ms, char *buf, size_t size)
{
    time_t s = (time_t) (ms / 1000);
    int frac = (int) (ms % 1000);
    struct tm tm;

    if (frac < 0) {
        frac += 1000;
        s--;
    }
    if (!gmtime_r(&s, &tm)) {
        snprintf(buf, size, "invalid");
        return;
    }
    snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03d+00:00",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, frac);
}

/* The planner's time model for 'job''s intent, or NULL when its model is
 * no preset (or memory is short): stage times are then left out.  The
 * caller frees the model and the time model. */
static struct lr_tm *
lr_yang_job_tm(const struct lr_job *job, const struct lr_cluster *cluster,
               struct lr_model **modelp)
{
    struct lr_train train = {
        .batch = job->intent.batch,
        .micro = job->intent.micro,
        .elem_bytes = 2,
    };
    struct lr_tm *tm = NULL;

    *modelp = NULL;
    if (!cluster || lr_intent_model(&job->intent, modelp))
        return NULL;
    if (lr_tm_new(*modelp, cluster, &train, &tm))
        return NULL;
    return tm;
}

static int
lr_yang_job_stages(const struct lr_yang_job_env *env, const struct lr_job *j,
                   struct lyd_node *state, LY_ERR *rcp)
{
    const struct lys_module *mod = env->mod;
    const struct lr_cluster *c = env->cluster;
    struct lr_model *model = NULL;
    struct lr_tm *tm = NULL;
    int ret = 0, ndcs = c ? c->n_dcs : 0;
    LY_ERR rc = LY_SUCCESS;

    if (j->plan.n_stages > 0)
        tm = lr_yang_job_tm(j, c, &model);
    for (int i = 0; i < j->plan.n_stages && i < LR_PLAN_MAX_STAGES; i++) {
        const struct lr_stage *s = &j->plan.stages[i];
        struct lyd_node *st;
        char idx[16];
        if (s->dc < 0 || s->dc >= ndcs) {
            ret = lr_yang_job_print_err(env, j->intent.name,
                                        "stage %d is in DC index %d; the "
                                        "cluster has %d DCs", i + 1, s->dc,
                                        ndcs);
            goto cleanup;
        }
        snprintf(idx, sizeof idx, "%d", i + 1);
        if ((rc = lyd_new_list(state, mod, "stage", 0, &st, idx))
            || (rc = lr_yang_termf(st, mod, "first-layer", "%d",
                                   s->first + 1))
            || (rc = lr_yang_termf(st, mod, "last-layer", "%d",
                                   s->last + 1))
            || (rc = lyd_new_term(st, mod, "dc", c->dcs[s->dc].name, 0,
                                  NULL)))
            goto cleanup;
        /* No devices: layers a DC's agent planned, its stages private. */
        if ((rc = s->g > 0
                  ? lr_yang_termf(st, mod, "devices", "%d", s->g)
                  : lyd_new_term(st, mod, "private", "true", 0, NULL)))
            goto cleanup;
        if (tm && s->first >= 0 && s->last >= s->first
            && s->last < model->n_layers && s->g > 0
            && (rc = lr_yang_termf(st, mod, "time-s", "%.6f",
                                   lr_tm_stage_time(tm, s->dc, s->first,
                                                    s->last, s->g))))
            goto cleanup;
    }

cleanup:
    lr_tm_free(tm);
    lr_model_free(model);
    *rcp = rc;
    return ret;
}

static int
lr_yang_job_lightpaths(const struct lr_yang_job_env *env,
                       const struct lr_job *j, struct lyd_node *state,
                       LY_ERR *rcp)
{
    const struct lys_module *mod = env->mod;
    const struct lr_cluster *c = env->cluster;
    const struct lr_topo *t = env->topo;
    int ndcs = c ? c->n_dcs : 0, nlinks = t ? t->n_links : 0;
    LY_ERR rc = LY_SUCCESS;

    *rcp = LY_SUCCESS;
    for (int i = 0; i < j->n_lightpaths && i < LR_JOB_MAX_LIGHTPATHS; i++) {
        const struct lr_lightpath *lp = &j->lp[i];
        struct lyd_node *l;
        char idx[16];
        if (lp->from_dc < 0 || lp->from_dc >= ndcs || lp->to_dc < 0
            || lp->to_dc >= ndcs)
            return lr_yang_job_print_err(env, j->intent.name,
                                         "lightpath %d joins DC indices %d "
                                         "and %d; the cluster has %d DCs",
                                         i + 1, lp->from_dc, lp->to_dc,
                                         ndcs);
        if (lp->n_links < 0 || lp->n_links > LR_JOB_MAX_HOPS)
            return lr_yang_job_print_err(env, j->intent.name,
                                         "lightpath %d has %d links; at "
                                         "most %d", i + 1, lp->n_links,
                                         LR_JOB_MAX_HOPS);
        for (int k = 0; k < lp->n_links; k++)
            if (lp->links[k] < 0 || lp->links[k] >= nlinks)
                return lr_yang_job_print_err(env, j->intent.name,
                                             "lightpath %d uses link index "
                                             "%d; the topology has %d links",
                                             i + 1, lp->links[k], nlinks);
        snprintf(idx, sizeof idx, "%d", i + 1);
        if ((rc = lyd_new_list(state, mod, "lightpath", 0, &l, idx))
            || (rc = lyd_new_term(l, mod, "from-dc", c->dcs[lp->from_dc].name,
                                  0, NULL))
            || (rc = lyd_new_term(l, mod, "to-dc", c->dcs[lp->to_dc].name, 0,
                                  NULL)))
            goto cleanup;
        /* Both leaf-lists are ordered-by user: libyang appends each new
         * instance after the last one, which keeps the path's order. */
        if (lp->n_links > 0
            && (rc = lyd_new_term(l, mod, "node",
                                  t->nodes[t->links[lp->links[0]].src].name,
                                  0, NULL)))
            goto cleanup;
        for (int k = 0; k < lp->n_links; k++)
            if ((rc = lyd_new_term(l, mod, "node",
                                   t->nodes[t->links[lp->links[k]].dst].name,
                                   0, NULL)))
                goto cleanup;
        for (int k = 0; k < lp->n_links; k++)
            if ((rc = lyd_new_term(l, mod, "link",
                                   t->links[lp->links[k]].name, 0, NULL)))
                goto cleanup;
        if ((rc = lr_yang_termf(l, mod, "length-km", "%.3f",
                                lp->length_km)))
            goto cleanup;
        if (lp->modulation[0]
            && (rc = lyd_new_term(l, mod, "modulation", lp->modulation, 0,
                                  NULL)))
            goto cleanup;
        char why[LR_MOD_MAX * (LR_MOD_NAME_MAX + 2) + 128];
        if (env->mods
            && lr_mod_fits(env->mods, lp->modulation, lp->length_km, why,
                           sizeof why)
            && (rc = lyd_new_term(l, mod, "modulation-mismatch", why, 0,
                                  NULL)))
            goto cleanup;
        if ((rc = lr_yang_termf(l, mod, "first-slot", "%d", lp->first))
            || (rc = lr_yang_termf(l, mod, "slots", "%d", lp->m))
            || (rc = lr_yang_termf(l, mod, "n", "%d", lp->n))
            || (rc = lr_yang_termf(l, mod, "m", "%d", lp->m))
            || (rc = lr_yang_termf(l, mod, "capacity-gbps", "%.1f",
                                   lp->capacity_gbps)))
            goto cleanup;
    }

cleanup:
    *rcp = rc;
    return 0;
}

/* Adds job 'j' under 'jobs'.  Returns an errno value for our own errors
 * (already in env->err), or 0 with libyang's result in '*rcp'. */
static int
lr_yang_job_add(const struct lr_yang_job_env *env, const struct lr_job *j,
                struct lyd_node *jobs, LY_ERR *rcp)
{
    const struct lys_module *mod = env->mod;
    const struct lr_intent *in = &j->intent;
    struct lyd_node *job = NULL, *gpus, *state;
    int ret = 0, ndcs = env->cluster ? env->cluster->n_dcs : 0;
    char ts[64];
    LY_ERR rc;

    if ((rc = lyd_new_list(jobs, mod, "job", 0, &job, in->name))
        || (rc = lyd_new_term(job, mod, "model", in->model, 0, NULL))
        || (rc = lr_yang_termf(job, mod, "batch", "%.0f", in->batch))
        || (rc = lr_yang_termf(job, mod, "microbatch", "%.0f", in->micro))
        || (rc = lyd_new_inner(job, mod, "gpus", 0, &gpus))
        || (rc = lr_yang_termf(gpus, mod, "min", "%d", in->gpus_min))
        || (rc = lr_yang_termf(gpus, mod, "max", "%d", in->gpus_max)))
        goto cleanup;
    if (in->custom) {
        const struct lr_transformer *t = &in->shape;
        struct lyd_node *tr;
        if ((rc = lyd_new_inner(job, mod, "transformer", 0, &tr))
            || (rc = lyd_new_term(tr, mod, "arch", t->arch == LR_ARCH_LLAMA
                                                   ? "llama" : "gpt", 0,
                                  NULL))
            || (rc = lr_yang_termf(tr, mod, "layers", "%d", t->layers))
            || (rc = lr_yang_termf(tr, mod, "hidden", "%d", t->hidden))
            || (rc = lr_yang_termf(tr, mod, "heads", "%d", t->heads))
            || (t->arch == LR_ARCH_LLAMA
                && (rc = lr_yang_termf(tr, mod, "kv-heads", "%d",
                                       t->kv_heads)))
            || (rc = lr_yang_termf(tr, mod, "ffn", "%d", t->ffn))
            || (rc = lr_yang_termf(tr, mod, "vocab", "%d", t->vocab))
            || (rc = lr_yang_termf(tr, mod, "seq", "%d", t->seq)))
            goto cleanup;
    }
    if (in->algorithm[0]
        && (rc = lyd_new_term(job, mod, "algorithm", in->algorithm, 0, NULL)))
        goto cleanup;
    if ((rc = lr_yang_termf(job, mod, "priority", "%d", in->priority))
        || (in->iterations
            && (rc = lr_yang_termf(job, mod, "iterations", "%" PRIu64,
                                   in->iterations))))
        goto cleanup;
    if (env->config_only)
        goto cleanup;
    if ((rc = lyd_new_inner(job, mod, "state", 0, &state)))
        goto cleanup;

    if (!lr_job_phase_name(j->phase)) {
        ret = lr_yang_job_print_err(env, in->name, "phase %d is no phase",
                                    (int) j->phase);
        goto cleanup;
    }
    if ((rc = lyd_new_term(state, mod, "phase", lr_job_phase_name(j->phase),
                           0, NULL)))
        goto cleanup;
    if (j->reason[0]) {
        char reason[LR_JOB_REASON_MAX];
        lr_yang_copy_line(reason, sizeof reason, j->reason);
        if ((rc = lr_yang_term_text(state, mod, "reason", reason,
                                    false)))
            goto cleanup;
    }
    if (j->note[0]) {
        char note[LR_JOB_REASON_MAX];
        lr_yang_copy_line(note, sizeof note, j->note);
        if ((rc = lr_yang_term_text(state, mod, "planner-note", note,
                                    false)))
            goto cleanup;
    }
    if (j->phase == LR_JOB_ACTIVE
        && (rc = lr_yang_termf(state, mod, "iteration-time-s", "%.6f",
                               j->iteration_s)))
        goto cleanup;
    if (j->created_ms > 0) {
        lr_yang_job_time(j->created_ms, ts, sizeof ts);
        if ((rc = lyd_new_term(state, mod, "created", ts, 0, NULL)))
            goto cleanup;
    }
    if (j->updated_ms > 0) {
        lr_yang_job_time(j->updated_ms, ts, sizeof ts);
        if ((rc = lyd_new_term(state, mod, "updated", ts, 0, NULL)))
            goto cleanup;
    }
    ret = lr_yang_job_stages(env, j, state, &rc);
    if (ret || rc)
        goto cleanup;
    for (int k = 0; k < LR_TM_MAX_DCS; k++) {
        struct lyd_node *g;
        if (j->gpus[k] == 0)
            continue;
        if (k >= ndcs) {
            ret = lr_yang_job_print_err(env, in->name,
                                        "holds devices in DC index %d; the "
                                        "cluster has %d DCs", k, ndcs);
            goto cleanup;
        }
        if ((rc = lyd_new_list(state, mod, "gpus", 0, &g,
                               env->cluster->dcs[k].name))
            || (rc = lr_yang_termf(g, mod, "count", "%d", j->gpus[k])))
            goto cleanup;
    }
    ret = lr_yang_job_lightpaths(env, j, state, &rc);

cleanup:
    *rcp = rc;
    return ret;
}

int
lr_yang_jobs_to_json(struct ly_ctx *ctx, const struct lr_job *jobs, int n,
                     const struct lr_topo *topo,
                     const struct lr_cluster *cluster,
                     const struct lr_modtable *mods, int single,
                     char **out, char *err, size_t errlen)
{
    const struct lr_job **refs = malloc(((size_t) (n > 0 ? n : 0) + 1)
                                        * sizeof *refs);
    if (!refs) {
        *out = NULL;
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
        return ENOMEM;
    }
    for (int i = 0; i < n; i++)
        refs[i] = &jobs[i];
    int ret = lr_yang_job_refs_to_json(ctx, refs, n, topo, cluster, mods,
                                       single, out, err, errlen);
    free(refs);
    return ret;
}

/* What job_print() prints: the jobs container, the one job's entry
 * (RFC 8040's form of one list entry), or the list resource. */
enum job_form { JOB_FORM_JOBS, JOB_FORM_ONE, JOB_FORM_LIST };

static int
job_print(struct ly_ctx *ctx, const struct lr_job *const *jobs, int n,
          const struct lr_yang_page_meta *meta, const struct lr_topo *topo,
          const struct lr_cluster *cluster, const struct lr_modtable *mods,
          enum job_form form, bool config_only, char **out, char *err,
          size_t errlen);

int
lr_yang_job_refs_to_json(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                         int n, const struct lr_topo *topo,
                         const struct lr_cluster *cluster,
                         const struct lr_modtable *mods, int single,
                         char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, NULL, topo, cluster, mods,
                     single ? JOB_FORM_ONE : JOB_FORM_JOBS, false, out, err,
                     errlen);
}

int
lr_yang_job_refs_config_to_json(struct ly_ctx *ctx,
                                const struct lr_job *const *jobs, int n,
                                const struct lr_topo *topo,
                                const struct lr_cluster *cluster,
                                const struct lr_modtable *mods, int single,
                                char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, NULL, topo, cluster, mods,
                     single ? JOB_FORM_ONE : JOB_FORM_JOBS, true, out, err,
                     errlen);
}

int
lr_yang_job_page_to_json(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                         int n, const struct lr_yang_page_meta *meta,
                         bool list, const struct lr_topo *topo,
                         const struct lr_cluster *cluster,
                         const struct lr_modtable *mods, char **out,
                         char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, meta, topo, cluster, mods,
                     list ? JOB_FORM_LIST : JOB_FORM_JOBS, false, out, err,
                     errlen);
}

int
lr_yang_job_page_config_to_json(struct ly_ctx *ctx,
                                const struct lr_job *const *jobs, int n,
                                const struct lr_yang_page_meta *meta,
                                bool list, const struct lr_topo *topo,
                                const struct lr_cluster *cluster,
                                const struct lr_modtable *mods, char **out,
                                char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, meta, topo, cluster, mods,
                     list ? JOB_FORM_LIST : JOB_FORM_JOBS, true, out, err,
                     errlen);
}

/* 'config_only': each entry without its state container, validated so
 * that none is added back (lr_yang_job_select()'s running tree). */
static int
job_print(struct ly_ctx *ctx, const struct lr_job *const *jobs, int n,
          const struct lr_yang_page_meta *meta, const struct lr_topo *topo,
          const struct lr_cluster *cluster, const struct lr_modtable *mods,
          enum job_form form, bool config_only, char **out, char *err,
          size_t errlen)
{
    struct lr_yang_job_env env = {
        .topo = topo, .cluster = cluster, .mods = mods,
        .err = err, .errlen = errlen, .config_only = config_only,
    };
    struct lyd_node *root = NULL;
    char *text = NULL;
    int ret = 0;
    LY_ERR rc = LY_SUCCESS;

    *out = NULL;
    if (n < 0 || (form == JOB_FORM_ONE && n != 1)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL,
                     "%d jobs to print; a single job needs exactly one", n);
        ret = EINVAL;
        goto cleanup;
    }
    if (!(env.mod = lr_yang_module(ctx, LR_YANG_LRJ, LR_YANG_JOB_DOC, err,
                                   errlen))) {
        ret = EINVAL;
        goto cleanup;
    }
    ly_err_clean(ctx, NULL);
    if ((rc = lyd_new_inner(NULL, env.mod, "jobs", 0, &root)))
        goto cleanup;
    for (int i = 0; i < n; i++) {
        ret = lr_yang_job_add(&env, jobs[i], root, &rc);
        if (ret || rc)
            goto cleanup;
    }
    if ((rc = lyd_validate_all(&root, ctx, LYD_VALIDATE_PRESENT
                               | (config_only ? LYD_VALIDATE_NO_STATE : 0),
                               NULL)))
        goto cleanup;
    if (meta && lyd_child(root)) {
        /* On the first entry, where the list pagination draft's RESTCONF
         * mapping puts its "remaining" (after validation, which would
         * not move it: metadata is no data node); "next" and "previous"
         * with it.  lyd_new_meta() checks each value against its
         * annotation's type. */
        char v[16];
        snprintf(v, sizeof v, "%" PRIu32, meta->remaining);
        if ((meta->remaining
             && (rc = lyd_new_meta(ctx, lyd_child(root), env.mod,
                                   LR_YANG_LRJ ":remaining", v, 0, NULL)))
            || (meta->next
                && (rc = lyd_new_meta(ctx, lyd_child(root), env.mod,
                                      LR_YANG_LRJ ":next", meta->next, 0,
                                      NULL)))
            || (meta->previous
                && (rc = lyd_new_meta(ctx, lyd_child(root), env.mod,
                                      LR_YANG_LRJ ":previous",
                                      meta->previous, 0, NULL))))
            goto cleanup;
    }
    /* Printing the list entry alone gives the RFC 8040 form of one
     * resource, {"lightrail-job:job":[{...}]}; with its siblings, the
     * list resource, every entry in that one array.  With no jobs, the
     * empty container is kept: {"lightrail-job:jobs":{}} says "none"
     * where an empty document would say nothing; the list has no node
     * to print, and its empty array says the same (RFC 7951 does not
     * forbid it; libyang 2.1 parses it as no entry). */
    if (form == JOB_FORM_LIST && !lyd_child(root)) {
        if (!(text = strdup("{\"" LR_YANG_LRJ ":job\":[]}"))) {
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
            ret = ENOMEM;
        }
    } else if (form == JOB_FORM_LIST) {
        rc = lyd_print_mem(&text, lyd_child(root), LYD_JSON,
                           LYD_PRINT_WITHSIBLINGS);
    } else {
        rc = form == JOB_FORM_ONE
             ? lyd_print_mem(&text, lyd_child(root), LYD_JSON, 0)
             : lyd_print_mem(&text, root, LYD_JSON,
                             LYD_PRINT_WITHSIBLINGS
                                 | LYD_PRINT_KEEPEMPTYCONT);
    }

cleanup:
    if (!ret && rc)
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen);
    lyd_free_all(root);
    if (ret) {
        free(text);
        text = NULL;
    }
    *out = text;
    return ret;
}

/* ---- Selection: list pagination's where and sort-by ---- */

/* One job being sorted: its value of the sort-by leaf (NULL: it has
 * none; borrowed from the jobs tree), its index in the list's order. */
struct job_sel {
    const struct lr_job *job;
    const char *key;
    size_t idx;
    int kind;            /* JOB_KEY_*, the same for all */
};

enum { JOB_KEY_TEXT, JOB_KEY_SIGNED, JOB_KEY_UNSIGNED, JOB_KEY_DECIMAL };

static int
job_key_kind(const struct lysc_node *leaf)
{
    switch (((const struct lysc_node_leaf *) leaf)->type->basetype) {
    case LY_TYPE_INT8: case LY_TYPE_INT16: case LY_TYPE_INT32:
    case LY_TYPE_INT64:
        return JOB_KEY_SIGNED;
    case LY_TYPE_UINT8: case LY_TYPE_UINT16: case LY_TYPE_UINT32:
    case LY_TYPE_UINT64:
        return JOB_KEY_UNSIGNED;
    case LY_TYPE_DEC64:
        return JOB_KEY_DECIMAL;
    default:
        return JOB_KEY_TEXT;
    }
}

/* Ascending by key, a job without one after every job with one, ties
 * (and equal absences) in the list's order: qsort is not stable. */
static int
job_sel_cmp(const void *a, const void *b)
{
    const struct job_sel *x = a, *y = b;
    int c = 0;
    if (!x->key || !y->key)
        c = !x->key - !y->key;
    else if (x->kind == JOB_KEY_SIGNED) {
        long long u = strtoll(x->key, NULL, 10), v = strtoll(y->key, NULL, 10);
        c = (u > v) - (u < v);
    } else if (x->kind == JOB_KEY_UNSIGNED) {
        unsigned long long u = strtoull(x->key, NULL, 10);
        unsigned long long v = strtoull(y->key, NULL, 10);
        c = (u > v) - (u < v);
    } else if (x->kind == JOB_KEY_DECIMAL) {
        double u = strtod(x->key, NULL), v = strtod(y->key, NULL);
        c = (u > v) - (u < v);
    } else
        c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* A client's expression or path is quoted up to this many bytes: the
 * message must keep its advice whatever was sent. */
#define JOB_QUOTE_MAX 80
/* libyang 2.1 parses an expression in time quadratic in its nesting (60 KB
 * of parentheses: 20 s on the loop): longer ones are refused unread. */
#define JOB_WHERE_MAX 1024

/* libyang's last words on 'ctx', or a stand-in. */
static const char *
job_ly_msg(const struct ly_ctx *ctx)
{
    const struct ly_err_item *e = ly_err_last(ctx);
    return e && e->msg ? e->msg : "libyang gave no reason";
}

/* The examples a refusal of a where or a sort-by gives, over what the
 * datastore asked holds: operational's name state, running's (RFC 8342
 * 5.1.3: configuration only) must not, or the query sent next on the
 * advice would be refused as state.  Each is one the same datastore
 * takes. */
struct job_examples {
    const char *own;            /* a where over the job's own nodes */
    const char *desc;           /* one with // */
    const char *pred;           /* one with a predicate */
    const char *either;         /* conditions joined with or */
    const char *nested;         /* a predicate in a predicate, split */
    const char *split;          /* count(x[a or b]), split */
    const char *leaves;         /* leaves to sort by */
};

/* [config_only] */
static const struct job_examples job_examples[2] = {
    { "state/phase='blocked'", "count(state//link) > 0",
      "count(state/lightpath[m = 5]) = 2",
      "state/phase='blocked' or priority > 5",
      "state/lightpath[m = 5] or state/lightpath[m = 6]",
      "count(state/lightpath[m = 5]) + "
      "count(state/lightpath[m = 6][not(m = 5)]) = 2",
      "name, state/phase or state/created" },
    { "priority > 5", "count(transformer//*) > 0",
      "count(gpus[max > 8]) = 1", "model='gpt-1.9b' or priority > 5",
      "transformer[layers > 24] or transformer[layers < 8]",
      "count(transformer[layers > 24]) + "
      "count(transformer[layers < 8][not(layers > 24)]) = 1",
      "name, priority or gpus/min" },
};

/* The schema leaf 'sort_by' names under the job entry 'list', or NULL
 * with err[] saying why (EINVAL), its examples from 'ex'. */
static const struct lysc_node *
job_sort_leaf(struct ly_ctx *ctx, const struct lysc_node *list,
              const char *sort_by, const struct job_examples *ex,
              char *err, size_t errlen)
{
    const struct lysc_node *leaf = NULL;
    ly_err_clean(ctx, NULL);
    if (strlen(sort_by) > JOB_WHERE_MAX) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                     "sort-by is %zu bytes long: send the path of a leaf, "
                     "such as %s", strlen(sort_by), ex->leaves);
        return NULL;
    }
    if (*sort_by && *sort_by != '/')
        leaf = lys_find_path(ctx, list, sort_by, 0);
    if (!leaf || leaf->nodetype != LYS_LEAF) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                     "sort-by '%.*s' is not a leaf of a job (%s): send the "
                     "path of one below the entry, such as %s",
                     JOB_QUOTE_MAX, sort_by,
                     leaf ? "it is no leaf" : job_ly_msg(ctx), ex->leaves);
        return NULL;
    }
    for (const struct lysc_node *p = leaf->parent; p && p != list;
         p = p->parent)
        if (p->nodetype == LYS_LIST) {
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                         "sort-by '%.*s' is a leaf of the list '%s' inside "
                         "a job, which has many or none: send the path of a "
                         "leaf a job has at most once, such as %s",
                         JOB_QUOTE_MAX, sort_by, p->name, ex->leaves);
            return NULL;
        }
    return leaf;
}

/* What a where may not use, found before libyang reads it (outside the
 * expression's string literals): each crashes libyang 2.1 or costs each
 * job's evaluation the whole list.  Measured with 2,000 jobs, -O2, where
 * an expression without them takes 0.15-0.3 s: */
enum job_where_ban {
    JOB_WHERE_OK,
    /* deref() of a leaf that is no leafref reads a NULL target (SEGV),
     * and a job has no leafref to follow. */
    JOB_WHERE_DEREF,
    /* x mod y is ((long long) x) % ((long long) y): a divisor
     * between -1 and 1 (0, 0.5, a leaf that is 0) or LLONG_MIN mod -1
     * raises SIGFPE. */
    JOB_WHERE_MOD,
    /* following::, preceding:: and their -sibling forms leave the entry
     * for the other jobs, which the schema check does not see
     * (count(following::node()) > 0: 43 s). */
    JOB_WHERE_AXIS_OUT,
    /* descendant:: and descendant-or-self:: sort their node set by
     * document order, each node's position found by walking the list
     * from its root (count(descendant::*) > 0: 2.1 s, and 92 s with
     * 10,000; the same with '//', read another way: 0.15 s). */
    JOB_WHERE_AXIS_DESC,
    /* A union sorts the same way (count(state/stage | state/gpus): 1.8 s). */
    JOB_WHERE_UNION,
    /* parent::, ancestor:: and ancestor-or-self:: with a name test after
     * '//' from the entry (.//parent::x, .//ancestor::m) crash the
     * schema check, lys_find_xpath_atoms() (SEGV near NULL); '..' does
     * not. */
    JOB_WHERE_AXIS_UP,
    /* Comparisons chained without parentheses (1 = * = 1, 1 < * < 2)
     * leak about 370 bytes per job whose middle operand holds nodes
     * (LeakSanitizer: 3.7 MB a request over 10,000 jobs); (a = b) = c
     * does not, and a < b < c is no range anyway. */
    JOB_WHERE_CHAIN,
    /* '..' goes up from each node of a set, which libyang then sorts as
     * a union (count(state/lightpath/m/..) = 2: 103 s with 10,000 jobs);
     * judged after the schema check, which says when it leaves the job. */
    JOB_WHERE_DOTS,
    /* A path from the root: '/' alone names no node, so the schema check
     * lets it by, yet string(/) prints the whole list for each job
     * (2,000 jobs: over 100 s) and sum(/) crashes that check (SEGV). */
    JOB_WHERE_ROOT,
    /* 'and' or 'or' inside a predicate of an expression that has
     * another predicate, a path after parentheses or a call other than
     * current(), or a predicate on node(), text() or an attribute step
     * (x[y[a or b]], state/lightpath[n<0]/p[t or o]/t,
     * (priority = 3)/x[0 or 1] = 1, name/node()[0 or 1] = 1).  The
     * schema check, lys_find_xpath_atoms(), only parses a predicate
     * whose set has no node in context, and in libyang 2.1.30 parsing
     * an 'and' or 'or' still casts that set to a boolean, which empties
     * a schema node set (lyxp_set_cast()); the next reader (a
     * comparison's warning, the next step's no-match test) takes the
     * last of its 0 nodes (SEGV; make fuzz, 2026-12-06; the 2.1 source
     * read, a later one, skips the cast when parsing).  Such sets: a
     * step that matched no node yet passed the no-match test, which
     * takes a node an earlier predicate or parenthesised comparison
     * used as a value (in_ctx ATOM_VAL) for a match; node() under a
     * leaf, text() and attribute steps, which have no no-match test;
     * values (JOB_WHERE_FILTER).  Outside the predicates (x/y[a] or
     * x/y[b]), or in the only one on a path from the job, they do not
     * crash (but see JOB_WHERE_ANDOR_VALUE). */
    JOB_WHERE_NESTED,
    /* 'and' or 'or' inside the only predicate of a path whose value is
     * used (compared, computed with, counted, passed to a function other
     * than not() and boolean(), or the path continued: x[a or b] != 'v',
     * string(x[a and b]), count(x[a or b]), x[a or b]/y).  On a node set
     * that is empty before the predicate, libyang 2.1.30's data
     * evaluation makes the path the boolean false, not an empty node
     * set, when the predicate holds 'and' or 'or' anywhere (in
     * parentheses, not(), string() alike): seemingly the cast the
     * schema check makes parsing one (JOB_WHERE_NESTED), here on the
     * set.  A job without such nodes is then selected (!= 'v', = '',
     * = 0, < 1, string() = 'false', + 1 = 1, contains()) or the request
     * fails (count(), sum(), name(), a path after it: "Wrong type of
     * argument", "path operator on boolean").  Where false means what
     * the empty set means (a condition alone, an operand of 'and' or
     * 'or', not(), boolean()) the answer is right; a set empty for no
     * job (state[a or b], current()[a or b]) is right anywhere, which
     * the scan tells for current() alone.  Measured on the unit test's
     * jobs (test_job_select()), 2026-12-06. */
    JOB_WHERE_ANDOR_VALUE,
    /* A predicate on what is no node set: a number, a literal or a
     * call or parentheses other than current(), node() and text()
     * ('a'[0 or 1], 2[x or y], true()[a or b], (2)[0 or 1]).  XPath 1.0
     * filters only node sets; with 'and' or 'or' inside, beside another
     * operand (1 = 2[0 or 1]), libyang 2.1.30 crashes (SEGV; make fuzz,
     * 2026-12-06). */
    JOB_WHERE_FILTER,
    /* '..' inside sum(): two from the job reach the root, whose schema
     * node is NULL, and sum()'s schema check reads each node's type
     * unchecked (xpath_sum(), SEGV in lys_find_xpath_atoms(), before
     * '..' is judged; found by review of xpath.c: sum(../..)). */
    JOB_WHERE_SUM_DOTS,
    /* Brackets nested deeper than the scan follows (JOB_WHERE_DEPTH - 1):
     * past them its levels, and so the chained comparisons' check, would
     * be wrong (68 levels around 1 = (*) = 1 leaked as the chain does). */
    JOB_WHERE_DEEP,
};

/* Comparisons seen at one level of nesting since its last 'and', 'or',
 * '(' , '[' or ',': equality (=, !=) and relational (<, <=, >, >=);
 * a relational chain ends at an equality, which binds less tightly. */
#define JOB_WHERE_DEPTH 64
struct job_where_level {
    unsigned char eq, rel;
};

/* Whether 'c' may be part of an XPath name (a prefix's ':' too).  Any
 * byte past ASCII counts: libyang reads UTF-8 names (a letter such as
 * U+00E9 is one), and one that is no name character makes the whole
 * expression a 400 there, so erring this way refuses nothing libyang
 * would take.  Read as not a name, "\xc3\xa9 mod 0" slipped past the
 * mod check (SIGFPE; make fuzz, 2026-12-06). */
static bool
job_xpath_name_char(char c)
{
    return c && ((unsigned char) c >= 0x80 || isalnum((unsigned char) c)
                 || strchr("_-.:", c));
}

/* What libyang's tokenizer reads in a run of name characters from
 * 'w' (where one begins: after none) up to 'p': 'n' a name, '9' a
 * number, '.' '.' or '..', '-' a minus, ':' a colon, for the token
 * that ends at 'p' (its start in '*start' when 'start' is not NULL);
 * 0 when one runs past it ('p' inside a name or a number).  A number
 * is digits, '.' and digits ("1.", ".5"; "1e5" is 1 and a name e5); a
 * name begins with none of a digit, '.', '-' and ':' and takes the
 * rest but ':' ("t-", "x-1or"); a minus is the operator. */
static char
job_where_token_at(const char *w, const char *p, const char **start)
{
    char kind = 0;
    while (w < p) {
        if (start)
            *start = w;
        if (isdigit((unsigned char) *w)
            || (*w == '.' && isdigit((unsigned char) w[1]))) {
            kind = '9';
            while (isdigit((unsigned char) *w))
                w++;
            if (*w == '.')
                for (w++; isdigit((unsigned char) *w); w++)
                    ;
        } else if (*w == '.' || *w == '-' || *w == ':') {
            kind = *w;
            w += *w == '.' && w[1] == '.' ? 2 : 1;
        } else {
            kind = 'n';
            while (job_xpath_name_char(*w) && *w != ':')
                w++;
        }
    }
    return w == p ? kind : 0;
}

/* The start of the run of name characters that ends at 'p'. */
static const char *
job_where_run_start(const char *where, const char *p)
{
    while (p > where && job_xpath_name_char(p[-1]))
        p--;
    return p;
}

/* Whether libyang's tokenizer begins a token at 'p': after no name
 * character, or where a token of the run before ends ("2mod" is 2 mod,
 * "2-1or" 2 - 1 or; "xmod" and "x-or" are names). */
static bool
job_where_token_start(const char *where, const char *p)
{
    return p == where || !job_xpath_name_char(p[-1])
           || job_where_token_at(job_where_run_start(where, p), p, NULL);
}

/* The start of the white space that ends at 'p' (XPath's: space, tab,
 * carriage return, line feed), not before 'where'. */
static const char *
job_where_ws_back(const char *where, const char *p)
{
    while (p > where && strchr(" \t\r\n", p[-1]))
        p--;
    return p;
}

/* Whether the text before 'p' (white space skipped) ends an operand,
 * by XPath 1.0's disambiguation (3.7): its last token is no operator
 * and none of @ :: ( [ , ; 'and', 'or', 'div', 'mod' and '*' are
 * operators only after an operand themselves.  The last token is read
 * as libyang reads it: "t-" is a name, "2-" a number and a minus. */
static bool
job_where_after_operand(const char *where, const char *p)
{
    p = job_where_ws_back(where, p);
    if (p == where)
        return false;
    char c = p[-1];
    if (c == '*')
        return !job_where_after_operand(where, p - 1);
    if (strchr(")]'\"", c))
        return true;
    if (!job_xpath_name_char(c))
        return false;
    const char *w = NULL;
    switch (job_where_token_at(job_where_run_start(where, p), p, &w)) {
    case 'n':
        break;
    case '9':
    case '.':
        return true;
    default:                    /* a minus, a colon, or inside a token */
        return false;
    }
    static const char *const ops[] = { "and", "or", "div", "mod" };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if ((size_t) (p - w) == strlen(ops[i]) && !strncmp(w, ops[i], p - w))
            return !job_where_after_operand(where, w);
    return true;
}

/* Whether 'and' or 'or' at 'p' is the operator as libyang reads it: at
 * the start of a token (job_where_token_start(): "0or0" is 0 or 0),
 * after an operand, whatever follows ("t oro" is t or o). */
static bool
job_where_andor(const char *where, const char *p)
{
    if (strncmp(p, "and", 3) && strncmp(p, "or", 2))
        return false;
    return job_where_token_start(where, p)
           && job_where_after_operand(where, p);
}

/* Whether a predicate may open at 'p' (a '['): after a step (a name,
 * '*', '.', '..'), another predicate, or current(), node() or text(),
 * which are node sets; not after a number, a literal, another call or
 * parentheses (JOB_WHERE_FILTER), which libyang 2.1.30 can crash on. */
static bool
job_where_filter_ok(const char *where, const char *p)
{
    p = job_where_ws_back(where, p);
    if (p == where)
        return false;
    char c = p[-1];
    if (c == ']' || c == '*')
        return true;
    if (c == ')') {
        p--;
        p = job_where_ws_back(where, p);
        if (p == where || p[-1] != '(')
            return false;
        p--;
        p = job_where_ws_back(where, p);
        static const char *const sets[] = { "current", "node", "text" };
        for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
            size_t len = strlen(sets[i]);
            /* A token there: "-current()" is minus current(). */
            if ((size_t) (p - where) >= len
                && !strncmp(p - len, sets[i], len)
                && job_where_token_start(where, p - len))
                return true;
        }
        return false;
    }
    if (!job_xpath_name_char(c))
        return false;
    const char *w = p;
    while (w > where && job_xpath_name_char(w[-1]))
        w--;
    /* No name begins with '-': "-1" is minus one. */
    while (w < p && *w == '-')
        w++;
    /* A number begins with a digit, or with '.' and a digit. */
    return w < p && !isdigit((unsigned char) w[0])
           && !(w[0] == '.' && isdigit((unsigned char) w[1]));
}

/* Whether the '/' at 'p' continues a path from parentheses or a call
 * other than current(), node() and text() ("(a = b)/x", "f(a)/x"),
 * whose set may hold a node used as a value (JOB_WHERE_NESTED). */
static bool
job_where_value_path(const char *where, const char *p)
{
    const char *q = job_where_ws_back(where, p);
    return q > where && q[-1] == ')' && !job_where_filter_ok(where, p);
}

/* Whether the '[' at 'p' opens a predicate on node() or text(), or on
 * an attribute step ('@x', '@*', attribute::x), which the schema check
 * can leave with no node in context (node() under a leaf, text() and
 * attributes always) and, unlike a name test, does not skip for that
 * (JOB_WHERE_NESTED). */
static bool
job_where_on_no_node(const char *where, const char *p)
{
    const char *q = job_where_ws_back(where, p);
    if (q > where && q[-1] == ')') {
        /* node() or text(), as job_where_filter_ok() finds them. */
        q = job_where_ws_back(where, q - 1);
        if (q == where || q[-1] != '(')
            return false;
        q = job_where_ws_back(where, q - 1);
        return q - where >= 4
               && (!strncmp(q - 4, "text", 4) || !strncmp(q - 4, "node", 4))
               && job_where_token_start(where, q - 4);
    }
    /* The name test, then what is before it. */
    if (q > where && q[-1] == '*')
        q--;
    else
        while (q > where && job_xpath_name_char(q[-1]) && q[-1] != ':')
            q--;
    if (q - where >= 2 && q[-1] == ':' && q[-2] != ':')
        for (q--; q > where && job_xpath_name_char(q[-1]) && q[-1] != ':';
             q--)
            ;                   /* a prefix */
    q = job_where_ws_back(where, q);
    if (q > where && q[-1] == '@')
        return true;
    if (q - where < 2 || strncmp(q - 2, "::", 2))
        return false;
    q = job_where_ws_back(where, q - 2);
    return q - where >= 9 && !strncmp(q - 9, "attribute", 9)
           && job_where_token_start(where, q - 9);
}

/* Whether 'name' is at 'p', not followed by more of a name, and then
 * by 'next' (after white space).  What comes before does not count:
 * "-deref(x)" is minus deref(x) (a job has no node whose name ends in
 * one of those looked for). */
static bool
job_where_word(const char *p, const char *name, const char *next)
{
    size_t len = strlen(name);
    if (strncmp(p, name, len)
        || (job_xpath_name_char(p[len]) && p[len] != ':'))
        return false;
    p += len;
    p += strspn(p, " \t\r\n");
    return !strncmp(p, next, strlen(next));
}

/* The token that ends at 'p', white space skipped: its start in
 * '*start' and its kind, job_where_token_at()'s for one of name
 * characters ('n', '9', '.', '-', ':'; 0 when 'p' is inside one), else
 * its last character ('/', '(', ')', ',', '@', '*', '=', a quote);
 * '^' at the start of 'where' (no XPath token is). */
static char
job_where_token_before(const char *where, const char *p, const char **start)
{
    p = job_where_ws_back(where, p);
    *start = p;
    if (p == where)
        return '^';
    if (job_xpath_name_char(p[-1]))
        return job_where_token_at(job_where_run_start(where, p), p, start);
    *start = p - 1;
    return p[-1];
}

/* The start of the path whose only predicate opens at 'p', read back
 * step by step (a name test with its prefix, axis or '@', '*', '.',
 * '..' or a call: what job_where_filter_ok() lets before a '['), each
 * but the first after '/' or '//'; NULL when something else is there. */
static const char *
job_where_path_start(const char *where, const char *p)
{
    for (;;) {
        const char *s, *q;
        char k = job_where_token_before(where, p, &s);
        if (k == ')') {
            if (job_where_token_before(where, s, &s) != '('
                || job_where_token_before(where, s, &s) != 'n')
                return NULL;
        } else if (k != 'n' && k != '*' && k != '.')
            return NULL;
        if (job_where_token_before(where, s, &q) == ':') {
            /* A prefix (x:y), or an axis (child::y). */
            char c = job_where_token_before(where, q, &q);
            if (c == ':')
                c = job_where_token_before(where, q, &q);
            if (c != 'n')
                return NULL;
            s = q;
        }
        if (job_where_token_before(where, s, &q) == '@')
            s = q;
        if (job_where_token_before(where, s, &q) != '/')
            return s;
        p = q;
        if (job_where_token_before(where, q, &q) == '/')
            p = q;
    }
}

/* What is next to a predicate's path, or to the parentheses around
 * it, on one side: and or or (it is their operand), the start or end
 * of 'where', '(' or ')', ',', or anything else (an operator that
 * takes a value, '/', '['). */
enum job_where_side {
    JOB_SIDE_ANDOR, JOB_SIDE_EDGE, JOB_SIDE_OPEN, JOB_SIDE_CLOSE,
    JOB_SIDE_COMMA, JOB_SIDE_VALUE,
};

static enum job_where_side
job_where_left_side(const char *where, const char *p, const char **at)
{
    switch (job_where_token_before(where, p, at)) {
    case '^':
        return JOB_SIDE_EDGE;
    case '(':
        return JOB_SIDE_OPEN;
    case ',':
        return JOB_SIDE_COMMA;
    case 'n':
        return job_where_andor(where, *at) ? JOB_SIDE_ANDOR : JOB_SIDE_VALUE;
    default:
        return JOB_SIDE_VALUE;
    }
}

static enum job_where_side
job_where_right_side(const char *where, const char *p, const char **at)
{
    p += strspn(p, " \t\r\n");
    *at = p;
    switch (*p) {
    case '\0':
        return JOB_SIDE_EDGE;
    case ')':
        return JOB_SIDE_CLOSE;
    case ',':
        return JOB_SIDE_COMMA;
    default:
        return job_where_andor(where, p) ? JOB_SIDE_ANDOR : JOB_SIDE_VALUE;
    }
}

/* Whether the path whose only predicate opens at 'p' (a '[') and holds
 * 'and' or 'or' is read as a condition alone (JOB_WHERE_ANDOR_VALUE):
 * the whole where, an operand of 'and' or 'or', the argument of not()
 * or boolean(), in parentheses that are one of these; or whether the
 * path is current() alone, never empty.  The scan errs towards no:
 * '= true()' is a condition too, yet a comparison. */
static bool
job_where_pred_cond(const char *where, const char *p)
{
    const char *start = job_where_path_start(where, p), *end = p + 1, *q;
    if (!start)
        return false;
    if (job_where_word(start, "current", "(")) {
        q = strchr(start, '(') + 1;
        q += strspn(q, " \t\r\n");
        if (*q == ')' && job_where_ws_back(where, p) == q + 1)
            return true;
    }
    /* The predicate's ']': the first outside literals, as it is the
     * only one.  Without it libyang refuses the text anyway. */
    for (; *end != ']'; end++) {
        if (!*end)
            return true;
        if ((*end == '\'' || *end == '"') && !(end = strchr(end + 1, *end)))
            return true;
    }
    end++;
    for (;;) {
        const char *l, *r;
        enum job_where_side left = job_where_left_side(where, start, &l),
            right = job_where_right_side(where, end, &r);
        if (left == JOB_SIDE_VALUE || right == JOB_SIDE_VALUE)
            return false;
        if (left == JOB_SIDE_ANDOR || right == JOB_SIDE_ANDOR)
            return true;
        if (left == JOB_SIDE_EDGE && right == JOB_SIDE_EDGE)
            return true;
        if (left != JOB_SIDE_OPEN || right != JOB_SIDE_CLOSE)
            return false;       /* an argument beside others */
        /* A name before '(' not after an operand calls a function;
         * after one it is an operator (and, or, div, mod). */
        const char *f;
        if (job_where_token_before(where, l, &f) == 'n'
            && !job_where_after_operand(where, f))
            return job_where_word(f, "not", "(")
                   || job_where_word(f, "boolean", "(");
        start = l;
        end = r + 1;
    }
}

/* The first thing 'where' may not use (JOB_WHERE_OK: none), '..' only
 * when nothing else; '*name' gets the axis's name for the axes. */
static enum job_where_ban
job_where_banned(const char *where, const char **name)
{
    static const char *const out[] = {
        "following-sibling", "following", "preceding-sibling", "preceding",
    };
    static const char *const desc[] = {
        "descendant-or-self", "descendant",
    };
    static const char *const up[] = {
        "parent", "ancestor-or-self", "ancestor",
    };
    struct job_where_level lv[JOB_WHERE_DEPTH] = { { 0, 0 } };
    /* Each level's bracket ('(' or '['), and how many '[' are open. */
    char open[JOB_WHERE_DEPTH] = { 0 };
    int d = 0, preds = 0, all_preds = 0;
    /* Set at the first '(' of sum()'s argument (its level), 0 outside. */
    int sum_d = 0;
    /* A step or a path the schema check may leave with no node in
     * context, whose predicate it then only parses. */
    bool no_context = false;
    for (const char *p = where; *p; p++) {
        if (*p == '\'' || *p == '"') {
            const char *q = strchr(p + 1, *p);
            if (!q)
                break;
            p = q;
        } else {
            all_preds += *p == '[';
            no_context = no_context
                         || (*p == '/' && job_where_value_path(where, p))
                         || (*p == '[' && job_where_on_no_node(where, p));
        }
    }
    /* Where a predicate's 'and' or 'or' can meet an emptied set. */
    bool nested = all_preds > 1 || no_context;
    bool dots = false;
    /* The last '[' opened: with 'and' or 'or' inside and 'nested'
     * false, the expression's only one. */
    const char *pred = NULL;
    for (const char *p = where; *p; p++) {
        if (*p == '\'' || *p == '"') {
            const char *q = strchr(p + 1, *p);
            if (!q)
                return JOB_WHERE_OK;    /* libyang refuses it */
            p = q;
            continue;
        }
        if (*p == '|')
            return JOB_WHERE_UNION;
        if (p[0] == '.' && p[1] == '.') {
            if (sum_d && d >= sum_d)
                return JOB_WHERE_SUM_DOTS;
            dots = true;
        }
        if (*p == '/') {
            /* A step's '/' follows what ends an operand (a name that is
             * no operator, '.', a '*' that is no multiplication, a
             * predicate, a call: job_where_after_operand()); any other
             * ('or /', '0 * /', '(/') starts at the root. */
            if (!job_where_after_operand(where, p))
                return JOB_WHERE_ROOT;
            if (p[1] == '/')
                p++;
            continue;
        }
        if (*p == '[' && !job_where_filter_ok(where, p))
            return JOB_WHERE_FILTER;
        if (*p == '(' || *p == '[') {
            if (d == JOB_WHERE_DEPTH - 1)
                return JOB_WHERE_DEEP;
            lv[++d] = (struct job_where_level) { 0, 0 };
            open[d] = *p;
            preds += *p == '[';
            if (*p == '[')
                pred = p;
        }
        else if ((*p == ')' || *p == ']') && d > 0) {
            preds -= open[d--] == '[';
            if (d < sum_d)
                sum_d = 0;
        }
        else if (*p == ',')
            lv[d] = (struct job_where_level) { 0, 0 };
        else if ((*p == '=' && (p == where || !strchr("!<>", p[-1])))
                 || (*p == '!' && p[1] == '=')) {
            lv[d].rel = 0;
            if (++lv[d].eq > 1)
                return JOB_WHERE_CHAIN;
        } else if ((*p == '<' || *p == '>') && ++lv[d].rel > 1)
            return JOB_WHERE_CHAIN;
        else if (job_where_andor(where, p)) {
            if (preds > 0 && nested)
                return JOB_WHERE_NESTED;
            if (preds > 0 && !job_where_pred_cond(where, pred))
                return JOB_WHERE_ANDOR_VALUE;
            lv[d] = (struct job_where_level) { 0, 0 };
        }
        if (job_where_word(p, "deref", "("))
            return JOB_WHERE_DEREF;
        if (!sum_d && job_where_word(p, "sum", "("))
            sum_d = d + 1;
        for (size_t i = 0; i < sizeof out / sizeof *out; i++)
            if (job_where_word(p, out[i], "::")) {
                *name = out[i];
                return JOB_WHERE_AXIS_OUT;
            }
        for (size_t i = 0; i < sizeof desc / sizeof *desc; i++)
            if (job_where_word(p, desc[i], "::")) {
                *name = desc[i];
                return JOB_WHERE_AXIS_DESC;
            }
        for (size_t i = 0; i < sizeof up / sizeof *up; i++)
            if (job_where_word(p, up[i], "::")) {
                *name = up[i];
                return JOB_WHERE_AXIS_UP;
            }
        /* libyang reads "mod" after an operand as the operator, whatever
         * follows ("priority modpriority" is priority mod priority, "7
         * model" 7 mod el): after anything that may end an operand it is
         * refused; after '/', ':', '(', '[', ',', '@', an operator or
         * nothing it is a name (model, modulation), and inside a name
         * it is none (job_where_token_start(): x-model). */
        if (!strncmp(p, "mod", 3) && job_where_token_start(where, p)
            && job_where_after_operand(where, p))
            return JOB_WHERE_MOD;
    }
    return dots ? JOB_WHERE_DOTS : JOB_WHERE_OK;
}

/* Whether 'where' has a name test for 'name' (outside its string
 * literals, with or without a module prefix; a function call of that
 * name is none). */
static bool
job_where_names(const char *where, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = where; *p; p++) {
        if (*p == '\'' || *p == '"') {
            const char *q = strchr(p + 1, *p);
            if (!q)
                return false;
            p = q;
            continue;
        }
        if ((p > where && job_xpath_name_char(p[-1]) && p[-1] != ':')
            || strncmp(p, name, len))
            continue;
        const char *e = p + len;
        if (job_xpath_name_char(*e) && !(e[0] == ':' && e[1] == ':'))
            continue;
        e += strspn(e, " \t\r\n");
        if (*e != '(')
            return true;
    }
    return false;
}

/* The config false node among 'atoms' (a where's, on the schema) that
 * the where names and that has no config true namesake there, or NULL.
 * A node reached by a wildcard, '.' or a name the intent has too is
 * none: on running's tree (state cut) it selects by what is there; one
 * named that only state has can test nothing running holds. */
static const struct lysc_node *
job_where_state_named(const struct ly_set *atoms, const char *where)
{
    for (uint32_t a = 0; atoms && a < atoms->count; a++) {
        const struct lysc_node *sn = atoms->snodes[a];
        if (!(sn->flags & LYS_CONFIG_R) || !job_where_names(where, sn->name))
            continue;
        bool namesake = false;
        for (uint32_t b = 0; b < atoms->count && !namesake; b++)
            namesake = (atoms->snodes[b]->flags & LYS_CONFIG_W)
                       && !strcmp(atoms->snodes[b]->name, sn->name);
        if (!namesake)
            return sn;
    }
    return NULL;
}

int
lr_yang_job_select(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                   int n, const char *where, const char *sort_by,
                   bool config_only, const struct lr_topo *topo,
                   const struct lr_cluster *cluster,
                   const struct lr_modtable *mods,
                   const struct lr_job ***out, int *nout, char *err,
                   size_t errlen)
{
    struct lr_yang_job_env env = {
        .topo = topo, .cluster = cluster, .mods = mods,
        .err = err, .errlen = errlen, .config_only = config_only,
    };
    const struct job_examples *ex = &job_examples[config_only];
    const struct lysc_node *list, *leaf = NULL;
    struct lyd_node *root = NULL;
    struct job_sel *sel = NULL;
    struct ly_set *atoms = NULL;
    size_t m = 0;
    int ret = 0;
    LY_ERR rc = LY_SUCCESS;

    *out = NULL;
    *nout = 0;
    if (n < 0)
        n = 0;
    if (!(env.mod = lr_yang_module(ctx, LR_YANG_LRJ, LR_YANG_JOB_DOC, err,
                                   errlen)))
        return EIO;
    list = lys_find_path(ctx, NULL, "/" LR_YANG_LRJ ":jobs/job", 0);
    if (!list) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the schema has no "
                     "job list");
        return EIO;
    }
    if (where && strlen(where) > JOB_WHERE_MAX) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "is %zu bytes long: send one of at most %d",
                     strlen(where), JOB_WHERE_MAX);
        return EINVAL;
    }
    const char *axis = "";
    enum job_where_ban ban = where ? job_where_banned(where, &axis)
                                   : JOB_WHERE_OK;
    switch (ban) {
    case JOB_WHERE_OK:
    case JOB_WHERE_DOTS:
        break;
    case JOB_WHERE_DEREF:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' calls deref(): a job has no leafref to follow; "
                     "send one without it", JOB_QUOTE_MAX, where);
        return EINVAL;
    case JOB_WHERE_MOD:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses mod, which the server's XPath library "
                     "cannot compute safely (a divisor between -1 and 1 "
                     "crashes it): send one without it (for x >= 0 and "
                     "y >= 1, x - y * floor(x div y) is x mod y)",
                     JOB_QUOTE_MAX, where);
        return EINVAL;
    case JOB_WHERE_AXIS_OUT:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses the axis %s::, which reaches the other "
                     "jobs: send one over the job's own nodes, such as %s",
                     JOB_QUOTE_MAX, where, axis, ex->own);
        return EINVAL;
    case JOB_WHERE_AXIS_DESC:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses the axis %s::, whose cost for each job "
                     "grows with the whole list: send one with // instead, "
                     "such as %s", JOB_QUOTE_MAX, where, axis, ex->desc);
        return EINVAL;
    case JOB_WHERE_AXIS_UP:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses the axis %s::, which crashes the server's "
                     "XPath library after //: send one with a predicate "
                     "instead, such as %s", JOB_QUOTE_MAX, where, axis,
                     ex->pred);
        return EINVAL;
    case JOB_WHERE_CHAIN:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' chains comparisons (a = b = c, a < b < c), "
                     "which the server's XPath library leaks memory on and "
                     "which are no range: join them with and, such as "
                     "priority > 1 and priority < 5, or parenthesise, such "
                     "as (a = b) = c", JOB_QUOTE_MAX, where);
        return EINVAL;
    case JOB_WHERE_NESTED:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' joins conditions with and or or inside a "
                     "predicate, beside another predicate or after a path "
                     "from parentheses or a call, or on node(), text() or "
                     "an attribute, which can crash the server's XPath "
                     "library: join them outside the predicates, x/y[a] or "
                     "x/y[b] for x[y[a or b]], such as %s", JOB_QUOTE_MAX,
                     where, ex->nested);
        return EINVAL;
    case JOB_WHERE_ANDOR_VALUE:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses as a value (compared, computed, counted, "
                     "passed to a function other than not() or boolean(), "
                     "or followed by a step) a path whose predicate joins "
                     "conditions with and or or, which the server's XPath "
                     "library makes false, not an empty node set, for a "
                     "job where the path reaches no node: send x[a][b] for "
                     "x[a and b], x[a] != 'v' or x[b] != 'v' for x[a or b] "
                     "!= 'v', count(x[a]) + count(x[b][not(a)]) for "
                     "count(x[a or b]), such as %s (as a condition alone, "
                     "x[a or b] is taken)", JOB_QUOTE_MAX, where, ex->split);
        return EINVAL;
    case JOB_WHERE_SUM_DOTS:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses .. inside sum(), where the root (../.. "
                     "from the job) crashes the server's XPath library: "
                     "send one with a predicate instead, such as %s",
                     JOB_QUOTE_MAX, where, ex->pred);
        return EINVAL;
    case JOB_WHERE_FILTER:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' puts a predicate after what is no step (a "
                     "number, a literal, a call or parentheses), which can "
                     "crash the server's XPath library: put it after a name, "
                     "*, ., .., current(), node() or text(), such as %s",
                     JOB_QUOTE_MAX, where, ex->pred);
        return EINVAL;
    case JOB_WHERE_DEEP:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' nests brackets more than %d deep: send one "
                     "with fewer", JOB_QUOTE_MAX, where, JOB_WHERE_DEPTH - 1);
        return EINVAL;
    case JOB_WHERE_ROOT:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' starts a path at the root ('/'), outside the "
                     "job it is evaluated on: send one over the job's own "
                     "nodes, such as %s", JOB_QUOTE_MAX, where, ex->own);
        return EINVAL;
    case JOB_WHERE_UNION:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses | (a union), whose cost for each job grows "
                     "with the whole list: send the conditions joined with "
                     "or, such as %s", JOB_QUOTE_MAX, where, ex->either);
        return EINVAL;
    }
    /* Judged on the schema first, so that a bad query is refused even
     * when there is no job to evaluate it on. */
    ly_err_clean(ctx, NULL);
    if (where && lys_find_xpath_atoms(ctx, list, where,
                                      LYS_FIND_NO_MATCH_ERROR, &atoms)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' is not an XPath 1.0 expression over a job "
                     "(%s): send one whose names are a job's nodes, "
                     "unprefixed, such as %s", JOB_QUOTE_MAX, where,
                     job_ly_msg(ctx), ex->own);
        ly_set_free(atoms, NULL);
        return EINVAL;
    }
    /* Within the entry only: an expression that reaches the other jobs
     * ('..', an absolute path) would cost each job's evaluation the
     * whole list, n times over (10,000 jobs: 10^8 steps on the loop). */
    for (uint32_t a = 0; atoms && a < atoms->count; a++) {
        const struct lysc_node *sn = atoms->snodes[a];
        while (sn && sn != list)
            sn = sn->parent;
        if (!sn) {
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                         "where '%.*s' reaches '%s', outside the job it is "
                         "evaluated on: send one over the job's own nodes, "
                         "such as %s", JOB_QUOTE_MAX, where,
                         atoms->snodes[a]->name, ex->own);
            ly_set_free(atoms, NULL);
            return EINVAL;
        }
    }
    /* RFC 8342 5.1.3: running has no config false node to test; refused
     * here, before any job is evaluated. */
    const struct lysc_node *st = config_only
                                 ? job_where_state_named(atoms, where)
                                 : NULL;
    if (st) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' names '%s', which is state (config false): the "
                     "running datastore holds configuration only",
                     JOB_QUOTE_MAX, where, st->name);
        ly_set_free(atoms, NULL);
        return ENODATA;
    }
    ly_set_free(atoms, NULL);
    if (ban == JOB_WHERE_DOTS) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%.*s' uses .., whose cost for each job grows with the "
                     "whole list: send one with a predicate instead, such "
                     "as %s", JOB_QUOTE_MAX, where, ex->pred);
        return EINVAL;
    }
    if (sort_by
        && !(leaf = job_sort_leaf(ctx, list, sort_by, ex, err, errlen)))
        return EINVAL;
    if (config_only && leaf && (leaf->flags & LYS_CONFIG_R)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                     "sort-by '%.*s' is state (config false): the running "
                     "datastore holds configuration only", JOB_QUOTE_MAX,
                     sort_by);
        return ENODATA;
    }

    if (!(sel = malloc(((size_t) n + 1) * sizeof *sel))
        || !(*out = malloc(((size_t) n + 1) * sizeof **out))) {
        ret = ENOMEM;
        goto cleanup;
    }
    /* The whole list as GET prints it (defaults too), so that where sees
     * what the client reads; built and validated once, not per job.
     * Running's has no state: built without it (a third of the time of
     * building it and cutting it after, with 10,000 jobs), and validated
     * so that none is added (a default of state would be). */
    if ((rc = lyd_new_inner(NULL, env.mod, "jobs", 0, &root)))
        goto cleanup;
    for (int i = 0; i < n; i++)
        if ((ret = lr_yang_job_add(&env, jobs[i], root, &rc)) || rc) {
            ret = ret ? EIO : 0;
            goto cleanup;
        }
    if ((rc = lyd_validate_all(&root, ctx, LYD_VALIDATE_PRESENT
                               | (config_only ? LYD_VALIDATE_NO_STATE : 0),
                               NULL)))
        goto cleanup;
    /* Validation keeps the entries in the order they were added. */
    size_t i = 0;
    for (struct lyd_node *e = lyd_child(root); e && i < (size_t) n;
         e = e->next, i++) {
        ly_bool keep = 1;
        struct lyd_node *k = NULL;
        if (where && (rc = lyd_eval_xpath(e, where, &keep))) {
            /* The schema check passed: a failure here is evaluation's. */
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                         "where '%.*s' could not be evaluated (%s): send "
                         "one whose functions apply to a job's nodes",
                         JOB_QUOTE_MAX, where,
                         job_ly_msg(ctx));
            rc = LY_SUCCESS;
            ret = EINVAL;
            goto cleanup;
        }
        if (!keep)
            continue;
        sel[m].job = jobs[i];
        sel[m].idx = i;
        sel[m].kind = leaf ? job_key_kind(leaf) : JOB_KEY_TEXT;
        sel[m].key = leaf && !lyd_find_path(e, sort_by, 0, &k)
                     ? lyd_get_value(k) : NULL;
        m++;
    }
    if (leaf)
        qsort(sel, m, sizeof *sel, job_sel_cmp);
    for (size_t j = 0; j < m; j++)
        (*out)[j] = sel[j].job;
    *nout = (int) m;

cleanup:
    if (!ret && rc)
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen) == ENOMEM
              ? ENOMEM : EIO;
    else if (ret == ENOMEM)
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
    lyd_free_all(root);
    free(sel);
    if (ret) {
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    return ret;
}
