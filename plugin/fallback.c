/* See fallback.h. */
#define _GNU_SOURCE /* strdup */
#include "fallback.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "protocol/los_protocol.h"

const char* los_fallback_name(int fallback) {
  switch (fallback) {
    case LOS_FALLBACK_EASY:
      return "easy";
    case LOS_FALLBACK_FIFO:
      return "fifo";
    case LOS_FALLBACK_NONE:
      return "none";
  }
  return "?";
}

/* When a job's nodes come back, by its time limit. */
struct release {
  int64_t end;
  uint32_t usable_nodes; /* nodes of the job that come back usable */
};

static int release_order(const void* a, const void* b) {
  const struct release* x = a;
  const struct release* y = b;
  return x->end < y->end ? -1 : x->end > y->end;
}

static int node_usable(uint8_t state) { return state == LOS_NODE_IDLE || state == LOS_NODE_ALLOCATED; }

/* One partition as the fallback sees it, updated as it starts jobs. */
struct partition_state {
  const struct los_partition* p;
  int64_t now;
  uint32_t usable; /* idle or allocated nodes: the most a job can ever get */
  char* free_node; /* per node: idle and held by no running job */
  uint32_t free_count;
  struct release* rel; /* running jobs, plus the jobs this step starts (they end by their limits too) */
  uint32_t rel_count;
};

/* Fills st from p; st->free_node and st->rel are allocated by the caller. */
static void partition_state_fill(struct partition_state* st) {
  const struct los_partition* p = st->p;
  for (uint32_t n = 0; n < p->node_count; ++n) {
    if (node_usable(p->nodes[n].state)) ++st->usable;
    st->free_node[n] = p->nodes[n].state == LOS_NODE_IDLE;
  }
  for (uint32_t r = 0; r < p->running_count; ++r) {
    const struct los_running* j = &p->running[r];
    uint32_t back = 0;
    for (uint32_t k = 0; k < j->node_count; ++k) {
      uint32_t n = j->nodes[k];
      if (n >= p->node_count) continue;
      st->free_node[n] = 0; /* suspended jobs keep their nodes too */
      if (node_usable(p->nodes[n].state)) ++back;
    }
    int64_t end = j->start + j->limit;
    st->rel[st->rel_count].end = end < st->now ? st->now : end;
    st->rel[st->rel_count].usable_nodes = back;
    ++st->rel_count;
  }
  for (uint32_t n = 0; n < p->node_count; ++n) st->free_count += st->free_node[n] ? 1u : 0u;
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

/* Starts j now on free nodes; it releases them by its limit. 0 on success, -1 out of memory. */
static int start_now(struct partition_state* st, const struct los_pending* j, struct los_decisions* out) {
  struct los_decision* d = los_decisions_add(out, LOS_DECIDE_START, LOS_JOB_PENDING, st->p->name, j->id, j->size);
  if (!d || take_nodes(st->p, st->free_node, j->size, d)) return -1;
  st->free_count -= j->size;
  st->rel[st->rel_count].end = st->now + j->limit;
  st->rel[st->rel_count].usable_nodes = j->size;
  ++st->rel_count;
  return 0;
}

/* The earliest time `size` nodes are free, as running jobs end by their
 * limits, into *shadow, and how many more than `size` are free then into
 * *extra. -1 when nothing known frees enough nodes. */
static int reserve(struct partition_state* st, uint32_t size, int64_t* shadow, uint32_t* extra) {
  qsort(st->rel, st->rel_count, sizeof *st->rel, release_order);
  uint32_t avail = st->free_count;
  for (uint32_t r = 0; r < st->rel_count; ++r) {
    avail += st->rel[r].usable_nodes;
    if (avail >= size) {
      *shadow = st->rel[r].end;
      *extra = avail - size;
      return 0;
    }
  }
  return -1;
}

/* Appends the reserved start of the partition's first blocked job to starts
 * (NULL: not wanted). 0 on success, -1 out of memory. */
static int add_prediction(struct los_predictions* starts, const struct los_partition* p, const struct los_pending* j,
                          int64_t start) {
  if (!starts) return 0;
  struct los_predicted* items = realloc(starts->items, (starts->count + 1) * sizeof *items);
  if (!items) return -1;
  starts->items = items;
  struct los_predicted* e = &items[starts->count];
  e->partition = strdup(p->name);
  if (!e->partition) return -1;
  e->job = j->id;
  e->size = j->size;
  e->start = start;
  e->reserved = 1;
  ++starts->count;
  return 0;
}

static int fallback_partition(const struct los_partition* p, int64_t now, int fallback, struct los_decisions* out,
                              struct los_predictions* starts) {
  struct partition_state st = {.p = p, .now = now};
  st.free_node = calloc(p->node_count ? p->node_count : 1, 1);
  st.rel = calloc((size_t)p->running_count + p->pending_count + 1, sizeof *st.rel);
  int rc = st.free_node && st.rel ? 0 : -1;
  if (rc == 0) partition_state_fill(&st);

  int reserved = 0;   /* the first blocked job has its reservation */
  int64_t shadow = 0; /* its reserved start */
  uint32_t extra = 0; /* nodes free at the shadow time beyond what it needs */
  for (uint32_t q = 0; rc == 0 && q < p->pending_count; ++q) {
    const struct los_pending* j = &p->pending[q];
    if (j->size > st.usable) continue; /* can never run here: do not let it block the queue */
    int start = 0;
    if (!reserved && j->size <= st.free_count) {
      start = 1; /* no job is blocked ahead of it: it starts in queue order */
    } else if (!reserved) {
      /* the head is blocked: reserve the earliest time enough nodes come back
       * (its predicted start under both: fifo starts nothing before it) */
      if (reserve(&st, j->size, &shadow, &extra)) break; /* nothing known frees enough nodes: keep the order */
      if (add_prediction(starts, p, j, shadow)) rc = -1;
      if (fallback == LOS_FALLBACK_FIFO) break;
      reserved = 1;
    } else if (j->size <= st.free_count) {
      /* backfill: fits now, and either ends before the shadow time or uses only extra nodes */
      if (now + j->limit <= shadow) {
        start = 1;
      } else if (j->size <= extra) {
        extra -= j->size;
        start = 1;
      }
    }
    if (start) rc = start_now(&st, j, out);
  }
  free(st.free_node);
  free(st.rel);
  return rc;
}

int los_fallback_decide(const struct los_snapshot* s, int fallback, struct los_decisions* out,
                        struct los_predictions* starts) {
  out->seq = s->seq;
  if (fallback == LOS_FALLBACK_NONE) return 0;
  for (uint32_t i = 0; i < s->partition_count; ++i) {
    if (fallback_partition(&s->partitions[i], s->now, fallback, out, starts)) return -1;
  }
  return 0;
}
