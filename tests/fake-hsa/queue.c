/* HSA test double: signals and AQL queues.  Ringing a queue's doorbell
 * processes its packets right away on the ringing thread, in index order,
 * stopping at a slot whose header is still INVALID (a producer that has not
 * published yet); the producer of that slot processes it when it rings.  A
 * kernel dispatch packet is checked, logged field by field, and its kernel
 * (a host function) called with the kernarg buffer's pointer-sized values. */
#define _GNU_SOURCE
#include "fake_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIGNAL_MAGIC 0x5349474eu
#define MAX_KERNEL_ARGS 16

struct fake_queue;

struct fake_signal {
  uint32_t magic;
  hsa_signal_value_t value;
  pthread_mutex_t m;
  pthread_cond_t c;
  struct fake_queue *doorbell_of;
};

struct fake_queue {
  hsa_queue_t q; /* first: the plugin sees this */
  uint64_t write, read;
  pthread_mutex_t lock; /* serialises packet processing */
  struct fake_agent *agent;
  void (*cb)(hsa_status_t, hsa_queue_t *, void *);
  void *data;
};


static int live_signals; /* created and not destroyed (doorbells too) */

int fake_hsa_live_signals(void) {
  return __atomic_load_n(&live_signals, __ATOMIC_RELAXED);
}

static struct fake_signal *sig_of(hsa_signal_t s) {
  struct fake_signal *f = (struct fake_signal *)(uintptr_t)s.handle;
  if (!f || f->magic != SIGNAL_MAGIC) {
    fprintf(stderr, "fake-hsa: invalid signal 0x%016lx\n",
            (unsigned long)s.handle);
    abort();
  }
  return f;
}

hsa_status_t hsa_signal_create(hsa_signal_value_t init, uint32_t ncons,
                               const hsa_agent_t *cons, hsa_signal_t *out) {
  struct fake_signal *f = calloc(1, sizeof *f);
  if (!f || !out)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  f->magic = SIGNAL_MAGIC;
  f->value = init;
  __atomic_add_fetch(&live_signals, 1, __ATOMIC_RELAXED);
  pthread_mutex_init(&f->m, NULL);
  pthread_cond_init(&f->c, NULL);
  out->handle = (uint64_t)(uintptr_t)f;
  fake_log("hsa_signal_create(%ld) = 0x0 signal=0x%016lx", (long)init,
           (unsigned long)out->handle);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t s) {
  struct fake_signal *f = sig_of(s);
  fake_log("hsa_signal_destroy(0x%016lx) = 0x0 value=%ld",
           (unsigned long)s.handle, (long)f->value);
  f->magic = 0;
  __atomic_sub_fetch(&live_signals, 1, __ATOMIC_RELAXED);
  pthread_mutex_destroy(&f->m);
  pthread_cond_destroy(&f->c);
  free(f);
  return HSA_STATUS_SUCCESS;
}

static void sig_set(struct fake_signal *f, hsa_signal_value_t v) {
  pthread_mutex_lock(&f->m);
  f->value = v;
  pthread_cond_broadcast(&f->c);
  pthread_mutex_unlock(&f->m);
}

void fake_signal_sub(hsa_signal_t s, hsa_signal_value_t v) {
  struct fake_signal *f = sig_of(s);
  pthread_mutex_lock(&f->m);
  f->value -= v;
  pthread_cond_broadcast(&f->c);
  pthread_mutex_unlock(&f->m);
}

hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t s) {
  struct fake_signal *f = sig_of(s);
  pthread_mutex_lock(&f->m);
  hsa_signal_value_t v = f->value;
  pthread_mutex_unlock(&f->m);
  return v;
}

static int cond_true(hsa_signal_condition_t c, hsa_signal_value_t v,
                     hsa_signal_value_t cmp) {
  switch (c) {
  case HSA_SIGNAL_CONDITION_EQ: return v == cmp;
  case HSA_SIGNAL_CONDITION_NE: return v != cmp;
  case HSA_SIGNAL_CONDITION_LT: return v < cmp;
  case HSA_SIGNAL_CONDITION_GTE: return v >= cmp;
  }
  return 1;
}

/* Waits at most 10 s: in the double everything completes synchronously, so
 * a longer wait is a bug in the caller, reported loudly instead of a hang. */
hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t s,
                                             hsa_signal_condition_t c,
                                             hsa_signal_value_t cmp,
                                             uint64_t timeout,
                                             hsa_wait_state_t state) {
  struct fake_signal *f = sig_of(s);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  pthread_mutex_lock(&f->m);
  while (!cond_true(c, f->value, cmp)) {
    if (pthread_cond_timedwait(&f->c, &f->m, &until) != 0 &&
        !cond_true(c, f->value, cmp)) {
      fprintf(stderr, "fake-hsa: signal 0x%016lx stuck at %ld (condition %d "
              "%ld) for 10 s\n", (unsigned long)s.handle, (long)f->value,
              (int)c, (long)cmp);
      abort();
    }
  }
  hsa_signal_value_t v = f->value;
  pthread_mutex_unlock(&f->m);
  fake_log("hsa_signal_wait_scacquire(0x%016lx, cond=%d, %ld) = %ld",
           (unsigned long)s.handle, (int)c, (long)cmp, (long)v);
  return v;
}

static void process_queue(struct fake_queue *fq);

void hsa_signal_store_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  struct fake_signal *f = sig_of(s);
  sig_set(f, v);
  if (f->doorbell_of) {
    fake_log("doorbell(queue=0x%016lx, %ld)",
             (unsigned long)(uintptr_t)f->doorbell_of, (long)v);
    process_queue(f->doorbell_of);
  }
}

hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size,
                              hsa_queue_type32_t type,
                              void (*cb)(hsa_status_t, hsa_queue_t *, void *),
                              void *data, uint32_t priv, uint32_t group,
                              hsa_queue_t **out) {
  struct fake_agent *a = fake_agent_of(agent);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!a || !a->is_gpu)
    st = HSA_STATUS_ERROR_INVALID_AGENT;
  else if (size == 0 || (size & (size - 1)) || size > 1024)
    st = HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  else if (fake.queue_fail)
    st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  struct fake_queue *fq = NULL;
  if (st == HSA_STATUS_SUCCESS) {
    fq = calloc(1, sizeof *fq);
    void *ring = aligned_alloc(64, (size_t)size * 64);
    hsa_signal_t door;
    if (!fq || !ring || hsa_signal_create(0, 0, NULL, &door) != 0) {
      free(fq);
      free(ring);
      fq = NULL;
      st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    } else {
      for (uint32_t i = 0; i < size; i++)
        ((hsa_kernel_dispatch_packet_t *)ring)[i].header =
            HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
      fq->q.type = type;
      fq->q.base_address = ring;
      fq->q.size = size;
      fq->q.doorbell_signal = door;
      fq->q.id = (uint64_t)a->index;
      ((struct fake_signal *)(uintptr_t)door.handle)->doorbell_of = fq;
      pthread_mutex_init(&fq->lock, NULL);
      fq->agent = a;
      fq->cb = cb;
      fq->data = data;
      *out = &fq->q;
    }
  }
  fake_log("hsa_queue_create(%s, size=%u, type=%u) = 0x%x queue=0x%016lx",
           fake_agent_name(a), size, (unsigned)type, st,
           (unsigned long)(uintptr_t)fq);
  return st;
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *q) {
  struct fake_queue *fq = (struct fake_queue *)q;
  fake_log("hsa_queue_destroy(0x%016lx) = 0x0", (unsigned long)(uintptr_t)q);
  hsa_signal_destroy(q->doorbell_signal);
  free(q->base_address);
  pthread_mutex_destroy(&fq->lock);
  free(fq);
  return HSA_STATUS_SUCCESS;
}

uint64_t hsa_queue_add_write_index_relaxed(const hsa_queue_t *q, uint64_t v) {
  struct fake_queue *fq = (struct fake_queue *)q;
  return __atomic_fetch_add(&fq->write, v, __ATOMIC_RELAXED);
}

uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *q) {
  struct fake_queue *fq = (struct fake_queue *)q;
  return __atomic_load_n(&fq->read, __ATOMIC_ACQUIRE);
}

/* Report a bad packet through the queue's error callback. */
static void queue_error(struct fake_queue *fq, hsa_status_t st,
                        const char *why) {
  fake_log("queue error(queue=0x%016lx): %s", (unsigned long)(uintptr_t)fq,
           why);
  if (fq->cb)
    fq->cb(st, &fq->q, fq->data);
}

/* Run one kernel dispatch packet P of queue FQ. */
static void run_dispatch(struct fake_queue *fq,
                         const hsa_kernel_dispatch_packet_t *p,
                         uint16_t header) {
  struct fake_kd *kd = (struct fake_kd *)(uintptr_t)p->kernel_object;
  void *args[MAX_KERNEL_ARGS] = {0};
  size_t nargs = 0;
  const char *why = NULL;
  unsigned dims = p->setup & 3;
  pthread_mutex_lock(&fake_lock);
  struct fake_alloc *ka = fake_alloc_find((uintptr_t)p->kernarg_address, 1);
  if (!kd || kd->magic != FAKE_KD_MAGIC)
    why = "kernel_object is not a kernel descriptor";
  else if (dims < 1 || dims > 3)
    why = "setup dimensions not in 1..3";
  else if (!p->workgroup_size_x || !p->workgroup_size_y ||
           !p->workgroup_size_z || p->grid_size_x < p->workgroup_size_x ||
           !p->grid_size_y || !p->grid_size_z)
    why = "bad grid or workgroup size";
  else if (!ka || !ka->pool->is_system)
    why = "kernarg_address is not runtime-allocated system memory";
  else if (!(ka->allowed & (1u << fq->agent->index)))
    why = "kernarg buffer not opened to the agent";
  else {
    nargs = (ka->ptr + ka->size - (uintptr_t)p->kernarg_address) / 8;
    if (nargs > MAX_KERNEL_ARGS)
      nargs = MAX_KERNEL_ARGS;
    memcpy(args, p->kernarg_address, nargs * 8);
  }
  pthread_mutex_unlock(&fake_lock);
  fake_log("dispatch(queue=0x%016lx, agent=%s, kernel=%s, header=0x%04x, "
           "setup=%u, workgroup=%u,%u,%u, grid=%u,%u,%u, private=%u, "
           "group=%u, kernarg=0x%016lx, kernarg_words=%zu, "
           "signal=0x%016lx)%s%s",
           (unsigned long)(uintptr_t)fq, fake_agent_name(fq->agent),
           kd && kd->magic == FAKE_KD_MAGIC ? kd->name : "?", header, p->setup,
           p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z,
           p->grid_size_x, p->grid_size_y, p->grid_size_z,
           p->private_segment_size, p->group_segment_size,
           (unsigned long)(uintptr_t)p->kernarg_address, nargs,
           (unsigned long)p->completion_signal.handle, why ? " error: " : "",
           why ? why : "");
  if (why) {
    queue_error(fq, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, why);
    if (p->completion_signal.handle)
      sig_set(sig_of(p->completion_signal), -1);
    return;
  }
  /* x86-64: a caller passing more integer arguments than the callee takes
   * is harmless, so every kernel is called with 16. */
  typedef void (*k16)(void *, void *, void *, void *, void *, void *, void *,
                      void *, void *, void *, void *, void *, void *, void *,
                      void *, void *);
  void *prev = fake_running_exec;
  fake_running_exec = kd->exec;
  ((k16)(void *)kd->fn)(args[0], args[1], args[2], args[3], args[4], args[5],
                        args[6], args[7], args[8], args[9], args[10], args[11],
                        args[12], args[13], args[14], args[15]);
  fake_running_exec = prev;
  if (p->completion_signal.handle)
    fake_signal_sub(p->completion_signal, 1);
}

static void process_queue(struct fake_queue *fq) {
  pthread_mutex_lock(&fq->lock);
  for (;;) {
    uint64_t r = fq->read;
    if (r >= __atomic_load_n(&fq->write, __ATOMIC_ACQUIRE))
      break;
    hsa_kernel_dispatch_packet_t *p =
        (hsa_kernel_dispatch_packet_t *)fq->q.base_address + (r & (fq->q.size - 1));
    uint16_t header = __atomic_load_n(&p->header, __ATOMIC_ACQUIRE);
    unsigned type = (header >> HSA_PACKET_HEADER_TYPE) & 0xff;
    if (type == HSA_PACKET_TYPE_INVALID)
      break;
    if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH)
      run_dispatch(fq, p, header);
    else
      queue_error(fq, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
                  "unsupported packet type");
    __atomic_store_n(&p->header,
                     (uint16_t)(HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE),
                     __ATOMIC_RELEASE);
    __atomic_store_n(&fq->read, r + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&fq->lock);
}
