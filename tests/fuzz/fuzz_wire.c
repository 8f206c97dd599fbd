/*
 * libFuzzer target for the agent protocol's decoder (planner/
 * lr_cdynp_wire.c): any bytes must decode or be refused without a fault,
 * and whatever decodes must encode back to the very same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp_wire.h"

static struct lr_layer layers[LR_MODEL_MAX_LAYERS];
static struct lr_cdynp_summary summary;
static char tags[LR_WIRE_KEEP_MAX][LR_WIRE_NAME_MAX];
static uint8_t again[LR_WIRE_MAX_FRAME + 4];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lr_wire_msg m = {
        .layers = layers, .layers_cap = LR_MODEL_MAX_LAYERS,
        .summary = &summary, .tags = tags, .tags_cap = LR_WIRE_KEEP_MAX,
    };
    int err;
    size_t frame = lr_wire_frame_size(data, size, &err);
    (void) frame;
    if (lr_wire_decode(data, size, &m))
        return 0;
    size_t n = lr_wire_encode(&m, again, sizeof again);
    if (n != size || memcmp(again, data, size))
        abort();
    return 0;
}
