/* See cycle.h. Plain C; no Slurm headers. */
#include "cycle.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fallback.h"
#include "protocol/los_protocol.h"

int64_t los_monotonic_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void los_cycle_init(struct los_cycle* cy) {
  memset(cy, 0, sizeof *cy);
  los_conn_init(&cy->conn);
  los_conn_init(&cy->query);
}

void los_cycle_free(struct los_cycle* cy) {
  los_conn_free(&cy->conn);
  los_conn_free(&cy->query);
  free(cy->refused);
  cy->refused = NULL;
  cy->refused_count = cy->refused_cap = 0;
  free(cy->migrated);
  cy->migrated = NULL;
  cy->migrated_count = cy->migrated_cap = 0;
  free(cy->part_values);
  cy->part_values = NULL;
  cy->part_value_count = cy->part_value_cap = 0;
}

int los_cycle_part_value(const struct los_cycle* cy, const void* part, uint32_t* value) {
  for (uint32_t i = 0; i < cy->part_value_count; ++i)
    if (cy->part_values[i].part == part) {
      *value = cy->part_values[i].value;
      return 1;
    }
  return 0;
}

int los_cycle_remember_part_value(struct los_cycle* cy, const void* part, uint32_t value) {
  for (uint32_t i = 0; i < cy->part_value_count; ++i)
    if (cy->part_values[i].part == part) {
      cy->part_values[i].value = value;
      return 0;
    }
  if (cy->part_value_count == cy->part_value_cap) {
    const uint32_t cap = cy->part_value_cap ? 2 * cy->part_value_cap : 8;
    struct los_part_value* grown = realloc(cy->part_values, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    cy->part_values = grown;
    cy->part_value_cap = cap;
  }
  cy->part_values[cy->part_value_count].part = part;
  cy->part_values[cy->part_value_count].value = value;
  ++cy->part_value_count;
  return 0;
}

void los_cycle_forget_part_values(struct los_cycle* cy) { cy->part_value_count = 0; }

const struct los_migration* los_cycle_migration(const struct los_cycle* cy, uint32_t job) {
  for (uint32_t i = 0; cy && i < cy->migrated_count; ++i)
    if (cy->migrated[i].job == job) return &cy->migrated[i];
  return NULL;
}

int los_cycle_migrated(struct los_cycle* cy, uint32_t job, int requeued, time_t at) {
  los_cycle_migration_done(cy, job);
  if (cy->migrated_count == cy->migrated_cap) {
    uint32_t cap = cy->migrated_cap ? cy->migrated_cap * 2 : 8;
    struct los_migration* p = realloc(cy->migrated, cap * sizeof *p);
    if (!p) return -1;
    cy->migrated = p;
    cy->migrated_cap = cap;
  }
  cy->migrated[cy->migrated_count].job = job;
  cy->migrated[cy->migrated_count].requeued = requeued ? 1 : 0;
  cy->migrated[cy->migrated_count].at = at;
  ++cy->migrated_count;
  return 0;
}

void los_cycle_migration_done(struct los_cycle* cy, uint32_t job) {
  for (uint32_t i = 0; i < cy->migrated_count; ++i)
    if (cy->migrated[i].job == job) {
      cy->migrated[i] = cy->migrated[--cy->migrated_count];
      return;
    }
}

static struct los_refusal* find_refusal(struct los_cycle* cy, uint32_t job) {
  for (uint32_t i = 0; i < cy->refused_count; ++i)
    if (cy->refused[i].job == job) return &cy->refused[i];
  return NULL;
}

int los_cycle_refused(struct los_cycle* cy, uint32_t job, time_t now, int retry_s) {
  struct los_refusal* r = find_refusal(cy, job);
  if (!r) {
    if (cy->refused_count == cy->refused_cap) {
      uint32_t cap = cy->refused_cap ? cy->refused_cap * 2 : 16;
      struct los_refusal* p = realloc(cy->refused, cap * sizeof *p);
      if (!p) return 0; /* out of memory: retried next cycle, as before */
      cy->refused = p;
      cy->refused_cap = cap;
    }
    r = &cy->refused[cy->refused_count++];
    r->job = job;
    r->delay_s = retry_s;
  } else {
    r->delay_s = r->delay_s * 2 > 16 * retry_s ? 16 * retry_s : r->delay_s * 2;
  }
  r->until = now + r->delay_s;
  return r->delay_s;
}

void los_cycle_withhold_refused(struct los_cycle* cy, struct los_snapshot* snap, time_t now) {
  /* forget refusals long over (a job refused again starts from the short delay) */
  uint32_t kept = 0;
  for (uint32_t i = 0; i < cy->refused_count; ++i)
    if (cy->refused[i].until + 2 * (time_t)cy->refused[i].delay_s > now) cy->refused[kept++] = cy->refused[i];
  cy->refused_count = kept;
  if (!kept) return;
  for (uint32_t p = 0; p < snap->partition_count; ++p) {
    struct los_partition* part = &snap->partitions[p];
    uint32_t n = 0;
    for (uint32_t q = 0; q < part->pending_count; ++q) {
      const struct los_refusal* r = find_refusal(cy, LOS_SLURM_JOB_ID(part->pending[q].id));
      if (r && r->until > now) continue;
      part->pending[n++] = part->pending[q];
    }
    part->pending_count = n;
  }
}

void los_cycle_saw(struct los_cycle* cy, struct los_update_stamps stamps, time_t now_s) {
  cy->seen = stamps;
  cy->snapshot_second = now_s;
}

static int changed_since_last_cycle(struct los_cycle* cy, struct los_update_stamps stamps, time_t now_s) {
  if (stamps.job != cy->seen.job || stamps.node != cy->seen.node || stamps.part != cy->seen.part ||
      stamps.job_events != cy->seen.job_events)
    return 1;
  /* The stamps have 1-second resolution: a change later in the second the
   * snapshot saw (a node finishing its epilog right after the job's
   * completion) leaves them equal. Once that second is over, look again. */
  time_t s = cy->snapshot_second;
  if (now_s > s && (cy->seen.job == s || cy->seen.node == s || cy->seen.part == s)) {
    cy->snapshot_second = 0; /* once */
    return 1;
  }
  return 0;
}

int los_cycle_due(struct los_cycle* cy, struct los_update_stamps stamps, int64_t now_ms, int64_t next_forced_ms,
                  time_t now_s) {
  if (changed_since_last_cycle(cy, stamps, now_s)) return 1;
  if (now_ms >= next_forced_ms) return 1;
  /* A reconnect is due: try it now rather than at the next change, so a
   * restarted losd takes over within the backoff. */
  if (cy->conn.fd < 0 && now_ms >= cy->conn.next_attempt_ms) return 1;
  return cy->wakeup != 0 && now_s >= cy->wakeup;
}

static void log_line(const struct los_cycle_ops* ops, enum los_log_level level, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_line(const struct los_cycle_ops* ops, enum los_log_level level, const char* fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  ops->log(ops->ctx, level, line);
}

static void refuse(struct los_outcome* out, uint8_t report, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(struct los_outcome* out, uint8_t report, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->reason, sizeof out->reason, fmt, ap);
  va_end(ap);
  out->report = report;
}

static const char* job_state_name(uint8_t state) {
  return state == LOS_JOB_PENDING ? "pending" : state == LOS_JOB_RUNNING ? "running" : "suspended";
}

static const char* decision_name(uint8_t kind) {
  return kind == LOS_DECIDE_START     ? "start"
         : kind == LOS_DECIDE_SUSPEND ? "suspend"
         : kind == LOS_DECIDE_RESUME  ? "resume"
                                      : "requeue";
}

/* Applies d if it still holds; call between ops->lock and ops->unlock. */
static void apply_one(const struct los_cycle* cy, const struct los_cycle_ops* ops, const struct los_decision* d,
                      struct los_outcome* out) {
  out->reason[0] = '\0';
  out->report = 0;
  if (LOS_SLURM_JOB_ID(d->job) == 0) {
    refuse(out, LOS_REPORT_STALE_DECISION, "job id %" PRIu64 " is not a Slurm job id", d->job);
    return;
  }
  /* A job requeued for migration is in flight until it starts again: losd
   * repeats the migration (or suspends it) while Slurm completes it; nothing
   * to do (docs/gang-live.md). */
  if (d->kind != LOS_DECIDE_START && los_cycle_migration(cy, LOS_SLURM_JOB_ID(d->job))) return;
  struct los_job_view job;
  memset(&job, 0, sizeof job);
  if (ops->find_job(ops->ctx, d->job, &job)) {
    refuse(out, LOS_REPORT_STALE_DECISION, "the job no longer exists");
    return;
  }
  /* the expected state is what keeps a job from starting twice */
  if (job.state != d->expected) {
    refuse(out, LOS_REPORT_STALE_DECISION, "the job is %s, the decision expected it %s", job.state_name,
           job_state_name(d->expected));
    return;
  }
  if (!job.any_partition && (!job.partition || strcmp(job.partition, d->partition))) {
    refuse(out, LOS_REPORT_STALE_DECISION, "the job is in partition %s, not %s",
           job.partition ? job.partition : "(none)", d->partition);
    return;
  }
  switch (d->kind) {
    case LOS_DECIDE_START:
      if (d->expected != LOS_JOB_PENDING || !job.eligible) {
        refuse(out, LOS_REPORT_STALE_DECISION, "the job is not eligible to start (held, dependency or begin time)");
        return;
      }
      if (d->node_count && d->node_count != job.min_nodes) {
        refuse(out, LOS_REPORT_STALE_DECISION, "%u nodes chosen but the job asks for %u", d->node_count, job.min_nodes);
        return;
      }
      ops->start(ops->ctx, &job, d, out);
      return;
    case LOS_DECIDE_SUSPEND:
      ops->suspend(ops->ctx, &job, out);
      return;
    case LOS_DECIDE_RESUME:
      ops->resume(ops->ctx, &job, out);
      return;
    case LOS_DECIDE_REQUEUE:
      ops->requeue(ops->ctx, &job, out);
      return;
  }
  refuse(out, 0, "unknown decision kind %u", d->kind);
}

/* Fills dec for in->snap: by losd when it answers, otherwise by the
 * fallback (its predicted starts into fallback_starts). 1: losd decided; 0:
 * the fallback did; -1: the fallback ran out of memory (logged; the cycle is
 * skipped). */
static int decide(struct los_cycle* cy, const struct los_options* o, const struct los_cycle_input* in,
                  struct los_decisions* dec, struct los_predictions* fallback_starts, const struct los_cycle_ops* ops) {
  char err[512] = "";
  int by_losd = 0;
  int c = los_conn_ensure(&cy->conn, o, in->cluster, in->slurm_version, err, sizeof err);
  if (c == 0) {
    if (los_conn_exchange(&cy->conn, o, in->snap, dec, err, sizeof err) == 0) by_losd = 1;
  }
  cy->wakeup = by_losd && dec->wakeup >= 0 ? (time_t)dec->wakeup : 0;
  if (by_losd) {
    if (cy->in_fallback) {
      char detail[160];
      log_line(ops, LOS_LOG_INFO,
               "sched/los: losd at %s answers again: it decides from now on (the %s fallback started %u jobs "
               "meanwhile)",
               o->socket_path, los_fallback_name(o->fallback), cy->fallback_started);
      snprintf(detail, sizeof detail, "the %s fallback scheduled for %ld s and started %u jobs",
               los_fallback_name(o->fallback), (long)(time(NULL) - cy->fallback_since), cy->fallback_started);
      los_conn_report(&cy->conn, o, LOS_REPORT_FALLBACK, "", 0, detail);
      cy->in_fallback = 0;
    }
    return 1;
  }
  if (!cy->in_fallback) {
    log_line(ops, LOS_LOG_ERROR,
             "sched/los: losd at %s unusable (%s): scheduling by the '%s' fallback until it answers again",
             o->socket_path, c == 1 ? "waiting to reconnect" : err, los_fallback_name(o->fallback));
    cy->fallback_started = 0;
    cy->fallback_since = time(NULL);
  } else if (c == -1) {
    log_line(ops, LOS_LOG_DEBUG, "sched/los: reconnect to losd failed: %s (next try in %d ms)", err,
             cy->conn.backoff_ms);
  }
  cy->in_fallback = 1;
  los_decisions_free(dec);
  if (los_fallback_decide(in->snap, o->fallback, dec, fallback_starts)) {
    log_line(ops, LOS_LOG_ERROR, "sched/los: out of memory in the fallback; cycle skipped");
    los_decisions_free(dec);
    return -1;
  }
  return 0;
}

int los_cycle_local_fallback(const struct los_options* o) {
  return o->fallback == LOS_FALLBACK_NONE ? LOS_FALLBACK_EASY : o->fallback;
}

/* Hands predicted starts for the queues of snap to the scheduler (under its lock). */
static void hand_predictions(const struct los_cycle_ops* ops, const struct los_predictions* starts,
                             const struct los_snapshot* snap) {
  if (!ops->predict) return;
  ops->lock(ops->ctx);
  ops->predict(ops->ctx, starts, snap);
  ops->unlock(ops->ctx);
}

/* Asks losd's query socket for its predicted starts (the forecast of the
 * snapshot just sent) and hands them to the scheduler. A failure costs only
 * the predictions of this cycle (logged at debug level). */
static void predict(struct los_cycle* cy, const struct los_options* o, const struct los_cycle_input* in,
                    const struct los_cycle_ops* ops) {
  if (!ops->predict || !o->query_socket[0]) return;
  struct los_options qo = *o;
  char err[512] = "";
  struct los_predictions starts = {0, NULL};
  snprintf(qo.socket_path, sizeof qo.socket_path, "%s", o->query_socket);
  int c = los_conn_ensure(&cy->query, &qo, in->cluster, in->slurm_version, err, sizeof err);
  if (c == 1) return;
  if (c < 0 || los_conn_query_starts(&cy->query, &qo, &starts, err, sizeof err)) {
    log_line(ops, LOS_LOG_DEBUG, "sched/los: no predicted starts from losd this cycle: %s", err);
    return;
  }
  hand_predictions(ops, &starts, in->snap);
  los_predictions_free(&starts);
}

static void count_jobs(const struct los_snapshot* s, uint32_t* pending, uint32_t* running) {
  for (uint32_t i = 0; s && i < s->partition_count; ++i) {
    *pending += s->partitions[i].pending_count;
    *running += s->partitions[i].running_count;
  }
}

void los_cycle_run(struct los_cycle* cy, const struct los_options* o, const struct los_cycle_input* in,
                   const struct los_cycle_ops* ops) {
  struct los_snapshot* snap = in->snap;
  struct los_snapshot* local = in->local && in->local->partition_count ? in->local : NULL;
  struct los_decisions dec;
  struct los_predictions fallback_starts = {0, NULL}, local_starts = {0, NULL};
  uint32_t pending = 0, running = 0;
  memset(&dec, 0, sizeof dec);
  los_cycle_withhold_refused(cy, snap, (time_t)snap->now);
  if (cy->in_fallback) snap->flags |= LOS_SNAPSHOT_FALLBACK; /* losd's los_plugin_fallback gauge */
  snap->seq = ++cy->seq;
  if (local) {
    los_cycle_withhold_refused(cy, local, (time_t)local->now);
    local->seq = snap->seq;
  }
  count_jobs(snap, &pending, &running);
  count_jobs(local, &pending, &running);

  /* decide: losd, or the fallback; the scheduler is not locked here */
  const int64_t decide_start = los_monotonic_us();
  const int decided = decide(cy, o, in, &dec, &fallback_starts, ops);
  if (decided < 0) {
    los_predictions_free(&fallback_starts);
    return;
  }
  const int by_losd = decided == 1;
  /* the decisions before this index are losd's (when it decided) */
  const uint32_t losd_count = by_losd ? dec.count : 0;
  /* partitions losd cannot be sent (see los_cycle_input.local): always the fallback's */
  if (local && los_fallback_decide(local, los_cycle_local_fallback(o), &dec, &local_starts)) {
    log_line(ops, LOS_LOG_ERROR, "sched/los: out of memory in the fallback; cycle skipped");
    los_decisions_free(&dec);
    los_predictions_free(&fallback_starts);
    los_predictions_free(&local_starts);
    return;
  }
  dec.seq = snap->seq;
  const int64_t decide_us = los_monotonic_us() - decide_start;

  /* apply what still holds, in the decisions' order */
  struct los_outcome* outcomes = dec.count ? calloc(dec.count, sizeof *outcomes) : NULL;
  if (dec.count && !outcomes) {
    log_line(ops, LOS_LOG_ERROR, "sched/los: out of memory applying the decisions; cycle skipped");
    los_decisions_free(&dec);
    return;
  }
  int started = 0, skipped = 0;
  const int64_t apply_start = los_monotonic_us();
  if (dec.count) {
    ops->lock(ops->ctx);
    const int shutting_down = ops->shutting_down && ops->shutting_down(ops->ctx);
    for (uint32_t i = 0; i < dec.count; ++i) {
      if (shutting_down)
        refuse(&outcomes[i], 0, "the scheduler is shutting down");
      else
        apply_one(cy, ops, &dec.items[i], &outcomes[i]);
      if (outcomes[i].reason[0])
        ++skipped;
      else if (dec.items[i].kind == LOS_DECIDE_START)
        ++started;
    }
    ops->unlock(ops->ctx);
  }
  const int64_t apply_us = los_monotonic_us() - apply_start;
  if (!by_losd) cy->fallback_started += (uint32_t)started;
  /* A start Slurm refused (limits, licenses, required nodes, reservation) is
   * not offered again for a while: the jobs behind it are planned without it. */
  for (uint32_t i = 0; i < dec.count; ++i) {
    if (dec.items[i].kind != LOS_DECIDE_START || outcomes[i].report != LOS_REPORT_START_FAILED) continue;
    const int delay = los_cycle_refused(cy, LOS_SLURM_JOB_ID(dec.items[i].job), (time_t)snap->now, o->retry_s);
    size_t len = strlen(outcomes[i].reason);
    snprintf(outcomes[i].reason + len, sizeof outcomes[i].reason - len, "; left out of the queue for %d s", delay);
  }

  /* logs and reports, with the scheduler unlocked; the fallback's own
   * decisions are not losd's business */
  for (uint32_t i = 0; i < dec.count; ++i) {
    if (!outcomes[i].reason[0]) continue;
    log_line(ops, LOS_LOG_INFO, "sched/los: skipped %s of JobId=%" PRIu64 " (%s decision, seq %" PRIu64 "): %s",
             decision_name(dec.items[i].kind), dec.items[i].job, i < losd_count ? "losd" : "fallback", dec.seq,
             outcomes[i].reason);
    if (outcomes[i].report && i < losd_count)
      los_conn_report(&cy->conn, o, outcomes[i].report, dec.items[i].partition, dec.items[i].job, outcomes[i].reason);
    /* a migration not made: losd's policy has the job on its new nodes, so
     * the next snapshot makes it rebuild from where the job really is */
    if (i < losd_count && dec.items[i].kind == LOS_DECIDE_REQUEUE) cy->conn.need_resync = 1;
  }
  free(outcomes);
  /* predicted starts and reasons: losd's forecast, or the fallback's
   * reservations (none under los_fallback=none: nothing starts, Slurm's
   * reasons stay) */
  if (by_losd)
    predict(cy, o, in, ops);
  else if (o->fallback != LOS_FALLBACK_NONE)
    hand_predictions(ops, &fallback_starts, snap);
  if (local) hand_predictions(ops, &local_starts, local);
  los_predictions_free(&fallback_starts);
  los_predictions_free(&local_starts);
  log_line(ops, LOS_LOG_INFO,
           "sched/los: cycle seq=%" PRIu64
           " by=%s pending=%u running=%u decisions=%u started=%d skipped=%d "
           "snapshot_us=%" PRId64 " decide_us=%" PRId64 " apply_us=%" PRId64 " total_us=%" PRId64,
           snap->seq, by_losd ? "losd" : los_fallback_name(o->fallback), pending, running, dec.count, started, skipped,
           in->snapshot_us, decide_us, apply_us, los_monotonic_us() - in->started_us);
  los_decisions_free(&dec);
}
