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
# `make demo-timeline`: the demo's timeline (OMPEMU_TIMELINE) and, with
# chromium, a picture of it drawn by examples/timeline/timeline.html.
EXTRA_DIST += examples/demo-timeline.sh examples/timeline/timeline.html \
	examples/timeline/render.sh
demo-timeline: all tests/timeline/tl_check
	@$(SHELL) $(top_srcdir)/examples/demo-timeline.sh '$(abs_top_builddir)' '$(abs_top_srcdir)'
.PHONY: demo-timeline
clean-local: clean-demo-timeline
clean-demo-timeline:
	-rm -f examples/demo/timeline.json examples/demo/timeline.png \
	  examples/demo/timeline.html
.PHONY: clean-demo-timeline
