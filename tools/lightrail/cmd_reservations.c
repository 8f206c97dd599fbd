/*
 * lightrail reservations: what an agent's --state-dir holds for its
 * coordinators (reservations.json, lightrail-agent reservations), and
 * the way to free the reservations of a coordinator that is gone, whose
 * RELEASE or KEEP will never come (docs/agent-protocol.md).
 *
 * Listing reads the file as it is, also while the agent runs (its saves
 * replace the file whole, by rename: a reader sees one save or the
 * next).  Releasing is offline: it takes the directory's lock as the
 * agent does, so it refuses while an agent runs on it (the agent holds
 * its reservations in memory and would write them back over any
 * change), and writes as the agent writes (lr_agent_store_write(): a
 * temporary file, synced, renamed, the directory synced), after the new
 * document is checked against the schema.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/lightrail/lr_agent_store.h"
#include "tools/lightrail/lr_cli.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_agent.h"

#define CMD "reservations"

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail reservations --state-dir DIR [--format text|json]\n"
"       lightrail reservations --state-dir DIR --release OWNER [--tag TAG]\n"
"\n"
"Shows what an agent's --state-dir holds (reservations.json: the devices\n"
"each coordinator's COMMITs reserved there, as last saved), or, with the\n"
"agent stopped, frees them.\n"
"\n"
"  --state-dir DIR   the agent's --state-dir; --release is refused while\n"
"                    an agent runs on it (stop it first)\n"
"  --format F        text (default: owner, tag, devices, a line each) or\n"
"                    json (the file's YANG JSON)\n"
"  --release OWNER   free every reservation of coordinator OWNER (the peer\n"
"                    name the agent admitted it by), or with --tag only\n"
"                    that one: for a coordinator that is gone; a live one\n"
"                    frees its own with RELEASE or KEEP, and would still\n"
"                    count on what this frees\n"
"  --tag TAG         with --release: that tag only (a job's name)\n"
"\n"
"exit status: 0 done, 2 bad input (no such owner or tag, a file that does\n"
"not validate), 1 the directory is in use or cannot be written\n");
}

struct opts {
    const char *dir, *owner, *tag;
    bool json;
};

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_DIR = 256, O_FORMAT, O_RELEASE, O_TAG, O_HELP };
    static const struct option longopts[] = {
        { "state-dir", required_argument, NULL, O_DIR },
        { "format", required_argument, NULL, O_FORMAT },
        { "release", required_argument, NULL, O_RELEASE },
        { "tag", required_argument, NULL, O_TAG },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    const char *why;
    int c;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case O_DIR: o->dir = optarg; break;
        case O_RELEASE: o->owner = optarg; break;
        case O_TAG: o->tag = optarg; break;
        case O_FORMAT:
            if ((why = lr_cli_parse_format(optarg, &o->json)))
                return lr_cli_bad_value(CMD, why, optarg);
            break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            return lr_cli_bad_option(CMD, argv, optind);
        }
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (!o->dir) {
        lr_cli_err(CMD, "--state-dir DIR is required: the agent's");
        return LR_EXIT_USAGE;
    }
    if (o->tag && !o->owner) {
        lr_cli_err(CMD, "--tag TAG goes with --release OWNER: whose tag");
        return LR_EXIT_USAGE;
    }
    if (o->owner && o->json) {
        lr_cli_err(CMD, "--format is for showing, not with --release");
        return LR_EXIT_USAGE;
    }
    return 0;
}

static void
show(const struct lr_agent_reservation *r, int n)
{
    long long sum = 0;
    if (n)
        printf("%-24s %-32s %s\n", "OWNER", "TAG", "DEVICES");
    for (int i = 0; i < n; i++) {
        printf("%-24s %-32s %d\n", r[i].owner, r[i].tag, r[i].devices);
        sum += r[i].devices;
    }
    printf("%d reservation(s), %lld device(s)\n", n, sum);
}

/* Whether r is one of 'owner' ('tag' only, when given). */
static bool
dropped(const struct lr_agent_reservation *r, const char *owner,
        const char *tag)
{
    return !strcmp(r->owner, owner) && (!tag || !strcmp(r->tag, tag));
}

/* The reservations of r[0..n) but those of 'owner' ('tag' only, when
 * given) into keep[0..*kept); how many were dropped. */
static int
drop(const struct lr_agent_reservation *r, int n, const char *owner,
     const char *tag, struct lr_agent_reservation *keep, int *kept)
{
    *kept = 0;
    for (int i = 0; i < n; i++)
        if (!dropped(&r[i], owner, tag))
            keep[(*kept)++] = r[i];
    return n - *kept;
}

int
lr_cmd_reservations(int argc, char **argv)
{
    struct opts o = { 0 };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;

    struct ly_ctx *ctx = NULL;
    struct lr_agent_reservation *r = NULL, *keep = NULL;
    char err[4096], path[4096], *text = NULL;
    int n = 0, n_keep = 0, fd = -1;

    /* A directory that is not there is a mistake, not an agent with no
     * reservations. */
    struct stat st;
    int e = stat(o.dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (e) {
        lr_cli_err(CMD, "--state-dir %s: %s: give the agent's --state-dir",
                   o.dir, strerror(e));
        rc = LR_EXIT_USAGE;
        goto out;
    }
    if (o.owner
        && (rc = lr_agent_store_lock(o.dir, &fd, err, sizeof err))) {
        if (rc == EWOULDBLOCK)
            lr_cli_err(CMD, "--state-dir %s is in use by a running agent "
                       "(its agent.pid): stop it first, or have its "
                       "coordinator send RELEASE or KEEP", o.dir);
        else
            lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto out;
    }
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto out;
    }
    /* No file: no reservations (an agent that committed nothing). */
    bool found;
    if (lr_agent_store_load(ctx, o.dir, &r, &n, &found, path, sizeof path,
                            err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto out;
    }
    if (!o.owner) {
        if (!o.json) {
            show(r, n);
        } else if ((rc = lr_yang_reservations_print(ctx, r, n, &text, err,
                                                    sizeof err))) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
            goto out;
        } else {
            fputs(text, stdout);
        }
        rc = LR_EXIT_OK;
        goto out;
    }
    if (n && !(keep = calloc((size_t) n, sizeof *keep))) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto out;
    }
    if (!drop(r, n, o.owner, o.tag, keep, &n_keep)) {
        if (o.tag)
            lr_cli_err(CMD, "%s holds no tag '%s' of '%s': see lightrail "
                       "reservations --state-dir %s", path, o.tag, o.owner,
                       o.dir);
        else
            lr_cli_err(CMD, "%s holds nothing of '%s': see lightrail "
                       "reservations --state-dir %s", path, o.owner, o.dir);
        rc = LR_EXIT_USAGE;
        goto out;
    }
    if ((rc = lr_yang_reservations_print(ctx, keep, n_keep, &text, err,
                                         sizeof err))
        || (rc = lr_agent_store_write(o.dir, fd, text, err, sizeof err))) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto out;
    }
    /* Said once written: a release whose file was not written frees
     * nothing. */
    for (int i = 0; i < n; i++)
        if (dropped(&r[i], o.owner, o.tag))
            printf("released %s %s: %d device(s)\n", r[i].owner, r[i].tag,
                   r[i].devices);
    rc = LR_EXIT_OK;

out:
    free(text);
    free(keep);
    free(r);
    lr_yang_ctx_free(ctx);
    if (fd >= 0)
        close(fd);
    return rc;
}
