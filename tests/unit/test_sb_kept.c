/* What a driver's check_files keeps for open(): keyed by every string of
 * the key, replaced, dropped, taken once, cleared, each value freed once
 * (the counter below; LeakSanitizer and valgrind see the rest). */
#include <stdlib.h>
#include <string.h>

#include "southbound/sb_kept.h"
#include "tests/lr_test.h"

static int freed;

static void
count_free(void *p)
{
    freed++;
    free(p);
}

static struct sb_kept kept = SB_KEPT_INIT(count_free);

static void *
value(const char *text)
{
    return strdup(text);
}

static void
test_keys_whole(void)
{
    const char *a[] = { "r1", "/ca", NULL }, *b[] = { "r1", "/ca2", NULL };
    /* The same bytes cut elsewhere: "r1" "/ca" against "r1/" "ca". */
    const char *c[] = { "r1/", "ca", NULL }, *d[] = { "r1", NULL };
    const char *e[] = { "r1", "/ca", "", NULL };
    size_t len = 0;
    freed = 0;
    sb_kept_put(&kept, a, value("A"), 2);
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, b, NULL));
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, c, NULL));
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, d, NULL));
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, e, NULL));
    char *v = sb_kept_take(&kept, a, &len);
    CU_ASSERT_STRING_EQUAL(v ? v : "", "A");
    CU_ASSERT_EQUAL(len, 2);
    free(v);
    /* Taken once: the next open() reads the files. */
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, a, NULL));
    CU_ASSERT_EQUAL(freed, 0);
}

static void
test_replace_drop_clear(void)
{
    const char *a[] = { "r1", "/ca", NULL }, *b[] = { "r2", "/ca", NULL };
    freed = 0;
    sb_kept_put(&kept, a, value("old"), 4);
    sb_kept_put(&kept, a, value("new"), 4);
    CU_ASSERT_EQUAL(freed, 1);          /* the old one, at once */
    char *v = sb_kept_take(&kept, a, NULL);
    CU_ASSERT_STRING_EQUAL(v ? v : "", "new");
    free(v);
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, a, NULL));

    sb_kept_put(&kept, a, value("A"), 2);
    sb_kept_put(&kept, b, value("B"), 2);
    sb_kept_drop(&kept, a);
    CU_ASSERT_EQUAL(freed, 2);
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, a, NULL));
    sb_kept_drop(&kept, a);             /* nothing kept: nothing freed */
    CU_ASSERT_EQUAL(freed, 2);
    sb_kept_put(&kept, a, value("A"), 2);
    sb_kept_clear(&kept);
    CU_ASSERT_EQUAL(freed, 4);
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, a, NULL));
    CU_ASSERT_PTR_NULL(sb_kept_take(&kept, b, NULL));
    sb_kept_clear(&kept);
    CU_ASSERT_EQUAL(freed, 4);
}

static CU_TestInfo tests[] = {
    { "keys compared whole", test_keys_whole },
    { "replaced, dropped, cleared, each freed once",
      test_replace_drop_clear },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("sb_kept", tests)
