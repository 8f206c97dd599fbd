/*
 * lr_yang_agent: a data-center agent's configuration file
 * (lightrail-agent) -> struct lr_agent_config, in SI units.
 *
 * The file holds the DC's private inventory (one device type, a device
 * count, the intra-DC network) and the agent's TLS material.  Paths are
 * resolved against the directory of the file itself, as lightraild's
 * configuration does: a configuration and its certificates move
 * together.  The files named need not exist when the configuration is
 * read; the agent reports a missing one when it loads its certificates.
 *
 * Errors follow yang/lr_yang.h: 0 or a positive errno value, and one line
 * "FILE: DATA-PATH: reason" in err[errlen].
 */
#ifndef LR_YANG_AGENT_H
#define LR_YANG_AGENT_H 1

#include <stdbool.h>
#include <stddef.h>

#include "planner/lr_topo.h"    /* LR_NAME_MAX */

struct ly_ctx;

/* lightrail-agent's max-elements for peer-name. */
#define LR_AGENT_MAX_PEERS 8
/* Longest path held, with its NUL: file-path is 1..1023 characters, plus
 * the directory of the configuration file it is resolved against. */
#define LR_AGENT_PATH_MAX 2048

struct lr_agent_config {
    char dc[LR_NAME_MAX];             /* the DC's name */
    double peak_flops;                /* P, FLOP/s per device */
    double efficiency;                /* eta, (0, 1] */
    double memory_bytes;              /* M, bytes per device */
    int n_devices;                    /* N */
    double intra_bw;                  /* beta, bytes/s */
    double intra_latency;             /* alpha, s */
    bool predecessors;                /* STEP_OKs may carry them (protocol
                                       * revision 2); false: the agent
                                       * speaks revision 1 at most */
    char cert[LR_AGENT_PATH_MAX];     /* resolved paths */
    char key[LR_AGENT_PATH_MAX];
    char ca[LR_AGENT_PATH_MAX];
    char crl[LR_AGENT_PATH_MAX];      /* "" without tls/crl: no check */
    int n_peers;                      /* 1..LR_AGENT_MAX_PEERS */
    char peer_names[LR_AGENT_MAX_PEERS][LR_NAME_MAX];
};

/* Loads the lightrail-agent file 'path' into '*out' (zeroed on error).
 * EINVAL when the file does not validate or holds data of another
 * module; ENAMETOOLONG when a resolved path does not fit. */
int lr_yang_load_agent(struct ly_ctx *, const char *path,
                       struct lr_agent_config *out, char *err,
                       size_t errlen);

/* Longest tag, with its NUL: the wire's (LR_WIRE_NAME_MAX). */
#define LR_AGENT_TAG_MAX 64

/* One COMMIT's devices, as the agent keeps them (lightrail-agent's
 * reservations). */
struct lr_agent_reservation {
    char owner[LR_NAME_MAX];          /* the coordinator (its peer name) */
    char tag[LR_AGENT_TAG_MAX];
    int devices;
};

/* The lightrail-agent reservations document of r[0..n) as JSON text
 * (RFC 7951) into '*out', which the caller frees; EINVAL (a field the
 * schema refuses: a control character, text that is not UTF-8 or that
 * lr_yang_load_reservations() would not read back, such as U+FFFE, an
 * empty tag), ENOMEM. */
int lr_yang_reservations_print(struct ly_ctx *,
                               const struct lr_agent_reservation *r, int n,
                               char **out, char *err, size_t errlen);

/* Loads the reservations file 'path' into '*out' (malloc'ed, the caller
 * frees it; NULL when there are none) and '*n'.  EINVAL when the file
 * does not validate or holds data of another module. */
int lr_yang_load_reservations(struct ly_ctx *, const char *path,
                              struct lr_agent_reservation **out, int *n,
                              char *err, size_t errlen);

#endif
