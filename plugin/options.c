/* See options.h. */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fallback.h"

void los_options_default(struct los_options* o) {
  memset(o, 0, sizeof *o);
  snprintf(o->socket_path, sizeof o->socket_path, "%s", "/run/los/plugin.sock");
  o->timeout_ms = 1000;
  o->fallback = LOS_FALLBACK_EASY;
  o->interval_s = 10;
  o->poll_ms = 100;
  o->reconnect_max_ms = 30000;
  snprintf(o->query_socket, sizeof o->query_socket, "%s", "/run/los/query.sock");
  o->retry_s = 30;
  o->has_sched_interval_off = 0;
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
  los_set_err(err, errlen, "SchedulerParameters %s=%.*s: expected an integer in [%ld, %ld]", key, (int)vlen, v, lo, hi);
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
        los_set_err(err, errlen, "SchedulerParameters %s: expected %s=VALUE", key, key);
        return -1;
      }
      if (!strcmp(key, "los_socket")) {
        if (vlen == 0 || vlen >= sizeof o->socket_path || v[0] != '/') {
          los_set_err(err, errlen,
                      "SchedulerParameters los_socket=%.*s: expected an absolute path of at most %zu bytes", (int)vlen,
                      v, sizeof o->socket_path - 1);
          return -1;
        }
        memcpy(o->socket_path, v, vlen);
        o->socket_path[vlen] = '\0';
      } else if (!strcmp(key, "los_query_socket")) {
        if (vlen == 4 && !strncmp(v, "none", 4)) {
          o->query_socket[0] = '\0';
        } else if (vlen == 0 || vlen >= sizeof o->query_socket || v[0] != '/') {
          los_set_err(err, errlen,
                      "SchedulerParameters los_query_socket=%.*s: expected none or an absolute path of at most %zu "
                      "bytes",
                      (int)vlen, v, sizeof o->query_socket - 1);
          return -1;
        } else {
          memcpy(o->query_socket, v, vlen);
          o->query_socket[vlen] = '\0';
        }
      } else if (!strcmp(key, "los_retry_s")) {
        if (parse_int(key, v, vlen, 1, 3600, &o->retry_s, err, errlen)) return -1;
      } else if (!strcmp(key, "los_timeout_ms")) {
        if (parse_int(key, v, vlen, 1, 600000, &o->timeout_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_interval")) {
        if (parse_int(key, v, vlen, 1, 86400, &o->interval_s, err, errlen)) return -1;
      } else if (!strcmp(key, "los_poll_ms")) {
        if (parse_int(key, v, vlen, 10, 60000, &o->poll_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_reconnect_max_ms")) {
        if (parse_int(key, v, vlen, 100, 3600000, &o->reconnect_max_ms, err, errlen)) return -1;
      } else if (!strcmp(key, "los_fallback")) {
        if (vlen == 4 && !strncmp(v, "easy", 4))
          o->fallback = LOS_FALLBACK_EASY;
        else if (vlen == 4 && !strncmp(v, "fifo", 4))
          o->fallback = LOS_FALLBACK_FIFO;
        else if (vlen == 4 && !strncmp(v, "none", 4))
          o->fallback = LOS_FALLBACK_NONE;
        else {
          los_set_err(err, errlen, "SchedulerParameters los_fallback=%.*s: expected easy, fifo or none", (int)vlen, v);
          return -1;
        }
      } else {
        los_set_err(err, errlen,
                    "SchedulerParameters %s: unknown sched/los parameter (known: los_socket, los_timeout_ms, "
                    "los_fallback, los_interval, los_poll_ms, los_reconnect_max_ms, los_query_socket, los_retry_s)",
                    key);
        return -1;
      }
    }
    p = end ? end + 1 : p + len;
  }
  return 0;
}
