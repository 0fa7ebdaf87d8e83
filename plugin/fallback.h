/*
 * The schedulers the plugin runs itself while losd is down, slow or answers
 * garbage (los_fallback in SchedulerParameters).
 */
#ifndef LOS_PLUGIN_FALLBACK_H
#define LOS_PLUGIN_FALLBACK_H

#include "codec.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

enum los_fallback { LOS_FALLBACK_EASY = 0, LOS_FALLBACK_FIFO = 1, LOS_FALLBACK_NONE = 2 };

/* "easy", "fifo", "none" ("?" for anything else). */
const char* los_fallback_name(int fallback);

/* Appends start decisions for every partition of s under `fallback`:
 * fifo starts queue jobs in order while the first one fits; easy also
 * backfills later jobs that do not delay the first blocked job's
 * reservation (EASY backfilling on the time limits). Nodes are chosen among
 * the idle nodes no running job holds. With starts (may be NULL), appends
 * each partition's first blocked job with its reserved start (when the
 * running jobs' limits free enough nodes), what squeue --start shows while
 * the fallback decides. 0 on success, -1 out of memory. */
int los_fallback_decide(const struct los_snapshot* s, int fallback, struct los_decisions* out,
                        struct los_predictions* starts);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_FALLBACK_H */
