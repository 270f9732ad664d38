/* Check mode: reads of device memory nothing has written (watch.h).  The
 * pages of a watched block are made inaccessible; the first access to
 * each page faults into fault.c, which hands it here: a write makes the
 * page accessible again and goes on (the page is no longer watched); a
 * read of the block's bytes on a page still watched is a read before any
 * write: its offset is recorded, the page made accessible, and the
 * kernel goes on.  When the kernel returns, every watch is lifted (copies
 * queued after the kernel read the block); the runtime collects what was
 * recorded afterwards.
 *
 * Page granularity: a page one write has reached is not watched any more,
 * so a read of another byte of it is not seen (a read is only missed,
 * never invented).  In check mode each block has pages of its own
 * (README.md), so no other block shares them.
 *
 * One thread's kernels at a time: while a thread has blocks watched,
 * another thread's watch_start fails (the runtime then judges its blocks
 * after the kernel, as without a watch).  Only a kernel's accesses count
 * as reads (fault.c: the faulting thread runs a kernel, or the faulting
 * instruction is device code): the runtime's own copies of a block whose
 * watch another thread's kernel has not lifted yet are not reads.
 *
 * Exact watches (watch_start EXACT: a declare-target global in an image's
 * data) watch a few bytes on pages other data shares.  Every access to
 * such a page faults while the watch lasts: one that reaches the bytes is
 * recorded (a read: first_read; a write first: the watch is done, the
 * kernel made the bytes its own); the page is then opened for that one
 * instruction only: the trap flag is set in the interrupted context, the
 * instruction runs, the SIGTRAP that follows closes the page again (while
 * a watch on it is not done).  So an access to a neighbour never hides a
 * later read of the bytes.  Several threads: a page stays open until the
 * last thread stepping on it has stepped (open counts); an access by
 * another thread in that one instruction's window does not fault and is
 * not seen (a read missed, never invented; a kernel whose threads all
 * read the bytes is reported all the same).  Under a debugger the
 * SIGTRAPs stop the program: `handle SIGTRAP nostop noprint pass` in GDB;
 * valgrind ignores the trap flag, so exact watches are refused under it
 * (the runtime then counts the kernel as reading the bytes).
 *
 * A fault no watch claims, on an arena page, taken while a watch ended
 * (its kernel returned between the fault and the handler's look-up of the
 * table) is retried once per thread, address and watch ended
 * (watch_retry): a real fault comes back and is reported then.
 *
 * Locks: watch_lock serialises starting and ending watches; the fault
 * handler reads the table with atomic loads only, and takes step_lock (a
 * spin lock: no thread holds it across anything that can fault) for the
 * open pages. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* REG_EFL */
#endif
#include "config.h"
#include "watch.h"
#include "arena.h"
#include "devicertl.h"
#include "trace.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* Blocks watched at once (one kernel's unwritten from/alloc blocks). */
#define MAX_WATCHES 64

struct watch {
  _Atomic uintptr_t lo, hi; /* pages; 0: a free slot */
  uintptr_t tgt, size;      /* the block's bytes */
  int32_t dev;
  int exact;                /* bytes on pages others share (above) */
  _Atomic int protected_;   /* its pages are inaccessible */
  _Atomic int64_t first_read; /* offset of the first read, -1 none */
  _Atomic int written;      /* exact: device code wrote the bytes first */
  _Atomic long steps_left;  /* exact 2: steps before it gives up */
};
static struct watch watches[MAX_WATCHES];
static _Atomic int nactive;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t owner; /* the thread whose blocks are watched (nactive) */
/* Watches ended (watch_retry); the threads that retried a fault, last. */
#define MAX_RETRY 64
static _Atomic unsigned long ended;
static struct {
  _Atomic long tid;
  uintptr_t x;
  unsigned long ended;
} retried[MAX_RETRY];

static uintptr_t page_size(void) { return (uintptr_t)sysconf(_SC_PAGESIZE); }

/* Every watched block's pages accessible again (after each kernel). */
static void lift_all(void) {
  if (!atomic_load(&nactive))
    return;
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    if (atomic_load(&w->lo) && atomic_exchange(&w->protected_, 0))
      mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_WRITE);
  }
}

/* ---- exact watches: one instruction at a time on their pages ---- */

#define MAX_STEPS 256 /* threads stepping at once */
#define TRAP_FLAG 0x100

static atomic_flag step_lock = ATOMIC_FLAG_INIT;
static struct {
  uintptr_t page;
  int count; /* threads stepping on it */
} open_pages[MAX_STEPS];
static struct {
  _Atomic long tid; /* 0: free */
  uintptr_t page[2]; /* the pages this thread steps on (an access may span two) */
} steps[MAX_STEPS];
static struct sigaction old_trap;
static _Atomic int trap_installed;

static void step_lock_take(void) {
  while (atomic_flag_test_and_set_explicit(&step_lock, memory_order_acquire))
    ;
}

static void step_lock_drop(void) {
  atomic_flag_clear_explicit(&step_lock, memory_order_release);
}

/* An exact watch whose bytes may still be read (not done) has PAGE. */
static int page_needed(uintptr_t page) {
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    uintptr_t lo = atomic_load(&w->lo);
    if (lo && w->exact && page >= lo && page < atomic_load(&w->hi) &&
        atomic_load(&w->protected_) && atomic_load(&w->first_read) < 0 &&
        !atomic_load(&w->written))
      return 1;
  }
  return 0;
}

/* Open PAGE for one more stepping thread (step_lock held). */
static int page_open(uintptr_t page, uintptr_t pg) {
  int free_slot = -1;
  for (int i = 0; i < MAX_STEPS; i++) {
    if (open_pages[i].count && open_pages[i].page == page) {
      open_pages[i].count++;
      return 0;
    }
    if (!open_pages[i].count && free_slot < 0)
      free_slot = i;
  }
  if (free_slot < 0)
    return -1;
  open_pages[free_slot].page = page;
  open_pages[free_slot].count = 1;
  mprotect((void *)page, pg, PROT_READ | PROT_WRITE);
  return 0;
}

/* One stepping thread less on PAGE: closed again when it was the last and
 * a watch still needs it (step_lock held). */
static void page_close(uintptr_t page, uintptr_t pg) {
  for (int i = 0; i < MAX_STEPS; i++) {
    if (!open_pages[i].count || open_pages[i].page != page)
      continue;
    if (--open_pages[i].count == 0 && page_needed(page))
      mprotect((void *)page, pg, PROT_NONE);
    return;
  }
}

static void chain_trap(int sig, siginfo_t *si, void *uc) {
  if ((old_trap.sa_flags & SA_SIGINFO) && old_trap.sa_sigaction) {
    old_trap.sa_sigaction(sig, si, uc);
  } else if (old_trap.sa_handler != SIG_DFL && old_trap.sa_handler != SIG_IGN) {
    old_trap.sa_handler(sig);
  } else if (old_trap.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

/* SIGTRAP: the instruction stepped over has run; close its pages. */
static void on_trap(int sig, siginfo_t *si, void *uc) {
  long tid = syscall(SYS_gettid);
  uintptr_t pg = page_size();
  for (int i = 0; i < MAX_STEPS; i++) {
    if (atomic_load(&steps[i].tid) != tid)
      continue;
#ifdef __x86_64__
    ((ucontext_t *)uc)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
#endif
    step_lock_take();
    for (int k = 0; k < 2; k++)
      if (steps[i].page[k])
        page_close(steps[i].page[k], pg);
    steps[i].page[0] = steps[i].page[1] = 0;
    atomic_store(&steps[i].tid, 0);
    step_lock_drop();
    return;
  }
  chain_trap(sig, si, uc);
}

static void trap_install(void) {
  if (atomic_exchange(&trap_installed, 1))
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTRAP, &sa, &old_trap);
}

/* Let the thread interrupted with context UC run one instruction with
 * PAGE accessible.  0 / -1 (no slot, or no context to step with). */
static int step_over(uintptr_t page, void *uc) {
#ifdef __x86_64__
  if (!uc)
    return -1;
  uintptr_t pg = page_size();
  long tid = syscall(SYS_gettid);
  step_lock_take();
  int slot = -1;
  for (int i = 0; i < MAX_STEPS && slot < 0; i++)
    if (atomic_load(&steps[i].tid) == tid)
      slot = i; /* the same instruction's second page */
  for (int i = 0; i < MAX_STEPS && slot < 0; i++)
    if (!atomic_load(&steps[i].tid))
      slot = i;
  int k = slot < 0 ? -1 : steps[slot].page[0] ? 1 : 0;
  if (slot < 0 || (k == 1 && steps[slot].page[1]) || page_open(page, pg)) {
    step_lock_drop();
    return -1;
  }
  steps[slot].page[k] = page;
  atomic_store(&steps[slot].tid, tid);
  step_lock_drop();
  ((ucontext_t *)uc)->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
  return 0;
#else
  (void)page;
  (void)uc;
  return -1;
#endif
}

/* A fault at X on the pages of an exact watch (see watch_fault).  1 if it
 * was one. */
static int exact_fault(uintptr_t x, int reads, void *uc) {
  uintptr_t pg = page_size(), page = x & ~(pg - 1);
  int any = 0;
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    uintptr_t lo = atomic_load(&w->lo);
    if (!lo || !w->exact || x < lo || x >= atomic_load(&w->hi))
      continue;
    any = 1;
    if (w->exact == 2 && !atomic_load(&w->written) &&
        atomic_load(&w->first_read) < 0 &&
        atomic_fetch_sub(&w->steps_left, 1) <= 0)
      atomic_store(&w->written, 1); /* given up (watch.h) */
    if (reads < 0 || x < w->tgt || x >= w->tgt + w->size ||
        atomic_load(&w->written))
      continue;
    if (reads) {
      int64_t none = -1;
      atomic_compare_exchange_strong(&w->first_read, &none,
                                     (int64_t)(x - w->tgt));
    } else if (atomic_load(&w->first_read) < 0) {
      atomic_store(&w->written, 1);
    }
  }
  if (!any)
    return 0;
  step_lock_take();
  int needed = page_needed(page);
  step_lock_drop();
  if (!needed || step_over(page, uc) != 0)
    mprotect((void *)page, pg, PROT_READ | PROT_WRITE); /* open for good */
  return 1;
}

/* Does the x86-64 instruction at IP, which faulted writing memory, read
 * that memory first (add, or, sub, inc, xadd, cmpxchg... with a memory
 * destination, locked or not)?  Compilers turn `a[i] += v` into one. */
static int read_modify_write(const unsigned char *ip) {
  int n = 0;
  while (n < 14 && (ip[n] == 0xF0 || ip[n] == 0xF2 || ip[n] == 0xF3 ||
                    ip[n] == 0x2E || ip[n] == 0x36 || ip[n] == 0x3E ||
                    ip[n] == 0x26 || ip[n] == 0x64 || ip[n] == 0x65 ||
                    ip[n] == 0x66 || ip[n] == 0x67))
    n++;
  if ((ip[n] & 0xF0) == 0x40) /* REX */
    n++;
  unsigned op = ip[n], reg = (ip[n + 1] >> 3) & 7;
  if (op == 0x0F) {
    unsigned op2 = ip[n + 1];
    return op2 == 0xB0 || op2 == 0xB1 || op2 == 0xC0 || op2 == 0xC1 ||
           op2 == 0xAB || op2 == 0xB3 || op2 == 0xBB || op2 == 0xA4 ||
           op2 == 0xA5 || op2 == 0xAC || op2 == 0xAD;
  }
  if (op < 0x40 && (op & 7) <= 1 && (op >> 3) != 7) /* add..xor r/m, r */
    return 1;
  switch (op) {
  case 0x80: case 0x81: case 0x83:
    return reg != 7; /* not cmp */
  case 0x86: case 0x87: /* xchg */
  case 0xC0: case 0xC1: case 0xD0: case 0xD1: case 0xD2: case 0xD3:
    return 1;
  case 0xF6: case 0xF7:
    return reg == 2 || reg == 3; /* not, neg */
  case 0xFE: case 0xFF:
    return reg == 0 || reg == 1; /* inc, dec */
  }
  return 0;
}

int watch_retry(uintptr_t x) {
  unsigned long e = atomic_load(&ended);
  if (!e)
    return 0;
  long tid = syscall(SYS_gettid);
  int k = (int)((unsigned long)tid % MAX_RETRY);
  if (atomic_load(&retried[k].tid) == tid && retried[k].x == x &&
      retried[k].ended == e)
    return 0; /* retried since the last watch ended: a real fault */
  atomic_store(&retried[k].tid, 0);
  retried[k].x = x;
  retried[k].ended = e;
  atomic_store(&retried[k].tid, tid);
  return 1;
}

int watch_active(uintptr_t x) {
  if (!atomic_load(&nactive))
    return 0;
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    uintptr_t lo = atomic_load(&w->lo);
    if (lo && x >= lo && x < atomic_load(&w->hi) &&
        atomic_load(&w->protected_))
      return 1;
  }
  return 0;
}

int watch_fault(uintptr_t x, int is_write, const void *ip, int by_kernel,
                void *uc) {
  if (!atomic_load(&nactive))
    return 0;
  uintptr_t pg = page_size();
  int reads = by_kernel && (!is_write || (ip && read_modify_write(ip)));
  if (exact_fault(x, by_kernel ? reads : -1, uc))
    return 1;
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    uintptr_t lo = atomic_load(&w->lo);
    if (!lo || w->exact || x < lo || x >= atomic_load(&w->hi))
      continue;
    if (reads && x >= w->tgt && x < w->tgt + w->size) {
      int64_t none = -1;
      atomic_compare_exchange_strong(&w->first_read, &none,
                                     (int64_t)(x - w->tgt));
    }
    mprotect((void *)(x & ~(pg - 1)), pg, PROT_READ | PROT_WRITE);
    return 1;
  }
  return 0;
}

int watch_start(struct emu_arena *a, int32_t dev, uintptr_t t, uintptr_t n,
                int exact) {
  uintptr_t pg = page_size();
  int rc = -1;
  pthread_mutex_lock(&watch_lock);
  struct watch *w = NULL;
  for (int i = 0; i < MAX_WATCHES && !w; i++)
    if (!atomic_load(&watches[i].lo))
      w = &watches[i];
  if (atomic_load(&nactive) && !pthread_equal(owner, pthread_self()))
    w = NULL; /* another thread's kernel is watched */
  if (exact && RUNNING_ON_VALGRIND)
    w = NULL; /* valgrind runs no trap flag: nothing to step with */
  if (w && n &&
      (exact ? arena_owns(a, (const void *)t) &&
                   arena_owns(a, (const void *)(t + n - 1))
             : arena_check(a, (const void *)t, n) == 0)) {
    owner = pthread_self();
    if (exact)
      trap_install();
    else
      arena_settle(a); /* owed poison written before the pages go */
    uintptr_t lo = t & ~(pg - 1), hi = (t + n + pg - 1) & ~(pg - 1);
    w->tgt = t;
    w->size = n;
    w->dev = dev;
    w->exact = exact;
    atomic_store(&w->written, 0);
    atomic_store(&w->steps_left, WATCH_STEP_BUDGET);
    atomic_store(&w->first_read, -1);
    atomic_store(&w->hi, hi);
    atomic_store(&w->lo, lo);
    atomic_store(&w->protected_, 1);
    atomic_fetch_add(&nactive, 1);
    emu_kernel_after = lift_all;
    if (mprotect((void *)lo, hi - lo, PROT_NONE) == 0) {
      rc = 0;
    } else {
      atomic_store(&w->protected_, 0);
      atomic_store(&w->lo, 0);
      atomic_fetch_sub(&nactive, 1);
    }
  }
  pthread_mutex_unlock(&watch_lock);
  return rc;
}

int watch_stop(int32_t dev, uintptr_t t, int64_t *first_read) {
  int rc = -1;
  pthread_mutex_lock(&watch_lock);
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    if (!atomic_load(&w->lo) || w->tgt != t || w->dev != dev)
      continue;
    if (atomic_exchange(&w->protected_, 0))
      mprotect((void *)w->lo, w->hi - w->lo, PROT_READ | PROT_WRITE);
    if (first_read)
      *first_read = atomic_load(&w->first_read);
    if (w->exact == 2 && atomic_load(&w->steps_left) < 0)
      ompemu_trace(2, "emu", "device %d: the watch of [" OMPEMU_PTR ", "
                   OMPEMU_PTR ") was given up after %d stepped accesses to "
                   "its page", dev, OMPEMU_P(w->tgt),
                   OMPEMU_P(w->tgt + w->size), WATCH_STEP_BUDGET);
    atomic_fetch_add(&ended, 1); /* before the slot is free: watch_retry */
    atomic_store(&w->lo, 0);
    atomic_fetch_sub(&nactive, 1);
    rc = 0;
    break;
  }
  pthread_mutex_unlock(&watch_lock);
  return rc;
}
