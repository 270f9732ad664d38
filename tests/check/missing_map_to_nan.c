// missing_map_to.c in check mode: the poison reads as a NaN.
// RUN-ENV: OMPEMU_CHECK=1
// RUN-ARGS: check
// EXPECT-STDOUT: check: nan nan
// EXPECT-EXIT: 99
// EXPECT-STDERR: read d[0:N] (declared at missing_map_to.c:13) before anything wrote it; it was mapped with map(alloc) at missing_map_to.c:19
// EXPECT-STDERR: read f[0:N] (declared at missing_map_to.c:14) before anything wrote it
// EXPECT-STDERR: 8 of 8 bytes of dv (declared at missing_map_to.c:17) (map from)
#include "missing_map_to.c"
