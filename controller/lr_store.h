/*
 * lr_store: everything the controller decided, in SQLite.
 *
 * What is stored: the topology and inventory (as the RFC 7951 JSON they
 * were loaded from), every job with its intent, phase, reason, plan
 * (stages), lightpaths, and its reservations: GPUs per DC and every
 * (link, slot) it holds.  A (link, slot) pair is a primary key, so the
 * database itself refuses a slot booked twice.
 *
 * Durability: WAL journal with synchronous = NORMAL.  A committed
 * transaction survives a crash of the process (kill -9); a power loss may
 * roll back the last transactions but never leaves the file inconsistent.
 * Restart recovery (controller/) then reconciles the devices.
 *
 * Schema: a 'meta' table holds schema_version; lr_store_open() creates a
 * new file at the current version or migrates an older one step by step
 * (a table of migrations in lr_store.c), and refuses a newer one.
 *
 * Conventions: functions return 0 or a positive errno value (ENOENT: no
 * such job; EEXIST: a slot or a job name already taken; EINVAL: a job
 * that would break an invariant of lr_store_check(); ENOTSUP: the file's
 * schema is newer than this code; EACCES: the file cannot be written;
 * at open, the errno of a copy of an older store that cannot be kept;
 * EIO: SQLite failed, with its message
 * in the store's last error); one connection, one thread.  Each write
 * is its own transaction unless the caller has opened one with
 * lr_store_begin(); nested begins are savepoints.
 */
#ifndef LR_STORE_H
#define LR_STORE_H 1

#include <stddef.h>

#include "controller/lr_job.h"

#define LR_STORE_SCHEMA_VERSION 6

struct lr_store;

/* Opens (creating or migrating) the database at 'path'.  The caller
 * closes it with lr_store_close().
 * Before the first migration step writes a store of an older schema V,
 * its files as they are (the database and its WAL) are copied beside
 * it to PATH.schema-V.bak (PATH.schema-V.bak.2 and on when a copy of an
 * earlier upgrade has that name) and synced; lr_store_kept() names the
 * copy.  The copy is taken as files, so no other process may use the
 * store meanwhile (lightraild holds its state directory's lock).  A copy
 * that cannot be made (a full disk: ENOSPC or EFBIG; a directory that
 * cannot be written: EACCES) refuses the open with the copy's errno,
 * leaving the store as it was and no part of a copy.  An open that fails
 * after the copy was made (a migration step refused, a store another
 * process holds) removes it when the store still reads as version V:
 * it is then the store as it is.  A new store, or a current one, makes
 * no copy. */
int lr_store_open(const char *path, struct lr_store **out, char *err,
                  size_t errlen);

/* lr_store_open() of a store that is itself a copy (lightrail-check's,
 * in $TMPDIR, removed after the check): an older one is migrated with
 * no copy of the copy kept. */
int lr_store_open_unkept(const char *path, struct lr_store **out,
                         char *err, size_t errlen);
void lr_store_close(struct lr_store *);

/* The copy lr_store_open() kept of the store it migrated: its path,
 * owned by the store, and in '*version' (if not NULL) the schema
 * version the store held; NULL and 0 when this open migrated nothing. */
const char *lr_store_kept(const struct lr_store *, int *version);

/* Said by lr_store_prune_kept() of each copy it removed ('err' 0) or
 * could not remove (its errno): the copy's path and schema version, and
 * 'newest', the path of the copy of that version that stays (not
 * 'kept' when the version differs). */
typedef void lr_store_pruned_fn(void *arg, const char *copy, int version,
                                const char *newest, int err);

/* The retention of the copies lr_store_open() keeps before migrating:
 * of each schema version, only the newest copy beside the store at
 * 'path' stays, 'kept' (the copy this open just made, lr_store_kept())
 * being the newest of its version whatever the clocks say, the others
 * by their modification time (the time of the copy), then by their
 * number (.bak.2 after .bak).  An older copy of a version is the store
 * as it was before a later copy of that version: the operator who went
 * back copied one of them over the store, and the newest holds what
 * that store became.  The only copy of another version stays: it is
 * the way back to that version's lightraild.  A copy goes with its
 * journals (-wal, -journal) and a -shm a sqlite3 shell left.  Call it
 * only once the migration that made 'kept' committed and the store
 * opens again: until then the older
 * copies may be the only good ones.  'said' (may be NULL) hears each
 * copy removed or not; a copy that cannot be removed does not stop the
 * others.  0, or the errno of the first failure (the directory that
 * cannot be read, or a copy that cannot be removed). */
int lr_store_prune_kept(const char *path, const char *kept,
                        lr_store_pruned_fn *said, void *arg);

/* Copies the database at 'from' and its journals (a crashed daemon's
 * WAL), as files, to 'to' and its journals, which must not exist; on a
 * failure, no part of the copy is left.
 * 'from' is only read: lightrail-check judges a copy, so that checking
 * a store of an older schema does not upgrade it behind its daemon's
 * back.  No process may write 'from' meanwhile (the caller holds the
 * daemon's lock and lr_store_hold()).  0, or an errno value with the reason in err[errlen].
 */
int lr_store_copy(const char *from, const char *to, char *err,
                  size_t errlen);

/* Holds the database at 'path' for a copy, as a reader holds it: a
 * read lock on SQLite's lock bytes, which no writer of the file's
 * database gets past, so a lightraild starting meanwhile on the same
 * file (through a link too) is refused.  *fd is the descriptor the lock
 * is on (an open file description's lock): the caller closes it to let
 * go; closing other descriptors of the file does not.  Refused when
 * another process holds a lock on the file, as Linux tells by device
 * and inode: EBUSY with err[errlen] naming it ("PATH: another
 * lightraild (pid N) serves the store (...): stop it first", "...
 * (pid N, COMM) ..." for any other), since in WAL mode a reader's lock
 * is all a writer holds.  0, EBUSY or the errno of the open; *fd is -1
 * on a failure. */
int lr_store_hold(const char *path, int *fd, char *err, size_t errlen);

/* Takes the permissions of other users from the database at 'path' and
 * its journals where they have any: a store made before lightraild ran
 * with umask 027 is readable by all, and SQLite gives the journals it
 * creates the store's mode.  What it changed goes to changed[len] ("" for
 * nothing), e.g. "lightrail.db 0644 -> 0640, lightrail.db-wal 0644 ->
 * 0640".  0 (a file that does not exist is skipped), or an errno value
 * with the reason in err[errlen]; the files changed before it stay
 * changed. */
int lr_store_close_to_others(const char *path, char *changed, size_t len,
                             char *err, size_t errlen);

/* The last SQLite error, for messages. */
const char *lr_store_error(const struct lr_store *);

int lr_store_begin(struct lr_store *);
int lr_store_commit(struct lr_store *);
void lr_store_rollback(struct lr_store *);

/* Named JSON documents: "topology", "cluster". */
int lr_store_put_doc(struct lr_store *, const char *key, const char *json);
/* '*json' is a new string the caller frees; ENOENT when absent. */
int lr_store_get_doc(struct lr_store *, const char *key, char **json);

/* Inserts or replaces the job and everything it holds: its stages,
 * lightpaths, GPU counts and slot reservations are replaced by those of
 * 'job' (a job in phase blocked or failed holds none).  EEXIST when a
 * slot is already held by another job; then nothing changes.  EINVAL,
 * changing nothing, when 'job' breaks an invariant: a blocked or failed
 * job with GPUs or lightpaths, any other with gpus[] not equal to its
 * stages' per-DC sums, a lightpath listing a link twice. */
int lr_store_put_job(struct lr_store *, const struct lr_job *job);

/* Only the phase and reason (and updated_ms), keeping what it holds;
 * so EINVAL for blocked or failed while the job holds anything, and for
 * any other phase while its stages use GPUs it does not hold (a blocked
 * job keeps its plan): both change nothing. */
int lr_store_set_phase(struct lr_store *, const char *name,
                       enum lr_job_phase, const char *reason,
                       long long updated_ms);

/* Only the measured gOSNR of each of job->lp[0 .. n_lightpaths)
 * (lr_lightpath.gosnr_known, gosnr_db) into the stored lightpaths of
 * the job of that name, keeping everything else: the controller's
 * record of what the terminals measured once its lightpaths are
 * provisioned.  ENOENT when the store lacks one of those lightpaths,
 * EINVAL for a gOSNR put_job would refuse; both change nothing.  Inside
 * lr_store_begin() it commits with the caller's transaction. */
int lr_store_set_gosnr(struct lr_store *, const struct lr_job *job);

/* Removes the job and everything it holds; ENOENT if there is none. */
int lr_store_delete_job(struct lr_store *, const char *name);

int lr_store_get_job(struct lr_store *, const char *name, struct lr_job *out);

/* Every job, in name order, into a new array the caller frees with
 * free() (NULL when there is none). */
int lr_store_list_jobs(struct lr_store *, struct lr_job **out, int *n);

/* Checks the invariants across tables: every slot row belongs to a
 * lightpath of its job and every lightpath's slots are present; GPU rows
 * equal the sums of the stages.  0, or EINVAL with the first violation
 * described in err[errlen]. */
int lr_store_check(struct lr_store *, char *err, size_t errlen);

#endif
