// A struct whose own alignment is 4 lies at an address that is 4 modulo 8,
// and a target region maps two of its members while the whole struct is
// mapped: the combined entry must not be padded down below the struct
// (its alignment is what its address shows, at most 16), or it would ask
// for 4 bytes before the mapped struct ("explicit extension not allowed").
// LLVM 16 and later pad this way; LLVM 14 padded every such entry to 8.
// LLVM14-FAILS: pads the combined entry to 8 bytes, below the mapped struct
// SKIP-MODE-llvmrt: LLVM 14's runtime pads the combined entry to 8 bytes
#include "check.h"

#include <stdint.h>

struct pair {
  int i, j;
};
alignas(16) static unsigned char storage[32];

int main() {
  pair &s = *reinterpret_cast<pair *>(storage + 4);
  CHECK((uintptr_t)&s % 8 == 4, "s at %p", (void *)&s);
  s.i = 1;
  s.j = 2;
#pragma omp target data map(tofrom : s)
  {
#pragma omp target map(from : s.i, s.j)
    {
      s.i = 3;
      s.j = 4;
    }
  }
  CHECK(s.i == 3 && s.j == 4, "s = {%d, %d}", s.i, s.j);
  return tc_done();
}
