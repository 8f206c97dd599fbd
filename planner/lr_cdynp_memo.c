/*
 * lr_cdynp_memo: a party that answers again what it was asked before.
 *
 * Model.  A DC's answers are functions of the request alone: its DP is
 * deterministic and its rows do not depend on the order they are asked
 * for (lr_cdynp_local.c).  So
 *     STEP(obj, a, in, link, lo, hi)            -> summary (its 'from'
 *                                                  the position asked)
 *     BACKTRACK(last, c) after that STEP        -> (prev_last, prev_c)
 *     FINISH(obj, a, first, last, c)            -> n_stages
 * and the coordinator that has had an answer needs no second round trip
 * for the same request.  The beam search over chains beyond
 * LR_CDYNP_ALL_ORDERS DCs asks many of them again: a chain extended at
 * its tail or head often gives a DC the same window and the same
 * predecessor summary as a chain run before, and a DC's final range and
 * count recur far more (on tests/data/wide-7 and wide-13, 30-50% of the
 * STEPs and 60-85% of the FINISHes repeat one already answered).
 *
 * Our implementation.  Per party, a hash table of the requests answered
 * (keyed by their bytes, compared in full on a hash match): a STEP's
 * record keeps its request (to send it again, below), its answer, and
 * the BACKTRACKs answered after it; a FINISH's record its count.  A
 * BACKTRACK reads the DC's last STEP under (obj, assumed), so the memo
 * tracks, per pair, the record the coordinator's last STEP named and the
 * one the inner party was last sent.  A BACKTRACK not answered before,
 * after a STEP answered from the memo, first sends that STEP again (its
 * stored request) so the inner party backtracks the right one; an
 * answer to it other than the one kept is EPROTO (a party at fault:
 * the chain used the first).  Only
 * answers (0, and ENOENT "nothing fits" of a STEP) are kept; any other
 * error passes through, and a pair whose last STEP failed so is passed
 * through until its next STEP.
 *
 * A STEP's answer that carries each entry's predecessor (an agent of
 * protocol revision 2, lr_cdynp_wire.h; objectives 0-3) answers every
 * BACKTRACK after it here: none is sent, and no STEP is sent again for
 * one (backtrack_from_prev()).
 *
 * What a DC learns is unchanged: it is asked a subset of the requests
 * it was asked before, each of a kind it already answers.  What the
 * coordinator learns is unchanged: it keeps only what it was told.
 * A party in this process appends its stages to the plan at finish,
 * which the memo cannot repeat: the inner party must be one that keeps
 * them to itself (an agent, lr_agent_party.c).
 *
 * Bounded memory: at most LR_CDYNP_MEMO_BYTES a party; past it, new
 * requests pass through unrecorded (the plan is the same, only the
 * round trips are not saved).  The beam's instances of 7-8 DCs keep at
 * most 0.17 MB a party (test_cdynp), so the bound, 1 GiB over 64
 * agents, is met only by far larger searches.  Lookups are O(1) expected; a record costs
 * its key (34 bytes an entry of the summary in) and its answer (32 an
 * entry).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"

enum { MEMO_STEP = 1, MEMO_FINISH = 2 };

/* A BACKTRACK answered after a STEP. */
struct memo_bt {
    int last, stages, prev_last, prev_stages;
};

struct memo_rec {
    struct memo_rec *next;        /* in its bucket */
    uint64_t hash;
    size_t key_len;
    uint8_t *key;                 /* the request's bytes (put_key()) */
    /* A STEP's: the request as sent, to send it again. */
    int obj, assumed, lo, hi;
    uint16_t position;
    bool has_in, has_link;
    struct lr_tm_link link;
    struct lr_cdynp_summary_head {
        uint16_t version, from, n;
    } in_head, out_head;
    struct lr_cdynp_entry *in_e, *out_e;
    bool out_prev;                /* out_e's predecessors are set */
    int err;                      /* 0 or ENOENT */
    struct memo_bt *bt;
    int n_bt, cap_bt;
    /* A FINISH's count. */
    int n_stages;
};

/* Per (objective, min(assumed, m)): the record of the coordinator's
 * last STEP (NULL: pass BACKTRACK through) and of the last one the
 * inner party ran (NULL: unknown). */
struct memo_pair {
    int obj, assumed;
    struct memo_rec *asked, *sent;
};

struct memo_party {
    struct lr_cdynp_party base;
    struct lr_cdynp_party *in;    /* borrowed */
    int m;                        /* the model's microbatches; 0: none */
    struct memo_rec **bucket;
    size_t n_buckets, n_recs;
    size_t bytes, bound;          /* held, and at most (LR_CDYNP_MEMO_BYTES) */
    struct memo_pair *pair;
    int n_pairs, cap_pairs;
    struct lr_cdynp_summary *scratch[2];   /* a replay's in and out */
    /* The first STEP the inner party answered otherwise when sent
     * again (replay()'s EPROTO), for the caller to name the party at
     * fault: the EPROTO alone names none. */
    const struct memo_rec *differed;
    struct lr_cdynp_memo_counts counts;
};

static struct memo_party *
mp_of(struct lr_cdynp_party *p)
{
    return (struct memo_party *) p;
}

/* ---- keys ---- */

struct keybuf {
    uint8_t *b;
    size_t n, cap;
    bool nomem;
};

static void
kb_put(struct keybuf *k, const void *p, size_t n)
{
    if (k->n + n > k->cap) {
        size_t cap = k->cap ? k->cap : 64;
        while (cap < k->n + n)
            cap *= 2;
        uint8_t *b = realloc(k->b, cap);
        if (!b) {
            k->nomem = true;
            return;
        }
        k->b = b;
        k->cap = cap;
    }
    memcpy(k->b + k->n, p, n);
    k->n += n;
}

static void
kb_int(struct keybuf *k, int v)
{
    int32_t x = v;
    kb_put(k, &x, sizeof x);
}

static void
kb_double(struct keybuf *k, double v)
{
    kb_put(k, &v, sizeof v);
}

/* A STEP's key: every field its answer depends on, field by field (a
 * struct's padding is no part of it).  Not the position: it only names
 * the sender in the answer. */
static void
step_key(struct keybuf *k, enum lr_cdynp_objective obj, int assumed,
         const struct lr_cdynp_summary *in, const struct lr_tm_link *link,
         int lo, int hi)
{
    kb_int(k, MEMO_STEP);
    kb_int(k, (int) obj);
    kb_int(k, assumed);
    kb_int(k, lo);
    kb_int(k, hi);
    kb_int(k, link != NULL);
    if (link) {
        kb_double(k, link->bw);
        kb_double(k, link->lat);
    }
    kb_int(k, in != NULL);
    if (!in)
        return;
    kb_int(k, in->version);
    kb_int(k, in->n);
    for (int i = 0; i < in->n; i++) {
        kb_int(k, (int) in->e[i].layer);
        kb_int(k, in->e[i].stages);
        kb_double(k, in->e[i].cost.bottleneck);
        kb_double(k, in->e[i].cost.sum);
        kb_double(k, in->e[i].cost.sync);
    }
}

static void
finish_key(struct keybuf *k, enum lr_cdynp_objective obj, int assumed,
           int first, int last, int stages, int dc_index)
{
    kb_int(k, MEMO_FINISH);
    kb_int(k, (int) obj);
    kb_int(k, assumed);
    kb_int(k, first);
    kb_int(k, last);
    kb_int(k, stages);
    kb_int(k, dc_index);
}

/* FNV-1a, 64 bits. */
static uint64_t
key_hash(const struct keybuf *k)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < k->n; i++) {
        h ^= k->b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---- the table ---- */

static struct memo_rec *
memo_find(struct memo_party *mp, const struct keybuf *k, uint64_t h)
{
    if (!mp->n_buckets)
        return NULL;
    for (struct memo_rec *r = mp->bucket[h & (mp->n_buckets - 1)]; r;
         r = r->next)
        if (r->hash == h && r->key_len == k->n && !memcmp(r->key, k->b, k->n))
            return r;
    return NULL;
}

/* Doubles the buckets when the records outnumber them twice; false when
 * out of memory (the table stays as it was and still works). */
static bool
memo_grow(struct memo_party *mp)
{
    if (mp->n_buckets && mp->n_recs < 2 * mp->n_buckets)
        return true;
    size_t n = mp->n_buckets ? 2 * mp->n_buckets : 256;
    struct memo_rec **b = calloc(n, sizeof *b);
    if (!b)
        return mp->n_buckets > 0;
    for (size_t i = 0; i < mp->n_buckets; i++)
        for (struct memo_rec *r = mp->bucket[i], *next; r; r = next) {
            next = r->next;
            r->next = b[r->hash & (n - 1)];
            b[r->hash & (n - 1)] = r;
        }
    free(mp->bucket);
    mp->bucket = b;
    mp->n_buckets = n;
    return true;
}

/* A new record for key 'k' taking 'extra' bytes more, in the table; NULL
 * when out of memory or past LR_CDYNP_MEMO_BYTES (the request then goes
 * unrecorded). */
static struct memo_rec *
memo_add(struct memo_party *mp, const struct keybuf *k, uint64_t h,
         size_t extra)
{
    size_t cost = sizeof(struct memo_rec) + k->n + extra;
    if (k->nomem || mp->bytes + cost > mp->bound
        || !memo_grow(mp))
        return NULL;
    struct memo_rec *r = calloc(1, sizeof *r);
    if (!r || !(r->key = malloc(k->n))) {
        free(r);
        return NULL;
    }
    memcpy(r->key, k->b, k->n);
    r->key_len = k->n;
    r->hash = h;
    r->next = mp->bucket[h & (mp->n_buckets - 1)];
    mp->bucket[h & (mp->n_buckets - 1)] = r;
    mp->n_recs++;
    mp->bytes += cost;
    return r;
}

static void
memo_rec_free(struct memo_rec *r)
{
    free(r->key);
    free(r->in_e);
    free(r->out_e);
    free(r->bt);
    free(r);
}

/* The state of (obj, assumed), made when first met; NULL when out of
 * memory.  An assumed count past the model's m microbatches is m: a
 * party keeps one last STEP per (obj, min(assumed, m)) (lr_cdynp_local.c's
 * local_find(), the agent's alike), so a STEP under m + 1 replaces the
 * one under m, and the pair must see it. */
static struct memo_pair *
memo_pair(struct memo_party *mp, enum lr_cdynp_objective obj, int assumed)
{
    if (mp->m > 0 && assumed > mp->m)
        assumed = mp->m;
    for (int i = 0; i < mp->n_pairs; i++)
        if (mp->pair[i].obj == (int) obj && mp->pair[i].assumed == assumed)
            return &mp->pair[i];
    if (mp->n_pairs == mp->cap_pairs) {
        int cap = mp->cap_pairs ? 2 * mp->cap_pairs : 8;
        struct memo_pair *p = realloc(mp->pair, (size_t) cap * sizeof *p);
        if (!p)
            return NULL;
        mp->pair = p;
        mp->cap_pairs = cap;
    }
    mp->pair[mp->n_pairs] = (struct memo_pair) { (int) obj, assumed, NULL,
                                                 NULL };
    return &mp->pair[mp->n_pairs++];
}

/* ---- the party ---- */

static int
memo_compute(struct lr_cdynp_party *p, double *flops)
{
    return mp_of(p)->in->cls->compute(mp_of(p)->in, flops);
}

/* Keeps the STEP just answered (err 0 or ENOENT) in a new record; NULL
 * when it cannot be kept. */
static struct memo_rec *
keep_step(struct memo_party *mp, const struct keybuf *k, uint64_t h,
          enum lr_cdynp_objective obj, int assumed,
          const struct lr_cdynp_summary *in, const struct lr_tm_link *link,
          uint16_t position, int lo, int hi,
          const struct lr_cdynp_summary *out, int err)
{
    size_t n_in = in ? in->n : 0, n_out = err ? 0 : out->n;
    struct memo_rec *r = memo_add(mp, k, h,
                                  (n_in + n_out) * sizeof *out->e);
    if (!r)
        return NULL;
    r->in_e = n_in ? malloc(n_in * sizeof *r->in_e) : NULL;
    r->out_e = n_out ? malloc(n_out * sizeof *r->out_e) : NULL;
    if ((n_in && !r->in_e) || (n_out && !r->out_e)) {
        /* In the table with no answer: a later lookup must not hit. */
        r->key_len = 0;
        return NULL;
    }
    if (n_in)
        memcpy(r->in_e, in->e, n_in * sizeof *r->in_e);
    if (n_out)
        memcpy(r->out_e, out->e, n_out * sizeof *r->out_e);
    r->obj = (int) obj;
    r->assumed = assumed;
    r->lo = lo;
    r->hi = hi;
    r->position = position;
    r->has_in = in != NULL;
    r->has_link = link != NULL;
    if (link)
        r->link = *link;
    if (in)
        r->in_head = (struct lr_cdynp_summary_head) { in->version,
                                                      in->from, in->n };
    r->out_head = (struct lr_cdynp_summary_head) { err ? 0 : out->version,
                                                   0, (uint16_t) n_out };
    r->out_prev = !err && out->has_prev;
    r->err = err;
    return r;
}

static int
memo_step(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
          int assumed, const struct lr_cdynp_summary *in,
          const struct lr_tm_link *in_link, uint16_t position, int lo,
          int hi, struct lr_cdynp_summary *out)
{
    struct memo_party *mp = mp_of(p);
    struct memo_pair *pair = memo_pair(mp, obj, assumed);
    struct keybuf k = { 0 };
    step_key(&k, obj, assumed, in, in_link, lo, hi);
    const uint64_t h = key_hash(&k);
    struct memo_rec *r = k.nomem || !pair ? NULL : memo_find(mp, &k, h);
    if (r) {
        free(k.b);
        mp->counts.step_hits++;
        pair->asked = r;
        out->version = r->out_head.version ? r->out_head.version
                                           : out->version;
        out->from = position;
        out->n = r->out_head.n;
        out->has_prev = r->out_prev;
        if (r->out_head.n)
            memcpy(out->e, r->out_e, r->out_head.n * sizeof *out->e);
        return r->err;
    }
    mp->counts.steps++;
    /* A party that knows nothing of predecessors leaves it so. */
    out->has_prev = 0;
    int err = mp->in->cls->step(mp->in, obj, assumed, in, in_link,
                                position, lo, hi, out);
    r = NULL;
    if (pair && (err == 0 || err == ENOENT))
        r = keep_step(mp, &k, h, obj, assumed, in, in_link, position, lo,
                      hi, out, err);
    free(k.b);
    if (pair) {
        /* Unrecorded, BACKTRACK goes straight to the inner party, which
         * holds this STEP until the pair's next one. */
        pair->asked = r;
        pair->sent = r;
    }
    return err;
}

/* Whether 'out', the inner party's answer to 'r' sent again, is the one
 * kept: entry by entry, field by field (an entry's padding is no part of
 * it). */
static bool
same_answer(const struct memo_rec *r, const struct lr_cdynp_summary *out)
{
    if (r->err)
        return true;
    if (out->n != r->out_head.n)
        return false;
    for (int i = 0; i < out->n; i++) {
        const struct lr_cdynp_entry *a = &out->e[i], *b = &r->out_e[i];
        if (a->layer != b->layer || a->stages != b->stages
            || memcmp(&a->cost.bottleneck, &b->cost.bottleneck,
                      sizeof a->cost.bottleneck)
            || memcmp(&a->cost.sum, &b->cost.sum, sizeof a->cost.sum)
            || memcmp(&a->cost.sync, &b->cost.sync, sizeof a->cost.sync))
            return false;
    }
    return true;
}

/* Has the inner party run 'r' again, so that it backtracks it. */
static int
replay(struct memo_party *mp, struct memo_pair *pair, struct memo_rec *r)
{
    for (int i = 0; i < 2; i++)
        if (!mp->scratch[i]
            && !(mp->scratch[i] = malloc(sizeof *mp->scratch[i])))
            return ENOMEM;
    struct lr_cdynp_summary *in = mp->scratch[0];
    if (r->has_in) {
        in->version = r->in_head.version;
        in->from = r->in_head.from;
        in->n = r->in_head.n;
        if (in->n)
            memcpy(in->e, r->in_e, in->n * sizeof *in->e);
    }
    mp->counts.replays++;
    pair->sent = NULL;
    int err = mp->in->cls->step(mp->in, (enum lr_cdynp_objective) r->obj,
                                r->assumed, r->has_in ? in : NULL,
                                r->has_link ? &r->link : NULL, r->position,
                                r->lo, r->hi, mp->scratch[1]);
    /* An error of its own (a lost connection, a bound) is the party's,
     * said by it.  Any other answer than the one the memo gave is none:
     * the coordinator's chain used the first, and the party would
     * backtrack the second.  ENOENT in particular must not pass, as the
     * BACKTRACK's answer it would read as "does not fit memory". */
    if (err && err != ENOENT && err != r->err)
        return err;
    if (err != r->err || !same_answer(r, mp->scratch[1])) {
        if (!mp->differed)
            mp->differed = r;
        return EPROTO;
    }
    pair->sent = r;
    return 0;
}

/* BACKTRACK from 'last' after STEP 'r', whose answer carried each
 * entry's predecessor (a party of protocol revision 2, objectives 0-3
 * only): read off it, as the party would answer, with no round trip
 * and no STEP sent again.  EINVAL when 'last' ends no entry of it, as a
 * party answers. */
static int
backtrack_from_prev(struct memo_party *mp, const struct memo_rec *r,
                    int last, int *prev_last, int *prev_stages)
{
    for (int i = 0; i < r->out_head.n; i++)
        if (r->out_e[i].layer == (uint32_t) last) {
            mp->counts.backtrack_preds++;
            *prev_last = r->out_e[i].prev_last;
            *prev_stages = 0;
            return 0;
        }
    return EINVAL;
}

static int
memo_backtrack(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
               int assumed, int last, int stages, int *prev_last,
               int *prev_stages)
{
    struct memo_party *mp = mp_of(p);
    struct memo_pair *pair = memo_pair(mp, obj, assumed);
    struct memo_rec *r = pair ? pair->asked : NULL;
    if (!r) {
        mp->counts.backtracks++;
        return mp->in->cls->backtrack(mp->in, obj, assumed, last, stages,
                                      prev_last, prev_stages);
    }
    if (r->out_prev)
        return backtrack_from_prev(mp, r, last, prev_last, prev_stages);
    for (int i = 0; i < r->n_bt; i++)
        if (r->bt[i].last == last && r->bt[i].stages == stages) {
            mp->counts.backtrack_hits++;
            *prev_last = r->bt[i].prev_last;
            *prev_stages = r->bt[i].prev_stages;
            return 0;
        }
    if (pair->sent != r) {
        int err = replay(mp, pair, r);
        if (err)
            return err;
    }
    mp->counts.backtracks++;
    int err = mp->in->cls->backtrack(mp->in, obj, assumed, last, stages,
                                     prev_last, prev_stages);
    if (err)
        return err;
    if (r->n_bt == r->cap_bt
        && mp->bytes + sizeof *r->bt * (size_t) (r->cap_bt ? r->cap_bt : 4)
           <= mp->bound) {
        int cap = r->cap_bt ? 2 * r->cap_bt : 4;
        struct memo_bt *bt = realloc(r->bt, (size_t) cap * sizeof *bt);
        if (bt) {
            mp->bytes += (size_t) (cap - r->cap_bt) * sizeof *bt;
            r->bt = bt;
            r->cap_bt = cap;
        }
    }
    if (r->n_bt < r->cap_bt)
        r->bt[r->n_bt++] = (struct memo_bt) { last, stages, *prev_last,
                                              *prev_stages };
    return 0;
}

static int
memo_finish(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
            int assumed, int first, int last, int stages, int dc_index,
            struct lr_plan *plan, int *n_stages)
{
    struct memo_party *mp = mp_of(p);
    struct keybuf k = { 0 };
    finish_key(&k, obj, assumed, first, last, stages, dc_index);
    const uint64_t h = key_hash(&k);
    struct memo_rec *r = k.nomem ? NULL : memo_find(mp, &k, h);
    if (r) {
        free(k.b);
        mp->counts.finish_hits++;
        *n_stages = r->n_stages;
        return 0;
    }
    mp->counts.finishes++;
    int err = mp->in->cls->finish(mp->in, obj, assumed, first, last, stages,
                                  dc_index, plan, n_stages);
    if (!err && (r = memo_add(mp, &k, h, 0)))
        r->n_stages = *n_stages;
    free(k.b);
    return err;
}

static void
memo_free(struct lr_cdynp_party *p)
{
    struct memo_party *mp = mp_of(p);
    if (!mp)
        return;
    for (size_t i = 0; i < mp->n_buckets; i++)
        for (struct memo_rec *r = mp->bucket[i], *next; r; r = next) {
            next = r->next;
            memo_rec_free(r);
        }
    free(mp->bucket);
    free(mp->pair);
    free(mp->scratch[0]);
    free(mp->scratch[1]);
    free(mp);
}

static const struct lr_cdynp_party_class memo_class = {
    .compute = memo_compute,
    .step = memo_step,
    .backtrack = memo_backtrack,
    .finish = memo_finish,
    .free = memo_free,
};

struct lr_cdynp_party *
lr_cdynp_memo_party_new(struct lr_cdynp_party *inner, int m)
{
    struct memo_party *mp = calloc(1, sizeof *mp);
    if (!mp)
        return NULL;
    mp->base.cls = &memo_class;
    mp->in = inner;
    mp->m = m;
    mp->bound = LR_CDYNP_MEMO_BYTES;
    return &mp->base;
}

void
lr_cdynp_memo_party_set_bound(struct lr_cdynp_party *p, size_t bytes)
{
    mp_of(p)->bound = bytes;
}

bool
lr_cdynp_memo_party_is(const struct lr_cdynp_party *p)
{
    return p && p->cls == &memo_class;
}

struct lr_cdynp_memo_counts
lr_cdynp_memo_party_counts(const struct lr_cdynp_party *p)
{
    const struct memo_party *mp = (const struct memo_party *) p;
    struct lr_cdynp_memo_counts c = mp->counts;
    c.bytes = (double) mp->bytes;
    return c;
}

bool
lr_cdynp_memo_party_differed(const struct lr_cdynp_party *p,
                             enum lr_cdynp_objective *obj, int *lo, int *hi)
{
    const struct memo_rec *r = ((const struct memo_party *) p)->differed;
    if (!r)
        return false;
    *obj = (enum lr_cdynp_objective) r->obj;
    *lo = r->lo;
    *hi = r->hi;
    return true;
}
