/* lr_plot: see lr_plot.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_plot.h"

struct lr_plot_point {
    double x, y, yerr;
};

struct lr_plot_series {
    char name[64];
    struct lr_plot_point *pts;
    int n, cap;
};

struct lr_plot {
    char title[128], xlabel[64], ylabel[64];
    bool log_y;
    struct lr_plot_series *series;
    int n, cap;
};

static void
copy_trunc(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

struct lr_plot *
lr_plot_new(const char *title, const char *xlabel, const char *ylabel,
            bool log_y)
{
    struct lr_plot *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    copy_trunc(p->title, sizeof p->title, title);
    copy_trunc(p->xlabel, sizeof p->xlabel, xlabel);
    copy_trunc(p->ylabel, sizeof p->ylabel, ylabel);
    p->log_y = log_y;
    return p;
}

void
lr_plot_free(struct lr_plot *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        free(p->series[i].pts);
    free(p->series);
    free(p);
}

int
lr_plot_add(struct lr_plot *p, const char *series, double x, double y,
            double yerr)
{
    struct lr_plot_series *s = NULL;
    for (int i = 0; i < p->n && !s; i++)
        if (!strcmp(p->series[i].name, series))
            s = &p->series[i];
    if (!s) {
        if (lr_grow((void **) &p->series, &p->cap, p->n + 1,
                    sizeof *p->series))
            return ENOMEM;
        s = &p->series[p->n++];
        memset(s, 0, sizeof *s);
        copy_trunc(s->name, sizeof s->name, series);
    }
    if (lr_grow((void **) &s->pts, &s->cap, s->n + 1, sizeof *s->pts))
        return ENOMEM;
    s->pts[s->n++] = (struct lr_plot_point) { x, y, yerr };
    return 0;
}

/* gnuplot strings are single-quoted; a quote inside is doubled. */
static void
put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

int
lr_plot_write_png(const struct lr_plot *p, const char *png_path, char *err,
                  size_t errlen)
{
    const char *gp = LR_GNUPLOT;
    if (!strcmp(gp, "no") || access(gp, X_OK)) {
        snprintf(err, errlen, "gnuplot is not installed "
                 "(apt-get install gnuplot-nox), so no plot was drawn");
        return ENOENT;
    }
    /* The data go inline ("-" files), one block per series. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s", gp);
    FILE *f = popen(cmd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot run %s: %s", gp, strerror(errno));
        return errno;
    }
    fprintf(f, "set terminal pngcairo size 960,600 noenhanced\nset output ");
    put_quoted(f, png_path);
    fprintf(f, "\nset title ");
    put_quoted(f, p->title);
    fprintf(f, "\nset xlabel ");
    put_quoted(f, p->xlabel);
    fprintf(f, "\nset ylabel ");
    put_quoted(f, p->ylabel);
    fprintf(f, "\nset grid\nset key top left\n");
    if (p->log_y)
        fprintf(f, "set logscale y\nset format y '%%g'\n");
    fprintf(f, "plot ");
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "%s'-' using 1:2:3 with yerrorlines title ",
                i ? ", " : "");
        put_quoted(f, p->series[i].name);
    }
    fprintf(f, "\n");
    for (int i = 0; i < p->n; i++) {
        const struct lr_plot_series *s = &p->series[i];
        for (int j = 0; j < s->n; j++) {
            if (p->log_y && !(s->pts[j].y > 0))
                continue;
            fprintf(f, "%.10g %.10g %.10g\n", s->pts[j].x, s->pts[j].y,
                    s->pts[j].yerr);
        }
        fprintf(f, "e\n");
    }
    int status = pclose(f);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "gnuplot failed drawing %s (exit status %d)",
                 png_path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return EIO;
    }
    return 0;
}
