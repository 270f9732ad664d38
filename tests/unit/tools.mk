# Tests of ompemu-wrap and ompemu-dump: TAP shell scripts in tests/tools/
# (readelf checks of the wrapper object, linking it into executables and a
# shared library against a stub runtime, dump of gcc and clang 14 fat
# binaries, malformed inputs, valgrind).
TESTS += tests/tools/wrap.sh tests/tools/dump.sh
EXTRA_DIST += tests/tools/wrap.sh tests/tools/dump.sh \
	tests/tools/stubrt.c tests/tools/stubhost.c
clean-local: clean-tools-tests
clean-tools-tests:
	-rm -rf tests/tools/work-wrap tests/tools/work-dump
.PHONY: clean-tools-tests
