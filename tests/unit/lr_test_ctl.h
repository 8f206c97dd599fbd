/*
 * What the controller-core tests share: the metro network (topology and
 * inventory from examples/) loaded once, a scratch directory for the
 * store and the dummy ROADMs made by lr_test_ctl_setup() and removed by
 * lr_test_ctl_teardown(), a controller opened over them, the media
 * channels the dummy ROADMs hold, and the check that memory, store and
 * devices agree.
 *
 * Every function is static inline: a test that takes only some of them
 * (test_ctl_mnoptical.c, with its own network and double, takes the
 * store's globals and lr_test_ctl_db_exec()) is not warned of the rest.
 */
#ifndef LR_TEST_CTL_H
#define LR_TEST_CTL_H 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "controller/lr_ctl.h"
#include "tests/lr_test.h"
#include "yang/lr_yang.h"

static struct ly_ctx *ly;
static struct lr_topo *topo;
static struct lr_cluster *cluster;
static char dir[128], db[200], devdir[200];

/* The scratch directory /tmp/lr-test-NAME-XXXXXX and the network. */
static inline int
lr_test_ctl_setup(const char *name)
{
    char err[1024];
    snprintf(dir, sizeof dir, "/tmp/lr-test-%s-XXXXXX", name);
    if (!mkdtemp(dir))
        return 1;
    snprintf(db, sizeof db, "%s/lightrail.db", dir);
    snprintf(devdir, sizeof devdir, "%s/devices", dir);
    if (lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_topo(ly, src("examples/topologies/metro.json"), &topo,
                             err, sizeof err)
        || lr_yang_load_cluster(ly, src("examples/clusters/metro.json"),
                                &cluster, err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        return 1;
    }
    return 0;
}

static inline int
lr_test_ctl_teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: could not remove %s\n", dir);
    lr_topo_free(topo);
    lr_cluster_free(cluster);
    lr_yang_ctx_free(ly);
    return 0;
}

/* lr_ctl_new() over 'cfg' with the network, dummy ROADMs in devdir and,
 * unless 'cfg' names another, the store db; the test stops if it fails. */
static inline struct lr_ctl *
lr_test_ctl_open(struct lr_ctl_config *cfg)
{
    cfg->topo = topo;
    cfg->cluster = cluster;
    cfg->default_driver = "dummy";
    cfg->dummy_dir = devdir;
    if (!cfg->db_path)
        cfg->db_path = db;
    struct lr_ctl *c = NULL;
    char err[1024], *report = NULL;
    int rc = lr_ctl_new(cfg, &c, &report, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_ctl_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    free(report);
    return c;
}

/* Dummy ROADM 'node' (NULL: every ROADM of the network) fails its
 * applies as 'mode' says ("always", "once", "timeout"; sb_dummy.c), or,
 * mode NULL, no longer. */
static inline void
lr_test_ctl_fail(const char *node, const char *mode)
{
    for (int i = 0; i < topo->n_nodes; i++) {
        const char *name = node ? node : topo->nodes[i].name;
        char path[600];
        snprintf(path, sizeof path, "%s/%s.fail", devdir, name);
        if (!mode) {
            unlink(path);
        } else {
            FILE *f = fopen(path, "w");
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            fprintf(f, "%s\n", mode);
            fclose(f);
        }
        if (node)
            break;
    }
}

/* Channels on dummy ROADM 'node' (in devdir) whose name starts with
 * 'prefix', read through the driver; -1 when the ROADM cannot be
 * opened. */
static inline int
lr_test_ctl_channels_on(const char *node, const char *prefix)
{
    struct sb_device_config dc = { .driver = "dummy" };
    snprintf(dc.name, sizeof dc.name, "%s", node);
    snprintf(dc.address, sizeof dc.address, "%s", devdir);
    struct sb_device *d;
    struct sb_media_channel *mc = NULL;
    int n = 0, count = 0;
    char err[256];
    if (sb_dummy_class.open(&dc, &d, err, sizeof err))
        return -1;
    if (!sb_dummy_class.read(d, &mc, &n, err, sizeof err))
        for (int i = 0; i < n; i++)
            count += !strncmp(mc[i].name, prefix, strlen(prefix));
    free(mc);
    sb_dummy_class.close(d);
    return count;
}

/* The same over every ROADM of the network; -1 when one of them cannot
 * be opened. */
static inline int
lr_test_ctl_channels(const char *prefix)
{
    int total = 0;
    for (int i = 0; i < topo->n_nodes; i++) {
        int n = lr_test_ctl_channels_on(topo->nodes[i].name, prefix);
        if (n < 0)
            return -1;
        total += n;
    }
    return total;
}

/* The intent the controller tests submit: job 'name' of 'model' on
 * gmin..gmax GPUs, batch 32 in micro-batches of 1, planned by
 * 'algorithm'. */
static inline struct lr_intent
lr_test_ctl_intent(const char *name, const char *model, int gmin, int gmax,
                   const char *algorithm)
{
    struct lr_intent in = { .batch = 32, .micro = 1, .gpus_min = gmin,
                            .gpus_max = gmax };
    /* Cut to each field's size, said, so that GCC at -O2 sees no
     * truncation to warn of where a caller's buffer is longer. */
    snprintf(in.name, sizeof in.name, "%.*s", (int) sizeof in.name - 1,
             name);
    snprintf(in.model, sizeof in.model, "%.*s", (int) sizeof in.model - 1,
             model);
    snprintf(in.algorithm, sizeof in.algorithm, "%.*s",
             (int) sizeof in.algorithm - 1, algorithm);
    return in;
}

/* A copy of the test cluster with dc2 (dcs[1]) planned by an agent
 * nobody serves (port 1 of loopback, named as the DC), and the
 * coordinator's self-signed certificate and key made in directory
 * 'where' (coordinator.pem, coordinator.key), their paths in cert[200]
 * and key[200]; NULL when no certificate can be made (the test is then
 * skipped, said on stderr).  The caller frees the copy with
 * lr_cluster_free(). */
static inline struct lr_cluster *
lr_test_ctl_remote_dc2(const char *where, char *key, char *cert)
{
    snprintf(key, 200, "%s/coordinator.key", where);
    snprintf(cert, 200, "%s/coordinator.pem", where);
    if (lr_test_self_signed(key, cert, "coordinator"))
        return NULL;
    struct lr_cluster *remote = lr_cluster_clone(cluster);
    CU_ASSERT_PTR_NOT_NULL_FATAL(remote);
    snprintf(remote->dcs[1].remote_address,
             sizeof remote->dcs[1].remote_address, "127.0.0.1");
    remote->dcs[1].remote_port = 1;
    snprintf(remote->dcs[1].remote_name, sizeof remote->dcs[1].remote_name,
             "%s", remote->dcs[1].name);
    return remote;
}

/* Runs 'sql' on the store 'path' while no controller has it open (the
 * store locks the file for its own connection); the test stops if it
 * fails, with SQLite's words on stderr. */
static inline void
lr_test_ctl_db_exec(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &h), SQLITE_OK);
    int rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        fprintf(stderr, "db_exec: %s\n", sqlite3_errmsg(h));
    sqlite3_close(h);
    CU_ASSERT_EQUAL_FATAL(rc, SQLITE_OK);
}

static inline void
assert_consistent(struct lr_ctl *c)
{
    char err[1024];
    int rc = lr_ctl_check(c, err, sizeof err);
    if (rc)
        fprintf(stderr, "check: %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
}

#endif
