/*
 * lr_yang: the libyang context with the embedded modules, and the helpers
 * every loader shares (errors, file reading, strict parsing).  See
 * lr_yang.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libyang/libyang.h>

#include "planner/lr_utf8.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

/* The modules a context implements, in load order.  Their imports
 * (ietf-network, ietf-inet-types, ...) come from the embedded table through
 * lr_yang_import_clb() or from libyang's own built-in modules. */
static const char *const lr_yang_implemented[] = {
    LR_YANG_NW, LR_YANG_NT, LR_YANG_LRT, LR_YANG_LRC, LR_YANG_LRM,
    LR_YANG_LRJ, LR_YANG_LRCFG, LR_YANG_LRST, LR_YANG_LRA, LR_YANG_RCMON,
    LR_YANG_NCWD, LR_YANG_OR, LR_YANG_RC,
};

/* An error is one line, yet libyang quotes the input it stopped at, and
 * names in the data may hold any character: control characters become
 * spaces.  A message longer than err[] (a leafref's list of names of
 * many-byte characters) is cut at the start of a character and marked
 * (planner/lr_utf8.h): the API sends it as JSON, which must be UTF-8. */
static void
lr_yang_verrf(char *err, size_t errlen, const char *file, const char *path,
              const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    if (errlen > sizeof LR_UTF8_CUT_MARK) {
        err[0] = '\0';
        if (path)
            lr_utf8_appendf(err, errlen, "%s: %s: ", file, path);
        else
            lr_utf8_appendf(err, errlen, "%s: ", file);
        lr_utf8_vappendf(err, errlen, fmt, ap);
    } else {
        int n = path ? snprintf(err, errlen, "%s: %s: ", file, path)
                     : snprintf(err, errlen, "%s: ", file);
        if (n >= 0 && (size_t) n < errlen)
            vsnprintf(err + n, errlen - n, fmt, ap);
    }
    for (unsigned char *p = (unsigned char *) err; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

void
lr_yang_errf(char *err, size_t errlen, const char *file, const char *path,
             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lr_yang_verrf(err, errlen, file, path, fmt, ap);
    va_end(ap);
}

int
lr_yang_node_err(char *err, size_t errlen, const char *file,
                 const struct lyd_node *node, const char *fmt, ...)
{
    /* lyd_path() returns NULL only when out of memory; the message is
     * still worth having then. */
    char *path = node ? lyd_path(node, LYD_PATH_STD, NULL, 0) : NULL;
    va_list ap;
    va_start(ap, fmt);
    lr_yang_verrf(err, errlen, file, path ? path : "/", fmt, ap);
    va_end(ap);
    free(path);
    return EINVAL;
}

/* libyang 2.1 puts location and line together in the error's "path":
 *     Data location "/a:b/c[k='v']", line number 16.
 *     Schema location "/a:b".
 *     Line number 1.
 * Splits that into the bare path (copied into path[size], "" when none)
 * and the line (0 when none). */
void
lr_yang_split_location(const char *loc, char *path, size_t size, int *schema,
                       long *line)
{
    static const char *const prefixes[] = {
        "Data location \"", "Schema location \"",
    };
    const char *ln = loc ? strstr(loc, "ine number ") : NULL;

    path[0] = '\0';
    *schema = 0;
    *line = ln ? strtol(ln + strlen("ine number "), NULL, 10) : 0;
    if (!loc)
        return;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t pl = strlen(prefixes[i]);
        if (strncmp(loc, prefixes[i], pl))
            continue;
        *schema = i == 1;
        /* The path itself may hold double quotes (a key with a single
         * quote in it), so its end is the last quote before the line. */
        const char *end = ln ? ln : loc + strlen(loc);
        while (end > loc + pl && end[-1] != '"')
            end--;
        if (end > loc + pl) {
            size_t n = (size_t) (end - 1 - (loc + pl));
            if (n >= size)
                n = size - 1;
            memcpy(path, loc + pl, n);
            path[n] = '\0';
        }
        return;
    }
}

/* A union's allowed values, one alternative a row.  libyang 2.1 refuses
 * a value no member takes with "Invalid union value ... no matching
 * subtype found" alone, dropping each member's own refusal (a range's
 * error-message included), so the members are read from the compiled
 * schema instead: enumerations give their names, booleans true and
 * false, numbers their ranges followed by the leaf's units.  A member of
 * any other type (a string's pattern, an identity) has no short
 * description: then 'whole' is cleared and the caller keeps libyang's
 * message. */
struct lr_yang_want {
    char alt[16][64];
    int n;
    bool whole;
};

static void
lr_yang_want_add(struct lr_yang_want *w, const char *fmt, ...)
{
    va_list ap;
    if (w->n == (int) (sizeof w->alt / sizeof w->alt[0])) {
        w->whole = false;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(w->alt[w->n++], sizeof w->alt[0], fmt, ap);
    va_end(ap);
}

static void
lr_yang_want_type(const struct lysc_type *t, const char *units,
                  struct lr_yang_want *w)
{
    const char *sp = units ? " " : "", *u = units ? units : "";
    LY_ARRAY_COUNT_TYPE i;

    switch (t->basetype) {
    case LY_TYPE_UNION: {
        const struct lysc_type_union *un = (const void *) t;
        LY_ARRAY_FOR(un->types, i)
            lr_yang_want_type(un->types[i], units, w);
        return;
    }
    case LY_TYPE_ENUM: {
        const struct lysc_type_enum *e = (const void *) t;
        LY_ARRAY_FOR(e->enums, i)
            lr_yang_want_add(w, "%s", e->enums[i].name);
        return;
    }
    case LY_TYPE_BOOL:
        lr_yang_want_add(w, "true");
        lr_yang_want_add(w, "false");
        return;
    case LY_TYPE_UINT8: case LY_TYPE_UINT16: case LY_TYPE_UINT32:
    case LY_TYPE_UINT64: case LY_TYPE_INT8: case LY_TYPE_INT16:
    case LY_TYPE_INT32: case LY_TYPE_INT64: case LY_TYPE_DEC64:
        break;
    default:
        w->whole = false;
        return;
    }
    int fd = t->basetype == LY_TYPE_DEC64
             ? ((const struct lysc_type_dec *) t)->fraction_digits : 0;
    const struct lysc_range *r = t->basetype == LY_TYPE_DEC64
                                 ? ((const struct lysc_type_dec *) t)->range
                                 : ((const struct lysc_type_num *) t)->range;
    if (!r) {
        lr_yang_want_add(w, "%s%s%s", fd ? "a number" : "an integer",
                         units ? " of " : "", u);
        return;
    }
    double scale = 1;
    for (int d = 0; d < fd; d++)
        scale *= 10;
    LY_ARRAY_FOR(r->parts, i) {
        /* Unsigned types keep their bounds unsigned, the others signed,
         * decimal64's scaled by its fraction digits. */
        char lo[32], hi[32];
        if (t->basetype < LY_TYPE_DEC64) {
            snprintf(lo, sizeof lo, "%llu",
                     (unsigned long long) r->parts[i].min_u64);
            snprintf(hi, sizeof hi, "%llu",
                     (unsigned long long) r->parts[i].max_u64);
        } else if (fd) {
            snprintf(lo, sizeof lo, "%.*g", 17,
                     (double) r->parts[i].min_64 / scale);
            snprintf(hi, sizeof hi, "%.*g", 17,
                     (double) r->parts[i].max_64 / scale);
        } else {
            snprintf(lo, sizeof lo, "%lld", (long long) r->parts[i].min_64);
            snprintf(hi, sizeof hi, "%lld", (long long) r->parts[i].max_64);
        }
        if (!strcmp(lo, hi))
            lr_yang_want_add(w, "%s%s%s", lo, sp, u);
        else
            lr_yang_want_add(w, "%s to %s%s%s", lo, hi, sp, u);
    }
}

/* The schema node of the data path 'path' (its predicates dropped), or
 * NULL. */
static const struct lysc_node *
lr_yang_schema_of(const struct ly_ctx *ctx, const char *path)
{
    char spath[1024];
    size_t j = 0;
    char quote = 0;

    /* A predicate ends at the first ']' outside its quoted keys, which
     * may hold any character. */
    for (const char *p = path; *p && j + 1 < sizeof spath; p++) {
        if (quote) {
            if (*p == quote)
                quote = quote == ']' ? 0 : ']';
            else if (quote == ']' && (*p == '\'' || *p == '"'))
                quote = *p;
        } else if (*p == '[') {
            quote = ']';
        } else {
            spath[j++] = *p;
        }
    }
    spath[j] = '\0';
    return lys_find_path(ctx, NULL, spath, 0);
}

/* libyang's "Too many "X" instances." at the list or leaf-list 'path'
 * (a data path) as the same with the schema's max-elements, the limit
 * the user met, into msg[size]; false, msg untouched, otherwise. */
static bool
lr_yang_count_msg(const struct ly_ctx *ctx, const char *path,
                  const char *lymsg, char *msg, size_t size)
{
    static const char head[] = "Too many \"";
    uint32_t max;

    if (strncmp(lymsg, head, strlen(head)))
        return false;
    const struct lysc_node *sn = lr_yang_schema_of(ctx, path);
    if (sn && sn->nodetype == LYS_LIST)
        max = ((const struct lysc_node_list *) sn)->max;
    else if (sn && sn->nodetype == LYS_LEAFLIST)
        max = ((const struct lysc_node_leaflist *) sn)->max;
    else
        return false;
    if (max == UINT32_MAX)
        return false;
    snprintf(msg, size, "too many \"%s\" entries: at most %" PRIu32
             " (the %s's max-elements)", sn->name, max,
             sn->nodetype == LYS_LIST ? "list" : "leaf-list");
    return true;
}

/* w's alternatives appended to msg[size] as "a, b or c" (cut at a
 * character, marked, when they do not fit). */
static void
lr_yang_want_append(char *msg, size_t size, const struct lr_yang_want *w)
{
    for (int i = 0; i < w->n; i++)
        lr_utf8_appendf(msg, size, "%s%s",
                        i == 0 ? "" : i == w->n - 1 ? " or " : ", ",
                        w->alt[i]);
}

/* The leaf (or leaf-list) at the data path 'path' and what its type
 * takes, into *w; NULL when 'path' is no leaf or its type's values
 * cannot all be told. */
static const struct lysc_node_leaf *
lr_yang_leaf_wants(const struct ly_ctx *ctx, const char *path,
                   struct lr_yang_want *w)
{
    const struct lysc_node *sn = lr_yang_schema_of(ctx, path);
    if (!sn || !(sn->nodetype & (LYS_LEAF | LYS_LEAFLIST)))
        return NULL;
    const struct lysc_node_leaf *leaf = (const void *) sn;
    w->n = 0;
    w->whole = true;
    lr_yang_want_type(leaf->type, leaf->units, w);
    return w->whole && w->n ? leaf : NULL;
}

/* libyang's "Unsatisfied range - ..." or "Unsatisfied length - ..." at
 * the leaf 'path' (a data path) followed by the bounds the schema
 * allows, which libyang does not say, into msg[size]: the limit the user
 * met.  False, msg untouched, when the type's bounds cannot be told (a
 * schema's own error-message never starts so, and is kept). */
static bool
lr_yang_bound_msg(const struct ly_ctx *ctx, const char *path,
                  const char *lymsg, char *msg, size_t size)
{
    bool length = !strncmp(lymsg, "Unsatisfied length", 18);
    if (!length && strncmp(lymsg, "Unsatisfied range", 17))
        return false;
    const struct lysc_node *sn = lr_yang_schema_of(ctx, path);
    if (!sn || !(sn->nodetype & (LYS_LEAF | LYS_LEAFLIST)))
        return false;
    const struct lysc_type *t = ((const struct lysc_node_leaf *) sn)->type;
    struct lr_yang_want w = { .n = 0, .whole = true };
    if (length) {
        const struct lysc_range *r = t->basetype == LY_TYPE_STRING
            ? ((const struct lysc_type_str *) t)->length : NULL;
        LY_ARRAY_COUNT_TYPE i;
        if (!r)
            return false;
        LY_ARRAY_FOR(r->parts, i)
            lr_yang_want_add(&w, "%llu to %llu characters",
                             (unsigned long long) r->parts[i].min_u64,
                             (unsigned long long) r->parts[i].max_u64);
    } else {
        lr_yang_want_type(t, ((const struct lysc_node_leaf *) sn)->units,
                          &w);
    }
    if (!w.whole || !w.n)
        return false;
    msg[0] = '\0';
    lr_utf8_appendf(msg, size, "%s Allowed: ", lymsg);
    lr_yang_want_append(msg, size, &w);
    lr_utf8_appendf(msg, size, ".");
    return true;
}

/* How much of a value a refusal quotes: a name takes up to 63
 * characters, which may be 252 bytes, and a value refused for its type
 * may be any length. */
#define LR_YANG_REF_NAME 64

/* The value v[len] (no NUL needed) as a refusal quotes it, into
 * buf[LR_YANG_REF_NAME + 1]: whole, or cut at the start of a character
 * and marked (planner/lr_utf8.h), so that what follows it in the message
 * fits and the message stays UTF-8.  Returns buf. */
static const char *
lr_yang_clip_span(const char *v, size_t len, char *buf)
{
    char tmp[LR_YANG_REF_NAME + 2];

    if (len > sizeof tmp - 1)
        len = sizeof tmp - 1;
    memcpy(tmp, v, len);
    tmp[len] = '\0';
    return lr_utf8_clip(buf, LR_YANG_REF_NAME + 1, tmp);
}

/* libyang's "Invalid union value "V" - no matching subtype found." at
 * the leaf 'path' (a data path: its predicates are dropped to find the
 * schema node) as 'invalid value "V": want a, b or c' into msg[size];
 * false, msg untouched, when the leaf's members cannot all be told. */
static bool
lr_yang_union_msg(const struct ly_ctx *ctx, const char *path,
                  const char *lymsg, char *msg, size_t size)
{
    static const char head[] = "Invalid union value \"";
    static const char tail[] = "\" - no matching subtype found";

    if (strncmp(lymsg, head, strlen(head)) || !strstr(lymsg, tail))
        return false;
    struct lr_yang_want w;
    if (!lr_yang_leaf_wants(ctx, path, &w))
        return false;
    const char *v = lymsg + strlen(head);
    char clip[LR_YANG_REF_NAME + 1];
    msg[0] = '\0';
    lr_utf8_appendf(msg, size, "invalid value \"%s\": want ",
                    lr_yang_clip_span(v, (size_t) (strstr(lymsg, tail) - v),
                                      clip));
    lr_yang_want_append(msg, size, &w);
    return true;
}

/* libyang's sentence lymsg, its first 'keep' bytes (its final '.'
 * dropped), into msg[size] (size > sizeof LR_UTF8_CUT_MARK), the value
 * it quotes (between its first and last '"') cut at LR_YANG_REF_NAME
 * bytes, at the start of a character (planner/lr_utf8.h): libyang quotes
 * the value whole, so a long one left no room for the advice that
 * follows, and snprintf() cut the message inside a character, no UTF-8
 * for the API's JSON.  The advice is then appended with
 * lr_utf8_appendf(). */
static void
lr_yang_said(char *msg, size_t size, const char *lymsg, size_t keep)
{
    const char *q1 = memchr(lymsg, '"', keep), *q2 = NULL;
    char clip[LR_YANG_REF_NAME + 1];

    for (const char *q = q1 ? q1 + 1 : NULL; q && q < lymsg + keep; q++)
        if (*q == '"')
            q2 = q;
    msg[0] = '\0';
    if (!q2) {
        lr_utf8_appendf(msg, size, "%.*s", (int) keep, lymsg);
        return;
    }
    lr_utf8_appendf(msg, size, "%.*s%s%.*s", (int) (q1 + 1 - lymsg), lymsg,
                    lr_yang_clip_span(q1 + 1, (size_t) (q2 - q1 - 1), clip),
                    (int) (lymsg + keep - q2), q2);
}

/* libyang's "Invalid enumeration value "V"." at the leaf 'path' (a
 * data path) followed by the names the enumeration takes, which libyang
 * does not say, into msg[size]; false, msg untouched, when they cannot
 * be told. */
static bool
lr_yang_enum_msg(const struct ly_ctx *ctx, const char *path,
                 const char *lymsg, char *msg, size_t size)
{
    static const char head[] = "Invalid enumeration value \"";
    size_t ml = strlen(lymsg);

    if (strncmp(lymsg, head, strlen(head)) || !ml || lymsg[ml - 1] != '.')
        return false;
    struct lr_yang_want w;
    if (!lr_yang_leaf_wants(ctx, path, &w))
        return false;
    lr_yang_said(msg, size, lymsg, ml - 1);
    lr_utf8_appendf(msg, size, "; want ");
    lr_yang_want_append(msg, size, &w);
    lr_utf8_appendf(msg, size, ".");
    return true;
}

/* The characters (UTF-8 code points) of s, up to 'max' of them, into
 * cp[]; how many s has, so more than 'max' when they do not all fit.  A
 * byte that starts no UTF-8 sequence counts as one character (libyang
 * takes only UTF-8 strings, but a misspelling quoted from its message
 * is read here too). */
static size_t
lr_yang_chars(const char *s, uint32_t *cp, size_t max)
{
    const unsigned char *p = (const unsigned char *) s;
    size_t n = 0;

    while (*p) {
        size_t len = lr_utf8_len(p);
        uint32_t c = len > 1 ? (uint32_t) (*p & (0x7f >> len)) : *p;
        if (!len)
            len = 1;
        for (size_t i = 1; i < len; i++)
            c = c << 6 | (p[i] & 0x3f);
        if (n < max && cp)
            cp[n] = c;
        n++;
        p += len;
    }
    return n;
}

/* The edits that turn a misspelling a into the name b, in characters,
 * not bytes, up to 63 characters each (more: INT_MAX): Levenshtein's
 * distance with two neighbours swapped counted as one edit, the
 * "optimal string alignment" distance (Damerau, CACM 7(3), 1964;
 * Boytsov, ACM JEA 16, 2011, section 2.2):
 *
 *   d(i, j) = min(d(i-1, j) + 1, d(i, j-1) + 1,
 *                 d(i-1, j-1) + [a_i != b_j],
 *                 d(i-2, j-2) + 1 when a_i = b_{j-1} and a_{i-1} = b_j)
 *
 * in O(|a| |b|) time, three rows kept.  A slip of one letter is one
 * edit in any script (bytes counted 3 for 械 typed for 器, until
 * 2026-12-07), and so is a slip of two keys struck in the wrong order:
 * "prot" is one edit from "port", which the rule of struct lr_yang_near
 * (fewer than half the characters) would refuse at two. */
static int
lr_yang_distance(const char *a, const char *b)
{
    uint32_t ca[63], cb[63];
    size_t la = lr_yang_chars(a, ca, 63), lb = lr_yang_chars(b, cb, 63);
    int rows[3][64];

    if (la > 63 || lb > 63)
        return INT_MAX;
    for (size_t j = 0; j <= lb; j++)
        rows[0][j] = (int) j;
    for (size_t i = 1; i <= la; i++) {
        int *row = rows[i % 3];
        const int *up = rows[(i - 1) % 3], *up2 = rows[(i + 1) % 3];
        row[0] = (int) i;
        for (size_t j = 1; j <= lb; j++) {
            int best = up[j - 1] + (ca[i - 1] != cb[j - 1]);
            if (up[j] + 1 < best)
                best = up[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (i > 1 && j > 1 && ca[i - 1] == cb[j - 2]
                && ca[i - 2] == cb[j - 1] && up2[j - 2] + 1 < best)
                best = up2[j - 2] + 1;
            row[j] = best;
        }
    }
    return rows[la % 3][lb];
}

/* What a misspelling 'value' is a slip of, found among candidates
 * offered one by one (lr_yang_near_offer()), for every "did you mean"
 * (a member name, a top-level member, a leafref's value): the one
 * closest to it, when that takes two edits or fewer, fewer than half
 * its characters (lr_yang_distance(): "ö1" is not "ä1", one letter of
 * "X" makes any name of one letter, "xy" is not "to", "B200" is not
 * "A100"), and no other is as close (of "netconf" and "restconf",
 * "retconf" means neither more than the other; of "dc1", "dc2" and
 * "dc3", "dc9" means none).  Until 2026-12-07 member names took any
 * within two edits, so "xy" was told 'did you mean "to"?', and the
 * first of two as close was suggested. */
struct lr_yang_near {
    const char *value;              /* the misspelling; borrowed */
    const void *item;               /* NULL: none yet */
    int best;                       /* its distance; 3 until one is met */
    bool tie;                       /* another met is as close */
};

#define LR_YANG_NEAR_INIT(value) { (value), NULL, 3, false }

/* Offers 'item', named 'cand', to 'n' as what n's value may be a slip
 * of; an item offered twice is one candidate, not a tie. */
static void
lr_yang_near_offer(struct lr_yang_near *n, const char *cand,
                   const void *item)
{
    int d = lr_yang_distance(n->value, cand);
    if (d < n->best) {
        n->best = d;
        n->item = item;
        n->tie = false;
    } else if (d == n->best && n->item && item != n->item) {
        n->tie = true;
    }
}

/* The item 'n' found, NULL when none is near enough (the rule above)
 * or two are as close. */
static const void *
lr_yang_near_pick(const struct lr_yang_near *n)
{
    if (!n->item || n->tie
        || 2 * (size_t) n->best >= lr_yang_chars(n->value, NULL, 0))
        return NULL;
    return n->item;
}

/* Whether a client or a file may send the schema node 'c': config
 * true data, or an operation's input (which has no config flag). */
static bool
lr_yang_sendable(const struct lysc_node *c)
{
    return c->flags & (LYS_CONFIG_W | LYS_IS_INPUT);
}

/* Offers the schema node 'c' to 'n' when it may be sent. */
static void
lr_yang_near_offer_node(struct lr_yang_near *n, const struct lysc_node *c)
{
    if (lr_yang_sendable(c))
        lr_yang_near_offer(n, c->name, c);
}

/* The member name of the schema node 'c' as a JSON document sends it
 * under 'parent' (NULL: at the top), into buf[size]: qualified,
 * "module:name", at the top and where c's module is not its parent's
 * (an augment's node: ietf-network-topology's link), as RFC 7951
 * section 4 wants; the bare name alone there is refused again. */
static const char *
lr_yang_member_name(const struct lysc_node *parent,
                    const struct lysc_node *c, char *buf, size_t size)
{
    if (parent && c->module == parent->module)
        return c->name;
    snprintf(buf, size, "%s:%s", c->module->name, c->name);
    return buf;
}

/* Follows libyang's sentence lymsg (its final '.' dropped) with what
 * to send instead of the member 'name' among the schema nodes under
 * 'parent', or at the top of 'mod' when parent is NULL, into msg[size]:
 * the one it is a slip of ('did you mean "state-dir"?', struct
 * lr_yang_near: two edits or fewer, fewer than half its characters, no
 * other as close), else those there are (lr_yang_sendable(): what a
 * file or a client may send), 'what' taking them.  False, msg emptied, when the list does not fit or is
 * empty (an augmenting module has no top-level data of its own):
 * "takes ." would tell nothing. */
static bool
lr_yang_nearest_msg(const struct lysc_node *parent,
                    const struct lysc_module *mod, const char *what,
                    const char *name, const char *lymsg, char *msg,
                    size_t size)
{
    const struct lysc_node *c, *near;
    struct lr_yang_near nearest = LR_YANG_NEAR_INIT(name);
    int len, ml = (int) strlen(lymsg) - 1;
    char qname[160];

    for (c = lys_getnext(NULL, parent, mod, 0); c;
         c = lys_getnext(c, parent, mod, 0))
        lr_yang_near_offer_node(&nearest, c);
    if ((near = lr_yang_near_pick(&nearest))) {
        len = snprintf(msg, size, "%.*s; did you mean \"%s\"?", ml, lymsg,
                       lr_yang_member_name(parent, near, qname,
                                           sizeof qname));
    } else {
        len = snprintf(msg, size, "%.*s; %s takes ", ml, lymsg, what);
        const char *sep = "";
        int n = 0;
        for (c = lys_getnext(NULL, parent, mod, 0);
             c && len >= 0 && (size_t) len < size;
             c = lys_getnext(c, parent, mod, 0)) {
            if (!lr_yang_sendable(c))
                continue;
            len += snprintf(msg + len, size - len, "%s%s", sep,
                            lr_yang_member_name(parent, c, qname,
                                                sizeof qname));
            sep = ", ";
            n++;
        }
        if (!n)
            len = -1;
        if (len >= 0 && (size_t) len < size)
            len += snprintf(msg + len, size - len, ".");
    }
    if (len < 0 || (size_t) len >= size) {
        msg[0] = '\0';
        return false;
    }
    return true;
}

/* The quoted name after 'head' at the start of lymsg, up to the quote
 * before 'mid', into name[size]; false when lymsg is not so made or the
 * name does not fit. */
static bool
lr_yang_msg_name(const char *lymsg, const char *head, const char *mid,
                 char *name, size_t size)
{
    size_t hl = strlen(head), ml = strlen(lymsg);
    const char *end;

    if (strncmp(lymsg, head, hl) || !(end = strstr(lymsg + hl, mid))
        || !ml || lymsg[ml - 1] != '.'
        || (size_t) (end - lymsg - hl) >= size)
        return false;
    memcpy(name, lymsg + hl, (size_t) (end - lymsg - hl));
    name[end - lymsg - hl] = '\0';
    return true;
}

/* libyang's "Node "X" not found as a child of "Y" node." at the data
 * path 'path' of Y, followed by what to send instead (the member meant,
 * or Y's members: lr_yang_nearest_msg()), into msg[size].  False, msg
 * untouched, when Y's schema node cannot be found. */
static bool
lr_yang_member_msg(const struct ly_ctx *ctx, const char *path,
                   const char *lymsg, char *msg, size_t size)
{
    char name[64], what[80];

    if (!lr_yang_msg_name(lymsg, "Node \"", "\" not found as a child of \"",
                          name, sizeof name))
        return false;
    const struct lysc_node *sn = lr_yang_schema_of(ctx, path);
    /* An operation's input is a body too (its members are input's:
     * lys_getnext() walks an RPC's input). */
    if (!sn || !(sn->nodetype & (LYS_CONTAINER | LYS_LIST | LYS_RPC
                                 | LYS_ACTION)))
        return false;
    snprintf(what, sizeof what, "\"%s\"", sn->name);
    return lr_yang_nearest_msg(sn, NULL, what, name, lymsg, msg, size);
}

/* libyang's sentence lymsg for the top-level member 'name' followed by
 * the top-level node of any implemented module it is a slip of (struct
 * lr_yang_near), qualified ('did you mean "ietf-network:networks"?'),
 * into msg[size]; false, msg untouched, when none is.  For a module
 * with no top-level data (ietf-network-topology, lightrail-topology
 * only augment): the node meant is another module's. */
static bool
lr_yang_top_any_msg(const struct ly_ctx *ctx, const char *name,
                    const char *lymsg, char *msg, size_t size)
{
    const struct lys_module *m;
    const struct lysc_node *near;
    struct lr_yang_near n = LR_YANG_NEAR_INIT(name);
    uint32_t idx = 0;
    char qname[160];

    while ((m = ly_ctx_get_module_iter(ctx, &idx))) {
        if (!m->implemented || !m->compiled)
            continue;
        for (const struct lysc_node *c = lys_getnext(NULL, NULL, m->compiled,
                                                     0);
             c; c = lys_getnext(c, NULL, m->compiled, 0))
            lr_yang_near_offer_node(&n, c);
    }
    if (!(near = lr_yang_near_pick(&n)))
        return false;
    int len = snprintf(msg, size, "%.*s; did you mean \"%s\"?",
                       (int) strlen(lymsg) - 1, lymsg,
                       lr_yang_member_name(NULL, near, qname, sizeof qname));
    if (len < 0 || (size_t) len >= size) {
        msg[0] = '\0';
        return false;
    }
    return true;
}

/* libyang's "Node "X" not found in the "M" module." of a document's
 * top-level member, followed by what to send instead among M's
 * top-level nodes (or, M having none, any module's: lr_yang_top_any_msg),
 * into msg[size]; false, msg untouched, when M is not implemented or
 * nothing can be told. */
static bool
lr_yang_top_msg(const struct ly_ctx *ctx, const char *lymsg, char *msg,
                size_t size)
{
    static const char mid[] = "\" not found in the \"";
    char name[64], mod[64], what[80];

    if (!lr_yang_msg_name(lymsg, "Node \"", mid, name, sizeof name))
        return false;
    const char *m = strstr(lymsg, mid) + strlen(mid);
    const char *q = strchr(m, '"');
    if (!q || (size_t) (q - m) >= sizeof mod)
        return false;
    memcpy(mod, m, (size_t) (q - m));
    mod[q - m] = '\0';
    const struct lys_module *lm = ly_ctx_get_module_implemented(ctx, mod);
    if (!lm || !lm->compiled)
        return false;
    snprintf(what, sizeof what, "\"%s\"", mod);
    return lr_yang_nearest_msg(NULL, lm->compiled, what, name, lymsg, msg,
                               size)
           || lr_yang_top_any_msg(ctx, name, lymsg, msg, size);
}

/* The digits at *p, past them; false when there is none. */
static bool
lr_yang_digits(const char **p)
{
    const char *s = *p;
    while (isdigit((unsigned char) **p))
        (*p)++;
    return *p > s;
}

/* Whether the value lymsg quotes (between its first and last '"') is
 * a JSON number whole (RFC 8259 section 6: "16", "-1", "0.5", "2e3"),
 * as it would be sent unquoted; strtod() would take "0x10" and "inf"
 * too, which JSON does not. */
static bool
lr_yang_quoted_number(const char *lymsg)
{
    const char *q1 = strchr(lymsg, '"'), *q2 = strrchr(lymsg, '"');
    if (!q1 || q2 <= q1 + 1)
        return false;
    const char *p = q1 + 1;
    if (*p == '-')
        p++;
    if (!lr_yang_digits(&p))
        return false;
    if (*p == '.' && (p++, !lr_yang_digits(&p)))
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!lr_yang_digits(&p))
            return false;
    }
    return p == q2;
}

/* libyang's refusal of a number leaf's value for its type or encoding
 * ("Invalid non-number-encoded uint32 value "5m".", "Invalid type
 * uint64 value ...", "Value "-1" is out of type uint32 min/max
 * bounds.", "Invalid 2. character of decimal64 value ...", "Invalid
 * non-string-encoded decimal64 value ...") at the leaf 'path' (a data
 * path), followed by what the leaf takes, into msg[size]: its range and
 * units, and for a JSON number where RFC 7951 wants a string, to quote
 * it, for a number sent as a string where it wants a JSON number, to
 * unquote it.  False, msg untouched, for any other message or leaf. */
static bool
lr_yang_number_msg(const struct ly_ctx *ctx, const char *path,
                   const char *lymsg, char *msg, size_t size)
{
    /* libyang 2.1.30 says "non-string-encoded" of a decimal64 and
     * "non-num64-encoded" of a 64-bit integer sent as a JSON number. */
    static const char *const heads[] = {
        "Invalid non-number-encoded ", "Invalid type ",
        "Invalid non-string-encoded ", "Invalid non-num64-encoded ",
        "Value \"",
    };
    size_t ml = strlen(lymsg);
    bool head = false;
    bool quote = !strncmp(lymsg, heads[2], strlen(heads[2]))
                 || !strncmp(lymsg, heads[3], strlen(heads[3]));
    /* A number sent as a JSON string ("16") meets the range it would be
     * told: what is wrong is the quotes. */
    bool unquote = !strncmp(lymsg, heads[0], strlen(heads[0]))
                   && lr_yang_quoted_number(lymsg);

    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
        head = head || !strncmp(lymsg, heads[i], strlen(heads[i]));
    head = head || (!strncmp(lymsg, "Invalid ", 8)
                    && strstr(lymsg, ". character of decimal64 value"));
    if (!head || !ml || lymsg[ml - 1] != '.'
        || (!strncmp(lymsg, "Value \"", 7)
            && !strstr(lymsg, " is out of type ")))
        return false;
    struct lr_yang_want w;
    const struct lysc_node_leaf *leaf = lr_yang_leaf_wants(ctx, path, &w);
    if (!leaf)
        return false;
    switch (leaf->type->basetype) {
    case LY_TYPE_UINT8: case LY_TYPE_UINT16: case LY_TYPE_UINT32:
    case LY_TYPE_UINT64: case LY_TYPE_INT8: case LY_TYPE_INT16:
    case LY_TYPE_INT32: case LY_TYPE_INT64: case LY_TYPE_DEC64:
        break;
    default:
        return false;
    }
    lr_yang_said(msg, size, lymsg, ml - 1);
    lr_utf8_appendf(msg, size, "; want ");
    lr_yang_want_append(msg, size, &w);
    lr_utf8_appendf(msg, size, "%s.", quote
                    ? ", as a JSON string (RFC 7951 quotes decimal64 and "
                      "64-bit integers)"
                    : unquote ? ", as a JSON number (RFC 7951: unquoted)"
                              : "");
    return true;
}

/* libyang's refusal of a boolean leaf's value as 'invalid value "V":
 * want true or false, unquoted' into msg[size].  RFC 7951 encodes a
 * boolean as a JSON literal, so "false" in quotes is refused too, with
 * "non-boolean-encoded", which does not tell a user to drop the quotes.
 * False, msg untouched, for any other message. */
static bool
lr_yang_bool_msg(const char *lymsg, char *msg, size_t size)
{
    static const char *const heads[] = {
        "Invalid non-boolean-encoded boolean value \"",
        "Invalid boolean value \"",
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        size_t hl = strlen(heads[i]);
        const char *end;
        if (strncmp(lymsg, heads[i], hl)
            || !(end = strrchr(lymsg + hl, '"')))
            continue;
        char clip[LR_YANG_REF_NAME + 1];
        msg[0] = '\0';
        lr_utf8_appendf(msg, size, "invalid value \"%s\": want true or "
                        "false, unquoted (a JSON boolean)",
                        lr_yang_clip_span(lymsg + hl,
                                          (size_t) (end - lymsg - hl), clip));
        return true;
    }
    return false;
}

/* What a leafref's refusal lists of the values its target holds: the
 * first LR_YANG_REF_LIST, each cut to LR_YANG_REF_NAME bytes (a name
 * takes up to 63 characters, which may be 252 bytes), so that the list
 * fits one message (lr_yang_ly_err()'s 1024 bytes) with room for
 * libyang's sentence and the path. */
#define LR_YANG_REF_LIST 8

/* The module of the prefix id[len] of the leafref 'lref', or, when len
 * is 0, of its names without a prefix (the module the path was written
 * in, which the compiled type records under a NULL prefix; else
 * 'leaf_mod').  NULL when the prefix is not the path's. */
static const struct lys_module *
lr_yang_ref_module(const struct lysc_type_leafref *lref, const char *id,
                   int len, const struct lys_module *leaf_mod)
{
    LY_ARRAY_COUNT_TYPE i;
    LY_ARRAY_FOR(lref->prefixes, i) {
        const char *pre = lref->prefixes[i].prefix;
        if (len ? pre && !strncmp(pre, id, len) && !pre[len] : !pre)
            return lref->prefixes[i].mod;
    }
    return len ? NULL : leaf_mod;
}

/* The leafref path of 'lref' into out[size] as lyd_find_xpath() reads it
 * (JSON's prefixes, RFC 7951 6.11): each name with the name of its
 * module, its prefix's or that of the names without one
 * (lr_yang_ref_module(); 'leaf_mod' is the leaf's).  libyang 2.1's
 * lyd_find_xpath4() takes the schema's own prefixes, but refuses them
 * without a module for the names without one, which it has no argument
 * for.  A function (current()) keeps its name.  False when out[] is too
 * small or a prefix is not the path's. */
static bool
lr_yang_ref_json(const struct lysc_type_leafref *lref,
                 const struct lys_module *leaf_mod, char *out, size_t size)
{
    const char *p = lyxp_get_expr(lref->path);
    size_t n = 0;

    while (*p) {
        const struct lys_module *mod = NULL;
        const char *id = p;
        int w, len;
        if (!isalpha((unsigned char) *p) && *p != '_') {
            w = snprintf(out + n, size - n, "%c", *p++);
        } else {
            while (isalnum((unsigned char) *p) || *p == '_' || *p == '-'
                   || *p == '.')
                p++;
            len = (int) (p - id);
            const char *after = p;
            while (*after == ' ' || *after == '\t')
                after++;
            if (*p == ':') {
                /* A prefix: the name after it is written as it is. */
                if (!(mod = lr_yang_ref_module(lref, id, len, leaf_mod)))
                    return false;
                w = snprintf(out + n, size - n, "%s:", mod->name);
                p++;
                id = p;
                while (isalnum((unsigned char) *p) || *p == '_'
                       || *p == '-' || *p == '.')
                    p++;
                if ((size_t) w < size - n) {
                    n += (size_t) w;
                    w = snprintf(out + n, size - n, "%.*s", (int) (p - id),
                                 id);
                }
            } else if (*after == '(') {
                w = snprintf(out + n, size - n, "%.*s", len, id);
            } else {
                mod = lr_yang_ref_module(lref, id, 0, leaf_mod);
                w = snprintf(out + n, size - n, "%s:%.*s", mod->name, len,
                             id);
            }
        }
        if (w < 0 || (size_t) w >= size - n)
            return false;
        n += (size_t) w;
    }
    return true;
}

/* The instances of the target of 'leaf' (of leafref type 'lref') in the
 * tree that holds it, into '*set' (the caller frees it with
 * ly_set_free(set, NULL)): the leafref's path evaluated from the leaf,
 * as libyang resolves it, so that a relative path reaches what the
 * leaf's own ancestors hold (a link's nodes are those of its network,
 * not another's).  False when the path cannot be evaluated. */
static bool
lr_yang_ref_targets(const struct lyd_node *leaf,
                    const struct lysc_type_leafref *lref, struct ly_set **set)
{
    char xpath[1024];

    *set = NULL;
    return lr_yang_ref_json(lref, leaf->schema->module, xpath, sizeof xpath)
           && !lyd_find_xpath(leaf, xpath, set);
}

/* The value among the nodes of 'set' that 'value' is a slip of
 * (struct lr_yang_near), NULL when none is; borrowed from the tree. */
static const char *
lr_yang_ref_nearest(const struct ly_set *set, const char *value)
{
    struct lr_yang_near n = LR_YANG_NEAR_INIT(value);

    for (uint32_t i = 0; i < set->count; i++) {
        const char *v = lyd_get_value(set->dnodes[i]);
        /* A value held twice is one name, not two as close. */
        if (v && !(n.item && !strcmp(v, n.item)))
            lr_yang_near_offer(&n, v, v);
    }
    return lr_yang_near_pick(&n);
}

/* libyang's "Invalid leafref value "V" - no target instance "P" with the
 * same value." at the leaf 'path' (a data path) of 'tree', which names
 * neither what was meant nor what there is, followed by both into
 * msg[size] (size > sizeof LR_UTF8_CUT_MARK): the value meant, when it
 * is a slip of one (lr_yang_ref_nearest()), and the values the target
 * holds in this tree, the first LR_YANG_REF_LIST and how many more.  V
 * and the values are the data's, cut at the start of a character
 * (planner/lr_utf8.h), and so is the whole message when it does not
 * fit.  False, msg untouched, for any other message, or when the leaf
 * or its target cannot be found. */
static bool
lr_yang_leafref_msg(const struct lyd_node *tree, const char *path,
                    const char *lymsg, char *msg, size_t size)
{
    static const char head[] = "Invalid leafref value \"";
    static const char tail[] = "\" with the same value.";
    size_t ml = strlen(lymsg), tl = strlen(tail);
    struct lyd_node *leaf = NULL;
    struct ly_set *set = NULL;

    if (!tree || strncmp(lymsg, head, strlen(head)) || ml < tl
        || strcmp(lymsg + ml - tl, tail)
        || lyd_find_path(tree, path, 0, &leaf) || !leaf->schema
        || !(leaf->schema->nodetype & (LYS_LEAF | LYS_LEAFLIST)))
        return false;
    const struct lysc_type *t = ((const struct lysc_node_leaf *)
                                 leaf->schema)->type;
    const char *value = lyd_get_value(leaf);
    if (t->basetype != LY_TYPE_LEAFREF || !value
        || !lr_yang_ref_targets(leaf, (const void *) t, &set))
        return false;
    const struct lysc_type_leafref *lref = (const void *) t;
    const char *near = lr_yang_ref_nearest(set, value);

    msg[0] = '\0';
    /* libyang's sentence without its final '.': it goes on. */
    lr_utf8_appendf(msg, size, "%s%s\" - no target instance \"%s%.*s",
                    head, LR_UTF8_CLIP(value, LR_YANG_REF_NAME),
                    lyxp_get_expr(lref->path), (int) tl - 1, tail);
    if (near)
        lr_utf8_appendf(msg, size, "; did you mean \"%s\"? Want one of ",
                        LR_UTF8_CLIP(near, LR_YANG_REF_NAME));
    else if (set->count)
        lr_utf8_appendf(msg, size, "; want one of ");
    else
        lr_utf8_appendf(msg, size, "; there is none at all.");
    /* Lightrail's leafrefs point at list keys, so the values are
     * distinct. */
    for (uint32_t i = 0; i < set->count && i < LR_YANG_REF_LIST; i++) {
        const char *v = lyd_get_value(set->dnodes[i]);
        lr_utf8_appendf(msg, size, "%s\"%s\"", i ? ", " : "",
                        LR_UTF8_CLIP(v ? v : "", LR_YANG_REF_NAME));
    }
    if (set->count > LR_YANG_REF_LIST)
        lr_utf8_appendf(msg, size, " and %" PRIu32 " more",
                        set->count - LR_YANG_REF_LIST);
    if (set->count)
        lr_utf8_appendf(msg, size, ".");
    ly_set_free(set, NULL);
    return true;
}

const char *
lr_yang_better_msg(const struct ly_ctx *ctx, const struct lyd_node *tree,
                   const char *path, const char *lymsg, char *buf,
                   size_t size)
{
    if (!path[0] && lr_yang_top_msg(ctx, lymsg, buf, size))
        return buf;
    if (path[0] && (lr_yang_union_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_leafref_msg(tree, path, lymsg, buf, size)
                    || lr_yang_count_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_bound_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_enum_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_member_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_number_msg(ctx, path, lymsg, buf, size)
                    || lr_yang_bool_msg(lymsg, buf, size)))
        return buf;
    return lymsg;
}

/* Why the first error and not the last: libyang records the root cause
 * first and then, sometimes, a consequence of it. */
int
lr_yang_tree_err(const struct ly_ctx *ctx, const struct lyd_node *tree,
                 int rc, const char *file, char *err, size_t errlen)
{
    const struct ly_err_item *e = ly_err_first(ctx);
    char path[1024], where[64], want[1024];
    long line;
    int schema;

    while (e && e->level != LY_LLERR)
        e = e->next;
    if (!e) {
        lr_yang_errf(err, errlen, file, NULL, "libyang error %d", rc);
    } else {
        const char *msg = e->msg ? e->msg : "invalid data";
        lr_yang_split_location(e->path, path, sizeof path, &schema, &line);
        msg = lr_yang_better_msg(ctx, tree, path, msg, want, sizeof want);
        if (path[0] && line)
            lr_yang_errf(err, errlen, file, path, "%s (line %ld)", msg, line);
        else if (path[0])
            lr_yang_errf(err, errlen, file, path, "%s", msg);
        else if (line) {
            snprintf(where, sizeof where, "line %ld", line);
            lr_yang_errf(err, errlen, file, where, "%s", msg);
        } else
            lr_yang_errf(err, errlen, file, NULL, "%s", msg);
    }
    return rc == LY_EMEM ? ENOMEM : EINVAL;
}

int
lr_yang_ly_err(const struct ly_ctx *ctx, int rc, const char *file,
               char *err, size_t errlen)
{
    return lr_yang_tree_err(ctx, NULL, rc, file, err, errlen);
}

int
lr_yang_print_doc(struct ly_ctx *ctx, LY_ERR rc, struct lyd_node *root,
                  const char *doc, const char *range, char **out, char *err,
                  size_t errlen)
{
    char *text = NULL;
    int ret = 0;

    if (range && rc == LY_EINVAL && !ly_err_first(ctx)) {
        lr_yang_errf(err, errlen, doc, NULL, "%s", range);
        ret = EINVAL;
        goto cleanup;
    }
    if (!rc)
        rc = lyd_validate_all(&root, ctx, LYD_VALIDATE_PRESENT, NULL);
    if (!rc)
        rc = lyd_print_mem(&text, root, LYD_JSON, LYD_PRINT_WITHSIBLINGS);
    if (rc)
        ret = lr_yang_tree_err(ctx, root, rc, doc, err, errlen);

cleanup:
    lyd_free_all(root);
    if (ret) {
        free(text);
        text = NULL;
    }
    *out = text;
    return ret;
}

static LY_ERR
lr_yang_import_clb(const char *mod_name, const char *mod_rev,
                   const char *submod_name, const char *submod_rev,
                   void *user_data, LYS_INFORMAT *format,
                   const char **module_data,
                   ly_module_imp_data_free_clb *free_module_data)
{
    if (submod_name)
        return LY_ENOTFOUND;
    for (const struct lr_yang_embedded *m = lr_yang_embedded; m->name; m++) {
        if (strcmp(m->name, mod_name))
            continue;
        if (mod_rev && m->revision && strcmp(m->revision, mod_rev))
            continue;
        *format = LYS_IN_YANG;
        *module_data = m->text;
        *free_module_data = NULL;
        return LY_SUCCESS;
    }
    return LY_ENOTFOUND;
}

int
lr_yang_ctx_new(struct ly_ctx **ctxp, char *err, size_t errlen)
{
    struct ly_ctx *ctx = NULL;
    int ret = 0;

    *ctxp = NULL;
    /* Process-wide, because libyang's validation restores the global
     * options whenever it ends a temporary override of its own, so
     * per-thread ly_temp_log_options() does not hold. */
    ly_log_options(LY_LOSTORE);
    /* No search directories at all: a module found on the disk of the
     * machine we run on could differ from the one we were built with.
     * libyang's own ietf-yang-library (compiled into libyang, as its
     * neighbours ietf-datastores and ietf-yang-types) is implemented:
     * lightraild serves the library of its API from this context
     * (RFC 8040 section 10, lr_yang_restconf.h). */
    LY_ERR rc = ly_ctx_new(NULL, LY_CTX_DISABLE_SEARCHDIRS, &ctx);
    if (rc) {
        lr_yang_errf(err, errlen, "libyang", NULL,
                     "cannot create a context (error %d)", (int) rc);
        ret = rc == LY_EMEM ? ENOMEM : EINVAL;
        goto cleanup;
    }
    ly_ctx_set_module_imp_clb(ctx, lr_yang_import_clb, NULL);
    for (size_t i = 0; i < sizeof lr_yang_implemented
                           / sizeof lr_yang_implemented[0]; i++) {
        if (!ly_ctx_load_module(ctx, lr_yang_implemented[i], NULL, NULL)) {
            ret = lr_yang_ly_err(ctx, ly_errcode(ctx), lr_yang_implemented[i],
                                 err, errlen);
            goto cleanup;
        }
    }

cleanup:
    if (ret) {
        ly_ctx_destroy(ctx);
        ctx = NULL;
    }
    *ctxp = ctx;
    return ret;
}

void
lr_yang_ctx_free(struct ly_ctx *ctx)
{
    ly_ctx_destroy(ctx);
}

int
lr_yang_read_file(const char *path, char **bufp, size_t *lenp,
                  char *err, size_t errlen)
{
    FILE *f = NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ret = 0;

    *bufp = NULL;
    *lenp = 0;
    f = fopen(path, "rb");
    if (!f) {
        ret = errno ? errno : EIO;
        lr_yang_errf(err, errlen, path, NULL, "%s", strerror(ret));
        goto cleanup;
    }
    /* Read in growing chunks rather than trusting a size from stat():
     * pipes and /proc files report none. */
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= LR_YANG_MAX_FILE) {
                ret = EFBIG;
                lr_yang_errf(err, errlen, path, NULL,
                             "larger than %u MiB", LR_YANG_MAX_FILE >> 20);
                goto cleanup;
            }
            size_t ncap = cap ? 2 * cap : 16384;
            char *p = realloc(buf, ncap + 1);
            if (!p) {
                ret = ENOMEM;
                lr_yang_errf(err, errlen, path, NULL, "out of memory");
                goto cleanup;
            }
            buf = p;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        ret = errno ? errno : EIO;
        lr_yang_errf(err, errlen, path, NULL, "%s", strerror(ret));
        goto cleanup;
    }
    buf[len] = '\0';

cleanup:
    if (f)
        fclose(f);
    if (ret) {
        free(buf);
        buf = NULL;
        len = 0;
    }
    *bufp = buf;
    *lenp = len;
    return ret;
}

/* One json-c pass over text[len]: whether the text holds a whole value
 * (*end: where what follows it, blanks skipped, starts), is cut short
 * inside one (not blanks alone), or neither (malformed: libyang has the
 * last word; *end = len).  lr_yang_parse() asks both questions of one
 * pass. */
enum json_shape { JSON_WHOLE, JSON_CUT, JSON_OTHER };

static enum json_shape
json_scan(const char *text, size_t len, size_t *end)
{
    enum json_shape shape = JSON_OTHER;
    *end = len;
    json_tokener *tok = len <= INT_MAX ? json_tokener_new() : NULL;
    if (!tok)
        return shape;
    /* Not JSON_TOKENER_STRICT: that makes text after the value an error
     * with no object, where this wants the object and its end. */
    json_object *top = json_tokener_parse_ex(tok, text, (int) len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (top && e == json_tokener_success) {
        size_t used = json_tokener_get_parse_end(tok);
        while (used < len && lr_yang_json_space(text[used]))
            used++;
        *end = used;
        shape = JSON_WHOLE;
    } else if (!top && e == json_tokener_continue) {
        /* Nothing but blanks is no document, which each loader names. */
        for (size_t i = 0; i < len && shape == JSON_OTHER; i++)
            if (!lr_yang_json_space(text[i]))
                shape = JSON_CUT;
    }
    json_object_put(top);
    json_tokener_free(tok);
    return shape;
}

/* The line (from 1) of text[at], 'at' <= len. */
static long
json_line(const char *text, size_t at)
{
    long line = 1;
    for (size_t i = 0; i < at; i++)
        line += text[i] == '\n';
    return line;
}

/* 0 when 'module':'top' is the one top-level node of 'tree' (or the tree
 * is empty: the caller says what is missing); else EINVAL with err
 * naming the node that is not (another module's data, ietf-yang-library's
 * state...), or, when 'top' is absent, saying that the document is not
 * one of 'module' at all. */
static int
lr_yang_only_top(const struct lyd_node *tree, const char *module,
                 const char *top, const char *holder, const char *name,
                 char *err, size_t errlen)
{
    if (tree && !lr_yang_sibling(tree, module, top)) {
        char where[128];
        snprintf(where, sizeof where, "/%s:%s", module, top);
        if (tree->schema)
            lr_yang_errf(err, errlen, name, where, "missing: not a %s "
                         "file (its first top-level member is \"%s:%s\")",
                         module, tree->schema->module->name,
                         tree->schema->name);
        else
            lr_yang_errf(err, errlen, name, where, "missing: not a %s "
                         "file", module);
        return EINVAL;
    }
    for (const struct lyd_node *n = tree; n; n = n->next)
        if (!n->schema || strcmp(n->schema->name, top)
            || strcmp(n->schema->module->name, module))
            return lr_yang_node_err(err, errlen, name, n, "%s holds %s "
                                    "data only: its one top-level member "
                                    "is \"%s:%s\"; remove this one",
                                    holder, module, module, top);
    return 0;
}

int
lr_yang_parse(struct ly_ctx *ctx, const char *data, size_t len,
              const char *name, const char *module, const char *top,
              const char *holder, struct lyd_node **treep,
              char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    char *copy = NULL;
    int ret = 0;

    *treep = NULL;
    /* libyang reads NUL-terminated text: a NUL inside would silently cut
     * the document short. */
    if (memchr(data, '\0', len)) {
        lr_yang_errf(err, errlen, name, NULL,
                     "contains a NUL byte at offset %zu",
                     (size_t) ((const char *) memchr(data, '\0', len) - data));
        ret = EINVAL;
        goto cleanup;
    }
    copy = malloc(len + 1);
    if (!copy) {
        lr_yang_errf(err, errlen, name, NULL, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    memcpy(copy, data, len);
    copy[len] = '\0';

    ly_err_clean(ctx, NULL);
    /* Strict: an unknown member is an error, never dropped.  Validation
     * is a separate step so that only the modules present in the file are
     * validated (LYD_VALIDATE_PRESENT): a topology file need not satisfy
     * lightrail-compute's mandatory nodes. */
    LY_ERR rc = lyd_parse_data_mem(ctx, copy, LYD_JSON,
                                   LYD_PARSE_STRICT | LYD_PARSE_ONLY, 0,
                                   &tree);
    if (rc) {
        ret = lr_yang_ly_err(ctx, rc, name, err, errlen);
        goto cleanup;
    }
    /* Before validation: a foreign top-level node (another module's
     * data, ietf-yang-library's state) is never the document's and
     * would otherwise be stored with it; validated first, it would be
     * refused for a mandatory node of its own module, which says nothing
     * of what is wrong. */
    ret = lr_yang_only_top(tree, module, top, holder, name, err, errlen);
    if (ret)
        goto cleanup;
    rc = lyd_validate_all(&tree, ctx, LYD_VALIDATE_PRESENT, NULL);
    if (rc) {
        ret = lr_yang_tree_err(ctx, tree, rc, name, err, errlen);
        goto cleanup;
    }
    /* libyang takes a text cut short after a top-level member's name
     * ('{"ietf-network:networks": ', a copy interrupted) for a document
     * without that member, and the caller would report it missing. */
    size_t end;
    enum json_shape shape = json_scan(copy, len, &end);
    if (shape == JSON_CUT) {
        lr_yang_errf(err, errlen, name, NULL,
                     "malformed JSON: the text ends inside its object "
                     "(line %ld): is the file cut short?",
                     json_line(copy, len));
        ret = EINVAL;
        goto cleanup;
    }
    /* libyang stops after the first JSON object and ignores the rest
     * (two documents run together, a merge's leftovers). */
    if (end < len) {
        lr_yang_errf(err, errlen, name, NULL,
                     "text after the JSON object (line %ld): one object "
                     "per file", json_line(copy, end));
        ret = EINVAL;
        goto cleanup;
    }

cleanup:
    free(copy);
    if (ret) {
        lyd_free_all(tree);
        tree = NULL;
    }
    *treep = tree;
    return ret;
}

struct lyd_node *
lr_yang_sibling(const struct lyd_node *first, const char *module,
                const char *name)
{
    for (const struct lyd_node *n = first; n; n = n->next)
        if (n->schema && !strcmp(n->schema->name, name)
            && !strcmp(n->schema->module->name, module))
            return (struct lyd_node *) n;
    return NULL;
}

struct lyd_node *
lr_yang_child(const struct lyd_node *parent, const char *module,
              const char *name)
{
    return lr_yang_sibling(lyd_child(parent), module, name);
}

struct lyd_node *
lr_yang_next_same(const struct lyd_node *node)
{
    for (const struct lyd_node *n = node->next; n; n = n->next)
        if (n->schema == node->schema)
            return (struct lyd_node *) n;
    return NULL;
}

const char *
lr_yang_leaf(const struct lyd_node *parent, const char *module,
             const char *name)
{
    const struct lyd_node *n = lr_yang_child(parent, module, name);
    return n ? lyd_get_value(n) : NULL;
}

int
lr_yang_resolve(const char *dir, const char *rel, char *dst, size_t size,
                const char *file, const struct lyd_node *node, char *err,
                size_t errlen)
{
    size_t dl = strlen(dir);
    int n = rel[0] == '/' || !dl ? snprintf(dst, size, "%s", rel)
            : dir[dl - 1] == '/' ? snprintf(dst, size, "%s%s", dir, rel)
                                 : snprintf(dst, size, "%s/%s", dir, rel);
    if (n < 0 || (size_t) n >= size) {
        dst[0] = '\0';
        lr_yang_node_err(err, errlen, file, node,
                         "the path resolved against '%s' is longer than "
                         "%zu bytes", dir, size - 1);
        return ENAMETOOLONG;
    }
    return 0;
}

int
lr_yang_load_top(struct ly_ctx *ctx, const char *path, const char *module,
                 const char *name, const char *holder, struct lyd_node **tree,
                 const struct lyd_node **top, char **dir, char *err,
                 size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    int ret;

    *tree = NULL;
    *top = NULL;
    *dir = NULL;
    ret = lr_yang_read_file(path, &buf, &len, err, errlen);
    if (ret)
        goto cleanup;
    ret = lr_yang_parse(ctx, buf, len, path, module, name, holder, tree,
                        err, errlen);
    if (ret)
        goto cleanup;
    *top = lr_yang_sibling(*tree, module, name);
    if (!*top) {
        char where[128];
        snprintf(where, sizeof where, "/%s:%s", module, name);
        lr_yang_errf(err, errlen, path, where, "missing: not a %s file",
                     module);
        ret = EINVAL;
        goto cleanup;
    }
    *dir = strdup(path);
    if (!*dir) {
        lr_yang_errf(err, errlen, path, NULL, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    char *slash = strrchr(*dir, '/');
    if (!slash)
        (*dir)[0] = '\0';
    else if (slash == *dir)
        (*dir)[1] = '\0';
    else
        *slash = '\0';

cleanup:
    free(buf);
    return ret;
}

int
lr_yang_add_err(int rc, char *err, size_t errlen, const char *file,
                const struct lyd_node *node, const char *what)
{
    if (rc == ENOMEM) {
        lr_yang_errf(err, errlen, file, NULL, "out of memory");
        return ENOMEM;
    }
    return lr_yang_node_err(err, errlen, file, node, "cannot add %s: %s",
                            what, strerror(rc));
}

LY_ERR
lr_yang_term_text(struct lyd_node *parent, const struct lys_module *mod,
                  const char *name, const char *text, bool output)
{
    char *clean = text ? lr_utf8_dup(text) : NULL;
    if (text && !clean)
        return LY_EMEM;
    LY_ERR rc = lyd_new_term(parent, mod, name, clean, output, NULL);
    free(clean);
    return rc;
}

void
lr_yang_copy_line(char *dst, size_t size, const char *src)
{
    if (!dst || !size)
        return;
    snprintf(dst, size, "%s", src);
    for (unsigned char *p = (unsigned char *) dst; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

bool
lr_yang_json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

size_t
lr_yang_json_end(const char *text, size_t len, long *line)
{
    size_t end;
    json_scan(text, len, &end);
    if (line)      /* counted only where there is something to say */
        *line = end < len ? json_line(text, end) : 1;
    return end;
}

LY_ERR
lr_yang_term_bool(struct lyd_node *parent, const struct lys_module *mod,
                  const char *name, bool b, bool output)
{
    return lyd_new_term(parent, mod, name, b ? "true" : "false", output,
                        NULL);
}

LY_ERR
lr_yang_termf(struct lyd_node *parent, const struct lys_module *mod,
              const char *name, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return lyd_new_term(parent, mod, name, buf, 0, NULL);
}

const struct lys_module *
lr_yang_module(struct ly_ctx *ctx, const char *name, const char *doc,
               char *err, size_t errlen)
{
    const struct lys_module *mod = ly_ctx_get_module_implemented(ctx, name);
    if (!mod)
        lr_yang_errf(err, errlen, doc, NULL, "%s is not in the context",
                     name);
    return mod;
}
