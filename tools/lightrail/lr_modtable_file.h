/*
 * lr_modtable_file: the modulation CSV read from a file, the one loader
 * of lightraild (its modulation-table), lightrail-check and the
 * lightrail commands that take --modulations (rsa-sim, mnoptical
 * check).  The planner parses the text (lr_modtable_parse_csv(), no
 * I/O); this reads the file and says what is wrong with it in one line
 * that names the file.  In a library of its own (liblrmodfile.a) so
 * that the CLI links it without the controller.
 */
#ifndef LR_MODTABLE_FILE_H
#define LR_MODTABLE_FILE_H

#include <stddef.h>

struct lr_modtable;

/* A modulation CSV is a few lines: more than this is no such file. */
#define LR_MODTABLE_FILE_MAX (64 * 1024)

/* Replaces '*t' with the modulation CSV at 'path': 0, or an errno value
 * with one line in err[] and '*t' as it was.  The line is "PATH: what
 * is wrong, what to give": for a file that cannot be read, strerror's
 * reason (a directory opens, and its read fails with EISDIR, its
 * reason, not "no formats"), then "give the path of a readable
 * modulation CSV (or leave OPT out for the default table)" when 'opt'
 * (the option or leaf that named the file: "--modulations",
 * "modulation-table") is not NULL; for a FIFO or a device (no regular
 * file, no directory) "PATH: not a regular file: give ..." (EINVAL) at
 * once, the file opened non-blocking; for an empty file "PATH: the file is
 * empty: give a modulation CSV, ..." (EINVAL), the same hint after it;
 * for its text "PATH: line N: ..."
 * (lr_modtable_parse_csv()), its control characters made spaces, since
 * the message quotes the file's cells and is one line of a log or a
 * terminal. */
int lr_modtable_load(const char *path, const char *opt,
                     struct lr_modtable *t, char *err, size_t errlen);

#endif
