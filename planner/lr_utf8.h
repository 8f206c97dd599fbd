/*
 * lr_utf8: text from elsewhere (a client's path, a device's message, a
 * reason cut inside a character) made valid UTF-8 before it goes into
 * JSON, which must be UTF-8 (RFC 8259, section 8.1): every byte that
 * starts no well-formed sequence (RFC 3629: no overlong forms, no
 * surrogates, at most U+10FFFF) becomes U+FFFD.  Header only, so that
 * the northbound server (no libyang) and the YANG printers share it
 * without a library between them.
 *
 * And text that must fit a fixed buffer (a job's reason and note,
 * controller/lr_job.h), or a bound inside a message (LR_UTF8_CLIP), cut
 * so that a reader sees it was: at the start of a character, ending
 * with LR_UTF8_CUT_MARK.
 */
#ifndef LR_UTF8_H
#define LR_UTF8_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What ends a text lr_utf8_vappendf() had to cut. */
#define LR_UTF8_CUT_MARK " [...]"

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

/* Whether the text in buf[size] is one lr_utf8_mark_cut() cut: it ends
 * with the mark, within the 3 bytes it may have backed off of the end. */
static inline bool
lr_utf8_is_cut(const char *buf, size_t size)
{
    size_t n = strlen(buf), m = sizeof LR_UTF8_CUT_MARK - 1;
    return n >= m && n + 4 >= size && !strcmp(buf + n - m, LR_UTF8_CUT_MARK);
}

/* Ends buf[size] (size > sizeof LR_UTF8_CUT_MARK), full to size - 1
 * bytes, with LR_UTF8_CUT_MARK put at the start of a character: the
 * continuation bytes (10xxxxxx) of the character it would split, at most
 * 3, go with the cut. */
static inline void
lr_utf8_mark_cut(char *buf, size_t size)
{
    size_t m = sizeof LR_UTF8_CUT_MARK - 1, keep = size - 1 - m;
    for (int i = 0; i < 3 && keep
                    && ((unsigned char) buf[keep] & 0xc0) == 0x80; i++)
        keep--;
    memcpy(buf + keep, LR_UTF8_CUT_MARK, m + 1);
}

/* vsnprintf() appended to the text in buf[size] (size >
 * sizeof LR_UTF8_CUT_MARK): true when it did not fit and the text was cut
 * by lr_utf8_mark_cut(), false when whole.  A text cut already stays as
 * it is: what follows the cut is lost with it. */
static inline bool
lr_utf8_vappendf(char *buf, size_t size, const char *fmt, va_list ap)
{
    size_t n = strlen(buf);
    if (lr_utf8_is_cut(buf, size))
        return vsnprintf(NULL, 0, fmt, ap) != 0;
    int w = vsnprintf(buf + n, size - n, fmt, ap);
    if (w < 0 || n + (size_t) w < size)
        return false;
    lr_utf8_mark_cut(buf, size);
    return true;
}

/* vsnprintf() into buf[size], a cut marked as lr_utf8_vappendf() marks
 * it when the mark fits (size > sizeof LR_UTF8_CUT_MARK), unmarked in a
 * buffer too small for it: the errors of the drivers (sb_errf) and of
 * lr_ctl (lr_ctl_fail), where a device's message may be long. */
static inline void
lr_utf8_vsetf(char *buf, size_t size, const char *fmt, va_list ap)
{
    if (size > sizeof LR_UTF8_CUT_MARK) {
        buf[0] = '\0';
        lr_utf8_vappendf(buf, size, fmt, ap);
    } else {
        vsnprintf(buf, size, fmt, ap);
    }
}

static inline bool __attribute__((format(printf, 3, 4)))
lr_utf8_appendf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool cut = lr_utf8_vappendf(buf, size, fmt, ap);
    va_end(ap);
    return cut;
}

/* 's' copied into buf[size] (size > sizeof LR_UTF8_CUT_MARK): whole
 * when it has at most size - 1 bytes, else cut by lr_utf8_mark_cut() (at
 * the start of a character, marked).  Returns buf. */
static inline const char *
lr_utf8_clip(char *buf, size_t size, const char *s)
{
    buf[0] = '\0';
    lr_utf8_appendf(buf, size, "%s", s);
    return buf;
}

/* Another layer's text (a device's message, a path, a client's header),
 * at most 'max' bytes of it, for a "%s" of a message: "%.<max>s" cuts
 * at a byte, maybe inside a character, and the message is then no UTF-8
 * (no JSON, a reason the store keeps broken).  'max' is a constant
 * greater than sizeof LR_UTF8_CUT_MARK; the copy is a compound literal,
 * which lives until the end of the enclosing block: pass it straight to
 * the call that prints it. */
#define LR_UTF8_CLIP(s, max) \
    lr_utf8_clip((char[(max) + 1]){ "" }, (max) + 1, (s))

#endif
