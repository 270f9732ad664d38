# Unit tests of the emu device (src/plugins/emu/), linked against its object
# files; test_plugin replaces the ELF loader with a small fake
# (tests/unit/fake_loader.c) so it does not depend on it.
emu_unit_cflags = $(unit_cflags) $(LIBFFI_CFLAGS) $(emu_cppflags)
emu_unit_ldadd = src/common/libompemu_common.la $(LIBFFI_LIBS) $(unit_ldadd)
EXTRA_DIST += tests/unit/emu_testutil.h

check_PROGRAMS += tests/unit/test_arena tests/unit/test_arena_check \
	tests/unit/test_watch_race \
	tests/unit/test_arena_alloc \
	tests/unit/test_arena_extents tests/unit/test_arena_index \
	tests/unit/test_exec \
	tests/unit/test_exec_wait \
	tests/unit/test_devicertl tests/unit/test_plugin \
	tests/unit/test_devicertl_flang tests/unit/test_fastmem
TESTS += tests/unit/test_arena tests/unit/test_arena_check \
	tests/unit/test_watch_race \
	tests/unit/test_arena_alloc \
	tests/unit/test_arena_extents tests/unit/test_arena_index \
	tests/unit/test_exec \
	tests/unit/test_exec_wait \
	tests/unit/test_devicertl tests/unit/test_plugin \
	tests/unit/test_devicertl_flang tests/unit/test_fastmem

tests_unit_test_fastmem_SOURCES = tests/unit/test_fastmem.c \
	src/plugins/emu/fastmem.c src/plugins/emu/fastmem.h
tests_unit_test_fastmem_CFLAGS = $(emu_unit_cflags)
tests_unit_test_fastmem_LDADD = $(unit_ldadd)
# What the arena's unit tests link besides their own file: the arena, the
# fault handler it registers with, and check mode's watch.
arena_unit_sources = \
	tests/unit/arena_testutil.c tests/unit/arena_testutil.h \
	$(emu_arena_sources) \
	src/plugins/emu/fault.c src/plugins/emu/fault.h src/plugins/emu/fault_hold.c src/plugins/emu/devctx.c \
	src/plugins/emu/watch.c src/plugins/emu/watch.h
tests_unit_test_arena_SOURCES = tests/unit/test_arena.c \
	$(arena_unit_sources)
tests_unit_test_arena_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_LDADD = $(emu_unit_ldadd)
tests_unit_test_arena_LDFLAGS = -Wl,--wrap=asan_unpoison_hook \
	-Wl,--wrap=asan_poison_hook
tests_unit_test_arena_alloc_SOURCES = tests/unit/test_arena_alloc.c \
	$(arena_unit_sources)
tests_unit_test_arena_alloc_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_alloc_LDADD = $(emu_unit_ldadd)
tests_unit_test_arena_check_SOURCES = tests/unit/test_arena_check.c \
	$(arena_unit_sources)
tests_unit_test_arena_check_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_check_LDFLAGS = -Wl,--wrap=mprotect
tests_unit_test_arena_extents_SOURCES = tests/unit/test_arena_extents.c \
	src/plugins/emu/arena_extents.c src/plugins/emu/arena_extents.h
tests_unit_test_arena_extents_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_extents_LDADD = $(unit_ldadd)
tests_unit_test_arena_index_SOURCES = tests/unit/test_arena_index.c \
	src/plugins/emu/arena_index.c src/plugins/emu/arena_index.h
tests_unit_test_arena_index_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_index_LDADD = $(unit_ldadd)
tests_unit_test_arena_check_LDADD = $(emu_unit_ldadd)
tests_unit_test_watch_race_SOURCES = tests/unit/test_watch_race.c \
	$(arena_unit_sources)
tests_unit_test_watch_race_CFLAGS = $(emu_unit_cflags)
tests_unit_test_watch_race_LDFLAGS = -Wl,--wrap=watch_fault
tests_unit_test_watch_race_LDADD = $(emu_unit_ldadd)

emu_flang_rtl_sources = src/plugins/emu/devicertl_flang.c \
	src/plugins/emu/devicertl_league.c src/plugins/emu/devicertl_loops.c \
	src/plugins/emu/devicertl_omp.c
tests_unit_test_exec_SOURCES = tests/unit/test_exec.c src/plugins/emu/exec.c \
	src/plugins/emu/fastmem.c \
	src/plugins/emu/exec_event.c src/plugins/emu/exec_internal.h \
	src/plugins/emu/exec_wait.c src/plugins/emu/exec_call.c src/plugins/emu/devctx.c \
	src/plugins/emu/exec_inline.c src/plugins/emu/exec_icv.c \
	src/plugins/emu/exec_observe.c $(emu_flang_rtl_sources)
tests_unit_test_exec_CFLAGS = $(emu_unit_cflags)
tests_unit_test_exec_LDADD = $(emu_unit_ldadd)
tests_unit_test_exec_LDFLAGS = -Wl,--wrap=exec_new_cmd -Wl,--wrap=free
tests_unit_test_exec_wait_SOURCES = tests/unit/test_exec_wait.c \
	$(tests_unit_test_exec_SOURCES:tests/unit/test_exec.c=)
tests_unit_test_exec_wait_CFLAGS = $(emu_unit_cflags)
tests_unit_test_exec_wait_LDADD = $(emu_unit_ldadd)

tests_unit_test_devicertl_SOURCES = tests/unit/test_devicertl.c \
	src/plugins/emu/devicertl.c src/plugins/emu/devctx.c
tests_unit_test_devicertl_CFLAGS = $(emu_unit_cflags)
tests_unit_test_devicertl_LDADD = $(emu_unit_ldadd)

# The flang kernels' device runtime, with the libomp configure found
# (OMPEMU_TEST_LIBOMP=another libomp.so.5 to check that one).
tests_unit_test_devicertl_flang_SOURCES = tests/unit/test_devicertl_flang.c \
	src/plugins/emu/devicertl.c src/plugins/emu/devctx.c $(emu_flang_rtl_sources)
tests_unit_test_devicertl_flang_CFLAGS = $(emu_unit_cflags)
tests_unit_test_devicertl_flang_LDADD = $(emu_unit_ldadd)
AM_TESTS_ENVIRONMENT += \
	OMPEMU_TEST_LIBOMP=$${OMPEMU_TEST_LIBOMP:-'$(OMPEMU_LIBOMP)'}; \
	export OMPEMU_TEST_LIBOMP;

tests_unit_test_plugin_SOURCES = tests/unit/test_plugin.c \
	tests/unit/fake_loader.c tests/unit/fake_loader.h $(emu_arena_sources) \
	src/plugins/emu/fault.c src/plugins/emu/fault_hold.c src/plugins/emu/alias.c src/plugins/emu/exec.c \
	src/plugins/emu/watch.c src/plugins/emu/watch.h \
	src/plugins/emu/exec_event.c src/plugins/emu/exec_internal.h \
	src/plugins/emu/exec_wait.c src/plugins/emu/exec_call.c src/plugins/emu/devicertl.c \
	src/plugins/emu/exec_inline.c src/plugins/emu/exec_icv.c \
	src/plugins/emu/devctx.c src/plugins/emu/exec_observe.c $(emu_flang_rtl_sources) \
	src/plugins/emu/device.c src/plugins/emu/data.c \
	src/plugins/emu/plugin.c src/plugins/emu/fptr.c src/plugins/emu/inject.c \
	src/plugins/emu/shutdown.c
tests_unit_test_plugin_CFLAGS = $(emu_unit_cflags)
tests_unit_test_plugin_LDADD = $(emu_unit_ldadd)

# No two objects of the emu plugin call each other in a circle (nm, with
# tests/unit/call_cycles.sh).
TESTS += tests/emu/call_cycles_emu.sh
EXTRA_DIST += tests/emu/call_cycles_emu.sh
AM_TESTS_ENVIRONMENT += \
	EMU_PLUGIN_OBJECTS='$(libomptarget_rtl_emu_la_OBJECTS)'; \
	export EMU_PLUGIN_OBJECTS;

# libomp 14's abort that ompemu cannot avoid (a host thread's own state):
# an expected failure with libomp 14, a pass with any other.  launch_here:
# kernels run on the calling thread see the device's libomp state.
TESTS += tests/emu/teams_if_host.sh tests/emu/launch_here.sh
# The plugin is dlopen'ed: it must need no static TLS.
TESTS += tests/emu/static_tls.sh
EXTRA_DIST += tests/emu/static_tls.sh
EXTRA_DIST += tests/emu/teams_if_host.sh tests/emu/teams_if_host.c \
	tests/emu/launch_here.sh tests/emu/launch_here.c tests/emu/launch_here_set.c
clean-local: clean-emu-tests
clean-emu-tests:
	-rm -rf tests/emu/work
.PHONY: clean-emu-tests
