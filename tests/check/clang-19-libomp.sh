#!/bin/sh
# tests/check's programs built by clang 19 the Debian way, against LLVM 19's
# own libomp, and run with it (run.sh 19 llvm): check mode's OMPT tool and
# nowait holding must work with libomp 19 as with ompemu's libomp.
exec sh "$(dirname "$0")/run.sh" 19 llvm
