/* What the newer omp.h files let a program ask about devices and host
 * memory: omp_get_mapped_ptr, omp_target_is_accessible, the device
 * unique ids of OpenMP 6.0, and llvm_omp_target_lock_mem / unlock_mem. */
#include "config.h"
#include "data.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_DEVICE (-2) /* omp_invalid_device in LLVM's omp.h */

/* Device DEV, or NULL after an error naming API when DEV is neither a
 * device nor the host (*IS_HOST set for the host). */
static struct rt_device *device_arg(int dev, const char *api, int *is_host) {
  int host = rt_num_devices();
  *is_host = dev == host;
  if (*is_host)
    return NULL;
  struct rt_device *d = dev >= 0 ? rt_device_get(dev) : NULL;
  if (!d)
    ompemu_error("ompemu", "%s: device number %d is neither a device "
                 "(0 to %d) nor the host (%d)", api, dev, host - 1, host);
  return d;
}

void *rt_get_mapped_ptr(const void *ptr, int dev) {
  const char *api = "omp_get_mapped_ptr";
  if (!ptr) {
    ompemu_error("ompemu", "%s: called with a NULL pointer: returns NULL",
                 api);
    return NULL;
  }
  int is_host;
  struct rt_device *d = device_arg(dev, api, &is_host);
  if (is_host)
    return (void *)ptr;
  if (!d)
    return NULL;
  /* Asking starts the device, as omp_target_alloc does: its images are
   * loaded and their globals mapped (constructors run), so a declare
   * target variable has its device address before any target region. */
  if (rt_device_prepare(d) != 0) {
    ompemu_error("ompemu", "%s: device %d could not be started: returns "
                 "NULL", api, dev);
    return NULL;
  }
  void *t = rt_lookup_tgt(d, (void *)ptr, 1, 1, &is_host);
  DTRACE(2, "device %d: %s(" OMPEMU_PTR ") = " OMPEMU_PTR, dev, api,
         OMPEMU_P(ptr), OMPEMU_P(t));
  return t;
}

/* The emu device is a discrete device: its code may use host memory only
 * under `requires unified_shared_memory` (docs/check.md reports the
 * rest); the host reaches its own memory. */
int rt_target_is_accessible(const void *ptr, size_t size, int dev) {
  const char *api = "omp_target_is_accessible";
  int is_host;
  struct rt_device *d = device_arg(dev, api, &is_host);
  if (is_host)
    return 1;
  if (!d)
    return 0;
  if (!ptr || (uintptr_t)ptr + size < (uintptr_t)ptr)
    return 0;
  return rt_usm();
}

/* Unique ids: "ompemu-PLUGIN-LOCALID" for a device ("ompemu-emu-0"),
 * "ompemu-host" for the host.  The same program gets the same ids every
 * run.  Strings live in a fixed table, so they stay valid to the end. */
#define UID_MAX_DEVICES 256
#define UID_LEN 48
static char uids[UID_MAX_DEVICES][UID_LEN];
static pthread_mutex_t uid_lock = PTHREAD_MUTEX_INITIALIZER;
static const char host_uid[] = "ompemu-host";

const char *rt_uid_from_device(int dev) {
  const char *api = "omp_get_uid_from_device";
  int is_host;
  struct rt_device *d = device_arg(dev, api, &is_host);
  if (is_host)
    return host_uid;
  if (!d)
    return NULL;
  if (dev >= UID_MAX_DEVICES) {
    ompemu_error("ompemu", "%s: device %d: ompemu names only the first %d "
                 "devices", api, dev, UID_MAX_DEVICES);
    return NULL;
  }
  pthread_mutex_lock(&uid_lock);
  if (!uids[dev][0])
    snprintf(uids[dev], UID_LEN, "ompemu-%s-%d", d->plugin->name,
             (int)d->local_id);
  pthread_mutex_unlock(&uid_lock);
  return uids[dev];
}

int rt_device_from_uid(const char *uid) {
  if (!uid) {
    ompemu_error("ompemu", "omp_get_device_from_uid: called with a NULL "
                 "string: returns omp_invalid_device");
    return INVALID_DEVICE;
  }
  if (strcmp(uid, host_uid) == 0)
    return rt_num_devices();
  int n = rt_num_devices();
  for (int i = 0; i < n && i < UID_MAX_DEVICES; i++) {
    const char *u = rt_uid_from_device(i);
    if (u && strcmp(u, uid) == 0)
      return i;
  }
  return INVALID_DEVICE;
}

/* Plugins whose devices run in this process and so reach host memory as
 * it is: ompemu's emu device and LLVM's x86_64 plugin. */
static int in_process(const struct rt_device *d) {
  const char *n = d->plugin->name;
  return strcmp(n, "emu") == 0 || strcmp(n, "x86_64") == 0;
}

/* LLVM pins the range for the device and returns the address the device
 * uses for it.  ompemu's plugin interface (LLVM 14's) cannot pin; a device
 * of this process needs no pinning and uses the host address itself. */
void *rt_target_lock_mem(void *ptr, size_t size, int dev) {
  const char *api = "llvm_omp_target_lock_mem";
  if (!ptr || size == 0 || (int64_t)size < 0 ||
      (uintptr_t)ptr + size < (uintptr_t)ptr) {
    ompemu_error("ompemu", "%s: invalid range of %zu bytes at " OMPEMU_PTR
                 ": returns NULL", api, size, OMPEMU_P(ptr));
    return NULL;
  }
  int is_host;
  struct rt_device *d = device_arg(dev, api, &is_host);
  if (is_host)
    return ptr;
  if (!d)
    return NULL;
  if (!in_process(d)) {
    ompemu_error("ompemu", "%s: device %d (plugin %s) cannot pin host "
                 "memory: ompemu's plugin interface has no data_lock; "
                 "returns NULL", api, dev, d->plugin->name);
    return NULL;
  }
  DTRACE(1, "device %d: %s(" OMPEMU_PTR ", %zu): the device reaches it in "
         "place", dev, api, OMPEMU_P(ptr), size);
  return ptr;
}

void rt_target_unlock_mem(void *ptr, int dev) {
  int is_host;
  if (!ptr)
    return;
  (void)device_arg(dev, "llvm_omp_target_unlock_mem", &is_host);
}
