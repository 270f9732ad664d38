/* Kernel launch, user-defined mappers and the device memory API against a
 * fake device: kernel arguments (literal, firstprivate, mapped with base
 * offset, unmapped zero-size NULL, lambda capture), trip counts, the
 * host-entry message, KERNEL_ARGS lines, kernels that fail at launch or at
 * the synchronize after it, the launch descriptor's own fields,
 * omp_target_* return values and messages. */
#include "config.h"
#include "data_fake.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state) {
  (void)state;
  fake_reset();
  return 0;
}

static void test_kernel_args(void **state) {
  (void)state;
  double arr[10];
  for (int i = 0; i < 10; i++)
    arr[i] = i;
  int fp = 77;
  int *unmapped = (int *)0x1234;
  void *base[4] = {(void *)(intptr_t)7, &fp, arr, unmapped};
  void *args[4] = {(void *)(intptr_t)7, &fp, &arr[2], unmapped};
  int64_t sizes[4] = {4, sizeof fp, 3 * sizeof(double), 0};
  int64_t types[4] = {0x120, 0xa1 /* PRIVATE|TO|PARAM */, 0x23, 0x220};
  const char *names[4] = {";n;k.c;3;4;;", ";fp;k.c;3;4;;", ";arr[2:3];k.c;3;9;;", NULL};
  ident_t loc = {0, 2, 0, 0, ";/src/k.c;main;3;1;;"};
  rt_state.info_flags = RT_INFO_KERNEL_ARGS;
  cap_start();
  __kmpc_push_target_tripcount_mapper(NULL, 0, 123);
  int rc = __tgt_target_teams_mapper(&loc, 0, &fake_kernel_host_id, 4, base,
                                     args, sizes, types, (void **)names, NULL,
                                     4, 64);
  const char *out = cap_end();
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "Libomptarget device 0 info: Entering OpenMP kernel at k.c:3:1 with 4 arguments:\n"));
  assert_non_null(strstr(out, "Libomptarget device 0 info: firstprivate(n)[4] \n"));
  assert_non_null(strstr(out, "Libomptarget device 0 info: to(fp)[4] \n"));
  assert_non_null(strstr(out, "Libomptarget device 0 info: tofrom(arr[2:3])[24] \n"));
  assert_non_null(strstr(out, "Libomptarget device 0 info: use_address(unknown)[0] (implicit)\n"));
  assert_int_equal(fake_last.count, 1);
  assert_int_equal(fake_last.team, 1);
  assert_int_equal(fake_last.nargs, 4);
  assert_int_equal(fake_last.num_teams, 4);
  assert_int_equal(fake_last.thread_limit, 64);
  assert_int_equal(fake_last.tripcount, 123);
  rt_state.info_flags = 0;
  assert_ptr_equal(fake_last.args[0], (void *)(intptr_t)7);
  assert_int_equal(fake_last.offs[0], 0);
  assert_true(fake_last.args[1] != (void *)&fp);
  assert_int_equal(fake_last.offs[2], -2 * (ptrdiff_t)sizeof(double));
  /* unmapped pointer: unchanged (OpenMP 5.1), not NULL as in LLVM 14 */
  assert_ptr_equal((char *)fake_last.args[3] + fake_last.offs[3], unmapped);
  assert_int_equal(fake_dev.maps ? fake_dev.maps->count : 0, 0);
  assert_int_equal(fake_allocs, fake_frees); /* private buffer freed */
  assert_int_equal(fake_allocs, 2);
  /* the trip count was consumed */
  rc = __tgt_target_teams_mapper(NULL, 0, &fake_kernel_host_id, 0, NULL, NULL,
                                 NULL, NULL, NULL, NULL, 0, 0);
  assert_int_equal(rc, 0);
  assert_int_equal(fake_last.tripcount, 0);
  /* plain target: run_region */
  rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 0, NULL, NULL, NULL,
                           NULL, NULL, NULL);
  assert_int_equal(rc, 0);
  assert_int_equal(fake_last.team, 0);
  assert_int_equal(fake_last.count, 3);
}

/* More arguments than the runtime keeps on the stack (SMALL_LIST): the
 * per-argument arrays come from the heap, and every argument still
 * arrives. */
/* A struct's combined entry starts at a member that is not 8-aligned: data
 * begin maps it padded down to the struct (docs/descriptor-mapping.md),
 * and the kernel gets the device address of the member itself (data
 * begin hands the launch the address it found; no second lookup). */
static void test_padded_struct_arg(void **state) {
  (void)state;
  struct S {
    char c;
    int x;
    double y;
  } s = {1, 2, 3.0};
  void *b0[1] = {&s}, *a0[1] = {&s};
  int64_t s0[1] = {sizeof s}, t0[1] = {OMP_TGT_MAPTYPE_TO};
  __tgt_target_data_begin_mapper(NULL, 0, 1, b0, a0, s0, t0, NULL, NULL);
  char *d = dev_addr(&s);
  assert_non_null(d);
  const int64_t member = (int64_t)1 << 48; /* MEMBER_OF(1) */
  const int64_t tofrom = OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM;
  void *base[3] = {&s, &s, &s}, *args[3] = {&s.x, &s.x, &s.y};
  int64_t sizes[3] = {(int64_t)((char *)(&s.y + 1) - (char *)&s.x),
                      sizeof s.x, sizeof s.y};
  int64_t types[3] = {OMP_TGT_MAPTYPE_TARGET_PARAM | tofrom, member | tofrom,
                      member | tofrom};
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 3, base, args,
                               sizes, types, NULL, NULL);
  assert_int_equal(rc, 0);
  assert_int_equal(fake_last.nargs, 1);
  assert_ptr_equal(fake_last.args[0], d + offsetof(struct S, x));
  assert_int_equal(fake_last.offs[0], -(ptrdiff_t)offsetof(struct S, x));
  t0[0] = OMP_TGT_MAPTYPE_FROM;
  __tgt_target_data_end_mapper(NULL, 0, 1, b0, a0, s0, t0, NULL, NULL);
  assert_null(fake_dev.maps->index.root);
}

static void test_many_args(void **state) {
  (void)state;
  enum { N = 40 };
  void *base[N], *args[N];
  int64_t sizes[N], types[N];
  for (int i = 0; i < N - 2; i++) {
    base[i] = args[i] = (void *)(intptr_t)(100 + i);
    sizes[i] = 4;
    types[i] = 0x120; /* LITERAL|TARGET_PARAM */
  }
  int fp = 5;
  double arr[8] = {0};
  base[N - 2] = args[N - 2] = &fp;
  sizes[N - 2] = sizeof fp;
  types[N - 2] = 0xa1; /* PRIVATE|TO|TARGET_PARAM */
  base[N - 1] = arr;
  args[N - 1] = &arr[3];
  sizes[N - 1] = 2 * sizeof(double);
  types[N - 1] = 0x23; /* TO|FROM|TARGET_PARAM */
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, N, base, args,
                               sizes, types, NULL, NULL);
  assert_int_equal(rc, 0);
  assert_int_equal(fake_last.nargs, N);
  for (int i = 0; i < N - 2; i++) {
    assert_ptr_equal(fake_last.args[i], (void *)(intptr_t)(100 + i));
    assert_int_equal(fake_last.offs[i], 0);
  }
  assert_non_null(fake_last.args[N - 2]);
  assert_true(fake_last.args[N - 2] != (void *)&fp);
  assert_int_equal(fake_last.offs[N - 2], 0);
  assert_non_null(fake_last.args[N - 1]);
  assert_true(fake_last.args[N - 1] != (void *)&arr[3]);
  assert_int_equal(fake_last.offs[N - 1], -3 * (ptrdiff_t)sizeof(double));
  assert_int_equal(fake_dev.maps ? fake_dev.maps->count : 0, 0);
  assert_int_equal(fake_allocs, 2); /* the private buffer and the array */
  assert_int_equal(fake_frees, 2);
}

static void test_launch_errors(void **state) {
  (void)state;
  char other;
  cap_start();
  int rc = __tgt_target_mapper(NULL, 0, &other, 0, NULL, NULL, NULL, NULL,
                               NULL, NULL);
  const char *out = cap_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(out, "Libomptarget error: Host ptr 0x"));
  assert_non_null(strstr(out, " does not have a matching target pointer.\n"));
  assert_int_equal(fake_outcome_fail, 1);
  /* host fallback (the initial device) returns OFFLOAD_FAIL, no outcome */
  rc = __tgt_target_mapper(NULL, 1, &fake_kernel_host_id, 0, NULL, NULL, NULL,
                           NULL, NULL, NULL);
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_int_equal(fake_outcome_fail, 1);
  int x;
  void *b[1] = {&x}, *a[1] = {&x};
  int64_t s[1] = {4}, t[1] = {0x1021};
  cap_start();
  rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 1, b, a, s, t, NULL,
                           NULL);
  out = cap_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(out,
      "Libomptarget message: device mapping required by 'present' map type modifier does not exist for host address 0x"));
  assert_non_null(strstr(out,
      "Libomptarget error: Call to getTargetPointer returned null pointer ('present' map type modifier).\n"
      "Libomptarget error: Call to targetDataBegin failed, abort target.\n"
      "Libomptarget error: Failed to process data before launching the kernel.\n"));
  assert_int_equal(fake_last.count, 0);
}

/* A lambda object holding a pointer: the device copy gets the device
 * address patched in. */
struct lam { int *p; };
static void test_lambda_capture(void **state) {
  (void)state;
  int data[4] = {1, 2, 3, 4};
  struct lam l = {data};
  void *b[2] = {&l, &l.p}, *a[2] = {&l, data};
  int64_t s[2] = {sizeof l, sizeof data};
  int64_t t[2] = {0x223, ompemu_member_of(0) | 0x310};
  void *b2[1] = {data}, *a2[1] = {data};
  int64_t s2[1] = {sizeof data}, t2[1] = {1};
  __tgt_target_data_begin_mapper(NULL, 0, 1, b2, a2, s2, t2, NULL, NULL);
  /* look inside the device copy during the launch: the fake kernel records
   * only, so check through a data region around it */
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 2, b, a, s, t,
                               NULL, NULL);
  assert_int_equal(rc, 0);
  struct lam *dl = dev_addr(&l);
  assert_non_null(dl);
  assert_ptr_equal(dl->p, dev_addr(data));
  assert_int_equal(fake_last.nargs, 1);
  assert_ptr_equal((char *)fake_last.args[0] + fake_last.offs[0], (void *)dl);
  __tgt_target_data_end_mapper(NULL, 0, 2, b, a, s, t, NULL, NULL);
  __tgt_target_data_end_mapper(NULL, 0, 1, b2, a2, s2, t2, NULL, NULL);
  assert_int_equal(fake_dev.maps->count, 0);
}

/* A user-defined mapper for struct V {int n; double *v;}: maps the struct
 * and the pointee, as clang's generated mapper function does. */
struct V { int n; double *v; };
static void v_mapper(void *h, void *base, void *begin, int64_t size,
                     int64_t type, void *name) {
  (void)base; (void)size; (void)name;
  struct V *s = begin;
  int64_t k = __tgt_mapper_num_components(h);
  int64_t mof = (k + 1) << 48;
  __tgt_push_mapper_component(h, s, s, sizeof *s, type & ~(int64_t)0x3, NULL);
  __tgt_push_mapper_component(h, s, s, sizeof *s, mof | (type & 3), NULL);
  __tgt_push_mapper_component(h, &s->v, s->v, s->n * (int64_t)sizeof(double),
                              mof | 0x10 | (type & 3), NULL);
}

static void test_mapper(void **state) {
  (void)state;
  double d[3] = {1, 2, 3};
  struct V s = {3, d};
  void *b[1] = {&s}, *a[1] = {&s}, *mappers[1] = {(void *)v_mapper};
  int64_t sz[1] = {sizeof s}, t[1] = {0x23};
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 1, b, a, sz, t,
                               NULL, mappers);
  assert_int_equal(rc, 0);
  assert_int_equal(fake_last.nargs, 1);
  struct V *dv = (struct V *)((char *)fake_last.args[0] + fake_last.offs[0]);
  assert_true(dv != &s);
  /* Mapper component 0 (the struct) holds the reference of the list item
   * the mapper was called for: the region's end removes it, and the
   * pointee (LLVM 14 to 22 keep the struct mapped at a count of 1). */
  assert_int_equal(fake_dev.maps->count, 0);
  assert_null(dev_addr(&s));
  assert_null(dev_addr(d));
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, sz, t, NULL, mappers);
  dv = dev_addr(&s);
  assert_non_null(dv);
  assert_ptr_equal(dv->v, dev_addr(d));
  dv->v[1] = 20;
  /* A second begin counts the struct again and copies nothing. */
  dv->n = 7;
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, sz, t, NULL, mappers);
  assert_int_equal(dv->n, 7);
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, sz, t, NULL, mappers);
  assert_int_equal(fake_dev.maps->count, 2);
  int frees = fake_frees;
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, sz, t, NULL, mappers);
  assert_ptr_equal(s.v, d);
  assert_true(d[1] == 20);
  assert_int_equal(s.n, 7);
  s.n = 3;
  assert_int_equal(fake_dev.maps->count, 0);
  assert_int_equal(fake_frees, frees + 2);
  assert_int_equal(fake_outcome_fail, 0);
}

static void test_api(void **state) {
  (void)state;
  assert_null(omp_target_alloc(0, 0));
  assert_null(omp_target_alloc(16, 7));
  void *h = omp_target_alloc(16, 1); /* initial device: malloc */
  assert_non_null(h);
  omp_target_free(h, 1);
  void *d = omp_target_alloc(64, 0);
  assert_non_null(d);
  assert_int_equal(fake_allocs, 1);
  double src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
  assert_int_equal(omp_target_memcpy(d, src, sizeof src, 0, 0, 0, 1), 0);
  assert_int_equal(omp_target_memcpy(dst, d, 16, 8, 16, 1, 0), 0);
  assert_true(dst[1] == 3 && dst[2] == 4 && dst[0] == 0);
  cap_start();
  assert_int_equal(omp_target_memcpy(NULL, src, 8, 0, 0, 0, 1), OFFLOAD_FAIL);
  assert_int_equal(omp_target_memcpy(dst, src, 8, 0, 0, 5, 1), OFFLOAD_FAIL);
  const char *out = cap_end();
  assert_non_null(strstr(out, "Libomptarget error: Call to omp_target_memcpy with invalid arguments (omp_target_memcpy at test_launch"));
  assert_non_null(strstr(out, "Libomptarget error: omp_target_memcpy returns OFFLOAD_FAIL (omp_target_memcpy at test_launch"));
  assert_int_equal(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL,
                                          NULL, NULL, 0, 0), INT_MAX);
  /* rect: a 2x3 block of a 4x5 host matrix into a 2x3 device matrix */
  double m[4][5], back[2][3];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++)
      m[i][j] = 10 * i + j;
  size_t vol[2] = {2, 3}, doff[2] = {0, 0}, soff[2] = {1, 2};
  size_t ddim[2] = {2, 3}, sdim[2] = {4, 5};
  assert_int_equal(omp_target_memcpy_rect(d, m, sizeof(double), 2, vol, doff,
                                          soff, ddim, sdim, 0, 1), 0);
  assert_int_equal(omp_target_memcpy(back, d, sizeof back, 0, 0, 1, 0), 0);
  assert_true(back[0][0] == 12 && back[1][2] == 24);

  int x[4];
  assert_false(omp_target_is_present(x, 0));
  assert_true(omp_target_is_present(x, 1));
  assert_false(omp_target_is_present(x, 9));
  assert_int_equal(omp_target_associate_ptr(x, d, sizeof x, 8, 0), 0);
  assert_true(omp_target_is_present(&x[3], 0));
  assert_ptr_equal(dev_addr(x), (char *)d + 8);
  assert_int_equal(omp_target_associate_ptr(x, d, sizeof x, 8, 0), 0);
  cap_start();
  assert_int_equal(omp_target_associate_ptr(x, d, sizeof x, 0, 0), OFFLOAD_FAIL);
  assert_int_equal(omp_target_associate_ptr(x, d, sizeof x, 0, 1), OFFLOAD_FAIL);
  out = cap_end();
  assert_non_null(strstr(out, "Libomptarget error: Not allowed to re-associate a different device ptr+offset with the same host ptr (omp_target_associate_ptr at test_launch"));
  assert_non_null(strstr(out, "Libomptarget error: omp_target_associate_ptr: no association possible on the host (omp_target_associate_ptr at test_launch"));
  /* an associated range is used by map clauses and never freed by them */
  void *b[1] = {x}, *a[1] = {x};
  int64_t s[1] = {sizeof x}, t[1] = {3};
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  assert_true(omp_target_is_present(x, 0));
  int y[2];
  void *by[1] = {y}, *ay[1] = {y};
  int64_t sy[1] = {sizeof y};
  __tgt_target_data_begin_mapper(NULL, 0, 1, by, ay, sy, t, NULL, NULL);
  cap_start();
  assert_int_equal(omp_target_disassociate_ptr(y, 0), OFFLOAD_FAIL);
  assert_int_equal(omp_target_disassociate_ptr(&x[1], 0), OFFLOAD_FAIL);
  assert_int_equal(omp_target_disassociate_ptr(x, 1), OFFLOAD_FAIL);
  out = cap_end();
  assert_non_null(strstr(out, "Libomptarget error: Trying to disassociate a pointer which was not mapped via omp_target_associate_ptr (omp_target_disassociate_ptr at test_launch"));
  assert_non_null(strstr(out, "Libomptarget error: Association not found (omp_target_disassociate_ptr at test_launch"));
  assert_non_null(strstr(out, "Libomptarget error: omp_target_disassociate_ptr: no association possible on the host (omp_target_disassociate_ptr at test_launch"));
  assert_int_equal(omp_target_disassociate_ptr(x, 0), 0);
  assert_false(omp_target_is_present(x, 0));
  __tgt_target_data_end_mapper(NULL, 0, 1, by, ay, sy, t, NULL, NULL);
  omp_target_free(d, 0);
  assert_int_equal(fake_allocs, fake_frees);
  assert_null(llvm_omp_get_dynamic_shared());
  void *dd = llvm_omp_target_alloc_device(8, 0);
  assert_non_null(dd);
  omp_target_free(dd, 0);
}

/* A kernel the plugin refuses to start: the construct fails (the host
 * version runs), LLVM 14's line, the policy applied. */
static void test_kernel_fails_at_launch(void **state) {
  (void)state;
  int x = 1;
  void *b[1] = {&x}, *a[1] = {&x};
  int64_t s[1] = {sizeof x}, t[1] = {0x23}; /* TO|FROM|TARGET_PARAM */
  fake_fail_run = 1;
  cap_start();
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 1, b, a, s, t,
                               NULL, NULL);
  const char *out = cap_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_int_equal(fake_outcome_fail, 1);
  assert_int_equal(count_substr(out, "Libomptarget error: Executing target "
                                     "region abort target.\n"), 1);
  /* As in LLVM 14, the data stays mapped: an exit data releases it. */
  fake_fail_run = 0;
  assert_non_null(dev_addr(&x));
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  assert_null(dev_addr(&x));
  assert_int_equal(fake_allocs, fake_frees);
}

/* A kernel that fails on the device, seen at the synchronize after it: the
 * construct fails with one ompemu line naming the device and the kernel,
 * with and without data to copy back. */
static void test_kernel_fails_at_sync(void **state) {
  (void)state;
  fake_set_async(1);
  fake_fail_sync = 1;
  cap_start();
  int rc = __tgt_target_teams_mapper(NULL, 0, &fake_kernel_host_id, 0, NULL,
                                     NULL, NULL, NULL, NULL, NULL, 2, 8);
  const char *out = cap_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_int_equal(fake_outcome_fail, 1);
  assert_int_equal(fake_last.count, 1);
  assert_int_equal(fake_last.syncs, 1);
  assert_int_equal(count_substr(out, "ompemu: error: device 0: target region "
                                     "fake_kernel, or a copy queued after it, "
                                     "failed on the device\n"), 1);
  assert_int_equal(count_substr(out, "error:"), 1);

  int x = 1;
  void *b[1] = {&x}, *a[1] = {&x};
  int64_t s[1] = {sizeof x}, t[1] = {0x23}; /* TO|FROM|TARGET_PARAM */
  cap_start();
  rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 1, b, a, s, t, NULL,
                           NULL);
  out = cap_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_int_equal(fake_outcome_fail, 2);
  assert_int_equal(count_substr(out, "target region fake_kernel, or a copy "
                                     "queued after it, failed"), 1);
  assert_non_null(strstr(out, "Libomptarget error: Call to targetDataEnd "
                              "failed, abort target.\n"));
  /* One failure, one synchronize: the failed queue is not waited on again. */
  assert_int_equal(fake_last.syncs, 2);
  fake_fail_sync = 0;
  fake_set_async(0);
  assert_non_null(dev_addr(&x));
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  assert_null(dev_addr(&x));
  assert_int_equal(fake_allocs, fake_frees);
}

/* The launch descriptor: an explicit trip count wins over (and still
 * consumes) a pushed one; prepend_dyn_ptr passes (void *)~0 first. */
static void test_launch_descriptor(void **state) {
  (void)state;
  void *base[1] = {(void *)(intptr_t)7}, *args[1] = {(void *)(intptr_t)7};
  int64_t sizes[1] = {4}, types[1] = {0x120}; /* LITERAL|TARGET_PARAM */
  __kmpc_push_target_tripcount(0, 99);
  struct rt_launch l = {
      .device_id = 0,
      .host_ptr = &fake_kernel_host_id,
      .args = {NULL, 1, base, args, sizes, types, NULL, NULL, 0},
      .teams = 1,
      .num_teams = {3, 1, 1},
      .thread_limit = {16, 1, 1},
      .tripcount = 1000,
      .prepend_dyn_ptr = 1,
  };
  assert_int_equal(rt_target(&l), OFFLOAD_SUCCESS);
  assert_int_equal(fake_last.nargs, 2);
  assert_ptr_equal(fake_last.args[0], (void *)~(uintptr_t)0);
  assert_int_equal(fake_last.offs[0], 0);
  assert_ptr_equal(fake_last.args[1], (void *)(intptr_t)7);
  assert_int_equal(fake_last.num_teams, 3);
  assert_int_equal(fake_last.thread_limit, 16);
  assert_int_equal(fake_last.tripcount, 1000);
  l.tripcount = 0;
  l.prepend_dyn_ptr = 0;
  assert_int_equal(rt_target(&l), OFFLOAD_SUCCESS);
  assert_int_equal(fake_last.tripcount, 0); /* 99 was consumed */
  assert_int_equal(fake_last.nargs, 1);
}

/* KernelArgs as clang 16 (version 2), clang 19/22 (version 3) and an
 * early clang (version 1, 64 bytes) pass it to __tgt_target_kernel: the
 * same launch as the clang-14 door, dyn_ptr first from version 3 on. */
struct kargs_v3 {
  uint32_t version, nargs;
  void **base, **ptrs;
  int64_t *sizes, *types;
  void **names, **mappers;
  uint64_t tripcount, flags;
  uint32_t num_teams[3], thread_limit[3], dyn_mem;
  uint32_t padding; /* stack garbage in a real caller */
};

static void test_target_kernel(void **state) {
  (void)state;
  int x = 5;
  void *base[2] = {(void *)(intptr_t)9, &x}, *args[2] = {(void *)(intptr_t)9, &x};
  int64_t sizes[2] = {4, sizeof x}, types[2] = {0x120, 0x23};
  struct kargs_v3 k = {3, 2, base, args, sizes, types, NULL, NULL, 100, 0,
                       {2, 0, 0}, {3, 0, 0}, 64, 0xfc550000};
  assert_int_equal(sizeof k, 104);
  assert_int_equal(__tgt_target_kernel(NULL, 0, 2, 3, &fake_kernel_host_id, &k),
                   0);
  assert_int_equal(fake_last.count, 1);
  assert_int_equal(fake_last.team, 1);
  assert_int_equal(fake_last.nargs, 3);
  assert_ptr_equal(fake_last.args[0], (void *)~(uintptr_t)0);
  assert_ptr_equal(fake_last.args[1], (void *)(intptr_t)9);
  assert_non_null(fake_last.args[2]);
  assert_true(fake_last.args[2] != (void *)&x);
  assert_int_equal(fake_last.num_teams, 2);
  assert_int_equal(fake_last.thread_limit, 3);
  assert_int_equal(fake_last.tripcount, 100);
  assert_null(dev_addr(&x)); /* mapped for the launch only */
  /* Plain target (-1 teams): a region, not a team launch; nowait in the
   * flags and the _nowait door run it before returning. */
  k.num_teams[0] = (uint32_t)-1;
  k.thread_limit[0] = 0;
  k.tripcount = 0;
  k.flags = 1;
  assert_int_equal(__tgt_target_kernel_nowait(NULL, 0, -1, 0,
                                              &fake_kernel_host_id, &k, 0,
                                              NULL, 0, NULL),
                   0);
  assert_int_equal(fake_last.count, 2);
  assert_int_equal(fake_last.team, 0);
  assert_int_equal(fake_last.nargs, 3);
  void *handle = &x;
  __tgt_target_nowait_query(&handle);
  assert_null(handle);
  __tgt_target_nowait_query(NULL);
  /* Version 2 (clang 16): no dyn_ptr. */
  k.version = 2;
  k.num_teams[0] = 0;
  assert_int_equal(__tgt_target_kernel(NULL, 0, 0, 0, &fake_kernel_host_id, &k),
                   0);
  assert_int_equal(fake_last.team, 1);
  assert_int_equal(fake_last.nargs, 2);
  assert_ptr_equal(fake_last.args[0], (void *)(intptr_t)9);
  /* Version 1: only 64 bytes; the teams come from the scalar arguments. */
  unsigned char v1[64];
  k.version = 1;
  memcpy(v1, &k, sizeof v1);
  assert_int_equal(__tgt_target_kernel(NULL, 0, 4, 8, &fake_kernel_host_id, v1),
                   0);
  assert_int_equal(fake_last.team, 1);
  assert_int_equal(fake_last.num_teams, 4);
  assert_int_equal(fake_last.thread_limit, 8);
  assert_int_equal(fake_last.nargs, 2);
  assert_int_equal(fake_last.count, 4);
  /* An unknown version is refused through the policy, never launched. */
  k.version = 7;
  cap_start();
  int rc = __tgt_target_kernel(NULL, 0, 0, 0, &fake_kernel_host_id, &k);
  const char *out = cap_end();
  assert_int_not_equal(rc, 0);
  assert_int_equal(fake_outcome_fail, 1);
  assert_int_equal(fake_last.count, 4);
  assert_non_null(strstr(out, "KernelArgs version 7 is not supported"));
  assert_int_equal(fake_allocs, fake_frees);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_kernel_args, setup),
      cmocka_unit_test_setup(test_padded_struct_arg, setup),
      cmocka_unit_test_setup(test_many_args, setup),
      cmocka_unit_test_setup(test_launch_errors, setup),
      cmocka_unit_test_setup(test_kernel_fails_at_launch, setup),
      cmocka_unit_test_setup(test_kernel_fails_at_sync, setup),
      cmocka_unit_test_setup(test_launch_descriptor, setup),
      cmocka_unit_test_setup(test_target_kernel, setup),
      cmocka_unit_test_setup(test_lambda_capture, setup),
      cmocka_unit_test_setup(test_mapper, setup),
      cmocka_unit_test_setup(test_api, setup),
  };
  return cmocka_run_group_tests_name("launch, mappers, API", tests, NULL, NULL);
}
