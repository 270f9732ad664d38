/* Unit tests of the emu plugin's __tgt_rtl_* entry points (src/plugins/emu/
 * device.c, data.c, plugin.c, fptr.c) over the fake loader: devices and
 * their ranges, memory round trips, refused pointers, image load with the
 * by-name table, launches sync and async, events, the fptr table, and
 * ompemu's extensions (host-pointer aliases, poisoned-byte counts). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/plugin.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "emu.h"
#include "emu_testutil.h"
#include "fake_loader.h"
#include "fault.h"
#include "loader.h"

#define DATA0 EMU_DATA_BASE
#define DATA1 (EMU_DATA_BASE + EMU_DATA_STRIDE)
#define CAP (4u << 20)

static int in_range(const void *p, uintptr_t base, size_t len) {
  return (uintptr_t)p >= base && (uintptr_t)p < base + len;
}

static void test_devices(void **state) {
  (void)state;
  assert_int_equal(__tgt_rtl_number_of_devices(), 2);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS);
  /* ompemu's runtime says so before any device starts; device 0 stands
   * for a plugin under another runtime (test_reuse_by_runtime). */
  assert_int_equal(__tgt_rtl_ompemu_runtime(OMPEMU_RT_DETACHES),
                   OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_init_device(1), OFFLOAD_SUCCESS);
  assert_int_equal(__tgt_rtl_init_device(0), OFFLOAD_SUCCESS); /* again */
  struct capture c;
  capture_begin(&c);
  int r = __tgt_rtl_init_device(2);
  char *out = capture_end(&c);
  assert_int_equal(r, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "no device 2 (the emu plugin has 2)"));
  free(out);
  assert_int_equal(__tgt_rtl_init_requires(1), 1);
  assert_true(__tgt_rtl_is_data_exchangable(0, 1));
  assert_false(__tgt_rtl_is_data_exchangable(0, 2));
  assert_int_equal(__tgt_rtl_supports_empty_images(), 1);
}

static void test_round_trip(void **state) {
  (void)state;
  int host[1000], back[1000];
  for (int i = 0; i < 1000; i++)
    host[i] = i * 7;
  int *d = __tgt_rtl_data_alloc(0, sizeof host, host, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  assert_true(in_range(d, DATA0, CAP));
  assert_int_equal((uintptr_t)d % 256, 0);
  /* Fresh memory reads as poison, not zeros. */
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d, sizeof back), 0);
  assert_int_equal((unsigned)back[0], 0xA5A5A5A5u);
  assert_int_equal(__tgt_rtl_data_submit(0, d, host, sizeof host), 0);
  memset(back, 0, sizeof back);
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d, sizeof back), 0);
  assert_memory_equal(back, host, sizeof host);
  /* Part of a block, size 0. */
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, d + 500, 400), 0);
  assert_int_equal(back[0], 3500);
  assert_int_equal(__tgt_rtl_data_submit(0, d, host, 0), 0);
  /* Async copies with nothing pending complete at once, queue untouched. */
  __tgt_async_info ai = {NULL};
  host[0] = -1;
  assert_int_equal(__tgt_rtl_data_submit_async(0, d, host, 4, &ai), 0);
  assert_int_equal(__tgt_rtl_data_retrieve_async(0, back, d, 4, &ai), 0);
  assert_int_equal(__tgt_rtl_synchronize(0, &ai), 0);
  assert_null(ai.Queue);
  assert_int_equal(back[0], -1);
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
  /* Size 0: a minimal block, still distinct. */
  void *z1 = __tgt_rtl_data_alloc(0, 0, NULL, TARGET_ALLOC_DEVICE);
  void *z2 = __tgt_rtl_data_alloc(0, 0, NULL, TARGET_ALLOC_DEVICE);
  assert_non_null(z1);
  assert_non_null(z2);
  assert_ptr_not_equal(z1, z2);
  assert_int_equal(__tgt_rtl_data_delete(0, z1), 0);
  assert_int_equal(__tgt_rtl_data_delete(0, z2), 0);
  /* Host kind: host memory, deleted by data_delete. */
  char *h = __tgt_rtl_data_alloc(0, 100, NULL, TARGET_ALLOC_HOST);
  assert_non_null(h);
  assert_false(in_range(h, DATA0, EMU_DATA_STRIDE));
  assert_int_equal((unsigned char)h[5], 0xA5);
  h[99] = 1;
  assert_int_equal(__tgt_rtl_data_delete(0, h), 0);
  /* Shared kind: in the data arena, the host may touch it. */
  char *s = __tgt_rtl_data_alloc(0, 100, NULL, TARGET_ALLOC_SHARED);
  assert_true(in_range(s, DATA0, CAP));
  s[0] = 1;
  assert_int_equal(__tgt_rtl_data_delete(0, s), 0);
}

/* A freed block comes back at once where the runtime detaches pointers
 * (device 1), and only after the reuse delay elsewhere (device 0). */
static void test_reuse_by_runtime(void **state) {
  (void)state;
  char host[512];
  void *a1 = __tgt_rtl_data_alloc(1, 512, host, TARGET_ALLOC_DEFAULT);
  assert_int_equal(__tgt_rtl_data_delete(1, a1), 0);
  void *b1 = __tgt_rtl_data_alloc(1, 512, host, TARGET_ALLOC_DEFAULT);
  assert_ptr_equal(b1, a1);
  assert_int_equal(__tgt_rtl_data_delete(1, b1), 0);
  void *a0 = __tgt_rtl_data_alloc(0, 512, host, TARGET_ALLOC_DEFAULT);
  assert_int_equal(__tgt_rtl_data_delete(0, a0), 0);
  void *b0 = __tgt_rtl_data_alloc(0, 512, host, TARGET_ALLOC_DEFAULT);
  assert_ptr_not_equal(b0, a0);
  assert_int_equal(__tgt_rtl_data_delete(0, b0), 0);
}

static void test_bad_pointers(void **state) {
  (void)state;
  int host[64] = {0};
  char *d = __tgt_rtl_data_alloc(0, 100, host, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  struct capture c;
  capture_begin(&c);
  int r1 = __tgt_rtl_data_submit(0, host, host, 16);     /* host as device */
  int r2 = __tgt_rtl_data_submit(0, d + 50, host, 51);   /* overrun */
  int r3 = __tgt_rtl_data_retrieve(0, host, d + 4096, 4); /* not allocated */
  int r4 = __tgt_rtl_data_delete(0, host);
  int r5 = __tgt_rtl_data_delete(0, d + 8);
  int r6 = __tgt_rtl_data_submit(1, d, host, 4); /* other device's memory */
  void *r7 = __tgt_rtl_data_alloc(0, -5, NULL, TARGET_ALLOC_DEFAULT);
  void *r8 = __tgt_rtl_data_alloc(0, 8, NULL, 17);
  int r10 = __tgt_rtl_data_retrieve(0, NULL, d, 4);
  char *out = capture_end(&c);
  assert_int_equal(r10, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "data_retrieve of 4 bytes with a NULL host "
                              "pointer"));
  assert_int_equal(r1, OFFLOAD_FAIL);
  assert_int_equal(r2, OFFLOAD_FAIL);
  assert_int_equal(r3, OFFLOAD_FAIL);
  assert_int_equal(r4, OFFLOAD_FAIL);
  assert_int_equal(r5, OFFLOAD_FAIL);
  assert_int_equal(r6, OFFLOAD_FAIL);
  assert_null(r7);
  assert_null(r8);
  char want[300];
  snprintf(want, sizeof want, "device 0: data_submit of host [0x%016lx, "
           "0x%016lx) and device [0x%016lx, 0x%016lx) refused: it lies "
           "outside device 0's data range", (unsigned long)host,
           (unsigned long)host + 16, (unsigned long)host,
           (unsigned long)host + 16);
  assert_non_null(strstr(out, want));
  snprintf(want, sizeof want, "refused: it overruns the allocation "
           "[0x%016lx, 0x%016lx) of 100 bytes", (unsigned long)d,
           (unsigned long)d + 100);
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, "no live allocation of the device's data "
                              "range holds it"));
  snprintf(want, sizeof want, "data_delete of 0x%016lx refused: it was not "
           "allocated by this device", (unsigned long)host);
  assert_non_null(strstr(out, want));
  snprintf(want, sizeof want, "free of 0x%016lx, which is not the start",
           (unsigned long)(d + 8));
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, "allocation kind 17 is not supported"));
  free(out);
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
  capture_begin(&c);
  int r9 = __tgt_rtl_data_delete(0, d); /* twice */
  free(capture_end(&c));
  assert_int_equal(r9, OFFLOAD_FAIL);
}

/* ompemu_not_device: the same verdicts as the copies, said to the caller
 * (the runtime names the API call), nothing printed. */
static void test_not_device(void **state) {
  (void)state;
  int host[16] = {0};
  char why[200];
  char *d = __tgt_rtl_data_alloc(0, 100, host, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  struct capture c;
  capture_begin(&c);
  int r1 = __tgt_rtl_ompemu_not_device(0, d, 100, why, sizeof why);
  int r2 = __tgt_rtl_ompemu_not_device(0, d + 10, 20, why, sizeof why);
  int r3 = __tgt_rtl_ompemu_not_device(0, host, 16, why, sizeof why);
  char host_why[200];
  memcpy(host_why, why, sizeof why);
  int r4 = __tgt_rtl_ompemu_not_device(0, d + 50, 51, why, sizeof why);
  char over_why[200];
  memcpy(over_why, why, sizeof why);
  int r5 = __tgt_rtl_ompemu_not_device(7, d, 4, why, sizeof why);
  int r6 = __tgt_rtl_ompemu_not_device(0, d, -1, why, sizeof why);
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
  int r7 = __tgt_rtl_ompemu_not_device(0, d, 4, why, sizeof why);
  char *out = capture_end(&c);
  assert_int_equal(r1, 0);
  assert_int_equal(r2, 0);
  assert_int_equal(r3, 1);
  assert_non_null(strstr(host_why, "it lies outside device 0's data range"));
  assert_int_equal(r4, 2);
  assert_non_null(strstr(over_why, "the copy of 51 bytes at offset 50 runs 1 "
                                   "byte past the end of the allocation ["));
  assert_int_equal(r5, -1);
  assert_int_equal(r6, -1);
  assert_int_equal(r7, 1);
  assert_null(strstr(out, "ompemu_not_device of")); /* no copy message */
  free(out);
}

static void test_two_devices_and_capacity(void **state) {
  (void)state;
  void *a = __tgt_rtl_data_alloc(0, 1000, NULL, 0);
  void *b = __tgt_rtl_data_alloc(1, 1000, NULL, 0);
  assert_true(in_range(a, DATA0, CAP));
  assert_true(in_range(b, DATA1, CAP));
  /* Same request history on both devices, same offsets. */
  char x[1000], y[1000];
  memset(x, 3, sizeof x);
  assert_int_equal(__tgt_rtl_data_submit(0, a, x, 1000), 0);
  assert_int_equal(__tgt_rtl_data_exchange(0, a, 1, b, 1000), 0);
  assert_int_equal(__tgt_rtl_data_retrieve(1, y, b, 1000), 0);
  assert_memory_equal(x, y, 1000);
  struct capture c;
  capture_begin(&c);
  int rx = __tgt_rtl_data_exchange(0, b, 1, a, 10); /* swapped devices */
  void *big = __tgt_rtl_data_alloc(0, CAP, NULL, 0);
  char *out = capture_end(&c);
  assert_int_equal(rx, OFFLOAD_FAIL);
  assert_null(big);
  char want[300];
  snprintf(want, sizeof want, "device 0: out of device memory: request of %u "
           "bytes, %zu of %u in use; OMPEMU_DEVICE_MEMORY sets the capacity "
           "(now 4M, at most 16G)", CAP,
           arena_in_use(emu_device_get(0, "test")->data), CAP);
  assert_non_null(strstr(out, want));
  free(out);
  __tgt_rtl_data_delete(0, a);
  __tgt_rtl_data_delete(1, b);
}

/* ---------------------------------------------------------------- images */

static pthread_t kernel_thread;
static int kernel_dev = -1;
static void k_scale(int *a, int *n, void *factor) {
  kernel_thread = pthread_self();
  struct emu_devctx *c = emu_current_ctx();
  kernel_dev = c ? c->device : -1;
  for (int i = 0; i < *n; i++)
    a[i] *= (int)(intptr_t)factor;
}

static void *translated;
static void k_translate(void *fn) {
  translated = __kmpc_target_translate_fptr(fn);
}

static void dev_fn(void) {}
static void host_fn(void) {}

static struct fake_image fimg = {
    FAKE_MAGIC,
    5,
    {{"k_scale", (void *)k_scale, 0, 0},
     {"k_translate", (void *)k_translate, 0, 0},
     {"gvar", NULL, 1, 8},
     {"__omp_offloading_fptr_map_p", NULL, 1, 8},
     {"__omp_offloading_fptr_map_size", NULL, 1, 8}}};

static __tgt_offload_entry hent[] = {
    {(void *)1, "gvar", 8, 0, 0},
    {(void *)2, "nohost_only", 0, 0, 0},
    {(void *)3, "k_scale", 0, 0, 0},
    {(void *)4, "k_translate", 0, 0, 0},
    {(void *)5, "__omp_offloading_fptr_map_p", 8, 0, 0},
    {(void *)6, "__omp_offloading_fptr_map_size", 8, 0, 0},
};

static __tgt_device_image himg[2] = {
    {&fimg, (char *)&fimg + sizeof fimg, hent, hent + 6},
    {&fimg, (char *)&fimg + sizeof fimg, hent, hent + 4},
};
static __tgt_bin_desc desc = {2, himg, hent, hent + 6};

static void test_load_and_launch(void **state) {
  (void)state;
  char junk[64] = "not an image";
  __tgt_device_image bad = {junk, junk + 64, NULL, NULL};
  assert_int_equal(__tgt_rtl_is_valid_binary(&bad), 0);
  assert_int_equal(__tgt_rtl_is_valid_binary(&himg[0]), 1);
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &himg[0]);
  assert_non_null(t);
  assert_int_equal(t->EntriesEnd - t->EntriesBegin, 6);
  /* Host order, by name; a symbol the image lacks gives NULL. */
  for (int i = 0; i < 6; i++) {
    assert_string_equal(t->EntriesBegin[i].name, hent[i].name);
    assert_int_equal(t->EntriesBegin[i].size, hent[i].size);
  }
  uintptr_t code0 = EMU_CODE_BASE;
  assert_true(in_range(t->EntriesBegin[0].addr, code0, EMU_CODE_CAPACITY));
  assert_null(t->EntriesBegin[1].addr);
  void *kscale = t->EntriesBegin[2].addr;
  assert_true(in_range(kscale, code0, EMU_CODE_CAPACITY));
  /* Device globals can be copied to and from. */
  int64_t gv = 77, gb = 0;
  assert_int_equal(__tgt_rtl_data_submit(0, t->EntriesBegin[0].addr, &gv, 8),
                   0);
  assert_int_equal(__tgt_rtl_data_retrieve(0, &gb, t->EntriesBegin[0].addr, 8),
                   0);
  assert_int_equal(gb, 77);
  /* ...but not past the end of the image (a fake image spans 8 KiB). */
  static char big[3 * 4096];
  assert_int_not_equal(
      __tgt_rtl_data_submit(0, t->EntriesBegin[0].addr, big, sizeof big), 0);
  /* A launch on an idle queue runs on the calling thread, unless the
   * image is bound to the device's threads (thread-local data, ...). */
  int host[100];
  for (int i = 0; i < 100; i++)
    host[i] = i;
  int n = 100;
  int *da = __tgt_rtl_data_alloc(0, sizeof host, host, 3);
  int *dn = __tgt_rtl_data_alloc(0, sizeof n, &n, 3);
  __tgt_rtl_data_submit(0, da, host, sizeof host);
  __tgt_rtl_data_submit(0, dn, &n, sizeof n);
  void *args[3] = {da, dn, NULL};
  ptrdiff_t offs[3] = {0, 0, 3};
  assert_int_equal(__tgt_rtl_run_target_team_region(0, kscale, args, offs, 3,
                                                    4, 8, 100), 0);
  assert_true(pthread_equal(kernel_thread, pthread_self()));
  assert_int_equal(kernel_dev, 0);
  __tgt_rtl_data_retrieve(0, host, da, sizeof host);
  assert_int_equal(host[99], 297);
  fake_thread_needs = 1; /* LOADER_THREAD_BOUND */
  for (int i = 0; i < 100; i++)
    host[i] = i;
  __tgt_rtl_data_submit(0, da, host, sizeof host);
  assert_int_equal(__tgt_rtl_run_target_team_region(0, kscale, args, offs, 3,
                                                    4, 8, 100), 0);
  fake_thread_needs = 0;
  assert_false(pthread_equal(kernel_thread, pthread_self()));
  assert_int_equal(kernel_dev, 0);
  __tgt_rtl_data_retrieve(0, host, da, sizeof host);
  assert_int_equal(host[99], 297);
  /* Async: launch, copy back, synchronize. */
  __tgt_async_info ai = {NULL};
  assert_int_equal(__tgt_rtl_run_target_region_async(0, kscale, args, offs, 3,
                                                     &ai), 0);
  assert_int_equal(__tgt_rtl_data_retrieve_async(0, host, da, sizeof host,
                                                 &ai), 0);
  assert_int_equal(__tgt_rtl_synchronize(0, &ai), 0);
  assert_null(ai.Queue);
  assert_int_equal(host[99], 891);
  /* Events through the plugin. */
  void *ev = NULL;
  assert_int_equal(__tgt_rtl_create_event(0, &ev), 0);
  assert_int_equal(__tgt_rtl_run_target_region_async(0, kscale, args, offs, 3,
                                                     &ai), 0);
  assert_int_equal(__tgt_rtl_record_event(0, ev, &ai), 0);
  assert_int_equal(__tgt_rtl_sync_event(0, ev), 0);
  assert_int_equal(__tgt_rtl_synchronize(0, &ai), 0);
  assert_int_equal(__tgt_rtl_destroy_event(0, ev), 0);
  __tgt_rtl_data_retrieve(0, host, da, sizeof host);
  assert_int_equal(host[99], 2673);
  /* Launching something that is not in an image is refused. */
  struct capture c;
  capture_begin(&c);
  int r = __tgt_rtl_run_target_region(0, (void *)k_scale, args, offs, 3);
  int r2 = __tgt_rtl_run_target_region(0, NULL, args, offs, 3);
  char *out = capture_end(&c);
  assert_int_equal(r, OFFLOAD_FAIL);
  assert_int_equal(r2, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "is not in any image loaded on the device"));
  free(out);
  /* An async info from the plugin, and LIBOMPTARGET_INFO's kernel bit. */
  __tgt_async_info *pai = NULL;
  assert_int_equal(__tgt_rtl_init_async_info(0, &pai), 0);
  assert_non_null(pai);
  assert_null(pai->Queue);
  __tgt_rtl_set_info_flag(0x10);
  capture_begin(&c);
  assert_int_equal(__tgt_rtl_run_target_team_region_async(0, kscale, args,
                                                          offs, 3, 2, 3, 0,
                                                          pai), 0);
  out = capture_end(&c);
  __tgt_rtl_set_info_flag(0);
  assert_non_null(strstr(out, "Libomptarget device 0 info: Launching kernel "
                              "k_scale with 2 teams and 3 threads"));
  free(out);
  assert_int_equal(__tgt_rtl_release_async_info(0, pai), 0); /* waits */
  __tgt_rtl_data_retrieve(0, host, da, sizeof host);
  assert_int_equal(host[99], 8019);
  __tgt_device_info di = {NULL, NULL};
  const char *err = "x";
  assert_int_equal(__tgt_rtl_init_device_info(0, &di, &err), 0);
  assert_non_null(di.Device);
  assert_null(err);
  __tgt_rtl_data_delete(0, da);
  __tgt_rtl_data_delete(0, dn);
  /* print_device_info names ranges and images. */
  capture_fd_begin(&c, 1);
  __tgt_rtl_print_device_info(0);
  out = capture_end(&c);
  assert_non_null(strstr(out, "data range:   [0x0000550000000000, "
                              "0x0000550000400000)"));
  assert_non_null(strstr(out, "code range:   [0x0000554000000000"));
  assert_non_null(strstr(out, "images:       1"));
  free(out);
}

static void test_fptr_table(void **state) {
  (void)state;
  struct emu_device *d = emu_device_get(0, "test");
  __tgt_target_table *t = d->images->next ? NULL : &d->images->table;
  assert_non_null(t);
  void *ktr = t->EntriesBegin[3].addr;
  void *pvar = t->EntriesBegin[4].addr, *svar = t->EntriesBegin[5].addr;
  __omp_offloading_fptr_map_ty tab[3] = {
      {(int64_t)(intptr_t)host_fn, (int64_t)(intptr_t)dev_fn},
      {(int64_t)(intptr_t)host_fn + 64, 0x1234},
      {(int64_t)(intptr_t)host_fn + 128, 0x5678}};
  if (tab[0].host_ptr > tab[1].host_ptr)
    abort();
  size_t before = arena_in_use(d->data);
  assert_int_equal(__tgt_rtl_set_function_ptr_map(0, 3, tab), 0);
  assert_int_equal(arena_in_use(d->data), before + 256);
  void *dp = NULL;
  uint64_t ds = 0;
  __tgt_rtl_data_retrieve(0, &dp, pvar, 8);
  __tgt_rtl_data_retrieve(0, &ds, svar, 8);
  assert_int_equal(ds, 3);
  assert_true(in_range(dp, DATA0, CAP));
  __omp_offloading_fptr_map_ty back[3];
  assert_int_equal(__tgt_rtl_data_retrieve(0, back, dp, sizeof back), 0);
  assert_memory_equal(back, tab, sizeof tab);
  /* A kernel translates through the table. */
  void *arg[1] = {(void *)host_fn};
  assert_int_equal(__tgt_rtl_run_target_region(0, ktr, arg, NULL, 1), 0);
  assert_ptr_equal(translated, (void *)dev_fn);
  arg[0] = (char *)host_fn + 1;
  assert_int_equal(__tgt_rtl_run_target_region(0, ktr, arg, NULL, 1), 0);
  assert_ptr_equal(translated, (char *)host_fn + 1);
  /* An image loaded later gets the current table. */
  __tgt_target_table *t2 = __tgt_rtl_load_binary(0, &himg[1]);
  assert_non_null(t2);
  void *pvar2 = loader_symbol(d->images->next->img,
                              "__omp_offloading_fptr_map_p", NULL);
  assert_ptr_not_equal(pvar2, pvar);
  void *dp2 = NULL;
  __tgt_rtl_data_retrieve(0, &dp2, pvar2, 8);
  assert_ptr_equal(dp2, dp);
  /* Replacing frees the old table; the device-routine way sets it too. */
  d = emu_device_get(0, "test");
  emu_plugin()->fptr_kernel = 1;
  assert_int_equal(__tgt_rtl_set_function_ptr_map(0, 1, tab), 0);
  emu_plugin()->fptr_kernel = 0;
  assert_int_equal(arena_in_use(d->data), before + 256);
  void *dp3 = NULL;
  __tgt_rtl_data_retrieve(0, &dp3, pvar2, 8);
  __tgt_rtl_data_retrieve(0, &ds, svar, 8);
  assert_int_equal(ds, 1);
  assert_true(in_range(dp3, DATA0, CAP));
  assert_int_equal(arena_check(d->data, dp, 1), -1); /* old one freed */
  arg[0] = (void *)host_fn;
  assert_int_equal(__tgt_rtl_run_target_region(0, ktr, arg, NULL, 1), 0);
  assert_ptr_equal(translated, (void *)dev_fn);
  /* An unsorted table is refused and the current one stays. */
  __omp_offloading_fptr_map_ty bad[2] = {tab[1], tab[0]};
  struct capture c;
  capture_begin(&c);
  int rb = __tgt_rtl_set_function_ptr_map(0, 2, bad);
  char *out = capture_end(&c);
  assert_int_equal(rb, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "the table is not sorted by host address: row 1"));
  free(out);
  __tgt_rtl_data_retrieve(0, &ds, svar, 8);
  assert_int_equal(ds, 1);
  /* Size 0 clears it. */
  assert_int_equal(__tgt_rtl_set_function_ptr_map(0, 0, NULL), 0);
  assert_int_equal(arena_in_use(d->data), before);
  __tgt_rtl_data_retrieve(0, &ds, svar, 8);
  assert_int_equal(ds, 0);
  assert_int_equal(__tgt_rtl_run_target_region(0, ktr, arg, NULL, 1), 0);
  assert_ptr_equal(translated, (void *)host_fn);
}

static void test_unregister(void **state) {
  (void)state;
  int unloads = fake_unloads;
  __tgt_target_table *t = __tgt_rtl_load_binary(1, &himg[0]);
  assert_non_null(t);
  void *gvar = t->EntriesBegin[0].addr;
  int64_t v = 5;
  assert_int_equal(__tgt_rtl_data_submit(1, gvar, &v, sizeof v), 0);
  assert_int_equal(__tgt_rtl_unregister_lib(&desc), 0);
  assert_int_equal(fake_unloads, unloads + 3);
  /* The unloaded image's globals are no longer device memory. */
  struct capture c;
  capture_begin(&c);
  int r = __tgt_rtl_data_submit(1, gvar, &v, sizeof v);
  char *out = capture_end(&c);
  assert_int_not_equal(r, 0);
  assert_non_null(strstr(out, "in the code range but not inside one loaded "
                              "image"));
  free(out);
  assert_null(emu_device_get(0, "test")->images);
  assert_null(emu_device_get(1, "test")->images);
  assert_int_equal(arena_in_use(emu_device_get(0, "test")->code), 0);
}

/* Times NEEDLE occurs in HAY. */
static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* A kernel that cannot start (here: an injected fault, which takes the
 * same path on the worker as a failed libffi preparation) fails its
 * launch, or the synchronize of its queue, with one message naming the
 * kernel and the device; the kernel does not run. */
static void test_launch_failures(void **state) {
  (void)state;
  __tgt_target_table *t = __tgt_rtl_load_binary(0, &himg[0]);
  assert_non_null(t);
  void *kscale = t->EntriesBegin[2].addr;
  int host[4] = {1, 2, 3, 4}, n = 4;
  int *da = __tgt_rtl_data_alloc(0, sizeof host, host, 3);
  int *dn = __tgt_rtl_data_alloc(0, sizeof n, &n, 3);
  assert_int_equal(__tgt_rtl_data_submit(0, da, host, sizeof host), 0);
  assert_int_equal(__tgt_rtl_data_submit(0, dn, &n, sizeof n), 0);
  void *args[3] = {da, dn, (void *)(intptr_t)10};
  emu_inject_configure("launch:2");
  /* Synchronous: the first runs, the second fails. */
  assert_int_equal(__tgt_rtl_run_target_region(0, kscale, args, NULL, 3),
                   OFFLOAD_SUCCESS);
  struct capture c;
  capture_begin(&c);
  int r = __tgt_rtl_run_target_team_region(0, kscale, args, NULL, 3, 1, 1, 0);
  char *out = capture_end(&c);
  assert_int_equal(r, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "emu: error: device 0: kernel k_scale (0x0000554"
                              "000000000) could not start: injected fault "
                              "(OMPEMU_INJECT=launch:2)"));
  assert_int_equal(count_of(out, "\n"), 1);
  free(out);
  assert_int_equal(__tgt_rtl_data_retrieve(0, host, da, sizeof host), 0);
  assert_int_equal(host[3], 40); /* once, not twice */
  /* Asynchronous: accepted, then the queue's synchronize fails, once. */
  emu_inject_configure("launch:1");
  __tgt_async_info ai = {NULL};
  capture_begin(&c);
  int r1 = __tgt_rtl_run_target_region_async(0, kscale, args, NULL, 3, &ai);
  int r2 = __tgt_rtl_data_retrieve_async(0, host, da, sizeof host, &ai);
  char *before_sync = capture_end(&c);
  capture_begin(&c);
  int r3 = __tgt_rtl_synchronize(0, &ai);
  int r4 = __tgt_rtl_synchronize(0, &ai); /* nothing queued any more */
  out = capture_end(&c);
  assert_int_equal(r1, OFFLOAD_SUCCESS);
  assert_int_equal(r2, OFFLOAD_SUCCESS);
  assert_string_equal(before_sync, "");
  assert_int_equal(r3, OFFLOAD_FAIL);
  assert_int_equal(r4, OFFLOAD_SUCCESS);
  assert_null(ai.Queue);
  assert_int_equal(count_of(out, "could not start"), 1);
  assert_non_null(strstr(out, "device 0: kernel k_scale"));
  free(before_sync);
  free(out);
  assert_int_equal(host[3], 40); /* the failed kernel did not run */
  /* release_async_info reports a queue's failure too. */
  __tgt_async_info *pai = NULL;
  assert_int_equal(__tgt_rtl_init_async_info(0, &pai), 0);
  emu_inject_configure("launch:1");
  assert_int_equal(__tgt_rtl_run_target_region_async(0, kscale, args, NULL, 3,
                                                     pai), OFFLOAD_SUCCESS);
  capture_begin(&c);
  r = __tgt_rtl_release_async_info(0, pai);
  out = capture_end(&c);
  assert_int_equal(r, OFFLOAD_FAIL);
  assert_int_equal(count_of(out, "could not start"), 1);
  free(out);
  /* An allocation can be made to fail too; the next one works. */
  emu_inject_configure("alloc:1");
  capture_begin(&c);
  void *p1 = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT);
  out = capture_end(&c);
  assert_null(p1);
  assert_non_null(strstr(out, "emu: error: device 0: allocation of 64 bytes "
                              "(default) failed: injected fault "
                              "(OMPEMU_INJECT=alloc:1)"));
  free(out);
  void *p2 = __tgt_rtl_data_alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(p2);
  /* A malformed setting is reported and ignored. */
  capture_begin(&c);
  emu_inject_configure("launch:0,alloc:x,bogus:3,launch");
  out = capture_end(&c);
  assert_int_equal(count_of(out, "OMPEMU_INJECT: '"), 4);
  assert_non_null(strstr(out, "'bogus:3' is not launch:N or alloc:N"));
  free(out);
  assert_int_equal(__tgt_rtl_run_target_region(0, kscale, args, NULL, 3),
                   OFFLOAD_SUCCESS);
  emu_inject_configure(NULL);
  assert_int_equal(__tgt_rtl_data_delete(0, p2), 0);
  assert_int_equal(__tgt_rtl_data_delete(0, da), 0);
  assert_int_equal(__tgt_rtl_data_delete(0, dn), 0);
  __tgt_bin_desc one = {1, himg, hent, hent + 6};
  assert_int_equal(__tgt_rtl_unregister_lib(&one), 0);
}

/* Threads of this process (entries of /proc/self/task). */
static int thread_count(void) {
  DIR *dir = opendir("/proc/self/task");
  int n = 0;
  for (struct dirent *e; dir && (e = readdir(dir));)
    n += e->d_name[0] != '.';
  if (dir)
    closedir(dir);
  return n;
}

/* 1 if a mapping of /proc/self/maps holds ADDR. */
static int mapped(uintptr_t addr) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int hit = 0;
  while (f && !hit && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    hit = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && addr >= lo && addr < hi;
  }
  if (f)
    fclose(f);
  return hit;
}

/* At exit the plugin joins its workers, unloads what is still loaded,
 * frees host-kind blocks and unmaps both ranges of every device; a later
 * call fails with a message. */
static void test_shutdown(void **state) {
  (void)state;
  assert_non_null(__tgt_rtl_load_binary(1, &himg[0]));
  void *hb = __tgt_rtl_data_alloc(1, 100, NULL, TARGET_ALLOC_HOST);
  assert_non_null(hb);
  int loads = fake_loads, unloads = fake_unloads;
  assert_true(mapped(DATA0) && mapped(DATA1) && mapped(EMU_CODE_BASE));
  int before = thread_count();
  emu_shutdown();
  assert_int_equal(thread_count(), before - 4); /* 2 devices x 2 workers */
  assert_int_equal(fake_unloads - unloads, 1);
  assert_int_equal(fake_loads, loads);
  assert_false(mapped(DATA0) || mapped(DATA1) || mapped(EMU_CODE_BASE) ||
               mapped(EMU_CODE_BASE + EMU_CODE_STRIDE));
  struct capture c;
  capture_begin(&c);
  void *p = __tgt_rtl_data_alloc(0, 8, NULL, TARGET_ALLOC_DEFAULT);
  char *out = capture_end(&c);
  assert_null(p);
  assert_non_null(strstr(out, "data_alloc: device 0 is closed"));
  free(out);
  emu_shutdown(); /* again: nothing left to do */
}


/* ompemu_poisoned_bytes counts what no copy wrote; a launch pays the poison
 * a fresh block owes (a copy that covers it leaves none to pay). */
static void test_poisoned_bytes(void **state) {
  (void)state;
  double host[100];
  for (int i = 0; i < 100; i++)
    host[i] = i;
  double *d = __tgt_rtl_data_alloc(0, sizeof host, host, TARGET_ALLOC_DEFAULT);
  int64_t count = -1;
  assert_int_equal(__tgt_rtl_ompemu_poisoned_bytes(0, d, sizeof host, &count),
                   0);
  assert_int_equal(count, sizeof host);
  assert_int_equal(__tgt_rtl_data_submit(0, d + 10, host, 80), 0);
  assert_int_equal(__tgt_rtl_ompemu_poisoned_bytes(0, d, sizeof host, &count),
                   0);
  assert_int_equal(count, sizeof host - 80);
  struct capture c;
  capture_begin(&c);
  int32_t rc = __tgt_rtl_ompemu_poisoned_bytes(0, d, sizeof host + 1, &count);
  char *out = capture_end(&c);
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "ompemu_poisoned_bytes of device"));
  free(out);
  assert_int_equal(__tgt_rtl_data_delete(0, d), 0);
}

/* ompemu_note_pointers: refused out of check mode and for a range that
 * does not hold every device address; once the caller takes the scan
 * over, the plugin leaves copies unscanned. */
static void test_note_pointers(void **state) {
  (void)state;
  const uint64_t lo = 0x10000, span = 0x800000000000ull - 0x10000;
  assert_int_equal(__tgt_rtl_ompemu_note_pointers(0, NULL, 0, lo, span),
                   OFFLOAD_FAIL);
  emu_plugin()->check = 1;
  assert_int_equal(__tgt_rtl_ompemu_note_pointers(0, NULL, 0, lo, 0x1000),
                   OFFLOAD_FAIL);
  assert_int_equal(
      __atomic_load_n(&emu_plugin()->dev[0].runtime_notes, __ATOMIC_RELAXED),
      0);
  assert_int_equal(__tgt_rtl_ompemu_note_pointers(0, NULL, 0, lo, span),
                   OFFLOAD_SUCCESS);
  assert_int_equal(
      __atomic_load_n(&emu_plugin()->dev[0].runtime_notes, __ATOMIC_RELAXED),
      1);
  uint64_t words[2] = {42, DATA0 + 64};
  assert_int_equal(__tgt_rtl_ompemu_note_pointers(0, words, sizeof words, 0,
                                                  0),
                   OFFLOAD_SUCCESS);
  emu_plugin()->check = 0;
  __atomic_store_n(&emu_plugin()->dev[0].runtime_notes, 0, __ATOMIC_RELAXED);
}

static void deref_alias(void) {
  static double row[4];
  double *a = __tgt_rtl_ompemu_host_alias(0, row, "rows[2]");
  (void)*(volatile double *)(a + 3);
}

/* Aliases: one per host pointer and description, in the alias range, with
 * the pointer's offset in its page; dereferencing one ends the run with a
 * message naming the host pointer (SIGSEGV outside check mode). */
static void test_host_alias(void **state) {
  (void)state;
  static char buf[8192];
  char *a = __tgt_rtl_ompemu_host_alias(0, buf + 5, "buf + 5");
  assert_true(in_range(a, EMU_ALIAS_BASE, EMU_ALIAS_SIZE));
  assert_int_equal((uintptr_t)a % 4096, (uintptr_t)(buf + 5) % 4096);
  assert_ptr_equal(__tgt_rtl_ompemu_host_alias(0, buf + 5, "buf + 5"), a);
  char *b = __tgt_rtl_ompemu_host_alias(0, buf + 5, "other");
  assert_ptr_not_equal(b, a);
  assert_int_equal((uintptr_t)b - (uintptr_t)a, 16u << 20);
  assert_null(__tgt_rtl_ompemu_host_alias(7, buf, "no device 7"));
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL); /* not cmocka's */
    fault_install();
    dup2(fds[1], 2);
    deref_alias();
    _exit(0);
  }
  close(fds[1]);
  char out[2048] = "";
  ssize_t n = 0, r;
  while ((r = read(fds[0], out + n, sizeof out - 1 - (size_t)n)) > 0)
    n += r;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status));
  if (!strstr(out, "dereferenced host pointer"))
    fprintf(stderr, "got: %s\n", out);
  assert_non_null(strstr(out, "emu: error: check: device code dereferenced "
                              "host pointer 0x"));
  assert_non_null(strstr(out, " (rows[2]) + 24 (read at 0x00005544"));
}

int main(void) {
  setenv("OMPEMU_NUM_DEVICES", "2", 1);
  setenv("OMPEMU_DEVICE_MEMORY", "4M", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_devices),
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_reuse_by_runtime),
      cmocka_unit_test(test_bad_pointers),
      cmocka_unit_test(test_not_device),
      cmocka_unit_test(test_two_devices_and_capacity),
      cmocka_unit_test(test_load_and_launch),
      cmocka_unit_test(test_fptr_table),
      cmocka_unit_test(test_unregister),
      cmocka_unit_test(test_launch_failures),
      cmocka_unit_test(test_poisoned_bytes),
      cmocka_unit_test(test_note_pointers),
      cmocka_unit_test(test_host_alias),
      cmocka_unit_test(test_shutdown),
  };
  return cmocka_run_group_tests_name("emu plugin", tests, NULL, NULL);
}
