/*
 * sb_mnoptical: Mininet-Optical's REST API (the optical community's SDN
 * emulator; ../shared/reference/southbound.md, "Mininet-Optical REST"):
 * the pieces the ROADM driver (sb_mnoptical.c, class "mnoptical") and
 * the lightpath check of terminals and gOSNR (sb_mnoptical_lightpath.c)
 * share: the REST client with discovery (sb_mnoptical_api.c) and the
 * flexgrid -> 50 GHz channel mapping.
 *
 * Conventions as sb_driver.h: 0 or a positive errno with one line in err.
 */
#ifndef SB_MNOPTICAL_H
#define SB_MNOPTICAL_H 1

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

/* The emulator's fixed grid: channel k is centred on 191.3 THz +
 * k x 50 GHz, k = 1 .. SB_MNO_MAX_CHANNEL (191.35 .. 196.1 THz). */
#define SB_MNO_MAX_CHANNEL 96

/* Maps the flexgrid media channel (n, m) -- centre 193.1 THz + n x 6.25
 * GHz, width m x 12.5 GHz -- onto channels *first .. *first + *count - 1.
 * The rule: the media channel must be exactly a run of whole 50 GHz
 * channels, i.e. m a positive multiple of 4 and its lower edge on a
 * channel's lower edge (191.275 THz + j x 50 GHz), inside 1 ..
 * SB_MNO_MAX_CHANNEL.  Anything else is EINVAL with the reason (never
 * rounded: a wider rule would cross-connect a neighbour's spectrum, a
 * narrower one cut the signal). */
int sb_mno_map(int n, int m, int *first, int *count, char *err,
               size_t errlen);

struct sb_mno_node {
    char name[64];
    char type[16];            /* "ROADM", "Terminal", "Monitor", ... */
};

/* One emulator link: node a's port pa to node b's port pb. */
struct sb_mno_link {
    char a[64], b[64];
    int pa, pb;
};

/* A client of one emulator.  Owns its curl handle and the tables; one
 * thread at a time. */
struct sb_mno {
    char device[64];          /* for error lines */
    char base[256];           /* http://HOST:PORT, no trailing '/' */
    int timeout_ms;
    CURL *h;
    struct sb_mno_node *nodes;
    int n_nodes;
    struct sb_mno_link *links;
    int n_links;
    long status;              /* the HTTP status of the last sb_mno_get()
                               * answer, 0 when it had none (a transport
                               * error): a 500 to a removal is how the
                               * emulator refuses a rule it does not
                               * hold, which the caller tells from any
                               * other EPROTO (sb_mnoptical.c) */
};

/* Opens a client (no request yet); 'base' is http:// or https://. */
int sb_mno_open(struct sb_mno *c, const char *device, const char *base,
                int timeout_ms, char *err, size_t errlen);
void sb_mno_close(struct sb_mno *c);

/* GET BASE/PATH?QUERY (QUERY already escaped, may be ""); 0 with the
 * 200 answer's body in *body (malloc'ed, the caller frees it; may be
 * NULL when not wanted), or: a transport error (sb_http.h), ENOENT for
 * a 404 whose page says "Unknown node" (the emulator's answer for a
 * node it does not have), EPROTO for any other status (500: a bad or
 * missing parameter, or a rule to remove that the emulator does not
 * hold; a 404 naming no unknown node: a path it does not serve, or
 * not the emulator), the HTML page turned into one line.  The
 * answer's status is left in c->status either way (0: none). */
int sb_mno_get(struct sb_mno *c, const char *path, const char *query,
               char **body, char *err, size_t errlen);

/* Reads /nodes and /links into the client's tables. */
int sb_mno_discover(struct sb_mno *c, char *err, size_t errlen);

/* The type of 'node' ("ROADM", ...) or NULL when the emulator has none. */
const char *sb_mno_node_type(const struct sb_mno *c, const char *node);

/* Port of 'node' on the topology link 'link': the link named "A-B" or
 * "B-A" where A is 'node' (or 'alias', its topology name) and B a
 * neighbour the emulator links it with.  0 and *port, or ENOENT with the
 * reason. */
int sb_mno_link_port(const struct sb_mno *c, const char *node,
                     const char *alias, const char *link, int *port,
                     char *err, size_t errlen);

/* The port of 'node' towards its one neighbour of type 'type' ("Terminal")
 * or towards the node 'peer' when peer is not NULL; ENOENT when none,
 * EINVAL when several terminals make it ambiguous. */
int sb_mno_port_towards(const struct sb_mno *c, const char *node,
                        const char *peer, const char *type, int *port,
                        char *err, size_t errlen);

/* Parses the emulator's JSON leniently (bare Infinity, -Infinity, NaN
 * accepted as numbers); NULL when it is not JSON.  The caller puts it. */
struct json_object *sb_mno_parse(const char *text);

/* ---- a lightpath's terminals and its gOSNR (sb_mnoptical_lightpath.c) */

struct sb_mno_lightpath {
    const char *base;         /* the emulator */
    int timeout_ms;           /* 0: 5000 */
    const char *tx, *rx;      /* the terminals, e.g. "t1", "t2" */
    const char *first_roadm;  /* the ROADM the transmitter is linked to */
    const char *last_roadm;   /* the ROADM the receiver is linked to */
    int tx_eth_port, rx_eth_port;   /* the emulator requires ethPort */
    const char *monitor;      /* the receiver's monitor; NULL: "RX-monitor" */
    int n, m;                 /* the lightpath's media channel (flexgrid) */
    const char *modulation;   /* for the messages, e.g. "16QAM" */
    double threshold_db;      /* the gOSNR the modulation needs */
};

struct sb_mno_gosnr {
    int channel;              /* the 50 GHz channel the terminals use */
    double gosnr_db, osnr_db; /* at the receiver (may be +INFINITY) */
    double margin_db;         /* gosnr - threshold */
};

/* Resets both terminals (their transceivers only; the ROADMs are not
 * touched), tunes them to the lightpath's (lowest) channel, turns them
 * on, reads the receiver's monitor and compares gOSNR with the threshold:
 * 0 (received, *out filled), ERANGE (below the threshold; *out filled,
 * the line names the margin), ENOLINK (the monitor sees no signal on the
 * channel), or the mapping's, discovery's or the emulator's error.  The
 * ROADMs must be programmed already. */
int sb_mno_lightpath_check(const struct sb_mno_lightpath *lp,
                           struct sb_mno_gosnr *out, char *err,
                           size_t errlen);

/* The texts the check says, and lightrail mnoptical check prints, for a
 * measured 'gosnr_db' against 'threshold_db', each into its buffer of
 * 'len' bytes (32 suffice): the measurement cut to hundredths, never
 * rounded up, as the controller keeps and GET shows it (the rule of
 * planner/lr_modtext.h, header only, which lr_mod_gosnr_text() keeps
 * too: "16.99" for 16.996, "17.0" for 17); the threshold with the
 * fewest decimals, one at least, that give it back ("17.04"); the
 * margin, the first less the second, signed ("+1.0", "-0.04").  A
 * threshold has hundredths at most (lr_modtable_parse_csv()), so the
 * margin is exact and negative exactly when the check refuses; at one
 * decimal 16.996 against 17.0 read "17.0 dB ... 0.0 dB below 17.0 dB".
 * A measurement not finite is written as "%g" writes it. */
void sb_mno_gosnr_text(double gosnr_db, double threshold_db, char *gosnr,
                       char *threshold, char *margin, size_t len);

#endif
