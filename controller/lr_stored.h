/*
 * lr_stored: the network a state directory's store holds.  The topology
 * and inventory files seed a new state directory; after that the store
 * holds the network (a PUT changes it there), and lightraild and
 * lightrail-check both read it from there.
 */
#ifndef LR_STORED_H
#define LR_STORED_H 1

#include <stdbool.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "planner/lr_topo.h"

/* True with the stored topology and inventory loaded (their JSON texts
 * in '*topo_json' and '*cluster_json', the caller frees all four), false
 * when the store at 'db' does not exist or holds no network that loads
 * (nothing returned): use the files. */
bool lr_stored_network(struct ly_ctx *ly, const char *db, char **topo_json,
                       char **cluster_json, struct lr_topo **topo,
                       struct lr_cluster **cluster);

#endif
