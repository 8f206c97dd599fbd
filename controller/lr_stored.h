/*
 * lr_stored: the network a state directory's store holds.  The topology
 * and inventory files seed a new state directory; after that the store
 * holds the network (a PUT changes it there), and lightraild and
 * lightrail-check both read it from there, and refuse a store whose
 * network does not load rather than take the files.
 */
#ifndef LR_STORED_H
#define LR_STORED_H 1

#include <stddef.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "planner/lr_topo.h"

/* 0 with the stored topology and inventory loaded (their JSON texts in
 * '*topo_json' and '*cluster_json', the caller frees all four).  ENOENT
 * when the store at 'db' does not exist or holds no network, neither
 * document: use the files (a new state directory, which they seed).
 * Else the store does not open (its error in err[]), or holds a network
 * that does not load, or half of one (EIO, EINVAL): err[] says what,
 * and what to do; the caller must not start on the files instead, as
 * the stored jobs were planned on the stored network.  Nothing is
 * returned but with 0. */
int lr_stored_network(struct ly_ctx *ly, const char *db, char **topo_json,
                      char **cluster_json, struct lr_topo **topo,
                      struct lr_cluster **cluster, char *err, size_t errlen);

#endif
