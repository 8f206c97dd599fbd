/*
 * lr_tls: certificate and key loading shared by the TLS ends (lr_tls.h).
 */
#include <stdio.h>

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

const char *
lr_tls_reason(char *buf, size_t len)
{
    unsigned long e = ERR_peek_last_error();
    if (!e)
        snprintf(buf, len, "no OpenSSL reason");
    else
        ERR_error_string_n(e, buf, len);
    ERR_clear_error();
    return buf;
}
