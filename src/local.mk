# libomptarget.so: the host runtime.  Core (registration, plugins, devices,
# policy, exports) lists its files in src/core.mk; the data path (mapping,
# data regions, launch, API) in src/data.mk.
pkglib_LTLIBRARIES += libomptarget.la
rt_core_sources =
rt_data_sources =
include src/core.mk
include src/data.mk
libomptarget_la_SOURCES = src/rt.h $(rt_core_sources) $(rt_data_sources)
libomptarget_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libomptarget_la_LIBADD = src/common/libompemu_common.la $(PTHREAD_LIBS) $(LIBS)
libomptarget_la_LDFLAGS = -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/libomptarget.map \
	-Wl,-z,defs -Wl,-soname,libomptarget.so \
	-precious-files-regex 'libomptarget\.rtl\..*'
# (libtool's link removes .libs/libomptarget.*, which would include the
# plugins built next to it; the regex keeps them.)
EXTRA_libomptarget_la_DEPENDENCIES = $(top_srcdir)/src/libomptarget.map
EXTRA_DIST += src/libomptarget.map
