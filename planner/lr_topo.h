/*
 * lr_topo: an optical topology as the planner sees it.
 *
 * Nodes are ROADMs, identified by their index (0..n_nodes-1) and named by
 * their ietf-network node-id.  Links are *directed* fibres: each direction
 * of a fibre pair is its own link with its own spectrum.  Data centers
 * attach to nodes; the compute side (lr_cluster) refers to them by name.
 *
 * Spectrum of a link: `n_slots` frequency slots of 12.5 GHz.  Slot 0 is
 * centred on 193.1 THz + first_slot_n x 6.25 GHz (ITU-T G.694.1 flexgrid
 * n); a block of m slots starting at slot i is the media channel
 * n = first_slot_n + 2i + (m - 1), m = m (see lr_topo_block_nm()).
 *
 * Ownership: an lr_topo owns its arrays; strings are copied in.  Free the
 * whole with lr_topo_free().  Functions return 0 or a positive errno value.
 */
#ifndef LR_TOPO_H
#define LR_TOPO_H 1

#define LR_NAME_MAX 64

struct lr_node {
    char name[LR_NAME_MAX];
    /* lightrail-topology's roadm container, kept so that the topology
     * printed back (GET, `lightrail topology show`) names the ROADMs the
     * operator named; the planner never reads them.  Owned, NULL when
     * not given. */
    char *roadm_name;
    char *roadm_description;
};

struct lr_link {
    char name[LR_NAME_MAX];   /* ietf-network link-id */
    int src, dst;             /* node indices */
    double length_km;         /* > 0 */
    int n_slots;              /* >= 1 */
    int first_slot_n;         /* flexgrid n of slot 0's centre */
};

/* A data center attached to a ROADM node. */
struct lr_attach {
    char dc[LR_NAME_MAX];
    int node;
};

struct lr_topo {
    char name[LR_NAME_MAX];   /* ietf-network network-id */
    int n_nodes, cap_nodes;
    struct lr_node *nodes;
    int n_links, cap_links;
    struct lr_link *links;
    int n_attach, cap_attach;
    struct lr_attach *attach;
};

/* Returns a new empty topology named 'name', or NULL when out of memory.
 * The caller frees it with lr_topo_free(). */
struct lr_topo *lr_topo_new(const char *name);
void lr_topo_free(struct lr_topo *);
/* A deep copy, or NULL when out of memory; free it with lr_topo_free(). */
struct lr_topo *lr_topo_clone(const struct lr_topo *);

/* Adds a node; EEXIST when the name is taken, EINVAL when it is empty or
 * longer than LR_NAME_MAX - 1. */
int lr_topo_add_node(struct lr_topo *, const char *name);

/* Sets node index 'node''s ROADM name and description (copied; NULL:
 * none).  EINVAL for an unknown node, ENOMEM. */
int lr_topo_set_roadm(struct lr_topo *, int node, const char *name,
                      const char *description);

/* Adds a directed link between existing node indices.  EINVAL for an
 * unknown node, a self loop, length <= 0 or n_slots < 1; EEXIST for a
 * duplicate link name. */
int lr_topo_add_link(struct lr_topo *, const char *name, int src, int dst,
                     double length_km, int n_slots, int first_slot_n);

/* Attaches data center 'dc' to node index 'node'.  EEXIST when the DC is
 * already attached somewhere. */
int lr_topo_add_attach(struct lr_topo *, const char *dc, int node);

/* Index of the node or link with this name, or -1. */
int lr_topo_find_node(const struct lr_topo *, const char *name);
int lr_topo_find_link(const struct lr_topo *, const char *name);
/* Index of the first link src->dst, or -1. */
int lr_topo_link_between(const struct lr_topo *, int src, int dst);
/* Node a DC attaches to, or -1. */
int lr_topo_dc_node(const struct lr_topo *, const char *dc);
/* The node DC 'dc' attaches to by either file's word: the topology's
 * dc-attachment, else the node named 'attach_node' (lightrail-compute's
 * attachment-node; NULL or "" when the inventory gives none); -1 when
 * neither names a node.  lr_yang_check_attachments() makes the two agree
 * when both are given. */
int lr_topo_attach_node(const struct lr_topo *, const char *dc,
                        const char *attach_node);

/* The largest n_slots over all links (0 for no links). */
int lr_topo_max_slots(const struct lr_topo *);

/* Flexgrid n/m of the block of 'm' slots that starts at slot 'first' of
 * link 'l'. */
static inline void
lr_topo_block_nm(const struct lr_link *l, int first, int m, int *n, int *mm)
{
    *n = l->first_slot_n + 2 * first + (m - 1);
    *mm = m;
}

#endif
