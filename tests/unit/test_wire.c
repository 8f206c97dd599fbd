/*
 * The agent protocol's codec: every message round-trips; every truncation,
 * trailing byte, bad magic, version, type or number is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bytes.h"
#include "planner/lr_cdynp_wire.h"
#include "tests/lr_test.h"

static struct lr_layer layers[3] = {
    { 1e12, 1e6, 2e6 }, { 2e12, 3e6, 4e6 }, { 5e11, 7e5, 1e6 },
};
static struct lr_cdynp_summary sum_a, sum_b, sum_c;
static char keep_tags[2][LR_WIRE_NAME_MAX] = { "train-7", "j 8" };
static char got_tags[4][LR_WIRE_NAME_MAX];

/* One message of every type, fields set to recognisable values. */
static int
samples(struct lr_wire_msg *out)
{
    int n = 0;
    memset(&sum_a, 0, sizeof sum_a);
    sum_a.version = LR_CDYNP_VERSION;
    sum_a.from = 1;
    sum_a.n = 2;
    sum_a.e[0].layer = 4;
    sum_a.e[0].cost = (struct lr_cdynp_cost) { 0.5, 2.0, 0.125 };
    sum_a.e[1].layer = 6;
    sum_a.e[1].cost = (struct lr_cdynp_cost) { 0.75, 2.5, 0.25 };
    /* The same with counts (the _BOUND objectives): two at layer 4. */
    memset(&sum_c, 0, sizeof sum_c);
    sum_c.version = LR_CDYNP_VERSION_COUNTS;
    sum_c.from = 1;
    sum_c.n = 3;
    sum_c.e[0] = (struct lr_cdynp_entry) {
        .layer = 4, .stages = 1, .cost = { 0.5, 2.0, 0.125 } };
    sum_c.e[1] = (struct lr_cdynp_entry) {
        .layer = 4, .stages = 2, .cost = { 0.25, 2.25, 0.125 } };
    sum_c.e[2] = (struct lr_cdynp_entry) {
        .layer = 6, .stages = 1, .cost = { 0.75, 2.5, 0.25 } };
    struct lr_wire_msg base = { .id = 7, .job = 3 };
    out[n] = base, out[n++].type = LR_WIRE_HELLO;
    out[n] = base, out[n].type = LR_WIRE_HELLO_OK, out[n].compute = 8e14;
    strcpy(out[n++].name, "dc2");
    out[n] = base, out[n].type = LR_WIRE_JOB, out[n].batch = 32,
    out[n].micro = 2, out[n].elem_bytes = 2, out[n].n_layers = 3,
    out[n++].layers = layers;
    out[n] = base, out[n++].type = LR_WIRE_OK;
    out[n] = base, out[n].type = LR_WIRE_STEP, out[n].objective = LR_CDYNP_TIME,
    out[n].assumed = 5, out[n].position = 1, out[n].lo = 2, out[n].hi = 9,
    out[n].link = (struct lr_tm_link) { 1.25e9, 2e-3 }, out[n].has_summary = 1,
    out[n++].summary = &sum_a;
    out[n] = base, out[n].type = LR_WIRE_STEP, out[n].objective = LR_CDYNP_LEX,
    out[n].assumed = 1, out[n].lo = 0, out[n++].hi = 3;   /* the head */
    out[n] = base, out[n].type = LR_WIRE_STEP_OK, out[n].has_summary = 1,
    out[n++].summary = &sum_a;
    out[n] = base, out[n].type = LR_WIRE_BACKTRACK, out[n].assumed = 2,
    out[n++].last = 11;
    out[n] = base, out[n].type = LR_WIRE_BACKTRACK_OK, out[n++].prev_last = -1;
    out[n] = base, out[n].type = LR_WIRE_FINISH, out[n].assumed = 2,
    out[n].first = 3, out[n++].last = 11;
    out[n] = base, out[n].type = LR_WIRE_FINISH_OK, out[n++].n_stages = 4;
    out[n] = base, out[n].type = LR_WIRE_ERROR, out[n].code = ETIMEDOUT;
    strcpy(out[n++].text, "too slow");
    out[n] = base, out[n].type = LR_WIRE_COMMIT, out[n].assumed = 3,
    out[n].objective = LR_CDYNP_TIME, out[n].first = 2, out[n].last = 9;
    strcpy(out[n++].name, "train-7");
    out[n] = base, out[n].type = LR_WIRE_RELEASE;
    strcpy(out[n++].name, "train-7");
    out[n] = base, out[n].type = LR_WIRE_KEEP, out[n].n_tags = 2,
    out[n++].tags = keep_tags;
    out[n] = base, out[n].type = LR_WIRE_KEEP, out[n++].n_tags = 0;
    return n;
}

static void
test_round_trip(void)
{
    struct lr_wire_msg msgs[16];
    int n = samples(msgs);
    uint8_t buf[4096];
    struct lr_layer got_layers[8];
    for (int i = 0; i < n; i++) {
        size_t len = lr_wire_encode(&msgs[i], buf, sizeof buf);
        CU_ASSERT_FATAL(len >= 16);
        int err;
        CU_ASSERT_EQUAL(lr_wire_frame_size(buf, len, &err), len);
        CU_ASSERT_EQUAL(err, 0);
        struct lr_wire_msg m = { .layers = got_layers, .layers_cap = 8,
                                 .summary = &sum_b, .tags = got_tags,
                                 .tags_cap = 4 };
        CU_ASSERT_EQUAL_FATAL(lr_wire_decode(buf, len, &m), 0);
        CU_ASSERT_EQUAL(m.type, msgs[i].type);
        CU_ASSERT_EQUAL(m.id, 7);
        /* Encoding the decoded message gives the same bytes. */
        uint8_t again[4096];
        CU_ASSERT_EQUAL(lr_wire_encode(&m, again, sizeof again), len);
        CU_ASSERT_EQUAL(memcmp(again, buf, len), 0);
        switch (m.type) {
        case LR_WIRE_HELLO_OK:
            CU_ASSERT_DOUBLE_EQUAL(m.compute, 8e14, 0);
            CU_ASSERT_STRING_EQUAL(m.name, "dc2");
            break;
        case LR_WIRE_JOB:
            CU_ASSERT_EQUAL(m.job, 3);
            CU_ASSERT_EQUAL(m.n_layers, 3);
            CU_ASSERT_DOUBLE_EQUAL(m.layers[1].params, 3e6, 0);
            break;
        case LR_WIRE_STEP:
            CU_ASSERT_EQUAL(m.has_summary, msgs[i].has_summary);
            if (m.has_summary) {
                CU_ASSERT_EQUAL(m.hi, 9);
                CU_ASSERT_EQUAL(m.summary->e[1].layer, 6);
                CU_ASSERT_DOUBLE_EQUAL(m.summary->e[1].cost.sync, 0.25, 0);
                CU_ASSERT_DOUBLE_EQUAL(m.link.bw, 1.25e9, 0);
            }
            break;
        case LR_WIRE_BACKTRACK_OK:
            CU_ASSERT_EQUAL(m.prev_last, -1);
            break;
        case LR_WIRE_FINISH_OK:
            CU_ASSERT_EQUAL(m.n_stages, 4);
            break;
        case LR_WIRE_ERROR:
            CU_ASSERT_EQUAL(m.code, ETIMEDOUT);
            CU_ASSERT_STRING_EQUAL(m.text, "too slow");
            break;
        case LR_WIRE_COMMIT:
            CU_ASSERT_EQUAL(m.job, 3);
            CU_ASSERT_EQUAL(m.objective, LR_CDYNP_TIME);
            CU_ASSERT_EQUAL(m.assumed, 3);
            CU_ASSERT_EQUAL(m.first, 2);
            CU_ASSERT_EQUAL(m.last, 9);
            CU_ASSERT_STRING_EQUAL(m.name, "train-7");
            break;
        case LR_WIRE_RELEASE:
            CU_ASSERT_STRING_EQUAL(m.name, "train-7");
            break;
        case LR_WIRE_KEEP:
            CU_ASSERT_EQUAL(m.n_tags, msgs[i].n_tags);
            if (m.n_tags == 2) {
                CU_ASSERT_STRING_EQUAL(m.tags[0], "train-7");
                CU_ASSERT_STRING_EQUAL(m.tags[1], "j 8");
            }
            break;
        default:
            break;
        }
    }
}

static void
test_refusals(void)
{
    struct lr_wire_msg msgs[16];
    int n = samples(msgs);
    uint8_t buf[4096], bad[4096];
    struct lr_layer got_layers[8];
    for (int i = 0; i < n; i++) {
        size_t len = lr_wire_encode(&msgs[i], buf, sizeof buf);
        struct lr_wire_msg m = { .layers = got_layers, .layers_cap = 8,
                                 .summary = &sum_b, .tags = got_tags,
                                 .tags_cap = 4 };
        /* Every truncation, with the length field patched to match. */
        for (size_t cut = 16; cut < len; cut++) {
            memcpy(bad, buf, cut);
            bad[0] = (uint8_t) ((cut - 4) >> 24);
            bad[1] = (uint8_t) ((cut - 4) >> 16);
            bad[2] = (uint8_t) ((cut - 4) >> 8);
            bad[3] = (uint8_t) (cut - 4);
            CU_ASSERT_NOT_EQUAL(lr_wire_decode(bad, cut, &m), 0);
        }
        /* A trailing byte. */
        memcpy(bad, buf, len);
        bad[len] = 0;
        bad[3]++;
        CU_ASSERT_EQUAL(lr_wire_decode(bad, len + 1, &m), EINVAL);
        /* Magic and version. */
        memcpy(bad, buf, len);
        bad[4] = 'X';
        CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EPROTO);
        memcpy(bad, buf, len);
        bad[9] = 2;
        CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EPROTO);
    }
    /* An unknown type. */
    size_t len = lr_wire_encode(&msgs[0], buf, sizeof buf);
    buf[11] = 99;
    struct lr_wire_msg m = { .summary = &sum_b };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), EPROTO);
    /* More layers than the caller has room for. */
    len = lr_wire_encode(&msgs[2], buf, sizeof buf);
    m = (struct lr_wire_msg) { .layers = got_layers, .layers_cap = 2 };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), E2BIG);
    /* A NaN among the layers. */
    memset(buf + len - 8, 0xff, 8);
    m = (struct lr_wire_msg) { .layers = got_layers, .layers_cap = 8 };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), EINVAL);
    /* An oversized announced frame. */
    int err;
    uint8_t huge[4] = { 0x7f, 0xff, 0xff, 0xff };
    CU_ASSERT_EQUAL(lr_wire_frame_size(huge, 4, &err), 0);
    CU_ASSERT_EQUAL(err, EMSGSIZE);
    CU_ASSERT_EQUAL(lr_wire_frame_size(huge, 3, &err), 0);
    CU_ASSERT_EQUAL(err, 0);
    /* A buffer too small to encode into. */
    CU_ASSERT_EQUAL(lr_wire_encode(&msgs[4], buf, 20), 0);
    /* Control characters in a text (a tag with a newline forged a line
     * of the agent's log): refused, whatever the message. */
    for (int i = 0; i < n; i++) {
        if (msgs[i].type != LR_WIRE_ERROR && msgs[i].type != LR_WIRE_RELEASE)
            continue;
        struct lr_wire_msg x = msgs[i];
        char *t = x.type == LR_WIRE_ERROR ? x.text : x.name;
        for (int ch = 1; ch < 0x20; ch += 9) {
            snprintf(t, 16, "a%cb", ch);
            len = lr_wire_encode(&x, buf, sizeof buf);
            CU_ASSERT_FATAL(len > 0);
            m = (struct lr_wire_msg) { .summary = &sum_b };
            CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), EINVAL);
        }
        snprintf(t, 16, "a%cb", 0x7f);
        len = lr_wire_encode(&x, buf, sizeof buf);
        CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), EINVAL);
        snprintf(t, 16, "a b~");
        len = lr_wire_encode(&x, buf, sizeof buf);
        CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), 0);
    }
}

/* Every objective goes through STEP, BACKTRACK, FINISH and COMMIT with
 * its own value (the _ONE two since 2026-12-04, the _BOUND two, with
 * their counts, since 2026-12-05); a value past them is refused. */
static void
test_objectives(void)
{
    struct lr_wire_msg msgs[16];
    int n = samples(msgs);
    uint8_t buf[4096];
    struct lr_layer got_layers[8];
    const enum lr_cdynp_objective objs[] = {
        LR_CDYNP_LEX, LR_CDYNP_TIME, LR_CDYNP_LEX_ONE, LR_CDYNP_TIME_ONE,
        LR_CDYNP_LEX_BOUND, LR_CDYNP_TIME_BOUND,
    };
    int seen = 0;
    for (int i = 0; i < n; i++) {
        enum lr_wire_type t = msgs[i].type;
        if (t != LR_WIRE_STEP && t != LR_WIRE_BACKTRACK
            && t != LR_WIRE_FINISH && t != LR_WIRE_COMMIT)
            continue;
        for (size_t k = 0; k <= sizeof objs / sizeof *objs; k++) {
            struct lr_wire_msg x = msgs[i];
            x.objective = k < sizeof objs / sizeof *objs
                          ? objs[k] : (enum lr_cdynp_objective) 6;
            x.stages = 1;   /* on the wire under _BOUND only */
            if (x.has_summary && lr_cdynp_obj_bound(x.objective))
                x.summary = &sum_c;
            size_t len = lr_wire_encode(&x, buf, sizeof buf);
            CU_ASSERT_FATAL(len > 0);
            struct lr_wire_msg m = { .layers = got_layers, .layers_cap = 8,
                                     .summary = &sum_b };
            int rc = lr_wire_decode(buf, len, &m);
            if (k < sizeof objs / sizeof *objs) {
                CU_ASSERT_EQUAL(rc, 0);
                CU_ASSERT_EQUAL(m.objective, objs[k]);
                seen++;
            } else {
                CU_ASSERT_EQUAL(rc, EINVAL);
            }
        }
    }
    CU_ASSERT_EQUAL(seen, 5 * 6);   /* two STEPs, one of each other */
    CU_ASSERT_STRING_EQUAL(lr_wire_objective_name(LR_CDYNP_TIME_ONE),
                           "time-one");
    CU_ASSERT_STRING_EQUAL(lr_wire_objective_name(LR_CDYNP_LEX), "lex");
}

/* Writes 'x', decodes it into '*m' (with room for everything): the
 * decoder's verdict; 'len' gets the frame's size. */
static int
wire_trip(const struct lr_wire_msg *x, uint8_t *buf, size_t cap,
          struct lr_wire_msg *m, size_t *len)
{
    static struct lr_layer got_layers[8];
    *len = lr_wire_encode(x, buf, cap);
    *m = (struct lr_wire_msg) { .layers = got_layers, .layers_cap = 8,
                                .summary = &sum_b, .tags = got_tags,
                                .tags_cap = 4 };
    return *len ? lr_wire_decode(buf, *len, m) : -1;
}

/* The stage counts of the _BOUND objectives (2026-12-05): a counted
 * summary in STEP and STEP_OK, the count in BACKTRACK, FINISH and
 * COMMIT and the predecessor's in BACKTRACK_OK come back as sent, two
 * bytes more than the same frame without; every truncation is refused,
 * and so are counts out of bounds, a summary of the other version than
 * the objective's, and counted entries out of (layer, stages) order or
 * of no stage.  Objectives 0-3 put no count on the wire (their frames
 * are as before 2026-12-05). */
static void
test_counts(void)
{
    struct lr_wire_msg x, m;
    uint8_t buf[4096], bad[4096];
    size_t len, len0;
    struct lr_wire_msg all[16];
    (void) samples(all);   /* sets sum_a and sum_c */
    const struct lr_wire_msg base = {
        .id = 9, .job = 3, .objective = LR_CDYNP_TIME_BOUND, .assumed = 4,
    };

    /* STEP and STEP_OK with a counted summary. */
    x = base;
    x.type = LR_WIRE_STEP;
    x.position = 1, x.lo = 2, x.hi = 9;
    x.link = (struct lr_tm_link) { 1.25e9, 2e-3 };
    x.has_summary = 1;
    x.summary = &sum_c;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    CU_ASSERT_EQUAL(m.objective, LR_CDYNP_TIME_BOUND);
    CU_ASSERT_EQUAL(m.summary->version, LR_CDYNP_VERSION_COUNTS);
    CU_ASSERT_EQUAL(m.summary->n, 3);
    CU_ASSERT_EQUAL(m.summary->e[1].layer, 4);
    CU_ASSERT_EQUAL(m.summary->e[1].stages, 2);
    CU_ASSERT_DOUBLE_EQUAL(m.summary->e[1].cost.sum, 2.25, 0);
    CU_ASSERT_EQUAL(m.summary->e[2].stages, 1);
    /* 30 bytes an entry, where an uncounted one takes 28. */
    CU_ASSERT_EQUAL(lr_cdynp_summary_size_v(LR_CDYNP_VERSION_COUNTS, 3),
                    lr_cdynp_summary_size(3) + 6);
    /* The head: no summary. */
    x.has_summary = 0;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    /* The objective and the summary's version must agree. */
    x.has_summary = 1;
    x.summary = &sum_a;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
    x.objective = LR_CDYNP_TIME;
    x.summary = &sum_c;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
    x = base;
    x.type = LR_WIRE_STEP_OK;
    x.has_summary = 1;
    x.summary = &sum_c;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    CU_ASSERT_EQUAL(m.summary->e[0].stages, 1);
    /* Counted entries out of order, or of no stage: never written, and
     * refused when patched in (the second entry's count, at 16 + 4 + 12
     * + 30 + 4 in the frame). */
    struct lr_cdynp_summary keep = sum_c;
    sum_c.e[1].stages = 1;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), -1);
    sum_c.e[1].stages = 0;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), -1);
    sum_c = keep;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    size_t at = 16 + 4 + 12 + 30 + 4;
    CU_ASSERT_EQUAL_FATAL(buf[at + 1], 2);
    memcpy(bad, buf, len);
    bad[at + 1] = 0;
    m = (struct lr_wire_msg) { .summary = &sum_b };
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);
    bad[at + 1] = 1;   /* (4, 1) twice */
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);

    /* BACKTRACK, FINISH and COMMIT with the count, BACKTRACK_OK with the
     * predecessor's. */
    struct lr_wire_msg c[4];
    c[0] = base, c[0].type = LR_WIRE_BACKTRACK, c[0].last = 11,
    c[0].stages = 3;
    c[1] = (struct lr_wire_msg) { .id = 9, .type = LR_WIRE_BACKTRACK_OK,
                                  .prev_last = 6, .has_stages = 1,
                                  .prev_stages = 2 };
    c[2] = base, c[2].type = LR_WIRE_FINISH, c[2].first = 7, c[2].last = 11,
    c[2].stages = 2;
    c[3] = c[2], c[3].type = LR_WIRE_COMMIT;
    strcpy(c[3].name, "train-7");
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL_FATAL(wire_trip(&c[i], buf, sizeof buf, &m, &len), 0);
        CU_ASSERT_EQUAL(m.type, c[i].type);
        CU_ASSERT_EQUAL(m.stages, c[i].stages);
        CU_ASSERT_EQUAL(m.has_stages, c[i].has_stages);
        CU_ASSERT_EQUAL(m.prev_stages, c[i].prev_stages);
        CU_ASSERT_EQUAL(m.prev_last, c[i].prev_last);
        CU_ASSERT_EQUAL(m.last, c[i].last);
        if (c[i].type == LR_WIRE_COMMIT)
            CU_ASSERT_STRING_EQUAL(m.name, "train-7");
        uint8_t again[4096];
        CU_ASSERT_EQUAL(lr_wire_encode(&m, again, sizeof again), len);
        CU_ASSERT_EQUAL(memcmp(again, buf, len), 0);
        for (size_t cut = 16; cut < len; cut++) {
            memcpy(bad, buf, cut);
            bad[0] = (uint8_t) ((cut - 4) >> 24);
            bad[1] = (uint8_t) ((cut - 4) >> 16);
            bad[2] = (uint8_t) ((cut - 4) >> 8);
            bad[3] = (uint8_t) (cut - 4);
            struct lr_wire_msg t = { .summary = &sum_b };
            int rc = lr_wire_decode(bad, cut, &t);
            /* BACKTRACK_OK without its count is the uncounted answer. */
            if (c[i].type == LR_WIRE_BACKTRACK_OK && cut == len - 2) {
                CU_ASSERT_EQUAL(rc, 0);
                CU_ASSERT_EQUAL(t.has_stages, 0);
            } else {
                CU_ASSERT_NOT_EQUAL(rc, 0);
            }
        }
        /* The uncounted frame: two bytes fewer, the count not read. */
        struct lr_wire_msg u = c[i];
        u.objective = LR_CDYNP_TIME;
        u.has_stages = 0;
        CU_ASSERT_EQUAL(wire_trip(&u, buf, sizeof buf, &m, &len0), 0);
        CU_ASSERT_EQUAL(len0 + 2, len);
        CU_ASSERT_EQUAL(m.stages, 0);
        CU_ASSERT_EQUAL(m.prev_stages, 0);
    }
    /* Counts out of bounds: none, above the assumed count, more stages
     * than FINISH's layers. */
    x = c[0], x.stages = 0;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
    x.stages = 5;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
    x.stages = 4;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    for (int i = 2; i < 4; i++) {
        x = c[i], x.stages = 0;
        CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
        x.stages = 5;
        CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
        x.first = 10, x.stages = 3;   /* layers 10-11 */
        CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), EINVAL);
        x.stages = 2;
        CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
        /* The layers' count of the widest range, 0 to INT32_MAX, is
         * 2^31: it overflowed an int (UBSan in `make fuzz`; the
         * sanitizer build stops here). */
        x.first = 0, x.last = INT32_MAX, x.stages = 3;
        CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
        CU_ASSERT_EQUAL(m.last, INT32_MAX);
    }
    CU_ASSERT_STRING_EQUAL(lr_wire_objective_name(LR_CDYNP_LEX_BOUND),
                           "lex-bound");
    CU_ASSERT_STRING_EQUAL(lr_wire_objective_name(LR_CDYNP_TIME_BOUND),
                           "time-bound");
}

/* KEEP: a list that does not fit the caller's buffer, an empty tag, a
 * count over LR_WIRE_KEEP_MAX and control characters are refused, both
 * ways where the encoder could write them. */
static void
test_keep(void)
{
    struct lr_wire_msg msgs[16];
    int n = samples(msgs);
    uint8_t buf[4096];
    struct lr_wire_msg *keep = &msgs[n - 2];
    CU_ASSERT_EQUAL_FATAL(keep->type, LR_WIRE_KEEP);
    size_t len = lr_wire_encode(keep, buf, sizeof buf);
    CU_ASSERT_FATAL(len > 0);
    struct lr_wire_msg m = { .tags = got_tags, .tags_cap = 1 };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), E2BIG);
    m = (struct lr_wire_msg) { .tags = NULL, .tags_cap = 4 };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), E2BIG);
    /* The count patched to one over the limit, or to more tags than the
     * frame holds. */
    uint8_t bad[4096];
    memcpy(bad, buf, len);
    bad[16] = (uint8_t) ((LR_WIRE_KEEP_MAX + 1) >> 8);
    bad[17] = (uint8_t) (LR_WIRE_KEEP_MAX + 1);
    m = (struct lr_wire_msg) { .tags = got_tags, .tags_cap = 4 };
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);
    memcpy(bad, buf, len);
    bad[17] = 3;
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);
    /* A tag of length 0 in the frame: the second's length field. */
    memcpy(bad, buf, len);
    size_t second = 18 + 2 + strlen("train-7");
    bad[second] = 0;
    bad[second + 1] = 0;
    CU_ASSERT_NOT_EQUAL(lr_wire_decode(bad, len, &m), 0);
    /* The encoder writes none of these. */
    struct lr_wire_msg x = *keep;
    char tags[2][LR_WIRE_NAME_MAX] = { "a", "" };
    x.tags = tags;
    CU_ASSERT_EQUAL(lr_wire_encode(&x, buf, sizeof buf), 0);
    memset(tags[1], 'x', LR_WIRE_NAME_MAX);   /* no room for its end */
    CU_ASSERT_EQUAL(lr_wire_encode(&x, buf, sizeof buf), 0);
    x.n_tags = LR_WIRE_KEEP_MAX + 1;
    CU_ASSERT_EQUAL(lr_wire_encode(&x, buf, sizeof buf), 0);
    x.n_tags = 1;
    x.tags = NULL;
    CU_ASSERT_EQUAL(lr_wire_encode(&x, buf, sizeof buf), 0);
    /* A newline in a tag would forge a line of the agent's log. */
    snprintf(tags[1], sizeof tags[1], "a\nb");
    x.tags = tags;
    x.n_tags = 2;
    len = lr_wire_encode(&x, buf, sizeof buf);
    CU_ASSERT_FATAL(len > 0);
    m = (struct lr_wire_msg) { .tags = got_tags, .tags_cap = 4 };
    CU_ASSERT_EQUAL(lr_wire_decode(buf, len, &m), EINVAL);
    /* The largest list fits a frame and comes back whole. */
    static char many[LR_WIRE_KEEP_MAX][LR_WIRE_NAME_MAX];
    static char back[LR_WIRE_KEEP_MAX][LR_WIRE_NAME_MAX];
    for (int i = 0; i < LR_WIRE_KEEP_MAX; i++)
        snprintf(many[i], sizeof many[i], "%063d", i);
    x.tags = many;
    x.n_tags = LR_WIRE_KEEP_MAX;
    size_t cap = (size_t) LR_WIRE_KEEP_MAX * 66 + 64;
    uint8_t *big = malloc(cap);
    CU_ASSERT_FATAL(big != NULL);
    len = lr_wire_encode(&x, big, cap);
    CU_ASSERT_FATAL(len > 0);
    m = (struct lr_wire_msg) { .tags = back, .tags_cap = LR_WIRE_KEEP_MAX };
    CU_ASSERT_EQUAL(lr_wire_decode(big, len, &m), 0);
    CU_ASSERT_EQUAL(m.n_tags, LR_WIRE_KEEP_MAX);
    CU_ASSERT_STRING_EQUAL(m.tags[LR_WIRE_KEEP_MAX - 1],
                           many[LR_WIRE_KEEP_MAX - 1]);
    free(big);
    CU_ASSERT_STRING_EQUAL(lr_wire_type_name(LR_WIRE_KEEP), "keep");
}

/* Protocol revision 2 (2026-12-07): HELLO and HELLO_OK carry the
 * revision only when given one, so a plain HELLO and its HELLO_OK are
 * byte for byte as before (what an agent from before reads, and a
 * coordinator from before is sent); revision 0 on the wire is refused.
 * STEP_OK's predecessors come back as sent, 4 bytes an entry, and are
 * refused when their count is not the entries', when one is not before
 * its entry's layer or below -1, and after a counted summary. */
static void
test_revision(void)
{
    struct lr_wire_msg x, m;
    uint8_t buf[4096], bad[4096];
    size_t len, len0;
    struct lr_wire_msg all[16];
    (void) samples(all);   /* sets sum_a and sum_c */

    x = (struct lr_wire_msg) { .type = LR_WIRE_HELLO, .id = 1 };
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len0), 0);
    CU_ASSERT_EQUAL(len0, 16);
    CU_ASSERT_EQUAL(m.revision, 0);
    x.revision = LR_WIRE_REVISION;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    CU_ASSERT_EQUAL(len, len0 + 2);
    CU_ASSERT_EQUAL(m.revision, LR_WIRE_REVISION);
    memcpy(bad, buf, len);
    bad[len - 1] = 0;   /* revision 0 */
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);

    x = (struct lr_wire_msg) { .type = LR_WIRE_HELLO_OK, .id = 1,
                               .compute = 8e14 };
    snprintf(x.name, sizeof x.name, "dc2");
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len0), 0);
    CU_ASSERT_EQUAL(len0, 16 + 8 + 2 + 3);
    CU_ASSERT_EQUAL(m.revision, 0);
    x.revision = 2;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    CU_ASSERT_EQUAL(len, len0 + 2);
    CU_ASSERT_EQUAL(m.revision, 2);
    CU_ASSERT_STRING_EQUAL(m.name, "dc2");
    /* One byte of a revision is trailing garbage. */
    memcpy(bad, buf, len);
    lr_put32(bad, (uint32_t) (len - 1 - 4));
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len - 1, &m), EINVAL);

    /* STEP_OK: without predecessors as before, with them 4 bytes an
     * entry more. */
    struct lr_cdynp_summary keep = sum_a;
    x = (struct lr_wire_msg) { .type = LR_WIRE_STEP_OK, .id = 4,
                               .has_summary = 1, .summary = &sum_a };
    sum_a.has_prev = 0;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len0), 0);
    CU_ASSERT_EQUAL(m.summary->has_prev, 0);
    sum_a.has_prev = 1;
    sum_a.e[0].prev_last = -1;
    sum_a.e[1].prev_last = 5;
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    CU_ASSERT_EQUAL(len, len0 + 2 * 4);
    CU_ASSERT_EQUAL(m.summary->has_prev, 1);
    CU_ASSERT_EQUAL(m.summary->e[0].prev_last, -1);
    CU_ASSERT_EQUAL(m.summary->e[1].prev_last, 5);
    /* Not written when the decoder would refuse them ... */
    sum_a.e[1].prev_last = 6;   /* not before layer 6 */
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), -1);
    sum_a.e[1].prev_last = -2;
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), -1);
    sum_a.e[1].prev_last = 5;
    x.summary = &sum_c;
    sum_c.has_prev = 1;   /* counted: none */
    CU_ASSERT_EQUAL(wire_trip(&x, buf, sizeof buf, &m, &len), -1);
    sum_c.has_prev = 0;
    x.summary = &sum_a;
    /* ... and refused when patched in: the second predecessor, the
     * frame's last 4 bytes, at its layer, and below -1; one missing. */
    CU_ASSERT_EQUAL_FATAL(wire_trip(&x, buf, sizeof buf, &m, &len), 0);
    memcpy(bad, buf, len);
    lr_put32(bad + len - 4, 6);
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);
    lr_put32(bad + len - 4, (uint32_t) -2);
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len, &m), EINVAL);
    memcpy(bad, buf, len - 4);
    lr_put32(bad, (uint32_t) (len - 4 - 4));
    CU_ASSERT_EQUAL(lr_wire_decode(bad, len - 4, &m), EINVAL);
    sum_a = keep;
}

static CU_TestInfo tests[] = {
    { "every message round-trips", test_round_trip },
    { "truncated, trailing, foreign and bad frames refused", test_refusals },
    { "every objective, and no other", test_objectives },
    { "the _BOUND objectives' stage counts", test_counts },
    { "KEEP's tags: bounds, empties, control characters", test_keep },
    { "protocol revision 2: HELLO's revision, STEP_OK's predecessors",
      test_revision },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("wire", tests)
