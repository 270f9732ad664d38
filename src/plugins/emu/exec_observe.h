/* The emu device's events for ompemu's observation layer
 * (src/common/devevent.h): which worker ran each kernel and each queued
 * copy and when, and the host's waits for a queue.  Off (one predictable
 * branch per command) until the runtime calls __tgt_rtl_ompemu_observe;
 * under LLVM's runtime it stays off.  Hooks in exec.c, one line each. */
#ifndef EMU_EXEC_OBSERVE_H
#define EMU_EXEC_OBSERVE_H

#include <stdint.h>

#include "exec_wait.h"

extern int emu_obs_on;
#define EMU_OBS_ON() __builtin_expect(emu_obs_on, 0)

/* The start time of a wait (0 when off). */
#define EMU_OBS_NOW() (EMU_OBS_ON() ? wait_now_ns() : 0)
/* On the host, as a kernel or copy is queued: the runtime's id for it. */
#define EMU_OBS_QUEUED() (EMU_OBS_ON() ? emu_obs_queued() : 0)
/* On a worker, around one command: START notes what it is (only kernels
 * and copies are reported) and when it began, STOP when it ended; SEND
 * reports it after the command was completed, so that the host waiting
 * for it does not wait for the report too. */
struct emu_obs_run {
  long t0, t1;          /* t0 == 0: nothing to report */
  int is_kernel;
  const void *entry;
  uint64_t bytes, id;
};
#define EMU_OBS_START(r, is_kernel, is_copy, entry, bytes, id)                \
  do {                                                                         \
    (r)->t0 = 0;                                                               \
    if (EMU_OBS_ON() && ((is_kernel) || (is_copy)))                            \
      emu_obs_start((r), (is_kernel), (entry), (bytes), (id));                 \
  } while (0)
#define EMU_OBS_STOP(r)                                                        \
  do {                                                                         \
    if (__builtin_expect((r)->t0 != 0, 0))                                     \
      (r)->t1 = wait_now_ns();                                                 \
  } while (0)
#define EMU_OBS_SEND(dev, worker, r)                                           \
  do {                                                                         \
    if (__builtin_expect((r)->t0 != 0, 0))                                     \
      emu_obs_ran((dev), (worker), (r));                                       \
  } while (0)
/* On the host, after it waited since T0 for WORKER's queue. */
#define EMU_OBS_WAIT(dev, worker, t0)                                          \
  do {                                                                         \
    if (EMU_OBS_ON() && (t0))                                                  \
      emu_obs_wait((dev), (worker), (t0));                                     \
  } while (0)

uint64_t emu_obs_queued(void);
void emu_obs_start(struct emu_obs_run *r, int is_kernel, const void *entry,
                   uint64_t bytes, uint64_t id);
void emu_obs_ran(int dev, int worker, const struct emu_obs_run *r);
void emu_obs_wait(int dev, int worker, long t0);

#endif
