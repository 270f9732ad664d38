# ompemu-wrap (embed device images in a host object,
# docs/offload-wrapper.md) and ompemu-dump (show what a fat binary or a
# device image holds).  Included from src/tools/local.mk.
bin_PROGRAMS += ompemu-wrap ompemu-dump

ompemu_wrap_SOURCES = \
	src/tools/wrap/wrap.h \
	src/tools/wrap/args.c \
	src/tools/wrap/layout.c \
	src/tools/wrap/x86_64.c \
	src/tools/wrap/elfwriter.c src/tools/wrap/elfwriter.h \
	src/tools/wrap/main.c \
	src/tools/common/readfile.c src/tools/common/readfile.h
ompemu_wrap_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
ompemu_wrap_LDADD = $(LIBELF_LIBS)

ompemu_dump_SOURCES = \
	src/tools/dump/dump.h \
	src/tools/dump/elfview.c src/tools/dump/elfview.h \
	src/tools/dump/fatbin.c \
	src/tools/dump/devimage.c \
	src/tools/dump/output.c \
	src/tools/dump/notes.c \
	src/tools/dump/needs.c \
	src/tools/dump/runfacts.c \
	src/tools/dump/runnable.c \
	src/tools/dump/main.c \
	src/tools/common/readfile.c src/tools/common/readfile.h \
	src/runtime/image_format.c src/runtime/image_format.h src/runtime/readbytes.h \
	src/runtime/entry_table.c src/runtime/entry_table.h \
	src/runtime/image_symbols.c src/runtime/image_symbols.h \
	src/runtime/claim_query.h
# The device image, entry table and symbol size readers are the
# runtime's own; which
# images can run, the runtime itself answers (it is loaded from .libs
# beside the program, else from $(pkglibdir)).
ompemu_dump_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/runtime \
	-DOMPEMU_PKGLIBDIR='"$(pkglibdir)"'
ompemu_dump_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS)
ompemu_dump_LDADD = $(LIBELF_LIBS) -ldl
