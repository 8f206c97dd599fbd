/*
 * lightrail job | topology | spectrum | reconcile | devices | policy: the client
 * of lightraild's RESTCONF API, over libcurl.
 *
 *   job submit FILE            POST FILE (RFC 7951 JSON) as it is
 *   job submit --name --model  POST a body built here with json-c
 *   job list | show | delete   GET / GET / DELETE .../jobs[/job=NAME]
 *                              (delete with If-Match)
 *   job list --limit --offset  GET .../jobs?limit=N&offset=K: one page
 *   job list --limit --cursor  (list pagination), from the job a cursor
 *     --direction              names, in either direction; how many
 *                              follow, the next and previous cursors
 *   topology show | get | put  GET / GET into a file / PUT (with
 *                              If-Match) /restconf/data/ietf-network:
 *                              networks
 *   inventory show | get | put the same of /restconf/data/lightrail-
 *                              compute:compute (show adds the state's
 *                              devices in use)
 *   spectrum show [LINK]       GET /restconf/data/lightrail-state:state
 *   reconcile [--dry-run] [--reinstall]
 *                              POST /restconf/operations/lightrail-job:
 *                              reconcile (input dry-run, reinstall): the
 *                              daemon compares every device with its
 *                              store (and repairs)
 *   devices [NAME]             GET the state's device list: each
 *                              ROADM, whether it answers, why not
 *                              (none: the YANG library tells a daemon
 *                              without ROADMs from an older one)
 *   policy show                GET the state's ppo-policy
 *   policy reload              POST /restconf/operations/lightrail-state:
 *                              reload-ppo-policy, then as show
 *
 * Text output is for people (tables, one spectrum map per link); JSON
 * output (--format json) is the server's JSON, re-indented, for scripts.
 * The exit status says what went wrong in a way a script can act on
 * (see lr_cli.h): the server's RFC 8040 error-message is printed as
 * "lightrail CMD: STATUS: message", or "lightrail CMD: STATUS: PATH:
 * message" when the server sent an error-path.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "config.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_policy_file.h"
#include "yang/lr_yang.h"

#define DEFAULT_SERVER "https://127.0.0.1:8443"
#define JOBS_PATH "/restconf/data/lightrail-job:jobs"
#define NETWORKS_PATH "/restconf/data/ietf-network:networks"
#define COMPUTE_PATH "/restconf/data/lightrail-compute:compute"
#define STATE_PATH "/restconf/data/lightrail-state:state"
#define RECONCILE_PATH "/restconf/operations/lightrail-job:reconcile"
#define RELOAD_PATH "/restconf/operations/lightrail-state:reload-ppo-policy"
#define YLIB_PATH "/restconf/data/ietf-yang-library:yang-library"
/* The first revision of lightrail-state with the device list. */
#define STATE_DEVICES_REVISION "2026-12-06"
/* lightrail-job's revision that brought reconcile's input reinstall. */
#define JOB_REINSTALL_REVISION "2026-12-07"
#define RECONCILE_NODE "/lightrail-job:reconcile"
#define YANG_JSON "application/yang-data+json"
/* Slots per row of a spectrum map: 100 slots of 12.5 GHz = 1.25 THz. */
#define MAP_WIDTH 100
#define MAX_SLOTS (1L << 20)

enum client_cmd { C_JOB, C_TOPOLOGY, C_INVENTORY, C_SPECTRUM, C_RECONCILE,
                  C_POLICY, C_DEVICES };

struct client_opts {
    const char *cmd;            /* "job", for messages */
    const char *server, *token, *cacert, *cert, *key;
    bool insecure, json;
    bool dry_run;               /* reconcile --dry-run */
    bool reinstall;             /* reconcile --reinstall */
    long timeout;
    /* job submit --name ... */
    const char *name, *model, *algorithm;
    long batch, micro, gpus_min, gpus_max;  /* 0 = leave to the server */
    long iterations;                        /* 0 = not given */
    bool submit_opts;
    /* job list --limit, --offset: -1 = not given; --where, --sort-by,
     * --cursor, --direction ("forwards" or "backwards"): NULL = not
     * given */
    long limit, offset;
    const char *where, *sort_by, *cursor, *direction;
    /* topology | inventory put's and job delete's --if-match (quoted,
     * as sent); topology | inventory get's --out */
    const char *if_match, *out;
    char if_match_buf[128];
    /* what is left of argv: the action and its arguments */
    char **args;
    int n_args;
};

struct client_reply {
    long status;
    char *body;
    size_t len;
    char etag[128];     /* the answer's ETag, "" when none (or longer) */
};

static void
client_usage(FILE *f, enum client_cmd c)
{
    if (c == C_JOB)
        fprintf(f,
"usage: lightrail job submit FILE.json [OPTIONS]\n"
"       lightrail job submit --name NAME --model MODEL [--batch B]\n"
"                 [--microbatch b] [--gpus-min N] [--gpus-max N]\n"
"                 [--iterations N]\n"
"                 [--algorithm cdynp|exact|dp|pipedream|spp|zone|ppo]\n"
"                 [OPTIONS]\n"
"       lightrail job list [--where EXPR] [--sort-by LEAF] [--limit N]\n"
"                 [--offset K | --cursor C] [--direction D] [OPTIONS]\n"
"       lightrail job show NAME [OPTIONS]\n"
"       lightrail job delete NAME [--if-match ETAG] [OPTIONS]\n"
"\n"
"Submits, lists, shows and deletes training jobs on lightraild.  submit\n"
"FILE sends a lightrail-job JSON file as it is ('-' reads stdin); with\n"
"--name and --model it builds the intent from the options (what is not\n"
"given is left to the server's defaults).  The server plans the job at\n"
"once: submit prints the job it made, and exits 3 when it is blocked,\n"
"1 when it failed (a ROADM refused its lightpaths: the reason says\n"
"which; delete the failed job before submitting it again).\n"
"\n"
"  --name NAME         the job's name: letters, digits, '.', '_', '-'\n"
"  --model MODEL       a model preset (bert-large, gpt-1.9b, ...)\n"
"  --batch B           samples per iteration\n"
"  --microbatch b      samples per microbatch, dividing B\n"
"  --gpus-min N        the fewest free devices the job is planned with\n"
"                      (fewer free: blocked); its plan may hold fewer\n"
"  --gpus-max N        the most devices the job may hold\n"
"  --iterations N      the iterations the job will run (a ppo policy\n"
"                      trained with --known-work reads it)\n"
"  --algorithm A       the planner: cdynp, exact, dp, pipedream, spp,\n"
"                      zone, or ppo (the daemon's trained policy; CDynP\n"
"                      when it has none that fits: see the job's planner)\n"
"\n"
"list prints every job, in the order of their names.  With --limit it\n"
"asks for one page (lightraild builds only that: a GET of thousands of\n"
"jobs holds its other clients), and when jobs follow it ends with two\n"
"lines: how many and the command that lists the next page, then\n"
"'next: C', that page's cursor, for scripts; it does not fetch them\n"
"itself.  A page that does not start the list prints, before those,\n"
"'previous: C', the cursor of the job before its first: --cursor C\n"
"with the other --direction lists the jobs before the page, nearest\n"
"first.  A cursor starts the page at the job it names, so jobs\n"
"submitted or deleted before it since do not shift the pages, as they\n"
"shift an offset's.  --where and --sort-by choose and order the jobs on\n"
"the server, before --direction, --offset or --cursor and --limit take\n"
"the page.\n"
"\n"
"  --where EXPR        only the jobs for which the XPath 1.0 expression\n"
"                      EXPR, evaluated on each job's entry, is true, e.g.\n"
"                      \"state/phase='blocked'\" or\n"
"                      'count(state/lightpath)>0'\n"
"  --sort-by LEAF      the jobs in ascending order of a leaf of the entry\n"
"                      (name, model, priority, state/phase, state/created,\n"
"                      ...; numbers by value), those without it last, ties\n"
"                      by name\n"
"  --limit N           at most N jobs (1 to 4294967295)\n"
"  --offset K          skip the first K jobs (0 to the number of jobs;\n"
"                      more is refused by the server)\n"
"  --cursor C          start at the job the cursor C names (the 'next:'\n"
"                      of a page asked with the same --where, --sort-by\n"
"                      and --direction, or its 'previous:' with the\n"
"                      other --direction); a job deleted since is exit 4\n"
"  --direction D       forwards (the default: the list's order) or\n"
"                      backwards (from its end, or from the cursor's job\n"
"                      towards the start)\n"
"\n"
"show ends with the line 'etag: \"...\"', the version of the job shown\n"
"(with --format json it prints the server's JSON alone, no etag).\n"
"Under a lightpath's row, show gives the gOSNR its receiver measured\n"
"at provisioning (gosnr) and its mismatch with the modulation table in\n"
"use (mismatch), each when the server has it.\n"
"delete with --if-match deletes the job only if it is still that\n"
"version: one whose state moved since (or deleted and submitted again)\n"
"is left as it is.\n"
"\n"
"  --if-match ETAG     (delete) delete only the version with this etag\n"
"                      (as show printed it, quotes optional); if the job\n"
"                      changed since, nothing is deleted and delete\n"
"                      exits 3: show it again, then decide\n");
    else if (c == C_TOPOLOGY || c == C_INVENTORY) {
        const char *w = c == C_TOPOLOGY ? "topology" : "inventory";
        if (c == C_TOPOLOGY)
            fprintf(f,
"usage: lightrail topology show [OPTIONS]\n"
"       lightrail topology get --out FILE [OPTIONS]\n"
"       lightrail topology put FILE [--if-match ETAG] [OPTIONS]\n"
"\n"
"show: the optical topology lightraild manages: ROADMs, the data centers\n"
"attached to them, and the links with their length and slots.\n");
        else
            fprintf(f,
"usage: lightrail inventory show [OPTIONS]\n"
"       lightrail inventory get --out FILE [OPTIONS]\n"
"       lightrail inventory put FILE [--if-match ETAG] [OPTIONS]\n"
"\n"
"show: the compute inventory lightraild plans with: each data center,\n"
"the ROADM it is attached to, its GPUs (kind, how many, how many jobs\n"
"hold now and how many are free), its agent if it is remote; the GPU\n"
"kinds and the links between data centers.\n");
        fprintf(f,
"With --format json, show prints the server's JSON alone (no etag).\n"
"Text output ends with the line 'etag: \"...\"', the version shown.\n"
"\n"
"get --out FILE writes the server's JSON to FILE and prints its etag\n"
"alone on stdout, for scripts:\n"
"  tag=$(lightrail %s get --out f.json)\n"
"  ... edit f.json ...\n"
"  lightrail %s put f.json --if-match \"$tag\"\n"
"\n"
"put FILE replaces the %s with FILE ('-' reads stdin): the file is\n"
"validated here first (a file that does not hold a valid %s exits 2,\n"
"nothing sent); the server then checks it against the %s and the\n"
"jobs.  put prints what changed (added, removed and changed items) and\n"
"the new etag.  lightraild keeps what it plans with: other data of the\n"
"file (a termination point, say) is dropped, and a put that brought only\n"
"such data says 'unchanged'; get shows what it holds.  Without\n"
"--if-match put overwrites whatever the server holds, someone else's\n"
"edit made since you read it included.\n"
"\n"
"  --out FILE          (get) where to write the JSON\n"
"  --if-match ETAG     (put) replace only the version with this etag (as\n"
"                      show or get printed it, quotes optional); if\n"
"                      someone changed it since, nothing is changed and\n"
"                      put exits 3: get it again, redo your change, put\n"
"\n"
"exit status (besides those below): 3 also when the server has another\n"
"version than --if-match (412) or a job holds what put would replace.\n",
                w, w, w, w, c == C_TOPOLOGY ? "inventory" : "topology");
    }
    else if (c == C_RECONCILE)
        fprintf(f,
"usage: lightrail reconcile [--dry-run] [--reinstall] [OPTIONS]\n"
"\n"
"Asks lightraild to compare the media channels on every ROADM with what\n"
"its store says, and prints one line per difference: a channel no job\n"
"holds (an orphan, or one made behind the controller's back), an active\n"
"job's channel missing from a device, or one whose spectrum, ports or\n"
"state differ from the store's.  Without --dry-run the daemon repairs\n"
"what it finds (removes the orphans, re-applies what is missing,\n"
"replaces what differs); lightraild also does this at every start and\n"
"every reconcile-interval of its configuration (300 s by default).\n"
"\n"
"  --dry-run           report the drift, change nothing\n"
"  --reinstall         also install again every active job's channel on\n"
"                      the ROADMs whose driver's read is its own record\n"
"                      (mnoptical), which cannot show a rule the emulator\n"
"                      lost (restarted, /reset): one line each, no drift,\n"
"                      counted on the first line (\"6 re-installed\"; with\n"
"                      --dry-run \"6 to re-install\")\n"
"\n"
"exit status (besides those below): 0 the devices agree with the store,\n"
"or every difference was repaired; 3 --dry-run found drift; 1 the\n"
"daemon could not read or repair a device (its message says which; the\n"
"lines of the other devices, and what was done there, still follow);\n"
"7 --reinstall and lightraild is older than it (lightrail-job before\n"
"2026-12-07: its reconcile refuses the input): upgrade it.  Its YANG\n"
"library, asked then, not read (timed out, connection refused, 401,\n"
"403, 503: said, the 400 printed after it): the 400's 2, not 6 or 5.\n");
    else if (c == C_DEVICES)
        fprintf(f,
"usage: lightrail devices [NAME] [OPTIONS]\n"
"\n"
"Shows every ROADM lightraild programs (or NAME) as it last saw it, one\n"
"row each: its southbound driver and address, whether it is up (no: the\n"
"last apply or read got no answer: unreachable, session refused\n"
"or broken, timed out; a refusal of the device's own is an answer), the\n"
"media channels the jobs hold there, when an operation on it last\n"
"succeeded and last failed (UTC), and the last failure's reason (kept\n"
"once the device is back).  A device down shows up again with the next\n"
"operation that reaches it: a job on it, or lightrail reconcile\n"
"--dry-run.  --format json prints the state cut to those devices\n"
"(lightrail-state data, {\"lightrail-state:state\":{\"device\":[...]}}).\n"
"\n"
"exit status (besides those below): 0 every device shown is up; 3 one\n"
"is down; 4 no ROADM is named NAME; 7 lightraild is older than the\n"
"device list (its YANG library's lightrail-state revision is before\n"
"2026-12-06, or it names none, or it has no library): it cannot say,\n"
"upgrade it.  A library refused (401, 403, 503...) is that refusal's\n"
"status, with its reason.\n");
    else if (c == C_POLICY)
        fprintf(f,
"usage: lightrail policy show [OPTIONS]\n"
"       lightrail policy reload [OPTIONS]\n"
"       lightrail policy show FILE.pol\n"
"\n"
"show: the trained PPO policy lightraild decides ppo intents with (its\n"
"configuration's ppo-policy): the file, whether it is usable or why not,\n"
"when it was loaded, its checksum, and what it was trained for.\n"
"show FILE.pol: the same of a policy file on disk (lightrail train\n"
"--out), without a daemon: its checksum (compare it with the one in\n"
"use), what it was trained for, its sizes and the command that made it;\n"
"a file that does not load exits 2 saying why.\n"
"reload: loads the file again (as SIGHUP does: a policy retrained in\n"
"place), after the ppo intents queued before, then shows it.  A file\n"
"that does not load leaves a usable policy in use; the server's message\n"
"says why.\n"
"\n"
"exit status (besides those below): 4 lightraild has no ppo-policy\n"
"configured (show); 3 the same for reload; 1 the file was not taken.\n");
    else
        fprintf(f,
"usage: lightrail spectrum show [LINK] [OPTIONS]\n"
"\n"
"Shows the spectrum of every link (or of LINK, with its channels) as a\n"
"map of one character per 12.5 GHz slot, %d slots per row: '#' held by\n"
"a lightpath (guard bands included), '.' free.\n", MAP_WIDTH);
    fprintf(f,
"\n"
"options of every client command:\n"
"  --server URL        the controller (default $LIGHTRAIL_SERVER, else\n"
"                      " DEFAULT_SERVER ")\n"
"  --token T           a bearer token (default $LIGHTRAIL_TOKEN; prefer\n"
"                      the variable: other users can see command lines)\n"
"  --cacert FILE       trust the CA (or self-signed certificate) in FILE\n"
"                      for the server's certificate\n"
"  --cert FILE --key FILE  authenticate with a client certificate\n"
"  --insecure          do not verify the server's certificate (tests)\n"
"  --timeout S         give up after S seconds (default 60)\n"
"  --format FMT        text (default) or json (the server's RFC 7951 JSON)\n"
"\n"
"exit status: 0 done; 2 usage or bad input (also the server's 400, 416);\n"
"3 infeasible: the server refused the request (409, 412, 422) or the job\n"
"is blocked, with the reason printed; 4 not found (404); 5 unauthorised\n"
"(401, 403); 6 cannot connect, or TLS failed; 1 anything else\n");
}

/* --if-match: the tag as show and get print it, with its quotes or
 * without (the shell takes them off "$tag" typed by hand), into
 * o->if_match, quoted; NULL, or why not (in the words of c's put, or
 * job delete's). */
static const char *
client_if_match(struct client_opts *o, enum client_cmd c, const char *arg)
{
    bool job = c == C_JOB;
    size_t n = strlen(arg);
    bool quoted = n >= 2 && arg[0] == '"' && arg[n - 1] == '"';
    const char *in = quoted ? arg + 1 : arg;
    size_t k = quoted ? n - 2 : n;

    if (!strncmp(arg, "W/", 2))
        return job ? "--if-match: a weak tag (W/...) never matches a "
                     "DELETE's If-Match: give the etag show printed, "
                     "without W/"
                   : "--if-match: a weak tag (W/...) never matches a PUT's "
                     "If-Match: give the etag show or get printed, without "
                     "W/";
    if (!strcmp(arg, "*"))
        return job ? "--if-match * matches any version: leave --if-match "
                     "out to delete the job whatever version the server "
                     "holds"
                   : "--if-match * matches any version: leave --if-match "
                     "out to overwrite whatever the server holds";
    if (!k || k + 3 > sizeof o->if_match_buf)
        return job ? "--if-match wants the etag show printed (\"0123...\")"
                   : "--if-match wants the etag show or get printed "
                     "(\"0123...\")";
    /* RFC 9110 8.8.3's etagc: no blank, no control, no inner quote. */
    for (size_t i = 0; i < k; i++) {
        unsigned char ch = (unsigned char) in[i];
        if (ch < 0x21 || ch == '"' || ch == 0x7f)
            return job ? "--if-match wants the etag show printed "
                         "(\"0123...\"), without blanks or inner quotes"
                       : "--if-match wants the etag show or get printed "
                         "(\"0123...\"), without blanks or inner quotes";
    }
    snprintf(o->if_match_buf, sizeof o->if_match_buf, "\"%.*s\"", (int) k,
             in);
    o->if_match = o->if_match_buf;
    return NULL;
}

/* Parses argv into 'o': 0, -1 after --help, or an exit code. */
static int
client_parse(int argc, char **argv, enum client_cmd c, struct client_opts *o)
{
    enum { O_SERVER = 256, O_TOKEN, O_CACERT, O_CERT, O_KEY, O_INSECURE,
           O_TIMEOUT, O_FORMAT, O_NAME, O_MODEL, O_BATCH, O_MICRO, O_GMIN,
           O_GMAX, O_ALGO, O_DRY_RUN, O_ITER, O_LIMIT, O_OFFSET, O_WHERE,
           O_SORT_BY, O_CURSOR, O_DIRECTION, O_IF_MATCH, O_OUT, O_HELP,
           O_REINSTALL };
    static const struct option longopts[] = {
        { "server", required_argument, NULL, O_SERVER },
        { "token", required_argument, NULL, O_TOKEN },
        { "cacert", required_argument, NULL, O_CACERT },
        { "cert", required_argument, NULL, O_CERT },
        { "key", required_argument, NULL, O_KEY },
        { "insecure", no_argument, NULL, O_INSECURE },
        { "timeout", required_argument, NULL, O_TIMEOUT },
        { "format", required_argument, NULL, O_FORMAT },
        { "name", required_argument, NULL, O_NAME },
        { "model", required_argument, NULL, O_MODEL },
        { "batch", required_argument, NULL, O_BATCH },
        { "microbatch", required_argument, NULL, O_MICRO },
        { "gpus-min", required_argument, NULL, O_GMIN },
        { "gpus-max", required_argument, NULL, O_GMAX },
        { "algorithm", required_argument, NULL, O_ALGO },
        { "iterations", required_argument, NULL, O_ITER },
        { "dry-run", no_argument, NULL, O_DRY_RUN },
        { "reinstall", no_argument, NULL, O_REINSTALL },
        { "limit", required_argument, NULL, O_LIMIT },
        { "offset", required_argument, NULL, O_OFFSET },
        { "where", required_argument, NULL, O_WHERE },
        { "sort-by", required_argument, NULL, O_SORT_BY },
        { "cursor", required_argument, NULL, O_CURSOR },
        { "direction", required_argument, NULL, O_DIRECTION },
        { "if-match", required_argument, NULL, O_IF_MATCH },
        { "out", required_argument, NULL, O_OUT },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    const char *env;
    int opt;
    /* Each option that takes a value at most once (lr_cli_once()): a
     * second --server or --token is refused, not a silent override.
     * LIGHTRAIL_SERVER and LIGHTRAIL_TOKEN are defaults, not options:
     * --server and --token still replace them. */
    struct lr_cli_once once = { 0 };

    o->server = (env = getenv("LIGHTRAIL_SERVER")) && *env ? env : DEFAULT_SERVER;
    o->token = (env = getenv("LIGHTRAIL_TOKEN")) && *env ? env : NULL;
    o->timeout = 60;
    o->limit = o->offset = -1;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(o->cmd, longopts, opt, optarg, &once);
        if (rc_once)
            return rc_once;
        const char *bad = NULL, *count_opt = NULL;
        long *count = NULL;
        switch (opt) {
        case O_SERVER: o->server = optarg; break;
        case O_TOKEN: o->token = optarg; break;
        case O_CACERT: o->cacert = optarg; break;
        case O_CERT: o->cert = optarg; break;
        case O_KEY: o->key = optarg; break;
        case O_INSECURE: o->insecure = true; break;
        case O_TIMEOUT:
            if (lr_parse_long(optarg, 1, 86400, &o->timeout))
                bad = "--timeout wants whole seconds, 1 to 86400";
            break;
        case O_FORMAT:
            bad = lr_cli_parse_format(optarg, &o->json);
            break;
        case O_NAME: o->name = optarg; o->submit_opts = true; break;
        case O_MODEL: o->model = optarg; o->submit_opts = true; break;
        case O_ALGO: o->algorithm = optarg; o->submit_opts = true; break;
        case O_DRY_RUN:
            if (c != C_RECONCILE) {
                lr_cli_err(o->cmd, "--dry-run goes with reconcile only");
                return LR_EXIT_USAGE;
            }
            o->dry_run = true;
            break;
        case O_REINSTALL:
            if (c != C_RECONCILE) {
                lr_cli_err(o->cmd, "--reinstall goes with reconcile only");
                return LR_EXIT_USAGE;
            }
            o->reinstall = true;
            break;
        case O_BATCH: count = &o->batch; count_opt = "--batch"; break;
        case O_MICRO: count = &o->micro; count_opt = "--microbatch"; break;
        case O_GMIN: count = &o->gpus_min; count_opt = "--gpus-min"; break;
        case O_GMAX: count = &o->gpus_max; count_opt = "--gpus-max"; break;
        case O_ITER:
            o->submit_opts = true;
            if (lr_parse_long(optarg, 1, LONG_MAX, &o->iterations))
                bad = "--iterations wants a positive whole number";
            break;
        case O_LIMIT:
        case O_OFFSET:
            if (c != C_JOB) {
                lr_cli_err(o->cmd, "--limit and --offset go with job list "
                           "only");
                return LR_EXIT_USAGE;
            }
            /* The bounds of the server's query parameters (uint32). */
            if (lr_parse_long(optarg, opt == O_LIMIT, 4294967295L,
                              opt == O_LIMIT ? &o->limit : &o->offset))
                bad = opt == O_LIMIT
                      ? "--limit wants a positive integer, up to 4294967295"
                      : "--offset wants a non-negative integer, up to "
                        "4294967295";
            break;
        case O_WHERE:
        case O_SORT_BY:
            if (c != C_JOB) {
                lr_cli_err(o->cmd, "--where and --sort-by go with job list "
                           "only");
                return LR_EXIT_USAGE;
            }
            if (!*optarg)
                bad = opt == O_WHERE ? "--where wants an XPath expression"
                                     : "--sort-by wants the path of a leaf";
            *(opt == O_WHERE ? &o->where : &o->sort_by) = optarg;
            break;
        case O_CURSOR:
            if (c != C_JOB) {
                lr_cli_err(o->cmd, "--cursor goes with job list only");
                return LR_EXIT_USAGE;
            }
            /* The server judges it: it is opaque here. */
            if (!*optarg)
                bad = "--cursor wants the 'next:' of a page";
            o->cursor = optarg;
            break;
        case O_DIRECTION:
            if (c != C_JOB) {
                lr_cli_err(o->cmd, "--direction goes with job list only");
                return LR_EXIT_USAGE;
            }
            /* Judged here, the server's two words: a typo is a usage
             * error before any connection. */
            if (strcmp(optarg, "forwards") && strcmp(optarg, "backwards"))
                bad = "--direction wants 'forwards' or 'backwards'";
            o->direction = optarg;
            break;
        case O_IF_MATCH:
            if (c != C_TOPOLOGY && c != C_INVENTORY && c != C_JOB) {
                lr_cli_err(o->cmd, "--if-match goes with topology put, "
                           "inventory put and job delete only");
                return LR_EXIT_USAGE;
            }
            if ((bad = client_if_match(o, c, optarg)))
                return lr_cli_bad_value(o->cmd, bad, optarg);
            break;
        case O_OUT:
            if (c != C_TOPOLOGY && c != C_INVENTORY) {
                lr_cli_err(o->cmd, "--out goes with topology and inventory "
                           "get only");
                return LR_EXIT_USAGE;
            }
            o->out = optarg;
            break;
        case O_HELP:
            client_usage(stdout, c);
            return -1;
        default:
            return lr_cli_bad_option(o->cmd, argv, optind);
        }
        if (count) {
            o->submit_opts = true;
            if (lr_parse_long(optarg, 1, 2147483647, count)) {
                /* Say which count: "a count" left the user to guess. */
                lr_cli_err(o->cmd, "%s wants a positive whole number, not "
                           "'%s'", count_opt, optarg);
                return LR_EXIT_USAGE;
            }
        }
        if (bad)
            return lr_cli_bad_value(o->cmd, bad, optarg);
    }
    o->args = argv + optind;
    o->n_args = argc - optind;
    if (strncmp(o->server, "http://", 7) && strncmp(o->server, "https://", 8)) {
        lr_cli_err(o->cmd, "--server wants http://HOST:PORT or "
                   "https://HOST:PORT, not '%s'", o->server);
        return LR_EXIT_USAGE;
    }
    if (!!o->cert != !!o->key) {
        lr_cli_err(o->cmd, "--cert and --key go together");
        return LR_EXIT_USAGE;
    }
    if ((c == C_RECONCILE && o->n_args > 0)
        || (c == C_DEVICES && o->n_args > 1)) {
        lr_cli_err(o->cmd, "unexpected argument '%s' (see lightrail "
                   "%s --help)", o->args[c == C_DEVICES], o->cmd);
        return LR_EXIT_USAGE;
    }
    if (o->n_args == 0 && c != C_RECONCILE && c != C_DEVICES) {
        lr_cli_err(o->cmd, "which action: %s? (see lightrail %s --help)",
                   c == C_JOB ? "submit, list, show or delete"
                   : c == C_POLICY ? "show or reload"
                   : c == C_SPECTRUM ? "show" : "show, get or put", o->cmd);
        return LR_EXIT_USAGE;
    }
    return 0;
}

/* Checks that the action has 'lo'..'hi' arguments after it. */
static int
client_want_args(const struct client_opts *o, int lo, int hi,
                 const char *what)
{
    int n = o->n_args - 1;
    if (n < lo) {
        lr_cli_err(o->cmd, "%s %s needs %s", o->cmd, o->args[0], what);
        return LR_EXIT_USAGE;
    }
    if (n > hi) {
        lr_cli_err(o->cmd, "unexpected argument '%s' (see lightrail %s "
                   "--help)", o->args[hi + 1], o->cmd);
        return LR_EXIT_USAGE;
    }
    return 0;
}

/* JSON helpers ------------------------------------------------------------ */

static json_object *
jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Any scalar as text (RFC 7951 puts decimals and 64-bit numbers in
 * strings; both print as they came), or 'dflt'. */
static const char *
jstr(json_object *o, const char *key, const char *dflt)
{
    json_object *v = jget(o, key);
    if (!v || json_object_is_type(v, json_type_object)
        || json_object_is_type(v, json_type_array)
        || json_object_is_type(v, json_type_null))
        return dflt;
    return json_object_get_string(v);
}

/* Whether boolean leaf 'key' is present and true. */
static bool
jtrue(json_object *o, const char *key)
{
    return !strcmp(jstr(o, key, "false"), "true");
}

static long
jlong(json_object *o, const char *key)
{
    json_object *v = jget(o, key);
    return v ? (long) json_object_get_int64(v) : 0;
}

static size_t
jlen(json_object *a)
{
    return a && json_object_is_type(a, json_type_array)
           ? json_object_array_length(a) : 0;
}

static json_object *
jidx(json_object *a, size_t i)
{
    return json_object_array_get_idx(a, i);
}

static void
print_json(json_object *j)
{
    printf("%s\n", json_object_to_json_string_ext(
        j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
           | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* HTTP -------------------------------------------------------------------- */

static size_t
client_on_body(char *p, size_t size, size_t n, void *arg)
{
    struct client_reply *r = arg;
    size_t k = size * n;
    char *b = realloc(r->body, r->len + k + 1);
    if (!b)
        return 0;
    memcpy(b + r->len, p, k);
    r->len += k;
    b[r->len] = '\0';
    r->body = b;
    return k;
}

/* Keeps the ETag header of the last answer (a 100 Continue's block
 * comes first; its status line starts the block again). */
static size_t
client_on_header(char *p, size_t size, size_t n, void *arg)
{
    struct client_reply *r = arg;
    size_t k = size * n, v;
    if (k >= 5 && !strncmp(p, "HTTP/", 5))
        r->etag[0] = '\0';
    if (k > 5 && !strncasecmp(p, "ETag:", 5)) {
        p += 5;
        k -= 5;
        while (k && (*p == ' ' || *p == '\t'))
            p++, k--;
        for (v = k; v && (p[v - 1] == '\r' || p[v - 1] == '\n'
                          || p[v - 1] == ' ' || p[v - 1] == '\t'); v--)
            ;
        if (v < sizeof r->etag) {
            memcpy(r->etag, p, v);
            r->etag[v] = '\0';
        }
    }
    return size * n;
}

static int
client_exit_for(long status)
{
    if (status >= 200 && status < 300)
        return LR_EXIT_OK;
    switch (status) {
    case 400: case 416: return LR_EXIT_USAGE;
    case 401: case 403: return LR_EXIT_UNAUTHORISED;
    case 404: return LR_EXIT_NOT_FOUND;
    case 409: case 412: case 422: return LR_EXIT_INFEASIBLE;
    }
    return LR_EXIT_FAIL;
}

static const char *
client_status_text(long status)
{
    switch (status) {
    case 400: return "bad request";
    case 401: return "unauthorised";
    case 403: return "forbidden";
    case 404: return "not found";
    case 405: return "method not allowed (is --server a lightraild?)";
    case 409: return "conflict";
    case 412: return "precondition failed (the resource changed)";
    case 413: return "request too large";
    case 416: return "offset past the end of the list";
    case 422: return "unprocessable request";
    case 500: return "internal server error";
    case 503: return "service unavailable (the controller is stopping?)";
    }
    return "unexpected answer";
}

/* Prints why the server refused: its RFC 8040 error-message(s) when the
 * body has them, else a text for the status.  Each message follows its
 * error-path, the node of the body at fault (the message alone may not
 * say which job or leaf: "Invalid enumeration value"), unless the
 * message names that path itself. */
static void
client_report(const struct client_opts *o, const struct client_reply *r)
{
    json_object *top = r->body ? json_tokener_parse(r->body) : NULL;
    json_object *list = jget(jget(top, "ietf-restconf:errors"), "error");
    size_t n = jlen(list);
    for (size_t i = 0; i < n; i++) {
        const char *msg = jstr(jidx(list, i), "error-message", NULL);
        const char *path = jstr(jidx(list, i), "error-path", NULL);
        if (!msg)
            msg = jstr(jidx(list, i), "error-tag", "no message");
        if (path && path[0] && !strstr(msg, path))
            lr_cli_err(o->cmd, "%ld: %s: %s", r->status, path, msg);
        else
            lr_cli_err(o->cmd, "%ld: %s", r->status, msg);
    }
    if (!n)
        lr_cli_err(o->cmd, "%ld: %s", r->status, client_status_text(r->status));
    if ((r->status == 401 || r->status == 403) && !o->token && !o->cert)
        lr_cli_err(o->cmd, "give a token with --token or LIGHTRAIL_TOKEN, or "
                   "a client certificate with --cert and --key");
    json_object_put(top);
}

/* Appends to a header list, which stays valid on failure: 0 or ENOMEM. */
static int
add_header(struct curl_slist **list, const char *h)
{
    struct curl_slist *l = curl_slist_append(*list, h);
    if (!l)
        return ENOMEM;
    *list = l;
    return 0;
}

/* What to do when the server's certificate is not trusted (libcurl's
 * 'cc' and its words 'why'): a name the certificate does not hold wants
 * another --server, not another CA, a --cacert that does not load
 * wants another file, and an expired certificate a new one. */
static const char *
client_trust_hint(CURLcode cc, const char *why)
{
    if (cc == CURLE_SSL_CACERT_BADFILE)
        return "--cacert FILE must be a PEM certificate: the CA that signed "
               "the server's certificate, or that certificate itself when "
               "it is self-signed";
    if (strstr(why, "target host name"))
        return "the server's certificate does not name the host in "
               "--server: give the name or address it was made for (its "
               "subjectAltName), or make one that names this host";
    /* Trusted but out of date: another CA would not help.  lightraild
     * reads its listen certificate at start only. */
    if (strstr(why, "certificate has expired"))
        return "the server's certificate has expired: make it a new one "
               "(lightraild's listen/certificate) and restart lightraild, "
               "or check this host's clock";
    return "give the server's CA with --cacert FILE";
}

/* One request to the server; 'path' is already percent-encoded.  Returns
 * LR_EXIT_OK with the reply in 'r' (the caller frees r->body) for a 2xx
 * answer; otherwise returns the exit code, leaving in 'r' what the
 * server said, and prints the reason: always when no answer came (the
 * server unreachable, TLS), for an answer that is no 2xx when 'report'
 * (a caller that only probes what the server has passes false). */
static int
client_request(const struct client_opts *o, const char *method,
               const char *path, const char *body, size_t body_len,
               struct client_reply *r, bool report)
{
    char errbuf[CURL_ERROR_SIZE] = "", auth[1024], if_match[160];
    struct curl_slist *hdrs = NULL;
    size_t n = strlen(o->server);
    char *url = NULL;
    CURL *c = NULL;
    int rc = LR_EXIT_FAIL;

    memset(r, 0, sizeof *r);
    while (n && o->server[n - 1] == '/')
        n--;
    if (!(url = malloc(n + strlen(path) + 1)) || !(c = curl_easy_init())) {
        lr_cli_err(o->cmd, "out of memory");
        goto cleanup;
    }
    memcpy(url, o->server, n);
    strcpy(url + n, path);
    if (o->token) {
        if (strlen(o->token) > sizeof auth - 32 || strpbrk(o->token, "\r\n")) {
            lr_cli_err(o->cmd, "the token is too long or holds a line break");
            rc = LR_EXIT_USAGE;
            goto cleanup;
        }
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", o->token);
    }
    if (add_header(&hdrs, "Accept: " YANG_JSON)
        || (body && add_header(&hdrs, "Content-Type: " YANG_JSON))
        || add_header(&hdrs, "Expect:")     /* no 100-continue wait */
        || (o->token && add_header(&hdrs, auth))
        /* The precondition goes with the request that changes (put's
         * PUT, delete's DELETE), not with the GETs put makes around it. */
        || (o->if_match && strcmp(method, "GET")
            && (snprintf(if_match, sizeof if_match, "If-Match: %s",
                         o->if_match), add_header(&hdrs, if_match)))) {
        lr_cli_err(o->cmd, "out of memory");
        goto cleanup;
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o->timeout < 10 ? o->timeout : 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, o->timeout);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "lightrail/" PACKAGE_VERSION);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, client_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, client_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) body_len);
    }
    curl_easy_setopt(c, CURLOPT_SSLVERSION, (long) CURL_SSLVERSION_TLSv1_2);
    if (o->cacert)
        curl_easy_setopt(c, CURLOPT_CAINFO, o->cacert);
    if (o->cert) {
        curl_easy_setopt(c, CURLOPT_SSLCERT, o->cert);
        curl_easy_setopt(c, CURLOPT_SSLKEY, o->key);
    }
    if (o->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }

    CURLcode cc = curl_easy_perform(c);
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(cc);
    switch (cc) {
    case CURLE_OK:
        break;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        lr_cli_err(o->cmd, "--server %s: %s", o->server, why);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    case CURLE_OUT_OF_MEMORY:
        lr_cli_err(o->cmd, "out of memory");
        goto cleanup;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
        lr_cli_err(o->cmd, "cannot trust %s: %s (%s)", o->server, why,
                   client_trust_hint(cc, why));
        rc = LR_EXIT_UNREACHABLE;
        goto cleanup;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
        lr_cli_err(o->cmd, "TLS with %s failed: %s", o->server, why);
        rc = LR_EXIT_UNREACHABLE;
        goto cleanup;
    default:
        /* An HTTPS server answers a plain request by closing the
         * connection, which curl calls an empty reply. */
        lr_cli_err(o->cmd, "cannot talk to %s: %s%s", o->server, why,
                   cc == CURLE_GOT_NOTHING && !strncmp(o->server, "http:", 5)
                   ? " (if it serves HTTPS, as lightraild does unless its "
                     "listen/tls is false, give --server https://...)"
                   : "");
        rc = LR_EXIT_UNREACHABLE;
        goto cleanup;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    rc = client_exit_for(r->status);
    if (rc && report)
        client_report(o, r);

cleanup:
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    free(url);
    return rc;
}

/* client_request(), the reason of any failure printed. */
static int
client_call(const struct client_opts *o, const char *method, const char *path,
            const char *body, size_t body_len, struct client_reply *r)
{
    return client_request(o, method, path, body, body_len, r, true);
}

/* The path of one job, its name percent-encoded. */
static char *
client_job_path(const char *name)
{
    char *enc = curl_easy_escape(NULL, name, 0), *p = NULL;
    if (enc && (p = malloc(sizeof JOBS_PATH "/job=" + strlen(enc))))
        sprintf(p, "%s/job=%s", JOBS_PATH, enc);
    curl_free(enc);
    return p;
}

/* Text output ------------------------------------------------------------- */

/* The devices the job holds: its plan's while it is provisioning, active
 * or releasing.  A failed job keeps its plan (the server shows it) but
 * holds nothing: its GPUs were freed when it failed. */
static long
job_devices(json_object *job)
{
    const char *phase = jstr(jget(job, "state"), "phase", "");
    json_object *st = jget(jget(job, "state"), "stage");
    long n = 0;
    if (strcmp(phase, "provisioning") && strcmp(phase, "active")
        && strcmp(phase, "releasing"))
        return 0;
    for (size_t i = 0; i < jlen(st); i++)
        n += jlong(jidx(st, i), "devices");
    return n;
}

static void
print_job_table(json_object *jobs)
{
    size_t n = jlen(jobs);
    int wn = 4, wm = 5;
    if (!n) {
        printf("no jobs\n");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int a = (int) strlen(jstr(jidx(jobs, i), "name", "?"));
        int b = (int) strlen(jstr(jidx(jobs, i), "model", "?"));
        wn = a > wn ? a : wn;
        wm = b > wm ? b : wm;
    }
    printf("%-*s  %-*s  %-12s %5s %14s %7s %11s  %s\n", wn, "NAME", wm,
           "MODEL", "PHASE", "GPUS", "ITERATION (s)", "STAGES", "LIGHTPATHS",
           "REASON");
    for (size_t i = 0; i < n; i++) {
        json_object *j = jidx(jobs, i), *st = jget(j, "state");
        const char *reason = jstr(st, "reason", "");
        printf("%-*s  %-*s  %-12s %5ld %14s %7zu %11zu%s%s\n", wn,
               jstr(j, "name", "?"), wm, jstr(j, "model", "?"),
               jstr(st, "phase", "?"), job_devices(j),
               jstr(st, "iteration-time-s", "-"), jlen(jget(st, "stage")),
               jlen(jget(st, "lightpath")), *reason ? "  " : "", reason);
    }
}

/* Under a lightpath's row, the state leaves too long for a column:
 * the gOSNR its receiver measured at provisioning and the mismatch with
 * the modulation table in use (lightrail-job.yang), each when the
 * server gives it. */
static void
print_lightpath_quality(json_object *l)
{
    if (jstr(l, "gosnr", NULL))
        printf("%-9s gosnr     %s dB (measured at provisioning)\n", "",
               jstr(l, "gosnr", NULL));
    if (jstr(l, "modulation-mismatch", NULL))
        printf("%-9s mismatch  %s\n", "", jstr(l, "modulation-mismatch",
                                               NULL));
}

static void
print_job(json_object *j)
{
    json_object *st = jget(j, "state"), *g = jget(j, "gpus");
    json_object *stages = jget(st, "stage"), *lps = jget(st, "lightpath");
    printf("job %s: %s\n", jstr(j, "name", "?"), jstr(st, "phase", "?"));
    printf("  model       %s, batch %s, microbatch %s\n",
           jstr(j, "model", "?"), jstr(j, "batch", "32"),
           jstr(j, "microbatch", "1"));
    printf("  gpus        %s..%s wanted, %ld held\n", jstr(g, "min", "1"),
           jstr(g, "max", "65535"), job_devices(j));
    printf("  algorithm   %s\n", jstr(j, "algorithm", "cdynp"));
    if (jstr(j, "iterations", NULL))
        printf("  iterations  %s\n", jstr(j, "iterations", NULL));
    if (jstr(st, "iteration-time-s", NULL))
        printf("  iteration   %s s (predicted)\n",
               jstr(st, "iteration-time-s", NULL));
    if (jstr(st, "reason", NULL))
        printf("  reason      %s\n", jstr(st, "reason", NULL));
    if (jstr(st, "planner-note", NULL))
        printf("  planner     %s\n", jstr(st, "planner-note", NULL));
    if (jlen(stages)) {
        printf("\n%-6s %-11s %-12s %8s %12s\n", "STAGE", "LAYERS", "DC",
               "DEVICES", "TIME (s)");
        for (size_t i = 0; i < jlen(stages); i++) {
            json_object *s = jidx(stages, i);
            char layers[48];
            snprintf(layers, sizeof layers, "%s-%s",
                     jstr(s, "first-layer", "?"), jstr(s, "last-layer", "?"));
            printf("%-6s %-11s %-12s %8s %12s\n", jstr(s, "index", "?"),
                   layers, jstr(s, "dc", "?"), jstr(s, "devices", "?"),
                   jstr(s, "time-s", "-"));
        }
    }
    if (jlen(lps)) {
        printf("\n%-9s %-22s %10s %-10s %-13s %6s %4s %9s  %s\n", "LIGHTPATH",
               "FROM -> TO", "KM", "FORMAT", "SLOTS", "N", "M", "GB/S",
               "LINKS");
        for (size_t i = 0; i < jlen(lps); i++) {
            json_object *l = jidx(lps, i), *links = jget(l, "link");
            char ends[64], slots[48];
            long first = jlong(l, "first-slot"), w = jlong(l, "slots");
            snprintf(ends, sizeof ends, "%s -> %s", jstr(l, "from-dc", "?"),
                     jstr(l, "to-dc", "?"));
            snprintf(slots, sizeof slots, "%ld-%ld (%ld)", first,
                     first + w - 1, w);
            printf("%-9s %-22s %10s %-10s %-13s %6s %4s %9s  ",
                   jstr(l, "index", "?"), ends, jstr(l, "length-km", "-"),
                   jstr(l, "modulation", "-"), slots, jstr(l, "n", "-"),
                   jstr(l, "m", "-"), jstr(l, "capacity-gbps", "-"));
            for (size_t k = 0; k < jlen(links); k++)
                printf("%s%s", k ? "," : "",
                       json_object_get_string(jidx(links, k)));
            printf("\n");
            print_lightpath_quality(l);
        }
    }
}

/* job ---------------------------------------------------------------------- */

/* The intent from --name ... as RFC 7951 JSON; NULL when out of memory. */
static char *
job_body_from_opts(const struct client_opts *o)
{
    json_object *top = json_object_new_object();
    json_object *list = json_object_new_array();
    json_object *job = json_object_new_object();
    char *s = NULL;
    if (!top || !list || !job) {
        json_object_put(job);
        json_object_put(list);
        goto cleanup;
    }
    json_object_object_add(job, "name", json_object_new_string(o->name));
    json_object_object_add(job, "model", json_object_new_string(o->model));
    if (o->batch)
        json_object_object_add(job, "batch", json_object_new_int64(o->batch));
    if (o->micro)
        json_object_object_add(job, "microbatch", json_object_new_int64(o->micro));
    if (o->gpus_min || o->gpus_max) {
        json_object *g = json_object_new_object();
        if (o->gpus_min)
            json_object_object_add(g, "min", json_object_new_int64(o->gpus_min));
        if (o->gpus_max)
            json_object_object_add(g, "max", json_object_new_int64(o->gpus_max));
        json_object_object_add(job, "gpus", g);
    }
    if (o->algorithm)
        json_object_object_add(job, "algorithm",
                               json_object_new_string(o->algorithm));
    if (o->iterations) {
        /* uint64: a JSON string (RFC 7951, 6.1). */
        char v[32];
        snprintf(v, sizeof v, "%ld", o->iterations);
        json_object_object_add(job, "iterations", json_object_new_string(v));
    }
    json_object_array_add(list, job);
    json_object_object_add(top, "lightrail-job:job", list);
    const char *t = json_object_to_json_string_ext(
        top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    s = t ? strdup(t) : NULL;

cleanup:
    json_object_put(top);
    return s;
}

/* The job in a reply, whether one ({"lightrail-job:job":[...]}) or the
 * list's first; NULL when there is none.  Borrowed from 'top'. */
static json_object *
job_of(json_object *top)
{
    json_object *list = jget(top, "lightrail-job:job");
    if (!list)
        list = jget(jget(top, "lightrail-job:jobs"), "job");
    return jlen(list) ? jidx(list, 0) : NULL;
}

static int
job_submit(struct client_opts *o)
{
    char *body = NULL, err[512];
    size_t len = 0;
    struct client_reply r = { 0 };
    json_object *top = NULL;
    int rc;

    if (o->n_args == 2 && o->submit_opts) {
        lr_cli_err(o->cmd, "give a FILE or --name and --model, not both");
        return LR_EXIT_USAGE;
    }
    if (o->n_args == 1 && (!o->name || !o->model)) {
        lr_cli_err(o->cmd, "job submit needs a FILE, or --name NAME and "
                   "--model MODEL");
        return LR_EXIT_USAGE;
    }
    if ((rc = client_want_args(o, 0, 1, "a FILE")))
        return rc;
    if (o->n_args == 2) {
        const char *file = strcmp(o->args[1], "-") ? o->args[1] : "/dev/stdin";
        if (lr_yang_read_file(file, &body, &len, err, sizeof err)) {
            lr_cli_err(o->cmd, "%s", err);
            rc = LR_EXIT_USAGE;
            goto cleanup;
        }
        /* The server validates against the YANG module; this only saves
         * a round trip for a file that is not JSON at all. */
        enum json_tokener_error je;
        json_object *j = json_tokener_parse_verbose(body, &je);
        if (!j) {
            lr_cli_err(o->cmd, "%s: not JSON: %s", o->args[1],
                       json_tokener_error_desc(je));
            rc = LR_EXIT_USAGE;
            goto cleanup;
        }
        json_object_put(j);
    } else {
        if (!(body = job_body_from_opts(o))) {
            lr_cli_err(o->cmd, "out of memory");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        len = strlen(body);
    }

    if ((rc = client_call(o, "POST", JOBS_PATH, body, len, &r)))
        goto cleanup;
    top = r.body ? json_tokener_parse(r.body) : NULL;
    json_object *job = job_of(top);
    if (!job) {
        /* A server that answers 201 with no body, as RFC 8040 allows. */
        if (!o->json)
            printf("submitted\n");
        goto cleanup;
    }
    if (o->json)
        print_json(top);
    else
        print_job(job);
    const char *phase = jstr(jget(job, "state"), "phase", "");
    const char *reason = jstr(jget(job, "state"), "reason", "no reason given");
    if (!strcmp(phase, "blocked")) {
        lr_cli_err(o->cmd, "blocked: %s", reason);
        rc = LR_EXIT_INFEASIBLE;
    } else if (!strcmp(phase, "failed")) {
        lr_cli_err(o->cmd, "failed: %s", reason);
        rc = LR_EXIT_FAIL;
    }

cleanup:
    json_object_put(top);
    free(r.body);
    free(body);
    return rc;
}

/* The jobs list's path with the query of list pagination the options
 * ask for, values percent-encoded (the server decodes them); the server
 * judges them, and the offset against the list it has.  A new string,
 * or NULL when out of memory. */
static char *
job_list_path(const struct client_opts *o)
{
    char *w = o->where ? curl_easy_escape(NULL, o->where, 0) : NULL;
    char *sb = o->sort_by ? curl_easy_escape(NULL, o->sort_by, 0) : NULL;
    char *cu = o->cursor ? curl_easy_escape(NULL, o->cursor, 0) : NULL;
    char *path = NULL;
    if ((!o->where || w) && (!o->sort_by || sb) && (!o->cursor || cu)) {
        size_t len = strlen(JOBS_PATH) + 84 + (w ? strlen(w) + 7 : 0)
                     + (sb ? strlen(sb) + 9 : 0)
                     + (cu ? strlen(cu) + 8 : 0);
        if ((path = malloc(len))) {
            char *q = path + sprintf(path, "%s", JOBS_PATH);
            char sep = '?';
            if (w) {
                q += sprintf(q, "%cwhere=%s", sep, w);
                sep = '&';
            }
            if (sb) {
                q += sprintf(q, "%csort-by=%s", sep, sb);
                sep = '&';
            }
            if (o->limit >= 0) {
                q += sprintf(q, "%climit=%ld", sep, o->limit);
                sep = '&';
            }
            if (cu) {
                q += sprintf(q, "%ccursor=%s", sep, cu);
                sep = '&';
            }
            if (o->direction) {
                q += sprintf(q, "%cdirection=%s", sep, o->direction);
                sep = '&';
            }
            if (o->offset >= 0)
                sprintf(q, "%coffset=%ld", sep, o->offset);
        }
    }
    curl_free(w);
    curl_free(sb);
    curl_free(cu);
    return path;
}

static int
job_list_or_show(struct client_opts *o, bool show)
{
    struct client_reply r = { 0 };
    json_object *top = NULL;
    char *path = NULL;
    int rc;

    if ((rc = client_want_args(o, show, show, "a job NAME")))
        return rc;
    if (show && !(path = client_job_path(o->args[1]))) {
        lr_cli_err(o->cmd, "out of memory");
        return LR_EXIT_FAIL;
    }
    if (!show && (o->limit >= 0 || o->offset >= 0 || o->where
                  || o->sort_by || o->cursor || o->direction)
        && !(path = job_list_path(o))) {
        lr_cli_err(o->cmd, "out of memory");
        return LR_EXIT_FAIL;
    }
    if ((rc = client_call(o, "GET", path ? path : JOBS_PATH, NULL, 0, &r)))
        goto cleanup;
    top = r.body ? json_tokener_parse(r.body) : NULL;
    if (r.body && r.len && !top) {
        lr_cli_err(o->cmd, "the server's answer is not JSON");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (o->json) {
        if (top)
            print_json(top);
    } else if (show) {
        json_object *job = job_of(top);
        if (!job) {
            lr_cli_err(o->cmd, "the server's answer holds no job");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        print_job(job);
        /* The version shown, for delete --if-match; the JSON is the
         * server's alone, as topology show's. */
        if (r.etag[0])
            printf("etag: %s\n", r.etag);
    } else {
        json_object *list = jget(jget(top, "lightrail-job:jobs"), "job");
        print_job_table(list);
        /* The page's remaining and cursors (RFC 7952 metadata on its
         * first job): lightraild sends remaining and next together, and
         * previous when the page does not start the list.  previous
         * comes first, so that the last two lines stay the 'more' line
         * and next: for the scripts that read them. */
        json_object *meta = jlen(list) ? jget(jidx(list, 0), "@") : NULL;
        json_object *more = jget(meta, "lightrail-job:remaining");
        const char *next = json_object_get_string(
            jget(meta, "lightrail-job:next"));
        const char *previous = json_object_get_string(
            jget(meta, "lightrail-job:previous"));
        bool backwards = o->direction && !strcmp(o->direction, "backwards");
        if (previous && o->limit > 0)
            printf("previous: %s\n", previous);
        if (more && next && o->limit > 0) {
            printf("%" PRId64 " more job(s): lightrail job list --limit %ld "
                   "--cursor %s%s%s\n", json_object_get_int64(more),
                   o->limit, next, backwards ? " --direction backwards" : "",
                   o->where || o->sort_by
                   ? " (with the same --where and --sort-by)" : "");
            printf("next: %s\n", next);
        }
    }

cleanup:
    json_object_put(top);
    free(r.body);
    free(path);
    return rc;
}

static int
job_delete(struct client_opts *o)
{
    struct client_reply r = { 0 };
    char *path = NULL;
    int rc;

    if ((rc = client_want_args(o, 1, 1, "a job NAME")))
        return rc;
    if (!(path = client_job_path(o->args[1]))) {
        lr_cli_err(o->cmd, "out of memory");
        return LR_EXIT_FAIL;
    }
    if ((rc = client_call(o, "DELETE", path, NULL, 0, &r))) {
        /* A 404 or 409 stays what it is without --if-match: lightraild
         * does not judge the tag then (RFC 9110 13.2.1). */
        if (r.status == 412)
            lr_cli_err(o->cmd, "job %s was not deleted: lightrail job show "
                       "%s for the version it is now and its etag; to "
                       "delete that version, delete it with --if-match "
                       "that etag", o->args[1], o->args[1]);
        goto cleanup;
    }
    if (!o->json)
        printf("job %s deleted\n", o->args[1]);
    else if (r.len)
        printf("%s\n", r.body);

cleanup:
    free(r.body);
    free(path);
    return rc;
}

/* topology and spectrum ---------------------------------------------------- */

static void
print_topology(json_object *top)
{
    json_object *nets = jget(jget(top, "ietf-network:networks"), "network");
    if (!jlen(nets))
        printf("no networks\n");
    for (size_t i = 0; i < jlen(nets); i++) {
        json_object *net = jidx(nets, i), *nodes = jget(net, "node");
        json_object *links = jget(net, "ietf-network-topology:link");
        printf("%snetwork %s: %zu node%s, %zu link%s\n", i ? "\n" : "",
               jstr(net, "network-id", "?"), jlen(nodes),
               jlen(nodes) == 1 ? "" : "s", jlen(links),
               jlen(links) == 1 ? "" : "s");
        printf("%-12s %-24s %s\n", "NODE", "ROADM", "DATA CENTERS");
        for (size_t k = 0; k < jlen(nodes); k++) {
            json_object *n = jidx(nodes, k);
            json_object *dcs = jget(n, "lightrail-topology:dc-attachment");
            printf("%-12s %-24s ", jstr(n, "node-id", "?"),
                   jstr(jget(n, "lightrail-topology:roadm"), "name", "-"));
            for (size_t d = 0; d < jlen(dcs); d++)
                printf("%s%s", d ? "," : "", jstr(jidx(dcs, d), "dc", "?"));
            printf("%s\n", jlen(dcs) ? "" : "-");
        }
        printf("%-12s %-24s %10s %6s\n", "LINK", "FROM -> TO", "KM", "SLOTS");
        for (size_t k = 0; k < jlen(links); k++) {
            json_object *l = jidx(links, k);
            char ends[64];
            snprintf(ends, sizeof ends, "%s -> %s",
                     jstr(jget(l, "source"), "source-node", "?"),
                     jstr(jget(l, "destination"), "dest-node", "?"));
            printf("%-12s %-24s %10s %6s\n", jstr(l, "link-id", "?"), ends,
                   jstr(l, "lightrail-topology:length-km", "-"),
                   jstr(l, "lightrail-topology:slots", "-"));
        }
    }
}

/* One link as rows of MAP_WIDTH slots:
 *   r1-r2  [####....##..]  12/320 used */
static int
print_link_map(json_object *l, int width, bool channels)
{
    long slots = jlong(l, "slots");
    json_object *ch = jget(l, "channel");
    char *map;
    if (slots <= 0 || slots > MAX_SLOTS) {
        printf("%-*s  (%ld slots)\n", width, jstr(l, "id", "?"), slots);
        return 0;
    }
    if (!(map = malloc((size_t) slots)))
        return ENOMEM;
    memset(map, '.', (size_t) slots);
    for (size_t i = 0; i < jlen(ch); i++) {
        long first = jlong(jidx(ch, i), "first-slot");
        long w = jlong(jidx(ch, i), "slots");
        for (long s = first < 0 ? 0 : first; s < first + w && s < slots; s++)
            map[s] = '#';
    }
    for (long row = 0; row * MAP_WIDTH < slots; row++) {
        long n = slots - row * MAP_WIDTH;
        n = n > MAP_WIDTH ? MAP_WIDTH : n;
        printf("%-*s  [%.*s]", width, row ? "" : jstr(l, "id", "?"), (int) n,
               map + row * MAP_WIDTH);
        if ((row + 1) * MAP_WIDTH >= slots)
            printf("  %ld/%ld used", jlong(l, "used"), slots);
        printf("\n");
    }
    for (size_t i = 0; channels && i < jlen(ch); i++) {
        json_object *c = jidx(ch, i);
        long first = jlong(c, "first-slot"), w = jlong(c, "slots");
        printf("%-*s  slots %ld-%ld (%ld): %s\n", width, "", first,
               first + w - 1, w, jstr(c, "job", "?"));
    }
    free(map);
    return 0;
}

static int
spectrum_show(const struct client_opts *o, json_object *top)
{
    json_object *state = jget(top, "lightrail-state:state");
    json_object *links = jget(state, "link");
    const char *only = o->n_args > 1 ? o->args[1] : NULL;
    json_object *hit = NULL;
    int width = 4;

    for (size_t i = 0; i < jlen(links); i++) {
        const char *id = jstr(jidx(links, i), "id", "?");
        if (only && !strcmp(id, only))
            hit = jidx(links, i);
        width = (int) strlen(id) > width ? (int) strlen(id) : width;
    }
    if (only && !hit) {
        lr_cli_err(o->cmd, "no link '%s' (see lightrail spectrum show)", only);
        return LR_EXIT_NOT_FOUND;
    }
    if (o->json) {
        if (!hit) {
            print_json(top);
            return 0;
        }
        json_object *one = json_object_new_object(), *s = json_object_new_object();
        json_object *list = json_object_new_array();
        json_object_array_add(list, json_object_get(hit));
        json_object_object_add(s, "link", list);
        json_object_object_add(one, "lightrail-state:state", s);
        print_json(one);
        json_object_put(one);
        return 0;
    }
    if (!jlen(links))
        printf("no links\n");
    for (size_t i = 0; i < jlen(links); i++) {
        if (hit && jidx(links, i) != hit)
            continue;
        if (print_link_map(jidx(links, i), hit ? (int) strlen(only) : width,
                           hit != NULL)) {
            lr_cli_err(o->cmd, "out of memory");
            return LR_EXIT_FAIL;
        }
    }
    return 0;
}

/* The compute inventory as a table; 'state' (may be NULL) adds the
 * devices jobs hold per DC. */
static void
print_inventory(json_object *top, json_object *state)
{
    json_object *comp = jget(top, "lightrail-compute:compute");
    json_object *dcs = jget(comp, "dc"), *types = jget(comp, "device-type");
    json_object *links = jget(comp, "inter-dc-link");
    json_object *used = jget(jget(state, "lightrail-state:state"), "dc");
    printf("inventory: %zu data center%s, %zu GPU kind%s, %zu inter-DC "
           "link%s\n", jlen(dcs), jlen(dcs) == 1 ? "" : "s", jlen(types),
           jlen(types) == 1 ? "" : "s", jlen(links),
           jlen(links) == 1 ? "" : "s");
    printf("%-12s %-12s %-14s %6s %6s %6s  %s\n", "DC", "ROADM", "GPU",
           "GPUS", "IN USE", "FREE", "AGENT");
    for (size_t i = 0; i < jlen(dcs); i++) {
        json_object *d = jidx(dcs, i), *u = NULL, *remote = jget(d, "remote");
        const char *name = jstr(d, "name", "?");
        char agent[300] = "-", in_use[24] = "-", free_[24] = "-";
        for (size_t k = 0; k < jlen(used) && !u; k++)
            if (!strcmp(jstr(jidx(used, k), "name", ""), name))
                u = jidx(used, k);
        /* A remote DC's devices are its agent's: the state says 0. */
        if (u && !remote) {
            long n = jlong(d, "device-count"), h = jlong(u, "in-use");
            snprintf(in_use, sizeof in_use, "%ld", h);
            snprintf(free_, sizeof free_, "%ld", n - h);
        }
        if (remote)
            snprintf(agent, sizeof agent, "%s:%s",
                     jstr(remote, "address", "?"),
                     jstr(remote, "port", "?"));
        printf("%-12s %-12s %-14s %6s %6s %6s  %s\n", name,
               jstr(d, "attachment-node", "?"), jstr(d, "device-type", "?"),
               jstr(d, "device-count", "?"), in_use, free_, agent);
    }
    printf("%-14s %8s %10s %8s %6s\n", "GPU KIND", "TFLOPS", "EFFICIENCY",
           "MEM (GB)", "GPUS");
    for (size_t i = 0; i < jlen(types); i++) {
        json_object *t = jidx(types, i);
        long n = 0;
        for (size_t k = 0; k < jlen(dcs); k++)
            if (!strcmp(jstr(jidx(dcs, k), "device-type", ""),
                        jstr(t, "name", "?")))
                n += jlong(jidx(dcs, k), "device-count");
        printf("%-14s %8s %10s %8s %6ld\n", jstr(t, "name", "?"),
               jstr(t, "peak-tflops", "-"), jstr(t, "efficiency", "-"),
               jstr(t, "memory-gb", "-"), n);
    }
    printf("%-24s %8s %12s\n", "INTER-DC LINK", "GBPS", "LATENCY (ms)");
    for (size_t i = 0; i < jlen(links); i++) {
        json_object *l = jidx(links, i);
        char ends[64];
        snprintf(ends, sizeof ends, "%s -> %s", jstr(l, "from", "?"),
                 jstr(l, "to", "?"));
        printf("%-24s %8s %12s\n", ends, jstr(l, "bandwidth-gbps", "-"),
               jstr(l, "latency-ms", "-"));
    }
}

/* An item's key for the diff: 'key', or "from -> to" for inter-DC
 * links (key NULL). */
static void
diff_key(json_object *item, const char *key, char *buf, size_t size)
{
    if (key)
        snprintf(buf, size, "%s", jstr(item, key, "?"));
    else
        snprintf(buf, size, "%s -> %s", jstr(item, "from", "?"),
                 jstr(item, "to", "?"));
}

static json_object *
diff_find(json_object *list, const char *key, const char *want)
{
    char k[300];
    for (size_t i = 0; i < jlen(list); i++) {
        diff_key(jidx(list, i), key, k, sizeof k);
        if (!strcmp(k, want))
            return jidx(list, i);
    }
    return NULL;
}

/* Prints "  WHAT ID added|removed|changed" for the items of two lists,
 * matched by key; returns how many lines. */
static int
diff_list(const char *what, json_object *old, json_object *new_,
          const char *key)
{
    char k[300];
    int n = 0;
    for (size_t i = 0; i < jlen(old); i++) {
        json_object *a = jidx(old, i), *b;
        diff_key(a, key, k, sizeof k);
        if (!(b = diff_find(new_, key, k)))
            printf("  %s %s removed\n", what, k), n++;
        else if (!json_object_equal(a, b))
            printf("  %s %s changed\n", what, k), n++;
    }
    for (size_t i = 0; i < jlen(new_); i++) {
        diff_key(jidx(new_, i), key, k, sizeof k);
        if (!diff_find(old, key, k))
            printf("  %s %s added\n", what, k), n++;
    }
    return n;
}

/* What a put changed, from the server's text before and after (both its
 * own printing, so a file's other spelling of a number or a default it
 * leaves out is no change). */
static void
print_changes(enum client_cmd c, json_object *old, json_object *new_)
{
    const char *w = c == C_TOPOLOGY ? "topology" : "inventory";
    int n = 0;
    if (json_object_equal(old, new_)) {
        /* The same text as before: the file brought nothing new, or
         * only data lightraild does not keep (it dropped it). */
        printf("%s unchanged: the server's %s is as it was (the file held "
               "nothing new, or only data lightraild does not keep; "
               "lightrail %s get --out FILE shows what it holds)\n", w, w,
               w);
        return;
    }
    printf("%s replaced:\n", w);
    if (c == C_TOPOLOGY) {
        json_object *a = jget(jget(old, "ietf-network:networks"), "network");
        json_object *b = jget(jget(new_, "ietf-network:networks"), "network");
        char id[300];
        n += diff_list("network", a, b, "network-id");
        /* The nodes and links of the networks in both (one, as a rule):
         * each network's line above says only that something in it
         * changed. */
        for (size_t i = 0; i < jlen(a); i++) {
            json_object *na = jidx(a, i), *nb;
            diff_key(na, "network-id", id, sizeof id);
            if (!(nb = diff_find(b, "network-id", id)))
                continue;
            n += diff_list("node", jget(na, "node"), jget(nb, "node"),
                           "node-id");
            n += diff_list("link", jget(na, "ietf-network-topology:link"),
                           jget(nb, "ietf-network-topology:link"),
                           "link-id");
        }
    } else {
        json_object *a = jget(old, "lightrail-compute:compute");
        json_object *b = jget(new_, "lightrail-compute:compute");
        n += diff_list("GPU kind", jget(a, "device-type"),
                       jget(b, "device-type"), "name");
        n += diff_list("DC", jget(a, "dc"), jget(b, "dc"), "name");
        n += diff_list("inter-DC link", jget(a, "inter-dc-link"),
                       jget(b, "inter-dc-link"), NULL);
    }
    if (!n)
        printf("  (no item added, removed or changed: their order or "
               "other leaves changed)\n");
}

/* GET the topology or the inventory into '*top' (the caller puts it),
 * with its raw text in 'r' (the caller frees r->body). */
static int
doc_get(const struct client_opts *o, enum client_cmd c,
        struct client_reply *r, json_object **top)
{
    int rc = client_call(o, "GET", c == C_TOPOLOGY ? NETWORKS_PATH
                                                   : COMPUTE_PATH,
                         NULL, 0, r);
    *top = NULL;
    if (rc)
        return rc;
    if (!r->body || !(*top = json_tokener_parse(r->body))) {
        lr_cli_err(o->cmd, "the server's answer is not JSON");
        return LR_EXIT_FAIL;
    }
    return 0;
}

/* put FILE: checked here with the YANG modules the server has, sent with
 * o->if_match, what changed printed from GETs before and after. */
static int
doc_put(const struct client_opts *o, enum client_cmd c)
{
    const char *w = c == C_TOPOLOGY ? "topology" : "inventory";
    const char *file = strcmp(o->args[1], "-") ? o->args[1] : "/dev/stdin";
    struct client_reply before = { 0 }, r = { 0 }, after = { 0 };
    json_object *old = NULL, *new_ = NULL;
    struct lr_topo *topo = NULL;
    struct lr_cluster *cluster = NULL;
    struct ly_ctx *ly = NULL;
    char *body = NULL, err[1024];
    size_t len = 0;
    int rc;

    if (lr_yang_read_file(file, &body, &len, err, sizeof err)) {
        lr_cli_err(o->cmd, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (lr_yang_ctx_new(&ly, err, sizeof err)) {
        lr_cli_err(o->cmd, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    /* The file alone; whether it agrees with the other document and
     * the jobs only the server can say. */
    rc = c == C_TOPOLOGY
         ? lr_yang_load_topo_mem(ly, body, len, o->args[1], &topo, err,
                                 sizeof err)
         : lr_yang_load_cluster_mem(ly, body, len, o->args[1], &cluster,
                                    err, sizeof err);
    if (rc) {
        lr_cli_err(o->cmd, "%s (nothing was sent: fix the file; lightrail "
                   "%s get --out FILE gives the server's)", err, o->cmd);
        rc = rc == ENOMEM ? LR_EXIT_FAIL : LR_EXIT_USAGE;
        goto cleanup;
    }
    if ((rc = doc_get(o, c, &before, &old)))
        goto cleanup;
    if ((rc = client_call(o, "PUT", c == C_TOPOLOGY ? NETWORKS_PATH
                                                    : COMPUTE_PATH,
                          body, len, &r))) {
        if (r.status == 412)
            lr_cli_err(o->cmd, "the %s was not changed: lightrail %s get "
                       "--out FILE (or show) for the version it holds now "
                       "and its etag, redo your change on it, put it with "
                       "--if-match that etag", w, o->cmd);
        else if (r.status >= 400 && r.status < 500)
            lr_cli_err(o->cmd, "the %s was not changed", w);
        goto cleanup;
    }
    /* The change is made: a GET that fails now says so in its words,
     * and the exit status is its. */
    if ((rc = doc_get(o, c, &after, &new_))) {
        lr_cli_err(o->cmd, "the %s was replaced (etag %s), but reading it "
                   "back failed", w, r.etag[0] ? r.etag : "unknown");
        goto cleanup;
    }
    print_changes(c, old, new_);
    if (r.etag[0])
        printf("etag: %s\n", r.etag);

cleanup:
    json_object_put(old);
    json_object_put(new_);
    free(before.body);
    free(r.body);
    free(after.body);
    lr_topo_free(topo);
    lr_cluster_free(cluster);
    lr_yang_ctx_free(ly);
    free(body);
    return rc;
}

/* get --out FILE: the server's JSON as it came, the etag on stdout. */
static int
doc_save(const struct client_opts *o, enum client_cmd c)
{
    struct client_reply r = { 0 };
    json_object *top = NULL;
    FILE *f;
    int rc;

    if ((rc = doc_get(o, c, &r, &top)))
        goto cleanup;
    f = fopen(o->out, "w");
    bool written = f && fwrite(r.body, 1, r.len, f) == r.len;
    if ((f && fclose(f)) || !written) {
        lr_cli_err(o->cmd, "--out %s: cannot write it: %s", o->out,
                   strerror(errno));
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (!r.etag[0]) {
        lr_cli_err(o->cmd, "wrote %s, but the server sent no ETag (a "
                   "lightraild before 'Concurrent edits'?): put it without "
                   "--if-match", o->out);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    printf("%s\n", r.etag);

cleanup:
    json_object_put(top);
    free(r.body);
    return rc;
}

/* topology | inventory show | get | put. */
static int
client_doc(struct client_opts *o, enum client_cmd c)
{
    const char *act = o->args[0];
    struct client_reply r = { 0 }, st = { 0 };
    json_object *top = NULL, *state = NULL;
    int rc;

    if (strcmp(act, "show") && strcmp(act, "get") && strcmp(act, "put")) {
        lr_cli_err(o->cmd, "unknown action '%s': show, get or put (see "
                   "lightrail %s --help)", act, o->cmd);
        return LR_EXIT_USAGE;
    }
    if (o->if_match && strcmp(act, "put")) {
        lr_cli_err(o->cmd, "--if-match goes with put only");
        return LR_EXIT_USAGE;
    }
    if (!!o->out != !strcmp(act, "get")) {
        lr_cli_err(o->cmd, o->out ? "--out goes with get only"
                                  : "get needs --out FILE");
        return LR_EXIT_USAGE;
    }
    if (o->json && strcmp(act, "show")) {
        lr_cli_err(o->cmd, "--format json goes with show (get writes the "
                   "server's JSON to --out)");
        return LR_EXIT_USAGE;
    }
    if (!strcmp(act, "put"))
        return client_want_args(o, 1, 1, "a FILE")
               ? LR_EXIT_USAGE : doc_put(o, c);
    if ((rc = client_want_args(o, 0, 0, "")))
        return rc;
    if (o->out && !strcmp(o->out, "-")) {
        /* stdout carries the tag: the JSON and it would be one stream. */
        lr_cli_err(o->cmd, "--out - is not stdout here: get prints the etag "
                   "there; give a file name (or use show --format json)");
        return LR_EXIT_USAGE;
    }
    if (o->out)
        return lr_cli_output_check(o->cmd, "--out", o->out)
               ? LR_EXIT_USAGE : doc_save(o, c);
    if ((rc = doc_get(o, c, &r, &top)))
        goto cleanup;
    if (o->json) {
        /* The server's JSON alone, for a script: the tag is get's. */
        print_json(top);
        goto cleanup;
    }
    if (c == C_TOPOLOGY)
        print_topology(top);
    else {
        /* The devices jobs hold are the state's. */
        if ((rc = client_call(o, "GET", STATE_PATH, NULL, 0, &st)))
            goto cleanup;
        if (!st.body || !(state = json_tokener_parse(st.body))) {
            lr_cli_err(o->cmd, "the server's state is not JSON");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        print_inventory(top, state);
    }
    if (r.etag[0])
        printf("etag: %s\n", r.etag);

cleanup:
    json_object_put(top);
    json_object_put(state);
    free(r.body);
    free(st.body);
    return rc;
}

/* GET one resource and show it. */
static int
client_show(struct client_opts *o, enum client_cmd c)
{
    struct client_reply r = { 0 };
    json_object *top = NULL;
    int rc;

    if (strcmp(o->args[0], "show")) {
        lr_cli_err(o->cmd, "unknown action '%s': %s show (see --help)",
                   o->args[0], o->cmd);
        return LR_EXIT_USAGE;
    }
    if ((rc = client_want_args(o, 0, c == C_SPECTRUM, "")))
        return rc;
    if ((rc = client_call(o, "GET", STATE_PATH, NULL, 0, &r)))
        goto cleanup;
    if (!r.body || !(top = json_tokener_parse(r.body))) {
        lr_cli_err(o->cmd, "the server's answer is not JSON");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    rc = spectrum_show(o, top);

cleanup:
    json_object_put(top);
    free(r.body);
    return rc;
}

/* Shows the state's ppo-policy ('top': the state's JSON). */
static int
policy_print(const struct client_opts *o, json_object *top)
{
    json_object *p = jget(jget(top, "lightrail-state:state"), "ppo-policy");
    if (!p) {
        lr_cli_err(o->cmd, "lightraild has no ppo-policy configured: intents "
                   "for ppo are planned by cdynp");
        return LR_EXIT_NOT_FOUND;
    }
    if (o->json) {
        json_object *one = json_object_new_object();
        json_object_object_add(one, "lightrail-state:ppo-policy",
                               json_object_get(p));
        print_json(one);
        json_object_put(one);
        return 0;
    }
    printf("file        %s\n", jstr(p, "file", "?"));
    if (jtrue(p, "usable"))
        printf("usable      yes: %s\n",
               jtrue(p, "rollout")
               ? "intents for ppo are decided by its rollout"
               : "intents for ppo are decided by it");
    else
        printf("usable      no: %s\n", jstr(p, "reason", "?"));
    printf("loaded      %s\n", jstr(p, "loaded", "-"));
    printf("reloads     %s\n", jstr(p, "reloads", "0"));
    if (jget(p, "checksum")) {
        printf("checksum    %s\n", jstr(p, "checksum", "?"));
        lr_policy_print_trained(stdout, jstr(p, "topology", "?"),
                                jstr(p, "holding", "?"), jtrue(p, "refuse"),
                                jtrue(p, "known-work"),
                                jtrue(p, "held-work"));
        /* What else decides its placements, as `policy show FILE`'s
         * "jobs" line says it. */
        if (jtrue(p, "triples") || jtrue(p, "quads")
            || jtrue(p, "observe-load"))
            printf("also        %s%s%s%s%s\n",
                   jtrue(p, "triples") ? "pipelines over three DCs" : "",
                   jtrue(p, "triples") && jtrue(p, "quads") ? "; " : "",
                   jtrue(p, "quads") ? "pipelines over four DCs" : "",
                   (jtrue(p, "triples") || jtrue(p, "quads"))
                   && jtrue(p, "observe-load") ? "; " : "",
                   jtrue(p, "observe-load") ? "observes the load" : "");
        if (jget(p, "teacher"))
            printf("teacher     %s\n", jstr(p, "teacher", "?"));
        printf("command     %s\n", jstr(p, "command", "?"));
    }
    return 0;
}

/* policy show | reload: reload POSTs the operation (204) first. */
static int
client_policy(const struct client_opts *o)
{
    struct client_reply r = { 0 };
    json_object *top = NULL;
    int rc;
    bool reload = !strcmp(o->args[0], "reload");

    if (!reload && strcmp(o->args[0], "show")) {
        lr_cli_err(o->cmd, "unknown action '%s': show or reload",
                   o->args[0]);
        return LR_EXIT_USAGE;
    }
    if ((rc = client_want_args(o, 0, !reload, "")))
        return rc;
    if (o->n_args == 2) {       /* show FILE: the file, not the daemon */
        char err[1024];
        if (o->json) {
            lr_cli_err(o->cmd, "--format json shows the daemon's policy; "
                       "a file's header is text only");
            return LR_EXIT_USAGE;
        }
        if (lr_policy_describe(stdout, o->args[1], err, sizeof err)) {
            lr_cli_err(o->cmd, "%s", err);
            return LR_EXIT_USAGE;
        }
        return LR_EXIT_OK;
    }
    if (reload && (rc = client_call(o, "POST", RELOAD_PATH, NULL, 0, &r)))
        goto cleanup;
    free(r.body);
    r = (struct client_reply) { 0 };
    if ((rc = client_call(o, "GET", STATE_PATH, NULL, 0, &r)))
        goto cleanup;
    if (!r.body || !(top = json_tokener_parse(r.body))) {
        lr_cli_err(o->cmd, "the server's answer is not JSON");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    rc = policy_print(o, top);

cleanup:
    json_object_put(top);
    free(r.body);
    return rc;
}

/* The summary line of reconcile's output 'out': the count of
 * differences, whether repaired, and with the input's reinstall how
 * many channels were installed again (a daemon before the output's
 * 'reinstalled' leaves it out, and the line with it). */
static void
reconcile_summary(json_object *out, bool dry_run)
{
    long drift = jlong(out, "differences");
    printf("%ld difference(s)%s", drift,
           drift && jtrue(out, "repaired") ? ", repaired" : "");
    if (jget(out, "reinstalled"))
        printf(", %ld %s", jlong(out, "reinstalled"),
               dry_run ? "to re-install" : "re-installed");
    printf("\n");
}

/* Whether 'r', the answer to a reconcile whose input had reinstall,
 * has the shape of a lightraild's refusal of a member its input lacks:
 * 400 with error-tag invalid-value and error-path the operation's node
 * itself (libyang's path of a member its schema does not have; a value
 * of a leaf it has is that leaf's path).  The message is libyang's
 * sentence, not matched.  The shape alone does not say the member was
 * reinstall, nor that the daemon is older: reconcile_older() asks. */
static bool
reconcile_refused_member(const struct client_reply *r)
{
    if (r->status != 400 || !r->body)
        return false;
    json_object *top = json_tokener_parse(r->body);
    json_object *list = jget(jget(top, "ietf-restconf:errors"), "error");
    bool member = jlen(list) == 1
                  && !strcmp(jstr(jidx(list, 0), "error-tag", ""),
                             "invalid-value")
                  && !strcmp(jstr(jidx(list, 0), "error-path", ""),
                             RECONCILE_NODE);
    json_object_put(top);
    return member;
}

static int server_revision(const struct client_opts *, const char *,
                           char *, size_t);

/* A feature a lightraild older than its module's revision lacks, and
 * the words server_older() says that with: "lightraild at SERVER
 * <lacks> (<module> REV, before <since><why>): <way_out>", or, for a
 * library that names no revision of 'module', "... (its YANG library
 * names no <module> revision; <what> came with <since>): <way_out>". */
struct client_feature {
    const char *module;     /* the YANG module that brought it */
    const char *since;      /* the revision of 'module' it came with */
    const char *lacks;      /* "is older than --reinstall" */
    const char *why;        /* ": what the older revision has not", or "" */
    const char *what;       /* "the input 'reinstall'" */
    const char *way_out;    /* "upgrade it" */
};

/* Whether the server's YANG library says its revision of f->module is
 * older than f->since (or names none: a daemon before the library):
 * said then, LR_EXIT_TOO_OLD; LR_EXIT_OK when it is not older; or the
 * exit code of a library that could not be read, said by
 * server_revision(). */
static int
server_older(const struct client_opts *o, const struct client_feature *f)
{
    char rev[32];
    int rc = server_revision(o, f->module, rev, sizeof rev);
    if (rc)
        return rc;
    if (rev[0] && strcmp(rev, f->since) >= 0)
        return LR_EXIT_OK;
    if (rev[0])
        lr_cli_err(o->cmd, "lightraild at %s %s (%s %s, before %s%s): %s",
                   o->server, f->lacks, f->module, rev, f->since, f->why,
                   f->way_out);
    else
        lr_cli_err(o->cmd, "lightraild at %s %s (its YANG library names "
                   "no %s revision; %s came with %s): %s", o->server,
                   f->lacks, f->module, f->what, f->since, f->way_out);
    return LR_EXIT_TOO_OLD;
}

/* After reconcile_refused_member(): whether the server's lightrail-job
 * is older than the input reinstall (server_older()). */
static int
reconcile_older(const struct client_opts *o)
{
    static const struct client_feature reinstall = {
        .module = "lightrail-job", .since = JOB_REINSTALL_REVISION,
        .lacks = "is older than --reinstall",
        .why = ": its reconcile has no input 'reinstall'",
        .what = "the input 'reinstall'",
        .way_out = "upgrade it, or reconcile without --reinstall (a "
                   "restart of lightraild installs an active job's "
                   "channels again)",
    };
    return server_older(o, &reinstall);
}

/* POST the reconcile operation (its input's dry-run and reinstall,
 * written only when given, so that an older daemon still takes a plain
 * reconcile); the answer is
 * lightrail-job's output: the count, whether it repaired, with
 * reinstall how many were installed again, one line per difference. */
static int
client_reconcile(const struct client_opts *o)
{
    char in[96];
    struct client_reply r = { 0 };
    json_object *top = NULL;
    snprintf(in, sizeof in, "{\"lightrail-job:input\":{%s%s%s}}",
             o->dry_run ? "\"dry-run\":true" : "",
             o->dry_run && o->reinstall ? "," : "",
             o->reinstall ? "\"reinstall\":true" : "");
    bool given = o->dry_run || o->reinstall;
    /* With reinstall the refusal is judged before it is printed: an
     * older daemon's, by its YANG library, is said as such (until
     * 2026-12-07 its 400 was printed as it came, 'Node "reinstall" not
     * found ...'; then the 400's tag and path alone said older). */
    int rc = client_request(o, "POST", RECONCILE_PATH, given ? in : NULL,
                            given ? strlen(in) : 0, &r, !o->reinstall);
    if (rc && o->reinstall) {
        /* A library that cannot be read is said by server_revision();
         * the refusal is then printed too, and its exit code kept. */
        int older = reconcile_refused_member(&r) ? reconcile_older(o)
                                                 : LR_EXIT_OK;
        if (older == LR_EXIT_TOO_OLD) {
            rc = older;
            goto cleanup;
        }
        if (r.status)
            client_report(o, &r);
    }
    top = r.body ? json_tokener_parse(r.body) : NULL;
    if (rc) {
        /* A device that could not be read or repaired: the error is
         * printed; what the others differed in, and what was done
         * there, comes in its error-info. */
        json_object *errs = jget(jget(top, "ietf-restconf:errors"), "error");
        json_object *info = jlen(errs) ? jget(jidx(errs, 0), "error-info")
                                       : NULL;
        json_object *out = jget(info, "lightrail-job:output");
        json_object *lines = jget(out, "difference");
        if (out && o->json)
            print_json(info);
        else if (out) {
            reconcile_summary(out, o->dry_run);
            for (size_t i = 0; i < jlen(lines); i++)
                printf("%s\n", json_object_get_string(jidx(lines, i)));
        }
        goto cleanup;
    }
    json_object *out = jget(top, "lightrail-job:output");
    json_object *lines = jget(out, "difference");
    long drift = out && jget(out, "differences") ? jlong(out, "differences")
                                                 : -1;
    if (drift < 0) {
        lr_cli_err(o->cmd, "the server's answer is not a reconcile output "
                   "(is --server a lightraild?)");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (o->json) {
        print_json(top);
    } else {
        reconcile_summary(out, o->dry_run);
        for (size_t i = 0; i < jlen(lines); i++)
            printf("%s\n", json_object_get_string(jidx(lines, i)));
    }
    rc = o->dry_run && drift > 0 ? LR_EXIT_INFEASIBLE : LR_EXIT_OK;

cleanup:
    json_object_put(top);
    free(r.body);
    return rc;
}

/* "2026-12-06T14:33:04.123+00:00" as "2026-12-06 14:33:04" into
 * out[len] (the leaves are UTC, lr_yang_job_time); "-" when absent. */
static const char *
devices_time(json_object *d, const char *key, char *out, size_t len)
{
    const char *t = jstr(d, key, NULL);
    if (!t || strlen(t) < 19) {
        snprintf(out, len, "%s", t ? t : "-");
        return out;
    }
    snprintf(out, len, "%.10s %.8s", t, t + 11);
    return out;
}

/* Whether 's' is a YANG revision date, YYYY-MM-DD (RFC 7950 7.1.9):
 * what the server says is printed, and compared as text. */
static bool
is_revision(const char *s)
{
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9')
            return false;
    return s[10] == '\0';
}

/* The revision of module 'name' in the YANG library the server serves
 * (RFC 8525: its module-sets' modules), into rev[len]; "" when the
 * server has no library (404: a lightraild before the library had one
 * at no path), does not name the module or gives it no revision date;
 * LR_EXIT_FAIL, said, for a 200 that is no RFC 8525 library.
 * LR_EXIT_OK, or the exit code, said, when the server cannot be reached
 * or refuses the library (401, 403, a 503 of a proxy...): a refusal is
 * no answer about the modules, and must not pass for an old daemon. */
static int
server_revision(const struct client_opts *o, const char *name, char *rev,
                size_t len)
{
    struct client_reply r = { 0 };
    json_object *top = NULL;
    rev[0] = '\0';
    int rc = client_request(o, "GET", YLIB_PATH, NULL, 0, &r, false);
    /* No answer at all (said already), or a refusal (said here). */
    if (rc && r.status != 404) {
        if (r.status)
            client_report(o, &r);
        free(r.body);
        return rc;
    }
    top = !rc && r.body ? json_tokener_parse(r.body) : NULL;
    json_object *lib = jget(top, "ietf-yang-library:yang-library");
    /* A 200 that is no RFC 8525 library (a proxy's page, RFC 7895's
     * modules-state alone) says nothing about the modules either: until
     * 2026-12-07 it passed for a library naming none, an old daemon. */
    if (!rc && !lib) {
        lr_cli_err(o->cmd, "the answer to GET %s at %s is not an RFC 8525 "
                   "YANG library (no ietf-yang-library:yang-library): "
                   "cannot tell the server's %s revision (is --server a "
                   "lightraild, not a proxy?)", YLIB_PATH, o->server, name);
        json_object_put(top);
        free(r.body);
        return LR_EXIT_FAIL;
    }
    json_object *sets = jget(lib, "module-set");
    for (size_t i = 0; i < jlen(sets) && !rev[0]; i++) {
        json_object *mods = jget(jidx(sets, i), "module");
        for (size_t k = 0; k < jlen(mods); k++)
            if (!strcmp(jstr(jidx(mods, k), "name", ""), name)) {
                const char *v = jstr(jidx(mods, k), "revision", "");
                if (is_revision(v))
                    snprintf(rev, len, "%s", v);
                break;
            }
    }
    json_object_put(top);
    free(r.body);
    return LR_EXIT_OK;
}

/* A state without a device list: a lightraild that has no ROADM (RFC
 * 7951 leaves an empty list out), or one older than the list, which an
 * empty table would pass off as the first.  The YANG library tells
 * them apart (server_older()): LR_EXIT_OK for the first, else
 * LR_EXIT_TOO_OLD (or the exit code of a server that cannot be
 * reached), said. */
static int
devices_listed_by(const struct client_opts *o)
{
    static const struct client_feature devices = {
        .module = "lightrail-state", .since = STATE_DEVICES_REVISION,
        .lacks = "does not report its ROADMs' health", .why = "",
        .what = "the device list", .way_out = "upgrade it",
    };
    return server_older(o, &devices);
}

/* GET the state's device list and show it (all, or o->args[0]). */
static int
client_devices(const struct client_opts *o)
{
    struct client_reply r = { 0 };
    json_object *top = NULL, *shown = json_object_new_array();
    const char *name = o->n_args ? o->args[0] : NULL;
    int rc, down = 0;
    int w_name = 4, w_drv = 6, w_addr = 7;

    if (!shown)
        return LR_EXIT_FAIL;
    if ((rc = client_call(o, "GET", STATE_PATH, NULL, 0, &r)))
        goto cleanup;
    if (!r.body || !(top = json_tokener_parse(r.body))
        || !jget(top, "lightrail-state:state")) {
        lr_cli_err(o->cmd, "the server's answer is not lightrail-state "
                   "(is --server a lightraild?)");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    json_object *list = jget(jget(top, "lightrail-state:state"), "device");
    if (!list && (rc = devices_listed_by(o)))
        goto cleanup;
    for (size_t i = 0; i < jlen(list); i++) {
        json_object *d = jidx(list, i);
        if (name && strcmp(jstr(d, "name", ""), name))
            continue;
        json_object_array_add(shown, json_object_get(d));
        down += !jtrue(d, "up");
        int n = (int) strlen(jstr(d, "name", "?"));
        w_name = n > w_name ? n : w_name;
        n = (int) strlen(jstr(d, "driver", "-"));
        w_drv = n > w_drv ? n : w_drv;
        n = (int) strlen(jstr(d, "address", "-"));
        w_addr = n > w_addr ? n : w_addr;
    }
    if (name && !jlen(shown)) {
        lr_cli_err(o->cmd, "no ROADM named '%s' (lightrail devices lists "
                   "them)", name);
        rc = LR_EXIT_NOT_FOUND;
        goto cleanup;
    }
    if (o->json) {
        /* The state cut to the devices shown: still lightrail-state
         * data, which yanglint takes (a bare list would not be). */
        json_object *one = json_object_new_object();
        json_object *st = json_object_new_object();
        if (!one || !st) {
            json_object_put(one);
            json_object_put(st);
            lr_cli_err(o->cmd, "out of memory");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        json_object_object_add(st, "device", json_object_get(shown));
        json_object_object_add(one, "lightrail-state:state", st);
        print_json(one);
        json_object_put(one);
    } else {
        printf("%-*s  %-*s  %-*s  %-4s  %8s  %-19s  %-19s  %s\n", w_name,
               "NAME", w_drv, "DRIVER", w_addr, "ADDRESS", "UP", "CHANNELS",
               "LAST-OK", "LAST-FAILURE", "REASON");
        for (size_t i = 0; i < jlen(shown); i++) {
            json_object *d = jidx(shown, i);
            char ok[32], bad[32];
            printf("%-*s  %-*s  %-*s  %-4s  %8s  %-19s  %-19s  %s\n",
                   w_name, jstr(d, "name", "?"), w_drv,
                   jstr(d, "driver", "-"), w_addr, jstr(d, "address", "-"),
                   jtrue(d, "up") ? "yes" : "no",
                   jstr(d, "media-channels", "0"),
                   devices_time(d, "last-success", ok, sizeof ok),
                   devices_time(d, "last-failure", bad, sizeof bad),
                   jstr(d, "reason", "-"));
        }
    }
    rc = down ? LR_EXIT_INFEASIBLE : LR_EXIT_OK;

cleanup:
    json_object_put(shown);
    json_object_put(top);
    free(r.body);
    return rc;
}

/* Entry points ------------------------------------------------------------- */

static int
client_main(int argc, char **argv, enum client_cmd c, const char *cmd)
{
    struct client_opts o = { .cmd = cmd };
    int rc = client_parse(argc, argv, c, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    if (c != C_JOB || strcmp(o.args[0], "submit")) {
        /* (reconcile has no action word: o.args[0] may not exist.) */
        if (o.submit_opts) {
            lr_cli_err(cmd, "--name, --model, --batch, --microbatch, "
                       "--gpus-*, --algorithm go with job submit only");
            return LR_EXIT_USAGE;
        }
    }
    if (c == C_JOB && strcmp(o.args[0], "list")
        && (o.limit >= 0 || o.offset >= 0)) {
        lr_cli_err(cmd, "--limit and --offset go with job list only");
        return LR_EXIT_USAGE;
    }
    if (c == C_JOB && strcmp(o.args[0], "list") && (o.where || o.sort_by)) {
        lr_cli_err(cmd, "--where and --sort-by go with job list only");
        return LR_EXIT_USAGE;
    }
    if (c == C_JOB && strcmp(o.args[0], "list") && o.cursor) {
        lr_cli_err(cmd, "--cursor goes with job list only");
        return LR_EXIT_USAGE;
    }
    if (c == C_JOB && strcmp(o.args[0], "list") && o.direction) {
        lr_cli_err(cmd, "--direction goes with job list only");
        return LR_EXIT_USAGE;
    }
    if (o.cursor && o.offset >= 0) {
        lr_cli_err(cmd, "--cursor and --offset: give one (the cursor starts "
                   "at the job it names, the offset skips that many jobs)");
        return LR_EXIT_USAGE;
    }
    if (c == C_JOB && strcmp(o.args[0], "delete") && o.if_match) {
        lr_cli_err(cmd, "--if-match goes with job delete only");
        return LR_EXIT_USAGE;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
        lr_cli_err(cmd, "cannot initialise libcurl");
        return LR_EXIT_FAIL;
    }
    if (c == C_RECONCILE)
        rc = client_reconcile(&o);
    else if (c == C_DEVICES)
        rc = client_devices(&o);
    else if (c == C_POLICY)
        rc = client_policy(&o);
    else if (c == C_TOPOLOGY || c == C_INVENTORY)
        rc = client_doc(&o, c);
    else if (c != C_JOB)
        rc = client_show(&o, c);
    else if (!strcmp(o.args[0], "submit"))
        rc = job_submit(&o);
    else if (!strcmp(o.args[0], "list"))
        rc = job_list_or_show(&o, false);
    else if (!strcmp(o.args[0], "show"))
        rc = job_list_or_show(&o, true);
    else if (!strcmp(o.args[0], "delete"))
        rc = job_delete(&o);
    else {
        lr_cli_err(cmd, "unknown action '%s': submit, list, show or delete",
                   o.args[0]);
        rc = LR_EXIT_USAGE;
    }
    curl_global_cleanup();
    return rc;
}

int
lr_cmd_job(int argc, char **argv)
{
    return client_main(argc, argv, C_JOB, "job");
}

int
lr_cmd_topology(int argc, char **argv)
{
    return client_main(argc, argv, C_TOPOLOGY, "topology");
}

int
lr_cmd_inventory(int argc, char **argv)
{
    return client_main(argc, argv, C_INVENTORY, "inventory");
}

int
lr_cmd_spectrum(int argc, char **argv)
{
    return client_main(argc, argv, C_SPECTRUM, "spectrum");
}

int
lr_cmd_reconcile(int argc, char **argv)
{
    return client_main(argc, argv, C_RECONCILE, "reconcile");
}

int
lr_cmd_devices(int argc, char **argv)
{
    return client_main(argc, argv, C_DEVICES, "devices");
}

int
lr_cmd_policy(int argc, char **argv)
{
    return client_main(argc, argv, C_POLICY, "policy");
}

int
lr_client_request(const char *server, const char *token, const char *cacert,
                  const char *method, const char *path, const char *body,
                  long *status, char **reply)
{
    struct client_opts o = {
        .cmd = "client", .server = server, .token = token, .cacert = cacert,
        .timeout = 30,
    };
    struct client_reply r;
    int rc = client_call(&o, method, path, body, body ? strlen(body) : 0,
                         &r);
    *status = r.status;
    *reply = r.body;
    return rc;
}
