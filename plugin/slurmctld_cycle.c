/* See slurmctld_cycle.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
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
#include "src/slurmctld/licenses.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"
#include "src/slurmctld/srun_comm.h"

/* needs slurmctld.h first */
#include "src/slurmctld/acct_policy.h"

#include "conn.h"
#include "cycle.h"
#include "fallback.h"
#include "protocol/los_protocol.h"
#include "slurmctld_cycle.h"
#include "snapshot.h"

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

/* ---- advanced reservations ------------------------------------------- */

/* A reservation holding nodes now. Under the node READ lock (resv_list and
 * its records are changed under the node WRITE lock, as job_test_resv()
 * reads them under sched/backfill's READ locks). */
static int resv_active(const slurmctld_resv_t* resv, time_t now) {
  return resv && resv->node_bitmap && resv->start_time <= now && now < resv->end_time;
}

/* The nodes of every reservation active now: no job outside the reservation
 * may start on them (job_test_resv() takes them out of such a job's nodes).
 * NULL when there is none. */
static bitstr_t* reserved_nodes(time_t now) {
  bitstr_t* all = NULL;
  if (!resv_list) return NULL;
  ListIterator it = list_iterator_create(resv_list);
  slurmctld_resv_t* resv;
  while ((resv = list_next(it))) {
    if (!resv_active(resv, now)) continue;
    if (!all) all = bit_alloc(node_record_count);
    bit_or(all, resv->node_bitmap);
  }
  list_iterator_destroy(it);
  return all;
}

/* The job's reservation when it is active now (the job may run only there), else NULL. */
static slurmctld_resv_t* job_resv(const job_record_t* job, time_t now) {
  return job->resv_name && resv_active(job->resv_ptr, now) ? job->resv_ptr : NULL;
}

/* A snapshot partition: a Slurm partition ("batch"), or the nodes of an
 * active reservation in it ("batch@resv"), whose queue holds that
 * reservation's jobs. */
#define LOS_RESV_SEP '@'

/* Splits a snapshot partition name into the Slurm partition and the
 * reservation (NULL when none); 0 when both exist. A Slurm partition of that
 * very name is the partition itself: take_snapshot() builds no reservation
 * view whose name is a partition's, and a view's partition part never holds
 * the separator (such partitions are the fallback's), so a name reads one way. */
static int partition_view(const char* name, part_record_t** part, slurmctld_resv_t** resv) {
  char buf[512];
  const char* at = strchr(name, LOS_RESV_SEP);
  *resv = NULL;
  *part = find_part_record((char*)name);
  if (*part || !at) return *part ? 0 : -1;
  if ((size_t)(at - name) >= sizeof buf) return -1;
  memcpy(buf, name, (size_t)(at - name));
  buf[at - name] = 0;
  *part = find_part_record(buf);
  *resv = find_resv_name((char*)at + 1);
  return *part && *resv ? 0 : -1;
}

/* Whether a new job of reservation resv (NULL: none) may use the node now. */
static int node_in_view(const node_record_t* node, const slurmctld_resv_t* resv, bitstr_t* reserved) {
  if (resv) return bit_test(resv->node_bitmap, node->index);
  return !reserved || !bit_test(reserved, node->index);
}

/* The marker in a job's --comment that opts it in to migration, with
 * --requeue (docs/gang-live.md). */
#define LOS_MIGRATABLE_MARK "los:migratable"

/* Whether the job opted in to migration: a batch job Slurm may requeue
 * (--requeue, or JobRequeue=1 without --no-requeue) whose comment holds
 * LOS_MIGRATABLE_MARK. LOS requeues no other job. */
static int job_migratable(const job_record_t* job) {
  return job->batch_flag && job->details && job->details->requeue && job->comment &&
         strstr(job->comment, LOS_MIGRATABLE_MARK) != NULL;
}

/* A pending job losd may start now: not held, not waiting on a begin time or
 * dependency, not a heterogeneous job; for a job array's meta record see
 * is_array_meta(). A job the plugin requeued for migration (cy) does not
 * wait for the begin time Slurm set at its requeue (start_job() clears it). */
static int job_eligible(const job_record_t* job, time_t now, const struct los_cycle* cy) {
  if (!IS_JOB_PENDING(job) || IS_JOB_COMPLETING(job) || !job->details || !job->part_ptr) return 0;
  if (job->priority == 0) return 0; /* held */
  if (job->details->begin_time && job->details->begin_time > now && !los_cycle_migration(cy, job->job_id)) return 0;
  if (job->details->depend_list && list_count(job->details->depend_list) > 0) return 0;
  if (job->het_job_id) return 0; /* heterogeneous jobs: not scheduled by sched/los (docs/plugin.md) */
  if (job->resv_name && !resv_active(job->resv_ptr, now)) return 0; /* its reservation has not begun */
  /* a task split off an array (a requeued task): the array's throttle (%N) */
  if (job->array_task_id != NO_VAL && !job->array_recs) {
    const job_record_t* base = find_job_record(job->array_job_id);
    if (base && base->array_recs && base->array_recs->max_run_tasks &&
        base->array_recs->tot_run_tasks >= base->array_recs->max_run_tasks)
      return 0;
  }
  return 1;
}

/* A job array's meta record: it holds the array's pending tasks that have no
 * record of their own yet. Each is offered to losd as its own job. */
static int is_array_meta(const job_record_t* job) {
  return job->array_recs && job->array_recs->task_id_bitmap && IS_JOB_PENDING(job);
}

/* How many of a meta record's pending tasks may start now (the throttle). */
static uint32_t array_tasks_allowed(const job_record_t* job) {
  uint32_t n = (uint32_t)bit_set_count(job->array_recs->task_id_bitmap);
  uint32_t max = job->array_recs->max_run_tasks, run = job->array_recs->tot_run_tasks;
  if (max) n = MIN(n, max > run ? max - run : 0);
  return n;
}

/* The CPUs of the partition's smallest node; 0 when none is known. A loop
 * over every node record: once per partition view, not once per job (at
 * 10,000 nodes, per job it cost ~70 us, docs/benchmarks.md issue 17). */
static uint32_t part_min_cpus(const part_record_t* part) {
  uint32_t cpn = 0;
  if (!part || !part->node_bitmap) return 0;
  const bitoff_t last = bit_fls(part->node_bitmap);
  for (bitoff_t i = bit_ffs(part->node_bitmap); i >= 0 && i <= last; ++i) {
    const node_record_t* node = i < node_record_count ? node_record_table_ptr[i] : NULL;
    if (node && bit_test(part->node_bitmap, i) && node->cpus && (!cpn || node->cpus < cpn)) cpn = node->cpus;
  }
  return cpn;
}

/* part_min_cpus(), derived once per partition while the write locks are held
 * (the decisions of a cycle), not once per decision (a loop over the
 * partition's nodes under slurmctld's write locks for every start): the
 * value cannot change meanwhile. A node's CPUs change only under the node
 * write lock, held here (select_nodes() allocates nodes, it does not
 * reconfigure them), a partition's nodes only under the partition write
 * lock, excluded by the read lock held here. cy NULL: derived every time. */
static uint32_t part_min_cpus_locked(struct los_cycle* cy, const part_record_t* part) {
  uint32_t cpn;
  if (cy && part && los_cycle_part_value(cy, part, &cpn)) return cpn;
  cpn = part_min_cpus(part);
  if (cy && part) los_cycle_remember_part_value(cy, part, cpn);
  return cpn;
}

/* The size losd plans with, and what the start allocates (select/linear,
 * whole nodes): the job's minimum node count, or more when its CPU count
 * (-n without -N) needs more nodes of the partition's smallest, of cpn CPUs
 * (part_min_cpus(); 0: unknown). */
static uint32_t job_size_in(const job_record_t* job, uint32_t cpn) {
  uint32_t n = job->details->min_nodes ? job->details->min_nodes : 1;
  if (cpn && job->details->min_cpus != NO_VAL && job->details->min_cpus > n * cpn)
    n = (job->details->min_cpus + cpn - 1) / cpn;
  return n;
}

/* Under the write locks (see part_min_cpus_locked()). */
static uint32_t job_size(struct los_cycle* cy, const job_record_t* job, const part_record_t* part) {
  return job_size_in(job, part_min_cpus_locked(cy, part));
}

static int same_ptr(void* x, void* key) { return x == key; }

/* Whether the pending job may run in part: its partition, or one of the
 * partitions it was submitted to (-p a,b). */
static int job_in_partition(const job_record_t* job, const part_record_t* part) {
  if (job->part_ptr == part) return 1;
  if (!IS_JOB_PENDING(job) || !job->part_ptr_list) return 0;
  return list_find_first(job->part_ptr_list, same_ptr, (void*)part) != NULL;
}

/* cpn: part_min_cpus(part). */
static int add_pending(struct los_partition* p, const job_record_t* job, const part_record_t* part, uint32_t cpn,
                       uint64_t id) {
  struct los_pending* q = los_partition_add_pending(p);
  if (!q) return -1;
  q->id = id;
  q->user = job->user_id;
  q->submit = job->details->submit_time;
  q->size = job_size_in(job, cpn);
  q->limit = limit_seconds(job, part);
  q->priority = job->priority;
  return 0;
}

/* A reservation that has not begun yet, with nodes. */
static int resv_future(const slurmctld_resv_t* resv, time_t now) {
  return resv && resv->node_bitmap && resv->start_time > now && resv->end_time > resv->start_time;
}

/* Whether Slurm node i is a usable node of view p in the future reservation
 * that no running job (or earlier pseudo job) holds. */
static int blockable(const struct los_partition* p, const int* local, const char* held, const slurmctld_resv_t* resv,
                     int i) {
  const int n = local[i];
  return n >= 0 && bit_test(resv->node_bitmap, i) && !held[n] &&
         (p->nodes[n].state == LOS_NODE_IDLE || p->nodes[n].state == LOS_NODE_ALLOCATED);
}

/* The nodes of a reservation that begins before a pending job of this view
 * would end (now + its time limit) are unusable for it. The snapshot cannot
 * say "free until T" (a running job holds its nodes from now), so, as the
 * honest subset: while some pending job of the view could reach into the
 * reservation, its nodes (usable, held by no running job) are held by a
 * pseudo running job ending when the reservation ends; losd plans no job
 * there before that and predicts starts around it. Its id has Slurm job id 0
 * ((resv_id + 1) << 32), so no decision can ever act on it. Its start,
 * reservation start minus the longest pending time limit, stays put from
 * one snapshot to the next unless that limit changes. */
static int add_future_reservations(struct los_partition* p, const part_record_t* part, time_t now, const int* local) {
  int64_t horizon = 0;
  for (uint32_t q = 0; q < p->pending_count; ++q)
    if (p->pending[q].limit > horizon) horizon = p->pending[q].limit;
  if (!horizon || !resv_list) return 0;
  char* held = xcalloc(p->node_count ? p->node_count : 1, 1);
  for (uint32_t r = 0; r < p->running_count; ++r)
    for (uint32_t k = 0; k < p->running[r].node_count; ++k) held[p->running[r].nodes[k]] = 1;
  int rc = 0;
  ListIterator it = list_iterator_create(resv_list);
  slurmctld_resv_t* resv;
  while (rc == 0 && (resv = list_next(it))) {
    if (!resv_future(resv, now) || resv->start_time >= now + horizon) continue;
    if (!bit_overlap_any(resv->node_bitmap, part->node_bitmap)) continue;
    uint32_t count = 0;
    for (int i = 0; i < node_record_count; ++i)
      if (blockable(p, local, held, resv, i)) ++count;
    if (!count) continue;
    struct los_running* r = los_partition_add_running(p, count);
    if (!r) {
      rc = -1;
      break;
    }
    r->id = ((uint64_t)resv->resv_id + 1) << 32;
    r->user = 0;
    r->start = (int64_t)resv->start_time - horizon;
    r->submit = r->start;
    r->limit = (int64_t)resv->end_time - r->start;
    r->size = count;
    r->suspended = 0;
    uint32_t k = 0;
    for (int i = 0; i < node_record_count && k < count; ++i)
      if (blockable(p, local, held, resv, i)) {
        r->nodes[k++] = (uint32_t)local[i];
        held[local[i]] = 1;
      }
  }
  list_iterator_destroy(it);
  xfree(held);
  return rc;
}

/* How many jobs sched/los may hold on a node of part at once, running or
 * suspended (docs/gang-live.md): N of OverSubscribe=FORCE:N, as
 * _resolve_shared_status() (node_scheduler.c) lets every job of such a
 * partition share its nodes and select/linear counts a job suspended for
 * gang scheduling (job_suspend2(), indf_susp false) as still holding them,
 * up to N. 1 for any other setting (NO, YES:N needs every job to ask with
 * --oversubscribe, EXCLUSIVE), and when Slurm's own gang scheduler
 * (PreemptMode=GANG) would time-slice the same nodes. */
static uint16_t time_slots_of(const part_record_t* part) {
  const uint16_t n = part->max_share & ~SHARED_FORCE;
  if (!(part->max_share & SHARED_FORCE) || n < 2) return 1;
  if (slurm_conf.preempt_mode & PREEMPT_MODE_GANG) return 1;
  return n;
}

/* A future reservation's pseudo job (add_future_reservations()). */
static int is_reservation_block(uint64_t id) { return LOS_SLURM_JOB_ID(id) == 0; }

/* Adds one snapshot partition: Slurm partition part, or, with resv, the
 * nodes of that active reservation in it and the reservation's jobs.
 * reserved: the nodes of all active reservations (NULL: none); in a plain
 * partition they are reported drained, so losd plans no other job on them
 * while the reservation lasts. local: scratch of node_record_count ints;
 * span: scratch of node_record_count uint32_t (a running job's nodes). */
static int add_view(struct los_snapshot* s, part_record_t* part, slurmctld_resv_t* resv, bitstr_t* reserved, time_t now,
                    int* local, uint32_t* span, const struct los_cycle* cy) {
  char name[512];
  if (resv)
    snprintf(name, sizeof name, "%s%c%s", part->name, LOS_RESV_SEP, resv->name);
  else
    snprintf(name, sizeof name, "%s", part->name);
  struct los_partition* p = los_snapshot_add_partition(s, name);
  if (!p) return -1;
  p->time_slots = time_slots_of(part);
  node_record_t* node;
  for (int i = 0; i < node_record_count; ++i) local[i] = -1;
  for (int i = 0; (node = next_node(&i)); ++i) {
    if (!bit_test(part->node_bitmap, node->index)) continue;
    if (resv && !bit_test(resv->node_bitmap, node->index)) continue;
    uint8_t state = node_state_of(node);
    if (!resv && reserved && bit_test(reserved, node->index) && state != LOS_NODE_DOWN) state = LOS_NODE_DRAINED;
    local[node->index] = (int)p->node_count;
    if (los_partition_add_node(p, node->name, state)) return -1;
  }
  const uint32_t cpn = part_min_cpus(part);
  ListIterator jit = list_iterator_create(job_list);
  job_record_t* job;
  int rc = 0;
  while (rc == 0 && (job = list_next(jit))) {
    /* A completing job still holds the nodes its epilog runs on: it is
     * reported as running on them, so no policy counts them free. A job of
     * another partition (overlapping partitions) or of a reservation is
     * listed in every view with nodes it holds, so policies know when
     * those nodes free up. */
    bitstr_t* held = IS_JOB_COMPLETING(job) && job->node_bitmap_cg ? job->node_bitmap_cg : job->node_bitmap;
    const int holds = (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job) || IS_JOB_COMPLETING(job)) && held;
    if (!holds && !job_in_partition(job, part)) continue;
    /* a pending job of an active reservation is in that reservation's view only */
    if (!holds && job_resv(job, now) != resv) continue;
    if (holds) {
      /* a reserved node is drained in a plain partition's view: a job on it
       * is not counted there (losd counts a running job's size as busy
       * usable nodes) */
      uint32_t count = 0;
      /* only from its first node to its last, once: a running job costs its
       * own span of the node table, not two passes over all of it */
      const bitoff_t last = bit_fls(held);
      for (bitoff_t i = bit_ffs(held); i >= 0 && i <= last && i < node_record_count; ++i)
        if (local[i] >= 0 && bit_test(held, i) && (resv || !reserved || !bit_test(reserved, i)))
          span[count++] = (uint32_t)local[i];
      if (count == 0) continue; /* completed everywhere */
      struct los_running* r = los_partition_add_running(p, count);
      if (!r) {
        rc = -1;
        break;
      }
      r->id = job->job_id;
      r->user = job->user_id;
      r->submit = job->details ? job->details->submit_time : job->start_time;
      r->start = job->start_time;
      r->limit = limit_seconds(job, job->part_ptr ? job->part_ptr : part);
      r->size = count;
      r->suspended = IS_JOB_SUSPENDED(job) ? 1 : 0;
      r->migratable = job_migratable(job) ? 1 : 0;
      memcpy(r->nodes, span, count * sizeof *span);
    } else if (job_eligible(job, now, cy) && is_array_meta(job)) {
      /* every pending task the throttle lets start, lowest task id first */
      const uint32_t allowed = array_tasks_allowed(job);
      bitstr_t* tasks = job->array_recs->task_id_bitmap;
      uint32_t k = 0;
      for (int64_t t = bit_ffs(tasks); t >= 0 && k < allowed && t < bit_size(tasks); ++t) {
        if (!bit_test(tasks, t)) continue;
        if (add_pending(p, job, part, cpn, LOS_ARRAY_TASK_ID(job->job_id, t))) {
          rc = -1;
          break;
        }
        ++k;
      }
    } else if (job_eligible(job, now, cy)) {
      if (add_pending(p, job, part, cpn, job->job_id)) rc = -1;
    }
  }
  list_iterator_destroy(jit);
  if (rc == 0 && !resv) rc = add_future_reservations(p, part, now, local);
  los_partition_sort_queue(p);
  return rc;
}

/* Fills s from slurmctld's records; call with job, node, part READ locks.
 * A partition whose name holds the view separator would read as a
 * reservation view: it goes to fallback_only (its plain view; its
 * reservations' jobs are not scheduled), which the fallback decides. A
 * reservation view whose name is such a partition's is left out (its jobs
 * wait; the error about that partition says to rename it). */
static int take_snapshot(struct los_snapshot* s, struct los_snapshot* fallback_only, time_t now,
                         const struct los_cycle* cy) {
  int rc = -1;
  int* local = xcalloc(node_record_count ? node_record_count : 1, sizeof(int));
  uint32_t* span = xcalloc(node_record_count ? node_record_count : 1, sizeof(uint32_t));
  bitstr_t* reserved = reserved_nodes(now);
  ListIterator pit = list_iterator_create(part_list);
  part_record_t* part;
  s->now = fallback_only->now = now;
  /* losd's query socket follows PrivateData (docs/protocol.md) */
  if (slurm_conf.private_data & PRIVATE_DATA_JOBS) s->flags |= LOS_SNAPSHOT_PRIVATE_JOBS;
  if (slurm_conf.private_data & PRIVATE_DATA_USERS) s->flags |= LOS_SNAPSHOT_PRIVATE_USERS;
  while ((part = list_next(pit))) {
    if (!(part->state_up & PARTITION_SCHED) || !part->node_bitmap) continue;
    if (strchr(part->name, LOS_RESV_SEP)) {
      if (add_view(fallback_only, part, NULL, reserved, now, local, span, cy)) goto done;
      continue;
    }
    if (add_view(s, part, NULL, reserved, now, local, span, cy)) goto done;
    if (!reserved || !bit_overlap_any(reserved, part->node_bitmap)) continue;
    /* every active reservation with nodes in this partition: its own view */
    ListIterator rit = list_iterator_create(resv_list);
    slurmctld_resv_t* resv;
    int failed = 0;
    while (!failed && (resv = list_next(rit))) {
      if (!resv_active(resv, now) || !bit_overlap_any(resv->node_bitmap, part->node_bitmap)) continue;
      char name[512];
      snprintf(name, sizeof name, "%s%c%s", part->name, LOS_RESV_SEP, resv->name);
      if (find_part_record(name)) continue; /* that name is a partition's (in fallback_only) */
      failed = add_view(s, part, resv, reserved, now, local, span, cy);
    }
    list_iterator_destroy(rit);
    if (failed) goto done;
  }
  rc = 0;
done:
  list_iterator_destroy(pit);
  FREE_NULL_BITMAP(reserved);
  xfree(local);
  xfree(span);
  return rc;
}

/* ---- applying decisions under the write locks ------------------------ */

/* ctx: the cycle (its remembered partition values, part_min_cpus_locked()) or NULL. */
static void lock_for_apply(void* ctx) {
  slurmctld_lock_t write_locks = {READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK};
  lock_slurmctld(write_locks);
  if (ctx) los_cycle_forget_part_values(ctx);
}

static void unlock_after_apply(void* ctx) {
  slurmctld_lock_t write_locks = {READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK};
  if (ctx) los_cycle_forget_part_values(ctx); /* slurmctld may change them once unlocked */
  unlock_slurmctld(write_locks);
}

static int find_job(void* ctx, uint64_t id, struct los_job_view* view) {
  const struct los_cycle* cy = ctx;
  const int64_t task = LOS_ARRAY_TASK_OF(id);
  job_record_t* job = find_job_record(LOS_SLURM_JOB_ID(id));
  if (!job) return -1;
  if (task >= 0) {
    /* a pending array task: still pending in its meta record */
    if (!is_array_meta(job) || task >= bit_size(job->array_recs->task_id_bitmap) ||
        !bit_test(job->array_recs->task_id_bitmap, task))
      return -1;
  }
  view->handle = job;
  view->state = IS_JOB_PENDING(job)     ? LOS_JOB_PENDING
                : IS_JOB_RUNNING(job)   ? LOS_JOB_RUNNING
                : IS_JOB_SUSPENDED(job) ? LOS_JOB_SUSPENDED
                                        : LOS_JOB_STATE_OTHER;
  view->state_name = job_state_string(job->job_state);
  view->partition = job->part_ptr ? job->part_ptr->name : NULL;
  /* a pending job submitted to several partitions: start() checks the one decided */
  view->any_partition = IS_JOB_PENDING(job) && job->part_ptr_list && list_count(job->part_ptr_list) > 1;
  /* a job of a reservation is decided in its view "partition@reservation": start() checks it */
  if (job->resv_name) view->any_partition = 1;
  view->min_nodes = job->details ? job_size(ctx, job, job->part_ptr) : 0;
  /* the meta record itself is never a decision's job; its tasks are */
  view->eligible = job_eligible(job, time(NULL), cy) && (task >= 0) == (is_array_meta(job) != 0);
  return 0;
}

/* A node a new job may use now. */
static int node_free(const node_record_t* node) {
  return bit_test(avail_node_bitmap, node->index) && bit_test(idle_node_bitmap, node->index) && IS_NODE_IDLE(node) &&
         !IS_NODE_DRAIN(node) && !IS_NODE_COMPLETING(node) && !IS_NODE_NO_RESPOND(node) &&
         !IS_NODE_POWERED_DOWN(node) && !IS_NODE_FAIL(node);
}

/* Starts an eligible pending job on the chosen nodes (cycle.c checked
 * their count), or where Slurm picks when none are chosen. */
static void start_job(void* ctx, const struct los_job_view* view, const struct los_decision* d,
                      struct los_outcome* out) {
  struct los_cycle* cy = ctx;
  job_record_t* job = view->handle;
  bitstr_t* chosen = NULL;
  part_record_t* const own_part = job->part_ptr;
  part_record_t* part = NULL;
  slurmctld_resv_t* resv = NULL;
  const time_t now = time(NULL);
  if (partition_view(d->partition, &part, &resv)) {
    snprintf(out->reason, sizeof out->reason, "partition %s does not exist (or its reservation ended)", d->partition);
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  /* a job of an active reservation starts in its view, any other job outside every one */
  if (resv != job_resv(job, now) || (resv && !resv_active(resv, now))) {
    snprintf(out->reason, sizeof out->reason, "the job is not a job of reservation %s", resv ? resv->name : "(none)");
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  if (job->part_ptr != part) {
    /* submitted to several partitions: start it in the one losd decided, as
     * sched/backfill sets part_ptr to the partition it tries */
    if (!job->part_ptr_list || !list_find_first(job->part_ptr_list, same_ptr, part)) {
      snprintf(out->reason, sizeof out->reason, "the job is not in partition %s", part->name);
      out->report = LOS_REPORT_STALE_DECISION;
      return;
    }
    job->part_ptr = part;
  }
  /* Requeued for a migration: slurmd refuses a launch credential created in
   * the second of the requeue or before (slurm_cred.c, revoked jobs), so not
   * yet; then its begin time (now + the credential lifetime, set by
   * batch_requeue_fini()) no longer holds it. */
  const struct los_migration* mig = los_cycle_migration(cy, job->job_id);
  if (mig) {
    if (!mig->requeued || now <= mig->at + 1) {
      snprintf(out->reason, sizeof out->reason,
               "requeued for migration at %ld: Slurm revokes the launch credentials of that second; next cycle",
               (long)mig->at);
      out->report = LOS_REPORT_STALE_DECISION;
      job->part_ptr = own_part;
      return;
    }
    if (job->details->begin_time > now) job->details->begin_time = 0;
  }
  /* what sched/backfill and the main scheduler test before select_nodes() */
  const char* refused = NULL;
  if (!job_array_start_test(job)) {
    snprintf(out->reason, sizeof out->reason, "the array's task limit (%%N) is reached");
    out->report = LOS_REPORT_STALE_DECISION;
    job->part_ptr = own_part;
    return;
  }
  if (!acct_policy_job_runnable_state(job) && !acct_policy_job_runnable_pre_select(job, false))
    refused = "an association or QOS limit";
  else if (license_job_test(job, time(NULL), true) != SLURM_SUCCESS) {
    job->state_reason = WAIT_LICENSES;
    xfree(job->state_desc);
    refused = "licenses";
  }
  if (refused) {
    snprintf(out->reason, sizeof out->reason, "Slurm refused the start: %s (Reason=%s)", refused,
             job_reason_string(job->state_reason));
    out->report = LOS_REPORT_START_FAILED;
    job->part_ptr = own_part;
    last_job_update = time(NULL);
    return;
  }
  bitstr_t* reserved = resv ? NULL : reserved_nodes(now);
  /* a job asking for named nodes (--nodelist) or node features
   * (--constraint; the snapshot does not carry features) gets them where
   * Slurm finds them */
  if (d->node_count && !job->details->req_node_bitmap && !(job->details->features && job->details->features[0])) {
    chosen = bit_alloc(node_record_count);
    for (uint32_t n = 0; n < d->node_count; ++n) {
      node_record_t* node = find_node_record(d->nodes[n]);
      const char* why = NULL;
      if (!node)
        why = "does not exist";
      else if (!bit_test(job->part_ptr->node_bitmap, node->index))
        why = "is not in the job's partition";
      else if (!node_free(node))
        why = "is no longer free (allocated, completing, drained or down)";
      else if (!node_in_view(node, resv, reserved))
        why = resv ? "is not in the job's reservation" : "is reserved (an advanced reservation)";
      else if (bit_test(chosen, node->index))
        why = "is named twice";
      if (why) {
        snprintf(out->reason, sizeof out->reason, "node %s %s", d->nodes[n], why);
        out->report = LOS_REPORT_STALE_DECISION;
        FREE_NULL_BITMAP(chosen);
        FREE_NULL_BITMAP(reserved);
        job->part_ptr = own_part;
        return;
      }
      bit_set(chosen, node->index);
    }
  }
  FREE_NULL_BITMAP(reserved);
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
  /* a node range (-N 2-4): the size losd planned, no more */
  const uint32_t size = job_size(cy, job, job->part_ptr), own_max = job->details->max_nodes;
  if (!own_max || own_max > size) job->details->max_nodes = size;
  const uint32_t array_id = job->array_recs ? job->job_id : 0;
  /* select_nodes() turns an array's meta record into its lowest pending task
   * and moves the rest to a new record (job_array_post_sched()) */
  int rc = select_nodes(job, false, NULL, NULL, false, SLURMDB_JOB_FLAG_SCHED);
  if (job->details) {
    FREE_NULL_BITMAP(job->details->exc_node_bitmap);
    job->details->exc_node_bitmap = own_exc;
    job->details->max_nodes = own_max;
  } else {
    FREE_NULL_BITMAP(own_exc);
  }
  FREE_NULL_BITMAP(chosen);
  if (rc == SLURM_SUCCESS && array_id) {
    /* the record of the array's remaining tasks was copied from this one
     * inside select_nodes(), with the exclusions and size cap of this start */
    job_record_t* rest = find_job_record(array_id);
    if (rest && rest != job && rest->details) {
      FREE_NULL_BITMAP(rest->details->exc_node_bitmap);
      rest->details->exc_node_bitmap = own_exc ? bit_copy(own_exc) : NULL;
      rest->details->max_nodes = own_max;
    }
  }
  if (rc != SLURM_SUCCESS) {
    job->part_ptr = own_part;
    if (rc == ESLURM_NODES_BUSY && job->state_reason == WAIT_NO_REASON) job->state_reason = WAIT_RESOURCES;
    snprintf(out->reason, sizeof out->reason, "Slurm refused the start: %s (Reason=%s)", slurm_strerror(rc),
             job_reason_string(job->state_reason));
    out->report = LOS_REPORT_START_FAILED;
    last_job_update = time(NULL);
    return;
  }
  last_job_update = time(NULL);
  if (mig) los_cycle_migration_done(cy, job->job_id);
  if (job->part_ptr != own_part) rebuild_job_part_list(job);
  if (array_id)
    info("sched/los: started JobId=%u (JobId=%u_%u) in %s on %s", job->job_id, job->array_job_id, job->array_task_id,
         job->part_ptr->name, job->nodes);
  else
    info("sched/los: started JobId=%u in %s on %s", job->job_id, job->part_ptr->name, job->nodes);
  if (job->batch_flag == 0)
    srun_allocate(job);
  else if (!IS_JOB_CONFIGURING(job))
    launch_job(job);
}

/* A node of the job that another job executes on (run_job_cnt counts the
 * running jobs of a node; a suspended job is not counted), or NULL. */
static const node_record_t* node_busy_for_resume(const job_record_t* job) {
  if (!job->node_bitmap) return NULL;
  /* the job's span of the node table only (under the write locks) */
  const bitoff_t last = bit_fls(job->node_bitmap);
  for (bitoff_t i = bit_ffs(job->node_bitmap); i >= 0 && i <= last && i < node_record_count; ++i) {
    const node_record_t* node = node_record_table_ptr[i];
    if (node && bit_test(job->node_bitmap, i) && node->run_job_cnt > 0) return node;
  }
  return NULL;
}

static void suspend_or_resume(const struct los_job_view* view, int resume, struct los_outcome* out) {
  job_record_t* job = view->handle;
  suspend_msg_t msg;
  char id[32];
  /* Slurm resumes a job whatever else runs on its nodes (_resume_job_nodes()):
   * two jobs would execute on one node. losd suspends the outgoing row
   * before it resumes the incoming one, in the same decisions. */
  const node_record_t* busy = resume ? node_busy_for_resume(job) : NULL;
  if (busy) {
    snprintf(out->reason, sizeof out->reason, "node %s still executes another job", busy->name);
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  memset(&msg, 0, sizeof msg);
  snprintf(id, sizeof id, "%u", job->job_id);
  msg.op = resume ? RESUME_JOB : SUSPEND_JOB;
  msg.job_id = job->job_id;
  msg.job_id_str = id;
  int rc = job_suspend2(&msg, 0, -1, false, SLURM_PROTOCOL_VERSION);
  if (rc != SLURM_SUCCESS) {
    snprintf(out->reason, sizeof out->reason, "Slurm refused the %s: %s", resume ? "resume" : "suspend",
             slurm_strerror(rc));
    out->report = LOS_REPORT_START_FAILED;
  } else {
    info("sched/los: %s JobId=%u", resume ? "resumed" : "suspended", job->job_id);
  }
}

static void suspend_job(void* ctx, const struct los_job_view* view, struct los_outcome* out) {
  (void)ctx;
  suspend_or_resume(view, 0, out);
}

static void resume_job(void* ctx, const struct los_job_view* view, struct los_outcome* out) {
  (void)ctx;
  suspend_or_resume(view, 1, out);
}

/* Seconds a suspended job executes again before its requeue, to catch
 * SIGTERM: slurmd kills a suspended job at once (_rpc_terminate_job(): "we
 * don't bother with a nice termination"), and a resume waits for a suspend
 * still under way on the node (slurmstepd sends SIGTSTP, then SIGSTOP 2 s
 * later, under the job's suspend lock): a job suspended a moment before its
 * migration executes again up to ~2 s after the plugin's resume. */
#define LOS_MIGRATE_RESUME_S 3

/* Requeues a job for migration now; 0 on success (else out is filled). */
static int requeue_now(struct los_cycle* cy, job_record_t* job, struct los_outcome* out) {
  const time_t now = time(NULL);
  int rc = job_requeue(0, job->job_id, NULL, false, 0);
  if (rc != SLURM_SUCCESS) {
    if (out) {
      snprintf(out->reason, sizeof out->reason, "Slurm refused the requeue: %s", slurm_strerror(rc));
      out->report = LOS_REPORT_START_FAILED;
    } else {
      error("sched/los: Slurm refused the requeue of JobId=%u for migration: %s", job->job_id, slurm_strerror(rc));
      cy->conn.need_resync = 1; /* losd's policy has it on its new nodes (cycle.c does this for losd's decisions) */
    }
    los_cycle_migration_done(cy, job->job_id);
    return -1;
  }
  if (los_cycle_migrated(cy, job->job_id, 1, now))
    error("sched/los: out of memory recording the migration of JobId=%u: it waits for Slurm's requeue delay",
          job->job_id);
  info("sched/los: requeued JobId=%u for migration", job->job_id);
  return 0;
}

/* A migration (docs/gang-live.md): only a job that opted in. Slurm's requeue
 * sends an executing job SIGTERM and SIGKILL KillWait seconds later (the job
 * checkpoints on SIGTERM) and puts it back in the queue; losd starts it again
 * on the nodes it chose. A suspended job is resumed first, on its own nodes
 * (beside the job executing there, for LOS_MIGRATE_RESUME_S), and requeued at
 * a later cycle (requeue_due()). */
static void requeue_job(void* ctx, const struct los_job_view* view, struct los_outcome* out) {
  struct los_cycle* cy = ctx;
  job_record_t* job = view->handle;
  if (!job_migratable(job)) {
    snprintf(out->reason, sizeof out->reason,
             "the job did not opt in to migration (--requeue and a --comment holding '%s'): never requeued by LOS",
             LOS_MIGRATABLE_MARK);
    out->report = LOS_REPORT_STALE_DECISION;
    return;
  }
  if (!IS_JOB_SUSPENDED(job)) {
    requeue_now(cy, job, out);
    return;
  }
  suspend_msg_t msg;
  char id[32];
  memset(&msg, 0, sizeof msg);
  snprintf(id, sizeof id, "%u", job->job_id);
  msg.op = RESUME_JOB;
  msg.job_id = job->job_id;
  msg.job_id_str = id;
  int rc = job_suspend2(&msg, 0, -1, false, SLURM_PROTOCOL_VERSION);
  if (rc != SLURM_SUCCESS) {
    snprintf(out->reason, sizeof out->reason, "Slurm refused the resume before the migration: %s", slurm_strerror(rc));
    out->report = LOS_REPORT_START_FAILED;
    return;
  }
  if (los_cycle_migrated(cy, job->job_id, 0, time(NULL) + LOS_MIGRATE_RESUME_S)) {
    error("sched/los: out of memory recording the migration of JobId=%u: requeued at once", job->job_id);
    requeue_now(cy, job, out);
    return;
  }
  info("sched/los: resumed JobId=%u to checkpoint before its migration", job->job_id);
}

/* Requeues the jobs resumed for a migration whose time has come. Takes the
 * write locks only when one is due. */
static void requeue_due(struct los_cycle* cy) {
  const time_t now = time(NULL);
  int due = 0;
  for (uint32_t i = 0; i < cy->migrated_count; ++i) due |= !cy->migrated[i].requeued && cy->migrated[i].at <= now;
  if (!due) return;
  lock_for_apply(NULL);
  for (uint32_t i = cy->migrated_count; i-- > 0;) {
    const struct los_migration m = cy->migrated[i];
    if (m.requeued || m.at > now) continue;
    job_record_t* job = find_job_record(m.job);
    if (!job || !IS_JOB_RUNNING(job) || !job_migratable(job)) {
      los_cycle_migration_done(cy, m.job); /* ended, suspended or changed meanwhile: no migration */
      cy->conn.need_resync = 1;
      continue;
    }
    requeue_now(cy, job, NULL);
  }
  last_job_update = time(NULL);
  unlock_after_apply(NULL);
}

/* ---- predicted starts and reasons, as sched/backfill sets them ---------- */

struct predicted_job {
  job_record_t* job;
  int64_t start; /* earliest over its tasks and partitions; -1 unknown */
  uint32_t reason;
};

static int by_job_ptr(const void* a, const void* b) {
  const struct predicted_job *x = a, *y = b;
  return x->job < y->job ? -1 : x->job > y->job ? 1 : 0;
}

/* The pending record behind a snapshot id (an array task's meta record), or NULL. */
static job_record_t* pending_record(uint64_t id) {
  job_record_t* job = find_job_record(LOS_SLURM_JOB_ID(id));
  if (!job || !IS_JOB_PENDING(job)) return NULL;
  if (LOS_ARRAY_TASK_OF(id) >= 0 && !is_array_meta(job)) return NULL;
  return job;
}

/* For every job of the snapshot's queues still pending: the Reason (the
 * first of each queue waits for Resources; a later one for Priority when it
 * would fit the idle nodes now, else for Resources) and losd's predicted start
 * as its StartTime (squeue --start). Jobs not offered to losd (held,
 * dependencies, refused) keep what Slurm set. */
static void apply_predictions(void* ctx, const struct los_predictions* starts, const struct los_snapshot* snap) {
  uint32_t total = 0, n = 0;
  for (uint32_t p = 0; p < snap->partition_count; ++p) total += snap->partitions[p].pending_count;
  struct predicted_job* jobs = xcalloc(total ? total : 1, sizeof *jobs);
  const time_t now = time(NULL);
  bitstr_t* reserved = reserved_nodes(now);
  for (uint32_t p = 0; p < snap->partition_count; ++p) {
    const struct los_partition* lp = &snap->partitions[p];
    part_record_t* part = NULL;
    slurmctld_resv_t* resv = NULL;
    uint32_t idle = 0;
    if (partition_view(lp->name, &part, &resv) == 0 && part->node_bitmap && (!resv || resv_active(resv, now))) {
      /* the view's nodes free now, but not those a future reservation blocks */
      char* blocked = xcalloc(lp->node_count ? lp->node_count : 1, 1);
      for (uint32_t r = 0; r < lp->running_count; ++r)
        if (is_reservation_block(lp->running[r].id))
          for (uint32_t k = 0; k < lp->running[r].node_count; ++k) blocked[lp->running[r].nodes[k]] = 1;
      for (uint32_t n = 0; n < lp->node_count; ++n) {
        node_record_t* node = blocked[n] ? NULL : find_node_record(lp->nodes[n].name);
        if (node && node_free(node) && node_in_view(node, resv, reserved)) ++idle;
      }
      xfree(blocked);
    }
    int first = 1;
    for (uint32_t q = 0; q < lp->pending_count; ++q) {
      job_record_t* job = pending_record(lp->pending[q].id);
      if (!job) continue; /* started this cycle, or gone */
      jobs[n].job = job;
      jobs[n].start = -1;
      jobs[n].reason = first || lp->pending[q].size > idle ? WAIT_RESOURCES : WAIT_PRIORITY;
      ++n;
      first = 0;
    }
  }
  FREE_NULL_BITMAP(reserved);
  qsort(jobs, n, sizeof *jobs, by_job_ptr);
  for (uint32_t i = 0; i < starts->count; ++i) {
    const struct los_predicted* e = &starts->items[i];
    job_record_t* job = e->start >= 0 ? pending_record(e->job) : NULL;
    if (!job) continue;
    struct predicted_job key = {.job = job};
    struct predicted_job* j = bsearch(&key, jobs, n, sizeof *jobs, by_job_ptr);
    /* every entry of the record (its tasks, its partitions): the earliest */
    for (; j && j > jobs && j[-1].job == job; --j) {
    }
    for (; j && j < jobs + n && j->job == job; ++j)
      if (j->start < 0 || e->start < j->start) j->start = e->start;
  }
  for (uint32_t i = 0; i < n;) {
    job_record_t* job = jobs[i].job;
    int64_t start = -1;
    uint32_t reason = jobs[i].reason; /* a record's first queue entry in the sort is as good as any */
    for (; i < n && jobs[i].job == job; ++i)
      if (jobs[i].start >= 0 && (start < 0 || jobs[i].start < start)) start = jobs[i].start;
    if (job->state_reason == WAIT_NO_REASON || job->state_reason == WAIT_RESOURCES ||
        job->state_reason == WAIT_PRIORITY) {
      if (job->state_reason != reason) {
        job->state_reason = reason;
        xfree(job->state_desc);
      }
    }
    job->start_time = start >= 0 ? (time_t)start : 0;
  }
  xfree(jobs);
  /* heterogeneous jobs: never pending without a reason users can read */
  ListIterator it = list_iterator_create(job_list);
  job_record_t* job;
  while ((job = list_next(it))) {
    /* a job waiting for its reservation to begin: Reason=Reservation, as Slurm's schedulers set it */
    if (job->resv_name && IS_JOB_PENDING(job) && job->state_reason == WAIT_NO_REASON && !job_resv(job, now)) {
      job->state_reason = WAIT_RESERVATION;
      xfree(job->state_desc);
      continue;
    }
    /* a job left out of the queue after a refusal whose Reason an update
     * cleared (scontrol update sets None): Slurm's limits and licenses say
     * why again, as sched/backfill's every pass tests them for every pending
     * job */
    if (IS_JOB_PENDING(job) && job->state_reason == WAIT_NO_REASON && !job->het_job_id && job_eligible(job, now, ctx)) {
      if (acct_policy_job_runnable_pre_select(job, false) && job->license_list &&
          license_job_test(job, now, true) != SLURM_SUCCESS) {
        job->state_reason = WAIT_LICENSES;
        xfree(job->state_desc);
      }
      continue;
    }
    if (!job->het_job_id || !IS_JOB_PENDING(job) || job->state_reason != WAIT_NO_REASON || job->state_desc) continue;
    job->state_desc = xstrdup("sched/los does not schedule heterogeneous jobs (see docs/plugin.md)");
  }
  list_iterator_destroy(it);
}

static void log_to_slurmctld(void* ctx, enum los_log_level level, const char* line) {
  (void)ctx;
  switch (level) {
    case LOS_LOG_ERROR:
      error("%s", line);
      return;
    case LOS_LOG_INFO:
      info("%s", line);
      return;
    case LOS_LOG_DEBUG:
      debug("%s", line);
      return;
  }
}

static int shutting_down(void* ctx) {
  (void)ctx;
  return slurmctld_config.shutdown_time != 0;
}

static const struct los_cycle_ops slurmctld_ops = {
    .ctx = NULL,
    .lock = lock_for_apply,
    .unlock = unlock_after_apply,
    .find_job = find_job,
    .start = start_job,
    .suspend = suspend_job,
    .resume = resume_job,
    .requeue = requeue_job,
    .predict = apply_predictions,
    .log = log_to_slurmctld,
    .shutting_down = shutting_down,
};

/* ---- the cycle -------------------------------------------------------- */

/* Read without the locks as sched/backfill's _more_work() does: a stale
 * read only delays the cycle by one poll. */
static struct los_update_stamps update_stamps(void) {
  const diag_stats_t* d = &slurmctld_diag_stats;
  struct los_update_stamps s = {last_job_update, last_node_update, last_part_update,
                                (uint64_t)d->jobs_submitted + d->jobs_completed + d->jobs_canceled + d->jobs_failed};
  return s;
}

/* Drops the migrations that are over: the job is gone, finished, or runs
 * again (started after its requeue, by losd or by hand). Under the read locks. */
static void forget_migrations(struct los_cycle* cy) {
  for (uint32_t i = cy->migrated_count; i-- > 0;) {
    const struct los_migration m = cy->migrated[i];
    const job_record_t* job = find_job_record(m.job);
    if (!job || IS_JOB_FINISHED(job) ||
        (m.requeued && (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) && job->start_time > m.at))
      los_cycle_migration_done(cy, m.job);
  }
}

int los_slurmctld_cycle_due(struct los_cycle* cy, int64_t next_forced_ms) {
  return los_cycle_due(cy, update_stamps(), los_monotonic_ms(), next_forced_ms, time(NULL));
}

void los_slurmctld_cycle(struct los_cycle* cy, const struct los_options* o) {
  slurmctld_lock_t read_locks = {READ_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, READ_LOCK};
  struct los_snapshot snap;
  struct los_snapshot fallback_only;
  char cluster[256];
  memset(&snap, 0, sizeof snap);
  memset(&fallback_only, 0, sizeof fallback_only);

  const int64_t started_us = los_monotonic_us();
  lock_slurmctld(read_locks);
  los_cycle_saw(cy, update_stamps(), time(NULL));
  snprintf(cluster, sizeof cluster, "%s", slurm_conf.cluster_name ? slurm_conf.cluster_name : "");
  forget_migrations(cy);
  int snap_rc = take_snapshot(&snap, &fallback_only, time(NULL), cy);
  unlock_slurmctld(read_locks);
  const int64_t snapshot_us = los_monotonic_us() - started_us;
  if (snap_rc) {
    error("sched/los: out of memory taking the snapshot; cycle skipped");
    los_snapshot_free(&snap);
    los_snapshot_free(&fallback_only);
    return;
  }
  if (fallback_only.partition_count != cy->fallback_only_logged) {
    /* once per change, not every cycle */
    cy->fallback_only_logged = fallback_only.partition_count;
    for (uint32_t i = 0; i < fallback_only.partition_count; ++i)
      error(
          "sched/los: partition %s: a name containing '%c' reads as a reservation view (partition%creservation); "
          "it is not sent to losd and the '%s' fallback schedules it (jobs of its reservations are not started): "
          "rename the partition",
          fallback_only.partitions[i].name, LOS_RESV_SEP, LOS_RESV_SEP, los_fallback_name(los_cycle_local_fallback(o)));
  }
  const struct los_cycle_input in = {
      .snap = &snap,
      .local = &fallback_only,
      .cluster = cluster,
      .slurm_version = SLURM_VERSION_STRING,
      .started_us = started_us,
      .snapshot_us = snapshot_us,
  };
  struct los_cycle_ops ops = slurmctld_ops;
  ops.ctx = cy; /* the migrations in progress */
  los_cycle_run(cy, o, &in, &ops);
  requeue_due(cy);
  /* a job resumed for migration is requeued at its time; a requeued one may
   * start two seconds after its requeue */
  for (uint32_t i = 0; i < cy->migrated_count; ++i) {
    const time_t at = cy->migrated[i].at + (cy->migrated[i].requeued ? 2 : 0);
    if (at > (time_t)snap.now && (!cy->wakeup || at < cy->wakeup)) cy->wakeup = at;
  }
  /* A job a refusal left out of this snapshot re-enters the queue when its
   * back-off ends: a cycle is due then, as at losd's wakeup, not only at the
   * next change or los_interval later. */
  for (uint32_t i = 0; i < cy->refused_count; ++i) {
    const time_t until = cy->refused[i].until;
    if (until > (time_t)snap.now && (!cy->wakeup || until < cy->wakeup)) cy->wakeup = until;
  }
  los_snapshot_free(&snap);
  los_snapshot_free(&fallback_only);
}
