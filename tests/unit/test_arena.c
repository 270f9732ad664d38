/* Unit tests of the device memory arena (emu-device/arena.c): fixed
 * reservation, determinism, alignment, capacity, poison, bad frees,
 * lookups and the quarantine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "arena.h"
#include "emu_testutil.h"

/* Test-only bases, away from the plugin's, one per test so a failed test
 * never leaves another one's range mapped. */
#define TB(k) (EMU_DATA_BASE + 0x00F000000000ULL + (uintptr_t)(k) * 0x40000000ULL)
#define MB (1u << 20)

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
    assert_int_equal(p[i], EMU_POISON_BYTE); /* still mapped, poisoned */
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

static sigjmp_buf fault_jmp;
static volatile uintptr_t fault_addr;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  fault_addr = (uintptr_t)si->si_addr;
  siglongjmp(fault_jmp, 1);
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
    (void)*(volatile char *)(p + 10);
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

/* Without a handler of the test's own, a touch of quarantined memory kills
 * the process with SIGSEGV after a message naming the freed block. */
static void test_quarantine_message(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);
    dup2(fds[1], 2);
    setenv("OMPEMU_QUARANTINE", "1", 1);
    struct emu_arena *a = arena_create("data", 4, TB(13), 64 * 1024, 256);
    char *p = arena_alloc(a, 100);
    arena_free(a, p);
    p[20] = 1;
    _exit(0);
  }
  close(fds[1]);
  char buf[512] = "";
  ssize_t n = 0, r;
  while ((r = read(fds[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
    n += r;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGSEGV);
  char want[200];
  snprintf(want, sizeof want, "device 4: access to freed device memory at "
           "0x%016lx (data block [0x%016lx, 0x%016lx) of 100 bytes, freed)",
           (unsigned long)(TB(13) + 20), (unsigned long)TB(13),
           (unsigned long)(TB(13) + 100));
  assert_non_null(strstr(buf, want));
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
  };
  return cmocka_run_group_tests_name("emu arena", tests, NULL, NULL);
}
