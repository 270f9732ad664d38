/* Driver loading and start-up of the cuda plugin: no driver, a driver
 * too old, cuInit failing (the note quiet or shown), devices and primary
 * contexts, and LLVM 14's own cuda plugin reporting 0 devices. */
#define _GNU_SOURCE
#include "harness.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static void c_no_driver(void) {
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    _exit(77); /* a driver is installed here: nothing to test */
  load(0);
  CHECK(P.number_of_devices() == 0);
  /* OMPEMU_TRACE=1: what happened, not a fault; the details at 2. */
  CHECK(strcmp(errtext(), "cuda: no devices (driver not found)\n") == 0);
  __tgt_device_image img = {host_kernels, host_kernels + 8, NULL, NULL};
  CHECK(P.is_valid_binary(&img) == 0);
  CHECK(P.init_device(0) == OFFLOAD_FAIL);
  CHECK(P.data_alloc(0, 8, NULL, 0) == NULL);
}

/* A libcuda.so.1 without the functions the plugin needs. */
static void c_old_driver(void) {
  real_stderr = stderr;
  CHECK(dlopen(FAKE_CUDA_LIBDIR "/../stub/.libs/libcuda.so.1", RTLD_NOW | RTLD_GLOBAL));
  load(0);
  CHECK(P.number_of_devices() == 0);
  CHECK(strstr(errtext(), "cuda: no devices (driver too old)\n"));
  CHECK(strstr(errtext(), "cuda: libcuda.so.1 lacks cuDriverGetVersion\n"));
  CHECK(P.init_device(0) == OFFLOAD_FAIL);
}

static void c_init_fail(void) {
  load(1);
  CHECK(P.number_of_devices() == 0);
  CHECK(log_count("cuInit flags=0") == 1);
  CHECK(log_count("cuDeviceGetCount") == 0);
  /* OMPEMU_TRACE=1 on a machine without a GPU: one line that reads as a
   * fact, not as an error in the user's program. */
  CHECK(strcmp(errtext(), "cuda: no devices (no CUDA device)\n") == 0);
}

/* OMPEMU_TRACE=2: the driver's own words follow. */
static void c_init_fail_details(void) {
  load(1);
  CHECK(P.number_of_devices() == 0);
  CHECK(strcmp(errtext(), "cuda: no devices (no CUDA device)\n"
                          "cuda: cuInit(0) returned CUDA_ERROR_NO_DEVICE (no "
                          "CUDA-capable device is detected)\n") == 0);
}

/* A driver with no devices at all. */
static void c_zero_devices(void) {
  load(1);
  CHECK(P.number_of_devices() == 0);
  CHECK(strcmp(errtext(), "cuda: no devices (no CUDA device)\n"
                          "cuda: driver 12.4: cuDeviceGetCount returned 0 "
                          "devices\n") == 0);
}

/* OMPEMU_TRACE=0: the note shows only when cuda was asked for by name. */
static void c_init_fail_quiet(void) {
  load(1); /* OMPEMU_PLUGINS="emu, cuda?" */
  CHECK(P.number_of_devices() == 0);
  CHECK(strcmp(errtext(), "") == 0);
}

static void c_init_fail_asked(void) {
  load(1); /* OMPEMU_PLUGINS="emu, cuda" */
  CHECK(P.number_of_devices() == 0);
  /* Asked for by name: the note and its details show at level 0. */
  CHECK(strcmp(errtext(), "cuda: no devices (no CUDA device)\n"
                          "cuda: cuInit(0) returned CUDA_ERROR_NO_DEVICE (no "
                          "CUDA-capable device is detected)\n") == 0);
}

static void c_devices(void) {
  load(1);
  CHECK(P.number_of_devices() == 2);
  CHECK(strstr(errtext(), "cuda: device 1: Fake CUDA Device 1, sm_75, 4 SMs"));
  CHECK(P.data_alloc(0, 8, NULL, 0) == NULL); /* before init_device */
  CHECK(strstr(errtext(), "data_alloc: device 0 is not initialised"));
  CHECK(P.init_device(0) == OFFLOAD_SUCCESS);
  CHECK(P.init_device(1) == OFFLOAD_SUCCESS);
  CHECK(P.init_device(0) == OFFLOAD_SUCCESS); /* idempotent */
  CHECK(P.init_device(2) == OFFLOAD_FAIL);
  CHECK(log_count("cuDevicePrimaryCtxRetain dev=0 refs=1") == 1);
  CHECK(log_count("cuDevicePrimaryCtxRetain dev=1 refs=1") == 1);
  CHECK(log_count("cuDevicePrimaryCtxRetain") == 2);
  /* Each device's memory comes from its own range. */
  void *a = P.data_alloc(0, 8, NULL, TARGET_ALLOC_DEFAULT);
  void *b = P.data_alloc(1, 8, NULL, TARGET_ALLOC_DEFAULT);
  CHECK(a == (void *)0x5c0000000000UL);
  CHECK(b == (void *)0x5d0000000000UL);
}

static void c_llvm14_cuda(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/libomptarget.rtl.cuda.so", LLVM14_PLUGIN_DIR);
  if (access(path, R_OK) != 0 || dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    _exit(77);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    _exit(1);
  }
  int32_t (*nd)(void) = (int32_t(*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  if (!nd || nd() != 0)
    _exit(1);
}

CASE(no_driver)
CASE(old_driver, "OMPEMU_TRACE", "2", )
CASE(init_fail, "FAKE_CUDA_INIT_FAIL", "1", )
CASE(init_fail_details, "FAKE_CUDA_INIT_FAIL", "1", "OMPEMU_TRACE", "2", )
CASE(zero_devices, "FAKE_CUDA_NUM_DEVICES", "0", "OMPEMU_TRACE", "2", )
CASE(init_fail_quiet, "FAKE_CUDA_INIT_FAIL", "1", "OMPEMU_TRACE", "0",
     "OMPEMU_PLUGINS", "emu, cuda?", )
CASE(init_fail_asked, "FAKE_CUDA_INIT_FAIL", "1", "OMPEMU_TRACE", "0",
     "OMPEMU_PLUGINS", "emu, cuda", )
CASE(devices, "FAKE_CUDA_NUM_DEVICES", "2", "FAKE_CUDA_CC", "75", )
CASE(llvm14_cuda)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_no_driver),
      cmocka_unit_test(t_old_driver),
      cmocka_unit_test(t_init_fail),
      cmocka_unit_test(t_init_fail_details),
      cmocka_unit_test(t_zero_devices),
      cmocka_unit_test(t_init_fail_quiet),
      cmocka_unit_test(t_init_fail_asked),
      cmocka_unit_test(t_devices),
      cmocka_unit_test(t_llvm14_cuda),
  };
  return cmocka_run_group_tests_name("cuda plugin: driver", tests, NULL, NULL);
}
