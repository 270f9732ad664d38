# Examples: sources shipped in the tarball (each example's README says how
# to build it).
EXTRA_DIST += examples/demo.sh examples/demo/saxpy.c
EXTRA_DIST += examples/lowered-hello/README.md examples/lowered-hello/build.sh \
	examples/lowered-hello/host.c examples/lowered-hello/device.c
EXTRA_DIST += examples/declare-target-indirect/README.md \
	examples/declare-target-indirect/build.sh \
	examples/declare-target-indirect/indirect.c \
	examples/declare-target-indirect/lowered/device.c \
	examples/declare-target-indirect/lowered/functions.c \
	examples/declare-target-indirect/lowered/host.c
EXTRA_DIST += examples/declare-target-link/README.md \
	examples/declare-target-link/build.sh examples/declare-target-link/link.c
EXTRA_DIST += examples/descriptor-mapping/README.md \
	examples/descriptor-mapping/build.sh examples/descriptor-mapping/device.c \
	examples/descriptor-mapping/device_ids.c examples/descriptor-mapping/host.c
clean-local: clean-demo
clean-demo:
	-rm -f examples/demo/saxpy
.PHONY: clean-demo
