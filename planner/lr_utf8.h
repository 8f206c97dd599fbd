/*
 * lr_utf8: text from elsewhere (a client's path, a device's message, a
 * reason cut inside a character) made valid UTF-8 before it goes into
 * JSON, which must be UTF-8 (RFC 8259, section 8.1): every byte that
 * starts no well-formed sequence (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF) becomes U+FFFD.  Header only, so that
 * the northbound server (no libyang) and the YANG printers share it
 * without a library between them.
 */
#ifndef LR_UTF8_H
#define LR_UTF8_H 1

#include <stdlib.h>
#include <string.h>

/* Bytes of the UTF-8 sequence at s, or 0 when there is none.  Reads no
 * further than a byte that ends the sequence early, the NUL included. */
static inline size_t
lr_utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f)
        || (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* 's' made valid UTF-8, as a new string the caller frees (NULL: out of
 * memory). */
static inline char *
lr_utf8_dup(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(3 * len + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *) s; *p;) {
        size_t n = lr_utf8_len(p);
        if (n) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    return out;
}

#endif
