/*
 * lr_log: lightraild's log, to stderr (with a UTC timestamp) or syslog.
 */
#ifndef LR_LOG_H
#define LR_LOG_H 1

#include <stdbool.h>

enum lr_log_level { LR_LOG_ERR, LR_LOG_WARN, LR_LOG_INFO, LR_LOG_DEBUG };

/* Sends everything to syslog (ident "lightraild") from now on. */
void lr_log_use_syslog(bool);
void lr_log(enum lr_log_level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
