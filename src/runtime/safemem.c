/* Reading untrusted pointers without faulting (safemem.h):
 * process_vm_readv on ourselves; where a sandbox forbids it, a pipe
 * (write() reports EFAULT instead of faulting). */
#define _GNU_SOURCE
#include "config.h"
#include "safemem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096u

static int no_vm_readv;

ssize_t rt_safe_copy(void *dst, const void *src, size_t n) {
  if (!no_vm_readv) {
    struct iovec lo = {dst, n}, re = {(void *)src, n};
    ssize_t r = process_vm_readv(getpid(), &lo, 1, &re, 1, 0);
    if (r >= 0 || errno == EFAULT)
      return r;
    no_vm_readv = 1;
  }
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  ssize_t got = 0;
  while ((size_t)got < n) {
    size_t want = n - (size_t)got < PAGE ? n - (size_t)got : PAGE;
    ssize_t w = write(fd[1], (const char *)src + got, want);
    ssize_t r = w > 0 ? read(fd[0], (char *)dst + got, (size_t)w) : -1;
    if (r <= 0)
      break;
    got += r;
  }
  close(fd[0]);
  close(fd[1]);
  return got ? got : -1;
}

int rt_readable(const void *p, size_t n) {
  if (n == 0)
    return 1;
  uintptr_t a = (uintptr_t)p;
  if (!p || a + n < a)
    return 0;
  /* One byte of every page the range touches, up to 512 pages a call. */
  unsigned char sink[512];
  uintptr_t first = a & ~(uintptr_t)(PAGE - 1), last = (a + n - 1) & ~(uintptr_t)(PAGE - 1);
  for (uintptr_t pg = first; pg <= last;) {
    struct iovec re[512];
    int k = 0;
    for (; k < 512 && pg <= last; k++, pg += PAGE) {
      re[k].iov_base = (void *)(pg < a ? a : pg);
      re[k].iov_len = 1;
      if (pg + PAGE < pg)
        return 0;
    }
    if (!no_vm_readv) {
      struct iovec lo = {sink, (size_t)k};
      ssize_t r = process_vm_readv(getpid(), &lo, 1, re, (unsigned long)k, 0);
      if (r == k)
        continue;
      if (r >= 0 || errno == EFAULT)
        return 0;
      no_vm_readv = 1;
    }
    for (int i = 0; i < k; i++)
      if (rt_safe_copy(sink, re[i].iov_base, 1) != 1)
        return 0;
  }
  return 1;
}

int rt_safe_string(const char *p, char *buf, size_t n) {
  if (!p || n == 0)
    return -1;
  size_t got = 0;
  while (got < n - 1) {
    /* Never cross a page boundary in one read, so a string that ends just
     * before an unmapped page is still read. */
    size_t page = PAGE - ((uintptr_t)(p + got) & (PAGE - 1));
    size_t want = page < n - 1 - got ? page : n - 1 - got;
    ssize_t r = rt_safe_copy(buf + got, p + got, want);
    if (r <= 0)
      return -1;
    if (memchr(buf + got, 0, (size_t)r))
      return 0;
    got += (size_t)r;
  }
  return -1;
}

int rt_string_readable(const char *p) {
  char buf[512];
  if (!p)
    return 0;
  for (size_t got = 0; got < 65536;) {
    size_t page = PAGE - ((uintptr_t)(p + got) & (PAGE - 1));
    size_t want = page < sizeof buf ? page : sizeof buf;
    ssize_t r = rt_safe_copy(buf, p + got, want);
    if (r <= 0)
      return 0;
    if (memchr(buf, 0, (size_t)r))
      return 1;
    got += (size_t)r;
  }
  return 0;
}
