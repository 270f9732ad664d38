/* Shared between the fake plugin and the core's unit test. */
#ifndef OMPEMU_FAKE_PLUGIN_H
#define OMPEMU_FAKE_PLUGIN_H
#include <ompemu/abi.h>

#define FAKE_MAGIC "FAKEIMG"
#define FAKE_NUM_DEVICES 2
#define FAKE_LOG_MAX 64
#define FAKE_FAILING_ENTRY 0xdead0000

struct fake_image {
  char magic[8];
  __tgt_target_table table[FAKE_NUM_DEVICES];
  int n;
  __tgt_offload_entry entries[16];
};

struct fake_log {
  int inits, loads, unregisters;
  int nruns;
  void *runs[FAKE_LOG_MAX];
  int run_dev[FAKE_LOG_MAX];
  int fptr_calls, fptr_dev;
  uint64_t nfptr;
  __omp_offloading_fptr_map_ty fptr[FAKE_LOG_MAX];
};
#endif
