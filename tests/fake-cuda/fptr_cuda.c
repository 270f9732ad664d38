/* Host program of the declare-target-indirect test on the cuda plugin with
 * the driver test double: the kernels of tests/lowered/fptr/device_kernels.c
 * (translate, call, table, threads), run through __tgt_target_mapper.  The
 * fake keeps device memory at 0x5c0000000000 + device * 0x10000000000; the
 * device functions live in the module the fake loaded, never at the host
 * functions' addresses.  Modes (argv[1]): basic, devices, threads.
 * Exit 0 when every check passes. */
#include <ompemu/omptarget.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_BASE 0x5c0000000000ULL
#define FAKE_STRIDE 0x010000000000ULL

extern int (*const f_table[])(int);
extern const long f_count;
extern const char fk_id[4];

static int failures;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      if (++failures < 20) {                                                   \
        printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
        printf(__VA_ARGS__);                                                   \
        printf("\n");                                                          \
      }                                                                        \
    }                                                                          \
  } while (0)

/* Kernel K of fk_id on DEV over the N pointers FPS, results in OUT. */
static int run3(int k, int64_t dev, void **fps, long n, void *out, int64_t bytes) {
  long nn = n;
  void *args[3] = {fps, out, &nn};
  int64_t sizes[3] = {n * (int64_t)sizeof(void *), bytes, sizeof nn};
  int64_t types[3] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM};
  return __tgt_target_mapper(NULL, dev, (void *)&fk_id[k], 3, args, args, sizes,
                             types, NULL, NULL);
}

/* info = {table address, entries, sorted} as device DEV sees them. */
static void check_table(int dev, int64_t info[3]) {
  void *args[1] = {info};
  int64_t sizes[1] = {3 * sizeof(int64_t)};
  int64_t types[1] = {OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM};
  CHECK(__tgt_target_mapper(NULL, dev, (void *)&fk_id[2], 1, args, args, sizes,
                            types, NULL, NULL) == 0, "table kernel on %d", dev);
  uint64_t lo = FAKE_BASE + (uint64_t)dev * FAKE_STRIDE;
  CHECK((uint64_t)info[0] >= lo && (uint64_t)info[0] < lo + FAKE_STRIDE,
        "device %d: table at 0x%lx is not device %d memory", dev,
        (unsigned long)info[0], dev);
  CHECK(info[1] == f_count, "device %d: %ld entries, want %ld", dev,
        (long)info[1], f_count);
  CHECK(info[2] == 1, "device %d: table not sorted", dev);
  printf("device %d: table of %ld entries at 0x%016lx\n", dev, (long)info[1],
         (unsigned long)info[0]);
}

/* Translate and call every indirect function on DEV. */
static void check_set(int dev, void **out) {
  long n = f_count;
  void **fps = malloc(n * sizeof *fps);
  int *res = calloc(n, sizeof *res);
  for (long i = 0; i < n; i++)
    fps[i] = (void *)f_table[i];
  CHECK(run3(0, dev, fps, n, out, n * sizeof *out) == 0, "translate on %d", dev);
  for (long i = 0; i < n; i++) {
    CHECK(out[i] != fps[i], "fn %ld: host %p not translated", i, fps[i]);
    for (long j = 0; j < n; j++)
      CHECK(out[i] != fps[j], "fn %ld: translated to host function %ld", i, j);
    CHECK(i == 0 || out[i] != out[i - 1], "fn %ld: same address as fn %ld", i, i - 1);
  }
  CHECK(run3(1, dev, fps, n, res, n * sizeof *res) == 0, "call on %d", dev);
  for (long i = 0; i < n; i++)
    CHECK(res[i] == (int)i * 4, "fn %ld(%ld) gave %d, want %d", i, i, res[i],
          (int)i * 4);
  free(fps);
  free(res);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "basic";
  long n = f_count;
  void **o0 = calloc(n, sizeof *o0), **o1 = calloc(n, sizeof *o1);
  int64_t i0[3] = {0}, i1[3] = {0};
  if (!strcmp(mode, "basic")) {
    check_table(0, i0);
    check_set(0, o0);
  } else if (!strcmp(mode, "devices")) {
    CHECK(omp_get_num_devices() >= 2, "need 2 devices, have %d",
          omp_get_num_devices());
    check_table(0, i0);
    check_table(1, i1);
    check_set(0, o0);
    check_set(1, o1);
    for (long i = 0; i < n; i++)
      CHECK(o0[i] != o1[i], "fn %ld: both devices give %p", i, o0[i]);
  } else if (!strcmp(mode, "threads")) {
    void **fps = malloc(n * sizeof *fps), **out = calloc(8 * n, sizeof *out);
    for (long i = 0; i < n; i++)
      fps[i] = (void *)f_table[i];
    check_set(0, o0);
    CHECK(run3(3, 0, fps, n, out, 8 * n * sizeof *out) == 0, "threads launch");
    for (long k = 0; k < 8; k++)
      for (long i = 0; i < n; i++)
        CHECK(out[k * n + i] == o0[i], "thread %ld fn %ld: %p, want %p", k, i,
              out[k * n + i], o0[i]);
    free(fps);
    free(out);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    free(o0);
    free(o1);
    return 2;
  }
  printf("%s: %s\n", mode, failures ? "FAILED" : "ok");
  free(o0);
  free(o1);
  return failures ? 1 : 0;
}
