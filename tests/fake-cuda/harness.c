/* The shared part of the cuda plugin's test programs (see harness.h):
 * loading the double and the plugin in a child, stderr capture, the test
 * image and its host entries, and the child runner. */
#define _GNU_SOURCE
#include "harness.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

struct plugin_fns P;
void *plugin_handle;
const char *(*log_text)(void);
int (*log_count)(const char *);
void (*log_clear)(void);
long (*calls_total)(void);
long (*calls_of)(const char *);
void (*calls_reset)(void);
int (*live_device_allocs)(void);
int (*live_host_allocs)(void);
FILE *real_stderr;
static char err_path[] = "/tmp/test-cuda-plugin-err-XXXXXX";

void dump_state(void) {
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

const char *errtext(void) {
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

void load(int with_fake) {
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
    *(void **)&log_text = sym(f, "fake_cuda_log_text");
    *(void **)&log_count = sym(f, "fake_cuda_log_count");
    *(void **)&log_clear = sym(f, "fake_cuda_log_clear");
    *(void **)&calls_total = sym(f, "fake_cuda_calls_total");
    *(void **)&calls_of = sym(f, "fake_cuda_calls_of");
    *(void **)&calls_reset = sym(f, "fake_cuda_calls_reset");
    *(void **)&live_device_allocs = sym(f, "fake_cuda_live_device_allocs");
    *(void **)&live_host_allocs = sym(f, "fake_cuda_live_host_allocs");
  }
  void *h = dlopen(PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    fprintf(real_stderr, "%s\n", dlerror());
  CHECK(h != NULL);
  plugin_handle = h;
#define S(field, name)                                                         \
  CHECK((*(void **)&P.field = sym(h, "__tgt_rtl_" #name)));
  PLUGIN_FNS(S)
#undef S
}

void unload_plugin(void) {
  CHECK(plugin_handle != NULL);
  CHECK(dlclose(plugin_handle) == 0);
  plugin_handle = NULL;
  memset(&P, 0, sizeof P);
}

/* Images stay allocated until exit, as a program's images do, and
 * reachable from here (valgrind: no "definitely lost" in the children;
 * not static, or the never-read stores would be optimised away). */
unsigned char *made_images[64];
static size_t n_made_images;

unsigned char *make_image(size_t *len, int sm, int machine, int abi8) {
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

int host_counter;
static int host_array[4], host_link;
int host_twice(int x) { return 3 * x; } /* differs from dev_twice */
int host_other(int x) { return x + 1000; }
char host_kernels[8];
__tgt_offload_entry host_entries[] = {
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

__tgt_device_image image_of(unsigned char *b, size_t n) {
  __tgt_device_image img = {b, b + n, host_entries, host_entries + E_N};
  return img;
}

__tgt_target_table *load_std(void) {
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

int in_fake_range(void *p) {
  uintptr_t a = (uintptr_t)p;
  return a >= 0x5c0000000000UL && a < 0x5d0000000000UL;
}

void run_child(void (*body)(void), const char **env) {
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
  /* Not cmocka's skip(): its TAP line ("not ok N # SKIP") is a failure to
   * automake's driver, so a machine with a real libcuda.so.1 would fail
   * no_driver.  Say so and pass. */
  if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
    print_message("# this case does not apply on this machine: not run\n");
    return;
  }
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

void (*gate_arm)(const char *);
int (*gate_waiting)(void);
void (*gate_open)(void);

void load_gate(void) {
  void *f = dlopen(FAKE_LIB, RTLD_NOW | RTLD_NOLOAD);
  CHECK(f != NULL);
  *(void **)&gate_arm = dlsym(f, "fake_cuda_gate_arm");
  *(void **)&gate_waiting = dlsym(f, "fake_cuda_gate_waiting");
  *(void **)&gate_open = dlsym(f, "fake_cuda_gate_open");
  CHECK(gate_arm && gate_waiting && gate_open);
}

void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
  nanosleep(&ts, NULL);
}

void until_gated(void) {
  for (int i = 0; i < 10000 && !gate_waiting(); i++)
    sleep_ms(1);
  CHECK(gate_waiting());
}
