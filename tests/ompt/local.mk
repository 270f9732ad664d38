# tests/ompt: OMPT target callbacks from ompemu's runtime to a tool loaded
# by libomp 19 (unpacked privately, never installed), checked callback by
# callback (docs/ompt.md).
TESTS += tests/ompt/run.sh
EXTRA_DIST += tests/ompt/run.sh tests/ompt/tool.c tests/ompt/target_ops.c \
	tests/ompt/expected-emi.txt tests/ompt/expected-noemi.txt
