# Examples: sources shipped in the tarball (each example's README says how
# to build it).
EXTRA_DIST += examples/demo.sh examples/demo/saxpy.c
