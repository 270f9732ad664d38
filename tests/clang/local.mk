# tests/clang: clang-14-compiled OpenMP offload programs, each checking its
# own results, run by tests/clang/run.sh (TAP) on the emu device through
# ompemu-run, with ompemu's runtime driving LLVM 14's x86_64 plugin, and
# with LLVM 14's own runtime loading ompemu's emu plugin.  Skipped with a
# visible reason when clang-14 is not installed.
TESTS += tests/clang/run.sh
EXTRA_DIST += tests/clang/run.sh tests/clang/check.h tests/clang/check_findings.sh \
	tests/clang/newer_api.h \
	$(wildcard $(srcdir)/tests/clang/*.c) \
	$(wildcard $(srcdir)/tests/clang/*.cpp)

# `make check-clang`: only these programs (CLANG_TESTS=..., CLANG_TEST_MODES=...
# select programs and modes; mode "llvm" runs them on LLVM 14 alone).
check-clang: all
	@OMPEMU_BUILDDIR='$(abs_top_builddir)' OMPEMU_SRCDIR='$(abs_top_srcdir)' \
	  CLANG14='$(CLANG14)' LLVM14_LIBDIR='$(LLVM14_LIBDIR)' \
	  $(SHELL) $(top_srcdir)/tests/clang/run.sh
.PHONY: check-clang

# The same programs, plus tests/clang/newer (what only newer compilers
# emit), built by clang 16, 19 and 22 the Debian way and with ompemu's
# pkg-config flags, run through ompemu-run (tests/clang/matrix.sh).  A
# compiler that is not installed is a visible skip.
TESTS += tests/clang/clang-16.sh tests/clang/clang-19.sh tests/clang/clang-22.sh
EXTRA_DIST += tests/clang/matrix.sh tests/clang/known-failures.txt \
	tests/clang/clang-16.sh tests/clang/clang-19.sh tests/clang/clang-22.sh \
	$(wildcard $(srcdir)/tests/clang/newer/*.c) \
	$(wildcard $(srcdir)/tests/clang/newer/*.cpp)

# `make check-clang-matrix`: only the matrix (CLANG_TESTS, CLANG_MATRIX_MODES
# select programs and modes; CLANG_MATRIX_VERSIONS the compilers).
check-clang-matrix: all
	@for v in $${CLANG_MATRIX_VERSIONS:-16 19 22}; do \
	  OMPEMU_BUILDDIR='$(abs_top_builddir)' OMPEMU_SRCDIR='$(abs_top_srcdir)' \
	  CLANG16='$(CLANG16)' CLANG19='$(CLANG19)' CLANG22='$(CLANG22)' \
	  OMPEMU_LLVM_CACHE='$(OMPEMU_LLVM_CACHE)' \
	  $(SHELL) $(top_srcdir)/tests/clang/matrix.sh $$v; done
.PHONY: check-clang-matrix

# Hooked without a recipe so other fragments can hook clean-local too.
clean-local: clean-clang-tests
clean-clang-tests:
	-rm -rf tests/clang/bin tests/clang/bin-16 tests/clang/bin-19 tests/clang/bin-22
.PHONY: clean-clang-tests
