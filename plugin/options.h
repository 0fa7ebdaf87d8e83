/*
 * The sched/los keys of SchedulerParameters (docs/plugin.md lists them):
 * their defaults and the parser that checks them.
 */
#ifndef LOS_PLUGIN_OPTIONS_H
#define LOS_PLUGIN_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct los_options {
  char socket_path[108];      /* los_socket, default /run/los/plugin.sock */
  int timeout_ms;             /* los_timeout_ms, default 1000 */
  int fallback;               /* los_fallback, default easy: enum los_fallback (fallback.h) */
  int interval_s;             /* los_interval, default 10: a cycle at least this often */
  int poll_ms;                /* los_poll_ms, default 100: how often submit/completion is noticed */
  int reconnect_max_ms;       /* los_reconnect_max_ms, default 30000: backoff cap */
  char query_socket[108];     /* los_query_socket, default /run/los/query.sock; "" (none): no predicted starts */
  int retry_s;                /* los_retry_s, default 30: a job Slurm refused is offered again after this, doubling */
  int has_sched_interval_off; /* sched_interval=-1 present */
};

void los_options_default(struct los_options* o);
/* Parses a SchedulerParameters string (comma separated key=value; keys not
 * starting with los_ are Slurm's and ignored). 0 on success; -1 with the
 * offending parameter and why in err. */
int los_options_parse(const char* params, struct los_options* o, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_OPTIONS_H */
