/* lr_yang_restconf: see lr_yang_restconf.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "yang/lr_yang_int.h"
#include "yang/lr_yang_restconf.h"

#define LR_YANG_YL "ietf-yang-library"

const char *
lr_yang_library_revision(const struct ly_ctx *ctx)
{
    const struct lys_module *m = ly_ctx_get_module_implemented(ctx,
                                                               LR_YANG_YL);
    return m ? m->revision : NULL;
}

/* The modules a YANG library of the API lists: 'set' (n of them, room
 * for every module of the context) grows until nothing it holds is
 * augmented or deviated by a module outside it, or imports one. */
static bool
lr_yang_in(const struct lys_module *const *set, size_t n,
           const struct lys_module *m)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == m)
            return true;
    return false;
}

static void
lr_yang_closure(const struct lys_module **set, size_t *n)
{
    for (size_t i = 0; i < *n; i++) {
        const struct lys_module *m = set[i];
        LY_ARRAY_COUNT_TYPE k;
        /* An augment adds nodes to the payloads, a deviation changes
         * them: their modules are part of what a client must know. */
        LY_ARRAY_FOR(m->augmented_by, k)
            if (!lr_yang_in(set, *n, m->augmented_by[k]))
                set[(*n)++] = m->augmented_by[k];
        LY_ARRAY_FOR(m->deviated_by, k)
            if (!lr_yang_in(set, *n, m->deviated_by[k]))
                set[(*n)++] = m->deviated_by[k];
        if (!m->parsed)
            continue;
        LY_ARRAY_FOR(m->parsed->imports, k) {
            const struct lys_module *imp = m->parsed->imports[k].module;
            if (imp && !lr_yang_in(set, *n, imp))
                set[(*n)++] = imp;
        }
    }
}

/* Frees every entry of the list 'name' under 'parent' whose module
 * (by name and revision) is not in 'set'. */
static void
lr_yang_prune(struct lyd_node *parent, const char *name,
              const struct ly_ctx *ctx, const struct lys_module *const *set,
              size_t n)
{
    struct lyd_node *e, *next;
    LY_LIST_FOR_SAFE(lyd_child(parent), next, e) {
        struct lyd_node *nm = NULL, *rev = NULL;
        if (strcmp(LYD_NAME(e), name) || lyd_find_path(e, "name", 0, &nm))
            continue;
        lyd_find_path(e, "revision", 0, &rev);
        const char *r = rev ? lyd_get_value(rev) : NULL;
        const struct lys_module *m = ly_ctx_get_module(ctx, lyd_get_value(nm),
                                                       r && *r ? r : NULL);
        if (!m || !lr_yang_in(set, n, m))
            lyd_free_tree(e);
    }
}

/* FNV-1a, 64 bits: a content-id needs to change with the text, not to
 * resist anyone. */
static uint64_t
lr_yang_fnv(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++) {
        h ^= (unsigned char) *s;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* What lr_yang_library_print() prints of the tree it builds. */
enum lr_yang_library_part {
    LR_YANG_LIBRARY,            /* yang-library alone */
    LR_YANG_LIBRARY_STATE,      /* modules-state alone */
    LR_YANG_LIBRARY_BOTH,       /* both, siblings in one object */
};

/* lr_yang_library_to_json(), the deprecated modules-state the same tree
 * holds (lr_yang_modules_state_to_json()), or both from the one tree
 * (lr_yang_library_both_to_json()), as 'part' says. */
static int
lr_yang_library_print(struct ly_ctx *ctx, const char *const *api, int n,
                      enum lr_yang_library_part part, char **out, char *err,
                      size_t errlen)
{
    const char *const doc = part == LR_YANG_LIBRARY_STATE
                            ? "modules-state" : "yang-library";
    struct lyd_node *tree = NULL, *yl = NULL, *st = NULL, *ms = NULL;
    struct lyd_node *cid = NULL;
    const struct lys_module **set = NULL;
    char *text = NULL, id[17];
    size_t n_set = 0, n_mods = 0;
    uint32_t idx = 0;
    int ret = 0;

    *out = NULL;
    ly_err_clean(ctx, NULL);
    while (ly_ctx_get_module_iter(ctx, &idx))
        n_mods++;
    if (!(set = calloc(n_mods + 1, sizeof *set))) {
        lr_yang_errf(err, errlen, doc, NULL, "out of memory");
        return ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        const struct lys_module *m = ly_ctx_get_module_implemented(ctx,
                                                                   api[i]);
        if (!m) {
            lr_yang_errf(err, errlen, doc, NULL, "the API's module '%s' "
                         "is not implemented in the context", api[i]);
            ret = EINVAL;
            goto cleanup;
        }
        if (!lr_yang_in(set, n_set, m))
            set[n_set++] = m;
    }
    lr_yang_closure(set, &n_set);

    /* The placeholder content-id is replaced by the digest of the rest. */
    LY_ERR rc = ly_ctx_get_yanglib_data(ctx, &tree, "0");
    if (!rc)
        rc = lyd_find_path(tree, "/" LR_YANG_YL ":yang-library", 0, &yl);
    if (!rc)
        rc = lyd_find_path(tree, "/" LR_YANG_YL ":modules-state", 0, &st);
    if (rc) {
        ret = lr_yang_ly_err(ctx, rc, doc, err, errlen);
        goto cleanup;
    }
    LY_LIST_FOR(lyd_child(yl), ms)
        if (!strcmp(LYD_NAME(ms), "module-set")) {
            lr_yang_prune(ms, "module", ctx, set, n_set);
            lr_yang_prune(ms, "import-only-module", ctx, set, n_set);
        }
    /* The deprecated modules-state (RFC 7895), which ietf-yang-library
     * 2019-01-04 makes mandatory beside yang-library, lists the same
     * modules under the same id: one schema serves every datastore, as
     * RFC 7895's library has it. */
    lr_yang_prune(st, "module", ctx, set, n_set);
    /* libyang leaves the datastores to the caller: the two the API
     * serves under /restconf/ds (RFC 8527), running (the jobs, topology
     * and inventory a client writes: the config true nodes) and
     * operational (those and the state); both see every module
     * listed. */
    rc = lyd_new_path(yl, NULL, "datastore[name='ietf-datastores:running']"
                      "/schema", "complete", 0, NULL);
    if (!rc)
        rc = lyd_new_path(yl, NULL, "datastore[name='ietf-datastores:"
                          "operational']/schema", "complete", 0, NULL);
    if (!rc)
        rc = lyd_find_path(yl, "content-id", 0, &cid);
    if (!rc)
        rc = lyd_print_mem(&text, yl, LYD_JSON, LYD_PRINT_SHRINK);
    if (!rc) {
        snprintf(id, sizeof id, "%016" PRIx64, lr_yang_fnv(text));
        rc = lyd_change_term(cid, id);
    }
    if (!rc && !lyd_find_path(st, "module-set-id", 0, &cid))
        rc = lyd_change_term(cid, id);
    free(text);
    text = NULL;
    if (!rc)
        rc = lyd_validate_all(&tree, ctx, LYD_VALIDATE_PRESENT, NULL);
    /* Both: the tree's top-level siblings, which are these two
     * (libyang builds nothing else there). */
    if (!rc && part == LR_YANG_LIBRARY_BOTH)
        rc = lyd_print_mem(&text, tree, LYD_JSON, LYD_PRINT_WITHSIBLINGS);
    else if (!rc)
        rc = lyd_print_mem(&text, part == LR_YANG_LIBRARY_STATE ? st : yl,
                           LYD_JSON, 0);
    if (rc) {
        ret = lr_yang_ly_err(ctx, rc, doc, err, errlen);
        goto cleanup;
    }
    *out = text;
    text = NULL;

cleanup:
    lyd_free_all(tree);
    free(text);
    free(set);
    return ret;
}

int
lr_yang_library_to_json(struct ly_ctx *ctx, const char *const *api, int n,
                        char **out, char *err, size_t errlen)
{
    return lr_yang_library_print(ctx, api, n, LR_YANG_LIBRARY, out, err,
                                 errlen);
}

int
lr_yang_modules_state_to_json(struct ly_ctx *ctx, const char *const *api,
                              int n, char **out, char *err, size_t errlen)
{
    return lr_yang_library_print(ctx, api, n, LR_YANG_LIBRARY_STATE, out,
                                 err, errlen);
}

int
lr_yang_library_both_to_json(struct ly_ctx *ctx, const char *const *api,
                             int n, char **out, char *err, size_t errlen)
{
    return lr_yang_library_print(ctx, api, n, LR_YANG_LIBRARY_BOTH, out,
                                 err, errlen);
}

/* The top-level data node 'name' ("module:node") of the modules the
 * context implements, or NULL. */
static const struct lysc_node *
lr_yang_top_node(const struct ly_ctx *ctx, const char *name)
{
    const char *colon = strchr(name, ':');
    char mod[64];
    const struct lys_module *m = NULL;
    if (colon && (size_t) (colon - name) < sizeof mod) {
        snprintf(mod, sizeof mod, "%.*s", (int) (colon - name), name);
        m = ly_ctx_get_module_implemented(ctx, mod);
    }
    return m ? lys_find_child(NULL, m, colon + 1, 0, 0, 0) : NULL;
}

int
lr_yang_top_config(const struct ly_ctx *ctx, const char *name, bool *config,
                   char *err, size_t errlen)
{
    const struct lysc_node *sn = lr_yang_top_node(ctx, name);
    *config = false;
    if (!sn) {
        lr_yang_errf(err, errlen, "data", NULL, "no top-level node '%s' "
                     "in the modules lightraild implements", name);
        return EINVAL;
    }
    *config = (sn->flags & LYS_CONFIG_W) != 0;
    return 0;
}

/* lr_yang_datastore_to_json() and lr_yang_running_to_json(): 'vopts'
 * the validation's options, LYD_VALIDATE_PRESENT with or without
 * LYD_VALIDATE_NO_STATE. */
static int
lr_yang_datastore_print(struct ly_ctx *ctx, const char *const *docs, int n,
                        uint32_t vopts, char **out, char *err, size_t errlen)
{
    static const char *const doc = "data";
    struct lyd_node *tree = NULL, *part = NULL, *lib = NULL, *st = NULL;
    char *text = NULL;
    LY_ERR rc = LY_SUCCESS;
    int ret = 0;

    *out = NULL;
    ly_err_clean(ctx, NULL);
    /* Tree by tree, not one text: each document stays the text its
     * printer validated (a merged text would need JSON rewritten outside
     * libyang), and a member two documents hold is found by name.  Its
     * trees are relinked side by side (lyd_insert_sibling()): members of
     * distinct modules have nothing to merge, and lyd_merge_siblings()
     * would fuse two instances of one member without a word. */
    for (int i = 0; i < n; i++) {
        rc = lyd_parse_data_mem(ctx, docs[i], LYD_JSON,
                                LYD_PARSE_ONLY | LYD_PARSE_STRICT, 0, &part);
        if (rc)
            goto cleanup;
        for (const struct lyd_node *p = part; p; p = p->next)
            if (lr_yang_sibling(tree, p->schema->module->name,
                                LYD_NAME(p))) {
                lr_yang_errf(err, errlen, doc, NULL, "two documents hold "
                             "%s:%s", p->schema->module->name, LYD_NAME(p));
                ret = EINVAL;
                goto cleanup;
            }
        if (part && (rc = lyd_insert_sibling(tree, part, &tree)))
            goto cleanup;
        part = NULL;
    }
    if (!tree) {
        if (!(text = strdup("{}\n"))) {
            lr_yang_errf(err, errlen, doc, NULL, "out of memory");
            ret = ENOMEM;
        }
        goto cleanup;
    }
    /* ietf-yang-library 2019-01-04 has a mandatory leaf in each of its
     * two top-level containers (content-id, module-set-id), so either
     * one makes the other mandatory: a set of documents with one and
     * without the other (a cut that dropped it: fields naming only one)
     * gets libyang's own other for the validation, freed before the
     * print.  It holds no reference to anything else. */
    bool has_yl = lr_yang_sibling(tree, LR_YANG_YL, "yang-library");
    bool has_ms = lr_yang_sibling(tree, LR_YANG_YL, "modules-state");
    if (has_yl != has_ms) {
        const char *other = has_yl ? "modules-state" : "yang-library";
        rc = ly_ctx_get_yanglib_data(ctx, &lib, "0");
        if (!rc && !(st = lr_yang_sibling(lib, LR_YANG_YL, other)))
            rc = LY_ENOTFOUND;
        if (rc)
            goto cleanup;
        /* Alone: inserted first of its siblings, it would bring them.
         * 'lib' keeps the rest: its first, yang-library, may be it. */
        if (lib == st)
            lib = st->next;
        lyd_unlink_tree(st);
        if ((rc = lyd_insert_sibling(tree, st, &tree))) {
            lyd_free_tree(st);
            goto cleanup;
        }
    }
    rc = lyd_validate_all(&tree, ctx, vopts, NULL);
    if (!rc && st) {
        if (tree == st)
            tree = st->next;
        lyd_free_tree(st);
    }
    /* An empty container stays, as its own resource prints it: the jobs
     * say {"lightrail-job:jobs":{}} when there are none.  The other
     * documents have none to keep: their printers drop them, and their
     * trees here come from that text. */
    if (!rc)
        rc = lyd_print_mem(&text, tree, LYD_JSON, LYD_PRINT_WITHSIBLINGS
                                                  | LYD_PRINT_KEEPEMPTYCONT);

cleanup:
    if (!ret && rc)
        ret = lr_yang_tree_err(ctx, tree, rc, doc, err, errlen);
    lyd_free_all(part);
    lyd_free_all(tree);
    lyd_free_all(lib);
    if (ret) {
        free(text);
        text = NULL;
    }
    *out = text;
    return ret;
}

int
lr_yang_datastore_to_json(struct ly_ctx *ctx, const char *const *docs, int n,
                          char **out, char *err, size_t errlen)
{
    return lr_yang_datastore_print(ctx, docs, n, LYD_VALIDATE_PRESENT, out,
                                   err, errlen);
}

/* LYD_VALIDATE_NO_STATE, as the jobs' own printer completes their tree
 * without the state (lr_yang_job.c, job_tree_defaults()): the
 * validation makes no implicit state node, so no job gets the empty
 * "state" container that KEEPEMPTYCONT would print and a cut to the
 * configuration would drop, and a state node a document holds is an
 * error, not a member of running.  Made, not printed and removed: the
 * print keeps the members' own empty containers ({"lightrail-job:jobs":
 * {}} when there is no job), which only their origin tells from those
 * the validation would add. */
int
lr_yang_running_to_json(struct ly_ctx *ctx, const char *const *docs, int n,
                        char **out, char *err, size_t errlen)
{
    return lr_yang_datastore_print(ctx, docs, n,
                                   LYD_VALIDATE_PRESENT
                                       | LYD_VALIDATE_NO_STATE,
                                   out, err, errlen);
}

/* The yang-data template 'name' of ietf-restconf (RFC 8040 8:
 * "yang-api", "yang-errors"), borrowed from the context, or NULL with
 * err[] ("DOC: ...") saying the context lacks it. */
static const struct lysc_ext_instance *
lr_yang_rc_template(const struct ly_ctx *ctx, const char *name,
                    const char *doc, char *err, size_t errlen)
{
    const struct lys_module *m = ly_ctx_get_module_implemented(ctx,
                                                               LR_YANG_RC);
    LY_ARRAY_COUNT_TYPE i;
    if (m && m->compiled)
        LY_ARRAY_FOR(m->compiled->exts, i) {
            const struct lysc_ext_instance *e = &m->compiled->exts[i];
            if (!strcmp(e->def->name, "yang-data") && e->argument
                && !strcmp(e->argument, name))
                return e;
        }
    lr_yang_errf(err, errlen, doc, NULL, "the context implements no "
                 LR_YANG_RC ", whose yang-data '%s' models this body",
                 name);
    return NULL;
}

/* The API resource as yang-api's tree: restconf {data {}, operations {},
 * yang-library-version}, with the context's ietf-yang-library revision,
 * validated.  '*top' is the caller's to free with lyd_free_all(); '*ops'
 * and '*version' are borrowed from it.  0, or EINVAL / ENOMEM with err[]
 * ("DOC: ..."): no template, no library, libyang's refusal. */
static int
lr_yang_api_tree(struct ly_ctx *ctx, const char *doc, struct lyd_node **top,
                 struct lyd_node **ops, struct lyd_node **version,
                 char *err, size_t errlen)
{
    const char *rev = lr_yang_library_revision(ctx);
    const struct lysc_ext_instance *api;
    LY_ERR rc;

    *top = NULL;
    ly_err_clean(ctx, NULL);
    if (!(api = lr_yang_rc_template(ctx, "yang-api", doc, err, errlen)))
        return EINVAL;
    if (!rev) {
        lr_yang_errf(err, errlen, doc, NULL, "the context implements no "
                     LR_YANG_YL);
        return EINVAL;
    }
    rc = lyd_new_ext_inner(api, "restconf", top);
    if (!rc)
        rc = lyd_new_inner(*top, NULL, "data", 0, NULL);
    if (!rc)
        rc = lyd_new_inner(*top, NULL, "operations", 0, ops);
    if (!rc)
        rc = lyd_new_term(*top, NULL, "yang-library-version", rev, 0,
                          version);
    /* The version's pattern is checked as the leaf is made; the
     * validation checks what the template says of the whole (its
     * mandatory leaf). */
    if (!rc)
        rc = lyd_validate_all(top, ctx, LYD_VALIDATE_PRESENT, NULL);
    if (!rc)
        return 0;
    lyd_free_all(*top);
    *top = NULL;
    return lr_yang_ly_err(ctx, rc, doc, err, errlen);
}

/* Prints 'node' alone, compact (as the API's bodies were printed when
 * json-c built them: the same bytes), into '*out' (NULL on failure). */
static int
lr_yang_api_print(struct ly_ctx *ctx, const struct lyd_node *node,
                  const char *doc, char **out, char *err, size_t errlen)
{
    /* data and operations are empty: RFC 8040 3.3 sends them so. */
    LY_ERR rc = lyd_print_mem(out, node, LYD_JSON, LYD_PRINT_SHRINK
                                                   | LYD_PRINT_KEEPEMPTYCONT);
    if (!rc)
        return 0;
    free(*out);
    *out = NULL;
    return lr_yang_ly_err(ctx, rc, doc, err, errlen);
}

int
lr_yang_api_to_json(struct ly_ctx *ctx, char **out, char *err, size_t errlen)
{
    struct lyd_node *top, *ops, *version;
    *out = NULL;
    int ret = lr_yang_api_tree(ctx, "restconf", &top, &ops, &version, err,
                               errlen);
    if (!ret)
        ret = lr_yang_api_print(ctx, top, "restconf", out, err, errlen);
    lyd_free_all(top);
    return ret;
}

int
lr_yang_api_version_to_json(struct ly_ctx *ctx, char **out, char *err,
                            size_t errlen)
{
    static const char *const doc = "yang-library-version";
    struct lyd_node *top, *ops, *version;
    *out = NULL;
    /* The leaf of the validated whole, printed alone: libyang names it
     * with its module, as RFC 8040 3.3.3's body does. */
    int ret = lr_yang_api_tree(ctx, doc, &top, &ops, &version, err, errlen);
    if (!ret)
        ret = lr_yang_api_print(ctx, version, doc, out, err, errlen);
    lyd_free_all(top);
    return ret;
}

/* The rpc the operation 'op' ("module:rpc") names, or NULL when it
 * names none, into '*rpc'.  The path is as long as the name, which YANG
 * does not bound.  0 or ENOMEM. */
static int
lr_yang_api_rpc(const struct ly_ctx *ctx, const char *op,
                const struct lysc_node **rpc)
{
    size_t len = strlen(op) + 2;
    char *path = malloc(len);
    *rpc = NULL;
    if (!path)
        return ENOMEM;
    snprintf(path, len, "/%s", op);
    const struct lysc_node *s = lys_find_path(ctx, NULL, path, 0);
    free(path);
    if (s && s->nodetype == LYS_RPC)
        *rpc = s;
    return 0;
}

/* Whether each of the 'n' operations 'ops' is an rpc of the context,
 * named once: 0, or EINVAL with err[] naming the first that is not,
 * ENOMEM. */
static int
lr_yang_api_ops_check(const struct ly_ctx *ctx, const char *const *ops,
                      int n, const char *doc, char *err, size_t errlen)
{
    const struct lysc_node *s;
    for (int i = 0; i < n; i++) {
        if (lr_yang_api_rpc(ctx, ops[i], &s)) {
            lr_yang_errf(err, errlen, doc, NULL, "out of memory");
            return ENOMEM;
        }
        if (!s) {
            lr_yang_errf(err, errlen, doc, NULL, "'%s' is no rpc of the "
                         "context's modules", ops[i]);
            return EINVAL;
        }
        for (int k = 0; k < i; k++)
            if (!strcmp(ops[k], ops[i])) {
                lr_yang_errf(err, errlen, doc, NULL, "'%s' is named twice",
                             ops[i]);
                return EINVAL;
            }
    }
    return 0;
}

int
lr_yang_api_operations_to_json(struct ly_ctx *ctx, const char *const *ops,
                               int n, char **out, char *err, size_t errlen)
{
    static const char *const doc = "operations";
    struct lyd_node *top, *list, *version, *leaf;
    LY_ERR rc = LY_SUCCESS;
    int ret;

    *out = NULL;
    if ((ret = lr_yang_api_ops_check(ctx, ops, n, doc, err, errlen)))
        return ret;
    if ((ret = lr_yang_api_tree(ctx, doc, &top, &list, &version, err,
                                errlen)))
        return ret;
    /* RFC 8040 3.3.2's members are conceptual empty leaves, one per
     * rpc, that no module defines ("will not actually be found in the
     * module"), so yang-api's operations has no child in the schema:
     * the container is validated empty above, each operation checked
     * as an rpc of the context, and the leaves added after as opaque
     * nodes of the rpc's module, which libyang prints as an empty leaf
     * is, [null] (RFC 7951 6.9), once told the value is empty. */
    for (int i = 0; !rc && i < n; i++) {
        /* The rpc's own names, whole (the check found it; a failure to
         * find it again is memory's). */
        const struct lysc_node *s = NULL;
        if (lr_yang_api_rpc(ctx, ops[i], &s) || !s) {
            lr_yang_errf(err, errlen, doc, NULL, "out of memory");
            ret = ENOMEM;
            goto cleanup;
        }
        rc = lyd_new_opaq(list, NULL, s->name, "", NULL, s->module->name,
                          &leaf);
        if (!rc)
            ((struct lyd_node_opaq *) leaf)->hints |= LYD_VALHINT_EMPTY;
    }
    ret = rc ? lr_yang_ly_err(ctx, rc, doc, err, errlen)
             : lr_yang_api_print(ctx, list, doc, out, err, errlen);

cleanup:
    lyd_free_all(top);
    return ret;
}

/* The first child of each error entry under 'errors' named 'name',
 * freed. */
static void
lr_yang_errors_drop(struct lyd_node *errors, const char *name)
{
    struct lyd_node *e, *leaf;
    LY_LIST_FOR(lyd_child(errors), e)
        if ((leaf = lr_yang_child(e, LR_YANG_RC, name)))
            lyd_free_tree(leaf);
}

/* RFC 8040 section 7's table: each error-tag (RFC 6241 Appendix A's)
 * with the status codes that go with it.  too-big has two rows, 413 for
 * a request too big and 400 for a response.  The RFC's table is
 * normative for the tags (7.1: "the enumerated error-tag") and says
 * which status each is sent with; a pair outside it tells a client one
 * thing in the status line and another in the body. */
static const struct lr_yang_error_row {
    const char *tag;
    int status[3];                      /* 0 ends a shorter row */
} lr_yang_error_rows[] = {
    { "in-use", { 409 } },
    { "invalid-value", { 400, 404, 406 } },
    { "too-big", { 413, 400 } },
    { "missing-attribute", { 400 } },
    { "bad-attribute", { 400 } },
    { "unknown-attribute", { 400 } },
    { "bad-element", { 400 } },
    { "unknown-element", { 400 } },
    { "unknown-namespace", { 400 } },
    { "access-denied", { 401, 403 } },
    { "lock-denied", { 409 } },
    { "resource-denied", { 409 } },
    { "rollback-failed", { 500 } },
    { "data-exists", { 409 } },
    { "data-missing", { 409 } },
    { "operation-not-supported", { 405, 501 } },
    { "operation-failed", { 412, 500 } },
    { "partial-operation", { 500 } },
    { "malformed-message", { 400 } },
};

/* The statuses lightraild must send that RFC 8040 section 7 has no row
 * for, each with the one tag it goes with.  Nothing else is taken
 * outside the table.
 * - 415 invalid-value: RFC 8040 5.2 (and RFC 9110 15.5.16) answer a body
 *   in a media type the server does not take with 415, but section 7
 *   gives 415 no tag.  The Content-Type's value is what is wrong, as the
 *   Accept's is for 406, which the table does give to invalid-value.
 * - 416 invalid-value: the list-pagination drafts' offset past the end
 *   of the list, sent with error-app-tag offset-out-of-range; the value
 *   of the offset is what is wrong.
 * - 503 resource-denied: a server shutting down (nb_server.c's drain).
 *   RFC 9110 15.6.4 makes 503 the status a client retries, later or
 *   elsewhere, which 409 does not say; the table's tag for a request
 *   refused for want of a resource ("insufficient resources", RFC 6241
 *   Appendix A) is resource-denied, whose own row is 409. */
static const struct {
    const char *tag;
    int status;
} lr_yang_error_extra[] = {
    { "invalid-value", 415 },
    { "invalid-value", 416 },
    { "resource-denied", 503 },
};

/* The row of 'tag', or NULL for a tag that is none of the table's. */
static const struct lr_yang_error_row *
lr_yang_error_row(const char *tag)
{
    for (size_t i = 0; i < sizeof lr_yang_error_rows
                            / sizeof *lr_yang_error_rows; i++)
        if (!strcmp(tag, lr_yang_error_rows[i].tag))
            return &lr_yang_error_rows[i];
    return NULL;
}

bool
lr_yang_error_pair_ok(const char *tag, int status)
{
    for (size_t i = 0; i < sizeof lr_yang_error_extra
                            / sizeof *lr_yang_error_extra; i++)
        if (status == lr_yang_error_extra[i].status
            && !strcmp(tag, lr_yang_error_extra[i].tag))
            return true;
    const struct lr_yang_error_row *row = lr_yang_error_row(tag);
    for (int k = 0; row && k < 3 && row->status[k]; k++)
        if (row->status[k] == status)
            return true;
    return false;
}

/* The statuses 'row' lists, "409" or "400, 404 or 406", into buf. */
static void
lr_yang_error_statuses(const struct lr_yang_error_row *row, char *buf,
                       size_t len)
{
    int n = 0;
    while (n < 3 && row->status[n])
        n++;
    if (n == 1)
        snprintf(buf, len, "%d", row->status[0]);
    else if (n == 2)
        snprintf(buf, len, "%d or %d", row->status[0], row->status[1]);
    else
        snprintf(buf, len, "%d, %d or %d", row->status[0], row->status[1],
                 row->status[2]);
}

/* Whether each error under 'errors' has one of the error-tags RFC 8040
 * section 7 lists (the template types it as a string, but 7.1 makes it
 * "the enumerated error-tag"), and 'status' is one its row of the table
 * gives (or lightraild's exception for that tag, above).  0, or EINVAL
 * with err[] naming the first that is not. */
static int
lr_yang_errors_tags(const struct lyd_node *errors, int status,
                    const char *doc, char *err, size_t errlen)
{
    const struct lyd_node *e, *tag;
    LY_LIST_FOR(lyd_child(errors), e) {
        /* Validation has found it there. */
        if (!(tag = lr_yang_child(e, LR_YANG_RC, "error-tag")))
            continue;
        const char *v = lyd_get_value(tag);
        const struct lr_yang_error_row *row = lr_yang_error_row(v);
        char statuses[32];
        if (!row) {
            lr_yang_errf(err, errlen, doc, NULL, "error-tag '%s' is none "
                         "of RFC 8040 section 7's (invalid-value, "
                         "operation-failed...)", v);
            return EINVAL;
        }
        if (!lr_yang_error_pair_ok(v, status)) {
            lr_yang_error_statuses(row, statuses, sizeof statuses);
            lr_yang_errf(err, errlen, doc, NULL, "error-tag '%s' goes with "
                         "%s (RFC 8040 section 7), not with %d", v,
                         statuses, status);
            return EINVAL;
        }
    }
    return 0;
}

int
lr_yang_errors_check(struct ly_ctx *ctx, int status, const char *body,
                     char *err, size_t errlen)
{
    static const char *const doc = "errors";
    const struct lysc_ext_instance *tpl;
    struct ly_in *in = NULL;
    struct lyd_node *tree = NULL;
    size_t len = strlen(body);
    long line;
    LY_ERR rc;

    ly_err_clean(ctx, NULL);
    if (!(tpl = lr_yang_rc_template(ctx, "yang-errors", doc, err, errlen)))
        return EINVAL;
    /* libyang stops after the first object and would take the rest. */
    if (lr_yang_json_end(body, len, &line) != len) {
        lr_yang_errf(err, errlen, doc, NULL, "text after the body's object "
                     "(line %ld)", line);
        return EINVAL;
    }
    /* Parsed only: error-path is an instance-identifier, whose
     * require-instance (true, YANG's default) asks for its target in
     * the document, and the document is the template's tree alone (RFC
     * 8040 8: "The XPath document root is the extension statement
     * itself"), never the datastore the path names: validation would
     * refuse every error-path.  The parse checks what can be: its
     * syntax, that it names nodes of the context's schema (a module
     * implemented, its nodes, keys of their types), as every other
     * value's type; validation then checks the rest without it (the
     * mandatory error-type and error-tag). */
    rc = ly_in_new_memory(body, &in);
    if (!rc)
        rc = lyd_parse_ext_data(tpl, NULL, in, LYD_JSON, LYD_PARSE_STRICT
                                                         | LYD_PARSE_ONLY, 0,
                                &tree);
    if (!rc && !tree) {
        lr_yang_errf(err, errlen, doc, NULL, "no ietf-restconf:errors in "
                     "the body");
        ly_in_free(in, 0);
        return EINVAL;
    }
    if (!rc) {
        lr_yang_errors_drop(tree, "error-path");
        rc = lyd_validate_all(&tree, ctx, LYD_VALIDATE_PRESENT, NULL);
    }
    int ret = rc ? lr_yang_ly_err(ctx, rc, doc, err, errlen)
                 : lr_yang_errors_tags(tree, status, doc, err, errlen);
    lyd_free_all(tree);
    ly_in_free(in, 0);
    return ret;
}

bool
lr_yang_error_path_ok(struct ly_ctx *ctx, const char *path)
{
    const struct lysc_ext_instance *tpl =
        lr_yang_rc_template(ctx, "yang-errors", "errors", NULL, 0);
    struct lyd_node *top = NULL, *e = NULL;
    /* The leaf made in the template: its value is stored, which
     * resolves the path on the schema, as lr_yang_errors_check()'s
     * parse does. */
    LY_ERR rc = tpl ? lyd_new_ext_inner(tpl, "errors", &top) : LY_ENOTFOUND;
    if (!rc)
        rc = lyd_new_list(top, NULL, "error", 0, &e);
    if (!rc)
        rc = lyd_new_term(e, NULL, "error-path", path, 0, NULL);
    lyd_free_all(top);
    ly_err_clean(ctx, NULL);
    return !rc;
}

int
lr_yang_restconf_state_to_json(struct ly_ctx *ctx, const char *const *caps,
                               int n, bool capabilities, char **out,
                               char *err, size_t errlen)
{
    static const char *const doc = "restconf-state";
    const struct lys_module *mod = ly_ctx_get_module_implemented(
        ctx, LR_YANG_RCMON);
    struct lyd_node *top = NULL, *cap = NULL;
    char *text = NULL;
    int ret = 0;
    LY_ERR rc;

    *out = NULL;
    ly_err_clean(ctx, NULL);
    if (!mod) {
        lr_yang_errf(err, errlen, doc, NULL, "the context implements no "
                     LR_YANG_RCMON);
        return EINVAL;
    }
    /* streams is there, empty: lightraild serves no event stream.  It
     * is printed so, as the datastore prints it (its printer keeps empty
     * containers, and RFC 6243's explicit mode, libyang's default,
     * prints a config false container validation adds), so that the
     * resource's text is the datastore's member. */
    rc = lyd_new_inner(NULL, mod, "restconf-state", 0, &top);
    if (!rc)
        rc = lyd_new_inner(top, mod, "capabilities", 0, &cap);
    if (!rc)
        rc = lyd_new_inner(top, mod, "streams", 0, NULL);
    for (int i = 0; !rc && i < n; i++)
        rc = lyd_new_term(cap, mod, "capability", caps[i], 0, NULL);
    /* Validated whole (inet:uri's pattern, a capability listed twice),
     * then printed whole or its capabilities alone, which libyang
     * prints as a resource of their own, named with their module. */
    if (!rc)
        rc = lyd_validate_all(&top, ctx, LYD_VALIDATE_PRESENT, NULL);
    if (!rc)
        rc = lyd_print_mem(&text, capabilities ? cap : top, LYD_JSON,
                           LYD_PRINT_KEEPEMPTYCONT);
    if (rc)
        ret = lr_yang_ly_err(ctx, rc, doc, err, errlen);
    lyd_free_all(top);
    if (ret) {
        free(text);
        text = NULL;
    }
    *out = text;
    return ret;
}

/* Whether 'node' is of the kind 'content' keeps (its own schema flag;
 * a config false node's descendants are config false too). */
static bool
lr_yang_kind(const struct lyd_node *node, enum lr_yang_content content)
{
    uint16_t f = node->schema ? node->schema->flags : 0;
    return content == LR_YANG_CONTENT_CONFIG ? (f & LYS_CONFIG_W) != 0
                                             : (f & LYS_CONFIG_R) != 0;
}

/* RFC 8040 4.8.1 under 'node': frees each child (its keys aside) that
 * 'content' drops, as lr_yang_filter_json() says; true when 'node'
 * itself stays, as a descendant of the target. */
static bool
lr_yang_content_cut(struct lyd_node *node, enum lr_yang_content content)
{
    if (!node->schema || !(node->schema->nodetype & LYD_NODE_INNER))
        return lr_yang_kind(node, content);
    struct lyd_node *c = lyd_child_no_keys(node), *next;
    bool had = c != NULL, kept = false;
    for (; c; c = next) {
        next = c->next;
        if (lr_yang_content_cut(c, content))
            kept = true;
        else
            lyd_free_tree(c);
    }
    if (kept)
        return true;
    return lr_yang_kind(node, content)
           && (!had || node->schema->nodetype == LYS_LIST
               || (node->schema->flags & LYS_PRESENCE));
}

/* RFC 8040 4.8.3's fields, resolved on the schema: each node a path
 * names, selected (its subtree kept whole), or on the way to one (kept
 * for what is selected under it).  A schema node stands for one path
 * from the target, so the set of them is the whole selection. */
enum lr_yang_field_kind {
    LR_YANG_FIELD_OUT,          /* named by no path: the node goes */
    LR_YANG_FIELD_WAY,          /* an ancestor of a selected node */
    LR_YANG_FIELD_SELECTED,
};
struct lr_yang_fields {
    struct {
        const struct lysc_node *schema;
        enum lr_yang_field_kind kind;
    } node[LR_YANG_FIELDS_MAX / 2 + 1]; /* an identifier and a separator
                                         * each at least */
    size_t n;
};

/* A fields expression nests no deeper than this.  Each '(' goes a
 * schema level down, so no module of the API comes near it; it bounds
 * the parser's stack whatever a client sends. */
#define LR_YANG_FIELDS_NEST 64
/* A client's expression is quoted up to this many bytes, so that the
 * advice stays in the message. */
#define LR_YANG_FIELDS_QUOTE 80

static enum lr_yang_field_kind
lr_yang_field_of(const struct lr_yang_fields *f,
                 const struct lysc_node *schema)
{
    for (size_t i = 0; schema && i < f->n; i++)
        if (f->node[i].schema == schema)
            return f->node[i].kind;
    return LR_YANG_FIELD_OUT;
}

/* 'schema' into 'f' as 'kind' (selected wins over on the way). */
static void
lr_yang_field_add(struct lr_yang_fields *f, const struct lysc_node *schema,
                  enum lr_yang_field_kind kind)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->node[i].schema == schema) {
            if (kind > f->node[i].kind)
                f->node[i].kind = kind;
            return;
        }
    f->node[f->n].schema = schema;
    f->node[f->n++].kind = kind;
}

/* The length of the YANG identifier (RFC 7950 6.2) at 's', 0 if none. */
static size_t
lr_yang_ident_len(const char *s)
{
    size_t n = 0;
    if (!isalpha((unsigned char) *s) && *s != '_')
        return 0;
    while (isalnum((unsigned char) s[n]) || s[n] == '_' || s[n] == '-'
           || s[n] == '.')
        n++;
    return n;
}

/* The data node that the api-identifier (RFC 8040 3.5.3.1) at '*p'
 * names under 'parent' (NULL: the datastore, whose children need their
 * module; below, a node of another module than its parent's needs its
 * own, as RFC 7951 names it), '*p' moved past it; NULL with err[]
 * saying why. */
static const struct lysc_node *
lr_yang_field_step(struct ly_ctx *ctx, const struct lysc_node *parent,
                   const char **p, const char *fields, char *err,
                   size_t errlen)
{
    static const char *const doc = "filter";
    const char *id = *p, *name = id;
    size_t len = lr_yang_ident_len(id);
    const struct lys_module *mod = parent ? parent->module : NULL;
    if (len && id[len] == ':') {
        char module[64];
        snprintf(module, sizeof module, "%.*s",
                 (int) (len < sizeof module ? len : sizeof module - 1), id);
        mod = len < sizeof module
              ? ly_ctx_get_module_implemented(ctx, module) : NULL;
        if (!mod) {
            lr_yang_errf(err, errlen, doc, NULL, "the query's fields names "
                         "the module '%s', which the server does not "
                         "implement: send the module of a node under the "
                         "resource (the YANG library lists them)", module);
            return NULL;
        }
        name = id + len + 1;
        len = lr_yang_ident_len(name);
        /* a:b:c would be judged as the node 'b:c' otherwise, "no data
         * node" hiding that the module was named twice. */
        if (len && name[len] == ':') {
            lr_yang_errf(err, errlen, doc, NULL, "the query's fields '%.*s' "
                         "gives a module prefix twice ('%.*s:%.*s:') at "
                         "byte %zu: send a node as module:name, its module "
                         "once (RFC 7951)", LR_YANG_FIELDS_QUOTE, fields,
                         (int) (name - 1 - id), id, (int) len, name,
                         (size_t) (name - fields) + 1);
            return NULL;
        }
    }
    if (!len) {
        lr_yang_errf(err, errlen, doc, NULL, "the query's fields '%.*s' "
                     "has %s at byte %zu, where a node's name was expected: "
                     "send the paths of nodes under the resource, separated "
                     "by ';', a node's children in parentheses, such as "
                     "a;b/c;d(e;f) (RFC 8040 4.8.3)", LR_YANG_FIELDS_QUOTE,
                     fields, *name ? "a bad character" : "nothing",
                     (size_t) (name - fields) + 1);
        return NULL;
    }
    *p = name + len;
    if (!mod) {
        lr_yang_errf(err, errlen, doc, NULL, "the query's fields names "
                     "'%.*s' under the datastore without its module: send "
                     "a top-level node as module:name, such as "
                     "ietf-network:networks", (int) len, name);
        return NULL;
    }
    const struct lysc_node *s =
        lys_find_child(parent, mod, name, len, LYS_CONTAINER | LYS_LIST
                       | LYS_LEAF | LYS_LEAFLIST | LYS_ANYDATA, 0);
    if (!s)
        lr_yang_errf(err, errlen, doc, NULL, "the query's fields names "
                     "'%.*s', which is no data node of %s under %s%s%s: "
                     "send the paths of nodes under the resource, a node of "
                     "another module than its parent's as module:name "
                     "(RFC 7951)",
                     (int) (*p - id < LR_YANG_FIELDS_QUOTE
                            ? *p - id : LR_YANG_FIELDS_QUOTE), id, mod->name,
                     parent ? "'" : "", parent ? parent->name
                                               : "the datastore",
                     parent ? "'" : "");
    return s;
}

/* RFC 8040 4.8.3's fields-expr 'fields' under the target 'target'
 * (NULL: the datastore) into 'f'.  The RFC's grammar,
 *     fields-expr = path "(" fields-expr ")" / path ";" fields-expr / path
 *     path = api-identifier [ "/" path ]
 * is read as a list of paths separated by ';', each maybe followed by a
 * list in parentheses under its last node: "a(b);c" too, which the ABNF
 * leaves out and other servers take.  No recursion: the nodes whose
 * parentheses are open are on a stack of LR_YANG_FIELDS_NEST.  0, or
 * EINVAL with err[] naming what is wrong and where. */
static int
lr_yang_fields_parse(struct ly_ctx *ctx, const struct lysc_node *target,
                     const char *fields, struct lr_yang_fields *f, char *err,
                     size_t errlen)
{
    const struct lysc_node *open[LR_YANG_FIELDS_NEST + 1] = { target };
    const char *p = fields, *why;
    size_t depth = 0;

    f->n = 0;
    if (strlen(fields) > LR_YANG_FIELDS_MAX) {
        lr_yang_errf(err, errlen, "filter", NULL, "the query's fields is "
                     "%zu bytes long: send one of at most %d",
                     strlen(fields), LR_YANG_FIELDS_MAX);
        return EINVAL;
    }
    for (;;) {
        const struct lysc_node *s = open[depth];
        do {
            if (!(s = lr_yang_field_step(ctx, s, &p, fields, err, errlen)))
                return EINVAL;
            lr_yang_field_add(f, s, LR_YANG_FIELD_WAY);
        } while (*p == '/' && p++);
        if (*p == '(') {
            if (depth == LR_YANG_FIELDS_NEST) {
                why = "parentheses nested too deep";
                break;
            }
            open[++depth] = s;
            p++;
            continue;
        }
        lr_yang_field_add(f, s, LR_YANG_FIELD_SELECTED);
        for (; *p == ')' && depth; p++)
            depth--;
        if (*p == ';') {
            p++;
            continue;
        }
        if (!*p && !depth)
            return 0;
        why = !*p ? "a '(' not closed" : *p == ')'
              ? "a ')' that closes no '('" : "a bad character";
        break;
    }
    lr_yang_errf(err, errlen, "filter", NULL, "the query's fields '%.*s' has "
                 "%s at byte %zu: send the paths of nodes under the "
                 "resource, separated by ';', a node's children in "
                 "parentheses, such as a;b/c;d(e;f) (RFC 8040 4.8.3)",
                 LR_YANG_FIELDS_QUOTE, fields, why,
                 (size_t) (p - fields) + 1);
    return EINVAL;
}

/* RFC 8040 4.8.3 under 'node' (the target, or a node on the way):
 * frees each child (its keys aside) that 'f' does not select or lead
 * to; true when something under 'node' stays, or 'node' is a list entry
 * (its keys) or a presence container, which stay as content keeps
 * them.  The recursion follows the data's depth, the schema's. */
static bool
lr_yang_fields_cut(struct lyd_node *node, const struct lr_yang_fields *f)
{
    struct lyd_node *c = lyd_child_no_keys(node), *next;
    bool kept = false;
    for (; c; c = next) {
        next = c->next;
        enum lr_yang_field_kind k = lr_yang_field_of(f, c->schema);
        if (k == LR_YANG_FIELD_SELECTED
            || (k == LR_YANG_FIELD_WAY && lr_yang_fields_cut(c, f)))
            kept = true;
        else
            lyd_free_tree(c);
    }
    return kept || (node->schema
                    && (node->schema->nodetype == LYS_LIST
                        || (node->schema->flags & LYS_PRESENCE)));
}

/* RFC 8040 4.8.2 under 'node' at 'level': a child is at the next level,
 * or at 1 when 'f' (NULL: no fields) selects or leads to it (4.8.2:
 * "these nodes and all of their ancestor nodes have a depth value of
 * 1"); past 'depth', it goes, but for the list keys.  true when a node
 * went. */
static bool
lr_yang_depth_cut(struct lyd_node *node, uint32_t level, uint16_t depth,
                  const struct lr_yang_fields *f)
{
    struct lyd_node *c = lyd_child_no_keys(node), *next;
    bool cut = false;
    for (; c; c = next) {
        next = c->next;
        uint32_t l = f && lr_yang_field_of(f, c->schema) ? 1 : level + 1;
        if (l > depth) {
            lyd_free_tree(c);
            cut = true;
        } else
            cut |= lr_yang_depth_cut(c, l, depth, f);
    }
    return cut;
}

/* The top-level container of 'mod' whose child list or container is
 * named name[len], when the top level of 'mod' has no node of that name:
 * a list resource's entries, printed without their parent
 * ({"lightrail-job:job":[...]}), or a container below one
 * ({"ietf-restconf-monitoring:capabilities":{...}}); NULL when the name
 * is a top-level node or nothing.  The first such container: no module
 * the API serves has two top-level containers with a child of the same
 * name. */
static const struct lysc_node *
lr_yang_list_parent(const struct lys_module *mod, const char *name,
                    size_t len)
{
    if (!mod || lys_find_child(NULL, mod, name, len, 0, 0))
        return NULL;
    for (const struct lysc_node *s = NULL;
         (s = lys_getnext(s, NULL, mod->compiled, 0));)
        if (s->nodetype == LYS_CONTAINER
            && lys_find_child(s, mod, name, len, LYS_LIST | LYS_CONTAINER,
                              0))
            return s;
    return NULL;
}

int
lr_yang_filter_json(struct ly_ctx *ctx, const char *text,
                    enum lr_yang_content content, uint16_t depth,
                    bool datastore, char **out, char *err, size_t errlen)
{
    return lr_yang_select_json(ctx, text, NULL, content, depth, datastore,
                               out, err, errlen);
}

int
lr_yang_select_json(struct ly_ctx *ctx, const char *text, const char *fields,
                    enum lr_yang_content content, uint16_t depth,
                    bool datastore, char **out, char *err, size_t errlen)
{
    return lr_yang_read_json(ctx, text, fields, content, depth,
                             LR_YANG_WD_NONE, false, datastore, out, err,
                             errlen);
}

/* Frees, under 'node', each container libyang added as implicit
 * (LYD_DEFAULT) that holds nothing: report-all adds the non-presence
 * containers on the way to defaults, and every other one, which would
 * print as {} where the printers print nothing.  It walks list entries
 * too: lyd_new_implicit_tree() adds under every one (a network's
 * network-types, a job's state), not only under the resource. */
static void
lr_yang_wd_prune(struct lyd_node *node)
{
    struct lyd_node *c, *next;
    for (c = lyd_child(node); c; c = next) {
        next = c->next;
        if (!c->schema || !(c->schema->nodetype & LYD_NODE_INNER))
            continue;
        /* Whether libyang added it, read before the prune under it:
         * freeing its last child flags a container of the text default
         * too (lyd_free_tree()), which would then go. */
        bool added = c->flags & LYD_DEFAULT;
        lr_yang_wd_prune(c);
        if (c->schema->nodetype == LYS_CONTAINER && added && !lyd_child(c))
            lyd_free_tree(c);
    }
}

/* Whether the leaf or leaf-list entry 'c' holds a default in use (RFC
 * 7950 7.6.1, 7.7.2, 7.9.3), the node trim drops and report-all-tagged
 * tags (RFC 6243 3.2, 3.4).  lyd_is_default() compares the value alone,
 * so it also takes an entry of a leaf-list set to other values than its
 * defaults (1 of [1,5] where the defaults are [1,2]: trimmed, [5] would
 * be another value) and a case's nodes when the case is not the choice's
 * default and nothing else holds it (trimmed, the default case would).
 * A case within a case is judged at its own level only. */
static bool
lr_yang_wd_in_use(const struct lyd_node *c)
{
    const struct lysc_node *s = c->schema, *cs = s->parent;
    const struct lyd_node *e;
    if (!lyd_is_default(c))
        return false;
    if (s->nodetype == LYS_LEAFLIST) {
        LY_ARRAY_COUNT_TYPE have = 0, want = LY_ARRAY_COUNT(
            ((const struct lysc_node_leaflist *) s)->dflts);
        for (e = lyd_first_sibling(c); e; e = e->next)
            if (e->schema == s) {
                if (!lyd_is_default(e))
                    return false;
                have++;
            }
        if (have != want)
            return false;
    }
    if (!cs || cs->nodetype != LYS_CASE
        || ((const struct lysc_node_choice *) cs->parent)->dflt
               == (const struct lysc_node_case *) cs)
        return true;
    for (e = lyd_first_sibling(c); e; e = e->next)
        if (e->schema && e->schema->parent == cs && e->schema != s
            && !((e->schema->nodetype & LYD_NODE_TERM) && lyd_is_default(e)))
            return true;
    return false;
}

/* Frees, under 'node', each leaf and leaf-list entry whose default is in
 * use (RFC 6243 3.2, trim), judged on all the siblings before any goes:
 * lr_yang_wd_in_use() reads them.  LY_EMEM. */
static LY_ERR
lr_yang_wd_trim(struct lyd_node *node)
{
    struct ly_set *gone = NULL;
    struct lyd_node *c;
    LY_ERR rc = ly_set_new(&gone);
    for (c = lyd_child(node); c && !rc; c = c->next) {
        if (c->schema && (c->schema->nodetype & LYD_NODE_TERM)) {
            if (lr_yang_wd_in_use(c))
                rc = ly_set_add(gone, c, 1, NULL);
        } else
            rc = lr_yang_wd_trim(c);
    }
    for (uint32_t i = 0; !rc && i < gone->count; i++)
        lyd_free_tree(gone->dnodes[i]);
    ly_set_free(gone, NULL);
    return rc;
}

/* Marks the containers under 'node' explicit: libyang's parser flags an
 * empty non-presence one LYD_DEFAULT, as if validation had added it, and
 * lyd_new_implicit_tree() adds nothing under such a node, so a container
 * the text holds empty would get none of its defaults. */
static void
lr_yang_wd_explicit(struct lyd_node *node)
{
    node->flags &= ~LYD_DEFAULT;
    for (struct lyd_node *c = lyd_child(node); c; c = c->next)
        if (c->schema && (c->schema->nodetype & LYD_NODE_INNER))
            lr_yang_wd_explicit(c);
}

/* Flags LYD_DEFAULT each leaf and leaf-list entry under 'node' whose
 * default is in use, and clears it on every other, for the print with
 * LYD_PRINT_WD_IMPL_TAG, which tags the nodes so flagged: RFC 6243 3.4
 * tags a node at its default whoever set it (a job's priority 0 the
 * printers set too), which LYD_PRINT_WD_ALL_TAG does (lyd_is_default())
 * but also on the nodes lr_yang_wd_in_use() turns down.  Only the print
 * reads the flag after this. */
static void
lr_yang_wd_tag(struct lyd_node *node)
{
    for (struct lyd_node *c = lyd_child(node); c; c = c->next) {
        if (c->schema && (c->schema->nodetype & LYD_NODE_TERM)) {
            if (lr_yang_wd_in_use(c))
                c->flags |= LYD_DEFAULT;
            else
                c->flags &= ~LYD_DEFAULT;
        } else
            lr_yang_wd_tag(c);
    }
}

/* with-defaults on one top-level member, list entry or container
 * resource 'node' (lr_yang_read_json()). */
static LY_ERR
lr_yang_wd_apply(struct lyd_node *node, enum lr_yang_wd wd,
                 enum lr_yang_content content)
{
    LY_ERR rc = LY_SUCCESS;
    if (wd == LR_YANG_WD_TRIM)
        rc = lr_yang_wd_trim(node);
    else if (wd == LR_YANG_WD_REPORT_ALL
             || wd == LR_YANG_WD_REPORT_ALL_TAGGED) {
        uint32_t opts = content == LR_YANG_CONTENT_CONFIG
                        ? LYD_IMPLICIT_NO_STATE
                        : content == LR_YANG_CONTENT_NONCONFIG
                        ? LYD_IMPLICIT_NO_CONFIG : 0;
        lr_yang_wd_explicit(node);
        rc = lyd_new_implicit_tree(node, opts, NULL);
        if (!rc)
            lr_yang_wd_prune(node);
    }
    return rc;
}

/* What lr_yang_origin_text() sets in the priv of each node of the
 * text: the address alone is read, never what it points at. */
static char lr_yang_origin_of_text;

/* Marks 'node' and every node under it as the text's, before
 * with-defaults adds any: LYD_DEFAULT cannot tell them apart after,
 * since libyang flags a non-presence container default once a free
 * leaves it empty (trim dropping the leaves of a job's gpus, report-all's
 * prune), and such a container is still the operator's.  The priv is
 * libyang's user pointer, unused elsewhere on these private trees. */
static void
lr_yang_origin_text(struct lyd_node *node)
{
    node->priv = &lr_yang_origin_of_text;
    for (struct lyd_node *c = lyd_child(node); c; c = c->next)
        lr_yang_origin_text(c);
}

/* RFC 8342 7's origin of each configuration node under 'node' and of
 * 'node' itself, as an "ietf-origin:origin" annotation where it is not
 * 'inherited' (the parent's origin; NULL at the top of the answer,
 * where RFC 8342 5.3.4 wants it given): or:intended for a node of the
 * text (lr_yang_origin_text()), the operator's configuration as
 * lightraild stores it, or:default for every other, which with-defaults
 * added.  A state node (config false) carries none, nor does anything
 * under it, which is state too. */
static LY_ERR
lr_yang_origin_mark(struct lyd_node *node, const char *inherited)
{
    if (!node->schema || !(node->schema->flags & LYS_CONFIG_W))
        return LY_SUCCESS;
    const char *o = node->priv == &lr_yang_origin_of_text
                    ? LR_YANG_OR ":intended" : LR_YANG_OR ":default";
    LY_ERR rc = LY_SUCCESS;
    if (!inherited || strcmp(o, inherited))
        rc = lyd_new_meta(LYD_CTX(node), node, NULL, LR_YANG_OR ":origin", o,
                          0, NULL);
    for (struct lyd_node *c = lyd_child(node); c && !rc; c = c->next)
        rc = lr_yang_origin_mark(c, o);
    return rc;
}

int
lr_yang_read_json(struct ly_ctx *ctx, const char *text, const char *fields,
                  enum lr_yang_content content, uint16_t depth,
                  enum lr_yang_wd wd, bool origin, bool datastore,
                  char **out, char *err, size_t errlen)
{
    static const char *const doc = "filter";
    struct lyd_node *tree = NULL, *first, *wrapper = NULL;
    struct lr_yang_fields *sel = NULL;
    char *wrapped = NULL, *printed = NULL;
    LY_ERR rc = LY_SUCCESS;
    int ret = 0;

    *out = NULL;
    ly_err_clean(ctx, NULL);
    /* The first member, "module:name", which every printer's text
     * starts with: {"module:name":... (white space aside). */
    const char *m = text + strspn(text, " \t\r\n");
    m = *m == '{' ? m + 1 + strspn(m + 1, " \t\r\n") : "";
    m = *m == '"' ? m + 1 : "";
    size_t mlen = strcspn(m, ":\""), nlen = m[mlen] == ':'
                                            ? strcspn(m + mlen + 1, "\"")
                                            : 0;
    char module[64];
    snprintf(module, sizeof module, "%.*s",
             (int) (mlen < sizeof module ? mlen : sizeof module - 1), m);
    const struct lys_module *mod = ly_ctx_get_module_implemented(ctx,
                                                                 module);
    const struct lysc_node *parent =
        nlen ? lr_yang_list_parent(mod, m + mlen + 1, nlen) : NULL;
    if (parent) {
        /* As lr_yang_parse_job wraps a short job body: libyang reads a
         * list's entries in their container. */
        size_t tlen = strlen(text);
        wrapped = malloc(strlen(module) + strlen(parent->name) + tlen + 8);
        if (!wrapped) {
            rc = LY_EMEM;
            goto cleanup;
        }
        sprintf(wrapped, "{\"%s:%s\":%s}", module, parent->name, text);
    }
    rc = lyd_parse_data_mem(ctx, wrapped ? wrapped : text, LYD_JSON,
                            LYD_PARSE_ONLY | LYD_PARSE_STRICT, 0, &tree);
    if (rc)
        goto cleanup;
    /* The fields are judged on the schema, so that a bad one is refused
     * whatever the data holds, an empty list too.  The target is the
     * text's top-level member, a list resource's list, or the
     * datastore. */
    if (fields) {
        const struct lysc_node *target =
            datastore || !mod ? NULL
                              : lys_find_child(parent, mod, m + mlen + 1,
                                               nlen, 0, 0);
        if (!(sel = malloc(sizeof *sel))) {
            rc = LY_EMEM;
            goto cleanup;
        }
        if (!datastore && !target) {
            lr_yang_errf(err, errlen, doc, NULL, "the text's first member "
                         "'%.*s' is no node of the context", (int) (mlen + 1
                                                                  + nlen), m);
            ret = EIO;
            goto cleanup;
        }
        if ((ret = lr_yang_fields_parse(ctx, target, fields, sel, err,
                                        errlen)))
            goto cleanup;
    }
    /* The top-level members, or the entries of the list resource; an
     * empty list resource ({"...:job":[]}) has none and is its text. */
    first = parent && tree ? lyd_child(tree) : tree;
    if (parent)
        wrapper = tree;
    if (!first) {
        if (!(printed = strdup(text)))
            rc = LY_EMEM;
        goto cleanup;
    }
    /* with-defaults first: it says what the data holds. */
    if (wd == LR_YANG_WD_REPORT_ALL_TAGGED
        && !ly_ctx_get_module_implemented(ctx, LR_YANG_NCWD)) {
        lr_yang_errf(err, errlen, doc, NULL, "report-all-tagged needs "
                     LR_YANG_NCWD ", which the context does not implement");
        ret = EINVAL;
        goto cleanup;
    }
    if (origin && !ly_ctx_get_module_implemented(ctx, LR_YANG_OR)) {
        lr_yang_errf(err, errlen, doc, NULL, "with-origin needs "
                     LR_YANG_OR ", which the context does not implement");
        ret = EINVAL;
        goto cleanup;
    }
    struct lyd_node *n, *next;
    /* The parser flags an empty container of the text default: it is
     * the operator's, printed as report-all prints it.  The text's
     * nodes are told from those with-defaults adds. */
    for (n = first; n && origin; n = n->next) {
        lr_yang_wd_explicit(n);
        lr_yang_origin_text(n);
    }
    for (n = first; n && wd != LR_YANG_WD_NONE; n = n->next)
        if ((rc = lr_yang_wd_apply(n, wd, content)))
            goto cleanup;
    /* The origins once with-defaults has said what the data holds.
     * Each top of the answer (a member of the datastore, a list
     * resource's entry, the container resource) carries its own; every
     * cut after keeps the tops it keeps and a node with its ancestors,
     * so what it leaves inherits as it did. */
    for (n = first; n && origin; n = n->next)
        if ((rc = lr_yang_origin_mark(n, NULL)))
            goto cleanup;
    /* Fields select, content filters what they kept, depth cuts last.
     * A target stays whatever is cut under it; a member of the
     * datastore is a descendant, cut as any. */
    for (n = first; n; n = next) {
        next = n->next;
        bool stays = true;
        if (sel) {
            enum lr_yang_field_kind k = datastore
                                        ? lr_yang_field_of(sel, n->schema)
                                        : LR_YANG_FIELD_WAY;
            stays = k == LR_YANG_FIELD_SELECTED
                    || (k == LR_YANG_FIELD_WAY && lr_yang_fields_cut(n, sel));
        }
        if (stays && content != LR_YANG_CONTENT_ALL)
            stays = lr_yang_content_cut(n, content);
        if (!stays && datastore) {
            if (n == tree)
                tree = next;
            lyd_free_tree(n);
        }
    }
    first = wrapper ? lyd_child(wrapper) : tree;
    /* The target is level 1; the datastore's members are level 2, or 1
     * when the fields select or lead to them.  Whether anything changed
     * the text: fields, content, with-origin's annotations, with-defaults
     * but explicit (the text itself), or a node the depth cut. */
    bool cut = sel || content != LR_YANG_CONTENT_ALL || origin
               || (wd != LR_YANG_WD_NONE && wd != LR_YANG_WD_EXPLICIT);
    for (n = first; n && depth; n = next) {
        next = n->next;
        uint32_t level = !datastore || (sel && lr_yang_field_of(sel,
                                                                n->schema))
                         ? 1 : 2;
        if (level <= depth)
            cut |= lr_yang_depth_cut(n, level, depth, sel);
        else {
            if (n == tree)
                tree = next;
            lyd_free_tree(n);
            cut = true;
        }
    }
    /* Nothing cut (a depth past the leaves, 65535 or any): the text as
     * it came, as without the query, so that its tag is the same; a
     * re-print would differ in form alone. */
    if (!cut) {
        if (!(printed = strdup(text)))
            rc = LY_EMEM;
        goto cleanup;
    }
    first = wrapper ? lyd_child(wrapper) : tree;
    if (!first) {
        if (!(printed = strdup("{}\n")))
            rc = LY_EMEM;
        goto cleanup;
    }
    /* The tree holds what with-defaults asked for; report-all prints
     * the defaults it added (LYD_PRINT_WD_ALL), report-all-tagged tags
     * the nodes lr_yang_wd_tag() flagged (LYD_PRINT_WD_IMPL_TAG). */
    for (n = first; n && wd == LR_YANG_WD_REPORT_ALL_TAGGED; n = n->next)
        lr_yang_wd_tag(n);
    uint32_t wdopt = wd == LR_YANG_WD_REPORT_ALL_TAGGED ? LYD_PRINT_WD_IMPL_TAG
                     : wd == LR_YANG_WD_REPORT_ALL ? LYD_PRINT_WD_ALL : 0;
    rc = lyd_print_mem(&printed, first, LYD_JSON, LYD_PRINT_WITHSIBLINGS
                                                  | LYD_PRINT_KEEPEMPTYCONT
                                                  | wdopt);

cleanup:
    if (rc)
        ret = rc == LY_EMEM ? (lr_yang_errf(err, errlen, doc, NULL,
                                            "out of memory"), ENOMEM)
                            : (lr_yang_ly_err(ctx, rc, doc, err, errlen),
                               EIO);
    lyd_free_all(tree);
    free(wrapped);
    free(sel);
    if (ret) {
        free(printed);
        printed = NULL;
    }
    *out = printed;
    return ret;
}

/* Whether the schema subtree at 's' holds a config false data node ('s'
 * itself included): state that content nonconfig could keep. */
static bool
lr_yang_schema_has_state(const struct lysc_node *s)
{
    if (s->flags & LYS_CONFIG_R)
        return true;
    for (const struct lysc_node *c = NULL;
         (c = lys_getnext(c, s, NULL, 0));)
        if (lr_yang_schema_has_state(c))
            return true;
    return false;
}

/* Whether lr_yang_select_json() on the datastore drops the member of
 * schema 's' whatever it holds, under 'sel' (NULL: no fields), 'content'
 * and 'depth': the member's own steps of that function, judged on the
 * schema. */
static bool
lr_yang_member_dropped(const struct lysc_node *s,
                       const struct lr_yang_fields *sel,
                       enum lr_yang_content content, uint16_t depth)
{
    enum lr_yang_field_kind k = sel ? lr_yang_field_of(sel, s)
                                    : LR_YANG_FIELD_OUT;
    if (sel && k == LR_YANG_FIELD_OUT)
        return true;
    /* content config: a config false member has nothing config true
     * under it (its descendants inherit it), and is not kept itself;
     * nonconfig: a member with no config false node under it keeps
     * nothing, and is config true itself. */
    if (content == LR_YANG_CONTENT_CONFIG && !(s->flags & LYS_CONFIG_W))
        return true;
    if (content == LR_YANG_CONTENT_NONCONFIG && !lr_yang_schema_has_state(s))
        return true;
    /* A member is level 2 unless the fields lead to it (level 1). */
    return depth == 1 && k == LR_YANG_FIELD_OUT;
}

int
lr_yang_datastore_needs(struct ly_ctx *ctx, const char *fields,
                        enum lr_yang_content content, uint16_t depth,
                        const char *const *members, int n, bool *need,
                        char *err, size_t errlen)
{
    struct lr_yang_fields *sel = NULL;
    int ret = 0;
    if (fields) {
        if (!(sel = malloc(sizeof *sel))) {
            lr_yang_errf(err, errlen, "filter", NULL, "out of memory");
            return ENOMEM;
        }
        if ((ret = lr_yang_fields_parse(ctx, NULL, fields, sel, err,
                                        errlen)))
            goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        const struct lysc_node *s = lr_yang_top_node(ctx, members[i]);
        if (!s) {
            lr_yang_errf(err, errlen, "data", NULL, "no top-level node '%s' "
                         "in the modules lightraild implements", members[i]);
            ret = EINVAL;
            goto cleanup;
        }
        if (lr_yang_member_dropped(s, sel, content, depth))
            need[i] = false;
    }

cleanup:
    free(sel);
    return ret;
}

/* The data nodes lr_yang_cut_keeps_state() follows from a target down
 * to the subtree it judges: more than any module lightraild implements
 * nests. */
#define LR_YANG_CHAIN_MAX 64

/* Whether 'a' is 's' or one of its schema ancestors. */
static bool
lr_yang_schema_under(const struct lysc_node *s, const struct lysc_node *a)
{
    for (; s; s = s->parent)
        if (s == a)
            return true;
    return false;
}

/* One step of lr_yang_read_json()'s cuts, judged on the schema: whether
 * the child 'c' of a node kept at 'level' (below a selected node when
 * '*insel') can stay, and then its level and whether it is below a
 * selected node, in '*level' and '*insel'.  The fields (NULL: none)
 * keep a node they select or lead to, or one below a selected node; the
 * depth (0: unbounded) keeps a node whose level is at most it, that of
 * a node the fields select or lead to being 1 (RFC 8040 4.8.2), of any
 * other its parent's and one (lr_yang_depth_cut()). */
static bool
lr_yang_cut_step(const struct lysc_node *c, const struct lr_yang_fields *sel,
                 uint16_t depth, uint32_t *level, bool *insel)
{
    enum lr_yang_field_kind k = sel ? lr_yang_field_of(sel, c)
                                    : LR_YANG_FIELD_OUT;
    if (sel && !*insel && k == LR_YANG_FIELD_OUT)
        return false;
    *level = k != LR_YANG_FIELD_OUT ? 1 : *level + 1;
    *insel = *insel || k == LR_YANG_FIELD_SELECTED;
    return !depth || *level <= depth;
}

/* Whether the cuts keep a config false node at or under 's', a node
 * they keep at 'level' (below a selected node when 'insel'): 's' is
 * state, or a child they keep reaches one.  A node past the depth goes
 * with its subtree, so nothing below it is looked at. */
static bool
lr_yang_cut_reaches_state(const struct lysc_node *s, uint32_t level,
                          bool insel, const struct lr_yang_fields *sel,
                          uint16_t depth)
{
    if (s->flags & LYS_CONFIG_R)
        return true;
    for (const struct lysc_node *c = NULL;
         (c = lys_getnext(c, s, NULL, 0));) {
        uint32_t l = level;
        bool in = insel;
        if (lr_yang_cut_step(c, sel, depth, &l, &in)
            && lr_yang_cut_reaches_state(c, l, in, sel, depth))
            return true;
    }
    return false;
}

int
lr_yang_cut_keeps_state(struct ly_ctx *ctx, const char *target,
                        const char *fields, enum lr_yang_content content,
                        uint16_t depth, const char *under, bool *keeps,
                        char *err, size_t errlen)
{
    const struct lysc_node *t = NULL, *u, *chain[LR_YANG_CHAIN_MAX];
    struct lr_yang_fields *sel = NULL;
    int ret = 0;
    size_t n = 0;
    *keeps = true;
    if (target && !(t = lys_find_path(ctx, NULL, target, 0))) {
        lr_yang_errf(err, errlen, "data", NULL, "'%s' is no data node of "
                     "the modules lightraild implements", target);
        return EINVAL;
    }
    if (!(u = lys_find_path(ctx, NULL, under, 0))
        || (t && !lr_yang_schema_under(u, t))) {
        lr_yang_errf(err, errlen, "data", NULL, "'%s' is no data node "
                     "%s%s%sof the modules lightraild implements", under,
                     t ? "at or under '" : "", t ? target : "",
                     t ? "' " : "");
        return EINVAL;
    }
    if (fields) {
        if (!(sel = malloc(sizeof *sel))) {
            lr_yang_errf(err, errlen, "filter", NULL, "out of memory");
            return ENOMEM;
        }
        if ((ret = lr_yang_fields_parse(ctx, t, fields, sel, err, errlen)))
            goto cleanup;
    }
    if (content == LR_YANG_CONTENT_CONFIG) {
        *keeps = false;
        goto cleanup;
    }
    /* content=nonconfig keeps the nodes on the way to each state node
     * (lr_yang_content_cut()) before the depth cuts: a job kept for its
     * state stays, its keys at least, where the depth cuts the state.
     * The depth alone cannot tell that from the jobs without state,
     * which that content drops whole: not judged. */
    if (content == LR_YANG_CONTENT_NONCONFIG)
        depth = 0;
    /* The data nodes from below the target down to 'under', each cut
     * as lr_yang_read_json() cuts it: the target is level 1 and no
     * field, and so is the datastore (its members are level 2 unless
     * the fields select or lead to them).  A path deeper than any the
     * modules have keeps the state. */
    for (const struct lysc_node *s = u; s != t; s = lysc_data_parent(s)) {
        if (n == LR_YANG_CHAIN_MAX)
            goto cleanup;
        chain[n++] = s;
    }
    uint32_t level = 1;
    bool insel = false;
    while (n)
        if (!lr_yang_cut_step(chain[--n], sel, depth, &level, &insel)) {
            *keeps = false;
            goto cleanup;
        }
    /* A config false node stays where the cuts reach it: under a
     * selected node, or on the way to one (below a config false node,
     * so config false too), at a level the depth keeps. */
    *keeps = lr_yang_cut_reaches_state(u, level, insel, sel, depth);

cleanup:
    free(sel);
    return ret;
}
