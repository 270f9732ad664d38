/* A descriptor with unreadable pointers, registered by hand: the runtime
 * must report each one and carry on, never fault (the device still
 * starts).  ./wild CASE, CASE one of:
 *   name     a host entry's name points to an inaccessible page
 *   image    ImageStart..ImageEnd is an inaccessible page
 *   records  NumDeviceImages runs past the image array into such a page
 *   table    the host entry table is in such a page
 *   loc      a data construct's ident_t * is wild (read in --check mode)
 *   names    its map names array is wild (read in --check mode)
 * argv[2]: the device image (hello.dev.so of tests/lowered). */
#include <ompemu/omptarget.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KERNEL "__omp_offloading_lowered_hello_l12"

static const char region_id = 0;

/* Two pages: the first readable, the second inaccessible. */
static char *two_pages(void) {
  char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || mprotect(p + 4096, 4096, PROT_NONE) != 0) {
    perror("mmap");
    exit(2);
  }
  return p;
}

static void *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) {
    perror(path);
    exit(2);
  }
  *n = (size_t)ftell(f);
  rewind(f);
  void *b = malloc(*n);
  if (!b || fread(b, 1, *n, f) != *n) {
    perror(path);
    exit(2);
  }
  fclose(f);
  return b;
}

/* The image's bytes, global: a run the runtime stops (exit status 125)
 * still holds them, which a leak checker must see. */
static char *img;

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  const char *c = argv[1];
  char *bad = two_pages() + 4096;
  size_t n;
  img = read_file(argv[2], &n);
  __tgt_offload_entry host[1] = {
      {(void *)&region_id, (char *)KERNEL, 0, 0, 0}};
  if (!strcmp(c, "name"))
    host[0].name = bad;
  /* The image record last in the readable page, for "records". */
  __tgt_device_image *rec =
      (__tgt_device_image *)(bad - sizeof(__tgt_device_image));
  rec->ImageStart = img;
  rec->ImageEnd = img + n;
  rec->EntriesBegin = host;
  rec->EntriesEnd = host + 1;
  if (!strcmp(c, "image")) {
    rec->ImageStart = bad;
    rec->ImageEnd = bad + 4096;
  }
  __tgt_bin_desc desc = {!strcmp(c, "records") ? 5 : 1, rec, host, host + 1};
  if (!strcmp(c, "table")) {
    desc.HostEntriesBegin = rec->EntriesBegin = (__tgt_offload_entry *)bad;
    desc.HostEntriesEnd = rec->EntriesEnd = (__tgt_offload_entry *)bad + 1;
  }
  __tgt_register_lib(&desc);

  /* Starts the device: images loaded, entries paired. */
  void *d = omp_target_alloc(64, 0);
  if (!d) {
    fprintf(stderr, "FAIL: omp_target_alloc returned NULL\n");
    return 1;
  }
  omp_target_free(d, 0);

  int a[16] = {0};
  void *base[1] = {a};
  int64_t size[1] = {sizeof a}, type[1] = {OMP_TGT_MAPTYPE_TO};
  ident_t *loc = !strcmp(c, "loc") ? (ident_t *)bad : NULL;
  map_var_info_t *names = !strcmp(c, "names") ? (map_var_info_t *)bad : NULL;
  __tgt_target_data_begin_mapper(loc, 0, 1, base, base, size, type, names,
                                 NULL);
  __tgt_target_data_end_mapper(loc, 0, 1, base, base, size, type, names,
                               NULL);
  __tgt_unregister_lib(&desc);
  printf("wild %s: ok\n", c);
  free(img);
  return 0;
}
