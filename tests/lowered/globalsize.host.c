/* Lowered declare-target global whose device image defines it with
 * another size than the host entry gives (as two translation units
 * declaring `int tab[10]` and `int tab[20]` would): ompemu warns at
 * registration, naming the variable and both sizes, and maps the host's
 * size as LLVM does; the kernel sees the device's definition. */
#include "lowered.h"

int lowered_tab[10];
REGION_ID(__omp_offloading_lowered_globalsize_l14_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)lowered_tab, "lowered_tab", sizeof(lowered_tab), 0, 0},
    {(void *)&__omp_offloading_lowered_globalsize_l14_region_id,
     "__omp_offloading_lowered_globalsize_l14", 0, 0, 0},
};

int main(void) {
  long out = -1;
  void *base[1] = {&out}, *begin[1] = {&out};
  int64_t sizes[1] = {sizeof(out)};
  int64_t types[1] = {FROM | TARGET_PARAM};
  int rc = __tgt_target_mapper(
      &lowered_loc, -1,
      (void *)&__omp_offloading_lowered_globalsize_l14_region_id, 1, base,
      begin, sizes, types, NULL, NULL);
  CHECK(rc == 0, "launch returned %d", rc);
  CHECK(out == 80, "the device's lowered_tab is %ld bytes, expected 80", out);
  CHECK(omp_target_is_present(lowered_tab, 0) == 1,
        "the global is not present on device 0");
  (void)host_entries;
  if (!lowered_failures)
    printf("globalsize: ok\n");
  return LOWERED_RESULT();
}
