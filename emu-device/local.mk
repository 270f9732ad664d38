# libomptarget.rtl.emu.so: the emulated device plugin.  The ELF loader's
# files are listed in emu-device/loader.mk.
pkglib_LTLIBRARIES += libomptarget.rtl.emu.la
emu_loader_sources =
include emu-device/loader.mk
libomptarget_rtl_emu_la_SOURCES = $(emu_loader_sources) \
	emu-device/arena.c emu-device/arena.h \
	emu-device/exec.c emu-device/exec.h \
	emu-device/exec_wait.c emu-device/exec_wait.h \
	emu-device/devicertl.c emu-device/devicertl.h \
	emu-device/emu.h emu-device/device.c emu-device/data.c \
	emu-device/plugin.c emu-device/fptr.c
libomptarget_rtl_emu_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) $(LIBFFI_CFLAGS) -fvisibility=hidden
libomptarget_rtl_emu_la_LIBADD = src/common/libompemu_common.la $(LIBELF_LIBS) $(LIBFFI_LIBS) $(PTHREAD_LIBS) $(LIBS)
libomptarget_rtl_emu_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/emu-device/plugin.map -Wl,-z,defs
EXTRA_libomptarget_rtl_emu_la_DEPENDENCIES = $(top_srcdir)/emu-device/plugin.map
EXTRA_DIST += emu-device/plugin.map emu-device/README.md
