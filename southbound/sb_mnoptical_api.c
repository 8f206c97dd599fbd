/*
 * sb_mnoptical_api: the REST client of Mininet-Optical (see
 * sb_mnoptical.h): GET with query parameters, its HTML error pages made
 * one line, discovery of nodes and links, port lookup, the lenient JSON
 * parser and the flexgrid -> 50 GHz grid mapping.
 *
 * Model of the grid: Mininet-Optical channel k is centred on 191.3 THz +
 * k x 50 GHz (../shared/reference/southbound.md); a flexgrid media channel
 * (ITU-T G.694.1: centre 193.1 THz + n x 6.25 GHz, width m x 12.5 GHz)
 * has its lower edge at 193.1 THz + (n - m) x 6.25 GHz, and channel k's
 * lower edge is 191.275 THz + k x 50 GHz = 193.1 THz + (8k - 292) x 6.25
 * GHz.  So the media channel is channels k .. k + m/4 - 1 exactly when
 * 4 | m and n - m = 8k - 292.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "planner/lr_utf8.h"
#include "southbound/sb_chtab.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_http.h"
#include "southbound/sb_mnoptical.h"

#define SB_MNO_DEFAULT_TIMEOUT_MS 5000

int
sb_mno_map(int n, int m, int *first, int *count, char *err, size_t errlen)
{
    double lo = 193100.0 + ((double) n - m) * 6.25,
           hi = 193100.0 + ((double) n + m) * 6.25;

    /* Far outside the emulator's band, and so that no sum below can
     * overflow. */
    if (n < -SB_GRID_MAX || n > SB_GRID_MAX || m > SB_GRID_MAX) {
        sb_errf(err, errlen, 0, "the media channel n=%d, m=%d is outside "
                "any band", n, m);
        return EINVAL;
    }
    if (m <= 0 || m % 4) {
        sb_errf(err, errlen, 0, "the media channel %.3f-%.3f THz (n=%d, "
                "m=%d) is %.1f GHz wide, not a whole number of the "
                "emulator's 50 GHz channels: allocate a multiple of 4 "
                "slots of 12.5 GHz", lo / 1000, hi / 1000, n, m, m * 12.5);
        return EINVAL;
    }
    int e = n - m + 292;      /* the lower edge in 6.25 GHz steps from
                               * 191.275 THz */
    if (e % 8) {
        int k = (e + (e >= 0 ? 4 : -4)) / 8;
        sb_errf(err, errlen, 0, "the media channel %.3f-%.3f THz (n=%d, "
                "m=%d) is not aligned to the emulator's 50 GHz grid "
                "(channel edges at 191.275 THz + k x 50 GHz; nearest "
                "channel %d): allocate aligned spectrum", lo / 1000,
                hi / 1000, n, m, k);
        return EINVAL;
    }
    int k = e / 8, c = m / 4;
    if (k < 1 || k + c - 1 > SB_MNO_MAX_CHANNEL) {
        sb_errf(err, errlen, 0, "the media channel %.3f-%.3f THz (n=%d, "
                "m=%d) would be channels %d..%d, outside the emulator's "
                "1..%d (191.35-196.1 THz)", lo / 1000, hi / 1000, n, m, k,
                k + c - 1, SB_MNO_MAX_CHANNEL);
        return EINVAL;
    }
    *first = k;
    *count = c;
    return 0;
}

int
sb_mno_open(struct sb_mno *c, const char *device, const char *base,
            int timeout_ms, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->device, sizeof c->device, "%s", device);
    if ((strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
        || strlen(base) >= sizeof c->base) {
        sb_errf(err, errlen, 0, "%s: Mininet-Optical address '%s' is not "
                "http://HOST:PORT: fix the address", device,
                LR_UTF8_CLIP(base, 200));
        return EINVAL;
    }
    snprintf(c->base, sizeof c->base, "%s", base);
    size_t l = strlen(c->base);
    while (l && c->base[l - 1] == '/')
        c->base[--l] = '\0';
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : SB_MNO_DEFAULT_TIMEOUT_MS;
    sb_http_global_init();
    if (!(c->h = curl_easy_init())) {
        sb_errf(err, errlen, 0, "%s: out of memory for a libcurl handle: "
                "nothing was sent to %s; retry", device, c->base);
        return ENOMEM;
    }
    return 0;
}

void
sb_mno_close(struct sb_mno *c)
{
    if (c->h)
        curl_easy_cleanup(c->h);
    free(c->nodes);
    free(c->links);
    memset(c, 0, sizeof *c);
}

/* The text of an HTML page on one line: the tags dropped, white space
 * collapsed, at most 'size' - 1 bytes. */
static void
sb_mno_html_line(const char *html, char *out, size_t size)
{
    size_t o = 0;
    bool tag = false, space = true;

    for (const char *p = html ? html : ""; *p && o + 1 < size; p++) {
        if (*p == '<') {
            tag = true;
            continue;
        }
        if (tag) {
            if (*p == '>') {
                tag = false;
                if (!space) {
                    out[o++] = ' ';
                    space = true;
                }
            }
            continue;
        }
        if (isspace((unsigned char) *p) || iscntrl((unsigned char) *p)) {
            if (!space)
                out[o++] = ' ';
            space = true;
            continue;
        }
        out[o++] = *p;
        space = false;
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

/* Whether GET 'path' changes the emulator: Mininet-Optical's REST API
 * makes its changes with GETs (/connect installs and removes rules and
 * tunes terminals, /reset and /turn_on act on a node), whose outcome is
 * unknown when the answer is lost (sb_http_request.change). */
static bool
sb_mno_changes(const char *path)
{
    return !strcmp(path, "/connect") || !strcmp(path, "/reset")
           || !strcmp(path, "/turn_on");
}

int
sb_mno_get(struct sb_mno *c, const char *path, const char *query,
           char **body, char *err, size_t errlen)
{
    char url[1024], what[640], text[200];
    struct sb_http_reply r;

    if (body)
        *body = NULL;
    c->status = 0;
    snprintf(url, sizeof url, "%s%s%s%s", c->base, path,
             query && *query ? "?" : "", query ? query : "");
    snprintf(what, sizeof what, "GET %s%s%s", path,
             query && *query ? "?" : "", query ? query : "");
    struct sb_http_request rq = {
        .device = c->device, .method = "GET", .change = sb_mno_changes(path),
        .url = url, .what = what, .timeout_ms = c->timeout_ms,
    };
    int ret = sb_http_perform(c->h, &rq, &r, err, errlen);
    if (ret)
        return ret;
    c->status = r.status;
    if (r.status == 200) {
        if (body)
            *body = r.body;
        else
            free(r.body);
        return 0;
    }
    sb_mno_html_line(r.body, text, sizeof text);
    /* Mininet-Optical's REST server (mnoptical/rest.py, on bottle)
     * answers 404 "Unknown node: NAME" for a node it does not have, but
     * 404 too for a path it does not serve (bottle's "Not found: PATH":
     * a proxy, or another server on the port) and for a node without
     * the handler ("No handler for node").  A rule it does not hold is
     * its 500.  Only the first says the node is unknown: it is looked
     * for in the whole page (the line is bounded, and bottle's page
     * has its style sheet and the URL before the text). */
    bool unknown_node = r.status == 404 && r.body
                        && strstr(r.body, "Unknown node");
    free(r.body);
    if (unknown_node) {
        sb_errf(err, errlen, 0, "%s: the emulator does not know %s (HTTP "
                "404: %s): check the node name and that Mininet-Optical "
                "runs this topology", c->device, what,
                text[0] ? text : "no text");
        return ENOENT;
    }
    if (r.status == 404) {
        sb_errf(err, errlen, 0, "%s: the emulator refused %s (HTTP 404: "
                "%s), a page that names no unknown node: check that %s is "
                "Mininet-Optical's REST server, with no proxy in between",
                c->device, what, text[0] ? text : "no text", c->base);
        return EPROTO;
    }
    sb_errf(err, errlen, 0, "%s: the emulator refused %s (HTTP %ld: %s): a "
            "bad or missing parameter", c->device, what, r.status,
            text[0] ? text : "no text");
    return EPROTO;
}

struct json_object *
sb_mno_parse(const char *text)
{
    /* json-c's tokener, when not strict, reads NaN, Infinity and
     * -Infinity as doubles: exactly the leniency Mininet-Optical's
     * monitor answers need. */
    json_tokener *tok = json_tokener_new();
    if (!tok || !text)
        return json_tokener_free(tok), NULL;
    json_tokener_set_flags(tok, 0);
    size_t len = strlen(text), end;
    json_object *o = json_tokener_parse_ex(tok, text, (int) len);
    for (end = json_tokener_get_parse_end(tok); end < len; end++)
        if (!isspace((unsigned char) text[end]))
            break;
    if (json_tokener_get_error(tok) != json_tokener_success || end < len) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

static int
sb_mno_bad(struct sb_mno *c, const char *what, char *err, size_t errlen)
{
    sb_errf(err, errlen, 0, "%s: the emulator's %s is not what Mininet-"
            "Optical answers: is %s Mininet-Optical's REST server?",
            c->device, what, c->base);
    return EPROTO;
}

/* Out of memory for the table of the 'n' 'what' ("nodes", "links") that
 * GET /'what' listed: a GET changes nothing on the emulator, and the
 * answer is dropped, so "retry" is all there is to do. */
static void
sb_mno_table_oom(const struct sb_mno *c, size_t n, const char *what,
                 char *err, size_t errlen)
{
    sb_errf(err, errlen, 0, "%s: out of memory for the %zu %s of GET /%s: "
            "read from %s, not kept, nothing changed; retry", c->device, n,
            what, what, c->base);
}

int
sb_mno_discover(struct sb_mno *c, char *err, size_t errlen)
{
    char *body = NULL;
    json_object *top = NULL, *v;
    int ret;

    free(c->nodes);
    free(c->links);
    c->nodes = NULL;
    c->links = NULL;
    c->n_nodes = c->n_links = 0;
    if ((ret = sb_mno_get(c, "/nodes", "", &body, err, errlen)))
        return ret;
    top = sb_mno_parse(body);
    free(body);
    if (!json_object_object_get_ex(top, "nodes", &v)
        || !json_object_is_type(v, json_type_object)) {
        ret = sb_mno_bad(c, "/nodes", err, errlen);
        goto cleanup;
    }
    c->nodes = calloc((size_t) json_object_object_length(v) + 1,
                      sizeof *c->nodes);
    if (!c->nodes) {
        ret = ENOMEM;
        sb_mno_table_oom(c, (size_t) json_object_object_length(v), "nodes",
                         err, errlen);
        goto cleanup;
    }
    json_object_object_foreach(v, name, type) {
        struct sb_mno_node *nd = &c->nodes[c->n_nodes++];
        snprintf(nd->name, sizeof nd->name, "%s", name);
        const char *t = json_object_get_string(type);  /* NULL: null */
        snprintf(nd->type, sizeof nd->type, "%s", t ? t : "");
    }
    json_object_put(top);
    top = NULL;
    if ((ret = sb_mno_get(c, "/links", "", &body, err, errlen)))
        goto cleanup;
    top = sb_mno_parse(body);
    free(body);
    if (!json_object_object_get_ex(top, "links", &v)
        || !json_object_is_type(v, json_type_array)) {
        ret = sb_mno_bad(c, "/links", err, errlen);
        goto cleanup;
    }
    size_t nl = json_object_array_length(v);
    c->links = calloc(nl + 1, sizeof *c->links);
    if (!c->links) {
        ret = ENOMEM;
        sb_mno_table_oom(c, nl, "links", err, errlen);
        goto cleanup;
    }
    for (size_t i = 0; i < nl; i++) {
        json_object *l = json_object_array_get_idx(v, i);
        struct sb_mno_link *k = &c->links[c->n_links];
        int seen = 0;
        if (!json_object_is_type(l, json_type_object)
            || json_object_object_length(l) != 2) {
            ret = sb_mno_bad(c, "/links", err, errlen);
            goto cleanup;
        }
        json_object_object_foreach(l, node, port) {
            if (!json_object_is_type(port, json_type_int)) {
                ret = sb_mno_bad(c, "/links", err, errlen);
                goto cleanup;
            }
            snprintf(seen ? k->b : k->a, sizeof k->a, "%s", node);
            *(seen ? &k->pb : &k->pa) = json_object_get_int(port);
            seen++;
        }
        c->n_links++;
    }
cleanup:
    json_object_put(top);
    return ret;
}

const char *
sb_mno_node_type(const struct sb_mno *c, const char *node)
{
    for (int i = 0; i < c->n_nodes; i++)
        if (!strcmp(c->nodes[i].name, node))
            return c->nodes[i].type;
    return NULL;
}

/* Does 'link' name the pair x, y ("x-y")? */
static bool
sb_mno_pair(const char *link, const char *x, const char *y)
{
    size_t lx = strlen(x);
    return x[0] && !strncmp(link, x, lx) && link[lx] == '-'
           && !strcmp(link + lx + 1, y);
}

int
sb_mno_link_port(const struct sb_mno *c, const char *node,
                 const char *alias, const char *link, int *port, char *err,
                 size_t errlen)
{
    for (int i = 0; i < c->n_links; i++) {
        const struct sb_mno_link *k = &c->links[i];
        for (int side = 0; side < 2; side++) {
            const char *me = side ? k->b : k->a, *peer = side ? k->a : k->b;
            if (strcmp(me, node))
                continue;
            if (sb_mno_pair(link, me, peer) || sb_mno_pair(link, peer, me)
                || (alias && (sb_mno_pair(link, alias, peer)
                              || sb_mno_pair(link, peer, alias)))) {
                *port = side ? k->pb : k->pa;
                return 0;
            }
        }
    }
    sb_errf(err, errlen, 0, "%s: no emulator link of %s matches the topology "
            "link '%s' (a link 'A-B' maps to the emulator's link between "
            "nodes A and B): name the topology's links after the "
            "emulator's node pairs", c->device, node, link);
    return ENOENT;
}

int
sb_mno_port_towards(const struct sb_mno *c, const char *node,
                    const char *peer, const char *type, int *port,
                    char *err, size_t errlen)
{
    int found = 0;
    for (int i = 0; i < c->n_links; i++) {
        const struct sb_mno_link *k = &c->links[i];
        for (int side = 0; side < 2; side++) {
            const char *me = side ? k->b : k->a, *other = side ? k->a : k->b;
            const char *t = sb_mno_node_type(c, other);
            if (strcmp(me, node) || (peer && strcmp(other, peer))
                || (!peer && (!t || strcmp(t, type))))
                continue;
            if (!found++)
                *port = side ? k->pb : k->pa;
        }
    }
    if (found == 1)
        return 0;
    if (!found)
        sb_errf(err, errlen, 0, "%s: the emulator links %s to no %s%s",
                c->device, node, peer ? "node " : "",
                peer ? peer : type);
    else
        sb_errf(err, errlen, 0, "%s: the emulator links %s to %d %s%s: "
                "ambiguous; name the add/drop link 'NODE-TERMINAL' in the "
                "media channel", c->device, node, found,
                peer ? peer : type, peer ? " links" : "s");
    return found ? EINVAL : ENOENT;
}
