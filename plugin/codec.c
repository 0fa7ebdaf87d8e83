/* See codec.h. */
#define _GNU_SOURCE
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "protocol/los_protocol.h"

void los_buf_free(struct los_buf* b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

int los_buf_reserve(struct los_buf* b, size_t more) {
  size_t need = b->len + more;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < need) cap *= 2;
  uint8_t* p = realloc(b->data, cap);
  if (!p) return -1;
  b->data = p;
  b->cap = cap;
  return 0;
}

static size_t clamp_str(const char* s) {
  size_t n = strlen(s);
  return n > LOS_MAX_STRING ? LOS_MAX_STRING : n;
}

/* Frame writer: reserves the header, fills the length at the end. */
struct frame {
  struct los_buf* b;
  size_t start;
  int failed;
};

static uint8_t* frame_room(struct frame* f, size_t n) {
  if (f->failed || los_buf_reserve(f->b, n)) {
    f->failed = 1;
    return NULL;
  }
  uint8_t* p = f->b->data + f->b->len;
  f->b->len += n;
  return p;
}
static void fu8(struct frame* f, uint8_t v) {
  uint8_t* p = frame_room(f, 1);
  if (p) los_put_u8(p, v);
}
static void fu16(struct frame* f, uint16_t v) {
  uint8_t* p = frame_room(f, 2);
  if (p) los_put_u16(p, v);
}
static void fu32(struct frame* f, uint32_t v) {
  uint8_t* p = frame_room(f, 4);
  if (p) los_put_u32(p, v);
}
static void fu64(struct frame* f, uint64_t v) {
  uint8_t* p = frame_room(f, 8);
  if (p) los_put_u64(p, v);
}
static void fi64(struct frame* f, int64_t v) { fu64(f, (uint64_t)v); }
static void fstr(struct frame* f, const char* s) {
  uint16_t n = (uint16_t)clamp_str(s);
  uint8_t* p = frame_room(f, los_str_size(n));
  if (p) los_put_str(p, s, n);
}

static void frame_begin(struct frame* f, struct los_buf* b) {
  f->b = b;
  f->start = b->len;
  f->failed = 0;
  frame_room(f, LOS_FRAME_HEADER_SIZE);
}

static int frame_end(struct frame* f, uint16_t type, uint32_t request_id) {
  if (f->failed) return -1;
  size_t payload = f->b->len - f->start - LOS_FRAME_HEADER_SIZE;
  if (payload > LOS_MAX_PAYLOAD) return -1;
  los_put_header(f->b->data + f->start, type, request_id, (uint32_t)payload);
  return 0;
}

int los_encode_hello(struct los_buf* out, uint32_t request_id, const char* cluster, const char* slurm_version,
                     const char* client) {
  struct frame f;
  frame_begin(&f, out);
  fu16(&f, LOS_PROTOCOL_VERSION);
  fstr(&f, cluster);
  fstr(&f, slurm_version);
  fstr(&f, client);
  return frame_end(&f, LOS_MSG_HELLO, request_id);
}

int los_encode_snapshot(struct los_buf* out, uint32_t request_id, const struct los_snapshot* s) {
  struct frame f;
  frame_begin(&f, out);
  fu64(&f, s->seq);
  fi64(&f, s->now);
  fu8(&f, s->flags);
  fu32(&f, s->partition_count);
  for (uint32_t i = 0; i < s->partition_count; ++i) {
    const struct los_partition* p = &s->partitions[i];
    fstr(&f, p->name);
    fu16(&f, p->time_slots);
    fu32(&f, p->node_count);
    for (uint32_t n = 0; n < p->node_count; ++n) {
      fstr(&f, p->nodes[n].name);
      fu8(&f, p->nodes[n].state);
    }
    fu32(&f, p->running_count);
    for (uint32_t r = 0; r < p->running_count; ++r) {
      const struct los_running* j = &p->running[r];
      fu64(&f, j->id);
      fu32(&f, j->user);
      fi64(&f, j->submit);
      fi64(&f, j->start);
      fi64(&f, j->limit);
      fu32(&f, j->size);
      fu8(&f, (uint8_t)((j->suspended ? LOS_RUNNING_SUSPENDED : 0) | (j->migratable ? LOS_RUNNING_MIGRATABLE : 0)));
      fu32(&f, j->node_count);
      for (uint32_t k = 0; k < j->node_count; ++k) fu32(&f, j->nodes[k]);
    }
    fu32(&f, p->pending_count);
    for (uint32_t q = 0; q < p->pending_count; ++q) {
      const struct los_pending* j = &p->pending[q];
      fu64(&f, j->id);
      fu32(&f, j->user);
      fi64(&f, j->submit);
      fu32(&f, j->size);
      fi64(&f, j->limit);
      fu32(&f, j->priority);
    }
  }
  return frame_end(&f, LOS_MSG_SNAPSHOT, request_id);
}

int los_encode_report(struct los_buf* out, uint8_t kind, const char* partition, uint64_t job, const char* detail) {
  struct frame f;
  frame_begin(&f, out);
  fu8(&f, kind);
  fstr(&f, partition);
  fu64(&f, job);
  fstr(&f, detail);
  return frame_end(&f, LOS_MSG_REPORT, 0);
}

static char* dup_n(const char* s, uint16_t n) {
  char* d = malloc((size_t)n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

int los_decode_decisions(const uint8_t* payload, size_t len, struct los_decisions* out, char* err, size_t errlen) {
  struct los_cursor c = {payload, payload + len, 0};
  uint32_t count;
  out->seq = los_get_u64(&c);
  out->wakeup = los_get_i64(&c);
  count = los_get_u32(&c);
  /* the same rules as losd's C++ decoder (docs/protocol.md, DECISIONS) */
  if (!c.failed && out->wakeup != LOS_START_UNKNOWN && (out->wakeup < 0 || out->wakeup > LOS_TIME_MAX)) {
    los_set_err(err, errlen, "DECISIONS: wakeup %lld is neither -1 nor in [0, 2^50 s]", (long long)out->wakeup);
    return -1;
  }
  /* each decision is at least 16 bytes: refuse counts the payload cannot hold */
  if (c.failed || (uint64_t)count * 16u > (uint64_t)(c.end - c.p)) {
    los_set_err(err, errlen, "DECISIONS: decision count %u does not fit the %zu-byte payload", count, len);
    return -1;
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t kind = los_get_u8(&c);
    uint8_t expected = los_get_u8(&c);
    uint16_t plen;
    const char* part = los_get_str(&c, &plen);
    uint64_t job = los_get_u64(&c);
    uint32_t nodes = los_get_u32(&c);
    if (c.failed) {
      los_set_err(err, errlen, "DECISIONS: decision %u truncated", i);
      return -1;
    }
    if (kind > LOS_DECIDE_REQUEUE || expected > LOS_JOB_SUSPENDED) {
      los_set_err(err, errlen, "DECISIONS: decision %u has unknown kind %u or job state %u", i, kind, expected);
      return -1;
    }
    if (memchr(part, '\0', plen)) {
      los_set_err(err, errlen, "DECISIONS: decision %u: partition name holds a NUL byte", i);
      return -1;
    }
    if (job > LOS_JOB_ID_MAX) {
      los_set_err(err, errlen, "DECISIONS: decision %u: job id %llu does not fit a signed 64-bit id", i,
                  (unsigned long long)job);
      return -1;
    }
    if ((uint64_t)nodes * 2u > (uint64_t)(c.end - c.p)) {
      los_set_err(err, errlen, "DECISIONS: decision %u names %u nodes, more than the payload holds", i, nodes);
      return -1;
    }
    char* pname = dup_n(part, plen);
    if (!pname) {
      los_set_err(err, errlen, "out of memory");
      return -1;
    }
    struct los_decision* d = los_decisions_add(out, kind, expected, pname, job, nodes);
    free(pname);
    if (!d) {
      los_set_err(err, errlen, "out of memory");
      return -1;
    }
    for (uint32_t n = 0; n < nodes; ++n) {
      uint16_t nlen;
      const char* name = los_get_str(&c, &nlen);
      if (c.failed || nlen == 0) {
        los_set_err(err, errlen, "DECISIONS: decision %u node %u truncated or empty", i, n);
        return -1;
      }
      if (memchr(name, '\0', nlen)) {
        los_set_err(err, errlen, "DECISIONS: decision %u node %u: name holds a NUL byte", i, n);
        return -1;
      }
      d->nodes[n] = dup_n(name, nlen);
      if (!d->nodes[n]) {
        los_set_err(err, errlen, "out of memory");
        return -1;
      }
    }
  }
  if (c.p != c.end) {
    los_set_err(err, errlen, "DECISIONS: %zu unexpected bytes after the end", (size_t)(c.end - c.p));
    return -1;
  }
  return 0;
}

int los_decode_hello_ok(const uint8_t* payload, size_t len, char* err, size_t errlen) {
  struct los_cursor c = {payload, payload + len, 0};
  uint16_t version = los_get_u16(&c), n;
  (void)los_get_str(&c, &n); /* daemon version */
  (void)los_get_str(&c, &n); /* cluster */
  (void)los_get_u32(&c);     /* max payload */
  if (c.failed || c.p != c.end) {
    los_set_err(err, errlen, "HELLO_OK: malformed (%zu bytes)", len);
    return -1;
  }
  if (version != LOS_PROTOCOL_VERSION) {
    los_set_err(err, errlen, "HELLO_OK: losd speaks protocol version %u, the plugin %u", version, LOS_PROTOCOL_VERSION);
    return -1;
  }
  return 0;
}

int los_decode_error(const uint8_t* payload, size_t len, char* err, size_t errlen) {
  struct los_cursor c = {payload, payload + len, 0};
  uint16_t code = los_get_u16(&c), n;
  const char* msg = los_get_str(&c, &n);
  if (c.failed || c.p != c.end) {
    los_set_err(err, errlen, "ERROR: malformed (%zu bytes)", len);
    return -1;
  }
  los_set_err(err, errlen, "losd answered error %u: %.*s", code, (int)n, msg);
  return 0;
}

/* ---- predicted starts (QUERY_STARTS / STARTS) ------------------------- */

void los_predictions_free(struct los_predictions* p) {
  for (uint32_t i = 0; i < p->count; ++i) free(p->items[i].partition);
  free(p->items);
  p->items = NULL;
  p->count = 0;
}

int los_encode_query_starts(struct los_buf* out, uint32_t request_id, const char* partition) {
  struct frame f;
  frame_begin(&f, out);
  fstr(&f, partition);
  return frame_end(&f, LOS_MSG_QUERY_STARTS, request_id);
}

int los_decode_starts(const uint8_t* payload, size_t len, struct los_predictions* out, char* err, size_t errlen) {
  struct los_cursor c = {payload, payload + len, 0};
  out->count = 0;
  out->items = NULL;
  uint32_t count = los_get_u32(&c);
  /* each entry is at least 35 bytes */
  if (c.failed || (uint64_t)count * 35u > (uint64_t)(c.end - c.p)) {
    los_set_err(err, errlen, "STARTS: job count %u does not fit the %zu-byte payload", count, len);
    return -1;
  }
  if (count && !(out->items = calloc(count, sizeof *out->items))) {
    los_set_err(err, errlen, "out of memory");
    return -1;
  }
  for (uint32_t i = 0; i < count; ++i) {
    struct los_predicted* p = &out->items[i];
    uint16_t plen;
    const char* part = los_get_str(&c, &plen);
    p->job = los_get_u64(&c);
    const uint32_t user = los_get_u32(&c);
    p->size = los_get_u32(&c);
    (void)los_get_i64(&c); /* submit */
    p->start = los_get_i64(&c);
    p->reserved = los_get_u8(&c);
    if (c.failed) {
      los_set_err(err, errlen, "STARTS: entry %u truncated", i);
      los_predictions_free(out);
      return -1;
    }
    /* The rules of losd's decoder, so both read the same message or refuse. */
    if (memchr(part, '\0', plen) || p->job > LOS_JOB_ID_MAX || user > INT32_MAX || p->size > INT32_MAX ||
        (p->start != LOS_START_UNKNOWN && (p->start < 0 || p->start > LOS_TIME_MAX))) {
      los_set_err(err, errlen,
                  "STARTS: entry %u: NUL in the partition name, or job id, user, size or start out of range", i);
      los_predictions_free(out);
      return -1;
    }
    out->count = i + 1;
    if (!(p->partition = dup_n(part, plen))) {
      los_set_err(err, errlen, "out of memory");
      los_predictions_free(out);
      return -1;
    }
  }
  if (c.p != c.end) {
    los_set_err(err, errlen, "STARTS: %zu unexpected bytes after the end", (size_t)(c.end - c.p));
    los_predictions_free(out);
    return -1;
  }
  return 0;
}
