# (filled by its component)
# --- runtime core (registry, plugins, devices, fptr table, policy) ---
# Fake plugins: complete, missing a required symbol, and with 0 devices.
check_LTLIBRARIES += tests/unit/libomptarget.rtl.fake.la \
	tests/unit/libomptarget.rtl.fakemissing.la \
	tests/unit/libomptarget.rtl.fakezero.la
fake_plugin_ldflags = -module -avoid-version -shared -rpath $(abs_builddir)
tests_unit_libomptarget_rtl_fake_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fake_la_LDFLAGS = $(fake_plugin_ldflags)
tests_unit_libomptarget_rtl_fakemissing_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fakemissing_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_MISSING
tests_unit_libomptarget_rtl_fakemissing_la_LDFLAGS = $(fake_plugin_ldflags)
tests_unit_libomptarget_rtl_fakezero_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fakezero_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_ZERO
tests_unit_libomptarget_rtl_fakezero_la_LDFLAGS = $(fake_plugin_ldflags)

check_PROGRAMS += tests/unit/test_core
TESTS += tests/unit/test_core
tests_unit_test_core_SOURCES = tests/unit/test_core.c tests/unit/fake_plugin.h \
	src/registry.c src/plugins.c src/device.c src/entries.c src/globals.c \
	src/fptr_table.c src/policy.c
tests_unit_test_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
tests_unit_test_core_CFLAGS = $(unit_cflags)
tests_unit_test_core_LDADD = src/common/libompemu_common.la $(unit_ldadd) $(LIBS)
EXTRA_tests_unit_test_core_DEPENDENCIES = tests/unit/libomptarget.rtl.fake.la \
	tests/unit/libomptarget.rtl.fakemissing.la \
	tests/unit/libomptarget.rtl.fakezero.la

TESTS += tests/unit/ompemu_run.sh
EXTRA_DIST += tests/unit/ompemu_run.sh
TESTS += tests/unit/core_programs.sh
EXTRA_DIST += tests/unit/core_programs.sh tests/unit/core-progs/link.c \
	tests/unit/core-progs/dtor.cpp tests/unit/core-progs/dso_lib.c \
	tests/unit/core-progs/dso_main.c tests/unit/core-progs/interop.c \
	tests/unit/core-progs/devcheck.c tests/unit/core-progs/init_all.c

# --- data path (mapping, data begin/end/update, attach, launch, API) ---
# The data-path sources against a fake malloc device (data_fake.c stands in
# for the core's device and policy functions).
data_test_sources = tests/unit/data_fake.c tests/unit/data_fake.h \
	src/mapping.c src/maplist.c src/attach.c src/target.c src/update.c \
	src/mapper.c src/launch.c src/api.c src/info.c src/devops.c
data_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/src
data_test_ldadd = src/common/libompemu_common.la $(unit_ldadd) $(LIBS)
check_PROGRAMS += tests/unit/test_mapping tests/unit/test_target \
	tests/unit/test_launch
TESTS += tests/unit/test_mapping tests/unit/test_target tests/unit/test_launch
tests_unit_test_mapping_SOURCES = tests/unit/test_mapping.c $(data_test_sources)
tests_unit_test_mapping_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_mapping_CFLAGS = $(unit_cflags)
tests_unit_test_mapping_LDADD = $(data_test_ldadd)
tests_unit_test_target_SOURCES = tests/unit/test_target.c $(data_test_sources)
tests_unit_test_target_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_target_CFLAGS = $(unit_cflags)
tests_unit_test_target_LDADD = $(data_test_ldadd)
tests_unit_test_launch_SOURCES = tests/unit/test_launch.c $(data_test_sources)
tests_unit_test_launch_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_launch_CFLAGS = $(unit_cflags)
tests_unit_test_launch_LDADD = $(data_test_ldadd)
clean-local: clean-core-progs
clean-core-progs:
	-rm -rf tests/unit/core-progs.tmp
.PHONY: clean-core-progs
