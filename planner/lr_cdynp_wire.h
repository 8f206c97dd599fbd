/*
 * lr_cdynp_wire: the messages of distributed CDynP between the
 * coordinator and the DC agents (docs/agent-protocol.md).  Pure: bytes in,
 * structs out, and back; no I/O.
 *
 * Frame, every integer big-endian, doubles as IEEE 754 binary64 bits:
 *     u32 length      bytes that follow this field (<= LR_WIRE_MAX_FRAME)
 *     "LRAG"          magic
 *     u16 version     LR_WIRE_VERSION
 *     u16 type        enum lr_wire_type
 *     u32 id          request id, echoed by the answer
 *     payload         by type:
 *   HELLO         [u16 revision: the coordinator's, since 2026-12-07]
 *   HELLO_OK      f64 compute (N P eta, FLOP/s), u16 n + n bytes DC name
 *                 [u16 revision: the connection's, the lesser of the
 *                 HELLO's and the agent's; only answering a HELLO that
 *                 carried one]
 *   JOB           u32 job, f64 batch, f64 micro, f64 elem_bytes,
 *                 u32 n_layers, n_layers x (f64 flops, f64 params, f64 act)
 *   OK            -
 *   STEP          u32 job, u8 objective (enum lr_cdynp_objective: 0 lex,
 *                 1 time, 2 lex-one, 3 time-one, 4 lex-bound, 5
 *                 time-bound; 2 and 3 since 2026-12-04, 4 and 5 since
 *                 2026-12-05), u16 assumed, u16 position,
 *                 i32 lo, i32 hi, f64 link_bw, f64 link_lat,
 *                 u32 n + n bytes summary (lr_cdynp_summary_encode; n = 0
 *                 at the head of the chain; of version
 *                 LR_CDYNP_VERSION_COUNTS exactly under 4 and 5)
 *   STEP_OK       u32 n + n bytes summary
 *                 [entries x i32 prev_last: at revision 2, under
 *                 objectives 0-3 (a version LR_CDYNP_VERSION summary):
 *                 each entry's predecessor's last layer, -1 at the head,
 *                 what BACKTRACK from that entry would answer]
 *   BACKTRACK     u32 job, u8 objective, u16 assumed, i32 last
 *                 [u16 stages: under 4 and 5 only, 1..assumed]
 *   BACKTRACK_OK  i32 prev_last [u16 prev_stages: answering 4 and 5]
 *   FINISH        u32 job, u8 objective, u16 assumed, i32 first, i32 last
 *                 [u16 stages: under 4 and 5 only, the DC's own count,
 *                 1..min(assumed, last - first + 1)]
 *   FINISH_OK     u16 n_stages
 *   ERROR         u16 code (an errno value), u16 n + n bytes message
 *   COMMIT        u32 job, u8 objective, u16 assumed, i32 first, i32 last,
 *                 [u16 stages, as FINISH's]
 *                 u16 n + n bytes tag: the chain that won; the DC lays
 *                 out and reserves its stages under 'tag' (the
 *                 coordinator's job name), answered by FINISH_OK
 *   RELEASE       u16 n + n bytes tag: frees what COMMIT reserved,
 *                 answered by OK (ERROR ENOENT: nothing under 'tag')
 *   KEEP          u16 count (<= LR_WIRE_KEEP_MAX), count x (u16 n + n
 *                 bytes tag): every tag this coordinator holds at the
 *                 agent; the agent releases its other tags, answered by
 *                 OK (since 2026-12-05: a coordinator that restarted, or
 *                 lost a RELEASE, leaves nothing behind)
 *
 * The bracketed fields (2026-12-05) are on the wire only where said:
 * every frame of objectives 0-3 is as before, and an agent from before
 * refuses objectives 4 and 5 as a malformed frame.
 *
 * Protocol revision (2026-12-07).  The frame version stays 1; what a
 * connection may carry beyond it is its revision: 1, everything up to
 * 2026-12-07 (a HELLO with no revision, which is how a coordinator from
 * before says it); 2, STEP_OK carries each entry's predecessor, so that
 * the coordinator needs no BACKTRACK under objectives 0-3.  An agent
 * from before refuses a HELLO carrying a revision as a malformed frame
 * and closes; the coordinator then connects again with a plain HELLO
 * and plans at revision 1 (lr_agent_party.c).  A coordinator from
 * before sends a plain HELLO, and the agent answers it as before.
 *
 * What a message carries is the privacy contract: layer indices, times,
 * link figures the network operator knows, the model (public), one
 * aggregate compute figure and, at the end, a stage count.  Never device
 * counts, types or internal bandwidths.
 */
#ifndef LR_CDYNP_WIRE_H
#define LR_CDYNP_WIRE_H 1

#include <stddef.h>
#include <stdint.h>

#include "planner/lr_cdynp.h"

#define LR_WIRE_VERSION 1
/* The protocol revision this build speaks (above). */
#define LR_WIRE_REVISION 2
/* The first revision whose STEP_OK carries predecessors. */
#define LR_WIRE_REVISION_PREV 2
#define LR_WIRE_MAX_FRAME (1u << 20)
#define LR_WIRE_NAME_MAX 64
#define LR_WIRE_TEXT_MAX 256
#define LR_WIRE_KEEP_MAX 4096

enum lr_wire_type {
    LR_WIRE_HELLO = 1,
    LR_WIRE_HELLO_OK,
    LR_WIRE_JOB,
    LR_WIRE_OK,
    LR_WIRE_STEP,
    LR_WIRE_STEP_OK,
    LR_WIRE_BACKTRACK,
    LR_WIRE_BACKTRACK_OK,
    LR_WIRE_FINISH,
    LR_WIRE_FINISH_OK,
    LR_WIRE_ERROR,
    LR_WIRE_COMMIT,
    LR_WIRE_RELEASE,
    LR_WIRE_KEEP,
};

/* A decoded message.  Variable parts go into buffers the caller provides
 * before decoding (layers[] with room for layers_cap entries, *summary,
 * tags[] with room for tags_cap);
 * a message that needs more room is refused (E2BIG). */
struct lr_wire_msg {
    enum lr_wire_type type;
    uint32_t id;
    uint32_t job;
    double compute;                   /* HELLO_OK */
    int revision;                     /* HELLO, HELLO_OK: 0 when the
                                       * frame carries none (revision 1) */
    char name[LR_WIRE_NAME_MAX];      /* HELLO_OK; COMMIT, RELEASE: tag */
    double batch, micro, elem_bytes;  /* JOB */
    int n_layers;                     /* JOB */
    struct lr_layer *layers;          /* JOB: caller's buffer */
    int layers_cap;
    enum lr_cdynp_objective objective;    /* STEP, BACKTRACK, FINISH,
                                           * COMMIT */
    int assumed;
    int position;                     /* STEP */
    int lo, hi;                       /* STEP */
    struct lr_tm_link link;           /* STEP */
    int has_summary;                  /* STEP (0 at the head), STEP_OK */
    struct lr_cdynp_summary *summary; /* caller's buffer; STEP_OK's
                                       * predecessors go with it when its
                                       * has_prev is set (encoding) or
                                       * they came (decoding) */
    int last, first, prev_last;       /* BACKTRACK, FINISH, COMMIT,
                                       * BACKTRACK_OK */
    int stages;                       /* BACKTRACK, FINISH, COMMIT under
                                       * a _BOUND objective (else 0) */
    int has_stages, prev_stages;      /* BACKTRACK_OK answering a _BOUND
                                       * objective (else 0, 0) */
    int n_stages;                     /* FINISH_OK */
    int code;                         /* ERROR */
    char text[LR_WIRE_TEXT_MAX];      /* ERROR */
    char (*tags)[LR_WIRE_NAME_MAX];   /* KEEP: caller's buffer */
    int n_tags, tags_cap;
};

/* Writes 'msg' as one frame into buf[len]; returns the bytes written, or
 * 0 when it does not fit or 'msg' is malformed. */
size_t lr_wire_encode(const struct lr_wire_msg *msg, uint8_t *buf,
                      size_t len);

/* The frame length announced by the first 4 bytes (+4), or 0 when fewer
 * than 4 bytes are at hand; EMSGSIZE in '*err' when over the limit. */
size_t lr_wire_frame_size(const uint8_t *buf, size_t len, int *err);

/* Decodes exactly one frame of 'len' bytes.  Returns 0, or EPROTO (bad
 * magic or version, unknown type), EINVAL (length or content out of
 * bounds: truncated, trailing bytes, a bad summary, a negative count, a
 * non-finite number), E2BIG (more layers than the caller's buffer). */
int lr_wire_decode(const uint8_t *buf, size_t len, struct lr_wire_msg *out);

/* An objective's name in logs and records: "lex", "time", "lex-one",
 * "time-one", "lex-bound", "time-bound"; "unknown" for anything else. */
const char *lr_wire_objective_name(enum lr_cdynp_objective);
/* A message type's name, "unknown" for anything else. */
const char *lr_wire_type_name(enum lr_wire_type);

#endif
