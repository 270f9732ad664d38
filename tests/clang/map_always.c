// map(always, to/from) inside a data region copies even though the data
// is already present; a plain map does not.
// In check mode, the plain map that copies nothing while the host changed
// the data is stale device data kept on purpose:
// a line of check mode's data-movement report, no finding.
#include "check.h"

int main(void) {
  int a[16], seen_plain = 0, seen_always = 0;
  for (int i = 0; i < 16; i++) a[i] = 1;
#pragma omp target data map(to: a)
  {
    for (int i = 0; i < 16; i++) a[i] = 2; /* host only */
#pragma omp target map(to: a) map(from: seen_plain)
    seen_plain = a[3];
#pragma omp target map(always, to: a) map(from: seen_always)
    {
      seen_always = a[3];
      for (int i = 0; i < 16; i++) a[i] = 3;
    }
    CHECK(a[5] == 2, "a[5] = %d before always from", a[5]);
#pragma omp target map(always, from: a)
    { a[0] = 4; }
    CHECK(a[0] == 4 && a[5] == 3, "after always from: a[0]=%d a[5]=%d", a[0], a[5]);
  }
  CHECK(seen_plain == 1, "present data re-copied without always: %d", seen_plain);
  CHECK(seen_always == 2, "always,to did not copy: %d", seen_always);
  return tc_done();
}
