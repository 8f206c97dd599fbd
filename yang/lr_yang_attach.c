/*
 * lr_yang_attach: a topology file and a compute file must tell the same
 * story about where data centers attach.  See lr_yang.h.
 *
 * The two modules are loaded from separate files, so no leafref can join
 * them; the check runs on the planner structs and reports the data path
 * in the compute file, where an operator would fix it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "planner/lr_cluster.h"
#include "planner/lr_topo.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

int
lr_yang_check_attachments(const struct lr_topo *t, const char *topo_name,
                          const struct lr_cluster *c,
                          const char *cluster_name, char *err, size_t errlen)
{
    char path[LR_NAME_MAX + 64];

    for (int i = 0; i < c->n_dcs; i++) {
        const struct lr_dc *dc = &c->dcs[i];
        if (!dc->attach_node[0])
            continue;
        /* XPath has no escapes: quote with whichever quote the name
         * lacks, as libyang's own paths do. */
        char q = strchr(dc->name, '\'') ? '"' : '\'';
        snprintf(path, sizeof path,
                 "/lightrail-compute:compute/dc[name=%c%s%c]/attachment-node",
                 q, dc->name, q);
        int node = lr_topo_find_node(t, dc->attach_node);
        if (node < 0) {
            lr_yang_errf(err, errlen, cluster_name, path,
                         "node '%s' is not in topology %s", dc->attach_node,
                         topo_name);
            return EINVAL;
        }
        int there = lr_topo_dc_node(t, dc->name);
        if (there >= 0 && there != node) {
            lr_yang_errf(err, errlen, cluster_name, path,
                         "node '%s' disagrees with topology %s, which "
                         "attaches DC '%s' to node '%s'", dc->attach_node,
                         topo_name, dc->name, t->nodes[there].name);
            return EINVAL;
        }
    }
    return 0;
}
