/*
 * mno-double: the Mininet-Optical REST TEST DOUBLE (tests/unit/
 * mno_double.h) as a process, for tests/cli/mnoptical.sh.
 *
 *     mno-double PORTFILE GOSNR_DB
 * serves on 127.0.0.1 (a free port, written to PORTFILE once listening)
 * with the monitor's gOSNR set to GOSNR_DB, until SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/mno_double.h"

int
main(int argc, char **argv)
{
    sigset_t set;
    int sig;

    if (argc != 3) {
        fprintf(stderr, "usage: mno-double PORTFILE GOSNR_DB\n");
        return 2;
    }
    /* Blocked before the server thread starts, so that it inherits it. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    dbl.gosnr = strtod(argv[2], NULL);
    if (mno_double_start()) {
        fprintf(stderr, "mno-double: cannot listen on 127.0.0.1\n");
        return 1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", dbl.port) < 0 || fclose(f)
        || rename(tmp, argv[1])) {
        fprintf(stderr, "mno-double: cannot write %s\n", argv[1]);
        mno_double_stop();
        return 1;
    }
    sigwait(&set, &sig);
    return mno_double_stop();
}
