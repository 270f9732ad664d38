# Tools: ompemu-wrap and ompemu-dump (src/tools/wrap.mk), and the launcher
# ompemu-run, generated from src/tools/ompemu-run.in twice: at the top of the
# build tree (not installed) pointing at the .libs next to itself, where
# libomptarget.so and libomptarget.rtl.emu.so sit together, and as
# src/tools/inst/ompemu-run (installed in $(bindir)) pointing at
# $(pkglibdir).  Only the build-tree one preloads the ASan runtime of an
# --enable-sanitizers build.
include src/tools/wrap.mk

ompemu_run_sed = $(SED) -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

noinst_SCRIPTS = ompemu-run
bin_SCRIPTS += src/tools/inst/ompemu-run
EXTRA_DIST += src/tools/ompemu-run.in
CLEANFILES += ompemu-run src/tools/inst/ompemu-run

ompemu-run: $(top_srcdir)/src/tools/ompemu-run.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(ompemu_run_sed) -e 's|@OMPEMU_LIBDIR[@]|SELFDIR/.libs|g' \
	  -e 's|@OMPEMU_SAN_PRELOAD[@]|$(OMPEMU_SAN_PRELOAD)|g' \
	  $(top_srcdir)/src/tools/ompemu-run.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

src/tools/inst/ompemu-run: $(top_srcdir)/src/tools/ompemu-run.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && $(MKDIR_P) src/tools/inst && \
	$(ompemu_run_sed) -e 's|@OMPEMU_LIBDIR[@]|$(pkglibdir)|g' \
	  -e 's|@OMPEMU_SAN_PRELOAD[@]||g' \
	  $(top_srcdir)/src/tools/ompemu-run.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
