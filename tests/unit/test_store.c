/*
 * lr_store: round trips of every field, the all-or-nothing of a refused
 * write, cascades, the invariants check against rows corrupted behind
 * the store's back (through a second SQLite connection), schema
 * versions, and durability across a crash of the writing process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "controller/lr_store.h"
#include "tests/lr_test.h"

static char dir[64];

static int
setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/lr-test-store-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int
teardown(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return 1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    return rmdir(dir) ? 1 : 0;
}

/* A database path of its own for each test. */
static const char *
db_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.db", dir, name);
    return path;
}

static struct lr_store *
open_store(const char *name)
{
    struct lr_store *s = NULL;
    char err[512];
    int ret = lr_store_open(db_path(name), &s, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(ret, 0);
    if (ret)
        fprintf(stderr, "%s\n", err);
    return s;
}

/* Runs SQL through a connection of the test's own. */
static int
raw_exec(const char *name, const char *sql)
{
    sqlite3 *db = NULL;
    char *msg = NULL;
    int rc = sqlite3_open(db_path(name), &db);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    }
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", sql, msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc;
}

/* One integer from the database at 'path' (a store's kept copy has a
 * name of its own); -1 when there is none. */
static long long
raw_int_at(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK
        && sqlite3_step(stmt) == SQLITE_ROW)
        v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return v;
}

static long long
raw_int(const char *name, const char *sql)
{
    return raw_int_at(db_path(name), sql);
}

/* A job with every field set to something distinctive.  Its lightpaths
 * use links base..base+2 (forward) and base+5, base+4 (back), slots
 * [first, first + 4). */
static void
make_job(struct lr_job *j, const char *name, int base, int first)
{
    memset(j, 0, sizeof *j);
    snprintf(j->intent.name, sizeof j->intent.name, "%s", name);
    snprintf(j->intent.model, sizeof j->intent.model, "gpt3-2.7b");
    j->intent.batch = 1536.25;
    j->intent.micro = 3.125;
    j->intent.gpus_min = 4;
    j->intent.gpus_max = 16;
    snprintf(j->intent.algorithm, sizeof j->intent.algorithm, "cdynp");
    j->intent.priority = 7;
    /* Over 2^63: SQLite's signed INTEGER must give back the same bits. */
    j->intent.iterations = 18446744073709551000ULL;
    j->phase = LR_JOB_ACTIVE;
    j->iteration_s = 0.123456789012345;
    j->created_ms = 1700000000123LL;
    j->updated_ms = 1700000000579LL;
    j->plan.n_stages = 3;
    j->plan.stages[0] = (struct lr_stage) { 0, 9, 0, 2 };
    j->plan.stages[1] = (struct lr_stage) { 10, 19, 0, 1 };
    j->plan.stages[2] = (struct lr_stage) { 20, 31, 3, 4 };
    j->gpus[0] = 3;
    j->gpus[3] = 4;
    j->n_lightpaths = 2;
    j->lp[0] = (struct lr_lightpath) {
        .from_dc = 0, .to_dc = 3, .n_links = 3,
        .links = { base, base + 1, base + 2 },
        .length_km = 812.5, .modulation = "8QAM", .first = first, .m = 4, .n = -97,
        .capacity_gbps = 400.0,
    };
    j->lp[1] = (struct lr_lightpath) {
        .from_dc = 3, .to_dc = 0, .n_links = 2,
        .links = { base + 5, base + 4 },
        .length_km = 640.25, .modulation = "QPSK", .first = first, .m = 4, .n = -97,
        .capacity_gbps = 300.0,
    };
}

/* Compares every field that a job carries. */
static void
assert_same_job(const struct lr_job *a, const struct lr_job *b)
{
    CU_ASSERT_STRING_EQUAL(a->intent.name, b->intent.name);
    CU_ASSERT_STRING_EQUAL(a->intent.model, b->intent.model);
    CU_ASSERT_EQUAL(a->intent.batch, b->intent.batch);
    CU_ASSERT_EQUAL(a->intent.micro, b->intent.micro);
    CU_ASSERT_EQUAL(a->intent.gpus_min, b->intent.gpus_min);
    CU_ASSERT_EQUAL(a->intent.gpus_max, b->intent.gpus_max);
    CU_ASSERT_STRING_EQUAL(a->intent.algorithm, b->intent.algorithm);
    CU_ASSERT_EQUAL(a->intent.priority, b->intent.priority);
    CU_ASSERT_EQUAL(a->intent.iterations, b->intent.iterations);
    CU_ASSERT_EQUAL(a->phase, b->phase);
    CU_ASSERT_STRING_EQUAL(a->reason, b->reason);
    CU_ASSERT_EQUAL(a->iteration_s, b->iteration_s);
    CU_ASSERT_EQUAL(a->created_ms, b->created_ms);
    CU_ASSERT_EQUAL(a->updated_ms, b->updated_ms);
    CU_ASSERT_EQUAL_FATAL(a->plan.n_stages, b->plan.n_stages);
    for (int i = 0; i < a->plan.n_stages; i++) {
        const struct lr_stage *x = &a->plan.stages[i], *y = &b->plan.stages[i];
        CU_ASSERT(x->first == y->first && x->last == y->last
                  && x->dc == y->dc && x->g == y->g);
    }
    CU_ASSERT_EQUAL(memcmp(a->gpus, b->gpus, sizeof a->gpus), 0);
    CU_ASSERT_EQUAL_FATAL(a->n_lightpaths, b->n_lightpaths);
    for (int k = 0; k < a->n_lightpaths; k++) {
        const struct lr_lightpath *x = &a->lp[k], *y = &b->lp[k];
        CU_ASSERT_EQUAL(x->from_dc, y->from_dc);
        CU_ASSERT_EQUAL(x->to_dc, y->to_dc);
        CU_ASSERT_EQUAL_FATAL(x->n_links, y->n_links);
        CU_ASSERT_EQUAL(memcmp(x->links, y->links,
                               (size_t) x->n_links * sizeof x->links[0]), 0);
        CU_ASSERT_EQUAL(x->length_km, y->length_km);
        CU_ASSERT_STRING_EQUAL(x->modulation, y->modulation);
        CU_ASSERT_EQUAL(x->first, y->first);
        CU_ASSERT_EQUAL(x->m, y->m);
        CU_ASSERT_EQUAL(x->n, y->n);
        CU_ASSERT_EQUAL(x->capacity_gbps, y->capacity_gbps);
        CU_ASSERT_EQUAL(x->gosnr_known, y->gosnr_known);
        if (x->gosnr_known && y->gosnr_known)
            CU_ASSERT_EQUAL(x->gosnr_db, y->gosnr_db);
    }
}

static void
assert_check_ok(struct lr_store *s)
{
    char err[512];
    int ret = lr_store_check(s, err, sizeof err);
    CU_ASSERT_EQUAL(ret, 0);
    if (ret)
        fprintf(stderr, "check: %s\n", err);
}

static void
test_round_trip(void)
{
    struct lr_store *s = open_store("round_trip");
    struct lr_job job, got;

    make_job(&job, "llm-a", 10, 20);
    snprintf(job.reason, sizeof job.reason, "planned by cdynp, 3 stages");
    CU_ASSERT_EQUAL(lr_store_put_job(s, &job), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "llm-a", &got), 0);
    assert_same_job(&job, &got);

    /* A NaN (not computed yet, before the job is active) comes back as
     * a NaN. */
    job.phase = LR_JOB_PROVISIONING;
    job.iteration_s = NAN;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &job), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "llm-a", &got), 0);
    CU_ASSERT(isnan(got.iteration_s));

    CU_ASSERT_EQUAL(lr_store_get_job(s, "nope", &got), ENOENT);
    CU_ASSERT_STRING_EQUAL(got.intent.name, "");
    assert_check_ok(s);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("round_trip", "SELECT count(*) FROM slots"),
                    3 * 4 + 2 * 4);
}

/* A reason and a note of LR_JOB_REASON_MAX - 1 bytes, not ASCII only,
 * come back whole from put and from set_phase (the struct held 255);
 * a byte more is refused by set_phase and nothing changes. */
static void
test_long_texts(void)
{
    struct lr_store *s = open_store("long_texts");
    struct lr_job job, got;
    static char big[LR_JOB_REASON_MAX + 1];

    make_job(&job, "long", 10, 20);
    job.phase = LR_JOB_BLOCKED;
    job.n_lightpaths = 0;
    job.plan.n_stages = 0;
    memset(job.gpus, 0, sizeof job.gpus);
    job.reason[0] = 'x';
    for (size_t i = 1; i + 2 < sizeof job.reason; i += 2)
        memcpy(job.reason + i, "\xc3\xa9", 2);
    job.reason[sizeof job.reason - 1] = '\0';
    memset(job.note, 'n', sizeof job.note - 1);
    job.note[sizeof job.note - 1] = '\0';
    CU_ASSERT_EQUAL(lr_store_put_job(s, &job), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "long", &got), 0);
    assert_same_job(&job, &got);
    CU_ASSERT_STRING_EQUAL(got.note, job.note);

    memset(big, 'r', LR_JOB_REASON_MAX - 1);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "long", LR_JOB_FAILED, big, 7), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "long", &got), 0);
    CU_ASSERT_STRING_EQUAL(got.reason, big);
    big[LR_JOB_REASON_MAX - 1] = 'r';
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "long", LR_JOB_BLOCKED, big, 8),
                    EINVAL);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "long", &got), 0);
    CU_ASSERT_EQUAL(got.phase, LR_JOB_FAILED);
    CU_ASSERT_EQUAL(strlen(got.reason), LR_JOB_REASON_MAX - 1);
    assert_check_ok(s);
    lr_store_close(s);
}

static void
test_replace(void)
{
    struct lr_store *s = open_store("replace");
    struct lr_job a, a2, b, got;

    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    /* The second version holds other slots, one lightpath, one stage. */
    make_job(&a2, "a", 40, 8);
    a2.phase = LR_JOB_PROVISIONING;
    a2.n_lightpaths = 1;
    a2.plan.n_stages = 1;
    a2.plan.stages[0] = (struct lr_stage) { 0, 31, 2, 5 };
    memset(a2.gpus, 0, sizeof a2.gpus);
    a2.gpus[2] = 5;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a2), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a2, &got);
    /* The first version's slots are free again. */
    make_job(&b, "b", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    assert_check_ok(s);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("replace", "SELECT count(*) FROM slots"),
                    3 * 4 + 3 * 4 + 2 * 4);
    CU_ASSERT_EQUAL(raw_int("replace", "SELECT count(*) FROM gpus"), 3);
}

static void
test_conflict(void)
{
    struct lr_store *s = open_store("conflict");
    struct lr_job a, b, a2, got;

    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    /* b's first lightpath runs on link 12 (a's third link) over slots
     * 3..6: slot 3 is a's. */
    make_job(&b, "b", 12, 3);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), EEXIST);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'b': link 12 slot 3 is "
                           "already held by job 'a' (lightpath 0)");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "b", &got), ENOENT);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);

    /* A refused replacement leaves the old version whole. */
    make_job(&b, "b", 30, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    make_job(&a2, "a", 34, 2);
    a2.phase = LR_JOB_PLANNED;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a2), EEXIST);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);

    /* Two lightpaths of one job on one slot. */
    make_job(&a2, "a", 50, 0);
    a2.lp[1].links[1] = 51;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a2), EEXIST);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'a': lightpaths 0 and 1 "
                           "both book link 51 slot 0");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);
    assert_check_ok(s);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("conflict", "SELECT count(*) FROM slots"),
                    2 * (3 * 4 + 2 * 4));
}

static void
test_invalid(void)
{
    struct lr_store *s = open_store("invalid");
    struct lr_job j, got;

    make_job(&j, "x", 0, 0);
    j.gpus[3] = 5;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'x' holds 5 GPUs in DC 3 "
                           "but its stages use 4");

    make_job(&j, "x", 0, 0);
    j.phase = LR_JOB_BLOCKED;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'x' (blocked) cannot hold "
                           "3 GPUs in DC 0: release them first");

    make_job(&j, "x", 0, 0);
    j.lp[0].links[2] = 0;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'x': lightpath 0 lists "
                           "link 0 twice");

    make_job(&j, "", 0, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), EINVAL);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "x", &got), ENOENT);

    /* Counts out of range are refused before anything is read past
     * the arrays (a lightpath number once was, with its length). */
    make_job(&j, "x", 0, 0);
    j.n_lightpaths = 1000;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'x': 1000 lightpaths");

    /* A blocked job keeps its plan (for the reason) but holds nothing. */
    make_job(&j, "x", 0, 0);
    j.phase = LR_JOB_BLOCKED;
    snprintf(j.reason, sizeof j.reason, "no spectrum on link 4");
    memset(j.gpus, 0, sizeof j.gpus);
    j.n_lightpaths = 0;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &j), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "x", &got), 0);
    assert_same_job(&j, &got);
    assert_check_ok(s);
    lr_store_close(s);
}

static void
test_delete_cascades(void)
{
    static const char *const tables[] = {
        "stages", "gpus", "lightpaths", "slots",
    };
    struct lr_store *s = open_store("delete");
    struct lr_job a, b, got;
    char sql[128];

    make_job(&a, "a", 10, 0);
    make_job(&b, "b", 20, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    CU_ASSERT_EQUAL(lr_store_delete_job(s, "a"), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), ENOENT);
    CU_ASSERT_EQUAL(lr_store_delete_job(s, "a"), ENOENT);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s) + strlen(db_path("delete")),
                           ": no job 'a'");
    /* Read the tables behind the store's back: it holds the file
     * exclusively while open. */
    lr_store_close(s);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE job = 'a'",
                 tables[i]);
        CU_ASSERT_EQUAL(raw_int("delete", sql), 0);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE job = 'b'",
                 tables[i]);
        CU_ASSERT(raw_int("delete", sql) > 0);
    }
    s = open_store("delete");
    /* a's slots are free. */
    make_job(&a, "c", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    assert_check_ok(s);
    lr_store_close(s);
}

static void
test_list_order(void)
{
    static const char *const names[] = { "c", "a", "job-10", "b", "job-9" };
    static const char *const sorted[] = { "a", "b", "c", "job-10", "job-9" };
    struct lr_store *s = open_store("list");
    struct lr_job j, *all = NULL;
    int n = -1;

    CU_ASSERT_EQUAL(lr_store_list_jobs(s, &all, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    free(all);
    for (int i = 0; i < 5; i++) {
        make_job(&j, names[i], 10 * i, 0);
        j.intent.priority = i;
        CU_ASSERT_EQUAL(lr_store_put_job(s, &j), 0);
    }
    CU_ASSERT_EQUAL(lr_store_list_jobs(s, &all, &n), 0);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_STRING_EQUAL(all[i].intent.name, sorted[i]);
        CU_ASSERT_EQUAL(all[i].n_lightpaths, 2);
        CU_ASSERT_EQUAL(all[i].plan.n_stages, 3);
    }
    CU_ASSERT_EQUAL(all[3].intent.priority, 2);
    free(all);
    lr_store_close(s);
}

static void
test_set_phase(void)
{
    struct lr_store *s = open_store("phase");
    struct lr_job a, got;

    make_job(&a, "a", 10, 0);
    a.phase = LR_JOB_PROVISIONING;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "a", LR_JOB_ACTIVE, NULL, 42), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    a.phase = LR_JOB_ACTIVE;
    a.updated_ms = 42;
    assert_same_job(&a, &got);

    CU_ASSERT_EQUAL(lr_store_set_phase(s, "a", LR_JOB_FAILED, "roadm-3 "
                                       "refused", 43), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'a' cannot become failed "
                           "while it holds GPUs or lightpaths: release them "
                           "with lr_store_put_job() first");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "zz", LR_JOB_ACTIVE, NULL, 1),
                    ENOENT);

    /* A job that holds nothing (submitted, no plan yet) may become
     * blocked; what it holds stays as it was. */
    make_job(&a, "b", 10, 0);
    a.phase = LR_JOB_SUBMITTED;
    a.plan.n_stages = 0;
    memset(a.gpus, 0, sizeof a.gpus);
    a.n_lightpaths = 0;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "b", LR_JOB_BLOCKED, "no spectrum "
                                       "on link 4", 44), 0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "b", &got), 0);
    a.phase = LR_JOB_BLOCKED;
    snprintf(a.reason, sizeof a.reason, "no spectrum on link 4");
    a.updated_ms = 44;
    assert_same_job(&a, &got);
    assert_check_ok(s);

    /* A blocked job keeps its plan but holds no GPUs: it cannot become
     * active by its phase alone, whose stages would then use GPUs it
     * does not hold (what lr_store_put_job() refuses and
     * lr_store_check() reports). */
    make_job(&a, "c", 60, 0);
    a.phase = LR_JOB_BLOCKED;
    memset(a.gpus, 0, sizeof a.gpus);
    a.n_lightpaths = 0;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "c", LR_JOB_ACTIVE, NULL, 45),
                    EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'c' cannot become active "
                           "by its phase alone: its stages use 3 GPUs in "
                           "DC 0 and it holds 0; store it whole with "
                           "lr_store_put_job()");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "c", &got), 0);
    assert_same_job(&a, &got);
    assert_check_ok(s);
    /* With no plan it may (nothing to hold). */
    a.plan.n_stages = 0;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_set_phase(s, "c", LR_JOB_SUBMITTED, NULL, 46),
                    0);
    assert_check_ok(s);
    lr_store_close(s);
}

static void
test_docs(void)
{
    struct lr_store *s = open_store("docs");
    char *json = NULL;

    CU_ASSERT_EQUAL(lr_store_get_doc(s, "topology", &json), ENOENT);
    CU_ASSERT_PTR_NULL(json);
    CU_ASSERT_EQUAL(lr_store_put_doc(s, "topology", "{\"a\": 1}"), 0);
    CU_ASSERT_EQUAL(lr_store_put_doc(s, "cluster", "{}"), 0);
    CU_ASSERT_EQUAL(lr_store_get_doc(s, "topology", &json), 0);
    CU_ASSERT_STRING_EQUAL(json, "{\"a\": 1}");
    free(json);
    CU_ASSERT_EQUAL(lr_store_put_doc(s, "topology", "{\"a\": 2}"), 0);
    CU_ASSERT_EQUAL(lr_store_get_doc(s, "topology", &json), 0);
    CU_ASSERT_STRING_EQUAL(json, "{\"a\": 2}");
    free(json);
    CU_ASSERT_EQUAL(lr_store_get_doc(s, "cluster", &json), 0);
    CU_ASSERT_STRING_EQUAL(json, "{}");
    free(json);
    lr_store_close(s);
}

static void
test_nested(void)
{
    struct lr_store *s = open_store("nested");
    struct lr_job a, b, c, got;

    make_job(&a, "a", 10, 0);
    make_job(&b, "b", 20, 0);
    make_job(&c, "c", 10, 2);   /* collides with a */
    CU_ASSERT_EQUAL(lr_store_begin(s), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_begin(s), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    lr_store_rollback(s);
    /* A refused write inside the transaction keeps what came before. */
    CU_ASSERT_EQUAL(lr_store_put_job(s, &c), EEXIST);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "b", &got), ENOENT);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    CU_ASSERT_EQUAL(lr_store_commit(s), 0);
    CU_ASSERT_EQUAL(lr_store_commit(s), EINVAL);

    CU_ASSERT_EQUAL(lr_store_begin(s), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    CU_ASSERT_EQUAL(lr_store_delete_job(s, "a"), 0);
    lr_store_rollback(s);
    lr_store_close(s);

    /* Only the committed 'a' is on disk. */
    CU_ASSERT_EQUAL(raw_int("nested", "SELECT count(*) FROM jobs"), 1);
    CU_ASSERT_EQUAL(raw_int("nested", "SELECT count(*) FROM jobs"
                            " WHERE name = 'a'"), 1);
}

/* One corruption per row, and what check() says about it. */
static const struct {
    const char *sql;
    const char *message;
} corruptions[] = {
    { "INSERT INTO slots VALUES (99, 1, 'a', 0)",
      "slot (link 99, slot 1) is held by job 'a' lightpath 0, which does not "
      "cover it" },
    { "INSERT INTO slots VALUES (10, 4, 'a', 0)",
      "slot (link 10, slot 4) is held by job 'a' lightpath 0, which does not "
      "cover it" },
    { "INSERT INTO slots VALUES (77, 0, 'a', 5)",
      "slot (link 77, slot 0) is held by job 'a' lightpath 5, which does not "
      "exist" },
    { "DELETE FROM slots WHERE link = 11 AND slot = 2",
      "job 'a' lightpath 0 is missing slot (link 11, slot 2)" },
    { "UPDATE slots SET job = 'b' WHERE link = 15 AND slot = 0",
      "slot (link 15, slot 0) is held by job 'b' lightpath 1, which does not "
      "exist" },
    { "UPDATE gpus SET count = 2 WHERE job = 'a' AND dc = 0",
      "job 'a' holds 2 GPUs in DC 0 but its stages use 3" },
    { "DELETE FROM gpus WHERE job = 'a' AND dc = 3",
      "job 'a' holds 0 GPUs in DC 3 but its stages use 4" },
    { "INSERT INTO gpus VALUES ('a', 7, 1)",
      "job 'a' holds 1 GPUs in DC 7 but its stages use 0" },
    { "UPDATE jobs SET phase = 'blocked' WHERE name = 'a'",
      "job 'a' is blocked but holds 20 slots and 7 GPUs" },
    { "UPDATE stages SET g = 3 WHERE job = 'a' AND idx = 2",
      "job 'a' holds 4 GPUs in DC 3 but its stages use 3" },
    /* A slot range past INT_MAX: no slot row can cover it, and counting
     * its slots in int would overflow. */
    { "DELETE FROM slots WHERE job = 'a' AND lp = 0;"
      "UPDATE lightpaths SET \"first\" = 2147483646"
      " WHERE job = 'a' AND idx = 0",
      "job 'a' lightpath 0 is unreadable (links, first or m)" },
};

static void
test_check_corrupt(void)
{
    char name[32], err[512];
    struct lr_job a, b;

    for (size_t i = 0; i < sizeof corruptions / sizeof corruptions[0]; i++) {
        snprintf(name, sizeof name, "corrupt%zu", i);
        struct lr_store *s = open_store(name);
        make_job(&a, "a", 10, 0);
        make_job(&b, "b", 30, 0);
        b.n_lightpaths = 1;
        CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
        CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
        assert_check_ok(s);
        /* The store holds its file exclusively: corrupt it while closed. */
        lr_store_close(s);
        CU_ASSERT_EQUAL(raw_exec(name, corruptions[i].sql), SQLITE_OK);
        s = open_store(name);
        CU_ASSERT_EQUAL(lr_store_check(s, err, sizeof err), EINVAL);
        CU_ASSERT_STRING_EQUAL(err, corruptions[i].message);
        if (strcmp(err, corruptions[i].message))
            fprintf(stderr, "corruption %zu: got '%s'\n", i, err);
        lr_store_close(s);
    }
}

/* Numbers a hand edit can leave that the jobs' YANG rendering cannot
 * print (a NULL REAL reads back as NaN, 1e999 is stored as infinity):
 * reading the job is EIO naming the job and the number, before any GET
 * can fail on it; lr_store_list_jobs() too (lightraild's start).  And
 * put refuses to write such a job. */
static const struct {
    const char *sql, *message;
} bad_numbers[] = {
    /* Names too: lightrail-job's patterns and enumeration. */
    { "UPDATE jobs SET model = 'gpt 2' WHERE name = 'a'",
      "job 'a': model 'gpt 2' is not 1 to 63 characters without white "
      "space" },
    { "UPDATE jobs SET algorithm = 'greedy' WHERE name = 'a'",
      "job 'a': algorithm 'greedy' is none of lightrail-job's" },
    { "UPDATE jobs SET batch = NULL WHERE name = 'a'",
      "job 'a': batch is nan, not a count of 1 to 2147483647" },
    { "UPDATE jobs SET micro = 1e999 WHERE name = 'a'",
      "job 'a': microbatch is inf, not a count of 1 to 2147483647" },
    { "UPDATE jobs SET batch = 0 WHERE name = 'a'",
      "job 'a': batch is 0, not a count of 1 to 2147483647" },
    { "UPDATE jobs SET iteration_s = NULL WHERE name = 'a'",
      "job 'a': an active job's iteration time is nan s, not 0 to 9e12" },
    { "UPDATE lightpaths SET length_km = -1e999 WHERE job = 'a' AND idx = 1",
      "job 'a': lightpath 1's length (-inf km) or capacity (300 Gb/s) is "
      "not a finite number of 0 or more" },
    { "UPDATE jobs SET gpus_max = 2 WHERE name = 'a'",
      "job 'a': gpus min 4 and max 2 are not 1 <= min <= max" },
    /* Numbers a GET could print but its musts or types refuse: batch
     * 1536 and microbatch 3 as printed (make_job's 1536.25 and 3.125). */
    { "UPDATE jobs SET micro = 5 WHERE name = 'a'",
      "job 'a': batch 1536 is not a multiple of microbatch 5" },
    { "UPDATE jobs SET batch = 2000000, micro = 1 WHERE name = 'a'",
      "job 'a': batch 2000000 over microbatch 1 is more than 1000000 "
      "microbatches" },
    { "UPDATE jobs SET created_ms = 253402300800000 WHERE name = 'a'",
      "job 'a': created 253402300800000 or updated 1700000000579 (ms) is "
      "after the year 9999" },
    { "UPDATE stages SET last_layer = 65535 WHERE job = 'a' AND idx = 2",
      "job 'a': stage 2's layers 20..65535 are not within 0..65534" },
    { "UPDATE lightpaths SET length_km = 1e16 WHERE job = 'a' AND idx = 0",
      "job 'a': lightpath 0's length (1e+16 km) or capacity (400 Gb/s) is "
      "over 9e15 km or 9e17 Gb/s" },
    { "UPDATE lightpaths SET \"first\" = 65536 WHERE job = 'a' AND idx = 1",
      "job 'a': lightpath 1's first slot 65536 or slots 4 is not within "
      "0..65535" },
    /* Rows that do not read as a job's at all. */
    { "DELETE FROM stages WHERE job = 'a' AND idx = 0",
      "job 'a': stages are not numbered 0..n-1: the database is corrupt" },
    { "INSERT INTO gpus VALUES ('a', 1000000, 1)",
      "job 'a': GPUs in a DC out of range: the database is corrupt" },
    { "UPDATE lightpaths SET idx = 5 WHERE job = 'a' AND idx = 0",
      "job 'a': lightpaths are not numbered 0..n-1: the database is "
      "corrupt" },
    { "UPDATE lightpaths SET links = '3,x' WHERE job = 'a' AND idx = 1",
      "job 'a': a lightpath's links are not a list of link indices: the "
      "database is corrupt" },
    { "UPDATE lightpaths SET modulation = '0123456789abcdef'"
      " WHERE job = 'a' AND idx = 1",
      "job 'a': a lightpath's modulation name is longer than a format's: "
      "the database is corrupt" },
    { "UPDATE lightpaths SET gosnr_db = 'x' WHERE job = 'a' AND idx = 1",
      "job 'a': a lightpath's gOSNR is not a number: the database is "
      "corrupt" },
};

static void
test_bad_numbers(void)
{
    char name[32];
    for (size_t i = 0; i < sizeof bad_numbers / sizeof bad_numbers[0]; i++) {
        struct lr_job a, got, *all = NULL;
        int n = 0;
        snprintf(name, sizeof name, "numbers%zu", i);
        struct lr_store *s = open_store(name);
        make_job(&a, "a", 10, 0);
        CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
        lr_store_close(s);
        CU_ASSERT_EQUAL(raw_exec(name, bad_numbers[i].sql), SQLITE_OK);
        s = open_store(name);
        CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), EIO);
        const char *e = lr_store_error(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(e, bad_numbers[i].message));
        CU_ASSERT_PTR_NOT_NULL(strstr(e, "restore a backup"));
        if (!strstr(e, bad_numbers[i].message))
            fprintf(stderr, "bad number %zu: got '%s'\n", i, e);
        CU_ASSERT_EQUAL(lr_store_list_jobs(s, &all, &n), EIO);
        CU_ASSERT_EQUAL(n, 0);
        free(all);
        lr_store_close(s);
    }

    /* Nor does put write one. */
    struct lr_store *s = open_store("numbers-put");
    struct lr_job a, got;
    make_job(&a, "a", 10, 0);
    a.intent.batch = INFINITY;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'a': batch is inf, not a "
                           "count of 1 to 2147483647");
    make_job(&a, "a b", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'a b': the name is not 1 "
                           "to 63 letters, digits, '.', '_' or '-'");
    make_job(&a, "a", 10, 0);
    a.lp[0].capacity_gbps = NAN;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), EINVAL);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), ENOENT);
    make_job(&a, "a", 10, 0);
    a.lp[1].gosnr_known = true;
    a.lp[1].gosnr_db = INFINITY;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), EINVAL);
    CU_ASSERT_STRING_EQUAL(lr_store_error(s), "job 'a': lightpath 1's gOSNR "
                           "inf dB is not within +-1e+09 dB");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), ENOENT);
    lr_store_close(s);
}

static void
test_reopen(void)
{
    struct lr_store *s = open_store("reopen");
    struct lr_job a, b, *all = NULL;
    char *json = NULL;
    int n = 0;

    make_job(&a, "a", 10, 0);
    make_job(&b, "b", 20, 6);
    /* One measured gOSNR, one not: both kept as they are. */
    b.lp[1].gosnr_known = true;
    b.lp[1].gosnr_db = 16.25;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    CU_ASSERT_EQUAL(lr_store_put_doc(s, "topology", "{\"t\": true}"), 0);
    lr_store_close(s);

    s = open_store("reopen");
    CU_ASSERT_EQUAL(lr_store_list_jobs(s, &all, &n), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    assert_same_job(&a, &all[0]);
    assert_same_job(&b, &all[1]);
    free(all);
    CU_ASSERT_EQUAL(lr_store_get_doc(s, "topology", &json), 0);
    CU_ASSERT_STRING_EQUAL(json, "{\"t\": true}");
    free(json);
    assert_check_ok(s);
    /* The slots are still booked: a's first lightpath on link 10. */
    make_job(&b, "c", 10, 3);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), EEXIST);
    lr_store_close(s);
}

/* What schema 5 wrote of the lightpaths, from schema 6's: no measured
 * gOSNR. */
#define LR_TEST_BACK_TO_V5 \
    "ALTER TABLE lightpaths DROP COLUMN gosnr_db;"

/* What schema 4 wrote of the lightpaths, from schema 6's: the format by
 * its index in the default table (lr_modtable_default()), the only one
 * lightraild had. */
#define LR_TEST_BACK_TO_V4 LR_TEST_BACK_TO_V5 \
    "ALTER TABLE lightpaths ADD COLUMN mod INTEGER NOT NULL DEFAULT -1;" \
    "UPDATE lightpaths SET mod = CASE modulation WHEN 'BPSK' THEN 0" \
    "  WHEN 'QPSK' THEN 1 WHEN '8QAM' THEN 2 WHEN '16QAM' THEN 3 END;" \
    "ALTER TABLE lightpaths DROP COLUMN modulation;"

/* A version 4 store kept a lightpath's format as its index in the
 * table, which a table of lightraild's configuration would read as
 * another format.  Migrated, each index is the default table's name
 * (the only table lightraild had), and one outside it is "" (not
 * known), never a guess; the column of indices is gone. */
static void
test_migrate_v4_names(void)
{
    struct lr_store *s = open_store("v4");
    struct lr_job a, b, got;
    char err[512];
    make_job(&a, "a", 10, 0);
    make_job(&b, "b", 30, 0);
    snprintf(b.lp[0].modulation, sizeof b.lp[0].modulation, "BPSK");
    snprintf(b.lp[1].modulation, sizeof b.lp[1].modulation, "16QAM");
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &b), 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL_FATAL(raw_exec("v4", LR_TEST_BACK_TO_V4
                                   "UPDATE lightpaths SET mod = 7"
                                   " WHERE job = 'b' AND idx = 1;"
                                   "UPDATE meta SET value = 4"
                                   " WHERE key = 'schema_version'"),
                          SQLITE_OK);
    CU_ASSERT_EQUAL(raw_int("v4", "SELECT mod FROM lightpaths"
                            " WHERE job = 'a' AND idx = 0"), 2);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v4"), &s, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);
    CU_ASSERT_STRING_EQUAL(got.lp[0].modulation, "8QAM");
    CU_ASSERT_STRING_EQUAL(got.lp[1].modulation, "QPSK");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "b", &got), 0);
    CU_ASSERT_STRING_EQUAL(got.lp[0].modulation, "BPSK");
    CU_ASSERT_STRING_EQUAL(got.lp[1].modulation, "");
    assert_check_ok(s);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("v4", "SELECT count(*) FROM pragma_table_info"
                            "('lightpaths') WHERE name = 'mod'"), 0);
    CU_ASSERT_EQUAL(raw_int("v4", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"),
                    LR_STORE_SCHEMA_VERSION);
}

/* A version 5 store kept no measured gOSNR.  Migrated, its rows are
 * intact and their lightpaths have none (not known: never judged, not
 * a 0 dB measurement); a measurement put since is kept. */
static void
test_migrate_v5_gosnr(void)
{
    struct lr_store *s = open_store("v5");
    struct lr_job a, got;
    char err[512];
    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL_FATAL(raw_exec("v5", LR_TEST_BACK_TO_V5
                                   "UPDATE meta SET value = 5"
                                   " WHERE key = 'schema_version'"),
                          SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v5"), &s, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    assert_same_job(&a, &got);
    CU_ASSERT_FALSE(got.lp[0].gosnr_known);
    CU_ASSERT_FALSE(got.lp[1].gosnr_known);
    assert_check_ok(s);
    /* What a provisioning measured, kept with the phase. */
    got.lp[0].gosnr_known = true;
    got.lp[0].gosnr_db = 14.25;
    CU_ASSERT_EQUAL(lr_store_set_gosnr(s, &got), 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("v5", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"), 6);
    CU_ASSERT_EQUAL(raw_int("v5", "SELECT count(*) FROM lightpaths"
                            " WHERE gosnr_db IS NULL"), 1);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v5"), &s, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &a), 0);
    CU_ASSERT_TRUE(a.lp[0].gosnr_known);
    CU_ASSERT_EQUAL(a.lp[0].gosnr_db, 14.25);
    CU_ASSERT_FALSE(a.lp[1].gosnr_known);
    lr_store_close(s);
}

/* A version 1 database (before custom models) is migrated to the current
 * version with its jobs intact (iterations 0: not given), and then keeps
 * a custom shape, a note and iterations. */
static void
test_migrate_v1(void)
{
    struct lr_store *s = open_store("v1");
    struct lr_job a, got;
    char err[512];
    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    lr_store_close(s);
    /* Back to what version 1 wrote. */
    CU_ASSERT_EQUAL(raw_exec("v1", LR_TEST_BACK_TO_V4
                             "ALTER TABLE jobs DROP COLUMN iterations;"
                             "ALTER TABLE jobs DROP COLUMN note;"
                             "ALTER TABLE jobs DROP COLUMN shape;"
                             "UPDATE meta SET value = 1"
                             " WHERE key = 'schema_version'"), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v1"), &s, err, sizeof err),
                          0);
    /* Kept first, as version 1 (test_migrate_keeps_copy). */
    int kept_version = 0;
    char want[600];
    snprintf(want, sizeof want, "%s.schema-1.bak", db_path("v1"));
    const char *kept = lr_store_kept(s, &kept_version);
    CU_ASSERT(kept && !strcmp(kept, want) && kept_version == 1);
    CU_ASSERT_EQUAL(raw_int_at(want, "SELECT value FROM meta"
                               " WHERE key = 'schema_version'"), 1);
    CU_ASSERT_EQUAL(lr_store_get_job(s, "a", &got), 0);
    /* A row from before iterations reads 0: not given. */
    CU_ASSERT_EQUAL(got.intent.iterations, 0);
    got.intent.iterations = a.intent.iterations;
    assert_same_job(&a, &got);
    CU_ASSERT_FALSE(got.intent.custom);
    CU_ASSERT_STRING_EQUAL(got.note, "");
    struct lr_job c;
    make_job(&c, "c", 40, 0);
    c.intent.custom = true;
    c.intent.shape = (struct lr_transformer) {
        LR_ARCH_LLAMA, 12, 1024, 16, 4, 2816, 32000, 2048,
    };
    snprintf(c.note, sizeof c.note, "ppo: a note survives");
    c.intent.iterations = 123456789;
    CU_ASSERT_EQUAL(lr_store_put_job(s, &c), 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("v1", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"),
                    LR_STORE_SCHEMA_VERSION);
    s = open_store("v1");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "c", &got), 0);
    CU_ASSERT(got.intent.custom);
    CU_ASSERT_EQUAL(got.intent.shape.arch, LR_ARCH_LLAMA);
    CU_ASSERT_EQUAL(got.intent.shape.kv_heads, 4);
    CU_ASSERT_EQUAL(got.intent.shape.seq, 2048);
    CU_ASSERT_STRING_EQUAL(got.note, "ppo: a note survives");
    CU_ASSERT_EQUAL(got.intent.iterations, 123456789);
    assert_check_ok(s);
    lr_store_close(s);
}

/* Store 'name' with job "a" (and, when 'big', a document of 512 KiB),
 * taken back to what schema 'version' (1 or 3) wrote.  Its bytes, as
 * the older lightraild left it, in a buffer the caller frees, their
 * count in '*n'. */
static unsigned char *
make_old_store(const char *name, int version, bool big, size_t *n)
{
    struct lr_store *s = open_store(name);
    struct lr_job a;
    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    if (big) {
        size_t len = 512 * 1024;
        char *doc = malloc(len + 1);
        CU_ASSERT_FATAL(doc != NULL);
        memset(doc, 'x', len);
        doc[len] = '\0';
        CU_ASSERT_EQUAL(lr_store_put_doc(s, "padding", doc), 0);
        free(doc);
    }
    lr_store_close(s);
    char sql[1024];
    snprintf(sql, sizeof sql, LR_TEST_BACK_TO_V4
             "ALTER TABLE jobs DROP COLUMN iterations;%s"
             "UPDATE meta SET value = %d WHERE key = 'schema_version'",
             version == 1 ? "ALTER TABLE jobs DROP COLUMN note;"
                            "ALTER TABLE jobs DROP COLUMN shape;" : "",
             version);
    CU_ASSERT_EQUAL_FATAL(raw_exec(name, sql), SQLITE_OK);
    unsigned char *b = lr_test_read_file(db_path(name), n);
    CU_ASSERT_FATAL(b != NULL);
    return b;
}

/* How many files of the test's directory are copies kept of store
 * 'name' (their names begin "name.db.schema-"), journals included. */
static int
count_kept(const char *name)
{
    char prefix[128];
    int n = 0;
    snprintf(prefix, sizeof prefix, "%s.db.schema-", name);
    DIR *d = opendir(dir);
    CU_ASSERT_FATAL(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

/* A store of an older schema was migrated in place with no copy kept:
 * a failed start, or an operator going back to the older lightraild,
 * had only a backup they might not have made.  Now the open keeps the
 * file as it was beside it, named for its version, before the first
 * migration step, says so (lr_store_kept()), and never again for the
 * same store; a copy there already is not written over. */
static void
test_migrate_keeps_copy(void)
{
    size_t n_old = 0, n_bak = 0;
    unsigned char *old = make_old_store("v3", 3, false, &n_old);
    struct lr_store *s = NULL;
    char err[1024], bak[600];
    int version = -1;
    snprintf(bak, sizeof bak, "%s.schema-3.bak", db_path("v3"));
    /* The store readable by its group, as an operator may have made it:
     * the copy, which docs/controller.md says to copy back with cp -p,
     * has the same mode (it was 0600, and the restored store with it). */
    CU_ASSERT_EQUAL_FATAL(chmod(db_path("v3"), 0640), 0);

    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v3"), &s, err, sizeof err),
                          0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(bak, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
    const char *kept = lr_store_kept(s, &version);
    CU_ASSERT_PTR_NOT_NULL(kept);
    CU_ASSERT(kept && !strcmp(kept, bak));
    CU_ASSERT_EQUAL(version, 3);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("v3", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"),
                    LR_STORE_SCHEMA_VERSION);
    /* The file as the older lightraild left it, byte for byte, and
     * SQLite opens it as that schema: the way back. */
    unsigned char *b = lr_test_read_file(bak, &n_bak);
    CU_ASSERT_FATAL(b != NULL);
    CU_ASSERT(n_bak == n_old && !memcmp(b, old, n_old));
    free(b);
    CU_ASSERT_EQUAL(raw_int_at(bak, "SELECT value FROM meta"
                               " WHERE key = 'schema_version'"), 3);
    CU_ASSERT_EQUAL(raw_int_at(bak, "SELECT count(*) FROM pragma_table_info"
                               "('jobs') WHERE name = 'iterations'"), 0);
    CU_ASSERT_EQUAL(raw_int_at(bak, "SELECT count(*) FROM jobs"), 1);

    /* A second open: the store is current, nothing kept again. */
    int before = count_kept("v3");
    CU_ASSERT(before >= 1);
    s = open_store("v3");
    version = -1;
    CU_ASSERT_PTR_NULL(lr_store_kept(s, &version));
    CU_ASSERT_EQUAL(version, 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL(count_kept("v3"), before);

    /* The operator went back (the copy copied over the store, and left
     * in place) and forward again: the earlier copy holds less than the
     * store and stays; this one gets a name of its own. */
    free(old);
    CU_ASSERT_EQUAL(unlink(db_path("v3")), 0);
    old = make_old_store("v3", 3, false, &n_old);
    size_t n_first = 0;
    unsigned char *first = lr_test_read_file(bak, &n_first);
    CU_ASSERT_FATAL(first != NULL);
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("v3"), &s, err, sizeof err),
                          0);
    char bak2[620];
    snprintf(bak2, sizeof bak2, "%s.2", bak);
    kept = lr_store_kept(s, &version);
    CU_ASSERT(kept && !strcmp(kept, bak2) && version == 3);
    if (kept && strcmp(kept, bak2))
        fprintf(stderr, "kept again: %s\n", kept);
    lr_store_close(s);
    b = lr_test_read_file(bak, &n_bak);
    CU_ASSERT(b && n_bak == n_first && !memcmp(b, first, n_first));
    free(b);
    b = lr_test_read_file(bak2, &n_bak);
    CU_ASSERT(b && n_bak == n_old && !memcmp(b, old, n_old));
    free(b);
    free(first);
    free(old);

    /* A new store and a current one keep nothing. */
    s = open_store("fresh");
    CU_ASSERT_PTR_NULL(lr_store_kept(s, NULL));
    lr_store_close(s);
    s = open_store("fresh");
    CU_ASSERT_PTR_NULL(lr_store_kept(s, NULL));
    lr_store_close(s);
    CU_ASSERT_EQUAL(count_kept("fresh"), 0);
}

/* An older store a crashed lightraild left with transactions only in
 * its WAL: the copy kept is the database and that WAL, and SQLite reads
 * the copy back at the old version with those transactions. */
static void
test_migrate_keeps_wal(void)
{
    size_t n_old = 0;
    char err[1024], bak[600], wal[620];
    struct stat st;
    free(make_old_store("walv3", 3, false, &n_old));
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        /* A commit left in the WAL, and no close to checkpoint it. */
        sqlite3 *h = NULL;
        if (sqlite3_open(db_path("walv3"), &h) != SQLITE_OK
            || sqlite3_exec(h, "PRAGMA wal_autocheckpoint = 0;"
                            "INSERT INTO docs(key, json)"
                            " VALUES ('in-wal', '{}')", NULL, NULL, NULL)
               != SQLITE_OK)
            _exit(1);
        _exit(0);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    snprintf(wal, sizeof wal, "%s-wal", db_path("walv3"));
    CU_ASSERT_FATAL(stat(wal, &st) == 0 && st.st_size > 0);
    struct lr_store *s = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(db_path("walv3"), &s, err,
                                        sizeof err), 0);
    snprintf(bak, sizeof bak, "%s.schema-3.bak", db_path("walv3"));
    CU_ASSERT(lr_store_kept(s, NULL) && !strcmp(lr_store_kept(s, NULL), bak));
    lr_store_close(s);
    snprintf(wal, sizeof wal, "%s-wal", bak);
    CU_ASSERT(stat(wal, &st) == 0 && st.st_size > 0);
    CU_ASSERT_EQUAL(raw_int_at(bak, "SELECT value FROM meta"
                               " WHERE key = 'schema_version'"), 3);
    CU_ASSERT_EQUAL(raw_int_at(bak, "SELECT count(*) FROM docs"
                               " WHERE key = 'in-wal'"), 1);
    CU_ASSERT_EQUAL(raw_int("walv3", "SELECT count(*) FROM docs"
                            " WHERE key = 'in-wal'"), 1);
}

/* An older store whose migration fails (here a step that cannot run on
 * it: version 3 recorded, 4's column there already; likewise a store
 * another process holds) stays at its version, as it was: the copy kept
 * for it holds nothing the store does not, and was left behind; a
 * daemon restarted on the failure made another each time, .bak.2 to
 * .99, a whole store each, until a disk was full or every name taken.
 * The copy of a migration that did not happen is removed. */
static void
test_migrate_failed_keeps_nothing(void)
{
    struct lr_store *s = open_store("mfail");
    lr_store_close(s);
    CU_ASSERT_EQUAL_FATAL(raw_exec("mfail", "UPDATE meta SET value = 3"
                                   " WHERE key = 'schema_version'"),
                          SQLITE_OK);
    for (int i = 0; i < 2; i++) {
        char err[1024] = "";
        s = NULL;
        CU_ASSERT_EQUAL(lr_store_open(db_path("mfail"), &s, err, sizeof err),
                        EIO);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "migration to schema version 4 "
                                      "failed"));
        CU_ASSERT_EQUAL(raw_int("mfail", "SELECT value FROM meta"
                                " WHERE key = 'schema_version'"), 3);
        CU_ASSERT_EQUAL(count_kept("mfail"), 0);
        if (count_kept("mfail"))
            fprintf(stderr, "a failed migration left %d kept file(s): %s\n",
                    count_kept("mfail"), err);
    }
}

/* The refusal when no copy can be kept: the store's error says what to
 * do, the store is left at its old version, and no partial copy stays. */
static void
assert_not_kept(const char *name, const char *err)
{
    char want[700];
    snprintf(want, sizeof want, "%s: schema version 3, older than this "
             "lightrail's %d: no copy of it could be kept before migrating",
             db_path(name), LR_STORE_SCHEMA_VERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the store is left as it was"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "and start again"));
    if (!strstr(err, want) || !strstr(err, "and start again"))
        fprintf(stderr, "not kept: '%s'\n", err);
    CU_ASSERT_EQUAL(raw_int(name, "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"), 3);
    CU_ASSERT_EQUAL(raw_int(name, "SELECT count(*) FROM pragma_table_info"
                            "('jobs') WHERE name = 'iterations'"), 0);
    CU_ASSERT_EQUAL(count_kept(name), 0);
}

/* lr_store_open() of store 'name' in a child process that 'prepare'
 * (with 'arg') sets up first, its message in err[len]: the open's
 * errno, or -1 when the child could not be set up (prepare's nonzero
 * return). */
static int
open_in_child(const char *name, int (*prepare)(void *), void *arg,
              char *err, size_t len)
{
    int pipefd[2], status = 0;
    err[0] = '\0';
    CU_ASSERT_EQUAL_FATAL(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct lr_store *s = NULL;
        char e[1024] = "";
        close(pipefd[0]);
        if (prepare(arg))
            _exit(100);
        int ret = lr_store_open(db_path(name), &s, e, sizeof e);
        lr_store_close(s);
        if (write(pipefd[1], e, strlen(e) + 1) < 0)
            _exit(101);
        _exit(ret);
    }
    close(pipefd[1]);
    ssize_t n = read(pipefd[0], err, len - 1);
    err[n > 0 ? n : 0] = '\0';
    close(pipefd[0]);
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) <= 100);
    return WEXITSTATUS(status) == 100 ? -1 : WEXITSTATUS(status);
}

/* The child's files may not grow past *(rlim_t *) 'arg' bytes (as on a
 * full disk, EFBIG for ENOSPC). */
static int
prepare_limited(void *arg)
{
    struct rlimit rl = { *(rlim_t *) arg, *(rlim_t *) arg };
    signal(SIGXFSZ, SIG_IGN);
    return setrlimit(RLIMIT_FSIZE, &rl);
}

/* lr_store_open() of store 'name' in a child whose files may not grow
 * past 'limit' bytes: its errno, its message in err[len]. */
static int
open_limited(const char *name, rlim_t limit, char *err, size_t len)
{
    int ret = open_in_child(name, prepare_limited, &limit, err, len);
    CU_ASSERT_FATAL(ret >= 0);
    return ret;
}

static int open_unwritable(const char *name, mode_t dir_mode, char *err,
                           size_t len);

/* A copy that cannot be made refuses the migration: on a full disk, and
 * in a directory the daemon may not write (its -wal and -shm left by a
 * crash, so SQLite itself needs nothing new there). */
static void
test_migrate_copy_refused(void)
{
    size_t n_old = 0;
    char err[1024];
    free(make_old_store("full", 3, true, &n_old));
    CU_ASSERT_FATAL(n_old > 512 * 1024);
    /* Room for SQLite's -shm (32 KiB), not for the copy. */
    CU_ASSERT_EQUAL(open_limited("full", 128 * 1024, err, sizeof err), EFBIG);
    assert_not_kept("full", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, strerror(EFBIG)));
    /* With room, the same store is kept and migrated. */
    struct lr_store *s = open_store("full");
    CU_ASSERT_PTR_NOT_NULL(lr_store_kept(s, NULL));
    lr_store_close(s);

    free(make_old_store("rodir", 3, false, &n_old));
    static const char *const tails[] = { "", "-wal", "-shm" };
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        char f[600];
        snprintf(f, sizeof f, "%s%s", db_path("rodir"), tails[i]);
        if (i) {
            FILE *fp = fopen(f, "a");
            CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
            fclose(fp);
        }
        CU_ASSERT_EQUAL(chmod(f, 0666), 0);
    }
    int ret = open_unwritable("rodir", 0555, err, sizeof err);
    if (ret < 0) {
        fprintf(stderr, "read-only directory: not tested: root cannot "
                "become nobody here\n");
        return;
    }
    CU_ASSERT_EQUAL(ret, EACCES);
    assert_not_kept("rodir", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "write access to"));
}

static void
test_newer_schema(void)
{
    struct lr_store *s = (struct lr_store *) 1;
    char err[512], want[640];

    CU_ASSERT_EQUAL(raw_exec("v99", "CREATE TABLE meta(key TEXT PRIMARY KEY,"
                             " value NOT NULL);"
                             "INSERT INTO meta VALUES ('schema_version', 99)"),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(lr_store_open(db_path("v99"), &s, err, sizeof err),
                    ENOTSUP);
    CU_ASSERT_PTR_NULL(s);
    snprintf(want, sizeof want, "%s: schema version 99 is newer than this "
             "lightrail supports (%d): upgrade lightrail or restore an older "
             "backup", db_path("v99"), LR_STORE_SCHEMA_VERSION);
    CU_ASSERT_STRING_EQUAL(err, want);
    /* Refused without being touched: still version 99, not WAL. */
    CU_ASSERT_EQUAL(raw_int("v99", "SELECT value FROM meta"), 99);
    CU_ASSERT_EQUAL(raw_int("v99", "SELECT count(*) FROM sqlite_master"
                            " WHERE name = 'jobs'"), 0);
}

static void
test_foreign_files(void)
{
    struct lr_store *s = NULL;
    char err[1024], want[1024];
    FILE *f;

    /* Somebody else's database. */
    CU_ASSERT_EQUAL(raw_exec("other", "CREATE TABLE t(x)"), SQLITE_OK);
    CU_ASSERT_EQUAL(lr_store_open(db_path("other"), &s, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(s);
    snprintf(want, sizeof want, "%s: not a lightrail database (no "
             "schema_version in a meta table): give another path",
             db_path("other"));
    CU_ASSERT_STRING_EQUAL(err, want);

    /* Not a database at all. */
    f = fopen(db_path("text"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int i = 0; i < 64; i++)
        fputs("this is not a database, it is a text file.\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(lr_store_open(db_path("text"), &s, err, sizeof err),
                    EINVAL);
    snprintf(want, sizeof want, "%s: not a SQLite database: move it away or "
             "give another path", db_path("text"));
    CU_ASSERT_STRING_EQUAL(err, want);

    /* An empty file: what a crash or a failed copy leaves of a store.
     * Taken for a new store, it had lightraild's start remove every
     * job's channels from the devices as orphans. */
    f = fopen(db_path("empty"), "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    CU_ASSERT_EQUAL(lr_store_open(db_path("empty"), &s, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(s);
    snprintf(want, sizeof want, "%s: an empty file (0 bytes), not a store: "
             "restore the store from a backup, or remove the file to start "
             "with no jobs (lightraild then removes every channel the "
             "devices hold)", db_path("empty"));
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(raw_int("empty", "SELECT count(*) FROM sqlite_master"),
                    0);

    CU_ASSERT_EQUAL(lr_store_open("", &s, err, sizeof err), EINVAL);
    CU_ASSERT_EQUAL(lr_store_open("/nonexistent-dir/x.db", &s, err,
                                  sizeof err), EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent-dir/x.db: cannot open"));
}

static void
test_migrate_empty(void)
{
    struct lr_store *s = NULL;
    struct lr_job *all = NULL;
    int n = -1;

    /* No file: a new store (an empty file is refused: test_foreign_files). */
    CU_ASSERT_EQUAL_FATAL(access(db_path("new"), F_OK), -1);
    s = open_store("new");
    CU_ASSERT_EQUAL(lr_store_list_jobs(s, &all, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    free(all);
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("new", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"),
                    LR_STORE_SCHEMA_VERSION);
    CU_ASSERT_EQUAL(raw_int("new", "SELECT count(*) FROM sqlite_master"
                            " WHERE type = 'table'"), 7);
    CU_ASSERT_EQUAL(raw_int("new", "SELECT journal_mode = 'wal'"
                            " FROM pragma_journal_mode"), 1);
    /* A second open migrates nothing and keeps the version. */
    s = open_store("new");
    lr_store_close(s);
    CU_ASSERT_EQUAL(raw_int("new", "SELECT count(*) FROM meta"), 1);
}

/* A child process opens store 'name', puts job 'a' and exits without
 * closing it (a crash: no checkpoint, the commit in the WAL only). */
static void
put_and_crash(const char *name, const struct lr_job *a)
{
    int status = 0;
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct lr_store *s = NULL;
        char err[512];
        int ret = lr_store_open(db_path(name), &s, err, sizeof err);
        if (!ret)
            ret = lr_store_put_job(s, a);
        _exit(ret ? 1 : 0);
    }
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A damaged page, and a file that cannot grow: SQLite's words alone
 * ("database disk image is malformed", "disk I/O error") said neither
 * what to do nor what the system said. */
static void
test_damage_is_said(void)
{
    struct lr_store *s = open_store("damaged");
    struct lr_job a, got;
    char err[1024];
    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    lr_store_close(s);
    /* Page 6 is the jobs table (the schema's order): its header
     * overwritten. */
    FILE *f = fopen(db_path("damaged"), "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fseek(f, 5 * 4096, SEEK_SET), 0);
    for (int i = 0; i < 16; i++)
        fputc(0x33, f);
    fclose(f);
    int ret = lr_store_open(db_path("damaged"), &s, err, sizeof err);
    if (!ret) {
        ret = lr_store_get_job(s, "a", &got);
        snprintf(err, sizeof err, "%s", lr_store_error(s));
        lr_store_close(s);
    }
    CU_ASSERT_EQUAL(ret, EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "malformed: the file is damaged: "
                                  "restore a backup"));

    /* A child whose files may not grow (as on a full disk, EFBIG for
     * ENOSPC) opens a store it cannot make its -shm file for: SQLite
     * says "disk I/O error", the system why. */
    s = open_store("small");
    lr_store_close(s);
    fflush(NULL);
    int pipefd[2];
    CU_ASSERT_EQUAL_FATAL(pipe(pipefd), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = { 1024, 1024 };
        signal(SIGXFSZ, SIG_IGN);
        close(pipefd[0]);
        s = NULL;
        ret = setrlimit(RLIMIT_FSIZE, &rl)
              || lr_store_open(db_path("small"), &s, err, sizeof err);
        lr_store_close(s);
        if (write(pipefd[1], err, strlen(err) + 1) < 0)
            _exit(2);
        _exit(ret ? 0 : 1);
    }
    close(pipefd[1]);
    char got_err[1024] = "";
    ssize_t n = read(pipefd[0], got_err, sizeof got_err - 1);
    close(pipefd[0]);
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    snprintf(err, sizeof err, "(%s)", strerror(EFBIG));
    CU_ASSERT_PTR_NOT_NULL(strstr(got_err, err));
    if (!strstr(got_err, err))
        fprintf(stderr, "store full: %s\n", got_err);
}

/* As root, the child runs as nobody. */
static int
prepare_unwritable(void *arg)
{
    (void) arg;
    return geteuid() == 0 && (setgid(65534) || setuid(65534));
}

/* lr_store_open() of store 'name' in a child that cannot write it (as
 * root: the child runs as nobody), with the directory's mode 'dir_mode'
 * meanwhile: its errno, and its message in err[len]; -1 when the child
 * cannot become nobody (a user namespace that maps no such user). */
static int
open_unwritable(const char *name, mode_t dir_mode, char *err, size_t len)
{
    CU_ASSERT_EQUAL_FATAL(chmod(dir, dir_mode), 0);
    int ret = open_in_child(name, prepare_unwritable, NULL, err, len);
    CU_ASSERT_EQUAL(chmod(dir, 0700), 0);
    return ret;
}

/* A store this process cannot write (its mode or owner, a read-only
 * file system) opened read-only in silence, and the first write failed,
 * "attempt to write a readonly database", after lightraild had started
 * on it; in a directory it cannot write, the open failed "cannot read
 * the schema version: attempt to write a readonly database".  Both are
 * now refused at open, saying what to do, and the store is unchanged. */
static void
test_unwritable_store(void)
{
    struct lr_store *s = open_store("ro");
    struct lr_job a;
    char err[1024], wal[600];
    make_job(&a, "a", 10, 0);
    CU_ASSERT_EQUAL(lr_store_put_job(s, &a), 0);
    lr_store_close(s);
    CU_ASSERT_EQUAL_FATAL(chmod(db_path("ro"), 0444), 0);
    snprintf(wal, sizeof wal, "%s-wal", db_path("ro"));

    /* The file read-only, its directory writable. */
    int ret = open_unwritable("ro", geteuid() == 0 ? 0777 : 0700, err,
                              sizeof err);
    if (ret < 0) {
        fprintf(stderr, "unwritable store: not tested: root cannot become "
                "nobody here\n");
        CU_ASSERT_EQUAL(chmod(db_path("ro"), 0600), 0);
        return;
    }
    CU_ASSERT_EQUAL(ret, EACCES);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, db_path("ro")));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be written"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "give the user"));
    if (!strstr(err, "cannot be written"))
        fprintf(stderr, "read-only store: '%s'\n", err);
    CU_ASSERT_NOT_EQUAL(access(wal, F_OK), 0);

    /* The file writable, its directory not: no -wal or -shm. */
    CU_ASSERT_EQUAL(chmod(db_path("ro"), geteuid() == 0 ? 0666 : 0600), 0);
    CU_ASSERT(open_unwritable("ro", 0555, err, sizeof err) != 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be written"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "give the user"));
    if (!strstr(err, "give the user"))
        fprintf(stderr, "read-only directory: '%s'\n", err);

    CU_ASSERT_EQUAL(chmod(db_path("ro"), 0600), 0);
    CU_ASSERT_EQUAL(raw_int("ro", "SELECT count(*) FROM jobs"), 1);
    CU_ASSERT_EQUAL(raw_int("ro", "SELECT value FROM meta"
                            " WHERE key = 'schema_version'"),
                    LR_STORE_SCHEMA_VERSION);
}

/* A store another process holds (a sqlite3 shell in a transaction, a
 * backup tool; another lightraild is refused by the state directory's
 * lock before this): after the busy timeout the open said only "cannot
 * read the schema version: database is locked". */
static void
test_locked_store(void)
{
    struct lr_store *s = open_store("locked");
    lr_store_close(s);
    sqlite3 *db = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(db_path("locked"), &db), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE;"
                                       "BEGIN EXCLUSIVE", NULL, NULL, NULL),
                          SQLITE_OK);
    char err[1024];
    s = NULL;
    CU_ASSERT_EQUAL(lr_store_open(db_path("locked"), &s, err, sizeof err),
                    EIO);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "database is locked"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "another process holds the store"));
    if (!strstr(err, "another process holds the store"))
        fprintf(stderr, "locked store: '%s'\n", err);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    s = open_store("locked");
    lr_store_close(s);
}

/* A child commits a job and dies without closing the database (no
 * checkpoint, the WAL and its index left behind); the parent finds the
 * job. */
static void
test_crash_durability(void)
{
    struct lr_job a, got;

    make_job(&a, "survivor", 10, 0);
    put_and_crash("crash", &a);
    CU_ASSERT_EQUAL(access(db_path("crash"), F_OK), 0);

    struct lr_store *s = open_store("crash");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "survivor", &got), 0);
    assert_same_job(&a, &got);
    assert_check_ok(s);
    lr_store_close(s);
}

/* lr_store_copy() copies what is committed, WAL included, and changes
 * nothing of the source: not its file, not its WAL (a crashed daemon's
 * transactions, not yet checkpointed), and makes no -shm beside it. */
static void
test_copy(void)
{
    struct lr_job a, got;
    char err[512], wal[600];

    make_job(&a, "walled", 10, 0);
    put_and_crash("cp", &a);   /* the job is in the WAL only */
    snprintf(wal, sizeof wal, "%s-wal", db_path("cp"));
    size_t n_db, n_wal, n_db2, n_wal2;
    unsigned char *b_db = lr_test_read_file(db_path("cp"), &n_db),
                  *b_wal = lr_test_read_file(wal, &n_wal);
    CU_ASSERT_FATAL(b_db && b_wal);
    CU_ASSERT(n_wal > 0);

    char from[512];
    snprintf(from, sizeof from, "%s", db_path("cp"));
    CU_ASSERT_EQUAL(lr_store_copy(from, db_path("cp-copy"), err, sizeof err),
                    0);
    unsigned char *a_db = lr_test_read_file(from, &n_db2),
                  *a_wal = lr_test_read_file(wal, &n_wal2);
    CU_ASSERT_FATAL(a_db && a_wal);
    CU_ASSERT(n_db == n_db2 && !memcmp(b_db, a_db, n_db));
    CU_ASSERT(n_wal == n_wal2 && !memcmp(b_wal, a_wal, n_wal));
    char shm[600];
    snprintf(shm, sizeof shm, "%s-shm", from);
    CU_ASSERT_NOT_EQUAL(access(shm, F_OK), 0);
    free(b_db);
    free(b_wal);
    free(a_db);
    free(a_wal);

    struct lr_store *s = open_store("cp-copy");
    CU_ASSERT_EQUAL(lr_store_get_job(s, "walled", &got), 0);
    assert_same_job(&a, &got);
    assert_check_ok(s);
    lr_store_close(s);

    /* No file: said so, nothing made. */
    snprintf(from, sizeof from, "%s", db_path("none"));
    CU_ASSERT_EQUAL(lr_store_copy(from, db_path("none-copy"), err,
                                  sizeof err), ENOENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no such file"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, from));
    CU_ASSERT_NOT_EQUAL(access(db_path("none-copy"), F_OK), 0);
    /* A copy is never written over. */
    snprintf(from, sizeof from, "%s", db_path("cp"));
    CU_ASSERT_EQUAL(lr_store_copy(from, db_path("cp-copy"), err, sizeof err),
                    EEXIST);
    /* A copy's path too long is the copy's, not the store's (it once
     * named the store). */
    char *to = malloc(PATH_MAX + 1);
    CU_ASSERT_FATAL(to != NULL);
    memset(to, 'x', PATH_MAX);
    to[0] = '/';
    to[PATH_MAX] = '\0';
    CU_ASSERT_EQUAL(lr_store_copy(from, to, err, sizeof err), ENAMETOOLONG);
    CU_ASSERT_PTR_NULL(strstr(err, from));
    CU_ASSERT_EQUAL(strncmp(err, to, 16), 0);
    free(to);
}

/* The same with the lock held by another process, as a second
 * lightraild whose state directory differs but whose store is the same
 * file (a link) holds it: the refusal names that process, through a
 * link too.  It blamed "a sqlite3 shell, a backup tool" whoever it
 * was. */
static void
test_locked_store_names_holder(void)
{
    struct lr_store *s = open_store("held");
    lr_store_close(s);
    char link[600];
    snprintf(link, sizeof link, "%s/held-link.db", dir);
    CU_ASSERT_EQUAL_FATAL(symlink(db_path("held"), link), 0);
    int ready[2], done[2];
    CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
    CU_ASSERT_EQUAL_FATAL(pipe(done), 0);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        /* Holds the store exclusively until the parent closes 'done'. */
        sqlite3 *db = NULL;
        char c = 'x';
        close(ready[0]);
        close(done[1]);
        if (sqlite3_open(db_path("held"), &db) != SQLITE_OK
            || sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE;"
                            "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        (void) read(done[0], &c, 1);
        _exit(0);
    }
    close(ready[1]);
    close(done[0]);
    char c, err[1024], want[64];
    CU_ASSERT_EQUAL_FATAL(read(ready[0], &c, 1), 1);
    s = NULL;
    CU_ASSERT_EQUAL(lr_store_open(link, &s, err, sizeof err), EIO);
    CU_ASSERT_PTR_NULL(s);
    /* The child's command name is this process's: test_store, or the
     * tool it runs under (valgrind's is "memcheck-amd64-"). */
    char comm[32] = "test_store";
    FILE *cf = fopen("/proc/self/comm", "r");
    if (cf) {
        if (fgets(comm, sizeof comm, cf))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(cf);
    }
    snprintf(want, sizeof want, "(pid %ld, %s)", (long) child, comm);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "another process holds the store"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, link));
    if (!strstr(err, want))
        fprintf(stderr, "held store: '%s', want '%s'\n", err, want);
    /* lightrail-check's hold before its copy is refused the same way. */
    int fd = 0;
    CU_ASSERT_EQUAL(lr_store_hold(link, &fd, err, sizeof err), EBUSY);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "another process holds the store"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    close(done[1]);
    close(ready[0]);
    int status = -1;
    CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    s = open_store("held");
    lr_store_close(s);
}

/* lightrail-check holds the store over its copy: a lightraild starting
 * on the same file meanwhile (through a link, from another state
 * directory, which the directory's lock does not see) cannot write it,
 * even though the copy opens and closes the file (which would drop a
 * POSIX lock), and writes it once the hold is let go. */
static void
test_hold_keeps_writers_off(void)
{
    struct lr_store *s = open_store("hold");
    lr_store_close(s);
    char link[600], to[600], err[1024];
    snprintf(link, sizeof link, "%s/hold-link.db", dir);
    snprintf(to, sizeof to, "%s/hold-copy.db", dir);
    CU_ASSERT_EQUAL_FATAL(symlink(db_path("hold"), link), 0);
    int fd = -1;
    CU_ASSERT_EQUAL_FATAL(lr_store_hold(db_path("hold"), &fd, err,
                                        sizeof err), 0);
    CU_ASSERT(fd >= 0);
    CU_ASSERT_EQUAL(lr_store_copy(db_path("hold"), to, err, sizeof err), 0);
    /* It reads (SQLite's shared lock), and its first write, which
     * lightraild makes at its start, is refused. */
    s = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(link, &s, err, sizeof err), 0);
    CU_ASSERT_NOT_EQUAL(lr_store_put_doc(s, "topology", "{}"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(lr_store_error(s), "database is locked"));
    lr_store_close(s);
    close(fd);
    s = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_store_open(link, &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_store_put_doc(s, "topology", "{}"), 0);
    lr_store_close(s);
}

/* A file 'name' in the test's directory with 'text', modified at
 * 'mtime' (seconds since the epoch). */
static void
make_file_at(const char *name, const char *text, time_t mtime)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    struct timespec t[2] = { { mtime, 0 }, { mtime, 0 } };
    CU_ASSERT_EQUAL_FATAL(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool
exists_in_dir(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* What lr_store_prune_kept() said, one "copy version newest err;"
 * each (names without their directory). */
struct pruned {
    char said[2048];
};

static void
record_pruned(void *arg, const char *copy, int version, const char *newest,
              int err)
{
    struct pruned *p = arg;
    const char *slash = strrchr(copy, '/'), *nslash = strrchr(newest, '/');
    size_t len = strlen(p->said);
    snprintf(p->said + len, sizeof p->said - len, "%s %d %s %d;",
             slash ? slash + 1 : copy, version,
             nslash ? nslash + 1 : newest, err);
}

/* Every migration kept one more copy beside the store, forever: an
 * operator going back and forth between two lightraild versions filled
 * the disk with them.  Now, of each schema version, the newest copy
 * stays (the one just made for its version, by modification time for
 * the others), with its journals; the older ones go with theirs; other
 * files, and copies of another store, are not touched; a copy that
 * cannot be removed is said and does not stop the others. */
static void
test_prune_kept(void)
{
    time_t now = time(NULL);
    /* Schema 3: the copy just made has the lowest number and is older
     * by the clock (a restored clock): it is still the one kept. */
    make_file_at("pr.db.schema-3.bak", "just made", now - 100);
    make_file_at("pr.db.schema-3.bak.2", "older", now - 50);
    make_file_at("pr.db.schema-3.bak.2-wal", "older's wal", now - 50);
    make_file_at("pr.db.schema-3.bak.3", "older", now - 60);
    /* Schema 2: the newest by time stays, whatever its number. */
    make_file_at("pr.db.schema-2.bak", "newest of 2", now - 10);
    make_file_at("pr.db.schema-2.bak-wal", "its wal", now - 10);
    make_file_at("pr.db.schema-2.bak.7", "old 2", now - 1000);
    make_file_at("pr.db.schema-2.bak.7-journal", "its journal", now - 1000);
    /* A sqlite3 shell that opened the copy (a WAL database) left its
     * wal-index: it goes with the copy. */
    make_file_at("pr.db.schema-2.bak.7-shm", "its wal-index", now - 1000);
    /* Schema 1: a single copy is the way back to its lightraild. */
    make_file_at("pr.db.schema-1.bak", "only 1", now - 5000);
    /* Names that are not copies of this store. */
    make_file_at("pr.db.schema-2.bak.txt", "a note", now - 2000);
    make_file_at("pr.db.schema-x.bak", "?", now - 2000);
    make_file_at("pr2.db.schema-2.bak", "another store's", now - 2000);
    make_file_at("other.db.schema-2.bak", "another store's", now - 2000);

    char kept[600];
    snprintf(kept, sizeof kept, "%s.schema-3.bak", db_path("pr"));
    struct pruned p = { "" };
    CU_ASSERT_EQUAL(lr_store_prune_kept(db_path("pr"), kept, record_pruned,
                                        &p), 0);
    static const char *const stay[] = {
        "pr.db.schema-3.bak", "pr.db.schema-2.bak", "pr.db.schema-2.bak-wal",
        "pr.db.schema-1.bak", "pr.db.schema-2.bak.txt", "pr.db.schema-x.bak",
        "pr2.db.schema-2.bak", "other.db.schema-2.bak",
    };
    static const char *const gone[] = {
        "pr.db.schema-3.bak.2", "pr.db.schema-3.bak.2-wal",
        "pr.db.schema-3.bak.3", "pr.db.schema-2.bak.7",
        "pr.db.schema-2.bak.7-journal", "pr.db.schema-2.bak.7-shm",
    };
    for (size_t i = 0; i < sizeof stay / sizeof *stay; i++) {
        CU_ASSERT(exists_in_dir(stay[i]));
        if (!exists_in_dir(stay[i]))
            fprintf(stderr, "removed: %s\n", stay[i]);
    }
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
        CU_ASSERT(!exists_in_dir(gone[i]));
        if (exists_in_dir(gone[i]))
            fprintf(stderr, "left: %s\n", gone[i]);
    }
    /* Each removal said once, journals with their copy. */
    CU_ASSERT_PTR_NOT_NULL(strstr(p.said, "pr.db.schema-3.bak.2 3 pr.db.schema-3.bak 0;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p.said, "pr.db.schema-3.bak.3 3 pr.db.schema-3.bak 0;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p.said, "pr.db.schema-2.bak.7 2 pr.db.schema-2.bak 0;"));
    CU_ASSERT_EQUAL(strlen(p.said), strlen("pr.db.schema-3.bak.2 3 pr.db.schema-3.bak 0;")
                                    + strlen("pr.db.schema-3.bak.3 3 pr.db.schema-3.bak 0;")
                                    + strlen("pr.db.schema-2.bak.7 2 pr.db.schema-2.bak 0;"));

    /* A copy whose journal cannot be removed (a directory in its
     * place): said with its errno, returned, and the other copies
     * still go. */
    char wal_dir[600], inside[700];
    make_file_at("pr.db.schema-1.bak.2", "old 1", now - 9000);
    make_file_at("pr.db.schema-2.bak.8", "old 2", now - 9000);
    snprintf(wal_dir, sizeof wal_dir, "%s.schema-1.bak.2-wal", db_path("pr"));
    CU_ASSERT_EQUAL_FATAL(mkdir(wal_dir, 0700), 0);
    snprintf(inside, sizeof inside, "%s/x", wal_dir);
    FILE *f = fopen(inside, "w");
    CU_ASSERT_FATAL(f != NULL);
    fclose(f);
    p.said[0] = '\0';
    CU_ASSERT_EQUAL(lr_store_prune_kept(db_path("pr"), kept, record_pruned,
                                        &p), EISDIR);
    char want[96];
    snprintf(want, sizeof want, "pr.db.schema-1.bak.2 1 pr.db.schema-1.bak %d;", EISDIR);
    CU_ASSERT_PTR_NOT_NULL(strstr(p.said, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(p.said, "pr.db.schema-2.bak.8 2 pr.db.schema-2.bak 0;"));
    CU_ASSERT(!exists_in_dir("pr.db.schema-2.bak.8"));
    CU_ASSERT(exists_in_dir("pr.db.schema-1.bak"));
    if (!strstr(p.said, "pr.db.schema-2.bak.8 2 pr.db.schema-2.bak 0;"))
        fprintf(stderr, "said: %s\n", p.said);
    unlink(inside);
    rmdir(wal_dir);

    /* A directory that cannot be read: its errno, nothing said. */
    p.said[0] = '\0';
    CU_ASSERT_EQUAL(lr_store_prune_kept("/nonexistent-lr/pr.db", NULL,
                                        record_pruned, &p), ENOENT);
    CU_ASSERT_EQUAL(p.said[0], '\0');
}

static CU_TestInfo tests[] = {
    { "round trip of every field", test_round_trip },
    { "reasons and notes of LR_JOB_REASON_MAX - 1 bytes are kept",
      test_long_texts },
    { "put replaces what a job holds", test_replace },
    { "EEXIST on a slot taken, nothing changed", test_conflict },
    { "EINVAL on a job that breaks an invariant", test_invalid },
    { "numbers a GET cannot print: EIO on read, EINVAL on put",
      test_bad_numbers },
    { "delete cascades", test_delete_cascades },
    { "list in name order", test_list_order },
    { "set_phase", test_set_phase },
    { "documents", test_docs },
    { "nested transactions are savepoints", test_nested },
    { "check() finds corrupted rows", test_check_corrupt },
    { "reopen keeps everything", test_reopen },
    { "a version 1 database is migrated", test_migrate_v1 },
    { "a version 4 store's format indices become names",
      test_migrate_v4_names },
    { "a version 5 store opens with no measured gOSNR",
      test_migrate_v5_gosnr },
    { "an older store is kept before it is migrated",
      test_migrate_keeps_copy },
    { "an older store that cannot be kept is not migrated",
      test_migrate_copy_refused },
    { "an older store's WAL is kept with it",
      test_migrate_keeps_wal },
    { "an older store whose migration fails keeps no copy",
      test_migrate_failed_keeps_nothing },
    { "a newer schema is refused", test_newer_schema },
    { "foreign files are refused", test_foreign_files },
    { "a damaged or full file is said so", test_damage_is_said },
    { "a store that cannot be written is refused at open",
      test_unwritable_store },
    { "a store another process holds says so", test_locked_store },
    { "a store another process holds names it", test_locked_store_names_holder },
    { "a store held for a copy keeps a starting daemon off it",
      test_hold_keeps_writers_off },
    { "a new store from no file", test_migrate_empty },
    { "a commit survives a crash", test_crash_durability },
    { "a copy holds the WAL's commits and leaves the source", test_copy },
    { "of each schema only the newest copy kept stays", test_prune_kept },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("store", tests, setup, teardown)
