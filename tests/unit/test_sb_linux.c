/*
 * sb_linux: the emulated data plane against the real kernel (root only;
 * exit 77, "skipped", when not root or when network namespaces cannot
 * be made).  Every namespace is made under a prefix of this process's
 * own ("t" + pid), so that parallel runs never meet, and removed by the
 * tests themselves; tests/cli/emulate.sh checks from outside that
 * nothing is left.
 *
 * What it asserts: bad configurations and bad lightpaths are refused
 * with a message and leave nothing; the DC namespaces exist while the
 * handle lives and are gone after sb_linux_free(); a lightpath's pair is
 * made, refused twice, removed, and its interfaces never appear in the
 * host's namespace; tbf holds a TCP transfer to the set rate (the wire
 * rate from the link counters within 10% of the rate, the best of three
 * runs, since a loaded machine can only make it slower, never faster);
 * the counters count what the probe sent; a prefix in use is refused to
 * a second handle and to cleanup; leftovers of a crashed run are removed
 * by sb_linux_cleanup() and by the next handle.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "southbound/sb_linux.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_netns.h"

static char prefix[16];
static const char *const two[] = { "dcA", "dcB" };

static bool
ns_exists(const char *dc)
{
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s-%s", prefix, dc);
    return access(path, F_OK) == 0;
}

static struct sb_linux *
make(double scale)
{
    struct sb_linux_config cfg = { prefix, scale, 2, two };
    struct sb_linux *lx = NULL;
    char err[256];
    int rc = sb_linux_new(&cfg, &lx, err, sizeof err);
    if (rc)
        fprintf(stderr, "sb_linux_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return lx;
}

static void
test_bad_config(void)
{
    struct sb_linux *lx = NULL;
    char err[256];
    struct sb_linux_config bad_prefix = { "Bad-Prefix", 1, 2, two };
    CU_ASSERT_EQUAL(sb_linux_new(&bad_prefix, &lx, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "prefix"));
    static const char *const slash[] = { "dcA", "d/c" };
    struct sb_linux_config bad_dc = { prefix, 1, 2, slash };
    CU_ASSERT_EQUAL(sb_linux_new(&bad_dc, &lx, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "d/c"));
    struct sb_linux_config none = { prefix, 1, 0, two };
    CU_ASSERT_EQUAL(sb_linux_new(&none, &lx, err, sizeof err), EINVAL);
    struct sb_linux_config neg = { prefix, -1, 2, two };
    CU_ASSERT_EQUAL(sb_linux_new(&neg, &lx, err, sizeof err), EINVAL);
    /* Not a number is not "0: the default". */
    struct sb_linux_config nan_scale = { prefix, NAN, 2, two };
    CU_ASSERT_EQUAL(sb_linux_new(&nan_scale, &lx, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "scale"));
    CU_ASSERT_PTR_NULL(lx);
    CU_ASSERT_FALSE(ns_exists("dcA"));
    CU_ASSERT_FALSE(ns_exists("dcB"));
}

static void
test_namespaces(void)
{
    struct sb_linux *lx = make(1);
    CU_ASSERT_TRUE(ns_exists("dcA"));
    CU_ASSERT_TRUE(ns_exists("dcB"));
    char want[64];
    snprintf(want, sizeof want, "%s-dcB", prefix);
    CU_ASSERT_STRING_EQUAL(sb_linux_dc_ns(lx, 1), want);
    CU_ASSERT_PTR_NULL(sb_linux_dc_ns(lx, 2));
    sb_linux_free(lx);
    CU_ASSERT_FALSE(ns_exists("dcA"));
    CU_ASSERT_FALSE(ns_exists("dcB"));
}

static void
test_links(void)
{
    struct sb_linux *lx = make(1);
    char err[256];
    struct sb_linux_link l, *all = NULL;
    int n = -1;
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp1", 0, 1, 100, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp1", 1, 0, 100, err, sizeof err),
                    EEXIST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "j1/lp1"));
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp2", 0, 0, 100, err, sizeof err),
                    EINVAL);
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp2", 0, 5, 100, err, sizeof err),
                    EINVAL);
    /* 100 Tb/s at 1 Mb/s per Gb/s is beyond tbf's 32-bit rate. */
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp2", 1, 0, 1e5, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "scale"));
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp2", 1, 0, 200, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(sb_linux_links(lx, &all, &n), 0);
    CU_ASSERT_EQUAL(n, 2);
    free(all);
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j1/lp1", &l), 0);
    CU_ASSERT_EQUAL(l.from_dc, 0);
    CU_ASSERT_EQUAL(l.to_dc, 1);
    CU_ASSERT_DOUBLE_EQUAL(l.rate_bps, 100e6, 1);
    CU_ASSERT_STRING_EQUAL(l.src_addr, "10.77.0.1");
    CU_ASSERT_STRING_EQUAL(l.dst_addr, "10.77.0.2");
    /* Both ends live in the DCs' namespaces, never in ours. */
    CU_ASSERT_EQUAL(if_nametoindex(l.src_if), 0);
    CU_ASSERT_EQUAL(if_nametoindex(l.dst_if), 0);
    CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j1/lp1", &l), 0);
    CU_ASSERT_NOT_EQUAL(l.sampled_ms, 0);
    CU_ASSERT_EQUAL(sb_linux_remove(lx, "j1/lp1", err, sizeof err), 0);
    CU_ASSERT_EQUAL(sb_linux_remove(lx, "j1/lp1", err, sizeof err), ENOENT);
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j1/lp1", &l), ENOENT);
    /* The freed slot is reused: the same name, a new pair. */
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j1/lp1", 0, 1, 100, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j1/lp1", &l), 0);
    CU_ASSERT_STRING_EQUAL(l.src_addr, "10.77.0.1");
    sb_linux_free(lx);
}

static void
test_gone_behind_its_back(void)
{
    /* A pair deleted in the kernel by someone else: the sample says so
     * and to reconcile, and what reconciliation does (a lightpath the
     * handle does not hold is added again) must then work. */
    struct sb_linux *lx = make(1);
    char err[256] = "";
    struct sb_linux_link l;
    CU_ASSERT_EQUAL_FATAL(sb_linux_add(lx, "j/lp1", 0, 1, 100, err,
                                       sizeof err), 0);
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j/lp2", 1, 0, 100, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL_FATAL(sb_linux_get(lx, "j/lp1", &l), 0);
    CU_ASSERT_EQUAL_FATAL(lr_test_netns_link_del(l.src_ns, l.src_if), 0);
    CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "j/lp1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "reconcile"));
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j/lp1", &l), ENOENT);
    CU_ASSERT_EQUAL(sb_linux_get(lx, "j/lp2", &l), 0);
    CU_ASSERT_NOT_EQUAL(l.sampled_ms, 0);     /* the other one sampled */
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j/lp1", 0, 1, 100, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), 0);
    sb_linux_free(lx);
}

static void
test_shaping(void)
{
    struct sb_linux *lx = make(1);
    char err[256];
    const uint64_t bytes = 4000000;
    double best_wire = 0, worst_wire = 1e18;
    CU_ASSERT_EQUAL_FATAL(sb_linux_add(lx, "j/lp1", 0, 1, 100, err,
                                       sizeof err), 0);
    for (int run = 0; run < 3; run++) {
        struct sb_linux_link before, after;
        double t = 0, goodput = 0;
        CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), 0);
        sb_linux_get(lx, "j/lp1", &before);
        int rc = sb_linux_probe(lx, "j/lp1", bytes, NULL, &t, &goodput, err,
                                sizeof err);
        if (rc)
            fprintf(stderr, "probe: %s\n", err);
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), 0);
        sb_linux_get(lx, "j/lp1", &after);
        uint64_t wire = after.tx_bytes - before.tx_bytes;
        /* Every payload byte crossed, with its headers. */
        CU_ASSERT(wire >= bytes);
        CU_ASSERT(after.rx_bytes - before.rx_bytes >= bytes);
        CU_ASSERT(after.tx_packets > before.tx_packets);
        CU_ASSERT_EQUAL(after.tx_errors, 0);
        CU_ASSERT_EQUAL(after.rx_errors, 0);
        double wire_bps = (double) wire * 8 / t;
        printf("\nrun %d: %.3f s, goodput %.2f Mb/s, wire %.2f Mb/s "
               "(set 100)", run, t, goodput / 1e6, wire_bps / 1e6);
        if (wire_bps > best_wire)
            best_wire = wire_bps;
        if (wire_bps < worst_wire)
            worst_wire = wire_bps;
    }
    /* The shaper never lets more through than the rate, plus its 64 KB
     * bucket (1.3% of 4 MB here). */
    CU_ASSERT(worst_wire <= 100e6 * 1.10);
    CU_ASSERT(best_wire <= 100e6 * 1.10);
    CU_ASSERT(best_wire >= 100e6 * 0.90);
    sb_linux_free(lx);
}

static void
test_probe_errors(void)
{
    struct sb_linux *lx = make(1);
    char err[256];
    double t;
    CU_ASSERT_EQUAL(sb_linux_probe(lx, "nope", 10, NULL, &t, NULL, err,
                                   sizeof err), ENOENT);
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j/lp1", 0, 1, 100, err, sizeof err),
                    0);
    CU_ASSERT_EQUAL(sb_linux_probe(lx, "j/lp1", 0, NULL, &t, NULL, err,
                                   sizeof err), EINVAL);
    int stop = 1;
    CU_ASSERT_EQUAL(sb_linux_probe(lx, "j/lp1", 1000000, &stop, &t, NULL,
                                   err, sizeof err), EINTR);
    sb_linux_free(lx);
}

/* The processes of 'pid' (from /proc), at most 'max'; how many. */
static int
children_of(pid_t pid, pid_t *out, int max)
{
    char path[64];
    int n = 0, c;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int) pid,
             (int) pid);
    FILE *f = fopen(path, "r");
    while (f && n < max && fscanf(f, "%d", &c) == 1)
        out[n++] = c;
    if (f)
        fclose(f);
    return n;
}

/* Whether process 'pid' is in another network namespace than ours. */
static bool
in_other_netns(pid_t pid)
{
    char path[64], theirs[64] = "", ours[64] = "";
    snprintf(path, sizeof path, "/proc/%d/ns/net", (int) pid);
    ssize_t a = readlink(path, theirs, sizeof theirs - 1);
    ssize_t b = readlink("/proc/self/ns/net", ours, sizeof ours - 1);
    return a > 0 && b > 0 && strcmp(theirs, ours) != 0;
}

static void
test_killed_during_probe(void)
{
    /* A run killed (SIGKILL) in the middle of a probe: its probe
     * processes must neither keep its prefix (the next run is refused as
     * "in use" while they live) nor outlive it in its namespaces.  We
     * become the orphans' reaper to see how they end. */
    int ready[2];
    CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
    CU_ASSERT_EQUAL_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* 8 Gb/s at 1 Mb/s per Gb/s: 1 GB takes about 1000 s. */
        struct sb_linux_config cfg = { prefix, 1, 2, two };
        struct sb_linux *lx = NULL;
        char e[256];
        double t;
        close(ready[0]);
        if (sb_linux_new(&cfg, &lx, e, sizeof e)
            || sb_linux_add(lx, "j/lp1", 0, 1, 8, e, sizeof e)
            || write(ready[1], "r", 1) != 1)
            _exit(1);
        sb_linux_probe(lx, "j/lp1", 1000000000, NULL, &t, NULL, e, sizeof e);
        _exit(2);
    }
    close(ready[1]);
    char c;
    CU_ASSERT_EQUAL_FATAL(read(ready[0], &c, 1), 1);
    close(ready[0]);
    /* Until both probe processes are in the DC namespaces. */
    pid_t kids[8];
    int n = 0;
    for (int i = 0; i < 1000; i++) {
        n = children_of(pid, kids, 8);
        if (n == 2 && in_other_netns(kids[0]) && in_other_netns(kids[1]))
            break;
        usleep(10000);
    }
    CU_ASSERT_EQUAL(n, 2);
    kill(pid, SIGKILL);
    CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
    /* The next run takes the prefix and clears the leftovers. */
    struct sb_linux_config cfg = { prefix, 1, 2, two };
    struct sb_linux *lx = NULL;
    char err[256] = "";
    int rc = sb_linux_new(&cfg, &lx, err, sizeof err);
    if (rc)
        fprintf(stderr, "\nnext run: %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    sb_linux_free(lx);
    /* The probe processes died with the run (they are ours now). */
    for (int k = 0; k < n; k++) {
        int status = 0, w = 0;
        for (int i = 0; i < 2000 && w == 0; i++) {
            w = waitpid(kids[k], &status, WNOHANG);
            if (w == 0)
                usleep(10000);
        }
        if (w == 0) {
            CU_FAIL("a probe process outlived its run");
            kill(kids[k], SIGKILL);
            waitpid(kids[k], &status, 0);
        } else {
            CU_ASSERT_EQUAL(w, kids[k]);
            CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        }
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    sb_linux_cleanup(prefix, NULL, err, sizeof err);
}

static void
test_one_per_prefix(void)
{
    struct sb_linux *lx = make(1), *other = NULL;
    char err[256];
    CU_ASSERT_EQUAL(sb_linux_add(lx, "j/lp1", 0, 1, 100, err, sizeof err),
                    0);
    /* A second handle, or a cleanup, with a live prefix: refused, and
     * the live one's namespaces and pair stay. */
    struct sb_linux_config cfg = { prefix, 1, 2, two };
    CU_ASSERT_EQUAL(sb_linux_new(&cfg, &other, err, sizeof err), EBUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in use"));
    CU_ASSERT_PTR_NULL(other);
    int removed = -1;
    CU_ASSERT_EQUAL(sb_linux_cleanup(prefix, &removed, err, sizeof err),
                    EBUSY);
    CU_ASSERT_TRUE(ns_exists("dcA"));
    CU_ASSERT_TRUE(ns_exists("dcB"));
    CU_ASSERT_EQUAL(sb_linux_sample(lx, err, sizeof err), 0);
    sb_linux_free(lx);
    /* Free gives the prefix back. */
    lx = make(1);
    sb_linux_free(lx);
}

static void
test_cleanup(void)
{
    /* A run that dies without sb_linux_free(): its namespaces stay, its
     * lock goes with the process. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct sb_linux_config cfg = { prefix, 1, 2, two };
        struct sb_linux *lx = NULL;
        char e[256];
        _exit(sb_linux_new(&cfg, &lx, e, sizeof e)
              || sb_linux_add(lx, "j/lp1", 0, 1, 100, e, sizeof e) ? 1 : 0);
    }
    int status = -1;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_EQUAL_FATAL(status, 0);
    CU_ASSERT_TRUE(ns_exists("dcA"));
    char err[256];
    int removed = -1;
    CU_ASSERT_EQUAL(sb_linux_cleanup(prefix, &removed, err, sizeof err), 0);
    CU_ASSERT_EQUAL(removed, 2);
    CU_ASSERT_FALSE(ns_exists("dcA"));
    CU_ASSERT_EQUAL(sb_linux_cleanup(prefix, &removed, err, sizeof err), 0);
    CU_ASSERT_EQUAL(removed, 0);
    CU_ASSERT_EQUAL(sb_linux_cleanup("BAD", &removed, err, sizeof err),
                    EINVAL);
    /* A new handle clears leftovers by itself too. */
    pid = fork();
    if (pid == 0) {
        struct sb_linux_config cfg = { prefix, 1, 2, two };
        struct sb_linux *lx = NULL;
        char e[256];
        _exit(sb_linux_new(&cfg, &lx, e, sizeof e) ? 1 : 0);
    }
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    struct sb_linux *lx = make(1);
    struct sb_linux_link *all = NULL;
    int n = -1;
    CU_ASSERT_EQUAL(sb_linux_links(lx, &all, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    free(all);
    sb_linux_free(lx);
    CU_ASSERT_FALSE(ns_exists("dcA"));
}

static CU_TestInfo tests[] = {
    { "bad configurations make nothing", test_bad_config },
    { "a namespace per DC, removed on free", test_namespaces },
    { "lightpaths: add, refuse, remove", test_links },
    { "a pair deleted behind its back is made again",
      test_gone_behind_its_back },
    { "tbf holds TCP to the rate", test_shaping },
    { "probe errors", test_probe_errors },
    { "a run killed during a probe leaves nothing running",
      test_killed_during_probe },
    { "one live handle per prefix", test_one_per_prefix },
    { "cleanup of leftovers", test_cleanup },
    CU_TEST_INFO_NULL,
};

/* LR_TEST_MAIN's main() under another name, so that ours can skip. */
#define main lr_test_main
int lr_test_main(void);
LR_TEST_MAIN("sb_linux", tests)
#undef main

int
main(void)
{
    return lr_test_netns_main("t", prefix, sizeof prefix, lr_test_main);
}
