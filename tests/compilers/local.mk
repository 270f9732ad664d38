# The newer compilers (clang 16, 19, 22, flang 22): the private LLVM
# runtime trees the tests build against (tests/compilers/provision.sh), the
# compilers' names for the test scripts, and the tests of ompemu-run's
# checks and of ompemu-dump on those compilers' binaries.
EXTRA_DIST += tests/compilers/provision.sh
AM_TESTS_ENVIRONMENT += \
	CLANG16='$(CLANG16)'; export CLANG16; CLANG19='$(CLANG19)'; export CLANG19; \
	CLANG22='$(CLANG22)'; export CLANG22; FLANG22='$(FLANG22)'; export FLANG22; \
	if test -n '$(OMPEMU_LLVM_CACHE)'; then \
	  OMPEMU_LLVM_CACHE='$(OMPEMU_LLVM_CACHE)'; export OMPEMU_LLVM_CACHE; fi;

TESTS += tests/tools/run_check.sh tests/tools/dump_compilers.sh \
	tests/tools/run_unusable.sh
EXTRA_DIST += tests/tools/run_check.sh tests/tools/dump_compilers.sh \
	tests/tools/run_unusable.sh
clean-local: clean-compilers-tests
clean-compilers-tests:
	-rm -rf tests/tools/work-run-check tests/tools/work-dump-compilers \
	  tests/tools/work-run-unusable
.PHONY: clean-compilers-tests

# `make provision-llvm`: extract the private trees now (needs apt's lists
# and the network once; later runs reuse them).
provision-llvm:
	$(SHELL) $(top_srcdir)/tests/compilers/provision.sh 16 19 22
.PHONY: provision-llvm

# `make installcheck` (run by distcheck): with clang-22 installed, a
# program built by clang 22 through the INSTALLED pkg-config file runs on
# the installed ompemu-run, on the emu device (its device pointers lie in
# ompemu's data range).  While the installed runtime lacks
# __tgt_target_kernel (clang 16+'s launch) the program only does device
# memory and data mapping; with it, it also launches a kernel.
installcheck-local: installcheck-clang22
installcheck-clang22:
	@if test -z '$(CLANG22)'; then \
	  echo "installcheck: clang-22 not installed, its program skipped"; exit 0; fi; \
	set -e; d=`mktemp -d`; \
	pc='$(DESTDIR)$(pkgconfigdir)'; \
	libs=`PKG_CONFIG_PATH="$$pc" PKG_CONFIG_SYSROOT_DIR='$(DESTDIR)' $(PKG_CONFIG) --libs ompemu`; \
	kernel=; \
	if '$(DESTDIR)$(bindir)/ompemu-dump' --defines '$(DESTDIR)$(pkglibdir)/libomptarget.so' | \
	   grep -q '^def __tgt_target_kernel '; then kernel=-DWITH_KERNEL; fi; \
	cp '$(abs_top_srcdir)/tests/compilers/installcheck.c' $$d/t.c; \
	'$(CLANG22)' -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $$kernel $$d/t.c $$libs -o $$d/t; \
	OMP_TARGET_OFFLOAD=mandatory '$(DESTDIR)$(bindir)/ompemu-run' $$d/t > $$d/out; \
	cat $$d/out; grep -q '^installcheck: ok' $$d/out; rm -rf $$d; \
	echo "installcheck: a clang-22 program built with the installed pkg-config file ran on ompemu$${kernel:+ (with a kernel)}"
.PHONY: installcheck-clang22
EXTRA_DIST += tests/compilers/installcheck.c
