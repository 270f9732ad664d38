/* Helpers shared by the readers of what compilers emit (image_format.c,
 * entry_table.c, kernel_args.c): unaligned loads in the host's byte
 * order, and the reason of a refusal.  Header-only, because those readers
 * are also compiled on their own into ompemu-dump and the unit tests. */
#ifndef OMPEMU_READBYTES_H
#define OMPEMU_READBYTES_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline uint16_t rd16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline uint32_t rd32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline uint64_t rd64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void *rdptr(const unsigned char *p) {
  void *v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Write the reason into WHY (when given); always -1. */
static inline int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int fail(char *why, size_t whylen, const char *fmt, ...) {
  if (why && whylen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

#endif
