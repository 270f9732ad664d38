/* A fake device for the data-path unit tests: malloc-based memory, memcpy
 * transfers, a recording kernel launcher, and stand-ins for the core
 * functions the data path calls (rt_check_device, rt_handle_outcome,
 * rt_device_get, rt_device_prepare, rt_device_entry; the real state.c
 * holds rt_state: one device, the host is device 1), plus stderr capture
 * to check LIBOMPTARGET_INFO texts. */
#ifndef OMPEMU_TEST_DATA_FAKE_H
#define OMPEMU_TEST_DATA_FAKE_H

#include "rt.h"
#include "data.h"
#include "mapping.h"

#include <stddef.h>

extern struct rt_device fake_dev;
extern int fake_outcome_fail;   /* rt_handle_outcome(FAIL) calls */
extern int fake_allocs, fake_frees;
/* Make the next kernels fail at launch (run_target_*region returns
 * OFFLOAD_FAIL) or at the synchronize after them (with async on). */
extern int fake_fail_run, fake_fail_sync;
/* Give the fake plugin async launches and synchronize (off after reset). */
void fake_set_async(int on);

/* A gate on transfers: while closed, a copy to or from host address
 * fake_gate_at (either direction) waits in the plugin until the gate
 * opens; fake_gate_waiting() tells whether one is waiting there now. */
void fake_gate_close(const void *hst);
void fake_gate_open(void);
int fake_gate_waiting(void);

/* What the last kernel launch received. */
struct fake_launch {
  int count;
  int team;
  int32_t nargs;
  void *args[64];
  ptrdiff_t offs[64];
  int32_t num_teams, thread_limit;
  uint64_t tripcount;
  int syncs; /* synchronize calls */
};
extern struct fake_launch fake_last;
extern char fake_kernel_host_id; /* the region id the fake table knows */

/* Reset the device (empty table, counters zero, INFO off). */
void fake_reset(void);

void cap_start(void);
/* Captured stderr since cap_start (static buffer). */
const char *cap_end(void);
int count_substr(const char *hay, const char *needle);

/* Device address of host HP (0 if not mapped). */
void *dev_addr(const void *hp);

#endif
