/*
 * lr_util: the two helpers every planner container shares.
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

#endif
