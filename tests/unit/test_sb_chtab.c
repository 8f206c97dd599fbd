/*
 * sb_chtab: a batch planned against a device's channels — indices above
 * every one held, a channel created and deleted in one batch given an
 * index but absent from the result, and every refusal leaving the table
 * as it was with nothing planned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "southbound/sb_chtab.h"
#include "tests/lr_test.h"

static struct sb_change
change(enum sb_op op, const char *name)
{
    struct sb_change c = { .op = op };
    snprintf(c.mc.name, sizeof c.mc.name, "%s", name);
    c.mc.n = 10;
    c.mc.m = 4;
    return c;
}

static void
held(struct sb_chtab *t)
{
    struct sb_chent a = { .index = 3 }, b = { .index = 7 };
    snprintf(a.mc.name, sizeof a.mc.name, "j1/lp1");
    snprintf(b.mc.name, sizeof b.mc.name, "j1/lp2");
    CU_ASSERT_EQUAL_FATAL(sb_chtab_add(t, &a), 0);
    CU_ASSERT_EQUAL_FATAL(sb_chtab_add(t, &b), 0);
    t->ok = true;
}

static void
test_plan(void)
{
    struct sb_chtab t = { 0 };
    held(&t);
    struct sb_change ch[] = {
        change(SB_ADD, "j2/lp1"), change(SB_DELETE, "j1/lp1"),
        change(SB_ADD, "j2/lp2"), change(SB_DELETE, "j2/lp2"),
    };
    struct sb_chent *work;
    struct sb_chstep *steps;
    int n_work;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sb_chtab_plan(&t, "r1", ch, 4, &work, &n_work,
                                        &steps, err, sizeof err), 0);
    /* j1/lp2 (7) and j2/lp1 (8) remain. */
    CU_ASSERT_EQUAL(n_work, 2);
    CU_ASSERT(sb_chtab_find(work, n_work, "j1/lp2") >= 0);
    int at = sb_chtab_find(work, n_work, "j2/lp1");
    CU_ASSERT_FATAL(at >= 0);
    CU_ASSERT_EQUAL(work[at].index, 8);
    CU_ASSERT_EQUAL(sb_chtab_find(work, n_work, "j1/lp1"), -1);
    CU_ASSERT_EQUAL(sb_chtab_find(work, n_work, "j2/lp2"), -1);
    /* The steps, in order: j2/lp2 got 9, then was deleted as created. */
    CU_ASSERT(steps[0].create && steps[0].e.index == 8);
    CU_ASSERT(!steps[1].create && steps[1].e.index == 3);
    CU_ASSERT(steps[2].create && steps[2].e.index == 9);
    CU_ASSERT(!steps[3].create && steps[3].e.index == 9);
    /* The table itself is untouched until the driver commits. */
    CU_ASSERT_EQUAL(t.n, 2);
    sb_chtab_set(&t, work, n_work);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT(t.ok);
    free(work);
    free(steps);
    sb_chtab_free(&t);
}

static void
test_refusals(void)
{
    struct sb_chtab t = { 0 };
    held(&t);
    struct {
        struct sb_change ch[2];
        int n, want;
        const char *says;
    } cases[] = {
        { { change(SB_ADD, "j1/lp1") }, 1, EEXIST, "already exists" },
        { { change(SB_DELETE, "nope") }, 1, ENOENT, "no media channel" },
        { { change(SB_ADD, "") }, 1, EINVAL, "needs a name" },
        { { change(SB_ADD, "ok"), change((enum sb_op) 9, "x") }, 2, EINVAL,
          "unknown operation" },
        /* The second add of one name in one batch. */
        { { change(SB_ADD, "x"), change(SB_ADD, "x") }, 2, EEXIST,
          "'x' already exists" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb_chent *work = (void *) 1;
        struct sb_chstep *steps = (void *) 1;
        int n_work = -1;
        char err[256] = "";
        CU_ASSERT_EQUAL(sb_chtab_plan(&t, "r9", cases[i].ch, cases[i].n,
                                      &work, &n_work, &steps, err,
                                      sizeof err), cases[i].want);
        CU_ASSERT_PTR_NULL(work);
        CU_ASSERT_PTR_NULL(steps);
        CU_ASSERT_EQUAL(n_work, 0);
        CU_ASSERT(!strncmp(err, "r9: ", 4));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].says));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "nothing applied"));
        CU_ASSERT_EQUAL(t.n, 2);
    }
    sb_chtab_free(&t);
}

/* A device that keys a channel of its own at the top index (4294967295):
 * new channels take the lowest indices free, never one held before the
 * batch (here 1, deleted in it), so a driver still tells them from the
 * channels it had (sb_chtab_has_index). */
static void
test_top_index_held(void)
{
    struct sb_chtab t = { 0 };
    struct sb_chent a = { .index = 1 }, top = { .index = UINT32_MAX };
    snprintf(a.mc.name, sizeof a.mc.name, "j1/lp1");
    snprintf(top.mc.name, sizeof top.mc.name, "theirs");
    CU_ASSERT_EQUAL_FATAL(sb_chtab_add(&t, &a), 0);
    CU_ASSERT_EQUAL_FATAL(sb_chtab_add(&t, &top), 0);
    t.ok = true;
    struct sb_change ch[] = {
        change(SB_DELETE, "j1/lp1"), change(SB_ADD, "j2/lp1"),
        change(SB_ADD, "j2/lp2"),
    };
    struct sb_chent *work;
    struct sb_chstep *steps;
    int n_work;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(sb_chtab_plan(&t, "r1", ch, 3, &work, &n_work,
                                        &steps, err, sizeof err), 0);
    CU_ASSERT(steps[1].create && steps[1].e.index == 2);
    CU_ASSERT(steps[2].create && steps[2].e.index == 3);
    CU_ASSERT(!sb_chtab_has_index(&t, steps[1].e.index));
    CU_ASSERT(sb_chtab_has_index(&t, UINT32_MAX));
    CU_ASSERT_EQUAL(n_work, 3);
    free(work);
    free(steps);
    sb_chtab_free(&t);
}

/* What devices give as a channel's spectrum: edges (RFC 7951 uint64
 * text) or n and m; anything no channel can be is refused, never cast
 * (UBSan saw edges near 2^64 overflow the old sum). */
static void
test_grid(void)
{
    int n = 0, m = 0;
    long long lo = 0, up = 0;
    CU_ASSERT(sb_grid_from_edges("193012500", "193062500", &n, &m, &lo, &up));
    CU_ASSERT(lo == 193012500 && up == 193062500);
    CU_ASSERT(n == -10 && m == 4);
    CU_ASSERT(sb_grid_from_nm("-283", "9", &n, &m));
    CU_ASSERT(n == -283 && m == 9);
    static const char *const edges[][2] = {
        { "1", "18446744073709551615" }, { "9223372036854775807", "1" },
        { "193062500", "193012500" }, { "193012500", "193012500" },
        { "193012500x", "193062500" }, { "", "193062500" },
        { "-193012500", "193062500" }, { "1", "1000000001" },
    };
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        CU_ASSERT(!sb_grid_from_edges(edges[i][0], edges[i][1], &n, &m, NULL,
                                      NULL));
    CU_ASSERT(!sb_grid_from_edges(NULL, "193062500", &n, &m, NULL, NULL));
    static const char *const nm[][2] = {
        { "2147483648", "4" }, { "10", "0" }, { "10", "-4" },
        { "1000001", "4" }, { "10", "4.5" }, { "ten", "4" },
    };
    for (size_t i = 0; i < sizeof nm / sizeof *nm; i++)
        CU_ASSERT(!sb_grid_from_nm(nm[i][0], nm[i][1], &n, &m));
}

/* sb_chtab_holds: the same channels in another order, yes; another
 * index, another name, one more or one fewer, no. */
static void
test_holds(void)
{
    struct sb_chtab t = { 0 };
    held(&t);
    struct sb_chent e[3] = { { .index = 7 }, { .index = 3 }, { .index = 9 } };
    snprintf(e[0].mc.name, sizeof e[0].mc.name, "j1/lp2");
    snprintf(e[1].mc.name, sizeof e[1].mc.name, "j1/lp1");
    snprintf(e[2].mc.name, sizeof e[2].mc.name, "x/lp1");
    CU_ASSERT(sb_chtab_holds(&t, e, 2));
    CU_ASSERT(!sb_chtab_holds(&t, e, 1));
    CU_ASSERT(!sb_chtab_holds(&t, e, 3));
    e[1].index = 4;
    CU_ASSERT(!sb_chtab_holds(&t, e, 2));
    e[1].index = 3;
    snprintf(e[1].mc.name, sizeof e[1].mc.name, "j2/lp1");
    CU_ASSERT(!sb_chtab_holds(&t, e, 2));
    /* A snapshot of an ok table is what it holds; of one not ok, none. */
    struct sb_chent *snap;
    int n_snap;
    CU_ASSERT_FATAL(sb_chtab_snapshot(&t, &snap, &n_snap));
    CU_ASSERT_EQUAL(n_snap, 2);
    CU_ASSERT(sb_chtab_holds(&t, snap, n_snap));
    free(snap);
    t.ok = false;
    CU_ASSERT(!sb_chtab_snapshot(&t, &snap, &n_snap));
    CU_ASSERT_PTR_NULL(snap);
    CU_ASSERT_EQUAL(n_snap, 0);
    sb_chtab_free(&t);
    struct sb_chtab none = { .ok = true };
    CU_ASSERT(sb_chtab_holds(&none, NULL, 0));
    CU_ASSERT(sb_chtab_snapshot(&none, &snap, &n_snap));
    CU_ASSERT_PTR_NULL(snap);
}

static CU_TestInfo tests[] = {
    { "a batch planned against the channels held", test_plan },
    { "refusals plan nothing", test_refusals },
    { "a channel at the top index leaves the lowest free",
      test_top_index_held },
    { "a device's spectrum is a channel or refused", test_grid },
    { "holds and snapshot: the same channels, by index and name",
      test_holds },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("sb_chtab", tests)
