/* Execution on the emu device: per-device worker threads with in-order
 * command lists, streams (the plugin's __tgt_async_info Queue), events, and
 * kernel calls through libffi with pointer-typed arguments.
 *
 * A host thread is bound to one worker of each device (round robin, on its
 * first use), so the work of a sequential program always runs on worker 0
 * and in program order.  A stream belongs to the worker of the host thread
 * that created it; commands of a worker run in the order they were queued.
 *
 * Thread safety: every function may be called from any host thread, but
 * one stream must not be used by two host threads at once (as with a CUDA
 * stream behind one __tgt_async_info). */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "devicertl.h"

struct exec_device;
struct exec_stream;
struct exec_event;

/* Why a kernel could not start on its worker: libffi could not prepare the
 * call, there was no memory for its argument list, or a fault was injected
 * (OMPEMU_INJECT).  ENTRY is the kernel's entry address, WHY the reason. */
struct exec_fault {
  void *entry;
  char why[160];
};

/* Options read from the environment by exec_device_create. */
struct exec_options {
  int workers;        /* OMPEMU_DEVICE_THREADS, default 2; 1 if serial */
  int serial;         /* OMPEMU_SERIAL: copies go through the worker too */
  size_t stack_size;  /* OMPEMU_STACK_SIZE, default 8M */
  long spin_ns;       /* OMPEMU_SPIN_US * 1000, default 50 us */
};
void exec_read_options(struct exec_options *o);

/* Start the workers of device DEV.  NULL (with a message) on failure. */
struct exec_device *exec_device_create(int dev, const struct exec_options *o);
/* Run what is queued, stop and join the workers, free everything: 0.  -1
 * (nothing freed, the workers left as they are) when that cannot be done
 * safely: the caller is one of D's workers, or a worker is in the middle
 * of a command (a kernel still running when the process exits). */
int exec_device_destroy(struct exec_device *d);

/* 1 if the calling thread is a worker of some device. */
int exec_on_worker(void);
/* Kernels the calling worker has started, the running one included (0 on
 * any other thread), and the stack size its device gives threads. */
unsigned long exec_worker_kernels(void);
size_t exec_worker_stack_size(void);

/* Call ENTRY(ARGS[0]+OFFSETS[0], ...) with N pointer arguments on a worker,
 * with CTX as the thread's device context.  OFFSETS may be NULL.
 * STREAM NULL: wait for it; -1 if the kernel could not start, with the
 *   reason in *FAULT.
 * Otherwise queue it on *STREAM (created on first use) and return at once;
 *   ARGS and OFFSETS are copied.  A kernel that cannot start is reported by
 *   the next exec_drain or exec_sync of *STREAM.
 * -1 also when the command cannot be queued (reported here).  FAULT may be
 * NULL: a kernel that cannot start is then reported here too. */
int exec_launch(struct exec_device *d, struct exec_stream **stream,
                void *entry, void *const *args, const ptrdiff_t *offsets,
                int32_t n, const struct emu_devctx *ctx,
                struct exec_fault *fault);

/* As exec_launch, but run the kernel on the calling thread, at once, when
 * nothing can tell the difference: not serial, the queue *STREAM and the
 * caller's worker have nothing pending (so the order is the same), the
 * caller is no worker, has the workers' stack size left, and, for NEEDS
 * with EXEC_USES_LIBOMP, is at libomp level 0 with a new root's ICVs
 * (exec_inline.c), and no device events are sent (a timeline's device
 * tracks stay the workers').  EXEC_THREAD_BOUND in NEEDS: always on a
 * worker. */
#define EXEC_THREAD_BOUND 1u /* = LOADER_THREAD_BOUND */
#define EXEC_USES_LIBOMP 2u  /* = LOADER_USES_LIBOMP */
int exec_launch_here(struct exec_device *d, struct exec_stream **stream,
                     void *entry, void *const *args, const ptrdiff_t *offsets,
                     int32_t n, const struct emu_devctx *ctx,
                     struct exec_fault *fault, unsigned needs);

/* As exec_launch, but the worker fails the kernel with reason WHY instead
 * of calling it: fault injection that takes the real failure path. */
int exec_launch_failing(struct exec_device *d, struct exec_stream **stream,
                        void *entry, const char *why,
                        struct exec_fault *fault);

/* Run FN(ARG) on a worker with CTX set (CTX may be NULL) and wait. */
int exec_call(struct exec_device *d, void (*fn)(void *), void *arg,
              const struct emu_devctx *ctx);

/* memcpy(DST, SRC, LEN), ordered after the work already on *STREAM.  Done
 * on the calling thread when nothing is pending there (and not serial). */
int exec_copy(struct exec_device *d, struct exec_stream **stream, void *dst,
              const void *src, size_t len);

/* Wait for everything on *STREAM; the stream stays.  -1 if a kernel
 * queued on it since its last exec_sync could not start, with the first
 * such fault in *FAULT (which may be NULL); the stream keeps the fault. */
int exec_drain(struct exec_device *d, struct exec_stream **stream,
               struct exec_fault *fault);

/* Wait for everything on *STREAM, release it and set *STREAM = NULL.  -1
 * with *FAULT as exec_drain, reported once: the fault goes with the
 * stream. */
int exec_sync(struct exec_device *d, struct exec_stream **stream,
              struct exec_fault *fault);

/* 1 if *STREAM has queued work not yet finished. */
int exec_pending(struct exec_stream *s);

/* Events: RECORD marks the point reached by *STREAM's work (at once when
 * STREAM is NULL or idle); WAIT makes *STREAM's later work wait for the
 * last recorded point; SYNC makes the host wait for it.  DESTROY waits for
 * the last record; a wait for the event still queued on another stream
 * keeps it alive until it has run. */
struct exec_event *exec_event_create(void);
int exec_event_record(struct exec_device *d, struct exec_event *ev,
                      struct exec_stream **stream);
int exec_event_wait(struct exec_device *d, struct exec_event *ev,
                    struct exec_stream **stream);
int exec_event_sync(struct exec_event *ev);
int exec_event_destroy(struct exec_event *ev);

#endif
