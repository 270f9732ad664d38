# Unit test of the emu device's ELF loader: builds small images with $(CC)
# while it runs (sources in tests/unit/images/).
check_PROGRAMS += tests/unit/test_loader
TESTS += tests/unit/test_loader
tests_unit_test_loader_SOURCES = tests/unit/test_loader.c \
	$(emu_loader_sources) emu-device/arena.c emu-device/arena.h
tests_unit_test_loader_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/emu-device
tests_unit_test_loader_CFLAGS = $(unit_cflags) $(LIBELF_CFLAGS)
tests_unit_test_loader_LDADD = src/common/libompemu_common.la $(LIBELF_LIBS) \
	$(unit_ldadd) $(LIBS)
EXTRA_DIST += tests/unit/images/good.c tests/unit/images/tls.c tests/unit/images/noexport.c \
	tests/unit/images/undef.c tests/unit/images/rtlonly.c \
	tests/unit/images/odd.c tests/unit/images/dep.c tests/unit/images/needs.c \
	tests/unit/images/oldver.c

# Hand-test driver (also used by loader_gdb.sh): load an image, list its
# entries, call a function.
check_PROGRAMS += tests/unit/loader_try
tests_unit_loader_try_SOURCES = tests/unit/loader_try.c \
	$(emu_loader_sources) emu-device/arena.c emu-device/arena.h
tests_unit_loader_try_CPPFLAGS = $(tests_unit_test_loader_CPPFLAGS)
tests_unit_loader_try_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
tests_unit_loader_try_LDADD = src/common/libompemu_common.la $(LIBELF_LIBS) \
	$(PTHREAD_LIBS) $(LIBS)

TESTS += tests/unit/loader_gdb.sh
EXTRA_DIST += tests/unit/loader_gdb.sh
