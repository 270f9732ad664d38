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

# `make installcheck`: with flang-22 installed, teams_reduction.f90 built
# the way README.md tells a user (flang-22 -fopenmp
# -fopenmp-targets=x86_64-pc-linux-gnu prog.f90 $(pkg-config --libs ompemu))
# against the INSTALLED pkg-config file runs on the installed ompemu-run
# and passes its own checks, on ompemu's runtime (its trace registers it).
installcheck-local: installcheck-flang22
installcheck-flang22:
	@if test -z '$(FLANG22)'; then \
	  echo "installcheck: flang-22 not installed, its program skipped"; exit 0; fi; \
	set -e; d=`mktemp -d`; \
	pc='$(DESTDIR)$(pkgconfigdir)'; \
	libs=`PKG_CONFIG_PATH="$$pc" PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)' $(PKG_CONFIG) --libs ompemu`; \
	cp '$(abs_top_srcdir)/tests/fortran/teams_reduction.f90' $$d/t.f90; \
	(cd $$d && '$(FLANG22)' -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu t.f90 $$libs -o t); \
	OMP_TARGET_OFFLOAD=mandatory OMPEMU_TRACE=1 OMPEMU_TRACE_FILE=$$d/trace \
	  '$(DESTDIR)$(bindir)/ompemu-run' $$d/t > $$d/out; \
	cat $$d/out; grep -q '^ *teams_reduction: ok' $$d/out; \
	grep -q '^ompemu: register lib' $$d/trace; rm -rf $$d; \
	echo "installcheck: a flang-22 program built with the installed pkg-config file ran on ompemu"
.PHONY: installcheck-flang22
