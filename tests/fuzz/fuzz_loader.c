/* libFuzzer harness of the emu loader: every input goes through
 * loader_check and loader_load into a real code arena; a loaded image is
 * looked up, its entries read, and unloaded.  The loader is built with
 * EMU_LOADER_FUZZING, so it never runs the image's code (initialisers,
 * ifunc resolvers) nor opens libraries that are not loaded already.
 *   make fuzz-run FUZZ_SECONDS=600   (see src/plugins/emu/loader/loader.mk) */
#include "config.h"
#include "arena.h"
#include "devicertl.h"
#include "loader.h"

#include <ompemu/abi.h>
#include <stdint.h>
#include <string.h>

void *devicertl_lookup(const char *name) {
  return strcmp(name, "omp_get_device_num") == 0 ? (void *)devicertl_lookup
                                                 : NULL;
}

/* The flang kernels' device runtime is not part of this test. */
void *devicertl_flang_lookup(const char *name) {
  (void)name;
  return NULL;
}

/* The teams stand-ins of fresh_root.c are not part of this test. */
void *fresh_root_lookup(const char *name) {
  (void)name;
  return NULL;
}

static struct emu_arena *code;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  code = arena_create("code", 0, EMU_CODE_BASE, 64UL << 20, 4096);
  return code ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[256];
  (void)loader_check(data, size, why, sizeof why);
  struct emu_image *img = loader_load(0, code, data, size, "fuzz");
  if (!img)
    return 0;
  size_t n = 0, total = 0;
  const __tgt_offload_entry *e = loader_entries(img, &n);
  for (size_t i = 0; i < n; i++) {
    size_t sz;
    total += strlen(e[i].name);
    if (loader_symbol(img, e[i].name, &sz))
      total += sz;
  }
  (void)loader_symbol(img, "gvar", NULL);
  if (arena_in_use(code) < loader_span(img) || total == (size_t)-1)
    __builtin_trap();
  loader_unload(img);
  if (arena_in_use(code) != 0)
    __builtin_trap(); /* the image's block leaked */
  return 0;
}
