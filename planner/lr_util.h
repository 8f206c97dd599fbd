/*
 * lr_util: the helpers the planner's modules share.
 */
#ifndef LR_UTIL_H
#define LR_UTIL_H 1

#include <stddef.h>

/* Makes room for at least 'need' elements of 'elem' bytes in '*arr', whose
 * capacity is '*cap', doubling it.  Returns 0 or ENOMEM (then '*arr' is
 * unchanged). */
int lr_grow(void **arr, int *cap, int need, size_t elem);

/* Copies NUL-terminated 'src' into 'dst' of 'size' bytes.  EINVAL when
 * 'src' is NULL, empty, or does not fit. */
int lr_copy_name(char *dst, size_t size, const char *src);

/* Writes the printf-style message into 'err' of 'len' bytes (cut to
 * fit); nothing when 'err' is NULL or 'len' 0, for callers that want no
 * reason. */
void lr_set_err(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads the whole of 's' as a plain decimal number within [lo, hi] into
 * '*out': [+-]digits[.digits][e[+-]digits] or [+-].digits[e[+-]digits]
 * ('E' as well as 'e').  0, or EINVAL (nothing written) for anything
 * else (hex, white space, "inf", "nan", "5.", trailing text), overflow
 * or a value out of range. */
int lr_parse_double(const char *s, double lo, double hi, double *out);

/* Reads the whole of 's' as a whole number, [+-]digits in base 10, within
 * [lo, hi] into '*out': the integers lr_parse_double() would read, and
 * only those.  0, or EINVAL (nothing written) for anything else (white
 * space, hex, a point or an exponent, trailing text), overflow or a
 * value out of range. */
int lr_parse_long(const char *s, long lo, long hi, long *out);

#endif
