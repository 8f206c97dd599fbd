/*
 * sb_parallel and the netconf driver without a device (the real devices
 * are in tests/cli/sb_netconf.sh, which needs root): several dummy
 * ROADMs programmed at once, one of them failing, each item all or
 * nothing and the others applied; one-at-a-time deletes that skip what
 * is gone, and stop at a device that does not answer; the netconf
 * driver's refusals of a bad configuration, and its answer for a device
 * nobody listens on (a clear line, nothing hangs), over SSH and over
 * TLS (tests/cli/sb_netconf_tls.sh has TLS devices); one that takes the
 * connection and never answers (no session: nothing sent); over SSH
 * the name looked up before a YANG context made slow on purpose (this
 * program's ly_ctx_new() replaces libyang's).
 */
#define _GNU_SOURCE 1   /* RTLD_NEXT */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <libyang/libyang.h>

#include "southbound/sb_driver.h"
#include "southbound/sb_netconf_tls.h"
#include "southbound/sb_parallel.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_stuck.h"
#include "tools/lightrail/lr_tls_selfsigned.h"

#define NC_IETF "/usr/share/yuma/modules/ietf"

/* libyang's ly_ctx_new(), replaced in this program (the driver's
 * reference binds to this one): it sleeps slow_ctx_ms first, for a
 * YANG context that takes long to make (a loaded machine), then makes
 * the context with libyang's own. */
static atomic_int slow_ctx_ms;
static LY_ERR (*real_ly_ctx_new)(const char *, uint16_t, struct ly_ctx **);
static pthread_once_t real_ly_ctx_new_once = PTHREAD_ONCE_INIT;

static void
find_real_ly_ctx_new(void)
{
    *(void **) &real_ly_ctx_new = dlsym(RTLD_NEXT, "ly_ctx_new");
}

LY_ERR
ly_ctx_new(const char *search_dir, uint16_t options, struct ly_ctx **new_ctx)
{
    pthread_once(&real_ly_ctx_new_once, find_real_ly_ctx_new);
    int ms = atomic_load(&slow_ctx_ms);
    if (ms > 0)
        usleep((useconds_t) ms * 1000);
    if (!real_ly_ctx_new) {
        *new_ctx = NULL;
        return LY_ESYS;
    }
    return real_ly_ctx_new(search_dir, options, new_ctx);
}

static char dir[64];
static char idkey[96];        /* an (empty) key pair: idkey and idkey.pub */

static int
setup(void)
{
    char pub[128];
    FILE *f;
    snprintf(dir, sizeof dir, "/tmp/lr-test-sbnc-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(idkey, sizeof idkey, "%s/id", dir);
    snprintf(pub, sizeof pub, "%s.pub", idkey);
    /* Lines as OpenSSH writes a private key, which libnetconf2 reads
     * before a connection, looking for "ENCRYPTED" (an empty file it
     * refuses: test_netconf_local_at_connect); nobody checks the key
     * itself, as no connection gets as far as authentication. */
    if (!(f = fopen(idkey, "w"))
        || fputs("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n"
                 "-----END OPENSSH PRIVATE KEY-----\n", f) < 0
        || fclose(f) || !(f = fopen(pub, "w")) || fclose(f))
        return 1;
    return 0;
}

static int
teardown(void)
{
    char path[512];
    struct dirent *e;
    DIR *d = opendir(dir);
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(dir);
}

static void
mc(struct sb_change *c, enum sb_op op, const char *name, int n)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    snprintf(c->mc.name, sizeof c->mc.name, "%s", name);
    c->mc.n = n;
    c->mc.m = 4;
    c->mc.enabled = true;
}

static int
count(struct sb_device *d)
{
    struct sb_media_channel *m = NULL;
    int n = -1;
    char err[256];
    if (sb_dummy_class.read(d, &m, &n, err, sizeof err))
        return -1;
    free(m);
    return n;
}

#define N_DEV 6

static void
test_parallel_dummies(void)
{
    struct sb_device *dev[N_DEV] = { 0 };
    struct sb_change ch[N_DEV][2];
    struct sb_par_item it[N_DEV];
    char err[256], path[256];

    for (int i = 0; i < N_DEV; i++) {
        struct sb_device_config c;
        memset(&c, 0, sizeof c);
        snprintf(c.name, sizeof c.name, "p%d", i);
        snprintf(c.driver, sizeof c.driver, "dummy");
        snprintf(c.address, sizeof c.address, "%s", dir);
        CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&c, &dev[i], err,
                                                  sizeof err), 0);
    }
    /* Device 3 fails once: its item fails whole, the others apply. */
    snprintf(path, sizeof path, "%s/p3.fail", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("once\n", f);
    fclose(f);
    memset(it, 0, sizeof it);
    for (int i = 0; i < N_DEV; i++) {
        mc(&ch[i][0], SB_ADD, "j/lp1", i);
        mc(&ch[i][1], SB_ADD, "j/lp2", -i);
        it[i] = (struct sb_par_item) { .cls = &sb_dummy_class,
                                       .dev = dev[i], .changes = ch[i],
                                       .n = 2 };
    }
    CU_ASSERT_EQUAL(sb_apply_parallel(it, N_DEV), 1);
    for (int i = 0; i < N_DEV; i++) {
        CU_ASSERT_EQUAL(it[i].rc, i == 3 ? EIO : 0);
        CU_ASSERT_EQUAL(count(dev[i]), i == 3 ? 0 : 2);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(it[3].err, "p3: injected failure"));

    /* Deletes one at a time: device 3 has nothing, which is no error. */
    for (int i = 0; i < N_DEV; i++) {
        mc(&ch[i][0], SB_DELETE, "j/lp1", 0);
        mc(&ch[i][1], SB_DELETE, "j/lp2", 0);
        it[i].each = true;
    }
    CU_ASSERT_EQUAL(sb_apply_parallel(it, N_DEV), 0);
    for (int i = 0; i < N_DEV; i++)
        CU_ASSERT_EQUAL(count(dev[i]), 0);

    /* Without 'each', a missing channel fails the item and keeps the
     * rest of its batch off the device. */
    mc(&ch[0][0], SB_ADD, "k/lp1", 1);
    mc(&ch[0][1], SB_DELETE, "absent", 0);
    it[0].each = false;
    CU_ASSERT_EQUAL(sb_apply_parallel(it, 1), 1);
    CU_ASSERT_EQUAL(it[0].rc, ENOENT);
    CU_ASSERT_EQUAL(count(dev[0]), 0);
    CU_ASSERT_EQUAL(sb_apply_parallel(it, 0), 0);

    for (int i = 0; i < N_DEV; i++)
        sb_dummy_class.close(dev[i]);
}

/* A driver that answers every apply with 'fake_rc' and counts the
 * calls: what sb_parallel does after each answer, without a device.
 * One item, so on the caller's thread. */
static int fake_rc, fake_applies;

static int
fake_apply(struct sb_device *dev, const struct sb_change *changes, int n,
           char *err, size_t errlen)
{
    fake_applies++;
    if (fake_rc)
        snprintf(err, errlen, "fake: %s", strerror(fake_rc));
    return fake_rc;
}

/* A driver that answers its k-th apply fake_seq[k], counted. */
static int fake_seq[3];

static int
fake_seq_apply(struct sb_device *dev, const struct sb_change *changes, int n,
               char *err, size_t errlen)
{
    int rc = fake_seq[fake_applies++ % 3];
    snprintf(err, errlen, "fake %d: %s", fake_applies, strerror(rc));
    return rc;
}

/* The dummy's apply, counted. */
static int
counted_apply(struct sb_device *dev, const struct sb_change *changes, int n,
              char *err, size_t errlen)
{
    fake_applies++;
    return sb_dummy_class.apply(dev, changes, n, err, errlen);
}

/* 'each' stops at the first answer that says the device did not answer
 * (sb_unanswered()): every other change would wait its timeout, or be
 * refused the same way, once per change.  Any answer of the device
 * itself goes on to the next change. */
static void
test_each_stops_unanswered(void)
{
    static const struct {
        int rc, calls;
    } cases[] = {
        { ETIMEDOUT, 1 }, { EHOSTUNREACH, 1 }, { EAGAIN, 1 },
        { EACCES, 1 }, { ECONNREFUSED, 1 }, { ECONNRESET, 1 },
        { EPIPE, 1 }, { ENETUNREACH, 1 }, { EHOSTDOWN, 1 },
        { EIO, 3 }, { EPROTO, 3 }, { EEXIST, 3 }, { EINVAL, 3 },
        { 0, 3 },
    };
    struct sb_driver_class fake = { .name = "fake", .apply = fake_apply };
    struct sb_change ch[3];
    int each_rc[3];

    for (int k = 0; k < 3; k++)
        mc(&ch[k], SB_DELETE, k == 0 ? "j/lp1" : k == 1 ? "j/lp2" : "j/lp3",
           0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_par_item it = { .cls = &fake, .changes = ch, .n = 3,
                                  .each = true, .each_rc = each_rc };
        fake_rc = cases[i].rc;
        fake_applies = 0;
        CU_ASSERT_EQUAL(sb_apply_parallel(&it, 1), cases[i].rc != 0);
        if (fake_applies != cases[i].calls)
            fprintf(stderr, "%s: %d applies, want %d\n",
                    strerror(cases[i].rc), fake_applies, cases[i].calls);
        CU_ASSERT_EQUAL(fake_applies, cases[i].calls);
        CU_ASSERT_EQUAL(it.rc, cases[i].rc);
        for (int k = 0; k < 3; k++)
            CU_ASSERT_EQUAL(each_rc[k], k < cases[i].calls ? cases[i].rc
                                                          : -1);
    }

    /* A refusal, then no answer: the item's answer is the one that
     * stopped the batch (where the device is now), each_rc keeps the
     * refusal. */
    struct sb_driver_class seq = { .name = "fake", .apply = fake_seq_apply };
    struct sb_par_item st = { .cls = &seq, .changes = ch, .n = 3,
                              .each = true, .each_rc = each_rc };
    fake_seq[0] = EPROTO;
    fake_seq[1] = ETIMEDOUT;
    fake_seq[2] = 0;
    fake_applies = 0;
    CU_ASSERT_EQUAL(sb_apply_parallel(&st, 1), 1);
    CU_ASSERT_EQUAL(fake_applies, 2);
    CU_ASSERT_EQUAL(st.rc, ETIMEDOUT);
    CU_ASSERT_STRING_EQUAL(st.err, "fake 2: Connection timed out");
    CU_ASSERT_EQUAL(each_rc[0], EPROTO);
    CU_ASSERT_EQUAL(each_rc[1], ETIMEDOUT);
    CU_ASSERT_EQUAL(each_rc[2], -1);

    /* A dummy refusing the connection ('refused'): one apply, its line
     * kept, the other changes never sent, the device untouched. */
    struct sb_driver_class counted = sb_dummy_class;
    struct sb_device_config c;
    struct sb_device *dev = NULL;
    char err[256], path[256];
    counted.apply = counted_apply;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "ref");
    snprintf(c.driver, sizeof c.driver, "dummy");
    snprintf(c.address, sizeof c.address, "%s", dir);
    CU_ASSERT_EQUAL_FATAL(sb_dummy_class.open(&c, &dev, err, sizeof err), 0);
    for (int k = 0; k < 3; k++)
        mc(&ch[k], SB_ADD, k == 0 ? "j/lp1" : k == 1 ? "j/lp2" : "j/lp3", k);
    snprintf(path, sizeof path, "%s/ref.fail", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("refused\n", f);
    fclose(f);
    struct sb_par_item it = { .cls = &counted, .dev = dev, .changes = ch,
                              .n = 3, .each = true, .each_rc = each_rc };
    fake_applies = 0;
    CU_ASSERT_EQUAL(sb_apply_parallel(&it, 1), 1);
    CU_ASSERT_EQUAL(fake_applies, 1);
    CU_ASSERT_EQUAL(it.rc, ECONNREFUSED);
    CU_ASSERT_EQUAL(each_rc[0], ECONNREFUSED);
    CU_ASSERT_EQUAL(each_rc[1], -1);
    CU_ASSERT_EQUAL(each_rc[2], -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(it.err, "ref: connection refused"));
    CU_ASSERT_EQUAL(unlink(path), 0);
    CU_ASSERT_EQUAL(count(dev), 0);
    sb_dummy_class.close(dev);
}

static struct sb_device_config
nc_config(const char *address, const char *ssh_key, const char *known)
{
    struct sb_device_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "r9");
    snprintf(c.driver, sizeof c.driver, "netconf");
    snprintf(c.address, sizeof c.address, "%s", address);
    /* "ID": the test's key pair; "D": its directory, which has no .pub. */
    snprintf(c.ssh_key, sizeof c.ssh_key, "%s", !strcmp(ssh_key, "ID") ? idkey
             : !strcmp(ssh_key, "D") ? dir : ssh_key);
    snprintf(c.known_hosts, sizeof c.known_hosts, "%s", known);
    c.timeout_ms = 2000;
    return c;
}

static void
test_netconf_bad_config(void)
{
    static const struct {
        const char *address, *key, *known, *want;
    } cases[] = {
        { "u@127.0.0.1:830", "", "/k", "needs an ssh-key and a known-hosts" },
        { "u@127.0.0.1:830", "ID", "", "needs an ssh-key and a known-hosts" },
        { "127.0.0.1:830", "ID", "/k", "has no user (USER@HOST:PORT)" },
        { "u@127.0.0.1:0", "ID", "/k", "not a number from 1 to 65535" },
        { "u@127.0.0.1:8x", "ID", "/k", "not a number from 1 to 65535" },
        { "u@[::1", "ID", "/k", "unclosed '['" },
        { "u@", "ID", "/k", "has no host" },
        { "u@127.0.0.1:830", "/nonexistent/id", "/k",
          "cannot read the ssh-key's private half /nonexistent/id (No such "
          "file or directory): set ssh-key to the private key" },
        { "u@127.0.0.1:830", "D", "/k",
          "cannot read the ssh-key's public half " },
    };
    const struct sb_driver_class *nc = sb_driver_find("netconf");
    CU_ASSERT_PTR_EQUAL_FATAL(nc, &sb_netconf_class);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_device_config c = nc_config(cases[i].address, cases[i].key,
                                              cases[i].known);
        struct sb_device *d = (struct sb_device *) &c;
        char err[512] = "";
        CU_ASSERT_EQUAL(nc->open(&c, &d, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(d);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err,
                    cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "r9"));
    }

    /* A schema path without ietf-netconf is refused before any
     * connection: a session made with it would fetch the module from
     * the device (<get-schema>), which kills netconfd 2.13.  Port 1: no
     * device would answer anyway, so only open() can say it. */
    static const struct {
        const char *path, *want;
    } paths[] = {
        { "D", "has no ietf-netconf module: add its directory" },
        { "/nonexistent:/nonexistent/ietf",
          "the schema path /nonexistent:/nonexistent/ietf has no "
          "ietf-netconf module" },
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct sb_device_config c = nc_config("u@127.0.0.1:1", "ID", "/k");
        struct sb_device *d = (struct sb_device *) &c;
        char err[512] = "";
        snprintf(c.schema_path, sizeof c.schema_path, "%s",
                 strcmp(paths[i].path, "D") ? paths[i].path : dir);
        CU_ASSERT_EQUAL(nc->open(&c, &d, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(d);
        if (!strstr(err, paths[i].want))
            fprintf(stderr, "schema path %zu: '%s' lacks '%s'\n", i, err,
                    paths[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, paths[i].want));
        CU_ASSERT_EQUAL(strncmp(err, "r9: ", 4), 0);
    }

    /* A key file and a schema path quoted in the error are bounded
     * (250 and 150 bytes): cut at a character, marked, where a cut at
     * the byte (for one of the two paddings) left no UTF-8. */
    for (int odd = 0; odd < 2; odd++) {
        char name[256];
        snprintf(name, sizeof name, "/nonexistent/%s", odd ? "x" : "");
        while (strlen(name) + 2 < sizeof name)
            strcat(name, "\xc3\xa9");
        for (int schema = 0; schema < 2; schema++) {
            struct sb_device_config c = nc_config("u@127.0.0.1:1",
                                                  schema ? "ID" : name, "/k");
            struct sb_device *d = (struct sb_device *) &c;
            char err[512] = "";
            if (schema)
                snprintf(c.schema_path, sizeof c.schema_path, "%s", name);
            CU_ASSERT_EQUAL(nc->open(&c, &d, err, sizeof err), EINVAL);
            CU_ASSERT_PTR_NULL(d);
            CU_ASSERT(lr_test_utf8(schema ? "schema path" : "ssh-key", err));
            CU_ASSERT_PTR_NOT_NULL(strstr(err, LR_UTF8_CUT_MARK));
            CU_ASSERT_PTR_NOT_NULL(strstr(err, schema ? "has no ietf-netconf"
                                          : "(No such file or directory)"));
        }
    }
}

/* Port 1 on loopback: nobody listens.  open() still succeeds (a device
 * may come later), and every call says so at once. */
static void
test_netconf_unreachable(void)
{
    struct sb_device_config c = nc_config("u@127.0.0.1:1", "ID",
                                          "/nonexistent");
    /* A schema path whose every directory exists, so that the attempt
     * gets as far as the connection that is refused. */
    snprintf(c.schema_path, sizeof c.schema_path, "%s", NC_IETF);
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    struct sb_change ch;
    char err[512];
    int n = -1;

    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_netconf_class.read(d, &m, &n, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r9: cannot open a NETCONF session "
                                       "to u@127.0.0.1:1"));
    mc(&ch, SB_ADD, "j/lp1", 0);
    CU_ASSERT_EQUAL(sb_netconf_class.apply(d, &ch, 1, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_EQUAL(sb_netconf_class.apply(d, &ch, -1, err, sizeof err),
                    EINVAL);
    sb_netconf_class.close(d);
}

/* What the SSH connection's thread is given but cannot use is the
 * controller's, not the device's: a schema path directory removed
 * since open() checked the path, a private key libnetconf2 will not
 * take (it reads its first line: an empty file).  The connection stops
 * before anything is sent, EINVAL naming what to fix, and the ROADM's
 * health stays as it was.  Before, that thread left no code and the
 * driver said EHOSTUNREACH "cannot open a NETCONF session", the ROADM
 * down. */
static void
test_netconf_local_at_connect(void)
{
    char sub[128], empty[128], empty_pub[160];
    snprintf(sub, sizeof sub, "%s/yang", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    snprintf(empty_pub, sizeof empty_pub, "%s.pub", empty);
    FILE *f = fopen(empty, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(empty_pub, "w"));
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
    static const char *const want[] = { "the schema path",
                                        "cannot use the key pair" };
    for (int pass = 0; pass < 2; pass++) {
        struct sb_device_config c = nc_config("u@127.0.0.1:1",
                                              pass ? empty : "ID",
                                              "/nonexistent");
        snprintf(c.schema_path, sizeof c.schema_path, "%s%s%s", NC_IETF,
                 pass ? "" : ":", pass ? "" : sub);
        struct sb_device *d = NULL;
        struct sb_media_channel *m = NULL;
        char err[512];
        int n = -1;

        CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err,
                                                    sizeof err), 0);
        if (pass == 0)
            rmdir(sub);
        int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT(sb_local(rc) && !sb_unanswered(rc));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want[pass]));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
        if (rc != EINVAL || !strstr(err, want[pass]))
            fprintf(stderr, "pass %d: rc %d: %s\n", pass, rc, err);
        sb_netconf_class.close(d);
    }
}

/* NETCONF over TLS: what open() refuses before any connection, and a
 * device nobody listens on.  A self-signed certificate stands for our
 * certificate and for the CA alike. */
static void
test_netconf_tls(void)
{
    char cert[128], key[128], e[512];
    snprintf(cert, sizeof cert, "%s/tls.pem", dir);
    snprintf(key, sizeof key, "%s/tls.key", dir);
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);

    static const struct {
        const char *transport, *address, *cert, *key, *ca, *want;
    } cases[] = {
        { "quic", "127.0.0.1:6513", "C", "K", "C",
          "unknown NETCONF transport 'quic': write ssh or tls" },
        { "tls", "u@127.0.0.1:6513", "C", "K", "C",
          "has a user, which NETCONF over TLS does not take" },
        { "tls", "127.0.0.1:0", "C", "K", "C", "not a number from 1 to 65535" },
        { "tls", "127.0.0.1", "", "K", "C",
          "NETCONF over TLS needs a client certificate, its key and the CA" },
        { "tls", "127.0.0.1", "C", "", "C", "needs a client certificate" },
        { "tls", "127.0.0.1", "C", "K", "", "needs a client certificate" },
        { "tls", "127.0.0.1", "/nonexistent.pem", "K", "C",
          "cannot use the client certificate /nonexistent.pem" },
        { "tls", "127.0.0.1", "C", "C", "C", "cannot use the client key" },
        { "tls", "127.0.0.1", "C", "K", "K", "cannot use the CA file" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_device_config c = nc_config(cases[i].address, "", "");
        struct sb_device *d = (struct sb_device *) &c;
        char err[512] = "";
#define LR_PICK(x) (!strcmp(x, "C") ? cert : !strcmp(x, "K") ? key : x)
        snprintf(c.transport, sizeof c.transport, "%s", cases[i].transport);
        snprintf(c.tls_cert, sizeof c.tls_cert, "%s", LR_PICK(cases[i].cert));
        snprintf(c.tls_key, sizeof c.tls_key, "%s", LR_PICK(cases[i].key));
        snprintf(c.tls_ca, sizeof c.tls_ca, "%s", LR_PICK(cases[i].ca));
#undef LR_PICK
        CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(d);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "tls case %zu: '%s' lacks '%s'\n", i, err,
                    cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
        CU_ASSERT_EQUAL(strncmp(err, "r9: ", 4), 0);
    }

    /* A certificate, key or CA file that is a folder, holds no PEM or
     * PEM of the other kind is named with what is wrong with it
     * (lr_tls_file_reason()), not OpenSSL's "PEM lib". */
    char notpem[128];
    snprintf(notpem, sizeof notpem, "%s/tls.txt", dir);
    FILE *f = fopen(notpem, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("hello\n", f);
    fclose(f);
    const struct {
        const char *cert, *key, *ca, *bad, *want;
    } files[] = {
        { dir, key, cert, dir, "cannot use the client certificate %s (Is a "
          "directory): give a PEM certificate chain in "
          "southbound/netconf/tls/certificate" },
        { notpem, key, cert, notpem, "cannot use the client certificate %s "
          "(not a PEM certificate: no -----BEGIN line): give" },
        { key, key, cert, key, "cannot use the client certificate %s (not a "
          "PEM certificate: its PEM blocks are 'PRIVATE KEY'): give" },
        { cert, dir, cert, dir, "cannot use the client key %s (Is a "
          "directory): give the PEM private key in "
          "southbound/netconf/tls/key" },
        { cert, notpem, cert, notpem, "cannot use the client key %s (not a "
          "PEM private key: no -----BEGIN line): give" },
        { cert, cert, cert, cert, "cannot use the client key %s (not a PEM "
          "private key: its PEM blocks are 'CERTIFICATE'): give" },
        { cert, key, dir, dir, "cannot use the CA file %s (Is a directory): "
          "give the PEM certificate of the CA that signs the devices in "
          "southbound/netconf/tls/ca" },
        { cert, key, notpem, notpem, "cannot use the CA file %s (not a PEM "
          "certificate: no -----BEGIN line): give" },
        { cert, key, key, key, "cannot use the CA file %s (not a PEM "
          "certificate: its PEM blocks are 'PRIVATE KEY'): give" },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct sb_device_config c = nc_config("127.0.0.1", "", "");
        struct sb_device *d = (struct sb_device *) &c;
        char err[512] = "", want[512];
        snprintf(want, sizeof want, files[i].want, files[i].bad);
        snprintf(c.transport, sizeof c.transport, "tls");
        snprintf(c.tls_cert, sizeof c.tls_cert, "%s", files[i].cert);
        snprintf(c.tls_key, sizeof c.tls_key, "%s", files[i].key);
        snprintf(c.tls_ca, sizeof c.tls_ca, "%s", files[i].ca);
        CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(d);
        if (!strstr(err, want))
            fprintf(stderr, "tls file case %zu: '%s' lacks '%s'\n", i, err,
                    want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        /* check_files, which lightraild runs before it makes anything,
         * refuses it with open()'s very line. */
        char check[512] = "";
        CU_ASSERT_EQUAL(sb_netconf_class.check_files(&c, check,
                                                     sizeof check), EINVAL);
        CU_ASSERT_STRING_EQUAL(check, err);
    }
    unlink(notpem);
    /* The files of the right kind pass; a device over SSH, or of TLS
     * short of a file (open()'s to refuse), has none to judge. */
    struct sb_device_config good = nc_config("127.0.0.1", "", "");
    char gerr[512] = "";
    snprintf(good.transport, sizeof good.transport, "tls");
    snprintf(good.tls_cert, sizeof good.tls_cert, "%s", cert);
    snprintf(good.tls_key, sizeof good.tls_key, "%s", key);
    snprintf(good.tls_ca, sizeof good.tls_ca, "%s", cert);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&good, gerr, sizeof gerr), 0);
    good.tls_ca[0] = '\0';
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&good, gerr, sizeof gerr), 0);
    snprintf(good.transport, sizeof good.transport, "ssh");
    snprintf(good.tls_cert, sizeof good.tls_cert, "%s", dir);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&good, gerr, sizeof gerr), 0);

    /* Nobody on port 1: open() succeeds (the device may come later);
     * every call says so at once. */
    struct sb_device_config c = nc_config("127.0.0.1:1", "", "");
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    char err[512];
    int n = -1;
    snprintf(c.transport, sizeof c.transport, "tls");
    snprintf(c.tls_cert, sizeof c.tls_cert, "%s", cert);
    snprintf(c.tls_key, sizeof c.tls_key, "%s", key);
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", cert);
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_netconf_class.read(d, &m, &n, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r9: cannot connect to 127.0.0.1:1 "
                                       "(Connection refused): is the device "
                                       "up and listening for NETCONF over "
                                       "TLS there?"));
    sb_netconf_class.close(d);
}

/* lightraild's start reads a TLS device's files once: check_files, run
 * before anything is made, keeps the context it loaded for the device's
 * open(), which comes after the store and recovery; a file replaced
 * between them cannot make the two disagree.  A later open() (after a
 * close, a device the network gained) reads the files as they are then,
 * and so does one whose files are not those checked. */
static void
test_netconf_tls_read_once(void)
{
    char cert[128], key[128], e[512], err[512] = "";
    snprintf(cert, sizeof cert, "%s/once.pem", dir);
    snprintf(key, sizeof key, "%s/once.key", dir);
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);
    struct sb_device_config c = nc_config("127.0.0.1:1", "", "");
    struct sb_device *d = NULL;
    snprintf(c.name, sizeof c.name, "r8");
    snprintf(c.transport, sizeof c.transport, "tls");
    snprintf(c.tls_cert, sizeof c.tls_cert, "%s", cert);
    snprintf(c.tls_key, sizeof c.tls_key, "%s", key);
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", cert);
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.check_files(&c, err, sizeof err),
                          0);
    FILE *f = fopen(cert, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("not a certificate\n", f);
    fclose(f);
    /* Before, open() read the certificate again: EINVAL "cannot use the
     * client certificate ... (not a PEM certificate ...)". */
    CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    if (d)
        sb_netconf_class.close(d);
    else
        fprintf(stderr, "open after the check: %s\n", err);
    d = NULL;
    CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the client certificate"));
    CU_ASSERT_PTR_NULL(d);

    /* Checked with one CA, opened with another: open() reads its own. */
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&c, err, sizeof err), 0);
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", key);
    CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the CA file"));
    CU_ASSERT_PTR_NULL(d);

    /* Checked, then forgotten (lr_ctl once the start has opened its
     * devices): a later open() reads the files as they are then. */
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", cert);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&c, err, sizeof err), 0);
    f = fopen(cert, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("not a certificate\n", f);
    fclose(f);
    sb_driver_forget_files();
    CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the client certificate"));
    CU_ASSERT_PTR_NULL(d);

    /* Checked (passes), replaced, checked again (refused): nothing is
     * kept, and open() is refused as the last check was.  Before, the
     * first check's context stayed and open() used it. */
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&c, err, sizeof err), 0);
    f = fopen(cert, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("not a certificate\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(sb_netconf_class.check_files(&c, err, sizeof err),
                    EINVAL);
    err[0] = '\0';
    CU_ASSERT_EQUAL(sb_netconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the client certificate"));
    CU_ASSERT_PTR_NULL(d);
    if (d)
        sb_netconf_class.close(d);
    sb_driver_forget_files();
}

/* The resolver's answers as the TLS transport reports them.  A name
 * that does not resolve is kept as an address nobody answers at
 * (EHOSTUNREACH: the ROADM shown down, as for a wrong IP address, which
 * the controller cannot tell from a device gone either); a resolver
 * that gives no answer (EAI_AGAIN: no server answered, or one failed;
 * none in time) leaves the device unreachable for now, nothing sent:
 * EAGAIN, never ETIMEDOUT (an unknown outcome, read back), and a batch
 * stops there (sb_unanswered()).  A resolver that fails itself, out of
 * memory or descriptors (lr_lookup_error()'s ENOMEM), is the
 * controller's side (sb_local()). */
static void
test_netconf_tls_resolver(void)
{
    static const struct { int in, out; } rows[] = {
        { 0, 0 },
        { EHOSTUNREACH, EHOSTUNREACH },
        { EAGAIN, EAGAIN },
        { ETIMEDOUT, EAGAIN },
        { ENOMEM, ENOMEM },
        { EINVAL, EINVAL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int rc = sb_nc_tls_resolve_errno(rows[i].in);
        CU_ASSERT_EQUAL(rc, rows[i].out);
        if (rows[i].out == ENOMEM || rows[i].out == EINVAL)
            CU_ASSERT(sb_local(rc) && !sb_unanswered(rc));
        if (rows[i].out == EAGAIN || rows[i].out == EHOSTUNREACH)
            CU_ASSERT(sb_unanswered(rc) && !sb_local(rc));
    }
}

/* A TCP connect that times out (a listener that never answers the
 * SYN: lr_test_stuck.h) sent the device nothing: EHOSTUNREACH, the
 * ROADM unreachable, with a line that says the connect timed out.
 * Before, the transport gave ETIMEDOUT "(Connection timed out)", an
 * outcome unknown, which has lr_ctl_op read the device back for a
 * change that never left the controller. */
static void
test_netconf_tls_connect_timeout(void)
{
    char cert[128], key[128], e[512], err[512] = "", want[128];
    struct lr_test_stuck st;
    snprintf(cert, sizeof cert, "%s/stuck.pem", dir);
    snprintf(key, sizeof key, "%s/stuck.key", dir);
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);
    CU_ASSERT_EQUAL_FATAL(lr_test_stuck_start(&st), 0);
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%d", st.port);
    struct sb_device_config c = nc_config(address, "", "");
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    int n = -1;
    snprintf(c.transport, sizeof c.transport, "tls");
    snprintf(c.tls_cert, sizeof c.tls_cert, "%s", cert);
    snprintf(c.tls_key, sizeof c.tls_key, "%s", key);
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", cert);
    c.timeout_ms = 200;
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT(sb_unanswered(rc) && !sb_local(rc));
    snprintf(want, sizeof want, "r9: cannot connect to 127.0.0.1:%d: the "
             "connect timed out", st.port);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
    if (rc != EHOSTUNREACH || !strstr(err, want))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    sb_netconf_class.close(d);
    lr_test_stuck_stop(&st);
    unlink(cert);
    unlink(key);
}

/* Over SSH, a device named by a host name the resolver does not give:
 * the driver looks the name up itself first, within the connection's
 * time, as the TLS transport does, and says "cannot resolve HOST",
 * nothing sent.  A name under .invalid (RFC 6761) never resolves: the
 * resolver answers it does not exist (EHOSTUNREACH, as an address
 * nobody answers at) or, without a network, cannot answer now
 * (EAGAIN); either is "no answer" (sb_unanswered()), never ETIMEDOUT,
 * an outcome to read back.  Before, libnetconf2 looked it up and the
 * line was its own, "cannot open a NETCONF session to
 * u@r9.lightrail.invalid:830: ...", and a resolver slower than the
 * connection's time made it ETIMEDOUT "no NETCONF hello (device
 * hung?)" (tests/cli/resolve.sh). */
static void
test_netconf_ssh_unresolved(void)
{
    struct sb_device_config c = nc_config("u@r9.lightrail.invalid:830",
                                          "ID", "/nonexistent");
    snprintf(c.schema_path, sizeof c.schema_path, "%s", NC_IETF);
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    char err[512] = "";
    int n = -1;

    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
    CU_ASSERT(rc == EHOSTUNREACH || rc == EAGAIN);
    CU_ASSERT(sb_unanswered(rc) && !sb_local(rc));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r9: cannot resolve "
                                       "r9.lightrail.invalid ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
    if (!strstr(err, "cannot resolve"))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    sb_netconf_class.close(d);
}

/* A listener on 127.0.0.1 that takes connections into its backlog and
 * never accepts or writes: a device whose TCP stack answers and whose
 * NETCONF server is hung (the SIGSTOP'd peers of tests/cli/sb_netconf*.sh,
 * without a server).  The port, or -1; close the listener to end the
 * connections waiting in it (they are reset, and a connecting thread
 * still waiting on one ends too). */
static int
silent_listener(int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *) &a, sizeof a)
        || listen(fd, 16) || getsockname(fd, (struct sockaddr *) &a, &alen)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* Over TLS, a peer that takes the TCP connection and never answers the
 * handshake: no NETCONF session, so no RPC can have reached it (an edit
 * needs a session): EHOSTUNREACH, the ROADM unreachable, "nothing
 * sent", never ETIMEDOUT, whose "outcome unknown" has lr_ctl_op read
 * back a device it never changed.  Before, ETIMEDOUT "no TLS handshake
 * ... (device hung?): nothing sent". */
static void
test_netconf_tls_silent_peer(void)
{
    char cert[128], key[128], e[512], err[512] = "", want[128];
    int port = 0, l;
    snprintf(cert, sizeof cert, "%s/silent.pem", dir);
    snprintf(key, sizeof key, "%s/silent.key", dir);
    CU_ASSERT_EQUAL_FATAL(lr_tls_selfsigned(cert, key, e, sizeof e), 0);
    CU_ASSERT_FATAL((l = silent_listener(&port)) >= 0);
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%d", port);
    struct sb_device_config c = nc_config(address, "", "");
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    int n = -1;
    snprintf(c.transport, sizeof c.transport, "tls");
    snprintf(c.tls_cert, sizeof c.tls_cert, "%s", cert);
    snprintf(c.tls_key, sizeof c.tls_key, "%s", key);
    snprintf(c.tls_ca, sizeof c.tls_ca, "%s", cert);
    c.timeout_ms = 200;
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT(sb_unanswered(rc) && !sb_local(rc));
    snprintf(want, sizeof want, "r9: no TLS handshake from 127.0.0.1:%d "
             "within 400 ms (device hung?): nothing sent", port);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    if (rc != EHOSTUNREACH || !strstr(err, want))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    sb_netconf_class.close(d);
    close(l);
    unlink(cert);
    unlink(key);
}

/* Over SSH, a peer that takes the TCP connection and never sends its
 * SSH banner: the caller stops waiting for the connecting thread
 * ("no NETCONF hello ... device hung?").  The thread had not reached
 * the <hello>, and the driver sends an edit only on a session it has:
 * nothing can have been applied.  EHOSTUNREACH, as over TLS; before,
 * ETIMEDOUT. */
static void
test_netconf_ssh_silent_peer(void)
{
    char err[512] = "", want[128];
    int port = 0, l;
    CU_ASSERT_FATAL((l = silent_listener(&port)) >= 0);
    char address[64];
    snprintf(address, sizeof address, "u@127.0.0.1:%d", port);
    struct sb_device_config c = nc_config(address, "ID", "/nonexistent");
    snprintf(c.schema_path, sizeof c.schema_path, "%s", NC_IETF);
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    struct sb_change ch;
    int n = -1;
    c.timeout_ms = 200;
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT(sb_unanswered(rc) && !sb_local(rc));
    snprintf(want, sizeof want, "r9: no NETCONF hello from 127.0.0.1:%d "
             "within 600 ms (device hung?): nothing sent", port);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    if (rc != EHOSTUNREACH || !strstr(err, want))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    /* An edit: the same, nothing of it sent. */
    mc(&ch, SB_ADD, "j/lp1", 0);
    rc = sb_netconf_class.apply(d, &ch, 1, err, sizeof err);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
    sb_netconf_class.close(d);
    close(l);
}

/* Over SSH, the device's name is looked up before the slow part of the
 * connecting thread's work, the YANG context: a context that takes
 * longer than the caller's waits (here ten times the timeout: open()
 * and read() each wait three, and read() would otherwise collect the
 * attempt open() left pending) must not hide a name that
 * cannot be reached, which was then EHOSTUNREACH (ETIMEDOUT before
 * 7f031a1) "no NETCONF hello ... (device hung?)".  The lookup came
 * after the context until this test; with a resolver that never
 * answers (tests/cli/resolve.sh) the two waits added up the same way.
 * A name under .invalid resolves to nothing at once, so the line is
 * "cannot resolve r9.lightrail.invalid (", well within the wait. */
static void
test_netconf_ssh_resolve_first(void)
{
    struct sb_device_config c = nc_config("u@r9.lightrail.invalid:830",
                                          "ID", "/nonexistent");
    snprintf(c.schema_path, sizeof c.schema_path, "%s", NC_IETF);
    c.timeout_ms = 300;
    struct sb_device *d = NULL;
    struct sb_media_channel *m = NULL;
    char err[512] = "";
    int n = -1;

    atomic_store(&slow_ctx_ms, 10 * c.timeout_ms);
    CU_ASSERT_EQUAL_FATAL(sb_netconf_class.open(&c, &d, err, sizeof err), 0);
    int rc = sb_netconf_class.read(d, &m, &n, err, sizeof err);
    atomic_store(&slow_ctx_ms, 0);
    CU_ASSERT(rc == EHOSTUNREACH || rc == EAGAIN);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r9: cannot resolve "
                                       "r9.lightrail.invalid ("));
    CU_ASSERT_PTR_NULL(strstr(err, "no NETCONF hello"));
    if (!strstr(err, "cannot resolve"))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    sb_netconf_class.close(d);
}

static CU_TestInfo tests[] = {
    { "parallel apply on dummies, one failing", test_parallel_dummies },
    { "each: stops at a device that does not answer",
      test_each_stops_unanswered },
    { "netconf: bad configurations refused", test_netconf_bad_config },
    { "netconf: nobody listening", test_netconf_unreachable },
    { "netconf: a file gone since open() is local",
      test_netconf_local_at_connect },
    { "netconf over TLS: refusals, nobody listening", test_netconf_tls },
    { "netconf over TLS: the start reads the files once, then forgets",
      test_netconf_tls_read_once },
    { "netconf over TLS: a resolver without an answer: unreachable",
      test_netconf_tls_resolver },
    { "netconf over TLS: a connect that times out sent nothing",
      test_netconf_tls_connect_timeout },
    { "netconf over SSH: a name that does not resolve, said so",
      test_netconf_ssh_unresolved },
    { "netconf over TLS: a peer that never answers the handshake",
      test_netconf_tls_silent_peer },
    { "netconf over SSH: a peer that never answers, nothing sent",
      test_netconf_ssh_silent_peer },
    { "netconf over SSH: the name is looked up before the YANG context",
      test_netconf_ssh_resolve_first },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("sb_netconf", tests, setup, teardown)
