/*
 * nc_tls_peer: a TEST DOUBLE of a ROADM that speaks NETCONF over TLS
 * with mutual certificates (RFC 7589), for the tests of the netconf
 * driver's TLS transport only (never installed).  netconfd, the real
 * device of the SSH tests, has no TLS, and no NETCONF-over-TLS server is
 * packaged for Debian 12; libnetconf2's own server API is.
 *
 *   nc_tls_peer --cert PEM --key PEM --ca PEM --schema-path DIR[:DIR...]
 *               [--port N] [--port-file FILE] [--dump FILE]
 *
 * Listens on 127.0.0.1:N (N = 0: a free port, printed as "port N" on
 * stdout and written to --port-file).  Its certificate and key are
 * --cert and --key; a client must present a certificate signed by --ca
 * (the one CA trusted; the client's common name becomes its user).
 * lightrail-roadm is loaded from --schema-path (with ietf-netconf).
 *
 * What it answers, to any number of sessions, one request at a time
 * (one thread):
 *   - get-config and get: the whole running datastore (a libyang tree;
 *     filters are ignored, which a subtree filter on roadm allows);
 *   - edit-config on running: merge, create, replace, delete and remove
 *     of /roadm/media-channels/channel entries (the operation attribute
 *     on the channel, or default-operation), leaves merged; the result
 *     is validated against the schema (types, patterns, must, unique)
 *     and, if anything fails, refused with an rpc-error (tag, app-tag,
 *     path, message) and nothing changes: rollback-on-error whatever
 *     the error-option says;
 *   - close-session; anything else: operation-not-supported.
 * --dump FILE gets the running datastore as RFC 7951 JSON after every
 * change (written to FILE.tmp, then renamed), so that tests can read it
 * independently of the driver.
 *
 * NC_PEER_DEBUG=1 in the environment: libnetconf2's messages and every
 * edit on stderr.
 *
 * Hanging and dying are left to signals: SIGSTOP/SIGCONT, SIGKILL;
 * SIGTERM and SIGINT end it cleanly.  Exit: 0 after SIGTERM, 1 when it
 * cannot start (one line on stderr), 2 usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <libyang/libyang.h>
#include <nc_server.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define PEER_NS "urn:lightrail:roadm"
#define PEER_ENDPT "tls"

static volatile sig_atomic_t peer_stop;
static struct ly_ctx *peer_ctx;
static struct lyd_node *peer_running;   /* the running datastore */
static const char *peer_dump;
static const char *peer_cert, *peer_key;

static void
peer_on_signal(int sig)
{
    (void) sig;
    peer_stop = 1;
}

static void
peer_write_dump(void)
{
    char tmp[4096];
    FILE *f;

    if (!peer_dump)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", peer_dump);
    f = fopen(tmp, "w");
    if (!f)
        return;
    if (peer_running)
        lyd_print_file(f, peer_running, LYD_JSON, LYD_PRINT_WITHSIBLINGS);
    else
        fputs("{}\n", f);
    if (fclose(f) == 0)
        rename(tmp, peer_dump);
}

/* ---- errors ---- */

static struct nc_server_reply *
peer_err(NC_ERR tag, const char *app_tag, const char *path, const char *msg)
{
    struct lyd_node *e;

    if (tag == NC_ERR_OP_FAILED || tag == NC_ERR_INVALID_VALUE
        || tag == NC_ERR_OP_NOT_SUPPORTED)
        e = nc_err(peer_ctx, tag, NC_ERR_TYPE_APP);
    else if (tag == NC_ERR_MISSING_ELEM || tag == NC_ERR_BAD_ELEM
             || tag == NC_ERR_UNKNOWN_ELEM)
        e = nc_err(peer_ctx, tag, NC_ERR_TYPE_APP, path ? path : "");
    else
        e = nc_err(peer_ctx, tag);
    if (app_tag)
        nc_err_set_app_tag(e, app_tag);
    if (path)
        nc_err_set_path(e, path);
    if (msg)
        nc_err_set_msg(e, msg, "en");
    return nc_server_reply_err(e);
}

/* libyang's last error on the context as an rpc-error. */
static struct nc_server_reply *
peer_ly_err(NC_ERR tag, const char *what)
{
    const struct ly_err_item *e = ly_err_last(peer_ctx);
    char msg[512];

    char path[512] = "";

    snprintf(msg, sizeof msg, "%s", e && e->msg ? e->msg : what);
    /* libyang says 'Data location "/a/b".': the path alone. */
    if (e && e->path) {
        const char *q = strchr(e->path, '"');
        snprintf(path, sizeof path, "%s", q ? q + 1 : e->path);
        char *end = strrchr(path, '"');
        if (end)
            *end = '\0';
    }
    struct nc_server_reply *r = peer_err(tag, e ? e->apptag : NULL,
                                         path[0] ? path : NULL, msg);
    ly_err_clean(peer_ctx, NULL);
    return r;
}

/* ---- the edit ---- */

/* The value of the edit operation attribute of 'n', or NULL. */
static const char *
peer_node_op(const struct lyd_node *n)
{
    if (!n->schema) {
        const struct lyd_node_opaq *o = (const struct lyd_node_opaq *) n;
        for (const struct lyd_attr *a = o->attr; a; a = a->next)
            if (!strcmp(a->name.name, "operation"))
                return a->value;
    } else {
        for (const struct lyd_meta *m = n->meta; m; m = m->next)
            if (!strcmp(m->name, "operation"))
                return lyd_get_meta_value(m);
    }
    return NULL;
}

static const char *
peer_child_value(const struct lyd_node *n, const char *name)
{
    for (const struct lyd_node *c = lyd_child(n); c; c = c->next)
        if (!strcmp(LYD_NAME(c), name))
            return lyd_get_value(c);
    return NULL;
}

/* Applies one <channel> of the edit to '*work'; NULL or the refusal. */
static struct nc_server_reply *
peer_edit_channel(struct lyd_node **work, const struct lyd_node *ch,
                  const char *op)
{
    const char *index = peer_child_value(ch, "index");
    struct lyd_node *found = NULL, *made = NULL;
    char path[256], leaf[320];

    if (!index)
        return peer_err(NC_ERR_MISSING_ELEM, NULL,
                        "/lightrail-roadm:roadm/media-channels/channel/index",
                        "a channel without its key 'index'");
    snprintf(path, sizeof path, "/lightrail-roadm:roadm/media-channels/"
             "channel[index='%s']", index);
    /* Anything but LY_SUCCESS is "not there" (LY_EINCOMPLETE sets
     * 'found' to the deepest parent that exists). */
    if (*work && lyd_find_path(*work, path, 0, &found) != LY_SUCCESS)
        found = NULL;

    if (!strcmp(op, "delete") || !strcmp(op, "remove")) {
        if (!found && !strcmp(op, "delete"))
            return peer_err(NC_ERR_DATA_MISSING, NULL, path,
                            "the channel to delete does not exist");
        if (found) {
            if (found == *work)
                *work = NULL;
            lyd_free_tree(found);
            /* An emptied media-channels and roadm stay: harmless. */
        }
        return NULL;
    }
    if (!strcmp(op, "create") && found)
        return peer_err(NC_ERR_DATA_EXISTS, NULL, path,
                        "the channel to create already exists");
    if (!strcmp(op, "replace") && found) {
        lyd_free_tree(found);
        found = NULL;
    }
    if (strcmp(op, "create") && strcmp(op, "merge") && strcmp(op, "replace"))
        return peer_err(NC_ERR_BAD_ATTR, NULL, path, "unknown operation");
    if (!found) {
        if (lyd_new_path(*work, peer_ctx, path, NULL, 0, &made))
            return peer_ly_err(NC_ERR_INVALID_VALUE, "bad channel");
        if (!*work) {
            *work = made;
            while (lyd_parent(*work))
                *work = lyd_parent(*work);
        }
    }
    for (const struct lyd_node *c = lyd_child(ch); c; c = c->next) {
        if (!strcmp(LYD_NAME(c), "index"))
            continue;
        snprintf(leaf, sizeof leaf, "%s/%s", path, LYD_NAME(c));
        if (lyd_new_path(*work, peer_ctx, leaf, lyd_get_value(c),
                         LYD_NEW_PATH_UPDATE, NULL))
            return peer_ly_err(NC_ERR_INVALID_VALUE, "bad value");
    }
    return NULL;
}

/* Walks the edit's <roadm>/<media-channels>/<channel> elements. */
static struct nc_server_reply *
peer_edit(struct lyd_node **work, const struct lyd_node *config,
          const char *dflt)
{
    struct nc_server_reply *r;

    for (const struct lyd_node *top = config; top; top = top->next) {
        if (strcmp(LYD_NAME(top), "roadm"))
            return peer_err(NC_ERR_UNKNOWN_ELEM, NULL, LYD_NAME(top),
                            "this test double holds lightrail-roadm's "
                            "media channels only");
        const char *op1 = peer_node_op(top);
        for (const struct lyd_node *mc = lyd_child(top); mc; mc = mc->next) {
            if (strcmp(LYD_NAME(mc), "media-channels"))
                return peer_err(NC_ERR_UNKNOWN_ELEM, NULL, LYD_NAME(mc),
                                "this test double holds media channels "
                                "only");
            const char *op2 = peer_node_op(mc);
            for (const struct lyd_node *ch = lyd_child(mc); ch;
                 ch = ch->next) {
                const char *op = peer_node_op(ch);
                if (!op)
                    op = op2 ? op2 : op1 ? op1 : dflt;
                if ((r = peer_edit_channel(work, ch, op)))
                    return r;
            }
        }
    }
    return NULL;
}

static struct nc_server_reply *
peer_edit_config(struct lyd_node *rpc)
{
    const struct lyd_node *config = NULL;
    const char *dflt = "merge", *target = NULL;
    struct lyd_node *work = NULL;
    struct nc_server_reply *r;

    for (const struct lyd_node *c = lyd_child(rpc); c; c = c->next) {
        if (!strcmp(LYD_NAME(c), "target"))
            target = lyd_child(c) ? LYD_NAME(lyd_child(c)) : NULL;
        else if (!strcmp(LYD_NAME(c), "default-operation"))
            dflt = lyd_get_value(c);
        else if (!strcmp(LYD_NAME(c), "config")
                 && c->schema && (c->schema->nodetype & LYS_ANYDATA)) {
            const struct lyd_node_any *any = (const struct lyd_node_any *) c;
            if (any->value_type == LYD_ANYDATA_DATATREE)
                config = any->value.tree;
        }
    }
    if (getenv("NC_PEER_DEBUG") && config) {
        fprintf(stderr, "nc_tls_peer: edit-config (default %s):\n", dflt);
        lyd_print_file(stderr, config, LYD_XML, LYD_PRINT_WITHSIBLINGS);
    }
    if (!target || strcmp(target, "running"))
        return peer_err(NC_ERR_OP_NOT_SUPPORTED, NULL, NULL,
                        "this test double has the running datastore only");
    if (!strcmp(dflt, "none"))
        dflt = "merge";
    if (peer_running
        && lyd_dup_siblings(peer_running, NULL, LYD_DUP_RECURSIVE, &work))
        return peer_ly_err(NC_ERR_OP_FAILED, "out of memory");
    r = peer_edit(&work, config, dflt);
    if (!r && work && lyd_validate_all(&work, peer_ctx,
                                       LYD_VALIDATE_NO_STATE
                                       | LYD_VALIDATE_PRESENT, NULL))
        r = peer_ly_err(NC_ERR_OP_FAILED, "the edit is not valid");
    if (r) {
        lyd_free_all(work);   /* rollback: running is untouched */
        return r;
    }
    lyd_free_all(peer_running);
    peer_running = work;
    peer_write_dump();
    return nc_server_reply_ok();
}

static struct nc_server_reply *
peer_get_config(struct lyd_node *rpc)
{
    struct lyd_node *out = NULL, *data = NULL;

    if (peer_running
        && lyd_dup_siblings(peer_running, NULL, LYD_DUP_RECURSIVE, &data))
        return peer_ly_err(NC_ERR_OP_FAILED, "out of memory");
    if (lyd_new_inner(NULL, rpc->schema->module, LYD_NAME(rpc), 0, &out)
        || lyd_new_any(out, NULL, "data", data, 1, LYD_ANYDATA_DATATREE, 1,
                       NULL)) {
        lyd_free_all(data);
        lyd_free_all(out);
        return peer_ly_err(NC_ERR_OP_FAILED, "cannot make the reply");
    }
    return nc_server_reply_data(out, NC_WD_EXPLICIT, NC_PARAMTYPE_FREE);
}

static struct nc_server_reply *
peer_rpc(struct lyd_node *rpc, struct nc_session *session)
{
    const char *name = LYD_NAME(rpc);

    if (!strcmp(name, "get-config") || !strcmp(name, "get"))
        return peer_get_config(rpc);
    if (!strcmp(name, "edit-config"))
        return peer_edit_config(rpc);
    if (!strcmp(name, "close-session")) {
        nc_session_set_term_reason(session, NC_SESSION_TERM_CLOSED);
        return nc_server_reply_ok();
    }
    return peer_err(NC_ERR_OP_NOT_SUPPORTED, NULL, NULL,
                    "not implemented by this test double");
}

/* ---- TLS ---- */

static int
peer_cert_clb(const char *name, void *user_data, char **cert_path,
              char **cert_data, char **privkey_path, char **privkey_data,
              NC_SSH_KEY_TYPE *privkey_type)
{
    (void) name;
    (void) user_data;
    (void) cert_data;
    (void) privkey_data;
    (void) privkey_type;
    *cert_path = strdup(peer_cert);
    *privkey_path = strdup(peer_key);
    return !*cert_path || !*privkey_path;
}

/* No trusted certificate lists (the CA file is the trust): libnetconf2
 * 2.0 refuses every client unless this callback is set. */
static int
peer_cert_list_clb(const char *name, void *user_data, char ***cert_paths,
                   int *cert_path_count, char ***cert_data,
                   int *cert_data_count)
{
    (void) name;
    (void) user_data;
    *cert_paths = NULL;
    *cert_data = NULL;
    *cert_path_count = *cert_data_count = 0;
    return 0;
}

/* "04:AA:BB:..." (RFC 7407: 04 = SHA-256) of the CA certificate, for the
 * cert-to-name entry that maps any client it signed to its common
 * name. */
static int
peer_ca_fingerprint(const char *ca, char *out, size_t size)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    FILE *f = fopen(ca, "r");
    X509 *x = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;

    if (f)
        fclose(f);
    if (!x || X509_digest(x, EVP_sha256(), md, &len) != 1
        || size < 3 + 3 * (size_t) len) {
        X509_free(x);
        return -1;
    }
    X509_free(x);
    size_t o = (size_t) snprintf(out, size, "04");
    for (unsigned int i = 0; i < len; i++)
        o += (size_t) snprintf(out + o, size - o, ":%02X", md[i]);
    return 0;
}

/* A free port on 127.0.0.1: libnetconf2 does not say which port it bound
 * for 0.  Another process may take it before libnetconf2 binds it; the
 * peer then fails to start, loudly. */
static int
peer_free_port(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    if (fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof a) == 0
        && getsockname(fd, (struct sockaddr *) &a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int
usage(void)
{
    fprintf(stderr, "usage: nc_tls_peer --cert PEM --key PEM --ca PEM "
            "--schema-path DIRS [--port N] [--port-file FILE] "
            "[--dump FILE]\n");
    return 2;
}

int
main(int argc, char **argv)
{
    const char *ca = NULL, *schema = NULL, *port_file = NULL;
    const char *features[] = { "writable-running", NULL };
    struct nc_pollsession *ps = NULL;
    char fp[128];
    long port = 0;
    int rc = 1;

    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (!strcmp(argv[i], "--cert"))
            peer_cert = v;
        else if (!strcmp(argv[i], "--key"))
            peer_key = v;
        else if (!strcmp(argv[i], "--ca"))
            ca = v;
        else if (!strcmp(argv[i], "--schema-path"))
            schema = v;
        else if (!strcmp(argv[i], "--port"))
            port = strtol(v, NULL, 10);
        else if (!strcmp(argv[i], "--port-file"))
            port_file = v;
        else if (!strcmp(argv[i], "--dump"))
            peer_dump = v;
        else
            return usage();
        i++;
    }
    if (!peer_cert || !peer_key || !ca || !schema || port < 0 || port > 65535)
        return usage();

    struct sigaction sa = { .sa_handler = peer_on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    nc_verbosity(getenv("NC_PEER_DEBUG") ? NC_VERB_VERBOSE : NC_VERB_ERROR);
    if (ly_ctx_new(schema, 0, &peer_ctx)
        || !ly_ctx_load_module(peer_ctx, "ietf-netconf", NULL, features)
        || !ly_ctx_load_module(peer_ctx, "lightrail-roadm", NULL, NULL)) {
        fprintf(stderr, "nc_tls_peer: cannot load ietf-netconf and "
                "lightrail-roadm from %s\n", schema);
        goto cleanup;
    }
    if (peer_ca_fingerprint(ca, fp, sizeof fp)) {
        fprintf(stderr, "nc_tls_peer: cannot read the CA %s\n", ca);
        goto cleanup;
    }
    if (port == 0 && (port = peer_free_port()) < 0) {
        fprintf(stderr, "nc_tls_peer: no free port on 127.0.0.1\n");
        goto cleanup;
    }
    nc_set_global_rpc_clb(peer_rpc);
    if (nc_server_init(peer_ctx)) {
        fprintf(stderr, "nc_tls_peer: nc_server_init failed\n");
        goto cleanup;
    }
    nc_server_tls_set_server_cert_clb(peer_cert_clb, NULL, NULL);
    nc_server_tls_set_trusted_cert_list_clb(peer_cert_list_clb, NULL, NULL);
    if (nc_server_add_endpt(PEER_ENDPT, NC_TI_OPENSSL)
        || nc_server_tls_endpt_set_server_cert(PEER_ENDPT, "server")
        || nc_server_tls_endpt_set_trusted_ca_paths(PEER_ENDPT, ca, NULL)
        || nc_server_tls_endpt_add_ctn(PEER_ENDPT, 1, fp,
                                       NC_TLS_CTN_COMMON_NAME, NULL)
        || nc_server_endpt_set_address(PEER_ENDPT, "127.0.0.1")
        || nc_server_endpt_set_port(PEER_ENDPT, (uint16_t) port)) {
        fprintf(stderr, "nc_tls_peer: cannot listen on 127.0.0.1:%ld\n",
                port);
        goto cleanup_server;
    }
    peer_write_dump();
    printf("port %ld\n", port);
    fflush(stdout);
    if (port_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%ld\n", port) < 0 || fclose(f)
            || rename(tmp, port_file)) {
            fprintf(stderr, "nc_tls_peer: cannot write %s\n", port_file);
            goto cleanup_server;
        }
    }

    ps = nc_ps_new();
    while (!peer_stop) {
        struct nc_session *s = NULL;
        NC_MSG_TYPE m = nc_accept(nc_ps_session_count(ps) ? 0 : 100, &s);
        if (m == NC_MSG_HELLO)
            nc_ps_add_session(ps, s);
        else if (s)
            nc_session_free(s, NULL);
        if (!nc_ps_session_count(ps))
            continue;
        int r = nc_ps_poll(ps, 50, &s);
        if (s && (r & (NC_PSPOLL_SESSION_TERM | NC_PSPOLL_SESSION_ERROR))) {
            nc_ps_del_session(ps, s);
            nc_session_free(s, NULL);
        }
    }
    rc = 0;

cleanup_server:
    if (ps) {
        nc_ps_clear(ps, 1, NULL);
        nc_ps_free(ps);
    }
    nc_server_destroy();
cleanup:
    lyd_free_all(peer_running);
    ly_ctx_destroy(peer_ctx);
    return rc;
}
