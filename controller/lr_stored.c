/* lr_stored: see lr_stored.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/lr_store.h"
#include "controller/lr_stored.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"

bool
lr_stored_network(struct ly_ctx *ly, const char *db, char **topo_json,
                  char **cluster_json, struct lr_topo **topo,
                  struct lr_cluster **cluster)
{
    struct lr_store *st = NULL;
    char err[1024];
    bool ok = false;
    if (access(db, F_OK) || lr_store_open(db, &st, err, sizeof err))
        return false;
    if (!lr_store_get_doc(st, "topology", topo_json)
        && !lr_store_get_doc(st, "cluster", cluster_json)
        && !lr_yang_load_topo_mem(ly, *topo_json, strlen(*topo_json),
                                  "stored topology", topo, err, sizeof err)
        && !lr_yang_load_cluster_mem(ly, *cluster_json,
                                     strlen(*cluster_json), "stored inventory",
                                     cluster, err, sizeof err))
        ok = true;
    lr_store_close(st);
    if (!ok) {
        free(*topo_json);
        free(*cluster_json);
        *topo_json = *cluster_json = NULL;
        lr_topo_free(*topo);
        *topo = NULL;
    }
    return ok;
}
