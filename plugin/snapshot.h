/*
 * The plugin's two containers: the snapshot of partitions, nodes and jobs it
 * sends losd, and the decisions it gets back (or the fallback makes). Plain
 * C, no Slurm headers: slurmctld_cycle.c fills a snapshot under slurmctld's
 * read locks, codec.c puts both on the wire (common/protocol/los_protocol.h
 * gives the meaning of the enum fields).
 */
#ifndef LOS_PLUGIN_SNAPSHOT_H
#define LOS_PLUGIN_SNAPSHOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- snapshot --------------------------------------------------------- */

struct los_node {
  char* name;
  uint8_t state; /* enum los_node_state */
};

struct los_running {
  uint64_t id;
  uint32_t user;
  int64_t submit;
  int64_t start;
  int64_t limit; /* seconds */
  uint32_t size;
  uint8_t suspended;
  uint8_t migratable; /* opted in to migration (docs/gang-live.md): LOS may requeue it and restart it elsewhere */
  uint32_t node_count;
  uint32_t* nodes; /* indices into the partition's nodes */
};

struct los_pending {
  uint64_t id;
  uint32_t user;
  int64_t submit;
  uint32_t size;
  int64_t limit; /* seconds */
  uint32_t priority;
};

struct los_partition {
  char* name;
  /* How many jobs sched/los may hold on one node at once, running or
   * suspended (time sharing): N of OverSubscribe=FORCE:N (N >= 2) when
   * slurm.conf's PreemptMode has no GANG; otherwise 1. >= 1. */
  uint16_t time_slots;
  uint32_t node_count, node_cap;
  struct los_node* nodes;
  uint32_t running_count, running_cap;
  struct los_running* running;
  uint32_t pending_count, pending_cap;
  struct los_pending* pending; /* in priority order once los_partition_sort_queue ran */
};

struct los_snapshot {
  uint64_t seq;
  int64_t now;
  uint8_t flags; /* LOS_SNAPSHOT_RESYNC, _FALLBACK, _PRIVATE_JOBS, _PRIVATE_USERS */
  uint32_t partition_count, partition_cap;
  struct los_partition* partitions;
};

/* Builders: return NULL / -1 when memory runs out (the caller gives up the cycle). */
struct los_partition* los_snapshot_add_partition(struct los_snapshot* s, const char* name);
int los_partition_add_node(struct los_partition* p, const char* name, uint8_t state);
struct los_running* los_partition_add_running(struct los_partition* p, uint32_t node_count);
struct los_pending* los_partition_add_pending(struct los_partition* p);
/* Sorts the queue: priority descending, then submit time, then job id. */
void los_partition_sort_queue(struct los_partition* p);
void los_snapshot_free(struct los_snapshot* s);

/* ---- decisions -------------------------------------------------------- */

struct los_decision {
  uint8_t kind;     /* enum los_decision_kind */
  uint8_t expected; /* enum los_job_state */
  char* partition;
  uint64_t job;
  uint32_t node_count;
  char** nodes; /* empty: the plugin lets Slurm pick */
};

struct los_decisions {
  uint64_t seq;
  int64_t wakeup; /* send a snapshot no later than this time (epoch s); -1: no timer */
  uint32_t count, cap;
  struct los_decision* items;
};

struct los_decision* los_decisions_add(struct los_decisions* d, uint8_t kind, uint8_t expected, const char* partition,
                                       uint64_t job, uint32_t node_count);
void los_decisions_free(struct los_decisions* d);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_SNAPSHOT_H */
