# Test double of the HSA runtime: libhsa-runtime64.so.1 built for the tests
# only (check_LTLIBRARIES, never installed), fake code objects, and the hsa
# plugin's tests.  Included from src/plugins/hsa/local.mk inside BUILD_HSA.
check_LTLIBRARIES += tests/fake-hsa/libhsa-runtime64.la
tests_fake_hsa_libhsa_runtime64_la_SOURCES = \
	tests/fake-hsa/fake_hsa.h tests/fake-hsa/fake_internal.h \
	tests/fake-hsa/core.c tests/fake-hsa/memory.c \
	tests/fake-hsa/queue.c tests/fake-hsa/executable.c
tests_fake_hsa_libhsa_runtime64_la_CPPFLAGS = $(AM_CPPFLAGS) $(HSA_CPPFLAGS)
tests_fake_hsa_libhsa_runtime64_la_LIBADD = $(PTHREAD_LIBS) $(LIBS)
# -rpath makes libtool build a shared library for a check-only target;
# -version-info 1:0:0 gives it the soname libhsa-runtime64.so.1.
# -Bsymbolic-functions: the double's own calls stay inside it even when
# another copy is loaded (the noamd variant below, next to the linked one).
tests_fake_hsa_libhsa_runtime64_la_LDFLAGS = -shared -version-info 1:0:0 \
	-rpath $(abs_builddir)/tests/fake-hsa -Wl,-z,defs -Wl,-Bsymbolic-functions

# The same double without the hsa_amd_* exports, loaded by path
# (OMPEMU_HSA_LIBRARY) to check that the plugin degrades to core HSA.
check_LTLIBRARIES += tests/fake-hsa/libhsa-noamd.la
tests_fake_hsa_libhsa_noamd_la_SOURCES = $(tests_fake_hsa_libhsa_runtime64_la_SOURCES)
tests_fake_hsa_libhsa_noamd_la_CPPFLAGS = $(tests_fake_hsa_libhsa_runtime64_la_CPPFLAGS)
tests_fake_hsa_libhsa_noamd_la_LIBADD = $(tests_fake_hsa_libhsa_runtime64_la_LIBADD)
tests_fake_hsa_libhsa_noamd_la_LDFLAGS = -shared -avoid-version \
	-rpath $(abs_builddir)/tests/fake-hsa -Wl,-z,defs -Wl,-Bsymbolic-functions \
	-Wl,--version-script=$(top_srcdir)/tests/fake-hsa/noamd.map
EXTRA_tests_fake_hsa_libhsa_noamd_la_DEPENDENCIES = $(top_srcdir)/tests/fake-hsa/noamd.map

fake_hsa_co = tests/fake-hsa/kernels-gfx906.co tests/fake-hsa/kernels-gfx908.co
CLEANFILES += $(fake_hsa_co)
tests/fake-hsa/kernels-%.co: $(top_srcdir)/tests/fake-hsa/test_kernels.c $(top_srcdir)/tests/fake-hsa/mk-code-object.sh
	@$(MKDIR_P) tests/fake-hsa
	$(AM_V_GEN)CC='$(CC)' $(SHELL) $(top_srcdir)/tests/fake-hsa/mk-code-object.sh $@ $* $(top_srcdir)/tests/fake-hsa/test_kernels.c

# The plugin's cmocka tests, one program per concern, sharing harness.c.
fake_hsa_tests = tests/fake-hsa/test_hsa_startup tests/fake-hsa/test_hsa_memory \
	tests/fake-hsa/test_hsa_dispatch tests/fake-hsa/test_hsa_reuse
check_PROGRAMS += $(fake_hsa_tests)
TESTS += $(fake_hsa_tests) tests/fake-hsa/hsa-real-runtime.sh \
	tests/fake-hsa/hsa-lowered.sh
fake_hsa_harness = tests/fake-hsa/harness.c tests/fake-hsa/harness.h
fake_hsa_test_cppflags = $(AM_CPPFLAGS) $(HSA_CPPFLAGS)
fake_hsa_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
fake_hsa_test_ldadd = tests/fake-hsa/libhsa-runtime64.la \
	$(CMOCKA_LIBS) $(PTHREAD_LIBS) $(LIBS)
# The plugin too: a relink of libomptarget.la during `make check` removes
# .libs/libomptarget.*, this plugin included, and this relinks it.
fake_hsa_test_deps = $(fake_hsa_co) libomptarget.rtl.hsa.la \
	tests/fake-hsa/libhsa-noamd.la
tests_fake_hsa_test_hsa_startup_SOURCES = tests/fake-hsa/test_hsa_startup.c $(fake_hsa_harness)
tests_fake_hsa_test_hsa_startup_CPPFLAGS = $(fake_hsa_test_cppflags)
tests_fake_hsa_test_hsa_startup_CFLAGS = $(fake_hsa_test_cflags)
tests_fake_hsa_test_hsa_startup_LDADD = $(fake_hsa_test_ldadd)
EXTRA_tests_fake_hsa_test_hsa_startup_DEPENDENCIES = $(fake_hsa_test_deps)
tests_fake_hsa_test_hsa_memory_SOURCES = tests/fake-hsa/test_hsa_memory.c $(fake_hsa_harness)
tests_fake_hsa_test_hsa_memory_CPPFLAGS = $(fake_hsa_test_cppflags)
tests_fake_hsa_test_hsa_memory_CFLAGS = $(fake_hsa_test_cflags)
tests_fake_hsa_test_hsa_memory_LDADD = $(fake_hsa_test_ldadd)
EXTRA_tests_fake_hsa_test_hsa_memory_DEPENDENCIES = $(fake_hsa_test_deps)
tests_fake_hsa_test_hsa_dispatch_SOURCES = tests/fake-hsa/test_hsa_dispatch.c $(fake_hsa_harness)
tests_fake_hsa_test_hsa_dispatch_CPPFLAGS = $(fake_hsa_test_cppflags)
tests_fake_hsa_test_hsa_dispatch_CFLAGS = $(fake_hsa_test_cflags)
tests_fake_hsa_test_hsa_dispatch_LDADD = $(fake_hsa_test_ldadd)
EXTRA_tests_fake_hsa_test_hsa_dispatch_DEPENDENCIES = $(fake_hsa_test_deps)
tests_fake_hsa_test_hsa_reuse_SOURCES = tests/fake-hsa/test_hsa_reuse.c $(fake_hsa_harness)
tests_fake_hsa_test_hsa_reuse_CPPFLAGS = $(fake_hsa_test_cppflags)
tests_fake_hsa_test_hsa_reuse_CFLAGS = $(fake_hsa_test_cflags)
tests_fake_hsa_test_hsa_reuse_LDADD = $(fake_hsa_test_ldadd)
EXTRA_tests_fake_hsa_test_hsa_reuse_DEPENDENCIES = $(fake_hsa_test_deps)
check_PROGRAMS += tests/fake-hsa/rtl_probe
tests_fake_hsa_rtl_probe_SOURCES = tests/fake-hsa/rtl_probe.c
tests_fake_hsa_rtl_probe_LDADD = $(LIBS)
