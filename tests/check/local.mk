# tests/check: clang-14 offload programs with one device-memory bug each
# (read past the end, freed or never-allocated device memory, a host
# pointer dereferenced through an alias, bytes copied back that no kernel
# wrote) and the sanitizer cases, run by tests/check/run.sh on the emu
# device, asserting the message and the exit status.  Skipped with a
# visible reason without clang-14.
TESTS += tests/check/run.sh
EXTRA_DIST += tests/check/run.sh $(wildcard $(srcdir)/tests/check/*.c)
clean-local: clean-check-tests
clean-check-tests:
	-rm -rf tests/check/bin
.PHONY: clean-check-tests
