/*
 * sb_linux: the emulated data plane — the inter-DC lightpaths of active
 * jobs as real, shaped links between Linux network namespaces, and their
 * link counters as telemetry.  Everything goes through netlink
 * (libnl-route); nothing shells out to ip or tc.
 *
 * Why not a struct sb_driver_class: that vtable programs one ROADM in
 * media channels (one device per topology node, a channel per hop).  The
 * emulated data plane is not a ROADM: it has one object per lightpath
 * (DC a to DC b, end to end) and no hops, so squeezing it into the
 * per-ROADM vtable would mean a fake "device" that receives the same
 * lightpath once per hop.  It sits beside the vtable instead; the
 * controller (controller/lr_ctl_op.c) calls it after the ROADMs accepted a
 * job's channels and before the job is active, and on release.  The
 * ROADMs stay whatever driver the configuration names (dummy, ...).
 *
 * What it makes (all names start with the configured prefix, so that it
 * never touches what it did not make):
 *   - a network namespace PREFIX-DC per data center (a bind mount of a
 *     fresh namespace on /run/netns/PREFIX-DC, as `ip netns add` does);
 *   - per lightpath a veth pair, one end in each DC's namespace, named
 *     PREFIXvNa (source DC) and PREFIXvNb (destination DC), with
 *     10.77.N/4.(4(N mod 64)+1)/30 and +2 (one /30 per slot N: the
 *     namespaces are isolated, so the same 10.77/16 serves every run);
 *   - a tbf qdisc at the root of the source end, shaped to the
 *     lightpath's capacity scaled down (below).  The reverse direction
 *     of the pair (TCP's ACKs) is not shaped: the job's other lightpath
 *     carries the opposite direction of the boundary.
 * Deleting one end of a veth pair deletes the pair and its qdisc;
 * removing a namespace removes whatever is left in it.
 *
 * Scaling: a loopback veth pair on a shared machine cannot carry 400
 * Gb/s, and tbf takes rates as a 32-bit byte count per second (at most
 * about 17 Gb/s).  The shaped rate is therefore capacity x scale, with
 * 'mbps_per_gbps' real Mb/s per emulated Gb/s (default 1: a 400 Gb/s
 * lightpath is shaped at 400 Mb/s).  A transfer measured on it takes
 * 1000 / mbps_per_gbps times longer than on the real lightpath; the
 * probe (sb_linux_probe.c) scales its measurement back.  The shaped rate
 * is the line rate (Ethernet, IP and TCP headers count): TCP's goodput
 * over it is about 4% lower with a 1500-byte MTU.
 *
 * Propagation delay is NOT emulated: this kernel has no netem, and tbf
 * and htb cannot delay.  The fibre's delay (5 us per km) is modelled: the
 * demo adds the time model's delay to the measured transfer time and says
 * so.
 *
 * Conventions (as southbound/sb_driver.h): 0 or a positive errno, and on
 * error one line in err[errlen] that says what failed and what to do.
 * EPERM: not root (CAP_NET_ADMIN and CAP_SYS_ADMIN are needed).
 * Ownership: the caller owns the handle from sb_linux_new() to
 * sb_linux_free(); the configuration is copied.  One thread: the calls
 * switch the calling thread's network namespace for a moment.
 */
#ifndef SB_LINUX_H
#define SB_LINUX_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "southbound/sb_driver.h"

#define SB_LINUX_PREFIX_MAX 8     /* keeps "PREFIXv16383a" within IFNAMSIZ */
#define SB_LINUX_MAX_DCS 64
#define SB_LINUX_MAX_LINKS 16384
#define SB_LINUX_DEFAULT_PREFIX "lr"
#define SB_LINUX_DEFAULT_SCALE 1.0

struct sb_linux_config {
    const char *prefix;       /* [a-z0-9]{1,8}; NULL: "lr" */
    double mbps_per_gbps;     /* real Mb/s per emulated Gb/s; 0: 1 */
    int n_dcs;
    const char *const *dcs;   /* DC names ([A-Za-z0-9_.-], at most 40
                               * characters), index = the cluster's DC */
};

/* One emulated lightpath, as sb_linux_links() reports it. */
struct sb_linux_link {
    char name[SB_NAME_MAX];   /* the caller's key ("JOB/lpK") */
    int from_dc, to_dc;
    double gbps;              /* emulated capacity */
    double rate_bps;          /* the real shaped rate, bits/s */
    char src_ns[64], dst_ns[64];
    char src_if[16], dst_if[16];
    char src_addr[16], dst_addr[16];  /* dotted quads, no prefix length */
    /* Counters (sb_linux_sample()): the source end's transmit side, the
     * destination end's receive side, and the source's tbf. */
    uint64_t tx_bytes, tx_packets, tx_errors, tx_dropped;
    uint64_t rx_bytes, rx_packets, rx_errors, rx_dropped;
    uint64_t qdisc_drops, qdisc_overlimits;
    int64_t sampled_ms;       /* when (CLOCK_MONOTONIC ms); 0 = never */
};

struct sb_linux;

/* Takes the prefix (one live handle per prefix on the machine: an
 * exclusive lock on /run/lightrail/PREFIX.lock, dropped by
 * sb_linux_free() or the process's death), removes every namespace left
 * by an earlier run with it, then makes one namespace per DC.  EINVAL: a
 * bad prefix, scale or DC name; EPERM: not root; EBUSY: another live
 * process holds the prefix. */
int sb_linux_new(const struct sb_linux_config *, struct sb_linux **out,
                 char *err, size_t errlen);

/* Removes every link and namespace it made.  Accepts NULL. */
void sb_linux_free(struct sb_linux *);

/* Removes every namespace named PREFIX-* (a crashed run's leftovers);
 * '*removed' (may be NULL) gets how many.  Idempotent.  EBUSY while a
 * live handle (this process's or another's) holds the prefix. */
int sb_linux_cleanup(const char *prefix, int *removed, char *err,
                     size_t errlen);

/* Makes lightpath 'name' from DC 'from' to DC 'to' at 'gbps' emulated.
 * EEXIST: the name is taken; EINVAL: bad DCs or a rate the scale turns
 * into more than tbf can shape; on any error nothing is left behind. */
int sb_linux_add(struct sb_linux *, const char *name, int from, int to,
                 double gbps, char *err, size_t errlen);

/* Removes lightpath 'name' (its veth pair and qdisc).  ENOENT: unknown. */
int sb_linux_remove(struct sb_linux *, const char *name, char *err,
                    size_t errlen);

/* Reads every link's counters from the kernel into the handle.  ENOENT:
 * a pair is gone from the kernel (deleted, or an end moved, by someone
 * else); the first one is named in 'err', and every such pair is
 * forgotten (what is left of it deleted), so that sb_linux_get() says
 * ENOENT and sb_linux_add() makes it again. */
int sb_linux_sample(struct sb_linux *, char *err, size_t errlen);

/* Every link with its last sample, in a new array the caller frees with
 * free(); '*n' gets the count. */
int sb_linux_links(const struct sb_linux *, struct sb_linux_link **out,
                   int *n);

/* The link 'name' (last sample), or ENOENT. */
int sb_linux_get(const struct sb_linux *, const char *name,
                 struct sb_linux_link *out);

/* The scale: real Mb/s per emulated Gb/s. */
double sb_linux_scale(const struct sb_linux *);

/* The namespace of DC 'dc' ("PREFIX-DC"), or NULL. */
const char *sb_linux_dc_ns(const struct sb_linux *, int dc);

/* The TCP probe (sb_linux_probe.c): sends 'bytes' over link 'name' from
 * its source namespace to its destination namespace (a listener and a
 * sender in two child processes that enter the namespaces with setns)
 * and measures the time from the connection's first byte to the
 * receiver's acknowledgement of the last one.  '*seconds' gets the real
 * (scaled-down) time; '*goodput_bps' (may be NULL) bytes x 8 / time.
 * 'stop' (may be NULL) is polled: when it becomes true the probe kills
 * its children and returns EINTR. */
int sb_linux_probe(const struct sb_linux *, const char *name, uint64_t bytes,
                   volatile const int *stop, double *seconds,
                   double *goodput_bps, char *err, size_t errlen);

#endif
