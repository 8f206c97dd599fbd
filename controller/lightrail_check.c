/*
 * lightrail-check: judge a stopped controller's state directory.
 *
 *     lightrail-check --config FILE
 *
 * Opens the store and the devices the configuration names without
 * recovering anything (lr_ctl inspect mode) and checks the invariants of
 * lr_ctl_check(): no job left in provisioning or releasing, what the
 * store reserves equals what the active jobs hold, no slot held twice,
 * every active job's channels on its ROADMs and no orphan channel.
 * Exit 0 when all hold, 1 with the first violation on stderr, 2 for bad
 * input.  The crash test runs it after every kill -9 and restart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/lr_ctl.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"

int
main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--config") && strcmp(argv[1], "-c"))) {
        fprintf(stderr, "usage: lightrail-check --config FILE\n");
        return 2;
    }
    struct ly_ctx *ly = NULL;
    struct lr_config *cfg = calloc(1, sizeof *cfg);
    struct lr_topo *topo = NULL;
    struct lr_cluster *cl = NULL;
    struct lr_ctl *ctl = NULL;
    char err[2048];
    int rc = 2;
    if (!cfg || lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_config(ly, argv[2], cfg, err, sizeof err)
        || lr_yang_load_topo(ly, cfg->topology_file, &topo, err, sizeof err)
        || lr_yang_load_cluster(ly, cfg->cluster_file, &cl, err,
                                sizeof err)) {
        fprintf(stderr, "lightrail-check: %s\n", cfg ? err : "out of memory");
        goto cleanup;
    }
    char db[LR_CONFIG_PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/lightrail.db", cfg->state_dir);
    struct lr_ctl_config cc = {
        .db_path = db, .topo = topo, .cluster = cl,
        .default_driver = cfg->default_driver, .dummy_dir = cfg->dummy_dir,
        .devices = cfg->devices, .n_devices = cfg->n_devices,
        .terminals = cfg->terminals, .n_terminals = cfg->n_terminals,
        .inspect = true,
    };
    rc = 1;
    if (lr_ctl_new(&cc, &ctl, NULL, err, sizeof err)
        || lr_ctl_check(ctl, err, sizeof err)) {
        fprintf(stderr, "lightrail-check: %s\n", err);
        goto cleanup;
    }
    rc = 0;

cleanup:
    lr_ctl_free(ctl);
    lr_topo_free(topo);
    lr_cluster_free(cl);
    lr_yang_ctx_free(ly);
    free(cfg);
    return rc;
}
