/* A declare-target variable that a device image defines with another size
 * than its host entry gives (two translation units that disagree, a
 * hand-lowered entry table): LLVM maps the host's size without a word, so
 * the device copy is copied only in part, or the copies write past it.
 * ompemu maps it the same way and says so once per variable and image,
 * at registration.  An entry with a size that the image defines as a
 * function is a kernel's whose size field is damaged: said as such. */
#include "config.h"
#include "core.h"
#include "entry_table.h"
#include "image_symbols.h"

#include <inttypes.h>
#include <stdlib.h>

/* A plain variable: a `to` global with a size (no link pointer, function,
 * vtable, ctor or requires entry). */
static int plain_variable(const __tgt_offload_entry *e) {
  return e->size && e->name && !e->flags;
}

static void check_image(const struct rt_lib *l, const struct rt_image *img,
                        const char **names, const __tgt_offload_entry **ents,
                        size_t n, uint64_t *sizes, unsigned char *func) {
  const __tgt_device_image *d = img->image;
  if (!d->ImageStart || d->ImageEnd <= d->ImageStart)
    return;
  if (rt_image_symbol_sizes(d->ImageStart,
                            (size_t)((const char *)d->ImageEnd -
                                     (const char *)d->ImageStart),
                            names, n, sizes, func) != 0)
    return;
  for (size_t i = 0; i < n; i++) {
    uint64_t host = ents[i]->size, dev = sizes[i];
    if (dev == RT_NO_SYMBOL || (dev == host && !func[i]))
      continue;
    if (func[i])
      ompemu_warning("ompemu", "%s: host entry %s is the entry of a kernel "
                     "(device image %d defines it as a function) with a size "
                     "field of %" PRIu64 ", where 0 is expected: it is taken "
                     "for a variable of that size (a damaged entry table?)",
                     rt_lib_name(l), names[i], img->index, host);
    else if (dev > host)
      ompemu_warning("ompemu", "%s: declare target variable %s is %" PRIu64
                     " bytes on the host and %" PRIu64 " bytes in device "
                     "image %d: only its first %" PRIu64 " bytes are copied "
                     "between them (the host's size); declare it with one "
                     "size on both", rt_lib_name(l), names[i], host, dev,
                     img->index, host);
    else
      ompemu_warning("ompemu", "%s: declare target variable %s is %" PRIu64
                     " bytes on the host and %" PRIu64 " bytes in device "
                     "image %d: copies of the host's %" PRIu64 " bytes write "
                     "%" PRIu64 " bytes past the device's copy; declare it "
                     "with one size on both", rt_lib_name(l), names[i], host,
                     dev, img->index, host, host - dev);
  }
}

void rt_check_global_sizes(const struct rt_lib *l) {
  size_t n = 0, total = (size_t)(l->host_end - l->host_begin);
  for (size_t k = 0; k < total; k++)
    n += plain_variable(&l->host_begin[k]);
  if (!n)
    return;
  const char **names = malloc(n * sizeof *names);
  const __tgt_offload_entry **ents = malloc(n * sizeof *ents);
  uint64_t *sizes = malloc(n * sizeof *sizes);
  unsigned char *func = malloc(n);
  if (names && ents && sizes && func) {
    size_t j = 0;
    for (size_t k = 0; k < total; k++)
      if (plain_variable(&l->host_begin[k])) {
        ents[j] = &l->host_begin[k];
        names[j++] = l->host_begin[k].name;
      }
    for (int i = 0; i < l->nimages; i++)
      if (l->images[i].plugin)
        check_image(l, &l->images[i], names, ents, n, sizes, func);
  }
  free(func);
  free(names);
  free(ents);
  free(sizes);
}
