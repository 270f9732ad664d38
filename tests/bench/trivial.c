/* Whole-process benchmark: the smallest offloading program (one target
 * region), run many times by run.sh through walltime.c, so start-up
 * (plugin probing, image registration and load) and shutdown count. */
int main(void) {
  int x = 0;
#pragma omp target map(tofrom: x)
  x = 1;
  return x != 1;
}
