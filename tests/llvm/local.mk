# tests/llvm: LLVM 14.0.6's own libomptarget test suite, run with LLVM's lit
# against ompemu's runtime and emu plugin (`make check-llvm`).  The test tree
# comes from Debian's llvm-toolchain-14 source package
# (tests/llvm/fetch-llvm-tests.sh, needs network and apt once) and is cached
# in $(OMPEMU_LLVM_SRC_CACHE) (default ~/.cache/ompemu).  Every test listed in
# tests/llvm/expected-pass.txt (those that pass on LLVM 14's own runtime) must
# pass; `make check-llvm-baseline` reruns the suite on LLVM 14's runtime.
EXTRA_DIST += tests/llvm/fetch-llvm-tests.sh tests/llvm/run-llvm-suite.sh \
	tests/llvm/lit.site.cfg.in tests/llvm/expected-pass.txt

llvm_suite_env = OMPEMU_BUILDDIR='$(abs_top_builddir)' \
	OMPEMU_SRCDIR='$(abs_top_srcdir)' CLANG14='$(CLANG14)' \
	LLVM14_LIBDIR='$(LLVM14_LIBDIR)'

check-llvm: all
	@$(llvm_suite_env) $(SHELL) $(top_srcdir)/tests/llvm/run-llvm-suite.sh \
	  --runtime=ompemu --expected=$(top_srcdir)/tests/llvm/expected-pass.txt

check-llvm-baseline:
	@$(llvm_suite_env) $(SHELL) $(top_srcdir)/tests/llvm/run-llvm-suite.sh \
	  --runtime=llvm14 --expected=$(top_srcdir)/tests/llvm/expected-pass.txt

fetch-llvm-tests:
	@$(SHELL) $(top_srcdir)/tests/llvm/fetch-llvm-tests.sh

.PHONY: check-llvm check-llvm-baseline fetch-llvm-tests
# Hooked without a recipe so other fragments can hook clean-local too.
clean-local: clean-llvm-suite
clean-llvm-suite:
	-rm -rf tests/llvm/ompemu tests/llvm/llvm14
.PHONY: clean-llvm-suite
