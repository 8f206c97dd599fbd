/*
 * lr_listen: what lightraild tells the operator about a listener the
 * kernel refused, worded by what this host says of its ports.
 */
#ifndef LR_LISTEN_H
#define LR_LISTEN_H 1

#include <stddef.h>

/* Where Linux says its first unprivileged port (a port below it needs
 * CAP_NET_BIND_SERVICE; per network namespace, IPv6 included). */
#define LR_LISTEN_UNPRIV_PATH "/proc/sys/net/ipv4/ip_unprivileged_port_start"

/* The first unprivileged port the file at 'path' holds
 * (LR_LISTEN_UNPRIV_PATH), 0 to 65536; -1 when it cannot be read or
 * holds no such number (another kernel, /proc not mounted). */
int lr_listen_unpriv_start(const char *path);

/* What to do about a listener on 'port' (0: any) the kernel refused
 * with errno 'e', for the operator who reads the start-up error, into
 * buf[size]: the configuration's leaf to change in 'config_path', or
 * the command that finds what holds the port.  For EACCES, by
 * 'unpriv_start' (lr_listen_unpriv_start(), -1: not known): a port
 * below it wants the privilege; one at or above it was refused by
 * something else (a security module, the service manager), said so.
 * "" for an errno with no cure to offer. */
void lr_listen_hint(int e, const char *config_path, int port,
                    int unpriv_start, char *buf, size_t size);

#endif
