#!/bin/sh
# tests/clang's programs built by clang 19, both ways (tests/clang/matrix.sh).
exec sh "$(dirname "$0")/matrix.sh" 19
