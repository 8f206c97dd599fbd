/*
 * Tests of controller/lr_tls.c: which part of a certificate and key pair
 * lr_tls_use_pair() blames, on files made here (two self-signed P-256
 * certificates and their keys, a file that is no key, a missing file),
 * lr_tls_reason()'s text and its emptying of OpenSSL's error queue,
 * lr_tls_file_reason()'s words for a folder, a file that is no PEM and
 * PEM of the other kind, and lr_tls_ca_file_check() on a CA's
 * certificate (CA:TRUE), a leaf's (CA:FALSE) and a bundle of both;
 * lr_tls_use_crl() on CRLs made here (the CA's, stale, not yet valid,
 * without a next update, another CA's, one forged under the CA's name,
 * a CA file of two CAs with one's CRL, files that hold none) and the
 * words of lr_tls_verify_text(); lr_tls_verify_again() on connections
 * made here over a socketpair: a peer the new CRL revokes, one it does
 * not, a stale CRL, and an SSL with no peer.
 *
 * The three TLS ends word their own messages; their tests check those
 * (tests/cli/api.sh, agent.sh, sb_netconf_tls.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* Writes certificate 'x' to 'cert_path' and its key 'k' to
 * 'key_path', PEM; 0 or -1. */
static int
write_pair(X509 *x, EVP_PKEY *k, const char *cert_path, const char *key_path)
{
    FILE *fc = fopen(cert_path, "w"), *fk = fopen(key_path, "w");
    int ok = fc && fk && PEM_write_X509(fc, x)
             && PEM_write_PrivateKey(fk, k, NULL, NULL, 0, NULL, NULL);
    if (fc && fclose(fc))
        ok = 0;
    if (fk && fclose(fk))
        ok = 0;
    return ok ? 0 : -1;
}

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
    rc = write_pair(x, k, cert_path, key_path);
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

/* Writes to 'out' a CRL of issuer /CN='cn' signed with the key in
 * 'key_path', last updated 'last' seconds from now and next updated
 * 'next' seconds from now (next == 0: no next update), revoking serial
 * 7.  0 on success. */
static int
make_crl(const char *out, const char *cn, const char *key_path, long last,
         long next)
{
    FILE *f = fopen(key_path, "r");
    EVP_PKEY *k = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
    X509_CRL *crl = X509_CRL_new();
    X509_REVOKED *r = X509_REVOKED_new();
    ASN1_TIME *t = ASN1_TIME_new();
    X509_NAME *n = X509_NAME_new();
    ASN1_INTEGER *serial = ASN1_INTEGER_new();
    int rc = -1;
    if (f)
        fclose(f);
    if (!k || !crl || !r || !t || !n || !serial
        || !X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
                                       (const unsigned char *) cn, -1, -1, 0)
        || !X509_CRL_set_version(crl, 1) || !X509_CRL_set_issuer_name(crl, n)
        || !X509_gmtime_adj(t, last) || !X509_CRL_set1_lastUpdate(crl, t)
        || (next && (!X509_gmtime_adj(t, next)
                     || !X509_CRL_set1_nextUpdate(crl, t)))
        || !ASN1_INTEGER_set(serial, 7)
        || !X509_REVOKED_set_serialNumber(r, serial)
        || !X509_gmtime_adj(t, last)
        || !X509_REVOKED_set_revocationDate(r, t)
        || !X509_CRL_add0_revoked(crl, r))
        goto out;
    r = NULL;     /* the CRL's */
    if (!X509_CRL_sort(crl) || !X509_CRL_sign(crl, k, EVP_sha256())
        || !(f = fopen(out, "w")))
        goto out;
    rc = PEM_write_X509_CRL(f, crl) ? 0 : -1;
    fclose(f);
out:
    X509_REVOKED_free(r);
    X509_CRL_free(crl);
    ASN1_TIME_free(t);
    X509_NAME_free(n);
    ASN1_INTEGER_free(serial);
    EVP_PKEY_free(k);
    return rc;
}

/* lr_tls_use_crl() of the file 'crl' into a context whose CA file is
 * 'ca': its return, its words in err[len], and whether it turned on the
 * chain's CRL check (only when it returned 0). */
static int
use_crl(const char *ca, const char *crl, char *err, size_t len)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL_FATAL(SSL_CTX_load_verify_locations(ctx, ca, NULL), 1);
    err[0] = '\0';
    int rc = lr_tls_use_crl(ctx, crl, err, len);
    unsigned long flags = X509_VERIFY_PARAM_get_flags(SSL_CTX_get0_param(ctx));
    const unsigned long want = X509_V_FLAG_CRL_CHECK
                               | X509_V_FLAG_CRL_CHECK_ALL;
    CU_ASSERT_EQUAL(flags & want, rc ? 0 : want);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);
    return rc;
}

static void
test_use_crl(void)
{
    char crl[80], two[80], err[1024];
    snprintf(crl, sizeof crl, "%s/crl.pem", dir);
    snprintf(two, sizeof two, "%s/two-cas.pem", dir);
    const struct {
        const char *cn;     /* the CRL's issuer */
        int key;            /* the key it is signed with */
        long last, next;    /* s from now; next 0: none */
        int rc;
        const char *want;   /* in err ("" when rc is 0) */
    } cases[] = {
        { "ca", CA_KEY, -60, 3600, 0, "" },
        { "ca", CA_KEY, -60, 0, 0, "" },
        { "ca", CA_KEY, -7200, -3600, EINVAL,
          "CRL 1 (of /CN=ca) expired at " },
        { "ca", CA_KEY, 3600, 7200, EINVAL,
          "CRL 1 (of /CN=ca) is not valid before " },
        { "a", KEY_A, -60, 3600, EINVAL, "CRL 1 is of /CN=a, which is none "
          "of the CA file's certificates" },
        { "ca", KEY_B, -60, 3600, EINVAL, "CRL 1 claims to be of /CN=ca, "
          "but its signature does not verify with that CA's key" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL_FATAL(make_crl(crl, cases[i].cn, path[cases[i].key],
                                       cases[i].last, cases[i].next), 0);
        int rc = use_crl(path[CA], crl, err, sizeof err);
        if (rc != cases[i].rc || !strstr(err, cases[i].want))
            fprintf(stderr, "use_crl case %zu: %d '%s'\n", i, rc, err);
        CU_ASSERT_EQUAL(rc, cases[i].rc);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
    }
    /* Files that hold no CRL. */
    CU_ASSERT_EQUAL(use_crl(path[CA], path[MISSING], err, sizeof err),
                    ENOENT);
    CU_ASSERT_STRING_EQUAL(err, "No such file or directory");
    CU_ASSERT_EQUAL(use_crl(path[CA], path[NOT_PEM], err, sizeof err),
                    EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "not a PEM CRL: no -----BEGIN line");
    CU_ASSERT_EQUAL(use_crl(path[CA], path[CA], err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "not a PEM CRL: its PEM blocks are "
                           "'CERTIFICATE'");
    /* Two CAs, the CRL of one: the other's chains would fail. */
    FILE *out = fopen(two, "w"), *in;
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    for (int i = 0; i < 2; i++) {
        int c;
        in = fopen(path[i ? CERT_A : CA], "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        while ((c = fgetc(in)) != EOF)
            fputc(c, out);
        fclose(in);
    }
    fclose(out);
    CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], -60, 3600), 0);
    CU_ASSERT_EQUAL(use_crl(two, crl, err, sizeof err), EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "holds no CRL of CA /CN=a: the whole chain "
                           "is checked, so each CA certificate needs its "
                           "CRL in the file (cat them together)");
    unlink(crl);
    unlink(two);
}

/* lr_tls_verify_text(): what the callback recorded names the
 * certificate when it saw the same failure; OpenSSL's words otherwise. */
static void
test_verify_text(void)
{
    char buf[512];
    struct lr_tls_peer leaf = { X509_V_ERR_CERT_REVOKED, 0, "0A1B",
                                "/CN=dc2", "" };
    struct lr_tls_peer ca = { X509_V_ERR_CERT_REVOKED, 1, "07", "/CN=inter",
                              "" };
    struct lr_tls_peer nocrl = { X509_V_ERR_UNABLE_TO_GET_CRL, 0, "0A1B",
                                 "/CN=dc2", "" };
    struct lr_tls_peer early = { X509_V_ERR_CERT_NOT_YET_VALID, 1, "07",
                                 "/CN=ca", "" };
    const struct {
        long v;
        const struct lr_tls_peer *p;
        const char *want;
    } cases[] = {
        { X509_V_ERR_CERT_REVOKED, &leaf,
          "revoked by CRL 'c.pem' (serial 0A1B, /CN=dc2)" },
        { X509_V_ERR_CERT_REVOKED, &ca, "the certificate of its CA is "
          "revoked by CRL 'c.pem' (serial 07, /CN=inter)" },
        { X509_V_ERR_CERT_REVOKED, NULL,
          "revoked by CRL 'c.pem' (it or its CA's)" },
        { X509_V_ERR_CERT_REVOKED, &nocrl,
          "revoked by CRL 'c.pem' (it or its CA's)" },
        { X509_V_ERR_CRL_HAS_EXPIRED, NULL, "CRL 'c.pem' is out of date "
          "(its next update is past): every peer is refused until a fresh "
          "CRL is loaded (fail closed)" },
        { X509_V_ERR_UNABLE_TO_GET_CRL, &nocrl, "CRL 'c.pem' holds no CRL "
          "of the issuer of /CN=dc2: put each CA of the chain in the CA "
          "file and its CRL in the CRL file" },
        { X509_V_ERR_CRL_NOT_YET_VALID, NULL, "CRL 'c.pem' is not yet "
          "valid (its last update is ahead of this host's clock): every "
          "peer is refused until the clock is set right" },
        { X509_V_ERR_CERT_NOT_YET_VALID, &early, "certificate /CN=ca is not "
          "yet valid (its notBefore is ahead of this host's clock): refused "
          "until the clock is set right" },
        { X509_V_ERR_CERT_NOT_YET_VALID, &leaf, "certificate of its chain "
          "is not yet valid (its notBefore is ahead of this host's clock): "
          "refused until the clock is set right" },
        { X509_V_ERR_HOSTNAME_MISMATCH, &leaf, "hostname mismatch" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CU_ASSERT_STRING_EQUAL(lr_tls_verify_text(cases[i].v, cases[i].p,
                                                  "c.pem", buf, sizeof buf),
                               cases[i].want);
    CU_ASSERT(lr_tls_alert_revoked("error:0A000414:SSL routines::sslv3 "
                                   "alert certificate revoked"));
    CU_ASSERT(!lr_tls_alert_revoked("error:0A000418:SSL routines::tlsv1 "
                                    "alert unknown ca"));
}

/* A certificate for /CN='cn' with serial 'serial' and a new P-256 key,
 * valid from 'before' seconds from now for an hour from now, issued by
 * the CA of path[CA] (its key path[CA_KEY]), written as PEM to
 * 'cert_path' and 'key_path'.  0 on success. */
static int
issue_cert_from(const char *cn, long serial, long before,
                const char *cert_path, const char *key_path)
{
    FILE *f = fopen(path[CA], "r");
    X509 *ca = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    if (f)
        fclose(f);
    f = fopen(path[CA_KEY], "r");
    EVP_PKEY *ca_key = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
    if (f)
        fclose(f);
    EVP_PKEY *k = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    int rc = -1;
    if (!ca || !ca_key || !k || !x
        || !ASN1_INTEGER_set(X509_get_serialNumber(x), serial)
        || !X509_set_version(x, 2)
        || !X509_gmtime_adj(X509_getm_notBefore(x), before)
        || !X509_gmtime_adj(X509_getm_notAfter(x), 3600)
        || !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
                                       MBSTRING_ASC,
                                       (const unsigned char *) cn, -1, -1,
                                       0)
        || !X509_set_issuer_name(x, X509_get_subject_name(ca))
        || !X509_set_pubkey(x, k) || !X509_sign(x, ca_key, EVP_sha256()))
        goto out;
    rc = write_pair(x, k, cert_path, key_path);
out:
    X509_free(x);
    X509_free(ca);
    EVP_PKEY_free(k);
    EVP_PKEY_free(ca_key);
    return rc;
}

/* issue_cert_from(), valid from a minute ago. */
static int
issue_cert(const char *cn, long serial, const char *cert_path,
           const char *key_path)
{
    return issue_cert_from(cn, serial, -60, cert_path, key_path);
}

/* A client context that trusts path[CA] and checks its peer, with the
 * CRL file 'crl' (NULL: none) as lr_tls_use_crl() loads it. */
static SSL_CTX *
client_ctx(const char *crl)
{
    char err[512];
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL_FATAL(SSL_CTX_load_verify_locations(ctx, path[CA], NULL),
                          1);
    if (crl)
        CU_ASSERT_EQUAL_FATAL(lr_tls_use_crl(ctx, crl, err, sizeof err), 0);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, lr_tls_verify_cb);
    return ctx;
}

/* A connection from 'cctx' to a server presenting 'cert' and 'key',
 * both ends in this process over a socketpair, its handshake done: the
 * client's SSL, watched into '*peer' (the server's end is freed, its
 * socket closed: the client keeps what it verified).  NULL when the
 * handshake failed. */
static SSL *
connect_pair(SSL_CTX *cctx, const char *cert, const char *key,
             struct lr_tls_peer *peer)
{
    int sv[2];
    SSL_CTX *sctx = SSL_CTX_new(TLS_server_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(sctx);
    CU_ASSERT_EQUAL_FATAL(lr_tls_use_pair(sctx, cert, key), LR_TLS_PAIR_OK);
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    SSL *c = SSL_new(cctx), *s = SSL_new(sctx);
    CU_ASSERT_FATAL(c && s && SSL_set_fd(c, sv[0]) && SSL_set_fd(s, sv[1]));
    CU_ASSERT_EQUAL(lr_tls_watch(c, peer), 0);
    SSL_set_connect_state(c);
    SSL_set_accept_state(s);
    /* Non-blocking: each end moves until it must read what the other
     * has yet to write; a socketpair's buffer holds a flight. */
    CU_ASSERT_FATAL(fcntl(sv[0], F_SETFL, O_NONBLOCK) == 0
                    && fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
    int cr = 0, sr = 0;
    for (int turn = 0; turn < 16 && (cr != 1 || sr != 1); turn++) {
        if (cr != 1) {
            cr = SSL_do_handshake(c);
            if (cr != 1 && SSL_get_error(c, cr) != SSL_ERROR_WANT_READ)
                break;
        }
        if (sr != 1) {
            sr = SSL_do_handshake(s);
            if (sr != 1 && SSL_get_error(s, sr) != SSL_ERROR_WANT_READ)
                break;
        }
    }
    SSL_free(s);
    SSL_CTX_free(sctx);
    close(sv[1]);
    ERR_clear_error();
    if (cr != 1) {
        SSL_free(c);
        close(sv[0]);
        return NULL;
    }
    return c;
}

/* Frees a client SSL of connect_pair() and closes its socket. */
static void
close_pair(SSL *c)
{
    int fd = SSL_get_fd(c);
    SSL_free(c);
    close(fd);
}

/* lr_tls_verify_again(): a connection admitted under the CA alone is
 * judged by a context loaded since with a CRL (the agent's SIGHUP):
 * the peer it revokes is refused, in the words the agent logs ("closed:
 * its certificate is refused since SIGHUP: revoked by CRL ..."), the
 * peer it does not revoke is kept, a stale CRL refuses every peer, and
 * an SSL that has no peer is refused. */
static void
test_verify_again(void)
{
    char crl[80], stale[80], dc2[80], dc2_key[80], dc3[80], dc3_key[80];
    char buf[512];
    snprintf(crl, sizeof crl, "%s/again-crl.pem", dir);
    snprintf(stale, sizeof stale, "%s/again-stale.pem", dir);
    snprintf(dc2, sizeof dc2, "%s/dc2.pem", dir);
    snprintf(dc2_key, sizeof dc2_key, "%s/dc2.key", dir);
    snprintf(dc3, sizeof dc3, "%s/dc3.pem", dir);
    snprintf(dc3_key, sizeof dc3_key, "%s/dc3.key", dir);
    /* make_crl() revokes serial 7: dc2's, not dc3's. */
    CU_ASSERT_EQUAL_FATAL(issue_cert("dc2", 7, dc2, dc2_key), 0);
    CU_ASSERT_EQUAL_FATAL(issue_cert("dc3", 8, dc3, dc3_key), 0);
    CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], -60, 3600), 0);
    CU_ASSERT_EQUAL_FATAL(make_crl(stale, "ca", path[CA_KEY], -7200, -3600),
                          0);
    SSL_CTX *before = client_ctx(NULL), *after = client_ctx(crl);
    struct lr_tls_peer p2, p3;
    SSL *c2 = connect_pair(before, dc2, dc2_key, &p2);
    SSL *c3 = connect_pair(before, dc3, dc3_key, &p3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c3);
    /* Both admitted, as the context they were accepted with says. */
    CU_ASSERT_EQUAL(SSL_get_verify_result(c2), X509_V_OK);
    CU_ASSERT_EQUAL(lr_tls_verify_again(before, c2), X509_V_OK);

    long v = lr_tls_verify_again(after, c2);
    CU_ASSERT_EQUAL(v, X509_V_ERR_CERT_REVOKED);
    CU_ASSERT_EQUAL(p2.error, X509_V_ERR_CERT_REVOKED);
    CU_ASSERT_EQUAL(p2.depth, 0);
    char want[256];
    snprintf(want, sizeof want, "revoked by CRL '%s' (serial 07, /CN=dc2)",
             crl);
    CU_ASSERT_STRING_EQUAL(lr_tls_verify_text(v, &p2, crl, buf, sizeof buf),
                           want);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);

    /* The peer the CRL does not name is kept, its record cleared. */
    p3.error = X509_V_ERR_UNSPECIFIED;
    CU_ASSERT_EQUAL(lr_tls_verify_again(after, c3), X509_V_OK);
    CU_ASSERT_EQUAL(p3.error, X509_V_OK);

    /* A CRL past its next update (lr_tls_use_crl() refuses one at load;
     * it goes stale while loaded): every peer refused, fail closed. */
    SSL_CTX *old = client_ctx(NULL);
    FILE *f = fopen(stale, "r");
    X509_CRL *x = f ? PEM_read_X509_CRL(f, NULL, NULL, NULL) : NULL;
    if (f)
        fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(X509_STORE_add_crl(SSL_CTX_get_cert_store(old), x), 1);
    X509_CRL_free(x);
    X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(old),
                                X509_V_FLAG_CRL_CHECK
                                | X509_V_FLAG_CRL_CHECK_ALL);
    v = lr_tls_verify_again(old, c3);
    CU_ASSERT_EQUAL(v, X509_V_ERR_CRL_HAS_EXPIRED);
    snprintf(want, sizeof want, "CRL '%s' is out of date (its next update "
             "is past): every peer is refused until a fresh CRL is loaded "
             "(fail closed)", stale);
    CU_ASSERT_STRING_EQUAL(lr_tls_verify_text(v, &p3, stale, buf,
                                              sizeof buf), want);

    /* No handshake, no peer: refused, not admitted. */
    SSL *none = SSL_new(after);
    CU_ASSERT_PTR_NOT_NULL_FATAL(none);
    CU_ASSERT_EQUAL(lr_tls_verify_again(after, none),
                    X509_V_ERR_APPLICATION_VERIFICATION);
    SSL_free(none);

    close_pair(c2);
    close_pair(c3);
    SSL_CTX_free(before);
    SSL_CTX_free(after);
    SSL_CTX_free(old);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    const char *made[] = { crl, stale, dc2, dc2_key, dc3, dc3_key };
    for (size_t i = 0; i < sizeof made / sizeof *made; i++)
        unlink(made[i]);
}

/* The clock of 'ctx' read as 't' by its verifications, as a wall
 * clock set back would read. */
static void
ctx_clock(SSL_CTX *ctx, time_t t)
{
    X509_VERIFY_PARAM_set_time(SSL_CTX_get0_param(ctx), t);
}

/* lr_tls_verify_again() with the wall clock set back before a chain's
 * notBefore: the certificate named is the one whose notBefore is the
 * latest (the bound lr_tls_span_peer() took for 'from', the time the
 * clock must pass again), the peer's own on a tie, not the first that
 * OpenSSL finds not yet valid, which is the CA's, since it checks the
 * chain from the top.  Before 2026-12-07 the agent logged "certificate
 * /CN=ca is not yet valid" for a coordinator's certificate issued after
 * its CA's (tests/cli/agent_clockback.sh). */
static void
test_verify_not_yet_valid(void)
{
    char dc5[80], dc5_key[80], dc6[80], dc6_key[80], buf[512], want[256];
    snprintf(dc5, sizeof dc5, "%s/dc5.pem", dir);
    snprintf(dc5_key, sizeof dc5_key, "%s/dc5.key", dir);
    snprintf(dc6, sizeof dc6, "%s/dc6.pem", dir);
    snprintf(dc6_key, sizeof dc6_key, "%s/dc6.key", dir);
    /* The CA of path[CA] is valid from setup(), before now: dc5 from
     * now (at or after the CA), dc6 from a day ago (before it). */
    CU_ASSERT_EQUAL_FATAL(issue_cert_from("dc5", 10, 0, dc5, dc5_key), 0);
    CU_ASSERT_EQUAL_FATAL(issue_cert_from("dc6", 11, -86400, dc6, dc6_key),
                          0);
    SSL_CTX *ctx = client_ctx(NULL);
    struct lr_tls_peer p5, p6;
    SSL *c5 = connect_pair(ctx, dc5, dc5_key, &p5);
    SSL *c6 = connect_pair(ctx, dc6, dc6_key, &p6);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c5);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c6);
    STACK_OF(X509) *chain = SSL_get0_verified_chain(c5);
    CU_ASSERT_EQUAL_FATAL(sk_X509_num(chain), 2);
    CU_ASSERT(ASN1_TIME_compare(X509_get0_notBefore(sk_X509_value(chain, 0)),
                                X509_get0_notBefore(sk_X509_value(chain, 1)))
              >= 0);
    struct lr_tls_span s = { 0 };
    lr_tls_span_peer(&s, c6);          /* the CA's notBefore, dc6's earlier */
    const time_t ca_from = s.from;

    /* An hour back: both not yet valid; dc5's is the latest. */
    ctx_clock(ctx, time(NULL) - 3600);
    long v = lr_tls_verify_again(ctx, c5);
    CU_ASSERT_EQUAL(v, X509_V_ERR_CERT_NOT_YET_VALID);
    CU_ASSERT_EQUAL(p5.error, X509_V_ERR_CERT_NOT_YET_VALID);
    CU_ASSERT_EQUAL(p5.depth, 0);
    CU_ASSERT_STRING_EQUAL(p5.subject, "/CN=dc5");
    CU_ASSERT_STRING_EQUAL(p5.serial, "0A");
    snprintf(want, sizeof want, "certificate /CN=dc5 is not yet valid (its "
             "notBefore is ahead of this host's clock): refused until the "
             "clock is set right");
    CU_ASSERT_STRING_EQUAL(lr_tls_verify_text(v, &p5, NULL, buf, sizeof buf),
                           want);
    /* dc6, from a day ago: the CA's is the latest, and named. */
    v = lr_tls_verify_again(ctx, c6);
    CU_ASSERT_EQUAL(v, X509_V_ERR_CERT_NOT_YET_VALID);
    CU_ASSERT_EQUAL(p6.depth, 1);
    CU_ASSERT_STRING_EQUAL(p6.subject, "/CN=ca");
    /* Just before the CA's notBefore: dc6 is valid, the CA alone not. */
    ctx_clock(ctx, ca_from - 1);
    CU_ASSERT_EQUAL(lr_tls_verify_again(ctx, c6),
                    X509_V_ERR_CERT_NOT_YET_VALID);
    CU_ASSERT_EQUAL(p6.depth, 1);
    CU_ASSERT_STRING_EQUAL(p6.subject, "/CN=ca");
    /* The clock right again: both kept. */
    X509_VERIFY_PARAM_clear_flags(SSL_CTX_get0_param(ctx),
                                  X509_V_FLAG_USE_CHECK_TIME);
    CU_ASSERT_EQUAL(lr_tls_verify_again(ctx, c5), X509_V_OK);
    CU_ASSERT_EQUAL(lr_tls_verify_again(ctx, c6), X509_V_OK);
    close_pair(c5);
    close_pair(c6);
    SSL_CTX_free(ctx);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    const char *made[] = { dc5, dc5_key, dc6, dc6_key };
    for (size_t i = 0; i < sizeof made / sizeof *made; i++)
        unlink(made[i]);
}

/* Adds the CRL of the PEM file 'file' to the store of 'ctx' as it is:
 * lr_tls_use_crl() would refuse a stale one. */
static void
add_crl(SSL_CTX *ctx, const char *file)
{
    FILE *f = fopen(file, "r");
    X509_CRL *x = f ? PEM_read_X509_CRL(f, NULL, NULL, NULL) : NULL;
    if (f)
        fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(X509_STORE_add_crl(SSL_CTX_get_cert_store(ctx), x), 1);
    X509_CRL_free(x);
}

/* lr_tls_crl_update(): the earliest next update still to come (a
 * timer's) and the latest past, among CRLs of which one has none. */
static void
test_crl_update(void)
{
    char crl[80], buf[32], want[32];
    snprintf(crl, sizeof crl, "%s/update-crl.pem", dir);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL_FATAL(SSL_CTX_load_verify_locations(ctx, path[CA], NULL),
                          1);
    /* No CRL, then one with no next update: no timer either way. */
    CU_ASSERT_EQUAL(lr_tls_crl_update(ctx, false, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "?");
    CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], -60, 0), 0);
    add_crl(ctx, crl);
    CU_ASSERT_EQUAL(lr_tls_crl_update(ctx, false, buf, sizeof buf), 0);
    CU_ASSERT_EQUAL(lr_tls_crl_update(ctx, true, NULL, 0), 0);
    /* Next updates in an hour, in a minute (the earliest to come), a
     * minute ago and two days ago (the latest past is the first). */
    const long next[] = { 3600, 60, -60, -2 * 86400 };
    for (size_t i = 0; i < sizeof next / sizeof *next; i++) {
        CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY],
                                       next[i] - 3 * 86400, next[i]), 0);
        add_crl(ctx, crl);
    }
    struct tm tm;
    const time_t now = time(NULL);
    time_t t = lr_tls_crl_update(ctx, false, buf, sizeof buf);
    /* make_crl() read the clock a little before 'now'. */
    CU_ASSERT(t >= now + 55 && t <= now + 60);
    strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    CU_ASSERT_STRING_EQUAL(buf, want);
    t = lr_tls_crl_update(ctx, true, buf, sizeof buf);
    CU_ASSERT(t >= now - 65 && t <= now - 60);
    strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    CU_ASSERT_STRING_EQUAL(buf, want);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);
    unlink(crl);
}

/* lr_tls_span_wait(): a second past 'until' ahead (OpenSSL's whole
 * seconds), one when out of the span either side: never 0 or less,
 * which would wake the timer at once, again and again; 0, no timer,
 * for a span with no bound at all or no connection's chain in it. */
static void
test_span_wait(void)
{
    const time_t now = 1796613049;    /* 2026-12-07T03:10:49Z */
    struct lr_tls_span s = { .from = now - 3600, .until = now + 5,
                              .peers = true };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 6);
    s.until = now + 1;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 2);
    s.until = now;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 1);
    s.until = now - 3600;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 1);
    /* A day ahead: the timer wakes within LR_TLS_CRL_RECHECK_S all the
     * same, to read the wall clock again (which may have been set
     * forward past 'until', or back before 'from', meanwhile). */
    CU_ASSERT(LR_TLS_CRL_RECHECK_S >= 1 && LR_TLS_CRL_RECHECK_S <= 60);
    s.until = now + 86400;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), LR_TLS_CRL_RECHECK_S);
    s.until = now + LR_TLS_CRL_RECHECK_S;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), LR_TLS_CRL_RECHECK_S);
    s.until = now + LR_TLS_CRL_RECHECK_S - 2;
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), LR_TLS_CRL_RECHECK_S - 1);
    /* Only a 'from' (a CRL without a next update) and a connection:
     * the cap, for a clock set back; a clock already before it: at
     * once. */
    s = (struct lr_tls_span) { .from = now - 60, .peers = true };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), LR_TLS_CRL_RECHECK_S);
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now - 61), 1);
    /* The same CRL with no connection up: nothing to judge, no timer
     * (until 2026-12-07: the cap, for ever), nor for a CRL with a next
     * update, even one passed or a clock set back. */
    s = (struct lr_tls_span) { .from = now - 60 };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 0);
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now - 61), 0);
    s = (struct lr_tls_span) { .from = now - 60, .until = now + 86400 };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 0);
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now + 86400), 0);
    /* No bound: no timer. */
    s = (struct lr_tls_span) { .peers = true };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 0);
    s = (struct lr_tls_span) { 0 };
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, now), 0);
}

/* lr_tls_span_out(): out before 'from' and from 'until' on, as OpenSSL
 * has a CRL or certificate not yet valid (its bound after now) and
 * expired (its bound not after now); 0 bounds nothing. */
static void
test_span_out(void)
{
    const time_t now = 1796613049;
    struct lr_tls_span s = { .from = now - 10, .until = now + 10 };
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now));
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now - 10));
    CU_ASSERT_TRUE(lr_tls_span_out(&s, now - 11));
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now + 9));
    CU_ASSERT_TRUE(lr_tls_span_out(&s, now + 10));
    s.from = 0;
    CU_ASSERT_FALSE(lr_tls_span_out(&s, 1));
    s = (struct lr_tls_span) { .from = now - 10, .until = 0 };
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now + 86400 * 365));
    CU_ASSERT_TRUE(lr_tls_span_out(&s, now - 11));
    s = (struct lr_tls_span) { 0 };
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now));
}

/* lr_tls_span_crls(): the earliest next update after now and the latest
 * last update not after now, among CRLs of which one has no next update,
 * one is stale and one is not yet valid (neither of those two counted:
 * they are out already). */
static void
test_span_crls(void)
{
    char crl[80];
    snprintf(crl, sizeof crl, "%s/span-crl.pem", dir);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL_FATAL(SSL_CTX_load_verify_locations(ctx, path[CA], NULL),
                          1);
    struct lr_tls_span s = { 0 };
    const time_t t0 = time(NULL);
    lr_tls_span_crls(&s, ctx, t0);
    CU_ASSERT(s.from == 0 && s.until == 0);
    /* No next update, last updated two hours ago: a 'from' alone. */
    CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], -7200, 0), 0);
    add_crl(ctx, crl);
    lr_tls_span_crls(&s, ctx, time(NULL));
    CU_ASSERT(s.from >= t0 - 7200 && s.from <= t0 - 7195);
    CU_ASSERT_EQUAL(s.until, 0);
    CU_ASSERT(s.crls_stale == 0 && s.crls_early == 0);
    CU_ASSERT_FALSE(s.peers);          /* CRLs alone: nothing to judge */
    CU_ASSERT_EQUAL(lr_tls_span_wait(&s, time(NULL)), 0);
    /* (last, next): an hour ago to a day ahead; a minute ago (the latest
     * last update) to an hour ahead (the earliest next update); two days
     * ago to a minute ago (stale); a minute ahead (not yet valid) to two
     * days ahead. */
    const long span[][2] = { { -3600, 86400 }, { -60, 3600 },
                             { -2 * 86400, -60 }, { 60, 2 * 86400 } };
    for (size_t i = 0; i < sizeof span / sizeof *span; i++) {
        CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], span[i][0],
                                       span[i][1]), 0);
        add_crl(ctx, crl);
    }
    const time_t now = time(NULL);
    s = (struct lr_tls_span) { 0 };
    lr_tls_span_crls(&s, ctx, now);
    /* make_crl() read the clock a little before 'now'. */
    CU_ASSERT(s.from >= now - 65 && s.from <= now - 60);
    CU_ASSERT(s.until >= now + 3595 && s.until <= now + 3600);
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now));
    /* The stale one and the one not yet valid, not counted, said: when
     * it went stale, from when it is valid. */
    CU_ASSERT(s.crls_stale >= now - 65 && s.crls_stale <= now - 60);
    CU_ASSERT(s.crls_early >= now + 55 && s.crls_early <= now + 60);
    /* The clock set back two minutes: out, before the latest last
     * update; folded at that time, the CRL of a minute ago no longer
     * counts, and the one of an hour ago bounds it. */
    CU_ASSERT_TRUE(lr_tls_span_out(&s, now - 120));
    struct lr_tls_span back = { 0 };
    lr_tls_span_crls(&back, ctx, now - 120);
    CU_ASSERT(back.from >= now - 3605 && back.from <= now - 3600);
    /* None stale then; the earliest not yet valid, a minute ago's. */
    CU_ASSERT_EQUAL(back.crls_stale, 0);
    CU_ASSERT(back.crls_early >= now - 65 && back.crls_early <= now - 60);
    CU_ASSERT_FALSE(lr_tls_span_out(&back, now - 120));
    /* Three days back every CRL is not yet valid: none is counted, its
     * next update no more than its last (lr_tls.h). */
    struct lr_tls_span early = { 0 };
    lr_tls_span_crls(&early, ctx, now - 3 * 86400);
    CU_ASSERT(early.from == 0 && early.until == 0);
    CU_ASSERT(early.crls_early >= now - 2 * 86400 - 5
              && early.crls_early <= now - 2 * 86400);
    /* Folded into a tighter span, it stays as tight. */
    struct lr_tls_span tight = { .from = now - 1, .until = now + 1 };
    lr_tls_span_crls(&tight, ctx, now);
    CU_ASSERT(tight.from == now - 1 && tight.until == now + 1);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);
    unlink(crl);
}

/* lr_tls_crls_out(): a CRL out of its own span, stale or not yet
 * valid, which lr_tls_span_crls() leaves out: none without a CRL, none
 * for one good now, one for the same read past its next update or
 * before its last update. */
static void
test_crls_out(void)
{
    char crl[80];
    snprintf(crl, sizeof crl, "%s/out-crl.pem", dir);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    CU_ASSERT_EQUAL_FATAL(SSL_CTX_load_verify_locations(ctx, path[CA], NULL),
                          1);
    const time_t t0 = time(NULL);
    CU_ASSERT_FALSE(lr_tls_crls_out(ctx, t0));
    /* Last updated a minute ago, next in an hour. */
    CU_ASSERT_EQUAL_FATAL(make_crl(crl, "ca", path[CA_KEY], -60, 3600), 0);
    add_crl(ctx, crl);
    const time_t now = time(NULL);
    CU_ASSERT_FALSE(lr_tls_crls_out(ctx, now));
    CU_ASSERT_TRUE(lr_tls_crls_out(ctx, now + 3600 + 5));
    CU_ASSERT_TRUE(lr_tls_crls_out(ctx, now - 120));
    /* The span folded then has it no longer: the timer's span cannot
     * say so (agent_crlhandshake.sh). */
    struct lr_tls_span s = { 0 };
    lr_tls_span_crls(&s, ctx, now + 3600 + 5);
    CU_ASSERT_FALSE(lr_tls_span_out(&s, now + 3600 + 5));
    /* ... but says one went stale, and when, for the owner to judge a
     * connection made meanwhile (lightraild's crl_arm()); none at
     * 'now'. */
    CU_ASSERT(s.crls_stale >= now + 3595 && s.crls_stale <= now + 3600);
    CU_ASSERT_EQUAL(s.crls_early, 0);
    struct lr_tls_span good = { 0 };
    lr_tls_span_crls(&good, ctx, now);
    CU_ASSERT(good.crls_stale == 0 && good.crls_early == 0);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);
    unlink(crl);
}

/* lr_tls_span_judge(): the connections kept are judged at once when a
 * CRL left out of the span went out after their last judgment, so that
 * one made meanwhile off the timer's sight (lightraild's planner) is
 * not kept under it.  Two CAs' CRLs: B's goes stale first and is
 * judged; A's goes stale later, while no connection was in sight: it is
 * judged when one is (until 2026-12-07 one flag for every CRL said
 * "judged" and such a connection stayed up until its chain expired).
 * A CRL made not yet valid by a clock set back from a judgment in its
 * span is judged once too; nothing without a connection. */
static void
test_span_judge(void)
{
    char crl[80];
    snprintf(crl, sizeof crl, "%s/judge-crl.pem", dir);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    /* (issuer, last, next), seconds from now. */
    const struct { const char *cn; long last, next; } crls[] = {
        { "ca-a", -3600, 600 }, { "ca-b", -3600, 60 },
    };
    for (size_t i = 0; i < sizeof crls / sizeof *crls; i++) {
        CU_ASSERT_EQUAL_FATAL(make_crl(crl, crls[i].cn, path[CA_KEY],
                                       crls[i].last, crls[i].next), 0);
        add_crl(ctx, crl);
    }
    const time_t now = time(NULL);
    struct lr_tls_span s = { .peers = true };
    lr_tls_span_crls(&s, ctx, now);
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, 0));      /* none out */
    /* B's stale: judged at once, never judged before. */
    const time_t t1 = now + 60 + 5;
    s = (struct lr_tls_span) { .peers = true };
    lr_tls_span_crls(&s, ctx, t1);
    CU_ASSERT_TRUE(lr_tls_span_judge(&s, 0));
    /* Judged at t1: not again while only B's is out. */
    s = (struct lr_tls_span) { .peers = true };
    lr_tls_span_crls(&s, ctx, t1 + 30);
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, t1));
    /* A's stale since: the connections judged at t1 were judged with
     * it good, and one made since may have been verified under it. */
    const time_t t2 = now + 600 + 5;
    s = (struct lr_tls_span) { .peers = true };
    lr_tls_span_crls(&s, ctx, t2);
    CU_ASSERT_TRUE(lr_tls_span_judge(&s, t1));
    /* Judged at t2, or from A's next update on: no more; nor ever
     * without a connection. */
    s = (struct lr_tls_span) { .peers = true };
    lr_tls_span_crls(&s, ctx, t2 + 30);
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, t2));
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, now + 600));
    s.peers = false;
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, t1));
    /* The clock set back to before both CRLs' last updates: both were
     * good at a judgment at t1, so judged at once (and when never
     * judged); not again once judged with the clock back. */
    const time_t back = now - 3700;
    s = (struct lr_tls_span) { .peers = true };
    lr_tls_span_crls(&s, ctx, back);
    CU_ASSERT_TRUE(lr_tls_span_judge(&s, t1));
    CU_ASSERT_TRUE(lr_tls_span_judge(&s, 0));
    CU_ASSERT_FALSE(lr_tls_span_judge(&s, back));   /* judged since */
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    SSL_CTX_free(ctx);
    unlink(crl);
}

/* lr_tls_span_peer(): the earliest notAfter and the latest notBefore of
 * a connection's verified chain (dc4's own or its CA's), folded into a
 * span: kept when tighter, taken when looser or none; an SSL without a
 * peer, or none, leaves it as it was. */
static void
test_span_peer(void)
{
    char dc4[80], dc4_key[80];
    snprintf(dc4, sizeof dc4, "%s/dc4.pem", dir);
    snprintf(dc4_key, sizeof dc4_key, "%s/dc4.key", dir);
    CU_ASSERT_EQUAL_FATAL(issue_cert("dc4", 9, dc4, dc4_key), 0);
    SSL_CTX *ctx = client_ctx(NULL);
    struct lr_tls_peer p;
    SSL *c = connect_pair(ctx, dc4, dc4_key, &p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    struct lr_tls_span s = { 0 };
    lr_tls_span_peer(&s, c);
    CU_ASSERT_TRUE(s.peers);
    STACK_OF(X509) *chain = SSL_get0_verified_chain(c);
    CU_ASSERT_EQUAL_FATAL(sk_X509_num(chain), 2);
    const ASN1_TIME *leaf = X509_get0_notAfter(sk_X509_value(chain, 0));
    const ASN1_TIME *ca = X509_get0_notAfter(sk_X509_value(chain, 1));
    /* Both an hour ahead, the CA's made first: the earlier of the two. */
    CU_ASSERT(ASN1_TIME_cmp_time_t(leaf, s.until) >= 0);
    CU_ASSERT(ASN1_TIME_cmp_time_t(ca, s.until) >= 0);
    CU_ASSERT(ASN1_TIME_cmp_time_t(leaf, s.until) == 0
              || ASN1_TIME_cmp_time_t(ca, s.until) == 0);
    /* notBefore: the later of the two. */
    const ASN1_TIME *leaf0 = X509_get0_notBefore(sk_X509_value(chain, 0));
    const ASN1_TIME *ca0 = X509_get0_notBefore(sk_X509_value(chain, 1));
    CU_ASSERT(ASN1_TIME_cmp_time_t(leaf0, s.from) <= 0);
    CU_ASSERT(ASN1_TIME_cmp_time_t(ca0, s.from) <= 0);
    CU_ASSERT(ASN1_TIME_cmp_time_t(leaf0, s.from) == 0
              || ASN1_TIME_cmp_time_t(ca0, s.from) == 0);
    CU_ASSERT_FALSE(lr_tls_span_out(&s, time(NULL)));
    /* A clock set back before that notBefore: out. */
    CU_ASSERT_TRUE(lr_tls_span_out(&s, s.from - 1));
    const struct lr_tls_span was = s;
    struct lr_tls_span t = { .from = was.from + 10,
                             .until = was.until - 10 };
    lr_tls_span_peer(&t, c);
    CU_ASSERT(t.from == was.from + 10 && t.until == was.until - 10);
    t = (struct lr_tls_span) { .from = was.from - 10,
                               .until = was.until + 10 };
    lr_tls_span_peer(&t, c);
    CU_ASSERT(t.from == was.from && t.until == was.until);
    t = (struct lr_tls_span) { .from = 5, .until = 7 };
    lr_tls_span_peer(&t, NULL);
    CU_ASSERT(t.from == 5 && t.until == 7 && !t.peers);
    SSL *none = SSL_new(ctx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(none);
    lr_tls_span_peer(&t, none);
    CU_ASSERT(t.from == 5 && t.until == 7 && !t.peers);
    SSL_free(none);
    close_pair(c);
    SSL_CTX_free(ctx);
    CU_ASSERT_EQUAL(ERR_peek_error(), 0);
    unlink(dc4);
    unlink(dc4_key);
}

static CU_TestInfo tests[] = {
    { "use_pair blames the right file", test_pair_blame },
    { "reason: text, empty queue", test_reason },
    { "file_reason: folder, no PEM, the other kind", test_file_reason },
    { "ca_file_check: a CA, a leaf, a bundle", test_ca_file_check },
    { "pem_reason: odd text, a block cut short", test_pem_reason },
    { "use_crl: the CA's, stale, early, another's, forged",
      test_use_crl },
    { "verify_text: the revoked certificate named", test_verify_text },
    { "verify_again: revoked since, kept, stale CRL, no peer",
      test_verify_again },
    { "verify_again: a clock set back names the latest notBefore",
      test_verify_not_yet_valid },
    { "span_peer: the chain's notBefore and notAfter when tighter",
      test_span_peer },
    { "crl_update: the next to come, the last past, none", test_crl_update },
    { "span_crls: last and next updates, those out not counted",
      test_span_crls },
    { "crls_out: stale or not yet valid, none good", test_crls_out },
    { "span_judge: a CRL gone out since the last judgment, two CAs",
      test_span_judge },
    { "span_out: before from, from until on", test_span_out },
    { "span_wait: a second past until, 1 when out, capped, 0 no chain",
      test_span_wait },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("lr_tls", tests, setup, teardown)
