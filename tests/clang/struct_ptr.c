// A struct reached through a pointer: map the pointee (p[0:1]) and
// members through the pointer (p->x, p->arr[...]).
#include "check.h"

struct rec { int x; int arr[8]; double y; };

static void work(struct rec *p) {
#pragma omp target map(tofrom: p[0:1])
  {
    p->x += 1;
    for (int i = 0; i < 8; i++) p->arr[i] *= 2;
  }
#pragma omp target map(tofrom: p->y, p->arr[2:3])
  {
    p->y = p->arr[2] + p->arr[4];
    p->arr[3] = -3;
  }
}

int main(void) {
  struct rec *r = malloc(sizeof *r);
  r->x = 1;
  r->y = 0;
  for (int i = 0; i < 8; i++) r->arr[i] = i;
  work(r);
  CHECK(r->x == 2, "x = %d", r->x);
  CHECK(r->y == 12, "y = %g", r->y);
  for (int i = 0; i < 8; i++) {
    int want = i == 3 ? -3 : 2 * i;
    CHECK(r->arr[i] == want, "arr[%d] = %d", i, r->arr[i]);
  }
  free(r);
  return tc_done();
}
