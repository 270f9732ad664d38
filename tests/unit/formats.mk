# Unit tests of the format readers for clang 16+ and flang 22 binaries
# (device images, entry tables, KernelArgs) and of the foreign-runtime
# guard, on the new src/runtime files they test.
check_PROGRAMS += tests/unit/test_formats tests/unit/test_foreign_runtime
TESTS += tests/unit/test_formats tests/unit/test_foreign_runtime
tests_unit_test_formats_SOURCES = tests/unit/test_formats.c \
	tests/unit/format_samples.h \
	src/runtime/image_format.c src/runtime/image_format.h src/runtime/readbytes.h \
	src/runtime/entry_table.c src/runtime/entry_table.h \
	src/runtime/kernel_args.c src/runtime/kernel_args.h
tests_unit_test_formats_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime
tests_unit_test_formats_CFLAGS = $(unit_cflags)
tests_unit_test_formats_LDADD = $(unit_ldadd)

# A stand-in runtime the test loads under LLVM's names.
check_LTLIBRARIES += tests/unit/libforeignstub.la
tests_unit_libforeignstub_la_SOURCES = tests/unit/foreign_stub.c \
	src/runtime/foreign_runtime.c src/runtime/foreign_runtime.h
tests_unit_libforeignstub_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime
tests_unit_libforeignstub_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_unit_libforeignstub_la_LIBADD = src/common/libompemu_common.la $(LIBS)
tests_unit_libforeignstub_la_LDFLAGS = -module -avoid-version -shared \
	-rpath $(abs_builddir)

tests_unit_test_foreign_runtime_SOURCES = tests/unit/test_foreign_runtime.c \
	src/runtime/foreign_runtime.c src/runtime/foreign_runtime.h
tests_unit_test_foreign_runtime_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime
tests_unit_test_foreign_runtime_CFLAGS = $(unit_cflags)
tests_unit_test_foreign_runtime_LDADD = src/common/libompemu_common.la \
	$(unit_ldadd) $(LIBS)
EXTRA_tests_unit_test_foreign_runtime_DEPENDENCIES = tests/unit/libforeignstub.la
