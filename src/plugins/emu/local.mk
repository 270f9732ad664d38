# libomptarget.rtl.emu.so: the emulated device plugin.  The ELF loader's
# files are listed in src/plugins/emu/loader/loader.mk.
pkglib_LTLIBRARIES += libomptarget.rtl.emu.la
emu_cppflags = -I$(top_srcdir)/src/plugins/emu -I$(top_srcdir)/src/plugins/emu/loader
emu_loader_sources =
# The device memory arena, also linked into unit tests and the fuzzer.
emu_arena_sources = src/plugins/emu/arena.c src/plugins/emu/arena.h \
	src/plugins/emu/arena_internal.h src/plugins/emu/arena_fill.c \
	src/plugins/emu/arena_query.c src/plugins/emu/arena_protect.c \
	src/plugins/emu/arena_holders.c src/plugins/emu/arena_donor.c \
	src/plugins/emu/arena_freeset.c \
	src/plugins/emu/arena_index.c src/plugins/emu/arena_extents.c \
	src/plugins/emu/arena_extents.h \
	src/plugins/emu/arena_index.h src/plugins/emu/poison.c src/plugins/emu/poison.h \
	src/plugins/emu/fastmem.c src/plugins/emu/fastmem.h
include src/plugins/emu/loader/loader.mk
libomptarget_rtl_emu_la_SOURCES = $(emu_loader_sources) \
	$(emu_arena_sources) \
	src/plugins/emu/fault.c src/plugins/emu/fault.h src/plugins/emu/alias.c \
	src/plugins/emu/fault_hold.c src/plugins/emu/fault_hold.h \
	src/plugins/emu/exec.c src/plugins/emu/exec.h \
	src/plugins/emu/exec_event.c src/plugins/emu/exec_internal.h \
	src/plugins/emu/exec_wait.c src/plugins/emu/exec_wait.h \
	src/plugins/emu/exec_call.c src/plugins/emu/exec_call.h \
	src/plugins/emu/exec_inline.c src/plugins/emu/exec_inline.h \
	src/plugins/emu/exec_icv.c src/plugins/emu/exec_icv.h \
	src/plugins/emu/exec_observe.c src/plugins/emu/exec_observe.h \
	src/plugins/emu/devicertl.c src/plugins/emu/devicertl.h src/plugins/emu/devctx.c \
	src/plugins/emu/devicertl_flang.c src/plugins/emu/devicertl_flang.h \
	src/plugins/emu/devicertl_league.c src/plugins/emu/devicertl_loops.c \
	src/plugins/emu/devicertl_omp.c \
	src/plugins/emu/fresh_root.c src/plugins/emu/fresh_root.h \
	src/plugins/emu/emu.h src/plugins/emu/device.c src/plugins/emu/data.c \
	src/plugins/emu/plugin.c src/plugins/emu/fptr.c \
	src/plugins/emu/inject.c src/plugins/emu/shutdown.c \
	src/plugins/emu/watch.c src/plugins/emu/watch.h
libomptarget_rtl_emu_la_CPPFLAGS = $(AM_CPPFLAGS) $(emu_cppflags)
libomptarget_rtl_emu_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBFFI_CFLAGS) -fvisibility=hidden
libomptarget_rtl_emu_la_LIBADD = src/common/libompemu_common.la $(LIBELF_LIBS) $(LIBFFI_LIBS) $(PTHREAD_LIBS) $(LIBS)
libomptarget_rtl_emu_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/plugins/emu/plugin.map -Wl,-z,defs
EXTRA_libomptarget_rtl_emu_la_DEPENDENCIES = $(top_srcdir)/src/plugins/emu/plugin.map
EXTRA_DIST += src/plugins/emu/plugin.map src/plugins/emu/README.md
