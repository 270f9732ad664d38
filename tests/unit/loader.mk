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
EXTRA_DIST += tests/unit/images/good.c tests/unit/images/tls.c \
	tests/unit/images/undef.c tests/unit/images/rtlonly.c
