# Runtime core: registration, plugins, devices, entry tables by name,
# declare-target globals, the indirect-function table, offload policy and
# the non-data-path exports (see src/core.h).
rt_core_sources += \
	src/core.h \
	src/registry.c \
	src/plugins.c \
	src/device.c \
	src/entries.c \
	src/globals.c \
	src/fptr_table.c \
	src/policy.c \
	src/exports.c \
	src/interop.c

