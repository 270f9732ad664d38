/* The KernelArgs struct that clang 16 (version 2), clang 19, clang 22 and
 * flang 22 (version 3) pass to __tgt_target_kernel, read into the one
 * launch descriptor every door fills (struct rt_launch, doors.h), so the
 * clang-14 launches and these share rt_target
 * (docs/abi-clang16-19.md 2, docs/abi-clang22.md 4).  KernelArgs layout,
 * little-endian, 104 bytes (version 1: only the first 64):
 *    0 u32 Version        4 u32 NumArgs      8 ArgBasePtrs   16 ArgPtrs
 *   24 ArgSizes          32 ArgTypes        40 ArgNames      48 ArgMappers
 *   56 u64 Tripcount     64 u64 Flags (bit 0 nowait)
 *   72 u32 NumTeams[3]   84 u32 ThreadLimit[3]   96 u32 DynCGroupMem
 *   100..103 padding: uninitialised stack bytes, never read.
 * The scalar num_teams argument is -1 for a plain target (one team, no
 * teams construct), 0 for teams without num_teams, N otherwise; clang
 * passes 1 for target parallel.  Pure functions; nothing allocated, no
 * locks. */
#ifndef OMPEMU_RT_KERNEL_ARGS_H
#define OMPEMU_RT_KERNEL_ARGS_H

#include "doors.h"
#include "rt.h"

#include <stddef.h>
#include <stdint.h>

#define RT_KERNEL_ARGS_V1_SIZE 64
#define RT_KERNEL_ARGS_SIZE 104
#define RT_KERNEL_ARGS_MAX_VERSION 3
#define RT_KERNEL_ARGS_FLAG_NOWAIT 0x1

/* Fill *OUT for __tgt_target_kernel(LOC, DEVICE_ID, NUM_TEAMS,
 * THREAD_LIMIT, HOST_PTR, ARGS):
 *   device_id, host_ptr     as given
 *   args                    {LOC, NumArgs, ArgBasePtrs, ArgPtrs, ArgSizes,
 *                           ArgTypes, ArgNames, ArgMappers, 0}
 *   teams                   NumTeams[0] != -1 (a teams construct, or
 *                           target parallel)
 *   num_teams[3]            NumTeams, -1 read as 0 (unspecified)
 *   thread_limit[3]         ThreadLimit
 *   tripcount               Tripcount (0: none)
 *   dyn_mem                 DynCGroupMem
 *   nowait                  Flags bit 0
 *   prepend_dyn_ptr         Version >= 3 (kernels take dyn_ptr first)
 * Version 1 has only the first 64 bytes: teams and limits then come from
 * the scalars, the rest is 0.  Reads 64 bytes for version 1 and 100 for
 * versions 2 and 3, never the padding.  *FLAGS (optional) receives the raw
 * Flags.  Returns 0; -1 with the reason in WHY (no prefix; the caller
 * reports it) for a NULL struct, a version other than 1..3, an
 * implausible NumArgs, or NumArgs > 0 with a NULL pointer or type array. */
RT_HIDDEN int rt_kernel_args_decode(ident_t *loc, int64_t device_id,
                                    int32_t num_teams, int32_t thread_limit,
                                    void *host_ptr, const void *args,
                                    struct rt_launch *out, uint64_t *flags,
                                    char *why, size_t whylen);

#endif
