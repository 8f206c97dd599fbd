/*
 * lr_tls: the two OpenSSL chores every TLS end of Lightrail shares: load
 * a certificate with its key, and say why OpenSSL failed.
 *
 * Three ends use it, each with its own wording and error convention: the
 * northbound server (northbound/nb_tls.c), the NETCONF-over-TLS client
 * (southbound/sb_netconf_tls.c) and the CDynP agents
 * (controller/lr_agent_party.c).  This file only tells them which part
 * failed; the message, which names the configuration to mend, is theirs.
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

/* OpenSSL's last queued error as text in 'buf', or the system's words
 * when a system call failed beneath it ("No such file or directory"), or
 * "no OpenSSL reason" when the queue is empty; clears the queue.
 * Returns 'buf'. */
const char *lr_tls_reason(char *buf, size_t len);

#endif
