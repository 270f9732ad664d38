# `make check-valgrind`: the unit test programs and a few end-to-end offload
# programs under valgrind's memcheck (tests/valgrind/run.sh, TAP on
# stdout).  Not part of `make check`: it takes about two minutes on two
# cores, and a build with --enable-sanitizers skips it.
EXTRA_DIST += tests/valgrind/run.sh tests/valgrind/valgrind.supp

check-valgrind: all $(check_PROGRAMS) $(check_LTLIBRARIES)
	@OMPEMU_BUILDDIR='$(abs_top_builddir)' OMPEMU_SRCDIR='$(abs_top_srcdir)' \
	  CC='$(CC)' CLANG14='$(CLANG14)' LLVM14_LIBDIR='$(LLVM14_LIBDIR)' \
	  $(SHELL) $(top_srcdir)/tests/valgrind/run.sh
.PHONY: check-valgrind

clean-local: clean-valgrind
clean-valgrind:
	-rm -rf tests/valgrind/work
.PHONY: clean-valgrind
