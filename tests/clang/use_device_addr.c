// use_device_addr gives the device address of a mapped variable (array,
// scalar) on the host.
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int arr[10];
  int x = 3;
  for (int i = 0; i < 10; i++) arr[i] = i;
  void *darr = NULL, *dx = NULL;
#pragma omp target data map(tofrom: arr, x)
  {
#pragma omp target data use_device_addr(arr, x)
    {
      darr = &arr[0];
      dx = &x;
    }
    CHECK(darr != (void *)arr && dx != (void *)&x, "device addresses equal host ones");
    int nine = 90, seven = 70;
    CHECK(omp_target_memcpy(darr, &nine, sizeof nine, 9 * sizeof(int), 0, dev, host) == 0, "memcpy arr");
    CHECK(omp_target_memcpy(dx, &seven, sizeof seven, 0, 0, dev, host) == 0, "memcpy x");
#pragma omp target map(tofrom: arr, x)
    { arr[0] = arr[9] + x; }
  }
  CHECK(arr[9] == 90 && x == 70 && arr[0] == 160, "arr[0]=%d arr[9]=%d x=%d", arr[0], arr[9], x);
  return tc_done();
}
