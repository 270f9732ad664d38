/* Data path against a fake malloc device: refcount notes (INFO texts),
 * OMPX_HOLD, struct PTR_AND_OBJ attach and shadow restore, Fortran
 * descriptors (CFI_cdesc_t ranks 1-3, with/without addendum) in every
 * order, update of the parent re-attaching, malformed lists refused with
 * host data untouched, non-contiguous updates moving the right elements. */
#include "config.h"
#include "data_fake.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<ISO_Fortran_binding.h>)
#include <ISO_Fortran_binding.h>
#else
typedef ptrdiff_t CFI_index_t;
typedef struct { CFI_index_t lower_bound, extent, sm; } CFI_dim_t;
#define CFI_CDESC_T(r) struct { void *base_addr; size_t elem_len; int version; \
    signed char rank, attribute; short type; CFI_dim_t dim[r]; }
#endif

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define ALWAYS OMP_TGT_MAPTYPE_ALWAYS
#define DEL OMP_TGT_MAPTYPE_DELETE
#define PAO OMP_TGT_MAPTYPE_PTR_AND_OBJ
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM
#define HOLD OMP_TGT_MAPTYPE_OMPX_HOLD
#define MOF(k) ompemu_member_of(k) /* k: 0-based parent index */

struct ml {
  int32_t n;
  void *base[16], *begin[16];
  int64_t size[16], type[16];
};

static void add(struct ml *m, void *base, void *begin, int64_t size,
                int64_t type) {
  m->base[m->n] = base;
  m->begin[m->n] = begin;
  m->size[m->n] = size;
  m->type[m->n] = type;
  m->n++;
}

static void begin_(struct ml *m) {
  __tgt_target_data_begin_mapper(NULL, 0, m->n, m->base, m->begin, m->size,
                                 m->type, NULL, NULL);
}
static void end_(struct ml *m) {
  __tgt_target_data_end_mapper(NULL, 0, m->n, m->base, m->begin, m->size,
                               m->type, NULL, NULL);
}
static void update_(struct ml *m) {
  __tgt_target_data_update_mapper(NULL, 0, m->n, m->base, m->begin, m->size,
                                  m->type, NULL, NULL);
}
static void one(void (*fn)(struct ml *), void *p, int64_t size, int64_t type) {
  struct ml m = {0};
  add(&m, p, p, size, type);
  fn(&m);
}
static size_t live(void) { return fake_dev.maps ? fake_dev.maps->count : 0; }

static int setup(void **state) {
  (void)state;
  fake_reset();
  return 0;
}

static void test_refcount_notes(void **state) {
  (void)state;
  int a[10];
  for (int i = 0; i < 10; i++)
    a[i] = i;
  rt_state.info_flags = RT_INFO_MAPPING_EXISTS | RT_INFO_MAPPING_CHANGED |
                        RT_INFO_DATA_TRANSFER;
  cap_start();
  one(begin_, a, sizeof a, TO);
  one(begin_, a, sizeof a, TO);
  a[3] = 33; /* must not come back: exit from at Dyn 2 does not copy */
  one(end_, a, sizeof a, FROM);
  one(end_, a, sizeof a, 0);
  const char *out = cap_end();
  assert_int_equal(count_substr(out, "Creating new map entry with HstPtrBegin="), 1);
  assert_non_null(strstr(out, "Size=40, DynRefCount=1, HoldRefCount=0, Name=unknown"));
  assert_non_null(strstr(out, "DynRefCount=2 (incremented), HoldRefCount=0, Name=unknown"));
  assert_non_null(strstr(out, "DynRefCount=1 (decremented), HoldRefCount=0\n"));
  assert_non_null(strstr(out, "DynRefCount=1 (deferred final decrement), HoldRefCount=0\n"));
  assert_int_equal(count_substr(out, "Copying data from host to device"), 1);
  assert_int_equal(count_substr(out, "Copying data from device to host"), 0);
  assert_int_equal(count_substr(out, "Removing map entry with"), 1);
  assert_true(strncmp(out, "Libomptarget device 0 info: ", 28) == 0);
  assert_int_equal(a[3], 33);
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, fake_frees);
}

static void test_delete_and_always(void **state) {
  (void)state;
  double x[4] = {1, 2, 3, 4};
  one(begin_, x, sizeof x, TO);
  one(begin_, x, sizeof x, TO);
  x[0] = 10;
  one(begin_, x, sizeof x, TO | ALWAYS); /* copies again */
  double *d = dev_addr(x);
  assert_non_null(d);
  assert_true(d != x);
  assert_true(d[0] == 10);
  d[1] = 20;
  rt_state.info_flags = RT_INFO_MAPPING_EXISTS;
  cap_start();
  one(end_, x, sizeof x, DEL | FROM);
  const char *out = cap_end();
  assert_non_null(strstr(out, "DynRefCount=1 (reset, deferred final decrement)"));
  assert_true(x[1] == 20);
  assert_int_equal(live(), 0);
}

static void test_hold(void **state) {
  (void)state;
  int a[8] = {0};
  rt_state.info_flags = RT_INFO_MAPPING_EXISTS | RT_INFO_MAPPING_CHANGED;
  cap_start();
  one(begin_, a, sizeof a, HOLD | TO | FROM);
  one(end_, a, sizeof a, DEL); /* exit data map(delete:) inside */
  int present = omp_target_is_present(a, 0);
  int *d = dev_addr(a);
  if (d)
    d[2] = 7;
  one(end_, a, sizeof a, HOLD | TO | FROM);
  const char *out = cap_end();
  assert_true(present);
  assert_non_null(strstr(out, "DynRefCount=0, HoldRefCount=1, Name=unknown"));
  assert_non_null(strstr(out, "DynRefCount=0 (reset), HoldRefCount=1\n"));
  assert_non_null(strstr(out, "DynRefCount=0, HoldRefCount=1 (deferred final decrement)"));
  assert_int_equal(a[2], 7);
  assert_int_equal(live(), 0);
}

struct S {
  int n;
  double *p;
};

static void test_struct_ptr_and_obj(void **state) {
  (void)state;
  double data[8];
  for (int i = 0; i < 8; i++)
    data[i] = i;
  struct S s = {8, data};
  struct ml m = {0};
  add(&m, &s, &s, sizeof s, PARAM);
  add(&m, &s, &s, sizeof s, MOF(0) | TO | FROM);
  add(&m, &s.p, data, sizeof data, MOF(0) | PAO | TO | FROM);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  struct S *ds = dev_addr(&s);
  double *dd = dev_addr(data);
  assert_non_null(ds);
  assert_non_null(dd);
  assert_ptr_equal(ds->p, dd); /* attached */
  assert_int_equal(ds->n, 8);
  assert_ptr_equal(s.p, data); /* host untouched */
  ds->p[3] = 42;
  end_(&m);
  assert_ptr_equal(s.p, data); /* shadow restored after copy-back */
  assert_true(data[3] == 42);
  assert_int_equal(live(), 0);
}

/* Lookups that leave the counts alone (target update, a kernel argument)
 * print LLVM 14's "(update suppressed)" MAPPING_EXISTS line with the host
 * and device address of the piece looked up. */
static void test_update_suppressed_note(void **state) {
  (void)state;
  int a[10] = {0};
  one(begin_, a, sizeof a, TO);
  char *d = dev_addr(a);
  assert_non_null(d);
  rt_state.info_flags = RT_INFO_MAPPING_EXISTS;
  cap_start();
  one(update_, &a[2], 3 * sizeof(int), TO);
  void *base[1] = {a}, *args[1] = {&a[2]};
  int64_t sizes[1] = {3 * sizeof(int)}, types[1] = {PARAM | TO | FROM};
  int rc = __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, 1, base, args,
                               sizes, types, NULL, NULL);
  const char *out = cap_end();
  rt_state.info_flags = 0;
  assert_int_equal(rc, 0);
  char want[256];
  snprintf(want, sizeof want,
           "Libomptarget device 0 info: Mapping exists with HstPtrBegin="
           "0x%016lx, TgtPtrBegin=0x%016lx, Size=12, DynRefCount=1 (update "
           "suppressed), HoldRefCount=0\n",
           (unsigned long)(uintptr_t)&a[2],
           (unsigned long)(uintptr_t)(d + 2 * sizeof(int)));
  /* the update, and the launch's argument lookup (refcount 2 then) */
  assert_int_equal(count_substr(out, want), 1);
  char *p = strstr(want, "DynRefCount=1");
  p[12] = '2';
  assert_int_equal(count_substr(out, want), 1);
  assert_ptr_equal(fake_last.args[0], d + 2 * sizeof(int));
  one(end_, a, sizeof a, FROM);
  assert_int_equal(live(), 0);
}

/* Twelve pointers attached in one construct: more than the rt_op keeps
 * in itself (RT_OP_SLOTS), so the later device pointer values come from
 * the overflow chunks; every one must arrive and stay valid until the
 * copies are done. */
static void test_many_attached(void **state) {
  (void)state;
  enum { K = 12 };
  struct T {
    double *p[K];
  } t;
  double data[K][2];
  for (int k = 0; k < K; k++) {
    data[k][0] = k;
    data[k][1] = -k;
    t.p[k] = data[k];
  }
  struct ml m = {0};
  add(&m, &t, &t, sizeof t, PARAM);
  add(&m, &t, &t, sizeof t, MOF(0) | TO | FROM);
  for (int k = 0; k < K; k++)
    add(&m, &t.p[k], data[k], sizeof data[k], MOF(0) | PAO | TO | FROM);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  struct T *dt = dev_addr(&t);
  assert_non_null(dt);
  for (int k = 0; k < K; k++) {
    double *dd = dev_addr(data[k]);
    assert_non_null(dd);
    assert_ptr_equal(dt->p[k], dd);
    assert_true(dd[0] == k && dd[1] == -k);
    assert_ptr_equal(t.p[k], data[k]);
    dt->p[k][1] = 100 + k;
  }
  end_(&m);
  for (int k = 0; k < K; k++) {
    assert_ptr_equal(t.p[k], data[k]);
    assert_true(data[k][1] == 100 + k);
  }
  assert_int_equal(live(), 0);
}

/* declare target link: the device reference pointer is the link global's
 * (NULL) until the variable is mapped, then the device copy, then NULL
 * again; a struct's attached pointer is detached (NULL on the device) when
 * only its pointee is unmapped. */
static void test_link_and_detach(void **state) {
  (void)state;
  static double var[5] = {1, 2, 3, 4, 5};
  static double *var_ref = var; /* host: the variable itself */
  void **dev_ref = calloc(1, sizeof(void *)); /* the device global, NULL */
  assert_int_equal(rt_map_global(&fake_dev, &var_ref, sizeof var_ref, dev_ref,
                                 "var_decl_tgt_ref_ptr"), 0);
  struct ml m = {0};
  add(&m, &var_ref, var, sizeof var, TO | FROM | PAO);
  begin_(&m);
  double *dv = dev_addr(var);
  assert_non_null(dv);
  assert_ptr_equal(*dev_ref, dv);
  dv[4] = 50;
  end_(&m);
  assert_null(*dev_ref);
  assert_ptr_equal(var_ref, var);
  assert_true(var[4] == 50);
  assert_int_equal(live(), 1); /* the global */
  /* mapped again: attached again */
  begin_(&m);
  assert_ptr_equal(*dev_ref, dev_addr(var));
  end_(&m);
  assert_null(*dev_ref);

  double data[4] = {0};
  struct S s = {4, data};
  one(begin_, &s, sizeof s, TO);
  struct ml p = {0};
  add(&p, &s, &s, sizeof s, 0);
  add(&p, &s.p, data, sizeof data, MOF(0) | TO | FROM | PAO);
  begin_(&p);
  struct S *ds = dev_addr(&s);
  assert_ptr_equal(ds->p, dev_addr(data));
  end_(&p);
  assert_null(ds->p); /* never left pointing at freed device memory */
  assert_ptr_equal(s.p, data);
  one(end_, &s, sizeof s, FROM);
  assert_ptr_equal(s.p, data);
  rt_unmap_globals(&fake_dev, &var_ref, &var_ref + 1);
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, fake_frees);
  free(dev_ref);
}

/* ---- Fortran descriptors ---- */

#define MAX_ELEMS 24
struct box1 { CFI_CDESC_T(1) d; void *addendum; };
struct box2 { CFI_CDESC_T(2) d; void *addendum; };
struct box3 { CFI_CDESC_T(3) d; void *addendum; };

/* Orders: 0 parent, data, addendum (clang/flang after finalization);
 * 1 members first, parent last; 2 combined entry, attaches, then a whole
 * descriptor member copied after the attach. */
static void build_desc_list(struct ml *m, void *box, size_t boxsize,
                            void **base_addr, void *data, size_t dsize,
                            void **addendum, void *add_data, int order) {
  memset(m, 0, sizeof *m);
  if (order == 0) {
    add(m, box, box, (int64_t)boxsize, TO | FROM | PARAM);
    add(m, base_addr, data, (int64_t)dsize, MOF(0) | PAO | TO | FROM);
    if (addendum)
      add(m, addendum, add_data, 32, MOF(0) | PAO | TO | FROM);
  } else if (order == 1) {
    int parent = addendum ? 2 : 1;
    add(m, base_addr, data, (int64_t)dsize, MOF(parent) | PAO | TO | FROM);
    if (addendum)
      add(m, addendum, add_data, 32, MOF(parent) | PAO | TO | FROM);
    add(m, box, box, (int64_t)boxsize, TO | FROM | PARAM);
  } else {
    add(m, box, box, (int64_t)boxsize, PARAM);
    add(m, base_addr, data, (int64_t)dsize, MOF(0) | PAO | TO | FROM);
    if (addendum)
      add(m, addendum, add_data, 32, MOF(0) | PAO | TO | FROM);
    add(m, box, box, (int64_t)boxsize, MOF(0) | TO | FROM);
  }
}

static void check_desc(int rank, int with_addendum, int order) {
  fake_reset();
  double data[MAX_ELEMS];
  long add_data[4] = {11, 12, 13, 14};
  for (int i = 0; i < MAX_ELEMS; i++)
    data[i] = i + 0.5;
  union {
    struct box1 b1;
    struct box2 b2;
    struct box3 b3;
  } u;
  memset(&u, 0, sizeof u);
  void *box;
  size_t boxsize;
  void **base_addr, **addendum;
  size_t *elem_len;
  if (rank == 1) {
    box = &u.b1; boxsize = sizeof u.b1; base_addr = &u.b1.d.base_addr;
    addendum = &u.b1.addendum; elem_len = &u.b1.d.elem_len;
    u.b1.d.dim[0].extent = MAX_ELEMS;
  } else if (rank == 2) {
    box = &u.b2; boxsize = sizeof u.b2; base_addr = &u.b2.d.base_addr;
    addendum = &u.b2.addendum; elem_len = &u.b2.d.elem_len;
    u.b2.d.dim[0].extent = 4; u.b2.d.dim[1].extent = 6;
  } else {
    box = &u.b3; boxsize = sizeof u.b3; base_addr = &u.b3.d.base_addr;
    addendum = &u.b3.addendum; elem_len = &u.b3.d.elem_len;
    u.b3.d.dim[0].extent = 2; u.b3.d.dim[1].extent = 3;
    u.b3.d.dim[2].extent = 4;
  }
  if (!with_addendum)
    boxsize -= sizeof(void *); /* the descriptor alone */
  *base_addr = data;
  *elem_len = sizeof(double);
  if (with_addendum)
    *addendum = add_data;
  struct ml m;
  build_desc_list(&m, box, boxsize, base_addr, data, sizeof data,
                  with_addendum ? addendum : NULL, add_data, order);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  char *dbox = dev_addr(box);
  double *ddata = dev_addr(data);
  assert_non_null(dbox);
  assert_non_null(ddata);
  size_t off_base = (char *)base_addr - (char *)box;
  size_t off_add = (char *)addendum - (char *)box;
  size_t off_len = (char *)elem_len - (char *)box;
  void *dev_base;
  memcpy(&dev_base, dbox + off_base, sizeof dev_base);
  assert_ptr_equal(dev_base, ddata);
  assert_int_equal(*(size_t *)(dbox + off_len), sizeof(double));
  if (with_addendum) {
    void *dev_add;
    memcpy(&dev_add, dbox + off_add, sizeof dev_add);
    assert_ptr_equal(dev_add, dev_addr(add_data));
    assert_int_equal(((long *)dev_add)[2], 13);
    ((long *)dev_add)[2] = 130;
  }
  for (int i = 0; i < MAX_ELEMS; i++) {
    assert_true(ddata[i] == i + 0.5);
    ((double *)dev_base)[i] *= 2;
  }
  /* update to(parent) keeps the device pointers, update from(parent) keeps
   * the host ones. */
  one(update_, box, (int64_t)boxsize, TO);
  memcpy(&dev_base, dbox + off_base, sizeof dev_base);
  assert_ptr_equal(dev_base, ddata);
  one(update_, box, (int64_t)boxsize, FROM);
  assert_ptr_equal(*base_addr, data);
  /* always on the parent, again on a live mapping. */
  one(begin_, box, (int64_t)boxsize, TO | ALWAYS);
  memcpy(&dev_base, dbox + off_base, sizeof dev_base);
  assert_ptr_equal(dev_base, ddata);
  one(end_, box, (int64_t)boxsize, 0);

  end_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  assert_ptr_equal(*base_addr, data);
  if (with_addendum) {
    assert_ptr_equal(*addendum, add_data);
    assert_int_equal(add_data[2], 130);
  }
  for (int i = 0; i < MAX_ELEMS; i++)
    assert_true(data[i] == 2 * (i + 0.5));
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, fake_frees);
}

static void test_descriptors(void **state) {
  (void)state;
  for (int rank = 1; rank <= 3; rank++)
    for (int with_add = 0; with_add <= 1; with_add++)
      for (int order = 0; order <= 2; order++)
        check_desc(rank, with_add, order);
}

/* ---- malformed lists ---- */

static void expect_refused(struct ml *m, const void *host, size_t n,
                           const unsigned char *snapshot, const char *what) {
  int before = fake_outcome_fail;
  cap_start();
  begin_(m);
  const char *out = cap_end();
  assert_int_equal(fake_outcome_fail, before + 1);
  assert_non_null(strstr(out, "Libomptarget error: invalid map list: entry"));
  assert_non_null(strstr(out, what));
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, 0);
  assert_memory_equal(host, snapshot, n);
}

static void test_malformed(void **state) {
  (void)state;
  double data[8];
  struct S s;
  memset(&s, 0, sizeof s); /* padding too: it is compared byte by byte */
  s.n = 8;
  s.p = data;
  for (int i = 0; i < 8; i++)
    data[i] = i;
  unsigned char snap_s[sizeof s], snap_d[sizeof data];
  memcpy(snap_s, &s, sizeof s);
  memcpy(snap_d, data, sizeof data);
  struct ml m = {0};
  add(&m, &s, &s, sizeof s, TO | FROM | PARAM);
  add(&m, &s.p, data, sizeof data, MOF(5) | PAO | TO | FROM);
  expect_refused(&m, &s, sizeof s, snap_s, "MEMBER_OF(6), but the list has 2 entries");
  memset(&m, 0, sizeof m);
  add(&m, &s, &s, sizeof s, TO | FROM | PARAM);
  add(&m, &s.p, data, sizeof data, MOF(1) | PAO | TO | FROM);
  expect_refused(&m, &s, sizeof s, snap_s, "member of itself");
  /* A member outside its parent. */
  memset(&m, 0, sizeof m);
  add(&m, &s, &s, sizeof s.n, TO | FROM | PARAM);
  add(&m, data, data, sizeof data, MOF(0) | TO | FROM);
  expect_refused(&m, data, sizeof data, snap_d, "lies outside its parent");
  /* A pointer member whose pointer is not in the parent. */
  memset(&m, 0, sizeof m);
  add(&m, &s, &s, sizeof s.n, TO | FROM | PARAM);
  add(&m, &s.p, data, sizeof data, MOF(0) | PAO | TO | FROM);
  expect_refused(&m, &s, sizeof s, snap_s, "has its pointer (host");
  /* Overlapping members. */
  struct { double a[4]; double b[4]; } t = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  unsigned char snap_t[sizeof t];
  memcpy(snap_t, &t, sizeof t);
  memset(&m, 0, sizeof m);
  add(&m, &t, &t, sizeof t, PARAM);
  add(&m, &t, &t.a[1], 3 * sizeof(double), MOF(0) | TO | FROM);
  add(&m, &t, &t.a[3], 2 * sizeof(double), MOF(0) | TO | FROM);
  expect_refused(&m, &t, sizeof t, snap_t, "overlaps its sibling entry 1");
  /* ... while a member nested in another member is what clang emits for
   * map(t, t.b) and is accepted. */
  memset(&m, 0, sizeof m);
  add(&m, &t, &t, sizeof t, PARAM);
  add(&m, &t, &t, sizeof t, MOF(0) | TO | FROM);
  add(&m, &t, &t.b[0], 2 * sizeof(double), MOF(0) | TO | FROM);
  begin_(&m);
  assert_int_equal(live(), 1);
  end_(&m);
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, fake_frees);
  fake_allocs = fake_frees = 0;
  /* A cycle of members with no parent. */
  memset(&m, 0, sizeof m);
  add(&m, &t, &t.a[0], sizeof(double), MOF(1) | TO);
  add(&m, &t, &t.b[0], sizeof(double), MOF(0) | TO);
  expect_refused(&m, &t, sizeof t, snap_t, "MEMBER_OF cycle");
  /* The runtime still works afterwards. */
  one(begin_, data, sizeof data, TO);
  assert_int_equal(live(), 1);
  one(end_, data, sizeof data, FROM);
  assert_int_equal(live(), 0);
}

/* ---- non-contiguous update ---- */

static void test_noncontig(void **state) {
  (void)state;
  double a[4][8];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++)
      a[r][c] = r * 8 + c;
  one(begin_, a, sizeof a, TO);
  double (*d)[8] = dev_addr(a);
  assert_non_null(d);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++)
      d[r][c] = 1000 + r * 8 + c;
  /* update from(a[1:2][0:4]) */
  __tgt_descriptor_dim dims1[3] = {{1, 2, 64}, {0, 4, 8}, {0, 1, 8}};
  struct ml m = {0};
  add(&m, a, dims1, 3, FROM | OMP_TGT_MAPTYPE_NON_CONTIG);
  update_(&m);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++) {
      int moved = r >= 1 && r <= 2 && c < 4;
      assert_true(a[r][c] == (moved ? 1000 : 0) + r * 8 + c);
    }
  /* update to(a[0:2][1:3:2]) */
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++)
      a[r][c] = -1;
  __tgt_descriptor_dim dims2[3] = {{0, 2, 64}, {1, 3, 16}, {0, 1, 8}};
  memset(&m, 0, sizeof m);
  add(&m, a, dims2, 3, TO | OMP_TGT_MAPTYPE_NON_CONTIG);
  update_(&m);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 8; c++) {
      int moved = r < 2 && (c == 1 || c == 3 || c == 5);
      assert_true(d[r][c] == (moved ? -1 : 1000 + r * 8 + c));
    }
  one(end_, a, sizeof a, 0);
  /* 3-D: b[1:2][0:3:2][2:2] on double b[5][6][7] */
  static double b[5][6][7];
  memset(b, 0, sizeof b);
  one(begin_, b, sizeof b, 0);
  double (*db)[6][7] = dev_addr(b);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 7; k++)
        db[i][j][k] = 1;
  __tgt_descriptor_dim dims3[4] = {{1, 2, 336}, {0, 3, 112}, {2, 2, 8}, {0, 1, 8}};
  memset(&m, 0, sizeof m);
  add(&m, b, dims3, 4, FROM | OMP_TGT_MAPTYPE_NON_CONTIG);
  update_(&m);
  int moved = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 6; j++)
      for (int k = 0; k < 7; k++) {
        int want = i >= 1 && i <= 2 && j % 2 == 0 && j <= 4 && k >= 2 && k <= 3;
        assert_true(b[i][j][k] == (want ? 1 : 0));
        moved += want;
      }
  assert_int_equal(moved, 2 * 3 * 2);
  one(end_, b, sizeof b, 0);
  assert_int_equal(live(), 0);
}

static void test_present_and_extension(void **state) {
  (void)state;
  int a[16] = {0};
  one(begin_, a, 8 * sizeof(int), TO);
  cap_start();
  one(begin_, a, sizeof a, TO); /* explicit extension */
  const char *out = cap_end();
  assert_non_null(strstr(out, "Libomptarget message: explicit extension not allowed: host address specified is "));
  assert_non_null(strstr(out, "(64 bytes), but device allocation maps to host at "));
  assert_non_null(strstr(out, "(32 bytes)\n"));
  assert_non_null(strstr(out, "Libomptarget error: Call to getTargetPointer returned null pointer (device failure or illegal mapping).\n"));
  assert_int_equal(fake_outcome_fail, 1);
  int b[4];
  cap_start();
  one(begin_, b, sizeof b, TO | OMP_TGT_MAPTYPE_PRESENT);
  one(update_, b, sizeof b, TO | OMP_TGT_MAPTYPE_PRESENT);
  out = cap_end();
  assert_non_null(strstr(out, "Libomptarget message: device mapping required by 'present' map type modifier does not exist for host address 0x"));
  assert_non_null(strstr(out, "Call to getTargetPointer returned null pointer ('present' map type modifier)."));
  assert_non_null(strstr(out, "device mapping required by 'present' motion modifier does not exist"));
  assert_int_equal(fake_outcome_fail, 3);
  /* implicit extension reuses the entry */
  one(begin_, a, sizeof a, TO | OMP_TGT_MAPTYPE_IMPLICIT);
  assert_int_equal(fake_outcome_fail, 3);
  one(end_, a, sizeof a, OMP_TGT_MAPTYPE_IMPLICIT);
  one(end_, a, 8 * sizeof(int), 0);
  assert_int_equal(live(), 0);
}

static void test_return_param_and_usm(void **state) {
  (void)state;
  double v[16];
  struct ml m = {0};
  add(&m, v, v, sizeof v, TO | OMP_TGT_MAPTYPE_RETURN_PARAM);
  begin_(&m);
  assert_ptr_equal(m.base[0], dev_addr(v));
  assert_true(m.base[0] != (void *)v);
  one(end_, v, sizeof v, 0);
  /* unified shared memory: host addresses, no entry; CLOSE allocates. */
  rt_state.requires_flags = OMP_REQ_UNIFIED_SHARED_MEMORY;
  one(begin_, v, sizeof v, TO);
  assert_int_equal(live(), 0);
  one(begin_, v, sizeof v, TO | OMP_TGT_MAPTYPE_CLOSE);
  assert_int_equal(live(), 1);
  one(end_, v, sizeof v, OMP_TGT_MAPTYPE_CLOSE);
  assert_int_equal(live(), 0);
  rt_state.requires_flags = OMP_REQ_NONE;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_refcount_notes, setup),
      cmocka_unit_test_setup(test_delete_and_always, setup),
      cmocka_unit_test_setup(test_hold, setup),
      cmocka_unit_test_setup(test_many_attached, setup),
      cmocka_unit_test_setup(test_update_suppressed_note, setup),
      cmocka_unit_test_setup(test_struct_ptr_and_obj, setup),
      cmocka_unit_test_setup(test_link_and_detach, setup),
      cmocka_unit_test_setup(test_descriptors, setup),
      cmocka_unit_test_setup(test_malformed, setup),
      cmocka_unit_test_setup(test_noncontig, setup),
      cmocka_unit_test_setup(test_present_and_extension, setup),
      cmocka_unit_test_setup(test_return_param_and_usm, setup),
  };
  return cmocka_run_group_tests_name("data path", tests, NULL, NULL);
}
