/* Host program of the declare-target-indirect tests (issue 6), lowered by
 * hand: __tgt_target_mapper calls with hand-built map arrays run the kernels
 * of device_kernels.c.  Modes (argv[1]):
 *   basic    translate and call every indirect function; check the table
 *   notfound pointers that are not indirect functions come back unchanged
 *   devices  two devices, each with its own table and device functions
 *   threads  eight device threads translate at once
 *   libs     a dlopen'ed library with its own indirect functions: tables
 *            merged; after dlclose its functions are gone from the table
 * Exit 0 when every check passes; each failed check prints a line.
 *
 * The range checks name the emu device's layout.  The cuda and hsa test
 * doubles' runners build this file with their own: -DDATA_BASE=... and
 * -DSTRIDE=... (device k's data in [DATA_BASE + k * STRIDE, + STRIDE)), and
 * -DCODE_FILE='"name-"' with -D_GNU_SOURCE: device functions must lie in a
 * loaded file whose name contains CODE_FILE (their code is no fixed range). */
#include <ompemu/omptarget.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DATA_BASE
#define DATA_BASE 0x550000000000ULL
#endif
#ifndef STRIDE
#define STRIDE 0x000400000000ULL
#endif
#define CODE_BASE 0x554000000000ULL
#define CODE_STRIDE 0x000020000000ULL

extern int (*const f_table[])(int);
extern const long f_count;
extern const char fk_id[4];

static int failures;
#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      failures++;                                                            \
      if (failures < 20) {                                                   \
        printf("FAIL %s:%d: ", __FILE__, __LINE__);                          \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
      }                                                                      \
    }                                                                        \
  } while (0)

static int in_range(uintptr_t p, unsigned long long base, int dev) {
  return p >= base + dev * STRIDE && p < base + (dev + 1) * STRIDE;
}

/* 1 if P may be device DEV's translation of a function. */
static int in_device_code(void *p, int dev) {
#ifdef CODE_FILE
  Dl_info i;
  (void)dev;
  return dladdr(p, &i) && i.dli_fname && strstr(i.dli_fname, CODE_FILE);
#else
  uintptr_t x = (uintptr_t)p;
  return x >= CODE_BASE + dev * CODE_STRIDE &&
         x < CODE_BASE + (dev + 1) * CODE_STRIDE;
#endif
}

/* Run kernel K (0 translate, 1 call, 3 threads) of the library whose region
 * ids are IDS on DEV over N pointers FPS; results into OUT (OUT_BYTES). */
static int run3(const char *ids, int k, int64_t dev, void **fps, long n,
                void *out, int64_t out_bytes) {
  long nn = n;
  void *args[3] = {fps, out, &nn};
  int64_t sizes[3] = {n * (int64_t)sizeof(void *), out_bytes, sizeof nn};
  int64_t types[3] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM};
  return __tgt_target_mapper(NULL, dev, (void *)&ids[k], 3, args, args, sizes,
                             types, NULL, NULL);
}

static int table_info(const char *ids, int64_t dev, int64_t info[3]) {
  void *args[1] = {info};
  int64_t sizes[1] = {3 * sizeof(int64_t)};
  int64_t types[1] = {OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM};
  return __tgt_target_mapper(NULL, dev, (void *)&ids[2], 1, args, args, sizes,
                             types, NULL, NULL);
}

/* Translate and call all of FNS (N) on DEV; check results and ranges. */
static void check_set(const char *ids, int dev, int (*const *fns)(int), long n) {
  void **fps = malloc(n * sizeof *fps), **out = calloc(n, sizeof *out);
  int *res = calloc(n, sizeof *res);
  for (long i = 0; i < n; i++)
    fps[i] = (void *)fns[i];
  CHECK(run3(ids, 0, dev, fps, n, out, n * sizeof *out) == 0, "translate launch on device %d", dev);
  for (long i = 0; i < n; i++) {
    CHECK(out[i] != fps[i], "fn %ld: host %p not translated", i, fps[i]);
    CHECK(in_device_code(out[i], dev),
          "fn %ld: device address %p outside device %d's code range", i, out[i], dev);
    CHECK(i == 0 || out[i] != out[i - 1], "fn %ld: same device address as fn %ld", i, i - 1);
  }
  CHECK(run3(ids, 1, dev, fps, n, res, n * sizeof *res) == 0, "call launch on device %d", dev);
  for (long i = 0; i < n; i++)
    CHECK(res[i] == (int)i * 3 + (int)i, "fn %ld(%ld) gave %d, want %d", i, i, res[i], (int)i * 4);
  free(fps);
  free(out);
  free(res);
}

static void check_table(const char *ids, int dev, long expect) {
  int64_t info[3] = {0};
  CHECK(table_info(ids, dev, info) == 0, "table kernel on device %d", dev);
  CHECK(in_range((uintptr_t)info[0], DATA_BASE, dev),
        "device %d: table at 0x%lx outside its data range", dev, (unsigned long)info[0]);
  CHECK(info[1] == expect, "device %d: table has %ld entries, want %ld", dev, (long)info[1], expect);
  CHECK(info[2] == 1, "device %d: table not sorted by host_ptr", dev);
  printf("device %d: table of %ld entries at 0x%016lx\n", dev, (long)info[1], (unsigned long)info[0]);
}

static int host_only(int x) { return x; }
static int data_word;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "basic";
  if (!strcmp(mode, "basic")) {
    check_table(fk_id, 0, f_count);
    check_set(fk_id, 0, f_table, f_count);
  } else if (!strcmp(mode, "notfound")) {
    void *fps[4] = {(void *)host_only, &data_word, (void *)0x1234, (void *)f_table[0]};
    void *out[4] = {0};
    CHECK(run3(fk_id, 0, 0, fps, 4, out, sizeof out) == 0, "translate launch");
    CHECK(out[0] == fps[0], "host-only function changed: %p -> %p", fps[0], out[0]);
    CHECK(out[1] == fps[1], "data pointer changed: %p -> %p", fps[1], out[1]);
    CHECK(out[2] == fps[2], "0x1234 changed to %p", out[2]);
    CHECK(out[3] != fps[3], "indirect function %p not translated", fps[3]);
  } else if (!strcmp(mode, "devices")) {
    int64_t i0[3], i1[3];
    CHECK(omp_get_num_devices() >= 2, "need 2 devices, have %d", omp_get_num_devices());
    check_set(fk_id, 0, f_table, f_count);
    check_set(fk_id, 1, f_table, f_count);
    check_table(fk_id, 0, f_count);
    check_table(fk_id, 1, f_count);
    table_info(fk_id, 0, i0);
    table_info(fk_id, 1, i1);
    CHECK(i0[0] != i1[0], "both devices share one table address");
    /* Each device has its own copy of every function (with CODE_FILE the
     * range checks of check_set cannot tell the devices apart). */
    long n = f_count;
    void **fps = malloc(n * sizeof *fps), **o0 = calloc(n, sizeof *o0), **o1 = calloc(n, sizeof *o1);
    for (long i = 0; i < n; i++)
      fps[i] = (void *)f_table[i];
    CHECK(run3(fk_id, 0, 0, fps, n, o0, n * sizeof *o0) == 0, "translate launch on device 0");
    CHECK(run3(fk_id, 0, 1, fps, n, o1, n * sizeof *o1) == 0, "translate launch on device 1");
    for (long i = 0; i < n; i++)
      CHECK(o0[i] != o1[i], "fn %ld: both devices give %p", i, o0[i]);
    free(fps);
    free(o0);
    free(o1);
  } else if (!strcmp(mode, "threads")) {
    long n = f_count;
    void **fps = malloc(n * sizeof *fps), **out = calloc(8 * n, sizeof *out), **one = calloc(n, sizeof *one);
    for (long i = 0; i < n; i++)
      fps[i] = (void *)f_table[i];
    CHECK(run3(fk_id, 0, 0, fps, n, one, n * sizeof *one) == 0, "translate launch");
    CHECK(run3(fk_id, 3, 0, fps, n, out, 8 * n * sizeof *out) == 0, "threads launch");
    for (long k = 0; k < 8; k++)
      for (long i = 0; i < n; i++)
        CHECK(out[k * n + i] == one[i], "thread %ld fn %ld: %p, want %p", k, i, out[k * n + i], one[i]);
    free(fps);
    free(out);
    free(one);
  } else if (!strcmp(mode, "libs")) {
    const char *lib = argc > 2 ? argv[2] : "libfptr_lib.so";
    check_table(fk_id, 0, f_count);
    void *h = dlopen(lib, RTLD_NOW);
    if (!h) {
      printf("FAIL dlopen %s: %s\n", lib, dlerror());
      return 1;
    }
    int (*const *g_table)(int) = dlsym(h, "g_table");
    const long *g_count = dlsym(h, "g_count");
    const char *gk_id = dlsym(h, "gk_id");
    CHECK(g_table && g_count && gk_id, "library symbols missing");
    if (failures)
      return 1;
    long ng = *g_count;
    void **gp = malloc(ng * sizeof *gp), **out = calloc(ng, sizeof *out);
    for (long i = 0; i < ng; i++)
      gp[i] = (void *)g_table[i];
    /* One merged table: the library's kernels and the program's see both. */
    check_table(fk_id, 0, f_count + ng);
    check_table(gk_id, 0, f_count + ng);
    check_set(fk_id, 0, g_table, ng);
    check_set(gk_id, 0, f_table, f_count);
    dlclose(h);
    check_table(fk_id, 0, f_count);
    CHECK(run3(fk_id, 0, 0, gp, ng, out, ng * sizeof *out) == 0, "translate after dlclose");
    for (long i = 0; i < ng; i++)
      CHECK(out[i] == gp[i], "unregistered fn %ld still translated to %p", i, out[i]);
    check_set(fk_id, 0, f_table, f_count);
    free(gp);
    free(out);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  printf("%s: %s\n", mode, failures ? "FAILED" : "ok");
  return failures != 0;
}
