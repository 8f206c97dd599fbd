/*
 * lightrail-check: judge a stopped controller's state directory.
 *
 *     lightrail-check --config FILE
 *
 * Opens the store and the devices the configuration names without
 * recovering anything (lr_ctl inspect mode) and checks the invariants of
 * lr_ctl_check(): no job left in provisioning or releasing, what the
 * store reserves equals what the active jobs hold, no slot held twice,
 * every active job's channels on its ROADMs and no orphan channel.
 * The network is the one the store holds (lightraild's, PUTs included),
 * the configuration's files only for a store that has none.  Exit 0 when
 * all hold, 1 with the first violation on stderr, 2 for bad input: a
 * listed device's certificate, key or CA file that does not load (as
 * lightraild refuses it), no store in the state directory, a store it
 * cannot open (no SQLite file, not lightrail's, of a newer schema), a
 * lightraild serving the state directory (its lock), or any process
 * holding the store (SQLite's lock: a lightraild of another state
 * directory whose lightrail.db is the same file, through a link).
 * It judges a copy of the store in a directory of its own under $TMPDIR
 * (lr_store_copy()), removed at the end: the store is only read, and
 * one of an older schema is checked as lightraild would migrate it, not
 * migrated, and no copy of it kept beside it (lightraild keeps one).
 * The crash test runs it after every kill -9 and restart.
 * A stored lightpath the configured modulation-table no longer fits
 * (its format gone, its path beyond the format's reach, its slot
 * count not what the format's efficiency sizes, or the gOSNR measured
 * at its provisioning below the format's threshold) is a warning on
 * stderr, "lightrail-check: warning: job J: lightpath ...", as
 * lightraild's start logs it (lr_ctl_mod_mismatch()), and
 * leaves the exit status as the invariants set it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "controller/lr_ctl.h"
#include "controller/lr_store.h"
#include "controller/lr_stored.h"
#include "planner/lr_modulation.h"
#include "tools/lightrail/lr_modtable_file.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"

static void
usage(FILE *f)
{
    fputs("usage: lightrail-check --config FILE\n"
          "\n"
          "Judges the state directory of a stopped lightraild (FILE is its\n"
          "lightrail-config file) without recovering anything: no job left\n"
          "in provisioning or releasing, what the store reserves equals what\n"
          "the active jobs hold, no slot held twice, every active job's\n"
          "channels on its ROADMs and no orphan channel.\n"
          "\n"
          "A stored lightpath the configured modulation-table no longer\n"
          "fits (its format missing, or its path beyond the format's reach)\n"
          "is a warning on stderr, as lightraild logs it at start: the job\n"
          "is carried as stored, so it does not change the exit status.\n"
          "\n"
          "exit status: 0 all hold; 1 a violation (the first on stderr);\n"
          "2 bad input: a device's TLS file that does not load, no store,\n"
          "one it cannot open, one whose network does not load, a\n"
          "lightraild serving the state directory, or a process holding\n"
          "the store (a lightraild whose lightrail.db is the same file)\n"
          "\n"
          "The store is read, never written: the check runs on a copy in\n"
          "$TMPDIR (default /tmp), so a store of an older schema is judged\n"
          "as lightraild would migrate it and stays as it was.\n", f);
}

/* Says 'err' on stderr, with the copy's path, which the store's messages
 * name, said as the store's own: the copy is ours, not the user's. */
static void
say(const char *err, const char *copy, const char *db)
{
    size_t n = *copy ? strlen(copy) : 0;
    const char *at;
    fputs("lightrail-check: ", stderr);
    while (n && (at = strstr(err, copy))) {
        fwrite(err, 1, (size_t) (at - err), stderr);
        fputs(db, stderr);
        err = at + n;
    }
    fprintf(stderr, "%s\n", err);
}

/* Warns, one line each, of the stored lightpaths the configured
 * modulation table no longer fits, as lightraild's start logs them.
 * They leave the exit status alone: lightraild starts on them and
 * carries them as stored, and what the store reserves still equals
 * what the jobs hold and the devices carry; a changed configuration is
 * no broken state, which is what exit 1 says. */
static void
say_mod_mismatch(const struct lr_ctl *ctl)
{
    char *report = NULL;
    if (!lr_ctl_mod_mismatch(ctl, &report) || !report)
        goto cleanup;
    /* Each line of the report ends in a newline (lr_ctl_say()). */
    for (char *line = report, *nl; (nl = strchr(line, '\n')); line = nl + 1)
        fprintf(stderr, "lightrail-check: warning: %.*s\n",
                (int) (nl - line), line);

cleanup:
    free(report);
}

int
main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--config") && strcmp(argv[1], "-c"))) {
        usage(stderr);
        return 2;
    }
    struct ly_ctx *ly = NULL;
    struct lr_config *cfg = calloc(1, sizeof *cfg);
    struct lr_topo *topo = NULL;
    struct lr_cluster *cl = NULL;
    struct lr_ctl *ctl = NULL;
    char err[2048];
    int rc = 2;
    char *topo_json = NULL, *cluster_json = NULL;
    char db[LR_CONFIG_PATH_MAX + 32], lock[LR_CONFIG_PATH_MAX + 32];
    char tmpdir[PATH_MAX] = "", copy[PATH_MAX + 32] = "";
    int lock_fd = -1, hold_fd = -1;
    if (!cfg || lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_config(ly, argv[2], cfg, err, sizeof err)) {
        fprintf(stderr, "lightrail-check: %s\n", cfg ? err : "out of memory");
        goto cleanup;
    }
    /* A device whose TLS files do not load is bad input, refused as
     * lightraild refuses it, in its words: opening the devices would
     * fail on it and say nothing of the invariants. */
    if (lr_ctl_check_device_files(cfg->devices, cfg->n_devices, err,
                                  sizeof err)) {
        fprintf(stderr, "lightrail-check: %s: southbound: %s\n", argv[2],
                err);
        goto cleanup;
    }
    /* So is a modulation table lightraild would refuse. */
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    if (cfg->modulation_table[0]
        && lr_modtable_load(cfg->modulation_table, "modulation-table",
                            &mods, err, sizeof err)) {
        fprintf(stderr, "lightrail-check: %s: modulation-table: %s\n",
                argv[2], err);
        goto cleanup;
    }
    snprintf(db, sizeof db, "%s/lightrail.db", cfg->state_dir);
    snprintf(lock, sizeof lock, "%s/lightraild.lock", cfg->state_dir);
    if (access(db, F_OK)) {
        fprintf(stderr, "lightrail-check: no store %s: nothing to check (has "
                "lightraild run with this state-dir?)\n", db);
        goto cleanup;
    }
    /* A daemon's store is its own while it runs (and the check would
     * wait on its lock). */
    lock_fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (lock_fd >= 0 && flock(lock_fd, LOCK_SH | LOCK_NB)
        && errno == EWOULDBLOCK) {
        fprintf(stderr, "lightrail-check: a lightraild serves %s: stop it "
                "first\n", cfg->state_dir);
        goto cleanup;
    }
    /* The store may be another state directory's too (lightrail.db a
     * link to it), whose daemon the lock above does not see: held, as
     * SQLite's readers hold it, until the copy is made, and refused
     * when any process holds it, naming it. */
    if (lr_store_hold(db, &hold_fd, err, sizeof err)) {
        fprintf(stderr, "lightrail-check: %s\n", err);
        goto cleanup;
    }
    /* The copy, which lr_store_open() may migrate. */
    const char *t = getenv("TMPDIR");
    t = t && *t ? t : "/tmp";
    if (snprintf(tmpdir, sizeof tmpdir, "%s/lightrail-check.XXXXXX", t)
        >= (int) sizeof tmpdir) {
        /* No errno to tell: snprintf() sets none. */
        fprintf(stderr, "lightrail-check: TMPDIR is a path of %zu bytes, "
                "too long for the store's copy; set TMPDIR to a shorter "
                "one\n", strlen(t));
        tmpdir[0] = '\0';
        goto cleanup;
    }
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "lightrail-check: cannot make a directory for the "
                "store's copy (%s): %s; set TMPDIR to a writable one\n",
                tmpdir, strerror(errno));
        tmpdir[0] = '\0';
        goto cleanup;
    }
    snprintf(copy, sizeof copy, "%s/lightrail.db", tmpdir);
    /* Not say(): a failure to write the copy is $TMPDIR's, and said as
     * the store's it would read as a write to the store. */
    if (lr_store_copy(db, copy, err, sizeof err)) {
        fprintf(stderr, "lightrail-check: cannot copy the store to %s: %s%s\n",
                tmpdir, err, strstr(err, copy) ? "; set TMPDIR to a "
                "directory with room for it" : "");
        goto cleanup;
    }
    /* The copy is all that is read from here on. */
    close(hold_fd);
    hold_fd = -1;
    /* The copy of an older schema migrated here, with no copy of it
     * kept (lr_store_open_unkept()): lr_store_open(), below, would keep
     * one beside it, in $TMPDIR, which the cleanup does not know of,
     * and would name it as the store's own in its messages. */
    struct lr_store *st = NULL;
    if (lr_store_open_unkept(copy, &st, err, sizeof err)) {
        say(err, copy, db);
        goto cleanup;
    }
    lr_store_close(st);
    /* A store that does not open, or whose network does not load, says
     * nothing of the invariants: bad input, as lightraild refuses it. */
    int src = lr_stored_network(ly, copy, &topo_json, &cluster_json, &topo,
                                &cl, err, sizeof err);
    if ((src && src != ENOENT)
        || (src == ENOENT
            && (lr_yang_load_topo(ly, cfg->topology_file, &topo, err,
                                  sizeof err)
                || lr_yang_load_cluster(ly, cfg->cluster_file, &cl, err,
                                        sizeof err)))) {
        say(err, copy, db);
        goto cleanup;
    }
    struct lr_ctl_config cc = {
        .db_path = copy, .topo = topo, .cluster = cl,
        .default_driver = cfg->default_driver, .dummy_dir = cfg->dummy_dir,
        .devices = cfg->devices, .n_devices = cfg->n_devices,
        .terminals = cfg->terminals, .n_terminals = cfg->n_terminals,
        .inspect = true, .mods = &mods,
    };
    rc = 1;
    if (lr_ctl_new(&cc, &ctl, NULL, err, sizeof err)) {
        say(err, copy, db);
        goto cleanup;
    }
    say_mod_mismatch(ctl);
    if (lr_ctl_check(ctl, err, sizeof err)) {
        say(err, copy, db);
        goto cleanup;
    }
    rc = 0;

cleanup:
    lr_ctl_free(ctl);
    ctl = NULL;
    if (*tmpdir) {
        static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
        for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
            char f[PATH_MAX + 32];
            snprintf(f, sizeof f, "%s/lightrail.db%s", tmpdir, tails[i]);
            unlink(f);
        }
        rmdir(tmpdir);
    }
    if (lock_fd >= 0)
        close(lock_fd);
    if (hold_fd >= 0)
        close(hold_fd);
    free(topo_json);
    free(cluster_json);
    lr_ctl_free(ctl);
    lr_topo_free(topo);
    lr_cluster_free(cl);
    lr_yang_ctx_free(ly);
    free(cfg);
    return rc;
}
