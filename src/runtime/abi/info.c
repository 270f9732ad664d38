/* Front door: the runtime's own controls and queries: the info flag, device
 * info printing, the device count libomp asks for, and ompemu's private
 * diagnostic sink (version node OMPEMU_PRIVATE), through which the plugins'
 * copies of src/common hand their lines to this one, so one counter and
 * one observer see every diagnostic of the process. */
#include "config.h"
#include "doors.h"
#include "trace.h"
#include <ompemu/omptarget.h>

RT_EXPORT void __tgt_set_info_flag(uint32_t flags) {
  rt_plugins_set_info_flag(flags);
}

/* 1 if the plugin printed something, 0 otherwise. */
RT_EXPORT int __tgt_print_device_info(int64_t device_id) {
  return rt_print_device_info(device_id);
}

/* libomp's omp_get_num_devices comes here when libomptarget is loaded. */
RT_EXPORT int __tgt_get_num_devices(void) { return rt_num_devices(); }

RT_EXPORT void ompemu_report_sink(int sev, const char *line) {
  ompemu_diag_deliver(sev, line);
}
