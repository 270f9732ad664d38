# The emu device's ELF loader (emu-device/loader.h) and its GDB JIT
# registration; included by emu-device/local.mk.
emu_loader_sources += \
	emu-device/loader.c emu-device/loader.h emu-device/loader_internal.h \
	emu-device/elf_image.c emu-device/elf_image.h \
	emu-device/dynamic.c emu-device/relocate.c \
	emu-device/loader_syms.c emu-device/symbols.c emu-device/symbols.h \
	emu-device/reloc.h emu-device/reloc_x86_64.c \
	emu-device/gdbjit.c emu-device/gdbjit.h
