/*
 * Tests of controller/lr_tls.c: which part of a certificate and key pair
 * lr_tls_use_pair() blames, on files made here (two self-signed P-256
 * certificates and their keys, a file that is no key, a missing file),
 * lr_tls_reason()'s text and its emptying of OpenSSL's error queue,
 * lr_tls_file_reason()'s words for a folder, a file that is no PEM and
 * PEM of the other kind, and lr_tls_ca_file_check() on a CA's
 * certificate (CA:TRUE), a leaf's (CA:FALSE) and a bundle of both.
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
#include <openssl/x509v3.h>

#include "controller/lr_tls.h"

#include "tests/lr_test.h"

static char dir[] = "/tmp/lr-test-tls-XXXXXX";
#define N_PATHS 11
static char path[N_PATHS][64];
enum { CERT_A, KEY_A, CERT_B, KEY_B, NOT_A_KEY, MISSING, NOT_PEM, CA, CA_KEY,
       LEAF, LEAF_KEY };

/* A self-signed certificate for 'cn' with a new P-256 key, both written
 * as PEM; 0 on success.  'ca' < 0: a version 1 certificate, without
 * extensions; else version 3 with basicConstraints CA:TRUE (1) or
 * CA:FALSE (0). */
static int
make_cert(const char *cn, int ca, const char *cert_path,
          const char *key_path)
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
    if (ca >= 0) {
        BASIC_CONSTRAINTS *bc = BASIC_CONSTRAINTS_new();
        int added = bc && X509_set_version(x, 2);
        if (added) {
            bc->ca = ca ? 0xFF : 0;
            added = X509_add1_ext_i2d(x, NID_basic_constraints, bc, 1,
                                      X509V3_ADD_DEFAULT) == 1;
        }
        BASIC_CONSTRAINTS_free(bc);
        if (!added)
            goto out;
    }
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
    static const char *names[N_PATHS] = {
        "a.pem", "a.key", "b.pem", "b.key", "junk.key", "missing.pem",
        "notes.txt", "ca.pem", "ca.key", "leaf.pem", "leaf.key" };
    if (!mkdtemp(dir))
        return 1;
    for (int i = 0; i < N_PATHS; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
    FILE *f = fopen(path[NOT_A_KEY], "w");
    if (!f)
        return 1;
    fputs("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n"
          "-----END PRIVATE KEY-----\n", f);
    fclose(f);
    if (!(f = fopen(path[NOT_PEM], "w")))
        return 1;
    fputs("a certificate, not PEM\n", f);
    fclose(f);
    return make_cert("a", -1, path[CERT_A], path[KEY_A])
           || make_cert("b", -1, path[CERT_B], path[KEY_B])
           || make_cert("ca", 1, path[CA], path[CA_KEY])
           || make_cert("leaf", 0, path[LEAF], path[LEAF_KEY]);
}

static int
teardown(void)
{
    for (int i = 0; i < N_PATHS; i++)
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

/* lr_tls_use_pair() with 'cert' and 'key', then lr_tls_file_reason() of
 * the file it blamed. */
static const char *
file_reason(int cert, int key, char *buf, size_t len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    enum lr_tls_pair r = lr_tls_use_pair(ctx, cert < 0 ? dir : path[cert],
                                         key < 0 ? dir : path[key]);
    SSL_CTX_free(ctx);
    CU_ASSERT(r == LR_TLS_PAIR_CERT || r == LR_TLS_PAIR_KEY);
    if (r == LR_TLS_PAIR_CERT)
        lr_tls_file_reason(cert < 0 ? dir : path[cert], LR_TLS_PEM_CERT,
                           buf, len);
    else
        lr_tls_file_reason(key < 0 ? dir : path[key], LR_TLS_PEM_KEY, buf,
                           len);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    return buf;
}

/* OpenSSL says "PEM lib" of a folder, of a file with no PEM in it and
 * of a key given as the certificate: the file's own fault is said. */
static void
test_file_reason(void)
{
    char buf[256];
    CU_ASSERT_STRING_EQUAL(file_reason(-1, KEY_A, buf, sizeof buf),
                           strerror(EISDIR));
    CU_ASSERT_STRING_EQUAL(file_reason(CERT_A, -1, buf, sizeof buf),
                           strerror(EISDIR));
    CU_ASSERT_STRING_EQUAL(file_reason(NOT_PEM, KEY_A, buf, sizeof buf),
                           "not a PEM certificate: no -----BEGIN line");
    CU_ASSERT_STRING_EQUAL(file_reason(CERT_A, NOT_PEM, buf, sizeof buf),
                           "not a PEM private key: no -----BEGIN line");
    CU_ASSERT_STRING_EQUAL(file_reason(KEY_A, KEY_A, buf, sizeof buf),
                           "not a PEM certificate: its PEM blocks are "
                           "'PRIVATE KEY'");
    CU_ASSERT_STRING_EQUAL(file_reason(CERT_A, CERT_A, buf, sizeof buf),
                           "not a PEM private key: its PEM blocks are "
                           "'CERTIFICATE'");
    CU_ASSERT_STRING_EQUAL(file_reason(MISSING, KEY_A, buf, sizeof buf),
                           strerror(ENOENT));
    /* PEM of the right kind that still does not load: OpenSSL's words,
     * the file's kind being no news. */
    file_reason(CERT_A, NOT_A_KEY, buf, sizeof buf);
    CU_ASSERT_PTR_NULL(strstr(buf, "not a PEM"));
    CU_ASSERT_STRING_NOT_EQUAL(buf, "no OpenSSL reason");
}

static void
test_ca_file_check(void)
{
    char subject[128] = "", bundle[80];
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(path[CA], subject, sizeof subject),
                    0);
    /* An old version 1 self-signed root counts as a CA, as OpenSSL
     * counts it. */
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(path[CERT_A], subject,
                                         sizeof subject), 0);
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(path[LEAF], subject,
                                         sizeof subject), 1);
    CU_ASSERT_STRING_EQUAL(subject, "/CN=leaf");
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(path[NOT_PEM], subject,
                                         sizeof subject), -1);
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(path[MISSING], subject,
                                         sizeof subject), -1);
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(dir, subject, sizeof subject), -1);
    /* A bundle: the leaf after the CA is named by its place. */
    snprintf(bundle, sizeof bundle, "%s/bundle.pem", dir);
    FILE *out = fopen(bundle, "w"), *in;
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int i = 0; i < 2; i++) {
        int c;
        in = fopen(path[i ? LEAF : CA], "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        while ((c = fgetc(in)) != EOF)
            fputc(c, out);
        fclose(in);
    }
    fclose(out);
    subject[0] = '\0';
    CU_ASSERT_EQUAL(lr_tls_ca_file_check(bundle, subject, sizeof subject),
                    2);
    CU_ASSERT_STRING_EQUAL(subject, "/CN=leaf");
    unlink(bundle);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
}

/* lr_tls_pem_reason() of text already read, odd text included: each
 * says what the text is, leaves OpenSSL's queue empty, and a PEM block
 * cut before its -----END line (a file copied short), or with bad
 * base64, is said so, not "no -----BEGIN line", which sent the reader
 * looking for a line the text has. */
static void
test_pem_reason(void)
{
    char buf[256], pem[4096] = "";
    FILE *in = fopen(path[CERT_A], "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    size_t n = fread(pem, 1, sizeof pem - 1, in);
    fclose(in);
    const char *nl = strchr(pem, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
    /* The BEGIN line and one line of base64, then nothing. */
    size_t cut = (size_t) (strchr(nl + 1, '\n') - pem) + 1;
    const char *keyish = "-----BEGIN PRIVATE KEY-----\nAAAA\n"
                         "-----END PRIVATE KEY-----\n";
    char *big = malloc(1 << 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, 'A', 1 << 20);
    const struct {
        const char *text;
        size_t len;
        const char *want;
    } odd[] = {
        { "", 0, "not a PEM certificate: no -----BEGIN line" },
        { "\0\0\0\0", 4, "not a PEM certificate: no -----BEGIN line" },
        { "-----BEGIN CERTIFICATE-----", 27, "not a PEM certificate: a "
          "PEM block has no -----END line matching its -----BEGIN line" },
        { keyish, strlen(keyish),
          "not a PEM certificate: its PEM blocks are 'PRIVATE KEY'" },
        { keyish, strlen(keyish) - 9, "not a PEM certificate: a PEM block "
          "has no -----END line matching its -----BEGIN line" },
        { "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
          59, "not a PEM certificate: a PEM block holds base64 that does "
          "not decode" },
        { "-----BEGIN CERTIFICATE-----\nAAAA\n-----END FOO-----\n", 51,
          "not a PEM certificate: a PEM block has no -----END line "
          "matching its -----BEGIN line" },
        { big, 1 << 20, "not a PEM certificate: no -----BEGIN line" },
        { pem, cut, "not a PEM certificate: a PEM block has no -----END "
                    "line matching its -----BEGIN line" },
        { pem, n - 2, "not a PEM certificate: a PEM block has no "
                      "-----END line matching its -----BEGIN line" },
    };
    /* A key, then the certificate cut short. */
    char both[8192];
    size_t kl = strlen(keyish);
    memcpy(both, keyish, kl);
    memcpy(both + kl, pem, cut);
    ERR_clear_error();
    lr_tls_pem_reason(both, kl + cut, LR_TLS_PEM_CERT, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "not a PEM certificate: after 'PRIVATE "
                           "KEY', a PEM block has no -----END line "
                           "matching its -----BEGIN line");
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        ERR_clear_error();
        lr_tls_pem_reason(odd[i].text, odd[i].len, LR_TLS_PEM_CERT, buf,
                          sizeof buf);
        if (!strstr(buf, odd[i].want))
            fprintf(stderr, "pem_reason case %zu: '%s' lacks '%s'\n", i,
                    buf, odd[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, odd[i].want));
        CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    }
    free(big);
}

static CU_TestInfo tests[] = {
    { "use_pair blames the right file", test_pair_blame },
    { "reason: text, empty queue", test_reason },
    { "file_reason: folder, no PEM, the other kind", test_file_reason },
    { "ca_file_check: a CA, a leaf, a bundle", test_ca_file_check },
    { "pem_reason: odd text, a block cut short", test_pem_reason },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("lr_tls", tests, setup, teardown)
