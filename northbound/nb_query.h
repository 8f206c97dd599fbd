/*
 * nb_query: the values of a request's query parameters, and the list
 * pagination of draft-ietf-netconf-list-pagination(-rc) read from them.
 * Pure: no I/O, no allocation; the unit test is tests/unit/test_nb_query.
 *
 * nb_server has already percent-decoded each name and value, and
 * refused a query with a broken escape, a parameter its row does not
 * take, or one given twice (400): these functions judge the values
 * only, and take the first of a name.
 */
#ifndef NB_QUERY_H
#define NB_QUERY_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pagination parameters a list resource that pages takes, for its
 * row of the route table (struct nb_route's query).  limit, offset,
 * direction, cursor, where and sort-by are implemented; the others are
 * named so that they get the draft's "not implemented" (nb_page_parse's
 * ENOTSUP) rather than "unknown parameter". */
#define NB_PAGE_PARAMS \
    "limit offset direction cursor where sort-by locale sublist-limit"

/* The parameters of RFC 8040 4.8.1, 4.8.2, 4.8.3 and 4.8.9 that GET and
 * HEAD of every data resource take, for its row of the route table. */
#define NB_READ_PARAMS "content depth fields with-defaults"

/* What a GET asks of a data resource: its content (4.8.1), depth
 * (4.8.2), fields (4.8.3) and with-defaults (4.8.9), the yang layer's
 * lr_yang_read_json() doing the cut. */
enum nb_content {
    NB_CONTENT_ALL,
    NB_CONTENT_CONFIG,
    NB_CONTENT_NONCONFIG,
};
enum nb_with_defaults {
    NB_WD_NONE,                 /* not given */
    NB_WD_REPORT_ALL,
    NB_WD_TRIM,
    NB_WD_EXPLICIT,
    NB_WD_REPORT_ALL_TAGGED,
};
struct nb_read {
    enum nb_content content;
    uint16_t depth;             /* 1..65535; 0: unbounded */
    /* The fields-expr, borrowed from the query, 'fields_len' bytes;
     * NULL when not given.  The yang layer judges it against the
     * resource's schema. */
    const char *fields;
    size_t fields_len;
    enum nb_with_defaults with_defaults;
    /* RFC 8527 3.2.2's with-origin: never set by nb_read_parse(), as
     * only the operational datastore takes it (its handler judges it
     * and sets this). */
    bool with_origin;
};

/* content=, depth=, fields= and with-defaults= of 'query' (absent: all,
 * unbounded, none, none).  0, or EINVAL for a value RFC 8040 does not
 * allow (400 invalid-value; a fields or with-defaults with no value too),
 * with err[] naming the parameter and the values it takes. */
int nb_read_parse(const char *query, struct nb_read *rd, char *err,
                  size_t errlen);

/* Whether 'rd' changes what a GET sends (lr_yang_select_json() needed). */
bool nb_read_cuts(const struct nb_read *rd);

/* Whether parameter 'name' is in 'query' ("a&b=c", as nb_server hands
 * it over: names and values decoded); if so, '*val' points at its value
 * in 'query' and '*len' is its length, or '*val' is NULL when the name
 * has no '='.  'query' may be NULL (no query). */
bool nb_query_value(const char *query, const char *name, const char **val,
                    size_t *len);

/* The 'len' bytes at 'v' (NULL: none), a value of the query, as a
 * message quotes them, into buf[size] (size > sizeof LR_UTF8_CUT_MARK):
 * whole when they fit, else cut at the start of a character and marked
 * as lr_utf8_mark_cut() marks it.  A decoded value may hold any UTF-8
 * (%C3%A9), and "%.40s" cut inside a character: the 400's JSON carried
 * U+FFFD.  Returns buf. */
const char *nb_query_quote(char *buf, size_t size, const char *v,
                           size_t len);

/* nb_query_quote() of at most 'max' bytes (a constant) into a compound
 * literal, which lives to the end of the enclosing block: pass it
 * straight to the call that prints it. */
#define NB_QUERY_CLIP(v, len, max) \
    nb_query_quote((char[(max) + 1]){ "" }, (max) + 1, (v), (len))

/* The most bytes of a key a cursor names, and of the cursor's text
 * (the key in base64url, RFC 4648 section 5, without padding: 4
 * characters for 3 bytes), its NUL included. */
#define NB_CURSOR_KEY_MAX 255
#define NB_CURSOR_TEXT_MAX (4 * ((NB_CURSOR_KEY_MAX + 2) / 3) + 1)

/* A page of a list, in the list's order ("forwards") or the reverse:
 * skip 'offset' entries, then give at most 'limit' (0: unbounded).  The
 * list is first the entries 'where' selects, in the order of 'sort-by'
 * (the list's own without it): both are the query's text, borrowed from
 * it, 'where_len' and 'sort_by_len' bytes, NULL when not given; the
 * list's layer judges them.  With a cursor (the draft's, an opaque value
 * the server sent as a page's "next" or "previous"), 'cursor' is the key
 * of the entry it names, decoded (a string; "" when no cursor was given,
 * or an empty one, which the draft makes the list's start): the list's
 * layer finds that entry and starts the page there (nb_page_at()), where
 * an offset would count entries. */
struct nb_page {
    uint32_t offset;
    uint32_t limit;
    bool backwards;
    const char *where, *sort_by;
    size_t where_len, sort_by_len;
    char cursor[NB_CURSOR_KEY_MAX + 1];
};

/* The page 'query' asks for (no query: the whole list, forwards).
 * 0; EINVAL for a bad value of limit, offset, direction or cursor (RFC
 * 8040 400 invalid-value; also a where or sort-by with no value, and a
 * cursor with an offset, which the draft makes one or the other);
 * ENOTSUP for locale or sublist-limit, which this server does not
 * implement (501 operation-not-supported, the draft's answer for a
 * parameter a server does not support).  Else err[] says what was wrong
 * and what to send. */
int nb_page_parse(const char *query, struct nb_page *pg, char *err,
                  size_t errlen);

/* The page 'pg' of a list of 'n' entries: '*count' entries, the k-th
 * being entry nb_page_entry(pg, n, k) of the list in its own order, and
 * '*remaining' the entries past the page that the limit left out (what
 * the "remaining" annotation reports; 0: the page reaches the end).
 * 0, or ERANGE when the offset is past the end (offset > n; offset == n
 * is an empty page): 416 invalid-value, error-app-tag
 * offset-out-of-range, with err[] saying so. */
int nb_page_slice(const struct nb_page *pg, size_t n, size_t *count,
                  size_t *remaining, char *err, size_t errlen);

/* The index, in the list's own order, of the page's k-th entry. */
size_t nb_page_entry(const struct nb_page *pg, size_t n, size_t k);

/* The page of a cursor: 'pg' starts at entry 'i' of a list of 'n' (i <
 * n, in the list's own order: the entry the cursor names), in its
 * direction, as an offset (then nb_page_slice()). */
void nb_page_at(struct nb_page *pg, size_t n, size_t i);

/* The entries the page's "next" and "previous" cursors name, for a page
 * of 'count' entries (nb_page_slice()) of a list of 'n': '*i' the index,
 * in the list's own order, of the entry after the page's last, or of
 * the one before its first, in the page's direction; false when there
 * is none (the page reaches that end). */
bool nb_page_next(const struct nb_page *pg, size_t n, size_t count,
                  size_t *i);
bool nb_page_previous(const struct nb_page *pg, size_t n, size_t *i);

/* The cursor naming the entry whose key is 'key' (a string of 1 to
 * NB_CURSOR_KEY_MAX bytes) into out[NB_CURSOR_TEXT_MAX]: base64url
 * without padding, which a query carries unescaped.  false when 'key'
 * is empty or longer. */
bool nb_cursor_encode(const char *key, char *out);

#endif
