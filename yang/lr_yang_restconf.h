/*
 * lr_yang_restconf: what a RESTCONF server says of itself (RFC 8040
 * sections 3.3 and 10): the YANG library of the modules its API uses
 * (RFC 8525), the datastore resource that holds every document of the
 * API in one, and the API resource, its operations and its
 * yang-library-version.
 *
 * The YANG library is libyang's own (ly_ctx_get_yanglib_data()) for the
 * context the server validates with, cut to the modules the API's
 * payloads use, and validated before it is printed.  The API resource
 * and its children are ietf-restconf's yang-api (RFC 8040 section 8,
 * the module embedded from yang/ietf-restconf@2017-01-26.yang, as no
 * package ships it), built by libyang in that yang-data template and
 * validated before they are printed.
 *
 * Errors: 0 or a positive errno value, with one line in err[errlen] as
 * yang/lr_yang.h says.
 */
#ifndef LR_YANG_RESTCONF_H
#define LR_YANG_RESTCONF_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ly_ctx;

/* The revision of ietf-yang-library the context implements (libyang
 * 2.1: "2019-01-04"), borrowed from the context; NULL when it implements
 * none. */
const char *lr_yang_library_revision(const struct ly_ctx *);

/* Prints /ietf-yang-library:yang-library for the 'n' modules named in
 * 'api' (the modules of the API's resources, e.g. "lightrail-job"), as
 * RFC 7951 JSON into '*out' (the caller frees it with free()).  The
 * module set "complete" lists them, every module of the context that
 * augments or deviates one listed, and what those import (implemented,
 * or import-only); one schema "complete" serves the datastores running
 * and operational.  The content-id is a digest of what the library
 * lists, so it changes only when the set of modules (their revisions,
 * features, deviations) does.  EINVAL names a module of 'api' the
 * context does not implement. */
int lr_yang_library_to_json(struct ly_ctx *, const char *const *api, int n,
                            char **out, char *err, size_t errlen);

/* Prints RFC 7895's /ietf-yang-library:modules-state, deprecated by RFC
 * 8525 and kept for the clients that read only it, for the same 'api'
 * as lr_yang_library_to_json(): the same modules (each implemented one
 * conformance-type implement, the others import), its module-set-id the
 * library's content-id, validated beside the library.  Errors as
 * there. */
int lr_yang_modules_state_to_json(struct ly_ctx *, const char *const *api,
                                  int n, char **out, char *err,
                                  size_t errlen);

/* Both: /ietf-yang-library:yang-library and modules-state, as the two
 * above print them, side by side in one RFC 7951 object into '*out'
 * (the caller frees it), from one build of the library, for the
 * datastore resource that holds both (lr_yang_datastore_to_json()).
 * Errors as there. */
int lr_yang_library_both_to_json(struct ly_ctx *, const char *const *api,
                                 int n, char **out, char *err,
                                 size_t errlen);

/* Prints RFC 8040 3.3.1's datastore resource, /restconf/data as a
 * whole: one RFC 7951 object with the top-level members of the 'n'
 * documents 'docs' (each a JSON text of this library's printers: the
 * topology, the jobs, the YANG library...), into '*out' (the caller
 * frees it).  The members are those documents' own, parsed strictly,
 * put side by side and validated together before they are printed.
 * EINVAL names a document that does not parse or a member that two
 * documents hold; an empty set is "{}". */
int lr_yang_datastore_to_json(struct ly_ctx *, const char *const *docs,
                              int n, char **out, char *err, size_t errlen);

/* As lr_yang_datastore_to_json(), for RFC 8342's running datastore: the
 * documents hold configuration only (config true nodes; a state node
 * is EINVAL naming it), and the validation adds no state node, so that
 * the text is the members' own, side by side, as their printers made
 * them without the state (no empty "state" container for each job):
 * its own cut to the configuration with with-defaults none or explicit
 * (test_yang_job's "running's topology, inventory and datastore
 * sent as built").  Errors as there. */
int lr_yang_running_to_json(struct ly_ctx *, const char *const *docs,
                            int n, char **out, char *err, size_t errlen);

/* Whether the top-level data node 'name' ("module:node", as the path of
 * a data resource begins) is configuration (config true), which RFC
 * 8342's running datastore can hold, into '*config'.  EINVAL when the
 * context implements no such node (err[] names it). */
int lr_yang_top_config(const struct ly_ctx *, const char *name,
                       bool *config, char *err, size_t errlen);

/* What RFC 8040 4.8.1's content parameter keeps of a data resource. */
enum lr_yang_content {
    LR_YANG_CONTENT_ALL,        /* every node */
    LR_YANG_CONTENT_CONFIG,     /* configuration (config true) nodes */
    LR_YANG_CONTENT_NONCONFIG,  /* state (config false) nodes */
};

/* A data resource's text 'text' (RFC 7951 JSON of this library's
 * printers: the topology, a job, a page of the jobs list, the state, the
 * datastore...) as RFC 8040 4.8.1 'content' and 4.8.2 'depth' cut it,
 * into '*out' (the caller frees it).  The target is what the text's
 * top-level members are (each a list entry when they are the entries of
 * a list resource, which is parsed in its parent container), or, with
 * 'datastore', the datastore that holds them.
 *
 * content: the target itself stays (the RFC filters its descendants);
 * a descendant leaf, leaf-list or anydata stays when its schema node is
 * config true (CONFIG) or false (NONCONFIG); a container or list entry
 * stays when a descendant of it stays, a list entry with its keys; one
 * of the kind asked for stays also when nothing under it was ever of
 * the other kind but it held nothing (an empty container as printed),
 * or when it is a list entry (its keys) or a presence container;
 * anything else under it gone, it goes too.
 * depth (1..65535; 0 unbounded): the target is level 1 (the datastore
 * too, so that depth 1 of the datastore is "{}"), its children 2...;
 * a node at the last level keeps no child but its list keys, which an
 * entry cannot be printed without.  content cuts first, then depth.
 * Metadata (a page's lightrail-job:remaining) stays on its node.
 *
 * The text is parsed without validation (it was validated when
 * printed) and printed with its empty containers, as the jobs' and the
 * datastore's printers print them; when nothing is cut (content all,
 * no fields and a depth past the leaves, or none) '*out' is the text
 * itself, byte for byte, not a re-print.  EIO with libyang's line for a text
 * that does not parse (a printer's bug), ENOMEM. */
int lr_yang_filter_json(struct ly_ctx *, const char *text,
                        enum lr_yang_content content, uint16_t depth,
                        bool datastore, char **out, char *err,
                        size_t errlen);

/* The longest fields expression lr_yang_select_json() reads, in bytes:
 * a client's text is refused above it before it is parsed. */
#define LR_YANG_FIELDS_MAX 1024

/* lr_yang_filter_json() with RFC 8040 4.8.3's 'fields' too (NULL: none,
 * as lr_yang_filter_json()): a fields-expr, "a;b/c;d(e;f)", of paths of
 * api-identifiers (RFC 8040 3.5.3.1: a node of another module than its
 * parent's, and a member of the datastore, as module:name, as RFC 7951
 * names it), ';' between paths, a node's own in parentheses after it.
 * Each path names a data node under the target (the datastore: a
 * top-level node), judged on the schema (whatever the data holds):
 * the nodes it names are kept whole, those on the way to them kept for
 * what they lead to (a list entry with its keys, a presence container,
 * as content keeps them; a container that leads to nothing kept goes);
 * anything else under the target goes, the target itself stays.
 * Fields select first, then content filters, then depth cuts, where a
 * node fields select or lead to is at level 1 (RFC 8040 4.8.2: "these
 * nodes and all of their ancestor nodes have a depth value of 1"), its
 * children at 2...
 * EINVAL, with err[] saying what and where, for an expression that is
 * longer than LR_YANG_FIELDS_MAX, does not parse (an empty path, a
 * parenthesis unbalanced, another character than the grammar's, nesting
 * deeper than 64) or names a module the context does not implement or a
 * node the schema has not there (RFC 8040 400 invalid-value); else as
 * lr_yang_filter_json(). */
int lr_yang_select_json(struct ly_ctx *, const char *text,
                        const char *fields, enum lr_yang_content content,
                        uint16_t depth, bool datastore, char **out,
                        char *err, size_t errlen);

/* Which of the datastore's top-level members, the 'n' named in
 * 'members' ("module:node", as in lr_yang_top_config()), a GET of the
 * datastore can send anything of under 'fields' (NULL: none), 'content'
 * and 'depth', as lr_yang_select_json() with 'datastore' cuts: need[i]
 * is cleared for a member it drops whatever the member holds (the
 * fields lead nowhere in it; content config and it is config false;
 * content nonconfig and its schema has no config false node; depth 1
 * and the fields do not lead to it), and left as it was otherwise.  So
 * a caller builds only the members still needed, and the cut of their
 * datastore is the cut of the whole.  Judged on the schema alone.
 * EINVAL with err[] as lr_yang_select_json() for fields it refuses (its
 * parser, its words), or naming a member that is no top-level node;
 * ENOMEM. */
int lr_yang_datastore_needs(struct ly_ctx *, const char *fields,
                            enum lr_yang_content content, uint16_t depth,
                            const char *const *members, int n, bool *need,
                            char *err, size_t errlen);

/* Whether lr_yang_read_json() of the resource 'target' (the schema path
 * of its node, as lys_find_path() takes it: "/lightrail-job:jobs", or
 * "/lightrail-job:jobs/job" for the list resource and one entry; NULL:
 * the datastore) can send any config false node of the schema subtree
 * 'under' (a schema path at or below 'target': the target itself, or a
 * member of the datastore) under 'fields' (NULL: none), 'content' and
 * 'depth' (0: unbounded), whatever the data holds: '*keeps' false when
 * content is config, or when no config false node of 'under' is both
 * kept by the fields and within the depth; true otherwise, and on any
 * error.  The fields (RFC 8040 4.8.3) keep a node they select, one
 * under it, and one on the way to it (a state node on the way to a
 * selected one makes that one state too, config false being
 * inherited); the depth (4.8.2) keeps a node whose level is at most
 * it: the target is level 1 (a list resource's entries), the
 * datastore's members level 2, a node the fields select or lead to
 * level 1, any other its parent's and one; a node past it goes with
 * all under it.  So on the jobs container depth=2 keeps no job's state
 * (depth=3 keeps each state container, empty), on the list or one job
 * depth=1, on the datastore depth=3.  Under content nonconfig the
 * depth is not judged: that content keeps the nodes on the way to each
 * state node, which a depth cutting the state leaves.  A caller may
 * build the text of 'under' without its state when it is false: the
 * cut is the same, byte for byte, provided the text without the state
 * holds the whole's configuration (lr_yang_job_page_config_to_json()).
 * Judged on the schema alone, without with-defaults: the defaults it
 * adds come before the fields and the depth, which drop those of the
 * state with the rest of it.  0; EINVAL with err[] as
 * lr_yang_select_json() for fields it refuses, or naming a path that is
 * no node or not under 'target'; ENOMEM. */
int lr_yang_cut_keeps_state(struct ly_ctx *, const char *target,
                            const char *fields, enum lr_yang_content content,
                            uint16_t depth, const char *under, bool *keeps,
                            char *err, size_t errlen);

/* What RFC 8040 4.8.9's with-defaults asks of a data resource (RFC 6243
 * section 3's retrieval modes). */
enum lr_yang_wd {
    LR_YANG_WD_NONE,            /* not asked: the text as printed */
    LR_YANG_WD_REPORT_ALL,      /* every node, defaults the text lacks
                                 * added */
    LR_YANG_WD_TRIM,            /* no leaf or leaf-list at its default */
    LR_YANG_WD_EXPLICIT,        /* the nodes set: the text as printed */
    LR_YANG_WD_REPORT_ALL_TAGGED, /* report-all, each node at its default
                                   * tagged ietf-netconf-with-defaults:
                                   * default (RFC 8040 4.8.9's "@") */
};

/* lr_yang_select_json() with RFC 8040 4.8.9's 'with-defaults' too
 * (LR_YANG_WD_NONE: as lr_yang_select_json()).  with-defaults comes
 * first, as it says which nodes the data holds, the other cuts then
 * select from what it left: report-all and report-all-tagged add the
 * default leaves, leaf-lists and the containers that hold them that the
 * text lacks (state ones not with content CONFIG, configuration ones
 * not with NONCONFIG: the content cut would drop them), under each
 * top-level member, list entry or the container resource the text is
 * (never beside it); trim removes every leaf and leaf-list entry whose
 * default is in use (its value the default; a leaf-list's entries all
 * its defaults; a case's leaf only beside another node of a case not
 * the default) (a container it empties stays, {}, as the
 * printers keep an empty one); explicit keeps the text (lightraild sets
 * every node it prints: its basic mode is report-all, RFC 6243 2.1).
 * Then fields, content, depth; report-all-tagged tags, as it prints, each
 * node trim would remove, whoever set it (RFC 6243
 * 3.4), which needs LR_YANG_NCWD in the context (EINVAL without it).
 * With 'origin' (RFC 8527 3.2.2's with-origin), after with-defaults and
 * before the other cuts (which keep a node with its ancestors), each
 * configuration node carries RFC 8342's "ietf-origin:origin"
 * annotation (RFC 7952's "@") where its origin is not its parent's
 * (RFC 8342 5.3.4: a child inherits it): each top of the answer (a
 * datastore's member, a list resource's entry, the container resource)
 * has it, then only a node with-defaults added, "ietf-origin:default",
 * under an "ietf-origin:intended" one (the text's nodes: the operator's
 * configuration, lightraild making none of its own); state nodes
 * (config false) none.  It needs LR_YANG_OR in the context (EINVAL
 * without it).  Errors as lr_yang_select_json(). */
int lr_yang_read_json(struct ly_ctx *, const char *text, const char *fields,
                      enum lr_yang_content content, uint16_t depth,
                      enum lr_yang_wd wd, bool origin, bool datastore,
                      char **out, char *err, size_t errlen);

/* The API resource {"ietf-restconf:restconf":{"data":{},"operations":{},
 * "yang-library-version":REV}} (RFC 8040 3.3, B.1.1), with the
 * context's ietf-yang-library revision, compact.  Built in ietf-restconf's
 * yang-data yang-api and validated: EINVAL, err[] saying why, for a
 * context without the module or without ietf-yang-library, or a body
 * libyang refuses (a revision not YYYY-MM-DD).  The caller frees '*out'. */
int lr_yang_api_to_json(struct ly_ctx *, char **out, char *err,
                        size_t errlen);

/* {"ietf-restconf:yang-library-version":REV} (RFC 8040 3.3.3): the leaf
 * of lr_yang_api_to_json()'s validated tree, printed alone; errors as
 * there. */
int lr_yang_api_version_to_json(struct ly_ctx *, char **out, char *err,
                                size_t errlen);

/* {"ietf-restconf:operations":{"MOD:OP":[null],...}} (RFC 8040 3.3.2)
 * for the 'n' operations of 'ops' ("module:operation"), each of which
 * must be an rpc of the context, named once: EINVAL names one that is
 * not, or is twice.  The container is yang-api's, validated (errors as
 * lr_yang_api_to_json()); its members, the RFC's conceptual empty
 * leaves that no module defines, are added to it after. */
int lr_yang_api_operations_to_json(struct ly_ctx *, const char *const *ops,
                                   int n, char **out, char *err,
                                   size_t errlen);

/* Whether 'body', sent with 'status', is an RFC 8040 7.1 error body, as
 * ietf-restconf's yang-data yang-errors says: parsed strictly in the
 * template (no member it lacks, each value of its type, error-info any
 * object), nothing after the object, and validated (error-type and
 * error-tag mandatory), each error-tag one of RFC 8040 section 7's (a
 * string in the template, "the enumerated error-tag" in 7.1) and
 * 'status' one of those the section's table gives that tag
 * (lr_yang_error_pair_ok()).
 * error-path is checked as an instance-identifier of the context's
 * schema (its syntax, a module implemented, its nodes and keys) but not
 * for an instance: its target is in the datastore, never in the error
 * document that validation would look in.  0, or EINVAL with err[]
 * ("errors: ...") saying what is wrong, ENOMEM. */
int lr_yang_errors_check(struct ly_ctx *, int status, const char *body,
                         char *err, size_t errlen);

/* Whether RFC 8040 section 7's table gives 'status' to 'tag' (too-big:
 * 413 for a request, 400 for a response), or 'status' is one the table
 * has no row for that lightraild sends with 'tag': 415 and 416 with
 * invalid-value, 503 with resource-denied (lr_yang_restconf.c says
 * why).  False for a tag that is none of the table's. */
bool lr_yang_error_pair_ok(const char *tag, int status);

/* Whether 'path' is an error-path lr_yang_errors_check() takes: an
 * instance-identifier (RFC 7951 6.11) naming nodes of the context's
 * schema.  A request's URL path, or the path of a node a client sent that
 * no module has, is not. */
bool lr_yang_error_path_ok(struct ly_ctx *, const char *path);

/* RFC 8040 section 9's /ietf-restconf-monitoring:restconf-state for
 * the 'n' capability URIs 'caps' (9.1.1: the defaults basic mode, one per
 * optional query parameter the server supports), as RFC 7951 JSON into
 * '*out' (the caller frees it); with 'capabilities', its capabilities
 * container alone ({"ietf-restconf-monitoring:capabilities":{...}}, the
 * resource .../restconf-state/capabilities).  streams is there and
 * empty ({}): the server has no event stream to list (RFC 8040 6).  An
 * empty capabilities prints as {} too.  Validated before it is printed
 * (inet:uri is any string to libyang, and a state leaf-list may repeat a
 * value: the caller's list is taken as it is); EINVAL for a context
 * without the module. */
int lr_yang_restconf_state_to_json(struct ly_ctx *, const char *const *caps,
                                   int n, bool capabilities, char **out,
                                   char *err, size_t errlen);

#endif
