// declare target indirect on classes with virtual functions (clang 22):
// one vtable entry per class (flags 0x20; host name ..._ZTV<cls>_l<N>addr,
// device entry named _ZTV<cls>) plus indirect entries for the methods.
// Virtual calls on the device through objects made there and objects
// mapped from the host.
// CFLAGS: -fopenmp-version=51 -Wno-openmp-mapping
// MIN-CLANG: 22
#include "check.h"

#pragma omp begin declare target indirect
struct Shape {
  virtual int area() const { return 0; }
  virtual ~Shape() {}
};
struct Rect : Shape {
  int w, h;
  Rect(int w_, int h_) : w(w_), h(h_) {}
  int area() const override { return w * h; }
};
struct Square : Rect {
  explicit Square(int s) : Rect(s, s) {}
  int area() const override { return Rect::area() + 1; } /* marks the override */
};
#pragma omp end declare target

int main() {
  int made = 0, mapped = 0, mixed = 0;
  Rect r(3, 4);
  Square sq(5);
#pragma omp target map(to: r, sq) map(from: made, mapped, mixed)
  {
    Rect lr(6, 7);
    Square ls(2);
    const Shape *local[2] = {&lr, &ls};
    made = local[0]->area() + local[1]->area(); /* 42 + 5 */
    const Shape *host_made[2] = {&r, &sq};
    mapped = host_made[0]->area() + host_made[1]->area(); /* 12 + 26 */
    mixed = local[1]->area() * host_made[0]->area(); /* 5 * 12 */
  }
  CHECK(made == 47, "virtual calls on objects made on the device: %d", made);
  CHECK(mapped == 38, "virtual calls on mapped objects: %d", mapped);
  CHECK(mixed == 60, "mixed: %d", mixed);
  return tc_done();
}
