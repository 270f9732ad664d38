/* ABI layout checks: the public structs against offsets computed by hand
 * from docs/abi-clang14.md section 4 (LP64), and the map-type helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <ompemu/plugin.h>

static void test_offload_entry(void **state) {
  (void)state;
  assert_int_equal(sizeof(__tgt_offload_entry), 32);
  assert_int_equal(offsetof(__tgt_offload_entry, addr), 0);
  assert_int_equal(offsetof(__tgt_offload_entry, name), 8);
  assert_int_equal(offsetof(__tgt_offload_entry, size), 16);
  assert_int_equal(offsetof(__tgt_offload_entry, flags), 24);
  assert_int_equal(offsetof(__tgt_offload_entry, reserved), 28);
}

static void test_image_and_desc(void **state) {
  (void)state;
  assert_int_equal(sizeof(__tgt_device_image), 4 * sizeof(void *));
  assert_int_equal(offsetof(__tgt_device_image, ImageEnd), 8);
  assert_int_equal(offsetof(__tgt_device_image, EntriesEnd), 24);
  /* NumDeviceImages is an int32 followed by 4 bytes of padding. */
  assert_int_equal(offsetof(__tgt_bin_desc, DeviceImages), 8);
  assert_int_equal(offsetof(__tgt_bin_desc, HostEntriesBegin), 16);
  assert_int_equal(sizeof(__tgt_bin_desc), 32);
  assert_int_equal(sizeof(__tgt_target_table), 16);
  assert_int_equal(sizeof(__tgt_async_info), 8);
}

static void test_seed_structs(void **state) {
  (void)state;
  assert_int_equal(offsetof(__tgt_image_info, version), 0);
  assert_int_equal(offsetof(__tgt_image_info, image_number), 4);
  assert_int_equal(offsetof(__tgt_image_info, number_images), 8);
  assert_int_equal(offsetof(__tgt_image_info, offload_arch), 16);
  assert_int_equal(offsetof(__tgt_image_info, compile_opts), 24);
  assert_int_equal(sizeof(__omp_offloading_fptr_map_ty), 16);
  assert_int_equal(offsetof(__omp_offloading_fptr_map_ty, tgt_ptr), 8);
  assert_int_equal(sizeof(__tgt_descriptor_dim), 24);
  assert_int_equal(offsetof(ident_t, psource), 16);
}

static void test_flags_and_map_types(void **state) {
  (void)state;
  assert_int_equal(OMP_DECLARE_TARGET_LINK, 1);
  assert_int_equal(OMP_DECLARE_TARGET_CTOR, 2);
  assert_int_equal(OMP_DECLARE_TARGET_DTOR, 4);
  assert_int_equal(OMP_DECLARE_TARGET_FPTR, 8);
  assert_int_equal(OFFLOAD_FAIL, -1);
  /* Values observed in clang 14 IR (docs/abi-clang14.md 6.1). */
  assert_int_equal(ompemu_member_of(0) | OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM,
                   0x1000000000003LL);
  assert_int_equal(ompemu_member_of(0) | 0x13, 0x1000000000013LL);
  assert_int_equal(ompemu_parent_index(0x1000000000013LL), 0);
  assert_int_equal(ompemu_parent_index(0x3000000000003LL), 2);
  assert_int_equal(ompemu_parent_index(0x23), -1);
  assert_int_equal(ompemu_parent_index((int64_t)0xffff000000000001ULL), 0xfffe);
  assert_int_equal(OMP_TGT_MAPTYPE_NON_CONTIG | 1, 0x100000000001LL);
  assert_int_equal(OMP_REQ_UNIFIED_SHARED_MEMORY, 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_offload_entry),
      cmocka_unit_test(test_image_and_desc),
      cmocka_unit_test(test_seed_structs),
      cmocka_unit_test(test_flags_and_map_types),
  };
  return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
