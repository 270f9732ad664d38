# The emu device's ELF loader (emu-device/loader.h) and its GDB JIT
# registration; included by emu-device/local.mk.
emu_loader_sources += \
	emu-device/loader.c emu-device/loader.h emu-device/loader_internal.h \
	emu-device/elf_image.c emu-device/elf_image.h \
	emu-device/dynamic.c emu-device/relocate.c \
	emu-device/loader_syms.c emu-device/symbols.c emu-device/symbols.h \
	emu-device/reloc.h emu-device/reloc_x86_64.c \
	emu-device/tls.c emu-device/tls.h \
	emu-device/gdbjit.c emu-device/gdbjit.h

# libFuzzer harness of the loader (--enable-fuzzing): built with
# $(CLANG_FUZZ) from the loader's sources, the real arena and src/common.
#   make fuzz                          build tests/fuzz/fuzz_loader
#   make fuzz-run FUZZ_SECONDS=600     run it on a copy of the seed corpus
EXTRA_DIST += tests/fuzz/fuzz_loader.c tests/fuzz/corpus
fuzz_loader_c = tests/fuzz/fuzz_loader.c emu-device/arena.c \
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
	  -I$(top_srcdir)/emu-device $(LIBELF_CFLAGS) \
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
