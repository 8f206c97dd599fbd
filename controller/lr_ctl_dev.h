/*
 * lr_ctl_dev: each ROADM's health as the controller last saw it, for
 * the operator (lightrail-state's device list, /metrics, `lightrail
 * devices`): whether the last operation on it reached it, when one last
 * succeeded and failed, the last failure's line, and counts.
 *
 * Pure: no I/O, no clock, no lock.  The driver calls run on an op's
 * thread (sb_parallel runs each device on a thread of its own), so an
 * op keeps what it saw of each device in its own struct lr_ctl_dev_seen
 * (lr_ctl_dev_see(), on the op's thread: only that op writes it), and
 * the controller folds it into its table when the op ends, on the
 * owner's thread (lr_ctl_dev_fold(), stamped with the controller's
 * clock then).  The table so needs no lock, and the clock (lr_ctl_config's,
 * a test's) is only ever read on the owner's thread.
 *
 * Up or down follows sb_driver.h's conventions: a device that answered,
 * even with a refusal of its own (EPROTO, EEXIST, ENOENT, the dummy's
 * EIO), is up; one that did not (sb_unanswered(): ETIMEDOUT, the outcome
 * unknown; EHOSTUNREACH, EAGAIN: no session; EACCES: its identity or our
 * credentials refused, no session; a connection refused, reset or
 * broken) is down; a failure on the controller's side (EINVAL: what it
 * was given; ENOMEM: what its host lacked) judges nothing
 * (lr_ctl_dev_local()).  A device no operation has tried yet is up.
 */
#ifndef LR_CTL_DEV_H
#define LR_CTL_DEV_H 1

#include <stdbool.h>

#include "southbound/sb_driver.h"

#define LR_CTL_DEV_WHY 256

struct lr_ctl_dev {
    char name[64];
    char driver[32];
    char address[256];        /* sb_device_config's, without a password */
    bool up;
    long long ok_ms, fail_ms; /* the last success and failure; 0: none */
    char why[LR_CTL_DEV_WHY]; /* the last failure's line; "" when none */
    unsigned long long ops, failures;
};

/* What one op saw of one device, on the op's thread. */
struct lr_ctl_dev_seen {
    unsigned long ops, failures;
    bool judged;              /* an operation said whether it reached */
    int last_rc;              /* the last such operation's answer */
    char why[LR_CTL_DEV_WHY]; /* the last failure's line */
};

/* Whether driver answer 'rc' is a failure on the controller's side
 * (sb_local(): EINVAL, a setting, schema path, key or CA file the
 * driver cannot use; ENOMEM, memory, a thread, a socket or an answer
 * from its resolver that the controller's host lacked), which neither
 * reached the device nor proves it unreachable: it leaves up or down as
 * it was. */
bool lr_ctl_dev_local(int rc);

/* A new entry for 'cfg': up, nothing counted. */
void lr_ctl_dev_init(struct lr_ctl_dev *, const struct sb_device_config *cfg);

/* 'address' as an operator may see it, into out[len]: a password in a
 * URL's user information ("https://USER:PASSWORD@HOST") is dropped, the
 * user kept ("https://USER@HOST"). */
void lr_ctl_dev_address(const char *address, char *out, size_t len);

/* One operation's answer 'rc' ('err' its driver's line when rc != 0,
 * may be NULL) into 's'; the line kept is one line of whole UTF-8
 * characters (control characters as spaces, a byte that is no UTF-8
 * as '?'), fit for the state's JSON, the log and a terminal. */
void lr_ctl_dev_see(struct lr_ctl_dev_seen *s, int rc, const char *err);

/* What 's' saw into 'd', at 'now_ms' (nothing when 's' saw nothing). */
void lr_ctl_dev_fold(struct lr_ctl_dev *d, const struct lr_ctl_dev_seen *s,
                     long long now_ms);

/* One operation at once (the owner's thread): see and fold (the
 * tests of lr_ctl_dev use it; the controller folds ops whole). */
void lr_ctl_dev_note(struct lr_ctl_dev *d, int rc, const char *err,
                     long long now_ms);

#endif
