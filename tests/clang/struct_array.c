// Arrays of structs: whole arrays, sections of them, and a member of an
// element.
#include "check.h"

struct particle { float x, y, vx, vy; int id; };
#define N 100

int main(void) {
  struct particle ps[N];
  for (int i = 0; i < N; i++) ps[i] = (struct particle){i, -i, 1, 2, i};
#pragma omp target teams distribute parallel for map(tofrom: ps)
  for (int i = 0; i < N; i++) {
    ps[i].x += ps[i].vx;
    ps[i].y += ps[i].vy;
  }
  for (int i = 0; i < N; i++)
    CHECK(ps[i].x == i + 1 && ps[i].y == -i + 2 && ps[i].id == i, "ps[%d] = %g %g %d", i, ps[i].x, ps[i].y, ps[i].id);
  struct particle *heap = malloc(N * sizeof *heap);
  for (int i = 0; i < N; i++) heap[i] = ps[i];
#pragma omp target map(tofrom: heap[20:10])
  for (int i = 20; i < 30; i++) heap[i].id = -heap[i].id;
  for (int i = 0; i < N; i++) {
    int want = (i >= 20 && i < 30) ? -i : i;
    CHECK(heap[i].id == want, "heap[%d].id = %d", i, heap[i].id);
  }
#pragma omp target map(tofrom: ps[7].vy)
  ps[7].vy = 77;
  CHECK(ps[7].vy == 77 && ps[7].vx == 1 && ps[6].vy == 2, "ps[7].vy = %g", ps[7].vy);
  free(heap);
  return tc_done();
}
