# Tests of ompemu-wrap and ompemu-dump: TAP shell scripts in tests/tools/
# (readelf checks of the wrapper object, linking it into executables and a
# shared library against a stub runtime, dump of gcc and clang 14 fat
# binaries, malformed inputs, valgrind).
TESTS += tests/tools/wrap.sh tests/tools/dump.sh
EXTRA_DIST += tests/tools/wrap.sh tests/tools/dump.sh \
	tests/tools/stubrt.c tests/tools/stubhost.c tests/tools/mutate.c
clean-local: clean-tools-tests
clean-tools-tests:
	-rm -rf tests/tools/work-wrap tests/tools/work-dump
.PHONY: clean-tools-tests

# cmocka unit tests of the tools' modules.
check_PROGRAMS += tests/unit/test_wrap tests/unit/test_dump
TESTS += tests/unit/test_wrap tests/unit/test_dump
tests_unit_test_wrap_SOURCES = tests/unit/test_wrap.c \
	src/tools/wrap/args.c src/tools/wrap/layout.c src/tools/wrap/x86_64.c \
	src/tools/wrap/elfwriter.c
tests_unit_test_wrap_CFLAGS = $(unit_cflags) $(LIBELF_CFLAGS)
tests_unit_test_wrap_LDADD = $(LIBELF_LIBS) $(unit_ldadd)
tests_unit_test_dump_SOURCES = tests/unit/test_dump.c \
	src/tools/dump/elfview.c src/tools/dump/fatbin.c \
	src/tools/dump/devimage.c src/tools/dump/output.c src/tools/dump/notes.c \
	src/runtime/image_format.c src/runtime/entry_table.c \
	src/runtime/image_symbols.c
tests_unit_test_dump_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime
tests_unit_test_dump_CFLAGS = $(unit_cflags) $(LIBELF_CFLAGS)
tests_unit_test_dump_LDADD = $(LIBELF_LIBS) $(unit_ldadd)
