/*
 * lr_cli: the subcommands of `lightrail` and the conventions they share.
 *
 * Exit codes, the same for every subcommand:
 *   0  success
 *   1  internal failure (out of memory, a helper program that failed)
 *   2  bad input: usage, malformed or invalid files, unknown names
 *   3  a well-formed request that no plan satisfies (for the client
 *      commands: the server refused it as infeasible, or blocked the job)
 *   4  the server has no such resource (404)
 *   5  the server refused the credentials (401, 403)
 *   6  the server cannot be reached, or TLS with it failed
 *   7  the server is older than what the command asks of it (a
 *      lightraild whose modules lack it: `lightrail devices`)
 * An error is one line on stderr: "lightrail SUBCOMMAND: FILE: PATH: reason".
 */
#ifndef LR_CLI_H
#define LR_CLI_H 1

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "tools/lightrail/lr_opt_once.h"

enum {
    LR_EXIT_OK = 0,
    LR_EXIT_FAIL = 1,
    LR_EXIT_USAGE = 2,
    LR_EXIT_INFEASIBLE = 3,
    LR_EXIT_NOT_FOUND = 4,
    LR_EXIT_UNAUTHORISED = 5,
    LR_EXIT_UNREACHABLE = 6,
    LR_EXIT_TOO_OLD = 7,
};

/* Each takes argv[0] = the subcommand name and returns an exit code. */
int lr_cmd_topo(int argc, char **argv);
int lr_cmd_rsa_sim(int argc, char **argv);
/* The joint multi-job simulator and PPO training (cmd_sim.c, cmd_train.c). */
int lr_cmd_sim(int argc, char **argv);
int lr_cmd_train(int argc, char **argv);
/* Rollouts against a baseline's choices (cmd_advantage.c). */
int lr_cmd_advantage(int argc, char **argv);
/* The mean of policy files' weights (cmd_average.c). */
int lr_cmd_average(int argc, char **argv);
int lr_cmd_plan(int argc, char **argv);
/* The client of lightraild (cmd_client.c). */
int lr_cmd_job(int argc, char **argv);
int lr_cmd_topology(int argc, char **argv);
int lr_cmd_inventory(int argc, char **argv);
int lr_cmd_spectrum(int argc, char **argv);
int lr_cmd_reconcile(int argc, char **argv);
int lr_cmd_policy(int argc, char **argv);
int lr_cmd_devices(int argc, char **argv);
int lr_cmd_demo(int argc, char **argv);
/* A data center's agent for distributed CDynP (cmd_agent.c). */
int lr_cmd_agent(int argc, char **argv);
int lr_cmd_reservations(int argc, char **argv);
/* A lightpath's terminals and gOSNR on Mininet-Optical (cmd_mnoptical.c). */
int lr_cmd_mnoptical(int argc, char **argv);

/* `lightrail plan --distributed` (cmd_plan_dist.c), after cmd_plan.c has
 * loaded the model and the cluster and built 'tm' from them. */
struct lr_tm;
struct lr_cluster;
struct lr_plan_dist {
    const char *cluster_file;     /* for messages */
    const char *model;            /* its name, for the output */
    const char *cert, *key, *ca;  /* the coordinator's TLS files */
    const char *crl;              /* the CAs' CRLs, or NULL: none */
    const char *record;           /* NULL, or where to record answers */
    double timeout;               /* s, per connect and per request */
    double budget;                /* s, the whole plan; 0: no bound */
    int json;
    int window;                   /* CDynP's options */
    const int *order;
    int n_order;
    const char *order_text;       /* --order as given, or NULL */
    int beam;                     /* --beam's width; 0: the greedy
                                   * chain's prefixes only */
};
/* Returns an exit code (LR_EXIT_INFEASIBLE when an agent cannot be
 * reached), the reason printed on stderr. */
int lr_plan_distributed(const struct lr_plan_dist *, const struct lr_tm *,
                        const struct lr_cluster *);

/* One request to lightraild over HTTPS (tools/lightrail/cmd_client.c):
 * 'path' percent-encoded, 'body' NUL-terminated or NULL.  Returns
 * LR_EXIT_OK for a 2xx answer, else the exit code of the client commands
 * (the reason printed on stderr); '*status' gets the HTTP status and
 * '*reply' the body (malloc'ed, possibly NULL; the caller frees it). */
int lr_client_request(const char *server, const char *token,
                      const char *cacert, const char *method,
                      const char *path, const char *body, long *status,
                      char **reply);

/* --format: 'text' or 'json' into '*json'; NULL, or why not (for
 * lr_cli_bad_value()). */
const char *lr_cli_parse_format(const char *arg, bool *json);

/* "FROM:TO:STEP" into loads[] (FROM, FROM+STEP, ... up to TO, with
 * 0 < FROM <= TO, STEP > 0, fewer than 'max' steps), or one load "E"
 * (> 0); their count, or -1.  Load i is FROM + i x STEP rounded to the
 * decimals of FROM and STEP (0.1:0.3:0.1 gives 0.3, the double --loads
 * 0.3 gives, not 0.30000000000000004). */
int lr_cli_parse_loads(const char *s, double *loads, int max);

/* A JSON number for 'x' printed as the shortest text that reads back to
 * 'x' (0.3, not json-c's 0.29999999999999999; a whole number as 100.0,
 * as json-c prints it).  The caller owns the object (json_object_put,
 * or adds it to one it owns). */
struct json_object;
struct json_object *lr_cli_json_number(double x);

/* A load for a table, into buf[len] (returned): 'decimals' digits after
 * the point, more where fewer would change it (rows of --loads
 * 0.001:0.003:0.001 all read 0.00 at two, and 10.25 read 10.2 at one). */
const char *lr_cli_format_load(double load, int decimals, char *buf,
                               size_t len);

/* A comma-separated option value, 'list' of option 'opt' ("--models"),
 * copied into buf[size] and cut there into items[] (pointers into buf),
 * at most 'max' of them.  Returns their count (at least 1), or -1 with
 * one line on stderr: the list is longer than buf, an item is empty
 * (",a", "a,,b", "a,": its position, from 1) or there are more than
 * 'max' ('what' names the items: "--models: at most 8 models").  Every
 * option taking such a list splits it here, so none takes "a,,b" as
 * "a,b". */
int lr_cli_split_list(const char *cmd, const char *opt, const char *what,
                      const char *list, char *buf, size_t size,
                      char **items, int max);

/* A --policy list, "all" or "a,b,..." (case-insensitive), against the
 * n_names known names: their indices into out[] (at most 'max'); the
 * count, or -1 with one line on stderr naming the unknown one and the
 * known ones ('hint', may be NULL, is appended to that list), the one
 * listed twice, or what lr_cli_split_list() refuses. */
int lr_cli_pick_names(const char *cmd, const char *list,
                      const char *const *names, int n_names,
                      const char *hint, int *out, int max);

/* 0 if --batch over --microbatch is a whole number of microbatches, at
 * least one and at most the time model's LR_TM_MAX_MICROBATCHES; else
 * LR_EXIT_USAGE with one line on stderr saying which ('plan', 'sim',
 * 'train' and 'advantage' alike). */
int lr_cli_check_microbatch(const char *cmd, double batch, double micro);

/* 0 if a file can be written at 'path' (its folder exists and takes new
 * files, and 'path' is no folder), else an errno: for output paths that
 * long work writes only at its end, to be refused before it. */
int lr_cli_file_writable(const char *path);

/* The refusal of an output path, for the commands that write theirs only
 * at the end: 0 when 'path' is NULL or lr_cli_file_writable(), else
 * LR_EXIT_USAGE with "OPTION PATH: cannot write a file there: reason" on
 * stderr. */
int lr_cli_output_check(const char *cmd, const char *option,
                        const char *path);

/* Monotonic wall-clock seconds. */
double lr_cli_now(void);

/* Progress of long work on stderr.  On a terminal, one line redrawn in
 * place, at most every 0.25 s; anywhere else (a log file, a pipe, a
 * journal), a line of its own every LR_CLI_PROGRESS_LOG_S seconds (or
 * the environment's LIGHTRAIL_PROGRESS_SECONDS), so a run under nohup
 * or systemd shows it is alive; nothing when quiet.
 * Usage: if (lr_cli_progress_due(&p)) lr_cli_progress_show(&p, ...);
 * and lr_cli_progress_end(&p) before printing anything else. */
#define LR_CLI_PROGRESS_LOG_S 30.0
struct lr_cli_progress {
    int mode;                 /* 0 off, 1 a terminal, 2 log lines */
    double every;             /* seconds between lines */
    double last;              /* lr_cli_now() of the last line shown */
    bool open;                /* a terminal line awaits its newline */
};
void lr_cli_progress_init(struct lr_cli_progress *, bool quiet);
/* True when a line is due (a terminal's 0.25 s or a log's interval has
 * passed since the last one); the caller then shows one. */
bool lr_cli_progress_due(const struct lr_cli_progress *);
void lr_cli_progress_show(struct lr_cli_progress *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Ends the terminal's line, if one is open: _end keeps it (a newline),
 * _erase blanks it. */
void lr_cli_progress_end(struct lr_cli_progress *);
void lr_cli_progress_erase(struct lr_cli_progress *);

/* The refusals every getopt_long() loop ends with, one line each on
 * stderr; each returns LR_EXIT_USAGE (lr_cli_extra_args: 0 when nothing
 * is left).  Pass getopt's optind: lr_cli_bad_option names the option it
 * refused (unknown, or missing its value), lr_cli_bad_value says why a
 * value is wrong ("--batch wants ..., not 'x'"), lr_cli_extra_args names
 * the first operand left after the options. */
int lr_cli_bad_option(const char *cmd, char *const *argv, int optind_);
int lr_cli_bad_value(const char *cmd, const char *why, const char *value);
int lr_cli_extra_args(const char *cmd, int argc, char *const *argv,
                      int optind_);

/* Replaces '*t' with the modulation CSV at 'path' given as
 * --modulations (lr_modtable_load(): reaches, efficiencies and OSNR
 * thresholds): 0, or LR_EXIT_USAGE after one line "lightrail CMD: PATH:
 * line N: ..." (or the reason the file cannot be read), '*t' then as it
 * was. */
struct lr_modtable;
int lr_cli_load_modulations(const char *cmd, const char *path,
                            struct lr_modtable *t);

/* Options given twice.  getopt_long() lets a later --seed 2 replace an
 * earlier --seed 1 without a word, so that a command line assembled
 * from defaults and overrides runs what neither part says.  In every
 * command (topo parses its own and checks alike; lightraild, not ours,
 * checks its --config) every option that takes a value is given at
 * most once: none adds up its repeats.  A flag given twice
 * changes nothing and passes.  Usage: a struct lr_cli_once zeroed
 * before the loop, and first in the loop
 *     if ((rc = lr_cli_once(CMD, longopts, c, optarg, &once))) return rc;
 * which returns LR_EXIT_USAGE, with "--seed given twice ('1', then '2'):
 * give it once" on stderr, when option code 'c' of 'longopts' was
 * given before; else 0 (unknown options included, left to the loop).
 * LR_EXIT_FAIL if 'longopts' has more than LR_CLI_MAX_OPTIONS rows.
 * The check is lr_opt_once(), which the benchmarks share. */
#define LR_CLI_MAX_OPTIONS LR_OPT_ONCE_MAX
struct lr_cli_once {
    struct lr_opt_once seen;
};
int lr_cli_once(const char *cmd, const struct option *longopts, int c,
                const char *arg, struct lr_cli_once *once);

/* Prints "lightrail CMD: <message>\n" to stderr. */
void lr_cli_err(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For commands that must clean up whatever stops them (lightraild
 * started, namespaces made): SIGINT, SIGTERM and SIGHUP call 'on_signal'
 * (which sets the command's flag; no SA_RESTART, so sleeps and waits
 * return), and SIGPIPE is ignored (`| head`: the write fails instead of
 * killing us before the cleanup).  lr_cli_signals_restore() puts back
 * what was there. */
struct lr_cli_signals {
    struct sigaction old[4];  /* INT, TERM, HUP, PIPE */
};
void lr_cli_signals_catch(struct lr_cli_signals *, void (*on_signal)(int));
void lr_cli_signals_restore(const struct lr_cli_signals *);

#endif
