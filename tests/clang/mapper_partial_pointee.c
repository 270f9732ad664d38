// A struct mapped through a named user-defined mapper that maps part of
// its pointee, in the same place (the same stack frame) in several target
// regions in a row.  LLVM 14's runtime keeps the struct's mapping and its
// shadow pointer from one region to the next, and re-attaches the device
// pointer only when the pointee's new device block lies at another
// address than the freed one: a device that hands the freed block out
// again at once left the host's pointer in the device struct, so the
// kernel wrote the host array directly and the copy back put zeros over
// it (issue 15, item 3; LLVM's x86_64 plugin only escapes by malloc's
// luck).  The emu device holds freed blocks back for a while.
#include "check.h"

typedef struct {
  int n;
  int *data;
} vec_t;
#pragma omp declare mapper(half: vec_t v) map(tofrom: v, v.data[0:v.n / 2])

static void round_trip(int round) {
  vec_t v = {8, calloc(8, sizeof(int))};
  int *host = v.data;
#pragma omp target map(mapper(half), tofrom: v)
  for (int i = 0; i < v.n / 2; i++)
    v.data[i] = 10 * round + i + 1;
  CHECK(v.data == host, "round %d: host pointer %p, expected %p", round,
        (void *)v.data, (void *)host);
  for (int i = 0; i < 8; i++)
    CHECK(host[i] == (i < 4 ? 10 * round + i + 1 : 0),
          "round %d: data[%d] = %d, expected %d", round, i, host[i],
          i < 4 ? 10 * round + i + 1 : 0);
  free(host);
}

int main(void) {
  for (int round = 1; round <= 4; round++)
    round_trip(round);
  return tc_done();
}
