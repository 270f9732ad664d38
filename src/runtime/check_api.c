/* The blocks omp_target_alloc (and llvm_omp_target_alloc_*) returned, in
 * every mode, so that the device memory routines can say what is wrong in
 * the words of the API (docs/check.md, "At the API (every mode)"):
 * omp_target_free of a block already freed, or of another device's
 * memory; omp_target_memcpy given memory of one device with the number of
 * another (or the host's).
 * A hash table by address; freed blocks are remembered until FREED_KEPT
 * newer frees have happened.  Its own leaf lock. */
#define _GNU_SOURCE
#include "config.h"
#include "check_api.h"
#include "trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREED_KEPT 1024
#define TOMB ((uintptr_t)1)

struct apiblk {
  uintptr_t p;   /* 0 empty, TOMB deleted */
  size_t size;
  int32_t dev;
  int live;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct apiblk *tab;
static size_t cap, used; /* used counts tombstones too */
static uintptr_t freed[FREED_KEPT];
static unsigned freed_head, nfreed;

static size_t slot_of(uintptr_t p, size_t c) {
  return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> 20) % c;
}

static struct apiblk *find(uintptr_t p) {
  if (!cap)
    return NULL;
  for (size_t j = slot_of(p, cap);; j = (j + 1) % cap) {
    if (tab[j].p == p)
      return &tab[j];
    if (!tab[j].p)
      return NULL;
  }
}

static int grow(void) {
  size_t nc = cap ? cap * 2 : 256;
  struct apiblk *t = calloc(nc, sizeof *t);
  if (!t)
    return -1;
  size_t n = 0;
  for (size_t i = 0; i < cap; i++)
    if (tab[i].p > TOMB) {
      size_t j = slot_of(tab[i].p, nc);
      while (t[j].p)
        j = (j + 1) % nc;
      t[j] = tab[i];
      n++;
    }
  free(tab);
  tab = t;
  __atomic_store_n(&cap, nc, __ATOMIC_RELAXED);
  used = n;
  return 0;
}

void check_api_alloc(int32_t dev, void *p, size_t size) {
  if (!p)
    return;
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  if (!b && (used + 1) * 2 > cap && grow() != 0) {
    pthread_mutex_unlock(&lock);
    return;
  }
  if (!b) {
    size_t j = slot_of((uintptr_t)p, cap);
    while (tab[j].p > TOMB)
      j = (j + 1) % cap;
    if (!tab[j].p)
      used++;
    b = &tab[j];
  }
  *b = (struct apiblk){(uintptr_t)p, size, dev, 1};
  pthread_mutex_unlock(&lock);
}

/* "the host" or "device N" for device number DEV. */
static const char *dev_words(int32_t dev, int32_t host, char *buf,
                             size_t len) {
  if (dev == host)
    return "the host";
  snprintf(buf, len, "device %d", (int)dev);
  return buf;
}

int check_api_free(int32_t dev, int32_t host, void *p) {
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  struct apiblk copy = b ? *b : (struct apiblk){0};
  pthread_mutex_unlock(&lock);
  char w1[32], w2[32];
  if (!b)
    return 0; /* not ours to judge */
  if (!copy.live) {
    ompemu_error("ompemu", "omp_target_free: " OMPEMU_PTR " (%zu bytes of %s "
                 "memory) was already freed by an earlier omp_target_free: "
                 "nothing done", OMPEMU_P(p), copy.size,
                 dev_words(copy.dev, host, w1, sizeof w1));
    return -1;
  }
  if (copy.dev != dev) {
    ompemu_error("ompemu", "omp_target_free: " OMPEMU_PTR " is %s memory but "
                 "device_num is %s: nothing done", OMPEMU_P(p),
                 dev_words(copy.dev, host, w1, sizeof w1),
                 dev_words(dev, host, w2, sizeof w2));
    return -1;
  }
  return 0;
}

void check_api_freed(void *p) {
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  if (b && b->live) {
    b->live = 0;
    if (nfreed == FREED_KEPT) {
      struct apiblk *old = find(freed[freed_head]);
      if (old && !old->live)
        old->p = TOMB;
    } else {
      nfreed++;
    }
    freed[freed_head] = (uintptr_t)p;
    freed_head = (freed_head + 1) % FREED_KEPT;
  }
  pthread_mutex_unlock(&lock);
}

/* One side (WHICH is "dst" or "src") of omp_target_memcpy: P with device
 * number DEV.  0, or -1 after saying why it is refused. */
static int memcpy_side(const char *which, const void *p, int32_t dev,
                       int32_t host) {
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  struct apiblk copy = b ? *b : (struct apiblk){0};
  pthread_mutex_unlock(&lock);
  if (!b || (copy.live && copy.dev == dev))
    return 0;
  char w1[32], w2[32];
  if (!copy.live)
    ompemu_error("ompemu", "omp_target_memcpy: %s " OMPEMU_PTR " is %s memory "
                 "that omp_target_free freed: nothing copied", which,
                 OMPEMU_P(p), dev_words(copy.dev, host, w1, sizeof w1));
  else
    ompemu_error("ompemu", "omp_target_memcpy: %s " OMPEMU_PTR " is %s memory "
                 "but %s_device_num is %s: nothing copied", which, OMPEMU_P(p),
                 dev_words(copy.dev, host, w1, sizeof w1), which,
                 dev_words(dev, host, w2, sizeof w2));
  return -1;
}

int check_api_memcpy(const void *dst, const void *src, int32_t dst_dev,
                     int32_t src_dev, int32_t host) {
  if (!__atomic_load_n(&cap, __ATOMIC_RELAXED))
    return 0; /* omp_target_alloc was never called */
  if (memcpy_side("dst", dst, dst_dev, host) ||
      memcpy_side("src", src, src_dev, host))
    return -1;
  return 0;
}
