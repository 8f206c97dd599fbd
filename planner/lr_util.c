/* lr_util: see lr_util.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_util.h"

int
lr_grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, (size_t) ncap * elem);
    if (!p)
        return ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

int
lr_copy_name(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n == 0 || n >= size)
        return EINVAL;
    memcpy(dst, src, n + 1);
    return 0;
}

void
lr_set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!err || !len)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* The length of the run of decimal digits at 's'. */
static size_t
util_digits(const char *s)
{
    return strspn(s, "0123456789");
}

/* Whether the whole of 's' is [+-]digits[.digits][(e|E)[+-]digits] or
 * [+-].digits[(e|E)[+-]digits].  strtod() takes more than that: hex
 * ("0x1p3" is 8), leading white space, "inf", "nan", "5.", and in
 * another locale a comma; each would be a number its writer never
 * meant as one, so only what a person or "%g" writes is let through. */
static int
util_is_decimal(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    size_t whole = util_digits(p);
    p += whole;
    if (*p == '.') {
        size_t frac = util_digits(p + 1);
        if (!frac)
            return 0;
        p += 1 + frac;
    } else if (!whole)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t exp = util_digits(p);
        if (!exp)
            return 0;
        p += exp;
    }
    return *p == '\0';
}

int
lr_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    if (!util_is_decimal(s))
        return EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo) || !(v <= hi))
        return EINVAL;
    *out = v;
    return 0;
}

/* Whether the whole of 's' is [+-]digits.  strtol() also skips leading
 * white space (" 12" is 12); '+' is let through, as util_is_decimal()
 * lets it through, so that one rule holds for every number. */
static int
util_is_whole(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    size_t n = util_digits(p);
    return n && p[n] == '\0';
}

int
lr_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!util_is_whole(s))
        return EINVAL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return EINVAL;
    *out = v;
    return 0;
}
