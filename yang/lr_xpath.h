/*
 * lr_xpath: a parse of XPath 1.0 (W3C XPath 1.0, section 3: productions
 * [1]-[39]) into a tree, so that what a client's expression does is
 * judged by its grammar rather than by its text (yang/lr_yang_job.c's
 * checks of a list's where).  No libyang: plain C, no I/O.
 *
 * Tokens are read as libyang 2.1.30's lyxp_expr_parse() reads them,
 * which is section 3.7 with one liberty: after an operand (a name test,
 * a number, a literal, ')', ']', '.', '..'), '*' multiplies
 * and a token that begins with "and", "or", "mod" or "div" is that
 * operator whatever follows ("x modx" is x mod x, "0or0" is 0 or 0),
 * since the tree must be the one libyang evaluates.  Elsewhere a name
 * followed by '(' is a function or a node type, one followed by '::' an
 * axis.  Names are NCNames: a letter, '_' or any byte past ASCII, then
 * those, digits, '-' and '.'; a prefix is one more before ':'.
 * A variable reference ('$' QName) is refused at its '$' ("variables
 * are not supported: ..."): a where is evaluated with no variable
 * bound, and libyang would refuse one only as it evaluates, naming no
 * byte.
 *
 * Bounds: the parse is linear in the text; its recursion is one level
 * per bracket ('(' of a call or parentheses, '[' of a predicate), and
 * nesting deeper than LR_XPATH_DEPTH is refused (err->deep).
 */
#ifndef LR_XPATH_H
#define LR_XPATH_H 1

#include <stdbool.h>
#include <stddef.h>

/* The deepest nesting of brackets a parse follows. */
#define LR_XPATH_DEPTH 63

enum lr_xpath_kind {
    LR_XPATH_BINARY,    /* op: two children, left then right */
    LR_XPATH_NEG,       /* unary minus: one child */
    LR_XPATH_PATH,      /* [a head (FILTER or primary)] then STEPs; or
                         * 'absolute' with none ('/') */
    LR_XPATH_STEP,      /* axis, test; children: PREDs */
    LR_XPATH_FILTER,    /* a primary, then PREDs */
    LR_XPATH_PRED,      /* '[' expr ']': one child */
    LR_XPATH_PAREN,     /* '(' expr ')': one child */
    LR_XPATH_CALL,      /* a function: its arguments */
    LR_XPATH_LITERAL,
    LR_XPATH_NUMBER,
};

enum lr_xpath_op {
    LR_XPATH_OR, LR_XPATH_AND, LR_XPATH_EQ, LR_XPATH_NE, LR_XPATH_LT,
    LR_XPATH_LE, LR_XPATH_GT, LR_XPATH_GE, LR_XPATH_PLUS, LR_XPATH_MINUS,
    LR_XPATH_MUL, LR_XPATH_DIV, LR_XPATH_MOD, LR_XPATH_UNION,
};

enum lr_xpath_axis {
    LR_XPATH_CHILD, LR_XPATH_ATTRIBUTE, LR_XPATH_SELF, LR_XPATH_PARENT,
    LR_XPATH_ANCESTOR, LR_XPATH_ANCESTOR_OR_SELF, LR_XPATH_DESCENDANT,
    LR_XPATH_DESCENDANT_OR_SELF, LR_XPATH_FOLLOWING,
    LR_XPATH_FOLLOWING_SIBLING, LR_XPATH_PRECEDING,
    LR_XPATH_PRECEDING_SIBLING, LR_XPATH_NAMESPACE,
};

enum lr_xpath_test {
    LR_XPATH_NAME,      /* a QName */
    LR_XPATH_ANY,       /* '*' */
    LR_XPATH_PREFIX_ANY,/* 'p:*' */
    LR_XPATH_NODE,      /* node() */
    LR_XPATH_TEXT,      /* text() */
    LR_XPATH_COMMENT,   /* comment() */
    LR_XPATH_PI,        /* processing-instruction() */
    LR_XPATH_DOT,       /* '.': self::node() */
    LR_XPATH_DOTS,      /* '..': parent::node() */
};

/* One node of the tree; the links are indices in lr_xpath.node, -1 for
 * none.  'pos' and 'len' give the token that names it in the text: the
 * operator, the name test, the function's name, '[' of a predicate,
 * '(' of parentheses, the first '/' of an absolute path (a relative
 * one: its first token); 'end' is one past its last byte. */
struct lr_xpath_node {
    enum lr_xpath_kind kind;
    int op;             /* BINARY: lr_xpath_op; STEP: lr_xpath_axis */
    int test;           /* STEP: lr_xpath_test */
    bool absolute;      /* PATH: from the root */
    bool desc;          /* STEP: after '//' */
    bool at;            /* STEP: the attribute axis written '@' */
    unsigned pos, len, end;
    unsigned axis_pos;  /* STEP: its axis name's (or '@') position */
    int parent, child, next;
};

struct lr_xpath {
    const char *text;   /* the caller's, not copied */
    int root, n;
    struct lr_xpath_node node[];
};

/* A syntax error: where (0-based byte), what, and whether it is the
 * depth limit. */
struct lr_xpath_err {
    unsigned pos;
    bool deep;
    char msg[128];
};

/* Parses the NUL-terminated 'text' into '*out' (0), or says what is
 * wrong in 'err' (EINVAL; ENOMEM).  The tree points into 'text', which
 * must outlive it; the caller frees it with lr_xpath_free(). */
int lr_xpath_parse(const char *text, struct lr_xpath **out,
                   struct lr_xpath_err *err);

void lr_xpath_free(struct lr_xpath *x);

/* Whether node 'i' is a CALL (or a STEP's name test) spelled 'name'. */
bool lr_xpath_named(const struct lr_xpath *x, int i, const char *name);

/* Whether node 'i' lies inside node 'anc' (or is it). */
bool lr_xpath_within(const struct lr_xpath *x, int i, int anc);

/* The tree in prefix form, for tests: (or A B), (neg A), (path / S...),
 * step "axis::test[...]", (call f A...), (paren A), (filter P [..]),
 * literals and numbers as written; into buf[size], cut to fit. */
void lr_xpath_print(const struct lr_xpath *x, char *buf, size_t size);

#endif
