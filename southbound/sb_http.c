/*
 * sb_http: one libcurl request for the HTTP drivers.  See sb_http.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "southbound/sb_driver.h"
#include "southbound/sb_http.h"

#define SB_HTTP_MAX_BODY (8u << 20)

static pthread_once_t sb_http_once = PTHREAD_ONCE_INIT;

static void
sb_http_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void
sb_http_global_init(void)
{
    pthread_once(&sb_http_once, sb_http_init);
}

static size_t
sb_http_on_body(char *p, size_t size, size_t n, void *arg)
{
    struct sb_http_reply *r = arg;
    size_t k = size * n;
    if (r->len + k > SB_HTTP_MAX_BODY) {
        r->refused = EPROTO;   /* refuse answers over 8 MiB */
        return 0;
    }
    char *b = realloc(r->body, r->len + k + 1);
    if (!b) {
        r->refused = ENOMEM;
        return 0;
    }
    memcpy(b + r->len, p, k);
    r->len += k;
    b[r->len] = '\0';
    r->body = b;
    return k;
}

/* Whose failure 'cc' is decides its errno (sb_driver.h): the device's
 * (its certificate refused in the handshake: EACCES; no connection:
 * EHOSTUNREACH; no answer: ETIMEDOUT) or the controller's own, before
 * any byte of the request went out (EINVAL: CA bytes, a client
 * certificate, a URL or a protocol this libcurl will not take; ENOMEM:
 * its memory).  CURLE_SSL_CACERT_BADFILE is libcurl refusing the CA it
 * was handed, at the start of the handshake and before any answer: it
 * was EACCES, "the server's certificate is refused", and showed the
 * ROADM down for a file on the controller's host.  A change that went
 * out, even in part, before libcurl failed may have been made: the
 * outcome is unknown (ETIMEDOUT), which matters more to the caller
 * than whose the failure was, so it wins over ENOMEM. */
int
sb_http_errno(CURLcode cc, bool change_sent)
{
    switch (cc) {
    case CURLE_OK:
        return 0;
    case CURLE_OPERATION_TIMEDOUT:
        return ETIMEDOUT;
    case CURLE_PEER_FAILED_VERIFICATION:
        return EACCES;
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_NOT_BUILT_IN:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION:
        /* Not only what the controller gave: libcurl also fails an
         * answer with some of these ("Unsupported HTTP version in
         * response" is CURLE_UNSUPPORTED_PROTOCOL), after the request
         * went out. */
        return change_sent ? ETIMEDOUT : EINVAL;
    case CURLE_OUT_OF_MEMORY:
    case CURLE_FAILED_INIT:
        return change_sent ? ETIMEDOUT : ENOMEM;
    default:
        return change_sent ? ETIMEDOUT : EHOSTUNREACH;
    }
}

/* 'url''s host and port (the scheme's default when none is written)
 * into 'host' and 'port'; "?" for what cannot be parsed, as the line
 * they go in is worth more than a refusal to write it. */
static void
sb_http_host_port(const char *url, char *host, size_t hlen, char *port,
                  size_t plen)
{
    char *h = NULL, *p = NULL;
    CURLU *u = curl_url();
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_HOST, &h, 0);
        curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT);
    }
    snprintf(host, hlen, "%s", h ? h : "?");
    snprintf(port, plen, "%s", p ? p : "?");
    curl_free(h);
    curl_free(p);
    curl_url_cleanup(u);
}

/* Whether the IPv4 address 'host' lies in the 'bits' first bits of
 * 'net', as libcurl 7.88's Curl_cidr4_match() has it: 0 bits, like 32,
 * is 'net' alone, not every address (no_proxy=0.0.0.0/0 exempts
 * nothing else: curl 7.88.1 sent http://127.0.0.1:1/ to the proxy);
 * false when either is no IPv4 address or bits is outside 0..32. */
static bool
sb_http_in_cidr4(const char *host, const char *net, long bits)
{
    struct in_addr a, b;
    if (inet_pton(AF_INET, host, &a) != 1
        || inet_pton(AF_INET, net, &b) != 1 || bits < 0 || bits > 32)
        return false;
    uint32_t mask = bits && bits < 32 ? 0xffffffffu << (32 - bits)
                                      : 0xffffffffu;
    return (ntohl(a.s_addr) & mask) == (ntohl(b.s_addr) & mask);
}

/* Whether one no_proxy entry 'e' (not empty) exempts 'host' (IPv6
 * without brackets) as libcurl 7.88 matches it: an address host by the
 * same text or, IPv4, a CIDR range; a name by itself or a domain it
 * ends in (a trailing '.' of either, then a leading '.' of 'e',
 * ignored), in any case.  Where libcurl 7.88
 * exempts nothing, or versions may differ (an IPv6 range, another
 * spelling of an address), none is assumed: the line then says "may"
 * rather than blame the device. */
static bool
sb_http_no_proxy_entry(const char *host, const char *e)
{
    unsigned char addr[16];
    const bool ip = inet_pton(AF_INET, host, addr) == 1
                    || inet_pton(AF_INET6, host, addr) == 1;
    const char *slash = strchr(e, '/');
    if (ip && slash) {
        char net[16];
        size_t n = (size_t) (slash - e);
        /* The bits as libcurl reads them, with atoi(): "/8x" is 8 and
         * "/" is 0 (the address alone); strtol() saturates where atoi()
         * would overflow, and either way that is outside 0..32. */
        long bits = strtol(slash + 1, NULL, 10);
        if (n >= sizeof net)
            return false;
        memcpy(net, e, n);
        net[n] = '\0';
        return sb_http_in_cidr4(host, net, bits);
    }
    if (ip)
        return !strcasecmp(host, e);
    /* A name's trailing dot (the root's) is no part of it to libcurl,
     * in the host or the entry; then the entry's leading one. */
    size_t hl = strlen(host), el = strlen(e);
    hl -= hl && host[hl - 1] == '.';
    el -= el && e[el - 1] == '.';
    if (el && *e == '.') {
        e++;
        el--;
    }
    return el && hl >= el && !strncasecmp(host + hl - el, e, el)
           && (hl == el || host[hl - el - 1] == '.');
}

/* Whether no_proxy (or NO_PROXY) exempts the host of 'url' from a
 * proxy: "*", or one of its comma-separated entries. */
static bool
sb_http_no_proxy(const char *url)
{
    const char *np = getenv("no_proxy");
    if (!np || !np[0])
        np = getenv("NO_PROXY");
    if (!np || !np[0])
        return false;
    if (!strcmp(np, "*"))
        return true;
    char host[256], port[16], list[1024];
    sb_http_host_port(url, host, sizeof host, port, sizeof port);
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    snprintf(list, sizeof list, "%s", np);
    char *save = NULL;
    /* libcurl takes blanks as well as commas between entries. */
    for (char *t = strtok_r(list, ", \t", &save); t;
         t = strtok_r(NULL, ", \t", &save))
        if (sb_http_no_proxy_entry(host, t))
            return true;
    return false;
}

/* The variable of the environment that names a proxy for 'url' as
 * libcurl reads them when no CURLOPT_PROXY is set (its detect_proxy():
 * "http_proxy" for http, in lower case only; "https_proxy", then
 * "HTTPS_PROXY" for https; then "all_proxy", "ALL_PROXY"), NULL for
 * none or when no_proxy exempts the URL's host. */
static const char *
sb_http_env_proxy(const char *url)
{
    static const char *const http[] = { "http_proxy", "all_proxy",
                                        "ALL_PROXY", NULL };
    static const char *const https[] = { "https_proxy", "HTTPS_PROXY",
                                         "all_proxy", "ALL_PROXY", NULL };
    const char *const *vars = !strncasecmp(url, "https://", 8) ? https
                              : !strncasecmp(url, "http://", 7) ? http
                              : NULL;
    for (int i = 0; vars && vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0])
            return sb_http_no_proxy(url) ? NULL : vars[i];
    }
    return NULL;
}

void
sb_http_no_connect(const char *device, const char *url, long os_errno,
                   const char *why, char *err, size_t errlen)
{
    char host[256], port[16];
    /* Through a proxy, the connect that failed was the proxy's: the
     * errno says nothing of the device, and libcurl's words name the
     * address it tried. */
    const char *proxy = sb_http_env_proxy(url);
    if (proxy) {
        sb_errf(err, errlen, 0, "%s: cannot connect to %s (%s): nothing "
                "sent; the environment's %s may send it through a proxy, "
                "whose address libcurl names: check that proxy, or for a "
                "direct connection unset %s or list the device in "
                "no_proxy", device, url, why, proxy, proxy);
        return;
    }
    sb_http_host_port(url, host, sizeof host, port, sizeof port);
    /* libcurl's own words ("Failed to connect to H port P after 0 ms:
     * Couldn't connect to server") name neither the cause nor what to
     * do; the connect's errno does, and each cause has its check. */
    switch (os_errno) {
    case ECONNREFUSED:
        sb_errf(err, errlen, 0, "%s: cannot connect to %s: refused, "
                "nothing listens on port %s of %s: nothing sent; check the "
                "device's address and port, and that its server is "
                "running", device, url, port, host);
        break;
    case ETIMEDOUT:
        sb_errf(err, errlen, 0, "%s: cannot connect to %s: the connect "
                "timed out (%s did not answer): nothing sent; check the "
                "device's address, that it is up, and that no firewall "
                "drops port %s", device, url, host, port);
        break;
    case EHOSTUNREACH:
    case ENETUNREACH:
        sb_errf(err, errlen, 0, "%s: cannot connect to %s: no route to %s "
                "(%s): nothing sent; check the device's address and the "
                "network between the controller and it", device, url, host,
                strerror((int) os_errno));
        break;
    default:
        sb_errf(err, errlen, 0, "%s: cannot connect to %s (%s): nothing "
                "sent; check the device's address and port, that its "
                "server listens there, and that no firewall blocks port %s",
                device, url, why, port);
        break;
    }
}

/* Whether the transfer on 'h' made its connection (a reused one
 * counts): libcurl 7.88 records the connect's time only once the whole
 * of it is made, TCP and TLS (and a proxy's tunnel). */
static bool
sb_http_connected(CURL *h)
{
    curl_off_t t = 0;
    return curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &t) == CURLE_OK
           && t > 0;
}

/* Whether the transfer on 'h', not connected (sb_http_connected()),
 * made its TCP connection: libcurl 7.88 knows the local port once the
 * TCP connect is made (checked: 0 for a SYN never answered, the port
 * for a server that takes the connection and never starts TLS). */
static bool
sb_http_tcp_made(CURL *h)
{
    long port = 0;
    return curl_easy_getinfo(h, CURLINFO_LOCAL_PORT, &port) == CURLE_OK
           && port > 0;
}

int
sb_http_perform(CURL *h, const struct sb_http_request *rq,
                struct sb_http_reply *r, char *err, size_t errlen)
{
    char ebuf[CURL_ERROR_SIZE] = "", hdr[128];
    struct curl_slist *hdrs = NULL;

    memset(r, 0, sizeof r[0]);
    curl_easy_reset(h);
    if (rq->accept) {
        snprintf(hdr, sizeof hdr, "Accept: %s", rq->accept);
        hdrs = curl_slist_append(hdrs, hdr);
    }
    if (rq->body && rq->content_type) {
        snprintf(hdr, sizeof hdr, "Content-Type: %s", rq->content_type);
        hdrs = curl_slist_append(hdrs, hdr);
    }
    curl_easy_setopt(h, CURLOPT_URL, rq->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long) rq->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long) rq->timeout_ms);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sb_http_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    if (rq->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long) strlen(rq->body));
    }
    /* The pinned CA only (the system's CAs are never consulted: the
     * blob replaces CURLOPT_CAINFO's default bundle, and the default
     * folder is unset), from the bytes the driver read and checked:
     * a path would have libcurl read the file at its connections, so
     * that one replaced since the check could fail them or, another
     * CA's, be trusted.  CURL_BLOB_NOCOPY: the bytes outlive every
     * use the handle makes of them (sb_http.h), and a copy per request
     * would buy nothing. */
    if (rq->ca_pem) {
        struct curl_blob ca = {
            .data = (void *) rq->ca_pem, .len = rq->ca_len,
            .flags = CURL_BLOB_NOCOPY,
        };
        /* A libcurl without blobs (before 7.77, or a TLS backend that
         * takes none) would otherwise fail every certificate with
         * words that blame the device. */
        CURLcode bc = curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
        if (bc != CURLE_OK) {
            /* The controller's own libcurl, not the device: EINVAL
             * (ENOMEM if it ran out of memory), never EACCES, which
             * would show the ROADM down. */
            curl_slist_free_all(hdrs);
            return sb_errf(err, errlen, bc == CURLE_OUT_OF_MEMORY ? ENOMEM
                           : EINVAL, "%s: this libcurl cannot take the "
                           "ca-file %s from memory (CURLOPT_CAINFO_BLOB: "
                           "libcurl 7.77 or later with OpenSSL): nothing "
                           "sent; install such a libcurl", rq->device,
                           rq->ca_file ? rq->ca_file : "");
        }
        curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
        curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
    }
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    CURLcode cc = curl_easy_perform(h);
    curl_slist_free_all(hdrs);
    const char *why = ebuf[0] ? ebuf : curl_easy_strerror(cc);
    if (cc == CURLE_OK) {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
        return 0;
    }
    /* A change whose request went out, even in part, may have been
     * made: its answer was lost (an empty reply, a reset) or not taken
     * (over 8 MiB, no memory for it), which is a timeout's case, not
     * "nothing applied". */
    long sent = 0;
    curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &sent);
    bool change_sent = sent > 0 && (rq->change
                                    || strcmp(rq->method, "GET"));
    int ret = sb_http_errno(cc, change_sent);
    /* libcurl's timeout before the TCP connection was made: no byte
     * went out, so no outcome is unknown.  The device cannot be reached
     * (EHOSTUNREACH, as for a refused connect), and the caller need not
     * read it back, which ETIMEDOUT would have it do. */
    bool connect_timed_out = cc == CURLE_OPERATION_TIMEDOUT && sent == 0
                             && !sb_http_connected(h);
    if (connect_timed_out)
        ret = EHOSTUNREACH;
    /* An answer refused while it came in was an answer: the device was
     * reached, and a body over 8 MiB is its own (EPROTO, no ROADM
     * answers so), memory for it ours (ENOMEM); neither is "cannot
     * reach".  A change's outcome is still unknown (ETIMEDOUT). */
    if (cc == CURLE_WRITE_ERROR && r->refused && !change_sent)
        ret = r->refused;
    /* A GET that went out is never "nothing sent": libcurl refused
     * what came back (an HTTP version it does not speak), which is the
     * device's answer, refused as one over 8 MiB is. */
    bool answer_refused = ret == EINVAL && sent > 0;
    if (answer_refused)
        ret = EPROTO;
    if (connect_timed_out && !sb_http_env_proxy(rq->url)
        && sb_http_tcp_made(h)) {
        /* The device took the connection: no address, route or
         * firewall to check, but what serves that port. */
        char host[256], port[16];
        sb_http_host_port(rq->url, host, sizeof host, port, sizeof port);
        sb_errf(err, errlen, 0, "%s: connected to %s port %s, but %s "
                "within %d ms: nothing sent; check that the device's server "
                "on port %s speaks %s and is not stuck", rq->device, host,
                port, strncasecmp(rq->url, "https:", 6)
                      ? "could send nothing" : "no TLS handshake finished",
                rq->timeout_ms, port,
                strncasecmp(rq->url, "https:", 6) ? "HTTP" : "HTTPS");
    } else if (connect_timed_out && !sb_http_env_proxy(rq->url)) {
        char host[256], port[16];
        sb_http_host_port(rq->url, host, sizeof host, port, sizeof port);
        sb_errf(err, errlen, 0, "%s: cannot connect to %s: the connect "
                "timed out (no answer within %d ms): nothing sent; check "
                "the device's address, that it is up, and that no firewall "
                "drops port %s", rq->device, rq->url, rq->timeout_ms, port);
    } else if ((cc == CURLE_COULDNT_CONNECT && sent == 0)
               || connect_timed_out) {
        /* Only a connect that sent nothing: libcurl retries a request
         * whose reused connection died before the answer on a fresh
         * one, and that connect being refused leaves the first
         * attempt's bytes sent (a change's outcome unknown, below). */
        long os_errno = 0;
        curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
        sb_http_no_connect(rq->device, rq->url, os_errno, why, err, errlen);
    } else if (cc == CURLE_WRITE_ERROR && ret == EPROTO)
        sb_errf(err, errlen, 0, "%s: the answer to %s is over %u MiB, "
                "which no ROADM answers: nothing applied; check what "
                "serves %s", rq->device, rq->what, SB_HTTP_MAX_BODY >> 20,
                rq->url);
    else if (answer_refused)
        sb_errf(err, errlen, 0, "%s: libcurl refused the answer to %s "
                "(%s): nothing applied; check what serves %s", rq->device,
                rq->what, why, rq->url);
    else if (cc == CURLE_WRITE_ERROR && ret == ENOMEM)
        sb_errf(err, errlen, 0, "%s: out of memory reading the answer to "
                "%s: nothing applied; retry", rq->device, rq->what);
    /* The controller's memory, not the wire, lost a change's answer:
     * the line says so, and the errno stays ETIMEDOUT, since the
     * request went out and ENOMEM would be taken for "nothing sent"
     * (sb_local()), with no read back nor undo. */
    else if (cc == CURLE_WRITE_ERROR && r->refused == ENOMEM
             && ret == ETIMEDOUT)
        sb_errf(err, errlen, 0, "%s: out of memory reading the answer to "
                "%s: the request went out, its outcome is unknown; read "
                "the device back, then retry", rq->device, rq->what);
    /* So is a change's answer over 8 MiB: refused here, not lost. */
    else if (cc == CURLE_WRITE_ERROR && r->refused == EPROTO
             && ret == ETIMEDOUT)
        sb_errf(err, errlen, 0, "%s: the answer to %s is over %u MiB, "
                "which no ROADM answers: the request went out, its outcome "
                "is unknown; read the device back and check what serves %s",
                rq->device, rq->what, SB_HTTP_MAX_BODY >> 20, rq->url);
    else if (cc == CURLE_OPERATION_TIMEDOUT)
        sb_errf(err, errlen, 0, "%s: no answer to %s within %d ms: the "
                "outcome is unknown; read the device back", rq->device,
                rq->what, rq->timeout_ms);
    else if (ret == ETIMEDOUT)
        sb_errf(err, errlen, 0, "%s: %s went out but its answer was lost "
                "(%s): the outcome is unknown; read the device back",
                rq->device, rq->what, why);
    else if (ret == EACCES)
        sb_errf(err, errlen, 0, "%s: the server's certificate is refused "
                "(%s): it must chain to the pinned CA %s; nothing applied",
                rq->device, why, rq->ca_file ? rq->ca_file : "(none)");
    else if (cc == CURLE_SSL_CACERT_BADFILE)
        sb_errf(err, errlen, 0, "%s: libcurl cannot load the ca-file %s "
                "(%s): nothing sent; give the PEM certificate of the CA "
                "that signs the device's", rq->device,
                rq->ca_file ? rq->ca_file : "(none)", why);
    else if (ret == EINVAL)
        sb_errf(err, errlen, 0, "%s: libcurl cannot make %s to %s (%s): "
                "nothing sent; check the device's address and ca-file",
                rq->device, rq->what, rq->url, why);
    else if (ret == ENOMEM)
        sb_errf(err, errlen, 0, "%s: libcurl cannot make %s (%s): the "
                "controller's host is out of memory; it was not sent: "
                "retry", rq->device, rq->what, why);
    else
        sb_errf(err, errlen, 0, "%s: cannot reach %s (%s): nothing applied; "
                "check the device and its address", rq->device, rq->url,
                why);
    free(r->body);
    memset(r, 0, sizeof r[0]);
    return ret;
}
