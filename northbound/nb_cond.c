/* nb_cond: see nb_cond.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "northbound/nb_cond.h"

static const char nb_days[7][4] = {
    "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
};
static const char nb_months[12][4] = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun",
    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

void
nb_etag_of(const char *text, size_t len, char etag[NB_ETAG_MAX])
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    /* A digest rather than a counter: the tag follows the content, so
     * it is the same after a restart that loads the same documents, and
     * a PUT of what is there already changes nothing.  128 bits keep
     * the header short; no client can make two documents of one tag. */
    EVP_Digest(text, len, md, NULL, EVP_sha256(), NULL);
    etag[0] = '"';
    for (int i = 0; i < 16; i++)
        snprintf(etag + 1 + 2 * i, 3, "%02x", md[i]);
    etag[33] = '"';
    etag[34] = '\0';
}

/* RFC 9110 8.8.3: etagc = %x21 / %x23-7E / obs-text. */
static bool
nb_etagc(unsigned char c)
{
    return c == 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80;
}

int
nb_etag_match(const char *header, const char *etag, bool weak, bool *match)
{
    const char *p = header + strspn(header, " \t");
    size_t elen = strlen(etag);
    bool any = false;
    *match = false;
    if (*p == '*') {
        p++;
        if (p[strspn(p, " \t")])
            return EINVAL;
        *match = true;
        return 0;
    }
    for (;;) {
        p += strspn(p, " \t");
        if (*p == ',') {              /* empty elements: RFC 9110 5.6.1 */
            p++;
            continue;
        }
        if (!*p)
            break;
        bool w = p[0] == 'W' && p[1] == '/';
        p += w ? 2 : 0;
        if (*p != '"')
            return EINVAL;
        const char *q = p + 1;
        while (nb_etagc((unsigned char) *q))
            q++;
        if (*q != '"')
            return EINVAL;
        size_t n = (size_t) (q - p) + 1;
        if ((!w || weak) && n == elen && !memcmp(p, etag, n))
            *match = true;
        any = true;
        p = q + 1;
        p += strspn(p, " \t");
        if (*p && *p != ',')
            return EINVAL;
    }
    return any ? 0 : EINVAL;
}

static int
nb_name_index(const char *name, const char (*names)[4], int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

int
nb_http_date_parse(const char *s, time_t *t)
{
    return nb_http_date_parse_at(s, time(NULL), t);
}

int
nb_http_date_parse_at(const char *s, time_t now, time_t *t)
{
    char wday[10], mon[4];
    int day, year, h, m, sec, end = -1;
    bool two_digits = false;
    /* IMF-fixdate, then RFC 850's and asctime's forms (RFC 9110 5.6.7:
     * a recipient takes all three).  %n is set only when the whole form
     * matched: 'end' -1 is a mismatch after the last conversion. */
    if (sscanf(s, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", wday,
               &day, mon, &year, &h, &m, &sec, &end) == 7
        && end >= 0 && !s[end]) {
        if (nb_name_index(wday, nb_days, 7) < 0)
            return EINVAL;
    } else if (end = -1,
               sscanf(s, "%9[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n",
                      wday, &day, mon, &year, &h, &m, &sec, &end) == 7
               && end >= 0 && !s[end]) {
        /* Two digits: the year with them from 50 years before now's
         * on, unless that is more than 50 years after now (below). */
        struct tm cur;
        gmtime_r(&now, &cur);
        int this_year = cur.tm_year + 1900;
        year += this_year - this_year % 100;
        year += year < this_year - 50 ? 100 : 0;
        two_digits = true;
    } else if (end = -1,
               sscanf(s, "%3[A-Za-z] %3[A-Za-z] %2d %2d:%2d:%2d %4d%n", wday,
                      mon, &day, &h, &m, &sec, &year, &end) == 7
               && end >= 0 && !s[end]) {
        if (nb_name_index(wday, nb_days, 7) < 0)
            return EINVAL;
    } else {
        return EINVAL;
    }
    int mo = nb_name_index(mon, nb_months, 12);
    if (two_digits && mo >= 0) {
        /* RFC 9110 5.6.7: a date more than 50 years after now is the
         * latest past year with those digits.  Relative to now, not a
         * fixed cut, which would drift from the rule as years pass. */
        struct tm lim;
        gmtime_r(&now, &lim);
        lim.tm_year += 50;
        struct tm tm = {
            .tm_year = year - 1900, .tm_mon = mo, .tm_mday = day,
            .tm_hour = h, .tm_min = m, .tm_sec = sec,
        };
        if (timegm(&tm) > timegm(&lim))
            year -= 100;
    }
    if (mo < 0 || day < 1 || day > 31 || h > 23 || m > 59 || sec > 60
        || year < 1970 || h < 0 || m < 0 || sec < 0)
        return EINVAL;
    struct tm tm = {
        .tm_year = year - 1900, .tm_mon = mo, .tm_mday = day,
        .tm_hour = h, .tm_min = m, .tm_sec = sec,
    };
    *t = timegm(&tm);
    return *t == (time_t) -1 ? EINVAL : 0;
}

time_t
nb_last_modified(time_t modified, time_t now)
{
    /* A date has one-second resolution: a change later in the current
     * second would have the same one, so a client that sent it back in
     * If-Modified-Since would get a false 304.  Without Last-Modified it
     * goes by the ETag, which follows every change. */
    return modified < now ? modified : 0;
}

void
nb_http_date(time_t t, char *buf, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, len, "%s, %02d %s %04d %02d:%02d:%02d GMT",
             nb_days[tm.tm_wday], tm.tm_mday, nb_months[tm.tm_mon],
             tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int
nb_cond_bad(struct nb_response *resp, const char *field)
{
    nb_error(resp, 400, "invalid-value", NULL, "%s is neither '*' nor "
             "entity-tags in double quotes separated by commas: send the "
             "ETag a GET of the resource answered, e.g. %s: "
             "\"0123456789abcdef0123456789abcdef\"", field, field);
    return 400;
}

/* RFC 8040 section 7: 412 is operation-failed. */
static int
nb_cond_failed(struct nb_response *resp, const char *why)
{
    nb_error(resp, 412, "operation-failed", NULL, "%s: GET the resource "
             "again, make your change on what it holds now and send it "
             "with If-Match: the ETag of that GET", why);
    return 412;
}

/* Whether the If-Match or If-None-Match value 'header' is '*'. */
static bool
nb_cond_star(const char *header)
{
    const char *p = header + strspn(header, " \t");
    return *p == '*' && !p[1 + strspn(p + 1, " \t")];
}

int
nb_cond_check(const struct nb_request *req, const char *etag,
              time_t modified, struct nb_response *resp)
{
    bool get = req->method == NB_GET, match = true, none = false;
    time_t t, now = time(NULL);
    if (req->if_match && nb_etag_match(req->if_match, etag, false, &match))
        return nb_cond_bad(resp, "If-Match");
    if (req->if_none_match
        && nb_etag_match(req->if_none_match, etag, true, &none))
        return nb_cond_bad(resp, "If-None-Match");
    if (!match) {
        /* A weak tag equal to ours is what a proxy that compresses sends
         * back: "the resource changed" would send the client to GET and
         * fail again. */
        bool weak = false;
        nb_etag_match(req->if_match, etag, true, &weak);
        if (weak) {
            nb_error(resp, 412, "operation-failed", NULL, "a weak "
                     "entity-tag (W/...) never matches If-Match: send "
                     "the ETag exactly as the GET gave it (%s), without "
                     "W/", etag);
            return 412;
        }
        return nb_cond_failed(resp, "the resource changed since the "
                              "entity-tag in If-Match was read");
    }
    if (!req->if_match && req->if_unmodified_since
        && !nb_http_date_parse(req->if_unmodified_since, &t) && modified > t)
        return nb_cond_failed(resp, "the resource changed after the date "
                              "in If-Unmodified-Since");
    if (none && !get && nb_cond_star(req->if_none_match)) {
        nb_error(resp, 412, "operation-failed", NULL, "the resource "
                 "exists, and If-None-Match: * lets a request only create "
                 "one: send the request without If-None-Match to %s it",
                 req->method == NB_DELETE ? "delete" : "replace");
        return 412;
    }
    if (none && !get)
        return nb_cond_failed(resp, "the resource is one that "
                              "If-None-Match names");
    /* A date later than now is no date (RFC 9110 13.1.3); one of the
     * current second could see a change later in that second.  Without
     * a modification date (0) there is nothing to compare it with: a
     * date would be a 304 for ever (RFC 9110 13.1.3: ignored). */
    if (none
        || (get && modified && !req->if_none_match && req->if_modified_since
            && !nb_http_date_parse(req->if_modified_since, &t)
            && t < now && modified <= t)) {
        resp->status = 304;
        snprintf(resp->etag, sizeof resp->etag, "%s", etag);
        resp->last_modified = nb_last_modified(modified, now);
        return 304;
    }
    return 0;
}

int
nb_cond_check_untagged(const struct nb_request *req,
                       struct nb_response *resp)
{
    /* Whatever else it holds (even no list of tags): the 400's advice,
     * to send the ETag of a GET, has nothing to give here. */
    if (!req->if_match || nb_cond_star(req->if_match))
        return 0;
    nb_error(resp, 412, "operation-failed", NULL, "this resource has no "
             "entity-tag, so no tag in If-Match can match it: If-Match "
             "can only be '*' here; send the request without If-Match");
    return 412;
}
