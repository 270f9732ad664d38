/* Device image formats: what a __tgt_device_image's [ImageStart, ImageEnd)
 * holds, and where the device code inside it is.
 *   clang 14         a raw ELF shared object
 *   clang 16         an OffloadBinary container (version 1) around the ELF
 *   clang 19, 22,    the raw ELF inside such a container (ImageStart points
 *   flang 22         past the container header; ImageEnd is its end)
 * (docs/abi-clang16-19.md 3.2-3.3, docs/abi-clang22.md 2).  Pure functions
 * over bytes: nothing is read outside the range given, nothing is
 * allocated, and every malformed container gets a message saying which
 * field is wrong.  Thread-safe. */
#ifndef OMPEMU_RT_IMAGE_FORMAT_H
#define OMPEMU_RT_IMAGE_FORMAT_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* First bytes of an OffloadBinary container (read as a little-endian
 * uint32: 0xAD10FF10). */
#define RT_OFFLOAD_BINARY_MAGIC "\x10\xff\x10\xad"
#define RT_OFFLOAD_BINARY_HEADER_SIZE 32 /* magic, version, size, entry off/size */
#define RT_OFFLOAD_BINARY_ENTRY_SIZE 40  /* one image entry */

/* The container's image_kind field. */
enum rt_image_kind {
  RT_IMAGE_KIND_NONE = 0,
  RT_IMAGE_KIND_OBJECT = 1, /* an ELF object or shared object */
  RT_IMAGE_KIND_BITCODE = 2,
  RT_IMAGE_KIND_CUBIN = 3,
  RT_IMAGE_KIND_FATBINARY = 4,
  RT_IMAGE_KIND_PTX = 5
};

/* The container's offload_kind field (bits). */
enum rt_offload_kind {
  RT_OFFLOAD_KIND_NONE = 0,
  RT_OFFLOAD_KIND_OPENMP = 1,
  RT_OFFLOAD_KIND_CUDA = 2,
  RT_OFFLOAD_KIND_HIP = 4
};

/* What rt_image_describe found. */
struct rt_image_desc {
  const unsigned char *code; /* the device image proper (ELF for x86) */
  size_t code_size;
  int is_elf;                /* code starts with the ELF magic */
  int in_container;          /* came out of an OffloadBinary */
  /* Container fields; for a raw ELF: version 0, image_kind OBJECT,
   * offload_kind OPENMP, flags 0, no strings. */
  uint32_t container_version;
  uint64_t container_size;
  uint16_t image_kind;
  uint16_t offload_kind;
  uint32_t flags;
  const char *triple; /* "x86_64-pc-linux-gnu", or NULL when absent */
  const char *arch;   /* "" for x86 (clang 16/19/22 wrappers), "generic" in
                         host-object packages; NULL when absent */
  /* The container's string table, for rt_image_string (NULL if none). */
  const unsigned char *container;
  uint64_t string_offset, num_strings;
};

/* Describe the image bytes [START, END): a raw ELF image, or an
 * OffloadBinary container whose single entry is checked field by field
 * (every offset and size inside the container, every string terminated
 * inside it, the inner image inside [START, END)).  Returns 0 and fills
 * *OUT; -1 with a one-line reason in WHY[0..WHYLEN) (no prefix; the caller
 * reports it) when the bytes are neither format or the container is
 * malformed.  Never reads outside [START, END). */
RT_HIDDEN int rt_image_describe(const void *start, const void *end,
                                struct rt_image_desc *out, char *why,
                                size_t whylen);

/* The value of the container string KEY ("triple", "arch", ...), or NULL
 * when D has no container or no such key.  Points into the image. */
RT_HIDDEN const char *rt_image_string(const struct rt_image_desc *d,
                                      const char *key);

/* "object", "bitcode", ... or "unknown". */
RT_HIDDEN const char *rt_image_kind_name(uint16_t image_kind);
/* "OpenMP", "CUDA", "HIP", "none" or "unknown". */
RT_HIDDEN const char *rt_offload_kind_name(uint16_t offload_kind);

#endif
