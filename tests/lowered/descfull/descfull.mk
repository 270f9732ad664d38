# Hand-lowered descriptor tests (issue 7): ranks 1-3, addendum, both orders.
TESTS += tests/lowered/descfull/run.sh
EXTRA_DIST += tests/lowered/descfull/run.sh tests/lowered/descfull/desc.h \
	tests/lowered/descfull/dev.c tests/lowered/descfull/host.c
clean-local: clean-descfull-tests
clean-descfull-tests:
	-rm -f tests/lowered/descfull/dev.so tests/lowered/descfull/wrap.o \
	  tests/lowered/descfull/desc tests/lowered/descfull/build.log \
	  tests/lowered/descfull/case*.out
.PHONY: clean-descfull-tests
