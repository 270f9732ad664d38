# The emu device's ELF loader (src/plugins/emu/loader/loader.h) and its GDB JIT
# registration; included by src/plugins/emu/local.mk.
emu_loader_sources += \
	src/plugins/emu/loader/loader.c src/plugins/emu/loader/loader.h src/plugins/emu/loader/loader_internal.h \
	src/plugins/emu/loader/elf_image.c src/plugins/emu/loader/elf_image.h \
	src/plugins/emu/loader/dynamic.c src/plugins/emu/loader/relocate.c \
	src/plugins/emu/loader/loader_syms.c src/plugins/emu/loader/reach.c src/plugins/emu/loader/symbols.c src/plugins/emu/loader/symbols.h \
	src/plugins/emu/loader/reloc.h src/plugins/emu/loader/reloc_x86_64.c \
	src/plugins/emu/loader/tls.c src/plugins/emu/loader/tls.h \
	src/plugins/emu/loader/reject.c \
	src/plugins/emu/loader/gdbjit.c src/plugins/emu/loader/gdbjit.h \
	src/plugins/emu/loader/ehframe.c src/plugins/emu/loader/ehframe.h

# libFuzzer harness of the loader (--enable-fuzzing): built with
# $(CLANG_FUZZ) from the loader's sources, the real arena and src/common.
#   make fuzz                          build tests/fuzz/fuzz_loader
#   make fuzz-run FUZZ_SECONDS=600     run it on a copy of the seed corpus
EXTRA_DIST += tests/fuzz/fuzz_loader.c tests/fuzz/corpus
fuzz_loader_c = tests/fuzz/fuzz_loader.c $(filter %.c,$(emu_arena_sources)) \
	src/common/trace.c src/common/envvar.c $(filter %.c,$(emu_loader_sources))
FUZZ_SECONDS = 600
if ENABLE_FUZZING
noinst_DATA = tests/fuzz/fuzz_loader
CLEANFILES += tests/fuzz/fuzz_loader
tests/fuzz/fuzz_loader: $(addprefix $(top_srcdir)/,$(fuzz_loader_c)) config.h
	$(AM_V_GEN)$(MKDIR_P) tests/fuzz && \
	$(CLANG_FUZZ) -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -DEMU_LOADER_FUZZING -DHAVE_CONFIG_H \
	  -I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/src/common \
	  -I$(top_srcdir)/src/plugins/emu -I$(top_srcdir)/src/plugins/emu/loader $(LIBELF_CFLAGS) \
	  $(addprefix $(top_srcdir)/,$(fuzz_loader_c)) -o $@ \
	  $(LIBELF_LIBS) $(PTHREAD_LIBS) $(LIBS) -lm
fuzz: tests/fuzz/fuzz_loader
fuzz-run: tests/fuzz/fuzz_loader
	$(MKDIR_P) tests/fuzz/work
	cp -n $(top_srcdir)/tests/fuzz/corpus/* tests/fuzz/work/
	tests/fuzz/fuzz_loader -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
	  -max_len=65536 -rss_limit_mb=4096 tests/fuzz/work
else
fuzz fuzz-run:
	@echo "configure with --enable-fuzzing to build the loader fuzzer" >&2; exit 1
endif
.PHONY: fuzz fuzz-run
