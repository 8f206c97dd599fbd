/* lr_tls_selfsigned: see lr_tls_selfsigned.h. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tools/lightrail/lr_tls_selfsigned.h"

static int
add_ext(X509 *cert, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return -1;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

int
lr_tls_selfsigned(const char *cert_path, const char *key_path, char *err,
                  size_t errlen)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    FILE *f = NULL;
    int rc = EIO;
    if (!key || !cert)
        goto cleanup;
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               (const unsigned char *) "localhost", -1, -1, 0);
    X509_set_issuer_name(cert, name);
    if (add_ext(cert, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1")
        || add_ext(cert, NID_basic_constraints, "critical,CA:TRUE")
        || !X509_sign(cert, key, EVP_sha256()))
        goto cleanup;
    mode_t old = umask(077);
    f = fopen(key_path, "w");
    umask(old);
    if (!f || !PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL)
        || fclose(f)) {
        f = NULL;
        snprintf(err, errlen, "cannot write %s", key_path);
        goto cleanup_quiet;
    }
    f = fopen(cert_path, "w");
    if (!f || !PEM_write_X509(f, cert) || fclose(f)) {
        f = NULL;
        snprintf(err, errlen, "cannot write %s", cert_path);
        goto cleanup_quiet;
    }
    f = NULL;
    rc = 0;

cleanup:
    if (rc)
        snprintf(err, errlen, "cannot make a self-signed certificate: %s",
                 ERR_reason_error_string(ERR_get_error()));
cleanup_quiet:
    if (f)
        fclose(f);
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}
