/*
 * What the tests of each ROADM's health share: the status of one ROADM
 * by name (lr_ctl_device_status() is by index).
 */
#ifndef LR_TEST_DEV_H
#define LR_TEST_DEV_H 1

#include <string.h>

#include <CUnit/CUnit.h>

#include "controller/lr_ctl.h"

/* The status of ROADM 'name' in 'c'; the test stops when there is
 * none. */
static inline struct lr_ctl_device_status
lr_test_device_named(struct lr_ctl *c, const char *name)
{
    struct lr_ctl_device_status st = { 0 };
    int i = 0;
    while (!lr_ctl_device_status(c, i, &st) && strcmp(st.name, name))
        i++;
    CU_ASSERT_EQUAL_FATAL(i < lr_ctl_devices(c), true);
    return st;
}

#endif
