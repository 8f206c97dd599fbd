/* lr_stored: see lr_stored.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "controller/lr_store.h"
#include "controller/lr_stored.h"
#include "planner/lr_utf8.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"

/* The refusal of a stored network that does not load: what is wrong
 * ('fmt'), then why the files are not taken instead and what to do. */
static int __attribute__((format(printf, 5, 6)))
damaged(const char *db, char *err, size_t errlen, int code,
        const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "store %s: %s: its jobs were planned on that "
             "network, so the configuration's topology-file and "
             "inventory-file are not taken in its place; restore the state "
             "directory from a backup, or, if those files describe the same "
             "network, remove the stored one (sqlite3 %s \"DELETE FROM docs "
             "WHERE key IN ('topology', 'cluster')\") and the files seed it "
             "again (no device was touched)", db, what, db);
    return code;
}

/* '*json' (malloc'ed) without the top-level members other than 'key',
 * if it has any.  lightraild before 2026-12-06 took a PUT of the
 * topology or inventory with another module's data beside it (the
 * inventory, jobs, ietf-yang-library's state), ignored it and stored
 * the body as sent; the loaders now refuse such a document, and a store
 * that holds one would otherwise stop the start.  What is dropped was
 * never read.  A text that does not parse, or lacks 'key', is left as
 * it is for the loader to refuse in its own words.  0 or ENOMEM. */
static int
own_member_only(char **json, const char *key)
{
    json_object *doc = json_tokener_parse(*json), *own = NULL;
    int rc = 0;
    if (!doc || !json_object_is_type(doc, json_type_object)
        || !json_object_object_get_ex(doc, key, &own)
        || json_object_object_length(doc) == 1)
        goto cleanup;
    json_object *clean = json_object_new_object();
    char *text = NULL;
    if (clean && !json_object_object_add(clean, key, json_object_get(own)))
        text = strdup(json_object_to_json_string_ext(clean,
                                                     JSON_C_TO_STRING_PLAIN));
    json_object_put(clean);
    if (!text) {
        rc = ENOMEM;
        goto cleanup;
    }
    free(*json);
    *json = text;

cleanup:
    json_object_put(doc);
    return rc;
}

int
lr_stored_network(struct ly_ctx *ly, const char *db, char **topo_json,
                  char **cluster_json, struct lr_topo **topo,
                  struct lr_cluster **cluster, char *err, size_t errlen)
{
    struct lr_store *st = NULL;
    char e[1024];
    int rc, rc_topo, rc_cluster;
    *topo_json = *cluster_json = NULL;
    *topo = NULL;
    *cluster = NULL;
    if (access(db, F_OK)) {
        snprintf(err, errlen, "no store %s", db);
        return ENOENT;
    }
    if ((rc = lr_store_open(db, &st, e, sizeof e))) {
        snprintf(err, errlen, "%s", e);
        return rc == ENOENT ? EIO : rc;     /* ENOENT: use the files */
    }
    rc_topo = lr_store_get_doc(st, "topology", topo_json);
    if (rc_topo && rc_topo != ENOENT) {
        rc = damaged(db, err, errlen, EIO, "cannot read its topology: %s",
                     lr_store_error(st));
        goto cleanup;
    }
    rc_cluster = lr_store_get_doc(st, "cluster", cluster_json);
    if (rc_cluster && rc_cluster != ENOENT) {
        rc = damaged(db, err, errlen, EIO, "cannot read its inventory: %s",
                     lr_store_error(st));
        goto cleanup;
    }
    /* Neither: a store that never held a network (the files seed it). */
    if (rc_topo == ENOENT && rc_cluster == ENOENT) {
        snprintf(err, errlen, "store %s holds no network", db);
        rc = ENOENT;
        goto cleanup;
    }
    if (rc_topo || rc_cluster) {
        rc = damaged(db, err, errlen, EINVAL, "it holds %s but no %s",
                     rc_topo ? "an inventory" : "a topology",
                     rc_topo ? "topology" : "inventory");
        goto cleanup;
    }
    if (own_member_only(topo_json, "ietf-network:networks")
        || own_member_only(cluster_json, "lightrail-compute:compute")) {
        snprintf(err, errlen, "store %s: out of memory", db);
        rc = ENOMEM;
        goto cleanup;
    }
    if (lr_yang_load_topo_mem(ly, *topo_json, strlen(*topo_json),
                              "stored topology", topo, e, sizeof e)
        || lr_yang_load_cluster_mem(ly, *cluster_json, strlen(*cluster_json),
                                    "stored inventory", cluster, e,
                                    sizeof e)) {
        rc = damaged(db, err, errlen, EINVAL, "its network does not load: "
                     "%s", LR_UTF8_CLIP(e, 500));
        goto cleanup;
    }
    rc = 0;

cleanup:
    lr_store_close(st);
    if (rc) {
        free(*topo_json);
        free(*cluster_json);
        *topo_json = *cluster_json = NULL;
        lr_topo_free(*topo);
        *topo = NULL;
    }
    return rc;
}
