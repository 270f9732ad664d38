/* Kernel launch: teams and thread_limit become an AQL grid and work-group,
 * the arguments are written into a kernarg buffer, and a kernel dispatch
 * packet is written into the device's queue (header last, atomically, so
 * the packet processor never sees half a packet), the doorbell rung, and
 * the completion signal waited on (or left on the async_info's list).
 *
 * Work-group size: thread_limit when given, plus one wavefront for the
 * main thread when the kernel is in generic mode (<kernel>_exec_mode == 1,
 * as clang 14 marks non-SPMD target regions); thread_limit 0 -> the
 * kernel's <kernel>_wg_size if the image has one, else 256.  num_teams 0 ->
 * one work-group per compute unit.  Both are clamped to what the agent
 * reports (HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, 32-bit grid).  The grid is
 * one-dimensional: grid_size_x = teams * workgroup.
 *
 * Kernarg layout: argument i is the pointer-sized value args[i]+offsets[i]
 * at byte 8*i; the rest of the segment the code object declares
 * (KERNARG_SEGMENT_SIZE, which includes clang's hidden arguments) is zero,
 * so hidden_global_offset_x/y/z are 0 and the other hidden arguments
 * (printf buffer, hostcall, multigrid) are null: the plugin does not
 * support them. */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include <ompemu/plugin.h>

#define HSA_DEFAULT_WG 256u

/* Header of a kernel dispatch: barrier bit (in order after earlier
 * packets), system-scope acquire and release fences (host memory written
 * before and read after the kernel must be visible). */
static uint16_t dispatch_header(void) {
  return (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                    (1u << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM
                     << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

/* Write the kernel arguments of a launch into a kernarg buffer. */
static struct hsa_buf *write_kernargs(struct hsa_device *d,
                                      const struct hsa_kernel *k, void **args,
                                      ptrdiff_t *offsets, int32_t n,
                                      size_t *size_out) {
  size_t size = (size_t)n * sizeof(void *);
  if (k->kernarg_size > size)
    size = k->kernarg_size;
  if (size == 0)
    size = sizeof(void *);
  struct hsa_buf *b = hsa_buf_take(d, HSA_BUF_KERNARG, size, "kernarg buffer");
  if (!b)
    return NULL;
  memset(b->ptr, 0, size);
  for (int32_t i = 0; i < n; i++) {
    void *v = (char *)args[i] + offsets[i];
    memcpy((char *)b->ptr + (size_t)i * sizeof v, &v, sizeof v);
  }
  *size_out = size;
  return b;
}

/* Reserve a packet slot on Q, waiting while the queue is full. */
static hsa_kernel_dispatch_packet_t *reserve_packet(hsa_queue_t *q,
                                                    uint64_t *index) {
  uint64_t idx = H.hsa_queue_add_write_index_relaxed(q, 1);
  while (idx - H.hsa_queue_load_read_index_scacquire(q) >= q->size)
    ;
  *index = idx;
  return (hsa_kernel_dispatch_packet_t *)q->base_address + (idx & (q->size - 1));
}

int hsa_launch(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
               int32_t n, int32_t teams, int32_t threads, uint64_t tripcount,
               __tgt_async_info *ai) {
  struct hsa_device *d = hsa_dev_ready(id, "run_target_region");
  if (!d)
    return OFFLOAD_FAIL;
  struct hsa_kernel *k = entry;
  if (!hsa_kernel_known(d, k)) {
    ompemu_error(HSA_WHO, "run_target_region: entry " OMPEMU_PTR " is not a "
                 "kernel loaded on hsa device %d", OMPEMU_P(entry), id);
    return OFFLOAD_FAIL;
  }
  uint32_t wg = k->wg_size ? k->wg_size : HSA_DEFAULT_WG;
  if (threads > 0)
    wg = (uint32_t)threads + (k->exec_mode == 1 ? d->wavefront : 0);
  if (wg > d->wg_max)
    wg = d->wg_max;
  uint64_t groups = teams > 0 ? (uint64_t)teams : d->compute_units;
  if (groups * wg > UINT32_MAX)
    groups = UINT32_MAX / wg;
  struct hsa_queue_ops local = {.dev = d};
  struct hsa_queue_ops *q = ai ? hsa_ops_get(d, ai) : &local;
  if (!q || hsa_ops_wait_copies(q) != 0)
    return OFFLOAD_FAIL;
  struct hsa_op op = {.is_copy = 0};
  size_t kasize = 0;
  op.kernarg = write_kernargs(d, k, args, offsets, n, &kasize);
  if (!op.kernarg)
    return OFFLOAD_FAIL;
  if (hsa_signal_take(d, &op.signal, k->name) != 0) {
    hsa_buf_give(d, HSA_BUF_KERNARG, op.kernarg);
    return OFFLOAD_FAIL;
  }
  uint64_t idx;
  hsa_kernel_dispatch_packet_t *p = reserve_packet(d->queue, &idx);
  /* Everything but the first 32 bits (header and setup) goes in first. */
  memset((char *)p + 4, 0, sizeof *p - 4);
  p->workgroup_size_x = (uint16_t)wg;
  p->workgroup_size_y = 1;
  p->workgroup_size_z = 1;
  p->grid_size_x = (uint32_t)(groups * wg);
  p->grid_size_y = 1;
  p->grid_size_z = 1;
  p->private_segment_size = k->private_size;
  p->group_segment_size = k->group_size;
  p->kernel_object = k->object;
  p->kernarg_address = op.kernarg->ptr;
  p->completion_signal = op.signal;
  uint32_t setup = 1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  __atomic_store_n((uint32_t *)p, (uint32_t)dispatch_header() | (setup << 16),
                   __ATOMIC_RELEASE);
  H.hsa_signal_store_screlease(d->queue->doorbell_signal,
                               (hsa_signal_value_t)idx);
  ompemu_trace(1, HSA_WHO, "device %d: launch %s, %lu x %u work-items (teams "
               "%d, thread_limit %d, tripcount %lu), %d args, kernarg "
               OMPEMU_PTR " (%zu bytes), packet %lu%s", id, k->name,
               (unsigned long)groups, wg, teams, threads,
               (unsigned long)tripcount, n, OMPEMU_P(op.kernarg->ptr), kasize,
               (unsigned long)idx, ai ? " (async)" : "");
  if (hsa_ops_push(q, &op) != 0)
    return OFFLOAD_FAIL;
  if (!ai)
    return hsa_ops_finish(q) == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  return OFFLOAD_SUCCESS;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_run_target_team_region(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    int32_t teams, int32_t threads, uint64_t tripcount) {
  return hsa_launch(id, entry, args, offsets, n, teams, threads, tripcount,
                    NULL);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_run_target_region(int32_t id, void *entry,
                                                   void **args,
                                                   ptrdiff_t *offsets,
                                                   int32_t n) {
  return hsa_launch(id, entry, args, offsets, n, 1, 0, 0, NULL);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_run_target_team_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    int32_t teams, int32_t threads, uint64_t tripcount,
    __tgt_async_info *ai) {
  return hsa_launch(id, entry, args, offsets, n, teams, threads, tripcount,
                    ai);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_run_target_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    __tgt_async_info *ai) {
  return hsa_launch(id, entry, args, offsets, n, 1, 0, 0, ai);
}
