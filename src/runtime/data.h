/* Internal interface of the data path: one construct's transfer context,
 * the data begin/end/update routines, map-list validation, lookups and
 * the INFO helpers.  Its files form layers; each calls only the ones below
 * it (tests/unit/call_cycles.sh checks that no two call each other):
 *   device_memset.c device_async.c device_query.c dump_api.c (called by
 *                            abi/; device_async.c uses device_memset.c
 *                            and device_memory.c)
 *   launch.c data_construct.c device_memory.c interop.c   (called by abi/;
 *                            they use the core's lifecycle.c and device.c)
 *   data_begin_end.c update.c
 *   attach_entries.c maplist.c mapper.c lookup.c dump.c
 *   attach.c
 *   mapping.c
 *   devops.c messages.c state.c
 * Locks: the functions here take the device's map_lock themselves, per
 * argument; none holds it across a kernel launch. */
#ifndef OMPEMU_DATA_H
#define OMPEMU_DATA_H

#include "doors.h"
#include "rt.h"
#include "trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct map_entry;

/* One construct's transfers on one device: the async queue (used when the
 * plugin has async entry points and synchronize) and stable storage for
 * pointer values submitted from the stack (attached pointers), released
 * after the final synchronize.  The first RT_OP_SLOTS values live in the
 * rt_op itself (no allocation for the usual construct), more in chunks. */
#define RT_OP_SLOTS 8
struct rt_slots;
struct rt_op {
  struct rt_device *d;
  __tgt_async_info async;
  /* What was queued last, for the message when synchronize fails: a
   * kernel's name, or NULL (copies). */
  const char *queued_kernel;
  int sync_failed; /* a synchronize failed (and was reported) */
  int nslots; /* used of first_slots */
  struct rt_slots *slots;
  /* A launch's own map list: data begin leaves the device address of its
   * argument i in arg_tgt[i] (0: look it up), so that the kernel's
   * arguments need no second lookup.  NULL otherwise. */
  const struct rt_args *arg_list;
  uintptr_t *arg_tgt;
  /* The launch's plan of that list (data_begin_end.c, plan), kept from
   * data begin to data end; PLANNED once made.  NULL otherwise. */
  int32_t *plan_order;
  int *plan_members;
  int planned;
  /* This construct's stamp on the entries it allocates (map_entry.born):
   * set by data begin when the list may attach (ATTACH entries, mappers)
   * or has members, else 0. */
  uint64_t stamp;
  uintptr_t first_slots[RT_OP_SLOTS]; /* (not zeroed by rt_op_init) */
};
void rt_op_init(struct rt_op *op, struct rt_device *d);
/* A pointer-sized buffer that stays valid until rt_op_fini; NULL when out
 * of memory. */
uintptr_t *rt_op_slot(struct rt_op *op);
/* Wait for everything queued on OP; -1 (reported, naming the device and
 * the kernel queued, if any) when the device says it failed. */
int rt_op_sync(struct rt_op *op);
void rt_op_fini(struct rt_op *op);

/* The data routines (data_begin_end.c, update.c): map list A on OP's
 * device.  0 / -1 (reported). */
typedef int (*rt_data_routine)(struct rt_op *op, const struct rt_args *a);
int rt_data_begin(struct rt_op *op, const struct rt_args *a);
int rt_data_end(struct rt_op *op, const struct rt_args *a);
int rt_data_update(struct rt_op *op, const struct rt_args *a);
/* mapper.c: run argument I's user-defined mapper (A->mappers[I]) and feed
 * its components to ROUTINE (the caller's own, KIND names it); on failure
 * prints LLVM 14's "Call to targetData... via targetDataMapper" error. */
int rt_data_mapper(struct rt_op *op, const struct rt_args *a, int32_t i,
                   enum rt_data_kind kind, rt_data_routine routine);
/* mapper.c: whether component 0 of the mapper of argument I of A holds that
 * argument's reference (it is not a member, nor a pointer's pointee, nor
 * a component 0 that holds none): counted, and removed at its last
 * reference, as a list item of its own is. */
int rt_mapper_holds_ref(const struct rt_args *a, int32_t i);

/* Bytes a struct's combined entry at BEGIN is padded down by (device
 * padding, so that its members keep their host alignment on the device):
 * BEGIN modulo the struct's alignment as its address BASE shows it (the
 * largest power of two dividing BASE), at most 8.  LLVM 14 used BEGIN % 8,
 * which asks for bytes before a 4-byte aligned struct at an address that
 * is 4 modulo 8; LLVM 16 on take the alignment from BASE as here, up to
 * 16 (ompemu keeps LLVM 14's 8 as the bound, which check mode's naming of
 * flang's descriptor entries relies on). */
static inline uintptr_t rt_struct_pad(uintptr_t base, uintptr_t begin) {
  uintptr_t align = base & (~base + 1);
  if (!align || align > 8)
    align = 8;
  return begin % align;
}

/* maplist.c: check the MEMBER_OF structure of a list and compute the
 * processing order (every parent before its members, otherwise the given
 * order) into ORDER[n].  On a malformed list prints one error naming the
 * entries and returns -1 before anything is touched. */
int rt_plan_list(const struct rt_args *a, int32_t *order, int *has_members);

/* attach.c: host->device copies that keep attached pointers right, and
 * shadow restores.  Caller holds the map lock (rt_copy_to and
 * rt_copy_from with E NULL touch no entry: they need no lock). */
int rt_copy_to(struct rt_op *op, struct map_entry *e, uintptr_t hst,
               uintptr_t tgt, int64_t size, const char *name);
int rt_copy_from(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                 uintptr_t tgt, int64_t size, const char *name);
/* Write the device pointer value TGT_VAL into the device slot TGT_ADDR of
 * the host pointer at HST_ADDR (inside E) and record the shadow; the
 * pointee begins at HST_OBJ, mapped at TGT_OBJ. */
int rt_attach(struct rt_op *op, struct map_entry *e, uintptr_t hst_addr,
              uintptr_t tgt_addr, uintptr_t tgt_val, uintptr_t hst_obj,
              uintptr_t tgt_obj);
/* PE is being unmapped: put the device slots of pointers attached to it
 * back (NULL, or a link variable's original device value) and forget
 * them. */
int rt_detach_pointee(struct rt_op *op, struct map_entry *pe);
/* Re-write attached device pointers of E inside [HST, HST+SIZE) whose
 * pointee is still mapped where it was (others are stale: forgotten). */
int rt_reattach_range(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                      int64_t size);
/* Restore host values of attached pointers of E inside [HST, HST+SIZE)
 * (RESTORE), and forget them (ERASE). */
int rt_restore_range(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                     int64_t size, int restore, int erase);

/* attach_entries.c: the ATTACH entries of A (clang 22), after every other
 * entry of the construct is mapped.  0 / -1 (reported). */
int rt_data_attach(struct rt_op *op, const struct rt_args *a);
/* OP's stamp, unique in the process (assigned on first use). */
uint64_t rt_attach_stamp(struct rt_op *op);

/* lookup.c: LLVM 14's getTgtPtrBegin: the device address of [HP, HP+SIZE)
 * or NULL; prints the MAPPING_EXISTS line.  *IS_HOST set under USM.
 * Takes D's map lock. */
void *rt_lookup_tgt(struct rt_device *d, void *hp, int64_t size,
                    int must_contain, int *is_host);
/* The MAPPING_EXISTS line of a lookup that leaves the counts alone (HP at
 * TGT, inside E): rt_lookup_tgt's and `target update`'s. */
void rt_info_found(int32_t dev, const struct map_entry *e, uintptr_t hp,
                   uintptr_t tgt, int64_t size);

/* messages.c helpers: a map name's expression ("unknown" if none), the
 * "file:line:col" of a source location or of a map name. */
const char *rt_name_str(const void *name, char *buf, size_t len);
const char *rt_loc_str(const ident_t *loc, char *buf, size_t len);
const char *rt_name_loc_str(const void *name, char *buf, size_t len);
/* A target region's "file:line:col", or, when LOC has none (flang 22
 * passes none), "line N of FUNC" from its KERNEL's entry name (as --check
 * names it), else "unknown:0:0". */
const char *rt_target_loc_str(const ident_t *loc, const char *kernel,
                              char *buf, size_t len);
/* LIBOMPTARGET_INFO's argument list of the construct at WHERE. */
void rt_print_args(int32_t dev, const char *where, const char *what, int32_t n,
                   int64_t *sizes, int64_t *types, map_var_info_t *names);

/* ompemu trace from the data path: arguments (names, refcount strings)
 * are only evaluated when the level is on. */
#define DTRACE(level, ...)                                                     \
  do {                                                                         \
    if (OMPEMU_TRACE_ON(level))                                                \
      RT_TRACE((level), __VA_ARGS__);                                          \
  } while (0)

/* Per-argument arrays: lists up to SMALL_LIST long live on the stack
 * (launch latency), longer ones are malloc'ed (NAME is NULL when out of
 * memory).  LIST_FREE(NAME) frees what LIST_BUF allocated. */
#define SMALL_LIST 32
#define LIST_BUF(type, name, n)                                                \
  type name##_small[SMALL_LIST];                                               \
  type *name = (n) <= SMALL_LIST ? name##_small : malloc((size_t)(n) * sizeof(type))
#define LIST_FREE(name)                                                        \
  do {                                                                         \
    if (name != name##_small)                                                  \
      free(name);                                                              \
  } while (0)

/* Device id for messages. */
#define RT_DEV_ID(op) ((op)->d->id)

#endif
