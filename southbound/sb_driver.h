/*
 * sb_driver: the one interface every device family implements (Open
 * vSwitch's netdev_class is the model): a vtable, one file per family,
 * and a dummy for tests and the demo.  Besides the per-ROADM media
 * channels, a family may judge a whole lightpath (check_lightpath(): its
 * terminals and the receiver's gOSNR; mnoptical does).
 *
 * A ROADM is programmed in media channels (yang/lightrail-roadm.yang): a
 * lightpath becomes one media channel on every ROADM of its path, named
 * after the job and the lightpath so that reconciliation can tell whose
 * it is.  Families: dummy, netconf, restconf, mnoptical
 * (docs/southbound.md).
 *
 * Threads: a device is used by one thread at a time; different devices
 * may be used from different threads at once (southbound/sb_parallel.c
 * relies on it).
 *
 * Conventions: functions return 0 or a positive errno value and, on
 * error, write one line into err[errlen] that says what failed and what
 * to do.  ETIMEDOUT means the outcome is unknown: read the device back.
 * An errno says whose the failure is, in three lists: the device did
 * not answer (sb_unanswered()), the controller failed on its own side
 * before anything reached the device (sb_local(): EINVAL, what it was
 * given; ENOMEM, what its host lacked), or else the device answered
 * (EPROTO, EEXIST, ENOENT, ...).  A driver must not use a "no answer"
 * errno for a failure of its own: the ROADM would be shown down, and
 * its operator paged, for something on the controller's host.
 * Ownership: a device belongs to the caller from open() to close().
 */
#ifndef SB_DRIVER_H
#define SB_DRIVER_H 1

#include <stdbool.h>
#include <stddef.h>

#define SB_NAME_MAX 96

struct sb_media_channel {
    char name[SB_NAME_MAX];   /* "JOB/lpK", unique on a device */
    char in_port[64];         /* the link the channel arrives on ("" at
                               * the first ROADM: add port) */
    char out_port[64];        /* the link it leaves on ("" at the last:
                               * drop port) */
    int n;                    /* flexgrid centre: 193.1 THz + n 6.25 GHz */
    int m;                    /* width: m x 12.5 GHz */
    bool enabled;
    bool unknown;             /* read() of a driver whose read is its
                               * record (read_is_record) only: a request
                               * on the channel had no answer, so the
                               * device may hold it or not (mnoptical);
                               * false from any other read, ignored by
                               * apply() */
};

enum sb_op {
    SB_ADD,                   /* create; EEXIST if the name exists */
    SB_DELETE,                /* remove; ENOENT if it does not exist */
    SB_REINSTALL,             /* a driver with 'reinstalls' only (the
                               * others refuse it, EINVAL): send the
                               * install of a channel on its record
                               * again (DELETE needs only the name) */
};

struct sb_change {
    enum sb_op op;
    struct sb_media_channel mc;   /* DELETE needs only the name */
};

/* How to reach one device: its name in the topology, the driver family,
 * and a driver-specific address (dummy: a directory for its state;
 * netconf: USER@HOST:PORT, HOST:PORT over TLS; restconf: https://HOST:PORT; mnoptical:
 * http://HOST:PORT[#NODE]).  The settings
 * of other families are empty or 0. */
struct sb_device_config {
    char name[64];
    char driver[32];
    char address[256];
    char ssh_key[256];        /* private key; the public one is KEY.pub */
    char known_hosts[256];    /* pinned host keys, OpenSSH format */
    char schema_path[512];    /* YANG directories, ':'-separated */
    int timeout_ms;           /* per RPC and connection; 0: 5000 */
    char ca_file[256];        /* restconf: the one CA trusted (PEM) */
    /* netconf: "ssh" (or "") or "tls"; for tls our certificate chain
     * and key (PEM) and the one CA that signs the devices' ones. */
    char transport[8];
    char tls_cert[256];
    char tls_key[256];
    char tls_ca[256];
};

struct sb_device;

/* A data center's terminal (transceiver) as the southbound
 * configuration names it, for check_lightpath(). */
struct sb_terminal {
    char dc[64];              /* the data center it serves (lr_ctl finds
                               * a lightpath's ends by it) */
    char node[64];            /* the device's name of it (mnoptical: the
                               * emulator's Terminal node) */
    int eth_port;             /* its client-side port; 0: none */
    char monitor[64];         /* the monitor that sees what it receives;
                               * "": the driver's default (NODE-monitor) */
};

/* One lightpath as a whole, for check_lightpath(): its channel is on
 * every ROADM of its path already. */
struct sb_lightpath {
    char name[SB_NAME_MAX];   /* "JOB/lpK", the name of its channels */
    struct sb_terminal tx, rx;    /* the transmitting and receiving DCs' */
    int n, m;                 /* its media channel (as sb_media_channel) */
    char modulation[16];      /* "16QAM", ... */
    double threshold_db;      /* the gOSNR the modulation needs */
    double rate_gbps;
};

/* What check_lightpath() measured at the receiver. */
struct sb_lightpath_quality {
    int channel;              /* the driver's channel number (mnoptical:
                               * the 50 GHz channel the terminals use) */
    double gosnr_db, osnr_db; /* may be +INFINITY */
    double margin_db;         /* gosnr_db - threshold_db */
};

struct sb_driver_class {
    const char *name;
    /* Optional: whether open() would refuse 'config' for what it says
     * (a name, an address), without touching anything: lr_ctl checks
     * every device of a new network before it opens any, so that one it
     * refuses leaves no trace of the others (the dummy driver creates a
     * new device's state file when it opens it).  0 or EINVAL with the
     * line open() would give. */
    int (*check)(const struct sb_device_config *, char *err, size_t errlen);
    /* Optional: whether the TLS files 'config' names (a certificate, a
     * key, a CA) load as open() will load them, by open()'s own rules
     * and in its words (the device, the file, what is wrong with it:
     * lr_tls_file_reason(), what to give): 0, or EINVAL (ENOMEM).
     * Reads the files and nothing else (a driver may keep what it
     * loaded for the device's first open(), as netconf and restconf
     * do, so that the start reads them once, until forget_files); a
     * setting missing or of another kind passes (open() refuses it).
     * lightraild and lightrail-check run it on every device the
     * configuration lists, before they make anything
     * (lr_ctl_check_device_files()). */
    int (*check_files)(const struct sb_device_config *, char *err,
                       size_t errlen);
    /* Optional: drops whatever check_files kept for open(), every
     * device's (sb_driver_forget_files()). */
    void (*forget_files)(void);
    /* Connects to (or creates) the device. */
    int (*open)(const struct sb_device_config *, struct sb_device **out,
                char *err, size_t errlen);
    /* Applies 'n' changes on one device, all or nothing: on error the
     * device is as it was (or, ETIMEDOUT, unknown). */
    int (*apply)(struct sb_device *, const struct sb_change *changes, int n,
                 char *err, size_t errlen);
    /* Reads every media channel into a new array the caller frees with
     * free(); '*n' gets the count. */
    int (*read)(struct sb_device *, struct sb_media_channel **out, int *n,
                char *err, size_t errlen);
    /* read() answers from the driver's own record of what it applied,
     * without asking the device (mnoptical: the emulator cannot list its
     * rules): a read then says nothing of whether the device answers,
     * and lr_ctl's health of each ROADM (lr_ctl_dev.h) does not count
     * it. */
    bool read_is_record;
    /* apply() takes SB_REINSTALL: the device takes the install of a
     * channel it holds as that channel again, not a second one
     * (mnoptical: Mininet-Optical keys a ROADM's rules by in-port and
     * channel), so a driver whose read is its record can put back what
     * the device lost behind the controller's back (restarted, reset)
     * and its read cannot show: lr_ctl's reconciliation with
     * 'reinstall' (lr_ctl.h).  The channel is sent as the record has
     * it; one the record lacks is EINVAL, nothing sent.  Done, the
     * record holds it (a mark unknown cleared); failed, the record is
     * as it was and nothing is undone (the device held the channel or
     * had lost it, as before).  Within a batch a re-install is not
     * undone when a later change fails: it changed nothing the record
     * says. */
    bool reinstalls;
    /* Optional, for a driver whose read is its record: puts the 'n'
     * media channels 'mc' on that record marked unknown (the device may
     * hold them or not), each as apply() would have installed it; one
     * the record has is left as it is.  For channels a previous process
     * of this controller installed, as the store says, whose removal
     * must reach the device: off the record a DELETE is ENOENT and sends
     * nothing, so a restart left them there for good.  0, or EINVAL
     * (a channel apply() would refuse) or ENOMEM with the line, the
     * record as it was. */
    int (*adopt)(struct sb_device *, const struct sb_media_channel *mc,
                 int n, char *err, size_t errlen);
    void (*close)(struct sb_device *);
    /* Optional: NULL for a family that programs ROADMs only (dummy,
     * netconf, restconf), which lr_ctl then never asks.  Called by lr_ctl
     * once every ROADM of a lightpath has accepted its channel, with the
     * devices of the path's first and last ROADM (both of this class; the
     * same device for a one-ROADM path): tunes and turns on the
     * lightpath's terminals and judges what the receiver gets.  0
     * (received, *q filled), ERANGE (gOSNR below lp->threshold_db: *q
     * filled and the line names the gOSNR, the threshold and the
     * margin), ENOLINK (no signal at the receiver), or another error.
     * It does not touch the ROADMs: on any error the caller removes the
     * lightpath's channels. */
    int (*check_lightpath)(struct sb_device *first, struct sb_device *last,
                           const struct sb_lightpath *lp,
                           struct sb_lightpath_quality *q, char *err,
                           size_t errlen);
};

/* The driver class named 'name', or NULL. */
const struct sb_driver_class *sb_driver_find(const char *name);

/* Every driver's forget_files: what check_files kept is dropped, so
 * that an open() from now on reads the files as they are then.  lr_ctl
 * calls it once the start has opened its devices (or failed to): a
 * device a topology PUT adds later must not open with the files as
 * they were at the start (a certificate replaced or revoked since). */
void sb_driver_forget_files(void);

/* Whether driver answer 'rc' says the device did not answer: no
 * session (EHOSTUNREACH; EAGAIN: none for now, a restconf gateway's
 * 503; EACCES: TLS or SSH refused on either side; a connection refused,
 * reset, aborted or broken; the network or host down) or no answer in
 * time (ETIMEDOUT: the outcome is unknown).  Any other errno is the
 * device's own answer (EPROTO, EEXIST, ENOENT, the dummy's EIO) or the
 * controller's (sb_local()).  One list for whoever must tell the two
 * apart: sb_parallel stops sending a device its next changes on such an
 * answer (each would wait its timeout, or be refused the same way), and
 * lr_ctl_dev judges the device down by it. */
bool sb_unanswered(int rc);

/* Whether driver answer 'rc' is a failure on the controller's own side,
 * before anything reached the device: EINVAL, what the controller was
 * given (a setting, a schema path, a key or CA file, CA bytes its
 * libcurl will not load); ENOMEM, what the controller's host lacked for
 * the operation (memory, a thread to connect on, a socket, an answer
 * from its own resolver: retry later).  Such an answer proves nothing
 * of the device: lr_ctl_dev leaves its up or down as it was.  No errno
 * is in both lists. */
bool sb_local(int rc);

/* The layer's error convention in one call: writes the printf-style
 * line into err[errlen] (when err is not NULL and errlen is not 0; a
 * line too long is cut at a character, ending with " [...]") and
 * returns 'ret', so that a driver can say "return sb_errf(err, errlen,
 * ENOENT, ...);".  Every file of southbound/ reports through it. */
int sb_errf(char *err, size_t errlen, int ret, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

extern const struct sb_driver_class sb_dummy_class;
extern const struct sb_driver_class sb_netconf_class;
extern const struct sb_driver_class sb_restconf_class;
extern const struct sb_driver_class sb_mnoptical_class;

#endif
