# Hand-lowered offload programs built with gcc only (host C + device C +
# ompemu-wrap), run on a libomptarget by tests/lowered/run.sh (TAP).
TESTS += tests/lowered/run.sh tests/lowered/run-llvm14.sh
EXTRA_DIST += tests/lowered/README.md tests/lowered/run.sh \
	tests/lowered/run-llvm14.sh tests/lowered/lowered.h \
	tests/lowered/hello.host.c tests/lowered/hello.dev.c \
	tests/lowered/global.host.c tests/lowered/global.dev.c \
	tests/lowered/struct.host.c tests/lowered/struct.dev.c \
	tests/lowered/desc.host.c tests/lowered/desc.dev.c \
	tests/lowered/refcount.host.c tests/lowered/refcount.dev.c \
	tests/lowered/literal.host.c tests/lowered/literal.dev.c \
	tests/lowered/globalsize.host.c tests/lowered/globalsize.dev.c \
	tests/lowered/kernelsize.host.c tests/lowered/kernelsize.dev.c \
	tests/lowered/dsolib.host.c tests/lowered/dsolib.dev.c \
	tests/lowered/dsomain.c
clean-local: clean-lowered
clean-lowered:
	-rm -rf tests/lowered/work-ompemu tests/lowered/work-llvm14
.PHONY: clean-lowered
include tests/lowered/fptr/fptr.mk
include tests/lowered/descfull/descfull.mk
include tests/lowered/wild/wild.mk
