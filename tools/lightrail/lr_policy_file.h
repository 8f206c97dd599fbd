/*
 * lr_policy_file: the file `lightrail train` writes and `lightrail sim
 * --policy-file` reads: a trained PPO agent and the environment it was
 * trained for.
 *
 * Format, version 1 (binary; docs/ppo.md says why not YANG JSON):
 *   "LRPOLICY 1\n"
 *   text lines "key=value\n": models, demands, batch, microbatch, k,
 *     block-penalty, holding, refuse, topology, dcs, n-obs, n-actions,
 *     command (holding and refuse may be missing: exp, no refusal);
 *     splits (the shares of a pair's GPUs in its first DC, "1/4,1/2";
 *     written only when not the default 1/2, and files without it were
 *     trained with 1/2); teacher and imitate (the policy imitated
 *     before PPO and for how many decisions, lightrail train --teacher
 *     --imitate; written only after an imitation, so files without them
 *     were trained by PPO alone, and readers that predate them ignore
 *     them: the version stays 1); known-work (1: the agent observes
 *     each job's length, lr_jenv_config.known_work; written only then,
 *     and a reader that predates it refuses such a file by its n-obs);
 *     held-work (1: it also observes the GPU-time running jobs hold per
 *     DC, lr_jenv_config.held_work; written only then, as known-work);
 *     triples (1: candidates over three DCs, lr_jenv_config.triples;
 *     written only then, and a reader that predates it refuses such a
 *     file by its n-actions); quads (1: candidates over four DCs,
 *     lr_jenv_config.quads; as triples); observe-load (1: it observes
 *     the load estimate, lr_jenv_config.observe_load; written only then,
 *     and a reader that predates it refuses such a file by its n-obs);
 *     gpus (the devices of each DC in the order of dcs, "16 A100-80GB,
 *     32 V100-32GB": the inventory trained on; files written before it
 *     lack it and are checked by DC names only, and readers that
 *     predate it ignore it); gpu-sig (lr_policy_gpu_sig() of the
 *     cluster trained on, 16 hex digits: what gpus does not tell, the
 *     devices' specifications; as gpus); net-sig (lr_policy_net_sig()
 *     of the network trained on, 16 hex digits; as gpus)
 *   "\n"
 *   the agent as lr_ppo_encode() writes it (its own magic, version,
 *     sizes, big-endian IEEE weights, FNV-1a 64 checksum)
 *   8 bytes: FNV-1a 64 of everything before them, big-endian.
 * Load checks the checksum, the version, every key, and that the agent's
 * sizes match the environment it describes.
 *
 * Ownership: lr_policy_load() returns an agent the caller frees with
 * lr_ppo_free().  Functions return 0 or a positive errno value with one
 * line in err[].
 */
#ifndef LR_POLICY_FILE_H
#define LR_POLICY_FILE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "planner/lr_jenv.h"
#include "planner/lr_ppo.h"

#define LR_POLICY_VERSION 1

struct lr_policy_meta {
    char models[256], demands[128];
    double batch, micro, block_penalty;
    int k;
    /* The holding-time mode trained under (header key "holding"; files
     * without the key were trained under exp). */
    enum lr_jenv_holding holding_mode;
    /* Trained with the refusal action (header key "refuse", 0 or 1;
     * files without the key have none). */
    bool refuse;
    /* The GPU shares trained with (header key "splits"; n_splits = 0:
     * the default 1/2, and no key is written). */
    int n_splits;
    struct lr_jenv_split splits[LR_JENV_MAX_SPLITS];
    char topology[64], dcs[512];
    /* The GPUs of each DC, in the order of dcs (header key "gpus",
     * lr_policy_gpus()'s text): the inventory it was trained on, which
     * DC names alone do not tell (nsfnet6.json and nsfnet6-equal.json
     * name the same DCs).  "" for files written before the key: not
     * checked. */
    char gpus[1024];
    /* The specifications of each DC's compute (header key "gpu-sig",
     * lr_policy_gpu_sig()): what the time model reads of the devices and
     * the DC, which a type's name does not tell (an "H100-80GB" of
     * another memory or speed).  "" for files written before the key:
     * not checked. */
    char gpu_sig[24];
    /* The network's signature (header key "net-sig", lr_policy_net_sig()):
     * the ROADMs, the links with their length and slots, and the ROADM
     * each DC attaches to, which the topology's name does not tell (an
     * edited "metro" keeps its name).  "" for files written before the
     * key: not checked. */
    char net_sig[24];
    int n_obs, n_act;
    char command[1024];
    /* The policy imitated before PPO (header key "teacher", a baseline's
     * name) and the decisions of imitation ("imitate"); imitate = 0 and
     * no keys written: PPO alone. */
    char teacher[64];
    long imitate;
    /* Trained observing each job's length (header key "known-work", 1;
     * no key: not). */
    bool known_work;
    /* Trained observing the GPU-time running jobs hold per DC (header
     * key "held-work", 1; no key: not). */
    bool held_work;
    /* Trained with candidates over three DCs (header key "triples", 1;
     * no key: not). */
    bool triples;
    /* Trained with candidates over four DCs (header key "quads", 1; no
     * key: not). */
    bool quads;
    /* Trained observing the load estimate (header key "observe-load",
     * 1; no key: not). */
    bool observe_load;
    /* Filled by lr_policy_load (ignored by save): the file's trailer,
     * FNV-1a 64 of everything before it, which names this exact file
     * (lightraild shows it, lightrail-state's ppo-policy). */
    uint64_t checksum;
};

/* Writes atomically (a temporary file renamed over 'path'). */
int lr_policy_save(const char *path, const struct lr_policy_meta *,
                   const struct lr_ppo *, char *err, size_t errlen);
int lr_policy_load(const char *path, struct lr_policy_meta *,
                   struct lr_ppo **out, char *err, size_t errlen);
/* What lr_policy_load does once the file is read: the n bytes of buf
 * (the caller's, only read) checked and decoded; 'name' starts every
 * error line (the path, for a file). */
int lr_policy_parse(const uint8_t *buf, size_t n, const char *name,
                    struct lr_policy_meta *, struct lr_ppo **out, char *err,
                    size_t errlen);

/* Loads the policy file at 'path' and writes what it says of itself to
 * 'out', one "key  value" line each (checksum, topology and DCs, job
 * mix, holding, refusal, known and held work, sizes, teacher, command):
 * what lightraild shows of the policy in use (lightrail-state's
 * ppo-policy), for a file on disk.  0, or the error of lr_policy_load. */
int lr_policy_describe(FILE *out, const char *path, char *err,
                       size_t errlen);
/* The names of the DCs of 'cl' in order, "dc1,dc2,dc3": what the header
 * key "dcs" holds. */
void lr_policy_dcs(const struct lr_cluster *cl, char *out, size_t len);
/* The GPUs of every DC of 'cl' in order, "16 A100-80GB,32 V100-32GB":
 * what the header key "gpus" holds. */
void lr_policy_gpus(const struct lr_cluster *cl, char *out, size_t len);
/* The signature of the compute of 'cl' (16 hex digits and a NUL in
 * out[17]): FNV-1a 64 of each DC's device type's peak FLOP/s, efficiency
 * and memory, and the DC's intra-DC bandwidth and latency, in order of
 * the DCs: what the PPO environment's time model (lr_tm_new) takes of
 * the cluster besides the GPU counts.  What the header key "gpu-sig"
 * holds; names do not enter it. */
void lr_policy_gpu_sig(const struct lr_cluster *cl, char out[17]);
/* The signature of the network of 'topo' and 'cl' (16 hex digits and a
 * NUL in out[17]): FNV-1a 64 of the number of ROADMs, each link's ends,
 * length and slots, and each DC's ROADM, in order.  What the header key
 * "net-sig" holds; names of links and ROADMs do not enter it. */
void lr_policy_net_sig(const struct lr_topo *topo, const struct lr_cluster *cl,
                       char out[17]);
/* Whether the network of 'topo' and 'cl' is the one 'm' was trained on:
 * its topology and DC names (header keys topology and dcs), then the
 * header keys gpus, gpu-sig and net-sig (a file without one is not
 * checked by it): what lightraild and `lightrail sim` both ask before
 * using a policy.  For the first that differs, LR_POLICY_NET_NAMES with
 * "'TOPOLOGY' with DCs A,B" in here[len], LR_POLICY_NET_GPUS with this
 * network's lr_policy_gpus(), LR_POLICY_NET_GPU_SIG with its
 * lr_policy_gpu_sig(), or LR_POLICY_NET_SIG with its lr_policy_net_sig();
 * lr_policy_net_why() says it. */
enum lr_policy_net { LR_POLICY_NET_SAME, LR_POLICY_NET_NAMES,
                     LR_POLICY_NET_GPUS, LR_POLICY_NET_GPU_SIG,
                     LR_POLICY_NET_SIG };
enum lr_policy_net lr_policy_net_diff(const struct lr_policy_meta *m,
                                      const struct lr_topo *topo,
                                      const struct lr_cluster *cl, char *here,
                                      size_t len);
/* What differs, for lr_policy_net_diff()'s answer 'd' and its 'here',
 * into buf[len]: "trained for ..., SIDE has ..." or "trained for ...
 * (signature ..., SIDE's ...: what the signature covers)", SIDE naming
 * this end ("this controller", "this network"); each caller adds its own
 * advice.  "" for LR_POLICY_NET_SAME. */
void lr_policy_net_why(const struct lr_policy_meta *m, enum lr_policy_net d,
                       const char *here, const char *side, char *buf,
                       size_t len);
/* The line "trained     on TOPOLOGY, holding H; refusal yes|no, known
 * work ..., held work ...", which lr_policy_describe and `lightrail
 * policy show` (from lightraild's state) both print. */
void lr_policy_print_trained(FILE *out, const char *topology,
                             const char *holding, bool refuse,
                             bool known_work, bool held_work);

#endif
