# tests/check: clang-14 offload programs with one device-memory bug each
# (read past the end, freed or never-allocated device memory, a host
# pointer dereferenced through an alias, bytes copied back that no kernel
# wrote) and the sanitizer cases, run by tests/check/run.sh on the emu
# device, asserting the message and the exit status.  Skipped with a
# visible reason without clang-14.  tests/check/clang-22.sh runs the same
# programs built by clang 22 (with ompemu's pkg-config flags);
# tests/check/clang-19-libomp.sh those built by clang 19 against LLVM 19's
# own libomp, which they then run with.
TESTS += tests/check/run.sh tests/check/clang-22.sh tests/check/clang-19-libomp.sh
EXTRA_DIST += tests/check/run.sh tests/check/clang-22.sh tests/check/clang-19-libomp.sh \
	$(wildcard $(srcdir)/tests/check/*.c)
clean-local: clean-check-tests
clean-check-tests:
	-rm -rf tests/check/bin tests/check/bin-22
.PHONY: clean-check-tests
