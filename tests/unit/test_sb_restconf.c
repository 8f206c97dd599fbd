/*
 * sb_restconf against a TEST DOUBLE (tests/doubles/restconf_double.h),
 * in process: a small RESTCONF server (RFC 8040) over HTTPS on
 * 127.0.0.1, on a thread of its own, that holds lightrail-roadm media
 * channels and answers as the RFC says (201/204, 404 for a missing
 * resource, RFC 8040 error bodies, the module's must), with two
 * injectable faults: fail the Nth change with 500, answer late.
 *
 * Asserted: round trips (edges in MHz as RFC 7951 strings), a batch that
 * fails half-way is undone on the device, a refusal's RFC 8040 message
 * reaches the caller, ENOENT/EEXIST, a certificate that does not chain
 * to the pinned CA is refused, a late answer is ETIMEDOUT, a device
 * nobody listens on, bad configurations, a gateway's 502/503/504 judged
 * no answer (lr_ctl_dev).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "controller/lr_ctl_dev.h"
#include "southbound/sb_driver.h"
#include "southbound/sb_http.h"
#include "tests/doubles/restconf_double.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_stuck.h"
#include "tools/lightrail/lr_tls_selfsigned.h"

static char dir[64], cert[128], key[128], other_cert[128], other_key[128];

/* The driver's memory failing in the middle of a batch: this program's
 * strdup() takes the place of the C library's for every caller (the
 * driver's library, libcurl, json-c), and fails the Nth copy of a
 * channel's POST body once 'fail_body' is set to N; any other copy it
 * makes as the C library's does. */
static atomic_int fail_body;

char *
strdup(const char *s)
{
    static const char body[] = "{\"lightrail-roadm:channel\"";
    size_t n = strlen(s) + 1;
    if (!strncmp(s, body, sizeof body - 1) && atomic_load(&fail_body) > 0
        && atomic_fetch_sub(&fail_body, 1) == 1) {
        errno = ENOMEM;
        return NULL;
    }
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static int
setup(void)
{
    char err[256];
    /* As lightraild does: a request on a connection its server closed
     * (the double restarted) must be an error, not the end of the
     * process (the driver sets CURLOPT_NOSIGNAL). */
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/lr-test-sbrc-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(other_cert, sizeof other_cert, "%s/other.pem", dir);
    snprintf(other_key, sizeof other_key, "%s/other.key", dir);
    if (lr_tls_selfsigned(cert, key, err, sizeof err)
        || lr_tls_selfsigned(other_cert, other_key, err, sizeof err))
        return 1;
    return rc_double_start(cert, key, 0);
}

static int
teardown(void)
{
    rc_double_stop();
    unlink(cert);
    unlink(key);
    unlink(other_cert);
    unlink(other_key);
    return rmdir(dir);
}

/* ---- the tests ---- */

static struct sb_device_config
config(const char *ca, int timeout_ms)
{
    struct sb_device_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "r7");
    snprintf(c.driver, sizeof c.driver, "restconf");
    snprintf(c.address, sizeof c.address, "https://127.0.0.1:%d/", rcd.port);
    snprintf(c.ca_file, sizeof c.ca_file, "%s", ca);
    c.timeout_ms = timeout_ms;
    return c;
}

static void
change(struct sb_change *c, enum sb_op op, const char *name, int n, int m)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    snprintf(c->mc.name, sizeof c->mc.name, "%s", name);
    snprintf(c->mc.in_port, sizeof c->mc.in_port, "r6-r7");
    c->mc.n = n;
    c->mc.m = m;
    c->mc.enabled = true;
}

static struct sb_device *
open_dev(void)
{
    struct sb_device_config c = config(cert, 2000);
    struct sb_device *d = NULL;
    char err[512];
    int rc = sb_restconf_class.open(&c, &d, err, sizeof err);
    if (rc)
        fprintf(stderr, "open: %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    return d;
}

static void
test_round_trip(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[2];
    struct sb_media_channel *mc = NULL;
    char err[512];
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    change(&ch[0], SB_ADD, "j/lp1", -10, 4);
    change(&ch[1], SB_ADD, "j/lp2", 20, 2);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rc_double_count(), 2);
    /* RFC 7951: uint64 as strings; edges of n = -10, m = 4. */
    int at = rc_double_find(1);
    CU_ASSERT_TRUE_FATAL(at >= 0);
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[at], "lower-frequency"), "193012500");
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[at], "upper-frequency"), "193062500");
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    for (int i = 0; i < n; i++) {
        bool first = !strcmp(mc[i].name, "j/lp1");
        CU_ASSERT_EQUAL(mc[i].n, first ? -10 : 20);
        CU_ASSERT_EQUAL(mc[i].m, first ? 4 : 2);
        CU_ASSERT_STRING_EQUAL(mc[i].in_port, "r6-r7");
        CU_ASSERT_STRING_EQUAL(mc[i].out_port, "");
    }
    free(mc);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    EEXIST);
    change(&ch[0], SB_DELETE, "j/lp1", 0, 0);
    change(&ch[1], SB_DELETE, "j/lp2", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rc_double_count(), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    ENOENT);

    /* A channel added behind the driver's back at the index it would
     * take next: a create never replaces it (409), and the driver reads
     * the device again and takes another index. */
    change(&ch[0], SB_ADD, "a/lp1", 0, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err), 0);
    json_object *stranger = json_tokener_parse(
        "{\"index\":2,\"name\":\"stranger\",\"lower-frequency\":"
        "\"193500000\",\"upper-frequency\":\"193550000\"}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(stranger);
    int free_slot = 0;
    while (rcd.ch[free_slot])
        free_slot++;
    rcd.ch[free_slot] = stranger;
    change(&ch[0], SB_ADD, "b/lp1", 8, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rc_double_count(), 3);
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[rc_double_find(2)], "name"),
                           "stranger");
    rc_double_clear();
    sb_restconf_class.close(d);

    /* A channel off the 6.25 GHz grid, deleted by a batch the device then
     * refuses: put back with its own edges, not the grid's rounding. */
    rcd.ch[0] = json_tokener_parse(
        "{\"index\":5,\"name\":\"odd/lp1\",\"in-port\":\"p\","
        "\"lower-frequency\":\"193093850\","
        "\"upper-frequency\":\"193118750\"}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rcd.ch[0]);
    d = open_dev();
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    change(&ch[0], SB_DELETE, "odd/lp1", 0, 0);
    change(&ch[1], SB_ADD, "zero/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 2, err, sizeof err),
                    EPROTO);
    at = rc_double_find(5);
    CU_ASSERT_FATAL(at >= 0);
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[at], "lower-frequency"),
                           "193093850");
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[at], "upper-frequency"),
                           "193118750");
    rc_double_clear();
    sb_restconf_class.close(d);
}

static void
test_all_or_nothing(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[3];
    char err[512];

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    change(&ch[0], SB_ADD, "keep/lp1", 0, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err), 0);
    /* The batch's third request fails: the first two are undone. */
    change(&ch[0], SB_DELETE, "keep/lp1", 0, 0);
    change(&ch[1], SB_ADD, "b/lp1", 8, 4);
    change(&ch[2], SB_ADD, "b/lp2", 16, 4);
    atomic_store(&rcd.changes, 0);
    atomic_store(&rcd.fail_change, 3);
    int rc = sb_restconf_class.apply(d, ch, 3, err, sizeof err);
    atomic_store(&rcd.fail_change, 0);
    CU_ASSERT_EQUAL(rc, EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: the device refused POST "
                                       "channel=3 (HTTP 500, operation-failed"
                                       "): injected failure (test double); "
                                       "nothing applied"));
    CU_ASSERT_EQUAL(rc_double_count(), 1);
    CU_ASSERT_STRING_EQUAL(rc_double_str(rcd.ch[rc_double_find(1)], "name"), "keep/lp1");

    /* The undo refused too: not "nothing applied" but a timeout's case
     * (the caller reads the device back), the first change left. */
    change(&ch[0], SB_ADD, "u/lp1", 8, 4);
    change(&ch[1], SB_ADD, "u/lp2", 16, 4);
    atomic_store(&rcd.changes, 0);
    atomic_store(&rcd.fail_change, 2);
    atomic_store(&rcd.fail_deletes, 1);
    rc = sb_restconf_class.apply(d, ch, 2, err, sizeof err);
    atomic_store(&rcd.fail_change, 0);
    atomic_store(&rcd.fail_deletes, 0);
    CU_ASSERT_EQUAL(rc, ETIMEDOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "1 of 1 earlier change(s) of the "
                                       "batch could not be undone"));
    CU_ASSERT_EQUAL(rc_double_count(), 2);
    change(&ch[0], SB_DELETE, "u/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(rc_double_count(), 1);

    /* The device's own validation, its RFC 8040 message passed on. */
    change(&ch[0], SB_ADD, "zero/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "HTTP 400, invalid-value at "
                                       "/lightrail-roadm:roadm/media-"
                                       "channels/channel[index='"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the upper frequency must be above "
                                       "the lower frequency"));
    CU_ASSERT_EQUAL(rc_double_count(), 1);

    /* Removed behind the driver's back after it last read the device:
     * the device's 404 is ENOENT. */
    struct sb_media_channel *mc = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 1);
    free(mc);
    rc_double_clear();
    change(&ch[0], SB_DELETE, "keep/lp1", 0, 0);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, 1, err, sizeof err),
                    ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "HTTP 404"));
    sb_restconf_class.close(d);
}

static void
test_pinned_ca_and_faults(void)
{
    struct sb_device_config c = config(other_cert, 2000);
    struct sb_device *d = NULL;
    struct sb_media_channel *mc = NULL;
    struct sb_change ch;
    char err[512];
    int n;

    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EACCES);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "it must chain to the pinned CA"));

    /* A late answer. */
    c = config(cert, 300);
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    atomic_store(&rcd.delay_ms, 800);
    int before = atomic_load(&rcd.received);
    change(&ch, SB_ADD, "late/lp1", 0, 4);
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, &ch, 1, err, sizeof err),
                    ETIMEDOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the outcome is unknown"));
    /* Let the double finish the late requests (the channels are its
     * thread's until then): up to 60 s, for valgrind. */
    for (int i = 0; i < 6000 && (atomic_load(&rcd.received) == before
                                 || atomic_load(&rcd.answered)
                                        != atomic_load(&rcd.received)); i++)
        usleep(10 * 1000);
    CU_ASSERT_EQUAL(atomic_load(&rcd.answered), atomic_load(&rcd.received));
    atomic_store(&rcd.delay_ms, 0);
    sb_restconf_class.close(d);
    rc_double_clear();

    /* Nobody listening: open succeeds (first use says so). */
    c = config(cert, 2000);
    snprintf(c.address, sizeof c.address, "https://127.0.0.1:1");
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: cannot connect to "
                                  "https://127.0.0.1:1/restconf/data/"
                                  "lightrail-roadm:roadm/media-channels: "
                                  "refused, nothing listens on port 1 of "
                                  "127.0.0.1"));
    sb_restconf_class.close(d);

    /* Bad configurations. */
    c = config("", 0);
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "needs a ca-file"));
    static const char *const plain[] = {
        "http://192.0.2.1:80",
        /* 127.0.0.1:1 is a user name here: the host is 192.0.2.1. */
        "http://127.0.0.1:1@192.0.2.1:80",
        "http://user@127.0.0.1:80",
        "ftp://127.0.0.1:21",
        "not a url",
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        snprintf(c.address, sizeof c.address, "%s", plain[i]);
        CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "plain http only on 127.0.0.1"));
    }

    /* A ca-file that is a folder, holds no PEM or PEM of another kind
     * is refused by open(), named with what is wrong with it
     * (lr_tls_file_reason()): it was handed to libcurl, and every call
     * blamed the device ("the server's certificate is refused (error
     * setting certificate file: ...)"). */
    char notpem[128];
    snprintf(notpem, sizeof notpem, "%s/ca.txt", dir);
    FILE *f = fopen(notpem, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("hello\n", f);
    fclose(f);
    /* A file over the 1 MiB a ca-file may hold, read no further, and a
     * FIFO, which hung the check (OpenSSL opened it and waited for a
     * writer). */
    char big[128], fifo[128];
    snprintf(big, sizeof big, "%s/big.pem", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.pem", dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(big, "w"));
    for (int i = 0; i <= (1 << 20); i++)
        fputc('A', f);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    /* The CA's certificate cut after its first lines (a copy cut
     * short): 'no -----BEGIN line' before, of a file that has one. */
    char cutpem[128], text[4096] = "";
    snprintf(cutpem, sizeof cutpem, "%s/cut.pem", dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(cert, "r"));
    CU_ASSERT(fread(text, 1, sizeof text - 1, f) > 100);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(cutpem, "w"));
    fwrite(text, 1, 100, f);
    fclose(f);
    const struct {
        const char *ca, *why;
    } bad_ca[] = {
        { dir, "Is a directory" },
        { notpem, "not a PEM certificate: no -----BEGIN line" },
        { key, "not a PEM certificate: its PEM blocks are 'PRIVATE KEY'" },
        { big, "over 1048576 bytes, the most a ca-file may hold" },
        { fifo, "not a regular file" },
        { cutpem, "not a PEM certificate: a PEM block has no -----END "
                  "line matching its -----BEGIN line" },
    };
    for (size_t i = 0; i < sizeof bad_ca / sizeof *bad_ca; i++) {
        char want[512];
        c = config(bad_ca[i].ca, 2000);
        d = NULL;
        snprintf(want, sizeof want, "r7: cannot use the ca-file %s (%s): "
                 "give the PEM certificate of the CA that signs the "
                 "device's certificate", bad_ca[i].ca, bad_ca[i].why);
        err[0] = '\0';
        CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(d);
        if (!strstr(err, want)) {
            fprintf(stderr, "ca-file case %zu: '%s' lacks '%s'\n", i, err,
                    want);
            if (d && sb_restconf_class.read(d, &mc, &n, err,
                                            sizeof err) != 0)
                fprintf(stderr, "  its read: '%s'\n", err);
        }
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        if (d)
            sb_restconf_class.close(d);
        /* check_files, which lightraild runs before it makes anything,
         * refuses it with open()'s very line. */
        char check[512] = "";
        CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, check,
                                                      sizeof check), EINVAL);
        CU_ASSERT_STRING_EQUAL(check, err);
    }
    unlink(notpem);
    unlink(big);
    unlink(fifo);
    unlink(cutpem);
    /* The CA's certificate passes; so does any file on a plain-http
     * address, which open() gives libcurl no CA for. */
    c = config(cert, 2000);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
    c = config(dir, 2000);
    snprintf(c.address, sizeof c.address, "http://127.0.0.1:1");
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
}

/* 'path' now holds 'text' (a certificate copied, or nonsense). */
static void
put_file(const char *path, const char *text, const char *from)
{
    char buf[8192];
    size_t n = 0;
    if (from) {
        FILE *in = fopen(from, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        n = fread(buf, 1, sizeof buf, in);
        fclose(in);
    } else {
        n = strlen(text);
        memcpy(buf, text, n);
    }
    FILE *out = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(fwrite(buf, 1, n, out), n);
    fclose(out);
}

/* The ca-file is read once per device: check_files keeps the bytes it
 * checked for the device's first open(), and the device connects with
 * the bytes open() holds, never the file again.  Before, open() read the
 * file again after the check and libcurl read it at its connections
 * (CURLOPT_CAINFO), so a file replaced after the start failed them. */
static void
test_ca_read_once(void)
{
    struct sb_device_config c;
    struct sb_device *d = NULL;
    struct sb_media_channel *mc = NULL;
    char pinned[128], err[512];
    int n, port = rcd.port;

    snprintf(pinned, sizeof pinned, "%s/pinned.pem", dir);
    c = config(pinned, 2000);

    /* Checked, then replaced: the first open() uses what was checked
     * (EINVAL 'cannot use the ca-file' before) and connects with it. */
    put_file(pinned, NULL, cert);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
    put_file(pinned, "not a certificate\n", NULL);
    err[0] = '\0';
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    if (err[0])
        fprintf(stderr, "open after the check: %s\n", err);
    if (d) {
        CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                        0);
        free(mc);
        mc = NULL;
        sb_restconf_class.close(d);
        d = NULL;
    }
    /* What was kept served that open(): the next reads the file. */
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the ca-file"));
    CU_ASSERT_PTR_NULL(d);

    /* Checked, replaced, forgotten (lr_ctl once the start has opened
     * its devices): a device opened later reads the file as it is. */
    put_file(pinned, NULL, cert);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
    put_file(pinned, "not a certificate\n", NULL);
    sb_driver_forget_files();
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the ca-file"));
    CU_ASSERT_PTR_NULL(d);

    /* A device opened while its server is down (open() succeeds: first
     * use says so), its ca-file replaced by nonsense, then the server
     * up: the connection uses the bytes open() read.  Before, libcurl
     * read the file at that first connection: EACCES 'error setting
     * certificate file', the device blamed for the file. */
    put_file(pinned, NULL, cert);
    rc_double_stop();
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), 0);
    put_file(pinned, "not a certificate\n", NULL);
    CU_ASSERT_EQUAL_FATAL(rc_double_start(cert, key, port), 0);
    if (d) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                        0);
        if (err[0])
            fprintf(stderr, "read after the replacement: %s\n", err);
        free(mc);
        mc = NULL;
        /* A new connection (the server restarted) too. */
        rc_double_stop();
        CU_ASSERT_EQUAL_FATAL(rc_double_start(cert, key, port), 0);
        CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                        0);
        free(mc);
        sb_restconf_class.close(d);
    }
    unlink(pinned);
}

/* A check that fails after one that passed (the file replaced between
 * them) leaves nothing for open(): the device reads the file as it is,
 * and is refused as the last check was.  Before, the first check's
 * bytes stayed kept and open() connected with what the last check had
 * refused. */
static void
test_ca_check_fails_after_pass(void)
{
    struct sb_device_config c;
    struct sb_device *d = NULL;
    char pinned[128], err[512];

    snprintf(pinned, sizeof pinned, "%s/recheck.pem", dir);
    c = config(pinned, 2000);
    put_file(pinned, NULL, cert);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
    put_file(pinned, "not a certificate\n", NULL);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err),
                    EINVAL);
    err[0] = '\0';
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot use the ca-file"));
    CU_ASSERT_PTR_NULL(d);
    if (d)
        sb_restconf_class.close(d);
    sb_driver_forget_files();
    unlink(pinned);
}

/* The system's CAs are never consulted: a server whose certificate
 * OpenSSL's default locations trust (SSL_CERT_FILE, SSL_CERT_DIR: the
 * system bundle's stand-ins a test may set) and the ca-file does not is
 * refused. */
static void
test_system_cas_ignored(void)
{
    struct sb_device_config c = config(other_cert, 2000);
    struct sb_device *d = NULL;
    char err[512];

    CU_ASSERT_EQUAL_FATAL(setenv("SSL_CERT_FILE", cert, 1), 0);
    CU_ASSERT_EQUAL_FATAL(setenv("SSL_CERT_DIR", dir, 1), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.check_files(&c, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_restconf_class.open(&c, &d, err, sizeof err), EACCES);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "it must chain to the pinned CA"));
    CU_ASSERT_PTR_NULL(d);
    if (d)
        sb_restconf_class.close(d);
    unsetenv("SSL_CERT_FILE");
    unsetenv("SSL_CERT_DIR");
}

/* A device that answers 200 with media channels that are not a list,
 * or not objects: refused with a reason, never json-c's assertion (its
 * array calls abort on another type; a "channel" object once took
 * lightraild down). */
static void
test_nonsense_answers(void)
{
    static const struct {
        const char *body, *want;
    } cases[] = {
        { "{\"lightrail-roadm:media-channels\":{\"channel\":"
          "{\"index\":1}}}", "'channel' is not a list" },
        { "{\"lightrail-roadm:media-channels\":{\"channel\":5}}",
          "'channel' is not a list" },
        { "{\"lightrail-roadm:media-channels\":{\"channel\":[5]}}",
          "media channel 0 has no index" },
        { "[1,2]", "without a lightrail-roadm:media-channels object" },
        { "{\"lightrail-roadm:media-channels\":7}",
          "without a lightrail-roadm:media-channels object" },
        /* Edges the module allows (uint64) that no channel can have:
         * their sum overflowed a long long. */
        { "{\"lightrail-roadm:media-channels\":{\"channel\":[{\"index\":1,"
          "\"name\":\"a\",\"in-port\":\"p\",\"lower-frequency\":\"1\","
          "\"upper-frequency\":\"18446744073709551615\"}]}}",
          "media channel 0 has no index" },
        { "{\"lightrail-roadm:media-channels\":{\"channel\":[{\"index\":1,"
          "\"name\":\"a\",\"n\":2147483648,\"m\":4}]}}",
          "media channel 0 has no index" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_device *d = open_dev();
        struct sb_media_channel *mc = NULL;
        char err[512] = "";
        int n = -1;
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        atomic_store(&rcd.raw_get, cases[i].body);
        CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err),
                        EPROTO);
        if (!strstr(err, cases[i].want)) {
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err,
                    cases[i].want);
            CU_FAIL("error text");
        }
        atomic_store(&rcd.raw_get, NULL);
        sb_restconf_class.close(d);
    }
    /* admin-state null (a NULL object in json-c): read, not enabled. */
    struct sb_device *d = open_dev();
    struct sb_media_channel *mc = NULL;
    char err[512] = "";
    int n = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    atomic_store(&rcd.raw_get, "{\"lightrail-roadm:media-channels\":{"
                 "\"channel\":[{\"index\":1,\"name\":\"a\",\"n\":0,"
                 "\"m\":4,\"admin-state\":null}]}}");
    CU_ASSERT_EQUAL(sb_restconf_class.read(d, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL(n, 1);
    if (n == 1)
        CU_ASSERT_FALSE(mc[0].enabled);
    free(mc);
    sb_restconf_class.close(d);
}

/* A device with no room for one more channel refuses it as RFC 8040
 * section 7's table pairs the want of a resource: 409 resource-denied
 * (the double sent 500, which the table gives no such tag). */
static void
test_device_full(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[RCD_MAX_CH + 1];
    char err[512] = "";

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    rc_double_clear();
    for (int i = 0; i <= RCD_MAX_CH; i++) {
        char name[32];
        snprintf(name, sizeof name, "full/lp%d", i);
        change(&ch[i], SB_ADD, name, 8 * i, 4);
    }
    CU_ASSERT_EQUAL(sb_restconf_class.apply(d, ch, RCD_MAX_CH, err,
                                            sizeof err), 0);
    CU_ASSERT_EQUAL(rc_double_count(), RCD_MAX_CH);
    CU_ASSERT_NOT_EQUAL(sb_restconf_class.apply(d, &ch[RCD_MAX_CH], 1, err,
                                                sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "(HTTP 409, resource-denied"));
    if (!strstr(err, "(HTTP 409, resource-denied"))
        fprintf(stderr, "full: %s\n", err);
    CU_ASSERT_EQUAL(rc_double_count(), RCD_MAX_CH);
    rc_double_clear();
    sb_restconf_class.close(d);
}

/* RFC 9110 15.6.3-15.6.5: a 502 or 504 is a gateway's word that the
 * device gave it no (valid) answer, a 503 that the server cannot take
 * the request now; none is the device's refusal, so the ROADM shows
 * down (lr_ctl_dev) with the status in its reason.  503: the change
 * was not made; 502 and 504: the outcome is unknown (ETIMEDOUT: the
 * caller reads the device back; a 502 may follow a device that closed
 * the connection mid-answer, after doing the change).  Either way the batch's earlier
 * change is undone. */
static void
test_gateway(void)
{
    static const struct { int status, rc; const char *says, *then; } rows[] = {
        { 502, ETIMEDOUT, "(HTTP 502 Bad Gateway to POST channel=2",
          "the outcome is unknown; read the device back" },
        { 503, EAGAIN, "(HTTP 503 Service Unavailable to POST channel=2",
          "nothing applied" },
        { 504, ETIMEDOUT, "(HTTP 504 Gateway Timeout to POST channel=2",
          "the outcome is unknown; read the device back" },
    };
    struct sb_device *d = open_dev();
    struct sb_change ch[2];
    char err[512];

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct sb_device_config cfg = { .name = "r7", .driver = "restconf",
                                        .address = "https://127.0.0.1" };
        struct lr_ctl_dev dev;
        lr_ctl_dev_init(&dev, &cfg);
        rc_double_clear();
        change(&ch[0], SB_ADD, "gw/lp1", 0, 4);
        change(&ch[1], SB_ADD, "gw/lp2", 8, 4);
        atomic_store(&rcd.changes, 0);
        atomic_store(&rcd.fail_status, rows[i].status);
        atomic_store(&rcd.fail_change, 2);
        err[0] = '\0';
        int rc = sb_restconf_class.apply(d, ch, 2, err, sizeof err);
        atomic_store(&rcd.fail_change, 0);
        atomic_store(&rcd.fail_status, 0);
        CU_ASSERT_EQUAL(rc, rows[i].rc);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].says));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].then));
        CU_ASSERT_PTR_NULL(strstr(err, "the device refused"));
        /* The undone first change is said; an outcome unknown (502,
         * 504) is not "nothing applied": the second may be on the
         * device, and the line must not tell the operator otherwise. */
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "the batch's 1 earlier "
                                           "change(s) had gone out and "
                                           "were undone"));
        if (rows[i].rc == ETIMEDOUT)
            CU_ASSERT_PTR_NULL(strstr(err, "nothing applied"));
        CU_ASSERT_EQUAL(rc_double_count(), 0);
        lr_ctl_dev_note(&dev, rc, err, 1000);
        CU_ASSERT_FALSE(dev.up);
        CU_ASSERT_PTR_NOT_NULL(strstr(dev.why, rows[i].says));
        if (rc != rows[i].rc || !strstr(err, rows[i].says))
            fprintf(stderr, "HTTP %d: rc %d: %s\n", rows[i].status, rc, err);
    }
    rc_double_clear();
    sb_restconf_class.close(d);
}

/* CA bytes that libcurl will not load are the controller's failure,
 * not the device's: before, sb_http_perform() said "the server's
 * certificate is refused" (EACCES), and the ROADM was shown down for a
 * file on the controller's host.  Now EINVAL, with a line that names
 * the ca-file and what to do, and the ROADM's health as the device
 * last left it (up stays up, down stays down).  The restconf driver
 * checks its ca-file as libcurl loads it (sb_rc_ca_verify()), so the
 * bytes are handed to sb_http_perform() directly: the case of a
 * libcurl whose loader and the check disagree. */
static void
test_ca_refused_by_libcurl(void)
{
    static const char junk[] = "-----BEGIN CERTIFICATE-----\n"
                               "bm90IGEgY2VydGlmaWNhdGU=\n"
                               "-----END CERTIFICATE-----\n";
    char url[128], err[512];
    struct sb_http_reply r;
    CURL *h = curl_easy_init();

    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    snprintf(url, sizeof url, "https://127.0.0.1:%d/restconf/data", rcd.port);
    for (int pass = 0; pass < 2; pass++) {
        struct sb_http_request rq = {
            .device = "r7", .method = pass ? "POST" : "GET", .url = url,
            .what = "GET media-channels", .body = pass ? "{}" : NULL,
            .content_type = "application/yang-data+json",
            .ca_file = "/etc/lr/ca.pem", .ca_pem = junk,
            .ca_len = sizeof junk - 1, .timeout_ms = 2000,
        };
        err[0] = '\0';
        int rc = sb_http_perform(h, &rq, &r, err, sizeof err);
        CU_ASSERT_EQUAL(rc, EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "/etc/lr/ca.pem"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
        CU_ASSERT_PTR_NULL(strstr(err, "server's certificate"));
        if (rc != EINVAL)
            fprintf(stderr, "rc %d: %s\n", rc, err);

        struct sb_device_config cfg = { .name = "r7", .driver = "restconf",
                                        .address = "https://127.0.0.1" };
        struct lr_ctl_dev dev;
        lr_ctl_dev_init(&dev, &cfg);
        lr_ctl_dev_note(&dev, rc, err, 1000);
        CU_ASSERT(dev.up);
        lr_ctl_dev_note(&dev, EHOSTUNREACH, "r7: cannot reach", 2000);
        lr_ctl_dev_note(&dev, rc, err, 3000);
        CU_ASSERT_FALSE(dev.up);
        CU_ASSERT_PTR_NOT_NULL(strstr(dev.why, "/etc/lr/ca.pem"));
    }
    curl_easy_cleanup(h);
}

/* A GET answered with a body over 8 MiB reached the device: its answer
 * is refused (EPROTO, up), not "cannot reach" (EHOSTUNREACH, down) as
 * before. */
static void
test_answer_too_large(void)
{
    size_t n = (8u << 20) + 4096;
    char *big = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    /* A timeout far above what the double takes to send 8 MiB over TLS
     * on a loaded machine (under ASan, seconds): the answer, not the
     * clock, is what is tested. */
    struct sb_device_config c = config(cert, 60000);
    struct sb_device *d = NULL;
    struct sb_media_channel *mc = NULL;
    char err[512] = "";
    int cnt = -1;
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err),
                          0);
    atomic_store(&rcd.raw_get, big);
    int rc = sb_restconf_class.read(d, &mc, &cnt, err, sizeof err);
    atomic_store(&rcd.raw_get, NULL);
    CU_ASSERT_EQUAL(rc, EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is over 8 MiB"));
    if (rc != EPROTO)
        fprintf(stderr, "rc %d: %s\n", rc, err);
    struct sb_device_config cfg = { .name = "r7", .driver = "restconf",
                                    .address = "https://127.0.0.1" };
    struct lr_ctl_dev dev;
    lr_ctl_dev_init(&dev, &cfg);
    lr_ctl_dev_note(&dev, EHOSTUNREACH, "r7: cannot reach", 1000);
    lr_ctl_dev_note(&dev, rc, err, 2000);
    CU_ASSERT(dev.up);
    sb_restconf_class.close(d);
    free(big);
}

/* One connection on 127.0.0.1 served by a child: whatever the request,
 * the answer 'answer', then the connection closed.  Returns the port
 * and the child's PID in *pid, or -1. */
static int
serve_one_answer(const char *answer, pid_t *pid)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof a;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || bind(s, (struct sockaddr *) &a, sizeof a) || listen(s, 1)
        || getsockname(s, (struct sockaddr *) &a, &alen)) {
        if (s >= 0)
            close(s);
        return -1;
    }
    if ((*pid = fork()) == 0) {
        char buf[4096];
        int c = accept(s, NULL, NULL);
        if (c >= 0 && read(c, buf, sizeof buf) > 0)
            (void) !write(c, answer, strlen(answer));
        _exit(0);
    }
    close(s);
    return *pid > 0 ? ntohs(a.sin_port) : -1;
}

/* One connection on 127.0.0.1 accepted by a child, which reads what
 * comes and never writes, until killed.  Returns the port and the
 * child's PID in *pid, or -1. */
static int
serve_silent(pid_t *pid)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof a;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || bind(s, (struct sockaddr *) &a, sizeof a) || listen(s, 1)
        || getsockname(s, (struct sockaddr *) &a, &alen)) {
        if (s >= 0)
            close(s);
        return -1;
    }
    if ((*pid = fork()) == 0) {
        char buf[4096];
        int c = accept(s, NULL, NULL);
        while (c >= 0 && read(c, buf, sizeof buf) > 0)
            ;
        pause();
        _exit(0);
    }
    close(s);
    return *pid > 0 ? ntohs(a.sin_port) : -1;
}

/* A device that takes the TCP connection but never starts TLS: the
 * time-out came before any byte of the request went out, so a change
 * was not sent (EHOSTUNREACH, "nothing sent", the ROADM unreachable),
 * and the line says the connection was made and TLS did not finish.
 * Before, it said "the connect timed out ... check the device's
 * address, that it is up, and that no firewall drops port P", all of
 * which the connection made rules out. */
static void
test_tls_handshake_timeout(void)
{
    pid_t pid = -1;
    int port = serve_silent(&pid), status;
    CU_ASSERT_FATAL(port > 0);
    char url[128], err[512] = "";
    snprintf(url, sizeof url, "https://127.0.0.1:%d/restconf/data/x", port);
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    struct sb_http_request rq = {
        .device = "r7", .method = "PUT", .url = url, .what = "PUT x",
        .body = "{}", .content_type = "application/yang-data+json",
        .timeout_ms = 300,
    };
    struct sb_http_reply r;
    int rc = sb_http_perform(h, &rq, &r, err, sizeof err);
    curl_easy_cleanup(h);
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT(sb_unanswered(rc) && !lr_ctl_dev_local(rc));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: connected to 127.0.0.1 port "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
    CU_ASSERT_PTR_NULL(strstr(err, "outcome is unknown"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "but no TLS handshake finished "
                                  "within 300 ms"));
    CU_ASSERT_PTR_NULL(strstr(err, "the connect timed out"));
    if (rc != EHOSTUNREACH || !strstr(err, "r7: connected to "))
        fprintf(stderr, "rc %d: %s\n", rc, err);
}

/* An answer libcurl refuses after the request went out ("HTTP/1.2",
 * CURLE_UNSUPPORTED_PROTOCOL) is no failure of the controller's own:
 * e137b71 mapped that code to EINVAL, "nothing sent", so a PUT that
 * reached the device was taken for one never sent (no read back, no
 * undo) and the ROADM's health was left as it was.  A change's outcome
 * is unknown (ETIMEDOUT); a GET's answer is the device's (EPROTO). */
static void
test_answer_libcurl_refuses(void)
{
    static const char answer[] = "HTTP/1.2 200 OK\r\nContent-Length: 0"
                                 "\r\n\r\n";
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    for (int pass = 0; pass < 2; pass++) {
        char url[128], err[512] = "";
        pid_t pid = -1;
        int port = serve_one_answer(answer, &pid), status;
        CU_ASSERT_FATAL(port > 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/restconf/data/x",
                 port);
        struct sb_http_request rq = {
            .device = "r7", .method = pass ? "PUT" : "GET", .url = url,
            .what = pass ? "PUT x" : "GET x", .body = pass ? "{}" : NULL,
            .content_type = "application/yang-data+json",
            .timeout_ms = 5000,
        };
        struct sb_http_reply r;
        int rc = sb_http_perform(h, &rq, &r, err, sizeof err), want
            = pass ? ETIMEDOUT : EPROTO;
        CU_ASSERT_EQUAL(rc, want);
        CU_ASSERT_PTR_NULL(strstr(err, "nothing sent"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, pass ? "the outcome is unknown"
                                                : "nothing applied"));
        CU_ASSERT_FALSE(lr_ctl_dev_local(rc));
        if (rc != want)
            fprintf(stderr, "%s: rc %d: %s\n", rq.method, rc, err);
        waitpid(pid, &status, 0);
    }
    curl_easy_cleanup(h);
}

/* A change answered with a body over 8 MiB: the request went out, so
 * its outcome is unknown (ETIMEDOUT, read back), and the line names
 * why the answer was not taken.  Before, it said the answer "was
 * lost" (libcurl's "Failure writing output to destination"), blaming
 * the wire for the controller's refusal of the device's answer. */
static void
test_change_answer_too_large(void)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                               "application/yang-data+json\r\n"
                               "Content-Length: %zu\r\n\r\n";
    size_t body = (8u << 20) + 4096, n = sizeof head + 32 + body;
    char *answer = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(answer);
    int at = snprintf(answer, n, head, body);
    memset(answer + at, ' ', body);
    answer[at + body] = '\0';
    char url[128], err[512] = "";
    pid_t pid = -1;
    int port = serve_one_answer(answer, &pid), status;
    CU_ASSERT_FATAL(port > 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/restconf/data/x", port);
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    struct sb_http_request rq = {
        .device = "r7", .method = "PUT", .url = url, .what = "PUT x",
        .body = "{}", .content_type = "application/yang-data+json",
        .timeout_ms = 60000,
    };
    struct sb_http_reply r;
    int rc = sb_http_perform(h, &rq, &r, err, sizeof err);
    char want[512];
    snprintf(want, sizeof want, "r7: the answer to PUT x is over 8 MiB, "
             "which no ROADM answers: the request went out, its outcome "
             "is unknown; read the device back and check what serves %s",
             url);
    CU_ASSERT_EQUAL(rc, ETIMEDOUT);
    CU_ASSERT_STRING_EQUAL(err, want);
    if (rc != ETIMEDOUT || strcmp(err, want))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    CU_ASSERT_PTR_NULL(r.body);
    curl_easy_cleanup(h);
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    free(answer);
}

/* libcurl's failures as the driver convention's errno: the device's
 * (its certificate refused, no connection, no answer) or the
 * controller's own (what it was given, its memory), so that lr_ctl_dev
 * shows a ROADM down only for the former. */
static void
test_http_errno(void)
{
    static const struct { CURLcode cc; bool sent; int rc; } rows[] = {
        { CURLE_OK, false, 0 },
        { CURLE_OPERATION_TIMEDOUT, false, ETIMEDOUT },
        { CURLE_PEER_FAILED_VERIFICATION, false, EACCES },
        { CURLE_COULDNT_CONNECT, false, EHOSTUNREACH },
        { CURLE_COULDNT_RESOLVE_HOST, false, EHOSTUNREACH },
        { CURLE_RECV_ERROR, false, EHOSTUNREACH },
        { CURLE_RECV_ERROR, true, ETIMEDOUT },
        { CURLE_GOT_NOTHING, true, ETIMEDOUT },
        /* The controller's own. */
        { CURLE_SSL_CACERT_BADFILE, false, EINVAL },
        { CURLE_SSL_CERTPROBLEM, false, EINVAL },
        { CURLE_URL_MALFORMAT, false, EINVAL },
        { CURLE_UNSUPPORTED_PROTOCOL, false, EINVAL },
        { CURLE_NOT_BUILT_IN, false, EINVAL },
        { CURLE_OUT_OF_MEMORY, false, ENOMEM },
        { CURLE_FAILED_INIT, false, ENOMEM },
        /* Memory that ran out after a change went out: its outcome is
         * unknown, which matters more (the caller reads back). */
        { CURLE_OUT_OF_MEMORY, true, ETIMEDOUT },
        /* What libcurl refuses in the answer to a change that went out
         * ("Unsupported HTTP version in response" is
         * CURLE_UNSUPPORTED_PROTOCOL): its outcome is unknown too. */
        { CURLE_UNSUPPORTED_PROTOCOL, true, ETIMEDOUT },
        { CURLE_BAD_FUNCTION_ARGUMENT, true, ETIMEDOUT },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int rc = sb_http_errno(rows[i].cc, rows[i].sent);
        CU_ASSERT_EQUAL(rc, rows[i].rc);
        if (rc != rows[i].rc)
            fprintf(stderr, "CURLcode %d (sent %d): %d, want %d\n",
                    (int) rows[i].cc, rows[i].sent, rc, rows[i].rc);
        if (rows[i].rc == EINVAL || rows[i].rc == ENOMEM)
            CU_ASSERT(lr_ctl_dev_local(rc) && !sb_unanswered(rc));
    }
}

/* A TCP connect that times out (a listener that never answers the
 * SYN: lr_test_stuck.h) sent the device nothing, a change included:
 * EHOSTUNREACH, the ROADM unreachable, with a line that says the
 * connect timed out.  Before, libcurl's CURLE_OPERATION_TIMEDOUT was
 * ETIMEDOUT whatever its stage, "the outcome is unknown; read the
 * device back", for a change that never left the controller. */
static void
test_connect_timeout(void)
{
    struct lr_test_stuck st;
    CU_ASSERT_EQUAL_FATAL(lr_test_stuck_start(&st), 0);
    struct sb_device_config c = config(cert, 300);
    snprintf(c.address, sizeof c.address, "https://127.0.0.1:%d", st.port);
    struct sb_device *d = NULL;
    struct sb_media_channel *mc = NULL;
    char err[512] = "", want[256], url[128];
    int n = -1;
    CU_ASSERT_EQUAL_FATAL(sb_restconf_class.open(&c, &d, err, sizeof err),
                          0);
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/restconf/data/x",
             st.port);
    /* A read through the driver, then a change made here: the driver
     * reads the device before its first change, and that read is what
     * would time out. */
    for (int pass = 0; pass < 2; pass++) {
        int rc;
        if (pass == 0)
            rc = sb_restconf_class.read(d, &mc, &n, err, sizeof err);
        else {
            struct sb_http_request rq = {
                .device = "r7", .method = "POST", .url = url,
                .what = "POST x", .body = "{}",
                .content_type = "application/yang-data+json",
                .timeout_ms = 300,
            };
            struct sb_http_reply r;
            rc = sb_http_perform(h, &rq, &r, err, sizeof err);
        }
        snprintf(want, sizeof want, "r7: cannot connect to %s://127.0.0.1:"
                 "%d/restconf/data/%s: the connect timed out",
                 pass ? "http" : "https", st.port,
                 pass ? "x" : "lightrail-roadm:roadm/media-channels");
        CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
        CU_ASSERT(sb_unanswered(rc) && !lr_ctl_dev_local(rc));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing sent"));
        CU_ASSERT_PTR_NULL(strstr(err, "outcome is unknown"));
        if (rc != EHOSTUNREACH || !strstr(err, want))
            fprintf(stderr, "pass %d: rc %d: %s\n", pass, rc, err);
    }
    curl_easy_cleanup(h);
    sb_restconf_class.close(d);
    lr_test_stuck_stop(&st);
}

/* A closed port (nothing listens on 127.0.0.1:1): the line says the
 * connection was refused, on which port of which host, and what to
 * check; EHOSTUNREACH, nothing sent, for a read and for a change alike.
 * Before, libcurl's generic "Couldn't connect to server" was all:
 * "r7: cannot reach URL (Failed to connect to 127.0.0.1 port 1 after
 * 0 ms: Couldn't connect to server): nothing applied; check the device
 * and its address". */
static void
test_no_connect(void)
{
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    static const char *const methods[] = { "GET", "POST" };
    for (int i = 0; i < 2; i++) {
        struct sb_http_request rq = {
            .device = "r7", .method = methods[i],
            .url = "http://127.0.0.1:1/restconf/data/x", .what = "x",
            .body = i ? "{}" : NULL,
            .content_type = "application/yang-data+json",
            .timeout_ms = 2000,
        };
        struct sb_http_reply r;
        char err[512] = "";
        int rc = sb_http_perform(h, &rq, &r, err, sizeof err);
        CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: cannot connect to "
                                      "http://127.0.0.1:1/restconf/data/x: "
                                      "refused, nothing listens on port 1 "
                                      "of 127.0.0.1: nothing sent; check "
                                      "the device's address and port, and "
                                      "that its server is running"));
        if (rc != EHOSTUNREACH || !strstr(err, "nothing listens"))
            fprintf(stderr, "%s: rc %d: %s\n", methods[i], rc, err);
    }
    curl_easy_cleanup(h);

    /* The other causes, which no test host can make on demand: each
     * its own check, the port the scheme's when the URL has none. */
    static const struct {
        long os_errno;
        const char *url, *want;
    } rows[] = {
        { ETIMEDOUT, "https://10.0.0.2/x", "r7: cannot connect to "
          "https://10.0.0.2/x: the connect timed out (10.0.0.2 did not "
          "answer): nothing sent; check the device's address, that it is "
          "up, and that no firewall drops port 443" },
        { EHOSTUNREACH, "http://10.0.0.2:8080/x", "r7: cannot connect to "
          "http://10.0.0.2:8080/x: no route to 10.0.0.2 (No route to "
          "host): nothing sent; check the device's address and the "
          "network between the controller and it" },
        { ENETUNREACH, "http://10.0.0.2:8080/x", "no route to 10.0.0.2 "
          "(Network is unreachable): nothing sent" },
        { 0, "http://[2001:db8::2]/x", "r7: cannot connect to "
          "http://[2001:db8::2]/x (libcurl's words): nothing sent; check "
          "the device's address and port, that its server listens there, "
          "and that no firewall blocks port 80" },
        { ECONNREFUSED, "http://[2001:db8::2]:830/x", "refused, nothing "
          "listens on port 830 of [2001:db8::2]: nothing sent" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char err[512] = "";
        sb_http_no_connect("r7", rows[i].url, rows[i].os_errno,
                           "libcurl's words", err, sizeof err);
        if (!strstr(err, rows[i].want))
            fprintf(stderr, "row %zu: %s\n", i, err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].want));
    }
}

/* A proxy named by the environment (http_proxy, HTTPS_PROXY, ...),
 * which libcurl uses unless told otherwise: a connect that fails is the
 * proxy's, not the device's, so the line must not say that nothing
 * listens on the device's port.  It keeps libcurl's words, which name
 * the address it tried, and names the variable.  Before, with
 * http_proxy=http://127.0.0.1:1, a GET to 192.0.2.1:8080 said "refused,
 * nothing listens on port 8080 of 192.0.2.1". */
static void
test_no_connect_proxy(void)
{
    CURL *h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_EQUAL_FATAL(setenv("http_proxy", "http://127.0.0.1:1", 1), 0);
    struct sb_http_request rq = {
        .device = "r7", .method = "GET",
        .url = "http://192.0.2.1:8080/restconf/data/x", .what = "x",
        .timeout_ms = 2000,
    };
    struct sb_http_reply r;
    char err[768] = "";
    int rc = sb_http_perform(h, &rq, &r, err, sizeof err);
    unsetenv("http_proxy");
    curl_easy_cleanup(h);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT_PTR_NULL(strstr(err, "nothing listens"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: cannot connect to "
                                  "http://192.0.2.1:8080/restconf/data/x ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "127.0.0.1 port 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "): nothing sent; the environment's "
                                  "http_proxy may send it through a proxy"));
    if (rc != EHOSTUNREACH || strstr(err, "nothing listens")
        || !strstr(err, "http_proxy"))
        fprintf(stderr, "proxy: rc %d: %s\n", rc, err);

    /* https reads https_proxy, then HTTPS_PROXY, then all_proxy and
     * ALL_PROXY; http_proxy alone is not read for it, nor HTTP_PROXY
     * for http (libcurl's rules); no_proxy=* sends nothing through. */
    static const struct {
        const char *var, *url, *want;
    } rows[] = {
        { "HTTPS_PROXY", "https://10.0.0.2/x", "HTTPS_PROXY may send" },
        { "ALL_PROXY", "http://10.0.0.2/x", "ALL_PROXY may send" },
        { "http_proxy", "https://10.0.0.2/x", "nothing listens on port 443" },
        { "HTTP_PROXY", "http://10.0.0.2/x", "nothing listens on port 80" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char line[768] = "";
        setenv(rows[i].var, "http://127.0.0.1:1", 1);
        sb_http_no_connect("r7", rows[i].url, ECONNREFUSED,
                           "libcurl's words", line, sizeof line);
        unsetenv(rows[i].var);
        if (!strstr(line, rows[i].want))
            fprintf(stderr, "proxy row %zu: %s\n", i, line);
        CU_ASSERT_PTR_NOT_NULL(strstr(line, rows[i].want));
    }
    /* no_proxy as libcurl 7.88 matches it (checked with it): "*", a
     * host named or a domain it ends in, an address by its text or an
     * IPv4 range; then the connect was direct and the line the
     * device's (a CI with a proxy exempts 127.0.0.1).  An IPv6 range
     * (libcurl 7.88 proxies, later ones may not) and another spelling
     * of an address (0:0::1) are taken as proxied: "may". */
    static const struct {
        const char *no_proxy, *url;
        bool direct;
    } np[] = {
        { "*", "http://10.0.0.2/x", true },
        { "localhost,127.0.0.1", "http://127.0.0.1:1/x", true },
        { "example.net, .lab.example", "http://r7.lab.example/x", true },
        { "lab.example", "http://r7.LAB.example:80/x", true },
        { "lab.example", "http://r7.otherlab.example/x", false },
        { "10.0.0.0/8", "http://10.0.0.2/x", true },
        { "10.0.0.0/24", "http://10.0.1.2/x", false },
        { "2001:db8::/32", "http://[2001:db8::2]:830/x", false },
        { "::1", "http://[::1]:830/x", true },
        { "0:0::1", "http://[::1]:830/x", false },
        { "10.0.0.20", "http://10.0.0.2/x", false },
        { "0.0.2", "http://10.0.0.2/x", false },
        { "10.0.0.0/8 ::1", "http://[::1]:830/x", true },
        /* A range of 0 bits (or 32) is the address alone in libcurl
         * 7.88, no "every address" (checked with curl 7.88.1:
         * no_proxy=0.0.0.0/0 sent http://127.0.0.1:1/ to the proxy);
         * the bits read as atoi() reads them. */
        { "0.0.0.0/0", "http://10.0.0.2/x", false },
        { "10.0.0.0/0", "http://10.0.0.2/x", false },
        { "10.0.0.2/0", "http://10.0.0.2/x", true },
        { "10.0.0.2/32", "http://10.0.0.2/x", true },
        { "10.0.0.0/8x", "http://10.0.0.2/x", true },
        { "10.0.0.2/", "http://10.0.0.2/x", true },
        /* A name's trailing dot, in the entry or the host, is no part
         * of it in libcurl 7.88, nor an entry's leading one after it
         * (checked with curl 7.88.1 and localhost: "localhost." and
         * ".localhost." direct, "." proxied). */
        { "lab.example.", "http://r7.lab.example/x", true },
        { ".lab.example.", "http://r7.lab.example/x", true },
        { "r7.lab.example", "http://r7.lab.example./x", true },
        { ".", "http://r7.lab.example/x", false },
    };
    for (size_t i = 0; i < sizeof np / sizeof np[0]; i++) {
        char line[768] = "";
        setenv("all_proxy", "http://127.0.0.1:1", 1);
        setenv("no_proxy", np[i].no_proxy, 1);
        sb_http_no_connect("r7", np[i].url, ECONNREFUSED,
                           "libcurl's words", line, sizeof line);
        unsetenv("all_proxy");
        unsetenv("no_proxy");
        bool direct = strstr(line, "nothing listens on port") != NULL;
        if (direct != np[i].direct)
            fprintf(stderr, "no_proxy row %zu: %s\n", i, line);
        CU_ASSERT_EQUAL(direct, np[i].direct);
    }

    /* The whole request, as a CI with a proxy that exempts 127.0.0.1
     * runs it: direct, refused on the device's port. */
    h = curl_easy_init();
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    setenv("http_proxy", "http://192.0.2.1:3128", 1);
    setenv("no_proxy", "localhost,127.0.0.1", 1);
    rq.url = "http://127.0.0.1:1/restconf/data/x";
    rc = sb_http_perform(h, &rq, &r, err, sizeof err);
    unsetenv("http_proxy");
    unsetenv("no_proxy");
    curl_easy_cleanup(h);
    CU_ASSERT_EQUAL(rc, EHOSTUNREACH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused, nothing listens on port 1 "
                                  "of 127.0.0.1"));
}

/* A batch whose second change cannot be made for want of memory
 * (ENOMEM, the controller's) after its first went out: the first is
 * undone, and the line says so.  Before, it said only "r7: out of
 * memory", and a failure of libcurl's own for memory said "nothing
 * sent", though the batch's first change had been sent (and
 * undone). */
static void
test_batch_enomem(void)
{
    struct sb_device *d = open_dev();
    struct sb_change ch[2];
    char err[512] = "";

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    rc_double_clear();
    change(&ch[0], SB_ADD, "oom/lp1", 8, 4);
    change(&ch[1], SB_ADD, "oom/lp2", 16, 4);
    atomic_store(&rcd.changes, 0);
    atomic_store(&fail_body, 2);
    int rc = sb_restconf_class.apply(d, ch, 2, err, sizeof err);
    atomic_store(&fail_body, 0);
    CU_ASSERT_EQUAL(rc, ENOMEM);
    CU_ASSERT(lr_ctl_dev_local(rc) && !sb_unanswered(rc));
    /* The first POST and its undo reached the device; the second
     * never did. */
    CU_ASSERT_EQUAL(atomic_load(&rcd.changes), 2);
    CU_ASSERT_EQUAL(rc_double_count(), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "r7: out of memory for the body of "
                                       "POST channel="));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the batch's 1 earlier change(s) "
                                       "had gone out and were undone: "
                                       "nothing applied"));
    CU_ASSERT_PTR_NULL(strstr(err, "nothing sent"));
    if (rc != ENOMEM || !strstr(err, "were undone"))
        fprintf(stderr, "rc %d: %s\n", rc, err);
    sb_restconf_class.close(d);
}

static CU_TestInfo tests[] = {
    { "round trip, EEXIST, ENOENT", test_round_trip },
    { "a failing batch is undone; RFC 8040 errors", test_all_or_nothing },
    { "pinned CA, timeout, unreachable, bad config",
      test_pinned_ca_and_faults },
    { "the ca-file is read once, then forgotten", test_ca_read_once },
    { "a check that fails after a pass leaves nothing kept",
      test_ca_check_fails_after_pass },
    { "the system's CAs are never consulted", test_system_cas_ignored },
    { "a device answering nonsense is refused, not obeyed",
      test_nonsense_answers },
    { "a full device: 409 resource-denied", test_device_full },
    { "a gateway's 502, 503, 504: the device down, with the status",
      test_gateway },
    { "CA bytes libcurl refuses: the controller's, the ROADM as it was",
      test_ca_refused_by_libcurl },
    { "a change's answer over 8 MiB: outcome unknown, named",
      test_change_answer_too_large },
    { "libcurl's failures: the device's or the controller's",
      test_http_errno },
    { "an answer libcurl refuses after the request went out is not local",
      test_answer_libcurl_refuses },
    { "an answer over 8 MiB is the device's, not no answer",
      test_answer_too_large },
    { "a connect that timed out sent nothing: unreachable",
      test_connect_timeout },
    { "no TLS within the time-out sent nothing: unreachable",
      test_tls_handshake_timeout },
    { "a closed port: refused, on which port, what to check",
      test_no_connect },
    { "a proxy of the environment: its connect, not the device's",
      test_no_connect_proxy },
    { "a batch out of memory half-way: what went out is undone, said so",
      test_batch_enomem },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("sb_restconf", tests, setup, teardown)
