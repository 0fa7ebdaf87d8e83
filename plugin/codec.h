/*
 * The plugin's half of the wire protocol (common/protocol/los_protocol.h):
 * encodes HELLO, SNAPSHOT and REPORT frames, decodes the payloads of
 * DECISIONS, HELLO_OK and ERROR. losd's C++ codec is the other half; the
 * unit tests run one against the other.
 */
#ifndef LOS_PLUGIN_CODEC_H
#define LOS_PLUGIN_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable byte buffer. */
struct los_buf {
  uint8_t* data;
  size_t len, cap;
};
/* Makes room for `more` bytes past b->len; 0 on success, -1 out of memory. */
int los_buf_reserve(struct los_buf* b, size_t more);
void los_buf_free(struct los_buf* b);

/* Whole frames (header + payload) appended to out; 0 on success. */
int los_encode_hello(struct los_buf* out, uint32_t request_id, const char* cluster, const char* slurm_version,
                     const char* client);
int los_encode_snapshot(struct los_buf* out, uint32_t request_id, const struct los_snapshot* s);
int los_encode_report(struct los_buf* out, uint8_t kind, const char* partition, uint64_t job, const char* detail);

/* losd's predicted starts (STARTS, an answer to QUERY_STARTS). */
struct los_predicted {
  char* partition;
  uint64_t job;
  uint32_t size;
  int64_t start; /* LOS_START_UNKNOWN: never fits or beyond the horizon */
  uint8_t reserved;
};
struct los_predictions {
  uint32_t count;
  struct los_predicted* items;
};
void los_predictions_free(struct los_predictions* p);
int los_encode_query_starts(struct los_buf* out, uint32_t request_id, const char* partition);
int los_decode_starts(const uint8_t* payload, size_t len, struct los_predictions* out, char* err, size_t errlen);

/* Payload decoders: 0 on success; otherwise -1 with a reason in err. */
int los_decode_decisions(const uint8_t* payload, size_t len, struct los_decisions* out, char* err, size_t errlen);
int los_decode_hello_ok(const uint8_t* payload, size_t len, char* err, size_t errlen);
int los_decode_error(const uint8_t* payload, size_t len, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_CODEC_H */
