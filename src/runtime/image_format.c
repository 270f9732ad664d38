/* Device image formats: raw ELF, or the OffloadBinary version 1 container
 * of clang 16+ (layout in docs/abi-clang16-19.md 3.3).  See
 * image_format.h.  The host is little-endian (configure accepts x86-64
 * only), so fields are read with memcpy as they are. */
#include "image_format.h"
#include "readbytes.h"

#include <stdio.h>
#include <string.h>

#define ELF_MAGIC "\x7f" "ELF"

/* Is [OFF, OFF+LEN) inside [0, SIZE), without overflow? */
static int inside(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

/* Is the string at OFF terminated before SIZE? */
static int terminated(const unsigned char *base, uint64_t off, uint64_t size) {
  return off < size && memchr(base + off, '\0', (size_t)(size - off)) != NULL;
}

/* Fill D's triple and arch from the string table, checking every pair:
 * both offsets inside the container and each string terminated in it. */
static int read_strings(struct rt_image_desc *d, uint64_t size, char *why,
                        size_t whylen) {
  const unsigned char *c = d->container;
  if (d->string_offset > size ||
      d->num_strings > (size - d->string_offset) / 16)
    return fail(why, whylen,
                "OffloadBinary string table (%lu pairs at offset 0x%lx) "
                "extends past the container's %lu bytes",
                (unsigned long)d->num_strings,
                (unsigned long)d->string_offset, (unsigned long)size);
  for (uint64_t i = 0; i < d->num_strings; i++) {
    const unsigned char *pair = c + d->string_offset + i * 16;
    uint64_t key = rd64(pair), value = rd64(pair + 8);
    if (!terminated(c, key, size) || !terminated(c, value, size))
      return fail(why, whylen,
                  "OffloadBinary string pair %lu (key at 0x%lx, value at "
                  "0x%lx) is not a terminated string inside the container's "
                  "%lu bytes",
                  (unsigned long)i, (unsigned long)key, (unsigned long)value,
                  (unsigned long)size);
    const char *k = (const char *)c + key, *v = (const char *)c + value;
    if (strcmp(k, "triple") == 0 && !d->triple)
      d->triple = v;
    else if (strcmp(k, "arch") == 0 && !d->arch)
      d->arch = v;
  }
  return 0;
}

/* Parse the container at B (AVAIL bytes readable) into D. */
static int describe_container(const unsigned char *b, size_t avail,
                              struct rt_image_desc *d, char *why,
                              size_t whylen) {
  if (avail < RT_OFFLOAD_BINARY_HEADER_SIZE)
    return fail(why, whylen,
                "OffloadBinary container truncated: %zu bytes, its header "
                "alone is %d",
                avail, RT_OFFLOAD_BINARY_HEADER_SIZE);
  d->in_container = 1;
  d->container = b;
  d->container_version = rd32(b + 4);
  d->container_size = rd64(b + 8);
  uint64_t entry_offset = rd64(b + 16), entry_size = rd64(b + 24);
  uint64_t size = d->container_size;
  if (d->container_version != 1)
    return fail(why, whylen,
                "OffloadBinary version %u is not supported (version 1 "
                "expected)",
                d->container_version);
  if (size < RT_OFFLOAD_BINARY_HEADER_SIZE || size > avail)
    return fail(why, whylen,
                "OffloadBinary claims %lu bytes but the image range holds %zu",
                (unsigned long)size, avail);
  if (entry_size < RT_OFFLOAD_BINARY_ENTRY_SIZE ||
      !inside(entry_offset, entry_size, size))
    return fail(why, whylen,
                "OffloadBinary entry (offset 0x%lx, %lu bytes) is not inside "
                "the container's %lu bytes or shorter than %d bytes",
                (unsigned long)entry_offset, (unsigned long)entry_size,
                (unsigned long)size, RT_OFFLOAD_BINARY_ENTRY_SIZE);
  const unsigned char *e = b + entry_offset;
  d->image_kind = rd16(e);
  d->offload_kind = rd16(e + 2);
  d->flags = rd32(e + 4);
  d->string_offset = rd64(e + 8);
  d->num_strings = rd64(e + 16);
  uint64_t image_offset = rd64(e + 24), image_size = rd64(e + 32);
  if (image_size == 0 || !inside(image_offset, image_size, size))
    return fail(why, whylen,
                "OffloadBinary image (offset 0x%lx, %lu bytes) is not inside "
                "the container's %lu bytes",
                (unsigned long)image_offset, (unsigned long)image_size,
                (unsigned long)size);
  if (read_strings(d, size, why, whylen) != 0)
    return -1;
  d->code = b + image_offset;
  d->code_size = (size_t)image_size;
  d->is_elf = image_size >= 4 && memcmp(d->code, ELF_MAGIC, 4) == 0;
  if ((d->image_kind == RT_IMAGE_KIND_OBJECT ||
       d->image_kind == RT_IMAGE_KIND_CUBIN) && !d->is_elf)
    return fail(why, whylen,
                "OffloadBinary image kind %s, but its %lu bytes at offset "
                "0x%lx do not start with an ELF header",
                rt_image_kind_name(d->image_kind), (unsigned long)image_size,
                (unsigned long)image_offset);
  return 0;
}

int rt_image_describe(const void *start, const void *end,
                      struct rt_image_desc *out, char *why, size_t whylen) {
  memset(out, 0, sizeof *out);
  const unsigned char *b = start;
  if (!start || !end || (const unsigned char *)end < b)
    return fail(why, whylen, "image bounds %p..%p are invalid", start, end);
  size_t len = (size_t)((const unsigned char *)end - b);
  if (len == 0)
    return fail(why, whylen, "the device image is empty");
  if (len >= 4 && memcmp(b, RT_OFFLOAD_BINARY_MAGIC, 4) == 0)
    return describe_container(b, len, out, why, whylen);
  if (len >= 4 && memcmp(b, ELF_MAGIC, 4) == 0) {
    out->code = b;
    out->code_size = len;
    out->is_elf = 1;
    out->image_kind = RT_IMAGE_KIND_OBJECT;
    out->offload_kind = RT_OFFLOAD_KIND_OPENMP;
    return 0;
  }
  unsigned char first[4] = {0, 0, 0, 0};
  memcpy(first, b, len < 4 ? len : 4);
  return fail(why, whylen,
              "the device image's first bytes %02x %02x %02x %02x (%zu bytes "
              "in all) are neither an ELF header nor an OffloadBinary "
              "container (10 ff 10 ad)",
              first[0], first[1], first[2], first[3], len);
}

const char *rt_image_string(const struct rt_image_desc *d, const char *key) {
  if (!d->container || !key)
    return NULL;
  /* rt_image_describe checked every pair against the container size. */
  for (uint64_t i = 0; i < d->num_strings; i++) {
    const unsigned char *pair = d->container + d->string_offset + i * 16;
    if (strcmp((const char *)d->container + rd64(pair), key) == 0)
      return (const char *)d->container + rd64(pair + 8);
  }
  return NULL;
}

const char *rt_image_kind_name(uint16_t kind) {
  switch (kind) {
  case RT_IMAGE_KIND_NONE: return "none";
  case RT_IMAGE_KIND_OBJECT: return "object";
  case RT_IMAGE_KIND_BITCODE: return "bitcode";
  case RT_IMAGE_KIND_CUBIN: return "cubin";
  case RT_IMAGE_KIND_FATBINARY: return "fatbinary";
  case RT_IMAGE_KIND_PTX: return "ptx";
  default: return "unknown";
  }
}

const char *rt_offload_kind_name(uint16_t kind) {
  switch (kind) {
  case RT_OFFLOAD_KIND_NONE: return "none";
  case RT_OFFLOAD_KIND_OPENMP: return "OpenMP";
  case RT_OFFLOAD_KIND_CUDA: return "CUDA";
  case RT_OFFLOAD_KIND_HIP: return "HIP";
  default: return "unknown";
  }
}
