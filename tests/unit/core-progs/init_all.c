/* gcc-built (no libomp in the process): device counts before and after
 * __tgt_init_all_rtls, and __tgt_print_device_info.  Prints
 * "before=B after=A tgt=T initial=I info=P". */
#include <stdint.h>
#include <stdio.h>
int omp_get_num_devices(void);
int omp_get_initial_device(void);
int __tgt_get_num_devices(void);
void __tgt_init_all_rtls(void);
int __tgt_print_device_info(int64_t device_id);
int main(void) {
  int before = omp_get_num_devices();
  __tgt_init_all_rtls();
  int after = omp_get_num_devices();
  printf("before=%d after=%d tgt=%d initial=%d info=%d\n", before, after,
         __tgt_get_num_devices(), omp_get_initial_device(),
         __tgt_print_device_info(99));
  return 0;
}
