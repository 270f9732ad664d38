/* Unit tests of the runtime core (registration, plugin selection, by-name
 * entry pairing, globals, ctor/dtor order, the indirect-function table,
 * device checks, diagnostics from plugins) against the fake plugins built
 * in tests/unit.  The data path (mapping) is replaced by recording
 * stubs. */
#define _GNU_SOURCE
#include "config.h"
#include "../../src/runtime/core.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_plugin.h"
#include <ompemu/omptarget.h>

/* ---- stubs of the data path ---- */
struct map_rec { void *hst; size_t size; void *tgt; int dev; };
static struct map_rec maps[64];
static int nmaps;
static struct map_rec unmaps[64];
static int nunmaps;
static char last_err[512];  /* the last "Libomptarget error: " text */
static char last_line[512]; /* the last diagnostic line */

int rt_map_global(struct rt_device *d, void *hst, size_t size, void *tgt,
                  const char *name) {
  if (nmaps < 64)
    maps[nmaps++] = (struct map_rec){hst, size, tgt, d->id};
  return 0;
}
void rt_unmap_globals(struct rt_device *d, const void *b, const void *e) {
  if (nunmaps < 64)
    unmaps[nunmaps++] = (struct map_rec){(void *)b, (size_t)((char *)e - (char *)b),
                                         NULL, d->id};
}
void rt_dump_table(struct rt_device *d, ident_t *loc) {}
void rt_unmap_all(struct rt_device *d) {}

/* Sees every diagnostic of the process (the runtime's observer hook). */
static void observe(enum ompemu_severity sev, const char *line) {
  const char *p = "Libomptarget error: ";
  snprintf(last_line, sizeof last_line, "%s", line);
  if (!strncmp(line, p, strlen(p)))
    snprintf(last_err, sizeof last_err, "%s", line + strlen(p));
}

/* ---- fixtures ---- */
static char builddir[2048];
static char emu_copy[2400]; /* the fake plugin copied as libomptarget.rtl.emu.so */
static char emu_dir[] = "/tmp/ompemu-test-core-emu-XXXXXX";
static char trace_path[] = "/tmp/ompemu-test-core-XXXXXX";
static struct fake_log *flog;

static char kA1, kA2, ctorA1, ctorA2, dtorA1, dtorA2;
static int gA;
static void *lnk_ref;
static __tgt_offload_entry hostA[] = {
    {&kA1, "kA1", 0, 0, 0},
    {&gA, "gA", sizeof gA, 0, 0},
    {&ctorA1, "ctor1", 0, OMP_DECLARE_TARGET_CTOR, 0},
    {&ctorA2, "ctor2", 0, OMP_DECLARE_TARGET_CTOR, 0},
    {&dtorA1, "dtor1", 0, OMP_DECLARE_TARGET_DTOR, 0},
    {&dtorA2, "dtor2", 0, OMP_DECLARE_TARGET_DTOR, 0},
    {&kA2, "kA2", 0, 0, 0},
    {&lnk_ref, "lnk_decl_tgt_ref_ptr", 8, OMP_DECLARE_TARGET_LINK, 0},
};
/* Device order unlike the host's, one device-only entry, no link entry. */
static struct fake_image imgA = {
    FAKE_MAGIC, {{0}}, 8,
    {{(void *)0x1002, "kA2", 0, 0, 0},
     {(void *)0x2000, "gA", 4, 0, 0},
     {(void *)0x3004, "dtor2", 0, 4, 0},
     {(void *)0x3001, "ctor1", 0, 2, 0},
     {(void *)0x1001, "kA1", 0, 0, 0},
     {(void *)0x3002, "ctor2", 0, 2, 0},
     {(void *)0x3003, "dtor1", 0, 4, 0},
     {(void *)0x9999, "devonly", 0, 0, 0}}};
static __tgt_device_image imagesA[] = {
    {&imgA, &imgA + 1, hostA, hostA + 8}};
static __tgt_bin_desc descA = {1, imagesA, hostA, hostA + 8};

static char fns[3], fns2[1];
static __tgt_offload_entry hostB[] = {
    {&fns[2], "f2", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {&fns[0], "f0", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {&fns[1], "f1", 0, OMP_DECLARE_TARGET_FPTR, 0},
};
static struct fake_image imgB = {
    FAKE_MAGIC, {{0}}, 3,
    {{(void *)0x5000, "f0", 0, 8, 0},
     {(void *)0x5001, "f1", 0, 8, 0},
     {(void *)0x5002, "f2", 0, 8, 0}}};
static __tgt_device_image imagesB[] = {{&imgB, &imgB + 1, hostB, hostB + 3}};
static __tgt_bin_desc descB = {1, imagesB, hostB, hostB + 3};

static __tgt_offload_entry hostC[] = {
    {&fns2[0], "g0", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {&fns[0], "f0", 0, OMP_DECLARE_TARGET_FPTR, 0}, /* exact duplicate */
};
static struct fake_image imgC = {
    FAKE_MAGIC, {{0}}, 2,
    {{(void *)0x6000, "g0", 0, 8, 0}, {(void *)0x5000, "f0", 0, 8, 0}}};
static __tgt_device_image imagesC[] = {{&imgC, &imgC + 1, hostC, hostC + 2}};
static __tgt_bin_desc descC = {1, imagesC, hostC, hostC + 2};

static char ctorE;
static __tgt_offload_entry hostE[] = {
    {&ctorE, "ctorE", 0, OMP_DECLARE_TARGET_CTOR, 0}};
static struct fake_image imgE = {
    FAKE_MAGIC, {{0}}, 1, {{(void *)FAKE_FAILING_ENTRY, "ctorE", 0, 2, 0}}};
static __tgt_device_image imagesE[] = {{&imgE, &imgE + 1, hostE, hostE + 1}};
static __tgt_bin_desc descE = {1, imagesE, hostE, hostE + 1};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return strdup("");
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return strdup(buf);
}

static void plugin_path(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/tests/unit/.libs/libomptarget.rtl.%s.so", builddir,
           name);
}

/* ---- tests ---- */
static void test_plugin_selection(void **state) {
  char a[2400], b[2400], c[2400], list[10000];
  plugin_path(a, sizeof a, "fakemissing");
  plugin_path(b, sizeof b, "fakezero");
  plugin_path(c, sizeof c, "fake");
  snprintf(list, sizeof list, "%s,%s,nosuchplugin,%s,%s", a, b, c, emu_copy);
  setenv("OMPEMU_PLUGINS", list, 1);
  __tgt_register_lib(&descA);
  assert_non_null(rt_state.plugins);
  assert_string_equal(rt_state.plugins->name, "fake");
  assert_non_null(rt_state.plugins->next);
  assert_string_equal(rt_state.plugins->next->name, "emu");
  assert_null(rt_state.plugins->next->next);
  /* Only the plugin that claimed an image has device ids. */
  assert_int_equal(rt_state.num_devices, FAKE_NUM_DEVICES);
  assert_int_equal(rt_state.plugins->next->first_id, -1);
  assert_int_equal(rt_state.plugins->first_id, 0);
  void *h = dlopen(c, RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(h);
  flog = dlsym(h, "fake_log");
  assert_non_null(flog);
  /* Lazy: nothing initialised or loaded at registration. */
  assert_int_equal(flog->inits, 0);
  assert_int_equal(flog->loads, 0);
  char *t = slurp(trace_path);
  assert_non_null(strstr(t, "required symbol __tgt_rtl_run_target_team_region missing"));
  assert_non_null(strstr(t, "plugin fakezero"));
  assert_non_null(strstr(t, "0 devices, skipped"));
  assert_non_null(strstr(t, "plugin nosuchplugin: not loaded"));
  assert_non_null(strstr(t, "image 0 claimed by plugin fake"));
  free(t);
}

static void test_by_name(void **state) {
  struct rt_device *d = rt_device_get(0);
  assert_non_null(d);
  assert_null(rt_device_get(2));
#ifdef __GLIBC__
  /* The map lock, taken several times per launch by every host thread, is
   * adaptive (hotlock.h): PTHREAD_MUTEX_ADAPTIVE_NP is 3 in glibc. */
  assert_int_equal(d->map_lock.mutex.__data.__kind & 0x7f, 3);
#endif
  assert_int_equal(rt_device_prepare(d), 0);
  assert_int_equal(flog->inits, 1);
  assert_int_equal(flog->loads, 1);
  const char *name;
  assert_ptr_equal(rt_device_entry(d, &kA1, &name), (void *)0x1001);
  assert_string_equal(name, "kA1");
  assert_ptr_equal(rt_device_entry(d, &kA2, NULL), (void *)0x1002);
  assert_null(rt_device_entry(d, &lnk_ref, NULL)); /* no device entry */
  char local;
  assert_null(rt_device_entry(d, &local, NULL)); /* not an entry */
  /* The `to` global is mapped; the link slot (no device copy) is not. */
  assert_int_equal(nmaps, 1);
  assert_ptr_equal(maps[0].hst, &gA);
  assert_int_equal(maps[0].size, sizeof gA);
  assert_ptr_equal(maps[0].tgt, (void *)0x2000);
  assert_int_equal(rt_device_prepare(d), 0); /* nothing new: no reload */
  assert_int_equal(flog->loads, 1);
  assert_int_equal(flog->inits, 1);
}

static void test_ctor_order(void **state) {
  assert_int_equal(flog->nruns, 2);
  assert_ptr_equal(flog->runs[0], (void *)0x3001);
  assert_ptr_equal(flog->runs[1], (void *)0x3002);
  assert_int_equal(flog->run_dev[0], 0);
}

static void test_fptr_sorted(void **state) {
  __tgt_register_lib(&descB);
  struct rt_device *d = rt_device_get(0);
  assert_int_equal(rt_device_prepare(d), 0);
  assert_int_equal(flog->loads, 2);
  assert_int_equal(flog->fptr_calls, 1);
  assert_int_equal(flog->nfptr, 3);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(flog->fptr[i].host_ptr, (int64_t)(intptr_t)&fns[i]);
    assert_int_equal(flog->fptr[i].tgt_ptr, 0x5000 + i);
  }
  /* Function addresses are mappable as data: size-1 mappings. */
  int found = 0;
  for (int i = 0; i < nmaps; i++)
    if (maps[i].hst == &fns[1] && maps[i].size == 1 &&
        maps[i].tgt == (void *)0x5001)
      found = 1;
  assert_true(found);
  assert_ptr_equal(rt_device_entry(d, &fns[2], NULL), (void *)0x5002);
}

static void test_fptr_merge(void **state) {
  __tgt_register_lib(&descC);
  struct rt_device *d = rt_device_get(0);
  assert_int_equal(rt_device_prepare(d), 0);
  assert_int_equal(flog->fptr_calls, 2);
  assert_int_equal(flog->nfptr, 4); /* exact duplicate dropped */
  for (uint64_t i = 1; i < flog->nfptr; i++)
    assert_true(flog->fptr[i - 1].host_ptr < flog->fptr[i].host_ptr);
}

static void test_fptr_conflict(void **state) {
  __omp_offloading_fptr_map_ty rows[] = {{30, 3}, {10, 1}, {20, 2}, {10, 1}};
  assert_int_equal(rt_fptr_sort(rows, NULL, NULL, 4), 3);
  assert_int_equal(rows[0].host_ptr, 10);
  assert_int_equal(rows[2].host_ptr, 30);
  __omp_offloading_fptr_map_ty bad[] = {{10, 1}, {10, 2}};
  const char *names[] = {"a", "b"}, *libs[] = {"liba", "libb"};
  assert_int_equal(rt_fptr_sort(bad, names, libs, 2), -1);
}

static void test_unregister_middle(void **state) {
  int calls = flog->fptr_calls, un = flog->unregisters;
  nunmaps = 0;
  /* Found (and kept in this thread's entry cache) before the library goes,
   * not found after. */
  assert_ptr_equal(rt_device_entry(rt_device_get(0), &fns[1], NULL),
                   (void *)0x5001);
  __tgt_unregister_lib(&descB);
  assert_null(rt_device_entry(rt_device_get(0), &fns[1], NULL));
  assert_int_equal(flog->unregisters, un + 1);
  assert_int_equal(flog->fptr_calls, calls + 1);
  assert_int_equal(flog->nfptr, 2); /* f0 (still in C) and g0 */
  assert_int_equal(nunmaps, 3);
  struct rt_lib *l;
  int idx;
  assert_int_equal(rt_index_find(&fns[1], &l, &idx), -1);
  assert_int_equal(rt_index_find(&fns2[0], &l, &idx), 0);
  assert_ptr_equal(l->desc, &descC);
  assert_int_equal(idx, 0);
  struct rt_device *d = rt_device_get(0);
  assert_ptr_equal(rt_device_entry(d, &kA1, NULL), (void *)0x1001);
  __tgt_unregister_lib(&descB); /* twice: ignored */
  assert_int_equal(flog->unregisters, un + 1);
}

static void test_dtors_reverse(void **state) {
  int n0 = flog->nruns;
  __tgt_unregister_lib(&descA);
  assert_int_equal(flog->nruns, n0 + 2);
  assert_ptr_equal(flog->runs[n0], (void *)0x3004);     /* dtor2 */
  assert_ptr_equal(flog->runs[n0 + 1], (void *)0x3003); /* dtor1 */
  for (int i = 0; i < flog->nruns; i++)
    assert_int_equal(flog->run_dev[i], 0); /* device 1 never started */
  assert_null(rt_device_entry(rt_device_get(0), &kA1, NULL));
  __tgt_unregister_lib(&descC);
  assert_null(rt_state.libs);
}

static void test_ctor_failure(void **state) {
  __tgt_register_lib(&descE);
  last_err[0] = 0;
  assert_int_equal(rt_device_prepare(rt_device_get(1)), -1);
  char want[64];
  snprintf(want, sizeof want, "Running ctor 0x%016lx failed.",
           (unsigned long)(uintptr_t)&ctorE);
  assert_string_equal(last_err, want);
  __tgt_unregister_lib(&descE);
}

/* The fake plugin reports its failing kernel with its own copy of
 * src/common: the line reaches this (the runtime's) copy, is counted and
 * seen by the observer, once, before the runtime's own line. */
static void test_plugin_diagnostic_counted(void **state) {
  __tgt_register_lib(&descE);
  unsigned long before = ompemu_error_count();
  int lines = 0;
  char first[512] = "";
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd[1], 2);
  assert_int_equal(rt_device_prepare(rt_device_get(0)), -1);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd[1]);
  char buf[4096] = {0};
  ssize_t n = read(fd[0], buf, sizeof buf - 1);
  close(fd[0]);
  assert_true(n > 0);
  for (char *p = buf; (p = strchr(p, '\n')); p++)
    lines++;
  sscanf(buf, "%511[^\n]", first);
  char want[128];
  snprintf(want, sizeof want, "fake: error: device 0: kernel 0x%016lx "
           "failed", (unsigned long)FAKE_FAILING_ENTRY);
  assert_string_equal(first, want);
  assert_int_equal(lines, 2); /* the plugin's line, then LLVM's */
  assert_int_equal(ompemu_error_count(), before + 2);
  assert_non_null(strstr(last_line, "Running ctor"));
  __tgt_unregister_lib(&descE);
}

static void test_device_check(void **state) {
  __tgt_register_lib(&descA);
  setenv("OMP_DEFAULT_DEVICE", "1", 1);
  int64_t id = -1;
  struct rt_device *d;
  assert_int_equal(rt_check_device(&id, &d), 0);
  assert_int_equal(id, 1);
  assert_non_null(d);
  assert_int_equal(d->id, 1);
  assert_int_equal(rt_offload_policy(), 2); /* default -> mandatory */
  id = FAKE_NUM_DEVICES; /* the initial device */
  assert_int_equal(rt_check_device(&id, &d), 1);
  id = 7;
  last_err[0] = 0;
  assert_int_equal(rt_check_device(&id, &d), -1);
  assert_string_equal(last_err, "Device 7 is not ready.");
  __tgt_unregister_lib(&descA);
}

static void test_requires(void **state) {
  __tgt_register_requires(OMP_REQ_NONE);
  __tgt_register_requires(OMP_REQ_NONE | OMP_REQ_DYNAMIC_ALLOCATORS);
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    __tgt_register_requires(OMP_REQ_UNIFIED_SHARED_MEMORY);
    _exit(0);
  }
  close(fd[1]);
  char buf[512] = {0};
  ssize_t n = 0, r;
  while ((r = read(fd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
    n += r;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  assert_true(n > 0);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
  assert_non_null(strstr(buf, "Libomptarget fatal error 1: '#pragma omp "
                              "requires unified_shared_memory' not used consistently!"));
}

static void test_kinds_and_image_info(void **state) {
  assert_string_equal(rt_arch_kind("sm_70"), "nvidia");
  assert_string_equal(rt_arch_kind("gfx906"), "amd");
  assert_string_equal(rt_arch_kind("x86-64"), "host");
  assert_null(rt_arch_kind(NULL));
  struct rt_plugin emu = {.name = "emu"}, cuda = {.name = "cuda"};
  assert_string_equal(rt_plugin_kind(&emu), "host");
  assert_string_equal(rt_plugin_kind(&cuda), "nvidia");
  __tgt_image_info info = {1, 0, 1, "x86-64", NULL};
  __tgt_register_image_info(&info);
  __tgt_register_lib(&descE);
  assert_non_null(rt_state.libs);
  assert_string_equal(rt_state.libs->images[0].arch, "x86-64");
  assert_non_null(rt_state.libs->images[0].plugin);
  __tgt_unregister_lib(&descE);
}

/* Three images of one library: sm_70 and gfx906 are never offered to the
 * host-kind plugin "emu"; the fake plugin (unknown kind) takes the first
 * image it accepts, "emu" the x86-64 one, and gets device ids after the
 * fake plugin's. */
static char kF;
static __tgt_offload_entry hostF[] = {{&kF, "kF", 0, 0, 0}};
static struct fake_image imgF = {
    FAKE_MAGIC, {{0}}, 1, {{(void *)0x7000, "kF", 0, 0, 0}}};
static __tgt_device_image imagesF[] = {{&imgF, &imgF + 1, hostF, hostF + 1},
                                       {&imgF, &imgF + 1, hostF, hostF + 1},
                                       {&imgF, &imgF + 1, hostF, hostF + 1}};
static __tgt_bin_desc descF = {3, imagesF, hostF, hostF + 1};

static void test_arch_selection(void **state) {
  static char *arch[] = {"sm_70", "gfx906", "x86-64"};
  for (int i = 0; i < 3; i++) {
    __tgt_image_info info = {1, i, 3, arch[i], NULL};
    __tgt_register_image_info(&info);
  }
  __tgt_register_lib(&descF);
  struct rt_lib *l = rt_state.libs;
  while (l->next)
    l = l->next;
  assert_ptr_equal(l->desc, &descF);
  assert_string_equal(l->images[0].arch, "sm_70");
  assert_string_equal(l->images[0].plugin->name, "fake");
  assert_null(l->images[1].plugin);
  assert_non_null(l->images[2].plugin);
  assert_string_equal(l->images[2].plugin->name, "emu");
  assert_int_equal(l->images[2].plugin->first_id, FAKE_NUM_DEVICES);
  assert_int_equal(rt_state.num_devices, 2 * FAKE_NUM_DEVICES);
  char *t = slurp(trace_path);
  assert_non_null(strstr(t, "image 1 (arch gfx906) is for amd devices: not offered to plugin emu"));
  free(t);
  struct rt_device *d = rt_device_get(FAKE_NUM_DEVICES);
  assert_int_equal(rt_device_prepare(d), 0);
  assert_ptr_equal(rt_device_entry(d, &kF, NULL), (void *)0x7000);
  __tgt_unregister_lib(&descF);
}

/* What clang 16, 19 and 22 register: an OffloadBinary container around
 * the image (the plugin sees the image inside), a 56-byte entry table
 * with a requires entry (its bits recorded, as __tgt_register_requires
 * would), an indirect function whose device symbol is a pointer variable
 * (the function it holds feeds the fptr table), a vtable (not mapped) and
 * an entry of an unknown kind (skipped with a trace). */
struct entry56 {
  uint64_t reserved;
  uint16_t version, kind;
  uint32_t flags;
  void *addr;
  const char *name;
  uint64_t size, data;
  void *aux;
};
static char kG, fnG, vtG[40], oddG[4];
static int gG;
static void *dev_fnG_var = (void *)0x8100; /* the device pointer variable */
static struct entry56 hostG[] = {
    {0, 1, 1, 0, &kG, "kG", 0, 0, NULL},
    {0, 1, 1, 0x10, NULL, ".requires", 0, OMP_REQ_DYNAMIC_ALLOCATORS, NULL},
    {0, 1, 1, 0, &gG, "gG", sizeof gG, 0, NULL},
    {0, 1, 1, 0x8, &fnG, "fnG", 8, 0, NULL},
    {0, 1, 1, 0x20, vtG, "vtG_addr", sizeof vtG, 0, NULL},
    {0, 1, 1, 0x40, oddG, "oddG", sizeof oddG, 0, NULL},
};
static struct fake_image imgG = {
    FAKE_MAGIC, {{0}}, 5,
    {{(void *)0x8001, "kG", 0, 0, 0},
     {(void *)0x8002, "gG", 4, 0, 0},
     {&dev_fnG_var, "fnG", 8, 8, 0},
     {(void *)0x8200, "vtG_addr", 40, 0x20, 0},
     {(void *)0x8300, "oddG", 4, 0x40, 0}}};
/* The container: header, one entry, two string pairs, strings, image. */
static union {
  unsigned char b[0x100 + sizeof(struct fake_image)];
  uint64_t align;
} boxG;
static __tgt_device_image imagesG[1];
static __tgt_bin_desc descG;

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void make_container(void) {
  unsigned char *b = boxG.b;
  memcpy(b, "\x10\xff\x10\xad", 4);
  uint32_t one = 1;
  memcpy(b + 4, &one, 4);
  put64(b + 8, sizeof boxG.b);
  put64(b + 16, 0x20);
  put64(b + 24, 0x28);
  uint16_t kind = 1;
  /* Image kind 0 (none): an "object" must be ELF, the fake image is not. */
  memcpy(b + 0x22, &kind, 2); /* offload kind: OpenMP */
  put64(b + 0x28, 0x48);      /* string table */
  put64(b + 0x30, 2);
  put64(b + 0x38, 0x100);     /* image offset */
  put64(b + 0x40, sizeof imgG);
  put64(b + 0x48, 0x68);
  put64(b + 0x50, 0x6f);
  put64(b + 0x58, 0x83);
  put64(b + 0x60, 0x88);
  memcpy(b + 0x68, "triple\0x86_64-pc-linux-gnu\0arch\0", 0x89 - 0x68);
  memcpy(b + 0x100, &imgG, sizeof imgG);
  imagesG[0] = (__tgt_device_image){b, b + sizeof boxG.b,
                                    (__tgt_offload_entry *)hostG,
                                    (__tgt_offload_entry *)(hostG + 6)};
  descG = (__tgt_bin_desc){1, imagesG, (__tgt_offload_entry *)hostG,
                           (__tgt_offload_entry *)(hostG + 6)};
}

static void test_newer_formats(void **state) {
  make_container();
  int maps0 = nmaps, loads = flog->loads;
  __tgt_register_lib(&descG);
  struct rt_lib *l = rt_state.libs;
  while (l->next)
    l = l->next;
  assert_ptr_equal(l->desc, &descG);
  assert_non_null(l->images[0].plugin);
  assert_string_equal(l->images[0].plugin->name, "fake");
  assert_ptr_equal(l->images[0].image->ImageStart, boxG.b + 0x100);
  assert_int_equal(l->host_end - l->host_begin, 4); /* requires, odd out */
  struct rt_device *d = rt_device_get(0);
  assert_int_equal(rt_device_prepare(d), 0);
  assert_int_equal(flog->loads, loads + 1);
  assert_ptr_equal(rt_device_entry(d, &kG, NULL), (void *)0x8001);
  /* gG mapped; fnG mapped to the function its pointer variable holds;
   * neither the vtable nor the unknown entry mapped. */
  int g = 0, f = 0;
  for (int i = maps0; i < nmaps; i++) {
    if (maps[i].hst == &gG && maps[i].tgt == (void *)0x8002)
      g++;
    else if (maps[i].hst == &fnG && maps[i].tgt == (void *)0x8100 &&
             maps[i].size == 1)
      f++;
    else
      fail_msg("unexpected mapping of %p", maps[i].hst);
  }
  assert_int_equal(g, 1);
  assert_int_equal(f, 1);
  int found = 0;
  for (uint64_t i = 0; i < flog->nfptr; i++)
    if (flog->fptr[i].host_ptr == (int64_t)(intptr_t)&fnG &&
        flog->fptr[i].tgt_ptr == 0x8100)
      found = 1;
  assert_true(found);
  char *t = slurp(trace_path);
  assert_non_null(strstr(t, "is an OffloadBinary container: OpenMP none "
                            "image for x86_64-pc-linux-gnu"));
  assert_non_null(strstr(t, "56-byte llvm_offload_entries layout"));
  assert_non_null(strstr(t, "requires entry \".requires\": flags 0x10\n"));
  assert_non_null(strstr(t, "ompemu: register requires 0x010\n"));
  assert_non_null(strstr(t, "\"oddG\" has flags 0x40, of a kind ompemu does "
                            "not know: skipped"));
  free(t);
  __tgt_unregister_lib(&descG);
  /* A requires entry that contradicts the earlier requires is the same
   * fatal error as two contradicting __tgt_register_requires. */
  hostG[1].data = OMP_REQ_UNIFIED_SHARED_MEMORY;
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    __tgt_register_lib(&descG);
    _exit(0);
  }
  close(fd[1]);
  char buf[512] = {0};
  ssize_t n = 0, r;
  while ((r = read(fd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
    n += r;
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  hostG[1].data = OMP_REQ_DYNAMIC_ALLOCATORS;
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
  assert_non_null(strstr(buf, "'#pragma omp requires unified_shared_memory' "
                              "not used consistently!"));
}

/* Process exit: every library unregistered (dtors run), then devices and
 * plugins freed; a registration after that is ignored. */
static void test_shutdown(void **state) {
  __tgt_register_lib(&descA);
  struct rt_device *d = rt_device_get(0);
  assert_int_equal(rt_device_prepare(d), 0);
  int n0 = flog->nruns, un = flog->unregisters;
  rt_registry_shutdown();
  assert_int_equal(flog->nruns, n0 + 2); /* the two dtors of A */
  assert_int_equal(flog->unregisters, un + 1);
  assert_null(rt_state.libs);
  assert_null(rt_state.plugins);
  assert_null(rt_state.devices);
  assert_int_equal(rt_num_devices(), 0);
  assert_null(rt_device_get(0));
  __tgt_register_lib(&descA);
  assert_null(rt_state.libs);
  /* clang 19/22 unregister from their own atexit handler, which may run
   * after ours: a no-op then. */
  __tgt_unregister_lib(&descA);
  __tgt_unregister_lib(&descG);
  assert_int_equal(flog->unregisters, un + 1);
  int64_t id = 0;
  assert_int_equal(rt_check_device(&id, &d), -1); /* no device any more */
  rt_registry_shutdown(); /* again, as the exit handler will: nothing */
}

int main(void) {
  const char *b = getenv("OMPEMU_BUILDDIR");
  snprintf(builddir, sizeof builddir, "%s", b ? b : ".");
  int fd = mkstemp(trace_path);
  if (fd >= 0)
    close(fd);
  if (mkdtemp(emu_dir)) {
    char src[2400], cmd[5000];
    snprintf(src, sizeof src, "%s/tests/unit/.libs/libomptarget.rtl.fake.so", builddir);
    snprintf(emu_copy, sizeof emu_copy, "%s/libomptarget.rtl.emu.so", emu_dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, emu_copy);
    if (system(cmd) != 0)
      fprintf(stderr, "# cannot copy %s\n", src);
  }
  ompemu_set_diag_observer(observe);
  setenv("OMPEMU_TRACE", "2", 1);
  setenv("OMPEMU_TRACE_FILE", trace_path, 1);
  unsetenv("OMP_TARGET_OFFLOAD");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plugin_selection),
      cmocka_unit_test(test_by_name),
      cmocka_unit_test(test_ctor_order),
      cmocka_unit_test(test_fptr_sorted),
      cmocka_unit_test(test_fptr_merge),
      cmocka_unit_test(test_fptr_conflict),
      cmocka_unit_test(test_unregister_middle),
      cmocka_unit_test(test_dtors_reverse),
      cmocka_unit_test(test_ctor_failure),
      cmocka_unit_test(test_plugin_diagnostic_counted),
      cmocka_unit_test(test_device_check),
      cmocka_unit_test(test_requires),
      cmocka_unit_test(test_kinds_and_image_info),
      cmocka_unit_test(test_arch_selection),
      cmocka_unit_test(test_newer_formats),
      cmocka_unit_test(test_shutdown),
  };
  int rc = cmocka_run_group_tests_name("core", tests, NULL, NULL);
  unlink(trace_path);
  unlink(emu_copy);
  rmdir(emu_dir);
  return rc;
}
