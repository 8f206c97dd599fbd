/*
 * mno_double: a TEST DOUBLE of Mininet-Optical's REST API, not the
 * emulator: a small HTTP server (plain HTTP on 127.0.0.1, port 0, on a
 * thread of its own) that follows the documented API
 * (../shared/reference/southbound.md, "Mininet-Optical REST"): /nodes,
 * /links, /ports, /reset, /connect (ROADM rules and terminals), /turn_on,
 * /monitor, /rules, with its errors (HTML pages: 404 unknown node, 500
 * bad or missing parameter), its rules (an install of a rule the ROADM
 * holds is that rule, not a second: one removal takes it away) and
 * quirks (/rules 500 once a rule exists, a bare Infinity in the
 * monitor's JSON).  Faults: the Nth /connect from
 * now fails with 500 (or another status), r2 disappears (404), /ports of r3 lacks a port
 * /links gives it, the next /connect answers late, or the Nth install
 * (or removal, or the next N removals), on every ROADM or on one, from
 * now is done and its answer cut short; the next N removals of a rule
 * it holds refused with 500, the rule kept.  Used by
 * tests/unit/test_sb_mnoptical.c and, as a process, by
 * tests/cli/mnoptical.sh (tests/cli/mno_double_main.c).
 *
 * Emulation: t1 - r1 - r2 - r3 - t2 (and t3 on r2).  Ports: r1 1 (t1),
 * 11 (r2); r2 11 (r1), 12 (r3), 2 (t3); r3 11 (r2), 1 (t2); terminals
 * wdm 2 towards their ROADM.  The monitor t2-monitor reports 'gosnr' for
 * the channel both t1 and t2 are tuned to, and so does t1-monitor (a
 * lightpath t2 -> t1).
 */
#ifndef MNO_DOUBLE_H
#define MNO_DOUBLE_H 1

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "tests/doubles/lr_dbl_loop.h"

#define MAX_CALLS 64
#define MAX_RULES 64

struct dbl_rule {
    char node[16];
    int p1, p2;
    char channels[128];
};

struct mno_double {
    struct lr_dbl_loop loop;      /* tests/doubles/lr_dbl_loop.h */
    int port;
    /* state: touched on the server thread; the test reads it between
     * requests (each request is answered before the client returns) */
    char calls[MAX_CALLS][256];   /* every /connect query, and "reset Q",
                                   * "turn_on Q" */
    int n_calls;
    struct dbl_rule rules[MAX_RULES];
    int n_rules;
    int rules_asked;
    int tuned[2];                 /* channel of t1, t2 (0: none) */
    bool power_seen;
    /* faults and knobs, set by the test between requests */
    atomic_int fail_connect;      /* the Nth /connect from now: 500 */
    atomic_int fail_from;         /* the Nth from now and all after: 500 */
    atomic_int fail_status;       /* the status of the two faults above
                                   * (0: 500, the emulator's; e.g. 503:
                                   * a proxy's, no answer of the
                                   * emulator's about the rule) */
    atomic_bool hide_r2;          /* r2 answers 404 */
    atomic_bool short_ports;      /* /ports?node=r3 forgets port 11 */
    atomic_int late_connect_ms;   /* the next /connect answers this late
                                   * (the server thread sleeps) */
    atomic_int cut_connect;       /* the Nth /connect installing a ROADM
                                   * rule from now (1: the next) is done,
                                   * and its answer cut short (the
                                   * connection closed mid-body) */
    atomic_int cut_remove;        /* likewise the Nth /connect removing a
                                   * ROADM rule the double holds:
                                   * removed, its answer cut short */
    atomic_int cut_removes;       /* the next N such removals: each
                                   * removed, its answer cut short */
    atomic_int refuse_removes;    /* the next N removals of a ROADM rule
                                   * the double holds: refused with the
                                   * 500 it gives a rule it does not
                                   * hold, the rule kept (an emulator
                                   * failing for another reason) */
    char cut_node[16];            /* "": the cuts above count /connect
                                   * on every ROADM; else on this one
                                   * only (lr_ctl programs its ROADMs at
                                   * once, so only one ROADM's order of
                                   * requests is known) */
    double gosnr;
};

extern struct mno_double dbl;

/* Starts the server (dbl.port is its port); 0 or 1. */
int mno_double_start(void);
/* Stops it and frees everything; 0. */
int mno_double_stop(void);
/* Forgets rules, calls and tuning; clears the faults. */
void mno_double_reset(void);

#endif
