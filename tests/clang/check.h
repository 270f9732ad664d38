/* Shared checking helpers for the clang-14 offload test programs: CHECK()
 * reports a failed condition with its values and counts it; tc_done()
 * gives the exit status (0 only if every check held). */
#ifndef TC_CHECK_H
#define TC_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tc_failures;

#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
      tc_failures++;                                                     \
    }                                                                    \
  } while (0)

/* Which device the runner put behind the program: "emu" (ompemu's emulated
 * device, under either runtime), "x86" (LLVM 14's x86_64 plugin) or NULL
 * (run by hand). */
static inline const char *tc_device(void) {
  return getenv("OMPEMU_TEST_DEVICE");
}

static inline int tc_done(void) {
  if (tc_failures) {
    fprintf(stderr, "%d check(s) failed\n", tc_failures);
    return 1;
  }
  return 0;
}

#endif
