/*
 * lightrail: the one command-line tool.  Offline tools (rsa-sim, sim,
 * train, plan, topo), the client of lightraild (job, topology, inventory, spectrum)
 * and the demo that runs them all.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "planner/lr_modulation.h"
#include "planner/lr_timemodel.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_modtable_file.h"
#include "yang/lr_yang.h"

struct lr_cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct lr_cli_command commands[] = {
    { "rsa-sim", lr_cmd_rsa_sim,
      "simulate routing, modulation and spectrum assignment (RMSA) policies" },
    { "sim", lr_cmd_sim,
      "simulate training jobs sharing GPUs and spectrum: baselines and PPO "
      "over loads" },
    { "train", lr_cmd_train,
      "train a PPO policy that places jobs on GPUs and lightpaths" },
    { "advantage", lr_cmd_advantage,
      "how much blocking a baseline of sim leaves: rollouts of every "
      "other choice" },
    { "average", lr_cmd_average,
      "average the weights of policies trained from one start (a model "
      "soup)" },
    { "demo", lr_cmd_demo,
      "start lightraild on embedded defaults, admit sample jobs, show "
      "what they got" },
    { "plan", lr_cmd_plan,
      "cut a model into pipeline stages across data centers (CDynP, exact, "
      "baselines)" },
    { "agent", lr_cmd_agent,
      "serve one data center's private inventory to distributed CDynP "
      "(mutual TLS)" },
    { "reservations", lr_cmd_reservations,
      "show what an agent's --state-dir holds, or free a gone "
      "coordinator's reservations there" },
    { "topo", lr_cmd_topo,
      "convert and check optical topologies (topo import FILE.json)" },
    { "job", lr_cmd_job,
      "submit, list, show and delete training jobs on lightraild" },
    { "topology", lr_cmd_topology,
      "show, save or replace the optical topology lightraild manages" },
    { "inventory", lr_cmd_inventory,
      "show, save or replace the compute inventory lightraild plans with" },
    { "spectrum", lr_cmd_spectrum,
      "show the spectrum of every link on lightraild, slot by slot" },
    { "reconcile", lr_cmd_reconcile,
      "compare every ROADM with lightraild's store, report drift, repair "
      "it (--dry-run: report only)" },
    { "devices", lr_cmd_devices,
      "show each ROADM lightraild programs: up or not and why, its "
      "channels, last success and failure" },
    { "policy", lr_cmd_policy,
      "show the PPO policy lightraild decides with, or load its file again "
      "(reload)" },
    { "mnoptical", lr_cmd_mnoptical,
      "check a lightpath on a Mininet-Optical emulation: tune its "
      "terminals, compare gOSNR with the modulation's threshold" },
};

void
lr_cli_err(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "lightrail %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int
lr_cli_load_modulations(const char *cmd, const char *path,
                        struct lr_modtable *t)
{
    char err[1024];
    if (lr_modtable_load(path, "--modulations", t, err, sizeof err)) {
        lr_cli_err(cmd, "%s", err);
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

int
lr_cli_bad_option(const char *cmd, char *const *argv, int optind_)
{
    lr_cli_err(cmd, "unknown or incomplete option '%s' (see lightrail %s "
               "--help)", argv[optind_ - 1], cmd);
    return LR_EXIT_USAGE;
}

int
lr_cli_check_microbatch(const char *cmd, double batch, double micro)
{
    double m = batch / micro;
    if (fabs(m - round(m)) > 1e-9 || m < 1) {
        lr_cli_err(cmd, "--microbatch %g does not divide --batch %g into a "
                   "whole number of microbatches", micro, batch);
        return LR_EXIT_USAGE;
    }
    if (m > LR_TM_MAX_MICROBATCHES) {
        lr_cli_err(cmd, "--batch %g over --microbatch %g is %g microbatches, "
                   "more than the %d the time model takes", batch, micro, m,
                   LR_TM_MAX_MICROBATCHES);
        return LR_EXIT_USAGE;
    }
    return 0;
}

int
lr_cli_file_writable(const char *path)
{
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return EISDIR;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s",
                 slash == path ? 1 : (int) (slash - path), path);
    return access(dir, W_OK | X_OK) ? errno : 0;
}

int
lr_cli_output_check(const char *cmd, const char *option, const char *path)
{
    int e = path ? lr_cli_file_writable(path) : 0;
    if (!e)
        return 0;
    lr_cli_err(cmd, "%s %s: cannot write a file there: %s", option, path,
               strerror(e));
    return LR_EXIT_USAGE;
}

/* lr_opt_once() returns 2 and 1, lightrail's codes for a usage error
 * and a failure. */
_Static_assert(LR_EXIT_USAGE == 2 && LR_EXIT_FAIL == 1,
               "lr_opt_once's exit codes are lightrail's");

int
lr_cli_once(const char *cmd, const struct option *longopts, int c,
            const char *arg, struct lr_cli_once *once)
{
    char who[64];
    snprintf(who, sizeof who, "lightrail %s", cmd);
    return lr_opt_once(who, longopts, c, arg, &once->seen);
}

int
lr_cli_bad_value(const char *cmd, const char *why, const char *value)
{
    lr_cli_err(cmd, "%s, not '%s'", why, value);
    return LR_EXIT_USAGE;
}

int
lr_cli_extra_args(const char *cmd, int argc, char *const *argv, int optind_)
{
    if (optind_ >= argc)
        return 0;
    lr_cli_err(cmd, "unexpected argument '%s' (see lightrail %s --help)",
               argv[optind_], cmd);
    return LR_EXIT_USAGE;
}

const char *
lr_cli_parse_format(const char *arg, bool *json)
{
    if (!strcmp(arg, "json"))
        *json = true;
    else if (!strcmp(arg, "text"))
        *json = false;
    else
        return "--format wants 'text' or 'json'";
    return NULL;
}

/* The digits after the point that the number in 's' is written with,
 * its exponent counted ("0.25": 2, "5e-3": 3, "1.5e2": 0); -1 when that
 * is more than 15, where rounding to them would keep no exact value. */
static int
lr_cli_text_decimals(const char *s)
{
    const char *dot = strchr(s, '.'), *e = strpbrk(s, "eE");
    long digits = 0;
    if (strpbrk(s, "xX"))         /* hexadecimal: no decimals to keep */
        return -1;
    if (dot)
        digits = (e ? e : s + strlen(s)) - dot - 1;
    if (e)
        digits -= strtol(e + 1, NULL, 10);
    if (digits < 0)
        return 0;
    return digits > 15 ? -1 : (int) digits;
}

/* 'x' rounded to 'decimals' digits after the point: the double nearest
 * to that decimal number, as strtod() would read it (an integer over a
 * power of ten, both exact, divided once).  'x' itself when the scaled
 * value would not be an exact integer. */
static double
lr_cli_round_decimals(double x, int decimals)
{
    double scale = pow(10, decimals), n = round(x * scale);
    return decimals < 0 || fabs(n) >= 0x1p53 ? x : n / scale;
}

int
lr_cli_parse_loads(const char *s, double *loads, int max)
{
    char buf[128], *a, *b, *c;
    double from, to, step;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    if (!strchr(buf, ':')) {
        /* One load, E: as E:E:1. */
        if (max < 1 || lr_parse_double(buf, 1e-9, 1e9, &loads[0]))
            return -1;
        return 1;
    }
    a = strtok(buf, ":");
    b = strtok(NULL, ":");
    c = strtok(NULL, ":");
    if (!a || !b || !c || strtok(NULL, ":")
        || lr_parse_double(a, 1e-9, 1e9, &from)
        || lr_parse_double(b, from, 1e9, &to)
        || lr_parse_double(c, 1e-9, 1e9, &step)
        || (to - from) / step >= max)
        return -1;
    /* FROM + i x STEP carries the binary error of STEP (0.1 + 2 x 0.1 is
     * 0.30000000000000004): each load is rounded to the decimals FROM
     * and STEP are written with, so that it is the double of the
     * decimal load the user meant, the one --loads 0.3 alone runs and
     * the output names.  Loads written with more than 15 decimals are
     * left as computed. */
    int da = lr_cli_text_decimals(a), dc = lr_cli_text_decimals(c);
    int decimals = da < 0 || dc < 0 ? -1 : da > dc ? da : dc;
    /* The test above lets (to - from) / step reach max - 1 plus the
     * rounding slack below: at most max loads, said here too. */
    int n = 0;
    for (int i = 0; n < max && from + i * step <= to + step * 1e-9; i++)
        loads[n++] = lr_cli_round_decimals(from + i * step, decimals);
    return n;
}

struct json_object *
lr_cli_json_number(double x)
{
    /* json-c prints a double with %.17g (0.3 as 0.29999999999999999);
     * the first precision that reads back to 'x' is the shortest text
     * of it, with json-c's ".0" kept on whole numbers so that their
     * output stays as it was. */
    if (!isfinite(x))
        return json_object_new_double(x);
    char buf[40];
    if (x == trunc(x) && fabs(x) < 1e15) {
        /* %g would shorten 300 to 3e+02. */
        snprintf(buf, sizeof buf, "%.1f", x);
        return json_object_new_double_s(x, buf);
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return json_object_new_double_s(x, buf);
}

const char *
lr_cli_format_load(double load, int decimals, char *buf, size_t len)
{
    /* 1e-9 relative: a load of a FROM:TO:STEP range is FROM + i x STEP,
     * whose last bits are noise (0.30000000000000004 is 0.3). */
    for (int d = decimals; d <= 12; d++) {
        snprintf(buf, len, "%.*f", d, load);
        if (fabs(strtod(buf, NULL) - load) <= 1e-9 * fabs(load))
            return buf;
    }
    snprintf(buf, len, "%.17g", load);
    return buf;
}

int
lr_cli_split_list(const char *cmd, const char *opt, const char *what,
                  const char *list, char *buf, size_t size, char **items,
                  int max)
{
    if (strlen(list) >= size) {
        lr_cli_err(cmd, "%s: the list is longer than %zu characters", opt,
                   size - 1);
        return -1;
    }
    strcpy(buf, list);
    /* strtok() would skip the empty items: "a,,b" read as "a,b", a
     * slip of the user's taken for a list. */
    int n = 0;
    for (char *p = buf, *t; (t = strsep(&p, ","));) {
        if (!*t) {
            lr_cli_err(cmd, "%s: item %d of '%s' is empty: give the %s "
                       "separated by single commas, none before the "
                       "first or after the last", opt, n + 1, list, what);
            return -1;
        }
        if (n == max) {
            lr_cli_err(cmd, "%s: at most %d %s, not '%s'", opt, max, what,
                       list);
            return -1;
        }
        items[n++] = t;
    }
    return n;
}

int
lr_cli_pick_names(const char *cmd, const char *list,
                  const char *const *names, int n_names, const char *hint,
                  int *out, int max)
{
    if (!strcasecmp(list, "all")) {
        int n = 0;
        for (; n < n_names && n < max; n++)
            out[n] = n;
        return n;
    }
    char buf[256], *items[32];
    int n_items = lr_cli_split_list(cmd, "--policy", "policies", list, buf,
                                    sizeof buf, items,
                                    max < 32 ? max : 32);
    if (n_items < 0)
        return -1;
    int n = 0;
    for (int j = 0; j < n_items; j++) {
        const char *t = items[j];
        if (!strcasecmp(t, "all")) {
            lr_cli_err(cmd, "'all' names every policy and stands alone: "
                       "--policy all, or a list of names without it");
            return -1;
        }
        int i = 0;
        while (i < n_names && strcasecmp(names[i], t))
            i++;
        if (i == n_names) {
            char known[256] = "";
            for (int k = 0; k < n_names; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known),
                         "%s, ", names[k]);
            lr_cli_err(cmd, "unknown policy '%s' (known: %sall%s)", t, known,
                       hint ? hint : "");
            return -1;
        }
        /* Twice the same policy would run it twice and print two rows
         * of one name, which --paired could not tell apart. */
        for (int k = 0; k < n; k++)
            if (out[k] == i) {
                lr_cli_err(cmd, "--policy: '%s' listed twice", names[i]);
                return -1;
            }
        out[n++] = i;
    }
    return n;
}

double
lr_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void
lr_cli_progress_init(struct lr_cli_progress *p, bool quiet)
{
    p->mode = quiet ? 0 : isatty(STDERR_FILENO) ? 1 : 2;
    p->every = p->mode == 1 ? 0.25 : LR_CLI_PROGRESS_LOG_S;
    const char *env = getenv("LIGHTRAIL_PROGRESS_SECONDS");
    double v;
    if (p->mode == 2 && env && !lr_parse_double(env, 0, 1e6, &v))
        p->every = v;
    p->last = lr_cli_now();
    p->open = false;
}

bool
lr_cli_progress_due(const struct lr_cli_progress *p)
{
    return p->mode && lr_cli_now() - p->last >= p->every;
}

void
lr_cli_progress_show(struct lr_cli_progress *p, const char *fmt, ...)
{
    if (!p->mode)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (p->mode == 1) {
        fprintf(stderr, "\r%s", line);
    } else {                  /* a line of its own: no trailing blanks */
        size_t n = strlen(line);
        while (n && line[n - 1] == ' ')
            line[--n] = '\0';
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
    p->open = p->mode == 1;
    p->last = lr_cli_now();
}

void
lr_cli_progress_end(struct lr_cli_progress *p)
{
    if (p->open)
        fputc('\n', stderr);
    p->open = false;
}

void
lr_cli_progress_erase(struct lr_cli_progress *p)
{
    if (p->open)
        fprintf(stderr, "\r%79s\r", "");
    p->open = false;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: lightrail COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`lightrail COMMAND --help` describes each one.\n\n"
            "  -h, --help    this text\n"
            "  --version     the version\n");
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LR_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")
        || !strcmp(argv[1], "help")) {
        usage(stdout);
        return LR_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("lightrail %s\n", PACKAGE_VERSION);
        return LR_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* Results that could not be written (a full disk, a closed
             * pipe) are no success. */
            if (fflush(stdout) || ferror(stdout)) {
                fprintf(stderr, "lightrail %s: cannot write the results: "
                        "%s\n", argv[1], strerror(errno ? errno : EIO));
                return rc ? rc : LR_EXIT_FAIL;
            }
            return rc;
        }
    fprintf(stderr, "lightrail: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return LR_EXIT_USAGE;
}

static const int lr_cli_caught[4] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

void
lr_cli_signals_catch(struct lr_cli_signals *s, void (*on_signal)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; i++) {
        sa.sa_handler = lr_cli_caught[i] == SIGPIPE ? SIG_IGN : on_signal;
        sigaction(lr_cli_caught[i], &sa, &s->old[i]);
    }
}

void
lr_cli_signals_restore(const struct lr_cli_signals *s)
{
    for (int i = 0; i < 4; i++)
        sigaction(lr_cli_caught[i], &s->old[i], NULL);
}
