/*
 * lr_cluster: the compute side of the network, as the planner sees it.
 *
 * Device types (peak dense TFLOP/s, efficiency, memory), data centers
 * (N_k devices of one type, intra-DC bandwidth beta_k and latency alpha_k,
 * the ROADM node the DC attaches to), and fixed inter-DC links (capacity
 * and latency) for the metro setting of the CDynP paper ("fixed" mode of
 * ../shared/reference/training.md).  Units are SI: bytes, bytes/s, s, FLOP/s.
 *
 * Ownership: an lr_cluster owns its arrays; strings are copied in.  Free it
 * with lr_cluster_free().  Functions return 0 or a positive errno value.
 */
#ifndef LR_CLUSTER_H
#define LR_CLUSTER_H 1

#include "planner/lr_topo.h"

struct lr_device_type {
    char name[LR_NAME_MAX];
    double peak_flops;        /* dense tensor peak, FLOP/s */
    double efficiency;        /* achieved fraction of peak, (0, 1] */
    double memory_bytes;      /* per device */
};

struct lr_dc {
    char name[LR_NAME_MAX];
    int device_type;          /* index into lr_cluster.types */
    int n_devices;
    double intra_bw;          /* beta_k, bytes/s */
    double intra_latency;     /* alpha_k, s */
    char attach_node[LR_NAME_MAX];  /* ROADM node-id, "" when not given */
    /* Planned by its agent (lightrail-compute's 'remote'): where it
     * listens and the name its certificate must carry.  remote_port 0
     * and "" when the DC is planned in this process.  Not set by
     * lr_cluster_add_dc(): the loader fills them after adding. */
    char remote_address[64];
    int remote_port;
    char remote_name[64];
};

struct lr_dc_link {
    int a, b;                 /* DC indices; the link serves both directions */
    double bw;                /* bytes/s */
    double latency;           /* s */
};

struct lr_cluster {
    int n_types, cap_types;
    struct lr_device_type *types;
    int n_dcs, cap_dcs;
    struct lr_dc *dcs;
    int n_links, cap_links;
    struct lr_dc_link *links;
};

/* Returns a new empty cluster (NULL when out of memory); free it with
 * lr_cluster_free(). */
struct lr_cluster *lr_cluster_new(void);
void lr_cluster_free(struct lr_cluster *);
/* A deep copy, or NULL when out of memory; free it with
 * lr_cluster_free(). */
struct lr_cluster *lr_cluster_clone(const struct lr_cluster *);

/* EEXIST for a duplicate name; EINVAL for an empty or too long name or a
 * non-positive number. */
int lr_cluster_add_type(struct lr_cluster *, const char *name,
                        double peak_flops, double efficiency,
                        double memory_bytes);
/* 'type' must name an existing device type (EINVAL otherwise);
 * 'attach_node' may be NULL. */
int lr_cluster_add_dc(struct lr_cluster *, const char *name, const char *type,
                      int n_devices, double intra_bw, double intra_latency,
                      const char *attach_node);
/* Both DCs must exist and differ (EINVAL); EEXIST if the pair is linked. */
int lr_cluster_add_link(struct lr_cluster *, const char *dc_a,
                        const char *dc_b, double bw, double latency);

int lr_cluster_find_type(const struct lr_cluster *, const char *name);
int lr_cluster_find_dc(const struct lr_cluster *, const char *name);
/* Index of the link between DCs a and b (either order), or -1. */
int lr_cluster_link_between(const struct lr_cluster *, int a, int b);

#endif
