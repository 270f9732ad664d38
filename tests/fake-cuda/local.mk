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

check_PROGRAMS += tests/fake-cuda/test_cuda_plugin tests/fake-cuda/fake-cuda-image
TESTS += tests/fake-cuda/test_cuda_plugin tests/fake-cuda/e2e.sh
EXTRA_DIST += tests/fake-cuda/e2e.sh
tests_fake_cuda_test_cuda_plugin_SOURCES = tests/fake-cuda/test_cuda_plugin.c \
	tests/fake-cuda/fake_cuda.h
tests_fake_cuda_test_cuda_plugin_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFAKE_CUDA_LIBDIR='"$(abs_top_builddir)/tests/fake-cuda/.libs"' \
	-DOMPEMU_LIBDIR='"$(abs_top_builddir)/.libs"' \
	-DLLVM14_PLUGIN_DIR='"$(LLVM14_LIBDIR)"'
tests_fake_cuda_test_cuda_plugin_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_fake_cuda_test_cuda_plugin_LDADD = $(CMOCKA_LIBS) $(PTHREAD_LIBS) $(LIBS)
EXTRA_tests_fake_cuda_test_cuda_plugin_DEPENDENCIES = libomptarget.rtl.cuda.la \
	tests/fake-cuda/libcuda.la tests/fake-cuda/libfcdev.la \
	tests/fake-cuda/stub/libcuda.la

# Patches a host shared object into a test "cubin" (EM_CUDA + SM flags).
tests_fake_cuda_fake_cuda_image_SOURCES = tests/fake-cuda/fake-cuda-image.c
