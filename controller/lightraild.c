/*
 * lightraild: the Lightrail controller daemon.
 *
 *     lightraild --config FILE [--foreground]
 *
 * One libevent loop owned by main (Redis's ae.c and OpenBGPD's parent are
 * the models for its shape): the HTTPS northbound (northbound/), the
 * controller core (controller/lr_ctl.c) with its SQLite store and
 * southbound devices, whose work runs on one thread of its own
 * (controller/lr_worker.h) so that the loop never waits for a device.
 * SIGTERM or SIGINT: the server drains (503 to new requests), the loop
 * waits until the device work in flight has ended and been answered,
 * then exits 0.  SIGHUP, or the API's reload-ppo-policy: the ppo-policy
 * file is loaded again (see below).  SIGHUP alone also reads the
 * coordinator's certificate, key, CA and CRL again for the DCs'
 * agents, in the planner's free turn, and closes the agent connections
 * kept that they now refuse (on_tls_reloaded).  A timer at the earliest
 * next update of those CRLs, or notAfter of a kept connection's peer
 * chain, judges the connections kept again when a CRL goes stale or a
 * certificate expires, or the wall clock is set back before a CRL's
 * last update or a chain's notBefore, in the same turn (on_crl_next);
 * it rests while there is nothing to judge.
 *
 * It holds a lock on its state directory (lightraild.lock) for its life,
 * writes lightraild.pid and lightraild.port there (the port bound,
 * useful with port 0) once it serves, and removes them when it stops.
 * Without --foreground it detaches first of all (see detach()): the
 * command returns once the daemon serves, or fails with its error.
 *
 * Every reconcile-interval seconds (300 by default, 0 never) a timer
 * of the loop queues a reconciliation with repair on the devices'
 * thread, as POST .../lightrail-job:reconcile does
 * (nb_restconf_reconcile): one at a time, logged when it found drift or
 * failed (failures in a row once, and once more when a tick succeeds
 * again), counted in /metrics (docs/controller.md "Periodic
 * reconciliation").
 *
 * With the emulated data plane configured (container emulation), it
 * makes the DC namespaces before the controller recovers (recovery
 * re-makes the active jobs' lightpaths in them), samples their link
 * counters every telemetry interval from a timer of the loop (two
 * netlink dumps per DC namespace: about a millisecond for 32 lightpaths,
 * docs/benchmarks.md, so it may run in a callback), and removes every
 * namespace when it stops.
 *
 * With ppo-policy configured, the controller loads that PPO policy file
 * at start (controller/lr_ctl_ppo.h); one log line says it is in use, or
 * what is wrong with it and what to do, and the daemon starts either way
 * (intents for ppo are then planned by CDynP, their planner-note says
 * why).  SIGHUP loads the file again, for a policy retrained in place:
 * one log line says it is in use, or why it was not reloaded (a file
 * that does not load leaves the policy in use as it was).  BLAS runs on
 * one thread: one core, repeatable decisions.  With ppo-rollout a
 * decision takes tens of milliseconds: ppo intents queue
 * and are decided one at a time on a thread of their own (a second
 * lr_worker), while the loop answers everything else.  Intents for the
 * other algorithms are planned on a third (lr_ctl_plan_begin), one at a
 * time in arrival order, before their admission on the loop: CDynP over
 * DCs of hundreds of GPUs takes seconds, and CDynP over DCs planned by
 * their agents waits for the network (the agents' COMMIT and RELEASE,
 * one exchange each, stay on the loop).
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <cblas.h>

#include "config.h"
#include "controller/lr_ctl.h"
#include "controller/lr_listen.h"
#include "controller/lr_log.h"
#include "controller/lr_store.h"
#include "controller/lr_stored.h"
#include "controller/lr_tls.h"
#include "controller/lr_worker.h"
#include "northbound/nb_restconf.h"
#include "planner/lr_modulation.h"
#include "planner/lr_utf8.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_modtable_file.h"
#include "southbound/sb_linux.h"
#include "tools/lightrail/lr_opt_once.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_job.h"

/* The jobs trees kept across GETs (app.jobs_cache), in data nodes of
 * both together: about 150 bytes a node, so about 150 MB at most; the
 * 10,000 jobs tools/bench/jobs_cpu.sh submits are 150,078 nodes with
 * their state (21 MB), 110,001 without (docs/controller.md, "The jobs
 * tree kept across GETs").  A larger tree (thousands of active jobs of
 * many lightpaths) is built for each GET, as before. */
#define LIGHTRAILD_JOBS_CACHE_NODES 1000000

/* How long the jobs trees are kept after the last GET that took them,
 * in seconds: one GET of 10,000 jobs would otherwise hold their 21 MB
 * until the next change.  A GET after it builds again (about a
 * second's CPU for 10,000 jobs, docs/benchmarks.md); a client that
 * polls more often than this keeps them.  The tests set it short
 * through LIGHTRAIL_TEST_JOBS_CACHE_IDLE (seconds, 0.01 to 86400), no
 * option an operator needs. */
#define LIGHTRAILD_JOBS_CACHE_IDLE_S 300.0

/* The idle time of the jobs trees: LIGHTRAIL_TEST_JOBS_CACHE_IDLE's
 * when it is a plain decimal number of seconds in range
 * (lr_parse_double(), as every number the project reads: strtod()
 * took hex and white space until 2026-12-07), else warned at start and
 * ignored, as a test knob; else LIGHTRAILD_JOBS_CACHE_IDLE_S. */
static struct timeval
jobs_cache_idle(void)
{
    double s = LIGHTRAILD_JOBS_CACHE_IDLE_S, v;
    const char *env = getenv("LIGHTRAIL_TEST_JOBS_CACHE_IDLE");
    if (env && *env) {
        if (lr_parse_double(env, 0.01, 86400, &v))
            lr_log(LR_LOG_WARN, "LIGHTRAIL_TEST_JOBS_CACHE_IDLE='%s' is no "
                   "number of seconds from 0.01 to 86400: the jobs trees "
                   "are kept %.0f s after a GET", env, s);
        else
            s = v;
    }
    struct timeval tv = { (time_t) s,
                          (suseconds_t) ((s - (double) (time_t) s) * 1e6) };
    return tv;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: lightraild --config FILE [--foreground]\n"
            "\n"
            "The Lightrail controller: admits training-job intents over an "
            "HTTPS\nRESTCONF API, plans them, and provisions their lightpaths "
            "on the\nROADMs. FILE is a lightrail-config JSON file (see\n"
            "%s/examples/lightraild/,\nexamples/lightraild/ in the source).\n"
            "\n"
            "  -c, --config FILE  the configuration\n"
            "  -f, --foreground   stay attached to the terminal (systemd, "
            "tests)\n"
            "  --version          the version\n"
            "  -h, --help         this text\n", PKGDATADIR);
}

/* mkdir -p for one directory level below an existing parent. */
static int
ensure_dir(const char *path)
{
    if (mkdir(path, 0750) && errno != EEXIST)
        return errno;
    return 0;
}

static int
write_small_file(const char *dir, const char *name, long value)
{
    char path[4200], tmp[4210];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return errno;
    fprintf(f, "%ld\n", value);
    if (fclose(f) || rename(tmp, path))
        return errno;
    return 0;
}

static char *
read_text(const char *path)
{
    char *buf = NULL, err[256];
    size_t len;
    if (lr_yang_read_file(path, &buf, &len, err, sizeof err))
        return NULL;
    return buf;
}

/* Detaching (no --foreground) happens first, before anything is opened
 * or any thread started, so that the store's locks (SQLite's exclusive
 * one, the state directory's flock) and every thread are the daemon's:
 * fcntl locks do not cross fork(), and a fork after threads keeps only
 * the caller's.  The parent waits on a pipe until the daemon serves (a
 * byte: it exits 0) or ends (no byte: it exits with the daemon's status);
 * until it serves, the daemon's stderr is still the terminal, so start-up
 * errors are seen where lightraild was started. */
static int detach_fd = -1;

static int
detach(void)
{
    int p[2];
    if (pipe(p))
        return errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return e;
    }
    if (pid > 0) {
        char c;
        ssize_t n;
        close(p[1]);
        while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
            continue;
        if (n == 1)
            _exit(0);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            continue;
        _exit(WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : 1);
    }
    close(p[0]);
    setsid();
    detach_fd = p[1];
    return 0;
}

/* Serving: the parent is told, the terminal let go, and the log (when it
 * was stderr) goes to syslog from here. */
static void
detached_serving(void)
{
    if (detach_fd < 0)
        return;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    lr_log_use_syslog(true);
    if (write(detach_fd, "k", 1) != 1) {
        /* The parent is gone: nobody to tell. */
    }
    close(detach_fd);
    detach_fd = -1;
}

/* lr_store_pruned_fn for lightraild: each copy removed is said, and
 * one that could not be is a warning, not a refusal (the store itself
 * is whole). */
static void
said_pruned(void *arg, const char *copy, int version, const char *newest,
            int err)
{
    (void) arg;
    if (!err)
        lr_log(LR_LOG_INFO, "removed %s, a copy of schema %d an earlier "
               "upgrade kept: of each schema only the newest copy is kept "
               "(%s for schema %d)", copy, version, newest, version);
    else
        lr_log(LR_LOG_WARN, "cannot remove %s, an older copy of the store "
               "(schema %d): %s: remove it by hand if it is not needed",
               copy, version, strerror(err));
}

/* Opens the store at 'db', if there is one, on its own before anything
 * reads it: one of an older schema is migrated here, after the copy
 * lr_store_open() keeps of it, which is said (the way back to the older
 * lightraild).  Once migrated, the store is opened again, and only then
 * are the copies the new one supersedes removed (lr_store_prune_kept()):
 * a store that does not reopen keeps every copy.  A new state directory
 * has no store yet: lr_ctl_new() makes it.  0, or -1 with the refusal
 * in err[errlen]. */
static int
open_store_first(const char *db, char *err, size_t errlen)
{
    struct lr_store *st = NULL;
    int version = 0, ret = -1;
    char *kept = NULL;
    if (access(db, F_OK))
        return 0;
    if (lr_store_open(db, &st, err, errlen))
        return -1;
    const char *k = lr_store_kept(st, &version);
    if (k) {
        lr_log(LR_LOG_INFO, "store %s was schema %d; kept as %s before "
               "migrating to %d", db, version, k, LR_STORE_SCHEMA_VERSION);
        if (!(kept = strdup(k))) {
            snprintf(err, errlen, "store %s: out of memory",
                     LR_UTF8_CLIP(db, 1800));
            goto cleanup;
        }
    }
    lr_store_close(st);
    st = NULL;
    if (kept) {
        if (lr_store_open(db, &st, err, errlen))
            goto cleanup;
        /* Failures were said one by one: the start goes on. */
        (void) lr_store_prune_kept(db, kept, said_pruned, NULL);
    }
    ret = 0;

cleanup:
    lr_store_close(st);
    free(kept);
    return ret;
}

/* The state directory's lock, held for the daemon's life (the fd is
 * never closed): a second lightraild on it is refused at once, saying
 * which. */
static int
lock_state_dir(const char *dir, char *err, size_t errlen)
{
    char path[4200], pid[32] = "";
    snprintf(path, sizeof path, "%s/lightraild.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", LR_UTF8_CLIP(path, 1800),
                 strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        int e = errno;
        close(fd);
        if (e != EWOULDBLOCK) {
            snprintf(err, errlen, "cannot lock the state directory %s: "
                     "%s", LR_UTF8_CLIP(dir, 1800), strerror(e));
            return -1;
        }
        snprintf(path, sizeof path, "%s/lightraild.pid", dir);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(pid, sizeof pid, f))
                pid[0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            fclose(f);
        }
        snprintf(err, errlen, "another lightraild%s%s%s serves the state "
                 "directory %s: stop it first, or give this one another "
                 "state-dir", pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "",
                 LR_UTF8_CLIP(dir, 1800));
        return -1;
    }
    return fd;
}

struct daemon {
    struct event_base *base;
    struct nb_server *srv;
    struct event *sigterm, *sigint;
    struct event *telemetry;      /* NULL without a data plane */
    struct event *reconcile;      /* NULL with reconcile-interval 0 */
    bool reconciling;             /* a periodic one queued or running */
    int recon_failed;             /* periodic ones failed in a row */
    struct lr_ctl *ctl;
    bool telemetry_failing;       /* logged once until it recovers */
    struct lr_worker *worker;     /* the devices' thread */
    struct lr_worker *decider;    /* the ppo decisions' thread */
    struct lr_worker *planner;    /* the other intents' plans' thread */
    struct event *stopping;       /* NULL until a signal: waits for it */
    struct event *sighup;         /* reloads the ppo policy, TLS files */
    struct event *releases;       /* RELEASEs to the agents queued */
    struct event *jobs_idle;      /* app->jobs_cache_timer */
    /* Wakes when the wall clock leaves the span the agents' connections
     * are judged good in (crl_arm()), and every LR_TLS_CRL_RECHECK_S
     * meanwhile; not pending when there is nothing to judge. */
    struct event *crl_next;
    struct lr_tls_span crl_span;  /* armed over; { 0 }: none */
    /* The wall clock when the connections were last judged (0:
     * never), for lr_tls_span_judge(): a CRL out of its own span now
     * that was in it then is judged at once (crl_arm()).  As it read
     * when the judgment was asked for, which may wait for the planner
     * (crl_asked): a CRL that went out while it waited is judged once
     * more rather than not at all. */
    time_t crl_judged;
    time_t crl_asked;             /* on_crl_next()'s or on_sighup()'s */
    /* A judgment refused as the agents were busy (EBUSY) was said, and
     * the timer asks again: said once until one is made. */
    bool crl_busy_said;
    struct nb_app *app;           /* the northbound's, for reloads */
    const char *policy;           /* ppo-policy, or NULL */
    bool crl;                     /* coordinator/crl configured */
    const struct lr_ctl_ppo_rollout *rollout;     /* ppo-rollout, or NULL */
};

/* No GET took the jobs trees for the idle time: dropped, built again
 * by the next. */
static void
on_jobs_idle(evutil_socket_t fd, short what, void *arg)
{
    struct nb_app *app = arg;
    (void) fd;
    (void) what;
    lr_yang_job_cache_clear(app->jobs_cache);
}

/* lr_ctl_set_release_hook's: a RELEASE to an agent was queued. */
static void
releases_queued(void *arg)
{
    event_active(arg, EV_TIMEOUT, 1);
}

static void
on_releases(evutil_socket_t fd, short what, void *arg)
{
    nb_restconf_releases(arg);
}

/* The modulation table the jobs are planned with, once at start: its
 * file (or "(default)") and each format's reach and threshold, what an
 * operator compares with a datasheet. */
static void
log_modtable(const struct lr_modtable *t, const char *path)
{
    char line[LR_MOD_MAX * 64] = "";
    size_t n = 0;
    for (int i = 0; i < t->n && n < sizeof line; i++) {
        const struct lr_modformat *f = &t->f[i];
        n += (size_t) (isnan(f->osnr_db)
                       ? snprintf(line + n, sizeof line - n, "%s%s %g km "
                                  "no OSNR threshold", i ? ", " : "",
                                  f->name, f->reach_km)
                       : snprintf(line + n, sizeof line - n, "%s%s %g km "
                                  "%.1f dB", i ? ", " : "", f->name,
                                  f->reach_km, f->osnr_db));
    }
    lr_log(LR_LOG_INFO, "modulation table %s: %s", path[0] ? path
                                                           : "(default)",
           line);
}

/* One line on the ppo policy just loaded ('done': "loaded", "reloaded",
 * or checked against a new network): in use, and how, or why not.  At
 * start an unusable policy's line leads with "unusable"; later it names
 * what was done, so that a reload or a PUT that left the policy unusable
 * reads as that, not as the start's line again. */
static void
log_policy(const struct daemon *d, const char *done)
{
    bool usable;
    const char *why = lr_ctl_ppo_status(d->ctl, &usable);
    if (usable && d->rollout)
        lr_log(LR_LOG_INFO, "ppo policy %s %s: intents for ppo use its "
               "rollout (%d futures, horizon %ld, load %g E)", d->policy,
               done, d->rollout->samples, d->rollout->horizon,
               d->rollout->load);
    else if (usable)
        lr_log(LR_LOG_INFO, "ppo policy %s %s: intents for ppo use it",
               d->policy, done);
    else if (!strcmp(done, "loaded"))
        lr_log(LR_LOG_WARN, "ppo policy unusable, intents for ppo will be "
               "planned by cdynp: %s", why);
    else
        lr_log(LR_LOG_WARN, "ppo policy %s %s, unusable: intents for ppo "
               "will be planned by cdynp: %s", d->policy, done, why);
}

/* One line on a reload by 'how' (SIGHUP, the API) that returned 'rc'
 * (lr_ctl_ppo_reload, not EBUSY) with 'err'. */
static void
log_reload(const struct daemon *d, const char *how, int rc, const char *err)
{
    bool usable;
    lr_ctl_ppo_status(d->ctl, &usable);
    if (rc == ENOENT)
        lr_log(LR_LOG_INFO, "%s: %s", how, err);
    else if (rc == 0 || (rc == EINVAL && !usable))   /* replaced */
        log_policy(d, "reloaded");
    else
        lr_log(LR_LOG_WARN, "ppo policy %s not reloaded: %s", d->policy,
               err);
}

/* SIGHUP: the ppo-policy file is loaded again (retrained in place) in
 * its turn behind the ppo intents queued before it, as the API's reload
 * (nb_restconf_reload); a file that does not load leaves the policy in
 * use as it was.  Then the coordinator's TLS files, for a CRL issued
 * anew (nb_restconf_reload_tls): the API's reload is the policy's
 * alone, as its name says. */
static void
on_sighup(evutil_socket_t sig, short what, void *arg)
{
    struct daemon *d = arg;
    (void) sig;
    (void) what;
    if (d->stopping)
        return;
    if (nb_restconf_reload(d->app, "SIGHUP"))
        lr_log(LR_LOG_WARN, "ppo policy not reloaded: out of memory; send "
               "SIGHUP again");
    d->crl_asked = time(NULL);
    nb_restconf_reload_tls(d->app, "SIGHUP");
}

/* Arms d->crl_next over the span of the wall clock in which the
 * agents' connections stand as judged (lr_ctl_agents_tls_span()): until
 * the earliest next update still to come of the CRLs they are checked
 * against, or notAfter of a kept connection's peer chain; from the
 * latest last update of those CRLs, or notBefore of such a chain (a
 * clock set back before it makes OpenSSL refuse them); waking at most
 * LR_TLS_CRL_RECHECK_S apart to read the wall clock again
 * (lr_tls_span_wait()): at start, whenever the CRLs may have changed (a
 * reload, a PUT of the network), the connections have just been
 * judged, or the agents are back from the planner's thread
 * (on_agents_back(): a plan may have made a connection there).  With
 * no connection kept (or none known: the agents lent to a plan) the
 * timer rests, CRL or not, as the agent's does: only a connection is
 * judged, and a handshake fails by a CRL out of date itself.  Until
 * 2026-12-07 a CRL's bounds armed it all the same, every
 * LR_TLS_CRL_RECHECK_S until its next update, for ever without one
 * (tests/cli/agent_crlidle.sh).  A connection a plan made on the
 * planner's thread while the timer rested may have been verified under
 * a CRL that has gone out of its own span since (stale, or not yet
 * valid by a clock set back): lr_tls_span_crls() no longer counts that
 * CRL, but says when it went out, and the connections kept are judged
 * at once if that was after their last judgment (lr_tls_span_judge()),
 * not again once judged with it out (a CRL of a CA not on their chains
 * keeps them; judging again would not end).  Until 2026-12-07 one flag
 * stood for every CRL: with a second CA's CRL gone stale after the
 * first's was judged, such a connection was kept.  A span the wall
 * clock has left and the timer has not judged yet stays armed, and a
 * re-arm must not forget it. */
static void
crl_arm(struct daemon *d)
{
    if (!d->crl_next)
        return;
    evtimer_del(d->crl_next);
    time_t now = time(NULL);
    if (!lr_tls_span_out(&d->crl_span, now)) {
        d->crl_span = (struct lr_tls_span) { 0 };
        lr_ctl_agents_tls_span(d->ctl, now, &d->crl_span);
        if (lr_tls_span_judge(&d->crl_span, d->crl_judged))
            d->crl_span.until = now;          /* out: judged at once */
    }
    struct timeval tv = { lr_tls_span_wait(&d->crl_span, now), 0 };
    if (tv.tv_sec)
        evtimer_add(d->crl_next, &tv);
}

/* crl_arm() after the connections were judged as the wall clock read
 * 'judged' (or the files read again, or the network replaced, which
 * judges them too): a span left is done with, and so is a CRL out of
 * its own span then.  Not after a judgment that failed: the span
 * folded anew is left again, or has a CRL out since the last judgment
 * done, and the timer asks again.  A busy episode (on_tls_rechecked)
 * ends here too: after a PUT or a SIGHUP judged them, the next refusal
 * as busy is a new one, warned of again. */
static void
crl_rearm(struct daemon *d, time_t judged)
{
    d->crl_busy_said = false;
    d->crl_span = (struct lr_tls_span) { 0 };
    d->crl_judged = judged;
    crl_arm(d);
}

/* A CRL of coordinator/crl went stale, or a certificate of a kept
 * connection's peer chain reached its notAfter, or the wall clock was
 * set back before a CRL's last update or a chain's notBefore: new
 * handshakes fail from now on, and the connections kept to the agents,
 * admitted before, must be judged again (nb_restconf_recheck_tls():
 * once the planner hands the agents back, when a plan has them).  Woken
 * with the wall clock still in the span, by the wait's cap, the timer
 * only waits again. */
static void
on_crl_next(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    (void) fd;
    (void) what;
    d->app->tls_timer_wakes++;
    if (d->stopping)
        return;
    time_t now = time(NULL);
    if (!lr_tls_span_out(&d->crl_span, now)) {
        crl_arm(d);
        return;
    }
    d->crl_asked = now;
    nb_restconf_recheck_tls(d->app);
}

/* The agents' connections were judged again (nb_app.tls_rechecked): one
 * line per connection closed; then the timer goes on to the next time
 * to judge.  Not judged (rc not 0; ENOENT: no coordinator, so no
 * connection and no timer), the span is folded anew without marking
 * the connections judged: until 2026-12-07 a failed judgment counted
 * as one, and a CRL gone stale was not judged again.  The agents busy
 * (EBUSY: lent to a plan), the timer asks again within a second until
 * they are free: one warning for that episode, and a line once they
 * are judged (before, a warning a second).  Not met today:
 * nb_restconf keeps a judgment the busy agents refuse due until the
 * planner hands them back, and passes EBUSY on only with no planner
 * thread, which lightraild always has (main()); kept sane for a loop
 * that would. */
static void
on_tls_rechecked(void *arg, int rc, const char *report, const char *err)
{
    struct daemon *d = arg;
    /* EBUSY again: said when this episode began. */
    if (rc && rc != ENOENT && !(rc == EBUSY && d->crl_busy_said))
        lr_log(LR_LOG_WARN, "the agents' connections are not judged "
               "again (a CRL gone stale, a certificate expired): %s%s",
               err, rc == EBUSY ? "; asked again each second, said "
               "once judged" : "");
    if (rc == 0 && d->crl_busy_said)
        lr_log(LR_LOG_INFO, "the agents' connections are judged again, "
               "the agents free");
    d->crl_busy_said = rc == EBUSY;
    for (const char *line = report; *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int) (end - line) : (int) strlen(line);
        lr_log(LR_LOG_WARN, "%.*s", n, line);
        line += n + (end != NULL);
    }
    if (rc == 0) {
        crl_rearm(d, d->crl_asked);
        return;
    }
    d->crl_span = (struct lr_tls_span) { 0 };
    crl_arm(d);
}

/* The planner handed the agents back, or an admission planned with them
 * on the loop (nb_app.agents_back): a connection made meanwhile may have
 * the chain that expires first. */
static void
on_agents_back(void *arg)
{
    crl_arm(arg);
}

/* A PUT replaced the network, whose agents read coordinator/crl anew
 * (nb_app.agents_renewed). */
static void
on_agents_renewed(void *arg)
{
    crl_rearm(arg, time(NULL));
}

/* The coordinator's TLS files were read again (nb_app.tls_reloaded):
 * one line on the files, one per agent connection they closed.  Without
 * a coordinator configured, nothing: SIGHUP is then the ppo policy's. */
static void
on_tls_reloaded(void *arg, const char *how, int rc, const char *report,
                const char *err)
{
    struct daemon *d = arg;
    if (rc == ENOENT)
        return;
    if (rc)
        crl_arm(d);
    else
        crl_rearm(d, d->crl_asked);
    if (rc) {
        lr_log(LR_LOG_WARN, "%s: the coordinator's TLS files are not read "
               "again, those loaded before stay: %s%s", how, err,
               rc == EBUSY ? "; send SIGHUP again" : "");
        return;
    }
    lr_log(LR_LOG_INFO, "%s: the coordinator's certificate, key, CA%s read "
           "again", how, d->crl ? " and CRL" : "");
    for (const char *line = report; *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int) (end - line) : (int) strlen(line);
        lr_log(LR_LOG_WARN, "%.*s", n, line);
        line += n + (end != NULL);
    }
}

/* A reload ended (nb_app.reloaded): SIGHUP's or the API's. */
static void
on_reloaded(void *arg, const char *how, int rc, const char *err)
{
    log_reload(arg, how, rc, err);
}

/* A PUT of the topology or inventory made the ppo policy usable or
 * unusable (nb_app.ppo_rechecked): said once, as at start, since
 * lightrail_ppo_policy_usable alerts on it. */
static void
on_ppo_rechecked(void *arg, const char *what)
{
    char done[96];
    snprintf(done, sizeof done, "checked against the new %s", what);
    log_policy(arg, done);
}

/* A ROADM seen down, or answering again (lr_ctl_set_device_hook): one
 * line each way, not one per operation that fails on it. */
static void
on_device_changed(void *arg, const char *name, bool up, const char *why)
{
    (void) arg;
    if (up)
        lr_log(LR_LOG_INFO, "ROADM %s answers again", name);
    else
        lr_log(LR_LOG_WARN, "ROADM %s down: %s (lightrail_device_up 0 "
               "until an operation reaches it: the next job on it, or a "
               "reconcile)", name, why);
}

/* An agent seen down, or up again (nb_app.agent_changed): one line each
 * way, not one per job it blocks. */
static void
on_agent_changed(void *arg, const char *dc, bool up, const char *why)
{
    (void) arg;
    if (up)
        lr_log(LR_LOG_INFO, "agent %s answers again", dc);
    else
        lr_log(LR_LOG_WARN, "agent %s down: %s (lightrail_agent_up 0 "
               "until an exchange with it works)", dc, why);
}

/* An agent closed connections kept idle (nb_app.agent_idle_closed):
 * one line each time it is seen, with the last one's words. */
static void
on_agent_idle_closed(void *arg, const char *dc, unsigned n, const char *last)
{
    (void) arg;
    if (n == 1)
        lr_log(LR_LOG_INFO, "agent %s: %s", dc, last);
    else
        lr_log(LR_LOG_INFO, "agent %s: %u connections kept idle closed "
               "(lightrail_agent_idle_closes_total), the last: %s", dc, n,
               last);
}

static void
on_telemetry(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    char err[512];
    (void) fd;
    (void) what;
    if (lr_ctl_sample(d->ctl, err, sizeof err)) {
        if (!d->telemetry_failing)
            lr_log(LR_LOG_WARN, "telemetry: %s", err);
        d->telemetry_failing = true;
    } else {
        d->telemetry_failing = false;
    }
}

/* reconcile-interval: a repair of every device through the API's queue
 * (nb_restconf_reconcile), behind the job work begun before it.  One at
 * a time: a tick while the last is queued or running (devices slow to
 * answer, a long queue) is skipped rather than piling reads up on
 * devices that are already slow; none once stopping, whose wait must
 * not grow. */
static void
on_reconcile_tick(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    (void) fd;
    (void) what;
    if (d->stopping)
        return;
    if (d->reconciling) {
        /* Counted as well: a debug line alone would hide from the
         * operator an interval too short for the devices. */
        d->app->periodic_reconcile_skips++;
        lr_log(LR_LOG_DEBUG, "periodic reconciliation: the last one is "
               "still queued or running; this tick skipped");
        return;
    }
    /* Set before: a reconciliation that could not be queued has ended
     * (on_reconciled) by the time the call returns. */
    d->reconciling = true;
    if (nb_restconf_reconcile(d->app)) {
        d->reconciling = false;
        lr_log(LR_LOG_WARN, "periodic reconciliation not begun: out of "
               "memory; the next tick tries again");
    }
}

/* A periodic reconciliation ended (nb_app.reconciled): said only when
 * it found differences or failed, with the first lines of its report
 * and how many more there were; one with nothing to say is in /metrics
 * alone.  Failures in a row are said as telemetry's and an agent's are:
 * a warning for the first, one line when a tick succeeds again (with
 * how many failed), so that a ROADM down for a day is not 288 equal
 * warnings at the default interval.  The ticks between are debug lines
 * even when their message differs from the first's: a device that is
 * rebooting may alternate between refusing and timing out, and a warning
 * on each change would bring the flood back; every failure still counts
 * in lightrail_reconcile_periodic_failures_total, the thing to alert on,
 * and the debug line says the current cause. */
static void
on_reconciled(void *arg, int rc, const char *report, int drift,
              const char *err)
{
    struct daemon *d = arg;
    enum { SHOWN = 5 };
    char lines[2048], more[64] = "";
    int n_lines = 0, failed = d->recon_failed;
    size_t len = 0;
    d->reconciling = false;
    d->recon_failed = rc ? failed + 1 : 0;
    if (rc && failed) {
        lr_log(LR_LOG_DEBUG, "periodic reconciliation failed again (%d "
               "ticks in a row): %s (%d difference(s))", failed + 1, err,
               drift);
        return;
    }
    if (!rc && !drift && !failed)
        return;
    lines[0] = '\0';
    for (const char *p = report; p && *p; n_lines++) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int) (nl - p) : (int) strlen(p);
        int w = n_lines < SHOWN
            ? snprintf(lines + len, sizeof lines - len, "\n  %.*s", n, p)
            : 0;
        if (w > 0 && (size_t) w < sizeof lines - len)
            len += (size_t) w;
        else
            lines[len] = '\0';
        p = nl ? nl + 1 : p + n;
    }
    if (n_lines > SHOWN)
        snprintf(more, sizeof more, "\n  (and %d more)", n_lines - SHOWN);
    if (rc)
        lr_log(LR_LOG_WARN, "periodic reconciliation failed: %s; the next "
               "tick tries again (%d difference(s); until one succeeds, "
               "failures are debug lines, counted in /metrics)%s%s", err,
               drift, lines, more);
    else if (failed && !drift)
        lr_log(LR_LOG_INFO, "periodic reconciliation succeeded again after "
               "%d failed tick(s)", failed);
    else if (failed)
        lr_log(LR_LOG_INFO, "periodic reconciliation succeeded again after "
               "%d failed tick(s): %d difference(s), repaired%s%s", failed,
               drift, lines, more);
    else
        lr_log(LR_LOG_INFO, "periodic reconciliation: %d difference(s), "
               "repaired%s%s", drift, lines, more);
}

/* Stopping: the loop ends once the device work in flight has ended and
 * its answers are sent (jobs end active, failed or deleted, never caught
 * half-way by a clean stop); each device bounds its own wait (its
 * driver's timeout).  Checked on a short timer, the only thing the loop
 * does while it waits, besides answering 503. */
static void
on_stopping(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    (void) fd;
    (void) what;
    if (lr_worker_pending(d->worker) || lr_worker_pending(d->decider)
        || lr_worker_pending(d->planner) || nb_server_pending(d->srv))
        return;
    event_del(d->stopping);
    struct timeval grace = { 0, 200000 };
    event_base_loopexit(d->base, &grace);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct daemon *d = arg;
    (void) what;
    if (d->stopping)
        return;
    lr_log(LR_LOG_INFO, "signal %d: draining and stopping%s", (int) sig,
           lr_worker_pending(d->worker)
           ? " once the device work in flight has ended" : "");
    nb_server_drain(d->srv);
    struct timeval every = { 0, 20000 };
    d->stopping = event_new(d->base, -1, EV_PERSIST, on_stopping, d);
    if (!d->stopping || event_add(d->stopping, &every)) {
        struct timeval grace = { 0, 200000 };
        event_base_loopexit(d->base, &grace);
        return;
    }
    on_stopping(-1, 0, d);
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "config", required_argument, NULL, 'c' },
        { "foreground", no_argument, NULL, 'f' },
        { "version", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *config_path = NULL;
    int foreground = 0, c, rc = 1;
    /* Given twice, getopt would keep the last --config silently: a unit
     * file's -c plus an override would start a daemon on a configuration
     * neither meant.  lightrail's and the benchmarks' check
     * (lr_opt_once.h), which needs nothing of lightrail's CLI. */
    struct lr_opt_once once = { 0 };
    while ((c = getopt_long(argc, argv, "c:fh", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lightraild", longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'c': config_path = optarg; break;
        case 'f': foreground = 1; break;
        case 'V': printf("lightraild %s\n", PACKAGE_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    /* Said before the usage, as getopt says an unknown option: the
     * usage alone does not tell 'lightraild FILE' that the file wants
     * --config. */
    if (optind < argc || !config_path) {
        if (optind < argc)
            fprintf(stderr, "lightraild: unexpected argument '%s': give "
                    "the configuration with --config FILE\n", argv[optind]);
        else
            fprintf(stderr, "lightraild: no configuration: give it with "
                    "--config FILE\n");
        usage(stderr);
        return 2;
    }

    /* A peer (client or DC agent) that hangs up mid-write must give an
     * error, not end the daemon; recovery may already talk to agents.
     * SIGHUP (a reload) is the loop's from when it runs; before, it must
     * not end a daemon still starting. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    /* What the daemon creates (the store with the network, the DCs'
     * inventories and every job; the device files; pid and port) is for
     * its group at most, whatever the umask of the shell that started it
     * and the mode of a state directory made beforehand. */
    umask(027);
    /* Without TZ, glibc looks at /etc/localtime again (a stat, a read
     * when it changed) on every conversion to local time, and libyang
     * makes one for each timestamp it prints: a fifth of a GET of 10,000
     * jobs (docs/benchmarks.md).  The same zone, read once; a TZ given
     * is kept. */
    if (!getenv("TZ"))
        setenv("TZ", ":/etc/localtime", 0);
    tzset();
    if (!foreground) {
        int e = detach();
        if (e) {
            fprintf(stderr, "lightraild: cannot detach: %s\n", strerror(e));
            return 1;
        }
    }
    struct ly_ctx *ly = NULL;
    struct lr_config *cfg = calloc(1, sizeof *cfg);
    struct lr_topo *topo = NULL;
    struct lr_cluster *cluster = NULL;
    struct lr_ctl *ctl = NULL;
    struct sb_linux *dp = NULL;
    struct daemon d = { 0 };
    char err[2048], *topo_json = NULL, *cluster_json = NULL, *report = NULL;
    struct nb_app app = { 0 };
    struct nb_server_tls *listen_tls = NULL;
    bool wrote_files = false;

    if (!cfg || lr_yang_ctx_new(&ly, err, sizeof err)
        || lr_yang_load_config(ly, config_path, cfg, err, sizeof err)) {
        fprintf(stderr, "lightraild: %s\n", cfg ? err : "out of memory");
        rc = 2;
        goto cleanup;
    }
    /* Without a token or a client CA every request but /metrics is a
     * 401 whatever the client sends: refused before anything is made. */
    if (!cfg->n_tokens && !cfg->client_ca[0]) {
        fprintf(stderr, "lightraild: %s: no token and no listen client-ca: "
                "no client could use the API; add a token (a secret of 16 "
                "characters or more) or a client-ca\n", config_path);
        rc = 2;
        goto cleanup;
    }
    /* The listener nb_server_new() would refuse (plain HTTP on an
     * address other hosts reach, a certificate, key or client CA file
     * that does not load): refused here, exit 2, before the state
     * directory, the store and recovery's device work, which it used to
     * come after (exit 1).  The files are loaded here only: the server
     * is made with the context the check keeps (listen_tls, ours until
     * cleanup; the server takes a reference of its own). */
    struct nb_server_config listen_cfg = {
        .address = cfg->address, .port = cfg->port, .tls = cfg->tls,
        .cert_file = cfg->cert, .key_file = cfg->key,
        .client_ca_file = cfg->client_ca[0] ? cfg->client_ca : NULL,
    };
    if (nb_server_config_check(&listen_cfg, &listen_tls, err, sizeof err)) {
        fprintf(stderr, "lightraild: %s: listen: %s\n", config_path, err);
        rc = 2;
        goto cleanup;
    }
    /* So is a device's certificate, key or CA file that does not load,
     * which opening the devices found after the state directory and
     * the store (exit 1). */
    if (lr_ctl_check_device_files(cfg->devices, cfg->n_devices, err,
                                  sizeof err)) {
        fprintf(stderr, "lightraild: %s: southbound: %s\n", config_path,
                err);
        rc = 2;
        goto cleanup;
    }
    /* And a modulation table that does not load: the jobs would be
     * planned with another table than the one configured. */
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    if (cfg->modulation_table[0]
        && lr_modtable_load(cfg->modulation_table, "modulation-table",
                            &mods, err, sizeof err)) {
        fprintf(stderr, "lightraild: %s: modulation-table: %s\n",
                config_path, err);
        rc = 2;
        goto cleanup;
    }
    lr_log_use_syslog(cfg->log == LR_CONFIG_LOG_SYSLOG);
    if (ensure_dir(cfg->state_dir) || ensure_dir(cfg->dummy_dir)) {
        lr_log(LR_LOG_ERR, "cannot create %s or %s: %s", cfg->state_dir,
               cfg->dummy_dir, strerror(errno));
        goto cleanup;
    }
    if (lock_state_dir(cfg->state_dir, err, sizeof err) < 0) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    /* The listener before the store: a port another program holds must
     * stop the start before it seeds a new store with the files'
     * network, which every later start would take instead of the files
     * (docs/controller.md, "Persistence and recovery": a refused start
     * stores no network).  After the lock, so that a second lightraild
     * on this state directory is told of the first, not of its port.
     * Nothing is accepted until the loop runs; 'app' is filled in once
     * the controller is made, before then. */
    d.base = event_base_new();
    int n_routes;
    const struct nb_route *routes = nb_restconf_routes(&n_routes,
                                                       cfg->metrics_public);
    struct nb_token tokens[LR_CONFIG_MAX_TOKENS];
    for (int i = 0; i < cfg->n_tokens; i++)
        tokens[i] = (struct nb_token) { cfg->tokens[i].name,
                                        cfg->tokens[i].secret };
    struct nb_server_config sc = {
        .address = cfg->address, .port = cfg->port, .tls = cfg->tls,
        .cert_file = cfg->cert, .key_file = cfg->key,
        .client_ca_file = cfg->client_ca[0] ? cfg->client_ca : NULL,
        .tokens = tokens, .n_tokens = cfg->n_tokens,
        .max_body = 1 << 20, .loaded = listen_tls,
    };
    if (!d.base) {
        lr_log(LR_LOG_ERR, "cannot create the event loop");
        goto cleanup;
    }
    int lrc = nb_server_new(d.base, &sc, routes, n_routes, &app, &d.srv, err,
                            sizeof err);
    if (lrc) {
        /* The bind is the one failure here the configuration can cure
         * (the files and the tokens were checked above). */
        char hint[512] = "";
        if (!strncmp(err, "cannot listen on ", 17))
            lr_listen_hint(lrc, config_path, cfg->port,
                           lr_listen_unpriv_start(LR_LISTEN_UNPRIV_PATH),
                           hint, sizeof hint);
        lr_log(LR_LOG_ERR, "%s%s", err, hint);
        goto cleanup;
    }
    char db[LR_CONFIG_PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/lightrail.db", cfg->state_dir);
    /* Before the store is opened: SQLite gives the journals it makes the
     * store's mode.  A store lightraild cannot close to others is still
     * its store: said, and served. */
    char changed[256];
    if (lr_store_close_to_others(db, changed, sizeof changed, err,
                                 sizeof err))
        lr_log(LR_LOG_WARN, "%s", err);
    else if (changed[0])
        lr_log(LR_LOG_WARN, "the store's files were open to other users "
               "(made by a lightraild before umask 027), now closed to them: "
               "%s", changed);
    if (open_store_first(db, err, sizeof err)) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    /* The files seed a new state directory; after that the store holds
     * the network (a PUT changes it there), and the files are not read:
     * a stored network that does not load stops the start, as the stored
     * jobs were planned on it (lr_stored.h). */
    int src = lr_stored_network(ly, db, &topo_json, &cluster_json, &topo,
                                &cluster, err, sizeof err);
    if (!src) {
        lr_log(LR_LOG_INFO, "topology and inventory from the store %s", db);
    } else if (src != ENOENT) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    } else {
        topo_json = read_text(cfg->topology_file);
        cluster_json = read_text(cfg->cluster_file);
        /* The leaf that named the file leads the error: "FILE: No such
         * file or directory" alone does not say which leaf to correct. */
        const char *leaf = "topology-file";
        int lerr = lr_yang_load_topo(ly, cfg->topology_file, &topo, err,
                                     sizeof err);
        if (!lerr) {
            leaf = "cluster-file";
            lerr = lr_yang_load_cluster(ly, cfg->cluster_file, &cluster, err,
                                        sizeof err);
        }
        if (!lerr) {
            leaf = "topology-file and cluster-file";
            lerr = lr_yang_check_attachments(topo, cfg->topology_file,
                                             cluster, cfg->cluster_file, err,
                                             sizeof err);
        }
        if (lerr) {
            lr_log(LR_LOG_ERR, "%s: %s: %s", config_path, leaf, err);
            rc = 2;
            goto cleanup;
        }
    }
    if (cfg->emulation) {
        const char *names[LR_TM_MAX_DCS];
        for (int k = 0; k < cluster->n_dcs && k < LR_TM_MAX_DCS; k++)
            names[k] = cluster->dcs[k].name;
        struct sb_linux_config lc = { cfg->emu_prefix, cfg->emu_scale,
                                      cluster->n_dcs, names };
        if (sb_linux_new(&lc, &dp, err, sizeof err)) {
            lr_log(LR_LOG_ERR, "emulation: %s", err);
            goto cleanup;
        }
        lr_log(LR_LOG_INFO, "emulated data plane: %d namespaces %s-*, "
               "%g Mb/s per Gb/s", cluster->n_dcs, cfg->emu_prefix,
               cfg->emu_scale);
    }
    struct lr_ctl_config cc = {
        .db_path = db, .topo = topo, .cluster = cluster, .dataplane = dp,
        .topo_json = topo_json, .cluster_json = cluster_json,
        .default_driver = cfg->default_driver, .dummy_dir = cfg->dummy_dir,
        .devices = cfg->devices, .n_devices = cfg->n_devices,
        .terminals = cfg->terminals, .n_terminals = cfg->n_terminals,
        .agent_cert = cfg->coord_cert, .agent_key = cfg->coord_key,
        .agent_ca = cfg->coord_ca, .agent_crl = cfg->coord_crl,
        .agent_timeout_s = cfg->coord_timeout,
        .agent_budget_s = cfg->coord_budget,
        .ppo_policy = cfg->ppo_policy[0] ? cfg->ppo_policy : NULL,
        .ppo_mean_job_s = cfg->ppo_mean_job_s,
        .cdynp_step = cfg->cdynp_step,
        .cdynp_beam = cfg->cdynp_beam,
        .ppo_rollout = cfg->ppo_rollout ? &cfg->ppo_ro : NULL,
        .mods = &mods,
    };
    openblas_set_num_threads(1);
    if (lr_ctl_new(&cc, &ctl, &report, err, sizeof err)) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    d.ctl = ctl;
    d.policy = cc.ppo_policy;
    d.crl = cfg->coord_crl[0] != '\0';
    d.rollout = cc.ppo_rollout;
    if (d.policy)
        log_policy(&d, "loaded");
    log_modtable(&mods, cfg->modulation_table);
    if (report && *report) {
        /* Its lines end in newlines; lr_log() ends the last. */
        size_t n = strlen(report);
        while (n && report[n - 1] == '\n')
            report[--n] = '\0';
        lr_log(LR_LOG_INFO, "recovery:\n%s", report);
    }
    /* A device listed for no ROADM of the topology is unused until a
     * topology names it (a PUT may): most often a typo. */
    for (int i = 0; i < cfg->n_devices; i++)
        if (lr_topo_find_node(topo, cfg->devices[i].name) < 0)
            lr_log(LR_LOG_WARN, "%s: southbound device '%s' is no ROADM of "
                   "topology %s: unused until a topology names it (check "
                   "its name)", config_path, cfg->devices[i].name,
                   topo->name);

    app.ctl = ctl;
    app.ly = ly;
    app.topo_json = topo_json;
    /* The store keeps no time of change: the network's Last-Modified
     * is the start until a PUT (docs/controller.md, "Concurrent
     * edits"). */
    app.started = time(NULL);
    app.where_budget_s = cfg->where_budget_s;
    /* Without it (out of memory) every GET builds the jobs, as before. */
    if (!(app.jobs_cache = lr_yang_job_cache_new(LIGHTRAILD_JOBS_CACHE_NODES)))
        lr_log(LR_LOG_WARN, "the jobs tree is built for each GET: no memory "
               "to keep it");
    app.srv = d.srv;
    /* Every error body sent is checked against ietf-restconf's
     * yang-errors: the northbound library, free of libyang, builds them
     * with json-c. */
    nb_server_set_error_check(d.srv, nb_restconf_error_check, &app);
    nb_server_tls_free(listen_tls);
    listen_tls = NULL;
    if (lr_worker_new(d.base, &d.worker, err, sizeof err)) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    app.worker = d.worker;
    if (lr_worker_new(d.base, &d.decider, err, sizeof err)) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    app.decider = d.decider;
    if (lr_worker_new(d.base, &d.planner, err, sizeof err)) {
        lr_log(LR_LOG_ERR, "%s", err);
        goto cleanup;
    }
    app.planner = d.planner;
    /* RELEASEs to the agents go on the planner's thread too, in its next
     * turn: the event runs once the handler that queued them returns. */
    d.releases = event_new(d.base, -1, 0, on_releases, &app);
    d.crl_next = evtimer_new(d.base, on_crl_next, &d);
    d.jobs_idle = evtimer_new(d.base, on_jobs_idle, &app);
    if (!d.releases || !d.crl_next || !d.jobs_idle) {
        lr_log(LR_LOG_ERR, "cannot create the event loop's events");
        goto cleanup;
    }
    lr_ctl_set_release_hook(ctl, releases_queued, d.releases);
    if (app.jobs_cache) {
        app.jobs_cache_timer = d.jobs_idle;
        app.jobs_cache_idle = jobs_cache_idle();
    }
    app.reloaded = on_reloaded;
    app.reloaded_arg = &d;
    app.tls_reloaded = on_tls_reloaded;
    app.tls_reloaded_arg = &d;
    app.tls_rechecked = on_tls_rechecked;
    app.tls_rechecked_arg = &d;
    app.agents_renewed = on_agents_renewed;
    app.agents_renewed_arg = &d;
    app.agents_back = on_agents_back;
    app.agents_back_arg = &d;
    app.ppo_rechecked = on_ppo_rechecked;
    app.ppo_rechecked_arg = &d;
    app.agent_changed = on_agent_changed;
    app.agent_idle_closed = on_agent_idle_closed;
    lr_ctl_set_device_hook(ctl, on_device_changed, NULL);
    /* An agent the start's KEEP did not reach is down from the start:
     * said now, and when it answers again. */
    nb_restconf_agents_seen(&app);
    app.reconciled = on_reconciled;
    app.reconciled_arg = &d;
    d.app = &app;
    crl_arm(&d);
    d.sigterm = evsignal_new(d.base, SIGTERM, on_signal, &d);
    d.sigint = evsignal_new(d.base, SIGINT, on_signal, &d);
    d.sighup = evsignal_new(d.base, SIGHUP, on_sighup, &d);
    event_add(d.sigterm, NULL);
    event_add(d.sigint, NULL);
    event_add(d.sighup, NULL);
    if (dp) {
        struct timeval every = { cfg->telemetry_ms / 1000,
                                 (cfg->telemetry_ms % 1000) * 1000 };
        d.telemetry = event_new(d.base, -1, EV_PERSIST, on_telemetry, &d);
        if (!d.telemetry || event_add(d.telemetry, &every)) {
            lr_log(LR_LOG_ERR, "cannot start the telemetry timer");
            goto cleanup;
        }
        on_telemetry(-1, 0, &d);
    }
    /* Not at once: start-up has just reconciled (lr_ctl_new). */
    if (cfg->reconcile_s > 0) {
        struct timeval every = { cfg->reconcile_s, 0 };
        d.reconcile = event_new(d.base, -1, EV_PERSIST, on_reconcile_tick,
                                &d);
        if (!d.reconcile || event_add(d.reconcile, &every)) {
            lr_log(LR_LOG_ERR, "cannot start the reconciliation timer");
            goto cleanup;
        }
    }
    if (write_small_file(cfg->state_dir, "lightraild.pid", (long) getpid())
        || write_small_file(cfg->state_dir, "lightraild.port",
                            nb_server_port(d.srv))) {
        lr_log(LR_LOG_ERR, "cannot write lightraild.pid or lightraild.port "
               "in %s: %s", cfg->state_dir, strerror(errno));
        goto cleanup;
    }
    wrote_files = true;
    lr_log(LR_LOG_INFO, "serving %s://%s:%d/restconf (state in %s)",
           cfg->tls ? "https" : "http", cfg->address, nb_server_port(d.srv),
           cfg->state_dir);
    detached_serving();
    event_base_dispatch(d.base);
    lr_log(LR_LOG_INFO, "stopped");
    rc = 0;

cleanup:
    /* Before the controller and the server: the workers end what they
     * have (nothing, after a clean stop) and hand it back; the decider
     * and the planner first, as what they hand back may go on to the
     * devices' worker. */
    lr_worker_free(d.decider);
    lr_worker_free(d.planner);
    lr_worker_free(d.worker);
    if (ctl)
        lr_ctl_set_release_hook(ctl, NULL, NULL);
    if (d.releases)
        event_free(d.releases);
    if (d.crl_next)
        event_free(d.crl_next);
    app.jobs_cache_timer = NULL;
    if (d.jobs_idle)
        event_free(d.jobs_idle);
    if (d.stopping)
        event_free(d.stopping);
    if (d.sigterm)
        event_free(d.sigterm);
    if (d.sigint)
        event_free(d.sigint);
    if (d.sighup)
        event_free(d.sighup);
    if (d.telemetry)
        event_free(d.telemetry);
    if (d.reconcile)
        event_free(d.reconcile);
    nb_server_free(d.srv);
    lr_yang_job_cache_free(app.jobs_cache);
    nb_server_tls_free(listen_tls);
    if (d.base)
        event_base_free(d.base);
    lr_ctl_free(ctl);
    sb_linux_free(dp);
    free(report);
    free(topo_json);
    free(cluster_json);
    lr_topo_free(topo);
    lr_cluster_free(cluster);
    /* Files that say a daemon serves, gone with it. */
    if (wrote_files) {
        char path[4200];
        snprintf(path, sizeof path, "%s/lightraild.pid", cfg->state_dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/lightraild.port", cfg->state_dir);
        unlink(path);
    }
    lr_yang_ctx_free(ly);
    free(cfg);
    return rc;
}
