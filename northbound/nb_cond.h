/*
 * nb_cond: conditional requests (RFC 9110 section 13; RFC 8040 3.4.1.2,
 * 3.4.1.3, 3.5.2) on a resource whose handler knows its validators: a
 * strong entity-tag and the time of its last change.  The unit test is
 * tests/unit/test_nb_cond.
 *
 * Our entity-tags are strong and are a digest of the representation a
 * GET sends (nb_etag_of()): the same text, the same tag, from one start
 * of the server to the next.
 */
#ifndef NB_COND_H
#define NB_COND_H 1

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "northbound/nb_server.h"

/* The entity-tag of the representation 'text' ('len' bytes) into 'etag'
 * as ETag sends it: the first 128 bits of its SHA-256 in hex, quoted. */
void nb_etag_of(const char *text, size_t len, char etag[NB_ETAG_MAX]);

/* Whether the If-Match or If-None-Match value 'header' ("*", or a list
 * of entity-tags separated by commas, each "x" or W/"x", RFC 9110 8.8.3
 * and 5.6.1) names 'etag' (a strong tag, quoted): '*' always does; a
 * tag does by the strong comparison (W/ tags never) or, with 'weak',
 * by the weak one (W/ ignored).  0 with '*match' set, or EINVAL when
 * 'header' is not such a list. */
int nb_etag_match(const char *header, const char *etag, bool weak,
                  bool *match);

/* The HTTP-date 's' (IMF-fixdate, or the obsolete RFC 850 and asctime
 * forms, RFC 9110 5.6.7) as a time: 0, or EINVAL when it is none. */
int nb_http_date_parse(const char *s, time_t *t);

/* The same at the time 'now', which places an RFC 850 two-digit year:
 * the year of now's century with those digits, or the one before when
 * that is more than 50 years after now's year (RFC 9110 5.6.7). */
int nb_http_date_parse_at(const char *s, time_t now, time_t *t);

/* What Last-Modified says of a change at 'modified' at the time 'now':
 * 'modified', or 0 (no header) while it is in the current second, when
 * a later change could have the same date; the ETag tells them apart. */
time_t nb_last_modified(time_t modified, time_t now);

/* 't' as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") into 'buf'
 * (30 bytes are enough), whatever the locale. */
void nb_http_date(time_t t, char *buf, size_t len);

/* Evaluates the preconditions of 'req' (RFC 9110 13.2.2: If-Match, else
 * If-Unmodified-Since; then If-None-Match, else for GET
 * If-Modified-Since) against the resource's 'etag' and 'modified' (its
 * last change; 0 when it has no modification date: both dates are then
 * ignored, RFC 9110 13.1.3, 13.1.4).  0: the request goes on.
 * Otherwise 'resp' is the answer and its status is returned: 304 (GET;
 * no body, the validators set; Last-Modified as nb_last_modified()
 * says), 412 operation-failed (RFC 8040 section 7) saying what did not
 * hold and what to send, or 400 invalid-value for an If-Match or
 * If-None-Match that is no list of entity-tags.  A date that is no
 * HTTP-date is ignored, as RFC 9110 13.1.3 and 13.1.4 say. */
int nb_cond_check(const struct nb_request *req, const char *etag,
                  time_t modified, struct nb_response *resp);

/* The same for a resource without validators: no entity-tag can match
 * it (RFC 9110 13.1.1), so an If-Match other than '*' (tags or not)
 * is 412 operation-failed, else 0.  If-Unmodified-Since is ignored,
 * as RFC 9110 13.1.4 says for a resource without a modification date; If-None-Match and
 * If-Modified-Since are not judged (docs/controller.md says so). */
int nb_cond_check_untagged(const struct nb_request *req,
                           struct nb_response *resp);

#endif
