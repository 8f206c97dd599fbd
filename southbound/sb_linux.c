/*
 * sb_linux: lightpaths as shaped veth pairs between DC network
 * namespaces, through libnl-route.  See sb_linux.h for the model, the
 * naming, the scaling and why this is not a struct sb_driver_class.
 *
 * Namespaces.  A named namespace is what `ip netns add` makes: an empty
 * file /run/netns/NAME with the namespace bind-mounted on it, which
 * keeps the namespace alive with no process in it.  We make it the same
 * way, without a child process: the calling thread unshares its network
 * namespace, bind-mounts /proc/thread-self/ns/net on the file and goes
 * back (setns) to where it was.  A netlink socket belongs to the
 * namespace it was created in, so one socket per DC namespace is opened
 * the same way and kept; the veth pair itself is created from the
 * caller's namespace with IFLA_NET_NS_FD on each end, so that neither end
 * ever appears in the host's namespace.
 */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/pkt_sched.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "southbound/sb_linux.h"

#define SB_LINUX_NETNS_DIR "/run/netns"
#define SB_LINUX_LOCK_DIR "/run/lightrail"
/* tbf's token bucket: 2 ms of the rate (at least a 64 KB GSO packet, so
 * that tbf need not segment every one), and a queue of 100 ms (at least
 * 1 MB) so that a TCP sender on the same host is slowed by the shaper,
 * not by drops. */
#define SB_LINUX_BUCKET_S 0.002
#define SB_LINUX_BUCKET_MIN 65536
#define SB_LINUX_LIMIT_S 0.1
#define SB_LINUX_LIMIT_MIN (1 << 20)

struct sb_linux_dc {
    char name[48];
    char ns[64];              /* PREFIX-NAME */
    int fd;                   /* the namespace, O_RDONLY */
    struct nl_sock *sk;       /* a route socket inside it */
};

struct sb_linux_entry {
    struct sb_linux_link l;
    int slot;
    int src_ifindex;
};

struct sb_linux {
    char prefix[SB_LINUX_PREFIX_MAX + 1];
    int lock_fd;              /* holds the prefix (see lock_prefix()) */
    double scale;
    struct nl_sock *host;     /* the caller's namespace */
    int n_dcs;
    struct sb_linux_dc dcs[SB_LINUX_MAX_DCS];
    struct sb_linux_entry *links;
    int n_links, cap_links;
};

/* libnl's negative NLE_* as a positive errno. */
static int
nl_errno(int nle)
{
    switch (nle < 0 ? -nle : nle) {
    case NLE_EXIST: return EEXIST;
    case NLE_OBJ_NOTFOUND: case NLE_NODEV: return ENOENT;
    case NLE_PERM: case NLE_NOACCESS: return EPERM;
    case NLE_NOMEM: return ENOMEM;
    case NLE_INVAL: case NLE_RANGE: return EINVAL;
    case NLE_BUSY: return EBUSY;
    default: return EIO;
    }
}

static int64_t
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
valid_prefix(const char *p)
{
    size_t n = strlen(p);
    if (n < 1 || n > SB_LINUX_PREFIX_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9')))
            return false;
    return true;
}

static bool
valid_dc_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 40)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

/* ---- namespaces ---- */

static int
ns_remove(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", SB_LINUX_NETNS_DIR, name);
    if (umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
        return errno;
    if (unlink(path) && errno != ENOENT)
        return errno;
    return 0;
}

/* Makes namespace 'name'; the calling thread ends in the namespace it
 * started in, or the function reports EIO and says so. */
static int
ns_make(const char *name, char *err, size_t errlen)
{
    char path[PATH_MAX];
    int rc = 0, self = -1, fd;
    if (mkdir(SB_LINUX_NETNS_DIR, 0755) && errno != EEXIST)
        return sb_errf(err, errlen, errno, "cannot create %s: %s; run as root",
                       SB_LINUX_NETNS_DIR, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", SB_LINUX_NETNS_DIR, name);
    fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0)
        return sb_errf(err, errlen, errno, "cannot create %s: %s%s", path,
                       strerror(errno), errno == EEXIST
                       ? "; another run uses this prefix, or remove it with "
                         "`ip netns del`" : "; run as root");
    close(fd);
    self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (self < 0) {
        rc = sb_errf(err, errlen, errno, "cannot open this thread's network "
                     "namespace: %s", strerror(errno));
        goto cleanup;
    }
    if (unshare(CLONE_NEWNET)) {
        rc = sb_errf(err, errlen, errno, "cannot create network namespace %s: "
                     "%s; run as root", name, strerror(errno));
        goto cleanup;
    }
    if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL))
        rc = sb_errf(err, errlen, errno, "cannot bind-mount namespace %s on "
                     "%s: %s", name, path, strerror(errno));
    if (setns(self, CLONE_NEWNET)) {
        /* Nothing else is safe now: this thread is in the new namespace. */
        rc = sb_errf(err, errlen, EIO, "cannot return to the original network "
                     "namespace: %s; stop this process", strerror(errno));
    }

cleanup:
    if (self >= 0)
        close(self);
    if (rc)
        ns_remove(name);
    return rc;
}

/* A route socket inside the namespace 'nsfd'. */
static int
sock_in(int nsfd, struct nl_sock **out, char *err, size_t errlen)
{
    struct nl_sock *sk = nl_socket_alloc();
    int self = -1, rc = 0;
    if (!sk)
        return sb_errf(err, errlen, ENOMEM, "out of memory");
    if (nsfd >= 0) {
        self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        if (self < 0 || setns(nsfd, CLONE_NEWNET)) {
            rc = sb_errf(err, errlen, errno,
                         "cannot enter a network namespace: "
                         "%s; run as root", strerror(errno));
            goto cleanup;
        }
    }
    int nle = nl_connect(sk, NETLINK_ROUTE);
    if (self >= 0 && setns(self, CLONE_NEWNET))
        rc = sb_errf(err, errlen, EIO, "cannot return to the original network "
                     "namespace: %s; stop this process", strerror(errno));
    else if (nle < 0)
        rc = sb_errf(err, errlen, nl_errno(nle), "netlink: %s",
                     nl_geterror(nle));

cleanup:
    if (self >= 0)
        close(self);
    if (rc)
        nl_socket_free(sk);
    else
        *out = sk;
    return rc;
}

/* Removes the namespaces PREFIX-*; the caller holds the prefix. */
static int
remove_prefix(const char *prefix, int *removed, char *err, size_t errlen)
{
    char want[SB_LINUX_PREFIX_MAX + 2];
    int n = 0, rc = 0;
    snprintf(want, sizeof want, "%s-", prefix);
    DIR *d = opendir(SB_LINUX_NETNS_DIR);
    if (!d) {
        if (removed)
            *removed = 0;
        return errno == ENOENT ? 0
               : sb_errf(err, errlen, errno, "cannot read %s: %s",
                         SB_LINUX_NETNS_DIR, strerror(errno));
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, want, strlen(want)))
            continue;
        int r = ns_remove(e->d_name);
        if (r && !rc)
            rc = sb_errf(err, errlen, r, "cannot remove network namespace %s: "
                         "%s", e->d_name, strerror(r));
        n += !r;
    }
    closedir(d);
    if (removed)
        *removed = n;
    return rc;
}

/* One process per prefix: a handle holds an exclusive flock(2) on
 * /run/lightrail/PREFIX.lock for its life, so that a second lightraild or
 * demo with the same prefix is refused instead of removing the first
 * one's namespaces as leftovers.  The kernel drops the lock when the
 * process dies, however it dies: a crashed run's namespaces are then
 * leftovers indeed.  The holder unlinks the file before it lets go
 * (unlock_prefix()), so nothing stays behind; a process that locked a
 * file just unlinked sees that the path no longer names its file and
 * tries again.  The file is not in /run/netns, where `ip netns` would
 * list it as a namespace.  Returns the descriptor in '*fd'. */
static int
lock_prefix(const char *prefix, int *fd, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (mkdir(SB_LINUX_LOCK_DIR, 0755) && errno != EEXIST)
        return sb_errf(err, errlen, errno, "cannot create %s: %s; run as root",
                       SB_LINUX_LOCK_DIR, strerror(errno));
    snprintf(path, sizeof path, "%s/%s.lock", SB_LINUX_LOCK_DIR, prefix);
    for (int tries = 0; tries < 100; tries++) {
        struct stat a, b;
        *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (*fd < 0)
            return sb_errf(err, errlen, errno, "cannot open %s: %s", path,
                           strerror(errno));
        if (flock(*fd, LOCK_EX | LOCK_NB)) {
            int e = errno;
            close(*fd);
            *fd = -1;
            return e == EWOULDBLOCK
                   ? sb_errf(err, errlen, EBUSY, "emulation prefix '%s' is in "
                             "use by another process (a running lightraild or "
                             "demo); stop it or choose another prefix", prefix)
                   : sb_errf(err, errlen, e, "cannot lock %s: %s", path,
                             strerror(e));
        }
        if (!fstat(*fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino
            && a.st_dev == b.st_dev)
            return 0;
        close(*fd);
        *fd = -1;
    }
    return sb_errf(err, errlen, EBUSY, "cannot hold %s: it keeps changing",
                   path);
}

static void
unlock_prefix(const char *prefix, int fd)
{
    char path[PATH_MAX];
    if (fd < 0)
        return;
    snprintf(path, sizeof path, "%s/%s.lock", SB_LINUX_LOCK_DIR, prefix);
    unlink(path);
    close(fd);
}

int
sb_linux_cleanup(const char *prefix, int *removed, char *err, size_t errlen)
{
    int fd = -1;
    if (!prefix || !valid_prefix(prefix))
        return sb_errf(err, errlen, EINVAL, "emulation prefix '%s': want 1 to "
                       "%d of a-z, 0-9", prefix ? prefix : "",
                       SB_LINUX_PREFIX_MAX);
    int rc = lock_prefix(prefix, &fd, err, errlen);
    if (!rc)
        rc = remove_prefix(prefix, removed, err, errlen);
    unlock_prefix(prefix, fd);
    return rc;
}

/* ---- the handle ---- */

int
sb_linux_new(const struct sb_linux_config *cfg, struct sb_linux **out,
             char *err, size_t errlen)
{
    const char *prefix = cfg->prefix ? cfg->prefix : SB_LINUX_DEFAULT_PREFIX;
    double scale = cfg->mbps_per_gbps > 0 ? cfg->mbps_per_gbps
                                          : SB_LINUX_DEFAULT_SCALE;
    int rc;
    if (!valid_prefix(prefix))
        return sb_errf(err, errlen, EINVAL, "emulation prefix '%s': want 1 to "
                       "%d of a-z, 0-9", prefix, SB_LINUX_PREFIX_MAX);
    if (!(scale <= 10000) || !(cfg->mbps_per_gbps >= 0))
        return sb_errf(err, errlen, EINVAL,
                       "emulation scale %g Mb/s per Gb/s: "
                       "want more than 0 and at most 10000",
                       cfg->mbps_per_gbps);
    if (cfg->n_dcs < 1 || cfg->n_dcs > SB_LINUX_MAX_DCS)
        return sb_errf(err, errlen, EINVAL, "emulation: %d data centers, want "
                       "1 to %d", cfg->n_dcs, SB_LINUX_MAX_DCS);
    for (int k = 0; k < cfg->n_dcs; k++)
        if (!valid_dc_name(cfg->dcs[k]))
            return sb_errf(err, errlen, EINVAL, "emulation: data center name "
                           "'%s' cannot name a namespace (want 1 to 40 of "
                           "A-Z a-z 0-9 _ . -)", cfg->dcs[k]);
    if (geteuid() != 0)
        return sb_errf(err, errlen, EPERM,
                       "the linux data plane makes network "
                       "namespaces: run as root");
    struct sb_linux *lx = calloc(1, sizeof *lx);
    if (!lx)
        return sb_errf(err, errlen, ENOMEM, "out of memory");
    snprintf(lx->prefix, sizeof lx->prefix, "%s", prefix);
    lx->lock_fd = -1;
    lx->scale = scale;
    for (int k = 0; k < SB_LINUX_MAX_DCS; k++)
        lx->dcs[k].fd = -1;
    rc = lock_prefix(lx->prefix, &lx->lock_fd, err, errlen);
    if (!rc)
        rc = remove_prefix(lx->prefix, NULL, err, errlen);
    if (rc)
        goto fail;
    rc = sock_in(-1, &lx->host, err, errlen);
    if (rc)
        goto fail;
    for (int k = 0; k < cfg->n_dcs; k++) {
        struct sb_linux_dc *d = &lx->dcs[k];
        char path[PATH_MAX];
        snprintf(d->name, sizeof d->name, "%s", cfg->dcs[k]);
        snprintf(d->ns, sizeof d->ns, "%s-%s", prefix, cfg->dcs[k]);
        rc = ns_make(d->ns, err, errlen);
        if (rc)
            goto fail;
        lx->n_dcs = k + 1;
        snprintf(path, sizeof path, "%s/%s", SB_LINUX_NETNS_DIR, d->ns);
        d->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (d->fd < 0) {
            rc = sb_errf(err, errlen, errno, "cannot open %s: %s", path,
                         strerror(errno));
            goto fail;
        }
        rc = sock_in(d->fd, &d->sk, err, errlen);
        if (rc)
            goto fail;
    }
    *out = lx;
    return 0;

fail:
    sb_linux_free(lx);
    return rc;
}

static int
link_delete(struct nl_sock *sk, const char *ifname)
{
    struct rtnl_link *l = rtnl_link_alloc();
    if (!l)
        return -NLE_NOMEM;
    rtnl_link_set_name(l, ifname);
    int nle = rtnl_link_delete(sk, l);
    rtnl_link_put(l);
    return nle;
}

void
sb_linux_free(struct sb_linux *lx)
{
    if (!lx)
        return;
    /* Each pair first (its qdisc goes with it), then the namespaces: a
     * namespace dies when the last reference to it goes, which may be
     * later than the unmount. */
    for (int i = 0; i < lx->n_links; i++)
        link_delete(lx->dcs[lx->links[i].l.from_dc].sk,
                    lx->links[i].l.src_if);
    for (int k = 0; k < SB_LINUX_MAX_DCS; k++) {
        struct sb_linux_dc *d = &lx->dcs[k];
        if (d->sk)
            nl_socket_free(d->sk);
        if (d->fd >= 0)
            close(d->fd);
        if (k < lx->n_dcs)
            ns_remove(d->ns);
    }
    if (lx->host)
        nl_socket_free(lx->host);
    /* Last: the namespaces are gone before another process may take
     * the prefix. */
    unlock_prefix(lx->prefix, lx->lock_fd);
    free(lx->links);
    free(lx);
}

double sb_linux_scale(const struct sb_linux *lx) { return lx->scale; }

const char *
sb_linux_dc_ns(const struct sb_linux *lx, int dc)
{
    return dc >= 0 && dc < lx->n_dcs ? lx->dcs[dc].ns : NULL;
}

static struct sb_linux_entry *
find(const struct sb_linux *lx, const char *name)
{
    for (int i = 0; i < lx->n_links; i++)
        if (!strcmp(lx->links[i].l.name, name))
            return &lx->links[i];
    return NULL;
}

/* The lowest slot no link uses. */
static int
free_slot(const struct sb_linux *lx)
{
    for (int s = 0; s < SB_LINUX_MAX_LINKS; s++) {
        bool used = false;
        for (int i = 0; i < lx->n_links && !used; i++)
            used = lx->links[i].slot == s;
        if (!used)
            return s;
    }
    return -1;
}

/* Address 'host' (1 or 2) of slot 's'. */
static void
slot_addr(int s, int host, char *out, size_t len)
{
    snprintf(out, len, "10.77.%d.%d", s / 64, (s % 64) * 4 + host);
}

/* Gives 'ifname' in the namespace of 'sk' its address and brings it up;
 * '*ifindex' gets its index. */
static int
if_setup(struct nl_sock *sk, const char *ifname, const char *addr,
         int *ifindex, char *err, size_t errlen)
{
    struct rtnl_link *l = NULL, *chg = NULL;
    struct rtnl_addr *a = NULL;
    struct nl_addr *local = NULL;
    char cidr[24];
    int nle, rc = 0;
    nle = rtnl_link_get_kernel(sk, 0, ifname, &l);
    if (nle < 0) {
        rc = sb_errf(err, errlen, nl_errno(nle),
                     "interface %s did not appear: "
                     "%s", ifname, nl_geterror(nle));
        goto cleanup;
    }
    *ifindex = rtnl_link_get_ifindex(l);
    snprintf(cidr, sizeof cidr, "%s/30", addr);
    a = rtnl_addr_alloc();
    chg = rtnl_link_alloc();
    if (!a || !chg || nl_addr_parse(cidr, AF_INET, &local) < 0) {
        rc = sb_errf(err, errlen, ENOMEM, "out of memory");
        goto cleanup;
    }
    rtnl_addr_set_ifindex(a, *ifindex);
    rtnl_addr_set_local(a, local);
    nle = rtnl_addr_add(sk, a, 0);
    if (nle < 0) {
        rc = sb_errf(err, errlen, nl_errno(nle),
                     "cannot give %s address %s: %s",
                     ifname, cidr, nl_geterror(nle));
        goto cleanup;
    }
    rtnl_link_set_flags(chg, IFF_UP);
    nle = rtnl_link_change(sk, l, chg, 0);
    if (nle < 0)
        rc = sb_errf(err, errlen, nl_errno(nle), "cannot bring %s up: %s",
                     ifname, nl_geterror(nle));

cleanup:
    nl_addr_put(local);
    rtnl_addr_put(a);
    rtnl_link_put(chg);
    rtnl_link_put(l);
    return rc;
}

/* A tbf at the root of 'ifindex', 'rate' bytes/s. */
static int
shape(struct nl_sock *sk, int ifindex, const char *ifname, double rate,
      char *err, size_t errlen)
{
    struct rtnl_qdisc *q = rtnl_qdisc_alloc();
    int rc = 0;
    if (!q)
        return sb_errf(err, errlen, ENOMEM, "out of memory");
    double bucket = rate * SB_LINUX_BUCKET_S, limit = rate * SB_LINUX_LIMIT_S;
    if (bucket < SB_LINUX_BUCKET_MIN)
        bucket = SB_LINUX_BUCKET_MIN;
    if (limit < SB_LINUX_LIMIT_MIN)
        limit = SB_LINUX_LIMIT_MIN;
    rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
    rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
    rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(1, 0));
    /* The kind before the kind's own setters (libnl 3.7). */
    rtnl_tc_set_kind(TC_CAST(q), "tbf");
    rtnl_qdisc_tbf_set_limit(q, (int) limit);
    rtnl_qdisc_tbf_set_rate(q, (int) rate, (int) bucket, 0);
    int nle = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_REPLACE);
    if (nle < 0)
        rc = sb_errf(err, errlen, nl_errno(nle), "cannot shape %s with tbf at "
                     "%.0f bytes/s: %s", ifname, rate, nl_geterror(nle));
    rtnl_qdisc_put(q);
    return rc;
}

int
sb_linux_add(struct sb_linux *lx, const char *name, int from, int to,
             double gbps, char *err, size_t errlen)
{
    if (!name || !*name || strlen(name) >= SB_NAME_MAX)
        return sb_errf(err, errlen, EINVAL,
                       "emulated lightpath: a name of 1 to "
                       "%d characters is needed", SB_NAME_MAX - 1);
    if (find(lx, name))
        return sb_errf(err, errlen, EEXIST, "emulated lightpath %s exists; "
                       "remove it first", name);
    if (from < 0 || from >= lx->n_dcs || to < 0 || to >= lx->n_dcs
        || from == to)
        return sb_errf(err, errlen, EINVAL, "emulated lightpath %s: data "
                       "centers %d -> %d, want two different ones of 0..%d",
                       name, from, to, lx->n_dcs - 1);
    double rate_bps = gbps * lx->scale * 1e6;
    if (!(rate_bps >= 8000) || rate_bps / 8 > INT_MAX)
        return sb_errf(err, errlen, EINVAL,
                       "emulated lightpath %s: %g Gb/s at "
                       "%g Mb/s per Gb/s is %.0f bit/s; tbf shapes 8000 to "
                       "%.0f: change the scale", name, gbps, lx->scale,
                       rate_bps, (double) INT_MAX * 8);
    int slot = free_slot(lx);
    if (slot < 0)
        return sb_errf(err, errlen, ENOSPC, "emulation: %d lightpaths is the "
                       "most it makes", SB_LINUX_MAX_LINKS);
    struct sb_linux_entry e;
    memset(&e, 0, sizeof e);
    struct sb_linux_link *l = &e.l;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->from_dc = from;
    l->to_dc = to;
    l->gbps = gbps;
    l->rate_bps = rate_bps;
    snprintf(l->src_ns, sizeof l->src_ns, "%s", lx->dcs[from].ns);
    snprintf(l->dst_ns, sizeof l->dst_ns, "%s", lx->dcs[to].ns);
    /* slot < SB_LINUX_MAX_LINKS fits an unsigned short: the name then
     * fits IFNAMSIZ for the compiler too, at every optimisation level. */
    _Static_assert(SB_LINUX_MAX_LINKS <= 65536, "slot fits %hu");
    snprintf(l->src_if, sizeof l->src_if, "%sv%hua", lx->prefix,
             (unsigned short) slot);
    snprintf(l->dst_if, sizeof l->dst_if, "%sv%hub", lx->prefix,
             (unsigned short) slot);
    slot_addr(slot, 1, l->src_addr, sizeof l->src_addr);
    slot_addr(slot, 2, l->dst_addr, sizeof l->dst_addr);
    e.slot = slot;
    if (lx->n_links == lx->cap_links) {
        int cap = lx->cap_links ? 2 * lx->cap_links : 16;
        void *p = realloc(lx->links, (size_t) cap * sizeof *lx->links);
        if (!p)
            return sb_errf(err, errlen, ENOMEM, "out of memory");
        lx->links = p;
        lx->cap_links = cap;
    }

    struct rtnl_link *veth = rtnl_link_veth_alloc(), *peer;
    if (!veth)
        return sb_errf(err, errlen, ENOMEM, "out of memory");
    peer = rtnl_link_veth_get_peer(veth);
    rtnl_link_set_name(veth, l->src_if);
    rtnl_link_set_ns_fd(veth, lx->dcs[from].fd);
    rtnl_link_set_name(peer, l->dst_if);
    rtnl_link_set_ns_fd(peer, lx->dcs[to].fd);
    int nle = rtnl_link_add(lx->host, veth, NLM_F_CREATE | NLM_F_EXCL);
    rtnl_link_put(peer);
    rtnl_link_put(veth);
    if (nle < 0)
        return sb_errf(err, errlen, nl_errno(nle), "emulated lightpath %s: "
                       "cannot create veth pair %s/%s: %s", name, l->src_if,
                       l->dst_if, nl_geterror(nle));
    int dst_ifindex, rc;
    char why[256];
    rc = if_setup(lx->dcs[from].sk, l->src_if, l->src_addr, &e.src_ifindex,
                  why, sizeof why);
    if (!rc)
        rc = if_setup(lx->dcs[to].sk, l->dst_if, l->dst_addr, &dst_ifindex,
                      why, sizeof why);
    if (!rc)
        rc = shape(lx->dcs[from].sk, e.src_ifindex, l->src_if,
                   rate_bps / 8, why, sizeof why);
    if (rc) {
        link_delete(lx->dcs[from].sk, l->src_if);
        return sb_errf(err, errlen, rc,
                       "emulated lightpath %s: %s", name, why);
    }
    lx->links[lx->n_links++] = e;
    return 0;
}

int
sb_linux_remove(struct sb_linux *lx, const char *name, char *err,
                size_t errlen)
{
    struct sb_linux_entry *e = find(lx, name);
    if (!e)
        return sb_errf(err, errlen, ENOENT, "no emulated lightpath %s", name);
    int nle = link_delete(lx->dcs[e->l.from_dc].sk, e->l.src_if);
    /* Gone already (someone deleted it by hand) is what we wanted. */
    if (nle < 0 && nl_errno(nle) != ENOENT)
        return sb_errf(err, errlen, nl_errno(nle), "emulated lightpath %s: "
                       "cannot delete %s in %s: %s", name, e->l.src_if,
                       e->l.src_ns, nl_geterror(nle));
    *e = lx->links[--lx->n_links];
    return 0;
}

/* One dump of links and one of qdiscs per DC namespace, then lookups:
 * O(DCs) netlink round trips per sample, however many lightpaths. */
int
sb_linux_sample(struct sb_linux *lx, char *err, size_t errlen)
{
    struct nl_cache *links[SB_LINUX_MAX_DCS] = { 0 };
    struct nl_cache *qdiscs[SB_LINUX_MAX_DCS] = { 0 };
    int rc = 0;
    for (int k = 0; k < lx->n_dcs && !rc; k++) {
        int nle = rtnl_link_alloc_cache(lx->dcs[k].sk, AF_UNSPEC, &links[k]);
        if (nle >= 0)
            nle = rtnl_qdisc_alloc_cache(lx->dcs[k].sk, &qdiscs[k]);
        if (nle < 0)
            rc = sb_errf(err, errlen, nl_errno(nle),
                         "cannot read the links of "
                         "namespace %s: %s", lx->dcs[k].ns, nl_geterror(nle));
    }
    int64_t now = mono_ms();
    /* A pair gone (deleted, or an end moved, behind our back) is
     * reported and forgotten, what is left of it deleted: the handle then
     * holds only what the kernel has, so that reconciliation, which adds
     * what an active job misses, makes it again under the same name.
     * The others are still sampled. */
    bool dumped = rc == 0;
    for (int i = 0; i < lx->n_links && dumped; i++) {
        struct sb_linux_entry *e = &lx->links[i];
        struct sb_linux_link *l = &e->l;
        struct rtnl_link *src = rtnl_link_get_by_name(links[l->from_dc],
                                                      l->src_if);
        struct rtnl_link *dst = rtnl_link_get_by_name(links[l->to_dc],
                                                      l->dst_if);
        if (!src || !dst) {
            if (!rc)
                rc = sb_errf(err, errlen, ENOENT, "emulated lightpath %s: %s "
                             "or %s is gone; reconcile to make it again",
                             l->name, l->src_if, l->dst_if);
            if (src)
                link_delete(lx->dcs[l->from_dc].sk, l->src_if);
            else if (dst)
                link_delete(lx->dcs[l->to_dc].sk, l->dst_if);
            *e = lx->links[--lx->n_links];
            i--;
        } else {
            l->tx_bytes = rtnl_link_get_stat(src, RTNL_LINK_TX_BYTES);
            l->tx_packets = rtnl_link_get_stat(src, RTNL_LINK_TX_PACKETS);
            l->tx_errors = rtnl_link_get_stat(src, RTNL_LINK_TX_ERRORS);
            l->tx_dropped = rtnl_link_get_stat(src, RTNL_LINK_TX_DROPPED);
            l->rx_bytes = rtnl_link_get_stat(dst, RTNL_LINK_RX_BYTES);
            l->rx_packets = rtnl_link_get_stat(dst, RTNL_LINK_RX_PACKETS);
            l->rx_errors = rtnl_link_get_stat(dst, RTNL_LINK_RX_ERRORS);
            l->rx_dropped = rtnl_link_get_stat(dst, RTNL_LINK_RX_DROPPED);
            l->sampled_ms = now;
            /* The shaper's own drops: the link counters do not see
             * them. */
            struct rtnl_qdisc *q = rtnl_qdisc_get(qdiscs[l->from_dc],
                                                  e->src_ifindex,
                                                  TC_HANDLE(1, 0));
            if (q) {
                l->qdisc_drops = rtnl_tc_get_stat(TC_CAST(q), RTNL_TC_DROPS);
                l->qdisc_overlimits = rtnl_tc_get_stat(TC_CAST(q),
                                                       RTNL_TC_OVERLIMITS);
                rtnl_qdisc_put(q);
            }
        }
        rtnl_link_put(src);
        rtnl_link_put(dst);
    }
    for (int k = 0; k < lx->n_dcs; k++) {
        nl_cache_free(links[k]);
        nl_cache_free(qdiscs[k]);
    }
    return rc;
}

int
sb_linux_links(const struct sb_linux *lx, struct sb_linux_link **out, int *n)
{
    *out = malloc(((size_t) lx->n_links + 1) * sizeof **out);
    if (!*out)
        return ENOMEM;
    for (int i = 0; i < lx->n_links; i++)
        (*out)[i] = lx->links[i].l;
    *n = lx->n_links;
    return 0;
}

int
sb_linux_get(const struct sb_linux *lx, const char *name,
             struct sb_linux_link *out)
{
    const struct sb_linux_entry *e = find(lx, name);
    if (!e)
        return ENOENT;
    *out = e->l;
    return 0;
}
