/* A registered descriptor in the one form the runtime and its plugins
 * walk, whatever compiler made it (docs/abi-clang16-19.md 3-4,
 * docs/abi-clang22.md 2-3): every image is the device code itself (the
 * ELF inside clang 16's OffloadBinary container, or the raw ELF clang 14,
 * 19 and 22 point at), and every entry table is the 32-byte
 * __tgt_offload_entry layout (clang 22's 56-byte llvm_offload_entries
 * converted).  The requires entry of clang 19 and 22 (flags 0x10, no
 * symbol) is taken out of the table and its bits handed back: those
 * compilers never call __tgt_register_requires.  Every pointer of the
 * descriptor is checked readable before it is followed: an image or
 * table that is not is reported and not used, an entry whose name is not
 * is reported and left out.  Allocates; no locks. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "entry_table.h"
#include "image_format.h"
#include "safemem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Larger than any device image: a bigger ImageEnd - ImageStart is garbage. */
#define RT_IMAGE_MAX ((size_t)1 << 36)

#define RT_KNOWN_FLAGS                                                       \
  (RT_ENTRY_FLAG_LINK | RT_ENTRY_FLAG_CTOR | RT_ENTRY_FLAG_DTOR |             \
   RT_ENTRY_FLAG_INDIRECT | RT_ENTRY_FLAG_REQUIRES | RT_ENTRY_FLAG_VTABLE)

/* Convert the table [B, E) of LABEL into *OUT / *N (NULL / 0 when empty),
 * requires entries left out and their bits OR-ed into *REQ. */
static int convert(const void *b, const void *e, const char *label,
                   const char *what, __tgt_offload_entry **out, size_t *n,
                   int64_t *req, int *fmt_new) {
  char why[200];
  enum rt_entry_format f = RT_ENTRIES_EMPTY;
  size_t count;
  *out = NULL;
  *n = 0;
  if (!b || !e || e == b)
    return 0;
  /* (Reversed bounds are rt_entries_detect's to report.) */
  if ((const char *)e > (const char *)b &&
      !rt_readable(b, (size_t)((const char *)e - (const char *)b))) {
    ompemu_error("ompemu", "%s: %s " OMPEMU_PTR ".." OMPEMU_PTR " is "
                 "unreadable: its entries are not used", label, what,
                 OMPEMU_P(b), OMPEMU_P(e));
    return -1;
  }
  if (rt_entries_detect(b, e, &f, &count, why, sizeof why) != 0 ||
      rt_entries_to_omp32(b, e, out, n, why, sizeof why) != 0) {
    ompemu_error("ompemu", "%s: %s " OMPEMU_PTR ".." OMPEMU_PTR
                 " not usable: %s", label, what, OMPEMU_P(b), OMPEMU_P(e), why);
    return -1;
  }
  if (fmt_new)
    *fmt_new = f == RT_ENTRIES_LLVM56;
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    __tgt_offload_entry *x = &(*out)[i];
    if (x->name && !rt_string_readable(x->name)) {
      ompemu_error("ompemu", "%s: %s: entry %zu: name pointer " OMPEMU_PTR
                   " is unreadable: the entry is not used", label, what, i,
                   OMPEMU_P(x->name));
      continue;
    }
    if (x->flags & RT_ENTRY_FLAG_REQUIRES) {
      *req |= (int64_t)(uint32_t)x->reserved;
      RT_TRACE(1, "%s: requires entry \"%s\": flags 0x%x", label,
               x->name ? x->name : "", (unsigned)x->reserved);
      continue;
    }
    if (x->flags & ~RT_KNOWN_FLAGS) {
      RT_TRACE(1, "%s: entry %zu \"%s\" has flags 0x%x, of a kind ompemu "
               "does not know: skipped", label, i, x->name ? x->name : "",
               (unsigned)x->flags);
      continue;
    }
    (*out)[k++] = *x;
  }
  *n = k;
  if (k == 0) {
    free(*out);
    *out = NULL;
  }
  return 0;
}

int rt_desc_view_make(const __tgt_bin_desc *desc, const char *label,
                      struct rt_desc_view *v) {
  memset(v, 0, sizeof *v);
  v->requires = OMP_REQ_UNDEFINED;
  int n = desc->NumDeviceImages > 0 ? desc->NumDeviceImages : 0;
  v->images = calloc(n ? (size_t)n : 1, sizeof *v->images);
  v->owned = calloc(n ? (size_t)n : 1, sizeof *v->owned);
  v->arch = calloc(n ? (size_t)n : 1, sizeof *v->arch);
  if (!v->images || !v->owned || !v->arch)
    goto oom;
  v->from = calloc(n ? (size_t)n : 1, sizeof *v->from);
  if (!v->from)
    goto oom;
  int64_t req = 0;
  int newfmt = 0;
  if (convert(desc->HostEntriesBegin, desc->HostEntriesEnd, label,
              "host entry table", &v->entries, &v->nentries, &req,
              &newfmt) != 0)
    v->nentries = 0; /* reported: no entries, nothing runs on a device */
  if (n && !rt_readable(desc->DeviceImages, (size_t)n * sizeof
                        *desc->DeviceImages)) {
    ompemu_error("ompemu", "%s: descriptor " OMPEMU_PTR ": its %d device "
                 "image record(s) at " OMPEMU_PTR " are unreadable "
                 "(NumDeviceImages wrong?): no image is used", label,
                 OMPEMU_P(desc), n, OMPEMU_P(desc->DeviceImages));
    n = 0;
  }
  v->nimages = n; /* until the images left out are known: freed by index */
  int k = 0;      /* images kept */
  for (int i = 0; i < n; i++) {
    const __tgt_device_image *src = &desc->DeviceImages[i];
    const char *s0 = src->ImageStart, *s1 = src->ImageEnd;
    if (!s0 || s1 <= s0 || (size_t)(s1 - s0) > RT_IMAGE_MAX ||
        !rt_readable(s0, (size_t)(s1 - s0))) {
      ompemu_error("ompemu", "%s: descriptor " OMPEMU_PTR ": device image %d "
                   "of %d: ImageStart..ImageEnd " OMPEMU_PTR ".." OMPEMU_PTR
                   " %s: the image is not used", label, OMPEMU_P(desc), i, n,
                   OMPEMU_P(s0), OMPEMU_P(s1),
                   !s0 || s1 <= s0 ? "is empty or reversed"
                   : (size_t)(s1 - s0) > RT_IMAGE_MAX ? "is too large"
                                                      : "is unreadable");
      continue;
    }
    __tgt_device_image *dst = &v->images[k];
    v->from[k] = i;
    *dst = *src;
    struct rt_image_desc d;
    char why[300];
    if (rt_image_describe(src->ImageStart, src->ImageEnd, &d, why,
                          sizeof why) != 0) {
      /* The plugins see the bytes as they are (an image format of their
       * own, or one they refuse); a broken container is an error. */
      long len = (long)((const char *)src->ImageEnd -
                        (const char *)src->ImageStart);
      if (len >= 4 && src->ImageStart &&
          !memcmp(src->ImageStart, RT_OFFLOAD_BINARY_MAGIC, 4))
        ompemu_error("ompemu", "%s: device image %d (" OMPEMU_PTR "..+%ld "
                     "bytes): %s", label, i, OMPEMU_P(src->ImageStart), len,
                     why);
      else
        RT_TRACE(2, "%s: device image %d: %s: given to the plugins as it is",
                 label, i, why);
    } else {
      dst->ImageStart = (void *)d.code;
      dst->ImageEnd = (void *)(d.code + d.code_size);
      if (d.in_container) {
        RT_TRACE(1, "%s: image %d is an OffloadBinary container: %s %s "
                 "image for %s%s%s, %zu bytes at offset 0x%lx", label, i,
                 rt_offload_kind_name(d.offload_kind),
                 rt_image_kind_name(d.image_kind),
                 d.triple ? d.triple : "(no triple)",
                 d.arch && *d.arch ? " " : "", d.arch ? d.arch : "",
                 d.code_size,
                 (unsigned long)(d.code - (const unsigned char *)src->ImageStart));
        if (d.arch && *d.arch && strcmp(d.arch, "generic") != 0 &&
            !(v->arch[k] = strdup(d.arch)))
          goto oom;
      }
    }
    if (src->EntriesBegin == desc->HostEntriesBegin &&
        src->EntriesEnd == desc->HostEntriesEnd) {
      dst->EntriesBegin = v->entries;
      dst->EntriesEnd = v->entries + v->nentries;
    } else {
      size_t m = 0;
      char what[64];
      snprintf(what, sizeof what, "entry table of device image %d", i);
      if (convert(src->EntriesBegin, src->EntriesEnd, label, what,
                  &v->owned[k], &m, &req, NULL) != 0)
        m = 0;
      dst->EntriesBegin = v->owned[k];
      dst->EntriesEnd = v->owned[k] + m;
    }
    k++;
  }
  v->nimages = k;
  if (req)
    v->requires = req;
  v->desc.NumDeviceImages = k;
  v->desc.DeviceImages = v->images;
  v->desc.HostEntriesBegin = v->entries;
  v->desc.HostEntriesEnd = v->entries + v->nentries;
  if (newfmt)
    RT_TRACE(1, "%s: host entries in the 56-byte llvm_offload_entries "
             "layout (%zu entries)", label, v->nentries);
  return 0;
oom:
  ompemu_error("ompemu", "out of memory reading descriptor " OMPEMU_PTR
               " of %s", OMPEMU_P(desc), label);
  rt_desc_view_free(v);
  return -1;
}

void rt_desc_view_free(struct rt_desc_view *v) {
  for (int i = 0; v->owned && i < v->nimages; i++)
    free(v->owned[i]);
  for (int i = 0; v->arch && i < v->nimages; i++)
    free(v->arch[i]);
  free(v->owned);
  free(v->arch);
  free(v->from);
  free(v->images);
  free(v->entries);
  memset(v, 0, sizeof *v);
}
