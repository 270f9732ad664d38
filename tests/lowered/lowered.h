/* Shared helpers of the hand-lowered tests: what a compiler would emit for
 * the host side of an offload program, written in plain C for gcc.  A host
 * entries table lives in section omp_offloading_entries (one array per
 * file, so its order is the order written); kernels are identified by the
 * address of a one-byte region id; map arrays are built by hand and passed
 * to the __tgt_* entry points of libomptarget.  The device side of each
 * test is a separate C file built with cc -shared -fPIC whose own table
 * lists the same names (and, for LLVM 14's runtime, in the same order). */
#ifndef OMPEMU_TESTS_LOWERED_H
#define OMPEMU_TESTS_LOWERED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ompemu/omptarget.h>

#define TO OMP_TGT_MAPTYPE_TO
#define FROM OMP_TGT_MAPTYPE_FROM
#define ALWAYS OMP_TGT_MAPTYPE_ALWAYS
#define DELETE OMP_TGT_MAPTYPE_DELETE
#define PTR_AND_OBJ OMP_TGT_MAPTYPE_PTR_AND_OBJ
#define TARGET_PARAM OMP_TGT_MAPTYPE_TARGET_PARAM
#define LITERAL OMP_TGT_MAPTYPE_LITERAL
#define MEMBER_OF(k1) ((int64_t)((uint64_t)(k1) << 48)) /* k1: 1-based */

/* The section every host and device entry goes in. */
#define OFFLOAD_ENTRIES                                                        \
  __attribute__((section("omp_offloading_entries"), used, aligned(8)))

/* A kernel's host identity: only its address matters. */
#define REGION_ID(id) const char id __attribute__((used)) = 0

/* clang 14's ident_t for calls without -g. */
static ident_t lowered_loc __attribute__((unused)) = {
    0, 2, 0, 0, ";unknown;unknown;0;0;;"};

static int lowered_failures;

/* Check one value: prints "ok"/"FAIL" so a failing run shows what broke. */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      lowered_failures++;                                                      \
    }                                                                          \
  } while (0)

/* The exit status of a test: 0 only when every CHECK held. */
#define LOWERED_RESULT() (lowered_failures ? 1 : 0)

/* Did the caller ask for the host-fallback expectation (a binary whose
 * image no device accepts)? */
static inline int lowered_expect_fallback(void) {
  const char *e = getenv("LOWERED_EXPECT");
  return e && e[0] == 'f';
}

#endif
