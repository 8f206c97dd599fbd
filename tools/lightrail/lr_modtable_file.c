/*
 * lr_modtable_file: see lr_modtable_file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/lr_modulation.h"
#include "tools/lightrail/lr_modtable_file.h"

/* "PATH: REASON: give ..." for a file that cannot be read (errno 'rc'). */
static int
lr_modtable_unreadable(char *err, size_t errlen, int rc, const char *path,
                       const char *opt)
{
    snprintf(err, errlen, "%s: %s: give the path of a readable modulation "
             "CSV%s%s%s", path, strerror(rc), opt ? " (or leave " : "",
             opt ? opt : "", opt ? " out for the default table)" : "");
    return rc;
}

/* "PATH: the file is empty: give ..." (EINVAL).  Said here, where the
 * file is known: the parser, given no text, would say "line 1:
 * expected the header", which reads as a header written wrong. */
static int
lr_modtable_empty(char *err, size_t errlen, const char *path,
                  const char *opt)
{
    snprintf(err, errlen, "%s: the file is empty: give a modulation CSV, "
             "the header name,maximum_length,spectral_efficiency and a line "
             "per format%s%s%s", path, opt ? " (or leave " : "",
             opt ? opt : "", opt ? " out for the default table)" : "");
    return EINVAL;
}

/* The parser's message 'e' made one line of a log, in place: it quotes
 * the file's cells, whose control characters become a space each, C0
 * and DEL (one byte) as C1 (U+0080..U+009F, the two bytes 0xc2 0x80..
 * 0x9f; U+009B is a terminal's CSI, U+0085 a line break to some). */
static void
lr_modtable_one_line(char *e)
{
    unsigned char *in = (unsigned char *) e, *out = in;
    for (; *in; in++) {
        if (in[0] == 0xc2 && in[1] >= 0x80 && in[1] <= 0x9f) {
            *out++ = ' ';
            in++;
        } else {
            *out++ = *in < 0x20 || *in == 0x7f ? ' ' : *in;
        }
    }
    *out = '\0';
}

/* The file at 'path' opened for reading in '*f', or an errno value with
 * the line in err[].  Non-blocking, and a regular file only: a FIFO
 * with no writer would block open() for good, and lightraild and
 * lightrail-check would never start nor say why (lr_policy_load()
 * refuses one alike).  A directory keeps strerror's reason. */
static int
lr_modtable_open(const char *path, const char *opt, FILE **f, char *err,
                 size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = 0;
    if (fd < 0)
        return lr_modtable_unreadable(err, errlen, errno ? errno : EIO,
                                      path, opt);
    if (fstat(fd, &st)) {
        rc = lr_modtable_unreadable(err, errlen, errno ? errno : EIO, path,
                                    opt);
    } else if (S_ISDIR(st.st_mode)) {
        rc = lr_modtable_unreadable(err, errlen, EISDIR, path, opt);
    } else if (!S_ISREG(st.st_mode)) {
        rc = EINVAL;
        snprintf(err, errlen, "%s: not a regular file: give the path of a "
                 "readable modulation CSV%s%s%s", path,
                 opt ? " (or leave " : "", opt ? opt : "",
                 opt ? " out for the default table)" : "");
    } else if (!(*f = fdopen(fd, "rb"))) {
        rc = lr_modtable_unreadable(err, errlen, errno ? errno : EIO, path,
                                    opt);
    } else {
        return 0;   /* fd is *f's now */
    }
    close(fd);
    return rc;
}

int
lr_modtable_load(const char *path, const char *opt, struct lr_modtable *t,
                 char *err, size_t errlen)
{
    char *text = malloc(LR_MODTABLE_FILE_MAX + 1), e[512];
    FILE *f = NULL;
    size_t len = 0;
    int rc = 0;
    if (!text) {
        rc = ENOMEM;
        snprintf(err, errlen, "%s: out of memory reading it", path);
        goto cleanup;
    }
    if ((rc = lr_modtable_open(path, opt, &f, err, errlen)))
        goto cleanup;
    /* One byte past the limit tells a file at the limit from a larger
     * one. */
    len = fread(text, 1, LR_MODTABLE_FILE_MAX + 1, f);
    if (ferror(f)) {
        rc = lr_modtable_unreadable(err, errlen, errno ? errno : EIO, path,
                                    opt);
        goto cleanup;
    }
    if (len > LR_MODTABLE_FILE_MAX) {
        rc = EFBIG;
        snprintf(err, errlen, "%s: larger than %d KiB, no modulation CSV (a "
                 "header and at most %d formats)", path,
                 LR_MODTABLE_FILE_MAX / 1024, LR_MOD_MAX);
        goto cleanup;
    }
    if (len == 0) {
        rc = lr_modtable_empty(err, errlen, path, opt);
        goto cleanup;
    }
    if ((rc = lr_modtable_parse_csv(t, text, len, e, sizeof e))) {
        lr_modtable_one_line(e);
        snprintf(err, errlen, "%s: %s", path, e);
    }

cleanup:
    if (f)
        fclose(f);
    free(text);
    return rc;
}
