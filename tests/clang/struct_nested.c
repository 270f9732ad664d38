// Nested structs: map a whole struct containing structs and arrays, and
// map individual nested members.
#include "check.h"

struct inner { int id; double w[4]; };
struct outer { char tag; struct inner in[2]; long total; };

int main(void) {
  struct outer o = {'x', {{1, {1, 2, 3, 4}}, {2, {5, 6, 7, 8}}}, 0};
#pragma omp target map(tofrom: o)
  {
    double s = 0;
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < 4; i++) s += o.in[k].w[i] * o.in[k].id;
    o.total = (long)s;
    o.in[1].id = 20;
  }
  CHECK(o.total == (1 + 2 + 3 + 4) + 2 * (5 + 6 + 7 + 8), "total %ld", o.total);
  CHECK(o.in[1].id == 20 && o.tag == 'x', "id %d tag %c", o.in[1].id, o.tag);

  /* members only: o.in[1].w and o.total, not o.in[0] */
  o.in[0].id = 111;
#pragma omp target map(to: o.in[1].w) map(tofrom: o.total)
  { o.total = (long)(o.in[1].w[0] + o.in[1].w[3]); }
  CHECK(o.total == 13, "member-mapped total %ld", o.total);
  CHECK(o.in[0].id == 111, "unmapped member changed: %d", o.in[0].id);

  /* a nested member section updated inside a data region */
#pragma omp target data map(tofrom: o.in[0].w[1:2])
  {
#pragma omp target map(tofrom: o.in[0].w[1:2])
    { o.in[0].w[1] = -1; o.in[0].w[2] = -2; }
  }
  CHECK(o.in[0].w[0] == 1 && o.in[0].w[1] == -1 && o.in[0].w[2] == -2 && o.in[0].w[3] == 4,
        "w = %g %g %g %g", o.in[0].w[0], o.in[0].w[1], o.in[0].w[2], o.in[0].w[3]);
  return tc_done();
}
