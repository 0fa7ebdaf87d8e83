/* See los_core.h. Plain C99 + POSIX; no Slurm headers. */
#define _GNU_SOURCE
#include "los_core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "protocol/los_protocol.h"

static void set_err(char* err, size_t errlen, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char* err, size_t errlen, const char* fmt, ...) {
  va_list ap;
  if (!err || !errlen) return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Grows *items (of `size` bytes each) so that one more fits; 0 on success. */
static int grow(void** items, uint32_t count, uint32_t* cap, size_t size) {
  if (count < *cap) return 0;
  uint32_t next = *cap ? *cap * 2 : 8;
  void* p = realloc(*items, (size_t)next * size);
  if (!p) return -1;
  *items = p;
  *cap = next;
  return 0;
}

/* ---- snapshot --------------------------------------------------------- */

struct los_partition* los_snapshot_add_partition(struct los_snapshot* s, const char* name) {
  struct los_partition* p;
  if (grow((void**)&s->partitions, s->partition_count, &s->partition_cap, sizeof *s->partitions)) return NULL;
  p = &s->partitions[s->partition_count];
  memset(p, 0, sizeof *p);
  p->name = strdup(name);
  if (!p->name) return NULL;
  s->partition_count++;
  return p;
}

int los_partition_add_node(struct los_partition* p, const char* name, uint8_t state) {
  if (grow((void**)&p->nodes, p->node_count, &p->node_cap, sizeof *p->nodes)) return -1;
  p->nodes[p->node_count].name = strdup(name);
  if (!p->nodes[p->node_count].name) return -1;
  p->nodes[p->node_count].state = state;
  p->node_count++;
  return 0;
}

struct los_running* los_partition_add_running(struct los_partition* p, uint32_t node_count) {
  struct los_running* r;
  if (grow((void**)&p->running, p->running_count, &p->running_cap, sizeof *p->running)) return NULL;
  r = &p->running[p->running_count];
  memset(r, 0, sizeof *r);
  if (node_count) {
    r->nodes = calloc(node_count, sizeof *r->nodes);
    if (!r->nodes) return NULL;
  }
  r->node_count = node_count;
  p->running_count++;
  return r;
}

struct los_pending* los_partition_add_pending(struct los_partition* p) {
  struct los_pending* j;
  if (grow((void**)&p->pending, p->pending_count, &p->pending_cap, sizeof *p->pending)) return NULL;
  j = &p->pending[p->pending_count++];
  memset(j, 0, sizeof *j);
  return j;
}

static int queue_order(const void* a, const void* b) {
  const struct los_pending* x = a;
  const struct los_pending* y = b;
  if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
  if (x->submit != y->submit) return x->submit < y->submit ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return 0;
}

void los_partition_sort_queue(struct los_partition* p) {
  if (p->pending_count > 1) qsort(p->pending, p->pending_count, sizeof *p->pending, queue_order);
}

void los_snapshot_free(struct los_snapshot* s) {
  for (uint32_t i = 0; i < s->partition_count; ++i) {
    struct los_partition* p = &s->partitions[i];
    free(p->name);
    for (uint32_t n = 0; n < p->node_count; ++n) free(p->nodes[n].name);
    free(p->nodes);
    for (uint32_t r = 0; r < p->running_count; ++r) free(p->running[r].nodes);
    free(p->running);
    free(p->pending);
  }
  free(s->partitions);
  s->partitions = NULL;
  s->partition_count = s->partition_cap = 0;
}

/* ---- decisions -------------------------------------------------------- */

struct los_decision* los_decisions_add(struct los_decisions* d, uint8_t kind, uint8_t expected,
                                       const char* partition, uint64_t job, uint32_t node_count) {
  struct los_decision* x;
  if (grow((void**)&d->items, d->count, &d->cap, sizeof *d->items)) return NULL;
  x = &d->items[d->count];
  memset(x, 0, sizeof *x);
  x->kind = kind;
  x->expected = expected;
  x->job = job;
  x->partition = strdup(partition);
  if (!x->partition) return NULL;
  if (node_count) {
    x->nodes = calloc(node_count, sizeof *x->nodes);
    if (!x->nodes) {
      free(x->partition);
      return NULL;
    }
  }
  x->node_count = node_count;
  d->count++;
  return x;
}

void los_decisions_free(struct los_decisions* d) {
  for (uint32_t i = 0; i < d->count; ++i) {
    free(d->items[i].partition);
    for (uint32_t n = 0; n < d->items[i].node_count; ++n) free(d->items[i].nodes[n]);
    free(d->items[i].nodes);
  }
  free(d->items);
  d->items = NULL;
  d->count = d->cap = 0;
}

/* ---- wire codec ------------------------------------------------------- */

void los_buf_free(struct los_buf* b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static int buf_reserve(struct los_buf* b, size_t more) {
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
  if (f->failed || buf_reserve(f->b, n)) {
    f->failed = 1;
    return NULL;
  }
  uint8_t* p = f->b->data + f->b->len;
  f->b->len += n;
  return p;
}
static void fu8(struct frame* f, uint8_t v) { uint8_t* p = frame_room(f, 1); if (p) los_put_u8(p, v); }
static void fu16(struct frame* f, uint16_t v) { uint8_t* p = frame_room(f, 2); if (p) los_put_u16(p, v); }
static void fu32(struct frame* f, uint32_t v) { uint8_t* p = frame_room(f, 4); if (p) los_put_u32(p, v); }
static void fu64(struct frame* f, uint64_t v) { uint8_t* p = frame_room(f, 8); if (p) los_put_u64(p, v); }
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
      fu8(&f, j->suspended);
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
  /* each decision is at least 16 bytes: refuse counts the payload cannot hold */
  if (c.failed || (uint64_t)count * 16u > (uint64_t)(c.end - c.p)) {
    set_err(err, errlen, "DECISIONS: decision count %u does not fit the %zu-byte payload", count, len);
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
      set_err(err, errlen, "DECISIONS: decision %u truncated", i);
      return -1;
    }
    if (kind > LOS_DECIDE_REQUEUE || expected > LOS_JOB_SUSPENDED) {
      set_err(err, errlen, "DECISIONS: decision %u has unknown kind %u or job state %u", i, kind, expected);
      return -1;
    }
    if ((uint64_t)nodes * 2u > (uint64_t)(c.end - c.p)) {
      set_err(err, errlen, "DECISIONS: decision %u names %u nodes, more than the payload holds", i, nodes);
      return -1;
    }
    char* pname = dup_n(part, plen);
    if (!pname) return -1;
    struct los_decision* d = los_decisions_add(out, kind, expected, pname, job, nodes);
    free(pname);
    if (!d) {
      set_err(err, errlen, "out of memory");
      return -1;
    }
    for (uint32_t n = 0; n < nodes; ++n) {
      uint16_t nlen;
      const char* name = los_get_str(&c, &nlen);
      if (c.failed || nlen == 0) {
        set_err(err, errlen, "DECISIONS: decision %u node %u truncated or empty", i, n);
        return -1;
      }
      d->nodes[n] = dup_n(name, nlen);
      if (!d->nodes[n]) return -1;
    }
  }
  if (c.p != c.end) {
    set_err(err, errlen, "DECISIONS: %zu unexpected bytes after the end", (size_t)(c.end - c.p));
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
    set_err(err, errlen, "HELLO_OK: malformed (%zu bytes)", len);
    return -1;
  }
  if (version != LOS_PROTOCOL_VERSION) {
    set_err(err, errlen, "HELLO_OK: losd speaks protocol version %u, the plugin %u", version, LOS_PROTOCOL_VERSION);
    return -1;
  }
  return 0;
}

int los_decode_error(const uint8_t* payload, size_t len, char* err, size_t errlen) {
  struct los_cursor c = {payload, payload + len, 0};
  uint16_t code = los_get_u16(&c), n;
  const char* msg = los_get_str(&c, &n);
  if (c.failed) {
    set_err(err, errlen, "ERROR: malformed (%zu bytes)", len);
    return -1;
  }
  set_err(err, errlen, "losd answered error %u: %.*s", code, (int)n, msg);
  return 0;
}

/* ---- options ---------------------------------------------------------- */

void los_options_default(struct los_options* o) {
  memset(o, 0, sizeof *o);
  snprintf(o->socket_path, sizeof o->socket_path, "%s", "/run/los/plugin.sock");
  o->timeout_ms = 1000;
  o->fallback = LOS_FALLBACK_EASY;
  o->interval_s = 10;
  o->poll_ms = 100;
  o->reconnect_max_ms = 30000;
  o->has_sched_interval_off = 0;
}

const char* los_fallback_name(int fallback) {
  switch (fallback) {
    case LOS_FALLBACK_EASY: return "easy";
    case LOS_FALLBACK_FIFO: return "fifo";
    case LOS_FALLBACK_NONE: return "none";
  }
  return "?";
}

static int parse_int(const char* key, const char* v, size_t vlen, long lo, long hi, int* out, char* err,
                     size_t errlen) {
  char tmp[32];
  char* end;
  long x;
  if (vlen == 0 || vlen >= sizeof tmp) goto bad;
  memcpy(tmp, v, vlen);
  tmp[vlen] = '\0';
  errno = 0;
  x = strtol(tmp, &end, 10);
  if (errno || *end != '\0' || x < lo || x > hi) goto bad;
  *out = (int)x;
  return 0;
bad:
  set_err(err, errlen, "SchedulerParameters %s=%.*s: expected an integer in [%ld, %ld]", key, (int)vlen, v, lo, hi);
  return -1;
}

int los_options_parse(const char* params, struct los_options* o, char* err, size_t errlen) {
  const char* p = params ? params : "";
  while (*p) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char* eq = memchr(p, '=', len);
    size_t klen = eq ? (size_t)(eq - p) : len;
    const char* v = eq ? eq + 1 : p + len;
    size_t vlen = eq ? len - klen - 1 : 0;
    char key[64];
    if (klen < sizeof key) {
      memcpy(key, p, klen);
      key[klen] = '\0';
    } else {
      key[0] = '\0';
    }
    if (!strcmp(key, "sched_interval")) {
      o->has_sched_interval_off = (vlen == 2 && !strncmp(v, "-1", 2));
    } else if (!strncmp(key, "los_", 4)) {
      if (!eq) {
        set_err(err, errlen, "SchedulerParameters %s: expected %s=VALUE", key, key);
        return -1;
      }
      if (!strcmp(key, "los_socket")) {
        if (vlen == 0 || vlen >= sizeof o->socket_path || v[0] != '/') {
          set_err(err, errlen, "SchedulerParameters los_socket=%.*s: expected an absolute path of at most %zu bytes",
                  (int)vlen, v, sizeof o->socket_path - 1);
          return -1;
        }
        memcpy(o->socket_path, v, vlen);
        o->socket_path[vlen] = '\0';
      } else if (!strcmp(key, "los_timeout_ms")) {
        if (parse_int(key, v, vlen, 1, 600000, &o->timeout_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_interval")) {
        if (parse_int(key, v, vlen, 1, 86400, &o->interval_s, err, errlen)) return -1;
      } else if (!strcmp(key, "los_poll_ms")) {
        if (parse_int(key, v, vlen, 10, 60000, &o->poll_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_reconnect_max_ms")) {
        if (parse_int(key, v, vlen, 100, 3600000, &o->reconnect_max_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_fallback")) {
        if (vlen == 4 && !strncmp(v, "easy", 4)) o->fallback = LOS_FALLBACK_EASY;
        else if (vlen == 4 && !strncmp(v, "fifo", 4)) o->fallback = LOS_FALLBACK_FIFO;
        else if (vlen == 4 && !strncmp(v, "none", 4)) o->fallback = LOS_FALLBACK_NONE;
        else {
          set_err(err, errlen, "SchedulerParameters los_fallback=%.*s: expected easy, fifo or none", (int)vlen, v);
          return -1;
        }
      } else {
        set_err(err, errlen,
                "SchedulerParameters %s: unknown sched/los parameter (known: los_socket, los_timeout_ms, "
                "los_fallback, los_interval, los_poll_ms, los_reconnect_max_ms)",
                key);
        return -1;
      }
    }
    p = end ? end + 1 : p + len;
  }
  return 0;
}

/* ---- connection ------------------------------------------------------- */

int64_t los_monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void los_conn_init(struct los_conn* c) {
  memset(c, 0, sizeof *c);
  c->fd = -1;
  c->next_request = 1;
  c->need_resync = 1;
}

void los_conn_close(struct los_conn* c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  c->need_resync = 1;
}

void los_conn_free(struct los_conn* c) {
  los_conn_close(c);
  los_buf_free(&c->tx);
  los_buf_free(&c->rx);
}

/* Closes and arms the reconnect backoff (doubling up to the cap). */
static void conn_fail(struct los_conn* c, const struct los_options* o) {
  los_conn_close(c);
  c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : 250;
  if (c->backoff_ms > o->reconnect_max_ms) c->backoff_ms = o->reconnect_max_ms;
  c->next_attempt_ms = los_monotonic_ms() + c->backoff_ms;
}

/* Waits for fd to become ready for `events` until deadline; 0 ready, -1 timeout/error. */
static int wait_fd(int fd, short events, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - los_monotonic_ms();
    if (left <= 0) return -1;
    struct pollfd pfd = {fd, events, 0};
    int r = poll(&pfd, 1, (int)left);
    if (r > 0) return (pfd.revents & (events | POLLHUP | POLLERR)) ? 0 : -1;
    if (r == 0) return -1;
    if (errno != EINTR) return -1;
  }
}

static int send_all(int fd, const uint8_t* p, size_t n, int64_t deadline, char* err, size_t errlen) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      p += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (wait_fd(fd, POLLOUT, deadline)) {
        set_err(err, errlen, "timed out sending to losd");
        return -1;
      }
      continue;
    }
    set_err(err, errlen, "send to losd failed: %s", strerror(errno));
    return -1;
  }
  return 0;
}

static int recv_all(int fd, uint8_t* p, size_t n, int64_t deadline, char* err, size_t errlen) {
  while (n) {
    ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
    if (r > 0) {
      p += r;
      n -= (size_t)r;
      continue;
    }
    if (r == 0) {
      set_err(err, errlen, "losd closed the connection");
      return -1;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (wait_fd(fd, POLLIN, deadline)) {
        set_err(err, errlen, "no answer from losd within the timeout");
        return -1;
      }
      continue;
    }
    set_err(err, errlen, "receive from losd failed: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* Reads one frame into c->rx (payload only); fills *type and *request_id. */
static int recv_frame(struct los_conn* c, int64_t deadline, uint16_t* type, uint32_t* request_id, char* err,
                      size_t errlen) {
  uint8_t head[LOS_FRAME_HEADER_SIZE];
  if (recv_all(c->fd, head, sizeof head, deadline, err, errlen)) return -1;
  struct los_frame_header h = los_get_header(head);
  if (h.magic != LOS_PROTOCOL_MAGIC) {
    set_err(err, errlen, "losd sent a frame with bad magic 0x%08x", h.magic);
    return -1;
  }
  if (h.version != LOS_PROTOCOL_VERSION) {
    set_err(err, errlen, "losd sent protocol version %u, the plugin speaks %u", h.version, LOS_PROTOCOL_VERSION);
    return -1;
  }
  if (h.payload_length > LOS_MAX_PAYLOAD) {
    set_err(err, errlen, "losd announced a %u-byte payload, above the limit", h.payload_length);
    return -1;
  }
  c->rx.len = 0;
  if (buf_reserve(&c->rx, h.payload_length ? h.payload_length : 1)) {
    set_err(err, errlen, "out of memory for a %u-byte frame", h.payload_length);
    return -1;
  }
  if (recv_all(c->fd, c->rx.data, h.payload_length, deadline, err, errlen)) return -1;
  c->rx.len = h.payload_length;
  *type = h.type;
  *request_id = h.request_id;
  return 0;
}

/* Sends c->tx (request `id`) and reads the reply into c->rx. 0 when the reply
 * is a `want` frame answering `id`; otherwise the connection is dropped, err
 * says why (losd's own ERROR text when it sent one) and -1 is returned. */
static int round_trip(struct los_conn* c, const struct los_options* o, int64_t deadline, uint16_t want, uint32_t id,
                      const char* what, char* err, size_t errlen) {
  uint16_t type;
  uint32_t rid;
  /* losd may refuse a connection (a uid it does not allow) and close it
   * before the request is written: its ERROR is then still waiting to be
   * read, and says more than the failed send. */
  char send_err[256] = "";
  const int send_failed = send_all(c->fd, c->tx.data, c->tx.len, deadline, send_err, sizeof send_err);
  if (recv_frame(c, deadline, &type, &rid, err, errlen)) {
    if (send_failed) set_err(err, errlen, "%s", send_err);
    conn_fail(c, o);
    return -1;
  }
  if (type == LOS_MSG_ERROR) {
    los_decode_error(c->rx.data, c->rx.len, err, errlen);
    conn_fail(c, o);
    return -1;
  }
  if (type != want || rid != id) {
    set_err(err, errlen, "losd answered %s with message type %u (request %u, expected %u)", what, type, rid, id);
    conn_fail(c, o);
    return -1;
  }
  return 0;
}

int los_conn_ensure(struct los_conn* c, const struct los_options* o, const char* cluster, const char* slurm_version,
                    char* err, size_t errlen) {
  if (c->fd >= 0) return 0;
  if (los_monotonic_ms() < c->next_attempt_ms) return 1;
  int64_t deadline = los_monotonic_ms() + o->timeout_ms;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", o->socket_path);
  c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (c->fd < 0) {
    set_err(err, errlen, "socket(): %s", strerror(errno));
    conn_fail(c, o);
    return -1;
  }
  if (connect(c->fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN) {
      set_err(err, errlen, "connect to %s: %s", o->socket_path, strerror(errno));
      conn_fail(c, o);
      return -1;
    }
    if (wait_fd(c->fd, POLLOUT, deadline)) {
      set_err(err, errlen, "connect to %s timed out", o->socket_path);
      conn_fail(c, o);
      return -1;
    }
  }
  uint32_t id = c->next_request++;
  c->tx.len = 0;
  if (los_encode_hello(&c->tx, id, cluster, slurm_version, "sched/los " LOS_PLUGIN_VERSION)) {
    set_err(err, errlen, "cannot encode HELLO (out of memory)");
    conn_fail(c, o);
    return -1;
  }
  if (round_trip(c, o, deadline, LOS_MSG_HELLO_OK, id, "HELLO", err, errlen)) return -1;
  if (los_decode_hello_ok(c->rx.data, c->rx.len, err, errlen)) {
    conn_fail(c, o);
    return -1;
  }
  c->backoff_ms = 0;
  c->need_resync = 1;
  return 0;
}

int los_conn_exchange(struct los_conn* c, const struct los_options* o, struct los_snapshot* s,
                      struct los_decisions* out, char* err, size_t errlen) {
  if (c->fd < 0) {
    set_err(err, errlen, "not connected");
    return -1;
  }
  int64_t deadline = los_monotonic_ms() + o->timeout_ms;
  uint32_t id = c->next_request++;
  if (c->need_resync) s->flags |= LOS_SNAPSHOT_RESYNC;
  c->tx.len = 0;
  if (los_encode_snapshot(&c->tx, id, s)) {
    set_err(err, errlen, "cannot encode the snapshot (out of memory or above the protocol limit)");
    conn_fail(c, o);
    return -1;
  }
  if (round_trip(c, o, deadline, LOS_MSG_DECISIONS, id, "the snapshot", err, errlen)) return -1;
  if (los_decode_decisions(c->rx.data, c->rx.len, out, err, errlen)) {
    los_decisions_free(out);
    conn_fail(c, o);
    return -1;
  }
  if (out->seq != s->seq) {
    set_err(err, errlen, "losd answered snapshot %llu with decisions for %llu", (unsigned long long)s->seq,
            (unsigned long long)out->seq);
    los_decisions_free(out);
    conn_fail(c, o);
    return -1;
  }
  c->need_resync = 0;
  return 0;
}

void los_conn_report(struct los_conn* c, const struct los_options* o, uint8_t kind, const char* partition,
                     uint64_t job, const char* detail) {
  char err[128];
  if (c->fd < 0) return;
  c->tx.len = 0;
  if (los_encode_report(&c->tx, kind, partition, job, detail) ||
      send_all(c->fd, c->tx.data, c->tx.len, los_monotonic_ms() + o->timeout_ms, err, sizeof err)) {
    conn_fail(c, o);
  }
}

/* ---- fallback --------------------------------------------------------- */

struct release {
  int64_t end;
  uint32_t usable_nodes; /* nodes of the job that come back usable */
};

static int release_order(const void* a, const void* b) {
  const struct release* x = a;
  const struct release* y = b;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* Marks `size` free nodes taken and names them in d; 0 on success. */
static int take_nodes(const struct los_partition* p, char* free_node, uint32_t size, struct los_decision* d) {
  uint32_t k = 0;
  for (uint32_t n = 0; n < p->node_count && k < size; ++n) {
    if (!free_node[n]) continue;
    d->nodes[k] = strdup(p->nodes[n].name);
    if (!d->nodes[k]) return -1;
    free_node[n] = 0;
    ++k;
  }
  return k == size ? 0 : -1;
}

static int fallback_partition(const struct los_partition* p, int64_t now, int fallback, struct los_decisions* out) {
  int rc = -1;
  char* free_node = calloc(p->node_count ? p->node_count : 1, 1);
  /* running jobs, plus the jobs this step starts (they end by their limits too) */
  struct release* rel = calloc((size_t)p->running_count + p->pending_count + 1, sizeof *rel);
  if (!free_node || !rel) goto done;
  uint32_t usable = 0, free_count = 0;
  for (uint32_t n = 0; n < p->node_count; ++n) {
    uint8_t st = p->nodes[n].state;
    if (st == LOS_NODE_IDLE || st == LOS_NODE_ALLOCATED) ++usable;
    free_node[n] = st == LOS_NODE_IDLE;
  }
  uint32_t rel_count = 0;
  for (uint32_t r = 0; r < p->running_count; ++r) {
    const struct los_running* j = &p->running[r];
    uint32_t back = 0;
    for (uint32_t k = 0; k < j->node_count; ++k) {
      uint32_t n = j->nodes[k];
      if (n >= p->node_count) continue;
      free_node[n] = 0; /* suspended jobs keep their nodes too */
      if (p->nodes[n].state == LOS_NODE_IDLE || p->nodes[n].state == LOS_NODE_ALLOCATED) ++back;
    }
    int64_t end = j->start + j->limit;
    rel[rel_count].end = end < now ? now : end;
    rel[rel_count].usable_nodes = back;
    ++rel_count;
  }
  for (uint32_t n = 0; n < p->node_count; ++n) free_count += free_node[n] ? 1u : 0u;

  int reserved = 0;      /* the first blocked job has its reservation */
  int64_t shadow = 0;    /* its reserved start */
  uint32_t extra = 0;    /* nodes free at the shadow time beyond what it needs */
  for (uint32_t q = 0; q < p->pending_count; ++q) {
    const struct los_pending* j = &p->pending[q];
    if (j->size > usable) continue; /* can never run here: do not let it block the queue */
    if (!reserved) {
      if (j->size <= free_count) goto start;
      if (fallback == LOS_FALLBACK_FIFO) break;
      /* the head is blocked: reserve the earliest time enough nodes come back */
      qsort(rel, rel_count, sizeof *rel, release_order);
      uint32_t avail = free_count;
      shadow = INT64_MAX;
      for (uint32_t r = 0; r < rel_count; ++r) {
        avail += rel[r].usable_nodes;
        if (avail >= j->size) {
          shadow = rel[r].end;
          break;
        }
      }
      if (shadow == INT64_MAX) break; /* nothing known frees enough nodes: keep the order */
      extra = avail - j->size;
      reserved = 1;
      continue;
    }
    /* backfill: fits now, and either ends before the shadow time or uses only extra nodes */
    if (j->size > free_count) continue;
    if (now + j->limit <= shadow) goto start;
    if (j->size <= extra) {
      extra -= j->size;
      goto start;
    }
    continue;
  start : {
    struct los_decision* d = los_decisions_add(out, LOS_DECIDE_START, LOS_JOB_PENDING, p->name, j->id, j->size);
    if (!d || take_nodes(p, free_node, j->size, d)) goto done;
    free_count -= j->size;
    rel[rel_count].end = now + j->limit;
    rel[rel_count].usable_nodes = j->size;
    ++rel_count;
  }
  }
  rc = 0;
done:
  free(free_node);
  free(rel);
  return rc;
}

int los_fallback_decide(const struct los_snapshot* s, int fallback, struct los_decisions* out) {
  out->seq = s->seq;
  if (fallback == LOS_FALLBACK_NONE) return 0;
  for (uint32_t i = 0; i < s->partition_count; ++i) {
    if (fallback_partition(&s->partitions[i], s->now, fallback, out)) return -1;
  }
  return 0;
}
