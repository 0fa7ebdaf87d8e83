/* See snapshot.h. */
#define _GNU_SOURCE /* strdup */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

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
  p->time_slots = 1;
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

struct los_decision* los_decisions_add(struct los_decisions* d, uint8_t kind, uint8_t expected, const char* partition,
                                       uint64_t job, uint32_t node_count) {
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
