/* Front door: user-defined mappers (docs/abi-clang14.md section 6.2).  A
 * compiler-generated mapper function, called by the runtime with a handle,
 * reports each component through these two. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

RT_EXPORT int64_t __tgt_mapper_num_components(void *rt_mapper_handle) {
  return rt_mapper_num_components(rt_mapper_handle);
}

RT_EXPORT void __tgt_push_mapper_component(void *rt_mapper_handle, void *base,
                                           void *begin, int64_t size,
                                           int64_t type, void *name) {
  rt_mapper_push(rt_mapper_handle, base, begin, size, type, name);
}
