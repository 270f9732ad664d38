/* A fake device for the data-path unit tests: malloc-based memory, memcpy
 * transfers, a recording kernel launcher, and stand-ins for the core
 * functions the data path calls (rt_check_device, rt_handle_outcome,
 * rt_device_*), plus stderr capture to check LIBOMPTARGET_INFO texts. */
#ifndef OMPEMU_TEST_DATA_FAKE_H
#define OMPEMU_TEST_DATA_FAKE_H

#include "rt.h"
#include "data.h"
#include "mapping.h"

#include <stddef.h>

extern struct rt_device fake_dev;
extern int fake_outcome_fail;   /* rt_handle_outcome(FAIL) calls */
extern int fake_allocs, fake_frees;

/* What the last kernel launch received. */
struct fake_launch {
  int count;
  int team;
  int32_t nargs;
  void *args[64];
  ptrdiff_t offs[64];
  int32_t num_teams, thread_limit;
  uint64_t tripcount;
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
