/*
 * lr_demo_emulate: `lightrail demo --emulate` (cmd_demo_emulate.c), the
 * controller core with the emulated data plane and a traffic probe per
 * inter-DC boundary.
 */
#ifndef LR_DEMO_EMULATE_H
#define LR_DEMO_EMULATE_H 1

struct lr_demo_emulate {
    int json;                 /* --format json */
    double scale;             /* real Mb/s per emulated Gb/s */
    const char *prefix;       /* of namespaces and interfaces */
};

/* Runs it; returns an exit code (lr_cli.h). */
int lr_demo_emulate(const struct lr_demo_emulate *);

#endif
