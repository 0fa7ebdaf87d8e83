/* See conn.h. Plain C + POSIX sockets. */
#define _GNU_SOURCE
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "protocol/los_protocol.h"

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
        los_set_err(err, errlen, "timed out sending to losd");
        return -1;
      }
      continue;
    }
    los_set_err(err, errlen, "send to losd failed: %s", strerror(errno));
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
      los_set_err(err, errlen, "losd closed the connection");
      return -1;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (wait_fd(fd, POLLIN, deadline)) {
        los_set_err(err, errlen, "no answer from losd within the timeout");
        return -1;
      }
      continue;
    }
    los_set_err(err, errlen, "receive from losd failed: %s", strerror(errno));
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
    los_set_err(err, errlen, "losd sent a frame with bad magic 0x%08x", h.magic);
    return -1;
  }
  if (h.version != LOS_PROTOCOL_VERSION) {
    los_set_err(err, errlen, "losd sent protocol version %u, the plugin speaks %u", h.version, LOS_PROTOCOL_VERSION);
    return -1;
  }
  if (h.payload_length > LOS_MAX_PAYLOAD) {
    los_set_err(err, errlen, "losd announced a %u-byte payload, above the limit", h.payload_length);
    return -1;
  }
  c->rx.len = 0;
  if (los_buf_reserve(&c->rx, h.payload_length ? h.payload_length : 1)) {
    los_set_err(err, errlen, "out of memory for a %u-byte frame", h.payload_length);
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
    if (send_failed) los_set_err(err, errlen, "%s", send_err);
    conn_fail(c, o);
    return -1;
  }
  if (type == LOS_MSG_ERROR) {
    los_decode_error(c->rx.data, c->rx.len, err, errlen);
    conn_fail(c, o);
    return -1;
  }
  if (type != want || rid != id) {
    los_set_err(err, errlen, "losd answered %s with message type %u (request %u, expected %u)", what, type, rid, id);
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
    los_set_err(err, errlen, "socket(): %s", strerror(errno));
    conn_fail(c, o);
    return -1;
  }
  if (connect(c->fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN) {
      los_set_err(err, errlen, "connect to %s: %s", o->socket_path, strerror(errno));
      conn_fail(c, o);
      return -1;
    }
    if (wait_fd(c->fd, POLLOUT, deadline)) {
      los_set_err(err, errlen, "connect to %s timed out", o->socket_path);
      conn_fail(c, o);
      return -1;
    }
  }
  uint32_t id = c->next_request++;
  c->tx.len = 0;
  if (los_encode_hello(&c->tx, id, cluster, slurm_version, "sched/los " LOS_PLUGIN_VERSION)) {
    los_set_err(err, errlen, "cannot encode HELLO (out of memory)");
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
    los_set_err(err, errlen, "not connected");
    return -1;
  }
  int64_t deadline = los_monotonic_ms() + o->timeout_ms;
  uint32_t id = c->next_request++;
  if (c->need_resync) s->flags |= LOS_SNAPSHOT_RESYNC;
  c->tx.len = 0;
  if (los_encode_snapshot(&c->tx, id, s)) {
    los_set_err(err, errlen, "cannot encode the snapshot (out of memory or above the protocol limit)");
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
    los_set_err(err, errlen, "losd answered snapshot %llu with decisions for %llu", (unsigned long long)s->seq,
                (unsigned long long)out->seq);
    los_decisions_free(out);
    conn_fail(c, o);
    return -1;
  }
  c->need_resync = 0;
  return 0;
}

void los_conn_report(struct los_conn* c, const struct los_options* o, uint8_t kind, const char* partition, uint64_t job,
                     const char* detail) {
  char err[128];
  if (c->fd < 0) return;
  c->tx.len = 0;
  if (los_encode_report(&c->tx, kind, partition, job, detail) ||
      send_all(c->fd, c->tx.data, c->tx.len, los_monotonic_ms() + o->timeout_ms, err, sizeof err)) {
    conn_fail(c, o);
  }
}

int los_conn_query_starts(struct los_conn* c, const struct los_options* o, struct los_predictions* out, char* err,
                          size_t errlen) {
  if (c->fd < 0) {
    los_set_err(err, errlen, "not connected");
    return -1;
  }
  int64_t deadline = los_monotonic_ms() + o->timeout_ms;
  uint32_t id = c->next_request++;
  c->tx.len = 0;
  if (los_encode_query_starts(&c->tx, id, "")) {
    los_set_err(err, errlen, "cannot encode QUERY_STARTS (out of memory)");
    conn_fail(c, o);
    return -1;
  }
  if (round_trip(c, o, deadline, LOS_MSG_STARTS, id, "QUERY_STARTS", err, errlen)) return -1;
  if (los_decode_starts(c->rx.data, c->rx.len, out, err, errlen)) {
    conn_fail(c, o);
    return -1;
  }
  return 0;
}
