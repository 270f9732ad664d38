// C++ member functions mapping members of *this: scalars, an array member
// and a pointer member with its pointee.
#include "check.h"

class Grid {
public:
  int n;
  double scale;
  double cells[32];
  double *ext;
  Grid(int n_) : n(n_), scale(2.0), ext(new double[n_]) {
    for (int i = 0; i < 32; i++) cells[i] = i;
    for (int i = 0; i < n; i++) ext[i] = 100 + i;
  }
  ~Grid() { delete[] ext; }
  void scaleCells() {
#pragma omp target map(tofrom: this->cells[0:32]) map(to: this->scale)
    for (int i = 0; i < 32; i++) cells[i] *= scale;
  }
  double sumExt() {
    double s = 0;
#pragma omp target map(to: this->n, this->ext[0:n]) map(tofrom: s)
    for (int i = 0; i < n; i++) s += ext[i];
    return s;
  }
  void bumpAll() {
#pragma omp target map(tofrom: this[0:1], this->ext[0:n])
    {
      n += 0;
      for (int i = 0; i < n; i++) ext[i] += 1;
      cells[0] = -1;
    }
  }
};

int main() {
  Grid g(10);
  double *host_ext = g.ext;
  g.scaleCells();
  for (int i = 0; i < 32; i++) CHECK(g.cells[i] == 2.0 * i, "cells[%d] = %g", i, g.cells[i]);
  double s = g.sumExt();
  CHECK(s == 1045, "sumExt = %g", s);
  g.bumpAll();
  CHECK(g.ext == host_ext, "ext pointer overwritten");
  CHECK(g.ext[0] == 101 && g.ext[9] == 110 && g.cells[0] == -1, "ext[0]=%g ext[9]=%g cells[0]=%g", g.ext[0], g.ext[9], g.cells[0]);
  return tc_done();
}
