# Examples: sources shipped in the tarball (each example's README says how
# to build it).
EXTRA_DIST += examples/demo.sh examples/demo/saxpy.c
EXTRA_DIST += examples/lowered-hello/README.md examples/lowered-hello/build.sh \
	examples/lowered-hello/host.c examples/lowered-hello/device.c
clean-local: clean-demo
clean-demo:
	-rm -f examples/demo/saxpy
.PHONY: clean-demo
