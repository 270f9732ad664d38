/* Device image of clang 16/19/22 for tests/unit/loader_compilers.sh: a
 * declare target variable and function the loader must bind. */
#pragma omp declare target
int g = 5;
int probe(void) { return g + 1; }
#pragma omp end declare target
int main(void) {
  int r = 0;
#pragma omp target map(tofrom: r)
  r = probe();
  return r != 6;
}
