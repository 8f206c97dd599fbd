/*
 * lr_cdynp_wire: the agent protocol's messages; see lr_cdynp_wire.h for
 * the format.  Encoding writes through a cursor that refuses to pass the
 * buffer's end; decoding reads through one that refuses to read past the
 * frame, and the frame must be consumed exactly (OpenBGPD's ibuf_get_*
 * readers are the model).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "planner/lr_bytes.h"
#include "planner/lr_cdynp_wire.h"

#define HEADER 16             /* length, magic, version, type, id */

struct cursor {
    uint8_t *w;               /* writing */
    const uint8_t *r;         /* reading */
    size_t left;
    int bad;                  /* overflowed or underflowed */
};

static uint8_t *
room(struct cursor *c, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = 1;
        return NULL;
    }
    uint8_t *p = c->w;
    c->w += n;
    c->left -= n;
    return p;
}

static void
w8(struct cursor *c, uint8_t v)
{
    uint8_t *p = room(c, 1);
    if (p)
        *p = v;
}

static void
w16(struct cursor *c, uint16_t v)
{
    uint8_t *p = room(c, 2);
    if (p)
        lr_put16(p, v);
}

static void
w32(struct cursor *c, uint32_t v)
{
    uint8_t *p = room(c, 4);
    if (p)
        lr_put32(p, v);
}

static void
wf64(struct cursor *c, double v)
{
    uint8_t *p = room(c, 8);
    if (p)
        lr_put_f64(p, v);
}

static void
wtext(struct cursor *c, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    w16(c, (uint16_t) n);
    uint8_t *p = room(c, n);
    if (p)
        memcpy(p, s, n);
}

static const uint8_t *
take(struct cursor *c, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->r;
    c->r += n;
    c->left -= n;
    return p;
}

static uint8_t
r8(struct cursor *c)
{
    const uint8_t *p = take(c, 1);
    return p ? *p : 0;
}

static uint16_t
r16(struct cursor *c)
{
    const uint8_t *p = take(c, 2);
    return p ? lr_get16(p) : 0;
}

static uint32_t
r32(struct cursor *c)
{
    const uint8_t *p = take(c, 4);
    return p ? lr_get32(p) : 0;
}

/* A finite number, else the cursor goes bad. */
static double
rf64(struct cursor *c)
{
    const uint8_t *p = take(c, 8);
    double d = p ? lr_get_f64(p) : 0;
    if (!isfinite(d))
        c->bad = 1;
    return d;
}

static void
rtext(struct cursor *c, char *dst, size_t size)
{
    uint16_t n = r16(c);
    const uint8_t *p = take(c, n);
    bool ok = p && n < size;
    /* No control characters: texts reach logs and error lines, where a
     * peer's newline would forge a line of its own. */
    for (uint16_t i = 0; ok && i < n; i++)
        ok = p[i] >= 0x20 && p[i] != 0x7f;
    if (!ok) {
        c->bad = 1;
        dst[0] = '\0';
        return;
    }
    memcpy(dst, p, n);
    dst[n] = '\0';
}

static void
wsummary(struct cursor *c, int has, const struct lr_cdynp_summary *s)
{
    if (!has || !s) {
        w32(c, 0);
        return;
    }
    size_t n = lr_cdynp_summary_size_v(s->version, s->n);
    w32(c, (uint32_t) n);
    uint8_t *p = room(c, n);
    if (p && lr_cdynp_summary_encode(s, p, n) != n)
        c->bad = 1;
}

static int
rsummary(struct cursor *c, struct lr_wire_msg *m)
{
    uint32_t n = r32(c);
    const uint8_t *p = take(c, n);
    m->has_summary = n > 0;
    if (c->bad)
        return EINVAL;
    if (!n)
        return 0;
    if (!m->summary)
        return E2BIG;
    return lr_cdynp_summary_decode(p, n, m->summary) ? EINVAL : 0;
}

/* The optional revision of HELLO and HELLO_OK: none for 0 (a frame as
 * before 2026-12-07). */
static void
wrevision(struct cursor *c, int revision)
{
    if (revision < 0 || revision > UINT16_MAX)
        c->bad = 1;
    else if (revision)
        w16(c, (uint16_t) revision);
}

static int
rrevision(struct cursor *c)
{
    if (c->bad || c->left != 2)
        return 0;   /* none; anything else is trailing bytes */
    int r = r16(c);
    if (r < 1)
        c->bad = 1;
    return r;
}

/* STEP_OK's predecessors at revision 2: one per entry, of a summary of
 * version LR_CDYNP_VERSION only, each before its entry's layer (the
 * decoder's rules, so that none is written that it refuses). */
static bool
prev_ok(const struct lr_cdynp_summary *s, int i, int32_t prev)
{
    return s->version == LR_CDYNP_VERSION && prev >= -1
           && prev < LR_MODEL_MAX_LAYERS && (int64_t) prev < s->e[i].layer;
}

static void
wprev(struct cursor *c, const struct lr_cdynp_summary *s)
{
    for (int i = 0; i < s->n; i++) {
        if (!prev_ok(s, i, s->e[i].prev_last)) {
            c->bad = 1;
            return;
        }
        w32(c, (uint32_t) (int32_t) s->e[i].prev_last);
    }
}

static void
rprev(struct cursor *c, struct lr_cdynp_summary *s)
{
    if (c->bad || !c->left)
        return;
    if (c->left != (size_t) s->n * 4 || s->version != LR_CDYNP_VERSION) {
        c->bad = 1;
        return;
    }
    for (int i = 0; i < s->n && !c->bad; i++) {
        int32_t prev = (int32_t) r32(c);
        if (!prev_ok(s, i, prev))
            c->bad = 1;
        else
            s->e[i].prev_last = (int16_t) prev;
    }
    s->has_prev = !c->bad;
}

size_t
lr_wire_encode(const struct lr_wire_msg *m, uint8_t *buf, size_t len)
{
    struct cursor c = { .w = buf, .left = len };
    uint8_t *length = room(&c, 4);
    uint8_t *magic = room(&c, 4);
    if (magic)
        memcpy(magic, "LRAG", 4);
    w16(&c, LR_WIRE_VERSION);
    w16(&c, (uint16_t) m->type);
    w32(&c, m->id);
    switch (m->type) {
    case LR_WIRE_HELLO:
        wrevision(&c, m->revision);
        break;
    case LR_WIRE_OK:
        break;
    case LR_WIRE_HELLO_OK:
        wf64(&c, m->compute);
        wtext(&c, m->name, sizeof m->name);
        wrevision(&c, m->revision);
        break;
    case LR_WIRE_JOB:
        if (m->n_layers < 1 || m->n_layers > LR_MODEL_MAX_LAYERS
            || !m->layers)
            return 0;
        w32(&c, m->job);
        wf64(&c, m->batch);
        wf64(&c, m->micro);
        wf64(&c, m->elem_bytes);
        w32(&c, (uint32_t) m->n_layers);
        for (int i = 0; i < m->n_layers; i++) {
            wf64(&c, m->layers[i].flops);
            wf64(&c, m->layers[i].params);
            wf64(&c, m->layers[i].act);
        }
        break;
    case LR_WIRE_STEP:
        w32(&c, m->job);
        w8(&c, (uint8_t) m->objective);
        w16(&c, (uint16_t) m->assumed);
        w16(&c, (uint16_t) m->position);
        w32(&c, (uint32_t) m->lo);
        w32(&c, (uint32_t) m->hi);
        wf64(&c, m->link.bw);
        wf64(&c, m->link.lat);
        wsummary(&c, m->has_summary, m->summary);
        break;
    case LR_WIRE_STEP_OK:
        wsummary(&c, 1, m->summary);
        if (m->summary && m->summary->has_prev)
            wprev(&c, m->summary);
        break;
    case LR_WIRE_BACKTRACK:
        w32(&c, m->job);
        w8(&c, (uint8_t) m->objective);
        w16(&c, (uint16_t) m->assumed);
        w32(&c, (uint32_t) m->last);
        if (lr_cdynp_obj_bound(m->objective))
            w16(&c, (uint16_t) m->stages);
        break;
    case LR_WIRE_BACKTRACK_OK:
        w32(&c, (uint32_t) m->prev_last);
        if (m->has_stages)
            w16(&c, (uint16_t) m->prev_stages);
        break;
    case LR_WIRE_FINISH:
    case LR_WIRE_COMMIT:
        w32(&c, m->job);
        w8(&c, (uint8_t) m->objective);
        w16(&c, (uint16_t) m->assumed);
        w32(&c, (uint32_t) m->first);
        w32(&c, (uint32_t) m->last);
        if (lr_cdynp_obj_bound(m->objective))
            w16(&c, (uint16_t) m->stages);
        if (m->type == LR_WIRE_COMMIT)
            wtext(&c, m->name, sizeof m->name);
        break;
    case LR_WIRE_RELEASE:
        wtext(&c, m->name, sizeof m->name);
        break;
    case LR_WIRE_KEEP:
        if (m->n_tags < 0 || m->n_tags > LR_WIRE_KEEP_MAX
            || (m->n_tags && !m->tags))
            return 0;
        w16(&c, (uint16_t) m->n_tags);
        for (int i = 0; i < m->n_tags; i++) {
            size_t n = strnlen(m->tags[i], LR_WIRE_NAME_MAX);
            if (!n || n == LR_WIRE_NAME_MAX)
                return 0;
            wtext(&c, m->tags[i], LR_WIRE_NAME_MAX);
        }
        break;
    case LR_WIRE_FINISH_OK:
        w16(&c, (uint16_t) m->n_stages);
        break;
    case LR_WIRE_ERROR:
        w16(&c, (uint16_t) m->code);
        wtext(&c, m->text, sizeof m->text);
        break;
    default:
        return 0;
    }
    size_t total = len - c.left;
    if (c.bad || total - 4 > LR_WIRE_MAX_FRAME)
        return 0;
    lr_put32(length, (uint32_t) (total - 4));
    return total;
}

size_t
lr_wire_frame_size(const uint8_t *buf, size_t len, int *err)
{
    *err = 0;
    if (len < 4)
        return 0;
    uint32_t n = lr_get32(buf);
    if (n > LR_WIRE_MAX_FRAME || n < HEADER - 4) {
        *err = EMSGSIZE;
        return 0;
    }
    return (size_t) n + 4;
}

static int
valid_objective(int o)
{
    return o == LR_CDYNP_LEX || o == LR_CDYNP_TIME || o == LR_CDYNP_LEX_ONE
           || o == LR_CDYNP_TIME_ONE || o == LR_CDYNP_LEX_BOUND
           || o == LR_CDYNP_TIME_BOUND;
}

int
lr_wire_decode(const uint8_t *buf, size_t len, struct lr_wire_msg *m)
{
    struct cursor c = { .r = buf, .left = len };
    struct lr_layer *layers = m->layers;
    struct lr_cdynp_summary *summary = m->summary;
    char (*tags)[LR_WIRE_NAME_MAX] = m->tags;
    int layers_cap = m->layers_cap, tags_cap = m->tags_cap, ret = 0;

    memset(m, 0, sizeof *m);
    m->layers = layers;
    m->layers_cap = layers_cap;
    m->summary = summary;
    m->tags = tags;
    m->tags_cap = tags_cap;
    if (len < HEADER || r32(&c) != len - 4)
        return EINVAL;
    const uint8_t *magic = take(&c, 4);
    if (memcmp(magic, "LRAG", 4) || r16(&c) != LR_WIRE_VERSION)
        return EPROTO;
    m->type = (enum lr_wire_type) r16(&c);
    m->id = r32(&c);
    switch (m->type) {
    case LR_WIRE_HELLO:
        m->revision = rrevision(&c);
        break;
    case LR_WIRE_OK:
        break;
    case LR_WIRE_HELLO_OK:
        m->compute = rf64(&c);
        rtext(&c, m->name, sizeof m->name);
        if (!(m->compute >= 0))
            c.bad = 1;
        m->revision = rrevision(&c);
        break;
    case LR_WIRE_JOB: {
        m->job = r32(&c);
        m->batch = rf64(&c);
        m->micro = rf64(&c);
        m->elem_bytes = rf64(&c);
        uint32_t n = r32(&c);
        if (c.bad || n < 1 || n > LR_MODEL_MAX_LAYERS
            || !(m->batch > 0) || !(m->micro > 0) || !(m->elem_bytes > 0))
            return EINVAL;
        if ((int) n > m->layers_cap || !m->layers)
            return E2BIG;
        /* Check the length before reading n x 24 bytes. */
        if (c.left != (size_t) n * 24)
            return EINVAL;
        m->n_layers = (int) n;
        for (uint32_t i = 0; i < n; i++) {
            m->layers[i].flops = rf64(&c);
            m->layers[i].params = rf64(&c);
            m->layers[i].act = rf64(&c);
            if (m->layers[i].flops < 0 || m->layers[i].params < 0
                || m->layers[i].act < 0)
                c.bad = 1;
        }
        break;
    }
    case LR_WIRE_STEP:
        m->job = r32(&c);
        m->objective = (enum lr_cdynp_objective) r8(&c);
        m->assumed = r16(&c);
        m->position = r16(&c);
        m->lo = (int32_t) r32(&c);
        m->hi = (int32_t) r32(&c);
        m->link.bw = rf64(&c);
        m->link.lat = rf64(&c);
        if (!c.bad && (!valid_objective(m->objective) || m->assumed < 1
                       || m->lo < 0 || m->hi < m->lo || m->link.bw < 0
                       || m->link.lat < 0))
            return EINVAL;
        ret = rsummary(&c, m);
        /* Counts in the summary exactly when the objective bounds them. */
        if (!ret && m->has_summary && m->summary
            && (m->summary->version == LR_CDYNP_VERSION_COUNTS)
               != lr_cdynp_obj_bound(m->objective))
            ret = EINVAL;
        break;
    case LR_WIRE_STEP_OK:
        ret = rsummary(&c, m);
        if (!ret && !m->has_summary)
            ret = EINVAL;
        if (!ret)
            rprev(&c, m->summary);
        break;
    case LR_WIRE_BACKTRACK:
        m->job = r32(&c);
        m->objective = (enum lr_cdynp_objective) r8(&c);
        m->assumed = r16(&c);
        m->last = (int32_t) r32(&c);
        if (!c.bad && (!valid_objective(m->objective) || m->assumed < 1
                       || m->last < 0))
            return EINVAL;
        if (lr_cdynp_obj_bound(m->objective)) {
            m->stages = r16(&c);
            if (!c.bad && (m->stages < 1 || m->stages > m->assumed))
                return EINVAL;
        }
        break;
    case LR_WIRE_BACKTRACK_OK:
        m->prev_last = (int32_t) r32(&c);
        if (!c.bad && m->prev_last < -1)
            return EINVAL;
        /* The answer to a _BOUND objective's BACKTRACK: the count too. */
        if (!c.bad && c.left == 2) {
            m->has_stages = 1;
            m->prev_stages = r16(&c);
        }
        break;
    case LR_WIRE_FINISH:
    case LR_WIRE_COMMIT:
        m->job = r32(&c);
        m->objective = (enum lr_cdynp_objective) r8(&c);
        m->assumed = r16(&c);
        m->first = (int32_t) r32(&c);
        m->last = (int32_t) r32(&c);
        if (!c.bad && (!valid_objective(m->objective) || m->assumed < 1
                       || m->first < 0 || m->last < m->first))
            return EINVAL;
        if (lr_cdynp_obj_bound(m->objective)) {
            m->stages = r16(&c);
            if (!c.bad && (m->stages < 1 || m->stages > m->assumed
                           || m->stages > (int64_t) m->last - m->first + 1))
                return EINVAL;
        }
        if (m->type == LR_WIRE_COMMIT) {
            rtext(&c, m->name, sizeof m->name);
            if (!c.bad && !m->name[0])
                return EINVAL;
        }
        break;
    case LR_WIRE_RELEASE:
        rtext(&c, m->name, sizeof m->name);
        if (!c.bad && !m->name[0])
            return EINVAL;
        break;
    case LR_WIRE_KEEP: {
        uint16_t n = r16(&c);
        /* At least three bytes a tag: checked before any is read. */
        if (c.bad || n > LR_WIRE_KEEP_MAX || c.left < (size_t) n * 3)
            return EINVAL;
        if (n > m->tags_cap || (n && !m->tags))
            return E2BIG;
        m->n_tags = n;
        for (int i = 0; i < n && !c.bad; i++) {
            rtext(&c, m->tags[i], LR_WIRE_NAME_MAX);
            if (!c.bad && !m->tags[i][0])
                return EINVAL;
        }
        break;
    }
    case LR_WIRE_FINISH_OK:
        m->n_stages = r16(&c);
        break;
    case LR_WIRE_ERROR:
        m->code = r16(&c);
        rtext(&c, m->text, sizeof m->text);
        break;
    default:
        return EPROTO;
    }
    if (ret)
        return ret;
    /* Every byte read, none left over. */
    return c.bad || c.left ? EINVAL : 0;
}

const char *
lr_wire_type_name(enum lr_wire_type t)
{
    static const char *const names[] = {
        [LR_WIRE_HELLO] = "hello", [LR_WIRE_HELLO_OK] = "hello-ok",
        [LR_WIRE_JOB] = "job", [LR_WIRE_OK] = "ok",
        [LR_WIRE_STEP] = "step", [LR_WIRE_STEP_OK] = "step-ok",
        [LR_WIRE_BACKTRACK] = "backtrack",
        [LR_WIRE_BACKTRACK_OK] = "backtrack-ok",
        [LR_WIRE_FINISH] = "finish", [LR_WIRE_FINISH_OK] = "finish-ok",
        [LR_WIRE_ERROR] = "error", [LR_WIRE_COMMIT] = "commit",
        [LR_WIRE_RELEASE] = "release", [LR_WIRE_KEEP] = "keep",
    };
    return t >= LR_WIRE_HELLO && t <= LR_WIRE_KEEP ? names[t] : "unknown";
}

const char *
lr_wire_objective_name(enum lr_cdynp_objective o)
{
    switch (o) {
    case LR_CDYNP_LEX: return "lex";
    case LR_CDYNP_TIME: return "time";
    case LR_CDYNP_LEX_ONE: return "lex-one";
    case LR_CDYNP_TIME_ONE: return "time-one";
    case LR_CDYNP_LEX_BOUND: return "lex-bound";
    case LR_CDYNP_TIME_BOUND: return "time-bound";
    }
    return "unknown";
}
