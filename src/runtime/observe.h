/* The runtime's observation points and the observers subscribed to them
 * (docs/design.md, "Observation points"): the timeline, the summary, OMPT,
 * and the checking mode (check.h).  Every point is listed once, in
 * OBS_POINTS below; each is reached from one line in the data path
 * (devops.c, attach.c, launch.c, data_construct.c, data_begin_end.c,
 * device_memory.c, lifecycle.c, messages.c) through the macros at the end.
 *
 * Cost when nobody observes: each hook is one predictable branch on the
 * global obs_mask (set before any device exists: see obs_register); no
 * allocation, lock or clock read.  An event lives
 * on the stack of the function that reports it.
 *
 * Threads: hooks run on the thread doing the operation, possibly holding
 * a device's map_lock (copies, allocations and map decisions inside data
 * begin/end).  An observer must therefore take no runtime lock and call
 * nothing in the runtime but observe.h and the diagnostic functions; its
 * own locks are leaves. */
#ifndef OMPEMU_OBSERVE_H
#define OMPEMU_OBSERVE_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* X(NAME, SHAPE, what it reports).  SHAPE PAIR: a begin before the
 * operation (an observer may veto it there) and an end after it, with the
 * same event; INSTANT: one call, after the fact.  DEV_* come from the
 * plugin (src/common/devevent.h), on the thread the plugin reports from. */
#define OBS_POINTS(X)                                                         \
  X(REGION, PAIR, "a construct on a device: kind, source location, device") \
  X(ALLOC, PAIR, "device allocation: bytes, host address and variable of a " \
                 "mapping; at the end the device address")                   \
  X(FREE, PAIR, "device memory freed: address; host range and variable "    \
                "when it held a mapping")                                    \
  X(COPY_TO, PAIR, "host to device copy: bytes, host and device addresses, " \
                   "variable; at the end whether it was queued")             \
  X(COPY_FROM, PAIR, "device to host copy: the same")                       \
  X(KERNEL, PAIR, "kernel submit: name, entry, teams, threads, trip count, " \
                  "nowait; at the end whether it was queued")                \
  X(WAIT, PAIR, "the host waits for a device queue; the kernel it completes") \
  X(MAP, INSTANT, "map decision: new, exists, decremented, removed, with "  \
                  "the reference counts")                                    \
  X(ASSOC, INSTANT, "omp_target_associate_ptr / disassociate_ptr")           \
  X(DEVICE_INIT, INSTANT, "a device was initialised")                        \
  X(IMAGE_LOAD, INSTANT, "an image was loaded on a device")                  \
  X(DEV_RUN, INSTANT, "a device worker ran a kernel or a queued copy, from " \
                      "T0 to T1")                                            \
  X(DEV_WAIT, INSTANT, "the host waited from T0 to T1 on a worker's queue") \
  X(SHUTDOWN, INSTANT, "the runtime has shut down at exit: every library "   \
                       "unregistered, every device finalised")

#define OBS_ENUM_(name, shape, what) OBS_##name,
enum obs_point { OBS_POINTS(OBS_ENUM_) OBS_NPOINTS };
#undef OBS_ENUM_
#define OBS_BIT(p) (1u << (p))

enum obs_phase { OBS_PH_BEGIN, OBS_PH_END, OBS_PH_INSTANT };

struct rt_args; /* doors.h */

/* REGION kinds (the OMPT numbering, so OMPT passes them on unchanged). */
enum obs_region_kind {
  OBS_R_TARGET = 1,
  OBS_R_ENTER_DATA = 2, /* target data begin, enter data */
  OBS_R_EXIT_DATA = 3,  /* target data end, exit data */
  OBS_R_UPDATE = 4
};

enum obs_map_decision {
  OBS_MAP_NEW,       /* allocated and entered in the table */
  OBS_MAP_EXISTS,    /* found; the counts after the increment (if any);
                        VAR: the entry's name if it has one, else the
                        mapping's */
  OBS_MAP_DECREMENT, /* unmapped, entry stays (or its removal is deferred) */
  OBS_MAP_REMOVE,    /* the last reference went: the entry is removed */
  OBS_MAP_ASSOC,     /* ASSOC: associated */
  OBS_MAP_DISASSOC,  /* ASSOC: disassociated */
  OBS_MAP_ABSENT,    /* `target update` of a range no mapping holds */
  /* launch.c: a kernel argument that is a pointer no mapping holds (a
   * zero-length section, or clang 16+'s implicit 0x220 entry), passed to
   * the kernel unchanged (OpenMP 5.1): HST = TGT = the pointer's value,
   * SIZE 0, VAR and MAPTYPE its entry's.  It may be a function pointer or
   * a data pointer; which one is the observer's call. */
  OBS_MAP_UNMAPPED_PTR,
  /* data_begin_end.c: an explicit map entry refused because it extends an
   * existing mapping ("explicit extension not allowed"): HST and SIZE the
   * range asked for, TGT the device start of the mapping it runs into,
   * VAR and MAPTYPE the entry's. */
  OBS_MAP_REFUSED
};

/* One event.  Which fields a point fills is said by the point's hook
 * below; the rest are left as they are (uninitialised). */
struct obs_event {
  enum obs_point point;
  int32_t device;               /* global device id, -1 none */
  uint64_t id;                  /* unique in the process (see obs_new_id);
                                   0 when no observer reads ids (no_ids) */
  int64_t t0, t1;               /* CLOCK_MONOTONIC ns: begin, end */
  int result;                   /* END: 0 done, -1 failed */
  int vetoed;                   /* an observer refused it at its begin */
  /* The construct this happens in (REGION events of this thread), NULL
   * outside constructs (omp_target_* routines) or on other threads.  It
   * lives on the construct's stack: valid only during the call. */
  const struct obs_event *region;
  /* REGION */
  enum obs_region_kind rkind;
  ident_t *loc;                 /* the construct's source location */
  int nowait;                   /* REGION (any kind), KERNEL */
  /* ALLOC FREE COPY_* MAP ASSOC IMAGE_LOAD */
  uintptr_t hst, tgt;
  int64_t size;
  const char *var;              /* map name ";expr;file;line;col;;" or NULL */
  int queued;                   /* COPY_*, KERNEL end: left on a queue */
  /* KERNEL */
  const char *kernel;           /* entry name, or NULL */
  void *entry;                  /* device entry address */
  int32_t teams, threads;
  uint64_t trips;
  /* KERNEL begin: the argument vector the plugin gets (args[i] + offs[i];
   * an observer may replace args[i]), and the construct's map list with,
   * for map entry i, its argument index argpos[i] (-1: none). */
  void **args;
  ptrdiff_t *offs;
  int32_t nargs;
  const struct rt_args *maps;
  const int *argpos;
  /* MAP ASSOC */
  enum obs_map_decision decision;
  uint64_t dyn_ref, hold_ref;   /* UINT64_MAX: infinite */
  int64_t maptype;              /* MAP: the map type (0: none, a global) */
  /* WAIT: the kernel launch (KERNEL id) it completes, or 0 */
  uint64_t completes;
  /* DEV_RUN, DEV_WAIT */
  int32_t worker;               /* device worker index */
  int dev_kind;                 /* enum ompemu_devev_kind */
  /* IMAGE_LOAD: the image's label in messages */
  int image_index;
  /* Set by an observer for those after it (a finding, for instance);
   * static or process-lifetime storage. */
  const char *note;
  /* Scratch of the OMPT observer: the operation's host_op_id. */
  uint64_t ompt_op;
  /* The reporting thread's slots for the observers' own per-thread state
   * (struct obs_observer's SLOT), each NULL until its observer sets it:
   * found without a thread-local lookup of the observer's.  THREAD: the
   * observation layer's own (observe.c). */
  void **slots;
  void *thread;
};

/* A function of an observer for one point and phase (obs_observer's ON). */
typedef int (*obs_fn)(struct obs_event *e);

/* An observer: POINTS is the set of OBS_BIT(point) it wants.  EVENT is
 * called at each phase of those points; at OBS_PH_BEGIN a non-zero return
 * vetoes the operation (the observer has reported why through
 * src/common/trace.h; the hook fails the operation as a failed plugin call
 * would), elsewhere the return is ignored.  FINISH (may be NULL) runs once
 * at process exit, FATAL 1 when the process is about to abort (rt_fatal, a
 * fatal signal): it must then not wait for other threads. */
struct obs_observer {
  const char *name;
  uint32_t points;
  int (*event)(struct obs_event *e, enum obs_phase ph);
  void (*finish)(int fatal);
  /* 1 if it reads the events' times (t0, t1): events are timed only when
   * some observer does (a clock read costs more than the checker's
   * cheapest events). */
  int timed;
  /* Where obs_register stores the observer's index in the events' SLOTS
   * (may be NULL). */
  int *slot;
  /* Of POINTS, those whose BEGIN it does not want (it gets their END):
   * an event no observer reads costs no call. */
  uint32_t no_begin;
  /* Instead of EVENT, POINTS and NO_BEGIN (may be NULL): a function per
   * point and phase, ON[point][phase], NULL where it wants nothing; the
   * layer calls straight into each, with no switch on the point and phase
   * in between.  The return is EVENT's. */
  const obs_fn (*on)[3];
  /* MAP and ASSOC: the decisions it reads, OBS_BIT(decision); 0: all.  A
   * decision no observer reads makes no event. */
  uint32_t decisions;
  /* 1 if it reads no event's ID (nor what carries one: a WAIT's
   * COMPLETES, the plugin's QUEUED tag): events are numbered only when
   * some observer reads the numbers (ID 0 otherwise). */
  int no_ids;
};

/* Observers are registered by the set-up functions listed in observe.c:
 * in the library's constructor, or (OMPT, whose tool libomp starts then)
 * at the first registration of offload code; both before any device
 * exists, so no operation is under way when obs_mask changes.  They see
 * each event in registration order (a checking observer that may veto
 * registers first).  0 / -1 (too many). */
RT_HIDDEN int obs_register(const struct obs_observer *o);

/* The points some observer wants (0: nobody observes). */
RT_HIDDEN extern uint32_t obs_mask;
/* The map decisions some observer of MAP or ASSOC reads. */
RT_HIDDEN extern uint32_t obs_decisions;
/* Some observer is registered. */
#define OBS_ON() __builtin_expect(obs_mask != 0, 0)
#define OBS_WANTS(p) OBS_WANTS_ANY(OBS_BIT(p))
#define OBS_WANTS_ANY(bits) __builtin_expect((obs_mask & (bits)) != 0, 0)

/* CLOCK_MONOTONIC in ns. */
RT_HIDDEN int64_t obs_now(void);
/* A new id: unique in the process, increasing on each thread. */
RT_HIDDEN uint64_t obs_new_id(void);
/* The operation this thread is inside (a KERNEL or COPY id), for the
 * plugin's QUEUED event; 0 if none. */
RT_HIDDEN uint64_t obs_current_op(void);
/* Plugins: tell P's plugin to send device events (called once per device
 * start when some observer wants them). */
RT_HIDDEN void obs_start_device_events(struct rt_device *d);

/* ---- what the hooks call (only when OBS_WANTS is true) ---- */
RT_HIDDEN int obs_begin(struct obs_event *e, enum obs_point p,
                        struct rt_device *d);
RT_HIDDEN void obs_end(struct obs_event *e, int result);
RT_HIDDEN void obs_instant(struct obs_event *e, enum obs_point p,
                           struct rt_device *d);
RT_HIDDEN int obs_region_begin(struct obs_event *e, enum obs_region_kind k,
                               struct rt_device *d, ident_t *loc, int nowait);
RT_HIDDEN void obs_region_end(struct obs_event *e, int result);
RT_HIDDEN int obs_alloc(struct obs_event *e, struct rt_device *d, int64_t size,
                        void *hst);
RT_HIDDEN int obs_free(struct obs_event *e, struct rt_device *d, void *tgt);
RT_HIDDEN int obs_copy(struct obs_event *e, enum obs_point p,
                       struct rt_device *d, const void *hst, const void *tgt,
                       int64_t size);
RT_HIDDEN int obs_kernel(struct obs_event *e, struct rt_device *d,
                         const char *name, void *entry, int32_t teams,
                         int32_t threads, uint64_t trips, int nowait);
RT_HIDDEN void obs_kernel_end(struct obs_event *e, int result, int queued);
RT_HIDDEN int obs_wait(struct obs_event *e, struct rt_device *d);
RT_HIDDEN void obs_set_var(const char *var, uintptr_t hst, int64_t size);
RT_HIDDEN void obs_map(struct rt_device *d, enum obs_map_decision what,
                       uintptr_t hst, uintptr_t tgt, int64_t size,
                       const char *var, uint64_t dyn_ref, uint64_t hold_ref,
                       int64_t maptype);
RT_HIDDEN void obs_set_kernel_args(void **args, ptrdiff_t *offs, int32_t n,
                                   const struct rt_args *maps,
                                   const int *argpos);
RT_HIDDEN void obs_device_init(struct rt_device *d);
RT_HIDDEN void obs_images(struct rt_device *d);
RT_HIDDEN void obs_fatal(void);
RT_HIDDEN void obs_shutdown(void);
/* Every observer's FINISH, once (observe.c). */
RT_HIDDEN void obs_finish(int fatal);
/* observers.c: offload code was registered. */
RT_HIDDEN void obs_registered(void);

/* ---- the hooks: one line each at the places listed above ---- */

/* launch.c, data_construct.c: around a construct on device D.  E is a
 * struct obs_event of the caller's. */
#define OBS_REGION_BEGIN(e, kind, d, loc, nowait)                             \
  (OBS_WANTS(OBS_REGION) ? obs_region_begin((e), (kind), (d), (loc), (nowait)) \
                         : 0)
#define OBS_REGION_END(e, rc)                                                 \
  do {                                                                        \
    if (OBS_WANTS(OBS_REGION))                                                \
      obs_region_end((e), (rc));                                              \
  } while (0)
/* devops.c tests OBS_WANTS(point) before each plugin call and, when it
 * is wanted, makes the call out of line between obs_alloc / obs_free /
 * obs_copy / obs_wait (a veto: the call is not made) and obs_end. */
/* launch.c: just before OBS_KERNEL, the argument vector it will pass. */
#define OBS_KERNEL_ARGS(args, offs, n, maps, argpos)                         \
  do {                                                                        \
    if (OBS_WANTS(OBS_KERNEL))                                                \
      obs_set_kernel_args((args), (offs), (n), (maps), (argpos));             \
  } while (0)
/* launch.c: around the plugin's kernel call. */
#define OBS_KERNEL(e, d, name, entry, teams, threads, trips, nowait)          \
  (OBS_WANTS(OBS_KERNEL) ? obs_kernel((e), (d), (name), (entry), (teams),     \
                                      (threads), (trips), (nowait))           \
                         : 0)
#define OBS_KERNEL_END(e, rc, queued)                                         \
  do {                                                                        \
    if (OBS_WANTS(OBS_KERNEL))                                                \
      obs_kernel_end((e), (rc), (queued));                                    \
  } while (0)
/* attach.c, data_begin_end.c: the map name of the variable the next
 * ALLOC / COPY on this thread is for. */
#define OBS_VAR(var) OBS_VAR_RANGE(var, 0, 0)
/* ... and the host range [HST, HST+SIZE) the next FREE held. */
#define OBS_VAR_RANGE(var, hst, size)                                         \
  do {                                                                        \
    if (OBS_WANTS_VAR())                                                      \
      obs_set_var((var), (uintptr_t)(hst), (size));                           \
  } while (0)
/* Whether an observer looks at the name OBS_VAR gives. */
#define OBS_WANTS_VAR()                                                       \
  OBS_WANTS_ANY(OBS_BIT(OBS_ALLOC) | OBS_BIT(OBS_FREE) |                      \
                OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_COPY_FROM))
/* data_begin_end.c, update.c, mapping.c (declare-target globals),
 * device_memory.c, launch.c (unmapped pointers): a map decision on the entry of [HST, HST+SIZE) at TGT,
 * for an entry of map type TYPE (0 when there is none). */
#define OBS_MAP(d, what, hst, tgt, size, var, dyn, hold, type)                \
  do {                                                                        \
    if (OBS_WANTS_ANY(OBS_BIT(OBS_MAP) | OBS_BIT(OBS_ASSOC)) &&               \
        (obs_decisions & OBS_BIT(what)))                                      \
      obs_map((d), (what), (uintptr_t)(hst), (uintptr_t)(tgt), (size), (var), \
              (dyn), (hold), (type));                                         \
  } while (0)
/* lifecycle.c: D was just initialised; D's images may have been loaded. */
#define OBS_DEVICE_INIT(d)                                                    \
  do {                                                                        \
    if (obs_mask)                                                             \
      obs_device_init(d);                                                     \
  } while (0)
#define OBS_IMAGES(d)                                                         \
  do {                                                                        \
    if (OBS_WANTS(OBS_IMAGE_LOAD))                                            \
      obs_images(d);                                                          \
  } while (0)
/* lifecycle.c: offload code was registered (the first time: libomp may
 * start its OMPT tool), and the runtime shut down at exit. */
#define OBS_REGISTERED() obs_registered()
#define OBS_SHUTDOWN()                                                        \
  do {                                                                        \
    if (OBS_WANTS(OBS_SHUTDOWN))                                              \
      obs_shutdown();                                                         \
  } while (0)
/* messages.c: the process is about to abort. */
#define OBS_FATAL()                                                           \
  do {                                                                        \
    if (obs_mask)                                                             \
      obs_fatal();                                                            \
  } while (0)

/* The observers of issue 13, each in its own file, set up by observers.c:
 * set-up functions read their variables and call obs_register when they
 * are on. */
RT_HIDDEN void obs_check_setup(void);    /* check.c: goes first (it vetoes) */
RT_HIDDEN void obs_timeline_setup(void); /* timeline.c */
RT_HIDDEN void obs_summary_setup(void);  /* summary.c */
RT_HIDDEN void obs_ompt_setup(void);     /* ompt.c, at first registration */

/* Helpers for observers (observe.c): the expression of a map name
 * ("unknown" if none) and the line of a map name or of a source location
 * (0 if unknown). */
RT_HIDDEN const char *obs_var_expr(const char *var, char *buf, size_t len);
RT_HIDDEN int obs_var_line(const char *var);
/* "file:line" of a map name ("unknown:0" if none), into BUF. */
RT_HIDDEN const char *obs_var_where(const char *var, char *buf, size_t len);
RT_HIDDEN int obs_loc_line(const ident_t *loc);
/* The file (base name) of a source location, into BUF. */
RT_HIDDEN const char *obs_loc_file(const ident_t *loc, char *buf, size_t len);

#endif
