/*
 * The LOS wire protocol: what the Slurm plugin, losd and losctl exchange.
 *
 * This header is plain C99 so the plugin inside slurmctld can include it; it
 * holds the constants, the frame layout and little-endian field encoders and
 * decoders that need no allocation. docs/protocol.md describes every message
 * byte by byte; common/protocol/codec.hpp is the C++ side.
 *
 * Frame = 16-byte header + payload. Every integer is little-endian.
 *   offset 0  u32 magic          LOS_PROTOCOL_MAGIC ("LOS1" on the wire)
 *   offset 4  u16 version        LOS_PROTOCOL_VERSION
 *   offset 6  u16 type           enum los_msg_type
 *   offset 8  u32 request_id     chosen by the requester, echoed in the reply
 *   offset 12 u32 payload_length bytes after the header, <= LOS_MAX_PAYLOAD
 */
#ifndef LOS_PROTOCOL_H
#define LOS_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOS_PROTOCOL_MAGIC 0x31534F4Cu /* bytes 'L' 'O' 'S' '1' */
#define LOS_PROTOCOL_VERSION 1u
#define LOS_FRAME_HEADER_SIZE 16u
/* Hard protocol bound on a payload; losd may be configured lower. */
#define LOS_MAX_PAYLOAD (64u * 1024u * 1024u)
/* Longest string field (names, versions, messages), bytes, no terminator. */
#define LOS_MAX_STRING 4096u

enum los_msg_type {
  /* handshake: first frame on every connection, any socket */
  LOS_MSG_HELLO = 1,    /* client -> losd */
  LOS_MSG_HELLO_OK = 2, /* losd -> client */
  LOS_MSG_ERROR = 3,    /* losd -> client: reply to a bad request */
  /* plugin socket */
  LOS_MSG_SNAPSHOT = 16,  /* plugin -> losd */
  LOS_MSG_DECISIONS = 17, /* losd -> plugin: the reply to a snapshot */
  LOS_MSG_REPORT = 18,    /* plugin -> losd: fallback / stale decision; no reply */
  /* query socket (read-only) and admin socket */
  LOS_MSG_QUERY_STATUS = 32,
  LOS_MSG_STATUS = 33,
  LOS_MSG_QUERY_PLAN = 34,
  LOS_MSG_PLAN = 35,
  LOS_MSG_QUERY_STARTS = 36,
  LOS_MSG_STARTS = 37,
  /* admin socket only */
  LOS_MSG_SET_POLICY = 48,
  LOS_MSG_SET_POLICY_OK = 49
};

enum los_error_code {
  LOS_ERR_MALFORMED = 1,    /* payload does not decode */
  LOS_ERR_VERSION = 2,      /* unsupported protocol version: connection closed */
  LOS_ERR_TOO_LARGE = 3,    /* payload_length above the limit: connection closed */
  LOS_ERR_UNKNOWN_TYPE = 4, /* message type unknown */
  LOS_ERR_NOT_ALLOWED = 5,  /* type not allowed on this socket (e.g. a change on the query socket) */
  LOS_ERR_HANDSHAKE = 6,    /* first frame not HELLO, or HELLO refused: connection closed */
  LOS_ERR_NOT_FOUND = 7,    /* no such partition */
  LOS_ERR_BAD_REQUEST = 8,  /* decodes but is invalid (bad policy spec, ...) */
  LOS_ERR_INTERNAL = 9,
  LOS_ERR_BAD_MAGIC = 10 /* not a LOS frame: connection closed */
};

/* Node state in a snapshot (u8). */
enum los_node_state { LOS_NODE_IDLE = 0, LOS_NODE_ALLOCATED = 1, LOS_NODE_DRAINED = 2, LOS_NODE_DOWN = 3 };

/* Decision kind (u8). */
enum los_decision_kind { LOS_DECIDE_START = 0, LOS_DECIDE_SUSPEND = 1, LOS_DECIDE_RESUME = 2, LOS_DECIDE_REQUEUE = 3 };

/* The job state a decision expects (u8): the plugin drops a decision whose
 * job is no longer in that state, or whose snapshot_seq is not the latest. */
enum los_job_state { LOS_JOB_PENDING = 0, LOS_JOB_RUNNING = 1, LOS_JOB_SUSPENDED = 2 };

/* Snapshot flags (u8). */
#define LOS_SNAPSHOT_RESYNC 0x01u   /* the plugin restarted or lost state: rebuild from scratch */
#define LOS_SNAPSHOT_FALLBACK 0x02u /* the plugin's previous cycle was decided by its fallback */
/* Slurm's PrivateData, which losd's query socket follows: */
#define LOS_SNAPSHOT_PRIVATE_JOBS 0x04u  /* PrivateData=jobs: a user sees only their own jobs */
#define LOS_SNAPSHOT_PRIVATE_USERS 0x08u /* PrivateData=users: other users' uids are hidden */
/* The user id in STARTS of a job whose owner PrivateData=users hides. */
#define LOS_USER_HIDDEN 0x7fffffffu

/* A running job's flags (u8; docs/protocol.md, SNAPSHOT). Before migration
 * this byte was "suspended" (0 or 1): the same bytes mean the same, and a
 * plugin that sends no MIGRATABLE bit has no job migrated. */
#define LOS_RUNNING_SUSPENDED 0x01u
/* The job opted in to migration: LOS may requeue it (Slurm sends SIGTERM,
 * SIGKILL KillWait seconds later) and restart it on other nodes
 * (docs/gang-live.md). */
#define LOS_RUNNING_MIGRATABLE 0x02u

/* Report kinds (u8). */
enum los_report_kind {
  LOS_REPORT_FALLBACK = 1,       /* the plugin scheduled without losd (timeout, losd down) */
  LOS_REPORT_STALE_DECISION = 2, /* a decision no longer applied and was dropped */
  LOS_REPORT_START_FAILED = 3    /* Slurm refused a start decision */
};

/* Predicted start "unknown" (the job can never fit, or beyond the horizon). */
#define LOS_START_UNKNOWN (-1)

/* The largest time or duration a decoder accepts: 2^50 s (about 35.7 million
 * years). Equal to kTimeMax in common/model/job.hpp (checked at compile time
 * in codec.cpp); it keeps the planner's sums far below its infinity, 2^61. */
#define LOS_TIME_MAX ((int64_t)1 << 50)
/* The largest job id on the wire: ids fit a signed 64-bit integer. */
#define LOS_JOB_ID_MAX ((uint64_t)INT64_MAX)

/* ---- field encoders: write at p, return p advanced ---------------------- */

static inline uint8_t* los_put_u8(uint8_t* p, uint8_t v) {
  p[0] = v;
  return p + 1;
}
static inline uint8_t* los_put_u16(uint8_t* p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  return p + 2;
}
static inline uint8_t* los_put_u32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
  return p + 4;
}
static inline uint8_t* los_put_u64(uint8_t* p, uint64_t v) {
  p = los_put_u32(p, (uint32_t)v);
  return los_put_u32(p, (uint32_t)(v >> 32));
}
static inline uint8_t* los_put_i64(uint8_t* p, int64_t v) { return los_put_u64(p, (uint64_t)v); }
/* A string: u16 length, then the bytes (no terminator). len <= LOS_MAX_STRING. */
static inline uint8_t* los_put_str(uint8_t* p, const char* s, uint16_t len) {
  p = los_put_u16(p, len);
  memcpy(p, s, len);
  return p + len;
}
/* Bytes los_put_str writes for a string of len bytes. */
static inline size_t los_str_size(size_t len) { return 2u + len; }

static inline uint8_t* los_put_header(uint8_t* p, uint16_t type, uint32_t request_id, uint32_t payload_length) {
  p = los_put_u32(p, LOS_PROTOCOL_MAGIC);
  p = los_put_u16(p, (uint16_t)LOS_PROTOCOL_VERSION);
  p = los_put_u16(p, type);
  p = los_put_u32(p, request_id);
  return los_put_u32(p, payload_length);
}

/* ---- field decoders: a cursor that refuses to read past its end --------- */

struct los_cursor {
  const uint8_t* p;
  const uint8_t* end;
  int failed; /* set once a read ran past the end; every later read yields 0 */
};

static inline int los_cursor_take(struct los_cursor* c, size_t n) {
  if (c->failed || (size_t)(c->end - c->p) < n) {
    c->failed = 1;
    return 0;
  }
  return 1;
}
static inline uint8_t los_get_u8(struct los_cursor* c) {
  if (!los_cursor_take(c, 1)) return 0;
  return *c->p++;
}
static inline uint16_t los_get_u16(struct los_cursor* c) {
  uint16_t v;
  if (!los_cursor_take(c, 2)) return 0;
  v = (uint16_t)(c->p[0] | (c->p[1] << 8));
  c->p += 2;
  return v;
}
static inline uint32_t los_get_u32(struct los_cursor* c) {
  uint32_t v;
  if (!los_cursor_take(c, 4)) return 0;
  v = (uint32_t)c->p[0] | ((uint32_t)c->p[1] << 8) | ((uint32_t)c->p[2] << 16) | ((uint32_t)c->p[3] << 24);
  c->p += 4;
  return v;
}
static inline uint64_t los_get_u64(struct los_cursor* c) {
  uint64_t lo = los_get_u32(c);
  uint64_t hi = los_get_u32(c);
  return lo | (hi << 32);
}
static inline int64_t los_get_i64(struct los_cursor* c) { return (int64_t)los_get_u64(c); }
/* A string in place: *len gets its length; the bytes are not terminated. */
static inline const char* los_get_str(struct los_cursor* c, uint16_t* len) {
  const char* s;
  *len = los_get_u16(c);
  if (*len > LOS_MAX_STRING || !los_cursor_take(c, *len)) {
    c->failed = 1;
    *len = 0;
    return "";
  }
  s = (const char*)c->p;
  c->p += *len;
  return s;
}

/* The header fields of a frame. */
struct los_frame_header {
  uint32_t magic;
  uint16_t version;
  uint16_t type;
  uint32_t request_id;
  uint32_t payload_length;
};

static inline struct los_frame_header los_get_header(const uint8_t* p) {
  struct los_cursor c = {p, p + LOS_FRAME_HEADER_SIZE, 0};
  struct los_frame_header h;
  h.magic = los_get_u32(&c);
  h.version = los_get_u16(&c);
  h.type = los_get_u16(&c);
  h.request_id = los_get_u32(&c);
  h.payload_length = los_get_u32(&c);
  return h;
}

#ifdef __cplusplus
}
#endif

#endif /* LOS_PROTOCOL_H */
