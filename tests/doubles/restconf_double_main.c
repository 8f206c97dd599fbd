/*
 * restconf-double: the RESTCONF ROADM TEST DOUBLE (tests/doubles/
 * restconf_double.h) as a process, one per ROADM, for
 * tests/cli/sb_restconf.sh.
 *
 *     restconf-double CERT KEY PORTFILE [PORT]
 * serves HTTPS on 127.0.0.1:PORT (default 0: a free port) with the
 * certificate chain CERT and key KEY, writes the port to PORTFILE once
 * listening, and runs until SIGTERM or SIGINT.  PORT lets a test
 * restart a device where the controller expects it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/doubles/restconf_double.h"

int
main(int argc, char **argv)
{
    sigset_t set;
    int sig, port = 0;

    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: restconf-double CERT KEY PORTFILE [PORT]\n");
        return 2;
    }
    if (argc == 5 && ((port = atoi(argv[4])) < 1 || port > 65535)) {
        fprintf(stderr, "restconf-double: PORT: 1 to 65535, not '%s'\n",
                argv[4]);
        return 2;
    }
    /* Blocked before the server thread starts, so that it inherits it. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (rc_double_start(argv[1], argv[2], port))
        return 1;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[3]);
    FILE *f = fopen(tmp, "w");
    int bad = !f || fprintf(f, "%d\n", rcd.port) < 0;
    if ((f && fclose(f)) || bad || rename(tmp, argv[3])) {
        fprintf(stderr, "restconf-double: cannot write %s\n", argv[3]);
        rc_double_stop();
        return 1;
    }
    sigwait(&set, &sig);
    rc_double_stop();
    return 0;
}
