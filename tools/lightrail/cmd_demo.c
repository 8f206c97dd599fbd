/*
 * lightrail demo: the whole controller on one machine, in one command.
 *
 * Starts lightraild on embedded defaults (the metro topology and cluster
 * of examples/, dummy ROADMs) in a fresh temporary state directory with a
 * throw-away certificate and token, admits sample jobs of different models
 * over the HTTPS API, prints each job's plan, lightpaths and predicted
 * iteration time, the spectrum map and the ROADMs it programmed, and
 * stops the daemon.
 *
 * The daemon is stopped by its PID and the directory removed (or, when
 * the daemon would not start, kept and named) however the demo ends:
 * SIGINT, SIGTERM and SIGHUP set a flag that the demo reads between its
 * steps, and SIGPIPE is ignored, so that output into a closed pipe
 * (`| head`) makes writes fail instead of killing the demo with its
 * daemon still running.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_demo_emulate.h"
#include "tools/lightrail/lr_tls_selfsigned.h"

#define CMD "demo"
#define JOBS "/restconf/data/lightrail-job:jobs"
#define DEVICES "/restconf/data/lightrail-state:state?fields=device"

/* Generated from examples/ by tools/embed-text.sh. */
extern const char lr_demo_topology[];
extern const char lr_demo_cluster[];

struct sample {
    const char *name, *model, *batch, *micro, *gmin, *gmax;
};

/* Enough to fill the metro cluster (16 A100, 32 V100, 8 H100) and show a
 * block for want of GPUs and one for want of memory. */
static const struct sample samples[] = {
    { "gpt-1.9b-a", "gpt-1.9b", "64", "4", "4", "32" },
    { "bert-large-a", "bert-large", "64", "2", "2", "8" },
    { "llama2-7b-a", "llama2-7b", "32", "1", "8", "16" },
    { "llama2-13b-a", "llama2-13b", "32", "1", "16", "64" },
    { "llama2-70b-a", "llama2-70b", "32", "1", "4", "4" },
};
#define N_SAMPLES (int) (sizeof samples / sizeof samples[0])

static volatile sig_atomic_t demo_stop;

static void
demo_on_signal(int sig)
{
    (void) sig;
    demo_stop = 1;
}

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail demo [--format text|json] [--keep] [--lightraild PATH]\n"
"       lightrail demo --emulate [--format text|json] [--scale MBPS]\n"
"                      [--prefix NAME]\n"
"\n"
"Starts lightraild on embedded defaults (a 6-ROADM metro ring with three\n"
"data centers, dummy ROADMs) in a temporary state directory, admits %d\n"
"sample jobs over HTTPS, prints their plans, lightpaths, predicted\n"
"iteration times, the spectrum map and the ROADMs it programmed\n"
"(lightrail devices), and stops the daemon.\n"
"\n"
"  --format json     a summary object instead (jobs_submitted, jobs_active,\n"
"                    jobs_blocked, jobs_failed, lightpaths, jobs, roadms,\n"
"                    roadms_up, media_channels)\n"
"  --keep            keep the temporary directory (state, log, config)\n"
"  --lightraild PATH the daemon to start (default: beside this program,\n"
"                    then in ../sbin from it, then %s/lightraild,\n"
"                    then $PATH)\n"
"\n"
"  --emulate         (root) run the controller core in this process with the\n"
"                    emulated data plane: a network namespace per DC, a\n"
"                    tbf-shaped veth pair per lightpath; admit sample jobs,\n"
"                    send each inter-DC boundary's per-microbatch\n"
"                    activations over TCP on its lightpath, and print the\n"
"                    measured time beside the time model's prediction\n"
"                    (JSON: boundaries[] with predicted_s and measured_s).\n"
"                    Propagation delay is modelled, not emulated (no netem).\n"
"                    Everything is removed on exit and on Ctrl-C.\n"
"  --scale MBPS      real Mb/s per emulated Gb/s (default 1: 400 Gb/s is\n"
"                    shaped at 400 Mb/s); measured times are scaled back\n"
"  --prefix NAME     namespaces NAME-DC, interfaces NAMEv<N>a/b (default\n"
"                    lrdemo; 1-8 of a-z 0-9); leftovers with it are removed\n"
"                    first; a prefix another live process holds is refused\n"
"\n"
"Exit status: 0 done (sample jobs blocked for want of GPUs or memory\n"
"included: the demo shows refusals too), 2 bad option, 3 a sample job\n"
"could not be provisioned (the devices refused it, or a --scale tbf\n"
"cannot shape; the first one's reason on stderr), the emulation cannot\n"
"run here (not root, no namespaces) or a probe failed, 1 interrupted or\n"
"internal error.\n",
            N_SAMPLES, SBINDIR);
}

static int
write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f)) {
        lr_cli_err(CMD, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The daemon to run: beside us (the build tree), then in ../sbin from
 * us (an installed tree, also one not yet where it was configured for:
 * a packager's DESTDIR), then the installed one, then $PATH. */
static void
find_daemon(const char *given, char *out, size_t len)
{
    static const char *const beside[] = { "lightraild", "../sbin/lightraild" };
    char self[PATH_MAX];
    ssize_t n;
    if (given) {
        snprintf(out, len, "%s", given);
        return;
    }
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        for (size_t i = 0; slash && i < sizeof beside / sizeof *beside; i++) {
            snprintf(slash + 1, sizeof self - (size_t) (slash + 1 - self),
                     "%s", beside[i]);
            if (!access(self, X_OK)) {
                snprintf(out, len, "%s", self);
                return;
            }
        }
    }
    snprintf(out, len, "%s/lightraild", SBINDIR);
    if (access(out, X_OK))
        snprintf(out, len, "lightraild");
}

static int
random_token(char *out, size_t len)
{
    unsigned char b[16];
    FILE *f = fopen("/dev/urandom", "r");
    if (!f || fread(b, 1, sizeof b, f) != sizeof b) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    for (size_t i = 0; i < sizeof b && 2 * i + 2 < len; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

/* The ROADMs lightraild programs ('*n'), how many answered their last
 * operation ('*up') and the media channels the jobs hold on them
 * ('*channels'), from the state's device list; -1 when it cannot be
 * read, else 0. */
static int
count_roadms(const char *url, const char *token, const char *cert, int *n,
             int *up, int *channels)
{
    long status;
    char *reply = NULL;
    int rc = -1;
    *n = *up = *channels = 0;
    lr_client_request(url, token, cert, "GET", DEVICES, NULL, &status,
                      &reply);
    json_object *doc = reply ? json_tokener_parse(reply) : NULL, *st, *arr;
    if (status == 200 && doc
        && json_object_object_get_ex(doc, "lightrail-state:state", &st)
        && json_object_object_get_ex(st, "device", &arr)
        && json_object_is_type(arr, json_type_array)) {
        rc = 0;
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *d = json_object_array_get_idx(arr, i), *v;
            (*n)++;
            *up += json_object_object_get_ex(d, "up", &v)
                   && json_object_get_boolean(v);
            /* uint32 (RFC 7951 6.1: a number). */
            if (json_object_object_get_ex(d, "media-channels", &v))
                *channels += json_object_get_int(v);
        }
    } else if (status == 200) {
        lr_cli_err(CMD, "lightraild's state lists no ROADM (GET %s): the "
                   "demo's network has six", DEVICES);
    }
    /* (Any other answer: lr_client_request() said what it was.) */
    json_object_put(doc);
    free(reply);
    return rc;
}

/* The sample jobs lightraild holds failed (planned, and the devices
 * refused their lightpaths), read back once all are submitted; the
 * first one's name and reason into 'first'.  -1 when the list cannot be
 * read (the request said why on stderr). */
static int
count_failed(const char *url, const char *token, const char *cert,
             char *first, size_t len)
{
    long status;
    char *reply = NULL;
    int n = -1;
    first[0] = '\0';
    lr_client_request(url, token, cert, "GET", JOBS, NULL, &status, &reply);
    json_object *doc = reply ? json_tokener_parse(reply) : NULL, *jobs, *arr;
    if (doc && json_object_object_get_ex(doc, "lightrail-job:jobs", &jobs)
        && json_object_object_get_ex(jobs, "job", &arr)
        && json_object_is_type(arr, json_type_array)) {
        n = 0;
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *job = json_object_array_get_idx(arr, i), *state,
                        *v;
            if (!json_object_object_get_ex(job, "state", &state)
                || !json_object_object_get_ex(state, "phase", &v)
                || strcmp(json_object_get_string(v), "failed"))
                continue;
            if (!n++) {
                json_object *name, *why;
                json_object_object_get_ex(job, "name", &name);
                json_object_object_get_ex(state, "reason", &why);
                snprintf(first, len, "%s: %s", json_object_get_string(name),
                         why ? json_object_get_string(why) : "no reason");
            }
        }
    }
    json_object_put(doc);
    free(reply);
    return n;
}

static void
stop(pid_t pid)
{
    kill(pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

int
lr_cmd_demo(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "keep", no_argument, NULL, 'k' },
        { "lightraild", required_argument, NULL, 'l' },
        { "emulate", no_argument, NULL, 'e' },
        { "scale", required_argument, NULL, 's' },
        { "prefix", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    const char *why;
    int keep = 0, emulate = 0, emulate_opts = 0, c;
    int rc = LR_EXIT_FAIL;
    /* Not lightraild's default prefix ("lr"): a demo beside a daemon
     * with the emulated data plane would be refused (one process per
     * prefix). */
    struct lr_demo_emulate emu = { 0, 1.0, "lrdemo" };
    const char *daemon_path = NULL;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'f':
            if ((why = lr_cli_parse_format(optarg, &json)))
                return lr_cli_bad_value(CMD, why, optarg);
            break;
        case 'k': keep = 1; break;
        case 'l': daemon_path = optarg; break;
        case 'e': emulate = 1; break;
        case 's':
            if (lr_parse_double(optarg, 1e-3, 1e4, &emu.scale))
                return lr_cli_bad_value(CMD, "--scale wants real Mb/s per "
                                        "emulated Gb/s in [0.001, 10000]",
                                        optarg);
            emulate_opts = 1;
            break;
        case 'p': emu.prefix = optarg; emulate_opts = 1; break;
        case 'h': usage(stdout); return LR_EXIT_OK;
        default:
            /* getopt says '?' for an option without its value too. */
            return lr_cli_bad_option(CMD, argv, optind);
        }
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (emulate_opts && !emulate) {
        lr_cli_err(CMD, "--scale and --prefix go with --emulate");
        return LR_EXIT_USAGE;
    }
    if (emulate && (keep || daemon_path)) {
        lr_cli_err(CMD, "--keep and --lightraild go without --emulate (it "
                   "starts no daemon and keeps nothing)");
        return LR_EXIT_USAGE;
    }
    if (emulate) {
        emu.json = json;
        return lr_demo_emulate(&emu);
    }

    char dir[] = "/tmp/lightrail-demo-XXXXXX", path[PATH_MAX + 64];
    char token[40], err[512], daemon_bin[PATH_MAX], url[64];
    char cert[PATH_MAX + 16], cfgtext[2048];
    pid_t pid = -1;
    json_object *summary = NULL;
    struct lr_cli_signals sigs;
    demo_stop = 0;
    lr_cli_signals_catch(&sigs, demo_on_signal);
    if (!mkdtemp(dir)) {
        lr_cli_err(CMD, "cannot make a temporary directory: %s",
                   strerror(errno));
        goto cleanup_signals;
    }
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(path, sizeof path, "%s/key.pem", dir);
    /* write_file() says what failed itself. */
    if (write_file(dir, "metro-topology.json", lr_demo_topology)
        || write_file(dir, "metro-cluster.json", lr_demo_cluster))
        goto cleanup;
    if (random_token(token, sizeof token)) {
        lr_cli_err(CMD, "cannot read a token from /dev/urandom");
        goto cleanup;
    }
    if (lr_tls_selfsigned(cert, path, err, sizeof err)) {
        lr_cli_err(CMD, "cannot prepare %s: %s", dir, err);
        goto cleanup;
    }
    snprintf(cfgtext, sizeof cfgtext,
             "{\"lightrail-config:lightraild\": {\n"
             "  \"listen\": {\"address\": \"127.0.0.1\", \"port\": 0, "
             "\"tls\": true,\n"
             "             \"certificate\": \"cert.pem\", \"key\": "
             "\"key.pem\"},\n"
             "  \"token\": [{\"name\": \"demo\", \"secret\": \"%s\"}],\n"
             "  \"state-dir\": \"state\",\n"
             "  \"topology-file\": \"metro-topology.json\",\n"
             "  \"cluster-file\": \"metro-cluster.json\"\n}}\n", token);
    if (write_file(dir, "lightraild.json", cfgtext))
        goto cleanup;

    find_daemon(daemon_path, daemon_bin, sizeof daemon_bin);
    pid = fork();
    if (pid == 0) {
        snprintf(path, sizeof path, "%s/lightraild.log", dir);
        if (!freopen(path, "w", stderr))
            _exit(127);
        snprintf(path, sizeof path, "%s/lightraild.json", dir);
        execlp(daemon_bin, "lightraild", "--config", path, "--foreground",
               (char *) NULL);
        fprintf(stderr, "cannot run %s: %s\n", daemon_bin, strerror(errno));
        /* stderr is a file now, buffered: _exit() would drop the line. */
        fflush(stderr);
        _exit(127);
    }
    if (pid < 0) {
        lr_cli_err(CMD, "fork: %s", strerror(errno));
        goto cleanup;
    }
    /* Ready when it has written the port it bound. */
    int port = 0;
    snprintf(path, sizeof path, "%s/state/lightraild.port", dir);
    for (int i = 0; i < 200 && !port && !demo_stop; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (!port && waitpid(pid, NULL, WNOHANG) == pid) {
            lr_cli_err(CMD, "%s stopped at start; see %s/lightraild.log",
                       daemon_bin, dir);
            pid = -1;
            keep = 1;
            goto cleanup;
        }
        if (!port)
            usleep(50000);
    }
    if (demo_stop)
        goto interrupted;
    if (!port) {
        lr_cli_err(CMD, "lightraild did not come up in 10 s; see "
                   "%s/lightraild.log", dir);
        keep = 1;
        goto cleanup;
    }
    snprintf(url, sizeof url, "https://127.0.0.1:%d", port);
    if (!json)
        printf("lightraild %s serving %s (state in %s)\n\n", PACKAGE_VERSION,
               url, dir);

    summary = json_object_new_object();
    json_object *list = json_object_new_array();
    int n_active = 0, n_blocked = 0, n_failed = 0, n_lightpaths = 0;
    for (int i = 0; i < N_SAMPLES && !demo_stop; i++) {
        const struct sample *s = &samples[i];
        char body[512];
        snprintf(body, sizeof body,
                 "{\"lightrail-job:job\":[{\"name\":\"%s\",\"model\":\"%s\","
                 "\"batch\":%s,\"microbatch\":%s,\"gpus\":{\"min\":%s,"
                 "\"max\":%s}}]}", s->name, s->model, s->batch, s->micro,
                 s->gmin, s->gmax);
        if (!json) {
            printf("$ lightrail job submit --name %s --model %s --batch %s "
                   "--microbatch %s --gpus-min %s --gpus-max %s\n", s->name,
                   s->model, s->batch, s->micro, s->gmin, s->gmax);
            fflush(stdout);
            char *av[] = {
                "job", "submit", "--name", (char *) s->name, "--model",
                (char *) s->model, "--batch", (char *) s->batch,
                "--microbatch", (char *) s->micro, "--gpus-min",
                (char *) s->gmin, "--gpus-max", (char *) s->gmax, "--server",
                url, "--token", token, "--cacert", cert, NULL,
            };
            lr_cmd_job((int) (sizeof av / sizeof *av) - 1, av);
            printf("\n");
            fflush(stdout);
            continue;
        }
        long status;
        char *reply = NULL;
        lr_client_request(url, token, cert, "POST", JOBS, body, &status,
                          &reply);
        json_object *doc = reply ? json_tokener_parse(reply) : NULL, *arr,
                    *job = NULL, *state = NULL, *v;
        /* json-c's array calls assert their type: check it first. */
        if (doc && json_object_object_get_ex(doc, "lightrail-job:job", &arr)
            && json_object_is_type(arr, json_type_array))
            job = json_object_array_get_idx(arr, 0);
        if (job)
            json_object_object_get_ex(job, "state", &state);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(s->name));
        json_object_object_add(o, "model", json_object_new_string(s->model));
        json_object_object_add(o, "http_status", json_object_new_int((int) status));
        if (state) {
            const char *phase = json_object_object_get_ex(state, "phase", &v)
                                ? json_object_get_string(v) : NULL;
            if (!phase)
                phase = "?";
            json_object_object_add(o, "phase", json_object_new_string(phase));
            n_active += !strcmp(phase, "active");
            n_blocked += !strcmp(phase, "blocked");
            n_failed += !strcmp(phase, "failed");
            if (json_object_object_get_ex(state, "reason", &v))
                json_object_object_add(o, "reason", json_object_get(v));
            if (json_object_object_get_ex(state, "iteration-time-s", &v)
                && json_object_get_string(v))
                json_object_object_add(o, "iteration_time_s",
                    json_object_new_double(atof(json_object_get_string(v))));
            int lp = json_object_object_get_ex(state, "lightpath", &v)
                     && json_object_is_type(v, json_type_array)
                     ? (int) json_object_array_length(v) : 0;
            n_lightpaths += lp;
            json_object_object_add(o, "lightpaths", json_object_new_int(lp));
        }
        json_object_array_add(list, o);
        json_object_put(doc);
        free(reply);
    }
    if (demo_stop) {
        json_object_put(list);
        goto interrupted;
    }
    if (json) {
        int n_roadms, n_up, n_channels;
        if (count_roadms(url, token, cert, &n_roadms, &n_up, &n_channels)) {
            lr_cli_err(CMD, "cannot read the ROADMs back from lightraild");
            json_object_put(list);
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        json_object_object_add(summary, "roadms",
                               json_object_new_int(n_roadms));
        json_object_object_add(summary, "roadms_up",
                               json_object_new_int(n_up));
        json_object_object_add(summary, "media_channels",
                               json_object_new_int(n_channels));
        json_object_object_add(summary, "jobs_submitted",
                               json_object_new_int(N_SAMPLES));
        json_object_object_add(summary, "jobs_active",
                               json_object_new_int(n_active));
        json_object_object_add(summary, "jobs_blocked",
                               json_object_new_int(n_blocked));
        json_object_object_add(summary, "jobs_failed",
                               json_object_new_int(n_failed));
        json_object_object_add(summary, "lightpaths",
                               json_object_new_int(n_lightpaths));
        json_object_object_add(summary, "jobs", list);
        printf("%s\n", json_object_to_json_string_ext(summary,
                                                      JSON_C_TO_STRING_PRETTY));
    } else {
        json_object_put(list);
        printf("$ lightrail spectrum show\n");
        fflush(stdout);
        char *av[] = { "spectrum", "show", "--server", url, "--token", token,
                       "--cacert", cert, NULL };
        lr_cmd_spectrum((int) (sizeof av / sizeof *av) - 1, av);
        /* Every dummy ROADM answers: its exit status (3 for one down)
         * is not the demo's, which judges the jobs below. */
        printf("\n$ lightrail devices\n");
        fflush(stdout);
        char *ad[] = { "devices", "--server", url, "--token", token,
                       "--cacert", cert, NULL };
        lr_cmd_devices((int) (sizeof ad / sizeof *ad) - 1, ad);
        printf("\n$ lightrail job list\n");
        fflush(stdout);
        char *al[] = { "job", "list", "--server", url, "--token", token,
                       "--cacert", cert, NULL };
        lr_cmd_job((int) (sizeof al / sizeof *al) - 1, al);
    }
    if (demo_stop)
        goto interrupted;
    /* A sample job that failed is a demo that did not do its job. */
    char first[1024];
    int failed = count_failed(url, token, cert, first, sizeof first);
    rc = LR_EXIT_OK;
    if (failed < 0) {
        lr_cli_err(CMD, "cannot read the jobs back from lightraild");
        rc = LR_EXIT_FAIL;
    } else if (failed) {
        lr_cli_err(CMD, "%d of %d sample jobs could not be provisioned; "
                   "the first, %s", failed, N_SAMPLES, first);
        rc = LR_EXIT_INFEASIBLE;
    }
    goto cleanup;

interrupted:
    lr_cli_err(CMD, "interrupted: stopping lightraild");

cleanup:
    if (pid > 0)
        stop(pid);
    json_object_put(summary);
    if (keep) {
        fprintf(stderr, "lightrail demo: kept %s\n", dir);
    } else {
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            lr_cli_err(CMD, "could not remove %s", dir);
    }
cleanup_signals:
    lr_cli_signals_restore(&sigs);
    return rc;
}
