# cmocka unit tests, one program per module; each component lists its own
# in tests/unit/<component>.mk.
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
unit_ldadd = $(CMOCKA_LIBS) $(PTHREAD_LIBS)

check_PROGRAMS += tests/unit/test_abi
TESTS += tests/unit/test_abi
tests_unit_test_abi_SOURCES = tests/unit/test_abi.c
tests_unit_test_abi_CFLAGS = $(unit_cflags)
tests_unit_test_abi_LDADD = src/common/libompemu_common.la $(unit_ldadd)

# src/runtime/locstr.h: the fields of location strings and map names.
check_PROGRAMS += tests/unit/test_locstr
TESTS += tests/unit/test_locstr
tests_unit_test_locstr_SOURCES = tests/unit/test_locstr.c
tests_unit_test_locstr_CFLAGS = $(unit_cflags) -I$(top_srcdir)/src/runtime
tests_unit_test_locstr_LDADD = $(unit_ldadd)

# src/common/hotlock.c: the adaptive mutexes of the map and arena locks.
check_PROGRAMS += tests/unit/test_hotlock
TESTS += tests/unit/test_hotlock
tests_unit_test_hotlock_SOURCES = tests/unit/test_hotlock.c
tests_unit_test_hotlock_CFLAGS = $(unit_cflags) -I$(top_srcdir)/src/common
tests_unit_test_hotlock_LDADD = src/common/libompemu_common.la $(unit_ldadd)

# src/common/biaslock.c: the biased map, arena and check-mode locks.
check_PROGRAMS += tests/unit/test_biaslock
TESTS += tests/unit/test_biaslock
tests_unit_test_biaslock_SOURCES = tests/unit/test_biaslock.c
tests_unit_test_biaslock_CFLAGS = $(unit_cflags) -I$(top_srcdir)/src/common
tests_unit_test_biaslock_LDADD = src/common/libompemu_common.la $(unit_ldadd)

# src/common/btree.h, btree_impl.h: the B+ trees of the mapping index and
# the emu arena's free extents.
check_PROGRAMS += tests/unit/test_btree
TESTS += tests/unit/test_btree
tests_unit_test_btree_SOURCES = tests/unit/test_btree.c
tests_unit_test_btree_CFLAGS = $(unit_cflags) -I$(top_srcdir)/src/common
tests_unit_test_btree_LDADD = $(unit_ldadd)

# src/common/wordscan.c: the checking mode's scan for addresses.
check_PROGRAMS += tests/unit/test_wordscan
TESTS += tests/unit/test_wordscan
tests_unit_test_wordscan_SOURCES = tests/unit/test_wordscan.c
tests_unit_test_wordscan_CFLAGS = $(unit_cflags) -I$(top_srcdir)/src/common
tests_unit_test_wordscan_LDADD = src/common/libompemu_common.la $(unit_ldadd)

include tests/unit/emu.mk
include tests/unit/loader.mk
include tests/unit/rt.mk
include tests/unit/tools.mk
include tests/unit/formats.mk
include tests/unit/api.mk

# flang's device-link names in libomptarget.so: exported, and abort on the
# host (src/runtime/abi/device_link.c).
TESTS += tests/unit/device_link.sh
EXTRA_DIST += tests/unit/device_link.sh
clean-local: clean-device-link
clean-device-link:
	-rm -rf tests/unit/work-device-link
.PHONY: clean-device-link
