/*
 * sbctl: drives one device through a southbound driver, for the shell
 * tests (not installed).
 *
 *   sbctl DRIVER DEVICE ADDRESS CMD [ARGS] [-- CMD [ARGS]]...
 *     read                          the channels, one line each, sorted:
 *                                   NAME IN OUT N M enabled|disabled
 *                                   ("-" for an empty port)
 *     add NAME IN OUT N M           one media channel ("-" = no port)
 *     del NAME
 *     sleep MS
 *
 * Several commands run on one open device (one session).  The NETCONF
 * settings come from the environment: SB_KEY, SB_KNOWN_HOSTS,
 * SB_SCHEMA_PATH, SB_TIMEOUT_MS, and over TLS SB_TRANSPORT=tls,
 * SB_TLS_CERT, SB_TLS_KEY, SB_TLS_CA.  Exit: 0 done; 1 a command failed (one
 * line on stderr: "sbctl: ERRNO-NAME: the driver's message"); 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "southbound/sb_driver.h"

static const char *
errname(int e)
{
    switch (e) {
    case ETIMEDOUT: return "ETIMEDOUT";
    case EEXIST: return "EEXIST";
    case ENOENT: return "ENOENT";
    case EPROTO: return "EPROTO";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    default: return "EIO";
    }
}

static int
cmp_mc(const void *a, const void *b)
{
    return strcmp(((const struct sb_media_channel *) a)->name,
                  ((const struct sb_media_channel *) b)->name);
}

static void
env_copy(char *dst, size_t size, const char *name)
{
    const char *v = getenv(name);
    snprintf(dst, size, "%s", v ? v : "");
}

static int
usage(void)
{
    fprintf(stderr, "usage: sbctl DRIVER DEVICE ADDRESS CMD [ARGS] "
            "[-- CMD ...]; CMD: read | add NAME IN OUT N M | del NAME | "
            "sleep MS\n");
    return 2;
}

int
main(int argc, char **argv)
{
    struct sb_device_config cfg;
    struct sb_device *dev = NULL;
    char err[1024];
    int rc = 0;

    if (argc < 5)
        return usage();
    const struct sb_driver_class *cls = sb_driver_find(argv[1]);
    if (!cls) {
        fprintf(stderr, "sbctl: unknown driver '%s'\n", argv[1]);
        return 2;
    }
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.name, sizeof cfg.name, "%s", argv[2]);
    snprintf(cfg.driver, sizeof cfg.driver, "%s", argv[1]);
    snprintf(cfg.address, sizeof cfg.address, "%s", argv[3]);
    env_copy(cfg.ssh_key, sizeof cfg.ssh_key, "SB_KEY");
    env_copy(cfg.known_hosts, sizeof cfg.known_hosts, "SB_KNOWN_HOSTS");
    env_copy(cfg.schema_path, sizeof cfg.schema_path, "SB_SCHEMA_PATH");
    env_copy(cfg.transport, sizeof cfg.transport, "SB_TRANSPORT");
    env_copy(cfg.tls_cert, sizeof cfg.tls_cert, "SB_TLS_CERT");
    env_copy(cfg.tls_key, sizeof cfg.tls_key, "SB_TLS_KEY");
    env_copy(cfg.tls_ca, sizeof cfg.tls_ca, "SB_TLS_CA");
    cfg.timeout_ms = getenv("SB_TIMEOUT_MS") ? atoi(getenv("SB_TIMEOUT_MS"))
                                             : 0;
    int e = cls->open(&cfg, &dev, err, sizeof err);
    if (e) {
        fprintf(stderr, "sbctl: %s: %s\n", errname(e), err);
        return 1;
    }
    for (int i = 4; i < argc && !rc; i++) {
        const char *cmd = argv[i];
        int left = 0;
        while (i + left + 1 < argc && strcmp(argv[i + left + 1], "--"))
            left++;
        char **a = &argv[i + 1];
        if (!strcmp(cmd, "read") && left == 0) {
            struct sb_media_channel *mc = NULL;
            int n = 0;
            e = cls->read(dev, &mc, &n, err, sizeof err);
            if (!e) {
                qsort(mc, (size_t) n, sizeof *mc, cmp_mc);
                for (int k = 0; k < n; k++)
                    printf("%s %s %s %d %d %s\n", mc[k].name,
                           mc[k].in_port[0] ? mc[k].in_port : "-",
                           mc[k].out_port[0] ? mc[k].out_port : "-",
                           mc[k].n, mc[k].m,
                           mc[k].enabled ? "enabled" : "disabled");
                free(mc);
            }
        } else if (!strcmp(cmd, "add") && left == 5) {
            struct sb_change ch = { .op = SB_ADD };
            snprintf(ch.mc.name, sizeof ch.mc.name, "%s", a[0]);
            snprintf(ch.mc.in_port, sizeof ch.mc.in_port, "%s",
                     strcmp(a[1], "-") ? a[1] : "");
            snprintf(ch.mc.out_port, sizeof ch.mc.out_port, "%s",
                     strcmp(a[2], "-") ? a[2] : "");
            ch.mc.n = atoi(a[3]);
            ch.mc.m = atoi(a[4]);
            ch.mc.enabled = true;
            e = cls->apply(dev, &ch, 1, err, sizeof err);
        } else if (!strcmp(cmd, "del") && left == 1) {
            struct sb_change ch = { .op = SB_DELETE };
            snprintf(ch.mc.name, sizeof ch.mc.name, "%s", a[0]);
            e = cls->apply(dev, &ch, 1, err, sizeof err);
        } else if (!strcmp(cmd, "sleep") && left == 1) {
            long ms = atol(a[0]);
            struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
            e = 0;
        } else {
            cls->close(dev);
            return usage();
        }
        if (e) {
            fprintf(stderr, "sbctl: %s: %s\n", errname(e), err);
            rc = 1;
        }
        fflush(stdout);
        i += left + 1;   /* past the args and the "--" */
    }
    cls->close(dev);
    return rc;
}
