# Descriptors, locations and map names with unreadable pointers.
TESTS += tests/lowered/wild/run.sh
EXTRA_DIST += tests/lowered/wild/run.sh tests/lowered/wild/host.c
clean-local: clean-wild-tests
clean-wild-tests:
	-rm -f tests/lowered/wild/hello.dev.so tests/lowered/wild/wild \
	  tests/lowered/wild/build.log tests/lowered/wild/*.out
.PHONY: clean-wild-tests
