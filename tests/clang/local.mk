# tests/clang: clang-14-compiled OpenMP offload programs, each checking its
# own results, run by tests/clang/run.sh (TAP) on the emu device through
# ompemu-run, with ompemu's runtime driving LLVM 14's x86_64 plugin, and
# with LLVM 14's own runtime loading ompemu's emu plugin.  Skipped with a
# visible reason when clang-14 is not installed.
TESTS += tests/clang/run.sh
EXTRA_DIST += tests/clang/run.sh tests/clang/check.h \
	$(wildcard $(srcdir)/tests/clang/*.c) \
	$(wildcard $(srcdir)/tests/clang/*.cpp)

# `make check-clang`: only these programs (CLANG_TESTS=..., CLANG_TEST_MODES=...
# select programs and modes; mode "llvm" runs them on LLVM 14 alone).
check-clang: all
	@OMPEMU_BUILDDIR='$(abs_top_builddir)' OMPEMU_SRCDIR='$(abs_top_srcdir)' \
	  CLANG14='$(CLANG14)' LLVM14_LIBDIR='$(LLVM14_LIBDIR)' \
	  $(SHELL) $(top_srcdir)/tests/clang/run.sh
.PHONY: check-clang

# Hooked without a recipe so other fragments can hook clean-local too.
clean-local: clean-clang-tests
clean-clang-tests:
	-rm -rf tests/clang/bin
.PHONY: clean-clang-tests
