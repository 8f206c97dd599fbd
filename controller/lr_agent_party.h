/*
 * lr_agent_party: a DC agent across the network as a CDynP party
 * (planner/lr_cdynp.h's struct lr_cdynp_party), the coordinator's side of
 * docs/agent-protocol.md.
 *
 * A blocking TLS 1.3 client with mutual authentication: it presents the
 * coordinator's certificate, accepts the agent only when its chain leads
 * to the given CA and its certificate carries the expected name (subject
 * common name or a DNS subject alternative name, no wildcards;
 * X509_check_host), and bounds every connect, handshake and exchange by
 * poll() with the party's timeout (ETIMEDOUT).  A host name is looked up
 * at each connection within that timeout too (lr_resolve.h: a lookup
 * the resolver has not answered by then fails with ETIMEDOUT; until
 * 2026-12-05 it took as long as the resolver); an address given as such
 * is never looked up.  lr_agent_parties_connect() starts every party's
 * lookup at once.
 *
 * Protocol use: HELLO once per connection (its compute figure is kept),
 * JOB once per job before the job's first STEP/BACKTRACK/FINISH, then one
 * request and its answer per vtable call.  The job is the model and the
 * training shape of the tm handed to lr_agent_party_set_job(), which the
 * coordinator calls before lr_cdynp_plan_parties(): the vtable's calls do
 * not carry the model, and a party kept across jobs (lightraild) then
 * reuses its connection.
 *
 * Failures are sticky: after the first error that is not the agent's own
 * answer (a refused connection, a timeout, a failed handshake, a broken
 * frame), every call fails at once with the same error until the next
 * lr_agent_party_set_job(), which allows one new connection.  Why: the
 * coordinator may try dozens of chains after the first failure, and each
 * would otherwise wait for its own timeout.  An ERROR answer is returned
 * as its errno code (ENOENT: no feasible layer, as in the vtable) and
 * does not break the connection.  One refusal is neither: an agent from
 * before a _ONE or _BOUND objective refuses it as a malformed frame and
 * closes the connection; the call returns ENOTSUP (the vtable's "does
 * not know the objective"), the next call connects again, and
 * lr_agent_plan() says what the plan went without.
 *
 * Writing to a socket the agent has closed raises SIGPIPE: the program
 * must ignore it (lightrail and lightraild do).
 */
#ifndef LR_AGENT_PARTY_H
#define LR_AGENT_PARTY_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <openssl/ssl.h>

#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_wire.h"
#include "planner/lr_cluster.h"

struct lr_tls_peer;
struct lr_tls_span;

struct lr_wire_msg;

/* A party for the agent at 'address' (numeric or a host name) 'port'
 * whose certificate must name 'expected_name'.  'cert' and 'key' are the
 * coordinator's (PEM), 'ca' the CA file that must have signed the
 * agent's, 'crl' a PEM file of the CAs' CRLs that the agent's chain is
 * checked against (NULL or "": none; lr_tls_use_crl(): read once, here,
 * and refused when stale, unsigned or not PEM).  Nothing is sent yet:
 * the first call connects.  Returns NULL with a one-line reason in
 * err[errlen] when a file cannot be loaded, an argument is out of
 * range, or memory runs out.  Free with party->cls->free().
 *
 * An agent whose certificate the CRL revokes fails its handshake with
 * "the agent's certificate is refused: certificate (serial HEX,
 * /CN=dc2) is revoked by CRL 'F'"; an agent that refuses ours as
 * revoked by its own CRL, with "... alert certificate revoked (the
 * agent refused our certificate, serial HEX: its CRL revokes it; ...)". */
struct lr_cdynp_party *lr_agent_party_new(const char *address, int port,
                                          const char *expected_name,
                                          const char *cert, const char *key,
                                          const char *ca, const char *crl,
                                          double timeout_s, char *err,
                                          size_t errlen);

/* The job the next calls plan: the model and training shape of 'tm'
 * (borrowed: it must outlive the calls), sent as JOB before the next
 * STEP.  Also clears a sticky failure. */
void lr_agent_party_set_job(struct lr_cdynp_party *, const struct lr_tm *tm);

/* COMMIT: tells the agent that its part of the chain that won is layers
 * first..last, planned under (obj, assumed) as res->objective and
 * res->assumed say (planner/lr_cdynp.h), in 'stages' stages under a
 * _BOUND objective (res->n_stages; ignored otherwise), and that it must
 * lay out and
 * reserve those stages under 'tag' (the job's name, at most 63 bytes).
 * Sent on the connection of the job set last, after
 * lr_cdynp_plan_parties().  '*n_stages' gets the agent's stage count.
 * 0, or as the vtable's calls; ENOSPC: the agent no longer has the
 * devices (another coordinator took them meanwhile). */
int lr_agent_party_commit(struct lr_cdynp_party *, enum lr_cdynp_objective obj,
                          int assumed, int first, int last, int stages,
                          const char *tag, int *n_stages);

/* RELEASE: the agent frees what it reserved under 'tag'.  Clears a
 * sticky failure first and connects when needed (also when the agent
 * closed the connection kept since the job, as it does after 600 s
 * idle): a release belongs to no planning run.  0; ENOENT: the agent
 * holds nothing under 'tag' (it restarted, or never committed); or a
 * failure as above. */
int lr_agent_party_release(struct lr_cdynp_party *, const char *tag);

/* KEEP: the agent releases every tag of this coordinator but tags[0..n-1]
 * (all it should hold; n <= LR_WIRE_KEEP_MAX).  As RELEASE otherwise:
 * clears a sticky failure first and connects when needed.  0, EINVAL (n
 * out of range, an empty or overlong tag), or a failure as above. */
int lr_agent_party_keep(struct lr_cdynp_party *,
                        const char (*tags)[LR_WIRE_NAME_MAX], int n);

/* Connects the agent parties among parties[0..n-1] (others are skipped)
 * at the same time, each within its timeout; a party that fails keeps
 * the failure (sticky, as above).  Optional: a party connects on its
 * first call anyway, but one after the other. */
void lr_agent_parties_connect(struct lr_cdynp_party *const *parties, int n);

/* CDynP over 'parties' (one per DC of 'cl', by index: the agent parties
 * of its remote DCs, in-process parties for the others), as a coordinator
 * runs it: every agent's handshake at once, then HELLO in DC order, so
 * that an agent that cannot be reached is named before any planning and
 * an agent serving another DC than 'cl' says is caught; then
 * lr_cdynp_plan_parties() with 'opts' (may be NULL).  The agents must
 * have their job set (lr_agent_party_set_job()).
 * Returns 0 with the planner's verdict in '*verdict' (and 'res', 'plan'
 * as lr_cdynp_plan_parties() fills them) and why[0] = '\0', or, when an
 * agent did not know an objective and the plan was made without its
 * runs (ENOTSUP, above), a note in why[len] for the operator ("agent
 * dc2 (ADDR port P) is from before 2026-12-05: it refused objective
 * lex-bound, so the count-bounded runs were skipped with it and the plan
 * may be dearer than with current agents; upgrade it to the agent of
 * this coordinator's release"; one per such agent, "; " between).  When
 * no plan was found without those runs, the refusal is the agent's
 * failure, as below ("agent dc2 failed: ADDR port P refused step
 * as a malformed frame (...): objective lex-bound is unknown to agents
 * from before 2026-12-05; run the agent of this coordinator's
 * release", EINVAL).  Otherwise, with one line in
 * why[len]: EINVAL when an agent serves another DC ("the agent at ADDR
 * port P serves data center 'X', not 'Y'"), or the errno of the first
 * agent that failed ("agent DC unreachable: connect to ...: Connection
 * refused", "agent DC failed: ...").
 *
 * An agent that closes its connection in the middle of the plan, before
 * reading the request in flight, with its word (its "closed: ..." ERROR
 * when it makes room for another connection of this coordinator), loses
 * the job's state with it: the plan is run again from its start, that
 * agent given HELLO and JOB on a new connection, at most
 * LR_AGENT_PLAN_RETRIES times, within the same budget.  A plan found
 * so carries a note for each run again ("agent DC closed its
 * connection in the middle of the plan (...): the plan was run again
 * from its start on a new connection (retry 1 of at most 2)"); when
 * an agent closed it in every run, the failure says so ("...; the plan
 * was run again from its start 2 times, the most it is, an agent
 * closing its connection in each run (see the agents' logs for why)");
 * when a run again fails for another cause, its failure is followed by
 * "; in the run before: " and those notes.
 * An agent that said it was shutting down (its goodbye on SIGTERM,
 * ESHUTDOWN) is connected to again until it accepts, within 3 s and
 * the budget (lr_agent_party_set_restart_wait(): one try, no wait, on
 * lightraild's event loop), before the plan is run again: one
 * restarted meanwhile serves it; one still down fails it as "agent DC unreachable: connect
 * to ADDR port P: Connection refused (tried for 3.0 s after it said it
 * was shutting down: plan again once it is started again); in the run
 * before: ..." (ECONNREFUSED).
 * A time-out or an ERROR answer is never run again, nor the end of a
 * connection that had answered with no such word (a crash, the OOM
 * killer: the request may be what killed the agent), which fails the
 * plan as "agent DC failed: the agent at ADDR port P closed without a
 * word before answering step (reading from ...: the agent closed the
 * connection): it may have crashed or been killed (OOM?); see its log"
 * (ECONNRESET or EPIPE).  A connection kept idle from the job before
 * is looked at right before this job's first request is written: one
 * the agent closed meanwhile (its idle timeout, a restart) is replaced
 * by a new one with no failure and no run again
 * (lr_agent_party_idle_closes()), so one that closes after the write
 * fails as above (until 2026-12-07, later, it was run again, a crash
 * the request caused taken for the idle timeout).  A close still on
 * its way when the request is written (the agent's idle timeout met
 * within a network delay of the job's start) fails so too: run the
 * job again.
 *
 * A plan found with an agent at protocol revision 1 carries, after the
 * notes above, one note per such agent ("agent dc2 (ADDR port P) speaks
 * protocol revision 1: it refused a HELLO naming revision 2, as agents
 * from before 2026-12-07 do, so it is asked the BACKTRACKs that revision
 * 2's predecessors in STEP_OK spare, for the same plan: N in this plan;
 * upgrade it ..."; "it refused a HELLO naming revision 2 in an earlier
 * job, as agents from before 2026-12-07 do, and is greeted with a plain
 * HELLO since, until a new connection 3600 s after that refusal asks
 * revision 2 again (or a new network (PUT), or a restart of the
 * coordinator), ..." when a job before, of the same party, found it so:
 * the party remembers it for LR_AGENT_REVISION_RETRY_S, one connection
 * less a job), or "...: its HELLO_OK answered 1, as an agent whose
 * leaf predecessors is false does, ...; set predecessors true in its
 * configuration for fewer requests"), N the BACKTRACKs of objectives
 * 0-3 sent to it in the plan. */
#define LR_AGENT_PLAN_RETRIES 2
int lr_agent_plan(const struct lr_cluster *cl,
                  struct lr_cdynp_party *const *parties,
                  const struct lr_cdynp_options *opts,
                  const struct lr_cdynp_view *view,
                  struct lr_cdynp_result *res, struct lr_plan *plan,
                  enum lr_tm_why *verdict, char *why, size_t len);

/* How long, in seconds, a party greets an agent that refused a HELLO
 * naming revision 2 (an agent from before 2026-12-07) with a plain HELLO
 * before its next new connection asks revision 2 again: an agent
 * upgraded in place (a restart that closes the connections) is then
 * found within that time, where it used to be planned with at revision
 * 1 until the party's end (a PUT of the network, a restart of
 * lightraild); an agent that is really old costs one refused HELLO (a
 * connection and a handshake) that often at most.  An hour unless
 * lr_agent_party_set_revision_retry() says otherwise (0: every new
 * connection asks). */
#define LR_AGENT_REVISION_RETRY_S 3600
void lr_agent_party_set_revision_retry(struct lr_cdynp_party *,
                                       double seconds);

/* How long, in seconds, lr_agent_plan() waits for an agent that said
 * it was shutting down (its goodbye on SIGTERM, ESHUTDOWN: cmd_agent.c's
 * conn_goodbye()) to accept a connection again before the plan is run
 * again, a refusal tried again 0.1, 0.2, 0.4, 0.8, then 1 s later.  Why
 * 3 s: the agent exits within 1 s of the signal (cmd_agent.c's
 * AGENT_LEAVE_S), `systemctl restart` starts it again as soon as it has
 * exited, and it listens once it has read its certificates and state
 * file, a matter of milliseconds on a sound host; so an agent restarted
 * is back well within it, and an agent stopped for good costs the plan
 * 3 s more before it fails as unreachable, never more than the plan's
 * budget.  Not longer: the coordinator's plan (and lightraild's job)
 * waits meanwhile, and an operator who stops an agent for longer is
 * told by the failure to plan again once it is back.
 * LR_AGENT_RESTART_WAIT_S unless lr_agent_party_set_restart_wait() says
 * otherwise: 0 for a plan on lightraild's event loop
 * (lr_ctl_plan_with_agents()), which a wait would stop (RESTCONF,
 * timers): one try, a refusal failing the plan at once as "...:
 * Connection refused (tried once after it said it was shutting down,
 * not waited for: WHY; plan again once it is started again); in the run
 * before: ...".  WHY is the caller's 'why', a short phrase saying why
 * its plan does not wait (lr_ctl_plan_with_agents(): "a plan on
 * lightraild's event loop does not wait"), copied by the party (cut at
 * 159 bytes); NULL: LR_AGENT_RESTART_WHY_NONE.  Until 2026-12-07, later,
 * the party said lightraild's words whoever the caller was. */
#define LR_AGENT_RESTART_WAIT_S 3.0
#define LR_AGENT_RESTART_WHY_NONE "its plan was set not to wait"
void lr_agent_party_set_restart_wait(struct lr_cdynp_party *,
                                     double seconds, const char *why);

/* What a whole lr_agent_plan() may take, in seconds from its start, on
 * top of each exchange's timeout (0, the default: no bound).  An
 * exchange waits until whichever comes first; a plan that runs out fails
 * with ETIMEDOUT ("agent dc3 too slow: the plan's budget of 10 s ran
 * out waiting for ADDRESS port P to answer step: give the plan a larger
 * budget", from lr_agent_plan()), and every
 * later call of that plan at once (the failure is sticky).  Connecting
 * and handshakes keep their own timeouts.  Set it on every agent party
 * of a plan. */
void lr_agent_party_set_budget(struct lr_cdynp_party *, double seconds);

/* The reason of the party's last failure, e.g. "connect to
 * 127.0.0.1:7001: Connection refused", or NULL when it has not failed
 * (an ENOENT answer is no failure).  Borrowed from the party. */
const char *lr_agent_party_error(const struct lr_cdynp_party *);

/* How many times the party found, before writing a request, that the
 * agent had closed the connection it kept idle (the agent's idle
 * timeout, a restart: a TCP FIN or reset, a TLS close_notify), and
 * connected again with no failure; the last one said in '*last' when
 * not NULL ("ADDR port P: it closed the connection while idle (its
 * idle timeout, or a restart): a new connection for the next request";
 * "... it closed the connection while idle, saying \"closed: the agent
 * is shutting down (SIGTERM): ...\": ..." when it sent an ERROR of id 0
 * first, its words quoted; "" when none; borrowed from the party). */
unsigned lr_agent_party_idle_closes(const struct lr_cdynp_party *,
                                    const char **last);

/* Takes 'why' (NULL or "": none) as the party's last failure, as
 * lr_agent_party_error() says it, until a call tries the agent again:
 * what a new party of an agent that failed carries over.  Nothing
 * sticky: the next call goes ahead. */
void lr_agent_party_carry_error(struct lr_cdynp_party *, const char *why);

/* True while the party holds a connection: after a failure, false when
 * the agent could not be reached or broke the protocol, true when it
 * answered an ERROR or when the plan's budget was spent on the other
 * agents before its request was sent (its connection up in time). */
bool lr_agent_party_connected(const struct lr_cdynp_party *);

/* The DC name the agent announced in HELLO_OK, "" before. */
const char *lr_agent_party_dc_name(const struct lr_cdynp_party *);

/* Appends every message the party receives to 'f' (may be NULL: off), as
 * lr_agent_record() writes it.  'f' is borrowed. */
void lr_agent_party_set_record(struct lr_cdynp_party *, FILE *f);

/* True when 'p' was made by lr_agent_party_new(). */
bool lr_agent_party_is(const struct lr_cdynp_party *p);

/* Writes 'msg' to 'f' as one JSON line: "type" (lr_wire_type_name()),
 * "id", and exactly the fields its type carries on the wire, under the
 * names docs/agent-protocol.md lists; then flushes.  The privacy test
 * checks the field names of every line against that list. */
void lr_agent_record(FILE *f, const struct lr_wire_msg *msg);

/* The client context lr_agent_party_new() makes of 'cert', 'key', 'ca'
 * and 'crl' (NULL or "": none), for lr_agent_party_use_tls(): files
 * read again once for all the parties (lightraild's SIGHUP).  NULL with
 * a one-line reason that names the file in err[errlen], as
 * lr_agent_party_new() says it.  The caller frees it (SSL_CTX_free). */
SSL_CTX *lr_agent_party_tls_new(const char *cert, const char *key,
                                const char *ca, const char *crl, char *err,
                                size_t errlen);

/* Makes 'ctx' (lr_agent_party_tls_new(); the party takes a reference of
 * its own, the caller keeps its) the context of the party's next
 * connections, made of the same files as the party's own (its CRL file
 * keeps its name), and judges the connection the party keeps, admitted
 * under the context before, again under 'ctx' (lr_tls_verify_again()):
 * an agent whose certificate a CRL read since revokes must not be asked
 * again over a connection it holds.  0 when the party keeps its
 * connection (or has none; one still connecting is dropped); EACCES when
 * it was refused and closed, with lr_tls_verify_text()'s words in
 * why[len] ("revoked by CRL 'F' (serial HEX, /CN=dc2)"), which
 * lr_agent_party_error() says too until the agent is tried again, whose
 * handshake then fails in the same words; ENOMEM, nothing changed.
 * Only while nothing else uses the party (no plan, no RELEASE in
 * flight). */
int lr_agent_party_use_tls(struct lr_cdynp_party *, SSL_CTX *ctx,
                           char *why, size_t len);

/* Judges the connection the party keeps again under its context
 * (lr_tls_verify_again()), as lr_agent_party_use_tls() does under a new
 * one: what a CRL's next update calls for, once passed, since the CRL
 * then refuses every handshake (fail closed) and must refuse the
 * connection kept as well.  X509_V_OK when the party keeps its
 * connection, or has none (why[0] = '\0'); else the failure
 * (X509_V_ERR_CRL_HAS_EXPIRED: a CRL is stale), the connection closed,
 * and lr_tls_verify_text()'s words in why[len], which
 * lr_agent_party_error() says too until the agent is tried again.
 * Only while nothing else uses the party (no plan, no RELEASE in
 * flight). */
long lr_agent_party_verify_again(struct lr_cdynp_party *, char *why,
                                 size_t len);

/* lr_tls_crl_update() of the party's context: with 'past' true, the
 * latest next update past of the CRLs it checks the agent against (the
 * one a timer just passed, for the log); with 'past' false, the
 * earliest still to come.  0 without a CRL (or none with a next update
 * on that side of now).  Reads only what lr_agent_party_use_tls()
 * changes, so the owner may ask while a plan uses the party. */
time_t lr_agent_party_crl_update(const struct lr_cdynp_party *, bool past,
                                 char *buf, size_t len);

/* lr_tls_span_crls() of the party's context at 'now': when a timer
 * should judge its connection again (lr_agent_party_verify_again()) for
 * a CRL going stale, or not yet valid by a clock set back.  Reads only
 * what lr_agent_party_use_tls() changes, so the owner may ask while a
 * plan uses the party. */
void lr_agent_party_span_crls(const struct lr_cdynp_party *, time_t now,
                              struct lr_tls_span *s);

/* lr_tls_span_peer() of the party's connection: the notBefore and
 * notAfter of the agent's chain verified at its handshake, folded into
 * 's' when the party is connected.  Only while nothing else uses the
 * party (the connection is made and closed by a plan). */
void lr_agent_party_span_peer(const struct lr_cdynp_party *,
                              struct lr_tls_span *s);

/* What the last verification of the agent's chain (a handshake,
 * lr_agent_party_verify_again()) failed at: which certificate, its
 * notAfter.  The party owns it; valid until the party's next connection
 * or its end. */
const struct lr_tls_peer *lr_agent_party_verified(
    const struct lr_cdynp_party *);

/* The TLS basics both ends of the protocol share (this file's client,
 * `lightrail agent`'s server). */

/* A context of 'method' (TLS_client_method() or TLS_server_method())
 * that speaks TLS 1.3 only and presents the PEM certificate chain 'cert'
 * with its unencrypted PEM key 'key', checked to match.  The caller adds
 * its options, the CA and the verification, and frees it
 * (SSL_CTX_free).  NULL with a one-line reason that names the file to
 * fix in err[errlen] on failure. */
SSL_CTX *lr_agent_tls_ctx(const SSL_METHOD *method, const char *cert,
                          const char *key, char *err, size_t errlen);

#endif
