/*
 * lightrail topo: convert node-link benchmark topologies to
 * lightrail-topology YANG JSON, and check topology files.
 *
 * The node-link format is what NetworkX's node_link_data() writes and what
 * the RMSA benchmarks ship (XLRON, optical-rl-gym):
 *     { "directed": true, "multigraph": false, "graph": {},
 *       "nodes": [ { "id": 1, "name": "WA", ... }, ... ],
 *       "links": [ { "source": 1, "target": 2, "distance": 1050 }, ... ] }
 * Node ids are integers (1-based in the benchmarks, but any distinct
 * integers do); distance is in km.  Members we do not use (coordinates,
 * "graph") are ignored; everything we use is checked, and an error names
 * the JSON Pointer (RFC 6901) of the offending value.
 *
 * The converted topology goes through lr_yang_topo_to_json(), which
 * validates it against the schema, and is then loaded back with the
 * loader before it is printed: what import prints, check accepts.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "planner/lr_bitset.h"
#include "planner/lr_cluster.h"
#include "planner/lr_topo.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "yang/lr_yang.h"

#define TOPO_ERR_MAX 2048
#define TOPO_DEFAULT_SLOTS 100

struct topo_import_opts {
    const char *file;
    const char *name;          /* network-id; NULL: the file's base name */
    long slots;
    long first_slot_n;
};

static void
topo_usage(FILE *f)
{
    fprintf(f,
        "usage: lightrail topo import FILE.json [--name ID] [--slots N]\n"
        "                                       [--first-slot-n N]\n"
        "       lightrail topo check FILE.json [--cluster COMPUTE.json]\n"
        "\n"
        "import  converts a node-link topology (NetworkX node_link_data, as\n"
        "        the RMSA benchmarks ship them: nodes[] with integer id and\n"
        "        optional name, links[] with source, target and distance in\n"
        "        km) into lightrail-topology YANG JSON on stdout.  Nodes are\n"
        "        named by their name, or n<id>; link SRC->DST is \"SRC-DST\";\n"
        "        an undirected input gets both directions.\n"
        "          --name ID          network-id (default: the file name\n"
        "                             without directory and .json)\n"
        "          --slots N          12.5 GHz slots per link, 1 to 1024\n"
        "                             (default %d)\n"
        "          --first-slot-n N   flexgrid n of slot 0's centre\n"
        "                             (default %d: 191.28125 THz)\n"
        "check   loads a lightrail-topology file as the controller would and\n"
        "        prints a one-line summary; with --cluster, also checks that\n"
        "        the compute file's DCs attach to nodes of the topology.\n"
        "\n"
        "Errors are one line, \"lightrail topo: FILE: PATH: reason\", and\n"
        "exit with status 2.\n",
        TOPO_DEFAULT_SLOTS, LR_YANG_FIRST_SLOT_N_DEFAULT);
}

/* Parses a whole decimal integer in [min, max] (lr_parse_long: digits
 * and a sign, nothing around them). */
static int
topo_parse_long(const char *opt, const char *val, long min, long max,
                long *out)
{
    if (lr_parse_long(val, min, max, out)) {
        lr_cli_err("topo", "%s: '%s' is not an integer from %ld to %ld",
                   opt, val, min, max);
        return LR_EXIT_USAGE;
    }
    return 0;
}

/* Formats "FILE: PATH: reason" into err, on one line whatever the names
 * quoted in it hold; returns EINVAL. */
static int
__attribute__((format(printf, 5, 6)))
topo_err(char *err, size_t errlen, const char *file, const char *path,
         const char *fmt, ...)
{
    int n = snprintf(err, errlen, "%s: %s: ", file, path);
    if (n >= 0 && (size_t) n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - n, fmt, ap);
        va_end(ap);
    }
    for (unsigned char *p = (unsigned char *) err; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return EINVAL;
}

/* Parses the whole buffer as one strict JSON value. */
static int
topo_parse_json(const char *file, const char *buf, size_t len,
                struct json_object **out, char *err, size_t errlen)
{
    struct json_tokener *tok = json_tokener_new();
    struct json_object *root = NULL;
    int ret = 0;

    *out = NULL;
    if (!tok) {
        snprintf(err, errlen, "%s: out of memory", file);
        return ENOMEM;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT
                                | JSON_TOKENER_VALIDATE_UTF8);
    if (len > INT_MAX) {
        snprintf(err, errlen, "%s: too large", file);
        ret = EFBIG;
        goto cleanup;
    }
    root = json_tokener_parse_ex(tok, buf, (int) len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    if (!root || jerr != json_tokener_success) {
        /* Point at the line and column where the tokenizer stopped. */
        size_t end = json_tokener_get_parse_end(tok), line = 1, col = 1;
        for (size_t i = 0; i < end && i < len; i++, col++)
            if (buf[i] == '\n') {
                line++;
                col = 0;
            }
        char where[64];
        snprintf(where, sizeof where, "line %zu, column %zu", line, col);
        ret = topo_err(err, errlen, file, where, "malformed JSON: %s",
                       jerr == json_tokener_continue
                           ? "unexpected end of data"
                           : json_tokener_error_desc(jerr));
        goto cleanup;
    }

cleanup:
    json_tokener_free(tok);
    if (ret) {
        json_object_put(root);
        root = NULL;
    }
    *out = root;
    return ret;
}

/* Member 'key' of object 'obj' with JSON type 'type'; NULL after writing
 * the error when it is missing (unless 'optional') or of another type. */
static struct json_object *
topo_member(struct json_object *obj, const char *path, const char *key,
            enum json_type type, int optional, const char *file,
            char *err, size_t errlen, int *ret)
{
    struct json_object *v = NULL;
    char p[128];

    snprintf(p, sizeof p, "%s/%s", path, key);
    if (!json_object_object_get_ex(obj, key, &v)) {
        if (!optional)
            *ret = topo_err(err, errlen, file, path, "missing \"%s\"", key);
        return NULL;
    }
    /* An integer is a number too. */
    int ok = json_object_is_type(v, type)
             || (type == json_type_double && json_object_is_type(v,
                                                             json_type_int));
    if (!ok) {
        *ret = topo_err(err, errlen, file, p, "must be %s, not %s",
                        type == json_type_int ? "an integer"
                        : type == json_type_double ? "a number"
                        : type == json_type_array ? "an array"
                        : type == json_type_string ? "a string"
                        : type == json_type_boolean ? "true or false"
                        : "an object",
                        json_type_to_name(json_object_get_type(v)));
        return NULL;
    }
    return v;
}

/* The index in 'ids' of node id 'id', or -1. */
static int
topo_find_id(const long long *ids, int n, long long id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return -1;
}

static int
topo_from_node_link(struct json_object *root, const struct topo_import_opts *o,
                    const char *name, struct lr_topo **out,
                    char *err, size_t errlen)
{
    const char *file = o->file;
    struct lr_topo *t = NULL;
    long long *ids = NULL;
    char path[64], lname[2 * LR_NAME_MAX + 2];
    int ret = 0;

    *out = NULL;
    if (!json_object_is_type(root, json_type_object)) {
        ret = topo_err(err, errlen, file, "/",
                       "must be a node-link object, not %s",
                       json_type_to_name(json_object_get_type(root)));
        goto cleanup;
    }
    /* NetworkX reads a file without "directed" as undirected. */
    struct json_object *v = topo_member(root, "", "directed",
                                        json_type_boolean, 1, file, err,
                                        errlen, &ret);
    if (ret)
        goto cleanup;
    int directed = v && json_object_get_boolean(v);
    v = topo_member(root, "", "multigraph", json_type_boolean, 1, file, err,
                    errlen, &ret);
    if (ret)
        goto cleanup;
    if (v && json_object_get_boolean(v)) {
        ret = topo_err(err, errlen, file, "/multigraph",
                       "multigraphs are not supported: give parallel fibres "
                       "their own nodes");
        goto cleanup;
    }
    struct json_object *nodes = topo_member(root, "", "nodes",
                                            json_type_array, 0, file, err,
                                            errlen, &ret);
    struct json_object *links = ret ? NULL
                                    : topo_member(root, "", "links",
                                                  json_type_array, 0, file,
                                                  err, errlen, &ret);
    if (ret)
        goto cleanup;

    t = lr_topo_new(name);
    size_t n_nodes = json_object_array_length(nodes);
    ids = calloc(n_nodes ? n_nodes : 1, sizeof *ids);
    if (!t || !ids || n_nodes > INT_MAX) {
        snprintf(err, errlen, "%s: out of memory", file);
        ret = ENOMEM;
        goto cleanup;
    }

    for (size_t i = 0; i < n_nodes; i++) {
        struct json_object *node = json_object_array_get_idx(nodes, i);
        char nname[LR_NAME_MAX + 32];
        snprintf(path, sizeof path, "/nodes/%zu", i);
        if (!json_object_is_type(node, json_type_object)) {
            ret = topo_err(err, errlen, file, path, "must be an object");
            goto cleanup;
        }
        struct json_object *id = topo_member(node, path, "id", json_type_int,
                                             0, file, err, errlen, &ret);
        struct json_object *nm = ret ? NULL
                                     : topo_member(node, path, "name",
                                                   json_type_string, 1, file,
                                                   err, errlen, &ret);
        if (ret)
            goto cleanup;
        ids[i] = json_object_get_int64(id);
        int dup = topo_find_id(ids, (int) i, ids[i]);
        if (dup >= 0) {
            ret = topo_err(err, errlen, file, path,
                           "id %lld is also the id of /nodes/%d", ids[i], dup);
            goto cleanup;
        }
        if (nm && strlen(json_object_get_string(nm))
                      != (size_t) json_object_get_string_len(nm)) {
            ret = topo_err(err, errlen, file, path,
                           "name contains a NUL character");
            goto cleanup;
        }
        if (nm)
            snprintf(nname, sizeof nname, "%s", json_object_get_string(nm));
        else
            snprintf(nname, sizeof nname, "n%lld", ids[i]);
        if (!nname[0] || strlen(nname) >= LR_NAME_MAX) {
            ret = topo_err(err, errlen, file, path,
                           "node name must be 1 to %d characters long",
                           LR_NAME_MAX - 1);
            goto cleanup;
        }
        int rc = lr_topo_add_node(t, nname);
        if (rc == EEXIST) {
            ret = topo_err(err, errlen, file, path,
                           "node name '%s' is used twice", nname);
            goto cleanup;
        } else if (rc) {
            ret = topo_err(err, errlen, file, path, "%s", strerror(rc));
            goto cleanup;
        }
    }

    size_t n_links = json_object_array_length(links);
    for (size_t i = 0; i < n_links; i++) {
        struct json_object *link = json_object_array_get_idx(links, i);
        snprintf(path, sizeof path, "/links/%zu", i);
        if (!json_object_is_type(link, json_type_object)) {
            ret = topo_err(err, errlen, file, path, "must be an object");
            goto cleanup;
        }
        struct json_object *src, *dst, *dist;
        if (!(src = topo_member(link, path, "source", json_type_int, 0, file,
                                err, errlen, &ret))
            || !(dst = topo_member(link, path, "target", json_type_int, 0,
                                   file, err, errlen, &ret))
            || !(dist = topo_member(link, path, "distance", json_type_double,
                                    0, file, err, errlen, &ret)))
            goto cleanup;
        int s = topo_find_id(ids, (int) n_nodes, json_object_get_int64(src));
        int d = topo_find_id(ids, (int) n_nodes, json_object_get_int64(dst));
        double km = json_object_get_double(dist);
        char p[96];
        if (s < 0 || d < 0) {
            snprintf(p, sizeof p, "%s/%s", path, s < 0 ? "source" : "target");
            ret = topo_err(err, errlen, file, p, "no node has id %lld",
                           (long long) json_object_get_int64(s < 0 ? src
                                                                   : dst));
            goto cleanup;
        }
        if (s == d) {
            ret = topo_err(err, errlen, file, path,
                           "link joins node %lld to itself", ids[s]);
            goto cleanup;
        }
        /* length-km has three fraction digits: anything shorter than a
         * metre would print as zero. */
        if (!isfinite(km) || km < 0.0005 || km > LR_YANG_LENGTH_KM_MAX) {
            snprintf(p, sizeof p, "%s/distance", path);
            ret = topo_err(err, errlen, file, p,
                           "must be a length in km greater than 0 and at "
                           "most %g, not %g", LR_YANG_LENGTH_KM_MAX, km);
            goto cleanup;
        }
        for (int dir = 0; dir < (directed ? 1 : 2); dir++) {
            int a = dir ? d : s, b = dir ? s : d;
            snprintf(lname, sizeof lname, "%s-%s", t->nodes[a].name,
                     t->nodes[b].name);
            if (strlen(lname) >= LR_NAME_MAX) {
                ret = topo_err(err, errlen, file, path,
                               "link-id '%s' is longer than %d characters; "
                               "shorten the node names", lname,
                               LR_NAME_MAX - 1);
                goto cleanup;
            }
            int rc = lr_topo_add_link(t, lname, a, b, km, (int) o->slots,
                                      (int) o->first_slot_n);
            if (rc == EEXIST) {
                ret = topo_err(err, errlen, file, path,
                               "link-id '%s' is taken by an earlier link%s",
                               lname, directed ? ""
                               : " (an undirected input gets both "
                                 "directions)");
                goto cleanup;
            } else if (rc) {
                ret = topo_err(err, errlen, file, path, "%s", strerror(rc));
                goto cleanup;
            }
        }
    }

cleanup:
    free(ids);
    if (ret) {
        lr_topo_free(t);
        t = NULL;
    }
    *out = t;
    return ret;
}

/* The file's base name without ".json", as a default network-id. */
static void
topo_default_name(const char *file, char *name, size_t size)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    snprintf(name, size, "%s", base);
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, ".json"))
        name[n - 5] = '\0';
}

static int
topo_exit_code(int rc)
{
    return rc == ENOMEM ? LR_EXIT_FAIL : LR_EXIT_USAGE;
}

/* An option of 'sub' ("import") given once, as lr_cli_once() has the
 * getopt commands do: its value into '*seen', or LR_EXIT_USAGE with
 * the two values when it was given before (a later one replaced the
 * earlier without a word). */
static int
topo_once(const char *sub, const char *opt, const char **seen,
          const char *val)
{
    if (*seen) {
        lr_cli_err("topo", "%s: %s given twice ('%s', then '%s'): give it "
                   "once", sub, opt, *seen, val);
        return LR_EXIT_USAGE;
    }
    *seen = val;
    return 0;
}

static int
topo_import(int argc, char **argv)
{
    struct topo_import_opts o = {
        .slots = TOPO_DEFAULT_SLOTS,
        .first_slot_n = LR_YANG_FIRST_SLOT_N_DEFAULT,
    };
    char err[TOPO_ERR_MAX], name[LR_NAME_MAX + 256];
    char *buf = NULL, *text = NULL;
    size_t len = 0;
    struct json_object *root = NULL;
    struct lr_topo *t = NULL, *back = NULL;
    struct ly_ctx *ctx = NULL;
    int rc, ret = LR_EXIT_OK;
    const char *slots_given = NULL, *first_given = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            topo_usage(stdout);
            goto cleanup;
        }
        if (a[0] == '-' && a[1]) {
            const char *val = i + 1 < argc ? argv[i + 1] : NULL;
            if (!strcmp(a, "--name") && val) {
                ret = topo_once("import", a, &o.name, val);
            } else if (!strcmp(a, "--slots") && val) {
                /* The planners' spectrum bitmaps bound a link, and
                 * lightrail-topology says so; refused here, the error
                 * names the option instead of a path of the output. */
                ret = topo_once("import", a, &slots_given, val);
                if (!ret)
                    ret = topo_parse_long(a, val, 1, LR_BITS_MAX_WORDS
                                          * LR_BITS_PER_WORD, &o.slots);
            } else if (!strcmp(a, "--first-slot-n") && val) {
                ret = topo_once("import", a, &first_given, val);
                if (!ret)
                    ret = topo_parse_long(a, val, INT_MIN, INT_MAX,
                                          &o.first_slot_n);
            } else {
                bool known = !strcmp(a, "--name") || !strcmp(a, "--slots")
                             || !strcmp(a, "--first-slot-n");
                lr_cli_err("topo", "import: %s '%s' (see lightrail topo "
                           "--help)", known ? "missing value for"
                                            : "unknown option", a);
                ret = LR_EXIT_USAGE;
            }
            if (ret)
                goto cleanup;
            i++;
        } else if (!o.file) {
            o.file = a;
        } else {
            lr_cli_err("topo", "import: one FILE only, not also '%s'", a);
            ret = LR_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (!o.file) {
        lr_cli_err("topo", "import: missing FILE.json (see lightrail topo "
                   "--help)");
        ret = LR_EXIT_USAGE;
        goto cleanup;
    }
    long long last = (long long) o.first_slot_n + 2LL * (o.slots - 1);
    if (o.first_slot_n < LR_YANG_N_MIN || last > LR_YANG_N_MAX) {
        lr_cli_err("topo", "import: %ld slots from --first-slot-n %ld leave "
                   "the flexgrid (n from %d to %d)", o.slots, o.first_slot_n,
                   LR_YANG_N_MIN, LR_YANG_N_MAX);
        ret = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (o.name)
        snprintf(name, sizeof name, "%s", o.name);
    else
        topo_default_name(o.file, name, sizeof name);
    if (!name[0] || strlen(name) >= LR_NAME_MAX) {
        lr_cli_err("topo", "import: network-id '%s' must be 1 to %d "
                   "characters long (use --name)", name, LR_NAME_MAX - 1);
        ret = LR_EXIT_USAGE;
        goto cleanup;
    }

    if ((rc = lr_yang_read_file(o.file, &buf, &len, err, sizeof err))
        || (rc = topo_parse_json(o.file, buf, len, &root, err, sizeof err))
        || (rc = topo_from_node_link(root, &o, name, &t, err, sizeof err))
        || (rc = lr_yang_ctx_new(&ctx, err, sizeof err))
        || (rc = lr_yang_topo_to_json(ctx, t, &text, err, sizeof err))
        || (rc = lr_yang_load_topo_mem(ctx, text, strlen(text), o.file,
                                       &back, err, sizeof err))) {
        lr_cli_err("topo", "%s", err);
        ret = topo_exit_code(rc);
        goto cleanup;
    }
    if (fputs(text, stdout) == EOF || fflush(stdout)) {
        lr_cli_err("topo", "import: cannot write the output: %s",
                   strerror(errno));
        ret = LR_EXIT_FAIL;
    }

cleanup:
    free(buf);
    free(text);
    json_object_put(root);
    lr_topo_free(t);
    lr_topo_free(back);
    lr_yang_ctx_free(ctx);
    return ret;
}

static int
topo_check(int argc, char **argv)
{
    const char *file = NULL, *cluster_file = NULL;
    char err[TOPO_ERR_MAX];
    struct ly_ctx *ctx = NULL;
    struct lr_topo *t = NULL;
    struct lr_cluster *c = NULL;
    int rc, ret = LR_EXIT_OK;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            topo_usage(stdout);
            goto cleanup;
        }
        if (!strcmp(argv[i], "--cluster") && i + 1 < argc) {
            if ((ret = topo_once("check", "--cluster", &cluster_file,
                                 argv[++i])))
                goto cleanup;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            lr_cli_err("topo", "check: %s '%s' (see lightrail topo "
                       "--help)", !strcmp(argv[i], "--cluster")
                                  ? "missing value for" : "unknown option",
                       argv[i]);
            ret = LR_EXIT_USAGE;
            goto cleanup;
        } else if (!file) {
            file = argv[i];
        } else {
            lr_cli_err("topo", "check: one FILE only, not also '%s'",
                       argv[i]);
            ret = LR_EXIT_USAGE;
            goto cleanup;
        }
    }
    if (!file) {
        lr_cli_err("topo", "check: missing FILE.json (see lightrail topo "
                   "--help)");
        ret = LR_EXIT_USAGE;
        goto cleanup;
    }
    if ((rc = lr_yang_ctx_new(&ctx, err, sizeof err))
        || (rc = lr_yang_load_topo(ctx, file, &t, err, sizeof err))
        || (cluster_file
            && ((rc = lr_yang_load_cluster(ctx, cluster_file, &c, err,
                                           sizeof err))
                || (rc = lr_yang_check_attachments(t, file, c, cluster_file,
                                                   err, sizeof err))))) {
        lr_cli_err("topo", "%s", err);
        ret = topo_exit_code(rc);
        goto cleanup;
    }

    int lo = t->n_links ? t->links[0].n_slots : 0, hi = lr_topo_max_slots(t);
    for (int i = 0; i < t->n_links; i++)
        if (t->links[i].n_slots < lo)
            lo = t->links[i].n_slots;
    char slots[64];
    if (lo == hi)
        snprintf(slots, sizeof slots, "%d", hi);
    else
        snprintf(slots, sizeof slots, "%d to %d", lo, hi);
    printf("%s: network %s: %d nodes, %d directed links, %d DC attachments, "
           "%s slots of 12.5 GHz per link", file, t->name, t->n_nodes,
           t->n_links, t->n_attach, slots);
    if (c)
        printf("; %s: %d DCs, attachments agree", cluster_file, c->n_dcs);
    printf("\n");

cleanup:
    lr_cluster_free(c);
    lr_topo_free(t);
    lr_yang_ctx_free(ctx);
    return ret;
}

int
lr_cmd_topo(int argc, char **argv)
{
    if (argc < 2) {
        topo_usage(stderr);
        return LR_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")
        || !strcmp(argv[1], "help")) {
        topo_usage(stdout);
        return LR_EXIT_OK;
    }
    if (!strcmp(argv[1], "import"))
        return topo_import(argc - 1, argv + 1);
    if (!strcmp(argv[1], "check"))
        return topo_check(argc - 1, argv + 1);
    lr_cli_err("topo", "unknown subcommand '%s' (see lightrail topo --help)",
               argv[1]);
    return LR_EXIT_USAGE;
}
