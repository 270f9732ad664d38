/* OpenMP 5.1 interop objects (`#pragma omp interop init/use/destroy`) and
 * the omp_get_interop_* queries.  LLVM 14 segfaults here with its x86
 * plugin; ompemu makes a small object for any ready device, filled by the
 * plugin's init_device_info / init_async_info when it has them, and
 * returns omp_interop_none (NULL) when no device can be used. */
#define _GNU_SOURCE
#include "config.h"
#include "doors.h"

#include <stdlib.h>

void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                          void *dep_list, int32_t ndeps_noalias,
                          void *noalias_dep_list) __attribute__((weak));

enum { IR_TARGET = 1, IR_TARGETSYNC = 2 };
/* Property ids and return codes of the OpenMP 5.1 interop API. */
enum { IPR_FR_ID = -1, IPR_FR_NAME = -2, IPR_VENDOR = -3,
       IPR_VENDOR_NAME = -4, IPR_DEVICE_NUM = -5, IPR_PLATFORM = -6,
       IPR_DEVICE = -7, IPR_DEVICE_CONTEXT = -8, IPR_TARGETSYNC = -9,
       IPR_FIRST = -9 };
enum { IRC_NO_VALUE = 1, IRC_SUCCESS = 0, IRC_EMPTY = -1,
       IRC_OUT_OF_RANGE = -2, IRC_TYPE_INT = -3, IRC_TYPE_PTR = -4,
       IRC_TYPE_STR = -5 };

#define INTEROP_MAGIC 0x6f6d7069u /* "ompi" */
struct rt_interop {
  unsigned magic;
  int64_t type;
  struct rt_device *dev;
  __tgt_device_info info;
  __tgt_async_info *async;
  const char *err;
};

static void wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                      void *dep_list) {
  if (ndeps > 0 && dep_list && __kmpc_omp_wait_deps)
    __kmpc_omp_wait_deps(loc, gtid, ndeps, dep_list, 0, NULL);
}

static struct rt_interop *valid(const void *p) {
  const struct rt_interop *o = p;
  return o && o->magic == INTEROP_MAGIC ? (struct rt_interop *)o : NULL;
}

void rt_interop_init(ident_t *loc, int32_t gtid, void **interop,
                     int64_t interop_type, int32_t device_id, int32_t ndeps,
                     void *dep_list) {
  if (!interop)
    return;
  *interop = NULL;
  wait_deps(loc, gtid, ndeps, dep_list);
  int64_t id = device_id;
  if (id == OFFLOAD_DEVICE_DEFAULT)
    id = rt_default_device();
  struct rt_device *d = rt_device_get(id);
  if (!d) {
    RT_TRACE(1, "interop init: no device %ld: omp_interop_none", (long)id);
    return;
  }
  if (rt_device_prepare(d) != 0) {
    ompemu_warning("ompemu", "interop init: device %ld could not be started: "
                   "omp_interop_none", (long)id);
    return;
  }
  struct rt_interop *o = calloc(1, sizeof *o);
  if (!o) {
    ompemu_error("ompemu", "interop init: out of memory: omp_interop_none");
    return;
  }
  o->magic = INTEROP_MAGIC;
  o->type = interop_type;
  o->dev = d;
  struct rt_plugin *p = d->plugin;
  __tgt_device_info info = {NULL, NULL};
  const char *err = NULL;
  if (p->init_device_info &&
      p->init_device_info(d->local_id, &info, &err) == OFFLOAD_SUCCESS)
    o->info = info;
  o->err = err;
  if (interop_type == IR_TARGETSYNC && p->init_async_info) {
    __tgt_async_info *a = NULL;
    if (p->init_async_info(d->local_id, &a) == OFFLOAD_SUCCESS)
      o->async = a;
    else
      ompemu_warning("ompemu", "interop init: plugin %s gave device %d no "
                     "queue: the targetsync property is empty", p->name,
                     d->id);
  }
  RT_TRACE(1, "interop init: " OMPEMU_PTR " on device %d (type %ld)",
           OMPEMU_P(o), d->id, (long)interop_type);
  *interop = o;
}

void rt_interop_use(ident_t *loc, int32_t gtid, void **interop, int32_t ndeps,
                    void *dep_list) {
  wait_deps(loc, gtid, ndeps, dep_list);
  struct rt_interop *o = interop ? valid(*interop) : NULL;
  if (o && o->async && o->async->Queue && o->dev->plugin->synchronize &&
      o->dev->plugin->synchronize(o->dev->local_id, o->async) !=
          OFFLOAD_SUCCESS)
    ompemu_error("ompemu", "interop " OMPEMU_PTR ": work queued on device %d "
                 "failed", OMPEMU_P(o), o->dev->id);
}

void rt_interop_destroy(ident_t *loc, int32_t gtid, void **interop,
                        int32_t ndeps, void *dep_list) {
  rt_interop_use(loc, gtid, interop, ndeps, dep_list);
  struct rt_interop *o = interop ? valid(*interop) : NULL;
  if (!o)
    return;
  RT_TRACE(1, "interop destroy: " OMPEMU_PTR, OMPEMU_P(o));
  /* The targetsync queue came from the plugin's init_async_info: give it
   * back.  A plugin without release_async_info (LLVM 14's allocate it with
   * new) keeps it, as LLVM 14's runtime does. */
  struct rt_plugin *p = o->dev->plugin;
  if (o->async && p->release_async_info &&
      p->release_async_info(o->dev->local_id, o->async) != OFFLOAD_SUCCESS)
    ompemu_warning("ompemu", "interop " OMPEMU_PTR ": plugin %s did not take "
                   "back its queue", OMPEMU_P(o), p->name);
  o->magic = 0;
  free(o);
  *interop = NULL;
}

static const char *const prop_names[] = {
    "fr_id", "fr_name", "vendor", "vendor_name", "device_num",
    "platform", "device", "device_context", "targetsync"};
enum { T_INT, T_PTR, T_STR };
static const int prop_types[] = {T_INT, T_STR, T_INT, T_STR, T_INT,
                                 T_INT, T_PTR, T_PTR, T_PTR};

/* Check INTEROP and PROPERTY_ID for a query of type WANT; the property's
 * index (0 for fr_id) or -1 with *RC set. */
static int prop_check(const void *interop, int property_id, int want,
                      int *rc) {
  int r = IRC_SUCCESS, idx = -1;
  if (!valid(interop))
    r = IRC_EMPTY;
  else if (property_id < IPR_FIRST || property_id >= 0)
    r = IRC_OUT_OF_RANGE;
  else if (prop_types[-property_id - 1] != want)
    r = prop_types[-property_id - 1] == T_INT   ? IRC_TYPE_INT
        : prop_types[-property_id - 1] == T_PTR ? IRC_TYPE_PTR
                                                : IRC_TYPE_STR;
  else
    idx = -property_id - 1;
  if (rc)
    *rc = r;
  return idx;
}

intptr_t rt_interop_get_int(const void *interop, int property_id,
                            int *ret_code) {
  int i = prop_check(interop, property_id, T_INT, ret_code);
  struct rt_interop *o = valid(interop);
  if (i < 0)
    return 0;
  if (property_id == IPR_DEVICE_NUM)
    return o->dev->id;
  if (ret_code)
    *ret_code = IRC_NO_VALUE; /* no foreign runtime, vendor or platform id */
  return 0;
}

void *rt_interop_get_ptr(const void *interop, int property_id, int *ret_code) {
  int i = prop_check(interop, property_id, T_PTR, ret_code);
  struct rt_interop *o = valid(interop);
  if (i < 0)
    return NULL;
  void *v = property_id == IPR_DEVICE           ? o->info.Device
            : property_id == IPR_DEVICE_CONTEXT ? o->info.Context
            : o->async                          ? o->async->Queue
                                                : NULL;
  if (!v && ret_code)
    *ret_code = IRC_NO_VALUE;
  return v;
}

const char *rt_interop_get_str(const void *interop, int property_id,
                               int *ret_code) {
  int i = prop_check(interop, property_id, T_STR, ret_code);
  struct rt_interop *o = valid(interop);
  if (i < 0)
    return NULL;
  return property_id == IPR_FR_NAME ? o->dev->plugin->name : "ompemu";
}

const char *rt_interop_property_name(int property_id) {
  if (property_id < IPR_FIRST || property_id >= 0)
    return NULL;
  return prop_names[-property_id - 1];
}

const char *rt_interop_property_type(int property_id) {
  if (property_id < IPR_FIRST || property_id >= 0)
    return NULL;
  switch (prop_types[-property_id - 1]) {
  case T_INT: return "omp_intptr_t";
  case T_PTR: return "void *";
  default: return "const char *";
  }
}
