/* User-defined mappers (docs/abi-clang14.md section 6.2): the compiler's mapper
 * function pushes components through __tgt_push_mapper_component into a
 * handle the runtime passes it; the components then go through the data
 * routine that met the mapper (begin, end or update, which passes itself)
 * as one list marked "from a mapper".  Component 0 holds the reference
 * of the list item the mapper was called for when that item is a variable
 * or array section of its own (rt_mapper_holds_ref); for a member or a
 * pointer's pointee it changes no count and is never removed, as in LLVM
 * 14 to 22, whose component 0 never counts. */
#include "config.h"
#include "data.h"
#include "trace.h"

#include <stdlib.h>

struct mapper_comp {
  void *base, *begin;
  int64_t size, type;
  void *name;
};

/* The handle given to the mapper function; only the calling thread uses
 * it. */
struct mapper_handle {
  struct mapper_comp *c;
  int64_t n, cap;
  int oom;
};

int64_t rt_mapper_num_components(void *handle) {
  struct mapper_handle *h = handle;
  return h ? h->n : 0;
}

void rt_mapper_push(void *handle, void *base, void *begin, int64_t size,
                    int64_t type, void *name) {
  struct mapper_handle *h = handle;
  if (!h)
    return;
  if (h->n == h->cap) {
    int64_t cap = h->cap ? 2 * h->cap : 16;
    struct mapper_comp *c = realloc(h->c, (size_t)cap * sizeof *c);
    if (!c) {
      h->oom = 1;
      return;
    }
    h->c = c;
    h->cap = cap;
  }
  DTRACE(2, "mapper component %ld: base " OMPEMU_PTR " begin " OMPEMU_PTR
           " size %ld type 0x%lx", (long)h->n, OMPEMU_P(base), OMPEMU_P(begin),
           (long)size, (unsigned long)type);
  h->c[h->n++] = (struct mapper_comp){base, begin, size, type, name};
}

typedef void (*mapper_fn)(void *handle, void *base, void *begin, int64_t size,
                          int64_t type, void *name);

int rt_mapper_holds_ref(const struct rt_args *a, int32_t i) {
  int64_t type = a->types[i];
  if (type & (OMP_TGT_MAPTYPE_MEMBER_OF | OMP_TGT_MAPTYPE_PTR_AND_OBJ))
    return 0;
  return !a->from_mapper || i != 0 || a->mapper_ref;
}

/* The components of argument I of A through ROUTINE. */
static int run_mapper(struct rt_op *op, const struct rt_args *a, int32_t i,
                      rt_data_routine routine) {
  void *base = a->base[i], *begin = a->begin[i], *mapper = a->mappers[i];
  int64_t size = a->sizes[i], type = a->types[i];
  map_var_info_t name = a->names ? a->names[i] : NULL;
  struct mapper_handle h = {0};
  DTRACE(1, "device %d: user-defined mapper " OMPEMU_PTR " for host "
           OMPEMU_PTR " (%ld bytes, type 0x%lx)", RT_DEV_ID(op),
           OMPEMU_P(mapper), OMPEMU_P(begin), (long)size, (unsigned long)type);
  ((mapper_fn)mapper)(&h, base, begin, size, type, name);
  if (h.oom) {
    rt_err("out of memory collecting the components of mapper " OMPEMU_PTR,
           OMPEMU_P(mapper));
    free(h.c);
    return -1;
  }
  int32_t n = (int32_t)h.n;
  void **bases = malloc(((size_t)n + 1) * 3 * sizeof(void *));
  int64_t *sizes = malloc(((size_t)n + 1) * 2 * sizeof(int64_t));
  int rc = -1;
  if (!bases || !sizes) {
    rt_err("out of memory running mapper " OMPEMU_PTR, OMPEMU_P(mapper));
    goto out;
  }
  void **begins = bases + n + 1;
  map_var_info_t *names = begins + n + 1;
  int64_t *types = sizes + n + 1;
  for (int32_t i = 0; i < n; i++) {
    bases[i] = h.c[i].base;
    begins[i] = h.c[i].begin;
    sizes[i] = h.c[i].size;
    types[i] = h.c[i].type;
    names[i] = h.c[i].name;
  }
  struct rt_args comps = {a->loc, n, bases, begins, sizes, types, names, NULL,
                          1, rt_mapper_holds_ref(a, i)};
  rc = routine(op, &comps);
out:
  free(bases);
  free(sizes);
  free(h.c);
  return rc;
}

int rt_data_mapper(struct rt_op *op, const struct rt_args *a, int32_t i,
                   enum rt_data_kind kind, rt_data_routine routine) {
  static const char *const llvm_name[] = {
      [RT_DATA_BEGIN] = "targetDataBegin",
      [RT_DATA_END] = "targetDataEnd",
      [RT_DATA_UPDATE] = "targetDataUpdate"};
  if (run_mapper(op, a, i, routine) == 0)
    return 0;
  rt_err("Call to %s via targetDataMapper for custom mapper failed.",
         llvm_name[kind]);
  return -1;
}
