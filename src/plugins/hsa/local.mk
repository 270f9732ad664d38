# libomptarget.rtl.hsa.so: the optional HSA (AMD GPU) plugin, built when
# configure finds hsa/hsa.h.  It dlopens libhsa-runtime64.so.1 at run time
# and never links against it.  Its test double and tests follow.
if BUILD_HSA
pkglib_LTLIBRARIES += libomptarget.rtl.hsa.la
libomptarget_rtl_hsa_la_SOURCES = \
	src/plugins/hsa/hsa_plugin.h \
	src/plugins/hsa/runtime.c \
	src/plugins/hsa/agents.c \
	src/plugins/hsa/memory.c \
	src/plugins/hsa/async.c \
	src/plugins/hsa/reuse.c \
	src/plugins/hsa/code_object.c \
	src/plugins/hsa/elf_sym.c \
	src/plugins/hsa/dispatch.c \
	src/plugins/hsa/errors.c
libomptarget_rtl_hsa_la_CPPFLAGS = $(AM_CPPFLAGS) $(HSA_CPPFLAGS)
libomptarget_rtl_hsa_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libomptarget_rtl_hsa_la_LIBADD = src/common/libompemu_common.la $(PTHREAD_LIBS) $(LIBS)
libomptarget_rtl_hsa_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/plugins/hsa/plugin.map -Wl,-z,defs
# libtool's link of libomptarget.la removes .libs/libomptarget.*, this
# plugin's .so included: link after it.
EXTRA_libomptarget_rtl_hsa_la_DEPENDENCIES = $(top_srcdir)/src/plugins/hsa/plugin.map \
	libomptarget.la

include tests/fake-hsa/local.mk
endif
EXTRA_DIST += src/plugins/hsa/plugin.map src/plugins/hsa/README.md tests/gpu/run-hsa.sh
EXTRA_DIST += tests/fake-hsa/mk-code-object.sh tests/fake-hsa/test_kernels.c \
	tests/fake-hsa/noamd.map \
	tests/fake-hsa/hsa-real-runtime.sh tests/fake-hsa/hsa-lowered.sh
# Hooked without a recipe, outside the conditional, like the other
# fragments' clean-local hooks.
clean-local: clean-fake-hsa
clean-fake-hsa:
	-rm -rf tests/fake-hsa/work tests/fake-hsa/work-real
.PHONY: clean-fake-hsa
