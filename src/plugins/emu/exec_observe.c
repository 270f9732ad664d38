/* The emu device's events for ompemu's runtime (exec_observe.h): the
 * optional entry point __tgt_rtl_ompemu_observe, and the calls of the
 * runtime's ompemu_event_sink, found with dlsym(RTLD_DEFAULT). */
#define _GNU_SOURCE
#include "config.h"
#include "exec_observe.h"
#include "devevent.h"
#include "devicertl.h"
#include "trace.h"

#include <dlfcn.h>
#include <ompemu/plugin.h>
#include <stddef.h>

int emu_obs_on;
static ompemu_event_sink_fn sink;
static void *tag;

EMU_EXPORT int32_t __tgt_rtl_ompemu_observe(uint32_t what, void *t) {
  if (!(what & OMPEMU_OBSERVE_DEVICE)) {
    __atomic_store_n(&emu_obs_on, 0, __ATOMIC_RELEASE);
    return OFFLOAD_SUCCESS;
  }
  *(void **)&sink = dlsym(RTLD_DEFAULT, "ompemu_event_sink");
  if (!sink)
    return OFFLOAD_FAIL;
  tag = t;
  __atomic_store_n(&emu_obs_on, 1, __ATOMIC_RELEASE);
  ompemu_trace(2, "emu", "device events on");
  return OFFLOAD_SUCCESS;
}

static uint64_t send(uint32_t kind, int dev, int worker, uint64_t id, long t0,
                     long t1, const void *entry, uint64_t bytes) {
  struct ompemu_devev ev = {
      .size = sizeof ev, .kind = kind, .tag = tag, .device = dev,
      .worker = worker, .id = id, .t0_ns = t0, .t1_ns = t1, .entry = entry,
      .bytes = bytes,
  };
  return sink ? sink(&ev) : 0;
}

uint64_t emu_obs_queued(void) {
  return send(OMPEMU_DEVEV_QUEUED, 0, -1, 0, 0, 0, NULL, 0);
}

void emu_obs_start(struct emu_obs_run *r, int is_kernel, const void *entry,
                   uint64_t bytes, uint64_t id) {
  r->is_kernel = is_kernel;
  r->entry = entry;
  r->bytes = bytes;
  r->id = id;
  r->t0 = wait_now_ns();
  r->t1 = r->t0;
}

void emu_obs_ran(int dev, int worker, const struct emu_obs_run *r) {
  send(r->is_kernel ? OMPEMU_DEVEV_KERNEL : OMPEMU_DEVEV_COPY, dev, worker,
       r->id, r->t0, r->t1, r->is_kernel ? r->entry : NULL,
       r->is_kernel ? 0 : r->bytes);
}

void emu_obs_wait(int dev, int worker, long t0) {
  send(OMPEMU_DEVEV_WAIT, dev, worker, 0, t0, wait_now_ns(), NULL, 0);
}
