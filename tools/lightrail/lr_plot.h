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

/* Draws the plot into 'png_path' with gnuplot.  Returns 0, or an errno
 * value with a one-line reason in err[errlen] (gnuplot missing, gnuplot
 * failed, file not writable). */
int lr_plot_write_png(const struct lr_plot *, const char *png_path,
                      char *err, size_t errlen);

#endif
