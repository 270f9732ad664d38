/* Host half of the translation benchmark (see fptr_dev.c): prints
 * "translate_10000 NS ns". */
#include <ompemu/omptarget.h>
#include <stdio.h>
#include <stdlib.h>

extern int (*const f_table[])(int);
extern const long f_count;

static const char fb_id = 0;
__tgt_offload_entry fb_host_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)&fb_id, "fb_bench", 0, 0, 0},
};

int main(void) {
  long n = f_count;
  void **fps = malloc(n * sizeof *fps);
  for (long i = 0; i < n; i++)
    fps[i] = (void *)f_table[i];
  double out[2] = {0, -1};
  void *args[3] = {fps, &n, out};
  int64_t sizes[3] = {n * (int64_t)sizeof *fps, sizeof n, sizeof out};
  int64_t types[3] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM};
  if (__tgt_target_mapper(NULL, -1, (void *)&fb_id, 3, args, args, sizes, types,
                          NULL, NULL) != 0 || out[1] != 0) {
    fprintf(stderr, "fptr bench: offload failed or pointers not translated\n");
    return 1;
  }
  printf("translate_%ld %.1f ns\n", n, out[0]);
  free(fps);
  return 0;
}
