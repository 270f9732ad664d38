# tests/llvm: LLVM's own libomptarget test suites, run with LLVM's lit
# against ompemu's runtime and emu plugin: LLVM 14.0.6's (`make check-llvm`,
# built by clang-14) and, built by the compilers people use today, LLVM
# 19.1.7's and 22.1.8's offload/test (`make check-llvm-19`,
# `make check-llvm-22`, or `make check-llvm LLVM_VERSION=N`), with LLVM
# N's libomp and the private runtime trees of tests/compilers/provision.sh.
# The test trees come from Debian's llvm-toolchain-N source packages
# (tests/llvm/fetch-llvm-tests.sh, needs network and apt once) and are
# cached in $(OMPEMU_LLVM_SRC_CACHE) (default ~/.cache/ompemu).  Every test
# listed in tests/llvm/expected-pass.txt (14) or expected-pass-N.txt (those
# that pass on LLVM N's own runtime, less the ones whose comments say why
# ompemu cannot) must pass; `make check-llvm-baseline` reruns a suite on
# LLVM's own runtime.  A missing compiler or tree is a SKIP line.
LLVM_SUITE_LISTS = tests/llvm/expected-pass.txt tests/llvm/expected-pass-19.txt \
	tests/llvm/expected-pass-22.txt
EXTRA_DIST += tests/llvm/fetch-llvm-tests.sh tests/llvm/run-llvm-suite.sh \
	tests/llvm/lit.site.cfg.in $(LLVM_SUITE_LISTS)

LLVM_VERSION = 14
llvm_suite_env = OMPEMU_BUILDDIR='$(abs_top_builddir)' \
	OMPEMU_SRCDIR='$(abs_top_srcdir)' CLANG14='$(CLANG14)' \
	CLANG19='$(CLANG19)' CLANG22='$(CLANG22)' \
	LLVM14_LIBDIR='$(LLVM14_LIBDIR)'
llvm_suite_list = $(top_srcdir)/tests/llvm/expected-pass`test '$(LLVM_VERSION)' = 14 || echo -$(LLVM_VERSION)`.txt

check-llvm: all
	@$(llvm_suite_env) $(SHELL) $(top_srcdir)/tests/llvm/run-llvm-suite.sh \
	  --llvm=$(LLVM_VERSION) --runtime=ompemu --expected=$(llvm_suite_list) \
	  $(LLVM_SUITE_ARGS)

check-llvm-19 check-llvm-22: all
	@$(MAKE) $(AM_MAKEFLAGS) check-llvm LLVM_VERSION=$(@:check-llvm-%=%)

check-llvm-baseline:
	@$(llvm_suite_env) $(SHELL) $(top_srcdir)/tests/llvm/run-llvm-suite.sh \
	  --llvm=$(LLVM_VERSION) --runtime=llvm --expected=$(llvm_suite_list) \
	  $(LLVM_SUITE_ARGS)

fetch-llvm-tests:
	@$(SHELL) $(top_srcdir)/tests/llvm/fetch-llvm-tests.sh --llvm=$(LLVM_VERSION)

.PHONY: check-llvm check-llvm-19 check-llvm-22 check-llvm-baseline fetch-llvm-tests
# Hooked without a recipe so other fragments can hook clean-local too.
clean-local: clean-llvm-suite
clean-llvm-suite:
	-rm -rf tests/llvm/ompemu tests/llvm/llvm14 tests/llvm/19-* tests/llvm/22-*
.PHONY: clean-llvm-suite
