/*
 * mno_double: the Mininet-Optical REST test double; see mno_double.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "tests/unit/mno_double.h"

struct mno_double dbl;

static const char *nodes_json =
    "{\"nodes\": {\"r1\": \"ROADM\", \"r2\": \"ROADM\", \"r3\": \"ROADM\", "
    "\"t1\": \"Terminal\", \"t2\": \"Terminal\", \"t3\": \"Terminal\", "
    "\"t1-monitor\": \"Monitor\", \"t2-monitor\": \"Monitor\"}}";
static const char *links_json =
    "{\"links\": [{\"t1\": 2, \"r1\": 1}, {\"r1\": 11, \"r2\": 11}, "
    "{\"r2\": 12, \"r3\": 11}, {\"r3\": 1, \"t2\": 2}, "
    "{\"t3\": 2, \"r2\": 2}]}";

static void
dbl_html(struct evhttp_request *req, int status, const char *title,
         const char *msg)
{
    evbuffer_add_printf(evhttp_request_get_output_buffer(req),
                        "<!DOCTYPE HTML PUBLIC "
                        "\"-//IETF//DTD HTML 2.0//EN\">\n"
                        "<html>\n  <head>\n    <title>Error: %s</title>\n"
                        "  </head>\n  <body>\n    <h1>Error: %s</h1>\n"
                        "    <pre>%s</pre>\n  </body>\n</html>\n", title,
                        title, msg);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      "text/html; charset=UTF-8");
    evhttp_send_reply(req, status, NULL, NULL);
}

static void
dbl_text(struct evhttp_request *req, const char *type, const char *text)
{
    evbuffer_add_printf(evhttp_request_get_output_buffer(req), "%s", text);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      type);
    evhttp_send_reply(req, 200, NULL, NULL);
}

static bool
dbl_is(const char *node, const char *type)
{
    char pat[48];
    if (!node || (atomic_load(&dbl.hide_r2) && !strcmp(node, "r2")))
        return false;
    snprintf(pat, sizeof pat, "\"%s\": \"%s\"", node, type);
    return strstr(nodes_json, pat) != NULL;
}

/* Whether the emulator has node 'node', of any type (r2 not while
 * hidden). */
static bool
dbl_known(const char *node)
{
    char pat[48];
    if (!node || (atomic_load(&dbl.hide_r2) && !strcmp(node, "r2")))
        return false;
    snprintf(pat, sizeof pat, "\"%s\": \"", node);
    return strstr(nodes_json, pat) != NULL;
}

/* The 404 of mnoptical/rest.py for a request on 'node' (the query's,
 * "" when absent, as bottle's request.query gives it) that the double
 * does not serve: lookUpNode()'s abort(404, "Unknown node: NAME") for a
 * node the emulator does not have (r2 hidden included); for one it has,
 * of another type, nodeHandler()'s "No handler for node NAME", or
 * 'handler' ("turn_on": "No turn_on handler for NAME").  Until
 * 2026-12-07 these pages said "Unknown node" alone, which the real
 * server never does. */
static void
dbl_404_node(struct evhttp_request *req, const char *node,
             const char *handler)
{
    char page[160];
    const char *name = node ? node : "";
    if (!dbl_known(node))
        snprintf(page, sizeof page, "Unknown node: %.64s", name);
    else if (handler)
        snprintf(page, sizeof page, "No %s handler for %.64s", handler,
                 name);
    else
        snprintf(page, sizeof page, "No handler for node %.64s", name);
    dbl_html(req, 404, "404 Not Found", page);
}

static bool
dbl_int(const char *s)
{
    char *end;
    if (!s || !*s)
        return false;
    (void) strtol(s, &end, 10);
    return !*end;
}

/* Cuts the answer about to be sent: the request was done and its
 * answer is lost on the way (a length the body does not reach, and the
 * connection closed after it). */
static void
dbl_cut(struct evhttp_request *req)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Length", "100");
    evhttp_add_header(h, "Connection", "close");
}

/* Counts '*nth' down (1: this request) and, when it is this one, cuts
 * the answer about to be sent. */
static void
dbl_cut_if(struct evhttp_request *req, atomic_int *nth)
{
    int cut = atomic_load(nth);
    if (cut > 0)
        atomic_store(nth, cut - 1);
    if (cut == 1)
        dbl_cut(req);
}

/* Whether the answer cuts count this /connect on 'node': those of
 * every ROADM, or of dbl.cut_node alone. */
static bool
dbl_cut_here(const char *node)
{
    return !dbl.cut_node[0] || !strcmp(dbl.cut_node, node);
}

/* The answer about to be sent for a removal of a rule the double held:
 * cut when the Nth (cut_remove) or one of the next N (cut_removes). */
static void
dbl_cut_removal(struct evhttp_request *req, const char *node)
{
    if (!dbl_cut_here(node))
        return;
    int n = atomic_load(&dbl.cut_removes);
    if (n > 0) {
        atomic_store(&dbl.cut_removes, n - 1);
        dbl_cut(req);
    } else
        dbl_cut_if(req, &dbl.cut_remove);
}

/* Whether the double holds rule 'r' (node, ports and channels). */
static bool
dbl_held(const struct dbl_rule *r)
{
    for (int i = 0; i < dbl.n_rules; i++)
        if (!memcmp(&dbl.rules[i], r, sizeof *r))
            return true;
    return false;
}

/* The answer of an injected fault: 500, the emulator's page for an
 * unhandled exception, or the status dbl.fail_status asks for. */
static void
dbl_fault(struct evhttp_request *req)
{
    int status = atomic_load(&dbl.fail_status);
    char title[64];
    if (status <= 0)
        status = 500;
    snprintf(title, sizeof title, "%d %s", status,
             status == 500 ? "Internal Server Error"
             : status == 503 ? "Service Unavailable"
             : status == 404 ? "Not Found" : "Injected");
    /* A 404 as bottle pages a path it does not serve (a proxy, or
     * another server on the port): no "Unknown node" in it. */
    dbl_html(req, status, title, status == 404 ? "Not found: '/connect'"
             : "Unhandled exception: injected fault");
}

static void
dbl_connect(struct evhttp_request *req, struct evkeyvalq *q, const char *qs)
{
    const char *node = evhttp_find_header(q, "node");
    if (dbl.n_calls < MAX_CALLS)
        snprintf(dbl.calls[dbl.n_calls++], sizeof dbl.calls[0], "%s", qs);
    int late = atomic_exchange(&dbl.late_connect_ms, 0);
    if (late > 0)
        usleep((useconds_t) late * 1000);
    int from = atomic_load(&dbl.fail_from);
    if (from > 0) {
        if (from > 1)
            atomic_store(&dbl.fail_from, from - 1);
        else {
            dbl_fault(req);
            return;
        }
    }
    int n = atomic_load(&dbl.fail_connect);
    if (n > 0) {
        atomic_store(&dbl.fail_connect, n - 1);
        if (n == 1) {
            dbl_fault(req);
            return;
        }
    }
    if (dbl_is(node, "Terminal")) {
        const char *eth = evhttp_find_header(q, "ethPort"),
                   *wdm = evhttp_find_header(q, "wdmPort"),
                   *ch = evhttp_find_header(q, "channel");
        if (!dbl_int(eth) || !dbl_int(wdm) || !dbl_int(ch)) {
            dbl_html(req, 500, "500 Internal Server Error",
                     "KeyError: ethPort, wdmPort and channel are required");
            return;
        }
        if (evhttp_find_header(q, "power"))
            dbl.power_seen = true;
        if (!strcmp(node, "t1") || !strcmp(node, "t2"))
            dbl.tuned[node[1] - '1'] = atoi(ch);
        dbl_text(req, "text/html", "OK");
        return;
    }
    if (!dbl_is(node, "ROADM")) {
        dbl_404_node(req, node, NULL);
        return;
    }
    const char *p1 = evhttp_find_header(q, "port1"),
               *p2 = evhttp_find_header(q, "port2"),
               *chs = evhttp_find_header(q, "channels"),
               *action = evhttp_find_header(q, "action");
    if (!dbl_int(p1) || !dbl_int(p2) || !chs || !*chs
        || (action && strcmp(action, "install") && strcmp(action, "remove"))) {
        dbl_html(req, 500, "500 Internal Server Error",
                 "ValueError: invalid literal for int()");
        return;
    }
    struct dbl_rule r = { .p1 = atoi(p1), .p2 = atoi(p2) };
    snprintf(r.node, sizeof r.node, "%s", node);
    snprintf(r.channels, sizeof r.channels, "%s", chs);
    if (action && !strcmp(action, "remove")) {
        for (int i = 0; i < dbl.n_rules; i++)
            if (!memcmp(&dbl.rules[i], &r, sizeof r)) {
                int refuse = atomic_load(&dbl.refuse_removes);
                if (refuse > 0) {
                    atomic_store(&dbl.refuse_removes, refuse - 1);
                    dbl_html(req, 500, "500 Internal Server Error",
                             "Unhandled exception: injected fault");
                    return;
                }
                dbl.rules[i] = dbl.rules[--dbl.n_rules];
                dbl_cut_removal(req, node);
                dbl_text(req, "text/html", "OK");
                return;
            }
        dbl_html(req, 500, "500 Internal Server Error", "KeyError: rule");
        return;
    }
    /* Mininet-Optical keys a ROADM's switch table by in-port and
     * channel (mnoptical/node.py, Roadm.install_switch_rule(); before
     * that dataplane.py's ROADM.phyInstall() returned on a rule it held):
     * an install of a rule it holds is that rule again, not a second
     * one, and one removal takes it away.  Until 2026-12-07 the double
     * held a second copy, which a lightraild restart made (its start
     * re-installs every channel of the store) and a DELETE left. */
    if (!dbl_held(&r) && dbl.n_rules < MAX_RULES)
        dbl.rules[dbl.n_rules++] = r;
    if (dbl_cut_here(node))
        dbl_cut_if(req, &dbl.cut_connect);
    dbl_text(req, "text/html", "OK");
}

static void
dbl_on_request(struct evhttp_request *req, void *arg)
{
    (void) arg;
    const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(req);
    const char *path = evhttp_uri_get_path(u), *qs = evhttp_uri_get_query(u);
    struct evkeyvalq q;

    if (evhttp_parse_query_str(qs ? qs : "", &q)) {
        dbl_html(req, 500, "500 Internal Server Error", "bad query");
        return;
    }
    const char *node = evhttp_find_header(&q, "node");
    if (!strcmp(path, "/nodes"))
        dbl_text(req, "application/json", nodes_json);
    else if (!strcmp(path, "/links"))
        dbl_text(req, "application/json", links_json);
    else if (!strcmp(path, "/ports")) {
        if (!node)
            dbl_html(req, 500, "500 Internal Server Error", "node missing");
        else if (!strcmp(node, "r1"))
            dbl_text(req, "application/json",
                     "{\"1\": \"r1-wdm1\", \"11\": \"r1-wdm11\"}");
        else if (!strcmp(node, "r2"))
            dbl_text(req, "application/json", "{\"2\": \"r2-wdm2\", "
                     "\"11\": \"r2-wdm11\", \"12\": \"r2-wdm12\"}");
        else if (!strcmp(node, "r3") && atomic_load(&dbl.short_ports))
            dbl_text(req, "application/json", "{\"1\": \"r3-wdm1\"}");
        else if (!strcmp(node, "r3"))
            dbl_text(req, "application/json",
                     "{\"1\": \"r3-wdm1\", \"11\": \"r3-wdm11\"}");
        /* rest.py's /ports looks the node up alone (no handler): the
         * double lists the ROADMs' ports, none of another node's. */
        else if (dbl_known(node))
            dbl_text(req, "application/json", "{}");
        else
            dbl_404_node(req, node, NULL);
    } else if (!strcmp(path, "/rules")) {
        dbl.rules_asked++;
        if (dbl.n_rules)   /* the quirk */
            dbl_html(req, 500, "500 Internal Server Error",
                     "TypeError: Object of type Rule is not JSON "
                     "serializable");
        else
            dbl_text(req, "application/json", "{}");
    } else if (!strcmp(path, "/connect") && qs)
        dbl_connect(req, &q, qs);
    else if (!strcmp(path, "/turn_on")) {
        if (dbl.n_calls < MAX_CALLS)
            snprintf(dbl.calls[dbl.n_calls++], sizeof dbl.calls[0],
                     "turn_on %s", qs ? qs : "");
        if (dbl_is(node, "Terminal"))
            dbl_text(req, "text/html", "OK");
        else
            dbl_404_node(req, node, "turn_on");
    } else if (!strcmp(path, "/reset")) {
        if (dbl.n_calls < MAX_CALLS)
            snprintf(dbl.calls[dbl.n_calls++], sizeof dbl.calls[0],
                     "reset %s", qs ? qs : "");
        if (dbl_is(node, "Terminal")) {
            if (!strcmp(node, "t1") || !strcmp(node, "t2"))
                dbl.tuned[node[1] - '1'] = 0;
            dbl_text(req, "text/html", "OK");
        } else if (dbl_is(node, "ROADM")) {
            for (int i = 0; i < dbl.n_rules; i++)
                if (!strcmp(dbl.rules[i].node, node))
                    dbl.rules[i--] = dbl.rules[--dbl.n_rules];
            dbl_text(req, "text/html", "OK");
        } else
            dbl_404_node(req, node, NULL);
    } else if (!strcmp(path, "/monitor")) {
        const char *m = evhttp_find_header(&q, "monitor");
        /* mnoptical/rest.py looks the monitor up as a node. */
        if (!m || (strcmp(m, "t1-monitor") && strcmp(m, "t2-monitor"))) {
            char page[96];
            snprintf(page, sizeof page, "Unknown node: %.64s", m ? m : "");
            dbl_html(req, 404, "404 Not Found", page);
        }
        else if (!dbl.tuned[0] || dbl.tuned[0] != dbl.tuned[1])
            dbl_text(req, "application/json", "{\"osnr\": {}}");
        else {
            /* The quirk: an unlit channel's OSNR as a bare Infinity. */
            evbuffer_add_printf(evhttp_request_get_output_buffer(req),
                                "{\"osnr\": {\"%d\": {\"freq\": %.6e, "
                                "\"osnr\": %.17g, \"gosnr\": %.17g, \"power\": "
                                "0.001, \"ase\": 1e-06, \"nli\": 1e-07}, "
                                "\"90\": {\"freq\": 1.958e14, \"osnr\": "
                                "Infinity, \"gosnr\": Infinity, \"power\": 0,"
                                " \"ase\": 0, \"nli\": 0}}}", dbl.tuned[0],
                                191.3e12 + dbl.tuned[0] * 50e9,
                                dbl.gosnr + 0.5, dbl.gosnr);
            evhttp_send_reply(req, 200, NULL, NULL);
        }
    } else {
        /* bottle's page for a path no route serves: "Not found: " and
         * the path's repr(). */
        char page[160];
        snprintf(page, sizeof page, "Not found: '%.128s'", path);
        dbl_html(req, 404, "404 Not Found", page);
    }
    evhttp_clear_headers(&q);
}

int
mno_double_start(void)
{
    if (lr_dbl_loop_start(&dbl.loop, 0, EVHTTP_REQ_GET, dbl_on_request, NULL,
                          NULL))
        return 1;
    dbl.port = dbl.loop.port;
    return 0;
}

int
mno_double_stop(void)
{
    lr_dbl_loop_stop(&dbl.loop);
    return 0;
}

void
mno_double_reset(void)
{
    dbl.n_calls = 0;
    dbl.n_rules = 0;
    dbl.rules_asked = 0;
    dbl.tuned[0] = dbl.tuned[1] = 0;
    dbl.power_seen = false;
    atomic_store(&dbl.fail_connect, 0);
    atomic_store(&dbl.fail_from, 0);
    atomic_store(&dbl.fail_status, 0);
    atomic_store(&dbl.late_connect_ms, 0);
    atomic_store(&dbl.cut_connect, 0);
    atomic_store(&dbl.cut_remove, 0);
    atomic_store(&dbl.cut_removes, 0);
    atomic_store(&dbl.refuse_removes, 0);
    dbl.cut_node[0] = '\0';
    atomic_store(&dbl.hide_r2, false);
    atomic_store(&dbl.short_ports, false);
}

