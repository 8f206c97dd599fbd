/* lr_listen: see lr_listen.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "controller/lr_listen.h"

int
lr_listen_unpriv_start(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[32], *end;

    if (!f)
        return -1;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    if (!got)
        return -1;
    long v = strtol(line, &end, 10);
    if (end == line || (*end && *end != '\n') || v < 0 || v > 65536)
        return -1;
    return (int) v;
}

/* The EACCES hint: the privilege a port below the host's first
 * unprivileged one wants, or, for a port the kernel does not hold
 * privileged, that the refusal came from elsewhere: raising the port
 * or granting CAP_NET_BIND_SERVICE would not cure it. */
static void
lr_listen_eacces_hint(const char *config_path, int port, int unpriv_start,
                      char *buf, size_t size)
{
    if (unpriv_start < 0)
        snprintf(buf, size, ": a privileged port (below 1024 unless "
                 "net.ipv4.ip_unprivileged_port_start says otherwise) "
                 "needs root or CAP_NET_BIND_SERVICE: set listen/port in "
                 "%s to an unprivileged one, or grant the capability",
                 config_path);
    else if (port > 0 && port < unpriv_start)
        snprintf(buf, size, ": a port below %d "
                 "(net.ipv4.ip_unprivileged_port_start) needs root or "
                 "CAP_NET_BIND_SERVICE: set listen/port in %s to %d or "
                 "above, or grant the capability", unpriv_start,
                 config_path, unpriv_start);
    else
        snprintf(buf, size, ": port %d is not privileged on this host "
                 "(net.ipv4.ip_unprivileged_port_start is %d), so "
                 "something else refused it: a security module (SELinux: "
                 "ausearch -m avc; AppArmor: the kernel log) or the "
                 "restrictions of lightraild's systemd unit; allow it "
                 "there, or set listen/port in %s to a port allowed",
                 port, unpriv_start, config_path);
}

void
lr_listen_hint(int e, const char *config_path, int port, int unpriv_start,
               char *buf, size_t size)
{
    if (e == EADDRINUSE)
        snprintf(buf, size, ": another program listens there (ss -ltnp "
                 "'sport = :%d' names it): stop it, or set listen/port in "
                 "%s to a free port (0: any, written to lightraild.port)",
                 port, config_path);
    else if (e == EACCES)
        lr_listen_eacces_hint(config_path, port, unpriv_start, buf, size);
    else if (e == EADDRNOTAVAIL)
        snprintf(buf, size, ": no interface of this host has that "
                 "address (ip -brief address lists them): set "
                 "listen/address in %s to one of them", config_path);
    else
        buf[0] = '\0';
}
