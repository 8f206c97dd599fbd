/*
 * lr_rsa: routing, modulation and spectrum assignment (RMSA) for one
 * lightpath request at a time, with pluggable policies.
 *
 * A request asks for 'rate_gbps' from node src to node dst.  Its
 * candidates are the K shortest paths of the pair (lr_ksp), each with
 * the most efficient modulation that reaches (lr_modulation) and the block
 * size m that modulation needs for the rate.  A policy (lr_rsa_policy)
 * picks one candidate and the first slot of a block of m slots free on
 * every link of it (spectrum continuity and contiguity), or blocks.
 *
 * Deciding never changes the spectrum; lr_rsa_commit() books a decision
 * and lr_rsa_release() frees it.  The engine owns its path table and its
 * spectrum; it keeps a pointer to the topology, which must outlive it.
 */
#ifndef LR_RSA_H
#define LR_RSA_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/lr_bitset.h"
#include "planner/lr_ksp.h"
#include "planner/lr_modulation.h"
#include "planner/lr_spectrum.h"
#include "planner/lr_topo.h"

struct lr_rsa_request {
    int src, dst;
    double rate_gbps;
};

/* What a policy decided: path 'path' (index into the engine's lr_ksp
 * paths), modulation 'mod', slots [first, first + m). */
struct lr_rsa_choice {
    int path;
    int mod;
    int first;
    int m;
};

/* One candidate path of a request, as the engine hands it to policies. */
struct lr_rsa_cand {
    int path;                 /* index into rsa->ksp->paths */
    const struct lr_path *p;
    int mod;                  /* index into rsa->mods */
    int m;                    /* slots needed, guard included */
};

struct lr_rsa;

struct lr_rsa_policy {
    const char *name;
    const char *summary;
    /* Picks a candidate and a block; returns true with '*out' filled, or
     * false to block.  Must not change the spectrum. */
    bool (*choose)(struct lr_rsa *, const struct lr_rsa_cand *cands,
                   int n_cands, struct lr_rsa_choice *out);
};

/* Why a request was refused. */
enum lr_rsa_block {
    LR_RSA_OK = 0,
    LR_RSA_NO_PATH,           /* the pair has no path at all (on a lazy
                               * table also a pair whose paths could not
                               * be computed, out of memory: tried again
                               * on its next request; lr_ksp_paths()) */
    LR_RSA_NO_REACH,          /* no candidate within any format's reach */
    LR_RSA_NO_SPECTRUM,       /* no common free block of the size needed */
};

/* The largest block size: the widest spectrum (lr_spectrum.h), whose
 * whole width one request may need; the set of sizes has a word more
 * than a spectrum, as size s is bit s. */
#define LR_RSA_MAX_DEMAND_SIZE (64 * LR_BITS_MAX_WORDS)
#define LR_RSA_DEMAND_WORDS (LR_RSA_MAX_DEMAND_SIZE / 64 + 1)

struct lr_rsa_config {
    int k;                    /* candidate paths per pair */
    enum lr_ksp_order order;
    int guard;                /* guard slots per lightpath */
    /* Block sizes that requests may need, used by capacity-loss
     * policies: size s (1 to LR_RSA_MAX_DEMAND_SIZE) is bit s % 64 of
     * word s / 64 (lr_bits_set(demand_sizes, s, 1)); empty = every size
     * from 1 to the spectrum's width.  (Until 2026-12-05 one word: sizes
     * of 64 slots or more were lost, and a set of only such sizes read
     * as empty, every size from 1 to 63; then LR_BITS_MAX_WORDS words,
     * which lost a block of the whole widest spectrum, 1,024 slots.) */
    uint64_t demand_sizes[LR_RSA_DEMAND_WORDS];
    /* The nodes requests may join: NULL = every node; else
     * ends[v] != 0 (topo->n_nodes entries, read only by lr_rsa_new)
     * and only pairs of two such nodes get paths, a request between
     * others blocks with LR_RSA_NO_PATH.  Decisions between ends are
     * the same either way, except for route-level policies (MSCL),
     * whose routes are the paths computed.  K shortest paths of every
     * pair cost about |V|^4 over a ring (lr_ksp.c): MSCL pays that in
     * lr_rsa_new(), the other policies pair by pair, on a pair's first
     * request. */
    const unsigned char *ends;
};

struct lr_rsa {
    const struct lr_topo *topo;
    struct lr_ksp *ksp;
    struct lr_modtable mods;
    struct lr_spectrum *sp;
    const struct lr_rsa_policy *policy;
    struct lr_rsa_config cfg;
    /* Modulation per path, -1 = out of reach; NULL when the paths are
     * computed lazily (every policy but MSCL's): then chosen per request
     * from the path's length, the same function of the same length. */
    int *path_mod;
    /* Scratch for policies: F[L] = number of placements of every demand
     * size in a free run of L slots (see lr_rsa_mscl.c). */
    int *run_capacity;
    struct lr_rsa_cand *cands;
    /* The paths through link l are link_paths[link_path_first[l] ..
     * link_path_first[l + 1]): what route-level policies (MSCL) need to
     * see whom a block would hurt; built for those policies only, NULL
     * for the others. */
    int *link_path_first;
    int *link_paths;
    /* Scratch for route-level policies: path_free holds nw words per path,
     * valid for the paths whose path_stamp equals 'stamp' (one stamp per
     * request); path_seen marks the routes already in 'touched' (one
     * mark per candidate path). */
    unsigned *path_stamp, *path_seen;
    unsigned stamp, seen;
    uint64_t *path_free;
    int *touched;
};

/* Builds an engine over 'topo' with policy 'policy' and the modulation
 * table 'mods' (copied).  Returns 0, EINVAL, or ENOMEM; '*out' is set on
 * success and freed with lr_rsa_free(). */
int lr_rsa_new(const struct lr_topo *topo, const struct lr_rsa_config *cfg,
               const struct lr_modtable *mods,
               const struct lr_rsa_policy *policy, struct lr_rsa **out);
void lr_rsa_free(struct lr_rsa *);

/* Decides for 'req' without booking.  Returns LR_RSA_OK with '*out'
 * filled, or the reason for blocking. */
enum lr_rsa_block lr_rsa_decide(struct lr_rsa *, const struct lr_rsa_request *,
                                struct lr_rsa_choice *out);

/* Books / frees a decision; 0 or the errno of lr_spectrum_alloc/release. */
int lr_rsa_commit(struct lr_rsa *, const struct lr_rsa_choice *);
int lr_rsa_release(struct lr_rsa *, const struct lr_rsa_choice *);

/* 'free' (rsa->sp->nw words) = slots free on every link of path 'p'. */
static inline void
lr_rsa_path_free(const struct lr_rsa *rsa, const struct lr_path *p,
                 uint64_t *free)
{
    lr_spectrum_path_free(rsa->sp, p->links, p->n_links, free);
}

/* The policies.  lr_rsa_policies[] lists them all, NULL-terminated. */
extern const struct lr_rsa_policy lr_rsa_ksp_ff;
extern const struct lr_rsa_policy lr_rsa_ff_ksp;
extern const struct lr_rsa_policy lr_rsa_ksp_bf;
extern const struct lr_rsa_policy lr_rsa_ksp_ef;
extern const struct lr_rsa_policy lr_rsa_ksp_lf;
extern const struct lr_rsa_policy lr_rsa_mscl;
extern const struct lr_rsa_policy lr_rsa_mscl_link;
extern const struct lr_rsa_policy *const lr_rsa_policies[];

/* The policy named 'name' (case-insensitive), or NULL. */
const struct lr_rsa_policy *lr_rsa_policy_find(const char *name);

const char *lr_rsa_block_reason(enum lr_rsa_block);

/* Why lr_rsa_decide() refused 'req' for reason 'b', as one line in
 * buf[len] (truncated to fit): lr_rsa_block_reason(b), except for
 * LR_RSA_NO_SPECTRUM, where it says what was needed and what there was,
 * from the spectrum as it is now: "no block of 4 contiguous slots free
 * on every link of any of its 3 candidate paths (the longest: 2 slots)",
 * "4 to 6 slots" when the candidates' formats differ, "(none free)"
 * when no slot is free on any.  Changes nothing. */
void lr_rsa_explain(const struct lr_rsa *, const struct lr_rsa_request *req,
                    enum lr_rsa_block b, char *buf, size_t len);



/* The loop shared by the KSP-xF policies: try the candidates in path
 * order; on each, 'pick' chooses the first slot of a block of m slots in
 * 'free' (the slots free on the whole path; 'pick' may overwrite it) or
 * returns -1; the first candidate with a block wins. */
bool lr_rsa_ksp_fit(struct lr_rsa *, const struct lr_rsa_cand *cands,
                    int n_cands, int (*pick)(uint64_t *free, int nw, int m),
                    struct lr_rsa_choice *out);

#endif
