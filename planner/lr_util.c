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

int
lr_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo) || !(v <= hi))
        return EINVAL;
    *out = v;
    return 0;
}
