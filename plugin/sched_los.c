/*
 * sched/los: a Slurm 22.05 scheduler plugin that hands every scheduling
 * decision to losd (docs/plugin.md).
 *
 * One thread runs cycles. A cycle starts every los_interval seconds, and
 * within los_poll_ms of any change to jobs, nodes or partitions (a
 * submission, a completion, a node drained). Each cycle:
 *   1. snapshots partitions, nodes and jobs under slurmctld's READ locks;
 *   2. with no slurmctld lock held, sends the snapshot to losd and waits at
 *      most los_timeout_ms for its decisions; when losd is down, slow or
 *      answers garbage the configured fallback (easy, fifo, none) decides
 *      instead, and the connection is retried with a doubling backoff;
 *   3. takes the WRITE locks and applies each decision only if it still
 *      holds: the job is still in the expected state (so no job ever starts
 *      twice), the chosen nodes are still in its partition, up, idle and
 *      not completing; what is skipped is logged with the reason (and
 *      reported to losd).
 * All policy lives in losd; the fallback is the only scheduling done here.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/srun_comm.h"

#include "los_core.h"
#include "protocol/los_protocol.h"

const char plugin_name[] = "LOS scheduler plugin (decisions by losd)";
const char plugin_type[] = "sched/los";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The plugin's one state: owned by the scheduling thread except where noted. */
static struct {
  pthread_t thread;
  int thread_running;
  pthread_mutex_t mutex; /* guards stop, reconfig, options (for reconfig) */
  pthread_cond_t wake;
  int stop;
  int reconfig;
  struct los_options options;
  struct los_conn conn;
  uint64_t seq;
  int in_fallback; /* the previous cycle was decided by the fallback */
  uint32_t fallback_started; /* jobs the fallback started since losd last answered */
  time_t fallback_since;
  time_t seen_job_update, seen_node_update, seen_part_update;
  time_t snapshot_second; /* time() when the last snapshot was taken */
  time_t wakeup;          /* losd's timer (a time slice ends): cycle by then; 0: none */
} los = {.mutex = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static const char* params_string(void) { return slurm_conf.sched_params ? slurm_conf.sched_params : ""; }

static void warn_sched_interval(const struct los_options* o) {
  if (o->has_sched_interval_off) return;
  error("sched/los: ***********************************************************************");
  error("sched/los: SchedulerParameters lacks sched_interval=-1: slurmctld's own FIFO scheduler");
  error("sched/los: keeps starting jobs beside sched/los, so losd's decisions are NOT in control.");
  error("sched/los: Add sched_interval=-1 to SchedulerParameters in slurm.conf.");
  error("sched/los: ***********************************************************************");
}

/* Parses SchedulerParameters into *out; logs the error and returns -1 on bad input. */
static int load_options(struct los_options* out) {
  char err[256] = "";
  struct los_options o;
  los_options_default(&o);
  if (los_options_parse(params_string(), &o, err, sizeof err)) {
    error("sched/los: %s", err);
    return -1;
  }
  *out = o;
  return 0;
}

/* ---- snapshot under the read locks ----------------------------------- */

static uint8_t node_state_of(const node_record_t* node) {
  if (IS_NODE_DOWN(node) || IS_NODE_FUTURE(node) || IS_NODE_NO_RESPOND(node) || IS_NODE_POWERED_DOWN(node) ||
      IS_NODE_POWERING_DOWN(node))
    return LOS_NODE_DOWN;
  if (IS_NODE_DRAIN(node) || IS_NODE_FAIL(node)) return LOS_NODE_DRAINED;
  if (IS_NODE_ALLOCATED(node) || IS_NODE_MIXED(node) || IS_NODE_COMPLETING(node)) return LOS_NODE_ALLOCATED;
  return LOS_NODE_IDLE;
}

static int64_t limit_seconds(const job_record_t* job, const part_record_t* part) {
  uint32_t minutes = job->time_limit;
  if (minutes == NO_VAL || minutes == 0) minutes = part->max_time;
  if (minutes == INFINITE || minutes == NO_VAL) return 365LL * 24 * 3600;
  return (int64_t)minutes * 60;
}

/* A pending job losd may start now: not held, not waiting on a begin time or dependency. */
static int job_eligible(const job_record_t* job, time_t now) {
  if (!IS_JOB_PENDING(job) || IS_JOB_COMPLETING(job) || !job->details || !job->part_ptr) return 0;
  if (job->priority == 0) return 0; /* held */
  if (job->details->begin_time && job->details->begin_time > now) return 0;
  if (job->details->depend_list && list_count(job->details->depend_list) > 0) return 0;
  if (job->het_job_id || job->array_recs) return 0; /* heterogeneous jobs and array heads: not handled */
  return 1;
}

/* Fills s from slurmctld's records; call with job, node, part READ locks. */
static int take_snapshot(struct los_snapshot* s, time_t now) {
  int rc = -1;
  int* local = xcalloc(node_record_count ? node_record_count : 1, sizeof(int));
  ListIterator pit = list_iterator_create(part_list);
  part_record_t* part;
  s->now = now;
  while ((part = list_next(pit))) {
    if (!(part->state_up & PARTITION_SCHED) || !part->node_bitmap) continue;
    struct los_partition* p = los_snapshot_add_partition(s, part->name);
    if (!p) goto done;
    node_record_t* node;
    for (int i = 0; i < node_record_count; ++i) local[i] = -1;
    for (int i = 0; (node = next_node(&i)); ++i) {
      if (!bit_test(part->node_bitmap, node->index)) continue;
      local[node->index] = (int)p->node_count;
      if (los_partition_add_node(p, node->name, node_state_of(node))) goto done;
    }
    ListIterator jit = list_iterator_create(job_list);
    job_record_t* job;
    while ((job = list_next(jit))) {
      if (job->part_ptr != part) continue;
      /* A completing job still holds the nodes its epilog runs on: it is
       * reported as running on them, so no policy counts them free. */
      bitstr_t* held = IS_JOB_COMPLETING(job) && job->node_bitmap_cg ? job->node_bitmap_cg : job->node_bitmap;
      if ((IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job) || IS_JOB_COMPLETING(job)) && held) {
        uint32_t count = 0;
        for (int i = 0; i < node_record_count; ++i)
          if (local[i] >= 0 && bit_test(held, i)) ++count;
        if (count == 0) continue; /* completed everywhere */
        struct los_running* r = los_partition_add_running(p, count);
        if (!r) {
          list_iterator_destroy(jit);
          goto done;
        }
        r->id = job->job_id;
        r->user = job->user_id;
        r->submit = job->details ? job->details->submit_time : job->start_time;
        r->start = job->start_time;
        r->limit = limit_seconds(job, part);
        r->size = count;
        r->suspended = IS_JOB_SUSPENDED(job) ? 1 : 0;
        uint32_t k = 0;
        for (int i = 0; i < node_record_count && k < count; ++i)
          if (local[i] >= 0 && bit_test(held, i)) r->nodes[k++] = (uint32_t)local[i];
      } else if (job_eligible(job, now)) {
        struct los_pending* q = los_partition_add_pending(p);
        if (!q) {
          list_iterator_destroy(jit);
          goto done;
        }
        q->id = job->job_id;
        q->user = job->user_id;
        q->submit = job->details->submit_time;
        q->size = job->details->min_nodes ? job->details->min_nodes : 1;
        q->limit = limit_seconds(job, part);
        q->priority = job->priority;
      }
    }
    list_iterator_destroy(jit);
    los_partition_sort_queue(p);
  }
  rc = 0;
done:
  list_iterator_destroy(pit);
  xfree(local);
  return rc;
}

/* ---- applying decisions under the write locks ------------------------ */

/* A node a new job may use now. */
static int node_free(const node_record_t* node) {
  return bit_test(avail_node_bitmap, node->index) && bit_test(idle_node_bitmap, node->index) && IS_NODE_IDLE(node) &&
         !IS_NODE_DRAIN(node) && !IS_NODE_COMPLETING(node) && !IS_NODE_NO_RESPOND(node) &&
         !IS_NODE_POWERED_DOWN(node) && !IS_NODE_FAIL(node);
}

/* Why a decision was not applied; reason[0] == 0 when it was. */
struct outcome {
  char reason[256];
  uint8_t report; /* enum los_report_kind, 0: nothing to report */
};

static void start_job(const struct los_decision* d, job_record_t* job, struct outcome* out) {
  bitstr_t* chosen = NULL;
  if (d->node_count) {
    if (d->node_count != job->details->min_nodes) {
      snprintf(out->reason, sizeof out->reason, "%u nodes chosen but the job asks for %u", d->node_count,
               job->details->min_nodes);
      out->report = LOS_REPORT_STALE_DECISION;
      return;
    }
    chosen = bit_alloc(node_record_count);
    for (uint32_t n = 0; n < d->node_count; ++n) {
      node_record_t* node = find_node_record(d->nodes[n]);
      const char* why = NULL;
      if (!node) why = "does not exist";
      else if (!bit_test(job->part_ptr->node_bitmap, node->index)) why = "is not in the job's partition";
      else if (!node_free(node)) why = "is no longer free (allocated, completing, drained or down)";
      else if (bit_test(chosen, node->index)) why = "is named twice";
      if (why) {
        snprintf(out->reason, sizeof out->reason, "node %s %s", d->nodes[n], why);
        out->report = LOS_REPORT_STALE_DECISION;
        FREE_NULL_BITMAP(chosen);
        return;
      }
      bit_set(chosen, node->index);
    }
  }
  /* As sched/backfill does: exclude every node but the chosen ones for the
   * duration of select_nodes(), then restore the job's own exclusions. */
  bitstr_t* own_exc = job->details->exc_node_bitmap;
  job->details->exc_node_bitmap = NULL;
  if (chosen) {
    bitstr_t* exc = bit_copy(chosen);
    bit_not(exc);
    if (own_exc) bit_or(exc, own_exc);
    job->details->exc_node_bitmap = exc;
  } else if (own_exc) {
    job->details->exc_node_bitmap = bit_copy(own_exc);
  }
  int rc = select_nodes(job, false, NULL, NULL, false, SLURMDB_JOB_FLAG_SCHED);
  if (job->details) {
    FREE_NULL_BITMAP(job->details->exc_node_bitmap);
    job->details->exc_node_bitmap = own_exc;
  } else {
    FREE_NULL_BITMAP(own_exc);
  }
  FREE_NULL_BITMAP(chosen);
  if (rc != SLURM_SUCCESS) {
    snprintf(out->reason, sizeof out->reason, "Slurm refused the start: %s", slurm_strerror(rc));
    out->report = LOS_REPORT_START_FAILED;
    return;
  }
  last_job_update = time(NULL);
  info("sched/los: started JobId=%u in %s on %s", job->job_id, job->part_ptr->name, job->nodes);
  if (job->batch_flag == 0)
    srun_allocate(job);
  else if (!IS_JOB_CONFIGURING(job))
    launch_job(job);
}

static void apply_one(const struct los_decision* d, struct outcome* out) {
  out->reason[0] = '\0';
  out->report = 0;
  if (d->job > UINT32_MAX) {
    snprintf(out->reason, sizeof out->reason, "job id %" PRIu64 " is not a Slurm job id", d->job);
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  job_record_t* job = find_job_record((uint32_t)d->job);
  if (!job) {
    snprintf(out->reason, sizeof out->reason, "the job no longer exists");
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  uint8_t state = IS_JOB_PENDING(job) ? LOS_JOB_PENDING
                  : IS_JOB_RUNNING(job) ? LOS_JOB_RUNNING
                  : IS_JOB_SUSPENDED(job) ? LOS_JOB_SUSPENDED
                                          : 0xff;
  if (state != d->expected) {
    snprintf(out->reason, sizeof out->reason, "the job is %s, the decision expected it %s",
             job_state_string(job->job_state),
             d->expected == LOS_JOB_PENDING ? "pending" : d->expected == LOS_JOB_RUNNING ? "running" : "suspended");
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  if (!job->part_ptr || xstrcmp(job->part_ptr->name, d->partition)) {
    snprintf(out->reason, sizeof out->reason, "the job is in partition %s, not %s",
             job->part_ptr ? job->part_ptr->name : "(none)", d->partition);
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  switch (d->kind) {
    case LOS_DECIDE_START:
      if (d->expected != LOS_JOB_PENDING || !job_eligible(job, time(NULL))) {
        snprintf(out->reason, sizeof out->reason, "the job is not eligible to start (held, dependency or begin time)");
        out->report = LOS_REPORT_STALE_DECISION;
        return;
      }
      start_job(d, job, out);
      return;
    case LOS_DECIDE_SUSPEND:
    case LOS_DECIDE_RESUME: {
      suspend_msg_t msg;
      char id[32];
      memset(&msg, 0, sizeof msg);
      snprintf(id, sizeof id, "%u", job->job_id);
      msg.op = d->kind == LOS_DECIDE_SUSPEND ? SUSPEND_JOB : RESUME_JOB;
      msg.job_id = job->job_id;
      msg.job_id_str = id;
      int rc = job_suspend2(&msg, 0, -1, false, SLURM_PROTOCOL_VERSION);
      if (rc != SLURM_SUCCESS) {
        snprintf(out->reason, sizeof out->reason, "Slurm refused the %s: %s",
                 d->kind == LOS_DECIDE_SUSPEND ? "suspend" : "resume", slurm_strerror(rc));
        out->report = LOS_REPORT_START_FAILED;
      } else {
        info("sched/los: %s JobId=%u", d->kind == LOS_DECIDE_SUSPEND ? "suspended" : "resumed", job->job_id);
      }
      return;
    }
    case LOS_DECIDE_REQUEUE: {
      int rc = job_requeue(0, job->job_id, NULL, false, 0);
      if (rc != SLURM_SUCCESS) {
        snprintf(out->reason, sizeof out->reason, "Slurm refused the requeue: %s", slurm_strerror(rc));
        out->report = LOS_REPORT_START_FAILED;
      } else {
        info("sched/los: requeued JobId=%u", job->job_id);
      }
      return;
    }
  }
  snprintf(out->reason, sizeof out->reason, "unknown decision kind %u", d->kind);
}

/* ---- the cycle -------------------------------------------------------- */

static int64_t usec_since(const struct timespec* t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (int64_t)(t1.tv_sec - t0->tv_sec) * 1000000 + (t1.tv_nsec - t0->tv_nsec) / 1000;
}

static void run_cycle(const struct los_options* o) {
  slurmctld_lock_t read_locks = {READ_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, READ_LOCK};
  slurmctld_lock_t write_locks = {READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK};
  struct los_snapshot snap;
  struct los_decisions dec;
  struct timespec t0, t1, t2;
  char err[512] = "";
  char cluster[256];
  uint32_t pending = 0, running = 0;
  memset(&snap, 0, sizeof snap);
  memset(&dec, 0, sizeof dec);

  /* 1. snapshot */
  clock_gettime(CLOCK_MONOTONIC, &t0);
  lock_slurmctld(read_locks);
  los.seen_job_update = last_job_update;
  los.seen_node_update = last_node_update;
  los.seen_part_update = last_part_update;
  los.snapshot_second = time(NULL);
  snprintf(cluster, sizeof cluster, "%s", slurm_conf.cluster_name ? slurm_conf.cluster_name : "");
  int snap_rc = take_snapshot(&snap, time(NULL));
  unlock_slurmctld(read_locks);
  int64_t snapshot_us = usec_since(&t0);
  if (snap_rc) {
    error("sched/los: out of memory taking the snapshot; cycle skipped");
    los_snapshot_free(&snap);
    return;
  }
  snap.seq = ++los.seq;
  for (uint32_t i = 0; i < snap.partition_count; ++i) {
    pending += snap.partitions[i].pending_count;
    running += snap.partitions[i].running_count;
  }

  /* 2. decide: losd, or the fallback; no slurmctld lock is held here */
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int by_losd = 0;
  int c = los_conn_ensure(&los.conn, o, cluster, SLURM_VERSION_STRING, err, sizeof err);
  if (c == 0) {
    if (los_conn_exchange(&los.conn, o, &snap, &dec, err, sizeof err) == 0) by_losd = 1;
  }
  los.wakeup = by_losd && dec.wakeup >= 0 ? (time_t)dec.wakeup : 0;
  if (!by_losd) {
    if (!los.in_fallback) {
      error("sched/los: losd at %s unusable (%s): scheduling by the '%s' fallback until it answers again",
            o->socket_path, c == 1 ? "waiting to reconnect" : err, los_fallback_name(o->fallback));
    } else if (c == -1) {
      debug("sched/los: reconnect to losd failed: %s (next try in %d ms)", err, los.conn.backoff_ms);
    }
    if (!los.in_fallback) {
      los.fallback_started = 0;
      los.fallback_since = time(NULL);
    }
    los.in_fallback = 1;
    los_decisions_free(&dec);
    if (los_fallback_decide(&snap, o->fallback, &dec)) {
      error("sched/los: out of memory in the fallback; cycle skipped");
      los_decisions_free(&dec);
      los_snapshot_free(&snap);
      return;
    }
  } else if (los.in_fallback) {
    char detail[160];
    info("sched/los: losd at %s answers again: it decides from now on (the %s fallback started %u jobs meanwhile)",
         o->socket_path, los_fallback_name(o->fallback), los.fallback_started);
    snprintf(detail, sizeof detail, "the %s fallback scheduled for %ld s and started %u jobs",
             los_fallback_name(o->fallback), (long)(time(NULL) - los.fallback_since), los.fallback_started);
    los_conn_report(&los.conn, o, LOS_REPORT_FALLBACK, "", 0, detail);
    los.in_fallback = 0;
  }
  int64_t decide_us = usec_since(&t1);

  /* 3. apply what still holds */
  struct outcome* outcomes = dec.count ? xcalloc(dec.count, sizeof *outcomes) : NULL;
  int started = 0, skipped = 0;
  clock_gettime(CLOCK_MONOTONIC, &t2);
  if (dec.count) {
    lock_slurmctld(write_locks);
    for (uint32_t i = 0; i < dec.count; ++i) {
      apply_one(&dec.items[i], &outcomes[i]);
      if (outcomes[i].reason[0]) ++skipped;
      else if (dec.items[i].kind == LOS_DECIDE_START) ++started;
    }
    unlock_slurmctld(write_locks);
  }
  int64_t apply_us = usec_since(&t2);
  if (!by_losd) los.fallback_started += (uint32_t)started;

  /* logs and reports, with no lock held */
  for (uint32_t i = 0; i < dec.count; ++i) {
    if (!outcomes[i].reason[0]) continue;
    info("sched/los: skipped %s of JobId=%" PRIu64 " (%s decision, seq %" PRIu64 "): %s",
         dec.items[i].kind == LOS_DECIDE_START     ? "start"
         : dec.items[i].kind == LOS_DECIDE_SUSPEND ? "suspend"
         : dec.items[i].kind == LOS_DECIDE_RESUME  ? "resume"
                                                   : "requeue",
         dec.items[i].job, by_losd ? "losd" : "fallback", dec.seq, outcomes[i].reason);
    if (outcomes[i].report && by_losd)
      los_conn_report(&los.conn, o, outcomes[i].report, dec.items[i].partition, dec.items[i].job,
                      outcomes[i].reason);
  }
  xfree(outcomes);
  info("sched/los: cycle seq=%" PRIu64 " by=%s pending=%u running=%u decisions=%u started=%d skipped=%d "
       "snapshot_us=%" PRId64 " decide_us=%" PRId64 " apply_us=%" PRId64 " total_us=%" PRId64,
       snap.seq, by_losd ? "losd" : los_fallback_name(o->fallback), pending, running, dec.count, started, skipped,
       snapshot_us, decide_us, apply_us, usec_since(&t0));
  los_decisions_free(&dec);
  los_snapshot_free(&snap);
}

static int changed_since_last_cycle(void) {
  /* Read without the locks as sched/backfill's _more_work() does: a stale
   * read only delays the cycle by one poll. */
  if (last_job_update != los.seen_job_update || last_node_update != los.seen_node_update ||
      last_part_update != los.seen_part_update)
    return 1;
  /* The stamps have 1-second resolution: a change later in the second the
   * snapshot saw (a node finishing its epilog right after the job's
   * completion) leaves them equal. Once that second is over, look again. */
  time_t s = los.snapshot_second;
  if (time(NULL) > s && (los.seen_job_update == s || los.seen_node_update == s || los.seen_part_update == s)) {
    los.snapshot_second = 0; /* once */
    return 1;
  }
  return 0;
}

static void* los_agent(void* arg) {
  (void)arg;
  struct los_options o;
  int64_t next_forced = 0;
  prctl(PR_SET_NAME, "sched_los", NULL, NULL, NULL);
  pthread_mutex_lock(&los.mutex);
  o = los.options;
  pthread_mutex_unlock(&los.mutex);
  for (;;) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += o.poll_ms / 1000;
    until.tv_nsec += (long)(o.poll_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&los.mutex);
    if (!los.stop) pthread_cond_timedwait(&los.wake, &los.mutex, &until);
    int stop = los.stop;
    if (los.reconfig) {
      los.reconfig = 0;
      if (strcmp(o.socket_path, los.options.socket_path)) los_conn_close(&los.conn); /* talk to the new losd */
      o = los.options;
    }
    pthread_mutex_unlock(&los.mutex);
    if (stop) break;
    if (slurmctld_config.scheduling_disabled) continue;
    int64_t now = los_monotonic_ms();
    /* A reconnect is due: try it now rather than at the next change, so a
     * restarted losd takes over within the backoff. */
    int reconnect_due = los.conn.fd < 0 && now >= los.conn.next_attempt_ms;
    int wakeup_due = los.wakeup != 0 && time(NULL) >= los.wakeup;
    if (!changed_since_last_cycle() && now < next_forced && !reconnect_due && !wakeup_due) continue;
    run_cycle(&o);
    next_forced = los_monotonic_ms() + (int64_t)o.interval_s * 1000;
  }
  los_conn_free(&los.conn);
  return NULL;
}

/* ---- plugin entry points ---------------------------------------------- */

int init(void) {
  struct los_options o;
  if (load_options(&o)) return SLURM_ERROR;
  warn_sched_interval(&o);
  pthread_mutex_lock(&los.mutex);
  if (los.thread_running) {
    pthread_mutex_unlock(&los.mutex);
    return SLURM_SUCCESS;
  }
  los.options = o;
  los.stop = 0;
  los.reconfig = 0;
  los_conn_init(&los.conn);
  los.seq = 0;
  los.in_fallback = 0;
  slurm_thread_create(&los.thread, los_agent, NULL);
  los.thread_running = 1;
  pthread_mutex_unlock(&los.mutex);
  info("sched/los: loaded; losd socket %s, timeout %d ms, fallback %s, interval %d s, poll %d ms, "
       "reconnect backoff up to %d ms",
       o.socket_path, o.timeout_ms, los_fallback_name(o.fallback), o.interval_s, o.poll_ms, o.reconnect_max_ms);
  return SLURM_SUCCESS;
}

void fini(void) {
  pthread_mutex_lock(&los.mutex);
  if (!los.thread_running) {
    pthread_mutex_unlock(&los.mutex);
    return;
  }
  los.stop = 1;
  pthread_cond_broadcast(&los.wake);
  pthread_mutex_unlock(&los.mutex);
  pthread_join(los.thread, NULL);
  pthread_mutex_lock(&los.mutex);
  los.thread_running = 0;
  pthread_mutex_unlock(&los.mutex);
  verbose("sched/los: stopped");
}

extern int sched_p_reconfig(void) {
  struct los_options o;
  if (load_options(&o)) {
    error("sched/los: reconfigure: keeping the previous sched/los parameters");
    return SLURM_SUCCESS;
  }
  warn_sched_interval(&o);
  pthread_mutex_lock(&los.mutex);
  los.options = o;
  los.reconfig = 1;
  pthread_cond_broadcast(&los.wake);
  pthread_mutex_unlock(&los.mutex);
  return SLURM_SUCCESS;
}
