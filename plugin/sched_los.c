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
 *
 * This file holds the plugin's entry points and its thread; the cycle is
 * slurmctld_cycle.c (slurmctld's side) and cycle.c (the logic between).
 */
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/slurmctld/slurmctld.h"

#include "conn.h"
#include "cycle.h"
#include "fallback.h"
#include "options.h"
#include "slurmctld_cycle.h"

const char plugin_name[] = "LOS scheduler plugin (decisions by losd)";
const char plugin_type[] = "sched/los";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The plugin's one state: the thread and what init, fini and reconfigure
 * tell it. The cycle's own state lives on the thread (los_agent). */
static struct {
  pthread_t thread;
  int thread_running;
  pthread_mutex_t mutex; /* guards the fields below */
  pthread_cond_t wake;
  int stop;
  int reconfig;
  struct los_options options;
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

/* ---- the scheduling thread -------------------------------------------- */

static void* los_agent(void* arg) {
  (void)arg;
  struct los_options o;
  struct los_cycle cycle; /* the thread's own: connection, seq, fallback episode, stamps seen */
  int64_t next_forced = 0;
  prctl(PR_SET_NAME, "sched_los", NULL, NULL, NULL);
  los_cycle_init(&cycle);
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
      if (strcmp(o.socket_path, los.options.socket_path)) los_conn_close(&cycle.conn); /* talk to the new losd */
      o = los.options;
    }
    pthread_mutex_unlock(&los.mutex);
    if (stop) break;
    /* as sched/backfill: nothing new while scheduling is off or slurmctld stops */
    if (slurmctld_config.scheduling_disabled || slurmctld_config.shutdown_time) continue;
    if (!los_slurmctld_cycle_due(&cycle, next_forced)) continue;
    los_slurmctld_cycle(&cycle, &o);
    next_forced = los_monotonic_ms() + (int64_t)o.interval_s * 1000;
  }
  los_cycle_free(&cycle);
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
  slurm_thread_create(&los.thread, los_agent, NULL);
  los.thread_running = 1;
  pthread_mutex_unlock(&los.mutex);
  info(
      "sched/los: loaded; losd socket %s, timeout %d ms, fallback %s, interval %d s, poll %d ms, "
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
