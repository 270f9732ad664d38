#!/bin/sh
# tests/check's programs built by clang 22 against ompemu (run.sh 22): the
# findings must not depend on the compiler generation.
exec sh "$(dirname "$0")/run.sh" 22
