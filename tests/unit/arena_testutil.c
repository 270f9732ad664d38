/* Helpers of the arena unit tests (test_arena.c, test_arena_check.c): a
 * byte read or written around ASan, whether a read faults, a function run
 * in a child with its stderr captured. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena_testutil.h"
#include "fault.h"

NO_ASAN unsigned char peek(const void *p) {
  return *(const volatile unsigned char *)p;
}

sigjmp_buf fault_jmp;
volatile uintptr_t fault_addr;

void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  fault_addr = (uintptr_t)si->si_addr;
  siglongjmp(fault_jmp, 1);
}

/* Run FN in a child with stderr captured; its exit status in *STATUS,
 * what it printed returned (malloc'd). */
char *in_child(void (*fn)(void), int *status) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);
    dup2(fds[1], 2);
    fn();
    _exit(0);
  }
  close(fds[1]);
  char *buf = calloc(1, 4096);
  ssize_t n = 0, r;
  while ((r = read(fds[0], buf + n, 4095 - (size_t)n)) > 0)
    n += r;
  close(fds[0]);
  waitpid(pid, status, 0);
  return buf;
}

NO_ASAN void poke(void *p, char v) { *(volatile char *)p = v; }

__attribute__((noinline)) NO_ASAN void kernel_write(void *p, int c, size_t n) {
  volatile unsigned char *d = p;
  for (size_t i = 0; i < n; i++)
    d[i] = (unsigned char)c;
}

/* 1 if reading the byte at P faults. */
NO_ASAN int faults(const volatile char *p) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, &old);
  int faulted = 0;
  if (sigsetjmp(fault_jmp, 1) == 0)
    (void)*p;
  else
    faulted = 1;
  sigaction(SIGSEGV, &old, NULL);
  return faulted;
}

struct emu_arena *check_arena_with_block(char **block) {
  fault_set_check(1, 42);
  struct emu_arena *a = arena_create_ex("data", 2, TB(22), 4 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  fault_register_arena(a, 1);
  *block = arena_alloc(a, 800);
  arena_settle(a);
  return a;
}
