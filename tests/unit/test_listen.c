/*
 * lr_listen: lightraild's hint for a listener the kernel refused,
 * worded by the host's first unprivileged port
 * (net.ipv4.ip_unprivileged_port_start), which it reads from /proc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/lr_listen.h"
#include "tests/lr_test.h"

/* The start read from a file holding 'text' (NULL: no file). */
static int
start_of(const char *text)
{
    char path[] = "/tmp/lr-listen-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    if (text)
        CU_ASSERT_EQUAL(write(fd, text, strlen(text)),
                        (ssize_t) strlen(text));
    close(fd);
    if (!text)
        unlink(path);
    int v = lr_listen_unpriv_start(path);
    if (text)
        unlink(path);
    return v;
}

static void
test_unpriv_start_read(void)
{
    CU_ASSERT_EQUAL(start_of("1024\n"), 1024);
    CU_ASSERT_EQUAL(start_of("0\n"), 0);
    CU_ASSERT_EQUAL(start_of("80"), 80);
    CU_ASSERT_EQUAL(start_of(NULL), -1);
    CU_ASSERT_EQUAL(start_of(""), -1);
    CU_ASSERT_EQUAL(start_of("x\n"), -1);
    CU_ASSERT_EQUAL(start_of("-1\n"), -1);
    CU_ASSERT_EQUAL(start_of("70000\n"), -1);
    /* This host's, whatever it is, is a port or not known. */
    int here = lr_listen_unpriv_start(LR_LISTEN_UNPRIV_PATH);
    CU_ASSERT(here >= -1 && here <= 65536);
}

/* A port below the host's start wants the privilege, and the port to
 * set is the start, not 1024; one at or above it (or any, 0) was not
 * refused for the privilege: raising it would not help, so the hint
 * says what else refuses a bind.  Until 2026-12-07 every EACCES was
 * "a port below 1024 needs root". */
static void
test_eacces_by_start(void)
{
    char hint[512];

    lr_listen_hint(EACCES, "/etc/l.json", 1500, 2000, hint, sizeof hint);
    CU_ASSERT_STRING_EQUAL(hint, ": a port below 2000 "
                           "(net.ipv4.ip_unprivileged_port_start) needs root "
                           "or CAP_NET_BIND_SERVICE: set listen/port in "
                           "/etc/l.json to 2000 or above, or grant the "
                           "capability");
    lr_listen_hint(EACCES, "/etc/l.json", 8443, 1024, hint, sizeof hint);
    CU_ASSERT_STRING_EQUAL(hint, ": port 8443 is not privileged on this "
                           "host (net.ipv4.ip_unprivileged_port_start is "
                           "1024), so something else refused it: a security "
                           "module (SELinux: ausearch -m avc; AppArmor: the "
                           "kernel log) or the restrictions of lightraild's "
                           "systemd unit; allow it there, or set listen/port "
                           "in /etc/l.json to a port allowed");
    lr_listen_hint(EACCES, "/etc/l.json", 80, 0, hint, sizeof hint);
    CU_ASSERT_PTR_NOT_NULL(strstr(hint, "port 80 is not privileged"));
    lr_listen_hint(EACCES, "/etc/l.json", 0, 1024, hint, sizeof hint);
    CU_ASSERT_PTR_NOT_NULL(strstr(hint, "something else refused it"));
    lr_listen_hint(EACCES, "/etc/l.json", 80, -1, hint, sizeof hint);
    CU_ASSERT_PTR_NOT_NULL(strstr(hint, ": a privileged port (below 1024 "
                                        "unless "
                                        "net.ipv4.ip_unprivileged_port_start "
                                        "says otherwise)"));
}

static void
test_other_errnos(void)
{
    char hint[512] = "x";

    lr_listen_hint(EADDRINUSE, "c.json", 8080, 1024, hint, sizeof hint);
    CU_ASSERT_PTR_NOT_NULL(strstr(hint, "ss -ltnp 'sport = :8080' names "
                                        "it"));
    lr_listen_hint(EADDRNOTAVAIL, "c.json", 8080, 1024, hint, sizeof hint);
    CU_ASSERT_PTR_NOT_NULL(strstr(hint, "set listen/address in c.json"));
    lr_listen_hint(ENOMEM, "c.json", 8080, 1024, hint, sizeof hint);
    CU_ASSERT_STRING_EQUAL(hint, "");
}

static CU_TestInfo tests[] = {
    { "the first unprivileged port read", test_unpriv_start_read },
    { "EACCES worded by the host's first unprivileged port",
      test_eacces_by_start },
    { "another errno: its own hint, or none", test_other_errnos },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("listen", tests)
