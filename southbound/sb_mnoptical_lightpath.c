/*
 * sb_mnoptical_lightpath: a lightpath's terminals on Mininet-Optical and
 * the receiver's gOSNR against the modulation's threshold (see
 * sb_mnoptical.h).
 *
 * Model (../shared/reference/southbound.md, "Mininet-Optical REST"): for
 * t1 -> r1 ... rN -> t2 with the ROADMs already cross-connected,
 *     /reset?node=t1, /reset?node=t2                     (their old tuning)
 *     /connect?node=t1&ethPort=E1&wdmPort=W1&channel=K   (no power: the
 *     /connect?node=t2&ethPort=E2&wdmPort=W2&channel=K    emulator reads
 *     /turn_on?node=t1, /turn_on?node=t2                  it 1000x high)
 *     /monitor?monitor=t2-monitor -> {"osnr": {"K": {"gosnr": dB, ...}}}
 * The emulator does not say whether the signal is received: the
 * receiver's generalised OSNR (ASE and nonlinear noise) must reach the
 * modulation format's required OSNR, the caller's threshold_db (the
 * osnr_db of the format in its modulation table, planner/lr_modulation.h).
 * W1/W2 are the terminals' ports on their links to r1
 * and rN (from /links); K is the lowest 50 GHz channel of the media
 * channel (a transceiver uses one channel).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "planner/lr_modtext.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_mnoptical.h"

/* ENOMEM for the request 'path' ("/reset") whose node name could not
 * be escaped, 'about' saying which ("node t1"): its line says it was not
 * sent, as a /connect's does in sb_mnoptical.c.  What the check sent
 * before it stays on the emulation, as after any failed check; the next
 * check resets both terminals first. */
static int
sb_mno_oom(const struct sb_mno *c, const char *path, const char *about,
           char *err, size_t errlen)
{
    sb_errf(err, errlen, 0, "%s: out of memory for GET %s (%s): it was not "
            "sent; retry", c->device, path, about);
    return ENOMEM;
}

static int
sb_mno_is_terminal(struct sb_mno *c, const char *node, char *err,
                   size_t errlen)
{
    const char *t = sb_mno_node_type(c, node);
    if (t && !strcmp(t, "Terminal"))
        return 0;
    sb_errf(err, errlen, 0, "%s: the emulator's node '%s' is %s%s, not a "
            "Terminal: check the lightpath's terminals", c->device, node,
            t ? "a " : "unknown", t ? t : "");
    return t ? EINVAL : ENOENT;
}

static int
sb_mno_terminal(struct sb_mno *c, const char *node, const char *roadm,
                int eth, int channel, char *err, size_t errlen)
{
    char q[512];
    int wdm, ret;

    if (eth <= 0) {
        sb_errf(err, errlen, 0, "%s: terminal %s needs its ethPort (the "
                "emulator requires it): give the client-side port",
                c->device, node);
        return EINVAL;
    }
    if ((ret = sb_mno_port_towards(c, node, roadm, NULL, &wdm, err,
                                   errlen)))
        return ret;
    char *esc = curl_easy_escape(c->h, node, 0);
    if (!esc) {
        char about[128];
        snprintf(about, sizeof about, "terminal %s, channel %d", node,
                 channel);
        return sb_mno_oom(c, "/connect", about, err, errlen);
    }
    snprintf(q, sizeof q, "node=%s&ethPort=%d&wdmPort=%d&channel=%d", esc,
             eth, wdm, channel);
    curl_free(esc);
    return sb_mno_get(c, "/connect", q, NULL, err, errlen);
}

/* GET PATH?node=NODE (/turn_on, /reset). */
static int
sb_mno_node_call(struct sb_mno *c, const char *path, const char *node,
                 char *err, size_t errlen)
{
    char q[256], *esc = curl_easy_escape(c->h, node, 0);
    if (!esc) {
        char about[96];
        snprintf(about, sizeof about, "node %s", node);
        return sb_mno_oom(c, path, about, err, errlen);
    }
    snprintf(q, sizeof q, "node=%s", esc);
    curl_free(esc);
    return sb_mno_get(c, path, q, NULL, err, errlen);
}

/* gOSNR and OSNR of 'channel' at 'monitor'. */
static int
sb_mno_read_monitor(struct sb_mno *c, const char *monitor, int channel,
                    struct sb_mno_gosnr *g, char *err, size_t errlen)
{
    char q[256], key[16], *body = NULL, *esc = curl_easy_escape(c->h,
                                                               monitor, 0);
    json_object *top = NULL, *osnr, *ch, *v;
    int ret;

    if (!esc) {
        char about[128];
        snprintf(about, sizeof about, "monitor %s", monitor);
        return sb_mno_oom(c, "/monitor", about, err, errlen);
    }
    snprintf(q, sizeof q, "monitor=%s", esc);
    curl_free(esc);
    if ((ret = sb_mno_get(c, "/monitor", q, &body, err, errlen)))
        return ret;
    top = sb_mno_parse(body);
    free(body);
    snprintf(key, sizeof key, "%d", channel);
    if (!json_object_object_get_ex(top, "osnr", &osnr)
        || !json_object_object_get_ex(osnr, key, &ch)
        || !json_object_object_get_ex(ch, "gosnr", &v)
        || !(json_object_is_type(v, json_type_double)
             || json_object_is_type(v, json_type_int))) {
        sb_errf(err, errlen, 0, "%s: monitor %s reports no gOSNR for channel "
                "%d: the signal does not reach the receiver; check the "
                "ROADMs' rules and the terminals", c->device, monitor,
                channel);
        json_object_put(top);
        return ENOLINK;
    }
    g->gosnr_db = json_object_get_double(v);
    g->osnr_db = json_object_object_get_ex(ch, "osnr", &v)
                 ? json_object_get_double(v) : NAN;
    json_object_put(top);
    return 0;
}

int
sb_mno_lightpath_check(const struct sb_mno_lightpath *lp,
                       struct sb_mno_gosnr *out, char *err, size_t errlen)
{
    struct sb_mno c;
    char monitor[96], why[384];
    int first, count, ret;

    memset(out, 0, sizeof *out);
    if (!lp->tx || !lp->rx || !lp->first_roadm || !lp->last_roadm
        || !lp->base || !lp->modulation || !isfinite(lp->threshold_db)) {
        sb_errf(err, errlen, 0, "mnoptical: a lightpath needs the emulator, "
                "both terminals, the first and last ROADM, a modulation "
                "and its threshold");
        return EINVAL;
    }
    if ((ret = sb_mno_map(lp->n, lp->m, &first, &count, why, sizeof why))) {
        sb_errf(err, errlen, 0, "%s -> %s: %s", lp->tx, lp->rx, why);
        return ret;
    }
    snprintf(monitor, sizeof monitor, "%s%s",
             lp->monitor ? lp->monitor : lp->rx,
             lp->monitor ? "" : "-monitor");
    if ((ret = sb_mno_open(&c, lp->rx, lp->base, lp->timeout_ms, err,
                           errlen)))
        return ret;
    if ((ret = sb_mno_discover(&c, err, errlen))
        || (ret = sb_mno_is_terminal(&c, lp->tx, err, errlen))
        || (ret = sb_mno_is_terminal(&c, lp->rx, err, errlen))
        || (ret = sb_mno_node_call(&c, "/reset", lp->tx, err, errlen))
        || (ret = sb_mno_node_call(&c, "/reset", lp->rx, err, errlen))
        || (ret = sb_mno_terminal(&c, lp->tx, lp->first_roadm,
                                  lp->tx_eth_port, first, err, errlen))
        || (ret = sb_mno_terminal(&c, lp->rx, lp->last_roadm,
                                  lp->rx_eth_port, first, err, errlen))
        || (ret = sb_mno_node_call(&c, "/turn_on", lp->tx, err, errlen))
        || (ret = sb_mno_node_call(&c, "/turn_on", lp->rx, err, errlen))
        || (ret = sb_mno_read_monitor(&c, monitor, first, out, err,
                                      errlen)))
        goto cleanup;
    out->channel = first;
    if (isnan(out->gosnr_db)) {
        sb_errf(err, errlen, 0, "%s: monitor %s reports gOSNR NaN on channel "
                "%d: the emulation's model failed; check its log",
                lp->rx, monitor, first);
        ret = EPROTO;
        goto cleanup;
    }
    out->margin_db = out->gosnr_db - lp->threshold_db;
    if (!(out->margin_db >= 0)) {
        char g[32], t[32], m[32];
        sb_mno_gosnr_text(out->gosnr_db, lp->threshold_db, g, t, m,
                          sizeof g);
        sb_errf(err, errlen, 0, "%s -> %s: gOSNR %s dB on channel %d is "
                "%s dB below %s's threshold of %s dB: the lightpath "
                "would not be received; use a more robust modulation or a "
                "shorter path", lp->tx, lp->rx, g, first,
                m[0] == '-' ? m + 1 : m, lp->modulation, t);
        ret = ERANGE;
    }
cleanup:
    sb_mno_close(&c);
    return ret;
}

void
sb_mno_gosnr_text(double gosnr_db, double threshold_db, char *gosnr,
                  char *threshold, char *margin, size_t len)
{
    lr_modtext_threshold(threshold_db, threshold, len);
    if (!lr_modtext_gosnr_cut(gosnr_db, gosnr, len)) {
        /* Not finite, or its hundredths do not fit: "%g"'s text. */
        snprintf(gosnr, len, "%g", gosnr_db);
        snprintf(margin, len, "%+g", gosnr_db - threshold_db);
        return;
    }
    /* Both in hundredths: "%.2f" rounds the difference's binary error
     * away, and a margin of 0 reads "+0.0", never "-0.0". */
    double diff = strtod(gosnr, NULL) - threshold_db;
    snprintf(margin, len, "%+.2f", fabs(diff) < 0.005 ? 0.0 : diff);
    lr_modtext_hundredths_canonical(margin);
}
