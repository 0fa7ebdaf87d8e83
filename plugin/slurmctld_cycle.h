/*
 * The cycle against slurmctld (needs its internal headers; built into
 * sched_los.so only): the snapshot under its read locks, and the callbacks
 * that apply decisions to its job records under its write locks. The logic
 * between the two is cycle.c's.
 */
#ifndef LOS_PLUGIN_SLURMCTLD_CYCLE_H
#define LOS_PLUGIN_SLURMCTLD_CYCLE_H

#include <stdint.h>

#include "cycle.h"
#include "options.h"

/* Whether a cycle is due (los_cycle_due on slurmctld's update stamps). */
int los_slurmctld_cycle_due(struct los_cycle* cy, int64_t next_forced_ms);

/* Snapshots slurmctld, then runs the cycle on it with slurmctld's callbacks. */
void los_slurmctld_cycle(struct los_cycle* cy, const struct los_options* o);

#endif /* LOS_PLUGIN_SLURMCTLD_CYCLE_H */
