/* Kernel launch (docs/abi-clang14-runtime.md section 7.3), one path for every door
 * (struct rt_launch, doors.h): device check, host entry lookup, data
 * begin, kernel arguments (literal, private/firstprivate buffers, mapped
 * addresses, lambda captures), run, data end, private buffers freed, the
 * offload policy; and the loop trip count pushed per thread and device.
 * No map lock is held while the kernel runs, and a launch with up to
 * SMALL_LIST arguments allocates nothing. */
#include "config.h"
#include "data.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

/* ---- trip counts: one pending value per (thread, device) ---- */

#define TRIP_SLOTS 16
static __thread struct {
  int64_t dev;
  uint64_t count;
} trip[TRIP_SLOTS];
static __thread int ntrip;
static int trip_pushed; /* any thread ever pushed one (relaxed atomic) */

void rt_push_tripcount(ident_t *loc, int64_t device_id,
                       uint64_t loop_tripcount) {
  struct rt_device *d = NULL;
  int c = rt_check_device(&device_id, &d);
  if (c < 0) {
    /* As LLVM 14's checkDeviceAndCtors here: the construct has failed
     * (fatal when offloading is mandatory), so the launch that follows
     * does not say "not ready" a second time. */
    rt_handle_outcome(OFFLOAD_FAIL, loc);
    return;
  }
  if (c != 0 || !d)
    return;
  __atomic_store_n(&trip_pushed, 1, __ATOMIC_RELAXED);
  DTRACE(2, "device %d: push trip count %lu", d->id,
           (unsigned long)loop_tripcount);
  for (int i = 0; i < ntrip; i++)
    if (trip[i].dev == d->id) {
      trip[i].count = loop_tripcount;
      return;
    }
  if (ntrip < TRIP_SLOTS) {
    trip[ntrip].dev = d->id;
    trip[ntrip].count = loop_tripcount;
    ntrip++;
  }
}

/* The trip count pushed by this thread for D, consumed; 0 if none. */
static uint64_t take_tripcount(int32_t dev) {
  /* (A thread's own push comes before its launch: it sees the flag.) */
  if (!__atomic_load_n(&trip_pushed, __ATOMIC_RELAXED))
    return 0;
  for (int i = 0; i < ntrip; i++)
    if (trip[i].dev == dev) {
      uint64_t c = trip[i].count;
      trip[i] = trip[--ntrip];
      return c;
    }
  return 0;
}

/* ---- kernel arguments ---- */

struct kargs {
  void **args;
  ptrdiff_t *offs;
  int32_t n;
  int *pos;            /* kernel argument index of map entry i, or -1 */
  void **priv;         /* private buffers to free */
  int32_t npriv;
};

/* Argument I of A, a pointer (zero-length section, or clang 16+'s
 * implicit 0x220 entry) that no mapping holds: OpenMP 5.1 says it keeps
 * its value, so the kernel gets the host pointer (LLVM 14 passed NULL;
 * LLVM 16 and later pass it unchanged).  Observers hear of it (a data
 * pointer there is a finding for the checking mode).  Returns the
 * argument's address part (args[i]; offs[i] adds the rest). */
static void *unmapped_pointer(struct rt_op *op, const struct rt_args *a,
                              int32_t i, uintptr_t hbase) {
  if (a->sizes[i] != 0)
    return NULL; /* data that should have been mapped: data begin said why */
  /* A section of its array is mapped: the pointer's device counterpart
   * (as LLVM 19 does; LLVM 14 passed the host pointer). */
  biaslock_lock(&op->d->map_lock);
  struct map_entry *e = map_find_by_base(op->d->maps, hbase);
  uintptr_t tgt = e ? e->tgt_begin + ((uintptr_t)a->begin[i] - e->hst_begin) : 0;
  biaslock_unlock(&op->d->map_lock);
  if (e) {
    DTRACE(1, "device %d: argument %d (host pointer " OMPEMU_PTR ") is the "
             "base of a mapped section: device " OMPEMU_PTR, RT_DEV_ID(op),
             (int)i, OMPEMU_P(hbase), OMPEMU_P(tgt));
    return (void *)tgt;
  }
  DTRACE(1, "device %d: argument %d (host pointer " OMPEMU_PTR ") is not "
           "mapped: the kernel gets it unchanged", RT_DEV_ID(op), (int)i,
           OMPEMU_P(hbase));
  OBS_MAP(op->d, OBS_MAP_UNMAPPED_PTR, hbase, hbase, 0,
          a->names ? (const char *)a->names[i] : NULL, 0, 0, a->types[i]);
  return a->begin[i];
}

/* The kernel arguments of map list A into K (after any already there). */
static int build_args(struct rt_op *op, const struct rt_args *a,
                      struct kargs *k) {
  struct rt_device *d = op->d;
  for (int32_t i = 0; i < a->n; i++) {
    int64_t type = a->types[i];
    k->pos[i] = -1;
    if (!(type & OMP_TGT_MAPTYPE_TARGET_PARAM)) {
      /* Lambda capture: patch the device copy of the lambda. */
      int64_t lam = OMP_TGT_MAPTYPE_PTR_AND_OBJ | OMP_TGT_MAPTYPE_LITERAL |
                    OMP_TGT_MAPTYPE_IMPLICIT;
      if ((type & lam) != lam)
        continue;
      int32_t p = ompemu_parent_index(type);
      if (p < 0 || p >= a->n || k->pos[p] < 0) {
        rt_err("lambda capture entry %d has no translated parent", (int)i);
        return -1;
      }
      int tp = k->pos[p];
      uintptr_t tbase = (uintptr_t)k->args[tp] + (uintptr_t)k->offs[tp];
      uintptr_t tbegin = tbase + ((uintptr_t)a->base[i] - (uintptr_t)a->begin[p]);
      int is_host;
      void *val = rt_lookup_tgt(d, a->begin[i], a->sizes[i], 0, &is_host);
      if (!val || (is_host && tbegin == (uintptr_t)a->base[i]))
        continue;
      uintptr_t *slot = rt_op_slot(op);
      if (!slot) {
        rt_err("Copying data to device failed.");
        return -1;
      }
      *slot = (uintptr_t)val;
      DTRACE(1, "device %d: lambda capture: device " OMPEMU_PTR " = "
               OMPEMU_PTR, d->id, OMPEMU_P(tbegin), OMPEMU_P(val));
      if (rt_dev_submit(d, (void *)tbegin, slot, sizeof(void *), &op->async)) {
        rt_err("Copying data to device failed.");
        return -1;
      }
      continue;
    }
    void *tgt;
    ptrdiff_t off;
    if (type & OMP_TGT_MAPTYPE_LITERAL) {
      tgt = a->base[i];
      off = 0;
    } else if (type & OMP_TGT_MAPTYPE_PRIVATE) {
      int first = (type & OMP_TGT_MAPTYPE_TO) != 0;
      off = (intptr_t)a->base[i] - (intptr_t)a->begin[i];
      OBS_VAR(a->names ? a->names[i] : NULL);
      tgt = rt_dev_alloc(d, a->sizes[i], a->begin[i], TARGET_ALLOC_DEFAULT);
      if (!tgt) {
        rt_err("Failed to process %sprivate argument " OMPEMU_PTR,
               first ? "first-" : "", OMPEMU_P(a->begin[i]));
        return -1;
      }
      k->priv[k->npriv++] = tgt;
      DTRACE(1, "device %d: %sprivate buffer " OMPEMU_PTR " (%ld bytes) "
               "for host " OMPEMU_PTR, d->id, first ? "first" : "",
               OMPEMU_P(tgt), (long)a->sizes[i], OMPEMU_P(a->begin[i]));
      if (first && rt_copy_to(op, NULL, (uintptr_t)a->begin[i],
                              (uintptr_t)tgt, a->sizes[i],
                              a->names ? a->names[i] : NULL)) {
        rt_err("Failed to process %sprivate argument " OMPEMU_PTR, "first-",
               OMPEMU_P(a->begin[i]));
        return -1;
      }
    } else {
      void *hbase = a->base[i];
      if (type & OMP_TGT_MAPTYPE_PTR_AND_OBJ)
        hbase = *(void **)hbase;
      int is_host;
      /* Data begin found it a moment ago; the lookup again only where
       * LIBOMPTARGET_INFO shows it (LLVM 14's getTgtPtrBegin). */
      if (op->arg_list == a && op->arg_tgt[i] &&
          !rt_info(RT_INFO_MAPPING_EXISTS))
        tgt = (void *)op->arg_tgt[i];
      else
        tgt = rt_lookup_tgt(d, a->begin[i], a->sizes[i], 0, &is_host);
      off = (intptr_t)hbase - (intptr_t)a->begin[i];
      if (!tgt)
        tgt = unmapped_pointer(op, a, i, (uintptr_t)hbase);
    }
    k->pos[i] = k->n;
    k->args[k->n] = tgt;
    k->offs[k->n] = off;
    k->n++;
  }
  return 0;
}

/* Run the kernel ENTRY with K's arguments as L asks (queued on OP when
 * the plugin can).  0 / -1 (LLVM 14's message printed). */
static int run_kernel(struct rt_op *op, const struct rt_launch *l, void *entry,
                      const struct kargs *k, uint64_t trips) {
  struct rt_device *d = op->d;
  struct rt_plugin *p = d->plugin;
  int32_t r;
  int async = p->synchronize != NULL;
  struct obs_event ev;
  OBS_KERNEL_ARGS(k->args, k->offs, k->n, &l->args, k->pos);
  if (OBS_KERNEL(&ev, d, op->queued_kernel, entry,
                 l->teams ? l->num_teams[0] : 1, l->thread_limit[0], trips,
                 l->nowait))
    return -1;
  if (l->teams) {
    if (async && p->run_target_team_region_async)
      r = p->run_target_team_region_async(d->local_id, entry, k->args, k->offs,
                                          k->n, l->num_teams[0],
                                          l->thread_limit[0], trips,
                                          &op->async);
    else
      r = p->run_target_team_region(d->local_id, entry, k->args, k->offs,
                                    k->n, l->num_teams[0], l->thread_limit[0],
                                    trips);
  } else {
    if (async && p->run_target_region_async)
      r = p->run_target_region_async(d->local_id, entry, k->args, k->offs,
                                     k->n, &op->async);
    else
      r = p->run_target_region(d->local_id, entry, k->args, k->offs, k->n);
  }
  OBS_KERNEL_END(&ev, r, op->async.Queue != NULL);
  if (r != OFFLOAD_SUCCESS) {
    rt_err("Executing target region abort target.");
    return -1;
  }
  return 0;
}

/* LLVM 14's target(): 0 on success. */
static int run_target(struct rt_op *op, const struct rt_launch *l) {
  struct rt_device *d = op->d;
  const struct rt_args *a = &l->args;
  const char *kname = NULL;
  void *entry = rt_device_entry(d, l->host_ptr, &kname);
  if (!entry) {
    rt_err("Host ptr " OMPEMU_PTR " does not have a matching target pointer.",
           OMPEMU_P(l->host_ptr));
    return -1;
  }
  int32_t nargs = a->n + (l->prepend_dyn_ptr ? 1 : 0);
  LIST_BUF(void *, args, nargs);
  LIST_BUF(ptrdiff_t, offs, nargs);
  LIST_BUF(int, pos, a->n);
  LIST_BUF(void *, priv, a->n);
  LIST_BUF(uintptr_t, arg_tgt, a->n);
  LIST_BUF(int32_t, plan_order, a->n);
  LIST_BUF(int, plan_members, a->n);
  struct kargs k = {.args = args, .offs = offs, .pos = pos, .priv = priv};
  int rc = -1;
  if (!args || !offs || !pos || !priv || !arg_tgt || !plan_order ||
      !plan_members) {
    rt_err("out of memory launching " OMPEMU_PTR, OMPEMU_P(l->host_ptr));
    goto out;
  }
  if (a->n > 0) {
    memset(arg_tgt, 0, (size_t)a->n * sizeof *arg_tgt);
    op->arg_list = a;
    op->arg_tgt = arg_tgt;
    op->plan_order = plan_order;
    op->plan_members = plan_members;
    op->planned = 0;
  }
  if (l->prepend_dyn_ptr) {
    k.args[0] = (void *)~(uintptr_t)0;
    k.offs[0] = 0;
    k.n = 1;
  }
  if (a->n > 0) {
    if (rt_data_begin(op, a)) {
      rt_err("Call to targetDataBegin failed, abort target.");
      rt_err("Failed to process data before launching the kernel.");
      goto out;
    }
    if (build_args(op, a, &k)) {
      rt_err("Failed to process data before launching the kernel.");
      goto out;
    }
  }
  uint64_t pushed = take_tripcount(d->id);
  uint64_t trips = l->tripcount ? l->tripcount : pushed;
  DTRACE(1, "device %d: launch %s (" OMPEMU_PTR ") with %d arguments, "
           "teams %d, thread limit %d, trip count %lu", d->id,
           kname ? kname : "?", OMPEMU_P(entry), (int)k.n, (int)l->num_teams[0],
           (int)l->thread_limit[0], (unsigned long)trips);
  op->queued_kernel = kname ? kname : "(unnamed)";
  if (run_kernel(op, l, entry, &k, trips))
    goto out;
  if (a->n > 0) {
    if (rt_data_end(op, a)) {
      rt_err("Call to targetDataEnd failed, abort target.");
      rt_err("Failed to process data after launching the kernel.");
      goto out;
    }
  }
  rc = 0;
out:
  if (k.priv && k.npriv) {
    /* The kernel and the copies must be done before the buffers go. */
    int bad = rt_op_sync(op);
    for (int32_t i = 0; i < k.npriv; i++)
      if (rt_dev_free(d, k.priv[i]))
        bad = 1;
    if (bad && rc == 0) {
      rt_err("Failed to deallocate target memory for private args");
      rc = -1;
    }
  }
  LIST_FREE(args);
  LIST_FREE(offs);
  LIST_FREE(pos);
  LIST_FREE(priv);
  LIST_FREE(arg_tgt);
  LIST_FREE(plan_order);
  LIST_FREE(plan_members);
  op->arg_list = NULL;
  op->arg_tgt = NULL;
  op->plan_order = NULL;
  op->plan_members = NULL;
  return rc;
}

int rt_target(const struct rt_launch *l) {
  struct rt_launch safe;
  if (RT_READS_NAMES()) {
    safe = *l;
    rt_args_readable(&safe.args);
    l = &safe;
  }
  int64_t device_id = l->device_id;
  ident_t *loc = l->args.loc;
  struct rt_device *d = NULL;
  int c = rt_check_device(&device_id, &d);
  if (c != 0) {
    if (c < 0)
      rt_handle_target_outcome(OFFLOAD_FAIL, loc, l->host_ptr);
    return OFFLOAD_FAIL;
  }
  struct rt_op op;
  rt_op_init(&op, d);
  struct obs_event region;
  region.kernel = NULL; /* its entry name, for observers (flang: no loc) */
  int info = rt_info(RT_INFO_KERNEL_ARGS), trace = OMPEMU_TRACE_ON(1);
  if (OBS_WANTS(OBS_REGION) || info || trace)
    rt_device_entry(d, l->host_ptr, &region.kernel);
  /* The region's first lines once it may run: check mode holds nowait
   * regions here and lets them go in a fixed order, and their lines come
   * in that order then, whichever thread reached this point first. */
  int vetoed = OBS_REGION_BEGIN(&region, OBS_R_TARGET, d, loc, l->nowait);
  if (info || trace) {
    char where[600];
    rt_target_loc_str(loc, region.kernel, where, sizeof where);
    if (info)
      rt_print_args(d->id, where, "Entering OpenMP kernel", l->args.n,
                    l->args.sizes, l->args.types, l->args.names);
    if (trace)
      RT_TRACE(1, "device %d: Entering OpenMP kernel at %s, %d arguments",
               d->id, where, (int)l->args.n);
  }
  int rc = vetoed ? -1 : run_target(&op, l);
  if (rc == 0)
    rc = rt_op_sync(&op);
  rt_op_fini(&op);
  OBS_REGION_END(&region, rc);
  if (rc == 0)
    rt_dump_tables(loc);
  rc = rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  rt_handle_target_outcome(rc, loc, l->host_ptr);
  return rc;
}
