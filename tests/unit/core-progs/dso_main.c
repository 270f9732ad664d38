/* Executable + dlopen/dlclose/dlopen of an offloading DSO: libraries
 * registered and unregistered in any order. */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  const char *lib = argc > 1 ? argv[1] : "./libdso.so";
  int r = 0;
  #pragma omp target map(from: r)
  { r = 1; }
  void *h = dlopen(lib, RTLD_NOW);
  if (!h) { printf("dlopen: %s\n", dlerror()); return 2; }
  int (*fn)(int) = (int (*)(int))dlsym(h, "dso_fn");
  int v = fn(5);
  dlclose(h);
  int r2 = 0;
  #pragma omp target map(from: r2)
  { r2 = 2; }
  void *h2 = dlopen(lib, RTLD_NOW);
  fn = (int (*)(int))dlsym(h2, "dso_fn");
  int v2 = fn(6);
  printf("r=%d v=%d r2=%d v2=%d\n", r, v, r2, v2);
  return (r == 1 && v == 105 && r2 == 2 && v2 == 106) ? 0 : 1;
}
