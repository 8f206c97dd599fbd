/*
 * lr_store: the controller's decisions in SQLite.  See lr_store.h.
 *
 * Our implementation:
 *   - One connection in WAL mode with synchronous = NORMAL: a commit is a
 *     write to the WAL without fsync, so it survives a crash of the
 *     process (the kernel has the pages) but maybe not a power loss; the
 *     header states that contract.
 *   - Foreign keys on, so deleting a job cascades to everything it holds;
 *     a (link, slot) primary key so that two jobs can never hold the same
 *     slot, whatever bug the controller has.
 *   - Every statement is prepared once at open and kept: the controller
 *     runs the same dozen statements all day.
 *   - A write is a transaction of its own (BEGIN IMMEDIATE: it takes the
 *     write lock up front, so a concurrent writer makes us wait in the
 *     busy handler rather than fail half way) or, inside the caller's
 *     transaction, a SAVEPOINT, which is what makes a refused
 *     lr_store_put_job() change nothing while the caller's own work
 *     stays.
 */
/* F_OFD_SETLK (lr_store_hold()): a lock that closing another
 * descriptor of the file does not drop. */
#define _GNU_SOURCE 1
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "controller/lr_store.h"

/* How long a statement waits for another connection's lock before it
 * fails with SQLITE_BUSY.  Only tools and tests open a second
 * connection, and their transactions are short. */
#define LR_STORE_BUSY_MS 5000


/*
 * The migrations: entry i brings a database from schema version i to
 * i + 1, in one transaction with the update of meta.schema_version.
 * Append, never edit: a database in the field went through the old text.
 */
static const char *const lr_store_migrations[] = {
    /* 0 -> 1: everything. */
    "CREATE TABLE meta("
    "  key TEXT PRIMARY KEY,"
    "  value NOT NULL);"
    "CREATE TABLE docs("
    "  key TEXT PRIMARY KEY,"
    "  json TEXT NOT NULL);"
    "CREATE TABLE jobs("
    "  name TEXT PRIMARY KEY,"
    "  phase TEXT NOT NULL CHECK (phase IN ('submitted', 'planned',"
    "    'provisioning', 'active', 'releasing', 'blocked', 'failed')),"
    "  reason TEXT NOT NULL DEFAULT '',"
    "  model TEXT NOT NULL,"
    "  batch REAL,"
    "  micro REAL,"
    "  gpus_min INTEGER NOT NULL,"
    "  gpus_max INTEGER NOT NULL,"
    "  algorithm TEXT NOT NULL,"
    "  priority INTEGER NOT NULL,"
    "  iteration_s REAL,"
    "  created_ms INTEGER NOT NULL,"
    "  updated_ms INTEGER NOT NULL);"
    "CREATE TABLE stages("
    "  job TEXT NOT NULL REFERENCES jobs(name) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  first_layer INTEGER NOT NULL,"
    "  last_layer INTEGER NOT NULL,"
    "  dc INTEGER NOT NULL,"
    "  g INTEGER NOT NULL,"
    "  PRIMARY KEY (job, idx));"
    "CREATE TABLE gpus("
    "  job TEXT NOT NULL REFERENCES jobs(name) ON DELETE CASCADE,"
    "  dc INTEGER NOT NULL,"
    "  count INTEGER NOT NULL CHECK (count > 0),"
    "  PRIMARY KEY (job, dc));"
    "CREATE TABLE lightpaths("
    "  job TEXT NOT NULL REFERENCES jobs(name) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  from_dc INTEGER NOT NULL,"
    "  to_dc INTEGER NOT NULL,"
    "  links TEXT NOT NULL,"
    "  length_km REAL,"
    "  mod INTEGER NOT NULL,"
    "  \"first\" INTEGER NOT NULL,"
    "  m INTEGER NOT NULL,"
    "  n INTEGER NOT NULL,"
    "  capacity_gbps REAL,"
    "  PRIMARY KEY (job, idx));"
    /* One row per booked slot: tens of thousands of rows, read by their
     * key, hence clustered on it (WITHOUT ROWID). */
    "CREATE TABLE slots("
    "  link INTEGER NOT NULL,"
    "  slot INTEGER NOT NULL,"
    "  job TEXT NOT NULL REFERENCES jobs(name) ON DELETE CASCADE,"
    "  lp INTEGER NOT NULL,"
    "  PRIMARY KEY (link, slot),"
    "  FOREIGN KEY (job, lp) REFERENCES lightpaths(job, idx)"
    "    ON DELETE CASCADE) WITHOUT ROWID;"
    /* The cascades and the per-job deletes look slots up by job. */
    "CREATE INDEX slots_by_job ON slots(job, lp);",
    /* 1 -> 2: custom models in intents.  'shape' is NULL for a preset,
     * else "arch layers hidden heads kv_heads ffn vocab seq" with arch 0
     * for gpt, 1 for llama (lr_store_shape_text()). */
    "ALTER TABLE jobs ADD COLUMN shape TEXT;",
    /* 2 -> 3: the planner's note on a job (lr_job.note: how an intent for
     * ppo was planned). */
    "ALTER TABLE jobs ADD COLUMN note TEXT NOT NULL DEFAULT '';",
    /* 3 -> 4: the intent's iterations (lr_intent.iterations; 0: not
     * given, which older rows read as).  SQLite's INTEGER is signed 64
     * bits: a count over 2^63 - 1 is stored as the int64 of the same
     * bits and read back to the same uint64. */
    "ALTER TABLE jobs ADD COLUMN iterations INTEGER NOT NULL DEFAULT 0;",
    /* 4 -> 5: a lightpath keeps its modulation format by name, not by
     * its index in the table (lr_lightpath.modulation): the table became
     * lightraild's configuration, and an index read against another
     * table names another format.  Every store before this was written
     * with the default table (lr_modtable_default(): BPSK, QPSK, 8QAM,
     * 16QAM, in that order), so its indices name those; an index
     * outside it, which no lightraild wrote, becomes '' (not known),
     * reported as such rather than guessed. */
    "ALTER TABLE lightpaths ADD COLUMN modulation TEXT NOT NULL"
    "  DEFAULT '';"
    "UPDATE lightpaths SET modulation = CASE mod WHEN 0 THEN 'BPSK'"
    "  WHEN 1 THEN 'QPSK' WHEN 2 THEN '8QAM' WHEN 3 THEN '16QAM'"
    "  ELSE '' END;"
    "ALTER TABLE lightpaths DROP COLUMN mod;",
    /* 5 -> 6: the gOSNR a lightpath's receiver measured when it was
     * provisioned (lr_lightpath.gosnr_db), so that a threshold changed
     * since is judged at start without tuning the terminals again.
     * NULL: not measured (no terminal, or a row from before this), which
     * is never judged; no older row has a measurement to give. */
    "ALTER TABLE lightpaths ADD COLUMN gosnr_db REAL;",
};
#define LR_STORE_N_MIGRATIONS \
    ((int) (sizeof lr_store_migrations / sizeof lr_store_migrations[0]))

_Static_assert(LR_STORE_N_MIGRATIONS == LR_STORE_SCHEMA_VERSION,
               "one migration per schema version");

/* The cached statements.  The order of the enum is the order of the
 * table below. */
enum lr_store_stmt {
    ST_BEGIN,
    ST_BEGIN_READ,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_DOC_PUT,
    ST_DOC_GET,
    ST_JOB_UPSERT,
    ST_JOB_DEL_SLOTS,
    ST_JOB_DEL_LPS,
    ST_JOB_DEL_GPUS,
    ST_JOB_DEL_STAGES,
    ST_STAGE_INS,
    ST_GPU_INS,
    ST_LP_INS,
    ST_SLOT_INS,
    ST_SLOT_HOLDER,
    ST_JOB_SET_PHASE,
    ST_JOB_HOLDS,
    ST_JOB_UNHELD,
    ST_JOB_DEL,
    ST_JOB_GET,
    ST_STAGES_GET,
    ST_GPUS_GET,
    ST_LPS_GET,
    ST_LP_SET_GOSNR,
    ST_JOB_NAMES,
    ST_CHK_SLOT_OWNER,
    ST_CHK_LPS,
    ST_CHK_SLOT_OF,
    ST_CHK_IDLE,
    ST_CHK_GPU_ROWS,
    ST_CHK_STAGE_SUMS,
    ST_N
};

static const char *const lr_store_sql[ST_N] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_BEGIN_READ] = "BEGIN DEFERRED",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    /* Savepoints may share one name: ROLLBACK TO and RELEASE act on the
     * innermost one of that name. */
    [ST_SAVEPOINT] = "SAVEPOINT lr",
    [ST_RELEASE] = "RELEASE lr",
    [ST_ROLLBACK_TO] = "ROLLBACK TO lr",
    [ST_DOC_PUT] = "INSERT INTO docs(key, json) VALUES (?1, ?2)"
                   " ON CONFLICT(key) DO UPDATE SET json = excluded.json",
    [ST_DOC_GET] = "SELECT json FROM docs WHERE key = ?1",
    /* An upsert, not INSERT OR REPLACE: REPLACE would delete the row and
     * cascade to rows that the caller's transaction may still need. */
    [ST_JOB_UPSERT] =
        "INSERT INTO jobs(name, phase, reason, model, batch, micro,"
        " gpus_min, gpus_max, algorithm, priority, iteration_s,"
        " created_ms, updated_ms, shape, note, iterations)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
        " ?14, ?15, ?16)"
        " ON CONFLICT(name) DO UPDATE SET phase = excluded.phase,"
        " reason = excluded.reason, model = excluded.model,"
        " batch = excluded.batch, micro = excluded.micro,"
        " gpus_min = excluded.gpus_min, gpus_max = excluded.gpus_max,"
        " algorithm = excluded.algorithm, priority = excluded.priority,"
        " iteration_s = excluded.iteration_s,"
        " created_ms = excluded.created_ms,"
        " updated_ms = excluded.updated_ms, shape = excluded.shape,"
        " note = excluded.note, iterations = excluded.iterations",
    [ST_JOB_DEL_SLOTS] = "DELETE FROM slots WHERE job = ?1",
    [ST_JOB_DEL_LPS] = "DELETE FROM lightpaths WHERE job = ?1",
    [ST_JOB_DEL_GPUS] = "DELETE FROM gpus WHERE job = ?1",
    [ST_JOB_DEL_STAGES] = "DELETE FROM stages WHERE job = ?1",
    [ST_STAGE_INS] = "INSERT INTO stages(job, idx, first_layer, last_layer,"
                     " dc, g) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_GPU_INS] = "INSERT INTO gpus(job, dc, count) VALUES (?1, ?2, ?3)",
    [ST_LP_INS] = "INSERT INTO lightpaths(job, idx, from_dc, to_dc, links,"
                  " length_km, modulation, \"first\", m, n, capacity_gbps,"
                  " gosnr_db)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                  " ?12)",
    [ST_SLOT_INS] = "INSERT INTO slots(link, slot, job, lp)"
                    " VALUES (?1, ?2, ?3, ?4)",
    [ST_SLOT_HOLDER] = "SELECT job, lp FROM slots"
                       " WHERE link = ?1 AND slot = ?2",
    [ST_JOB_SET_PHASE] = "UPDATE jobs SET phase = ?2, reason = ?3,"
                         " updated_ms = ?4 WHERE name = ?1",
    [ST_JOB_HOLDS] = "SELECT EXISTS (SELECT 1 FROM gpus WHERE job = ?1)"
                     " OR EXISTS (SELECT 1 FROM lightpaths WHERE job = ?1)"
                     " OR EXISTS (SELECT 1 FROM slots WHERE job = ?1)",
    /* The first DC where a job's stages use other than the GPUs it
     * holds: what a job leaving blocked or failed by its phase alone
     * would break (ST_CHK_STAGE_SUMS, for one job). */
    [ST_JOB_UNHELD] =
        "SELECT d.dc, d.used, coalesce(g.count, 0) FROM"
        " (SELECT dc, sum(g) AS used FROM stages WHERE job = ?1"
        "  GROUP BY dc) d"
        " LEFT JOIN gpus g ON g.job = ?1 AND g.dc = d.dc"
        " WHERE coalesce(g.count, 0) != d.used ORDER BY d.dc LIMIT 1",
    [ST_JOB_DEL] = "DELETE FROM jobs WHERE name = ?1",
    [ST_JOB_GET] = "SELECT phase, reason, model, batch, micro, gpus_min,"
                   " gpus_max, algorithm, priority, iteration_s,"
                   " created_ms, updated_ms, shape, note, iterations"
                   " FROM jobs"
                   " WHERE name = ?1",
    [ST_STAGES_GET] = "SELECT idx, first_layer, last_layer, dc, g"
                      " FROM stages WHERE job = ?1 ORDER BY idx",
    [ST_GPUS_GET] = "SELECT dc, count FROM gpus WHERE job = ?1",
    [ST_LPS_GET] = "SELECT idx, from_dc, to_dc, links, length_km,"
                   " modulation,"
                   " \"first\", m, n, capacity_gbps, gosnr_db"
                   " FROM lightpaths WHERE job = ?1 ORDER BY idx",
    [ST_LP_SET_GOSNR] = "UPDATE lightpaths SET gosnr_db = ?3"
                        " WHERE job = ?1 AND idx = ?2",
    [ST_JOB_NAMES] = "SELECT name FROM jobs ORDER BY name",
    /* A slot row whose lightpath is missing, or does not list its link,
     * or whose slot lies outside [first, first + m).  Links are stored
     * as "3,5,7", so ",3,5,7," contains ",5," exactly when 5 is one. */
    [ST_CHK_SLOT_OWNER] =
        "SELECT s.link, s.slot, s.job, s.lp, l.idx IS NOT NULL"
        " FROM slots s LEFT JOIN lightpaths l"
        "  ON l.job = s.job AND l.idx = s.lp"
        " WHERE l.idx IS NULL"
        "  OR instr(',' || l.links || ',', ',' || s.link || ',') = 0"
        "  OR s.slot < l.\"first\" OR s.slot >= l.\"first\" + l.m"
        " ORDER BY s.link, s.slot LIMIT 1",
    [ST_CHK_LPS] = "SELECT l.job, l.idx, l.links, l.\"first\", l.m,"
                   " (SELECT count(*) FROM slots s"
                   "  WHERE s.job = l.job AND s.lp = l.idx)"
                   " FROM lightpaths l ORDER BY l.job, l.idx",
    [ST_CHK_SLOT_OF] = "SELECT 1 FROM slots WHERE link = ?1 AND slot = ?2"
                       " AND job = ?3 AND lp = ?4",
    [ST_CHK_IDLE] =
        "SELECT j.name, j.phase,"
        " (SELECT count(*) FROM slots WHERE job = j.name),"
        " (SELECT coalesce(sum(count), 0) FROM gpus WHERE job = j.name)"
        " FROM jobs j WHERE j.phase IN ('blocked', 'failed')"
        " AND (EXISTS (SELECT 1 FROM slots WHERE job = j.name)"
        "  OR EXISTS (SELECT 1 FROM gpus WHERE job = j.name))"
        " ORDER BY j.name LIMIT 1",
    /* GPU rows that the stages do not account for ... */
    [ST_CHK_GPU_ROWS] =
        "SELECT job, dc, count, used FROM"
        " (SELECT g.job, g.dc, g.count,"
        "   (SELECT coalesce(sum(st.g), 0) FROM stages st"
        "    WHERE st.job = g.job AND st.dc = g.dc) AS used"
        "  FROM gpus g)"
        " WHERE count != used ORDER BY job, dc LIMIT 1",
    /* ... and stages of a job that should hold GPUs but holds fewer. */
    [ST_CHK_STAGE_SUMS] =
        "SELECT d.job, d.dc, coalesce(g.count, 0), d.used FROM"
        " (SELECT job, dc, sum(g) AS used FROM stages GROUP BY job, dc) d"
        " JOIN jobs j ON j.name = d.job"
        " LEFT JOIN gpus g ON g.job = d.job AND g.dc = d.dc"
        " WHERE j.phase NOT IN ('blocked', 'failed')"
        "  AND coalesce(g.count, 0) != d.used"
        " ORDER BY d.job, d.dc LIMIT 1",
};

struct lr_store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    int depth;                /* open transactions and savepoints */
    char *path;               /* for messages */
    char *kept;               /* the copy this open kept, or NULL */
    int kept_version;         /* the schema version it holds */
    char errmsg[1024];        /* the last failure, "" when none */
};

/* Records a message for lr_store_error() and returns 'ret'. */
static int
lr_store_errf(struct lr_store *s, int ret, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
    return ret;
}

/* The process other than this one that holds a POSIX lock on the file
 * at 'path' (SQLite's locks are POSIX locks), as Linux lists them in
 * /proc/locks ("1: POSIX ADVISORY WRITE PID MAJ:MIN:INODE START END",
 * the device in hex): its pid, and its command name in comm[len] ("" if
 * unknown).  The file is matched by device and inode, so a store
 * reached through a symbolic or hard link is found too.  0 when none
 * is known: another system, a lock held from another host, or only
 * this process's (another connection of ours). */
static pid_t
lr_store_lock_holder(const char *path, char *comm, size_t len)
{
    struct stat st;
    char line[256];
    pid_t holder = 0;
    comm[0] = '\0';
    if (stat(path, &st))
        return 0;
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    while (!holder && fgets(line, sizeof line, f)) {
        unsigned maj, min;
        unsigned long long ino;
        long pid;
        /* Waiters are listed as "N: -> POSIX ...": not holders. */
        if (sscanf(line, "%*d: POSIX %*s %*s %ld %x:%x:%llu", &pid, &maj,
                   &min, &ino) == 4
            && maj == major(st.st_dev) && min == minor(st.st_dev)
            && ino == (unsigned long long) st.st_ino && pid > 0
            && pid != (long) getpid())
            holder = (pid_t) pid;
    }
    fclose(f);
    if (!holder)
        return 0;
    snprintf(line, sizeof line, "/proc/%ld/comm", (long) holder);
    if ((f = fopen(line, "re"))) {
        if (fgets(comm, (int) len, f))
            comm[strcspn(comm, "\n")] = '\0';
        else
            comm[0] = '\0';
        fclose(f);
    }
    return holder;
}

/* The refusal of a store another process holds ("database is locked"
 * once the busy timeout has passed), naming that process when Linux
 * says which.  A second lightraild on the same state directory is
 * refused by that directory's lock before this; one whose state
 * directory differs but whose store is the same file (a link) gets
 * here, and was told it was "a sqlite3 shell, a backup tool". */
static void
lr_store_busy(struct lr_store *s, const char *what)
{
    char comm[64];
    pid_t pid = lr_store_lock_holder(s->path, comm, sizeof comm);
    if (pid && !strcmp(comm, "lightraild"))
        lr_store_errf(s, 0, "%s: %s: %s: another lightraild (pid %ld) "
                      "serves the store (the same file, through a link or "
                      "from another state directory): stop it first, or "
                      "give this one a store of its own", s->path, what,
                      sqlite3_errmsg(s->db), (long) pid);
    else if (pid)
        lr_store_errf(s, 0, "%s: %s: %s: another process holds the store "
                      "(pid %ld, %s): end it, then try again", s->path,
                      what, sqlite3_errmsg(s->db), (long) pid,
                      comm[0] ? comm : "command unknown");
    else
        lr_store_errf(s, 0, "%s: %s: %s: another process holds the store "
                      "(a sqlite3 shell, a backup tool): end it, then try "
                      "again", s->path, what, sqlite3_errmsg(s->db));
}

/* SQLite's lock bytes (its os_unix.c): a reader holds a read lock on
 * one of the SHARED_SIZE bytes from SHARED_FIRST, a writer about to
 * write the database file (and a connection in locking_mode EXCLUSIVE,
 * lightraild's, from its first read) a write lock on all of them. */
#define LR_STORE_SHARED_FIRST (0x40000000 + 2)
#define LR_STORE_SHARED_SIZE 510

int
lr_store_hold(const char *path, int *fd, char *err, size_t errlen)
{
    char comm[64];
    pid_t pid;
    int ret = 0;
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        ret = errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(ret));
        return ret;
    }
    /* All of the range, unlike SQLite's reader: what matters is that no
     * writer can take it whole.  An open file description's lock, not a
     * POSIX one: lr_store_copy() opens and closes the file, and closing
     * any descriptor of a file drops the process's POSIX locks on it. */
    struct flock fl = {
        .l_type = F_RDLCK, .l_whence = SEEK_SET,
        .l_start = LR_STORE_SHARED_FIRST, .l_len = LR_STORE_SHARED_SIZE,
    };
    bool locked = !fcntl(*fd, F_OFD_SETLK, &fl);
    if (!locked && errno != EAGAIN && errno != EACCES) {
        ret = errno;
        snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(ret));
        goto cleanup;
    }
    /* A reader's lock does not stop ours, but in WAL mode a connection
     * writes while holding only a reader's lock on the database file:
     * any holder may be writing. */
    pid = lr_store_lock_holder(path, comm, sizeof comm);
    if (locked && !pid)
        return 0;
    ret = EBUSY;
    if (pid && !strcmp(comm, "lightraild"))
        snprintf(err, errlen, "%s: another lightraild (pid %ld) serves the "
                 "store (the same file, through a link or from another "
                 "state directory): stop it first", path, (long) pid);
    else if (pid)
        snprintf(err, errlen, "%s: another process holds the store (pid %ld, "
                 "%s): end it, then try again", path, (long) pid,
                 comm[0] ? comm : "command unknown");
    else
        snprintf(err, errlen, "%s: another process holds the store (a "
                 "sqlite3 shell, a backup tool): end it, then try again",
                 path);

cleanup:
    close(*fd);
    *fd = -1;
    return ret;
}

/* Records SQLite's message for a failure of 'what' and returns the errno
 * the header promises for it. */
static int
lr_store_sqlerr(struct lr_store *s, int rc, const char *what)
{
    int sys = sqlite3_system_errno(s->db);
    switch (rc & 0xff) {
    case SQLITE_READONLY:
        /* "attempt to write a readonly database", also on a read: a
         * WAL store needs its -wal and -shm files beside it. */
        lr_store_errf(s, 0, "%s: %s: %s: the store or its directory "
                      "cannot be written: give the user lightrail runs as "
                      "write access to both", s->path, what,
                      sqlite3_errmsg(s->db));
        break;
    case SQLITE_BUSY:
        lr_store_busy(s, what);
        break;
    case SQLITE_CORRUPT:
        /* SQLite's "database disk image is malformed" says no remedy. */
        lr_store_errf(s, 0, "%s: %s: %s: the file is damaged: restore a "
                      "backup", s->path, what, sqlite3_errmsg(s->db));
        break;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
        /* "disk I/O error" is a full disk as well as a dying one: the
         * system's word tells them apart. */
        if (sys) {
            lr_store_errf(s, 0, "%s: %s: %s (%s)", s->path, what,
                          sqlite3_errmsg(s->db), strerror(sys));
            break;
        }
        /* fall through */
    default:
        lr_store_errf(s, 0, "%s: %s: %s", s->path, what,
                      sqlite3_errmsg(s->db));
    }
    return (rc & 0xff) == SQLITE_NOMEM ? ENOMEM : EIO;
}

/* The cached statement 'id', ready to bind.  Statements are reset as soon
 * as their function is done with them (lr_store_done()): a SELECT left
 * half-stepped would keep a read transaction open and pin the WAL. */
static sqlite3_stmt *
lr_store_stmt(struct lr_store *s, enum lr_store_stmt id)
{
    return s->st[id];
}

static void
lr_store_done(sqlite3_stmt *stmt)
{
    if (stmt) {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
    }
}

/* Steps a statement that returns no rows to its end, then resets it. */
static int
lr_store_exec(struct lr_store *s, sqlite3_stmt *stmt, const char *what)
{
    int rc = sqlite3_step(stmt);
    int ret = rc == SQLITE_DONE || rc == SQLITE_ROW
                  ? 0 : lr_store_sqlerr(s, rc, what);
    lr_store_done(stmt);
    return ret;
}

static void
lr_store_bind_text(sqlite3_stmt *stmt, int i, const char *text)
{
    /* SQLITE_STATIC: every string bound here outlives the statement's
     * use, which ends with lr_store_done() before the function returns. */
    sqlite3_bind_text(stmt, i, text, -1, SQLITE_STATIC);
}

/* SQLite stores a NaN bound as a double as NULL; reading NULL back as NaN
 * keeps "not computed yet" values intact across a round trip. */
static double
lr_store_col_double(sqlite3_stmt *stmt, int i)
{
    if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(stmt, i);
}

/* Copies column 'i' into dst[size]; false when it does not fit. */
static bool
lr_store_col_text(sqlite3_stmt *stmt, int i, char *dst, size_t size)
{
    const unsigned char *t = sqlite3_column_text(stmt, i);
    size_t n = t ? strlen((const char *) t) : 0;
    if (n >= size)
        return false;
    if (n)
        memcpy(dst, t, n);
    dst[n] = '\0';
    return true;
}


static bool
lr_store_idle_phase(enum lr_job_phase phase)
{
    return phase == LR_JOB_BLOCKED || phase == LR_JOB_FAILED;
}

/* The transaction protocol shared by the public begin/commit/rollback
 * and by every write: the outermost level is a real transaction, inner
 * ones are savepoints.  Reads at the outermost level use a deferred
 * transaction, which takes no write lock. */
static int
lr_store_tx_begin(struct lr_store *s, bool write)
{
    enum lr_store_stmt id = s->depth ? ST_SAVEPOINT
                            : write ? ST_BEGIN : ST_BEGIN_READ;
    int ret = lr_store_exec(s, lr_store_stmt(s, id), "cannot begin");
    if (!ret)
        s->depth++;
    return ret;
}

static int
lr_store_tx_commit(struct lr_store *s)
{
    if (s->depth <= 0)
        return lr_store_errf(s, EINVAL, "%s: commit without a transaction",
                             s->path);
    enum lr_store_stmt id = s->depth == 1 ? ST_COMMIT : ST_RELEASE;
    int ret = lr_store_exec(s, lr_store_stmt(s, id), "cannot commit");
    /* A failed COMMIT leaves the transaction open: the caller rolls it
     * back, so the depth stays. */
    if (!ret)
        s->depth--;
    return ret;
}

static void
lr_store_tx_rollback(struct lr_store *s)
{
    if (s->depth <= 0)
        return;
    /* Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) make SQLite
     * roll the whole transaction back by itself; then there is nothing
     * left to roll back at any level. */
    if (sqlite3_get_autocommit(s->db)) {
        s->depth = 0;
        return;
    }
    /* ROLLBACK TO keeps the savepoint open; RELEASE then removes it. */
    if (s->depth == 1) {
        lr_store_exec(s, lr_store_stmt(s, ST_ROLLBACK), "cannot roll back");
    } else {
        lr_store_exec(s, lr_store_stmt(s, ST_ROLLBACK_TO), "cannot roll back");
        lr_store_exec(s, lr_store_stmt(s, ST_RELEASE), "cannot roll back");
    }
    s->depth--;
}

/* Ends an operation's own transaction: commit when 'ret' is 0, else roll
 * back.  Returns the operation's result, or the commit's failure. */
static int
lr_store_tx_end(struct lr_store *s, int ret)
{
    if (!ret)
        ret = lr_store_tx_commit(s);
    if (ret)
        lr_store_tx_rollback(s);
    return ret;
}

int
lr_store_begin(struct lr_store *s)
{
    return lr_store_tx_begin(s, true);
}

int
lr_store_commit(struct lr_store *s)
{
    return lr_store_tx_commit(s);
}

void
lr_store_rollback(struct lr_store *s)
{
    lr_store_tx_rollback(s);
}

const char *
lr_store_error(const struct lr_store *s)
{
    return s ? s->errmsg : "no store";
}

/*
 * Opening and migrating.
 */

/* Runs a one-off query that returns one integer (0 without a row). */
static int
lr_store_query_int(sqlite3 *db, const char *sql, long long *out)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);

    *out = 0;
    if (rc != SQLITE_OK)
        goto cleanup;
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(stmt, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }

cleanup:
    sqlite3_finalize(stmt);
    return rc;
}

/* The schema version of the open file: 0 for a file without tables; -1
 * when it has tables but no meta table (not ours). */
static int
lr_store_read_version(struct lr_store *s, long long *version)
{
    long long n_tables = 0, has_meta = 0;
    int rc = lr_store_query_int(s->db,
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &n_tables);
    if (rc == SQLITE_OK)
        rc = lr_store_query_int(s->db,
            "SELECT count(*) FROM sqlite_master"
            " WHERE type = 'table' AND name = 'meta'", &has_meta);
    if (rc == SQLITE_OK && has_meta)
        rc = lr_store_query_int(s->db,
            "SELECT value FROM meta WHERE key = 'schema_version'", version);
    else
        *version = n_tables ? -1 : 0;
    if (rc == SQLITE_NOTADB)
        return lr_store_errf(s, EINVAL, "%s: not a SQLite database: move it "
                             "away or give another path", s->path);
    if (rc != SQLITE_OK)
        return lr_store_sqlerr(s, rc, "cannot read the schema version");
    if (*version < 0 || (has_meta && *version == 0))
        return lr_store_errf(s, EINVAL, "%s: not a lightrail database (no "
                             "schema_version in a meta table): give another "
                             "path", s->path);
    return 0;
}

static int lr_store_copy_files(const char *from, const char *to, bool sync,
                               char *err, size_t errlen);

/* Whether none of the files of a store at 'path' exists: its database
 * and the journals lr_store_copy() would copy. */
static bool
lr_store_name_free(const char *path)
{
    static const char *const tails[] = { "", "-wal", "-journal" };
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        char f[PATH_MAX];
        struct stat st;
        if (snprintf(f, sizeof f, "%s%s", path, tails[i]) >= (int) sizeof f
            || lstat(f, &st) == 0 || errno != ENOENT)
            return false;
    }
    return true;
}

/* The name for the copy of 'path' at schema 'version': "PATH.schema-V.bak",
 * or, when a copy of an earlier upgrade has it, the first free of
 * "PATH.schema-V.bak.2" to ".99".  That earlier copy is not written
 * over: the operator who went back by copying it over the store left it
 * there and may still want it until this migration has succeeded
 * (lr_store_prune_kept() removes it then), and it holds less than the
 * store does now; nor is the start refused for it, which would stop an unattended
 * upgrade for a file that is nobody's mistake.  0, ENAMETOOLONG, or
 * EEXIST when all 99 names are taken. */
static int
lr_store_kept_name(const char *path, long long version, char *to,
                   size_t len)
{
    for (int i = 1; i <= 99; i++) {
        int n = i == 1
                ? snprintf(to, len, "%s.schema-%lld.bak", path, version)
                : snprintf(to, len, "%s.schema-%lld.bak.%d", path, version,
                           i);
        if (n < 0 || (size_t) n >= len)
            return ENAMETOOLONG;
        if (lr_store_name_free(to))
            return 0;
    }
    return EEXIST;
}

/* Makes the names of the files just copied into the directory of 'path'
 * durable: fsync() of a file keeps its data, not its directory entry. */
static int
lr_store_sync_dir(const char *path, char *err, size_t errlen)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    char *slash = strrchr(d, '/');
    if (!slash)
        snprintf(d, sizeof d, ".");
    else if (slash == d)
        d[1] = '\0';
    else
        *slash = '\0';
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
    if (fd < 0 || fsync(fd)) {
        ret = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot sync: %s", d, strerror(ret));
    }
    if (fd >= 0)
        close(fd);
    return ret;
}

/*
 * Keeps the store of schema 'version' (older than ours) as it is, beside
 * it, before the first migration step writes it: a start that then
 * fails, or an operator going back to the older lightraild, has the file
 * the older code wrote.  Called before the connection writes anything,
 * the journal mode included, so the copy is the file as it was found.
 * Copied as files (lr_store_copy()'s way: SQLite's backup API would
 * write a new file of its own, not the one the older code left), synced
 * before the migration can be: the migration's commit may reach the disk
 * before an unsynced copy does.  The caller makes sure no other process
 * writes the store meanwhile (lightraild holds its state directory's
 * lock).  0, or the copy's errno with the refusal in s->errmsg; no part
 * of a copy is left then.
 */
static int
lr_store_keep(struct lr_store *s, long long version)
{
    char to[PATH_MAX], why[PATH_MAX + 128];
    int ret = lr_store_kept_name(s->path, version, to, sizeof to);
    if (ret == ENAMETOOLONG)
        snprintf(why, sizeof why, "its path is too long for a copy's");
    else if (ret == EEXIST)
        snprintf(why, sizeof why, "%s.schema-%lld.bak and .2 to .99 all "
                 "exist: remove the copies no longer needed", s->path,
                 version);
    /* A read transaction held over the copy: the state directory's lock
     * keeps other lightraild processes off the store, not a sqlite3
     * shell, which could otherwise checkpoint and restart the WAL
     * between the database's copy and the WAL's, pairing a database
     * with a WAL of another generation.  WAL is not restarted while a
     * reader holds a snapshot of it. */
    int rc = SQLITE_OK;
    if (!ret) {
        rc = sqlite3_exec(s->db, "BEGIN; SELECT count(*) FROM sqlite_master",
                          NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            (void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return lr_store_sqlerr(s, rc, "cannot hold the store to copy "
                                   "it before migrating");
        }
        ret = lr_store_copy_files(s->path, to, true, why, sizeof why);
        (void) sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    }
    if (ret)
        return lr_store_errf(s, ret, "%s: schema version %lld, older than "
                             "this lightrail's %d: no copy of it could be "
                             "kept before migrating (%s): the store is left "
                             "as it was; make room on its file system, or "
                             "give the user lightrail runs as write access "
                             "to its directory, and start again", s->path,
                             version, LR_STORE_SCHEMA_VERSION, why);
    if (!(s->kept = strdup(to)))
        return lr_store_errf(s, ENOMEM, "%s: out of memory", s->path);
    s->kept_version = (int) version;
    return 0;
}

/* Removes the copy this open kept when the store is still at the
 * version it holds: a migration that failed rolled back, and a copy of
 * a store as it still is would only pile up, one per start that fails
 * the same way (lr_store_kept_name() never writes over one).  A store
 * whose version cannot be read now, or differs, keeps its copy: it may
 * be the only older file left.  s->errmsg, the open's refusal, is kept. */
static void
lr_store_unkeep(struct lr_store *s)
{
    static const char *const tails[] = { "", "-wal", "-journal" };
    char why[sizeof s->errmsg];
    long long now = -1;
    if (!s->kept)
        return;
    memcpy(why, s->errmsg, sizeof why);
    bool same = !lr_store_read_version(s, &now) && now == s->kept_version;
    memcpy(s->errmsg, why, sizeof why);
    if (!same)
        return;
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        char f[PATH_MAX];
        if (snprintf(f, sizeof f, "%s%s", s->kept, tails[i])
            < (int) sizeof f)
            (void) unlink(f);
    }
    free(s->kept);
    s->kept = NULL;
}

const char *
lr_store_kept(const struct lr_store *s, int *version)
{
    if (version)
        *version = s && s->kept ? s->kept_version : 0;
    return s ? s->kept : NULL;
}

/* A copy an open kept beside the store (lr_store_kept_name()'s
 * "BASE.schema-V.bak" or "BASE.schema-V.bak.N"), for
 * lr_store_prune_kept(). */
struct lr_store_copy {
    char *name;               /* in the store's directory, owned */
    long long version;
    long n;                   /* 1 for ".bak", N for ".bak.N" */
    struct timespec mtime;
    bool just_made;           /* the 'kept' of lr_store_prune_kept() */
};

/* Parses 'name' as a copy of the store named 'base': its version and
 * number in '*c'; false for any other name, a copy's journal included. */
static bool
lr_store_copy_parse(const char *base, const char *name,
                    struct lr_store_copy *c)
{
    size_t blen = strlen(base);
    const char *p = name;
    char *end;
    if (strncmp(p, base, blen) || strncmp(p + blen, ".schema-", 8))
        return false;
    p += blen + 8;
    if (!isdigit((unsigned char) *p))
        return false;
    errno = 0;
    c->version = strtoll(p, &end, 10);
    if (errno || strncmp(end, ".bak", 4))
        return false;
    p = end + 4;
    c->n = 1;
    if (!*p)
        return true;
    if (*p != '.' || !isdigit((unsigned char) p[1]))
        return false;
    errno = 0;
    c->n = strtol(p + 1, &end, 10);
    return !errno && !*end && c->n >= 2;
}

/* Whether copy 'a' is newer than copy 'b' of the same version. */
static bool
lr_store_copy_newer(const struct lr_store_copy *a,
                    const struct lr_store_copy *b)
{
    if (a->just_made != b->just_made)
        return a->just_made;
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec > b->mtime.tv_sec;
    if (a->mtime.tv_nsec != b->mtime.tv_nsec)
        return a->mtime.tv_nsec > b->mtime.tv_nsec;
    return a->n > b->n;
}

/* Removes the copy at 'full' and then its journals: the database first,
 * so that a failure leaves the copy whole (a database without its WAL
 * would read as the store before its last commits).  The -shm too: a
 * copy is never written with one, but a sqlite3 shell that opened it
 * leaves its wal-index, which would outlive the copy.  0 or an errno. */
static int
lr_store_copy_remove(const char *full)
{
    static const char *const tails[] = { "-wal", "-journal", "-shm" };
    if (unlink(full))
        return errno;
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        char f[PATH_MAX];
        if (snprintf(f, sizeof f, "%s%s", full, tails[i]) >= (int) sizeof f)
            return ENAMETOOLONG;
        if (unlink(f) && errno != ENOENT)
            return errno;
    }
    return 0;
}

/* The copies of the store named 'base' in directory 'dir' into '*out'
 * ('*n' of them; the caller frees each name and the array), 'kept_base'
 * marked as just made.  0, or an errno with nothing returned. */
static int
lr_store_copies(const char *dir, const char *base, const char *kept_base,
                struct lr_store_copy **out, size_t *n)
{
    struct lr_store_copy *v = NULL;
    size_t len = 0, cap = 0;
    int ret = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno;
    for (struct dirent *e; (e = readdir(d));) {
        struct lr_store_copy c = { 0 };
        struct stat st;
        if (!lr_store_copy_parse(base, e->d_name, &c)
            || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)
            || !S_ISREG(st.st_mode))
            continue;
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            struct lr_store_copy *nv = realloc(v, ncap * sizeof *v);
            if (!nv) {
                ret = ENOMEM;
                break;
            }
            v = nv;
            cap = ncap;
        }
        c.mtime = st.st_mtim;
        c.just_made = kept_base && !strcmp(e->d_name, kept_base);
        if (!(c.name = strdup(e->d_name))) {
            ret = ENOMEM;
            break;
        }
        v[len++] = c;
    }
    closedir(d);
    if (ret) {
        for (size_t i = 0; i < len; i++)
            free(v[i].name);
        free(v);
        return ret;
    }
    *out = v;
    *n = len;
    return 0;
}

int
lr_store_prune_kept(const char *path, const char *kept,
                    lr_store_pruned_fn *said, void *arg)
{
    /* 'dir' for opendir(), 'prefix' to name a copy as 'path' names the
     * store (the copy lr_store_kept() names is "PATH.schema-V.bak"). */
    char dir[PATH_MAX], prefix[PATH_MAX], full[PATH_MAX], stays[PATH_MAX];
    struct lr_store_copy *c = NULL;
    size_t n = 0;
    int first = 0;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *kslash = kept ? strrchr(kept, '/') : NULL;
    const char *kept_base = kslash ? kslash + 1 : kept;
    if (snprintf(prefix, sizeof prefix, "%.*s", (int) (base - path), path)
        >= (int) sizeof prefix)
        return ENAMETOOLONG;
    snprintf(dir, sizeof dir, "%s", *prefix ? prefix : ".");
    int ret = lr_store_copies(dir, base, kept_base, &c, &n);
    if (ret)
        return ret;
    for (size_t i = 0; i < n; i++) {
        /* The newest copy of c[i]'s version: c[i] goes unless it is. */
        size_t newest = i;
        for (size_t j = 0; j < n; j++)
            if (c[j].version == c[i].version
                && lr_store_copy_newer(&c[j], &c[newest]))
                newest = j;
        if (newest == i)
            continue;
        if (snprintf(full, sizeof full, "%s%s", prefix, c[i].name)
            >= (int) sizeof full)
            ret = ENAMETOOLONG;
        else
            ret = lr_store_copy_remove(full);
        if (ret && !first)
            first = ret;
        snprintf(stays, sizeof stays, "%s%s", prefix, c[newest].name);
        if (said)
            said(arg, full, (int) c[i].version, stays, ret);
    }
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
    return first;
}

static int
lr_store_migrate(struct lr_store *s)
{
    long long version = 0;
    sqlite3_stmt *set = NULL;
    char *msg = NULL;
    bool in_tx = false;
    int ret = 0, rc;

    /* Re-read under the write lock: another process may have migrated the
     * file since the first look. */
    rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        ret = lr_store_sqlerr(s, rc, "cannot begin the migration");
        goto cleanup;
    }
    in_tx = true;
    ret = lr_store_read_version(s, &version);
    if (ret)
        goto cleanup;
    for (long long v = version; v < LR_STORE_SCHEMA_VERSION; v++) {
        rc = sqlite3_exec(s->db, lr_store_migrations[v], NULL, NULL, &msg);
        if (rc != SQLITE_OK) {
            ret = lr_store_errf(s, EIO, "%s: migration to schema version "
                                "%lld failed: %s: restore a backup or give "
                                "another path", s->path, v + 1,
                                msg ? msg : sqlite3_errstr(rc));
            goto cleanup;
        }
    }
    if (version < LR_STORE_SCHEMA_VERSION) {
        rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO meta(key,"
                                " value) VALUES ('schema_version', ?1)", -1,
                                &set, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(set, 1, LR_STORE_SCHEMA_VERSION);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(set) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        if (rc != SQLITE_OK) {
            ret = lr_store_sqlerr(s, rc, "cannot record the schema version");
            goto cleanup;
        }
    }
    rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        ret = lr_store_sqlerr(s, rc, "cannot commit the migration");
        goto cleanup;
    }
    in_tx = false;

cleanup:
    sqlite3_finalize(set);
    sqlite3_free(msg);
    if (in_tx)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return ret;
}

/* The connection's settings.  journal_mode answers with the mode it got:
 * an in-memory database stays "memory", anything else must be WAL or the
 * durability the header promises does not hold. */
static int
lr_store_configure(struct lr_store *s)
{
    sqlite3_stmt *stmt = NULL;
    int ret = 0;
    /* One process owns the database (lightraild, or a tool while the
     * daemon is stopped): an exclusive lock, taken once and held, spares
     * every transaction its fcntl() lock calls and WAL its shared-memory
     * index.  SQLite takes it at the first write (a shared lock from the
     * first read until then; lightraild writes at its start).  Another
     * process opening the file meanwhile gets "database is locked". */
    int rc = sqlite3_exec(s->db, "PRAGMA locking_mode = EXCLUSIVE", NULL,
                          NULL, NULL);
    if (rc != SQLITE_OK) {
        ret = lr_store_sqlerr(s, rc, "cannot take the database exclusively");
        goto cleanup;
    }
    rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &stmt,
                            NULL);

    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
        ret = lr_store_sqlerr(s, rc, "cannot switch to WAL");
        goto cleanup;
    }
    const char *mode = (const char *) sqlite3_column_text(stmt, 0);
    if (!mode || (strcmp(mode, "wal") && strcmp(mode, "memory"))) {
        ret = lr_store_errf(s, EIO, "%s: journal mode is %s, not WAL: the "
                            "file system may not support shared memory; "
                            "put the database on a local disk", s->path,
                            mode ? mode : "unknown");
        goto cleanup;
    }
    rc = sqlite3_exec(s->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        ret = lr_store_sqlerr(s, rc, "cannot set synchronous = NORMAL");

cleanup:
    sqlite3_finalize(stmt);
    return ret;
}

void
lr_store_close(struct lr_store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(s->st[i]);
    /* An open transaction is rolled back by the close. */
    sqlite3_close(s->db);
    free(s->path);
    free(s->kept);
    free(s);
}

/* Whether 'path' is an existing regular file of 0 bytes without a
 * WAL that holds anything. */
static bool
lr_store_empty_file(const char *path)
{
    struct stat st;
    char wal[PATH_MAX];
    if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size)
        return false;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int) sizeof wal)
        return false;
    return stat(wal, &st) || !st.st_size;
}

/* lr_store_open() and lr_store_open_unkept(): 'keep' says whether an
 * older store is kept before its migration. */
static int
lr_store_open_keep(const char *path, bool keep, struct lr_store **out,
                   char *err, size_t errlen)
{
    struct lr_store *s = NULL;
    long long version = 0, fk = 0;
    int ret = 0, rc;

    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!path || !*path) {
        if (err && errlen)
            snprintf(err, errlen, "no database path given");
        return EINVAL;
    }
    s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", path);
        return ENOMEM;
    }
    /* SQLite takes an empty file for an empty database, and so we would
     * for a new store; but an existing file of 0 bytes is what a crash
     * of the file system or a failed copy leaves of one, and from a new
     * store lightraild's start removes every job's channels from the
     * devices as orphans.  (A store of ours is never empty: its schema
     * is written at open, and a WAL beside it may still hold that.) */
    if (lr_store_empty_file(path)) {
        ret = lr_store_errf(s, EINVAL, "%s: an empty file (0 bytes), not a "
                            "store: restore the store from a backup, or "
                            "remove the file to start with no jobs "
                            "(lightraild then removes every channel the "
                            "devices hold)", path);
        goto cleanup;
    }
    rc = sqlite3_open_v2(path, &s->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        ret = s->db ? lr_store_sqlerr(s, rc, "cannot open")
                    : lr_store_errf(s, ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    /* SQLITE_OPEN_READWRITE falls back to read-only on a file this
     * process may not write, and the first write failed, once the
     * daemon served: refused here, before anything is read. */
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        ret = lr_store_errf(s, EACCES, "%s: the store cannot be written "
                            "(its mode, its owner or a read-only file "
                            "system): give the user lightrail runs as "
                            "write access to it and its directory", path);
        goto cleanup;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, LR_STORE_BUSY_MS);
    /* Foreign keys are a per-connection setting, off by default, and a
     * no-op inside a transaction: set before anything else. */
    rc = sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = lr_store_query_int(s->db, "PRAGMA foreign_keys", &fk);
    if (rc != SQLITE_OK) {
        ret = lr_store_sqlerr(s, rc, "cannot enable foreign keys");
        goto cleanup;
    }
    if (fk != 1) {
        ret = lr_store_errf(s, EIO, "%s: this SQLite has no foreign keys",
                            path);
        goto cleanup;
    }
    /* Refuse a newer file before touching it, journal mode included. */
    ret = lr_store_read_version(s, &version);
    if (ret)
        goto cleanup;
    if (version > LR_STORE_SCHEMA_VERSION) {
        ret = lr_store_errf(s, ENOTSUP, "%s: schema version %lld is newer "
                            "than this lightrail supports (%d): upgrade "
                            "lightrail or restore an older backup", path,
                            version, LR_STORE_SCHEMA_VERSION);
        goto cleanup;
    }
    /* Version 0 is a new store: nothing to keep. */
    if (version > 0 && version < LR_STORE_SCHEMA_VERSION && keep) {
        ret = lr_store_keep(s, version);
        if (ret)
            goto cleanup;
    }
    ret = lr_store_configure(s);
    if (!ret && version < LR_STORE_SCHEMA_VERSION)
        ret = lr_store_migrate(s);
    if (ret)
        goto cleanup;
    for (int i = 0; i < ST_N; i++) {
        rc = sqlite3_prepare_v3(s->db, lr_store_sql[i], -1,
                                SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
        if (rc != SQLITE_OK) {
            ret = lr_store_sqlerr(s, rc, "cannot prepare a statement");
            goto cleanup;
        }
    }
    s->errmsg[0] = '\0';

cleanup:
    if (ret) {
        lr_store_unkeep(s);
        if (err && errlen)
            snprintf(err, errlen, "%s", s->errmsg);
        lr_store_close(s);
        s = NULL;
    }
    *out = s;
    return ret;
}

int
lr_store_open(const char *path, struct lr_store **out, char *err,
              size_t errlen)
{
    return lr_store_open_keep(path, true, out, err, errlen);
}

int
lr_store_open_unkept(const char *path, struct lr_store **out, char *err,
                     size_t errlen)
{
    return lr_store_open_keep(path, false, out, err, errlen);
}

/* Copies file 'from' to a new file 'to', synced to its disk when 'sync';
 * ENOENT when 'from' does not exist (nothing made).  The copy has the
 * permission bits of 'from' (a store the operator made readable by a
 * group, copied back with cp -p, stays so), set once it is whole: until
 * then only its owner may read it.  A failed copy is removed. */
static int
lr_store_copy_file(const char *from, const char *to, bool sync, char *err,
                   size_t errlen)
{
    int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
    if (in < 0) {
        ret = errno;
        if (ret != ENOENT && err && errlen)
            snprintf(err, errlen, "%s: cannot read: %s", from,
                     strerror(ret));
        return ret;
    }
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        ret = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot create: %s", to,
                     strerror(ret));
        close(in);
        return ret;
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf), w = 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0) {
                ret = errno;
                if (err && errlen)
                    snprintf(err, errlen, "%s: cannot read: %s", from,
                             strerror(ret));
            }
            break;
        }
        while (w < n) {
            ssize_t k = write(out, buf + w, (size_t) (n - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                ret = errno;
                if (err && errlen)
                    snprintf(err, errlen, "%s: cannot write: %s", to,
                             strerror(ret));
                break;
            }
            w += k;
        }
        if (ret)
            break;
    }
    struct stat st;
    if (!ret && (fstat(in, &st) || fchmod(out, st.st_mode & 0777))) {
        ret = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot give it the mode of %s: %s",
                     to, from, strerror(ret));
    }
    if (sync && !ret && fsync(out)) {
        ret = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot sync: %s", to, strerror(ret));
    }
    if (close(out) && !ret) {
        ret = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot write: %s", to, strerror(ret));
    }
    close(in);
    /* Half a copy (a full disk) is no copy: it would be taken for one. */
    if (ret)
        unlink(to);
    return ret;
}

int
lr_store_copy(const char *from, const char *to, char *err, size_t errlen)
{
    return lr_store_copy_files(from, to, false, err, errlen);
}

/* lr_store_copy(), each file and then their directory synced when
 * 'sync'.  On a failure the files it made are removed. */
static int
lr_store_copy_files(const char *from, const char *to, bool sync, char *err,
                    size_t errlen)
{
    /* The database and its journals, as files: SQLite would have to
     * recover a crashed daemon's WAL to read it, which makes a -shm file
     * beside the store, or writes (PRAGMA locking_mode = EXCLUSIVE on a
     * read-only connection fails).  No process holds them: the caller
     * made sure no lightraild serves the store. */
    static const char *const tails[] = { "", "-wal", "-journal" };
    bool made[sizeof tails / sizeof *tails] = { false };
    char f[PATH_MAX], t[PATH_MAX];
    int ret = 0;
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        bool long_from = snprintf(f, sizeof f, "%s%s", from, tails[i])
                         >= (int) sizeof f;
        if (long_from
            || snprintf(t, sizeof t, "%s%s", to, tails[i]) >= (int) sizeof t) {
            /* The one too long: the copy's is not the store's. */
            if (err && errlen)
                snprintf(err, errlen, "%s%s: path too long",
                         long_from ? from : to, tails[i]);
            ret = ENAMETOOLONG;
            goto cleanup;
        }
        ret = lr_store_copy_file(f, t, sync, err, errlen);
        if (ret == ENOENT && i > 0) {
            ret = 0;
            continue;   /* no journal: nothing left uncheckpointed */
        }
        if (ret == ENOENT && err && errlen)
            snprintf(err, errlen, "%s: no such file", from);
        if (ret)
            goto cleanup;
        made[i] = true;
    }
    if (sync)
        ret = lr_store_sync_dir(to, err, errlen);

cleanup:
    /* Part of a copy is no copy: it would be taken for one. */
    for (size_t k = 0; ret && k < sizeof tails / sizeof *tails; k++)
        if (made[k]) {
            snprintf(t, sizeof t, "%s%s", to, tails[k]);
            unlink(t);
        }
    return ret;
}

int
lr_store_close_to_others(const char *path, char *changed, size_t len,
                         char *err, size_t errlen)
{
    /* The journals too: SQLite gives a -wal or -shm it creates the
     * store's mode, and one a crash left keeps its own. */
    static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t used = 0;
    if (changed && len)
        changed[0] = '\0';
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        char f[PATH_MAX];
        struct stat st;
        if (snprintf(f, sizeof f, "%s%s", path, tails[i]) >= (int) sizeof f) {
            if (err && errlen)
                snprintf(err, errlen, "%s%s: path too long", path, tails[i]);
            return ENAMETOOLONG;
        }
        if (stat(f, &st)) {
            if (errno == ENOENT)
                continue;
            int e = errno;
            if (err && errlen)
                snprintf(err, errlen, "%s: %s", f, strerror(e));
            return e;
        }
        if (!(st.st_mode & S_IRWXO))
            continue;
        mode_t was = st.st_mode & 07777, now = was & ~(mode_t) S_IRWXO;
        if (chmod(f, now)) {
            int e = errno;
            if (err && errlen)
                snprintf(err, errlen, "%s: cannot take the permissions of "
                         "other users from its mode %04o: %s; run 'chmod o= "
                         "%s*' as its owner", f, (unsigned) was, strerror(e),
                         path);
            return e;
        }
        if (changed && used < len) {
            int n = snprintf(changed + used, len - used, "%s%s%s %04o -> %04o",
                             used ? ", " : "", base, tails[i], (unsigned) was,
                             (unsigned) now);
            used += n > 0 ? (size_t) n : 0;
        }
    }
    return 0;
}

/*
 * Documents.
 */

int
lr_store_put_doc(struct lr_store *s, const char *key, const char *json)
{
    if (!key || !*key || !json)
        return lr_store_errf(s, EINVAL, "%s: a document needs a key and a "
                             "text", s->path);
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_DOC_PUT);
    lr_store_bind_text(stmt, 1, key);
    lr_store_bind_text(stmt, 2, json);
    return lr_store_exec(s, stmt, "cannot store a document");
}

int
lr_store_get_doc(struct lr_store *s, const char *key, char **json)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_DOC_GET);
    int ret = 0, rc;

    *json = NULL;
    lr_store_bind_text(stmt, 1, key);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) {
        ret = lr_store_errf(s, ENOENT, "%s: no document '%s'", s->path, key);
        goto cleanup;
    }
    if (rc != SQLITE_ROW) {
        ret = lr_store_sqlerr(s, rc, "cannot read a document");
        goto cleanup;
    }
    const char *text = (const char *) sqlite3_column_text(stmt, 0);
    *json = strdup(text ? text : "");
    if (!*json)
        ret = ENOMEM;

cleanup:
    lr_store_done(stmt);
    return ret;
}

/*
 * Jobs: validation.
 */

static bool
lr_store_terminated(const char *str, size_t size)
{
    return memchr(str, '\0', size) != NULL;
}

/* Parses "3,5,7" into links[]; false for anything else. */
static bool
lr_store_links_parse(const char *text, int *links, int *n_links)
{
    const char *p = text;

    *n_links = 0;
    if (!p || !*p)
        return false;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > INT_MAX
            || *n_links >= LR_JOB_MAX_HOPS)
            return false;
        links[(*n_links)++] = (int) v;
        if (*end == '\0')
            return true;
        if (*end != ',')
            return false;
        p = end + 1;
    }
}

static void
lr_store_links_format(const struct lr_lightpath *lp, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < lp->n_links && used < size; i++)
        used += (size_t) snprintf(buf + used, size - used, "%s%d",
                                  i ? "," : "", lp->links[i]);
}

/* The names lr_store_job_printable() checks, as lightrail-job types
 * them: the job's name ([A-Za-z0-9._-], 1 to 63), the model's (no white
 * space, 1 to 63) and the algorithm (empty, or one of the enumeration).
 * A name with a space, which only a hand edit can leave, failed every
 * GET of the jobs as a number did. */
static bool
lr_store_job_text(const struct lr_job *job, char *what, size_t len)
{
    static const char *const algos[] = {
        "cdynp", "exact", "dp", "pipedream", "spp", "zone", "ppo",
    };
    const struct lr_intent *in = &job->intent;
    size_t n = strnlen(in->name, sizeof in->name);
    bool ok = n >= 1 && n <= 63;
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char) in->name[i]) || in->name[i] == '.'
             || in->name[i] == '_' || in->name[i] == '-';
    if (!ok) {
        snprintf(what, len, "the name is not 1 to 63 letters, digits, '.', "
                 "'_' or '-'");
        return false;
    }
    n = strnlen(in->model, sizeof in->model);
    ok = n >= 1 && n <= 63;
    for (size_t i = 0; ok && i < n; i++)
        ok = !isspace((unsigned char) in->model[i]);
    if (!ok) {
        snprintf(what, len, "model '%.63s' is not 1 to 63 characters "
                 "without white space", in->model);
        return false;
    }
    ok = !in->algorithm[0];
    for (size_t i = 0; !ok && i < sizeof algos / sizeof algos[0]; i++)
        ok = !strcmp(in->algorithm, algos[i]);
    if (!ok) {
        snprintf(what, len, "algorithm '%.31s' is none of lightrail-job's",
                 in->algorithm);
        return false;
    }
    return true;
}

/* The names (lr_store_job_text()) and numbers of 'job' that its YANG
 * rendering (yang/lr_yang_job.c) must be able to print: true, or false
 * with the first one that is not in 'what'.  A NaN or an infinity here (a hand-edited store: SQLite
 * gives a NULL REAL back as NaN) would otherwise fail every GET of the
 * jobs, long after it was written; so would a number beyond its leaf's
 * type (uint16 slots and layers, decimal64 with 3 or 1 fraction digits,
 * a date-and-time's four-digit year) or one that breaks a must of
 * lightrail-job (batch a multiple of microbatch, at most 1,000,000
 * microbatches, gpus min <= max), which the rendering validates. */
static bool
lr_store_job_printable(const struct lr_job *job, char *what, size_t len)
{
    if (!lr_store_job_text(job, what, len))
        return false;
    const struct lr_intent *in = &job->intent;
    const double count_max = 2147483647;   /* YANG's count */
    const int64_t ms_max = 253402300799999; /* 9999-12-31T23:59:59.999Z */
    if (!(in->batch >= 1 && in->batch <= count_max)) {
        snprintf(what, len, "batch is %g, not a count of 1 to %.0f",
                 in->batch, count_max);
        return false;
    }
    if (!(in->micro >= 1 && in->micro <= count_max)) {
        snprintf(what, len, "microbatch is %g, not a count of 1 to %.0f",
                 in->micro, count_max);
        return false;
    }
    /* The musts are checked on the counts as printed ("%.0f"). */
    double batch = rint(in->batch), micro = rint(in->micro);
    if (fmod(batch, micro) != 0) {
        snprintf(what, len, "batch %.0f is not a multiple of microbatch %.0f",
                 batch, micro);
        return false;
    }
    if (batch / micro > LR_TM_MAX_MICROBATCHES) {
        snprintf(what, len, "batch %.0f over microbatch %.0f is more than "
                 "%d microbatches", batch, micro, LR_TM_MAX_MICROBATCHES);
        return false;
    }
    if (in->gpus_min < 1 || in->gpus_max < in->gpus_min) {
        snprintf(what, len, "gpus min %d and max %d are not 1 <= min <= max",
                 in->gpus_min, in->gpus_max);
        return false;
    }
    if (in->priority < 0 || in->priority > 255) {
        snprintf(what, len, "priority %d is not 0 to 255", in->priority);
        return false;
    }
    if (job->phase == LR_JOB_ACTIVE
        && !(job->iteration_s >= 0 && job->iteration_s <= 9e12)) {
        snprintf(what, len, "an active job's iteration time is %g s, not "
                 "0 to 9e12", job->iteration_s);
        return false;
    }
    if (job->created_ms > ms_max || job->updated_ms > ms_max) {
        snprintf(what, len, "created %lld or updated %lld (ms) is after "
                 "the year 9999", (long long) job->created_ms,
                 (long long) job->updated_ms);
        return false;
    }
    for (int i = 0; i < job->plan.n_stages && i < LR_PLAN_MAX_STAGES; i++) {
        const struct lr_stage *st = &job->plan.stages[i];
        if (st->first < 0 || st->first > 65534 || st->last < 0
            || st->last > 65534) {
            snprintf(what, len, "stage %d's layers %d..%d are not within "
                     "0..65534", i, st->first, st->last);
            return false;
        }
    }
    /* Put checks the counts after this: only the arrays are read. */
    for (int k = 0; k < job->n_lightpaths && k < LR_JOB_MAX_LIGHTPATHS; k++) {
        const struct lr_lightpath *lp = &job->lp[k];
        if (!(isfinite(lp->length_km) && lp->length_km >= 0)
            || !(isfinite(lp->capacity_gbps) && lp->capacity_gbps >= 0)) {
            snprintf(what, len, "lightpath %d's length (%g km) or capacity "
                     "(%g Gb/s) is not a finite number of 0 or more", k,
                     lp->length_km, lp->capacity_gbps);
            return false;
        }
        if (lp->length_km > 9e15 || lp->capacity_gbps > 9e17) {
            snprintf(what, len, "lightpath %d's length (%g km) or capacity "
                     "(%g Gb/s) is over 9e15 km or 9e17 Gb/s", k,
                     lp->length_km, lp->capacity_gbps);
            return false;
        }
        if (lp->first < 0 || lp->first > 65535 || lp->m < 0
            || lp->m > 65535) {
            snprintf(what, len, "lightpath %d's first slot %d or slots %d "
                     "is not within 0..65535", k, lp->first, lp->m);
            return false;
        }
        if (!lr_store_terminated(lp->modulation, sizeof lp->modulation)) {
            snprintf(what, len, "lightpath %d's modulation is not a "
                     "terminated string", k);
            return false;
        }
        if (lp->gosnr_known && !(fabs(lp->gosnr_db) <= LR_JOB_MAX_GOSNR_DB)) {
            snprintf(what, len, "lightpath %d's gOSNR %g dB is not within "
                     "+-%g dB", k, lp->gosnr_db, LR_JOB_MAX_GOSNR_DB);
            return false;
        }
    }
    return true;
}

/* What lr_store_put_job() refuses before touching the database: the
 * invariants lr_store_check() verifies must hold for the job itself. */
static int
lr_store_validate(struct lr_store *s, const struct lr_job *job)
{
    char what[160];
    const struct lr_intent *in = &job->intent;
    int used[LR_TM_MAX_DCS] = { 0 };
    bool idle = lr_store_idle_phase(job->phase);

    if (!lr_store_terminated(in->name, sizeof in->name) || !in->name[0])
        return lr_store_errf(s, EINVAL, "%s: a job needs a name of 1 to %d "
                             "bytes", s->path, LR_JOB_NAME_MAX - 1);
    if (!lr_store_terminated(in->model, sizeof in->model)
        || !lr_store_terminated(in->algorithm, sizeof in->algorithm)
        || !lr_store_terminated(job->reason, sizeof job->reason)
        || !lr_store_terminated(job->note, sizeof job->note))
        return lr_store_errf(s, EINVAL, "job '%s': model, algorithm, "
                             "reason or note is not a terminated string",
                             in->name);
    if ((int) job->phase < 0 || (int) job->phase >= LR_JOB_N_PHASES)
        return lr_store_errf(s, EINVAL, "job '%s': unknown phase %d",
                             in->name, (int) job->phase);
    if (!lr_store_job_printable(job, what, sizeof what))
        return lr_store_errf(s, EINVAL, "job '%s': %s", in->name, what);
    if (job->plan.n_stages < 0 || job->plan.n_stages > LR_PLAN_MAX_STAGES)
        return lr_store_errf(s, EINVAL, "job '%s': %d stages", in->name,
                             job->plan.n_stages);
    /* g = 0: layers a DC's agent planned, its stages private (lr_ctl.h). */
    for (int i = 0; i < job->plan.n_stages; i++) {
        const struct lr_stage *st = &job->plan.stages[i];
        if (st->dc < 0 || st->dc >= LR_TM_MAX_DCS || st->g < 0
            || st->first < 0 || st->last < st->first)
            return lr_store_errf(s, EINVAL, "job '%s': stage %d is invalid "
                                 "(layers %d..%d, DC %d, %d GPUs)", in->name,
                                 i, st->first, st->last, st->dc, st->g);
        used[st->dc] += st->g;
    }
    for (int dc = 0; dc < LR_TM_MAX_DCS; dc++) {
        if (job->gpus[dc] < 0 || (idle && job->gpus[dc]))
            return lr_store_errf(s, EINVAL, "job '%s' (%s) cannot hold %d "
                                 "GPUs in DC %d%s", in->name,
                                 lr_job_phase_name(job->phase), job->gpus[dc],
                                 dc, idle ? ": release them first" : "");
        if (!idle && job->gpus[dc] != used[dc])
            return lr_store_errf(s, EINVAL, "job '%s' holds %d GPUs in DC %d "
                                 "but its stages use %d", in->name,
                                 job->gpus[dc], dc, used[dc]);
    }
    if (job->n_lightpaths < 0 || job->n_lightpaths > LR_JOB_MAX_LIGHTPATHS)
        return lr_store_errf(s, EINVAL, "job '%s': %d lightpaths", in->name,
                             job->n_lightpaths);
    if (idle && job->n_lightpaths)
        return lr_store_errf(s, EINVAL, "job '%s' (%s) cannot hold "
                             "lightpaths: release them first", in->name,
                             lr_job_phase_name(job->phase));
    for (int k = 0; k < job->n_lightpaths; k++) {
        const struct lr_lightpath *lp = &job->lp[k];
        if (lp->n_links < 1 || lp->n_links > LR_JOB_MAX_HOPS || lp->first < 0
            || lp->m < 1 || lp->first > INT_MAX - lp->m)
            return lr_store_errf(s, EINVAL, "job '%s': lightpath %d is "
                                 "invalid (%d links, slots %d + %d)",
                                 in->name, k, lp->n_links, lp->first, lp->m);
        for (int i = 0; i < lp->n_links; i++) {
            if (lp->links[i] < 0)
                return lr_store_errf(s, EINVAL, "job '%s': lightpath %d has "
                                     "link %d", in->name, k, lp->links[i]);
            for (int j = 0; j < i; j++)
                if (lp->links[j] == lp->links[i])
                    return lr_store_errf(s, EINVAL, "job '%s': lightpath %d "
                                         "lists link %d twice", in->name, k,
                                         lp->links[i]);
        }
    }
    return 0;
}

/*
 * Jobs: writing.
 */

/* A slot insert was refused: says who holds it. */
static int
lr_store_slot_taken(struct lr_store *s, const struct lr_job *job, int k,
                    int link, int slot)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_SLOT_HOLDER);
    char holder[LR_JOB_NAME_MAX] = "?";
    int lp = -1;

    sqlite3_bind_int(stmt, 1, link);
    sqlite3_bind_int(stmt, 2, slot);
    if (sqlite3_step(stmt) == SQLITE_ROW) {
        lr_store_col_text(stmt, 0, holder, sizeof holder);
        lp = sqlite3_column_int(stmt, 1);
    }
    lr_store_done(stmt);
    if (!strcmp(holder, job->intent.name))
        return lr_store_errf(s, EEXIST, "job '%s': lightpaths %d and %d both "
                             "book link %d slot %d", holder, lp, k, link,
                             slot);
    return lr_store_errf(s, EEXIST, "job '%s': link %d slot %d is already "
                         "held by job '%s' (lightpath %d)", job->intent.name,
                         link, slot, holder, lp);
}

/* A lightpath's measured gOSNR into parameter 'i': NULL when it is not
 * known (lr_lightpath.gosnr_known), so that no number stands for "not
 * measured". */
static void
lr_store_bind_gosnr(sqlite3_stmt *stmt, int i, const struct lr_lightpath *lp)
{
    if (lp->gosnr_known)
        sqlite3_bind_double(stmt, i, lp->gosnr_db);
    else
        sqlite3_bind_null(stmt, i);
}

static int
lr_store_insert_lightpath(struct lr_store *s, const struct lr_job *job, int k)
{
    const struct lr_lightpath *lp = &job->lp[k];
    const char *name = job->intent.name;
    char links[LR_JOB_MAX_HOPS * 12];
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_LP_INS);
    int ret;

    lr_store_links_format(lp, links, sizeof links);
    lr_store_bind_text(stmt, 1, name);
    sqlite3_bind_int(stmt, 2, k);
    sqlite3_bind_int(stmt, 3, lp->from_dc);
    sqlite3_bind_int(stmt, 4, lp->to_dc);
    lr_store_bind_text(stmt, 5, links);
    sqlite3_bind_double(stmt, 6, lp->length_km);
    lr_store_bind_text(stmt, 7, lp->modulation);
    sqlite3_bind_int(stmt, 8, lp->first);
    sqlite3_bind_int(stmt, 9, lp->m);
    sqlite3_bind_int(stmt, 10, lp->n);
    sqlite3_bind_double(stmt, 11, lp->capacity_gbps);
    lr_store_bind_gosnr(stmt, 12, lp);
    ret = lr_store_exec(s, stmt, "cannot store a lightpath");
    if (ret)
        return ret;

    stmt = lr_store_stmt(s, ST_SLOT_INS);
    for (int i = 0; i < lp->n_links; i++)
        for (int slot = lp->first; slot < lp->first + lp->m; slot++) {
            sqlite3_bind_int(stmt, 1, lp->links[i]);
            sqlite3_bind_int(stmt, 2, slot);
            lr_store_bind_text(stmt, 3, name);
            sqlite3_bind_int(stmt, 4, k);
            int rc = sqlite3_step(stmt);
            lr_store_done(stmt);
            if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
                return lr_store_slot_taken(s, job, k, lp->links[i], slot);
            if (rc != SQLITE_DONE)
                return lr_store_sqlerr(s, rc, "cannot book a slot");
        }
    return 0;
}

static int
lr_store_insert_job(struct lr_store *s, const struct lr_job *job)
{
    const struct lr_intent *in = &job->intent;
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_JOB_UPSERT);
    static const enum lr_store_stmt deletes[] = {
        ST_JOB_DEL_SLOTS, ST_JOB_DEL_LPS, ST_JOB_DEL_GPUS, ST_JOB_DEL_STAGES,
    };
    int ret;

    lr_store_bind_text(stmt, 1, in->name);
    lr_store_bind_text(stmt, 2, lr_job_phase_name(job->phase));
    lr_store_bind_text(stmt, 3, job->reason);
    lr_store_bind_text(stmt, 4, in->model);
    sqlite3_bind_double(stmt, 5, in->batch);
    sqlite3_bind_double(stmt, 6, in->micro);
    sqlite3_bind_int(stmt, 7, in->gpus_min);
    sqlite3_bind_int(stmt, 8, in->gpus_max);
    lr_store_bind_text(stmt, 9, in->algorithm);
    sqlite3_bind_int(stmt, 10, in->priority);
    sqlite3_bind_double(stmt, 11, job->iteration_s);
    sqlite3_bind_int64(stmt, 12, job->created_ms);
    sqlite3_bind_int64(stmt, 13, job->updated_ms);
    lr_store_bind_text(stmt, 15, job->note);
    sqlite3_bind_int64(stmt, 16, (sqlite3_int64) in->iterations);
    char shape[128];
    if (in->custom) {
        const struct lr_transformer *t = &in->shape;
        snprintf(shape, sizeof shape, "%d %d %d %d %d %d %d %d",
                 t->arch == LR_ARCH_LLAMA, t->layers, t->hidden, t->heads,
                 t->kv_heads, t->ffn, t->vocab, t->seq);
        lr_store_bind_text(stmt, 14, shape);
    } else {
        sqlite3_bind_null(stmt, 14);
    }
    ret = lr_store_exec(s, stmt, "cannot store a job");

    for (size_t i = 0; !ret && i < sizeof deletes / sizeof deletes[0]; i++) {
        stmt = lr_store_stmt(s, deletes[i]);
        lr_store_bind_text(stmt, 1, in->name);
        ret = lr_store_exec(s, stmt, "cannot replace a job");
    }
    stmt = lr_store_stmt(s, ST_STAGE_INS);
    for (int i = 0; !ret && i < job->plan.n_stages; i++) {
        const struct lr_stage *st = &job->plan.stages[i];
        lr_store_bind_text(stmt, 1, in->name);
        sqlite3_bind_int(stmt, 2, i);
        sqlite3_bind_int(stmt, 3, st->first);
        sqlite3_bind_int(stmt, 4, st->last);
        sqlite3_bind_int(stmt, 5, st->dc);
        sqlite3_bind_int(stmt, 6, st->g);
        ret = lr_store_exec(s, stmt, "cannot store a stage");
    }
    stmt = lr_store_stmt(s, ST_GPU_INS);
    for (int dc = 0; !ret && dc < LR_TM_MAX_DCS; dc++) {
        if (!job->gpus[dc])
            continue;
        lr_store_bind_text(stmt, 1, in->name);
        sqlite3_bind_int(stmt, 2, dc);
        sqlite3_bind_int(stmt, 3, job->gpus[dc]);
        ret = lr_store_exec(s, stmt, "cannot store GPUs");
    }
    for (int k = 0; !ret && k < job->n_lightpaths; k++)
        ret = lr_store_insert_lightpath(s, job, k);
    return ret;
}

int
lr_store_put_job(struct lr_store *s, const struct lr_job *job)
{
    int ret = lr_store_validate(s, job);

    if (ret)
        return ret;
    ret = lr_store_tx_begin(s, true);
    if (ret)
        return ret;
    return lr_store_tx_end(s, lr_store_insert_job(s, job));
}

static int
lr_store_set_phase_tx(struct lr_store *s, const char *name,
                      enum lr_job_phase phase, const char *reason,
                      long long updated_ms)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_JOB_SET_PHASE);
    int ret;

    lr_store_bind_text(stmt, 1, name);
    lr_store_bind_text(stmt, 2, lr_job_phase_name(phase));
    lr_store_bind_text(stmt, 3, reason ? reason : "");
    sqlite3_bind_int64(stmt, 4, updated_ms);
    ret = lr_store_exec(s, stmt, "cannot set a phase");
    if (ret)
        return ret;
    if (!sqlite3_changes(s->db))
        return lr_store_errf(s, ENOENT, "%s: no job '%s'", s->path, name);
    if (!lr_store_idle_phase(phase)) {
        stmt = lr_store_stmt(s, ST_JOB_UNHELD);
        lr_store_bind_text(stmt, 1, name);
        int rc = sqlite3_step(stmt), dc = 0, used = 0, held = 0;
        if (rc == SQLITE_ROW) {
            dc = sqlite3_column_int(stmt, 0);
            used = sqlite3_column_int(stmt, 1);
            held = sqlite3_column_int(stmt, 2);
        }
        lr_store_done(stmt);
        if (rc == SQLITE_DONE)
            return 0;
        if (rc != SQLITE_ROW)
            return lr_store_sqlerr(s, rc, "cannot read a job's holdings");
        return lr_store_errf(s, EINVAL, "job '%s' cannot become %s by its "
                             "phase alone: its stages use %d GPUs in DC %d "
                             "and it holds %d; store it whole with "
                             "lr_store_put_job()", name,
                             lr_job_phase_name(phase), used, dc, held);
    }

    stmt = lr_store_stmt(s, ST_JOB_HOLDS);
    lr_store_bind_text(stmt, 1, name);
    int rc = sqlite3_step(stmt);
    bool holds = rc == SQLITE_ROW && sqlite3_column_int(stmt, 0);
    lr_store_done(stmt);
    if (rc != SQLITE_ROW)
        return lr_store_sqlerr(s, rc, "cannot read a job's holdings");
    if (holds)
        return lr_store_errf(s, EINVAL, "job '%s' cannot become %s while it "
                             "holds GPUs or lightpaths: release them with "
                             "lr_store_put_job() first", name,
                             lr_job_phase_name(phase));
    return 0;
}

int
lr_store_set_phase(struct lr_store *s, const char *name,
                   enum lr_job_phase phase, const char *reason,
                   long long updated_ms)
{
    int ret;

    if (!name || (int) phase < 0 || (int) phase >= LR_JOB_N_PHASES)
        return lr_store_errf(s, EINVAL, "%s: no job name or an unknown "
                             "phase", s->path);
    if (reason && strlen(reason) >= LR_JOB_REASON_MAX)
        return lr_store_errf(s, EINVAL, "job '%s': a reason is at most %d "
                             "bytes", name, LR_JOB_REASON_MAX - 1);
    ret = lr_store_tx_begin(s, true);
    if (ret)
        return ret;
    return lr_store_tx_end(s, lr_store_set_phase_tx(s, name, phase, reason,
                                                    updated_ms));
}

int
lr_store_set_gosnr(struct lr_store *s, const struct lr_job *job)
{
    const char *name = job->intent.name;
    char what[160];
    int ret;

    if (!lr_store_job_printable(job, what, sizeof what))
        return lr_store_errf(s, EINVAL, "job '%s': %s", name, what);
    ret = lr_store_tx_begin(s, true);
    if (ret)
        return ret;
    for (int k = 0; !ret && k < job->n_lightpaths; k++) {
        sqlite3_stmt *stmt = lr_store_stmt(s, ST_LP_SET_GOSNR);
        lr_store_bind_text(stmt, 1, name);
        sqlite3_bind_int(stmt, 2, k);
        lr_store_bind_gosnr(stmt, 3, &job->lp[k]);
        ret = lr_store_exec(s, stmt, "cannot store a lightpath's gOSNR");
        if (!ret && !sqlite3_changes(s->db))
            ret = lr_store_errf(s, ENOENT, "%s: job '%s' has no lightpath "
                                "%d", s->path, name, k);
    }
    return lr_store_tx_end(s, ret);
}

int
lr_store_delete_job(struct lr_store *s, const char *name)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_JOB_DEL);
    int ret;

    /* One statement is its own transaction; the cascades run inside it. */
    lr_store_bind_text(stmt, 1, name);
    ret = lr_store_exec(s, stmt, "cannot delete a job");
    if (!ret && !sqlite3_changes(s->db))
        ret = lr_store_errf(s, ENOENT, "%s: no job '%s'", s->path, name);
    return ret;
}

/*
 * Jobs: reading.
 */

static int
lr_store_corrupt(struct lr_store *s, const char *name, const char *what)
{
    return lr_store_errf(s, EIO, "%s: job '%s': %s: the database is "
                         "corrupt; restore a backup, or mend that row and "
                         "run lightrail-check again", s->path, name, what);
}

static int
lr_store_load_row(struct lr_store *s, const char *name, struct lr_job *out)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_JOB_GET);
    struct lr_intent *in = &out->intent;
    char phase[16];
    int ret = 0;

    lr_store_bind_text(stmt, 1, name);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) {
        ret = lr_store_errf(s, ENOENT, "%s: no job '%s'", s->path, name);
        goto cleanup;
    }
    if (rc != SQLITE_ROW) {
        ret = lr_store_sqlerr(s, rc, "cannot read a job");
        goto cleanup;
    }
    if (!lr_store_col_text(stmt, 0, phase, sizeof phase)
        || lr_job_phase_parse(phase, &out->phase)
        || !lr_store_col_text(stmt, 1, out->reason, sizeof out->reason)
        || !lr_store_col_text(stmt, 2, in->model, sizeof in->model)
        || !lr_store_col_text(stmt, 7, in->algorithm, sizeof in->algorithm)
        || !lr_store_col_text(stmt, 13, out->note, sizeof out->note)) {
        ret = lr_store_corrupt(s, name, "a text column is too long or the "
                               "phase is unknown");
        goto cleanup;
    }
    snprintf(in->name, sizeof in->name, "%s", name);
    in->batch = lr_store_col_double(stmt, 3);
    in->micro = lr_store_col_double(stmt, 4);
    in->gpus_min = sqlite3_column_int(stmt, 5);
    in->gpus_max = sqlite3_column_int(stmt, 6);
    in->priority = sqlite3_column_int(stmt, 8);
    out->iteration_s = lr_store_col_double(stmt, 9);
    out->created_ms = sqlite3_column_int64(stmt, 10);
    out->updated_ms = sqlite3_column_int64(stmt, 11);
    in->iterations = (uint64_t) sqlite3_column_int64(stmt, 14);
    const char *shape = (const char *) sqlite3_column_text(stmt, 12);
    if (shape) {
        struct lr_transformer *t = &in->shape;
        int llama;
        if (sscanf(shape, "%d %d %d %d %d %d %d %d", &llama, &t->layers,
                   &t->hidden, &t->heads, &t->kv_heads, &t->ffn, &t->vocab,
                   &t->seq) != 8) {
            ret = lr_store_corrupt(s, name, "the model shape is malformed");
            goto cleanup;
        }
        t->arch = llama ? LR_ARCH_LLAMA : LR_ARCH_GPT;
        in->custom = true;
    }

cleanup:
    lr_store_done(stmt);
    return ret;
}

/* Steps the rows of job 'name' that query 'id' returns through 'row',
 * which reads one into 'out' (0, or lr_store_corrupt()'s errno, which
 * stops the read); a failed step is lr_store_sqlerr()'s for 'what'. */
static int
lr_store_load_rows(struct lr_store *s, enum lr_store_stmt id,
                   const char *what, const char *name, struct lr_job *out,
                   int (*row)(struct lr_store *, sqlite3_stmt *,
                              const char *, struct lr_job *))
{
    sqlite3_stmt *stmt = lr_store_stmt(s, id);
    int ret = 0, rc;

    lr_store_bind_text(stmt, 1, name);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        if ((ret = row(s, stmt, name, out)))
            goto cleanup;
    if (rc != SQLITE_DONE)
        ret = lr_store_sqlerr(s, rc, what);

cleanup:
    lr_store_done(stmt);
    return ret;
}

/* A row of ST_STAGES_GET. */
static int
lr_store_stage_row(struct lr_store *s, sqlite3_stmt *stmt, const char *name,
                   struct lr_job *out)
{
    int i = out->plan.n_stages;
    if (sqlite3_column_int(stmt, 0) != i || i >= LR_PLAN_MAX_STAGES)
        return lr_store_corrupt(s, name, "stages are not numbered 0..n-1");
    struct lr_stage *st = &out->plan.stages[i];
    st->first = sqlite3_column_int(stmt, 1);
    st->last = sqlite3_column_int(stmt, 2);
    st->dc = sqlite3_column_int(stmt, 3);
    st->g = sqlite3_column_int(stmt, 4);
    out->plan.n_stages++;
    return 0;
}

/* A row of ST_GPUS_GET. */
static int
lr_store_gpu_row(struct lr_store *s, sqlite3_stmt *stmt, const char *name,
                 struct lr_job *out)
{
    int dc = sqlite3_column_int(stmt, 0);
    if (dc < 0 || dc >= LR_TM_MAX_DCS)
        return lr_store_corrupt(s, name, "GPUs in a DC out of range");
    out->gpus[dc] = sqlite3_column_int(stmt, 1);
    return 0;
}

/* A row of ST_LPS_GET. */
static int
lr_store_lightpath_row(struct lr_store *s, sqlite3_stmt *stmt,
                       const char *name, struct lr_job *out)
{
    int k = out->n_lightpaths;
    if (sqlite3_column_int(stmt, 0) != k || k >= LR_JOB_MAX_LIGHTPATHS)
        return lr_store_corrupt(s, name, "lightpaths are not numbered "
                                "0..n-1");
    struct lr_lightpath *lp = &out->lp[k];
    lp->from_dc = sqlite3_column_int(stmt, 1);
    lp->to_dc = sqlite3_column_int(stmt, 2);
    if (!lr_store_links_parse((const char *) sqlite3_column_text(stmt, 3),
                              lp->links, &lp->n_links))
        return lr_store_corrupt(s, name, "a lightpath's links are not a "
                                "list of link indices");
    lp->length_km = lr_store_col_double(stmt, 4);
    if (!lr_store_col_text(stmt, 5, lp->modulation, sizeof lp->modulation))
        return lr_store_corrupt(s, name, "a lightpath's modulation name is "
                                "longer than a format's");
    lp->first = sqlite3_column_int(stmt, 6);
    lp->m = sqlite3_column_int(stmt, 7);
    lp->n = sqlite3_column_int(stmt, 8);
    lp->capacity_gbps = lr_store_col_double(stmt, 9);
    switch (sqlite3_column_type(stmt, 10)) {
    case SQLITE_NULL:
        break;
    case SQLITE_FLOAT:
    case SQLITE_INTEGER:
        lp->gosnr_known = true;
        lp->gosnr_db = sqlite3_column_double(stmt, 10);
        break;
    default:
        return lr_store_corrupt(s, name, "a lightpath's gOSNR is not a "
                                "number");
    }
    out->n_lightpaths++;
    return 0;
}

/* Reads one job; the caller holds a transaction so that the four reads
 * see one state. */
static int
lr_store_load_job(struct lr_store *s, const char *name, struct lr_job *out)
{
    int ret;

    memset(out, 0, sizeof *out);
    ret = lr_store_load_row(s, name, out);
    if (!ret)
        ret = lr_store_load_rows(s, ST_STAGES_GET, "cannot read stages", name,
                                 out, lr_store_stage_row);
    if (!ret)
        ret = lr_store_load_rows(s, ST_GPUS_GET, "cannot read GPUs", name,
                                 out, lr_store_gpu_row);
    if (!ret)
        ret = lr_store_load_rows(s, ST_LPS_GET, "cannot read lightpaths",
                                 name, out, lr_store_lightpath_row);
    char what[160];
    if (!ret && !lr_store_job_printable(out, what, sizeof what))
        ret = lr_store_corrupt(s, name, what);
    return ret;
}

int
lr_store_get_job(struct lr_store *s, const char *name, struct lr_job *out)
{
    int ret;

    memset(out, 0, sizeof *out);
    if (!name)
        return lr_store_errf(s, EINVAL, "%s: no job name", s->path);
    ret = lr_store_tx_begin(s, false);
    if (ret)
        return ret;
    ret = lr_store_tx_end(s, lr_store_load_job(s, name, out));
    if (ret)
        memset(out, 0, sizeof *out);
    return ret;
}

static int
lr_store_list_tx(struct lr_store *s, struct lr_job **out, int *n)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_JOB_NAMES);
    char name[LR_JOB_NAME_MAX];
    int ret = 0, rc, cap = 0;

    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!lr_store_col_text(stmt, 0, name, sizeof name)) {
            ret = lr_store_corrupt(s, "?", "a job name is too long");
            goto cleanup;
        }
        if (*n == cap) {
            int ncap = cap ? 2 * cap : 16;
            struct lr_job *p = realloc(*out, (size_t) ncap * sizeof *p);
            if (!p) {
                ret = ENOMEM;
                goto cleanup;
            }
            *out = p;
            cap = ncap;
        }
        ret = lr_store_load_job(s, name, &(*out)[*n]);
        if (ret)
            goto cleanup;
        (*n)++;
    }
    if (rc != SQLITE_DONE)
        ret = lr_store_sqlerr(s, rc, "cannot list jobs");

cleanup:
    lr_store_done(stmt);
    return ret;
}

int
lr_store_list_jobs(struct lr_store *s, struct lr_job **out, int *n)
{
    int ret;

    *out = NULL;
    *n = 0;
    ret = lr_store_tx_begin(s, false);
    if (ret)
        return ret;
    ret = lr_store_tx_end(s, lr_store_list_tx(s, out, n));
    if (ret) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return ret;
}

/*
 * The invariants.
 */

/* Runs the invariant query 'id', whose rows are the violations: none is
 * 0, the first is EINVAL with 'say' describing it into 'err', a failed
 * read lr_store_sqlerr()'s errno for 'what'. */
static int
lr_store_check_rows(struct lr_store *s, enum lr_store_stmt id,
                    const char *what,
                    void (*say)(sqlite3_stmt *, char *, size_t), char *err,
                    size_t errlen)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, id);
    int ret = 0;
    int rc = sqlite3_step(stmt);

    if (rc == SQLITE_ROW) {
        say(stmt, err, errlen);
        ret = EINVAL;
    } else if (rc != SQLITE_DONE) {
        ret = lr_store_sqlerr(s, rc, what);
    }
    lr_store_done(stmt);
    return ret;
}

/* Every slot row lies on a link and in the slot range of a lightpath of
 * its job (ST_CHK_SLOT_OWNER). */
static void
lr_store_say_slot_row(sqlite3_stmt *stmt, char *err, size_t errlen)
{
    const char *job = (const char *) sqlite3_column_text(stmt, 2);
    snprintf(err, errlen, "slot (link %d, slot %d) is held by job '%s' "
             "lightpath %d, which %s", sqlite3_column_int(stmt, 0),
             sqlite3_column_int(stmt, 1), job ? job : "",
             sqlite3_column_int(stmt, 3),
             sqlite3_column_int(stmt, 4) ? "does not cover it"
                                         : "does not exist");
}

/* Whether (link, slot) is booked for lightpath lp of 'job'. */
static int
lr_store_slot_of(struct lr_store *s, int link, int slot, const char *job,
                 int lp, bool *found)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_CHK_SLOT_OF);
    int ret = 0;

    sqlite3_bind_int(stmt, 1, link);
    sqlite3_bind_int(stmt, 2, slot);
    lr_store_bind_text(stmt, 3, job);
    sqlite3_bind_int(stmt, 4, lp);
    int rc = sqlite3_step(stmt);
    *found = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = lr_store_sqlerr(s, rc, "cannot check slots");
    lr_store_done(stmt);
    return ret;
}

/* Every lightpath holds all its slots.  Given ST_CHK_SLOT_OWNER's check,
 * a count per lightpath is enough to know; the slot-by-slot search only
 * runs to name the first missing one. */
static int
lr_store_check_lightpaths(struct lr_store *s, char *err, size_t errlen)
{
    sqlite3_stmt *stmt = lr_store_stmt(s, ST_CHK_LPS);
    int links[LR_JOB_MAX_HOPS], n_links;
    char job[LR_JOB_NAME_MAX];
    int ret = 0, rc;

    while (!ret && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int k = sqlite3_column_int(stmt, 1);
        int first = sqlite3_column_int(stmt, 3);
        int m = sqlite3_column_int(stmt, 4);
        long long held = sqlite3_column_int64(stmt, 5);
        if (!lr_store_col_text(stmt, 0, job, sizeof job))
            snprintf(job, sizeof job, "?");
        if (!lr_store_links_parse((const char *) sqlite3_column_text(stmt, 2),
                                  links, &n_links) || m < 1 || first < 0
            || first > INT_MAX - m) {
            snprintf(err, errlen, "job '%s' lightpath %d is unreadable "
                     "(links, first or m)", job, k);
            ret = EINVAL;
            break;
        }
        if (held == (long long) n_links * m)
            continue;
        for (int i = 0; !ret && i < n_links; i++)
            for (int slot = first; !ret && slot < first + m; slot++) {
                bool found;
                ret = lr_store_slot_of(s, links[i], slot, job, k, &found);
                if (!ret && !found) {
                    snprintf(err, errlen, "job '%s' lightpath %d is missing "
                             "slot (link %d, slot %d)", job, k, links[i],
                             slot);
                    ret = EINVAL;
                }
            }
        if (!ret) {
            snprintf(err, errlen, "job '%s' lightpath %d holds %lld slots "
                     "for %d links of %d slots", job, k, held, n_links, m);
            ret = EINVAL;
        }
    }
    if (!ret && rc != SQLITE_DONE)
        ret = lr_store_sqlerr(s, rc, "cannot check lightpaths");
    lr_store_done(stmt);
    return ret;
}

/* Blocked and failed jobs hold nothing (ST_CHK_IDLE). */
static void
lr_store_say_idle(sqlite3_stmt *stmt, char *err, size_t errlen)
{
    const char *job = (const char *) sqlite3_column_text(stmt, 0);
    const char *phase = (const char *) sqlite3_column_text(stmt, 1);
    snprintf(err, errlen, "job '%s' is %s but holds %lld slots and %lld "
             "GPUs", job ? job : "", phase ? phase : "",
             sqlite3_column_int64(stmt, 2), sqlite3_column_int64(stmt, 3));
}

/* GPU rows equal the per-DC sums of the stages, both ways round
 * (ST_CHK_GPU_ROWS, ST_CHK_STAGE_SUMS). */
static void
lr_store_say_gpus(sqlite3_stmt *stmt, char *err, size_t errlen)
{
    const char *job = (const char *) sqlite3_column_text(stmt, 0);
    snprintf(err, errlen, "job '%s' holds %d GPUs in DC %d but its stages "
             "use %d", job ? job : "", sqlite3_column_int(stmt, 2),
             sqlite3_column_int(stmt, 1), sqlite3_column_int(stmt, 3));
}

int
lr_store_check(struct lr_store *s, char *err, size_t errlen)
{
    char buf[512] = "";
    int ret = lr_store_tx_begin(s, false);

    if (ret)
        goto cleanup;
    ret = lr_store_check_rows(s, ST_CHK_SLOT_OWNER, "cannot check slots",
                              lr_store_say_slot_row, buf, sizeof buf);
    if (!ret)
        ret = lr_store_check_lightpaths(s, buf, sizeof buf);
    if (!ret)
        ret = lr_store_check_rows(s, ST_CHK_IDLE, "cannot check phases",
                                  lr_store_say_idle, buf, sizeof buf);
    if (!ret)
        ret = lr_store_check_rows(s, ST_CHK_GPU_ROWS, "cannot check GPUs",
                                  lr_store_say_gpus, buf, sizeof buf);
    if (!ret)
        ret = lr_store_check_rows(s, ST_CHK_STAGE_SUMS, "cannot check GPUs",
                                  lr_store_say_gpus, buf, sizeof buf);
    /* A violation is a finding, not a failure of the read: end the read
     * transaction normally. */
    if (ret == EINVAL)
        lr_store_tx_end(s, 0);
    else
        ret = lr_store_tx_end(s, ret);

cleanup:
    if (err && errlen)
        snprintf(err, errlen, "%s",
                 ret == EINVAL ? buf : ret ? s->errmsg : "");
    return ret;
}
