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
 * Locks: watch_lock serialises starting and ending watches; the fault
 * handler reads the table with atomic loads only. */
#include "config.h"
#include "watch.h"
#include "arena.h"
#include "devicertl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

/* Blocks watched at once (one kernel's unwritten from/alloc blocks). */
#define MAX_WATCHES 64

struct watch {
  _Atomic uintptr_t lo, hi; /* pages; 0: a free slot */
  uintptr_t tgt, size;      /* the block's bytes */
  int32_t dev;
  _Atomic int protected_;   /* its pages are inaccessible */
  _Atomic int64_t first_read; /* offset of the first read, -1 none */
};
static struct watch watches[MAX_WATCHES];
static _Atomic int nactive;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t owner; /* the thread whose blocks are watched (nactive) */

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

int watch_fault(uintptr_t x, int is_write, const void *ip, int by_kernel) {
  if (!atomic_load(&nactive))
    return 0;
  uintptr_t pg = page_size();
  for (int i = 0; i < MAX_WATCHES; i++) {
    struct watch *w = &watches[i];
    uintptr_t lo = atomic_load(&w->lo);
    if (!lo || x < lo || x >= atomic_load(&w->hi))
      continue;
    int reads = by_kernel && (!is_write || (ip && read_modify_write(ip)));
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

int watch_start(struct emu_arena *a, int32_t dev, uintptr_t t, uintptr_t n) {
  uintptr_t pg = page_size();
  int rc = -1;
  pthread_mutex_lock(&watch_lock);
  struct watch *w = NULL;
  for (int i = 0; i < MAX_WATCHES && !w; i++)
    if (!atomic_load(&watches[i].lo))
      w = &watches[i];
  if (atomic_load(&nactive) && !pthread_equal(owner, pthread_self()))
    w = NULL; /* another thread's kernel is watched */
  if (w && n && arena_check(a, (const void *)t, n) == 0) {
    owner = pthread_self();
    arena_settle(a); /* owed poison written before the pages go */
    uintptr_t lo = t & ~(pg - 1), hi = (t + n + pg - 1) & ~(pg - 1);
    w->tgt = t;
    w->size = n;
    w->dev = dev;
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
    atomic_store(&w->lo, 0);
    atomic_fetch_sub(&nactive, 1);
    rc = 0;
    break;
  }
  pthread_mutex_unlock(&watch_lock);
  return rc;
}
