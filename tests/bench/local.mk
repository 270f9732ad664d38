# `make bench`: ompemu against LLVM 14's runtime on the same binaries; the
# table goes to stdout and to tests/bench/results.txt (see tests/bench/run.sh).
EXTRA_DIST += tests/bench/bench.c tests/bench/bench.h tests/bench/bench_stress.c \
  tests/bench/trivial.c tests/bench/walltime.c tests/bench/table.awk \
  tests/bench/run.sh tests/bench/fptr_dev.c tests/bench/fptr_host.c \
  tests/bench/PROFILE.md tests/bench/profile/launch.md \
  tests/bench/profile/scale.md
bench: all
	@CLANG14='$(CLANG14)' LLVM14_LIBDIR='$(LLVM14_LIBDIR)' CC='$(CC)' \
	  CLANG22='$(CLANG22)' \
	  $(SHELL) $(top_srcdir)/tests/bench/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench
clean-local: clean-bench
clean-bench:
	-rm -rf tests/bench/bench tests/bench/trivial tests/bench/walltime \
	  tests/bench/bench22 \
	  tests/bench/rows.txt tests/bench/raw.txt tests/bench/one.txt \
	  tests/bench/one.err tests/bench/results.txt tests/bench/fptr
.PHONY: clean-bench
