/* A host program (or, with -DAS_SHARED_LIBRARY, a shared library) with two host
 * entries, for linking with an ompemu-wrap object in the tool tests. */
#include <stdio.h>

#include <ompemu/abi.h>

const char stub_region __attribute__((used)) = 0;
int stub_global = 42;

static __tgt_offload_entry entries[]
    __attribute__((section("omp_offloading_entries"), used, aligned(8))) = {
        {(void *)&stub_region, "__omp_offloading_stub_kernel", 0, 0, 0},
        {(void *)&stub_global, "stub_global", sizeof(int), 0, 0},
};

#ifdef AS_SHARED_LIBRARY
int stub_lib_value(void) { return stub_global + (entries[0].size == 0); }
#else
int main(void) {
  printf("main ran\n");
  return 0;
}
#endif
