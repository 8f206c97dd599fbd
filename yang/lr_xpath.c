/*
 * lr_xpath: XPath 1.0 parsed into a tree.  See lr_xpath.h.
 *
 * The model (XPath 1.0, section 3, productions renumbered as there):
 *   Expr          ::= OrExpr
 *   OrExpr        ::= AndExpr ('or' AndExpr)*
 *   AndExpr       ::= EqualityExpr ('and' EqualityExpr)*
 *   EqualityExpr  ::= RelationalExpr (('=' | '!=') RelationalExpr)*
 *   RelationalExpr::= AdditiveExpr (('<' | '>' | '<=' | '>=') AdditiveExpr)*
 *   AdditiveExpr  ::= MultiplicativeExpr (('+' | '-') MultiplicativeExpr)*
 *   MultiplicativeExpr ::= UnaryExpr (('*' | 'div' | 'mod') UnaryExpr)*
 *   UnaryExpr     ::= '-'* UnionExpr
 *   UnionExpr     ::= PathExpr ('|' PathExpr)*
 *   PathExpr      ::= LocationPath | FilterExpr (('/' | '//')
 *                     RelativeLocationPath)?
 *   FilterExpr    ::= PrimaryExpr Predicate*
 *   PrimaryExpr   ::= VariableReference | '(' Expr ')' | Literal | Number
 *                   | FunctionCall
 *   (VariableReference ::= '$' QName is refused: no variable is bound.)
 *   LocationPath  ::= '/' RelativeLocationPath? | '//' RelativeLocationPath
 *                   | RelativeLocationPath
 *   RelativeLocationPath ::= Step (('/' | '//') Step)*
 *   Step          ::= AxisSpecifier NodeTest Predicate* | '.' | '..'
 *   AxisSpecifier ::= AxisName '::' | '@'?
 *   NodeTest      ::= NameTest | NodeType '(' ')'
 *                   | 'processing-instruction' '(' Literal ')'
 *
 * Our implementation: the text is first cut into tokens (section 3.7,
 * as libyang reads it: lr_xpath.h), then read by one function per
 * production, left-associative operators in loops, so that the C stack
 * grows only with brackets (LR_XPATH_DEPTH).  Each node is appended to
 * one array, at most one per token and one per step or path: its size
 * is bounded by the text's length before the parse starts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_utf8.h"
#include "yang/lr_xpath.h"

enum xp_tok {
    TK_END, TK_NAME, TK_STAR, TK_FUNC, TK_NODETYPE, TK_AXIS, TK_AT,
    TK_DOT, TK_DOTS, TK_LPAR, TK_RPAR, TK_LBR, TK_RBR, TK_COMMA,
    TK_SLASH, TK_DSLASH, TK_PIPE, TK_PLUS, TK_MINUS, TK_MUL, TK_DIV,
    TK_MOD, TK_AND, TK_OR, TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_LITERAL, TK_NUMBER,
};

struct xp_token {
    enum xp_tok kind;
    unsigned pos, len;
};

struct xp_parser {
    const char *text;
    struct xp_token *tok;
    int ntok, cur, depth;
    struct lr_xpath *x;
    struct lr_xpath_err *err;
};

/* XPath's white space (production [39]). */
static bool
xp_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* An NCName's first byte: a letter, '_', or a byte of a UTF-8 sequence,
 * all of which count (libyang then refuses a character that is no
 * letter, so erring this way lets by nothing it would take). */
static bool
xp_name_start(char c)
{
    unsigned char u = (unsigned char) c;
    return u >= 0x80 || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')
           || u == '_';
}

static bool
xp_name_char(char c)
{
    return xp_name_start(c) || (c >= '0' && c <= '9') || c == '-'
           || c == '.';
}

static bool
xp_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int
xp_fail(struct xp_parser *p, unsigned pos, const char *fmt, ...)
{
    va_list ap;
    p->err->pos = pos;
    va_start(ap, fmt);
    /* A message quotes the client's text and goes into a JSON answer:
     * one past msg is cut at the start of a character, and marked. */
    lr_utf8_vsetf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    return EINVAL;
}

/* How many of the n bytes at 's' to quote when at most 'max' may be:
 * all when they fit, else up to the start of the character that
 * straddles 'max' (a name is any bytes past ASCII). */
static unsigned
xp_quote_len(const char *s, unsigned n, unsigned max)
{
    if (n <= max)
        return n;
    while (max > 0 && ((unsigned char) s[max] & 0xc0) == 0x80)
        max--;
    return max;
}

/* Whether a token of kind 'k' ends an operand, after which '*' and the
 * operator names are operators (section 3.7; libyang's list). */
static bool
xp_after_operand(enum xp_tok k)
{
    switch (k) {
    case TK_NAME: case TK_STAR: case TK_DOT: case TK_DOTS: case TK_RPAR:
    case TK_RBR: case TK_LITERAL: case TK_NUMBER:
        return true;
    default:
        return false;
    }
}

/* The length of the NCName at 's' (0: none). */
static unsigned
xp_ncname(const char *s)
{
    unsigned n = 0;
    if (!xp_name_start(s[0]))
        return 0;
    while (xp_name_char(s[n]))
        n++;
    return n;
}

/* One punctuation or operator token at 's': its kind and length, or
 * TK_END when 's' begins none. */
static enum xp_tok
xp_symbol(const char *s, unsigned *len)
{
    static const struct { const char *s; enum xp_tok k; } sym[] = {
        { "//", TK_DSLASH }, { "!=", TK_NE }, { "<=", TK_LE },
        { ">=", TK_GE }, { "..", TK_DOTS }, { "(", TK_LPAR },
        { ")", TK_RPAR }, { "[", TK_LBR }, { "]", TK_RBR },
        { "@", TK_AT }, { ",", TK_COMMA }, { "/", TK_SLASH },
        { "|", TK_PIPE }, { "+", TK_PLUS }, { "-", TK_MINUS },
        { "=", TK_EQ }, { "<", TK_LT }, { ">", TK_GT },
    };
    for (size_t i = 0; i < sizeof sym / sizeof *sym; i++) {
        size_t n = strlen(sym[i].s);
        if (!strncmp(s, sym[i].s, n)) {
            *len = (unsigned) n;
            return sym[i].k;
        }
    }
    return TK_END;
}

/* A name at 's' (after no operand): a name test with its prefix, or a
 * function's or node type's name when '(' follows, an axis when '::'
 * does; the length in '*len' (an axis: up to its '::' included). */
static int
xp_lex_name(struct xp_parser *p, unsigned pos, struct xp_token *t)
{
    const char *s = p->text + pos;
    unsigned n = xp_ncname(s), after;
    if (!n)
        return xp_fail(p, pos, "'%c' begins no name, number or operator",
                       *s);
    t->kind = TK_NAME;
    if (s[n] == ':' && s[n + 1] != ':') {
        if (s[n + 1] == '*') {
            t->len = n + 2;
            return 0;
        }
        unsigned m = xp_ncname(s + n + 1);
        if (!m)
            return xp_fail(p, pos + n + 1, "a name must follow the "
                           "prefix '%.*s:'", (int) n, s);
        n += 1 + m;
    }
    for (after = n; xp_ws(s[after]); after++)
        ;
    if (s[after] == '(') {
        static const char *const types[] = {
            "node", "text", "comment", "processing-instruction",
        };
        t->kind = TK_FUNC;
        for (size_t i = 0; i < sizeof types / sizeof *types; i++)
            if (strlen(types[i]) == n && !strncmp(s, types[i], n))
                t->kind = TK_NODETYPE;
    } else if (s[after] == ':' && s[after + 1] == ':' && !memchr(s, ':', n)) {
        /* XPath 1.0 3.7 allows blanks around '::', but libyang 2.1.30
         * takes a name as an axis only when '::' touches it, and the
         * node test only when it touches '::': it refuses the rest
         * ("perhaps child is supposed to be a function call"), so the
         * tree would be of an expression libyang never evaluates. */
        if (after > n)
            return xp_fail(p, pos + n, "a blank between the axis '%.*s' "
                           "and its '::': send %.*s:: with no blank",
                           (int) n, s, (int) n, s);
        if (xp_ws(s[after + 2]))
            return xp_fail(p, pos + after + 2, "a blank after the axis "
                           "'%.*s::': send the node test right after "
                           "the '::'", (int) n, s);
        t->kind = TK_AXIS;
        t->len = after + 2;
        return 0;
    }
    t->len = n;
    return 0;
}

/* The token at 'pos', after a token of kind 'prev' (TK_END: none). */
static int
xp_lex_one(struct xp_parser *p, unsigned pos, enum xp_tok prev,
           struct xp_token *t)
{
    const char *s = p->text + pos;
    t->pos = pos;
    if (*s == '\'' || *s == '"') {
        const char *q = strchr(s + 1, *s);
        if (!q)
            return xp_fail(p, pos, "the literal opened here has no "
                           "closing %c", *s);
        t->kind = TK_LITERAL;
        t->len = (unsigned) (q - s) + 1;
        return 0;
    }
    if (xp_digit(*s) || (*s == '.' && xp_digit(s[1]))) {
        unsigned n = 0;
        while (xp_digit(s[n]))
            n++;
        if (s[n] == '.')
            for (n++; xp_digit(s[n]); n++)
                ;
        t->kind = TK_NUMBER;
        t->len = n;
        return 0;
    }
    if (*s == '.' && s[1] != '.') {
        t->kind = TK_DOT;
        t->len = 1;
        return 0;
    }
    if (*s == '$') {
        /* A VariableReference (production [36]) parses, but the where
         * is evaluated with no variable bound (libyang 2.1.30: "XPath
         * variable "p" not defined.", found only when it evaluates):
         * refused here, at its byte, with what to send instead. */
        unsigned n = xp_ncname(s + 1);
        /* Its name is a QName: the advice quotes the prefix too. */
        if (n && s[1 + n] == ':' && xp_ncname(s + 2 + n))
            n += 1 + xp_ncname(s + 2 + n);
        return xp_fail(p, pos, "variables are not supported: write the "
                       "value in place of '$%.*s%s'",
                       (int) xp_quote_len(s + 1, n, 20), s + 1,
                       n > 20 ? "..." : "");
    }
    if ((t->kind = xp_symbol(s, &t->len)) != TK_END)
        return 0;
    if (xp_after_operand(prev)) {
        static const struct { const char *s; enum xp_tok k; } ops[] = {
            { "*", TK_MUL }, { "or", TK_OR }, { "and", TK_AND },
            { "mod", TK_MOD }, { "div", TK_DIV },
        };
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (!strncmp(s, ops[i].s, strlen(ops[i].s))) {
                t->kind = ops[i].k;
                t->len = (unsigned) strlen(ops[i].s);
                return 0;
            }
        return xp_fail(p, pos, "an operator was expected after the "
                       "operand before it");
    }
    if (*s == '*') {
        t->kind = TK_STAR;
        t->len = 1;
        return 0;
    }
    return xp_lex_name(p, pos, t);
}

/* Cuts p->text into p->tok (allocated: one more than its length can
 * hold, for TK_END). */
static int
xp_lex(struct xp_parser *p)
{
    size_t n = strlen(p->text);
    unsigned pos = 0;
    enum xp_tok prev = TK_END;
    if (!(p->tok = malloc((n + 1) * sizeof *p->tok)))
        return ENOMEM;
    for (;;) {
        while (xp_ws(p->text[pos]))
            pos++;
        struct xp_token *t = &p->tok[p->ntok++];
        if (!p->text[pos]) {
            *t = (struct xp_token) { TK_END, pos, 0 };
            return 0;
        }
        int rc = xp_lex_one(p, pos, prev, t);
        if (rc)
            return rc;
        pos += t->len;
        prev = t->kind;
    }
}

static const struct xp_token *
xp_peek(const struct xp_parser *p)
{
    return &p->tok[p->cur];
}

/* What a token is, for an error: its text, or "the end". */
static int
xp_expected(struct xp_parser *p, const char *what)
{
    const struct xp_token *t = xp_peek(p);
    if (t->kind == TK_END)
        return xp_fail(p, t->pos, "%s was expected, found the end", what);
    return xp_fail(p, t->pos, "%s was expected, found '%.*s'", what,
                   (int) (t->len > 20 ? 20 : t->len), p->text + t->pos);
}

/* A new node of 'kind' named by token 't', its links none. */
static int
xp_node(struct xp_parser *p, enum lr_xpath_kind kind, const struct xp_token *t)
{
    int i = p->x->n++;
    p->x->node[i] = (struct lr_xpath_node) {
        .kind = kind, .pos = t->pos, .len = t->len, .end = t->pos + t->len,
        .parent = -1, .child = -1, .next = -1,
    };
    return i;
}

/* Appends 'c' to the children of 'parent', which then ends where it
 * does (or later). */
static void
xp_adopt(struct xp_parser *p, int parent, int c)
{
    struct lr_xpath_node *n = p->x->node;
    n[c].parent = parent;
    if (n[parent].child < 0)
        n[parent].child = c;
    else {
        int k = n[parent].child;
        while (n[k].next >= 0)
            k = n[k].next;
        n[k].next = c;
    }
    if (n[c].end > n[parent].end)
        n[parent].end = n[c].end;
}

static int xp_expr(struct xp_parser *p, int *out);

/* One level of brackets more (the caller leaves it with p->depth--). */
static int
xp_enter(struct xp_parser *p)
{
    if (++p->depth > LR_XPATH_DEPTH) {
        p->err->deep = true;
        return xp_fail(p, xp_peek(p)->pos, "brackets nest more than %d "
                       "deep", LR_XPATH_DEPTH);
    }
    return 0;
}

/* Predicate*, appended to node 'owner'. */
static int
xp_preds(struct xp_parser *p, int owner)
{
    while (xp_peek(p)->kind == TK_LBR) {
        int pr = xp_node(p, LR_XPATH_PRED, xp_peek(p)), e, rc;
        p->cur++;
        if ((rc = xp_enter(p)) || (rc = xp_expr(p, &e)))
            return rc;
        p->depth--;
        xp_adopt(p, pr, e);
        if (xp_peek(p)->kind != TK_RBR)
            return xp_expected(p, "']' closing the predicate");
        p->x->node[pr].end = xp_peek(p)->pos + 1;
        p->cur++;
        xp_adopt(p, owner, pr);
    }
    return 0;
}

/* The axis named by token 't' (its text up to '::'). */
static int
xp_axis(struct xp_parser *p, const struct xp_token *t, int *axis)
{
    static const char *const names[] = {
        [LR_XPATH_CHILD] = "child", [LR_XPATH_ATTRIBUTE] = "attribute",
        [LR_XPATH_SELF] = "self", [LR_XPATH_PARENT] = "parent",
        [LR_XPATH_ANCESTOR] = "ancestor",
        [LR_XPATH_ANCESTOR_OR_SELF] = "ancestor-or-self",
        [LR_XPATH_DESCENDANT] = "descendant",
        [LR_XPATH_DESCENDANT_OR_SELF] = "descendant-or-self",
        [LR_XPATH_FOLLOWING] = "following",
        [LR_XPATH_FOLLOWING_SIBLING] = "following-sibling",
        [LR_XPATH_PRECEDING] = "preceding",
        [LR_XPATH_PRECEDING_SIBLING] = "preceding-sibling",
        [LR_XPATH_NAMESPACE] = "namespace",
    };
    unsigned n = xp_ncname(p->text + t->pos);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == n && !strncmp(p->text + t->pos, names[i], n)) {
            *axis = (int) i;
            return 0;
        }
    return xp_fail(p, t->pos, "'%.*s' is no axis", (int) n, p->text + t->pos);
}

/* Whether a step can begin at the current token. */
static bool
xp_step_start(const struct xp_parser *p)
{
    switch (xp_peek(p)->kind) {
    case TK_NAME: case TK_STAR: case TK_NODETYPE: case TK_AXIS: case TK_AT:
    case TK_DOT: case TK_DOTS:
        return true;
    default:
        return false;
    }
}

/* Step, appended to path 'path'; 'desc' when after '//'. */
static int
xp_step(struct xp_parser *p, int path, bool desc)
{
    const struct xp_token *t = xp_peek(p);
    int axis = LR_XPATH_CHILD, rc;
    unsigned axis_pos = t->pos;
    bool at = false;
    if (t->kind == TK_DOT || t->kind == TK_DOTS) {
        int s = xp_node(p, LR_XPATH_STEP, t);
        p->x->node[s].test = t->kind == TK_DOT ? LR_XPATH_DOT : LR_XPATH_DOTS;
        p->x->node[s].op = t->kind == TK_DOT ? LR_XPATH_SELF : LR_XPATH_PARENT;
        p->x->node[s].desc = desc;
        p->x->node[s].axis_pos = t->pos;
        p->cur++;
        xp_adopt(p, path, s);
        return 0;
    }
    if (t->kind == TK_AXIS) {
        if ((rc = xp_axis(p, t, &axis)))
            return rc;
        t = &p->tok[++p->cur];
    } else if (t->kind == TK_AT) {
        axis = LR_XPATH_ATTRIBUTE;
        at = true;
        t = &p->tok[++p->cur];
    }
    int s = xp_node(p, LR_XPATH_STEP, t);
    struct lr_xpath_node *n = &p->x->node[s];
    n->op = axis;
    n->desc = desc;
    n->at = at;
    n->axis_pos = axis_pos;
    switch (t->kind) {
    case TK_NAME: {
        const char *c = memchr(p->text + t->pos, ':', t->len);
        n->test = c && c[1] == '*' ? LR_XPATH_PREFIX_ANY : LR_XPATH_NAME;
        p->cur++;
        break;
    }
    case TK_STAR:
        n->test = LR_XPATH_ANY;
        p->cur++;
        break;
    case TK_NODETYPE: {
        const char *name = p->text + t->pos;
        n->test = !strncmp(name, "node", 4) ? LR_XPATH_NODE
                  : !strncmp(name, "text", 4) ? LR_XPATH_TEXT
                  : !strncmp(name, "comment", 7) ? LR_XPATH_COMMENT
                  : LR_XPATH_PI;
        p->cur += 2;        /* the name and '(' */
        if (n->test == LR_XPATH_PI && xp_peek(p)->kind == TK_LITERAL)
            p->cur++;
        if (xp_peek(p)->kind != TK_RPAR)
            return xp_expected(p, "')' closing the node type's '('");
        n->end = xp_peek(p)->pos + 1;
        n->len = n->end - n->pos;
        p->cur++;
        break;
    }
    default:
        return xp_expected(p, "a node test (a name, '*', node() or "
                           "text())");
    }
    xp_adopt(p, path, s);
    return xp_preds(p, s);
}

/* RelativeLocationPath, its steps appended to 'path'; 'desc' when the
 * first is after '//'. */
static int
xp_rel_path(struct xp_parser *p, int path, bool desc)
{
    for (;;) {
        int rc;
        if (!xp_step_start(p))
            return xp_expected(p, "a step");
        if ((rc = xp_step(p, path, desc)))
            return rc;
        enum xp_tok k = xp_peek(p)->kind;
        if (k != TK_SLASH && k != TK_DSLASH)
            return 0;
        desc = k == TK_DSLASH;
        p->cur++;
    }
}

/* FunctionCall, the name being the current token. */
static int
xp_call(struct xp_parser *p, int *out)
{
    int c = xp_node(p, LR_XPATH_CALL, xp_peek(p)), rc;
    p->cur += 2;            /* the name and '(' */
    if ((rc = xp_enter(p)))
        return rc;
    if (xp_peek(p)->kind != TK_RPAR)
        for (;;) {
            int a;
            if ((rc = xp_expr(p, &a)))
                return rc;
            xp_adopt(p, c, a);
            if (xp_peek(p)->kind != TK_COMMA)
                break;
            p->cur++;
        }
    p->depth--;
    if (xp_peek(p)->kind != TK_RPAR)
        return xp_expected(p, "',' or ')' after the function's argument");
    p->x->node[c].end = xp_peek(p)->pos + 1;
    p->cur++;
    *out = c;
    return 0;
}

/* PrimaryExpr. */
static int
xp_primary(struct xp_parser *p, int *out)
{
    const struct xp_token *t = xp_peek(p);
    int rc, e;
    switch (t->kind) {
    case TK_LITERAL:
    case TK_NUMBER:
        *out = xp_node(p, t->kind == TK_LITERAL ? LR_XPATH_LITERAL
                       : LR_XPATH_NUMBER, t);
        p->cur++;
        return 0;
    case TK_FUNC:
        return xp_call(p, out);
    case TK_LPAR:
        *out = xp_node(p, LR_XPATH_PAREN, t);
        p->cur++;
        if ((rc = xp_enter(p)) || (rc = xp_expr(p, &e)))
            return rc;
        p->depth--;
        xp_adopt(p, *out, e);
        if (xp_peek(p)->kind != TK_RPAR)
            return xp_expected(p, "')'");
        p->x->node[*out].end = xp_peek(p)->pos + 1;
        p->cur++;
        return 0;
    default:
        return xp_expected(p, "an operand");
    }
}

/* PathExpr. */
static int
xp_path(struct xp_parser *p, int *out)
{
    const struct xp_token *t = xp_peek(p);
    int rc, path;
    if (t->kind == TK_SLASH || t->kind == TK_DSLASH) {
        bool desc = t->kind == TK_DSLASH;
        path = xp_node(p, LR_XPATH_PATH, t);
        p->x->node[path].absolute = true;
        p->cur++;
        *out = path;
        if (!desc && !xp_step_start(p))
            return 0;       /* '/' alone: the root */
        return xp_rel_path(p, path, desc);
    }
    if (xp_step_start(p)) {
        path = xp_node(p, LR_XPATH_PATH, t);
        *out = path;
        return xp_rel_path(p, path, false);
    }
    int prim = -1;
    if ((rc = xp_primary(p, &prim)))
        return rc;
    int head = prim;
    if (xp_peek(p)->kind == TK_LBR) {
        head = xp_node(p, LR_XPATH_FILTER, t);
        xp_adopt(p, head, prim);
        if ((rc = xp_preds(p, head)))
            return rc;
    }
    enum xp_tok k = xp_peek(p)->kind;
    if (k != TK_SLASH && k != TK_DSLASH) {
        *out = head;
        return 0;
    }
    path = xp_node(p, LR_XPATH_PATH, t);
    xp_adopt(p, path, head);
    p->cur++;
    *out = path;
    return xp_rel_path(p, path, k == TK_DSLASH);
}

/* A binary node for the operator token 't' over 'l' and 'r'. */
static int
xp_binary(struct xp_parser *p, const struct xp_token *t, int op, int l, int r)
{
    int b = xp_node(p, LR_XPATH_BINARY, t);
    p->x->node[b].op = op;
    xp_adopt(p, b, l);
    xp_adopt(p, b, r);
    return b;
}

/* The operator of token kind 'k' at precedence level 'level' (0: or
 * ... 5: union), -1 when it is none of that level's. */
static int
xp_level_op(int level, enum xp_tok k)
{
    static const struct { enum xp_tok k; int op, level; } ops[] = {
        { TK_OR, LR_XPATH_OR, 0 }, { TK_AND, LR_XPATH_AND, 1 },
        { TK_EQ, LR_XPATH_EQ, 2 }, { TK_NE, LR_XPATH_NE, 2 },
        { TK_LT, LR_XPATH_LT, 3 }, { TK_LE, LR_XPATH_LE, 3 },
        { TK_GT, LR_XPATH_GT, 3 }, { TK_GE, LR_XPATH_GE, 3 },
        { TK_PLUS, LR_XPATH_PLUS, 4 }, { TK_MINUS, LR_XPATH_MINUS, 4 },
        { TK_MUL, LR_XPATH_MUL, 5 }, { TK_DIV, LR_XPATH_DIV, 5 },
        { TK_MOD, LR_XPATH_MOD, 5 }, { TK_PIPE, LR_XPATH_UNION, 7 },
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].k == k && ops[i].level == level)
            return ops[i].op;
    return -1;
}

/* The expression of precedence 'level' and tighter: 0 OrExpr, 1 AndExpr,
 * 2 EqualityExpr, 3 RelationalExpr, 4 AdditiveExpr, 5
 * MultiplicativeExpr, 6 UnaryExpr, 7 UnionExpr.  The recursion over
 * levels is bounded by 8, not by the text. */
static int
xp_level(struct xp_parser *p, int level, int *out)
{
    int rc, l = -1, r = -1, op;
    if (level == 6) {
        int n = 0, first = p->cur;
        while (xp_peek(p)->kind == TK_MINUS) {
            n++;
            p->cur++;
        }
        if ((rc = xp_level(p, 7, &l)))
            return rc;
        for (int i = n - 1; i >= 0; i--) {
            int g = xp_node(p, LR_XPATH_NEG, &p->tok[first + i]);
            xp_adopt(p, g, l);
            l = g;
        }
        *out = l;
        return 0;
    }
    if (level == 8)
        return xp_path(p, out);
    if ((rc = xp_level(p, level + 1, &l)))
        return rc;
    while ((op = xp_level_op(level, xp_peek(p)->kind)) >= 0) {
        const struct xp_token *t = xp_peek(p);
        p->cur++;
        if ((rc = xp_level(p, level + 1, &r)))
            return rc;
        l = xp_binary(p, t, op, l, r);
    }
    *out = l;
    return 0;
}

static int
xp_expr(struct xp_parser *p, int *out)
{
    return xp_level(p, 0, out);
}

int
lr_xpath_parse(const char *text, struct lr_xpath **out,
               struct lr_xpath_err *err)
{
    struct xp_parser p = { .text = text, .err = err };
    size_t n = strlen(text);
    int rc;
    *out = NULL;
    memset(err, 0, sizeof *err);
    /* At most one node per token and one per path: two per byte. */
    if (!(p.x = malloc(sizeof *p.x + (2 * n + 2) * sizeof *p.x->node))) {
        rc = ENOMEM;
        goto cleanup;
    }
    p.x->text = text;
    p.x->n = 0;
    if ((rc = xp_lex(&p)))
        goto cleanup;
    if (p.tok[0].kind == TK_END) {
        rc = xp_fail(&p, 0, "an expression was expected, found none");
        goto cleanup;
    }
    if ((rc = xp_expr(&p, &p.x->root)))
        goto cleanup;
    if (xp_peek(&p)->kind != TK_END) {
        rc = xp_expected(&p, "an operator or the end");
        goto cleanup;
    }
    *out = p.x;
    p.x = NULL;
cleanup:
    free(p.tok);
    free(p.x);
    return rc;
}

void
lr_xpath_free(struct lr_xpath *x)
{
    free(x);
}

bool
lr_xpath_named(const struct lr_xpath *x, int i, const char *name)
{
    const struct lr_xpath_node *n = &x->node[i];
    size_t len = strlen(name);
    if (n->kind == LR_XPATH_CALL)
        return xp_ncname(x->text + n->pos) == len
               && !strncmp(x->text + n->pos, name, len);
    if (n->kind != LR_XPATH_STEP || n->test != LR_XPATH_NAME)
        return false;
    /* The local part of a QName. */
    const char *s = x->text + n->pos, *c = memchr(s, ':', n->len);
    if (c)
        s = c + 1;
    return (size_t) (x->text + n->pos + n->len - s) == len
           && !strncmp(s, name, len);
}

bool
lr_xpath_within(const struct lr_xpath *x, int i, int anc)
{
    for (; i >= 0; i = x->node[i].parent)
        if (i == anc)
            return true;
    return false;
}

/* Appends to buf[*at..size) what fits. */
static void
xp_put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
    va_list ap;
    if (*at >= size)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, size - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at += (size_t) n;
}

static void
xp_print_node(const struct lr_xpath *x, int i, char *buf, size_t size,
              size_t *at)
{
    static const char *const ops[] = {
        "or", "and", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "div",
        "mod", "|",
    };
    static const char *const kinds[] = {
        [LR_XPATH_NEG] = "neg", [LR_XPATH_PATH] = "path",
        [LR_XPATH_FILTER] = "filter", [LR_XPATH_PAREN] = "paren",
        [LR_XPATH_CALL] = "call",
    };
    const struct lr_xpath_node *n = &x->node[i];
    switch (n->kind) {
    case LR_XPATH_LITERAL:
    case LR_XPATH_NUMBER:
        xp_put(buf, size, at, "%.*s", (int) n->len, x->text + n->pos);
        return;
    case LR_XPATH_STEP:
        xp_put(buf, size, at, "%s%s", n->desc ? "//" : "",
               n->op == LR_XPATH_CHILD || n->test >= LR_XPATH_DOT ? ""
               : n->at ? "@" : "");
        if (n->op != LR_XPATH_CHILD && !n->at && n->test < LR_XPATH_DOT)
            xp_put(buf, size, at, "%.*s",
                   (int) (strchr(x->text + n->axis_pos, ':')
                          - (x->text + n->axis_pos) + 2),
                   x->text + n->axis_pos);
        xp_put(buf, size, at, "%.*s", (int) n->len, x->text + n->pos);
        for (int c = n->child; c >= 0; c = x->node[c].next) {
            xp_put(buf, size, at, "[");
            xp_print_node(x, x->node[c].child, buf, size, at);
            xp_put(buf, size, at, "]");
        }
        return;
    case LR_XPATH_PRED:
        xp_put(buf, size, at, "[");
        xp_print_node(x, n->child, buf, size, at);
        xp_put(buf, size, at, "]");
        return;
    case LR_XPATH_CALL:
        xp_put(buf, size, at, "(call %.*s", (int) xp_ncname(x->text + n->pos),
               x->text + n->pos);
        break;
    case LR_XPATH_BINARY:
        xp_put(buf, size, at, "(%s", ops[n->op]);
        break;
    default:
        xp_put(buf, size, at, "(%s%s", kinds[n->kind],
               n->absolute ? " /" : "");
        break;
    }
    for (int c = n->child; c >= 0; c = x->node[c].next) {
        xp_put(buf, size, at, " ");
        xp_print_node(x, c, buf, size, at);
    }
    xp_put(buf, size, at, ")");
}

void
lr_xpath_print(const struct lr_xpath *x, char *buf, size_t size)
{
    size_t at = 0;
    if (size)
        buf[0] = '\0';
    xp_print_node(x, x->root, buf, size, &at);
}
