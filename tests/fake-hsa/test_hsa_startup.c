/* Start-up and images in the hsa plugin: no runtime, hsa_init failing, no
 * GPU, agents and their queues, which images are accepted (and malformed
 * ones), code object load and its errors. */
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- error paths of start-up ---- */

static void test_runtime_absent(void **state) {
  setenv("OMPEMU_HSA_LIBRARY", "/nonexistent/libhsa-runtime64.so.1", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  read_image(co906);
  assert_int_equal(P.valid(&image), 0);
  assert_int_equal(fake_hsa_refcount(), 0);
  assert_int_equal(fake_hsa_log_count("hsa_init"), 0);
  const char *t = slurp(trace_path);
  assert_non_null(strstr(t, "hsa: no devices (HSA runtime not found)\n"
                            "hsa: dlopen /nonexistent/libhsa-runtime64.so.1: "));
  unlink(trace_path);
}

static void test_init_fails(void **state) {
  setenv("FAKE_HSA_INIT_FAIL", "1", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  assert_int_equal(P.init(0), OFFLOAD_FAIL);
  assert_logged("hsa_init() = 0x1008");
  assert_int_equal(fake_hsa_log_count("hsa_iterate_agents"), 0);
  /* The short note, then the runtime's own words (OMPEMU_TRACE=2). */
  const char *t = slurp(trace_path);
  const char *note = strstr(t, "hsa: no devices (");
  const char *why = strstr(t, "hsa: hsa_init() returned 0x1008 "
                              "(HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  assert_non_null(note);
  assert_non_null(why);
  assert_true(note < why);
  unlink(trace_path);
}

/* OMPEMU_TRACE=1 on a machine without an AMD GPU (where the real runtime's
 * hsa_init fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES): the trace says
 * there are no devices and why in a few words, nothing that reads as an
 * error in the program. */
static void test_init_fails_level1(void **state) {
  setenv("FAKE_HSA_INIT_FAIL", "1", 1);
  trace_to_file();
  setenv("OMPEMU_TRACE", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  const char *t = slurp(trace_path);
  if (access("/dev/kfd", F_OK) != 0)
    assert_string_equal(t, "hsa: no devices (no amdgpu kernel driver: "
                           "/dev/kfd is absent)\n");
  else
    assert_string_equal(t, "hsa: no devices (the HSA runtime did not start)\n");
  unlink(trace_path);
}

static void test_no_gpu(void **state) {
  setenv("FAKE_HSA_NO_GPU", "1", 1);
  trace_to_file();
  setenv("OMPEMU_TRACE", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 0);
  assert_logged("hsa_iterate_agents() agents=1");
  /* hsa_shut_down already ran: no device, nothing kept. */
  assert_logged("hsa_shut_down() = 0x0 refcount=0");
  assert_string_equal(slurp(trace_path), "hsa: no devices (no GPU agent)\n");
  unlink(trace_path);
}

/* ---- agents, queues, pools ---- */

static void test_agents_and_init(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906,gfx908", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 2);
  assert_int_equal(P.init(1), OFFLOAD_SUCCESS);
  assert_logged("hsa_agent_get_info(gfx906#0, 0) = 0x0");
  assert_logged("hsa_agent_get_info(gfx908#1, 0) = 0x0");
  assert_logged("hsa_amd_agent_iterate_memory_pools(cpu)");
  assert_logged("hsa_amd_agent_iterate_memory_pools(gfx908#1)");
  assert_logged("hsa_queue_create(gfx908#1, size=1024, type=0) = 0x0");
  assert_int_equal(fake_hsa_log_count("hsa_queue_create"), 1);
  assert_int_equal(P.init(0), OFFLOAD_SUCCESS);
  assert_int_equal(fake_hsa_log_count("hsa_queue_create(gfx906#0"), 1);
  capture_start();
  int rc = P.init(2);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: init_device: no hsa device 2 (2 devices)"));
}

/* ---- images ---- */

static void test_valid_binary(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906", 1);
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co906);
  assert_int_equal(P.valid(&image), 1);
  read_image(co908);
  assert_int_equal(P.valid(&image), 0);
  co_bytes[18] = 62; /* EM_X86_64 */
  co_bytes[19] = 0;
  assert_int_equal(P.valid(&image), 0);
  memcpy(co_bytes, "XELF", 4);
  assert_int_equal(P.valid(&image), 0);
  const char *t = slurp(trace_path);
  assert_non_null(strstr(t, "accepted: mach 0x2f (gfx906) runs on device 0"));
  assert_non_null(strstr(t, "refused: code object for mach 0x30 (gfx908), "
                            "agents are gfx906"));
  assert_non_null(strstr(t, "refused: e_machine 62 is not EM_AMDGPU (224)"));
  assert_non_null(strstr(t, "refused: not an ELF file"));
  unlink(trace_path);
}

/* Malformed images: refused or read safely, never a crash. */
static void test_malformed_images(void **state) {
  trace_to_file();
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co906);
  image.ImageEnd = co_bytes + 40; /* shorter than an ELF header */
  assert_int_equal(P.valid(&image), 0);
  image.ImageEnd = co_bytes; /* empty */
  assert_int_equal(P.valid(&image), 0);
  co_bytes[4] = 1; /* ELFCLASS32 */
  image.ImageEnd = co_bytes + co_size;
  assert_int_equal(P.valid(&image), 0);
  const char *t = slurp(trace_path);
  assert_non_null(strstr(t, "refused: 40 bytes, too small for an ELF header"));
  assert_non_null(strstr(t, "refused: 0 bytes, too small for an ELF header"));
  assert_non_null(strstr(t, "refused: not a 64-bit ELF file"));
  /* Section headers out of the image: the loader (dlopen) does not need
   * them, the plugin's read of <kernel>_exec_mode/_wg_size finds nothing
   * and the defaults apply. */
  read_image(co906);
  uint64_t bad = (uint64_t)co_size - 8;
  memcpy(co_bytes + 0x28, &bad, 8); /* e_shoff */
  assert_int_equal(P.valid(&image), 1);
  __tgt_target_table *tb = P.load(0, &image);
  assert_non_null(tb);
  int out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {dout};
  ptrdiff_t offs[] = {0};
  assert_int_equal(P.run(0, tb->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(fake_hsa_log_count("kernel=k_inc_counter, header=0x1502, "
                                      "setup=1, workgroup=256,1,1"), 1);
  unlink(trace_path);
}

static void test_load_binary(void **state) {
  __tgt_target_table *t = ready_image();
  assert_int_equal(t->EntriesEnd - t->EntriesBegin, NENT);
  for (size_t i = 0; i < NENT; i++) {
    assert_string_equal(t->EntriesBegin[i].name, host_entries[i].name);
    assert_non_null(t->EntriesBegin[i].addr);
    assert_ptr_not_equal(t->EntriesBegin[i].addr, host_entries[i].addr);
  }
  assert_int_equal(t->EntriesBegin[1].size, sizeof(int));
  /* The device global holds the image's initial value. */
  int v = 0;
  assert_int_equal(P.retrieve(0, &v, t->EntriesBegin[1].addr, sizeof v), 0);
  assert_int_equal(v, 5);
  assert_logged("hsa_code_object_reader_create_from_memory");
  assert_logged("hsa_executable_create_alt(profile=1) = 0x0");
  assert_logged("hsa_executable_load_agent_code_object");
  assert_logged("hsa_executable_freeze");
  assert_logged("hsa_executable_get_symbol_by_name");
  assert_int_equal(fake_hsa_log_count(", k_add.kd) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count(", counter) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count(", dev_twice) = 0x0"), 1);
  /* KERNEL_OBJECT, KERNARG/GROUP/PRIVATE sizes for each of the 4 kernels. */
  assert_int_equal(fake_hsa_log_count("symbol_get_info(0x") -
                       fake_hsa_log_count(", 21) = 0x0"),
                   16);
  /* Order: reader, executable, load, freeze, then symbols. */
  const char *log = fake_hsa_log_text();
  const char *a = strstr(log, "hsa_code_object_reader_create_from_memory");
  const char *b = strstr(log, "hsa_executable_load_agent_code_object");
  const char *c = strstr(log, "hsa_executable_freeze");
  const char *d = strstr(log, "hsa_executable_get_symbol_by_name");
  assert_true(a < b && b < c && c < d);
}

static void test_load_errors(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  read_image(co908);
  capture_start();
  assert_null(P.load(0, &image));
  char *err = capture_end();
  assert_non_null(strstr(err, "is for mach 0x30 (gfx908), hsa device 0 is gfx906"));
  /* A kernel the code object lacks: named, and nothing leaks. */
  read_image(co906);
  __tgt_offload_entry bad[] = {{(void *)host_k_add, "no_such_kernel", 0, 0, 0}};
  image.EntriesBegin = bad;
  image.EntriesEnd = bad + 1;
  capture_start();
  assert_null(P.load(0, &image));
  err = capture_end();
  assert_non_null(strstr(err, "kernel no_such_kernel of the host entries table "
                              "not found (no symbol no_such_kernel.kd"));
  assert_logged("hsa_executable_destroy");
  /* A global the code object lacks. */
  __tgt_offload_entry badg[] = {{&host_counter, "no_such_global", 4, 0, 0}};
  image.EntriesBegin = badg;
  image.EntriesEnd = badg + 1;
  capture_start();
  assert_null(P.load(0, &image));
  err = capture_end();
  assert_non_null(strstr(err, "global no_such_global (host 0x"));
}

int main(void) {
  harness_paths();
  const struct CMUnitTest tests[] = {
      HSA_TEST(test_runtime_absent),
      HSA_TEST(test_init_fails),
      HSA_TEST(test_init_fails_level1),
      HSA_TEST(test_no_gpu),
      HSA_TEST(test_agents_and_init),
      HSA_TEST(test_valid_binary),
      HSA_TEST(test_malformed_images),
      HSA_TEST(test_load_binary),
      HSA_TEST(test_load_errors),
  };
  return cmocka_run_group_tests_name("hsa plugin: startup", tests, NULL, NULL);
}
