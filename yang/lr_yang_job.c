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
 * Printing.  The tree is built node by node (values as canonical text)
 * and printed without the schema's defaults, which the printer would
 * leave out (job_print()); a where's tree has them (job_tree_defaults()).
 */
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
#include "planner/lr_utf8.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"
#include "yang/lr_yang_job.h"
#include "yang/lr_xpath.h"

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
        char better[1024];
        lr_yang_split_location(e->path, where, sizeof where, &schema,
                                   &line);
        const char *m = lr_yang_better_msg(ctx, jobs, where,
                                           e->msg ? e->msg : "invalid data",
                                           better, sizeof better);
        lr_yang_job_fix_path(where, sizeof where, schema, jobs);
        lr_yang_copy_line(path, pathlen, where);
        /* libyang's words for a bare JSON number where RFC 7951 wants a
         * string say nothing of the cure; lr_yang_better_msg() says it
         * ("as a JSON string") where it knows the leaf. */
        const char *hint = strstr(m, "non-num64-encoded")
                           && !strstr(m, "as a JSON string")
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
    /* A copy of the caller's network, every field NULL for none
     * (job_env()). */
    struct lr_yang_job_net net;
    char *err;
    size_t errlen;
    /* The entry's configuration only, no state container (the running
     * datastore's tree, RFC 8342 5.1.3). */
    bool config_only;
};

/* The env of a print against 'net' (NULL: one of every field NULL, as
 * lr_yang_job.h says of a NULL net), 'mod' left for the caller.  The
 * one place a NULL net is read as none. */
static struct lr_yang_job_env
job_env(const struct lr_yang_job_net *net, bool config_only, char *err,
        size_t errlen)
{
    struct lr_yang_job_env env = {
        .err = err, .errlen = errlen, .config_only = config_only,
    };
    if (net)
        env.net = *net;
    return env;
}

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

/* Leaf gosnr under 'l': 'db' cut to hundredths, never rounded up
 * (lr_mod_gosnr_text()), so that what GET shows, a where on it and a
 * mismatch saying it is below a threshold agree (16.996 dB against 17
 * reads 16.99, not 17.0), and, a table's thresholds having two decimals
 * at most, so does every judgement (lr_mod_received()). */
static LY_ERR
job_gosnr_leaf(struct lyd_node *l, const struct lys_module *mod, double db)
{
    char text[64];
    lr_mod_gosnr_text(db, text, sizeof text);
    return lyd_new_term(l, mod, "gosnr", text, 0, NULL);
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
    const struct lr_cluster *c = env->net.cluster;
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
    const struct lr_cluster *c = env->net.cluster;
    const struct lr_topo *t = env->net.topo;
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
        /* A name that is no text (a store written before the table
         * refused such names) is left out: its bytes would reach every
         * client, invalid JSON or a terminal's control; the mismatch
         * below names it escaped. */
        bool named = lp->modulation[0]
                     && !lp->modulation[lr_mod_name_text(lp->modulation)];
        if (named
            && (rc = lyd_new_term(l, mod, "modulation", lp->modulation, 0,
                                  NULL)))
            goto cleanup;
        char why[LR_MOD_JUDGE_WHY_MAX];
        if (env->net.mods
            && lr_lightpath_fits(env->net.mods, lp, why, sizeof why)
            && (rc = lyd_new_term(l, mod, "modulation-mismatch", why, 0,
                                  NULL)))
            goto cleanup;
        if (lp->gosnr_known
            && (rc = job_gosnr_leaf(l, mod, lp->gosnr_db)))
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
    int ret = 0, ndcs = env->net.cluster ? env->net.cluster->n_dcs : 0;
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
                               env->net.cluster->dcs[k].name))
            || (rc = lr_yang_termf(g, mod, "count", "%d", j->gpus[k])))
            goto cleanup;
    }
    ret = lr_yang_job_lightpaths(env, j, state, &rc);

cleanup:
    *rcp = rc;
    return ret;
}

/* Completes the jobs tree 'root' (built by lr_yang_job_add()) for a
 * where and a sort-by, which see what a client reads: the schema's
 * defaults a job leaves out (its algorithm's "cdynp"), none of the
 * state with 'config_only'.  That is all lyd_validate_all() with
 * LYD_VALIDATE_PRESENT added to this tree; its checks (musts, mandatory
 * leaves, when, unique keys: job_names_unique()) judge what
 * lr_yang_parse_intent() validated when each job was submitted, and
 * cost four times as much: 0.40 s against 0.09 s of CPU for 2,000 jobs
 * of 32 lightpaths of 32 links, 27 ms against 4 ms for 2 of 2
 * (docs/benchmarks.md, "Completing the jobs tree").  test_yang_job_tree
 * compares both.  lyd_new_implicit_tree(), not _all(), which would add
 * other modules' top-level containers beside 'root'. */
static LY_ERR
job_tree_defaults(struct lyd_node *root, bool config_only)
{
    return lyd_new_implicit_tree(root, config_only ? LYD_IMPLICIT_NO_STATE
                                                   : 0, NULL);
}

static int
job_name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* 0 when the 'n' jobs have 'n' names; else EINVAL with the name two of
 * them share in env->err (a key twice is no list a client can read),
 * or ENOMEM.  What validation's duplicate-key check found before
 * job_tree_defaults() and the print without defaults replaced it: the
 * store keeps one job a name, so this guards against a bug, at the cost
 * of a sort of the pointers to the names. */
static int
job_names_unique(const struct lr_yang_job_env *env,
                 const struct lr_job *const *jobs, int n)
{
    const char **names;
    int ret = 0;

    if (n < 2)
        return 0;
    if (!(names = malloc((size_t) n * sizeof *names)))
        return ENOMEM;
    for (int i = 0; i < n; i++)
        names[i] = jobs[i]->intent.name;
    qsort(names, (size_t) n, sizeof *names, job_name_cmp);
    for (int i = 1; i < n && !ret; i++)
        if (!strcmp(names[i - 1], names[i]))
            ret = lr_yang_job_print_err(env, names[i], "two jobs have this "
                                        "name, the list's key");
    free(names);
    return ret;
}

int
lr_yang_jobs_to_json(struct ly_ctx *ctx, const struct lr_job *jobs, int n,
                     const struct lr_yang_job_net *net, int single,
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
    int ret = lr_yang_job_refs_to_json(ctx, refs, n, net, single, out, err,
                                       errlen);
    free(refs);
    return ret;
}

/* What job_print() prints: the jobs container, the one job's entry
 * (RFC 8040's form of one list entry), or the list resource. */
enum job_form { JOB_FORM_JOBS, JOB_FORM_ONE, JOB_FORM_LIST };

static int
job_print(struct ly_ctx *ctx, const struct lr_job *const *jobs, int n,
          const struct lr_yang_page_meta *meta,
          const struct lr_yang_job_net *net, enum job_form form,
          bool config_only, char **out, char *err, size_t errlen);

int
lr_yang_job_refs_to_json(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                         int n, const struct lr_yang_job_net *net, int single,
                         char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, NULL, net,
                     single ? JOB_FORM_ONE : JOB_FORM_JOBS, false, out, err,
                     errlen);
}

int
lr_yang_job_refs_config_to_json(struct ly_ctx *ctx,
                                const struct lr_job *const *jobs, int n,
                                const struct lr_yang_job_net *net, int single,
                                char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, NULL, net,
                     single ? JOB_FORM_ONE : JOB_FORM_JOBS, true, out, err,
                     errlen);
}

int
lr_yang_job_page_to_json(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                         int n, const struct lr_yang_page_meta *meta,
                         bool list, const struct lr_yang_job_net *net,
                         char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, meta, net,
                     list ? JOB_FORM_LIST : JOB_FORM_JOBS, false, out, err,
                     errlen);
}

int
lr_yang_job_page_config_to_json(struct ly_ctx *ctx,
                                const struct lr_job *const *jobs, int n,
                                const struct lr_yang_page_meta *meta,
                                bool list, const struct lr_yang_job_net *net,
                                char **out, char *err, size_t errlen)
{
    return job_print(ctx, jobs, n, meta, net,
                     list ? JOB_FORM_LIST : JOB_FORM_JOBS, true, out, err,
                     errlen);
}

/* The text of the jobs tree 'root' in 'form', with 'meta' on its first
 * entry, into '*out' (the caller frees it): 0, or an errno with err[]
 * said.  What job_print() and lr_yang_job_tree_page_to_json() share. */
static int
job_tree_print(struct ly_ctx *ctx, const struct lys_module *mod,
               struct lyd_node *root, const struct lr_yang_page_meta *meta,
               enum job_form form, char **out, char *err, size_t errlen)
{
    char *text = NULL;
    int ret = 0;
    LY_ERR rc = LY_SUCCESS;

    if (meta && lyd_child(root)) {
        /* On the first entry, where the list pagination draft's RESTCONF
         * mapping puts its "remaining" (metadata is no data node: a
         * validation of the tree would not move it); "next" and "previous"
         * with it.  lyd_new_meta() checks each value against its
         * annotation's type. */
        char v[16];
        snprintf(v, sizeof v, "%" PRIu32, meta->remaining);
        if ((meta->remaining
             && (rc = lyd_new_meta(ctx, lyd_child(root), mod,
                                   LR_YANG_LRJ ":remaining", v, 0, NULL)))
            || (meta->next
                && (rc = lyd_new_meta(ctx, lyd_child(root), mod,
                                      LR_YANG_LRJ ":next", meta->next, 0,
                                      NULL)))
            || (meta->previous
                && (rc = lyd_new_meta(ctx, lyd_child(root), mod,
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
    if (ret) {
        free(text);
        text = NULL;
    }
    *out = text;
    return ret;
}

/* 'config_only': each entry without its state container (as
 * lr_yang_job_select()'s running tree). */
static int
job_print(struct ly_ctx *ctx, const struct lr_job *const *jobs, int n,
          const struct lr_yang_page_meta *meta,
          const struct lr_yang_job_net *net, enum job_form form,
          bool config_only, char **out, char *err, size_t errlen)
{
    struct lr_yang_job_env env = job_env(net, config_only, err, errlen);
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
    if ((ret = job_names_unique(&env, jobs, n))) {
        if (ret == ENOMEM)
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
        goto cleanup;
    }
    if ((rc = lyd_new_inner(NULL, env.mod, "jobs", 0, &root)))
        goto cleanup;
    for (int i = 0; i < n; i++) {
        ret = lr_yang_job_add(&env, jobs[i], root, &rc);
        if (ret || rc)
            goto cleanup;
    }
    /* Not completed with the schema's defaults (job_tree_defaults()):
     * the printer's mode, explicit (RFC 6243), leaves out a default of
     * configuration, and lightrail-job's state has none, so they would
     * print nothing; validating the tree for them was 11% to 44% of the
     * CPU of a GET of every job (docs/benchmarks.md, "Completing the
     * jobs tree").
     * test_yang_job_tree compares the text with the completed tree's.
     * A default given to a state leaf would have to be added here. */
    ret = job_tree_print(ctx, env.mod, root, meta, form, &text, err,
                         errlen);

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

/* ---- The jobs trees kept across requests ---- */

/* One tree kept: every job's entry, with the state or without it
 * (config_only), completed by job_tree_defaults() once a where or a
 * sort-by needed it (the printer's mode, explicit, does not print
 * them), and what it was built from: the generation the caller gave
 * and the jobs, in the order of the entries. */
struct job_cache_slot {
    struct lyd_node *root;          /* NULL: none kept */
    bool completed;
    unsigned long long gen;
    const struct lr_job **jobs;     /* [n], the entries' jobs */
    size_t n;
    size_t nodes;                   /* data nodes, the defaults too */
};

struct lr_yang_job_cache {
    size_t max_nodes;
    struct job_cache_slot slot[2];  /* [config_only] */
    struct lr_yang_job_cache_stats stats;
};

struct lr_yang_job_cache *
lr_yang_job_cache_new(size_t max_nodes)
{
    struct lr_yang_job_cache *c = calloc(1, sizeof *c);
    if (c)
        c->max_nodes = max_nodes;
    return c;
}

static void
job_cache_drop(struct lr_yang_job_cache *c, struct job_cache_slot *s)
{
    c->stats.nodes -= s->nodes;
    lyd_free_all(s->root);
    free(s->jobs);
    memset(s, 0, sizeof *s);
}

void
lr_yang_job_cache_free(struct lr_yang_job_cache *c)
{
    lr_yang_job_cache_clear(c);
    free(c);
}

void
lr_yang_job_cache_clear(struct lr_yang_job_cache *c)
{
    if (!c)
        return;
    for (int k = 0; k < 2; k++)
        job_cache_drop(c, &c->slot[k]);
}

void
lr_yang_job_cache_stats(const struct lr_yang_job_cache *c,
                        struct lr_yang_job_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    if (c)
        *out = c->stats;
}

/* The data nodes of the tree 'root', its metadata aside. */
static size_t
job_tree_nodes(const struct lyd_node *root)
{
    const struct lyd_node *e;
    size_t n = 0;
    LYD_TREE_DFS_BEGIN(root, e) {
        n++;
        LYD_TREE_DFS_END(root, e);
    }
    return n;
}

/* The jobs tree of the 'n' 'jobs' as env->config_only asks, completed
 * (job_tree_defaults()) when 'complete' asks (a where, a sort-by; a
 * GET's print does without): '*root' the one 'c' keeps (borrowed,
 * '*owned' false) when it was built for generation 'gen' from these
 * jobs in this order, else built now ('*owned' true: the caller frees
 * it), and kept by 'c' ('*owned' false) when its nodes and those 'c'
 * keeps of this generation are at most c->max_nodes.  What 'c' kept of
 * another generation is freed before the build, whose allocations
 * reuse its memory.  'c' may be NULL: built, owned.  Returns an errno
 * value for our own errors (env->err said; EINVAL: two jobs of one
 * name or a job that does not print), or 0 with libyang's result in
 * '*rcp'. */
static int
job_cache_root(struct lr_yang_job_cache *c, unsigned long long gen,
               const struct lr_yang_job_env *env,
               const struct lr_job *const *jobs, int n, bool complete,
               struct lyd_node **root, bool *owned, LY_ERR *rcp)
{
    struct job_cache_slot *s = c ? &c->slot[env->config_only] : NULL;
    size_t nj = n > 0 ? (size_t) n : 0;
    int ret;

    *root = NULL;
    *owned = true;
    *rcp = LY_SUCCESS;
    if (s && s->root && s->gen == gen && s->n == nj
        && (!nj || !memcmp(s->jobs, jobs, nj * sizeof *jobs))) {
        if (complete && !s->completed) {
            /* Completed once, kept so: the printer's explicit mode
             * leaves the defaults out of a GET's text. */
            if ((*rcp = job_tree_defaults(s->root, env->config_only))) {
                job_cache_drop(c, s);
                return 0;
            }
            s->completed = true;
            c->stats.nodes -= s->nodes;
            s->nodes = job_tree_nodes(s->root);
            if (s->nodes > c->max_nodes - c->stats.nodes) {
                /* Its defaults took it past the bound: this request's
                 * alone now, as a tree too large from the start. */
                *root = s->root;
                s->root = NULL;
                free(s->jobs);
                memset(s, 0, sizeof *s);
                c->stats.too_large++;
                return 0;
            }
            c->stats.nodes += s->nodes;
        }
        c->stats.hits++;
        *root = s->root;
        *owned = false;
        return 0;
    }
    if (c) {
        /* What was kept for another generation is no use to any
         * request now: freed, the other form's too. */
        for (int k = 0; k < 2; k++)
            if (c->slot[k].root
                && (&c->slot[k] == s || c->slot[k].gen != gen))
                job_cache_drop(c, &c->slot[k]);
    }
    if ((ret = job_names_unique(env, jobs, n)))
        return ret;
    if ((*rcp = lyd_new_inner(NULL, env->mod, "jobs", 0, root)))
        return 0;
    for (size_t i = 0; i < nj; i++)
        if ((ret = lr_yang_job_add(env, jobs[i], *root, rcp)) || *rcp)
            goto fail;
    if (complete && (*rcp = job_tree_defaults(*root, env->config_only)))
        goto fail;
    if (!c)
        return 0;
    c->stats.builds++;
    /* The bound is on both trees together: the other form's, of this
     * generation, stays. */
    size_t nodes = job_tree_nodes(*root);
    bool fits = nodes <= c->max_nodes - c->stats.nodes;
    const struct lr_job **kept = fits ? malloc((nj + 1) * sizeof *kept)
                                      : NULL;
    if (!kept) {
        c->stats.too_large += !fits;
        return 0;
    }
    if (nj)
        memcpy(kept, jobs, nj * sizeof *kept);
    *s = (struct job_cache_slot) { .root = *root, .gen = gen, .jobs = kept,
                                   .n = nj, .nodes = nodes,
                                   .completed = complete };
    c->stats.nodes += nodes;
    *owned = false;
    return 0;

fail:
    lyd_free_all(*root);
    *root = NULL;
    return ret;
}

int
lr_yang_job_cache_to_json(struct ly_ctx *ctx, struct lr_yang_job_cache *c,
                          unsigned long long gen,
                          const struct lr_job *const *jobs, int n, bool list,
                          bool config_only,
                          const struct lr_yang_job_net *net, char **out,
                          char *err, size_t errlen)
{
    struct lr_yang_job_env env = job_env(net, config_only, err, errlen);
    struct lyd_node *root = NULL;
    bool owned = true;
    int ret = 0;
    LY_ERR rc = LY_SUCCESS;

    *out = NULL;
    if (n < 0) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL,
                     "%d jobs to print", n);
        return EINVAL;
    }
    if (!(env.mod = lr_yang_module(ctx, LR_YANG_LRJ, LR_YANG_JOB_DOC, err,
                                   errlen)))
        return EINVAL;
    ly_err_clean(ctx, NULL);
    ret = job_cache_root(c, gen, &env, jobs, n, false, &root, &owned, &rc);
    if (ret == ENOMEM)
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
    if (!ret && !rc)
        ret = job_tree_print(ctx, env.mod, root, NULL,
                             list ? JOB_FORM_LIST : JOB_FORM_JOBS, out, err,
                             errlen);
    else if (!ret)
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen);
    if (owned)
        lyd_free_all(root);
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
    struct lyd_node *entry;   /* the job's, in the jobs tree */
};

/* A job the selection kept and its entry in the tree, for
 * lr_yang_job_tree_page_to_json() to find a page's entries: sorted by
 * the job's address. */
struct job_tree_entry {
    uintptr_t job;
    struct lyd_node *entry;
};

struct lr_yang_job_tree {
    /* The jobs container: owned, or 'borrowed' from a cache
     * (lr_yang_job_cache_select_tree()), which it is not to change. */
    struct lyd_node *root;
    bool borrowed;
    const struct lys_module *mod;
    bool config_only;               /* built without the state */
    size_t n;
    struct job_tree_entry *kept;    /* [n], by job */
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
/* 's' as quoted: cut at the start of a character and marked when it
 * is longer (a "%.80s" could split one, and the 400's JSON then had
 * U+FFFD); a compound literal, so passed straight to the call. */
#define JOB_QUOTE(s) LR_UTF8_CLIP((s), JOB_QUOTE_MAX)
/* libyang 2.1 parses an expression in time quadratic in its nesting (60 KB
 * of parentheses: 20 s on the loop): longer ones are refused unread. */
#define JOB_WHERE_MAX 1024

/* How much of libyang's words a refusal of a where or a sort-by quotes:
 * libyang quotes the whole expression (up to JOB_WHERE_MAX bytes), which
 * left no room in the message for what to send instead. */
#define JOB_LY_MAX 256

/* libyang's last words on 'ctx', or a stand-in; quoted cut
 * (LR_UTF8_CLIP(job_ly_msg(ctx), JOB_LY_MAX)). */
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
                     "sort-by '%s' is not a leaf of a job (%s): send the "
                     "path of one below the entry, such as %s",
                     JOB_QUOTE(sort_by),
                     leaf ? "it is no leaf"
                          : LR_UTF8_CLIP(job_ly_msg(ctx), JOB_LY_MAX),
                     ex->leaves);
        return NULL;
    }
    for (const struct lysc_node *p = leaf->parent; p && p != list;
         p = p->parent)
        if (p->nodetype == LYS_LIST) {
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                         "sort-by '%s' is a leaf of the list '%s' inside "
                         "a job, which has many or none: send the path of a "
                         "leaf a job has at most once, such as %s",
                         JOB_QUOTE(sort_by), p->name, ex->leaves);
            return NULL;
        }
    return leaf;
}

/* What a where may not use, found before libyang reads it, on its parse
 * (yang/lr_xpath.h: the tree libyang evaluates, so that each rule is
 * decided by the grammar, not by the text around a byte): each crashes
 * libyang 2.1 or costs each job's evaluation the whole list.  Measured with 2,000 jobs, -O2, where
 * an expression without them takes 0.15-0.3 s: */
enum job_where_ban {
    JOB_WHERE_OK,
    /* deref() of a leaf that is no leafref reads a NULL target (SEGV),
     * and a job has no leafref to follow. */
    JOB_WHERE_DEREF,
    /* re-match() hands its pattern to PCRE2, whose backtracking only its
     * match limit bounds (10 million steps): re-match(A, '.*.*.*.*.*.*[^a]')
     * with A 40 a's costs 0.16 s a job, 5 minutes over 2,000, one step
     * short of the limit; a pattern that is no regular expression leaks
     * 64 bytes.  Neither can be told from the text (the pattern may be a
     * node's value): the function is refused. */
    JOB_WHERE_REMATCH,
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
    /* 'and' or 'or' inside a predicate that another predicate opens
     * before (around it, inside it or earlier) or follows on its path,
     * in an expression with a path after parentheses or a call other
     * than current(), or with a predicate on node(), text(), comment()
     * or an attribute step (x[y[a or b]], state/lightpath[n<0]/p[t or o]/t,
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
     * x/y[b]), or in the first one on a path from the job, whose step
     * no earlier predicate can have marked, they do not crash (but see
     * JOB_WHERE_ANDOR_VALUE): a predicate after it and on another path
     * (x[a or b] and y[c]) is read after the cast. */
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
     * 'or', not(), boolean(), an operand of = or != beside a boolean,
     * such as true() or a comparison) the answer is right; a set empty for no
     * job (state[a or b], current()[a or b]) is right anywhere, which
     * the check tells for current() alone.  Measured on the unit test's
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
    /* A predicate on a path from current(), a call or parentheses (or on
     * current() itself), inside another predicate.  Such a path walks
     * the job again for each node the predicate around it is evaluated
     * on, so nested, the cost is the job's size to the power of the
     * levels: P[P[P[P[P[current()/name = 'zz']]]]], P the children of
     * the lightpaths from current() (a step '*' after
     * current()/state/lightpath), took 0.03 s with 3 levels, 1 s with 4,
     * 34 s with 5 over two jobs of two lightpaths (the parse allows 63).
     * A path from the node in context descends only, which bounds its
     * nesting by the job's height; a predicate-free path from current()
     * costs the job's size once (state[lightpath[n <
     * current()/priority]]).  Said only when nothing else is: many
     * shapes refused for a crash have one too. */
    JOB_WHERE_RESTART,
    /* A comparison inside a predicate whose two operands are both paths
     * from current(), a call or parentheses: XPath compares every node
     * of one set with every node of the other, each set the job's
     * (all its links), for each node the predicate is tried on: the
     * job's size cubed with no nesting.  state/lightpath[current()/
     * state/lightpath/link < current()/state/lightpath/link] took
     * 3.77 s on one job of the most lightpaths (review, 2026-12-07).
     * One operand from the node in context, or the comparison outside
     * any predicate, costs the size squared at most, and stays. */
    JOB_WHERE_CROSS,
    /* Brackets nested deeper than the parse follows (LR_XPATH_DEPTH):
     * its recursion is bounded so (68 levels around 1 = (*) = 1 leaked
     * as the chain does when a scan lost count of them). */
    JOB_WHERE_DEEP,
    /* No XPath 1.0 (lr_xpath.c): refused here, at the byte the parse
     * stopped, rather than left to libyang, since every check above is
     * decided on the parse. */
    JOB_WHERE_SYNTAX,
};

/* A where's first refusal, as the scan before the parse gave it: the
 * first in the text, '..' only when there is nothing else. */
struct job_where_found {
    enum job_where_ban ban;
    unsigned pos;               /* the byte that names it */
    const char *axis;           /* JOB_WHERE_AXIS_*: the axis's name */
    bool dots;
    bool restart;               /* JOB_WHERE_RESTART, when nothing else */
    unsigned restart_pos;
};

/* Keeps 'ban', named at byte 'pos', when it comes before the one kept. */
static void
job_where_note(struct job_where_found *f, enum job_where_ban ban,
               unsigned pos, const char *axis)
{
    if (f->ban != JOB_WHERE_OK && f->pos <= pos)
        return;
    f->ban = ban;
    f->pos = pos;
    f->axis = axis;
}

static bool
job_where_kind(const struct lr_xpath *x, int i, enum lr_xpath_kind kind)
{
    return i >= 0 && x->node[i].kind == kind;
}

/* The comparison class of node 'i': 1 equality (=, !=), 2 relational
 * (<, <=, >, >=), 0 none. */
static int
job_where_cmp(const struct lr_xpath *x, int i)
{
    if (!job_where_kind(x, i, LR_XPATH_BINARY))
        return 0;
    switch (x->node[i].op) {
    case LR_XPATH_EQ: case LR_XPATH_NE:
        return 1;
    case LR_XPATH_LT: case LR_XPATH_LE: case LR_XPATH_GT: case LR_XPATH_GE:
        return 2;
    default:
        return 0;
    }
}

/* Whether node 'i' is a comparison whose left operand is one of its own
 * class without parentheses (JOB_WHERE_CHAIN): a = b = c, a < b < c;
 * a < b = c < d holds no chain, (a = b) = c neither. */
static bool
job_where_chain(const struct lr_xpath *x, int i)
{
    int c = job_where_cmp(x, i);
    return c && job_where_cmp(x, x->node[i].child) == c;
}

/* The nearest predicate that holds node 'i', -1 for none. */
static int
job_where_pred_of(const struct lr_xpath *x, int i)
{
    for (i = x->node[i].parent; i >= 0; i = x->node[i].parent)
        if (x->node[i].kind == LR_XPATH_PRED)
            return i;
    return -1;
}

/* Whether node 'i' is a call of current(), the job, never empty. */
static bool
job_where_current(const struct lr_xpath *x, int i)
{
    return job_where_kind(x, i, LR_XPATH_CALL)
           && lr_xpath_named(x, i, "current");
}

/* Whether node 'i' is a path from parentheses or a call other than
 * current() ("(a = b)/x", "f(a)/x"), whose set may hold a node used
 * as a value (JOB_WHERE_NESTED). */
static bool
job_where_value_path(const struct lr_xpath *x, int i)
{
    int head = x->node[i].child;
    return job_where_kind(x, i, LR_XPATH_PATH)
           && (job_where_kind(x, head, LR_XPATH_PAREN)
               || (job_where_kind(x, head, LR_XPATH_CALL)
                   && !job_where_current(x, head)));
}

/* Whether node 'i' is a step with a predicate that the schema check
 * can leave with no node in context and, unlike a name test, does not
 * skip for that: node() (under a leaf), text(), comment() and attribute
 * steps ('@x', '@*', attribute::x; JOB_WHERE_NESTED). */
static bool
job_where_no_node(const struct lr_xpath *x, int i)
{
    const struct lr_xpath_node *n = &x->node[i];
    return n->kind == LR_XPATH_STEP && n->child >= 0
           && (n->op == LR_XPATH_ATTRIBUTE || n->test == LR_XPATH_NODE
               || n->test == LR_XPATH_TEXT || n->test == LR_XPATH_COMMENT);
}

/* Whether node 'i' is a boolean whatever it is evaluated on: a
 * comparison, 'and', 'or', or true(), false(), not(), boolean(), in
 * any parentheses. */
static bool
job_where_boolean(const struct lr_xpath *x, int i)
{
    while (job_where_kind(x, i, LR_XPATH_PAREN))
        i = x->node[i].child;
    if (job_where_kind(x, i, LR_XPATH_BINARY))
        return x->node[i].op == LR_XPATH_OR || x->node[i].op == LR_XPATH_AND
               || job_where_cmp(x, i);
    static const char *const fns[] = { "true", "false", "not", "boolean" };
    for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
        if (job_where_kind(x, i, LR_XPATH_CALL)
            && lr_xpath_named(x, i, fns[k]))
            return true;
    return false;
}

/* Whether node 'e', an operand of the = or != 'up', is compared with a
 * boolean, which XPath 1.0 compares with boolean(e): the false libyang
 * makes of an empty path is then what the empty set gives. */
static bool
job_where_beside_boolean(const struct lr_xpath *x, int up, int e)
{
    const struct lr_xpath_node *u = &x->node[up];
    int other = u->child == e ? x->node[e].next : u->child;
    return (u->op == LR_XPATH_EQ || u->op == LR_XPATH_NE)
           && job_where_boolean(x, other);
}

/* Whether the path holding predicate 'p' (with 'and' or 'or' inside)
 * is read as a condition alone (JOB_WHERE_ANDOR_VALUE): it ends with
 * that predicate and is the whole where, an operand of 'and' or 'or',
 * of = or != beside a boolean, or the argument of not() or boolean(),
 * in any parentheses; or the predicate is on current() alone, never
 * empty. */
static bool
job_where_pred_cond(const struct lr_xpath *x, int p)
{
    int o = x->node[p].parent, e = o;
    if (x->node[o].kind == LR_XPATH_FILTER
        && job_where_current(x, x->node[o].child))
        return true;
    if (x->node[p].next >= 0 || x->node[o].next >= 0)
        return false;           /* the path goes on after it */
    if (x->node[o].kind == LR_XPATH_STEP)
        e = x->node[o].parent;
    for (;;) {
        int up = x->node[e].parent;
        if (up < 0)
            return true;
        const struct lr_xpath_node *u = &x->node[up];
        if (u->kind == LR_XPATH_PAREN) {
            e = up;
            continue;
        }
        if (u->kind == LR_XPATH_BINARY)
            return u->op == LR_XPATH_AND || u->op == LR_XPATH_OR
                   || job_where_beside_boolean(x, up, e);
        return u->kind == LR_XPATH_CALL
               && (lr_xpath_named(x, up, "not")
                   || lr_xpath_named(x, up, "boolean"));
    }
}

/* Whether node 'i' lies inside a call of sum(). */
static bool
job_where_in_sum(const struct lr_xpath *x, int i)
{
    for (; i >= 0; i = x->node[i].parent)
        if (job_where_kind(x, i, LR_XPATH_CALL)
            && lr_xpath_named(x, i, "sum"))
            return true;
    return false;
}

/* The refusal an axis step gives (JOB_WHERE_OK: none). */
static enum job_where_ban
job_where_axis(int axis, const char **name)
{
    static const struct {
        int axis;
        const char *name;
        enum job_where_ban ban;
    } axes[] = {
        { LR_XPATH_FOLLOWING_SIBLING, "following-sibling",
          JOB_WHERE_AXIS_OUT },
        { LR_XPATH_FOLLOWING, "following", JOB_WHERE_AXIS_OUT },
        { LR_XPATH_PRECEDING_SIBLING, "preceding-sibling",
          JOB_WHERE_AXIS_OUT },
        { LR_XPATH_PRECEDING, "preceding", JOB_WHERE_AXIS_OUT },
        { LR_XPATH_DESCENDANT_OR_SELF, "descendant-or-self",
          JOB_WHERE_AXIS_DESC },
        { LR_XPATH_DESCENDANT, "descendant", JOB_WHERE_AXIS_DESC },
        { LR_XPATH_PARENT, "parent", JOB_WHERE_AXIS_UP },
        { LR_XPATH_ANCESTOR_OR_SELF, "ancestor-or-self", JOB_WHERE_AXIS_UP },
        { LR_XPATH_ANCESTOR, "ancestor", JOB_WHERE_AXIS_UP },
    };
    for (size_t i = 0; i < sizeof axes / sizeof *axes; i++)
        if (axes[i].axis == axis) {
            *name = axes[i].name;
            return axes[i].ban;
        }
    return JOB_WHERE_OK;
}

/* What step 'i' may not use: an axis, or '..' (inside sum() at once,
 * elsewhere after the schema check). */
static void
job_where_step(const struct lr_xpath *x, int i, struct job_where_found *f)
{
    const struct lr_xpath_node *n = &x->node[i];
    const char *name = NULL;
    enum job_where_ban ban;
    if (n->test == LR_XPATH_DOTS) {
        if (job_where_in_sum(x, i))
            job_where_note(f, JOB_WHERE_SUM_DOTS, n->pos, NULL);
        f->dots = true;
    } else if (n->test != LR_XPATH_DOT
               && (ban = job_where_axis(n->op, &name)) != JOB_WHERE_OK)
        job_where_note(f, ban, n->axis_pos, name);
}

/* The path (or filter) that predicate 'p' is part of. */
static int
job_where_pred_path(const struct lr_xpath *x, int p)
{
    int o = x->node[p].parent, up = x->node[o].parent;
    return job_where_kind(x, up, LR_XPATH_PATH) ? up : o;
}

/* Whether another predicate than 'p' opens before 'p' closes (around
 * it, inside it or before it: read first by the schema check) or is on
 * its path (JOB_WHERE_NESTED). */
static bool
job_where_pred_shared(const struct lr_xpath *x, int p)
{
    int path = job_where_pred_path(x, p);
    for (int q = 0; q < x->n; q++)
        if (q != p && x->node[q].kind == LR_XPATH_PRED
            && (x->node[q].pos < x->node[p].end
                || lr_xpath_within(x, q, path)))
            return true;
    return false;
}

/* Whether predicate 'p' is inside another predicate and on what walks
 * the job again: a filter (current()[...]) or a path with a head, a
 * call or parentheses (JOB_WHERE_RESTART). */
static bool
job_where_restart(const struct lr_xpath *x, int p)
{
    int o = x->node[p].parent, path = x->node[o].parent;
    if (job_where_pred_of(x, p) < 0)
        return false;
    if (x->node[o].kind == LR_XPATH_FILTER)
        return true;
    return job_where_kind(x, path, LR_XPATH_PATH)
           && !job_where_kind(x, x->node[path].child, LR_XPATH_STEP);
}

/* Whether operand 'i' is a set a path from current(), a call or
 * parentheses walks from the job again (JOB_WHERE_CROSS): a path with
 * such a head and steps after it, a filter, or one in parentheses. */
static bool
job_where_rewalk(const struct lr_xpath *x, int i)
{
    while (job_where_kind(x, i, LR_XPATH_PAREN))
        i = x->node[i].child;
    if (job_where_kind(x, i, LR_XPATH_FILTER))
        return true;
    if (!job_where_kind(x, i, LR_XPATH_PATH))
        return false;
    int head = x->node[i].child;
    return head >= 0 && !job_where_kind(x, head, LR_XPATH_STEP)
           && x->node[head].next >= 0;
}

/* Whether comparison 'i' is inside a predicate with both operands sets
 * walked from the job again (JOB_WHERE_CROSS). */
static bool
job_where_cross(const struct lr_xpath *x, int i)
{
    int left = x->node[i].child;
    return job_where_cmp(x, i) && job_where_pred_of(x, i) >= 0
           && left >= 0 && job_where_rewalk(x, left)
           && job_where_rewalk(x, x->node[left].next);
}

/* What 'and' or 'or' node 'i' may not be (JOB_WHERE_NESTED,
 * JOB_WHERE_ANDOR_VALUE): 'no_context' when the expression has a set
 * the schema check can leave with no node in context. */
static void
job_where_andor(const struct lr_xpath *x, int i, bool no_context,
                struct job_where_found *f)
{
    int p = job_where_pred_of(x, i);
    if (p < 0)
        return;
    if (no_context || job_where_pred_shared(x, p))
        job_where_note(f, JOB_WHERE_NESTED, x->node[i].pos, NULL);
    else if (!job_where_pred_cond(x, p))
        job_where_note(f, JOB_WHERE_ANDOR_VALUE, x->node[i].pos, NULL);
}

/* What node 'i' may not be, noted in 'f'. */
static void
job_where_node(const struct lr_xpath *x, int i, bool no_context,
               struct job_where_found *f)
{
    const struct lr_xpath_node *n = &x->node[i];
    switch (n->kind) {
    case LR_XPATH_BINARY:
        if (n->op == LR_XPATH_UNION)
            job_where_note(f, JOB_WHERE_UNION, n->pos, NULL);
        else if (n->op == LR_XPATH_MOD)
            job_where_note(f, JOB_WHERE_MOD, n->pos, NULL);
        else if (n->op == LR_XPATH_AND || n->op == LR_XPATH_OR)
            job_where_andor(x, i, no_context, f);
        else if (job_where_chain(x, i))
            job_where_note(f, JOB_WHERE_CHAIN, n->pos, NULL);
        else if (job_where_cross(x, i))
            job_where_note(f, JOB_WHERE_CROSS, n->pos, NULL);
        break;
    case LR_XPATH_CALL:
        if (lr_xpath_named(x, i, "deref"))
            job_where_note(f, JOB_WHERE_DEREF, n->pos, NULL);
        else if (lr_xpath_named(x, i, "re-match"))
            job_where_note(f, JOB_WHERE_REMATCH, n->pos, NULL);
        break;
    case LR_XPATH_PATH:
        if (n->absolute)
            job_where_note(f, JOB_WHERE_ROOT, n->pos, NULL);
        break;
    case LR_XPATH_STEP:
        job_where_step(x, i, f);
        break;
    case LR_XPATH_PRED:
        if (job_where_restart(x, i) && !f->restart) {
            f->restart = true;
            f->restart_pos = n->pos;
        }
        break;
    case LR_XPATH_FILTER:
        /* A predicate after what is no node set; current() is one. */
        if (!job_where_current(x, n->child))
            job_where_note(f, JOB_WHERE_FILTER,
                           x->node[x->node[n->child].next].pos, NULL);
        break;
    default:
        break;
    }
}

/* Whether an 'and' or 'or' in any predicate of 'x' can meet a set the
 * schema check left with no node in context (JOB_WHERE_NESTED): there
 * is a path from a value, or a predicate on a step without a no-match
 * test. */
static bool
job_where_no_context(const struct lr_xpath *x)
{
    for (int i = 0; i < x->n; i++)
        if (job_where_value_path(x, i) || job_where_no_node(x, i))
            return true;
    return false;
}

/* The first thing the parsed where 'x' may not use, in 'f'. */
static void
job_where_judge(const struct lr_xpath *x, struct job_where_found *f)
{
    bool no_context = job_where_no_context(x);
    for (int i = 0; i < x->n; i++)
        job_where_node(x, i, no_context, f);
    if (f->ban == JOB_WHERE_OK && f->restart)
        job_where_note(f, JOB_WHERE_RESTART, f->restart_pos, NULL);
    if (f->ban == JOB_WHERE_OK && f->dots)
        f->ban = JOB_WHERE_DOTS;
}

/* Parses 'where' and finds what it may not use (a syntax error or a
 * nesting too deep: JOB_WHERE_SYNTAX, JOB_WHERE_DEEP, with 'perr'
 * saying where); 0 or ENOMEM. */
static int
job_where_banned(const char *where, struct job_where_found *f,
                 struct lr_xpath_err *perr)
{
    struct lr_xpath *x = NULL;
    int rc = lr_xpath_parse(where, &x, perr);
    *f = (struct job_where_found) { .ban = JOB_WHERE_OK };
    if (rc == EINVAL)
        f->ban = perr->deep ? JOB_WHERE_DEEP : JOB_WHERE_SYNTAX;
    else if (!rc)
        job_where_judge(x, f);
    lr_xpath_free(x);
    return rc == EINVAL ? 0 : rc;
}

/* Whether the parsed where 'x' has a name test for 'name' (with or
 * without a module prefix; a function of that name is none). */
static bool
job_where_names(const struct lr_xpath *x, const char *name)
{
    for (int i = 0; i < x->n; i++)
        if (x->node[i].kind == LR_XPATH_STEP && lr_xpath_named(x, i, name))
            return true;
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
    struct lr_xpath *x = NULL;
    struct lr_xpath_err perr;
    const struct lysc_node *found = NULL;
    /* Parsed before, by job_where_banned(): it fails on no memory alone,
     * and then no name is known to be state. */
    if (!where || !atoms || lr_xpath_parse(where, &x, &perr))
        return NULL;
    for (uint32_t a = 0; atoms && a < atoms->count && !found; a++) {
        const struct lysc_node *sn = atoms->snodes[a];
        if (!(sn->flags & LYS_CONFIG_R) || !job_where_names(x, sn->name))
            continue;
        bool namesake = false;
        for (uint32_t b = 0; b < atoms->count && !namesake; b++)
            namesake = (atoms->snodes[b]->flags & LYS_CONFIG_W)
                       && !strcmp(atoms->snodes[b]->name, sn->name);
        if (!namesake)
            found = sn;
    }
    lr_xpath_free(x);
    return found;
}

/* The time in seconds by 'b''s clock, CLOCK_MONOTONIC when it names
 * none (a wall clock stepped back or forth would stretch or cut the
 * budget). */
static double
job_where_now(const struct lr_yang_where_budget *b)
{
    struct timespec ts;
    if (b->now)
        return b->now(b->arg);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* 's' seconds in buf as where-budget is written: to the microsecond,
 * without trailing zeros ("2", "1.5", "0.000043"). */
static const char *
job_secs(char *buf, size_t size, double s)
{
    snprintf(buf, size, "%.6f", s);
    char *end = buf + strlen(buf);
    while (end > buf && end[-1] == '0')
        *--end = '\0';
    if (end > buf && end[-1] == '.')
        *--end = '\0';
    return buf;
}

/* 0, or ETIMEDOUT with err[] when the where's evaluation on the first
 * 'done' of the 'n' jobs, begun at 't0' by 'b''s clock, has taken
 * longer than 'b' allows.  The advice is what bounds the cost: libyang
 * skips the right operand of an 'and' whose left one is false, so a
 * cheap condition first spares the costly rest on the jobs it rules
 * out; a limit would not, as the jobs past the page are evaluated too
 * (remaining counts them).  With 'config_only' (running) its examples
 * name no state: a where that does is refused there (ENODATA). */
static int
job_where_over(const struct lr_yang_where_budget *b, double t0, size_t done,
               int n, const char *where, bool config_only, char *err,
               size_t errlen)
{
    double took = job_where_now(b) - t0;
    char t[32], lim[32];
    if (took <= b->seconds)
        return 0;
    /* Printed to the microsecond, a time past the budget by less than
     * half of one would read as the budget itself ("in 1 s, past the
     * 1 s"): it is said as the next microsecond up. */
    job_secs(t, sizeof t, took);
    if (strtod(t, NULL) <= b->seconds)
        job_secs(t, sizeof t, b->seconds + 1e-6);
    lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                 "'%s' was evaluated on %zu of the %d jobs in %s s, "
                 "past the %s s this server gives a where, and nothing is "
                 "returned: send a narrower where, with a cheap condition "
                 "first joined by and (name = 'j1' and ...%s: the rest is "
                 "skipped on the jobs it rules out), or one that compares "
                 "fewer node sets with each other", JOB_QUOTE(where),
                 done, n, t, job_secs(lim, sizeof lim, b->seconds),
                 config_only ? "" : ", state/phase = 'active' and ...");
    return ETIMEDOUT;
}

static int
job_tree_entry_cmp(const void *a, const void *b)
{
    const struct job_tree_entry *x = a, *y = b;
    return (x->job > y->job) - (x->job < y->job);
}

/* The tree 'root' (taken: NULL on return; a cache's when not 'owned')
 * with the 'm' entries of 'sel' for lr_yang_job_select_tree()'s
 * caller, or NULL when memory is short (root freed when owned). */
static struct lr_yang_job_tree *
job_tree_keep(struct lyd_node **root, bool owned,
              const struct lys_module *mod, bool config_only,
              const struct job_sel *sel, size_t m)
{
    struct lr_yang_job_tree *t = calloc(1, sizeof *t);
    if (t && !(t->kept = malloc((m + 1) * sizeof *t->kept))) {
        free(t);
        t = NULL;
    }
    if (!t) {
        if (owned)
            lyd_free_all(*root);
        *root = NULL;
        return NULL;
    }
    t->root = *root;
    t->borrowed = !owned;
    *root = NULL;
    t->mod = mod;
    t->config_only = config_only;
    t->n = m;
    for (size_t j = 0; j < m; j++) {
        t->kept[j].job = (uintptr_t) sel[j].job;
        t->kept[j].entry = sel[j].entry;
    }
    qsort(t->kept, m, sizeof *t->kept, job_tree_entry_cmp);
    return t;
}

void
lr_yang_job_tree_free(struct lr_yang_job_tree *t)
{
    if (!t)
        return;
    if (!t->borrowed)
        lyd_free_all(t->root);
    free(t->kept);
    free(t);
}

bool
lr_yang_job_tree_has_state(const struct lr_yang_job_tree *t)
{
    return t && !t->config_only;
}

/* The entry of 'job' in 't', or NULL when the selection did not keep
 * it. */
static struct lyd_node *
job_tree_find(const struct lr_yang_job_tree *t, const struct lr_job *job)
{
    struct job_tree_entry key = { .job = (uintptr_t) job };
    const struct job_tree_entry *e = bsearch(&key, t->kept, t->n,
                                             sizeof *t->kept,
                                             job_tree_entry_cmp);
    return e ? e->entry : NULL;
}

/* The job's state container in its entry 'e', or NULL. */
static struct lyd_node *
job_tree_state(struct lyd_node *e)
{
    struct lyd_node *c;
    LY_LIST_FOR(lyd_child(e), c)
        if (c->schema && !strcmp(c->schema->name, "state"))
            return c;
    return NULL;
}

int
lr_yang_job_tree_page_to_json(struct ly_ctx *ctx, struct lr_yang_job_tree *t,
                              const struct lr_job *const *jobs, int n,
                              const struct lr_yang_page_meta *meta,
                              bool list, bool config_only, char **out,
                              char *err, size_t errlen)
{
    struct lyd_node **page = NULL;
    int ret = 0;

    *out = NULL;
    if (n < 0 || (t->config_only && !config_only)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "a page of %d jobs "
                     "with their state from a tree without it", n);
        return EINVAL;
    }
    if (!(page = malloc(((size_t) n + 1) * sizeof *page))) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
        return ENOMEM;
    }
    for (int k = 0; k < n; k++)
        if (!(page[k] = job_tree_find(t, jobs[k]))) {
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "job '%s' of "
                         "the page is none the selection kept",
                         jobs[k]->intent.name);
            ret = EINVAL;
            goto cleanup;
        }
    /* A cache's tree stays as it is: the page's entries are copied
     * (their flags too: a default added stays unprinted) into a jobs
     * container of the page's own. */
    if (t->borrowed) {
        struct lyd_node *root = NULL;
        LY_ERR rc = lyd_new_inner(NULL, t->mod, "jobs", 0, &root);
        for (int k = 0; !rc && k < n; k++) {
            struct lyd_node *d = NULL, *st;
            rc = lyd_dup_single(page[k], NULL, LYD_DUP_RECURSIVE
                                                   | LYD_DUP_WITH_FLAGS, &d);
            if (!rc && config_only && !t->config_only
                && (st = job_tree_state(d)))
                lyd_free_tree(st);
            if (!rc && (rc = lyd_insert_child(root, d)))
                lyd_free_tree(d);
        }
        ret = rc ? lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen)
                 : job_tree_print(ctx, t->mod, root, meta,
                                  list ? JOB_FORM_LIST : JOB_FORM_JOBS, out,
                                  err, errlen);
        lyd_free_all(root);
        goto cleanup;
    }
    /* The page's entries out, the others freed, the page back in its
     * own order: a list ordered-by system is printed in the order its
     * entries were inserted, as job_print() builds them. */
    for (int k = 0; k < n; k++)
        lyd_unlink_tree(page[k]);
    if (lyd_child(t->root))
        lyd_free_siblings(lyd_child(t->root));
    t->n = 0;
    for (int k = 0; k < n; k++) {
        struct lyd_node *st = config_only && !t->config_only
                              ? job_tree_state(page[k]) : NULL;
        if (st)
            lyd_free_tree(st);
        LY_ERR rc = lyd_insert_child(t->root, page[k]);
        if (rc) {
            for (int r = k; r < n; r++)
                lyd_free_tree(page[r]);
            ret = lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen);
            goto cleanup;
        }
    }
    ret = job_tree_print(ctx, t->mod, t->root, meta,
                         list ? JOB_FORM_LIST : JOB_FORM_JOBS, out, err,
                         errlen);

cleanup:
    free(page);
    return ret;
}

/* A '+' in a where is most often a space that curl's --data-urlencode
 * or a form encoded (docs/controller.md, "Paging the jobs"), which a
 * query reads as a plus: the cure, said after a refusal of such a
 * where. */
#define JOB_WHERE_PLUS \
    " (a + in a query is a plus, not a space: send a space as %20)"

static int job_select_tree(struct ly_ctx *, struct lr_yang_job_cache *,
                           unsigned long long, const struct lr_job *const *,
                           int, const struct lr_yang_job_query *,
                           const struct lr_yang_job_net *,
                           const struct lr_job ***, int *,
                           struct lr_yang_job_tree **, char *, size_t);

int
lr_yang_job_select(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                   int n, const struct lr_yang_job_query *query,
                   const struct lr_yang_job_net *net,
                   const struct lr_job ***out, int *nout, char *err,
                   size_t errlen)
{
    return lr_yang_job_select_tree(ctx, jobs, n, query, net, out, nout, NULL,
                                   err, errlen);
}

int
lr_yang_job_select_tree(struct ly_ctx *ctx, const struct lr_job *const *jobs,
                        int n, const struct lr_yang_job_query *query,
                        const struct lr_yang_job_net *net,
                        const struct lr_job ***out, int *nout,
                        struct lr_yang_job_tree **tree, char *err,
                        size_t errlen)
{
    return lr_yang_job_cache_select_tree(ctx, NULL, 0, jobs, n, query, net,
                                         out, nout, tree, err, errlen);
}

/* job_select_tree(), whose refusal of a where sent with its spaces as
 * '+' (a '+' and no space: the form encoding, the commonest way to a
 * broken where) says JOB_WHERE_PLUS whatever the refusal: two
 * conditions joined by "+and+" read as a chain of comparisons, "+or+"
 * as a node named "or", and neither is a syntax error. */
int
lr_yang_job_cache_select_tree(struct ly_ctx *ctx, struct lr_yang_job_cache *c,
                              unsigned long long gen,
                              const struct lr_job *const *jobs, int n,
                              const struct lr_yang_job_query *query,
                              const struct lr_yang_job_net *net,
                              const struct lr_job ***out, int *nout,
                              struct lr_yang_job_tree **tree, char *err,
                              size_t errlen)
{
    static const struct lr_yang_job_query every;
    if (!query)
        query = &every;
    int ret = job_select_tree(ctx, c, gen, jobs, n, query, net, out, nout,
                              tree, err, errlen);
    const char *where = query->where;
    /* err[] is read only when it was written: on success a caller's
     * buffer may hold anything, no NUL among it. */
    if (ret != EINVAL || !err || !where || !strchr(where, '+')
        || strchr(where, ' '))
        return ret;
    size_t len = strlen(err);
    if (strstr(err, "the query's where '") && !strstr(err, JOB_WHERE_PLUS)
        && len + strlen(JOB_WHERE_PLUS) < errlen)
        memcpy(err + len, JOB_WHERE_PLUS, strlen(JOB_WHERE_PLUS) + 1);
    return ret;
}

/* 'query' is not NULL (lr_yang_job_cache_select_tree()); 'net' may be
 * (job_env()). */
static int
job_select_tree(struct ly_ctx *ctx, struct lr_yang_job_cache *cache,
                unsigned long long gen, const struct lr_job *const *jobs,
                int n, const struct lr_yang_job_query *query,
                const struct lr_yang_job_net *net,
                const struct lr_job ***out, int *nout,
                struct lr_yang_job_tree **tree, char *err, size_t errlen)
{
    const char *where = query->where, *sort_by = query->sort_by;
    const bool config_only = query->config_only;
    const struct lr_yang_where_budget *budget = query->budget;
    struct lr_yang_job_env env = job_env(net, config_only, err, errlen);
    const struct job_examples *ex = &job_examples[config_only];
    const struct lysc_node *list, *leaf = NULL;
    struct lyd_node *root = NULL;
    bool owned = true;
    struct job_sel *sel = NULL;
    struct ly_set *atoms = NULL;
    size_t m = 0;
    int ret = 0;
    LY_ERR rc = LY_SUCCESS;

    *out = NULL;
    *nout = 0;
    if (tree)
        *tree = NULL;
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
    struct job_where_found found = { .ban = JOB_WHERE_OK };
    struct lr_xpath_err perr;
    if (where && (ret = job_where_banned(where, &found, &perr)))
        return ret;
    const char *axis = found.axis;
    switch (found.ban) {
    case JOB_WHERE_OK:
    case JOB_WHERE_DOTS:
        break;
    case JOB_WHERE_SYNTAX:
        /* A '+' in a broken expression is most often a space that curl's
         * --data-urlencode or a form encoded (docs/controller.md,
         * "Paging the jobs"): the cure is said, not only the byte. */
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' is not an XPath 1.0 expression over a job (at "
                     "byte %u, %s): send one whose names are a job's nodes, "
                     "unprefixed, such as %s%s", JOB_QUOTE(where),
                     perr.pos + 1, perr.msg, ex->own,
                     strchr(where, '+') ? JOB_WHERE_PLUS : "");
        return EINVAL;
    case JOB_WHERE_DEREF:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' calls deref(): a job has no leafref to follow; "
                     "send one without it", JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_REMATCH:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' calls re-match(), whose regular expressions the "
                     "server's XPath library may match for seconds on each "
                     "job: send one with starts-with(), contains(), "
                     "substring-before() or substring-after() instead",
                     JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_RESTART:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' puts a predicate on current() or on a path from "
                     "current(), a call or parentheses inside another "
                     "predicate, which walks the job again for each node "
                     "of each level around it (the cost grows as the job's "
                     "size to the power of the levels): send one whose "
                     "inner paths start at the node in context, or move "
                     "the inner predicate out (state[lightpath[n < "
                     "current()/priority]] serves)", JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_CROSS:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' compares two paths from current(), a call or "
                     "parentheses inside a predicate, which compares every "
                     "node of the job's one set with every node of the "
                     "other for each node the predicate is tried on (the "
                     "cost grows as the job's size cubed): send one whose "
                     "compared paths, one of them at least, start at the "
                     "node in context (state/lightpath[link = "
                     "current()/state/lightpath/link] serves), or compare "
                     "outside the predicate", JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_MOD:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses mod, which the server's XPath library "
                     "cannot compute safely (a divisor between -1 and 1 "
                     "crashes it): send one without it (for x >= 0 and "
                     "y >= 1, x - y * floor(x div y) is x mod y)",
                     JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_AXIS_OUT:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses the axis %s::, which reaches the other "
                     "jobs: send one over the job's own nodes, such as %s",
                     JOB_QUOTE(where), axis, ex->own);
        return EINVAL;
    case JOB_WHERE_AXIS_DESC:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses the axis %s::, whose cost for each job "
                     "grows with the whole list: send one with // instead, "
                     "such as %s", JOB_QUOTE(where), axis, ex->desc);
        return EINVAL;
    case JOB_WHERE_AXIS_UP:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses the axis %s::, which crashes the server's "
                     "XPath library after //: send one with a predicate "
                     "instead, such as %s", JOB_QUOTE(where), axis,
                     ex->pred);
        return EINVAL;
    case JOB_WHERE_CHAIN:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' chains comparisons (a = b = c, a < b < c), "
                     "which the server's XPath library leaks memory on and "
                     "which are no range: join them with and, such as "
                     "priority > 1 and priority < 5, or parenthesise, such "
                     "as (a = b) = c", JOB_QUOTE(where));
        return EINVAL;
    case JOB_WHERE_NESTED:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' joins conditions with and or or inside a "
                     "predicate, beside another predicate or after a path "
                     "from parentheses or a call, or on node(), text() or "
                     "an attribute, which can crash the server's XPath "
                     "library: join them outside the predicates, x/y[a] or "
                     "x/y[b] for x[y[a or b]], such as %s",
                     JOB_QUOTE(where), ex->nested);
        return EINVAL;
    case JOB_WHERE_ANDOR_VALUE:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses as a value (compared, computed, counted, "
                     "passed to a function other than not() or boolean(), "
                     "or followed by a step) a path whose predicate joins "
                     "conditions with and or or, which the server's XPath "
                     "library makes false, not an empty node set, for a "
                     "job where the path reaches no node: send x[a][b] for "
                     "x[a and b], x[a] != 'v' or x[b] != 'v' for x[a or b] "
                     "!= 'v', count(x[a]) + count(x[b][not(a)]) for "
                     "count(x[a or b]), such as %s (as a condition alone, "
                     "x[a or b] is taken)", JOB_QUOTE(where), ex->split);
        return EINVAL;
    case JOB_WHERE_SUM_DOTS:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses .. inside sum(), where the root (../.. "
                     "from the job) crashes the server's XPath library: "
                     "send one with a predicate instead, such as %s",
                     JOB_QUOTE(where), ex->pred);
        return EINVAL;
    case JOB_WHERE_FILTER:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' puts a predicate after what is no step (a "
                     "number, a literal, a call or parentheses), which can "
                     "crash the server's XPath library: put it after a name, "
                     "*, ., .., current(), node() or text(), such as %s",
                     JOB_QUOTE(where), ex->pred);
        return EINVAL;
    case JOB_WHERE_DEEP:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' nests brackets more than %d deep: send one "
                     "with fewer", JOB_QUOTE(where), LR_XPATH_DEPTH);
        return EINVAL;
    case JOB_WHERE_ROOT:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' starts a path at the root ('/'), outside the "
                     "job it is evaluated on: send one over the job's own "
                     "nodes, such as %s", JOB_QUOTE(where), ex->own);
        return EINVAL;
    case JOB_WHERE_UNION:
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses | (a union), whose cost for each job grows "
                     "with the whole list: send the conditions joined with "
                     "or, such as %s", JOB_QUOTE(where), ex->either);
        return EINVAL;
    }
    /* Judged on the schema first, so that a bad query is refused even
     * when there is no job to evaluate it on. */
    ly_err_clean(ctx, NULL);
    if (where && lys_find_xpath_atoms(ctx, list, where,
                                      LYS_FIND_NO_MATCH_ERROR, &atoms)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' is not an XPath 1.0 expression over a job "
                     "(%s): send one whose names are a job's nodes, "
                     "unprefixed, such as %s", JOB_QUOTE(where),
                     LR_UTF8_CLIP(job_ly_msg(ctx), JOB_LY_MAX), ex->own);
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
                         "where '%s' reaches '%s', outside the job it is "
                         "evaluated on: send one over the job's own nodes, "
                         "such as %s", JOB_QUOTE(where),
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
                     "'%s' names '%s', which is state (config false): the "
                     "running datastore holds configuration only",
                     JOB_QUOTE(where), st->name);
        ly_set_free(atoms, NULL);
        return ENODATA;
    }
    ly_set_free(atoms, NULL);
    if (found.ban == JOB_WHERE_DOTS) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's where "
                     "'%s' uses .., whose cost for each job grows with the "
                     "whole list: send one with a predicate instead, such "
                     "as %s", JOB_QUOTE(where), ex->pred);
        return EINVAL;
    }
    if (sort_by
        && !(leaf = job_sort_leaf(ctx, list, sort_by, ex, err, errlen)))
        return EINVAL;
    if (config_only && leaf && (leaf->flags & LYS_CONFIG_R)) {
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                     "sort-by '%s' is state (config false): the running "
                     "datastore holds configuration only", JOB_QUOTE(sort_by));
        return ENODATA;
    }

    if (!(sel = malloc(((size_t) n + 1) * sizeof *sel))
        || !(*out = malloc(((size_t) n + 1) * sizeof **out))) {
        ret = ENOMEM;
        goto cleanup;
    }
    /* The whole list as GET prints it (defaults too), so that where sees
     * what the client reads; built and completed once, not per job.
     * Running's has no state: built without it (a third of the time of
     * building it and cutting it after, with 10,000 jobs), and completed
     * so that none is added (a default of state would be).  Two jobs
     * of one name are the server's fault, not the query's: EIO.  The
     * cache's tree when it holds these jobs (job_cache_root()). */
    if ((ret = job_cache_root(cache, gen, &env, jobs, n, true, &root, &owned,
                              &rc))) {
        ret = ret == ENOMEM ? ENOMEM : EIO;
        goto cleanup;
    }
    if (rc)
        goto cleanup;
    /* The budget counts the evaluation alone: building the list is
     * what a GET of every job costs anyway. */
    const struct lr_yang_where_budget *bound =
        where && budget && budget->seconds > 0 ? budget : NULL;
    const double t0 = bound ? job_where_now(bound) : 0;
    /* The defaults leave the entries in the order they were added. */
    size_t i = 0;
    for (struct lyd_node *e = lyd_child(root); e && i < (size_t) n;
         e = e->next, i++) {
        ly_bool keep = 1;
        struct lyd_node *k = NULL;
        if (where && (rc = lyd_eval_xpath(e, where, &keep))) {
            /* The schema check passed: a failure here is evaluation's. */
            lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "the query's "
                         "where '%s' could not be evaluated (%s): send "
                         "one whose functions apply to a job's nodes",
                         JOB_QUOTE(where),
                         LR_UTF8_CLIP(job_ly_msg(ctx), JOB_LY_MAX));
            rc = LY_SUCCESS;
            ret = EINVAL;
            goto cleanup;
        }
        if (bound && (ret = job_where_over(bound, t0, i + 1, n, where,
                                           config_only, err, errlen)))
            goto cleanup;
        if (!keep)
            continue;
        sel[m].job = jobs[i];
        sel[m].idx = i;
        sel[m].kind = leaf ? job_key_kind(leaf) : JOB_KEY_TEXT;
        sel[m].key = leaf && !lyd_find_path(e, sort_by, 0, &k)
                     ? lyd_get_value(k) : NULL;
        sel[m].entry = e;
        m++;
    }
    if (leaf)
        qsort(sel, m, sizeof *sel, job_sel_cmp);
    for (size_t j = 0; j < m; j++)
        (*out)[j] = sel[j].job;
    *nout = (int) m;
    if (tree && !(*tree = job_tree_keep(&root, owned, env.mod, config_only,
                                        sel, m)))
        ret = ENOMEM;

cleanup:
    if (!ret && rc)
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_JOB_DOC, err, errlen) == ENOMEM
              ? ENOMEM : EIO;
    else if (ret == ENOMEM)
        lr_yang_errf(err, errlen, LR_YANG_JOB_DOC, NULL, "out of memory");
    if (owned)
        lyd_free_all(root);
    free(sel);
    if (ret) {
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    return ret;
}
