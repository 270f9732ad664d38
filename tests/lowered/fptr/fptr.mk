# Declare-target-indirect tests (issue 6): gcc + ompemu-wrap only.
# (The cuda and hsa test doubles reuse these sources.)
TESTS += tests/lowered/fptr/run.sh
EXTRA_DIST += tests/lowered/fptr/run.sh tests/lowered/fptr/gen.sh \
	tests/lowered/fptr/device_kernels.c tests/lowered/fptr/host_kernels.c \
	tests/lowered/fptr/fptr_main.c
# Hooked without a recipe so other fragments can hook clean-local too.
clean-local: clean-fptr-tests
clean-fptr-tests:
	-rm -rf tests/lowered/fptr/*.so tests/lowered/fptr/*.o tests/lowered/fptr/*.out \
	  tests/lowered/fptr/*.txt tests/lowered/fptr/build.log \
	  tests/lowered/fptr/f_*.c tests/lowered/fptr/g_*.c \
	  tests/lowered/fptr/one tests/lowered/fptr/three tests/lowered/fptr/many \
	  tests/lowered/fptr/notfound tests/lowered/fptr/devs tests/lowered/fptr/thr \
	  tests/lowered/fptr/main
.PHONY: clean-fptr-tests
