/*
 * The connection to losd: a Unix socket, a HELLO handshake, one
 * SNAPSHOT -> DECISIONS round trip per cycle under a deadline, REPORTs
 * without reply, and a doubling reconnect backoff after any failure.
 */
#ifndef LOS_PLUGIN_CONN_H
#define LOS_PLUGIN_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "options.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct los_conn {
  int fd; /* -1: not connected */
  uint32_t next_request;
  int backoff_ms;          /* current reconnect delay */
  int64_t next_attempt_ms; /* monotonic ms before which no reconnect is tried */
  int need_resync;         /* the next snapshot carries LOS_SNAPSHOT_RESYNC */
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

/* One QUERY_STARTS -> STARTS round trip (every partition) on a connection
 * to losd's query socket; same failure rules as los_conn_exchange. */
int los_conn_query_starts(struct los_conn* c, const struct los_options* o, struct los_predictions* out, char* err,
                          size_t errlen);

/* Sends a REPORT (no reply); failures close the connection quietly. */
void los_conn_report(struct los_conn* c, const struct los_options* o, uint8_t kind, const char* partition, uint64_t job,
                     const char* detail);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_CONN_H */
