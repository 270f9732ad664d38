/* An offloading shared library with its own descriptor and a global. */
int dso_g = 100;
#pragma omp declare target to(dso_g)
int dso_fn(int x) {
  int r = 0;
  #pragma omp target map(from: r)
  { r = x + dso_g; }
  return r;
}
