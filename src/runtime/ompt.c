/* OMPT target callbacks for tools (docs/ompt.md): an observer that turns
 * the runtime's observation points into the OpenMP 5.1 device-tracing
 * callbacks of the tool libomp loaded.  The connection follows the
 * protocol libomp 17 and later offer a target runtime: the runtime calls
 * libomp's ompt_libomp_connect with an initialize/finalize pair; when a
 * tool is active libomp calls initialize with a lookup function, through
 * which the runtime asks for the tool's callbacks.  With an older libomp
 * (LLVM 14's has no ompt_libomp_connect) or no tool, nothing is
 * registered and nothing costs.
 *
 * The OMPT types and constants below are the OpenMP 5.1 ABI (the values
 * of omp-tools.h), declared here so that the build needs no libomp
 * headers. */
#define _GNU_SOURCE
#include "config.h"
#include "observe.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef union ompt_data_t {
  uint64_t value;
  void *ptr;
} ompt_data_t;
typedef uint64_t ompt_id_t;
typedef void (*ompt_callback_t)(void);
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup,
                                 int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct ompt_start_tool_result_t {
  ompt_initialize_t initialize;
  ompt_finalize_t finalize;
  ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef int (*ompt_get_callback_t)(int which, ompt_callback_t *callback);
typedef ompt_data_t *(*ompt_get_data_t)(void);

enum { /* ompt_callbacks_t */
  CB_TARGET = 8,
  CB_TARGET_DATA_OP = 9,
  CB_TARGET_SUBMIT = 10,
  CB_DEVICE_INITIALIZE = 12,
  CB_DEVICE_FINALIZE = 13,
  CB_DEVICE_LOAD = 14,
  CB_TARGET_EMI = 33,
  CB_TARGET_DATA_OP_EMI = 34,
  CB_TARGET_SUBMIT_EMI = 35
};
enum { SCOPE_BEGIN = 1, SCOPE_END = 2 }; /* ompt_scope_endpoint_t */
enum {                                   /* ompt_target_data_op_t */
  OP_ALLOC = 1,
  OP_TO_DEVICE = 2,
  OP_FROM_DEVICE = 3,
  OP_DELETE = 4,
  OP_ASSOCIATE = 5,
  OP_DISASSOCIATE = 6
};
#define TARGET_NOWAIT_OFFSET 8 /* ompt_target_nowait = ompt_target + 8 */

typedef void (*cb_target_emi_t)(int kind, int endpoint, int device_num,
                                ompt_data_t *task_data,
                                ompt_data_t *target_task_data,
                                ompt_data_t *target_data,
                                const void *codeptr_ra);
typedef void (*cb_target_t)(int kind, int endpoint, int device_num,
                            ompt_data_t *task_data, ompt_id_t target_id,
                            const void *codeptr_ra);
typedef void (*cb_data_op_emi_t)(int endpoint, ompt_data_t *target_task_data,
                                 ompt_data_t *target_data,
                                 ompt_id_t *host_op_id, int optype,
                                 void *src_addr, int src_device_num,
                                 void *dest_addr, int dest_device_num,
                                 size_t bytes, const void *codeptr_ra);
typedef void (*cb_data_op_t)(ompt_id_t target_id, ompt_id_t host_op_id,
                             int optype, void *src_addr, int src_device_num,
                             void *dest_addr, int dest_device_num,
                             size_t bytes, const void *codeptr_ra);
typedef void (*cb_submit_emi_t)(int endpoint, ompt_data_t *target_data,
                                ompt_id_t *host_op_id,
                                unsigned int requested_num_teams);
typedef void (*cb_submit_t)(ompt_id_t target_id, ompt_id_t host_op_id,
                            unsigned int requested_num_teams);
typedef void (*cb_device_init_t)(int device_num, const char *type,
                                 void *device, ompt_function_lookup_t lookup,
                                 const char *documentation);
typedef void (*cb_device_fini_t)(int device_num);
typedef void (*cb_device_load_t)(int device_num, const char *filename,
                                 int64_t offset_in_file, void *vma_in_file,
                                 size_t bytes, void *host_addr,
                                 void *device_addr, uint64_t module_id);

/* The tool's callbacks (NULL: not registered). */
static struct {
  cb_target_emi_t target_emi;
  cb_target_t target;
  cb_data_op_emi_t data_op_emi;
  cb_data_op_t data_op;
  cb_submit_emi_t submit_emi;
  cb_submit_t submit;
  cb_device_init_t device_init;
  cb_device_fini_t device_fini;
  cb_device_load_t device_load;
} cb;
static ompt_function_lookup_t libomp_lookup;
static ompt_get_data_t get_task_data, get_target_task_data;
/* Set by libomp's initialize call, cleared by its finalize call (after
 * which the tool may be gone: no callback is made any more). */
static _Atomic int live;

/* Devices reported to device_initialize, for device_finalize at exit. */
static _Atomic uint64_t inited_devices;

/* A target_data for operations outside any construct. */
static __thread ompt_data_t no_region;

static int ompt_init(ompt_function_lookup_t lookup, int initial_device_num,
                     ompt_data_t *tool_data) {
  (void)initial_device_num;
  (void)tool_data;
  libomp_lookup = lookup;
  atomic_store(&live, 1);
  return 0;
}

static void ompt_fini(ompt_data_t *tool_data) {
  (void)tool_data;
  atomic_store(&live, 0);
}

/* The tool's callback WHICH (NAME), through libomp's ompt_get_callback
 * when its lookup offers one, else by name (libomp 20 and later offer the
 * callbacks by name only). */
static ompt_callback_t callback(ompt_get_callback_t get, int which,
                                const char *name) {
  ompt_callback_t f = NULL;
  if (get) {
    if (get(which, &f) != 1) /* ompt_get_callback_success */
      f = NULL;
    return f;
  }
  return (ompt_callback_t)libomp_lookup(name);
}

static int live_now(void) {
  return atomic_load_explicit(&live, memory_order_relaxed);
}

static ompt_data_t *task_data(void) {
  return get_task_data ? get_task_data() : NULL;
}
static ompt_data_t *target_task_data(void) {
  return get_target_task_data ? get_target_task_data() : NULL;
}

/* The target_data of the construct E belongs to: the REGION event's
 * scratch word, which the tool may set at the region's begin. */
static ompt_data_t *target_data_of(const struct obs_event *e) {
  if (e->point == OBS_REGION)
    return (ompt_data_t *)(void *)&((struct obs_event *)e)->ompt_op;
  if (e->region)
    return (ompt_data_t *)(void *)&((struct obs_event *)e->region)->ompt_op;
  return &no_region;
}
static ompt_id_t target_id_of(const struct obs_event *e) {
  return e->region ? e->region->id : 0;
}

static ompt_interface_fn_t no_device_functions(const char *name) {
  (void)name; /* no device tracing interface (docs/ompt.md) */
  return NULL;
}

/* One data operation of E at phase PH.  IS_ALLOC: DST (the new device
 * address) is only known at the end. */
static void data_op(struct obs_event *e, enum obs_phase ph, int optype,
                    void *src, int src_dev, void *dst, int dst_dev,
                    size_t bytes, int is_alloc) {
  if (cb.data_op_emi) {
    if (ph != OBS_PH_END)
      cb.data_op_emi(SCOPE_BEGIN, target_task_data(), target_data_of(e),
                     &e->ompt_op, optype, src, src_dev,
                     is_alloc ? NULL : dst, dst_dev, bytes, NULL);
    if (ph != OBS_PH_BEGIN)
      cb.data_op_emi(SCOPE_END, target_task_data(), target_data_of(e),
                     &e->ompt_op, optype, src, src_dev, dst, dst_dev, bytes,
                     NULL);
  } else if (cb.data_op &&
             (is_alloc ? ph != OBS_PH_BEGIN : ph != OBS_PH_END)) {
    /* The non-EMI form is one call: at the begin, except for an
     * allocation, whose device address is only known at its end. */
    cb.data_op(target_id_of(e), e->id, optype, src, src_dev, dst, dst_dev,
               bytes, NULL);
  }
}

static int ompt_event(struct obs_event *e, enum obs_phase ph) {
  if (!live_now())
    return 0;
  int host = rt_num_devices();
  int dev = e->device;
  switch (e->point) {
  case OBS_REGION: {
    int kind = (int)e->rkind + (e->nowait ? TARGET_NOWAIT_OFFSET : 0);
    int endpoint = ph == OBS_PH_BEGIN ? SCOPE_BEGIN : SCOPE_END;
    if (cb.target_emi)
      cb.target_emi(kind, endpoint, dev, task_data(), target_task_data(),
                    target_data_of(e), NULL);
    else if (cb.target)
      cb.target(kind, endpoint, dev, task_data(), e->id, NULL);
    break;
  }
  case OBS_ALLOC:
    data_op(e, ph, OP_ALLOC, (void *)e->hst, host, (void *)e->tgt, dev,
            (size_t)e->size, 1);
    break;
  case OBS_FREE:
    data_op(e, ph, OP_DELETE, (void *)e->tgt, dev, NULL, -1, (size_t)e->size,
            0);
    break;
  case OBS_COPY_TO:
    data_op(e, ph, OP_TO_DEVICE, (void *)e->hst, host, (void *)e->tgt, dev,
            (size_t)e->size, 0);
    break;
  case OBS_COPY_FROM:
    data_op(e, ph, OP_FROM_DEVICE, (void *)e->tgt, dev, (void *)e->hst, host,
            (size_t)e->size, 0);
    break;
  case OBS_ASSOC:
    data_op(e, ph,
            e->decision == OBS_MAP_ASSOC ? OP_ASSOCIATE : OP_DISASSOCIATE,
            (void *)e->hst, host, (void *)e->tgt, dev, (size_t)e->size, 0);
    break;
  case OBS_KERNEL:
    if (cb.submit_emi)
      cb.submit_emi(ph == OBS_PH_BEGIN ? SCOPE_BEGIN : SCOPE_END,
                    target_data_of(e), &e->ompt_op, (unsigned)e->teams);
    else if (cb.submit && ph == OBS_PH_BEGIN)
      cb.submit(target_id_of(e), e->id, (unsigned)e->teams);
    break;
  case OBS_DEVICE_INIT:
    if (cb.device_init) {
      struct rt_device *d = rt_device_get(dev);
      cb.device_init(dev, d ? d->plugin->name : "unknown", d,
                     no_device_functions, NULL);
      if (dev >= 0 && dev < 64)
        atomic_fetch_or(&inited_devices, (uint64_t)1 << dev);
    }
    break;
  case OBS_SHUTDOWN:
    if (cb.device_fini) {
      uint64_t m = atomic_exchange(&inited_devices, 0);
      for (int d = 0; d < 64; d++)
        if (m & ((uint64_t)1 << d))
          cb.device_fini(d);
    }
    break;
  case OBS_IMAGE_LOAD:
    if (cb.device_load)
      cb.device_load(dev, NULL, 0, NULL, (size_t)e->size, (void *)e->hst, NULL,
                     (uint64_t)e->image_index);
    break;
  default:
    break;
  }
  return 0;
}

static struct obs_observer ompt_observer = {
    .name = "OMPT",
    .event = ompt_event,
};

void obs_ompt_setup(void) {
  const char *tool = getenv("OMP_TOOL");
  if (tool && !strcasecmp(tool, "disabled"))
    return;
  void (*connect)(ompt_start_tool_result_t *);
  *(void **)&connect = dlsym(RTLD_DEFAULT, "ompt_libomp_connect");
  if (!connect)
    return; /* libomp 16 or older, or no libomp */
  static ompt_start_tool_result_t result = {ompt_init, ompt_fini, {0}};
  connect(&result);
  if (!live_now() || !libomp_lookup)
    return; /* no tool, or one that wants no device callbacks */
  ompt_get_callback_t get =
      (ompt_get_callback_t)libomp_lookup("ompt_get_callback");
  get_task_data = (ompt_get_data_t)libomp_lookup("ompt_get_task_data");
  get_target_task_data =
      (ompt_get_data_t)libomp_lookup("ompt_get_target_task_data");
#define BIND(field, code, name)                                                \
  *(void **)&cb.field = (void *)callback(get, code, name)
  BIND(target_emi, CB_TARGET_EMI, "ompt_callback_target_emi");
  BIND(target, CB_TARGET, "ompt_callback_target");
  BIND(data_op_emi, CB_TARGET_DATA_OP_EMI, "ompt_callback_target_data_op_emi");
  BIND(data_op, CB_TARGET_DATA_OP, "ompt_callback_target_data_op");
  BIND(submit_emi, CB_TARGET_SUBMIT_EMI, "ompt_callback_target_submit_emi");
  BIND(submit, CB_TARGET_SUBMIT, "ompt_callback_target_submit");
  BIND(device_init, CB_DEVICE_INITIALIZE, "ompt_callback_device_initialize");
  BIND(device_fini, CB_DEVICE_FINALIZE, "ompt_callback_device_finalize");
  BIND(device_load, CB_DEVICE_LOAD, "ompt_callback_device_load");
#undef BIND
  uint32_t m = 0;
  if (cb.target_emi || cb.target)
    m |= OBS_BIT(OBS_REGION);
  if (cb.data_op_emi || cb.data_op)
    m |= OBS_BIT(OBS_ALLOC) | OBS_BIT(OBS_FREE) | OBS_BIT(OBS_COPY_TO) |
         OBS_BIT(OBS_COPY_FROM) | OBS_BIT(OBS_ASSOC);
  if (cb.submit_emi || cb.submit)
    m |= OBS_BIT(OBS_KERNEL);
  if (cb.device_init || cb.device_fini)
    m |= OBS_BIT(OBS_DEVICE_INIT) | OBS_BIT(OBS_SHUTDOWN);
  if (cb.device_load)
    m |= OBS_BIT(OBS_IMAGE_LOAD);
  /* target_data lives in the REGION event: data operations and submits
   * inside a construct need it even when the tool wants no target
   * callback. */
  if (m)
    m |= OBS_BIT(OBS_REGION);
  ompt_observer.points = m;
  if (m)
    obs_register(&ompt_observer);
  RT_TRACE(1, "OMPT: connected to libomp's tool, %s callbacks",
           m ? "with target" : "without target");
}
