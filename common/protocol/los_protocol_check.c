/* Compiled as strict C99 by daemon/CMakeLists.txt: proves los_protocol.h is
 * usable from the plain-C Slurm plugin. */
#include "protocol/los_protocol.h"

size_t los_protocol_check_hello(uint8_t* out);

/* Encodes a HELLO frame the way the plugin will; returns its size. */
size_t los_protocol_check_hello(uint8_t* out) {
  uint8_t* p = out + LOS_FRAME_HEADER_SIZE;
  struct los_cursor c;
  struct los_frame_header h;
  p = los_put_u16(p, (uint16_t)LOS_PROTOCOL_VERSION);
  p = los_put_str(p, "cluster", 7);
  p = los_put_str(p, "24.05", 5);
  p = los_put_str(p, "slurm-plugin", 12);
  los_put_header(out, LOS_MSG_HELLO, 1, (uint32_t)(p - out - LOS_FRAME_HEADER_SIZE));
  h = los_get_header(out);
  c.p = out + LOS_FRAME_HEADER_SIZE;
  c.end = c.p + h.payload_length;
  c.failed = 0;
  (void)los_get_u16(&c);
  return c.failed ? 0 : (size_t)(p - out);
}
