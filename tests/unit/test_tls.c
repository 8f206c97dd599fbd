/*
 * Tests of controller/lr_tls.c: which part of a certificate and key pair
 * lr_tls_use_pair() blames, on files made here (two self-signed P-256
 * certificates and their keys, a file that is no key, a missing file),
 * and lr_tls_reason()'s text and its emptying of OpenSSL's error queue.
 *
 * The three TLS ends word their own messages; their tests check those
 * (tests/cli/api.sh, agent.sh, sb_netconf_tls.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "controller/lr_tls.h"

#include "tests/lr_test.h"

static char dir[] = "/tmp/lr-test-tls-XXXXXX";
static char path[6][64];
enum { CERT_A, KEY_A, CERT_B, KEY_B, NOT_A_KEY, MISSING };

/* A self-signed certificate for 'cn' with a new P-256 key, both written
 * as PEM; 0 on success. */
static int
make_pair(const char *cn, const char *cert_path, const char *key_path)
{
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    int rc = -1;
    if (!k || !x)
        goto out;
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_NAME *n = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
                               (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, n);
    X509_set_pubkey(x, k);
    if (!X509_sign(x, k, EVP_sha256()))
        goto out;
    FILE *fc = fopen(cert_path, "w"), *fk = fopen(key_path, "w");
    int ok = fc && fk && PEM_write_X509(fc, x)
             && PEM_write_PrivateKey(fk, k, NULL, NULL, 0, NULL, NULL);
    if (fc)
        fclose(fc);
    if (fk)
        fclose(fk);
    rc = ok ? 0 : -1;
out:
    X509_free(x);
    EVP_PKEY_free(k);
    return rc;
}

static int
setup(void)
{
    static const char *names[] = { "a.pem", "a.key", "b.pem", "b.key",
                                   "junk.key", "missing.pem" };
    if (!mkdtemp(dir))
        return 1;
    for (int i = 0; i < 6; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
    FILE *f = fopen(path[NOT_A_KEY], "w");
    if (!f)
        return 1;
    fputs("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n"
          "-----END PRIVATE KEY-----\n", f);
    fclose(f);
    return make_pair("a", path[CERT_A], path[KEY_A])
           || make_pair("b", path[CERT_B], path[KEY_B]);
}

static int
teardown(void)
{
    for (int i = 0; i < 6; i++)
        unlink(path[i]);
    return rmdir(dir) != 0;
}

/* lr_tls_use_pair() on a fresh client context; OpenSSL's queue is
 * emptied after, so that one case does not leak into the next. */
static enum lr_tls_pair
use(int cert, int key)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    enum lr_tls_pair r = lr_tls_use_pair(ctx, path[cert], path[key]);
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return r;
}

static void
test_pair_blame(void)
{
    CU_ASSERT_EQUAL(use(CERT_A, KEY_A), LR_TLS_PAIR_OK);
    CU_ASSERT_EQUAL(use(CERT_B, KEY_B), LR_TLS_PAIR_OK);
    /* Both files good, but not each other's. */
    CU_ASSERT_EQUAL(use(CERT_A, KEY_B), LR_TLS_PAIR_MISMATCH);
    CU_ASSERT_EQUAL(use(CERT_B, KEY_A), LR_TLS_PAIR_MISMATCH);
    /* A key file that is not a key, or is missing: the key's fault. */
    CU_ASSERT_EQUAL(use(CERT_A, NOT_A_KEY), LR_TLS_PAIR_KEY);
    CU_ASSERT_EQUAL(use(CERT_A, MISSING), LR_TLS_PAIR_KEY);
    /* A certificate that is missing, or a key given as certificate. */
    CU_ASSERT_EQUAL(use(MISSING, KEY_A), LR_TLS_PAIR_CERT);
    CU_ASSERT_EQUAL(use(KEY_A, KEY_A), LR_TLS_PAIR_CERT);
}

static void
test_reason(void)
{
    char buf[256];
    ERR_clear_error();
    CU_ASSERT_STRING_EQUAL(lr_tls_reason(buf, sizeof buf),
                           "no OpenSSL reason");

    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL(lr_tls_use_pair(ctx, path[CERT_A], path[KEY_B]),
                    LR_TLS_PAIR_MISMATCH);
    CU_ASSERT_NOT_EQUAL(ERR_peek_error(), 0);
    const char *r = lr_tls_reason(buf, sizeof buf);
    CU_ASSERT_PTR_EQUAL(r, buf);
    /* OpenSSL's own words for the mismatch, and the queue emptied. */
    CU_ASSERT_PTR_NOT_NULL(strstr(r, "key values mismatch"));
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);

    /* A missing file: the system's words, not OpenSSL's "system lib"
     * (a daemon with a mistyped certificate path said only that). */
    ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL(lr_tls_use_pair(ctx, path[MISSING], path[KEY_A]),
                    LR_TLS_PAIR_CERT);
    CU_ASSERT_STRING_EQUAL(lr_tls_reason(buf, sizeof buf), strerror(ENOENT));
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    CU_ASSERT_EQUAL(lr_tls_use_pair(ctx, path[CERT_A], path[MISSING]),
                    LR_TLS_PAIR_KEY);
    CU_ASSERT_STRING_EQUAL(lr_tls_reason(buf, sizeof buf), strerror(ENOENT));
    SSL_CTX_free(ctx);

    /* A short buffer is cut, not overrun. */
    char tiny[8];
    ERR_put_error(ERR_LIB_SSL, 0, SSL_R_BAD_LENGTH, __FILE__, __LINE__);
    CU_ASSERT_EQUAL(strlen(lr_tls_reason(tiny, sizeof tiny)), 7);
}

static CU_TestInfo tests[] = {
    { "use_pair blames the right file", test_pair_blame },
    { "reason: text, empty queue", test_reason },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("lr_tls", tests, setup, teardown)
