/*
 * test_xpath: yang/lr_xpath.c, XPath 1.0 parsed into a tree: tokens as
 * libyang 2.1.30 reads them (section 3.7 and its liberties), precedence,
 * the forms of steps and paths, syntax errors with their position, and
 * the depth limit.  Each row compares the tree printed in prefix form.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "yang/lr_xpath.h"

#include "tests/lr_test.h"

/* 'text' parses to the tree printed 'want'. */
static void
check_tree(const char *text, const char *want)
{
    struct lr_xpath *x = NULL;
    struct lr_xpath_err err;
    char got[1024];
    int rc = lr_xpath_parse(text, &x, &err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) {
        fprintf(stderr, "%s: refused at byte %u: %s\n", text, err.pos,
                err.msg);
        return;
    }
    lr_xpath_print(x, got, sizeof got);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want))
        fprintf(stderr, "%s: got %s, want %s\n", text, got, want);
    lr_xpath_free(x);
}

/* 'text' is refused at byte 'pos' with a message holding 'want'. */
static void
check_error(const char *text, unsigned pos, const char *want)
{
    struct lr_xpath *x = (struct lr_xpath *) 1;
    struct lr_xpath_err err;
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), EINVAL);
    CU_ASSERT_PTR_NULL(x);
    CU_ASSERT_EQUAL(err.pos, pos);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    if (err.pos != pos || !strstr(err.msg, want))
        fprintf(stderr, "%s: got byte %u '%s', want %u '%s'\n", text,
                err.pos, err.msg, pos, want);
}

/* Operators bind as section 3 orders them, each level left to right. */
static void
test_precedence(void)
{
    check_tree("1 + 2 * 3 = 7 or a and b",
               "(or (= (+ 1 (* 2 3)) 7) (and (path a) (path b)))");
    check_tree("a or b or c", "(or (or (path a) (path b)) (path c))");
    check_tree("a < b = c < d", "(= (< (path a) (path b)) (< (path c) "
               "(path d)))");
    check_tree("1 = * = 1", "(= (= 1 (path *)) 1)");
    check_tree("(1 = *) = 1", "(= (paren (= 1 (path *))) 1)");
    check_tree("8 div 2 mod 3 - 1", "(- (mod (div 8 2) 3) 1)");
    check_tree("--a", "(neg (neg (path a)))");
    check_tree("a - -b", "(- (path a) (neg (path b)))");
    check_tree("-a | b", "(neg (| (path a) (path b)))");
    check_tree("x | y | z", "(| (| (path x) (path y)) (path z))");
}

/* Section 3.7: '*' and the operator names are operators after an
 * operand, names and wildcards elsewhere; libyang reads a prefix of
 * one as the operator ("modx", "0or0", "t oro"), and a name may end
 * with '-' or hold '.'. */
static void
test_disambiguation(void)
{
    check_tree("* * *", "(* (path *) (path *))");
    check_tree("and = or", "(= (path and) (path or))");
    check_tree("mod mod mod", "(mod (path mod) (path mod))");
    check_tree("priority modpriority = 0",
               "(= (mod (path priority) (path priority)) 0)");
    check_tree("0or0", "(or 0 0)");
    check_tree("t oro", "(or (path t) (path o))");
    check_tree("2-1oro", "(or (- 2 1) (path o))");
    check_tree("t- or x-model", "(or (path t-) (path x-model))");
    check_tree("(7)mod(2)", "(mod (paren 7) (paren 2))");
    check_tree("model div 2", "(div (path model) 2)");
    check_tree("a.b and .5", "(and (path a.b) .5)");
    check_tree("\xc3\xa9 mod 2", "(mod (path \xc3\xa9) 2)");
    /* A name then '(' is a call or a node type; then '::' an axis
     * (touching it: test_errors). */
    check_tree("count (x)", "(call count (path x))");
    check_tree("node() and text ( )", "(and (path node()) (path text ( )))");
    check_tree("preceding::*", "(path preceding::*)");
    check_tree("child::x", "(path x)");
}

/* Paths: absolute, '//', steps with axes and predicates, filters. */
static void
test_paths(void)
{
    check_tree("/", "(path /)");
    check_tree("//name", "(path / //name)");
    check_tree("sum(/)", "(call sum (path /))");
    check_tree("state//../name", "(path state //.. name)");
    check_tree("lightrail-job:state/child::p:*[1][m = 5]/@x",
               "(path lightrail-job:state p:*[1][(= (path m) 5)] @x)");
    check_tree("descendant-or-self::node()[a]",
               "(path descendant-or-self::node()[(path a)])");
    check_tree("current ( ) [a or b]/name != 'x'",
               "(!= (path (filter (call current) [(or (path a) (path b))]) "
               "name) 'x')");
    check_tree("1 = .5 [0 or 1]", "(= 1 (filter .5 [(or 0 1)]))");
    check_tree("(a)//b", "(path (paren (path a)) //b)");
    check_tree("processing-instruction('a')",
               "(path processing-instruction('a'))");
    check_tree("f(a, 'b', 3)", "(call f (path a) 'b' 3)");
}

/* What is no XPath is refused at its byte, saying what was expected. */
static void
test_errors(void)
{
    check_error("", 0, "an expression was expected");
    check_error("state/phase=", 12, "an operand was expected, found the "
                "end");
    check_error("a b", 2, "an operator was expected");
    check_error("1e5", 1, "an operator was expected");
    check_error("name = 'x", 7, "no closing '");
    check_error("x::y", 0, "'x' is no axis");
    /* libyang 2.1.30 reads an axis name only when '::' touches it and
     * the node test touches the '::' ("child ::x": "perhaps child is
     * supposed to be a function call"; "child:: x": "Invalid character
     * ' '"), where XPath 1.0 3.7 allows the blanks: refused at the
     * blank, as libyang would refuse the whole. */
    check_error("child ::x", 5, "a blank between the axis 'child' and "
                "its '::'");
    check_error("state/preceding\t:: *", 15, "the axis 'preceding'");
    check_error("x and self  ::node()", 10, "send self::");
    check_error("child:: x", 7, "a blank after the axis 'child::'");
    check_error("count(descendant-or-self::\nx)", 26,
                "'descendant-or-self::'");
    check_error("f(a,b,)", 6, "an operand was expected, found ')'");
    check_error(".[1]", 1, "an operator or the end was expected, found '['");
    check_error("a[1", 3, "']' closing the predicate");
    check_error("(a", 2, "')'");
    check_error("a/", 2, "a step was expected");
    check_error("p:", 2, "a name must follow the prefix 'p:'");
    check_error("#", 0, "'#' begins no name");
    /* A variable reference is XPath, but nothing binds one: libyang
     * 2.1.30 refused it only when evaluating ("XPath variable "v" not
     * defined."), after this parse had taken it. */
    check_error("$v + 1", 0, "variables are not supported: write the "
                "value in place of '$v'");
    check_error("priority = $p", 11, "variables are not supported");
    check_error("f(a, $very-long-variable-name-x)", 5, "in place of "
                "'$very-long-variable-n...'");
    check_error("x[$i]", 2, "variables are not supported");
    /* A QName: the advice names the whole reference, prefix and all
     * ("in place of '$p'" left "5:x" once followed). */
    check_error("priority = $p:x", 11, "in place of '$p:x'");
    check_error("$", 0, "variables are not supported: write the value in "
                "place of '$'");
}

/* A refusal quotes the client's text, which goes into a JSON answer:
 * a name or token cut to its first bytes, or a message cut to
 * lr_xpath_err.msg, is cut at the start of a character (a name is any
 * bytes past ASCII, U+00E9 two of them), never inside one. */
static void
check_error_utf8(const char *text, unsigned pos, const char *want)
{
    struct lr_xpath *x = NULL;
    struct lr_xpath_err err;
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), EINVAL);
    CU_ASSERT_EQUAL(err.pos, pos);
    CU_ASSERT(lr_test_utf8(text, err.msg));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    if (err.pos != pos || !strstr(err.msg, want))
        fprintf(stderr, "%s: got byte %u '%s', want %u '%s'\n", text,
                err.pos, err.msg, pos, want);
}

static void
test_errors_utf8(void)
{
    /* A variable's name past 20 bytes: 'a' and ten 2-byte characters,
     * the 20th byte the first of the tenth. */
    check_error_utf8("$a\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
                     "\u00e9\u00e9\u00e9", 0, "in place of '$a\u00e9\u00e9"
                     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9...'");
    /* A prefix of 'x' and 64 2-byte characters: the message passes
     * its 128 bytes, cut at a character and marked. */
    char text[256] = "x";
    for (int i = 0; i < 64; i++)
        strcat(text, "\u00e9");
    strcat(text, ":");
    check_error_utf8(text, 130, LR_UTF8_CUT_MARK);
}

/* Brackets nest up to LR_XPATH_DEPTH, calls and predicates as much as
 * parentheses; deeper is refused as such, at the bracket too many. */
static void
test_depth(void)
{
    char text[512];
    struct lr_xpath *x = NULL;
    struct lr_xpath_err err;
    int d = LR_XPATH_DEPTH;
    snprintf(text, sizeof text, "%.*s1%.*s", d,
             "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
             "((((((((", d,
             "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
             "))))))))");
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), 0);
    lr_xpath_free(x);
    snprintf(text, sizeof text, "(%.*s1%.*s)", d,
             "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
             "((((((((", d,
             "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
             "))))))))");
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), EINVAL);
    CU_ASSERT(err.deep);
    CU_ASSERT_EQUAL(err.pos, (unsigned) d + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nest more than 63 deep"));
    /* Predicates and calls count alike. */
    size_t n = 0;
    for (int i = 0; i <= d; i++)
        n += (size_t) snprintf(text + n, sizeof text - n, i % 2 ? "a[" : "f(");
    snprintf(text + n, sizeof text - n, "1");
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), EINVAL);
    CU_ASSERT(err.deep);
    /* A long flat expression is no nesting: 300 steps, 200 minus. */
    n = 0;
    for (int i = 0; i < 200; i++)
        text[n++] = '-';
    text[n] = '\0';
    for (int i = 0; i < 100; i++)
        n += (size_t) snprintf(text + n, sizeof text - n, "a/");
    snprintf(text + n, sizeof text - n, "b");
    CU_ASSERT_EQUAL(lr_xpath_parse(text, &x, &err), 0);
    lr_xpath_free(x);
}

/* The shapes yang/lr_yang_job.c refuses a where for, as the tree shows
 * them (the node each rule keys on), beside look-alikes it takes: the
 * same text in a literal or a name, or the same operator elsewhere. */
static void
test_shapes(void)
{
    static const char *const rows[][2] = {
        /* deref(): a call, after a minus too; in a literal none. */
        { "-deref(priority) or name",
          "(or (neg (call deref (path priority))) (path name))" },
        { "name = 'deref(x)'", "(= (path name) 'deref(x)')" },
        /* mod: the operator after a name ending in '-', none in one. */
        { "@x- mod 0 = 1", "(= (mod (path @x-) 0) 1)" },
        { "x-model = 1", "(= (path x-model) 1)" },
        /* An axis; a union, none in a literal. */
        { "count(state/preceding::*)",
          "(call count (path state preceding::*))" },
        { "name = 'ja|jb'", "(= (path name) 'ja|jb')" },
        /* A chain: '=' whose left operand is '='; none in parentheses,
         * nor '=' over '>'. */
        { "1 = * = 1", "(= (= 1 (path *)) 1)" },
        { "count(*) > 0 = (priority = 3)",
          "(= (> (call count (path *)) 0) (paren (= (path priority) 3)))" },
        /* The root: an absolute path after 'or' or a multiplication;
         * '*' then '/' after an operand is a step. */
        { "false() or / = 'x'", "(or (call false) (= (path /) 'x'))" },
        { "0 * / = 1", "(= (* 0 (path /)) 1)" },
        { "count(*/*) > 0", "(> (call count (path * *)) 0)" },
        /* A filter on a literal; on current() it stays. */
        { "1 = 'a'[0 or 1]", "(= 1 (filter 'a' [(or 0 1)]))" },
        { "1-current()[priority = 3]/priority",
          "(- 1 (path (filter (call current) [(= (path priority) 3)]) "
          "priority))" },
        /* A predicate on text(); a path from parentheses. */
        { "name/text()[0 or 1]", "(path name text()[(or 0 1)])" },
        { "(priority = 3)/x[0 or 1]",
          "(path (paren (= (path priority) 3)) x[(or 0 1)])" },
        /* '..' inside sum(); in a literal none. */
        { "sum(current()/../..)", "(call sum (path (call current) .. ..))" },
        { "name = '..'", "(= (path name) '..')" },
        /* '$' in a literal is no variable reference. */
        { "name = '$p' or name = \"a$\"",
          "(or (= (path name) '$p') (= (path name) \"a$\"))" },
        /* 'or' in the predicate of a path beside a boolean (taken), and
         * with a second predicate on the path (refused). */
        { "state/lightpath[m = 5 or m = 6] = true()",
          "(= (path state lightpath[(or (= (path m) 5) (= (path m) 6))]) "
          "(call true))" },
        { "state/lightpath[m = 5 or m = 6][n > 0]",
          "(path state lightpath[(or (= (path m) 5) (= (path m) 6))]"
          "[(> (path n) 0)])" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        check_tree(rows[i][0], rows[i][1]);
}

/* lr_xpath_named() reads a call's name and a name test's local part. */
static void
test_named(void)
{
    struct lr_xpath *x = NULL;
    struct lr_xpath_err err;
    CU_ASSERT_EQUAL_FATAL(lr_xpath_parse("deref (p:phase) and phase(1)",
                                         &x, &err), 0);
    int calls = 0, names = 0;
    for (int i = 0; i < x->n; i++) {
        calls += lr_xpath_named(x, i, "deref");
        names += lr_xpath_named(x, i, "phase");
    }
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT_EQUAL(names, 2);  /* the step p:phase and the call phase() */
    lr_xpath_free(x);
}

static CU_TestInfo tests[] = {
    { "precedence", test_precedence },
    { "3.7 disambiguation", test_disambiguation },
    { "paths", test_paths },
    { "syntax errors", test_errors },
    { "errors quoting text cut at a character", test_errors_utf8 },
    { "depth limit", test_depth },
    { "refused shapes and look-alikes", test_shapes },
    { "names", test_named },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("xpath", tests)
