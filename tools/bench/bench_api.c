/*
 * lr-bench-api: admitted intents per second over HTTPS keep-alive, and
 * the latency of each admission, from a load generator on this machine.
 *
 *     lr-bench-api --server URL --token T --cacert F [--clients C]
 *                  [--seconds S] [--model NAME] [--gpus N]
 *
 * C clients (libcurl easy handles driven by one multi handle, each on its
 * own keep-alive TLS connection) loop: submit a job with a fresh name,
 * then delete it.  A submit counts as admitted when the answer is 201 with
 * the job active; its latency is the time from the request to the full
 * answer.  Reports admissions per second over the run, and the median
 * and 99th percentile submit latency.  `tools/bench/api.sh` starts a
 * lightraild with the dummy driver and runs this against it.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "planner/lr_stats.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-api"

struct client {
    CURL *h;
    int id;
    long seq;
    int deleting;             /* 0: a submit in flight, 1: a delete */
    double started;
    char name[64], url[512], body[512];
    char *reply;
    size_t len;
    struct curl_slist *hdrs;
};

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
    struct client *c = arg;
    size_t add = size * n;
    char *r = realloc(c->reply, c->len + add + 1);
    if (!r)
        return 0;
    memcpy(r + c->len, p, add);
    c->len += add;
    r[c->len] = '\0';
    c->reply = r;
    return add;
}

static const char *server, *model = "bert-large";
static int gpus = 8;

static void
start(struct client *c)
{
    c->len = 0;
    curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, NULL);
    if (!c->deleting) {
        snprintf(c->name, sizeof c->name, "bench-%d-%ld", c->id, ++c->seq);
        snprintf(c->url, sizeof c->url,
                 "%s/restconf/data/lightrail-job:jobs", server);
        snprintf(c->body, sizeof c->body,
                 "{\"lightrail-job:job\":[{\"name\":\"%s\",\"model\":\"%s\","
                 "\"batch\":32,\"microbatch\":1,\"gpus\":{\"min\":1,"
                 "\"max\":%d}}]}", c->name, model, gpus);
        curl_easy_setopt(c->h, CURLOPT_CUSTOMREQUEST, "POST");
        curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, c->body);
    } else {
        snprintf(c->url, sizeof c->url,
                 "%s/restconf/data/lightrail-job:jobs/job=%s", server,
                 c->name);
        curl_easy_setopt(c->h, CURLOPT_CUSTOMREQUEST, "DELETE");
    }
    curl_easy_setopt(c->h, CURLOPT_URL, c->url);
    c->started = now_s();
}

int
main(int argc, char **argv)
{
    const char *token = NULL, *cacert = NULL;
    int n_clients = 8;
    double seconds = 10;
    static const struct option longopts[] = {
        { "server", required_argument, NULL, 's' },
        { "token", required_argument, NULL, 't' },
        { "cacert", required_argument, NULL, 'c' },
        { "clients", required_argument, NULL, 'n' },
        { "seconds", required_argument, NULL, 'S' },
        { "model", required_argument, NULL, 'm' },
        { "gpus", required_argument, NULL, 'g' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int o, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (o = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-api", longopts, o, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (o) {
        case 's': server = optarg; break;
        case 't': token = optarg; break;
        case 'c': cacert = optarg; break;
        case 'n':
            bad = bench_opt_int(PROG, "clients", optarg, 1, 256, &n_clients);
            break;
        case 'S':
            bad = bench_opt_double(PROG, "seconds", optarg,
                                   BENCH_OPT_POSITIVE, 86400, &seconds);
            break;
        case 'm': model = optarg; break;
        case 'g':
            bad = bench_opt_int(PROG, "gpus", optarg, 1, INT_MAX, &gpus);
            break;
        case 'h':
        default:
            fprintf(o == 'h' ? stdout : stderr,
                    "usage: lr-bench-api --server URL --token T "
                    "--cacert F [--clients C] [--seconds S] [--model M] "
                    "[--gpus N]\n");
            return o == 'h' ? 0 : 2;
        }
    }
    if (bad)
        return bad;
    if (!server || !token) {
        fprintf(stderr, "lr-bench-api: --server and --token are "
                "required\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    struct client *cl = calloc((size_t) n_clients, sizeof *cl);
    size_t cap = 1 << 20, n_lat = 0;
    double *lat = malloc(cap * sizeof *lat);
    long admitted = 0, blocked = 0, errors = 0, deletes = 0;
    char auth[600];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    for (int i = 0; i < n_clients; i++) {
        struct client *c = &cl[i];
        c->id = i;
        c->h = curl_easy_init();
        c->hdrs = curl_slist_append(NULL, auth);
        c->hdrs = curl_slist_append(c->hdrs,
                                    "Content-Type: application/yang-data+json");
        curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->hdrs);
        curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c->h, CURLOPT_WRITEDATA, c);
        curl_easy_setopt(c->h, CURLOPT_PRIVATE, c);
        curl_easy_setopt(c->h, CURLOPT_TCP_NODELAY, 1L);
        if (cacert)
            curl_easy_setopt(c->h, CURLOPT_CAINFO, cacert);
        start(c);
        curl_multi_add_handle(multi, c->h);
    }
    double t0 = now_s(), end = t0 + seconds;
    int active = n_clients, running;
    while (active > 0) {
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct client *c;
            long status = 0;
            CURLcode result = msg->data.result;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &c);
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE,
                              &status);
            curl_multi_remove_handle(multi, c->h);
            active--;
            double t = now_s();
            if (result != CURLE_OK) {
                errors++;
                c->deleting = 0;
            } else if (!c->deleting) {
                if (status == 201 && c->reply
                    && strstr(c->reply, "\"active\"")) {
                    admitted++;
                    if (n_lat < cap)
                        lat[n_lat++] = t - c->started;
                } else if (status == 201) {
                    blocked++;
                } else {
                    errors++;
                }
                c->deleting = 1;
            } else {
                deletes += status == 204;
                errors += status != 204;
                c->deleting = 0;
            }
            /* After the deadline a client only finishes its delete. */
            if (t < end || c->deleting) {
                start(c);
                curl_multi_add_handle(multi, c->h);
                active++;
            }
        }
        if (active > 0)
            curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    double elapsed = now_s() - t0;
    double p50 = lr_stats_median(lat, (int) n_lat);   /* sorts lat */
    double p99 = n_lat ? lat[(size_t) (0.99 * (double) (n_lat - 1))] : 0;
    printf("| clients | seconds | admitted intents/s | p50 | p99 | admitted "
           "| blocked | deleted | errors |\n|---:|---:|---:|---:|---:|---:|"
           "---:|---:|---:|\n");
    printf("| %d | %.1f | %.0f | %.2f ms | %.2f ms | %ld | %ld | %ld | %ld |\n",
           n_clients, elapsed, admitted / elapsed, p50 * 1e3, p99 * 1e3,
           admitted, blocked, deletes, errors);
    for (int i = 0; i < n_clients; i++) {
        curl_easy_cleanup(cl[i].h);
        curl_slist_free_all(cl[i].hdrs);
        free(cl[i].reply);
    }
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    free(cl);
    free(lat);
    return errors ? 1 : 0;
}
