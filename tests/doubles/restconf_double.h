/*
 * restconf_double: a TEST DOUBLE of one ROADM's RESTCONF server (RFC
 * 8040), not a RESTCONF server: HTTPS on 127.0.0.1 (tests/doubles/
 * lr_dbl_loop.h), holding lightrail-roadm media channels and answering
 * as the RFC says: GET .../media-channels (200 with the list), POST of
 * a channel to .../media-channels (201, 409 when its index exists), PUT
 * and DELETE .../media-channels/channel=INDEX (201/204, 404 for a missing
 * resource, 409 for a duplicate name, RFC 8040 error bodies, the
 * module's must on the frequencies).  No RESTCONF server is packaged for
 * Debian 12.
 *
 * Faults, set by a test program directly or, for a shell test, by GETs
 * outside the RESTCONF tree:
 *   /test-double/fail?change=N   the Nth PUT/DELETE from now answers 500
 *   /test-double/die?change=N    the Nth PUT/DELETE from now ends the
 *                                process before it answers (a device
 *                                that dies mid-provisioning; processes
 *                                only)
 * plus, for the in-process test, 'fail_deletes' (every DELETE answers
 * 500: an undo the device refuses), 'fail_status' (those failures answer
 * a gateway's 502, 503 or 504 instead), 'delay_ms' (every answer late) and
 * 'raw_get' (the next GET of media-channels answers 200 with that text,
 * a device that answers nonsense).
 *
 * Used by tests/unit/test_sb_restconf.c (in process) and, as the program
 * tests/doubles/restconf-double, by tests/cli/sb_restconf.sh.
 */
#ifndef RESTCONF_DOUBLE_H
#define RESTCONF_DOUBLE_H 1

#include <stdatomic.h>

#include <json-c/json.h>
#include <openssl/ssl.h>

#include "tests/doubles/lr_dbl_loop.h"

#define RCD_PREFIX "/restconf/data/lightrail-roadm:roadm/media-channels"
#define RCD_MAX_CH 64

struct rc_double {
    struct lr_dbl_loop loop;
    SSL_CTX *ssl;
    int port;
    /* state, touched only on the server thread while it runs (a test
     * reads it between requests) */
    json_object *ch[RCD_MAX_CH];  /* by slot; NULL = free */
    /* faults */
    atomic_int fail_change;       /* the Nth PUT/DELETE from 'changes' = 0 */
    atomic_int die_change;        /* likewise, ends the process */
    atomic_int fail_deletes;      /* every DELETE answers 500 */
    atomic_int fail_status;       /* what those answer: 0 is 500, or a
                                   * gateway's 502, 503, 504 */
    atomic_int delay_ms;
    _Atomic(const char *) raw_get;  /* the caller's; NULL after use */
    atomic_int changes;           /* PUT/POST/DELETE taken */
    atomic_int received, answered;   /* every request, in and out */
};

extern struct rc_double rcd;

/* Serves on 127.0.0.1:'port' (0: any free port; rcd.port says which)
 * with the certificate chain 'cert' and key 'key' (PEM files).  0, or 1
 * with a line on stderr. */
int rc_double_start(const char *cert, const char *key, int port);
/* Stops it and frees its state. */
void rc_double_stop(void);
/* Forgets every channel (between requests only). */
void rc_double_clear(void);
/* The slot of the channel with 'index', or -1. */
int rc_double_find(long index);
/* How many channels it holds. */
int rc_double_count(void);
/* The string member 'k' of 'o', or NULL. */
const char *rc_double_str(json_object *o, const char *k);

#endif
