/*
 * One scheduling cycle, without slurmctld. Given the snapshot just taken it
 * decides by losd, or by the fallback while losd cannot answer; applies the
 * decisions in their order, each only if it still holds (the job exists, is
 * in the expected state and partition, may start), through the scheduler's
 * callbacks; logs what was skipped and why and reports it to losd; and keeps
 * what the next cycle needs (the fallback episode, losd's wakeup timer, the
 * update stamps the snapshot saw).
 *
 * slurmctld_cycle.c passes callbacks backed by slurmctld under its write
 * locks; plugin/tests pass a fake scheduler.
 */
#ifndef LOS_PLUGIN_CYCLE_H
#define LOS_PLUGIN_CYCLE_H

#include <stdint.h>
#include <time.h>

#include "conn.h"
#include "options.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

enum los_log_level { LOS_LOG_ERROR, LOS_LOG_INFO, LOS_LOG_DEBUG };

/* A pending task of a job array that has no job record of its own yet (the
 * array's meta record holds it): its id in snapshots and decisions is
 * (task id + 1) << 32 | the array's job id. Plain Slurm job ids fit in 32 bits. */
#define LOS_ARRAY_TASK_ID(array_job_id, task_id) ((((uint64_t)(task_id) + 1u) << 32) | (uint64_t)(array_job_id))
/* The Slurm job record behind an id (the array's meta record for a task id). */
#define LOS_SLURM_JOB_ID(id) ((uint32_t)((id)&0xffffffffu))
/* The array task an id names, or -1 for a plain job id. */
#define LOS_ARRAY_TASK_OF(id) ((id) >> 32 ? (int64_t)((id) >> 32) - 1 : (int64_t)-1)

/* A job in none of the states a decision may expect (completed, ...). */
#define LOS_JOB_STATE_OTHER 0xff

/* What the cycle checks about a job before acting on it (ops->find_job). */
struct los_job_view {
  void* handle;           /* the scheduler's record, handed back to the actions */
  uint8_t state;          /* enum los_job_state, or LOS_JOB_STATE_OTHER */
  const char* state_name; /* the scheduler's name of its state, for messages */
  const char* partition;  /* NULL: none */
  int any_partition;      /* pending in several partitions (-p a,b): the start action checks the one decided */
  uint32_t min_nodes;     /* nodes it asks for */
  int eligible;           /* pending and may start now: not held, no dependency, begin time reached */
};

/* Why a decision was not applied. */
struct los_outcome {
  char reason[256]; /* empty: it was applied */
  uint8_t report;   /* enum los_report_kind to send losd; 0: nothing */
};

/* The scheduler the decisions are applied to. */
struct los_cycle_ops {
  void* ctx;
  /* Around the applies of a cycle that has decisions (slurmctld: its write locks). */
  void (*lock)(void* ctx);
  void (*unlock)(void* ctx);
  /* 0 with *job filled when the job exists, -1 when it does not (an array
   * task id: when the task is no longer pending in its meta record). */
  int (*find_job)(void* ctx, uint64_t id, struct los_job_view* job);
  /* The actions, called only for decisions that passed the cycle's checks;
   * a refused one fills out (reason and report). */
  void (*start)(void* ctx, const struct los_job_view* job, const struct los_decision* d, struct los_outcome* out);
  void (*suspend)(void* ctx, const struct los_job_view* job, struct los_outcome* out);
  void (*resume)(void* ctx, const struct los_job_view* job, struct los_outcome* out);
  void (*requeue)(void* ctx, const struct los_job_view* job, struct los_outcome* out);
  /* Optional: losd's predicted starts for the pending jobs of snap (called
   * under lock/unlock, after the decisions of the same cycle were applied). */
  void (*predict)(void* ctx, const struct los_predictions* starts, const struct los_snapshot* snap);
  /* One line of the plugin's log. */
  void (*log)(void* ctx, enum los_log_level level, const char* line);
  /* Optional, asked under lock: nonzero once the scheduler is shutting down
   * (slurmctld: slurmctld_config.shutdown_time). Nothing is applied then, as
   * sched/backfill stops: a job started while slurmctld saves its state and
   * exits would be recorded as running with its launch never sent. */
  int (*shutting_down)(void* ctx);
};

/* The scheduler's update stamps (slurmctld: last_job/node/part_update). */
struct los_update_stamps {
  time_t job, node, part;
  /* jobs submitted + completed + cancelled + failed since slurmctld started
   * (its diag counters): a submission or an end in the very second of the
   * last snapshot leaves the whole-second stamps equal but moves this */
  uint64_t job_events;
};

/* A job Slurm refused to start: left out of the snapshots until `until`. */
struct los_refusal {
  uint32_t job; /* Slurm job id (an array's meta record for its tasks) */
  time_t until;
  int delay_s; /* the current back-off; doubles at each refusal up to 16 x los_retry_s */
};

/* A job the plugin requeued for a migration (docs/gang-live.md), until it
 * runs again: Slurm delays a requeued job's start by the credential lifetime
 * (batch_requeue_fini() sets its begin time), which the plugin skips for it. */
struct los_migration {
  uint32_t job; /* Slurm job id */
  /* 0: a suspended job resumed so that it can checkpoint: requeue it at
   * `at` (slurmd kills a suspended job at once, without SIGTERM);
   * 1: requeued at `at` (the launch credentials of that second are revoked:
   * restart later) */
  uint8_t requeued;
  time_t at;
};

/* A value the scheduler derives from one of its partitions (slurmctld: the
 * CPUs of its smallest node, which job sizes need), remembered while it
 * holds its locks, so that each decision does not derive it again from the
 * whole node table. The scheduler forgets them when it releases the locks. */
struct los_part_value {
  const void* part;
  uint32_t value;
};

/* State kept from one cycle to the next; owned by the scheduling thread. */
struct los_cycle {
  struct los_conn conn;
  uint64_t seq;              /* of the last snapshot */
  int in_fallback;           /* the previous cycle was decided by the fallback */
  uint32_t fallback_started; /* jobs the fallback started since losd last answered */
  time_t fallback_since;
  time_t wakeup;                 /* losd's timer (a time slice ends): cycle by then; 0: none */
  struct los_update_stamps seen; /* as of the last snapshot */
  time_t snapshot_second;        /* time() when the last snapshot was taken; 0: looked again */
  struct los_conn query;         /* to losd's query socket, for the predicted starts */
  struct los_refusal* refused;   /* jobs Slurm refused to start, backing off */
  uint32_t refused_count, refused_cap;
  uint32_t fallback_only_logged;  /* partitions the fallback alone schedules, as last logged */
  struct los_migration* migrated; /* jobs requeued for migration, not started again yet */
  uint32_t migrated_count, migrated_cap;
  struct los_part_value* part_values; /* see los_cycle_part_value() */
  uint32_t part_value_count, part_value_cap;
};

/* 1 and *value: the value remembered for part; 0 when none is. */
int los_cycle_part_value(const struct los_cycle* cy, const void* part, uint32_t* value);
/* Remembers part's value; -1 out of memory (it is then derived again next time). */
int los_cycle_remember_part_value(struct los_cycle* cy, const void* part, uint32_t value);
/* Forgets every remembered value (the scheduler's records may change now). */
void los_cycle_forget_part_values(struct los_cycle* cy);

/* The migration of job (a Slurm job id) in progress, or NULL. */
const struct los_migration* los_cycle_migration(const struct los_cycle* cy, uint32_t job);
/* Records job's migration: requeued at `at` (requeued 1), or to be requeued
 * at `at` (0); -1 out of memory. */
int los_cycle_migrated(struct los_cycle* cy, uint32_t job, int requeued, time_t at);
/* Forgets job's migration (it runs again, or is gone). */
void los_cycle_migration_done(struct los_cycle* cy, uint32_t job);

/* Drops from snap's queues the jobs backing off after a refusal (time now). */
void los_cycle_withhold_refused(struct los_cycle* cy, struct los_snapshot* snap, time_t now);
/* Records that Slurm refused to start job (a Slurm job id) at now; returns the back-off in seconds. */
int los_cycle_refused(struct los_cycle* cy, uint32_t job, time_t now, int retry_s);

void los_cycle_init(struct los_cycle* cy);
void los_cycle_free(struct los_cycle* cy);

/* Records the stamps a snapshot taken at now_s saw. */
void los_cycle_saw(struct los_cycle* cy, struct los_update_stamps stamps, time_t now_s);

/* Whether a cycle is due: the stamps moved since the last snapshot (or
 * could have within its second), the interval (next_forced_ms) passed, a
 * reconnect to losd is due, or losd's wakeup time came. */
int los_cycle_due(struct los_cycle* cy, struct los_update_stamps stamps, int64_t now_ms, int64_t next_forced_ms,
                  time_t now_s);

/* A snapshot the scheduler took for a cycle. */
struct los_cycle_input {
  struct los_snapshot* snap; /* numbered and flagged by the cycle; still the caller's to free */
  const char* cluster;       /* for the HELLO of a new connection */
  const char* slurm_version;
  int64_t started_us;  /* los_monotonic_us() when the cycle began, before the snapshot */
  int64_t snapshot_us; /* how long taking the snapshot took */
  /* Partitions losd cannot be sent (a Slurm partition whose name contains
   * '@', which would read as a reservation view): the fallback decides them
   * every cycle, whoever decides snap. NULL or empty: none. The caller's. */
  struct los_snapshot* local;
};

/* The fallback that schedules the partitions losd cannot be sent
 * (los_cycle_input.local): los_fallback, or easy under los_fallback=none (no
 * one else would ever start their jobs). */
int los_cycle_local_fallback(const struct los_options* o);

/* Decides, applies, logs and reports one cycle (see above). */
void los_cycle_run(struct los_cycle* cy, const struct los_options* o, const struct los_cycle_input* in,
                   const struct los_cycle_ops* ops);

int64_t los_monotonic_us(void);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_CYCLE_H */
