# Unit test of the emu device's ELF loader: builds small images with $(CC)
# while it runs (sources in tests/unit/images/).
check_PROGRAMS += tests/unit/test_loader
TESTS += tests/unit/test_loader
tests_unit_test_loader_SOURCES = tests/unit/test_loader.c \
	$(emu_loader_sources) $(emu_arena_sources)
tests_unit_test_loader_CPPFLAGS = $(AM_CPPFLAGS) $(emu_cppflags)
tests_unit_test_loader_CFLAGS = $(unit_cflags) $(LIBELF_CFLAGS)
tests_unit_test_loader_LDADD = src/common/libompemu_common.la $(LIBELF_LIBS) \
	$(unit_ldadd) $(LIBS)
EXTRA_DIST += tests/unit/images/good.c tests/unit/images/tls.c tests/unit/images/noexport.c \
	tests/unit/images/undef.c tests/unit/images/rtlonly.c \
	tests/unit/images/odd.c tests/unit/images/dep.c tests/unit/images/needs.c \
	tests/unit/images/oldver.c

# Hand-test driver (also used by loader_gdb.sh and loader_compilers.sh):
# load an image with the real device runtime, list its entries, call a
# function.
check_PROGRAMS += tests/unit/loader_try
tests_unit_loader_try_SOURCES = tests/unit/loader_try.c \
	$(emu_loader_sources) $(emu_arena_sources) \
	src/plugins/emu/devicertl.c src/plugins/emu/devctx.c \
	src/plugins/emu/devicertl_flang.c src/plugins/emu/devicertl_league.c \
	src/plugins/emu/devicertl_loops.c src/plugins/emu/devicertl_omp.c
tests_unit_loader_try_CPPFLAGS = $(tests_unit_test_loader_CPPFLAGS)
tests_unit_loader_try_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBFFI_CFLAGS)
tests_unit_loader_try_LDADD = src/common/libompemu_common.la $(LIBELF_LIBS) \
	$(LIBFFI_LIBS) $(PTHREAD_LIBS) $(LIBS)

TESTS += tests/unit/loader_gdb.sh
EXTRA_DIST += tests/unit/loader_gdb.sh

# The loader on device images built by clang 16/19/22 and flang 22 (each
# skipped when absent).
TESTS += tests/unit/loader_compilers.sh
EXTRA_DIST += tests/unit/loader_compilers.sh tests/unit/images/compilers/probe.c \
	tests/unit/images/compilers/probe.cpp tests/unit/images/compilers/probe.f90
clean-local: clean-loader-compilers
clean-loader-compilers:
	-rm -rf tests/unit/work-compilers
.PHONY: clean-loader-compilers
