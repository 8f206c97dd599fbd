/*
 * sb_kept: what a driver's check_files read, kept for open() (see
 * sb_kept.h).  A list: a start holds as many entries as devices, and
 * each is looked up once.
 */
#include <stdlib.h>
#include <string.h>

#include "southbound/sb_kept.h"

struct sb_kept_entry {
    struct sb_kept_entry *next;
    void *value;
    size_t len;
    size_t key_len;
    char key[];         /* the key's strings, each with its NUL */
};

/* The bytes of 'key' as an entry holds them. */
static size_t
sb_kept_key_len(const char *const *key)
{
    size_t n = 0;
    for (; *key; key++)
        n += strlen(*key) + 1;
    return n;
}

static void
sb_kept_key_copy(char *to, const char *const *key)
{
    for (; *key; key++) {
        size_t n = strlen(*key) + 1;
        memcpy(to, *key, n);
        to += n;
    }
}

static int
sb_kept_key_is(const struct sb_kept_entry *e, const char *const *key)
{
    const char *k = e->key, *end = e->key + e->key_len;
    for (; *key; key++) {
        size_t n = strlen(*key) + 1;
        if ((size_t) (end - k) < n || memcmp(k, *key, n))
            return 0;
        k += n;
    }
    return k == end;
}

/* Unlinks the entry of 'key' and returns it, or NULL; the lock held. */
static struct sb_kept_entry *
sb_kept_unlink(struct sb_kept *kept, const char *const *key)
{
    for (struct sb_kept_entry **p = &kept->head; *p; p = &(*p)->next)
        if (sb_kept_key_is(*p, key)) {
            struct sb_kept_entry *e = *p;
            *p = e->next;
            return e;
        }
    return NULL;
}

static void
sb_kept_entry_free(struct sb_kept *kept, struct sb_kept_entry *e)
{
    if (e) {
        kept->free_value(e->value);
        free(e);
    }
}

void
sb_kept_drop(struct sb_kept *kept, const char *const *key)
{
    pthread_mutex_lock(&kept->lock);
    struct sb_kept_entry *e = sb_kept_unlink(kept, key);
    pthread_mutex_unlock(&kept->lock);
    sb_kept_entry_free(kept, e);
}

void
sb_kept_put(struct sb_kept *kept, const char *const *key, void *value,
            size_t len)
{
    size_t key_len = sb_kept_key_len(key);
    struct sb_kept_entry *e = malloc(sizeof *e + key_len), *old;
    if (!e) {
        kept->free_value(value);
        return;
    }
    e->value = value;
    e->len = len;
    e->key_len = key_len;
    sb_kept_key_copy(e->key, key);
    /* One lock for both: two checks of one device leave one entry. */
    pthread_mutex_lock(&kept->lock);
    old = sb_kept_unlink(kept, key);
    e->next = kept->head;
    kept->head = e;
    pthread_mutex_unlock(&kept->lock);
    sb_kept_entry_free(kept, old);
}

void *
sb_kept_take(struct sb_kept *kept, const char *const *key, size_t *len)
{
    pthread_mutex_lock(&kept->lock);
    struct sb_kept_entry *e = sb_kept_unlink(kept, key);
    pthread_mutex_unlock(&kept->lock);
    if (!e)
        return NULL;
    void *value = e->value;
    if (len)
        *len = e->len;
    free(e);
    return value;
}

void
sb_kept_clear(struct sb_kept *kept)
{
    pthread_mutex_lock(&kept->lock);
    struct sb_kept_entry *e = kept->head;
    kept->head = NULL;
    pthread_mutex_unlock(&kept->lock);
    while (e) {
        struct sb_kept_entry *next = e->next;
        sb_kept_entry_free(kept, e);
        e = next;
    }
}
