/* The query parameters' values and list pagination (northbound/nb_query):
 * what each value means, what each bad one is told, and that the pages
 * of a list tile it exactly, forwards and backwards. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "northbound/nb_query.h"
#include "tests/lr_test.h"

static void
test_value(void)
{
    const char *v;
    size_t len;
    CU_ASSERT_FALSE(nb_query_value(NULL, "limit", &v, &len));
    CU_ASSERT_FALSE(nb_query_value("", "limit", &v, &len));
    /* A name is matched whole: "limitx" and "sublist-limit" are not
     * "limit". */
    CU_ASSERT_FALSE(nb_query_value("limitx=3&sublist-limit=2", "limit", &v,
                                   &len));
    CU_ASSERT_TRUE(nb_query_value("offset=2&limit=30", "limit", &v, &len));
    CU_ASSERT_EQUAL(len, 2);
    CU_ASSERT_NSTRING_EQUAL(v, "30", 2);
    CU_ASSERT_TRUE(nb_query_value("dry-run&x=1", "dry-run", &v, &len));
    CU_ASSERT_PTR_NULL(v);
    CU_ASSERT_TRUE(nb_query_value("limit=", "limit", &v, &len));
    CU_ASSERT_PTR_NOT_NULL(v);
    CU_ASSERT_EQUAL(len, 0);
}

static void
test_parse_good(void)
{
    struct nb_page pg;
    char err[256] = "";
    CU_ASSERT_EQUAL(nb_page_parse(NULL, &pg, err, sizeof err), 0);
    CU_ASSERT_EQUAL(pg.offset, 0);
    CU_ASSERT_EQUAL(pg.limit, 0);
    CU_ASSERT_FALSE(pg.backwards);
    CU_ASSERT_EQUAL(nb_page_parse("limit=100&offset=7&direction=backwards",
                                  &pg, err, sizeof err), 0);
    CU_ASSERT_EQUAL(pg.limit, 100);
    CU_ASSERT_EQUAL(pg.offset, 7);
    CU_ASSERT_TRUE(pg.backwards);
    CU_ASSERT_EQUAL(nb_page_parse("limit=unbounded&direction=forwards", &pg,
                                  err, sizeof err), 0);
    CU_ASSERT_EQUAL(pg.limit, 0);
    CU_ASSERT_FALSE(pg.backwards);
    CU_ASSERT_EQUAL(nb_page_parse("limit=4294967295&offset=4294967295", &pg,
                                  err, sizeof err), 0);
    CU_ASSERT_EQUAL(pg.limit, UINT32_MAX);
    CU_ASSERT_EQUAL(pg.offset, UINT32_MAX);
    CU_ASSERT_PTR_NULL(pg.where);
    CU_ASSERT_PTR_NULL(pg.sort_by);
    /* where and sort-by: the query's text, borrowed, for the list's
     * layer to judge. */
    const char *q = "limit=2&where=state/phase='active'&sort-by=state/created";
    CU_ASSERT_EQUAL(nb_page_parse(q, &pg, err, sizeof err), 0);
    CU_ASSERT_EQUAL(pg.limit, 2);
    CU_ASSERT_PTR_EQUAL(pg.where, strstr(q, "state/phase"));
    CU_ASSERT_EQUAL(pg.where_len, strlen("state/phase='active'"));
    CU_ASSERT_PTR_EQUAL(pg.sort_by, strstr(q, "state/created"));
    CU_ASSERT_EQUAL(pg.sort_by_len, strlen("state/created"));
}

/* Each bad value: its code, and a message that quotes it and says what
 * to send. */
static void
test_parse_bad(void)
{
    static const struct {
        const char *query;
        int rc;
        const char *quoted, *hint;
    } cases[] = {
        { "limit=0", EINVAL, "'0'", "from 1 to 4294967295, or 'unbounded'" },
        { "limit=-1", EINVAL, "'-1'", "from 1 to 4294967295" },
        { "limit=abc", EINVAL, "'abc'", "or 'unbounded'" },
        { "limit=4294967296", EINVAL, "'4294967296'", "from 1 to" },
        { "limit=+5", EINVAL, "'+5'", "from 1 to" },
        { "limit=%31", EINVAL, "'%31'", "from 1 to" },
        { "limit", EINVAL, "''", "from 1 to" },
        { "offset=-1", EINVAL, "'-1'", "from 0 to 4294967295" },
        { "offset=1.5", EINVAL, "'1.5'", "from 0 to" },
        { "offset=", EINVAL, "''", "from 0 to" },
        { "direction=up", EINVAL, "'up'", "'forwards'" },
        { "direction", EINVAL, "''", "'backwards'" },
        /* An example running takes too (it named state/phase, which
         * running refuses, RFC 8342 5.1.3). */
        { "where=", EINVAL, "where is empty", "such as where=priority>5, "
          "or no where" },
        { "limit=2&where", EINVAL, "where is empty", "XPath 1.0" },
        { "sort-by=", EINVAL, "sort-by is empty", "sort-by=name" },
        { "limit=2&cursor=x", EINVAL, "cursor 'x' is not one this server "
          "gives", "'next' or 'previous' annotation" },
        { "locale=sv_SE", ENOTSUP, "'locale'", "limit, offset" },
        { "sublist-limit=1", ENOTSUP, "'sublist-limit'", "limit, offset" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct nb_page pg;
        char err[256] = "";
        int rc = nb_page_parse(cases[i].query, &pg, err, sizeof err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].quoted));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].hint));
        if (rc != cases[i].rc || !strstr(err, cases[i].quoted)
            || !strstr(err, cases[i].hint))
            fprintf(stderr, "%s: %d %s\n", cases[i].query, rc, err);
    }
}

/* A value past NB_QUERY_QUOTE_MAX (40 bytes) is quoted cut at the
 * start of a character and marked: the query is decoded, so a value
 * may hold any UTF-8, and 'x' then 2-byte characters put byte 40
 * inside one ("%.40s" cut there: the 400's JSON had U+FFFD). */
static void
test_quote_utf8(void)
{
    static const char *const names[] = {
        "limit", "offset", "direction", "cursor", "content", "depth",
        "with-defaults",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char query[160], err[256] = "";
        struct nb_page pg;
        struct nb_read rd;
        snprintf(query, sizeof query, "%s=x", names[i]);
        for (int k = 0; k < 30; k++)
            strcat(query, "\xc3\xa9");
        int rc = i < 4 ? nb_page_parse(query, &pg, err, sizeof err)
                       : nb_read_parse(query, &rd, err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT(lr_test_utf8(names[i], err));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, LR_UTF8_CUT_MARK "' "));
        if (!strstr(err, LR_UTF8_CUT_MARK "' "))
            fprintf(stderr, "%s: no quote cut and marked: %s\n", names[i],
                    err);
    }
}

/* Pages of every size over lists of 0..9 entries, both ways: their
 * concatenation is the list (or its reverse) exactly once, each page's
 * remaining is what follows it, and an offset past the end is ERANGE
 * while offset == n is an empty page. */
static void
test_pages_tile(void)
{
    char err[256];
    for (size_t n = 0; n < 10; n++)
        for (uint32_t limit = 1; limit <= 11; limit++)
            for (int back = 0; back < 2; back++) {
                size_t seen = 0, want = 0;
                struct nb_page pg = { .limit = limit, .backwards = back };
                for (;;) {
                    size_t count, remaining;
                    CU_ASSERT_EQUAL_FATAL(nb_page_slice(&pg, n, &count,
                                                        &remaining, err,
                                                        sizeof err), 0);
                    CU_ASSERT(count <= limit);
                    CU_ASSERT_EQUAL(remaining, n - pg.offset - count);
                    for (size_t k = 0; k < count; k++) {
                        size_t i = nb_page_entry(&pg, n, k);
                        CU_ASSERT_EQUAL(i, back ? n - 1 - want : want);
                        want++;
                    }
                    seen += count;
                    if (!remaining)
                        break;
                    pg.offset += (uint32_t) count;
                }
                CU_ASSERT_EQUAL(seen, n);
                size_t count, remaining;
                pg.offset = (uint32_t) n;
                CU_ASSERT_EQUAL(nb_page_slice(&pg, n, &count, &remaining,
                                              err, sizeof err), 0);
                CU_ASSERT_EQUAL(count, 0);
                CU_ASSERT_EQUAL(remaining, 0);
                pg.offset = (uint32_t) n + 1;
                CU_ASSERT_EQUAL(nb_page_slice(&pg, n, &count, &remaining,
                                              err, sizeof err), ERANGE);
            }
    struct nb_page pg = { .offset = 12 };
    size_t count, remaining;
    CU_ASSERT_EQUAL(nb_page_slice(&pg, 5, &count, &remaining, err,
                                  sizeof err), ERANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "offset 12 is past the end of the "
                                  "list, which has 5 entries: send an "
                                  "offset from 0 to 5"));
    /* Unbounded: the rest of the list, nothing remaining. */
    pg.offset = 2;
    CU_ASSERT_EQUAL(nb_page_slice(&pg, 5, &count, &remaining, err,
                                  sizeof err), 0);
    CU_ASSERT_EQUAL(count, 3);
    CU_ASSERT_EQUAL(remaining, 0);
}

/* The cursor: the key of any entry, of 1 to NB_CURSOR_KEY_MAX bytes,
 * goes out as URL-safe text and comes back as that key; any other text
 * (a character outside base64url, padding, a length no key gives, bits
 * past the last byte, a NUL in the key, too long) is refused, and so is
 * a cursor with an offset.  An empty cursor is the start. */
static void
test_cursor(void)
{
    char key[NB_CURSOR_KEY_MAX + 2], text[NB_CURSOR_TEXT_MAX],
         query[NB_CURSOR_TEXT_MAX + 32], err[256];
    struct nb_page pg;
    for (size_t len = 1; len <= NB_CURSOR_KEY_MAX; len++) {
        for (size_t i = 0; i < len; i++)
            key[i] = (char) (1 + (i * 37 + len * 11) % 255);
        key[len] = '\0';
        CU_ASSERT_TRUE_FATAL(nb_cursor_encode(key, text));
        CU_ASSERT_EQUAL(strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
                               "klmnopqrstuvwxyz0123456789-_"),
                        strlen(text));
        CU_ASSERT(strlen(text) < NB_CURSOR_TEXT_MAX);
        snprintf(query, sizeof query, "limit=2&cursor=%s", text);
        CU_ASSERT_EQUAL(nb_page_parse(query, &pg, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(pg.cursor, key);
        CU_ASSERT_EQUAL(pg.limit, 2);
    }
    CU_ASSERT_TRUE(nb_cursor_encode("p1", text));
    CU_ASSERT_STRING_EQUAL(text, "cDE");
    CU_ASSERT_FALSE(nb_cursor_encode("", text));
    memset(key, 'k', NB_CURSOR_KEY_MAX + 1);
    key[NB_CURSOR_KEY_MAX + 1] = '\0';
    CU_ASSERT_FALSE(nb_cursor_encode(key, text));

    static const char *const bad[] = {
        "cursor=cDE=", "cursor=cD+x", "cursor=cD/x", "cursor=c", "cursor=cDF",
        "cursor=AA", "cursor=cDE%", "cursor=cDEx1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(nb_page_parse(bad[i], &pg, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not one this server gives"));
        CU_ASSERT_STRING_EQUAL(pg.cursor, "");
    }
    memset(query, 'A', sizeof query);
    memcpy(query, "cursor=", 7);
    query[7 + NB_CURSOR_TEXT_MAX] = '\0';      /* 341 characters */
    CU_ASSERT_EQUAL(nb_page_parse(query, &pg, err, sizeof err), EINVAL);
    CU_ASSERT_EQUAL(nb_page_parse("cursor=cDE&offset=0", &pg, err,
                                  sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "both a cursor and an offset: send "
                                  "one"));
    CU_ASSERT_EQUAL(nb_page_parse("offset=2&cursor=", &pg, err, sizeof err),
                    EINVAL);
    CU_ASSERT_EQUAL(nb_page_parse("cursor=&limit=3", &pg, err, sizeof err),
                    0);
    CU_ASSERT_STRING_EQUAL(pg.cursor, "");
    CU_ASSERT_EQUAL(pg.offset, 0);
}

/* A page that starts at a cursor's entry, each way, over lists of 1..8:
 * its entries are those from that entry on in the direction, its next
 * cursor's entry the one after its last, its previous cursor's the one
 * before its first; following next from the first entry visits the list
 * once, and the previous cursor with the other direction gives the
 * entries before the page, nearest first. */
static void
test_cursor_pages(void)
{
    char err[256];
    for (size_t n = 1; n <= 8; n++)
        for (uint32_t limit = 1; limit <= 9; limit++)
            for (int back = 0; back < 2; back++)
                for (size_t at = 0; at < n; at++) {
                    struct nb_page pg = { .limit = limit, .backwards = back };
                    size_t count, remaining, i;
                    nb_page_at(&pg, n, at);
                    CU_ASSERT_EQUAL_FATAL(nb_page_slice(&pg, n, &count,
                                                        &remaining, err,
                                                        sizeof err), 0);
                    CU_ASSERT(count >= 1);
                    CU_ASSERT_EQUAL(nb_page_entry(&pg, n, 0), at);
                    size_t last = nb_page_entry(&pg, n, count - 1);
                    if (nb_page_next(&pg, n, count, &i)) {
                        CU_ASSERT(remaining > 0);
                        CU_ASSERT_EQUAL(i, back ? last - 1 : last + 1);
                    } else {
                        CU_ASSERT_EQUAL(remaining, 0);
                        CU_ASSERT_EQUAL(last, back ? 0 : n - 1);
                    }
                    if (nb_page_previous(&pg, n, &i)) {
                        CU_ASSERT_EQUAL(i, back ? at + 1 : at - 1);
                        struct nb_page rev = { .limit = limit,
                                               .backwards = !back };
                        size_t rc, rr;
                        nb_page_at(&rev, n, i);
                        CU_ASSERT_EQUAL(nb_page_slice(&rev, n, &rc, &rr, err,
                                                      sizeof err), 0);
                        CU_ASSERT_EQUAL(nb_page_entry(&rev, n, 0), i);
                    } else {
                        CU_ASSERT_EQUAL(at, back ? n - 1 : 0);
                    }
                }
    /* Following next from the start tiles the list, both ways. */
    for (size_t n = 1; n <= 8; n++)
        for (uint32_t limit = 1; limit <= 9; limit++)
            for (int back = 0; back < 2; back++) {
                struct nb_page pg = { .limit = limit, .backwards = back };
                size_t want = 0, count, remaining, i;
                nb_page_at(&pg, n, back ? n - 1 : 0);
                for (;;) {
                    CU_ASSERT_EQUAL_FATAL(nb_page_slice(&pg, n, &count,
                                                        &remaining, err,
                                                        sizeof err), 0);
                    for (size_t k = 0; k < count; k++, want++)
                        CU_ASSERT_EQUAL(nb_page_entry(&pg, n, k),
                                        back ? n - 1 - want : want);
                    if (!nb_page_next(&pg, n, count, &i))
                        break;
                    nb_page_at(&pg, n, i);
                }
                CU_ASSERT_EQUAL(want, n);
            }
}

/* RFC 8040 4.8.1 and 4.8.2: each good value read, each bad one told
 * the parameter and the values it takes; absent is all, unbounded. */
static void
test_read(void)
{
    static const struct {
        const char *query;
        int rc;
        enum nb_content content;
        uint16_t depth;
        const char *said;
    } cases[] = {
        { NULL, 0, NB_CONTENT_ALL, 0, NULL },
        { "limit=2", 0, NB_CONTENT_ALL, 0, NULL },
        { "content=config", 0, NB_CONTENT_CONFIG, 0, NULL },
        { "content=nonconfig&depth=2", 0, NB_CONTENT_NONCONFIG, 2, NULL },
        { "content=all&depth=unbounded", 0, NB_CONTENT_ALL, 0, NULL },
        { "depth=1", 0, NB_CONTENT_ALL, 1, NULL },
        { "depth=65535", 0, NB_CONTENT_ALL, 65535, NULL },
        { "content=non-config", EINVAL, 0, 0,
          "content 'non-config' is not one: send 'config' (configuration "
          "nodes), 'nonconfig' (state nodes) or 'all'" },
        { "content", EINVAL, 0, 0, "content '' is not one" },
        { "content=Config", EINVAL, 0, 0, "'Config'" },
        { "depth=0", EINVAL, 0, 0, "depth '0' is not a depth: send a whole "
          "number from 1 (the resource alone) to 65535, or 'unbounded'" },
        { "depth=65536", EINVAL, 0, 0, "depth '65536'" },
        { "depth=-1", EINVAL, 0, 0, "depth '-1'" },
        { "depth=infinity", EINVAL, 0, 0, "depth 'infinity'" },
        { "depth", EINVAL, 0, 0, "depth ''" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct nb_read rd;
        char err[256] = "";
        int rc = nb_read_parse(cases[i].query, &rd, err, sizeof err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        if (!rc) {
            CU_ASSERT_EQUAL(rd.content, cases[i].content);
            CU_ASSERT_EQUAL(rd.depth, cases[i].depth);
            CU_ASSERT_PTR_NULL(rd.fields);
            CU_ASSERT_EQUAL(nb_read_cuts(&rd),
                            cases[i].content || cases[i].depth);
        } else
            CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].said));
        if (rc != cases[i].rc || (rc && !strstr(err, cases[i].said)))
            fprintf(stderr, "%s: %d %s\n", cases[i].query, rc, err);
    }
}

/* RFC 8040 4.8.3: fields is the query's text, borrowed, judged by the
 * yang layer; with content and depth; empty, told what to send. */
static void
test_read_fields(void)
{
    static const char q[] = "content=config&fields=a(b;c/d)&depth=2";
    struct nb_read rd;
    char err[256] = "";
    CU_ASSERT_EQUAL(nb_read_parse(q, &rd, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rd.content, NB_CONTENT_CONFIG);
    CU_ASSERT_EQUAL(rd.depth, 2);
    CU_ASSERT_PTR_EQUAL(rd.fields, q + strlen("content=config&fields="));
    CU_ASSERT_EQUAL(rd.fields_len, strlen("a(b;c/d)"));
    CU_ASSERT_EQUAL(nb_read_parse("fields=x", &rd, err, sizeof err), 0);
    CU_ASSERT_TRUE(nb_read_cuts(&rd));
    CU_ASSERT_EQUAL(rd.fields_len, 1);
    /* with-origin is the operational datastore's to judge: never set
     * here, even when the query has it; set, it is a cut. */
    CU_ASSERT_EQUAL(nb_read_parse("with-origin", &rd, err, sizeof err), 0);
    CU_ASSERT_FALSE(rd.with_origin);
    CU_ASSERT_FALSE(nb_read_cuts(&rd));
    rd.with_origin = true;
    CU_ASSERT_TRUE(nb_read_cuts(&rd));
    /* Not judged here: the schema says which paths are good. */
    CU_ASSERT_EQUAL(nb_read_parse("fields=((", &rd, err, sizeof err), 0);
    CU_ASSERT_EQUAL(nb_read_parse("depth=1&fields=", &rd, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the query's fields is empty: send "
                                  "the paths of the nodes to keep"));
    CU_ASSERT_EQUAL(nb_read_parse("fields", &rd, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(rd.fields);
    CU_ASSERT_EQUAL(rd.depth, 0);
}

/* RFC 8040 4.8.9: with-defaults' four values, with the others; any
 * other (a case or spelling off, none) told the four. */
static void
test_read_with_defaults(void)
{
    static const struct {
        const char *query;
        enum nb_with_defaults wd;
    } good[] = {
        { "", NB_WD_NONE },
        { "with-defaults=report-all", NB_WD_REPORT_ALL },
        { "with-defaults=trim", NB_WD_TRIM },
        { "with-defaults=explicit", NB_WD_EXPLICIT },
        { "depth=2&with-defaults=report-all-tagged&content=config",
          NB_WD_REPORT_ALL_TAGGED },
    };
    static const char *const bad[] = {
        "with-defaults=Trim", "with-defaults=report_all", "with-defaults=",
        "with-defaults", "content=config&with-defaults=all",
    };
    struct nb_read rd;
    char err[256] = "";
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        CU_ASSERT_EQUAL(nb_read_parse(good[i].query, &rd, err, sizeof err),
                        0);
        CU_ASSERT_EQUAL(rd.with_defaults, good[i].wd);
        CU_ASSERT_EQUAL(nb_read_cuts(&rd), i > 0);
    }
    CU_ASSERT_EQUAL(rd.content, NB_CONTENT_CONFIG);
    CU_ASSERT_EQUAL(rd.depth, 2);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CU_ASSERT_EQUAL(nb_read_parse(bad[i], &rd, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not one: send 'report-all', "
                                      "'trim', 'explicit' or "
                                      "'report-all-tagged' (RFC 8040 "
                                      "4.8.9)"));
    }
    CU_ASSERT_EQUAL(nb_read_parse("with-defaults=Trim", &rd, err,
                                  sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "the query's with-defaults 'Trim' is not "
                           "one: send 'report-all', 'trim', 'explicit' or "
                           "'report-all-tagged' (RFC 8040 4.8.9)");
}

static CU_TestInfo tests[] = {
    { "a parameter's raw value", test_value },
    { "good limit, offset and direction", test_parse_good },
    { "each bad value told what to send", test_parse_bad },
    { "a long value quoted cut at a character", test_quote_utf8 },
    { "pages tile the list both ways", test_pages_tile },
    { "a cursor's text: its key back, anything else refused", test_cursor },
    { "pages from a cursor, their next and previous", test_cursor_pages },
    { "content and depth read, bad ones told", test_read },
    { "fields read, an empty one told", test_read_fields },
    { "with-defaults read, a bad one told the four",
      test_read_with_defaults },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("nb_query", tests)
