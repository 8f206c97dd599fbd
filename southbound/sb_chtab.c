/* sb_chtab: a device's media channels as a driver knows them; see
 * sb_chtab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "southbound/sb_chtab.h"

int
sb_chtab_grow(struct sb_chtab *t, int need)
{
    if (need <= t->cap)
        return 0;
    int ncap = t->cap ? 2 * t->cap : 16;
    while (ncap < need)
        ncap *= 2;
    struct sb_chent *p = realloc(t->e, (size_t) ncap * sizeof *p);
    if (!p)
        return ENOMEM;
    t->e = p;
    t->cap = ncap;
    return 0;
}

int
sb_chtab_add(struct sb_chtab *t, const struct sb_chent *e)
{
    if (sb_chtab_grow(t, t->n + 1))
        return ENOMEM;
    t->e[t->n++] = *e;
    return 0;
}

void
sb_chtab_set(struct sb_chtab *t, const struct sb_chent *e, int n)
{
    if (sb_chtab_grow(t, n)) {
        t->ok = false;
        return;
    }
    if (n)
        memcpy(t->e, e, (size_t) n * sizeof *e);
    t->n = n;
}

void
sb_chtab_free(struct sb_chtab *t)
{
    free(t->e);
    t->e = NULL;
    t->n = t->cap = 0;
    t->ok = false;
}

bool
sb_chtab_snapshot(const struct sb_chtab *t, struct sb_chent **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (!t->ok)
        return false;
    if (t->n) {
        if (!(*out = malloc((size_t) t->n * sizeof **out)))
            return false;
        memcpy(*out, t->e, (size_t) t->n * sizeof **out);
        *n = t->n;
    }
    return true;
}

bool
sb_chtab_holds(const struct sb_chtab *t, const struct sb_chent *e, int n)
{
    if (t->n != n)
        return false;
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (int k = 0; k < n && !found; k++)
            found = e[i].index == t->e[k].index
                    && !strcmp(e[i].mc.name, t->e[k].mc.name);
        if (!found)
            return false;
    }
    return true;
}

int
sb_chtab_find(const struct sb_chent *e, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(e[i].mc.name, name))
            return i;
    return -1;
}

int
sb_chtab_read(const struct sb_chtab *t, const char *dev,
              struct sb_media_channel **out, int *n, char *err,
              size_t errlen)
{
    *out = malloc(((size_t) t->n + 1) * sizeof **out);
    *n = 0;
    if (!*out)
        return sb_errf(err, errlen, ENOMEM, "%s: out of memory", dev);
    for (int i = 0; i < t->n; i++)
        (*out)[i] = t->e[i].mc;
    *n = t->n;
    return 0;
}

bool
sb_chtab_has_index(const struct sb_chtab *t, uint32_t index)
{
    for (int i = 0; i < t->n; i++)
        if (t->e[i].index == index)
            return true;
    return false;
}

/* The lowest index >= 'from' (>= 1) that no entry of e[0..n-1] holds
 * and no entry of 't' held, or 0 when none is left.  O(n + t->n) per
 * index tried. */
static uint32_t
sb_chtab_free_index(const struct sb_chtab *t, const struct sb_chent *e,
                    int n, uint32_t from)
{
    for (uint32_t x = from; x != 0; x++) {
        bool held = sb_chtab_has_index(t, x);
        for (int i = 0; i < n && !held; i++)
            held = e[i].index == x;
        if (!held)
            return x;
    }
    return 0;
}

int
sb_chtab_plan(const struct sb_chtab *t, const char *dev,
              const struct sb_change *changes, int n,
              struct sb_chent **workp, int *n_workp,
              struct sb_chstep **stepsp, char *err,
              size_t errlen)
{
    struct sb_chent *work = malloc(((size_t) t->n + (size_t) n + 1)
                                   * sizeof *work);
    struct sb_chstep *steps = malloc(((size_t) n + 1) * sizeof *steps);
    int n_work = t->n, ret = 0;
    uint32_t next = 1;

    *workp = NULL;
    *stepsp = NULL;
    *n_workp = 0;
    if (!work || !steps) {
        ret = sb_errf(err, errlen, ENOMEM, "%s: out of memory; "
                      "nothing applied", dev);
        goto fail;
    }
    if (t->n)
        memcpy(work, t->e, (size_t) t->n * sizeof *work);
    bool top_taken = false;
    for (int i = 0; i < n_work; i++) {
        if (work[i].index >= next)
            next = work[i].index + 1;
        top_taken = top_taken || work[i].index == UINT32_MAX;
    }
    /* Above every index held, unless one holds the top (a device may
     * key a channel of its own so): then the lowest free ones. */
    if (top_taken)
        next = sb_chtab_free_index(t, work, n_work, 1);
    for (int i = 0; i < n; i++) {
        const struct sb_media_channel *mc = &changes[i].mc;
        if (!mc->name[0] || !memchr(mc->name, '\0', sizeof mc->name)) {
            ret = sb_errf(err, errlen, EINVAL, "%s: change %d: a "
                          "media channel needs a name of 1 to %d "
                          "bytes: fix the request; nothing applied",
                          dev, i, SB_NAME_MAX - 1);
            goto fail;
        }
        int at = sb_chtab_find(work, n_work, mc->name);
        if (changes[i].op == SB_ADD) {
            if (at >= 0) {
                ret = sb_errf(err, errlen, EEXIST, "%s: media channel "
                              "'%s' already exists: delete it first "
                              "or read the device back; nothing "
                              "applied", dev, mc->name);
                goto fail;
            }
            if (next == 0) {
                ret = sb_errf(err, errlen, ENOSPC, "%s: no channel "
                              "index left; nothing applied", dev);
                goto fail;
            }
            steps[i] = (struct sb_chstep) {
                .create = true, .e = { .index = next, .mc = *mc } };
            work[n_work++] = steps[i].e;
            next = top_taken ? sb_chtab_free_index(t, work, n_work, next + 1)
                             : next + 1;
        } else if (changes[i].op == SB_DELETE) {
            if (at < 0) {
                ret = sb_errf(err, errlen, ENOENT, "%s: no media "
                              "channel '%s' to delete: read the "
                              "device back; nothing applied", dev,
                              mc->name);
                goto fail;
            }
            steps[i] = (struct sb_chstep) { .create = false, .e = work[at] };
            work[at] = work[--n_work];
        } else {
            ret = sb_errf(err, errlen, EINVAL, "%s: change %d: unknown "
                          "operation %d; nothing applied", dev, i,
                          (int) changes[i].op);
            goto fail;
        }
    }
    *workp = work;
    *n_workp = n_work;
    *stepsp = steps;
    return 0;

fail:
    free(work);
    free(steps);
    return ret;
}

/* A whole decimal number of 'text' in [lo, hi]. */
static bool
sb_grid_number(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    if (!text || !*text)
        return false;
    errno = 0;
    long long x = strtoll(text, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

static bool
sb_grid_ok(long long n, long long m, int *np, int *mp)
{
    if (n < -SB_GRID_MAX || n > SB_GRID_MAX || m < 1 || m > SB_GRID_MAX)
        return false;
    *np = (int) n;
    *mp = (int) m;
    return true;
}

bool
sb_grid_from_edges(const char *lower_mhz, const char *upper_mhz, int *n,
                   int *m, long long *lo, long long *up)
{
    long long l, u;
    if (!sb_grid_number(lower_mhz, 1, 1000000000LL, &l)
        || !sb_grid_number(upper_mhz, 1, 1000000000LL, &u) || u <= l)
        return false;
    if (lo)
        *lo = l;
    if (up)
        *up = u;
    /* centre - 193.1 THz in 6.25 GHz, width in 12.5 GHz */
    return sb_grid_ok((l + u - 2 * SB_GRID_BASE_MHZ) / (2 * SB_GRID_SLOT_MHZ),
                      (u - l) / (2 * SB_GRID_SLOT_MHZ), n, m);
}

bool
sb_grid_from_nm(const char *n_text, const char *m_text, int *n, int *m)
{
    long long a, b;
    return sb_grid_number(n_text, -SB_GRID_MAX, SB_GRID_MAX, &a)
           && sb_grid_number(m_text, 1, SB_GRID_MAX, &b)
           && sb_grid_ok(a, b, n, m);
}
