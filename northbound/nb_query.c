/* nb_query: see nb_query.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "northbound/nb_query.h"
#include "planner/lr_utf8.h"

/* A quoted value in a message is cut here: the message must stay
 * readable whatever a client sent. */
#define NB_QUERY_QUOTE_MAX 40
#define NB_QUERY_QUOTE(v, len) NB_QUERY_CLIP((v), (len), NB_QUERY_QUOTE_MAX)

const char *
nb_query_quote(char *buf, size_t size, const char *v, size_t len)
{
    size_t m = sizeof LR_UTF8_CUT_MARK - 1, keep = size - 1 - m;
    if (!v)
        len = 0;
    if (len < size) {
        memcpy(buf, v ? v : "", len);
        buf[len] = '\0';
        return buf;
    }
    while (keep > 0 && ((unsigned char) v[keep] & 0xc0) == 0x80)
        keep--;
    memcpy(buf, v, keep);
    memcpy(buf + keep, LR_UTF8_CUT_MARK, m + 1);
    return buf;
}

bool
nb_query_value(const char *query, const char *name, const char **val,
               size_t *len)
{
    size_t n = strlen(name);
    for (const char *p = query; p && *p;) {
        size_t plen = strcspn(p, "&");
        if (plen >= n && !strncmp(p, name, n)
            && (p[n] == '&' || p[n] == '=' || !p[n])) {
            *val = p[n] == '=' ? p + n + 1 : NULL;
            *len = *val ? plen - n - 1 : 0;
            return true;
        }
        p += plen;
        p += *p == '&';
    }
    *val = NULL;
    *len = 0;
    return false;
}

/* [v, v + len) as a uint32 in decimal digits only (no sign, no space,
 * no leading '+'), into '*out'; false when it is not one. */
static bool
nb_query_u32(const char *v, size_t len, uint32_t *out)
{
    uint64_t x = 0;
    if (!v || !len || len > 10)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        x = x * 10 + (uint64_t) (v[i] - '0');
    }
    if (x > UINT32_MAX)
        return false;
    *out = (uint32_t) x;
    return true;
}

static bool
nb_query_is(const char *v, size_t len, const char *word)
{
    return v && len == strlen(word) && !strncmp(v, word, len);
}

static const char nb_b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

bool
nb_cursor_encode(const char *key, char *out)
{
    size_t len = strlen(key), o = 0;
    if (!len || len > NB_CURSOR_KEY_MAX)
        return false;
    for (size_t i = 0; i < len; i += 3) {
        const unsigned char *b = (const unsigned char *) key + i;
        size_t k = len - i < 3 ? len - i : 3;
        uint32_t w = (uint32_t) b[0] << 16
                     | (k > 1 ? (uint32_t) b[1] << 8 : 0)
                     | (k > 2 ? b[2] : 0);
        for (size_t j = 0; j <= k; j++)
            out[o++] = nb_b64url[(w >> (18 - 6 * j)) & 63];
    }
    out[o] = '\0';
    return true;
}

/* [v, v + len), a cursor's text, decoded into key[NB_CURSOR_KEY_MAX +
 * 1]; false unless it is one nb_cursor_encode() makes: base64url
 * characters only, no padding, no length that no key gives, no bits set
 * past the key's last byte (one text a key), no NUL in the key. */
static bool
nb_cursor_decode(const char *v, size_t len, char *key)
{
    uint32_t w = 0;
    size_t o = 0;
    if (!v || !len || len >= NB_CURSOR_TEXT_MAX || len % 4 == 1)
        return false;
    for (size_t i = 0; i < len; i++) {
        const char *c = v[i] ? strchr(nb_b64url, v[i]) : NULL;
        if (!c)
            return false;
        w = w << 6 | (uint32_t) (c - nb_b64url);
        if (i % 4 == 3 || i == len - 1) {
            /* 4 characters hold 3 bytes, 3 hold 2, 2 hold 1. */
            size_t chars = i % 4 + 1, bytes = chars - 1;
            size_t spare = 6 * chars - 8 * bytes;
            if (w & ((1u << spare) - 1))
                return false;
            w >>= spare;
            for (size_t j = bytes; j-- > 0;) {
                char b = (char) ((w >> (8 * j)) & 0xff);
                if (!b)
                    return false;
                key[o++] = b;
            }
            w = 0;
        }
    }
    key[o] = '\0';
    return true;
}

int
nb_page_parse(const char *query, struct nb_page *pg, char *err,
              size_t errlen)
{
    static const char *const unimplemented[] = {
        "locale", "sublist-limit",
    };
    const char *v;
    size_t len;

    pg->offset = 0;
    pg->limit = 0;
    pg->backwards = false;
    pg->where = pg->sort_by = NULL;
    pg->where_len = pg->sort_by_len = 0;
    pg->cursor[0] = '\0';
    for (size_t i = 0; i < sizeof unimplemented / sizeof *unimplemented;
         i++)
        if (nb_query_value(query, unimplemented[i], &v, &len)) {
            snprintf(err, errlen, "this server does not implement the "
                     "query parameter '%s' of list pagination: page with "
                     "limit, offset or cursor, direction, where and "
                     "sort-by",
                     unimplemented[i]);
            return ENOTSUP;
        }
    if (nb_query_value(query, "limit", &v, &len)
        && !nb_query_is(v, len, "unbounded")
        && (!nb_query_u32(v, len, &pg->limit) || !pg->limit)) {
        snprintf(err, errlen, "the query's limit '%s' is not a page "
                 "size: send a whole number from 1 to %u, or 'unbounded' "
                 "for every entry", NB_QUERY_QUOTE(v, len),
                 (unsigned) UINT32_MAX);
        pg->limit = 0;
        return EINVAL;
    }
    if (nb_query_value(query, "offset", &v, &len)
        && !nb_query_u32(v, len, &pg->offset)) {
        snprintf(err, errlen, "the query's offset '%s' is not a count of "
                 "entries to skip: send a whole number from 0 to %u",
                 NB_QUERY_QUOTE(v, len), (unsigned) UINT32_MAX);
        pg->offset = 0;
        return EINVAL;
    }
    if (nb_query_value(query, "cursor", &v, &len)) {
        /* An empty cursor is the list's start (the draft's default, "the
         * same as the cursor of the first element"). */
        if (len && !nb_cursor_decode(v, len, pg->cursor)) {
            snprintf(err, errlen, "the query's cursor '%s' is not one "
                     "this server gives: send the value of a page's "
                     "'next' or 'previous' annotation as it came, or page "
                     "with offset",
                     NB_QUERY_QUOTE(v, len));
            pg->cursor[0] = '\0';
            return EINVAL;
        }
        if (nb_query_value(query, "offset", &v, &len)) {
            snprintf(err, errlen, "the query has both a cursor and an "
                     "offset: send one, the cursor to start at the entry "
                     "it names or the offset to skip that many");
            pg->cursor[0] = '\0';
            pg->offset = 0;
            return EINVAL;
        }
    }
    if (nb_query_value(query, "direction", &v, &len)) {
        if (nb_query_is(v, len, "backwards"))
            pg->backwards = true;
        else if (!nb_query_is(v, len, "forwards")) {
            snprintf(err, errlen, "the query's direction '%s' is not one: "
                     "send 'forwards' (the list's order) or 'backwards'",
                     NB_QUERY_QUOTE(v, len));
            return EINVAL;
        }
    }
    if (nb_query_value(query, "where", &v, &len)) {
        if (!len) {
            /* An example both datastores take (running has no state,
             * RFC 8342 5.1.3). */
            snprintf(err, errlen, "the query's where is empty: send an "
                     "XPath 1.0 expression over an entry, such as "
                     "where=priority>5, or no where");
            return EINVAL;
        }
        pg->where = v;
        pg->where_len = len;
    }
    if (nb_query_value(query, "sort-by", &v, &len)) {
        if (!len) {
            snprintf(err, errlen, "the query's sort-by is empty: send the "
                     "path of a leaf of an entry, such as sort-by=name, or "
                     "no sort-by");
            return EINVAL;
        }
        pg->sort_by = v;
        pg->sort_by_len = len;
    }
    return 0;
}

int
nb_page_slice(const struct nb_page *pg, size_t n, size_t *count,
              size_t *remaining, char *err, size_t errlen)
{
    *count = 0;
    *remaining = 0;
    if (pg->offset > n) {
        snprintf(err, errlen, "the query's offset %u is past the end of "
                 "the list, which has %zu entries: send an offset from 0 "
                 "to %zu", (unsigned) pg->offset, n, n);
        return ERANGE;
    }
    size_t left = n - pg->offset;
    *count = pg->limit && pg->limit < left ? pg->limit : left;
    *remaining = left - *count;
    return 0;
}

size_t
nb_page_entry(const struct nb_page *pg, size_t n, size_t k)
{
    size_t i = pg->offset + k;
    return pg->backwards ? n - 1 - i : i;
}

void
nb_page_at(struct nb_page *pg, size_t n, size_t i)
{
    /* n is a count of entries in memory: n - 1 fits the offset. */
    pg->offset = (uint32_t) (pg->backwards ? n - 1 - i : i);
}

bool
nb_page_next(const struct nb_page *pg, size_t n, size_t count, size_t *i)
{
    if ((size_t) pg->offset + count >= n)
        return false;
    *i = nb_page_entry(pg, n, count);
    return true;
}

bool
nb_page_previous(const struct nb_page *pg, size_t n, size_t *i)
{
    if (!pg->offset || pg->offset > n)
        return false;
    size_t at = pg->offset - 1;
    *i = pg->backwards ? n - 1 - at : at;
    return true;
}

/* with-defaults= of 'query' into rd->with_defaults (RFC 8040 4.8.9:
 * RFC 6243's four retrieval modes); EINVAL naming them for another. */
static int
nb_read_with_defaults(const char *query, struct nb_read *rd, char *err,
                      size_t errlen)
{
    static const struct {
        const char *name;
        enum nb_with_defaults wd;
    } modes[] = {
        { "report-all", NB_WD_REPORT_ALL },
        { "trim", NB_WD_TRIM },
        { "explicit", NB_WD_EXPLICIT },
        { "report-all-tagged", NB_WD_REPORT_ALL_TAGGED },
    };
    const char *v;
    size_t len;
    if (!nb_query_value(query, "with-defaults", &v, &len))
        return 0;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (nb_query_is(v, len, modes[i].name)) {
            rd->with_defaults = modes[i].wd;
            return 0;
        }
    snprintf(err, errlen, "the query's with-defaults '%s' is not one: "
             "send 'report-all', 'trim', 'explicit' or 'report-all-tagged' "
             "(RFC 8040 4.8.9)",
             NB_QUERY_QUOTE(v, len));
    return EINVAL;
}

int
nb_read_parse(const char *query, struct nb_read *rd, char *err,
              size_t errlen)
{
    const char *v;
    size_t len;
    uint32_t d = 0;

    rd->content = NB_CONTENT_ALL;
    rd->depth = 0;
    rd->fields = NULL;
    rd->fields_len = 0;
    rd->with_defaults = NB_WD_NONE;
    rd->with_origin = false;
    if (nb_read_with_defaults(query, rd, err, errlen))
        return EINVAL;
    if (nb_query_value(query, "content", &v, &len)) {
        if (nb_query_is(v, len, "config"))
            rd->content = NB_CONTENT_CONFIG;
        else if (nb_query_is(v, len, "nonconfig"))
            rd->content = NB_CONTENT_NONCONFIG;
        else if (!nb_query_is(v, len, "all")) {
            snprintf(err, errlen, "the query's content '%s' is not one: "
                     "send 'config' (configuration nodes), 'nonconfig' "
                     "(state nodes) or 'all' (RFC 8040 4.8.1)",
                     NB_QUERY_QUOTE(v, len));
            return EINVAL;
        }
    }
    if (nb_query_value(query, "depth", &v, &len)
        && !nb_query_is(v, len, "unbounded")) {
        if (!nb_query_u32(v, len, &d) || d < 1 || d > UINT16_MAX) {
            snprintf(err, errlen, "the query's depth '%s' is not a depth: "
                     "send a whole number from 1 (the resource alone) to "
                     "%u, or 'unbounded' (RFC 8040 4.8.2)",
                     NB_QUERY_QUOTE(v, len), (unsigned) UINT16_MAX);
            rd->content = NB_CONTENT_ALL;
            return EINVAL;
        }
        rd->depth = (uint16_t) d;
    }
    if (nb_query_value(query, "fields", &v, &len)) {
        if (!len) {
            snprintf(err, errlen, "the query's fields is empty: send the "
                     "paths of the nodes to keep, separated by ';', a "
                     "node's children in parentheses, such as "
                     "fields=state/phase;gpus(min) (RFC 8040 4.8.3), or no "
                     "fields");
            rd->content = NB_CONTENT_ALL;
            rd->depth = 0;
            return EINVAL;
        }
        rd->fields = v;
        rd->fields_len = len;
    }
    return 0;
}

bool
nb_read_cuts(const struct nb_read *rd)
{
    return rd->content != NB_CONTENT_ALL || rd->depth || rd->fields
           || rd->with_defaults != NB_WD_NONE || rd->with_origin;
}
