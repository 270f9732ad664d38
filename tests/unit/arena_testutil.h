/* Helpers of the arena unit tests (arena_testutil.c) and the test-only
 * address ranges they use. */
#ifndef OMPEMU_ARENA_TESTUTIL_H
#define OMPEMU_ARENA_TESTUTIL_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* Reads and writes of memory the arena told ASan is off limits (freed
 * blocks, slack, guard pages) are the point of several tests here. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#else
#define NO_ASAN
#endif

/* Test-only bases, in the window of the last device, which no test here
 * initialises: one per test (512 MiB apart) so a failed test never leaves
 * another one's range mapped. */
#define TB(k) (EMU_DATA_BASE + 15 * EMU_DATA_STRIDE + (uintptr_t)(k) * 0x20000000ULL)
#define MB (1u << 20)

extern sigjmp_buf fault_jmp;
extern volatile uintptr_t fault_addr;
void on_segv(int sig, siginfo_t *si, void *uc);
unsigned char peek(const void *p);
void poke(void *p, char v);
/* Write N bytes of C at P as device code does: not instrumented by ASan
 * (the arena tells ASan that freed blocks and slack are off limits, and
 * only instrumented host code is stopped there). */
void kernel_write(void *p, int c, size_t n);
/* 1 if reading the byte at P faults. */
int faults(const volatile char *p);
/* In a child (in_child): check mode's fault handling on (exit status 42
 * at a finding), a check-mode arena of device 2 at TB(22) registered with
 * it, and an 800-byte block allocated and settled, in *BLOCK. */
struct emu_arena *check_arena_with_block(char **block);
/* Run FN in a child with stderr captured; its exit status in *STATUS,
 * what it printed returned (malloc'd). */
char *in_child(void (*fn)(void), int *status);

#endif
