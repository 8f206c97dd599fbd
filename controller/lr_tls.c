/*
 * lr_tls: certificate and key loading shared by the TLS ends (lr_tls.h).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509.h>

#include "controller/lr_tls.h"

enum lr_tls_pair
lr_tls_use_pair(SSL_CTX *ctx, const char *cert, const char *key)
{
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1)
        return LR_TLS_PAIR_CERT;
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        /* OpenSSL 3 compares the key with the certificate here already:
         * a key that reads well but is another certificate's is not a
         * format problem. */
        unsigned long e = ERR_peek_last_error();
        if (ERR_GET_LIB(e) == ERR_LIB_X509
            && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH)
            return LR_TLS_PAIR_MISMATCH;
        return LR_TLS_PAIR_KEY;
    }
    /* Older OpenSSL compares only here. */
    if (SSL_CTX_check_private_key(ctx) != 1)
        return LR_TLS_PAIR_MISMATCH;
    return LR_TLS_PAIR_OK;
}

/* Whether OpenSSL queued 'e' for a failed system call (its reason is
 * then the errno): OpenSSL 3 marks those apart from every library's. */
static int
lr_tls_is_sys(unsigned long e)
{
#ifdef ERR_SYSTEM_ERROR
    if (ERR_SYSTEM_ERROR(e))
        return 1;
#endif
    return ERR_GET_LIB(e) == ERR_LIB_SYS;
}

/* A missing or unreadable file queues the system's error first and then
 * each layer's "system lib" above it: the last one alone would not say
 * what happened, so the system's words win. */
const char *
lr_tls_reason(char *buf, size_t len)
{
    unsigned long e, last = 0, sys = 0;
    while ((e = ERR_get_error())) {
        last = e;
        if (lr_tls_is_sys(e))
            sys = e;
    }
    if (sys)
        snprintf(buf, len, "%s", strerror(ERR_GET_REASON(sys)));
    else if (!last)
        snprintf(buf, len, "no OpenSSL reason");
    else
        ERR_error_string_n(last, buf, len);
    return buf;
}
