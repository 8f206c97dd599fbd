/*
 * Fake agents on 127.0.0.1 for the tests of the agent party
 * (test_agent_party.c) and of the controller planning with agents
 * (test_ctl_agents.c): a forked process that speaks the agent protocol
 * over TLS (docs/agent-protocol.md) as a script of the test's says, and
 * notes its steps to the test over a pipe.  A script may close the
 * listener (fk_listen = -1), as a stopping agent does: the fake opens
 * it again on the same port fk_restart_ms later, as systemd starts an
 * agent again.
 *
 * The certificates (fk_certs()) are made once per test program in
 * fk_dir: a CA, the agent "dc1" (the fake's name) and "coordinator".
 */
#ifndef LR_TEST_FAKE_AGENT_H
#define LR_TEST_FAKE_AGENT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/ssl.h>

#include "controller/lr_agent_party.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_wire.h"

/* The goodbye of an agent stopped by SIGTERM (cmd_agent.c's
 * conn_goodbye()), an ERROR of id 0 (ESHUTDOWN) with these words. */
#define GOODBYE "closed: the agent is shutting down (SIGTERM): connect " \
                "again once it is back: closing"

/* One accepted connection of a fake agent: its TLS session, and a pipe
 * to tell the test process that a step is done. */
struct fk_conn {
    SSL *ssl;
    int fd;
    int index;            /* 0 for the first connection accepted */
    int note;             /* write end of the pipe to the test */
    int go;               /* read end of the pipe from the test */
};

/* What a fake agent does with each connection; it returns when done
 * with it (the connection is then closed). */
typedef void fk_script(struct fk_conn *);

struct fake {
    pid_t pid;
    int port;
    int note;             /* read end of the pipe from the agent */
    int go;               /* write end of the pipe to the agent */
};

/* Certificates made once for the fake agents: a CA, the agent "dc1" and
 * the coordinator, in fk_dir; fk_ok false when openssl cannot make
 * them (the tests are then skipped).  fk_path(): fk_dir/'file', in one
 * of four rotating buffers.  fk_cleanup() removes fk_dir. */
extern char fk_dir[256];
extern bool fk_ok;
bool fk_certs(void);
const char *fk_path(const char *file);
void fk_cleanup(void);

/* In the fake's process: its listening socket, which a script may close
 * (-1, as a stopping agent does: connections refused); the fake opens it
 * again on the same port fk_restart_ms after the connection ends. */
extern int fk_listen;
extern int fk_restart_ms;

/* Where fk_read() decodes a request's layers, summary and tags. */
extern struct lr_layer fk_layers[LR_MODEL_MAX_LAYERS];
extern struct lr_cdynp_summary fk_sum;
extern char fk_tags[LR_WIRE_KEEP_MAX][LR_WIRE_NAME_MAX];

/* Reads one request into 'm' (false at EOF or on a bad frame). */
bool fk_read(struct fk_conn *c, struct lr_wire_msg *m);
/* Writes 'm' as one frame, in pieces of 'chunk' bytes (0: at once),
 * 'pause_ms' apart. */
void fk_send(struct fk_conn *c, const struct lr_wire_msg *m, size_t chunk,
             int pause_ms);
/* HELLO_OK of 'id', as agent "dc1" of 1e15 FLOP/s. */
void fk_hello_ok(struct fk_conn *c, uint32_t id);
/* Tells the test a step is done. */
void fk_note(struct fk_conn *c);
/* Tells the test a request of kind 'k' came. */
void fk_note_kind(struct fk_conn *c, char k);

/* Waits for the fake agent's next note, FK_NOTE_WAIT_S at most: a fake
 * that never notes (its connection refused or timed out by the party
 * under valgrind on a loaded machine, the fake then back in accept())
 * fails the test rather than hanging `make check`. */
#define FK_NOTE_WAIT_S 300
void fk_wait_note(struct fake *f);

/* A fake agent for 'conns' connections, each served by 'script'; false
 * when it cannot be started.  fk_stop() ends it by its pid and closes
 * the pipes: SIGTERM ends the script's waits (EINTR), the script frees
 * what it holds and returns, and the fake exits (0); one that has not
 * after FK_STOP_WAIT_S is killed.  The test fails when valgrind found
 * an error or a definite leak in the fake. */
#define FK_STOP_WAIT_S 60
/* tests/local.am's LR_VALGRIND_CMD's --error-exitcode: a fake that
 * exits so fails the test at fk_stop(). */
#define FK_VALGRIND_ERROR 66
bool fk_start(struct fake *f, fk_script *script, int conns);
void fk_stop(struct fake *f);

/* A party of the coordinator for fake agent 'f', with a job set; NULL
 * (said on stderr) when it cannot be made.  The caller frees it. */
struct lr_cdynp_party *fk_party(const struct fake *f, const struct lr_tm *tm,
                                double timeout);

/* In a fake's script: party 'p' (the agent's own, in the fake) answers
 * plan request 'm' (STEP, BACKTRACK, FINISH or COMMIT) into 'a' as the
 * agent does; a STEP's summary is written to 'out' (the caller's, which
 * 'a' then points to); 'dc' is the DC a FINISH or COMMIT names.
 * Returns the party's error, 0 when answered; other types: 0, 'a' as it
 * was. */
/* In a fake's script: a stopping agent's goodbye.  The listener closed
 * first (fk_listen = -1: the fake listens again fk_restart_ms later),
 * then an ERROR with no id, ESHUTDOWN and GOODBYE, a TLS close_notify,
 * and every frame the coordinator still sends read and dropped until it
 * closes.  The caller's script then ends the connection. */
void fk_goodbye(struct fk_conn *c);

int fk_party_answer(struct lr_cdynp_party *p, const struct lr_wire_msg *m,
                    struct lr_wire_msg *a, struct lr_cdynp_summary *out,
                    int dc);

#endif
