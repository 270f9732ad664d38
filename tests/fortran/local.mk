# tests/fortran: flang-22 offload programs that check their own results,
# built with ompemu's pkg-config flags and run through ompemu-run
# (tests/fortran/run.sh).  A visible skip when flang-22 is not installed.
TESTS += tests/fortran/run.sh
EXTRA_DIST += tests/fortran/run.sh tests/fortran/known-failures.txt \
	$(wildcard $(srcdir)/tests/fortran/*.f90)

# `make check-fortran`: only these programs (FORTRAN_TESTS=... selects;
# FORTRAN_LIBOMP=/path/libomp.so.5 builds and runs them with that libomp).
check-fortran: all
	@OMPEMU_BUILDDIR='$(abs_top_builddir)' OMPEMU_SRCDIR='$(abs_top_srcdir)' \
	  FLANG22='$(FLANG22)' $(SHELL) $(top_srcdir)/tests/fortran/run.sh
.PHONY: check-fortran

clean-local: clean-fortran-tests
clean-fortran-tests:
	-rm -rf tests/fortran/bin tests/fortran/bin-*
.PHONY: clean-fortran-tests
