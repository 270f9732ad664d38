/* lowered-hello, host side: what clang would generate for
 *
 *   int main(void) {
 *     int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
 *   #pragma omp target map(tofrom: a)
 *     for (int i = 0; i < 8; i++) a[i] *= 10;
 *     ...
 *   }
 *
 * written by hand in plain C so gcc can build it.  See README.md. */
#include <stdint.h>
#include <stdio.h>

#include <ompemu/omptarget.h> /* __tgt_* prototypes and ABI structs */

/* (1) The kernel's host identity: a byte whose address names the region. */
const char hello_region_id __attribute__((used)) = 0;

/* (2) The host entries table.  The linker gathers every object's part of
 * section omp_offloading_entries and defines __start_/__stop_ around it;
 * the wrapper object's descriptor points at those bounds. */
static __tgt_offload_entry host_entries[]
    __attribute__((section("omp_offloading_entries"), used, aligned(8))) = {
        {(void *)&hello_region_id, "__omp_offloading_hello_main_l8", 0, 0, 0},
};

/* (3) The host version of the region, run when offloading is not possible. */
static void hello_host(int *a) {
  for (int i = 0; i < 8; i++)
    a[i] *= 10;
}

int main(void) {
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};

  /* (4) The map list of "map(tofrom: a)": one argument, passed to the kernel
   * (TARGET_PARAM), copied to the device before and back after (TO|FROM). */
  void *args_base[1] = {a};
  void *args[1] = {a};
  int64_t arg_sizes[1] = {sizeof(a)};
  int64_t arg_types[1] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM |
                          OMP_TGT_MAPTYPE_TARGET_PARAM};
  ident_t loc = {0, 2, 0, 0, ";host.c;main;8;1;;"};

  /* (5) The launch.  Non-zero means "not offloaded": run the host version. */
  int rc = __tgt_target_mapper(&loc, OFFLOAD_DEVICE_DEFAULT,
                               (void *)&hello_region_id, 1, args_base, args,
                               arg_sizes, arg_types, NULL, NULL);
  if (rc != 0)
    hello_host(a);

  printf("%s:", rc == 0 ? "device" : "host fallback");
  for (int i = 0; i < 8; i++)
    printf(" %d", a[i]);
  printf("\n");
  (void)host_entries;
  for (int i = 0; i < 8; i++)
    if (a[i] != 10 * (i + 1))
      return 1;
  return 0;
}
