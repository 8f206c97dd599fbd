/*
 * sb_dummy: a ROADM that lives in a directory, for tests and the demo.
 *
 * The device's state must outlive the controller (a crash test kills the
 * controller with -9 and then looks at the devices), so it is a file,
 * not memory: <address>/<name>.json, read on every operation and
 * rewritten whole on every successful apply:
 *
 *     { "device": "roadm-1",
 *       "media-channels": [
 *         { "name": "job/lp0", "in-port": "", "out-port": "l3",
 *           "n": -61, "m": 4, "enabled": true } ] }
 *
 * Atomicity: the new state is written to <name>.json.tmp, fsynced and
 * renamed over the old file, and the directory is fsynced, so that
 * whatever kills us the file is the old state or the new one, never a
 * mix.  That is the all-or-nothing of apply(): every change of a batch is
 * checked against the state it will meet (in order, so a batch may add
 * and then delete one name) before anything is written.  A missing state
 * file is an empty device, as a ROADM after a factory reset.
 *
 * Failure injection, read on every apply from <address>/<name>.fail, one
 * word:
 *   once     the next apply fails with EIO, changes nothing, and removes
 *            the file;
 *   always   every apply fails with EIO and changes nothing;
 *   timeout  every apply is carried out (or refused, as usual) and then
 *            answers ETIMEDOUT: the reply was lost, the caller must read
 *            the device back;
 *   down     every apply and every read answers EHOSTUNREACH and
 *            touches nothing: the device is unreachable (unplugged), as
 *            a netconf or restconf device without a session;
 *   refused  every apply and every read answers ECONNREFUSED and
 *            touches nothing: the host is there and nothing listens
 *            (a netconf server restarting), no answer of the device's
 *            (sb_unanswered()) in another errno than 'down's.
 *
 * Holding an apply (tests only): when the environment has
 * LIGHTRAIL_TEST_DUMMY_HOLD=1 and <address>/<name>.hold exists, apply()
 * first creates <address>/<name>.held, then waits (checking every 10 ms)
 * until the test removes the .hold file, removes .held and carries on.
 * A test so catches a job with its devices half-way, deterministically:
 * it waits for .held to appear, looks, then releases.  Without the
 * variable a stray .hold file does nothing: a daemon in production never
 * waits on a file.
 *
 * Spectrum: the dummy accepts a media channel whose edges lie within
 * 193.1 THz +- 10 THz (|n| + m <= SB_DUMMY_N_MAX in 6.25 GHz units); it
 * does not check overlaps between channels, which is the controller's
 * job (the store's slot table) and which a reconcile test may want to
 * provoke.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "planner/lr_utf8.h"
#include "southbound/sb_driver.h"

#define SB_DUMMY_N_MAX 1600
#define SB_DUMMY_PORT_MAX \
    ((int) sizeof ((struct sb_media_channel *) 0)->in_port)
#define SB_DUMMY_PATH_MAX 512

/* The device as the caller holds it: where its files are.  The caller
 * sees it as the opaque struct sb_device. */
struct sb_dummy {
    struct sb_device_config config;
    char state_path[SB_DUMMY_PATH_MAX];
    char tmp_path[SB_DUMMY_PATH_MAX];
    char fail_path[SB_DUMMY_PATH_MAX];
    char hold_path[SB_DUMMY_PATH_MAX];   /* tests only, see the top */
    char held_path[SB_DUMMY_PATH_MAX];
};

/* A device's media channels, in the order they were added. */
struct sb_dummy_state {
    struct sb_media_channel *mc;
    int n, cap;
};

static struct sb_dummy *
sb_dummy_cast(struct sb_device *dev)
{
    return (struct sb_dummy *) dev;
}

static void
sb_dummy_state_free(struct sb_dummy_state *st)
{
    free(st->mc);
    st->mc = NULL;
    st->n = st->cap = 0;
}

static int
sb_dummy_state_grow(struct sb_dummy_state *st, int need)
{
    if (need <= st->cap)
        return 0;
    int ncap = st->cap ? 2 * st->cap : 8;
    while (ncap < need)
        ncap *= 2;
    struct sb_media_channel *p = realloc(st->mc, (size_t) ncap * sizeof *p);
    if (!p)
        return ENOMEM;
    st->mc = p;
    st->cap = ncap;
    return 0;
}

static int
sb_dummy_state_find(const struct sb_dummy_state *st, const char *name)
{
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->mc[i].name, name))
            return i;
    return -1;
}

/* A device name becomes a file name. */
static bool
sb_dummy_name_ok(const char *name, size_t size)
{
    size_t n = strnlen(name, size);
    return n > 0 && n < size && !strchr(name, '/') && strcmp(name, ".")
           && strcmp(name, "..");
}

/* Reads a whole file into a new NUL-terminated string ('*text' NULL and
 * 0 returned when the file does not exist). */
static int
sb_dummy_slurp(const char *path, char **text)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ret = 0;

    *text = NULL;
    if (!f)
        return errno == ENOENT ? 0 : errno;
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? 2 * cap : 8192;
            char *p = realloc(buf, ncap);
            if (!p) {
                ret = ENOMEM;
                goto cleanup;
            }
            buf = p;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        ret = EIO;
        goto cleanup;
    }
    buf[len] = '\0';

cleanup:
    fclose(f);
    if (ret)
        free(buf);
    else
        *text = buf;
    return ret;
}

/* Copies a string member of 'obj' into dst[size]; false when it is
 * missing, not a string, or too long. */
static bool
sb_dummy_get_string(json_object *obj, const char *key, char *dst, size_t size)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v)
        || !json_object_is_type(v, json_type_string))
        return false;
    const char *s = json_object_get_string(v);
    size_t n = strlen(s);
    if (n >= size)
        return false;
    memcpy(dst, s, n + 1);
    return true;
}

static bool
sb_dummy_get_int(json_object *obj, const char *key, int *out)
{
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v)
        || !json_object_is_type(v, json_type_int))
        return false;
    int64_t x = json_object_get_int64(v);
    if (x < INT_MIN || x > INT_MAX)
        return false;
    *out = (int) x;
    return true;
}

/* Parses one media channel; NULL, or what is wrong with it. */
static const char *
sb_dummy_parse_mc(json_object *obj, struct sb_media_channel *mc)
{
    json_object *v;

    memset(mc, 0, sizeof *mc);
    if (!json_object_is_type(obj, json_type_object))
        return "is not an object";
    if (!sb_dummy_get_string(obj, "name", mc->name, sizeof mc->name)
        || !mc->name[0])
        return "has no \"name\" string of 1 to 95 bytes";
    if (!sb_dummy_get_string(obj, "in-port", mc->in_port, sizeof mc->in_port)
        || !sb_dummy_get_string(obj, "out-port", mc->out_port,
                                sizeof mc->out_port))
        return "has no \"in-port\" or \"out-port\" string of at most 63 bytes";
    if (!sb_dummy_get_int(obj, "n", &mc->n)
        || !sb_dummy_get_int(obj, "m", &mc->m))
        return "has no integer \"n\" or \"m\"";
    if (!json_object_object_get_ex(obj, "enabled", &v)
        || !json_object_is_type(v, json_type_boolean))
        return "has no boolean \"enabled\"";
    mc->enabled = json_object_get_boolean(v);
    return NULL;
}

/* Loads the device's state; a missing file is an empty device. */
static int
sb_dummy_load(const struct sb_dummy *d, struct sb_dummy_state *st, char *err,
              size_t errlen)
{
    const char *name = d->config.name;
    enum json_tokener_error jerr = json_tokener_success;
    json_object *root = NULL, *list = NULL;
    char *text = NULL;
    char why[160] = "";
    int ret;

    memset(st, 0, sizeof *st);
    ret = sb_dummy_slurp(d->state_path, &text);
    if (ret) {
        ret = sb_errf(err, errlen, EIO, "%s: cannot read %s: %s: check "
                      "the state directory", name, d->state_path,
                      strerror(ret));
        goto cleanup;
    }
    if (!text)
        goto cleanup;
    root = json_tokener_parse_verbose(text, &jerr);
    if (!root) {
        ret = sb_errf(err, errlen, EINVAL, "%s: state file %s is not "
                      "JSON (%s): fix or remove it (removing it empties "
                      "the device)", name, d->state_path,
                      json_tokener_error_desc(jerr));
        goto cleanup;
    }
    if (!json_object_is_type(root, json_type_object)
        || !json_object_object_get_ex(root, "media-channels", &list)
        || !json_object_is_type(list, json_type_array)) {
        snprintf(why, sizeof why, "no \"media-channels\" array");
        goto corrupt;
    }
    size_t n = json_object_array_length(list);
    if (n > INT_MAX / 2) {
        snprintf(why, sizeof why, "too many media channels");
        goto corrupt;
    }
    ret = sb_dummy_state_grow(st, (int) n);
    if (ret)
        goto cleanup;
    for (size_t i = 0; i < n; i++) {
        struct sb_media_channel *mc = &st->mc[i];
        const char *bad = sb_dummy_parse_mc(
            json_object_array_get_idx(list, i), mc);
        if (bad) {
            snprintf(why, sizeof why, "media channel %zu %s", i, bad);
            goto corrupt;
        }
        if (sb_dummy_state_find(st, mc->name) >= 0) {
            snprintf(why, sizeof why, "media channel '%s' appears twice",
                     mc->name);
            goto corrupt;
        }
        st->n++;
    }
    goto cleanup;

corrupt:
    ret = sb_errf(err, errlen, EINVAL, "%s: state file %s is corrupt: "
                  "%s: fix or remove it (removing it empties the "
                  "device)", name, d->state_path, why);

cleanup:
    json_object_put(root);
    free(text);
    if (ret)
        sb_dummy_state_free(st);
    return ret;
}

static int
sb_dummy_write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        buf += w;
        len -= (size_t) w;
    }
    return 0;
}

/* Builds the file's text; NULL when out of memory.  The caller frees it
 * with json_object_put() on '*root'. */
static const char *
sb_dummy_format(const struct sb_dummy *d, const struct sb_dummy_state *st,
                json_object **root)
{
    json_object *list = json_object_new_array();

    *root = json_object_new_object();
    if (!*root || !list) {
        json_object_put(list);
        return NULL;
    }
    json_object_object_add(*root, "device",
                           json_object_new_string(d->config.name));
    json_object_object_add(*root, "media-channels", list);
    for (int i = 0; i < st->n; i++) {
        const struct sb_media_channel *mc = &st->mc[i];
        json_object *o = json_object_new_object();
        if (!o)
            return NULL;
        json_object_object_add(o, "name", json_object_new_string(mc->name));
        json_object_object_add(o, "in-port",
                               json_object_new_string(mc->in_port));
        json_object_object_add(o, "out-port",
                               json_object_new_string(mc->out_port));
        json_object_object_add(o, "n", json_object_new_int(mc->n));
        json_object_object_add(o, "m", json_object_new_int(mc->m));
        json_object_object_add(o, "enabled",
                               json_object_new_boolean(mc->enabled));
        json_object_array_add(list, o);
    }
    return json_object_to_json_string_ext(
        *root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Replaces the state file by 'st' atomically (see the top comment). */
static int
sb_dummy_save(const struct sb_dummy *d, const struct sb_dummy_state *st,
              char *err, size_t errlen)
{
    json_object *root = NULL;
    const char *what = "write";
    int fd = -1, dirfd = -1;
    int ret = 0;

    const char *text = sb_dummy_format(d, st, &root);
    if (!text) {
        ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory; nothing "
                      "applied", d->config.name);
        goto cleanup;
    }
    fd = open(d->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        ret = errno;
        goto failed;
    }
    ret = sb_dummy_write_all(fd, text, strlen(text));
    if (!ret)
        ret = sb_dummy_write_all(fd, "\n", 1);
    if (!ret && fsync(fd))
        ret = errno;
    if (close(fd) && !ret)
        ret = errno;
    fd = -1;
    if (ret)
        goto failed;
    what = "rename";
    if (rename(d->tmp_path, d->state_path)) {
        ret = errno;
        goto failed;
    }
    /* The rename is durable only once the directory is on disk. */
    dirfd = open(d->config.address, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd >= 0) {
        fsync(dirfd);
        close(dirfd);
    }
    goto cleanup;

failed:
    unlink(d->tmp_path);
    ret = sb_errf(err, errlen, EIO, "%s: cannot %s %s: %s: check the "
                  "state directory; nothing applied", d->config.name,
                  what, d->tmp_path, strerror(ret));

cleanup:
    if (fd >= 0)
        close(fd);
    json_object_put(root);
    return ret;
}

enum sb_dummy_fail {
    SB_DUMMY_OK,
    SB_DUMMY_ONCE,
    SB_DUMMY_ALWAYS,
    SB_DUMMY_TIMEOUT,
    SB_DUMMY_DOWN,
    SB_DUMMY_REFUSED,
};

/* Reads the failure the test asked for, if any. */
static int
sb_dummy_read_fail(const struct sb_dummy *d, enum sb_dummy_fail *mode,
                   char *err, size_t errlen)
{
    static const char *const words[] = {
        [SB_DUMMY_ONCE] = "once",
        [SB_DUMMY_ALWAYS] = "always",
        [SB_DUMMY_TIMEOUT] = "timeout",
        [SB_DUMMY_DOWN] = "down",
        [SB_DUMMY_REFUSED] = "refused",
    };
    char *text = NULL, *word, *end;
    int ret;

    *mode = SB_DUMMY_OK;
    ret = sb_dummy_slurp(d->fail_path, &text);
    if (ret) {
        ret = sb_errf(err, errlen, EIO, "%s: cannot read %s: %s: fix "
                      "or remove it; nothing applied", d->config.name,
                      d->fail_path, strerror(ret));
        goto cleanup;
    }
    if (!text)
        goto cleanup;
    for (word = text; *word == ' ' || *word == '\t' || *word == '\n'
                      || *word == '\r'; word++)
        continue;
    for (end = word; *end && *end != ' ' && *end != '\t' && *end != '\n'
                     && *end != '\r'; end++)
        continue;
    *end = '\0';
    for (int i = SB_DUMMY_ONCE; i <= SB_DUMMY_REFUSED; i++)
        if (!strcmp(word, words[i])) {
            *mode = (enum sb_dummy_fail) i;
            goto cleanup;
        }
    ret = sb_errf(err, errlen, EINVAL, "%s: %s says '%s': write "
                  "once, always, timeout, down or refused in it, or "
                  "remove it; "
                  "nothing applied", d->config.name, d->fail_path,
                  LR_UTF8_CLIP(word, 32));

cleanup:
    free(text);
    return ret;
}

/* The answer of a device injected 'down' (EHOSTUNREACH) or 'refused'
 * (ECONNREFUSED). */
static int
sb_dummy_unreachable(const struct sb_dummy *d, enum sb_dummy_fail mode,
                     char *err, size_t errlen)
{
    if (mode == SB_DUMMY_REFUSED)
        return sb_errf(err, errlen, ECONNREFUSED, "%s: connection refused "
                       "(injected 'refused', from %s): nothing done; "
                       "remove the file to bring the device back",
                       d->config.name, d->fail_path);
    return sb_errf(err, errlen, EHOSTUNREACH, "%s: unreachable (injected "
                   "'down', from %s): nothing done; remove the file to "
                   "bring the device back", d->config.name, d->fail_path);
}

/* Applies one change to the working state 'st'. */
static int
sb_dummy_change(const struct sb_dummy *d, struct sb_dummy_state *st,
                const struct sb_change *c, int i, char *err, size_t errlen)
{
    const struct sb_media_channel *mc = &c->mc;
    const char *name = d->config.name;

    if (!mc->name[0] || !memchr(mc->name, '\0', sizeof mc->name))
        return sb_errf(err, errlen, EINVAL, "%s: change %d: a media "
                       "channel needs a name of 1 to %d bytes: fix the "
                       "request; nothing applied", name, i,
                       SB_NAME_MAX - 1);
    int at = sb_dummy_state_find(st, mc->name);
    switch (c->op) {
    case SB_ADD:
        if (at >= 0)
            return sb_errf(err, errlen, EEXIST, "%s: media channel "
                           "'%s' already exists: delete it first or "
                           "read the device back; nothing applied",
                           name, mc->name);
        if (!memchr(mc->in_port, '\0', sizeof mc->in_port)
            || !memchr(mc->out_port, '\0', sizeof mc->out_port))
            return sb_errf(err, errlen, EINVAL, "%s: media channel "
                           "'%s': a port name is longer than %d bytes: "
                           "fix the request; nothing applied", name,
                           mc->name, SB_DUMMY_PORT_MAX - 1);
        if (mc->m < 1 || mc->m > SB_DUMMY_N_MAX || mc->n < -SB_DUMMY_N_MAX
            || mc->n > SB_DUMMY_N_MAX
            || abs(mc->n) + mc->m > SB_DUMMY_N_MAX)
            return sb_errf(err, errlen, EINVAL, "%s: media channel "
                           "'%s': n = %d, m = %d lies outside 193.1 THz "
                           "+- 10 THz (m >= 1, |n| + m <= %d): fix the "
                           "request; nothing applied", name, mc->name,
                           mc->n, mc->m, SB_DUMMY_N_MAX);
        if (sb_dummy_state_grow(st, st->n + 1))
            return sb_errf(err, errlen, ENOMEM, "%s: out of memory; "
                           "nothing applied", name);
        st->mc[st->n++] = *mc;
        return 0;
    case SB_DELETE:
        if (at < 0)
            return sb_errf(err, errlen, ENOENT, "%s: no media channel "
                           "'%s' to delete: read the device back; "
                           "nothing applied", name, mc->name);
        memmove(&st->mc[at], &st->mc[at + 1],
                (size_t) (st->n - at - 1) * sizeof *st->mc);
        st->n--;
        return 0;
    case SB_REINSTALL:        /* not this driver's (sb_driver.h) */
        break;
    }
    return sb_errf(err, errlen, EINVAL, "%s: change %d: unknown "
                   "operation %d; nothing applied", name, i,
                   (int) c->op);
}

/* The test hold (see the top); only with LIGHTRAIL_TEST_DUMMY_HOLD=1. */
static void
sb_dummy_hold(const struct sb_dummy *d)
{
    const char *knob = getenv("LIGHTRAIL_TEST_DUMMY_HOLD");
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    if (!knob || strcmp(knob, "1") || access(d->hold_path, F_OK))
        return;
    int fd = open(d->held_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    while (!access(d->hold_path, F_OK))
        nanosleep(&tick, NULL);
    unlink(d->held_path);
}

static int
sb_dummy_apply(struct sb_device *dev, const struct sb_change *changes, int n,
               char *err, size_t errlen)
{
    struct sb_dummy *d = sb_dummy_cast(dev);
    struct sb_dummy_state st = { 0 };
    enum sb_dummy_fail mode;
    int ret;

    if (n < 0 || (n && !changes))
        return sb_errf(err, errlen, EINVAL, "%s: %d changes: fix the "
                       "request", d->config.name, n);
    sb_dummy_hold(d);
    ret = sb_dummy_read_fail(d, &mode, err, errlen);
    if (ret)
        goto cleanup;
    if (mode == SB_DUMMY_DOWN || mode == SB_DUMMY_REFUSED) {
        ret = sb_dummy_unreachable(d, mode, err, errlen);
        goto cleanup;
    }
    if (mode == SB_DUMMY_ONCE || mode == SB_DUMMY_ALWAYS) {
        if (mode == SB_DUMMY_ONCE)
            unlink(d->fail_path);
        ret = sb_errf(err, errlen, EIO, "%s: injected failure (%s, "
                      "from %s): nothing applied; %s", d->config.name,
                      mode == SB_DUMMY_ONCE ? "once" : "always",
                      d->fail_path, mode == SB_DUMMY_ONCE
                      ? "retry" : "remove the file to heal the device");
        goto cleanup;
    }
    ret = sb_dummy_load(d, &st, err, errlen);
    for (int i = 0; !ret && i < n; i++)
        ret = sb_dummy_change(d, &st, &changes[i], i, err, errlen);
    if (!ret)
        ret = sb_dummy_save(d, &st, err, errlen);
    /* The reply is lost whatever the device did. */
    if (mode == SB_DUMMY_TIMEOUT)
        ret = sb_errf(err, errlen, ETIMEDOUT, "%s: no answer (injected "
                      "timeout, from %s): the outcome is unknown; read "
                      "the device back", d->config.name, d->fail_path);

cleanup:
    sb_dummy_state_free(&st);
    return ret;
}

static int
sb_dummy_read(struct sb_device *dev, struct sb_media_channel **out, int *n,
              char *err, size_t errlen)
{
    struct sb_dummy *d = sb_dummy_cast(dev);
    struct sb_dummy_state st;
    int ret;

    *out = NULL;
    *n = 0;
    /* Only 'down' and 'refused' stop a read; a .fail file that does not
     * read as a mode is an apply's refusal, as before reads looked at
     * it. */
    enum sb_dummy_fail mode;
    char ignore[8];
    if (!sb_dummy_read_fail(d, &mode, ignore, sizeof ignore)
        && (mode == SB_DUMMY_DOWN || mode == SB_DUMMY_REFUSED))
        return sb_dummy_unreachable(d, mode, err, errlen);
    ret = sb_dummy_load(d, &st, err, errlen);
    if (ret)
        return ret;
    /* Never NULL on success, even for an empty device. */
    if (!st.mc && sb_dummy_state_grow(&st, 1))
        return sb_errf(err, errlen, ENOMEM, "%s: out of memory",
                       d->config.name);
    *out = st.mc;
    *n = st.n;
    return 0;
}

static void
sb_dummy_close(struct sb_device *dev)
{
    free(sb_dummy_cast(dev));
}

static int
sb_dummy_path(char *dst, const struct sb_device_config *c, const char *ext)
{
    int len = snprintf(dst, SB_DUMMY_PATH_MAX, "%s/%s%s", c->address, c->name,
                       ext);
    return len < 0 || len >= SB_DUMMY_PATH_MAX ? ENAMETOOLONG : 0;
}

static int
sb_dummy_check(const struct sb_device_config *config, char *err,
               size_t errlen)
{
    char path[SB_DUMMY_PATH_MAX];
    if (!sb_dummy_name_ok(config->name, sizeof config->name))
        return sb_errf(err, errlen, EINVAL, "device '%.63s': a dummy "
                       "device name must be a file name (not empty, no "
                       "'/', not '.' or '..'): rename it in the "
                       "topology", config->name);
    if (!config->address[0]
        || !memchr(config->address, '\0', sizeof config->address))
        return sb_errf(err, errlen, EINVAL, "%s: the dummy driver needs "
                       "a state directory as its address: set one",
                       config->name);
    if (sb_dummy_path(path, config, ".json.tmp"))
        return sb_errf(err, errlen, EINVAL, "%s: the state path under %s "
                       "is too long: use a shorter directory",
                       config->name, config->address);
    return 0;
}

static int
sb_dummy_open(const struct sb_device_config *config, struct sb_device **out,
              char *err, size_t errlen)
{
    struct sb_dummy *d = NULL;
    struct sb_dummy_state st = { 0 };
    struct stat sb;
    int ret = 0;

    *out = NULL;
    if ((ret = sb_dummy_check(config, err, errlen)))
        goto cleanup;
    d = calloc(1, sizeof *d);
    if (!d) {
        ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory",
                      config->name);
        goto cleanup;
    }
    d->config = *config;
    if (sb_dummy_path(d->state_path, config, ".json")
        || sb_dummy_path(d->tmp_path, config, ".json.tmp")
        || sb_dummy_path(d->fail_path, config, ".fail")
        || sb_dummy_path(d->hold_path, config, ".hold")
        || sb_dummy_path(d->held_path, config, ".held")) {
        ret = sb_errf(err, errlen, ENAMETOOLONG, "%s: the state path "
                      "under %s is too long: use a shorter directory",
                      config->name, config->address);
        goto cleanup;
    }
    if (mkdir(config->address, 0755) && errno != EEXIST) {
        ret = sb_errf(err, errlen, EIO, "%s: cannot create the state "
                      "directory %s: %s: create it or fix its "
                      "permissions", config->name, config->address,
                      strerror(errno));
        goto cleanup;
    }
    /* A device that exists is checked now, so that a damaged file shows
     * at connection time; a new one gets its empty state file, so that
     * it shows up to whoever inspects the directory. */
    if (stat(d->state_path, &sb) == 0)
        ret = sb_dummy_load(d, &st, err, errlen);
    else
        ret = sb_dummy_save(d, &st, err, errlen);

cleanup:
    sb_dummy_state_free(&st);
    if (ret) {
        free(d);
        d = NULL;
    }
    *out = (struct sb_device *) d;
    return ret;
}

const struct sb_driver_class sb_dummy_class = {
    .name = "dummy",
    .check = sb_dummy_check,
    .open = sb_dummy_open,
    .apply = sb_dummy_apply,
    .read = sb_dummy_read,
    .close = sb_dummy_close,
};
