/*
 * sb_dummy: the dummy ROADM through the driver table: round trips, the
 * all-or-nothing of a batch, each injected failure, state kept across
 * close/open, devices independent of each other, and the message for a
 * damaged state file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "southbound/sb_driver.h"
#include "tests/lr_test.h"

static char dir[64];
static const struct sb_driver_class *dummy;

static int
setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/lr-test-sb-XXXXXX");
    dummy = sb_driver_find("dummy");
    return mkdtemp(dir) && dummy ? 0 : 1;
}

/* Removes <dir>/<sub>/ and its files, or <dir> itself for sub NULL. */
static void
remove_dir(const char *sub)
{
    char path[512], file[768];
    struct dirent *e;
    DIR *d;

    snprintf(path, sizeof path, "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
    d = opendir(path);
    if (!d)
        return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            if (unlink(file) && errno == EISDIR)
                remove_dir(e->d_name);
        }
    closedir(d);
    rmdir(path);
}

static int
teardown(void)
{
    remove_dir(NULL);
    return access(dir, F_OK) == 0;
}

/* Each test has its own state directory <dir>/<test>. */
static struct sb_device_config
config(const char *test, const char *device)
{
    struct sb_device_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", device);
    snprintf(c.driver, sizeof c.driver, "dummy");
    snprintf(c.address, sizeof c.address, "%s/%s", dir, test);
    return c;
}

static const char *
file_of(const char *test, const char *device, const char *ext)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s/%s%s", dir, test, device, ext);
    return path;
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static struct sb_device *
open_dev(const char *test, const char *device)
{
    struct sb_device_config c = config(test, device);
    struct sb_device *dev = NULL;
    char err[512] = "";
    int ret = dummy->open(&c, &dev, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(ret, 0);
    if (ret)
        fprintf(stderr, "%s\n", err);
    return dev;
}

static struct sb_change
add(const char *name, const char *in, const char *out, int n, int m)
{
    struct sb_change c;
    memset(&c, 0, sizeof c);
    c.op = SB_ADD;
    snprintf(c.mc.name, sizeof c.mc.name, "%s", name);
    snprintf(c.mc.in_port, sizeof c.mc.in_port, "%s", in);
    snprintf(c.mc.out_port, sizeof c.mc.out_port, "%s", out);
    c.mc.n = n;
    c.mc.m = m;
    c.mc.enabled = true;
    return c;
}

static struct sb_change
del(const char *name)
{
    struct sb_change c;
    memset(&c, 0, sizeof c);
    c.op = SB_DELETE;
    snprintf(c.mc.name, sizeof c.mc.name, "%s", name);
    return c;
}

/* The device's channel names, space separated, in device order. */
static const char *
names(struct sb_device *dev)
{
    static char buf[1024];
    struct sb_media_channel *mc = NULL;
    char err[512];
    int n = -1;
    size_t used = 0;

    buf[0] = '\0';
    if (dummy->read(dev, &mc, &n, err, sizeof err)) {
        snprintf(buf, sizeof buf, "error: %s", err);
        return buf;
    }
    for (int i = 0; i < n; i++)
        used += (size_t) snprintf(buf + used, sizeof buf - used, "%s%s",
                                  i ? " " : "", mc[i].name);
    free(mc);
    return buf;
}

static void
test_find(void)
{
    CU_ASSERT_PTR_EQUAL(sb_driver_find("dummy"), &sb_dummy_class);
    CU_ASSERT_STRING_EQUAL(sb_dummy_class.name, "dummy");
    CU_ASSERT_PTR_NULL(sb_driver_find("netconf-nonexistent"));
    CU_ASSERT_PTR_NULL(sb_driver_find(NULL));
}

static void
test_round_trip(void)
{
    struct sb_device *dev = open_dev("round_trip", "roadm-1");
    struct sb_change ch[2] = {
        add("job-a/lp0", "", "link-3", -61, 4),
        add("job-a/lp1", "link-7", "link-9", 120, 6),
    };
    struct sb_media_channel *mc = NULL;
    char err[512];
    int n = -1;

    /* A new device exists, empty, as soon as it is opened. */
    CU_ASSERT_EQUAL(access(file_of("round_trip", "roadm-1", ".json"), F_OK),
                    0);
    CU_ASSERT_STRING_EQUAL(names(dev), "");
    ch[1].mc.enabled = false;
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(dummy->read(dev, &mc, &n, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_STRING_EQUAL(mc[i].name, ch[i].mc.name);
        CU_ASSERT_STRING_EQUAL(mc[i].in_port, ch[i].mc.in_port);
        CU_ASSERT_STRING_EQUAL(mc[i].out_port, ch[i].mc.out_port);
        CU_ASSERT_EQUAL(mc[i].n, ch[i].mc.n);
        CU_ASSERT_EQUAL(mc[i].m, ch[i].mc.m);
        CU_ASSERT_EQUAL(mc[i].enabled, ch[i].mc.enabled);
    }
    free(mc);

    ch[0] = del("job-a/lp0");
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "job-a/lp1");
    /* One batch may add and then delete one name. */
    ch[0] = add("tmp", "a", "b", 0, 1);
    ch[1] = del("tmp");
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "job-a/lp1");
    CU_ASSERT_EQUAL(dummy->apply(dev, NULL, 0, err, sizeof err), 0);
    /* No temporary file is left behind. */
    CU_ASSERT_NOT_EQUAL(access(file_of("round_trip", "roadm-1", ".json.tmp"),
                               F_OK), 0);
    dummy->close(dev);
}

/* Each bad batch, and what the device says; the device keeps "keep". */
static void
test_all_or_nothing(void)
{
    struct sb_device *dev = open_dev("batch", "roadm-2");
    struct sb_change ch[3];
    char err[512];

    ch[0] = add("keep", "", "l1", 0, 4);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 1, err, sizeof err), 0);

    ch[0] = add("new-1", "", "l1", 8, 4);
    ch[1] = add("keep", "", "l2", 16, 4);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), EEXIST);
    CU_ASSERT_STRING_EQUAL(err, "roadm-2: media channel 'keep' already "
                           "exists: delete it first or read the device back; "
                           "nothing applied");

    ch[0] = add("new-1", "", "l1", 8, 4);
    ch[1] = del("keep");
    ch[2] = del("missing");
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 3, err, sizeof err), ENOENT);
    CU_ASSERT_STRING_EQUAL(err, "roadm-2: no media channel 'missing' to "
                           "delete: read the device back; nothing applied");

    ch[0] = add("new-1", "", "l1", 8, 4);
    ch[1] = add("wide", "", "l1", 1590, 12);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "roadm-2: media channel 'wide': n = 1590, "
                           "m = 12 lies outside 193.1 THz +- 10 THz (m >= 1, "
                           "|n| + m <= 1600): fix the request; nothing "
                           "applied");
    ch[1] = add("empty", "", "l1", 0, 0);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), EINVAL);
    ch[1] = add("", "", "l1", 0, 1);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "roadm-2: change 1: a media channel needs a "
                           "name of 1 to 95 bytes: fix the request; nothing "
                           "applied");
    ch[1] = add("x", "", "l1", 0, 1);
    ch[1].op = (enum sb_op) 9;
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), EINVAL);
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, -1, err, sizeof err), EINVAL);

    CU_ASSERT_STRING_EQUAL(names(dev), "keep");
    dummy->close(dev);
}

static void
test_fail_once(void)
{
    struct sb_device *dev = open_dev("once", "roadm-3");
    const char *fail = file_of("once", "roadm-3", ".fail");
    struct sb_change ch = add("a", "", "l1", 0, 4);
    char err[512], want[640];

    write_file(fail, "once\n");
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), EIO);
    snprintf(want, sizeof want, "roadm-3: injected failure (once, from %s): "
             "nothing applied; retry", fail);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_NOT_EQUAL(access(fail, F_OK), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "");
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "a");
    dummy->close(dev);
}

static void
test_fail_always(void)
{
    struct sb_device *dev = open_dev("always", "roadm-4");
    const char *fail = file_of("always", "roadm-4", ".fail");
    struct sb_change ch = add("a", "", "l1", 0, 4);
    char err[512], want[640];

    write_file(fail, "  always  ");
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), EIO);
        snprintf(want, sizeof want, "roadm-4: injected failure (always, "
                 "from %s): nothing applied; remove the file to heal the "
                 "device", fail);
        CU_ASSERT_STRING_EQUAL(err, want);
    }
    /* Reading still works: the device is there, it just refuses. */
    CU_ASSERT_STRING_EQUAL(names(dev), "");
    CU_ASSERT_EQUAL(unlink(fail), 0);
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "a");

    write_file(fail, "sometimes");
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), EINVAL);
    snprintf(want, sizeof want, "roadm-4: %s says 'sometimes': write once, "
             "always, timeout, down or refused in it, or remove it; nothing "
             "applied", fail);
    CU_ASSERT_STRING_EQUAL(err, want);
    /* A word quoted is bounded (32 bytes): cut at a character, marked,
     * where a cut at the byte (for one of the two paddings) left no
     * UTF-8. */
    for (int odd = 0; odd < 2; odd++) {
        char word[64];
        snprintf(word, sizeof word, "%s", odd ? "x" : "");
        while (strlen(word) + 2 < sizeof word)
            strcat(word, "\xc3\xa9");
        write_file(fail, word);
        CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), EINVAL);
        CU_ASSERT(lr_test_utf8("the .fail file's word", err));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, LR_UTF8_CUT_MARK "': write once"));
    }
    unlink(fail);
    dummy->close(dev);
}

static void
test_fail_timeout(void)
{
    struct sb_device *dev = open_dev("timeout", "roadm-5");
    const char *fail = file_of("timeout", "roadm-5", ".fail");
    struct sb_change ch = add("a", "", "l1", 0, 4);
    char err[512], want[640];

    write_file(fail, "timeout");
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), ETIMEDOUT);
    snprintf(want, sizeof want, "roadm-5: no answer (injected timeout, from "
             "%s): the outcome is unknown; read the device back", fail);
    CU_ASSERT_STRING_EQUAL(err, want);
    /* The change was made: only the answer was lost. */
    CU_ASSERT_STRING_EQUAL(names(dev), "a");
    /* A refused change times out too, and changes nothing. */
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), ETIMEDOUT);
    CU_ASSERT_STRING_EQUAL(names(dev), "a");
    CU_ASSERT_EQUAL(access(fail, F_OK), 0);
    unlink(fail);
    dummy->close(dev);
}

/* 'down': unreachable, reads as well as applies, nothing touched; the
 * device back once the file goes.  'refused' likewise. */
static void
test_fail_down(void)
{
    struct sb_device *dev = open_dev("down", "roadm-7");
    const char *fail = file_of("down", "roadm-7", ".fail");
    struct sb_change ch = add("a", "", "l1", 0, 4);
    struct sb_media_channel *mc = NULL;
    int n = -1;
    char err[512], want[640];

    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), 0);
    write_file(fail, "down");
    snprintf(want, sizeof want, "roadm-7: unreachable (injected 'down', "
             "from %s): nothing done; remove the file to bring the device "
             "back", fail);
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(dummy->read(dev, &mc, &n, err, sizeof err),
                    EHOSTUNREACH);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_PTR_NULL(mc);
    CU_ASSERT_EQUAL(n, 0);
    /* 'refused': the same, in ECONNREFUSED. */
    write_file(fail, "refused");
    snprintf(want, sizeof want, "roadm-7: connection refused (injected "
             "'refused', from %s): nothing done; remove the file to bring "
             "the device back", fail);
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err),
                    ECONNREFUSED);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_EQUAL(dummy->read(dev, &mc, &n, err, sizeof err),
                    ECONNREFUSED);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_PTR_NULL(mc);
    CU_ASSERT_EQUAL(unlink(fail), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "a");
    dummy->close(dev);
}

static void
test_reopen(void)
{
    struct sb_device *dev = open_dev("reopen", "roadm-6");
    struct sb_change ch[2] = {
        add("x/lp0", "", "l1", 10, 2), add("y/lp3", "l4", "", -10, 3),
    };
    char err[512];

    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 2, err, sizeof err), 0);
    dummy->close(dev);
    dev = open_dev("reopen", "roadm-6");
    CU_ASSERT_STRING_EQUAL(names(dev), "x/lp0 y/lp3");
    ch[0] = del("x/lp0");
    CU_ASSERT_EQUAL(dummy->apply(dev, ch, 1, err, sizeof err), 0);
    dummy->close(dev);
    dev = open_dev("reopen", "roadm-6");
    CU_ASSERT_STRING_EQUAL(names(dev), "y/lp3");
    dummy->close(dev);
}

static void
test_independent(void)
{
    struct sb_device *a = open_dev("two", "roadm-a");
    struct sb_device *b = open_dev("two", "roadm-b");
    struct sb_change ch = add("j/lp0", "", "l1", 0, 4);
    char err[512];

    CU_ASSERT_EQUAL(dummy->apply(a, &ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(b), "");
    /* The same name on another device is another channel. */
    CU_ASSERT_EQUAL(dummy->apply(b, &ch, 1, err, sizeof err), 0);
    write_file(file_of("two", "roadm-b", ".fail"), "always");
    ch = del("j/lp0");
    CU_ASSERT_EQUAL(dummy->apply(b, &ch, 1, err, sizeof err), EIO);
    CU_ASSERT_EQUAL(dummy->apply(a, &ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(a), "");
    CU_ASSERT_STRING_EQUAL(names(b), "j/lp0");
    unlink(file_of("two", "roadm-b", ".fail"));
    dummy->close(a);
    dummy->close(b);
}

/* Damaged state files, and what open, read and apply say. */
static const struct {
    const char *text;
    const char *why;
} damaged[] = {
    { "{ \"media-channels\": [ ",
      "is not JSON (unexpected end of data)" },
    { "[]",
      "is corrupt: no \"media-channels\" array" },
    { "{ \"media-channels\": [ { \"name\": \"a\", \"in-port\": \"\","
      " \"out-port\": \"\", \"n\": 1, \"enabled\": true } ] }",
      "is corrupt: media channel 0 has no integer \"n\" or \"m\"" },
    { "{ \"media-channels\": [ { \"name\": \"a\", \"in-port\": \"\","
      " \"out-port\": \"\", \"n\": 1, \"m\": 2, \"enabled\": true },"
      " { \"name\": \"a\", \"in-port\": \"\", \"out-port\": \"\","
      " \"n\": 1, \"m\": 2, \"enabled\": true } ] }",
      "is corrupt: media channel 'a' appears twice" },
    { "{ \"media-channels\": [ 7 ] }",
      "is corrupt: media channel 0 is not an object" },
};

static void
test_corrupt(void)
{
    struct sb_device_config c = config("corrupt", "roadm-7");
    const char *state = file_of("corrupt", "roadm-7", ".json");
    struct sb_device *dev = open_dev("corrupt", "roadm-7");
    struct sb_media_channel *mc = NULL;
    struct sb_change ch = add("a", "", "l1", 0, 4);
    char err[512], want[768];
    int n;

    for (size_t i = 0; i < sizeof damaged / sizeof damaged[0]; i++) {
        write_file(state, damaged[i].text);
        snprintf(want, sizeof want, "roadm-7: state file %s %s: fix or "
                 "remove it (removing it empties the device)", state,
                 damaged[i].why);
        CU_ASSERT_EQUAL(dummy->read(dev, &mc, &n, err, sizeof err), EINVAL);
        CU_ASSERT_STRING_EQUAL(err, want);
        CU_ASSERT_PTR_NULL(mc);
        CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), EINVAL);
        CU_ASSERT_STRING_EQUAL(err, want);

        struct sb_device *again = NULL;
        CU_ASSERT_EQUAL(dummy->open(&c, &again, err, sizeof err), EINVAL);
        CU_ASSERT_PTR_NULL(again);
        CU_ASSERT_STRING_EQUAL(err, want);
    }
    /* Removing the file empties the device. */
    CU_ASSERT_EQUAL(unlink(state), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "");
    CU_ASSERT_EQUAL(dummy->apply(dev, &ch, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(names(dev), "a");
    dummy->close(dev);
}

static void
test_bad_config(void)
{
    struct sb_device_config c = config("badcfg", "../escape");
    struct sb_device *dev = NULL;
    char err[512], want[640];

    CU_ASSERT_EQUAL(dummy->open(&c, &dev, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "device '../escape': a dummy device name "
                           "must be a file name (not empty, no '/', not '.' "
                           "or '..'): rename it in the topology");
    c = config("badcfg", "roadm-8");
    c.address[0] = '\0';
    CU_ASSERT_EQUAL(dummy->open(&c, &dev, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "roadm-8: the dummy driver needs a state "
                           "directory as its address: set one");
    c = config("no/such/parent", "roadm-8");
    CU_ASSERT_EQUAL(dummy->open(&c, &dev, err, sizeof err), EIO);
    snprintf(want, sizeof want, "roadm-8: cannot create the state directory "
             "%s: No such file or directory: create it or fix its "
             "permissions", c.address);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_PTR_NULL(dev);
}

/* A driver's message longer than the caller's buffer (the controller's
 * are 512 bytes: a recovery's, a lightpath check's) is cut with a mark,
 * at a character, so that the reason it ends up in shows that the end,
 * where what to do is, was lost; it was cut silently. */
static void
test_errf_cut(void)
{
    char said[600], e[512];
    memset(said, 'x', sizeof said - 1);
    said[sizeof said - 1] = '\0';
    memcpy(said + 508, "\xc3\xa9", 2);   /* an e-acute across the cut */
    CU_ASSERT_EQUAL(sb_errf(e, sizeof e, EIO, "roadm-1: the device "
                            "refused the batch: %s; nothing applied", said),
                    EIO);
    size_t n = strlen(e);
    CU_ASSERT(n >= sizeof e - 4 && n < sizeof e);
    CU_ASSERT_STRING_EQUAL(e + n - 6, " [...]");
    CU_ASSERT_EQUAL(strncmp(e, "roadm-1: the device refused", 27), 0);
    /* What fits is whole, unmarked. */
    CU_ASSERT_EQUAL(sb_errf(e, sizeof e, EIO, "roadm-1: %s", "no answer"),
                    EIO);
    CU_ASSERT_STRING_EQUAL(e, "roadm-1: no answer");
    /* NULL or empty buffers are not written. */
    CU_ASSERT_EQUAL(sb_errf(NULL, 0, ENOENT, "%s", said), ENOENT);
    e[0] = 'q';
    CU_ASSERT_EQUAL(sb_errf(e, 0, ENOENT, "%s", said), ENOENT);
    CU_ASSERT_EQUAL(e[0], 'q');
}

static CU_TestInfo tests[] = {
    { "a message past the buffer is cut with a mark", test_errf_cut },
    { "driver table", test_find },
    { "add, read, delete", test_round_trip },
    { "a bad batch changes nothing", test_all_or_nothing },
    { "fail once", test_fail_once },
    { "fail always", test_fail_always },
    { "timeout after applying", test_fail_timeout },
    { "down, refused: unreachable, reads too", test_fail_down },
    { "state survives close and open", test_reopen },
    { "two devices are independent", test_independent },
    { "a damaged state file", test_corrupt },
    { "bad configurations", test_bad_config },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("sb_dummy", tests, setup, teardown)
