# libomptarget.so: the host runtime.  The front doors (every exported
# function) are in src/runtime/abi, listed in src/runtime/abi/local.mk; the
# files here are the internal runtime, in two halves that meet in rt.h.
pkglib_LTLIBRARIES += libomptarget.la
rt_abi_sources =
include src/runtime/abi/local.mk
# Runtime core: process state, the entry index, plugins, devices, entry
# tables by name, declare-target globals, the indirect-function table,
# registration, lifecycle and the offload policy (see core.h).
rt_core_sources = \
	src/runtime/core.h \
	src/runtime/doors.h \
	src/runtime/state.c \
	src/runtime/messages.c src/runtime/locstr.h \
	src/runtime/kernel_where.c \
	src/runtime/entry_index.c \
	src/runtime/plugin_loader.c \
	src/runtime/safemem.h src/runtime/safemem.c src/runtime/untrusted.c \
	src/runtime/entries.c \
	src/runtime/globals.c \
	src/runtime/fptr_table.c \
	src/runtime/policy.c \
	src/runtime/device.c \
	src/runtime/registry.c src/runtime/claim_query.h \
	src/runtime/global_sizes.c \
	src/runtime/image_symbols.h src/runtime/image_symbols.c \
	src/runtime/descriptor.c \
	src/runtime/image_format.h src/runtime/readbytes.h \
	src/runtime/image_format.c \
	src/runtime/entry_table.h \
	src/runtime/entry_table.c \
	src/runtime/lifecycle.c
# The data path: mapping table, data begin/end/update, attachment, mappers,
# lookups, kernel launch, device memory routines, interop, INFO output
# (see data.h).
rt_data_sources = \
	src/runtime/data.h \
	src/runtime/mapping.h \
	src/runtime/mapping.c \
	src/runtime/map_index.h \
	src/runtime/map_index.c \
	src/runtime/devops.c \
	src/runtime/dump.c \
	src/runtime/lookup.c \
	src/runtime/maplist.c \
	src/runtime/mapper.c \
	src/runtime/attach.c src/runtime/attach_entries.c \
	src/runtime/data_begin_end.c \
	src/runtime/update.c \
	src/runtime/data_construct.c \
	src/runtime/kernel_args.h \
	src/runtime/kernel_args.c \
	src/runtime/launch.c \
	src/runtime/device_memory.c \
	src/runtime/device_memset.c \
	src/runtime/device_async.c \
	src/runtime/device_query.c \
	src/runtime/dump_api.c \
	src/runtime/check_api.h \
	src/runtime/check_api.c \
	src/runtime/callsite.h src/runtime/callsite.c src/runtime/callsite_caller.c \
	src/runtime/dwarf_line.h src/runtime/dwarf_line.c \
	src/runtime/dwarf_read.h src/runtime/dwarf_compdir.c \
	src/runtime/dwarf_member.h src/runtime/dwarf_member.c \
	src/runtime/interop.c
# Observation: the points and their observers (observe.h): the checking
# mode and data-movement report (check.h), the timeline, the run summary
# and OMPT.
rt_observe_sources = \
	src/runtime/observe.h \
	src/runtime/observe.c \
	src/runtime/observers.c \
	src/runtime/check.h \
	src/runtime/check.c \
	src/runtime/check_race.c \
	src/runtime/check_ompt.c \
	src/runtime/check_data.c src/runtime/check_slack.c \
	src/runtime/check_hostptr.c \
	src/runtime/check_report.c \
	src/runtime/check_util.c src/runtime/check_uses.c \
	src/runtime/check_lock.c \
	src/runtime/check_blocks.c \
	src/runtime/check_heap.c \
	src/runtime/check_extend.c \
	src/runtime/check_describe.c \
	src/runtime/check_kernel_place.c \
	src/runtime/timeline.h \
	src/runtime/timeline.c \
	src/runtime/timeline_write.c \
	src/runtime/summary.c \
	src/runtime/ompt.c
libomptarget_la_SOURCES = src/runtime/rt.h $(rt_abi_sources) \
	$(rt_core_sources) $(rt_data_sources) $(rt_observe_sources)
libomptarget_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime \
	$(LIBELF_CFLAGS)
# A plugin-table slot or a call whose type disagrees with ompemu/plugin.h
# must not build.
libomptarget_la_CFLAGS = $(AM_CFLAGS) $(TLS_CFLAGS) -fvisibility=hidden \
	-Werror=incompatible-pointer-types
# libelf: the line tables that name a device memory routine's caller
# (dwarf_line.c).
libomptarget_la_LIBADD = src/common/libompemu_common.la $(LIBELF_LIBS) \
	$(PTHREAD_LIBS) $(LIBS)
libomptarget_la_LDFLAGS = -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/runtime/libomptarget.map \
	-Wl,-z,defs -Wl,-soname,libomptarget.so \
	-precious-files-regex 'libomptarget\.rtl\..*'
# (libtool's link removes .libs/libomptarget.*, which would include the
# plugins built next to it; the regex keeps them.)
EXTRA_libomptarget_la_DEPENDENCIES = $(top_srcdir)/src/runtime/libomptarget.map
EXTRA_DIST += src/runtime/libomptarget.map
