/* Device count, initial device and the host fallback of device(N) where N
 * is the initial device; with argument "bad", a target on device 7, which
 * does not exist (mandatory failure with the source location under -g);
 * with "badloop", a target teams distribute parallel for on device 7
 * (clang 14 pushes its trip count first: still one "not ready" line). */
#include <omp.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  int on_host = -1;
  int n = omp_get_num_devices();
  if (argc > 1 && !strcmp(argv[1], "bad")) {
#pragma omp target device(7) map(from: on_host)
    on_host = omp_is_initial_device();
  }
  if (argc > 1 && !strcmp(argv[1], "badloop")) {
    int a[8];
#pragma omp target teams distribute parallel for device(7) map(from: a)
    for (int i = 0; i < 8; i++)
      a[i] = i;
    on_host = a[7];
  }
#pragma omp target device(n) map(from: on_host)
  on_host = omp_is_initial_device();
  printf("ndev=%d initial=%d host_fallback=%d\n", n, omp_get_initial_device(),
         on_host);
  return on_host == 1 && omp_get_initial_device() == n ? 0 : 1;
}
