/* Unit tests of libomptarget.rtl.cuda.so against the CUDA driver test
 * double (tests/fake-cuda): each case runs in a child process with its own
 * environment (the plugin loads the driver once per process), dlopens the
 * fake by path (so the plugin's dlopen("libcuda.so.1") finds it by SONAME)
 * and the plugin, and checks results, the fake's call log and the
 * plugin's messages. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ompemu/abi.h>
#include <ompemu/plugin.h>

#define FAKE_LIB FAKE_CUDA_LIBDIR "/libcuda.so.1"
#define DEV_SO FAKE_CUDA_LIBDIR "/libfcdev.so"
#define PLUGIN OMPEMU_LIBDIR "/libomptarget.rtl.cuda.so"

/* ---- child-side helpers ---- */

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(real_stderr, "child check failed %s:%d: %s\n", __FILE__,         \
              __LINE__, #c);                                                   \
      dump_state();                                                            \
      _exit(1);                                                                \
    }                                                                          \
  } while (0)

static FILE *real_stderr;
static char err_path[] = "/tmp/test-cuda-plugin-err-XXXXXX";

/* Plugin entry points (field, __tgt_rtl_ name), typed by ompemu/plugin.h's
 * prototypes so a test cannot call one with the wrong signature. */
#define PLUGIN_FNS(X)                                                          \
  X(is_valid_binary, is_valid_binary) X(number_of_devices, number_of_devices)  \
  X(init_device, init_device) X(load_binary, load_binary)                      \
  X(data_alloc, data_alloc) X(data_submit, data_submit)                        \
  X(data_retrieve, data_retrieve) X(data_delete, data_delete)                  \
  X(run_region, run_target_region) X(run_team, run_target_team_region)         \
  X(submit_async, data_submit_async) X(retrieve_async, data_retrieve_async)    \
  X(run_team_async, run_target_team_region_async)                              \
  X(synchronize, synchronize) X(is_exchangable, is_data_exchangable)           \
  X(exchange, data_exchange) X(create_event, create_event)                     \
  X(record_event, record_event) X(wait_event, wait_event)                      \
  X(sync_event, sync_event) X(destroy_event, destroy_event)                    \
  X(set_fptr_map, set_function_ptr_map)
#define PLUGIN_FIELD(field, name) __typeof__(__tgt_rtl_##name) *field;
static struct {
  PLUGIN_FNS(PLUGIN_FIELD)
} P;
#undef PLUGIN_FIELD

static const char *(*log_text)(void);
static int (*log_count)(const char *);
static void (*log_clear)(void);

static void dump_state(void) {
  if (log_text)
    fprintf(real_stderr, "--- fake log ---\n%s", log_text());
  fflush(stderr);
  FILE *f = fopen(err_path, "r");
  if (f) {
    char buf[4096];
    size_t n;
    fprintf(real_stderr, "--- plugin stderr ---\n");
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
      fwrite(buf, 1, n, real_stderr);
    fclose(f);
  }
}

/* What the plugin printed on stderr so far (static buffer). */
static const char *errtext(void) {
  static char buf[65536];
  fflush(stderr);
  FILE *f = fopen(err_path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = 0;
  return buf;
}

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p)
    fprintf(real_stderr, "missing %s\n", name);
  return p;
}

/* Load the fake (unless NO_FAKE) and the plugin, capture stderr. */
static void load(int with_fake) {
  real_stderr = fdopen(dup(2), "w");
  setvbuf(real_stderr, NULL, _IONBF, 0);
  int fd = mkstemp(err_path);
  dup2(fd, 2);
  close(fd);
  if (with_fake) {
    void *f = dlopen(FAKE_LIB, RTLD_NOW | RTLD_GLOBAL);
    if (!f)
      fprintf(real_stderr, "%s\n", dlerror());
    CHECK(f != NULL);
    log_text = sym(f, "fake_cuda_log_text");
    log_count = sym(f, "fake_cuda_log_count");
    log_clear = sym(f, "fake_cuda_log_clear");
  }
  void *h = dlopen(PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    fprintf(real_stderr, "%s\n", dlerror());
  CHECK(h != NULL);
#define S(field, name)                                                         \
  CHECK((*(void **)&P.field = sym(h, "__tgt_rtl_" #name)));
  PLUGIN_FNS(S)
#undef S
}

/* Images stay allocated until exit, as a program's images do, and
 * reachable from here (valgrind: no "definitely lost" in the children;
 * not static, or the never-read stores would be optimised away). */
unsigned char *made_images[64];
static size_t n_made_images;

/* Read the device test library and patch it into an EM_CUDA image. */
static unsigned char *make_image(size_t *len, int sm, int machine, int abi8) {
  FILE *f = fopen(DEV_SO, "rb");
  CHECK(f != NULL);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  unsigned char *b = malloc((size_t)n);
  CHECK(b && fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  CHECK(n_made_images < sizeof made_images / sizeof made_images[0]);
  made_images[n_made_images++] = b;
  Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
  eh->e_machine = (Elf64_Half)machine;
  if (abi8) {
    eh->e_ident[EI_ABIVERSION] = 8;
    eh->e_flags = ((uint32_t)sm << 8) | 2;
  } else {
    eh->e_flags = (uint32_t)sm | 0x500 | ((uint32_t)sm << 16);
  }
  *len = (size_t)n;
  return b;
}

/* Host side of the entries table the tests register. */
static int host_counter, host_array[4], host_link;
static int host_twice(int x) { return 3 * x; } /* differs from dev_twice */
static int host_other(int x) { return x + 1000; }
static char host_kernels[8];
static __tgt_offload_entry host_entries[] = {
    {&host_kernels[0], "k_store", 0, 0, 0},
    {&host_counter, "dev_counter", sizeof(int), 0, 0},
    {&host_kernels[1], "k_sum", 0, 0, 0},
    {&host_array, "dev_array", 16 * sizeof(double), 0, 0},
    {&host_link, "dev_link_decl_tgt_ref_ptr", 8, OMP_DECLARE_TARGET_LINK, 0},
    {&host_kernels[2], "k_read_counter", 0, 0, 0},
    {(void *)host_twice, "dev_twice", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {&host_kernels[3], "k_call_fptr", 0, 0, 0},
    {&host_kernels[4], "k_fptr_globals", 0, 0, 0},
    {&host_kernels[5], "k_many", 0, 0, 0},
    {&host_kernels[6], "k_env", 0, 0, 0},
    {&host_kernels[7], "k_wide", 0, 0, 0},
};
enum { E_STORE, E_COUNTER, E_SUM, E_ARRAY, E_LINK, E_READ, E_TWICE, E_CALL,
       E_FGLOB, E_MANY, E_ENV, E_WIDE, E_N };

static __tgt_device_image image_of(unsigned char *b, size_t n) {
  __tgt_device_image img = {b, b + n, host_entries, host_entries + E_N};
  return img;
}

/* Load the standard image on device 0 (after init). */
static __tgt_target_table *load_std(void) {
  size_t n;
  unsigned char *b = make_image(&n, 70, 190, 0);
  static __tgt_device_image img;
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 1);
  __tgt_target_table *t = P.load_binary(0, &img);
  CHECK(t != NULL);
  CHECK(t->EntriesEnd - t->EntriesBegin == E_N);
  return t;
}

static int in_fake_range(void *p) {
  uintptr_t a = (uintptr_t)p;
  return a >= 0x5c0000000000UL && a < 0x5d0000000000UL;
}

/* Run BODY in a child with the NULL-terminated ENV pairs set. */
static void run_child(void (*body)(void), const char **env) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    for (const char **e = env; e && *e; e += 2)
      setenv(e[0], e[1], 1);
    body();
    fflush(NULL);
    unlink(err_path);
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
    skip();
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- cases (child bodies) ---- */

static void c_no_driver(void) {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    _exit(77); /* a driver is installed here: nothing to test */
  load(0);
  CHECK(P.number_of_devices() == 0);
  CHECK(strstr(errtext(), "cuda: no CUDA driver (dlopen libcuda.so.1"));
  CHECK(strstr(errtext(), "0 devices"));
  __tgt_device_image img = {host_kernels, host_kernels + 8, NULL, NULL};
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(P.init_device(0) == OFFLOAD_FAIL);
  CHECK(P.data_alloc(0, 8, NULL, 0) == NULL);
}

/* A libcuda.so.1 without the functions the plugin needs. */
static void c_old_driver(void) {
  real_stderr = stderr;
  CHECK(dlopen(FAKE_CUDA_LIBDIR "/../stub/.libs/libcuda.so.1", RTLD_NOW | RTLD_GLOBAL));
  load(0);
  CHECK(P.number_of_devices() == 0);
  CHECK(strstr(errtext(), "cuda: libcuda.so.1 lacks cuDriverGetVersion (driver "
                          "too old?): 0 devices"));
  CHECK(P.init_device(0) == OFFLOAD_FAIL);
}

static void c_init_fail(void) {
  load(1);
  CHECK(P.number_of_devices() == 0);
  CHECK(log_count("cuInit flags=0") == 1);
  CHECK(log_count("cuDeviceGetCount") == 0);
  CHECK(strstr(errtext(), "cuda: cuInit failed: CUDA_ERROR_NO_DEVICE "
                          "(no CUDA-capable device is detected): 0 devices"));
}

/* OMPEMU_TRACE=0: the note shows only when cuda was asked for by name. */
static void c_init_fail_quiet(void) {
  load(1); /* OMPEMU_PLUGINS="emu, cuda?" */
  CHECK(P.number_of_devices() == 0);
  CHECK(!strstr(errtext(), "cuInit failed"));
}

static void c_init_fail_asked(void) {
  load(1); /* OMPEMU_PLUGINS="emu, cuda" */
  CHECK(P.number_of_devices() == 0);
  CHECK(strstr(errtext(), "cuda: cuInit failed: CUDA_ERROR_NO_DEVICE"));
}

static void c_devices(void) {
  load(1);
  CHECK(P.number_of_devices() == 2);
  CHECK(strstr(errtext(), "cuda: device 1: Fake CUDA Device 1, sm_75, 4 SMs"));
  CHECK(P.data_alloc(0, 8, NULL, 0) == NULL); /* before init_device */
  CHECK(strstr(errtext(), "data_alloc: device 0 is not initialised"));
  CHECK(P.init_device(0) == OFFLOAD_SUCCESS);
  CHECK(P.init_device(1) == OFFLOAD_SUCCESS);
  CHECK(P.init_device(0) == OFFLOAD_SUCCESS); /* idempotent */
  CHECK(P.init_device(2) == OFFLOAD_FAIL);
  CHECK(log_count("cuDevicePrimaryCtxRetain dev=0 refs=1") == 1);
  CHECK(log_count("cuDevicePrimaryCtxRetain dev=1 refs=1") == 1);
  CHECK(log_count("cuDevicePrimaryCtxRetain") == 2);
  /* Each device's memory comes from its own range. */
  void *a = P.data_alloc(0, 8, NULL, TARGET_ALLOC_DEFAULT);
  void *b = P.data_alloc(1, 8, NULL, TARGET_ALLOC_DEFAULT);
  CHECK(a == (void *)0x5c0000000000UL);
  CHECK(b == (void *)0x5d0000000000UL);
}

static void c_alloc_kinds(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  log_clear();
  void *d = P.data_alloc(0, 100, NULL, TARGET_ALLOC_DEVICE);
  void *df = P.data_alloc(0, 64, &host_counter, TARGET_ALLOC_DEFAULT);
  void *h = P.data_alloc(0, 32, NULL, TARGET_ALLOC_HOST);
  void *s = P.data_alloc(0, 48, NULL, TARGET_ALLOC_SHARED);
  CHECK(in_fake_range(d) && in_fake_range(df) && in_fake_range(s));
  CHECK(h && !in_fake_range(h));
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=100 -> 0x00005c0000000000") == 1);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=64 -> 0x00005c0000000100") == 1);
  CHECK(log_count("cuMemAllocHost_v2 dev=0 size=32") == 1);
  CHECK(log_count("cuMemAllocManaged dev=0 size=48 flags=1") == 1);
  CHECK(P.data_alloc(0, 8, NULL, 7) == NULL);
  CHECK(strstr(errtext(), "unknown allocation kind 7"));
  CHECK(P.data_alloc(0, 0, NULL, 0) == NULL);
  CHECK(log_count("cuMemAlloc") == 4);
  CHECK(P.data_delete(0, h) == 0);
  CHECK(log_count("cuMemFreeHost ptr=") == 1);
  CHECK(P.data_delete(0, d) == 0);
  CHECK(P.data_delete(0, s) == 0);
  CHECK(log_count("cuMemFree_v2 ptr=0x00005c0000000000 -> 0") == 1);
  CHECK(log_count("cuMemFree_v2") == 2);
  /* A second free of the same pointer is the driver's error, named. */
  CHECK(P.data_delete(0, d) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "cuda: error: cuMemFree failed on device 0 for device "
                          "allocation 0x00005c0000000000: CUDA_ERROR_INVALID_VALUE"));
}

static void c_copies(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
  void *d = P.data_alloc(0, sizeof src, NULL, 0);
  log_clear();
  CHECK(P.data_submit(0, d, src, sizeof src) == 0);
  CHECK(P.data_retrieve(0, dst, d, sizeof dst) == 0);
  CHECK(memcmp(src, dst, sizeof src) == 0);
  char want[160];
  snprintf(want, sizeof want, "cuMemcpyHtoD_v2 dev=0 dst=0x%016lx src=0x%016lx "
           "size=32", (unsigned long)(uintptr_t)d, (unsigned long)(uintptr_t)src);
  CHECK(log_count(want) == 1);
  CHECK(log_count("cuMemcpyDtoH_v2 dev=0") == 1);
  CHECK(P.data_submit(0, d, src, 0) == 0); /* nothing to do: no call */
  CHECK(log_count("cuMemcpy") == 2);
  /* A host pointer where a device pointer belongs. */
  CHECK(P.data_retrieve(0, dst, src, 8) == OFFLOAD_FAIL);
  snprintf(want, sizeof want, "cuMemcpyDtoH failed on device 0 for device "
           "[0x%016lx..0x%016lx) to host", (unsigned long)(uintptr_t)src,
           (unsigned long)(uintptr_t)src + 8);
  CHECK(strstr(errtext(), want));
  CHECK(strstr(errtext(), "CUDA_ERROR_INVALID_VALUE (1): invalid argument"));
  /* Past the end of the allocation. */
  CHECK(P.data_submit(0, (char *)d + 16, src, 32) == OFFLOAD_FAIL);
}

static void c_alloc_fail(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  CHECK(P.data_alloc(0, 16, NULL, 0) != NULL);
  CHECK(P.data_alloc(0, 16, &host_counter, 0) == NULL);
  char want[200];
  snprintf(want, sizeof want, "cuda: error: cuMemAlloc failed on device 0 for 16 "
           "bytes (device) for host 0x%016lx: CUDA_ERROR_OUT_OF_MEMORY (2): "
           "out of memory", (unsigned long)(uintptr_t)&host_counter);
  CHECK(strstr(errtext(), want));
  CHECK(P.data_alloc(0, 16, NULL, TARGET_ALLOC_HOST) == NULL);
  CHECK(strstr(errtext(), "cuMemAllocHost failed on device 0"));
  CHECK(P.data_alloc(0, 16, NULL, TARGET_ALLOC_SHARED) == NULL);
  CHECK(strstr(errtext(), "cuMemAllocManaged failed on device 0"));
}

static void c_valid_binary(void) {
  load(1); /* FAKE_CUDA_CC=75 */
  CHECK(P.number_of_devices() == 1);
  size_t n;
  unsigned char *b;
  __tgt_device_image img;
  b = make_image(&n, 70, 190, 0);
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 1); /* sm_70 runs on 7.5 */
  b = make_image(&n, 75, 190, 0);
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 1);
  b = make_image(&n, 80, 190, 0);
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(strstr(errtext(), "refused: built for sm_80; no device can run it "
                          "(device 0: sm_75)"));
  b = make_image(&n, 100, 190, 1); /* new header layout */
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(strstr(errtext(), "built for sm_100"));
  b = make_image(&n, 75, 62, 0); /* a host image: quiet at level 1 */
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(!strstr(errtext(), "e_machine 62"));
  b = make_image(&n, 0, 190, 0);
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(strstr(errtext(), "name no SM architecture"));
  static char ptx[] = "//\n// Generated by NVIDIA NVVM Compiler\n.version 7.0\n";
  img = (__tgt_device_image){ptx, ptx + sizeof ptx, host_entries, host_entries + 1};
  CHECK(P.is_valid_binary(&img) == 1);
  static char ptx2[] = "\n.version 8.0\n.target sm_75\n";
  img = (__tgt_device_image){ptx2, ptx2 + sizeof ptx2, host_entries, host_entries + 1};
  CHECK(P.is_valid_binary(&img) == 1);
  /* The fake runs no PTX: load_binary reports the driver's refusal. */
  CHECK(P.init_device(0) == 0);
  CHECK(P.load_binary(0, &img) == NULL);
  CHECK(strstr(errtext(), "cuModuleLoadDataEx failed on device 0 for image "));
  CHECK(strstr(errtext(), "CUDA_ERROR_INVALID_PTX"));
  CHECK(strstr(errtext(), "fake-cuda: PTX cannot run on the test double"));
}

static void c_valid_binary_abi8(void) {
  load(1); /* FAKE_CUDA_CC=100 */
  size_t n;
  unsigned char *b = make_image(&n, 100, 190, 1);
  __tgt_device_image img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 1);
  b = make_image(&n, 103, 190, 1);
  img = image_of(b, n);
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(strstr(errtext(), "built for sm_103; no device can run it (device 0: sm_100)"));
  CHECK(P.init_device(0) == 0);
  b = make_image(&n, 100, 190, 1);
  img = image_of(b, n);
  CHECK(P.load_binary(0, &img) != NULL);
  CHECK(log_count("cuModuleLoadDataEx dev=0") == 1);
  CHECK(log_count("sm_100 options=2") == 1);
}

static void c_load_binary(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_target_table *t = load_std();
  __tgt_offload_entry *e = t->EntriesBegin;
  /* Same order, names and flags as the host table. */
  for (int i = 0; i < E_N; i++) {
    CHECK(strcmp(e[i].name, host_entries[i].name) == 0);
    CHECK(e[i].flags == host_entries[i].flags);
    CHECK(e[i].size == host_entries[i].size);
    CHECK(e[i].addr != NULL);
  }
  CHECK(log_count("cuModuleGetFunction") == 8);
  /* 4 globals, 8 <kernel>_exec_mode lookups (one kernel has it), the
   * device environment. */
  CHECK(log_count("_exec_mode -> not found") == 7);
  CHECK(log_count("name=k_read_counter_exec_mode -> 0x") == 1);
  CHECK(log_count("name=omptarget_device_environment -> 0x") == 1);
  CHECK(log_count("cuModuleGetGlobal_v2") == 13);
  char want[200];
  snprintf(want, sizeof want, "name=dev_counter -> 0x%016lx size=4",
           (unsigned long)(uintptr_t)e[E_COUNTER].addr);
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "name=dev_array -> 0x%016lx size=128",
           (unsigned long)(uintptr_t)e[E_ARRAY].addr);
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "name=dev_link_decl_tgt_ref_ptr -> 0x%016lx size=8",
           (unsigned long)(uintptr_t)e[E_LINK].addr);
  CHECK(log_count(want) == 1);
  /* Globals are device memory: read, write, then a kernel sees the write. */
  int v = 0;
  CHECK(P.data_retrieve(0, &v, e[E_COUNTER].addr, sizeof v) == 0);
  CHECK(v == 5);
  v = 77;
  CHECK(P.data_submit(0, e[E_COUNTER].addr, &v, sizeof v) == 0);
  int *out = P.data_alloc(0, sizeof(int), NULL, 0);
  void *args[1] = {out};
  ptrdiff_t offs[1] = {0};
  CHECK(P.run_region(0, e[E_READ].addr, args, offs, 1) == 0);
  int got = 0;
  CHECK(P.data_retrieve(0, &got, out, sizeof got) == 0);
  CHECK(got == 77);
  /* The device environment was written: 1 device, this is device 0. */
  uint32_t *denv = P.data_alloc(0, 8, NULL, 0), henv[2] = {9, 9};
  args[0] = denv;
  CHECK(P.run_region(0, e[E_ENV].addr, args, offs, 1) == 0);
  CHECK(P.data_retrieve(0, henv, denv, sizeof henv) == 0);
  CHECK(henv[0] == 1 && henv[1] == 0);
  /* A second load on the same device is its own module with its own data. */
  size_t n;
  unsigned char *b = make_image(&n, 70, 190, 0);
  __tgt_device_image img2 = image_of(b, n);
  __tgt_target_table *t2 = P.load_binary(0, &img2);
  CHECK(t2 && t2->EntriesBegin[E_COUNTER].addr != e[E_COUNTER].addr);
  CHECK(P.data_retrieve(0, &v, t2->EntriesBegin[E_COUNTER].addr, sizeof v) == 0);
  CHECK(v == 5);
  /* A kernel the image lacks fails the load and names it. */
  __tgt_offload_entry bad[2] = {{&host_kernels[0], "k_store", 0, 0, 0},
                                {&host_kernels[6], "k_missing", 0, 0, 0}};
  __tgt_device_image img3 = {b, b + n, bad, bad + 2};
  CHECK(P.load_binary(0, &img3) == NULL);
  CHECK(strstr(errtext(), "cuModuleGetFunction failed on device 0 for kernel "
                          "'k_missing' in image"));
  CHECK(strstr(errtext(), "CUDA_ERROR_NOT_FOUND (500): named symbol not found"));
  CHECK(log_count("cuModuleUnload") == 1);
  __tgt_offload_entry badg[1] = {{&host_counter, "no_such_global", 4, 0, 0}};
  __tgt_device_image img4 = {b, b + n, badg, badg + 1};
  CHECK(P.load_binary(0, &img4) == NULL);
  CHECK(strstr(errtext(), "cuModuleGetGlobal failed on device 0 for global "
                          "'no_such_global' (4 bytes)"));
  /* An entry pointer from elsewhere is refused before the driver sees it. */
  CHECK(P.run_region(0, &host_kernels[0], args, offs, 1) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "is not a kernel this plugin loaded"));
  /* An image for a newer SM is refused by load_binary too. */
  b = make_image(&n, 80, 190, 0);
  __tgt_device_image img5 = image_of(b, n);
  CHECK(P.load_binary(0, &img5) == NULL);
  CHECK(strstr(errtext(), "device 0 cannot load image"));
  CHECK(strstr(errtext(), "built for sm_80; the device cannot run it (device 0: sm_70)"));
}

static void c_launch(void) {
  load(1); /* FAKE_CUDA_SMS=4 */
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int *out = P.data_alloc(0, sizeof(int), NULL, 0);
  log_clear();
  /* args[i] + offsets[i] is what the kernel gets. */
  void *args[2] = {(char *)out - 8, (void *)(intptr_t)42};
  ptrdiff_t offs[2] = {8, 0};
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 0) == 0);
  int got = 0;
  CHECK(P.data_retrieve(0, &got, out, sizeof got) == 0);
  CHECK(got == 42);
  char want[256];
  snprintf(want, sizeof want, "name=k_store grid=(16,1,1) block=(128,1,1) "
           "shmem=0 stream=");
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "nparams=2 args=0x%016lx,0x000000000000002a",
           (unsigned long)(uintptr_t)out);
  CHECK(log_count(want) == 1);
  CHECK(log_count("run k_store (2 args)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 3, 64, 0) == 0);
  CHECK(log_count("grid=(3,1,1) block=(64,1,1)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 300) == 0);
  CHECK(log_count("grid=(3,1,1) block=(128,1,1)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 100000) == 0);
  CHECK(log_count("grid=(16,1,1) block=(128,1,1)") == 2);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 7, 5000, 0) == 0);
  CHECK(log_count("grid=(7,1,1) block=(1024,1,1)") == 1);
  CHECK(P.run_region(0, e[E_STORE].addr, args, offs, 2) == 0);
  CHECK(log_count("grid=(1,1,1) block=(128,1,1)") == 1);
  /* A generic-mode kernel (k_read_counter_exec_mode = 1) gets a warp more
   * for its main thread, and one team per loop iteration. */
  void *a1[1] = {out};
  CHECK(P.run_team(0, e[E_READ].addr, a1, offs, 1, 2, 64, 0) == 0);
  CHECK(log_count("name=k_read_counter grid=(2,1,1) block=(96,1,1)") == 1);
  CHECK(P.run_team(0, e[E_READ].addr, a1, offs, 1, 0, 0, 10) == 0);
  CHECK(log_count("name=k_read_counter grid=(10,1,1) block=(128,1,1)") == 1);
  /* Eight arguments, all values. */
  long *lo = P.data_alloc(0, sizeof(long), NULL, 0);
  void *a8[9] = {lo};
  ptrdiff_t o8[9] = {0};
  for (int i = 1; i < 9; i++)
    a8[i] = (void *)(intptr_t)i;
  CHECK(P.run_team(0, e[E_MANY].addr, a8, o8, 9, 1, 1, 0) == 0);
  long lv = 0;
  CHECK(P.data_retrieve(0, &lv, lo, sizeof lv) == 0);
  CHECK(lv == 1 + 4 + 9 + 16 + 25 + 36 + 49 + 64);
  CHECK(log_count("nparams=9") == 1);
  /* More arguments than the launch keeps on its stack. */
  void *a21[21] = {lo};
  ptrdiff_t o21[21] = {0};
  for (int i = 1; i < 21; i++)
    a21[i] = (void *)(intptr_t)i;
  CHECK(P.run_team(0, e[E_WIDE].addr, a21, o21, 21, 1, 1, 0) == 0);
  CHECK(P.data_retrieve(0, &lv, lo, sizeof lv) == 0);
  CHECK(lv == 20 * 21 * 41 / 6);
  CHECK(log_count("nparams=21") == 1);
  /* Synchronous launches wait on their stream and reuse it. */
  CHECK(log_count("cuStreamCreate") <= 1);
  CHECK(log_count("cuStreamSynchronize") == 10);
}

static void c_launch_fail(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  void *args[1] = {NULL};
  ptrdiff_t offs[1] = {0};
  CHECK(P.run_team(0, e[E_READ].addr, args, offs, 1, 2, 32, 0) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "cuda: error: cuLaunchKernel failed on device 0 for "
                          "kernel 'k_read_counter' (grid 2, block 64, 1 args): "
                          "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch "
                          "failure"));
}

static void c_async(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int in[4] = {10, 20, 30, 40};
  long res = -1;
  int *din = P.data_alloc(0, sizeof in, NULL, 0);
  long *dout = P.data_alloc(0, sizeof res, NULL, 0);
  log_clear();
  __tgt_async_info ai = {NULL};
  CHECK(P.submit_async(0, din, in, sizeof in, &ai) == 0);
  CHECK(ai.Queue != NULL);
  void *q = ai.Queue;
  void *args[3] = {dout, din, (void *)(intptr_t)4};
  ptrdiff_t offs[3] = {0, 0, 0};
  CHECK(P.run_team_async(0, e[E_SUM].addr, args, offs, 3, 1, 1, 0, &ai) == 0);
  CHECK(P.retrieve_async(0, &res, dout, sizeof res, &ai) == 0);
  CHECK(ai.Queue == q);
  CHECK(res == -1); /* nothing ran yet: the test double waits for a sync */
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(ai.Queue == NULL);
  CHECK(res == 100);
  char want[128];
  snprintf(want, sizeof want, "stream=0x%016lx", (unsigned long)(uintptr_t)q);
  CHECK(log_count("cuStreamCreate dev=0 flags=1") == 1); /* non-blocking */
  CHECK(log_count("cuMemcpyHtoDAsync_v2") == 1);
  CHECK(log_count("cuMemcpyDtoHAsync_v2") == 1);
  CHECK(log_count(want) == 4); /* H2D, launch, D2H, synchronize */
  /* The stream goes back to the pool: the next queue reuses it. */
  CHECK(P.submit_async(0, din, in, sizeof in, &ai) == 0);
  CHECK(ai.Queue == q);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(log_count("cuStreamCreate") == 1);
  CHECK(P.synchronize(0, &ai) == 0); /* nothing queued: no call */
  CHECK(log_count("cuStreamSynchronize") == 2);
}

static void c_events(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  int *d = P.data_alloc(0, sizeof(int), NULL, 0);
  int v = 9, back = 0;
  void *ev = NULL;
  CHECK(P.create_event(0, &ev) == 0 && ev != NULL);
  __tgt_async_info a1 = {NULL}, a2 = {NULL};
  CHECK(P.submit_async(0, d, &v, sizeof v, &a1) == 0);
  CHECK(P.record_event(0, ev, &a1) == 0);
  CHECK(P.wait_event(0, ev, &a2) == 0);
  CHECK(a2.Queue != NULL && a2.Queue != a1.Queue);
  void *q1 = a1.Queue, *q2 = a2.Queue;
  CHECK(P.retrieve_async(0, &back, d, sizeof back, &a2) == 0);
  CHECK(P.synchronize(0, &a2) == 0);
  CHECK(back == 9); /* a2 waited for a1's copy through the event */
  CHECK(P.sync_event(0, ev) == 0);
  CHECK(P.synchronize(0, &a1) == 0);
  CHECK(P.destroy_event(0, ev) == 0);
  char want[160];
  snprintf(want, sizeof want, "cuEventRecord event=0x%016lx stream=0x%016lx",
           (unsigned long)(uintptr_t)ev, (unsigned long)(uintptr_t)q1);
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "cuStreamWaitEvent stream=0x%016lx "
           "event=0x%016lx flags=0", (unsigned long)(uintptr_t)q2,
           (unsigned long)(uintptr_t)ev);
  CHECK(log_count("cuStreamWaitEvent") == 1 && log_count(want) == 1);
  CHECK(log_count("cuEventCreate dev=0 flags=2") == 1);
  CHECK(log_count("cuEventSynchronize") == 1);
  CHECK(log_count("cuEventDestroy_v2") == 1);
}

static void c_fptr(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  /* A second image on the same device also gets the table. */
  size_t n;
  unsigned char *b = make_image(&n, 70, 190, 0);
  __tgt_device_image img2 = image_of(b, n);
  __tgt_offload_entry *e2 = P.load_binary(0, &img2)->EntriesBegin;
  void *dev_twice = e[E_TWICE].addr;
  CHECK(dev_twice != NULL);
  __omp_offloading_fptr_map_ty tab[2] = {
      {(int64_t)(intptr_t)host_twice, (int64_t)(intptr_t)dev_twice},
      {(int64_t)(intptr_t)host_twice + 1, 0}};
  if (tab[0].host_ptr > tab[1].host_ptr) { /* keep it sorted */
    __omp_offloading_fptr_map_ty t = tab[0];
    tab[0] = tab[1];
    tab[1] = t;
  }
  log_clear();
  CHECK(P.set_fptr_map(0, 2, tab) == 0);
  /* The seed's steps: allocate, copy the table, then per module
   * cuModuleGetGlobal + a pointer-sized copy for _p and for _size. */
  const char *L = log_text();
  unsigned long table = 0;
  const char *a = strstr(L, "cuMemAlloc_v2 dev=0 size=32 -> ");
  CHECK(a && sscanf(a, "cuMemAlloc_v2 dev=0 size=32 -> 0x%lx", &table) == 1);
  char want[200];
  snprintf(want, sizeof want, "cuMemcpyHtoD_v2 dev=0 dst=0x%016lx src=0x%016lx "
           "size=32", table, (unsigned long)(uintptr_t)tab);
  CHECK(log_count(want) == 1);
  CHECK(log_count("name=__omp_offloading_fptr_map_p -> ") == 2);
  CHECK(log_count("name=__omp_offloading_fptr_map_size -> ") == 2);
  const char *g = strstr(L, "name=__omp_offloading_fptr_map_p -> ");
  unsigned long gp = 0;
  CHECK(sscanf(g, "name=__omp_offloading_fptr_map_p -> 0x%lx size=8", &gp) == 1);
  snprintf(want, sizeof want, "cuMemcpyHtoD_v2 dev=0 dst=0x%016lx", gp);
  CHECK(log_count(want) == 1);
  CHECK(strstr(strstr(L, want), "size=8"));
  CHECK(log_count("size=8 stream=0x0000000000000000") == 4);
  /* The device sees the globals... */
  int64_t *dg = P.data_alloc(0, 16, NULL, 0);
  void *args[3] = {dg};
  ptrdiff_t offs[3] = {0};
  CHECK(P.run_region(0, e2[E_FGLOB].addr, args, offs, 1) == 0);
  int64_t hg[2];
  CHECK(P.data_retrieve(0, hg, dg, sizeof hg) == 0);
  CHECK((unsigned long)hg[0] == table && hg[1] == 2);
  /* ...and translation on the "device" finds dev_twice for host_twice. */
  int *dout = P.data_alloc(0, sizeof(int), NULL, 0);
  args[0] = dout;
  args[1] = (void *)host_twice;
  args[2] = (void *)(intptr_t)21;
  CHECK(P.run_region(0, e[E_CALL].addr, args, offs, 3) == 0);
  int got = 0;
  CHECK(P.data_retrieve(0, &got, dout, sizeof got) == 0);
  CHECK(got == 42); /* dev_twice; host_twice would give 63 */
  args[1] = (void *)host_other; /* not in the table: unchanged */
  CHECK(P.run_region(0, e[E_CALL].addr, args, offs, 3) == 0);
  CHECK(P.data_retrieve(0, &got, dout, sizeof got) == 0);
  CHECK(got == 1021);
  CHECK(log_count("__kmpc_target_translate_fptr module=") == 2);
  /* A new table replaces the old one. */
  CHECK(P.set_fptr_map(0, 1, tab) == 0);
  snprintf(want, sizeof want, "cuMemFree_v2 ptr=0x%016lx -> 0", table);
  CHECK(log_count(want) == 1);
}

static void c_exchange(void) {
  load(1); /* 2 devices */
  CHECK(P.init_device(0) == 0 && P.init_device(1) == 0);
  CHECK(P.is_exchangable(0, 1) == 1);
  CHECK(P.is_exchangable(0, 0) == 1);
  int v = 1234, back = 0;
  void *a = P.data_alloc(0, sizeof v, NULL, 0);
  void *b = P.data_alloc(1, sizeof v, NULL, 0);
  void *c = P.data_alloc(1, sizeof v, NULL, 0);
  CHECK(P.data_submit(0, a, &v, sizeof v) == 0);
  CHECK(P.exchange(0, a, 1, b, sizeof v) == 0);
  CHECK(P.data_retrieve(1, &back, b, sizeof back) == 0);
  CHECK(back == 1234);
  CHECK(log_count("cuMemcpyPeer dev=1") == 1);
  CHECK(log_count("cuCtxEnablePeerAccess dev=1 peer=0") == 1);
  CHECK(P.exchange(0, a, 1, c, sizeof v) == 0);
  CHECK(log_count("cuCtxEnablePeerAccess") == 1); /* already enabled: ok */
  CHECK(P.exchange(1, b, 1, c, sizeof v) == 0);
  CHECK(log_count("cuMemcpyDtoD_v2 dev=1") == 1);
}

static void c_exchange_nopeer(void) {
  load(1); /* 2 devices, FAKE_CUDA_NO_PEER */
  CHECK(P.init_device(0) == 0 && P.init_device(1) == 0);
  CHECK(P.is_exchangable(0, 1) == 0);
  void *a = P.data_alloc(0, 8, NULL, 0);
  void *b = P.data_alloc(1, 8, NULL, 0);
  CHECK(P.exchange(0, a, 1, b, 8) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "data_exchange: device 1 cannot access device 0"));
  CHECK(log_count("cuMemcpyPeer") == 0);
}

static void c_llvm14_cuda(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/libomptarget.rtl.cuda.so", LLVM14_PLUGIN_DIR);
  if (access(path, R_OK) != 0 || dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    _exit(77);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    _exit(1);
  }
  int32_t (*nd)(void) = (int32_t(*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  if (!nd || nd() != 0)
    _exit(1);
}

/* ---- cmocka wrappers ---- */

#define CASE(name, ...)                                                        \
  static void t_##name(void **state) {                                         \
    (void)state;                                                               \
    static const char *env[] = {"OMPEMU_TRACE", "1", __VA_ARGS__ NULL};        \
    run_child(c_##name, env);                                                  \
  }

CASE(no_driver)
CASE(old_driver)
CASE(init_fail, "FAKE_CUDA_INIT_FAIL", "1", )
CASE(init_fail_quiet, "FAKE_CUDA_INIT_FAIL", "1", "OMPEMU_TRACE", "0",
     "OMPEMU_PLUGINS", "emu, cuda?", )
CASE(init_fail_asked, "FAKE_CUDA_INIT_FAIL", "1", "OMPEMU_TRACE", "0",
     "OMPEMU_PLUGINS", "emu, cuda", )
CASE(devices, "FAKE_CUDA_NUM_DEVICES", "2", "FAKE_CUDA_CC", "75", )
CASE(alloc_kinds)
CASE(copies)
CASE(alloc_fail, "FAKE_CUDA_ALLOC_FAIL_AFTER", "1", )
CASE(valid_binary, "FAKE_CUDA_CC", "75", )
CASE(valid_binary_abi8, "FAKE_CUDA_CC", "100", )
CASE(load_binary)
CASE(launch, "FAKE_CUDA_SMS", "4", )
CASE(launch_fail, "FAKE_CUDA_LAUNCH_FAIL", "1", )
CASE(async)
CASE(events)
CASE(fptr)
CASE(exchange, "FAKE_CUDA_NUM_DEVICES", "2", )
CASE(exchange_nopeer, "FAKE_CUDA_NUM_DEVICES", "2", "FAKE_CUDA_NO_PEER", "1", )
CASE(llvm14_cuda)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_no_driver),     cmocka_unit_test(t_old_driver),
      cmocka_unit_test(t_init_fail),
      cmocka_unit_test(t_init_fail_quiet), cmocka_unit_test(t_init_fail_asked),
      cmocka_unit_test(t_devices),       cmocka_unit_test(t_alloc_kinds),
      cmocka_unit_test(t_copies),        cmocka_unit_test(t_alloc_fail),
      cmocka_unit_test(t_valid_binary),  cmocka_unit_test(t_valid_binary_abi8),
      cmocka_unit_test(t_load_binary),   cmocka_unit_test(t_launch),
      cmocka_unit_test(t_launch_fail),   cmocka_unit_test(t_async),
      cmocka_unit_test(t_events),        cmocka_unit_test(t_fptr),
      cmocka_unit_test(t_exchange),      cmocka_unit_test(t_exchange_nopeer),
      cmocka_unit_test(t_llvm14_cuda),
  };
  return cmocka_run_group_tests_name("cuda plugin with fake libcuda", tests,
                                     NULL, NULL);
}
