/*
 * sb_http: the libcurl plumbing the HTTP drivers share (sb_restconf,
 * sb_mnoptical): one request on a caller's handle, the answer's status
 * and body, and transport failures as the driver convention's errno
 * values with one line that says what to do.
 *
 * Ownership: the handle belongs to the caller (one thread at a time),
 * and so do the request's CA bytes, which the handle points to after
 * the request (libcurl does not copy them); reply->body is malloc'ed
 * (NUL-terminated, NULL when empty) and freed by the caller with
 * free().
 */
#ifndef SB_HTTP_H
#define SB_HTTP_H 1

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

struct sb_http_reply {
    long status;
    char *body;
    size_t len;
    int refused;              /* why the body was not taken: EPROTO
                               * (over 8 MiB: the device's answer) or
                               * ENOMEM (ours); 0 */
};

struct sb_http_request {
    const char *device;       /* for the error line */
    const char *method;       /* "GET", "PUT", ... */
    /* A GET that changes the device (Mininet-Optical's /connect): its
     * outcome is unknown when its answer is lost, as any other
     * method's.  A GET is otherwise taken for a read. */
    bool change;
    const char *url;          /* the whole URL */
    const char *what;         /* how the error line names the request */
    const char *body;         /* NULL: none */
    const char *accept;       /* media type, NULL: any */
    const char *content_type; /* of the body */
    /* The one CA trusted for https: its PEM bytes, read once by the
     * driver and handed to libcurl from memory (CURLOPT_CAINFO_BLOB,
     * not copied: they must stay until the handle's next request or
     * its cleanup); ca_file is where they were read, for the error
     * line only.  NULL: none (no https). */
    const char *ca_file;
    const void *ca_pem;
    size_t ca_len;
    int timeout_ms;
};

/* Initialises libcurl once per process (safe from any thread). */
void sb_http_global_init(void);

/* Sends one request.  0 with reply->status set (any HTTP status), or
 * ETIMEDOUT (no answer within timeout_ms, or a change that went out
 * whose answer was lost, or could not be read for want of memory: the
 * outcome is unknown), EACCES (the server's
 * certificate does not chain to ca_file), EHOSTUNREACH (no
 * connection, a connect that timed out included: nothing went out) or
 * EPROTO (a GET answered with a body over 8 MiB, or
 * with what libcurl refuses, such as an HTTP version it does not
 * speak), the device's; or EINVAL (CA bytes, a URL this libcurl
 * will not take) or ENOMEM, the controller's own before anything went
 * out (sb_local()); with one line in err. */
int sb_http_perform(CURL *h, const struct sb_http_request *rq,
                    struct sb_http_reply *reply, char *err, size_t errlen);

/* The line for a TCP connection libcurl could not make
 * (CURLE_COULDNT_CONNECT: EHOSTUNREACH, nothing sent) to 'url' of
 * 'device', into 'err': what happened, from the connect's errno
 * 'os_errno' (CURLINFO_OS_ERRNO: ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH,
 * ENETUNREACH; libcurl's words 'why' for any other), and what to check
 * for it (the address and port, the device being up, a firewall, the
 * route).  sb_http_perform() writes it; exported for its tests. */
void sb_http_no_connect(const char *device, const char *url, long os_errno,
                        const char *why, char *err, size_t errlen);

/* libcurl's failure 'cc' as the driver convention's errno (0 for
 * CURLE_OK), without what only the handle knows (sb_http_perform()
 * makes a CURLE_OPERATION_TIMEDOUT before the connection EHOSTUNREACH); 'change_sent': a change (a method other than GET, or
 * sb_http_request.change) went out, in part at least, so that its
 * outcome is unknown (ETIMEDOUT), whatever libcurl's code says: some
 * that name what the controller gave it (CURLE_UNSUPPORTED_PROTOCOL)
 * also fail an answer. */
int sb_http_errno(CURLcode cc, bool change_sent);

#endif
