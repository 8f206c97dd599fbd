/*
 * lr_plot: line plots through gnuplot (gnuplot-nox), for --plot flags.
 *
 * A plot is a set of named series of (x, y, yerr) points; the caller adds
 * points and asks for a PNG.  Points with y <= 0 are left out of
 * logarithmic plots (log 0 has no place on the axis).
 *
 * Ownership: lr_plot_new() returns a plot the caller frees with
 * lr_plot_free(); strings are copied.
 */
#ifndef LR_PLOT_H
#define LR_PLOT_H 1

#include <stdbool.h>
#include <stddef.h>

struct lr_plot;

struct lr_plot *lr_plot_new(const char *title, const char *xlabel,
                            const char *ylabel, bool log_y);
void lr_plot_free(struct lr_plot *);

/* Adds a point to the series 'series' (created on first use). Returns 0 or
 * ENOMEM. */
int lr_plot_add(struct lr_plot *, const char *series, double x, double y,
                double yerr);

/* How a series is drawn (flags of lr_plot_style): LR_PLOT_LINE, a plain
 * line without markers or error bars (for long curves); LR_PLOT_Y2,
 * against a second y axis on the right, labelled by lr_plot_y2label. */
enum { LR_PLOT_LINE = 1, LR_PLOT_Y2 = 2 };
/* Sets the flags of 'series' (created, empty, if new: call before
 * adding points to fix the order of the key).  0 or ENOMEM. */
int lr_plot_style(struct lr_plot *, const char *series, unsigned flags);
void lr_plot_y2label(struct lr_plot *, const char *label);
/* Draws the plot into 'png_path' with gnuplot.  Returns 0, or an errno
 * value with a one-line reason in err[errlen] (gnuplot missing, gnuplot
 * failed, file not writable). */
int lr_plot_write_png(const struct lr_plot *, const char *png_path,
                      char *err, size_t errlen);

/* 'title' broken at spaces into lines of at most 'width' characters
 * (UTF-8 characters, not bytes) for gnuplot, which shows a "\n" in a
 * title as a new line and cuts a line wider than the PNG at its edges.
 * A "\n" already there stays a break; a word longer than 'width' keeps
 * a line of its own, whole.  A word and the number after it ("seeds
 * 1-5") and an "=" with its two sides ("K = 3") stay on one line, as a
 * word does.  Past 'max_lines' lines the last one ends in "...", the
 * words it leaves out taken the same way.  Writes a NUL-terminated string into buf[size] (cut to fit,
 * before a UTF-8 character that does not, and nothing after it:
 * strlen(title) + 4 bytes always suffice) and returns buf. */
const char *lr_plot_wrap(const char *title, int width, int max_lines,
                         char *buf, size_t size);

/* A Gantt chart: boxes [x0, x1] on named rows (row 0 at the top), each
 * of a colour class (0..7) named in the key by 'classes'. */
struct lr_gantt;

struct lr_gantt *lr_gantt_new(const char *title, const char *xlabel);
void lr_gantt_free(struct lr_gantt *);
/* Boxes are given in seconds and drawn times 'factor' (1e3: in ms, as
 * the xlabel says); 1 until set. */
void lr_gantt_x_scale(struct lr_gantt *, double factor);
/* Names row 'row' (0 .. 255). */
int lr_gantt_row(struct lr_gantt *, int row, const char *label);
int lr_gantt_box(struct lr_gantt *, int row, double x0, double x1,
                 int klass);
/* Draws into 'png_path'; class i is named classes[i] in the key. */
int lr_gantt_write_png(const struct lr_gantt *, const char *png_path,
                       const char *const *classes, int n_classes,
                       char *err, size_t errlen);

#endif
