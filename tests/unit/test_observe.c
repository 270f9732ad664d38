/* The observation layer (src/runtime/observe.h) against the fake device:
 * nothing is observed until an observer registers; the events of a target
 * region with a tofrom map, in order, with their fields (variable, bytes,
 * addresses, construct, kernel, reference counts, the wait that completes
 * the kernel); a veto at a copy's begin fails the construct without the
 * copy, gives the observers before the vetoing one an end with -1 and the
 * others nothing; notes reach later observers; an observer's ignored
 * begins and its per-thread slot; an observer with a function per point
 * and phase, and the map decisions no observer reads; ids, and none when
 * no observer reads them; the name
 * helpers. */
#include "config.h"
#include "data_fake.h"
#include "observe.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What the recording observer saw. */
#define MAXREC 256
static struct rec {
  enum obs_point point;
  enum obs_phase ph;
  struct obs_event e;       /* a copy at that moment */
  const char *note;
  uint64_t region_id;       /* e.region lives only during the call */
} recs[MAXREC];
static int nrecs;
static int veto_copy_to;    /* the vetoing observer refuses COPY_TO */
static int vetoer_calls, after_calls;
static const char *after_note;

static int record(struct obs_event *e, enum obs_phase ph) {
  if (nrecs < MAXREC)
    recs[nrecs++] = (struct rec){e->point, ph, *e, e->note,
                                 e->region ? e->region->id : 0};
  return 0;
}

static int vetoer(struct obs_event *e, enum obs_phase ph) {
  vetoer_calls++;
  if (e->point == OBS_COPY_FROM && ph == OBS_PH_BEGIN)
    e->note = "seen by the vetoer";
  return veto_copy_to && e->point == OBS_COPY_TO && ph == OBS_PH_BEGIN;
}

static int after(struct obs_event *e, enum obs_phase ph) {
  (void)ph;
  after_calls++;
  if (e->note)
    after_note = e->note;
  return 0;
}

static const struct obs_observer recorder = {"recorder", ~0u, record, NULL};
static const struct obs_observer vetoing = {
    "vetoer", OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_COPY_FROM), vetoer, NULL};
static const struct obs_observer later = {
    "later", OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_COPY_FROM), after, NULL};

/* An observer of COPY_TO's end only, keeping a per-thread pointer in its
 * slot of the events. */
static int ends_slot = -1, ends_begins, ends_ends;
static void *ends_found; /* what its slot held when it looked */
static int ends(struct obs_event *e, enum obs_phase ph) {
  if (ph == OBS_PH_BEGIN)
    ends_begins++;
  else
    ends_ends++;
  if (!e->slots[ends_slot])
    e->slots[ends_slot] = &ends_ends;
  else
    ends_found = e->slots[ends_slot];
  return 0;
}
static const struct obs_observer ends_only = {
    .name = "ends",
    .points = OBS_BIT(OBS_COPY_TO),
    .event = ends,
    .slot = &ends_slot,
    .no_begin = OBS_BIT(OBS_COPY_TO)};

/* An observer with a function per point and phase (ON): the ends of
 * copies to the device, and of the MAP decisions only NEW. */
static int by_point_copies, by_point_new, by_point_other;
static uint64_t by_point_id; /* the last copy's */
static int by_point_copy_end(struct obs_event *e) {
  by_point_copies++;
  by_point_id = e->id;
  return 0;
}
static int by_point_map(struct obs_event *e) {
  if (e->decision == OBS_MAP_NEW)
    by_point_new++;
  else
    by_point_other++;
  return 0;
}
static const obs_fn by_point_fns[OBS_NPOINTS][3] = {
    [OBS_COPY_TO] = {NULL, by_point_copy_end, NULL},
    [OBS_MAP] = {NULL, NULL, by_point_map},
};
static const struct obs_observer by_point = {
    .name = "by point", .on = by_point_fns,
    .decisions = OBS_BIT(OBS_MAP_NEW), .no_ids = 1};

static int setup(void **state) {
  (void)state;
  fake_reset();
  nrecs = 0;
  veto_copy_to = vetoer_calls = after_calls = 0;
  ends_begins = ends_ends = 0;
  by_point_copies = by_point_new = by_point_other = 0;
  after_note = NULL;
  return 0;
}

/* The index of the first record of POINT/PH at or after FROM, or -1. */
static int find(int from, enum obs_point point, enum obs_phase ph) {
  for (int i = from; i < nrecs; i++)
    if (recs[i].point == point && recs[i].ph == ph)
      return i;
  return -1;
}

static double arr[4];
static const char *arr_name = ";arr;t.c;5;9;;";
static ident_t loc = {0, 2, 0, 0, ";/src/t.c;main;7;1;;"};

/* One target region mapping ARR tofrom. */
static int launch(void) {
  void *base[1] = {arr}, *args[1] = {arr};
  int64_t sizes[1] = {sizeof arr}, types[1] = {0x23}; /* TO|FROM|PARAM */
  const char *names[1] = {arr_name};
  return __tgt_target_mapper(&loc, 0, &fake_kernel_host_id, 1, base, args,
                             sizes, types, (void **)names, NULL);
}

/* Runs first: before any observer, nothing is observed. */
static void test_nothing_observed(void **state) {
  (void)state;
  assert_int_equal(obs_mask, 0);
  assert_int_equal(launch(), 0);
  assert_int_equal(nrecs, 0);
  /* Alone, the observer by point gets what its functions are for, and
   * the decisions it does not read make no event. */
  assert_int_equal(obs_register(&by_point), 0);
  assert_int_equal(obs_mask, OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_MAP));
  assert_int_equal(obs_decisions, OBS_BIT(OBS_MAP_NEW));
  assert_int_equal(launch(), 0);
  assert_int_equal(by_point_copies, 1);
  assert_int_equal(by_point_new, 1);
  assert_int_equal(by_point_other, 0);
  assert_true(by_point_id == 0); /* nobody reads ids: none made */
  /* Registered in this order for the rest of the tests. */
  assert_int_equal(obs_register(&recorder), 0);
  assert_int_equal(obs_register(&vetoing), 0);
  assert_int_equal(obs_register(&later), 0);
  assert_int_equal(obs_register(&ends_only), 0);
  assert_int_equal(ends_slot, 4);
  assert_int_equal(obs_mask, ~0u);
  assert_int_equal(obs_decisions, ~0u);
  /* The recorder reads ids: every event has one now. */
  assert_int_equal(launch(), 0);
  assert_true(by_point_id != 0);
}

static void test_target_region_events(void **state) {
  (void)state;
  fake_set_async(1);
  assert_int_equal(launch(), 0);
  int r0 = find(0, OBS_REGION, OBS_PH_BEGIN);
  int a0 = find(r0, OBS_ALLOC, OBS_PH_BEGIN), a1 = find(a0, OBS_ALLOC, OBS_PH_END);
  int m0 = find(a1, OBS_MAP, OBS_PH_INSTANT);
  int c0 = find(m0, OBS_COPY_TO, OBS_PH_BEGIN), c1 = find(c0, OBS_COPY_TO, OBS_PH_END);
  int k0 = find(c1, OBS_KERNEL, OBS_PH_BEGIN), k1 = find(k0, OBS_KERNEL, OBS_PH_END);
  int m1 = find(k1, OBS_MAP, OBS_PH_INSTANT);
  int f0 = find(m1, OBS_COPY_FROM, OBS_PH_BEGIN), f1 = find(f0, OBS_COPY_FROM, OBS_PH_END);
  int w1 = find(f1, OBS_WAIT, OBS_PH_END);
  int d1 = find(w1, OBS_FREE, OBS_PH_END);
  int m2 = find(d1, OBS_MAP, OBS_PH_INSTANT);
  int r1 = find(m2, OBS_REGION, OBS_PH_END);
  assert_true(r0 == 0 && a0 > r0 && a1 > a0 && m0 > a1 && c0 > m0 && c1 > c0 &&
              k0 > c1 && k1 > k0 && m1 > k1 && f0 > m1 && f1 > f0 && w1 > f1 &&
              d1 > w1 && m2 > d1 && r1 == nrecs - 1);

  const struct obs_event *region = &recs[r1].e;
  assert_int_equal(region->rkind, OBS_R_TARGET);
  assert_ptr_equal(region->loc, &loc);
  assert_int_equal(region->result, 0);
  assert_int_equal(region->device, 0);
  assert_true(region->t1 >= region->t0);

  uintptr_t tgt = recs[a1].e.tgt;
  assert_true(tgt != 0);
  assert_int_equal(recs[a1].e.size, sizeof arr);
  assert_ptr_equal((void *)recs[a1].e.hst, arr);
  assert_ptr_equal(recs[a1].e.var, arr_name);
  assert_int_equal(recs[m0].e.decision, OBS_MAP_NEW);
  assert_int_equal(recs[m0].e.dyn_ref, 1);
  assert_int_equal(recs[m0].e.hold_ref, 0);
  for (int i = c1, k = 0; k < 2; i = f1, k++) {
    assert_ptr_equal((void *)recs[i].e.hst, arr);
    assert_int_equal(recs[i].e.tgt, tgt);
    assert_int_equal(recs[i].e.size, sizeof arr);
    assert_ptr_equal(recs[i].e.var, arr_name);
    assert_int_equal(recs[i].e.result, 0);
    assert_int_equal(recs[i].region_id, region->id);
  }
  assert_int_equal(recs[k1].e.queued, 1);
  assert_int_equal(recs[k1].e.teams, 1);
  assert_int_equal(recs[w1].e.completes, recs[k1].e.id);
  assert_int_equal(recs[m1].e.decision, OBS_MAP_DECREMENT);
  assert_int_equal(recs[d1].e.tgt, tgt);
  assert_ptr_equal((void *)recs[d1].e.hst, arr);
  assert_int_equal(recs[d1].e.size, sizeof arr);
  assert_int_equal(recs[m2].e.decision, OBS_MAP_REMOVE);
  /* A note set by the vetoer at COPY_FROM reached the later observer. */
  assert_string_equal(after_note, "seen by the vetoer");
  /* Ids: unique, increasing on this thread, the same at both ends. */
  assert_int_equal(recs[c0].e.id, recs[c1].e.id);
  assert_true(recs[c0].e.id > recs[r0].e.id && recs[f0].e.id > recs[c0].e.id);
}

static void test_veto(void **state) {
  (void)state;
  veto_copy_to = 1;
  int launches = fake_last.count;
  assert_int_equal(launch(), OFFLOAD_FAIL);
  assert_int_equal(fake_last.count, launches); /* the kernel never ran */
  int c0 = find(0, OBS_COPY_TO, OBS_PH_BEGIN);
  assert_true(c0 >= 0);
  /* The recorder (before the vetoer) got the end, failed, at once. */
  assert_int_equal(find(c0 + 1, OBS_COPY_TO, OBS_PH_END), c0 + 1);
  assert_int_equal(recs[c0 + 1].e.result, -1);
  /* The later observers saw nothing of the vetoed copy. */
  assert_int_equal(after_calls, 0);
  assert_int_equal(ends_begins + ends_ends, 0);
  assert_int_equal(find(0, OBS_KERNEL, OBS_PH_BEGIN), -1);
  int r1 = find(0, OBS_REGION, OBS_PH_END);
  assert_int_equal(recs[r1].e.result, -1);
  /* As after any failed data begin (LLVM 14's behaviour), the allocation
   * stays mapped; the copy into it never happened. */
  assert_non_null(dev_addr(arr));
  assert_int_equal(fake_allocs, fake_frees + 1);
  veto_copy_to = 0;
  /* exit data map(delete:) gives it back (the leak checker's count). */
  void *base[1] = {arr}, *args[1] = {arr};
  int64_t sizes[1] = {sizeof arr}, types[1] = {0x08}; /* DELETE */
  __tgt_target_data_end_mapper(&loc, 0, 1, base, args, sizes, types, NULL,
                               NULL);
  assert_null(dev_addr(arr));
  assert_int_equal(fake_allocs, fake_frees);
}

/* An observer gets no begin of the points it said it ignores, and finds
 * in its slot what it stored there at an earlier event of the thread. */
static void test_ends_only(void **state) {
  (void)state;
  ends_found = NULL;
  fake_set_async(0);
  assert_int_equal(launch(), 0);
  assert_int_equal(launch(), 0);
  assert_int_equal(ends_begins, 0);
  assert_int_equal(ends_ends, 2);
  /* Among other observers the observer by point gets its functions'
   * events (and decisions others read: DECREMENT, REMOVE). */
  assert_int_equal(by_point_copies, 2);
  assert_int_equal(by_point_new, 2);
  assert_int_equal(by_point_other, 4);
  assert_ptr_equal(ends_found, &ends_ends);
  assert_int_equal(find(0, OBS_COPY_TO, OBS_PH_BEGIN) >= 0, 1);
}

static void *other_thread_id(void *arg) {
  *(uint64_t *)arg = obs_new_id();
  return NULL;
}

static void test_ids(void **state) {
  (void)state;
  uint64_t a = obs_new_id(), b = obs_new_id(), c = 0;
  assert_true(b == a + 1);
  pthread_t t;
  pthread_create(&t, NULL, other_thread_id, &c);
  pthread_join(t, NULL);
  assert_true(c >> 40 != a >> 40);         /* another thread's number */
  assert_int_equal(c & ((1ull << 40) - 1), 1); /* its first id */
}

static void test_names(void **state) {
  (void)state;
  char buf[64];
  assert_string_equal(obs_var_expr(";s.p[0:n];/a/b/f.c;12;3;;", buf, sizeof buf),
                      "s.p[0:n]");
  assert_string_equal(obs_var_where(";s.p[0:n];/a/b/f.c;12;3;;", buf, sizeof buf),
                      "f.c:12");
  assert_int_equal(obs_var_line(";x;f.c;42;1;;"), 42);
  /* flang writes the file first; a clang member "s.c" is no file */
  assert_string_equal(obs_var_expr(";/a/b/m.f90;e;6;24;;", buf, sizeof buf), "e");
  assert_string_equal(obs_var_where(";/a/b/m.f90;e;6;24;;", buf, sizeof buf),
                      "m.f90:6");
  assert_string_equal(obs_var_expr(";m.F90;h%g;9;1;;", buf, sizeof buf), "h%g");
  assert_string_equal(obs_var_expr(";/a/m.f90;unknown;6;24;;", buf, sizeof buf),
                      "unknown");
  assert_string_equal(obs_var_expr(";s.c;t.c;4;1;;", buf, sizeof buf), "s.c");
  assert_string_equal(obs_var_where(";s.c;t.c;4;1;;", buf, sizeof buf), "t.c:4");
  assert_string_equal(obs_var_expr("scale", buf, sizeof buf), "scale");
  assert_string_equal(obs_var_where("scale", buf, sizeof buf), "declare target");
  assert_string_equal(obs_var_expr(NULL, buf, sizeof buf), "unknown");
  assert_int_equal(obs_loc_line(&loc), 7);
  assert_string_equal(obs_loc_file(&loc, buf, sizeof buf), "t.c");
  assert_int_equal(obs_loc_line(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_nothing_observed, setup),
      cmocka_unit_test_setup(test_target_region_events, setup),
      cmocka_unit_test_setup(test_veto, setup),
      cmocka_unit_test_setup(test_ends_only, setup),
      cmocka_unit_test(test_ids),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
