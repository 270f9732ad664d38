/* A stand-in for the emu ELF loader (loader.h) in test_plugin, so the
 * plugin can be tested on its own.  A "fake image" (fake_loader.h) lists
 * symbols: functions become 16-byte jump stubs in the code arena's first
 * page (so kernel entries really lie in the device's code range), data
 * symbols get zeroed space in the second page. */
#include "fake_loader.h"

#include <ompemu/abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "loader.h"
#include "trace.h"

struct emu_image {
  struct emu_arena *code;
  char *base;
  size_t span;
  const struct fake_image *src;
  void *addr[FAKE_MAX_SYMS];
  char label[64];
};

int fake_loads, fake_unloads;

int loader_check(const void *image, size_t size, char *why, size_t whylen) {
  if (size >= sizeof(struct fake_image) &&
      memcmp(image, FAKE_MAGIC, sizeof FAKE_MAGIC) == 0)
    return 1;
  snprintf(why, whylen, "not a fake image");
  return 0;
}

struct emu_image *loader_load(int dev, struct emu_arena *code,
                              const void *image, size_t size,
                              const char *label) {
  char why[64];
  if (!loader_check(image, size, why, sizeof why)) {
    ompemu_error("emu", "image %s rejected: %s", label, why);
    return NULL;
  }
  const struct fake_image *f = image;
  struct emu_image *img = calloc(1, sizeof *img);
  img->code = code;
  img->span = 2 * 4096;
  img->base = arena_alloc(code, img->span);
  img->src = f;
  snprintf(img->label, sizeof img->label, "%s", label);
  char *fn = img->base, *data = img->base + 4096;
  for (int i = 0; i < f->nsyms; i++) {
    if (f->syms[i].is_data) {
      memset(data, 0, f->syms[i].size);
      img->addr[i] = data;
      data += (f->syms[i].size + 15) & ~(size_t)15;
    } else {
      unsigned char stub[16] = {0x48, 0xB8}; /* movabs $fn,%rax; jmp *%rax */
      memcpy(stub + 2, &f->syms[i].fn, 8);
      stub[10] = 0xFF;
      stub[11] = 0xE0;
      memcpy(fn, stub, 16);
      img->addr[i] = fn;
      fn += 16;
    }
  }
  mprotect(img->base, 4096, PROT_READ | PROT_EXEC);
  fake_loads++;
  return img;
}

int loader_unload(struct emu_image *img) {
  int rc = arena_free(img->code, img->base);
  free(img);
  fake_unloads++;
  return rc;
}

void *loader_symbol(const struct emu_image *img, const char *name,
                    size_t *size) {
  for (int i = 0; i < img->src->nsyms; i++)
    if (strcmp(img->src->syms[i].name, name) == 0) {
      if (size)
        *size = img->src->syms[i].size;
      return img->addr[i];
    }
  return NULL;
}

int loader_contains(const struct emu_image *img, const void *addr) {
  return (const char *)addr >= img->base &&
         (const char *)addr < img->base + img->span;
}

uintptr_t loader_base(const struct emu_image *img) {
  return (uintptr_t)img->base;
}
size_t loader_span(const struct emu_image *img) { return img->span; }
const char *loader_label(const struct emu_image *img) { return img->label; }

/* The data symbols' page is the writable part. */
void loader_writable_runs(const struct emu_image *img,
                          void (*fn)(void *arg, uintptr_t lo, size_t len),
                          void *arg) {
  if (img->span >= 2 * 4096)
    fn(arg, (uintptr_t)img->base + 4096, 4096);
}

const struct __tgt_offload_entry *loader_entries(const struct emu_image *img,
                                                 size_t *count) {
  *count = 0;
  return NULL;
}

/* The fake images hold no GPU-style (flang) kernels. */
const void *loader_kernel_env(const struct emu_image *img, const void *entry) {
  (void)img;
  (void)entry;
  return NULL;
}

/* What loader_thread_needs and loader_kernel_needs answer for every fake
 * image and kernel (test_plugin sets it to keep kernels on the workers). */
unsigned fake_thread_needs;

unsigned loader_thread_needs(const struct emu_image *img) {
  (void)img;
  return fake_thread_needs;
}

unsigned loader_kernel_needs(const struct emu_image *img, const void *entry) {
  (void)entry;
  return loader_thread_needs(img);
}
