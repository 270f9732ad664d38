/* Is ompemu's runtime the only OpenMP offload runtime in the process?
 * A program built by clang 16+ against LLVM's packages NEEDs
 * libomptarget.so.16 / .so.19.1 / .so.22.1; when the dynamic loader finds
 * LLVM's file under that name (an RPATH that outranks LD_LIBRARY_PATH, an
 * LD_PRELOAD, a library that needs another name), LLVM's runtime is loaded
 * beside ompemu's and registers the same device images
 * (docs/abi-clang16-19.md 5).  ompemu-run refuses such programs before they
 * start; this check is the runtime's own guard for programs started any
 * other way. */
#ifndef OMPEMU_RT_FOREIGN_RUNTIME_H
#define OMPEMU_RT_FOREIGN_RUNTIME_H

#include "rt.h"

/* Look through the process's loaded objects (dl_iterate_phdr) for an
 * object named libomptarget.so or libomptarget.so.<version> other than
 * the one this code lives in.  Each one found is reported through
 * ompemu_error with its path and what to do.  Returns 0 when there is
 * none, -1 when there is at least one.  Takes the loader's lock only
 * (dl_iterate_phdr); safe from a constructor. */
RT_HIDDEN int rt_check_single_runtime(void);

/* Does PATH (a path or a bare file name) name an offload runtime:
 * basename "libomptarget.so" or "libomptarget.so." followed by a version
 * made of digits and dots?  Plugins (libomptarget.rtl.*) and the device
 * runtime archive (libomptarget.devicertl.a) are not runtimes.  Pure. */
RT_HIDDEN int rt_is_offload_runtime_name(const char *path);

#endif
