/* The timeline's recorder (timeline.c) and its writer (timeline_write.c):
 * fixed-size records in per-thread buffers, strings interned once per
 * process.  Internal to those two files. */
#ifndef OMPEMU_TIMELINE_H
#define OMPEMU_TIMELINE_H

#include "observe.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum tl_type {
  TL_REGION,      /* WORKER: the obs_region_kind */
  TL_ALLOC,
  TL_FREE,
  TL_COPY_TO,
  TL_COPY_FROM,
  TL_KERNEL,      /* TGT: entry, SIZE: trip count, R1/R2: teams/threads */
  TL_WAIT,        /* LINK: the kernel id it completes */
  TL_MAP,         /* WORKER: the obs_map_decision, R1/R2: dyn/hold */
  TL_DEVICE_INIT, /* NAME: the plugin */
  TL_IMAGE,       /* SIZE: bytes, HST: image start, WORKER: index */
  TL_DEV_KERNEL,  /* on a device worker: ID is the KERNEL's */
  TL_DEV_COPY,    /* on a device worker: ID is the COPY's */
  TL_DEV_WAIT     /* the plugin's wait on WORKER's queue (host thread) */
};

enum { TL_FAILED = 1, TL_NOWAIT = 2, TL_QUEUED = 4, TL_UNFINISHED = 8 };

struct tl_rec {
  uint8_t type, flags;
  int16_t device;
  int32_t worker;
  int64_t t0, t1;
  uint64_t id;
  uint64_t link;      /* the construct's id (REGION id), or see above */
  uintptr_t hst, tgt;
  int64_t size;
  uint32_t name;      /* string: variable, kernel, plugin; 0 none */
  uint32_t where;     /* string: the construct's psource; 0 none */
  uint64_t r1, r2;
};

#define TL_CHUNK 4096
#define TL_OPEN 8 /* open events kept per thread (nesting depth) */
struct tl_chunk {
  struct tl_chunk *next;
  struct tl_rec rec[TL_CHUNK];
};

/* One thread's buffer: appended by its thread only; COUNT is published
 * (release) after each record, so a reader sees whole records. */
struct tl_thread {
  struct tl_thread *next; /* registration order */
  int seq;                /* 1, 2, ... in registration order */
  int is_main;
  char os_name[16];
  struct tl_chunk *first, *last;
  _Atomic size_t count;
  _Atomic size_t dropped;
  /* Events begun and not ended (a construct, the kernel or wait inside
   * it), innermost last; changed by the thread only, under OPEN_GEN (odd
   * while changing), read by the writer on a fatal signal. */
  struct tl_rec open[TL_OPEN];
  _Atomic int nopen;
  _Atomic unsigned open_gen;
};

struct tl_state {
  int fd;                    /* the output, opened at start-up */
  const char *path;
  pid_t pid;                 /* a forked child writes nothing */
  int64_t base;              /* start-up time: ts 0 */
  size_t max_records;        /* per thread */
  pthread_mutex_t lock;      /* THREADS list and the strings */
  struct tl_thread *threads;
  char **strs;               /* interned strings; index 0 unused */
  size_t nstrs, capstrs;
};
RT_HIDDEN extern struct tl_state tl; /* defined in timeline_write.c */

/* timeline_write.c: write the trace-event JSON of everything recorded.
 * FATAL: the process is aborting (no lock waited for). */
RT_HIDDEN void tl_write(int fatal);

#endif
