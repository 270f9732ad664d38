/* fake-cuda-image: turn a host x86-64 shared object into a test "cubin"
 * for the CUDA driver test double: e_machine becomes EM_CUDA (190) and
 * e_flags carry the SM the way nvcc's cubins do (sm < 100: SM in bits 0-7
 * and 16-23 plus 0x500; sm >= 100 or --abi8: e_ident[EI_ABIVERSION] = 8 and
 * the SM in bits 8-15).
 * Usage: fake-cuda-image [--sm=N] [--abi8] IN.so OUT */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int sm = 70, abi8 = 0, i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strncmp(argv[i], "--sm=", 5) == 0)
      sm = atoi(argv[i] + 5);
    else if (strcmp(argv[i], "--abi8") == 0)
      abi8 = 1;
    else
      break;
  }
  if (argc - i != 2) {
    fprintf(stderr, "usage: %s [--sm=N] [--abi8] IN.so OUT\n", argv[0]);
    return 2;
  }
  FILE *in = fopen(argv[i], "rb");
  if (!in) {
    perror(argv[i]);
    return 1;
  }
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  rewind(in);
  unsigned char *buf = malloc((size_t)n);
  if (!buf || n < (long)sizeof(Elf64_Ehdr) || fread(buf, 1, (size_t)n, in) != (size_t)n) {
    fprintf(stderr, "%s: cannot read an ELF header\n", argv[i]);
    free(buf);
    fclose(in);
    return 1;
  }
  fclose(in);
  Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
  if (memcmp(buf, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
    fprintf(stderr, "%s: not a 64-bit ELF file\n", argv[i]);
    free(buf);
    return 1;
  }
  eh->e_machine = 190;
  if (abi8 || sm >= 100) {
    eh->e_ident[EI_ABIVERSION] = 8;
    eh->e_flags = ((uint32_t)sm << 8) | 0x2;
  } else {
    eh->e_flags = (uint32_t)sm | 0x500 | ((uint32_t)sm << 16);
  }
  FILE *out = fopen(argv[i + 1], "wb");
  if (!out || fwrite(buf, 1, (size_t)n, out) != (size_t)n || fclose(out) != 0) {
    perror(argv[i + 1]);
    free(buf);
    return 1;
  }
  free(buf);
  return 0;
}
