/*
 * lr_test_netns: the main() of a test program that makes network
 * namespaces (the emulated data plane).  Shell tests have `trap`; this
 * is the same for a CUnit program:
 *   - exit 77 (skipped) when not root or when this process cannot make a
 *     network namespace (a container without CAP_SYS_ADMIN);
 *   - the tests run in a child process, so that whatever happens to them
 *     (a failed fatal assertion, a crash), the parent then removes every
 *     namespace named PREFIX-* (sb_linux_cleanup()) and checks from
 *     outside that no namespace /run/netns/PREFIX-*, no lock
 *     /run/lightrail/PREFIX.lock and no interface PREFIXv* in its own
 *     namespace is left; anything left is a failure,
 *     reported as the program's last summary line.
 * Usage, after LR_TEST_MAIN renamed (see tests/unit/test_sb_linux.c):
 *     int main(void) { return lr_test_netns_main("t", prefix,
 *                                                sizeof prefix,
 *                                                lr_test_main); }
 */
#ifndef LR_TEST_NETNS_H
#define LR_TEST_NETNS_H 1

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "southbound/sb_linux.h"

/* Namespaces and host interfaces named after 'prefix', printed. */
static inline int
lr_test_netns_leftovers(const char *prefix)
{
    char ns[32], ifp[32];
    int n = 0;
    snprintf(ns, sizeof ns, "%s-", prefix);
    snprintf(ifp, sizeof ifp, "%sv", prefix);
    DIR *d = opendir("/run/netns");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, ns, strlen(ns))) {
            printf("left behind: namespace %s\n", e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    char lock[64];
    snprintf(lock, sizeof lock, "/run/lightrail/%s.lock", prefix);
    if (access(lock, F_OK) == 0) {
        printf("left behind: %s\n", lock);
        n++;
    }
    struct if_nameindex *ifs = if_nameindex();
    for (struct if_nameindex *i = ifs; i && i->if_name; i++)
        if (!strncmp(i->if_name, ifp, strlen(ifp))) {
            printf("left behind: interface %s\n", i->if_name);
            n++;
        }
    if (ifs)
        if_freenameindex(ifs);
    return n;
}

/* Deletes interface 'ifname' in namespace 'ns' as an operator would
 * (`ip netns exec NS ip link del IF`): a child process enters the
 * namespace and sends RTM_DELLINK; 0 = the kernel said yes. */
static inline int
lr_test_netns_link_del(const char *ns, const char *ifname)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char path[128];
        snprintf(path, sizeof path, "/run/netns/%s", ns);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || setns(fd, CLONE_NEWNET))
            _exit(1);
        struct {
            struct nlmsghdr h;
            struct ifinfomsg i;
        } req = {
            .h = { .nlmsg_len = sizeof req, .nlmsg_type = RTM_DELLINK,
                   .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
            .i = { .ifi_family = AF_UNSPEC,
                   .ifi_index = (int) if_nametoindex(ifname) },
        };
        struct {
            struct nlmsghdr h;
            struct nlmsgerr e;
        } ack;
        int sk = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
        if (sk < 0 || req.i.ifi_index == 0
            || send(sk, &req, sizeof req, 0) != (ssize_t) sizeof req
            || recv(sk, &ack, sizeof ack, 0) < (ssize_t) sizeof ack
            || ack.h.nlmsg_type != NLMSG_ERROR || ack.e.error != 0)
            _exit(1);
        _exit(0);
    }
    int status = -1;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
           ? WEXITSTATUS(status) : -1;
}

/* Sets prefix[] to 'letter' + the PID, runs 'run' as described above and
 * returns the exit status. */
static inline int
lr_test_netns_main(const char *letter, char *prefix, size_t len,
                   int (*run)(void))
{
    snprintf(prefix, len, "%s%d", letter, (int) getpid() % 10000000);
    if (geteuid() != 0) {
        printf("skipped: the emulated data plane needs root\n");
        return 77;
    }
    int status = 0;
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWNET) ? 1 : 0);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) {
        printf("skipped: network namespaces are unavailable here\n");
        return 77;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0)
        exit(run());
    status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        status = -1;
    fflush(NULL);
    int left = lr_test_netns_leftovers(prefix);
    char err[256];
    sb_linux_cleanup(prefix, NULL, err, sizeof err);
    if (!WIFEXITED(status) || left) {
        printf("lr-test: 0 passed, 1 failed (%s)\n",
               left ? "namespaces or interfaces left behind"
                    : "the tests died");
        return 1;
    }
    return WEXITSTATUS(status);
}

#endif
