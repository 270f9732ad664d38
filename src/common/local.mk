# Helpers shared by the runtime, the plugins and the tools (not installed).
noinst_LTLIBRARIES += src/common/libompemu_common.la
src_common_libompemu_common_la_SOURCES = \
	src/common/trace.c src/common/trace.h \
	src/common/envvar.c src/common/envvar.h \
	src/common/wordscan.c src/common/wordscan.h \
	src/common/hotlock.c src/common/hotlock.h \
	src/common/biaslock.c src/common/biaslock.h \
	src/common/devevent.h src/common/block_pool.h \
	src/common/btree.h src/common/btree_impl.h
