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
	  -e 's|@OMPEMU_BINDIR[@]|SELFDIR|g' \
	  -e 's|@OMPEMU_SAN_PRELOAD[@]|$(OMPEMU_SAN_PRELOAD)|g' \
	  $(top_srcdir)/src/tools/ompemu-run.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

src/tools/inst/ompemu-run: $(top_srcdir)/src/tools/ompemu-run.in Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && $(MKDIR_P) src/tools/inst && \
	$(ompemu_run_sed) -e 's|@OMPEMU_LIBDIR[@]|$(pkglibdir)|g' \
	  -e 's|@OMPEMU_BINDIR[@]|$(bindir)|g' \
	  -e 's|@OMPEMU_SAN_PRELOAD[@]||g' \
	  $(top_srcdir)/src/tools/ompemu-run.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# ompemu's runtime under the names clang 16, 19 and 22 binaries NEED
# (docs/abi-clang16-19.md 5: the program must load it under that exact
# name, so its device images' NEEDED entries resolve to the same object),
# next to it in the build tree's .libs and in $(pkglibdir).  Beside them,
# what a clang 16+ or flang 22 link against that directory needs
# (pkg-config --libs ompemu): libomp.so, a link to the system's libomp
# (clang-linker-wrapper links -lomp), and an empty
# libomptarget.devicertl.a (clang 16 and 19 link -lomptarget.devicertl;
# nothing in it is used for x86 images).
ompemu_rt_aliases = libomptarget.so.16 libomptarget.so.19.1 libomptarget.so.22.1

# make_rt_aliases DIR: create the names in DIR (where libomptarget.so is).
make_rt_aliases = \
	cd "$(1)" && \
	for n in $(ompemu_rt_aliases); do rm -f $$n && ln -s libomptarget.so $$n || exit 1; done && \
	if test -n '$(OMPEMU_LIBOMP)'; then rm -f libomp.so && ln -s '$(OMPEMU_LIBOMP)' libomp.so; fi && \
	rm -f libomptarget.devicertl.a && printf '!<arch>\n' > libomptarget.devicertl.a

# (libtool's relink of libomptarget.la removes .libs/libomptarget.*: these
# are made again after every build.)
all-local: ompemu-rt-aliases
ompemu-rt-aliases: libomptarget.la
	@$(call make_rt_aliases,.libs)
install-exec-hook: install-ompemu-rt-aliases
install-ompemu-rt-aliases:
	$(call make_rt_aliases,$(DESTDIR)$(pkglibdir))
uninstall-hook: uninstall-ompemu-rt-aliases
uninstall-ompemu-rt-aliases:
	-cd "$(DESTDIR)$(pkglibdir)" && rm -f $(ompemu_rt_aliases) libomp.so libomptarget.devicertl.a
.PHONY: ompemu-rt-aliases install-ompemu-rt-aliases uninstall-ompemu-rt-aliases
