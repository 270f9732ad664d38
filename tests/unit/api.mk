# The API functions newer omp.h files declare (src/runtime/abi/omp_api_*.c)
# on the data path's fake device.
check_PROGRAMS += tests/unit/test_omp_api
TESTS += tests/unit/test_omp_api
tests_unit_test_omp_api_SOURCES = tests/unit/test_omp_api.c \
	$(data_test_sources) \
	src/runtime/device_memset.c src/runtime/device_async.c \
	src/runtime/device_query.c src/runtime/dump_api.c \
	src/runtime/abi/omp_api_memory.c src/runtime/abi/omp_api_query.c
tests_unit_test_omp_api_CPPFLAGS = $(data_test_cppflags)
tests_unit_test_omp_api_CFLAGS = $(data_test_cflags)
tests_unit_test_omp_api_LDADD = $(data_test_ldadd)

# ompemu-run's refusal of a program needing exports ompemu lacks.
TESTS += tests/unit/ompemu_run_missing.sh
EXTRA_DIST += tests/unit/ompemu_run_missing.sh
