/*
 * lr_tls: the OpenSSL chores every TLS end of Lightrail shares: load a
 * certificate with its key, say why OpenSSL failed (and, of a file that
 * did not load, what is wrong with it), and tell a CA's certificate from
 * a leaf's.
 *
 * Three ends use it, each with its own wording and error convention: the
 * northbound server (northbound/nb_tls.c), the NETCONF-over-TLS client
 * (southbound/sb_netconf_tls.c) and the CDynP agents
 * (controller/lr_agent_party.c, and tools/lightrail/cmd_agent.c's CA).
 * This file only tells them which part failed and why; the message,
 * which names the configuration to mend, is theirs.  Each says what is
 * wrong with a file that does not load (lr_tls_file_reason).
 */
#ifndef LR_TLS_H
#define LR_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <openssl/ssl.h>

/* What lr_tls_use_pair() found wrong, if anything. */
enum lr_tls_pair {
    LR_TLS_PAIR_OK = 0,
    LR_TLS_PAIR_CERT,      /* the certificate chain file does not load */
    LR_TLS_PAIR_KEY,       /* the key file does not load (not PEM?) */
    LR_TLS_PAIR_MISMATCH,  /* both load, but the key is another cert's */
};

/* Loads the PEM certificate chain 'cert' and the PEM private key 'key'
 * into 'ctx' and checks that they belong together.  On failure OpenSSL's
 * error queue still holds the reason, for lr_tls_reason(). */
enum lr_tls_pair lr_tls_use_pair(SSL_CTX *ctx, const char *cert,
                                 const char *key);

/* What a PEM file given for a certificate (or a CA's certificates), a
 * private key or CRLs should hold. */
enum lr_tls_pem {
    LR_TLS_PEM_CERT,
    LR_TLS_PEM_KEY,
    LR_TLS_PEM_CRL,        /* certificate revocation lists */
};

/* Why 'path', which OpenSSL just failed to load as 'want', did not load,
 * as text in 'buf': the system's words when it is no regular file one
 * may read ("Is a directory", "No such file or directory"), "not a PEM
 * certificate: no -----BEGIN line" (or "... private key: ...") when it
 * holds no PEM block, "not a PEM certificate: its PEM blocks are
 * 'PRIVATE KEY'" when none of that kind, else lr_tls_reason()'s.
 * OpenSSL's own "PEM lib" or "no start line" says neither which file
 * nor what is wrong with it.  Clears OpenSSL's queue.  Returns 'buf'. */
const char *lr_tls_file_reason(const char *path, enum lr_tls_pem want,
                               char *buf, size_t len);

/* lr_tls_file_reason() of PEM text already read: the 'n' bytes at
 * 'pem' (a file read once, checked and used from memory), which OpenSSL
 * just failed to load as 'want'.  Reads no file.  Clears OpenSSL's
 * queue.  Returns 'buf'. */
const char *lr_tls_pem_reason(const void *pem, size_t n,
                              enum lr_tls_pem want, char *buf, size_t len);

/* Whether every certificate in the PEM file 'path' is a CA's
 * (X509_check_ca(): basicConstraints CA:TRUE, or an old v1 self-signed
 * root): 0 if so, else the position (from 1) of the first that is not,
 * its subject in 'subject' (one line); -1 when the file holds no
 * certificate that reads.  A leaf certificate given as a CA verifies
 * no certificate it signed, having signed none, and passes only its
 * own holder when self-signed: a mistake a deployment's check should
 * name.  Clears OpenSSL's queue. */
int lr_tls_ca_file_check(const char *path, char *subject, size_t len);

/* OpenSSL's last queued error as text in 'buf', or the system's words
 * when a system call failed beneath it ("No such file or directory"), or
 * "no OpenSSL reason" when the queue is empty; clears the queue.
 * Returns 'buf'. */
const char *lr_tls_reason(char *buf, size_t len);

/* ---- Certificate revocation ----
 *
 * A CRL file is PEM with one or more CRLs ("-----BEGIN X509 CRL-----"),
 * checked against the whole chain (X509_V_FLAG_CRL_CHECK with
 * _CRL_CHECK_ALL): a CA certificate of the chain can be revoked as well
 * as the peer's own, so that the leak of an intermediate CA's key is
 * mended like a leaf's.  The price is that every CA of the CA file
 * needs a CRL of its own in the file (most deployments have one CA,
 * and one CRL), which lr_tls_use_crl() checks at load rather than let
 * every handshake fail with "unable to get certificate CRL".  So a chain
 * through an intermediate CA wants the intermediate's certificate in
 * the CA file, beside the root's: its CRL can then be checked at load
 * like the root's, where a CRL of a CA the file lacks could be anyone's
 * and is refused. */

/* Loads the CRLs of the PEM file 'crl' into the verification store of
 * 'ctx', which must hold the CA certificates already
 * (SSL_CTX_load_verify_locations()), and turns on the checking of the
 * whole chain against them.  Refuses, with the reason alone in
 * err[errlen] (the caller names the file and the setting): a file that
 * does not read ("No such file or directory"), one without a PEM CRL
 * (lr_tls_file_reason()'s words), a CRL issued by none of the store's
 * CA certificates or whose signature does not verify with its key, one
 * whose next update is past (expired: it fails closed rather than
 * trusting a list that may lack the newest revocations), one whose last
 * update is still to come, and a CA certificate of the store that no CRL
 * covers.  0, EINVAL, or the errno of a file that does not read; 'ctx'
 * is unchanged on failure.  Clears OpenSSL's queue. */
int lr_tls_use_crl(SSL_CTX *ctx, const char *crl, char *err, size_t errlen);

/* A CRL's next update is when it goes stale: from then on every
 * handshake fails closed (X509_V_ERR_CRL_HAS_EXPIRED), but a connection
 * admitted before is judged again only when asked (lr_tls_verify_again()).
 * Each end arms a timer at the earliest next update still to come and
 * judges its connections again when it passes. */

/* The next updates of the CRLs loaded into 'ctx' (lr_tls_use_crl()):
 * with 'past' false, the earliest still to come; with 'past' true, the
 * latest already past (the one a timer just passed, for the log).  As
 * seconds since the epoch, and as text into buf[len]
 * ("2026-12-07T03:10:49Z", lr_tls_verify_text()'s form; may be NULL);
 * 0 (and "?") when there is none: no CRL, none with a next update
 * (such a CRL never goes stale), none on that side of now. */
time_t lr_tls_crl_update(SSL_CTX *ctx, bool past, char *buf, size_t len);

/* The longest a timer of lr_tls_span_wait() waits before it reads the
 * wall clock again: a connection outlives a CRL gone stale (or a chain
 * not yet valid) by a clock stepped at most this long.  A wake that
 * finds the span still holding costs a walk of the store's CRLs and of
 * the chains of the connections up. */
#define LR_TLS_CRL_RECHECK_S 10

/* The span of the wall clock within which the verdicts the handshakes
 * gave still stand: what OpenSSL judges by the clock.  A CRL is stale
 * from its next update on (X509_V_ERR_CRL_HAS_EXPIRED) and not yet
 * valid before its last update (thisUpdate; _CRL_NOT_YET_VALID); a
 * certificate of a peer's chain is expired from its notAfter on
 * (_CERT_HAS_EXPIRED) and not yet valid before its notBefore
 * (_CERT_NOT_YET_VALID).  Each refuses every new handshake from then
 * on, but a connection admitted before is judged again only when asked.
 * So each end (lightraild for its agents, the agent for its
 * coordinators) keeps a timer over one span: 'until' the earliest next
 * update still to come of its CRLs and notAfter of each connection's
 * peer chain, 'from' the latest last update of its CRLs and notBefore
 * of those chains, and judges its connections again when the wall
 * clock leaves it: forward past 'until', or back before 'from' (a clock
 * set back: NTP stepping a clock that ran ahead, a virtual machine
 * restored from a snapshot).  Then it arms anew over the span that
 * holds.  In seconds since the epoch; 0: no bound on that side.  Start
 * from { 0 } and fold in with the functions below.  Only connections
 * are judged: with no chain folded in there is nothing to judge, and no
 * timer, whatever the CRLs (a handshake fails by them itself, and a
 * connection made later is judged at its end: lr_tls_crls_out()). */
struct lr_tls_span {
    time_t from;           /* out while the wall clock is before it */
    time_t until;          /* out once the wall clock is at or past it */
    bool peers;            /* a connection's chain is folded in */
    /* The CRLs out of their own span at the time folded at, which
     * lr_tls_span_crls() leaves out of the bounds above, for
     * lr_tls_span_judge(); 0: none. */
    time_t crls_stale;     /* the latest next update of those stale */
    time_t crls_early;     /* the earliest last update of those not yet
                            * valid (a clock set back) */
};

/* Folds the CRLs loaded into 'ctx' (lr_tls_use_crl()) into 's', as they
 * stand at 'now' (time(NULL)): the earliest next update after 'now' into
 * 'until', the latest last update not after 'now' into 'from'.  A CRL
 * already out of its own span is not counted: it refuses every
 * handshake, the connections up were judged when it went out (the
 * span armed before it said so), and it stays out until the files are
 * read again or the clock is set right.  A CRL without a next update
 * never goes stale, but is not yet valid before its last update all the
 * same.  Folds those out into 'crls_stale' (the latest next update
 * not after 'now') and 'crls_early' (the earliest last update after
 * 'now'): what lr_tls_crls_out() at 'now' finds, and since when.
 * Clears OpenSSL's queue; takes the store's lock, so that the owner may
 * fold while handshakes on another thread read the store. */
void lr_tls_span_crls(struct lr_tls_span *s, SSL_CTX *ctx, time_t now);

/* True when a CRL loaded into 'ctx' is out of its own span at 'now'
 * (time(NULL)): stale (its next update not after now) or not yet valid
 * (its last update after now), what lr_tls_span_crls() leaves out.  For
 * a handshake that ends after the timer judged the connections up: its
 * chain may have been verified while that CRL was still good, and the
 * span armed since no longer says it went out.  Clears OpenSSL's queue;
 * takes the store's lock. */
bool lr_tls_crls_out(SSL_CTX *ctx, time_t now);

/* Folds the chain verified at the handshake of 'ssl' (its peer's
 * certificate and the CAs up to our trust anchor) into 's': its
 * earliest notAfter into 'until', its latest notBefore into 'from',
 * whichever side of now (a connection out of it is judged at once, and
 * closed), and sets 'peers'.  Nothing when 'ssl' is NULL or has no peer
 * certificate.  Our
 * own certificate is not counted: the peer judges it, at its handshake
 * and by its own timer (both ends run this code), and we cannot mend
 * it by closing.  Clears OpenSSL's queue. */
void lr_tls_span_peer(struct lr_tls_span *s, SSL *ssl);

/* True when the wall clock 'now' is out of 's': before 'from', or at or
 * past 'until' (OpenSSL compares whole seconds, and a CRL or a
 * certificate is out from the second its bound names): the connections
 * must be judged again. */
bool lr_tls_span_out(const struct lr_tls_span *s, time_t now);

/* True when the connections folded into 's' ('peers') must be judged
 * at once, the wall clock being in 's': a CRL that lr_tls_span_crls()
 * left out, being out of its own span, was in it at 'judged', the wall
 * clock when they were last judged (0: never), so that a connection
 * made since, where the owner's timer did not see it (lightraild's
 * planner's thread), may have been verified under it.  That is: one
 * went stale after 'judged' ('crls_stale' after it), or is not yet
 * valid by a clock set back from 'judged' at or past its last update
 * ('crls_early' not after it; any, when never judged).  One judged at
 * such a time is not judged again for it: a CRL of a CA not on the
 * connections' chains keeps them, and would otherwise be judged for
 * ever.  Each CRL counts by its own bounds: until 2026-12-07 lightraild
 * kept one flag for all ("judged with a CRL out"), and a second CRL
 * going stale after the first was judged was never judged for a
 * connection its timer did not see (test_tls's span_judge).  To be
 * judged again on a judgment that failed, keep the time of the last
 * one done. */
bool lr_tls_span_judge(const struct lr_tls_span *s, time_t judged);

/* The seconds a timer over 's' waits from 'now' (time(NULL)): 0 when
 * no connection's chain is folded into 's' ('peers' false: nothing to
 * judge, no timer at all, even over a CRL's bounds: until 2026-12-07 a
 * CRL without a next update woke both ends every LR_TLS_CRL_RECHECK_S
 * for ever with no connection up), or when it has no bound; 1 when
 * 'now' is out of it; else a second past 'until', at most
 * LR_TLS_CRL_RECHECK_S (also with no 'until': only the clock set back
 * can leave the span).
 * The cap: OpenSSL judges by the wall clock (time()), but libevent's
 * timers count on the monotonic clock, which a step of the wall clock
 * leaves behind: a timer armed for the whole wait would keep the
 * connections up past 'until' by the size of a step forward, and would
 * never see a step back before 'from'.  A timer woken with 'now' still
 * in the span arms itself again rather than judge. */
long lr_tls_span_wait(const struct lr_tls_span *s, time_t now);

/* What the verification of a peer's chain found wrong first: OpenSSL
 * says only a code (X509_V_ERR_CERT_REVOKED), and the operator needs to
 * know which certificate.  For a chain not yet valid
 * (X509_V_ERR_CERT_NOT_YET_VALID), the certificate of the latest
 * notBefore, the peer's own on a tie: the one the clock must pass. */
struct lr_tls_peer {
    long error;            /* X509_V_OK: nothing (yet) */
    int depth;             /* 0: the peer's own certificate */
    char serial[80];       /* hex, as `openssl x509 -serial` prints it */
    char subject[256];     /* one line, "/CN=dc2" */
    char not_after[32];    /* its notAfter, "2026-12-07T03:10:49Z" */
};

/* The verify callback to give SSL_CTX_set_verify() for lr_tls_watch():
 * it records the first failure into the SSL's struct lr_tls_peer, and
 * changes no verdict. */
int lr_tls_verify_cb(int ok, X509_STORE_CTX *x);

/* Makes the verification of 'ssl' record into '*p' (zeroed here; it
 * must outlive the handshake: the connection's own).  0, or -1 when
 * OpenSSL has no room for it (the verdict is then said without the
 * certificate's serial). */
int lr_tls_watch(SSL *ssl, struct lr_tls_peer *p);

/* The chain the peer of 'ssl' presented at its handshake, verified
 * again as a handshake would now against the CA, CRLs and parameters
 * of 'ctx' (one loaded since, say with a new CRL): a key revoked after
 * its connection was admitted must not keep that connection.  Records
 * into the struct lr_tls_peer lr_tls_watch() gave 'ssl' (zeroed first),
 * so that lr_tls_verify_text() names the certificate.  X509_V_OK, or
 * the failure (X509_V_ERR_APPLICATION_VERIFICATION when the peer sent
 * no certificate, _OUT_OF_MEM when OpenSSL had no memory): anything but
 * X509_V_OK refuses.  Clears OpenSSL's queue. */
long lr_tls_verify_again(SSL_CTX *ctx, SSL *ssl);

/* The verification failure 'v' (SSL_get_verify_result()) of a peer's
 * certificate as words, into buf[len], with what '*p' (may be NULL)
 * recorded, to follow "its certificate is refused: ": "revoked by CRL
 * 'F' (serial 1A2B, /CN=dc2)", "the certificate of its CA is revoked by
 * CRL 'F' (serial ..., /CN=ca)", "CRL 'F' is out of date (its next
 * update is past): ...", else OpenSSL's words for 'v'.  'crl' is the
 * CRL file loaded (NULL: none).  Returns 'buf'. */
const char *lr_tls_verify_text(long v, const struct lr_tls_peer *p,
                               const char *crl, char *buf, size_t len);

/* Whether the TLS alert in OpenSSL's reason 'reason' (lr_tls_reason())
 * is the peer's "certificate revoked": it checked our certificate
 * against its CRL. */
int lr_tls_alert_revoked(const char *reason);

/* The serial of the certificate 'ctx' presents, hex as `openssl x509
 * -serial` prints it, into buf[len] ("?" when none).  Returns 'buf'. */
const char *lr_tls_own_serial(SSL_CTX *ctx, char *buf, size_t len);

#endif
