/* Error messages of the plugin core: every fallible call fills a caller's
 * char buffer with why it failed. */
#ifndef LOS_PLUGIN_ERR_H
#define LOS_PLUGIN_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* snprintf into err (of errlen bytes); does nothing when err is NULL or empty. */
void los_set_err(char* err, size_t errlen, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* LOS_PLUGIN_ERR_H */
