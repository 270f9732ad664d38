# The CUDA driver test double (libcuda.so.1, built for `make check` only,
# never installed), a device image for it (libfcdev.so, patched to EM_CUDA
# by the tests) and the cuda plugin's tests.  Included from
# src/plugins/cuda/local.mk inside `if BUILD_CUDA`.
check_LTLIBRARIES += tests/fake-cuda/libcuda.la tests/fake-cuda/libfcdev.la
tests_fake_cuda_libcuda_la_SOURCES = tests/fake-cuda/fake.h \
	tests/fake-cuda/fake_cuda.h tests/fake-cuda/fake_core.c \
	tests/fake-cuda/fake_mem.c tests/fake-cuda/fake_stream.c \
	tests/fake-cuda/fake_module.c
tests_fake_cuda_libcuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
tests_fake_cuda_libcuda_la_CFLAGS = $(AM_CFLAGS) $(LIBFFI_CFLAGS)
tests_fake_cuda_libcuda_la_LIBADD = $(LIBFFI_LIBS) $(PTHREAD_LIBS) $(LIBS)
# -rpath makes libtool build a real shared library; 1:0:0 gives the SONAME
# libcuda.so.1 the plugin asks for.
tests_fake_cuda_libcuda_la_LDFLAGS = -shared -rpath /nowhere -version-info 1:0:0

# A driver too old for the plugin: only cuInit.
check_LTLIBRARIES += tests/fake-cuda/stub/libcuda.la
tests_fake_cuda_stub_libcuda_la_SOURCES = tests/fake-cuda/stub/stub.c
tests_fake_cuda_stub_libcuda_la_LDFLAGS = -shared -rpath /nowhere -version-info 1:0:0

tests_fake_cuda_libfcdev_la_SOURCES = tests/fake-cuda/fc_kernels.c
tests_fake_cuda_libfcdev_la_LDFLAGS = -module -shared -avoid-version -rpath /nowhere

# The plugin's cmocka tests, one program per concern, sharing harness.c.
fake_cuda_tests = tests/fake-cuda/test_cuda_driver tests/fake-cuda/test_cuda_memory \
	tests/fake-cuda/test_cuda_module tests/fake-cuda/test_cuda_launch \
	tests/fake-cuda/test_cuda_streams tests/fake-cuda/test_cuda_calls \
	tests/fake-cuda/test_cuda_staging tests/fake-cuda/test_cuda_locks
check_PROGRAMS += $(fake_cuda_tests) tests/fake-cuda/fake-cuda-image
TESTS += $(fake_cuda_tests) tests/fake-cuda/e2e.sh tests/fake-cuda/lock-lint.sh
EXTRA_DIST += tests/fake-cuda/e2e.sh tests/fake-cuda/calls.host.c \
	tests/fake-cuda/calls.dev.c tests/fake-cuda/lock-lint.sh
fake_cuda_test_cppflags = $(AM_CPPFLAGS) \
	-DFAKE_CUDA_LIBDIR='"$(abs_top_builddir)/tests/fake-cuda/.libs"' \
	-DOMPEMU_LIBDIR='"$(abs_top_builddir)/.libs"' \
	-DLLVM14_PLUGIN_DIR='"$(LLVM14_LIBDIR)"'
fake_cuda_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
fake_cuda_test_ldadd = $(CMOCKA_LIBS) $(PTHREAD_LIBS) $(LIBS)
fake_cuda_test_deps = libomptarget.rtl.cuda.la tests/fake-cuda/libcuda.la \
	tests/fake-cuda/libfcdev.la tests/fake-cuda/stub/libcuda.la
fake_cuda_harness = tests/fake-cuda/harness.c tests/fake-cuda/harness.h \
	tests/fake-cuda/fake_cuda.h
tests_fake_cuda_test_cuda_driver_SOURCES = tests/fake-cuda/test_cuda_driver.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_driver_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_driver_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_driver_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_driver_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_memory_SOURCES = tests/fake-cuda/test_cuda_memory.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_memory_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_memory_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_memory_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_memory_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_module_SOURCES = tests/fake-cuda/test_cuda_module.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_module_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_module_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_module_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_module_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_launch_SOURCES = tests/fake-cuda/test_cuda_launch.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_launch_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_launch_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_launch_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_launch_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_streams_SOURCES = tests/fake-cuda/test_cuda_streams.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_streams_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_streams_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_streams_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_streams_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_calls_SOURCES = tests/fake-cuda/test_cuda_calls.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_calls_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_calls_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_calls_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_calls_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_staging_SOURCES = tests/fake-cuda/test_cuda_staging.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_staging_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_staging_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_staging_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_staging_DEPENDENCIES = $(fake_cuda_test_deps)
tests_fake_cuda_test_cuda_locks_SOURCES = tests/fake-cuda/test_cuda_locks.c $(fake_cuda_harness)
tests_fake_cuda_test_cuda_locks_CPPFLAGS = $(fake_cuda_test_cppflags)
tests_fake_cuda_test_cuda_locks_CFLAGS = $(fake_cuda_test_cflags)
tests_fake_cuda_test_cuda_locks_LDADD = $(fake_cuda_test_ldadd)
EXTRA_tests_fake_cuda_test_cuda_locks_DEPENDENCIES = $(fake_cuda_test_deps)

# Patches a host shared object into a test "cubin" (EM_CUDA + SM flags).
tests_fake_cuda_fake_cuda_image_SOURCES = tests/fake-cuda/fake-cuda-image.c
