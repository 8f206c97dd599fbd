/*
 * lr_ctl_dev: a ROADM's health from its operations' answers — success,
 * a refusal of the device's own (up, the reason kept), a timeout (down:
 * the outcome unknown), recovery — and an address shown without its
 * password.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "controller/lr_ctl_dev.h"
#include "planner/lr_utf8.h"
#include "tests/lr_test.h"

static struct lr_ctl_dev
fresh(void)
{
    struct sb_device_config cfg = { .name = "roadm-1", .driver = "restconf",
        .address = "https://ops:s3cret@10.0.0.1:8443/restconf" };
    struct lr_ctl_dev d;
    lr_ctl_dev_init(&d, &cfg);
    return d;
}

static void
test_track(void)
{
    struct lr_ctl_dev d = fresh();
    /* Never tried: up, nothing counted, no times. */
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ops, 0);
    CU_ASSERT_EQUAL(d.ok_ms, 0);
    CU_ASSERT_EQUAL(d.fail_ms, 0);
    CU_ASSERT_STRING_EQUAL(d.why, "");
    CU_ASSERT_STRING_EQUAL(d.address, "https://ops@10.0.0.1:8443/restconf");

    lr_ctl_dev_note(&d, 0, NULL, 1000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ok_ms, 1000);
    CU_ASSERT_EQUAL(d.ops, 1);
    CU_ASSERT_EQUAL(d.failures, 0);

    /* A refusal is an answer: up, the failure and its line kept. */
    lr_ctl_dev_note(&d, EPROTO, "roadm-1: the device refused the edit:\n"
                    "in-use", 2000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.fail_ms, 2000);
    CU_ASSERT_EQUAL(d.ok_ms, 1000);
    CU_ASSERT_STRING_EQUAL(d.why, "roadm-1: the device refused the edit: "
                           "in-use");
    CU_ASSERT_EQUAL(d.ops, 2);
    CU_ASSERT_EQUAL(d.failures, 1);

    /* A timeout: down, the outcome unknown. */
    lr_ctl_dev_note(&d, ETIMEDOUT, "roadm-1: no reply within 5000 ms", 3000);
    CU_ASSERT(!d.up);
    CU_ASSERT_EQUAL(d.fail_ms, 3000);
    CU_ASSERT_STRING_EQUAL(d.why, "roadm-1: no reply within 5000 ms");
    CU_ASSERT_EQUAL(d.failures, 2);
    /* Unreachable, no line: down, strerror's words. */
    lr_ctl_dev_note(&d, EHOSTUNREACH, "", 3500);
    CU_ASSERT(!d.up);
    CU_ASSERT_STRING_EQUAL(d.why, strerror(EHOSTUNREACH));

    /* Recovery: up, the last failure still said with its time. */
    lr_ctl_dev_note(&d, 0, NULL, 4000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ok_ms, 4000);
    CU_ASSERT_EQUAL(d.fail_ms, 3500);
    CU_ASSERT_STRING_EQUAL(d.why, strerror(EHOSTUNREACH));
    CU_ASSERT_EQUAL(d.ops, 5);
    CU_ASSERT_EQUAL(d.failures, 3);
}

/* An op's operations, seen on its thread and folded at its end: the
 * last decides up, the last failure's line is kept. */
static void
test_fold(void)
{
    struct lr_ctl_dev d = fresh();
    struct lr_ctl_dev_seen s = { 0 };
    lr_ctl_dev_fold(&d, &s, 500);     /* saw nothing: nothing changes */
    CU_ASSERT_EQUAL(d.ops, 0);
    CU_ASSERT_EQUAL(d.ok_ms, 0);
    /* An apply that timed out, then the read back that answered. */
    lr_ctl_dev_see(&s, ETIMEDOUT, "roadm-1: no answer");
    lr_ctl_dev_see(&s, 0, NULL);
    lr_ctl_dev_fold(&d, &s, 1000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ops, 2);
    CU_ASSERT_EQUAL(d.failures, 1);
    CU_ASSERT_EQUAL(d.ok_ms, 1000);
    CU_ASSERT_EQUAL(d.fail_ms, 1000);
    CU_ASSERT_STRING_EQUAL(d.why, "roadm-1: no answer");
    /* Only failures: no success stamped. */
    struct lr_ctl_dev_seen t = { 0 };
    lr_ctl_dev_see(&t, ETIMEDOUT, "roadm-1: no answer again");
    lr_ctl_dev_fold(&d, &t, 2000);
    CU_ASSERT(!d.up);
    CU_ASSERT_EQUAL(d.ok_ms, 1000);
    CU_ASSERT_EQUAL(d.fail_ms, 2000);
}

static void
test_unreached(void)
{
    static const int down[] = { ETIMEDOUT, EHOSTUNREACH, EAGAIN, EACCES,
                                ECONNREFUSED, ECONNRESET, EPIPE };
    static const int up[] = { 0, EPROTO, EEXIST, ENOENT, EINVAL, EIO,
                              ENOMEM, ERANGE };
    for (size_t i = 0; i < sizeof down / sizeof down[0]; i++)
        CU_ASSERT(sb_unanswered(down[i]));
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++)
        CU_ASSERT(!sb_unanswered(up[i]));
}

/* A failure on the controller's side (EINVAL: a schema path, a key or
 * CA file the driver cannot use) never reached the device and proves
 * nothing of it: up or down stays as it was, the failure and its line
 * are kept, no success is stamped. */
static void
test_local(void)
{
    struct lr_ctl_dev d = fresh();
    CU_ASSERT(lr_ctl_dev_local(EINVAL));
    CU_ASSERT(!lr_ctl_dev_local(0));
    CU_ASSERT(!lr_ctl_dev_local(EPROTO));
    CU_ASSERT(!lr_ctl_dev_local(ETIMEDOUT));

    lr_ctl_dev_note(&d, EINVAL, "roadm-1: cannot make a YANG context on "
                    "the schema path /nope: check schema-path", 1000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ops, 1);
    CU_ASSERT_EQUAL(d.failures, 1);
    CU_ASSERT_EQUAL(d.ok_ms, 0);
    CU_ASSERT_EQUAL(d.fail_ms, 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.why, "schema path /nope"));

    /* Down, then a local failure: still down, with the new line. */
    lr_ctl_dev_note(&d, EHOSTUNREACH, "roadm-1: cannot connect", 2000);
    CU_ASSERT(!d.up);
    lr_ctl_dev_note(&d, EINVAL, "roadm-1: cannot use the client key k.pem",
                    3000);
    CU_ASSERT(!d.up);
    CU_ASSERT_EQUAL(d.fail_ms, 3000);
    CU_ASSERT_STRING_EQUAL(d.why, "roadm-1: cannot use the client key "
                           "k.pem");
    CU_ASSERT_EQUAL(d.ok_ms, 0);

    /* In one op the last answer from the device decides, not a local
     * failure after it. */
    struct lr_ctl_dev_seen s = { 0 };
    lr_ctl_dev_see(&s, 0, NULL);
    lr_ctl_dev_see(&s, EINVAL, "roadm-1: cannot use the CA file ca.pem");
    lr_ctl_dev_fold(&d, &s, 4000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.ok_ms, 4000);
    struct lr_ctl_dev_seen t = { 0 };
    lr_ctl_dev_see(&t, ETIMEDOUT, "roadm-1: no answer");
    lr_ctl_dev_see(&t, EINVAL, "roadm-1: cannot use the CA file ca.pem");
    lr_ctl_dev_fold(&d, &t, 5000);
    CU_ASSERT(!d.up);
    CU_ASSERT_STRING_EQUAL(d.why, "roadm-1: cannot use the CA file ca.pem");
}

/* ENOMEM is the controller's host lacking what an operation needs (a
 * thread to connect, memory, a descriptor, an answer from its own
 * resolver): nothing went to the device, whose up or down stays as the
 * device's last answer left it.  Before, ENOMEM counted as the
 * device's own answer: a ROADM shown down came back up on it. */
static void
test_local_resources(void)
{
    struct lr_ctl_dev d = fresh();
    CU_ASSERT(lr_ctl_dev_local(ENOMEM));
    CU_ASSERT(sb_local(ENOMEM));
    CU_ASSERT(sb_local(EINVAL));
    CU_ASSERT(!sb_local(EAGAIN));
    CU_ASSERT(!sb_local(EPROTO));
    CU_ASSERT(!sb_local(0));
    /* No code is both: the two lists tell three cases apart. */
    for (int rc = 0; rc < 200; rc++)
        CU_ASSERT(!(sb_local(rc) && sb_unanswered(rc)));

    lr_ctl_dev_note(&d, ENOMEM, "roadm-1: cannot start a thread to "
                    "connect; retry", 1000);
    CU_ASSERT(d.up);
    CU_ASSERT_EQUAL(d.failures, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.why, "cannot start a thread"));
    lr_ctl_dev_note(&d, ETIMEDOUT, "roadm-1: no answer", 2000);
    CU_ASSERT(!d.up);
    lr_ctl_dev_note(&d, ENOMEM, "roadm-1: cannot resolve r1.example "
                    "(Temporary failure in name resolution)", 3000);
    CU_ASSERT(!d.up);
    CU_ASSERT_EQUAL(d.ok_ms, 0);
    CU_ASSERT_EQUAL(d.fail_ms, 3000);
}

static void
test_address(void)
{
    static const struct { const char *in, *out; } rows[] = {
        { "https://10.0.0.1:8443", "https://10.0.0.1:8443" },
        { "https://u:p@h:1/x", "https://u@h:1/x" },
        { "https://u:p@ss@h:1", "https://u@h:1" },
        { "admin@10.0.0.2:830", "admin@10.0.0.2:830" },
        { "/var/lib/lightrail/roadms", "/var/lib/lightrail/roadms" },
        { "http://127.0.0.1:8080#r1", "http://127.0.0.1:8080#r1" },
        { "http://h/p:q@r", "http://h/p:q@r" },   /* '@' past the host */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char out[256];
        lr_ctl_dev_address(rows[i].in, out, sizeof out);
        CU_ASSERT_STRING_EQUAL(out, rows[i].out);
    }
}

/* Whether 's' is well-formed UTF-8 (RFC 3629: no overlong form, no
 * surrogate, nothing past U+10FFFF). */
static bool
utf8_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *) s;
    while (*p) {
        int n = *p < 0x80 ? 0 : *p >= 0xc2 && *p <= 0xdf ? 1
              : *p >= 0xe0 && *p <= 0xef ? 2 : *p >= 0xf0 && *p <= 0xf4 ? 3
              : -1;
        if (n < 0)
            return false;
        unsigned lo = *p == 0xe0 ? 0xa0 : *p == 0xf0 ? 0x90 : 0x80;
        unsigned hi = *p == 0xed ? 0x9f : *p == 0xf4 ? 0x8f : 0xbf;
        p++;
        for (int k = 0; k < n; k++, p++, lo = 0x80, hi = 0xbf)
            if (*p < lo || *p > hi)
                return false;
    }
    return true;
}

/* The reason goes to the state (RFC 7951 JSON: UTF-8), the log and a
 * terminal (lightrail devices): a line cut at its size keeps whole
 * characters, a device's control characters (a tab, an escape
 * sequence) are spaces, a byte that is no UTF-8 is '?'. */
static void
test_reason_text(void)
{
    char line[600] = "xx";
    for (int i = 0; i < 200; i++)
        strcat(line, "\xc3\xa9");              /* U+00E9, 2 bytes */
    struct lr_ctl_dev_seen s = { 0 };
    lr_ctl_dev_see(&s, EPROTO, line);
    CU_ASSERT(utf8_ok(s.why));
    /* Cut at a character, marked as the job's reasons are. */
    CU_ASSERT(lr_utf8_is_cut(s.why, sizeof s.why));
    size_t kept = strlen(s.why) - (sizeof LR_UTF8_CUT_MARK - 1);
    CU_ASSERT(kept >= LR_CTL_DEV_WHY - 1 - (sizeof LR_UTF8_CUT_MARK - 1)
                     - 1);
    CU_ASSERT_EQUAL(strncmp(s.why, line, kept), 0);
    lr_ctl_dev_see(&s, EPROTO, "r1: refused\t(\x1b[31mred\x1b[0m)\x7f");
    CU_ASSERT_STRING_EQUAL(s.why, "r1: refused ( [31mred [0m) ");
    lr_ctl_dev_see(&s, EPROTO, "r1: \xff\xc3(\xed\xa0\x80) \xe2\x82\xac ok");
    CU_ASSERT_STRING_EQUAL(s.why, "r1: ?\?(?\?\?) \xe2\x82\xac ok");
    CU_ASSERT(utf8_ok(s.why));
}

static CU_TestInfo tests[] = {
    { "success, refusal, timeout, recovery", test_track },
    { "an op's operations folded at its end", test_fold },
    { "down is no answer, up any answer", test_unreached },
    { "a local failure leaves up or down as it was", test_local },
    { "ENOMEM (a thread, memory, the resolver) is local",
      test_local_resources },
    { "an address without its password", test_address },
    { "a reason in whole characters, one line", test_reason_text },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("ctl_dev", tests)
