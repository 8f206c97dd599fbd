/* lr_plot: see lr_plot.h. */
#include <errno.h>
#include <math.h>
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
    unsigned flags;           /* LR_PLOT_LINE, LR_PLOT_Y2 */
    struct lr_plot_point *pts;
    int n, cap;
};

struct lr_plot {
    /* A title names every option off its default (lr_plot_title.h):
     * 256 bytes cut a train title with a teacher and a --demands. */
    char title[1024], xlabel[128], ylabel[128], y2label[128];
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

/* The series named 'series', created empty if new; NULL: no memory. */
static struct lr_plot_series *
series_of(struct lr_plot *p, const char *series)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->series[i].name, series))
            return &p->series[i];
    if (lr_grow((void **) &p->series, &p->cap, p->n + 1, sizeof *p->series))
        return NULL;
    struct lr_plot_series *s = &p->series[p->n++];
    memset(s, 0, sizeof *s);
    copy_trunc(s->name, sizeof s->name, series);
    return s;
}

int
lr_plot_style(struct lr_plot *p, const char *series, unsigned flags)
{
    struct lr_plot_series *s = series_of(p, series);
    if (!s)
        return ENOMEM;
    s->flags = flags;
    return 0;
}

void
lr_plot_y2label(struct lr_plot *p, const char *label)
{
    copy_trunc(p->y2label, sizeof p->y2label, label);
}

int
lr_plot_add(struct lr_plot *p, const char *series, double x, double y,
            double yerr)
{
    struct lr_plot_series *s = series_of(p, series);
    if (!s)
        return ENOMEM;
    if (lr_grow((void **) &s->pts, &s->cap, s->n + 1, sizeof *s->pts))
        return ENOMEM;
    s->pts[s->n++] = (struct lr_plot_point) { x, y, yerr };
    return 0;
}

/* The characters of UTF-8 text s[0..n), continuation bytes not
 * counted ("µs" is two). */
static int
utf8_chars(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char) s[i] & 0xc0) != 0x80;
    return c;
}

/* Appends s[0..n) to buf[*o], as far as size allows (one byte is kept
 * for the NUL); false when it did not all fit, the text then cut
 * before the character that did not: half a UTF-8 sequence ("\xc2" of
 * "µ") is no text gnuplot can draw. */
static bool
put_bytes(char *buf, size_t size, size_t *o, const char *s, size_t n)
{
    size_t i = 0;
    for (; i < n && *o + 1 < size; i++)
        buf[(*o)++] = s[i];
    if (i == n)
        return true;
    while (i > 0 && ((unsigned char) s[i] & 0xc0) == 0x80) {
        i--;
        (*o)--;
    }
    return false;
}

/* Whether s[0..n) reads as a number: a digit first, or a sign or a
 * point and then a digit ("3", "1-5", "-0.5", ".9", "8,16,"). */
static bool
is_number(const char *s, size_t n)
{
    size_t i = n > 1 && strchr("+-.", s[0]) ? 1 : 0;
    return i < n && s[i] >= '0' && s[i] <= '9';
}

/* Whether no line break may fall between the words a[0..an) and
 * b[0..bn): a word and the number after it ("seeds 1-5", "(seed 7)")
 * and an "=" and what it joins ("K = 3") read as one setting, and a
 * title broken between them reads as two.  A number after a number
 * ("1 2 3") is a list, which may break. */
static bool
glued(const char *a, size_t an, const char *b, size_t bn)
{
    if (!an || !bn)
        return false;
    if (a[an - 1] == '=' || b[0] == '=')
        return true;
    return is_number(b, bn) && !is_number(a, an);
}

/* The length in bytes of the run of words that starts at s and may not
 * be broken (glued()), each word after the first behind one or more
 * spaces; *chars gets its width with one space between words.  A run
 * past 'width' ends at its third word: a setting is "K = 3" or "seeds
 * 1-5", kept whole though wider than the line, while a chain "a = b =
 * c = ..." glued whole would be one line of any length. */
static size_t
unit_len(const char *s, int width, int *chars)
{
    size_t n = strcspn(s, " \n");
    size_t last = 0;            /* the last word: s[last..n) */
    int words = 1;
    *chars = utf8_chars(s, n);
    for (;;) {
        size_t u = n + strspn(s + n, " ");
        size_t m = strcspn(s + u, " \n");
        if (!m || !glued(s + last, n - last, s + u, m))
            return n;
        int more = 1 + utf8_chars(s + u, m);
        if (words >= 3 && *chars + more > width)
            return n;
        *chars += more;
        words++;
        last = u;
        n = u + m;
    }
}

const char *
lr_plot_wrap(const char *title, int width, int max_lines, char *buf,
             size_t size)
{
    if (!size)
        return buf;
    width = width < 1 ? 1 : width;
    max_lines = max_lines < 1 ? 1 : max_lines;
    size_t o = 0, line_start = 0;
    int line = 1, col = 0;
    bool more = false;          /* words left out past max_lines */
    bool cut = false;           /* buf is full */
    const char *s = title ? title : "";
    while (*s && !cut) {
        if (*s == ' ') {
            s++;
            continue;
        }
        int w = 0;
        size_t n = *s == '\n' ? 0 : unit_len(s, width, &w);
        bool hard = *s == '\n';
        if (hard || (col > 0 && col + 1 + w > width)) {
            if (line == max_lines) {
                more = true;
                break;
            }
            put_bytes(buf, size, &o, "\n", 1);
            line_start = o;
            line++;
            col = 0;
            s += hard;
            continue;
        }
        /* The unit's words, one space between them.  Cut to fit buf:
         * nothing after it, or a shorter word would follow a gap in the
         * text. */
        const char *end = s + n;
        while (s < end && !cut) {
            s += strspn(s, " ");
            size_t m = strcspn(s, " \n");
            if (col > 0 && !put_bytes(buf, size, &o, " ", 1))
                cut = true;
            else if (!put_bytes(buf, size, &o, s, m))
                cut = true;
            col += (col > 0) + utf8_chars(s, m);
            s += m;
        }
    }
    /* " ..." says words are left out; units of the last line make room
     * for it when they can, whole ("K = 3" goes, not "3" alone); a line
     * that is one unit gives its last word ("load 0.5 0.6" in 8: "load
     * ...", not "load 0.5 ..." past the width). */
    if (more) {
        while (col + 4 > width) {
            size_t sp = o;
            for (;;) {
                while (sp > line_start && buf[sp - 1] != ' ')
                    sp--;
                if (sp == line_start)
                    break;
                size_t pw = sp - 1;     /* the word before: [pw..sp-1) */
                while (pw > line_start && buf[pw - 1] != ' ')
                    pw--;
                size_t bn = 0;
                while (sp + bn < o && buf[sp + bn] != ' ')
                    bn++;
                if (!glued(buf + pw, sp - 1 - pw, buf + sp, bn))
                    break;
                sp--;
            }
            if (sp == line_start)
                for (sp = o; sp > line_start && buf[sp - 1] != ' '; sp--)
                    continue;
            if (sp == line_start)
                break;
            o = sp - 1;
            col = utf8_chars(buf + line_start, o - line_start);
        }
        put_bytes(buf, size, &o, " ...", 4);
    }
    buf[o] = '\0';
    return buf;
}

/* gnuplot strings are single-quoted; a quote inside is doubled.  A
 * newline (a title of two lines) would end gnuplot's command inside the
 * quotes, and single quotes take no escape: the string is closed and
 * joined to a double-quoted "\n" ('a'."\n".'b'). */
static void
put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\n') {
            fputs("'.\"\\n\".'", f);
            continue;
        }
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Starts gnuplot with a PNG terminal writing to 'png_path'; NULL with the
 * reason in err[errlen] when it cannot. */
static FILE *
gnuplot_open(const char *png_path, int width, int height, char *err,
             size_t errlen)
{
    /* LIGHTRAIL_GNUPLOT: a gnuplot installed after configure ran, or a
     * test's stand-in that keeps the script (the titles) to read. */
    const char *env = getenv("LIGHTRAIL_GNUPLOT");
    const char *gp = env && *env ? env : LR_GNUPLOT;
    if (gp == env && access(gp, X_OK)) {
        snprintf(err, errlen, "LIGHTRAIL_GNUPLOT=%s: not a program this "
                 "user can run (%s), so no plot was drawn; unset it to use "
                 "the one configure found", gp, strerror(errno));
        errno = ENOENT;
        return NULL;
    }
    if (!strcmp(gp, "no") || access(gp, X_OK)) {
        snprintf(err, errlen, "gnuplot is not installed "
                 "(apt-get install gnuplot-nox), so no plot was drawn");
        errno = ENOENT;
        return NULL;
    }
    /* gnuplot's stdout is not ours: when it cannot open the PNG it draws
     * on stdout, into the results (a JSON one included). */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "exec '%s' >/dev/null", gp);
    FILE *f = strchr(gp, '\'') ? NULL : popen(cmd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot run %s: %s", gp,
                 strchr(gp, '\'') ? "a quote in its path" : strerror(errno));
        return NULL;
    }
    fprintf(f, "set terminal pngcairo size %d,%d noenhanced\nset output ",
            width, height);
    put_quoted(f, png_path);
    fputc('\n', f);
    return f;
}

static int
gnuplot_close(FILE *f, const char *png_path, char *err, size_t errlen)
{
    int status = pclose(f);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "gnuplot failed drawing %s (exit status %d)",
                 png_path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return EIO;
    }
    return 0;
}

/* A logarithmic y axis is given whole decades, at least one: gnuplot's
 * own autoscale widens a flat range (one point: one load, one seed, or
 * every point the same) by a few percent, where no decade tick falls,
 * and the axis shows no number at all; and it leaves out an error bar
 * that reaches 0 or below (a wide CI over few seeds) and then finds the
 * range flat and warns on stderr ("empty y range").  The bars are
 * counted where they are positive, and clipped at the axis' foot. */
static void
log_y_decades(FILE *f, const struct lr_plot *p)
{
    double lo = 0, hi = 0;
    bool any = false;
    for (int i = 0; i < p->n; i++) {
        const struct lr_plot_series *s = &p->series[i];
        if (s->flags & LR_PLOT_Y2)
            continue;
        bool err_bars = !(s->flags & LR_PLOT_LINE);
        for (int j = 0; j < s->n; j++) {
            const struct lr_plot_point *pt = &s->pts[j];
            if (!(pt->y > 0))
                continue;
            double e = err_bars && pt->yerr > 0 ? pt->yerr : 0;
            double a = pt->y - e > 0 ? pt->y - e : pt->y;
            double b = pt->y + e;
            lo = any && lo < a ? lo : a;
            hi = any && hi > b ? hi : b;
            any = true;
        }
    }
    if (!any)
        return;
    /* The rounding of log10 must not drop a point on a decade: 1e-3
     * is not exactly representable. */
    double d_lo = floor(log10(lo) + 1e-9), d_hi = ceil(log10(hi) - 1e-9);
    if (d_hi <= d_lo)
        d_hi = d_lo + 1;
    fprintf(f, "set yrange [1e%.0f:1e%.0f]\n", d_lo, d_hi);
}

/* A range gnuplot would find empty (every point of the axis at one
 * value) is widened by hand: gnuplot widens it too, but warns on stderr
 * ("empty x range"), which a one-point curve (a short training run, a
 * single load) should not print.  'which' 0: x, 1: y, 2: y2; a
 * logarithmic y axis is log_y_decades()'. */
static void
pad_flat_range(FILE *f, const struct lr_plot *p, int which)
{
    if (which == 1 && p->log_y) {
        log_y_decades(f, p);
        return;
    }
    double lo = 0, hi = 0;
    bool any = false;
    for (int i = 0; i < p->n; i++) {
        const struct lr_plot_series *s = &p->series[i];
        bool on_y2 = (s->flags & LR_PLOT_Y2) != 0;
        if (which && on_y2 != (which == 2))
            continue;
        for (int j = 0; j < s->n; j++) {
            const struct lr_plot_point *pt = &s->pts[j];
            if (p->log_y && !on_y2 && !(pt->y > 0))
                continue;
            bool err_bars = which == 1 && !(s->flags & LR_PLOT_LINE);
            double a = which ? pt->y - (err_bars ? pt->yerr : 0) : pt->x;
            double b = which ? pt->y + (err_bars ? pt->yerr : 0) : pt->x;
            lo = any && lo < a ? lo : a;
            hi = any && hi > b ? hi : b;
            any = true;
        }
    }
    if (!any || lo != hi)
        return;
    static const char *const axis[] = { "x", "y", "y2" };
    double d = lo ? 0.1 * (lo < 0 ? -lo : lo) : 1;
    fprintf(f, "set %srange [%.10g:%.10g]\n", axis[which], lo - d, hi + d);
}

/* A count as a tick says it: 1500000 is "1.5M", 250000 "250k", 40 "40";
 * gnuplot's own labels read "1e+06" at a million training steps. */
static void
count_label(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(buf, size, "%gM", v / 1e6);
    else if (a >= 1e3)
        snprintf(buf, size, "%gk", v / 1e3);
    else
        snprintf(buf, size, "%g", v);
}

/* An x axis that reaches 10000 or more (train's steps) gets its tics
 * from here, 1, 2, 2.5 or 5 x 10^n apart (about six), labelled by
 * count_label(), over a range that ends on tics as gnuplot's would. */
static void
count_xtics(FILE *f, const struct lr_plot *p)
{
    double lo = 0, hi = 0;
    bool any = false;
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < p->series[i].n; j++) {
            double x = p->series[i].pts[j].x;
            lo = any && lo < x ? lo : x;
            hi = any && hi > x ? hi : x;
            any = true;
        }
    if (!any || !(hi > lo) || fmax(fabs(lo), fabs(hi)) < 1e4)
        return;
    double raw = (hi - lo) / 6, mag = pow(10, floor(log10(raw))), step = mag;
    static const double nice[] = { 1, 2, 2.5, 5, 10 };
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if (nice[i] * mag >= raw) {
            step = nice[i] * mag;
            break;
        }
    long first = (long) floor(lo / step), last = (long) ceil(hi / step);
    fprintf(f, "set xrange [%.10g:%.10g]\nset xtics (", first * step,
            last * step);
    for (long t = first; t <= last; t++) {
        char label[32];
        count_label(t * step, label, sizeof label);
        fprintf(f, "%s'%s' %.10g", t > first ? ", " : "", label, t * step);
    }
    fprintf(f, ")\n");
}

/* Each series' colour, by its place in the key.  The first eight are
 * gnuplot's own linetype colours, in its order, so that a plot of eight
 * series or fewer looks as it did; gnuplot repeats those eight from the
 * ninth series on (sim's ten policies: static and greedy-cap, nearest
 * and ppo shared a colour), so four more follow.  Past twelve the
 * colours repeat, the point types (gnuplot's, by place) still differ. */
static const char *const series_colours[] = {
    "#9400d3", "#009e73", "#56b4e9", "#e69f00",
    "#f0e442", "#0072b2", "#e51e10", "#000000",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
};
#define N_SERIES_COLOURS \
    ((int) (sizeof series_colours / sizeof series_colours[0]))

/* How wide a title may be, in characters, on a PNG 'width' pixels wide
 * from which a key beside the frame takes 'key_chars' characters.
 *
 * gnuplot centres the title over the frame and cuts what passes the
 * PNG's edges.  pngcairo's default font (Sans 12) averaged 8.2 pixels a
 * character over our titles in gnuplot 5.4 (100 characters: 823
 * pixels); 8.5 leaves room for capitals ("GPU", "DCs", "CI").  A key outside moves
 * the frame's centre left by half the key's width, and the title
 * reaches as far either side of it as the nearer (left) edge allows:
 * the title loses the key's whole width.  That is its longest name and
 * about five characters of sample line and gaps ('mscl-link': 124
 * pixels measured, 119 counted).  Two characters stay clear of the
 * edges.  A key inside the frame (a plot with a y2 axis) takes none. */
#define TITLE_CHAR_PX 8.5
enum { TITLE_KEY_EXTRA = 5, TITLE_MAX_LINES = 4 };

static int
title_width(int width, int key_chars)
{
    double key_px = key_chars ? (key_chars + TITLE_KEY_EXTRA) * TITLE_CHAR_PX
                              : 0;
    return (int) ((width - key_px) / TITLE_CHAR_PX) - 2;
}

/* "set title" with 'title' in lines that fit title_width(). */
static void
put_title(FILE *f, const char *title, int width, int key_chars)
{
    char buf[1100];
    lr_plot_wrap(title, title_width(width, key_chars), TITLE_MAX_LINES,
                 buf, sizeof buf);
    fprintf(f, "set title ");
    put_quoted(f, buf);
}

int
lr_plot_write_png(const struct lr_plot *p, const char *png_path, char *err,
                  size_t errlen)
{
    enum { WIDTH = 960, HEIGHT = 600 };
    bool y2 = false;
    int key_chars = 0;
    for (int i = 0; i < p->n; i++) {
        int c = utf8_chars(p->series[i].name, strlen(p->series[i].name));
        key_chars = c > key_chars ? c : key_chars;
        y2 |= (p->series[i].flags & LR_PLOT_Y2) != 0;
    }
    /* The data go inline ("-" files), one block per series. */
    FILE *f = gnuplot_open(png_path, WIDTH, HEIGHT, err, errlen);
    if (!f)
        return errno;
    put_title(f, p->title, WIDTH, y2 ? 0 : key_chars);
    fprintf(f, "\nset xlabel ");
    put_quoted(f, p->xlabel);
    fprintf(f, "\nset ylabel ");
    put_quoted(f, p->ylabel);
    /* Inside the frame the key hid the curves that start high on the
     * left (sim's slowdown of zone and resource); beside it, it hides
     * none.  A plot with a right-hand axis keeps it inside, where that
     * axis' numbers and label are not. */
    fprintf(f, "\nset grid\nset key %s\n",
            y2 ? "top left" : "outside right top");
    if (p->log_y)
        fprintf(f, "set logscale y\nset format y '%%g'\n");
    if (y2) {
        fprintf(f, "set ytics nomirror\nset y2tics\nset y2label ");
        put_quoted(f, p->y2label);
        fprintf(f, "\n");
    }
    for (int which = 0; which < 3; which++)
        pad_flat_range(f, p, which);
    count_xtics(f, p);
    fprintf(f, "plot ");
    for (int i = 0; i < p->n; i++) {
        unsigned fl = p->series[i].flags;
        fprintf(f, "%s'-' using 1:2%s with %s lc rgb '%s'%s title ",
                i ? ", " : "", fl & LR_PLOT_LINE ? "" : ":3",
                fl & LR_PLOT_LINE ? "lines lw 2" : "yerrorlines",
                series_colours[i % N_SERIES_COLOURS],
                fl & LR_PLOT_Y2 ? " axes x1y2" : "");
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
    return gnuplot_close(f, png_path, err, errlen);
}

struct lr_gantt_box {
    int row, klass;
    double x0, x1;
};

struct lr_gantt {
    char title[256], xlabel[64];
    double x_scale;
    char rows[256][32];
    int n_rows;
    struct lr_gantt_box *boxes;
    int n, cap;
};

struct lr_gantt *
lr_gantt_new(const char *title, const char *xlabel)
{
    struct lr_gantt *g = calloc(1, sizeof *g);
    if (g) {
        copy_trunc(g->title, sizeof g->title, title);
        copy_trunc(g->xlabel, sizeof g->xlabel, xlabel);
        g->x_scale = 1;
    }
    return g;
}

void
lr_gantt_free(struct lr_gantt *g)
{
    if (g)
        free(g->boxes);
    free(g);
}

void
lr_gantt_x_scale(struct lr_gantt *g, double factor)
{
    g->x_scale = factor;
}

int
lr_gantt_row(struct lr_gantt *g, int row, const char *label)
{
    if (row < 0 || row >= 256)
        return EINVAL;
    copy_trunc(g->rows[row], sizeof g->rows[row], label);
    if (row >= g->n_rows)
        g->n_rows = row + 1;
    return 0;
}

int
lr_gantt_box(struct lr_gantt *g, int row, double x0, double x1, int klass)
{
    if (row < 0 || row >= 256 || klass < 0 || klass > 7)
        return EINVAL;
    if (lr_grow((void **) &g->boxes, &g->cap, g->n + 1, sizeof *g->boxes))
        return ENOMEM;
    g->boxes[g->n++] = (struct lr_gantt_box) { row, klass, x0, x1 };
    return 0;
}

int
lr_gantt_write_png(const struct lr_gantt *g, const char *png_path,
                   const char *const *classes, int n_classes, char *err,
                   size_t errlen)
{
    static const char *colours[8] = {
        "#4477aa", "#ee6677", "#228833", "#ccbb44",
        "#66ccee", "#aa3377", "#bbbbbb", "#000000",
    };
    int height = 160 + 28 * g->n_rows;
    FILE *f = gnuplot_open(png_path, 1200, height < 400 ? 400 : height, err,
                           errlen);
    if (!f)
        return errno;
    /* The key is below the frame: the title has the whole width. */
    put_title(f, g->title, 1200, 0);
    fprintf(f, "\nset xlabel ");
    put_quoted(f, g->xlabel);
    fprintf(f, "\nset yrange [%d.5:-0.5]\nset ytics (", g->n_rows - 1);
    for (int r = 0; r < g->n_rows; r++) {
        fprintf(f, "%s", r ? ", " : "");
        put_quoted(f, g->rows[r]);
        fprintf(f, " %d", r);
    }
    fprintf(f, ")\nset grid x\nset key outside bottom center horizontal\n"
            "set style fill solid 0.9 border rgb 'white'\nplot ");
    for (int k = 0; k < n_classes && k < 8; k++) {
        fprintf(f, "%s'-' using (($1+$2)/2):3:(($2-$1)/2):(0.35) "
                "with boxxyerror lc rgb '%s' title ", k ? ", " : "",
                colours[k]);
        put_quoted(f, classes[k]);
    }
    fprintf(f, "\n");
    for (int k = 0; k < n_classes && k < 8; k++) {
        int any = 0;
        for (int i = 0; i < g->n; i++)
            if (g->boxes[i].klass == k) {
                fprintf(f, "%.10g %.10g %d\n", g->boxes[i].x0 * g->x_scale,
                        g->boxes[i].x1 * g->x_scale, g->boxes[i].row);
                any = 1;
            }
        /* An empty block would stop gnuplot: draw the class off-axis. */
        if (!any)
            fprintf(f, "0 0 -10\n");
        fprintf(f, "e\n");
    }
    return gnuplot_close(f, png_path, err, errlen);
}
