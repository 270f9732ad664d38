// Implicit data-sharing in target regions: scalars are firstprivate
// (changes stay on the device), arrays and structs are tofrom, pointers
// that point into mapped data are translated.
#include "check.h"

struct S { int a; double b[3]; };

int main(void) {
  int n = 10;
  double f = 1.5;
  int arr[10] = {0};
  struct S s = {1, {1, 2, 3}};
  int *mp = malloc(10 * sizeof *mp);
  for (int i = 0; i < 10; i++) mp[i] = i;
#pragma omp target data map(tofrom: mp[0:10])
  {
#pragma omp target
    {
      for (int i = 0; i < n; i++) arr[i] = i * (int)(f * 2);
      s.a = 5;
      s.b[2] = 30;
      mp[3] = 33; /* implicit pointer, translated because mp[0:10] is mapped */
      n = 99;
      f = 0;
    }
  }
  CHECK(n == 10 && f == 1.5, "scalars came back: n=%d f=%g", n, f);
  for (int i = 0; i < 10; i++) CHECK(arr[i] == i * 3, "arr[%d] = %d", i, arr[i]);
  CHECK(s.a == 5 && s.b[0] == 1 && s.b[2] == 30, "s = {%d, %g, %g}", s.a, s.b[0], s.b[2]);
  CHECK(mp[3] == 33 && mp[4] == 4, "mp[3] = %d mp[4] = %d", mp[3], mp[4]);
  free(mp);
  return tc_done();
}
