/* Host-pointer aliases (__tgt_rtl_ompemu_host_alias): a reserved PROT_NONE
 * range, [EMU_ALIAS_BASE, +EMU_ALIAS_SIZE), cut into windows of
 * ALIAS_WINDOW bytes.  The runtime replaces a host pointer it finds where
 * device code will read it (a kernel argument, a pointer inside a mapped
 * block) by an address in a window of its own; device code that
 * dereferences it faults, and the fault handler names the host pointer
 * and the description the runtime gave.  The alias sits in the middle of
 * its window, at the host pointer's offset in its page, so P[I] for any
 * I within +-ALIAS_WINDOW/2 bytes lands in the same window.  The same host
 * pointer and description give the same alias; windows are handed out in
 * order, so the same program gets the same aliases. */
#include "config.h"
#include "emu.h"
#include "fault.h"
#include "trace.h"

#include <ompemu/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ALIAS_WINDOW ((uintptr_t)16 << 20)
#define ALIAS_SLOTS (EMU_ALIAS_SIZE / ALIAS_WINDOW)
#define ALIAS_DESC 248 /* a slot of 256 bytes */

struct alias {
  uintptr_t host;
  char desc[ALIAS_DESC];
};

static struct alias *slots; /* ALIAS_SLOTS, from the reservation's start */
static size_t nslots;
/* The slots by host pointer (a struct array's thousands of pointers ask
 * one after another): open addressing over slot numbers + 1, 0 empty. */
#define BY_HOST (2 * ALIAS_SLOTS)
static uint32_t *by_host;
static int full_told; /* the table filled up: said once */

static size_t host_hash(uintptr_t host) {
  return (size_t)((uint64_t)host * 0x9e3779b97f4a7c15u >> 20) % BY_HOST;
}
static int state; /* 0 not tried, 1 ready, -1 failed */
static pthread_mutex_t alias_lock = PTHREAD_MUTEX_INITIALIZER;

static uintptr_t alias_of(size_t slot, uintptr_t host) {
  return EMU_ALIAS_BASE + slot * ALIAS_WINDOW + ALIAS_WINDOW / 2 +
         (host & 4095);
}

/* For the fault handler: "0x... (DESC) + OFFSET" for X in the range. */
static void describe(uintptr_t x, char *buf, size_t len) {
  size_t slot = (x - EMU_ALIAS_BASE) / ALIAS_WINDOW;
  if (!slots || slot >= __atomic_load_n(&nslots, __ATOMIC_ACQUIRE)) {
    snprintf(buf, len, "alias " OMPEMU_PTR " (never handed out)",
             OMPEMU_P(x));
    return;
  }
  const struct alias *s = &slots[slot];
  long off = (long)(x - alias_of(slot, s->host));
  snprintf(buf, len, OMPEMU_PTR " (%s) %c %ld", OMPEMU_P(s->host),
           s->desc[0] ? s->desc : "no description", off < 0 ? '-' : '+',
           off < 0 ? -off : off);
}

/* Reserve the range and the table.  Caller holds ALIAS_LOCK. */
static int alias_init(void) {
  if (state)
    return state > 0 ? 0 : -1;
  state = -1;
  void *m = mmap((void *)EMU_ALIAS_BASE, EMU_ALIAS_SIZE, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     MAP_FIXED_NOREPLACE, -1, 0);
  if (m != (void *)EMU_ALIAS_BASE) {
    if (m != MAP_FAILED)
      munmap(m, EMU_ALIAS_SIZE);
    ompemu_error("emu", "cannot reserve the host-pointer alias range ["
                 OMPEMU_PTR ", " OMPEMU_PTR ")", OMPEMU_P(EMU_ALIAS_BASE),
                 OMPEMU_P(EMU_ALIAS_BASE + EMU_ALIAS_SIZE));
    return -1;
  }
  slots = calloc(ALIAS_SLOTS, sizeof *slots);
  by_host = calloc(BY_HOST, sizeof *by_host);
  if (!slots || !by_host) {
    free(slots);
    free(by_host);
    slots = NULL;
    by_host = NULL;
    munmap(m, EMU_ALIAS_SIZE);
    ompemu_error("emu", "out of host memory for the host-pointer aliases");
    return -1;
  }
  fault_register_alias(EMU_ALIAS_BASE, EMU_ALIAS_SIZE, describe);
  state = 1;
  return 0;
}

EMU_EXPORT void *__tgt_rtl_ompemu_host_alias(int32_t id, void *host_ptr,
                                            const char *description) {
  if (!emu_device_get(id, "ompemu_host_alias"))
    return NULL;
  uintptr_t host = (uintptr_t)host_ptr;
  const char *desc = description ? description : "";
  pthread_mutex_lock(&alias_lock);
  void *r = NULL;
  if (alias_init() == 0) {
    size_t j = host_hash(host);
    for (; by_host[j] && !r; j = (j + 1) % BY_HOST) {
      size_t i = by_host[j] - 1;
      if (slots[i].host == host && strncmp(slots[i].desc, desc,
                                           ALIAS_DESC - 1) == 0)
        r = (void *)alias_of(i, host);
    }
    if (!r && nslots < ALIAS_SLOTS) {
      slots[nslots].host = host;
      snprintf(slots[nslots].desc, ALIAS_DESC, "%s", desc);
      r = (void *)alias_of(nslots, host);
      by_host[j] = (uint32_t)nslots + 1; /* J: the empty slot the probe ended at */
      __atomic_store_n(&nslots, nslots + 1, __ATOMIC_RELEASE);
    } else if (!r && !full_told) {
      /* Once: a program with more distinct host pointers in mapped data
       * would otherwise print a line per pointer per copy. */
      full_told = 1;
      ompemu_warning("emu", "all %lu host-pointer aliases are in use: host "
                     "pointer " OMPEMU_PTR " (%s) and the further ones stay "
                     "as they are (device code that follows them is not "
                     "reported)", (unsigned long)ALIAS_SLOTS, OMPEMU_P(host),
                     desc);
    }
  }
  pthread_mutex_unlock(&alias_lock);
  if (r)
    ompemu_trace(2, "emu", "host pointer " OMPEMU_PTR " (%s) aliased as "
                 OMPEMU_PTR, OMPEMU_P(host), desc, OMPEMU_P(r));
  return r;
}

/* Release the range at process exit (shutdown.c). */
void emu_alias_release(void) {
  pthread_mutex_lock(&alias_lock);
  if (state > 0) {
    fault_register_alias(0, 0, NULL);
    munmap((void *)EMU_ALIAS_BASE, EMU_ALIAS_SIZE);
    free(slots);
    free(by_host);
    by_host = NULL;
    slots = NULL;
    nslots = 0;
  }
  state = 0;
  pthread_mutex_unlock(&alias_lock);
}
