/*
 * lr_tls: certificate and key loading shared by the TLS ends (lr_tls.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

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

/* Whether a PEM block's type is one OpenSSL loads as 'want': the
 * certificate types PEM_read_bio_X509_AUX() takes, any private key. */
static int
lr_tls_pem_is(const char *type, enum lr_tls_pem want)
{
    if (want == LR_TLS_PEM_CERT)
        return !strcmp(type, PEM_STRING_X509)
               || !strcmp(type, PEM_STRING_X509_OLD)
               || !strcmp(type, PEM_STRING_X509_TRUSTED);
    return strstr(type, "PRIVATE KEY") != NULL;
}

/* Why PEM text 'in' did not load as 'want', given OpenSSL's reason
 * 'ossl' for the failure: the types of its PEM blocks when none is of
 * that kind, else 'ossl'.  Reads 'in' to its end; clears the queue. */
static const char *
lr_tls_bio_reason(BIO *in, enum lr_tls_pem want, const char *ossl,
                  char *buf, size_t len)
{
    const char *what = want == LR_TLS_PEM_CERT ? "certificate"
                                                : "private key";
    /* The types of the PEM blocks, for text of other kinds. */
    char types[128] = "";
    int n = 0, found = 0;
    const char *broken = NULL;
    char *type = NULL, *header = NULL;
    unsigned char *data = NULL;
    long dlen;
    /* 'ossl' holds what the queue said; what the scan queues tells
     * how it stopped: at the text's end (no start line), or in a block
     * the count would not show: one whose END line is missing (a file
     * copied short) or of another type, or whose base64 is bad. */
    ERR_clear_error();
    while (!found) {
        if (PEM_read_bio(in, &type, &header, &data, &dlen) != 1) {
            unsigned long e = ERR_peek_last_error();
            if (ERR_GET_LIB(e) == ERR_LIB_PEM
                && ERR_GET_REASON(e) == PEM_R_BAD_END_LINE)
                broken = "has no -----END line matching its -----BEGIN "
                         "line";
            else if (ERR_GET_LIB(e) == ERR_LIB_PEM
                     && ERR_GET_REASON(e) == PEM_R_BAD_BASE64_DECODE)
                broken = "holds base64 that does not decode";
            break;
        }
        found = lr_tls_pem_is(type, want);
        size_t l = strlen(types);
        if (!found && n < 4)
            snprintf(types + l, sizeof types - l, "%s'%s'", n ? ", " : "",
                     type);
        n++;
        OPENSSL_free(type);
        OPENSSL_free(header);
        OPENSSL_free(data);
    }
    ERR_clear_error();
    if (found)
        snprintf(buf, len, "%s", ossl);
    else if (broken)
        snprintf(buf, len, "not a PEM %s: %s%s%sa PEM block %s", what,
                 n ? "after " : "", n ? types : "", n ? ", " : "", broken);
    else if (!n)
        snprintf(buf, len, "not a PEM %s: no -----BEGIN line", what);
    else
        snprintf(buf, len, "not a PEM %s: its PEM blocks are %s%s", what,
                 types, n > 4 ? ", ..." : "");
    return buf;
}

const char *
lr_tls_file_reason(const char *path, enum lr_tls_pem want, char *buf,
                   size_t len)
{
    char ossl[256];
    struct stat st;
    /* OpenSSL's reason first: it is the answer when the file is PEM of
     * the right kind and still did not load (a key of another
     * certificate, bad base64), and reading the file below would queue
     * errors of its own. */
    lr_tls_reason(ossl, sizeof ossl);
    if (stat(path, &st)) {
        snprintf(buf, len, "%s", strerror(errno));
        return buf;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(buf, len, "%s", strerror(EISDIR));
        return buf;
    }
    BIO *in = BIO_new_file(path, "r");
    if (!in) {
        lr_tls_reason(buf, len);
        return buf;
    }
    lr_tls_bio_reason(in, want, ossl, buf, len);
    BIO_free(in);
    return buf;
}

const char *
lr_tls_pem_reason(const void *pem, size_t n, enum lr_tls_pem want,
                  char *buf, size_t len)
{
    char ossl[256];
    /* OpenSSL's reason first, as for a file. */
    lr_tls_reason(ossl, sizeof ossl);
    BIO *in = n <= INT_MAX ? BIO_new_mem_buf(pem, (int) n) : NULL;
    if (!in) {
        snprintf(buf, len, "%s", ossl);
        ERR_clear_error();
        return buf;
    }
    lr_tls_bio_reason(in, want, ossl, buf, len);
    BIO_free(in);
    return buf;
}

int
lr_tls_ca_file_check(const char *path, char *subject, size_t len)
{
    BIO *in = BIO_new_file(path, "r");
    X509 *x;
    int pos = 0, bad = 0;
    if (!in) {
        ERR_clear_error();
        return -1;
    }
    while (!bad && (x = PEM_read_bio_X509_AUX(in, NULL, NULL, NULL))) {
        pos++;
        if (!X509_check_ca(x)) {
            bad = pos;
            X509_NAME_oneline(X509_get_subject_name(x), subject, (int) len);
        }
        X509_free(x);
    }
    BIO_free(in);
    ERR_clear_error();
    return bad ? bad : pos ? 0 : -1;
}
