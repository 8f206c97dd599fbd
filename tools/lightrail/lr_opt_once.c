/* lr_opt_once: see lr_opt_once.h. */
#include <getopt.h>
#include <stdio.h>

#include "tools/lightrail/lr_opt_once.h"

int
lr_opt_once(const char *who, const struct option *longopts, int c,
            const char *arg, struct lr_opt_once *once)
{
    int i = 0;
    while (longopts[i].name && (longopts[i].val != c || longopts[i].flag))
        i++;
    if (!longopts[i].name || longopts[i].has_arg == no_argument)
        return 0;
    if (i >= LR_OPT_ONCE_MAX) {
        fprintf(stderr, "%s: internal error: more than %d options\n", who,
                LR_OPT_ONCE_MAX);
        return 1;
    }
    if (once->given[i]) {
        fprintf(stderr, "%s: --%s given twice ('%s', then '%s'): give it "
                "once\n", who, longopts[i].name, once->given[i],
                arg ? arg : "");
        return 2;
    }
    once->given[i] = arg ? arg : "";
    return 0;
}
