/*
 * lr_yang: Lightrail's YANG modules and the glue between libyang data
 * trees and planner structs.
 *
 * The modules (lightrail-topology, lightrail-compute, lightrail-model,
 * lightrail-job, lightrail-state, lightrail-config, lightrail-agent,
 * and the RFC 8345 ietf-network modules they augment) are compiled into
 * the binary, so a context needs no search path at run time; a context
 * also implements libyang's own ietf-yang-library.  This
 * header covers the network, compute and model files; yang/lr_yang_job.h
 * the daemon's jobs, state and configuration; yang/lr_yang_agent.h a DC
 * agent's configuration; yang/lr_yang_restconf.h the YANG library and
 * RESTCONF's API resource.  libyang
 * stays behind this header: callers get planner structs
 * (planner/lr_topo.h, planner/lr_cluster.h, planner/lr_model.h) or JSON
 * text, never a data tree.
 *
 * Files are RFC 7951 JSON.  Loading is strict: an unknown member is an
 * error, not silently dropped.  Beyond what the schemas say, the loaders
 * check what YANG cannot express (one lightrail-optical network per file,
 * no self-looping links, a DC attached to one node only, names that fit
 * LR_NAME_MAX, spectra within the flexgrid range, an inter-DC pair linked
 * once) and report those in the same form as libyang's errors.
 *
 * Errors: functions return 0 or a positive errno value (EINVAL for data
 * that does not validate, ENOENT and friends from opening a file, ENOMEM)
 * and, when 'err' is not NULL, write one line without a trailing newline
 * into err[errlen]:
 *     FILE: DATA-PATH: reason
 * e.g. "nsfnet.json: /ietf-network:networks/network[network-id='nsfnet']/
 * ietf-network-topology:link[link-id='WA-XX']/destination/dest-node:
 * Invalid leafref value ...".  When no data path is known (an unreadable
 * file, JSON that breaks off) the middle part is "line N" or omitted.
 *
 * Contexts: one context may serve any number of loads, from one thread at
 * a time (libyang keeps the last errors per context and thread).
 */
#ifndef LR_YANG_H
#define LR_YANG_H 1

#include <stddef.h>

struct ly_ctx;
struct lr_topo;
struct lr_cluster;
struct lr_model;

/* The flexgrid n of slot 0's centre when a link does not say: the default
 * of lightrail-topology's first-slot-n (see its description). */
#define LR_YANG_FIRST_SLOT_N_DEFAULT (-291)

/* The flexgrid n a link's slot centres may take.  193.1 THz + n x 6.25 GHz
 * with n = -30894 is the lowest centre whose slot (6.25 GHz either side)
 * stays above 0 Hz; the top keeps n + 1 inside int for the planner. */
#define LR_YANG_N_MIN (-30894)
#define LR_YANG_N_MAX 2147483646

/* The longest link lightrail-topology accepts (length-km's range). */
#define LR_YANG_LENGTH_KM_MAX 100000.0

/* Files larger than this are refused (EFBIG) before parsing. */
#define LR_YANG_MAX_FILE (64u << 20)

/* Creates a libyang context with every embedded module and libyang's
 * ietf-yang-library implemented and stores it in '*ctxp'.  The caller
 * frees it with lr_yang_ctx_free().
 *
 * Sets libyang's process-wide log options to LY_LOSTORE (store errors,
 * print nothing): every error reaches the caller through 'err' instead,
 * as one line.  A program that wants libyang's own log lines may set its
 * options again afterwards; the loaders clean the stored errors of their
 * context before each use. */
int lr_yang_ctx_new(struct ly_ctx **ctxp, char *err, size_t errlen);
void lr_yang_ctx_free(struct ly_ctx *);

/* Loads the lightrail-topology file 'path' into a new lr_topo stored in
 * '*out' (NULL on error).  The caller frees it with lr_topo_free(). */
int lr_yang_load_topo(struct ly_ctx *, const char *path,
                      struct lr_topo **out, char *err, size_t errlen);

/* Same, from the 'len' bytes at 'data' (need not be NUL-terminated; an
 * embedded NUL byte is an error).  'name' stands for the file in error
 * messages. */
int lr_yang_load_topo_mem(struct ly_ctx *, const char *data, size_t len,
                          const char *name, struct lr_topo **out,
                          char *err, size_t errlen);

/* Loads a lightrail-compute file into a new lr_cluster stored in '*out'
 * (NULL on error), converting units to SI.  The caller frees it with
 * lr_cluster_free(). */
int lr_yang_load_cluster(struct ly_ctx *, const char *path,
                         struct lr_cluster **out, char *err, size_t errlen);
int lr_yang_load_cluster_mem(struct ly_ctx *, const char *data, size_t len,
                             const char *name, struct lr_cluster **out,
                             char *err, size_t errlen);

/* Loads a lightrail-model file into a new lr_model stored in '*out' (NULL
 * on error): a transformer shape becomes its layers (planner/lr_model.h's
 * formulas; kv-heads defaults to heads), explicit layers are taken in
 * index order, GFLOP converted to FLOP.  Explicit layers must be numbered
 * 1..n without gaps, which YANG cannot say; a gap is reported at the
 * first layer past n, e.g. "toy.json: /lightrail-model:model/
 * layer[index='4']: layer indices must run from 1 to 3 without gaps; 3
 * is missing".  The caller frees the model with lr_model_free(). */
int lr_yang_load_model(struct ly_ctx *, const char *path,
                       struct lr_model **out, char *err, size_t errlen);
int lr_yang_load_model_mem(struct ly_ctx *, const char *data, size_t len,
                           const char *name, struct lr_model **out,
                           char *err, size_t errlen);

/* Checks that a topology and a cluster loaded from separate files agree:
 * every DC's attachment-node is a node of 'topo', and a DC that both name
 * is attached to the same node by both.  'topo_name' and 'cluster_name'
 * stand for the files in the error message. */
int lr_yang_check_attachments(const struct lr_topo *, const char *topo_name,
                              const struct lr_cluster *,
                              const char *cluster_name,
                              char *err, size_t errlen);

/* Reads the whole file 'path' into a new NUL-terminated buffer stored in
 * '*buf' ('*len' excludes the NUL), with the loaders' limit (EFBIG) and
 * error form ("FILE: reason").  The caller frees it with free(). */
int lr_yang_read_file(const char *path, char **buf, size_t *len,
                      char *err, size_t errlen);

/* Prints 'topo' as lightrail-topology RFC 7951 JSON (indented, ending in a
 * newline) into a new string stored in '*out' (NULL on error).  The tree
 * is validated first, so the text loads back with lr_yang_load_topo().
 * The caller frees it with free(). */
int lr_yang_topo_to_json(struct ly_ctx *, const struct lr_topo *,
                         char **out, char *err, size_t errlen);

#endif
