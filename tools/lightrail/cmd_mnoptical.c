/*
 * lightrail mnoptical check: is a lightpath on a Mininet-Optical
 * emulation received?  Tunes and turns on its two terminals, reads the
 * receiver's gOSNR and compares it with the modulation's threshold
 * (southbound/sb_mnoptical_lightpath.c; the ROADMs are programmed
 * beforehand, by lightraild's mnoptical driver or otherwise).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_modulation.h"
#include "planner/lr_util.h"
#include "southbound/sb_mnoptical.h"
#include "tools/lightrail/lr_cli.h"

#define MNO_CMD "mnoptical"
#define MNO_MAX_HOPS 64

static void
mno_usage(FILE *f)
{
    fprintf(f,
        "usage: lightrail mnoptical check --emulator URL --path T1,R1,...,T2\n"
        "           --eth-ports E1,E2 --n N --m M --modulation NAME\n"
        "           [--modulations FILE.csv] [--monitor NAME] [--timeout-ms MS]\n"
        "\n"
        "Tunes the terminals T1 and T2 of a lightpath on a Mininet-Optical\n"
        "emulation to its channel (the lowest 50 GHz channel of the media\n"
        "channel n, m: centre 193.1 THz + n x 6.25 GHz, width m x 12.5 GHz,\n"
        "which must be whole, aligned 50 GHz channels), turns them on, reads\n"
        "the receiver's monitor (default T2-monitor) and compares its gOSNR\n"
        "with the modulation's threshold, its minimum OSNR in the modulation\n"
        "table (by default BPSK 9, QPSK 12, 8QAM 16, 16QAM 20 dB).  The\n"
        "ROADMs of the path must already be programmed.\n"
        "  --emulator URL   the emulator's REST API, http://HOST:PORT\n"
        "  --path LIST      the terminals and ROADMs in order, comma-\n"
        "                   separated\n"
        "  --eth-ports E1,E2  the terminals' client ports (required by the\n"
        "                   emulator)\n"
        "  --n N, --m M     the media channel as lightraild provisioned it\n"
        "                   (lightrail job show): n of its centre, m of its\n"
        "                   width\n"
        "  --modulation NAME  a format of the table: the threshold\n"
        "  --modulations FILE  the table as CSV name,maximum_length,\n"
        "                   spectral_efficiency,minimum_osnr,... (rsa-sim's;\n"
        "                   minimum_osnr in dB, hundredths at most; a\n"
        "                   format without it, or\n"
        "                   with its cell empty, keeps the default's)\n"
        "  --monitor NAME   the receiver's monitor (default T2-monitor)\n"
        "  --timeout-ms MS  per request (default 5000)\n"
        "\n"
        "Prints the gOSNR and the margin.  Exit: 0 received, 2 bad input\n"
        "(usage, unknown node, spectrum that does not map), 3 not received\n"
        "(gOSNR below the threshold, or no signal at the monitor), 6 the\n"
        "emulator cannot be reached, 1 the emulator refused a request.\n");
}

static int
mno_exit(int ret)
{
    switch (ret) {
    case 0:
        return LR_EXIT_OK;
    case EINVAL:
    case ENOENT:
        return LR_EXIT_USAGE;
    case ERANGE:
    case ENOLINK:
        return LR_EXIT_INFEASIBLE;
    case EHOSTUNREACH:
    case ETIMEDOUT:
    case EACCES:
        return LR_EXIT_UNREACHABLE;
    default:
        return LR_EXIT_FAIL;
    }
}

/* lp->threshold_db from the table 'mods' (read from 'mods_path', or the
 * default when NULL): 0, or LR_EXIT_USAGE with one line when the table
 * has no such format or no threshold for it. */
static int
mno_threshold(const struct lr_modtable *mods, const char *mods_path,
              struct sb_mno_lightpath *lp)
{
    char why[512];
    int i = lr_modtable_find(mods, lp->modulation);
    if (i < 0) {
        int n = snprintf(why, sizeof why, "--modulation: one of");
        for (int k = 0; k < mods->n && n >= 0 && (size_t) n < sizeof why;
             k++)
            n += snprintf(why + n, sizeof why - n, "%s %s", k ? "," : "",
                          mods->f[k].name);
        if (mods_path && n >= 0 && (size_t) n < sizeof why)
            snprintf(why + n, sizeof why - n, " (the formats of %s)",
                     mods_path);
        return lr_cli_bad_value(MNO_CMD, why, lp->modulation);
    }
    lp->threshold_db = mods->f[i].osnr_db;
    /* Only a file leaves a format without a threshold: every default
     * format has one. */
    if (isnan(lp->threshold_db)) {
        lr_cli_err(MNO_CMD, "--modulation: '%s' has no OSNR threshold in "
                   "%s: give it in the file's minimum_osnr column (dB), or "
                   "choose another format", lp->modulation, mods_path);
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

static int
mno_check(int argc, char **argv)
{
    static const struct option opts[] = {
        { "emulator", required_argument, NULL, 'e' },
        { "path", required_argument, NULL, 'p' },
        { "eth-ports", required_argument, NULL, 'E' },
        { "n", required_argument, NULL, 'n' },
        { "m", required_argument, NULL, 'm' },
        { "modulation", required_argument, NULL, 'M' },
        { "modulations", required_argument, NULL, 'T' },
        { "monitor", required_argument, NULL, 'o' },
        { "timeout-ms", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct sb_mno_lightpath lp;
    const char *path_arg = NULL, *mods_path = NULL;
    struct lr_modtable mods;
    char path[1024], *hops[MNO_MAX_HOPS], err[1024];
    long v, n = LONG_MIN, m = -1, e1 = -1, e2 = -1;
    int c, n_hops = 0;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };

    memset(&lp, 0, sizeof lp);
    optind = 1;
    opterr = 0;   /* one line, ours, for a bad option: not getopt's too */
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc_once = lr_cli_once(MNO_CMD, opts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'e':
            lp.base = optarg;
            break;
        case 'p':
            path_arg = optarg;
            break;
        case 'E': {
            char *comma = strchr(optarg, ',');
            if (!comma)
                return lr_cli_bad_value(MNO_CMD, "--eth-ports: two port "
                                        "numbers E1,E2", optarg);
            *comma = '\0';
            int bad = lr_parse_long(optarg, 1, 65535, &e1)
                      || lr_parse_long(comma + 1, 1, 65535, &e2);
            *comma = ',';
            if (bad)
                return lr_cli_bad_value(MNO_CMD, "--eth-ports: two port "
                                        "numbers E1,E2 from 1 to 65535",
                                        optarg);
            break;
        }
        case 'n':
            if (lr_parse_long(optarg, -100000, 100000, &n))
                return lr_cli_bad_value(MNO_CMD, "--n: an integer", optarg);
            break;
        case 'm':
            if (lr_parse_long(optarg, 1, 100000, &m))
                return lr_cli_bad_value(MNO_CMD, "--m: a positive integer",
                                        optarg);
            break;
        case 'M':
            lp.modulation = optarg;
            break;
        case 'T':
            mods_path = optarg;
            break;
        case 'o':
            lp.monitor = optarg;
            break;
        case 't':
            if (lr_parse_long(optarg, 10, 600000, &v))
                return lr_cli_bad_value(MNO_CMD, "--timeout-ms: 10 to "
                                        "600000", optarg);
            lp.timeout_ms = (int) v;
            break;
        case 'h':
            mno_usage(stdout);
            return LR_EXIT_OK;
        default:
            return lr_cli_bad_option(MNO_CMD, argv, optind);
        }
    }
    if ((c = lr_cli_extra_args(MNO_CMD, argc, argv, optind)))
        return c;
    if (!lp.base || !path_arg || e1 < 0 || n == LONG_MIN || m < 0
        || !lp.modulation) {
        lr_cli_err(MNO_CMD, "check needs --emulator, --path, --eth-ports, "
                   "--n, --m and --modulation (see lightrail mnoptical "
                   "--help)");
        return LR_EXIT_USAGE;
    }
    n_hops = lr_cli_split_list(MNO_CMD, "--path", "nodes", path_arg, path,
                               sizeof path, hops, MNO_MAX_HOPS);
    if (n_hops < 0)
        return LR_EXIT_USAGE;
    if (n_hops < 3) {
        lr_cli_err(MNO_CMD, "--path: a terminal, at least one ROADM and a "
                   "terminal, comma-separated (e.g. t1,r1,r2,t2)");
        return LR_EXIT_USAGE;
    }
    lr_modtable_default(&mods);
    if (mods_path
        && (c = lr_cli_load_modulations(MNO_CMD, mods_path, &mods)))
        return c;
    if ((c = mno_threshold(&mods, mods_path, &lp)))
        return c;
    lp.tx = hops[0];
    lp.first_roadm = hops[1];
    lp.last_roadm = hops[n_hops - 2];
    lp.rx = hops[n_hops - 1];
    lp.tx_eth_port = (int) e1;
    lp.rx_eth_port = (int) e2;
    lp.n = (int) n;
    lp.m = (int) m;
    struct sb_mno_gosnr g;
    int ret = sb_mno_lightpath_check(&lp, &g, err, sizeof err);
    if (ret && ret != ERANGE) {
        lr_cli_err(MNO_CMD, "%s", err);
        return mno_exit(ret);
    }
    char gt[32], tt[32], mt[32];
    sb_mno_gosnr_text(g.gosnr_db, lp.threshold_db, gt, tt, mt, sizeof gt);
    printf("%s -> %s on channel %d: gOSNR %s dB (OSNR %.1f dB), %s needs "
           "%s dB: margin %s dB, %s\n", lp.tx, lp.rx, g.channel, gt,
           g.osnr_db, lp.modulation, tt, mt,
           ret ? "NOT received" : "received");
    if (ret)
        lr_cli_err(MNO_CMD, "%s", err);
    return mno_exit(ret);
}

int
lr_cmd_mnoptical(int argc, char **argv)
{
    if (argc < 2) {
        mno_usage(stderr);
        return LR_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        mno_usage(stdout);
        return LR_EXIT_OK;
    }
    if (!strcmp(argv[1], "check"))
        return mno_check(argc - 1, argv + 1);
    lr_cli_err(MNO_CMD, "unknown subcommand '%s' (see lightrail mnoptical "
               "--help)", argv[1]);
    return LR_EXIT_USAGE;
}
