/*
 * nb_metrics: the server's request counters and latency histogram, and
 * their Prometheus text exposition (format 0.0.4):
 *
 *   lightrail_http_requests_total{code="2xx"}       counter per class
 *   lightrail_http_request_seconds_bucket{le="..."} cumulative counts
 *   lightrail_http_request_seconds_sum / _count
 *
 * Buckets are kept per bound and summed when exported, so an
 * observation costs one comparison loop and no cumulative updates.
 * The bounds (0.5 ms .. 1 s) bracket what one event-loop callback
 * should ever take; anything slower is a bug worth seeing in +Inf.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "northbound/nb_int.h"

/* Printed as written, so the label values are stable across libcs. */
static const char *const nb_metrics_le[NB_METRICS_BOUNDS] = {
    "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
    "0.25", "0.5", "1",
};
static const double nb_metrics_bound[NB_METRICS_BOUNDS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
};

void
nb_metrics_observe(struct nb_metrics *m, int status, double seconds)
{
    if (!(seconds >= 0))
        seconds = 0;
    for (int i = 0; i < NB_METRICS_BOUNDS; i++)
        if (seconds <= nb_metrics_bound[i]) {
            m->bucket[i]++;
            break;
        }
    m->count++;
    m->sum += seconds;
    if (status >= 100 && status < 600)
        m->by_class[status / 100 - 1]++;
}

void
nb_metrics_label(const char *in, char *out, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    for (; *in; in++) {
        const char *rep = *in == '\\' ? "\\\\" : *in == '"' ? "\\\""
                        : *in == '\n' ? "\\n" : NULL;
        size_t n = rep ? 2 : 1;
        if (o + n >= len)
            break;
        if (rep)
            memcpy(out + o, rep, 2);
        else
            out[o] = *in;
        o += n;
    }
    out[o] = '\0';
}

/* Appends printf output to a growing buffer; 0 or ENOMEM. */
static int __attribute__((format(printf, 4, 5)))
nb_metrics_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return ENOMEM;
    if (*len + (size_t) n + 1 > *cap) {
        size_t want = (*len + (size_t) n + 1) * 2;
        char *p = realloc(*buf, want);
        if (!p)
            return ENOMEM;
        *buf = p;
        *cap = want;
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t) n;
    return 0;
}

int
nb_metrics_append(const struct nb_metrics *m, char **buf, size_t *len)
{
    /* Built in a copy so that '*buf' is untouched on failure. */
    size_t n = *len, cap = *len + 2048;
    char *out = malloc(cap);
    int rc = 0;
    if (!out)
        return ENOMEM;
    if (*buf)
        memcpy(out, *buf, n);
    out[n] = '\0';

    rc = nb_metrics_printf(&out, &n, &cap,
        "# HELP lightrail_http_requests_total HTTP requests the northbound "
        "server answered, by status class.\n"
        "# TYPE lightrail_http_requests_total counter\n");
    for (int c = 0; !rc && c < 5; c++)
        rc = nb_metrics_printf(&out, &n, &cap,
                               "lightrail_http_requests_total{code=\"%dxx\"} "
                               "%" PRIu64 "\n", c + 1, m->by_class[c]);
    if (!rc)
        rc = nb_metrics_printf(&out, &n, &cap,
            "# HELP lightrail_http_request_seconds Time from a complete "
            "request to its queued response.\n"
            "# TYPE lightrail_http_request_seconds histogram\n");
    uint64_t cum = 0;
    for (int i = 0; !rc && i < NB_METRICS_BOUNDS; i++) {
        cum += m->bucket[i];
        rc = nb_metrics_printf(&out, &n, &cap,
                               "lightrail_http_request_seconds_bucket"
                               "{le=\"%s\"} %" PRIu64 "\n",
                               nb_metrics_le[i], cum);
    }
    if (!rc)
        rc = nb_metrics_printf(&out, &n, &cap,
                               "lightrail_http_request_seconds_bucket"
                               "{le=\"+Inf\"} %" PRIu64 "\n"
                               "lightrail_http_request_seconds_sum %.9g\n"
                               "lightrail_http_request_seconds_count %"
                               PRIu64 "\n", m->count, m->sum, m->count);
    if (!rc)
        rc = nb_metrics_printf(&out, &n, &cap,
            "# HELP lightrail_http_deferred_total Requests answered after "
            "work off the event loop (a job's devices).\n"
            "# TYPE lightrail_http_deferred_total counter\n"
            "lightrail_http_deferred_total %" PRIu64 "\n"
            "# HELP lightrail_http_abandoned_total Deferred requests whose "
            "client left before the answer.\n"
            "# TYPE lightrail_http_abandoned_total counter\n"
            "lightrail_http_abandoned_total %" PRIu64 "\n"
            "# HELP lightrail_http_error_bodies_invalid_total Error bodies "
            "sent that ietf-restconf's yang-errors refuses (a bug: the "
            "log says which).\n"
            "# TYPE lightrail_http_error_bodies_invalid_total counter\n"
            "lightrail_http_error_bodies_invalid_total %" PRIu64 "\n",
            m->deferred, m->abandoned, m->invalid_errors);
    if (rc)
        goto cleanup;
    free(*buf);
    *buf = out;
    *len = n;
    out = NULL;

cleanup:
    free(out);
    return rc;
}
