/* Events: create/record/wait/sync/destroy on CUevent, used by the runtime
 * to order transfers between queues (LIBOMPTARGET_MAP_FORCE_ATOMIC).  An
 * event or stream names its context: only creating one needs the device's
 * context current. */
#include "config.h"
#include "cuda_rtl.h"

CU_EXPORT int32_t __tgt_rtl_create_event(int32_t id, void **ev) {
  struct cu_device *d = cu_enter(id, "create_event");
  if (!d || !ev || cu_use(d, id, "create_event") != 0)
    return OFFLOAD_FAIL;
  CUevent e = NULL;
  if (cu_check(cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate",
               id, "a new event"))
    return OFFLOAD_FAIL;
  *ev = e;
  return OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_record_event(int32_t id, void *ev,
                                         __tgt_async_info *ai) {
  struct cu_device *d = cu_enter(id, "record_event");
  if (!d || !ev || !ai)
    return OFFLOAD_FAIL;
  CUstream s = cu_queue(d, id, ai);
  if (!s)
    return OFFLOAD_FAIL;
  return cu_check(cu.cuEventRecord((CUevent)ev, s), "cuEventRecord", id,
                  "event 0x%016lx on stream 0x%016lx", OMPEMU_P(ev),
                  OMPEMU_P(s)) ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_wait_event(int32_t id, void *ev,
                                       __tgt_async_info *ai) {
  struct cu_device *d = cu_enter(id, "wait_event");
  if (!d || !ev || !ai)
    return OFFLOAD_FAIL;
  CUstream s = cu_queue(d, id, ai);
  if (!s)
    return OFFLOAD_FAIL;
  return cu_check(cu.cuStreamWaitEvent(s, (CUevent)ev, 0), "cuStreamWaitEvent",
                  id, "event 0x%016lx on stream 0x%016lx", OMPEMU_P(ev),
                  OMPEMU_P(s)) ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_sync_event(int32_t id, void *ev) {
  struct cu_device *d = cu_enter(id, "sync_event");
  if (!d || !ev)
    return OFFLOAD_FAIL;
  return cu_check(cu.cuEventSynchronize((CUevent)ev), "cuEventSynchronize", id,
                  "event 0x%016lx", OMPEMU_P(ev)) ? OFFLOAD_FAIL
                                                  : OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_destroy_event(int32_t id, void *ev) {
  struct cu_device *d = cu_enter(id, "destroy_event");
  if (!d || !ev)
    return OFFLOAD_FAIL;
  return cu_check(cu.cuEventDestroy((CUevent)ev), "cuEventDestroy", id,
                  "event 0x%016lx", OMPEMU_P(ev)) ? OFFLOAD_FAIL
                                                  : OFFLOAD_SUCCESS;
}
