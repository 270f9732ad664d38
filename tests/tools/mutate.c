/* Test helper for dump.sh: write N mutants of a file, each with K bytes
 * replaced by pseudo-random values (a fixed seed per mutant, so a failure
 * can be reproduced).  Half the changes hit the first 4 KiB and the last
 * 4 KiB, where the ELF header, program headers and section headers are.
 *   mutate IN OUTPREFIX N K */
#include <stdio.h>
#include <stdlib.h>

static unsigned long state;
static unsigned long next(void) {
  state = state * 6364136223846793005UL + 1442695040888963407UL;
  return state >> 33;
}

int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f)
    return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  if (size <= 0)
    return 2;
  unsigned char *orig = malloc((size_t)size), *buf = malloc((size_t)size);
  if (!orig || !buf || fread(orig, 1, (size_t)size, f) != (size_t)size)
    return 2;
  fclose(f);
  int n = atoi(argv[3]), k = atoi(argv[4]);
  for (int m = 0; m < n; m++) {
    state = 0x9e3779b97f4a7c15UL ^ (unsigned long)m;
    for (long i = 0; i < size; i++)
      buf[i] = orig[i];
    for (int j = 0; j < k; j++) {
      long at;
      unsigned long r = next();
      if (j % 2 == 0 && size > 8192)
        at = (r & 1) ? (long)(next() % 4096) : size - 1 - (long)(next() % 4096);
      else
        at = (long)(next() % (unsigned long)size);
      buf[at] = (unsigned char)next();
    }
    char name[4096];
    snprintf(name, sizeof(name), "%s%03d", argv[2], m);
    FILE *o = fopen(name, "wb");
    if (!o || fwrite(buf, 1, (size_t)size, o) != (size_t)size)
      return 2;
    fclose(o);
  }
  free(orig);
  free(buf);
  return 0;
}
