/* KernelArgs versions 1-3 read into struct rt_launch (layout and field
 * mapping in kernel_args.h). */
#include "kernel_args.h"
#include "readbytes.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int rt_kernel_args_decode(ident_t *loc, int64_t device_id, int32_t num_teams,
                          int32_t thread_limit, void *host_ptr,
                          const void *args, struct rt_launch *out,
                          uint64_t *flags, char *why, size_t whylen) {
  /* Field by field: a memset of the struct is a `rep stos` on every
   * launch (see launch() in abi/target_clang14.c). */
  out->args = (struct rt_args){0};
  out->teams = 0;
  for (int i = 0; i < 3; i++)
    out->num_teams[i] = out->thread_limit[i] = 0;
  out->tripcount = out->dyn_mem = 0;
  out->nowait = out->prepend_dyn_ptr = 0;
  if (flags)
    *flags = 0;
  out->device_id = device_id;
  out->host_ptr = host_ptr;
  out->args.loc = loc;
  if (!args)
    return fail(why, whylen, "__tgt_target_kernel got no KernelArgs (NULL)");
  const unsigned char *a = args;
  uint32_t version = rd32(a);
  if (version < 1 || version > RT_KERNEL_ARGS_MAX_VERSION)
    return fail(why, whylen,
                "KernelArgs version %u is not supported (versions 1 to %d: "
                "clang 16 to 22, flang 22)",
                version, RT_KERNEL_ARGS_MAX_VERSION);
  uint32_t nargs = rd32(a + 4);
  if (nargs > INT32_MAX)
    return fail(why, whylen, "KernelArgs NumArgs %u is not plausible", nargs);
  struct rt_args *m = &out->args;
  m->n = (int32_t)nargs;
  m->base = rdptr(a + 8);
  m->begin = rdptr(a + 16);
  m->sizes = rdptr(a + 24);
  m->types = rdptr(a + 32);
  m->names = rdptr(a + 40);
  m->mappers = rdptr(a + 48);
  if (nargs && (!m->base || !m->begin || !m->sizes || !m->types))
    return fail(why, whylen,
                "KernelArgs has %u arguments but a NULL array (base %p, "
                "pointers %p, sizes %p, types %p)",
                nargs, (void *)m->base, (void *)m->begin, (void *)m->sizes,
                (void *)m->types);
  out->tripcount = rd64(a + 56);
  int32_t teams[3] = {num_teams, 0, 0}, limit[3] = {thread_limit, 0, 0};
  if (version >= 2) {
    uint64_t f = rd64(a + 64);
    if (flags)
      *flags = f;
    out->nowait = (f & RT_KERNEL_ARGS_FLAG_NOWAIT) != 0;
    for (int i = 0; i < 3; i++) {
      teams[i] = (int32_t)rd32(a + 72 + 4 * i);
      limit[i] = (int32_t)rd32(a + 84 + 4 * i);
    }
    out->dyn_mem = rd32(a + 96);
    out->prepend_dyn_ptr = version >= 3;
  }
  out->teams = teams[0] != -1;
  for (int i = 0; i < 3; i++) {
    out->num_teams[i] = teams[i] == -1 ? 0 : teams[i];
    out->thread_limit[i] = limit[i];
  }
  return 0;
}
