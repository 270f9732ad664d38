/* Device-side events a plugin sends to ompemu's runtime while a run is
 * observed (docs/design.md, "Observation points"): which device worker ran
 * each kernel and each queued copy, when, and the host's waits for a
 * queue.  Shared by the runtime (which defines the sink) and the emu
 * plugin (which calls it); not part of any interface outside ompemu.
 *
 * Protocol: the runtime calls a plugin's optional __tgt_rtl_ompemu_observe
 * (ompemu/plugin.h) with OMPEMU_OBSERVE_DEVICE and a TAG when some
 * observer wants device events; the plugin then finds ompemu_event_sink
 * with dlsym(RTLD_DEFAULT) and calls it for each event, passing TAG back.
 * Nobody calls __tgt_rtl_ompemu_observe under LLVM's runtime, so a plugin
 * loaded there never emits. */
#ifndef OMPEMU_DEVEVENT_H
#define OMPEMU_DEVEVENT_H

#include <stdint.h>

enum ompemu_devev_kind {
  /* On the host thread, as a kernel or copy is queued for a worker.  The
   * sink returns the runtime's id of the operation being queued (0 if it
   * has none); the plugin passes it back in the RAN event. */
  OMPEMU_DEVEV_QUEUED = 1,
  /* On the worker, after it ran a kernel (ENTRY) or a copy (BYTES). */
  OMPEMU_DEVEV_KERNEL = 2,
  OMPEMU_DEVEV_COPY = 3,
  /* On the host thread: it waited from T0 to T1 for WORKER's queue. */
  OMPEMU_DEVEV_WAIT = 4
};

struct ompemu_devev {
  uint32_t size;         /* sizeof (struct ompemu_devev) of the sender */
  uint32_t kind;         /* enum ompemu_devev_kind */
  void *tag;             /* as given to __tgt_rtl_ompemu_observe */
  int32_t device;        /* the plugin's (local) device id */
  int32_t worker;        /* the device worker's index */
  uint64_t id;           /* KERNEL, COPY: what QUEUED returned */
  int64_t t0_ns, t1_ns;  /* CLOCK_MONOTONIC; QUEUED: unused */
  const void *entry;     /* KERNEL: the device entry */
  uint64_t bytes;        /* COPY: bytes copied */
};

/* The runtime's sink (exported by libomptarget.so, version node
 * OMPEMU_PRIVATE). */
uint64_t ompemu_event_sink(const struct ompemu_devev *ev);
typedef uint64_t (*ompemu_event_sink_fn)(const struct ompemu_devev *ev);

/* __tgt_rtl_ompemu_observe's WHAT bits. */
#define OMPEMU_OBSERVE_DEVICE 0x1u

#endif
