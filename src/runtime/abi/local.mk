# The front doors of libomptarget.so: every function it exports, as thin
# shims into the runtime (src/runtime/doors.h), one file per group.  A new
# compiler generation's entry points are a new file here.
rt_abi_sources += \
	src/runtime/abi/register.c \
	src/runtime/abi/target_clang14.c \
	src/runtime/abi/target_kernel.c \
	src/runtime/abi/data.c \
	src/runtime/abi/mapper.c \
	src/runtime/abi/omp_api.c \
	src/runtime/abi/omp_api_memory.c \
	src/runtime/abi/omp_api_query.c \
	src/runtime/abi/interop.c \
	src/runtime/abi/info.c \
	src/runtime/abi/device_link.c
