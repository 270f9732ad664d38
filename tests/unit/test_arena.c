/* Unit tests of the device memory arena (src/plugins/emu/arena*.c): fixed
 * reservation, determinism, alignment, capacity, poison (eager and lazy),
 * bad frees, lookups, the quarantine, the reuse delay (check mode:
 * test_arena_check.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "arena.h"
#include "arena_internal.h"
#include "devicertl.h"
#include "emu_testutil.h"
#include "arena_testutil.h"
#include "fault.h"

#include <math.h>
#include <time.h>

/* Whether small frees of A leave their poison owed: one thread uses it
 * (its lock is biased to that thread). */
static int defers(struct emu_arena *a) {
  return atomic_load(&a->lock.bias) == BIASLOCK_ON;
}

static void test_fixed_base(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(0), 4 * MB, 256);
  assert_non_null(a);
  assert_int_equal(arena_base(a), TB(0));
  assert_int_equal(arena_capacity(a), 4 * MB);
  void *p = arena_alloc(a, 100);
  assert_ptr_equal(p, (void *)TB(0));
  assert_true(arena_owns(a, p));
  assert_false(arena_owns(a, (char *)TB(0) + 4 * MB));
#ifdef __GLIBC__
  /* The lock every copy and allocation takes is adaptive (hotlock.h):
   * glibc's PTHREAD_MUTEX_ADAPTIVE_NP is 3, kept in __kind's low bits. */
  assert_int_equal(a->lock.mutex.__data.__kind & 0x7f, 3);
#endif
  arena_destroy(a);
}

static void test_determinism(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(1), 16 * MB, 256);
  struct emu_arena *b = arena_create("data", 1, TB(2), 16 * MB, 256);
  assert_non_null(a);
  assert_non_null(b);
  void *pa[64], *pb[64];
  unsigned seed = 12345;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 64; i++) {
      seed = seed * 1103515245u + 12345u;
      size_t sz = (seed >> 8) % 5000;
      pa[i] = arena_alloc(a, sz);
      pb[i] = arena_alloc(b, sz);
      assert_non_null(pa[i]);
      assert_int_equal((uintptr_t)pa[i] - TB(1), (uintptr_t)pb[i] - TB(2));
    }
    for (int i = 0; i < 64; i += 2 + round) {
      assert_int_equal(arena_free(a, pa[i]), 0);
      assert_int_equal(arena_free(b, pb[i]), 0);
    }
  }
  assert_int_equal(arena_in_use(a), arena_in_use(b));
  arena_destroy(a);
  arena_destroy(b);
}

static void test_alignment_and_reuse(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(3), 4 * MB, 256);
  struct emu_arena *c = arena_create("code", 0, TB(4), 4 * MB, 4096);
  for (size_t s = 0; s < 3000; s += 97) {
    void *p = arena_alloc(a, s);
    void *q = arena_alloc(c, s);
    assert_int_equal((uintptr_t)p % 256, 0);
    assert_int_equal((uintptr_t)q % 4096, 0);
  }
  /* First fit with coalescing: freeing three neighbours makes one hole. */
  struct emu_arena *d = arena_create("data", 0, TB(5), 4 * MB, 256);
  void *x = arena_alloc(d, 256), *y = arena_alloc(d, 256),
       *z = arena_alloc(d, 256), *w = arena_alloc(d, 256);
  assert_ptr_equal((char *)y, (char *)x + 256);
  arena_free(d, y);
  arena_free(d, x);
  arena_free(d, z);
  void *big = arena_alloc(d, 768);
  assert_ptr_equal(big, x);
  assert_ptr_equal(arena_alloc(d, 1), (char *)w + 256);
  arena_destroy(a);
  arena_destroy(c);
  arena_destroy(d);
}

static void test_capacity(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(6), 1 * MB, 256);
  void *p = arena_alloc(a, 512 * 1024);
  assert_non_null(p);
  void *q = arena_alloc(a, 512 * 1024);
  assert_non_null(q);
  assert_int_equal(arena_in_use(a), 1 * MB);
  assert_null(arena_alloc(a, 1));
  assert_null(arena_alloc(a, (size_t)1 << 40));
  arena_free(a, p);
  assert_int_equal(arena_in_use(a), 512 * 1024);
  assert_ptr_equal(arena_alloc(a, 1000), p);
  arena_destroy(a);
}

static void test_poison(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(7), 1 * MB, 256);
  unsigned char *p = arena_alloc(a, 300);
  for (int i = 0; i < 300; i++)
    assert_int_equal(p[i], EMU_POISON_BYTE);
  memset(p, 0x11, 300);
  assert_int_equal(arena_free(a, p), 0);
  for (int i = 0; i < 300; i++)
    assert_int_equal(peek(p + i), EMU_POISON_BYTE); /* still mapped, poisoned */
  arena_destroy(a);
}

static void test_foreign_free(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 3, TB(8), 1 * MB, 256);
  char *p = arena_alloc(a, 1000);
  struct capture c;
  capture_begin(&c);
  int r1 = arena_free(a, p + 16);
  int r2 = arena_free(a, (void *)0x1234);
  int r3 = arena_free(a, p + 4096);
  char *out = capture_end(&c);
  assert_int_equal(r1, -1);
  assert_int_equal(r2, -1);
  assert_int_equal(r3, -1);
  char want[200];
  snprintf(want, sizeof want, "free of 0x%016lx, which is not the start of a "
           "data block: it lies inside the block [0x%016lx, 0x%016lx) of 1000",
           (unsigned long)(p + 16), (unsigned long)p,
           (unsigned long)(p + 1000));
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, "device 3: free of 0x0000000000001234"));
  assert_non_null(strstr(out, "outside the range"));
  free(out);
  /* Double free. */
  assert_int_equal(arena_free(a, p), 0);
  capture_begin(&c);
  assert_int_equal(arena_free(a, p), -1);
  out = capture_end(&c);
  assert_non_null(strstr(out, "already freed"));
  free(out);
  arena_destroy(a);
}

static void test_lookups(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(9), 8 * MB, 256);
  char *blk[1000];
  for (int i = 0; i < 1000; i++)
    blk[i] = arena_alloc(a, 100 + (size_t)i);
  for (int i = 0; i < 1000; i++) {
    void *s;
    size_t z;
    assert_int_equal(arena_check(a, blk[i], 100 + (size_t)i), 0);
    assert_int_equal(arena_check(a, blk[i] + 50, 50 + (size_t)i), 0);
    assert_int_equal(arena_check(a, blk[i], 101 + (size_t)i), -1);
    assert_int_equal(arena_block_of(a, blk[i] + 99, &s, &z), 0);
    assert_ptr_equal(s, blk[i]);
    assert_int_equal(z, 100 + (size_t)i);
  }
  arena_free(a, blk[500]);
  assert_int_equal(arena_check(a, blk[500], 1), -1);
  assert_int_equal(arena_block_of(a, blk[500], NULL, NULL), -1);
  assert_int_equal(arena_check(a, (void *)0x1000, 1), -1);
  arena_destroy(a);
}

/* Checks stay exact while blocks come and go in a scattered order (the
 * lookup by start is a hash table with deletions, backed by the sorted
 * list for pointers inside a block). */
static void test_lookups_churn(void **state) {
  (void)state;
  enum { N = 3000 };
  struct emu_arena *a = arena_create("data", 0, TB(14), 16 * MB, 256);
  assert_non_null(a);
  static char *blk[N];
  static size_t sz[N];
  unsigned x = 12345;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < N; i++) {
      if (blk[i])
        continue;
      sz[i] = 1 + (x = x * 1103515245u + 12345u) % 700;
      blk[i] = arena_alloc(a, sz[i]);
      assert_non_null(blk[i]);
    }
    for (int i = 0; i < N; i++) {
      assert_int_equal(arena_check(a, blk[i], sz[i]), 0);
      assert_int_equal(arena_check(a, blk[i], sz[i] + 1), -1);
      assert_int_equal(arena_check(a, blk[i] + sz[i] / 2, sz[i] - sz[i] / 2),
                       0);
    }
    /* Free about half, scattered. */
    for (int i = 0; i < N; i++) {
      if (((x = x * 1103515245u + 12345u) >> 16) & 1) {
        assert_int_equal(arena_free(a, blk[i]), 0);
        assert_int_equal(arena_check(a, blk[i], 1), -1);
        blk[i] = NULL;
      }
    }
    for (int i = 0; i < N; i++)
      if (blk[i])
        assert_int_equal(arena_check(a, blk[i], sz[i]), 0);
  }
  for (int i = 0; i < N; i++)
    if (blk[i])
      assert_int_equal(arena_free(a, blk[i]), 0);
  assert_int_equal(arena_in_use(a), 0);
  arena_destroy(a);
}

static void test_reservation_conflict(void **state) {
  (void)state;
  void *m = mmap((void *)(TB(10) + 2 * MB), 4096, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  assert_ptr_equal(m, (void *)(TB(10) + 2 * MB));
  struct capture c;
  capture_begin(&c);
  struct emu_arena *a = arena_create("data", 2, TB(10), 4 * MB, 256);
  char *out = capture_end(&c);
  assert_null(a);
  char want[200];
  snprintf(want, sizeof want, "device 2: cannot reserve the data range "
           "[0x%016lx, 0x%016lx)", (unsigned long)TB(10),
           (unsigned long)(TB(10) + 4 * MB));
  assert_non_null(strstr(out, want));
  /* EEXIST from the kernel; valgrind treats the flag as a hint instead and
   * offers another address, which must be refused just the same. */
  char want2[200];
  snprintf(want2, sizeof want2, "[0x%016lx, 0x%016lx) is mapped there",
           (unsigned long)TB(10) + 2 * MB, (unsigned long)TB(10) + 2 * MB + 4096);
  assert_true(strstr(out, "something else is mapped there") ||
              strstr(out, want2));
  free(out);
  /* Our mapping is untouched. */
  assert_int_equal(*(volatile char *)m, 0);
  munmap(m, 4096);
  /* Two arenas on one range: the second is refused too. */
  struct emu_arena *x = arena_create("code", 0, TB(11), 1 * MB, 4096);
  capture_begin(&c);
  struct emu_arena *y = arena_create("code", 0, TB(11), 1 * MB, 4096);
  free(capture_end(&c));
  assert_non_null(x);
  assert_null(y);
  arena_destroy(x);
}

static void test_quarantine(void **state) {
  (void)state;
  setenv("OMPEMU_QUARANTINE", "1", 1);
  struct emu_arena *a = arena_create("data", 0, TB(12), 64 * 1024, 256);
  unsetenv("OMPEMU_QUARANTINE");
  assert_non_null(a);
  char *p = arena_alloc(a, 100);
  assert_int_equal((uintptr_t)p % 4096, 0); /* page blocks in quarantine */
  arena_free(a, p);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, &old);
  int faulted = 0;
  if (sigsetjmp(fault_jmp, 1) == 0)
    (void)peek(p + 10);
  else
    faulted = 1;
  sigaction(SIGSEGV, &old, NULL);
  assert_true(faulted);
  assert_int_equal(fault_addr, (uintptr_t)(p + 10));
  /* Freed pages are not reused at once... */
  char *q = arena_alloc(a, 100);
  assert_ptr_not_equal(q, p);
  /* ...but come back, poisoned and writable, when the arena is full. */
  for (int i = 0; i < 14; i++)
    assert_non_null(arena_alloc(a, 100));
  char *r = arena_alloc(a, 100);
  assert_ptr_equal(r, p);
  assert_int_equal((unsigned char)r[10], EMU_POISON_BYTE);
  r[10] = 1;
  arena_destroy(a);
}

NO_ASAN static void touch_quarantined(void) {
  setenv("OMPEMU_QUARANTINE", "1", 1);
  struct emu_arena *a = arena_create("data", 4, TB(13), 64 * 1024, 256);
  fault_register_arena(a, 1);
  char *p = arena_alloc(a, 100);
  arena_free(a, p);
  p[20] = 1;
}

/* Without a handler of the test's own, a touch of quarantined memory kills
 * the process with SIGSEGV after a message naming the freed block. */
static void test_quarantine_message(void **state) {
  (void)state;
  int status = 0;
  char *buf = in_child(touch_quarantined, &status);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGSEGV);
  char want[300];
  snprintf(want, sizeof want, "emu: error: device 4: device code: invalid "
           "write of device memory at 0x%016lx, inside the freed data block "
           "[0x%016lx, 0x%016lx) of 100 bytes, at offset 20",
           (unsigned long)(TB(13) + 20), (unsigned long)TB(13),
           (unsigned long)(TB(13) + 100));
  if (!strstr(buf, want))
    fprintf(stderr, "got: %s\nwant: %s\n", buf, want);
  assert_non_null(strstr(buf, want));
  free(buf);
}

/* With a reuse delay a freed block is not handed out again by the next
 * allocations (LLVM 14's runtime tells a re-allocated pointee by its new
 * address), comes back after MAX_BLOCKS later frees, and never makes an
 * allocation fail that would fit without the delay. */
static void test_reuse_delay(void **state) {
  (void)state;
  struct emu_arena *a = arena_create("data", 0, TB(15), 64 * 1024, 256);
  assert_non_null(a);
  arena_set_reuse_delay(a, 2, 1 * MB);
  char *p = arena_alloc(a, 100);
  assert_ptr_equal(p, (void *)TB(15));
  assert_int_equal(arena_free(a, p), 0);
  char *q = arena_alloc(a, 100); /* not P again */
  assert_ptr_equal(q, (char *)TB(15) + 256);
  assert_int_equal(arena_free(a, q), 0);
  char *r = arena_alloc(a, 100);
  assert_ptr_equal(r, (char *)TB(15) + 512);
  assert_int_equal(arena_free(a, r), 0); /* 3 cooling: P goes back */
  char *s = arena_alloc(a, 100);
  assert_ptr_equal(s, p);
  assert_int_equal(arena_in_use(a), 256);
  /* The whole arena is still usable: cooling blocks are given back when
   * nothing else fits. */
  char *big = arena_alloc(a, 64 * 1024 - 256);
  assert_non_null(big);
  assert_int_equal(arena_free(a, big), 0);
  assert_int_equal(arena_free(a, s), 0);
  big = arena_alloc(a, 64 * 1024);
  assert_ptr_equal(big, (void *)TB(15));
  assert_int_equal(arena_free(a, big), 0);
  /* A block larger than MAX_BYTES is not held back; the same sequence of
   * requests gives the same addresses. */
  arena_set_reuse_delay(a, 2, 1024);
  char *x = arena_alloc(a, 2048);
  assert_int_equal(arena_free(a, x), 0);
  assert_ptr_equal(arena_alloc(a, 2048), x);
  arena_destroy(a);
}

static int all_bytes(const void *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (peek((const unsigned char *)p + i) != v)
      return 0;
  return 1;
}

/* A lazy arena owes the poison of a fresh block until a copy covers it
 * (then nothing is filled), a copy covers part of it (the rest is filled),
 * a read needs it, or arena_settle runs (before a kernel). */
static void test_lazy_poison(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(16), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  unsigned char *p = arena_alloc(a, 1000), *q = arena_alloc(a, 1000),
                *r = arena_alloc(a, 1000), *u = arena_alloc(a, 1000);
  /* A covering copy: nothing filled, not even after a settle. */
  assert_int_equal(arena_write_begin(a, p, 1000), 0);
  memset(p, 0x11, 1000);
  /* A partial copy: the rest is poison at once. */
  assert_int_equal(arena_write_begin(a, q + 100, 200), 0);
  memset(q + 100, 0x22, 200);
  assert_true(all_bytes(q, 100, EMU_POISON_BYTE));
  assert_true(all_bytes(q + 300, 700, EMU_POISON_BYTE));
  /* A read: poison first. */
  assert_int_equal(arena_read_begin(a, r, 10), 0);
  assert_true(all_bytes(r, 1000, EMU_POISON_BYTE));
  /* The fresh pages of U still read zero: the poison is owed... */
  assert_true(all_bytes(u, 1000, 0));
  arena_settle(a); /* ...and paid before a kernel. */
  assert_true(all_bytes(u, 1000, EMU_POISON_BYTE));
  assert_true(all_bytes(p, 1000, 0x11));
  assert_true(all_bytes(q + 100, 200, 0x22));
  size_t count = 0;
  assert_int_equal(arena_poisoned_bytes(a, q, 1000, &count), 0);
  assert_int_equal(count, 800);
  assert_int_equal(arena_poisoned_bytes(a, q, 1001, &count), -1);
  /* A block freed before it was poisoned owes nothing any more. */
  unsigned char *v = arena_alloc(a, 300);
  assert_int_equal(arena_free(a, v), 0);
  arena_settle(a);
  /* Small freed blocks are poisoned by the next settle at the latest. */
  assert_int_equal(arena_free(a, p), 0);
  arena_settle(a);
  assert_true(all_bytes(p, 1000, EMU_POISON_BYTE));
  arena_destroy(a);
}

/* Once the poison owed is paid (a covering copy, a read, a free), the arena
 * owes nothing: arena_settle, before every kernel, then costs a load and
 * takes no lock. */
static void test_lazy_nothing_owed(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(26), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  unsigned char *p = arena_alloc(a, 1000), *q = arena_alloc(a, 1000);
  assert_int_equal(atomic_load(&a->owed), 1);
  assert_int_equal(arena_write_begin(a, p, 1000), 0);
  assert_int_equal(atomic_load(&a->owed), 1); /* Q still owes */
  assert_int_equal(arena_read_begin(a, q, 10), 0);
  assert_int_equal(atomic_load(&a->owed), 0);
  unsigned char *r = arena_alloc(a, 1000);
  assert_int_equal(atomic_load(&a->owed), 1);
  assert_int_equal(arena_free(a, r), 0); /* small: owed until a settle */
  assert_int_equal(atomic_load(&a->owed), defers(a));
  arena_settle(a);
  assert_int_equal(atomic_load(&a->owed), 0);
  assert_true(all_bytes(r, 1000, EMU_POISON_BYTE));
  /* Nothing owed, and the lock held elsewhere: settle does not wait. */
  biaslock_lock(&a->lock);
  arena_settle(a);
  biaslock_unlock(&a->lock);
  assert_true(all_bytes(q, 1000, EMU_POISON_BYTE));
  arena_destroy(a);
}

/* A large freed block (EMU_LAZY_FREE_MIN or more) is poisoned by the next
 * settle, or, when it is allocated again first, as the new block's owed
 * poison; a covering copy then writes it once, with no fill at all. */
static void test_lazy_free(void **state) {
  (void)state;
  size_t big = 2 * MB;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(17), 8 * MB, 256, ARENA_LAZY, 8 * MB);
  unsigned char *p = arena_alloc(a, big);
  assert_int_equal(arena_write_begin(a, p, big), 0);
  memset(p, 0x33, big);
  assert_int_equal(arena_free(a, p), 0);
  assert_true(all_bytes(p, big, 0x33)); /* not filled by the free... */
  arena_settle(a);
  assert_true(all_bytes(p, big, EMU_POISON_BYTE)); /* ...but before a kernel */
  /* Freed, then reused before any kernel: the copy's bytes only. */
  unsigned char *q = arena_alloc(a, big);
  assert_ptr_equal(q, p);
  memset(q, 0x44, big);
  assert_int_equal(arena_free(a, q), 0);
  unsigned char *r = arena_alloc(a, big / 2); /* takes part of the range */
  assert_ptr_equal(r, p);
  assert_int_equal(arena_write_begin(a, r, big / 2), 0);
  memset(r, 0x55, big / 2);
  arena_settle(a);
  assert_true(all_bytes(r, big / 2, 0x55));
  assert_true(all_bytes(r + big / 2, big / 2, EMU_POISON_BYTE));
  arena_destroy(a);
}

/* A small freed block is poison from end to end of its extent: only its
 * own bytes are filled again when no kernel ran since its allocation (its
 * slack still holds the poison), all of it when one ran and may have
 * written past the end. */
static void test_lazy_free_small(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(26), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  unsigned char *p = arena_alloc(a, 64);
  assert_int_equal(arena_write_begin(a, p, 64), 0);
  memset(p, 0x11, 64);
  assert_true(all_bytes(p + 64, 192, EMU_POISON_BYTE));
  assert_int_equal(arena_free(a, p), 0);
  arena_settle(a);
  assert_true(all_bytes(p, 256, EMU_POISON_BYTE));
  /* Allocated again; a kernel runs and writes past the end. */
  unsigned char *q = arena_alloc(a, 64);
  assert_ptr_equal(q, p);
  assert_int_equal(arena_write_begin(a, q, 64), 0);
  memset(q, 0x22, 64);
  arena_settle(a);
  kernel_write(q + 64, 0x33, 100); /* the kernel's overflow */
  assert_int_equal(arena_free(a, q), 0);
  arena_settle(a);
  assert_true(all_bytes(q, 256, EMU_POISON_BYTE));
  /* A kernel ran before the allocation, none after: the cheap path. */
  unsigned char *r = arena_alloc(a, 64);
  assert_int_equal(arena_write_begin(a, r, 16), 0);
  memset(r, 0x44, 16);
  assert_int_equal(arena_free(a, r), 0);
  assert_true(all_bytes(r, 256, EMU_POISON_BYTE));
  arena_destroy(a);
}

static void *take_lock(void *arg) {
  struct emu_arena *a = arg;
  biaslock_lock(&a->lock);
  biaslock_unlock(&a->lock);
  return NULL;
}

/* A small block freed after a kernel owes its poison until the next
 * kernel; allocated again before that (a loop mapping one buffer, with no
 * reuse delay), it owes only what its first copy leaves, so a covering
 * copy fills nothing.  The next small free pays for an older one.  Only
 * while one thread uses the arena (its lock still biased); once another
 * thread took the lock, small frees fill at once. */
static void test_lazy_free_reused(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(28), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  if (!defers(a)) { /* no membarrier here: the lock is never biased */
    arena_destroy(a);
    skip();
  }
  unsigned char *p = arena_alloc(a, 4096);
  assert_int_equal(arena_write_begin(a, p, 4096), 0);
  memset(p, 0x11, 4096);
  arena_settle(a); /* a kernel */
  kernel_write(p, 0x22, 4096);
  assert_int_equal(arena_free(a, p), 0);
  assert_true(all_bytes(p, 4096, 0x22)); /* owed, not paid */
  assert_int_equal(atomic_load(&a->owed), 1);
  unsigned char *q = arena_alloc(a, 4096);
  assert_ptr_equal(q, p);
  /* Before its first copy a read sees the poison, not the old bytes. */
  assert_int_equal(arena_read_begin(a, q + 100, 8), 0);
  assert_true(all_bytes(q, 4096, EMU_POISON_BYTE));
  assert_int_equal(arena_write_begin(a, q, 4096), 0);
  memset(q, 0x33, 4096);
  arena_settle(a);
  /* Freed and reused again: the covering copy is all that is written. */
  kernel_write(q, 0x44, 4096);
  assert_int_equal(arena_free(a, q), 0);
  unsigned char *r = arena_alloc(a, 4096);
  assert_ptr_equal(r, p);
  assert_true(all_bytes(r, 4096, 0x44)); /* no fill yet */
  assert_int_equal(arena_write_begin(a, r, 4096), 0);
  memset(r, 0x55, 4096);
  assert_int_equal(atomic_load(&a->owed), 0);
  arena_settle(a);
  assert_true(all_bytes(r, 4096, 0x55));
  /* Two frees after a kernel (a construct's pointee, then its struct):
   * both still owe. */
  unsigned char *s = arena_alloc(a, 512);
  assert_int_equal(arena_write_begin(a, s, 512), 0);
  memset(s, 0x66, 512);
  arena_settle(a);
  kernel_write(r, 0x77, 4096);
  kernel_write(s, 0x77, 512);
  assert_int_equal(arena_free(a, r), 0);
  assert_true(all_bytes(r, 4096, 0x77));
  assert_int_equal(arena_free(a, s), 0);
  assert_true(all_bytes(r, 4096, 0x77));
  assert_true(all_bytes(s, 512, 0x77));
  /* Part of the owed extent allocated: the rest pays at once. */
  unsigned char *t = arena_alloc(a, 4096 + 256);
  assert_ptr_equal(t, r);
  assert_true(all_bytes(s + 256, 256, EMU_POISON_BYTE));
  assert_true(all_bytes(s, 256, 0x77)); /* T's now, and T owes its poison */
  assert_int_equal(arena_write_begin(a, t, 100), 0);
  assert_true(all_bytes(t + 100, 4096 + 156, EMU_POISON_BYTE));
  assert_int_equal(atomic_load(&a->owed), 0);
  /* Another thread took the lock: a small free fills at once. */
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, take_lock, a), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_false(defers(a));
  arena_settle(a);
  kernel_write(t, 0x12, 4096 + 256);
  assert_int_equal(arena_free(a, t), 0);
  assert_true(all_bytes(t, 4096 + 256, EMU_POISON_BYTE));
  assert_int_equal(atomic_load(&a->owed), 0);
  arena_destroy(a);
}

/* A block allocated where freed blocks left only the poison, with no
 * kernel since, owes none (a partial copy fills nothing); after a kernel,
 * which may have written freed memory, it owes it again; never-allocated
 * memory owes it always. */
/* Three small frees after a kernel: the first pays when the third comes;
 * the next kernel pays the other two. */
static void test_lazy_free_third_pays(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(28), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  if (!defers(a)) {
    arena_destroy(a);
    skip();
  }
  unsigned char *b[3];
  for (int i = 0; i < 3; i++) {
    b[i] = arena_alloc(a, 512);
    assert_int_equal(arena_write_begin(a, b[i], 512), 0);
    memset(b[i], 0x11, 512);
  }
  arena_settle(a);
  for (int i = 0; i < 3; i++)
    kernel_write(b[i], 0x22, 512);
  assert_int_equal(arena_free(a, b[0]), 0);
  assert_int_equal(arena_free(a, b[1]), 0);
  assert_true(all_bytes(b[0], 512, 0x22));
  assert_int_equal(arena_free(a, b[2]), 0);
  assert_true(all_bytes(b[0], 512, EMU_POISON_BYTE));
  assert_true(all_bytes(b[1], 512, 0x22));
  assert_true(all_bytes(b[2], 512, 0x22));
  arena_settle(a);
  assert_true(all_bytes(b[1], 512, EMU_POISON_BYTE));
  assert_true(all_bytes(b[2], 512, EMU_POISON_BYTE));
  assert_int_equal(atomic_load(&a->owed), 0);
  arena_destroy(a);
}

static void test_lazy_reuse_clean(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(27), 4 * MB, 256, ARENA_LAZY, 4 * MB);
  assert_non_null(a);
  unsigned char *p = arena_alloc(a, 64), *p2 = arena_alloc(a, 64);
  assert_int_equal(arena_write_begin(a, p, 64), 0);
  memset(p, 0x11, 64);
  assert_int_equal(arena_write_begin(a, p2, 64), 0);
  memset(p2, 0x12, 64);
  assert_int_equal(arena_free(a, p2), 0);
  assert_int_equal(arena_free(a, p), 0);
  /* Reused at once: clean, so a partial copy writes only its bytes. */
  unsigned char *q = arena_alloc(a, 512);
  assert_ptr_equal(q, p);
  size_t count = 0;
  assert_int_equal(arena_write_begin(a, q + 8, 8), 0);
  memset(q + 8, 0x22, 8);
  assert_int_equal(arena_poisoned_bytes(a, q, 512, &count), 0);
  assert_int_equal(count, 504);
  assert_int_equal(arena_free(a, q), 0);
  /* A kernel runs and writes the freed memory: owed again. */
  arena_settle(a);
  kernel_write(p, 0x33, 512); /* into the freed block */
  unsigned char *r = arena_alloc(a, 512);
  assert_ptr_equal(r, p);
  assert_int_equal(arena_write_begin(a, r, 8), 0);
  memset(r, 0x44, 8);
  assert_true(all_bytes(r + 8, 504, EMU_POISON_BYTE));
  /* Fresh memory reads zero until its poison is paid. */
  unsigned char *u = arena_alloc(a, 256);
  assert_true(u >= r + 512);
  assert_int_equal(arena_write_begin(a, u, 8), 0);
  assert_true(all_bytes(u + 8, 248, EMU_POISON_BYTE));
  arena_destroy(a);
}

/* Address-ordered first fit with many extents: the lowest hole that fits,
 * whatever the order of the frees; freeing everything leaves one extent. */
static void test_first_fit_many(void **state) {
  (void)state;
  enum { N = 20000 };
  struct emu_arena *a = arena_create("data", 0, TB(18), 16 * MB, 256);
  static char *blk[N];
  for (int i = 0; i < N; i++)
    blk[i] = arena_alloc(a, 256);
  assert_ptr_equal(blk[N - 1], (char *)TB(18) + (N - 1) * 256);
  for (int i = N - 1; i >= 0; i -= 2) /* every other one, from the top */
    assert_int_equal(arena_free(a, blk[i]), 0);
  /* 512 bytes fit nowhere but where the last block was (it merged with
   * the free rest of the arena). */
  char *big = arena_alloc(a, 512);
  assert_ptr_equal(big, blk[N - 1]);
  /* 256 bytes go into the lowest hole. */
  assert_ptr_equal(arena_alloc(a, 200), blk[1]);
  assert_int_equal(arena_free(a, blk[1]), 0);
  assert_int_equal(arena_free(a, big), 0);
  for (int i = 0; i < N; i += 2)
    assert_int_equal(arena_free(a, blk[i]), 0);
  assert_int_equal(arena_in_use(a), 0);
  /* Everything coalesced: the whole arena in one block. */
  assert_ptr_equal(arena_alloc(a, 16 * MB), (void *)TB(18));
  arena_destroy(a);
}

/* ASan's hooks, wrapped (-Wl,--wrap): while FAKE_ASAN is set they only
 * count the bytes arena_destroy unpoisons. */
void __real_asan_unpoison_hook(const void *p, size_t n);
void __real_asan_poison_hook(const void *p, size_t n);
static int fake_asan;
static size_t unpoisoned;
void __wrap_asan_unpoison_hook(const void *p, size_t n) {
  if (!fake_asan)
    __real_asan_unpoison_hook(p, n);
  else
    unpoisoned += n;
}
void __wrap_asan_poison_hook(const void *p, size_t n) {
  if (!fake_asan)
    __real_asan_poison_hook(p, n);
}

/* Under ASan, destroying an arena unpoisons what was handed out, not its
 * whole span: the shadow of check mode's 16 GiB window is 2 GiB, which
 * memset made resident at every exit (seconds; minutes under load). */
static void test_destroy_unpoisons_used(void **state) {
  (void)state;
  int was = emu_asan_state;
  fake_asan = 1;
  __atomic_store_n(&emu_asan_state, 1, __ATOMIC_RELEASE);
  struct emu_arena *a = arena_create_ex("data", 0, TB(20), 4 * MB, 256,
                                        ARENA_LAZY, 256 * MB);
  assert_non_null(a);
  void *p = arena_alloc(a, 1000);
  assert_non_null(p);
  assert_int_equal(arena_free(a, p), 0);
  assert_non_null(arena_alloc(a, 3000));
  unpoisoned = 0;
  arena_destroy(a);
  __atomic_store_n(&emu_asan_state, was, __ATOMIC_RELEASE);
  fake_asan = 0;
  assert_true(unpoisoned > 0);
  assert_true(unpoisoned <= 64 * 1024);
}

/* Freeing costs the same with 1 000 or 100 000 live blocks (it was a
 * removal from a sorted array).  The measure is the median of batches; a
 * loaded machine gets a generous bound. */
static double pair_ns(struct emu_arena *a, char **blk, long n) {
  double best = 1e18;
  for (int round = 0; round < 5; round++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < 2000; i++) {
      long k = (i * 7919) % n;
      assert_int_equal(arena_free(a, blk[k]), 0);
      blk[k] = arena_alloc(a, 64);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
                2000.0;
    if (ns < best)
      best = ns;
  }
  return best;
}

static void test_scales(void **state) {
  (void)state;
  enum { N = 100000 };
  struct emu_arena *a = arena_create("data", 0, TB(19), 64 * MB, 256);
  arena_set_reuse_delay(a, 16, 64 * MB);
  static char *blk[N];
  for (long i = 0; i < N; i++)
    blk[i] = arena_alloc(a, 64);
  double big = pair_ns(a, blk, N);
  for (long i = 1000; i < N; i++)
    assert_int_equal(arena_free(a, blk[i]), 0);
  double small = pair_ns(a, blk, 1000);
  fprintf(stderr, "# free+alloc pair: %.0f ns with 1 000 live, %.0f ns with "
          "100 000 live\n", small, big);
  assert_true(big < 8 * small + 2000);
  arena_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixed_base),
      cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_alignment_and_reuse),
      cmocka_unit_test(test_capacity),
      cmocka_unit_test(test_poison),
      cmocka_unit_test(test_foreign_free),
      cmocka_unit_test(test_lookups),
      cmocka_unit_test(test_lookups_churn),
      cmocka_unit_test(test_reservation_conflict),
      cmocka_unit_test(test_quarantine),
      cmocka_unit_test(test_quarantine_message),
      cmocka_unit_test(test_reuse_delay),
      cmocka_unit_test(test_lazy_poison),
      cmocka_unit_test(test_lazy_nothing_owed),
      cmocka_unit_test(test_lazy_free),
      cmocka_unit_test(test_lazy_free_small),
      cmocka_unit_test(test_lazy_free_reused),
      cmocka_unit_test(test_lazy_free_third_pays),
      cmocka_unit_test(test_lazy_reuse_clean),
      cmocka_unit_test(test_first_fit_many),
      cmocka_unit_test(test_destroy_unpoisons_used),
      cmocka_unit_test(test_scales),
  };
  return cmocka_run_group_tests_name("emu arena", tests, NULL, NULL);
}
