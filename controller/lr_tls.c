/*
 * lr_tls: certificate and key loading shared by the TLS ends (lr_tls.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/crypto.h>
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
 * certificate types PEM_read_bio_X509_AUX() takes, an X509 CRL, any
 * private key. */
static int
lr_tls_pem_is(const char *type, enum lr_tls_pem want)
{
    if (want == LR_TLS_PEM_CERT)
        return !strcmp(type, PEM_STRING_X509)
               || !strcmp(type, PEM_STRING_X509_OLD)
               || !strcmp(type, PEM_STRING_X509_TRUSTED);
    if (want == LR_TLS_PEM_CRL)
        return !strcmp(type, PEM_STRING_X509_CRL);
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
                       : want == LR_TLS_PEM_CRL ? "CRL" : "private key";
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

/* ---- certificate revocation ---- */

/* 'name' as one line into buf[len]. */
static const char *
lr_tls_name(const X509_NAME *name, char *buf, size_t len)
{
    if (!name || !X509_NAME_oneline(name, buf, (int) len))
        snprintf(buf, len, "?");
    return buf;
}

/* 't' as "2026-12-07T03:10:49Z" into buf[len]. */
static const char *
lr_tls_time(const ASN1_TIME *t, char *buf, size_t len)
{
    struct tm tm;
    if (!t || !ASN1_TIME_to_tm(t, &tm)
        || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "?");
    return buf;
}

/* 'serial' in hex as `openssl x509 -serial` prints it (i2a_ASN1_INTEGER)
 * into buf[len]. */
static const char *
lr_tls_serial_hex(const ASN1_INTEGER *serial, char *buf, size_t len)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL;
    long n;
    snprintf(buf, len, "?");
    if (b && serial && i2a_ASN1_INTEGER(b, serial) > 0
        && (n = BIO_get_mem_data(b, &p)) > 0)
        snprintf(buf, len, "%.*s", (int) n, p);
    BIO_free(b);
    return buf;
}

/* The certificates of 'store' (the CA file's), each referenced: the
 * caller frees them with sk_X509_pop_free(.., X509_free).  NULL when
 * memory runs out. */
static STACK_OF(X509) *
lr_tls_store_certs(X509_STORE *store)
{
    STACK_OF(X509) *out = sk_X509_new_null();
    STACK_OF(X509_OBJECT) *objs = X509_STORE_get0_objects(store);
    for (int i = 0; out && i < sk_X509_OBJECT_num(objs); i++) {
        X509 *x = X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objs, i));
        if (!x)
            continue;
        if (!X509_up_ref(x) || !sk_X509_push(out, x)) {
            X509_free(x);
            sk_X509_pop_free(out, X509_free);
            out = NULL;
        }
    }
    return out;
}

/* Whether CRL number 'pos' (from 1), 'crl', may be trusted now: issued
 * and signed by one of 'cas', current.  The index of its CA in 'cas',
 * or -1 with the reason in err[errlen]. */
static int
lr_tls_crl_judge(X509_CRL *crl, int pos, STACK_OF(X509) *cas, char *err,
                 size_t errlen)
{
    char issuer[256], when[32];
    const X509_NAME *in = X509_CRL_get_issuer(crl);
    int named = 0;
    lr_tls_name(in, issuer, sizeof issuer);
    for (int i = 0; i < sk_X509_num(cas); i++) {
        X509 *ca = sk_X509_value(cas, i);
        if (X509_NAME_cmp(X509_get_subject_name(ca), in))
            continue;
        named = 1;
        EVP_PKEY *key = X509_get0_pubkey(ca);
        if (!key || X509_CRL_verify(crl, key) != 1)
            continue;
        /* OpenSSL refuses, handshake by handshake, a CRL of a CA whose
         * keyUsage lacks cRLSign ("key usage does not include CRL
         * signing"). */
        if ((X509_get_extension_flags(ca) & EXFLAG_KUSAGE)
            && !(X509_get_key_usage(ca) & KU_CRL_SIGN)) {
            snprintf(err, errlen, "CRL %d is of %s, whose keyUsage lacks "
                     "cRLSign: no CRL it signs is trusted; issue the CA "
                     "certificate again with keyUsage cRLSign", pos,
                     issuer);
            return -1;
        }
        /* The clock: OpenSSL would refuse every handshake with such a
         * CRL (X509_V_ERR_CRL_HAS_EXPIRED, _CRL_NOT_YET_VALID); said at
         * the start, it names the file and what to do. */
        const ASN1_TIME *next = X509_CRL_get0_nextUpdate(crl);
        const ASN1_TIME *last = X509_CRL_get0_lastUpdate(crl);
        if (next && X509_cmp_current_time(next) <= 0) {
            snprintf(err, errlen, "CRL %d (of %s) expired at %s, its next "
                     "update: a stale list may lack the latest "
                     "revocations, so it is refused (fail closed); have "
                     "the CA issue a fresh one (openssl ca -gencrl)", pos,
                     issuer, lr_tls_time(next, when, sizeof when));
            return -1;
        }
        if (last && X509_cmp_current_time(last) > 0) {
            snprintf(err, errlen, "CRL %d (of %s) is not valid before %s, "
                     "its last update: check this host's clock", pos,
                     issuer, lr_tls_time(last, when, sizeof when));
            return -1;
        }
        return i;
    }
    if (named)
        snprintf(err, errlen, "CRL %d claims to be of %s, but its signature "
                 "does not verify with that CA's key: give a CRL the CA "
                 "signed", pos, issuer);
    else
        snprintf(err, errlen, "CRL %d is of %s, which is none of the CA "
                 "file's certificates: give the CRLs of the CAs in the CA "
                 "file (an intermediate CA's CRL needs the intermediate's "
                 "certificate there too)", pos, issuer);
    return -1;
}

int
lr_tls_use_crl(SSL_CTX *ctx, const char *crl, char *err, size_t errlen)
{
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    STACK_OF(X509) *cas = store ? lr_tls_store_certs(store) : NULL;
    STACK_OF(X509_CRL) *crls = sk_X509_CRL_new_null();
    BIO *in = NULL;
    X509_CRL *x;
    char why[256];
    int rc = EINVAL, *covered = NULL;

    ERR_clear_error();
    if (!cas || !crls || !(covered = calloc((size_t) sk_X509_num(cas) + 1,
                                            sizeof *covered))) {
        snprintf(err, errlen, "out of memory");
        rc = ENOMEM;
        goto cleanup;
    }
    if (!(in = BIO_new_file(crl, "r"))) {
        rc = errno ? errno : EINVAL;
        snprintf(err, errlen, "%s", lr_tls_file_reason(crl, LR_TLS_PEM_CRL,
                                                       why, sizeof why));
        goto cleanup;
    }
    while ((x = PEM_read_bio_X509_CRL(in, NULL, NULL, NULL))) {
        if (!sk_X509_CRL_push(crls, x)) {
            X509_CRL_free(x);
            snprintf(err, errlen, "out of memory");
            rc = ENOMEM;
            goto cleanup;
        }
    }
    /* The end of the text queues "no start line"; anything else (a
     * block cut short, bad base64) is a broken file. */
    unsigned long e = ERR_peek_last_error();
    if (!sk_X509_CRL_num(crls)
        || !(ERR_GET_LIB(e) == ERR_LIB_PEM
             && ERR_GET_REASON(e) == PEM_R_NO_START_LINE)) {
        snprintf(err, errlen, "%s", lr_tls_file_reason(crl, LR_TLS_PEM_CRL,
                                                       why, sizeof why));
        goto cleanup;
    }
    ERR_clear_error();
    for (int i = 0; i < sk_X509_CRL_num(crls); i++) {
        int ca = lr_tls_crl_judge(sk_X509_CRL_value(crls, i), i + 1, cas,
                                  err, errlen);
        if (ca < 0)
            goto cleanup;
        covered[ca] = 1;
    }
    for (int i = 0; i < sk_X509_num(cas); i++)
        if (!covered[i]) {
            char subject[256];
            snprintf(err, errlen, "holds no CRL of CA %s: the whole chain "
                     "is checked, so each CA certificate needs its CRL in "
                     "the file (cat them together)",
                     lr_tls_name(X509_get_subject_name(sk_X509_value(cas, i)),
                                 subject, sizeof subject));
            goto cleanup;
        }
    for (int i = 0; i < sk_X509_CRL_num(crls); i++)
        if (!X509_STORE_add_crl(store, sk_X509_CRL_value(crls, i))) {
            snprintf(err, errlen, "cannot add CRL %d: %s", i + 1,
                     lr_tls_reason(why, sizeof why));
            goto cleanup;
        }
    /* The SSL's parameters, not the store's, govern a handshake's
     * verification: set there. */
    X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(ctx),
                                X509_V_FLAG_CRL_CHECK
                                | X509_V_FLAG_CRL_CHECK_ALL);
    rc = 0;

cleanup:
    BIO_free(in);
    sk_X509_CRL_pop_free(crls, X509_CRL_free);
    sk_X509_pop_free(cas, X509_free);
    free(covered);
    ERR_clear_error();
    return rc;
}

/* 't' in seconds since the epoch, which ASN1_TIME_diff() counts
 * exactly (timegm() is no C11); 0 when it does not read. */
static time_t
lr_tls_epoch(const ASN1_TIME *t)
{
    ASN1_TIME *epoch = t ? ASN1_TIME_set(NULL, 0) : NULL;
    int days, secs;
    time_t when = 0;
    if (epoch && ASN1_TIME_diff(&days, &secs, epoch, t))
        when = (time_t) days * 86400 + secs;
    ASN1_TIME_free(epoch);
    return when;
}

time_t
lr_tls_crl_update(SSL_CTX *ctx, bool past, char *buf, size_t len)
{
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    const ASN1_TIME *best = NULL;
    time_t when = 0;
    if (buf)
        snprintf(buf, len, "?");
    if (!store)
        return 0;
    /* Handshakes on other threads read the store (lightraild's planner):
     * its lock keeps the list of objects still while it is walked. */
    X509_STORE_lock(store);
    STACK_OF(X509_OBJECT) *objs = X509_STORE_get0_objects(store);
    for (int i = 0; i < sk_X509_OBJECT_num(objs); i++) {
        X509_CRL *crl = X509_OBJECT_get0_X509_CRL(sk_X509_OBJECT_value(objs,
                                                                     i));
        const ASN1_TIME *next = crl ? X509_CRL_get0_nextUpdate(crl) : NULL;
        /* "Past" as OpenSSL's check_crl_time() has it: a next update
         * equal to now is past. */
        if (!next || (X509_cmp_current_time(next) <= 0) != past)
            continue;
        if (!best || (past ? ASN1_TIME_compare(next, best) > 0
                           : ASN1_TIME_compare(next, best) < 0))
            best = next;
    }
    if (best && (when = lr_tls_epoch(best)) && buf)
        lr_tls_time(best, buf, len);
    X509_STORE_unlock(store);
    ERR_clear_error();
    return when;
}

/* Calls fn(arg, last, next) for each CRL loaded into 'ctx', its last
 * update and its next update in seconds since the epoch (0: none),
 * under the store's lock: handshakes on other threads read the store
 * (lightraild's planner), and the lock keeps the list of objects still
 * while it is walked.  Clears OpenSSL's queue. */
static void
crls_each(SSL_CTX *ctx, void (*fn)(void *, time_t, time_t), void *arg)
{
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    if (!store)
        return;
    X509_STORE_lock(store);
    STACK_OF(X509_OBJECT) *objs = X509_STORE_get0_objects(store);
    for (int i = 0; i < sk_X509_OBJECT_num(objs); i++) {
        X509_CRL *crl = X509_OBJECT_get0_X509_CRL(sk_X509_OBJECT_value(objs,
                                                                     i));
        if (!crl)
            continue;
        const ASN1_TIME *next = X509_CRL_get0_nextUpdate(crl);
        fn(arg, lr_tls_epoch(X509_CRL_get0_lastUpdate(crl)),
           next ? lr_tls_epoch(next) : 0);
    }
    X509_STORE_unlock(store);
    ERR_clear_error();
}

struct crls_at {
    struct lr_tls_span *s;        /* folded into; NULL for lr_tls_crls_out() */
    time_t now;
    bool out;                     /* one is out of its own span */
};

static void
crl_out(void *arg, time_t last, time_t end)
{
    struct crls_at *a = arg;
    a->out |= (end && end <= a->now) || last > a->now;
}

static void
crl_fold(void *arg, time_t last, time_t end)
{
    struct crls_at *a = arg;
    struct lr_tls_span *s = a->s;
    /* Those already out (stale, or not yet valid by a clock set back)
     * were judged when they went out, or the span armed before still
     * says so (lr_tls_span_out()), or lr_tls_span_judge() tells the
     * owner from when they went out. */
    if (end && end <= a->now && end > s->crls_stale)
        s->crls_stale = end;
    if (last > a->now && (!s->crls_early || last < s->crls_early))
        s->crls_early = last;
    if (end > a->now && last <= a->now && (!s->until || end < s->until))
        s->until = end;
    if (last && last <= a->now && last > s->from)
        s->from = last;
}

void
lr_tls_span_crls(struct lr_tls_span *s, SSL_CTX *ctx, time_t now)
{
    struct crls_at a = { s, now, false };
    crls_each(ctx, crl_fold, &a);
}

bool
lr_tls_crls_out(SSL_CTX *ctx, time_t now)
{
    struct crls_at a = { NULL, now, false };
    crls_each(ctx, crl_out, &a);
    return a.out;
}

void
lr_tls_span_peer(struct lr_tls_span *s, SSL *ssl)
{
    /* The chain as verified at the handshake runs from the peer's
     * certificate up to the trust anchor of our store: a CA of it that
     * expires fails the chain as the peer's own does. */
    STACK_OF(X509) *chain = ssl ? SSL_get0_verified_chain(ssl) : NULL;
    X509 *peer = ssl ? SSL_get0_peer_certificate(ssl) : NULL;
    int n = chain ? sk_X509_num(chain) : peer != NULL;
    for (int i = 0; i < n; i++) {
        X509 *x = chain ? sk_X509_value(chain, i) : peer;
        time_t end = lr_tls_epoch(X509_get0_notAfter(x));
        time_t begin = lr_tls_epoch(X509_get0_notBefore(x));
        if (end && (!s->until || end < s->until))
            s->until = end;
        if (begin > s->from)
            s->from = begin;
        s->peers = true;
    }
    ERR_clear_error();
}

bool
lr_tls_span_out(const struct lr_tls_span *s, time_t now)
{
    return (s->from && now < s->from) || (s->until && now >= s->until);
}

bool
lr_tls_span_judge(const struct lr_tls_span *s, time_t judged)
{
    return s->peers
           && (s->crls_stale > judged
               || (s->crls_early && (!judged || judged >= s->crls_early)));
}

long
lr_tls_span_wait(const struct lr_tls_span *s, time_t now)
{
    if (!s->peers || (!s->from && !s->until))
        return 0;
    if (lr_tls_span_out(s, now))
        return 1;
    return !s->until || s->until - now >= LR_TLS_CRL_RECHECK_S
           ? LR_TLS_CRL_RECHECK_S : (long) (s->until - now) + 1;
}

/* The SSL ex_data index of the struct lr_tls_peer, made once. */
static int lr_tls_peer_index = -1;
static CRYPTO_ONCE lr_tls_peer_once = CRYPTO_ONCE_STATIC_INIT;

static void
lr_tls_peer_index_new(void)
{
    lr_tls_peer_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

int
lr_tls_watch(SSL *ssl, struct lr_tls_peer *p)
{
    memset(p, 0, sizeof *p);
    if (!CRYPTO_THREAD_run_once(&lr_tls_peer_once, lr_tls_peer_index_new)
        || lr_tls_peer_index < 0
        || !SSL_set_ex_data(ssl, lr_tls_peer_index, p))
        return -1;
    return 0;
}

int
lr_tls_verify_cb(int ok, X509_STORE_CTX *x)
{
    if (ok || lr_tls_peer_index < 0)
        return ok;
    SSL *ssl = X509_STORE_CTX_get_ex_data(
        x, SSL_get_ex_data_X509_STORE_CTX_idx());
    struct lr_tls_peer *p = ssl ? SSL_get_ex_data(ssl, lr_tls_peer_index)
                                : NULL;
    X509 *cert = X509_STORE_CTX_get_current_cert(x);
    if (!p || p->error)
        return ok;
    p->error = X509_STORE_CTX_get_error(x);
    p->depth = X509_STORE_CTX_get_error_depth(x);
    /* OpenSSL judges the times of the chain from the top down, so a
     * clock set back before every notBefore finds the CA's first; but
     * the chain is good again only once the clock passes the latest
     * notBefore (lr_tls_span_peer()'s 'from'), whichever holds it: that
     * one is named, the peer's own on a tie. */
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(x);
    for (int i = 0; cert && p->error == X509_V_ERR_CERT_NOT_YET_VALID
                    && i < sk_X509_num(chain); i++) {
        X509 *c = sk_X509_value(chain, i);
        int later = ASN1_TIME_compare(X509_get0_notBefore(c),
                                      X509_get0_notBefore(cert));
        if (later > 0 || (later == 0 && i < p->depth)) {
            cert = c;
            p->depth = i;
        }
    }
    lr_tls_serial_hex(cert ? X509_get0_serialNumber(cert) : NULL, p->serial,
                      sizeof p->serial);
    lr_tls_name(cert ? X509_get_subject_name(cert) : NULL, p->subject,
                sizeof p->subject);
    lr_tls_time(cert ? X509_get0_notAfter(cert) : NULL, p->not_after,
                sizeof p->not_after);
    return ok;
}

long
lr_tls_verify_again(SSL_CTX *ctx, SSL *ssl)
{
    X509 *peer = SSL_get0_peer_certificate(ssl);
    X509_STORE_CTX *x = peer ? X509_STORE_CTX_new() : NULL;
    struct lr_tls_peer *p = lr_tls_peer_index >= 0
                            ? SSL_get_ex_data(ssl, lr_tls_peer_index) : NULL;
    long v = peer ? X509_V_ERR_OUT_OF_MEM
                  : X509_V_ERR_APPLICATION_VERIFICATION;
    if (p)
        memset(p, 0, sizeof *p);
    /* As libssl's ssl_verify_cert_chain() does at a handshake: the chain
     * the peer sent as untrusted, the purpose of our side, then the
     * context's parameters over the defaults (its flags, CRL checks
     * included, and the peer names).  The callback records into 'p'
     * through the SSL, as at the handshake. */
    if (x && X509_STORE_CTX_init(x, SSL_CTX_get_cert_store(ctx), peer,
                                 SSL_get_peer_cert_chain(ssl))
        && X509_STORE_CTX_set_ex_data(x, SSL_get_ex_data_X509_STORE_CTX_idx(),
                                      ssl)) {
        X509_STORE_CTX_set_default(x, SSL_is_server(ssl) ? "ssl_client"
                                                         : "ssl_server");
        X509_VERIFY_PARAM_set1(X509_STORE_CTX_get0_param(x),
                               SSL_CTX_get0_param(ctx));
        X509_STORE_CTX_set_verify_cb(x, lr_tls_verify_cb);
        if (X509_verify_cert(x) == 1)
            v = X509_V_OK;
        else if ((v = X509_STORE_CTX_get_error(x)) == X509_V_OK)
            v = X509_V_ERR_UNSPECIFIED;   /* failed, no reason: refused */
    }
    X509_STORE_CTX_free(x);
    ERR_clear_error();
    return v;
}

const char *
lr_tls_verify_text(long v, const struct lr_tls_peer *p, const char *crl,
                   char *buf, size_t len)
{
    /* What the callback saw is about 'v' only when it saw the same. */
    bool seen = p && p->error == v;
    switch (v) {
    case X509_V_ERR_CERT_REVOKED:
        if (seen)
            snprintf(buf, len, "%srevoked by CRL '%s' (serial %s, %s)",
                     p->depth ? "the certificate of its CA is " : "",
                     crl ? crl : "?", p->serial, p->subject);
        else
            snprintf(buf, len, "revoked by CRL '%s' (it or its CA's)",
                     crl ? crl : "?");
        return buf;
    case X509_V_ERR_CRL_HAS_EXPIRED:
        snprintf(buf, len, "CRL '%s' is out of date (its next update is "
                 "past): every peer is refused until a fresh CRL is loaded "
                 "(fail closed)", crl ? crl : "?");
        return buf;
    case X509_V_ERR_CRL_NOT_YET_VALID:
        snprintf(buf, len, "CRL '%s' is not yet valid (its last update is "
                 "ahead of this host's clock): every peer is refused until "
                 "the clock is set right", crl ? crl : "?");
        return buf;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        snprintf(buf, len, "certificate %s is not yet valid (its notBefore "
                 "is ahead of this host's clock): refused until the clock is "
                 "set right", seen ? p->subject : "of its chain");
        return buf;
    case X509_V_ERR_UNABLE_TO_GET_CRL:
        snprintf(buf, len, "CRL '%s' holds no CRL of the issuer of %s: put "
                 "each CA of the chain in the CA file and its CRL in the "
                 "CRL file", crl ? crl : "?",
                 seen ? p->subject : "a certificate of its chain");
        return buf;
    default:
        snprintf(buf, len, "%s", X509_verify_cert_error_string(v));
        return buf;
    }
}

int
lr_tls_alert_revoked(const char *reason)
{
    return strstr(reason, "alert certificate revoked") != NULL;
}

const char *
lr_tls_own_serial(SSL_CTX *ctx, char *buf, size_t len)
{
    X509 *x = SSL_CTX_get0_certificate(ctx);
    return lr_tls_serial_hex(x ? X509_get0_serialNumber(x) : NULL, buf, len);
}
