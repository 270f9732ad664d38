// host_parallel_kernel_reach.c built with -O2: calls into libomp become
// tail jumps through the PLT, the plain kernel's loop is vectorised.
// CFLAGS: -O2
// SKIP-MODE-x86: LLVM 14's x86_64 plugin runs every kernel on the calling thread (omp_in_parallel answers 1)
// LLVM14-FAILS: LLVM 14's host plugin runs kernels on the calling thread
// RUN-ENV: OMPEMU_TRACE=2
// EXPECT-STDERR: image dev0.img0: 1 of 6 kernels reach no libomp call (they may run on the launching thread)
#include "host_parallel_kernel_reach.c"
