/* The shared part of the hsa plugin's test programs (see harness.h): the
 * plugin's entry points, loading and unloading it around each test, the
 * test code object and its host entries, stderr and trace capture. */
#include "harness.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under --enable-sanitizers: the noamd copy of the double, loaded next to
 * the linked one, shares the linked copy's data (fake, fake_lock; only
 * functions are bound with -Bsymbolic-functions), so both copies log into
 * the one log these tests read.  ASan reports that by-design sharing as an
 * ODR violation. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_odr_violation=0"; }

char plugin_path[1024], co906[1024], co908[1024], noamd_path[1024];

struct plugin_fns P;

static const char *env_names[] = {
    "FAKE_HSA_INIT_FAIL", "FAKE_HSA_NO_GPU", "FAKE_HSA_GPUS",
    "FAKE_HSA_ALLOC_FAIL_AFTER", "FAKE_HSA_COPY_FAIL_AFTER",
    "FAKE_HSA_QUEUE_FAIL", "OMPEMU_HSA_LIBRARY", "OMPEMU_HSA_AMD_EXT",
    "OMPEMU_TRACE", "OMPEMU_TRACE_FILE", "FAKE_HSA_LOG"};

void load_plugin(void) {
  P.h = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
  if (!P.h)
    fail_msg("dlopen %s: %s", plugin_path, dlerror());
#define SYM(f, n)                                                              \
  P.f = (__typeof__(P.f))dlsym(P.h, "__tgt_rtl_" n);                           \
  assert_non_null(P.f);
  SYM(ndev, "number_of_devices") SYM(init, "init_device")
  SYM(valid, "is_valid_binary") SYM(load, "load_binary")
  SYM(alloc, "data_alloc") SYM(del, "data_delete") SYM(submit, "data_submit")
  SYM(retrieve, "data_retrieve") SYM(submit_async, "data_submit_async")
  SYM(retrieve_async, "data_retrieve_async") SYM(run, "run_target_region")
  SYM(run_team, "run_target_team_region")
  SYM(run_team_async, "run_target_team_region_async")
  SYM(sync, "synchronize") SYM(set_fptr, "set_function_ptr_map")
  SYM(exchangable, "is_data_exchangable") SYM(exchange, "data_exchange")
#undef SYM
}

int setup(void **state) {
  for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
    unsetenv(env_names[i]);
  fake_hsa_log_clear();
  return 0;
}

/* Unload the plugin: it must really go away and shut HSA down. */
int teardown(void **state) {
  if (P.h) {
    dlclose(P.h);
    void *again = dlopen(plugin_path, RTLD_NOW | RTLD_NOLOAD);
    if (again) {
      dlclose(again);
      fail_msg("plugin still loaded after dlclose");
    }
    P.h = NULL;
  }
  assert_int_equal(fake_hsa_refcount(), 0);
  return 0;
}

/* Code object bytes and host entries of the test image. */
char *co_bytes;
size_t co_size;
int host_counter = 5; /* host twin of the device global */
void host_k_add(void) {}
void host_k_inc(void) {}
void host_k_call(void) {}
void host_k_sum(void) {}
int host_twice(int x) { return 2 * x + 1000; }
__tgt_offload_entry host_entries[] = {
    {(void *)host_k_add, "k_add", 0, 0, 0},
    {&host_counter, "counter", sizeof(int), 0, 0},
    {(void *)host_k_inc, "k_inc_counter", 0, 0, 0},
    {(void *)host_twice, "dev_twice", 0, 0x08, 0},
    {(void *)host_k_call, "k_call_fptr", 0, 0, 0},
    {(void *)host_k_sum, "k_sum10", 0, 0, 0},
};
__tgt_device_image image;

void read_image(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  co_size = (size_t)ftell(f);
  rewind(f);
  free(co_bytes);
  co_bytes = malloc(co_size);
  assert_int_equal(fread(co_bytes, 1, co_size, f), co_size);
  fclose(f);
  image.ImageStart = co_bytes;
  image.ImageEnd = co_bytes + co_size;
  image.EntriesBegin = host_entries;
  image.EntriesEnd = host_entries + NENT;
}

/* Capture stderr (ompemu_error) and the trace file of one step. */
char trace_path[] = "/tmp/test-hsa-trace-XXXXXX";
static int saved_err = -1;
static char err_path[] = "/tmp/test-hsa-err-XXXXXX";
void capture_start(void) {
  fflush(stderr);
  saved_err = dup(2);
  strcpy(err_path + strlen(err_path) - 6, "XXXXXX");
  int fd = mkstemp(err_path);
  assert_true(fd >= 0);
  dup2(fd, 2);
  close(fd);
}
char *slurp(const char *path) {
  static char buf[65536];
  buf[0] = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
  }
  return buf;
}
char *capture_end(void) {
  fflush(stderr);
  dup2(saved_err, 2);
  close(saved_err);
  char *s = slurp(err_path);
  unlink(err_path);
  return s;
}
void trace_to_file(void) {
  strcpy(trace_path + strlen(trace_path) - 6, "XXXXXX");
  int fd = mkstemp(trace_path);
  assert_true(fd >= 0);
  close(fd);
  setenv("OMPEMU_TRACE", "2", 1);
  setenv("OMPEMU_TRACE_FILE", trace_path, 1);
}

void assert_logged(const char *sub) {
  if (fake_hsa_log_count(sub) == 0)
    fail_msg("HSA call log lacks \"%s\"; log:\n%s", sub, fake_hsa_log_text());
}

/* Load the test image on device 0; returns the table. */
__tgt_target_table *ready_image(void) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), OFFLOAD_SUCCESS);
  read_image(co906);
  __tgt_target_table *t = P.load(0, &image);
  assert_non_null(t);
  return t;
}

void harness_paths(void) {
  const char *b = getenv("OMPEMU_BUILDDIR");
  if (!b)
    b = ".";
  snprintf(plugin_path, sizeof plugin_path, "%s/.libs/libomptarget.rtl.hsa.so", b);
  snprintf(co906, sizeof co906, "%s/tests/fake-hsa/kernels-gfx906.co", b);
  snprintf(co908, sizeof co908, "%s/tests/fake-hsa/kernels-gfx908.co", b);
  snprintf(noamd_path, sizeof noamd_path,
           "%s/tests/fake-hsa/.libs/libhsa-noamd.so", b);
}
