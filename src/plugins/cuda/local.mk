# libomptarget.rtl.cuda.so: the optional CUDA driver API plugin, built when
# configure finds cuda.h (BUILD_CUDA).  It dlopens libcuda.so.1 at run time:
# cuda.h is used for types only and nothing links against libcuda.
# Its test double (tests/fake-cuda) and tests are listed in
# tests/fake-cuda/local.mk.
EXTRA_DIST += src/plugins/cuda/plugin.map src/plugins/cuda/README.md \
	tests/gpu/run-cuda.sh tests/gpu/lowered-lib.sh tests/gpu/bench-table.sh
if BUILD_CUDA
pkglib_LTLIBRARIES += libomptarget.rtl.cuda.la
libomptarget_rtl_cuda_la_SOURCES = src/plugins/cuda/cuda_rtl.h \
	src/plugins/cuda/driver.c src/plugins/cuda/device.c \
	src/plugins/cuda/memory.c src/plugins/cuda/module.c \
	src/plugins/cuda/launch.c src/plugins/cuda/events.c \
	src/plugins/cuda/errors.c src/plugins/cuda/streams.c \
	src/plugins/cuda/pool.c src/plugins/cuda/staging.c
libomptarget_rtl_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS)
libomptarget_rtl_cuda_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libomptarget_rtl_cuda_la_LIBADD = src/common/libompemu_common.la $(PTHREAD_LIBS) $(LIBS)
libomptarget_rtl_cuda_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/plugins/cuda/plugin.map -Wl,-z,defs
# libtool's link of libomptarget.la deletes .libs/libomptarget.* (its
# libname.*), which includes this plugin's .so: link after it.
EXTRA_libomptarget_rtl_cuda_la_DEPENDENCIES = $(top_srcdir)/src/plugins/cuda/plugin.map \
	libomptarget.la
include tests/fake-cuda/local.mk
endif
# Work directories of tests/fake-cuda/e2e.sh and tests/gpu/run-cuda.sh.
clean-local: clean-cuda-tests
clean-cuda-tests:
	-rm -rf tests/fake-cuda/work tests/gpu/work
.PHONY: clean-cuda-tests
