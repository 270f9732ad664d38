/* The fake image format understood by tests/unit/fake_loader.c. */
#ifndef FAKE_LOADER_H
#define FAKE_LOADER_H

#include <stddef.h>

#define FAKE_MAGIC "EMUFAKE"
#define FAKE_MAX_SYMS 16

struct fake_sym {
  const char *name;
  void *fn;    /* function symbols: the host function the stub jumps to */
  int is_data; /* data symbols: SIZE zeroed bytes in the image */
  size_t size;
};

struct fake_image {
  char magic[8];
  int nsyms;
  struct fake_sym syms[FAKE_MAX_SYMS];
};

extern int fake_loads, fake_unloads;

extern unsigned fake_thread_needs; /* loader_thread_needs of every fake image */
#endif
