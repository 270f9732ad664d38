/* Descriptor mapping, hand-lowered (issue 7;
 * docs/descriptor-mapping.md): a gfortran CFI_cdesc_t of rank 1, 2
 * and 3, with and without a second pointer member standing for the
 * addendum, mapped parent-first and member-first through
 * __tgt_target_data_begin_mapper / __tgt_target_mapper /
 * __tgt_target_data_update_mapper / __tgt_target_data_end_mapper:
 *   enter data, a kernel that updates through the descriptor, update
 *   from/to of the data, update to/from of the parent (re-attach, shadow
 *   restore), an `always` copy of the parent, `present` lookups, exit data.
 * Every pointer the device saw and every element and pointer on the host
 * are checked.  Exit 0 when all checks pass. */
#include "desc.h"
#include <ompemu/omptarget.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM

static const char id_update = 0, id_look = 0;
__tgt_offload_entry descfull_host_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)&id_update, "__omp_offloading_descfull_update", 0, 0, 0},
    {(void *)&id_look, "__omp_offloading_descfull_look", 0, 0, 0},
};

static int failures;
static char where[96];
#define CHECK(c, ...)                                                        \
  do {                                                                       \
    if (!(c)) {                                                              \
      failures++;                                                            \
      printf("FAIL %s line %d: ", where, __LINE__);                          \
      printf(__VA_ARGS__);                                                   \
      printf("\n");                                                          \
    }                                                                        \
  } while (0)

static int is_device(long p) { /* the emu devices' data ranges */
  return (unsigned long)p >= 0x550000000000UL && (unsigned long)p < 0x554000000000UL;
}

struct list {
  int n;
  void *base[3], *begin[3];
  int64_t size[3], type[3];
};

/* The descriptor's map list: parent P, base_addr B, addendum A (if any),
 * parent first or members first; MEMBER_OF always names P. */
static void build(struct list *l, struct desc *s, size_t psize, double *data,
                  long n, int with_add, int member_first, int64_t pflags,
                  int64_t mflags) {
  int np = with_add ? 3 : 2;
  int P = member_first ? np - 1 : 0, B = member_first ? 0 : 1, A = member_first ? 1 : 2;
  l->n = np;
  l->base[P] = s;
  l->begin[P] = s;
  l->size[P] = (int64_t)psize;
  l->type[P] = pflags;
  l->base[B] = &s->d.base_addr;
  l->begin[B] = data;
  l->size[B] = n * (int64_t)sizeof(double);
  l->type[B] = ompemu_member_of(P) | OMP_TGT_MAPTYPE_PTR_AND_OBJ | mflags;
  if (with_add) {
    l->base[A] = &s->addendum;
    l->begin[A] = s->addendum;
    l->size[A] = 4 * sizeof(int);
    l->type[A] = ompemu_member_of(P) | OMP_TGT_MAPTYPE_PTR_AND_OBJ | mflags;
  }
}

/* Run kernel ID with the parent entry {s, PFLAGS|PARAM} (plus EXTRA, not a
 * parameter, when given) and seen[5] TO|FROM (seen[0] in: has addendum). */
static int kernel(const char *id, struct desc *s, size_t psize, int64_t pflags,
                  void *extra, int64_t extra_size, int64_t extra_flags, long seen[5]) {
  void *b[3] = {s, seen, extra};
  int64_t sz[3] = {(int64_t)psize, 5 * sizeof(long), extra_size};
  int64_t ty[3] = {pflags | PARAM, TO | FROM | PARAM, extra_flags};
  memset(seen, 0, 5 * sizeof(long));
  seen[0] = s->addendum != NULL;
  return __tgt_target_mapper(NULL, -1, (void *)id, extra ? 3 : 2, b, b, sz, ty, NULL, NULL);
}

static void one(int rank, int with_add, int member_first) {
  snprintf(where, sizeof where, "rank %d, %s addendum, %s", rank,
           with_add ? "with" : "without", member_first ? "members first" : "parent first");
  static const CFI_index_t ext[3][3] = {{6}, {3, 4}, {2, 3, 4}};
  double data[24];
  int add[4] = {100, 0, 0, 0};
  struct desc s;
  memset(&s, 0, sizeof s);
  CFI_cdesc_t *d = (CFI_cdesc_t *)&s.d;
  CFI_establish(d, data, CFI_attribute_pointer, CFI_type_double, 0, rank, ext[rank - 1]);
  s.addendum = with_add ? add : NULL;
  long n = desc_count(d);
  for (long i = 0; i < n; i++)
    data[i] = (double)i;
  size_t psize = with_add ? sizeof s : sizeof(CFI_cdesc_t) + rank * sizeof(CFI_dim_t);
  long seen[5];
  struct list l;

  /* enter data map(to: desc, desc%base_addr(:), desc%addendum) */
  build(&l, &s, psize, data, n, with_add, member_first, TO, TO);
  __tgt_target_data_begin_mapper(NULL, -1, l.n, l.base, l.begin, l.size, l.type, NULL, NULL);
  CHECK(omp_target_is_present(data, 0) && omp_target_is_present(&s, 0), "not present after enter data");
  CHECK(d->base_addr == data && s.addendum == (with_add ? add : NULL), "host pointers changed by enter data");

  /* The kernel works through the device copy of the descriptor. */
  CHECK(kernel(&id_update, &s, psize, 0, NULL, 0, 0, seen) == 0, "update kernel failed");
  CHECK(is_device(seen[0]) && seen[0] != (long)(intptr_t)data, "device base_addr 0x%lx not attached", seen[0]);
  if (with_add)
    CHECK(is_device(seen[1]) && seen[1] != (long)(intptr_t)add, "device addendum 0x%lx not attached", seen[1]);
  else
    CHECK(seen[1] == 0, "addendum 0x%lx, expected null", seen[1]);
  CHECK(seen[2] == rank && seen[3] == n, "device saw rank %ld, %ld elements", seen[2], seen[3]);
  CHECK(seen[4] == n * (n - 1) / 2, "device sum %ld, expected %ld", seen[4], n * (n - 1) / 2);
  long dev_base = seen[0];
  CHECK(data[1] == 1.0, "host data changed without a copy back");

  /* update from(data): the device's 2i+1 */
  void *ub[1] = {data};
  int64_t us[1] = {n * (int64_t)sizeof(double)}, ut[1] = {FROM};
  __tgt_target_data_update_mapper(NULL, -1, 1, ub, ub, us, ut, NULL, NULL);
  for (long i = 0; i < n; i++)
    CHECK(data[i] == 2.0 * i + 1, "after update from: data[%ld] = %g", i, data[i]);

  /* update to(data): 3i, seen by the next kernel */
  for (long i = 0; i < n; i++)
    data[i] = 3.0 * i;
  ut[0] = TO;
  __tgt_target_data_update_mapper(NULL, -1, 1, ub, ub, us, ut, NULL, NULL);
  CHECK(kernel(&id_look, &s, psize, 0, NULL, 0, 0, seen) == 0, "look kernel failed");
  CHECK(seen[4] == 3 * n * (n - 1) / 2, "after update to: device sum %ld", seen[4]);

  /* update to(desc): the host descriptor carries host pointers; the device
   * copy must keep its device pointers (re-attach). */
  void *pb[1] = {&s};
  int64_t ps[1] = {(int64_t)psize}, pt[1] = {TO};
  __tgt_target_data_update_mapper(NULL, -1, 1, pb, pb, ps, pt, NULL, NULL);
  CHECK(kernel(&id_look, &s, psize, 0, NULL, 0, 0, seen) == 0, "look kernel failed");
  CHECK(seen[0] == dev_base, "after update to of the parent: device base_addr 0x%lx, expected 0x%lx", seen[0], dev_base);
  CHECK(seen[4] == 3 * n * (n - 1) / 2, "after update to of the parent: device sum %ld", seen[4]);

  /* update from(desc): the host gets its own pointers back. */
  pt[0] = FROM;
  __tgt_target_data_update_mapper(NULL, -1, 1, pb, pb, ps, pt, NULL, NULL);
  CHECK(d->base_addr == data, "after update from of the parent: host base_addr %p", d->base_addr);
  CHECK(s.addendum == (with_add ? add : NULL), "after update from of the parent: host addendum %p", (void *)s.addendum);
  CHECK(d->rank == rank && d->dim[rank - 1].extent == ext[rank - 1][rank - 1], "descriptor fields damaged");

  /* map(always, to: desc) on a kernel: copied again, re-attached. */
  CHECK(kernel(&id_look, &s, psize, OMP_TGT_MAPTYPE_ALWAYS | TO, NULL, 0, 0, seen) == 0, "always kernel failed");
  CHECK(seen[0] == dev_base, "after always: device base_addr 0x%lx, expected 0x%lx", seen[0], dev_base);

  /* map(present: desc, data) */
  CHECK(kernel(&id_look, &s, psize, OMP_TGT_MAPTYPE_PRESENT, data, n * (int64_t)sizeof(double),
               OMP_TGT_MAPTYPE_PRESENT, seen) == 0, "present kernel failed");
  CHECK(seen[0] == dev_base && seen[4] == 3 * n * (n - 1) / 2, "present kernel saw 0x%lx, sum %ld", seen[0], seen[4]);

  /* exit data map(from: ...): data and addendum back, host pointers kept. */
  for (long i = 0; i < n; i++)
    data[i] = -1;
  add[0] = -1;
  build(&l, &s, psize, data, n, with_add, member_first, FROM, FROM);
  __tgt_target_data_end_mapper(NULL, -1, l.n, l.base, l.begin, l.size, l.type, NULL, NULL);
  for (long i = 0; i < n; i++)
    CHECK(data[i] == 3.0 * i, "after exit data: data[%ld] = %g", i, data[i]);
  if (with_add)
    CHECK(add[0] == 101, "after exit data: addendum[0] = %d, expected 101", add[0]);
  CHECK(d->base_addr == data && s.addendum == (with_add ? add : NULL), "after exit data: host pointers %p %p",
        d->base_addr, (void *)s.addendum);
  CHECK(!omp_target_is_present(data, 0) && !omp_target_is_present(&s, 0), "still present after exit data");
}

/* No arguments: every case.  RANK ADDENDUM(0|1) MEMBER_FIRST(0|1): one. */
int main(int argc, char **argv) {
  if (argc == 4) {
    one(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]));
    printf("%s: %s\n", where, failures ? "FAILED" : "ok");
    return failures != 0;
  }
  for (int rank = 1; rank <= 3; rank++)
    for (int with_add = 0; with_add <= 1; with_add++)
      for (int member_first = 0; member_first <= 1; member_first++)
        one(rank, with_add, member_first);
  printf("descriptor tests: %s (%d failed checks)\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
