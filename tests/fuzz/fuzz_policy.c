/*
 * libFuzzer target for the policy file reader (lr_policy_parse, and the
 * agent decoder lr_ppo_decode under it): any bytes must either load or
 * fail with one line, never crash, leak, trip UBSan or allocate more
 * than the input can justify.
 *
 * A policy file carries two FNV-1a 64 checksums (lr_policy_file.h): the
 * agent's, just before the file's own, and the file's, its last 8 bytes.
 * Mutated bytes would almost never get past them, so the target first
 * writes both as the writer would: the last 8 bytes of the input become
 * the file's checksum, and the 8 before them the agent's (over the bytes
 * after the header's blank line).  What the fuzzer explores is then the
 * header's keys and the agent's sizes and weights.  The seeds in
 * tests/fuzz/corpus/policy are real files of `lightrail train` (README
 * there).
 *
 * A file that loads must survive a round trip: the agent encoded again
 * is the file's agent, byte for byte.  A difference aborts, so that
 * libFuzzer keeps the input.
 *
 * Build and run with `make fuzz` (tests/yang.am).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bytes.h"
#include "tools/lightrail/lr_policy_file.h"

#define LR_FUZZ_NAME "fuzz_policy"
#include "tests/fuzz/lr_fuzz.h"

/* Both checksums of file[n] set as lr_policy_save sets them. */
static void
seal(uint8_t *file, size_t n)
{
    if (n < 16)
        return;
    const uint8_t *end = NULL;
    for (size_t i = 1; i + 1 < n - 8; i++)
        if (file[i] == '\n' && file[i + 1] == '\n') {
            end = file + i + 2;
            break;
        }
    if (end && (size_t) (file + n - 8 - end) >= 8) {
        size_t agent = (size_t) (file + n - 8 - end);
        uint8_t *sum = file + n - 16;
        lr_put64(sum, lr_fnv1a64(end, agent - 8));
    }
    lr_put64(file + n - 8, lr_fnv1a64(file, n - 8));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file = malloc(size ? size : 1);
    check(file != NULL, "out of memory");
    memcpy(file, data, size);
    seal(file, size);

    struct lr_policy_meta m;
    struct lr_ppo *agent = (struct lr_ppo *) &agent;
    char err[512] = "";
    int rc = lr_policy_parse(file, size, "input", &m, &agent, err,
                             sizeof err);
    if (rc) {
        check(agent == NULL, "failed, yet returned an agent");
        check(err[0] != '\0', "failed without a message");
        check(strchr(err, '\n') == NULL, "a message of more than one line");
        free(file);
        return 0;
    }
    check(agent != NULL, "loaded, yet no agent");
    check(agent->cfg.n_obs == m.n_obs && agent->cfg.n_act == m.n_act,
          "the agent's sizes are not its header's");
    /* The agent is the file's last bytes before its checksum. */
    size_t len = lr_ppo_encoded_size(agent);
    check(len + 8 <= size, "an agent larger than its file");
    uint8_t *again = malloc(len);
    check(again != NULL, "out of memory");
    check(lr_ppo_encode(agent, again, len) == len, "encode failed");
    check(memcmp(again, file + size - 8 - len, len) == 0,
          "the agent encoded again differs from the file's");
    free(again);
    lr_ppo_free(agent);
    free(file);
    return 0;
}
