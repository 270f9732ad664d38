/* Hand-test driver of the emu loader: loads IMAGE into a code arena with
 * the real device runtime, prints its entries (with "gpu-style" for a
 * flang kernel), and calls FUNC (int FUNC(void)) if given.  Used by
 * loader_gdb.sh to check GDB's view of loaded device code, by
 * loader_compilers.sh on images of clang 16/19/22 and flang 22, and by
 * hand:
 *   tests/unit/loader_try IMAGE [FUNC] */
#include "config.h"
#include "arena.h"
#include "devicertl.h"
#include "loader.h"

#include <ompemu/abi.h>
#include <stdio.h>
#include <stdlib.h>

/* The teams stand-ins of fresh_root.c are not part of this test. */
void *fresh_root_lookup(const char *name) {
  (void)name;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s IMAGE [FUNC]\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    return 2;
  }
  fclose(f);
  struct emu_arena *code =
      arena_create("code", 0, EMU_CODE_BASE, 256UL << 20, 4096);
  if (!code)
    return 2;
  struct emu_image *img = loader_load(0, code, buf, (size_t)n, argv[1]);
  if (!img)
    return 1;
  printf("loaded at 0x%016lx, span 0x%zx\n", (unsigned long)loader_base(img),
         loader_span(img));
  size_t count;
  const __tgt_offload_entry *e = loader_entries(img, &count);
  for (size_t i = 0; i < count; i++)
    printf("entry %zu: %s addr 0x%016lx size %zu flags %d by-name 0x%016lx%s\n",
           i, e[i].name, (unsigned long)e[i].addr, e[i].size, e[i].flags,
           (unsigned long)loader_symbol(img, e[i].name, NULL),
           loader_kernel_env(img, e[i].addr) ? " gpu-style" : "");
  int rc = 0;
  if (argc > 2) {
    int (*fn)(void) = (int (*)(void))loader_symbol(img, argv[2], NULL);
    if (!fn) {
      fprintf(stderr, "no symbol %s\n", argv[2]);
      rc = 1;
    } else {
      printf("%s() = %d\n", argv[2], fn());
    }
  }
  loader_unload(img);
  arena_destroy(code);
  free(buf);
  return rc;
}
