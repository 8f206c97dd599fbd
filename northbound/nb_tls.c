/*
 * nb_tls: the server side of TLS for nb_server: one SSL_CTX for every
 * connection, and who the peer's certificate says it is.
 *
 * Choices, and why:
 * - TLS 1.2 is the floor (RFC 8996 retired 1.0 and 1.1); for 1.2 only
 *   ECDHE with an AEAD cipher, so every session has forward secrecy.
 * - Client certificates are requested, verified when sent, but not
 *   required (SSL_VERIFY_PEER without FAIL_IF_NO_PEER_CERT): scripts
 *   with a bearer token and agents with certificates share one port.
 *   A certificate that is sent and fails verification still ends the
 *   handshake, so a peer certificate seen later is a verified one.
 * - Renegotiation is off: it buys nothing here and has a history.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "controller/lr_tls.h"
#include "northbound/nb_int.h"

int
nb_tls_ctx_new(const char *cert_file, const char *key_file,
               const char *client_ca_file, SSL_CTX **out,
               char *err, size_t errlen)
{
    static const unsigned char sid_ctx[] = "lightrail-northbound";
    char why[256];
    int rc = EINVAL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

    *out = NULL;
    if (!ctx) {
        snprintf(err, errlen, "TLS: cannot create a context: %s",
                 lr_tls_reason(why, sizeof why));
        rc = ENOMEM;
        goto cleanup;
    }
    if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        || !SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20")) {
        snprintf(err, errlen, "TLS: cannot restrict versions and ciphers: %s",
                 lr_tls_reason(why, sizeof why));
        goto cleanup;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION
                        | SSL_OP_CIPHER_SERVER_PREFERENCE);
    switch (lr_tls_use_pair(ctx, cert_file, key_file)) {
    case LR_TLS_PAIR_OK:
        break;
    case LR_TLS_PAIR_CERT:
        snprintf(err, errlen, "TLS certificate '%s': %s (want a PEM "
                 "certificate chain)", cert_file,
                 lr_tls_file_reason(cert_file, LR_TLS_PEM_CERT, why,
                                    sizeof why));
        goto cleanup;
    case LR_TLS_PAIR_KEY:
        snprintf(err, errlen, "TLS key '%s': %s (want an unencrypted "
                 "PEM private key)", key_file,
                 lr_tls_file_reason(key_file, LR_TLS_PEM_KEY, why,
                                    sizeof why));
        goto cleanup;
    case LR_TLS_PAIR_MISMATCH:
        snprintf(err, errlen, "TLS key '%s' does not match certificate "
                 "'%s': %s", key_file, cert_file,
                 lr_tls_reason(why, sizeof why));
        goto cleanup;
    }
    /* Session resumption with client verification needs an id context,
     * or OpenSSL refuses resumed sessions. */
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof sid_ctx - 1);
    if (client_ca_file) {
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(client_ca_file);
        if (!names
            || SSL_CTX_load_verify_locations(ctx, client_ca_file, NULL) != 1) {
            sk_X509_NAME_pop_free(names, X509_NAME_free);
            snprintf(err, errlen, "TLS client CA '%s': %s (want PEM "
                     "certificates)", client_ca_file,
                     lr_tls_file_reason(client_ca_file, LR_TLS_PEM_CERT,
                                        why, sizeof why));
            goto cleanup;
        }
        SSL_CTX_set_client_CA_list(ctx, names);    /* takes 'names' */
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    }
    *out = ctx;
    ctx = NULL;
    rc = 0;

cleanup:
    SSL_CTX_free(ctx);
    return rc;
}

int
nb_tls_peer_cn(SSL *ssl, char *buf, size_t len)
{
    X509 *x = ssl ? SSL_get0_peer_certificate(ssl) : NULL;
    unsigned char *cn = NULL;
    int rc = ENOENT;

    if (!x || SSL_get_verify_result(ssl) != X509_V_OK || len == 0)
        goto cleanup;
    X509_NAME *name = X509_get_subject_name(x);
    int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
    if (i < 0)
        goto cleanup;
    ASN1_STRING *data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    int n = ASN1_STRING_to_UTF8(&cn, data);
    if (n <= 0 || (size_t) n >= len)
        goto cleanup;
    /* The CN becomes a principal in logs and stored records. */
    for (int k = 0; k < n; k++)
        if (cn[k] < 0x20 || cn[k] == 0x7f)
            goto cleanup;
    memcpy(buf, cn, (size_t) n);
    buf[n] = '\0';
    rc = 0;

cleanup:
    OPENSSL_free(cn);
    return rc;
}
