/*
 * lr_yang_op: the bodies of the RESTCONF operations (lightrail-job's
 * reconcile, lightrail-state's reload-ppo-policy); see lr_yang_job.h.
 *
 * RFC 8040, section 3.6: an operation's input is the object
 * {"MODULE:input": {...}} (or no body), its output {"MODULE:output":
 * {...}} (or 204 without output).  libyang 2.1 parses and prints an
 * operation under its own name ({"MODULE:OP": {...}}, LYD_TYPE_RPC_YANG
 * and LYD_TYPE_REPLY_YANG) and has no RESTCONF form: on the way in the
 * one member's name is replaced in the text, so that libyang reads the
 * body as sent (json-c would keep only the last of two members of one
 * name), and on the way out json-c re-wraps it.  json-c judges the
 * syntax first: libyang's operation parser takes trailing text after
 * the object, and reports a body cut after the member name as a missing
 * operation rather than broken JSON.  libyang judges everything else
 * (types, unknown members, and, by validating the input, a leaf given
 * twice, which its parser alone takes).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libyang/libyang.h>

#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"
#include "yang/lr_yang_job.h"

/* The JSON object 'top' (of one member) with that member renamed 'name',
 * as text: a new string the caller frees, or NULL (no member, out of
 * memory). */
static char *
lr_yang_op_rewrap(json_object *top, const char *name)
{
    json_object *value = NULL, *out;
    char *text = NULL;
    json_object_object_foreach(top, key, v) {
        (void) key;
        value = v;
    }
    if (!value || !(out = json_object_new_object()))
        return NULL;
    if (!json_object_object_add(out, name, json_object_get(value)))
        text = strdup(json_object_to_json_string_ext(
            out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(out);
    return text;
}

/* Whether the JSON text p[0..n), which follows the first member's name
 * of an object the caller has checked to be valid JSON, goes on to a
 * second member after that member's value. */
static bool
lr_yang_op_second_member(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && lr_yang_json_space(p[i]))
        i++;
    if (i == n || p[i] != ':' || n - i - 1 > INT_MAX)
        return false;
    i++;
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return false;
    json_object *v = json_tokener_parse_ex(tok, p + i, (int) (n - i));
    size_t end = v ? i + json_tokener_get_parse_end(tok) : n;
    json_object_put(v);
    json_tokener_free(tok);
    while (end < n && lr_yang_json_space(p[end]))
        end++;
    return end < n && p[end] == ',';
}

/* Parses the body of operation 'module':'op' into '*tree' (the operation
 * node with its input; NULL for an empty body).  0; EBADMSG for text that
 * is not JSON; EINVAL for JSON the schema refuses, with the data path
 * in path[] when there is one and the message in msg[]; ENOMEM. */
static int
lr_yang_op_parse(struct ly_ctx *ctx, const char *module, const char *op,
                 const char *body, size_t len, struct lyd_node **tree,
                 char *path, size_t pathlen, char *msg, size_t msglen)
{
    char want[128], name[128], text_msg[512], *text = NULL;
    json_tokener *tok = NULL;
    json_object *top = NULL;
    struct ly_in *in = NULL;
    int ret = 0;

    *tree = NULL;
    lr_yang_copy_line(path, pathlen, "");
    lr_yang_copy_line(msg, msglen, "");
    size_t i = 0;
    while (i < len && lr_yang_json_space(body[i]))
        i++;
    if (i == len)
        return 0;
    snprintf(want, sizeof want, "%s:input", module);
    if (memchr(body, '\0', len)) {
        lr_yang_copy_line(msg, msglen, "the body contains a NUL byte");
        return EINVAL;
    }
    if (len > INT_MAX) {          /* the server bounds bodies far below */
        lr_yang_copy_line(msg, msglen, "the body is too large");
        return EINVAL;
    }
    if (!(tok = json_tokener_new())) {
        lr_yang_copy_line(msg, msglen, "out of memory");
        return ENOMEM;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    top = json_tokener_parse_ex(tok, body, (int) len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = top ? json_tokener_get_parse_end(tok) : 0;
    while (used < len && lr_yang_json_space(body[used]))
        used++;
    if (!top || jerr != json_tokener_success || used < len) {
        const char *why = top && jerr == json_tokener_success
                          ? "text after the object"
                          : jerr == json_tokener_continue
                          ? "it ends too early"
                          : json_tokener_error_desc(jerr);
        snprintf(text_msg, sizeof text_msg, "the body of %s is not JSON: "
                 "%s", op, why);
        lr_yang_copy_line(msg, msglen, text_msg);
        ret = EBADMSG;
        goto cleanup;
    }
    const char *first = NULL;
    if (json_object_is_type(top, json_type_object)
        && json_object_object_length(top) == 1) {
        json_object_object_foreach(top, key, v) {
            (void) v;
            first = key;
        }
    }
    if (!first || strcmp(first, want)) {
        snprintf(text_msg, sizeof text_msg, "the body of %s is %s%s%s; send "
                 "{\"%s\":{...}} (RFC 8040, 3.6.1) or no body", op,
                 first ? "{\"" : "not one member", first ? first : "",
                 first ? "\":...}" : "", want);
        lr_yang_copy_line(msg, msglen, text_msg);
        ret = EINVAL;
        goto cleanup;
    }
    /* libyang gets the body as sent, the member renamed in the text:
     * json-c keeps the last of members of one name, where libyang
     * refuses a leaf given twice. */
    snprintf(name, sizeof name, "%s:%s", module, op);
    size_t wl = strlen(want);
    const char *k = body + i + 1;      /* body[i] is the '{' */
    while (k < body + len && lr_yang_json_space(*k))
        k++;
    if ((size_t) (body + len - k) < wl + 2 || k[0] != '"'
        || memcmp(k + 1, want, wl) || k[wl + 1] != '"') {
        snprintf(text_msg, sizeof text_msg, "the body of %s must begin "
                 "{\"%s\": with the name written plainly", op, want);
        lr_yang_copy_line(msg, msglen, text_msg);
        ret = EINVAL;
        goto cleanup;
    }
    k += wl + 2;
    /* Only the one member: json-c keeps the last of two of one name, and
     * libyang 2.1.30 leaks what it parsed when it meets a second. */
    if (lr_yang_op_second_member(k, (size_t) (body + len - k))) {
        snprintf(text_msg, sizeof text_msg, "the body of %s has more than "
                 "one member: send {\"%s\":{...}} alone", op, want);
        lr_yang_copy_line(msg, msglen, text_msg);
        ret = EINVAL;
        goto cleanup;
    }
    size_t rest = (size_t) (body + len - k);
    if (!(text = malloc(strlen(name) + rest + 4))) {
        lr_yang_copy_line(msg, msglen, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    int head = sprintf(text, "{\"%s\"", name);
    memcpy(text + head, k, rest);
    text[(size_t) head + rest] = '\0';
    ly_err_clean(ctx, NULL);
    LY_ERR rc = ly_in_new_memory(text, &in);
    if (!rc)
        rc = lyd_parse_op(ctx, NULL, in, LYD_JSON, LYD_TYPE_RPC_YANG, tree,
                          NULL);
    /* The parser takes a leaf given twice; validation does not. */
    if (!rc)
        rc = lyd_validate_op(*tree, NULL, LYD_TYPE_RPC_YANG, NULL);
    if (rc) {
        const struct ly_err_item *e = ly_err_first(ctx);
        char p[256] = "";
        int schema = 0;
        long line = 0;
        if (e && e->path)
            lr_yang_split_location(e->path, p, sizeof p, &schema, &line);
        lr_yang_copy_line(path, pathlen, schema ? "" : p);
        /* With what to send instead, as any other body's refusal
         * (lr_yang_tree_err()); the tree is not there to name a
         * leafref's targets, and an operation's input holds none. */
        char better[1024];
        const char *m = e && e->msg ? e->msg : "not a valid input";
        if (e && e->msg && !schema)
            m = lr_yang_better_msg(ctx, NULL, p, e->msg, better,
                                   sizeof better);
        lr_yang_copy_line(msg, msglen, m);
        ret = rc == LY_EMEM ? ENOMEM : EINVAL;
        lyd_free_all(*tree);
        *tree = NULL;
    }

cleanup:
    ly_in_free(in, 0);
    free(text);
    json_object_put(top);
    json_tokener_free(tok);
    return ret;
}

int
lr_yang_parse_reconcile(struct ly_ctx *ctx, const char *body, size_t len,
                        bool *dry_run, bool *reinstall, char *path,
                        size_t pathlen, char *msg, size_t msglen)
{
    struct lyd_node *tree = NULL;
    int rc = lr_yang_op_parse(ctx, LR_YANG_LRJ, "reconcile", body, len,
                              &tree, path, pathlen, msg, msglen);
    const char *v = tree ? lr_yang_leaf(tree, LR_YANG_LRJ, "dry-run") : NULL;
    *dry_run = v && !strcmp(v, "true");
    v = tree ? lr_yang_leaf(tree, LR_YANG_LRJ, "reinstall") : NULL;
    *reinstall = v && !strcmp(v, "true");
    lyd_free_all(tree);
    return rc;
}

int
lr_yang_parse_no_input(struct ly_ctx *ctx, const char *module,
                       const char *op, const char *body, size_t len,
                       char *path, size_t pathlen, char *msg, size_t msglen)
{
    struct lyd_node *tree = NULL;
    int rc = lr_yang_op_parse(ctx, module, op, body, len, &tree, path,
                              pathlen, msg, msglen);
    lyd_free_all(tree);
    return rc;
}

int
lr_yang_reconcile_to_json(struct ly_ctx *ctx, int differences, bool repaired,
                          int reinstalled, const char *report, char **out,
                          char *err, size_t errlen)
{
    const struct lys_module *mod;
    struct lyd_node *op = NULL;
    char *text = NULL, num[16];
    LY_ERR rc;
    int ret = 0;

    *out = NULL;
    if (!(mod = lr_yang_module(ctx, LR_YANG_LRJ, LR_YANG_LRJ, err,
                               errlen)))
        return EINVAL;
    ly_err_clean(ctx, NULL);
    snprintf(num, sizeof num, "%d", differences < 0 ? 0 : differences);
    rc = lyd_new_inner(NULL, mod, "reconcile", 0, &op);
    if (!rc)
        rc = lyd_new_term(op, mod, "differences", num, 1, NULL);
    if (!rc)
        rc = lr_yang_term_bool(op, mod, "repaired", repaired, true);
    if (!rc && reinstalled >= 0) {
        snprintf(num, sizeof num, "%d", reinstalled);
        rc = lyd_new_term(op, mod, "reinstalled", num, 1, NULL);
    }
    /* One entry per line of the report. */
    for (const char *p = report; !rc && p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t) (nl - p) : strlen(p);
        if (n) {
            char *line = strndup(p, n);
            /* Channel names in it are what the devices sent. */
            rc = line ? lr_yang_term_text(op, mod, "difference", line,
                                          true)
                      : LY_EMEM;
            free(line);
        }
        p += n + (nl ? 1 : 0);
    }
    if (!rc)
        rc = lyd_validate_op(op, NULL, LYD_TYPE_REPLY_YANG, NULL);
    if (!rc)
        rc = lyd_print_mem(&text, op, LYD_JSON, 0);
    if (rc) {
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_LRJ, err, errlen);
        goto cleanup;
    }
    json_object *top = json_tokener_parse(text);
    *out = top ? lr_yang_op_rewrap(top, LR_YANG_LRJ ":output") : NULL;
    json_object_put(top);
    if (!*out) {
        lr_yang_errf(err, errlen, LR_YANG_LRJ, NULL, "cannot print the "
                     "output of reconcile: out of memory");
        ret = ENOMEM;
    }

cleanup:
    free(text);
    lyd_free_all(op);
    return ret;
}
