/* What the hsa plugin's test programs (tests/fake-hsa/test_hsa_*.c) share:
 * each test sets the double's environment, dlopens libomptarget.rtl.hsa.so
 * afresh, drives one operation through the __tgt_rtl_* interface, and
 * asserts both the results and the HSA calls the double logged.  The plugin
 * is dlclosed after each test (its destructor shuts HSA down, checked
 * through the double's reference count). */
#ifndef FAKE_HSA_HARNESS_H
#define FAKE_HSA_HARNESS_H

#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ompemu/plugin.h>

#include "fake_hsa.h"

extern char plugin_path[1024], co906[1024], co908[1024], noamd_path[1024];
/* Fill the paths above from OMPEMU_BUILDDIR (default "."). */
void harness_paths(void);

/* The plugin's entry points, resolved per test by load_plugin. */
struct plugin_fns {
  void *h;
  __typeof__(__tgt_rtl_number_of_devices) *ndev;
  __typeof__(__tgt_rtl_init_device) *init;
  __typeof__(__tgt_rtl_is_valid_binary) *valid;
  __typeof__(__tgt_rtl_load_binary) *load;
  __typeof__(__tgt_rtl_data_alloc) *alloc;
  __typeof__(__tgt_rtl_data_delete) *del;
  __typeof__(__tgt_rtl_data_submit) *submit;
  __typeof__(__tgt_rtl_data_retrieve) *retrieve;
  __typeof__(__tgt_rtl_data_submit_async) *submit_async;
  __typeof__(__tgt_rtl_data_retrieve_async) *retrieve_async;
  __typeof__(__tgt_rtl_run_target_region) *run;
  __typeof__(__tgt_rtl_run_target_team_region) *run_team;
  __typeof__(__tgt_rtl_run_target_team_region_async) *run_team_async;
  __typeof__(__tgt_rtl_synchronize) *sync;
  __typeof__(__tgt_rtl_set_function_ptr_map) *set_fptr;
  __typeof__(__tgt_rtl_is_data_exchangable) *exchangable;
  __typeof__(__tgt_rtl_data_exchange) *exchange;
};
extern struct plugin_fns P;
void load_plugin(void);
/* cmocka setup (clears the double's environment and log) and teardown
 * (unloads the plugin, checks HSA was shut down). */
int setup(void **state);
int teardown(void **state);
#define HSA_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* Code object bytes and host entries of the test image. */
extern char *co_bytes;
extern size_t co_size;
extern int host_counter; /* host twin of the device global */
void host_k_add(void);
void host_k_inc(void);
void host_k_call(void);
void host_k_sum(void);
int host_twice(int x);
extern __tgt_offload_entry host_entries[6];
#define NENT (sizeof host_entries / sizeof host_entries[0])
extern __tgt_device_image image;
/* Read the code object at PATH into IMAGE (with the host entries). */
void read_image(const char *path);
/* Load the test image on device 0; returns the table. */
__tgt_target_table *ready_image(void);

/* Capture stderr (ompemu_error) between start and end; the text. */
void capture_start(void);
char *capture_end(void);
/* The contents of PATH (static buffer). */
char *slurp(const char *path);
/* OMPEMU_TRACE=2 into a new file named by trace_path. */
extern char trace_path[];
void trace_to_file(void);
void assert_logged(const char *sub);

#endif
