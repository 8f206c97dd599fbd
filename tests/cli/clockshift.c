/* A wall clock set forward or back, for one process (LD_PRELOAD; built
 * by the tests that use it, tests/cli/agent_crlclock.sh and
 * agent_clockback.sh): time(), gettimeofday() and
 * clock_gettime(CLOCK_REALTIME) are shifted by the seconds written in
 * the file $LR_CLOCKSHIFT_FILE (negative: back; 0 while it is missing
 * or empty), read at each call so that a test can step the clock while
 * the process runs.  The monotonic clocks, which libevent's timers count
 * on, are left alone: a step of the wall clock does not move them
 * either. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long
clockshift_s(void)
{
    const char *file = getenv("LR_CLOCKSHIFT_FILE");
    char buf[32];
    int fd = file ? open(file, O_RDONLY) : -1;
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return strtol(buf, NULL, 10);
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))
               dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    if (!rc && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += clockshift_s();
    return rc;
}

int
gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    struct timespec ts;
    (void) tz;
    if (clock_gettime(CLOCK_REALTIME, &ts))
        return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t
time(time_t *t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t)
        *t = ts.tv_sec;
    return ts.tv_sec;
}
