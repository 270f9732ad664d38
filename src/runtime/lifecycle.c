/* The runtime's life in the process: registration as the front doors ask
 * for it, bringing a device up before a construct uses it (LLVM 14's
 * checkDeviceAndCtors), and the exit handler that unregisters every
 * library while the plugins are still alive and then frees everything
 * (registry.c).  The exit handler is (re)armed with atexit after plugins
 * are loaded and after a device is initialised: both may register exit
 * work of their own, and atexit handlers run last-registered first. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "doors.h"
#include "observe.h"

#include <stdlib.h>

static void exit_handler(void) {
  rt_registry_shutdown();
  OBS_SHUTDOWN();
}

/* Bounded, since each costs an atexit slot. */
static void arm_exit_handler(void) {
  static _Atomic int armed;
  if (atomic_fetch_add(&armed, 1) < 64 && atexit(exit_handler) != 0)
    ompemu_warning("ompemu", "atexit failed: libraries are not unregistered "
                   "at exit");
}

/* The exit handler is armed after OBS_REGISTERED, which may start
 * libomp's OMPT tool: libomp's own exit work then runs after ours. */
void rt_register_lib(__tgt_bin_desc *desc) {
  int fresh = rt_registry_add(desc);
  OBS_REGISTERED();
  if (fresh)
    arm_exit_handler();
}

void rt_init_all_rtls(void) {
  if (rt_registry_use_all_plugins())
    arm_exit_handler();
}

/* Initialise D if needed; 0 / -1. */
static int device_init(struct rt_device *d) {
  int fresh;
  int rc = rt_device_init(d, &fresh);
  if (fresh) {
    arm_exit_handler();
    if (rc == 0)
      OBS_DEVICE_INIT(d);
  }
  return rc;
}

int rt_device_prepare(struct rt_device *d) {
  if (!d || device_init(d) != 0)
    return -1;
  int rc = rt_device_load_pending(d);
  OBS_IMAGES(d);
  return rc;
}

int rt_check_device(int64_t *device_id, struct rt_device **dev) {
  *dev = NULL;
  if (rt_is_offload_disabled())
    return 1;
  if (*device_id == OFFLOAD_DEVICE_DEFAULT)
    *device_id = rt_default_device();
  int32_t n = rt_num_devices();
  if (n == 0)
    return -1;
  if (*device_id == n)
    return 1; /* the initial device */
  struct rt_device *d = rt_device_get(*device_id);
  if (!d || device_init(d) != 0) {
    rt_err("Device %ld is not ready.", (long)*device_id);
    return -1;
  }
  int loaded = rt_device_load_pending(d);
  OBS_IMAGES(d);
  if (loaded != 0) {
    rt_err("Failed to init globals on device %ld", (long)*device_id);
    return -1;
  }
  *dev = d;
  return 0;
}
