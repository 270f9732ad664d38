/* clang 22's ATTACH map entries on a fake malloc device, with hand-built
 * lists shaped as docs/abi-clang22.md section 5.2 measured them: p[a:b]
 * with p unmapped, a section shorter than a pointer, map(s, s.q[..]),
 * members only, the attach entry listed first, PTR_AND_OBJ and ATTACH in
 * one list, when attach happens (new pointer or pointee, ALWAYS,
 * LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS), detach, malformed ATTACH
 * entries refused with nothing touched; and unmapped pointer kernel
 * arguments passed unchanged, with their observer event. */
#include "config.h"
#include "data_fake.h"
#include "observe.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <stdlib.h>
#include <string.h>

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define ALWAYS OMP_TGT_MAPTYPE_ALWAYS
#define PAO OMP_TGT_MAPTYPE_PTR_AND_OBJ
#define PARAM OMP_TGT_MAPTYPE_TARGET_PARAM
#define IMPL OMP_TGT_MAPTYPE_IMPLICIT
#define ATT OMP_TGT_MAPTYPE_ATTACH
#define MOF(k) ompemu_member_of(k)

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
/* The ATTACH entry of pointer *PP with its section starting at BEGIN. */
static void att(struct ml *m, void *pp, void *begin, int64_t extra) {
  add(m, pp, begin, sizeof(void *), ATT | extra);
}
static void begin_(struct ml *m) {
  __tgt_target_data_begin_mapper(NULL, 0, m->n, m->base, m->begin, m->size,
                                 m->type, NULL, NULL);
}
static void end_(struct ml *m) {
  __tgt_target_data_end_mapper(NULL, 0, m->n, m->base, m->begin, m->size,
                               m->type, NULL, NULL);
}
static int target_(struct ml *m) {
  return __tgt_target_mapper(NULL, 0, &fake_kernel_host_id, m->n, m->base,
                             m->begin, m->size, m->type, NULL, NULL);
}
static void one(void (*fn)(struct ml *), void *p, int64_t size, int64_t type) {
  struct ml m = {0};
  add(&m, p, p, size, type);
  fn(&m);
}
static size_t live(void) { return fake_dev.maps ? fake_dev.maps->count : 0; }

struct S {
  int n;
  int *q;
};

static int setup(void **state) {
  (void)state;
  fake_reset();
  unsetenv("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS");
  return 0;
}

/* map(tofrom: p[2:1]) with p itself unmapped: 0x23 then the attach entry;
 * nothing but the 4-byte section is mapped (not 8 bytes there for the
 * attach entry), and the kernel gets one argument. */
static void test_section_pointer_unmapped(void **state) {
  (void)state;
  int a[16];
  int *p = a;
  for (int i = 0; i < 16; i++)
    a[i] = i;
  struct ml m = {0};
  add(&m, p, &p[2], sizeof(int), TO | FROM | PARAM);
  att(&m, &p, &p[2], 0);
  assert_int_equal(target_(&m), 0);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(fake_last.nargs, 1);
  assert_non_null(fake_last.args[0]);
  assert_true(fake_last.args[0] != (void *)&p[2]);
  assert_int_equal(fake_last.offs[0], -2 * (ptrdiff_t)sizeof(int));
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, 1);
  assert_int_equal(fake_frees, 1);
  assert_ptr_equal(p, a);
}

/* c[3:1] then c[4:1] of char through pc: the 8-byte attach entry must not
 * map 8 bytes at the pointee (that would extend past c[3:1]'s mapping,
 * and refuse c[4:1] as an explicit extension). */
static void test_short_section(void **state) {
  (void)state;
  char c[16];
  memset(c, 'a', sizeof c);
  char *pc = c;
  struct ml m = {0};
  add(&m, &pc[3], &pc[3], 1, TO | FROM);
  att(&m, &pc, &pc[3], 0);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(live(), 1);
  assert_int_equal(fake_dev.maps ? map_find(fake_dev.maps, (uintptr_t)&c[3])->hst_end
                                 : 0,
                   (uintptr_t)&c[4]);
  struct ml m2 = {0};
  add(&m2, &pc[4], &pc[4], 1, TO | FROM);
  att(&m2, &pc, &pc[4], 0);
  begin_(&m2);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(live(), 2);
  char *d3 = dev_addr(&c[3]), *d4 = dev_addr(&c[4]);
  *d3 = 'Z';
  *d4 = 'Y';
  one(end_, &c[4], 1, FROM);
  one(end_, &c[3], 1, FROM);
  assert_int_equal(live(), 0);
  assert_true(c[2] == 'a' && c[3] == 'Z' && c[4] == 'Y' && c[5] == 'a');
}

/* map(to: s, s.q[0:4]): 0x21 s, 0x1 data, attach.  The device s.q is the
 * device copy of q; the host s.q stays; the copy back restores it. */
static void test_struct_and_pointee(void **state) {
  (void)state;
  int q[4] = {1, 2, 3, 4};
  struct S s = {4, q};
  struct ml m = {0};
  add(&m, &s, &s, sizeof s, TO | FROM | PARAM);
  add(&m, q, q, sizeof q, TO);
  att(&m, &s.q, q, 0);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(live(), 2);
  struct S *ds = dev_addr(&s);
  int *dq = dev_addr(q);
  assert_non_null(ds);
  assert_non_null(dq);
  assert_ptr_equal(ds->q, dq);
  assert_ptr_equal(s.q, q);
  assert_int_equal(ds->q[3], 4);
  ds->n = 7;
  end_(&m); /* FROM s copies device s.q back: the shadow restores it */
  assert_int_equal(s.n, 7);
  assert_ptr_equal(s.q, q);
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, fake_frees);
}

/* The attach entry listed before the entries it needs, and a PTR_AND_OBJ
 * member in the same list (flang, mappers): both attach. */
static void test_any_order_both_schemes(void **state) {
  (void)state;
  int q[4] = {1, 2, 3, 4};
  double d[2] = {1.5, 2.5};
  struct T {
    int *q;
    double *d;
  } t = {q, d};
  struct ml m = {0};
  att(&m, &t.q, q, 0);
  add(&m, &t, &t, sizeof t, PARAM);
  add(&m, &t, &t, sizeof t, MOF(1) | TO | FROM);
  add(&m, &t.d, d, sizeof d, MOF(1) | PAO | TO | FROM);
  add(&m, q, q, sizeof q, TO | FROM);
  begin_(&m);
  assert_int_equal(fake_outcome_fail, 0);
  struct T *dt = dev_addr(&t);
  assert_ptr_equal(dt->q, dev_addr(q));
  assert_ptr_equal(dt->d, dev_addr(d));
  dt->q[1] = 20;
  dt->d[1] = 9.5;
  end_(&m);
  assert_int_equal(q[1], 20);
  assert_true(d[1] == 9.5);
  assert_ptr_equal(t.q, q);
  assert_ptr_equal(t.d, d);
  assert_int_equal(live(), 0);
}

/* map(tofrom: s.n, s.q[1:2]): 0x20 parent, MO|0x3 s.n, MO|0x203 s.q (the
 * pointer member itself), 0x3 data, attach: the device pointer keeps the
 * distance from the section to where s.q points. */
static void test_members_and_offset(void **state) {
  (void)state;
  int q[4] = {1, 2, 3, 4};
  struct S s = {4, q};
  struct ml m = {0};
  add(&m, &s, &s.n, (char *)(&s.q + 1) - (char *)&s.n, PARAM);
  add(&m, &s, &s.n, sizeof s.n, MOF(0) | TO | FROM);
  add(&m, &s, &s.q, sizeof s.q, MOF(0) | IMPL | TO | FROM);
  add(&m, &q[1], &q[1], 2 * sizeof(int), TO | FROM);
  att(&m, &s.q, &q[1], 0);
  assert_int_equal(target_(&m), 0);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(fake_last.nargs, 1);
  assert_int_equal(live(), 0);
  /* again as a data region, to look at the device */
  begin_(&m);
  struct S *ds = dev_addr(&s);
  int *dq1 = dev_addr(&q[1]);
  assert_ptr_equal(&ds->q[1], dq1);
  ds->q[2] = 30;
  end_(&m);
  assert_int_equal(q[2], 30);
  assert_ptr_equal(s.q, q);
  assert_int_equal(live(), 0);
}

/* When attach happens: the pointee newly mapped attaches; a pointer and a
 * pointee both mapped before do not (the device pointer keeps its old
 * pointee) unless the entry says ALWAYS or the environment asks; unmapping
 * the pointee detaches (device NULL). */
static void test_when(void **state) {
  (void)state;
  int q[4] = {1, 2, 3, 4}, r[4] = {5, 6, 7, 8};
  struct S s = {4, q};
  one(begin_, &s, sizeof s, TO);
  one(begin_, r, sizeof r, TO);
  struct S *ds = dev_addr(&s);
  assert_ptr_equal(ds->q, q); /* the host value, copied */
  struct ml m = {0};
  add(&m, q, q, sizeof q, TO);
  att(&m, &s.q, q, 0);
  begin_(&m); /* q is new */
  assert_ptr_equal(ds->q, dev_addr(q));
  s.q = r; /* both r and s mapped already */
  struct ml m2 = {0};
  add(&m2, r, r, sizeof r, TO);
  att(&m2, &s.q, r, 0);
  begin_(&m2);
  assert_ptr_equal(ds->q, dev_addr(q)); /* auto: not attached */
  one(end_, r, sizeof r, 0);
  struct ml m3 = {0};
  add(&m3, r, r, sizeof r, TO);
  att(&m3, &s.q, r, ALWAYS);
  begin_(&m3);
  assert_ptr_equal(ds->q, dev_addr(r)); /* attach(always) */
  one(end_, r, sizeof r, 0);
  s.q = q;
  begin_(&m2);
  assert_ptr_equal(ds->q, dev_addr(r)); /* unchanged, q not attached */
  one(end_, r, sizeof r, 0);
  struct ml m4 = {0};
  add(&m4, q, q, sizeof q, TO);
  att(&m4, &s.q, q, 0);
  begin_(&m4);
  assert_ptr_equal(ds->q, dev_addr(r)); /* auto again */
  one(end_, q, sizeof q, 0);
  setenv("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS", "true", 1);
  begin_(&m4);
  assert_ptr_equal(ds->q, dev_addr(q));
  unsetenv("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS");
  /* q goes (twice mapped: two ends): the device s.q is reset */
  one(end_, q, sizeof q, 0);
  one(end_, q, sizeof q, 0);
  assert_null(dev_addr(q));
  assert_null(ds->q);
  one(end_, r, sizeof r, 0);
  one(end_, &s, sizeof s, FROM);
  assert_ptr_equal(s.q, q);
  assert_int_equal(live(), 0);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(fake_allocs, fake_frees);
}

/* A target update list holding an ATTACH entry moves nothing for it. */
static void test_update_skips(void **state) {
  (void)state;
  char c[16];
  memset(c, 'a', sizeof c);
  char *pc = c;
  one(begin_, c, sizeof c, TO);
  char *dc = dev_addr(c);
  memset(dc, 'd', sizeof c);
  struct ml m = {0};
  add(&m, &pc[3], &pc[3], 1, FROM);
  att(&m, &pc, &pc[3], 0);
  __tgt_target_data_update_mapper(NULL, 0, m.n, m.base, m.begin, m.size,
                                  m.type, NULL, NULL);
  assert_int_equal(fake_outcome_fail, 0);
  assert_true(c[3] == 'd' && c[4] == 'a' && c[10] == 'a');
  one(end_, c, sizeof c, 0);
}

static void expect_refused(struct ml *m, const char *what) {
  int before = fake_outcome_fail;
  cap_start();
  begin_(m);
  const char *out = cap_end();
  assert_int_equal(fake_outcome_fail, before + 1);
  assert_non_null(strstr(out, "Libomptarget error: invalid map list: entry"));
  assert_non_null(strstr(out, what));
  assert_int_equal(live(), 0);
  assert_int_equal(fake_allocs, 0);
}

static void test_malformed(void **state) {
  (void)state;
  int q[4] = {1, 2, 3, 4};
  struct S s = {4, q}, snap = s;
  struct ml m = {0};
  add(&m, &s, &s, sizeof s, TO | PARAM);
  add(&m, q, q, sizeof q, TO);
  add(&m, &s.q, q, sizeof(void *), ATT | MOF(0));
  expect_refused(&m, "is an ATTACH entry, which cannot be a member");
  m.type[2] = ATT | TO;
  expect_refused(&m, "is an ATTACH entry with map type bits 0x1");
  m.type[2] = ATT;
  m.size[2] = 4;
  expect_refused(&m, "is an ATTACH entry of 4 bytes");
  m.size[2] = sizeof(void *);
  m.base[2] = NULL;
  expect_refused(&m, "pointer address (base) is NULL");
  m.base[2] = &s.q;
  m.type[1] = TO | MOF(2);
  expect_refused(&m, "is a member of an ATTACH entry");
  assert_int_equal(s.n, snap.n); /* fields: the padding is not set */
  assert_ptr_equal(s.q, snap.q);
}

/* An unmapped pointer argument (clang 14: a zero-length section; clang
 * 16+: 0x220 size 0) reaches the kernel unchanged, and observers get an
 * UNMAPPED_PTR map event for it. */
static int nunmapped;
static uintptr_t unmapped_val;
static int on_event(struct obs_event *e, enum obs_phase ph) {
  (void)ph;
  if (e->point == OBS_MAP && e->decision == OBS_MAP_UNMAPPED_PTR) {
    nunmapped++;
    unmapped_val = e->hst;
  }
  return 0;
}
static const struct obs_observer watcher = {"test", OBS_BIT(OBS_MAP),
                                            on_event, NULL};

static void fn(void) {}

static void test_unmapped_pointer(void **state) {
  (void)state;
  int data[4];
  void (*fp)(void) = fn;
  struct ml m = {0};
  add(&m, (void *)fp, (void *)fp, 0, PARAM | IMPL);
  add(&m, data, data, 0, PARAM | IMPL);
  assert_int_equal(target_(&m), 0);
  assert_int_equal(fake_last.nargs, 2);
  assert_ptr_equal((char *)fake_last.args[0] + fake_last.offs[0], (void *)fp);
  assert_ptr_equal((char *)fake_last.args[1] + fake_last.offs[1], data);
  /* a mapped one still gets its device address */
  one(begin_, data, sizeof data, TO);
  assert_int_equal(target_(&m), 0);
  assert_ptr_equal((char *)fake_last.args[1] + fake_last.offs[1],
                   dev_addr(data));
  one(end_, data, sizeof data, 0);
  assert_int_equal(obs_register(&watcher), 0);
  nunmapped = 0;
  assert_int_equal(target_(&m), 0);
  assert_int_equal(nunmapped, 2);
  assert_int_equal(unmapped_val, (uintptr_t)data);
  assert_int_equal(fake_outcome_fail, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_section_pointer_unmapped, setup),
      cmocka_unit_test_setup(test_short_section, setup),
      cmocka_unit_test_setup(test_struct_and_pointee, setup),
      cmocka_unit_test_setup(test_any_order_both_schemes, setup),
      cmocka_unit_test_setup(test_members_and_offset, setup),
      cmocka_unit_test_setup(test_when, setup),
      cmocka_unit_test_setup(test_update_skips, setup),
      cmocka_unit_test_setup(test_malformed, setup),
      cmocka_unit_test_setup(test_unmapped_pointer, setup), /* last: observer */
  };
  return cmocka_run_group_tests_name("attach", tests, NULL, NULL);
}
