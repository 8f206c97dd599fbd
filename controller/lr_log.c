/* lr_log: see lr_log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include <sys/time.h>
#include <time.h>

#include "controller/lr_log.h"

static bool use_syslog;

void
lr_log_use_syslog(bool on)
{
    if (on && !use_syslog)
        openlog("lightraild", LOG_PID, LOG_DAEMON);
    use_syslog = on;
}

void
lr_log(enum lr_log_level level, const char *fmt, ...)
{
    static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
    static const char *const name[] = { "error", "warning", "info", "debug" };
    va_list ap;
    va_start(ap, fmt);
    if (use_syslog) {
        vsyslog(prio[level], fmt, ap);
    } else {
        struct timeval tv;
        struct tm tm;
        char stamp[32];
        gettimeofday(&tv, NULL);
        gmtime_r(&tv.tv_sec, &tm);
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
        fprintf(stderr, "%s.%03dZ lightraild %s: ", stamp,
                (int) (tv.tv_usec / 1000), name[level]);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}
