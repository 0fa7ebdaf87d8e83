/* The plugin's C decoders (plugin/codec.c) on arbitrary payloads: the first
 * byte picks DECISIONS, HELLO_OK or ERROR. What DECISIONS accepts must hold
 * what the protocol promises (docs/protocol.md), and a refusal must say why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "protocol/los_protocol.h"
#include "snapshot.h"

static void check_decisions(const struct los_decisions* d) {
  if (d->wakeup != LOS_START_UNKNOWN && (d->wakeup < 0 || d->wakeup > LOS_TIME_MAX)) abort();
  for (uint32_t i = 0; i < d->count; ++i) {
    const struct los_decision* x = &d->items[i];
    if (x->kind > LOS_DECIDE_REQUEUE || x->expected > LOS_JOB_SUSPENDED || x->job > LOS_JOB_ID_MAX) abort();
    if (!x->partition) abort();
    for (uint32_t n = 0; n < x->node_count; ++n) {
      if (!x->nodes[n] || x->nodes[n][0] == '\0' || strlen(x->nodes[n]) > LOS_MAX_STRING) abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char err[256];
  if (size == 0) return 0;
  err[0] = '\0';
  const uint8_t* p = data + 1;
  size_t len = size - 1;
  switch (data[0] % 3) {
    case 0: {
      struct los_decisions d;
      memset(&d, 0, sizeof d);
      if (los_decode_decisions(p, len, &d, err, sizeof err) == 0) {
        check_decisions(&d);
      } else if (err[0] == '\0') {
        abort(); /* refused without a reason */
      }
      los_decisions_free(&d);
      break;
    }
    case 1:
      if (los_decode_hello_ok(p, len, err, sizeof err) != 0 && err[0] == '\0') abort();
      break;
    case 2:
      if (los_decode_error(p, len, err, sizeof err) != 0 && err[0] == '\0') abort();
      break;
  }
  return 0;
}
