/* Front door: registration.  What clang's registration code calls from a
 * binary's constructors and destructors (docs/abi-clang14.md section 2,
 * docs/offload-wrapper.md), and __tgt_init_all_rtls. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

RT_EXPORT void __tgt_register_requires(int64_t flags) {
  rt_register_requires(flags);
}

RT_EXPORT void __tgt_register_image_info(__tgt_image_info *info) {
  rt_register_image_info(info);
}

RT_EXPORT void __tgt_register_lib(__tgt_bin_desc *desc) {
  rt_register_lib(desc);
}

RT_EXPORT void __tgt_unregister_lib(__tgt_bin_desc *desc) {
  rt_unregister_lib(desc);
}

RT_EXPORT void __tgt_init_all_rtls(void) { rt_init_all_rtls(); }
