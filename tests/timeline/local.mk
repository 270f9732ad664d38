# tests/timeline: the timeline (OMPEMU_TIMELINE, LIBOMPTARGET_PROFILE) and
# the run summary of clang-14 programs, checked by a strict JSON validator
# (tl_check.c); `make demo-timeline` writes the demo's timeline.
check_PROGRAMS += tests/timeline/tl_check
tests_timeline_tl_check_SOURCES = tests/timeline/tl_check.c
TESTS += tests/timeline/run.sh
EXTRA_DIST += tests/timeline/run.sh tests/timeline/nowait_threads.c \
	tests/timeline/nowait_one.c tests/timeline/device_fault.c \
	tests/timeline/many.c tests/timeline/fatal.c
