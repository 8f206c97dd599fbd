/*
 * lr_tls_selfsigned: a throw-away TLS identity for the demo and tests —
 * an EC P-256 key and a self-signed certificate for localhost and
 * 127.0.0.1, valid for a day.  Clients pin the certificate as their CA.
 */
#ifndef LR_TLS_SELFSIGNED_H
#define LR_TLS_SELFSIGNED_H 1

#include <stddef.h>

/* Writes PEM files; returns 0 or an errno value with the reason in err. */
int lr_tls_selfsigned(const char *cert_path, const char *key_path,
                      char *err, size_t errlen);

#endif
