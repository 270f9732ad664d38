# tests/check: clang-14 offload programs with one device-memory bug each
# (read past the end, freed or never-allocated device memory, a host
# pointer dereferenced through an alias, bytes copied back that no kernel
# wrote) and the sanitizer cases, run by tests/check/run.sh on the emu
# device, asserting the message and the exit status.  Skipped with a
# visible reason without clang-14.  tests/check/clang-16.sh, clang-19.sh
# and clang-22.sh (links to run.sh, which takes the version from its name)
# run the same programs built by clang 16, 19 and 22 (with ompemu's
# pkg-config flags); each is a visible skip without its compiler.
# tests/check/clang-19-libomp.sh runs those built by clang 19 against LLVM
# 19's own libomp, which they then run with.
check_newer = tests/check/clang-16.sh tests/check/clang-19.sh tests/check/clang-22.sh \
	tests/check/clang-19-libomp.sh
TESTS += tests/check/run.sh $(check_newer)
EXTRA_DIST += tests/check/run.sh $(check_newer) \
	$(wildcard $(srcdir)/tests/check/*.c) \
	$(wildcard $(srcdir)/tests/check/*.cpp)
clean-local: clean-check-tests
clean-check-tests:
	-rm -rf tests/check/bin tests/check/bin-16 tests/check/bin-19 tests/check/bin-22 \
	  tests/check/bin-19-llvm
.PHONY: clean-check-tests
