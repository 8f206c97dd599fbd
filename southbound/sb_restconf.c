/*
 * sb_restconf: a ROADM reached over RESTCONF (RFC 8040) with libcurl,
 * speaking lightrail-roadm.yang in RFC 7951 JSON.
 *
 * Address: the server's base URL, "https://HOST:PORT" (the API root is
 * BASE/restconf).  The server's certificate must chain to
 * config.ca_file, the one CA trusted for this device (the system's CAs
 * are not consulted); host names are verified.  Plain http:// is
 * accepted only for 127.0.0.1 (tests).
 *
 * Resources:
 *   GET    BASE/restconf/data/lightrail-roadm:roadm/media-channels
 *   POST   .../media-channels   {"lightrail-roadm:channel":[{...}]}
 *   DELETE .../media-channels/channel=INDEX
 * The index is chosen and found by name as in sb_netconf.c (one above
 * the highest; the name -> index map from the last read, dropped on any
 * doubt).
 *
 * All or nothing: RFC 8040 has no transaction over several resources
 * (YANG Patch, RFC 8072, is not assumed of a device), so apply() sends
 * the batch's requests in order and, when one fails, undoes those that
 * succeeded, newest first (DELETE what it created, PUT back what it
 * deleted).  An undo that fails too is said in the error ("the device may
 * hold part of the batch: reconcile").  A timeout is ETIMEDOUT (outcome
 * unknown) after the same undo.
 *
 * Errors: an RFC 8040 error body ({"ietf-restconf:errors": {"error":
 * [{"error-type", "error-tag", "error-path", "error-message"}]}}) becomes
 * one line: "r1: the device refused PUT channel=3 (HTTP 400,
 * invalid-value at PATH): MESSAGE; nothing applied".  404 on DELETE is
 * ENOENT, 409 on PUT EEXIST, other refusals EPROTO; a certificate that
 * does not chain to the pinned CA is EACCES, no connection EHOSTUNREACH
 * (a connect that timed out too: nothing was sent), no answer within
 * timeout_ms once connected ETIMEDOUT; a ca-file that does not load
 * is open()'s EINVAL, before any connection, and so are CA bytes that
 * libcurl will not load (sb_http.c), which open() refuses as well;
 * ENOMEM the controller's host out of memory.  EINVAL and ENOMEM are
 * the controller's side (sb_local()), not the device's.  A 502, 503 or 504 is no
 * refusal of the device's (RFC 9110 15.6.3-15.6.5, sb_rc_not_done()):
 * 503 EAGAIN (nothing applied), 502 and 504 ETIMEDOUT (outcome
 * unknown), each an answer the controller judges no answer from the
 * device (sb_unanswered()).
 *
 * The ca-file is read once per device, its bytes checked and kept with
 * the device, and handed to libcurl from memory (CURLOPT_CAINFO_BLOB),
 * never as a path it would read at each connection: the device trusts
 * what was checked, whatever becomes of the file.  At lightraild's
 * start the bytes are those check_files read (sb_rc_kept below).
 *
 * Threads: one call at a time per device (d->lock); one curl handle per
 * device, kept for its connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>

#include "controller/lr_tls.h"
#include "planner/lr_utf8.h"
#include "southbound/sb_chtab.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_http.h"
#include "southbound/sb_kept.h"

#define SB_RC_DEFAULT_TIMEOUT_MS 5000
#define SB_RC_CHANNELS "/restconf/data/lightrail-roadm:roadm/media-channels"
/* The most a ca-file may hold: a CA's certificate is 1-2 KiB and a
 * bundle of a few hundred fits; more is no CA file (a disk image given
 * by mistake) and is not read into memory.  Below libcurl's own bound
 * on a blob (CURL_MAX_INPUT_LENGTH, 8,000,000 bytes). */
#define SB_RC_CA_MAX (1 << 20)

struct sb_restconf {
    struct sb_device_config config;
    char base[256];
    int timeout_ms;
    pthread_mutex_t lock;
    CURL *h;
    struct sb_chtab cache;
    /* The ca-file's bytes as open() had them checked (https; NULL on
     * plain http), owned by the device; h points to them (sb_http.h),
     * so they are freed after it. */
    char *ca_pem;
    size_t ca_len;
};

/* The ca-file bytes check_files read and checked, each kept for the
 * first open() of its device (the same name and ca-file) to take
 * (sb_kept.h: the start reads a device's ca-file once, and the check
 * and the device trust the same bytes). */
static struct sb_kept sb_rc_kept = SB_KEPT_INIT(free);

/* One request; 0 with r->status set (any HTTP status), or the transport
 * error as sb_http_perform() gives it (ETIMEDOUT, EACCES, EHOSTUNREACH;
 * EINVAL or ENOMEM, the controller's) with its line. */
static int
sb_rc_http(struct sb_restconf *d, const char *method, const char *path,
           const char *body, struct sb_http_reply *r, char *err,
           size_t errlen)
{
    char url[512], what[192];

    snprintf(url, sizeof url, "%s%s", d->base, path);
    snprintf(what, sizeof what, "%s %s", method, path);
    struct sb_http_request rq = {
        .device = d->config.name, .method = method, .url = url,
        .what = what, .body = body,
        .accept = "application/yang-data+json",
        .content_type = "application/yang-data+json",
        .ca_file = d->ca_pem ? d->config.ca_file : NULL,
        .ca_pem = d->ca_pem, .ca_len = d->ca_len,
        .timeout_ms = d->timeout_ms,
    };
    return sb_http_perform(d->h, &rq, r, err, errlen);
}

/* A status by which something before the device, or the device, says
 * it did not do the request (RFC 9110 15.6.3-15.6.5): its errno, its
 * words and what follows for the change, into the out-parameters; false
 * for any other status (the device's own answer).  502: a gateway got no
 * valid answer from the device; 504: none in time; 503: the device, or
 * a gateway for it, cannot take requests now.  Each is an errno that
 * sb_unanswered() takes for no answer (the ROADM shown down): EAGAIN
 * (503, no service for now: nothing applied, as a refused connection),
 * ETIMEDOUT (504: the device may have done it after the gateway gave
 * up waiting; 502: the gateway's "invalid response" includes a device
 * that closed the connection in the middle of its answer, which a proxy
 * such as nginx reports so, after the device may have done it; the
 * outcome is unknown as for our own timeout, and the caller reads the
 * device back). */
static bool
sb_rc_not_done(long status, int *code, const char **said,
               const char **status_line, const char **then)
{
    switch (status) {
    case 502:
        *code = ETIMEDOUT;
        *said = "a gateway got no valid answer from the device";
        *status_line = "HTTP 502 Bad Gateway";
        *then = "the outcome is unknown; read the device back";
        return true;
    case 503:
        *code = EAGAIN;
        *said = "the device or a gateway before it is unavailable";
        *status_line = "HTTP 503 Service Unavailable";
        *then = "nothing applied; retry later";
        return true;
    case 504:
        *code = ETIMEDOUT;
        *said = "a gateway got no answer from the device in time";
        *status_line = "HTTP 504 Gateway Timeout";
        *then = "the outcome is unknown; read the device back";
        return true;
    default:
        return false;
    }
}

/* The first RFC 8040 error of 'r' in one line into err (EPROTO, or
 * 'code' when given); a 502, 503 or 504 in sb_rc_not_done()'s words and
 * errno instead, which are not the device's refusal. */
static int
sb_rc_refused(struct sb_restconf *d, const char *what,
              const struct sb_http_reply *r, int code, char *err,
              size_t errlen)
{
    const char *said, *status_line, *then;
    int gw_code;
    bool gateway = sb_rc_not_done(r->status, &gw_code, &said, &status_line,
                                  &then);
    json_object *top = r->body ? json_tokener_parse(r->body) : NULL;
    json_object *errs = NULL, *list = NULL, *e = NULL, *v;
    const char *tag = NULL, *path = NULL, *msg = NULL;

    if (top && json_object_object_get_ex(top, "ietf-restconf:errors", &errs)
        && json_object_object_get_ex(errs, "error", &list)
        && json_object_is_type(list, json_type_array)
        && json_object_array_length(list) > 0)
        e = json_object_array_get_idx(list, 0);
    if (e && json_object_object_get_ex(e, "error-tag", &v))
        tag = json_object_get_string(v);
    if (e && json_object_object_get_ex(e, "error-path", &v))
        path = json_object_get_string(v);
    if (e && json_object_object_get_ex(e, "error-message", &v))
        msg = json_object_get_string(v);
    int ret;
    if (gateway)
        /* A gateway's page is no RFC 8040 body: only an error-message
         * is worth the reason's room. */
        ret = sb_errf(err, errlen, gw_code, "%s: %s (%s to %s)%s%s; %s",
                      d->config.name, said, status_line, what,
                      msg ? ": " : "", msg ? msg : "", then);
    else
        ret = sb_errf(err, errlen, code ? code : EPROTO, "%s: the device "
                      "refused %s (HTTP %ld%s%s%s%s): %s; nothing applied",
                      d->config.name, what, r->status, tag ? ", " : "",
                      tag ? tag : "", path ? " at " : "",
                      path ? path : "",
                      msg ? msg : e ? "no error-message"
                                : "no RFC 8040 error body");
    json_object_put(top);
    return ret;
}

/* ---- the device's channels ---- */

static bool
sb_rc_str(json_object *o, const char *k, char *dst, size_t size)
{
    json_object *v;
    dst[0] = '\0';
    if (!json_object_object_get_ex(o, k, &v))
        return true;
    const char *s = json_object_get_string(v);
    if (!s || strlen(s) >= size)
        return false;
    memcpy(dst, s, strlen(s) + 1);
    return true;
}

/* Member 'k' of 'o' as text (RFC 7951 gives 64-bit integers as
 * strings, smaller ones as numbers), or NULL. */
static const char *
sb_rc_text(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v)
        || !(json_object_is_type(v, json_type_string)
             || json_object_is_type(v, json_type_int)))
        return NULL;
    return json_object_get_string(v);
}

/* Member 'k' of 'o' as a whole decimal number. */
static bool
sb_rc_num(json_object *o, const char *k, long long *out)
{
    const char *s = sb_rc_text(o, k);
    char *end;
    long long x = strtoll(s ? s : "", &end, 10);
    if (!s || end == s || *end)
        return false;
    *out = x;
    return true;
}

static bool
sb_rc_parse_channel(json_object *o, struct sb_chent *e)
{
    long long idx;
    json_object *v;

    memset(e, 0, sizeof *e);
    if (!sb_rc_num(o, "index", &idx) || idx < 1 || idx > UINT32_MAX
        || !sb_rc_str(o, "name", e->mc.name, sizeof e->mc.name)
        || !e->mc.name[0]
        || !sb_rc_str(o, "in-port", e->mc.in_port, sizeof e->mc.in_port)
        || !sb_rc_str(o, "out-port", e->mc.out_port, sizeof e->mc.out_port))
        return false;
    e->index = (uint32_t) idx;
    const char *n = sb_rc_text(o, "n"), *m = sb_rc_text(o, "m");
    if (n && m) {
        if (!sb_grid_from_nm(n, m, &e->mc.n, &e->mc.m))
            return false;
    } else if (!sb_grid_from_edges(sb_rc_text(o, "lower-frequency"),
                                   sb_rc_text(o, "upper-frequency"),
                                   &e->mc.n, &e->mc.m, &e->lo_mhz,
                                   &e->up_mhz))
        return false;
    /* A JSON null is a NULL object, whose string is NULL. */
    const char *st = json_object_object_get_ex(o, "admin-state", &v)
                     ? json_object_get_string(v) : "enabled";
    e->mc.enabled = st && !strcmp(st, "enabled");
    return true;
}

static int
sb_rc_refresh(struct sb_restconf *d, char *err, size_t errlen)
{
    struct sb_http_reply r;
    json_object *top = NULL, *mcs, *list;
    int ret;

    d->cache.ok = false;
    ret = sb_rc_http(d, "GET", SB_RC_CHANNELS, NULL, &r, err, errlen);
    if (ret)
        goto cleanup;
    d->cache.n = 0;
    if (r.status == 404)   /* no media-channels container: empty */
        goto done;
    if (r.status != 200) {
        ret = sb_rc_refused(d, "GET media-channels", &r, 0, err, errlen);
        goto cleanup;
    }
    top = r.body ? json_tokener_parse(r.body) : NULL;
    if (!top || !json_object_object_get_ex(top, "lightrail-roadm:media-channels",
                                           &mcs)
        || !json_object_is_type(mcs, json_type_object)) {
        ret = sb_errf(err, errlen, EPROTO, "%s: GET media-channels "
                      "answered 200 without a lightrail-roadm:media-"
                      "channels object: is %s a RESTCONF server with "
                      "lightrail-roadm?", d->config.name, d->base);
        goto cleanup;
    }
    if (json_object_object_get_ex(mcs, "channel", &list)) {
        /* json-c's array calls assert their type: check it first. */
        bool array = json_object_is_type(list, json_type_array);
        size_t n = array ? json_object_array_length(list) : 0;
        if (!array) {
            ret = sb_errf(err, errlen, EPROTO, "%s: 'channel' is not a "
                          "list", d->config.name);
            goto cleanup;
        }
        if (n > INT_MAX || sb_chtab_grow(&d->cache, (int) n)) {
            ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory for %zu "
                          "media channels", d->config.name, n);
            goto cleanup;
        }
        for (size_t i = 0; i < n; i++)
            if (!sb_rc_parse_channel(json_object_array_get_idx(list, i),
                                     &d->cache.e[d->cache.n++])) {
                ret = sb_errf(err, errlen, EPROTO, "%s: media channel %zu "
                              "has no index, name or spectrum: fix the "
                              "device's config", d->config.name, i);
                goto cleanup;
            }
    }
done:
    d->cache.ok = true;
cleanup:
    json_object_put(top);
    free(r.body);
    return ret;
}

/* Create or DELETE of one channel; 0 or the error.  A create is a POST
 * of the channel to media-channels (RFC 8040, 4.4.1: 409 when its index
 * exists), never a PUT, which replaces whatever holds the index: a
 * channel added behind our back since we last read the device would be
 * overwritten, and then deleted by an undo. */
static int
sb_rc_one(struct sb_restconf *d, bool create, const struct sb_chent *e,
          char *err, size_t errlen)
{
    char path[160], what[64];
    struct sb_http_reply r;
    char *body = NULL;
    int ret;

    snprintf(path, sizeof path, SB_RC_CHANNELS "/channel=%" PRIu32,
             e->index);
    snprintf(what, sizeof what, "%s channel=%" PRIu32,
             create ? "POST" : "DELETE", e->index);
    if (create) {
        const struct sb_media_channel *mc = &e->mc;
        long long c = SB_GRID_BASE_MHZ + (long long) mc->n * SB_GRID_SLOT_MHZ;
        long long half = (long long) mc->m * SB_GRID_SLOT_MHZ;
        json_object *o = json_object_new_object(), *top, *l;
        json_object_object_add(o, "index", json_object_new_int64(e->index));
        json_object_object_add(o, "name", json_object_new_string(mc->name));
        if (mc->in_port[0])
            json_object_object_add(o, "in-port",
                                   json_object_new_string(mc->in_port));
        if (mc->out_port[0])
            json_object_object_add(o, "out-port",
                                   json_object_new_string(mc->out_port));
        char f[32];
        bool own = e->lo_mhz > 0 && e->up_mhz > e->lo_mhz;
        snprintf(f, sizeof f, "%lld", own ? e->lo_mhz : c - half);
        json_object_object_add(o, "lower-frequency", json_object_new_string(f));
        snprintf(f, sizeof f, "%lld", own ? e->up_mhz : c + half);
        json_object_object_add(o, "upper-frequency", json_object_new_string(f));
        json_object_object_add(o, "admin-state", json_object_new_string(
                                   mc->enabled ? "enabled" : "disabled"));
        l = json_object_new_array();
        json_object_array_add(l, o);
        top = json_object_new_object();
        json_object_object_add(top, "lightrail-roadm:channel", l);
        body = strdup(json_object_to_json_string_ext(
            top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(top);
        if (!body)
            return sb_errf(err, errlen, ENOMEM, "%s: out of memory for "
                           "the body of %s: it was not sent; retry",
                           d->config.name, what);
    }
    ret = sb_rc_http(d, create ? "POST" : "DELETE",
                     create ? SB_RC_CHANNELS : path, body, &r, err, errlen);
    free(body);
    if (ret)
        goto cleanup;
    if (r.status >= 200 && r.status < 300)
        goto cleanup;
    ret = sb_rc_refused(d, what, &r, !create && r.status == 404 ? ENOENT
                                     : create && r.status == 409 ? EEXIST
                                     : 0, err, errlen);
cleanup:
    free(r.body);
    return ret;
}

static int
sb_restconf_apply_locked(struct sb_restconf *d,
                         const struct sb_change *changes, int n, char *err,
                         size_t errlen)
{
    struct sb_chent *work = NULL;
    struct sb_chstep *steps = NULL;
    int n_work = 0, done = 0, ret = 0;

    /* The batch against what the device holds, before anything is sent. */
    if ((!d->cache.ok && (ret = sb_rc_refresh(d, err, errlen)))
        || (ret = sb_chtab_plan(&d->cache, d->config.name, changes, n, &work,
                                &n_work, &steps, err, errlen)))
        return ret;
    for (done = 0; done < n; done++) {
        ret = sb_rc_one(d, steps[done].create, &steps[done].e, err, errlen);
        if (ret)
            break;
    }
    if (ret) {
        /* Undo, newest first. */
        int undo_failed = 0;
        for (int i = done - 1; i >= 0; i--) {
            char e2[256];
            if (sb_rc_one(d, !steps[i].create, &steps[i].e, e2, sizeof e2))
                undo_failed++;
        }
        d->cache.ok = false;
        /* The failed change's line speaks of that change alone ("it
         * was not sent", "nothing applied"): say what the batch had
         * sent before it, undone, lest a failure of the controller's
         * own (ENOMEM half-way) read as though the device had been
         * sent nothing.  "Nothing applied" only when the failed change
         * was not made: after ETIMEDOUT (no answer, a 502 or 504) it
         * may be on the device, and the line already says to read it
         * back. */
        if (done > 0 && !undo_failed && err
            && errlen > sizeof LR_UTF8_CUT_MARK)
            lr_utf8_appendf(err, errlen, "; the batch's %d earlier "
                            "change(s) had gone out and were undone%s",
                            done, ret == ETIMEDOUT ? "" : ": nothing "
                            "applied");
        if (undo_failed) {
            /* Not "nothing applied" any more: the caller must read the
             * device back, as after a lost answer. */
            ret = ETIMEDOUT;
            if (err && errlen > sizeof LR_UTF8_CUT_MARK)
                lr_utf8_appendf(err, errlen, "; %d of %d earlier "
                                "change(s) of the batch could not be "
                                "undone: the device may hold part of it: "
                                "read it back", undo_failed, done);
        }
        goto cleanup;
    }
    sb_chtab_set(&d->cache, work, n_work);

cleanup:
    free(work);
    free(steps);
    return ret;
}

static int
sb_restconf_apply(struct sb_device *dev, const struct sb_change *changes,
                  int n, char *err, size_t errlen)
{
    struct sb_restconf *d = (struct sb_restconf *) dev;
    struct sb_chent *seen = NULL;
    int n_seen = 0;
    if (n < 0 || (n && !changes))
        return sb_errf(err, errlen, EINVAL, "%s: %d changes: fix the "
                       "request", d->config.name, n);
    pthread_mutex_lock(&d->lock);
    /* The channels the batch is planned on, when they come from the
     * cache rather than from a read made for this batch. */
    bool cached = sb_chtab_snapshot(&d->cache, &seen, &n_seen);
    int ret = sb_restconf_apply_locked(d, changes, n, err, errlen);
    /* A channel added behind the driver's back since it last read the
     * device holds the index a create was given (409: the batch was
     * undone).  When the device now holds other channels than the batch
     * was planned on, it is planned again on them and sent once more,
     * rather than failing a job over an index. */
    if (ret == EEXIST && cached) {
        char e[512];
        if (!sb_rc_refresh(d, e, sizeof e)
            && !sb_chtab_holds(&d->cache, seen, n_seen))
            ret = sb_restconf_apply_locked(d, changes, n, err, errlen);
    }
    pthread_mutex_unlock(&d->lock);
    free(seen);
    return ret;
}

static int
sb_restconf_read(struct sb_device *dev, struct sb_media_channel **out,
                 int *n, char *err, size_t errlen)
{
    struct sb_restconf *d = (struct sb_restconf *) dev;
    int ret;

    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&d->lock);
    ret = sb_rc_refresh(d, err, errlen);
    if (!ret)
        ret = sb_chtab_read(&d->cache, d->config.name, out, n, err, errlen);
    pthread_mutex_unlock(&d->lock);
    return ret;
}

static void
sb_restconf_close(struct sb_device *dev)
{
    struct sb_restconf *d = (struct sb_restconf *) dev;
    if (!d)
        return;
    curl_easy_cleanup(d->h);
    free(d->ca_pem);
    pthread_mutex_destroy(&d->lock);
    sb_chtab_free(&d->cache);
    free(d);
}

/* Whether the address and the ca-file end in their buffers. */
static bool
sb_rc_terminated(const struct sb_device_config *config)
{
    return memchr(config->address, '\0', sizeof config->address)
           && memchr(config->ca_file, '\0', sizeof config->ca_file);
}

/* The address's scheme as libcurl will read it: '*https', or plain
 * http on 127.0.0.1 ('*loop_http'); neither for anything else
 * ("http://127.0.0.1:1@host" is a user name and another host). */
static void
sb_rc_scheme(const char *a, bool *https, bool *loop_http)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *user = NULL;

    *https = *loop_http = false;
    if (u && !curl_url_set(u, CURLUPART_URL, a, 0)
        && !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0)
        && !curl_url_get(u, CURLUPART_HOST, &host, 0)
        && curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_NO_USER) {
        *https = !strcmp(scheme, "https");
        *loop_http = !strcmp(scheme, "http") && !strcmp(host, "127.0.0.1");
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(user);
    curl_url_cleanup(u);
}

/* The refusal of the ca-file of 'config', 'why' being what is wrong
 * with it: EINVAL, open()'s and check_files' one line. */
static int
sb_rc_ca_refused(const struct sb_device_config *config, const char *why,
                 char *err, size_t errlen)
{
    return sb_errf(err, errlen, EINVAL, "%.63s: cannot use the ca-file %s "
                   "(%s): give the PEM certificate of the CA that signs the "
                   "device's certificate (southbound restconf ca-file, or "
                   "the device's)", config->name, config->ca_file, why);
}

/* Reads the ca-file of 'config' whole, at most SB_RC_CA_MAX bytes, into
 * '*pem' (malloc'ed and NUL-terminated, the caller's to free) and its
 * length into '*len'; or EINVAL naming what stood in the way (the
 * system's words, a folder, a file that is not a regular one, one too
 * large).  One open(): what is read is what is checked and used. */
static int
sb_rc_ca_read(const struct sb_device_config *config, char **pem,
              size_t *len, char *err, size_t errlen)
{
    char why[128];
    struct stat st;
    char *buf = NULL;
    size_t n = 0;
    int ret = 0;

    *pem = NULL;
    *len = 0;
    /* O_NONBLOCK: a FIFO given for the file must not hang the start
     * (it is refused below, not being a regular file). */
    int fd = open(config->ca_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return sb_rc_ca_refused(config, strerror(errno), err, errlen);
    if (fstat(fd, &st)) {
        ret = sb_rc_ca_refused(config, strerror(errno), err, errlen);
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        ret = sb_rc_ca_refused(config, S_ISDIR(st.st_mode)
                               ? strerror(EISDIR) : "not a regular file",
                               err, errlen);
        goto cleanup;
    }
    if (!(buf = malloc(SB_RC_CA_MAX + 1))) {
        ret = sb_errf(err, errlen, ENOMEM, "%.63s: out of memory for the "
                      "ca-file %s", config->name, config->ca_file);
        goto cleanup;
    }
    /* One byte more than the bound tells a file too large from one of
     * exactly the bound (its size may change while it is read). */
    while (n < SB_RC_CA_MAX + 1) {
        ssize_t k = read(fd, buf + n, SB_RC_CA_MAX + 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            ret = sb_rc_ca_refused(config, strerror(errno), err, errlen);
            goto cleanup;
        }
        if (k == 0)
            break;
        n += (size_t) k;
    }
    if (n > SB_RC_CA_MAX) {
        snprintf(why, sizeof why, "over %d bytes, the most a ca-file may "
                 "hold", SB_RC_CA_MAX);
        ret = sb_rc_ca_refused(config, why, err, errlen);
        goto cleanup;
    }
    buf[n] = '\0';
    char *fit = realloc(buf, n + 1);
    *pem = fit ? fit : buf;
    *len = n;
    buf = NULL;
cleanup:
    free(buf);
    close(fd);
    return ret;
}

/* Whether the 'len' bytes at 'pem' load as the ca-file of 'config' as
 * libcurl's OpenSSL will load them from CURLOPT_CAINFO_BLOB: every
 * certificate and CRL of the PEM text into an X509_STORE, at least one
 * (what X509_STORE_load_locations() asked of the file).  Handed over
 * unchecked, bytes that do not load failed every call with "the
 * server's certificate is refused", blaming the device for the file.
 * 0, or EINVAL with what is wrong with them (lr_tls_pem_reason()). */
static int
sb_rc_ca_verify(const struct sb_device_config *config, const char *pem,
                size_t len, char *err, size_t errlen)
{
    STACK_OF(X509_INFO) *inf = NULL;
    X509_STORE *st = NULL;
    BIO *in = NULL;
    int count = 0, bad = 0;

    ERR_clear_error();
    if (len <= INT_MAX && (in = BIO_new_mem_buf(pem, (int) len))
        && (st = X509_STORE_new()))
        inf = PEM_X509_INFO_read_bio(in, NULL, NULL, NULL);
    for (int i = 0; inf && !bad && i < sk_X509_INFO_num(inf); i++) {
        X509_INFO *x = sk_X509_INFO_value(inf, i);
        if (x->x509) {
            bad = !X509_STORE_add_cert(st, x->x509);
            count += !bad;
        }
        if (x->crl && !bad) {
            bad = !X509_STORE_add_crl(st, x->crl);
            count += !bad;
        }
    }
    sk_X509_INFO_pop_free(inf, X509_INFO_free);
    X509_STORE_free(st);
    BIO_free(in);
    if (inf && !bad && count > 0) {
        ERR_clear_error();
        return 0;
    }
    char why[256];
    return sb_rc_ca_refused(config, lr_tls_pem_reason(pem, len,
                                                      LR_TLS_PEM_CERT, why,
                                                      sizeof why),
                            err, errlen);
}

/* The ca-file of an https device, read once and checked: its bytes in
 * '*pem' and '*len' (the caller's to free), or EINVAL.  A device of
 * another address, or without a ca-file, passes with none: open()
 * refuses those in its own words. */
static int
sb_rc_ca_load(const struct sb_device_config *config, bool https,
              char **pem, size_t *len, char *err, size_t errlen)
{
    int ret;

    *pem = NULL;
    *len = 0;
    if (!https || !config->ca_file[0])
        return 0;
    if ((ret = sb_rc_ca_read(config, pem, len, err, errlen)))
        return ret;
    if ((ret = sb_rc_ca_verify(config, *pem, *len, err, errlen))) {
        free(*pem);
        *pem = NULL;
        *len = 0;
    }
    return ret;
}

/* The key of what is kept for 'config' ('key' holds 3): its name and
 * its ca-file. */
static const char *const *
sb_rc_kept_key(const struct sb_device_config *config, const char **key)
{
    key[0] = config->name;
    key[1] = config->ca_file;
    key[2] = NULL;
    return key;
}

static void
sb_restconf_forget_files(void)
{
    sb_kept_clear(&sb_rc_kept);
}

static int
sb_restconf_check_files(const struct sb_device_config *config, char *err,
                        size_t errlen)
{
    const char *key[3];
    bool https, loop_http;
    size_t len;
    char *pem;

    sb_http_global_init();
    if (!sb_rc_terminated(config))
        return sb_errf(err, errlen, EINVAL, "%.63s: a RESTCONF setting "
                       "is not terminated", config->name);
    sb_rc_scheme(config->address, &https, &loop_http);
    sb_kept_drop(&sb_rc_kept, sb_rc_kept_key(config, key));
    int ret = sb_rc_ca_load(config, https, &pem, &len, err, errlen);
    if (!ret && pem)
        sb_kept_put(&sb_rc_kept, key, pem, len);
    return ret;
}

static int
sb_restconf_open(const struct sb_device_config *config,
                 struct sb_device **out, char *err, size_t errlen)
{
    struct sb_restconf *d;
    const char *a = config->address;
    bool https, loop_http;
    int rc;

    *out = NULL;
    sb_http_global_init();
    if (!sb_rc_terminated(config))
        return sb_errf(err, errlen, EINVAL, "%.63s: a RESTCONF setting "
                       "is not terminated", config->name);
    sb_rc_scheme(a, &https, &loop_http);
    if (!https && !loop_http)
        return sb_errf(err, errlen, EINVAL, "%.63s: RESTCONF address '%s' "
                       "is not https://HOST:PORT (plain http only on "
                       "127.0.0.1, no user name): fix the address",
                       config->name, a);
    if (https && !config->ca_file[0])
        return sb_errf(err, errlen, EINVAL, "%.63s: the restconf driver "
                       "needs a ca-file (the one CA its certificate must "
                       "chain to): set it in the southbound "
                       "configuration", config->name);
    /* The bytes check_files read at the start, else the file as it is
     * now. */
    size_t ca_len = 0;
    const char *key[3];
    char *ca_pem = https ? sb_kept_take(&sb_rc_kept,
                                        sb_rc_kept_key(config, key),
                                        &ca_len)
                         : NULL;
    if (https && !ca_pem
        && (rc = sb_rc_ca_load(config, https, &ca_pem, &ca_len, err,
                               errlen)))
        return rc;
    d = calloc(1, sizeof *d);
    if (!d || !(d->h = curl_easy_init())) {
        free(d);
        free(ca_pem);
        return sb_errf(err, errlen, ENOMEM, "%.63s: out of memory",
                       config->name);
    }
    d->ca_pem = ca_pem;
    d->ca_len = ca_len;
    d->config = *config;
    snprintf(d->base, sizeof d->base, "%s", a);
    size_t l = strlen(d->base);
    while (l && d->base[l - 1] == '/')
        d->base[--l] = '\0';
    d->timeout_ms = config->timeout_ms > 0 ? config->timeout_ms
                                           : SB_RC_DEFAULT_TIMEOUT_MS;
    pthread_mutex_init(&d->lock, NULL);
    /* A certificate that is not the pinned CA's is a configuration error
     * and says so now, and so is a CA libcurl will not load (EINVAL); a
     * device that is down is not (first use), nor a host short of
     * memory for now (ENOMEM). */
    char e[512];
    int rc0 = sb_rc_refresh(d, e, sizeof e);
    if (rc0 == EACCES || rc0 == EINVAL) {
        sb_restconf_close((struct sb_device *) d);
        return sb_errf(err, errlen, rc0, "%s", e);
    }
    *out = (struct sb_device *) d;
    return 0;
}

const struct sb_driver_class sb_restconf_class = {
    .name = "restconf",
    .check_files = sb_restconf_check_files,
    .forget_files = sb_restconf_forget_files,
    .open = sb_restconf_open,
    .apply = sb_restconf_apply,
    .read = sb_restconf_read,
    .close = sb_restconf_close,
};
