/* Reading memory the program handed over without trusting it: the
 * descriptor, its images and entry tables, map names and source
 * locations can hold any pointer, and a wild one must become a message,
 * not a crash. */
#ifndef OMPEMU_SAFEMEM_H
#define OMPEMU_SAFEMEM_H

#include <stddef.h>
#include <sys/types.h>

#define RT_SAFEMEM_HIDDEN __attribute__((visibility("hidden")))

/* Copy N bytes at SRC to DST without faulting: the bytes copied (fewer
 * when the range runs into unreadable memory), -1 if SRC is unreadable. */
ssize_t rt_safe_copy(void *dst, const void *src, size_t n)
    RT_SAFEMEM_HIDDEN;
/* 1 if all of [P, P + N) is readable (N == 0: always), else 0. */
int rt_readable(const void *p, size_t n) RT_SAFEMEM_HIDDEN;
/* Copy the NUL-terminated string at P into BUF (size N): 0 if a complete
 * string was read, -1 if P is NULL, unreadable or longer than N - 1. */
int rt_safe_string(const char *p, char *buf, size_t n)
    RT_SAFEMEM_HIDDEN;
/* 1 if P is a readable NUL-terminated string of at most 64 KiB. */
int rt_string_readable(const char *p) RT_SAFEMEM_HIDDEN;

#endif
