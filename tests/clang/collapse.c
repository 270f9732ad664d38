// collapse(2) and collapse(3) loops in target teams distribute parallel
// for: every iteration runs exactly once.
#include "check.h"

#define NI 17
#define NJ 23
#define NK 5

int main(void) {
  static int hits[NI][NJ];
  static int c3[NI][NJ][NK];
#pragma omp target teams distribute parallel for collapse(2) map(tofrom: hits)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) hits[i][j] += i * NJ + j + 1;
#pragma omp target teams distribute parallel for collapse(3) map(from: c3)
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++) c3[i][j][k] = i + j * 100 + k * 10000;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      CHECK(hits[i][j] == i * NJ + j + 1, "hits[%d][%d] = %d", i, j, hits[i][j]);
      for (int k = 0; k < NK; k++)
        CHECK(c3[i][j][k] == i + j * 100 + k * 10000, "c3[%d][%d][%d] = %d", i, j, k, c3[i][j][k]);
    }
  return tc_done();
}
