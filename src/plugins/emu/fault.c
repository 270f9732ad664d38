/* The emu device's fault handler (see fault.h).  It runs on the faulting
 * thread, which holds no arena lock (kernels never run inside the arena),
 * so it may describe the address with the arena's structures; it writes
 * its one message with write(2), flushes stdio and ends the process (check
 * mode) or hands the fault on.
 *
 * The variable is named by the runtime, when it exports
 *   int ompemu_describe_device_addr(const void *addr, char *buf, size_t len)
 * (0 and a NUL-terminated name in BUF when it knows ADDR), looked up with
 * dlsym(RTLD_DEFAULT) when the handler is installed; the kernel's
 * construct by its ompemu_describe_kernel (arena_kernel_words). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* REG_ERR */
#endif
#include "config.h"
#include "fault.h"
#include "arena.h"
#include "arena_internal.h"
#include "devicertl.h"
#include "fault_hold.h"
#include "poison.h"
#include "trace.h"
#include "watch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_ARENAS (2 * EMU_MAX_DEVICES + 16)

static struct emu_arena *_Atomic arenas[MAX_ARENAS];
static uintptr_t alias_base;
static size_t alias_size;
static void (*alias_describe)(uintptr_t x, char *buf, size_t len);
static int check_on, check_status = EMU_CHECK_EXIT_DEFAULT;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_segv, old_bus;
static int installed; /* ours was installed (and may have been replaced) */
static int (*describe_var)(const void *addr, char *buf, size_t len);

/* How far from the stack pointer a fault still counts as running off the
 * stack (a frame's locals are written below the pointer's new value). */
#define OVERFLOW_REACH (64 * 1024)
/* Bytes of each alternate signal stack (check mode): room for on_fault's
 * buffers and snprintf, and the runtime's describe call. */
#define ALT_STACK_SIZE (256 * 1024)

/* The kernel running on this thread, or the one started last on DEV. */
static const struct emu_devctx *kernel_ctx(int dev) {
  const struct emu_devctx *c = emu_current_ctx();
  if (c && c->entry)
    return c;
  if (dev >= 0)
    return emu_last_ctx(dev);
  for (int d = 0; d < EMU_MAX_DEVICES; d++)
    if ((c = emu_last_ctx(d)))
      return c;
  return NULL;
}

static void kernel_words(const struct emu_devctx *c, char *buf, size_t len) {
  arena_kernel_words(c ? c->entry : NULL, buf, len);
}

/* Hand the fault to the handler that was there before ours. */
static void chain(int sig, siginfo_t *si, void *uc) {
  struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
  if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
    old->sa_sigaction(sig, si, uc);
    return;
  }
  if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
    return;
  }
  /* Default action: restore it; returning re-runs the access. */
  signal(sig, SIG_DFL);
}

/* Does the fault SIG end the process (no handler was there before ours)? */
static int default_action(int sig) {
  const struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
  return !(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_DFL;
}

/* The fault at X is a stack overflow: X lies just below the stack pointer
 * (a call or a frame's first store past the stack's guard). */
static int stack_overflow(uintptr_t x, void *uc) {
#ifdef __x86_64__
  if (!uc)
    return 0;
  uintptr_t sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
  return x + OVERFLOW_REACH >= sp && x < sp + OVERFLOW_REACH;
#else
  (void)x;
  (void)uc;
  return 0;
#endif
}

/* Does the thread that faulted with context UC run device code (a kernel
 * on this thread, or the faulting instruction in a device's code range)? */
static int in_device_code(void *uc) {
  const struct emu_devctx *c = emu_current_ctx();
  if (c && c->entry)
    return 1;
#ifdef __x86_64__
  if (uc) {
    uintptr_t ip = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    return ip >= EMU_CODE_BASE &&
           ip < EMU_CODE_BASE + EMU_MAX_DEVICES * EMU_CODE_STRIDE;
  }
#endif
  return 0;
}

/* A general-protection fault: an access through a non-canonical address
 * (the poison as a pointer is one), which the kernel reports as address
 * 0 with SI_KERNEL. */
static int noncanonical(int sig, const siginfo_t *si) {
  return sig == SIGSEGV && si->si_addr == NULL && si->si_code == SI_KERNEL;
}

/* A register of context UC holding the poison of device memory (or the
 * poison plus a small offset): the bad pointer of a non-canonical fault;
 * 0 if none. */
static uintptr_t poison_register(void *uc) {
#ifdef __x86_64__
  static const int regs[] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI,
                             REG_RDI, REG_RBP, REG_R8,  REG_R9,  REG_R10,
                             REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  if (!uc)
    return 0;
  const greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
  for (size_t i = 0; i < sizeof regs / sizeof *regs; i++) {
    uint64_t v = (uint64_t)g[regs[i]], hi = v >> 32;
    if (hi == EMU_CHECK_POISON_WORD || hi == 0x01010101u * EMU_POISON_BYTE)
      return (uintptr_t)v;
  }
#else
  (void)uc;
#endif
  return 0;
}

static void on_fault(int sig, siginfo_t *si, void *uc) {
  uintptr_t x = (uintptr_t)si->si_addr;
  struct emu_arena *hit = NULL;
  for (int k = 0; k < MAX_ARENAS && !hit; k++) {
    struct emu_arena *a = atomic_load(&arenas[k]);
    if (a && arena_owns(a, (void *)x))
      hit = a;
  }
  int is_alias = alias_size && x >= alias_base && x < alias_base + alias_size;
#ifdef __x86_64__
  if (sig == SIGSEGV && uc) { /* blocks (arena), globals (code range) */
    const greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
    uintptr_t ip = (uintptr_t)g[REG_RIP];
    int by_kernel = in_device_code(uc);
    if (watch_fault(x, (g[REG_ERR] & 2) != 0, (const void *)ip, by_kernel,
                    uc))
      return; /* a watched page (watch.c): retried, now accessible */
    if (hit && watch_retry(x))
      return; /* its watch ended after the fault: retried once */
  }
#endif
  if (!hit && !is_alias && !in_device_code(uc)) {
    chain(sig, si, uc);
    return;
  }
  const char *access = "access";
  int fetch = 0; /* an instruction fetch: a call or jump to X */
#ifdef __x86_64__
  if (sig == SIGSEGV && uc) {
    greg_t err = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR];
    access = err & 2 ? "write" : "read";
    fetch = (err & 16) != 0 ||
            (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] == x;
  }
#endif
  int dev = hit ? arena_dev(hit) : -1;
  char kern[300], where[400], var[300] = "", msg[1200];
  kernel_words(kernel_ctx(dev), kern, sizeof kern);
  if (!hit && !is_alias && stack_overflow(x, uc)) {
    snprintf(msg, sizeof msg, "emu: error: %s: stack overflow: the %s at "
             OMPEMU_PTR " is just below the thread's stack, which device "
             "code has used up (unbounded or too deep recursion?)\n", kern,
             access, OMPEMU_P(x));
  } else if (is_alias && fetch) {
    alias_describe(x, where, sizeof where);
    /* A call lands on the pointer itself: "+ 0" says nothing there. */
    size_t n = strlen(where);
    if (n > 4 && !strcmp(where + n - 4, " + 0"))
      where[n - 4] = 0;
    snprintf(msg, sizeof msg, "emu: error: check: %s called host function "
             "pointer %s: device code can only call functions compiled for "
             "the device (declare target; through a pointer taken on the "
             "host, declare target indirect)\n", kern, where);
  } else if (is_alias) {
    alias_describe(x, where, sizeof where);
    snprintf(msg, sizeof msg, "emu: error: check: %s dereferenced host "
             "pointer %s (%s at " OMPEMU_PTR ")\n", kern, where, access,
             OMPEMU_P(x));
  } else if (!hit && noncanonical(sig, si)) {
    uintptr_t p = poison_register(uc);
    if (p)
      snprintf(msg, sizeof msg, "emu: error: %s: invalid access through "
               "the address " OMPEMU_PTR ", which is the poison of device "
               "memory nothing wrote: the kernel followed a pointer read from "
               "uninitialized device memory (data mapped alloc or from, or "
               "never sent with to)\n", kern, OMPEMU_P(p));
    else
      snprintf(msg, sizeof msg, "emu: error: %s: invalid access through a "
               "non-canonical address (not a user-space address; the fault "
               "reports none)\n", kern);
  } else {
    if (hit)
      arena_describe(hit, x, where, sizeof where);
    else
      snprintf(where, sizeof where, "which is not device memory");
    if (hit && describe_var) {
      char name[256];
      if (describe_var((void *)x, name, sizeof name) == 0 && name[0])
        snprintf(var, sizeof var, " (%s)", name);
    }
    if (dev >= 0)
      snprintf(msg, sizeof msg, "emu: error: device %d: %s: invalid %s of "
               "device memory at " OMPEMU_PTR ", %s%s\n", dev, kern, access,
               OMPEMU_P(x), where, var);
    else
      snprintf(msg, sizeof msg, "emu: error: %s: invalid %s at " OMPEMU_PTR
               ", %s\n", kern, access, OMPEMU_P(x), where);
  }
  if (check_on) {
    /* The runtime's exit summary cannot run from here; end with a line of
     * the same form so a reader (and a CI log grep) sees why it stopped.
     * Which of a kernel's faulting threads is reported: fault_hold.c. */
    char end[120];
    snprintf(end, sizeof end, "ompemu: check: stopped at a fault in device "
             "code; exit status %d\n", check_status);
    fault_hold(msg, x, hit || is_alias || in_device_code(uc), end,
               check_status);
  }
  if (default_action(sig))
    fault_hold(msg, x, hit || is_alias || in_device_code(uc), "", -1);
  else /* the handler before ours takes the fault on this thread */
    ompemu_write_stderr(msg);
  chain(sig, si, uc);
}

void fault_install(void) {
  pthread_mutex_lock(&reg_lock);
  struct sigaction cur;
  if (installed && sigaction(SIGSEGV, NULL, &cur) == 0 &&
      !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault))
    installed = 0; /* replaced since: take it again, chaining to that one */
  if (!installed) {
    describe_var = (int (*)(const void *, char *, size_t))dlsym(
        RTLD_DEFAULT, "ompemu_describe_device_addr");
    fault_hold_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    installed = 1;
  }
  pthread_mutex_unlock(&reg_lock);
}

void fault_register_arena(struct emu_arena *a, int on) {
  pthread_mutex_lock(&reg_lock);
  for (int k = 0; k < MAX_ARENAS; k++) {
    if (on && !atomic_load(&arenas[k])) {
      atomic_store(&arenas[k], a);
      break;
    }
    if (!on && atomic_load(&arenas[k]) == a) {
      atomic_store(&arenas[k], NULL);
      break;
    }
  }
  pthread_mutex_unlock(&reg_lock);
  if (on)
    fault_install();
}

void fault_register_alias(uintptr_t base, size_t size,
                          void (*describe)(uintptr_t x, char *buf,
                                           size_t len)) {
  __atomic_store_n(&alias_size, 0, __ATOMIC_RELEASE);
  if (!size)
    return;
  alias_describe = describe;
  alias_base = base;
  __atomic_store_n(&alias_size, size, __ATOMIC_RELEASE);
  fault_install();
}

void fault_set_check(int on, int exit_status) {
  check_on = on;
  check_status = exit_status;
  __atomic_store_n(&emu_kernel_thread_setup, on ? fault_thread_altstack : NULL,
                   __ATOMIC_RELEASE);
}

/* The thread's alternate signal stack, taken away and unmapped when the
 * thread ends. */
static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;

static void alt_gone(void *p) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, NULL);
  munmap(p, ALT_STACK_SIZE);
}

static void alt_key_make(void) { pthread_key_create(&alt_key, alt_gone); }

void fault_thread_altstack(void) {
  static __thread int done;
  if (done || !check_on)
    return;
  done = 1;
  stack_t cur;
  if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
    return; /* the thread has one (a sanitizer's, the program's) */
  void *p = mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return;
  stack_t ss = {.ss_sp = p, .ss_size = ALT_STACK_SIZE, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(p, ALT_STACK_SIZE);
    return;
  }
  pthread_once(&alt_once, alt_key_make);
  pthread_setspecific(alt_key, p);
}
