# Unit tests of the emu device (emu-device/), linked against its object
# files; test_plugin replaces the ELF loader with a small fake
# (tests/unit/fake_loader.c) so it does not depend on it.
emu_unit_cflags = $(unit_cflags) $(LIBFFI_CFLAGS) -I$(top_srcdir)/emu-device
emu_unit_ldadd = src/common/libompemu_common.la $(LIBFFI_LIBS) $(unit_ldadd)
EXTRA_DIST += tests/unit/emu_testutil.h

check_PROGRAMS += tests/unit/test_arena tests/unit/test_exec \
	tests/unit/test_devicertl tests/unit/test_plugin
TESTS += tests/unit/test_arena tests/unit/test_exec \
	tests/unit/test_devicertl tests/unit/test_plugin

tests_unit_test_arena_SOURCES = tests/unit/test_arena.c emu-device/arena.c
tests_unit_test_arena_CFLAGS = $(emu_unit_cflags)
tests_unit_test_arena_LDADD = $(emu_unit_ldadd)

tests_unit_test_exec_SOURCES = tests/unit/test_exec.c emu-device/exec.c \
	emu-device/exec_wait.c emu-device/devicertl.c
tests_unit_test_exec_CFLAGS = $(emu_unit_cflags)
tests_unit_test_exec_LDADD = $(emu_unit_ldadd)

tests_unit_test_devicertl_SOURCES = tests/unit/test_devicertl.c \
	emu-device/devicertl.c
tests_unit_test_devicertl_CFLAGS = $(emu_unit_cflags)
tests_unit_test_devicertl_LDADD = $(emu_unit_ldadd)

tests_unit_test_plugin_SOURCES = tests/unit/test_plugin.c \
	tests/unit/fake_loader.c tests/unit/fake_loader.h emu-device/arena.c emu-device/exec.c \
	emu-device/exec_wait.c emu-device/devicertl.c emu-device/device.c emu-device/data.c \
	emu-device/plugin.c emu-device/fptr.c
tests_unit_test_plugin_CFLAGS = $(emu_unit_cflags)
tests_unit_test_plugin_LDADD = $(emu_unit_ldadd)
