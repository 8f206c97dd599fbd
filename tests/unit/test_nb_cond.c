/* Conditional requests (northbound/nb_cond): entity-tags of a text,
 * If-Match and If-None-Match lists, HTTP-dates, and the verdict of
 * RFC 9110 13.2.2 for each precondition. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "northbound/nb_cond.h"
#include "tests/lr_test.h"

#define TAG "\"0123456789abcdef0123456789abcdef\""

static void
test_etag_of(void)
{
    char a[NB_ETAG_MAX], b[NB_ETAG_MAX], c[NB_ETAG_MAX];
    nb_etag_of("{\"x\":1}", 7, a);
    nb_etag_of("{\"x\":1}", 7, b);
    nb_etag_of("{\"x\":2}", 7, c);
    CU_ASSERT_EQUAL(strlen(a), 34);
    CU_ASSERT_EQUAL(a[0], '"');
    CU_ASSERT_EQUAL(a[33], '"');
    CU_ASSERT_EQUAL(strspn(a + 1, "0123456789abcdef"), 32);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_STRING_NOT_EQUAL(a, c);
    /* SHA-256 of "abc", its first 16 bytes. */
    nb_etag_of("abc", 3, a);
    CU_ASSERT_STRING_EQUAL(a, "\"ba7816bf8f01cfea414140de5dae2223\"");
}

static void
test_match(void)
{
    static const struct {
        const char *header;
        bool strong, weak;            /* the match by each comparison */
    } good[] = {
        { TAG, true, true },
        { "*", true, true },
        { "  *  ", true, true },
        { "\"other\"", false, false },
        { "W/" TAG, false, true },
        { "\"a\", W/\"b\", " TAG, true, true },
        { "\"a\",W/" TAG, false, true },
        { ", ,\"a\" ,, " TAG " ,", true, true },
        { "\"\"", false, false },
        { "\"a\", \"b\"", false, false },
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        bool m = !good[i].strong;
        CU_ASSERT_EQUAL(nb_etag_match(good[i].header, TAG, false, &m), 0);
        CU_ASSERT_EQUAL(m, good[i].strong);
        m = !good[i].weak;
        CU_ASSERT_EQUAL(nb_etag_match(good[i].header, TAG, true, &m), 0);
        CU_ASSERT_EQUAL(m, good[i].weak);
    }
    static const char *const bad[] = {
        "", "   ", ",", "abc", "0123456789abcdef0123456789abcdef",
        "\"a", "\"a\" \"b\"", "\"a\";", "* , \"a\"", "\"a\", *", "w/\"a\"",
        "W/ \"a\"", "\"a b\"", "\"a\"x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool m = true;
        CU_ASSERT_EQUAL(nb_etag_match(bad[i], TAG, false, &m), EINVAL);
        CU_ASSERT_FALSE(m);
    }
}

static void
test_dates(void)
{
    time_t t;
    char buf[32];
    /* RFC 9110 5.6.7's three forms of one moment. */
    CU_ASSERT_EQUAL(nb_http_date_parse("Sun, 06 Nov 1994 08:49:37 GMT", &t),
                    0);
    CU_ASSERT_EQUAL(t, 784111777);
    t = 0;
    CU_ASSERT_EQUAL(nb_http_date_parse("Sunday, 06-Nov-94 08:49:37 GMT",
                                       &t), 0);
    CU_ASSERT_EQUAL(t, 784111777);
    t = 0;
    CU_ASSERT_EQUAL(nb_http_date_parse("Sun Nov  6 08:49:37 1994", &t), 0);
    CU_ASSERT_EQUAL(t, 784111777);
    nb_http_date(784111777, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "Sun, 06 Nov 1994 08:49:37 GMT");
    nb_http_date(0, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "Thu, 01 Jan 1970 00:00:00 GMT");
    static const char *const bad[] = {
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 "
        "08:49:37 GMT x", "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov "
        "1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "784111777",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CU_ASSERT_EQUAL(nb_http_date_parse(bad[i], &t), EINVAL);
}

/* The time 'y'-'mo'-'d' 00:00:00 UTC. */
static time_t
utc(int y, int mo, int d)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d };
    return timegm(&tm);
}

/* RFC 9110 5.6.7: a two-digit year more than 50 years after now is the
 * latest past year with those digits; relative to now, no fixed cut. */
static void
test_two_digit_years(void)
{
    static const struct {
        int now_year;
        const char *date;
        int year;
    } cases[] = {
        { 2026, "Friday, 06-Nov-76 08:49:37 GMT", 2076 },  /* 49.9 years */
        { 2026, "Monday, 07-Dec-76 00:00:00 GMT", 1976 },  /* over 50 */
        { 2026, "Sunday, 06-Nov-94 08:49:37 GMT", 1994 },
        { 2026, "Saturday, 06-Dec-25 00:00:00 GMT", 2025 },
        { 2050, "Sunday, 06-Nov-80 08:49:37 GMT", 2080 },
        { 2050, "Friday, 06-Nov-99 08:49:37 GMT", 2099 },
        { 2090, "Monday, 06-Nov-45 08:49:37 GMT", 2045 },
        { 2090, "Thursday, 06-Dec-40 00:00:01 GMT", 2040 },
        { 2090, "Sunday, 06-Nov-39 08:49:37 GMT", 2139 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        time_t t = 0;
        CU_ASSERT_EQUAL(nb_http_date_parse_at(cases[i].date,
                                              utc(cases[i].now_year, 12, 6),
                                              &t), 0);
        struct tm tm;
        gmtime_r(&t, &tm);
        if (tm.tm_year + 1900 != cases[i].year)
            fprintf(stderr, "%s at %d: %d\n", cases[i].date,
                    cases[i].now_year, tm.tm_year + 1900);
        CU_ASSERT_EQUAL(tm.tm_year + 1900, cases[i].year);
    }
}

/* Last-Modified is sent only for a change before the current second. */
static void
test_last_modified(void)
{
    CU_ASSERT_EQUAL(nb_last_modified(1000, 1001), 1000);
    CU_ASSERT_EQUAL(nb_last_modified(1000, 5000), 1000);
    CU_ASSERT_EQUAL(nb_last_modified(1000, 1000), 0);
    CU_ASSERT_EQUAL(nb_last_modified(1001, 1000), 0);  /* clock stepped */
}

/* The verdict on 'rq' for a resource of tag TAG last changed at 1000. */
static int
verdict(struct nb_request *rq, struct nb_response *resp)
{
    memset(resp, 0, sizeof *resp);
    return nb_cond_check(rq, TAG, 1000, resp);
}

static const char *
error_tag_message(const struct nb_response *resp)
{
    return resp->body ? strstr(resp->body, "error-message") : NULL;
}

static void
test_check(void)
{
    struct nb_response resp;
    struct nb_request get = { .method = NB_GET }, put = { .method = NB_PUT };
    const char *before = "Thu, 01 Jan 1970 00:16:39 GMT";   /* 999 */
    const char *at = "Thu, 01 Jan 1970 00:16:40 GMT";       /* 1000 */

    /* None: on. */
    CU_ASSERT_EQUAL(verdict(&get, &resp), 0);
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);

    /* If-Match: a tag that is not the resource's, or weak, is 412. */
    put.if_match = TAG;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    put.if_match = "*";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    put.if_match = "\"old\"";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_EQUAL(resp.status, 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "\"operation-failed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "GET the resource again"));
    CU_ASSERT_STRING_EQUAL(resp.etag, "");
    free(resp.body);
    put.if_match = "W/" TAG;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(error_tag_message(&resp), "a weak "
                                  "entity-tag (W/...) never matches "
                                  "If-Match: send the ETag exactly as the "
                                  "GET gave it"));
    CU_ASSERT_PTR_NULL(strstr(resp.body, "changed since"));
    free(resp.body);
    put.if_match = "W/\"old\", W/" TAG;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "a weak entity-tag"));
    free(resp.body);
    put.if_match = "W/\"old\"";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "changed since"));
    free(resp.body);
    put.if_match = "\"a\" \"b\"";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 400);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "\"invalid-value\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_tag_message(&resp),
                                  "send the ETag a GET of the resource "
                                  "answered, e.g. If-Match: "));
    free(resp.body);

    /* If-Unmodified-Since: only a date before the change fails; it does
     * not count beside If-Match; a date that is none is ignored. */
    put.if_match = NULL;
    put.if_unmodified_since = at;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    put.if_unmodified_since = before;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "If-Unmodified-Since"));
    free(resp.body);
    put.if_match = TAG;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    put.if_match = NULL;
    put.if_unmodified_since = "last week";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    put.if_unmodified_since = NULL;

    /* If-None-Match: on a PUT, a match (or '*': the resource exists) is
     * 412; on a GET, 304 with the validators and no body. */
    put.if_none_match = "*";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(error_tag_message(&resp), "the resource "
                                  "exists, and If-None-Match: * lets a "
                                  "request only create one: send the "
                                  "request without If-None-Match to "
                                  "replace it"));
    CU_ASSERT_PTR_NULL(strstr(resp.body, "If-Match: the ETag"));
    free(resp.body);
    /* A job's DELETE: nothing to replace. */
    struct nb_request del = { .method = NB_DELETE, .if_none_match = "*" };
    CU_ASSERT_EQUAL(verdict(&del, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(error_tag_message(&resp), "send the "
                                  "request without If-None-Match to "
                                  "delete it"));
    free(resp.body);
    put.if_none_match = TAG;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "If-None-Match names"));
    free(resp.body);
    put.if_none_match = "\"other\"";
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);
    get.if_none_match = "\"a\", W/" TAG;
    CU_ASSERT_EQUAL(verdict(&get, &resp), 304);
    CU_ASSERT_EQUAL(resp.status, 304);
    CU_ASSERT_PTR_NULL(resp.body);
    CU_ASSERT_STRING_EQUAL(resp.etag, TAG);
    CU_ASSERT_EQUAL(resp.last_modified, 1000);
    get.if_none_match = "\"other\"";
    CU_ASSERT_EQUAL(verdict(&get, &resp), 0);
    get.if_none_match = "nope";
    CU_ASSERT_EQUAL(verdict(&get, &resp), 400);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "If-None-Match is neither"));
    free(resp.body);

    /* If-Modified-Since: 304 from the change on, not before; ignored
     * beside If-None-Match, on a PUT, and for a date in the future. */
    get.if_none_match = NULL;
    get.if_modified_since = at;
    CU_ASSERT_EQUAL(verdict(&get, &resp), 304);
    get.if_modified_since = before;
    CU_ASSERT_EQUAL(verdict(&get, &resp), 0);
    get.if_modified_since = "Fri, 01 Jan 2100 00:00:00 GMT";
    CU_ASSERT_EQUAL(verdict(&get, &resp), 0);
    get.if_modified_since = at;
    get.if_none_match = "\"other\"";
    CU_ASSERT_EQUAL(verdict(&get, &resp), 0);
    put.if_modified_since = at;
    CU_ASSERT_EQUAL(verdict(&put, &resp), 0);

    /* A change in the current second: a date of that second could be
     * followed by another change in it, so no 304 by date and no
     * Last-Modified (the ETag tells); 304 by tag without the date. */
    time_t now = time(NULL);
    char date[32];
    nb_http_date(now, date, sizeof date);
    struct nb_request fresh = { .method = NB_GET, .if_modified_since = date };
    memset(&resp, 0, sizeof resp);
    CU_ASSERT_EQUAL(nb_cond_check(&fresh, TAG, now, &resp), 0);
    fresh.if_modified_since = NULL;
    fresh.if_none_match = TAG;
    CU_ASSERT_EQUAL(nb_cond_check(&fresh, TAG, now, &resp), 304);
    CU_ASSERT_EQUAL(resp.last_modified, 0);
}

/* A resource with an entity-tag and no modification date (modified 0,
 * the jobs'): the dates are ignored (RFC 9110 13.1.3, 13.1.4), the tag
 * judged as ever, and no 304 carries a Last-Modified. */
static void
test_check_undated(void)
{
    struct nb_response resp = { 0 };
    struct nb_request get = {
        .method = NB_GET,
        .if_modified_since = "Fri, 01 Jan 2021 00:00:00 GMT",
    };
    CU_ASSERT_EQUAL(nb_cond_check(&get, TAG, 0, &resp), 0);
    get.if_modified_since = "Thu, 01 Jan 1970 00:00:00 GMT";
    CU_ASSERT_EQUAL(nb_cond_check(&get, TAG, 0, &resp), 0);
    get.if_none_match = TAG;
    CU_ASSERT_EQUAL(nb_cond_check(&get, TAG, 0, &resp), 304);
    CU_ASSERT_STRING_EQUAL(resp.etag, TAG);
    CU_ASSERT_EQUAL(resp.last_modified, 0);
    struct nb_request del = {
        .method = NB_DELETE,
        .if_unmodified_since = "Thu, 01 Jan 1970 00:00:00 GMT",
    };
    memset(&resp, 0, sizeof resp);
    CU_ASSERT_EQUAL(nb_cond_check(&del, TAG, 0, &resp), 0);
    del.if_match = TAG;
    CU_ASSERT_EQUAL(nb_cond_check(&del, TAG, 0, &resp), 0);
    del.if_match = "\"ffffffffffffffffffffffffffffffff\"";
    CU_ASSERT_EQUAL(nb_cond_check(&del, TAG, 0, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "changed since the entity-tag"));
    free(resp.body);
}

/* A resource without validators: If-Match only as '*'. */
static void
test_check_untagged(void)
{
    struct nb_response resp = { 0 };
    struct nb_request rq = { .method = NB_DELETE };
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 0);
    rq.if_match = " * ";
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 0);
    rq.if_match = NULL;
    rq.if_unmodified_since = "Thu, 01 Jan 1970 00:00:00 GMT";
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 0);
    rq.if_match = "\"stale\"";
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 412);
    CU_ASSERT_EQUAL(resp.status, 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "\"operation-failed\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(error_tag_message(&resp), "this resource "
                                  "has no entity-tag"));
    free(resp.body);
    memset(&resp, 0, sizeof resp);
    rq.if_match = "\"\"";
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 412);
    free(resp.body);
    memset(&resp, 0, sizeof resp);
    rq.if_match = "*, \"a\"";      /* no list: the same 412 */
    CU_ASSERT_EQUAL(nb_cond_check_untagged(&rq, &resp), 412);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "has no entity-tag"));
    free(resp.body);
}

static CU_TestInfo tests[] = {
    { "the entity-tag of a text", test_etag_of },
    { "If-Match and If-None-Match lists", test_match },
    { "HTTP-dates, three forms", test_dates },
    { "two-digit years relative to now", test_two_digit_years },
    { "Last-Modified not within the current second", test_last_modified },
    { "the preconditions' verdicts", test_check },
    { "a tag and no date", test_check_undated },
    { "If-Match on a resource without validators", test_check_untagged },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("nb_cond", tests)
