/*
 * The Slurm-independent half of the sched/los plugin: the snapshot it takes,
 * the decisions it applies, the wire codec for both (common/protocol/
 * los_protocol.h), the connection to losd with deadlines and reconnect
 * backoff, the option parser and the fallback schedulers (fifo, easy) used
 * while losd is down, slow or answers garbage.
 *
 * Nothing here touches slurmctld, so it is unit-tested in plain processes
 * (plugin/tests); sched_los.c fills a snapshot under slurmctld's read locks
 * and applies decisions under its write locks.
 */
#ifndef LOS_PLUGIN_CORE_H
#define LOS_PLUGIN_CORE_H

#include <stddef.h>
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
  uint8_t flags; /* LOS_SNAPSHOT_RESYNC */
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

struct los_decision* los_decisions_add(struct los_decisions* d, uint8_t kind, uint8_t expected,
                                       const char* partition, uint64_t job, uint32_t node_count);
void los_decisions_free(struct los_decisions* d);

/* ---- wire codec ------------------------------------------------------- */

/* A growable byte buffer. */
struct los_buf {
  uint8_t* data;
  size_t len, cap;
};
void los_buf_free(struct los_buf* b);

/* Whole frames (header + payload) appended to out; 0 on success. */
int los_encode_hello(struct los_buf* out, uint32_t request_id, const char* cluster, const char* slurm_version,
                     const char* client);
int los_encode_snapshot(struct los_buf* out, uint32_t request_id, const struct los_snapshot* s);
int los_encode_report(struct los_buf* out, uint8_t kind, const char* partition, uint64_t job, const char* detail);

/* Payload decoders: 0 on success; otherwise -1 with a reason in err. */
int los_decode_decisions(const uint8_t* payload, size_t len, struct los_decisions* out, char* err, size_t errlen);
int los_decode_hello_ok(const uint8_t* payload, size_t len, char* err, size_t errlen);
int los_decode_error(const uint8_t* payload, size_t len, char* err, size_t errlen);

/* ---- options (SchedulerParameters) ------------------------------------ */

enum los_fallback { LOS_FALLBACK_EASY = 0, LOS_FALLBACK_FIFO = 1, LOS_FALLBACK_NONE = 2 };

struct los_options {
  char socket_path[108];    /* los_socket, default /run/los/plugin.sock */
  int timeout_ms;           /* los_timeout_ms, default 1000 */
  int fallback;             /* los_fallback, default easy */
  int interval_s;           /* los_interval, default 10: a cycle at least this often */
  int poll_ms;              /* los_poll_ms, default 100: how often submit/completion is noticed */
  int reconnect_max_ms;     /* los_reconnect_max_ms, default 30000: backoff cap */
  int has_sched_interval_off; /* sched_interval=-1 present */
};

void los_options_default(struct los_options* o);
/* Parses a SchedulerParameters string (comma separated key=value; keys not
 * starting with los_ are Slurm's and ignored). 0 on success; -1 with the
 * offending parameter and why in err. */
int los_options_parse(const char* params, struct los_options* o, char* err, size_t errlen);
const char* los_fallback_name(int fallback);

/* ---- the connection to losd ------------------------------------------- */

struct los_conn {
  int fd;                 /* -1: not connected */
  uint32_t next_request;
  int backoff_ms;         /* current reconnect delay */
  int64_t next_attempt_ms; /* monotonic ms before which no reconnect is tried */
  int need_resync;        /* the next snapshot carries LOS_SNAPSHOT_RESYNC */
  struct los_buf tx, rx;
};

void los_conn_init(struct los_conn* c);
void los_conn_close(struct los_conn* c);
void los_conn_free(struct los_conn* c);
int64_t los_monotonic_ms(void);

/* Connects (if not connected and the backoff allows it) and handshakes.
 * 0: connected; 1: waiting for the backoff; -1: failed (err says why; the
 * backoff doubled). */
int los_conn_ensure(struct los_conn* c, const struct los_options* o, const char* cluster, const char* slurm_version,
                    char* err, size_t errlen);

/* One round trip: sends the snapshot, waits at most o->timeout_ms for the
 * DECISIONS answering it. 0 on success; -1 (connection closed, backoff
 * armed, resync requested) with err saying why. */
int los_conn_exchange(struct los_conn* c, const struct los_options* o, struct los_snapshot* s,
                      struct los_decisions* out, char* err, size_t errlen);

/* Sends a REPORT (no reply); failures close the connection quietly. */
void los_conn_report(struct los_conn* c, const struct los_options* o, uint8_t kind, const char* partition,
                     uint64_t job, const char* detail);

/* ---- fallback schedulers ---------------------------------------------- */

/* Appends start decisions for every partition of s under `fallback`:
 * fifo starts queue jobs in order while the first one fits; easy also
 * backfills later jobs that do not delay the first blocked job's
 * reservation (EASY backfilling on the time limits). Nodes are chosen among
 * the idle nodes no running job holds. 0 on success, -1 out of memory. */
int los_fallback_decide(const struct los_snapshot* s, int fallback, struct los_decisions* out);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_CORE_H */
