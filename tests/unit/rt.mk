# (filled by its component)
# --- runtime core (registry, plugins, devices, fptr table, policy) ---
# Fake plugins: complete, missing a required symbol, and with 0 devices.
check_LTLIBRARIES += tests/unit/libomptarget.rtl.fake.la \
	tests/unit/libomptarget.rtl.fakemissing.la \
	tests/unit/libomptarget.rtl.fakezero.la
# Each has its own copy of src/common, as real plugins do: its diagnostics
# must reach the runtime's (test_core's) counter through the sink.
fake_plugin_ldflags = -module -avoid-version -shared -rpath $(abs_builddir)
fake_plugin_libadd = src/common/libompemu_common.la $(PTHREAD_LIBS)
tests_unit_libomptarget_rtl_fake_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fake_la_LDFLAGS = $(fake_plugin_ldflags)
tests_unit_libomptarget_rtl_fake_la_LIBADD = $(fake_plugin_libadd)
tests_unit_libomptarget_rtl_fakemissing_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fakemissing_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_MISSING
tests_unit_libomptarget_rtl_fakemissing_la_LDFLAGS = $(fake_plugin_ldflags)
tests_unit_libomptarget_rtl_fakemissing_la_LIBADD = $(fake_plugin_libadd)
tests_unit_libomptarget_rtl_fakezero_la_SOURCES = tests/unit/fake_plugin.c tests/unit/fake_plugin.h
tests_unit_libomptarget_rtl_fakezero_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_ZERO
tests_unit_libomptarget_rtl_fakezero_la_LDFLAGS = $(fake_plugin_ldflags)
tests_unit_libomptarget_rtl_fakezero_la_LIBADD = $(fake_plugin_libadd)

# The observation layer and its observers (src/runtime/observe.h).
obs_test_sources = src/runtime/observe.c src/runtime/observers.c \
	src/runtime/timeline.c src/runtime/timeline_write.c \
	src/runtime/summary.c src/runtime/ompt.c src/runtime/check.c \
	src/runtime/check_race.c src/runtime/check_ompt.c src/runtime/check_data.c src/runtime/check_slack.c \
	src/runtime/check_hostptr.c src/runtime/check_report.c \
	src/runtime/check_util.c src/runtime/check_uses.c src/runtime/check_lock.c \
	src/runtime/check_blocks.c \
	src/runtime/check_heap.c src/runtime/check_kernel_place.c \
	src/runtime/check_extend.c

# The core with its registration door, the data path stubbed.  Exported
# dynamically so the fake plugins find its ompemu_report_sink.
check_PROGRAMS += tests/unit/test_core
TESTS += tests/unit/test_core
tests_unit_test_core_SOURCES = tests/unit/test_core.c tests/unit/fake_plugin.h \
	src/runtime/state.c src/runtime/messages.c src/runtime/kernel_where.c \
	src/runtime/entry_index.c \
	src/runtime/plugin_loader.c src/runtime/entries.c src/runtime/globals.c \
	src/runtime/safemem.c src/runtime/untrusted.c \
	src/runtime/fptr_table.c src/runtime/policy.c src/runtime/device.c \
	src/runtime/registry.c src/runtime/lifecycle.c \
	src/runtime/global_sizes.c src/runtime/image_symbols.c \
	src/runtime/descriptor.c src/runtime/image_format.c \
	src/runtime/entry_table.c \
	src/runtime/abi/register.c src/runtime/abi/info.c \
	src/runtime/callsite.c src/runtime/callsite_caller.c src/runtime/dwarf_line.c \
	src/runtime/dwarf_compdir.c src/runtime/dwarf_member.c \
	$(obs_test_sources)
tests_unit_test_core_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime $(LIBELF_CFLAGS)
tests_unit_test_core_CFLAGS = $(unit_cflags) -Werror=incompatible-pointer-types
tests_unit_test_core_LDFLAGS = -Wl,--export-dynamic
tests_unit_test_core_LDADD = src/common/libompemu_common.la $(unit_ldadd) $(LIBELF_LIBS) $(LIBS)
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
	src/runtime/state.c src/runtime/messages.c src/runtime/kernel_where.c \
	src/runtime/mapping.c \
	src/runtime/map_index.c \
	src/runtime/devops.c src/runtime/dump.c src/runtime/lookup.c \
	src/runtime/maplist.c src/runtime/mapper.c src/runtime/attach.c \
	src/runtime/attach_entries.c \
	src/runtime/data_begin_end.c src/runtime/update.c \
	src/runtime/data_construct.c src/runtime/launch.c \
	src/runtime/safemem.c src/runtime/untrusted.c \
	src/runtime/device_memory.c src/runtime/check_api.c \
	src/runtime/callsite.c src/runtime/callsite_caller.c src/runtime/dwarf_line.c \
	src/runtime/dwarf_compdir.c src/runtime/dwarf_member.c \
	src/runtime/abi/data.c src/runtime/abi/target_clang14.c \
	src/runtime/abi/target_kernel.c src/runtime/kernel_args.c \
	src/runtime/abi/mapper.c src/runtime/abi/omp_api.c \
	src/runtime/observe.c
data_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime
data_test_cflags = $(unit_cflags) -Werror=incompatible-pointer-types
data_test_ldadd = src/common/libompemu_common.la $(unit_ldadd) $(LIBELF_LIBS) \
	$(LIBS)
check_PROGRAMS += tests/unit/test_mapping tests/unit/test_target \
	tests/unit/test_attach \
	tests/unit/test_launch tests/unit/test_observe tests/unit/test_check
TESTS += tests/unit/test_mapping tests/unit/test_target tests/unit/test_attach \
	tests/unit/test_launch \
	tests/unit/test_observe tests/unit/test_check
tests_unit_test_mapping_SOURCES = tests/unit/test_mapping.c $(data_test_sources)
tests_unit_test_mapping_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_mapping_CFLAGS = $(data_test_cflags)
tests_unit_test_mapping_LDADD = $(data_test_ldadd)
tests_unit_test_target_SOURCES = tests/unit/test_target.c $(data_test_sources)
tests_unit_test_target_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_target_CFLAGS = $(data_test_cflags)
tests_unit_test_target_LDADD = $(data_test_ldadd)
tests_unit_test_attach_SOURCES = tests/unit/test_attach.c $(data_test_sources)
tests_unit_test_attach_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_attach_CFLAGS = $(data_test_cflags)
tests_unit_test_attach_LDADD = $(data_test_ldadd)
tests_unit_test_launch_SOURCES = tests/unit/test_launch.c $(data_test_sources)
tests_unit_test_launch_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_launch_CFLAGS = $(data_test_cflags)
tests_unit_test_launch_LDADD = $(data_test_ldadd)
tests_unit_test_observe_SOURCES = tests/unit/test_observe.c $(data_test_sources)
tests_unit_test_observe_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_observe_CFLAGS = $(data_test_cflags)
tests_unit_test_observe_LDADD = $(data_test_ldadd)
# The checking mode's observer on the fake device (observers.c left out:
# the test sets the observer up itself).
tests_unit_test_check_SOURCES = tests/unit/test_check.c $(data_test_sources) \
	src/runtime/check.c src/runtime/check_race.c src/runtime/check_ompt.c src/runtime/check_data.c src/runtime/check_slack.c \
	src/runtime/check_hostptr.c src/runtime/check_report.c \
	src/runtime/check_util.c src/runtime/check_uses.c src/runtime/check_lock.c \
	src/runtime/check_blocks.c \
	src/runtime/check_heap.c src/runtime/check_kernel_place.c \
	src/runtime/check_extend.c
tests_unit_test_check_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_check_CFLAGS = $(data_test_cflags)
tests_unit_test_check_LDADD = $(data_test_ldadd)
# No two files of libomptarget.so call each other in a circle, and only
# abi/ defines what it exports (the script reads the built objects).
TESTS += tests/unit/call_cycles.sh
EXTRA_DIST += tests/unit/call_cycles.sh
AM_TESTS_ENVIRONMENT += \
	LIBOMPTARGET_OBJECTS='$(libomptarget_la_OBJECTS)'; \
	export LIBOMPTARGET_OBJECTS;

clean-local: clean-core-progs
clean-core-progs:
	-rm -rf tests/unit/core-progs.tmp
.PHONY: clean-core-progs

# The DWARF line-table reader on hand-made objects (good and malformed),
# and the call-site naming on this test's own line table (built with -g:
# DWARF 5, and once more with -gdwarf-4).
check_PROGRAMS += tests/unit/test_dwarf_line tests/unit/test_callsite \
	tests/unit/test_callsite_dwarf4 tests/unit/test_dwarf_member \
	tests/unit/test_dwarf_member_dwarf4
TESTS += tests/unit/test_dwarf_line tests/unit/test_callsite \
	tests/unit/test_callsite_dwarf4 tests/unit/test_dwarf_member \
	tests/unit/test_dwarf_member_dwarf4
dwarf_test_sources = src/runtime/dwarf_line.c src/runtime/dwarf_compdir.c
# dw_member_name on the test's own variables, in DWARF 5 and DWARF 4.
tests_unit_test_dwarf_member_SOURCES = tests/unit/test_dwarf_member.c \
	src/runtime/dwarf_member.c src/runtime/dwarf_compdir.c
tests_unit_test_dwarf_member_CPPFLAGS = $(data_test_cppflags) $(LIBELF_CFLAGS)
tests_unit_test_dwarf_member_CFLAGS = $(unit_cflags) -g
tests_unit_test_dwarf_member_LDADD = $(unit_ldadd) $(LIBELF_LIBS)
tests_unit_test_dwarf_member_dwarf4_SOURCES = $(tests_unit_test_dwarf_member_SOURCES)
tests_unit_test_dwarf_member_dwarf4_CPPFLAGS = $(tests_unit_test_dwarf_member_CPPFLAGS)
tests_unit_test_dwarf_member_dwarf4_CFLAGS = $(unit_cflags) -gdwarf-4
tests_unit_test_dwarf_member_dwarf4_LDADD = $(tests_unit_test_dwarf_member_LDADD)
tests_unit_test_dwarf_line_SOURCES = tests/unit/test_dwarf_line.c \
	$(dwarf_test_sources)
tests_unit_test_dwarf_line_CPPFLAGS = $(data_test_cppflags) $(LIBELF_CFLAGS)
tests_unit_test_dwarf_line_CFLAGS = $(unit_cflags)
tests_unit_test_dwarf_line_LDADD = $(unit_ldadd) $(LIBELF_LIBS)
tests_unit_test_callsite_SOURCES = tests/unit/test_callsite.c \
	src/runtime/callsite.c $(dwarf_test_sources)
tests_unit_test_callsite_CPPFLAGS = $(data_test_cppflags) $(LIBELF_CFLAGS)
tests_unit_test_callsite_CFLAGS = $(unit_cflags) -g
tests_unit_test_callsite_LDADD = $(unit_ldadd) $(LIBELF_LIBS)
tests_unit_test_callsite_dwarf4_SOURCES = $(tests_unit_test_callsite_SOURCES)
tests_unit_test_callsite_dwarf4_CPPFLAGS = $(tests_unit_test_callsite_CPPFLAGS)
tests_unit_test_callsite_dwarf4_CFLAGS = $(unit_cflags) -gdwarf-4
tests_unit_test_callsite_dwarf4_LDADD = $(tests_unit_test_callsite_LDADD)
# Calls from a shared library, with and without a line table.
TESTS += tests/unit/callsite_shared.sh
EXTRA_DIST += tests/unit/callsite_shared.sh
clean-local: clean-callsite-shared
clean-callsite-shared:
	-rm -rf tests/unit/work-callsite-shared
.PHONY: clean-callsite-shared
