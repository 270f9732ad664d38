/* Unit tests of the hsa plugin against the HSA test double: each test sets
 * the double's environment, dlopens libomptarget.rtl.hsa.so afresh, drives
 * one operation through the __tgt_rtl_* interface, and asserts both the
 * results and the HSA calls the double logged.  The plugin is dlclosed
 * after each test (its destructor shuts HSA down, checked through the
 * double's reference count). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <ompemu/plugin.h>

#include "fake_hsa.h"

/* Under --enable-sanitizers: the noamd copy of the double, loaded next to
 * the linked one, shares the linked copy's data (fake, fake_lock; only
 * functions are bound with -Bsymbolic-functions), so both copies log into
 * the one log these tests read.  ASan reports that by-design sharing as an
 * ODR violation. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_odr_violation=0"; }

static char plugin_path[1024], co906[1024], co908[1024], noamd_path[1024];

/* The plugin's entry points, resolved per test. */
static struct {
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
} P;

static const char *env_names[] = {
    "FAKE_HSA_INIT_FAIL", "FAKE_HSA_NO_GPU", "FAKE_HSA_GPUS",
    "FAKE_HSA_ALLOC_FAIL_AFTER", "FAKE_HSA_COPY_FAIL_AFTER",
    "FAKE_HSA_QUEUE_FAIL", "OMPEMU_HSA_LIBRARY", "OMPEMU_HSA_AMD_EXT",
    "OMPEMU_TRACE", "OMPEMU_TRACE_FILE", "FAKE_HSA_LOG"};

static void load_plugin(void) {
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

static int setup(void **state) {
  for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
    unsetenv(env_names[i]);
  fake_hsa_log_clear();
  return 0;
}

/* Unload the plugin: it must really go away and shut HSA down. */
static int teardown(void **state) {
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
static char *co_bytes;
static size_t co_size;
static int host_counter = 5; /* host twin of the device global */
static void host_k_add(void) {}
static void host_k_inc(void) {}
static void host_k_call(void) {}
static void host_k_sum(void) {}
static int host_twice(int x) { return 2 * x + 1000; }
static __tgt_offload_entry host_entries[] = {
    {(void *)host_k_add, "k_add", 0, 0, 0},
    {&host_counter, "counter", sizeof(int), 0, 0},
    {(void *)host_k_inc, "k_inc_counter", 0, 0, 0},
    {(void *)host_twice, "dev_twice", 0, 0x08, 0},
    {(void *)host_k_call, "k_call_fptr", 0, 0, 0},
    {(void *)host_k_sum, "k_sum10", 0, 0, 0},
};
#define NENT (sizeof host_entries / sizeof host_entries[0])
static __tgt_device_image image;

static void read_image(const char *path) {
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
static char trace_path[] = "/tmp/test-hsa-trace-XXXXXX";
static int saved_err = -1;
static char err_path[] = "/tmp/test-hsa-err-XXXXXX";
static void capture_start(void) {
  fflush(stderr);
  saved_err = dup(2);
  strcpy(err_path + strlen(err_path) - 6, "XXXXXX");
  int fd = mkstemp(err_path);
  assert_true(fd >= 0);
  dup2(fd, 2);
  close(fd);
}
static char *slurp(const char *path) {
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
static char *capture_end(void) {
  fflush(stderr);
  dup2(saved_err, 2);
  close(saved_err);
  char *s = slurp(err_path);
  unlink(err_path);
  return s;
}
static void trace_to_file(void) {
  strcpy(trace_path + strlen(trace_path) - 6, "XXXXXX");
  int fd = mkstemp(trace_path);
  assert_true(fd >= 0);
  close(fd);
  setenv("OMPEMU_TRACE", "2", 1);
  setenv("OMPEMU_TRACE_FILE", trace_path, 1);
}

static void assert_logged(const char *sub) {
  if (fake_hsa_log_count(sub) == 0)
    fail_msg("HSA call log lacks \"%s\"; log:\n%s", sub, fake_hsa_log_text());
}

/* Load the test image on device 0; returns the table. */
static __tgt_target_table *ready_image(void) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), OFFLOAD_SUCCESS);
  read_image(co906);
  __tgt_target_table *t = P.load(0, &image);
  assert_non_null(t);
  return t;
}

/* ---- error paths of start-up ---- */

static void test_runtime_absent(void **state) {
  setenv("OMPEMU_HSA_LIBRARY", "/nonexistent/libhsa-runtime64.so.1", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  read_image(co906);
  assert_int_equal(P.valid(&image), 0);
  assert_int_equal(fake_hsa_refcount(), 0);
  assert_int_equal(fake_hsa_log_count("hsa_init"), 0);
  assert_non_null(strstr(slurp(trace_path),
                         "hsa: no HSA runtime (/nonexistent/libhsa-runtime64.so.1"));
  unlink(trace_path);
}

static void test_init_fails(void **state) {
  setenv("FAKE_HSA_INIT_FAIL", "1", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  assert_int_equal(P.init(0), OFFLOAD_FAIL);
  assert_logged("hsa_init() = 0x1008");
  assert_int_equal(fake_hsa_log_count("hsa_iterate_agents"), 0);
  assert_non_null(strstr(slurp(trace_path),
                         "hsa_init failed (status 0x1008: "
                         "HSA_STATUS_ERROR_OUT_OF_RESOURCES"));
  unlink(trace_path);
}

static void test_no_gpu(void **state) {
  setenv("FAKE_HSA_NO_GPU", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  assert_logged("hsa_iterate_agents() agents=1");
  /* hsa_shut_down already ran: no device, nothing kept. */
  assert_logged("hsa_shut_down() = 0x0 refcount=0");
}

/* ---- agents, queues, pools ---- */

static void test_agents_and_init(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906,gfx908", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 2);
  assert_int_equal(P.init(1), OFFLOAD_SUCCESS);
  assert_logged("hsa_agent_get_info(gfx906#0, 0) = 0x0");
  assert_logged("hsa_agent_get_info(gfx908#1, 0) = 0x0");
  assert_logged("hsa_amd_agent_iterate_memory_pools(cpu)");
  assert_logged("hsa_amd_agent_iterate_memory_pools(gfx908#1)");
  assert_logged("hsa_queue_create(gfx908#1, size=1024, type=0) = 0x0");
  assert_int_equal(fake_hsa_log_count("hsa_queue_create"), 1);
  assert_int_equal(P.init(0), OFFLOAD_SUCCESS);
  assert_int_equal(fake_hsa_log_count("hsa_queue_create(gfx906#0"), 1);
  capture_start();
  int rc = P.init(2);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: init_device: no hsa device 2 (2 devices)"));
}

/* ---- images ---- */

static void test_valid_binary(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co906);
  assert_int_equal(P.valid(&image), 1);
  read_image(co908);
  assert_int_equal(P.valid(&image), 0);
  co_bytes[18] = 62; /* EM_X86_64 */
  co_bytes[19] = 0;
  assert_int_equal(P.valid(&image), 0);
  memcpy(co_bytes, "XELF", 4);
  assert_int_equal(P.valid(&image), 0);
  const char *t = slurp(trace_path);
  assert_non_null(strstr(t, "accepted: mach 0x2f (gfx906) runs on device 0"));
  assert_non_null(strstr(t, "refused: code object for mach 0x30 (gfx908), "
                            "agents are gfx906"));
  assert_non_null(strstr(t, "refused: e_machine 62 is not EM_AMDGPU (224)"));
  assert_non_null(strstr(t, "refused: not an ELF file"));
  unlink(trace_path);
}

/* Malformed images: refused or read safely, never a crash. */
static void test_malformed_images(void **state) {
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co906);
  image.ImageEnd = co_bytes + 40; /* shorter than an ELF header */
  assert_int_equal(P.valid(&image), 0);
  image.ImageEnd = co_bytes; /* empty */
  assert_int_equal(P.valid(&image), 0);
  co_bytes[4] = 1; /* ELFCLASS32 */
  image.ImageEnd = co_bytes + co_size;
  assert_int_equal(P.valid(&image), 0);
  const char *t = slurp(trace_path);
  assert_non_null(strstr(t, "refused: 40 bytes, too small for an ELF header"));
  assert_non_null(strstr(t, "refused: 0 bytes, too small for an ELF header"));
  assert_non_null(strstr(t, "refused: not a 64-bit ELF file"));
  /* Section headers out of the image: the loader (dlopen) does not need
   * them, the plugin's read of <kernel>_exec_mode/_wg_size finds nothing
   * and the defaults apply. */
  read_image(co906);
  uint64_t bad = (uint64_t)co_size - 8;
  memcpy(co_bytes + 0x28, &bad, 8); /* e_shoff */
  assert_int_equal(P.valid(&image), 1);
  __tgt_target_table *tb = P.load(0, &image);
  assert_non_null(tb);
  int out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {dout};
  ptrdiff_t offs[] = {0};
  assert_int_equal(P.run(0, tb->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(fake_hsa_log_count("kernel=k_inc_counter, header=0x1502, "
                                      "setup=1, workgroup=256,1,1"), 1);
  unlink(trace_path);
}

static void test_load_binary(void **state) {
  __tgt_target_table *t = ready_image();
  assert_int_equal(t->EntriesEnd - t->EntriesBegin, NENT);
  for (size_t i = 0; i < NENT; i++) {
    assert_string_equal(t->EntriesBegin[i].name, host_entries[i].name);
    assert_non_null(t->EntriesBegin[i].addr);
    assert_ptr_not_equal(t->EntriesBegin[i].addr, host_entries[i].addr);
  }
  assert_int_equal(t->EntriesBegin[1].size, sizeof(int));
  /* The device global holds the image's initial value. */
  int v = 0;
  assert_int_equal(P.retrieve(0, &v, t->EntriesBegin[1].addr, sizeof v), 0);
  assert_int_equal(v, 5);
  assert_logged("hsa_code_object_reader_create_from_memory");
  assert_logged("hsa_executable_create_alt(profile=1) = 0x0");
  assert_logged("hsa_executable_load_agent_code_object");
  assert_logged("hsa_executable_freeze");
  assert_logged("hsa_executable_get_symbol_by_name");
  assert_int_equal(fake_hsa_log_count(", k_add.kd) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count(", counter) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count(", dev_twice) = 0x0"), 1);
  /* KERNEL_OBJECT, KERNARG/GROUP/PRIVATE sizes for each of the 4 kernels. */
  assert_int_equal(fake_hsa_log_count("symbol_get_info(0x") -
                       fake_hsa_log_count(", 21) = 0x0"),
                   16);
  /* Order: reader, executable, load, freeze, then symbols. */
  const char *log = fake_hsa_log_text();
  const char *a = strstr(log, "hsa_code_object_reader_create_from_memory");
  const char *b = strstr(log, "hsa_executable_load_agent_code_object");
  const char *c = strstr(log, "hsa_executable_freeze");
  const char *d = strstr(log, "hsa_executable_get_symbol_by_name");
  assert_true(a < b && b < c && c < d);
}

static void test_load_errors(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co908);
  capture_start();
  assert_null(P.load(0, &image));
  char *err = capture_end();
  assert_non_null(strstr(err, "is for mach 0x30 (gfx908), hsa device 0 is gfx906"));
  /* A kernel the code object lacks: named, and nothing leaks. */
  read_image(co906);
  __tgt_offload_entry bad[] = {{(void *)host_k_add, "no_such_kernel", 0, 0, 0}};
  image.EntriesBegin = bad;
  image.EntriesEnd = bad + 1;
  capture_start();
  assert_null(P.load(0, &image));
  err = capture_end();
  assert_non_null(strstr(err, "kernel no_such_kernel of the host entries table "
                              "not found (no symbol no_such_kernel.kd"));
  assert_logged("hsa_executable_destroy");
  /* A global the code object lacks. */
  __tgt_offload_entry badg[] = {{&host_counter, "no_such_global", 4, 0, 0}};
  image.EntriesBegin = badg;
  image.EntriesEnd = badg + 1;
  capture_start();
  assert_null(P.load(0, &image));
  err = capture_end();
  assert_non_null(strstr(err, "global no_such_global (host 0x"));
}

/* ---- memory ---- */

static void test_alloc_kinds(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  void *dv = P.alloc(0, 100, NULL, TARGET_ALLOC_DEFAULT);
  void *dd = P.alloc(0, 100, NULL, TARGET_ALLOC_DEVICE);
  void *hh = P.alloc(0, 100, NULL, TARGET_ALLOC_HOST);
  void *sh = P.alloc(0, 100, NULL, TARGET_ALLOC_SHARED);
  uintptr_t gb = FAKE_HSA_GPU_BASE, sb = FAKE_HSA_SYS_BASE;
  assert_true((uintptr_t)dv >= gb && (uintptr_t)dv < gb + FAKE_HSA_GPU_STRIDE);
  assert_true((uintptr_t)dd >= gb && (uintptr_t)dd < gb + FAKE_HSA_GPU_STRIDE);
  assert_true((uintptr_t)hh >= sb && (uintptr_t)hh < sb + FAKE_HSA_SYS_SIZE);
  assert_true((uintptr_t)sh >= sb && (uintptr_t)sh < sb + FAKE_HSA_SYS_SIZE);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate(pool=gfx906#0, size=100) = 0x0"), 2);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate(pool=system, size=100) = 0x0"), 2);
  /* HOST/SHARED memory is opened to the agent. */
  assert_int_equal(fake_hsa_log_count("hsa_amd_agents_allow_access(agents=gfx906#0"), 2);
  assert_int_equal(fake_hsa_log_count("hsa_amd_agents_allow_access"), 2);
  int live = fake_hsa_live_allocations();
  assert_int_equal(P.del(0, dv), 0);
  assert_int_equal(P.del(0, hh), 0);
  assert_int_equal(fake_hsa_live_allocations(), live - 2);
  capture_start();
  assert_int_equal(P.del(0, dv), OFFLOAD_FAIL); /* double free */
  char *err = capture_end();
  assert_non_null(strstr(err, "hsa_amd_memory_pool_free failed (status 0x1001: "
                              "HSA_STATUS_ERROR_INVALID_ARGUMENT"));
}

static void test_alloc_fails(void **state) {
  setenv("FAKE_HSA_ALLOC_FAIL_AFTER", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  assert_non_null(P.alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT));
  capture_start();
  void *p = P.alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT);
  char *err = capture_end();
  assert_null(p);
  assert_non_null(strstr(err, "hsa: error: hsa_amd_memory_pool_allocate failed "
                              "(status 0x1008: HSA_STATUS_ERROR_OUT_OF_RESOURCES"));
  assert_non_null(strstr(err, "64 bytes of data_alloc"));
}

static void test_copy_fails(void **state) {
  setenv("FAKE_HSA_COPY_FAIL_AFTER", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  int v[4] = {1, 2, 3, 4}, r[4] = {9, 9, 9, 9};
  void *d = P.alloc(0, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, d, v, sizeof v), 0);
  capture_start();
  int rc = P.retrieve(0, r, d, sizeof r);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: async copy: completion signal 0x"));
  assert_non_null(strstr(err, "ended at -1, the operation failed"));
  assert_int_equal(r[0], 9); /* nothing copied back */
  /* The staging buffer and signal are released all the same. */
  assert_int_equal(fake_hsa_live_allocations(), 1);
  assert_int_equal(fake_hsa_log_count("hsa_signal_destroy"), 2);
}

static void test_queue_create_fails(void **state) {
  setenv("FAKE_HSA_QUEUE_FAIL", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  capture_start();
  int rc = P.init(0);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: hsa_queue_create failed (status 0x1008: "
                              "HSA_STATUS_ERROR_OUT_OF_RESOURCES: fake out of "
                              "resources): hsa device 0 (gfx906), 1024 packets"));
  /* Other calls on the device fail cleanly too. */
  capture_start();
  void *p = P.alloc(0, 8, NULL, TARGET_ALLOC_DEFAULT);
  capture_end();
  assert_null(p);
}

/* Two GPUs: device memory is opened to the peer at allocation, and a
 * device-to-device copy is one async copy between the agents. */
static void test_data_exchange(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906,gfx906", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 2);
  assert_int_equal(P.exchangable(0, 1), 1);
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8] = {0};
  void *d0 = P.alloc(0, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  void *d1 = P.alloc(1, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  char want[128];
  snprintf(want, sizeof want, "hsa_amd_agents_allow_access(agents=gfx906#1, "
           "ptr=0x%016lx) = 0x0", (unsigned long)(uintptr_t)d0);
  assert_logged(want);
  assert_int_equal(P.submit(0, d0, v, sizeof v), 0);
  fake_hsa_log_clear();
  assert_int_equal(P.exchange(0, d0, 1, d1, sizeof v), 0);
  snprintf(want, sizeof want, "hsa_amd_memory_async_copy(dst=0x%016lx, "
           "dst_agent=gfx906#1, src=0x%016lx, src_agent=gfx906#0, size=32",
           (unsigned long)(uintptr_t)d1, (unsigned long)(uintptr_t)d0);
  assert_logged(want);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_async_copy"), 1);
  assert_int_equal(P.retrieve(1, r, d1, sizeof r), 0);
  assert_memory_equal(v, r, sizeof v);
  /* One GPU: no peers, nothing opened. */
  assert_int_equal(P.exchangable(0, 2), 0);
}

static void test_copies(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  int src[64], dst[64];
  for (int i = 0; i < 64; i++)
    src[i] = i * 3;
  void *d = P.alloc(0, sizeof src, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  /* Fresh device memory holds the double's poison, not zeros. */
  assert_int_equal(P.retrieve(0, dst, d, sizeof dst), 0);
  assert_int_equal((unsigned char)((char *)dst)[0], 0xa5);
  fake_hsa_log_clear();
  assert_int_equal(P.submit(0, d, src, sizeof src), 0);
  /* Host memory goes through an opened fine-grained staging buffer. */
  assert_logged("hsa_amd_memory_pool_allocate(pool=system, size=256) = 0x0");
  assert_logged("hsa_amd_agents_allow_access(agents=gfx906#0");
  assert_logged("dst_agent=gfx906#0, src=0x00005f");
  assert_logged("src_agent=cpu, size=256, deps=0) = 0x0");
  assert_logged("hsa_signal_wait_scacquire");
  assert_logged("hsa_signal_destroy");
  memset(dst, 0, sizeof dst);
  assert_int_equal(P.retrieve(0, dst, d, sizeof dst), 0);
  assert_memory_equal(src, dst, sizeof src);
  assert_logged("dst_agent=cpu, src=0x00005e");
  /* Staging buffers are released: only D is left. */
  assert_int_equal(fake_hsa_live_allocations(), 1);
}

static void test_copies_without_amd_ext(void **state) {
  setenv("OMPEMU_HSA_AMD_EXT", "0", 1);
  __tgt_target_table *t = ready_image();
  assert_logged("hsa_agent_iterate_regions(gfx906#0)");
  assert_int_equal(fake_hsa_log_count("hsa_amd_"), 0);
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_logged("hsa_memory_allocate(pool=gfx906#0, size=32) = 0x0");
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  assert_logged("hsa_memory_copy(dst=0x00005e");
  long n = 8;
  void *args[] = {da, db, (void *)n};
  ptrdiff_t offs[3] = {0, 0, 0};
  /* Kernarg from the GPU agent's own kernarg region. */
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 1, 1, 0), 0);
  assert_logged("hsa_memory_allocate(pool=system, size=24) = 0x0");
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 8; i++)
    assert_int_equal(a[i], 11 * (i + 1));
  assert_int_equal(P.del(0, da), 0);
  assert_logged("hsa_memory_free(0x00005e");
}

/* A runtime without the AMD extension (the noamd build of the double, a
 * separate copy loaded by path): the plugin notes it, and allocates, copies
 * and launches with the core API.  That copy's log goes to FAKE_HSA_LOG. */
static void test_runtime_without_amd_symbols(void **state) {
  char logp[] = "/tmp/test-hsa-noamd-XXXXXX";
  int fd = mkstemp(logp);
  assert_true(fd >= 0);
  close(fd);
  setenv("FAKE_HSA_LOG", logp, 1);
  setenv("OMPEMU_HSA_LIBRARY", noamd_path, 1);
  trace_to_file();
  __tgt_target_table *t = ready_image();
  int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  void *args[] = {da, db, (void *)4L};
  ptrdiff_t offs[3] = {0};
  assert_int_equal(P.run(0, t->EntriesBegin[0].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  int want[4] = {6, 8, 10, 12};
  assert_memory_equal(a, want, sizeof a);
  assert_int_equal(P.del(0, da), 0);
  dlclose(P.h); /* shut the copy down before reading its log */
  P.h = NULL;
  const char *tr = slurp(trace_path);
  assert_non_null(strstr(tr, "libhsa-noamd.so lacks hsa_amd_agent_iterate_memory_pools: "
                             "using core HSA regions and hsa_memory_copy"));
  assert_non_null(strstr(tr, "(core regions, no AMD extension)"));
  const char *log = slurp(logp);
  assert_non_null(strstr(log, "hsa_agent_iterate_regions(gfx906#0)"));
  assert_non_null(strstr(log, "hsa_memory_allocate(pool=gfx906#0, size=16) = 0x0"));
  assert_non_null(strstr(log, "hsa_memory_copy(dst=0x00005e"));
  assert_non_null(strstr(log, "dispatch(queue="));
  assert_non_null(strstr(log, "hsa_memory_free(0x00005e"));
  assert_non_null(strstr(log, "hsa_shut_down() = 0x0 refcount=0"));
  assert_null(strstr(log, "hsa_amd_"));
  /* The linked copy of the double was never touched. */
  assert_int_equal(fake_hsa_log_count("hsa_"), 0);
  unlink(logp);
  unlink(trace_path);
}

/* ---- dispatch ---- */

static void test_dispatch_packet(void **state) {
  __tgt_target_table *t = ready_image();
  int a[16], b[16];
  for (int i = 0; i < 16; i++)
    a[i] = i, b[i] = 100 * i;
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  fake_hsa_log_clear();
  /* args[i] + offsets[i]: pass DA - 8 with offset 8. */
  void *args[] = {(char *)da - 8, db, (void *)16L};
  ptrdiff_t offs[] = {8, 0, 0};
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 4,
                              64, 256),
                   0);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 16; i++)
    assert_int_equal(a[i], 101 * i);
  char line[1024];
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  /* KERNEL_DISPATCH | barrier | system acquire | system release fences. */
  assert_non_null(strstr(line, "kernel=k_add, header=0x1502, setup=1, "
                               "workgroup=64,1,1, grid=256,1,1, private=0, "
                               "group=0, kernarg=0x00005f"));
  assert_non_null(strstr(line, "kernarg_words=3,"));
  assert_logged("hsa_signal_create(1)");
  assert_logged("doorbell(queue=");
  assert_logged("hsa_signal_wait_scacquire");
  /* Kernarg buffer and signal are released after completion. */
  assert_logged("hsa_signal_destroy");
  assert_int_equal(fake_hsa_live_allocations(), 2);

  /* Defaults: thread_limit 0 -> 256, teams 0 -> one group per CU (60). */
  fake_hsa_log_clear();
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 0, 0,
                              0),
                   0);
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=256,1,1, grid=15360,1,1"));
  /* run_target_region: one team. */
  fake_hsa_log_clear();
  assert_int_equal(P.run(0, t->EntriesBegin[0].addr, args, offs, 3), 0);
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=256,1,1, grid=256,1,1"));
  /* thread_limit above the agent's maximum is clamped. */
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 2,
                              5000, 0),
                   0);
  assert_int_equal(fake_hsa_log_count("workgroup=1024,1,1, grid=2048,1,1"), 1);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 16; i++)
    assert_int_equal(a[i], 401 * i);
}

static void test_many_args(void **state) {
  __tgt_target_table *t = ready_image();
  long out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[10] = {dout};
  ptrdiff_t offs[10] = {0};
  for (int i = 1; i < 10; i++)
    args[i] = (void *)(long)(i * i);
  assert_int_equal(P.run_team(0, t->EntriesBegin[5].addr, args, offs, 10, 1,
                              1, 0),
                   0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 285); /* 1+4+...+81 */
  assert_int_equal(fake_hsa_log_count("kernarg_words=10,"), 1);
}

static void test_bad_entry(void **state) {
  ready_image();
  int dummy;
  capture_start();
  int rc = P.run(0, &dummy, NULL, NULL, 0);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "is not a kernel loaded on hsa device 0"));
}

static void test_globals(void **state) {
  __tgt_target_table *t = ready_image();
  int out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {dout};
  ptrdiff_t offs[] = {0};
  assert_int_equal(P.run(0, t->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 6);
  int v = 40;
  assert_int_equal(P.submit(0, t->EntriesBegin[1].addr, &v, sizeof v), 0);
  assert_int_equal(P.run(0, t->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 41);
  assert_int_equal(host_counter, 5); /* the host copy is untouched */
  /* k_inc_counter is marked generic mode with a 128-wide default: a
   * thread_limit gets one more wavefront, none gives the image's size. */
  char line[1024];
  assert_non_null(fake_hsa_log_line("kernel=k_inc_counter", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=128,1,1, grid=128,1,1"));
  fake_hsa_log_clear();
  assert_int_equal(P.run_team(0, t->EntriesBegin[2].addr, args, offs, 1, 3,
                              100, 0),
                   0);
  assert_non_null(fake_hsa_log_line("kernel=k_inc_counter", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=164,1,1, grid=492,1,1"));
}

static void test_async(void **state) {
  __tgt_target_table *t = ready_image();
  int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, r[4] = {0};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  __tgt_async_info ai = {NULL};
  fake_hsa_log_clear();
  assert_int_equal(P.submit_async(0, da, a, sizeof a, &ai), 0);
  assert_non_null(ai.Queue);
  assert_int_equal(P.submit_async(0, db, b, sizeof b, &ai), 0);
  void *args[] = {da, db, (void *)4L};
  ptrdiff_t offs[3] = {0};
  assert_int_equal(P.run_team_async(0, t->EntriesBegin[0].addr, args, offs, 3,
                                    1, 4, 0, &ai),
                   0);
  assert_int_equal(P.retrieve_async(0, r, da, sizeof r, &ai), 0);
  /* The second copy depends on the first, the retrieve on the kernel. */
  assert_logged("size=16, deps=1) = 0x0");
  /* Nothing copied back before synchronize. */
  assert_int_equal(r[0], 0);
  assert_int_equal(fake_hsa_log_count("hsa_signal_destroy"), 0);
  assert_int_equal(P.sync(0, &ai), 0);
  assert_null(ai.Queue);
  int want[4] = {11, 22, 33, 44};
  assert_memory_equal(r, want, sizeof r);
  assert_int_equal(fake_hsa_log_count("hsa_signal_destroy"), 4);
  assert_int_equal(fake_hsa_live_allocations(), 2);
  assert_int_equal(P.sync(0, &ai), 0); /* nothing pending */
}

/* Several host threads share the device's one AQL queue: packet slots are
 * reserved atomically and published header-last, so every launch runs once
 * and the values add up. */
#define NTHREADS 4
#define NLAUNCH 25
struct worker {
  void *kernel;
  void *da, *db;
  int rc;
};

static void *launch_many(void *arg) {
  struct worker *w = arg;
  void *args[] = {w->da, w->db, (void *)16L};
  ptrdiff_t offs[3] = {0};
  for (int i = 0; i < NLAUNCH && w->rc == 0; i++)
    w->rc = P.run_team(0, w->kernel, args, offs, 3, 1, 16, 0);
  return NULL;
}

static void test_concurrent_launches(void **state) {
  __tgt_target_table *t = ready_image();
  struct worker w[NTHREADS];
  pthread_t th[NTHREADS];
  int a[16], b[16];
  for (int k = 0; k < NTHREADS; k++) {
    for (int i = 0; i < 16; i++)
      a[i] = i, b[i] = k + 1;
    w[k] = (struct worker){t->EntriesBegin[0].addr,
                           P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT),
                           P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT), 0};
    assert_int_equal(P.submit(0, w[k].da, a, sizeof a), 0);
    assert_int_equal(P.submit(0, w[k].db, b, sizeof b), 0);
  }
  fake_hsa_log_clear();
  for (int k = 0; k < NTHREADS; k++)
    assert_int_equal(pthread_create(&th[k], NULL, launch_many, &w[k]), 0);
  for (int k = 0; k < NTHREADS; k++)
    pthread_join(th[k], NULL);
  for (int k = 0; k < NTHREADS; k++) {
    assert_int_equal(w[k].rc, 0);
    assert_int_equal(P.retrieve(0, a, w[k].da, sizeof a), 0);
    for (int i = 0; i < 16; i++)
      assert_int_equal(a[i], i + NLAUNCH * (k + 1));
  }
  assert_int_equal(fake_hsa_log_count("dispatch(queue="), NTHREADS * NLAUNCH);
  assert_int_equal(fake_hsa_log_count(" error: "), 0);
}

/* ---- the seed's fptr table ---- */

static int cmp_row(const void *a, const void *b) {
  const __omp_offloading_fptr_map_ty *x = a, *y = b;
  return x->host_ptr < y->host_ptr ? -1 : x->host_ptr > y->host_ptr;
}

static void test_fptr_table(void **state) {
  __tgt_target_table *t = ready_image();
  int out = 0;
  long translated = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *dtr = P.alloc(0, sizeof translated, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {(void *)host_twice, dout, dtr};
  ptrdiff_t offs[3] = {0};
  /* Before the table: the pointer stays the host one. */
  assert_int_equal(P.run(0, t->EntriesBegin[4].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, &translated, dtr, sizeof translated), 0);
  assert_int_equal(translated, 0);
  __omp_offloading_fptr_map_ty rows[3] = {
      {(int64_t)(intptr_t)host_twice,
       (int64_t)(intptr_t)t->EntriesBegin[3].addr},
      {(int64_t)(intptr_t)host_k_add, 0x1111},
      {(int64_t)(intptr_t)host_k_inc, 0x2222}};
  qsort(rows, 3, sizeof rows[0], cmp_row);
  fake_hsa_log_clear();
  assert_int_equal(P.set_fptr(0, 3, rows), 0);
  assert_logged("hsa_amd_memory_pool_allocate(pool=gfx906#0, size=48) = 0x0");
  assert_logged(", __omp_offloading_fptr_map_p) = 0x0");
  assert_logged(", __omp_offloading_fptr_map_size) = 0x0");
  /* Table (48 bytes), then its address and size (8 bytes each). */
  assert_int_equal(fake_hsa_log_count("size=48, deps=0) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count("src_agent=cpu, size=8, deps="), 2);
  assert_int_equal(P.run(0, t->EntriesBegin[4].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(P.retrieve(0, &translated, dtr, sizeof translated), 0);
  assert_int_equal(translated, 1);
  assert_int_equal(out, 42); /* device version: 2*21, host one gives 1042 */
  assert_logged("translate_fptr(executable=0x");
  assert_logged(", table=0x00005e0000");
  assert_logged(", 3 entries, 0x");
}

static void test_fptr_table_before_load(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  __omp_offloading_fptr_map_ty row = {0x1000, 0x2000};
  assert_int_equal(P.set_fptr(0, 1, &row), 0);
  read_image(co906);
  fake_hsa_log_clear();
  __tgt_target_table *t = P.load(0, &image);
  assert_non_null(t);
  /* The image loaded after the table still gets it. */
  assert_logged(", __omp_offloading_fptr_map_p) = 0x0");
  assert_int_equal(fake_hsa_log_count("src_agent=cpu, size=8, deps="), 2);
}

int main(void) {
  const char *b = getenv("OMPEMU_BUILDDIR");
  if (!b)
    b = ".";
  snprintf(plugin_path, sizeof plugin_path, "%s/.libs/libomptarget.rtl.hsa.so", b);
  snprintf(co906, sizeof co906, "%s/tests/fake-hsa/kernels-gfx906.co", b);
  snprintf(co908, sizeof co908, "%s/tests/fake-hsa/kernels-gfx908.co", b);
  snprintf(noamd_path, sizeof noamd_path,
           "%s/tests/fake-hsa/.libs/libhsa-noamd.so", b);
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
      T(test_runtime_absent),   T(test_init_fails),
      T(test_no_gpu),           T(test_agents_and_init),
      T(test_valid_binary),     T(test_malformed_images),
      T(test_load_binary),
      T(test_load_errors),      T(test_alloc_kinds),
      T(test_alloc_fails),      T(test_copy_fails),
      T(test_queue_create_fails), T(test_data_exchange),
      T(test_copies),
      T(test_copies_without_amd_ext), T(test_runtime_without_amd_symbols),
      T(test_dispatch_packet),
      T(test_many_args),        T(test_bad_entry),
      T(test_globals),          T(test_async),
      T(test_concurrent_launches),
      T(test_fptr_table),       T(test_fptr_table_before_load),
#undef T
  };
  return cmocka_run_group_tests_name("hsa plugin with the HSA test double",
                                     tests, NULL, NULL);
}
