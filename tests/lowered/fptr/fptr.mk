# Declare-target-indirect tests (issue 6): gcc + ompemu-wrap only.
# (The cuda and hsa test doubles reuse these sources.)
TESTS += tests/lowered/fptr/run.sh
EXTRA_DIST += tests/lowered/fptr/run.sh tests/lowered/fptr/gen.sh \
	tests/lowered/fptr/device_kernels.c tests/lowered/fptr/host_kernels.c \
	tests/lowered/fptr/fptr_main.c
