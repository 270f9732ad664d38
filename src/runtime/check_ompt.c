/* Check mode's view of the launching threads (docs/check.md, "Races
 * between nowait regions"): an OMPT tool that ompemu offers libomp, only
 * in check mode, so that a nowait region's hold ends as soon as no other
 * nowait region can still arrive.  libomp looks for `ompt_start_tool`
 * after its own (weak) one, so it finds this one in libomptarget.so.
 * Counted: threads that created tasks and have not begun to wait since
 * (taskwait, barrier, taskgroup end), and tasks created that have neither
 * reached ompemu nor completed.  When both are zero, every region that
 * could join the batch has joined.  With a tool of the user's
 * (OMP_TOOL_LIBRARIES) or OMP_TOOL=disabled, ompemu offers none and the
 * hold lasts OMPEMU_CHECK_HOLD_MS as before.
 *
 * When the hold runs out while every launching thread waits and some task
 * created without dependences has still not arrived, that task can run
 * now and cannot be waiting for the held region, so the hold goes on for
 * it (up to FREE_WAIT_MS more): libomp 14 queues all the target tasks of
 * one thread on one hidden helper thread, the one held here, and another
 * helper may take a while to steal the next one.  A task with
 * dependences may be waiting for the held region: no wait for it.
 *
 * libomp 14 looks for the tool with dlsym(RTLD_NEXT): it finds this one
 * only when libomptarget.so comes after libomp in the search order, as in
 * clang 14 binaries.  Clang 22 binaries need libomptarget.so first, so
 * the constructor below also offers it through OMP_TOOL_LIBRARIES, and
 * takes that back as soon as libomp has asked (or has initialised
 * without asking: check_ompt_take_back, after the first libomp call).
 *
 * The OMPT types and constants are the OpenMP 5.1 ABI (omp-tools.h). */
#define _GNU_SOURCE /* dladdr */
#include "config.h"
#include "check.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef union {
  uint64_t value;
  void *ptr;
} ompt_data_t;
typedef void (*ompt_callback_t)(void);
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_set_callback_t)(int which, ompt_callback_t cb);
typedef struct {
  int (*initialize)(ompt_function_lookup_t, int, ompt_data_t *);
  void (*finalize)(ompt_data_t *);
  ompt_data_t tool_data;
} ompt_start_tool_result_t;

enum { /* ompt_callbacks_t */
  CB_TASK_CREATE = 5,
  CB_TASK_SCHEDULE = 6,
  CB_SYNC_REGION_WAIT = 16,
  CB_DEPENDENCES = 18
};
#define FREE_WAIT_MS 2000
enum { SCOPE_BEGIN = 1 };   /* ompt_scope_endpoint_t */
enum { TASK_COMPLETE = 1 }; /* ompt_task_status_t */
enum { TASK_EXPLICIT = 4, TASK_TARGET = 8 };  /* ompt_task_flag_t */
enum { SET_SOMETIMES = 3 }; /* ompt_set_result_t: 3 and up fire */

/* Marks in a task's ompt_data_t (its low 32 bits): created without / with
 * dependences; the high 32 bits count the target tasks created, in the
 * order the program created them (1 on). */
enum { T_CREATED = 0x6f6d7031, T_ARRIVED = 0x6f6d7032, T_CREATED_DEPS = 0x6f6d7033 };
#define MARK(t) ((uint32_t)(t)->value)
#define SEQ(t) ((t)->value >> 32)
static uint64_t created; /* target tasks created so far */

static int active, deps_known;
static long launchers; /* threads that created tasks and do not wait */
static long unarrived; /* tasks created, not at ompemu, not completed */
static long unarrived_free; /* those of them without dependences */
static __thread int launched;
static __thread ompt_data_t *current; /* the task this thread runs */
static pthread_cond_t hold_cv;
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;

static void cv_init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&hold_cv, &a);
  pthread_condattr_destroy(&a);
}

static int quiet(void) { return active && launchers == 0 && unarrived == 0; }

int check_ompt_hold(const struct timespec *until) {
  pthread_once(&cv_once, cv_init);
  struct timespec end = *until;
  int extended = 0;
  if (!quiet())
    check_lock_mutex();
  while (!quiet())
    if (pthread_cond_timedwait(&hold_cv, &check_lock.mutex, &end) == ETIMEDOUT) {
      if (extended || !deps_known || launchers || !unarrived_free)
        return 1;
      extended = 1; /* a task that can run is on its way */
      end.tv_sec += FREE_WAIT_MS / 1000;
      end.tv_nsec += (FREE_WAIT_MS % 1000) * 1000000L;
      if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
      }
    }
  return 0;
}

/* Task T arrived at ompemu or completed: no longer awaited; it is marked
 * MARK.  Caller holds check_lock. */
static void settle(ompt_data_t *t, uint32_t mark) {
  if (MARK(t) != T_CREATED && MARK(t) != T_CREATED_DEPS)
    return;
  if (MARK(t) == T_CREATED)
    unarrived_free--;
  unarrived--;
  t->value = SEQ(t) << 32 | mark;
}

/* Wake a hold to look again (caller holds check_lock). */
static void wake(void) {
  pthread_once(&cv_once, cv_init);
  pthread_cond_broadcast(&hold_cv);
}

uint64_t check_ompt_arrived(void) {
  uint64_t seq = 0;
  if (current) {
    settle(current, T_ARRIVED);
    if (MARK(current) == T_ARRIVED)
      seq = SEQ(current);
  }
  wake();
  return seq;
}

static void task_create(ompt_data_t *parent, const void *frame,
                        ompt_data_t *task, int flags, int deps,
                        const void *ra) {
  (void)parent, (void)frame, (void)deps, (void)ra;
  /* libomp 14 marks a target task explicit; libomp 19 and later mark it
   * ompt_task_target only. */
  if (!task || !(flags & (TASK_EXPLICIT | TASK_TARGET)))
    return;
  check_lock_take();
  task->value = ++created << 32 | T_CREATED;
  unarrived++;
  unarrived_free++;
  if (!launched) {
    launched = 1;
    launchers++;
  }
  check_lock_give();
}

static void task_schedule(ompt_data_t *prior, int status, ompt_data_t *next) {
  check_lock_take();
  if (prior && status == TASK_COMPLETE)
    settle(prior, 0);
  current = next;
  if (quiet())
    wake();
  check_lock_give();
}

/* libomp reports a task's dependences just after its creation. */
static void dependences(ompt_data_t *task, const void *deps, int ndeps) {
  (void)deps;
  if (!task || ndeps <= 0)
    return;
  check_lock_take();
  if (MARK(task) == T_CREATED) {
    task->value = SEQ(task) << 32 | T_CREATED_DEPS;
    unarrived_free--;
  }
  check_lock_give();
}

static void sync_wait(int kind, int endpoint, ompt_data_t *parallel,
                      ompt_data_t *task, const void *ra) {
  (void)kind, (void)parallel, (void)task, (void)ra;
  if (endpoint != SCOPE_BEGIN || !launched)
    return;
  check_lock_take();
  launched = 0;
  launchers--;
  if (quiet())
    wake();
  check_lock_give();
}

static int init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data) {
  (void)dev, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  active = set &&
           set(CB_TASK_CREATE, (ompt_callback_t)task_create) >= SET_SOMETIMES &&
           set(CB_TASK_SCHEDULE, (ompt_callback_t)task_schedule) >= SET_SOMETIMES &&
           set(CB_SYNC_REGION_WAIT, (ompt_callback_t)sync_wait) >= SET_SOMETIMES;
  deps_known = active &&
               set(CB_DEPENDENCES, (ompt_callback_t)dependences) >= SET_SOMETIMES;
  return 1;
}

static void fini(ompt_data_t *data) {
  (void)data;
  active = 0;
}

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version);

static int offered; /* OMP_TOOL_LIBRARIES is ours (set by offer_tool) */

/* Whether check mode wants the tool and the user has none of their own. */
static int wanted(void) {
  const char *c = getenv("OMPEMU_CHECK"), *o = getenv("OMPEMU_CHECK_ORDER");
  const char *libs = getenv("OMP_TOOL_LIBRARIES"), *t = getenv("OMP_TOOL");
  int on = c && (!strcmp(c, "1") || !strcasecmp(c, "true") ||
                 !strcasecmp(c, "yes") || !strcasecmp(c, "on"));
  return on && !(o && strcmp(o, "off") == 0) &&
         !(libs && *libs && !offered) &&
         !(t && strcasecmp(t, "disabled") == 0);
}

__attribute__((constructor)) static void offer_tool(void) {
  Dl_info i;
  if (!wanted() || getenv("OMP_TOOL_LIBRARIES") ||
      !dladdr((void *)ompt_start_tool, &i) || !i.dli_fname)
    return;
  offered = setenv("OMP_TOOL_LIBRARIES", i.dli_fname, 1) == 0;
}

void check_ompt_take_back(void) {
  if (offered) {
    unsetenv("OMP_TOOL_LIBRARIES");
    offered = 0;
  }
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                          const char *runtime_version) {
  static ompt_start_tool_result_t result = {init, fini, {0}};
  (void)omp_version, (void)runtime_version;
  int want = wanted();
  check_ompt_take_back();
  return want ? &result : NULL;
}
