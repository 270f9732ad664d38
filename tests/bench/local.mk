# `make bench`: ompemu against LLVM 14's runtime on the same binaries.
EXTRA_DIST += tests/bench/bench.c tests/bench/run.sh tests/bench/fptr_dev.c tests/bench/fptr_host.c
bench: all
	@$(SHELL) $(top_srcdir)/tests/bench/run.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: bench
clean-local: clean-bench
clean-bench:
	-rm -rf tests/bench/bench tests/bench/llvm14.txt tests/bench/ompemu.txt tests/bench/fptr
.PHONY: clean-bench
