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

#include <stddef.h>

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

/* What a PEM file given for a certificate (or a CA's certificates) or
 * a private key should hold. */
enum lr_tls_pem {
    LR_TLS_PEM_CERT,
    LR_TLS_PEM_KEY,
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

#endif
